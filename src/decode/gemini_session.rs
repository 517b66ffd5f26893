//! Gemini CLI's saved sessions: `~/.gemini/tmp/<project>/chats/session-*.jsonl`
//! (0.61 and later), and the one JSON document per session that earlier
//! versions wrote, `chats/session-*.json` (read as one line: see
//! `input::document`).
//!
//! The file is a log of *records* to be replayed (see
//! `tests/fixtures/gemini-session/README.md`): a header
//! `{sessionId, projectHash, startTime, lastUpdated, kind}`; message records
//! upserted by `id` (every model turn with tool calls is written twice, the
//! second time with its `toolCalls`); `{"$set": {"messages": […]}}`, which
//! replaces the whole list; `{"$rewindTo": id}`, which drops that message
//! and every later one. So nothing can be written before the file ends:
//! each record's events are held, replaced or dropped as the log says, and
//! [`State::finish`] writes the final conversation in order, then a result
//! rebuilt from it (tokens of each model turn once, turns, duration).
//!
//! * `gemini` records carry that API call's `tokens` (`input` is the whole
//!   prompt, `cached` its cached part; `thoughts` are not in `output`, as
//!   the stream's own totals leave them out) and `model`.
//! * A tool's result is inside its call (`toolCalls[].result`); the `user`
//!   record after it repeats it as history sent back, and is not shown
//!   twice. A shell result is framed (`Output: …\nExit Code: N`): a
//!   non-zero exit is a failure (the CLI says `success`).
//! * The first user message is the CLI's `<session_context>`: a debug
//!   notice, not a prompt.
//! * API errors leave no trace in the file: a replay cannot tell.
//! * A sub-agent's file (`chats/<parent session id>/<id>.jsonl`, header
//!   `kind: "subagent"`) is a session of its own.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;

use super::args::content_of;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use crate::event::{
    Content, Event, EventKind, Level, Notice, Producer, Role, SessionResult, SessionStart, Text,
    Thinking, Tokens, ToolResult, Unknown, Usage,
};
use crate::json::{Arena, J, Value, arr_at, cow_at, get, str_at, u64_at, view};
use crate::time::Timestamp;

/// The registry's line for Gemini CLI's saved sessions.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::GeminiSession,
    name: "gemini-session",
    label: "Gemini CLI session",
    invocation: "Gemini CLI's saved sessions (~/.gemini/tmp/<project>/chats/session-*.jsonl, .json)",
    stream: start::<State>,
    format: &GeminiSession,
    unsearched: &["projectHash", "startTime", "lastUpdated", "$rewindTo"],
    unread: &[],
    store: Some(Store {
        home: "",
        moved_by: &["GEMINI_CLI_HOME"],
        sessions: ".gemini/tmp",
        database: None,
        reader: None,
    }),
};

/// Gemini CLI's session files (the registry's entry).
pub(crate) struct GeminiSession;

impl Format for GeminiSession {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // A header has no `type`: other lines are not searched for its keys
        // (asked of every line of every stream, see `registry::opener`).
        let own = (s.ty.is_empty() && is_header(s.v))
            || (s.ty.is_empty() && (has(s.v, "$set") || has(s.v, "$rewindTo")))
            || (s.ty == "gemini" && has(s.v, "id") && (has(s.v, "tokens") || has(s.v, "thoughts")));
        own.then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty.is_empty() && is_header(s.v)
    }
}

/// A session's header (or the whole session, in the older one-document
/// form): its id and project hash, and no `type`.
fn is_header(v: Value<'_>) -> bool {
    has(v, "sessionId") && has(v, "projectHash") && !has(v, "type")
}

/// Per-stream state: the conversation as replayed so far.
#[derive(Default)]
pub(crate) struct State {
    /// The header's session id.
    session: Option<String>,
    /// The header says `kind: "subagent"`.
    subagent: bool,
    /// When the header says the session started.
    started: Option<Timestamp>,
    /// The messages, in order, each with its events.
    records: Vec<Record>,
    /// Message id → its place in `records`.
    index: HashMap<String, usize>,
    /// The last line read.
    last_line: u64,
}

