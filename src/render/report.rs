//! What a session report shows, whatever its markup: the one sink behind
//! `--format markdown` and `--format html`.
//!
//! [`Report`] reads the events and the [`Session`] and decides what a
//! reader of a finished session needs (the header, prompts, the
//! assistant's text, each tool call with its key argument and its output,
//! errors, denials and notices, each session's end, the summary), and in
//! which words; a [`Document`] (`markdown.rs`, `html.rs`) only writes those
//! parts in its markup and escapes them. So the two formats show the same
//! things, and neither ever matches a producer's tool names: calls are read
//! through the event model (`ToolKind`, `key_arg`, `is_subagent_tool`).
//!
//! Everything handed to a document is already neutralized for terminals
//! ([`sanitize`]: a report is read in a browser, but also `cat` on a
//! terminal), and cut to bounded size: a tool's output to
//! [`MAX_OUTPUT_LINES`] lines and [`MAX_OUTPUT_BYTES`] bytes, a text to
//! [`MAX_TEXT_BYTES`], each cut said with how much was left out.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;

use super::diff::{self, DiffLine, Differ, Shown, Stat};
use super::rows::Summary;
use super::sanitize::{sanitize, sanitize_line};
use super::{Sink, fmt_cost, fmt_count, fmt_duration, shown_key};
use crate::event::{
    Denial, Event, EventKind, FileChange, Level, Producer, Role, SessionResult, SessionStart, Text,
    ToolCall, ToolKind, ToolResult, is_subagent_tool,
};
use crate::session::Session;

/// Lines of one tool output kept in a report.
pub const MAX_OUTPUT_LINES: usize = 400;
/// Bytes of one tool output kept in a report.
pub const MAX_OUTPUT_BYTES: usize = 32 << 10;
/// Bytes of one text (an answer, a prompt, thinking) kept in a report.
pub const MAX_TEXT_BYTES: usize = 128 << 10;
/// Lines of one call's diff kept in a report.
pub const MAX_DIFF_LINES: usize = 400;
/// Unchanged lines shown around each change (as `diff -u`).
const DIFF_CONTEXT: usize = 3;

/// Where an event sits: nesting depth (0 for the main agent) and, inside
/// a sub-agent, the id of the call that started it.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    /// 0 for the main agent, 1 inside a sub-agent…
    pub depth: usize,
    /// The call that started the sub-agent this event belongs to.
    pub parent: Option<&'a str>,
    /// A short name of that sub-agent while two or more run at once, so
    /// that their interleaved events can be told apart.
    pub agent: Option<&'a str>,
}

/// A session's header.
#[derive(Clone, Debug)]
pub struct Header<'a> {
    /// The agent's name (`Claude Code`, `Codex`…).
    pub agent: &'static str,
    /// The model, when the producer says.
    pub model: Option<Cow<'a, str>>,
    /// The working directory.
    pub cwd: Option<Cow<'a, str>>,
    /// The producer's version.
    pub version: Option<Cow<'a, str>>,
    /// The session id.
    pub session: Option<Cow<'a, str>>,
    /// 1 for the first session of the input, 2 for the next…
    pub number: u64,
}

/// A tool call.
#[derive(Clone, Debug)]
pub struct Call<'a> {
    /// Its id (a result names it).
    pub id: Cow<'a, str>,
    /// The tool's name, sanitized for one line.
    pub name: Cow<'a, str>,
    /// What the tool does.
    pub kind: ToolKind,
    /// Its key argument (a file under the working directory relative to
    /// it), or its compact JSON input when it has none; one line.
    pub key: Option<Cow<'a, str>>,
    /// True for a call that starts a sub-agent.
    pub agent: bool,
    /// Todo items (`[x] done`, `[ ] to do`) and questions it carries.
    pub items: Vec<String>,
    /// The files it changes, as a diff, and its `+12 −3`: what was asked,
    /// or when its result came right after it, what was done (`None` when
    /// nothing was: the call was denied or failed, its result shows what it
    /// proposed).
    pub changes: Changes,
}

