//! The Anthropic Messages API as the agents print it: content blocks
//! (`text`, `tool_use`, `tool_result`, `image`…) and their text, a
//! message's usage counted once with its final counts, and the tools of
//! Claude Code that its `tool_use` blocks call by name (their kind, their
//! key argument, the files they change). Claude Code's stream and
//! transcripts, and Qwen, Amp, Cursor, Codex and Pi where they print the
//! same blocks, read them here.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::args::{content_of, json_in};
use super::seen::Recent;
use crate::event::{
    Content, Edit, EventKind, FileChange, JsonText, List, Role, Text, Thinking, Tokens, ToolCall,
    ToolKind,
};
use crate::json::{Arena, Arr, J, Value, arr_at, cow_at, get, str_at, u64_at, view};

/// How many recent message ids to remember. Lines of one message are
/// consecutive in the main agent, but parallel sub-agents interleave theirs.
const RECENT_MESSAGES: usize = 32;

/// The usage said of the API messages seen recently: Claude Code writes a
/// message's usage on each of its lines (Amp too), its output count
/// growing to the final one on the last line, and each message must count
/// once, with its final counts.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct MessageUsage(Recent<RECENT_MESSAGES, Tokens>);

/// What a line says of its message's usage.
pub(crate) enum Said {
    /// Nothing new: its counts were said already and these are not more.
    Nothing,
    /// A usage, replacing the counts said before (`Some`) or not (`None`:
    /// the message's first line).
    Usage(Option<Tokens>),
}

impl MessageUsage {
    /// What the usage `t` of message `id` on this line says. A message's
    /// final counts are its largest, as ccusage keeps them.
    pub(crate) fn said(&mut self, id: &str, t: Tokens) -> Said {
        let (said, first) = self.0.sight(id);
        if first {
            *said = t;
            return Said::Usage(None);
        }
        if t.total() <= said.total() {
            return Said::Nothing;
        }
        Said::Usage(Some(std::mem::replace(said, t)))
    }
}

/// Of a `usage`'s cache writes, those kept an hour
/// (`cache_creation.ephemeral_1h_input_tokens`).
pub(crate) fn cache_write_1h(u: Value<'_>) -> Option<u64> {
    get(u, "cache_creation").and_then(|c| u64_at(c, "ephemeral_1h_input_tokens"))
}

pub(crate) fn tokens(u: Value<'_>) -> Tokens {
    Tokens {
        input: u64_at(u, "input_tokens"),
        output: u64_at(u, "output_tokens"),
        cache_read: u64_at(u, "cache_read_input_tokens"),
        cache_creation: u64_at(u, "cache_creation_input_tokens"),
        reasoning: None,
    }
}

pub(crate) fn tool_call<'v>(
    block: Value<'v>,
    message_id: Option<Cow<'v, str>>,
    a: &'v Arena,
) -> ToolCall<'v> {
    let name = str_at(block, "name").unwrap_or("");
    let input = get(block, "input");
    let kind = if str_at(block, "type") == Some("mcp_tool_use") {
        ToolKind::Mcp
    } else {
        tool_kind(name)
    };
    let mut call = ToolCall {
        id: cow_at(block, "id").unwrap_or_default(),
        name: Cow::Borrowed(name),
        kind,
        key_arg: input.and_then(|i| key_arg(name, i, a)),
        input: input.map(JsonText::value).unwrap_or_default(),
        todos: List::default(),
        questions: List::default(),
        changes: List::default(),
        changes_in_result: false,
        message_id,
    };
    if let Some(input) = input {
        match name {
            "TodoWrite" => {
                call.todos = super::args::todos_at(input, "todos", &["content", "subject"], a);
            }
            "AskUserQuestion" => {
                call.questions = super::args::questions_at(input, "questions", &["question"], a);
            }
            _ => call.changes = changes(name, input, a),
        }
    }
    // Their results report the changes made, numbered (`structuredPatch`).
    call.changes_in_result = matches!(name, "Edit" | "MultiEdit" | "Write");
    call
}

