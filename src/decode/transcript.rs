//! Claude Code's saved session transcripts
//! (`~/.claude/projects/<project>/<session>.jsonl`, and the sub-agents'
//! `<session>/subagents/agent-<id>.jsonl`).
//!
//! The message bodies are those of stream-json (one content block per
//! `assistant` line, tool results in `user` lines), so the blocks go through
//! the Claude decoder. What differs, and is handled here (see
//! `tests/fixtures/claude-transcript/README.md` and `docs/schema.md`):
//!
//! * a camelCase envelope (`sessionId`, `parentUuid`, `isSidechain`,
//!   `agentId`, `cwd`, `version`, `timestamp`, `uuid`);
//! * no `system/init`: the session header is built from the first
//!   conversation entry (cwd, version, permission mode) and the first
//!   assistant message (model), so the events before that one are held back;
//! * no `result`: [`finish`] reconstructs one (tokens per distinct message
//!   id, turns, duration from the timestamps, cost only from a `cost-state`
//!   line), unless the transcript stops mid-turn;
//! * many metadata line types, which are skipped without an event;
//! * the conversation is a tree by `parentUuid`: entries repeated by a resume
//!   are skipped by `uuid`, and a rewind (a new prompt or answer hung on an
//!   entry that already had one) is reported as a notice;
//! * sub-agent lines (`isSidechain`) carry no parent tool id: they are nested
//!   under their `Agent`/`Task` call when this input links them (the call's
//!   result names the `agentId`, or the sub-agent's first prompt equals the
//!   call's `prompt`), and shown un-nested with a notice saying so otherwise
//!   (neither when lines may be left unread: `--grep`).

use foldhash::HashMap;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use simd_json::prelude::*;

use super::args::strings_at;
use super::claude::{self, Base};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, has, start};
use super::seen::Seen;
use crate::event::{Event, EventKind, Level, List, Notice, Producer, SessionStart};
use crate::json::{
    Arr, J, Unread, Value, arr_at, bool_at, cow_at, f64_at, f64_of, get, is_null, str_at, u64_at,
    view,
};
use crate::time::Timestamp;

mod totals;
mod tree;

use totals::{Acc, Cost, Span, cost_state};
use tree::{Node, Tree, abandoned};

/// Events held back while the session header waits for the model: at most
/// this many, then the header goes out without one.
const MAX_HELD: usize = 256;

/// Agent/Task calls remembered for linking a sub-agent by its prompt.
const MAX_AGENT_PROMPTS: usize = 64;

/// Sub-agent types listed in a session's header at most.
const MAX_AGENT_TYPES: usize = 256;

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// The Claude decoder's own state (usage once per message id).
    claude: claude::State,
    /// The conversation tree by `uuid`: for rewinds, and for the entries a
    /// resume writes again.
    tree: Tree,
    /// Tool call ids already emitted, and answered: each goes out once.
    calls: Seen,
    results: Seen,
    /// `agentId` → id of the `Agent`/`Task` call that started it.
    agents: HashMap<String, String>,
    /// `(prompt, call id)` of `Agent`/`Task` calls no sub-agent claimed yet.
    prompts: Vec<(String, String)>,
    /// `uuid` of a linked sidechain entry → its parent call id.
    side_parent: HashMap<String, String>,
    /// Sub-agents already announced as un-nested.
    announced: Seen,
    /// A run of repeated entries not reported yet.
    dup: Option<DupRun>,
    /// The session being read.
    sess: Option<Sess>,
    /// Timestamps of lines read before the session's first entry.
    early: Span,
}

/// A run of entries read again (a resume writes copies), not reported yet.
struct DupRun {
    first: u64,
    last: u64,
    count: u64,
}

/// One session of the input (a new `sessionId` starts another).
struct Sess {
    id: Option<String>,
    /// The first entry was a sidechain: this is a sub-agent's own file.
    side_file: bool,
    /// Line of the first entry: where the session header is dated.
    line: u64,
    cwd: Option<String>,
    version: Option<String>,
    permission_mode: Option<String>,
    tools: Vec<String>,
    agents: Vec<String>,
    /// Model shown by the last header.
    model: Option<String>,
    /// Events held until the header can be written; `None` once it was.
    pending: Option<Vec<Event<'static>>>,
    /// The main conversation, and the sidechain lines.
    main: Acc,
    side: Acc,
    span: Span,
    cost: Option<Cost>,
    last_line: u64,
}

/// Where decoded events go: held while the header waits, once per call id.
struct Out<'a, 'e> {
    sess: Option<&'a mut Sess>,
    calls: &'a mut Seen,
    results: &'a mut Seen,
    emit: &'a mut Emit<'e>,
}

