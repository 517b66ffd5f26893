//! Unit tests of the transcript decoder: small hand-written entries for the
//! rules, and the recorded transcripts in `tests/fixtures/claude-transcript/`.

use serde_json::{Value as J, json};

use crate::decode::Decoder;
use crate::event::{
    Event, EventKind, Level, Notice, Producer, Role, SessionResult, SessionStart, ToolCall, Usage,
};
use crate::input::Line;

const TOOLS_BASIC: &str =
    include_str!("../../../tests/fixtures/claude-transcript/transcript_tools_basic.jsonl");
const SUBAGENT: &str =
    include_str!("../../../tests/fixtures/claude-transcript/transcript_subagent.jsonl");
const AGENT_ALPHA: &str = include_str!(
    "../../../tests/fixtures/claude-transcript/transcript_subagent.agent-a8164d334e3dc2758.jsonl"
);
const AGENT_BETA: &str = include_str!(
    "../../../tests/fixtures/claude-transcript/transcript_subagent.agent-abe457c7cccc84957.jsonl"
);
const NEW_SUBAGENT: &str =
    include_str!("../../../tests/fixtures/claude-transcript/v2.1.330_transcript_subagent.jsonl");
const NEW_TOOLS_BASIC: &str =
    include_str!("../../../tests/fixtures/claude-transcript/v2.1.330_transcript_tools_basic.jsonl");

// ---------------------------------------------------------------------------
// Helpers

/// Decode `lines` as one input (detected, not forced) and finish it.
fn run<S: AsRef<str>>(lines: &[S]) -> Vec<Event<'static>> {
    let mut dec = Decoder::new();
    let mut evs = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        dec.decode(
            &Line {
                number: i as u64 + 1,
                bytes: l.as_ref().as_bytes(),
                partial: false,
            },
            &mut |ev: &Event<'_>| {
                evs.push(ev.to_owned_event());
                Ok(())
            },
        )
        .unwrap();
    }
    dec.finish(&mut |ev: &Event<'_>| {
        evs.push(ev.to_owned_event());
        Ok(())
    })
    .unwrap();
    evs
}

fn run_text(text: &str) -> Vec<Event<'static>> {
    run(&text.lines().collect::<Vec<_>>())
}

fn kinds(evs: &[Event<'_>]) -> Vec<&'static str> {
    evs.iter().map(|e| e.kind.name()).collect()
}

fn results<'a>(evs: &'a [Event<'static>]) -> Vec<&'a SessionResult<'static>> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Result(r) => Some(&**r),
            _ => None,
        })
        .collect()
}

fn the_result<'a>(evs: &'a [Event<'static>]) -> &'a SessionResult<'static> {
    let r = results(evs);
    assert_eq!(r.len(), 1, "{:?}", kinds(evs));
    r[0]
}

fn starts<'a>(evs: &'a [Event<'static>]) -> Vec<(&'a Event<'static>, &'a SessionStart<'static>)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::SessionStart(s) => Some((e, s)),
            _ => None,
        })
        .collect()
}

fn calls<'a>(evs: &'a [Event<'static>]) -> Vec<(&'a Event<'static>, &'a ToolCall<'static>)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall(c) => Some((e, c)),
            _ => None,
        })
        .collect()
}

fn notices<'a>(evs: &'a [Event<'static>], subtype: &str) -> Vec<&'a Notice<'static>> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Notice(n) if n.subtype == subtype => Some(n),
            _ => None,
        })
        .collect()
}

/// Builds the entries of one session, one second apart.
struct Tx {
    session: &'static str,
    n: u64,
}

impl Tx {
    fn new() -> Self {
        Tx {
            session: "s1",
            n: 0,
        }
    }

    fn envelope(&mut self, ty: &str, uuid: &str, parent: Option<&str>) -> J {
        self.n += 1;
        json!({
            "parentUuid": parent,
            "isSidechain": false,
            "type": ty,
            "uuid": uuid,
            "timestamp": format!("2026-01-01T00:00:{:02}.000Z", self.n),
            "sessionId": self.session,
            "cwd": "/p",
            "version": "2.1.0",
            "userType": "external",
        })
    }

    fn user(&mut self, uuid: &str, parent: Option<&str>, content: J) -> String {
        let mut v = self.envelope("user", uuid, parent);
        v["message"] = json!({"role": "user"});
        v["message"]["content"] = content;
        v["permissionMode"] = json!("default");
        v.to_string()
    }

