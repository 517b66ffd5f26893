//! Grok CLI (`@vibe-kit/grok-cli` 0.0.34) `grok -p`.
//!
//! Not streamed: when the run ends it prints the whole conversation as
//! chat messages, one per line (`chat.rs`; see
//! `tests/fixtures/grok/README.md`), the prompt first. No usage, model,
//! times, session id or result line, and nothing says a tool failed:
//!
//! * A message with calls and no text has the placeholder `Using tools to
//!   help you...` as its content: not shown.
//! * A tool's result is its output or its error's text: a failure is told
//!   by the text Grok's tools begin their errors with (`Command failed:`,
//!   `File not found:`, `Unknown tool:`…).
//! * A failed request is an answer `Sorry, I encountered an error: …` (and
//!   Grok exits 0): shown as the error it is, and the session failed.
//! * The result is made at the end of the input: a success when the last
//!   message answers without calls, failed when that answer is an error,
//!   none (incomplete) when the run stopped with calls pending.

use std::borrow::Cow;
use std::io;

use super::args::{first_scalar, items, replace_at, todos_at, write_at};
use super::chat;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, start};
use crate::event::{
    Event, EventKind, Level, Notice, Producer, Role, SessionResult, SessionStart, Text, ToolCall,
    ToolKind, ToolResult,
};
use crate::json::{Arena, Parser, Value, arr_at, cow_at, str_at};

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
    /// That answer was an error (a failed request, the CLI's own).
    failed: bool,
    /// The calls of the last message with calls that run a shell command.
    shell_calls: Vec<String>,
    last_line: u64,
}

/// The content of a message with calls and no text of its own.
const PLACEHOLDER: &str = "Using tools to help you...";

/// How Grok answers when a request failed, or it did itself.
const FAILED: [&str; 2] = ["Sorry, I encountered an error: ", "Error: "];

/// The registry's line for Grok CLI.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Grok,
    name: "grok",
    label: "Grok CLI",
    invocation: "Grok CLI `-p` (`@vibe-kit/grok-cli`)",
    stream: start::<State>,
    format: &Grok,
    unsearched: &["tool_call_id"],
    unread: &[],
    store: None,
};

/// Grok CLI `grok -p` (the registry's entry).
pub(crate) struct Grok;

impl Format for Grok {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        let role = chat::role(s)?;
        let text = str_at(s.v, "content");
        match role {
            // Its placeholder, its failed request: above Kimi CLI's claim
            // of any answer.
            "assistant" if text.is_some_and(|t| t == PLACEHOLDER || t.starts_with(FAILED[0])) => {
                Some(Evidence::Session)
            }
            // The prompt, its first line, which Kimi CLI's stream does not
            // print (its other messages are alike: the first decides).
            "user" if text.is_some() => Some(Evidence::Hint),
            "tool" if text.is_some_and(|t| !t.starts_with("<system>")) => Some(Evidence::Hint),
            _ => None,
        }
    }

    fn opens(&self, _: Shape<'_>) -> bool {
        // A prompt may be any turn's: a second run printed after a first is
        // read as more turns of it.
        false
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.last_line = ctx.line;
        if !std::mem::replace(&mut self.started, true) {
            emit(&ctx.event(EventKind::SessionStart(SessionStart::default())))?;
        }
        match str_at(v, "role").unwrap_or("") {
            "user" => emit(&ctx.event(text(Role::User, cow_at(v, "content")))),
            "assistant" => self.assistant(v, ctx, emit),
            "tool" => {
                let id = cow_at(v, "tool_call_id").unwrap_or_default();
                let shell = self.shell_calls.iter().any(|c| *c == id);
                let content = cow_at(v, "content").unwrap_or_default();
                emit(&ctx.event(EventKind::ToolResult(ToolResult {
                    is_error: failed(&content, shell),
                    id,
                    content: content.into(),
                    ..ToolResult::default()
                })))
            }
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }

    /// End of input: the result, unless the run stopped with calls pending.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if !std::mem::take(&mut self.answered) {
            return Ok(());
        }
        let answer = std::mem::take(&mut self.answer);
        let res = SessionResult {
            is_error: self.failed,
            subtype: Some(Cow::Borrowed(if self.failed { "error" } else { "success" })),
            api_error_status: Some(answer.as_str())
                .filter(|_| self.failed)
                .and_then(api_status),
            text: Some(answer).filter(|a| !a.is_empty()).map(Cow::Owned),
            num_turns: Some(self.turns),
            ..SessionResult::default()
        };
        emit(&Event {
            producer: Producer::Grok,
            line: self.last_line,
            source: None,
            session: None,
            parent: None,
            time: None,
            kind: EventKind::Result(Box::new(res)),
        })
    }
}

