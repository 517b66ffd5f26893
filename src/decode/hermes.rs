//! Hermes Agent (`hermes-agent` 0.19.0): its saved sessions and its
//! `hermes -z --usage-file` report.
//!
//! Hermes prints no JSON while it runs (stdout is text): what it did is in
//! its store, `$HERMES_HOME/state.db` (`~/.hermes`), read by
//! `hermes/store.rs` as lines of that reader's own, each a row (see
//! `tests/fixtures/hermes-session/README.md`):
//!
//! * `hermes_session`: the `sessions` row, the header: model, working
//!   folder, and the session's tokens as Hermes totalled them
//!   (`input_tokens` without the cached ones, `output_tokens` with the
//!   reasoning ones, `cache_read_tokens`, `cache_write_tokens`).
//! * `hermes_message`: a chat message (`user`, `assistant` with
//!   `reasoning_content` and `tool_calls`, `tool` with the result, JSON of
//!   the tool's own: a non-null `error`, `success: false` or a non-zero
//!   `exit_code` is a failure, and so is the plain-text reply to an
//!   unknown tool).
//! * `hermes_usage`: a `session_model_usage` row, the tokens per model:
//!   used when they add up to the session's, else the session's counts
//!   are, under its model.
//! * `hermes_error`: a request dump, the only record of the API error that
//!   ended the session: the session failed.
//!
//! The result is made at the end: failed after an API error, a success
//! when the last message is an answer, none (incomplete) otherwise.
//!
//! The `--usage-file` report is one JSON document (`input_tokens`,
//! `api_calls`, `completed`, `failed`, …): a session of its own with its
//! tokens and outcome and nothing else.

use std::borrow::Cow;
use std::io;

use super::args::{first_scalar, items, pattern_in, replace_at, todos_at, write_at};
use super::chat;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use crate::event::{
    Content, Event, EventKind, Level, ModelUsage, Notice, Producer, Role, SessionResult,
    SessionStart, Text, Thinking, Tokens, ToolCall, ToolKind, ToolResult, Usage,
};
use crate::json::{Arena, Parser, Value, arr_at, bool_at, cow_at, f64_at, get, str_at, u64_at};
use crate::time::Timestamp;

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// Parses the JSON text of a call's `arguments`, in reused memory.
    args: Parser,
    session: Option<String>,
    model: Option<String>,
    /// The session's tokens, as its row says.
    tokens: Tokens,
    /// Its cost, when Hermes knew it.
    cost: Option<f64>,
    /// Its tokens per model (`session_model_usage`).
    by_model: Vec<(String, Tokens)>,
    /// Assistant messages.
    turns: u64,
    /// The last message was an answer (an assistant's without calls).
    answered: bool,
    /// That answer.
    answer: String,
    /// The API error that ended the session, and its HTTP status.
    failure: Option<(String, Option<u64>)>,
    began: Option<Timestamp>,
    last_time: Option<Timestamp>,
    /// A session's header was read (the result is made at its end).
    open: bool,
    last_line: u64,
}

/// The registry's line for Hermes Agent.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Hermes,
    name: "hermes",
    label: "Hermes Agent",
    invocation: "Hermes Agent sessions (`~/.hermes/state.db`), `hermes -z --usage-file` reports",
    stream: start::<State>,
    format: &Hermes,
    unsearched: &[],
    unread: &[],
    store: Some(Store {
        home: ".hermes",
        moved_by: &["HERMES_HOME"],
        sessions: "",
        database: None,
        reader: Some(&store::Hermes),
    }),
};

/// Hermes Agent's store lines and usage report (the registry's entry).
pub(crate) struct Hermes;

impl Format for Hermes {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        let row = matches!(
            s.ty,
            "hermes_session" | "hermes_message" | "hermes_usage" | "hermes_error"
        );
        (row || (s.ty.is_empty() && is_report(s.v))).then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "hermes_session" || (s.ty.is_empty() && is_report(s.v))
    }
}

