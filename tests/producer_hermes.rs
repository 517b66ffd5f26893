//! Hermes Agent through the binary: its store (`tests/fixtures/hermes-session/<run>/state.db`,
//! with the request dumps beside it) and its `hermes -z --usage-file`
//! reports (`tests/fixtures/hermes/`). The expected calls, failures,
//! outcomes and tokens are read from the databases and the reports here,
//! with `SQLite` and `serde_json`, never from streamview.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{calls, streamview, tokens};

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hermes-session");
const REPORTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hermes");

/// Every run of the store fixtures.
const RUNS: [&str; 15] = [
    "error_400",
    "error_500",
    "error_500_oneshot",
    "files",
    "mixed",
    "mixed_oneshot",
    "parallel",
    "reasoning",
    "shell_fail",
    "shell_ok",
    "stream_error",
    "text",
    "text_fts",
    "todos",
    "tool_error",
];

/// A `messages` row: role, `tool_calls`, `tool_call_id`, content.
type Message = (String, Option<String>, Option<String>, Option<String>);

fn db(run: &str) -> PathBuf {
    Path::new(DIR).join(run).join("state.db")
}

/// `(tool name, key argument, failed)` of each call, as the store says:
/// the key argument is the `command`, `path` or `pattern` of the call's
/// arguments (a `todo`'s is its items' count), a failure a result whose
/// JSON has a non-null `error`, `success: false` or a non-zero
/// `exit_code`, or the plain-text reply to an unknown tool (the rule of
/// the corpus's README).
fn own_calls(run: &str) -> Vec<(String, String, bool)> {
    let db = Connection::open(db(run)).unwrap();
    let mut q = db
        .prepare("SELECT role, tool_calls, tool_call_id, content FROM messages ORDER BY id")
        .unwrap();
    let rows: Vec<Message> = q
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let failed = |id: &str| {
        rows.iter().any(|(role, _, call, content)| {
            if role != "tool" || call.as_deref() != Some(id) {
                return false;
            }
            let content = content.as_deref().unwrap_or("");
            match serde_json::from_str::<Value>(content) {
                Ok(v) if v.is_object() => {
                    !v["error"].is_null()
                        || v["success"] == false
                        || v["exit_code"].as_i64().is_some_and(|c| c != 0)
                }
                _ => content.contains("does not exist"),
            }
        })
    };
    let mut out = Vec::new();
    for (_, tool_calls, _, _) in &rows {
        let Some(tc) = tool_calls else { continue };
        let tc: Value = serde_json::from_str(tc).unwrap();
        for c in tc.as_array().unwrap() {
            let name = c["function"]["name"].as_str().unwrap().to_string();
            let args: Value =
                serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap();
            let key = match name.as_str() {
                "terminal" => args["command"].as_str().unwrap().to_string(),
                "search_files" => args["pattern"].as_str().unwrap().to_string(),
                "todo" => format!("{} items", args["todos"].as_array().unwrap().len()),
                "no_such_tool" => args["x"].to_string(),
                _ => args["path"].as_str().unwrap().to_string(),
            };
            out.push((name, key, failed(c["id"].as_str().unwrap())));
        }
    }
    out
}

/// The session's tokens in its `sessions` row: uncached input, output
/// (reasoning in it), cache read.
fn own_tokens(run: &str) -> [u64; 3] {
    let db = Connection::open(db(run)).unwrap();
    let sum = |col: &str| -> u64 {
        let n: i64 = db
            .query_row(&format!("SELECT sum({col}) FROM sessions"), [], |r| {
                r.get(0)
            })
            .unwrap();
        u64::try_from(n).unwrap()
    };
    ["input_tokens", "output_tokens", "cache_read_tokens"].map(sum)
}

/// A request dump is beside the store: the session failed.
fn dumped(run: &str) -> bool {
    std::fs::read_dir(Path::new(DIR).join(run).join("sessions"))
        .is_ok_and(|mut d| d.next().is_some())
}

