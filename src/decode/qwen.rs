//! Qwen Code `qwen -p … --output-format stream-json [--include-partial-messages]`.
//!
//! Claude Code's envelope, so `user` lines, `stream_event` deltas and the
//! other `system` subtypes go to the Claude decoder. Qwen's own parts are
//! decoded here (see `tests/fixtures/qwen/README.md` for 0.15.10 and
//! `tests/fixtures/qwen-0.24.4/README.md` for what 0.24 changed):
//!
//! * `system`/`init` names its fields `qwen_code_version` and
//!   `permission_mode` (snake case).
//! * Tools have Qwen's names (`run_shell_command`, `read_file`, `edit`,
//!   `grep_search`, `todo_write`, `agent`…), so their key argument has its
//!   own rules.
//! * `usage.input_tokens` is the whole prompt, cached part included; the
//!   text or thinking message printed before a tool call carries all-zero
//!   usage that measures nothing.
//! * A failed API request is an assistant text `[API Error: …]`, turned
//!   into an `api_error` notice here, then a `result`: 0.15 says
//!   `is_error: false` (made an error here); 0.24 says
//!   `error_during_execution` with the text in `error.message`. Either way
//!   the result's status comes from the text (`[API Error: 500 …]`).
//! * 0.24 frames a shell command's result (`Command: …\nOutput: …\nExit
//!   Code: N…`): read in `qwen/shell.rs` into the exit code and the
//!   output. 0.15 gave the bare output and no sign of a failure.
//! * 0.24's `system`/`retry` is an `api_retry` warning, as Claude's is; its
//!   `goal_state` stream event (second line of every stream) a debug notice.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use super::args::{json_in, list, strings_at};
use super::claude::event;
use super::messages::content_text;
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, has, start};
use crate::event::ToolKind;
use crate::event::{
    Denial, Event, EventKind, Level, List, Notice, Producer, Question, Role, SessionResult,
    SessionStart, Text, Todo, Tokens, ToolCall, Unknown, Usage,
};
use crate::json::{Arena, J, Value, arr_at, bool_at, cow_at, f64_at, get, str_at, u64_at, view};

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    claude: super::claude::State,
}

/// What Qwen writes in place of an answer when the API request failed.
const API_ERROR_PREFIX: &str = "[API Error:";

/// The registry's line for Qwen Code.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Qwen,
    name: "qwen",
    label: "Qwen Code",
    invocation: "Qwen Code `--output-format stream-json`",
    stream: start::<State>,
    format: &Qwen,
    unsearched: &["cwd", "parent_tool_use_id", "uuid"],
    unread: &[],
    store: None,
};

/// Qwen Code `--output-format stream-json` (the registry's entry).
pub(crate) struct Qwen;

impl Format for Qwen {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // Claude's shape; its init names its version.
        (s.is_init() && (has(s.v, "qwen_code_version") || has(s.v, "permission_mode")))
            .then_some(Evidence::Init)
    }

    fn opens(&self, s: Shape<'_>) -> bool {
        s.is_init()
    }
}

impl Stream for State {
    fn decode<'v>(&mut self, v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
        let state = self;
        match (str_at(v, "type"), str_at(v, "subtype")) {
            (Some("system"), Some("init")) => {
                emit(&event(v, ctx, EventKind::SessionStart(init(v, ctx.arena))))
            }
            (Some("system"), Some("retry")) => {
                emit(&event(v, ctx, EventKind::Notice(retry(v, ctx))))
            }
            (Some("stream_event"), _) => match goal_state(v, ctx) {
                Some(n) => emit(&event(v, ctx, EventKind::Notice(n))),
                None => state.claude.decode(v, ctx, emit),
            },
            (Some("assistant"), _) => assistant(v, ctx, emit),
            (Some("user"), _) => user(&mut state.claude, v, ctx, emit),
            (Some("result"), _) => result(v, ctx, emit),
            // `tool_progress`, other `system` lines.
            _ => state.claude.decode(v, ctx, emit),
        }
    }
}

/// A `system`/`retry` line (0.24): a request failed mid-stream and is sent
/// again. The notice Claude's `api_retry` gives (subtype and level), so
/// that `--only warnings` and scripts treat the retries of both alike.
fn retry<'v>(v: Value<'v>, ctx: &Ctx<'v>) -> Notice<'v> {
    let data = get(v, "data");
    let mut t = ctx.arena.text();
    t.push_str("API retry");
    if let Some(r) = data
        .and_then(|d| str_at(d, "reason"))
        .filter(|r| !r.is_empty() && *r != "retry")
    {
        let _ = write!(t, ": {r}");
    }
    match data.and_then(|d| u64_at(d, "discardedToolCalls")) {
        Some(1) => t.push_str(" (1 tool call discarded)"),
        Some(n) if n > 1 => {
            let _ = write!(t, " ({n} tool calls discarded)");
        }
        _ => {}
    }
    Notice {
        subtype: Cow::Borrowed("api_retry"),
        level: Level::Warning,
        text: Cow::Borrowed(t.done()),
        raw: Some(ctx.raw()),
        estimate: false,
    }
}

