//! Kimi CLI's wire logs: the real saved sessions of 1.51.0
//! (`tests/fixtures/kimi-session/`) and small inline lines, through the
//! decoder.

use crate::decode::testing::{
    Event, EventKind, Producer, as_call, as_session_result, as_usage, replay,
};

/// The events of the wire log of the run `name`.
fn wire(name: &str) -> Vec<Event<'static>> {
    let sessions = format!(
        "{}/tests/fixtures/kimi-session/{name}/sessions",
        env!("CARGO_MANIFEST_DIR")
    );
    let group = std::fs::read_dir(sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let session = std::fs::read_dir(group.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let text = std::fs::read_to_string(session.path().join("wire.jsonl")).unwrap();
    replay(&text.lines().collect::<Vec<_>>())
}

fn results<'e>(evs: &'e [Event<'static>]) -> Vec<&'e crate::event::SessionResult<'static>> {
    evs.iter()
        .filter(|e| matches!(e.kind, EventKind::Result(_)))
        .map(as_session_result)
        .collect()
}

#[test]
fn a_turn_with_its_calls_tokens_and_times_in_seconds() {
    let evs = wire("mixed");
    assert!(
        evs.iter().all(|e| e.producer == Producer::KimiSession),
        "{evs:?}"
    );
    // 2026-12-02, not 1970: the times are seconds.
    // The header has no time; every line after it has one.
    let first = evs[1].time.unwrap().millis();
    assert_eq!(first, 1_796_186_312_523);
    assert!(evs[1..].iter().all(|e| e.time.is_some()));
    let calls: Vec<_> = evs
        .iter()
        .filter(|e| matches!(e.kind, EventKind::ToolCall(_)))
        .map(|e| as_call(e).key_arg.as_deref().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        calls,
        [
            "ls -la",
            "/home/dev/work/mixed/ws/hello.txt",
            "cat hello.txt && cat missing.txt"
        ]
    );
    let usage: Vec<_> = evs
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Usage(_)))
        .map(|e| as_usage(e).tokens)
        .collect();
    assert_eq!(usage.len(), 4);
    let [r] = results(&evs)[..] else {
        panic!("one result")
    };
    assert!(!r.is_error);
    assert_eq!(r.num_turns, Some(4));
    assert_eq!(
        [r.tokens.input, r.tokens.output, r.tokens.cache_read],
        [Some(1100), Some(190), Some(3200)]
    );
    assert_eq!(r.duration_ms, Some(1086));
}

#[test]
fn a_call_is_held_until_its_arguments_are_whole() {
    let evs = wire("parallel");
    let kinds: Vec<_> = evs.iter().map(|e| e.kind.name()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "text",
            "tool_call",
            "tool_result",
            "tool_call",
            "usage",
            "tool_result",
            "text",
            "usage",
            "result"
        ]
    );
    let second = as_call(&evs[4]);
    assert_eq!(second.key_arg.as_deref(), Some("echo two"));
    assert_eq!(
        second.input.text(),
        r#"{"command":"echo two","description":"second"}"#
    );
}

#[test]
fn an_interrupted_step_fails_its_turn() {
    let evs = wire("error_500");
    let retries = evs
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Notice(n) if n.subtype == "api_retry"))
        .count();
    assert_eq!(retries, 2);
    let [r] = results(&evs)[..] else {
        panic!("one result")
    };
    assert!(r.is_error);
    assert_eq!(r.api_error_status, Some(500));
    let evs = wire("error_400");
    let [r] = results(&evs)[..] else {
        panic!("one result")
    };
    assert!(r.is_error);
    assert_eq!(r.api_error_status, None);
}

#[test]
fn a_call_still_held_at_the_end_is_given() {
    let evs = replay(&[
        r#"{"type": "metadata", "protocol_version": "1.10"}"#,
        r#"{"timestamp": 1796186294.29748, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "c2", "function": {"name": "Shell", "arguments": "{\"command\": \"echo two\", "}}}}"#,
    ]);
    let kinds: Vec<_> = evs.iter().map(|e| e.kind.name()).collect();
    assert_eq!(kinds, ["session_start", "tool_call"]);
    assert_eq!(as_call(&evs[1]).key_arg.as_deref(), Some("echo two"));
}
