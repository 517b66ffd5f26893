//! `OpenAI` Codex's saved sessions: the rollout files
//! `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`.
//!
//! Not the `codex exec --json` stream (`codex.rs`) but a format of its own
//! (see `tests/fixtures/codex-rollout/README.md` and `docs/protocols.md`
//! §14): every line is `{timestamp, ordinal, type, payload}`, and most facts
//! are written twice or three times. What is read, and from where:
//!
//! * `session_meta` (line 0) is the session: its id, cwd, CLI version, and
//!   the model its system prompt was written for. The system prompt itself
//!   (~21 KB), `world_state` and the developer messages are never shown.
//! * Text comes from `event_msg` only: the `item_completed` items
//!   `UserMessage`, `AgentMessage` and `Reasoning` (0.169), or the older
//!   `user_message`, `agent_message` and `agent_reasoning`. The
//!   `response_item` messages and reasoning saying the same are skipped.
//! * Tool calls come from `response_item` (`function_call`,
//!   `custom_tool_call`, `web_search_call`, `local_shell_call`), present in
//!   both shapes, their arguments a JSON text inside a string (parsed in a
//!   reused parser of this stream's own, `codex_rollout/tools.rs`). The
//!   names the `exec --json` stream gives them are kept: `exec_command` is
//!   `shell` with its command as key, `apply_patch` names its changes, MCP
//!   tools (`namespace: mcp__<server>`) are `mcp__<server>__<tool>`.
//! * A call's result is its `item_completed` item when there is one (the
//!   exit code, status and output the stream reports), else its
//!   `*_output` line: calls rejected before running (a patch that fails
//!   verification), `update_plan`, and every call of older files. The
//!   output of a call answered by its item is then skipped, by `call_id`.
//! * Tokens: one `usage` event per model response (`token_usage_record`,
//!   or `token_count.last_token_usage` in files without records); the
//!   running thread total (`token_count`) gives each turn's result its own
//!   tokens.
//! * A turn is `task_started` … `task_complete`; a failed turn is a
//!   `task_complete` with an `error` (there is no failure line), shown as
//!   the stream shows its `error` and `turn.failed`.
//!   Older files have no turn lines: their session's result is made at
//!   the end of input (or at the next session's `session_meta`).
//! * Images are inline base64 `data:` URLs: shown as `[image]`.

use std::borrow::Cow;
use std::io;
use std::sync::Arc;

use super::codex::{Base, notice, unknown};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Store, Stream, start};
use super::seen::Recent;
use crate::event::{
    EventKind, Level, Producer, Role, SessionResult, SessionStart, Text, Thinking, Tokens, Usage,
};
use crate::json::{Arena, J, Parser, Unread, Value, arr_at, cow_at, get, str_at, u64_at, view};

mod tools;

/// Per-stream state: saved between two lines for a grown file to be read
/// on from there.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct State {
    /// The session id (`session_meta`), stamped on every later event.
    #[serde(with = "shared")]
    session: Option<Arc<str>>,
    /// The model of the current turn (`turn_context`); empty: unknown.
    model: String,
    /// The working directory of the current turn (patch paths are read
    /// under it); empty: unknown.
    cwd: String,
    /// Calls whose result was their `item_completed` item: their `*_output`
    /// line, a few lines later, is not a second result.
    answered: Recent<64>,
    /// `token_usage_record` lines were seen: `token_count` is not counted
    /// per response again.
    records: bool,
    /// The thread's running token total, as last reported.
    total: Tokens,
    /// The running total when the current turn started.
    turn_start: Tokens,
    /// A `task_started` or `task_complete` was seen: turns end with a
    /// result of their own. Older files have neither: their session's
    /// result is made at its end.
    turns: bool,
    /// The last line read, for that result.
    last_line: u64,
    /// Parses the JSON text of a call's `arguments`, in reused memory.
    #[serde(skip)]
    args: Parser,
}

/// The session id saved as the string it is.
mod shared {
    use std::sync::Arc;

    // serde's `with` hands the field by reference.
    #[allow(clippy::ref_option)]
    pub(super) fn serialize<S: serde::Serializer>(
        v: &Option<Arc<str>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&v.as_deref(), s)
    }

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Arc<str>>, D::Error> {
        Ok(<Option<String> as serde::Deserialize>::deserialize(d)?.map(Arc::from))
    }
}

