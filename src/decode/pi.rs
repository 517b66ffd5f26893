//! Pi coding agent `pi -p --mode json`.
//!
//! The first line is the header `{type: "session", version, id, timestamp,
//! cwd}`; then agent events (see `tests/fixtures/pi/README.md`):
//!
//! * `message_update` streams the assistant message: `text_delta`,
//!   `thinking_delta`, `toolcall_delta` pieces (deltas here), and each
//!   block whole at its `*_end` (`content`, `toolCall`), given then, so
//!   that a view recognises what it streamed. `message_end` has the whole
//!   message: its blocks not given yet (a message that never streamed),
//!   and its `usage` (tokens and cost in dollars) and `stopReason`.
//! * A tool's outcome is the `toolResult` message (`toolCallId`,
//!   `isError`); a shell command that exits non-zero is an error already.
//!   `tool_execution_*` repeat it (and the running output): not read.
//! * A failed API request ends the assistant message with `stopReason:
//!   "error"` and `errorMessage`; pi retries (`auto_retry_start`, a new
//!   `agent_start`) and may give up (`auto_retry_end`, `success: false`).
//! * There is no result line, and pi exits 0 even after an API error: the
//!   result is rebuilt at the end of the input from the messages (tokens
//!   and cost summed, turns counted), failed when the last request failed.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use super::args::{first_scalar, list, pattern_in, replace_of, write_at};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use crate::event::{
    Delta, DeltaKind, Event, EventKind, FileChange, JsonText, Level, List, Producer, Role,
    SessionResult, SessionStart, Text, Thinking, Tokens, ToolCall, ToolKind, ToolResult, Usage,
};
use crate::json::{Arena, Value, arr_at, bool_at, cow_at, f64_at, get, str_at, u64_at};
use crate::time::Timestamp;

/// Per-stream state: the session and what its result will say.
#[derive(Default)]
pub(crate) struct State {
    /// Whose stream this is (Pi's, or `OpenClaw`'s: `decode/openclaw.rs`).
    producer: Option<Producer>,
    session: Option<String>,
    /// An agent run started and has not ended.
    running: bool,
    /// A run ended (a result can be given).
    ended: bool,
    /// Blocks of the message in progress already given (by index < 64).
    given: u64,
    /// Thinking streamed so far and its block's index: given whole when
    /// another block begins (its `thinking_end` comes only at the end of
    /// the message), so that a view recognises what it streamed.
    thinking: String,
    thinking_index: Option<u64>,
    turns: u64,
    tokens: Tokens,
    cost: Option<f64>,
    /// The last assistant text.
    last_text: Option<String>,
    /// The last request's error, while no later request succeeded.
    failure: Option<String>,
    first_time: Option<Timestamp>,
    last_time: Option<Timestamp>,
    last_line: u64,
}

/// The registry's line for Pi.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Pi,
    name: "pi",
    label: "Pi",
    invocation: "Pi `-p --mode json`",
    stream: start::<State>,
    format: &Pi,
    unsearched: &["toolCallId", "responseId"],
    unread: &[],
    store: Some(Store {
        home: ".pi/agent",
        moved_by: &["PI_CODING_AGENT_DIR"],
        sessions: "sessions",
        database: None,
        reader: None,
    }),
};

/// Its line types.
const TYPES: [&str; 12] = [
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "auto_retry_start",
    "auto_retry_end",
];

/// `pi -p --mode json` (the registry's entry).
pub(crate) struct Pi;

