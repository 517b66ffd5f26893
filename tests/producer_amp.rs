//! Amp fixtures (`tests/fixtures/amp/`, real captures of the Amp CLI)
//! through the binary: detected without `--from`, every tool call and
//! every result written exactly once, and a command that exited non-zero
//! written as failed (counted independently from the raw lines).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/amp");

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    assert!(v.len() >= 3, "fixtures missing in {DIR}");
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

fn blocks<'a>(lines: &'a [Value], line_type: &str, block: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l["type"] == line_type)
        .filter_map(|l| l["message"]["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == block)
        .collect()
}

fn of_kind<'a>(evs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["kind"] == kind).collect()
}

fn strs<'a>(vals: &[&'a Value], key: &str) -> Vec<&'a str> {
    vals.iter().map(|v| v[key].as_str().unwrap()).collect()
}

#[test]
fn detected_without_from() {
    for f in fixtures() {
        let (evs, _) = jsonl(Some(&f), "");
        assert!(!evs.is_empty(), "{}", f.display());
        for e in &evs {
            assert_eq!(e["producer"], "amp", "{}: {e}", f.display());
        }
    }
}

#[test]
fn every_tool_call_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(Some(&f), "").0;
        let calls = of_kind(&evs, "tool_call");
        assert_eq!(
            strs(&calls, "id"),
            strs(&blocks(&lines, "assistant", "tool_use"), "id"),
            "{}",
            f.display()
        );
        for c in &calls {
            assert!(c["key_arg"].is_string(), "{}: no key for {c}", f.display());
        }
    }
}

#[test]
fn every_tool_result_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(Some(&f), "").0;
        let expected = blocks(&lines, "user", "tool_result");
        let results = of_kind(&evs, "tool_result");
        assert_eq!(
            strs(&results, "id"),
            strs(&expected, "tool_use_id"),
            "{}",
            f.display()
        );
        for (r, b) in results.iter().zip(&expected) {
            // A command's exit code is only inside its JSON text.
            let exit = serde_json::from_str::<Value>(b["content"].as_str().unwrap())
                .ok()
                .and_then(|c| c["exitCode"].as_i64());
            let failed = b["is_error"] == true || exit.is_some_and(|c| c != 0);
            assert_eq!(r["is_error"], failed, "{}: {r}", f.display());
            if let Some(code) = exit.filter(|&c| c != 0) {
                let content = r["content"].as_str().unwrap();
                assert!(
                    content.starts_with(&format!("exit code {code}\n")),
                    "{content}"
                );
            }
            assert!(r["name"].is_string(), "{}: unpaired {r}", f.display());
        }
    }
}

#[test]
fn results_and_exit_statuses() {
    let run = |name: &str| jsonl(Some(&Path::new(DIR).join(name)), "");
    let (evs, code) = run("multi.jsonl");
    assert_eq!(code, 0);
    assert_eq!(of_kind(&evs, "result")[0]["num_turns"], 13);
    let start = of_kind(&evs, "session_start")[0];
    assert_eq!(start["agent_mode"], "medium");
    assert_eq!(start["model"], Value::Null);
    // The patch's key argument is the file it touches; its result the diff.
    let patch = of_kind(&evs, "tool_call")
        .into_iter()
        .find(|c| c["name"] == "apply_patch")
        .unwrap();
    assert_eq!(patch["key_arg"], "NOTES.md");
    let diff = of_kind(&evs, "tool_result")
        .into_iter()
        .find(|r| r["id"] == patch["id"])
        .unwrap();
    assert!(
        diff["content"]
            .as_str()
            .unwrap()
            .contains("+Low stock means")
    );

    // A failed command: shown failed, its output after the exit code.
    let (evs, code) = run("shell.jsonl");
    assert_eq!(code, 0, "a failed command does not fail the session");
    let failed: Vec<&str> = of_kind(&evs, "tool_result")
        .into_iter()
        .filter(|r| r["is_error"] == true)
        .map(|r| r["content"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(failed[0].starts_with("exit code 2\nout of stock: flour"));
    assert!(failed[1].contains("stockctl: command not found"));
    let keys = strs(&of_kind(&evs, "tool_call"), "key_arg");
    assert_eq!(keys[2], "stockctl --sync");

    // The session failed: exit 1, although the CLI itself exits 0.
    let (evs, code) = run("server_error.jsonl");
    assert_eq!(code, 1);
    let result = of_kind(&evs, "result")[0];
    assert_eq!(result["is_error"], true);
    assert_eq!(
        result["errors"][0],
        "mock: inference backend returned HTTP 500 Internal Server Error"
    );

    // A search without a match says so, not `["No results found."]`.
    let (evs, _) = run("search.jsonl");
    let contents = strs(&of_kind(&evs, "tool_result"), "content");
    assert!(contents.contains(&"No results found."), "{contents:?}");

    // The sub-agent's answer is its own text.
    let (evs, _) = run("subagent.jsonl");
    let answer = of_kind(&evs, "tool_result")[0]["content"].as_str().unwrap();
    assert!(
        answer.starts_with("One row has a zero quantity"),
        "{answer}"
    );
}

/// An init that has grown a field the detection table does not expect is
/// still Amp (its thread id), and so is the rest of the stream.
#[test]
fn init_with_an_unexpected_field() {
    let input = [
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"T-9","tools":["Bash"],"mcp_servers":[],"model":"claude-sonnet-4-5"}"#,
        r#"{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"cmd":"ls"}}],"stop_reason":"tool_use","stop_sequence":null},"parent_tool_use_id":null,"session_id":"T-9"}"#,
    ]
    .join("\n");
    let (evs, _) = jsonl(None, &input);
    assert!(evs.iter().all(|e| e["producer"] == "amp"), "{evs:?}");
    assert_eq!(
        of_kind(&evs, "session_start")[0]["model"],
        "claude-sonnet-4-5"
    );
    assert_eq!(of_kind(&evs, "tool_call")[0]["key_arg"], "ls");
}

/// A first line of a shape Claude and Amp share and no thread id (the
/// prompt as Amp reads it with `--stream-json-input`) is read the Claude
/// way; the stream latches to Amp at the first line with a `T-` id.
#[test]
fn ambiguous_first_line() {
    let input = [
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Run ls."}]}}"#,
        r#"{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"cmd":"ls"}}],"stop_reason":"tool_use","stop_sequence":null},"parent_tool_use_id":null,"session_id":"T-9"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt","is_error":false}]},"parent_tool_use_id":null,"session_id":"T-9"}"#,
        r#"{"type":"result","subtype":"success","duration_ms":5,"is_error":false,"num_turns":1,"result":"a.txt","session_id":"T-9"}"#,
    ]
    .join("\n");
    let (evs, code) = jsonl(None, &input);
    assert_eq!(code, 0);
    let producers: Vec<&str> = evs
        .iter()
        .map(|e| e["producer"].as_str().unwrap())
        .collect();
    assert_eq!(producers, ["claude", "amp", "amp", "amp"], "{evs:?}");
    assert_eq!(of_kind(&evs, "text")[0]["text"], "Run ls.");
    // Bash's `cmd` is Amp's: the key argument shows the stream is read as Amp.
    assert_eq!(of_kind(&evs, "tool_call")[0]["key_arg"], "ls");
    assert_eq!(of_kind(&evs, "tool_result")[0]["name"], "Bash");
}
