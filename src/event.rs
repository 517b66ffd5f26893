//! The normalized event model: the one vocabulary every decoder produces and
//! every sink consumes.
//!
//! Events borrow their strings from the line they were decoded from
//! (`Cow::Borrowed`), so decoding a line allocates only where a producer's
//! value has to be rebuilt (an escaped string, a tool input re-serialized as
//! compact JSON). Nothing here does I/O or knows about colour.

use std::borrow::Cow;
use std::fmt;

use crate::time::Timestamp;

/// A list in an event: borrowed (from the decoder's per-line memory, so
/// that decoding allocates nothing) or owned (an event built by hand, or
/// made to outlive its line with [`Event::to_owned_event`]). Read it as a
/// slice; build one with `.into()` from a `Vec` or a slice.
///
/// Not a `Cow<[T]>`: that would make events invariant in their lifetime.
#[derive(Clone)]
pub enum List<'a, T> {
    /// Borrowed.
    Borrowed(&'a [T]),
    /// Owned.
    Owned(Vec<T>),
}

impl<T: Clone> List<'_, T> {
    /// An owned list of the items, each made to own its text by `f`.
    pub fn into_owned_with<U>(self, f: impl FnMut(T) -> U) -> List<'static, U> {
        match self {
            List::Borrowed(s) => s.iter().cloned().map(f).collect(),
            List::Owned(v) => v.into_iter().map(f).collect(),
        }
    }
}

impl<T> Default for List<'_, T> {
    fn default() -> Self {
        List::Borrowed(&[])
    }
}

impl<T> std::ops::Deref for List<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            List::Borrowed(s) => s,
            List::Owned(v) => v,
        }
    }
}

impl<T> From<Vec<T>> for List<'_, T> {
    fn from(v: Vec<T>) -> Self {
        List::Owned(v)
    }
}

impl<T> FromIterator<T> for List<'_, T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        List::Owned(items.into_iter().collect())
    }
}

impl<'a, T> From<&'a [T]> for List<'a, T> {
    fn from(s: &'a [T]) -> Self {
        List::Borrowed(s)
    }
}

impl<'a, T> IntoIterator for &'a List<'_, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for List<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: PartialEq> PartialEq for List<'_, T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: PartialEq<U>, U, const N: usize> PartialEq<[U; N]> for List<'_, T> {
    fn eq(&self, other: &[U; N]) -> bool {
        **self == other[..]
    }
}

impl<T: PartialEq<U>, U> PartialEq<Vec<U>> for List<'_, T> {
    fn eq(&self, other: &Vec<U>) -> bool {
        **self == other[..]
    }
}

/// Which agent CLI printed the stream.
///
/// Each producer is one module in `decode/` and one entry in its registry
/// (`decode/registry.rs`), which gives the names ([`Producer::name`],
/// [`Producer::label`]) and decides detection. The variants are declared in
/// the registry's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Producer {
    /// Qwen Code's saved sessions (`~/.qwen/projects/<project>/chats/<id>.jsonl`).
    QwenSession,
    /// Claude Code's saved session transcripts (`~/.claude/projects/…/<session>.jsonl`).
    ClaudeTranscript,
    /// GitHub Copilot CLI `copilot -p … --output-format json`.
    Copilot,
    /// Factory Droid `droid exec -o stream-json`.
    Droid,
    /// Pi coding agent `pi -p --mode json`.
    Pi,
    /// Cline CLI `cline --json`.
    Cline,
    /// Cline CLI's saved sessions (`~/.cline/data/sessions/<id>/<id>.messages.json`).
    ClineSession,
    /// `OpenAI` Codex `codex exec --json`.
    Codex,
    /// `OpenAI` Codex's saved sessions (`~/.codex/sessions/…/rollout-*.jsonl`).
    CodexRollout,
    /// Kilo CLI `kilo run --format json` (a fork of `OpenCode`).
    Kilo,
    /// `OpenCode` `opencode run --format json`.
    OpenCode,
    /// Gemini CLI's saved sessions (`~/.gemini/tmp/<project>/chats/session-*.jsonl`).
    GeminiSession,
    /// Google Gemini CLI `--output-format stream-json`.
    Gemini,
    /// Qwen Code `--output-format stream-json`.
    Qwen,
    /// Claude Code `--output-format stream-json --verbose`.
    Claude,
    /// Cursor Agent `--output-format stream-json`.
    Cursor,
    /// Amp `--execute … --stream-json`.
    Amp,
    /// Kimi CLI `kimi --print --output-format stream-json`.
    Kimi,
    /// Kimi CLI's saved sessions (`~/.kimi/sessions/<folder md5>/<id>/wire.jsonl`).
    KimiSession,
    /// Grok CLI (`@vibe-kit/grok-cli`) `grok -p`.
    Grok,
    /// Hermes Agent's saved sessions (`~/.hermes/state.db`) and its
    /// `hermes -z --usage-file` report.
    Hermes,
    /// `OpenClaw`'s saved sessions (`~/.openclaw/agents/<id>/agent/openclaw-agent.sqlite`,
    /// the older `agents/<id>/sessions/*.jsonl`) and its `agent exec --json` report.
    OpenClaw,
    /// Crush's saved sessions (`<project>/.crush/crush.db`).
    Crush,
}

impl Producer {
    /// Every producer, in the order they are documented.
    pub const ALL: [Producer; 23] = [
        Producer::Claude,
        Producer::ClaudeTranscript,
        Producer::Codex,
        Producer::CodexRollout,
        Producer::Gemini,
        Producer::GeminiSession,
        Producer::OpenCode,
        Producer::Qwen,
        Producer::QwenSession,
        Producer::Amp,
        Producer::Cursor,
        Producer::Copilot,
        Producer::Droid,
        Producer::Pi,
        Producer::Cline,
        Producer::ClineSession,
        Producer::Kilo,
        Producer::Kimi,
        Producer::KimiSession,
        Producer::Grok,
        Producer::Hermes,
        Producer::OpenClaw,
        Producer::Crush,
    ];
}

/// One normalized event. A single input line can yield several.
#[derive(Clone, Debug)]
pub struct Event<'a> {
    /// The producer of the stream this event came from.
    pub producer: Producer,
    /// 1-based line number in its source.
    pub line: u64,
    /// The input it was read from, when its line says so itself
    /// (streamview's own JSONL, read back, keeps its `source`); `None`
    /// means the input being read, which the session knows.
    pub source: Option<Cow<'a, str>>,
    /// Session id, when the producer gives one.
    pub session: Option<Cow<'a, str>>,
    /// Id of the tool call (Task/Agent) that started the sub-agent this event
    /// belongs to; `None` for the main agent.
    pub parent: Option<Cow<'a, str>>,
    /// When it happened, when its line says (a `timestamp` or
    /// `timestamp_ms` field: transcripts, rollouts, Gemini CLI, `OpenCode`,
    /// Cursor, Claude Code's newer lines); `None` otherwise.
    pub time: Option<Timestamp>,
    /// What happened.
    pub kind: EventKind<'a>,
}

