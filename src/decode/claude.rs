//! Claude Code `--output-format stream-json --verbose`.
//!
//! What the real CLI does that its documentation does not say (see
//! `tests/fixtures/claude/README.md`): one `assistant` line per content block,
//! with the message's usage repeated on each; API failures reported as a
//! `<synthetic>` assistant message and a `success` result with `is_error`;
//! the sub-agent tool called `Agent` although `init` lists `Task`.
//!
//! The content blocks of its messages, their usage and the tools they call
//! are the Anthropic Messages API's (`messages.rs`). Qwen Code, Amp and
//! Cursor print this stream's shape for most of their lines and hand those
//! to its [`State`]; the transcripts hand it their messages.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use super::args::{content_of, json_in, list, strings_at};
use super::messages::{
    MessageUsage, Said, cache_write_1h, content, content_text, key_arg, tokens, tool_call,
};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, has, start};
use crate::event::{
    Answer, Delta, DeltaKind, Denial, Event, EventKind, Level, List, McpServer, ModelUsage, Notice,
    Producer, Role, SessionResult, SessionStart, Text, Tokens, ToolResult, Unknown, Usage,
};
use crate::event::{Content, Edit, FileChange};
use crate::json::{
    Arena, Arr, J, Value, arr_at, bool_at, cow_at, f64_at, get, str_at, u64_at, view,
};
use crate::time::Timestamp;

mod delta;

/// Per-stream state.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct State {
    /// API messages whose usage was emitted recently, with the counts
    /// emitted: usage repeats on every line of a message, its output count
    /// growing, and each message must be counted once, finally.
    recent_usage: MessageUsage,
    /// Background tasks started (the most recent [`RECENT_TASKS`]).
    tasks: std::collections::VecDeque<Task>,
    /// Their text, one after the other; compacted in place when it has
    /// grown (one buffer, so that a task allocates nothing once it is
    /// big enough).
    task_text: String,
}

/// How many background tasks to remember.
const RECENT_TASKS: usize = 64;

/// A background task (Claude Code 2.1.330 runs sub-agents in the
/// background), from its `task_started` line: its `task_id` (which its
/// `task_notification` names), `run_id` (which names it in the `origin` of
/// the result of the turn its end starts), `tool_use_id` (the call that
/// started it, the `parent` of its lines) and `description`, kept in
/// [`State::task_text`].
#[derive(Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct Task {
    /// Where each of the four starts and ends in the text.
    bounds: [(usize, usize); 4],
    /// A text of its own was seen: its last one is its answer, which the
    /// `task_notification` repeats.
    spoke: bool,
}

impl Task {
    const KEYS: [&str; 4] = ["task_id", "run_id", "tool_use_id", "description"];
    const ID: usize = 0;
    const RUN: usize = 1;
    const CALL: usize = 2;
    const DESCRIPTION: usize = 3;

    fn part<'s>(&self, text: &'s str, i: usize) -> &'s str {
        let (start, end) = self.bounds[i];
        text.get(start..end).unwrap_or("")
    }
}

impl State {
    /// Remember a task, in the memory of a forgotten one (or of itself,
    /// seen again): decoding allocates nothing once the slots exist.
    fn task_started(&mut self, v: Value<'_>) {
        let id = str_at(v, "task_id").unwrap_or("");
        if let Some(i) = self.task_index(Task::ID, id) {
            self.tasks.remove(i);
        }
        if self.tasks.len() >= RECENT_TASKS {
            self.tasks.pop_front();
        }
        let parts = Task::KEYS.map(|k| str_at(v, k).unwrap_or(""));
        let size: usize = parts.iter().map(|p| p.len()).sum();
        if self.task_text.len() + size > self.task_text.capacity() {
            self.compact_tasks();
        }
        let mut t = Task::default();
        for (b, part) in t.bounds.iter_mut().zip(parts) {
            let start = self.task_text.len();
            self.task_text.push_str(part);
            *b = (start, self.task_text.len());
        }
        self.tasks.push_back(t);
    }

    /// A sub-agent's line with text: the background task that `call`
    /// started has spoken (its last text is its answer).
    fn task_spoke(&mut self, call: &str) {
        let text = &self.task_text;
        for t in &mut self.tasks {
            if t.part(text, Task::CALL) == call {
                t.spoke = true;
            }
        }
    }

    /// Move the text of the tasks remembered to the front of the buffer,
    /// over that of the forgotten ones, in place.
    fn compact_tasks(&mut self) {
        let mut bytes = std::mem::take(&mut self.task_text).into_bytes();
        let mut to = 0;
        // Tasks are in the order of their text.
        for t in &mut self.tasks {
            let (start, end) = (t.bounds[0].0, t.bounds[3].1);
            bytes.copy_within(start..end, to);
            for b in &mut t.bounds {
                *b = (b.0 - start + to, b.1 - start + to);
            }
            to += end - start;
        }
        bytes.truncate(to);
        // Whole strings moved: still UTF-8.
        self.task_text = String::from_utf8(bytes).unwrap_or_default();
    }

