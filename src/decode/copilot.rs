//! GitHub Copilot CLI `copilot -p … --output-format json`.
//!
//! Every line but the last is an envelope `{type, data, id, timestamp,
//! parentId, ephemeral?}` whose `type` is dotted (`assistant.message`,
//! `tool.execution_complete`…); the last is `{type: "result", sessionId,
//! exitCode, usage}` (see `tests/fixtures/copilot/README.md`).
//!
//! * There is no session header: the start-up lines (`session.skills_loaded`,
//!   `session.mcp_servers_loaded`, `session.tools_updated` with the model)
//!   are held and given as one `session_start` before the first other line.
//! * Text and reasoning stream as `assistant.message_delta` /
//!   `assistant.reasoning_delta` (deltas here), then come whole in
//!   `assistant.message` (`content`, `reasoningText`, `toolRequests[]`); the
//!   separate `assistant.reasoning` line repeats the reasoning (after the
//!   message when streaming, before it with `--stream off`) and is read only
//!   when the message had none.
//! * A call is announced in `toolRequests[]` and again by
//!   `tool.execution_start`; its outcome is `tool.execution_complete` by
//!   `toolCallId`. A shell command that exits non-zero is `success: true`
//!   with the code only in `shellExecution.exitCode`: made a failure here. A
//!   refused permission is `success: false`, `error.code: "denied"`.
//! * API failures: `model.call_failure` per attempt (warnings), then
//!   `session.error` (an error, and the result fails). The `result` line has
//!   the exit code, durations and premium requests, but no tokens and no
//!   cost (Copilot does not print them).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;

use super::args::{content_of, first_line_at, first_scalar, pattern_in, replace_at, write_at};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use super::seen::Seen;
use crate::event::{
    Content, Delta, DeltaKind, Denial, Event, EventKind, JsonText, Level, List, McpServer, Notice,
    Producer, Role, SessionResult, SessionStart, Text, Thinking, Tokens, ToolCall, ToolKind,
    ToolResult, Usage,
};
use crate::json::{Arena, Value, arr_at, bool_at, cow_at, get, str_at, u64_at};

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// The `session_start` was given.
    started: bool,
    /// Held from the start-up lines until it is.
    model: Option<String>,
    skills: Vec<String>,
    mcp_servers: Vec<(String, String)>,
    /// Calls whose `tool_call` was given (from the message or the start).
    calls: Seen,
    /// `assistant.turn_start` lines.
    turns: u64,
    /// The reasoning streamed so far (joined, given whole before the
    /// next other line, so that a view recognises what it streamed).
    reasoning: String,
    /// This message's reasoning was given (`assistant.message`'s
    /// `reasoningText` and `assistant.reasoning` then repeat it).
    reasoning_given: bool,
    /// The last text the assistant wrote.
    last_text: Option<String>,
    /// Sub-agents' `agentId` → the `task` call that started them.
    agents: HashMap<String, String>,
    /// The line being read is a sub-agent's.
    nested: bool,
    /// `session.error` messages, and the last one's HTTP status.
    errors: Vec<String>,
    error_status: Option<u64>,
    /// From a saved session's `session.start`: its id, folder and CLI
    /// version (the stream has none of them).
    session: Option<String>,
    cwd: Option<String>,
    version: Option<String>,
}

/// The registry's line for GitHub Copilot CLI.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Copilot,
    name: "copilot",
    label: "GitHub Copilot CLI",
    invocation: "GitHub Copilot CLI `-p … --output-format json`",
    stream: start::<State>,
    format: &Copilot,
    unsearched: &["parentId"],
    unread: &[],
    store: Some(Store {
        home: ".copilot",
        moved_by: &["COPILOT_HOME"],
        sessions: "session-state",
        database: None,
        reader: None,
    }),
};

/// `copilot -p … --output-format json` (the registry's entry).
pub(crate) struct Copilot;

