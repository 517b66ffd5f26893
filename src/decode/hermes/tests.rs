//! Hermes Agent: its store's lines (as `hermes/store.rs` writes them)
//! and its usage report, through the decoder.

use crate::decode::testing::{EventKind, Producer, as_call, as_result, replay};

const HEADER: &str = r#"{"type":"hermes_session","timestamp":1796186704757,"id":"s1","model":"m","cwd":"/w","started_at":1796186704.757,"input_tokens":200,"output_tokens":40,"cache_read_tokens":800,"cache_write_tokens":0,"cost_status":"unknown","estimated_cost_usd":0.0}"#;

fn results(lines: &[&str]) -> Vec<(bool, String)> {
    replay(lines)
        .iter()
        .filter(|e| matches!(e.kind, EventKind::ToolResult(_)))
        .map(|e| {
            let r = as_result(e);
            (r.is_error, r.content.text().to_string())
        })
        .collect()
}

#[test]
fn a_tools_failure_is_told_by_its_json_or_the_unknown_tool_reply() {
    let tool = |content: &str| {
        format!(
            r#"{{"type":"hermes_message","role":"tool","tool_call_id":"c","content":{content}}}"#
        )
    };
    let lines = [
        HEADER.to_string(),
        tool(r#"{"output":"ok","exit_code":0,"error":null}"#),
        tool(r#"{"output":"boom","exit_code":3,"error":null}"#),
        tool(r#"{"success":false,"error":"Failed to read file: x"}"#),
        tool(r#"{"content":"","error":"File not found: y"}"#),
        tool(r#""Tool 'nope' does not exist. Available tools: a, b""#),
        tool(r#""some text""#),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        results(&lines),
        [
            (false, "ok".to_string()),
            (true, "boom".to_string()),
            (true, "Failed to read file: x".to_string()),
            (true, "File not found: y".to_string()),
            (
                true,
                "Tool 'nope' does not exist. Available tools: a, b".to_string()
            ),
            (false, "some text".to_string()),
        ]
    );
}

#[test]
fn a_call_shows_its_key_argument_and_the_result_is_made_at_the_end() {
    let evs = replay(&[
        HEADER,
        r#"{"type":"hermes_message","role":"user","content":"go"}"#,
        r#"{"type":"hermes_message","role":"assistant","content":"","reasoning_content":"think","tool_calls":[{"id":"c1","type":"function","function":{"name":"terminal","arguments":"{\"command\": \"ls -la\"}"}}]}"#,
        r#"{"type":"hermes_message","role":"tool","tool_call_id":"c1","content":{"output":"x","exit_code":0,"error":null}}"#,
        r#"{"type":"hermes_message","role":"assistant","content":"Done.","finish_reason":"stop"}"#,
        r#"{"type":"hermes_usage","model":"m","input_tokens":200,"output_tokens":40,"cache_read_tokens":800,"cache_write_tokens":0}"#,
    ]);
    assert!(evs.iter().all(|e| e.producer == Producer::Hermes));
    let call = evs
        .iter()
        .find(|e| matches!(e.kind, EventKind::ToolCall(_)));
    let call = as_call(call.unwrap());
    assert_eq!(
        (&*call.name, call.key_arg.as_deref()),
        ("terminal", Some("ls -la"))
    );
    let EventKind::Result(r) = &evs.last().unwrap().kind else {
        panic!("no result: {evs:?}");
    };
    assert!(!r.is_error);
    assert_eq!(r.text.as_deref(), Some("Done."));
    assert_eq!(r.tokens.input, Some(200));
    assert_eq!(r.tokens.cache_read, Some(800));
    let usage: Vec<_> = (evs.iter())
        .filter_map(|e| match &e.kind {
            EventKind::Usage(u) => Some((u.model.as_deref().map(str::to_string), u.tokens)),
            _ => None,
        })
        .collect();
    assert_eq!(usage.len(), 1);
    assert_eq!(usage[0].0.as_deref(), Some("m"));
}

#[test]
fn a_request_dump_fails_the_session_and_calls_pending_leave_it_incomplete() {
    let evs = replay(&[
        HEADER,
        r#"{"type":"hermes_message","role":"user","content":"go"}"#,
        r#"{"type":"hermes_error","file":"d.json","reason":"max_retries_exhausted","error":{"message":"Error code: 500","status_code":500,"body":{"message":"mock internal error"}}}"#,
    ]);
    let EventKind::Result(r) = &evs.last().unwrap().kind else {
        panic!("no result: {evs:?}");
    };
    assert!(r.is_error);
    assert_eq!(r.api_error_status, Some(500));
    assert_eq!(
        r.errors.iter().next().map(ToString::to_string).as_deref(),
        Some("API call failed after retries: HTTP 500: mock internal error")
    );
    let evs = replay(&[
        HEADER,
        r#"{"type":"hermes_message","role":"assistant","tool_calls":[{"id":"c1","function":{"name":"terminal","arguments":"{\"command\": \"sleep"}}]}"#,
    ]);
    assert!(!evs.iter().any(|e| matches!(e.kind, EventKind::Result(_))));
    // The arguments cut short: read up to their last whole member.
    let call = evs
        .iter()
        .find(|e| matches!(e.kind, EventKind::ToolCall(_)));
    assert_eq!(as_call(call.unwrap()).name, "terminal");
}

#[test]
fn odd_rows_are_read_as_far_as_they_go() {
    let evs = replay(&[
        r#"{"type":"hermes_session","id":7,"input_tokens":-1,"model":[1]}"#,
        r#"{"type":"hermes_message","role":"assistant","content":5,"tool_calls":[3,{"function":7},{"function":{"name":"x","arguments":{"a":1}}}]}"#,
        r#"{"type":"hermes_message","role":"tool","content":[1,2]}"#,
        r#"{"type":"hermes_message","role":null}"#,
        r#"{"type":"hermes_usage","model":null,"input_tokens":"many"}"#,
        r#"{"type":"hermes_error","unreadable":true,"file":"d.json"}"#,
        r#"{"type":"hermes_what"}"#,
    ]);
    assert!(matches!(
        evs.last().map(|e| &e.kind),
        Some(EventKind::Result(r)) if r.is_error
    ));
}

#[test]
fn a_usage_report_is_a_session_with_its_outcome() {
    let ok = r#"{"estimated_cost_usd":0.0,"cost_status":"unknown","input_tokens":1100,"output_tokens":190,"cache_read_tokens":3200,"cache_write_tokens":0,"api_calls":4,"model":"m","session_id":"s","completed":true,"failed":false}"#;
    let failed = r#"{"estimated_cost_usd":null,"cost_status":null,"input_tokens":null,"api_calls":1,"model":null,"session_id":null,"completed":false,"failed":true}"#;
    for (line, is_error) in [(ok, false), (failed, true)] {
        let evs = replay(&[line]);
        assert!(evs.iter().all(|e| e.producer == Producer::Hermes), "{line}");
        let EventKind::Result(r) = &evs.last().unwrap().kind else {
            panic!("no result: {evs:?}");
        };
        assert_eq!(r.is_error, is_error);
        assert_eq!(r.cost_usd, None, "cost_status unknown: no cost");
    }
}
