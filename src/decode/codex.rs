//! `OpenAI` Codex `codex exec --json`.
//!
//! One `thread.started` (the session), then per turn `turn.started`, the
//! lifecycle of thread items (`item.started` → `item.updated`* →
//! `item.completed`, correlated by `item.id`) and `turn.completed` (usage) or
//! `turn.failed`. What the real CLI does that its documentation does not say
//! (see `tests/fixtures/codex/README.md`):
//!
//! * Only `thread.started` names the session; every event decoded after it
//!   carries that id.
//! * Tools run in items: `command_execution`, `file_change`, `mcp_tool_call`,
//!   `web_search`, `todo_list`, `collab_tool_call`. Each becomes one tool call
//!   (at its first sighting) and one tool result (at `item.completed`).
//! * A `web_search` item starts with an empty query (the provider has not
//!   said yet); its call is held back until the query is known.
//! * A `web_search` item holds the key `id` twice (the item id and the
//!   provider's); both lines of one item do, so the pairing holds either way.
//! * A `todo_list` is started once, updated in place, and completed at the
//!   end of the turn: one call with the first list, a notice per update, the
//!   final list as the result.
//! * Commands arrive shell-wrapped (`/bin/bash -lc 'ls -la'`); the key
//!   argument is the inner command, the input keeps the original.
//! * `turn.completed.usage.input_tokens` includes the cached (and cache
//!   write) tokens; the normalized `input` is the uncached rest. The counts
//!   are the thread's running totals.
//! * A top-level `error` precedes `turn.failed` with the same message; retry
//!   notices (`Reconnecting... 2/5`) arrive as `error` too, in runs that then
//!   succeed.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;
use std::io;
use std::sync::Arc;

use super::args::{content_of, json_in, list};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, start};
use crate::event::ToolKind;
use crate::event::{Content, Edit, FileChange, JsonText};
use crate::event::{
    Delta, DeltaKind, Denial, Event, EventKind, Level, List, Notice, Producer, Role, SessionResult,
    SessionStart, Text, Thinking, Todo, Tokens, ToolCall, ToolResult, Unknown,
};
use crate::json::{Arena, Spare, Value, arr_at, bool_at, cow_at, get, str_at, u64_at};
use crate::time::Timestamp;

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    /// Id of the thread (`thread.started`), stamped on every later event.
    thread: Option<Arc<str>>,
    /// Tool items seen started (or updated) and not completed yet.
    open: HashMap<String, Open>,
    /// Text of the turn's last `agent_message`: the turn's final answer.
    last_message: Option<String>,
    /// Strings the state no longer holds, for their allocation.
    spare: Spare,
}

impl State {
    /// A string holding `text`, from the spares when there is one.
    fn string(&mut self, text: &str) -> String {
        self.spare.string(text)
    }

    /// Keep `s`'s allocation for [`State::string`].
    fn give(&mut self, s: String) {
        self.spare.give(s);
    }

    /// Forget the open item `id`, keeping its strings.
    fn close(&mut self, id: &str) {
        if let Some((id, open)) = self.open.remove_entry(id) {
            self.give(id);
            self.give(open.name);
            self.give(open.input);
        }
    }

    /// Forget the last message, keeping its string.
    fn forget_message(&mut self) {
        if let Some(m) = self.last_message.take() {
            self.give(m);
        }
    }
}

/// A tool item between its start and its completion.
struct Open {
    /// Its tool call was emitted (false while a web search has no query).
    emitted: bool,
    /// Line of the first sighting, for a held-back call emitted at the end.
    line: u64,
    /// Tool name of the held-back call.
    name: String,
    /// Input of the held-back call (compact JSON).
    input: String,
}

/// Where an item is in its lifecycle.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Started,
    Updated,
    Completed,
}

/// What every event of one line shares (Codex's rollout files too).
pub(crate) struct Base {
    pub(crate) producer: Producer,
    pub(crate) line: u64,
    /// Shared with the state: no copy per line.
    pub(crate) session: Option<Arc<str>>,
    /// When the line says it happened.
    pub(crate) time: Option<Timestamp>,
}

