//! Qwen Code decoding: small inline lines and lines of the real captures
//! (`tests/fixtures/qwen/`), through the whole pipeline to JSONL.

use serde_json::{Value as J, json};

use crate::ExitStatus;
use crate::diag::Diag;
use crate::event::Producer;
use crate::render::Jsonl;
use crate::run::Runner;

/// The JSONL events written for `input` (detected, or read as `from`) and
/// the exit status.
fn run(input: &str, from: Option<Producer>) -> (Vec<J>, ExitStatus) {
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), false);
    let status = {
        let mut runner = Runner::new(&mut sink, &mut diag, 1 << 20).with_producer(from);
        runner.source("t", input.as_bytes()).unwrap();
        runner.finish().unwrap().1
    };
    let out = String::from_utf8(sink.into_inner()).unwrap();
    let evs = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (evs, status)
}

fn qwen(input: &str) -> Vec<J> {
    run(input, Some(Producer::Qwen)).0
}

fn kind<'a>(evs: &'a [J], k: &str) -> Vec<&'a J> {
    evs.iter().filter(|e| e["kind"] == k).collect()
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/qwen/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
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
    ] {
        let _ = qwen(line);
    }
    let evs = qwen(r#"{"type":"assistant","message":{"content":[{"type":"image"}]}}"#);
    assert_eq!(kind(&evs, "unknown")[0]["event_type"], "assistant/image");
    let evs = qwen(r#"{"type":"something_new","x":1}"#);
    assert_eq!(kind(&evs, "unknown")[0]["event_type"], "something_new");
}

#[test]
fn api_error_status_parsing() {
    use super::api_error_status;
    assert_eq!(
        api_error_status("[API Error: 429 Too many requests]"),
        Some(429)
    );
    assert_eq!(api_error_status("[API Error: Connection error.]"), None);
    assert_eq!(api_error_status("[API Error: 12345]"), None);
    assert_eq!(api_error_status("hello"), None);
}
