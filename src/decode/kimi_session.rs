//! Kimi CLI's saved sessions: `~/.kimi/sessions/<md5 of the working
//! folder>/<session id>/wire.jsonl` (`$KIMI_SHARE_DIR` for `~/.kimi`), one
//! session per folder.
//!
//! The wire log (see `tests/fixtures/kimi-session/README.md`): a first line
//! `{type: "metadata", protocol_version}`, then `{timestamp, message: {type,
//! payload}}`, its time in seconds since the epoch (a float, where other
//! producers write milliseconds: read here, never as `ctx.time`).
//!
//! * `TurnBegin` (the prompt) … `TurnEnd` is a turn; its result is made at
//!   its end: its steps (`StepBegin`, one per model call), duration and
//!   tokens (each call's `StatusUpdate.token_usage`: `input_other`, the
//!   uncached input, `input_cache_read`, `input_cache_creation`, `output`).
//!   It failed when a step was interrupted (`StepInterrupted`, after the
//!   `StepRetry`s of a failed request), which the wire log says without
//!   the error's text.
//! * `ContentPart` (`think`, `text`), `ToolCall` and `ToolResult`
//!   (`is_error`, Kimi's `message`, the `output`) read as the stream's.
//! * A call's arguments may come in pieces, `ToolCallPart`s after its
//!   `ToolCall` (even after another call's result): the call is held until
//!   they are whole, or its result or the step's end comes.
//! * `context.jsonl` beside it holds the same conversation (the walk leaves
//!   it out: `kimi_session/store.rs`), `state.json` its title and todos
//!   (not read). No model, working folder or session id is in the wire
//!   log: the folder is `kimi.json`'s whose MD5 names the session's group,
//!   put in the first line as `cwd` when the library opens the file
//!   (`kimi_session/store.rs`).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use super::chat;
use super::kimi::{call, shown};
use super::messages::content_text;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, start};
use crate::event::{
    Event, EventKind, Level, Notice, Producer, Role, SessionResult, SessionStart, Text, Thinking,
    Tokens, ToolResult, Unknown, Usage,
};
use crate::json::{Parser, Value, bool_at, cow_at, f64_at, get, str_at, u64_at};
use crate::time::Timestamp;

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// Parses the JSON text of a call's `arguments`, in reused memory.
    args: Parser,
    /// A call whose arguments are not whole yet.
    held: Option<Held>,
    /// The turn in progress.
    turn: Turn,
    /// The last line read.
    line: u64,
}

/// A call held until its arguments are whole.
struct Held {
    id: String,
    name: String,
    arguments: String,
}

/// What a turn's result will say.
#[derive(Default)]
struct Turn {
    began: Option<Timestamp>,
    steps: u64,
    tokens: Tokens,
    /// Its last answer.
    answer: String,
    /// Why its last step failed, while no step came after it.
    failure: Option<String>,
    /// The HTTP status of its last failed request.
    status: Option<u64>,
}

/// The registry's line for Kimi CLI's saved sessions.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::KimiSession,
    name: "kimi-session",
    label: "Kimi CLI",
    invocation: "Kimi CLI session files (`~/.kimi/sessions/…/wire.jsonl`)",
    stream: start::<State>,
    format: &KimiSession,
    unsearched: &["timestamp"],
    unread: &[],
    store: Some(Store {
        home: ".kimi",
        moved_by: &["KIMI_SHARE_DIR"],
        sessions: "sessions",
        database: None,
        reader: Some(&store::Kimi),
    }),
};

/// Kimi CLI's `wire.jsonl` (the registry's entry).
pub(crate) struct KimiSession;

/// The message types of its lines.
const TYPES: [&str; 10] = [
    "TurnBegin",
    "TurnEnd",
    "StepBegin",
    "StepRetry",
    "StepInterrupted",
    "ContentPart",
    "ToolCall",
    "ToolCallPart",
    "ToolResult",
    "StatusUpdate",
];

impl Format for KimiSession {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        let header = s.ty == "metadata" && s.v.get("protocol_version").is_some();
        let message = s.ty.is_empty()
            && f64_at(s.v, "timestamp").is_some()
            && get(s.v, "message")
                .is_some_and(|m| TYPES.contains(&str_at(m, "type").unwrap_or("")));
        (header || message).then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "metadata" && s.v.get("protocol_version").is_some()
    }
}

/// The time of a line: seconds since the epoch, to the nearest millisecond.
fn seconds(v: Value<'_>) -> Option<Timestamp> {
    Timestamp::from_epoch_number((f64_at(v, "timestamp")? * 1000.0).round())
}

