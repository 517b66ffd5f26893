//! Kilo CLI `kilo run --format json`: a fork of `OpenCode`, read by
//! `OpenCode`'s decoder (`decode/opencode.rs`) with Kilo's additions (see
//! `tests/fixtures/kilo/README.md`):
//!
//! * Its parts name their `sessionID` second (`{id, sessionID, messageID,
//!   …}`; `OpenCode` 1.18 never does, but `OpenCode` of 2025 did: such a
//!   line dated before 2026, when Kilo's fork was first released, is
//!   `OpenCode`'s), its `step_finish` has `metrics` and its calls
//!   `metadata.approval` (Kilo's whatever their date): what tells its
//!   lines from `OpenCode`'s. A stream whose first line is an `error` (a
//!   context overflow Kilo recovers from) cannot be told apart and reads
//!   as `OpenCode`.
//! * An `edit` or `write` result has the unified diff it made in
//!   `metadata.diff`: the result's changes (with line numbers).
//! * Each allowed call says which rule allowed it (`metadata.approval`)
//!   and each step its `metrics`: notices for `-v`, their lines kept.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, start};
use crate::event::{Edit, Event, EventKind, FileChange, Level, Notice, Producer, ToolKind};
use crate::json::{Value, f64_at, get, str_at};

/// Per-stream state: `OpenCode`'s.
#[derive(Default)]
pub(crate) struct State {
    opencode: super::opencode::State,
}

/// The registry's line for Kilo CLI.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Kilo,
    name: "kilo",
    label: "Kilo CLI",
    invocation: "Kilo CLI `run --format json`",
    stream: start::<State>,
    format: &Kilo,
    unsearched: &[],
    unread: &[],
    store: Some(Store {
        home: ".local/share",
        moved_by: &["XDG_DATA_HOME"],
        sessions: "kilo",
        database: None,
        reader: Some(&super::opencode::store::Cli::Kilo),
    }),
};

/// 2026-01-01T00:00:00Z in Unix milliseconds: Kilo CLI's `OpenCode` fork
/// was first released in 2026; a stream of before is `OpenCode`'s
/// whatever its parts' order.
const FORKED_MS: u64 = 1_767_225_600_000;

/// `kilo run --format json` (the registry's entry, asked before
/// `OpenCode`'s).
pub(crate) struct Kilo;

impl Format for Kilo {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        super::opencode::OpenCode.detect(s)?;
        // A session of Kilo's store (`opencode/store.rs`) says so.
        if str_at(s.v, "store") == Some("kilo") {
            return Some(Evidence::Type);
        }
        let part = get(s.v, "part")?;
        if get(part, "metrics").is_some() || approval(part).is_some() {
            return Some(Evidence::Type);
        }
        // `OpenCode` wrote its parts in this order too in 2025, before
        // Kilo's fork was released: a line of then is `OpenCode`'s.
        let second = part
            .as_object()
            .and_then(|o| o.keys().nth(1).map(|k| k == "sessionID"));
        let dated = get(s.v, "timestamp").and_then(Value::as_u64);
        (second == Some(true) && dated.is_some_and(|t| t >= FORKED_MS)).then_some(Evidence::Type)
    }

    fn opens(&self, _: Shape<'_>) -> bool {
        // Its `step_start` is `OpenCode`'s: a Kilo stream read as
        // `OpenCode` (its first line an `error`) goes on as it began.
        false
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let part = get(v, "part");
        let diff = part.and_then(result_diff);
        let kind = part.and_then(own_kind);
        self.opencode.decode(
            v,
            ctx,
            &mut |ev: &Event<'_>| match adjusted(ev, diff, kind) {
                Some(kind) => emit(&Event {
                    producer: ev.producer,
                    line: ev.line,
                    source: ev.source.clone(),
                    session: ev.session.clone(),
                    parent: ev.parent.clone(),
                    time: ev.time,
                    kind,
                }),
                None => emit(ev),
            },
        )?;
        match part {
            Some(p) => extras(p, ctx, emit),
            None => Ok(()),
        }
    }

    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        self.opencode.finish(emit)
    }
}

