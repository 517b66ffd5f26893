//! Cursor Agent fixtures (`tests/fixtures/cursor/`, synthetic, written from
//! `docs/protocols.md` §8) through the binary: detected without `--from`,
//! every tool call and every outcome written exactly once (counted
//! independently from the raw lines), partial-output text written once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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

/// Cursor Agent decoding, through the whole pipeline to JSONL. The lines
/// follow `docs/protocols.md` §8 (no real capture exists).
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/cursor/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use crate::common::pipeline::jsonl_run as run;
    use streamview::ExitStatus;
    use streamview::event::Producer;

    fn cursor(lines: &[&str]) -> Vec<J> {
        run(&lines.join("\n"), Some(Producer::Cursor)).0
    }

    fn kind<'a>(evs: &'a [J], k: &str) -> Vec<&'a J> {
        evs.iter().filter(|e| e["kind"] == k).collect()
    }

    fn texts(evs: &[J]) -> Vec<String> {
        kind(evs, "text")
            .iter()
            .filter(|t| t["role"] == "assistant")
            .map(|t| t["text"].as_str().unwrap().to_string())
            .collect()
    }

    const INIT: &str = r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Composer 2.5","permissionMode":"default"}"#;

    fn started(id: &str, tool: &str) -> String {
        format!(
            r#"{{"type":"tool_call","subtype":"started","call_id":"{id}","tool_call":{tool},"session_id":"s1","timestamp_ms":1}}"#
        )
    }

    fn completed(id: &str, tool: &str) -> String {
        format!(
            r#"{{"type":"tool_call","subtype":"completed","call_id":"{id}","tool_call":{tool},"session_id":"s1","timestamp_ms":2}}"#
        )
    }

    fn delta(text: &str, extra: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}},"session_id":"s1","timestamp_ms":3{extra}}}"#
        )
    }

    fn full(text: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}},"session_id":"s1"}}"#
        )
    }

    fn key(tool: &str) -> J {
        let evs = cursor(&[&started("c1", tool)]);
        kind(&evs, "tool_call")[0]["key_arg"].clone()
    }

    #[test]
    fn init_reads_cursor_fields() {
        let evs = cursor(&[INIT]);
        let s = kind(&evs, "session_start")[0];
        assert_eq!(s["model"], "Composer 2.5");
        assert_eq!(s["api_key_source"], "login");
        assert_eq!(s["permission_mode"], "default");
        assert_eq!(s["cwd"], "/w");
        assert_eq!(s["producer"], "cursor");
        assert_eq!(s["session"], "s1");
    }

    #[test]
    fn tool_names_and_key_args() {
        assert_eq!(key(r#"{"readToolCall":{"args":{"path":"/a"}}}"#), "/a");
        assert_eq!(
            key(r#"{"writeToolCall":{"args":{"path":"/b","fileText":"x"}}}"#),
            "/b"
        );
        assert_eq!(key(r#"{"editToolCall":{"args":{"path":"/c"}}}"#), "/c");
        assert_eq!(key(r#"{"deleteToolCall":{"args":{"path":"/d"}}}"#), "/d");
        assert_eq!(key(r#"{"lsToolCall":{"args":{"path":"/e"}}}"#), "/e");
        assert_eq!(
            key(r#"{"shellToolCall":{"args":{"command":"ls -la","workingDirectory":""}}}"#),
            "ls -la"
        );
        assert_eq!(
            key(r#"{"grepToolCall":{"args":{"pattern":"fn main","path":"/w","glob":"*.rs"}}}"#),
            "fn main in /w (*.rs)"
        );
        assert_eq!(
            key(r#"{"globToolCall":{"args":{"globPattern":"**/*.py","targetDirectory":"/w"}}}"#),
            "**/*.py in /w"
        );
        assert_eq!(
            key(r#"{"webSearchToolCall":{"args":{"searchTerm":"rust"}}}"#),
            "rust"
        );
        assert_eq!(
            key(r#"{"webFetchToolCall":{"args":{"url":"https://x"}}}"#),
            "https://x"
        );
        assert_eq!(
            key(r#"{"semSearchToolCall":{"args":{"query":"auth"}}}"#),
            "auth"
        );
        assert_eq!(key(r#"{"newKindToolCall":{"args":{"path":"/f"}}}"#), "/f");
        assert_eq!(key(r#"{"newKindToolCall":{"args":{"x":1}}}"#), J::Null);
        assert_eq!(key(r#"{"readToolCall":{}}"#), J::Null);

        let evs = cursor(&[&started(
            "c1",
            r#"{"mcpToolCall":{"args":{"providerIdentifier":"docs","toolName":"search","args":{"query":"q"}}}}"#,
        )]);
        let c = kind(&evs, "tool_call")[0];
        assert_eq!(c["name"], "mcp__docs__search");
        assert_eq!(c["key_arg"], "q");
        let evs = cursor(&[&started(
            "c1",
            r#"{"shellToolCall":{"args":{"command":"x"}}}"#,
        )]);
        let c = kind(&evs, "tool_call")[0];
        assert_eq!(c["name"], "shell");
        assert_eq!(c["input"], json!({"command":"x"}));
    }

    #[test]
    fn todo_statuses_are_normalized() {
        let evs = cursor(&[&started(
            "c1",
            r#"{"updateTodosToolCall":{"args":{"todos":[{"id":"1","content":"a","status":"TODO_STATUS_IN_PROGRESS"},{"id":"2","content":"b","status":"TODO_STATUS_COMPLETED"},{"content":"c"}]}}}"#,
        )]);
        let c = kind(&evs, "tool_call")[0];
        assert_eq!(c["key_arg"], "3 items");
        assert_eq!(
            c["todos"],
            json!([{"content":"a","status":"in_progress"},{"content":"b","status":"completed"},{"content":"c","status":"pending"}])
        );
    }

    #[test]
    fn started_and_completed_give_one_call_and_one_result() {
        let tool = r#"{"shellToolCall":{"args":{"command":"echo hi"},"result":{"success":{"command":"echo hi","exitCode":0,"stdout":"hi\n","stderr":""}}}}"#;
        let evs = cursor(&[
            &started("c1", r#"{"shellToolCall":{"args":{"command":"echo hi"}}}"#),
            // A repeated `started` adds nothing.
            &started("c1", r#"{"shellToolCall":{"args":{"command":"echo hi"}}}"#),
            &completed("c1", tool),
            &completed("c1", tool),
        ]);
        assert_eq!(kind(&evs, "tool_call").len(), 1);
        let r = kind(&evs, "tool_result");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0]["id"], "c1");
        assert_eq!(r[0]["name"], "shell");
        assert_eq!(r[0]["is_error"], false);
        assert_eq!(r[0]["content"], "hi\n");
    }

    #[test]
    fn completed_without_started_gives_both() {
        let evs = cursor(&[&completed(
            "c9",
            r#"{"readToolCall":{"args":{"path":"/x"},"result":{"success":{"content":"text"}}}}"#,
        )]);
        let c = kind(&evs, "tool_call");
        assert_eq!(c.len(), 1);
        assert_eq!(c[0]["key_arg"], "/x");
        assert_eq!(kind(&evs, "tool_result")[0]["content"], "text");
    }

    #[test]
    fn failures_are_errors() {
        let shell = |result: &str| {
            let evs = cursor(&[&completed(
                "c1",
                &format!(
                    r#"{{"shellToolCall":{{"args":{{"command":"false"}},"result":{result}}}}}"#
                ),
            )]);
            kind(&evs, "tool_result")[0].clone()
        };
        let r = shell(r#"{"success":{"exitCode":2,"stdout":"","stderr":"boom\n"}}"#);
        assert_eq!(r["is_error"], true);
        assert_eq!(r["content"], "exit code 2\nboom\n");
        let r = shell(r#"{"success":{"exitCode":1,"stdout":"","stderr":""}}"#);
        assert_eq!(r["content"], "exit code 1");
        let r = shell(r#"{"failure":{"exitCode":127,"stdout":"out","stderr":"not found"}}"#);
        assert_eq!(r["is_error"], true);
        assert_eq!(r["content"], "exit code 127\nout\nnot found");
        let r = shell(r#"{"error":{"errorMessage":"spawn failed"}}"#);
        assert_eq!(r["is_error"], true);
        assert_eq!(r["content"], "spawn failed");
        let r = shell(r#"{"error":"plain"}"#);
        assert_eq!(r["content"], "plain");
        let r = shell(r#"{"timeout":{"ms":30000}}"#);
        assert_eq!(r["is_error"], true);
        assert_eq!(r["content"], r#"timeout: {"ms":30000}"#);
        let r = shell(r#"{"success":{"exitCode":0,"stdout":"","stderr":""}}"#);
        assert_eq!(r["is_error"], false);
        assert_eq!(r["content"], "");
    }

    #[test]
    fn rejection_is_a_denial() {
        let evs = cursor(&[
            &started(
                "c1",
                r#"{"shellToolCall":{"args":{"command":"rm -rf build"}}}"#,
            ),
            &completed(
                "c1",
                r#"{"shellToolCall":{"args":{"command":"rm -rf build"},"result":{"rejected":{"command":"rm -rf build","reason":"no"}}}}"#,
            ),
        ]);
        let r = kind(&evs, "tool_result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["denied"], true);
        let d = kind(&evs, "permission_denied")[0];
        assert_eq!(d["id"], "c1");
        assert_eq!(d["tool"], "shell");
        assert_eq!(d["key_arg"], "rm -rf build");
        assert_eq!(d["message"], "no");
        // An empty reason is no message.
        let evs = cursor(&[&completed(
            "c2",
            r#"{"shellToolCall":{"result":{"rejected":{"reason":""}}}}"#,
        )]);
        assert_eq!(kind(&evs, "permission_denied")[0]["message"], J::Null);
    }

    #[test]
    fn partial_output_text_is_written_once() {
        let evs = cursor(&[
            INIT,
            &delta("Hel", ""),
            &delta("lo", r#","model_call_id":"m1""#),
            &full("Hello"),
            &started("c1", r#"{"lsToolCall":{"args":{"path":"/"}}}"#),
        ]);
        assert_eq!(texts(&evs), ["Hello"]);
        assert_eq!(kind(&evs, "text")[0]["message_id"], "m1");
        let d: Vec<_> = kind(&evs, "delta")
            .iter()
            .map(|d| d["text"].clone())
            .collect();
        assert_eq!(d, [json!("Hel"), json!("lo")]);
    }

    #[test]
    fn a_fragment_sent_twice_counts_once() {
        let evs = cursor(&[
            &delta("All 3", ""),
            &delta("All 3", r#","model_call_id":"m1""#),
            &delta(" pass.", r#","model_call_id":"m1""#),
            &started("c1", r#"{"lsToolCall":{"args":{"path":"/"}}}"#),
        ]);
        assert_eq!(kind(&evs, "delta").len(), 2);
        // No echo came: the fragments are the text, written before the call.
        assert_eq!(texts(&evs), ["All 3 pass."]);
        assert_eq!(evs[2]["kind"], "text");
        assert_eq!(evs[3]["kind"], "tool_call");
    }

    #[test]
    fn an_echo_after_the_fragments_were_written_is_skipped() {
        let evs = cursor(&[
            &delta("Done", ""),
            &started("c1", r#"{"lsToolCall":{"args":{"path":"/"}}}"#),
            &full("Done"),
            &full("Something new"),
        ]);
        assert_eq!(texts(&evs), ["Done", "Something new"]);
    }

    #[test]
    fn fragments_at_the_end_of_input_are_written() {
        let (evs, status) = run(&delta("cut off mid-sen", ""), Some(Producer::Cursor));
        assert_eq!(texts(&evs), ["cut off mid-sen"]);
        assert_eq!(status, ExitStatus::Incomplete);
    }

    #[test]
    fn without_partial_output_each_message_is_a_text() {
        let evs = cursor(&[&full("One."), &full("Two.")]);
        assert_eq!(texts(&evs), ["One.", "Two."]);
        assert!(kind(&evs, "delta").is_empty());
    }

    #[test]
    fn thinking_fragments_are_joined() {
        let think = |t: &str| {
            format!(
                r#"{{"type":"thinking","subtype":"delta","text":"{t}","session_id":"s1","timestamp_ms":5}}"#
            )
        };
        let done =
            r#"{"type":"thinking","subtype":"completed","session_id":"s1","timestamp_ms":6}"#;
        let evs = cursor(&[&think("Plan "), &think("it."), done, &full("Ok.")]);
        let t = kind(&evs, "thinking");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0]["text"], "Plan it.");
        assert_eq!(t[0]["line"], 3);
        assert_eq!(kind(&evs, "delta").len(), 2);
        // Without `completed`, the next tool call ends the thinking.
        let evs = cursor(&[
            &think("Hmm."),
            &started("c1", r#"{"lsToolCall":{"args":{}}}"#),
        ]);
        assert_eq!(kind(&evs, "thinking")[0]["text"], "Hmm.");
        assert_eq!(evs[1]["kind"], "thinking");
        // A thinking that follows text fragments ends that text.
        let evs = cursor(&[&delta("Let me think.", ""), &think("x"), done]);
        let order: Vec<_> = evs.iter().map(|e| e["kind"].clone()).collect();
        assert_eq!(
            order,
            [
                json!("delta"),
                json!("text"),
                json!("delta"),
                json!("thinking")
            ]
        );
    }

    #[test]
    fn result_totals_and_text() {
        let result = r#"{"type":"result","subtype":"success","duration_ms":1200,"duration_api_ms":1200,"is_error":false,"result":"First.Second.","session_id":"s1","request_id":"r","usage":{"inputTokens":10,"outputTokens":20,"cacheReadTokens":30,"cacheWriteTokens":40}}"#;
        let (evs, status) = run(
            &[INIT, &full("First."), &full("Second."), result].join("\n"),
            None,
        );
        assert_eq!(status, ExitStatus::Success);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["producer"], "cursor");
        // `result` only repeats the texts: the final one, as for Claude.
        assert_eq!(r["text"], "Second.");
        assert_eq!(r["duration_ms"], 1200);
        assert_eq!(r["duration_api_ms"], 1200);
        assert_eq!(r["num_turns"], J::Null);
        assert_eq!(r["cost_usd"], J::Null);
        assert_eq!(
            r["tokens"],
            json!({"input":10,"output":20,"cache_read":30,"cache_creation":40})
        );
        // A result that says something else is kept.
        let other = result.replace("First.Second.", "Summary.");
        let evs = cursor(&[&full("First."), &full("Second."), &other]);
        assert_eq!(kind(&evs, "result")[0]["text"], "Summary.");
        // No usage: no tokens, never zeros.
        let evs =
            cursor(&[r#"{"type":"result","subtype":"success","is_error":false,"result":"x"}"#]);
        assert_eq!(
            kind(&evs, "result")[0]["tokens"],
            json!({"input":null,"output":null,"cache_read":null,"cache_creation":null})
        );
    }

    #[test]
    fn error_result_fails_the_session() {
        let (evs, status) = run(
            r#"{"type":"result","subtype":"error","is_error":true,"result":"Agent crashed","session_id":"s1","usage":{"inputTokens":1}}"#,
            None,
        );
        assert_eq!(status, ExitStatus::SessionError);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["producer"], "cursor");
    }

    #[test]
    fn lenient_on_odd_lines() {
        for line in [
            r#"{"type":"tool_call"}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"c"}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"d","tool_call":{"readToolCall":{"result":[]}}}"#,
            r#"{"type":"tool_call","subtype":"weird","call_id":"e","tool_call":{}}"#,
            r#"{"type":"thinking"}"#,
            r#"{"type":"thinking","subtype":"delta"}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"image"}]},"timestamp_ms":1}"#,
            r#"{"type":"assistant","message":{"content":"plain"}}"#,
            r#"{"type":"result","usage":"none"}"#,
            r#"{"type":"user","message":{"content":"hi"}}"#,
            r#"{"type":"brand_new","x":1}"#,
        ] {
            let _ = cursor(&[line]);
        }
        let evs = cursor(&[r#"{"type":"brand_new","x":1}"#]);
        assert_eq!(kind(&evs, "unknown")[0]["event_type"], "brand_new");
        let evs =
            cursor(&[r#"{"type":"tool_call","subtype":"weird","call_id":"e","tool_call":{}}"#]);
        assert_eq!(kind(&evs, "unknown")[0]["event_type"], "tool_call/weird");
        let evs = cursor(&[r#"{"type":"assistant","message":{"content":"plain"}}"#]);
        assert_eq!(texts(&evs), ["plain"]);
    }
}
