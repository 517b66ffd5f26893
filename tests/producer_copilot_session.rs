//! GitHub Copilot CLI's saved sessions (`~/.copilot/session-state/<id>/events.jsonl`)
//! through the binary, each against the `copilot -p … --output-format json`
//! stream of the same run (`tests/fixtures/copilot-session/<name>/session-state/`
//! beside `tests/fixtures/copilot/<name>.jsonl`): the same tool calls (names,
//! key arguments) and outcome, and the tokens the CLI itself totalled in the
//! file's `session.shutdown` (the stream has none).

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{calls, streamview, tokens};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/copilot-session"
);
const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copilot");

const SCENARIOS: [&str; 14] = [
    "error_400",
    "error_500",
    "files",
    "mixed",
    "mixed_nostream",
    "parallel",
    "reasoning",
    "shell_fail",
    "shell_fail_allpaths",
    "shell_ok",
    "stream_error",
    "text",
    "todos",
    "tool_error",
];

/// The session's `events.jsonl`.
fn events_file(name: &str) -> PathBuf {
    let state = Path::new(DIR).join(name).join("session-state");
    let id = std::fs::read_dir(&state).unwrap().next().unwrap().unwrap();
    id.path().join("events.jsonl")
}

/// What the CLI itself totalled (`session.shutdown`'s `modelMetrics`),
/// read without streamview: `inputTokens` holds the cached ones.
fn shutdown_totals(name: &str) -> [u64; 3] {
    let text = std::fs::read_to_string(events_file(name)).unwrap();
    let end: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["type"] == "session.shutdown")
        .unwrap();
    let mut sum = [0; 3];
    for m in end["data"]["modelMetrics"].as_object().unwrap().values() {
        let n = |k: &str| m["usage"][k].as_u64().unwrap();
        sum[0] += n("inputTokens") - n("cacheReadTokens");
        sum[1] += n("outputTokens");
        sum[2] += n("cacheReadTokens");
    }
    sum
}

#[test]
fn each_saved_session_replays_the_calls_and_outcome_of_its_stream() {
    for name in SCENARIOS {
        let stream = Path::new(STREAMS).join(format!("{name}.jsonl"));
        assert_eq!(calls(&events_file(name)), calls(&stream), "{name}");
    }
    assert_eq!(calls(&events_file("files")).0.len(), 6);
    assert_eq!(calls(&events_file("error_500")).1, 1);
}

#[test]
fn each_saved_session_totals_the_tokens_the_cli_counted() {
    for name in SCENARIOS {
        let dir = Path::new(DIR).join(name);
        assert_eq!(tokens(&dir), shutdown_totals(name), "{name}");
    }
    // 4300 input tokens of which 3200 cached, 190 output.
    assert_eq!(shutdown_totals("mixed"), [1100, 190, 3200]);
    assert_eq!(shutdown_totals("error_500"), [0, 0, 0]);
}

#[test]
fn a_saved_session_says_its_folder_version_and_id() {
    let (events, _) = streamview(&["--format", "jsonl"], &events_file("mixed"));
    let start = &events[0];
    assert_eq!(start["kind"], "session_start");
    assert_eq!(start["cwd"], "/home/dev/work/mixed/ws");
    assert_eq!(start["version"], "1.0.102");
    let result = events.iter().find(|e| e["kind"] == "result").unwrap();
    assert_eq!(result["session"], "2b6043f7-15c0-41f0-9679-3a72928fe8f9");
    assert!(events.iter().all(|e| e["kind"] != "unknown"
        || e["raw"]["type"] == "permission.requested"
        || e["raw"]["type"] == "permission.completed"));
}

#[test]
fn latest_from_copilot_reads_copilot_home() {
    let tmp = std::env::temp_dir().join(format!("sv-copilot-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let file = events_file("mixed");
    let id = file.parent().unwrap().file_name().unwrap();
    let to = tmp.join("session-state").join(id);
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(&file, to.join("events.jsonl")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--latest", "--from", "copilot", "--format", "jsonl"])
        .env("COPILOT_HOME", &tmp)
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&tmp).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches("\"kind\":\"tool_call\"").count(), 3);
}