impl Out<'_, '_> {
    fn send(&mut self, ev: &Event<'_>) -> io::Result<()> {
        match &ev.kind {
            EventKind::ToolCall(c) if !c.id.is_empty() && !self.calls.insert(&c.id) => {
                return Ok(());
            }
            EventKind::ToolResult(r) if !r.id.is_empty() && !self.results.insert(&r.id) => {
                return Ok(());
            }
            _ => {}
        }
        if let Some(sess) = self.sess.as_deref_mut()
            && let Some(held) = sess.pending.as_mut()
        {
            if held.len() < MAX_HELD {
                held.push(ev.to_owned_event());
                return Ok(());
            }
            flush_header(sess, self.emit)?;
        }
        (self.emit)(ev)
    }
}

/// The metadata line types of transcripts, which no other stream prints
/// (the last six appeared in 2.1.330), and what becomes of each: one list
/// for detection ([`Transcript`]) and for the decoder ([`metadata`]).
const METADATA: [(&str, Meta); 22] = [
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
const UNREAD: &[Unread] = &[
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
enum Meta {
    /// Session metadata (undo snapshots, request logs, queue bookkeeping…):
    /// read, but no event.
    Silent,
    /// Worth a notice (a summary, a title, a pull request).
    Notice,
}

/// True for a metadata line type of transcripts.
fn is_metadata(ty: &str) -> bool {
    METADATA.iter().any(|(t, _)| *t == ty)
}

/// The registry's line for Claude Code transcript.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::ClaudeTranscript,
    name: "claude-transcript",
    label: "Claude Code transcript",
    invocation: "Claude Code saved transcripts (`~/.claude/projects/…/<session>.jsonl`)",
    stream: start::<State>,
    format: &Transcript,
    unsearched: &[
        "cwd",
        "entrypoint",
        "gitBranch",
        "isSidechain",
        "leafUuid",
        "parentUuid",
        "permissionDecision",
        "permissionMode",
        "promptId",
        "promptSource",
        "requestId",
        "sourceToolAssistantUUID",
        "timestamp",
        "userType",
        "uuid",
        "version",
    ],
    unread: UNREAD,
    store: None,
};

/// Claude Code's saved session transcripts (the registry's entry).
pub(crate) struct Transcript;

impl Format for Transcript {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // Lines with a parent, transcript entries and transcript-only types.
        (has(s.v, "parentUuid")
            || (has(s.v, "sessionId")
                && matches!(
                    s.ty,
                    "user" | "assistant" | "system" | "attachment" | "progress"
                ))
            || is_metadata(s.ty))
        .then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        // A transcript's first entry has no parent; before it come metadata
        // lines (`queue-operation`…) that no other stream prints. The bulk
        // of a live Claude stream is never a transcript's first entry.
        match s.ty {
            "system" => s.sub() == Some("init"),
            "stream_event" | "result" | "rate_limit_event" => false,
            ty => get(s.v, "parentUuid").is_some_and(is_null) || is_metadata(ty),
        }
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        let Some(ty) = str_at(v, "type") else {
            return super::producer::unknown_line(v, ctx, emit);
        };
        if matches!(ty, "user" | "assistant" | "system" | "attachment") {
            return entry(v, ctx, ty, state, emit);
        }
        if ty == "progress" {
            progress(v, ctx, state);
        }
        metadata(v, ctx, ty, state, emit)
    }

    /// End of input: what was held back, and the reconstructed result.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        flush_dup(state, emit)?;
        finish_session(state, emit)
    }
}