    fn result(&mut self, uuid: &str, parent: &str, call: &str, text: &str, err: bool) -> String {
        let mut v = self.envelope("user", uuid, Some(parent));
        v["message"] = json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": text, "is_error": err}
        ]});
        v.to_string()
    }

    fn asst(&mut self, uuid: &str, parent: Option<&str>, msg: &str, block: J) -> String {
        let stop = if block["type"] == "tool_use" {
            "tool_use"
        } else {
            "end_turn"
        };
        let mut v = self.envelope("assistant", uuid, parent);
        v["requestId"] = json!("req");
        v["message"] = json!({
            "id": msg, "model": "claude-x", "role": "assistant", "type": "message",
            "content": [], "stop_reason": stop,
            "usage": {"input_tokens": 100, "output_tokens": 10,
                      "cache_read_input_tokens": 5, "cache_creation_input_tokens": 0}
        });
        v["message"]["content"] = J::Array(vec![block]);
        v.to_string()
    }

    fn text(&mut self, uuid: &str, parent: Option<&str>, msg: &str, text: &str) -> String {
        self.asst(uuid, parent, msg, json!({"type": "text", "text": text}))
    }

    fn bash(&mut self, uuid: &str, parent: Option<&str>, msg: &str, id: &str, cmd: &str) -> String {
        self.asst(
            uuid,
            parent,
            msg,
            json!({"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}),
        )
    }
}

/// prompt → Bash → result → answer: a complete little session.
fn simple() -> Vec<String> {
    let mut t = Tx::new();
    vec![
        r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-01T00:00:00.500Z","sessionId":"s1","content":"hi"}"#.to_string(),
        t.user("u1", None, json!("list the files")),
        t.bash("a1", Some("u1"), "m1", "t1", "ls"),
        t.result("r1", "a1", "t1", "a\nb", false),
        t.text("a2", Some("r1"), "m2", "Two files."),
        r#"{"type":"last-prompt","lastPrompt":"list the files","leafUuid":"a2","sessionId":"s1"}"#.to_string(),
    ]
}

// ---------------------------------------------------------------------------
// Header and result

#[test]
fn header_waits_for_the_model_then_comes_first() {
    let evs = run(&simple());
    assert_eq!(
        kinds(&evs),
        [
            "session_start",
            "text",
            "usage",
            "tool_call",
            "tool_result",
            "usage",
            "text",
            "result"
        ]
    );
    let (ev, s) = starts(&evs)[0];
    assert_eq!(ev.line, 2, "dated at the first entry");
    assert_eq!(ev.producer, Producer::ClaudeTranscript);
    assert_eq!(ev.session.as_deref(), Some("s1"));
    assert_eq!(s.model.as_deref(), Some("claude-x"));
    assert_eq!(s.cwd.as_deref(), Some("/p"));
    assert_eq!(s.version.as_deref(), Some("2.1.0"));
    assert_eq!(s.permission_mode.as_deref(), Some("default"));
    assert!(s.tools.is_empty() && s.api_key_source.is_none());
    // The prompt is the user's text, after the header.
    let EventKind::Text(t) = &evs[1].kind else {
        panic!()
    };
    assert_eq!(
        (t.role, t.text.as_ref(), evs[1].line),
        (Role::User, "list the files", 2)
    );
}

#[test]
fn reconstructed_result_has_the_totals() {
    let evs = run(&simple());
    let r = the_result(&evs);
    assert!(!r.is_error);
    assert_eq!(r.subtype.as_deref(), Some("transcript_end"));
    assert_eq!(r.text.as_deref(), Some("Two files."));
    assert_eq!(r.num_turns, Some(2));
    // From the queue-operation (00.5) to the last entry (04).
    assert_eq!(r.duration_ms, Some(3500));
    assert_eq!(r.cost_usd, None, "no cost without a cost-state line");
    assert_eq!(r.duration_api_ms, None);
    assert_eq!(r.tokens.input, Some(200));
    assert_eq!(r.tokens.output, Some(20));
    assert_eq!(r.tokens.cache_read, Some(10));
    assert_eq!(r.tokens.cache_creation, Some(0));
    assert_eq!(r.stop_reason.as_deref(), Some("end_turn"));
    assert!(r.model_usage.is_empty() && r.errors.is_empty());
    let last = evs.last().unwrap();
    assert_eq!(last.line, 6, "the session's last line");
    assert_eq!(last.session.as_deref(), Some("s1"));
}

#[test]
fn usage_of_a_message_is_its_largest_line() {
    // Claude Code writes a message's usage on each of its lines, the
    // output count growing to the final one on the last.
    let mut t = Tx::new();
    let first = t.text("a1", None, "m1", "one");
    let mut second: J = serde_json::from_str(&t.text("a2", Some("a1"), "m1", "two")).unwrap();
    second["message"]["usage"]["output_tokens"] = json!(99);
    // A later line of smaller counts changes nothing.
    let mut third: J = serde_json::from_str(&t.text("a3", Some("a2"), "m1", "three")).unwrap();
    third["message"]["usage"]["output_tokens"] = json!(2);
    let lines = [t.user("u0", None, json!("go")), first, second.to_string()];
    let evs = run(&[&lines[..], &[third.to_string()]].concat());
    let r = the_result(&evs);
    assert_eq!(r.num_turns, Some(1));
    assert_eq!(r.tokens.output, Some(99));
    assert_eq!(r.tokens.input, Some(100));
    assert_eq!(r.text.as_deref(), Some("three"));
    // The first line's usage, then the second's replacing it.
    let usage: Vec<&Usage<'_>> = (evs.iter())
        .filter_map(|e| match &e.kind {
            EventKind::Usage(u) => Some(u),
            _ => None,
        })
        .collect();
    assert_eq!(usage.len(), 2);
    assert_eq!(usage[0].replaces, None);
    assert_eq!(usage[1].replaces, Some(usage[0].tokens));
    assert_eq!(usage[1].tokens.output, Some(99));
}

#[test]
fn preliminary_usage_leaves_the_output_count_unknown() {
    // 2.1.39 saved the usage of `message_start`: `stop_reason` null, a
    // handful of output tokens.
    let mut t = Tx::new();
    let mut early: J =
        serde_json::from_str(&t.text("a1", Some("u1"), "m1", "a long answer")).unwrap();
    early["message"]["stop_reason"] = J::Null;
    early["message"]["usage"]["output_tokens"] = json!(8);
    let evs = run(&[t.user("u1", None, json!("x")), early.to_string()]);
    let r = the_result(&evs);
    assert_eq!(r.tokens.output, None);
    assert_eq!(r.tokens.input, Some(100));
    assert_eq!(r.stop_reason, None);
    assert!(!r.is_error);
}

#[test]
fn ending_on_a_tool_call_gives_no_result() {
    let lines = simple();
    let evs = run(&lines[..3]);
    assert!(results(&evs).is_empty(), "{:?}", kinds(&evs));
    assert_eq!(calls(&evs).len(), 1);
}

#[test]
fn ending_on_a_tool_result_or_a_prompt_gives_no_result() {
    let lines = simple();
    assert!(results(&run(&lines[..4])).is_empty());
    // A prompt nobody answered yet: the header still comes out.
    let evs = run(&lines[..2]);
    assert!(results(&evs).is_empty());
    assert_eq!(kinds(&evs), ["session_start", "text"]);
    assert_eq!(starts(&evs)[0].1.model, None);
}

#[test]
fn api_error_as_last_message_is_an_error_result() {
    let mut t = Tx::new();
    let mut err: J = serde_json::from_str(&t.text(
        "a1",
        Some("u1"),
        "6b2c1e4e-0000-0000-0000-000000000000",
        "API Error: 500 Internal server error",
    ))
    .unwrap();
    err["message"]["model"] = json!("<synthetic>");
    err["isApiErrorMessage"] = json!(true);
    let evs = run(&[t.user("u1", None, json!("hi")), err.to_string()]);
    let n = notices(&evs, "api_error");
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].level, Level::Error);
    assert_eq!(n[0].text, "API Error: 500 Internal server error");
    assert!(!kinds(&evs).contains(&"usage"));
    let r = the_result(&evs);
    assert!(r.is_error);
    assert_eq!(r.subtype.as_deref(), Some("api_error"));
    assert_eq!(
        r.text.as_deref(),
        Some("API Error: 500 Internal server error")
    );
    assert_eq!(r.num_turns, Some(0));
    // The synthetic model is not the session's model.
    assert_eq!(starts(&evs)[0].1.model, None);
}

