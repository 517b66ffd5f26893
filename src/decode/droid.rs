//! Factory Droid `droid exec -o stream-json` (and `-o json`).
//!
//! One flat object per line, each with `session_id` and (but the header) a
//! `timestamp` in epoch milliseconds (see `tests/fixtures/droid/README.md`):
//!
//! * `system`/`init` is Claude Code's shape without Claude's telltales (no
//!   `uuid`, no `mcp_servers`, no version) and with `reasoning_effort`.
//! * `message` (`role` user or assistant), `reasoning` (printed twice with
//!   one `id`: given once here), `tool_call` and `tool_result` paired by
//!   `id`. Nothing is streamed: each is printed once, complete.
//! * A failed tool is `isError: true` with `error.message` (a shell command
//!   that exits non-zero included: `Error: Command failed (exit code: N)`).
//! * The run ends with `completion` (final text, turns, duration, the
//!   session's token totals) or with `error` lines (`agent_loop`, then
//!   `cli`'s `Exec failed`) and no completion: the result is rebuilt from
//!   them at the end of the input.
//! * `-o json` prints one object instead: Claude's `result` shape whose
//!   `usage` has `factory_credits`.

use std::borrow::Cow;
use std::io;

use super::args::{
    first_scalar, items, list, patch_at, pattern_in, replace_at, strings_at, write_at,
};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use super::seen::Recent;
use crate::event::{
    Event, EventKind, JsonText, Level, List, ModelUsage, Notice, Producer, Role, SessionResult,
    SessionStart, Text, Thinking, Tokens, ToolCall, ToolKind, ToolResult,
};
use crate::json::{Arena, J, Value, arr_at, bool_at, cow_at, get, str_at, u64_at, view};

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// The model the header named.
    model: Option<String>,
    /// The session id and the last line, for a result rebuilt at the end.
    session: Option<String>,
    last_line: u64,
    /// Reasoning ids given (each is printed twice).
    reasoning: Recent<4>,
    /// `error` lines' messages.
    errors: Vec<String>,
    /// A result was given.
    closed: bool,
    /// Reading a saved session (`saved.rs`): what its result will say.
    saved: Option<saved::Saved>,
}

/// The registry's line for Factory Droid.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Droid,
    name: "droid",
    label: "Factory Droid",
    invocation: "Factory Droid `exec -o stream-json`",
    stream: start::<State>,
    format: &Droid,
    unsearched: &["session_id", "messageId", "toolId"],
    unread: &[],
    store: Some(Store {
        home: ".factory",
        moved_by: &[],
        sessions: "sessions",
        database: None,
        reader: None,
    }),
};

/// Its line types besides the header.
const TYPES: [&str; 6] = [
    "message",
    "reasoning",
    "tool_call",
    "tool_result",
    "completion",
    "error",
];

/// `droid exec -o stream-json` (the registry's entry).
pub(crate) struct Droid;

impl Format for Droid {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        if s.is_init() {
            // Claude's shape with Droid's `reasoning_effort` and without
            // Claude's fields (a minimal Claude init is still Claude's).
            let droid = has(s.v, "reasoning_effort")
                && !(has(s.v, "uuid")
                    || has(s.v, "claude_code_version")
                    || has(s.v, "apiKeySource"));
            return droid.then_some(Evidence::Init);
        }
        // Its types with a numeric timestamp and a `session_id` (asked
        // before Cursor, whose `tool_call` has `timestamp_ms`).
        let own = TYPES.contains(&s.ty)
            && has(s.v, "session_id")
            && get(s.v, "timestamp").is_some_and(|t| t.as_u64().is_some());
        // A saved session's header, and its settings (read last).
        let saved = (s.ty == "session_start" && has(s.v, "id") && has(s.v, "cwd"))
            || (s.ty.is_empty() && saved::has_totals(s.v));
        let json = s.ty == "result" && get(s.v, "usage").is_some_and(|u| has(u, "factory_credits"));
        (own || json || saved).then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.is_init() || (s.ty == "session_start" && has(s.v, "id") && has(s.v, "cwd"))
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.last_line = ctx.line;
        if saved::is_saved(v) {
            return self.saved(v, ctx, emit);
        }
        if let Some(s) = str_at(v, "session_id").filter(|s| self.session.as_deref() != Some(*s)) {
            self.session = Some(s.to_string());
        }
        let ev = |kind| event(v, ctx, kind);
        match str_at(v, "type").unwrap_or("") {
            "system" if str_at(v, "subtype") == Some("init") => {
                self.model = str_at(v, "model").map(str::to_string);
                emit(&ev(EventKind::SessionStart(init(v, ctx.arena))))
            }
            "message" => emit(&ev(EventKind::Text(message(v)))),
            "reasoning" => {
                let id = str_at(v, "id").unwrap_or("");
                if !id.is_empty() && !self.reasoning.first_sighting(id) {
                    return Ok(());
                }
                emit(&ev(EventKind::Thinking(Thinking {
                    text: cow_at(v, "text").unwrap_or_default(),
                    redacted: false,
                    message_id: cow_at(v, "id"),
                })))
            }
            "tool_call" => emit(&ev(EventKind::ToolCall(tool_call(v, ctx.arena)))),
            "tool_result" => emit(&ev(EventKind::ToolResult(tool_result(v, ctx.arena)))),
            "error" => self.error(v, ctx, emit),
            "completion" => self.completion(v, ctx, emit),
            "result" => self.json_result(v, ctx, emit),
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    /// End of input: a run that ended in errors gets its failed result.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if self.saved.is_some() {
            return self.saved_end(emit);
        }
        if self.closed || self.errors.is_empty() {
            return Ok(());
        }
        self.closed = true;
        let res = SessionResult {
            is_error: true,
            subtype: Some(Cow::Borrowed("error")),
            errors: self.errors.drain(..).map(Cow::Owned).collect(),
            api_error_status: None,
            ..SessionResult::default()
        };
        emit(&Event {
            producer: Producer::Droid,
            line: self.last_line,
            source: None,
            session: self.session.clone().map(Cow::Owned),
            parent: None,
            time: None,
            kind: EventKind::Result(Box::new(res)),
        })
    }
}