/// A `progress` line: no event, but a link of the chain (2.1.x hangs
/// prompts on hook progress), kept for rewinds.
fn progress(v: Value<'_>, ctx: &Ctx<'_>, state: &mut State) {
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
fn metadata_notice(v: Value<'_>, ty: &str) -> (Level, String) {
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
fn metadata<'v>(
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

/// A conversation entry: `user`, `assistant`, `system`, `attachment`.
fn entry<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    ty: &'v str,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    // The envelope in one walk of the keys (`Value::fields`).
    let [uuid, side, sid, parent, meta, msg] = v.fields([
        "uuid",
        "isSidechain",
        "sessionId",
        "parentUuid",
        "isMeta",
        "message",
    ]);
    let uuid = uuid.and_then(Value::into_string).filter(|u| !u.is_empty());
    if uuid.is_some_and(|u| state.tree.contains_key(u)) {
        state.seen_again(ctx.line);
        return Ok(());
    }
    flush_dup(state, emit)?;
    let side = side.and_then(Value::as_bool) == Some(true);
    let sid = sid.and_then(Value::into_string);
    enter_session(v, ctx, side, sid, state, emit)?;
    let meta = meta.and_then(Value::as_bool) == Some(true);
    let parent_uuid = parent
        .and_then(Value::into_string)
        .filter(|p| !p.is_empty());
    let e = EntryShape::of(ty, side, msg, parent_uuid, meta);
    let mut out = Out {
        sess: state.sess.as_mut(),
        calls: &mut state.calls,
        results: &mut state.results,
        emit,
    };
    if let Some(u) = uuid {
        link(v, ctx, u, &e, &mut state.tree, &mut out)?;
    }
    // Lines may be left unread (`--grep`): the links would depend on which.
    let parent = if side && !ctx.skipping {
        let mut links = Links {
            agents: &mut state.agents,
            side_parent: &mut state.side_parent,
            prompts: &mut state.prompts,
            announced: &mut state.announced,
        };
        sub_agent_call(v, ctx, uuid, &e, &mut links, &mut out)?
    } else {
        None
    };
    let base = Base {
        producer: ctx.producer,
        line: ctx.line,
        session: sid.map(Cow::Borrowed),
        parent: parent.map(Cow::Owned),
        time: ctx.time,
    };
    match ty {
        "assistant" => assistant(
            v,
            ctx,
            &base,
            &e,
            &mut state.claude,
            &mut state.prompts,
            &mut out,
        ),
        "user" => user(v, ctx, &base, &e, &mut state.agents, &mut out),
        "system" => system(v, ctx, &base, &mut out),
        _ => attachment(v, ctx, &base, &mut out),
    }
}

impl State {
    /// A metadata line's time counts for the session it names (`sid`, or
    /// none: the current one), or before any session: true when it is the
    /// current session's.
    fn count_time(&mut self, sid: Option<&str>, ctx: &Ctx<'_>) -> bool {
        let ts = ctx.time.map(Timestamp::millis);
        let mine = self
            .sess
            .as_ref()
            .is_some_and(|s| sid.is_none() || s.id.as_deref() == sid);
        match self.sess.as_mut() {
            Some(s) if mine => {
                s.last_line = ctx.line;
                if let Some(t) = ts {
                    s.span.add(t);
                }
            }
            _ => {
                if let Some(t) = ts {
                    self.early.add(t);
                }
            }
        }
        mine
    }

    /// An entry read before, again (a resume writes copies): counted, and
    /// reported once the run of them ends.
    fn seen_again(&mut self, line: u64) {
        match self.dup.as_mut() {
            Some(d) => {
                d.last = line;
                d.count += 1;
            }
            None => {
                self.dup = Some(DupRun {
                    first: line,
                    last: line,
                    count: 1,
                });
            }
        }
    }
}

/// The session an entry belongs to: another `sessionId` ends the one in
/// progress; the header takes its environment from the first entries.
fn enter_session(
    v: Value<'_>,
    ctx: &Ctx<'_>,
    side: bool,
    sid: Option<&str>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    if let (Some(s), Some(cur)) = (sid, state.sess.as_ref())
        && cur.id.as_deref().is_some_and(|c| c != s)
    {
        finish_session(state, emit)?;
    }
    let early = std::mem::take(&mut state.early);
    let sess = state.sess.get_or_insert_with(|| Sess {
        id: sid.map(str::to_string),
        side_file: side,
        line: ctx.line,
        cwd: None,
        version: None,
        permission_mode: None,
        tools: Vec::new(),
        agents: Vec::new(),
        model: None,
        pending: Some(Vec::new()),
        main: Acc::default(),
        side: Acc::default(),
        span: Span::default(),
        cost: None,
        last_line: ctx.line,
    });
    sess.span.merge(early);
    if sess.id.is_none() {
        sess.id = sid.map(str::to_string);
    }
    sess.last_line = ctx.line;
    if let Some(t) = ctx.time.map(Timestamp::millis) {
        sess.span.add(t);
    }
    if sess.pending.is_some() {
        // The header takes the environment from the first entries.
        let fill = |slot: &mut Option<String>, key: &str| {
            if slot.is_none() {
                *slot = str_at(v, key).map(str::to_string);
            }
        };
        fill(&mut sess.cwd, "cwd");
        fill(&mut sess.version, "version");
        if side == sess.side_file {
            fill(&mut sess.permission_mode, "permissionMode");
        }
    }
    Ok(())
}

/// What an entry is, for the tree and the sub-agent links.
struct EntryShape<'v> {
    ty: &'v str,
    /// A sub-agent's (`isSidechain`).
    side: bool,
    parent_uuid: Option<&'v str>,
    meta: bool,
    /// Its `message`, and the message's `content`.
    msg: Option<Value<'v>>,
    content: Option<Value<'v>>,
    /// Tool results among its content blocks.
    results: usize,
    /// A user entry that is more than tool results: a prompt, injected text.
    prompt: bool,
    /// An assistant entry's message id.
    msg_id: Option<&'v str>,
}

