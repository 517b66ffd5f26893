//! `OpenClaw` (`openclaw` 2026.9.6): its saved sessions and its `agent exec
//! --json` report (see `tests/fixtures/openclaw/README.md`).
//!
//! `OpenClaw` runs Pi's agent: its transcript is Pi's saved session, entry
//! for entry (a `session` header, `model_change`, `thinking_level_change`,
//! `message` entries of the roles `user`, `assistant` with its `usage` and
//! cost, and `toolResult`), read by Pi's decoder (`decode/pi.rs`), with
//! `OpenClaw`'s additions:
//!
//! * Where it is: the per-agent database
//!   `~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite`
//!   (`transcript_events.event_json`, a row an entry), read by
//!   `openclaw/store.rs`, and the older JSONL files
//!   `agents/<agent>/sessions/*.jsonl` (also `.jsonl.deleted.<time>` and
//!   `.jsonl.reset.<time>`). Both give the header a `"store": "openclaw"`
//!   (the header is Pi's to the byte): what tells these lines from Pi's.
//! * `custom` entries (`model-snapshot`, `openclaw.cache-ttl`, …): the
//!   CLI's bookkeeping, nothing a view shows.
//! * Its shell tool is `exec {command, title}`; a command that exits
//!   non-zero is no failure to `OpenClaw` (`isError: false`, its exit code
//!   only in `details` and the text): shown as it says.
//!
//! The report (`agent exec --json`, and `agent --local --json`, whose
//! figures are under `meta.agentMeta`) is one JSON document printed at the
//! end, with the run's totals and no call's arguments or results: a
//! session of its own with its tokens, cost, turns, outcome and the
//! summary of its tools.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use super::pi;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use crate::event::{
    Event, EventKind, Level, ModelUsage, Notice, Producer, Role, SessionResult, SessionStart, Text,
    Tokens,
};
use crate::json::{Value, arr_at, bool_at, cow_at, f64_at, get, str_at, u64_at};

/// Per-stream state: Pi's.
#[derive(Default)]
pub(crate) struct State {
    pi: pi::State,
}

/// The registry's line for `OpenClaw`.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::OpenClaw,
    name: "openclaw",
    label: "OpenClaw",
    invocation: "OpenClaw sessions (`~/.openclaw/agents`), `openclaw agent exec --json` reports",
    stream: start::<State>,
    format: &OpenClaw,
    unsearched: &[],
    unread: &[],
    store: Some(Store {
        home: ".openclaw",
        moved_by: &["OPENCLAW_STATE_DIR", "OPENCLAW_DIR"],
        sessions: "agents",
        database: None,
        reader: Some(&store::OpenClaw),
    }),
};

use store::STORE;

/// `OpenClaw`'s saved sessions and reports (the registry's entry).
pub(crate) struct OpenClaw;

impl Format for OpenClaw {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        let marked = str_at(s.v, "store") == Some(STORE);
        // A header, or the line of an archive that could not be read.
        let header = marked && matches!(s.ty, "session" | "skipped" | "unreadable");
        let own = s.ty == "custom" && str_at(s.v, "customType").is_some_and(is_own_custom);
        (header || own || (s.ty.is_empty() && is_report(s.v))).then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        (s.ty == "session" && str_at(s.v, "store") == Some(STORE))
            || (s.ty.is_empty() && is_report(s.v))
    }
}

/// A `customType` only `OpenClaw` writes.
fn is_own_custom(t: &str) -> bool {
    t.starts_with("openclaw") || t == "model-snapshot"
}

/// The report of `agent exec --json` (`ok`, `status`, `payloads`) or of
/// `agent --local --json` (`payloads`, `meta.agentMeta`): no `type`.
fn is_report(v: Value<'_>) -> bool {
    let exec = has(v, "ok") && has(v, "status") && has(v, "payloads");
    let local = has(v, "payloads") && get(v, "meta").is_some_and(|m| has(m, "agentMeta"));
    (exec || local) && !has(v, "type")
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        match str_at(v, "type") {
            // Bookkeeping: which model, cache timers, bootstrap context.
            Some("custom") => Ok(()),
            Some(ty @ ("skipped" | "unreadable")) if has(v, "table") => {
                emit(&ctx.event(EventKind::Notice(not_read(v, ty, ctx))))
            }
            None if is_report(v) => report(v, ctx, emit),
            _ => self.pi.decode(v, ctx, emit),
        }
    }

    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        self.pi.finish(emit)
    }
}

/// An entry of the store its reader could not give (see
/// `openclaw/store.rs`): said.
fn not_read<'v>(v: Value<'v>, ty: &str, ctx: &Ctx<'v>) -> Notice<'v> {
    let id = str_at(v, "id").unwrap_or("?");
    let (what, broken) = match str_at(v, "table") {
        Some("transcript_events") => ("transcript entry", "not a JSON object"),
        Some("line") => ("archive line", "not a JSON object"),
        _ => ("archive of session", "missing, cut short or not zstd"),
    };
    let text = match u64_at(v, "bytes") {
        Some(n) if ty == "skipped" => text!(ctx.arena, "{what} {id} not read: {n} bytes"),
        _ => text!(ctx.arena, "{what} {id} not read: {broken}"),
    };
    Notice {
        subtype: Cow::Borrowed("store"),
        level: Level::Warning,
        text,
        raw: None,
        estimate: false,
    }
}

