//! Grok CLI's `grok -p` output through the binary (`tests/fixtures/grok/`):
//! each call (name, key argument) as its assistant message names it, each
//! failure as its tool message's text says it, and the exit status from its
//! last message, all read here from the files without streamview.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{calls, streamview};

use std::path::{Path, PathBuf};

use serde_json::Value;

const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/grok");

const RUNS: [&str; 12] = [
    "error_400",
    "error_500",
    "files",
    "mixed",
    "parallel",
    "reasoning",
    "shell_fail",
    "shell_ok",
    "stream_error",
    "text",
    "todos",
    "tool_error",
];

fn stream(name: &str) -> PathBuf {
    Path::new(STREAMS).join(format!("{name}.jsonl"))
}

/// The calls and exit status the file says: each call's name and the
/// argument that says what it does, failed when its tool message begins
/// with an error's text; 1 when the last message is an error, else 0.
fn expected(name: &str) -> (Vec<(String, String, bool)>, i32) {
    let text = std::fs::read_to_string(stream(name)).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let output = |id: &Value| {
        let m = lines
            .iter()
            .find(|m| m["role"] == "tool" && &m["tool_call_id"] == id);
        m.unwrap()["content"].as_str().unwrap().to_string()
    };
    let failure = [
        "Command failed: ",
        "File not found: ",
        "File or directory not found: ",
        "Unknown tool: ",
    ];
    let mut calls = Vec::new();
    for m in &lines {
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            let f = &c["function"];
            let args: Value = serde_json::from_str(f["arguments"].as_str().unwrap()).unwrap();
            let key = match &args {
                Value::Object(o) if o.contains_key("todos") => {
                    format!("{} items", args["todos"].as_array().unwrap().len())
                }
                Value::Object(o) => ["command", "path", "query", "x"]
                    .iter()
                    .find_map(|k| o.get(*k))
                    .map(|v| v.as_str().map_or(v.to_string(), str::to_string))
                    .unwrap(),
                _ => String::new(),
            };
            let out = output(&c["id"]);
            let failed = failure.iter().any(|p| out.starts_with(p));
            calls.push((f["name"].as_str().unwrap().to_string(), key, failed));
        }
    }
    let last = lines.last().unwrap()["content"].as_str().unwrap();
    let status = i32::from(last.starts_with("Sorry, I encountered an error:"));
    (calls, status)
}

#[test]
fn every_run_shows_the_calls_failures_and_outcome_of_its_file() {
    for name in RUNS {
        assert_eq!(calls(&stream(name)), expected(name), "{name}");
    }
    assert_eq!(expected("files").0.len(), 6);
    assert_eq!(expected("tool_error").0.iter().filter(|c| c.2).count(), 3);
    assert_eq!(expected("error_500").1, 1);
}

#[test]
fn it_reports_no_tokens_and_names_its_producer() {
    let (events, status) = streamview(&["--format", "jsonl"], &stream("mixed"));
    assert_eq!(status, 0);
    assert!(events.iter().all(|e| e["producer"] == "grok"));
    assert!(!events.iter().any(|e| e["kind"] == "usage"));
    let (summary, _) = streamview(&["--format", "summary-json"], &stream("mixed"));
    let t = &summary[0]["total"]["tokens"];
    assert!(
        ["input", "output"]
            .iter()
            .all(|k| t[*k].as_u64().unwrap_or(0) == 0),
        "{t}"
    );
}
