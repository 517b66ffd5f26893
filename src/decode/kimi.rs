//! Kimi CLI `kimi --print --output-format stream-json` (`kimi-cli` 1.51).
//!
//! One chat message per line, printed when it is whole (`chat.rs`; see
//! `tests/fixtures/kimi/README.md`): the assistant's, its `content` a
//! string or a list of `think` and `text` parts and its calls in
//! `tool_calls`; each call's result a `tool` message. No header, no usage,
//! no session id, no result line:
//!
//! * A tool's result says how it went first, `<system>…</system>`
//!   (`<system>ERROR: …</system>` when it failed), then gives its output.
//! * A call whose arguments still streamed when its message was printed
//!   has them cut short: read up to their last whole member (the saved
//!   session, `kimi_session.rs`, has them whole).
//! * A failed request is Python's exception text on stdout, not JSON,
//!   wrapped at 80 columns (`Error code: 500 - {…}`, `Connection error.`):
//!   read here (`Stream::plain_text`), shown once, and the session failed.
//! * The result is made at the end of the input: a success when the last
//!   message answers without calls, failed after an error's text, none
//!   (incomplete) when the run stopped with calls pending.
//!
//! Its saved `context.jsonl` holds the same messages with records of its
//! own (`_system_prompt`, `_checkpoint`, `_usage`): read too, those skipped.

use std::borrow::Cow;
use std::io;

use super::args::{first_scalar, items, list, pattern_in, replace_of, todos_at, write_at};
use super::chat;
use super::messages::content_text;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, start};
use crate::event::{
    Content, Event, EventKind, FileChange, Level, List, Notice, Producer, Role, SessionResult,
    SessionStart, Text, Thinking, ToolCall, ToolKind, ToolResult,
};
use crate::json::{Arena, Parser, Value, arr_at, cow_at, get, str_at};

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// Parses the JSON text of a call's `arguments`, in reused memory.
    args: Parser,
    /// The session's header was given.
    started: bool,
    /// The model's responses so far.
    turns: u64,
    /// The last message answered without calls: the run ended there.
    answered: bool,
    /// That answer's text, the result's.
    answer: String,
    /// Text printed in place of messages (a failed request), not shown yet.
    said: String,
    /// The width of its last line, in characters.
    said_width: usize,
    /// The failure shown, while no message came after it.
    failure: Option<String>,
    last_line: u64,
}

/// The width at which Kimi's console wraps the text it prints.
const WRAP: usize = 80;

/// How a tool's result begins.
const SYSTEM: &str = "<system>";

/// The registry's line for Kimi CLI.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Kimi,
    name: "kimi",
    label: "Kimi CLI",
    invocation: "Kimi CLI `--print --output-format stream-json`",
    stream: start::<State>,
    format: &Kimi,
    unsearched: &["tool_call_id"],
    unread: &[],
    store: None,
};

/// Kimi CLI `--print --output-format stream-json` (the registry's entry).
pub(crate) struct Kimi;

impl Format for Kimi {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        let role = chat::role(s)?;
        let content = get(s.v, "content");
        let kimi = match role {
            "_system_prompt" | "_checkpoint" | "_usage" => return Some(Evidence::Type),
            // Any: Grok CLI prints the prompt first, which claims its
            // stream, and its own answers claim them more strongly.
            "assistant" => true,
            "tool" => content.is_some_and(|c| {
                c.as_array().is_some() || c.into_string().is_some_and(|t| t.starts_with(SYSTEM))
            }),
            _ => false,
        };
        kimi.then_some(Evidence::Hint)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        chat::role(s) == Some("_system_prompt")
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.last_line = ctx.line;
        self.start(ctx, emit)?;
        self.show_failure(emit)?;
        match str_at(v, "role").unwrap_or("") {
            "assistant" => self.assistant(v, ctx, emit),
            "tool" => emit(&ctx.event(EventKind::ToolResult(result(v, ctx.arena)))),
            "user" => {
                let text = get(v, "content").map(|c| content_text(c, ctx.arena));
                emit(&ctx.event(EventKind::Text(Text {
                    role: Role::User,
                    text: text.unwrap_or_default(),
                    message_id: None,
                    command: None,
                    continues: false,
                })))
            }
            // The saved context's own records.
            "_system_prompt" | "_checkpoint" | "_usage" => Ok(()),
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    fn plain_text(
        &mut self,
        text: &str,
        ctx: &Ctx<'_>,
        emit: &mut Emit<'_>,
    ) -> Option<io::Result<()>> {
        self.last_line = ctx.line;
        if let Err(e) = self.start(ctx, emit) {
            return Some(Err(e));
        }
        // A line as wide as the console went on on the next.
        if !self.said.is_empty() && self.said_width != WRAP {
            self.said.push('\n');
        }
        self.said.push_str(text);
        self.said_width = text.chars().count();
        Some(Ok(()))
    }

    /// End of input: the result, unless the run stopped with calls pending.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        self.show_failure(emit)?;
        if !self.answered && self.failure.is_none() {
            return Ok(());
        }
        self.answered = false;
        let failure = self.failure.take();
        let answer = std::mem::take(&mut self.answer);
        let res = SessionResult {
            is_error: failure.is_some(),
            subtype: Some(Cow::Borrowed(if failure.is_some() {
                "error"
            } else {
                "success"
            })),
            api_error_status: failure.as_deref().and_then(api_status),
            text: failure
                .or(Some(answer).filter(|a| !a.is_empty()))
                .map(Cow::Owned),
            num_turns: Some(self.turns),
            ..SessionResult::default()
        };
        emit(&self.event(EventKind::Result(Box::new(res))))
    }
}

