//! `OpenCode` `opencode run --format json`.
//!
//! Every line is `{type, timestamp (ms), sessionID, part | error}`. Parts are
//! printed only once they are finished: a `tool_use` line is the call and its
//! outcome in one, so it gives one `tool_call` and one `tool_result`. There is
//! no session header and no final event: the session opens with its first
//! line and the result is rebuilt from the steps when the input ends (or when
//! another session's lines begin).
//!
//! What the real CLI does that its documentation does not say (see
//! `tests/fixtures/opencode/README.md`): a failing shell command is
//! `status:"completed"` with the exit code only in `metadata.exit`; a call to
//! an unknown tool becomes the tool `invalid`, also `completed`; an `error`
//! line can come *before* the first `step_start` (a context overflow that
//! opencode recovers from by compacting); `tokens.output` excludes
//! `tokens.reasoning`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;

use simd_json::prelude::*;

use super::args::{content_of, json_in, to_json};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use super::seen::Seen;
use crate::event::ToolKind;
use crate::event::{Content, FileChange, JsonText, List};
use crate::event::{
    Denial, Event, EventKind, Level, Notice, Producer, Role, SessionResult, SessionStart, Text,
    Thinking, Tokens, ToolCall, ToolResult, Unknown, Usage,
};
use crate::json::{Arena, Value, arr_at, bool_at, cow_at, f64_at, get, str_at, u64_at};
use crate::time::Timestamp;

/// Per-stream state: the session in progress and what its result will say.
#[derive(Default)]
pub(crate) struct State {
    /// Whose stream it is (`OpenCode`, or a fork read by this decoder:
    /// Kilo), for the result rebuilt at its end.
    producer: Option<Producer>,
    /// Id of the session in progress; `None` before the first line.
    session: Option<String>,
    /// The session has had its first line (and its `session_start`).
    started: bool,
    /// A result was already written for it (a `done` line).
    closed: bool,
    /// Line number of its last line.
    last_line: u64,
    /// `step_start` lines seen (model requests).
    steps: u64,
    /// The last `step_start` has neither a `step_finish` nor an `error` yet.
    open_step: bool,
    /// The last step ended asking for tool results (`tool-calls`) and
    /// nothing after it ended the run: opencode always makes another request
    /// then, unless a permission was refused or an error stopped it.
    awaiting_step: bool,
    /// A tool call of the current step was refused by the permission system.
    denied_in_step: bool,
    /// Σ `step_finish.part.cost`, when any step reported one.
    cost: Option<f64>,
    /// Σ `step_finish.part.tokens`.
    tokens: Tokens,
    /// `reason` of the last `step_finish`.
    last_reason: Option<String>,
    /// Earliest and latest timestamp of the session: the lines'
    /// `timestamp` and the parts' `time.start`/`time.end`.
    first_ts: Option<u64>,
    last_ts: Option<u64>,
    /// Timestamps seen.
    timestamped: u64,
    /// The `error` lines' summaries, in order.
    errors: Vec<String>,
    /// HTTP status of the last error (`None` when it had none).
    error_status: Option<u64>,
    /// The last text the assistant wrote (not synthetic, main session).
    last_text: Option<String>,
    /// Part ids already decoded: a redelivered part is not shown twice.
    seen_parts: Seen,
    /// Tool call ids whose `tool_call` was emitted.
    calls: Seen,
    /// Tool call ids whose `tool_result` was emitted.
    results: Seen,
    /// A sub-agent's session id → the id of the `task` call that ran it
    /// (its `state.metadata.sessionId`): its lines nest under that call.
    children: HashMap<String, String>,
}

impl State {
    /// Forget the previous session.
    fn reset(&mut self, id: Option<&str>) {
        let mut seen = std::mem::take(&mut self.seen_parts);
        let mut calls = std::mem::take(&mut self.calls);
        let mut results = std::mem::take(&mut self.results);
        seen.clear();
        calls.clear();
        results.clear();
        *self = State {
            producer: self.producer,
            session: id.map(str::to_string),
            seen_parts: seen,
            calls,
            results,
            ..State::default()
        };
    }

