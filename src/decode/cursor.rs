//! Cursor Agent `cursor-agent -p --output-format stream-json [--stream-partial-output]`.
//!
//! `system`/`init` and the `user` prompt echo have Claude Code's shapes and
//! go to the Claude decoder. Cursor's own lines are decoded here (see
//! `docs/protocols.md` §8; no real capture exists, the fixtures are
//! synthetic):
//!
//! * `tool_call` `started` / `completed` with a `call_id` and a
//!   `tool_call` object keyed by the tool kind (`shellToolCall`,
//!   `readToolCall`…): one `ToolCall` at `started`, one `ToolResult` at
//!   `completed`. A `completed` whose `started` was not seen gives both.
//! * `thinking` `delta` fragments, joined into one `Thinking` at
//!   `completed` (or when something else begins).
//! * `assistant` text. With `--stream-partial-output` the lines that carry
//!   `timestamp_ms` are fragments and a final line without it repeats the
//!   whole text: the fragments become `Delta`s and the text is written once.
//! * `result` with camelCase `usage` and, as `result`, all the text again.

use std::borrow::Cow;
use std::io;

use super::args::json_in;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, has, start};
use super::seen::Seen;
use crate::event::JsonText;
use crate::event::ToolKind;
use crate::event::{
    Delta, DeltaKind, Denial, Event, EventKind, List, Producer, Role, SessionResult, Text,
    Thinking, Tokens, ToolCall, ToolResult, Unknown,
};
use crate::json::{Arena, J, Value, arr_at, bool_at, cow_at, get, str_at, u64_at, view};
use crate::time::Timestamp;

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    claude: super::claude::State,
    /// Assistant text fragments not yet written as a `Text`.
    text: Pending,
    /// Thinking fragments not yet written as a `Thinking`.
    thinking: Pending,
    /// The last text fragment and whether it had a `model_call_id` (some
    /// builds send each fragment twice, with and without one).
    last_delta: Option<(String, bool)>,
    /// Text written from fragments before its complete echo arrived; the
    /// echo is then skipped.
    unechoed: Option<String>,
    /// Assistant texts written since the last result.
    turn_texts: Vec<String>,
    /// Calls whose `ToolCall` was written.
    called: Seen,
    /// Calls whose `ToolResult` was written.
    answered: Seen,
}

/// Fragments waiting to be joined.
#[derive(Default)]
struct Pending {
    text: String,
    line: u64,
    /// When the last fragment came.
    time: Option<Timestamp>,
    session: Option<String>,
    message_id: Option<String>,
}

impl Pending {
    fn push(
        &mut self,
        fragment: &str,
        (line, time): (u64, Option<Timestamp>),
        session: Option<&str>,
        message_id: Option<&str>,
    ) {
        self.text.push_str(fragment);
        self.line = line;
        self.time = time;
        if let Some(s) = session {
            self.session = Some(s.to_string());
        }
        if let Some(m) = message_id {
            self.message_id = Some(m.to_string());
        }
    }

    /// The joined text, leaving `self` empty; `None` when nothing waits.
    fn take(&mut self) -> Option<Pending> {
        if self.text.is_empty() {
            self.session = None;
            self.message_id = None;
            return None;
        }
        Some(std::mem::take(self))
    }
}

/// The registry's line for Cursor Agent.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Cursor,
    name: "cursor",
    label: "Cursor Agent",
    invocation: "Cursor Agent `--output-format stream-json`",
    stream: start::<State>,
    format: &Cursor,
    unsearched: &["cwd", "permissionMode", "request_id"],
    unread: &[],
    store: None,
};

/// Cursor Agent `--output-format stream-json` (the registry's entry).
pub(crate) struct Cursor;

impl Format for Cursor {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        if s.ty == "tool_call"
            || s.ty == "thinking"
            || has(s.v, "timestamp_ms")
            || has(s.v, "model_call_id")
        {
            return Some(Evidence::Type);
        }
        if s.is_init()
            && matches!(str_at(s.v, "apiKeySource"), Some("env" | "flag" | "login"))
            && !has(s.v, "tools")
        {
            return Some(Evidence::Init);
        }
        (s.ty == "result" && get(s.v, "usage").is_some_and(|u| has(u, "inputTokens")))
            .then_some(Evidence::Hint)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.is_init()
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        match str_at(v, "type").unwrap_or("") {
            "assistant" => assistant(v, ctx, state, emit),
            "thinking" => thinking(v, ctx, state, emit),
            "tool_call" => {
                flush(state, emit)?;
                tool_call(v, ctx, state, emit)
            }
            "result" => {
                flush(state, emit)?;
                result(v, ctx, state, emit)
            }
            "system" | "user" => {
                flush(state, emit)?;
                state.claude.decode(v, ctx, emit)
            }
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    /// End of input: fragments still waiting are written.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        flush(state, emit)
    }

