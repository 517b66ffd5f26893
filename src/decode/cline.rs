//! Cline CLI `cline --json "…"`.
//!
//! Every line is `{ts, type}` with `type` one of `hook_event` (bookkeeping
//! that names neither tool nor call), `agent_event` (`event: {type, …}`)
//! and `run_result` (always last: `finishReason`, iterations, usage totals,
//! duration, the final text or the error); see
//! `tests/fixtures/cline/README.md`.
//!
//! * Text streams as `content_start` pieces (`text`, with `accumulated`),
//!   then `content_end` with the whole; reasoning likewise, but its
//!   `content_end` comes after the text's: the pieces are joined here and
//!   given whole when the text begins.
//! * A tool call is `content_start` (`toolName`, `toolCallId`, `input`),
//!   `content_update`s (shell output, not read: the end has it all) and
//!   `content_end` with `output`: an array of `{query, result, error?,
//!   success}` (one per command, file or query), or one such object, or
//!   `{error}` for a call rejected before it ran.
//! * `usage` per model request: `inputTokens` counts the cached tokens too.
//! * API errors are retried silently, then `agent_event` `error`
//!   (`recoverable: false`) and a `run_result` with `finishReason: "error"`.
//!   `cline` then also writes `{ts, type: "error", message}` to stderr.

use std::borrow::Cow;
use std::io;

use super::args::{first_scalar, names_at, replace_at, write_at};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, has, start};
use crate::event::{
    Content, Delta, DeltaKind, EventKind, JsonText, Level, List, ModelUsage, Producer, Role,
    SessionResult, Text, Thinking, Tokens, ToolCall, ToolKind, ToolResult, Usage,
};
use crate::json::{Arena, Value, arr_at, bool_at, cow_at, f64_at, get, str_at, u64_at};

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// Reasoning streamed so far, given whole before the next other
    /// content (its own end comes after the text's).
    reasoning: String,
    /// The reasoning's end repeats what was given.
    reasoning_given: bool,
}

/// The registry's line for Cline CLI.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Cline,
    name: "cline",
    label: "Cline CLI",
    invocation: "Cline CLI `--json`",
    stream: start::<State>,
    format: &Cline,
    unsearched: &["ts", "agentId", "taskId", "parentAgentId"],
    unread: &[],
    store: None,
};

/// `cline --json` (the registry's entry).
pub(crate) struct Cline;

impl Format for Cline {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        let own = matches!(s.ty, "hook_event" | "agent_event" | "run_result");
        (own && has(s.v, "ts")).then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "hook_event" && str_at(s.v, "hookEventName") == Some("agent_start")
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        match str_at(v, "type").unwrap_or("") {
            "agent_event" => match get(v, "event") {
                Some(e) => self.agent_event(e, v, ctx, emit),
                None => super::producer::unknown_line(v, ctx, emit),
            },
            "run_result" => {
                self.flush_reasoning(ctx, emit)?;
                emit(&ctx.event(EventKind::Result(Box::new(result(v, ctx.arena)))))
            }
            "hook_event" => hook(v, ctx, emit),
            // What `cline` writes to stderr when the run failed (`2>&1`).
            "error" => {
                let text = cow_at(v, "message").unwrap_or(Cow::Borrowed("error"));
                emit(&ctx.event(ctx.notice("error", Level::Error, text)))
            }
            _ => super::producer::unknown_line(v, ctx, emit),
        }
    }
}