/// One message record and what it showed.
struct Record {
    id: String,
    events: Vec<Event<'static>>,
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.last_line = ctx.line;
        if is_header(v) {
            // A second session concatenated after the first: the first ends.
            if self.session.is_some() {
                self.finish(emit)?;
            }
            self.header(v);
            if let Some(messages) = get(v, "messages") {
                self.set_messages(messages, ctx);
            }
            return Ok(());
        }
        if let Some(set) = get(v, "$set") {
            if let Some(messages) = get(set, "messages") {
                self.set_messages(messages, ctx);
            }
            return Ok(());
        }
        if let Some(id) = get(v, "$rewindTo") {
            let at = id.into_string().and_then(|id| self.index.get(id).copied());
            self.rewind(at.unwrap_or(self.records.len()));
            return Ok(());
        }
        if has(v, "id") && has(v, "type") {
            self.upsert(v, ctx);
            return Ok(());
        }
        let held = held(self.session.as_deref(), ctx, |emit| {
            super::producer::unknown_line(v, ctx, emit)
        });
        self.records.push(Record {
            id: String::new(),
            events: held,
        });
        Ok(())
    }

    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(session) = self.session.take() else {
            return Ok(());
        };
        let records = std::mem::take(&mut self.records);
        self.index.clear();
        let events = records.iter().flat_map(|r| &r.events);
        let sum = Summary::of(events.clone());
        let base = Event {
            producer: Producer::GeminiSession,
            line: records
                .first()
                .and_then(|r| r.events.first())
                .map_or(1, |e| e.line),
            source: None,
            session: Some(Cow::Borrowed(&session)),
            parent: None,
            time: self.started.or(sum.first),
            kind: EventKind::SessionStart(SessionStart {
                model: sum.model.clone(),
                agent_mode: self.subagent.then_some(Cow::Borrowed("subagent")),
                ..SessionStart::default()
            }),
        };
        emit(&base)?;
        for ev in events {
            emit(ev)?;
        }
        if sum.turns == 0 {
            // A failed first request leaves the file without an answer (and
            // rewrites the prompt away): no outcome to say.
            return emit(&Event {
                line: self.last_line,
                kind: EventKind::Notice(Notice {
                    subtype: Cow::Borrowed("no_answer"),
                    level: Level::Warning,
                    text: Cow::Borrowed(
                        "the session file holds no answer of the model (a failed request leaves no trace in it)",
                    ),
                    raw: None,
                    estimate: false,
                }),
                ..base
            });
        }
        emit(&Event {
            line: self.last_line,
            time: sum.last.or(base.time),
            kind: EventKind::Result(Box::new(sum.result())),
            ..base
        })
    }
}

impl State {
    fn header(&mut self, v: Value<'_>) {
        self.session = str_at(v, "sessionId").map(str::to_string);
        self.subagent = str_at(v, "kind") == Some("subagent");
        self.started = str_at(v, "startTime").and_then(Timestamp::parse);
        self.records.clear();
        self.index.clear();
    }

    /// `$set.messages` (or the one document's `messages`): the whole list.
    fn set_messages(&mut self, messages: Value<'_>, ctx: &Ctx<'_>) {
        self.rewind(0);
        if let J::Arr(list) = view(messages) {
            for m in list {
                self.upsert(m, ctx);
            }
        }
    }

    /// Drop the record at `at` and every later one.
    fn rewind(&mut self, at: usize) {
        for r in self.records.drain(at.min(self.records.len())..) {
            self.index.remove(&r.id);
        }
    }

    /// A message record: its events replace those of the same id, or
    /// come last.
    fn upsert(&mut self, m: Value<'_>, ctx: &Ctx<'_>) {
        let Some(id) = str_at(m, "id") else { return };
        let time = str_at(m, "timestamp").and_then(Timestamp::parse);
        let ctx = Ctx {
            line: ctx.line,
            raw: ctx.raw,
            producer: ctx.producer,
            arena: ctx.arena,
            time,
            skipping: ctx.skipping,
        };
        let events = held(self.session.as_deref(), &ctx, |emit| message(m, &ctx, emit));
        if let Some(&at) = self.index.get(id) {
            self.records[at].events = events;
            return;
        }
        self.index.insert(id.to_string(), self.records.len());
        self.records.push(Record {
            id: id.to_string(),
            events,
        });
    }
}

/// The events `f` emits, owned, with the session id.
fn held(
    session: Option<&str>,
    ctx: &Ctx<'_>,
    f: impl FnOnce(&mut Emit<'_>) -> io::Result<()>,
) -> Vec<Event<'static>> {
    let mut out = Vec::new();
    // Collecting cannot fail.
    let _ = f(&mut |ev: &Event<'_>| {
        let mut ev = ev.to_owned_event();
        ev.producer = ctx.producer;
        ev.session = session.map(|s| Cow::Owned(s.to_string()));
        out.push(ev);
        Ok(())
    });
    out
}

