//! Amp `amp --execute "…" --stream-json`.
//!
//! A subset of Claude Code's stream-json, so the `user` lines go to the
//! Claude decoder. What real captures (`tests/fixtures/amp/README.md`)
//! show Amp does its own way is decoded here:
//!
//! * `system`/`init` has no model and an `agent_mode`.
//! * `assistant` messages: one whole model message per line, without `id`
//!   or `model`; Amp's tools have their own names and inputs
//!   (`shell_command {command}`, `Read {path}`, `edit_file`, `create_file`,
//!   `apply_patch {patchText}`, `glob {filePattern}`…).
//! * Tool results are always a string, and a tool that returns data puts
//!   its JSON text there: a shell command's `{"output", "exitCode"}` (a
//!   non-zero exit is *not* `is_error`), a read's `{"absolutePath",
//!   "content"}`, an edit's `{"diff"}`, a search's list. [`structured`]
//!   reads them back into the text a person would read, and a failed
//!   command into a failed result that starts `exit code N`.
//! * `result`: a failure carries an `error` string; no usage, no cost. The
//!   published types also allow `permission_denials` (a list of strings)
//!   and `error_max_turns`, never seen in a real stream: both are read.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;

use super::claude::event;
use super::messages::{MessageUsage, Said};
use super::producer::{Ctx, Emit, Entry, Evidence, Format, Shape, Stream, has, start};
use crate::event::ToolKind;
use crate::event::{
    Content, Denial, Event, EventKind, JsonText, List, Producer, Role, SessionResult, SessionStart,
    Text, Tokens, ToolCall, ToolResult, Unknown, Usage,
};
use crate::json::{Arena, J, Parser, Value, arr_at, bool_at, cow_at, get, str_at, u64_at, view};

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    claude: super::claude::State,
    /// Messages whose usage was written.
    recent_usage: MessageUsage,
    /// Tool calls seen (id → name, key argument): `permission_denials`
    /// lists ids or names only.
    calls: HashMap<String, (String, Option<String>)>,
    /// Text of the failed tool results (id → content): the explanation of
    /// a denial listed in the result.
    failed: HashMap<String, String>,
    /// Parses the JSON text inside tool results.
    results: Parser,
}

/// The registry's line for Amp.
pub(crate) const ENTRY: Entry = Entry {
    producer: Producer::Amp,
    name: "amp",
    label: "Amp",
    invocation: "Amp `--stream-json`",
    stream: start::<State>,
    format: &Amp,
    unsearched: &["cwd", "parent_tool_use_id"],
    unread: &[],
    store: None,
};

/// Amp `--execute … --stream-json` (the registry's entry).
pub(crate) struct Amp;

impl Format for Amp {
    fn detect(&self, s: Shape<'_>) -> Option<Evidence> {
        // Amp's thread ids.
        let thread = str_at(s.v, "session_id").is_some_and(|id| id.starts_with("T-"));
        if s.is_init() {
            let amp_init = has(s.v, "cwd")
                && has(s.v, "tools")
                && has(s.v, "mcp_servers")
                && !has(s.v, "model")
                && !has(s.v, "uuid");
            // The thread id also when the init has grown a field the shape
            // above does not expect.
            return (amp_init || thread).then_some(Evidence::Init);
        }
        if matches!(s.ty, "assistant" | "user" | "result") && thread {
            return Some(Evidence::Session);
        }
        (s.ty == "result" && get(s.v, "error").is_some_and(|e| e.into_string().is_some()))
            .then_some(Evidence::Hint)
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
                let start = SessionStart {
                    agent_mode: cow_at(v, "agent_mode"),
                    ..super::claude::init(v, ctx.arena)
                };
                emit(&event(v, ctx, EventKind::SessionStart(start)))
            }
            (Some("assistant"), _) => assistant(v, ctx, state, emit),
            (Some("result"), _) => result(v, ctx, state, emit),
            (Some("user"), _) => user(v, ctx, state, emit),
            // Whatever else Claude-like.
            _ => state.claude.decode(v, ctx, emit),
        }
    }
}

