//! `OpenClaw` through the binary: its store
//! (`tests/fixtures/openclaw-session/<run>/agents/main/agent/openclaw-agent.sqlite`),
//! its older JSONL sessions (`openclaw-session/legacy/`) and its `agent
//! exec --json` reports (`tests/fixtures/openclaw/`). The expected calls,
//! failures, outcomes, tokens and costs are read from the databases'
//! entries and the reports here, with `SQLite` and `serde_json`, never
//! from streamview.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{calls, streamview, tokens};

use std::path::{Path, PathBuf};
use std::process::Command;

use rusqlite::Connection;
use serde_json::Value;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/openclaw-session"
);
const REPORTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/openclaw");

/// Every run of the store fixtures.
const RUNS: [&str; 13] = [
    "error_400",
    "error_500",
    "files",
    "mixed",
    "mixed_local",
    "parallel",
    "reasoning",
    "reasoning_thinking",
    "shell_fail",
    "shell_ok",
    "stream_error",
    "text",
    "tool_error",
];

fn db(run: &str) -> PathBuf {
    Path::new(DIR)
        .join(run)
        .join("agents/main/agent/openclaw-agent.sqlite")
}

/// The transcript entries of the run's one session, in order, as written.
fn entry_texts(run: &str) -> Vec<String> {
    let db = Connection::open(db(run)).unwrap();
    let mut q = db
        .prepare("SELECT event_json FROM transcript_events ORDER BY session_id, seq")
        .unwrap();
    q.query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The transcript entries of the run's one session, in order.
fn entries(run: &str) -> Vec<Value> {
    (entry_texts(run).iter())
        .map(|t| serde_json::from_str(t).unwrap())
        .collect()
}

/// The messages of a role among the entries.
fn messages<'a>(entries: &'a [Value], role: &str) -> Vec<&'a Value> {
    (entries.iter())
        .filter(|e| e["type"] == "message" && e["message"]["role"] == role)
        .map(|e| &e["message"])
        .collect()
}

/// `(tool, key argument, failed)` of each call the store holds: the
/// `command` or `path` of its arguments, failed when its `toolResult`
/// says `isError` (a shell command's non-zero exit is not, to `OpenClaw`).
fn own_calls(run: &str) -> Vec<(String, String, bool)> {
    let all = entries(run);
    let results = messages(&all, "toolResult");
    let mut out = Vec::new();
    for m in messages(&all, "assistant") {
        for b in m["content"].as_array().unwrap() {
            if b["type"] != "toolCall" {
                continue;
            }
            let args = &b["arguments"];
            let key = args["command"].as_str().or(args["path"].as_str()).unwrap();
            let failed = results
                .iter()
                .any(|r| r["toolCallId"] == b["id"] && r["isError"] == true);
            out.push((
                b["name"].as_str().unwrap().to_string(),
                key.to_string(),
                failed,
            ));
        }
    }
    out
}

/// The sums of the assistant messages' `usage`: uncached input, output
/// (reasoning in it), cache read; and their cost.
fn own_usage(run: &str) -> ([u64; 3], f64) {
    let all = entries(run);
    let mut sums = [0; 3];
    let mut cost = 0.0;
    for m in messages(&all, "assistant") {
        let u = &m["usage"];
        for (s, k) in sums.iter_mut().zip(["input", "output", "cacheRead"]) {
            *s += u[k].as_u64().unwrap();
        }
        cost += u["cost"]["total"].as_f64().unwrap_or(0.0);
    }
    (sums, cost)
}

/// How the run ended, as its last assistant message says: 1 when its
/// request failed, 0 when it answered.
fn own_status(run: &str) -> i32 {
    let all = entries(run);
    let last = *messages(&all, "assistant").last().unwrap();
    match last["stopReason"].as_str().unwrap() {
        "error" | "aborted" => 1,
        "stop" => 0,
        _ => 3,
    }
}