impl Format for Pi {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // A header `OpenClaw`'s readers mark (`"store"`) is its own.
        let header =
            s.ty == "session" && has(s.v, "version") && has(s.v, "cwd") && !has(s.v, "store");
        // A saved session's records of its own (its messages are shared
        // shapes: the header decides).
        let saved = matches!(s.ty, "model_change" | "thinking_level_change");
        (header || saved || TYPES.contains(&s.ty)).then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "session" && !has(s.v, "store")
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.last_line = ctx.line;
        self.producer = Some(ctx.producer);
        let message = get(v, "message");
        match str_at(v, "type").unwrap_or("") {
            "session" => self.header(v, ctx, emit),
            "agent_start" => {
                self.running = true;
                Ok(())
            }
            "agent_end" => {
                self.running = false;
                self.ended = true;
                Ok(())
            }
            "turn_start" => {
                self.turns += 1;
                Ok(())
            }
            "message_start" => {
                self.given = 0;
                self.thinking.clear();
                Ok(())
            }
            "message_update" => self.update(v, ctx, emit),
            // A saved session (`~/.pi/agent/sessions/--<cwd>--/*.jsonl`):
            // each message whole, no agent or turn events; the result is
            // rebuilt at its end, each assistant message a turn.
            "message" => {
                self.ended = true;
                self.given = 0;
                let role = message.and_then(|m| str_at(m, "role"));
                if role == Some("assistant") {
                    self.turns += 1;
                }
                self.message_end(v, message, ctx, emit)
            }
            "model_change" | "thinking_level_change" => Ok(()),
            "message_end" => self.message_end(v, message, ctx, emit),
            "auto_retry_start" => self.retry(v, ctx, emit),
            "auto_retry_end" => self.retry_end(v, ctx, emit),
            // The same messages again, and running output.
            "turn_end"
            | "tool_execution_start"
            | "tool_execution_update"
            | "tool_execution_end" => Ok(()),
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    /// End of input: the result rebuilt, unless the run was cut short.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if self.running || !self.ended {
            return Ok(());
        }
        self.ended = false;
        let is_error = self.failure.is_some();
        let duration_ms = Timestamp::ms_between(self.first_time, self.last_time);
        let res = SessionResult {
            is_error,
            subtype: Some(Cow::Borrowed(if is_error { "error" } else { "success" })),
            text: self.last_text.take().filter(|_| !is_error).map(Cow::Owned),
            errors: self.failure.take().map(Cow::Owned).into_iter().collect(),
            num_turns: Some(self.turns),
            duration_ms,
            cost_usd: self.cost,
            tokens: self.tokens,
            ..SessionResult::default()
        };
        emit(&Event {
            producer: self.producer.unwrap_or(Producer::Pi),
            line: self.last_line,
            source: None,
            session: self.session.clone().map(Cow::Owned),
            parent: None,
            time: self.last_time,
            kind: EventKind::Result(Box::new(res)),
        })
    }
}

impl State {
    /// A whole message: the stream's `message_end`, a saved `message`.
    fn message_end<'v>(
        &mut self,
        v: Value<'v>,
        message: Option<Value<'v>>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        match message.and_then(|m| str_at(m, "role")) {
            // A saved entry's id (the stream's `message_end` has none)
            // names the response with its `responseId`: a copy of the
            // entry in another file (`OpenClaw`'s JSONL and its database)
            // counts once.
            Some("assistant") => {
                let entry = (str_at(v, "type") == Some("message")).then(|| cow_at(v, "id"));
                self.assistant(message, entry.flatten(), ctx, emit)
            }
            Some("user") => self.user(message, ctx, emit),
            Some("toolResult") => self.tool_result(message, ctx, emit),
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    fn event<'v>(&self, ctx: &Ctx<'v>, kind: EventKind<'v>) -> Event<'v> {
        Event {
            producer: ctx.producer,
            line: ctx.line,
            source: None,
            session: self
                .session
                .as_deref()
                .map(|s| Cow::Borrowed(ctx.arena.copy(s))),
            parent: None,
            time: ctx.time,
            kind,
        }
    }

