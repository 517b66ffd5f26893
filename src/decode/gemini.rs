//! Google Gemini CLI `gemini -p … --output-format stream-json`.
//!
//! Six line types, each with an ISO `timestamp`: `init`, `message`,
//! `tool_use`, `tool_result`, `error`, `result`. What the real CLI does that
//! its types do not say (see `tests/fixtures/gemini/README.md`):
//!
//! * every assistant answer arrives as `message` chunks with `delta: true`
//!   and no closing event: the chunks are joined here and written as one
//!   `text` when the next non-chunk line (or the end of input) comes; each
//!   chunk is also written as a `delta`;
//! * only `init` carries the session id: every other event gets it from the
//!   last `init`;
//! * a shell command that exits non-zero is a `success`; only its display
//!   text can tell, and only when the command printed nothing;
//! * fatal errors (API error, turn limit) write `duration_ms: 0`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;

use super::args::{content_of, list};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, start};
use crate::event::ToolKind;
use crate::event::{Content, JsonText, List};
use crate::event::{
    Delta, DeltaKind, Denial, Event, EventKind, Level, ModelUsage, Notice, Producer, Role,
    SessionResult, SessionStart, Text, Tokens, ToolCall, ToolResult, Unknown,
};
use crate::json::{Arena, Spare, Value, arr_at, bool_at, cow_at, get, str_at, u64_at};
use crate::time::Timestamp;

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// Session id of the last `init` (no other line carries one).
    session: Option<String>,
    /// Milliseconds since the epoch of the last `init`.
    started: Option<Timestamp>,
    /// Assistant chunks received and not written yet, joined.
    text: String,
    /// Line and time of the first of those chunks; `None` when there are
    /// none.
    text_line: Option<(u64, Option<Timestamp>)>,
    /// Whose events the pending text becomes.
    producer: Option<Producer>,
    /// Tool calls waiting for their result: id → tool name and the call's
    /// number; the [`KEEP_OPEN`] most recent at most.
    open_calls: HashMap<String, (String, u64)>,
    /// Tool calls seen, numbering them.
    calls: u64,
    /// Strings the state no longer holds, for their allocation.
    spare: Spare,
}

fn event<'a>(
    (producer, line, time): (Producer, u64, Option<Timestamp>),
    session: Option<&'a str>,
    kind: EventKind<'a>,
) -> Event<'a> {
    Event {
        producer,
        line,
        source: None,
        session: session.map(Cow::Borrowed),
        parent: None,
        time,
        kind,
    }
}

/// The registry's line for Gemini CLI.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Gemini,
    name: "gemini",
    label: "Gemini CLI",
    invocation: "Gemini CLI `--output-format stream-json`",
    stream: start::<State>,
    format: &Gemini,
    unsearched: &[],
    unread: &[],
    store: None,
};

/// Gemini CLI `--output-format stream-json` (the registry's entry).
pub(crate) struct Gemini;