/// A `user` line: the prompt, or tool results with their JSON text read.
fn user<'v>(v: Value<'v>, ctx: &Ctx<'v>, state: &mut State, emit: &mut Emit<'_>) -> io::Result<()> {
    let State {
        claude,
        failed,
        calls,
        results,
        ..
    } = state;
    claude.decode(v, ctx, &mut |ev: &Event<'_>| {
        let EventKind::ToolResult(r) = &ev.kind else {
            return emit(ev);
        };
        let name = calls.get(r.id.as_ref()).map(|(n, _)| n.as_str());
        let read = structured(r, name, results, ctx.arena);
        let r = read.as_ref().unwrap_or(r);
        if r.is_error {
            failed.insert(r.id.to_string(), r.content.to_string());
        }
        match read {
            None => emit(ev),
            Some(read) => emit(&Event {
                kind: EventKind::ToolResult(read),
                source: ev.source.clone(),
                session: ev.session.clone(),
                parent: ev.parent.clone(),
                ..*ev
            }),
        }
    })
}

/// The text a tool result's JSON stands for: a shell command's output (a
/// failure, starting `exit code N`, when the exit code is not 0), a file's
/// content or a directory's entries, an edit's or a patch's diff, the
/// items of a search, one per line. `None` when the content is no such
/// JSON, or is a sub-agent's answer (its own words, kept as they came).
fn structured<'v>(
    r: &ToolResult<'_>,
    tool: Option<&str>,
    parser: &mut Parser,
    a: &'v Arena,
) -> Option<ToolResult<'v>> {
    if r.is_error || tool.is_some_and(crate::event::is_subagent_tool) {
        return None;
    }
    let content = r.content.text();
    let trimmed = content.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let (text, exit) = parser.parse(trimmed.as_bytes(), |v| {
        let v = v.ok()?;
        match view(v) {
            J::Arr(items) => strings(items.iter(), a).map(|t| (t, None)),
            J::Obj => readable(v, a),
            _ => None,
        }
    })?;
    let failed = exit.is_some_and(|code| code != 0);
    let text = match exit {
        Some(code) if failed => text!(a, "exit code {code}\n{text}"),
        _ => Cow::Borrowed(text),
    };
    Some(ToolResult {
        id: Cow::Borrowed(a.copy(&r.id)),
        is_error: failed,
        denied: false,
        content: Content::from(text),
        answers: List::default(),
        changes: List::default(),
    })
}

/// The readable text of a tool's JSON object, and the exit code of a
/// command.
fn readable<'v>(v: Value<'_>, a: &'v Arena) -> Option<(&'v str, Option<i64>)> {
    let copy = |s: &str| Some(a.copy(s));
    // Shell: `{"output", "exitCode"}`.
    if let Some(code) = get(v, "exitCode").and_then(Value::as_i64) {
        return Some((copy(str_at(v, "output").unwrap_or(""))?, Some(code)));
    }
    let text = if let Some(entries) = get(v, "directoryEntries").and_then(Value::as_array) {
        // Read of a directory.
        strings(entries.iter(), a)?
    } else if let Some(diff) = str_at(v, "diff") {
        // edit_file: a Markdown diff block.
        copy(unfence(diff))?
    } else if let Some(files) = get(v, "files").and_then(Value::as_array) {
        // apply_patch: the diffs of its files, else its summary.
        let diffs = a.join(
            files
                .iter()
                .filter_map(|f| str_at(f, "diff"))
                .map(|d| a.copy(d)),
            "\n",
        );
        match diffs {
            Some(d) => d,
            None => copy(str_at(v, "summary")?)?,
        }
    } else if let Some(c) = str_at(v, "content") {
        // Read of a file.
        copy(c)?
    } else {
        return None;
    };
    Some((text, None))
}

/// A list of strings, one per line (a `glob`'s paths, a `Grep`'s hits,
/// `["No results found."]`); `None` when an item is not a string.
fn strings<'v, 'j>(items: impl Iterator<Item = Value<'j>>, a: &'v Arena) -> Option<&'v str> {
    let mut t = a.text();
    for (i, item) in items.enumerate() {
        if i > 0 {
            t.push('\n');
        }
        t.push_str(item.into_string()?);
    }
    Some(t.done())
}