impl Format for Copilot {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // Dotted types in an envelope with `data` (Codex's dotted types
        // have none: asked before Codex), and the unwrapped result.
        let envelope = s.ty.contains('.') && get(s.v, "data").is_some_and(Value::is_object);
        let result = s.ty == "result" && has(s.v, "exitCode") && has(s.v, "sessionId");
        (envelope || result).then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        matches!(s.ty, "session.skills_loaded" | "session.start")
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let ty = str_at(v, "type").unwrap_or("");
        let Some(d) = get(v, "data").filter(|d| d.is_object()) else {
            return match ty {
                "result" => self.result(v, ctx, emit),
                _ => super::producer::unknown_line(v, ctx, emit),
            };
        };
        if self.startup(ty, d) {
            return Ok(());
        }
        self.start(ctx, emit)?;
        // A sub-agent's line: nested under the `task` call that started it.
        let Some(parent) = self.parent_of(v, d) else {
            self.nested = false;
            return self.line(ty, v, d, ctx, emit);
        };
        self.nested = true;
        self.line(ty, v, d, ctx, &mut |ev: &Event<'_>| {
            emit(&Event {
                parent: Some(Cow::Borrowed(parent.as_str())),
                ..ev.clone()
            })
        })
    }
}

impl State {
    /// The `task` call whose sub-agent wrote this line: its own
    /// `parentToolCallId`, or the call that started its `agentId`.
    fn parent_of(&mut self, v: Value<'_>, d: Value<'_>) -> Option<String> {
        let agent = str_at(v, "agentId").filter(|a| !a.is_empty());
        if str_at(v, "type") == Some("subagent.started")
            && let (Some(a), Some(call)) = (agent, str_at(d, "toolCallId"))
        {
            self.agents.insert(a.to_string(), call.to_string());
            return None;
        }
        if let Some(p) = str_at(d, "parentToolCallId").filter(|p| !p.is_empty()) {
            return Some(p.to_string());
        }
        agent.and_then(|a| self.agents.get(a)).cloned()
    }