impl Event<'_> {
    /// A copy that owns its strings, for holding an event back past the
    /// line it was decoded from.
    #[must_use]
    pub fn to_owned_event(&self) -> Event<'static> {
        self.clone().into_owned()
    }

    /// The same event, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Event<'static> {
        Event {
            producer: self.producer,
            line: self.line,
            source: own_opt(self.source),
            session: own_opt(self.session),
            parent: own_opt(self.parent),
            time: self.time,
            kind: self.kind.into_owned(),
        }
    }
}

/// `c`, owning its text (moved when it already does).
fn own(c: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(c.into_owned())
}

fn own_opt(c: Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
    c.map(own)
}

fn own_list(l: List<'_, Cow<'_, str>>) -> List<'static, Cow<'static, str>> {
    l.into_owned_with(own)
}

/// What an [`Event`] says.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum EventKind<'a> {
    /// A session (or a new turn of it) starts: model, tools, working directory.
    SessionStart(SessionStart<'a>),
    /// Text written by the assistant (or, with `role: user`, injected as the user).
    Text(Text<'a>),
    /// Reasoning text; `redacted` when the producer only says that there was some.
    Thinking(Thinking<'a>),
    /// The agent calls a tool.
    ToolCall(ToolCall<'a>),
    /// A tool call's outcome.
    ToolResult(ToolResult<'a>),
    /// A tool call was refused by the permission system.
    PermissionDenied(Denial<'a>),
    /// Token usage of one model response (once per API message, not per line).
    Usage(Usage<'a>),
    /// Anything else the producer reports: retries, compaction, hooks, tasks…
    Notice(Notice<'a>),
    /// The final (or per-turn) result of a session: outcome and totals.
    Result(Box<SessionResult<'a>>),
    /// A fragment of a streamed (partial) message.
    Delta(Delta<'a>),
    /// A line that is not JSON at all (an agent's plain stderr in the stream).
    PlainText(Cow<'a, str>),
    /// A JSON event whose type streamview does not know; kept verbatim.
    Unknown(Unknown<'a>),
}

impl EventKind<'_> {
    /// The kind's name in the JSONL schema.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::SessionStart(_) => "session_start",
            EventKind::Text(_) => "text",
            EventKind::Thinking(_) => "thinking",
            EventKind::ToolCall(_) => "tool_call",
            EventKind::ToolResult(_) => "tool_result",
            EventKind::PermissionDenied(_) => "permission_denied",
            EventKind::Usage(_) => "usage",
            EventKind::Notice(_) => "notice",
            EventKind::Result(_) => "result",
            EventKind::Delta(_) => "delta",
            EventKind::PlainText(_) => "plain_text",
            EventKind::Unknown(_) => "unknown",
        }
    }

    /// The same event kind, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> EventKind<'static> {
        match self {
            EventKind::SessionStart(s) => EventKind::SessionStart(s.into_owned()),
            EventKind::Text(t) => EventKind::Text(t.into_owned()),
            EventKind::Thinking(t) => EventKind::Thinking(t.into_owned()),
            EventKind::ToolCall(c) => EventKind::ToolCall(c.into_owned()),
            EventKind::ToolResult(r) => EventKind::ToolResult(r.into_owned()),
            EventKind::PermissionDenied(d) => EventKind::PermissionDenied(d.into_owned()),
            EventKind::Usage(u) => EventKind::Usage(u.into_owned()),
            EventKind::Notice(n) => EventKind::Notice(n.into_owned()),
            EventKind::Result(r) => EventKind::Result(Box::new(r.into_owned())),
            EventKind::Delta(d) => EventKind::Delta(d.into_owned()),
            EventKind::PlainText(t) => EventKind::PlainText(own(t)),
            EventKind::Unknown(u) => EventKind::Unknown(u.into_owned()),
        }
    }
}

/// An MCP server as listed at session start.
#[derive(Clone, Debug, PartialEq)]
pub struct McpServer<'a> {
    /// Server name.
    pub name: Cow<'a, str>,
    /// Connection status (`connected`, `failed`, `pending`, …).
    pub status: Cow<'a, str>,
}

impl McpServer<'_> {
    /// The same server, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> McpServer<'static> {
        McpServer {
            name: own(self.name),
            status: own(self.status),
        }
    }
}

/// Session header.
#[derive(Clone, Debug, Default)]
pub struct SessionStart<'a> {
    /// Model name.
    pub model: Option<Cow<'a, str>>,
    /// Working directory.
    pub cwd: Option<Cow<'a, str>>,
    /// Version of the producing CLI.
    pub version: Option<Cow<'a, str>>,
    /// Permission mode (`default`, `acceptEdits`, `bypassPermissions`, …).
    pub permission_mode: Option<Cow<'a, str>>,
    /// The agent's own mode, where the producer has one (Amp's
    /// `agent_mode`: `smart`, `rush`, `medium`…).
    pub agent_mode: Option<Cow<'a, str>>,
    /// Where the API key came from.
    pub api_key_source: Option<Cow<'a, str>>,
    /// Tool names offered to the model.
    pub tools: List<'a, Cow<'a, str>>,
    /// MCP servers and their status.
    pub mcp_servers: List<'a, McpServer<'a>>,
    /// Sub-agent types available.
    pub agents: List<'a, Cow<'a, str>>,
    /// Skills available.
    pub skills: List<'a, Cow<'a, str>>,
    /// Slash commands available.
    pub slash_commands: List<'a, Cow<'a, str>>,
}

impl SessionStart<'_> {
    /// The same header, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> SessionStart<'static> {
        SessionStart {
            model: own_opt(self.model),
            cwd: own_opt(self.cwd),
            version: own_opt(self.version),
            permission_mode: own_opt(self.permission_mode),
            agent_mode: own_opt(self.agent_mode),
            api_key_source: own_opt(self.api_key_source),
            tools: own_list(self.tools),
            mcp_servers: self.mcp_servers.into_owned_with(McpServer::into_owned),
            agents: own_list(self.agents),
            skills: own_list(self.skills),
            slash_commands: own_list(self.slash_commands),
        }
    }
}

/// Who a [`Text`] is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The model.
    Assistant,
    /// The user side of the conversation (prompts, injected content).
    User,
}

