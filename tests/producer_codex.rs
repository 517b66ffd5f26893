//! Codex `codex exec --json` fixtures through the binary: every tool item
//! of the raw stream is exactly one `tool_call` (and one `tool_result`),
//! every line is read as Codex without `--from`, and the exit status follows
//! the turn's outcome.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/codex");

/// Item types that are tool calls.
const TOOL_ITEMS: [&str; 6] = [
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "web_search",
    "todo_list",
    "collab_tool_call",
];

/// Fixtures whose `codex exec` run exited 1 (`turn.failed`).
const FAILED_RUNS: [&str; 2] = ["error_500.jsonl", "stream_failed.jsonl"];

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    assert!(v.len() >= 12, "fixtures missing in {DIR}");
    v
}

/// Tool calls in the raw stream, counted independently of streamview: the
/// distinct ids of tool items (an item is started, updated and completed
/// under one id) plus `request_user_input` events.
fn raw_tool_calls(path: &Path) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        match v["type"].as_str().unwrap() {
            "item.started" | "item.updated" | "item.completed" => {
                let item = &v["item"];
                if TOOL_ITEMS.contains(&item["type"].as_str().unwrap()) {
                    // serde_json keeps the last of a duplicated key (web_search
                    // items hold `id` twice): still one id per item.
                    ids.insert(item["id"].as_str().unwrap().to_string());
                }
            }
            "request_user_input" => {
                ids.insert(v["call_id"].as_str().unwrap().to_string());
            }
            _ => {}
        }
    }
    ids
}

/// `streamview --format jsonl FILE` (no `--from`): exit code and events.
fn jsonl(path: &Path) -> (i32, Vec<Value>) {
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--format", "jsonl", "--color", "never"])
        .arg(path)
        .output()
        .unwrap();
    let events = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out.status.code().unwrap(), events)
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["kind"] == kind).collect()
}

#[test]
fn every_tool_call_once_with_one_result() {
    let mut total = 0;
    for path in fixtures() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let expected = raw_tool_calls(&path);
        let (_, events) = jsonl(&path);
        let calls = of_kind(&events, "tool_call");
        assert_eq!(calls.len(), expected.len(), "{name}: tool_call count");
        let call_ids: BTreeSet<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
        assert_eq!(call_ids.len(), calls.len(), "{name}: duplicate call ids");
        for c in &calls {
            let key = c["key_arg"].as_str().unwrap_or("");
            assert!(!key.trim().is_empty(), "{name}: call without key_arg: {c}");
        }
        let results = of_kind(&events, "tool_result");
        let result_ids: BTreeSet<&str> =
            results.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(results.len(), result_ids.len(), "{name}: duplicate results");
        assert_eq!(result_ids, call_ids, "{name}: results answer the calls");
        total += calls.len();
    }
    assert!(total >= 15, "only {total} tool calls in the fixtures");
}

#[test]
fn failures_are_tool_errors() {
    let (_, events) = jsonl(&Path::new(DIR).join("shell_fail.jsonl"));
    let errors: Vec<&str> = of_kind(&events, "tool_result")
        .iter()
        .filter(|r| r["is_error"] == true)
        .map(|r| r["content"].as_str().unwrap().lines().next().unwrap_or(""))
        .collect();
    assert_eq!(errors, ["exit code 3", "exit code 1"]);

    let (_, events) = jsonl(&Path::new(DIR).join("apply_patch.jsonl"));
    let failed: Vec<&Value> = of_kind(&events, "tool_result")
        .into_iter()
        .filter(|r| r["is_error"] == true)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["name"], "apply_patch");

    let (_, events) = jsonl(&Path::new(DIR).join("mcp.jsonl"));
    let failed: Vec<&Value> = of_kind(&events, "tool_result")
        .into_iter()
        .filter(|r| r["is_error"] == true)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["name"], "mcp__mockecho__explode");
    assert_eq!(failed[0]["content"], "boom: scripted failure");
}

#[test]
fn detected_without_from() {
    for path in fixtures() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let raw = std::fs::read_to_string(&path).unwrap();
        let (_, events) = jsonl(&path);
        assert!(!events.is_empty(), "{name}");
        for e in &events {
            assert_eq!(e["producer"], "codex", "{name}: {e}");
            assert_ne!(e["kind"], "unknown", "{name}: {e}");
        }
        // Every line gave an event, except the progress of an item whose
        // call is shown (or held back until its key argument is known).
        let seen: BTreeSet<u64> = events.iter().map(|e| e["line"].as_u64().unwrap()).collect();
        for (i, line) in raw.lines().enumerate() {
            if !seen.contains(&(i as u64 + 1)) {
                let v: Value = serde_json::from_str(line).unwrap();
                assert!(
                    v["type"] == "item.updated" || v["type"] == "item.started",
                    "{name}: line {} gave no event: {line}",
                    i + 1
                );
            }
        }
        // The thread id is the session of every event.
        let thread = events[0]["session"].as_str().unwrap();
        assert!(events.iter().all(|e| e["session"] == thread), "{name}");
    }
}

#[test]
fn exit_status_follows_the_turn() {
    for path in fixtures() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let (code, events) = jsonl(&path);
        let results = of_kind(&events, "result");
        assert_eq!(results.len(), 1, "{name}");
        // The captured `codex` exit codes (`*.meta.json` in the corpus).
        let failed = FAILED_RUNS.contains(&name.as_str());
        assert_eq!(results[0]["is_error"], failed, "{name}");
        assert_eq!(code, i32::from(failed), "{name}: streamview exit status");
    }
}

#[test]
fn turn_usage_is_split_into_uncached_and_cached() {
    let (_, events) = jsonl(&Path::new(DIR).join("apply_patch.jsonl"));
    let r = of_kind(&events, "result")[0];
    // input_tokens 7350 includes the 6000 cached ones.
    assert_eq!(r["tokens"]["input"], 1350);
    assert_eq!(r["tokens"]["cache_read"], 6000);
    assert_eq!(r["tokens"]["cache_creation"], 0);
    assert_eq!(r["tokens"]["output"], 335);
    assert!(r["cost_usd"].is_null());
    assert!(r["num_turns"].is_null());
    assert_eq!(
        r["text"],
        "Created and edited `hello.txt`; the last two patches failed."
    );
}

#[test]
fn a_stream_cut_after_a_started_command_is_incomplete() {
    let input = "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n{\"type\":\"item.started\",\"item\":{\"id\":\"item_0\",\"type\":\"command_execution\",\"command\":\"/bin/bash -lc 'sleep 100'\",\"aggregated_output\":\"\",\"exit_code\":null,\"status\":\"in_progress\"}}\n";
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--color", "never"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(input.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("▸ shell sleep 100"), "{stdout}");
    assert!(stdout.contains("stream ended without a result"), "{stdout}");
    assert!(stdout.contains("interrupted: shell sleep 100"), "{stdout}");
}