/// The changes of Claude Code's file tools: `Edit`, each edit of a
/// `MultiEdit`, `Write`'s content, `NotebookEdit`'s new cell source (the
/// cell's old source is not in the call).
pub(crate) fn changes<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> List<'v, FileChange<'v>> {
    const KEYS: [&str; 3] = ["old_string", "new_string", "replace_all"];
    match name {
        "Edit" => super::args::replace_at(input, KEYS, a),
        "MultiEdit" => super::args::list(
            a,
            arr_at(input, "edits").iter().filter_map(|e| {
                let edit = super::args::replace_of(e, KEYS)?;
                Some(FileChange { path: None, edit })
            }),
        ),
        "Write" => super::args::write_at(input, "content", a),
        "NotebookEdit" if str_at(input, "edit_mode") == Some("delete") => super::args::list(
            a,
            [FileChange {
                path: None,
                edit: Edit::Action(Cow::Borrowed("delete")),
            }],
        ),
        "NotebookEdit" => super::args::write_at(input, "new_source", a),
        _ => List::default(),
    }
}

/// What a Claude Code tool does (its tools, also those of older and newer
/// versions; the server tools `web_search` and `web_fetch`).
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Bash" => ToolKind::Shell,
        "Read" | "NotebookRead" => ToolKind::Read,
        "Write" => ToolKind::Write,
        "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::Edit,
        "Glob" | "Grep" | "LS" => ToolKind::Search,
        "WebFetch" | "web_fetch" => ToolKind::Fetch,
        "WebSearch" | "web_search" => ToolKind::WebSearch,
        "Task" | "Agent" | "SendMessage" => ToolKind::Agent,
        "TodoWrite" | "TodoRead" | "TaskCreate" | "TaskUpdate" | "TaskList" | "TaskGet" => {
            ToolKind::Todo
        }
        "ListMcpResourcesTool" | "ReadMcpResourceTool" => ToolKind::Mcp,
        n => super::args::mcp_or_other(n),
    }
}

/// The one argument that says what a call does.
pub(crate) fn key_arg<'v>(name: &str, input: Value<'v>, a: &'v Arena) -> Option<Cow<'v, str>> {
    let s = |k: &str| cow_at(input, k);
    match name {
        "Read" | "Write" | "Edit" | "MultiEdit" => s("file_path").or_else(|| s("path")),
        "NotebookEdit" | "NotebookRead" => s("notebook_path"),
        "Bash" => s("command"),
        "BashOutput" => s("bash_id"),
        "KillBash" | "KillShell" => s("shell_id"),
        "TaskOutput" | "TaskStop" | "TaskGet" => s("task_id")
            .or_else(|| s("shell_id"))
            .or_else(|| s("taskId")),
        "Glob" | "Grep" => {
            let pattern = str_at(input, "pattern")?;
            let (path, glob) = (str_at(input, "path"), str_at(input, "glob"));
            Some(super::args::pattern_in(pattern, path, glob, a))
        }
        "LS" => s("path"),
        "Task" | "Agent" => {
            let desc = str_at(input, "description").unwrap_or("");
            match str_at(input, "subagent_type") {
                Some(t) if !desc.is_empty() => Some(text!(a, "{t}: {desc}")),
                Some(t) => Some(Cow::Borrowed(t)),
                None => (!desc.is_empty()).then_some(Cow::Borrowed(desc)),
            }
        }
        "WebFetch" => s("url"),
        "WebSearch" | "web_search" | "ToolSearch" => s("query"),
        "web_fetch" => s("url"),
        "TodoWrite" => Some(super::args::items(arr_at(input, "todos").len(), a)),
        "AskUserQuestion" => arr_at(input, "questions")
            .first()
            .and_then(|q| cow_at(q, "question"))
            .or_else(|| s("question")),
        "Skill" => match (
            str_at(input, "skill").or_else(|| str_at(input, "command")),
            str_at(input, "args"),
        ) {
            (Some(k), Some(args)) if !args.is_empty() => Some(text!(a, "{k} {args}")),
            (Some(k), _) => Some(Cow::Borrowed(k)),
            _ => None,
        },
        "SlashCommand" => s("command"),
        "ExitPlanMode" | "exit_plan_mode" => super::args::first_line_at(input, "plan"),
        "ListMcpResourcesTool" => s("server"),
        "ReadMcpResourceTool" => s("uri"),
        "TaskCreate" => s("subject").or_else(|| s("description")),
        "TaskUpdate" => {
            let id = str_at(input, "taskId").or_else(|| str_at(input, "task_id"))?;
            match str_at(input, "status") {
                Some(st) => Some(text!(a, "#{id} → {st}")),
                None => Some(text!(a, "#{id}")),
            }
        }
        "SendMessage" => s("to").or_else(|| s("recipient")),
        "CronCreate" => s("schedule").or_else(|| s("cron")),
        "EnterWorktree" => s("name").or_else(|| s("path")),
        "Monitor" | "ScheduleWakeup" | "PushNotification" | "Workflow" => s("description")
            .or_else(|| s("name"))
            .or_else(|| s("message")),
        n if n.starts_with("mcp__") => super::args::first_scalar(input, false, a),
        _ => None,
    }
}