    /// One envelope line of the main agent or of a sub-agent.
    fn line<'v>(
        &mut self,
        ty: &str,
        v: Value<'v>,
        d: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        if ty != "assistant.reasoning_delta" {
            self.flush_reasoning(ctx, emit)?;
        }
        match ty {
            "user.message" => user(d, ctx, emit),
            "assistant.turn_start" if self.nested => Ok(()),
            "assistant.turn_start" => {
                self.turns += 1;
                self.reasoning_given = false;
                Ok(())
            }
            "assistant.message_delta" => delta(d, DeltaKind::Text, "deltaContent", ctx, emit),
            "assistant.reasoning_delta" => {
                // Joined only when every line is read (not `--grep`'s
                // skipping): the message then gives the reasoning.
                if !ctx.skipping {
                    self.reasoning
                        .push_str(str_at(d, "deltaContent").unwrap_or(""));
                }
                delta(d, DeltaKind::Thinking, "deltaContent", ctx, emit)
            }
            "assistant.tool_call_delta" => delta(d, DeltaKind::ToolInput, "inputDelta", ctx, emit),
            "assistant.message" => self.message(d, ctx, emit),
            "assistant.reasoning" => self.reasoning(d, ctx, emit),
            "tool.execution_start" => self.call(d, ctx, emit),
            "tool.execution_complete" => complete(d, ctx, emit),
            "session.error" => self.error(d, ctx, emit),
            "assistant.usage" => emit(&ctx.event(EventKind::Usage(usage(d)))),
            // A saved session's (`events.jsonl`): each request's tokens, the
            // end with the session's totals; the system prompt is not shown.
            "session.usage_record" => match get(d, "usage") {
                Some(u) => emit(&ctx.event(EventKind::Usage(usage_record(u)))),
                None => Ok(()),
            },
            "session.shutdown" => self.shutdown(d, ctx, emit),
            "system.message" => Ok(()),
            "model.call_failure"
            | "session.info"
            | "assistant.turn_retry"
            | "session.todos_changed"
            | "subagent.started"
            | "subagent.completed"
            | "subagent.failed"
            | "session.warning"
            | "abort" => {
                let (subtype, level, text) = report(ty, d, ctx.arena);
                notice(ctx, subtype, level, text, emit)
            }
            // Bookkeeping that says nothing a view shows: live shell output
            // (the result has it all), model calls, turn ends.
            "assistant.turn_end"
            | "assistant.idle"
            | "assistant.message_start"
            | "model.call_start"
            | "model.call_finished"
            | "model.call_final_result"
            | "tool.shell_output"
            | "tool.execution_partial_result"
            | "session.background_tasks_changed" => Ok(()),
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    /// A start-up line, held for the `session_start`: true when it was one.
    fn startup(&mut self, ty: &str, d: Value<'_>) -> bool {
        match ty {
            "session.skills_loaded" => {
                let names = arr_at(d, "skills")
                    .iter()
                    .filter(|s| bool_at(*s, "enabled") != Some(false));
                self.skills = names
                    .filter_map(|s| str_at(s, "name"))
                    .map(str::to_string)
                    .collect();
            }
            "session.mcp_servers_loaded" => {
                self.mcp_servers = arr_at(d, "servers")
                    .iter()
                    .filter_map(|s| {
                        let name = str_at(s, "name")?;
                        Some((
                            name.to_string(),
                            str_at(s, "status").unwrap_or("").to_string(),
                        ))
                    })
                    .collect();
            }
            "session.tools_updated" => self.model = str_at(d, "model").map(str::to_string),
            "session.start" => {
                let s = |k: &str| str_at(d, k).map(str::to_string);
                self.session = s("sessionId");
                self.model = s("selectedModel");
                self.version = s("copilotVersion");
                self.cwd = get(d, "context")
                    .and_then(|c| str_at(c, "cwd"))
                    .map(str::to_string);
            }
            _ => return false,
        }
        !self.started
    }

    /// The `session_start`, before the first line that is not a start-up one.
    fn start(&mut self, ctx: &Ctx<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        let start = SessionStart {
            model: self.model.as_deref().map(Cow::Borrowed),
            cwd: self.cwd.as_deref().map(Cow::Borrowed),
            version: self.version.as_deref().map(Cow::Borrowed),
            skills: self
                .skills
                .iter()
                .map(|s| Cow::Borrowed(s.as_str()))
                .collect(),
            mcp_servers: self
                .mcp_servers
                .iter()
                .map(|(n, s)| McpServer {
                    name: Cow::Borrowed(n.as_str()),
                    status: Cow::Borrowed(s.as_str()),
                })
                .collect(),
            ..SessionStart::default()
        };
        emit(&ctx.event(EventKind::SessionStart(start)))
    }

    /// `assistant.message`: its reasoning, text and tool calls.
    fn message<'v>(&mut self, d: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let message_id = cow_at(d, "messageId");
        let reasoning = str_at(d, "reasoningText").filter(|r| !r.trim().is_empty());
        if let Some(r) = reasoning.filter(|_| !self.reasoning_given) {
            self.reasoning_given = true;
            emit(&ctx.event(EventKind::Thinking(Thinking {
                text: Cow::Borrowed(r),
                redacted: false,
                message_id: message_id.clone(),
            })))?;
        }
        if let Some(text) = str_at(d, "content").filter(|t| !t.trim().is_empty()) {
            if !self.nested {
                self.last_text = Some(text.to_string());
            }
            emit(&ctx.event(EventKind::Text(Text {
                role: Role::Assistant,
                text: Cow::Borrowed(text),
                message_id: message_id.clone(),
                command: None,
                continues: false,
            })))?;
        }
        for r in arr_at(d, "toolRequests") {
            let id = str_at(r, "toolCallId").unwrap_or("");
            if self.calls.insert(id) {
                let name = str_at(r, "name").unwrap_or("");
                let call = tool_call(id, name, get(r, "arguments"), message_id.clone(), ctx.arena);
                emit(&ctx.event(EventKind::ToolCall(call)))?;
            }
        }
        Ok(())
    }

