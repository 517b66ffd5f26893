//! Qwen Code's saved sessions (`~/.qwen/projects/<project>/chats/`) through
//! the binary, each against what the same run printed and recorded
//! (`tests/fixtures/qwen-session/`: `<name>/projects/` is the run's
//! `~/.qwen/projects/`, beside `stream/<name>.jsonl`, its
//! `--output-format stream-json` stream, and `stream/<name>.usage_record.json`,
//! the line the CLI appended to `~/.qwen/usage_record.jsonl`): the same tool
//! calls (names, key arguments) as the stream, and the tokens the CLI
//! itself counted.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{named_calls as calls, streamview, tokens};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qwen-session");

const SCENARIOS: [&str; 7] = [
    "mixed",
    "tool_error",
    "parallel",
    "shell_fail",
    "reasoning",
    "error_500",
    "subagent",
];

/// What the CLI itself counted (its usage record, every request of the
/// session): `inputTokens` holds the cached ones.
fn recorded(name: &str) -> [u64; 3] {
    let path = Path::new(DIR)
        .join("stream")
        .join(format!("{name}.usage_record.json"));
    let Ok(text) = std::fs::read_to_string(path) else {
        return [0; 3];
    };
    let record: Value = serde_json::from_str(&text).unwrap();
    let mut sum = [0; 3];
    for m in record["models"].as_object().unwrap().values() {
        let n = |k: &str| m[k].as_u64().unwrap();
        sum[0] += n("inputTokens") - n("cachedTokens");
        sum[1] += n("outputTokens");
        sum[2] += n("cachedTokens");
    }
    sum
}

/// The stream's own `result.usage`, read without streamview.
fn stream_usage(name: &str) -> [u64; 3] {
    let text = std::fs::read_to_string(stream(name)).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let u = &last["usage"];
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    let cached = n("cache_read_input_tokens");
    [n("input_tokens") - cached, n("output_tokens"), cached]
}

fn stream(name: &str) -> PathBuf {
    Path::new(DIR).join("stream").join(format!("{name}.jsonl"))
}

fn projects(name: &str) -> PathBuf {
    Path::new(DIR).join(name).join("projects")
}

#[test]
fn each_saved_session_replays_the_calls_its_stream_shows() {
    for name in SCENARIOS {
        assert_eq!(calls(&projects(name)), calls(&stream(name)), "{name}");
    }
    assert_eq!(
        calls(&projects("subagent")),
        [
            (
                "agent".into(),
                "general-purpose: Inventory the workspace".into()
            ),
            (
                "run_shell_command".into(),
                "ls -la /home/dev/qwen/subagent/ws".into()
            ),
            (
                "read_file".into(),
                "/home/dev/qwen/subagent/ws/notes.txt".into()
            ),
        ]
    );
}

#[test]
fn each_saved_session_totals_the_tokens_the_cli_counted() {
    for name in SCENARIOS {
        let want = recorded(name);
        assert_eq!(want, stream_usage(name), "{name}: record and stream agree");
        assert_eq!(tokens(&projects(name)), want, "{name}");
    }
    // `mixed`: 4300 prompt tokens of which 3200 cached, 190 output; the
    // cached ones are not counted twice (ccusage's total is 7698).
    assert_eq!(recorded("mixed"), [1100, 190, 3200]);
    // The auto-memory helper's call is only in the telemetry.
    assert_eq!(recorded("reasoning"), [450, 80, 1600]);
}

#[test]
fn a_failed_session_fails_as_its_stream_does() {
    let (events, status) = streamview(&["--format", "jsonl"], &projects("error_500"));
    assert_eq!(status, 1);
    let result = events.iter().find(|e| e["kind"] == "result").unwrap();
    assert_eq!(result["is_error"], true);
    let (_, ok) = streamview(&["--format", "jsonl"], &projects("mixed"));
    assert_eq!(ok, 0);
}

#[test]
fn the_sub_agent_is_nested_under_its_call() {
    let (events, _) = streamview(&["--format", "jsonl"], &projects("subagent"));
    let nested: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "tool_call" && e["parent"] == "call_0025")
        .collect();
    assert_eq!(nested.len(), 2);
    assert!(events.iter().all(|e| e["producer"] == "qwen-session"));
}

#[test]
fn latest_from_qwen_reads_qwen_home() {
    let tmp = std::env::temp_dir().join(format!("sv-qwen-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let from = projects("mixed");
    let project = std::fs::read_dir(&from).unwrap().next().unwrap().unwrap();
    let chats = tmp.join("projects").join(project.file_name()).join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    for f in std::fs::read_dir(project.path().join("chats")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, chats.join(f.file_name().unwrap())).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--latest", "--from", "qwen", "--format", "jsonl"])
        .env("QWEN_HOME", &tmp)
        .env_remove("QWEN_RUNTIME_DIR")
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&tmp).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches("\"kind\":\"tool_call\"").count(), 3);
    assert!(text.contains("\"producer\":\"qwen-session\""));
}

/// Qwen Code's home as the corpus copied it (`home/.qwen`: two runs'
/// `projects/` and the `usage_record.jsonl` the CLI appended a line to
/// after each): its sessions only, the record no session of its own
/// (it was a Claude stream without a result, exit 3), and the tokens the
/// record counted.
#[test]
fn a_qwen_home_reads_as_its_sessions_only() {
    let home = Path::new(DIR).join("home/.qwen");
    let chats = std::fs::read_dir(home.join("projects"))
        .unwrap()
        .map(|p| {
            std::fs::read_dir(p.unwrap().path().join("chats"))
                .unwrap()
                .count()
        })
        .sum::<usize>();
    let record = std::fs::read_to_string(home.join("usage_record.jsonl")).unwrap();
    let mut want = [0; 3];
    for line in record.lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        for m in r["models"].as_object().unwrap().values() {
            let n = |k: &str| m[k].as_u64().unwrap();
            want[0] += n("inputTokens") - n("cachedTokens");
            want[1] += n("outputTokens");
            want[2] += n("cachedTokens");
        }
    }
    assert_eq!(record.lines().count(), chats);
    let (summary, status) = streamview(&["--format", "summary-json"], &home);
    assert_eq!(status, 0);
    let sessions = summary[0]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), chats);
    assert!(sessions.iter().all(|s| s["producer"] == "qwen-session"));
    assert_eq!(tokens(&home), want);
}