    /// The most recent task whose part `i` is `value`.
    fn task_index(&self, i: usize, value: &str) -> Option<usize> {
        if value.is_empty() {
            return None;
        }
        self.tasks
            .iter()
            .rposition(|t| t.part(&self.task_text, i) == value)
    }

    /// Part `part` of the most recent task whose part `by` is `value`.
    fn task_part(&self, by: usize, value: &str, part: usize) -> Option<(&str, bool)> {
        let t = self.tasks.get(self.task_index(by, value)?)?;
        Some((t.part(&self.task_text, part), t.spoke))
    }
}

/// An event of a line in Claude's shape, as the producers that print it
/// (Qwen, Amp) build theirs: session from `session_id`, parent from
/// `parent_tool_use_id`.
pub(crate) fn event<'v>(v: Value<'v>, ctx: &Ctx<'v>, kind: EventKind<'v>) -> Event<'v> {
    Event {
        producer: ctx.producer,
        line: ctx.line,
        source: None,
        session: cow_at(v, "session_id"),
        parent: cow_at(v, "parent_tool_use_id").filter(|p| !p.is_empty()),
        time: ctx.time,
        kind,
    }
}

pub(crate) struct Base<'v> {
    pub(crate) producer: Producer,
    pub(crate) line: u64,
    pub(crate) session: Option<Cow<'v, str>>,
    pub(crate) parent: Option<Cow<'v, str>>,
    pub(crate) time: Option<Timestamp>,
}

impl<'v> Base<'v> {
    pub(crate) fn event(&self, kind: EventKind<'v>) -> Event<'v> {
        Event {
            producer: self.producer,
            line: self.line,
            source: None,
            session: self.session.clone(),
            parent: self.parent.clone(),
            time: self.time,
            kind,
        }
    }
}

/// Claude stream-json types no other producer prints.
const CLAUDE_TYPES: [&str; 12] = [
    "stream_event",
    "tool_progress",
    "tool_use_summary",
    "auth_status",
    "rate_limit_event",
    "prompt_suggestion",
    "active_goal",
    "conversation_reset",
    "keep_alive",
    "control_request",
    "control_response",
    "control_cancel_request",
];

/// The registry's line for Claude Code.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Claude,
    name: "claude",
    label: "Claude Code",
    invocation: "Claude Code `-p --output-format stream-json --verbose`",
    stream: start::<State>,
    format: &Claude,
    unsearched: &[
        "cwd",
        "parent_tool_use_id",
        "permissionMode",
        "request_id",
        "timestamp",
        "uuid",
    ],
    unread: &[],
    store: Some(Store {
        home: ".claude",
        moved_by: &["CLAUDE_CONFIG_DIR"],
        sessions: "projects",
        database: None,
        reader: None,
    }),
};

/// Claude Code `--output-format stream-json --verbose` (the registry's entry).
pub(crate) struct Claude;

impl Format for Claude {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        if s.is_init() && has(s.v, "claude_code_version") {
            return Some(Evidence::Init);
        }
        // Any other init (an older Claude Code has no version field), its
        // own types, and any other system line.
        if s.ty == "system" || CLAUDE_TYPES.contains(&s.ty) {
            return Some(Evidence::Family);
        }
        (s.ty == "result" && has(s.v, "total_cost_usd")).then_some(Evidence::Hint)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.is_init()
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        let [ty, session, session_camel, parent] =
            v.fields(["type", "session_id", "sessionId", "parent_tool_use_id"]);
        let text = |x: Option<Value<'v>>| x.and_then(Value::into_string).map(Cow::Borrowed);
        let ty = ty.and_then(Value::into_string).unwrap_or("");
        let a = ctx.arena;
        let base = Base {
            producer: ctx.producer,
            line: ctx.line,
            session: text(session).or_else(|| text(session_camel)),
            parent: text(parent).filter(|p| !p.is_empty()),
            time: ctx.time,
        };
        match ty {
            "system" => system(v, ctx, &base, state, emit),
            "assistant" => assistant(v, ctx, &base, state, emit),
            "user" => user(v, ctx, &base, emit),
            "result" => result(v, a, &base, state, emit),
            "stream_event" => stream_event(v, ctx, &base, emit),
            _ => match line_notice(ty, v, a) {
                Some((level, text)) => notice(&base, ctx, ty, level, text, emit),
                None => unknown(&base, ctx, ty, str_at(v, "subtype"), emit),
            },
        }
    }

    fn decode_unparsed(&mut self, ctx: &Ctx<'_>, emit: &mut Emit<'_>) -> Option<io::Result<()>> {
        delta::read(ctx, emit)
    }
}