    /// Answers arrive in chunks, joined here and never repeated whole.
    fn text_spans_lines(&self) -> bool {
        true
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

/// Write the thinking and the text whose fragments are waiting.
fn flush(state: &mut State, emit: &mut Emit<'_>) -> io::Result<()> {
    flush_thinking(state, emit)?;
    flush_text(state, emit)
}

fn flush_thinking(state: &mut State, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(p) = state.thinking.take() else {
        return Ok(());
    };
    emit(&Event {
        producer: Producer::Cursor,
        line: p.line,
        source: None,
        session: p.session.map(Cow::Owned),
        parent: None,
        time: p.time,
        kind: EventKind::Thinking(Thinking {
            text: Cow::Owned(p.text),
            redacted: false,
            message_id: p.message_id.map(Cow::Owned),
        }),
    })
}

/// Fragments whose complete echo has not come (yet): written as the text.
fn flush_text(state: &mut State, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(p) = state.text.take() else {
        return Ok(());
    };
    state.last_delta = None;
    emit(&Event {
        producer: Producer::Cursor,
        line: p.line,
        source: None,
        session: p.session.map(Cow::Owned),
        parent: None,
        time: p.time,
        kind: EventKind::Text(Text {
            role: Role::Assistant,
            text: Cow::Borrowed(&p.text),
            message_id: p.message_id.map(Cow::Owned),
            command: None,
            continues: false,
        }),
    })?;
    state.turn_texts.push(p.text.clone());
    state.unechoed = Some(p.text);
    Ok(())
}

/// An assistant line's text, its text blocks joined; each other block is
/// kept as an unknown event. `None`: no usable content.
fn assistant_text<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    emit: &mut Emit<'_>,
) -> io::Result<Option<Cow<'v, str>>> {
    let content = get(v, "message").and_then(|m| get(m, "content"));
    let mut text: Cow<'v, str> = Cow::Borrowed("");
    match content.map(view) {
        Some(J::Str(s)) => text = Cow::Borrowed(s),
        Some(J::Arr(blocks)) => {
            for block in blocks {
                match str_at(block, "type") {
                    Some("text") => {
                        let t = str_at(block, "text").unwrap_or("");
                        text = if text.is_empty() {
                            Cow::Borrowed(t)
                        } else {
                            Cow::Owned(format!("{text}{t}"))
                        };
                    }
                    t => emit(&event(
                        v,
                        ctx,
                        EventKind::Unknown(Unknown {
                            type_name: Cow::Owned(format!("assistant/{}", t.unwrap_or(""))),
                            raw: ctx.raw(),
                        }),
                    ))?,
                }
            }
        }
        _ => return Ok(None),
    }
    Ok(Some(text))
}

fn assistant<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let Some(text) = assistant_text(v, ctx, emit)? else {
        // No usable content: kept as it came, so the line does not vanish.
        return super::producer::unknown_line(v, ctx, emit);
    };
    if text.is_empty() {
        return Ok(());
    }
    let session = str_at(v, "session_id");
    let call = str_at(v, "model_call_id");
    if get(v, "timestamp_ms").is_some() {
        // A fragment (`--stream-partial-output`).
        let with_call = call.is_some();
        if state
            .last_delta
            .as_ref()
            .is_some_and(|(t, c)| *t == text && *c != with_call)
        {
            // The same fragment again, the other way round.
            state.last_delta = None;
            return Ok(());
        }
        state.last_delta = Some((text.to_string(), with_call));
        flush_thinking(state, emit)?;
        state.unechoed = None;
        state.text.push(&text, (ctx.line, ctx.time), session, call);
        return emit(&event(
            v,
            ctx,
            EventKind::Delta(Delta {
                kind: DeltaKind::Text,
                index: None,
                text,
            }),
        ));
    }
    // A complete message: the echo of the fragments just received, or a
    // message of its own (without partial output).
    state.last_delta = None;
    flush_thinking(state, emit)?;
    let fragments = state.text.take();
    if fragments.is_none()
        && state
            .unechoed
            .take()
            .is_some_and(|u| u.trim() == text.trim())
    {
        return Ok(());
    }
    state.unechoed = None;
    state.turn_texts.push(text.to_string());
    let message_id = call
        .map(Cow::Borrowed)
        .or_else(|| fragments.and_then(|f| f.message_id).map(Cow::Owned));
    emit(&event(
        v,
        ctx,
        EventKind::Text(Text {
            role: Role::Assistant,
            text,
            message_id,
            command: None,
            continues: false,
        }),
    ))
}

