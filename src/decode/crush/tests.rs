//! Crush: its store's lines (as `crush/store.rs` writes them),
//! through the decoder.

use crate::decode::testing::{EventKind, Producer, as_call, as_notice, as_result, replay};
use crate::event::ToolKind as K;

const HEADER: &str = r#"{"type":"crush_session","timestamp":1764590400000,"id":"s1","parent_session_id":null,"title":"t","prompt_tokens":1200,"completion_tokens":30,"cost":0.002,"created_at":1764590400,"cwd":"/w","model":"m","provider":"openai"}"#;

/// A message line of session `s1` (a sub-agent's with `call`).
fn message(role: &str, parts: &str, call: Option<&str>) -> String {
    let call = call.map_or(String::new(), |c| format!(r#","call":"{c}""#));
    format!(
        r#"{{"type":"crush_message","id":"m","session_id":"s1","role":"{role}","parts":[{parts}]{call}}}"#
    )
}

fn finish(reason: &str) -> String {
    format!(r#"{{"type":"finish","data":{{"reason":"{reason}","time":1764590401}}}}"#)
}

fn result_of(lines: &[String]) -> Option<(bool, Vec<String>)> {
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let evs = replay(&lines);
    evs.iter().find_map(|e| match &e.kind {
        EventKind::Result(r) => Some((
            r.is_error,
            r.errors.iter().map(ToString::to_string).collect(),
        )),
        _ => None,
    })
}

#[test]
fn calls_show_their_key_argument_and_results_fail_by_is_error() {
    let call = |id: &str, name: &str, input: &str| {
        format!(
            r#"{{"type":"tool_call","data":{{"id":"{id}","name":"{name}","input":{},"provider_executed":false,"finished":true}}}}"#,
            serde_json::Value::from(input)
        )
    };
    let result = |id: &str, err: bool| {
        format!(
            r#"{{"type":"tool_result","data":{{"tool_call_id":"{id}","name":"x","content":"out {id}","data":"","mime_type":"","metadata":"","is_error":{err}}}}}"#
        )
    };
    let calls = [
        call("c1", "bash", r#"{"command":"ls -la","description":"List"}"#),
        call("c2", "view", r#"{"file_path":"/w/a.rs"}"#),
        call(
            "c3",
            "grep",
            r#"{"pattern":"fn main","path":"src","include":"*.rs"}"#,
        ),
        call(
            "c4",
            "todos",
            r#"{"todos":[{"content":"a","status":"pending"}]}"#,
        ),
        call("c5", "mcp_github_list_issues", r#"{"repo":"x/y"}"#),
        call(
            "c6",
            "edit",
            r#"{"file_path":"/w/b.rs","old_string":"a","new_string":"b"}"#,
        ),
    ];
    let lines = [
        HEADER.to_string(),
        message("assistant", &calls.join(","), None),
        message(
            "tool",
            &format!("{},{}", result("c1", false), result("c2", true)),
            None,
        ),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let evs = replay(&lines);
    assert!(evs.iter().all(|e| e.producer == Producer::Crush));
    let shown: Vec<_> = (evs.iter())
        .filter(|e| matches!(e.kind, EventKind::ToolCall(_)))
        .map(|e| {
            let c = as_call(e);
            (
                c.name.to_string(),
                c.key_arg.as_deref().unwrap_or("").to_string(),
                c.kind,
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("bash".into(), "ls -la".into(), K::Shell),
            ("view".into(), "/w/a.rs".into(), K::Read),
            ("grep".into(), "fn main in src (*.rs)".into(), K::Search),
            ("todos".into(), "1 item".into(), K::Todo),
            ("mcp_github_list_issues".into(), "x/y".into(), K::Mcp),
            ("edit".into(), "/w/b.rs".into(), K::Edit),
        ]
    );
    let results: Vec<_> = (evs.iter())
        .filter(|e| matches!(e.kind, EventKind::ToolResult(_)))
        .map(|e| (as_result(e).id.to_string(), as_result(e).is_error))
        .collect();
    assert_eq!(results, [("c1".into(), false), ("c2".into(), true)]);
}

#[test]
fn the_last_turns_finish_decides_the_outcome() {
    let user = message(
        "user",
        r#"{"type":"text","data":{"text":"go"}},{"type":"finish","data":{"reason":"stop","time":0}}"#,
        None,
    );
    let answer = |reason: &str| {
        message(
            "assistant",
            &format!(
                r#"{{"type":"text","data":{{"text":"done"}}}},{}"#,
                finish(reason)
            ),
            None,
        )
    };
    let h = HEADER.to_string();
    // An answer: a success; a user's own `stop` mark is no answer.
    assert_eq!(
        result_of(&[h.clone(), user.clone(), answer("end_turn")]),
        Some((false, vec![]))
    );
    assert_eq!(result_of(&[h.clone(), user.clone()]), None);
    // Calls made, no answer after them: cut short.
    assert_eq!(
        result_of(&[h.clone(), user.clone(), answer("tool_use")]),
        None
    );
    let error = message(
        "assistant",
        r#"{"type":"finish","data":{"reason":"error","time":1,"message":"Provider Error","details":"500 boom"}}"#,
        None,
    );
    assert_eq!(
        result_of(&[h.clone(), user.clone(), error.clone()]),
        Some((true, vec!["Provider Error: 500 boom".to_string()]))
    );
    assert_eq!(
        result_of(&[h.clone(), user.clone(), answer("canceled")]),
        Some((true, vec!["canceled".to_string()]))
    );
    // A later turn that ended well: the session did.
    assert_eq!(
        result_of(&[
            h.clone(),
            user.clone(),
            error,
            user.clone(),
            answer("end_turn")
        ]),
        Some((false, vec![]))
    );
    // A sub-agent's error is said, but is not the session's end.
    let sub_error = message("assistant", &finish("error"), Some("c9"));
    let lines = [h, user, answer("end_turn"), sub_error];
    assert_eq!(result_of(&lines), Some((false, vec![])));
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let evs = replay(&lines);
    let said = evs
        .iter()
        .find(|e| matches!(e.kind, EventKind::Notice(_)))
        .unwrap();
    assert_eq!(said.parent.as_deref(), Some("c9"));
    assert_eq!(as_notice(said).text, "the request failed");
}

#[test]
fn tokens_are_the_rows_and_the_cost_the_sessions_alone() {
    let sub = r#"{"type":"crush_subagent","id":"m1$$c1","parent_session_id":"s1","prompt_tokens":500,"completion_tokens":9,"cost":0.001,"model":"small","call":"c1"}"#;
    let lines = [
        HEADER.to_string(),
        sub.to_string(),
        message(
            "assistant",
            r#"{"type":"text","data":{"text":"sub"}}"#,
            Some("c1"),
        ),
        message(
            "assistant",
            &format!(
                r#"{{"type":"text","data":{{"text":"ok"}}}},{}"#,
                finish("end_turn")
            ),
            None,
        ),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let evs = replay(&lines);
    let text = evs
        .iter()
        .find(|e| matches!(e.kind, EventKind::Text(_)))
        .unwrap();
    assert_eq!(text.parent.as_deref(), Some("c1"), "the sub-agent's nested");
    let usage: Vec<_> = (evs.iter())
        .filter_map(|e| match &e.kind {
            EventKind::Usage(u) => Some((
                u.model.as_deref().map(str::to_string),
                u.tokens.input,
                u.cost_usd,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        usage,
        [
            (Some("m".into()), Some(1200), Some(0.002)),
            (Some("small".into()), Some(500), Some(0.0)),
        ]
    );
    let EventKind::Result(r) = &evs.last().unwrap().kind else {
        panic!("no result: {evs:?}");
    };
    assert_eq!((r.tokens.input, r.tokens.output), (Some(1700), Some(39)));
    assert_eq!(r.cost_usd, Some(0.002));
    assert_eq!(r.text.as_deref(), Some("ok"));
}

#[test]
fn odd_rows_are_read_as_far_as_they_go() {
    let evs = replay(&[
        r#"{"type":"crush_session","id":7,"prompt_tokens":-1,"cost":"x","model":[1]}"#,
        r#"{"type":"crush_message","role":"assistant","parts":"[{not json"}"#,
        r#"{"type":"crush_message","role":"assistant","skipped":{"parts":99999999}}"#,
        r#"{"type":"crush_message","role":5,"parts":[1,null,{"type":"tool_call"},{"type":"tool_call","data":{"input":7}},{"type":"tool_call","data":{"name":"bash","input":"{\"command\": \"sle"}},{"type":"finish","data":{"reason":3}}]}"#,
        r#"{"type":"crush_message","role":"tool","parts":[{"type":"tool_result","data":{"is_error":"yes","content":[1]}}]}"#,
        r#"{"type":"crush_subagent","prompt_tokens":"many"}"#,
        r#"{"type":"crush_what"}"#,
    ]);
    let skipped = (evs.iter())
        .filter(|e| matches!(&e.kind, EventKind::Notice(n) if n.subtype == "skipped"))
        .count();
    assert_eq!(skipped, 2);
    // The call's input cut short: read up to its last whole member.
    assert!(
        evs.iter()
            .any(|e| matches!(&e.kind, EventKind::ToolCall(c) if c.name == "bash"))
    );
    assert!(!evs.iter().any(|e| matches!(e.kind, EventKind::Result(_))));
}