impl<'v> EntryShape<'v> {
    /// Of an entry of type `ty`, from its `isSidechain`, `message`,
    /// `parentUuid` (not empty) and `isMeta`.
    fn of(
        ty: &'v str,
        side: bool,
        msg: Option<Value<'v>>,
        parent_uuid: Option<&'v str>,
        meta: bool,
    ) -> Self {
        let content = msg.and_then(|m| get(m, "content"));
        let results = content.and_then(Value::as_array).map_or(0, |a| {
            a.iter()
                .filter(|b| str_at(*b, "type") == Some("tool_result"))
                .count()
        });
        let blocks = content.and_then(Value::as_array).map_or(1, Arr::len);
        EntryShape {
            ty,
            side,
            parent_uuid,
            meta,
            msg,
            content,
            results,
            prompt: ty == "user" && (results == 0 || results < blocks),
            msg_id: if ty == "assistant" {
                msg.and_then(|m| str_at(m, "id"))
            } else {
                None
            },
        }
    }
}

/// Hang the entry `u` in the tree. A new prompt or answer hung on an entry
/// that already had one is a rewind: what hung there before is an abandoned
/// branch, and a notice says so.
fn link(
    v: Value<'_>,
    ctx: &Ctx<'_>,
    u: &str,
    e: &EntryShape<'_>,
    tree: &mut Tree,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let (ty, side, parent_uuid, prompt, meta, results, msg_id) = (
        e.ty,
        e.side,
        e.parent_uuid,
        e.prompt,
        e.meta,
        e.results,
        e.msg_id,
    );
    let fork = parent_uuid.and_then(|p| {
        let pn = tree.get(p).filter(|pn| pn.side == side)?;
        let c = pn.child?;
        let cn = &tree.nodes[c];
        // A rewind starts with a typed prompt (never with tool results)
        // or a regenerated answer.
        let replaces = (prompt && !meta && results == 0) || ty == "assistant";
        let was_turn = cn.prompt || cn.msg.as_deref().is_some_and(|m| Some(m) != msg_id);
        (replaces && was_turn).then_some((c, pn.line))
    });
    if let Some((c, from)) = fork {
        let text = abandoned(tree, c, from);
        out.send(&Event {
            producer: ctx.producer,
            line: ctx.line,
            source: None,
            session: cow_at(v, "sessionId"),
            parent: None,
            time: ctx.time,
            kind: EventKind::Notice(Notice {
                subtype: Cow::Borrowed("rewind"),
                level: Level::Info,
                text: Cow::Owned(text),
                raw: Some(ctx.raw()),
                estimate: false,
            }),
        })?;
    }
    tree.hang(
        u,
        parent_uuid,
        Node {
            line: ctx.line,
            parent: None,
            child: None,
            prompt,
            msg: msg_id.map(str::to_string),
            side,
        },
    );
    Ok(())
}

/// What linking a sub-agent to its call reads and writes.
struct Links<'a> {
    agents: &'a mut HashMap<String, String>,
    side_parent: &'a mut HashMap<String, String>,
    prompts: &'a mut Vec<(String, String)>,
    announced: &'a mut Seen,
}

/// The `Agent`/`Task` call a sidechain entry nests under, when this input
/// links it (its `agentId` named by the call's result, an entry of it
/// already linked, or its first prompt equal to the call's); a notice the
/// first time a sub-agent cannot be linked.
fn sub_agent_call(
    v: Value<'_>,
    ctx: &Ctx<'_>,
    uuid: Option<&str>,
    e: &EntryShape<'_>,
    state: &mut Links<'_>,
    out: &mut Out<'_, '_>,
) -> io::Result<Option<String>> {
    let (ty, parent_uuid, content) = (e.ty, e.parent_uuid, e.content);
    let agent_id = str_at(v, "agentId").filter(|a| !a.is_empty());
    let linked = agent_id
        .and_then(|a| state.agents.get(a))
        .or_else(|| parent_uuid.and_then(|p| state.side_parent.get(p)))
        .cloned()
        .or_else(|| {
            let text = (ty == "user").then(|| first_text(content)).flatten()?;
            let i = state.prompts.iter().position(|(p, _)| p == text)?;
            let (_, call) = state.prompts.remove(i);
            if let Some(a) = agent_id {
                state.agents.insert(a.to_string(), call.clone());
            }
            Some(call)
        });
    if let (Some(u), Some(call)) = (uuid, linked.as_ref()) {
        state.side_parent.insert(u.to_string(), call.clone());
    }
    if linked.is_none() {
        let key = agent_id.unwrap_or("");
        if state.announced.insert(key) {
            let text = if key.starts_with("acompact") {
                format!(
                    "compaction sub-agent {key}: it summarizes the conversation for the \
                         context compaction (no Agent call started it)"
                )
            } else {
                let who = agent_id.map_or_else(String::new, |a| format!(" {a}"));
                format!(
                    "sub-agent{who}, shown un-nested: the Agent call that started it is \
                         not in this input (to nest it: cat <session>.jsonl \
                         <session>/subagents/agent-*.jsonl | streamview)"
                )
            };
            out.send(&Event {
                producer: ctx.producer,
                line: ctx.line,
                source: None,
                session: cow_at(v, "sessionId"),
                parent: None,
                time: ctx.time,
                kind: EventKind::Notice(Notice {
                    subtype: Cow::Borrowed("sidechain"),
                    level: Level::Info,
                    text: Cow::Owned(text),
                    raw: None,
                    estimate: false,
                }),
            })?;
        }
    }
    Ok(linked)
}