impl Call<'_> {
    /// The same call, owning its strings (held until its result).
    fn into_owned(self) -> Call<'static> {
        Call {
            id: Cow::Owned(self.id.into_owned()),
            name: Cow::Owned(self.name.into_owned()),
            key: self.key.map(|k| Cow::Owned(k.into_owned())),
            ..self
        }
    }
}

/// What a line of a call's diff is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The file the lines after it change (a patch of several files).
    Path,
    /// A hunk begins: `@@ -3,4 +3,5 @@`, or `@@` where its place is unknown.
    Hunk,
    /// A patch's own line that is not content (`*** Update File: x`).
    Header,
    /// A line kept.
    Context,
    /// A line added.
    Added,
    /// A line removed.
    Removed,
}

/// The changes of a call, as a report shows them: its `+12 −3` and its
/// unified diff, cut to [`MAX_DIFF_LINES`] lines.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Lines added and removed, when the producer says what changed.
    pub stat: Option<Stat>,
    /// The diff's lines, each sanitized for one line, without its marker.
    pub lines: Vec<(Mark, String)>,
    /// Lines left out.
    pub more: usize,
    /// Changes asked for and not made (the call was denied or failed): a
    /// document shows them apart, never as a change.
    pub proposed: bool,
}

impl Changes {
    /// The diff of `changes` (paths alone and counts add no line: the
    /// call's line says them).
    fn of(changes: &[FileChange<'_>], differ: &mut Differ) -> Changes {
        let mut out = Changes {
            stat: diff::stat(changes),
            ..Changes::default()
        };
        let push = |out: &mut Changes, mark: Mark, text: &str| {
            if out.lines.len() < MAX_DIFF_LINES {
                out.lines.push((mark, diff_line(text)));
            } else {
                out.more += 1;
            }
        };
        diff::each_shown(differ, changes, DIFF_CONTEXT, |shown| match shown {
            Shown::Path(p) => push(&mut out, Mark::Path, p),
            Shown::Line(DiffLine::Hunk(None)) => push(&mut out, Mark::Hunk, "@@"),
            Shown::Line(DiffLine::Hunk(Some(r))) => push(&mut out, Mark::Hunk, &r.to_string()),
            Shown::Line(DiffLine::Header(t)) => push(&mut out, Mark::Header, t),
            Shown::Line(DiffLine::Context(t)) => push(&mut out, Mark::Context, t),
            Shown::Line(DiffLine::Added(t)) => push(&mut out, Mark::Added, t),
            Shown::Line(DiffLine::Removed(t)) => push(&mut out, Mark::Removed, t),
        });
        out
    }

    /// The note on what was left out, e.g. `… 12 more lines not shown`.
    pub fn note(&self) -> Option<String> {
        let l = if self.more == 1 { "line" } else { "lines" };
        (self.more > 0).then(|| format!("… {} more {l} not shown", self.more))
    }
}

/// `+12 −3`, as the pretty view writes it (see [`Stat::shown`]).
pub fn stat_text(s: Stat) -> String {
    match s.shown() {
        (Some(a), Some(r)) => format!("+{a} −{r}"),
        (Some(a), None) => format!("+{a}"),
        (None, Some(r)) => format!("−{r}"),
        (None, None) => String::new(),
    }
}

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Its result came and was not an error.
    Ok,
    /// The tool reported an error.
    Failed,
    /// The permission system refused it.
    Denied,
}

/// A tool call's result.
#[derive(Clone, Debug)]
pub struct Output<'a> {
    /// The id of the call it answers.
    pub id: &'a str,
    /// The call's tool name and key argument, one line each (the call may
    /// be far above: calls made in parallel).
    pub tool: Cow<'a, str>,
    /// The call's key argument.
    pub key: Option<Cow<'a, str>>,
    /// What the tool does.
    pub kind: ToolKind,
    /// How it ended.
    pub status: Status,
    /// The output (or error text), sanitized, cut.
    pub text: Cut<'a>,
    /// From call to result, in ms, when it took a second or more (a log
    /// replayed arrives at once: its times mean nothing).
    pub took_ms: Option<u64>,
    /// What the tool says it changed (Claude's patch of an edit, with its
    /// line numbers): shown instead of the call's diff; or what the call
    /// proposed, when it was denied or failed ([`Changes::proposed`]). Its
    /// `stat` is set when the call's line did not say it.
    pub changes: Changes,
    /// Its denial was written already (a permission denial reported before
    /// the result): only the call's status is new.
    pub said: bool,
}