impl Role {
    /// Name in the JSONL schema.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Assistant => "assistant",
            Role::User => "user",
        }
    }
}

/// Text content.
#[derive(Clone, Debug)]
pub struct Text<'a> {
    /// Who wrote it.
    pub role: Role,
    /// The text, unmodified.
    pub text: Cow<'a, str>,
    /// Id of the API message this block belongs to.
    pub message_id: Option<Cow<'a, str>>,
    /// The slash command as the user typed it (`/model opus`), when the
    /// text is the producer's record of one.
    pub command: Option<Cow<'a, str>>,
    /// The answer goes on in the next text event: a producer that sends
    /// its answer only in pieces (Gemini CLI) has it joined, and a very long
    /// one cut in parts so that memory stays bounded.
    pub continues: bool,
}

impl Text<'_> {
    /// The same text, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Text<'static> {
        Text {
            role: self.role,
            text: own(self.text),
            message_id: own_opt(self.message_id),
            command: own_opt(self.command),
            continues: self.continues,
        }
    }
}

/// Reasoning content.
#[derive(Clone, Debug)]
pub struct Thinking<'a> {
    /// The thinking text (may be empty when redacted or summarized away).
    pub text: Cow<'a, str>,
    /// True when the producer withheld the content.
    pub redacted: bool,
    /// Id of the API message this block belongs to.
    pub message_id: Option<Cow<'a, str>>,
}

impl Thinking<'_> {
    /// The same thinking, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Thinking<'static> {
        Thinking {
            text: own(self.text),
            redacted: self.redacted,
            message_id: own_opt(self.message_id),
        }
    }
}

/// One item of a todo list (`TodoWrite` and friends).
#[derive(Clone, Debug, PartialEq)]
pub struct Todo<'a> {
    /// What to do.
    pub content: Cow<'a, str>,
    /// `pending`, `in_progress`, `completed` (or whatever the producer says).
    pub status: Cow<'a, str>,
}

impl Todo<'_> {
    /// The same item, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Todo<'static> {
        Todo {
            content: own(self.content),
            status: own(self.status),
        }
    }
}

/// A question put to the user (`AskUserQuestion`).
#[derive(Clone, Debug, PartialEq)]
pub struct Question<'a> {
    /// The question.
    pub question: Cow<'a, str>,
    /// The labels of the offered options.
    pub options: List<'a, Cow<'a, str>>,
}

impl Question<'_> {
    /// The same question, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Question<'static> {
        Question {
            question: own(self.question),
            options: own_list(self.options),
        }
    }
}

/// The user's answer to a question put by a tool (`AskUserQuestion`).
#[derive(Clone, Debug, PartialEq)]
pub struct Answer<'a> {
    /// The question.
    pub question: Cow<'a, str>,
    /// The answer picked or written (several, comma-separated).
    pub answer: Cow<'a, str>,
}

impl Answer<'_> {
    /// The same answer, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Answer<'static> {
        Answer {
            question: own(self.question),
            answer: own(self.answer),
        }
    }
}

/// A tool call. Its default is a call of no name, kind
/// [`ToolKind::Other`], with nothing but what a decoder sets.
#[derive(Clone, Debug, Default)]
pub struct ToolCall<'a> {
    /// Call id, used to pair the result.
    pub id: Cow<'a, str>,
    /// Tool name as the producer spells it (`Read`, `mcp__server__tool`, …).
    pub name: Cow<'a, str>,
    /// What the tool does, whatever the producer calls it (set by the
    /// decoder, which knows its producer's tool names).
    pub kind: ToolKind,
    /// The argument that says what the call does: a path, a command, a pattern…
    pub key_arg: Option<Cow<'a, str>>,
    /// The full input, as compact JSON text when asked ([`JsonText`]).
    pub input: JsonText<'a>,
    /// A todo list carried by the call, when it is one.
    pub todos: List<'a, Todo<'a>>,
    /// Questions carried by the call, when it asks the user.
    pub questions: List<'a, Question<'a>>,
    /// The files the call changes and how, as far as its producer says
    /// (an edit's old and new text, a file's new content, a patch).
    pub changes: List<'a, FileChange<'a>>,
    /// The call's result reports the changes as they were made
    /// ([`ToolResult::changes`]: Claude Code's `Edit`, `MultiEdit` and
    /// `Write`), with their places in the file: a view that shows one diff
    /// per call shows the result's, which supersedes these `changes`.
    pub changes_in_result: bool,
    /// Id of the API message this block belongs to.
    pub message_id: Option<Cow<'a, str>>,
}

impl ToolCall<'_> {
    /// The same call, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> ToolCall<'static> {
        ToolCall {
            id: own(self.id),
            name: own(self.name),
            kind: self.kind,
            key_arg: own_opt(self.key_arg),
            input: self.input.into_owned(),
            todos: self.todos.into_owned_with(Todo::into_owned),
            questions: self.questions.into_owned_with(Question::into_owned),
            changes: self.changes.into_owned_with(FileChange::into_owned),
            changes_in_result: self.changes_in_result,
            message_id: own_opt(self.message_id),
        }
    }
}

/// One file a tool call changes, and how: what a diff is made from. Each
/// decoder maps its producer's edit tools to it (Claude's `Edit`, Gemini's
/// `replace`, Codex's `apply_patch`…); `render::diff` turns it into lines
/// added and removed.
#[derive(Clone, Debug)]
pub struct FileChange<'a> {
    /// The file, when the producer names one per change (a patch of
    /// several files); `None` means the call's key argument.
    pub path: Option<Cow<'a, str>>,
    /// What is done to it.
    pub edit: Edit<'a>,
}

impl FileChange<'_> {
    /// The same change, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> FileChange<'static> {
        FileChange {
            path: own_opt(self.path),
            edit: self.edit.into_owned(),
        }
    }
}