/// The notice a line of Claude Code's other types makes (rate limits,
/// tool progress, control messages…), or `None` for a type it does not
/// know.
fn line_notice<'v>(ty: &'v str, v: Value<'v>, a: &'v Arena) -> Option<(Level, Cow<'v, str>)> {
    Some(match ty {
        "rate_limit_event" => rate_limit(v, a),
        "tool_progress" => {
            let name = str_at(v, "tool_name").unwrap_or("tool");
            let secs = f64_at(v, "elapsed_time_seconds").unwrap_or(0.0);
            (Level::Debug, text!(a, "{name} still running ({secs:.0}s)"))
        }
        "tool_use_summary" => (
            Level::Info,
            Cow::Borrowed(str_at(v, "summary").unwrap_or("")),
        ),
        "auth_status" => match str_at(v, "error") {
            Some(e) => (Level::Error, text!(a, "authentication error: {e}")),
            None => (Level::Debug, Cow::Borrowed("authenticating")),
        },
        "conversation_reset" => (Level::Info, "conversation reset".into()),
        "prompt_suggestion" => (
            Level::Debug,
            text!(
                a,
                "suggested prompt: {}",
                str_at(v, "suggestion").unwrap_or("")
            ),
        ),
        "control_request" => {
            let sub = get(v, "request")
                .and_then(|r| str_at(r, "subtype"))
                .unwrap_or("?");
            (Level::Debug, text!(a, "control request: {sub}"))
        }
        "keep_alive" | "active_goal" | "control_response" | "control_cancel_request" => {
            (Level::Debug, a.spaced(ty))
        }
        _ => return None,
    })
}

/// `rate limit: allowed_warning (five_hour), 82% used`.
fn rate_limit<'v>(v: Value<'v>, a: &'v Arena) -> (Level, Cow<'v, str>) {
    let info = get(v, "rate_limit_info");
    let status = info.and_then(|i| str_at(i, "status")).unwrap_or("unknown");
    let mut text = a.text();
    let _ = write!(text, "rate limit: {status}");
    if let Some(kind) = info.and_then(|i| str_at(i, "rateLimitType")) {
        let _ = write!(text, " ({kind})");
    }
    if let Some(u) = info.and_then(|i| f64_at(i, "utilization")) {
        let _ = write!(text, ", {:.0}% used", if u <= 1.0 { u * 100.0 } else { u });
    }
    let level = match status {
        "rejected" => Level::Error,
        "allowed_warning" => Level::Warning,
        _ => Level::Debug,
    };
    (level, text.done().into())
}

fn notice<'v>(
    base: &Base<'v>,
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

fn unknown<'v>(
    base: &Base<'v>,
    ctx: &Ctx<'v>,
    ty: &str,
    sub: Option<&str>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let type_name = match sub.filter(|s| !s.is_empty()) {
        Some(s) => text!(ctx.arena, "{ty}/{s}"),
        None => Cow::Borrowed(ctx.arena.copy(ty)),
    };
    emit(&base.event(EventKind::Unknown(Unknown {
        type_name,
        raw: ctx.raw(),
    })))
}

fn system<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let sub = str_at(v, "subtype").unwrap_or("");
    let a = ctx.arena;
    let kind = match sub {
        "init" => EventKind::SessionStart(init(v, a)),
        "permission_denied" => EventKind::PermissionDenied(Denial {
            id: cow_at(v, "tool_use_id"),
            tool: cow_at(v, "tool_name"),
            key_arg: None,
            message: cow_at(v, "message").or_else(|| cow_at(v, "decision_reason")),
        }),
        "local_command_output" => EventKind::Text(Text {
            role: Role::Assistant,
            text: Cow::Borrowed(str_at(v, "content").unwrap_or("")),
            message_id: None,
            command: None,
            continues: false,
        }),
        _ => {
            let Some((level, text)) = system_notice(sub, v, state, a) else {
                return unknown(base, ctx, "system", Some(sub), emit);
            };
            EventKind::Notice(Notice {
                subtype: Cow::Borrowed(sub),
                level,
                text,
                raw: Some(ctx.raw()),
                // Updated many times while the model thinks.
                estimate: sub == "thinking_tokens",
            })
        }
    };
    emit(&base.event(kind))
}

/// A `system` line that is a notice: its level and text; `None` for a
/// subtype this version does not know.
fn system_notice<'v>(
    sub: &'v str,
    v: Value<'v>,
    state: &mut State,
    a: &'v Arena,
) -> Option<(Level, Cow<'v, str>)> {
    Some(match sub {
        "api_retry" => api_retry(v, a),
        "compact_boundary" => compaction(v, a),
        "status" => match str_at(v, "status") {
            Some("compacting") => (Level::Info, "compacting the context…".into()),
            Some(s) => (Level::Debug, text!(a, "status: {s}")),
            None => match str_at(v, "compact_error") {
                Some(e) => (Level::Warning, text!(a, "compaction failed: {e}")),
                None => (Level::Debug, "status: idle".into()),
            },
        },
        "thinking_tokens" => {
            let n = u64_at(v, "estimated_tokens").unwrap_or(0);
            (Level::Debug, text!(a, "thinking… ~{n} tokens"))
        }
        "task_started" | "task_progress" | "task_updated" => {
            if sub == "task_started" {
                state.task_started(v);
            }
            task_notice(sub, v, a)
        }
        "task_notification" => task_ended(v, state, a),
        "hook_started" | "hook_progress" | "hook_response" => hook_notice(sub, v, a),
        "informational" | "notification" => {
            let text = str_at(v, "content")
                .or_else(|| str_at(v, "text"))
                .unwrap_or("");
            let level = match str_at(v, "level").or_else(|| str_at(v, "priority")) {
                Some("warning" | "high" | "immediate") => Level::Warning,
                _ => Level::Info,
            };
            (level, Cow::Borrowed(text))
        }
        "model_refusal_fallback" => {
            let m = str_at(v, "fallback_model").unwrap_or("another model");
            (Level::Warning, text!(a, "model refused; retrying with {m}"))
        }
        "model_refusal_no_fallback" => {
            let c = str_at(v, "content").unwrap_or("the model refused to answer");
            (Level::Error, text!(a, "model refusal: {c}"))
        }
        "session_writes_lost" => {
            let c = str_at(v, "error_code").unwrap_or("write error");
            (Level::Error, text!(a, "session transcript incomplete: {c}"))
        }
        "background_tasks_changed" => {
            let n = arr_at(v, "tasks").len();
            (Level::Debug, text!(a, "background tasks: {n}"))
        }
        "session_state_changed" => (
            Level::Debug,
            text!(a, "session {}", str_at(v, "state").unwrap_or("changed")),
        ),
        "files_persisted"
        | "plugin_install"
        | "commands_changed"
        | "memory_recall"
        | "elicitation_complete"
        | "control_request_progress"
        | "mirror_error"
        | "worker_shutting_down" => (Level::Debug, a.spaced(sub)),
        _ => return None,
    })
}