/// Text cut to a bound: what is kept, and how much was left out.
#[derive(Clone, Debug, Default)]
pub struct Cut<'a> {
    /// The text kept.
    pub text: Cow<'a, str>,
    /// Its lines (of what is kept).
    pub lines: usize,
    /// Lines left out.
    pub more_lines: usize,
    /// Bytes left out.
    pub more_bytes: usize,
}

impl Cut<'_> {
    /// True when something was left out.
    pub fn is_cut(&self) -> bool {
        self.more_lines > 0 || self.more_bytes > 0
    }

    /// The note on what was left out, e.g. `… 1200 more lines (98 KiB) not
    /// shown`.
    pub fn note(&self) -> Option<String> {
        if !self.is_cut() {
            return None;
        }
        let mut s = String::from("… ");
        if self.more_lines > 0 {
            let l = if self.more_lines == 1 {
                "line"
            } else {
                "lines"
            };
            s.push_str(&format!("{} more {l} ", self.more_lines));
        }
        s.push('(');
        fmt_count(&mut s, self.more_bytes as u64);
        s.push_str(" bytes) not shown");
        Some(s)
    }
}

/// Sanitize `text` and keep at most `max_lines` lines and `max_bytes`
/// bytes of it (cut at a character boundary).
pub fn cut(text: &str, max_lines: usize, max_bytes: usize) -> Cut<'_> {
    let text = text.trim_end_matches(['\n', '\r']);
    let mut end = text.len().min(max_bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some((i, _)) = text
        .get(..end)
        .unwrap_or("")
        .match_indices('\n')
        .nth(max_lines.saturating_sub(1))
    {
        end = i;
    }
    let kept = &text[..end];
    let rest = &text[end..];
    let more_lines = rest.strip_prefix('\n').unwrap_or(rest).lines().count();
    let more_bytes = text.len() - end;
    Cut {
        lines: kept.lines().count(),
        text: sanitize(kept),
        more_lines: if more_bytes > 0 { more_lines } else { 0 },
        more_bytes,
    }
}

/// A notice: a warning, an error of the API, a line of plain text.
#[derive(Clone, Debug)]
pub struct Notice<'a> {
    /// How much it matters.
    pub level: Level,
    /// The text, sanitized.
    pub text: Cow<'a, str>,
}

/// A permission denial.
#[derive(Clone, Debug)]
pub struct Refusal<'a> {
    /// The tool refused.
    pub tool: Cow<'a, str>,
    /// Its key argument.
    pub key: Option<Cow<'a, str>>,
    /// What the producer said.
    pub message: Option<Cow<'a, str>>,
}

/// How a session (or a turn) ended.
#[derive(Clone, Debug)]
pub struct End {
    /// True when it failed.
    pub failed: bool,
    /// `✓ done · 3 turns · 12.3s · $0.05` or `✗ session failed (…) · …`.
    pub line: String,
    /// Why it failed, one line each, sanitized.
    pub reasons: Vec<String>,
    /// The session's final answer, when no text before said it.
    pub answer: Option<String>,
}