fn assistant<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    e: &EntryShape<'v>,
    cstate: &mut claude::State,
    prompts: &mut Vec<(String, String)>,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let (side, content, id) = (e.side, e.content, e.msg_id);
    // Each in one walk of the keys (`Value::fields`).
    let [flagged, flagged_snake, error, cost] = v.fields([
        "isApiErrorMessage",
        "is_api_error_message",
        "error",
        "costUSD",
    ]);
    let [model, usage, stop] = e
        .msg
        .map(|m| m.fields(["model", "usage", "stop_reason"]))
        .unwrap_or_default();
    let (model, stop) = (
        model.and_then(Value::into_string),
        stop.and_then(Value::into_string),
    );
    let blocks = content.map(Arr::of).unwrap_or_default();
    let error = error.and_then(Value::into_string);
    let flagged = [flagged, flagged_snake]
        .iter()
        .any(|f| f.and_then(Value::as_bool) == Some(true));
    let error_text = api_error(model, flagged, error, content, ctx);
    remember_agent_prompts(blocks, prompts);
    if let Some(sess) = out.sess.as_deref_mut() {
        let model = model.filter(|_| error_text.is_none());
        header_model(sess, model, side, ctx.line, out.emit)?;
        if !side && sess.cost.is_some() && id.is_some_and(|id| !sess.main.index.contains_key(id)) {
            // An answer after the cost line (a session resumed, or still
            // going): its total no longer covers every message.
            sess.cost = None;
        }
        let acc = if side { &mut sess.side } else { &mut sess.main };
        acc.seen = true;
        acc.user_after = false;
        if error_text.is_none()
            && let Some(id) = id
        {
            let tokens = usage.map(super::messages::tokens);
            acc.count(id, tokens, cost.and_then(f64_of), stop.is_some());
        }
        let last = acc.last_of(id);
        if let Some(r) = stop {
            last.stop_reason = Some(r.to_string());
        }
        match &error_text {
            Some(e) => last.error = Some(e.clone()),
            None => last.answer(content, blocks),
        }
    }
    if let Some(text) = error_text {
        return out.send(&note(base, ctx, "api_error", Level::Error, text));
    }
    claude::assistant(v, ctx, base, cstate, &mut |ev| out.send(ev))
}

/// The error text of an assistant entry that reports a failed API request:
/// the CLI writes one of its own making, and it is an error, not
/// something the model said.
/// (`flagged`: `isApiErrorMessage` or `is_api_error_message` is true;
/// `error`: the entry's `error` string.)
fn api_error(
    model: Option<&str>,
    flagged: bool,
    error: Option<&str>,
    content: Option<Value<'_>>,
    ctx: &Ctx<'_>,
) -> Option<String> {
    let api_error = model == Some("<synthetic>") || flagged || error.is_some();
    api_error.then(|| {
        let text = content
            .map(|c| super::messages::content_text(c, ctx.arena))
            .filter(|t| !t.is_empty());
        match (text, error) {
            (Some(t), _) => t.into_owned(),
            (None, Some(e)) => format!("API error: {e}"),
            (None, None) => "API error".to_string(),
        }
    })
}

/// The prompts of `Agent`/`Task` calls, to link their sub-agents by.
fn remember_agent_prompts(blocks: Arr<'_>, prompts: &mut Vec<(String, String)>) {
    for b in blocks {
        if matches!(str_at(b, "name"), Some("Agent" | "Task"))
            && let (Some(id), Some(p)) = (
                str_at(b, "id"),
                get(b, "input").and_then(|i| str_at(i, "prompt")),
            )
        {
            if prompts.len() >= MAX_AGENT_PROMPTS {
                prompts.remove(0);
            }
            prompts.push((p.to_string(), id.to_string()));
        }
    }
}

