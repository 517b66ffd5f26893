//! Gemini CLI decoding on its own floor: an API error's status read from
//! its text, a long answer cut in bounded parts, the tool kinds of names
//! no capture has. What a run writes of Gemini's lines, and the session's
//! outcome, is tested through the pipeline in `tests/producer_gemini.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use super::{TEXT_PART, api_error_status};
use crate::decode::testing::{Event, EventKind, replay};

const TS: &str = r#""timestamp":"2026-11-22T03:55:27.879Z""#;

fn init() -> String {
    format!(r#"{{"type":"init",{TS},"session_id":"s-1","model":"gemini-2.5-pro"}}"#)
}

fn line(body: &str) -> String {
    format!(r"{{{body},{TS}}}")
}

/// Each text of `evs`: its text, and whether the answer goes on.
fn texts_of(evs: &[Event<'static>]) -> Vec<(String, bool)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::Text(t) => Some((t.text.to_string(), t.continues)),
            _ => None,
        })
        .collect()
}

#[test]
fn api_error_statuses() {
    assert_eq!(
        api_error_status(r#"[API Error: {"error":{"code":429,"message":"x"}}]"#),
        Some(429)
    );
    assert_eq!(
        api_error_status(r#"[API Error: {"error": {"code" : 400}}]"#),
        Some(400)
    );
    assert_eq!(api_error_status(r#"{"error":{"code":500}}"#), None);
    assert_eq!(api_error_status("[API Error: fetch failed]"), None);
    assert_eq!(api_error_status(r#"[API Error: {"code":"ABORTED"}]"#), None);
    assert_eq!(
        api_error_status(r#"[API Error: {"code":99999999999999999999999}]"#),
        None
    );
}

/// Issue 18: a long answer is not held whole. It is written in parts of at
/// most `TEXT_PART` bytes, cut between chunks, all but the last saying the
/// answer continues; joined, they are every chunk in order.
#[test]
fn a_long_answer_is_written_in_bounded_parts() {
    let chunk = |i: usize| format!("chunk {i:06} {}\n", "x".repeat(1000));
    let n = 3 * TEXT_PART / chunk(0).len();
    let lines: Vec<String> = std::iter::once(init())
        .chain((0..n).map(|i| {
            line(&format!(
                r#""type":"message","role":"assistant","content":"{}","delta":true"#,
                chunk(i).replace('\n', "\\n")
            ))
        }))
        .chain(std::iter::once(line(
            r#""type":"result","status":"success","stats":{"total_tokens":1}"#,
        )))
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let texts = texts_of(&replay(&refs));
    assert_eq!(texts.len(), 3, "three parts of at most 1 MiB");
    let joined: String = texts.iter().map(|(t, _)| t.as_str()).collect();
    let whole: String = (0..n).map(chunk).collect();
    assert_eq!(joined, whole);
    for (i, (text, continues)) in texts.iter().enumerate() {
        assert!(text.len() <= TEXT_PART);
        assert_eq!(*continues, i + 1 < texts.len(), "{i}");
        assert!(text.starts_with("chunk "), "cut between chunks");
    }
    // An answer within one part is one text that does not continue.
    let evs = replay(&[
        &init(),
        &line(r#""type":"message","role":"assistant","content":"Hi","delta":true"#),
        &line(r#""type":"message","role":"assistant","content":" there","delta":true"#),
    ]);
    assert_eq!(texts_of(&evs), [("Hi there".to_string(), false)]);
}

#[test]
fn tool_kinds_of_names_not_in_the_captures() {
    use super::tool_kind;
    use crate::event::ToolKind;
    // MCP tools of older versions: `<server>__<tool>`.
    assert_eq!(tool_kind("mockecho__echo"), ToolKind::Mcp);
    assert_eq!(tool_kind("search_file_content"), ToolKind::Search);
    assert_eq!(tool_kind("google_web_search"), ToolKind::WebSearch);
    assert_eq!(tool_kind("web_fetch"), ToolKind::Fetch);
    assert_eq!(tool_kind("invoke_agent"), ToolKind::Agent);
    assert_eq!(tool_kind("ask_user"), ToolKind::Other);
}