/// `API retry 2/10 in 1.5s: overloaded (HTTP 529)`.
fn api_retry<'v>(v: Value<'v>, a: &'v Arena) -> (Level, Cow<'v, str>) {
    let mut t = a.text();
    t.push_str("API retry");
    if let Some(a) = u64_at(v, "attempt") {
        let _ = write!(t, " {a}");
        if let Some(m) = u64_at(v, "max_retries") {
            let _ = write!(t, "/{m}");
        }
    }
    if let Some(ms) = f64_at(v, "retry_delay_ms") {
        let _ = write!(t, " in {:.1}s", ms / 1000.0);
    }
    if let Some(e) = str_at(v, "error") {
        let _ = write!(t, ": {e}");
    }
    if let Some(s) = u64_at(v, "error_status") {
        let _ = write!(t, " (HTTP {s})");
    }
    (Level::Warning, t.done().into())
}

/// `context compacted (auto): N tokens before, M after`.
fn compaction<'v>(v: Value<'v>, a: &'v Arena) -> (Level, Cow<'v, str>) {
    let meta = get(v, "compact_metadata");
    let trigger = meta.and_then(|m| str_at(m, "trigger")).unwrap_or("auto");
    let mut t = a.text();
    let _ = write!(t, "context compacted ({trigger})");
    if let Some(pre) = meta.and_then(|m| u64_at(m, "pre_tokens")) {
        let _ = write!(t, ": {pre} tokens before");
        if let Some(post) = meta.and_then(|m| u64_at(m, "post_tokens")) {
            let _ = write!(t, ", {post} after");
        }
    }
    (Level::Info, t.done().into())
}

/// A background task started, progressed, changed or finished.
fn task_notice<'v>(sub: &str, v: Value<'v>, a: &'v Arena) -> (Level, Cow<'v, str>) {
    match sub {
        "task_started" => {
            let d = str_at(v, "description").unwrap_or("");
            let mut t = a.text();
            let _ = write!(t, "task started: {d}");
            if let Some(ty) = str_at(v, "subagent_type").or_else(|| str_at(v, "task_type")) {
                let _ = write!(t, " ({ty})");
            }
            (Level::Debug, t.done().into())
        }
        "task_progress" => {
            let d = str_at(v, "description").unwrap_or("");
            (Level::Debug, text!(a, "task progress: {d}"))
        }
        "task_updated" => {
            let patch = get(v, "patch");
            let st = patch.and_then(|p| str_at(p, "status")).unwrap_or("updated");
            match patch.and_then(|p| str_at(p, "error")) {
                Some(e) => (Level::Warning, text!(a, "task {st}: {e}")),
                None => (Level::Debug, text!(a, "task {st}")),
            }
        }
        _ => (Level::Debug, text!(a, "{}", a.spaced(sub))),
    }
}

/// A background task ended (`task_notification`): its status and what it
/// was. Its `summary` is the sub-agent's answer; said only when the
/// sub-agent's own text (whose last is that answer) was not in the stream.
fn task_ended<'v>(v: Value<'v>, state: &State, a: &'v Arena) -> (Level, Cow<'v, str>) {
    let st = str_at(v, "status").unwrap_or("done");
    let summary = str_at(v, "summary").unwrap_or("");
    let level = if st == "completed" {
        Level::Info
    } else {
        Level::Warning
    };
    let id = str_at(v, "task_id").unwrap_or("");
    let text = match state.task_part(Task::ID, id, Task::DESCRIPTION) {
        Some((d, spoke)) if spoke || summary.is_empty() || summary == d => {
            text!(a, "task {st}: {d}")
        }
        Some((d, _)) => text!(a, "task {st}: {d}: {summary}"),
        None => text!(a, "task {st}: {summary}"),
    };
    (level, text)
}