/// The `--usage-file` report: no `type`, Hermes' own keys.
fn is_report(v: Value<'_>) -> bool {
    has(v, "cost_status")
        && has(v, "api_calls")
        && has(v, "failed")
        && has(v, "input_tokens")
        && !has(v, "type")
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.last_line = ctx.line;
        if ctx.time.is_some() {
            self.last_time = ctx.time;
        }
        match str_at(v, "type").unwrap_or("") {
            "hermes_session" => self.header(v, ctx, emit),
            "hermes_message" => self.message(v, ctx, emit),
            "hermes_usage" => {
                let model = str_at(v, "model").unwrap_or("").to_string();
                self.by_model.push((model, tokens_of(v)));
                Ok(())
            }
            "hermes_error" => self.api_error(v, ctx, emit),
            "" if is_report(v) => report(v, ctx, emit),
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if !std::mem::take(&mut self.open) {
            return Ok(());
        }
        let session = self.session.take().map(Cow::Owned);
        let (line, time) = (self.last_line, self.last_time);
        let event = |kind| Event {
            producer: Producer::Hermes,
            line,
            source: None,
            session: session.clone(),
            parent: None,
            time,
            kind,
        };
        for (model, tokens) in self.usage() {
            let usage = Usage {
                model: model.map(Cow::Owned),
                tokens,
                ..Usage::default()
            };
            emit(&event(EventKind::Usage(usage)))?;
        }
        let failure = self.failure.take();
        if failure.is_none() && !self.answered {
            // Cut short, or still running: no result.
            return Ok(());
        }
        let is_error = failure.is_some();
        let (errors, status) = match failure {
            Some((why, status)) => (vec![Cow::Owned(why)], status),
            None => (Vec::new(), None),
        };
        let duration_ms = Timestamp::ms_between(self.began, self.last_time);
        let res = SessionResult {
            is_error,
            subtype: Some(Cow::Borrowed(if is_error { "error" } else { "success" })),
            text: Some(std::mem::take(&mut self.answer))
                .filter(|a| !is_error && !a.is_empty())
                .map(Cow::Owned),
            errors: errors.into(),
            num_turns: Some(self.turns),
            duration_ms,
            cost_usd: self.cost,
            tokens: self.tokens,
            api_error_status: status,
            ..SessionResult::default()
        };
        emit(&event(EventKind::Result(Box::new(res))))
    }
}

impl State {
    fn event<'v>(&self, ctx: &Ctx<'v>, kind: EventKind<'v>) -> Event<'v> {
        Event {
            session: (self.session.as_deref()).map(|s| Cow::Borrowed(ctx.arena.copy(s))),
            ..ctx.event(kind)
        }
    }

    /// The session's tokens, per model when its models' rows add up to
    /// them, else under its model.
    fn usage(&mut self) -> Vec<(Option<String>, Tokens)> {
        let by_model = std::mem::take(&mut self.by_model);
        let mut sum = Tokens::default();
        for (_, t) in &by_model {
            sum.add(t);
        }
        if !by_model.is_empty() && sum == self.tokens {
            return (by_model.into_iter())
                .filter(|(_, t)| t.total() > 0)
                .map(|(m, t)| (Some(m).filter(|m| !m.is_empty()), t))
                .collect();
        }
        if self.tokens.total() == 0 {
            return Vec::new();
        }
        vec![(self.model.clone(), self.tokens)]
    }

