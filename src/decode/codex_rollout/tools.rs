//! A rollout's tool calls (`response_item`) and their results: the
//! `item_completed` item of the call when there is one, else its `*_output`
//! line (see the module above for which is taken when).

use std::borrow::Cow;
use std::io;

use super::{Ctx, Emit, State};
use crate::decode::args::{first_line_at, first_scalar, items, patch_at, patch_changes, todos_at};
use crate::decode::codex::{self, Base, answer, outcome, search_key, tool_kind, unknown};
use crate::event::{Content, EventKind, JsonText, ToolCall, ToolKind};
use crate::json::{Arena, J, Value, cow_at, get, str_at, view};

/// A `response_item` line: a call, an output, or what the `event_msg`
/// lines say already (messages, reasoning).
pub(super) fn response_item<'v>(
    p: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let ty = str_at(p, "type").unwrap_or("");
    match ty {
        "function_call" => function_call(p, ctx, base, state, emit),
        "custom_tool_call" | "local_shell_call" => {
            let cwd = Some(state.cwd.as_str()).filter(|c| !c.is_empty());
            let call = other_call(p, ty, ctx, cwd);
            emit(&base.event(EventKind::ToolCall(call)))
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
            output(p, ctx, base, state, emit)
        }
        "web_search_call" => web_search(p, ctx, base, emit),
        // Read from their `event_msg` lines (every version has them).
        "message" | "reasoning" => Ok(()),
        _ => unknown(base, ctx, text!(ctx.arena, "response_item/{ty}"), emit),
    }
}

/// The id a call and its output share.
fn call_id<'v>(p: Value<'v>, ctx: &Ctx<'v>) -> Cow<'v, str> {
    codex::call_id(p, &["call_id", "id"], ctx)
}

/// A `function_call`: its `arguments` are JSON text in a string, parsed
/// in the stream's own reused parser for the call's key argument.
fn function_call<'v>(
    p: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let raw = get(p, "arguments");
    let State { args, cwd, .. } = state;
    let cwd = Some(cwd.as_str()).filter(|c| !c.is_empty());
    if let Some(text) = raw.and_then(Value::into_string) {
        args.parse(text.as_bytes(), |parsed| {
            let call = function_call_of(p, parsed.ok(), raw, cwd, ctx);
            emit(&base.event(EventKind::ToolCall(call)))
        })
    } else {
        let call = function_call_of(p, raw, raw, cwd, ctx);
        emit(&base.event(EventKind::ToolCall(call)))
    }
}

/// The tool call of a `function_call` whose arguments are `args`, named as
/// the `exec --json` stream names it.
fn function_call_of<'x>(
    p: Value<'x>,
    args: Option<Value<'x>>,
    raw: Option<Value<'x>>,
    cwd: Option<&str>,
    ctx: &Ctx<'x>,
) -> ToolCall<'x> {
    let a = ctx.arena;
    let name = str_at(p, "name").unwrap_or("");
    let args = args.filter(|v| v.is_object());
    let mut call = ToolCall {
        id: call_id(p, ctx),
        name: Cow::Borrowed(name),
        input: match args {
            Some(v) => JsonText::value(v),
            None => JsonText::fields(&[("arguments", raw)]),
        },
        ..ToolCall::default()
    };
    let namespace = str_at(p, "namespace").filter(|n| n.starts_with("mcp__"));
    let Some(args) = args else {
        if let Some(ns) = namespace {
            call.name = text!(a, "{ns}__{name}");
        }
        call.kind = tool_kind(&call.name);
        return call;
    };
    match (namespace, name) {
        (Some(ns), _) => {
            call.name = text!(a, "{ns}__{name}");
            call.key_arg = first_scalar(args, true, a);
        }
        (None, "exec_command") => {
            call.name = Cow::Borrowed("shell");
            call.key_arg = cow_at(args, "cmd");
        }
        (None, "shell" | "container.exec" | "local_shell") => {
            call.name = Cow::Borrowed("shell");
            call.key_arg = argv_key(get(args, "command"), a);
        }
        (None, "update_plan") => {
            call.todos = todos_at(args, "plan", &["step"], a);
            call.key_arg = Some(items(call.todos.len(), a));
        }
        (None, "view_image") => call.key_arg = cow_at(args, "path"),
        (None, "apply_patch") => {
            call.key_arg = str_at(args, "input").and_then(|t| patch_changes(t, cwd, a));
            call.changes = patch_at(args, "input", a);
        }
        _ => call.key_arg = first_scalar(args, true, a),
    }
    call.kind = tool_kind(&call.name);
    call
}