    /// `assistant.reasoning`: the reasoning, unless its message had it.
    fn reasoning<'v>(
        &mut self,
        d: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let text = str_at(d, "content").unwrap_or("");
        if std::mem::take(&mut self.reasoning_given) || text.trim().is_empty() {
            return Ok(());
        }
        emit(&ctx.event(EventKind::Thinking(Thinking {
            text: Cow::Borrowed(text),
            redacted: false,
            message_id: None,
        })))
    }

    /// The streamed reasoning, whole, once the message goes on.
    fn flush_reasoning(&mut self, ctx: &Ctx<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        if self.reasoning.is_empty() {
            return Ok(());
        }
        self.reasoning_given = true;
        let text = ctx.arena.copy(&self.reasoning);
        self.reasoning.clear();
        emit(&ctx.event(EventKind::Thinking(Thinking {
            text: Cow::Borrowed(text),
            redacted: false,
            message_id: None,
        })))
    }

    /// `tool.execution_start`: the call, unless its message announced it.
    fn call<'v>(&mut self, d: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let id = str_at(d, "toolCallId").unwrap_or("");
        if !self.calls.insert(id) {
            return Ok(());
        }
        let name = str_at(d, "toolName").unwrap_or("");
        let call = tool_call(id, name, get(d, "arguments"), None, ctx.arena);
        emit(&ctx.event(EventKind::ToolCall(call)))
    }

    /// `session.error`: the session failed.
    fn error<'v>(&mut self, d: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let message = str_at(d, "message").unwrap_or("error");
        let status = u64_at(d, "statusCode");
        self.errors.push(message.to_string());
        self.error_status = status;
        let kind = str_at(d, "errorType").unwrap_or("error");
        let text = text!(ctx.arena, "{kind} error: {message}");
        notice(ctx, "session_error", Level::Error, text, emit)
    }

    /// The last line: exit code, durations; the result.
    fn result<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.start(ctx, emit)?;
        let usage = get(v, "usage");
        let exit_code = u64_at(v, "exitCode");
        let is_error = exit_code.is_some_and(|c| c != 0) || !self.errors.is_empty();
        let res = SessionResult {
            is_error,
            subtype: Some(Cow::Borrowed(if is_error { "error" } else { "success" })),
            // A failed session's text is its errors'.
            text: self.last_text.take().filter(|_| !is_error).map(Cow::Owned),
            errors: self.errors.drain(..).map(Cow::Owned).collect(),
            num_turns: (self.turns > 0).then_some(self.turns),
            duration_ms: usage.and_then(|u| u64_at(u, "sessionDurationMs")),
            duration_api_ms: usage.and_then(|u| u64_at(u, "totalApiDurationMs")),
            api_error_status: if is_error { self.error_status } else { None },
            ..SessionResult::default()
        };
        let mut ev = ctx.event(EventKind::Result(Box::new(res)));
        ev.session = cow_at(v, "sessionId");
        emit(&ev)?;
        *self = State::default();
        Ok(())
    }

    /// A saved session's `session.shutdown`: its end, with the CLI's own
    /// token totals per model (`modelMetrics`) and API time. A failed
    /// session wrote `session.error` before it.
    fn shutdown<'v>(&mut self, d: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let is_error = !self.errors.is_empty();
        let mut tokens = Tokens::default();
        if let Some(metrics) = get(d, "modelMetrics").and_then(Value::as_object) {
            for (_, m) in &metrics {
                if let Some(u) = get(m, "usage") {
                    tokens.add(&usage_record(u).tokens);
                }
            }
        }
        let started = u64_at(d, "sessionStartTime").and_then(|t| i64::try_from(t).ok());
        let duration_ms = match (started, ctx.time) {
            (Some(a), Some(b)) => u64::try_from(b.millis() - a).ok(),
            _ => None,
        };
        let res = SessionResult {
            is_error,
            subtype: Some(Cow::Borrowed(if is_error { "error" } else { "success" })),
            text: self.last_text.take().filter(|_| !is_error).map(Cow::Owned),
            errors: self.errors.drain(..).map(Cow::Owned).collect(),
            num_turns: (self.turns > 0).then_some(self.turns),
            duration_ms,
            duration_api_ms: u64_at(d, "totalApiDurationMs"),
            api_error_status: if is_error { self.error_status } else { None },
            tokens,
            ..SessionResult::default()
        };
        let mut ev = ctx.event(EventKind::Result(Box::new(res)));
        ev.session = self
            .session
            .as_deref()
            .map(|s| Cow::Borrowed(ctx.arena.copy(s)));
        emit(&ev)?;
        *self = State::default();
        Ok(())
    }
}