/// An event of this line, at its time.
fn at<'v>(ctx: &Ctx<'v>, time: Option<Timestamp>, kind: EventKind<'v>) -> Event<'v> {
    Event {
        time,
        ..ctx.event(kind)
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let time = seconds(v);
        self.line = ctx.line;
        if str_at(v, "type") == Some("metadata") {
            *self = State::default();
            // The working folder, when the library found it (`kimi.json`:
            // `kimi_session/store.rs`).
            let start = SessionStart {
                cwd: cow_at(v, "cwd"),
                ..SessionStart::default()
            };
            return emit(&at(ctx, time, EventKind::SessionStart(start)));
        }
        let m = get(v, "message");
        let ty = m.and_then(|m| str_at(m, "type")).unwrap_or("");
        let p = m.and_then(|m| get(m, "payload")).unwrap_or(v);
        let e: &mut Give<'_> = &mut |kind: EventKind<'_>| emit(&at(ctx, time, kind));
        match ty {
            "TurnBegin" => self.turn_begin(p, time, ctx, e),
            "StepBegin" => {
                self.release(ctx, e)?;
                self.turn.steps += 1;
                self.turn.failure = None;
                self.turn.status = None;
                Ok(())
            }
            "ContentPart" => self.part(p, e),
            "ToolCall" => {
                self.release(ctx, e)?;
                self.tool_call(p, ctx, e)
            }
            "ToolCallPart" => self.tool_call_part(p, ctx, e),
            "ToolResult" => self.tool_result(p, ctx, e),
            "StatusUpdate" => {
                self.release(ctx, e)?;
                self.usage(p, e)
            }
            "StepRetry" => self.retry(p, ctx, e),
            "StepInterrupted" => {
                self.release(ctx, e)?;
                self.interrupted(ctx, e)
            }
            "TurnEnd" => {
                self.release(ctx, e)?;
                self.turn_end(time, e)
            }
            _ => e(EventKind::Unknown(Unknown {
                type_name: Cow::Borrowed(ty),
                raw: ctx.raw(),
            })),
        }
    }

    /// End of input: a call still held is given.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        // Its line is gone: only its id, name and arguments remain.
        let Some(h) = self.held.take() else {
            return Ok(());
        };
        let arena = crate::json::Arena::default();
        chat::with_arguments(&mut self.args, &h.arguments, |args| {
            let kind = EventKind::ToolCall(call(Cow::Borrowed(&h.id), &h.name, args, None, &arena));
            emit(&Event {
                producer: Producer::KimiSession,
                line: self.line,
                source: None,
                session: None,
                parent: None,
                time: None,
                kind,
            })
        })
    }
}

/// Emits one event of the line being read.
type Give<'e> = dyn FnMut(EventKind<'_>) -> io::Result<()> + 'e;

