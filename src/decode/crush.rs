//! Crush (charmbracelet/crush): its saved sessions.
//!
//! Crush prints no JSON stream: what it did is in its store, a `crush.db`
//! in each project's `.crush/` (the projects listed in
//! `~/.local/share/crush/projects.json`), read by `crush/store.rs` as
//! lines of that reader's own, each a row (see
//! `tests/fixtures/crush-session/README.md`):
//!
//! * `crush_session`: the `sessions` row, the header: the project, the
//!   model of its last answer, and the session's tokens and cost as Crush
//!   counted them (`prompt_tokens`, `completion_tokens`, `cost` in USD;
//!   per session only, no message has its own).
//! * `crush_message`: a message, its `parts` each `{"type", "data"}`:
//!   `text`, `reasoning`, `tool_call` (its `input` JSON text),
//!   `tool_result` (`is_error` its failure), `finish` (why the assistant's
//!   message ended: `end_turn`, `tool_use`, `error` with `message` and
//!   `details`, `canceled`, …).
//! * `crush_subagent`: a sub-agent's `sessions` row (the `agent` tool's),
//!   its messages after it with `call`, the call that ran it: its events
//!   are nested under that call.
//!
//! The result is made at the end, from how the last turn ended: a failure
//! when its last message finished with `error`, `canceled`,
//! `content_filter` or `max_tokens`, a success when with `end_turn`, none
//! (incomplete) otherwise. The tokens are the session's row and its
//! sub-agents' (Crush never adds those to the parent's); the cost is the
//! session's row, which holds its sub-agents' already (Crush adds each
//! one's when it ends).

use std::borrow::Cow;
use std::io;

use super::args::{first_line_at, first_scalar, items, pattern_in, replace_at, todos_at, write_at};
use super::chat;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, start};
use crate::event::{
    Content, Event, EventKind, Level, Producer, Role, SessionResult, SessionStart, Text, Thinking,
    Tokens, ToolCall, ToolKind, ToolResult, Usage,
};
use crate::json::{Arena, Parser, Value, bool_at, cow_at, f64_at, get, str_at, u64_at};
use crate::time::Timestamp;

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// Parses the JSON text of a call's `input`, in reused memory.
    args: Parser,
    session: Option<String>,
    model: Option<String>,
    /// The session's tokens and cost, as its row says.
    tokens: Tokens,
    cost: Option<f64>,
    /// Each sub-agent's model and tokens, as its row says.
    subagents: Vec<(Option<String>, Tokens)>,
    /// The session's assistant messages.
    turns: u64,
    /// The last turn ended with an answer (`end_turn`).
    answered: bool,
    /// That answer.
    answer: String,
    /// How the last turn failed (`error`, `canceled`, …) and why.
    failure: Option<(&'static str, String)>,
    began: Option<Timestamp>,
    last_time: Option<Timestamp>,
    /// A session's header was read (the result is made at its end).
    open: bool,
    last_line: u64,
}

/// The registry's line for Crush.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Crush,
    name: "crush",
    label: "Crush",
    invocation: "Crush sessions (`<project>/.crush/crush.db`, listed in `~/.local/share/crush/projects.json`)",
    stream: start::<State>,
    format: &Crush,
    unsearched: &[],
    unread: &[],
    store: Some(Store {
        home: ".local/share",
        moved_by: &["XDG_DATA_HOME"],
        sessions: "crush",
        // The folder itself (`projects.json` in it), as Crush reads it.
        database: Some("CRUSH_GLOBAL_DATA"),
        reader: Some(&store::Crush),
    }),
};

/// Crush's store lines (the registry's entry).
pub(crate) struct Crush;

impl Format for Crush {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        matches!(s.ty, "crush_session" | "crush_message" | "crush_subagent")
            .then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "crush_session"
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.last_line = ctx.line;
        if ctx.time.is_some() {
            self.last_time = ctx.time;
        }
        match str_at(v, "type").unwrap_or("") {
            "crush_session" => self.header(v, ctx, emit),
            "crush_message" => self.message(v, ctx, emit),
            "crush_subagent" => {
                let model = str_at(v, "model").filter(|m| !m.is_empty());
                self.subagents
                    .push((model.map(str::to_string), tokens_of(v)));
                Ok(())
            }
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
            producer: Producer::Crush,
            line,
            source: None,
            session: session.clone(),
            parent: None,
            time,
            kind,
        };
        let mut total = self.tokens;
        if self.tokens.total() > 0 || self.cost.is_some_and(|c| c > 0.0) {
            let usage = Usage {
                model: self.model.clone().map(Cow::Owned),
                tokens: self.tokens,
                cost_usd: self.cost,
                ..Usage::default()
            };
            emit(&event(EventKind::Usage(usage)))?;
        }
        for (model, tokens) in std::mem::take(&mut self.subagents) {
            if tokens.total() == 0 {
                continue;
            }
            total.add(&tokens);
            // Its cost is in the session's already.
            let usage = Usage {
                model: model.map(Cow::Owned),
                tokens,
                cost_usd: Some(0.0),
                ..Usage::default()
            };
            emit(&event(EventKind::Usage(usage)))?;
        }
        let failure = self.failure.take();
        if failure.is_none() && !self.answered {
            // Cut short, or still running: no result.
            return Ok(());
        }
        let duration_ms = Timestamp::ms_between(self.began, self.last_time);
        let (is_error, subtype, errors) = match failure {
            Some((why, text)) => (true, why, vec![Cow::Owned(text)]),
            None => (false, "success", Vec::new()),
        };
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
            tokens: total,
            // Why, when it was not an error (`canceled`, `max_tokens`, …).
            stop_reason: Some(Cow::Borrowed(subtype)).filter(|s| is_error && *s != "error"),
            ..SessionResult::default()
        };
        emit(&event(EventKind::Result(Box::new(res))))
    }
}