#[test]
fn an_api_error_flag_without_synthetic_model_is_an_error_too() {
    let mut t = Tx::new();
    let mut err: J =
        serde_json::from_str(&t.text("a1", None, "m1", "API Error: overloaded")).unwrap();
    err["isApiErrorMessage"] = json!(true);
    let evs = run(&[err.to_string()]);
    assert_eq!(notices(&evs, "api_error").len(), 1);
    assert!(the_result(&evs).is_error);
}

#[test]
fn recovering_after_an_api_error_is_success() {
    let mut t = Tx::new();
    let mut err: J = serde_json::from_str(&t.text("a1", Some("u1"), "e1", "API Error")).unwrap();
    err["message"]["model"] = json!("<synthetic>");
    let evs = run(&[
        t.user("u1", None, json!("hi")),
        err.to_string(),
        t.user("u2", Some("a1"), json!("again")),
        t.text("a2", Some("u2"), "m2", "Hello."),
    ]);
    let r = the_result(&evs);
    assert!(!r.is_error);
    assert_eq!(r.num_turns, Some(1));
    // The error is shown at once, under a header without a model; the
    // first real answer names it.
    let models: Vec<_> = starts(&evs).iter().map(|(_, s)| s.model.clone()).collect();
    assert_eq!(models, [None, Some("claude-x".into())]);
}

#[test]
fn cost_state_gives_cost_api_time_and_models() {
    let mut lines = simple();
    lines.push(r#"{"type":"cost-state","sessionId":"s1","totalCostUSD":0.25,"totalAPIDuration":1234,"modelUsage":{"claude-x":{"inputTokens":200,"outputTokens":20,"cacheReadInputTokens":10,"cacheCreationInputTokens":0,"costUSD":0.25}}}"#.into());
    let evs = run(&lines);
    let r = the_result(&evs);
    assert_eq!(r.cost_usd, Some(0.25));
    assert_eq!(r.duration_api_ms, Some(1234));
    assert_eq!(r.model_usage.len(), 1);
    assert_eq!(r.model_usage[0].model, "claude-x");
    assert_eq!(r.model_usage[0].tokens.output, Some(20));
    assert_eq!(evs.last().unwrap().line, 7);
}

#[test]
fn old_per_message_costs_are_summed() {
    let mut t = Tx::new();
    let priced = |s: String, c: f64| {
        let mut v: J = serde_json::from_str(&s).unwrap();
        v["costUSD"] = json!(c);
        v.to_string()
    };
    let evs = run(&[
        t.user("u1", None, json!("x")),
        priced(t.bash("a1", Some("u1"), "m1", "t1", "ls"), 0.25),
        t.result("r1", "a1", "t1", "a", false),
        priced(t.text("a2", Some("r1"), "m2", "done"), 0.5),
    ]);
    let r = the_result(&evs);
    assert_eq!(r.cost_usd, Some(0.75));
    assert_eq!(r.duration_api_ms, None);
}

#[test]
fn a_model_change_repeats_the_header() {
    let mut t = Tx::new();
    let mut later: J = serde_json::from_str(&t.text("a2", Some("u2"), "m2", "b")).unwrap();
    later["message"]["model"] = json!("claude-y");
    let evs = run(&[
        t.user("u1", None, json!("x")),
        t.text("a1", Some("u1"), "m1", "a"),
        t.user("u2", Some("a1"), json!("y")),
        later.to_string(),
    ]);
    let s = starts(&evs);
    assert_eq!(s.len(), 2);
    assert_eq!(s[1].1.model.as_deref(), Some("claude-y"));
    assert_eq!(s[1].0.line, 4);
    assert_eq!(s[1].0.session.as_deref(), Some("s1"));
}

#[test]
fn a_permission_mode_change_repeats_the_header() {
    let mut t = Tx::new();
    let mut plan: J = serde_json::from_str(&t.user("u2", Some("a1"), json!("y"))).unwrap();
    plan["permissionMode"] = json!("plan");
    let evs = run(&[
        t.user("u1", None, json!("x")),
        t.text("a1", Some("u1"), "m1", "a"),
        plan.to_string(),
        t.text("a2", Some("u2"), "m2", "b"),
    ]);
    let modes: Vec<_> = starts(&evs)
        .iter()
        .map(|(e, s)| (e.line, s.permission_mode.clone()))
        .collect();
    assert_eq!(
        modes,
        [(1, Some("default".into())), (3, Some("plan".into()))]
    );
}

#[test]
fn a_mode_learnt_after_the_header_is_not_a_change() {
    // Read from the middle: the first entry is an answer, without a mode.
    let lines = simple();
    let evs = run(&[&lines[2], &lines[3], &lines[4], &lines[1]]);
    assert_eq!(starts(&evs).len(), 1);
}

#[test]
fn a_new_session_id_closes_the_previous_session() {
    let mut a = simple();
    let mut t = Tx::new();
    t.session = "s2";
    a.push(t.user("v1", None, json!("next")));
    a.push(t.text("w1", Some("v1"), "n1", "ok"));
    let evs = run(&a);
    let r = results(&evs);
    assert_eq!(r.len(), 2);
    let ids: Vec<_> = evs
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Result(_) | EventKind::SessionStart(_)))
        .map(|e| (e.kind.name(), e.session.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        ids,
        [
            ("session_start", "s1"),
            ("result", "s1"),
            ("session_start", "s2"),
            ("result", "s2")
        ]
    );
    assert_eq!(r[1].num_turns, Some(1));
}