impl State {
    /// An event of the line last read, made outside of it.
    fn event<'v>(&self, kind: EventKind<'v>) -> Event<'v> {
        Event {
            producer: Producer::Kimi,
            line: self.last_line,
            source: None,
            session: None,
            parent: None,
            time: None,
            kind,
        }
    }

    /// The session's header, before its first line: Kimi prints none.
    fn start(&mut self, ctx: &Ctx<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        if std::mem::replace(&mut self.started, true) {
            return Ok(());
        }
        emit(&ctx.event(EventKind::SessionStart(SessionStart::default())))
    }

    /// The text printed in place of messages, shown as the error it is.
    fn show_failure(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if self.said.is_empty() {
            return Ok(());
        }
        let text = std::mem::take(&mut self.said);
        let notice = Notice {
            subtype: Cow::Borrowed("api_error"),
            level: Level::Error,
            text: Cow::Borrowed(&text),
            raw: None,
            estimate: false,
        };
        emit(&self.event(EventKind::Notice(notice)))?;
        self.failure = Some(text);
        Ok(())
    }

    fn assistant<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        self.turns += 1;
        // The run went on after an error's text.
        self.failure = None;
        let calls = arr_at(v, "tool_calls");
        self.answered = calls.is_empty();
        self.answer.clear();
        let content = get(v, "content");
        let parts = arr_at(v, "content");
        let whole = content
            .and_then(Value::into_string)
            .and_then(|t| said("text", Cow::Borrowed(t)));
        let parts = parts.iter().filter_map(|p| {
            let ty = str_at(p, "type")?;
            said(ty, cow_at(p, ty)?)
        });
        for kind in whole.into_iter().chain(parts) {
            if let EventKind::Text(t) = &kind {
                self.answer.clear();
                self.answer.push_str(&t.text);
            }
            emit(&ctx.event(kind))?;
        }
        if !self.answered {
            self.answer.clear();
        }
        for c in calls {
            self.call(c, ctx, emit)?;
        }
        Ok(())
    }

    /// A call of `tool_calls`, its arguments parsed (cut short, closed).
    fn call<'v>(&mut self, c: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let (id, name, raw) = chat::function(c);
        chat::arguments(&mut self.args, raw, |args| {
            let call = call(id.clone(), name, args, raw, ctx.arena);
            emit(&ctx.event(EventKind::ToolCall(call)))
        })
    }
}

/// An assistant part as its event: `text` or `think` (`None`: empty, or
/// another part).
fn said<'v>(ty: &str, text: Cow<'v, str>) -> Option<EventKind<'v>> {
    if text.is_empty() {
        return None;
    }
    Some(match ty {
        "text" => EventKind::Text(Text {
            role: Role::Assistant,
            text,
            message_id: None,
            command: None,
            continues: false,
        }),
        "think" => EventKind::Thinking(Thinking {
            text,
            redacted: false,
            message_id: None,
        }),
        _ => return None,
    })
}

/// `Error code: 500 - {…}` → 500.
fn api_status(text: &str) -> Option<u64> {
    let rest = text.strip_prefix("Error code: ")?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    (digits.len() == 3).then(|| digits.parse().ok()).flatten()
}