/// A diff without the Markdown fence around it.
fn unfence(diff: &str) -> &str {
    let Some(body) = diff.strip_prefix("```") else {
        return diff;
    };
    // The info string (`diff`) ends the fence's line.
    let body = body.split_once('\n').map_or("", |(_, b)| b);
    let body = body.trim_end();
    body.strip_suffix("```")
        .unwrap_or(body)
        .trim_end_matches('\n')
}

/// One block of an assistant message; a tool call is remembered for its
/// result.
fn assistant_block<'v>(
    block: Value<'v>,
    message_id: Option<Cow<'v, str>>,
    ctx: &Ctx<'v>,
    state: &mut State,
) -> EventKind<'v> {
    // Thinking is not in Amp's published types; tolerated.
    if let Some(said) = super::messages::said(block, message_id.as_ref()) {
        return said;
    }
    match str_at(block, "type").unwrap_or("") {
        "tool_use" => {
            let call = tool_call(block, message_id, ctx.arena);
            state.calls.insert(
                call.id.to_string(),
                (
                    call.name.to_string(),
                    call.key_arg.as_deref().map(String::from),
                ),
            );
            EventKind::ToolCall(call)
        }
        t => EventKind::Unknown(Unknown {
            type_name: text!(ctx.arena, "assistant/{t}"),
            raw: ctx.raw(),
        }),
    }
}

fn assistant<'v>(
    v: Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let msg = get(v, "message");
    let message_id = msg.and_then(|m| cow_at(m, "id"));
    if let Some(u) = msg.and_then(|m| get(m, "usage"))
        && let Said::Usage(replaces) = match message_id.as_deref() {
            Some(id) => state.recent_usage.said(id, tokens(u)),
            None => Said::Usage(None),
        }
    {
        emit(&event(
            v,
            ctx,
            EventKind::Usage(Usage {
                message_id: message_id.clone(),
                request_id: None,
                model: msg.and_then(|m| cow_at(m, "model")),
                tokens: tokens(u),
                replaces,
                cache_write_1h: super::messages::cache_write_1h(u),
                sidechain: false,
                fast: false,
                preliminary_output: false,
                cost_usd: None,
            }),
        ))?;
    }
    match msg.and_then(|m| get(m, "content")).map(view) {
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
                let kind = assistant_block(block, message_id.clone(), ctx, state);
                emit(&event(v, ctx, kind))?;
            }
            Ok(())
        }
        // No usable content: kept as it came, so the line does not vanish.
        _ => super::producer::unknown_line(v, ctx, emit),
    }
}

/// Anthropic's usage: `input_tokens` is the uncached part.
fn tokens(u: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(u, "input_tokens"),
        output: u64_at(u, "output_tokens"),
        cache_read: u64_at(u, "cache_read_input_tokens"),
        cache_creation: u64_at(u, "cache_creation_input_tokens"),
        reasoning: None,
    }
}

fn tool_call<'v>(block: Value<'v>, message_id: Option<Cow<'v, str>>, a: &'v Arena) -> ToolCall<'v> {
    let name = str_at(block, "name").unwrap_or("");
    let input = get(block, "input");
    ToolCall {
        id: cow_at(block, "id").unwrap_or_default(),
        name: Cow::Borrowed(name),
        kind: tool_kind(name),
        key_arg: input.and_then(|i| key_arg(name, i, a)),
        input: input.map(JsonText::value).unwrap_or_default(),
        todos: match (name, input) {
            ("todo_write" | "TodoWrite", Some(i)) => {
                super::args::todos_at(i, "todos", &["content"], a)
            }
            _ => List::default(),
        },
        questions: List::default(),
        changes: match (name, input) {
            ("edit_file", Some(i)) => {
                super::args::replace_at(i, ["old_str", "new_str", "replace_all"], a)
            }
            ("create_file", Some(i)) => super::args::write_at(i, "content", a),
            ("apply_patch", Some(i)) => super::args::patch_at(i, "patchText", a),
            _ => List::default(),
        },
        changes_in_result: false,
        message_id,
    }
}