/// The report: a session with its totals (see the module docs).
fn report<'v>(v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    // `agent --local --json` keeps the figures under `meta.agentMeta`.
    let meta = get(v, "meta");
    let figures = meta.and_then(|m| get(m, "agentMeta")).unwrap_or(v);
    let session = cow_at(figures, "sessionId");
    let event = |kind| Event {
        session: session.clone(),
        ..ctx.event(kind)
    };
    let model = cow_at(figures, "model");
    let start = SessionStart {
        model: model.clone(),
        ..SessionStart::default()
    };
    emit(&event(EventKind::SessionStart(start)))?;
    let usage = get(figures, "usage");
    let tokens = usage.map(tokens_of).unwrap_or_default();
    let cost = f64_at(figures, "costUsd").or_else(|| {
        usage
            .and_then(|u| get(u, "cost"))
            .and_then(|c| f64_at(c, "total"))
    });
    // The run's totals, not a message's: the result's, per model.
    let model_usage = model
        .clone()
        .filter(|_| tokens.total() > 0)
        .map(|model| ModelUsage {
            model,
            tokens,
            cost_usd: cost,
        });
    let summary = get(v, "toolSummary").or_else(|| meta.and_then(|m| get(m, "toolSummary")));
    if let Some(notice) = summary.and_then(|s| tools_notice(s, ctx)) {
        emit(&event(EventKind::Notice(notice)))?;
    }
    let failed = match bool_at(v, "ok") {
        Some(ok) => !ok,
        None => meta.and_then(|m| bool_at(m, "aborted")) == Some(true),
    };
    let (answer, errors) = said(v);
    if let Some(text) = answer.clone() {
        let text = Text {
            role: Role::Assistant,
            text,
            message_id: None,
            command: None,
            continues: false,
        };
        emit(&event(EventKind::Text(text)))?;
    }
    let failed = failed || (answer.is_none() && !errors.is_empty());
    let status = str_at(v, "status").filter(|s| *s != "ok");
    let res = SessionResult {
        is_error: failed,
        subtype: Some(Cow::Borrowed(match (failed, status) {
            (true, Some(s)) => s,
            (true, None) => "error",
            (false, _) => "success",
        })),
        text: answer.filter(|_| !failed),
        errors: errors.into(),
        num_turns: u64_at(figures, "assistantTurns"),
        duration_ms: meta.and_then(|m| u64_at(m, "durationMs")),
        cost_usd: cost,
        tokens,
        model_usage: model_usage.into_iter().collect::<Vec<_>>().into(),
        terminal_reason: get(v, "error").and_then(|e| cow_at(e, "kind")),
        ..SessionResult::default()
    };
    emit(&event(EventKind::Result(Box::new(res))))
}

/// What the report says the run ended with: its answer (a payload's
/// text that is no error), and its errors (`error.message`, then the
/// payloads' error texts, each once).
fn said(v: Value<'_>) -> (Option<Cow<'_, str>>, Vec<Cow<'_, str>>) {
    let mut errors = Vec::new();
    if let Some(e) = get(v, "error").and_then(|e| cow_at(e, "message")) {
        errors.push(e);
    }
    let mut answer = None;
    for p in arr_at(v, "payloads") {
        let Some(text) = cow_at(p, "text").filter(|t| !t.trim().is_empty()) else {
            continue;
        };
        if bool_at(p, "isError") != Some(true) {
            answer = Some(text);
        } else if !errors.contains(&text) {
            errors.push(text);
        }
    }
    (answer, errors)
}

/// The report's `toolSummary` told: how many calls of which tools, how
/// many failed (its only word on them: no arguments, no results).
fn tools_notice<'v>(s: Value<'v>, ctx: &Ctx<'v>) -> Option<Notice<'v>> {
    let calls = u64_at(s, "calls")?;
    let failures = u64_at(s, "failures").unwrap_or(0);
    let mut t = ctx.arena.text();
    let _ = write!(t, "{calls} tool call{}", if calls == 1 { "" } else { "s" });
    let names: Vec<&str> = (arr_at(s, "tools").iter())
        .filter_map(Value::into_string)
        .collect();
    if !names.is_empty() {
        let _ = write!(t, " ({})", names.join(", "));
    }
    if failures > 0 {
        let _ = write!(t, ", {failures} failed");
        let last = get(s, "unresolvedError").and_then(|e| str_at(e, "toolName"));
        if let Some(name) = last {
            let _ = write!(t, " (unresolved: {name})");
        }
    }
    Some(Notice {
        subtype: Cow::Borrowed("tool_summary"),
        level: if failures > 0 {
            Level::Warning
        } else {
            Level::Info
        },
        text: Cow::Borrowed(t.done()),
        // The report is a document over many lines: not kept as its line.
        raw: None,
        estimate: false,
    })
}

/// `OpenClaw`'s (Pi's) token counts: input without the cached tokens,
/// output with the reasoning ones.
fn tokens_of(u: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(u, "input"),
        output: u64_at(u, "output"),
        cache_read: u64_at(u, "cacheRead"),
        cache_creation: u64_at(u, "cacheWrite"),
        reasoning: None,
    }
}

mod store;

#[cfg(test)]
mod tests;