impl Base {
    /// The event, its session borrowed from `self` (no copy per event).
    pub(crate) fn event<'a>(&'a self, kind: EventKind<'a>) -> Event<'a> {
        Event {
            producer: self.producer,
            line: self.line,
            source: None,
            session: self.session.as_deref().map(Cow::Borrowed),
            parent: None,
            time: self.time,
            kind,
        }
    }
}

/// The registry's line for Codex.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Codex,
    name: "codex",
    label: "Codex",
    invocation: "Codex `exec --json`",
    stream: start::<State>,
    format: &Codex,
    unsearched: &[],
    unread: &[],
    store: None,
};

/// `codex exec --json` (the registry's entry).
pub(crate) struct Codex;

impl Format for Codex {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // Dotted types (`thread.started`, `item.completed`…), and a bare
        // `{type: error, message}`.
        let bare_error = || {
            s.ty == "error"
                && s.v
                    .as_object()
                    .is_some_and(|o| o.keys().all(|k| k == "type" || k == "message"))
        };
        (s.ty.contains('.') || s.ty == "request_user_input" || bare_error())
            .then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "thread.started"
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        let ty = str_at(v, "type").unwrap_or("");
        if ty == "thread.started" {
            new_thread(v, ctx, state, emit)?;
        }
        let base = Base {
            producer: ctx.producer,
            line: ctx.line,
            session: state.thread.clone(),
            time: ctx.time,
        };
        match ty {
            "thread.started" => emit(&base.event(EventKind::SessionStart(SessionStart::default()))),
            "turn.started" => {
                state.forget_message();
                notice(
                    &base,
                    ctx,
                    ty,
                    Level::Debug,
                    Cow::Borrowed("turn started"),
                    emit,
                )
            }
            "item.started" | "item.updated" | "item.completed" => {
                let phase = match ty {
                    "item.started" => Phase::Started,
                    "item.updated" => Phase::Updated,
                    _ => Phase::Completed,
                };
                match get(v, "item").filter(|i| i.as_object().is_some()) {
                    Some(item) => item_event(phase, item, ctx, &base, state, emit),
                    None => unknown(&base, ctx, Cow::Borrowed(ty), emit),
                }
            }
            "item.plan.delta" => emit(&base.event(EventKind::Delta(Delta {
                kind: DeltaKind::Text,
                index: None,
                text: cow_at(v, "delta").unwrap_or_default(),
            }))),
            "request_user_input" => request_user_input(v, ctx, &base, emit),
            "turn.completed" | "turn.failed" => turn_end(v, ctx, &base, state, emit),
            "error" => error(v, ctx, &base, emit),
            _ => unknown(&base, ctx, Cow::Borrowed(ty), emit),
        }
    }

    /// End of input: a call held back (a web search that never got its query)
    /// still counts as a call.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        flush_held(state, Producer::Codex, emit)
    }
}

/// A new thread (concatenated logs): what the old one held back goes
/// first, and its open calls are forgotten.
fn new_thread(
    v: Value<'_>,
    ctx: &Ctx<'_>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    flush_held(state, ctx.producer, emit)?;
    for (id, open) in std::mem::take(&mut state.open) {
        state.give(id);
        state.give(open.name);
        state.give(open.input);
    }
    state.forget_message();
    if let Some(id) = str_at(v, "thread_id") {
        state.thread = Some(Arc::from(id));
    }
    Ok(())
}

/// The id a call and its result share: the first of `keys` that is a
/// string not empty, else `line-N` (the line it came on). Also a rollout's.
pub(crate) fn call_id<'v>(v: Value<'v>, keys: &[&str], ctx: &Ctx<'v>) -> Cow<'v, str> {
    keys.iter()
        .find_map(|k| cow_at(v, k).filter(|s| !s.is_empty()))
        .unwrap_or_else(|| text!(ctx.arena, "line-{}", ctx.line))
}

/// The agent asks the user (a tool call of its own, with its questions).
fn request_user_input<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let questions = super::args::questions_at(v, "questions", &["question", "header"], ctx.arena);
    let key_arg = questions.first().map(|q| q.question.clone());
    emit(&base.event(EventKind::ToolCall(ToolCall {
        id: call_id(v, &["call_id", "id"], ctx),
        name: Cow::Borrowed("request_user_input"),
        key_arg,
        input: JsonText::fields(&[("questions", get(v, "questions"))]),
        questions,
        ..ToolCall::default()
    })))
}

