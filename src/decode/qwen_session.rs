//! Qwen Code's saved sessions: `~/.qwen/projects/<project>/chats/<id>.jsonl`
//! (`QWEN_HOME` for `~/.qwen`), and each sub-agent's
//! `projects/<project>/subagents/<id>/agent-<type>-<call id>.jsonl`, read
//! with its session (see `tests/fixtures/qwen-session/README.md`).
//!
//! One record a line, a `uuid`/`parentUuid` chain like Claude Code's
//! transcripts, but Gemini's message shape: `message.parts[]` of `{text}`,
//! `{text, thought: true}`, `{functionCall: {id, name, args}}` and
//! `{functionResponse: {id, name, response: {output}|{error}}}`.
//!
//! * `assistant` records carry `usageMetadata` of their API call, whose
//!   `promptTokenCount` already holds the cached tokens
//!   (`cachedContentTokenCount`): the uncached input is the difference, so
//!   the cached part is not counted twice (ccusage adds it again).
//! * `system`/`ui_telemetry` records of `qwen-code.api_response` come
//!   before their call's record and count *every* request, the CLI's helper
//!   agents' (auto-memory) and the sub-agents' too, as the stream's totals
//!   do: the usage is taken from them, and an `assistant` record whose call
//!   one of them counted adds nothing. A file without telemetry (a
//!   sub-agent's, read alone) is counted from its `usageMetadata`.
//! * `qwen-code.api_error` records (one per attempt) are warnings; a
//!   session whose last request failed ends in error, as the CLI's exit
//!   status does.
//! * A sub-agent's records have `isSidechain`, `agentName` and `agentId`
//!   (`<agentName>-<call id>`): nested under the `agent` call.
//! * The file has no result: one is rebuilt at the end (turns, tokens,
//!   duration from the first and last timestamps, the last answer).

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;

use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use crate::event::{
    Content, Event, EventKind, Level, Producer, Role, SessionResult, SessionStart, Text, Thinking,
    Tokens, ToolResult, Usage,
};
use crate::json::{J, Value, arr_at, bool_at, cow_at, get, str_at, u64_at, view};
use crate::time::Timestamp;

/// The registry's line for Qwen Code's saved sessions.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::QwenSession,
    name: "qwen-session",
    label: "Qwen Code session",
    invocation: "Qwen Code's saved sessions (~/.qwen/projects/<project>/chats/<id>.jsonl)",
    stream: start::<State>,
    format: &QwenSession,
    unsearched: &["parentUuid", "provenance", "agentRunId"],
    unread: &[],
    store: Some(Store {
        home: ".qwen",
        moved_by: &["QWEN_RUNTIME_DIR", "QWEN_HOME"],
        sessions: "projects",
        database: None,
        reader: None,
    }),
};

/// Qwen Code's session files (the registry's entry).
pub(crate) struct QwenSession;

impl Format for QwenSession {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // Claude's transcripts have `parentUuid` too: Qwen's records say
        // `provenance`, or carry Gemini's `parts`.
        if !has(s.v, "parentUuid") {
            return None;
        }
        let own = has(s.v, "provenance")
            || has(s.v, "usageMetadata")
            || has(s.v, "toolCallResult")
            || get(s.v, "message").is_some_and(|m| has(m, "parts"));
        own.then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        // A sub-agent's first record, read with its session, opens none.
        // The bulk of a live stream (Claude's shape, which Qwen Code prints
        // too) is no saved record: asked of its every line, not looked into.
        !matches!(s.ty, "stream_event" | "result")
            && get(s.v, "parentUuid").is_some_and(|p| matches!(view(p), J::Null))
            && bool_at(s.v, "isSidechain") != Some(true)
    }
}

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// The `session_start` was given, for this session id.
    session: Option<String>,
    /// API calls the telemetry counted whose `assistant` record is yet to
    /// come, by agent (`""`: the main agent; else the sub-agent's id).
    counted: HashMap<String, u32>,
    /// The `agent` calls seen, by sub-agent id (`<type>-<call id>`).
    agents: HashMap<String, String>,
    /// Over the session: tokens, API calls, the last answer, the span.
    tokens: Tokens,
    turns: u64,
    text: Option<String>,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
    last_line: u64,
    /// The last request failed (status, message), and no answer came after.
    failed: Option<(Option<u64>, String)>,
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let session = str_at(v, "sessionId");
        if self.session.is_some() && session.is_some() && self.session.as_deref() != session {
            // Another session's file concatenated after this one.
            self.finish(emit)?;
        }
        self.last_line = ctx.line;
        self.first = self.first.or(ctx.time);
        self.last = ctx.time.or(self.last);
        let parent = self.parent_of(v);
        let env = |kind| Event {
            session: session.map(Cow::Borrowed),
            parent: parent.clone().map(Cow::Owned),
            ..ctx.event(kind)
        };
        if self.session.is_none() {
            self.session = Some(session.unwrap_or("").to_string());
            emit(&env(EventKind::SessionStart(SessionStart {
                model: cow_at(v, "model"),
                cwd: cow_at(v, "cwd"),
                version: cow_at(v, "version"),
                ..SessionStart::default()
            })))?;
        }
        let ty = str_at(v, "type").unwrap_or("");
        if !matches!(ty, "user" | "assistant" | "tool_result" | "system") {
            return super::producer::unknown_line(v, ctx, emit);
        }
        let mut out = |kind| emit(&env(kind));
        match ty {
            "user" => user(v, &mut out),
            "assistant" => self.assistant(v, ctx, parent.is_some(), &mut out),
            "tool_result" => tool_results(v, ctx, &mut out),
            _ => self.system(v, ctx, &mut out),
        }
    }

    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = std::mem::take(self);
        let Some(session) = state.session else {
            return Ok(());
        };
        let duration_ms = Timestamp::ms_between(state.first, state.last);
        let (is_error, status, error) = match state.failed {
            Some((status, message)) => (true, status, Some(Cow::Owned(message))),
            None => (false, None, None),
        };
        let result = SessionResult {
            is_error,
            subtype: Some(Cow::Borrowed(if is_error { "error" } else { "success" })),
            text: state.text.filter(|_| !is_error).map(Cow::Owned),
            errors: error.into_iter().collect(),
            num_turns: Some(state.turns),
            duration_ms,
            tokens: state.tokens,
            api_error_status: status,
            ..SessionResult::default()
        };
        emit(&Event {
            producer: Producer::QwenSession,
            line: state.last_line,
            source: None,
            session: Some(Cow::Owned(session)),
            parent: None,
            time: state.last,
            kind: EventKind::Result(Box::new(result)),
        })
    }
}