    /// A timestamp (ms) of the session.
    fn saw_time(&mut self, ts: u64) {
        self.first_ts = Some(self.first_ts.map_or(ts, |f| f.min(ts)));
        self.last_ts = Some(self.last_ts.map_or(ts, |l| l.max(ts)));
        self.timestamped += 1;
    }

    /// True the first time a part id is seen (parts without an id always pass).
    fn first_part(&mut self, id: Option<&str>) -> bool {
        match id {
            Some(id) if !id.is_empty() => self.seen_parts.insert(id),
            _ => true,
        }
    }

    /// The result rebuilt from what the session printed.
    fn result(&self, subtype: &'static str, terminal: Option<String>) -> SessionResult<'static> {
        let is_error = !self.errors.is_empty();
        let duration_ms = match (self.first_ts, self.last_ts) {
            (Some(a), Some(b)) if self.timestamped >= 2 => Some(b.saturating_sub(a)),
            _ => None,
        };
        SessionResult {
            is_error,
            subtype: Some(Cow::Borrowed(subtype)),
            text: if is_error {
                None
            } else {
                self.last_text.clone().map(Cow::Owned)
            },
            errors: self.errors.iter().cloned().map(Cow::Owned).collect(),
            num_turns: Some(self.steps),
            duration_ms,
            duration_api_ms: None,
            cost_usd: self.cost,
            tokens: self.tokens,
            model_usage: List::default(),
            stop_reason: self.last_reason.clone().map(Cow::Owned),
            terminal_reason: terminal.map(Cow::Owned),
            api_error_status: if is_error { self.error_status } else { None },
            after_task: None,
        }
    }

    /// Write the result of the session in progress, unless it was cut in the
    /// middle of a step (then it stays without one: incomplete).
    fn close(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if !self.started || self.closed || self.open_step || self.awaiting_step {
            return Ok(());
        }
        self.closed = true;
        let res = self.result("end_of_input", None);
        emit(&Event {
            producer: self.producer.unwrap_or(Producer::OpenCode),
            line: self.last_line,
            source: None,
            session: self.session.clone().map(Cow::Owned),
            parent: None,
            time: None,
            kind: EventKind::Result(Box::new(res)),
        })
    }
}

struct Base<'v> {
    producer: Producer,
    line: u64,
    session: Option<Cow<'v, str>>,
    parent: Option<Cow<'v, str>>,
    time: Option<Timestamp>,
}

impl<'v> Base<'v> {
    fn event(&self, kind: EventKind<'v>) -> Event<'v> {
        Event {
            producer: self.producer,
            line: self.line,
            source: None,
            session: self.session.clone(),
            parent: self.parent.clone(),
            time: self.time,
            kind,
        }
    }

    /// An event of the session itself (never nested).
    fn main(&self, kind: EventKind<'v>) -> Event<'v> {
        Event {
            parent: None,
            ..self.event(kind)
        }
    }
}

/// The registry's line for `OpenCode`.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::OpenCode,
    name: "opencode",
    label: "OpenCode",
    invocation: "`OpenCode` `run --format json`",
    stream: start::<State>,
    format: &OpenCode,
    unsearched: &[],
    unread: &[],
    store: Some(Store {
        home: ".local/share",
        moved_by: &["XDG_DATA_HOME"],
        sessions: "opencode",
        database: Some("OPENCODE_DB"),
        reader: Some(&store::Cli::OpenCode),
    }),
};

/// `opencode run --format json` (the registry's entry).
pub(crate) struct OpenCode;

impl Format for OpenCode {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // `sessionID` and a numeric timestamp (asked before Gemini: both
        // print tool_use, text and error).
        (has(s.v, "sessionID")
            && get(s.v, "timestamp").is_some_and(|t| t.as_u64().is_some() || t.as_f64().is_some()))
        .then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "step_start"
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        state.producer = Some(ctx.producer);
        let ty = str_at(v, "type").unwrap_or("");
        let session = str_at(v, "sessionID").filter(|s| !s.is_empty());
        let part = get(v, "part");
        track(v, ctx, session, part, state, emit)?;