/// The session header waits for the first model; a later change of model
/// (`/model`) gets a header line of its own.
fn header_model(
    sess: &mut Sess,
    model: Option<&str>,
    side: bool,
    line: u64,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    if sess.pending.is_some() {
        if sess.model.is_none() {
            sess.model = model.map(str::to_string);
        }
        return flush_header(sess, emit);
    }
    if side == sess.side_file
        && let Some(m) = model
        && sess.model.as_deref() != Some(m)
    {
        sess.model = Some(m.to_string());
        emit(&start_event(sess, line))?;
    }
    Ok(())
}

/// A user line in the session's accounts: the calls it answers closed,
/// a prompt (not a meta line) noted, a change of permission mode (`mode`,
/// the line's `permissionMode`) said with the session's header again.
fn user_turn(
    mode: Option<&str>,
    line: u64,
    side: bool,
    meta: bool,
    answered: &[&str],
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    if let Some(sess) = out.sess.as_deref_mut() {
        let acc = if side { &mut sess.side } else { &mut sess.main };
        acc.seen = true;
        if let Some(last) = acc.last.as_mut() {
            for id in answered {
                last.open.remove(*id);
            }
        }
        if !meta {
            acc.user_after = true;
        }
        if side == sess.side_file
            && let Some(pm) = mode
            && sess.permission_mode.as_deref() != Some(pm)
        {
            // A change (shift+tab) repeats the header; a mode learnt late
            // (the input began mid-session) does not.
            let changed = sess.permission_mode.is_some() && sess.pending.is_none();
            sess.permission_mode = Some(pm.to_string());
            if changed {
                (out.emit)(&start_event(sess, line))?;
            }
        }
    }
    Ok(())
}

fn user<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    e: &EntryShape<'v>,
    agents: &mut HashMap<String, String>,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let (side, meta, content) = (e.side, e.meta, e.content);
    // In one walk of the keys (`Value::fields`).
    let [result, mode, compact] = v.fields(["toolUseResult", "permissionMode", "isCompactSummary"]);
    let answered: Vec<&str> = content
        .map(Arr::of)
        .unwrap_or_default()
        .iter()
        .filter(|b| str_at(*b, "type") == Some("tool_result"))
        .filter_map(|b| str_at(b, "tool_use_id"))
        .collect();
    // An Agent call's result names the sub-agent it started.
    if let (Some(id), Some(a)) = (answered.first(), result.and_then(|r| str_at(r, "agentId"))) {
        agents.insert(a.to_string(), (*id).to_string());
    }
    let mode = mode.and_then(Value::into_string);
    user_turn(mode, ctx.line, side, meta, &answered, out)?;

    if meta {
        // Reminders and caveats the CLI adds to the conversation.
        let text = content
            .map(|c| super::messages::content_text(c, ctx.arena))
            .unwrap_or_default();
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !matches!(*l, "<system-reminder>" | "</system-reminder>"))
            .unwrap_or("");
        return out.send(&note(
            base,
            ctx,
            "meta",
            Level::Debug,
            format!("injected by the CLI: {}", one_line(line)),
        ));
    }
    if compact.and_then(Value::as_bool) == Some(true) {
        return out.send(&note(
            base,
            ctx,
            "compact_summary",
            Level::Debug,
            "summary of the compacted conversation, given to the model".into(),
        ));
    }
    if let Some(J::Str(s)) = content.map(view)
        && s.trim_start().starts_with("<task-notification>")
    {
        // A background task (sub-agent, shell) finished: the CLI tells the
        // model in a user turn of its own.
        let status = tag(s, "status").unwrap_or("done");
        let mut text = format!("task {status}");
        for part in [tag(s, "summary"), tag(s, "result")].into_iter().flatten() {
            if !part.is_empty() {
                let _ = write!(text, ": {}", one_line(part));
            }
        }
        let level = if status == "completed" {
            Level::Info
        } else {
            Level::Warning
        };
        return out.send(&note(base, ctx, "task_notification", level, text));
    }
    claude::user(v, ctx, base, &mut |ev| out.send(ev))
}

/// `API retry 2/10 in 1.5s: overloaded (HTTP 529)`.
fn api_retry(v: Value<'_>) -> String {
    let mut t = String::from("API retry");
    if let Some(a) = u64_at(v, "retryAttempt") {
        let _ = write!(t, " {a}");
        if let Some(m) = u64_at(v, "maxRetries") {
            let _ = write!(t, "/{m}");
        }
    }
    if let Some(ms) = f64_at(v, "retryInMs") {
        let _ = write!(t, " in {:.1}s", ms / 1000.0);
    }
    let err = get(v, "error");
    if let Some(e) = err.and_then(error_message) {
        let _ = write!(t, ": {}", one_line(e));
    }
    if let Some(s) = err.and_then(|e| u64_at(e, "status")) {
        let _ = write!(t, " (HTTP {s})");
    }
    t
}

