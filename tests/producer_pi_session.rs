//! Pi's saved sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`)
//! through the binary, each against the `pi -p --mode json` stream of the
//! same run (`tests/fixtures/pi-session/<name>/sessions/` beside
//! `tests/fixtures/pi/<name>.jsonl`): the same tool calls (names, key
//! arguments, failures) and exit status, and the tokens of the stream's
//! assistant messages.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

mod common;

use common::saved::{SCENARIOS, calls, tokens};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pi-session");
const STREAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pi");

fn stream(name: &str) -> PathBuf {
    Path::new(STREAMS).join(format!("{name}.jsonl"))
}

/// The session's file.
fn session_file(name: &str) -> PathBuf {
    let sessions = Path::new(DIR).join(name).join("sessions");
    let cwd = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let file = std::fs::read_dir(cwd.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    file.path()
}

/// The usage pi reports on each assistant message of the stream
/// (`message_end`), summed without streamview.
fn stream_usage(name: &str) -> [u64; 3] {
    let text = std::fs::read_to_string(stream(name)).unwrap();
    let mut sum = [0; 3];
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        if v["type"] == "message_end" && v["message"]["role"] == "assistant" {
            let u = &v["message"]["usage"];
            for (s, k) in sum.iter_mut().zip(["input", "output", "cacheRead"]) {
                *s += u[k].as_u64().unwrap_or(0);
            }
        }
    }
    sum
}

#[test]
fn each_saved_session_replays_the_calls_and_outcome_of_its_stream() {
    for name in SCENARIOS {
        assert_eq!(calls(&session_file(name)), calls(&stream(name)), "{name}");
    }
    assert_eq!(calls(&session_file("files")).0.len(), 6);
    assert_eq!(calls(&session_file("error_500")).1, 1);
}

#[test]
fn each_saved_session_totals_the_tokens_its_stream_reports() {
    for name in SCENARIOS {
        let dir = Path::new(DIR).join(name);
        assert_eq!(tokens(&dir), stream_usage(name), "{name}");
    }
    assert_eq!(stream_usage("mixed"), [1100, 190, 3200]);
}

#[test]
fn latest_from_pi_reads_pi_coding_agent_dir() {
    let tmp = std::env::temp_dir().join(format!("sv-pi-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let file = session_file("mixed");
    let to = tmp.join("sessions/--w--");
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(&file, to.join(file.file_name().unwrap())).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--latest", "--from", "pi", "--format", "jsonl"])
        .env("PI_CODING_AGENT_DIR", &tmp)
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    std::fs::remove_dir_all(&tmp).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches("\"kind\":\"tool_call\"").count(), 3);
}

#[test]
fn each_day_counts_the_cost_pi_reported_for_its_messages() {
    // The `files` run, its last messages moved to the next day.
    let from = session_file("files");
    let dir = std::env::temp_dir().join(format!("sv-pi-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut by_day = std::collections::BTreeMap::<String, f64>::new();
    let mut out = String::new();
    for (i, line) in std::fs::read_to_string(&from).unwrap().lines().enumerate() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if i >= 10 {
            let t = v["timestamp"]
                .as_str()
                .unwrap()
                .replace("2026-11-26", "2026-11-27");
            v["timestamp"] = t.into();
        }
        if let Some(c) = v
            .pointer("/message/usage/cost/total")
            .and_then(Value::as_f64)
        {
            let day = v["timestamp"].as_str().unwrap()[..10].to_string();
            *by_day.entry(day).or_default() += c;
        }
        out += &v.to_string();
        out.push('\n');
    }
    let file = dir.join("s.jsonl");
    std::fs::write(&file, out).unwrap();
    let o = common::sv()
        .env("TZ", "UTC")
        .args(["--by", "day", "--format", "summary-json"])
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["by"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    assert!(by_day.values().all(|c| *c > 0.0), "{by_day:?}");
    for (row, (day, cost)) in rows.iter().zip(&by_day) {
        assert_eq!(row["group"], day.as_str());
        let got = row["cost_usd"].as_f64().unwrap();
        assert!((got - cost).abs() < 1e-9, "{day}: {got} ≠ {cost}");
        // Reported, not estimated.
        assert_eq!(row["cost_estimated"], false, "{row}");
    }
}
