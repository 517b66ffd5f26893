//! The transcript's metadata lines (summaries, snapshots, hooks, progress,
//! cost states…): skipped without an event, or told as a notice.

use std::borrow::Cow;
use std::io;

use crate::decode::args::strings_at;
use crate::decode::producer::{Ctx, Emit};
use crate::event::{Event, EventKind, Level, Notice};
use crate::json::{Unread, Value, bool_at, cow_at, get, str_at, u64_at};

use super::totals::cost_state;
use super::tree::Node;
use super::{Out, State, one_line};

/// The metadata line types of transcripts, which no other stream prints
/// (the last six appeared in 2.1.330), and what becomes of each: one list
/// for detection ([`Transcript`]) and for the decoder ([`metadata`]).
pub(super) const METADATA: [(&str, Meta); 22] = [
    ("summary", Meta::Notice),
    ("file-history-snapshot", Meta::Silent),
    ("queue-operation", Meta::Silent),
    ("custom-title", Meta::Notice),
    ("ai-title", Meta::Notice),
    ("last-prompt", Meta::Silent),
    ("tag", Meta::Silent),
    ("agent-name", Meta::Silent),
    ("agent-color", Meta::Silent),
    ("agent-setting", Meta::Silent),
    ("pr-link", Meta::Notice),
    ("attribution-snapshot", Meta::Silent),
    ("speculation-accept", Meta::Silent),
    ("mode", Meta::Silent),
    ("content-replacement", Meta::Silent),
    ("checkpoint", Meta::Silent),
    ("api-request", Meta::Silent),
    ("api-request-shape", Meta::Silent),
    ("api-request-blob", Meta::Silent),
    ("tools-used", Meta::Silent),
    ("atis-latch", Meta::Silent),
    ("cost-state", Meta::Silent),
];

/// What no report reads of a transcript (see `Entry::unread`): the
/// metadata lines that become no event (of which only the type, session
/// and time are read; `api-request-shape`'s tool list goes to the session
/// header, which no report shows), the reminders an attachment was
/// rendered into, and what an attachment holds beyond its type (the
/// prompt snapshots, listings and deltas of context for the model; the
/// agent types a listing adds go to the header too, and a failed hook's
/// notice is no count).
pub(super) const UNREAD: &[Unread] = &[
    Unread::all_of("api-request"),
    Unread::all_of("api-request-shape"),
    Unread::all_of("api-request-blob"),
    Unread::all_of("file-history-snapshot"),
    Unread::all_of("attribution-snapshot"),
    Unread::all_of("content-replacement"),
    Unread::all_of("checkpoint"),
    Unread::all_of("queue-operation"),
    Unread::all_of("tools-used"),
    Unread::key("rendered"),
    Unread::member("attachment", "*"),
];

/// What a metadata line becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Meta {
    /// Session metadata (undo snapshots, request logs, queue bookkeeping…):
    /// read, but no event.
    Silent,
    /// Worth a notice (a summary, a title, a pull request).
    Notice,
}

/// True for a metadata line type of transcripts.
pub(super) fn is_metadata(ty: &str) -> bool {
    METADATA.iter().any(|(t, _)| *t == ty)
}

/// A `progress` line: no event, but a link of the chain (2.1.x hangs
/// prompts on hook progress), kept for rewinds.
pub(super) fn progress(v: Value<'_>, ctx: &Ctx<'_>, state: &mut State) {
    if let Some(u) = str_at(v, "uuid").filter(|u| !u.is_empty())
        && !state.tree.contains_key(u)
    {
        // No event, but a link of the chain (2.1.x hangs prompts on hook
        // progress): kept for rewinds.
        let parent = str_at(v, "parentUuid").filter(|p| !p.is_empty());
        let side = bool_at(v, "isSidechain") == Some(true);
        state.tree.hang(
            u,
            parent,
            Node {
                line: ctx.line,
                parent: None,
                child: None,
                prompt: false,
                msg: None,
                side,
            },
        );
    }
}

/// What a metadata line worth a notice says.
pub(super) fn metadata_notice(v: Value<'_>, ty: &str) -> (Level, String) {
    match ty {
        "summary" => (
            Level::Debug,
            format!("summary: {}", one_line(str_at(v, "summary").unwrap_or(""))),
        ),
        "custom-title" | "ai-title" => {
            let t = str_at(v, "customTitle")
                .or_else(|| str_at(v, "aiTitle"))
                .or_else(|| str_at(v, "title"))
                .unwrap_or("");
            (Level::Debug, format!("title: {}", one_line(t)))
        }
        "pr-link" => {
            let what = str_at(v, "prUrl")
                .map(str::to_string)
                .or_else(|| u64_at(v, "prNumber").map(|n| format!("#{n}")))
                .unwrap_or_default();
            (Level::Info, format!("pull request {what}"))
        }
        _ => (
            Level::Debug,
            format!("transcript line of type {ty} (not shown)"),
        ),
    }
}

/// A metadata line (titles, request logs, costs…): its time counts for the
/// session it names; a few say something worth a notice.
pub(super) fn metadata<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    ty: &'v str,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let mine = state.count_time(str_at(v, "sessionId"), ctx);
    if ty == "api-request-shape"
        && mine
        && let Some(s) = state.sess.as_mut()
        && s.pending.is_some()
        && let Some(shape) = get(v, "shape")
    {
        s.tools = strings_at(shape, "tools", ctx.arena)
            .iter()
            .map(ToString::to_string)
            .collect();
    }
    if ty == "cost-state" && (mine || state.sess.is_none()) {
        if let Some(s) = state.sess.as_mut() {
            s.cost = Some(cost_state(v, ctx.arena));
        }
        return Ok(());
    }
    // `progress` entries are live-UI noise whose content the transcript
    // also holds elsewhere.
    if ty == "progress" || METADATA.contains(&(ty, Meta::Silent)) {
        return Ok(());
    }
    let (level, text) = metadata_notice(v, ty);
    let ev = Event {
        producer: ctx.producer,
        line: ctx.line,
        source: None,
        session: cow_at(v, "sessionId"),
        parent: None,
        time: ctx.time,
        kind: EventKind::Notice(Notice {
            subtype: Cow::Borrowed(ty),
            level,
            text: Cow::Owned(text),
            raw: Some(ctx.raw()),
            estimate: false,
        }),
    };
    let mut out = Out {
        sess: state.sess.as_mut().filter(|_| mine),
        calls: &mut state.calls,
        results: &mut state.results,
        emit,
    };
    out.send(&ev)
}
