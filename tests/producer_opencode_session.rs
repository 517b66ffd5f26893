//! `OpenCode`'s and Kilo's saved sessions (their `SQLite` databases, read
//! as libraries) through the binary, each against the `run --format
//! json` stream of the same run (`tests/fixtures/opencode-session/`,
//! `tests/fixtures/kilo-session/` beside `tests/fixtures/kilo/`): the same
//! tool calls and outcome; the tokens the CLI itself totalled in its
//! `session` table, sub-agents included; a sub-agent's calls nested under
//! the `task` call that ran it. Then databases made here: parents that go
//! round in a circle or are missing, a file that is not a database.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{calls, streamview, tokens};

use std::path::{Path, PathBuf};
use std::process::Command;

use rusqlite::Connection;

const OPENCODE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/opencode-session"
);
const KILO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kilo-session");
const KILO_STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kilo");

fn opencode(name: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(OPENCODE);
    (
        dir.join(name).join("opencode.db"),
        dir.join(format!("{name}.jsonl")),
    )
}

/// The tokens the CLI totalled itself, over every session of the
/// database (sub-agents' too): uncached input, output with reasoning,
/// cache read. Read with `SQLite`, not with streamview.
fn own_totals(db: &Path) -> [u64; 3] {
    let db = Connection::open(db).unwrap();
    let sum = |col: &str| -> u64 {
        db.query_row(&format!("SELECT sum({col}) FROM session"), [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| u64::try_from(n).unwrap())
        .unwrap()
    };
    [
        sum("tokens_input"),
        sum("tokens_output") + sum("tokens_reasoning"),
        sum("tokens_cache_read"),
    ]
}

#[test]
fn each_database_replays_the_calls_and_outcome_of_its_stream() {
    for name in ["mixed", "tool_error", "error_500"] {
        let (db, stream) = opencode(name);
        assert_eq!(calls(&db), calls(&stream), "{name}");
    }
    assert_eq!(calls(&opencode("mixed").0).0.len(), 3);
    assert_eq!(calls(&opencode("error_500").0).1, 1);
    for name in ["files", "mixed", "tool_error"] {
        let db = Path::new(KILO).join(name).join("kilo.db");
        let stream = Path::new(KILO_STREAMS).join(format!("{name}.jsonl"));
        assert_eq!(calls(&db), calls(&stream), "{name}");
    }
    assert_eq!(calls(&Path::new(KILO).join("files/kilo.db")).0.len(), 6);
}

#[test]
fn the_tokens_are_the_clis_own_totals_sub_agents_included() {
    for name in ["mixed", "tool_error", "subagent"] {
        let db = opencode(name).0;
        assert_eq!(tokens(&db), own_totals(&db), "{name}");
    }
    // The sub-agent's 750 / 140 come on top of what the stream counts.
    assert_eq!(tokens(&opencode("subagent").0), [1200, 230, 4000]);
    assert_eq!(tokens(&opencode("subagent").1), [450, 90, 1600]);
    for name in ["files", "mixed", "tool_error"] {
        let db = Path::new(KILO).join(name).join("kilo.db");
        assert_eq!(tokens(&db), own_totals(&db), "{name}");
    }
}

#[test]
fn a_sub_agent_is_nested_under_the_task_call_that_ran_it() {
    let (events, status) = streamview(&["--format", "jsonl"], &opencode("subagent").0);
    assert_eq!(status, 0);
    let task = events
        .iter()
        .find(|e| e["kind"] == "tool_call" && e["name"] == "task")
        .unwrap();
    let nested: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["kind"] == "tool_call" && e["parent"] == task["id"])
        .map(|e| (e["name"].as_str().unwrap(), e["key_arg"].as_str().unwrap()))
        .collect();
    assert_eq!(
        nested,
        [
            ("bash", "ls -la /home/dev/opencode/subagent/ws"),
            ("read", "/home/dev/opencode/subagent/ws/notes.txt")
        ]
    );
    // Its calls come between the task's call and its result.
    let at = |pred: &dyn Fn(&serde_json::Value) -> bool| events.iter().position(pred).unwrap();
    let call = at(&|e| e["kind"] == "tool_call" && e["name"] == "task");
    let result = at(&|e| e["kind"] == "tool_result" && e["id"] == task["id"]);
    let bash = at(&|e| e["kind"] == "tool_call" && e["name"] == "bash");
    assert!(call < bash && bash < result, "{call} {bash} {result}");
    // The user's prompt, which the stream does not print, is the title.
    let (summary, _) = streamview(&["--format", "summary-json"], &opencode("subagent").0);
    let title = summary[0]["sessions"][0]["title"].as_str().unwrap();
    assert!(title.contains("Please run the 'subage"), "{title}");
}

#[test]
fn kilo_databases_are_kilos_and_a_cut_run_is_incomplete() {
    let db = Path::new(KILO).join("stream_error/kilo.db");
    let (summary, status) = streamview(&["--format", "summary-json"], &db);
    let row = &summary[0]["sessions"][0];
    assert_eq!(row["producer"], "kilo");
    assert_eq!(row["outcome"], "incomplete");
    assert_eq!(status, 3);
}

