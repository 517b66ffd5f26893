//! Qwen Code session files: detection apart from Claude's transcripts,
//! records, usage counted once (telemetry or `usageMetadata`), sub-agent
//! nesting, failures and hostile records. The corpus pairs are compared
//! with their streams in `tests/producer_qwen_session.rs`.

use crate::decode::testing::*;

const USER: &str = r#"{"uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-26T16:46:00.000Z","type":"user","provenance":"real_user","cwd":"/w","version":"0.24.4","message":{"role":"user","parts":[{"text":"hello"}]}}"#;
const TELEMETRY: &str = r#"{"uuid":"t1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-11-26T16:46:01.000Z","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","response_id":"r1","model":"m","input_token_count":1000,"output_token_count":50,"cached_content_token_count":800}}}"#;
const CALL: &str = r#"{"uuid":"a1","parentUuid":"t1","sessionId":"s1","timestamp":"2026-11-26T16:46:01.001Z","type":"assistant","provenance":"assistant_output","model":"m","message":{"role":"model","parts":[{"text":"Plan.","thought":true},{"text":"Looking."},{"functionCall":{"id":"c1","name":"run_shell_command","args":{"command":"ls /nope"}}}]},"usageMetadata":{"promptTokenCount":1000,"candidatesTokenCount":50,"cachedContentTokenCount":800}}"#;
const RESULT: &str = r#"{"uuid":"r1","parentUuid":"a1","sessionId":"s1","timestamp":"2026-11-26T16:46:02.000Z","type":"tool_result","provenance":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"error":"Command: ls /nope\nDirectory: (root)\nOutput: no such file\nError: (none)\nExit Code: 2\nSignal: (none)"}}}]},"toolCallResult":{"callId":"c1","status":"error"}}"#;
const ANSWER: &str = r#"{"uuid":"a2","parentUuid":"r1","sessionId":"s1","timestamp":"2026-11-26T16:46:03.500Z","type":"assistant","provenance":"assistant_output","model":"m","message":{"role":"model","parts":[{"text":"Done."}]},"usageMetadata":{"promptTokenCount":1100,"candidatesTokenCount":40,"cachedContentTokenCount":800}}"#;

#[test]
fn records_are_read_and_not_taken_for_a_claude_transcript() {
    let evs = replay(&[USER, TELEMETRY, CALL, RESULT, ANSWER]);
    assert!(evs.iter().all(|e| e.producer == Producer::QwenSession));
    assert!(evs.iter().all(|e| e.session.as_deref() == Some("s1")));
    assert_eq!(
        kinds(&evs),
        [
            "session_start",
            "text",
            "usage",
            "thinking",
            "text",
            "tool_call",
            "tool_result",
            "usage",
            "text",
            "result"
        ]
    );
    assert_eq!(as_call(&evs[5]).key_arg.as_deref(), Some("ls /nope"));
    let r = as_result(&evs[6]);
    assert!(r.is_error);
    assert_eq!(r.content.text(), "exit code 2\nno such file");
}

#[test]
fn each_call_counts_once_and_the_prompt_holds_the_cached_tokens() {
    let evs = replay(&[USER, TELEMETRY, CALL, RESULT, ANSWER]);
    // The telemetry counted the first call; its record adds nothing. The
    // answer's record has no telemetry before it: counted from its own.
    let usages: Vec<_> = evs
        .iter()
        .filter(|e| e.kind.name() == "usage")
        .map(|e| as_usage(e).tokens)
        .collect();
    assert_eq!(usages.len(), 2);
    let r = as_session_result(evs.last().unwrap());
    assert!(!r.is_error);
    assert_eq!(r.num_turns, Some(2));
    assert_eq!(r.tokens.input, Some(200 + 300));
    assert_eq!(r.tokens.cache_read, Some(1600));
    assert_eq!(r.tokens.output, Some(90));
    assert_eq!(r.duration_ms, Some(3500));
    assert_eq!(r.text.as_deref(), Some("Done."));
}

#[test]
fn a_sub_agent_record_is_nested_under_its_call_and_counted_once() {
    let spawn = r#"{"uuid":"a1","parentUuid":"u1","sessionId":"s1","type":"assistant","provenance":"assistant_output","message":{"role":"model","parts":[{"functionCall":{"id":"call_7","name":"agent","args":{"description":"d","prompt":"p","subagent_type":"general-purpose"}}}]},"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1}}"#;
    let telemetry = r#"{"uuid":"t2","parentUuid":"a1","sessionId":"s1","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","response_id":"r2","input_token_count":20,"output_token_count":2,"subagent_name":"general-purpose","subagent_id":"general-purpose-call_7"}}}"#;
    let side = r#"{"uuid":"x1","parentUuid":null,"sessionId":"s1","type":"assistant","agentId":"general-purpose-call_7","agentName":"general-purpose","isSidechain":true,"message":{"role":"model","parts":[{"text":"Sub."}]},"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":2}}"#;
    let evs = replay(&[USER, spawn, telemetry, side]);
    let sub = evs
        .iter()
        .find(|e| e.kind.name() == "text" && e.parent.is_some());
    assert_eq!(sub.unwrap().parent.as_deref(), Some("call_7"));
    let r = as_session_result(evs.last().unwrap());
    // The spawn's own usage, and the sub-agent's call once.
    assert_eq!(r.tokens.input, Some(30));
    assert_eq!(r.tokens.output, Some(3));
    // A sub-agent's line does not start another session.
    assert_eq!(kinds(&evs).iter().filter(|k| **k == "result").count(), 1);
}

#[test]
fn a_session_whose_last_request_failed_ends_in_error() {
    let error = r#"{"uuid":"e1","parentUuid":"u1","sessionId":"s1","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_error","error_message":"500 mock internal error","status_code":500}}}"#;
    let evs = replay(&[USER, error, error]);
    assert_eq!(
        kinds(&evs),
        ["session_start", "text", "notice", "notice", "result"]
    );
    assert_eq!(
        as_notice(&evs[2]).text,
        "API error (HTTP 500): 500 mock internal error"
    );
    let r = as_session_result(evs.last().unwrap());
    assert!(r.is_error);
    assert_eq!(r.api_error_status, Some(500));
    assert_eq!(r.num_turns, Some(0));
}

#[test]
fn hostile_records_do_not_panic() {
    for line in [
        r#"{"uuid":1,"parentUuid":null,"provenance":"x","type":"assistant","message":{"parts":"no"}}"#,
        r#"{"parentUuid":null,"provenance":"x","type":"tool_result","message":{"parts":[{"functionResponse":7}]}}"#,
        r#"{"parentUuid":"a","usageMetadata":{"promptTokenCount":"x"},"type":"assistant"}"#,
        r#"{"parentUuid":"a","provenance":"x","type":"system","systemPayload":{"uiEvent":[]}}"#,
        r#"{"parentUuid":"a","provenance":"x","type":"strange"}"#,
    ] {
        let evs = replay(&[line]);
        assert!(
            evs.iter().all(|e| e.producer == Producer::QwenSession),
            "{line}"
        );
    }
}
