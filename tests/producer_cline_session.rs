//! Cline CLI's saved sessions (`~/.cline/data/sessions/<id>/`: the record
//! `<id>.json` and the messages `<id>.messages.json`) through the binary,
//! each against the `cline --json` stream of the same run
//! (`tests/fixtures/cline-session/<name>/sessions/` beside
//! `tests/fixtures/cline/<name>.jsonl`): the same tool calls (names, key
//! arguments, failures) and exit status, and the totals of the stream's
//! `run_result`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{SCENARIOS, calls, streamview, tokens};

use std::path::{Path, PathBuf};

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cline-session");
const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cline");

fn stream(name: &str) -> PathBuf {
    Path::new(STREAMS).join(format!("{name}.jsonl"))
}

/// The run's sessions folder (a library of one session).
fn sessions(name: &str) -> PathBuf {
    Path::new(DIR).join(name).join("sessions")
}

/// The stream's `run_result` totals, without streamview: uncached input
/// (`inputTokens` counts the cached part), output, cache read.
fn run_result(name: &str) -> [u64; 3] {
    let text = std::fs::read_to_string(stream(name)).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let u = &last["aggregateUsage"];
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    [
        n("inputTokens") - n("cacheReadTokens"),
        n("outputTokens"),
        n("cacheReadTokens"),
    ]
}

#[test]
fn each_saved_session_replays_the_calls_and_outcome_of_its_stream() {
    for name in SCENARIOS {
        let (mut saved, status) = calls(&sessions(name));
        let (mut live, live_status) = calls(&stream(name));
        assert_eq!(status, live_status, "{name}");
        // `parallel`: the saved message holds both calls, then both
        // results; the stream shows each call with its result.
        saved.sort();
        live.sort();
        assert_eq!(saved, live, "{name}");
    }
    assert_eq!(calls(&sessions("files")).0.len(), 6);
    assert_eq!(calls(&sessions("error_500")).1, 1);
}

#[test]
fn each_saved_session_totals_the_tokens_of_its_streams_result() {
    for name in SCENARIOS {
        assert_eq!(tokens(&sessions(name)), run_result(name), "{name}");
    }
    assert_eq!(tokens(&sessions("files")), [2450, 340, 5600]);
}

#[test]
fn a_saved_session_names_its_agent_project_prompt_and_error() {
    let (summary, _) = streamview(&["--format", "summary-json"], &sessions("mixed"));
    let row = &summary[0]["sessions"][0];
    assert_eq!(row["producer"], "cline-session");
    assert_eq!(row["project"], "/home/dev/work/mixed/ws");
    assert_eq!(row["model"], "mock-model");
    // The prompt without its `<user_input mode="act">` wrapper.
    assert!(
        row["title"]
            .as_str()
            .unwrap()
            .starts_with("[scenario:mixed]"),
        "{row}"
    );
    let (events, status) = streamview(&["--format", "jsonl"], &sessions("error_500"));
    assert_eq!(status, 1);
    let result = events.iter().find(|e| e["kind"] == "result").unwrap();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["errors"][0], "mock internal error");
    // The error is the result's, not an answer of the assistant's.
    assert!(
        !events
            .iter()
            .any(|e| e["kind"] == "text" && e["role"] == "assistant"),
        "{events:?}"
    );
}