/// The turn ended (`turn.completed`): its result, with the last message
/// as its text; or it failed (`turn.failed`): an error result with the
/// error's message.
fn turn_end<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    flush_held(state, ctx.producer, emit)?;
    let failed = str_at(v, "type") == Some("turn.failed");
    let message = state.last_message.take();
    let text = if failed {
        get(v, "error")
            .and_then(|e| cow_at(e, "message").or_else(move || e.into_string().map(Cow::Borrowed)))
    } else {
        message.as_deref().map(Cow::Borrowed)
    };
    let res = SessionResult {
        is_error: failed,
        text,
        tokens: get(v, "usage").map(tokens).unwrap_or_default(),
        ..SessionResult::default()
    };
    let done = emit(&base.event(EventKind::Result(Box::new(res))));
    if let Some(m) = message {
        state.give(m);
    }
    done
}

/// A bare error line; `Reconnecting…` retries are warnings (runs go on to
/// succeed after them).
fn error<'v>(v: Value<'v>, ctx: &Ctx<'v>, base: &Base, emit: &mut Emit<'_>) -> io::Result<()> {
    let msg = str_at(v, "message").unwrap_or("");
    let level = if msg.starts_with("Reconnecting") {
        Level::Warning
    } else {
        Level::Error
    };
    let text = if msg.is_empty() {
        Cow::Borrowed("error")
    } else {
        Cow::Borrowed(msg)
    };
    notice(base, ctx, "error", level, text, emit)
}

/// Items remembered open at least: a stream of calls that never complete
/// must not grow without end (issue 18).
const KEEP_OPEN: usize = 4096;

/// Forget the oldest open items once there are twice [`KEEP_OPEN`] of
/// them, but those whose call is still held back: a completion of one
/// forgotten is shown as a call of its own.
fn bound_open(state: &mut State) {
    if state.open.len() < 2 * KEEP_OPEN {
        return;
    }
    let mut lines: Vec<u64> = state
        .open
        .values()
        .filter(|o| o.emitted)
        .map(|o| o.line)
        .collect();
    if lines.len() <= KEEP_OPEN {
        return;
    }
    let at = lines.len() - KEEP_OPEN;
    let (_, &mut cutoff, _) = lines.select_nth_unstable(at);
    state.open.retain(|_, o| !o.emitted || o.line >= cutoff);
}

/// Emit the calls held back so far (in item order), each once.
fn flush_held(state: &mut State, producer: Producer, emit: &mut Emit<'_>) -> io::Result<()> {
    let thread = state.thread.clone();
    let mut held: Vec<(&String, &mut Open)> =
        state.open.iter_mut().filter(|(_, o)| !o.emitted).collect();
    held.sort_by_key(|(id, o)| (o.line, (*id).clone()));
    for (id, o) in held {
        o.emitted = true;
        emit(&Event {
            producer,
            line: o.line,
            source: None,
            session: thread.as_deref().map(Cow::Borrowed),
            parent: None,
            time: None,
            kind: EventKind::ToolCall(ToolCall {
                id: Cow::Borrowed(id.as_str()),
                name: Cow::Borrowed(o.name.as_str()),
                kind: tool_kind(&o.name),
                input: o.input.as_str().into(),
                ..ToolCall::default()
            }),
        })?;
    }
    Ok(())
}

pub(crate) fn notice<'v>(
    base: &Base,
    ctx: &Ctx<'v>,
    subtype: &'v str,
    level: Level,
    text: Cow<'v, str>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    emit(&base.event(EventKind::Notice(Notice {
        subtype: Cow::Borrowed(subtype),
        level,
        text,
        raw: Some(ctx.raw()),
        estimate: false,
    })))
}

pub(crate) fn unknown<'v>(
    base: &Base,
    ctx: &Ctx<'v>,
    type_name: Cow<'v, str>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    emit(&base.event(EventKind::Unknown(Unknown {
        type_name,
        raw: ctx.raw(),
    })))
}

