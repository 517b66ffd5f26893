//! Qwen Code fixtures (`tests/fixtures/qwen/`, 0.15.10, and
//! `tests/fixtures/qwen-0.24.4/`, real captures) through the binary: detected
//! without `--from`, every tool call written exactly once (counted
//! independently from the raw lines), every result once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;

/// The captures of each version.
const DIRS: [&str; 2] = [
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qwen"),
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qwen-0.24.4"),
];

fn fixtures() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for dir in DIRS {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        v.sort();
        assert!(v.len() >= 10, "fixtures missing in {dir}");
        all.extend(v);
    }
    all
}

/// `streamview --format jsonl FILE` (no `--from`).
fn jsonl(path: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--format", "jsonl", "--color", "never"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "{}: {out:?}",
        path.display()
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn raw(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Blocks of `type` in the `message.content` of lines of type `line_type`.
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

#[test]
fn detected_without_from() {
    for f in fixtures() {
        let evs = jsonl(&f);
        assert!(!evs.is_empty(), "{}", f.display());
        for e in &evs {
            assert_eq!(e["producer"], "qwen", "{}: {e}", f.display());
        }
    }
}

/// No line is an unknown event, and every line gives an event but the
/// `stream_event`s that announce what the next complete line carries.
#[test]
fn every_line_is_understood() {
    for f in fixtures() {
        let evs = jsonl(&f);
        for e in &evs {
            assert_ne!(e["kind"], "unknown", "{}: {e}", f.display());
        }
        let seen: Vec<u64> = evs.iter().map(|e| e["line"].as_u64().unwrap()).collect();
        for (i, line) in raw(&f).iter().enumerate() {
            let announces = line["type"] == "stream_event"
                && !matches!(
                    line["event"]["type"].as_str(),
                    Some("content_block_delta" | "goal_state")
                );
            assert!(
                announces || seen.contains(&(i as u64 + 1)),
                "{}: line {} gave no event: {line}",
                f.display(),
                i + 1
            );
        }
    }
}

#[test]
fn every_tool_call_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(&f);
        let expected: Vec<&str> = blocks(&lines, "assistant", "tool_use")
            .iter()
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        let calls: Vec<&str> = of_kind(&evs, "tool_call")
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert_eq!(calls, expected, "{}", f.display());
        for c in of_kind(&evs, "tool_call") {
            // Tools that do not exist (the scripted model's calls) have none.
            let unknown_tool = matches!(c["name"].as_str(), Some("no_such_tool" | "todowrite"));
            assert!(
                c["key_arg"].is_string() || unknown_tool,
                "{}: no key argument for {c}",
                f.display()
            );
        }
    }
}

#[test]
fn every_tool_result_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(&f);
        let expected: HashMap<&str, bool> = blocks(&lines, "user", "tool_result")
            .iter()
            .map(|b| {
                (
                    b["tool_use_id"].as_str().unwrap(),
                    b["is_error"].as_bool().unwrap(),
                )
            })
            .collect();
        let results = of_kind(&evs, "tool_result");
        assert_eq!(results.len(), expected.len(), "{}", f.display());
        for r in results {
            let id = r["id"].as_str().unwrap();
            assert_eq!(Some(&r["is_error"].as_bool().unwrap()), expected.get(id));
            assert!(r["name"].is_string(), "{}: unpaired {r}", f.display());
        }
    }
}

#[test]
fn one_result_per_result_line() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(&f);
        let n = lines.iter().filter(|l| l["type"] == "result").count();
        assert_eq!(of_kind(&evs, "result").len(), n, "{}", f.display());
    }
}