/// How a [`FileChange`] changes its file.
#[derive(Clone, Debug)]
pub enum Edit<'a> {
    /// The text `old` replaced by `new` (a fragment of the file: where it
    /// sits, hence its line numbers, is not known); `all`: at each
    /// place it occurs.
    Replace {
        /// The text replaced.
        old: Content<'a>,
        /// The text put in its place.
        new: Content<'a>,
        /// Every occurrence is replaced, not only the one.
        all: bool,
    },
    /// The whole new content of a file (created or overwritten: the old
    /// content is not in the stream).
    Write(Content<'a>),
    /// A whole file before and after (Claude Code's `Write` over a file
    /// whose old content its result gives): a diff with line numbers.
    Rewrite {
        /// The file before.
        old: Content<'a>,
        /// The file after.
        new: Content<'a>,
    },
    /// A patch: a unified diff or the `apply_patch` format (`*** Update
    /// File:`, `@@`, lines marked ` `, `+`, `-`).
    Patch(Content<'a>),
    /// Only what was done, without the content (Codex's `file_change`
    /// says `add`, `update` or `delete` and the path).
    Action(Cow<'a, str>),
    /// Only the counts of lines added and removed (streamview's own JSONL
    /// read back keeps these, not the text).
    Counted {
        /// Lines added.
        added: u64,
        /// Lines removed.
        removed: u64,
    },
}

impl Edit<'_> {
    /// The same edit, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Edit<'static> {
        match self {
            Edit::Replace { old, new, all } => Edit::Replace {
                old: old.into_owned(),
                new: new.into_owned(),
                all,
            },
            Edit::Write(c) => Edit::Write(c.into_owned()),
            Edit::Rewrite { old, new } => Edit::Rewrite {
                old: old.into_owned(),
                new: new.into_owned(),
            },
            Edit::Patch(c) => Edit::Patch(c.into_owned()),
            Edit::Action(a) => Edit::Action(own(a)),
            Edit::Counted { added, removed } => Edit::Counted { added, removed },
        }
    }
}

/// What a tool call does, whatever its producer calls the tool: the same
/// action is `Bash` to Claude Code, `shell` to Codex, `run_shell_command` to
/// Gemini CLI. Each decoder maps its own producer's tool names (no sink maps
/// names); a tool it does not know is [`ToolKind::Other`], an MCP tool of
/// any producer [`ToolKind::Mcp`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// Runs a shell command.
    Shell,
    /// Reads a file (or several).
    Read,
    /// Creates or overwrites a whole file.
    Write,
    /// Changes part of a file: an edit, a patch, a replacement, a deletion.
    Edit,
    /// Looks for files or text in the workspace: glob, grep, a directory listing.
    Search,
    /// Fetches a URL.
    Fetch,
    /// Searches the web.
    WebSearch,
    /// Starts or talks to a sub-agent.
    Agent,
    /// Writes or reads the agent's todo list.
    Todo,
    /// A tool of an MCP server.
    Mcp,
    /// Anything else (asking the user, plan mode, skills, a tool not known).
    #[default]
    Other,
}

impl ToolKind {
    /// Every kind, in the order of the documentation.
    pub const ALL: [ToolKind; 11] = [
        ToolKind::Shell,
        ToolKind::Read,
        ToolKind::Write,
        ToolKind::Edit,
        ToolKind::Search,
        ToolKind::Fetch,
        ToolKind::WebSearch,
        ToolKind::Agent,
        ToolKind::Todo,
        ToolKind::Mcp,
        ToolKind::Other,
    ];

    /// Name in the JSONL schema and on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Shell => "shell",
            ToolKind::Read => "read",
            ToolKind::Write => "write",
            ToolKind::Edit => "edit",
            ToolKind::Search => "search",
            ToolKind::Fetch => "fetch",
            ToolKind::WebSearch => "web_search",
            ToolKind::Agent => "agent",
            ToolKind::Todo => "todo",
            ToolKind::Mcp => "mcp",
            ToolKind::Other => "other",
        }
    }

    /// Parse a name written by [`ToolKind::name`].
    #[must_use]
    pub fn from_name(s: &str) -> Option<ToolKind> {
        ToolKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// What the kind means, in a few words (for `--help`).
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            ToolKind::Shell => "runs a shell command",
            ToolKind::Read => "reads a file",
            ToolKind::Write => "creates or overwrites a file",
            ToolKind::Edit => "changes part of a file (edit, patch, replace, delete)",
            ToolKind::Search => "looks for files or text (glob, grep, directory listing)",
            ToolKind::Fetch => "fetches a URL",
            ToolKind::WebSearch => "searches the web",
            ToolKind::Agent => "starts or talks to a sub-agent",
            ToolKind::Todo => "writes or reads the todo list",
            ToolKind::Mcp => "a tool of an MCP server",
            ToolKind::Other => "anything else",
        }
    }
}

/// True for the tools that start a sub-agent (Claude's `Agent`/`Task`,
/// Qwen's `agent`/`task`, Amp's `Task`, Codex's `spawn_agent`): their result
/// is the sub-agent's answer, and it may arrive after a result line.
#[must_use]
pub fn is_subagent_tool(name: &str) -> bool {
    matches!(name, "Agent" | "Task" | "agent" | "task" | "spawn_agent")
}

/// A tool call's outcome. Its default is a success with no content.
#[derive(Clone, Debug, Default)]
pub struct ToolResult<'a> {
    /// Id of the call this answers.
    pub id: Cow<'a, str>,
    /// True when the tool reported an error.
    pub is_error: bool,
    /// True when the error is a permission refusal.
    pub denied: bool,
    /// The result content (text blocks joined; other blocks summarized).
    pub content: Content<'a>,
    /// The user's answers, when the call asked questions.
    pub answers: List<'a, Answer<'a>>,
    /// The changes the tool reports it made, when its result says (Claude
    /// Code's `structuredPatch`, with each hunk's place in the file, or a
    /// `Write`'s old and new content): what was done, superseding the
    /// call's [`ToolCall::changes`] (what was asked).
    pub changes: List<'a, FileChange<'a>>,
}

impl ToolResult<'_> {
    /// The same result, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> ToolResult<'static> {
        ToolResult {
            id: own(self.id),
            is_error: self.is_error,
            denied: self.denied,
            content: self.content.into_owned(),
            answers: self.answers.into_owned_with(Answer::into_owned),
            changes: self.changes.into_owned_with(FileChange::into_owned),
        }
    }
}

/// A JSON value from the input, written as compact JSON text only when
/// asked: most sinks never need a tool call's whole input (pretty shows its
/// key argument), and JSONL writes it straight into its line.
#[derive(Clone)]
pub struct JsonText<'a>(JsonRepr<'a>);

