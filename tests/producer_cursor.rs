//! Cursor Agent fixtures (`tests/fixtures/cursor/`, synthetic, written from
//! `docs/protocols.md` §8) through the binary: detected without `--from`,
//! every tool call and every outcome written exactly once (counted
//! independently from the raw lines), partial-output text written once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cursor");

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    assert!(v.len() >= 4, "fixtures missing in {DIR}");
    v
}

/// `streamview --format jsonl` (no `--from`) on a file or on stdin.
fn jsonl(path: Option<&Path>, stdin: &str) -> (Vec<Value>, i32) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_streamview"));
    cmd.args(["--format", "jsonl", "--color", "never"]);
    if let Some(p) = path {
        cmd.arg(p);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let code = out.status.code().unwrap();
    assert!(matches!(code, 0 | 1 | 3), "{out:?}");
    let evs = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (evs, code)
}

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

fn ids(evs: &[&Value]) -> Vec<String> {
    evs.iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn detected_without_from() {
    for f in fixtures() {
        let (evs, _) = jsonl(Some(&f), "");
        assert!(!evs.is_empty(), "{}", f.display());
        for e in &evs {
            assert_eq!(e["producer"], "cursor", "{}: {e}", f.display());
        }
    }
}

#[test]
fn every_tool_call_and_outcome_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(Some(&f), "").0;
        // Calls: distinct call ids of `tool_call` lines, in order of appearance.
        let mut seen = BTreeSet::new();
        let expected: Vec<String> = lines
            .iter()
            .filter(|l| l["type"] == "tool_call")
            .map(|l| l["call_id"].as_str().unwrap().to_string())
            .filter(|id| seen.insert(id.clone()))
            .collect();
        let calls = of_kind(&evs, "tool_call");
        assert_eq!(ids(&calls), expected, "{}", f.display());
        for c in &calls {
            assert!(c["key_arg"].is_string(), "{}: no key for {c}", f.display());
        }
        // Outcomes: one per `completed` line.
        let completed: Vec<String> = lines
            .iter()
            .filter(|l| l["type"] == "tool_call" && l["subtype"] == "completed")
            .map(|l| l["call_id"].as_str().unwrap().to_string())
            .collect();
        let results = of_kind(&evs, "tool_result");
        assert_eq!(ids(&results), completed, "{}", f.display());
        // Failures are errors, with the exit code in the content.
        for (line, r) in lines
            .iter()
            .filter(|l| l["type"] == "tool_call" && l["subtype"] == "completed")
            .zip(&results)
        {
            let body = line["tool_call"]
                .as_object()
                .unwrap()
                .values()
                .next()
                .unwrap();
            let (outcome, detail) = body["result"].as_object().unwrap().iter().next().unwrap();
            let code = detail["exitCode"].as_i64().unwrap_or(0);
            let failed = outcome != "success" || code != 0;
            assert_eq!(r["is_error"], failed, "{}: {r}", f.display());
            if code != 0 {
                let content = r["content"].as_str().unwrap();
                assert!(content.starts_with(&format!("exit code {code}")), "{r}");
            }
        }
    }
}

#[test]
fn assistant_text_once_despite_partial_output() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(Some(&f), "").0;
        // Complete messages are the lines without `timestamp_ms`.
        let expected: Vec<&str> = lines
            .iter()
            .filter(|l| l["type"] == "assistant" && l.get("timestamp_ms").is_none())
            .map(|l| l["message"]["content"][0]["text"].as_str().unwrap())
            .collect();
        let texts: Vec<&str> = of_kind(&evs, "text")
            .iter()
            .filter(|t| t["role"] == "assistant")
            .map(|t| t["text"].as_str().unwrap())
            .collect();
        assert_eq!(texts, expected, "{}", f.display());
        // The result does not repeat them all.
        if let Some(r) = of_kind(&evs, "result").first() {
            assert_eq!(
                r["text"].as_str(),
                expected.last().copied(),
                "{}",
                f.display()
            );
        }
    }
}

/// Without `system`/`init`, the first line (the prompt echo) has a shape
/// Claude and Cursor share: it is read the Claude way, and the stream
/// latches to Cursor at the first Cursor-only line.
#[test]
fn ambiguous_first_line() {
    let input = [
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"List the files."}]},"session_id":"s9"}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Listing."}]},"session_id":"s9"}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"lsToolCall":{"args":{"path":"/w"}}},"session_id":"s9","timestamp_ms":1}"#,
        r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"lsToolCall":{"args":{"path":"/w"},"result":{"success":{"files":["a"]}}}},"session_id":"s9","timestamp_ms":2}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"One file."}]},"session_id":"s9"}"#,
        r#"{"type":"result","subtype":"success","duration_ms":9,"duration_api_ms":9,"is_error":false,"result":"Listing.One file.","session_id":"s9"}"#,
    ]
    .join("\n");
    let (evs, code) = jsonl(None, &input);
    assert_eq!(code, 0);
    let producers: Vec<&str> = evs
        .iter()
        .map(|e| e["producer"].as_str().unwrap())
        .collect();
    assert_eq!(
        producers,
        ["claude", "claude", "cursor", "cursor", "cursor", "cursor"],
        "{evs:?}"
    );
    assert_eq!(of_kind(&evs, "tool_call")[0]["name"], "ls");
    assert_eq!(of_kind(&evs, "tool_result")[0]["name"], "ls");
    let texts: Vec<&str> = of_kind(&evs, "text")
        .iter()
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["List the files.", "Listing.", "One file."]);

    // A first line that is a partial-output fragment is Cursor at once.
    let input = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}]},"session_id":"s9","timestamp_ms":1}"#;
    let (evs, _) = jsonl(None, input);
    assert!(evs.iter().all(|e| e["producer"] == "cursor"), "{evs:?}");
    // So is a result with camelCase usage.
    let input = r#"{"type":"result","subtype":"success","is_error":false,"result":"x","session_id":"s9","usage":{"inputTokens":1,"outputTokens":2}}"#;
    let (evs, _) = jsonl(None, input);
    assert_eq!(evs[0]["producer"], "cursor");
    assert_eq!(evs[0]["tokens"]["output"], 2);
}
