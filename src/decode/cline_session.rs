//! Cline CLI's saved sessions: `~/.cline/data/sessions/<id>/<id>.json`
//! (the session's record) and `<id>.messages.json` (its messages), two
//! pretty-printed JSON documents, read as two lines: the record first
//! (`input::companion`), then the messages (see
//! `tests/fixtures/cline-session/README.md`).
//!
//! * The record: `session_id`, `cwd`, `model`, `started_at`/`ended_at`,
//!   `status` (`completed`, `failed`, `running`…), `exit_code`, the prompt,
//!   and `metadata.aggregateUsage` (the totals, sub-agents' included).
//! * The messages: `{role, content: [blocks], ts, modelInfo?, metrics?}`;
//!   the blocks are the Anthropic Messages API's (`text`, `thinking`,
//!   `tool_use`, `tool_result`); each assistant message carries its
//!   request's `metrics` (`inputTokens` counts the cached part, as the
//!   stream's `usage` does). A `tool_result`'s content is the stream's
//!   output (an array of `{query, result, error?, success}`), or that as a
//!   JSON text (the editor's).
//! * A failed run's last message is the error's text, without metrics.
//! * The user's prompt is wrapped in `<user_input mode="…">`: shown without.

use std::borrow::Cow;
use std::io;

use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use crate::event::{
    Content, EventKind, ModelUsage, Producer, Role, SessionResult, SessionStart, Text, Tokens,
    ToolResult, Usage,
};
use crate::json::{Arena, Value, arr_at, cow_at, get, str_at};
use crate::time::Timestamp;

/// The registry's line for Cline CLI's saved sessions.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::ClineSession,
    name: "cline-session",
    label: "Cline CLI session",
    invocation: "Cline CLI's saved sessions (~/.cline/data/sessions/<id>/<id>.messages.json)",
    stream: start::<State>,
    format: &ClineSession,
    unsearched: &["version", "updated_at", "origin", "system_prompt"],
    unread: &[],
    store: Some(Store {
        home: ".cline",
        moved_by: &[],
        sessions: "data/sessions",
        database: None,
        reader: None,
    }),
};

/// Cline CLI's session files (the registry's entry).
pub(crate) struct ClineSession;

impl Format for ClineSession {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        let record = has(s.v, "session_id") && has(s.v, "started_at") && has(s.v, "status");
        let messages = has(s.v, "sessionId") && has(s.v, "messages") && has(s.v, "origin");
        (record || messages).then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        // The record has no `type` (asked first: this rule is asked of
        // every line of every other producer's stream).
        s.ty.is_empty() && has(s.v, "session_id") && has(s.v, "started_at")
    }
}

/// Per-stream state: what the record said, for the result at the end.
#[derive(Default)]
pub(crate) struct State {
    /// The session's id.
    session: Option<String>,
    /// `status`, when a record was read.
    status: Option<String>,
    /// From `started_at` to `ended_at`.
    duration_ms: Option<u64>,
    /// The record's totals (`metadata.aggregateUsage`), and its model.
    tokens: Tokens,
    model: Option<String>,
    /// Assistant messages with metrics (model requests).
    turns: u64,
    /// The last assistant text, and whether its message had metrics (an
    /// answer) or not (a failed run's error).
    last_text: Option<(String, bool)>,
    /// A result was given.
    ended: bool,
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        if has(v, "session_id") {
            return self.record(v, ctx, emit);
        }
        if self.session.is_none() {
            self.session = str_at(v, "sessionId").map(str::to_string);
        }
        let messages = arr_at(v, "messages");
        let failed = self
            .status
            .as_deref()
            .is_some_and(|s| s != "completed" && s != "running");
        for (i, m) in messages.iter().enumerate() {
            // A failed run's error, its last message: said by the result.
            let error = failed && i + 1 == messages.len() && !has(m, "metrics");
            self.message(m, error, ctx, emit)?;
        }
        Ok(())
    }

    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let Some(status) = self.status.as_deref() else {
            return Ok(());
        };
        // Still running (or the CLI was stopped): no result, incomplete.
        if self.ended || status == "running" {
            return Ok(());
        }
        self.ended = true;
        let is_error = status != "completed";
        let last = self.last_text.clone();
        let error = last.clone().filter(|(_, answer)| !answer).map(|(t, _)| t);
        let res = SessionResult {
            is_error,
            // `failed` says no more than `is_error`.
            subtype: (!matches!(status, "completed" | "failed"))
                .then(|| Cow::Owned(status.to_string())),
            text: last.filter(|_| !is_error).map(|(t, _)| Cow::Owned(t)),
            errors: match (is_error, error) {
                (true, Some(e)) => std::iter::once(Cow::Owned(e)).collect(),
                (true, None) => std::iter::once(Cow::Owned(format!("session {status}"))).collect(),
                _ => crate::event::List::default(),
            },
            num_turns: Some(self.turns),
            duration_ms: self.duration_ms,
            tokens: self.tokens,
            model_usage: match &self.model {
                Some(m) if !self.tokens.is_empty() => std::iter::once(ModelUsage {
                    model: Cow::Owned(m.clone()),
                    tokens: self.tokens,
                    cost_usd: None,
                })
                .collect(),
                _ => crate::event::List::default(),
            },
            ..SessionResult::default()
        };
        emit(&crate::event::Event {
            producer: Producer::ClineSession,
            line: 0,
            source: None,
            session: self.session.clone().map(Cow::Owned),
            parent: None,
            time: None,
            kind: EventKind::Result(Box::new(res)),
        })
    }
}