/// A report's markup: writes the parts [`Report`] decides, escaped for its
/// language. Every string it gets is sanitized and bounded, but not
/// escaped for any markup: that is its job.
pub trait Document {
    /// A session starts.
    ///
    /// # Errors
    /// The output cannot be written.
    fn header(&mut self, h: &Header<'_>) -> io::Result<()>;
    /// A prompt (the user's, or a sub-agent's task).
    ///
    /// # Errors
    /// The output cannot be written.
    fn prompt(&mut self, text: &Cut<'_>, at: At<'_>) -> io::Result<()>;
    /// The assistant's text (Markdown, as models write it).
    ///
    /// # Errors
    /// The output cannot be written.
    fn text(&mut self, text: &Cut<'_>, at: At<'_>) -> io::Result<()>;
    /// Reasoning; `None` when the producer withheld it.
    ///
    /// # Errors
    /// The output cannot be written.
    fn thinking(&mut self, text: Option<&Cut<'_>>, at: At<'_>) -> io::Result<()>;
    /// A tool call.
    ///
    /// # Errors
    /// The output cannot be written.
    fn call(&mut self, c: &Call<'_>, at: At<'_>) -> io::Result<()>;
    /// A tool call's result.
    ///
    /// # Errors
    /// The output cannot be written.
    fn output(&mut self, o: &Output<'_>, at: At<'_>) -> io::Result<()>;
    /// A permission denial.
    ///
    /// # Errors
    /// The output cannot be written.
    fn denial(&mut self, d: &Refusal<'_>, at: At<'_>) -> io::Result<()>;
    /// A notice worth a reader's time (info and above).
    ///
    /// # Errors
    /// The output cannot be written.
    fn notice(&mut self, n: &Notice<'_>, at: At<'_>) -> io::Result<()>;
    /// A session (or a turn) ended.
    ///
    /// # Errors
    /// The output cannot be written.
    fn end(&mut self, e: &End) -> io::Result<()>;
    /// The input has ended: write the summary and whatever was held.
    ///
    /// # Errors
    /// The output cannot be written.
    fn finish(&mut self, summary: &Summary, s: &Session) -> io::Result<()>;
    /// Push out what can be written already.
    ///
    /// # Errors
    /// The output cannot be written.
    fn flush(&mut self) -> io::Result<()>;
}

/// The sink of the report formats over a [`Document`]; see the module docs.
pub struct Report<D: Document> {
    doc: D,
    /// Hashes of the main agent's texts in this session: a result repeats
    /// the last one, and is written only when it was not.
    shown_texts: HashSet<u64>,
    /// Hashes of what sub-agents said (bounded): a call's answer that
    /// repeats its sub-agent's report, shown in its block, is not repeated.
    agent_texts: HashSet<u64>,
    /// The text being joined (a producer that sends it in pieces).
    pending: Option<(String, usize, Option<String>, Option<String>)>,
    sessions: u64,
    scratch: String,
    /// Calls whose denial was written (by a denial event or by their
    /// result): it is not written again (kept up to [`KEEP_DENIED`]).
    denied: HashSet<String>,
    /// The last error notice's text: a failed result repeats it.
    last_error: Option<u64>,
    differ: Differ,
    /// A call that changes files, held until the next event: when that is
    /// its result, the call is written with what was done (see
    /// [`Report::settle`]).
    waiting: Option<Waiting>,
    /// The changes of calls written before their result when that result
    /// may say what was done instead (`ToolCall::changes_in_result`), until
    /// it comes (kept up to [`KEEP_DENIED`]).
    held: HashMap<String, Changes>,
}

/// A held call and where it sits (see `Report::waiting`).
struct Waiting {
    call: Call<'static>,
    /// Its result reports what was done (`ToolCall::changes_in_result`).
    in_result: bool,
    depth: usize,
    parent: Option<String>,
    agent: Option<String>,
}

/// Denied calls remembered at most (see `Report::denied`).
const KEEP_DENIED: usize = 1024;

impl<D: Document> Report<D> {
    /// A report written by `doc`.
    pub fn new(doc: D) -> Self {
        Report {
            doc,
            shown_texts: HashSet::new(),
            agent_texts: HashSet::new(),
            pending: None,
            sessions: 0,
            scratch: String::new(),
            denied: HashSet::new(),
            last_error: None,
            differ: Differ::new(),
            waiting: None,
            held: HashMap::new(),
        }
    }

    /// Give back the document.
    pub fn into_inner(self) -> D {
        self.doc
    }

