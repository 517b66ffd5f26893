//! `OpenClaw`: its transcript entries (marked by its store readers) and its
//! reports, through the decoder.

use crate::decode::testing::{
    EventKind, Producer, as_call, as_notice, as_result, as_session_result, replay,
};

const HEADER: &str = r#"{"type":"session","version":4,"id":"s1","timestamp":"2026-12-02T04:38:45.936Z","cwd":"/w","store":"openclaw"}"#;

const CALL: &str = r#"{"type":"message","id":"m2","timestamp":"2026-12-02T04:38:46.637Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"ls /nope; exit 3","title":"Failing command"}}],"model":"mock-model","usage":{"input":200,"output":50,"cacheRead":800,"cacheWrite":0,"reasoningTokens":0,"totalTokens":1050,"cost":{"total":0.00159}},"stopReason":"toolUse","timestamp":1796186326600,"responseId":"r1"}}"#;

const RESULT: &str = r#"{"type":"message","id":"m3","timestamp":"2026-12-02T04:38:47.926Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"exec","content":[{"type":"text","text":"ls: cannot access\n\n(Command exited with code 3)"}],"details":{"status":"completed","exitCode":3},"isError":false,"timestamp":1796186327900}}"#;

const ANSWER: &str = r#"{"type":"message","id":"m4","timestamp":"2026-12-02T04:38:48.041Z","message":{"role":"assistant","content":[{"type":"text","text":"It exited 3."}],"model":"mock-model","usage":{"input":250,"output":40,"cacheRead":800,"cacheWrite":0,"totalTokens":1090,"cost":{"total":0.00159}},"stopReason":"stop","timestamp":1796186327963,"responseId":"r2"}}"#;

#[test]
fn a_marked_transcript_is_openclaws_its_exec_a_shell_call() {
    let evs = replay(&[
        HEADER,
        r#"{"type":"model_change","provider":"mock","modelId":"mock-model","id":"a","parentId":null,"timestamp":"2026-12-02T04:38:45.949Z"}"#,
        r#"{"type":"custom","customType":"model-snapshot","data":{"modelId":"mock-model"},"id":"b","timestamp":"2026-12-02T04:38:46.429Z"}"#,
        CALL,
        RESULT,
        ANSWER,
    ]);
    assert!(evs.iter().all(|e| e.producer == Producer::OpenClaw));
    assert!(!evs.iter().any(|e| matches!(e.kind, EventKind::Unknown(_))));
    let call = evs
        .iter()
        .find(|e| matches!(e.kind, EventKind::ToolCall(_)));
    let call = as_call(call.unwrap());
    assert_eq!(call.kind, crate::event::ToolKind::Shell);
    assert_eq!(call.key_arg.as_deref(), Some("ls /nope; exit 3"));
    // A non-zero exit is no failure to OpenClaw: shown as it says.
    let res = evs
        .iter()
        .find(|e| matches!(e.kind, EventKind::ToolResult(_)));
    assert!(!as_result(res.unwrap()).is_error);
    let end = as_session_result(evs.last().unwrap());
    assert!(!end.is_error);
    assert_eq!(end.tokens.input, Some(450));
    assert_eq!(end.tokens.cache_read, Some(1600));
    assert_eq!(end.num_turns, Some(2));
}

#[test]
fn an_unmarked_header_stays_pis() {
    let header = HEADER.replace(r#","store":"openclaw""#, "");
    let evs = replay(&[&header, ANSWER]);
    assert!(evs.iter().all(|e| e.producer == Producer::Pi));
}

#[test]
fn a_report_is_a_session_with_its_totals_and_tools() {
    let evs = replay(&[
        r#"{"ok":true,"status":"ok","final":"Done.","payloads":[{"text":"Done.","mediaUrl":null}],"usage":{"input":1100,"output":190,"cacheRead":3200,"cacheWrite":0,"total":4490,"cost":{"total":0.00711}},"costUsd":0.00711,"assistantTurns":4,"toolSummary":{"calls":3,"tools":["read","no_such_tool","edit"],"failures":3,"unresolvedError":{"toolName":"edit"}},"model":"mock-model","provider":"mock","sessionId":"s9"}"#,
    ]);
    assert!(evs.iter().all(|e| e.producer == Producer::OpenClaw));
    // Totals, not a message's: no usage of its own.
    assert!(!evs.iter().any(|e| matches!(e.kind, EventKind::Usage(_))));
    let notice = evs.iter().find(|e| matches!(e.kind, EventKind::Notice(_)));
    assert_eq!(
        as_notice(notice.unwrap()).text,
        "3 tool calls (read, no_such_tool, edit), 3 failed (unresolved: edit)"
    );
    let end = as_session_result(evs.last().unwrap());
    assert!(!end.is_error);
    assert_eq!(end.text.as_deref(), Some("Done."));
    assert_eq!(end.num_turns, Some(4));
    assert_eq!(end.tokens.output, Some(190));
    assert_eq!(end.cost_usd, Some(0.00711));
    let models = end
        .model_usage
        .iter()
        .map(|m| (m.model.as_ref(), m.tokens.input, m.cost_usd));
    assert_eq!(
        models.collect::<Vec<_>>(),
        [("mock-model", Some(1100), Some(0.00711))]
    );
}

#[test]
fn a_failed_report_keeps_its_error_and_the_text_it_gave() {
    let evs = replay(&[
        r#"{"ok":false,"status":"error","final":"","payloads":[{"text":"Context overflow: prompt too large.","mediaUrl":null,"isError":true}],"model":"mock-model","provider":"mock","sessionId":"s2","error":{"message":"400 mock: invalid request (context too long)","kind":"context_overflow"}}"#,
    ]);
    let end = as_session_result(evs.last().unwrap());
    assert!(end.is_error);
    assert_eq!(end.subtype.as_deref(), Some("error"));
    assert_eq!(end.terminal_reason.as_deref(), Some("context_overflow"));
    assert_eq!(
        end.errors.iter().map(AsRef::as_ref).collect::<Vec<&str>>(),
        [
            "400 mock: invalid request (context too long)",
            "Context overflow: prompt too large."
        ]
    );
    let timeout = replay(&[
        r#"{"ok":false,"status":"timeout","final":"","payloads":[],"model":null,"provider":null,"sessionId":"s3","error":{"message":"LLM request failed: network connection error.","kind":"timeout"}}"#,
    ]);
    let end = as_session_result(timeout.last().unwrap());
    assert!(end.is_error);
    assert_eq!(end.subtype.as_deref(), Some("timeout"));
}

#[test]
fn a_local_report_has_its_figures_under_meta() {
    let evs = replay(&[
        r#"{"payloads":[{"text":"Created it.","mediaUrl":null}],"meta":{"durationMs":14431,"agentMeta":{"sessionId":"s4","model":"mock-model","usage":{"input":1100,"output":190,"cacheRead":3200,"cacheWrite":0,"total":4490},"costUsd":0.00711,"assistantTurns":4},"aborted":false,"stopReason":"stop","toolSummary":{"calls":3,"tools":["exec","write"],"failures":0}}}"#,
    ]);
    let end = as_session_result(evs.last().unwrap());
    assert!(!end.is_error);
    assert_eq!(end.duration_ms, Some(14431));
    assert_eq!(end.cost_usd, Some(0.00711));
    assert_eq!(end.tokens.cache_read, Some(3200));
    assert_eq!(end.text.as_deref(), Some("Created it."));
}