        // A part of a child session (a sub-agent) printed in the parent's stream:
        // nest it under that session.
        let child = part
            .and_then(|p| str_at(p, "sessionID"))
            .filter(|p| !p.is_empty() && session.is_some_and(|s| s != *p));
        let call = child.and_then(|c| state.children.get(c));
        let base = Base {
            producer: ctx.producer,
            line: ctx.line,
            session: session
                .map(Cow::Borrowed)
                .or_else(|| state.session.clone().map(Cow::Owned)),
            parent: match call {
                Some(id) => Some(Cow::Owned(id.clone())),
                None => child.map(Cow::Borrowed),
            },
            time: ctx.time,
        };

        if !state.started {
            // No header line exists: the session starts with its first line.
            state.started = true;
            let start = SessionStart {
                model: cow_at(v, "model").or_else(|| part.and_then(|p| cow_at(p, "modelID"))),
                cwd: cow_at(v, "cwd").or_else(|| cow_at(v, "directory")),
                version: cow_at(v, "version"),
                ..SessionStart::default()
            };
            emit(&base.main(EventKind::SessionStart(start)))?;
        }

        let part_id = part.and_then(|p| str_at(p, "id"));
        // A part printed again (a retried line) is shown once.
        let first = |state: &mut State| state.first_part(part_id);
        match (ty, part) {
            ("step_start", _) => {
                if child.is_none() && first(state) {
                    state.steps += 1;
                    state.open_step = true;
                    state.awaiting_step = false;
                    state.denied_in_step = false;
                }
                Ok(())
            }
            ("step_finish", Some(p)) if first(state) => {
                step_finish(p, child.is_none(), &base, state, emit)
            }
            ("text", Some(p)) => text(p, child.is_none(), &base, state, emit),
            ("reasoning", Some(p)) if first(state) => {
                let text = str_at(p, "text").unwrap_or("");
                emit(&base.event(EventKind::Thinking(Thinking {
                    text: Cow::Borrowed(text),
                    redacted: text.trim().is_empty(),
                    message_id: cow_at(p, "messageID"),
                })))
            }
            ("step_finish" | "reasoning" | "text", _) => Ok(()),
            ("tool_use", Some(p)) => tool_use(p, ctx.arena, &base, state, emit),
            // A saved session's lines (`opencode/store.rs`): its header (its
            // start was emitted above), the user's prompts, a row not read.
            ("session", _) => Ok(()),
            ("prompt", Some(p)) if first(state) => prompt(p, &base, emit),
            ("prompt", _) => Ok(()),
            ("skipped" | "unreadable", _) => not_read(v, ty, &base, emit),
            ("error", _) => error(v, ctx, &base, state, emit),
            ("done", _) => done(v, &base, state, emit),
            _ => unknown(&base, ctx, ty, emit),
        }
    }

    /// End of input: the session in progress gets its rebuilt result.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        state.close(emit)?;
        state.reset(None);
        Ok(())
    }
}

/// What every line tells of the session: a new session id ends the one in
/// progress; timestamps widen its duration.
fn track(
    v: Value<'_>,
    ctx: &Ctx<'_>,
    session: Option<&str>,
    part: Option<Value<'_>>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    // Another session's lines: the one in progress has ended.
    if let (Some(new), Some(cur)) = (session, state.session.as_deref())
        && new != cur
    {
        state.close(emit)?;
        state.reset(Some(new));
    }
    if state.session.is_none() && session.is_some() {
        state.session = session.map(str::to_string);
    }
    state.last_line = ctx.line;
    // Lines are printed when a part has finished, so a part's own start can
    // be earlier than any line's timestamp: the duration spans both.
    if let Some(ts) = u64_at(v, "timestamp") {
        state.saw_time(ts);
    }
    let part_times = [
        part.and_then(|p| get(p, "time")),
        part.and_then(|p| get(p, "state"))
            .and_then(|s| get(s, "time")),
    ];
    for t in part_times.into_iter().flatten() {
        for key in ["start", "end"] {
            if let Some(ts) = u64_at(t, key) {
                state.saw_time(ts);
            }
        }
    }
    Ok(())
}