fn thinking<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    match str_at(v, "subtype") {
        Some("delta") => {
            // Thinking after text: that text is complete.
            flush_text(state, emit)?;
            let text = cow_at(v, "text").unwrap_or_default();
            state.thinking.push(
                &text,
                (ctx.line, ctx.time),
                str_at(v, "session_id"),
                str_at(v, "model_call_id"),
            );
            emit(&event(
                v,
                ctx,
                EventKind::Delta(Delta {
                    kind: DeltaKind::Thinking,
                    index: None,
                    text,
                }),
            ))
        }
        Some("completed") => {
            state.thinking.line = ctx.line;
            flush_thinking(state, emit)
        }
        _ => super::producer::unknown_line(v, ctx, emit),
    }
}

/// The tool kind's key (`shellToolCall`…) and its object.
fn tool_body(tc: Value<'_>) -> Option<(&str, Value<'_>)> {
    let obj = tc.as_object()?;
    obj.iter()
        .find(|(k, b)| k.ends_with("ToolCall") && b.as_object().is_some())
        .or_else(|| obj.iter().find(|(_, b)| b.as_object().is_some()))
}

/// `shellToolCall` → `shell`; an MCP call → `mcp__<server>__<tool>`.
fn tool_name<'v>(kind: &'v str, args: Option<Value<'v>>, a: &'v Arena) -> Cow<'v, str> {
    let short = kind.strip_suffix("ToolCall").unwrap_or(kind);
    if short == "mcp" {
        let server = args.and_then(|x| {
            str_at(x, "providerIdentifier")
                .or_else(|| str_at(x, "serverIdentifier"))
                .or_else(|| str_at(x, "serverName"))
        });
        let tool = args.and_then(|x| str_at(x, "toolName").or_else(|| str_at(x, "name")));
        if let (Some(s), Some(t)) = (server, tool) {
            return text!(a, "mcp__{s}__{t}");
        }
    }
    Cow::Borrowed(short)
}

/// What a Cursor tool does, from its kind's key without `ToolCall`
/// (`shellToolCall` → `shell`).
fn tool_kind(short: &str) -> ToolKind {
    match short {
        "shell" => ToolKind::Shell,
        "read" => ToolKind::Read,
        "write" => ToolKind::Write,
        "edit" | "delete" => ToolKind::Edit,
        "grep" | "glob" | "ls" | "semSearch" => ToolKind::Search,
        "webFetch" => ToolKind::Fetch,
        "webSearch" => ToolKind::WebSearch,
        "updateTodos" | "todo" | "todoWrite" => ToolKind::Todo,
        "mcp" => ToolKind::Mcp,
        _ => ToolKind::Other,
    }
}

/// The one argument that says what a Cursor tool call does.
pub(crate) fn key_arg<'v>(short: &str, args: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(args, k);
    match short {
        "read" | "write" | "edit" | "delete" | "ls" => s("path")
            .or_else(|| s("targetFile"))
            .or_else(|| s("filePath")),
        "shell" => s("command"),
        "grep" | "glob" => {
            let pattern = str_at(args, "pattern")
                .or_else(|| str_at(args, "globPattern"))
                .or_else(|| str_at(args, "query"))?;
            let dir = str_at(args, "path").or_else(|| str_at(args, "targetDirectory"));
            Some(super::args::pattern_in(
                pattern,
                dir,
                str_at(args, "glob"),
                a,
            ))
        }
        "webSearch" => s("searchTerm").or_else(|| s("query")),
        "webFetch" => s("url"),
        "semSearch" => s("query"),
        "updateTodos" | "todo" | "todoWrite" => {
            Some(super::args::items(arr_at(args, "todos").len(), a))
        }
        "mcp" => get(args, "args").and_then(|x| super::messages::key_arg("mcp__", x, a)),
        _ => ["path", "command", "pattern", "query", "url"]
            .iter()
            .find_map(|k| s(k)),
    }
}