impl State {
    fn event<'v>(
        &self,
        ctx: &Ctx<'v>,
        parent: Option<Cow<'v, str>>,
        kind: EventKind<'v>,
    ) -> Event<'v> {
        Event {
            session: (self.session.as_deref()).map(|s| Cow::Borrowed(ctx.arena.copy(s))),
            parent,
            ..ctx.event(kind)
        }
    }

    fn header<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        *self = State {
            args: std::mem::take(&mut self.args),
            session: str_at(v, "id").map(str::to_string),
            model: str_at(v, "model")
                .filter(|m| !m.is_empty())
                .map(str::to_string),
            tokens: tokens_of(v),
            cost: f64_at(v, "cost").filter(|c| c.is_finite() && *c >= 0.0),
            began: ctx.time,
            last_time: ctx.time,
            open: true,
            last_line: ctx.line,
            ..State::default()
        };
        let start = SessionStart {
            model: cow_at(v, "model").filter(|m| !m.is_empty()),
            cwd: cow_at(v, "cwd"),
            ..SessionStart::default()
        };
        emit(&self.event(ctx, None, EventKind::SessionStart(start)))
    }

    /// A message: its parts, each an event (a sub-agent's nested under
    /// the call that ran it).
    fn message<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        // A sub-agent's: under the call that ran it, else its session.
        let main = get(v, "call").is_none();
        let parent = (!main)
            .then(|| cow_at(v, "call").or_else(|| cow_at(v, "session_id")))
            .flatten()
            .filter(|c| !c.is_empty());
        let role = str_at(v, "role").unwrap_or("");
        if main {
            if role == "assistant" {
                self.turns += 1;
            } else {
                // A new turn, or the results of the last one's calls.
                self.answered = false;
                self.failure = None;
            }
        }
        let Some(parts) = get(v, "parts").and_then(Value::as_array) else {
            let text = if get(v, "skipped").is_some() {
                Cow::Borrowed("a message too large to read was left out")
            } else {
                Cow::Borrowed("a message whose parts are not JSON was left out")
            };
            let notice = ctx.notice("skipped", Level::Warning, text);
            return emit(&self.event(ctx, parent, notice));
        };
        let m = Message {
            user: role == "user",
            main,
            parent,
        };
        for p in parts {
            self.part(p, &m, ctx, emit)?;
        }
        Ok(())
    }

    fn part<'v>(
        &mut self,
        p: Value<'v>,
        m: &Message<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let Some(d) = get(p, "data").filter(|d| d.is_object()) else {
            return Ok(());
        };
        let parent = || m.parent.clone();
        match str_at(p, "type").unwrap_or("") {
            "text" => {
                let text = cow_at(d, "text").unwrap_or_default();
                if m.main && !m.user {
                    self.answer.clear();
                    self.answer.push_str(&text);
                }
                if text.trim().is_empty() {
                    return Ok(());
                }
                let role = if m.user { Role::User } else { Role::Assistant };
                emit(&self.event(ctx, parent(), EventKind::Text(said(role, text))))
            }
            "shell_command" => {
                let command = str_at(d, "command").unwrap_or("");
                let text = text!(ctx.arena, "!{command}");
                emit(&self.event(ctx, parent(), EventKind::Text(said(Role::User, text))))
            }
            "reasoning" => {
                let Some(text) = cow_at(d, "thinking").filter(|t| !t.trim().is_empty()) else {
                    return Ok(());
                };
                let thinking = Thinking {
                    text,
                    redacted: false,
                    message_id: None,
                };
                emit(&self.event(ctx, parent(), EventKind::Thinking(thinking)))
            }
            "tool_call" => {
                let id = cow_at(d, "id").unwrap_or_default();
                let name = str_at(d, "name").unwrap_or("");
                let raw = get(d, "input");
                let session = (self.session.as_deref()).map(|s| Cow::Borrowed(ctx.arena.copy(s)));
                chat::arguments(&mut self.args, raw, |args| {
                    let c = call(id.clone(), name, args, raw, ctx.arena);
                    emit(&Event {
                        session: session.clone(),
                        parent: parent(),
                        ..ctx.event(EventKind::ToolCall(c))
                    })
                })
            }
            "tool_result" => {
                let result = ToolResult {
                    id: cow_at(d, "tool_call_id").unwrap_or_default(),
                    is_error: bool_at(d, "is_error") == Some(true),
                    content: Content::from(cow_at(d, "content").unwrap_or_default()),
                    ..ToolResult::default()
                };
                emit(&self.event(ctx, parent(), EventKind::ToolResult(result)))
            }
            "finish" if !m.user => self.finished(d, m, ctx, emit),
            _ => Ok(()),
        }
    }

    /// An assistant's message ended: how the turn stands, and a failure
    /// said.
    fn finished<'v>(
        &mut self,
        d: Value<'v>,
        m: &Message<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let reason = str_at(d, "reason").unwrap_or("");
        let failed = match reason {
            "error" => Some(("error", Level::Error)),
            "canceled" => Some(("canceled", Level::Warning)),
            "content_filter" => Some(("content_filter", Level::Error)),
            "max_tokens" => Some(("max_tokens", Level::Error)),
            _ => None,
        };
        if m.main {
            self.answered = reason == "end_turn";
            self.failure = None;
        }
        let Some((why, level)) = failed else {
            return Ok(());
        };
        let message = str_at(d, "message").filter(|s| !s.is_empty());
        let details = str_at(d, "details").filter(|s| !s.is_empty());
        let a = ctx.arena;
        let text = match (message, details) {
            (Some(m), Some(d)) => text!(a, "{m}: {d}"),
            (Some(t), None) | (None, Some(t)) => Cow::Borrowed(t),
            (None, None) => match why {
                "canceled" => Cow::Borrowed("canceled"),
                "content_filter" => Cow::Borrowed("the provider refused to answer"),
                "max_tokens" => Cow::Borrowed("the answer reached the output limit"),
                _ => Cow::Borrowed("the request failed"),
            },
        };
        if m.main {
            self.answered = false;
            self.failure = Some((why, text.to_string()));
        }
        let subtype = if why == "error" { "api_error" } else { why };
        let notice = ctx.notice(subtype, level, text);
        emit(&self.event(ctx, m.parent.clone(), notice))
    }
}