fn item_event<'v>(
    phase: Phase,
    item: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let item_type = str_at(item, "type").unwrap_or("");
    match item_type {
        // Whole items, reported once at completion.
        "agent_message" | "plan" | "reasoning" | "error" => {
            if phase != Phase::Completed {
                return Ok(());
            }
            let text = cow_at(item, "text").unwrap_or_default();
            match item_type {
                "agent_message" => {
                    state.forget_message();
                    state.last_message = Some(state.string(&text));
                    emit(&base.event(EventKind::Text(Text {
                        role: Role::Assistant,
                        text,
                        message_id: None,
                        command: None,
                        continues: false,
                    })))
                }
                "plan" => emit(&base.event(EventKind::Text(Text {
                    role: Role::Assistant,
                    text,
                    message_id: None,
                    command: None,
                    continues: false,
                }))),
                "reasoning" => emit(&base.event(EventKind::Thinking(Thinking {
                    redacted: text.trim().is_empty(),
                    text,
                    message_id: None,
                }))),
                _ => {
                    let msg = cow_at(item, "message").unwrap_or(Cow::Borrowed("error"));
                    notice(base, ctx, "error", Level::Warning, msg, emit)
                }
            }
        }
        "command_execution" | "file_change" | "mcp_tool_call" | "web_search" | "todo_list"
        | "collab_tool_call" => tool_item(phase, item, item_type, ctx, base, state, emit),
        _ => {
            let event_type = match phase {
                Phase::Started => "item.started",
                Phase::Updated => "item.updated",
                Phase::Completed => "item.completed",
            };
            unknown(
                base,
                ctx,
                text!(ctx.arena, "{event_type}/{item_type}"),
                emit,
            )
        }
    }
}

/// A tool item at one point of its lifecycle: its call at the first sighting
/// (or at completion when it was never seen started), its result at completion.
fn tool_item<'v>(
    phase: Phase,
    item: Value<'v>,
    item_type: &'v str,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let id = call_id(item, &["id"], ctx);
    let emitted = state.open.get(id.as_ref()).map(|o| o.emitted);
    if phase != Phase::Completed {
        if emitted == Some(true) {
            if phase == Phase::Updated && item_type == "todo_list" {
                let todos = todos(item, ctx.arena);
                let mut text = ctx.arena.text();
                text.push_str("plan updated (");
                progress(&mut text, &todos);
                text.push_str(")\n");
                checklist(&mut text, &todos);
                return notice(
                    base,
                    ctx,
                    "todo_list",
                    Level::Info,
                    text.done().into(),
                    emit,
                );
            }
            // Progress of a call already shown: its result says the rest.
            return Ok(());
        }
        let call = tool_call(item, item_type, id.clone(), ctx.arena);
        if item_type == "web_search" && call.key_arg.is_none() {
            // The query is not known yet: hold the call back until it is.
            if emitted.is_none() {
                let key = state.string(&id);
                let name = state.string(&call.name);
                let mut input = state.string("");
                let mut json = ctx.arena.bytes();
                call.input.write(&mut json);
                input.push_str(Arena::utf8(json).unwrap_or_default());
                let open = Open {
                    emitted: false,
                    line: ctx.line,
                    name,
                    input,
                };
                state.open.insert(key, open);
                bound_open(state);
            }
            return Ok(());
        }
        if emitted.is_none() {
            let key = state.string(&id);
            let open = Open {
                emitted: true,
                line: ctx.line,
                name: String::new(),
                input: String::new(),
            };
            state.open.insert(key, open);
            bound_open(state);
        } else if let Some(open) = state.open.get_mut(id.as_ref()) {
            open.emitted = true;
        }
        return emit(&base.event(EventKind::ToolCall(call)));
    }
    state.close(&id);
    if emitted != Some(true) {
        let call = tool_call(item, item_type, id.clone(), ctx.arena);
        emit(&base.event(EventKind::ToolCall(call)))?;
    }
    let status = str_at(item, "status").unwrap_or("");
    let (is_error, content) = outcome(item, item_type, status, ctx.arena);
    answer(base, id, is_error, status == "declined", content, emit)
}