fn notice<'v>(
    ctx: &Ctx<'v>,
    subtype: &'static str,
    level: Level,
    text: Cow<'v, str>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    emit(&ctx.event(EventKind::Notice(Notice {
        subtype: Cow::Borrowed(subtype),
        level,
        text,
        raw: Some(ctx.raw()),
        estimate: false,
    })))
}

/// The prompt.
fn user<'v>(d: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    emit(&ctx.event(EventKind::Text(Text {
        role: Role::User,
        text: cow_at(d, "content").unwrap_or_default(),
        message_id: cow_at(d, "messageId"),
        command: None,
        continues: false,
    })))
}

/// A streamed piece of text, reasoning or a call's arguments.
fn delta<'v>(
    d: Value<'v>,
    kind: DeltaKind,
    key: &str,
    ctx: &Ctx<'v>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let Some(text) = cow_at(d, key).filter(|t| !t.is_empty()) else {
        return Ok(());
    };
    emit(&ctx.event(EventKind::Delta(Delta {
        kind,
        index: None,
        text,
    })))
}

/// A line that is a notice: its subtype, level and text.
fn report<'v>(ty: &str, d: Value<'v>, a: &'v Arena) -> (&'static str, Level, Cow<'v, str>) {
    match ty {
        "model.call_failure" => ("model_call_failure", Level::Warning, failure(d, a)),
        "session.info" => info(d, a),
        "assistant.turn_retry" => {
            let reason = str_at(d, "reason").unwrap_or("retry");
            (
                "turn_retry",
                Level::Debug,
                text!(a, "turn retried: {reason}"),
            )
        }
        "session.todos_changed" => (
            "todos_changed",
            Level::Debug,
            Cow::Borrowed("todos changed"),
        ),
        // Named in the CLI's event schema, not seen in the captures.
        "session.warning" | "abort" => {
            let m = ["message", "reason", "warningType"]
                .iter()
                .find_map(|k| str_at(d, k))
                .unwrap_or("");
            let subtype = if ty == "abort" { "abort" } else { "warning" };
            (subtype, Level::Warning, Cow::Borrowed(m))
        }
        _ => subagent(ty, d, a),
    }
}

/// `subagent.started`, `.completed`, `.failed`: bookkeeping, a failure a
/// warning (its `task` call's result says the rest).
fn subagent<'v>(ty: &str, d: Value<'v>, a: &'v Arena) -> (&'static str, Level, Cow<'v, str>) {
    let name = ["agentDisplayName", "agentName", "agentType"]
        .iter()
        .find_map(|k| str_at(d, k))
        .unwrap_or("sub-agent");
    match ty {
        "subagent.failed" => {
            let error = str_at(d, "error").unwrap_or("failed");
            (
                "subagent_failed",
                Level::Warning,
                text!(a, "{name} failed: {error}"),
            )
        }
        "subagent.started" => ("subagent_started", Level::Debug, text!(a, "{name} started")),
        _ => (
            "subagent_completed",
            Level::Debug,
            text!(a, "{name} completed"),
        ),
    }
}