impl State {
    fn turn_begin<'v>(
        &mut self,
        p: Value<'v>,
        time: Option<Timestamp>,
        ctx: &Ctx<'v>,
        e: &mut Give<'_>,
    ) -> io::Result<()> {
        self.turn = Turn {
            began: time,
            ..Turn::default()
        };
        let Some(input) = get(p, "user_input") else {
            return Ok(());
        };
        e(EventKind::Text(Text {
            role: Role::User,
            text: content_text(input, ctx.arena),
            message_id: None,
            command: None,
            continues: false,
        }))
    }

    /// `ContentPart`: a `think` or `text` part.
    fn part(&mut self, p: Value<'_>, e: &mut Give<'_>) -> io::Result<()> {
        match str_at(p, "type") {
            Some("text") => {
                let text = cow_at(p, "text").unwrap_or_default();
                self.turn.answer.clear();
                self.turn.answer.push_str(&text);
                e(EventKind::Text(Text {
                    role: Role::Assistant,
                    text,
                    message_id: None,
                    command: None,
                    continues: false,
                }))
            }
            Some("think") => e(EventKind::Thinking(Thinking {
                text: cow_at(p, "think").unwrap_or_default(),
                redacted: false,
                message_id: None,
            })),
            _ => Ok(()),
        }
    }

    /// `ToolCall`: given now when its arguments are whole, else held.
    fn tool_call<'v>(&mut self, p: Value<'v>, ctx: &Ctx<'v>, e: &mut Give<'_>) -> io::Result<()> {
        let f = get(p, "function");
        let name = f.and_then(|f| str_at(f, "name")).unwrap_or("");
        let id = cow_at(p, "id").unwrap_or_default();
        let raw = f.and_then(|f| get(f, "arguments"));
        let Some(text) = raw.and_then(Value::into_string) else {
            return e(EventKind::ToolCall(call(id, name, raw, raw, ctx.arena)));
        };
        let a = ctx.arena;
        let given = self.args.parse(text.as_bytes(), |parsed| match parsed {
            Ok(args) if args.is_object() => {
                let kind = EventKind::ToolCall(call(Cow::Borrowed(&id), name, Some(args), raw, a));
                Some(e(kind))
            }
            _ => None,
        });
        if let Some(given) = given {
            return given;
        }
        self.held = Some(Held {
            id: id.into_owned(),
            name: name.to_string(),
            arguments: text.to_string(),
        });
        Ok(())
    }

    /// `ToolCallPart`: more of the held call's arguments.
    fn tool_call_part<'v>(
        &mut self,
        p: Value<'v>,
        ctx: &Ctx<'v>,
        e: &mut Give<'_>,
    ) -> io::Result<()> {
        let (Some(h), Some(part)) = (self.held.as_mut(), str_at(p, "arguments_part")) else {
            return Ok(());
        };
        h.arguments.push_str(part);
        let whole = self.args.parse(h.arguments.as_bytes(), |parsed| {
            parsed.is_ok_and(Value::is_object)
        });
        if whole { self.release(ctx, e) } else { Ok(()) }
    }

    /// The held call, given with the arguments it has (closed if cut).
    fn release(&mut self, ctx: &Ctx<'_>, e: &mut Give<'_>) -> io::Result<()> {
        let Some(h) = self.held.take() else {
            return Ok(());
        };
        chat::with_arguments(&mut self.args, &h.arguments, |args| {
            let kind = call(Cow::Borrowed(&h.id), &h.name, args, None, ctx.arena);
            e(EventKind::ToolCall(kind))
        })
    }

    fn tool_result<'v>(&mut self, p: Value<'v>, ctx: &Ctx<'v>, e: &mut Give<'_>) -> io::Result<()> {
        let id = cow_at(p, "tool_call_id").unwrap_or_default();
        if self.held.as_ref().is_some_and(|h| h.id == id) {
            self.release(ctx, e)?;
        }
        let r = get(p, "return_value").unwrap_or(p);
        let is_error = bool_at(r, "is_error") == Some(true);
        let message = str_at(r, "message").unwrap_or("");
        let output = get(r, "output").map(|o| content_text(o, ctx.arena));
        e(EventKind::ToolResult(ToolResult {
            id,
            is_error,
            content: shown(is_error, message, output.unwrap_or_default(), ctx.arena),
            ..ToolResult::default()
        }))
    }

    /// `StatusUpdate`: the tokens of one model call.
    fn usage(&mut self, p: Value<'_>, e: &mut Give<'_>) -> io::Result<()> {
        let Some(u) = get(p, "token_usage") else {
            return Ok(());
        };
        let tokens = Tokens {
            input: u64_at(u, "input_other"),
            output: u64_at(u, "output"),
            cache_read: u64_at(u, "input_cache_read"),
            cache_creation: u64_at(u, "input_cache_creation"),
            reasoning: None,
        };
        self.turn.tokens.add(&tokens);
        e(EventKind::Usage(Usage {
            message_id: cow_at(p, "message_id"),
            tokens,
            ..Usage::default()
        }))
    }

    /// `StepRetry`: a failed request, sent again.
    fn retry<'v>(&mut self, p: Value<'v>, ctx: &Ctx<'v>, e: &mut Give<'_>) -> io::Result<()> {
        self.turn.status = u64_at(p, "status_code").or(self.turn.status);
        let mut t = ctx.arena.text();
        t.push_str("API retry");
        if let (Some(n), Some(max)) = (u64_at(p, "next_attempt"), u64_at(p, "max_attempts")) {
            let _ = write!(t, " {n}/{max}");
        }
        if let Some(w) = f64_at(p, "wait_s") {
            let _ = write!(t, " in {w:.1}s");
        }
        if let Some(why) = str_at(p, "error_type") {
            let _ = write!(t, ": {why}");
        }
        if let Some(s) = u64_at(p, "status_code") {
            let _ = write!(t, " {s}");
        }
        e(ctx.notice("api_retry", Level::Warning, Cow::Borrowed(t.done())))
    }

    /// `StepInterrupted`: the step ended without an answer.
    fn interrupted(&mut self, ctx: &Ctx<'_>, e: &mut Give<'_>) -> io::Result<()> {
        let text = match self.turn.status {
            Some(s) => text!(ctx.arena, "step interrupted (API error {s})"),
            None => Cow::Borrowed("step interrupted"),
        };
        self.turn.failure = Some(text.to_string());
        e(EventKind::Notice(Notice {
            subtype: Cow::Borrowed("interrupted"),
            level: Level::Error,
            text,
            raw: Some(ctx.raw()),
            estimate: false,
        }))
    }

    /// `TurnEnd`: the turn's result.
    fn turn_end(&mut self, time: Option<Timestamp>, e: &mut Give<'_>) -> io::Result<()> {
        let turn = std::mem::take(&mut self.turn);
        let is_error = turn.failure.is_some();
        let duration_ms = match (turn.began, time) {
            (Some(a), Some(b)) => u64::try_from(b.millis() - a.millis()).ok(),
            _ => None,
        };
        let text = match turn.failure {
            Some(f) => Some(f),
            None => Some(turn.answer).filter(|a| !a.is_empty()),
        };
        e(EventKind::Result(Box::new(SessionResult {
            is_error,
            subtype: Some(Cow::Borrowed(if is_error { "error" } else { "success" })),
            api_error_status: turn.status.filter(|_| is_error),
            text: text.map(Cow::Owned),
            num_turns: Some(turn.steps),
            duration_ms,
            tokens: turn.tokens,
            ..SessionResult::default()
        })))
    }
}

mod store;

#[cfg(test)]
mod tests;