    fn header<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        *self = State {
            producer: self.producer,
            session: str_at(v, "id").map(str::to_string),
            ..State::default()
        };
        let start = SessionStart {
            cwd: cow_at(v, "cwd"),
            ..SessionStart::default()
        };
        emit(&self.event(ctx, EventKind::SessionStart(start)))
    }

    /// A message's time (epoch ms), for the duration.
    fn saw(&mut self, m: Value<'_>) {
        let t = u64_at(m, "timestamp").and_then(|t| i64::try_from(t).ok());
        if let Some(t) = t.and_then(Timestamp::from_millis) {
            self.first_time = Some(self.first_time.map_or(t, |f| f.min(t)));
            self.last_time = Some(self.last_time.map_or(t, |l| l.max(t)));
        }
    }

    /// `message_update`: a piece of a block, or a block whole at its end.
    fn update<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(e) = get(v, "assistantMessageEvent") else {
            return Ok(());
        };
        let index = u64_at(e, "contentIndex");
        let ty = str_at(e, "type").unwrap_or("");
        // Lines may be left unread (`--grep`, which searches no piece):
        // each block then comes from its message's end alone, so that no
        // event depends on another line.
        if ctx.skipping {
            return Ok(());
        }
        if ty == "thinking_delta" {
            self.thinking.push_str(str_at(e, "delta").unwrap_or(""));
            self.thinking_index = index;
        } else {
            self.flush_thinking(get(v, "message"), ctx, emit)?;
        }
        let delta = |kind| {
            let text = cow_at(e, "delta").filter(|t| !t.is_empty())?;
            Some(EventKind::Delta(Delta { kind, index, text }))
        };
        let message_id = get(v, "message").and_then(|m| cow_at(m, "responseId"));
        if index.is_some_and(|i| i < 64 && self.given & (1 << i) != 0) {
            return Ok(());
        }
        let kind = match ty {
            "text_delta" => delta(DeltaKind::Text),
            "thinking_delta" => delta(DeltaKind::Thinking),
            "toolcall_delta" => delta(DeltaKind::ToolInput),
            "text_end" => text_block(cow_at(e, "content"), message_id),
            "thinking_end" => thinking_block(cow_at(e, "content"), message_id),
            "toolcall_end" => get(e, "toolCall").map(|c| call_block(c, message_id, ctx.arena)),
            _ => None,
        };
        let Some(kind) = kind else {
            return Ok(());
        };
        if !matches!(kind, EventKind::Delta(_))
            && let Some(i) = index.filter(|i| *i < 64)
        {
            self.given |= 1 << i;
        }
        emit(&self.event(ctx, kind))
    }

    /// The thinking streamed, whole, once another block begins.
    fn flush_thinking(
        &mut self,
        m: Option<Value<'_>>,
        ctx: &Ctx<'_>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        if self.thinking.is_empty() {
            return Ok(());
        }
        if let Some(i) = self.thinking_index.take().filter(|i| *i < 64) {
            self.given |= 1 << i;
        }
        let text = Cow::Borrowed(ctx.arena.copy(&self.thinking));
        self.thinking.clear();
        let message_id = m.and_then(|m| cow_at(m, "responseId"));
        let kind = thinking_block(Some(text), message_id);
        match kind {
            Some(kind) => emit(&self.event(ctx, kind)),
            None => Ok(()),
        }
    }

    /// `message_end` of the assistant: the blocks not given yet, usage, an
    /// API error.
    fn assistant<'v>(
        &mut self,
        m: Option<Value<'v>>,
        entry: Option<Cow<'v, str>>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let Some(m) = m else { return Ok(()) };
        self.flush_thinking(Some(m), ctx, emit)?;
        self.saw(m);
        let message_id = cow_at(m, "responseId");
        for (i, b) in arr_at(m, "content").iter().enumerate() {
            if i < 64 && self.given & (1 << i) != 0 {
                continue;
            }
            let kind = match str_at(b, "type").unwrap_or("") {
                "text" => text_block(cow_at(b, "text"), message_id.clone()),
                "thinking" => thinking_block(cow_at(b, "thinking"), message_id.clone()),
                "toolCall" => Some(call_block(b, message_id.clone(), ctx.arena)),
                _ => None,
            };
            if let Some(kind) = kind {
                emit(&self.event(ctx, kind))?;
            }
        }
        self.given = 0;
        if let Some(t) = last_text(m) {
            self.last_text = Some(t.to_string());
        }
        self.usage(m, [message_id, entry], ctx, emit)?;
        if let Some("error" | "aborted") = str_at(m, "stopReason") {
            let reason = str_at(m, "errorMessage").unwrap_or("request failed");
            self.failure = Some(reason.to_string());
            let text = Cow::Borrowed(reason);
            return emit(&self.event(ctx, ctx.notice("api_error", Level::Error, text)));
        }
        self.failure = None;
        Ok(())
    }

    /// The message's usage (tokens, cost), unless all zero (a failed
    /// request's).
    fn usage<'v>(
        &mut self,
        m: Value<'v>,
        [message_id, request_id]: [Option<Cow<'v, str>>; 2],
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let Some(u) = get(m, "usage") else {
            return Ok(());
        };
        let tokens = Tokens {
            input: u64_at(u, "input"),
            output: u64_at(u, "output"),
            cache_read: u64_at(u, "cacheRead"),
            cache_creation: u64_at(u, "cacheWrite"),
            reasoning: None,
        };
        if tokens.total() == 0 {
            return Ok(());
        }
        self.tokens.add(&tokens);
        let cost_usd = get(u, "cost").and_then(|c| f64_at(c, "total"));
        if let Some(c) = cost_usd {
            *self.cost.get_or_insert(0.0) += c;
        }
        let usage = Usage {
            message_id,
            request_id,
            model: cow_at(m, "model"),
            tokens,
            cost_usd,
            ..Usage::default()
        };
        emit(&self.event(ctx, EventKind::Usage(usage)))
    }

    fn user<'v>(
        &mut self,
        m: Option<Value<'v>>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let Some(m) = m else { return Ok(()) };
        self.saw(m);
        let text = super::messages::content_text(get(m, "content").unwrap_or(m), ctx.arena);
        emit(&self.event(
            ctx,
            EventKind::Text(Text {
                role: Role::User,
                text,
                message_id: None,
                command: None,
                continues: false,
            }),
        ))
    }

    fn tool_result<'v>(
        &mut self,
        m: Option<Value<'v>>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let Some(m) = m else { return Ok(()) };
        self.saw(m);
        let content = match get(m, "content") {
            // One text block, as pi writes it: kept in its JSON form.
            Some(c) if c.as_array().is_some_and(|a| a.len() == 1) => arr_at(m, "content")
                .first()
                .and_then(|b| get(b, "text"))
                .and_then(super::args::content_of)
                .unwrap_or_default(),
            Some(c) => super::messages::content_text(c, ctx.arena).into(),
            None => crate::event::Content::default(),
        };
        emit(&self.event(
            ctx,
            EventKind::ToolResult(ToolResult {
                id: cow_at(m, "toolCallId").unwrap_or_default(),
                is_error: bool_at(m, "isError") == Some(true),
                content,
                ..ToolResult::default()
            }),
        ))
    }

    /// `auto_retry_start`: a warning.
    fn retry<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let mut t = ctx.arena.text();
        t.push_str("API retry");
        if let (Some(n), Some(max)) = (u64_at(v, "attempt"), u64_at(v, "maxAttempts")) {
            let _ = write!(t, " {n}/{max}");
        }
        if let Some(ms) = u64_at(v, "delayMs") {
            let _ = write!(t, " in {}s", ms.div_ceil(1000));
        }
        if let Some(m) = str_at(v, "errorMessage") {
            let _ = write!(t, ": {m}");
        }
        let text = Cow::Borrowed(t.done());
        emit(&self.event(ctx, ctx.notice("api_retry", Level::Warning, text)))
    }

    /// `auto_retry_end`: given up (an error), or a retry that worked.
    fn retry_end<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        if bool_at(v, "success") == Some(true) {
            self.failure = None;
            let text = Cow::Borrowed("API retry succeeded");
            return emit(&self.event(ctx, ctx.notice("api_retry", Level::Debug, text)));
        }
        let reason = str_at(v, "finalError").unwrap_or("request failed");
        self.failure = Some(reason.to_string());
        self.ended = true;
        let text = text!(ctx.arena, "retries exhausted: {reason}");
        emit(&self.event(ctx, ctx.notice("api_error", Level::Error, text)))
    }
}