/// A `tool` message's result: its `<system>` message and its output.
fn result<'v>(v: Value<'v>, a: &'v Arena) -> ToolResult<'v> {
    let content = get(v, "content");
    let parts = arr_at(v, "content");
    let first = match content.and_then(Value::into_string) {
        Some(s) => s,
        None => parts.first().and_then(|p| str_at(p, "text")).unwrap_or(""),
    };
    let (message, output) = match system_message(first) {
        // The rest of the string, or the other parts.
        Some((m, rest)) if parts.is_empty() => (m, Cow::Borrowed(rest)),
        Some((m, _)) => {
            let mut out = a.text();
            for p in parts.iter().skip(1) {
                out.push_str(str_at(p, "text").unwrap_or(""));
            }
            (m, Cow::Borrowed(out.done()))
        }
        None => ("", content.map(|c| content_text(c, a)).unwrap_or_default()),
    };
    let failed = message.strip_prefix("ERROR:").map(str::trim_start);
    ToolResult {
        id: cow_at(v, "tool_call_id").unwrap_or_default(),
        is_error: failed.is_some(),
        content: shown(failed.is_some(), failed.unwrap_or(message), output, a),
        ..ToolResult::default()
    }
}

/// `<system>message</system>rest` → `(message, rest)`.
fn system_message(s: &str) -> Option<(&str, &str)> {
    s.strip_prefix(SYSTEM)?.split_once("</system>")
}

/// What a tool's result shows: a failure's message (`Command failed with
/// exit code: 3.`) then its output; else the output, or the message when
/// there is none (`File successfully overwritten…`).
pub(super) fn shown<'v>(
    is_error: bool,
    message: &'v str,
    output: Cow<'v, str>,
    a: &'v Arena,
) -> Content<'v> {
    let text = if output.is_empty() {
        Cow::Borrowed(message)
    } else if is_error && !message.is_empty() {
        text!(a, "{message}\n{output}")
    } else {
        output
    };
    text.into()
}

/// A call of the Kimi tool `name` with arguments `args` (`None`: not an
/// object, their text `raw` kept as its input).
pub(super) fn call<'v>(
    id: Cow<'v, str>,
    name: &'v str,
    args: Option<Value<'v>>,
    raw: Option<Value<'v>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let mut call = super::chat::call(id, name, tool_kind(name), args, raw);
    let Some(args) = args else {
        return call;
    };
    call.key_arg = key_arg(name, args, a);
    match name {
        "SetTodoList" => {
            call.todos = todos_at(args, "todos", &["title", "content"], a);
            call.key_arg = Some(items(call.todos.len(), a));
        }
        // Appending is no whole file.
        "WriteFile" if str_at(args, "mode") != Some("append") => {
            call.changes = write_at(args, "content", a);
        }
        "StrReplaceFile" => call.changes = edits(args, a),
        _ => {}
    }
    call
}

/// What a Kimi CLI tool does.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Shell" => ToolKind::Shell,
        "ReadFile" | "ReadMediaFile" => ToolKind::Read,
        "WriteFile" => ToolKind::Write,
        "StrReplaceFile" => ToolKind::Edit,
        "Glob" | "Grep" => ToolKind::Search,
        "FetchURL" => ToolKind::Fetch,
        "SearchWeb" => ToolKind::WebSearch,
        "Task" => ToolKind::Agent,
        "SetTodoList" => ToolKind::Todo,
        n => super::args::mcp_or_other(n),
    }
}

/// The one argument that says what a Kimi CLI tool call does.
fn key_arg<'v>(name: &str, args: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| str_at(args, k);
    match name {
        "Shell" => cow_at(args, "command"),
        "ReadFile" | "ReadMediaFile" | "WriteFile" | "StrReplaceFile" => cow_at(args, "path"),
        "Glob" => s("pattern").map(|p| pattern_in(p, s("directory"), None, a)),
        "Grep" => s("pattern").map(|p| pattern_in(p, s("path"), s("glob"), a)),
        "FetchURL" => cow_at(args, "url"),
        "SearchWeb" => cow_at(args, "query"),
        "Task" => cow_at(args, "description"),
        _ => first_scalar(args, true, a),
    }
}

/// `StrReplaceFile`'s `edit`: one `{old, new, replace_all}` or a list.
fn edits<'v>(args: Value<'v>, a: &'v Arena) -> List<'v, FileChange<'v>> {
    let change = |e: Value<'v>| {
        replace_of(e, ["old", "new", "replace_all"]).map(|edit| FileChange { path: None, edit })
    };
    match get(args, "edit") {
        Some(e) if e.is_object() => list(a, change(e)),
        Some(_) => list(a, arr_at(args, "edit").iter().filter_map(change)),
        None => List::default(),
    }
}

#[cfg(test)]
mod tests;