/// A step ended: its tokens and cost (the main session's count towards
/// the totals), and whether the agent goes on (`tool-calls`).
fn step_finish<'v>(
    p: Value<'v>,
    main: bool,
    base: &Base<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let tokens = get(p, "tokens").map(tokens).unwrap_or_default();
    if main {
        state.open_step = false;
        state.awaiting_step =
            matches!(str_at(p, "reason"), Some("tool-calls" | "unknown")) && !state.denied_in_step;
        if let Some(c) = f64_at(p, "cost") {
            *state.cost.get_or_insert(0.0) += c;
        }
        state.tokens.add(&tokens);
        if let Some(r) = str_at(p, "reason") {
            state.last_reason = Some(r.to_string());
        }
    }
    emit(&base.event(EventKind::Usage(Usage {
        message_id: cow_at(p, "messageID"),
        request_id: None,
        model: cow_at(p, "modelID"),
        tokens,
        replaces: None,
        cache_write_1h: None,
        sidechain: false,
        fast: false,
        preliminary_output: false,
        cost_usd: f64_at(p, "cost"),
    })))
}

/// A text part: the assistant's, or (`synthetic`) what opencode injects
/// itself after compaction, which the model is given as the user.
fn text<'v>(
    p: Value<'v>,
    main: bool,
    base: &Base<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let text = str_at(p, "text").unwrap_or("");
    if text.trim().is_empty() || !state.first_part(str_at(p, "id")) {
        return Ok(());
    }
    let synthetic = bool_at(p, "synthetic") == Some(true);
    if !synthetic && main {
        state.last_text = Some(text.to_string());
    }
    emit(&base.event(EventKind::Text(Text {
        role: if synthetic {
            Role::User
        } else {
            Role::Assistant
        },
        text: Cow::Borrowed(text),
        message_id: cow_at(p, "messageID"),
        command: None,
        continues: false,
    })))
}

/// A user's prompt, as a saved session keeps it.
fn prompt<'v>(p: Value<'v>, base: &Base<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let text = str_at(p, "text").unwrap_or("");
    if text.trim().is_empty() {
        return Ok(());
    }
    emit(&base.event(EventKind::Text(Text {
        role: Role::User,
        text: Cow::Borrowed(text),
        message_id: cow_at(p, "messageID"),
        command: None,
        continues: false,
    })))
}

/// A row of a saved session that was not read: too large, or not JSON.
fn not_read<'v>(v: Value<'v>, ty: &str, base: &Base<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let table = str_at(v, "table").unwrap_or("part");
    let id = str_at(v, "id").unwrap_or("?");
    let text = match u64_at(v, "bytes") {
        Some(n) if ty == "skipped" => format!("{table} {id} of the store not read: {n} bytes"),
        _ => format!("{table} {id} of the store not read: not a JSON object"),
    };
    emit(&base.event(EventKind::Notice(Notice {
        subtype: Cow::Borrowed("store"),
        level: Level::Warning,
        text: Cow::Owned(text),
        raw: None,
        estimate: false,
    })))
}

/// An error line: it ends the step, and the session's result will carry it.
fn error<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let (name, text, status) = error_summary(get(v, "error"));
    state.open_step = false;
    state.awaiting_step = false;
    state.errors.push(text.clone());
    state.error_status = status;
    emit(&base.event(EventKind::Notice(Notice {
        subtype: name,
        level: Level::Error,
        text: Cow::Owned(text),
        raw: Some(ctx.raw()),
        estimate: false,
    })))
}