/// A hook started, running, or done (a warning when it failed).
fn hook_notice<'v>(sub: &str, v: Value<'v>, a: &'v Arena) -> (Level, Cow<'v, str>) {
    match sub {
        "hook_started" | "hook_progress" => {
            let name = str_at(v, "hook_name").unwrap_or("hook");
            (
                Level::Debug,
                text!(
                    a,
                    "hook {name} {}",
                    if sub == "hook_started" {
                        "started"
                    } else {
                        "running"
                    }
                ),
            )
        }
        _ => {
            let name = str_at(v, "hook_name").unwrap_or("hook");
            let outcome = str_at(v, "outcome").unwrap_or("done");
            let code = u64_at(v, "exit_code");
            if outcome == "success" && code.is_none_or(|c| c == 0) {
                (Level::Debug, text!(a, "hook {name}: {outcome}"))
            } else {
                let mut t = a.text();
                let _ = write!(t, "hook {name}: {outcome}");
                if let Some(c) = code {
                    let _ = write!(t, " (exit {c})");
                }
                if let Some(e) = str_at(v, "stderr").map(str::trim).filter(|e| !e.is_empty()) {
                    let _ = write!(t, ": {e}");
                }
                (Level::Warning, t.done().into())
            }
        }
    }
}

pub(crate) fn init<'v>(v: Value<'v>, a: &'v Arena) -> SessionStart<'v> {
    SessionStart {
        model: cow_at(v, "model"),
        cwd: cow_at(v, "cwd"),
        version: cow_at(v, "claude_code_version"),
        permission_mode: cow_at(v, "permissionMode"),
        agent_mode: None,
        api_key_source: cow_at(v, "apiKeySource"),
        tools: strings_at(v, "tools", a),
        mcp_servers: mcp_servers(v, a),
        agents: strings_at(v, "agents", a),
        skills: strings_at(v, "skills", a),
        slash_commands: strings_at(v, "slash_commands", a),
    }
}

/// The MCP servers of an `init` line (Claude's and Qwen's).
pub(crate) fn mcp_servers<'v>(v: Value<'v>, a: &'v Arena) -> List<'v, McpServer<'v>> {
    list(
        a,
        arr_at(v, "mcp_servers").iter().map(|s| McpServer {
            name: cow_at(s, "name").unwrap_or(Cow::Borrowed("?")),
            status: cow_at(s, "status").unwrap_or(Cow::Borrowed("unknown")),
        }),
    )
}

pub(crate) fn assistant<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    // Each in one walk of the keys (`Value::fields`).
    let [msg, error, flagged, aborted] =
        v.fields(["message", "error", "is_api_error_message", "aborted"]);
    let [message_id, model, content, usage] = msg
        .map(|m| m.fields(["id", "model", "content", "usage"]))
        .unwrap_or_default();
    let message_id = message_id.and_then(Value::into_string).map(Cow::Borrowed);
    let model = model.and_then(Value::into_string);
    let error = error.and_then(Value::into_string);
    let api_error = error.is_some()
        || model == Some("<synthetic>")
        || flagged.and_then(Value::as_bool) == Some(true);

    if api_error {
        // The CLI reports an API failure as an assistant message of its own
        // making; it is an error, not something the model said.
        return emit(&base.event(EventKind::Notice(api_error_notice(error, content, ctx))));
    }
    if let (Some(u), Some(id)) = (usage, message_id.as_deref())
        && let counts = tokens(u)
        && let Said::Usage(replaces) = state.recent_usage.said(id, counts)
    {
        let usage = Usage {
            message_id: message_id.clone(),
            model: model.map(Cow::Borrowed),
            tokens: counts,
            replaces,
            ..message_usage(v, u, ctx.producer)
        };
        emit(&base.event(EventKind::Usage(usage)))?;
    }
    if let Some(p) = base.parent.as_deref()
        && content.is_some_and(has_text)
    {
        state.task_spoke(p);
    }
    match content.map(view) {
        Some(J::Str(s)) => emit(&base.event(EventKind::Text(Text {
            role: Role::Assistant,
            text: Cow::Borrowed(s),
            message_id: message_id.clone(),
            command: None,
            continues: false,
        })))?,
        Some(J::Arr(blocks)) => {
            for block in blocks {
                assistant_block(block, ctx, base, message_id.as_ref(), emit)?;
            }
        }
        // No usable content (`"message": null`, `"content": 5`): kept as it
        // came, so the line does not vanish.
        _ => unknown(base, ctx, "assistant", None, emit)?,
    }
    if aborted.and_then(Value::as_bool) == Some(true) {
        emit(&base.event(EventKind::Notice(Notice {
            subtype: Cow::Borrowed("aborted"),
            level: Level::Warning,
            text: Cow::Borrowed("response aborted mid-stream"),
            raw: None,
            estimate: false,
        })))?;
    }
    Ok(())
}