/// The registry's line for Codex rollout files.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::CodexRollout,
    name: "codex-rollout",
    label: "Codex",
    invocation: "Codex session files (`~/.codex/sessions/…/rollout-*.jsonl`)",
    stream: start::<State>,
    format: &CodexRollout,
    unsearched: &[],
    // A snapshot of settings (skills, environments, permissions): no event.
    unread: &[Unread::all_of("world_state")],
    store: Some(Store {
        home: ".codex",
        moved_by: &["CODEX_HOME"],
        sessions: "sessions",
        database: None,
        reader: None,
    }),
};

/// Codex rollout files (the registry's entry).
pub(crate) struct CodexRollout;

/// The line types of a rollout file (each with a `payload`).
const LINE_TYPES: [&str; 7] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "world_state",
    "token_usage_record",
    "compacted",
];

impl Format for CodexRollout {
    fn restore(&self, saved: &[u8]) -> Option<Box<dyn Stream>> {
        postcard::from_bytes::<State>(saved)
            .ok()
            .map(|s| Box::new(s) as Box<dyn Stream>)
    }

    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        (LINE_TYPES.contains(&s.ty) && get(s.v, "payload").is_some_and(Value::is_object))
            .then_some(Evidence::Type)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.ty == "session_meta"
    }
}

impl Stream for State {
    fn save(&self) -> Option<Vec<u8>> {
        postcard::to_allocvec(self).ok()
    }

    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        state.last_line = ctx.line;
        let ty = str_at(v, "type").unwrap_or("");
        let Some(p) = get(v, "payload").filter(|p| p.is_object()) else {
            let base = state.base(ctx);
            return unknown(&base, ctx, Cow::Borrowed(ty), emit);
        };
        if ty == "session_meta" {
            return session_meta(p, ctx, state, emit);
        }
        let base = state.base(ctx);
        match ty {
            "turn_context" => {
                state.settings(cow_at(p, "model").as_deref(), str_at(p, "cwd"));
                Ok(())
            }
            "token_usage_record" => {
                state.records = true;
                if let Some(t) = get(p, "thread_token_usage") {
                    state.total = super::codex::tokens(t);
                }
                usage(
                    get(p, "usage"),
                    cow_at(p, "response_id"),
                    &base,
                    state,
                    emit,
                )
            }
            "event_msg" => event_msg(p, ctx, &base, state, emit),
            "response_item" => tools::response_item(p, ctx, &base, state, emit),
            "compacted" => notice(
                &base,
                ctx,
                "compacted",
                Level::Info,
                Cow::Borrowed("context compacted"),
                emit,
            ),
            // `world_state`: a snapshot of settings the turn context gives.
            "world_state" => Ok(()),
            _ => unknown(&base, ctx, Cow::Borrowed(ty), emit),
        }
    }

    /// End of input: an older file's session ends here.
    fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        self.end_untracked(emit)
    }
}

impl State {
    /// What every event of the line `ctx` shares.
    fn base(&self, ctx: &Ctx<'_>) -> Base {
        Base {
            producer: ctx.producer,
            line: ctx.line,
            session: self.session.clone(),
            time: ctx.time,
        }
    }

    /// The result of a session read without turn lines (older files), at
    /// its end: its tokens, and no outcome of its own to say.
    fn end_untracked(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        if self.session.is_none() || self.turns {
            return Ok(());
        }
        self.turns = true;
        let base = Base {
            producer: Producer::CodexRollout,
            line: self.last_line,
            session: self.session.clone(),
            time: None,
        };
        let res = SessionResult {
            tokens: minus(self.total, self.turn_start),
            ..SessionResult::default()
        };
        emit(&base.event(EventKind::Result(Box::new(res))))
    }

    /// A turn's settings, in strings reused from session to session.
    fn settings(&mut self, model: Option<&str>, cwd: Option<&str>) {
        for (held, new) in [(&mut self.model, model), (&mut self.cwd, cwd)] {
            if let Some(new) = new.filter(|n| held != n) {
                held.clear();
                held.push_str(new);
            }
        }
    }
}

/// The first line: the session, with what it says of itself. A second one
/// (files concatenated) starts a new session.
fn session_meta<'v>(
    p: Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    state.end_untracked(emit)?;
    // A new session (files concatenated): the state of the last one is
    // forgotten, its memory kept.
    state.answered.clear();
    state.model.clear();
    state.cwd.clear();
    state.records = false;
    state.total = Tokens::default();
    state.turn_start = Tokens::default();
    state.turns = false;
    state.session = None;
    if let Some(id) = str_at(p, "id").or_else(|| str_at(p, "session_id")) {
        state.session = Some(Arc::from(id));
    }
    let model = get(p, "base_instructions")
        .and_then(|b| get(b, "provenance"))
        .and_then(|pv| cow_at(pv, "model"));
    state.settings(model.as_deref(), str_at(p, "cwd"));
    let base = state.base(ctx);
    emit(&base.event(EventKind::SessionStart(SessionStart {
        model,
        cwd: cow_at(p, "cwd"),
        version: cow_at(p, "cli_version"),
        ..SessionStart::default()
    })))
}

