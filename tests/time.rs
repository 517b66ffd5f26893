//! Time (issue 17): the producers' timestamps on the events (JSONL's
//! `timestamp`), tool durations of a replay taken from them, and
//! `--since`/`--until` selecting sessions and events.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use serde_json::Value;

use common::{fixture, read, sv};

/// The JSONL events of `args`.
fn events(args: &[&str]) -> Vec<Value> {
    let o = sv()
        .args(["--format", "jsonl"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.code().is_some_and(|c| c != 2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The raw lines of a fixture, parsed.
fn raw_lines(rel: &str) -> Vec<Value> {
    String::from_utf8(read(&fixture(rel)))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect()
}

#[test]
fn events_carry_the_time_their_line_gives() {
    // Producers that write RFC 3339 text in UTC with milliseconds: the
    // event says the same.
    for rel in [
        "claude-transcript/transcript_subagent.jsonl",
        "codex-rollout/shell_ok.rollout.jsonl",
        "gemini/mcp.jsonl",
        "claude/tool_errors.jsonl",
    ] {
        let raw = raw_lines(rel);
        let evs = events(&[fixture(rel).to_str().unwrap()]);
        let mut dated = 0;
        for ev in &evs {
            let line = usize::try_from(ev["line"].as_u64().unwrap()).unwrap();
            let given = &raw[line - 1]["timestamp"];
            if ev["kind"] == "session_start" || ev["kind"] == "result" {
                continue;
            }
            assert_eq!(&ev["timestamp"], given, "{rel}: {ev}");
            dated += usize::from(given.is_string());
        }
        assert!(dated > 0, "{rel}: no event was dated");
    }
    // Milliseconds since the epoch: OpenCode's `timestamp`, Cursor's
    // `timestamp_ms`.
    let first = |rel: &str| events(&[fixture(rel).to_str().unwrap()])[0]["timestamp"].clone();
    assert_eq!(first("opencode/mixed.jsonl"), "2026-11-22T04:23:40.800Z");
    let cursor = events(&[fixture("cursor/tools.jsonl").to_str().unwrap()]);
    assert!(
        cursor
            .iter()
            .any(|e| e["timestamp"] == "2025-11-22T08:26:40.137Z"),
        "{cursor:?}"
    );
    // Producers that give no time: `null`, never an invented one.
    for rel in ["codex/shell_fail.jsonl", "amp/shell.jsonl"] {
        let evs = events(&[fixture(rel).to_str().unwrap()]);
        assert!(evs.iter().all(|e| e["timestamp"].is_null()), "{rel}");
    }
}

#[test]
fn a_transcript_session_is_dated_by_its_entries() {
    let evs = events(&[fixture("claude-transcript/transcript_tools_basic.jsonl")
        .to_str()
        .unwrap()]);
    let times: Vec<&str> = evs.iter().filter_map(|e| e["timestamp"].as_str()).collect();
    let (start, result) = (evs.first().unwrap(), evs.last().unwrap());
    assert_eq!(start["kind"], "session_start");
    assert_eq!(result["kind"], "result");
    // The header has the first entry's time, the rebuilt result the last's.
    assert_eq!(start["timestamp"], *times.iter().min().unwrap());
    assert_eq!(result["timestamp"], *times.iter().max().unwrap());
}

#[test]
fn a_time_that_is_not_one_is_absent() {
    let line = |ts: &str| {
        format!(
            r#"{{"type":"message","timestamp":{ts},"role":"user","content":"hi","session_id":"s"}}"#
        )
    };
    let mut input = String::from(
        r#"{"type":"init","timestamp":"2026-11-22T03:55:40.792Z","session_id":"s","model":"m"}"#,
    );
    for ts in [
        r#""2026-11-22T03:55:40.792+01:00""#,
        r#""yesterday""#,
        r#""2026-02-30T00:00:00Z""#,
        "true",
        "-5",
        "1e300",
    ] {
        input.push('\n');
        input.push_str(&line(ts));
    }
    let o = sv()
        .args(["--format", "jsonl", "--from", "gemini"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(3),
        "no result: the session is incomplete"
    );
    let times: Vec<Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["timestamp"].clone())
        .collect();
    assert_eq!(
        times,
        [
            "2026-11-22T03:55:40.792Z".into(),
            "2026-11-22T02:55:40.792Z".into(),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ]
    );
}

/// A saved transcript whose `Bash` call (line 13) ran a minute: the lines
/// from its result on are dated 60 s later.
fn slow_transcript() -> std::path::PathBuf {
    let text = String::from_utf8(read(&fixture(
        "claude-transcript/transcript_tools_basic.jsonl",
    )))
    .unwrap();
    let shifted: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let l = if i >= 13 {
                l.replace("\"2026-11-22T03:52:", "\"2026-11-22T03:53:")
            } else {
                l.to_string()
            };
            l + "\n"
        })
        .collect();
    common::temp_file("slow-transcript.jsonl", shifted.as_bytes())
}

/// `Bash`'s time in the summary, in milliseconds (`null` under a second).
fn bash_time(summary_json: &[u8]) -> Value {
    let v: Value = serde_json::from_slice(summary_json).unwrap();
    let tools = v["total"]["tools"].as_array().unwrap();
    let bash = tools.iter().find(|t| t["name"] == "Bash").unwrap();
    bash["time_ms"].clone()
}

#[test]
fn a_replay_times_tools_by_their_timestamps() {
    let file = slow_transcript();
    let path = file.to_str().unwrap();
    // Replayed, the call took what its timestamps say…
    let o = sv()
        .args(["--format", "summary-json", path])
        .output()
        .unwrap();
    assert_eq!(bash_time(&o.stdout), 60_070);
    let o = sv().args(["--color", "never", path]).output().unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("long-running: Bash took 1m00s"), "{out}");
    // …as it does read from a library folder or from a redirected file.
    let dir = file.with_extension("d");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&file, dir.join("s.jsonl")).unwrap();
    let o = sv()
        .args(["--format", "summary-json", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(bash_time(&o.stdout), 60_070);
    let o = common::sv_std()
        .args(["--format", "summary-json"])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    assert_eq!(bash_time(&o.stdout), 60_070);
    // Live (a pipe), time is what passed: the lines came at once.
    let o = sv()
        .args(["--format", "summary-json"])
        .write_stdin(read(&file))
        .output()
        .unwrap();
    assert_eq!(bash_time(&o.stdout), Value::Null);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn transcript() -> String {
    fixture("claude-transcript/transcript_tools_basic.jsonl")
        .to_str()
        .unwrap()
        .to_string()
}

/// Kinds and lines of the JSONL events.
fn kinds(evs: &[Value]) -> Vec<String> {
    evs.iter()
        .map(|e| format!("{}@{}", e["kind"].as_str().unwrap(), e["line"]))
        .collect()
}

#[test]
fn since_and_until_select_the_events_of_their_window() {
    let t = transcript();
    // The Glob call and its result (lines 9–10) are before 03:52:49.400, the
    // Grep call after it.
    let since = events(&["--since", "2026-11-22T03:52:49.400Z", &t]);
    assert_eq!(
        kinds(&since),
        [
            "usage@11",
            "tool_call@11",
            "tool_result@12",
            "usage@13",
            "tool_call@13",
            "tool_result@14",
            "usage@15",
            "text@15",
            "result@16"
        ]
    );
    let until = events(&["--until", "2026-11-22T03:52:49.400Z", &t]);
    assert_eq!(until.len() + since.len(), events(&[&t]).len());
    assert!(
        until
            .iter()
            .all(|e| e["timestamp"].as_str().unwrap() < "2026-11-22T03:52:49.400Z")
    );
    // The same moment in another zone, and a local time read in $TZ.
    let paris = events(&["--since", "2026-11-22T04:52:49.4+01:00", &t]);
    assert_eq!(kinds(&paris), kinds(&since));
    let local = sv()
        .env("TZ", "CET-1")
        .args([
            "--format",
            "jsonl",
            "--since",
            "2026-11-22 04:52:49.400",
            &t,
        ])
        .output()
        .unwrap();
    assert_eq!(
        local.stdout,
        sv().args([
            "--format",
            "jsonl",
            "--since",
            "2026-11-22T03:52:49.400Z",
            &t
        ])
        .output()
        .unwrap()
        .stdout
    );
    // A whole day: --until a date includes it.
    let day = events(&["--since", "2026-11-22", "--until", "2026-11-22", &t]);
    assert_eq!(day.len(), events(&[&t]).len());
    // Events without a time are kept: a Codex exec stream has none.
    let codex = fixture("codex/shell_fail.jsonl");
    let codex = codex.to_str().unwrap();
    assert_eq!(events(&["--since", "1h", codex]), events(&[codex]));
}

#[test]
fn totals_count_only_the_events_in_the_window() {
    let summary = |args: &[&str]| {
        let o = sv()
            .args(["--format", "summary-json"])
            .args(args)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        (o.status.code(), v["total"].clone())
    };
    let t = transcript();
    let (code, all) = summary(&[&t]);
    assert_eq!(code, Some(0));
    assert_eq!(all["tool_calls"], 4);
    let (code, late) = summary(&["--since", "2026-11-22T03:52:49.400Z", &t]);
    assert_eq!(code, Some(0));
    assert_eq!(late["tool_calls"], 2);
    let names: Vec<&str> = late["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Bash", "Grep"]);
    // Tokens: the three responses in the window, not the session's five.
    let usage: u64 = events(&["--since", "2026-11-22T03:52:49.400Z", &t])
        .iter()
        .filter(|e| e["kind"] == "usage")
        .map(|e| e["tokens"]["output"].as_u64().unwrap())
        .sum();
    assert_eq!(late["tokens"]["output"], usage);
    assert!(usage < all["tokens"]["output"].as_u64().unwrap());
    // Before the end: the session's result is outside, so it never ended.
    let (code, early) = summary(&["--until", "2026-11-22T03:52:49.400Z", &t]);
    assert_eq!(code, Some(3));
    assert_eq!(early["tool_calls"], 2);
}

#[test]
fn nothing_in_the_window_is_said_with_status_1() {
    let o = sv()
        .args(["--since", "2030-01-01T00:00:00Z", &transcript()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "streamview: nothing since 2030-01-01T00:00:00.000Z: 18 events and 0 session files outside it\n"
    );
}

#[test]
fn a_time_that_is_not_one_is_a_usage_error() {
    for args in [
        &["--since", "last tuesday"][..],
        &["--until", "2026-11-31"],
        &["--since", "2026-11-24", "--until", "2026-11-23"],
    ] {
        let o = sv().args(args).arg(transcript()).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains("2h") || err.contains("swap them"), "{err}");
    }
}

/// A library of three sessions: a transcript begun at 03:52:49, one with
/// sub-agents begun at 03:53:01 (both 2026-11-22), one begun at 04:47:24.
fn library() -> std::path::PathBuf {
    let root = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("time-library-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let agents = root.join("p/s2/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let t = |n: &str| fixture(&format!("claude-transcript/{n}"));
    std::fs::copy(t("transcript_tools_basic.jsonl"), root.join("p/s1.jsonl")).unwrap();
    std::fs::copy(t("transcript_subagent.jsonl"), root.join("p/s2.jsonl")).unwrap();
    for id in ["a8164d334e3dc2758", "abe457c7cccc84957"] {
        let from = t(&format!("transcript_subagent.agent-{id}.jsonl"));
        std::fs::copy(from, agents.join(format!("agent-{id}.jsonl"))).unwrap();
    }
    std::fs::copy(
        t("v2.1.330_transcript_thinking.jsonl"),
        root.join("p/s3.jsonl"),
    )
    .unwrap();
    root
}

#[test]
fn a_library_reads_only_the_sessions_in_the_window() {
    let root = library();
    let dir = root.to_str().unwrap();
    let sources = |args: &[&str]| {
        let mut s: Vec<String> = events(&[args, &[dir]].concat())
            .iter()
            .map(|e| {
                e["source"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        s.dedup();
        s
    };
    assert_eq!(sources(&[]), ["s1.jsonl", "s2.jsonl", "s3.jsonl"]);
    assert_eq!(sources(&["--since", "2026-11-22T04:00:00Z"]), ["s3.jsonl"]);
    // s2 began at 03:53:01.
    assert_eq!(sources(&["--until", "2026-11-22T03:53:00Z"]), ["s1.jsonl"]);
    assert_eq!(
        sources(&[
            "--since",
            "2026-11-22T03:53:00Z",
            "--until",
            "2026-11-22T04:00:00Z"
        ]),
        ["s2.jsonl"]
    );
    // -v says what was skipped.
    let o = sv()
        .args([
            "-v",
            "--since",
            "2026-11-22T04:00:00Z",
            "--format",
            "summary",
            dir,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    // (and how many sessions came from the index: see tests/index.rs)
    assert!(
        err.contains("1 session file read (0 without a session, ")
            && err.contains(" from the index), 2 sessions since 2026-11-22T04:00:00.000Z skipped"),
        "{err}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_session_with_no_event_in_the_window_is_not_in_the_report() {
    // A transcript of 2026-11-22 whose first lines, as older transcripts'
    // are, are `summary` lines carrying no time.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("time-untimed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("old.jsonl");
    let summary = r#"{"type":"summary","summary":"Earlier work","leafUuid":"x"}"#;
    let body = std::fs::read_to_string(transcript()).unwrap();
    std::fs::write(&old, format!("{summary}\n{summary}\n{body}")).unwrap();
    for args in [
        &["--by", "day"][..],
        &["--format", "summary-json"],
        &["--list"],
    ] {
        let o = sv()
            .args(["--since", "2026-11-25"])
            .args(args)
            .arg(&old)
            .output()
            .unwrap();
        let (out, err) = (
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        );
        assert!(!out.contains("incomplete"), "{args:?}: {out}");
        assert!(err.contains("nothing since 2026-11-25"), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(1), "{args:?}: {out}{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