impl State {
    fn agent_event<'v>(
        &mut self,
        e: Value<'v>,
        v: Value<'v>,
        ctx: &Ctx<'v>,
        emit: &mut Emit<'_>,
    ) -> io::Result<()> {
        let ty = str_at(e, "type").unwrap_or("");
        let content = str_at(e, "contentType").unwrap_or("");
        if content != "reasoning" {
            self.flush_reasoning(ctx, emit)?;
        }
        let kind = match (ty, content) {
            ("content_start", "text") => delta(e, "text", DeltaKind::Text),
            ("content_start", "reasoning") => {
                // Joined only when every line is read (not `--grep`'s
                // skipping): the reasoning's end then gives it.
                if !ctx.skipping {
                    self.reasoning
                        .push_str(str_at(e, "reasoning").unwrap_or(""));
                }
                delta(e, "reasoning", DeltaKind::Thinking)
            }
            ("content_start", "tool") => Some(EventKind::ToolCall(tool_call(e, ctx.arena))),
            ("content_end", "text") => {
                cow_at(e, "text")
                    .filter(|t| !t.trim().is_empty())
                    .map(|text| {
                        EventKind::Text(Text {
                            role: Role::Assistant,
                            text,
                            message_id: None,
                            command: None,
                            continues: false,
                        })
                    })
            }
            ("content_end", "reasoning") => self.reasoning_end(e),
            ("content_end", "tool") => Some(EventKind::ToolResult(tool_result(e, ctx.arena))),
            ("usage", _) => usage(e),
            ("notice", _) => {
                let text = cow_at(e, "message").unwrap_or_default();
                Some(ctx.notice("notice", Level::Info, text))
            }
            ("error", _) => Some(error(e, ctx)),
            // Iterations, shell output as it comes, `done` (the result
            // line says it all again).
            ("iteration_start" | "iteration_end" | "content_update" | "done", _) => None,
            _ => return super::producer::unknown_line(v, ctx, emit),
        };
        match kind {
            Some(kind) => emit(&ctx.event(kind)),
            None => Ok(()),
        }
    }

    /// The reasoning streamed, whole, once other content begins.
    fn flush_reasoning(&mut self, ctx: &Ctx<'_>, emit: &mut Emit<'_>) -> io::Result<()> {
        if self.reasoning.is_empty() {
            return Ok(());
        }
        let text = ctx.arena.copy(&self.reasoning);
        self.reasoning.clear();
        self.reasoning_given = true;
        emit(&ctx.event(EventKind::Thinking(Thinking {
            text: Cow::Borrowed(text),
            redacted: false,
            message_id: None,
        })))
    }

    /// The reasoning's `content_end`: given unless its pieces were.
    fn reasoning_end<'v>(&mut self, e: Value<'v>) -> Option<EventKind<'v>> {
        if std::mem::take(&mut self.reasoning_given) {
            self.reasoning.clear();
            return None;
        }
        self.reasoning.clear();
        let text = cow_at(e, "reasoning").filter(|t| !t.trim().is_empty())?;
        Some(EventKind::Thinking(Thinking {
            text,
            redacted: bool_at(e, "redacted") == Some(true),
            message_id: None,
        }))
    }
}

/// A `hook_event`: the main agent's start is the session's (there is no
/// header); the others bookkeeping (`-v`), but for the calls' (they name
/// neither tool nor call).
fn hook<'v>(v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let name = str_at(v, "hookEventName").unwrap_or("hook");
    if matches!(name, "tool_call" | "tool_result") {
        return Ok(());
    }
    let main = get(v, "parentAgentId").is_none_or(crate::json::is_null);
    if name == "agent_start" && main {
        let start = crate::event::SessionStart::default();
        return emit(&ctx.event(EventKind::SessionStart(start)));
    }
    let text = text!(ctx.arena, "hook: {name}");
    emit(&ctx.event(ctx.notice("hook_event", Level::Debug, text)))
}

fn delta<'v>(e: Value<'v>, key: &str, kind: DeltaKind) -> Option<EventKind<'v>> {
    let text = cow_at(e, key).filter(|t| !t.is_empty())?;
    Some(EventKind::Delta(Delta {
        kind,
        index: None,
        text,
    }))
}

