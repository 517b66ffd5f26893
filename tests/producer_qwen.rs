//! Qwen Code fixtures (`tests/fixtures/qwen/`, 0.15.10, and
//! `tests/fixtures/qwen-0.24.4/`, real captures) through the binary: detected
//! without `--from`, every tool call written exactly once (counted
//! independently from the raw lines), every result once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The captures of each version.
const DIRS: [&str; 2] = [
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qwen"),
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qwen-0.24.4"),
];

fn fixtures() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for dir in DIRS {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        v.sort();
        assert!(v.len() >= 10, "fixtures missing in {dir}");
        all.extend(v);
    }
    all
}

/// `streamview --format jsonl FILE` (no `--from`).
fn jsonl(path: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--format", "jsonl", "--color", "never"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "{}: {out:?}",
        path.display()
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn raw(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Blocks of `type` in the `message.content` of lines of type `line_type`.
fn blocks<'a>(lines: &'a [Value], line_type: &str, block: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l["type"] == line_type)
        .filter_map(|l| l["message"]["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == block)
        .collect()
}

fn of_kind<'a>(evs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["kind"] == kind).collect()
}

#[test]
fn detected_without_from() {
    for f in fixtures() {
        let evs = jsonl(&f);
        assert!(!evs.is_empty(), "{}", f.display());
        for e in &evs {
            assert_eq!(e["producer"], "qwen", "{}: {e}", f.display());
        }
    }
}

/// No line is an unknown event, and every line gives an event but the
/// `stream_event`s that announce what the next complete line carries.
#[test]
fn every_line_is_understood() {
    for f in fixtures() {
        let evs = jsonl(&f);
        for e in &evs {
            assert_ne!(e["kind"], "unknown", "{}: {e}", f.display());
        }
        let seen: Vec<u64> = evs.iter().map(|e| e["line"].as_u64().unwrap()).collect();
        for (i, line) in raw(&f).iter().enumerate() {
            let announces = line["type"] == "stream_event"
                && !matches!(
                    line["event"]["type"].as_str(),
                    Some("content_block_delta" | "goal_state")
                );
            assert!(
                announces || seen.contains(&(i as u64 + 1)),
                "{}: line {} gave no event: {line}",
                f.display(),
                i + 1
            );
        }
    }
}

#[test]
fn every_tool_call_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(&f);
        let expected: Vec<&str> = blocks(&lines, "assistant", "tool_use")
            .iter()
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        let calls: Vec<&str> = of_kind(&evs, "tool_call")
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert_eq!(calls, expected, "{}", f.display());
        for c in of_kind(&evs, "tool_call") {
            // Tools that do not exist (the scripted model's calls) have none.
            let unknown_tool = matches!(c["name"].as_str(), Some("no_such_tool" | "todowrite"));
            assert!(
                c["key_arg"].is_string() || unknown_tool,
                "{}: no key argument for {c}",
                f.display()
            );
        }
    }
}

#[test]
fn every_tool_result_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(&f);
        let expected: HashMap<&str, bool> = blocks(&lines, "user", "tool_result")
            .iter()
            .map(|b| {
                (
                    b["tool_use_id"].as_str().unwrap(),
                    b["is_error"].as_bool().unwrap(),
                )
            })
            .collect();
        let results = of_kind(&evs, "tool_result");
        assert_eq!(results.len(), expected.len(), "{}", f.display());
        for r in results {
            let id = r["id"].as_str().unwrap();
            assert_eq!(Some(&r["is_error"].as_bool().unwrap()), expected.get(id));
            assert!(r["name"].is_string(), "{}: unpaired {r}", f.display());
        }
    }
}

#[test]
fn one_result_per_result_line() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(&f);
        let n = lines.iter().filter(|l| l["type"] == "result").count();
        assert_eq!(of_kind(&evs, "result").len(), n, "{}", f.display());
    }
}

/// 0.24 reports a failed API request twice (the assistant text and the
/// result's `error.message`); the pretty output says it once, then that
/// the session failed.
#[test]
fn an_api_error_is_shown_once() {
    let dir = DIRS[1];
    for (name, message, why) in [
        (
            "error_500",
            "[API Error: 500 mock internal error]",
            "(API error 500)",
        ),
        (
            "error_400",
            "[API Error: 400 mock: invalid request (context too long)]",
            "(API error 400)",
        ),
        (
            "stream_error",
            "[API Error: Connection error. (cause: UND_ERR_SOCKET: other side closed)]",
            "(error_during_execution)",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
            .args(["--color", "never"])
            .arg(format!("{dir}/{name}.jsonl"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.matches(message).count(), 1, "{name}:\n{stdout}");
        let failed: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("✗ session failed"))
            .collect();
        assert_eq!(failed.len(), 1, "{name}:\n{stdout}");
        assert!(failed[0].contains(why), "{name}: {}", failed[0]);
    }
}