/// An `event_msg` line: text, tool items, tokens, turns.
fn event_msg<'v>(
    p: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let ty = str_at(p, "type").unwrap_or("");
    let a = ctx.arena;
    match ty {
        "item_completed" => match get(p, "item").filter(|i| i.is_object()) {
            Some(item) => item_completed(item, ctx, base, state, emit),
            None => unknown(base, ctx, text!(a, "event_msg/{ty}"), emit),
        },
        "task_started" => {
            state.turns = true;
            state.turn_start = state.total;
            notice(
                base,
                ctx,
                "task_started",
                Level::Debug,
                Cow::Borrowed("turn started"),
                emit,
            )
        }
        "task_complete" => task_complete(p, ctx, base, state, emit),
        "thread_settings_applied" => {
            let s = get(p, "thread_settings");
            let model = s.and_then(|s| cow_at(s, "model"));
            state.settings(model.as_deref(), s.and_then(|s| str_at(s, "cwd")));
            Ok(())
        }
        "token_count" => token_count(p, base, state, emit),
        // The shape of older files.
        "user_message" => text(base, Role::User, user_text(p, a), emit),
        "agent_message" => text(base, Role::Assistant, cow_at(p, "message"), emit),
        "agent_reasoning" => thinking(base, cow_at(p, "text"), emit),
        // The raw text of reasoning whose summary `agent_reasoning` gave.
        "agent_reasoning_raw_content" => Ok(()),
        "turn_aborted" => {
            let reason = str_at(p, "reason").unwrap_or("aborted");
            let text = text!(a, "turn aborted: {reason}");
            notice(base, ctx, ty, Level::Warning, text, emit)
        }
        "context_compacted" => notice(
            base,
            ctx,
            ty,
            Level::Info,
            Cow::Borrowed("context compacted"),
            emit,
        ),
        "error" => {
            let msg = cow_at(p, "message").unwrap_or(Cow::Borrowed("error"));
            notice(base, ctx, "error", Level::Error, msg, emit)
        }
        _ => unknown(base, ctx, text!(a, "event_msg/{ty}"), emit),
    }
}

/// A completed item (0.169): a message, reasoning, or a tool's result.
fn item_completed<'v>(
    item: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let ty = str_at(item, "type").unwrap_or("");
    let a = ctx.arena;
    match ty {
        "UserMessage" => text(base, Role::User, user_text(item, a), emit),
        "AgentMessage" => text(base, Role::Assistant, parts(item, "content", a), emit),
        "Reasoning" => {
            let summary = strings(get(item, "summary_text"), a);
            let t = summary.or_else(|| strings(get(item, "raw_content"), a));
            thinking(base, t, emit)
        }
        // Its `web_search_call` (in every version) is read instead.
        "WebSearch" => Ok(()),
        "CommandExecution" | "FileChange" | "McpToolCall" | "ImageView" => {
            tools::item_result(item, ty, ctx, base, state, emit)
        }
        _ => unknown(base, ctx, text!(a, "item_completed/{ty}"), emit),
    }
}

/// The end of a turn: its result, with the turn's own tokens; a failed
/// turn's error first, as the `exec --json` stream gives it.
fn task_complete<'v>(
    p: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let error = get(p, "error").filter(|e| !e.is_null());
    let message = error.map(|e| {
        cow_at(e, "message")
            .or_else(|| e.into_string().map(Cow::Borrowed))
            .unwrap_or(Cow::Borrowed("error"))
    });
    if let Some(m) = &message {
        notice(base, ctx, "error", Level::Error, m.clone(), emit)?;
    }
    let tokens = minus(state.total, state.turn_start);
    state.turn_start = state.total;
    state.turns = true;
    let res = SessionResult {
        is_error: error.is_some(),
        subtype: error
            .and_then(|e| cow_at(e, "codex_error_info"))
            .filter(|s| !s.is_empty()),
        text: message.or_else(|| cow_at(p, "last_agent_message")),
        duration_ms: u64_at(p, "duration_ms"),
        tokens,
        ..SessionResult::default()
    };
    emit(&base.event(EventKind::Result(Box::new(res))))
}