impl State {
    /// An `error` line: an error notice; the result will carry it (the
    /// CLI's own `Exec failed` only when nothing better was said).
    fn error<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let message = str_at(v, "message").unwrap_or("error");
        let source = str_at(v, "source").unwrap_or("");
        // The CLI's `Exec failed` after the reason: bookkeeping.
        let restated = source == "cli" && !self.errors.is_empty();
        if !restated {
            self.errors.push(message.to_string());
        }
        let subtype = if source == "agent_loop" {
            "api_error"
        } else {
            "error"
        };
        emit(&event(
            v,
            ctx,
            EventKind::Notice(Notice {
                subtype: Cow::Borrowed(subtype),
                level: if restated { Level::Debug } else { Level::Error },
                text: Cow::Borrowed(message),
                raw: Some(ctx.raw()),
                estimate: false,
            }),
        ))
    }

    /// `completion`: the run's result and totals.
    fn completion<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let tokens = get(v, "usage").map(tokens).unwrap_or_default();
        let res = SessionResult {
            is_error: false,
            subtype: Some(Cow::Borrowed("success")),
            text: cow_at(v, "finalText"),
            errors: self.errors.drain(..).map(Cow::Owned).collect(),
            num_turns: u64_at(v, "numTurns"),
            duration_ms: u64_at(v, "durationMs"),
            tokens,
            model_usage: self.model_usage(tokens, ctx.arena),
            ..SessionResult::default()
        };
        self.closed = true;
        emit(&event(v, ctx, EventKind::Result(Box::new(res))))
    }

    /// `-o json`'s one object.
    fn json_result<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let tokens = get(v, "usage").map(tokens).unwrap_or_default();
        let subtype = str_at(v, "subtype");
        let is_error =
            bool_at(v, "is_error") == Some(true) || subtype.is_some_and(|s| s.starts_with("error"));
        let text = match get(v, "result").map(view) {
            Some(J::Str(s)) => Some(Cow::Borrowed(s)),
            _ => None,
        };
        let res = SessionResult {
            is_error,
            subtype: subtype.map(Cow::Borrowed),
            errors: if is_error {
                list(ctx.arena, text.clone())
            } else {
                List::default()
            },
            text,
            num_turns: u64_at(v, "num_turns"),
            duration_ms: u64_at(v, "duration_ms"),
            tokens,
            model_usage: self.model_usage(tokens, ctx.arena),
            ..SessionResult::default()
        };
        self.closed = true;
        emit(&event(v, ctx, EventKind::Result(Box::new(res))))
    }

    /// The session's tokens under the header's model.
    fn model_usage<'v>(&self, tokens: Tokens, a: &'v Arena) -> List<'v, ModelUsage<'v>> {
        match self.model.as_deref() {
            Some(m) if !tokens.is_empty() => list(
                a,
                [ModelUsage {
                    model: Cow::Borrowed(a.copy(m)),
                    tokens,
                    cost_usd: None,
                }],
            ),
            _ => List::default(),
        }
    }
}

fn event<'v>(v: Value<'v>, ctx: &Ctx<'v>, kind: EventKind<'v>) -> Event<'v> {
    Event {
        producer: ctx.producer,
        line: ctx.line,
        source: None,
        session: cow_at(v, "session_id"),
        parent: None,
        time: ctx.time,
        kind,
    }
}

fn init<'v>(v: Value<'v>, a: &'v Arena) -> SessionStart<'v> {
    SessionStart {
        model: cow_at(v, "model"),
        cwd: cow_at(v, "cwd"),
        tools: strings_at(v, "tools", a),
        ..SessionStart::default()
    }
}