/// What an Amp tool does (Amp's own names; some are Claude Code's).
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "shell_command" | "async_shell_command" | "Bash" => ToolKind::Shell,
        "Read" => ToolKind::Read,
        "create_file" => ToolKind::Write,
        "edit_file" | "apply_patch" | "undo_edit" => ToolKind::Edit,
        "glob" | "Grep" | "list_directory" | "finder" | "codebase_search_agent" => ToolKind::Search,
        "read_web_page" => ToolKind::Fetch,
        "web_search" => ToolKind::WebSearch,
        "Task" | "oracle" | "librarian" => ToolKind::Agent,
        "todo_write" | "todo_read" | "TodoWrite" => ToolKind::Todo,
        "read_mcp_resource" => ToolKind::Mcp,
        n => super::args::mcp_or_other(n),
    }
}

/// The one argument that says what an Amp tool call does.
pub(crate) fn key_arg<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(input, k);
    match name {
        "shell_command" | "async_shell_command" | "Bash" => s("command").or_else(|| s("cmd")),
        "apply_patch" => str_at(input, "patchText").and_then(|t| super::args::patch_files(t, a)),
        "Read" | "edit_file" | "create_file" | "undo_edit" | "format_file" | "get_diagnostics"
        | "list_directory" => s("path").or_else(|| s("file_path")),
        "glob" => {
            let pattern = s("filePattern").or_else(|| s("pattern"))?;
            match str_at(input, "path") {
                Some(p) => Some(text!(a, "{pattern} in {p}")),
                None => Some(pattern),
            }
        }
        "Task" => s("description").or_else(|| super::args::first_line_at(input, "prompt")),
        "oracle" => s("task"),
        "finder" | "codebase_search_agent" | "librarian" | "web_search" | "find_thread" => {
            s("query")
        }
        "read_web_page" => s("url"),
        "todo_write" => super::messages::key_arg("TodoWrite", input, a),
        "skill" => s("name").or_else(|| s("skill")),
        "read_thread" => s("threadID").or_else(|| s("thread_id")),
        "read_mcp_resource" => s("uri"),
        // `Grep {pattern, path, glob}` and anything named like Claude's
        // tools; else (`shell_command_status`, `download_thread_file`, a new
        // tool) the first scalar argument.
        n => super::messages::key_arg(n, input, a)
            .or_else(|| super::args::first_scalar(input, true, a)),
    }
}

fn result<'v>(v: Value<'v>, ctx: &Ctx<'v>, state: &State, emit: &mut Emit<'_>) -> io::Result<()> {
    // Listed before the result, as for Claude. Amp's list holds strings:
    // a call id when it names a call seen, else a tool name.
    for d in arr_at(v, "permission_denials") {
        let denial = if let Some(s) = d.into_string() {
            match state.calls.get(s) {
                Some((name, key)) => Denial {
                    id: Some(Cow::Borrowed(s)),
                    tool: Some(Cow::Owned(name.clone())),
                    key_arg: key.clone().map(Cow::Owned),
                    message: state.failed.get(s).map(|m| Cow::Owned(m.clone())),
                },
                None => Denial {
                    id: None,
                    tool: Some(Cow::Borrowed(s)),
                    key_arg: None,
                    message: None,
                },
            }
        } else {
            // Claude's shape, should Amp adopt it.
            let name = str_at(d, "tool_name").unwrap_or("");
            Denial {
                id: cow_at(d, "tool_use_id"),
                tool: cow_at(d, "tool_name"),
                key_arg: get(d, "tool_input").and_then(|i| key_arg(name, i, ctx.arena)),
                message: None,
            }
        };
        emit(&event(v, ctx, EventKind::PermissionDenied(denial)))?;
    }
    let subtype = str_at(v, "subtype");
    let res = SessionResult {
        is_error: bool_at(v, "is_error").unwrap_or(false)
            || subtype.is_some_and(|s| s.starts_with("error")),
        subtype: subtype.map(Cow::Borrowed),
        text: cow_at(v, "result"),
        errors: cow_at(v, "error").into_iter().collect(),
        num_turns: u64_at(v, "num_turns"),
        duration_ms: u64_at(v, "duration_ms"),
        duration_api_ms: u64_at(v, "duration_api_ms"),
        cost_usd: None,
        tokens: get(v, "usage").map(tokens).unwrap_or_default(),
        model_usage: List::default(),
        stop_reason: None,
        terminal_reason: None,
        api_error_status: None,
        after_task: None,
    };
    emit(&event(v, ctx, EventKind::Result(Box::new(res))))
}