/// The end of the run (newer CLIs: `{"type":"done","reason":"idle",
/// "rejected":[permission…]}`; 1.18.33 does not print it): its
/// auto-rejected permissions, then the session's result.
fn done<'v>(
    v: Value<'v>,
    base: &Base<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    for r in arr_at(v, "rejected") {
        let tool = r.into_string().or_else(|| str_at(r, "permission"));
        emit(&base.event(EventKind::PermissionDenied(Denial {
            id: None,
            tool: tool.map(Cow::Borrowed),
            key_arg: None,
            message: Some(Cow::Borrowed("permission auto-rejected (headless run)")),
        })))?;
    }
    if state.closed {
        return Ok(());
    }
    state.closed = true;
    let res = state.result("done", str_at(v, "reason").map(str::to_string));
    emit(&base.main(EventKind::Result(Box::new(res))))
}

fn unknown<'v>(base: &Base<'v>, ctx: &Ctx<'v>, ty: &str, emit: &mut Emit<'_>) -> io::Result<()> {
    emit(&base.event(EventKind::Unknown(Unknown {
        type_name: Cow::Owned(ty.to_string()),
        raw: ctx.raw(),
    })))
}

/// `step_finish.part.tokens`: `input` excludes cached tokens; `output`
/// excludes `reasoning`, which is added back (it is billed as output).
fn tokens(t: Value<'_>) -> Tokens {
    let cache = get(t, "cache");
    let output = match (u64_at(t, "output"), u64_at(t, "reasoning")) {
        (None, None) => None,
        (o, r) => Some(o.unwrap_or(0).saturating_add(r.unwrap_or(0))),
    };
    Tokens {
        input: u64_at(t, "input"),
        output,
        cache_read: cache.and_then(|c| u64_at(c, "read")),
        cache_creation: cache.and_then(|c| u64_at(c, "write")),
        reasoning: u64_at(t, "reasoning"),
    }
}

/// `error: {name, data: {message, statusCode?}}` → (subtype, one-line text, HTTP status).
fn error_summary(e: Option<Value<'_>>) -> (Cow<'_, str>, String, Option<u64>) {
    let Some(e) = e else {
        return (Cow::Borrowed("error"), "error".to_string(), None);
    };
    if let Some(s) = e.into_string() {
        return (Cow::Borrowed("error"), s.to_string(), None);
    }
    if e.as_object().is_none() {
        return (Cow::Borrowed("error"), to_json(e), None);
    }
    let name = str_at(e, "name").filter(|n| !n.is_empty());
    let data = get(e, "data");
    let message = data
        .and_then(|d| str_at(d, "message"))
        .or_else(|| str_at(e, "message"))
        .filter(|m| !m.trim().is_empty());
    let status = data
        .and_then(|d| u64_at(d, "statusCode"))
        .or_else(|| u64_at(e, "statusCode"));
    let mut text = match (name, message) {
        (Some(n), Some(m)) => format!("{n}: {m}"),
        (Some(n), None) => n.to_string(),
        (None, Some(m)) => m.to_string(),
        (None, None) => "error".to_string(),
    };
    if let Some(s) = status {
        let _ = write!(text, " (HTTP {s})");
    }
    (
        name.map_or(Cow::Borrowed("error"), Cow::Borrowed),
        text,
        status,
    )
}

/// A shell exit code (`metadata.exit`), integral floats accepted.
fn exit_code(x: Value<'_>) -> Option<i64> {
    x.as_i64().or_else(|| {
        let f = x.as_f64()?;
        #[allow(clippy::cast_possible_truncation)] // range checked
        ((-1e15..1e15).contains(&f) && f.fract() == 0.0).then_some(f as i64)
    })
}

/// A `task` call's output: `<task id=… state=…>\n<task_result>\n…\n</task_result>\n</task>`,
/// the report inside (the output as it is when it is not so wrapped).
fn task_report(output: &str) -> &str {
    output
        .starts_with("<task ")
        .then(|| output.split_once("<task_result>"))
        .flatten()
        .and_then(|(_, inner)| inner.rsplit_once("</task_result>"))
        .map_or(output, |(report, _)| report.trim())
}