/// Every fractional number a database holds (a cost, a rate of tokens a
/// second) reaches the JSONL's `raw` as the CLI wrote it, to the last
/// digit: `serde_json` reads the rows, and its default float parser can be
/// one ulp off (Kilo's `236.96682464454977` came out `…975`).
#[test]
fn a_stores_numbers_reach_the_jsonl_to_the_last_digit() {
    let literal = regex::Regex::new(r":(-?[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?)[,}\]]").unwrap();
    let mut seen = 0;
    for name in ["mixed", "tool_error", "stream_error"] {
        let db = Path::new(KILO).join(name).join("kilo.db");
        let conn = Connection::open(&db).unwrap();
        let mut numbers = Vec::new();
        for table in ["message", "part"] {
            let mut q = conn.prepare(&format!("SELECT data FROM {table}")).unwrap();
            let rows = q.query_map([], |r| r.get::<_, String>(0)).unwrap();
            for data in rows {
                let data = data.unwrap();
                numbers.extend(literal.captures_iter(&data).map(|c| c[1].to_string()));
            }
        }
        let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
            .args(["--format", "jsonl"])
            .arg(&db)
            .output()
            .unwrap();
        let out = String::from_utf8(out.stdout).unwrap();
        for n in &numbers {
            assert!(
                out.contains(&format!(":{n}")),
                "{name}: {n} is not in the JSONL"
            );
        }
        seen += numbers.len();
    }
    assert!(seen >= 3, "{seen} numbers");
}

/// A database with `OpenCode`'s three tables, and `sessions` as `(id,
/// parent)`, each with one prompt and one answer.
fn made(name: &str, sessions: &[(&str, Option<&str>)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sv-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("opencode.db");
    let db = Connection::open(&path).unwrap();
    db.execute_batch(
        "CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, \
           time_created INTEGER, time_updated INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, \
           time_updated INTEGER, data TEXT);
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, \
           time_created INTEGER, time_updated INTEGER, data TEXT);",
    )
    .unwrap();
    for ((id, parent), i) in sessions.iter().zip(0_i64..) {
        let t = 1_795_000_000_000_i64 + i * 1000;
        db.execute(
            "INSERT INTO session VALUES (?1, ?2, '/w', ?3, ?3)",
            rusqlite::params![id, parent, t],
        )
        .unwrap();
        let user = r#"{"role":"user"}"#;
        let answer = r#"{"role":"assistant","modelID":"m","time":{"completed":1}}"#;
        for (m, data) in [("u", user), ("a", answer)] {
            db.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![format!("{id}-{m}"), id, t, data],
            )
            .unwrap();
        }
        let prompt = format!(r#"{{"type":"text","text":"prompt of {id}"}}"#);
        let finish = r#"{"type":"step-finish","reason":"stop","tokens":{"input":10,"output":1}}"#;
        for (p, m, data) in [("p", "u", prompt.as_str()), ("f", "a", finish)] {
            db.execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![format!("{id}-{p}"), format!("{id}-{m}"), id, t, data],
            )
            .unwrap();
        }
    }
    path
}

#[test]
fn every_session_is_read_once_whatever_its_parents_say() {
    // b and c are each other's parent; d's parent is not in the store;
    // e is a's sub-agent, which no call names.
    let db = made(
        "circle",
        &[
            ("a", None),
            ("b", Some("c")),
            ("c", Some("b")),
            ("d", Some("gone")),
            ("e", Some("a")),
        ],
    );
    let (summary, status) = streamview(&["--format", "summary-json"], &db);
    let (jsonl, _) = streamview(&["--format", "jsonl"], &db);
    std::fs::remove_dir_all(db.parent().unwrap()).unwrap();
    assert_eq!(status, 0);
    let rows: Vec<&str> = (summary[0]["sessions"].as_array().unwrap().iter())
        .map(|r| r["session"].as_str().unwrap())
        .collect();
    // a (with e), the circle once (from its smallest id), d.
    assert_eq!(rows, ["a", "b", "d"]);
    let prompts = |who: &str| {
        (jsonl.iter())
            .filter(|e| e["kind"] == "text" && e["text"] == format!("prompt of {who}"))
            .count()
    };
    for who in ["a", "b", "c", "d", "e"] {
        assert_eq!(prompts(who), 1, "{who}");
    }
    // Every session's answer counted once.
    assert_eq!(summary[0]["total"]["tokens"]["input"], 50);
}

#[test]
fn a_file_named_as_a_store_that_is_not_one_is_one_line() {
    let dir = std::env::temp_dir().join(format!("sv-store-{}-notdb", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("kilo.db");
    std::fs::write(&path, "\x1b[31mnot a database\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a SQLite database"), "{err}");
    assert_eq!(out.status.code(), Some(2));
}
