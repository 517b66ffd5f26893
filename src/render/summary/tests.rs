//! The summary of a run with more sessions than a session keeps: the
//! folded ones are one row of exact totals, and the table says so.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use super::{Summary, write_table};
use crate::decode::Decoder;
use crate::event::Event;
use crate::input::Line;
use crate::session::{KEEP_SESSIONS, Session};

fn init(session: &str, model: &str) -> String {
    format!(
        r#"{{"type":"system","subtype":"init","session_id":"{session}","model":"{model}","permissionMode":"default","tools":["Bash"]}}"#
    )
}

fn call(session: &str, id: &str) -> String {
    format!(
        r#"{{"type":"assistant","session_id":"{session}","parent_tool_use_id":null,"message":{{"id":"msg_{id}","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"ls"}}}}]}}}}"#
    )
}

fn answer(session: &str, id: &str, is_error: bool) -> String {
    format!(
        r#"{{"type":"user","session_id":"{session}","parent_tool_use_id":null,"message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","content":"out","is_error":{is_error}}}]}}}}"#
    )
}

fn result(session: &str, is_error: bool) -> String {
    let sub = if is_error {
        "error_during_execution"
    } else {
        "success"
    };
    format!(
        r#"{{"type":"result","subtype":"{sub}","is_error":{is_error},"session_id":"{session}","num_turns":1,"total_cost_usd":0.5,"result":"done"}}"#
    )
}

/// A session over `lines`, each decoded and observed, finished.
fn session_of(lines: &[String]) -> Session {
    let mut session = Session::new();
    let mut decoder = Decoder::new();
    for (l, number) in lines.iter().zip(1..) {
        let line = Line {
            number,
            bytes: l.as_bytes(),
            partial: false,
        };
        decoder
            .decode(&line, &mut |ev: &Event<'_>| {
                session.observe(ev);
                Ok(())
            })
            .unwrap();
    }
    session.finish();
    session
}

#[test]
fn sessions_beyond_the_kept_ones_are_one_row_with_exact_totals() {
    let n = KEEP_SESSIONS + 300;
    let mut lines = Vec::new();
    for i in 0..n {
        let id = format!("s{i}");
        // One session of another model, one that fails, among the folded.
        lines.push(init(&id, if i == 5 { "other" } else { "m" }));
        lines.push(call(&id, &format!("t{i}")));
        lines.push(answer(&id, &format!("t{i}"), i % 10 == 0));
        lines.push(result(&id, i == 7));
    }
    let s = session_of(&lines);
    assert_eq!(s.earlier().map(|e| e.count), Some(300), "folded");
    let sum = Summary::from_session(&s);
    let t = &sum.total;
    assert_eq!(t.sessions, n as u64);
    assert_eq!(t.results, n as u64);
    assert_eq!(t.turns, Some(n as u64));
    assert_eq!(t.tool_calls, n as u64);
    assert_eq!(t.tool_errors, n.div_ceil(10) as u64);
    let want = 0.5 * f64::from(u32::try_from(n).unwrap());
    assert!((t.cost_usd.unwrap() - want).abs() < 1e-6);
    assert_eq!(t.model, None, "one session used another model");
    assert_eq!(t.outcome, Some("error"));
    assert_eq!(t.tools.len(), 1);
    assert_eq!(t.tools[0].calls, n as u64);
    // One row for the folded sessions, then one per kept session.
    assert_eq!(sum.sessions.len(), KEEP_SESSIONS + 1);
    assert_eq!(sum.sessions[0].sessions, 300);
    assert_eq!(sum.sessions[0].session, None);
    assert_eq!(sum.sessions[0].outcome, Some("error"));
    assert_eq!(sum.sessions[1].session.as_deref(), Some("s300"));
    let mut table = termcolor::NoColor::new(Vec::new());
    write_table(&mut table, &sum).unwrap();
    let table = String::from_utf8(table.into_inner()).unwrap();
    assert!(
        table.lines().nth(1).unwrap().starts_with("300 earlier"),
        "{table}"
    );
    assert!(table.contains(&format!("total ({n})")), "{table}");
}
