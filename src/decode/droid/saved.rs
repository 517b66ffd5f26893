//! Droid's saved sessions: `~/.factory/sessions/<project>/<id>.jsonl`, and
//! beside it `<id>.settings.json`, the session's settings and token totals
//! (read as the session file's last line, see `input::companion`).
//!
//! * `session_start`: the header (`id`, `title`, `cwd`, `version`).
//! * `message`: `{id, parentId, timestamp, message: {role, content}}` with
//!   Anthropic's content blocks: `text`, `thinking`, `tool_use`
//!   (`{id, name, input}`, the names and arguments of the stream's
//!   `tool_call`) and, in `user` messages, `tool_result`
//!   (`{tool_use_id, is_error, content}`). The first `user` message
//!   (`id: "context-…"`) is the CLI's `<system-reminder>`: a `-v` notice.
//!   A failed request leaves a `user` message of the CLI's own
//!   (`BYOK Error: …`).
//! * `agent_turn_outcome`: how the turn ended (`completed`, or
//!   `model_provider_unavailable`…).
//! * The settings document (no `type`): `tokenUsage` is the session's own
//!   totals, as the stream's `completion.usage`; no per-request usage.
//!
//! The result is rebuilt at the end: turns (assistant messages), the last
//! answer, the totals, failed when the last turn did not complete.

use std::borrow::Cow;
use std::io;

use super::State;
use crate::decode::producer::{Ctx, Emit};
use crate::event::{
    Content, Event, EventKind, Level, List, ModelUsage, Producer, Role, SessionResult,
    SessionStart, Text, Thinking, Tokens, ToolResult,
};
use crate::json::{J, Value, arr_at, bool_at, cow_at, get, str_at, u64_at, view};

/// The saved form's own records (the stream's `message` has no
/// `message` object).
pub(super) fn is_saved(v: Value<'_>) -> bool {
    match str_at(v, "type") {
        Some("session_start" | "agent_turn_outcome") => true,
        Some("message") => get(v, "message").is_some_and(Value::is_object),
        Some(_) => false,
        None => has_totals(v),
    }
}

/// The settings document beside a session file.
pub(super) fn has_totals(v: Value<'_>) -> bool {
    get(v, "tokenUsage").is_some_and(Value::is_object)
}

/// What the saved session says at its end.
#[derive(Default)]
pub(super) struct Saved {
    turns: u64,
    text: Option<String>,
    /// The last turn's outcome, when it did not complete.
    failed: Option<String>,
    /// The CLI's error message to the user after a failed request.
    error: Option<String>,
    tokens: Option<Tokens>,
    /// The settings' `model`, whose the totals are.
    model: Option<String>,
}