// ---------------------------------------------------------------------------
// Line types

#[test]
fn metadata_lines_give_no_event() {
    let mut lines = simple();
    for l in [
        r#"{"type":"file-history-snapshot","messageId":"x","snapshot":{},"isSnapshotUpdate":false}"#,
        r#"{"type":"queue-operation","operation":"dequeue","timestamp":"2026-01-01T00:00:05Z","sessionId":"s1"}"#,
        r#"{"type":"tools-used","tools":["Read"],"sessionId":"s1"}"#,
        r#"{"type":"atis-latch","atis":"","sessionId":"s1"}"#,
        r#"{"type":"api-request","sessionId":"s1","id":"r","params":{}}"#,
        r#"{"type":"api-request-blob","sessionId":"s1","hash":"h","message":{"role":"user","content":"x"}}"#,
        r#"{"type":"agent-name","agentName":"x","sessionId":"s1"}"#,
        r#"{"parentUuid":"a2","type":"progress","data":{"type":"bash_progress"},"uuid":"p1","sessionId":"s1","toolUseID":"t1"}"#,
        r#"{"parentUuid":"a2","type":"attachment","attachment":{"type":"skill_listing","content":"x"},"uuid":"at1","sessionId":"s1"}"#,
    ] {
        lines.insert(lines.len() - 1, l.to_string());
    }
    let evs = run(&lines);
    assert_eq!(evs.len(), run(&simple()).len(), "{:?}", kinds(&evs));
    assert_eq!(the_result(&evs).duration_ms, Some(4500));
}