/// The notice of an API failure the CLI wrote as an assistant message.
fn api_error_notice<'v>(
    error: Option<&'v str>,
    content: Option<Value<'v>>,
    ctx: &Ctx<'v>,
) -> Notice<'v> {
    let text = content
        .map(|c| content_text(c, ctx.arena))
        .filter(|t| !t.is_empty());
    let text = match (text, error) {
        (Some(t), _) => t,
        (None, Some(e)) => text!(ctx.arena, "API error: {e}"),
        (None, None) => Cow::Borrowed("API error"),
    };
    Notice {
        subtype: Cow::Borrowed("api_error"),
        level: Level::Error,
        text,
        raw: Some(ctx.raw()),
        estimate: false,
    }
}

/// What a message's line `v` says of its usage `u` besides its counts.
fn message_usage<'v>(v: Value<'v>, u: Value<'v>, producer: Producer) -> Usage<'v> {
    Usage {
        // Transcripts name the request (stream-json does not).
        request_id: cow_at(v, "requestId"),
        cache_write_1h: cache_write_1h(u),
        sidechain: bool_at(v, "isSidechain") == Some(true),
        fast: str_at(u, "speed") == Some("fast"),
        // Claude Code's own stream; Qwen and Amp, which share its shapes,
        // report final counts.
        preliminary_output: producer == Producer::Claude,
        ..Usage::default()
    }
}

/// True when a message's content holds text.
fn has_text(content: Value<'_>) -> bool {
    match view(content) {
        J::Str(s) => !s.is_empty(),
        J::Arr(blocks) => blocks.iter().any(|b| str_at(b, "type") == Some("text")),
        _ => false,
    }
}

fn assistant_block<'v>(
    block: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    message_id: Option<&Cow<'v, str>>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let message_id = message_id.cloned();
    if let Some(said) = super::messages::said(block, message_id.as_ref()) {
        return emit(&base.event(said));
    }
    let kind = match str_at(block, "type").unwrap_or("") {
        "tool_use" | "server_tool_use" | "mcp_tool_use" => {
            EventKind::ToolCall(tool_call(block, message_id, ctx.arena))
        }
        "mcp_tool_result" => EventKind::ToolResult(ToolResult {
            id: cow_at(block, "tool_use_id").unwrap_or_default(),
            is_error: bool_at(block, "is_error").unwrap_or(false),
            denied: false,
            content: get(block, "content")
                .map(|c| content(c, ctx.arena))
                .unwrap_or_default(),
            answers: List::default(),
            changes: List::default(),
        }),
        t if t.ends_with("_tool_result") => {
            // Server tool results (web search, code execution…) arrive inside
            // the assistant message; an error is an object with `error_code`.
            let c = get(block, "content");
            let err = c.and_then(|c| str_at(c, "error_code"));
            EventKind::ToolResult(ToolResult {
                id: cow_at(block, "tool_use_id").unwrap_or_default(),
                is_error: err.is_some(),
                denied: false,
                content: match err {
                    Some(e) => text!(ctx.arena, "error: {e}").into(),
                    None => c.map(|c| content(c, ctx.arena)).unwrap_or_default(),
                },
                answers: List::default(),
                changes: List::default(),
            })
        }
        t => {
            return emit(&base.event(EventKind::Unknown(Unknown {
                type_name: text!(ctx.arena, "assistant/{t}"),
                raw: ctx.raw(),
            })));
        }
    };
    emit(&base.event(kind))
}

pub(crate) fn user<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    // Each in one walk of the keys (`Value::fields`).
    let [msg, snake, camel] = v.fields(["message", "tool_use_result", "toolUseResult"]);
    let content = msg.and_then(|m| get(m, "content"));
    match content.map(view) {
        Some(J::Str(s)) => emit(&base.event(EventKind::Text(Text {
            role: Role::User,
            text: Cow::Borrowed(s),
            message_id: None,
            command: slash_command(s, ctx.arena),
            continues: false,
        }))),
        Some(J::Arr(blocks)) => {
            // The structured result is the line's: it goes with its first
            // tool result.
            let mut structured = Some(snake.or(camel).filter(|r| r.is_object()));
            for block in blocks {
                match str_at(block, "type").unwrap_or("") {
                    "tool_result" => {
                        tool_result(block, structured.take().flatten(), ctx, base, emit)?;
                    }
                    "text" => {
                        let text = str_at(block, "text").unwrap_or("");
                        emit(&base.event(EventKind::Text(Text {
                            role: Role::User,
                            text: Cow::Borrowed(text),
                            message_id: None,
                            command: slash_command(text, ctx.arena),
                            continues: false,
                        })))?;
                    }
                    "image" | "document" => {}
                    t => {
                        emit(&base.event(EventKind::Unknown(Unknown {
                            type_name: text!(ctx.arena, "user/{t}"),
                            raw: ctx.raw(),
                        })))?;
                    }
                }
            }
            Ok(())
        }
        // No usable content: kept as it came, so the line does not vanish.
        _ => unknown(base, ctx, "user", None, emit),
    }
}