/// A call's result; a `declined` one (the approval was refused: the tool
/// never ran) followed by its denial. Also a rollout's.
pub(crate) fn answer<'v>(
    base: &Base,
    id: Cow<'v, str>,
    is_error: bool,
    declined: bool,
    content: Content<'v>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    emit(&base.event(EventKind::ToolResult(ToolResult {
        id: id.clone(),
        is_error,
        denied: declined,
        content,
        ..ToolResult::default()
    })))?;
    if declined {
        emit(&base.event(EventKind::PermissionDenied(Denial {
            id: Some(id),
            tool: None,
            key_arg: None,
            message: Some(Cow::Borrowed("approval declined")),
        })))?;
    }
    Ok(())
}

/// The files of a `file_change` item. `codex exec` says only each file's
/// path and kind (`add`, `update`, `delete`), not the patch: the change
/// is then that word. A change with a `diff` (versions that send one) is
/// that patch.
fn file_changes<'v>(item: Value<'v>, a: &'v Arena) -> List<'v, FileChange<'v>> {
    super::args::list(
        a,
        arr_at(item, "changes").iter().map(|c| {
            let diff = get(c, "diff")
                .filter(|d| d.into_string().is_some_and(|d| !d.is_empty()))
                .and_then(super::args::content_of);
            let kind = str_at(c, "kind")
                .or_else(|| get(c, "kind").and_then(|k| str_at(k, "type")))
                .unwrap_or("change");
            FileChange {
                path: cow_at(c, "path"),
                edit: diff.map_or(Edit::Action(Cow::Borrowed(kind)), Edit::Patch),
            }
        }),
    )
}

/// What a patch does, in one line: `add src/a.rs, update src/b.rs`.
fn patch_summary<'v>(item: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let mut summary = a.text();
    for c in arr_at(item, "changes") {
        if !summary.is_empty() {
            summary.push_str(", ");
        }
        let kind = str_at(c, "kind")
            .or_else(|| get(c, "kind").and_then(|k| str_at(k, "type")))
            .unwrap_or("change");
        let _ = write!(summary, "{kind} {}", str_at(c, "path").unwrap_or("?"));
    }
    (!summary.is_empty()).then(|| Cow::Borrowed(summary.done()))
}

/// The tool call an item stands for.
fn tool_call<'v>(
    item: Value<'v>,
    item_type: &'v str,
    id: Cow<'v, str>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let mut call = ToolCall {
        id,
        name: Cow::Borrowed(item_type),
        ..ToolCall::default()
    };
    match item_type {
        "command_execution" => {
            call.name = Cow::Borrowed("shell");
            call.key_arg = str_at(item, "command")
                .filter(|c| !c.trim().is_empty())
                .map(|c| match shell_inner(c, a) {
                    inner if inner.trim().is_empty() => Cow::Borrowed(c),
                    inner => inner,
                });
            call.input = JsonText::fields(&[("command", get(item, "command"))]);
        }
        "file_change" => {
            call.name = Cow::Borrowed("apply_patch");
            call.key_arg = patch_summary(item, a);
            call.input = JsonText::fields(&[("changes", get(item, "changes"))]);
            call.changes = file_changes(item, a);
        }
        "mcp_tool_call" => {
            let server = str_at(item, "server").unwrap_or("");
            let tool = str_at(item, "tool").unwrap_or("");
            if !(server.is_empty() && tool.is_empty()) {
                call.name = text!(a, "mcp__{server}__{tool}");
            }
            let args = get(item, "arguments").filter(|a| !a.is_null());
            call.key_arg = args.and_then(|args| super::args::first_scalar(args, true, a));
            call.input = match args {
                Some(a) if a.is_object() => JsonText::value(a),
                Some(a) => JsonText::fields(&[("arguments", Some(a))]),
                None => JsonText::default(),
            };
        }
        "web_search" => {
            call.key_arg = search_key(item, a);
            call.input = JsonText::fields(&[
                ("query", get(item, "query")),
                ("action", get(item, "action")),
            ]);
        }
        "todo_list" => {
            call.todos = todos(item, a);
            call.key_arg = Some(super::args::items(call.todos.len(), a));
            call.input = JsonText::fields(&[("items", get(item, "items"))]);
        }
        "collab_tool_call" => {
            if let Some(tool) = str_at(item, "tool").filter(|t| !t.is_empty()) {
                call.name = Cow::Borrowed(tool);
            }
            call.key_arg = cow_at(item, "prompt")
                .filter(|p| !p.trim().is_empty())
                .or_else(|| {
                    let ids = arr_at(item, "receiver_thread_ids").iter();
                    a.join(ids.filter_map(Value::into_string), ", ")
                        .map(Cow::Borrowed)
                });
            call.input = JsonText::fields(&[
                ("tool", get(item, "tool")),
                ("sender_thread_id", get(item, "sender_thread_id")),
                ("receiver_thread_ids", get(item, "receiver_thread_ids")),
                ("prompt", get(item, "prompt")),
            ]);
        }
        _ => {}
    }
    call.kind = tool_kind(&call.name);
    call
}