#[derive(Clone)]
enum JsonRepr<'a> {
    Text(Cow<'a, str>),
    Value(crate::json::Value<'a>),
    /// An object of these fields (the missing ones left out).
    Fields([(&'static str, Option<crate::json::Value<'a>>); 4]),
}

impl<'a> JsonText<'a> {
    /// A parsed value, written when asked.
    pub(crate) fn value(v: crate::json::Value<'a>) -> Self {
        JsonText(JsonRepr::Value(v))
    }

    /// An object of up to four fields, written when asked; a field whose
    /// value is `None` is left out.
    pub(crate) fn fields(fields: &[(&'static str, Option<crate::json::Value<'a>>)]) -> Self {
        let mut f = [("", None); 4];
        for (slot, field) in f.iter_mut().zip(fields) {
            *slot = *field;
        }
        JsonText(JsonRepr::Fields(f))
    }

    /// The compact JSON text.
    #[must_use]
    pub fn text(&self) -> Cow<'a, str> {
        match &self.0 {
            JsonRepr::Text(t) => t.clone(),
            JsonRepr::Value(v) => Cow::Owned(v.encode()),
            JsonRepr::Fields(_) => {
                let mut out = Vec::new();
                self.write(&mut out);
                // JSON written from valid text: UTF-8.
                Cow::Owned(String::from_utf8(out).unwrap_or_default())
            }
        }
    }

    /// The text, when it is one already.
    pub(crate) fn as_text(&self) -> Option<&str> {
        match &self.0 {
            JsonRepr::Text(t) => Some(t),
            JsonRepr::Value(_) | JsonRepr::Fields(_) => None,
        }
    }

    /// Append the compact JSON text to `out` (a `Vec<u8>`, say: writing
    /// into memory cannot fail, and errors of other writers are ignored).
    pub fn write(&self, out: &mut impl std::io::Write) {
        match &self.0 {
            JsonRepr::Text(t) => {
                let _ = out.write_all(t.as_bytes());
            }
            JsonRepr::Value(v) => v.write(out),
            JsonRepr::Fields(fields) => {
                let _ = out.write_all(b"{");
                let mut first = true;
                for (k, v) in fields {
                    let Some(v) = v else { continue };
                    if !first {
                        let _ = out.write_all(b",");
                    }
                    first = false;
                    let _ = out.write_all(b"\"");
                    let _ = out.write_all(k.as_bytes());
                    let _ = out.write_all(b"\":");
                    v.write(out);
                }
                let _ = out.write_all(b"}");
            }
        }
    }

    /// The same value, owning its text.
    #[must_use]
    pub fn into_owned(self) -> JsonText<'static> {
        JsonText(JsonRepr::Text(Cow::Owned(self.text().into_owned())))
    }
}

impl Default for JsonText<'_> {
    fn default() -> Self {
        JsonText(JsonRepr::Text(Cow::Borrowed("{}")))
    }
}

/// For a type that holds text or a lazier form of it (`.text()` gives the
/// text): `From` a text (borrowed, owned or either), and `Debug`,
/// `Display` and `PartialEq<&str>` as that text.
macro_rules! text_like {
    ($ty:ident, $text:path) => {
        impl<'a> From<Cow<'a, str>> for $ty<'a> {
            fn from(t: Cow<'a, str>) -> Self {
                $ty($text(t))
            }
        }

        impl<'a> From<&'a str> for $ty<'a> {
            fn from(t: &'a str) -> Self {
                $ty($text(Cow::Borrowed(t)))
            }
        }

        impl From<String> for $ty<'_> {
            fn from(t: String) -> Self {
                $ty($text(Cow::Owned(t)))
            }
        }

        impl fmt::Debug for $ty<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.text(), f)
            }
        }

        impl fmt::Display for $ty<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.text())
            }
        }

        impl PartialEq<&str> for $ty<'_> {
            fn eq(&self, other: &&str) -> bool {
                self.text() == *other
            }
        }
    };
}

text_like!(JsonText, JsonRepr::Text);

/// Text that may still be in its JSON form: a long string value from the
/// input (a tool's output, a file) that nothing has needed unescaped yet.
/// The decoder does not unescape these (docs/performance.md): pretty shows
/// a successful tool's output only with `-v`, and JSONL copies it as it
/// came. [`Content::text`] gives the text.
#[derive(Clone, Default)]
pub struct Content<'a>(Repr<'a>);

#[derive(Clone)]
enum Repr<'a> {
    Text(Cow<'a, str>),
    /// The body of a valid JSON string literal, escapes and all, after a
    /// plain text (a failed command's `exit code 1` line) or none.
    Json {
        /// Before the body's text; empty, or ending with a line break.
        head: &'a str,
        body: &'a str,
        /// Re-escaped by streamview's writers, the text is `body` again.
        canonical: bool,
    },
    /// A structured patch, its text the unified diff it stands for
    /// (see [`Content::hunks`]), written out only when read.
    Hunks(crate::json::Value<'a>),
}

impl Default for Repr<'_> {
    fn default() -> Self {
        Repr::Text(Cow::Borrowed(""))
    }
}

impl<'a> Content<'a> {
    /// A JSON string body that `json::scan` checked.
    pub(crate) fn json(body: &'a str, canonical: bool) -> Self {
        Content(Repr::Json {
            head: "",
            body,
            canonical,
        })
    }

    /// The text `head` (one or more lines, ending with a line break)
    /// followed by a JSON string body that `json::scan` checked: a failed
    /// command's status before its output, the output left in its JSON form.
    pub(crate) fn headed_json(head: &'a str, body: &'a str, canonical: bool) -> Self {
        debug_assert!(head.ends_with('\n'), "{head:?}");
        Content(Repr::Json {
            head,
            body,
            canonical,
        })
    }

    /// A structured patch (Claude Code's `structuredPatch`: an array of
    /// hunks `{oldStart, oldLines, newStart, newLines, lines}`, each line
    /// marked ` `, `+` or `-`), whose text is the unified diff it stands
    /// for: `@@ -a,b +c,d @@` then the hunk's lines. Nothing is read until
    /// the text is asked for: a view that shows no diff pays nothing.
    pub(crate) fn hunks(patch: crate::json::Value<'a>) -> Self {
        Content(Repr::Hunks(patch))
    }