impl State {
    /// One record of a saved session.
    pub(super) fn saved<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let saved = self.saved.get_or_insert_with(Saved::default);
        if str_at(v, "type") == Some("session_start") {
            self.session = str_at(v, "id").map(str::to_string);
            let start = SessionStart {
                cwd: cow_at(v, "cwd"),
                ..SessionStart::default()
            };
            return emit(&Event {
                session: cow_at(v, "id"),
                ..ctx.event(EventKind::SessionStart(start))
            });
        }
        let session = self.session.as_deref();
        let ev = |kind| Event {
            session: session.map(|s| Cow::Borrowed(ctx.arena.copy(s))),
            ..ctx.event(kind)
        };
        match str_at(v, "type") {
            Some("agent_turn_outcome") => {
                let reason = str_at(v, "reason").unwrap_or("");
                saved.failed = (reason != "completed").then(|| reason.to_string());
                Ok(())
            }
            Some(_) => message(saved, v, ctx, &mut |k| emit(&ev(k))),
            None => {
                saved.tokens = get(v, "tokenUsage").map(totals);
                saved.model = str_at(v, "model").map(str::to_string);
                Ok(())
            }
        }
    }

    /// The end of a saved session: its result.
    pub(super) fn saved_end(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(saved) = self.saved.take() else {
            return Ok(());
        };
        let is_error = saved.failed.is_some();
        let why = saved.error.or(saved.failed);
        let res = SessionResult {
            is_error,
            subtype: Some(Cow::Borrowed(if is_error { "error" } else { "success" })),
            text: saved.text.filter(|_| !is_error).map(Cow::Owned),
            errors: why
                .filter(|_| is_error)
                .map(Cow::Owned)
                .into_iter()
                .collect(),
            num_turns: Some(saved.turns),
            tokens: saved.tokens.unwrap_or_default(),
            // The totals under the settings' model, as the stream's
            // result gives them.
            model_usage: match (saved.model, saved.tokens) {
                (Some(model), Some(tokens)) if !tokens.is_empty() => std::iter::once(ModelUsage {
                    model: Cow::Owned(model),
                    tokens,
                    cost_usd: None,
                })
                .collect(),
                _ => List::default(),
            },
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

/// `tokenUsage`: Anthropic's split (the input without the cache).
fn totals(u: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(u, "inputTokens"),
        output: u64_at(u, "outputTokens"),
        cache_read: u64_at(u, "cacheReadTokens"),
        cache_creation: u64_at(u, "cacheCreationTokens"),
        reasoning: None,
    }
}

/// What an event is made of, before its envelope.
type Kinds<'k, 'v> = dyn FnMut(EventKind<'v>) -> io::Result<()> + 'k;

/// A `message` record: its content blocks.
fn message<'v>(
    saved: &mut Saved,
    v: Value<'v>,
    ctx: &Ctx<'v>,
    out: &mut Kinds<'_, 'v>,
) -> io::Result<()> {
    let Some(m) = get(v, "message") else {
        return Ok(());
    };
    let id = cow_at(v, "id");
    let assistant = str_at(m, "role") == Some("assistant");
    if assistant {
        saved.turns += 1;
    }
    if !assistant && id.as_deref().is_some_and(|i| i.starts_with("context-")) {
        let text = Cow::Borrowed("the CLI's context for the model (tools, folder, environment)");
        return out(ctx.notice("context", Level::Debug, text));
    }
    for b in arr_at(m, "content") {
        let kind = match str_at(b, "type").unwrap_or("") {
            "text" => {
                let text = str_at(b, "text").unwrap_or("");
                if assistant {
                    saved.text = Some(text.to_string());
                } else if text.starts_with("BYOK Error:") || text.contains("\nUpstream error:") {
                    // The CLI's report of a failed request, not a prompt.
                    let first = text.lines().next().unwrap_or(text);
                    saved.error = Some(first.to_string());
                    out(ctx.notice("api_error", Level::Error, Cow::Borrowed(text)))?;
                    continue;
                }
                EventKind::Text(Text {
                    role: if assistant {
                        Role::Assistant
                    } else {
                        Role::User
                    },
                    text: Cow::Borrowed(text),
                    message_id: id.clone(),
                    command: None,
                    continues: false,
                })
            }
            "thinking" => EventKind::Thinking(Thinking {
                text: cow_at(b, "thinking").unwrap_or_default(),
                redacted: false,
                message_id: id.clone(),
            }),
            "tool_use" => {
                let name = str_at(b, "name").unwrap_or("");
                let call_id = cow_at(b, "id").unwrap_or_default();
                EventKind::ToolCall(super::call(
                    call_id,
                    name,
                    get(b, "input"),
                    id.clone(),
                    ctx.arena,
                ))
            }
            "tool_result" => EventKind::ToolResult(tool_result(b, ctx)),
            _ => continue,
        };
        out(kind)?;
    }
    Ok(())
}

/// A `tool_result` block: its content a string, or text blocks.
fn tool_result<'v>(b: Value<'v>, ctx: &Ctx<'v>) -> ToolResult<'v> {
    let content = match get(b, "content").map(|c| (c, view(c))) {
        Some((c, J::Str(_))) => super::super::args::content_of(c).unwrap_or_default(),
        Some((_, J::Arr(_))) => {
            let texts = arr_at(b, "content")
                .into_iter()
                .filter_map(|p| str_at(p, "text"));
            ctx.arena
                .join(texts, "\n")
                .map_or_else(Content::default, Content::from)
        }
        _ => Content::default(),
    };
    ToolResult {
        id: cow_at(b, "tool_use_id").unwrap_or_default(),
        is_error: bool_at(b, "is_error") == Some(true),
        content,
        ..ToolResult::default()
    }
}