/// What a Codex tool does, by the name its item (or, in a rollout file,
/// its call) is given.
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    match name {
        "shell" => ToolKind::Shell,
        "apply_patch" => ToolKind::Edit,
        "web_search" => ToolKind::WebSearch,
        "todo_list" | "update_plan" => ToolKind::Todo,
        "view_image" => ToolKind::Read,
        "spawn_agent" | "send_input" | "wait" | "close_agent" | "collab_tool_call" => {
            ToolKind::Agent
        }
        "mcp_tool_call" => ToolKind::Mcp,
        n => super::args::mcp_or_other(n),
    }
}

/// Whether a completed item failed, and its result: [`command_outcome`]
/// for commands, [`outcome_text`] for the rest.
pub(crate) fn outcome<'v>(
    item: Value<'v>,
    item_type: &str,
    status: &'v str,
    a: &'v Arena,
) -> (bool, Content<'v>) {
    if item_type == "command_execution" {
        return command_outcome(item, status, a);
    }
    let (is_error, text) = outcome_text(item, item_type, status, a);
    (is_error, text.into())
}

/// `in_progress` at completion only happens when the turn ended around an
/// item; every status but `completed` that is not that one is a failure.
fn bad_status(status: &str) -> bool {
    !matches!(status, "" | "completed" | "in_progress")
}

/// A command's outcome: its output (left in its JSON form when it
/// succeeded), after its exit code or status when it failed.
fn command_outcome<'v>(item: Value<'v>, status: &'v str, a: &'v Arena) -> (bool, Content<'v>) {
    let output = get(item, "aggregated_output");
    let code = get(item, "exit_code").and_then(Value::as_i64);
    let mut head = a.text();
    let _ = match code {
        Some(c) if c != 0 => write!(head, "exit code {c}"),
        _ if bad_status(status) => write!(head, "command {status}"),
        _ => return (false, output.and_then(content_of).unwrap_or_default()),
    };
    // A long output stays in its JSON form, after its status.
    if let Some(l) = output.and_then(Value::long).filter(|l| !l.body.is_empty()) {
        head.push('\n');
        return (true, Content::headed_json(head.done(), l.body, l.canonical));
    }
    let output = output.and_then(Value::into_string).unwrap_or("");
    if !output.is_empty() {
        head.push('\n');
        head.push_str(output);
    }
    (true, head.done().into())
}

/// A patch's outcome: its diffs, or its status when it failed.
fn patch_outcome<'v>(item: Value<'v>, status: &'v str, a: &'v Arena) -> (bool, Cow<'v, str>) {
    let bad_status = bad_status(status);
    // Codex gives no reason for a failed patch (the model gets it,
    // the stream does not): the status is all there is.
    if bad_status {
        return (true, text!(a, "patch {status}"));
    }
    let mut diffs = a.text();
    for c in arr_at(item, "changes") {
        let Some(diff) = str_at(c, "diff").filter(|d| !d.is_empty()) else {
            continue;
        };
        if !diffs.is_empty() {
            diffs.push('\n');
        }
        let _ = write!(diffs, "{}\n{diff}", str_at(c, "path").unwrap_or("?"));
    }
    (false, Cow::Borrowed(diffs.done()))
}

