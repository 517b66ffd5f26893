//! Which producer printed a line: the discriminator table of
//! `docs/protocols.md` §1.1, first match wins. A decoder asks only until it
//! gets an answer, then keeps it for the rest of its input.

use super::Value;

use super::{get, str_at};
use crate::event::Producer;

/// Transcript-only line types (Claude Code's saved sessions; the last six
/// appeared in 2.1.330).
const TRANSCRIPT_TYPES: [&str; 22] = [
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "ai-title",
    "last-prompt",
    "tag",
    "agent-name",
    "agent-color",
    "agent-setting",
    "pr-link",
    "attribution-snapshot",
    "speculation-accept",
    "mode",
    "content-replacement",
    "checkpoint",
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "tools-used",
    "atis-latch",
    "cost-state",
];

/// Claude stream-json types no other producer prints.
const CLAUDE_TYPES: [&str; 12] = [
    "stream_event",
    "tool_progress",
    "tool_use_summary",
    "auth_status",
    "rate_limit_event",
    "prompt_suggestion",
    "active_goal",
    "conversation_reset",
    "keep_alive",
    "control_request",
    "control_response",
    "control_cancel_request",
];

fn has(v: Value<'_>, key: &str) -> bool {
    get(v, key).is_some()
}

/// The producer a single parsed line belongs to, when the line says so;
/// `None` for lines several producers share (`assistant`, `user`, `result`
/// without telltale fields) and for unknown shapes.
#[must_use]
pub(crate) fn detect(v: Value<'_>) -> Option<Producer> {
    let ty = str_at(v, "type")?;
    let sub = str_at(v, "subtype");
    // 1–2: saved transcripts.
    if has(v, "parentUuid")
        || (has(v, "sessionId")
            && matches!(
                ty,
                "user" | "assistant" | "system" | "attachment" | "progress"
            ))
        || TRANSCRIPT_TYPES.contains(&ty)
    {
        return Some(Producer::ClaudeTranscript);
    }
    // 3–4: Codex.
    if ty.contains('.') || ty == "request_user_input" {
        return Some(Producer::Codex);
    }
    if ty == "error"
        && v.as_object()
            .is_some_and(|o| o.keys().all(|k| k == "type" || k == "message"))
    {
        return Some(Producer::Codex);
    }
    // 6: OpenCode (before Gemini: both print tool_use/text/error).
    if has(v, "sessionID")
        && get(v, "timestamp").is_some_and(|t| t.as_u64().is_some() || t.as_f64().is_some())
    {
        return Some(Producer::OpenCode);
    }
    // 5: Gemini.
    if matches!(
        ty,
        "init" | "message" | "tool_use" | "tool_result" | "error" | "result"
    ) && get(v, "timestamp").is_some_and(|t| t.into_string().is_some())
        && sub.is_none()
    {
        return Some(Producer::Gemini);
    }
    // 7: Cursor.
    if ty == "tool_call" || ty == "thinking" || has(v, "timestamp_ms") || has(v, "model_call_id") {
        return Some(Producer::Cursor);
    }
    if ty == "system" && sub == Some("init") {
        // 8–11: whose init.
        if has(v, "qwen_code_version") || has(v, "permission_mode") {
            return Some(Producer::Qwen);
        }
        if has(v, "claude_code_version") {
            return Some(Producer::Claude);
        }
        if matches!(str_at(v, "apiKeySource"), Some("env" | "flag" | "login")) && !has(v, "tools") {
            return Some(Producer::Cursor);
        }
        if has(v, "cwd")
            && has(v, "tools")
            && has(v, "mcp_servers")
            && !has(v, "model")
            && !has(v, "uuid")
        {
            return Some(Producer::Amp);
        }
        // Amp's thread ids, also when the init has grown a field rule 11
        // does not expect.
        if str_at(v, "session_id").is_some_and(|s| s.starts_with("T-")) {
            return Some(Producer::Amp);
        }
        // An older Claude Code (no version field).
        return Some(Producer::Claude);
    }
    // 12: Claude-only types, and any other system subtype.
    if CLAUDE_TYPES.contains(&ty) || ty == "system" {
        return Some(Producer::Claude);
    }
    // 13: shared shapes, telltale fields.
    if matches!(ty, "assistant" | "user" | "result") {
        if str_at(v, "session_id").is_some_and(|s| s.starts_with("T-")) {
            return Some(Producer::Amp);
        }
        if ty == "result" {
            if has(v, "total_cost_usd") {
                return Some(Producer::Claude);
            }
            if get(v, "usage").is_some_and(|u| has(u, "inputTokens")) {
                return Some(Producer::Cursor);
            }
            if get(v, "error").is_some_and(|e| e.into_string().is_some()) {
                return Some(Producer::Amp);
            }
        }
    }
    None
}

