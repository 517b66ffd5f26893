use super::*;

use crate::decode::{Decoded, Decoder};
use crate::event::{EventKind, Producer, Tokens};
use crate::input::Line;
use crate::time::Timestamp;

/// What the session said about one observed event.
#[derive(Clone, Debug)]
struct Obs {
    /// Line number of the event.
    line: u64,
    /// `EventKind::name` of the event.
    kind: &'static str,
    /// Tool call / result / denial id, when the event has one.
    id: Option<String>,
    /// The session's note right after observing it.
    note: Note,
}

/// Decode `text` line by line (as `run::Runner` does) and observe every
/// event; the session is not finished.
fn feed(session: &mut Session, dec: &mut Decoder, text: &str) -> Vec<Obs> {
    let mut out = Vec::new();
    for (i, l) in text.split('\n').enumerate() {
        let line = Line {
            number: i as u64 + 1,
            bytes: l.as_bytes(),
            partial: false,
        };
        let d = dec
            .decode(&line, &mut |ev: &Event<'_>| {
                session.observe(ev);
                let id = match &ev.kind {
                    EventKind::ToolCall(c) => Some(c.id.to_string()),
                    EventKind::ToolResult(r) => Some(r.id.to_string()),
                    EventKind::PermissionDenied(d) => d.id.as_deref().map(str::to_string),
                    _ => None,
                };
                out.push(Obs {
                    line: ev.line,
                    kind: ev.kind.name(),
                    id,
                    note: session.note().clone(),
                });
                Ok(())
            })
            .unwrap();
        assert!(!matches!(d, Decoded::Skipped(_)), "line {}: {d:?}", i + 1);
    }
    out
}

/// A fresh session over one whole stream, finished.
fn run(text: &str) -> (Session, Vec<Obs>) {
    let mut s = Session::new();
    let obs = feed(&mut s, &mut Decoder::new(), text);
    s.finish();
    (s, obs)
}

/// The observation of the event of `kind` with `id`.
fn find<'a>(obs: &'a [Obs], kind: &str, id: &str) -> &'a Obs {
    obs.iter()
        .find(|o| o.kind == kind && o.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no {kind} {id}"))
}

fn only(session: &Session) -> &SessionSummary {
    let all: Vec<_> = session.sessions().collect();
    assert_eq!(all.len(), 1, "{all:?}");
    all[0]
}

/// The text without its last `n` lines (a stream cut short).
fn drop_last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut s = lines[..lines.len() - n].join("\n");
    s.push('\n');
    s
}

const TOOLS_BASIC: &str = include_str!("../../tests/fixtures/claude/tools_basic.jsonl");
const TEXT_ONLY: &str = include_str!("../../tests/fixtures/claude/text_only.jsonl");
const SUBAGENT: &str = include_str!("../../tests/fixtures/claude/subagent.jsonl");
const SUBAGENT_330: &str = include_str!("../../tests/fixtures/claude-2.1.330/subagent.jsonl");
const DENIED: &str = include_str!("../../tests/fixtures/claude/permission_denied.jsonl");
const DENIED_330: &str =
    include_str!("../../tests/fixtures/claude-2.1.330/permission_denied.jsonl");
const API_ERROR_500: &str = include_str!("../../tests/fixtures/claude/api_error_500.jsonl");
const MAX_TURNS: &str = include_str!("../../tests/fixtures/claude/max_turns.jsonl");
const MAX_BUDGET: &str = include_str!("../../tests/fixtures/claude/max_budget.jsonl");
const TOOL_ERRORS: &str = include_str!("../../tests/fixtures/claude/tool_errors.jsonl");
const PARTIAL: &str = include_str!("../../tests/fixtures/claude/partial_messages.jsonl");

// Small inline streams.

fn init(session: &str, model: &str) -> String {
    format!(
        r#"{{"type":"system","subtype":"init","session_id":"{session}","model":"{model}","permissionMode":"default","tools":["Bash"]}}"#
    )
}

fn say(session: &str, msg: &str, text: &str) -> String {
    format!(
        r#"{{"type":"assistant","session_id":"{session}","message":{{"id":"{msg}","content":[{{"type":"text","text":"{text}"}}]}}}}"#
    )
}

fn call(session: &str, parent: Option<&str>, id: &str, name: &str, input: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"assistant","session_id":"{session}","parent_tool_use_id":{parent},"message":{{"id":"msg_{id}","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}]}}}}"#
    )
}

fn answer(session: &str, parent: Option<&str>, id: &str, content: &str, is_error: bool) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"user","session_id":"{session}","parent_tool_use_id":{parent},"message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","content":"{content}","is_error":{is_error}}}]}}}}"#
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