/// An MCP call's outcome: its content (or structured content), or its
/// error.
fn mcp_outcome<'v>(item: Value<'v>, status: &'v str, a: &'v Arena) -> (bool, Cow<'v, str>) {
    let bad_status = bad_status(status);
    let result = get(item, "result").filter(|r| !r.is_null());
    let mut text = result
        .and_then(|r| get(r, "content"))
        .map(|c| super::messages::content_text(c, a))
        .unwrap_or_default();
    if text.is_empty()
        && let Some(s) = result
            .and_then(|r| get(r, "structured_content"))
            .filter(|s| !s.is_null())
    {
        text = json_in(s, a);
    }
    let error = get(item, "error")
        .filter(|e| !e.is_null())
        .and_then(|e| cow_at(e, "message").or_else(|| e.into_string().map(Cow::Borrowed)));
    match error {
        Some(e) => (true, e),
        None if bad_status && text.is_empty() => (true, Cow::Borrowed(status)),
        None => (bad_status, text),
    }
}

/// The outcome of a call to other agents: each agent's state.
fn agents_outcome<'v>(item: Value<'v>, status: &'v str, a: &'v Arena) -> (bool, Cow<'v, str>) {
    let bad_status = bad_status(status);
    let mut text = a.text();
    if let Some(states) = get(item, "agents_states").and_then(Value::as_object) {
        for (thread, st) in &states {
            if !text.is_empty() {
                text.push('\n');
            }
            let _ = write!(
                text,
                "{thread}: {}",
                str_at(st, "status").unwrap_or("unknown")
            );
            if let Some(m) = str_at(st, "message").filter(|m| !m.is_empty()) {
                let _ = write!(text, ": {m}");
            }
        }
    }
    if text.is_empty() {
        return (bad_status, Cow::Borrowed(status));
    }
    (bad_status, Cow::Borrowed(text.done()))
}

/// Whether a completed item other than a command failed, and its result
/// text.
fn outcome_text<'v>(
    item: Value<'v>,
    item_type: &str,
    status: &'v str,
    a: &'v Arena,
) -> (bool, Cow<'v, str>) {
    let bad_status = bad_status(status);
    match item_type {
        "file_change" => patch_outcome(item, status, a),
        "mcp_tool_call" => mcp_outcome(item, status, a),
        "web_search" => (bad_status, search_summary(item, a)),
        "todo_list" => {
            // The final list, on one line: the call and the update notices
            // showed it in full already.
            let todos = todos(item, a);
            let mut list = a.text();
            checklist(&mut list, &todos);
            let mut text = a.text();
            progress(&mut text, &todos);
            for (i, t) in list.done().lines().enumerate() {
                text.push_str(if i == 0 { ": " } else { " · " });
                text.push_str(t);
            }
            (bad_status, Cow::Borrowed(text.done()))
        }
        "collab_tool_call" => agents_outcome(item, status, a),
        _ => (bad_status, Cow::Borrowed(status)),
    }
}

/// What a web search looked for: the query, else the action's query or page.
pub(crate) fn search_key<'v>(item: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let nonempty = |s: &&str| !s.trim().is_empty();
    if let Some(q) = str_at(item, "query").filter(nonempty) {
        return Some(Cow::Borrowed(q));
    }
    let action = get(item, "action")?;
    if let Some(q) = str_at(action, "query").filter(nonempty).or_else(|| {
        arr_at(action, "queries")
            .iter()
            .filter_map(Value::into_string)
            .find(nonempty)
    }) {
        return Some(Cow::Borrowed(q));
    }
    let url = str_at(action, "url").filter(nonempty)?;
    Some(match str_at(action, "pattern").filter(nonempty) {
        Some(p) => text!(a, "{p} in {url}"),
        None => Cow::Borrowed(url),
    })
}

/// The action a completed web search took, in words.
fn search_summary<'v>(item: Value<'v>, a: &'v Arena) -> Cow<'v, str> {
    let action = get(item, "action");
    let kind = action.and_then(|x| str_at(x, "type")).unwrap_or("");
    let key = search_key(item, a).unwrap_or_default();
    match kind {
        "search" => text!(a, "searched: {key}"),
        "open_page" => text!(a, "opened {key}"),
        "find_in_page" => text!(a, "looked for {key}"),
        _ if key.is_empty() => Cow::Borrowed("searched"),
        _ => text!(a, "searched: {key}"),
    }
}