/// The producer whose stream this line *starts*, for lines that can only be
/// the first of a stream (a session header); `None` for any other line.
/// Used to notice a second producer's log concatenated after a first one
/// without re-guessing on ordinary lines (Qwen also prints Claude's
/// `stream_event`, for instance).
#[must_use]
pub(crate) fn opener(v: Value<'_>) -> Option<Producer> {
    let ty = str_at(v, "type")?;
    let starts = match ty {
        "system" => str_at(v, "subtype") == Some("init"),
        "thread.started" | "init" | "step_start" => true,
        // The bulk of a live Claude stream: never a transcript's first entry.
        "stream_event" | "result" | "rate_limit_event" => false,
        // A transcript's first entry has no parent; before it come metadata
        // lines (`queue-operation`…) that no other stream prints.
        _ => get(v, "parentUuid").is_some_and(super::is_null) || TRANSCRIPT_TYPES.contains(&ty),
    };
    if starts { detect(v) } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::NO_LONGS;

    fn d(line: &str) -> Option<Producer> {
        let mut bytes = line.as_bytes().to_vec();
        let tape = simd_json::to_tape(&mut bytes).unwrap();
        detect(Value::new(tape.as_value(), &NO_LONGS))
    }

    #[test]
    fn table() {
        assert_eq!(
            d(r#"{"type":"user","parentUuid":null,"sessionId":"s"}"#),
            Some(Producer::ClaudeTranscript)
        );
        assert_eq!(
            d(r#"{"type":"summary","summary":"x"}"#),
            Some(Producer::ClaudeTranscript)
        );
        assert_eq!(
            d(r#"{"type":"thread.started","thread_id":"t"}"#),
            Some(Producer::Codex)
        );
        assert_eq!(
            d(r#"{"type":"error","message":"boom"}"#),
            Some(Producer::Codex)
        );
        assert_eq!(
            d(r#"{"type":"init","timestamp":"2025-01-01T00:00:00Z","session_id":"s","model":"m"}"#),
            Some(Producer::Gemini)
        );
        assert_eq!(
            d(
                r#"{"type":"error","timestamp":"2025-01-01T00:00:00Z","severity":"error","message":"m"}"#
            ),
            Some(Producer::Gemini)
        );
        assert_eq!(
            d(r#"{"type":"step_start","timestamp":1700000000000,"sessionID":"ses_1","part":{}}"#),
            Some(Producer::OpenCode)
        );
        assert_eq!(
            d(r#"{"type":"tool_use","timestamp":1700000000000,"sessionID":"ses_1","part":{}}"#),
            Some(Producer::OpenCode)
        );
        assert_eq!(
            d(r#"{"type":"tool_call","subtype":"started","call_id":"c"}"#),
            Some(Producer::Cursor)
        );
        assert_eq!(
            d(r#"{"type":"system","subtype":"init","qwen_code_version":"0.1","tools":[]}"#),
            Some(Producer::Qwen)
        );
        assert_eq!(
            d(r#"{"type":"system","subtype":"init","claude_code_version":"2.1","tools":[]}"#),
            Some(Producer::Claude)
        );
        assert_eq!(
            d(
                r#"{"type":"system","subtype":"init","apiKeySource":"login","model":"gpt","cwd":"/"}"#
            ),
            Some(Producer::Cursor)
        );
        assert_eq!(
            d(
                r#"{"type":"system","subtype":"init","cwd":"/","tools":[],"mcp_servers":[],"session_id":"T-1"}"#
            ),
            Some(Producer::Amp)
        );
        assert_eq!(
            d(r#"{"type":"stream_event","event":{}}"#),
            Some(Producer::Claude)
        );
        assert_eq!(
            d(r#"{"type":"system","subtype":"api_retry"}"#),
            Some(Producer::Claude)
        );
    }

    #[test]
    fn transcript_lines() {
        for line in [
            r#"{"type":"queue-operation","operation":"dequeue","timestamp":"2026-01-01T00:00:00Z","sessionId":"s"}"#,
            r#"{"parentUuid":null,"isSidechain":true,"agentId":"a1","type":"user","message":{"role":"user","content":"x"},"sessionId":"s"}"#,
            r#"{"parentUuid":"u1","type":"attachment","attachment":{"type":"date"},"sessionId":"s"}"#,
            r#"{"type":"system","subtype":"turn_duration","sessionId":"s","durationMs":5}"#,
            r#"{"type":"last-prompt","lastPrompt":"x","leafUuid":"u","sessionId":"s"}"#,
            r#"{"type":"tools-used","tools":["Read"],"sessionId":"s"}"#,
            r#"{"type":"atis-latch","atis":"","sessionId":"s"}"#,
            r#"{"type":"api-request","sessionId":"s","id":"r","params":{}}"#,
            r#"{"type":"api-request-shape","sessionId":"s","shape":{}}"#,
            r#"{"type":"api-request-blob","sessionId":"s","hash":"h","message":{}}"#,
            r#"{"type":"cost-state","sessionId":"s","totalCostUSD":0.1}"#,
        ] {
            assert_eq!(d(line), Some(Producer::ClaudeTranscript), "{line}");
        }
    }

    #[test]
    fn amp_init_with_unexpected_fields_is_amp() {
        assert_eq!(
            d(
                r#"{"type":"system","subtype":"init","cwd":"/","tools":[],"mcp_servers":[],"model":"m","session_id":"T-1"}"#
            ),
            Some(Producer::Amp)
        );
        // A Claude init without a version field stays Claude.
        assert_eq!(
            d(r#"{"type":"system","subtype":"init","cwd":"/","tools":[],"session_id":"0b1c"}"#),
            Some(Producer::Claude)
        );
    }

    #[test]
    fn only_session_headers_open_a_stream() {
        let o = |line: &str| {
            let mut bytes = line.as_bytes().to_vec();
            opener(Value::new(
                simd_json::to_tape(&mut bytes).unwrap().as_value(),
                &NO_LONGS,
            ))
        };
        assert_eq!(
            o(r#"{"type":"thread.started","thread_id":"t"}"#),
            Some(Producer::Codex)
        );
        assert_eq!(
            o(r#"{"type":"system","subtype":"init","claude_code_version":"2.1","tools":[]}"#),
            Some(Producer::Claude)
        );
        assert_eq!(o(r#"{"type":"stream_event","event":{}}"#), None);
        assert_eq!(o(r#"{"type":"turn.completed","usage":{}}"#), None);
        assert_eq!(
            o(r#"{"type":"user","parentUuid":null,"sessionId":"s"}"#),
            Some(Producer::ClaudeTranscript)
        );
        assert_eq!(
            o(r#"{"type":"user","parentUuid":"p","sessionId":"s"}"#),
            None
        );
        assert_eq!(
            o(r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s"}"#),
            Some(Producer::ClaudeTranscript)
        );
    }

    #[test]
    fn ambiguous_lines_need_telltales() {
        assert_eq!(d(r#"{"type":"assistant","message":{}}"#), None);
        assert_eq!(
            d(r#"{"type":"assistant","session_id":"T-abc","message":{}}"#),
            Some(Producer::Amp)
        );
        assert_eq!(
            d(r#"{"type":"result","total_cost_usd":0.1}"#),
            Some(Producer::Claude)
        );
        assert_eq!(
            d(r#"{"type":"result","usage":{"inputTokens":1}}"#),
            Some(Producer::Cursor)
        );
        assert_eq!(d(r#"{"type":"result","error":"x"}"#), Some(Producer::Amp));
        assert_eq!(d(r#"{"type":"result","result":"x"}"#), None);
        assert_eq!(d(r#"{"no_type":1}"#), None);
    }
}
