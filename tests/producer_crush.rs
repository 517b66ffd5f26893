//! Crush through the binary: its stores (`tests/fixtures/crush-session/<project>/.crush/crush.db`,
//! built from Crush's schema) and `projects.json`, the list of them. The
//! expected calls, failures, outcomes, tokens and cost are read from the
//! databases here, with `SQLite`, never from streamview.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{calls, streamview};

use std::path::{Path, PathBuf};
use std::process::Command;

use rusqlite::Connection;
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crush-session");

const PROJECTS: [&str; 2] = ["alpha", "beta"];

fn db(project: &str) -> PathBuf {
    Path::new(DIR).join(project).join(".crush/crush.db")
}

fn open(project: &str) -> Connection {
    Connection::open(db(project)).unwrap()
}

/// `(tool name, key argument, failed)` of each call of the store, sorted:
/// the key argument is the `command`, `file_path`, `pattern` or `prompt`
/// of the call's `input`, a failure a `tool_result` with `is_error`.
fn own_calls(project: &str) -> Vec<(String, String, bool)> {
    let db = open(project);
    let mut q = db
        .prepare(
            "SELECT json_extract(p.value, '$.data.name'), json_extract(p.value, '$.data.input'),
                    EXISTS (SELECT 1 FROM messages r, json_each(r.parts) q
                            WHERE json_extract(q.value, '$.type') = 'tool_result'
                              AND json_extract(q.value, '$.data.tool_call_id') = json_extract(p.value, '$.data.id')
                              AND json_extract(q.value, '$.data.is_error'))
             FROM messages m, json_each(m.parts) p
             WHERE json_extract(p.value, '$.type') = 'tool_call'",
        )
        .unwrap();
    let mut out: Vec<(String, String, bool)> = q
        .query_map([], |r| Ok((r.get(0)?, r.get::<_, String>(1)?, r.get(2)?)))
        .unwrap()
        .map(|r| {
            let (name, input, failed): (String, String, bool) = r.unwrap();
            let args: Value = serde_json::from_str(&input).unwrap();
            let key = ["command", "file_path", "pattern", "prompt"]
                .iter()
                .find_map(|k| args[k].as_str())
                .unwrap()
                .to_string();
            (name, key, failed)
        })
        .collect();
    out.sort();
    out
}

