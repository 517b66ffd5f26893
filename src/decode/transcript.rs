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
use std::io;

use super::claude::{self, Base};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, has, start};
use super::seen::Seen;
use crate::event::{Event, EventKind, Level, List, Notice, Producer, SessionStart};
use crate::json::{Arr, Value, get, is_null, str_at};
use crate::time::Timestamp;

mod entries;
mod metadata;
mod subagents;
mod text;
mod totals;
mod tree;

use entries::assistant;
use entries::attachment;
use entries::system;
use entries::user;
use metadata::UNREAD;
use metadata::is_metadata;
use metadata::metadata;
use metadata::progress;
use subagents::Links;
use subagents::link;
use subagents::remember_agent_prompts;
use subagents::sub_agent_call;
use text::error_message;
use text::first_text;
use text::one_line;
use text::strip_command_tags;
use text::tag;
use totals::{Acc, Cost, Span};
use tree::Tree;

/// Events held back while the session header waits for the model: at most
/// this many, then the header goes out without one.
const MAX_HELD: usize = 256;

/// Sub-agent types listed in a session's header at most.
const MAX_AGENT_TYPES: usize = 256;

/// Per-stream state: saved between two lines (a session whose header is
/// written) for a grown file to be read on from there.
#[derive(Default, serde::Serialize, serde::Deserialize)]
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
#[derive(serde::Serialize, serde::Deserialize)]
struct DupRun {
    first: u64,
    last: u64,
    count: u64,
}

/// One session of the input (a new `sessionId` starts another).
#[derive(serde::Serialize, serde::Deserialize)]
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
    /// Events held until the header can be written; `None` once it was
    /// (a state is saved only then).
    #[serde(skip)]
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
    fn restore(&self, saved: &[u8]) -> Option<Box<dyn Stream>> {
        postcard::from_bytes::<State>(saved)
            .ok()
            .map(|s| Box::new(s) as Box<dyn Stream>)
    }

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

    /// Saved once the session's header is written: the events held for
    /// it are not.
    fn save(&self) -> Option<Vec<u8>> {
        if self.sess.as_ref().is_some_and(|s| s.pending.is_some()) {
            return None;
        }
        postcard::to_allocvec(self).ok()
    }

    /// End of input: what was held back, and the reconstructed result.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        flush_dup(state, emit)?;
        finish_session(state, emit)
    }
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

#[cfg(test)]
mod tests;