/// An `error` event: a warning when the run goes on (`recoverable`).
fn error<'v>(e: Value<'v>, ctx: &Ctx<'v>) -> EventKind<'v> {
    let err = get(e, "error");
    let message = err
        .and_then(|x| str_at(x, "message").or_else(|| x.into_string()))
        .unwrap_or("error");
    let name = err
        .and_then(|x| str_at(x, "name"))
        .filter(|n| *n != "Error");
    let text = match name {
        Some(n) => text!(ctx.arena, "{n}: {message}"),
        None => Cow::Borrowed(message),
    };
    let level = if bool_at(e, "recoverable") == Some(true) {
        Level::Warning
    } else {
        Level::Error
    };
    ctx.notice("error", level, text)
}

/// Cline's counts: `inputTokens` includes the cached part.
pub(super) fn tokens(u: Value<'_>) -> Tokens {
    let cache_read = u64_at(u, "cacheReadTokens");
    Tokens {
        input: u64_at(u, "inputTokens").map(|i| i.saturating_sub(cache_read.unwrap_or(0))),
        output: u64_at(u, "outputTokens"),
        cache_read,
        cache_creation: u64_at(u, "cacheWriteTokens"),
        reasoning: None,
    }
}

/// A model request's `usage`.
fn usage(e: Value<'_>) -> Option<EventKind<'_>> {
    let tokens = tokens(e);
    (tokens.total() > 0).then(|| {
        EventKind::Usage(Usage {
            tokens,
            ..Usage::default()
        })
    })
}

/// `run_result`: the outcome and the totals (sub-agents' included:
/// `aggregateUsage`).
fn result<'v>(v: Value<'v>, a: &'v Arena) -> SessionResult<'v> {
    let reason = str_at(v, "finishReason");
    let is_error = reason != Some("completed");
    let usage = get(v, "aggregateUsage").or_else(|| get(v, "usage"));
    // A failed run reports zeros: no counts.
    let tokens = usage
        .map(tokens)
        .filter(|t| t.total() > 0)
        .unwrap_or_default();
    let text = cow_at(v, "text").filter(|t| !t.is_empty());
    let model = get(v, "model").and_then(|m| cow_at(m, "id"));
    let model_usage = match model {
        Some(model) if !tokens.is_empty() => super::args::list(
            a,
            [ModelUsage {
                model,
                tokens,
                cost_usd: None,
            }],
        ),
        _ => List::default(),
    };
    SessionResult {
        is_error,
        subtype: reason.map(Cow::Borrowed),
        errors: if is_error {
            super::args::list(a, text.clone())
        } else {
            List::default()
        },
        text: text.filter(|_| !is_error),
        num_turns: u64_at(v, "iterations"),
        duration_ms: u64_at(v, "durationMs"),
        // A model without prices reports 0: no cost known.
        cost_usd: usage
            .and_then(|u| f64_at(u, "totalCost"))
            .filter(|c| *c > 0.0),
        tokens,
        model_usage,
        ..SessionResult::default()
    }
}

fn tool_call<'v>(e: Value<'v>, a: &'v Arena) -> ToolCall<'v> {
    let id = cow_at(e, "toolCallId").unwrap_or_default();
    call(id, str_at(e, "toolName").unwrap_or(""), get(e, "input"), a)
}

/// A call of the tool `name` with `input` (also a saved session's
/// `tool_use` block: `cline_session.rs`).
pub(super) fn call<'v>(
    id: Cow<'v, str>,
    name: &'v str,
    input: Option<Value<'v>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let creates = name == "editor" && input.is_some_and(|i| !has(i, "old_text"));
    let changes = match (name, input) {
        ("editor", Some(i)) if creates => write_at(i, "new_text", a),
        ("editor", Some(i)) => replace_at(i, ["old_text", "new_text", "replace_all"], a),
        _ => List::default(),
    };
    ToolCall {
        id,
        name: Cow::Borrowed(name),
        kind: if creates {
            ToolKind::Write
        } else {
            tool_kind(name)
        },
        key_arg: input.and_then(|i| key_arg(name, i, a)),
        input: input.map(JsonText::value).unwrap_or_default(),
        changes,
        ..ToolCall::default()
    }
}