impl Format for Gemini {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // Its types with a string timestamp and no subtype.
        (matches!(
            s.ty,
            "init" | "message" | "tool_use" | "tool_result" | "error" | "result"
        ) && get(s.v, "timestamp").is_some_and(|t| t.into_string().is_some())
            && s.sub().is_none())
        .then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "init"
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        state.producer = Some(ctx.producer);
        let ty = str_at(v, "type").unwrap_or("");
        let role = str_at(v, "role");
        if ty == "message" && role == Some("assistant") && bool_at(v, "delta") == Some(true) {
            return chunk(v, ctx, state, emit);
        }
        // Anything else ends the answer being streamed.
        flush(state, emit)?;
        if ty == "init" {
            return init(v, ctx, state, emit);
        }
        let session = state.session.as_deref();
        let ev = |kind| event((ctx.producer, ctx.line, ctx.time), session, kind);
        match ty {
            "message" => {
                let role = match role {
                    Some("assistant") => Role::Assistant,
                    Some("user") => Role::User,
                    _ => return unknown(v, ctx, session, emit),
                };
                emit(&ev(EventKind::Text(Text {
                    role,
                    text: cow_at(v, "content").unwrap_or_default(),
                    message_id: None,
                    command: None,
                    continues: false,
                })))
            }
            "tool_use" => {
                let call = tool_call(v, ctx.arena);
                let id = state.spare.string(&call.id);
                let name = state.spare.string(&call.name);
                state.calls += 1;
                if let Some((old, _)) = state.open_calls.insert(id, (name, state.calls)) {
                    state.spare.give(old);
                }
                if state.open_calls.len() >= 2 * KEEP_OPEN {
                    // The oldest half goes (amortized: once per KEEP_OPEN calls).
                    let keep_from = state.calls.saturating_sub(KEEP_OPEN as u64);
                    state.open_calls.retain(|_, (_, n)| *n > keep_from);
                }
                emit(&ev(EventKind::ToolCall(call)))
            }
            "tool_result" => tool_result_line(v, ctx, state, emit),
            "error" => {
                let level = match str_at(v, "severity") {
                    Some("warning") => Level::Warning,
                    Some("info") => Level::Info,
                    _ => Level::Error,
                };
                let text = cow_at(v, "message")
                    .filter(|m| !m.trim().is_empty())
                    .unwrap_or(Cow::Borrowed("error"));
                emit(&ev(EventKind::Notice(Notice {
                    subtype: Cow::Borrowed("error"),
                    level,
                    text,
                    raw: Some(ctx.raw()),
                    estimate: false,
                })))
            }
            "result" => {
                let res = result(v, (state.started, ctx.time), ctx.arena);
                emit(&ev(EventKind::Result(Box::new(res))))
            }
            _ => unknown(v, ctx, session, emit),
        }
    }

    /// End of input: an answer still being streamed is complete now.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        flush(state, emit)
    }

    /// Answers arrive in chunks, joined here and never repeated whole.
    fn text_spans_lines(&self) -> bool {
        true
    }
}

/// Open calls whose tool name is remembered at least: a stream of calls
/// that are never answered must not grow without end (issue 18). A result
/// of a call forgotten is still shown, without what its tool's name tells.
const KEEP_OPEN: usize = 4096;

/// A session starts: what the last one kept between lines is given back.
fn init<'v>(v: Value<'v>, ctx: &Ctx<'v>, state: &mut State, emit: &mut Emit<'_>) -> io::Result<()> {
    if let Some(old) = state.session.take() {
        state.spare.give(old);
    }
    state.session = str_at(v, "session_id").map(|s| state.spare.string(s));
    state.started = ctx.time;
    for (id, (name, _)) in state.open_calls.drain() {
        state.spare.give(id);
        state.spare.give(name);
    }
    emit(&event(
        (ctx.producer, ctx.line, ctx.time),
        str_at(v, "session_id"),
        EventKind::SessionStart(SessionStart {
            model: cow_at(v, "model"),
            ..SessionStart::default()
        }),
    ))
}

/// A tool's result, answering the open call of its id; a denial also as a
/// denial event.
fn tool_result_line<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let id = str_at(v, "tool_id").unwrap_or("");
    let open = state.open_calls.remove_entry(id);
    let (res, denied) = tool_result(v, open.as_ref().map(|(_, (name, _))| name.as_str()));
    if let Some((id, (name, _))) = open {
        state.spare.give(id);
        state.spare.give(name);
    }
    let message = denied.then(|| Cow::Borrowed(res.content.text_in(ctx.arena)));
    let session = state.session.as_deref();
    let ev = |kind| event((ctx.producer, ctx.line, ctx.time), session, kind);
    emit(&ev(EventKind::ToolResult(res)))?;
    if let Some(message) = message {
        emit(&ev(EventKind::PermissionDenied(Denial {
            id: Some(Cow::Borrowed(id)),
            tool: None,
            key_arg: None,
            message: Some(message),
        })))?;
    }
    Ok(())
}