#[test]
fn each_session_shows_the_calls_and_failures_its_store_holds() {
    for run in RUNS {
        let (shown, status) = calls(&db(run));
        // The unknown tool's call is not stored (its result is): no call
        // of it to show.
        assert_eq!(shown, own_calls(run), "{run}");
        assert_eq!(status, own_status(run), "{run}");
    }
    assert_eq!(own_calls("files").len(), 6);
    assert_eq!(own_calls("tool_error").iter().filter(|c| c.2).count(), 2);
    assert_eq!(own_calls("shell_fail").iter().filter(|c| c.2).count(), 0);
    assert_eq!(own_status("error_500"), 1);
}

#[test]
fn the_tokens_and_cost_are_the_messages_usage() {
    for run in RUNS {
        let (want, cost) = own_usage(run);
        assert_eq!(tokens(&db(run)), want, "{run}");
        let (summary, _) = streamview(&["--format", "summary-json"], &db(run));
        let shown = summary[0]["total"]["cost_usd"].as_f64().unwrap_or(0.0);
        assert!((shown - cost).abs() < 1e-9, "{run}: {shown} != {cost}");
        assert_eq!(summary[0]["total"]["cost_estimated"], false, "{run}");
        // No model in the header: the session's is its first answer's
        // (an API error's, with no tokens, is none).
        let all = entries(run);
        let first = messages(&all, "assistant")
            .into_iter()
            .filter(|m| m["usage"]["totalTokens"].as_u64().unwrap_or(0) > 0)
            .find_map(|m| m["model"].as_str());
        assert_eq!(summary[0]["sessions"][0]["model"].as_str(), first, "{run}");
    }
    // The store leaves out the turn that called the unknown tool: less
    // than the report says (1100 / 190 / 3200).
    assert_eq!(own_usage("tool_error").0, [850, 140, 2400]);
}

#[test]
fn the_api_errors_words_are_shown_once() {
    let (events, status) = streamview(&["--format", "jsonl"], &db("error_400"));
    assert_eq!(status, 1);
    let said: Vec<&str> = (events.iter())
        .filter(|e| e["kind"] == "notice" && e["level"] == "error")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    let all = entries("error_400");
    let last = *messages(&all, "assistant").last().unwrap();
    assert_eq!(said, [last["errorMessage"].as_str().unwrap()]);
}