    fn header<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        *self = State {
            args: std::mem::take(&mut self.args),
            session: str_at(v, "id").map(str::to_string),
            model: str_at(v, "model").map(str::to_string),
            tokens: tokens_of(v),
            cost: cost_of(v),
            began: ctx.time,
            last_time: ctx.time,
            open: true,
            last_line: ctx.line,
            ..State::default()
        };
        let start = SessionStart {
            model: cow_at(v, "model"),
            cwd: cow_at(v, "cwd"),
            ..SessionStart::default()
        };
        emit(&self.event(ctx, EventKind::SessionStart(start)))
    }

    fn message<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        match str_at(v, "role").unwrap_or("") {
            "user" => {
                self.answered = false;
                let text = Text {
                    role: Role::User,
                    text: cow_at(v, "content").unwrap_or_default(),
                    message_id: None,
                    command: None,
                    continues: false,
                };
                emit(&self.event(ctx, EventKind::Text(text)))
            }
            "assistant" => self.assistant(v, ctx, emit),
            "tool" => {
                self.answered = false;
                let result = tool_result(v, ctx.arena);
                emit(&self.event(ctx, EventKind::ToolResult(result)))
            }
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    fn assistant<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        self.turns += 1;
        let reasoning = cow_at(v, "reasoning_content")
            .or_else(|| cow_at(v, "reasoning"))
            .filter(|r| !r.trim().is_empty());
        if let Some(text) = reasoning {
            let thinking = Thinking {
                text,
                redacted: false,
                message_id: None,
            };
            emit(&self.event(ctx, EventKind::Thinking(thinking)))?;
        }
        let content = cow_at(v, "content").unwrap_or_default();
        let calls = arr_at(v, "tool_calls");
        self.answered = calls.is_empty();
        self.answer.clear();
        if self.answered {
            self.answer.push_str(&content);
        }
        if !content.trim().is_empty() {
            let text = Text {
                role: Role::Assistant,
                text: content,
                message_id: None,
                command: None,
                continues: false,
            };
            emit(&self.event(ctx, EventKind::Text(text)))?;
        }
        for c in calls {
            self.call(c, ctx, emit)?;
        }
        Ok(())
    }

    fn call<'v>(&mut self, c: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let (id, name, raw) = chat::function(c);
        let session = (self.session.as_deref()).map(|s| Cow::Borrowed(ctx.arena.copy(s)));
        chat::arguments(&mut self.args, raw, |args| {
            let call = call(id.clone(), name, args, raw, ctx.arena);
            emit(&Event {
                session: session.clone(),
                ..ctx.event(EventKind::ToolCall(call))
            })
        })
    }

    /// A request dump: the API error that ended the session.
    fn api_error<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let e = get(v, "error");
        let status = e.and_then(|e| u64_at(e, "status_code"));
        let message = e
            .and_then(|e| get(e, "body"))
            .and_then(|b| str_at(b, "message"))
            .or_else(|| e.and_then(|e| str_at(e, "message")))
            .unwrap_or("request failed");
        let text = match (status, str_at(v, "reason")) {
            _ if bool_at(v, "unreadable") == Some(true) => {
                let file = str_at(v, "file").unwrap_or("");
                text!(
                    ctx.arena,
                    "request failed (its record {file} is unreadable)"
                )
            }
            (Some(s), Some("max_retries_exhausted")) => {
                text!(
                    ctx.arena,
                    "API call failed after retries: HTTP {s}: {message}"
                )
            }
            (None, Some("max_retries_exhausted")) => {
                text!(ctx.arena, "API call failed after retries: {message}")
            }
            (Some(s), _) => text!(ctx.arena, "HTTP {s}: {message}"),
            (None, _) => Cow::Borrowed(message),
        };
        self.failure = Some((text.to_string(), status));
        self.answered = false;
        emit(&self.event(ctx, ctx.notice("api_error", Level::Error, text)))
    }
}

/// The `--usage-file` report, a session of its own.
fn report<'v>(v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let session = cow_at(v, "session_id");
    let event = |kind| Event {
        session: session.clone(),
        ..ctx.event(kind)
    };
    let start = SessionStart {
        model: cow_at(v, "model"),
        ..SessionStart::default()
    };
    emit(&event(EventKind::SessionStart(start)))?;
    let tokens = tokens_of(v);
    // The run's totals, not a message's: the result's, per model (as
    // many turns as its `api_calls`).
    let model_usage = cow_at(v, "model")
        .filter(|_| tokens.total() > 0)
        .map(|model| ModelUsage {
            model,
            tokens,
            cost_usd: cost_of(v),
        });
    let failed = bool_at(v, "failed") == Some(true) || bool_at(v, "completed") == Some(false);
    if failed {
        // The report is a document over many lines: not kept as the
        // notice's line.
        let notice = Notice {
            subtype: Cow::Borrowed("api_error"),
            level: Level::Error,
            text: Cow::Borrowed("the run failed (its report says no more)"),
            raw: None,
            estimate: false,
        };
        emit(&event(EventKind::Notice(notice)))?;
    }
    let res = SessionResult {
        is_error: failed,
        subtype: Some(Cow::Borrowed(if failed { "error" } else { "success" })),
        num_turns: u64_at(v, "api_calls"),
        cost_usd: cost_of(v),
        tokens,
        model_usage: model_usage.into_iter().collect::<Vec<_>>().into(),
        ..SessionResult::default()
    };
    emit(&event(EventKind::Result(Box::new(res))))
}

/// Hermes' token counts: input without the cached tokens, output with the
/// reasoning ones.
fn tokens_of(v: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(v, "input_tokens"),
        output: u64_at(v, "output_tokens"),
        cache_read: u64_at(v, "cache_read_tokens"),
        cache_creation: u64_at(v, "cache_write_tokens"),
        reasoning: None,
    }
}