/// One streamed piece of the assistant's answer.
fn chunk<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let content = str_at(v, "content").unwrap_or("");
    if !content.is_empty() && state.text.len() + content.len() > TEXT_PART && !state.text.is_empty()
    {
        // A very long answer: what came so far is written as a part, so
        // that memory stays bounded; the rest follows as more parts.
        part(state, true, emit)?;
    }
    if state.text_line.is_none() {
        state.text_line = Some((ctx.line, ctx.time));
    }
    state.text.push_str(content);
    emit(&event(
        (ctx.producer, ctx.line, ctx.time),
        state.session.as_deref(),
        EventKind::Delta(Delta {
            kind: DeltaKind::Text,
            index: None,
            text: Cow::Borrowed(content),
        }),
    ))
}

/// An answer joined from its chunks is written in parts of at most this
/// many bytes (but for one chunk longer than that): the decoder holds no
/// more than this of it.
pub(crate) const TEXT_PART: usize = 1 << 20;

/// Write the joined chunks as one text event.
fn flush(state: &mut State, emit: &mut Emit<'_>) -> io::Result<()> {
    part(state, false, emit)
}

/// Write the chunks joined so far as a text event; `continues`: more of the
/// same answer follows.
fn part(state: &mut State, continues: bool, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some((line, time)) = state.text_line.take() else {
        return Ok(());
    };
    if state.text.is_empty() {
        return Ok(());
    }
    let res = emit(&event(
        (state.producer.unwrap_or(Producer::Gemini), line, time),
        state.session.as_deref(),
        EventKind::Text(Text {
            role: Role::Assistant,
            text: Cow::Borrowed(&state.text),
            message_id: None,
            command: None,
            continues,
        }),
    ));
    state.text.clear();
    res
}

fn unknown<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    session: Option<&str>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let ty = str_at(v, "type").unwrap_or("");
    let type_name = match str_at(v, "subtype").filter(|s| !s.is_empty()) {
        Some(sub) => text!(ctx.arena, "{ty}/{sub}"),
        None => Cow::Borrowed(ty),
    };
    emit(&event(
        (ctx.producer, ctx.line, ctx.time),
        session,
        EventKind::Unknown(Unknown {
            type_name,
            raw: ctx.raw(),
        }),
    ))
}

fn tool_call<'v>(v: Value<'v>, a: &'v Arena) -> ToolCall<'v> {
    let name = str_at(v, "tool_name").unwrap_or("");
    call(
        cow_at(v, "tool_id").unwrap_or_default(),
        name,
        get(v, "parameters"),
        a,
    )
}

/// A call of tool `name` with `params`: its key argument, kind, to-dos,
/// questions and edits (the saved sessions' `toolCalls` too).
pub(super) fn call<'v>(
    id: Cow<'v, str>,
    name: &'v str,
    params: Option<Value<'v>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let mut call = ToolCall {
        id,
        name: Cow::Borrowed(name),
        kind: tool_kind(name),
        key_arg: params.and_then(|p| key_arg(name, p, a)),
        input: params.map(JsonText::value).unwrap_or_default(),
        todos: List::default(),
        questions: List::default(),
        changes: List::default(),
        changes_in_result: false,
        message_id: None,
    };
    if let Some(p) = params {
        match name {
            "write_todos" => {
                call.todos = super::args::todos_at(p, "todos", &["description", "content"], a);
            }
            "ask_user" => {
                call.questions = super::args::questions_at(p, "questions", &["question"], a);
            }
            "replace" | "edit" => {
                call.changes = super::args::replace_at(p, ["old_string", "new_string", ""], a);
            }
            "write_file" => call.changes = super::args::write_at(p, "content", a),
            _ => {}
        }
    }
    call
}

/// What a Gemini CLI tool does. MCP tools are named `mcp_<server>_<tool>`
/// (0.61) or `<server>__<tool>` (older versions).
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "run_shell_command" => ToolKind::Shell,
        "read_file" | "read_many_files" => ToolKind::Read,
        "write_file" => ToolKind::Write,
        "replace" | "edit" => ToolKind::Edit,
        "glob" | "grep_search" | "search_file_content" | "list_directory" => ToolKind::Search,
        "web_fetch" => ToolKind::Fetch,
        "google_web_search" => ToolKind::WebSearch,
        "invoke_agent" | "delegate_to_agent" => ToolKind::Agent,
        "write_todos" => ToolKind::Todo,
        n if n.starts_with("mcp_") || n.contains("__") => ToolKind::Mcp,
        _ => ToolKind::Other,
    }
}