/// A report, its `agent exec --json` document as it was printed.
fn report(run: &str) -> Value {
    let text = std::fs::read_to_string(Path::new(REPORTS).join(format!("{run}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_report_is_its_runs_totals_and_outcome() {
    for run in RUNS {
        let input = Path::new(REPORTS).join(format!("{run}.json"));
        let r = report(run);
        // `agent --local --json` keeps them under `meta.agentMeta`.
        let figures = r.pointer("/meta/agentMeta").unwrap_or(&r);
        let (summary, status) = streamview(&["--format", "summary-json"], &input);
        let s = &summary[0]["sessions"][0];
        let ok = r["ok"].as_bool().unwrap_or(true);
        assert_eq!(status, i32::from(!ok), "{run}");
        assert_eq!(s["producer"], "openclaw", "{run}");
        assert_eq!(s["session"], figures["sessionId"], "{run}");
        if let Some(u) = figures.get("usage") {
            let t = &s["tokens"];
            assert_eq!(t["input"], u["input"], "{run}");
            assert_eq!(t["output"], u["output"], "{run}");
            assert_eq!(t["cache_read"], u["cacheRead"], "{run}");
            let (shown, own) = (s["cost_usd"].as_f64().unwrap(), figures["costUsd"].as_f64());
            assert!((shown - own.unwrap()).abs() < 1e-9, "{run}");
            assert_eq!(s["turns"], figures["assistantTurns"], "{run}");
        } else {
            assert_eq!(s["tokens"]["input"], Value::Null, "{run}");
        }
    }
}

#[test]
fn a_failed_report_shows_its_error_and_its_text() {
    let input = Path::new(REPORTS).join("error_400.json");
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--color", "never"])
        .arg(&input)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let r = report("error_400");
    assert!(
        text.contains(r["error"]["message"].as_str().unwrap()),
        "{text}"
    );
    let payload = r["payloads"][0]["text"].as_str().unwrap();
    assert!(text.contains(payload), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

/// The older JSONL sessions (`agents/main/sessions/`): the entries of
/// the `files` store and the `parallel` one (kept after a reset).
fn legacy() -> PathBuf {
    Path::new(DIR).join("legacy/agents/main/sessions")
}

#[test]
fn an_older_jsonl_session_reads_as_its_store_does() {
    let files = legacy().join("f4fdbb6b-20d5-4bdb-ba72-522f047bb114.jsonl");
    assert_eq!(calls(&files), calls(&db("files")));
    assert_eq!(tokens(&files), own_usage("files").0);
    let (events, _) = streamview(&["--format", "jsonl"], &files);
    assert!(events.iter().all(|e| e["producer"] == "openclaw"));
    // The same lines anywhere else are Pi's (no sign of OpenClaw's).
    let elsewhere = std::env::temp_dir().join(format!("sv-openclaw-{}.jsonl", std::process::id()));
    std::fs::copy(&files, &elsewhere).unwrap();
    let (events, _) = streamview(&["--format", "jsonl"], &elsewhere);
    std::fs::remove_file(&elsewhere).unwrap();
    assert!(events.iter().all(|e| e["producer"] == "pi"));
}

#[test]
fn a_session_in_its_jsonl_and_its_store_counts_once() {
    // The library: the stores, and the older files of two of their
    // sessions (one kept after a reset).
    let (summary, status) = streamview(&["--format", "summary-json"], Path::new(DIR));
    assert_eq!(status, 0, "a report written");
    let sessions = summary[0]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), RUNS.len() + 2, "the reset file is read too");
    assert_totals(&summary[0], &RUNS);
}

/// A summary's total tokens and cost are the sums of `runs`' messages.
fn assert_totals(summary: &Value, runs: &[&str]) {
    let mut want = [0; 3];
    let mut cost = 0.0;
    for run in runs {
        let (t, c) = own_usage(run);
        for (w, n) in want.iter_mut().zip(t) {
            *w += n;
        }
        cost += c;
    }
    let t = &summary["total"]["tokens"];
    assert_eq!(
        ["input", "output", "cache_read"].map(|k| t[k].as_u64().unwrap()),
        want
    );
    let shown = summary["total"]["cost_usd"].as_f64().unwrap();
    assert!((shown - cost).abs() < 1e-9, "{shown} != {cost}");
}

#[test]
fn the_store_is_found_where_openclaw_keeps_it() {
    let home = std::env::temp_dir().join(format!("sv-openclaw-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let state = home.join("state");
    std::fs::create_dir_all(state.join("agents/main/agent")).unwrap();
    std::fs::copy(
        db("mixed"),
        state.join("agents/main/agent/openclaw-agent.sqlite"),
    )
    .unwrap();
    let latest = |var: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_streamview"));
        cmd.env_remove("OPENCLAW_STATE_DIR")
            .env_remove("OPENCLAW_DIR");
        if let Some(v) = var {
            cmd.env(v, &state);
        }
        let out = cmd
            .args(["--latest", "--from", "openclaw", "--format", "jsonl"])
            .env("HOME", &home)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (moved, jsonl) = latest(Some("OPENCLAW_STATE_DIR"));
    let (unmoved, _) = latest(None);
    std::fs::remove_dir_all(&home).unwrap();
    assert_eq!(moved, Some(0), "{jsonl}");
    assert!(jsonl.contains(r#""producer":"openclaw""#));
    assert_eq!(unmoved, Some(2), "no ~/.openclaw: nothing to read");
}

/// The schema of `session_transcript_archives` in `OpenClaw` 2026.9.6's
/// agent database (`../shared/corpus/openclaw-sessions/*/…sqlite`).
const ARCHIVES: &str = "CREATE TABLE session_transcript_archives (
  session_id TEXT NOT NULL, generation TEXT NOT NULL, session_key TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('deleted', 'reset')),
  encoding TEXT NOT NULL CHECK (encoding IN ('identity', 'zstd')),
  archive_blob BLOB NOT NULL,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  archive_name TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, published_at INTEGER,
  publish_attempts INTEGER NOT NULL DEFAULT 0 CHECK (publish_attempts >= 0),
  last_publish_attempt_at INTEGER, last_publish_error TEXT,
  PRIMARY KEY (session_id, generation)) STRICT";

#[test]
fn a_deleted_or_reset_session_still_counts_from_its_archive() {
    // Two runs' sessions moved from `transcript_events` into the archives
    // (one plain, one zstd), as OpenClaw does hours after a delete or a
    // reset; a third left where it is.
    let tmp = std::env::temp_dir().join(format!("sv-openclaw-archive-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let store = tmp.join("openclaw-agent.sqlite");
    std::fs::copy(db("mixed"), &store).unwrap();
    let conn = Connection::open(&store).unwrap();
    conn.execute_batch(ARCHIVES).unwrap();
    let mut stored = 0;
    for (run, encoding) in [("files", "identity"), ("parallel", "zstd")] {
        let text = entry_texts(run).join("\n") + "\n";
        let id = entries(run)[0]["id"].as_str().unwrap().to_string();
        let blob = match encoding {
            "zstd" => zstd::encode_all(text.as_bytes(), 3).unwrap(),
            _ => text.into_bytes(),
        };
        conn.execute(
            "INSERT INTO session_transcript_archives (session_id, generation, session_key, \
             reason, encoding, archive_blob, archive_sha256, archive_name, created_at) \
             VALUES (?1, 'g1', 'agent:main:main', 'reset', ?2, ?3, ?4, ?5, 1796186400000)",
            rusqlite::params![
                id,
                encoding,
                blob,
                "0".repeat(64),
                format!("{id}.jsonl.reset")
            ],
        )
        .unwrap();
        stored += 1;
    }
    drop(conn);
    let (summary, status) = streamview(&["--format", "summary-json"], &store);
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(status, 0);
    let sessions = summary[0]["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1 + stored);
    assert!(sessions.iter().all(|s| s["producer"] == "openclaw"));
    assert_totals(&summary[0], &["mixed", "files", "parallel"]);
    assert_eq!(summary[0]["total"]["tool_calls"], 3 + 6 + 2);
}

/// The schema of `session_transcript_cold_archives` in `OpenClaw` 2026.9.6's
/// agent database (`../shared/corpus/openclaw-sessions/*/…sqlite`).
const COLD: &str = "CREATE TABLE session_transcript_cold_archives (
  session_id TEXT NOT NULL PRIMARY KEY, generation TEXT NOT NULL,
  archive_name TEXT NOT NULL UNIQUE,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  event_count INTEGER NOT NULL CHECK (event_count >= 1),
  raw_bytes INTEGER NOT NULL CHECK (raw_bytes >= 0),
  archive_bytes INTEGER NOT NULL CHECK (archive_bytes >= 0),
  last_seq INTEGER NOT NULL, archived_at INTEGER NOT NULL,
  storage TEXT NOT NULL CHECK (storage IN ('file', 'sqlite')), archive_blob BLOB,
  CHECK ((storage = 'file' AND archive_blob IS NULL) OR
         (storage = 'sqlite' AND archive_blob IS NOT NULL))) STRICT";

/// A run's session as `OpenClaw`'s cold storage writes it
/// (`session-cold-storage-codec.ts`): zstd of JSONL records, a header, then
/// each entry as an `event` record, each followed by records of its own
/// indexes (which are no entries).
fn cold_archive(run: &str, id: &str) -> Vec<u8> {
    let mut text = serde_json::json!({
        "kind": "header", "version": 1, "sessionId": id, "generation": "g1"
    })
    .to_string()
        + "\n";
    for (seq, entry) in entry_texts(run).into_iter().enumerate() {
        let records = [
            serde_json::json!({"kind": "event",
                "row": {"seq": seq, "event_json": entry, "created_at": 1_796_186_400_000_i64}}),
            serde_json::json!({"kind": "identity", "row": {"event_id": format!("e{seq}"),
                "seq": seq, "event_type": "message", "parent_id": null,
                "message_idempotency_key": null, "created_at": 1_796_186_400_000_i64}}),
            serde_json::json!({"kind": "fts", "row": {"text": "{\"type\":\"message\"}",
                "message_id": null, "role": "user", "timestamp": null}}),
        ];
        for r in records {
            text.push_str(&r.to_string());
            text.push('\n');
        }
    }
    zstd::encode_all(text.as_bytes(), 3).unwrap()
}

#[test]
fn a_session_in_cold_storage_still_counts_from_its_archive() {
    // Two runs' sessions moved to cold storage, as OpenClaw does a month
    // after their last use: one archive in the agent's `sessions/cold/`,
    // one in its row; a third session left where it is.
    let tmp = std::env::temp_dir().join(format!("sv-openclaw-cold-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let agent = tmp.join(".openclaw/agents/main");
    std::fs::create_dir_all(agent.join("agent")).unwrap();
    std::fs::create_dir_all(agent.join("sessions/cold")).unwrap();
    let store = agent.join("agent/openclaw-agent.sqlite");
    std::fs::copy(db("mixed"), &store).unwrap();
    let conn = Connection::open(&store).unwrap();
    conn.execute_batch(COLD).unwrap();
    let name = format!("{}.jsonl.zst", "c0ffee".repeat(10) + "0123");
    let id = entries("files")[0]["id"].as_str().unwrap().to_string();
    for (run, storage) in [("files", "file"), ("parallel", "sqlite")] {
        let id = entries(run)[0]["id"].as_str().unwrap().to_string();
        let count = i64::try_from(entries(run).len()).unwrap();
        let archive = cold_archive(run, &id);
        let (blob, name) = match storage {
            "file" => {
                std::fs::write(agent.join("sessions/cold").join(&name), &archive).unwrap();
                (None, name.clone())
            }
            _ => (Some(archive.clone()), format!("{id}.jsonl.zst")),
        };
        conn.execute(
            "INSERT INTO session_transcript_cold_archives (session_id, generation, \
             archive_name, archive_sha256, event_count, raw_bytes, archive_bytes, last_seq, \
             archived_at, storage, archive_blob) \
             VALUES (?1, 'g1', ?2, ?3, ?4, 0, ?5, ?6, 1796186400000, ?7, ?8)",
            rusqlite::params![
                id,
                name,
                "0".repeat(64),
                count,
                i64::try_from(archive.len()).unwrap(),
                count - 1,
                storage,
                blob
            ],
        )
        .unwrap();
    }
    drop(conn);
    let home = tmp.join(".openclaw");
    let (summary, status) = streamview(&["--format", "summary-json"], &home);
    assert_eq!(status, 0);
    let sessions = summary[0]["sessions"].as_array().unwrap();
    assert_eq!(
        sessions.len(),
        3,
        "the archive's file is no session of its own"
    );
    assert!(sessions.iter().all(|s| s["producer"] == "openclaw"));
    assert_totals(&summary[0], &["mixed", "files", "parallel"]);
    assert_eq!(summary[0]["total"]["tool_calls"], 3 + 6 + 2);
    // The archive's file cut short: what it held before the cut is read,
    // and the rest said as not read, once.
    let file = agent.join("sessions/cold").join(&name);
    let whole = std::fs::read(&file).unwrap();
    std::fs::write(&file, &whole[..whole.len() / 2]).unwrap();
    let (cut, _) = streamview(&["--format", "summary-json"], &home);
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--color", "never"])
        .arg(&home)
        .output()
        .unwrap();
    // And gone: said so, the other sessions read.
    std::fs::remove_file(&file).unwrap();
    let (gone, gone_status) = streamview(&["--format", "summary-json"], &home);
    let _ = std::fs::remove_dir_all(&tmp);
    let shown = String::from_utf8_lossy(&out.stdout);
    let said = format!("archive of session {id} not read: missing, cut short or not zstd");
    assert_eq!(shown.matches(&said).count(), 1, "{shown}");
    let calls = cut[0]["total"]["tool_calls"].as_u64().unwrap();
    assert!((3 + 2..3 + 6 + 2).contains(&calls), "{calls}");
    assert_eq!(gone_status, 0);
    assert_eq!(gone[0]["sessions"].as_array().unwrap().len(), 3);
    assert_eq!(gone[0]["total"]["tool_calls"], 3 + 2);
}