    /// Write the text being joined, if any.
    fn flush_text(&mut self) -> io::Result<()> {
        if let Some((text, depth, parent, agent)) = self.pending.take() {
            let at = At {
                depth,
                parent: parent.as_deref(),
                agent: agent.as_deref(),
            };
            let c = cut(&text, usize::MAX, MAX_TEXT_BYTES);
            if !c.text.trim().is_empty() {
                self.doc.text(&c, at)?;
            }
        }
        Ok(())
    }

    fn header(&mut self, st: &SessionStart<'_>, producer: Producer, s: &Session) -> io::Result<()> {
        if !s.note().new_session {
            return Ok(());
        }
        self.sessions += 1;
        self.shown_texts.clear();
        let line = |c: &Option<Cow<'_, str>>| c.as_deref().map(|v| sanitize_line(v).into_owned());
        let h = Header {
            agent: producer.label(),
            model: line(&st.model).map(Cow::Owned),
            cwd: line(&st.cwd).map(Cow::Owned),
            version: line(&st.version).map(Cow::Owned),
            session: s
                .current()
                .and_then(|c| c.id.as_deref())
                .map(|i| Cow::Owned(sanitize_line(i).into_owned())),
            number: self.sessions,
        };
        self.doc.header(&h)
    }

    fn text(&mut self, t: &Text<'_>, at: At<'_>) -> io::Result<()> {
        if t.role == Role::User {
            let raw = t.command.as_deref().unwrap_or(&t.text);
            let c = cut(raw.trim_matches('\n'), usize::MAX, MAX_TEXT_BYTES);
            if c.text.trim().is_empty() {
                return Ok(());
            }
            return self.doc.prompt(&c, at);
        }
        if at.depth == 0 {
            self.shown_texts.insert(text_hash(&t.text));
        } else {
            if self.agent_texts.len() >= 1024 {
                self.agent_texts.clear();
            }
            self.agent_texts.insert(text_hash(t.text.trim()));
        }
        let (buf, ..) = self.pending.get_or_insert_with(|| {
            (
                String::new(),
                at.depth,
                at.parent.map(str::to_string),
                at.agent.map(str::to_string),
            )
        });
        // The bound applies to the joined text; what is beyond is counted
        // by `cut` only up to here, which is enough to say it was cut.
        if buf.len() <= MAX_TEXT_BYTES {
            buf.push_str(&t.text);
        }
        if t.continues {
            return Ok(());
        }
        self.flush_text()
    }

    fn call(&mut self, c: &ToolCall<'_>, s: &Session, at: At<'_>) -> io::Result<()> {
        let key = match c.key_arg.as_deref() {
            Some(k) if !k.is_empty() => Some(one_line(shown_key(k, c.kind, s.cwd()), 500)),
            _ if c.todos.is_empty() && c.questions.is_empty() => {
                let input = c.input.text();
                (input.len() > 2).then(|| one_line(&input, 300))
            }
            _ => None,
        };
        let mut items = Vec::new();
        for t in &c.todos {
            let mark = match t.status.as_ref() {
                "completed" => "[x]",
                "in_progress" => "[~]",
                _ => "[ ]",
            };
            items.push(format!("{mark} {}", one_line(&t.content, 300)));
        }
        for q in &c.questions {
            let opts: Vec<String> = q.options.iter().map(|o| one_line(o, 100)).collect();
            let mut item = format!("? {}", one_line(&q.question, 300));
            if !opts.is_empty() {
                item.push_str(&format!(" ({})", opts.join(" / ")));
            }
            items.push(item);
        }
        let call = Call {
            id: Cow::Borrowed(&c.id),
            name: Cow::Owned(one_line(&c.name, 100)),
            kind: c.kind,
            key: key.map(Cow::Owned),
            agent: is_subagent_tool(&c.name),
            items,
            changes: Changes::of(&c.changes, &mut self.differ),
        };
        if call.changes.stat.is_none() && call.changes.lines.is_empty() {
            return self.doc.call(&call, at);
        }
        // What it changes is known when its result comes: most often next.
        self.waiting = Some(Waiting {
            call: call.into_owned(),
            in_result: c.changes_in_result,
            depth: at.depth,
            parent: at.parent.map(str::to_string),
            agent: at.agent.map(str::to_string),
        });
        Ok(())
    }