/// A `stop_hook_summary` line: quiet when the hooks ran, a warning when
/// one failed or ended the turn.
fn stop_hooks(v: Value<'_>) -> (&'static str, Level, String) {
    let sub = "stop_hook_summary";
    let errors = arr_at(v, "hookErrors");
    let stopped = bool_at(v, "preventedContinuation") == Some(true);
    if errors.is_empty() && !stopped {
        (sub, Level::Debug, "stop hooks ran".to_string())
    } else {
        let why = errors
            .first()
            .and_then(|e| e.into_string().or_else(|| str_at(e, "message")))
            .or_else(|| str_at(v, "stopReason"))
            .unwrap_or("");
        let mut t = String::from(if stopped {
            "stop hook ended the turn"
        } else {
            "stop hook failed"
        });
        if !why.is_empty() {
            let _ = write!(t, ": {}", one_line(why));
        }
        (sub, Level::Warning, t)
    }
}

fn system<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let sub = str_at(v, "subtype")
        .filter(|s| !s.is_empty())
        .unwrap_or("system");
    let content = str_at(v, "content").unwrap_or("");
    let (subtype, level, text): (&'v str, Level, String) = match sub {
        "compact_boundary" | "microcompact_boundary" => {
            let meta = get(v, "compactMetadata").or_else(|| get(v, "microcompactMetadata"));
            let trigger = meta.and_then(|m| str_at(m, "trigger")).unwrap_or("auto");
            let mut t = format!("context compacted ({trigger})");
            if let Some(pre) = meta.and_then(|m| u64_at(m, "preTokens")) {
                let _ = write!(t, ": {pre} tokens before");
            }
            (sub, Level::Info, t)
        }
        // A failed request that the CLI retries (the stream-json
        // `api_retry`); a final failure is an assistant message.
        "api_error" => ("api_retry", Level::Warning, api_retry(v)),
        "informational" | "local_command" => {
            let level = match str_at(v, "level") {
                Some("warning" | "error") => Level::Warning,
                _ => Level::Info,
            };
            (sub, level, strip_command_tags(content).to_string())
        }
        "turn_duration" => {
            let t = match f64_at(v, "durationMs") {
                Some(ms) => format!("turn took {:.1}s", ms / 1000.0),
                None => "turn ended".to_string(),
            };
            (sub, Level::Debug, t)
        }
        "stop_hook_summary" => stop_hooks(v),
        _ => {
            let t = if content.trim().is_empty() {
                sub.replace('_', " ")
            } else {
                one_line(strip_command_tags(content))
            };
            (sub, Level::Debug, t)
        }
    };
    out.send(&note(base, ctx, subtype, level, text))
}

fn attachment<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    out: &mut Out<'_, '_>,
) -> io::Result<()> {
    let Some(a) = get(v, "attachment") else {
        return Ok(());
    };
    let ty = str_at(a, "type").unwrap_or("");
    if ty == "agent_listing_delta"
        && let Some(sess) = out.sess.as_deref_mut()
        && sess.pending.is_some()
    {
        for t in &strings_at(a, "addedTypes", ctx.arena) {
            // Bounded: each new type is compared with those listed.
            if sess.agents.len() < MAX_AGENT_TYPES && !sess.agents.iter().any(|x| x == t) {
                sess.agents.push(t.to_string());
            }
        }
    }
    // Context for the model (file contents, listings, reminders): no event,
    // except a hook that failed or stopped something.
    let failed_hook = ty.starts_with("hook_")
        && ["error", "blocking", "cancelled", "stopped"]
            .iter()
            .any(|w| ty.contains(w));
    if !failed_hook {
        return Ok(());
    }
    let name = str_at(a, "hookName")
        .or_else(|| str_at(a, "hookEvent"))
        .unwrap_or("hook");
    let mut t = format!(
        "hook {name}: {}",
        ty.trim_start_matches("hook_").replace('_', " ")
    );
    let detail = ["stderr", "blockingError", "content", "message"]
        .iter()
        .find_map(|k| str_at(a, k).or_else(|| get(a, k).and_then(error_message)))
        .map(str::trim)
        .filter(|d| !d.is_empty());
    if let Some(d) = detail {
        let _ = write!(t, ": {}", one_line(d));
    }
    out.send(&note(base, ctx, "hook", Level::Warning, t))
}

fn note<'v>(
    base: &Base<'v>,
    ctx: &Ctx<'v>,
    subtype: &'v str,
    level: Level,
    text: String,
) -> Event<'v> {
    base.event(EventKind::Notice(Notice {
        subtype: Cow::Borrowed(subtype),
        level,
        text: Cow::Owned(text),
        raw: Some(ctx.raw()),
        estimate: false,
    }))
}