/// A `stream_event` of type `goal_state` (0.24, second line of every
/// stream): `goal: <goal or none> · <activity>`, for `-v`. `None` for any
/// other `stream_event`.
fn goal_state<'v>(v: Value<'v>, ctx: &Ctx<'v>) -> Option<Notice<'v>> {
    let ev = get(v, "event").filter(|e| str_at(*e, "type") == Some("goal_state"))?;
    let state = get(ev, "goal_state");
    let goal = state.and_then(|s| get(s, "goal"));
    let mut t = ctx.arena.text();
    let _ = match goal.map(|g| (g, view(g))) {
        Some((_, J::Str(g))) if !g.is_empty() => write!(t, "goal: {g}"),
        Some((_, J::Str(_) | J::Null)) | None => write!(t, "goal: none"),
        Some((g, _)) => write!(t, "goal: {}", json_in(g, ctx.arena)),
    };
    if let Some(a) = state.and_then(|s| str_at(s, "activity")) {
        let _ = write!(t, " · {a}");
    }
    Some(Notice {
        subtype: Cow::Borrowed("goal_state"),
        level: Level::Debug,
        text: Cow::Borrowed(t.done()),
        raw: Some(ctx.raw()),
        estimate: false,
    })
}

/// A `user` line as Claude's, with each tool result's shell frame (0.24)
/// read (see `qwen/shell.rs`).
fn user<'v>(
    claude: &mut super::claude::State,
    v: Value<'v>,
    ctx: &Ctx<'v>,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let a = ctx.arena;
    claude.decode(v, ctx, &mut |ev: &Event<'_>| {
        let EventKind::ToolResult(r) = &ev.kind else {
            return emit(ev);
        };
        match shell::read(r, a) {
            Some(r) => emit(&Event {
                producer: ev.producer,
                line: ev.line,
                source: ev.source.clone(),
                session: ev.session.clone(),
                parent: ev.parent.clone(),
                time: ev.time,
                kind: EventKind::ToolResult(r),
            }),
            None => emit(ev),
        }
    })
}

fn init<'v>(v: Value<'v>, a: &'v Arena) -> SessionStart<'v> {
    SessionStart {
        model: cow_at(v, "model"),
        cwd: cow_at(v, "cwd"),
        version: cow_at(v, "qwen_code_version"),
        permission_mode: cow_at(v, "permission_mode").or_else(|| cow_at(v, "permissionMode")),
        agent_mode: None,
        api_key_source: cow_at(v, "apiKeySource"),
        tools: strings_at(v, "tools", a),
        mcp_servers: super::claude::mcp_servers(v, a),
        agents: strings_at(v, "agents", a),
        skills: strings_at(v, "skills", a),
        slash_commands: strings_at(v, "slash_commands", a),
    }
}

/// One block of an assistant message.
fn assistant_block<'v>(
    block: Value<'v>,
    message_id: Option<Cow<'v, str>>,
    ctx: &Ctx<'v>,
) -> EventKind<'v> {
    if let Some(said) = super::messages::said(block, message_id.as_ref()) {
        return said;
    }
    match str_at(block, "type").unwrap_or("") {
        "tool_use" => EventKind::ToolCall(tool_call(block, message_id, ctx.arena)),
        t => EventKind::Unknown(Unknown {
            type_name: text!(ctx.arena, "assistant/{t}"),
            raw: ctx.raw(),
        }),
    }
}

fn assistant<'v>(v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let msg = get(v, "message");
    let message_id = msg.and_then(|m| cow_at(m, "id"));
    let content = msg.and_then(|m| get(m, "content"));

    if let Some(text) = content.and_then(|c| api_error_text(c, ctx.arena)) {
        return emit(&event(
            v,
            ctx,
            EventKind::Notice(Notice {
                subtype: Cow::Borrowed("api_error"),
                level: Level::Error,
                text,
                raw: Some(ctx.raw()),
                estimate: false,
            }),
        ));
    }

    if let Some(u) = msg.and_then(|m| get(m, "usage"))
        && !is_placeholder_usage(u)
    {
        let usage = Usage {
            message_id: message_id.clone(),
            model: msg.and_then(|m| cow_at(m, "model")),
            tokens: tokens(u),
            ..Usage::default()
        };
        emit(&event(v, ctx, EventKind::Usage(usage)))?;
    }

    match content.map(view) {
        Some(J::Str(s)) => emit(&event(
            v,
            ctx,
            EventKind::Text(Text {
                role: Role::Assistant,
                text: Cow::Borrowed(s),
                message_id,
                command: None,
                continues: false,
            }),
        )),
        Some(J::Arr(blocks)) => {
            for block in blocks {
                let kind = assistant_block(block, message_id.clone(), ctx);
                emit(&event(v, ctx, kind))?;
            }
            Ok(())
        }
        // No usable content: kept as it came, so the line does not vanish.
        _ => super::producer::unknown_line(v, ctx, emit),
    }
}

