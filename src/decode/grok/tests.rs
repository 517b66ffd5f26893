//! Grok CLI's output: the real captures of 0.0.34 (`tests/fixtures/grok/`),
//! through the decoder.

use crate::decode::testing::{
    Event, EventKind, Producer, as_call, as_notice, as_result, as_session_result, replay,
};

fn fixture(name: &str) -> Vec<Event<'static>> {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/grok/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    replay(&text.lines().collect::<Vec<_>>())
}

fn calls(evs: &[Event<'static>]) -> Vec<(String, String, bool)> {
    let failed = |id: &str| {
        evs.iter().any(|e| {
            matches!(e.kind, EventKind::ToolResult(_))
                && as_result(e).id == id
                && as_result(e).is_error
        })
    };
    evs.iter()
        .filter(|e| matches!(e.kind, EventKind::ToolCall(_)))
        .map(|e| {
            let c = as_call(e);
            let key = c.key_arg.as_deref().unwrap_or("").to_string();
            (c.name.to_string(), key, failed(&c.id))
        })
        .collect()
}

fn the_result<'e>(evs: &'e [Event<'static>]) -> &'e crate::event::SessionResult<'static> {
    let r = evs
        .iter()
        .rev()
        .find(|e| matches!(e.kind, EventKind::Result(_)));
    as_session_result(r.expect("a result"))
}

#[test]
fn a_run_is_detected_with_its_calls_and_failures() {
    let evs = fixture("mixed");
    assert!(evs.iter().all(|e| e.producer == Producer::Grok), "{evs:?}");
    let kinds: Vec<_> = evs.iter().take(3).map(|e| e.kind.name()).collect();
    assert_eq!(kinds, ["session_start", "text", "text"]);
    assert_eq!(
        calls(&evs),
        [
            ("bash".into(), "ls -la".into(), false),
            (
                "create_file".into(),
                "/home/dev/work/mixed/ws/hello.txt".into(),
                false
            ),
            (
                "bash".into(),
                "cat hello.txt && cat missing.txt".into(),
                true
            ),
        ]
    );
    // The placeholder of a message with calls is no text.
    assert!(
        !evs.iter().any(
            |e| matches!(&e.kind, EventKind::Text(t) if t.text == "Using tools to help you...")
        )
    );
    let r = the_result(&evs);
    assert!(!r.is_error);
    assert_eq!(r.num_turns, Some(4));
    assert!(!evs.iter().any(|e| matches!(e.kind, EventKind::Unknown(_))));
}

#[test]
fn failures_are_told_by_their_text() {
    let errors: Vec<bool> = calls(&fixture("tool_error")).iter().map(|c| c.2).collect();
    assert_eq!(errors, [true, true, true]);
    let files: Vec<bool> = calls(&fixture("files")).iter().map(|c| c.2).collect();
    assert_eq!(files, [false; 6]);
    let todos = fixture("todos");
    assert_eq!(calls(&todos)[0].1, "2 items");
}

#[test]
fn a_failed_request_answered_as_text_fails_the_session_once() {
    let evs = fixture("error_500");
    let notices: Vec<_> = evs
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Notice(_)))
        .collect();
    assert_eq!(notices.len(), 1);
    assert_eq!(
        as_notice(notices[0]).text,
        "Grok API error: 500 mock internal error"
    );
    let answered = |e: &Event<'_>| matches!(&e.kind, EventKind::Text(t) if t.role == crate::event::Role::Assistant);
    assert!(!evs.iter().any(answered));
    let r = the_result(&evs);
    assert!(r.is_error);
    assert_eq!(r.api_error_status, Some(500));
    let r = fixture("stream_error");
    assert!(the_result(&r).is_error);
    assert_eq!(the_result(&r).api_error_status, None);
}