/// Cursor's todo statuses (`TODO_STATUS_IN_PROGRESS`) in the usual words.
fn call_event<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    id: Cow<'v, str>,
    kind: &'v str,
    body: Option<Value<'v>>,
) -> Event<'v> {
    let args = body.and_then(|b| get(b, "args"));
    let name = tool_name(kind, args, ctx.arena);
    let short = kind.strip_suffix("ToolCall").unwrap_or(kind);
    let todos = args
        .filter(|_| matches!(short, "updateTodos" | "todo" | "todoWrite"))
        .map(|x| super::args::todos_at(x, "todos", &["content"], ctx.arena))
        .unwrap_or_default();
    event(
        v,
        ctx,
        EventKind::ToolCall(ToolCall {
            id,
            name,
            kind: tool_kind(short),
            key_arg: args.and_then(|x| key_arg(short, x, ctx.arena)),
            input: args.map(JsonText::value).unwrap_or_default(),
            todos,
            questions: List::default(),
            changes: List::default(),
            changes_in_result: false,
            message_id: cow_at(v, "model_call_id"),
        }),
    )
}

fn tool_call<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let tc = get(v, "tool_call");
    let Some(id) = cow_at(v, "call_id").or_else(|| tc.and_then(|t| cow_at(t, "toolCallId"))) else {
        return super::producer::unknown_line(v, ctx, emit);
    };
    let (kind, body) = match tc.and_then(tool_body) {
        Some((k, b)) => (k, Some(b)),
        None => ("unknown", None),
    };
    let sub = str_at(v, "subtype");
    if !matches!(sub, Some("started" | "completed")) {
        return super::producer::unknown_line(v, ctx, emit);
    }
    if !state.called.contains(id.as_ref()) {
        state.called.insert(&id);
        emit(&call_event(v, ctx, id.clone(), kind, body))?;
    }
    if sub == Some("started") || !state.answered.insert(&id) {
        return Ok(());
    }
    let outcome = outcome(body.and_then(|b| get(b, "result")), ctx.arena);
    emit(&event(
        v,
        ctx,
        EventKind::ToolResult(ToolResult {
            id: id.clone(),
            is_error: outcome.is_error,
            denied: outcome.denied,
            content: outcome.content.into(),
            answers: List::default(),
            changes: List::default(),
        }),
    ))?;
    if outcome.denied {
        let args = body.and_then(|b| get(b, "args"));
        let short = kind.strip_suffix("ToolCall").unwrap_or(kind);
        emit(&event(
            v,
            ctx,
            EventKind::PermissionDenied(Denial {
                id: Some(id),
                tool: Some(tool_name(kind, args, ctx.arena)),
                key_arg: args.and_then(|x| key_arg(short, x, ctx.arena)),
                message: outcome.reason,
            }),
        ))?;
    }
    Ok(())
}

struct Outcome<'v> {
    is_error: bool,
    denied: bool,
    content: Cow<'v, str>,
    reason: Option<Cow<'v, str>>,
}

/// `result: {success: …} | {failure: …} | {error: …} | {rejected: {reason}}`.
fn outcome<'v>(result: Option<Value<'v>>, a: &'v Arena) -> Outcome<'v> {
    let mut out = Outcome {
        is_error: false,
        denied: false,
        content: Cow::Borrowed(""),
        reason: None,
    };
    let Some((key, body)) = result
        .and_then(Value::as_object)
        .and_then(|o| o.iter().next())
    else {
        return out;
    };
    match key {
        "success" | "failure" => {
            let text = output_text(body, a);
            let code = get(body, "exitCode").and_then(Value::as_i64);
            out.is_error = key == "failure" || code.is_some_and(|c| c != 0);
            out.content = match code.filter(|c| *c != 0) {
                Some(c) if text.is_empty() => text!(a, "exit code {c}"),
                Some(c) => text!(a, "exit code {c}\n{text}"),
                None => text,
            };
        }
        "rejected" => {
            out.is_error = true;
            out.denied = true;
            out.reason = cow_at(body, "reason").filter(|r| !r.is_empty());
            out.content = match &out.reason {
                Some(r) => text!(a, "rejected: {r}"),
                None => Cow::Borrowed("rejected"),
            };
        }
        other => {
            // `error` and anything unknown: a failure, with its message.
            out.is_error = true;
            out.content = match body.into_string() {
                Some(s) => Cow::Borrowed(s),
                None => cow_at(body, "message")
                    .or_else(|| cow_at(body, "error"))
                    .or_else(|| cow_at(body, "errorMessage"))
                    .unwrap_or_else(|| text!(a, "{other}: {}", body.encode_in(a))),
            };
        }
    }
    out
}