    /// The text.
    #[must_use]
    pub fn text(&self) -> Cow<'_, str> {
        match &self.0 {
            Repr::Text(t) => Cow::Borrowed(t),
            Repr::Json { head: "", body, .. } => crate::json::escape::unescape(body),
            Repr::Json { head, body, .. } => {
                let mut t = String::with_capacity(head.len() + body.len());
                t.push_str(head);
                crate::json::escape::unescape_to(body, &mut t);
                Cow::Owned(t)
            }
            Repr::Hunks(v) => {
                let mut t = String::new();
                write_hunks(*v, &mut t);
                Cow::Owned(t)
            }
        }
    }

    /// [`Content::text`] for a decoder: unescaped into the line's arena.
    pub(crate) fn text_in(&self, arena: &'a crate::json::Arena) -> &'a str {
        match &self.0 {
            Repr::Text(Cow::Borrowed(t)) => t,
            Repr::Text(Cow::Owned(t)) => arena.copy(t),
            Repr::Json { head, body, .. } => {
                if head.is_empty() && memchr::memchr(b'\\', body.as_bytes()).is_none() {
                    return body;
                }
                let mut t = arena.text();
                t.push_str(head);
                crate::json::escape::unescape_to(body, &mut t);
                t.done()
            }
            Repr::Hunks(v) => {
                let mut t = arena.text();
                write_hunks(*v, &mut t);
                t.done()
            }
        }
    }

    /// [`Content::text`] for a sink: unescaped, when it must be, into
    /// `scratch` (reused from one event to the next), so that reading a
    /// tool's output allocates nothing once `scratch` has grown.
    pub fn text_with<'s>(&'s self, scratch: &'s mut String) -> &'s str {
        match &self.0 {
            Repr::Text(t) => t,
            Repr::Json { head, body, .. } => {
                if head.is_empty() && memchr::memchr(b'\\', body.as_bytes()).is_none() {
                    return body;
                }
                scratch.clear();
                // The text is no longer than its head and escaped body: one
                // growth.
                scratch.reserve(head.len() + body.len());
                scratch.push_str(head);
                crate::json::escape::unescape_to(body, scratch);
                scratch
            }
            Repr::Hunks(v) => {
                scratch.clear();
                write_hunks(*v, scratch);
                scratch
            }
        }
    }

    /// How many lines the text has, as `str::lines` counts them (a last
    /// line without its end counts; a `\r\n` is one end). Text still in
    /// its JSON form is counted there, by its `\n` escapes, without
    /// unescaping it: a written file's `+40` costs one scan.
    #[must_use]
    pub fn line_count(&self) -> usize {
        match &self.0 {
            Repr::Text(t) => t.lines().count(),
            // The head ends with a line break: its lines, then the body's.
            Repr::Json { head, body, .. } => {
                head.lines().count() + json_line_count(body.as_bytes())
            }
            Repr::Hunks(_) => self.text().lines().count(),
        }
    }

    /// The JSON string body, when the whole text is still in that form,
    /// and whether re-escaping the text gives it back.
    pub(crate) fn json_body(&self) -> Option<(&'a str, bool)> {
        match self.json_parts() {
            Some(("", body, canonical)) => Some((body, canonical)),
            _ => None,
        }
    }

    /// The text's plain head and its JSON string body, when its end is
    /// still in that form, and whether re-escaping the body's text gives
    /// it back.
    pub(crate) fn json_parts(&self) -> Option<(&'a str, &'a str, bool)> {
        match self.0 {
            Repr::Json {
                head,
                body,
                canonical,
            } => Some((head, body, canonical)),
            Repr::Text(_) | Repr::Hunks(_) => None,
        }
    }

    /// The same content, owning its text.
    #[must_use]
    pub fn into_owned(self) -> Content<'static> {
        Content(Repr::Text(Cow::Owned(match self.0 {
            Repr::Text(t) => t.into_owned(),
            Repr::Json { .. } | Repr::Hunks(_) => self.text().into_owned(),
        })))
    }
}

/// [`Content::line_count`] of a JSON string body (valid: every `\`
/// begins an escape): its newline escapes, `\n` or `\u000a`, and one
/// more unless the text is empty or ends with one.
fn json_line_count(body: &[u8]) -> usize {
    let (mut ends, mut at, mut ends_with_end) = (0, 0, false);
    while let Some(p) = memchr::memchr(b'\\', &body[at..]) {
        let i = at + p;
        let (newline, len) = match body.get(i + 1) {
            Some(b'n') => (true, 2),
            Some(b'u') => (matches!(body.get(i + 2..i + 6), Some(b"000a" | b"000A")), 6),
            _ => (false, 2),
        };
        ends += usize::from(newline);
        at = (i + len).min(body.len());
        ends_with_end = newline && at == body.len();
    }
    ends + usize::from(!body.is_empty() && !ends_with_end)
}

/// The unified text of a structured patch (see [`Content::hunks`]),
/// appended to `out`. A hunk without its numbers or lines is left out; a
/// line is cut at a line end it should not hold, so that it stays one line.
fn write_hunks(patch: crate::json::Value<'_>, out: &mut impl fmt::Write) {
    use crate::json::{arr_at, u64_at};
    for hunk in crate::json::Arr::of(patch) {
        let n = |k| u64_at(hunk, k);
        let (Some(os), Some(ol), Some(ns), Some(nl)) =
            (n("oldStart"), n("oldLines"), n("newStart"), n("newLines"))
        else {
            continue;
        };
        let _ = writeln!(out, "@@ -{os},{ol} +{ns},{nl} @@");
        for line in arr_at(hunk, "lines")
            .iter()
            .filter_map(crate::json::Value::into_string)
        {
            let _ = out.write_str(line.split(['\n', '\r']).next().unwrap_or(""));
            let _ = out.write_char('\n');
        }
    }
}

text_like!(Content, Repr::Text);

/// A permission denial.
#[derive(Clone, Debug)]
pub struct Denial<'a> {
    /// Id of the denied call.
    pub id: Option<Cow<'a, str>>,
    /// Name of the denied tool.
    pub tool: Option<Cow<'a, str>>,
    /// Key argument of the denied call.
    pub key_arg: Option<Cow<'a, str>>,
    /// The explanation given by the producer.
    pub message: Option<Cow<'a, str>>,
}

impl Denial<'_> {
    /// The same denial, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Denial<'static> {
        Denial {
            id: own_opt(self.id),
            tool: own_opt(self.tool),
            key_arg: own_opt(self.key_arg),
            message: own_opt(self.message),
        }
    }
}

/// Token counts. Absent numbers are `None`, never invented zeros.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tokens {
    /// Uncached input tokens.
    pub input: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
    /// Input tokens read from the prompt cache.
    pub cache_read: Option<u64>,
    /// Input tokens written to the prompt cache.
    pub cache_creation: Option<u64>,
    /// Tokens the model spent reasoning, where the agent says: a part of
    /// `output` (Codex, `OpenCode`, Kilo), or beside it where the agent's
    /// output count leaves them out (Gemini CLI's `thoughts`). Counted
    /// in no total: `output` is what is billed as output.
    pub reasoning: Option<u64>,
}