#[test]
fn unknown_and_title_lines_are_debug_notices() {
    let mut lines = simple();
    lines.push(r#"{"type":"brand-new-metadata","sessionId":"s1","x":1}"#.into());
    lines.push(r#"{"type":"summary","summary":"Listing files\nmore","leafUuid":"a2"}"#.into());
    lines.push(r#"{"type":"ai-title","aiTitle":"List files","sessionId":"s1"}"#.into());
    lines.push(
        r#"{"type":"pr-link","prUrl":"https://example.com/pr/1","prNumber":1,"sessionId":"s1"}"#
            .into(),
    );
    let evs = run(&lines);
    assert_eq!(kinds(&evs).iter().filter(|k| **k == "unknown").count(), 0);
    let n = notices(&evs, "brand-new-metadata");
    assert_eq!((n[0].level, n[0].raw.is_some()), (Level::Debug, true));
    assert_eq!(notices(&evs, "summary")[0].text, "summary: Listing files…");
    assert_eq!(notices(&evs, "ai-title")[0].text, "title: List files");
    let pr = notices(&evs, "pr-link");
    assert_eq!(
        (pr[0].level, pr[0].text.as_ref()),
        (Level::Info, "pull request https://example.com/pr/1")
    );
}

#[test]
fn system_entries_are_notices() {
    let mut t = Tx::new();
    let sys = |t: &mut Tx, uuid: &str, fields: J| {
        let mut v = t.envelope("system", uuid, Some("a1"));
        for (k, x) in fields.as_object().unwrap() {
            v[k] = x.clone();
        }
        v.to_string()
    };
    let lines = vec![
        t.user("u1", None, json!("x")),
        t.text("a1", Some("u1"), "m1", "a"),
        sys(
            &mut t,
            "s1",
            json!({"subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":12345}}),
        ),
        sys(
            &mut t,
            "s2",
            json!({"subtype":"api_error","level":"error","retryInMs":1500.5,"retryAttempt":2,"maxRetries":10,"error":{"status":529,"error":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}}),
        ),
        sys(
            &mut t,
            "s3",
            json!({"subtype":"local_command","content":"<local-command-stdout>Set model to sonnet</local-command-stdout>","level":"info"}),
        ),
        sys(
            &mut t,
            "s4",
            json!({"subtype":"turn_duration","durationMs":61234}),
        ),
        sys(
            &mut t,
            "s5",
            json!({"subtype":"informational","content":"Careful","level":"warning"}),
        ),
        sys(
            &mut t,
            "s6",
            json!({"subtype":"stop_hook_summary","hookErrors":["boom"],"preventedContinuation":false}),
        ),
        sys(
            &mut t,
            "s7",
            json!({"subtype":"something_new","content":"hello\nworld"}),
        ),
    ];
    let evs = run(&lines);
    let n = |s: &str| notices(&evs, s)[0].clone();
    assert_eq!(
        (
            n("compact_boundary").level,
            n("compact_boundary").text.as_ref()
        ),
        (
            Level::Info,
            "context compacted (manual): 12345 tokens before"
        )
    );
    assert_eq!(
        (n("api_retry").level, n("api_retry").text.as_ref()),
        (
            Level::Warning,
            "API retry 2/10 in 1.5s: Overloaded (HTTP 529)"
        )
    );
    assert_eq!(n("local_command").text, "Set model to sonnet");
    assert_eq!(
        (n("turn_duration").level, n("turn_duration").text.as_ref()),
        (Level::Debug, "turn took 61.2s")
    );
    assert_eq!(n("informational").level, Level::Warning);
    assert_eq!(n("stop_hook_summary").text, "stop hook failed: boom");
    assert_eq!(
        (n("something_new").level, n("something_new").text.as_ref()),
        (Level::Debug, "hello…")
    );
    assert!(evs.iter().all(|e| !matches!(e.kind, EventKind::Unknown(_))));
    // System entries after the answer do not make the session incomplete.
    assert_eq!(results(&evs).len(), 1);
}

#[test]
fn meta_and_task_notification_user_entries_are_notices() {
    let mut t = Tx::new();
    let mut meta: J = serde_json::from_str(&t.user(
        "u2",
        Some("a1"),
        json!("<system-reminder>\nCaveat: the messages below were generated by the user\n</system-reminder>"),
    ))
    .unwrap();
    meta["isMeta"] = json!(true);
    let lines = vec![
        t.user("u1", None, json!("x")),
        t.text("a1", Some("u1"), "m1", "a"),
        meta.to_string(),
        t.user("u3", Some("u2"), json!("<task-notification>\n<task-id>b1</task-id>\n<status>failed</status>\n<summary>Agent \"x\" failed</summary>\n<result>no luck</result>\n</task-notification>")),
        t.text("a2", Some("u3"), "m2", "noted"),
    ];
    let evs = run(&lines);
    let m = &notices(&evs, "meta")[0];
    assert_eq!(m.level, Level::Debug);
    assert_eq!(
        m.text,
        "injected by the CLI: Caveat: the messages below were generated by the user"
    );
    let tn = &notices(&evs, "task_notification")[0];
    assert_eq!(tn.level, Level::Warning);
    assert_eq!(tn.text, "task failed: Agent \"x\" failed: no luck");
    // Neither is shown as user text.
    let users = evs
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Text(t) if t.role == Role::User))
        .count();
    assert_eq!(users, 1);
    assert_eq!(results(&evs).len(), 1);
}

#[test]
fn a_failed_hook_attachment_is_a_warning() {
    let mut t = Tx::new();
    let mut a = t.envelope("attachment", "h1", Some("a1"));
    a["attachment"] = json!({"type":"hook_non_blocking_error","hookName":"PostToolUse:Bash","stderr":"lint failed\nmore"});
    let evs = run(&[
        t.user("u1", None, json!("x")),
        t.text("a1", Some("u1"), "m1", "a"),
        a.to_string(),
    ]);
    let n = &notices(&evs, "hook")[0];
    assert_eq!(n.level, Level::Warning);
    assert_eq!(
        n.text,
        "hook PostToolUse:Bash: non blocking error: lint failed…"
    );
}

#[test]
fn wrong_types_never_panic() {
    for l in [
        r#"{"type":"assistant","parentUuid":null,"sessionId":5,"message":"nope","uuid":7}"#,
        r#"{"type":"assistant","parentUuid":"x","sessionId":"s","message":{"content":[1,null,{"type":"tool_use"}],"usage":[]}}"#,
        r#"{"type":"user","parentUuid":[],"sessionId":"s","message":{"content":[{"type":"tool_result","content":{"a":1}}]},"toolUseResult":"Error: x"}"#,
        r#"{"type":"user","parentUuid":null,"sessionId":"s","isSidechain":true,"agentId":3,"message":{"content":null}}"#,
        r#"{"type":"system","parentUuid":null,"sessionId":"s","subtype":7,"error":"x","retryInMs":"soon"}"#,
        r#"{"type":"attachment","parentUuid":null,"sessionId":"s","attachment":"x"}"#,
        r#"{"type":"cost-state","sessionId":"s","totalCostUSD":"free","modelUsage":[]}"#,
        r#"{"type":"api-request-shape","sessionId":"s","shape":{"tools":"all"}}"#,
        r#"{"type":"user","parentUuid":null,"sessionId":"s","timestamp":"yesterday","message":{"content":"<task-notification><status>"}}"#,
    ] {
        let _ = run(&[l]);
        let _ = run(&[r#"{"type":"queue-operation","sessionId":"s"}"#, l]);
    }
}

// ---------------------------------------------------------------------------
// The tree: copies and rewinds

#[test]
fn repeated_entries_are_skipped_and_reported_once() {
    let lines = simple();
    let mut doubled = lines.clone();
    doubled.extend(lines[1..5].iter().cloned());
    let evs = run(&doubled);
    assert_eq!(calls(&evs).len(), 1);
    let d = notices(&evs, "duplicate");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].level, Level::Debug);
    assert!(
        d[0].text.contains("4 entries") && d[0].text.contains("lines 7–10"),
        "{}",
        d[0].text
    );
    assert_eq!(the_result(&evs).num_turns, Some(2));
}