fn stream(lines: &[String]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

// ---------------------------------------------------------------------------
// Correlation of results with their calls

#[test]
fn tool_results_are_correlated_with_their_calls() {
    let (s, obs) = run(TOOLS_BASIC);
    // Call ids, names and inputs as in tools_basic.jsonl lines 3, 5, 7, 9.
    let read = find(&obs, "tool_result", "toolu_01Spkpw8CETv7hM6QACPWyCM");
    assert_eq!(read.note.tool.as_deref(), Some("Read"));
    assert_eq!(
        read.note.key_arg.as_deref(),
        Some("/home/dev/work/tools_basic/project/README.md")
    );
    assert_eq!(read.note.depth, 0);
    assert_eq!(read.line, 4);

    let glob = find(&obs, "tool_result", "toolu_01SnzdvYuKAiHOF3FZBcotds");
    assert_eq!(glob.note.tool.as_deref(), Some("Glob"));
    assert_eq!(glob.note.key_arg.as_deref(), Some("**/*.py"));

    let grep = find(&obs, "tool_result", "toolu_01YsN2i9NUVZyyEXtcyKryJ6");
    assert_eq!(grep.note.tool.as_deref(), Some("Grep"));
    assert_eq!(
        grep.note.key_arg.as_deref(),
        Some("def |fn  in /home/dev/work/tools_basic/project")
    );

    let bash = find(&obs, "tool_result", "toolu_01UeU06XdBTp5ykCHiyrGLmK");
    assert_eq!(bash.note.tool.as_deref(), Some("Bash"));
    assert_eq!(
        bash.note.key_arg.as_deref(),
        Some("ls -la && wc -l hello.py src/lib.rs")
    );

    let c = s.call("toolu_01UeU06XdBTp5ykCHiyrGLmK").unwrap();
    assert_eq!(&*c.name, "Bash");
    assert!(c.answered);
    assert!(!c.failed);
    assert_eq!(c.depth, 0);
    assert_eq!(s.unanswered_calls().count(), 0);
    // A tool call's own note says nothing about a tool.
    let call_obs = find(&obs, "tool_call", "toolu_01UeU06XdBTp5ykCHiyrGLmK");
    assert!(call_obs.note.tool.is_none());
}

#[test]
fn result_of_an_unknown_call_has_no_tool() {
    let (s, obs) = run(&stream(&[answer("s", None, "toolu_nowhere", "x", false)]));
    let o = find(&obs, "tool_result", "toolu_nowhere");
    assert!(o.note.tool.is_none());
    assert!(o.note.key_arg.is_none());
    assert!(s.call("toolu_nowhere").is_none());
}

#[test]
fn failed_results_are_counted_and_marked() {
    let (s, _) = run(TOOL_ERRORS);
    let sum = only(&s);
    // tool_errors.jsonl: 7 tool_use blocks, 6 tool_result blocks with
    // "is_error": true (counted with python over the fixture).
    assert_eq!(sum.tool_calls, 7);
    assert_eq!(sum.tool_errors, 6);
    assert_eq!(sum.unanswered, 0);
    assert_eq!(sum.outcome, Some(Outcome::Success));
}

#[test]
fn failed_call_is_marked_failed() {
    let text = stream(&[
        call("s", None, "t1", "Bash", r#"{"command":"false"}"#),
        answer("s", None, "t1", "Exit code 1", true),
        call("s", None, "t2", "Bash", r#"{"command":"true"}"#),
        answer("s", None, "t2", "", false),
        result("s", false),
    ]);
    let (s, _) = run(&text);
    assert!(s.call("t1").unwrap().failed);
    assert!(!s.call("t2").unwrap().failed);
    assert_eq!(only(&s).tool_errors, 1);
}

#[test]
fn unanswered_calls_are_counted_at_the_end() {
    // max_budget.jsonl: the run stops after a tool_use whose tool never ran
    // (toolu_01nVKegCgVBQHtOyE7VtHmq9), per the fixture README.
    let (s, _) = run(MAX_BUDGET);
    let sum = only(&s);
    assert_eq!(sum.unanswered, 1);
    let open: Vec<_> = s.unanswered_calls().map(|(id, _)| id).collect();
    assert_eq!(open, ["toolu_01nVKegCgVBQHtOyE7VtHmq9"]);
    assert_eq!(sum.outcome, Some(Outcome::Error));
}

/// Issue 18: calls that are never answered are not kept without end. The
/// session keeps the `KEEP_OPEN` most recent; the result still lists the
/// ones kept and counts the ones forgotten, and the summary counts them all.
#[test]
fn open_calls_are_bounded_and_the_forgotten_still_counted() {
    let n = 3 * KEEP_OPEN + 17;
    let mut lines = vec![init("s1", "m")];
    for i in 0..n {
        lines.push(call(
            "s1",
            None,
            &format!("t{i}"),
            "Bash",
            &format!(r#"{{"command":"ls {i}"}}"#),
        ));
    }
    // One answered late, after it may have been forgotten: shown, counted once.
    lines.push(answer("s1", None, "t0", "late", false));
    lines.push(result("s1", false));
    let (s, obs) = run(&stream(&lines));
    assert!(
        s.calls.len() <= KEEP_ANSWERED + 2 * KEEP_OPEN,
        "{}",
        s.calls.len()
    );
    let end = obs.iter().rev().find(|o| o.kind == "result").unwrap();
    let listed = end.note.unanswered.len() as u64;
    assert!(listed <= KEEP_OPEN as u64 * 2, "{listed}");
    assert!(end.note.unanswered_forgotten > 0);
    assert_eq!(listed + end.note.unanswered_forgotten, n as u64 - 1);
    // The newest calls are the ones listed, in call order.
    let last = &end.note.unanswered[end.note.unanswered.len() - 1];
    assert_eq!(last.2.as_deref(), Some(format!("ls {}", n - 1).as_str()));
    let sum = only(&s);
    assert_eq!(sum.tool_calls, n as u64);
    assert_eq!(sum.forgotten_calls, end.note.unanswered_forgotten);
}

// ---------------------------------------------------------------------------
// Sub-agent depth

#[test]
fn sub_agent_events_are_one_level_deeper() {
    let (s, obs) = run(SUBAGENT);
    // claude/subagent.jsonl: two Agent calls from the main agent; the
    // sub-agents' Read (alpha) and Bash calls carry parent_tool_use_id.
    let alpha = "toolu_01zzvmrPizNbQx7Bqy0wzmq5";
    let beta = "toolu_01ARWx61KXXSEc7976oBZjhD";
    for id in [alpha, beta] {
        let c = s.call(id).unwrap();
        assert_eq!(&*c.name, "Agent");
        assert_eq!(c.depth, 0);
        assert_eq!(find(&obs, "tool_call", id).note.depth, 0);
        // The Agent's own result is reported to the main agent.
        assert_eq!(find(&obs, "tool_result", id).note.depth, 0);
    }
    assert_eq!(
        s.call(alpha).unwrap().key_arg.as_deref(),
        Some("general-purpose: Inspect Python code")
    );
    let read = "toolu_01BuJiBJCwGvZg0ccPHanKHh";
    assert_eq!(s.call(read).unwrap().depth, 1);
    assert_eq!(find(&obs, "tool_call", read).note.depth, 1);
    let r = find(&obs, "tool_result", read);
    assert_eq!(r.note.depth, 1);
    assert_eq!(r.note.tool.as_deref(), Some("Read"));
    for bash in [
        "toolu_01XTMi7036N8CqY7A6OS5Ph9",
        "toolu_01oskin84bcMUQkeUph0qt4y",
    ] {
        assert_eq!(s.call(bash).unwrap().depth, 1);
        assert_eq!(find(&obs, "tool_result", bash).note.depth, 1);
    }
    // The prompt echoed as a user text line (line 5) is inside alpha.
    let prompt = obs.iter().find(|o| o.line == 5).unwrap();
    assert_eq!(prompt.kind, "text");
    assert_eq!(prompt.note.depth, 1);
    // Main-agent events without a parent stay at depth 0.
    assert!(
        obs.iter()
            .filter(|o| o.kind == "result" || o.kind == "session_start")
            .all(|o| o.note.depth == 0)
    );
}

#[test]
fn unknown_parent_counts_as_depth_one() {
    let text = stream(&[
        call(
            "s",
            Some("toolu_never_seen"),
            "t1",
            "Read",
            r#"{"file_path":"/x"}"#,
        ),
        answer("s", Some("toolu_never_seen"), "t1", "ok", false),
    ]);
    let (s, obs) = run(&text);
    assert_eq!(find(&obs, "tool_call", "t1").note.depth, 1);
    assert_eq!(find(&obs, "tool_result", "t1").note.depth, 1);
    assert_eq!(s.call("t1").unwrap().depth, 1);
}

#[test]
fn empty_parent_is_the_main_agent() {
    let text = stream(&[call("s", Some(""), "t1", "Read", r#"{"file_path":"/x"}"#)]);
    let (_, obs) = run(&text);
    assert_eq!(find(&obs, "tool_call", "t1").note.depth, 0);
}

#[test]
fn nested_sub_agents_go_deeper() {
    let text = stream(&[
        call("s", None, "a1", "Agent", r#"{"description":"outer"}"#),
        call("s", Some("a1"), "a2", "Task", r#"{"description":"inner"}"#),
        call("s", Some("a2"), "t3", "Bash", r#"{"command":"ls"}"#),
        answer("s", Some("a2"), "t3", "x", false),
        answer("s", Some("a1"), "a2", "inner done", false),
        answer("s", None, "a1", "outer done", false),
    ]);
    let (s, obs) = run(&text);
    assert_eq!(s.call("a1").unwrap().depth, 0);
    assert_eq!(s.call("a2").unwrap().depth, 1);
    assert_eq!(s.call("t3").unwrap().depth, 2);
    assert_eq!(find(&obs, "tool_result", "t3").note.depth, 2);
    assert_eq!(find(&obs, "tool_result", "a2").note.depth, 1);
    assert_eq!(find(&obs, "tool_result", "a1").note.depth, 0);
    assert_eq!(only(&s).tool_calls, 3);
}

// ---------------------------------------------------------------------------
// Denials

#[test]
fn denial_reported_twice_is_counted_once() {
    let (s, obs) = run(DENIED);
    // claude/permission_denied.jsonl: Bash (line 4) and Write (line 6) are
    // denied in their tool results, and the result line lists both again.
    let sum = only(&s);
    assert_eq!(sum.denials, 2);
    let denials: Vec<_> = obs
        .iter()
        .filter(|o| o.kind == "permission_denied")
        .collect();
    assert_eq!(denials.len(), 4);
    let flags: Vec<_> = denials
        .iter()
        .map(|o| (o.line, o.id.as_deref().unwrap(), o.note.duplicate))
        .collect();
    assert_eq!(
        flags,
        [
            (4, "toolu_013sAeyGSdcGyp5t3TljjpXo", false),
            (6, "toolu_01jAJWAQ915uYGeg8k1yKVG0", false),
            (10, "toolu_013sAeyGSdcGyp5t3TljjpXo", true),
            (10, "toolu_01jAJWAQ915uYGeg8k1yKVG0", true),
        ]
    );
    // The first report has no tool name of its own: it comes from the call.
    assert_eq!(denials[0].note.tool.as_deref(), Some("Bash"));
    assert_eq!(
        denials[0].note.key_arg.as_deref(),
        Some("rm -rf build && touch build.marker")
    );
    assert_eq!(denials[1].note.tool.as_deref(), Some("Write"));
    assert_eq!(
        denials[1].note.key_arg.as_deref(),
        Some("/home/dev/work/permission_denied/project/marker.txt")
    );
    // The denied calls' error results are those denials, not failures.
    assert_eq!(sum.tool_errors, 0);
    assert_eq!(sum.denials, 2);
    assert_eq!(sum.outcome, Some(Outcome::Success));
}

#[test]
fn denial_reported_three_times_is_counted_once() {
    let (s, obs) = run(DENIED_330);
    // claude-2.1.330/permission_denied.jsonl: each denial arrives as a
    // system/permission_denied line (4, 7), in the tool result (5, 8) and in
    // the result's permission_denials (12).
    assert_eq!(only(&s).denials, 2);
    let flags: Vec<_> = obs
        .iter()
        .filter(|o| o.kind == "permission_denied")
        .map(|o| (o.line, o.note.duplicate))
        .collect();
    assert_eq!(
        flags,
        [
            (4, false),
            (5, true),
            (7, false),
            (8, true),
            (12, true),
            (12, true)
        ]
    );
}

#[test]
fn denials_without_id_are_never_duplicates() {
    let d =
        r#"{"type":"system","subtype":"permission_denied","tool_name":"Bash","session_id":"s"}"#;
    let (s, obs) = run(&stream(&[d.to_string(), d.to_string()]));
    assert_eq!(only(&s).denials, 2);
    assert!(obs.iter().all(|o| !o.note.duplicate));
    assert!(obs.iter().all(|o| o.note.tool.as_deref() == Some("Bash")));
}

// ---------------------------------------------------------------------------
// Outcomes

#[test]
fn complete_stream_is_success() {
    let (s, _) = run(TOOLS_BASIC);
    let sum = only(&s);
    assert_eq!(sum.outcome, Some(Outcome::Success));
    assert_eq!(sum.results, 1);
    assert_eq!(
        sum.id.as_deref(),
        Some("3440a326-acd4-467c-bf1b-7139bca449bd")
    );
    assert_eq!(sum.model.as_deref(), Some("claude-opus-4-8[1m]"));
    assert!(sum.error.is_none());
    assert_eq!(s.worst_outcome(), Some(Outcome::Success));
}

#[test]
fn outcome_is_none_while_running() {
    let mut s = Session::new();
    feed(
        &mut s,
        &mut Decoder::new(),
        &drop_last_lines(TOOLS_BASIC, 1),
    );
    assert_eq!(s.current().unwrap().outcome, None);
    assert_eq!(s.worst_outcome(), None);
}

#[test]
fn api_error_is_error_with_its_text() {
    let (s, _) = run(API_ERROR_500);
    let sum = only(&s);
    assert_eq!(sum.outcome, Some(Outcome::Error));
    assert!(
        sum.error
            .as_deref()
            .unwrap()
            .starts_with("API Error: 500 Internal server error."),
        "{:?}",
        sum.error
    );
    assert_eq!(s.worst_outcome(), Some(Outcome::Error));
}

#[test]
fn max_turns_is_error_with_the_errors_entry() {
    let (s, _) = run(MAX_TURNS);
    let sum = only(&s);
    assert_eq!(sum.outcome, Some(Outcome::Error));
    assert_eq!(
        sum.error.as_deref(),
        Some("Reached maximum number of turns (1)")
    );
    assert_eq!(sum.num_turns, Some(2));
}

#[test]
fn missing_result_is_incomplete() {
    let (s, _) = run(&drop_last_lines(TOOLS_BASIC, 1));
    let sum = only(&s);
    assert_eq!(sum.results, 0);
    assert_eq!(sum.outcome, Some(Outcome::Incomplete));
    assert_eq!(s.worst_outcome(), Some(Outcome::Incomplete));
}

#[test]
fn activity_after_the_last_result_is_incomplete() {
    let text = stream(&[
        init("s", "m"),
        say("s", "m1", "hi"),
        result("s", false),
        say("s", "m2", "still working"),
    ]);
    let (s, _) = run(&text);
    let sum = only(&s);
    assert_eq!(sum.results, 1);
    assert_eq!(sum.outcome, Some(Outcome::Incomplete));
}

#[test]
fn tool_activity_after_the_last_result_is_incomplete() {
    let text = stream(&[
        init("s", "m"),
        result("s", false),
        call("s", None, "t1", "Bash", r#"{"command":"ls"}"#),
    ]);
    assert_eq!(only(&run(&text).0).outcome, Some(Outcome::Incomplete));
    let text = stream(&[
        init("s", "m"),
        result("s", false),
        answer("s", None, "t0", "late", false),
    ]);
    assert_eq!(only(&run(&text).0).outcome, Some(Outcome::Incomplete));
}

#[test]
fn notices_and_user_text_after_the_result_keep_success() {
    let text = stream(&[
        init("s", "m"),
        say("s", "m1", "hi"),
        result("s", false),
        r#"{"type":"system","subtype":"task_notification","status":"completed","summary":"x","session_id":"s"}"#
            .to_string(),
        r#"{"type":"user","session_id":"s","message":{"content":"next prompt"}}"#.to_string(),
    ]);
    assert_eq!(only(&run(&text).0).outcome, Some(Outcome::Success));
}

/// Several results in one session (a turn per background agent, a prompt
/// after a failed one): the worst decides, and its error is kept.
#[test]
fn the_worst_result_decides() {
    let text = stream(&[
        init("s", "m"),
        result("s", true),
        say("s", "m2", "retrying"),
        result("s", false),
    ]);
    let (s, _) = run(&text);
    let sum = only(&s);
    assert_eq!(sum.results, 2);
    assert_eq!(sum.outcome, Some(Outcome::Error));
    assert!(sum.error.is_some());
    let text = stream(&[init("s", "m"), result("s", false), result("s", false)]);
    assert_eq!(only(&run(&text).0).outcome, Some(Outcome::Success));
}

#[test]
fn cut_input_is_incomplete() {
    let mut s = Session::new();
    feed(&mut s, &mut Decoder::new(), TOOLS_BASIC);
    s.mark_cut();
    s.finish();
    assert_eq!(only(&s).outcome, Some(Outcome::Incomplete));
    assert_eq!(s.worst_outcome(), Some(Outcome::Incomplete));
}

#[test]
fn finish_twice_is_harmless() {
    let (mut s, _) = run(TEXT_ONLY);
    s.finish();
    assert_eq!(s.sessions().count(), 1);
    assert_eq!(s.current().unwrap().outcome, Some(Outcome::Success));
}

#[test]
fn empty_session() {
    let mut s = Session::new();
    assert!(s.is_empty());
    s.finish();
    assert!(s.is_empty());
    assert_eq!(s.sessions().count(), 0);
    assert!(s.current().is_none());
    assert_eq!(s.worst_outcome(), None);
}

#[test]
fn plain_text_only_is_empty() {
    let (s, obs) = run("npm WARN something\nError: boom\n");
    assert_eq!(obs.len(), 2);
    assert!(s.is_empty());
    assert_eq!(s.stats().plain_text, 2);
    assert_eq!(s.stats().events, 2);
    assert_eq!(s.sessions().count(), 0);
}

// ---------------------------------------------------------------------------
// Several sessions in one input

#[test]
fn concatenated_sessions_are_summarized_separately() {
    // text_only (session c8eda084…, success) then api_error_500
    // (session 428bae9d…, error result).
    let mut s = Session::new();
    let mut dec = Decoder::new();
    let first = feed(&mut s, &mut dec, TEXT_ONLY);
    let second = feed(&mut s, &mut Decoder::new(), API_ERROR_500);
    s.finish();

    assert!(first[0].note.new_session);
    assert_eq!(second[0].kind, "session_start");
    assert!(second[0].note.new_session);
    assert!(!second[0].note.previous_incomplete);

    let all: Vec<_> = s.sessions().collect();
    assert_eq!(all.len(), 2);
    assert_eq!(
        all[0].id.as_deref(),
        Some("c8eda084-9860-432c-8d04-5c917bdc971e")
    );
    assert_eq!(all[0].outcome, Some(Outcome::Success));
    assert_eq!(all[0].num_turns, Some(1));
    assert_eq!(
        all[1].id.as_deref(),
        Some("428bae9d-e290-44ff-b9d5-ab6cddb4db62")
    );
    assert_eq!(all[1].outcome, Some(Outcome::Error));
    assert_eq!(s.worst_outcome(), Some(Outcome::Error));
    assert_eq!(s.current().unwrap().id, all[1].id);
}

#[test]
fn worst_outcome_is_the_maximum() {
    // error, then success, then a session without a result.
    let text = stream(&[
        init("a", "m"),
        result("a", true),
        init("b", "m"),
        result("b", false),
        init("c", "m"),
        say("c", "m1", "crashed"),
    ]);
    let (s, obs) = run(&text);
    let outcomes: Vec<_> = s.sessions().map(|x| x.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Some(Outcome::Error),
            Some(Outcome::Success),
            Some(Outcome::Incomplete)
        ]
    );
    assert_eq!(s.worst_outcome(), Some(Outcome::Incomplete));
    let starts: Vec<_> = obs
        .iter()
        .filter(|o| o.kind == "session_start")
        .map(|o| o.note.new_session)
        .collect();
    assert_eq!(starts, [true, true, true]);
}

#[test]
fn new_session_after_a_crashed_one_notes_it() {
    let text = stream(&[
        init("a", "m"),
        say("a", "m1", "working"),
        init("b", "m"),
        say("b", "m2", "fine"),
        result("b", false),
    ]);
    let (s, obs) = run(&text);
    let second = obs
        .iter()
        .filter(|o| o.kind == "session_start")
        .nth(1)
        .unwrap();
    assert!(second.note.new_session);
    assert!(second.note.previous_incomplete);
    let outcomes: Vec<_> = s.sessions().map(|x| x.outcome).collect();
    assert_eq!(
        outcomes,
        [Some(Outcome::Incomplete), Some(Outcome::Success)]
    );
}

#[test]
fn another_session_after_a_result_starts_a_new_summary() {
    // No init for the second session: an event of another session after a
    // result is enough.
    let text = stream(&[
        init("a", "m"),
        result("a", false),
        say("b", "m1", "other"),
        result("b", true),
    ]);
    let (s, _) = run(&text);
    let ids: Vec<_> = s.sessions().map(|x| x.id.clone().unwrap()).collect();
    assert_eq!(ids, ["a", "b"]);
    let outcomes: Vec<_> = s.sessions().map(|x| x.outcome).collect();
    assert_eq!(outcomes, [Some(Outcome::Success), Some(Outcome::Error)]);
}

#[test]
fn another_session_id_before_any_result_does_not_split() {
    // Without an init or a result there is no boundary: keep one summary.
    let text = stream(&[init("a", "m"), say("b", "m1", "x"), result("a", false)]);
    let (s, _) = run(&text);
    assert_eq!(only(&s).id.as_deref(), Some("a"));
}

#[test]
fn calls_do_not_leak_into_the_next_session() {
    let text = stream(&[
        init("a", "m"),
        call("a", None, "t1", "Bash", r#"{"command":"ls"}"#),
        result("a", false),
        init("b", "m"),
        result("b", false),
    ]);
    let (s, _) = run(&text);
    let unanswered: Vec<_> = s.sessions().map(|x| x.unanswered).collect();
    assert_eq!(unanswered, [1, 0]);
    assert!(s.call("t1").is_none());
}

#[test]
fn a_cut_belongs_to_the_session_that_was_cut() {
    // Two inputs: the first ends mid-line after its result (the runner calls
    // mark_cut), the second is a complete session of its own.
    let mut s = Session::new();
    feed(&mut s, &mut Decoder::new(), TEXT_ONLY);
    s.mark_cut();
    feed(&mut s, &mut Decoder::new(), TOOLS_BASIC);
    s.finish();
    let outcomes: Vec<_> = s.sessions().map(|x| x.outcome).collect();
    assert_eq!(
        outcomes,
        [Some(Outcome::Incomplete), Some(Outcome::Success)]
    );
}

// ---------------------------------------------------------------------------
// Repeated session headers

#[test]
fn repeated_init_of_the_same_session_is_not_new() {
    let text = stream(&[
        init("s", "m"),
        say("s", "m1", "a"),
        init("s", "m"),
        say("s", "m2", "b"),
        result("s", false),
    ]);
    let (s, obs) = run(&text);
    let starts: Vec<_> = obs
        .iter()
        .filter(|o| o.kind == "session_start")
        .map(|o| (o.note.new_session, o.note.header_changed))
        .collect();
    assert_eq!(starts, [(true, true), (false, false)]);
    assert_eq!(only(&s).outcome, Some(Outcome::Success));
}

#[test]
fn repeated_init_with_another_model_changes_the_header() {
    let text = stream(&[init("s", "m1"), init("s", "m2"), init("s", "m2")]);
    let (s, obs) = run(&text);
    let changed: Vec<_> = obs.iter().map(|o| o.note.header_changed).collect();
    assert_eq!(changed, [true, true, false]);
    assert!(obs[1..].iter().all(|o| !o.note.new_session));
    // The summary keeps the first model.
    assert_eq!(only(&s).model.as_deref(), Some("m1"));
}

#[test]
fn background_sub_agents_with_several_results_are_one_session() {
    // claude-2.1.330/subagent.jsonl: init on lines 1, 25 and 32 (same
    // session), results on lines 34, 35, 36 (result_index 0..2).
    let (s, obs) = run(SUBAGENT_330);
    let sum = only(&s);
    assert_eq!(
        sum.id.as_deref(),
        Some("5f1ad5d1-d6ee-42ad-828a-3a8469893c3f")
    );
    assert_eq!(sum.results, 3);
    assert_eq!(sum.outcome, Some(Outcome::Success));
    assert_eq!(s.worst_outcome(), Some(Outcome::Success));
    let starts: Vec<_> = obs
        .iter()
        .filter(|o| o.kind == "session_start")
        .map(|o| (o.line, o.note.new_session))
        .collect();
    assert_eq!(starts, [(1, true), (25, false), (32, false)]);
    // Last result: num_turns 1, total_cost_usd 0.114652, duration_ms 42.
    assert_eq!(sum.num_turns, Some(1));
    assert_eq!(sum.cost_usd, Some(0.114_652));
    assert_eq!(sum.duration_ms, Some(42));
    // 5 tool calls (2 Agent, Bash, Read, Bash), one failed (Bash `false`).
    assert_eq!(sum.tool_calls, 5);
    assert_eq!(sum.tool_errors, 1);
    assert_eq!(sum.unanswered, 0);
}

// ---------------------------------------------------------------------------
// Totals

#[test]
fn usage_is_counted_once_per_message_of_the_main_agent() {
    // tools_basic.jsonl has 7 assistant lines from 5 API messages
    // (msg_013c60db… on lines 2-3, then msg_01f7f937…, msg_01c3b94d…,
    // msg_0141007c…, msg_01e2418e… on lines 5, 7, 9, 11), none with a
    // parent_tool_use_id. Their usage (python3: json.loads each line, take
    // message.usage once per message.id):
    //   input_tokens 1673 + 1788 + 1857 + 1967 + 2141 = 9426
    //   output_tokens 1 each = 5 (preliminary counts from message_start)
    //   cache_read_input_tokens and cache_creation_input_tokens 0 each.
    let (s, _) = run(TOOLS_BASIC);
    let sum = only(&s);
    assert_eq!(sum.messages, 5);
    assert!(sum.preliminary_output, "Claude Code's message counts");
    assert_eq!(
        sum.message_tokens,
        Tokens {
            input: Some(9426),
            output: Some(5),
            cache_read: Some(0),
            cache_creation: Some(0),
            reasoning: None,
        }
    );
    // The result line's totals (line 12): usage input 9426, output 228.
    assert_eq!(
        sum.result_tokens,
        Some(Tokens {
            input: Some(9426),
            output: Some(228),
            cache_read: Some(0),
            cache_creation: Some(0),
            reasoning: None,
        })
    );
    assert_eq!(sum.num_turns, Some(5));
    assert_eq!(sum.duration_ms, Some(570));
    assert_eq!(sum.cost_usd, Some(0.05283));
    assert_eq!(sum.tool_calls, 4);
    assert_eq!(sum.tool_errors, 0);
    assert_eq!(sum.denials, 0);
}

#[test]
fn sub_agent_usage_is_not_counted_as_main_messages() {
    // claude/subagent.jsonl: main-agent messages msg_011344af… (lines 2, 3,
    // 6) and msg_01c87125… (line 24), input_tokens 1675 + 2020 = 3695, output
    // 1 each; the sub-agents' messages (lines 10, 12, 19) have a parent and
    // are not counted (python3 over the fixture, as above).
    let (s, _) = run(SUBAGENT);
    let sum = only(&s);
    assert_eq!(sum.messages, 2);
    assert_eq!(sum.message_tokens.input, Some(3695));
    assert_eq!(sum.message_tokens.output, Some(2));
    assert_eq!(sum.tool_calls, 5);
    assert_eq!(sum.tool_errors, 1);
}

#[test]
fn no_usage_means_no_token_counts() {
    let text = stream(&[init("s", "m"), say("s", "m1", "x"), result("s", false)]);
    let (s, _) = run(&text);
    let sum = only(&s);
    assert_eq!(sum.messages, 0);
    assert!(sum.message_tokens.is_empty());
    assert_eq!(sum.result_tokens, None);
    assert_eq!(sum.cost_usd, Some(0.5));
}

#[test]
fn stats_count_events_deltas_and_unknowns() {
    let text = stream(&[
        r#"{"type":"mystery","session_id":"s"}"#.to_string(),
        r#"{"type":"stream_event","session_id":"s","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"h"}}}"#.to_string(),
        "plain words".to_string(),
        result("s", false),
    ]);
    let (s, obs) = run(&text);
    assert_eq!(obs.len(), 4);
    let st = s.stats();
    assert_eq!(st.events, 4);
    assert_eq!(st.unknown, 1);
    assert_eq!(st.deltas, 1);
    assert_eq!(st.plain_text, 1);
    assert!(!s.is_empty());
}

#[test]
fn deltas_of_a_partial_stream_are_counted() {
    let (s, obs) = run(PARTIAL);
    let deltas = obs.iter().filter(|o| o.kind == "delta").count() as u64;
    assert!(deltas > 0);
    assert_eq!(s.stats().deltas, deltas);
    assert_eq!(s.stats().events, obs.len() as u64);
    assert_eq!(only(&s).outcome, Some(Outcome::Success));
    // Deltas do not count as messages: partial_messages runs tools_basic's
    // script, 5 API messages (python3 over the fixture, as below).
    assert_eq!(only(&s).messages, 5);
}

#[test]
fn note_is_reset_for_every_event() {
    let (_, obs) = run(DENIED);
    // The assistant text right after the last denial (line 9) carries none
    // of the earlier notes.
    let text = obs.iter().find(|o| o.line == 9).unwrap();
    assert!(text.note.tool.is_none());
    assert!(!text.note.duplicate);
    assert!(!text.note.new_session);
}

#[test]
fn empty_parent_usage_counts_for_the_main_agent() {
    let line = r#"{"type":"assistant","session_id":"s","parent_tool_use_id":"","message":{"id":"m1","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":7,"output_tokens":1}}}"#;
    let (s, obs) = run(&stream(&[line.to_string()]));
    assert!(obs.iter().all(|o| o.note.depth == 0));
    let sum = only(&s);
    assert_eq!(sum.messages, 1);
    assert_eq!(sum.message_tokens.input, Some(7));
}

// ------------------------------------------- per-tool and per-model totals

#[test]
fn tools_are_counted_per_name_with_errors_and_denials() {
    let (s, _) = run(TOOL_ERRORS);
    let cur = only(&s);
    let total: u64 = cur.tools.iter().map(|t| t.calls).sum();
    assert_eq!(total, cur.tool_calls);
    let errors: u64 = cur.tools.iter().map(|t| t.errors).sum();
    assert_eq!(errors, cur.tool_errors);
    let edit = cur.tools.iter().find(|t| &*t.name == "Edit").unwrap();
    assert_eq!((edit.calls, edit.errors, edit.denials), (3, 3, 0));

    let (s, _) = run(DENIED);
    let cur = only(&s);
    let denials: u64 = cur.tools.iter().map(|t| t.denials).sum();
    assert_eq!(denials, cur.denials);
    assert!(
        cur.tools
            .iter()
            .any(|t| &*t.name == "Bash" && t.denials == 1)
    );
}

#[test]
fn sub_agent_tools_are_counted_too() {
    let (s, _) = run(SUBAGENT);
    let cur = only(&s);
    let names: Vec<(&str, u64)> = cur.tools.iter().map(|t| (&*t.name, t.calls)).collect();
    assert_eq!(names, [("Agent", 2), ("Read", 1), ("Bash", 2)]);
}

#[test]
fn model_usage_comes_from_the_last_result_else_from_the_messages() {
    let (s, _) = run(SUBAGENT_330);
    let cur = only(&s);
    // Three results, each repeating the cumulative per-model usage.
    assert_eq!(cur.results, 3);
    assert_eq!(cur.result_models.len(), 1);
    let m = &cur.models()[0];
    assert_eq!(m.model, "claude-opus-5-5");
    assert_eq!(m.tokens.input, Some(26928));
    assert_eq!(m.cost_usd, Some(0.114_652));
    assert_eq!(cur.tokens().input, Some(26928));
    // Turns and durations are per prompt: summed.
    assert_eq!(cur.total_turns, Some(5));
    assert_eq!(cur.total_duration_ms, Some(276 + 41 + 42));

    // Without a result: the messages, input side only for Claude.
    let (s, _) = run(&drop_last_lines(TOOLS_BASIC, 1));
    let cur = only(&s);
    assert!(cur.result_models.is_empty());
    assert!(!cur.message_models.is_empty());
    assert!(cur.models().iter().all(|m| m.tokens.output.is_none()));
    assert!(cur.tokens().output.is_none());
    assert!(cur.tokens().input.is_some());
}

#[test]
fn skipped_lines_count_for_the_session_they_fall_in() {
    let mut s = Session::new();
    s.set_source("a.jsonl");
    s.skipped_line(); // before any session: goes to the first one
    let mut dec = Decoder::new();
    feed(&mut s, &mut dec, TEXT_ONLY.trim_end());
    s.skipped_line();
    assert_eq!(s.session_count(), 1);
    s.finish();
    let cur = only(&s);
    assert_eq!(cur.skipped_lines, 2);
    assert_eq!(s.stats().skipped, 2);
    assert_eq!(cur.source.as_deref(), Some("a.jsonl"));
    assert_eq!(cur.producer, Some(crate::event::Producer::Claude));
}

#[test]
fn each_session_keeps_its_own_tools_and_source() {
    let mut s = Session::new();
    let mut dec = Decoder::new();
    s.set_source("one");
    feed(&mut s, &mut dec, TOOLS_BASIC.trim_end());
    s.set_source("two");
    let mut dec = Decoder::new();
    feed(&mut s, &mut dec, TOOL_ERRORS.trim_end());
    s.finish();
    let all: Vec<_> = s.sessions().collect();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].source.as_deref(), Some("one"));
    assert_eq!(all[1].source.as_deref(), Some("two"));
    assert!(all[0].tools.iter().all(|t| t.errors == 0));
    assert!(all[1].tools.iter().any(|t| t.errors > 0));
}

#[test]
fn a_long_session_forgets_old_answered_calls_but_not_open_ones() {
    let mut lines = vec![
        init("s", "m"),
        call("s", None, "open", "Bash", r#"{"command":"sleep 1000"}"#),
    ];
    let n = 5 * KEEP_ANSWERED;
    for i in 0..n {
        let id = format!("t{i}");
        lines.push(call("s", None, &id, "Read", r#"{"file_path":"/a"}"#));
        lines.push(answer("s", None, &id, "ok", false));
    }
    // The most recent calls are still known: a late repeat finds its tool.
    lines.push(answer("s", None, &format!("t{}", n - 1), "again", false));
    lines.push(result("s", false));
    let (session, obs) = run(&stream(&lines));
    assert!(
        session.calls.len() <= 2 * KEEP_ANSWERED + 1,
        "{}",
        session.calls.len()
    );
    let late = obs.iter().rev().find(|o| o.kind == "tool_result").unwrap();
    assert_eq!(late.note.tool.as_deref(), Some("Read"));
    // The call that never got an answer is still reported as such.
    let res = obs.iter().find(|o| o.kind == "result").unwrap();
    let unanswered: Vec<_> = res
        .note
        .unanswered
        .iter()
        .map(|(name, _, key)| (&**name, key.as_deref()))
        .collect();
    assert_eq!(unanswered, [("Bash", Some("sleep 1000"))]);
    assert_eq!(only(&session).tool_calls, n as u64 + 1);
}

// ---------------------------------------------------------------------------
// Many sessions

/// The session's side of folding; what the summary's rows and table make
/// of the folded sessions is tested on the render floor
/// (`render/summary/tests.rs`).
#[test]
fn sessions_beyond_the_kept_ones_are_folded_with_exact_totals() {
    let n = KEEP_SESSIONS + 300;
    let mut lines = Vec::new();
    for i in 0..n {
        let id = format!("s{i}");
        // One session of another model, one that fails, among the folded.
        lines.push(init(&id, if i == 5 { "other" } else { "m" }));
        lines.push(call(
            &id,
            None,
            &format!("t{i}"),
            "Bash",
            r#"{"command":"ls"}"#,
        ));
        lines.push(answer(&id, None, &format!("t{i}"), "out", i % 10 == 0));
        lines.push(result(&id, i == 7));
    }
    let (s, _) = run(&stream(&lines));
    assert_eq!(s.sessions().count(), KEEP_SESSIONS);
    assert_eq!(s.earlier().map(|e| e.count), Some(300));
    assert_eq!(s.session_count(), n);
    assert_eq!(s.worst_outcome(), Some(Outcome::Error));
}

#[test]
fn preliminary_output_counts_are_left_out_of_the_message_sums_only_when_marked() {
    let usage = |preliminary_output| Event {
        producer: Producer::Claude,
        line: 1,
        source: None,
        session: Some("s".into()),
        parent: None,
        time: None,
        kind: EventKind::Usage(crate::event::Usage {
            message_id: Some("m1".into()),
            request_id: None,
            model: Some("m".into()),
            tokens: Tokens {
                input: Some(10),
                output: Some(3),
                ..Tokens::default()
            },
            preliminary_output,
            ..Default::default()
        }),
    };
    for preliminary in [true, false] {
        let mut s = Session::new();
        s.observe(&usage(preliminary));
        let sum = s.current().unwrap();
        let want = (!preliminary).then_some(3);
        assert_eq!(sum.tokens().output, want, "preliminary: {preliminary}");
        assert_eq!(sum.message_models[0].tokens.output, want);
        assert_eq!(sum.tokens().input, Some(10));
    }
}

/// `--by block` keeps a session's usage by hour, and at most
/// `group::MAX_BUCKETS` of them: a session active in more hours (a crafted
/// one) counts the rest in the hour it began, none of it lost.
#[test]
fn the_hours_of_a_session_are_bounded_and_nothing_is_lost() {
    let mut s = Session::new();
    s.group_by(group::Groups::new(
        group::By::Block,
        crate::time::zone::Zone::utc(),
    ));
    let n = group::MAX_BUCKETS as u64 + 100;
    for i in 0..n {
        s.observe(&Event {
            producer: Producer::ClaudeTranscript,
            line: 1,
            source: None,
            session: Some("s".into()),
            parent: None,
            time: Timestamp::from_millis(i64::try_from(i).unwrap() * group::HOUR_MS),
            kind: EventKind::Usage(crate::event::Usage {
                message_id: None,
                request_id: None,
                model: Some("claude-opus-4-8".into()),
                tokens: Tokens {
                    input: Some(1),
                    output: Some(1),
                    ..Tokens::default()
                },
                preliminary_output: false,
                ..Default::default()
            }),
        });
    }
    assert_eq!(s.current().unwrap().buckets.len(), group::MAX_BUCKETS);
    s.finish();
    let rows = s.groups().unwrap().rows();
    let input: u64 = rows.iter().map(|(_, g)| g.tokens.input.unwrap()).sum();
    assert_eq!(input, n);
    // The first hour took in what came beyond the bound.
    assert_eq!(rows.len(), group::MAX_BUCKETS.div_ceil(5));
}

#[test]
fn the_oldest_open_call_is_the_tool_a_sub_agent_waits_for() {
    // claude/subagent.jsonl: two Agent calls (lines 3, 6), then the
    // sub-agents' Read (line 10) and Bash (line 12); the Read's result is
    // line 13, the first Agent's line 16, the Bash's line 17.
    let lines: Vec<&str> = SUBAGENT.lines().collect();
    let open_after = |n: usize| {
        let mut s = Session::new();
        feed(&mut s, &mut Decoder::new(), &lines[..n].join("\n"));
        s.oldest_open_call().map(|(c, others)| {
            (
                c.name.to_string(),
                c.key_arg.as_deref().map(str::to_string),
                others,
            )
        })
    };
    assert_eq!(open_after(2), None);
    // Only the Agent calls are open: the first is named.
    let (name, _, others) = open_after(6).unwrap();
    assert_eq!((name.as_str(), others), ("Agent", 1));
    // The Read came before the Bash, though both run beside the Agents.
    let (name, key, others) = open_after(12).unwrap();
    assert_eq!(name, "Read");
    assert!(key.unwrap().ends_with("hello.py"), "the Read's path");
    assert_eq!(others, 3);
    let (name, key, others) = open_after(13).unwrap();
    assert_eq!(
        (name.as_str(), key.as_deref(), others),
        ("Bash", Some("wc -l src/lib.rs"), 2)
    );
    let (name, _, others) = open_after(17).unwrap();
    assert_eq!((name.as_str(), others), ("Agent", 0));
    assert_eq!(open_after(lines.len()), None);
}

#[test]
fn a_bare_slash_command_is_no_title_the_next_prompt_is() {
    let user = |content: &str| {
        serde_json::json!({"type":"user","session_id":"s","message":{"role":"user","content":content}})
            .to_string()
    };
    for (first, want) in [
        // `/clear`, then the person's words: those, as `claude --resume` lists it.
        (
            "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>",
            "fix the login bug",
        ),
        // A command with arguments says what was asked: as typed.
        (
            "<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>the parser</command-args>",
            "/review the parser",
        ),
    ] {
        let lines = [
            init("s", "m"),
            user(first),
            user("fix the login bug"),
            result("s", false),
        ];
        let (s, _) = run(&stream(&lines));
        assert_eq!(only(&s).title.as_deref(), Some(want), "{first}");
    }
}