impl Tokens {
    /// True when no count is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.input.is_none()
            && self.output.is_none()
            && self.cache_read.is_none()
            && self.cache_creation.is_none()
            && self.reasoning.is_none()
    }

    /// All input tokens: uncached + cache read + cache creation.
    #[must_use]
    pub fn total_input(&self) -> u64 {
        self.input
            .unwrap_or(0)
            .saturating_add(self.cache_read.unwrap_or(0))
            .saturating_add(self.cache_creation.unwrap_or(0))
    }

    /// Input and output tokens together.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total_input().saturating_add(self.output.unwrap_or(0))
    }

    /// Share of input tokens served from the cache, in percent.
    #[must_use]
    pub fn cache_read_share(&self) -> Option<f64> {
        let total = self.total_input();
        let read = self.cache_read?;
        if total == 0 {
            return None;
        }
        #[allow(clippy::cast_precision_loss)] // token counts are far below 2^52
        Some(read as f64 * 100.0 / total as f64)
    }

    /// Add another count field by field (absent + absent stays absent).
    pub fn add(&mut self, other: &Tokens) {
        fn sum(a: Option<u64>, b: Option<u64>) -> Option<u64> {
            match (a, b) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
            }
        }
        self.input = sum(self.input, other.input);
        self.output = sum(self.output, other.output);
        self.cache_read = sum(self.cache_read, other.cache_read);
        self.cache_creation = sum(self.cache_creation, other.cache_creation);
        self.reasoning = sum(self.reasoning, other.reasoning);
    }

    /// Take another count away field by field (what `add` added): a count
    /// stays absent, and none goes below zero.
    pub fn sub(&mut self, other: &Tokens) {
        fn diff(a: Option<u64>, b: Option<u64>) -> Option<u64> {
            a.map(|a| a.saturating_sub(b.unwrap_or(0)))
        }
        self.input = diff(self.input, other.input);
        self.output = diff(self.output, other.output);
        self.cache_read = diff(self.cache_read, other.cache_read);
        self.cache_creation = diff(self.cache_creation, other.cache_creation);
        self.reasoning = diff(self.reasoning, other.reasoning);
    }
}

/// Usage of one model response.
#[derive(Clone, Debug, Default)]
pub struct Usage<'a> {
    /// API message id.
    pub message_id: Option<Cow<'a, str>>,
    /// API request id (Claude transcripts' `requestId`): with the message
    /// id, what tells a copy of a message a resumed session saved again.
    pub request_id: Option<Cow<'a, str>>,
    /// Model that answered.
    pub model: Option<Cow<'a, str>>,
    /// Token counts as reported on the message.
    pub tokens: Tokens,
    /// The counts an earlier `Usage` of the same message reported, which
    /// these replace: Claude Code writes a message's usage on each of its
    /// lines, and the output count grows until its last line. Totals take
    /// `replaces` back out and add `tokens`, so each message counts once,
    /// with its final counts.
    pub replaces: Option<Tokens>,
    /// Of the cache writes (`tokens.cache_creation`), those kept an hour
    /// (Claude's `cache_creation.ephemeral_1h_input_tokens`): they cost
    /// more than those kept five minutes.
    pub cache_write_1h: Option<u64>,
    /// Written in a sidechain (Claude transcripts' `isSidechain`: a
    /// sub-agent, a `/btw` side question), which can replay a message of
    /// its parent under a request of its own (see `session::copies`).
    pub sidechain: bool,
    /// Answered in fast mode (Claude's `usage.speed: "fast"`), billed at a
    /// multiple of the price.
    pub fast: bool,
    /// The output count is preliminary: Claude Code repeats the message's
    /// `message_start` usage on each of its lines, so only the result knows
    /// the final count. Sums and displays then use the input side only.
    pub preliminary_output: bool,
    /// What the agent reported this message cost, in USD (Pi's
    /// `usage.cost.total`, `OpenCode`'s step `cost`): it counts as it is.
    pub cost_usd: Option<f64>,
}

impl Usage<'_> {
    /// The same usage, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Usage<'static> {
        Usage {
            message_id: own_opt(self.message_id),
            request_id: own_opt(self.request_id),
            model: own_opt(self.model),
            tokens: self.tokens,
            replaces: self.replaces,
            cache_write_1h: self.cache_write_1h,
            sidechain: self.sidechain,
            fast: self.fast,
            preliminary_output: self.preliminary_output,
            cost_usd: self.cost_usd,
        }
    }
}

/// How much a notice matters; decides when it is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Bookkeeping: shown only in verbose mode.
    Debug,
    /// Worth one line at default verbosity.
    Info,
    /// Something went wrong but the session goes on (a retry, a failed hook).
    Warning,
    /// An error the user must see (an API error).
    Error,
}

impl Level {
    /// Name in the JSONL schema.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// Parse a name written by [`Level::name`].
    #[must_use]
    pub fn from_name(s: &str) -> Option<Level> {
        match s {
            "debug" => Some(Level::Debug),
            "info" => Some(Level::Info),
            "warning" => Some(Level::Warning),
            "error" => Some(Level::Error),
            _ => None,
        }
    }
}

/// A system notice: one line of text plus the producer's own subtype.
#[derive(Clone, Debug)]
pub struct Notice<'a> {
    /// Producer's name for it (`api_retry`, `compact_boundary`, `hook_response`…).
    pub subtype: Cow<'a, str>,
    /// How much it matters.
    pub level: Level,
    /// A one-line human summary.
    pub text: Cow<'a, str>,
    /// The original line, verbatim JSON, so JSONL keeps what the summary drops.
    pub raw: Option<Cow<'a, str>>,
    /// One update of a running estimate (Claude's thinking-token count while
    /// the model thinks): a view shows the first of a series, not each update.
    pub estimate: bool,
}

impl Notice<'_> {
    /// The same notice, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Notice<'static> {
        Notice {
            subtype: own(self.subtype),
            level: self.level,
            text: own(self.text),
            raw: own_opt(self.raw),
            estimate: self.estimate,
        }
    }
}

/// Per-model usage from a result.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ModelUsage<'a> {
    /// Model name.
    pub model: Cow<'a, str>,
    /// Token counts.
    pub tokens: Tokens,
    /// Cost in USD, when reported.
    pub cost_usd: Option<f64>,
}

impl ModelUsage<'_> {
    /// The same usage, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> ModelUsage<'static> {
        ModelUsage {
            model: own(self.model),
            tokens: self.tokens,
            cost_usd: self.cost_usd,
        }
    }
}