fn message(v: Value<'_>) -> Text<'_> {
    Text {
        role: if str_at(v, "role") == Some("user") {
            Role::User
        } else {
            Role::Assistant
        },
        text: cow_at(v, "text").unwrap_or_default(),
        message_id: cow_at(v, "id"),
        command: None,
        continues: false,
    }
}

/// `usage`: Anthropic's names; `input_tokens` excludes the cache.
fn tokens(u: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(u, "input_tokens"),
        output: u64_at(u, "output_tokens"),
        cache_read: u64_at(u, "cache_read_input_tokens"),
        cache_creation: u64_at(u, "cache_creation_input_tokens"),
        reasoning: None,
    }
}

fn tool_call<'v>(v: Value<'v>, a: &'v Arena) -> ToolCall<'v> {
    let name = str_at(v, "toolName")
        .or_else(|| str_at(v, "toolId"))
        .unwrap_or("");
    let id = cow_at(v, "id").unwrap_or_default();
    call(id, name, get(v, "parameters"), cow_at(v, "messageId"), a)
}

/// A call of the Droid tool `name` with arguments `input` (the stream's
/// `parameters`, the saved session's `tool_use.input`).
fn call<'v>(
    id: Cow<'v, str>,
    name: &'v str,
    input: Option<Value<'v>>,
    message_id: Option<Cow<'v, str>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let changes = match (name, input) {
        ("Edit", Some(i)) => replace_at(i, ["old_str", "new_str", "replace_all"], a),
        ("Create", Some(i)) => write_at(i, "content", a),
        ("ApplyPatch", Some(i)) if has(i, "patch") => patch_at(i, "patch", a),
        ("ApplyPatch", Some(i)) => patch_at(i, "input", a),
        _ => List::default(),
    };
    ToolCall {
        id,
        name: Cow::Borrowed(name),
        kind: tool_kind(name),
        key_arg: input.and_then(|i| key_arg(name, i, a)),
        input: input.map(JsonText::value).unwrap_or_default(),
        todos: match (name, input) {
            ("TodoWrite", Some(i)) => super::args::todos_at(i, "todos", &["content"], a),
            _ => List::default(),
        },
        changes,
        message_id,
        ..ToolCall::default()
    }
}

fn tool_result<'v>(v: Value<'v>, a: &'v Arena) -> ToolResult<'v> {
    let is_error = bool_at(v, "isError") == Some(true);
    let content = if is_error {
        let e = get(v, "error");
        let m = e.and_then(|e| str_at(e, "message").or_else(|| e.into_string()));
        m.unwrap_or("tool error").into()
    } else {
        match get(v, "value") {
            Some(x) if x.into_string().is_some() => super::args::content_of(x).unwrap_or_default(),
            Some(x) => super::args::json_in(x, a).into(),
            None => crate::event::Content::default(),
        }
    };
    ToolResult {
        id: cow_at(v, "id").unwrap_or_default(),
        is_error,
        content,
        ..ToolResult::default()
    }
}

/// What a Droid tool does.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Execute" => ToolKind::Shell,
        "Read" => ToolKind::Read,
        "Create" => ToolKind::Write,
        "Edit" | "MultiEdit" | "ApplyPatch" => ToolKind::Edit,
        "Glob" | "Grep" | "LS" => ToolKind::Search,
        "FetchUrl" => ToolKind::Fetch,
        "WebSearch" => ToolKind::WebSearch,
        "Task" => ToolKind::Agent,
        "TodoWrite" => ToolKind::Todo,
        n => super::args::mcp_or_other(n),
    }
}

/// The one argument that says what a Droid tool call does.
fn key_arg<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(input, k).filter(|v| !v.is_empty());
    match name {
        "Execute" => s("command"),
        "Read" | "Create" | "Edit" | "MultiEdit" => s("file_path").or_else(|| s("path")),
        "LS" => s("directory_path").or_else(|| s("path")),
        "Glob" => {
            let joined = a.join(super::args::names_at(input, "patterns"), ", ");
            let pattern = joined.or_else(|| str_at(input, "pattern"))?;
            Some(pattern_in(pattern, str_at(input, "folder"), None, a))
        }
        "Grep" => {
            let pattern = str_at(input, "pattern")?;
            let dir = str_at(input, "path").or_else(|| str_at(input, "folder"));
            Some(pattern_in(pattern, dir, str_at(input, "glob_pattern"), a))
        }
        "ApplyPatch" => str_at(input, "patch")
            .or_else(|| str_at(input, "input"))
            .and_then(|p| super::args::patch_files(p, a)),
        "FetchUrl" => s("url"),
        "WebSearch" => s("query"),
        "TodoWrite" => match get(input, "todos").map(view) {
            Some(J::Str(t)) => Some(Cow::Borrowed(t.lines().next().unwrap_or(""))),
            _ => Some(items(arr_at(input, "todos").len(), a)),
        },
        "Task" => match (str_at(input, "subagent_type"), str_at(input, "description")) {
            (Some(t), Some(d)) => Some(text!(a, "{t}: {d}")),
            (t, d) => t.or(d).map(Cow::Borrowed),
        },
        "AskUser" => arr_at(input, "questions")
            .first()
            .and_then(|q| cow_at(q, "question"))
            .or_else(|| s("question")),
        "Skill" => s("skill").or_else(|| s("name")),
        _ => first_scalar(input, true, a),
    }
}

mod saved;