/// `assistant.usage`: one model request's tokens (`inputTokens` without
/// the cached ones).
fn usage(d: Value<'_>) -> Usage<'_> {
    Usage {
        model: cow_at(d, "model"),
        tokens: Tokens {
            input: u64_at(d, "inputTokens"),
            output: u64_at(d, "outputTokens"),
            cache_read: u64_at(d, "cacheReadTokens"),
            cache_creation: u64_at(d, "cacheWriteTokens"),
            reasoning: None,
        },
        ..Usage::default()
    }
}

/// A saved session's `session.usage_record` (or a model's totals in
/// `session.shutdown`): `inputTokens` holds the cached ones
/// (`cacheReadTokens`), which count once.
fn usage_record(u: Value<'_>) -> Usage<'_> {
    let cache_read = u64_at(u, "cacheReadTokens");
    Usage {
        message_id: cow_at(u, "apiCallId"),
        model: cow_at(u, "model"),
        tokens: Tokens {
            input: u64_at(u, "inputTokens").map(|i| i.saturating_sub(cache_read.unwrap_or(0))),
            output: u64_at(u, "outputTokens"),
            cache_read,
            cache_creation: u64_at(u, "cacheWriteTokens"),
            reasoning: None,
        },
        ..Usage::default()
    }
}

/// `model.call_failure`: `HTTP 500: message (attempt 2)`.
fn failure<'v>(d: Value<'v>, a: &'v Arena) -> Cow<'v, str> {
    let mut t = a.text();
    t.push_str("model call failed");
    match (u64_at(d, "statusCode"), str_at(d, "failureKind")) {
        (Some(s), _) => {
            let _ = write!(t, ": HTTP {s}");
        }
        (None, Some(k)) => {
            let _ = write!(t, ": {k} error");
        }
        (None, None) => {}
    }
    let message = str_at(d, "errorMessage").filter(|m| !m.is_empty());
    if let Some(m) = message.map(error_message) {
        let _ = write!(t, ": {m}");
    }
    if let Some(n) = u64_at(d, "retryAttempt").filter(|n| *n > 0) {
        let _ = write!(t, " (retry {n})");
    }
    Cow::Borrowed(t.done())
}

/// `{"message": "…", …}` (an API error body as text) → its message.
fn error_message(m: &str) -> &str {
    let Some(rest) = m.trim_start().strip_prefix("{\"message\":\"") else {
        return m;
    };
    match rest.find("\",") {
        Some(end) if !rest[..end].contains('\\') => &rest[..end],
        _ => m,
    }
}

/// `session.info` (`model_retry`, `file_created`): bookkeeping (each
/// failed attempt was a warning already).
fn info<'v>(d: Value<'v>, a: &'v Arena) -> (&'static str, Level, Cow<'v, str>) {
    let ty = str_at(d, "infoType").unwrap_or("info");
    let message = str_at(d, "message").unwrap_or("");
    let subtype = if ty == "model_retry" {
        "api_retry"
    } else {
        "info"
    };
    (subtype, Level::Debug, text!(a, "{ty}: {message}"))
}

/// `tool.execution_complete`: the outcome, a denial, or a shell command's
/// non-zero exit.
fn complete<'v>(d: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let id = cow_at(d, "toolCallId").unwrap_or_default();
    let error = get(d, "error");
    let denied = error.and_then(|e| str_at(e, "code")) == Some("denied");
    let shell_exit = get(d, "shellExecution")
        .and_then(|s| get(s, "exitCode"))
        .and_then(Value::as_i64);
    let output = get(d, "result").and_then(|r| get(r, "content"));
    let (is_error, content): (bool, Content<'v>) = if bool_at(d, "success") == Some(false) {
        let m = error.and_then(|e| str_at(e, "message").or_else(|| e.into_string()));
        (true, m.unwrap_or("tool error").into())
    } else {
        match shell_exit {
            Some(code) if code != 0 => {
                let out = output.and_then(Value::into_string).unwrap_or("");
                let sep = if out.is_empty() { "" } else { "\n" };
                (true, text!(ctx.arena, "exit code {code}{sep}{out}").into())
            }
            _ => (false, output.and_then(content_of).unwrap_or_default()),
        }
    };
    let message = denied.then(|| Cow::Borrowed(content.text_in(ctx.arena)));
    emit(&ctx.event(EventKind::ToolResult(ToolResult {
        id: id.clone(),
        is_error,
        denied,
        content,
        ..ToolResult::default()
    })))?;
    if denied {
        emit(&ctx.event(EventKind::PermissionDenied(Denial {
            id: Some(id),
            tool: None,
            key_arg: None,
            message,
        })))?;
    }
    Ok(())
}