/// A `custom_tool_call` (`apply_patch` with the raw patch as `input`: its
/// changes are that patch, as Amp's and `OpenCode`'s) or a
/// `local_shell_call` (older files: the command as an argv).
fn other_call<'v>(p: Value<'v>, ty: &str, ctx: &Ctx<'v>, cwd: Option<&str>) -> ToolCall<'v> {
    let a = ctx.arena;
    let mut call = ToolCall {
        id: call_id(p, ctx),
        name: cow_at(p, "name").unwrap_or(Cow::Borrowed("custom_tool")),
        input: JsonText::fields(&[("input", get(p, "input"))]),
        ..ToolCall::default()
    };
    if ty == "local_shell_call" {
        let action = get(p, "action");
        call.name = Cow::Borrowed("shell");
        call.key_arg = argv_key(action.and_then(|x| get(x, "command")), a);
        call.input = JsonText::fields(&[("action", action)]);
    } else if call.name == "apply_patch" {
        call.key_arg = str_at(p, "input").and_then(|t| patch_changes(t, cwd, a));
        call.changes = patch_at(p, "input", a);
    } else {
        call.key_arg = first_line_at(p, "input").filter(|l| !l.trim().is_empty());
    }
    call.kind = tool_kind(&call.name);
    call
}

/// A command given as an argv: the script of `bash -lc '…'`, else the
/// words joined.
fn argv_key<'v>(argv: Option<Value<'v>>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let argv = argv?;
    if let Some(s) = argv.into_string() {
        return Some(Cow::Borrowed(s));
    }
    let list = argv.as_array()?;
    let mut words = list.iter().map(Value::into_string);
    if list.len() == 3
        && let (Some(Some(sh)), Some(Some(flag)), Some(Some(script))) =
            (words.next(), words.next(), words.next())
        && matches!(flag, "-lc" | "-c" | "-cl")
        && matches!(
            sh.rsplit('/').next().unwrap_or(sh),
            "bash" | "zsh" | "sh" | "dash" | "ksh"
        )
    {
        return Some(Cow::Borrowed(script));
    }
    a.join(list.iter().filter_map(Value::into_string), " ")
        .map(Cow::Borrowed)
}

/// A `web_search_call`: the call and its result at once (it has no output
/// line).
fn web_search<'v>(p: Value<'v>, ctx: &Ctx<'v>, base: &Base, emit: &mut Emit<'_>) -> io::Result<()> {
    let a = ctx.arena;
    let id = call_id(p, ctx);
    emit(&base.event(EventKind::ToolCall(ToolCall {
        id: id.clone(),
        name: Cow::Borrowed("web_search"),
        kind: ToolKind::WebSearch,
        key_arg: search_key(p, a),
        input: JsonText::fields(&[("action", get(p, "action"))]),
        ..ToolCall::default()
    })))?;
    let status = str_at(p, "status").unwrap_or("");
    let (is_error, content) = outcome(p, "web_search", status, a);
    answer(base, id, is_error, false, content, emit)
}

/// A completed tool item (0.169): the call's result as the `exec --json`
/// stream reports it. Its output line, next, is then skipped.
pub(super) fn item_result<'v>(
    item: Value<'v>,
    ty: &str,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let a = ctx.arena;
    let id = call_id(item, ctx);
    state.answered.first_sighting(&id);
    let status = str_at(item, "status").unwrap_or("");
    let (is_error, content) = match ty {
        "CommandExecution" => outcome(item, "command_execution", status, a),
        "McpToolCall" => {
            let (failed, content) = outcome(item, "mcp_tool_call", status, a);
            let is_error = get(item, "result").and_then(|r| get(r, "isError"));
            (
                failed || is_error.and_then(Value::as_bool) == Some(true),
                content,
            )
        }
        "FileChange" => file_change(item, status, a),
        _ => (false, cow_at(item, "path").unwrap_or_default().into()),
    };
    answer(base, id, is_error, status == "declined", content, emit)
}