/// Each session that is no sub-agent's: its id, the exit status its last
/// assistant message's `finish` part says (`end_turn` 0, `error` 1, none
/// 3), its tokens (its row's and its sub-agents' rows': prompt,
/// completion) and its cost (its row's), in the order they began.
fn own_sessions(project: &str) -> Vec<(String, i32, [u64; 2], f64)> {
    let db = open(project);
    let mut q = db
        .prepare(
            "SELECT s.id,
               (SELECT json_extract(p.value, '$.data.reason') FROM messages m, json_each(m.parts) p
                WHERE m.session_id = s.id AND m.role = 'assistant'
                  AND json_extract(p.value, '$.type') = 'finish'
                ORDER BY m.rowid DESC LIMIT 1),
               s.prompt_tokens + coalesce((SELECT sum(prompt_tokens) FROM sessions c WHERE c.parent_session_id = s.id), 0),
               s.completion_tokens + coalesce((SELECT sum(completion_tokens) FROM sessions c WHERE c.parent_session_id = s.id), 0),
               s.cost
             FROM sessions s WHERE s.parent_session_id IS NULL
             ORDER BY CASE WHEN s.created_at > 1e11 THEN s.created_at / 1000 ELSE s.created_at END",
        )
        .unwrap();
    q.query_map([], |r| {
        let status = match r.get::<_, Option<String>>(1)?.as_deref() {
            Some("end_turn") => 0,
            Some("error") => 1,
            _ => 3,
        };
        let n = |i| r.get::<_, i64>(i).map(|n| u64::try_from(n).unwrap());
        Ok((r.get(0)?, status, [n(2)?, n(3)?], r.get(4)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

#[test]
fn each_store_shows_the_calls_and_failures_it_holds() {
    for p in PROJECTS {
        let (mut shown, _) = calls(&db(p));
        for c in &mut shown {
            // A search's `pattern in dir` read back to its pattern.
            c.1 = c.1.split(" in ").next().unwrap().to_string();
        }
        shown.sort();
        assert_eq!(shown, own_calls(p), "{p}");
    }
    assert_eq!(own_calls("alpha").len(), 6);
    assert_eq!(own_calls("alpha").iter().filter(|c| c.2).count(), 1);
    assert_eq!(own_calls("beta").len(), 1);
}

#[test]
fn each_sessions_outcome_tokens_and_cost_are_its_rows() {
    for p in PROJECTS {
        let (summary, _) = streamview(&["--format", "summary-json"], &db(p));
        let shown = summary[0]["sessions"].as_array().unwrap();
        let own = own_sessions(p);
        assert_eq!(shown.len(), own.len(), "{p}: a sub-agent is no session");
        for (s, (id, status, tokens, cost)) in shown.iter().zip(&own) {
            assert_eq!(s["session"], id.as_str(), "{p}");
            let outcome = match status {
                0 => "success",
                1 => "error",
                _ => "incomplete",
            };
            assert_eq!(s["outcome"], outcome, "{p} {id}");
            let t = &s["tokens"];
            assert_eq!(
                [t["input"].as_u64().unwrap(), t["output"].as_u64().unwrap()],
                *tokens,
                "{p} {id}"
            );
            // Reported, not estimated.
            assert!(
                (s["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-12,
                "{p} {id}"
            );
            assert_eq!(s["cost_estimated"], false, "{p} {id}");
        }
    }
    let alpha = own_sessions("alpha");
    assert_eq!(
        alpha[2].2,
        [2100 + 2600, 60 + 40],
        "the sub-agent's tokens added"
    );
    assert!(
        (alpha[2].3 - 0.00121).abs() < 1e-12,
        "its cost in its parent's"
    );
    assert_eq!(
        own_sessions("beta").iter().map(|s| s.1).collect::<Vec<_>>(),
        [1, 3]
    );
}

#[test]
fn exit_status_and_names_in_jsonl() {
    // A store's sessions read as a library: the last one's outcome (cut
    // short), one session the outcome of its own.
    let status = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
            .args(args)
            .output()
            .unwrap();
        out.status.code()
    };
    let beta = db("beta");
    let beta = beta.to_str().unwrap();
    assert_eq!(status(&[beta]), Some(3));
    assert_eq!(status(&["--latest", beta]), Some(3));
    let (events, _) = streamview(&["--format", "jsonl"], &db("beta"));
    assert!(
        events.iter().all(|e| e["producer"] == "crush"),
        "{events:?}"
    );
    let said: Vec<&str> = (events.iter())
        .filter(|e| e["kind"] == "notice" && e["level"] == "error")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        said,
        ["Rate limit exceeded: 429 Too Many Requests: retry after 20s"]
    );
    // The error's session began at its row's time, given in milliseconds.
    let start = (events.iter())
        .find(|e| e["kind"] == "session_start" && e["session"] == "b1")
        .unwrap();
    assert_eq!(start["timestamp"], "2025-12-02T12:00:00.000Z");
    let alpha = db("alpha");
    assert_eq!(status(&[alpha.to_str().unwrap()]), Some(0));
    let (events, _) = streamview(&["--format", "jsonl"], &alpha);
    // The sub-agent's events nested under the call that ran it.
    let nested: Vec<&str> = (events.iter())
        .filter(|e| !e["parent"].is_null())
        .map(|e| e["parent"].as_str().unwrap())
        .collect();
    assert!(
        !nested.is_empty() && nested.iter().all(|p| *p == "call_ag1"),
        "{nested:?}"
    );
    // The producer and the agent are both named `crush`.
    let (summary, _) = streamview(&["--format", "summary-json"], &db("alpha"));
    assert_eq!(summary[0]["total"]["producer"], "crush");
}

/// Crush's folder with `projects.json` listing copies of both projects, in
/// a temporary home; the folder and the home.
fn crush_home(name: &str) -> (PathBuf, PathBuf) {
    let home = std::env::temp_dir().join(format!("sv-crush-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let mut projects = Vec::new();
    for p in PROJECTS {
        let data = home.join("work").join(p).join(".crush");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::copy(db(p), data.join("crush.db")).unwrap();
        projects.push(serde_json::json!({
            "path": home.join("work").join(p),
            "data_dir": data,
            "last_accessed": "2025-12-02T13:00:01Z",
        }));
    }
    let global = home.join("global");
    std::fs::create_dir_all(&global).unwrap();
    let list = serde_json::json!({ "projects": projects });
    std::fs::write(global.join("projects.json"), list.to_string()).unwrap();
    (global, home)
}

fn run(args: &[&str], home: &Path, global: &Path) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_DATA_HOME")
        .env("CRUSH_GLOBAL_DATA", global)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn projects_json_leads_to_each_projects_store() {
    let (global, home) = crush_home("list");
    let want: usize = PROJECTS.iter().map(|p| own_sessions(p).len()).sum();
    let sessions = |text: &str| -> usize {
        let v: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        v["sessions"].as_array().unwrap().len()
    };
    // The folder named, `projects.json` named, `--latest --from crush`.
    let g = global.to_str().unwrap();
    let (named, _) = run(&["--format", "summary-json", g], &home, &global);
    assert_eq!(sessions(&named), want);
    let list = global.join("projects.json");
    let (listed, _) = run(
        &["--format", "summary-json", list.to_str().unwrap()],
        &home,
        &global,
    );
    assert_eq!(sessions(&listed), want);
    // A folder holding the projects and the list: each store read once.
    let (both, _) = run(
        &["--format", "summary-json", home.to_str().unwrap()],
        &home,
        &global,
    );
    assert_eq!(sessions(&both), want);
    let (latest, status) = run(
        &["--latest", "--from", "crush", "--format", "jsonl"],
        &home,
        &global,
    );
    assert_eq!(status, 3, "{latest}");
    assert!(latest.contains("\"session\":\"b2\""), "{latest}");
    assert!(!latest.contains("\"session\":\"a1\""), "{latest}");
    // `--list`, `--by project` and `--project` know the projects' folders.
    let (listing, _) = run(&["--from", "crush", "--list", g], &home, &global);
    assert!(listing.contains("Run the build"), "{listing}");
    let (by, status) = run(&["--all-agents", "--by", "project"], &home, &global);
    assert_eq!(status, 0, "{by}");
    for p in PROJECTS {
        assert!(by.contains(p), "{by}");
    }
    let alpha = home.join("work/alpha");
    let (only, _) = run(
        &[
            "--all-agents",
            "--project",
            alpha.to_str().unwrap(),
            "--format",
            "summary-json",
        ],
        &home,
        &global,
    );
    std::fs::remove_dir_all(&home).unwrap();
    assert_eq!(sessions(&only), own_sessions("alpha").len(), "{only}");
}

#[test]
fn a_damaged_store_is_one_line_of_error() {
    let dir = std::env::temp_dir().join(format!("sv-crush-bad-{}/.crush", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("crush.db");
    std::fs::write(&path, b"SQLite format 3\0 but nothing after").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101));
    // A store whose rows hold anything: read as they are.
    let _ = std::fs::remove_file(&path);
    let db = Connection::open(&path).unwrap();
    db.execute_batch(
        "CREATE TABLE sessions (id TEXT, parent_session_id TEXT, prompt_tokens INTEGER, cost REAL, created_at INTEGER, updated_at INTEGER);
         CREATE TABLE messages (id TEXT, session_id TEXT, role TEXT, parts TEXT, model TEXT, created_at INTEGER);
         INSERT INTO sessions VALUES ('s1', NULL, -5, 'x', 'not a time', 1e300);
         INSERT INTO sessions VALUES ('s2', 's2', NULL, NULL, NULL, NULL);
         INSERT INTO messages VALUES ('m1', 's1', 'assistant', '[{\"type\":\"tool_call\",\"data\":{\"id\":\"c\",\"name\":\"bash\",\"input\":\"{\\\"command\"}}]', X'00ff', 1e300);
         INSERT INTO messages VALUES ('m2', 's1', 42, '{', NULL, NULL);
         INSERT INTO messages VALUES ('m3', 's1', 'tool', X'00ff', NULL, -1);",
    )
    .unwrap();
    drop(db);
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}