/// What an event is made of, before its envelope.
type Kinds<'k, 'v> = dyn FnMut(EventKind<'v>) -> io::Result<()> + 'k;

impl State {
    /// The `agent` call a sub-agent's record belongs to: its `agentId`
    /// is `<agentName>-<call id>`.
    fn parent_of(&self, v: Value<'_>) -> Option<String> {
        if bool_at(v, "isSidechain") != Some(true) {
            return None;
        }
        let id = str_at(v, "agentId")?;
        if let Some(call) = self.agents.get(id) {
            return Some(call.clone());
        }
        let name = str_at(v, "agentName").unwrap_or("");
        let call = id.strip_prefix(name).and_then(|r| r.strip_prefix('-'));
        Some(call.unwrap_or(id).to_string())
    }

    /// An `assistant` record: reasoning, text and calls, and its usage
    /// unless the telemetry counted it.
    fn assistant<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        nested: bool,
        out: &mut Kinds<'_, 'v>,
    ) -> io::Result<()> {
        let agent = if nested {
            str_at(v, "agentId").unwrap_or("")
        } else {
            ""
        };
        let model = cow_at(v, "model");
        if let Some(u) = get(v, "usageMetadata")
            && !self.counted_before(agent)
        {
            let tokens = tokens(u);
            self.count(&tokens);
            out(EventKind::Usage(Usage {
                message_id: cow_at(v, "uuid"),
                model: model.clone(),
                tokens,
                sidechain: nested,
                ..Usage::default()
            }))?;
        }
        let message_id = cow_at(v, "uuid");
        let parts = get(v, "message")
            .map(|m| arr_at(m, "parts"))
            .unwrap_or_default();
        for p in parts {
            if let Some(call) = get(p, "functionCall") {
                let name = str_at(call, "name").unwrap_or("");
                let id = cow_at(call, "id").unwrap_or_default();
                if name == "agent" {
                    self.note_agent(call, &id);
                }
                let c =
                    super::qwen::call(id, name, get(call, "args"), message_id.clone(), ctx.arena);
                out(EventKind::ToolCall(c))?;
            } else if let Some(text) = str_at(p, "text").filter(|t| !t.trim().is_empty()) {
                if bool_at(p, "thought") == Some(true) {
                    out(EventKind::Thinking(Thinking {
                        text: Cow::Borrowed(text),
                        redacted: false,
                        message_id: message_id.clone(),
                    }))?;
                    continue;
                }
                if !nested {
                    self.text = Some(text.to_string());
                    self.failed = None;
                }
                out(EventKind::Text(Text {
                    role: Role::Assistant,
                    text: Cow::Borrowed(text),
                    message_id: message_id.clone(),
                    command: None,
                    continues: false,
                }))?;
            }
        }
        if !parts.is_empty() && !nested {
            self.failed = None;
        }
        Ok(())
    }

    /// An `agent` call: its sub-agent will be `<subagent_type>-<call id>`.
    fn note_agent(&mut self, call: Value<'_>, id: &str) {
        let args = get(call, "args");
        let ty = args
            .and_then(|a| str_at(a, "subagent_type"))
            .unwrap_or("general-purpose");
        self.agents.insert(format!("{ty}-{id}"), id.to_string());
    }

    /// A telemetry record of `agent` counted the call whose record this
    /// is (taken: each counts one call).
    fn counted_before(&mut self, agent: &str) -> bool {
        match self.counted.get_mut(agent) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    fn count(&mut self, t: &Tokens) {
        self.tokens.add(t);
        self.turns += 1;
    }

    /// A `system` record: the telemetry of API calls (usage, failures);
    /// tool-call telemetry and attribution snapshots say nothing the
    /// other records do not.
    fn system<'v>(
        &mut self,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        out: &mut Kinds<'_, 'v>,
    ) -> io::Result<()> {
        let Some(ev) = get(v, "systemPayload").and_then(|p| get(p, "uiEvent")) else {
            return Ok(());
        };
        match str_at(ev, "event.name").unwrap_or("") {
            "qwen-code.api_response" => self.api_response(ev, out),
            "qwen-code.api_error" => {
                let status = u64_at(ev, "status_code");
                let message = str_at(ev, "error_message").unwrap_or("API error");
                self.failed = Some((status, message.to_string()));
                let text = match status {
                    Some(s) => text!(ctx.arena, "API error (HTTP {s}): {message}"),
                    None => text!(ctx.arena, "API error: {message}"),
                };
                out(ctx.notice("api_error", Level::Warning, text))
            }
            _ => Ok(()),
        }
    }

    /// `qwen-code.api_response`: one API call's usage, of the main agent,
    /// a sub-agent or a helper agent of the CLI.
    fn api_response<'v>(&mut self, ev: Value<'v>, out: &mut Kinds<'_, 'v>) -> io::Result<()> {
        let agent = str_at(ev, "subagent_id").filter(|_| has_name(ev));
        *self
            .counted
            .entry(agent.unwrap_or("").to_string())
            .or_default() += 1;
        let cached = u64_at(ev, "cached_content_token_count");
        let tokens = Tokens {
            input: u64_at(ev, "input_token_count").map(|i| i.saturating_sub(cached.unwrap_or(0))),
            output: u64_at(ev, "output_token_count"),
            cache_read: cached,
            cache_creation: None,
            reasoning: None,
        };
        self.count(&tokens);
        out(EventKind::Usage(Usage {
            message_id: cow_at(ev, "response_id").filter(|r| !r.is_empty()),
            model: cow_at(ev, "model"),
            tokens,
            sidechain: agent.is_some(),
            ..Usage::default()
        }))
    }
}