/// Text of a content value: a string, or blocks whose text parts are joined.
/// A tool result's content: [`content_text`], with a long string left in
/// its JSON form (see [`Content`]).
pub(crate) fn content<'v>(c: Value<'v>, a: &'v Arena) -> Content<'v> {
    // Not through `view`, which would unescape the string.
    let items = Arr::of(c);
    let one = if items.len() == 1 {
        items.first().and_then(|i| get(i, "text"))
    } else {
        Some(c)
    };
    match one.and_then(content_of) {
        Some(lazy) => lazy,
        None => content_text(c, a).into(),
    }
}

pub(crate) fn content_text<'v>(c: Value<'v>, a: &'v Arena) -> Cow<'v, str> {
    match view(c) {
        J::Str(s) => Cow::Borrowed(s),
        J::Arr(items) => {
            if items.len() == 1
                && let Some(t) = items.first().and_then(|one| str_at(one, "text"))
            {
                return Cow::Borrowed(t);
            }
            let mut out = a.text();
            for item in items {
                let piece: Cow<'_, str> = match (item.into_string(), str_at(item, "type")) {
                    (Some(s), _) => Cow::Borrowed(s),
                    (None, Some("text")) => Cow::Borrowed(str_at(item, "text").unwrap_or("")),
                    (None, Some("image")) => Cow::Borrowed("[image]"),
                    (None, Some("tool_reference")) => {
                        let _ = write!(
                            out,
                            "{}[tool {}]",
                            if out.is_empty() { "" } else { "\n" },
                            str_at(item, "tool_name").unwrap_or("?")
                        );
                        continue;
                    }
                    (None, Some(t)) => {
                        let _ = write!(out, "{}[{t}]", if out.is_empty() { "" } else { "\n" });
                        continue;
                    }
                    (None, None) => {
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        out.push_str(item.encode_in(a));
                        continue;
                    }
                };
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&piece);
            }
            Cow::Borrowed(out.done())
        }
        J::Null => Cow::Borrowed(""),
        J::Obj | J::Scalar(_) => json_in(c, a),
    }
}

/// A block of what the model said, as its event: `text`, `thinking`, or
/// `redacted_thinking` (no text); `None` for any other block.
pub(crate) fn said<'v>(
    block: Value<'v>,
    message_id: Option<&Cow<'v, str>>,
) -> Option<EventKind<'v>> {
    let message_id = message_id.cloned();
    Some(match str_at(block, "type")? {
        "text" => EventKind::Text(Text {
            role: Role::Assistant,
            text: cow_at(block, "text").unwrap_or_default(),
            message_id,
            command: None,
            continues: false,
        }),
        "thinking" => EventKind::Thinking(Thinking {
            text: cow_at(block, "thinking").unwrap_or_default(),
            redacted: false,
            message_id,
        }),
        "redacted_thinking" => EventKind::Thinking(Thinking {
            text: Cow::Borrowed(""),
            redacted: true,
            message_id,
        }),
        _ => return None,
    })
}