/// The last message is an answer (an assistant's, no calls pending).
fn answered(run: &str) -> bool {
    let db = Connection::open(db(run)).unwrap();
    db.query_row(
        "SELECT role = 'assistant' AND tool_calls IS NULL FROM messages ORDER BY id DESC LIMIT 1",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn each_session_shows_the_calls_and_failures_its_store_holds() {
    for run in RUNS {
        let (shown, _) = calls(&db(run));
        let shown: Vec<_> = (shown.into_iter())
            .map(|(n, k, f)| {
                // The key argument as the store has it (a search's
                // `pattern in dir` read back to its pattern).
                let k = k.split(" in ").next().unwrap().to_string();
                (n, k, f)
            })
            .collect();
        assert_eq!(shown, own_calls(run), "{run}");
    }
    assert_eq!(own_calls("files").len(), 6);
    assert_eq!(own_calls("tool_error").iter().filter(|c| c.2).count(), 3);
    assert_eq!(own_calls("shell_fail").iter().filter(|c| c.2).count(), 1);
}

#[test]
fn the_outcome_is_the_runs_failed_by_its_request_dump() {
    for run in RUNS {
        let (_, status) = calls(&db(run));
        let want = if dumped(run) {
            1
        } else if answered(run) {
            0
        } else {
            3
        };
        assert_eq!(status, want, "{run}");
    }
    // The API errors' own words, as Hermes printed them.
    let (events, _) = streamview(&["--format", "jsonl"], &db("error_400"));
    let text = |e: &Value| e["text"].as_str().unwrap_or("").to_string();
    let said: Vec<String> = (events.iter())
        .filter(|e| e["kind"] == "notice" && e["level"] == "error")
        .map(text)
        .collect();
    let stdout = std::fs::read_to_string(Path::new(DIR).join("error_400/stdout.txt")).unwrap();
    assert_eq!(said, [stdout.trim()]);
}

#[test]
fn the_tokens_are_the_sessions_rows() {
    for run in RUNS {
        assert_eq!(tokens(&db(run)), own_tokens(run), "{run}");
    }
    assert_eq!(own_tokens("mixed"), [1100, 190, 3200]);
}

#[test]
fn a_folder_of_stores_is_a_library_of_their_sessions() {
    let (summary, status) = streamview(&["--format", "summary-json"], Path::new(DIR));
    assert_eq!(status, 0, "a report written");
    assert_eq!(summary[0]["sessions"].as_array().unwrap().len(), RUNS.len());
    let total = &summary[0]["total"];
    let calls: Vec<_> = RUNS.iter().flat_map(|r| own_calls(r)).collect();
    assert_eq!(total["tool_calls"], calls.len());
    assert_eq!(total["tool_errors"], calls.iter().filter(|c| c.2).count());
    let t = &total["tokens"];
    let mut want = [0; 3];
    for run in RUNS {
        for (w, n) in want.iter_mut().zip(own_tokens(run)) {
            *w += n;
        }
    }
    assert_eq!(
        ["input", "output", "cache_read"].map(|k| t[k].as_u64().unwrap()),
        want
    );
}

#[test]
fn a_usage_report_is_a_session_with_its_tokens_and_outcome() {
    for (name, want) in [("mixed_oneshot", 0), ("error_500_oneshot", 1)] {
        let path = Path::new(REPORTS).join(format!("{name}.usage.json"));
        let report: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let (summary, _) = streamview(&["--format", "summary-json"], &path);
        let t = &summary[0]["total"]["tokens"];
        for (ours, theirs) in [
            ("input", "input_tokens"),
            ("output", "output_tokens"),
            ("cache_read", "cache_read_tokens"),
        ] {
            assert_eq!(
                t[ours].as_u64().unwrap_or(0),
                report[theirs].as_u64().unwrap_or(0),
                "{name} {ours}"
            );
        }
        let (events, status) = streamview(&["--format", "jsonl"], &path);
        assert_eq!(status, want, "{name}");
        assert!(events.iter().all(|e| e["producer"] == "hermes"), "{name}");
        assert_eq!(report["failed"] == true, want == 1, "{name}");
    }
}

#[test]
fn a_damaged_store_is_one_line_of_error() {
    let dir = std::env::temp_dir().join(format!("sv-hermes-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("state.db");
    std::fs::write(&path, b"SQLite format 3\0 but nothing after").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_streamview"))
        .arg(&path)
        .output()
        .unwrap();
    // Not a store whose tables can be read: said, never a panic.
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101));
    // A store whose messages hold anything: rows read as they are.
    let db = Connection::open(dir.join("odd.db")).unwrap();
    db.execute_batch(
        "CREATE TABLE sessions (id TEXT, started_at REAL, ended_at REAL, model TEXT, input_tokens INTEGER);
         CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, tool_calls TEXT, tool_call_id TEXT, timestamp REAL);
         INSERT INTO sessions VALUES ('s1', 'not a time', NULL, NULL, -5);
         INSERT INTO messages VALUES (1, 's1', 'assistant', NULL, '[{\"function\": 3}, 7, {\"function\": {\"name\": \"terminal\", \"arguments\": \"{\\\"command\"}}]', NULL, 1e300);
         INSERT INTO messages VALUES (2, 's1', 'tool', '{\"exit_code\": \"x\"}', NULL, 'c', NULL);
         INSERT INTO messages VALUES (3, 's1', 42, X'00ff', '{', NULL, 1.5);",
    )
    .unwrap();
    drop(db);
    std::fs::rename(dir.join("odd.db"), &path).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_streamview"))
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