/// The last text block of a message.
fn last_text(m: Value<'_>) -> Option<&str> {
    arr_at(m, "content")
        .iter()
        .filter(|b| str_at(*b, "type") == Some("text"))
        .filter_map(|b| str_at(b, "text"))
        .filter(|t| !t.trim().is_empty())
        .last()
}

fn text_block<'v>(
    text: Option<Cow<'v, str>>,
    message_id: Option<Cow<'v, str>>,
) -> Option<EventKind<'v>> {
    let text = text.filter(|t| !t.trim().is_empty())?;
    Some(EventKind::Text(Text {
        role: Role::Assistant,
        text,
        message_id,
        command: None,
        continues: false,
    }))
}

fn thinking_block<'v>(
    text: Option<Cow<'v, str>>,
    message_id: Option<Cow<'v, str>>,
) -> Option<EventKind<'v>> {
    let text = text.filter(|t| !t.trim().is_empty())?;
    Some(EventKind::Thinking(Thinking {
        text,
        redacted: false,
        message_id,
    }))
}

fn call_block<'v>(b: Value<'v>, message_id: Option<Cow<'v, str>>, a: &'v Arena) -> EventKind<'v> {
    let name = str_at(b, "name").unwrap_or("");
    let input = get(b, "arguments");
    let changes = match (name, input) {
        ("edit", Some(i)) => list(
            a,
            arr_at(i, "edits").iter().filter_map(|e| {
                let edit = replace_of(e, ["oldText", "newText", "replaceAll"])?;
                Some(FileChange { path: None, edit })
            }),
        ),
        ("write", Some(i)) => write_at(i, "content", a),
        _ => List::default(),
    };
    EventKind::ToolCall(ToolCall {
        id: cow_at(b, "id").unwrap_or_default(),
        name: Cow::Borrowed(name),
        kind: tool_kind(name),
        key_arg: input.and_then(|i| key_arg(name, i, a)),
        input: input.map(JsonText::value).unwrap_or_default(),
        changes,
        message_id,
        ..ToolCall::default()
    })
}

/// What a Pi tool does.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        // `exec`: `OpenClaw`'s shell.
        "bash" | "exec" => ToolKind::Shell,
        "read" => ToolKind::Read,
        "write" => ToolKind::Write,
        "edit" => ToolKind::Edit,
        "grep" | "find" | "ls" => ToolKind::Search,
        n => super::args::mcp_or_other(n),
    }
}

/// The one argument that says what a Pi tool call does.
fn key_arg<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(input, k).filter(|v| !v.is_empty());
    match name {
        "bash" | "exec" => s("command"),
        "read" | "write" | "edit" | "ls" => s("path").or_else(|| s("file_path")),
        "grep" | "find" => {
            let pattern = str_at(input, "pattern")?;
            let dir = str_at(input, "path").filter(|p| !p.is_empty());
            let glob = str_at(input, "glob").filter(|g| !g.is_empty());
            Some(pattern_in(pattern, dir, glob, a))
        }
        _ => first_scalar(input, true, a),
    }
}