/// A telemetry record names a sub-agent (`null` for the main agent).
fn has_name(ev: Value<'_>) -> bool {
    str_at(ev, "subagent_name").is_some_and(|n| !n.is_empty())
}

/// `usageMetadata`: `promptTokenCount` holds the cached part.
fn tokens(u: Value<'_>) -> Tokens {
    let cached = u64_at(u, "cachedContentTokenCount");
    Tokens {
        input: u64_at(u, "promptTokenCount").map(|i| i.saturating_sub(cached.unwrap_or(0))),
        output: u64_at(u, "candidatesTokenCount"),
        cache_read: cached,
        cache_creation: None,
        reasoning: None,
    }
}

/// A `user` record: the prompt's text parts.
fn user<'v>(v: Value<'v>, out: &mut Kinds<'_, 'v>) -> io::Result<()> {
    let parts = get(v, "message")
        .map(|m| arr_at(m, "parts"))
        .unwrap_or_default();
    for p in parts {
        if let Some(text) = str_at(p, "text").filter(|t| !t.is_empty()) {
            out(EventKind::Text(Text {
                role: Role::User,
                text: Cow::Borrowed(text),
                message_id: cow_at(v, "uuid"),
                command: None,
                continues: false,
            }))?;
        }
    }
    Ok(())
}

/// A `tool_result` record: each `functionResponse`, failed when Qwen's
/// `toolCallResult.status` says so or the response is an `error`; a
/// shell command's framed output read as the stream's is.
fn tool_results<'v>(v: Value<'v>, ctx: &Ctx<'v>, out: &mut Kinds<'_, 'v>) -> io::Result<()> {
    let status = get(v, "toolCallResult").and_then(|r| str_at(r, "status"));
    let parts = get(v, "message")
        .map(|m| arr_at(m, "parts"))
        .unwrap_or_default();
    for p in parts {
        let Some(f) = get(p, "functionResponse") else {
            continue;
        };
        let response = get(f, "response");
        let error = response.and_then(|r| get(r, "error"));
        let body = error.or_else(|| response.and_then(|r| get(r, "output")));
        let content = match body {
            Some(b) => super::args::content_of(b).unwrap_or_default(),
            None => Content::default(),
        };
        let r = ToolResult {
            id: cow_at(f, "id").unwrap_or_default(),
            is_error: status == Some("error") || error.is_some(),
            denied: false,
            content,
            answers: crate::event::List::default(),
            changes: crate::event::List::default(),
        };
        let r = super::qwen::shell::read(&r, ctx.arena).unwrap_or(r);
        out(EventKind::ToolResult(r))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