/// One message record's events.
fn message<'v>(m: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let ev = |kind| Event {
        producer: ctx.producer,
        line: ctx.line,
        source: None,
        session: None,
        parent: None,
        time: ctx.time,
        kind,
    };
    match str_at(m, "type").unwrap_or("") {
        "user" => user(m, ctx.arena, &mut |k| emit(&ev(k))),
        "gemini" => gemini(m, ctx.arena, &mut |k| emit(&ev(k))),
        t @ ("info" | "warning" | "error") => emit(&ev(EventKind::Notice(Notice {
            subtype: Cow::Borrowed(t),
            level: match t {
                "error" => Level::Error,
                "warning" => Level::Warning,
                _ => Level::Info,
            },
            text: content_text(get(m, "content"), ctx.arena),
            raw: Some(m.encode_in(ctx.arena).into()),
            estimate: false,
        }))),
        t => emit(&ev(EventKind::Unknown(Unknown {
            type_name: text!(ctx.arena, "message/{t}"),
            raw: m.encode_in(ctx.arena).into(),
        }))),
    }
}

/// What an event is made of, before its envelope.
type Kinds<'k, 'v> = dyn FnMut(EventKind<'v>) -> io::Result<()> + 'k;

/// A `user` record: its text parts (a prompt, or the CLI's
/// `<session_context>`); its `functionResponse` parts repeat the results
/// already shown with their calls.
fn user<'v>(m: Value<'v>, a: &'v Arena, out: &mut Kinds<'_, 'v>) -> io::Result<()> {
    let text = content_text(get(m, "content"), a);
    if text.is_empty() {
        return Ok(());
    }
    if text.trim_start().starts_with("<session_context>") {
        return out(EventKind::Notice(Notice {
            subtype: Cow::Borrowed("session_context"),
            level: Level::Debug,
            text: Cow::Borrowed("session context (date, OS, workspace, files)"),
            raw: None,
            estimate: false,
        }));
    }
    out(EventKind::Text(Text {
        role: Role::User,
        text,
        message_id: None,
        command: None,
        continues: false,
    }))
}

/// The text of a `content`: a string, or the `text` of its parts.
fn content_text<'v>(c: Option<Value<'v>>, a: &'v Arena) -> Cow<'v, str> {
    match c.map(view) {
        Some(J::Str(s)) => Cow::Borrowed(s),
        Some(J::Arr(parts)) => {
            let texts = parts.iter().filter_map(|p| str_at(p, "text"));
            a.join(texts, "\n").map_or(Cow::Borrowed(""), Cow::Borrowed)
        }
        _ => Cow::Borrowed(""),
    }
}

/// A `gemini` record: its thoughts, its usage, its answer, its tool calls
/// with their results.
fn gemini<'v>(m: Value<'v>, a: &'v Arena, out: &mut Kinds<'_, 'v>) -> io::Result<()> {
    let id = cow_at(m, "id");
    if let Some(text) = thoughts(m, a) {
        out(EventKind::Thinking(Thinking {
            text,
            redacted: false,
            message_id: id.clone(),
        }))?;
    }
    if let Some(t) = get(m, "tokens") {
        out(EventKind::Usage(Usage {
            message_id: id.clone(),
            model: cow_at(m, "model"),
            tokens: tokens(t),
            ..Usage::default()
        }))?;
    }
    let text = content_text(get(m, "content"), a);
    if !text.is_empty() {
        out(EventKind::Text(Text {
            role: Role::Assistant,
            text,
            message_id: id.clone(),
            command: None,
            continues: false,
        }))?;
    }
    for c in arr_at(m, "toolCalls") {
        let name = str_at(c, "name").unwrap_or("");
        let call_id = cow_at(c, "id").unwrap_or_default();
        let mut call = super::gemini::call(call_id, name, get(c, "args"), a);
        call.message_id.clone_from(&id);
        out(EventKind::ToolCall(call))?;
        if let Some(r) = tool_result(c, name, a) {
            out(EventKind::ToolResult(r))?;
        }
    }
    Ok(())
}

