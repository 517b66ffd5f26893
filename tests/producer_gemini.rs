//! Gemini CLI fixtures against independent counts from the raw files: every
//! `tool_use` is one `tool_call`, every `tool_result` one `tool_result` with
//! the same id, the assistant chunks are one `text`, the producer is
//! detected without `--from`, and the final `result` sets the exit status.
//! Also: the non-streaming `--output-format json` captures do not crash.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use serde_json::Value;
use streamview::diag::Diag;
use streamview::event::Producer;
use streamview::render::Jsonl;
use streamview::{ExitStatus, Runner};

const DIR: &str = "tests/fixtures/gemini";

fn fixtures(ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no *.{ext} fixtures in {DIR}");
    v
}

/// The fixture as JSONL events, with the exit status; `from` forces the producer.
fn normalize(path: &Path, from: Option<Producer>) -> (ExitStatus, Vec<Value>) {
    let input = std::fs::read(path).unwrap();
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), false);
    let mut runner = Runner::new(&mut sink, &mut diag, 64 << 20).with_producer(from);
    runner.source("fixture", &input[..]).unwrap();
    let (_, status) = runner.finish().unwrap();
    let out = String::from_utf8(sink.into_inner()).unwrap();
    let events = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (status, events)
}

/// The raw lines of a fixture.
fn raw(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn of_kind<'a>(evs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["kind"] == kind).collect()
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_tool_use_is_one_tool_call() {
    for path in fixtures("jsonl") {
        let lines = raw(&path);
        let (_, evs) = normalize(&path, None);
        let raw_ids: Vec<&str> = lines
            .iter()
            .filter(|l| l["type"] == "tool_use")
            .map(|l| l["tool_id"].as_str().unwrap())
            .collect();
        let call_ids: Vec<&str> = of_kind(&evs, "tool_call")
            .iter()
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        assert_eq!(call_ids, raw_ids, "{}", name(&path));
        for call in of_kind(&evs, "tool_call") {
            assert!(
                call["key_arg"].is_string() || call["name"] == "no_such_tool",
                "{}: tool call without key argument: {call}",
                name(&path)
            );
        }
    }
}

#[test]
fn every_tool_result_is_one_tool_result_with_its_status() {
    for path in fixtures("jsonl") {
        let lines = raw(&path);
        let (_, evs) = normalize(&path, None);
        let raw_results: Vec<(&str, bool)> = lines
            .iter()
            .filter(|l| l["type"] == "tool_result")
            .map(|l| (l["tool_id"].as_str().unwrap(), l["status"] == "error"))
            .collect();
        let results: Vec<(&str, bool)> = of_kind(&evs, "tool_result")
            .iter()
            .map(|e| (e["id"].as_str().unwrap(), e["is_error"].as_bool().unwrap()))
            .collect();
        assert_eq!(results, raw_results, "{}", name(&path));
        for r in of_kind(&evs, "tool_result") {
            assert!(
                r["name"].is_string(),
                "{}: unpaired result {r}",
                name(&path)
            );
            if r["is_error"] == true {
                assert_ne!(r["content"], "", "{}: silent failure {r}", name(&path));
            }
        }
    }
}

#[test]
fn assistant_chunks_become_one_text_per_answer() {
    for path in fixtures("jsonl") {
        let lines = raw(&path);
        let (_, evs) = normalize(&path, None);
        // Independent join: consecutive assistant chunks form one answer.
        let mut answers: Vec<String> = Vec::new();
        let mut open = false;
        for l in &lines {
            if l["type"] == "message" && l["role"] == "assistant" && l["delta"] == true {
                if !open {
                    answers.push(String::new());
                    open = true;
                }
                answers
                    .last_mut()
                    .unwrap()
                    .push_str(l["content"].as_str().unwrap());
            } else {
                open = false;
            }
        }
        let texts: Vec<&str> = of_kind(&evs, "text")
            .iter()
            .filter(|e| e["role"] == "assistant")
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        assert_eq!(texts, answers, "{}", name(&path));
        let chunks = lines
            .iter()
            .filter(|l| l["type"] == "message" && l["role"] == "assistant")
            .count();
        assert_eq!(of_kind(&evs, "delta").len(), chunks, "{}", name(&path));
    }
}

#[test]
fn fixtures_are_detected_without_from() {
    for path in fixtures("jsonl") {
        let (auto_status, auto) = normalize(&path, None);
        assert!(!auto.is_empty(), "{}", name(&path));
        for e in &auto {
            assert_eq!(e["producer"], "gemini", "{}: {e}", name(&path));
            assert!(
                e["session"].is_string(),
                "{}: no session on {e}",
                name(&path)
            );
            assert_ne!(e["kind"], "unknown", "{}: {e}", name(&path));
        }
        let (forced_status, forced) = normalize(&path, Some(Producer::Gemini));
        assert_eq!(auto, forced, "{}", name(&path));
        assert_eq!(auto_status, forced_status, "{}", name(&path));
    }
}

#[test]
fn the_result_decides_the_exit_status() {
    for path in fixtures("jsonl") {
        let lines = raw(&path);
        let (exit, evs) = normalize(&path, None);
        let last = lines.last().unwrap();
        assert_eq!(last["type"], "result", "{}", name(&path));
        let expected = if last["status"] == "success" {
            ExitStatus::Success
        } else {
            ExitStatus::SessionError
        };
        assert_eq!(exit, expected, "{}", name(&path));
        let results = of_kind(&evs, "result");
        assert_eq!(results.len(), 1, "{}", name(&path));
        let r = results[0];
        let stats = &last["stats"];
        assert_eq!(r["tokens"]["input"], stats["input"], "{}", name(&path));
        assert_eq!(
            r["tokens"]["output"],
            stats["output_tokens"],
            "{}",
            name(&path)
        );
        assert_eq!(
            r["tokens"]["cache_read"],
            stats["cached"],
            "{}",
            name(&path)
        );
        assert_eq!(r["cost_usd"], Value::Null, "{}", name(&path));
        assert_eq!(r["num_turns"], Value::Null, "{}", name(&path));
        if last["status"] == "success" {
            assert_eq!(r["duration_ms"], stats["duration_ms"], "{}", name(&path));
        } else {
            assert_eq!(r["text"], last["error"]["message"], "{}", name(&path));
            assert!(r["duration_ms"].as_u64().unwrap() > 0, "{}", name(&path));
        }
    }
}

#[test]
fn warnings_stay_visible() {
    let (_, evs) = normalize(&Path::new(DIR).join("loop.jsonl"), None);
    let notices = of_kind(&evs, "notice");
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0]["level"], "warning");
    assert_eq!(notices[0]["text"], "Loop detected, stopping execution");
}

/// `--output-format json` prints one pretty-printed object (or nothing, on
/// a fatal error): not a stream. streamview shows its lines as text and
/// reports that no result came; it must not crash or invent events.
#[test]
fn json_format_captures_do_not_crash() {
    for path in fixtures("json") {
        for from in [None, Some(Producer::Gemini)] {
            let (status, evs) = normalize(&path, from);
            assert_eq!(status, ExitStatus::Incomplete, "{}", name(&path));
            for e in &evs {
                assert_eq!(e["kind"], "plain_text", "{}: {e}", name(&path));
            }
        }
    }
}