    /// Write the held call, when another event than its result came: with
    /// what it asks, or, when its result will say what was done, without
    /// its changes (its result shows them, counted).
    fn write_waiting(&mut self) -> io::Result<()> {
        let Some(Waiting {
            mut call,
            in_result,
            depth,
            parent,
            agent,
        }) = self.waiting.take()
        else {
            return Ok(());
        };
        if in_result {
            if self.held.len() >= KEEP_DENIED {
                self.held.clear();
            }
            let changes = std::mem::take(&mut call.changes);
            self.held.insert(call.id.to_string(), changes);
        }
        let at = At {
            depth,
            parent: parent.as_deref(),
            agent: agent.as_deref(),
        };
        self.doc.call(&call, at)
    }

    /// The changes a result shows, and the held call written first when
    /// this result is its own: a call that was denied or failed made no
    /// change (what it asked is shown with the result, as proposed); one
    /// whose result says what was done is counted by that.
    fn settle(&mut self, r: &ToolResult<'_>, status: Status) -> io::Result<Changes> {
        let Some(w) = self.waiting.take_if(|w| w.call.id == r.id) else {
            return Ok(match self.held.remove(r.id.as_ref()) {
                Some(asked) if status != Status::Ok => Changes {
                    proposed: true,
                    ..asked
                },
                Some(asked) if r.changes.is_empty() => asked,
                _ => Changes::of(&r.changes, &mut self.differ),
            });
        };
        let Waiting {
            mut call,
            depth,
            parent,
            agent,
            ..
        } = w;
        let mut shown = Changes::default();
        if status != Status::Ok {
            shown = std::mem::take(&mut call.changes);
            shown.proposed = true;
        } else if !r.changes.is_empty() {
            // The call's line says the count of what was done.
            shown = Changes::of(&r.changes, &mut self.differ);
            call.changes = Changes {
                stat: shown.stat.take(),
                ..Changes::default()
            };
        }
        let at = At {
            depth,
            parent: parent.as_deref(),
            agent: agent.as_deref(),
        };
        self.doc.call(&call, at)?;
        Ok(shown)
    }

    fn output(&mut self, r: &ToolResult<'_>, s: &Session, at: At<'_>) -> io::Result<()> {
        let note = s.note();
        let kind = note.tool_kind.unwrap_or_default();
        let status = if note.denied || r.denied {
            Status::Denied
        } else if r.is_error {
            Status::Failed
        } else {
            Status::Ok
        };
        let changes = self.settle(r, status)?;
        let said = status == Status::Denied && !self.first_denial(&r.id);
        let mut text = r.content.text_with(&mut self.scratch);
        if status != Status::Ok {
            text = strip_tool_error(text);
        } else if kind == ToolKind::Agent || note.tool.as_deref().is_some_and(is_subagent_tool) {
            text = super::agent_answer(text);
            if self.agent_texts.contains(&text_hash(text.trim())) {
                text = "(its report, above)";
            }
        }
        let answers: String;
        if !r.answers.is_empty() {
            answers = r
                .answers
                .iter()
                .map(|a| format!("{} → {}", a.question, a.answer))
                .collect::<Vec<_>>()
                .join("\n");
            text = &answers;
        }
        let o = Output {
            id: &r.id,
            tool: Cow::Owned(one_line(note.tool.as_deref().unwrap_or("tool"), 100)),
            key: (note.key_arg.as_deref())
                .map(|k| Cow::Owned(one_line(shown_key(k, kind, s.cwd()), 200))),
            kind,
            status,
            text: cut(text, MAX_OUTPUT_LINES, MAX_OUTPUT_BYTES),
            took_ms: note
                .elapsed
                .filter(|d| d.as_secs() >= 1)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            changes,
            said,
        };
        self.doc.output(&o, at)
    }