/// A tool's `content_end`: its entries' results, failed when any failed.
fn tool_result<'v>(e: Value<'v>, a: &'v Arena) -> ToolResult<'v> {
    let id = cow_at(e, "toolCallId").unwrap_or_default();
    outcome(id, get(e, "output"), has(e, "error"), a)
}

/// A call's outcome from its `output` (an array of `{query, result,
/// error?, success}`, or one such object): failed when `error` or any
/// entry failed (also a saved session's `tool_result` block).
pub(super) fn outcome<'v>(
    id: Cow<'v, str>,
    output: Option<Value<'v>>,
    error: bool,
    a: &'v Arena,
) -> ToolResult<'v> {
    let entries = output.map(crate::json::Arr::of).unwrap_or_default();
    let failed = |x: Value<'_>| bool_at(x, "success") == Some(false) || has(x, "error");
    let single = output.filter(|o| o.is_object());
    let is_error = error || single.is_some_and(failed) || entries.iter().any(failed);
    let content: Content<'v> = match single {
        Some(o) => entry_text(o, a),
        None if entries.len() == 1 => entries
            .first()
            .map(|x| entry_text(x, a))
            .unwrap_or_default(),
        None => {
            let mut t = a.text();
            for x in entries {
                if !t.is_empty() {
                    t.push('\n');
                }
                if let Some(q) = str_at(x, "query") {
                    t.push_str("$ ");
                    t.push_str(q);
                    t.push('\n');
                }
                t.push_str(&entry_text(x, a).text());
            }
            Cow::Borrowed(t.done()).into()
        }
    };
    ToolResult {
        id,
        is_error,
        content,
        ..ToolResult::default()
    }
}

/// One entry's text: its result, or its error when it has none.
fn entry_text<'v>(x: Value<'v>, a: &'v Arena) -> Content<'v> {
    let result = get(x, "result").filter(|r| r.into_string().is_some_and(|s| !s.is_empty()));
    match result {
        Some(r) => super::args::content_of(r).unwrap_or_default(),
        None => match get(x, "error") {
            Some(err) => match err.into_string() {
                Some(s) => s.into(),
                None => super::args::json_in(err, a).into(),
            },
            None => Content::default(),
        },
    }
}

/// What a Cline tool does.
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "run_commands" | "execute_command" => ToolKind::Shell,
        "read_files" | "read_file" => ToolKind::Read,
        "editor" | "replace_in_file" => ToolKind::Edit,
        "write_to_file" => ToolKind::Write,
        "search_codebase" | "search_files" | "list_files" => ToolKind::Search,
        "fetch_web_content" | "web_fetch" => ToolKind::Fetch,
        "web_search" => ToolKind::WebSearch,
        "spawn_agent" | "use_subagents" => ToolKind::Agent,
        n if n.starts_with("team_") => ToolKind::Agent,
        n => super::args::mcp_or_other(n),
    }
}

/// The one argument that says what a Cline tool call does.
fn key_arg<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(input, k).filter(|v| !v.is_empty());
    let joined = |k: &str| {
        a.join(
            names_at(input, k).chain(arr_at(input, k).iter().filter_map(|f| str_at(f, "path"))),
            ", ",
        )
    };
    match name {
        "run_commands" => a
            .join(names_at(input, "commands"), "; ")
            .map(Cow::Borrowed)
            .or_else(|| s("command")),
        "execute_command" => s("command"),
        "read_files" => joined("files").map(Cow::Borrowed).or_else(|| s("path")),
        "editor" | "read_file" | "write_to_file" | "replace_in_file" | "list_files" => s("path"),
        "search_codebase" => a
            .join(names_at(input, "queries"), ", ")
            .map(Cow::Borrowed)
            .or_else(|| s("query")),
        "fetch_web_content" => joined("urls").map(Cow::Borrowed).or_else(|| s("url")),
        "ask_question" => s("question"),
        "spawn_agent" => s("description")
            .or_else(|| s("task"))
            .or_else(|| s("prompt")),
        _ => first_scalar(input, true, a),
    }
}
