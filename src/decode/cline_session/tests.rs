//! Cline CLI's session files: the prompt's wrapper, a running session.
//! The corpus runs are compared with their streams in
//! `tests/producer_cline_session.rs`.

use crate::decode::testing::*;
use crate::event::Role;

/// Every event of `text`'s lines, read as one file, with its end.
fn decode_all(text: &str) -> Vec<Event<'static>> {
    replay(&text.lines().collect::<Vec<_>>())
}

#[test]
fn the_prompt_is_shown_without_its_mode_wrapper() {
    let record = r#"{"session_id":"s","started_at":"2026-11-26T17:44:23.166Z","status":"completed","cwd":"/w","model":"m"}"#;
    let messages = r#"{"sessionId":"s","origin":{},"messages":[{"role":"user","content":[{"type":"text","text":"<user_input mode=\"act\">fix it</user_input>"}]},{"role":"user","content":[{"type":"text","text":"plain"}]}]}"#;
    let events = decode_all(&format!("{record}\n{messages}\n"));
    let prompts: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Text(t) if t.role == Role::User => Some(t.text.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(prompts, ["fix it", "plain"]);
    assert!(events.iter().all(|e| e.producer == Producer::ClineSession));
}

#[test]
fn a_running_session_has_no_result() {
    let record = r#"{"session_id":"s","started_at":"2026-11-26T17:44:23.166Z","status":"running"}"#;
    let events = decode_all(&format!("{record}\n"));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Result(_)))
    );
}
