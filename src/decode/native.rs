//! streamview's own JSONL (`--format jsonl`), read back so that
//! `streamview --format jsonl x | streamview` renders like `streamview x`.
//! The schema is in `docs/schema.md`.

use std::borrow::Cow;
use std::io;

use super::args::{content_of, json_in, list, strings_at};
use super::producer::{Ctx, Emit};
use crate::event::ToolKind;
use crate::event::{
    Answer, Delta, DeltaKind, Denial, Event, EventKind, Level, McpServer, ModelUsage, Notice,
    Producer, Question, Role, SessionResult, SessionStart, Text, Thinking, Todo, Tokens, ToolCall,
    ToolResult, Unknown, Usage,
};
use crate::event::{Edit, FileChange, JsonText};
use crate::json::{Arena, Value, arr_at, bool_at, cow_at, f64_at, get, str_at, u64_at};

/// A line of our own schema has a numeric `v` and a string `kind`.
pub(crate) fn is_native(v: Value<'_>) -> bool {
    // One pass over the keys, over as soon as a `type` shows that the line
    // is a producer's (every line of every producer has one, mostly first).
    let Some(obj) = v.as_object() else {
        return false;
    };
    let (mut version, mut kind) = (false, false);
    for (k, x) in &obj {
        match k {
            "type" => return false,
            "v" => version = crate::json::u64_of(x).is_some(),
            "kind" => kind = x.into_string().is_some(),
            _ => {}
        }
    }
    version && kind
}

/// Keys of streamview's own JSONL that `--grep` never searches (see
/// [`super::producer::Entry::unsearched`]).
pub(crate) const UNSEARCHED: &[&str] = &["request_id", "timestamp"];

pub(crate) fn decode<'v>(v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let producer = str_at(v, "producer")
        .and_then(Producer::from_name)
        .unwrap_or(Producer::Claude);
    let json = |k: &str| get(v, k).map_or(Cow::Borrowed("null"), |x| json_in(x, ctx.arena));
    let kind = match str_at(v, "kind").unwrap_or("") {
        "session_start" => EventKind::SessionStart(session_start(v, ctx.arena)),
        "text" => EventKind::Text(Text {
            role: if str_at(v, "role") == Some("user") {
                Role::User
            } else {
                Role::Assistant
            },
            text: cow_at(v, "text").unwrap_or_default(),
            message_id: cow_at(v, "message_id"),
            command: cow_at(v, "command"),
            continues: bool_at(v, "continues").unwrap_or(false),
        }),
        "thinking" => EventKind::Thinking(Thinking {
            text: cow_at(v, "text").unwrap_or_default(),
            redacted: bool_at(v, "redacted").unwrap_or(false),
            message_id: cow_at(v, "message_id"),
        }),
        "tool_call" => EventKind::ToolCall(tool_call(v, ctx.arena)),
        "tool_result" => EventKind::ToolResult(tool_result(v, ctx.arena)),
        "permission_denied" => EventKind::PermissionDenied(Denial {
            id: cow_at(v, "id"),
            tool: cow_at(v, "tool"),
            key_arg: cow_at(v, "key_arg"),
            message: cow_at(v, "message"),
        }),
        "usage" => EventKind::Usage(usage(v, producer)),
        "notice" => EventKind::Notice(notice(v, ctx.arena)),
        "result" => EventKind::Result(Box::new(result(v, ctx.arena))),
        "delta" => EventKind::Delta(Delta {
            kind: str_at(v, "delta_kind")
                .and_then(DeltaKind::from_name)
                .unwrap_or(DeltaKind::Text),
            index: u64_at(v, "index"),
            text: cow_at(v, "text").unwrap_or_default(),
        }),
        "plain_text" => EventKind::PlainText(cow_at(v, "text").unwrap_or_default()),
        "unknown" => EventKind::Unknown(Unknown {
            type_name: cow_at(v, "event_type").unwrap_or_default(),
            raw: json("raw"),
        }),
        other => EventKind::Unknown(Unknown {
            type_name: text!(ctx.arena, "streamview/{other}"),
            raw: ctx.raw(),
        }),
    };
    emit(&Event {
        producer,
        line: u64_at(v, "line").unwrap_or(ctx.line),
        source: cow_at(v, "source"),
        session: cow_at(v, "session"),
        parent: cow_at(v, "parent"),
        time: ctx.time,
        kind,
    })
}

/// A `tool_result` event.
fn tool_result<'v>(v: Value<'v>, a: &'v Arena) -> ToolResult<'v> {
    ToolResult {
        id: cow_at(v, "id").unwrap_or_default(),
        is_error: bool_at(v, "is_error").unwrap_or(false),
        denied: bool_at(v, "denied").unwrap_or(false),
        content: get(v, "content").and_then(content_of).unwrap_or_default(),
        answers: list(
            a,
            arr_at(v, "answers").iter().map(|a| Answer {
                question: cow_at(a, "question").unwrap_or_default(),
                answer: cow_at(a, "answer").unwrap_or_default(),
            }),
        ),
        changes: list(a, arr_at(v, "changes").iter().map(file_change)),
    }
}