/// The one argument that says what a call does. Parameter names changed
/// over versions (`absolute_path` → `file_path`, `path` → `dir_path`,
/// `include` → `include_pattern`); both are read.
fn key_arg<'v>(name: &str, p: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(p, k);
    match name {
        "read_file" | "write_file" | "replace" | "edit" => s("file_path")
            .or_else(|| s("absolute_path"))
            .or_else(|| s("path")),
        "run_shell_command" => s("command"),
        "glob" | "grep_search" | "search_file_content" | "grep" => {
            let pattern = str_at(p, "pattern")?;
            let dir = str_at(p, "dir_path").or_else(|| str_at(p, "path"));
            let include = str_at(p, "include_pattern").or_else(|| str_at(p, "include"));
            Some(super::args::pattern_in(pattern, dir, include, a))
        }
        "list_directory" => s("dir_path").or_else(|| s("path")),
        "read_many_files" => a
            .join(strings(p, "include"), " ")
            .or_else(|| a.join(strings(p, "paths"), " "))
            .map(Cow::Borrowed),
        "web_fetch" => s("url").or_else(|| s("prompt")),
        "google_web_search" | "web_search" => s("query"),
        "write_todos" => Some(super::args::items(arr_at(p, "todos").len(), a)),
        "save_memory" => s("fact"),
        "ask_user" => arr_at(p, "questions")
            .first()
            .and_then(|q| cow_at(q, "question"))
            .or_else(|| s("question")),
        "activate_skill" => s("name"),
        "enter_plan_mode" => s("reason"),
        "exit_plan_mode" => s("plan_filename").or_else(|| s("plan")),
        "get_internal_docs" => s("path"),
        "update_topic" => s("title"),
        "invoke_agent" => {
            let agent = str_at(p, "agent_name");
            let prompt = str_at(p, "prompt").and_then(|t| t.lines().find(|l| !l.trim().is_empty()));
            match (agent, prompt) {
                (Some(name), Some(t)) => Some(text!(a, "{name}: {}", t.trim())),
                (Some(name), None) => Some(Cow::Borrowed(name)),
                (None, t) => t.map(Cow::Borrowed),
            }
        }
        "tracker_create_task" => s("title").or_else(|| s("description")),
        "tracker_update_task" => {
            let id = str_at(p, "id")?;
            match str_at(p, "status") {
                Some(st) => Some(text!(a, "#{id} → {st}")),
                None => Some(text!(a, "#{id}")),
            }
        }
        "tracker_get_task" => str_at(p, "id").map(|id| text!(a, "#{id}")),
        "tracker_add_dependency" => {
            let task = str_at(p, "taskId")?;
            let dep = str_at(p, "dependencyId")?;
            Some(text!(a, "#{task} → #{dep}"))
        }
        "tracker_list_tasks" => s("status"),
        // MCP tools: `mcp_<server>_<tool>` (0.61), `<server>__<tool>` (older).
        n if n.starts_with("mcp_") || n.contains("__") => super::args::first_scalar(p, false, a),
        _ => None,
    }
}

/// The string `key`, or the strings of the array `key`.
fn strings<'v>(p: Value<'v>, key: &str) -> impl Iterator<Item = &'v str> {
    let one = get(p, key).and_then(Value::into_string);
    let many = arr_at(p, key).iter().filter_map(Value::into_string);
    one.into_iter().chain(many)
}

/// The shell tool's display text when the command printed nothing and
/// failed; the stream still says `success`.
const SHELL_FAILURES: [&str; 5] = [
    "Command exited with code: ",
    "Command terminated by signal: ",
    "Command failed: ",
    "Command timed out after ",
    "Command cancelled by user.",
];

