//! `OpenCode` fixtures (`opencode run --format json`, 1.18.33): every one is
//! detected without `--from`, every tool call comes out exactly once with its
//! result, the failures are errors, and the exit status follows the session.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use streamview::diag::Diag;
use streamview::render::Jsonl;
use streamview::{ExitStatus, Runner};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/opencode");

fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 13, "fixtures missing in {DIR}");
    files
}

/// streamview's JSONL for `input`, parsed, and the exit status.
fn normalize(input: &[u8]) -> (ExitStatus, Vec<Value>) {
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), false);
    let status = {
        let mut runner = Runner::new(&mut sink, &mut diag, 64 << 20);
        runner.source("fixture", input).unwrap();
        runner.finish().unwrap().1
    };
    let diag = String::from_utf8(diag.into_inner()).unwrap();
    assert_eq!(diag, "", "diagnostics");
    let out = String::from_utf8(sink.into_inner()).unwrap();
    let events = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (status, events)
}

/// Lines of the raw stream, parsed independently of streamview.
fn raw_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The tool calls in the raw stream: distinct `part.callID` of `tool_use` lines.
fn raw_calls(lines: &[Value]) -> BTreeSet<String> {
    lines
        .iter()
        .filter(|v| v["type"] == "tool_use")
        .map(|v| v["part"]["callID"].as_str().unwrap().to_string())
        .collect()
}

/// The failed calls: `state.status` error, a shell exit code other than 0,
/// or a call to a tool that does not exist (`invalid`).
fn raw_failures(lines: &[Value]) -> BTreeSet<String> {
    lines
        .iter()
        .filter(|v| v["type"] == "tool_use")
        .filter(|v| {
            let p = &v["part"];
            let st = &p["state"];
            st["status"] == "error"
                || p["tool"] == "invalid"
                || st["metadata"]["exit"].as_i64().is_some_and(|c| c != 0)
        })
        .map(|v| v["part"]["callID"].as_str().unwrap().to_string())
        .collect()
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["kind"] == kind).collect()
}