#[test]
fn a_tool_call_copied_under_a_new_uuid_is_shown_once() {
    let mut t = Tx::new();
    let call = t.bash("a1", Some("u1"), "m1", "t1", "ls");
    let copy = call.replace("\"a1\"", "\"a1-copy\"");
    let evs = run(&[t.user("u1", None, json!("x")), call, copy]);
    assert_eq!(calls(&evs).len(), 1);
}

#[test]
fn a_new_prompt_on_an_answered_entry_is_a_rewind() {
    let mut t = Tx::new();
    let lines = vec![
        t.user("u1", None, json!("first")),
        t.text("a1", Some("u1"), "m1", "one"),
        t.user("u2", Some("a1"), json!("second")),
        t.bash("a2", Some("u2"), "m2", "t2", "rm -rf build"),
        t.result("r2", "a2", "t2", "", false),
        t.text("a3", Some("r2"), "m3", "done"),
        // Rewound to before "second": a new prompt hangs on a1 again.
        t.user("u3", Some("a1"), json!("second, differently")),
        t.text("a4", Some("u3"), "m4", "ok"),
    ];
    let evs = run(&lines);
    let r = notices(&evs, "rewind");
    assert_eq!(r.len(), 1, "{:?}", kinds(&evs));
    assert_eq!(r[0].level, Level::Info);
    assert_eq!(
        r[0].text,
        "rewind: the conversation goes on from line 2; 4 entries (lines 3–6) left on an abandoned branch"
    );
    let at = evs
        .iter()
        .position(|e| matches!(&e.kind, EventKind::Notice(n) if n.subtype == "rewind"))
        .unwrap();
    assert_eq!(evs[at].line, 7);
    // Every API response counts (they were paid for), the last one ends it.
    let res = the_result(&evs);
    assert_eq!(res.num_turns, Some(4));
    assert_eq!(res.text.as_deref(), Some("ok"));
}

#[test]
fn entries_are_found_by_uuid_whatever_its_form() {
    // The same conversation reads the same whatever its uuids look like,
    // and an upper-case UUID is not its lower-case twin.
    let mut t = Tx::new();
    let lines = vec![
        t.user("u1", None, json!("first")),
        t.text("a1", Some("u1"), "m1", "one"),
        t.user("u2", Some("a1"), json!("second")),
        t.text("a2", Some("u2"), "m2", "two"),
        t.user("u3", Some("a1"), json!("second, differently")),
        t.text("a4", Some("u3"), "m4", "ok"),
    ];
    let with_ids = |form: &dyn Fn(usize) -> String| -> Vec<String> {
        let ids = ["u1", "a1", "u2", "a2", "u3", "a4"];
        (lines.iter())
            .map(|l| {
                ids.iter().enumerate().fold(l.clone(), |l, (i, id)| {
                    l.replace(&format!("\"{id}\""), &format!("\"{}\"", form(i)))
                })
            })
            .collect()
    };
    let rewinds = |lines: &[String]| {
        let evs = run(lines);
        (notices(&evs, "rewind").iter())
            .map(|n| n.text.to_string())
            .collect::<Vec<_>>()
    };
    let plain = rewinds(&lines);
    assert_eq!(plain.len(), 1);
    let lower = with_ids(&|i| format!("{i:08x}-aaaa-4bbb-8ccc-{i:012x}"));
    assert_eq!(rewinds(&lower), plain);
    let upper = with_ids(&|i| format!("{i:08X}-AAAA-4BBB-8CCC-{i:012X}"));
    assert_eq!(rewinds(&upper), plain);
    // The rewound prompt hangs on an upper-case parent its lower-case
    // twin answered: another entry, so no rewind.
    let mut mixed = lower.clone();
    mixed[4] = mixed[4].replace("aaaa-4bbb-8ccc", "AAAA-4BBB-8CCC");
    assert!(rewinds(&mixed).is_empty());
}

#[test]
fn a_rewind_across_progress_entries_is_found() {
    // 2.1.x hangs a prompt on the hook progress entry written before it.
    let mut t = Tx::new();
    let progress = |t: &mut Tx, uuid: &str, parent: &str| {
        let mut v = t.envelope("progress", uuid, Some(parent));
        v["data"] = json!({"type": "hook_progress", "hookEvent": "UserPromptSubmit"});
        v.to_string()
    };
    let lines = vec![
        t.user("u1", None, json!("first")),
        t.text("a1", Some("u1"), "m1", "one"),
        progress(&mut t, "p1", "a1"),
        t.user("u2", Some("p1"), json!("second")),
        t.text("a2", Some("u2"), "m2", "two"),
        t.user("u3", Some("p1"), json!("second, again")),
        t.text("a3", Some("u3"), "m3", "three"),
    ];
    let evs = run(&lines);
    let r = notices(&evs, "rewind");
    assert_eq!(r.len(), 1, "{:?}", kinds(&evs));
    assert!(r[0].text.contains("from line 3;"), "{}", r[0].text);
    assert!(r[0].text.contains("(lines 4–5)"), "{}", r[0].text);
}