/// A todo list's items (`{text, completed}`; plan steps `{step, status}` too).
fn todos<'v>(item: Value<'v>, a: &'v Arena) -> List<'v, Todo<'v>> {
    list(
        a,
        arr_at(item, "items").iter().map(|t| Todo {
            content: cow_at(t, "text")
                .or_else(|| cow_at(t, "step"))
                .unwrap_or_default(),
            status: match bool_at(t, "completed") {
                Some(true) => Cow::Borrowed("completed"),
                Some(false) => Cow::Borrowed("pending"),
                None => cow_at(t, "status").unwrap_or(Cow::Borrowed("pending")),
            },
        }),
    )
}

/// `2/5 done`.
fn progress(out: &mut impl Write, todos: &[Todo<'_>]) {
    let done = todos.iter().filter(|t| t.status == "completed").count();
    let _ = write!(out, "{done}/{} done", todos.len());
}

/// One line per item, with a box for its status.
fn checklist(out: &mut impl Write, todos: &[Todo<'_>]) {
    for (i, t) in todos.iter().enumerate() {
        if i > 0 {
            let _ = out.write_char('\n');
        }
        let mark = match t.status.as_ref() {
            "completed" => '☑',
            "in_progress" => '◐',
            _ => '☐',
        };
        let _ = write!(out, "{mark} {}", t.content);
    }
}

/// `turn.*` usage. `input_tokens` includes the cached and cache-write
/// tokens (the `OpenAI` convention); the normalized `input` is the rest.
pub(crate) fn tokens(u: Value<'_>) -> Tokens {
    let cached = u64_at(u, "cached_input_tokens");
    let written = u64_at(u, "cache_write_input_tokens");
    Tokens {
        input: u64_at(u, "input_tokens").map(|i| {
            i.saturating_sub(cached.unwrap_or(0))
                .saturating_sub(written.unwrap_or(0))
        }),
        output: u64_at(u, "output_tokens"),
        cache_read: cached,
        cache_creation: written,
        // A part of `output_tokens` (their sum is `total_tokens`).
        reasoning: u64_at(u, "reasoning_output_tokens"),
    }
}

/// The command inside Codex's shell wrapper (`/bin/bash -lc '…'`), or the
/// command itself when it is not wrapped that simple way.
pub(crate) fn shell_inner<'v>(cmd: &'v str, a: &'v Arena) -> Cow<'v, str> {
    let Some((shell, rest)) = cmd.split_once(' ') else {
        return Cow::Borrowed(cmd);
    };
    let name = shell.rsplit('/').next().unwrap_or(shell);
    if !matches!(name, "bash" | "zsh" | "sh" | "dash" | "ksh") {
        return Cow::Borrowed(cmd);
    }
    let Some((flag, script)) = rest.trim_start_matches(' ').split_once(' ') else {
        return Cow::Borrowed(cmd);
    };
    if !matches!(flag, "-lc" | "-c" | "-cl") {
        return Cow::Borrowed(cmd);
    }
    shell_word(script, a).unwrap_or(Cow::Borrowed(cmd))
}

/// The value of `s` when it is exactly one POSIX shell word (quotes and
/// escapes removed); `None` when it is several words or unterminated.
fn shell_word<'v>(s: &'v str, a: &'v Arena) -> Option<Cow<'v, str>> {
    if let Some(inner) = s.strip_prefix('\'').and_then(|x| x.strip_suffix('\''))
        && !inner.contains('\'')
    {
        return Some(Cow::Borrowed(inner));
    }
    if !s.is_empty()
        && !s.contains(|c: char| c == '\'' || c == '"' || c == '\\' || c.is_whitespace())
    {
        return Some(Cow::Borrowed(s));
    }
    let mut out = a.text();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        '\n' => {}
                        n @ ('$' | '`' | '"' | '\\') => out.push(n),
                        n => {
                            out.push('\\');
                            out.push(n);
                        }
                    },
                    c => out.push(c),
                }
            },
            '\\' => match chars.next()? {
                '\n' => {}
                n => out.push(n),
            },
            c if c.is_whitespace() => return None,
            c => out.push(c),
        }
    }
    Some(Cow::Borrowed(out.done()))
}

#[cfg(test)]
mod tests;
