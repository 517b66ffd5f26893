//! Gemini CLI's saved sessions (`~/.gemini/tmp/<project>/chats/`) through
//! the binary, each against the `--output-format stream-json` stream of the
//! same run (`tests/fixtures/gemini-session/`: `<name>/chats/` beside
//! `stream/<name>.jsonl`): the same tool calls (names, key arguments) and
//! the same token totals; and the older one-document form read as the
//! newer.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{named_calls as calls, streamview, tokens};

use std::path::{Path, PathBuf};
use std::process::Command;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gemini-session");

const SCENARIOS: [&str; 7] = [
    "files",
    "shell_fail",
    "tool_error",
    "parallel",
    "thinking",
    "error_500",
    "subagent",
];

fn stream(name: &str) -> PathBuf {
    Path::new(DIR).join("stream").join(format!("{name}.jsonl"))
}

/// The session's own file (not its sub-agents').
fn main_file(name: &str) -> PathBuf {
    let chats = Path::new(DIR).join(name).join("chats");
    std::fs::read_dir(&chats)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap()
}

#[test]
fn each_saved_session_replays_the_calls_its_stream_shows() {
    for name in SCENARIOS {
        let stream_calls = calls(&stream(name));
        assert_eq!(calls(&main_file(name)), stream_calls, "{name}");
    }
    assert_eq!(
        calls(&stream("files")).len(),
        6,
        "the files scenario's six tools"
    );
}

#[test]
fn each_saved_session_totals_the_tokens_its_stream_reports() {
    for name in SCENARIOS {
        let dir = Path::new(DIR).join(name);
        assert_eq!(tokens(&dir), tokens(&stream(name)), "{name}");
    }
    assert_eq!(tokens(&stream("files")), [7140, 189, 0]);
    // The sub-agent's own file holds its share of the stream's total.
    assert_eq!(tokens(&stream("subagent")), [4660, 149, 0]);
    assert_eq!(tokens(&main_file("subagent")), [1840, 61, 0]);
}

#[test]
fn a_sub_agent_file_replays_its_own_calls() {
    let dir = Path::new(DIR).join("subagent");
    let names: Vec<String> = calls(&dir).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "invoke_agent",
            "list_directory",
            "read_file",
            "complete_task"
        ]
    );
}

#[test]
fn the_older_one_document_form_reads_as_the_newer() {
    let older = Path::new(DIR).join("older");
    assert_eq!(calls(&older), calls(&main_file("files")));
    assert_eq!(tokens(&older), [7140, 189, 0]);
    let (events, status) = streamview(&["--format", "jsonl"], &older);
    assert_eq!(status, 0);
    assert!(events.iter().all(|e| e["kind"] != "skipped"));
}

/// A folder of 2025 chats copied out of `chats/` (a backup, a download):
/// each `session-*.json` read as when named, as when under `chats/`.
#[test]
fn a_folder_of_older_documents_reads_as_the_named_files() {
    let chats = Path::new(DIR).join("older/chats");
    let tmp = std::env::temp_dir().join(format!("sv-gemini-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let mut named = Vec::new();
    for f in std::fs::read_dir(&chats).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, tmp.join(f.file_name().unwrap())).unwrap();
        named.extend(calls(&f));
    }
    assert!(!named.is_empty());
    let folder = calls(&tmp);
    let tokens_of_folder = tokens(&tmp);
    std::fs::remove_dir_all(&tmp).unwrap();
    assert_eq!(folder, named);
    assert_eq!(tokens_of_folder, tokens(&chats));
}

#[test]
fn a_failed_shell_command_is_a_failure() {
    let (events, _) = streamview(&["--format", "jsonl"], &main_file("shell_fail"));
    let result = events.iter().find(|e| e["kind"] == "tool_result").unwrap();
    assert_eq!(result["is_error"], true);
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("exit code 3\n")
    );
}

#[test]
fn latest_from_gemini_reads_gemini_cli_home() {
    // `$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/`, in a temporary home.
    let tmp = std::env::temp_dir().join(format!("sv-gemini-home-{}", std::process::id()));
    let chats = tmp.join(".gemini/tmp/ws/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let file = main_file("files");
    std::fs::copy(&file, chats.join(file.file_name().unwrap())).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--latest", "--from", "gemini", "--format", "jsonl"])
        .env("GEMINI_CLI_HOME", &tmp)
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&tmp).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches("\"kind\":\"tool_call\"").count(), 6);
}