/// 0.24 reports a failed API request twice (the assistant text and the
/// result's `error.message`); the pretty output says it once, then that
/// the session failed.
#[test]
fn an_api_error_is_shown_once() {
    let dir = DIRS[1];
    for (name, message, why) in [
        (
            "error_500",
            "[API Error: 500 mock internal error]",
            "(API error 500)",
        ),
        (
            "error_400",
            "[API Error: 400 mock: invalid request (context too long)]",
            "(API error 400)",
        ),
        (
            "stream_error",
            "[API Error: Connection error. (cause: UND_ERR_SOCKET: other side closed)]",
            "(error_during_execution)",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
            .args(["--color", "never"])
            .arg(format!("{dir}/{name}.jsonl"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.matches(message).count(), 1, "{name}:\n{stdout}");
        let failed: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("✗ session failed"))
            .collect();
        assert_eq!(failed.len(), 1, "{name}:\n{stdout}");
        assert!(failed[0].contains(why), "{name}: {}", failed[0]);
    }
}

/// Qwen Code decoding: small inline lines and lines of the real captures
/// (`tests/fixtures/qwen/`, 0.15.10; `tests/fixtures/qwen-0.24.4/`), through
/// the whole pipeline to JSONL.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/qwen/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use crate::common::pipeline::{fixture_text, jsonl_run as run, of_kind as kind};
    use streamview::ExitStatus;
    use streamview::event::Producer;

    fn qwen(input: &str) -> Vec<J> {
        run(input, Some(Producer::Qwen)).0
    }

    fn fixture(name: &str) -> String {
        fixture_in("qwen", name)
    }

    /// A capture of Qwen Code 0.24.4.
    fn fixture_024(name: &str) -> String {
        fixture_in("qwen-0.24.4", name)
    }

    fn fixture_in(dir: &str, name: &str) -> String {
        fixture_text(dir, name)
    }

    const INIT: &str = r#"{"type":"system","subtype":"init","uuid":"s1","session_id":"s1","cwd":"/w","tools":["read_file","run_shell_command"],"mcp_servers":[{"name":"fs","status":"connected"}],"model":"qwen3-coder-plus","permission_mode":"auto-edit","slash_commands":["init"],"qwen_code_version":"0.15.10","agents":["general-purpose"]}"#;

    fn tool_use(name: &str, input: &str) -> String {
        format!(
            r#"{{"type":"assistant","uuid":"u","session_id":"s1","parent_tool_use_id":null,"message":{{"id":"m","type":"message","role":"assistant","model":"x","content":[{{"type":"tool_use","id":"c1","name":"{name}","input":{input}}}],"stop_reason":"tool_use","usage":{{"input_tokens":0,"output_tokens":0}}}}}}"#
        )
    }

    fn key(name: &str, input: &str) -> J {
        let evs = qwen(&tool_use(name, input));
        kind(&evs, "tool_call")[0]["key_arg"].clone()
    }

    #[test]
    fn init_uses_qwen_field_names() {
        let evs = qwen(INIT);
        let s = kind(&evs, "session_start")[0];
        assert_eq!(s["version"], "0.15.10");
        assert_eq!(s["permission_mode"], "auto-edit");
        assert_eq!(s["model"], "qwen3-coder-plus");
        assert_eq!(s["cwd"], "/w");
        assert_eq!(s["tools"], json!(["read_file", "run_shell_command"]));
        assert_eq!(s["mcp_servers"][0]["name"], "fs");
        assert_eq!(s["agents"], json!(["general-purpose"]));
        assert_eq!(s["slash_commands"], json!(["init"]));
        assert_eq!(s["api_key_source"], J::Null);
        assert_eq!(s["session"], "s1");
        assert_eq!(s["producer"], "qwen");
    }

    #[test]
    fn key_args_of_qwen_tools() {
        assert_eq!(
            key(
                "run_shell_command",
                r#"{"command":"ls -la","description":"d"}"#
            ),
            "ls -la"
        );
        assert_eq!(key("read_file", r#"{"file_path":"/a"}"#), "/a");
        assert_eq!(key("read_file", r#"{"absolute_path":"/old"}"#), "/old");
        assert_eq!(
            key("write_file", r#"{"file_path":"/b","content":"x"}"#),
            "/b"
        );
        assert_eq!(
            key(
                "edit",
                r#"{"file_path":"/c","old_string":"a","new_string":"b"}"#
            ),
            "/c"
        );
        assert_eq!(
            key("glob", r#"{"pattern":"**/*.txt","path":"/w"}"#),
            "**/*.txt in /w"
        );
        assert_eq!(
            key(
                "grep_search",
                r#"{"pattern":"BETA","path":"/w","glob":"*.md"}"#
            ),
            "BETA in /w (*.md)"
        );
        assert_eq!(key("list_directory", r#"{"path":"/w"}"#), "/w");
        assert_eq!(
            key("web_fetch", r#"{"url":"https://x.y","prompt":"p"}"#),
            "https://x.y"
        );
        assert_eq!(key("web_search", r#"{"query":"rust"}"#), "rust");
        assert_eq!(
            key(
                "agent",
                r#"{"description":"look","prompt":"p","subagent_type":"Explore"}"#
            ),
            "Explore: look"
        );
        assert_eq!(key("skill", r#"{"skill":"pdf"}"#), "pdf");
        assert_eq!(key("save_memory", r#"{"fact":"likes tea"}"#), "likes tea");
        assert_eq!(key("read_many_files", r#"{"paths":["a","b"]}"#), "a, b");
        assert_eq!(key("todo_write", r#"{"todos":[]}"#), "0 items");
        assert_eq!(key("exit_plan_mode", r#"{"plan":"1. a\n2. b"}"#), "1. a");
        assert_eq!(key("mcp__fs__stat", r#"{"path":"/p"}"#), "/p");
        assert_eq!(key("no_such_tool", r#"{"x":1}"#), J::Null);
        // Missing or mistyped arguments are no key, never an error.
        assert_eq!(key("run_shell_command", r#"{"command":7}"#), J::Null);
        assert_eq!(key("read_file", "[]"), J::Null);
    }

    #[test]
    fn todos_and_questions() {
        let evs = qwen(&tool_use(
            "todo_write",
            r#"{"todos":[{"content":"a","status":"in_progress","id":"1"},{"content":"b","id":"2"}]}"#,
        ));
        let c = kind(&evs, "tool_call")[0];
        assert_eq!(
            c["todos"],
            json!([{"content":"a","status":"in_progress"},{"content":"b","status":"pending"}])
        );
        let evs = qwen(&tool_use(
            "ask_user_question",
            r#"{"questions":[{"question":"Which?","header":"h","options":[{"label":"A","description":"d"},{"label":"B"}],"multiSelect":false}]}"#,
        ));
        let c = kind(&evs, "tool_call")[0];
        assert_eq!(c["key_arg"], "Which?");
        assert_eq!(
            c["questions"],
            json!([{"question":"Which?","options":["A","B"]}])
        );
    }

    #[test]
    fn zero_usage_is_a_placeholder_and_input_excludes_the_cache() {
        let evs = qwen(&tool_use("glob", r#"{"pattern":"*"}"#));
        assert!(kind(&evs, "usage").is_empty());
        let line = r#"{"type":"assistant","uuid":"u","session_id":"s1","parent_tool_use_id":null,"message":{"id":"m2","type":"message","role":"assistant","model":"mock-model","content":[{"type":"text","text":"hi"}],"stop_reason":null,"usage":{"input_tokens":1000,"output_tokens":40,"cache_read_input_tokens":800,"total_tokens":1040}}}"#;
        let evs = qwen(line);
        let u = kind(&evs, "usage")[0];
        assert_eq!(
            u["tokens"],
            json!({"input":200,"output":40,"cache_read":800,"cache_creation":null})
        );
        assert_eq!(u["model"], "mock-model");
        assert_eq!(u["message_id"], "m2");
        assert_eq!(kind(&evs, "text")[0]["text"], "hi");
    }

    #[test]
    fn api_error_text_is_an_error_and_fails_the_result() {
        let (evs, status) = run(&fixture("error_500"), None);
        assert!(kind(&evs, "text").is_empty(), "{evs:?}");
        let n = kind(&evs, "notice")[0];
        assert_eq!(n["subtype"], "api_error");
        assert_eq!(n["level"], "error");
        assert_eq!(n["text"], "[API Error: 500 mock internal error]");
        let r = kind(&evs, "result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["subtype"], "success");
        assert_eq!(r["api_error_status"], 500);
        assert_eq!(status, ExitStatus::SessionError);

        let (evs, _) = run(&fixture("stream_error"), None);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["api_error_status"], J::Null);
    }

    #[test]
    fn result_totals() {
        let (evs, status) = run(&fixture("files"), None);
        assert_eq!(status, ExitStatus::Success);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["is_error"], false);
        assert_eq!(r["num_turns"], 7);
        assert_eq!(r["duration_ms"], 664);
        assert_eq!(r["duration_api_ms"], 384);
        assert_eq!(r["cost_usd"], J::Null);
        assert_eq!(
            r["tokens"],
            json!({"input":2450,"output":340,"cache_read":5600,"cache_creation":null})
        );
        assert_eq!(
            r["text"],
            "Wrote, read, edited, globbed, grepped and listed `notes.txt`."
        );
    }

    #[test]
    fn error_subtypes_and_denials() {
        let line = r#"{"type":"result","subtype":"error_during_execution","uuid":"r","session_id":"s1","is_error":true,"duration_ms":5,"duration_api_ms":1,"num_turns":1,"error":{"type":"x","message":"boom"},"usage":{"input_tokens":1,"output_tokens":2},"permission_denials":[{"tool_name":"run_shell_command","tool_use_id":"c9","tool_input":{"command":"rm -rf /"}}]}"#;
        let evs = qwen(line);
        let d = kind(&evs, "permission_denied")[0];
        assert_eq!(d["id"], "c9");
        assert_eq!(d["tool"], "run_shell_command");
        assert_eq!(d["key_arg"], "rm -rf /");
        let r = kind(&evs, "result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["errors"], json!(["boom"]));
        assert_eq!(r["text"], J::Null);
    }

    #[test]
    fn every_call_and_result_once_in_the_real_captures() {
        let (evs, _) = run(&fixture("tool_error"), None);
        let calls = kind(&evs, "tool_call");
        let results = kind(&evs, "tool_result");
        assert_eq!(calls.len(), 3);
        assert_eq!(results.len(), 3);
        assert!(results.iter().all(|r| r["is_error"] == true));
        assert_eq!(calls[1]["name"], "no_such_tool");
        assert_eq!(results[1]["name"], "no_such_tool");

        // Parallel calls in one message, answered by two user lines.
        let (evs, _) = run(&fixture("parallel"), None);
        let ids: Vec<_> = kind(&evs, "tool_call")
            .iter()
            .map(|c| c["id"].clone())
            .collect();
        assert_eq!(ids, [json!("call_0032"), json!("call_0033")]);
        assert_eq!(kind(&evs, "tool_result").len(), 2);
        assert_eq!(kind(&evs, "usage").len(), 2);
    }

    #[test]
    fn partial_messages_give_deltas_and_each_block_once() {
        let (evs, _) = run(&fixture("partial_mixed"), None);
        assert!(evs.iter().all(|e| e["producer"] == "qwen"));
        let texts: Vec<_> = kind(&evs, "text")
            .iter()
            .map(|t| t["text"].clone())
            .collect();
        assert_eq!(
            texts,
            [
                json!("Let me look around."),
                json!("Created `hello.txt`; `missing.txt` does not exist.")
            ]
        );
        assert_eq!(kind(&evs, "thinking").len(), 1);
        assert_eq!(kind(&evs, "tool_call").len(), 3);
        let deltas = kind(&evs, "delta");
        assert!(deltas.iter().any(|d| d["delta_kind"] == "thinking"));
        assert!(deltas.iter().any(|d| d["delta_kind"] == "tool_input"));
        let text: String = deltas
            .iter()
            .filter(|d| d["delta_kind"] == "text")
            .map(|d| d["text"].as_str().unwrap())
            .collect();
        assert_eq!(
            text,
            "Let me look around.Created `hello.txt`; `missing.txt` does not exist."
        );
    }

    #[test]
    fn no_result_is_incomplete() {
        let (evs, status) = run(&fixture("max_turns"), None);
        assert!(kind(&evs, "result").is_empty());
        assert_eq!(status, ExitStatus::Incomplete);
    }

    #[test]
    fn sub_agent_lines_carry_the_parent() {
        let line = r#"{"type":"assistant","uuid":"u","session_id":"s1","parent_tool_use_id":"call_7","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"inside"}],"stop_reason":null,"usage":{"input_tokens":0,"output_tokens":0}}}"#;
        let evs = qwen(line);
        assert_eq!(kind(&evs, "text")[0]["parent"], "call_7");
    }

    #[test]
    fn lenient_on_odd_lines() {
        for line in [
            r#"{"type":"assistant"}"#,
            r#"{"type":"assistant","message":{"content":"plain string"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"image"},{"type":"tool_use"}]}}"#,
            r#"{"type":"result"}"#,
            r#"{"type":"result","result":{"a":1},"usage":[],"error":"e"}"#,
            r#"{"type":"system","subtype":"init","tools":{},"model":5}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result"}]}}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta"}}"#,
            r#"{"type":"something_new","x":1}"#,
            r#"{"type":"system","subtype":"retry","data":5}"#,
            r#"{"type":"stream_event","event":{"type":"goal_state","goal_state":5}}"#,
            r#"{"type":"stream_event","event":{"type":"goal_state"}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","is_error":"yes","content":"Command: \nOutput: \nExit Code: "}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"Command: x\nOutput: é\nExit Code: 1"}]}]}}"#,
            r#"{"type":"result","error":{"message":{"a":1}}}"#,
        ] {
            let _ = qwen(line);
        }
        let evs = qwen(r#"{"type":"assistant","message":{"content":[{"type":"image"}]}}"#);
        assert_eq!(kind(&evs, "unknown")[0]["event_type"], "assistant/image");
        let evs = qwen(r#"{"type":"something_new","x":1}"#);
        assert_eq!(kind(&evs, "unknown")[0]["event_type"], "something_new");
    }

    // ------------------------------------------------------------ 0.24 shell frame

    /// The frame of the 0.24.4 capture `shell_fail`.
    const FRAME_FAIL: &str = "Command: ls /definitely/not/here; echo to-stderr >&2; exit 3\nDirectory: (root)\nOutput: ls: cannot access '/definitely/not/here': No such file or directory\nto-stderr\nError: (none)\nExit Code: 3\nSignal: (none)\nProcess Group PGID: (none)";

    /// A `user` line answering call `c1` with `content`.
    fn tool_result(is_error: bool, content: &str) -> String {
        let line = json!({"type":"user","uuid":"u","session_id":"s1","parent_tool_use_id":null,
        "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","is_error":is_error,"content":content}]}});
        line.to_string()
    }

    /// The `tool_result` event of `tool_result(is_error, content)`:
    /// (`is_error`, `content`).
    fn result_of(is_error: bool, content: &str) -> (bool, String) {
        let evs = qwen(&tool_result(is_error, content));
        let r = kind(&evs, "tool_result")[0];
        (
            r["is_error"].as_bool().unwrap(),
            r["content"].as_str().unwrap().to_string(),
        )
    }

    #[test]
    fn shell_frames_become_exit_code_and_output() {
        // Failed (0.24's is_error): exit code, then the output.
        assert_eq!(
        result_of(true, FRAME_FAIL),
        (
            true,
            "exit code 3\nls: cannot access '/definitely/not/here': No such file or directory\nto-stderr".into()
        )
    );
        // Succeeded: just the output; `(empty)` is no output.
        let ok = "Command: echo hi\nDirectory: (root)\nOutput: hi\nthere\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)";
        assert_eq!(result_of(false, ok), (false, "hi\nthere".into()));
        let empty = "Command: pwd\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)";
        assert_eq!(result_of(false, empty), (false, String::new()));
        // A non-zero exit code fails the result even when Qwen says it did not.
        let quiet = "Command: false\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: (none)";
        assert_eq!(result_of(false, quiet), (true, "exit code 1".into()));
        // Failed without an exit code: the signal, and the error part.
        let killed = "Command: sleep 99\nDirectory: (root)\nOutput: (empty)\nError: timed out\nExit Code: (none)\nSignal: 9\nProcess Group PGID: (none)";
        assert_eq!(
            result_of(true, killed),
            (true, "signal 9\nError: timed out".into())
        );
        // Failed with exit code 0 (is_error alone): the output and the error.
        let odd = "Command: x\nDirectory: (root)\nOutput: o\nError: spawn EACCES\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)";
        assert_eq!(
            result_of(true, odd),
            (true, "o\nError: spawn EACCES".into())
        );
        // 0.15: bare output, kept as it came, is_error as it came.
        assert_eq!(result_of(false, "a\nb"), (false, "a\nb".into()));
        assert_eq!(
            result_of(true, "File not found: /x"),
            (true, "File not found: /x".into())
        );
    }

    #[test]
    fn shell_frames_in_the_real_captures() {
        let (evs, status) = run(&fixture_024("shell_fail"), None);
        assert_eq!(status, ExitStatus::Success);
        let r = kind(&evs, "tool_result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(
            r["content"],
            "exit code 3\nls: cannot access '/definitely/not/here': No such file or directory\nto-stderr"
        );

        // `ls -la` lost its output (`Output: (empty)`, is_error false); `cat`
        // of a missing file exited 1.
        let (evs, _) = run(&fixture_024("mixed"), None);
        let results = kind(&evs, "tool_result");
        assert_eq!(
            (&results[0]["is_error"], &results[0]["content"]),
            (&json!(false), &json!(""))
        );
        assert_eq!(results[1]["is_error"], false);
        assert_eq!(
            (&results[2]["is_error"], &results[2]["content"]),
            (
                &json!(true),
                &json!("exit code 1\nHello\ncat: missing.txt: No such file or directory")
            )
        );

        // The same stream of 0.15: the failed `cat` was not an error.
        let (evs, _) = run(&fixture("mixed"), None);
        let r = kind(&evs, "tool_result")[2];
        assert_eq!(r["is_error"], false);
        assert_eq!(
            r["content"],
            "Hello\ncat: missing.txt: No such file or directory"
        );
    }

    // ------------------------------------------------------------ 0.24 results

    #[test]
    fn error_result_of_024_carries_the_message() {
        let (evs, status) = run(&fixture_024("error_500"), None);
        assert_eq!(status, ExitStatus::SessionError);
        let notices = kind(&evs, "notice");
        let errors: Vec<_> = notices.iter().filter(|n| n["level"] == "error").collect();
        assert_eq!(errors.len(), 1, "{notices:?}");
        assert_eq!(errors[0]["subtype"], "api_error");
        assert_eq!(errors[0]["text"], "[API Error: 500 mock internal error]");
        let r = kind(&evs, "result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["subtype"], "error_during_execution");
        assert_eq!(r["text"], J::Null);
        assert_eq!(r["errors"], json!(["[API Error: 500 mock internal error]"]));
        assert_eq!(r["api_error_status"], 500);
        assert!(kind(&evs, "text").is_empty());

        // No status in the message: none in the result.
        let (evs, status) = run(&fixture_024("stream_error"), None);
        assert_eq!(status, ExitStatus::SessionError);
        let r = kind(&evs, "result")[0];
        assert_eq!(
            r["errors"],
            json!(["[API Error: Connection error. (cause: UND_ERR_SOCKET: other side closed)]"])
        );
        assert_eq!(r["api_error_status"], J::Null);

        // An `error` object without a message, or of another type: no error text.
        let evs = qwen(
            r#"{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"code":1}}"#,
        );
        let r = kind(&evs, "result")[0];
        assert_eq!((&r["is_error"], &r["errors"]), (&json!(true), &json!([])));
        let evs =
            qwen(r#"{"type":"result","subtype":"success","is_error":false,"error":{"message":7}}"#);
        assert_eq!(kind(&evs, "result")[0]["errors"], json!([]));
    }

    // ------------------------------------------------------------ 0.24 new lines

    #[test]
    fn retry_lines_are_api_retry_warnings() {
        let (evs, _) = run(&fixture_024("stream_error"), None);
        let retries: Vec<_> = kind(&evs, "notice")
            .into_iter()
            .filter(|n| n["subtype"] == "api_retry")
            .collect();
        assert_eq!(retries.len(), 2);
        for r in &retries {
            assert_eq!(r["level"], "warning");
            assert_eq!(r["text"], "API retry");
            assert_eq!(r["raw"]["subtype"], "retry");
        }
        assert_eq!(
            (retries[0]["line"].as_u64(), retries[1]["line"].as_u64()),
            (Some(3), Some(4))
        );

        let text = |data: &str| {
            let line = format!(
                r#"{{"type":"system","subtype":"retry","session_id":"s1","parent_tool_use_id":null,"data":{data}}}"#
            );
            let evs = qwen(&line);
            kind(&evs, "notice")[0]["text"].clone()
        };
        assert_eq!(
            text(r#"{"reason":"retry","discardedToolCalls":2}"#),
            "API retry (2 tool calls discarded)"
        );
        assert_eq!(
            text(r#"{"reason":"rate_limit","discardedToolCalls":1}"#),
            "API retry: rate_limit (1 tool call discarded)"
        );
        assert_eq!(
            text(r#"{"reason":5,"discardedToolCalls":"x"}"#),
            "API retry"
        );
        assert_eq!(text("null"), "API retry");
    }

    #[test]
    fn goal_state_is_a_debug_notice() {
        let (evs, _) = run(&fixture_024("text"), None);
        assert!(kind(&evs, "unknown").is_empty(), "{evs:?}");
        let n = kind(&evs, "notice")[0];
        assert_eq!(n["line"], 2);
        assert_eq!(n["subtype"], "goal_state");
        assert_eq!(n["level"], "debug");
        assert_eq!(n["text"], "goal: none · idle");
        assert_eq!(n["raw"]["event"]["type"], "goal_state");

        let text = |state: &str| {
            let line = format!(
                r#"{{"type":"stream_event","session_id":"s1","parent_tool_use_id":null,"event":{{"type":"goal_state","goal_state":{state}}}}}"#
            );
            let evs = qwen(&line);
            kind(&evs, "notice")[0]["text"].clone()
        };
        assert_eq!(
            text(r#"{"v":2,"goal":"ship the fix","activity":"working"}"#),
            "goal: ship the fix · working"
        );
        assert_eq!(text(r#"{"goal":""}"#), "goal: none");
        assert_eq!(
            text(r#"{"goal":{"text":"g"},"activity":7}"#),
            r#"goal: {"text":"g"}"#
        );
        assert_eq!(text("null"), "goal: none");

        // Other stream events are still Claude's deltas (or nothing).
        let evs = qwen(
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}}"#,
        );
        assert_eq!(kind(&evs, "delta")[0]["text"], "hi");
        assert!(qwen(r#"{"type":"stream_event","event":{"type":"message_stop"}}"#).is_empty());
    }
}