/// A `token_count` line: the running total; per response too in files
/// without `token_usage_record` lines. A line whose running total is the
/// one before (Codex writes it again when only its rate limits changed)
/// says nothing new: its `last_token_usage` is the previous response's.
fn token_count(
    p: Value<'_>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    // `null` after a failed response.
    let Some(info) = get(p, "info").filter(|i| i.is_object()) else {
        return Ok(());
    };
    if let Some(t) = get(info, "total_token_usage") {
        let total = super::codex::tokens(t);
        let again = total == state.total && !total.is_empty();
        state.total = total;
        if again {
            return Ok(());
        }
    }
    if state.records {
        return Ok(());
    }
    usage(get(info, "last_token_usage"), None, base, state, emit)
}

/// The usage of one model response, with the turn's model.
fn usage(
    u: Option<Value<'_>>,
    id: Option<Cow<'_, str>>,
    base: &Base,
    state: &State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let Some(tokens) = u.map(super::codex::tokens).filter(|t| !t.is_empty()) else {
        return Ok(());
    };
    emit(&base.event(EventKind::Usage(Usage {
        message_id: id,
        request_id: None,
        model: (!state.model.is_empty()).then_some(Cow::Borrowed(state.model.as_str())),
        tokens,
        replaces: None,
        cache_write_1h: None,
        sidechain: false,
        fast: false,
        preliminary_output: false,
        cost_usd: None,
    })))
}

/// `a - b`, field by field; nothing when they are equal (a turn that
/// reported no tokens).
fn minus(a: Tokens, b: Tokens) -> Tokens {
    if a == b {
        return Tokens::default();
    }
    let sub = |x: Option<u64>, y: Option<u64>| x.map(|x| x.saturating_sub(y.unwrap_or(0)));
    Tokens {
        input: sub(a.input, b.input),
        output: sub(a.output, b.output),
        cache_read: sub(a.cache_read, b.cache_read),
        cache_creation: sub(a.cache_creation, b.cache_creation),
        reasoning: sub(a.reasoning, b.reasoning),
    }
}

fn text(
    base: &Base,
    role: Role,
    text: Option<Cow<'_, str>>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let Some(text) = text else { return Ok(()) };
    emit(&base.event(EventKind::Text(Text {
        role,
        text,
        message_id: None,
        command: None,
        continues: false,
    })))
}

fn thinking(base: &Base, text: Option<Cow<'_, str>>, emit: &mut Emit<'_>) -> io::Result<()> {
    let Some(text) = text else { return Ok(()) };
    emit(&base.event(EventKind::Thinking(Thinking {
        redacted: text.trim().is_empty(),
        text,
        message_id: None,
    })))
}

/// A prompt: `UserMessage.content` (0.169) or `user_message.message` with
/// its `images` (older), images as `[image]`.
fn user_text<'v>(v: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let text = cow_at(v, "message").or_else(|| parts(v, "content", a));
    let images = arr_at(v, "images").len() + arr_at(v, "local_images").len();
    if images == 0 {
        return text;
    }
    let mut t = a.text();
    for _ in 0..images {
        t.push_str("[image] ");
    }
    t.push_str(text.as_deref().unwrap_or(""));
    Some(Cow::Borrowed(t.done()))
}

/// The text of content parts (`{type: text|Text|input_text|output_text,
/// text}`), one per line; images as `[image]`, the text after one on its
/// line. `None` when there is none.
fn parts<'v>(v: Value<'v>, key: &str, a: &'v Arena) -> Option<Cow<'v, str>> {
    let items = arr_at(v, key);
    if items.len() == 1
        && let Some(t) = items.first().and_then(|i| str_at(i, "text"))
    {
        return Some(Cow::Borrowed(t));
    }
    let mut out = a.text();
    let mut after_image = false;
    for item in items {
        let image = matches!(
            str_at(item, "type").unwrap_or(""),
            "local_image" | "input_image" | "image"
        );
        let piece = match str_at(item, "text") {
            _ if image => "[image]",
            Some(t) => t,
            None => continue,
        };
        if !out.is_empty() {
            // `[image] what is in it?` on one line.
            out.push(if after_image { ' ' } else { '\n' });
        }
        out.push_str(piece);
        after_image = image;
    }
    (!out.is_empty()).then(|| Cow::Borrowed(out.done()))
}

/// Strings of an array, separated by a blank line; `None` when there are
/// none.
fn strings<'v>(v: Option<Value<'v>>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let v = v?;
    match view(v) {
        J::Str(s) => Some(Cow::Borrowed(s)).filter(|s| !s.is_empty()),
        J::Arr(items) => {
            // `raw_content` items are strings or `{type, text}`.
            let texts = items
                .iter()
                .filter_map(|i| i.into_string().or_else(|| str_at(i, "text")));
            a.join(texts, "\n\n").map(Cow::Borrowed)
        }
        _ => None,
    }
    .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests;