/// Texts opencode puts in a tool error when the permission system said no.
fn is_denial(text: &str) -> bool {
    const MARKERS: [&str; 2] = [
        // RejectedError / CorrectedError (asked, and refused: always in `run`)
        "rejected permission to use this specific tool call",
        // DeniedError (a `deny` rule in the config)
        "specified a rule which prevents you from using this specific tool call",
    ];
    MARKERS.iter().any(|m| text.contains(m))
}

/// A finished call's outcome: whether it failed, and its output (the
/// error, or the output after the exit code of a failed command).
fn outcome<'v>(
    st: Option<Value<'v>>,
    name: &str,
    status: &str,
    a: &'v Arena,
) -> (bool, Content<'v>) {
    let output = st.and_then(|s| str_at(s, "output")).unwrap_or("");
    if status == "error" {
        let e = st.and_then(|s| get(s, "error"));
        let text = match e {
            Some(s) if s.into_string().is_some() => Cow::Borrowed(s.into_string().unwrap_or("")),
            Some(other) => json_in(other, a),
            None => Cow::Borrowed("tool error"),
        };
        (true, text.into())
    } else if name == "invalid" {
        // A call to a tool that does not exist, rewritten by opencode.
        (true, output.into())
    } else {
        let exit_status = st
            .and_then(|s| get(s, "metadata"))
            .and_then(|m| get(m, "exit"))
            .and_then(exit_code);
        match exit_status {
            Some(code) if code != 0 => {
                let mut t = format!("exit code {code}");
                if !output.trim().is_empty() {
                    t.push('\n');
                    t.push_str(output);
                }
                (true, t.into())
            }
            // A sub-agent's answer: its report, without the envelope.
            _ if name == "task" => (false, task_report(output).into()),
            _ => {
                let lazy = st.and_then(|s| get(s, "output")).and_then(content_of);
                (false, lazy.unwrap_or_default())
            }
        }
    }
}

fn tool_use<'v>(
    p: Value<'v>,
    a: &'v Arena,
    base: &Base<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let id: Cow<'v, str> = cow_at(p, "callID")
        .filter(|c| !c.is_empty())
        .or_else(|| cow_at(p, "id"))
        .unwrap_or_default();
    let name = str_at(p, "tool").unwrap_or("");
    let st = get(p, "state");
    let status = st.and_then(|s| str_at(s, "status")).unwrap_or("");
    let input = st.and_then(|s| get(s, "input"));
    let ran = (st.and_then(|s| get(s, "metadata")))
        .and_then(|m| str_at(m, "sessionId"))
        .filter(|c| !c.is_empty());
    if let Some(c) = ran
        && !state.children.contains_key(c)
    {
        state.children.insert(c.to_string(), id.to_string());
    }

    // The same call can be printed again (a redelivered part, or a running
    // state first in some forks): one call, one result.
    if state.calls.insert(&id) {
        emit(&base.event(EventKind::ToolCall(tool_call(
            id.clone(),
            name,
            input,
            cow_at(p, "messageID"),
            a,
        ))))?;
    }
    if !matches!(status, "completed" | "error") || !state.results.insert(&id) {
        return Ok(());
    }
    let (is_error, content) = outcome(st, name, status, a);
    let denied = status == "error" && is_denial(&content.text());
    if denied && base.parent.is_none() {
        state.denied_in_step = true;
    }
    let message = denied.then(|| Cow::Owned(content.text().into_owned()));
    emit(&base.event(EventKind::ToolResult(ToolResult {
        id: id.clone(),
        is_error,
        denied,
        content,
        answers: List::default(),
        changes: List::default(),
    })))?;
    if let Some(message) = message {
        emit(&base.event(EventKind::PermissionDenied(Denial {
            id: Some(id),
            tool: Some(Cow::Borrowed(name)),
            key_arg: input.and_then(|i| key_arg(name, i, a)),
            message: Some(message),
        })))?;
    }
    Ok(())
}