/// The text of a message that is only Qwen's report of a failed API request.
fn api_error_text<'v>(content: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let all_text = match view(content) {
        J::Str(_) => true,
        J::Arr(blocks) => {
            !blocks.is_empty() && blocks.iter().all(|b| str_at(b, "type") == Some("text"))
        }
        _ => false,
    };
    if !all_text {
        return None;
    }
    let text = content_text(content, a);
    text.trim_start()
        .starts_with(API_ERROR_PREFIX)
        .then_some(text)
}

/// `[API Error: 500 …]` → 500.
fn api_error_status(text: &str) -> Option<u64> {
    let rest = text
        .trim_start()
        .strip_prefix(API_ERROR_PREFIX)?
        .trim_start();
    let digits: &str = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    (digits.len() == 3).then(|| digits.parse().ok()).flatten()
}

/// The all-zero usage on the text/thinking message that precedes a tool
/// call in the same response: the real usage is on the tool call's message.
fn is_placeholder_usage(u: Value<'_>) -> bool {
    ["input_tokens", "output_tokens", "cache_read_input_tokens"]
        .iter()
        .all(|k| u64_at(u, k).is_none_or(|n| n == 0))
}

/// Qwen's `input_tokens` counts the whole prompt, cached part included;
/// the model's `input` is the uncached part.
fn tokens(u: Value<'_>) -> Tokens {
    let cache_read = u64_at(u, "cache_read_input_tokens");
    Tokens {
        input: u64_at(u, "input_tokens").map(|i| i.saturating_sub(cache_read.unwrap_or(0))),
        output: u64_at(u, "output_tokens"),
        cache_read,
        cache_creation: u64_at(u, "cache_creation_input_tokens"),
        reasoning: None,
    }
}

fn tool_call<'v>(block: Value<'v>, message_id: Option<Cow<'v, str>>, a: &'v Arena) -> ToolCall<'v> {
    let name = str_at(block, "name").unwrap_or("");
    let id = cow_at(block, "id").unwrap_or_default();
    call(id, name, get(block, "input"), message_id, a)
}

/// A call of the Qwen tool `name` with arguments `input` (the stream's
/// `tool_use.input`, the saved session's `functionCall.args`).
pub(super) fn call<'v>(
    id: Cow<'v, str>,
    name: &'v str,
    input: Option<Value<'v>>,
    message_id: Option<Cow<'v, str>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    ToolCall {
        id,
        name: Cow::Borrowed(name),
        kind: tool_kind(name),
        key_arg: input.and_then(|i| key_arg(name, i, a)),
        input: input.map(crate::event::JsonText::value).unwrap_or_default(),
        todos: match (name, input) {
            ("todo_write", Some(i)) => todos(i, a),
            _ => List::default(),
        },
        questions: match (name, input) {
            ("ask_user_question", Some(i)) => questions(i, a),
            _ => List::default(),
        },
        changes: match (name, input) {
            ("edit" | "replace", Some(i)) => {
                super::args::replace_at(i, ["old_string", "new_string", "replace_all"], a)
            }
            ("write_file", Some(i)) => super::args::write_at(i, "content", a),
            _ => List::default(),
        },
        changes_in_result: false,
        message_id,
    }
}

/// What a Qwen Code tool does (Gemini CLI's names, Qwen's own additions).
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "run_shell_command" => ToolKind::Shell,
        "read_file" | "read_many_files" => ToolKind::Read,
        "write_file" => ToolKind::Write,
        "edit" | "replace" => ToolKind::Edit,
        "glob" | "grep_search" | "search_file_content" | "list_directory" => ToolKind::Search,
        "web_fetch" => ToolKind::Fetch,
        "web_search" => ToolKind::WebSearch,
        "agent" | "task" => ToolKind::Agent,
        "todo_write" | "todowrite" => ToolKind::Todo,
        n => super::args::mcp_or_other(n),
    }
}

fn todos<'v>(input: Value<'v>, a: &'v Arena) -> List<'v, Todo<'v>> {
    super::args::todos_at(input, "todos", &["content", "subject"], a)
}