/// The cost Hermes knew (`actual_cost_usd`, else `estimated_cost_usd`
/// unless its `cost_status` says it is not known).
fn cost_of(v: Value<'_>) -> Option<f64> {
    let known = !matches!(str_at(v, "cost_status"), None | Some("unknown"));
    f64_at(v, "actual_cost_usd").or_else(|| f64_at(v, "estimated_cost_usd").filter(|_| known))
}

/// A `tool` message: the result, its failure told by the tool's JSON.
fn tool_result<'v>(v: Value<'v>, a: &'v Arena) -> ToolResult<'v> {
    let id = cow_at(v, "tool_call_id").unwrap_or_default();
    let content = get(v, "content");
    if let Some(text) = content.and_then(Value::into_string) {
        // Plain text: the reply to a call of a tool that does not exist
        // (its `tool_name` null), or a tool's own words.
        let unknown = text.starts_with("Tool '") && text.contains("' does not exist");
        return ToolResult {
            id,
            is_error: unknown,
            content: Content::from(Cow::Borrowed(text)),
            ..ToolResult::default()
        };
    }
    let Some(c) = content.filter(|c| c.is_object()) else {
        return ToolResult {
            id,
            ..ToolResult::default()
        };
    };
    let error = str_at(c, "error").filter(|e| !e.is_empty());
    let exit = f64_at(c, "exit_code").filter(|x| *x != 0.0);
    let is_error = error.is_some() || bool_at(c, "success") == Some(false) || exit.is_some();
    // A command's output, a file's text (`read_file`).
    let output = (str_at(c, "output").or_else(|| str_at(c, "content"))).filter(|o| !o.is_empty());
    let text = match (error, output) {
        (Some(e), Some(o)) => text!(a, "{e}\n{o}"),
        (Some(t), None) | (None, Some(t)) => Cow::Borrowed(t),
        (None, None) => Cow::Borrowed(c.encode_in(a)),
    };
    ToolResult {
        id,
        is_error,
        content: Content::from(text),
        ..ToolResult::default()
    }
}

/// A call of the Hermes tool `name` with arguments `args` (`None`: not an
/// object, their text `raw` kept as its input).
fn call<'v>(
    id: Cow<'v, str>,
    name: &'v str,
    args: Option<Value<'v>>,
    raw: Option<Value<'v>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let mut call = chat::call(id, name, tool_kind(name), args, raw);
    let Some(args) = args else {
        return call;
    };
    let s = |k: &str| cow_at(args, k).filter(|v| !v.is_empty());
    call.key_arg = match name {
        "terminal" => s("command"),
        "read_file" | "write_file" | "patch" => s("path"),
        "search_files" => str_at(args, "pattern").map(|p| {
            let dir = str_at(args, "path").filter(|d| !d.is_empty() && *d != ".");
            pattern_in(p, dir, None, a)
        }),
        "execute_code" => s("code").map(|c| Cow::Borrowed(a.copy(c.lines().next().unwrap_or("")))),
        "delegate_task" => s("goal"),
        "web_search" => s("query"),
        _ => first_scalar(args, true, a),
    };
    match name {
        "todo" => {
            call.todos = todos_at(args, "todos", &["content"], a);
            call.key_arg = Some(items(call.todos.len(), a));
        }
        "write_file" => call.changes = write_at(args, "content", a),
        "patch" if str_at(args, "mode").is_none_or(|m| m == "replace") => {
            call.changes = replace_at(args, ["old_string", "new_string", "replace_all"], a);
        }
        "patch" => call.changes = super::args::patch_at(args, "patch", a),
        _ => {}
    }
    call
}

/// What a Hermes tool does.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "terminal" | "execute_code" | "process" => ToolKind::Shell,
        "read_file" => ToolKind::Read,
        "write_file" => ToolKind::Write,
        "patch" => ToolKind::Edit,
        "search_files" => ToolKind::Search,
        "todo" => ToolKind::Todo,
        "delegate_task" => ToolKind::Agent,
        "web_search" => ToolKind::WebSearch,
        "web_extract" | "browser_navigate" => ToolKind::Fetch,
        n => super::args::mcp_or_other(n),
    }
}

mod store;

#[cfg(test)]
mod tests;