/// The outcome of a session (or of one turn of it).
#[derive(Clone, Debug, Default)]
pub struct SessionResult<'a> {
    /// True when the session ended in error (any error subtype, `is_error`).
    pub is_error: bool,
    /// Producer's subtype (`success`, `error_max_turns`, …).
    pub subtype: Option<Cow<'a, str>>,
    /// Final text (or the error text when `is_error`).
    pub text: Option<Cow<'a, str>>,
    /// Error messages.
    pub errors: List<'a, Cow<'a, str>>,
    /// Model round-trips.
    pub num_turns: Option<u64>,
    /// Wall-clock duration.
    pub duration_ms: Option<u64>,
    /// Time spent in API calls.
    pub duration_api_ms: Option<u64>,
    /// Total cost in USD (cumulative for the session).
    pub cost_usd: Option<f64>,
    /// Token totals.
    pub tokens: Tokens,
    /// Per-model usage.
    pub model_usage: List<'a, ModelUsage<'a>>,
    /// Last stop reason.
    pub stop_reason: Option<Cow<'a, str>>,
    /// Why the session ended (`completed`, `max_turns`, `api_error`, …).
    pub terminal_reason: Option<Cow<'a, str>>,
    /// HTTP status of the API error that ended the session.
    pub api_error_status: Option<u64>,
    /// For a turn started by the end of a background task (Claude Code
    /// 2.1.330 runs sub-agents in the background; each one's end starts a
    /// turn with a result of its own): that task's description.
    pub after_task: Option<Cow<'a, str>>,
}

impl SessionResult<'_> {
    /// The same result, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> SessionResult<'static> {
        SessionResult {
            is_error: self.is_error,
            subtype: own_opt(self.subtype),
            text: own_opt(self.text),
            errors: own_list(self.errors),
            num_turns: self.num_turns,
            duration_ms: self.duration_ms,
            duration_api_ms: self.duration_api_ms,
            cost_usd: self.cost_usd,
            tokens: self.tokens,
            model_usage: self.model_usage.into_owned_with(ModelUsage::into_owned),
            stop_reason: own_opt(self.stop_reason),
            terminal_reason: own_opt(self.terminal_reason),
            api_error_status: self.api_error_status,
            after_task: own_opt(self.after_task),
        }
    }
}

/// What a [`Delta`] adds to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeltaKind {
    /// Assistant text.
    Text,
    /// Thinking text.
    Thinking,
    /// Partial JSON of a tool call's input.
    ToolInput,
    /// A tool call begins: the fragment is the tool's name (its input
    /// follows as [`DeltaKind::ToolInput`], the complete call later).
    ToolStart,
}

impl DeltaKind {
    /// Name in the JSONL schema.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DeltaKind::Text => "text",
            DeltaKind::Thinking => "thinking",
            DeltaKind::ToolInput => "tool_input",
            DeltaKind::ToolStart => "tool_start",
        }
    }

    /// Parse a name written by [`DeltaKind::name`].
    #[must_use]
    pub fn from_name(s: &str) -> Option<DeltaKind> {
        match s {
            "text" => Some(DeltaKind::Text),
            "thinking" => Some(DeltaKind::Thinking),
            "tool_input" => Some(DeltaKind::ToolInput),
            "tool_start" => Some(DeltaKind::ToolStart),
            _ => None,
        }
    }
}

/// A streamed fragment (`--include-partial-messages`). The complete block
/// follows later as an ordinary event, so sinks that do not stream may
/// ignore deltas.
#[derive(Clone, Debug)]
pub struct Delta<'a> {
    /// What the fragment belongs to.
    pub kind: DeltaKind,
    /// Content block index within the message.
    pub index: Option<u64>,
    /// The fragment.
    pub text: Cow<'a, str>,
}

impl Delta<'_> {
    /// The same fragment, owning its text.
    #[must_use]
    pub fn into_owned(self) -> Delta<'static> {
        Delta {
            kind: self.kind,
            index: self.index,
            text: own(self.text),
        }
    }
}

/// An event of a type streamview does not model.
#[derive(Clone, Debug)]
pub struct Unknown<'a> {
    /// The producer's `type` (and `subtype`, when present, as `type/subtype`).
    pub type_name: Cow<'a, str>,
    /// The whole original line, verbatim JSON.
    pub raw: Cow<'a, str>,
}

impl Unknown<'_> {
    /// The same event, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Unknown<'static> {
        Unknown {
            type_name: own(self.type_name),
            raw: own(self.raw),
        }
    }
}

#[cfg(test)]
mod line_count_tests {
    use super::Content;

    /// Counted in the JSON form, the lines are those of the text.
    #[test]
    fn a_json_body_has_the_lines_of_its_text() {
        let texts = [
            "",
            "a",
            "a\n",
            "\n",
            "\n\n",
            "a\nb",
            "a\nb\n",
            "a\r\nb\r\n",
            "a\r",
            "\\n",
            "a\\\nb",
            "\\",
            "\\\\n\n",
            "tab\there\n\u{7f}\u{1b}[31m\nend",
            "é\n☃\nx",
        ];
        for t in texts {
            let json = serde_json::to_string(t).unwrap();
            let body = &json[1..json.len() - 1];
            let c = Content::json(body, true);
            assert_eq!(c.line_count(), t.lines().count(), "{t:?} as {body}");
            assert_eq!(Content::from(t).line_count(), t.lines().count(), "{t:?}");
        }
        // `\u000a` is a newline too.
        assert_eq!(Content::json(r"a\u000ab\u000A", false).line_count(), 2);
    }

    /// A head before the body (a failed command's status before its
    /// output): the text, its lines and its JSON parts are those of the
    /// head and the body's text joined, in every way a sink or a decoder
    /// asks.
    #[test]
    fn a_headed_body_is_its_head_then_its_text() {
        let arena = crate::json::Arena::default();
        for head in ["exit code 1\n", "command failed\nexit code 2\n"] {
            for t in [
                "",
                "a",
                "a\n",
                "\n\n",
                "a\r\nb",
                "tab\t\u{1b}[31m\nend",
                "é\n☃",
            ] {
                let json = serde_json::to_string(t).unwrap();
                let body = &json[1..json.len() - 1];
                let c = Content::headed_json(head, body, true);
                let whole = format!("{head}{t}");
                assert_eq!(c.text(), whole);
                assert_eq!(c.text_with(&mut String::from("old")), whole);
                assert_eq!(c.text_in(&arena), whole);
                assert_eq!(c.line_count(), whole.lines().count(), "{whole:?}");
                assert_eq!(c.json_body(), None);
                assert_eq!(c.json_parts(), Some((head, body, true)));
                assert_eq!(c.clone().into_owned().text(), whole);
            }
        }
    }
}