fn ids(events: &[&Value]) -> BTreeSet<String> {
    events
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_fixture_is_detected_as_opencode() {
    for path in fixtures() {
        let (_, events) = normalize(&std::fs::read(&path).unwrap());
        assert!(!events.is_empty(), "{}", path.display());
        for e in &events {
            assert_eq!(e["producer"], "opencode", "{}: {e}", path.display());
            assert_ne!(e["kind"], "unknown", "{}: {e}", path.display());
        }
    }
}

#[test]
fn every_tool_call_exactly_once_with_one_result() {
    let mut total = 0;
    for path in fixtures() {
        let raw = raw_lines(&path);
        let calls = raw_calls(&raw);
        let (_, events) = normalize(&std::fs::read(&path).unwrap());
        let tool_calls = of_kind(&events, "tool_call");
        let tool_results = of_kind(&events, "tool_result");
        let name = path.display();
        assert_eq!(tool_calls.len(), calls.len(), "{name}: tool_call count");
        assert_eq!(ids(&tool_calls), calls, "{name}: tool_call ids");
        assert_eq!(tool_results.len(), calls.len(), "{name}: tool_result count");
        assert_eq!(ids(&tool_results), calls, "{name}: tool_result ids");
        for c in &tool_calls {
            assert!(
                c["key_arg"].as_str().is_some_and(|k| !k.is_empty()),
                "{name}: no key argument: {c}"
            );
        }
        let failed: BTreeSet<String> = tool_results
            .iter()
            .filter(|r| r["is_error"] == true)
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(failed, raw_failures(&raw), "{name}: failed calls");
        total += calls.len();
    }
    // files 6, mixed 3, parallel 2, shell 1+1, todos 3, tool_error 3
    assert_eq!(total, 19);
}

#[test]
fn shell_exit_codes_are_visible() {
    let (_, events) = normalize(&std::fs::read(format!("{DIR}/shell_fail.jsonl")).unwrap());
    let r = of_kind(&events, "tool_result")[0];
    assert_eq!(r["is_error"], true);
    assert!(
        r["content"].as_str().unwrap().starts_with("exit code 3\n"),
        "{r}"
    );
}

#[test]
fn one_result_per_session_with_the_steps_totals() {
    for path in fixtures() {
        let raw = raw_lines(&path);
        let (status, events) = normalize(&std::fs::read(&path).unwrap());
        let name = path.display();
        let results = of_kind(&events, "result");
        assert_eq!(results.len(), 1, "{name}");
        let r = results[0];
        assert_eq!(events.last().unwrap(), r, "{name}: the result comes last");
        let steps = raw.iter().filter(|v| v["type"] == "step_start").count();
        let errors = raw.iter().filter(|v| v["type"] == "error").count();
        assert_eq!(r["num_turns"], steps, "{name}");
        assert_eq!(r["subtype"], "end_of_input", "{name}");
        assert_eq!(r["is_error"], errors > 0, "{name}");
        assert_eq!(r["errors"].as_array().unwrap().len(), errors, "{name}");
        let finishes: Vec<&Value> = raw
            .iter()
            .filter(|v| v["type"] == "step_finish")
            .map(|v| &v["part"])
            .collect();
        let sum = |f: &dyn Fn(&Value) -> u64| finishes.iter().map(|p| f(p)).sum::<u64>();
        if finishes.is_empty() {
            assert_eq!(r["tokens"]["input"], Value::Null, "{name}");
            assert_eq!(r["cost_usd"], Value::Null, "{name}");
        } else {
            let t = &r["tokens"];
            assert_eq!(t["input"], sum(&|p| p["tokens"]["input"].as_u64().unwrap()));
            assert_eq!(
                t["output"],
                sum(&|p| p["tokens"]["output"].as_u64().unwrap()
                    + p["tokens"]["reasoning"].as_u64().unwrap())
            );
            assert_eq!(
                t["cache_read"],
                sum(&|p| p["tokens"]["cache"]["read"].as_u64().unwrap())
            );
            assert_eq!(
                t["cache_creation"],
                sum(&|p| p["tokens"]["cache"]["write"].as_u64().unwrap())
            );
            assert_eq!(r["cost_usd"], 0.0, "{name}");
            assert_eq!(of_kind(&events, "usage").len(), finishes.len(), "{name}");
        }
        let want = if errors > 0 {
            ExitStatus::SessionError
        } else {
            ExitStatus::Success
        };
        assert_eq!(status, want, "{name}");
    }
}

#[test]
fn a_stream_cut_mid_step_is_incomplete() {
    let full = std::fs::read_to_string(format!("{DIR}/shell_ok.jsonl")).unwrap();
    // Drop the last line (the final step_finish): the last step never ended.
    let lines: Vec<&str> = full.lines().collect();
    let cut = lines[..lines.len() - 1].join("\n") + "\n";
    let (status, events) = normalize(cut.as_bytes());
    assert!(of_kind(&events, "result").is_empty());
    assert_eq!(status, ExitStatus::Incomplete);
    // Cut after the tool step: opencode would have made another request.
    let cut = lines[..4].join("\n") + "\n";
    let (status, events) = normalize(cut.as_bytes());
    assert!(of_kind(&events, "result").is_empty());
    assert_eq!(status, ExitStatus::Incomplete);
}

#[test]
fn concatenated_sessions_each_get_their_result() {
    let a = std::fs::read_to_string(format!("{DIR}/text.jsonl")).unwrap();
    let b = std::fs::read_to_string(format!("{DIR}/error_500.jsonl")).unwrap();
    let (status, events) = normalize(format!("{a}{b}").as_bytes());
    let starts = of_kind(&events, "session_start");
    let results = of_kind(&events, "result");
    assert_eq!(starts.len(), 2);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["session"], starts[0]["session"]);
    assert_eq!(results[0]["is_error"], false);
    assert_eq!(results[1]["session"], starts[1]["session"]);
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(results[1]["api_error_status"], 500);
    assert_eq!(status, ExitStatus::SessionError);
}