impl State {
    fn assistant<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        self.turns += 1;
        let calls = arr_at(v, "tool_calls");
        let content = cow_at(v, "content").unwrap_or_default();
        self.answered = calls.is_empty();
        self.failed = false;
        self.answer.clear();
        if self.answered {
            let why = FAILED.iter().find_map(|p| content.strip_prefix(p));
            self.answer.push_str(why.unwrap_or(&content));
            if let Some(why) = why {
                self.failed = true;
                let notice = Notice {
                    subtype: Cow::Borrowed("api_error"),
                    level: Level::Error,
                    text: Cow::Borrowed(ctx.arena.copy(why)),
                    raw: Some(ctx.raw()),
                    estimate: false,
                };
                return emit(&ctx.event(EventKind::Notice(notice)));
            }
        }
        if !content.is_empty() && (content != PLACEHOLDER || calls.is_empty()) {
            emit(&ctx.event(text(Role::Assistant, Some(content))))?;
        }
        if !calls.is_empty() {
            self.shell_calls.clear();
        }
        for c in calls {
            self.call(c, ctx, emit)?;
        }
        Ok(())
    }

    fn call<'v>(&mut self, c: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let (id, name, raw) = chat::function(c);
        if name == "bash" {
            self.shell_calls.push(id.to_string());
        }
        chat::arguments(&mut self.args, raw, |args| {
            let call = call(id.clone(), name, args, raw, ctx.arena);
            emit(&ctx.event(EventKind::ToolCall(call)))
        })
    }
}

fn text(role: Role, text: Option<Cow<'_, str>>) -> EventKind<'_> {
    EventKind::Text(Text {
        role,
        text: text.unwrap_or_default(),
        message_id: None,
        command: None,
        continues: false,
    })
}

/// A tool's result that is its error's text (`shell`: a `bash` call's,
/// whose output may begin with anything else).
fn failed(content: &str, shell: bool) -> bool {
    const ANY: [&str; 2] = ["Unknown tool: ", "Tool execution error: "];
    const FILES: [&str; 6] = [
        "File not found: ",
        "File or directory not found: ",
        "Directory not found: ",
        "String not found",
        "Search error: ",
        "Error ",
    ];
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| content.starts_with(p));
    starts(&ANY)
        || if shell {
            content.starts_with("Command failed: ")
        } else {
            starts(&FILES)
        }
}

/// `… Grok API error: 500 mock internal error` → 500.
fn api_status(text: &str) -> Option<u64> {
    let (_, rest) = text.split_once("API error: ")?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    (digits.len() == 3).then(|| digits.parse().ok()).flatten()
}

/// A call of the Grok tool `name` with arguments `args` (`None`: not an
/// object, their text `raw` kept as its input).
fn call<'v>(
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
    call.key_arg = match name {
        "bash" => cow_at(args, "command"),
        "view_file" | "create_file" | "str_replace_editor" => cow_at(args, "path"),
        "search" => cow_at(args, "query"),
        _ => first_scalar(args, true, a),
    };
    match name {
        "create_todo_list" | "update_todo_list" => {
            let key = if name == "create_todo_list" {
                "todos"
            } else {
                "updates"
            };
            call.todos = todos_at(args, key, &["content"], a);
            call.key_arg = Some(items(call.todos.len(), a));
        }
        "create_file" => call.changes = write_at(args, "content", a),
        "str_replace_editor" => {
            call.changes = replace_at(args, ["old_str", "new_str", "replace_all"], a);
        }
        _ => {}
    }
    call
}

/// What a Grok CLI tool does.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "bash" => ToolKind::Shell,
        "view_file" => ToolKind::Read,
        "create_file" => ToolKind::Write,
        "str_replace_editor" => ToolKind::Edit,
        "search" => ToolKind::Search,
        "create_todo_list" | "update_todo_list" => ToolKind::Todo,
        n => super::args::mcp_or_other(n),
    }
}

#[cfg(test)]
mod tests;