/// Write the session header and what was held back for it.
fn flush_header(sess: &mut Sess, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(held) = sess.pending.take() else {
        return Ok(());
    };
    emit(&start_event(sess, sess.line))?;
    for ev in &held {
        emit(ev)?;
    }
    Ok(())
}

fn start_event(sess: &Sess, line: u64) -> Event<'static> {
    let o = |s: &Option<String>| s.clone().map(Cow::Owned);
    let list = |l: &[String]| l.iter().cloned().map(Cow::Owned).collect();
    Event {
        producer: crate::event::Producer::ClaudeTranscript,
        line,
        source: None,
        session: o(&sess.id),
        parent: None,
        time: sess.span.first.and_then(Timestamp::from_millis),
        kind: EventKind::SessionStart(SessionStart {
            model: o(&sess.model),
            cwd: o(&sess.cwd),
            version: o(&sess.version),
            permission_mode: o(&sess.permission_mode),
            agent_mode: None,
            api_key_source: None,
            tools: list(&sess.tools),
            mcp_servers: List::default(),
            agents: list(&sess.agents),
            skills: List::default(),
            slash_commands: List::default(),
        }),
    }
}

/// Report a run of repeated entries.
fn flush_dup(state: &mut State, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(d) = state.dup.take() else {
        return Ok(());
    };
    let (n, s) = if d.count == 1 {
        (String::from("1 entry"), "")
    } else {
        (format!("{} entries", d.count), "s")
    };
    let text = format!(
        "skipped {n} already seen earlier in this input (line{s} {}{}): copies, as a resumed session writes them",
        d.first,
        if d.last == d.first {
            String::new()
        } else {
            format!("–{}", d.last)
        }
    );
    let ev = Event {
        producer: crate::event::Producer::ClaudeTranscript,
        line: d.first,
        source: None,
        time: None,
        session: state
            .sess
            .as_ref()
            .and_then(|s| s.id.clone())
            .map(Cow::Owned),
        parent: None,
        kind: EventKind::Notice(Notice {
            subtype: Cow::Borrowed("duplicate"),
            level: Level::Debug,
            text: Cow::Owned(text),
            raw: None,
            estimate: false,
        }),
    };
    let mut out = Out {
        sess: state.sess.as_mut(),
        calls: &mut state.calls,
        results: &mut state.results,
        emit,
    };
    out.send(&ev)
}

/// The session ends (end of input, or another session starts): write what
/// was held back and, unless it stopped mid-turn, the reconstructed result.
fn finish_session(state: &mut State, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(mut sess) = state.sess.take() else {
        return Ok(());
    };
    flush_header(&mut sess, emit)?;
    let Some(res) = totals::result(&sess.main, &sess.side, sess.span, sess.cost.take()) else {
        return Ok(());
    };
    emit(&Event {
        producer: crate::event::Producer::ClaudeTranscript,
        line: sess.last_line,
        source: None,
        session: sess.id.map(Cow::Owned),
        parent: None,
        time: sess.span.last.and_then(Timestamp::from_millis),
        kind: EventKind::Result(Box::new(res)),
    })
}

/// The text of a user message: its string, or its first text block.
fn first_text(content: Option<Value<'_>>) -> Option<&str> {
    match view(content?) {
        J::Str(s) => Some(s),
        J::Arr(blocks) => blocks
            .iter()
            .find(|b| str_at(*b, "type") == Some("text"))
            .and_then(|b| str_at(b, "text")),
        _ => None,
    }
}

/// The message of an API error object, however deeply the SDK nested it.
fn error_message(e: Value<'_>) -> Option<&str> {
    let mut cur = e;
    for _ in 0..4 {
        if let Some(m) = str_at(cur, "message") {
            return Some(m);
        }
        cur = get(cur, "error")?;
        if let Some(s) = cur.into_string() {
            return Some(s);
        }
    }
    None
}

/// `<name>…</name>` inside a pseudo-XML text.
fn tag<'s>(s: &'s str, name: &str) -> Option<&'s str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = s.find(&open)? + open.len();
    let len = s.get(start..)?.find(&close)?;
    s.get(start..start + len).map(str::trim)
}

/// Slash-command output is wrapped in `<local-command-stdout>` and friends.
fn strip_command_tags(s: &str) -> &str {
    let t = s.trim();
    for name in [
        "local-command-stdout",
        "local-command-stderr",
        "bash-stdout",
    ] {
        if let Some(inner) = tag(t, name)
            && t.starts_with('<')
        {
            return inner;
        }
    }
    t
}

/// The first non-empty line, at most 200 characters.
fn one_line(s: &str) -> String {
    let line = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut out: String = line.chars().take(200).collect();
    if out.len() < line.len() || s.trim().lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests;