/// A patch's outcome: `patch failed` with its stderr, or its stdout.
fn file_change<'v>(item: Value<'v>, status: &str, a: &'v Arena) -> (bool, Content<'v>) {
    let field = |k| str_at(item, k).map(str::trim_end).filter(|s| !s.is_empty());
    if matches!(status, "" | "completed" | "in_progress") {
        return (false, field("stdout").unwrap_or("").into());
    }
    let text = match field("stderr") {
        Some(e) => text!(a, "patch {status}\n{e}"),
        None => text!(a, "patch {status}"),
    };
    (true, text.into())
}

/// A call's output line, unless its item gave the result.
fn output<'v>(
    p: Value<'v>,
    ctx: &Ctx<'v>,
    base: &Base,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let id = call_id(p, ctx);
    if state.answered.contains(&id) {
        return Ok(());
    }
    let a = ctx.arena;
    let out = get(p, "output");
    match out.map(view) {
        Some(J::Str(s)) if s.starts_with('{') => {
            // Older files: `{"output": …, "metadata": {"exit_code": N}}`.
            state.args.parse(s.as_bytes(), |parsed| {
                let (is_error, content) = match parsed.ok().filter(|v| v.is_object()) {
                    Some(v) => json_output(v, a),
                    None => framed(s, a),
                };
                answer(base, id, is_error, false, content, emit)
            })
        }
        Some(J::Str(s)) => {
            let (is_error, content) = framed(s, a);
            answer(base, id, is_error, false, content, emit)
        }
        Some(J::Arr(_)) => {
            let text = out.and_then(|o| parts_output(o, a)).unwrap_or_default();
            answer(base, id, false, false, text.into(), emit)
        }
        _ => answer(base, id, false, false, Content::default(), emit),
    }
}

/// An output in its older JSON form: `output` after the exit code when it
/// is not 0.
fn json_output<'x>(v: Value<'x>, a: &'x Arena) -> (bool, Content<'x>) {
    let body = str_at(v, "output").unwrap_or("");
    let code = get(v, "metadata")
        .and_then(|m| get(m, "exit_code"))
        .and_then(Value::as_i64);
    match code {
        Some(c) if c != 0 => (true, exit_text(c, body, a).into()),
        _ => (false, body.into()),
    }
}

/// An output as the model saw it: a header (`Process exited with code N`
/// or `Exit code: N`, wall time…) then `Output:` and the output. A patch
/// that failed verification has no header, only its error.
pub(super) fn framed<'v>(s: &'v str, a: &'v Arena) -> (bool, Content<'v>) {
    if s.starts_with("apply_patch verification failed") {
        return (true, s.into());
    }
    let at = if s.starts_with("Output:") {
        Some(0)
    } else {
        s.find("\nOutput:").map(|i| i + 1)
    };
    let Some(at) = at else {
        return (false, s.into());
    };
    let (head, rest) = s.split_at(at);
    let body = rest["Output:".len()..]
        .strip_prefix('\n')
        .unwrap_or(&rest["Output:".len()..]);
    let code = head.lines().find_map(|l| {
        l.strip_prefix("Process exited with code ")
            .or_else(|| l.strip_prefix("Exit code: "))
            .and_then(|c| c.trim().parse::<i64>().ok())
    });
    match code {
        Some(c) if c != 0 => (true, exit_text(c, body, a).into()),
        _ => (false, body.into()),
    }
}

/// `exit code N`, then the output if any (as the stream's failed commands).
fn exit_text<'v>(code: i64, body: &str, a: &'v Arena) -> Cow<'v, str> {
    if body.is_empty() {
        text!(a, "exit code {code}")
    } else {
        text!(a, "exit code {code}\n{body}")
    }
}

/// An output given as content items (MCP tools, `view_image`), without the
/// `Wall time: …\nOutput:` header item; images as `[image]`.
fn parts_output<'v>(out: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let list = out.as_array()?;
    let header = |item: Value<'_>| {
        str_at(item, "text").is_some_and(|t| t.starts_with("Wall time:") && t.ends_with("Output:"))
    };
    let skip = usize::from(list.len() > 1 && list.first().is_some_and(header));
    let mut t = a.text();
    for item in list.iter().skip(skip) {
        if !t.is_empty() {
            t.push('\n');
        }
        match str_at(item, "type") {
            Some("input_image" | "image") => t.push_str("[image]"),
            _ => t.push_str(
                item.into_string()
                    .or_else(|| str_at(item, "text"))
                    .unwrap_or(""),
            ),
        }
    }
    Some(Cow::Borrowed(t.done()))
}