fn tool_call<'v>(
    id: &'v str,
    name: &'v str,
    args: Option<Value<'v>>,
    message_id: Option<Cow<'v, str>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let changes = match (name, args) {
        ("edit" | "str_replace", Some(i)) => {
            replace_at(i, ["old_str", "new_str", "replace_all"], a)
        }
        ("create", Some(i)) => write_at(i, "file_text", a),
        _ => List::default(),
    };
    ToolCall {
        id: Cow::Borrowed(id),
        name: Cow::Borrowed(name),
        kind: match (name, args.and_then(|i| str_at(i, "query"))) {
            // Copilot keeps its todo list in the session's `todos` table.
            ("sql", Some(q)) if q.contains("todos") => ToolKind::Todo,
            _ => tool_kind(name),
        },
        key_arg: args.and_then(|i| key_arg(name, i, a)),
        input: args.map(JsonText::value).unwrap_or_default(),
        todos: List::default(),
        questions: List::default(),
        changes,
        changes_in_result: false,
        message_id,
    }
}

/// What a Copilot CLI tool does.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "bash" | "read_bash" | "write_bash" | "stop_bash" | "list_bash" | "powershell"
        | "read_powershell" | "write_powershell" | "stop_powershell" => ToolKind::Shell,
        "view" => ToolKind::Read,
        "create" => ToolKind::Write,
        "edit" | "str_replace" | "insert" | "apply_patch" => ToolKind::Edit,
        "glob" | "grep" => ToolKind::Search,
        "web_fetch" => ToolKind::Fetch,
        "web_search" => ToolKind::WebSearch,
        "task" | "read_agent" | "list_agents" => ToolKind::Agent,
        "update_todo" => ToolKind::Todo,
        n => super::args::mcp_or_other(n),
    }
}

/// The one argument that says what a Copilot CLI tool call does.
fn key_arg<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(input, k).filter(|v| !v.is_empty());
    match name {
        "bash" | "powershell" => s("command"),
        "read_bash" | "write_bash" | "stop_bash" | "read_powershell" | "write_powershell"
        | "stop_powershell" => s("shellId").or_else(|| s("input")),
        "view" | "create" | "edit" | "str_replace" | "insert" => s("path"),
        "glob" | "grep" => {
            let pattern = str_at(input, "pattern")?;
            let dir = str_at(input, "paths").or_else(|| str_at(input, "path"));
            let filter = str_at(input, "glob").filter(|g| !g.is_empty());
            Some(pattern_in(
                pattern,
                dir.filter(|d| !d.is_empty()),
                filter,
                a,
            ))
        }
        "web_fetch" => s("url"),
        "web_search" => s("query"),
        "sql" => first_line_at(input, "query").or_else(|| s("description")),
        "task" => match (str_at(input, "agent_type"), str_at(input, "description")) {
            (Some(t), Some(d)) => Some(text!(a, "{t}: {d}")),
            (t, d) => t.or(d).map(Cow::Borrowed),
        },
        "skill" => s("skill").or_else(|| s("name")),
        "report_intent" => s("intent"),
        "update_todo" => first_line_at(input, "todos"),
        _ => first_scalar(input, true, a),
    }
}
