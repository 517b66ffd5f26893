//! Kimi CLI through the binary: its `kimi --print --output-format
//! stream-json` streams (`tests/fixtures/kimi/`) and the saved session of
//! the same run (`tests/fixtures/kimi-session/<name>/sessions/`, the
//! `wire.jsonl` with its `context.jsonl` beside it): the same tool calls
//! (names, key arguments, failures) and exit status, and the tokens Kimi
//! recorded (`StatusUpdate.token_usage`, summed here without streamview).

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{SCENARIOS, calls, streamview, tokens};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kimi-session");
const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kimi");

/// The runs whose stream is only the text of a failed request.
const FAILED_REQUESTS: [&str; 3] = ["error_400", "error_500", "stream_error"];

fn stream(name: &str) -> PathBuf {
    Path::new(STREAMS).join(format!("{name}.jsonl"))
}

fn sessions(name: &str) -> PathBuf {
    Path::new(DIR).join(name).join("sessions")
}

/// The session's `wire.jsonl`.
fn wire(name: &str) -> PathBuf {
    let group = std::fs::read_dir(sessions(name))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let id = std::fs::read_dir(group.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    id.path().join("wire.jsonl")
}

/// The sum of the session's `StatusUpdate.token_usage`, read without
/// streamview: uncached input, output, cache read.
fn wire_usage(name: &str) -> [u64; 3] {
    let text = std::fs::read_to_string(wire(name)).unwrap();
    let mut sum = [0; 3];
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        if v["message"]["type"] == "StatusUpdate" {
            let u = &v["message"]["payload"]["token_usage"];
            for (s, k) in sum
                .iter_mut()
                .zip(["input_other", "output", "input_cache_read"])
            {
                *s += u[k].as_u64().unwrap();
            }
        }
    }
    sum
}

/// `(name, key argument, failed)` of each call of the stream read as
/// Kimi's, and the exit status.
fn stream_calls(name: &str) -> (Vec<(String, String, bool)>, i32) {
    let (events, status) = streamview(&["--from", "kimi", "--format", "jsonl"], &stream(name));
    let failed = |id: &Value| {
        events
            .iter()
            .any(|e| e["kind"] == "tool_result" && &e["id"] == id && e["is_error"] == true)
    };
    let calls = events
        .iter()
        .filter(|e| e["kind"] == "tool_call")
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (s("name"), s("key_arg"), failed(&e["id"]))
        })
        .collect();
    (calls, status)
}

#[test]
fn each_saved_session_replays_the_calls_and_outcome_of_its_stream() {
    for name in SCENARIOS.into_iter().chain(["todos"]) {
        assert_eq!(calls(&sessions(name)), stream_calls(name), "{name}");
        if !FAILED_REQUESTS.contains(&name) {
            // Detected without `--from`.
            assert_eq!(calls(&stream(name)), stream_calls(name), "{name}");
        }
    }
    assert_eq!(calls(&sessions("files")).0.len(), 6);
    assert_eq!(
        calls(&sessions("tool_error"))
            .0
            .iter()
            .filter(|c| c.2)
            .count(),
        3
    );
    for name in FAILED_REQUESTS {
        assert_eq!(stream_calls(name).1, 1, "{name}");
    }
    // The call whose arguments the stream cut short, whole in the session.
    let (parallel, _) = streamview(&["--format", "jsonl"], &sessions("parallel"));
    let second = parallel
        .iter()
        .filter(|e| e["kind"] == "tool_call")
        .nth(1)
        .unwrap();
    assert_eq!(second["input"]["description"], "second");
}

#[test]
fn each_saved_session_totals_the_tokens_kimi_recorded() {
    for name in SCENARIOS.into_iter().chain(["todos"]) {
        assert_eq!(tokens(&sessions(name)), wire_usage(name), "{name}");
    }
    assert_eq!(wire_usage("mixed"), [1100, 190, 3200]);
    assert_eq!(wire_usage("error_500"), [0, 0, 0]);
}

#[test]
fn its_times_are_seconds_not_milliseconds() {
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--by", "day", "--format", "summary-json"])
        .arg(sessions("mixed"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2026-12-02"), "{text}");
    assert!(!text.contains("1970"), "{text}");
}

#[test]
fn latest_from_kimi_reads_kimi_share_dir() {
    let tmp = std::env::temp_dir().join(format!("sv-kimi-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let file = wire("mixed");
    let to = tmp.join("sessions/group/id");
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(&file, to.join("wire.jsonl")).unwrap();
    std::fs::copy(
        file.with_file_name("context.jsonl"),
        to.join("context.jsonl"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--latest", "--from", "kimi", "--format", "jsonl"])
        .env("KIMI_SHARE_DIR", &tmp)
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&tmp).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    // One session, its wire log's (not its context's too).
    assert_eq!(text.matches("\"kind\":\"tool_call\"").count(), 3);
    assert!(text.contains("\"producer\":\"kimi-session\""), "{text}");
}

/// The working folder of a run, as its prompt names it (`[ws:<path>]`:
/// the corpus's runs were told it), not from `kimi.json` and its MD5s,
/// which are streamview's way to it.
fn prompt_folder(name: &str) -> String {
    let text = std::fs::read_to_string(wire(name)).unwrap();
    let at = text.find("[ws:").unwrap() + 4;
    let end = at + text[at..].find(']').unwrap();
    text[at..end].to_string()
}

#[test]
fn each_saved_session_is_of_the_folder_kimi_json_names() {
    for name in SCENARIOS {
        let (events, _) = streamview(&["--format", "jsonl"], &sessions(name));
        let start = events
            .iter()
            .find(|e| e["kind"] == "session_start")
            .unwrap();
        assert_eq!(start["cwd"], prompt_folder(name).as_str(), "{name}");
    }
    // `--project` picks a session by it.
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--project", "mixed/ws", "--format", "summary-json"])
        .arg(DIR)
        .output()
        .unwrap();
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = summary["sessions"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{summary}");
    assert_eq!(found[0]["project"], "/home/dev/work/mixed/ws");
    // Without `kimi.json` beside the sessions, no folder (none is guessed).
    let tmp = std::env::temp_dir().join(format!("sv-kimi-nojson-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let from = wire("mixed");
    let group = from
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .file_name()
        .unwrap();
    let to = tmp.join("sessions").join(group).join("id");
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(&from, to.join("wire.jsonl")).unwrap();
    let (events, _) = streamview(&["--format", "jsonl"], &tmp);
    std::fs::remove_dir_all(&tmp).unwrap();
    assert_eq!(events[0]["cwd"], Value::Null);
}