/// `OpenCode`'s event as Kilo's: a call whose result has the diff it made
/// (`diff`) or whose kind `OpenCode`'s rule gets wrong (`kind`); `None`
/// when it is the same.
fn adjusted<'e>(
    ev: &Event<'e>,
    diff: Option<&str>,
    kind: Option<ToolKind>,
) -> Option<EventKind<'e>> {
    match &ev.kind {
        EventKind::ToolCall(c) if diff.is_some() || kind.is_some() => {
            let mut c = c.clone();
            c.changes_in_result = diff.is_some();
            c.kind = kind.unwrap_or(c.kind);
            Some(EventKind::ToolCall(c))
        }
        EventKind::ToolResult(r) if !r.is_error => {
            let mut r = r.clone();
            let patch = Edit::Patch(diff?.to_string().into());
            r.changes = vec![FileChange {
                path: None,
                edit: patch,
            }]
            .into();
            Some(EventKind::ToolResult(r))
        }
        _ => None,
    }
}

/// The kind of a Kilo tool whose name `OpenCode`'s rule would take for an
/// MCP tool's (`<server>_<tool>`), and of a call to a tool that does not
/// exist (Kilo keeps the name the model asked for; `OpenCode` says
/// `invalid`).
fn own_kind(part: Value<'_>) -> Option<ToolKind> {
    let state = get(part, "state");
    let error = state.and_then(|s| str_at(s, "error")).unwrap_or("");
    if error.contains("tried to call unavailable tool") {
        return Some(ToolKind::Other);
    }
    Some(match str_at(part, "tool")? {
        "background_process" => ToolKind::Shell,
        "board_post" | "board_read" | "kilo_local_recall" | "schedule_wakeup" | "cancel_wakeup" => {
            ToolKind::Other
        }
        _ => return None,
    })
}

/// The rule that allowed a call.
fn approval(part: Value<'_>) -> Option<Value<'_>> {
    get(part, "state")
        .and_then(|s| get(s, "metadata"))
        .and_then(|m| get(m, "approval"))
}

/// The diff a finished `edit`/`write` made, from its first hunk (the
/// `Index:` and `---`/`+++` headers name the call's file again).
fn result_diff(part: Value<'_>) -> Option<&str> {
    let state = get(part, "state")?;
    let tool = str_at(part, "tool")?;
    if !matches!(tool, "edit" | "write" | "multiedit")
        || str_at(state, "status") != Some("completed")
    {
        return None;
    }
    let diff = str_at(get(state, "metadata")?, "diff")?;
    let hunks = if diff.starts_with("@@") {
        0
    } else {
        diff.find("\n@@")? + 1
    };
    Some(&diff[hunks..])
}

/// Kilo's additions as notices for `-v` (their lines kept in JSONL): the
/// rule that allowed a call, a step's metrics.
fn extras<'v>(part: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let mut t = ctx.arena.text();
    let subtype = if let Some(a) = approval(part) {
        let rule = get(a, "rule");
        let field = |k| rule.and_then(|r| str_at(r, k)).unwrap_or("?");
        let _ = write!(
            t,
            "{} {}: {}",
            field("permission"),
            field("pattern"),
            field("action")
        );
        if let Some(s) = str_at(a, "source") {
            let _ = write!(t, " ({s} rule)");
        }
        "approval"
    } else if let Some(m) = get(part, "metrics") {
        t.push_str("step metrics");
        // Output tokens per second (50 tokens in 250 ms: 200).
        if let Some(g) = f64_at(m, "generation") {
            let _ = write!(t, ": {g:.0} tokens/s");
        }
        if let Some(s) = str_at(m, "source") {
            let _ = write!(t, " ({s})");
        }
        "metrics"
    } else {
        return Ok(());
    };
    emit(&Event {
        producer: ctx.producer,
        line: ctx.line,
        source: None,
        session: str_at(part, "sessionID").map(Cow::Borrowed),
        parent: None,
        time: ctx.time,
        kind: EventKind::Notice(Notice {
            subtype: Cow::Borrowed(subtype),
            level: Level::Debug,
            text: Cow::Borrowed(t.done()),
            raw: Some(ctx.raw()),
            estimate: false,
        }),
    })
}