/// A `tool_result` block, with the line's structured result `structured`
/// (the first result of the line has it), and its denial when the tool
/// was refused.
fn tool_result<'v>(
    block: Value<'v>,
    structured: Option<Value<'v>>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let id = cow_at(block, "tool_use_id").unwrap_or_default();
    let is_error = bool_at(block, "is_error").unwrap_or(false);
    let content = get(block, "content")
        .map(|c| super::messages::content(c, ctx.arena))
        .unwrap_or_default();
    let text = is_error.then(|| content.text_in(ctx.arena));
    let denied = text.is_some_and(is_denial);
    let message = text.filter(|_| denied).map(Cow::Borrowed);
    emit(
        &base.event(EventKind::ToolResult(ToolResult {
            id: id.clone(),
            is_error,
            denied,
            content,
            answers: structured
                .map(|r| answers(r, ctx.arena))
                .unwrap_or_default(),
            changes: (structured.filter(|_| !is_error))
                .map(|r| result_changes(r, ctx.arena))
                .unwrap_or_default(),
        })),
    )?;
    match message {
        Some(message) => emit(&base.event(EventKind::PermissionDenied(Denial {
            id: Some(id),
            tool: None,
            key_arg: None,
            message: Some(message),
        }))),
        None => Ok(()),
    }
}

/// The changes an `Edit`, `MultiEdit` or `Write` reports from the line's
/// structured result (`tool_use_result`; `toolUseResult` in transcripts):
/// its `structuredPatch` (numbered hunks, read only when a view shows
/// them), or, without one, a `Write`'s `content` and `originalFile`: the
/// file before and after when it existed, all added when it is new
/// (`originalFile: null`).
fn result_changes<'v>(r: Value<'v>, a: &'v Arena) -> List<'v, FileChange<'v>> {
    let [patch, original, content] = r.fields(["structuredPatch", "originalFile", "content"]);
    let patch = patch.filter(|p| !Arr::of(*p).is_empty());
    let edit = match (patch, original, content.and_then(content_of)) {
        (Some(p), _, _) => Edit::Patch(Content::hunks(p)),
        (None, Some(o), Some(new)) => match content_of(o) {
            Some(old) => Edit::Rewrite { old, new },
            None if o.is_null() => Edit::Write(new),
            None => return List::default(),
        },
        _ => return List::default(),
    };
    list(a, [FileChange { path: None, edit }])
}

/// The user's answers to an `AskUserQuestion` call, from the line's
/// structured result (`tool_use_result`; `toolUseResult` in transcripts):
/// `answers: {question: answer}`, an answer a label or a list of them.
fn answers<'v>(r: Value<'v>, a: &'v Arena) -> List<'v, Answer<'v>> {
    let Some(o) = get(r, "answers").and_then(Value::as_object) else {
        return List::default();
    };
    list(
        a,
        o.iter().filter_map(|(q, x)| {
            let answer = match view(x) {
                J::Str(s) => s,
                J::Arr(items) => {
                    let mut t = a.text();
                    for (i, s) in items
                        .iter()
                        .filter_map(|i| match view(i) {
                            J::Str(s) => Some(s),
                            _ => None,
                        })
                        .enumerate()
                    {
                        if i > 0 {
                            t.push_str(", ");
                        }
                        t.push_str(s);
                    }
                    t.done()
                }
                _ => return None,
            };
            Some(Answer {
                question: Cow::Borrowed(q),
                answer: Cow::Borrowed(answer),
            })
        }),
    )
}

/// A slash command as Claude Code records it in a user turn
/// (`<command-name>/model</command-name>` … `<command-args>opus</command-args>`),
/// as it was typed: `/model opus`.
fn slash_command<'v>(text: &'v str, a: &'v Arena) -> Option<Cow<'v, str>> {
    let tag = |open: &str, close: &str| {
        let start = text.find(open)? + open.len();
        let end = text.get(start..)?.find(close)? + start;
        Some(text.get(start..end)?.trim())
    };
    let name = tag("<command-name>", "</command-name>")?;
    let mut typed = a.text();
    if !name.starts_with('/') {
        typed.push('/');
    }
    typed.push_str(name);
    if let Some(args) = tag("<command-args>", "</command-args>").filter(|a| !a.is_empty()) {
        typed.push(' ');
        typed.push_str(args);
    }
    Some(Cow::Borrowed(typed.done()))
}

/// Texts the CLI writes into a tool result when the permission system said no.
fn is_denial(text: &str) -> bool {
    const MARKERS: [&str; 5] = [
        "requested permissions to",
        "haven't granted it yet",
        "require approval",
        "doesn't want to proceed with this tool use",
        "has been denied",
    ];
    MARKERS.iter().any(|m| text.contains(m))
}