    fn denial(&mut self, d: &Denial<'_>, s: &Session, at: At<'_>) -> io::Result<()> {
        let note = s.note();
        if note.duplicate || d.id.as_deref().is_some_and(|id| !self.first_denial(id)) {
            return Ok(());
        }
        let tool = note.tool.as_deref().or(d.tool.as_deref()).unwrap_or("tool");
        let kind = note.tool_kind.unwrap_or_default();
        let key = note.key_arg.as_deref().or(d.key_arg.as_deref());
        let r = Refusal {
            tool: Cow::Owned(one_line(tool, 100)),
            key: key.map(|k| Cow::Owned(one_line(shown_key(k, kind, s.cwd()), 200))),
            message: d
                .message
                .as_deref()
                .map(strip_tool_error)
                .filter(|m| !m.is_empty())
                .map(|m| Cow::Owned(one_line(m, 1000))),
        };
        self.doc.denial(&r, at)
    }

    /// True the first time a denial of call `id` is to be written; it is
    /// then remembered.
    fn first_denial(&mut self, id: &str) -> bool {
        if self.denied.contains(id) {
            return false;
        }
        if self.denied.len() >= KEEP_DENIED {
            self.denied.clear();
        }
        self.denied.insert(id.to_string())
    }

    /// A result; `turns` as the session counted them, where it could.
    fn result(&mut self, r: &SessionResult<'_>, turns: Option<u64>) -> io::Result<()> {
        let answer = r
            .text
            .as_deref()
            .filter(|t| !r.is_error && !t.trim().is_empty())
            .filter(|t| !self.shown_texts.contains(&text_hash(t)))
            .map(|t| {
                cut(t.trim_matches('\n'), usize::MAX, MAX_TEXT_BYTES)
                    .text
                    .into_owned()
            });
        let mut reasons: Vec<String> = Vec::new();
        if r.is_error {
            for m in r
                .text
                .as_deref()
                .into_iter()
                .chain(r.errors.iter().map(AsRef::as_ref))
            {
                if self.last_error == Some(text_hash(m)) {
                    continue;
                }
                let m = one_line(m, 1000);
                if !m.trim().is_empty() && !reasons.contains(&m) {
                    reasons.push(m);
                }
            }
        }
        self.doc.end(&End {
            failed: r.is_error,
            line: end_line(r, turns.or(r.num_turns)),
            reasons,
            answer,
        })
    }
}

/// `✓ done · 3 turns · 12.3s · $0.05 · 3.7k in / 166 out`.
fn end_line(r: &SessionResult<'_>, turns: Option<u64>) -> String {
    let mut l = String::new();
    if r.is_error {
        l.push_str("✗ session failed");
        if let Some(st) = r.api_error_status {
            l.push_str(&format!(" (API error {st})"));
        } else if let Some(sub) = r
            .subtype
            .as_deref()
            .filter(|s| !matches!(*s, "success" | "error" | "end_of_input" | "transcript_end"))
        {
            l.push_str(&format!(" ({})", one_line(sub, 100)));
        }
    } else {
        l.push_str("✓ done");
    }
    if let Some(n) = turns {
        l.push_str(&format!(" · {n} turn{}", if n == 1 { "" } else { "s" }));
    }
    if let Some(ms) = r.duration_ms {
        l.push_str(" · ");
        fmt_duration(&mut l, ms);
    }
    if let Some(c) = r.cost_usd {
        l.push_str(" · ");
        fmt_cost(&mut l, c);
    }
    if !r.tokens.is_empty() {
        l.push_str(" · ");
        fmt_count(&mut l, r.tokens.total_input());
        l.push_str(" in");
        if let Some(o) = r.tokens.output {
            l.push_str(" / ");
            fmt_count(&mut l, o);
            l.push_str(" out");
        }
    }
    l
}

/// `s` sanitized for one line and cut to `max` characters with `…`.
pub fn one_line(s: &str, max: usize) -> String {
    let s = sanitize_line(s.trim());
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.into_owned(),
    }
}

/// A line of a diff sanitized for one line, its indentation kept, cut to
/// 2000 characters with `…`.
fn diff_line(s: &str) -> String {
    let s = sanitize_line(s.trim_end());
    match s.char_indices().nth(2000) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.into_owned(),
    }
}