fn tool_call<'v>(
    id: Cow<'v, str>,
    name: &'v str,
    input: Option<Value<'v>>,
    message_id: Option<Cow<'v, str>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let mut call = ToolCall {
        id,
        name: Cow::Borrowed(name),
        kind: tool_kind(name),
        key_arg: input.and_then(|i| key_arg(name, i, a)),
        input: input.map(JsonText::value).unwrap_or_default(),
        todos: List::default(),
        questions: List::default(),
        changes: List::default(),
        changes_in_result: false,
        message_id,
    };
    if let Some(input) = input {
        match name {
            "todowrite" => {
                call.todos = super::args::todos_at(input, "todos", &["content"], a);
            }
            "question" => {
                call.questions = super::args::questions_at(input, "questions", &["question"], a);
            }
            "edit" => {
                call.changes =
                    super::args::replace_at(input, ["oldString", "newString", "replaceAll"], a);
            }
            "multiedit" => {
                call.changes = super::args::list(
                    a,
                    arr_at(input, "edits").iter().filter_map(|e| {
                        let keys = ["oldString", "newString", "replaceAll"];
                        let edit = super::args::replace_of(e, keys)?;
                        Some(FileChange { path: None, edit })
                    }),
                );
            }
            "write" => call.changes = super::args::write_at(input, "content", a),
            "patch" | "apply_patch" => call.changes = super::args::patch_at(input, "patchText", a),
            _ => {}
        }
    }
    call
}

/// What an `OpenCode` tool does. Its built-in tools are lowercase words
/// (`bash`, `read`…; `apply_patch` and `lsp_*` the only ones with an `_`),
/// and it names an MCP tool `<server>_<tool>`: any other name with an `_`
/// is taken for an MCP tool.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "bash" => ToolKind::Shell,
        "read" => ToolKind::Read,
        "write" => ToolKind::Write,
        "edit" | "multiedit" | "patch" | "apply_patch" => ToolKind::Edit,
        "glob" | "grep" | "list" | "codesearch" => ToolKind::Search,
        "webfetch" => ToolKind::Fetch,
        "websearch" => ToolKind::WebSearch,
        "task" => ToolKind::Agent,
        "todowrite" | "todoread" => ToolKind::Todo,
        n if n.contains('_') && !n.starts_with("lsp_") => ToolKind::Mcp,
        _ => ToolKind::Other,
    }
}

/// The one argument that says what an opencode tool call does.
fn key_arg<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(input, k).filter(|v| !v.is_empty());
    match name {
        "bash" => s("command"),
        "read" | "write" | "edit" | "multiedit" | "lsp_diagnostics" | "lsp_hover" => s("filePath")
            .or_else(|| s("file_path"))
            .or_else(|| s("path")),
        "glob" | "grep" => {
            let pattern = str_at(input, "pattern")?;
            let path = str_at(input, "path").filter(|p| !p.is_empty());
            let include = str_at(input, "include").filter(|g| !g.is_empty());
            Some(super::args::pattern_in(pattern, path, include, a))
        }
        "list" => s("path"),
        "webfetch" => s("url"),
        "websearch" | "codesearch" => s("query"),
        "todowrite" => {
            let n = arr_at(input, "todos").len();
            Some(super::args::items(n, a))
        }
        "todoread" => None,
        "task" => {
            let desc = str_at(input, "description").unwrap_or("");
            match str_at(input, "subagent_type").filter(|t| !t.is_empty()) {
                Some(t) if !desc.is_empty() => Some(text!(a, "{t}: {desc}")),
                Some(t) => Some(Cow::Borrowed(t)),
                None => (!desc.is_empty()).then_some(Cow::Borrowed(desc)),
            }
        }
        "skill" => s("name"),
        "patch" | "apply_patch" => str_at(input, "patchText")
            .and_then(|t| super::args::patch_files(t, a))
            .or_else(|| s("filePath")),
        "question" => arr_at(input, "questions")
            .first()
            .and_then(|q| cow_at(q, "question"))
            .or_else(|| s("question")),
        // A call to an unknown tool: the name the model asked for.
        "invalid" => s("tool"),
        // MCP tools (`<server>_<tool>`) and anything new: the first scalar.
        _ => super::args::first_scalar(input, true, a),
    }
}

pub(crate) mod store;

#[cfg(test)]
mod tests;