#[test]
fn a_compaction_agent_hanging_on_the_main_conversation_is_no_rewind() {
    let mut t = Tx::new();
    let mut reminder: J = serde_json::from_str(&t.user(
        "c1",
        Some("a1"),
        json!("<system-reminder>\nhook output\n</system-reminder>"),
    ))
    .unwrap();
    reminder["isSidechain"] = json!(true);
    reminder["isMeta"] = json!(true);
    reminder["agentId"] = json!("acompact-e1f845");
    let lines = vec![
        t.user("u1", None, json!("first")),
        t.text("a1", Some("u1"), "m1", "one"),
        reminder.to_string(),
        t.user("u2", Some("a1"), json!("second")),
        t.text("a2", Some("u2"), "m2", "two"),
    ];
    let evs = run(&lines);
    assert!(notices(&evs, "rewind").is_empty(), "{:?}", kinds(&evs));
    let n = notices(&evs, "sidechain");
    assert!(
        n[0].text
            .starts_with("compaction sub-agent acompact-e1f845: "),
        "{}",
        n[0].text
    );
}

#[test]
fn parallel_tool_results_are_not_a_rewind() {
    // 2.1.197 hangs each tool result on the block that called it: two
    // children for the first call's line.
    let evs = run_text(SUBAGENT);
    assert!(notices(&evs, "rewind").is_empty());
    let mut t = Tx::new();
    let lines = vec![
        t.user("u1", None, json!("x")),
        t.bash("a1", Some("u1"), "m1", "t1", "ls"),
        t.bash("a2", Some("a1"), "m1", "t2", "pwd"),
        t.result("r1", "a1", "t1", "a", false),
        t.result("r2", "a2", "t2", "/", false),
        t.text("a3", Some("r2"), "m2", "ok"),
    ];
    let evs = run(&lines);
    assert!(notices(&evs, "rewind").is_empty());
    assert_eq!(results(&evs).len(), 1);
    // Nor is an interruption written with the first call's result.
    let mut interrupted: J = serde_json::from_str(&lines[3]).unwrap();
    interrupted["message"]["content"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "text", "text": "[Request interrupted by user for tool use]"}));
    let mut again = lines.clone();
    again[3] = interrupted.to_string();
    assert!(notices(&run(&again), "rewind").is_empty());
}

// ---------------------------------------------------------------------------
// Sub-agents

#[test]
fn interleaved_sidechain_lines_nest_under_their_task_call() {
    // Claude Code ≤ 1.0: sub-agent lines in the main file, no agentId; the
    // sidechain's first prompt is the Task call's prompt.
    let mut t = Tx::new();
    let side = |s: String| {
        let mut v: J = serde_json::from_str(&s).unwrap();
        v["isSidechain"] = json!(true);
        v.to_string()
    };
    let task = json!({"type":"tool_use","id":"task1","name":"Task",
        "input":{"description":"Look","prompt":"Find the bug","subagent_type":"general-purpose"}});
    let lines = vec![
        t.user("u1", None, json!("fix it")),
        t.asst("a1", Some("u1"), "m1", task),
        side(t.user("s1", None, json!("Find the bug"))),
        side(t.bash("s2", Some("s1"), "sm1", "t9", "grep -r bug")),
        side(t.result("s3", "s2", "t9", "", true)),
        side(t.text("s4", Some("s3"), "sm2", "No bug.")),
        t.result("r1", "a1", "task1", "No bug.", false),
        t.text("a2", Some("r1"), "m2", "Nothing to fix."),
    ];
    let evs = run(&lines);
    for e in &evs {
        let expect = (3..=6).contains(&e.line).then_some("task1");
        assert_eq!(
            e.parent.as_deref(),
            expect,
            "line {} {}",
            e.line,
            e.kind.name()
        );
    }
    assert!(notices(&evs, "sidechain").is_empty());
    let r = the_result(&evs);
    assert_eq!(r.num_turns, Some(2), "the main agent's responses only");
    assert_eq!(r.tokens.input, Some(200));
}

#[test]
fn a_sub_agent_file_alone_is_its_own_session_shown_un_nested() {
    let evs = run_text(AGENT_BETA);
    assert!(evs.iter().all(|e| e.parent.is_none()));
    let n = notices(&evs, "sidechain");
    assert_eq!(n.len(), 1);
    assert!(
        n[0].text
            .starts_with("sub-agent abe457c7cccc84957, shown un-nested: "),
        "{}",
        n[0].text
    );
    assert_eq!(kinds(&evs)[..2], ["session_start", "notice"]);
    let c: Vec<_> = calls(&evs)
        .iter()
        .map(|(_, c)| c.key_arg.clone().unwrap())
        .collect();
    assert_eq!(c, ["wc -l src/lib.rs", "false"]);
    let r = the_result(&evs);
    assert_eq!(r.num_turns, Some(3));
    assert_eq!(r.text.as_deref(), Some("src/lib.rs has 3 lines."));
}

#[test]
fn sub_agent_files_after_their_main_file_nest_under_the_agent_calls() {
    let all = format!("{SUBAGENT}{AGENT_ALPHA}{AGENT_BETA}");
    let evs = run_text(&all);
    let nested: Vec<(String, String)> = calls(&evs)
        .iter()
        .filter_map(|(e, c)| Some((e.parent.clone()?.into_owned(), c.name.to_string())))
        .collect();
    assert_eq!(
        nested,
        [
            ("toolu_01zzvmrPizNbQx7Bqy0wzmq5".into(), "Read".into()),
            ("toolu_01ARWx61KXXSEc7976oBZjhD".into(), "Bash".into()),
            ("toolu_01ARWx61KXXSEc7976oBZjhD".into(), "Bash".into()),
        ]
    );
    assert!(notices(&evs, "sidechain").is_empty());
    assert_eq!(starts(&evs).len(), 1, "one session");
    // The result is the main agent's.
    let r = the_result(&evs);
    assert_eq!(r.num_turns, Some(2));
    assert_eq!(r.tokens.input, Some(3695));
}

