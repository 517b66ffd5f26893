//! Claude Code saved transcripts (`tests/fixtures/claude-transcript/`), end to
//! end through the binary:
//!
//! * every fixture is detected without `--from`;
//! * the JSONL `tool_call` events are exactly the transcript's tool calls,
//!   counted independently from the raw lines;
//! * a transcript shows what the stream-json run of the same scripted
//!   session shows (`tests/fixtures/claude*/`): the same tool calls (name and
//!   key argument, in order), the same thinking, the same sub-agent work,
//!   the same token totals.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const DIR: &str = "tests/fixtures/claude-transcript";

fn fixture(name: &str) -> PathBuf {
    Path::new(ROOT).join(name)
}

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixture(DIR))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    assert!(v.len() >= 10, "{v:?}");
    v
}

/// `streamview --format jsonl` of the files (or of `stdin` when none), parsed.
fn jsonl(files: &[PathBuf], stdin: &[u8]) -> (i32, Vec<Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--format", "jsonl"])
        .args(files)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.stderr.is_empty(),
        "{files:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
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

/// `(name, key_arg)` of the tool calls, in order; `parent: None` selects the
/// main agent's, `Some(id)` those of the sub-agent started by call `id`.
fn calls(events: &[Value], parent: Option<&str>) -> Vec<(String, String)> {
    of_kind(events, "tool_call")
        .into_iter()
        .filter(|e| e["parent"].as_str() == parent)
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["key_arg"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The sub-agents' calls, keyed by the key argument of the `Agent` call
/// that started them (ids differ between runs; descriptions do not).
fn calls_by_agent(events: &[Value]) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out = BTreeMap::new();
    for agent in of_kind(events, "tool_call")
        .into_iter()
        .filter(|e| e["name"] == "Agent" || e["name"] == "Task")
    {
        let id = agent["id"].as_str().unwrap();
        let key = agent["key_arg"].as_str().unwrap().to_string();
        out.insert(key, calls(events, Some(id)));
    }
    out
}

/// Tool calls in the raw transcript: `tool_use` blocks of assistant
/// entries, each entry once (by `uuid`), each call once (by `id`).
fn raw_tool_calls(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let mut entries = HashSet::new();
    let mut ids = HashSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["type"] != "assistant" {
            continue;
        }
        if let Some(u) = v["uuid"].as_str()
            && !entries.insert(u.to_string())
        {
            continue;
        }
        for b in v["message"]["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_use" {
                ids.insert(b["id"].as_str().unwrap().to_string());
            }
        }
    }
    ids.len()
}

fn tokens(r: &Value) -> (u64, u64) {
    (
        r["tokens"]["input"].as_u64().unwrap(),
        r["tokens"]["output"].as_u64().unwrap(),
    )
}

/// Sum of the results' tokens (2.1.330 stream-json writes one per turn).
fn result_tokens(events: &[Value]) -> (u64, u64) {
    of_kind(events, "result")
        .iter()
        .map(|r| tokens(r))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

#[test]
fn every_fixture_is_detected_and_complete() {
    for path in fixtures() {
        let (code, events) = jsonl(std::slice::from_ref(&path), b"");
        let name = path.display();
        assert_eq!(code, 0, "{name}");
        assert!(!events.is_empty(), "{name}");
        for e in &events {
            assert_eq!(e["producer"], "claude-transcript", "{name}: {e}");
            assert_ne!(e["kind"], "unknown", "{name}: {e}");
        }
        assert_eq!(of_kind(&events, "session_start").len(), 1, "{name}");
        assert_eq!(of_kind(&events, "result").len(), 1, "{name}");
        assert_eq!(events.last().unwrap()["kind"], "result", "{name}");
    }
}

#[test]
fn tool_call_events_are_the_transcripts_tool_calls() {
    let mut total = 0;
    for path in fixtures() {
        let (_, events) = jsonl(std::slice::from_ref(&path), b"");
        let expected = raw_tool_calls(&path);
        let got = of_kind(&events, "tool_call");
        assert_eq!(got.len(), expected, "{}", path.display());
        // Each with a key argument and exactly one result.
        for c in &got {
            assert!(c["key_arg"].as_str().is_some_and(|k| !k.is_empty()), "{c}");
            let answers = of_kind(&events, "tool_result")
                .into_iter()
                .filter(|r| r["id"] == c["id"])
                .count();
            assert_eq!(answers, 1, "{}: {c}", path.display());
        }
        total += expected;
    }
    assert_eq!(total, 20);
}

#[test]
fn failures_are_visible() {
    for name in [
        "transcript_subagent.agent-abe457c7cccc84957.jsonl",
        "v2.1.330_transcript_subagent.agent-a33c7066d6f0e2ac6.jsonl",
    ] {
        let (_, events) = jsonl(&[fixture(&format!("{DIR}/{name}"))], b"");
        let failed: Vec<_> = of_kind(&events, "tool_result")
            .into_iter()
            .filter(|r| r["is_error"] == true)
            .map(|r| r["content"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(failed, ["Exit code 1"], "{name}");
    }
}

/// The acceptance test: the transcript and the stream-json of the same
/// scripted session show the same tool calls, in the same order.
#[test]
fn same_tool_calls_as_stream_json() {
    for (transcript, stream) in [
        ("transcript_tools_basic", "claude/tools_basic"),
        ("transcript_thinking", "claude/thinking"),
        ("transcript_subagent", "claude/subagent"),
        (
            "v2.1.330_transcript_tools_basic",
            "claude-2.1.330/tools_basic",
        ),
        ("v2.1.330_transcript_thinking", "claude-2.1.330/thinking"),
        ("v2.1.330_transcript_subagent", "claude-2.1.330/subagent"),
    ] {
        let (_, t) = jsonl(&[fixture(&format!("{DIR}/{transcript}.jsonl"))], b"");
        let (_, s) = jsonl(&[fixture(&format!("tests/fixtures/{stream}.jsonl"))], b"");
        let main = calls(&t, None);
        assert!(!main.is_empty(), "{transcript}");
        assert_eq!(main, calls(&s, None), "{transcript} vs {stream}");
        // The same token totals: the transcript's final usage per message
        // adds up to what the stream's results reported.
        assert_eq!(
            tokens(of_kind(&t, "result")[0]),
            result_tokens(&s),
            "{transcript} vs {stream}"
        );
    }
    // The basic scenario, spelled out.
    let (_, t) = jsonl(
        &[fixture(&format!("{DIR}/transcript_tools_basic.jsonl"))],
        b"",
    );
    let names: Vec<_> = calls(&t, None).into_iter().map(|c| c.0).collect();
    assert_eq!(names, ["Read", "Glob", "Grep", "Bash"]);
}

#[test]
fn same_thinking_as_stream_json() {
    for (transcript, stream) in [
        ("transcript_thinking", "claude/thinking"),
        ("v2.1.330_transcript_thinking", "claude-2.1.330/thinking"),
    ] {
        let (_, t) = jsonl(&[fixture(&format!("{DIR}/{transcript}.jsonl"))], b"");
        let (_, s) = jsonl(&[fixture(&format!("tests/fixtures/{stream}.jsonl"))], b"");
        let thinking = |ev: &[Value]| -> Vec<(String, bool)> {
            of_kind(ev, "thinking")
                .into_iter()
                .map(|e| {
                    (
                        e["text"].as_str().unwrap().to_string(),
                        e["redacted"].as_bool().unwrap(),
                    )
                })
                .collect()
        };
        assert_eq!(thinking(&t).len(), 3, "{transcript}");
        assert_eq!(thinking(&t), thinking(&s), "{transcript} vs {stream}");
        let texts = |ev: &[Value]| -> Vec<String> {
            of_kind(ev, "text")
                .into_iter()
                .filter(|e| e["role"] == "assistant")
                .map(|e| e["text"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(texts(&t), texts(&s), "{transcript} vs {stream}");
    }
}

/// Sub-agents: their files, read after the main transcript in one input,
/// nest under the `Agent` calls and hold the calls the stream-json run
/// showed nested under the same calls.
#[test]
fn same_sub_agent_work_as_stream_json() {
    for (prefix, stream, agents) in [
        (
            "transcript_subagent",
            "claude/subagent",
            ["a8164d334e3dc2758", "abe457c7cccc84957"],
        ),
        (
            "v2.1.330_transcript_subagent",
            "claude-2.1.330/subagent",
            ["ab9e7b6a40a741e9b", "a33c7066d6f0e2ac6"],
        ),
    ] {
        let mut all = std::fs::read(fixture(&format!("{DIR}/{prefix}.jsonl"))).unwrap();
        for a in agents {
            all.extend(std::fs::read(fixture(&format!("{DIR}/{prefix}.agent-{a}.jsonl"))).unwrap());
        }
        let (code, t) = jsonl(&[], &all);
        assert_eq!(code, 0);
        let (_, s) = jsonl(&[fixture(&format!("tests/fixtures/{stream}.jsonl"))], b"");
        let nested = calls_by_agent(&t);
        assert_eq!(nested.len(), 2, "{prefix}");
        assert!(
            nested.values().all(|c| !c.is_empty()),
            "{prefix}: {nested:?}"
        );
        assert_eq!(nested, calls_by_agent(&s), "{prefix} vs {stream}");
        // Un-nested, each file alone shows the same calls.
        for a in agents {
            let (_, alone) = jsonl(&[fixture(&format!("{DIR}/{prefix}.agent-{a}.jsonl"))], b"");
            let own = calls(&alone, None);
            assert!(
                nested.values().any(|c| *c == own),
                "{prefix} agent {a}: {own:?}"
            );
            let n = of_kind(&alone, "notice");
            assert!(n.iter().any(|n| n["subtype"] == "sidechain"), "{a}");
        }
    }
}

#[test]
fn a_transcript_cut_mid_turn_is_incomplete() {
    let text =
        std::fs::read_to_string(fixture(&format!("{DIR}/transcript_tools_basic.jsonl"))).unwrap();
    // Up to the Bash call, before its result.
    let mut cut = text.lines().take(13).collect::<Vec<_>>().join("\n");
    cut.push('\n');
    let (code, events) = jsonl(&[], cut.as_bytes());
    assert_eq!(code, 3);
    assert!(of_kind(&events, "result").is_empty());
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--color", "never"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(cut.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(shown.contains("✗ stream ended without a result"), "{shown}");
    assert!(shown.contains("interrupted: Bash ls -la"), "{shown}");
}

/// A transcript after a stream-json log in one input starts at its first
/// line, metadata included.
#[test]
fn a_transcript_after_a_stream_json_log() {
    let mut all = std::fs::read(fixture("tests/fixtures/claude/tools_basic.jsonl")).unwrap();
    all.extend(std::fs::read(fixture(&format!("{DIR}/transcript_thinking.jsonl"))).unwrap());
    let (code, events) = jsonl(&[], &all);
    assert_eq!(code, 0);
    assert!(of_kind(&events, "unknown").is_empty());
    let producers: Vec<_> = of_kind(&events, "result")
        .iter()
        .map(|r| r["producer"].as_str().unwrap())
        .collect();
    assert_eq!(producers, ["claude", "claude-transcript"]);
    let (_, alone) = jsonl(&[fixture(&format!("{DIR}/transcript_thinking.jsonl"))], b"");
    assert_eq!(
        of_kind(&events, "result")[1]["duration_ms"],
        of_kind(&alone, "result")[0]["duration_ms"]
    );
}