/// A `usage` event of `producer`.
fn usage(v: Value<'_>, producer: Producer) -> Usage<'_> {
    Usage {
        message_id: cow_at(v, "message_id"),
        request_id: cow_at(v, "request_id"),
        model: cow_at(v, "model"),
        tokens: get(v, "tokens").map(tokens).unwrap_or_default(),
        replaces: get(v, "replaces")
            .filter(|t| t.as_object().is_some())
            .map(tokens),
        cache_write_1h: u64_at(v, "cache_write_1h"),
        sidechain: bool_at(v, "sidechain").unwrap_or(false),
        fast: bool_at(v, "fast").unwrap_or(false),
        // Written since schema 1's `preliminary_output`; before, as it
        // was for the producer named.
        preliminary_output: bool_at(v, "preliminary_output")
            .unwrap_or(producer == Producer::Claude),
        cost_usd: f64_at(v, "cost_usd"),
    }
}

/// A `notice` event.
fn notice<'v>(v: Value<'v>, a: &'v Arena) -> Notice<'v> {
    Notice {
        subtype: cow_at(v, "subtype").unwrap_or_default(),
        level: str_at(v, "level")
            .and_then(Level::from_name)
            .unwrap_or(Level::Info),
        text: cow_at(v, "text").unwrap_or_default(),
        raw: get(v, "raw")
            .filter(|r| r.as_object().is_some())
            .map(|r| json_in(r, a)),
        // Not in the schema: as the producer's decoder says it.
        estimate: str_at(v, "subtype") == Some("thinking_tokens"),
    }
}

/// A `session_start` line read back.
fn session_start<'v>(v: Value<'v>, a: &'v Arena) -> SessionStart<'v> {
    SessionStart {
        model: cow_at(v, "model"),
        cwd: cow_at(v, "cwd"),
        version: cow_at(v, "version"),
        permission_mode: cow_at(v, "permission_mode"),
        agent_mode: cow_at(v, "agent_mode"),
        api_key_source: cow_at(v, "api_key_source"),
        tools: strings_at(v, "tools", a),
        mcp_servers: list(
            a,
            arr_at(v, "mcp_servers").iter().map(|s| McpServer {
                name: cow_at(s, "name").unwrap_or_default(),
                status: cow_at(s, "status").unwrap_or_default(),
            }),
        ),
        agents: strings_at(v, "agents", a),
        skills: strings_at(v, "skills", a),
        slash_commands: strings_at(v, "slash_commands", a),
    }
}

/// A `tool_call` line read back.
fn tool_call<'v>(v: Value<'v>, a: &'v Arena) -> ToolCall<'v> {
    ToolCall {
        id: cow_at(v, "id").unwrap_or_default(),
        name: cow_at(v, "name").unwrap_or_default(),
        // A line written before the field existed: `other`.
        kind: str_at(v, "tool_kind")
            .and_then(ToolKind::from_name)
            .unwrap_or_default(),
        key_arg: cow_at(v, "key_arg"),
        input: get(v, "input").map_or_else(|| JsonText::from("null"), JsonText::value),
        todos: list(
            a,
            arr_at(v, "todos").iter().map(|t| Todo {
                content: cow_at(t, "content").unwrap_or_default(),
                status: cow_at(t, "status").unwrap_or_default(),
            }),
        ),
        questions: list(
            a,
            arr_at(v, "questions").iter().map(|q| Question {
                question: cow_at(q, "question").unwrap_or_default(),
                options: strings_at(q, "options", a),
            }),
        ),
        changes: list(a, arr_at(v, "changes").iter().map(file_change)),
        changes_in_result: bool_at(v, "changes_in_result").unwrap_or(false),
        message_id: cow_at(v, "message_id"),
    }
}

/// A change of a `tool_call` or `tool_result` line read back: its diff (a patch now), its
/// action, or only its counts.
fn file_change(c: Value<'_>) -> FileChange<'_> {
    let edit = if let Some(diff) = get(c, "diff").and_then(content_of) {
        Edit::Patch(diff)
    } else if let Some(action) = cow_at(c, "action") {
        Edit::Action(action)
    } else {
        Edit::Counted {
            added: u64_at(c, "lines_added").unwrap_or(0),
            removed: u64_at(c, "lines_removed").unwrap_or(0),
        }
    };
    FileChange {
        path: cow_at(c, "path"),
        edit,
    }
}

/// A `result` line read back.
fn result<'v>(v: Value<'v>, a: &'v Arena) -> SessionResult<'v> {
    SessionResult {
        is_error: bool_at(v, "is_error").unwrap_or(false),
        subtype: cow_at(v, "subtype"),
        text: cow_at(v, "text"),
        errors: strings_at(v, "errors", a),
        num_turns: u64_at(v, "num_turns"),
        duration_ms: u64_at(v, "duration_ms"),
        duration_api_ms: u64_at(v, "duration_api_ms"),
        cost_usd: f64_at(v, "cost_usd"),
        tokens: get(v, "tokens").map(tokens).unwrap_or_default(),
        model_usage: list(
            a,
            arr_at(v, "model_usage").iter().map(|m| ModelUsage {
                model: cow_at(m, "model").unwrap_or_default(),
                tokens: get(m, "tokens").map(tokens).unwrap_or_default(),
                cost_usd: f64_at(m, "cost_usd"),
            }),
        ),
        stop_reason: cow_at(v, "stop_reason"),
        terminal_reason: cow_at(v, "terminal_reason"),
        api_error_status: u64_at(v, "api_error_status"),
        after_task: cow_at(v, "after_task"),
    }
}

fn tokens(t: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(t, "input"),
        output: u64_at(t, "output"),
        cache_read: u64_at(t, "cache_read"),
        cache_creation: u64_at(t, "cache_creation"),
        reasoning: u64_at(t, "reasoning"),
    }
}