fn questions<'v>(input: Value<'v>, a: &'v Arena) -> List<'v, Question<'v>> {
    super::args::questions_at(input, "questions", &["question"], a)
}

/// The Claude Code tool whose input has the same shape as this Qwen tool.
fn claude_equivalent(name: &str) -> Option<&'static str> {
    Some(match name {
        "read_file" => "Read",
        "write_file" => "Write",
        "edit" | "replace" => "Edit",
        "run_shell_command" => "Bash",
        "glob" => "Glob",
        "grep_search" | "search_file_content" => "Grep",
        "list_directory" => "LS",
        "web_fetch" => "WebFetch",
        "web_search" => "WebSearch",
        "tool_search" => "ToolSearch",
        "todo_write" => "TodoWrite",
        "agent" | "task" => "Agent",
        "skill" => "Skill",
        "exit_plan_mode" => "ExitPlanMode",
        "ask_user_question" => "AskUserQuestion",
        "task_create" => "TaskCreate",
        "task_update" => "TaskUpdate",
        "task_get" => "TaskGet",
        "task_stop" => "TaskStop",
        "task_output" => "TaskOutput",
        "send_message" => "SendMessage",
        "cron_create" => "CronCreate",
        "monitor" => "Monitor",
        "notebook_edit" => "NotebookEdit",
        _ => return None,
    })
}

/// The one argument that says what a Qwen tool call does.
pub(crate) fn key_arg<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(input, k);
    match name {
        // Before 0.1 the file tools took `absolute_path`.
        "read_file" | "write_file" | "edit" | "replace" | "zoom_image" => s("file_path")
            .or_else(|| s("absolute_path"))
            .or_else(|| s("path")),
        "read_many_files" => a
            .join(super::args::names_at(input, "paths"), ", ")
            .map(Cow::Borrowed),
        "save_memory" => s("fact"),
        "cron_delete" => s("id"),
        "lsp" => match (str_at(input, "operation"), str_at(input, "filePath")) {
            (Some(op), Some(p)) => Some(text!(a, "{op} {p}")),
            (Some(op), None) => Some(Cow::Borrowed(op)),
            (None, p) => p.map(Cow::Borrowed),
        },
        // MCP tools: `mcp__server__tool`; the first scalar argument.
        n if n.starts_with("mcp__") => super::messages::key_arg(n, input, a),
        n => super::messages::key_arg(claude_equivalent(n)?, input, a),
    }
}

fn result<'v>(v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    for d in arr_at(v, "permission_denials") {
        let name = str_at(d, "tool_name").unwrap_or("");
        emit(&event(
            v,
            ctx,
            EventKind::PermissionDenied(Denial {
                id: cow_at(d, "tool_use_id"),
                tool: cow_at(d, "tool_name"),
                key_arg: get(d, "tool_input").and_then(|i| key_arg(name, i, ctx.arena)),
                message: None,
            }),
        ))?;
    }
    let subtype = str_at(v, "subtype");
    let result = get(v, "result");
    let text = match result.map(view) {
        Some(J::Str(s)) => Some(Cow::Borrowed(s)),
        Some(J::Null) | None => None,
        Some(_) => result.map(|r| json_in(r, ctx.arena)),
    };
    // 0.24 ends a failed session with `error: {message}` and no `result`.
    let error = get(v, "error").and_then(|e| match e.into_string() {
        Some(s) => Some(Cow::Borrowed(s)),
        None => cow_at(e, "message"),
    });
    let reason = text.as_deref().or(error.as_deref());
    let api_error = reason.is_some_and(|t| t.trim_start().starts_with(API_ERROR_PREFIX));
    let api_error_status = reason.and_then(api_error_status);
    let listed = super::args::names_at(v, "errors").map(Cow::Borrowed);
    let errors = list(ctx.arena, listed.chain(error));
    let res = SessionResult {
        is_error: bool_at(v, "is_error").unwrap_or(false)
            || subtype.is_some_and(|s| s.starts_with("error"))
            || api_error,
        subtype: subtype.map(Cow::Borrowed),
        api_error_status,
        after_task: None,
        text,
        errors,
        num_turns: u64_at(v, "num_turns"),
        duration_ms: u64_at(v, "duration_ms"),
        duration_api_ms: u64_at(v, "duration_api_ms"),
        cost_usd: f64_at(v, "total_cost_usd"),
        tokens: get(v, "usage").map(tokens).unwrap_or_default(),
        model_usage: super::claude::model_usage(v, ctx.arena),
        stop_reason: cow_at(v, "stop_reason"),
        terminal_reason: cow_at(v, "terminal_reason"),
    };
    emit(&event(v, ctx, EventKind::Result(Box::new(res))))
}

pub(super) mod shell;

#[cfg(test)]
mod tests;