fn result<'v>(
    v: Value<'v>,
    a: &'v Arena,
    base: &Base<'v>,
    state: &State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    // The authoritative denial list comes first so the summary is the last line.
    for d in arr_at(v, "permission_denials") {
        let name = str_at(d, "tool_name").unwrap_or("");
        let input = get(d, "tool_input");
        emit(&base.event(EventKind::PermissionDenied(Denial {
            id: cow_at(d, "tool_use_id"),
            tool: cow_at(d, "tool_name"),
            key_arg: input.and_then(|i| key_arg(name, i, a)),
            message: None,
        })))?;
    }
    let subtype = str_at(v, "subtype");
    let is_error =
        bool_at(v, "is_error").unwrap_or(false) || subtype.is_some_and(|s| s.starts_with("error"));
    let result = get(v, "result");
    let text = match result.map(view) {
        Some(J::Str(s)) => Some(Cow::Borrowed(s)),
        Some(J::Null) | None => None,
        Some(_) => result.map(|r| json_in(r, a)),
    };
    let model_usage = model_usage(v, a);
    let cost_usd = f64_at(v, "total_cost_usd")
        .or_else(|| f64_at(v, "cost_usd"))
        .or_else(|| f64_at(v, "total_cost"))
        .or_else(|| {
            let mut costs = model_usage.iter().filter_map(|m| m.cost_usd).peekable();
            costs.peek().is_some().then(|| costs.sum())
        });
    // A turn that a background task's end started names its run.
    let run = get(v, "origin").and_then(|o| str_at(o, "runId"));
    let after_task = run
        .and_then(|r| state.task_part(Task::RUN, r, Task::DESCRIPTION))
        .map(|(d, _)| Cow::Borrowed(a.copy(d)));
    let res = SessionResult {
        is_error,
        subtype: subtype.map(Cow::Borrowed),
        text,
        errors: strings_at(v, "errors", a),
        num_turns: u64_at(v, "num_turns"),
        duration_ms: u64_at(v, "duration_ms"),
        duration_api_ms: u64_at(v, "duration_api_ms"),
        cost_usd,
        tokens: get(v, "usage").map(tokens).unwrap_or_default(),
        model_usage,
        stop_reason: cow_at(v, "stop_reason"),
        terminal_reason: cow_at(v, "terminal_reason"),
        api_error_status: u64_at(v, "api_error_status"),
        after_task,
    };
    emit(&base.event(EventKind::Result(Box::new(res))))
}

/// Per-model usage (`modelUsage`, keyed by model name, camelCase counts):
/// Claude's result, Qwen's result and the transcripts' `cost-state` line.
pub(crate) fn model_usage<'v>(v: Value<'v>, a: &'v Arena) -> List<'v, ModelUsage<'v>> {
    let Some(o) = get(v, "modelUsage").and_then(Value::as_object) else {
        return List::default();
    };
    list(
        a,
        o.iter().map(|(k, u)| ModelUsage {
            model: Cow::Borrowed(k),
            tokens: Tokens {
                input: u64_at(u, "inputTokens"),
                output: u64_at(u, "outputTokens"),
                cache_read: u64_at(u, "cacheReadInputTokens"),
                cache_creation: u64_at(u, "cacheCreationInputTokens"),
                reasoning: None,
            },
            cost_usd: f64_at(u, "costUSD"),
        }),
    )
}

fn stream_event<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base<'v>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    // A fragment without the fields it must have is kept as it came.
    let Some(ev) = get(v, "event").filter(|e| e.as_object().is_some()) else {
        return unknown(base, ctx, "stream_event", None, emit);
    };
    let [ty, index, delta, block] = ev.fields(["type", "index", "delta", "content_block"]);
    let index = index.and_then(crate::json::u64_of);
    let Some(ty) = ty.and_then(Value::into_string) else {
        return unknown(base, ctx, "stream_event", None, emit);
    };
    if ty == "content_block_start" {
        // A tool call begins: its name is known now, its input only once
        // streamed (a big Write takes seconds), so the start is announced.
        if let Some(block) = block
            && str_at(block, "type") == Some("tool_use")
            && let Some(name) = cow_at(block, "name").filter(|n| !n.is_empty())
        {
            return emit(&base.event(EventKind::Delta(Delta {
                kind: DeltaKind::ToolStart,
                index,
                text: name,
            })));
        }
        return Ok(());
    }
    if ty != "content_block_delta" {
        // message_start/stop, block stop, message_delta: the complete
        // `assistant` line that follows carries what they announce.
        return Ok(());
    }
    let Some(delta) = delta.filter(|d| d.as_object().is_some()) else {
        return unknown(base, ctx, "stream_event", None, emit);
    };
    let Some(dty) = str_at(delta, "type") else {
        return unknown(base, ctx, "stream_event", None, emit);
    };
    // Signatures, citations: nothing to show.
    let Some(&(_, kind, key)) = DELTAS.iter().find(|(t, ..)| *t == dty) else {
        return Ok(());
    };
    emit(
        &base.event(EventKind::Delta(Delta {
            kind,
            index,
            text: get(delta, key)
                .and_then(Value::into_string)
                .map(Cow::Borrowed)
                .unwrap_or_default(),
        })),
    )
}

/// The deltas of a `content_block_delta` that are shown: their `type`, the
/// kind of text they carry and the key it is under (read here parsed, and
/// from the line's bytes in `delta.rs`).
const DELTAS: [(&str, DeltaKind, &str); 3] = [
    ("text_delta", DeltaKind::Text, "text"),
    ("thinking_delta", DeltaKind::Thinking, "thinking"),
    ("input_json_delta", DeltaKind::ToolInput, "partial_json"),
];

#[cfg(test)]
mod tests;