#[test]
fn background_agents_of_2_1_330_nest_by_agent_id() {
    let agent = include_str!(
        "../../../tests/fixtures/claude-transcript/v2.1.330_transcript_subagent.agent-a33c7066d6f0e2ac6.jsonl"
    );
    let evs = run_text(&format!("{NEW_SUBAGENT}{agent}"));
    let parents: Vec<_> = calls(&evs)
        .iter()
        .map(|(e, c)| {
            (
                e.parent.as_deref().unwrap_or("-").to_string(),
                c.name.to_string(),
            )
        })
        .collect();
    assert_eq!(
        parents,
        [
            ("-".into(), "Agent".into()),
            ("-".into(), "Agent".into()),
            ("toolu_01ARWx61KXXSEc7976oBZjhD".into(), "Bash".into()),
            ("toolu_01ARWx61KXXSEc7976oBZjhD".into(), "Bash".into()),
        ]
    );
}

// ---------------------------------------------------------------------------
// Real transcripts

#[test]
fn real_transcript_2_1_197() {
    let evs = run_text(TOOLS_BASIC);
    assert!(evs.iter().all(|e| e.producer == Producer::ClaudeTranscript));
    assert!(!kinds(&evs).contains(&"unknown"));
    let (ev, s) = starts(&evs)[0];
    assert_eq!(ev.line, 3);
    assert_eq!(s.model.as_deref(), Some("claude-opus-4-8"));
    assert_eq!(s.version.as_deref(), Some("2.1.197"));
    assert_eq!(s.permission_mode.as_deref(), Some("bypassPermissions"));
    let names: Vec<_> = calls(&evs)
        .iter()
        .map(|(_, c)| c.name.to_string())
        .collect();
    assert_eq!(names, ["Read", "Glob", "Grep", "Bash"]);
    let r = the_result(&evs);
    // The stream-json run of the same script reported these totals.
    assert_eq!((r.tokens.input, r.tokens.output), (Some(9426), Some(228)));
    assert_eq!(r.num_turns, Some(5));
    assert_eq!(r.cost_usd, None);
    assert_eq!(r.duration_ms, Some(564));
}

#[test]
fn real_transcript_2_1_330() {
    let evs = run_text(NEW_TOOLS_BASIC);
    assert!(!kinds(&evs).contains(&"unknown"));
    assert!(
        evs.iter().all(|e| !matches!(e.kind, EventKind::Notice(_))),
        "metadata is silent"
    );
    let s = starts(&evs)[0].1;
    assert_eq!(s.model.as_deref(), Some("claude-opus-5-5"));
    assert!(
        s.tools.iter().any(|t| t == "Grep"),
        "tools from api-request-shape"
    );
    assert!(s.agents.iter().any(|a| a == "general-purpose"));
    let r = the_result(&evs);
    assert_eq!((r.tokens.input, r.tokens.output), (Some(14483), Some(228)));
    assert_eq!(r.cost_usd, Some(0.062_492));
    assert_eq!(r.duration_api_ms, Some(204));
}

#[test]
fn real_transcript_cut_after_a_tool_call_is_incomplete() {
    let lines: Vec<&str> = TOOLS_BASIC.lines().take(13).collect();
    let evs = run(&lines);
    assert!(results(&evs).is_empty());
    assert_eq!(calls(&evs).last().unwrap().1.name, "Bash");
}

// ---------------------------------------------------------------------------
// Timestamps

/// Decode `text` as a report run does (`Decoder::for_report`), events
/// compared without the header's lists, which it may leave empty.
fn run_report(text: &str, report: bool) -> Vec<Event<'static>> {
    let mut dec = Decoder::new().for_report(report);
    let mut evs = Vec::new();
    let mut keep = |ev: &Event<'_>| {
        evs.push(ev.to_owned_event());
        Ok(())
    };
    for (i, l) in text.lines().enumerate() {
        let line = Line {
            number: i as u64 + 1,
            bytes: l.as_bytes(),
            partial: false,
        };
        dec.decode(&line, &mut keep).unwrap();
    }
    dec.finish(&mut keep).unwrap();
    evs
}

#[test]
fn a_report_leaves_request_logs_and_snapshots_unread_and_counts_the_same() {
    for text in [NEW_TOOLS_BASIC, NEW_SUBAGENT, TOOLS_BASIC, SUBAGENT] {
        let all = run_report(text, false);
        let mut report = run_report(text, true);
        // The header's tool list comes from a request log: left unread.
        let tools = |evs: &[Event<'_>]| {
            evs.iter()
                .find_map(|e| match &e.kind {
                    EventKind::SessionStart(s) => Some(s.tools.len()),
                    _ => None,
                })
                .unwrap()
        };
        if std::ptr::eq(text, NEW_TOOLS_BASIC) {
            assert!(tools(&all) > 5, "{}", tools(&all));
            assert_eq!(tools(&report), 0);
        }
        // Everything else is the same, event for event.
        for (r, a) in report.iter_mut().zip(&all) {
            if let (EventKind::SessionStart(r), EventKind::SessionStart(a)) = (&mut r.kind, &a.kind)
            {
                r.tools.clone_from(&a.tools);
                r.agents.clone_from(&a.agents);
            }
        }
        assert_eq!(report.len(), all.len());
        for (r, a) in report.iter().zip(&all) {
            assert_eq!(format!("{r:?}"), format!("{a:?}"));
        }
    }
}