impl State {
    /// The record: the session's start, and what its result will say.
    fn record<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        self.session = str_at(v, "session_id").map(str::to_string);
        self.status = Some(str_at(v, "status").unwrap_or("running").to_string());
        let time = |k: &str| str_at(v, k).and_then(Timestamp::parse);
        self.duration_ms = match (time("started_at"), time("ended_at")) {
            (Some(a), Some(b)) => u64::try_from(b.millis() - a.millis()).ok(),
            _ => None,
        };
        let meta = get(v, "metadata");
        let usage = meta.and_then(|m| get(m, "aggregateUsage").or_else(|| get(m, "usage")));
        self.tokens = usage
            .map(super::cline::tokens)
            .filter(|t| t.total() > 0)
            .unwrap_or_default();
        self.model = str_at(v, "model").map(str::to_string);
        let version = meta
            .and_then(|m| get(m, "sessionHistoryOrigin"))
            .and_then(|o| cow_at(o, "version"));
        let start = SessionStart {
            model: cow_at(v, "model"),
            cwd: cow_at(v, "cwd"),
            version,
            ..SessionStart::default()
        };
        emit(&self.event(ctx, time("started_at"), EventKind::SessionStart(start)))
    }

    fn event<'v>(
        &self,
        ctx: &Ctx<'v>,
        time: Option<Timestamp>,
        kind: EventKind<'v>,
    ) -> crate::event::Event<'v> {
        crate::event::Event {
            session: self.session.clone().map(Cow::Owned),
            time: time.or(ctx.time),
            ..ctx.event(kind)
        }
    }

    /// One message: its blocks as events, then its request's usage.
    fn message<'v>(
        &mut self,
        m: Value<'v>,
        error: bool,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let time = get(m, "ts")
            .and_then(Value::as_f64)
            .and_then(Timestamp::from_epoch_number);
        let id = cow_at(m, "id");
        let assistant = str_at(m, "role") == Some("assistant");
        let metrics = get(m, "metrics");
        for b in arr_at(m, "content") {
            let kind = match str_at(b, "type").unwrap_or("") {
                "text" if !assistant => prompt(b),
                "tool_use" => {
                    let call_id = cow_at(b, "id").unwrap_or_default();
                    let name = str_at(b, "name").unwrap_or("");
                    let call = super::cline::call(call_id, name, get(b, "input"), ctx.arena);
                    Some(EventKind::ToolCall(call))
                }
                "tool_result" => Some(EventKind::ToolResult(result(b, ctx.arena))),
                _ => {
                    if assistant && let Some(t) = str_at(b, "text") {
                        self.last_text = Some((t.to_string(), metrics.is_some()));
                    }
                    super::messages::said(b, id.as_ref()).filter(|_| !error)
                }
            };
            if let Some(kind) = kind {
                emit(&self.event(ctx, time, kind))?;
            }
        }
        let Some(metrics) = metrics.filter(|_| assistant) else {
            return Ok(());
        };
        self.turns += 1;
        let usage = Usage {
            message_id: id,
            model: get(m, "modelInfo").and_then(|i| cow_at(i, "id")),
            tokens: super::cline::tokens(metrics),
            ..Usage::default()
        };
        emit(&self.event(ctx, time, EventKind::Usage(usage)))
    }
}

/// The user's prompt, without its `<user_input mode="…">` wrapper.
fn prompt(b: Value<'_>) -> Option<EventKind<'_>> {
    let text = str_at(b, "text")?;
    let inner = text
        .trim()
        .strip_prefix("<user_input")
        .and_then(|t| t.split_once('>'))
        .and_then(|(_, t)| t.strip_suffix("</user_input>"))
        .unwrap_or(text);
    (!inner.trim().is_empty()).then_some(EventKind::Text(Text {
        role: Role::User,
        text: Cow::Borrowed(inner),
        message_id: None,
        command: None,
        continues: false,
    }))
}

/// A `tool_result` block: its content is the stream's output, or that as
/// a JSON text.
fn result<'v>(b: Value<'v>, a: &'v Arena) -> ToolResult<'v> {
    let id = cow_at(b, "tool_use_id").unwrap_or_default();
    let content = get(b, "content");
    let Some(text) = content.and_then(Value::into_string) else {
        return super::cline::outcome(id, content, false, a);
    };
    // The JSON text of one entry (`{query, result, success}`), read apart.
    let entry: Option<serde_json::Value> = serde_json::from_str(text).ok();
    let Some(serde_json::Value::Object(e)) = entry else {
        return ToolResult {
            id,
            content: Content::from(Cow::Borrowed(text)),
            ..ToolResult::default()
        };
    };
    let failed =
        e.get("success") == Some(&serde_json::Value::Bool(false)) || e.contains_key("error");
    let shown = e
        .get("result")
        .and_then(serde_json::Value::as_str)
        .filter(|r| !r.is_empty())
        .or_else(|| e.get("error").and_then(serde_json::Value::as_str))
        .unwrap_or("");
    ToolResult {
        id,
        is_error: failed,
        content: Content::from(Cow::Owned(shown.to_string())),
        ..ToolResult::default()
    }
}

#[cfg(test)]
mod tests;