/// What a message is, for its parts.
struct Message<'v> {
    /// A user's (its `finish` part is Crush's own mark, said of none).
    user: bool,
    /// The session's own, not a sub-agent's.
    main: bool,
    /// The call that ran the sub-agent it is of.
    parent: Option<Cow<'v, str>>,
}

fn said(role: Role, text: Cow<'_, str>) -> Text<'_> {
    Text {
        role,
        text,
        message_id: None,
        command: None,
        continues: false,
    }
}

/// A `sessions` row's tokens: the prompt's (cache reads in them), the
/// completion's.
fn tokens_of(v: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(v, "prompt_tokens"),
        output: u64_at(v, "completion_tokens"),
        ..Tokens::default()
    }
}

/// A call of the Crush tool `name` with arguments `args` (`None`: not an
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
        "bash" => s("command"),
        "view" | "write" | "edit" | "multiedit" | "download" => s("file_path"),
        "glob" | "grep" => str_at(args, "pattern").map(|p| {
            let dir = str_at(args, "path").filter(|d| !d.is_empty() && *d != ".");
            let filter = str_at(args, "include").filter(|f| !f.is_empty());
            pattern_in(p, dir, filter, a)
        }),
        "ls" => s("path").or(Some(Cow::Borrowed("."))),
        "fetch" | "web_fetch" => s("url"),
        "agentic_fetch" => s("url").or_else(|| first_line_at(args, "prompt")),
        "web_search" | "sourcegraph" => s("query"),
        "agent" => first_line_at(args, "prompt"),
        _ => first_scalar(args, true, a),
    };
    match name {
        "todos" => {
            call.todos = todos_at(args, "todos", &["content"], a);
            call.key_arg = Some(items(call.todos.len(), a));
        }
        "write" => call.changes = write_at(args, "content", a),
        "edit" => call.changes = replace_at(args, ["old_string", "new_string", "replace_all"], a),
        _ => {}
    }
    call
}

/// What a Crush tool does.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "bash" | "job_output" | "job_kill" => ToolKind::Shell,
        "view" => ToolKind::Read,
        "write" => ToolKind::Write,
        "edit" | "multiedit" => ToolKind::Edit,
        "glob" | "grep" | "ls" | "sourcegraph" => ToolKind::Search,
        "fetch" | "web_fetch" | "agentic_fetch" | "download" => ToolKind::Fetch,
        "web_search" => ToolKind::WebSearch,
        "agent" => ToolKind::Agent,
        "todos" => ToolKind::Todo,
        n if n.starts_with("mcp_") => ToolKind::Mcp,
        _ => ToolKind::Other,
    }
}

mod store;

#[cfg(test)]
mod tests;