/// The text of a successful tool result: its output, else its content,
/// else the whole object as JSON.
fn output_text<'v>(s: Value<'v>, a: &'v Arena) -> Cow<'v, str> {
    let stdout = str_at(s, "stdout").unwrap_or("");
    let stderr = str_at(s, "stderr").unwrap_or("");
    if !stdout.is_empty() || !stderr.is_empty() {
        return match (stdout.is_empty(), stderr.is_empty()) {
            (false, true) => Cow::Borrowed(stdout),
            (true, false) => Cow::Borrowed(stderr),
            _ => text!(a, "{}\n{stderr}", stdout.trim_end_matches('\n')),
        };
    }
    if get(s, "stdout").is_some() || get(s, "exitCode").is_some() {
        return Cow::Borrowed("");
    }
    // MCP: `content: [{text: {text}}]` (or `[{text}]`).
    let texts = arr_at(s, "content").iter().filter_map(|c| {
        str_at(c, "text").or_else(|| get(c, "text").and_then(|t| str_at(t, "text")))
    });
    if let Some(parts) = a.join(texts, "\n") {
        return Cow::Borrowed(parts);
    }
    [
        "content",
        "interleavedOutput",
        "output",
        "diffString",
        "message",
    ]
    .iter()
    .find_map(|k| cow_at(s, k))
    .unwrap_or_else(|| match s.as_object() {
        Some(o) if o.is_empty() => Cow::Borrowed(""),
        _ => json_in(s, a),
    })
}

fn result<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let subtype = str_at(v, "subtype");
    let mut text = cow_at(v, "result");
    // `result` is every assistant text of the turn run together: when it
    // only repeats what was written, the final text is the last one (as
    // Claude's), so it is not shown twice.
    let texts = std::mem::take(&mut state.turn_texts);
    if texts.len() > 1
        && let (Some(t), Some(last)) = (text.as_deref(), texts.last())
        && squash(t) == squash(&texts.concat())
    {
        text = Some(Cow::Owned(last.clone()));
    }
    state.unechoed = None;
    let mut errors = Vec::new();
    match get(v, "error") {
        Some(e) if e.into_string().is_some() => {
            errors.push(Cow::Borrowed(e.into_string().unwrap_or("")));
        }
        Some(e) => {
            if let Some(m) = cow_at(e, "message") {
                errors.push(m);
            }
        }
        None => {}
    }
    let res = SessionResult {
        is_error: bool_at(v, "is_error").unwrap_or(false)
            || subtype.is_some_and(|s| s.starts_with("error")),
        subtype: subtype.map(Cow::Borrowed),
        text,
        errors: errors.into(),
        num_turns: u64_at(v, "num_turns"),
        duration_ms: u64_at(v, "duration_ms"),
        duration_api_ms: u64_at(v, "duration_api_ms"),
        cost_usd: None,
        tokens: get(v, "usage").map(tokens).unwrap_or_default(),
        model_usage: List::default(),
        stop_reason: None,
        terminal_reason: None,
        api_error_status: None,
        after_task: None,
    };
    emit(&event(v, ctx, EventKind::Result(Box::new(res))))
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `usage: {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}`.
fn tokens(u: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(u, "inputTokens").or_else(|| u64_at(u, "input_tokens")),
        output: u64_at(u, "outputTokens").or_else(|| u64_at(u, "output_tokens")),
        cache_read: u64_at(u, "cacheReadTokens").or_else(|| u64_at(u, "cache_read_input_tokens")),
        cache_creation: u64_at(u, "cacheWriteTokens")
            .or_else(|| u64_at(u, "cache_creation_input_tokens")),
        reasoning: None,
    }
}