/// A `tool_result` line; also says whether it is a policy denial.
fn tool_result<'v>(v: Value<'v>, tool: Option<&str>) -> (ToolResult<'v>, bool) {
    let id = cow_at(v, "tool_id").unwrap_or_default();
    // Read only when needed (a long output stays in its JSON form).
    let output = || str_at(v, "output");
    let err = get(v, "error").filter(|e| e.as_object().is_some());
    let err_type = err.and_then(|e| str_at(e, "type"));
    let err_msg = err
        .and_then(|e| str_at(e, "message"))
        .filter(|m| !m.trim().is_empty());
    let mut is_error = str_at(v, "status") == Some("error") || err.is_some();
    if !is_error
        && tool == Some("run_shell_command")
        && let Some(o) = output().map(str::trim)
    {
        is_error = !o.contains('\n') && SHELL_FAILURES.iter().any(|f| o.starts_with(f));
    }
    let content = if is_error {
        Content::from(
            err_msg
                .or(output().filter(|o| !o.trim().is_empty()))
                .or(err_type)
                .unwrap_or(""),
        )
    } else {
        get(v, "output").and_then(content_of).unwrap_or_default()
    };
    let denied = err_type == Some("policy_violation");
    (
        ToolResult {
            id,
            is_error,
            denied,
            content,
            answers: List::default(),
            changes: List::default(),
        },
        denied,
    )
}

fn result<'v>(
    v: Value<'v>,
    (started, ended): (Option<Timestamp>, Option<Timestamp>),
    a: &'v Arena,
) -> SessionResult<'v> {
    let outcome = str_at(v, "status");
    let err = get(v, "error").filter(|e| e.as_object().is_some());
    let err_type = err.and_then(|e| str_at(e, "type"));
    let err_msg = err.and_then(|e| cow_at(e, "message"));
    let is_error = outcome.is_some_and(|s| s != "success") || err.is_some();
    let stats = get(v, "stats");
    let mut duration_ms = stats.and_then(|s| u64_at(s, "duration_ms"));
    if is_error && duration_ms == Some(0) {
        // The CLI's fatal-error path writes 0: measure from the init instead.
        duration_ms = match (started, ended) {
            (Some(a), Some(b)) => u64::try_from(b.millis() - a.millis()).ok(),
            _ => None,
        };
    }
    let models = stats
        .and_then(|s| get(s, "models"))
        .and_then(Value::as_object);
    let model_usage = list(
        a,
        models
            .iter()
            .flat_map(crate::json::Obj::iter)
            .map(|(k, m)| ModelUsage {
                model: Cow::Borrowed(k),
                tokens: tokens(m),
                cost_usd: None,
            }),
    );
    SessionResult {
        is_error,
        subtype: err_type.or(outcome).map(Cow::Borrowed),
        api_error_status: err_msg.as_deref().and_then(api_error_status),
        after_task: None,
        text: err_msg,
        errors: List::default(),
        num_turns: None,
        duration_ms,
        duration_api_ms: None,
        cost_usd: None,
        tokens: stats.map(tokens).unwrap_or_default(),
        model_usage,
        stop_reason: None,
        terminal_reason: None,
    }
}

/// `stats` (or one of `stats.models`): `input_tokens` is the whole prompt,
/// `cached` and `input` its cached and uncached parts.
fn tokens(s: Value<'_>) -> Tokens {
    let prompt = u64_at(s, "input_tokens");
    let cached = u64_at(s, "cached");
    let input = u64_at(s, "input").or_else(|| match (prompt, cached) {
        (Some(p), Some(c)) => Some(p.saturating_sub(c)),
        (p, None) => p,
        (None, Some(_)) => None,
    });
    Tokens {
        input,
        output: u64_at(s, "output_tokens"),
        cache_read: cached,
        cache_creation: None,
        reasoning: None,
    }
}

/// The HTTP status in `[API Error: {"error":{"code":500,…}}]`.
fn api_error_status(msg: &str) -> Option<u64> {
    let body = &msg[msg.find("API Error")?..];
    let at = body.find("\"code\"")? + "\"code\"".len();
    let rest = body[at..].trim_start().strip_prefix(':')?.trim_start();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let code: u64 = rest[..digits].parse().ok()?;
    (100..600).contains(&code).then_some(code)
}

#[cfg(test)]
mod tests;