/// The thoughts as they streamed, joined (a thought may be cut mid-word
/// between two of them); a subject as a heading.
fn thoughts<'v>(m: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let list = arr_at(m, "thoughts");
    if list.len() == 1
        && let Some(only) = list.first()
        && str_at(only, "subject").is_none_or(str::is_empty)
    {
        return cow_at(only, "description").filter(|d| !d.is_empty());
    }
    let mut t = a.text();
    for th in list {
        if let Some(s) = str_at(th, "subject").filter(|s| !s.is_empty()) {
            let _ = write!(t, "**{s}** ");
        }
        t.push_str(str_at(th, "description").unwrap_or(""));
    }
    let t = t.done();
    (!t.is_empty()).then_some(Cow::Borrowed(t))
}

/// `tokens`: `input` is the whole prompt, `cached` its cached part.
fn tokens(t: Value<'_>) -> Tokens {
    let cached = u64_at(t, "cached");
    Tokens {
        input: u64_at(t, "input").map(|i| i.saturating_sub(cached.unwrap_or(0))),
        output: u64_at(t, "output"),
        cache_read: cached,
        cache_creation: None,
        // Beside `output`, not in it (`total` is the sum of the three).
        reasoning: u64_at(t, "thoughts"),
    }
}

/// A call's result, from its `result[].functionResponse.response`
/// (`output` or `error`) and `status`; `None` while it has none.
fn tool_result<'v>(c: Value<'v>, name: &str, a: &'v Arena) -> Option<ToolResult<'v>> {
    let response = arr_at(c, "result")
        .iter()
        .find_map(|r| get(r, "functionResponse").and_then(|f| get(f, "response")));
    let status = str_at(c, "status");
    if response.is_none() && status.is_none() {
        return None;
    }
    let error = response.and_then(|r| get(r, "error"));
    let output = response.and_then(|r| get(r, "output"));
    let mut is_error = status == Some("error") || error.is_some();
    let content = match (error, output) {
        (Some(e), _) => match e.into_string() {
            Some(s) => Content::from(s),
            None => cow_at(e, "message").map(Content::from).unwrap_or_default(),
        },
        (None, Some(o)) => match o.into_string().and_then(|s| shell_frame(name, s)) {
            Some(f) => {
                let failed = f.exit_code.is_some_and(|c| c != 0);
                is_error |= failed;
                Content::from(super::qwen::shell::content(&f, failed, a))
            }
            None => content_of(o).unwrap_or_default(),
        },
        (None, None) => cow_at(c, "resultDisplay")
            .map(Content::from)
            .unwrap_or_default(),
    };
    Some(ToolResult {
        id: cow_at(c, "id").unwrap_or_default(),
        is_error,
        denied: false,
        content,
        answers: crate::event::List::default(),
        changes: crate::event::List::default(),
    })
}

/// A shell command's result as the CLI frames it:
/// `<untrusted_context>\nOutput: …\nExit Code: N\n…</untrusted_context>`.
fn shell_frame<'t>(name: &str, s: &'t str) -> Option<super::qwen::shell::Frame<'t>> {
    if name != "run_shell_command" {
        return None;
    }
    let s = s.trim();
    let s = s
        .strip_prefix("<untrusted_context>")
        .and_then(|s| s.strip_suffix("</untrusted_context>"))
        .unwrap_or(s)
        .trim();
    super::qwen::shell::parse_output(s)
}

/// What the result rebuilt at the end says, from the events replayed.
#[derive(Default)]
struct Summary {
    model: Option<Cow<'static, str>>,
    tokens: Tokens,
    turns: u64,
    text: Option<Cow<'static, str>>,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

impl Summary {
    fn of<'e>(events: impl Iterator<Item = &'e Event<'static>>) -> Summary {
        let mut s = Summary::default();
        for ev in events {
            s.first = s.first.or(ev.time);
            s.last = ev.time.or(s.last);
            match &ev.kind {
                EventKind::Usage(u) => {
                    s.turns += 1;
                    s.tokens.add(&u.tokens);
                    if s.model.is_none() {
                        s.model.clone_from(&u.model);
                    }
                }
                EventKind::Text(t) if t.role == Role::Assistant => s.text = Some(t.text.clone()),
                _ => {}
            }
        }
        s
    }

    fn result(self) -> SessionResult<'static> {
        let duration_ms = Timestamp::ms_between(self.first, self.last);
        SessionResult {
            subtype: Some(Cow::Borrowed("success")),
            text: self.text,
            num_turns: Some(self.turns),
            duration_ms,
            tokens: self.tokens,
            ..SessionResult::default()
        }
    }
}

#[cfg(test)]
mod tests;