/// A tool error without Claude's `<tool_use_error>` wrapper.
fn strip_tool_error(s: &str) -> &str {
    let t = s.trim();
    t.strip_prefix("<tool_use_error>")
        .and_then(|x| x.strip_suffix("</tool_use_error>"))
        .unwrap_or(t)
}

/// True for an event that leaves a held call waiting: its own result, or
/// one a report does not show (usage, deltas, bookkeeping).
fn quiet(ev: &Event<'_>, waiting: Option<&Waiting>) -> bool {
    match &ev.kind {
        EventKind::ToolResult(r) => waiting.is_some_and(|w| w.call.id == r.id),
        EventKind::Notice(n) => n.level < Level::Info || n.estimate,
        EventKind::Usage(_) | EventKind::Delta(_) | EventKind::Unknown(_) => true,
        _ => false,
    }
}

fn text_hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.trim().hash(&mut h);
    h.finish()
}

impl<D: Document> Sink for Report<D> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        let note = s.note();
        let at = At {
            depth: note.depth,
            parent: ev.parent.as_deref(),
            agent: note.agent.as_deref(),
        };
        if !matches!(
            ev.kind,
            EventKind::Text(_) | EventKind::Delta(_) | EventKind::Usage(_)
        ) {
            self.flush_text()?;
        }
        if self.waiting.is_some() && !quiet(ev, self.waiting.as_ref()) {
            self.write_waiting()?;
        }
        match &ev.kind {
            EventKind::SessionStart(st) => self.header(st, ev.producer, s),
            EventKind::Text(t) => self.text(t, at),
            EventKind::Thinking(t) => {
                let c = cut(t.text.trim_matches('\n'), usize::MAX, MAX_TEXT_BYTES);
                let shown = !t.redacted && !c.text.trim().is_empty();
                self.doc.thinking(shown.then_some(&c), at)
            }
            EventKind::ToolCall(c) => self.call(c, s, at),
            EventKind::ToolResult(r) => self.output(r, s, at),
            EventKind::PermissionDenied(d) => self.denial(d, s, at),
            EventKind::Notice(n) if n.level >= Level::Info && !n.estimate => {
                if n.level == Level::Error {
                    self.last_error = Some(text_hash(&n.text));
                }
                let text = cut(&n.text, 50, MAX_OUTPUT_BYTES).text;
                let text = if text.trim().is_empty() {
                    Cow::Owned(one_line(&n.subtype, 100))
                } else {
                    text
                };
                self.doc.notice(
                    &Notice {
                        level: n.level,
                        text,
                    },
                    at,
                )
            }
            EventKind::PlainText(t) => self.doc.notice(
                &Notice {
                    level: Level::Info,
                    text: Cow::Owned(one_line(t, 2000)),
                },
                at,
            ),
            EventKind::Result(r) => self.result(r, s.note().turns),
            EventKind::Notice(_)
            | EventKind::Usage(_)
            | EventKind::Delta(_)
            | EventKind::Unknown(_) => Ok(()),
        }
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        self.flush_text()?;
        self.write_waiting()?;
        self.doc.finish(&Summary::from_session(s), s)?;
        self.doc.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.doc.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_cut_by_lines_and_bytes() {
        let text = (0..1000).fold(String::new(), |mut t, i| {
            let _ = std::fmt::Write::write_fmt(&mut t, format_args!("line {i}\n"));
            t
        });
        let c = cut(&text, 10, 1 << 20);
        assert_eq!(c.lines, 10);
        assert_eq!(c.more_lines, 990);
        assert!(c.text.ends_with("line 9"));
        assert!(c.note().unwrap().contains("990 more lines"));
        let c = cut("ééééé", 10, 5);
        assert_eq!(c.text, "éé");
        assert_eq!(c.more_bytes, 6);
        let c = cut("short\n", 10, 100);
        assert!(!c.is_cut());
        assert_eq!(c.text, "short");
        // Terminal escapes never pass.
        assert!(!cut("a\x1b]0;x\x07", 10, 100).text.contains('\x1b'));
    }
}
