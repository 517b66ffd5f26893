//! The human view: one line per tool call, the assistant's text, errors and
//! denials that are never hidden, and a summary line per result.
//!
//! Everything that comes from the agent or its tools goes through
//! [`sanitize`] first. Errors and denials are also mirrored to a second
//! writer (stderr) when asked: in quiet mode, and when stdout is not a
//! terminal, so `streamview > log 2> errors` separates them.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::{self, Write as _};
use std::hash::BuildHasher;
use std::io;
use std::sync::LazyLock;
use std::time::Duration;

use termcolor::WriteColor;

use super::lines::{Lines, Style, Styles, depth_width, paint, width, write_depth};
use super::sanitize::{sanitize, sanitize_line};
use super::summary::{Summary, write_table};

mod edits;
mod end;
mod streamed;
use super::{LineEnd, Sink, fmt_cost, fmt_count, fmt_duration, shown_key};
use crate::event::{
    DeltaKind, Denial, Event, EventKind, Level, Notice, Producer, Role, SessionResult,
    SessionStart, Text, Thinking, Tokens, ToolCall, ToolResult, Usage,
};
use crate::session::{Cost, Outcome, Session};
use end::{End, Part};
use streamed::Streamed;

/// How much to show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// Nothing on stdout; errors and denials on stderr.
    Quiet,
    /// Text, tool calls, errors, denials, notable notices, summaries.
    #[default]
    Normal,
    /// Also tool results, thinking, usage, every notice, full session details.
    Verbose,
}

/// Settings of the pretty sink.
#[derive(Clone, Debug)]
pub struct PrettyOptions {
    /// How much to show.
    pub verbosity: Verbosity,
    /// Lines of a tool result (or error text) to show before cutting.
    pub max_lines: usize,
    /// Also write errors and denials to the second writer.
    pub mirror_errors: bool,
}

impl Default for PrettyOptions {
    fn default() -> Self {
        PrettyOptions {
            verbosity: Verbosity::Normal,
            max_lines: 10,
            mirror_errors: false,
        }
    }
}

/// A tool whose result arrives this many seconds after its call is marked.
const LONG_RUNNING_SECS: u64 = 10;

/// A call as its result's line names it: the tool, its key argument, the
/// time it took.
type Call<'a> = (&'a str, Option<&'a str>, Option<Duration>);

/// A call's duration by arrival time, in milliseconds, when it is at least
/// `min_secs` (a replayed log arrives all at once: its durations mean
/// nothing).
fn took(elapsed: Option<Duration>, min_secs: u64) -> Option<u64> {
    let d = elapsed.filter(|d| d.as_secs() >= min_secs)?;
    Some(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Longest key argument shown on a tool line, in characters.
const MAX_KEY_CHARS: usize = 200;
/// Longest compact-JSON input shown for tools without a key argument.
const MAX_INPUT_CHARS: usize = 120;

/// Bytes of a word held back at most (see [`Pretty::delta`]): a longer run
/// of text without a space (a URL, an encoded blob) is no word to keep
/// whole.
const MAX_WORD: usize = 256;

/// Bytes of other agents' output parked at most under an open line of
/// streamed text (see [`Pretty::parks`]): beyond, the line is cut.
const MAX_PARKED: usize = 64 << 10;

/// Sub-agents' texts remembered to tell a report repeated as its call's
/// answer (see [`Pretty::agent_texts`]).
const MAX_AGENT_TEXTS: usize = 1024;

/// The pretty sink: `W` is stdout, `E` is where errors are mirrored (stderr).
pub struct Pretty<W: WriteColor, E: WriteColor> {
    out: W,
    err: E,
    opts: PrettyOptions,
    st: Styles,
    /// The output being composed for the current event (see [`Lines`]).
    lines: Lines,
    /// Hashes of the main agent's texts shown in this session: a result
    /// repeats the last one, and is printed only when it was not shown.
    shown_texts: HashSet<u64>,
    /// Hashes of the texts sub-agents said (at most [`MAX_AGENT_TEXTS`]):
    /// an agent call's answer that repeats its report is not shown again.
    agent_texts: HashSet<u64>,
    /// The hash of the last error text shown (see [`text_hash`]): the
    /// error result usually repeats it.
    last_error: Option<u64>,
    /// Add the summary tables at the end (`--summary`).
    summary: bool,
    /// The text (or thinking) block being printed fragment by fragment,
    /// kept until the complete block that repeats it arrives (which is then
    /// not printed again).
    stream: Option<Stream>,
    /// The keys of the streamed blocks' digests (random per process).
    stream_keys: std::hash::RandomState,
    /// Dim lines held back while a tool call's line is open, printed once
    /// it is complete.
    held: Lines,
    /// Other agents' output written while a line of the text streaming
    /// above them is open (a background sub-agent's line between two
    /// fragments of the main agent's text), printed once that line ends:
    /// the text stays whole ([`Pretty::parks`]).
    parked: Option<termcolor::Buffer>,
    /// Where a tool's output is unescaped to be shown.
    scratch: String,
    /// The end of streamed text after its last space: the start of a word
    /// whose rest has not come yet (see [`Pretty::delta`]).
    word: String,
    /// Diffs the changes of edit tools (its memory reused).
    differ: super::diff::Differ,
    /// The session's end, held until the input pauses (see [`end`]).
    end: End,
    /// Which alerts are written (see [`Alerts`]).
    alerts: Alerts,
    /// Tool errors not shown (counted for [`Alerts::Brief`]).
    unshown_errors: u64,
    /// The last event was an estimate ([`Notice::estimate`]): the next
    /// updates of it are not shown.
    estimate_noted: bool,
    /// The session of the input that just ended was said to be incomplete
    /// ([`Sink::input_end`]): not again at the end of the run.
    said_incomplete: bool,
    /// The alert channel of another sink ([`Pretty::alerts_only`]), which
    /// says how a session ended.
    alerts_only: bool,
    /// Alerts on stderr begin with the file they come from (the alert
    /// channel of a report over a library): `Some`, the one being read.
    source: Option<String>,
    /// The call whose line was shown last (its id's hash), until a result:
    /// a result that does not answer it names its own call.
    last_call: Option<u64>,
    /// The width of the terminal that is stdout, asked before each write
    /// (it can be resized); `None` when stdout is not a terminal.
    width: Option<Box<dyn Fn() -> Option<usize>>>,
}

impl<E: WriteColor> Pretty<termcolor::NoColor<io::Sink>, E> {
    /// A sink that writes nothing but errors and permission denials, to
    /// `err`, as quiet mode does: the alert channel of the formats whose
    /// stdout carries something else (a filtered view, a result, a summary).
    pub fn alerts_only(err: E, max_lines: usize) -> Self {
        let mut p = Pretty::new(
            termcolor::NoColor::new(io::sink()),
            err,
            PrettyOptions {
                verbosity: Verbosity::Quiet,
                max_lines,
                mirror_errors: true,
            },
        );
        p.alerts_only = true;
        p
    }
}

/// Which alerts a sink writes on stderr when it is the alert channel of a
/// format whose stdout carries data (see [`Pretty::alerts_only`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Alerts {
    /// Every tool error, denial and failed session.
    #[default]
    All,
    /// Failed sessions and denials; the tool errors as one count at the
    /// end (`--format result`).
    Brief,
    /// Failed sessions only.
    Sessions,
    /// Failed and incomplete sessions as one count at the end (a report:
    /// its tables say which; `--errors stderr` lists them).
    Counted,
    /// Nothing (`--errors never`).
    Nothing,
}

/// Where a piece of output goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum To {
    /// stdout only (nothing in quiet mode).
    Out,
    /// An error or denial: stdout, plus stderr when mirroring (or quiet).
    Alert,
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    /// A pretty sink writing to `out`, mirroring errors to `err`.
    pub fn new(out: W, err: E, opts: PrettyOptions) -> Self {
        Pretty {
            out,
            err,
            opts,
            st: Styles::new(),
            lines: Lines::default(),
            shown_texts: HashSet::new(),
            agent_texts: HashSet::new(),
            last_error: None,
            summary: false,
            stream: None,
            stream_keys: std::hash::RandomState::new(),
            held: Lines::default(),
            parked: None,
            scratch: String::new(),
            word: String::new(),
            differ: super::diff::Differ::new(),
            end: End::default(),
            alerts: Alerts::All,
            unshown_errors: 0,
            estimate_noted: false,
            said_incomplete: false,
            alerts_only: false,
            source: None,
            last_call: None,
            width: None,
        }
    }

    /// Stdout is a terminal whose width `width` gives: nested lines and
    /// indented bodies wider than it are wrapped by the sink, keeping their
    /// bars and indentation (see `Lines::write_wrapped`).
    #[must_use]
    pub fn with_width(mut self, width: Box<dyn Fn() -> Option<usize>>) -> Self {
        self.width = Some(width);
        self
    }

    /// Draw in `theme`'s colours (`--theme`; the default theme's without).
    #[must_use]
    pub fn with_theme(mut self, theme: &super::theme::Theme) -> Self {
        self.st = Styles::of(theme);
        self
    }

    /// The terminal's width now, when stdout is one.
    fn cols(&self) -> Option<usize> {
        self.width.as_ref().and_then(|w| w())
    }

    /// Add the summary tables at the end (`--summary`): on stdout, or on
    /// stderr in quiet mode.
    #[must_use]
    pub fn with_summary(mut self, on: bool) -> Self {
        self.summary = on;
        self
    }

    /// Write only these alerts (see [`Alerts`]).
    #[must_use]
    pub fn with_alerts(mut self, alerts: Alerts) -> Self {
        self.alerts = alerts;
        self
    }

    /// Begin each alert on stderr with the file it comes from (`on`: the
    /// inputs are a library, or several files).
    #[must_use]
    pub fn naming_sources(mut self, on: bool) -> Self {
        self.source = on.then(String::new);
        self
    }

    /// Remember the file `s` reads, when alerts name it.
    fn note_source(&mut self, s: &Session) {
        if let (Some(mine), Some(now)) = (self.source.as_mut(), s.source())
            && mine != now
        {
            now.clone_into(mine);
        }
    }

    /// Give back the writers.
    pub fn into_inner(self) -> (W, E) {
        (self.out, self.err)
    }

    fn verbose(&self) -> bool {
        self.opts.verbosity == Verbosity::Verbose
    }

    fn quiet(&self) -> bool {
        self.opts.verbosity == Verbosity::Quiet
    }

    /// Start composing the output of an event.
    fn compose(&mut self) -> &mut Lines {
        self.lines.clear();
        &mut self.lines
    }

    /// Write the lines composed to the targets of `to`.
    fn emit(&mut self, to: To) -> io::Result<()> {
        self.end.last = false;
        if self.parks() {
            let cols = self.cols();
            let color = self.out.supports_color();
            let buf = (self.parked).get_or_insert_with(|| {
                if color {
                    termcolor::Buffer::ansi()
                } else {
                    termcolor::Buffer::no_color()
                }
            });
            self.lines.write_wrapped(buf, &self.st, 0, cols)?;
        } else {
            if self.parks_over_bound() {
                // Too much waits under the open line: it is cut, visibly,
                // between two words.
                self.cut_stream_line(true)?;
            } else {
                self.end_stream_line()?;
            }
            if !self.quiet() {
                let cols = self.cols();
                self.lines.write_wrapped(&mut self.out, &self.st, 0, cols)?;
            }
        }
        if to == To::Alert
            && (self.quiet() || self.opts.mirror_errors)
            && !matches!(self.alerts, Alerts::Nothing | Alerts::Counted)
        {
            // stdout first, so the two streams stay in order on a terminal.
            self.out.flush()?;
            // Errors writing to stderr are not worth dying for.
            if let Some(name) = self.source.as_deref().filter(|n| !n.is_empty()) {
                let _ = self
                    .err
                    .write_all(format!("{}: ", sanitize_line(name)).as_bytes());
            }
            let _ = self.lines.write(&mut self.err, &self.st, 0);
            let _ = self.err.flush();
        }
        Ok(())
    }

    fn session_start(
        &mut self,
        st: &SessionStart<'_>,
        producer: Producer,
        s: &Session,
    ) -> io::Result<()> {
        let note = s.note();
        if note.new_session {
            if note.previous_incomplete {
                self.incomplete_previous()?;
            }
            self.shown_texts.clear();
            self.last_error = None;
            self.end.reset();
        } else {
            if note.header_changed {
                let l = self.compose();
                l.push(Style::Header, "● ");
                l.push(Style::Plain, "model ");
                l.sanitized(Style::Plain, st.model.as_deref().unwrap_or("?"));
                l.push(Style::Plain, " · permission mode ");
                l.sanitized(Style::Plain, st.permission_mode.as_deref().unwrap_or("?"));
                l.end(0);
                return self.emit(To::Out);
            }
            if self.verbose() {
                self.compose().push(Style::Dim, "· new turn");
                self.lines.end(0);
                return self.emit(To::Out);
            }
            return Ok(());
        }
        let verbose = self.verbose();
        let l = self.compose();
        l.push(Style::Header, "● ");
        match st.model.as_deref() {
            Some(m) => l.sanitized(Style::Header, m),
            // Some producers (Codex) do not say which model runs.
            None => l.push(Style::Header, producer.label()),
        }
        if let Some(m) = &st.agent_mode {
            l.push(Style::Plain, " (mode ");
            l.sanitized(Style::Plain, m);
            l.push(Style::Plain, ")");
        }
        if let Some(cwd) = &st.cwd {
            l.push(Style::Plain, " in ");
            l.sanitized(Style::Plain, cwd);
        }
        if !st.tools.is_empty() {
            l.push(Style::Dim, " · ");
            plural(l, Style::Dim, st.tools.len() as u64, "tool", "tools");
        }
        if !st.mcp_servers.is_empty() {
            l.push(Style::Dim, " · MCP:");
            for m in &st.mcp_servers {
                let bad = !matches!(m.status.as_ref(), "connected" | "pending");
                let style = if bad { Style::Error } else { Style::Plain };
                l.push(style, " ");
                l.sanitized(style, &m.name);
                if bad {
                    l.push(style, " (");
                    l.sanitized(style, &m.status);
                    l.push(style, ")");
                }
            }
        }
        l.end(0);
        if verbose {
            session_details(l, st, producer, s);
        }
        // A failed MCP server is an error the user must see.
        let failed = st.mcp_servers.iter().any(|m| m.status == "failed");
        self.emit(if failed { To::Alert } else { To::Out })
    }

    fn tool_call(&mut self, c: &ToolCall<'_>, s: &Session, depth: usize) -> io::Result<()> {
        self.last_call = Some(text_hash(&c.id));
        let key = c.key_arg.as_deref().map(|k| shown_key(k, c.kind, s.cwd()));
        // Counted only when the call changes files: the default view pays
        // for the `+12 −3`, `-v` for the diff.
        let stat = super::diff::stat(&c.changes);
        let verbose = self.verbose();
        let l = self.compose();
        l.push(Style::Tool, "▸ ");
        l.tool_name(Style::Tool, &c.name);
        match key {
            Some(k) if !k.is_empty() => {
                l.push(Style::Plain, " ");
                l.one_line(Style::Key, k, MAX_KEY_CHARS);
            }
            _ if c.todos.is_empty() && c.questions.is_empty() => {
                let input = c.input.text();
                if input.len() > 2 {
                    l.push(Style::Dim, " ");
                    l.one_line(Style::Dim, &input, MAX_INPUT_CHARS);
                }
            }
            _ => {}
        }
        // With `-v`, a result that reports the changes made counts them
        // (`⎿ +3 −3`): the call's line does not say another number.
        if let Some(stat) = stat.filter(|_| !(verbose && c.changes_in_result)) {
            edits::stat(l, stat);
        }
        // A long command wraps under itself, after `▸ `.
        l.end_hanging(depth, 2);
        for t in &c.todos {
            let mark = match t.status.as_ref() {
                "completed" => "☑",
                "in_progress" => "◐",
                _ => "☐",
            };
            let style = if t.status == "completed" {
                Style::Dim
            } else {
                Style::Plain
            };
            l.fmt(style, format_args!("    {mark} "));
            l.one_line(style, &t.content, MAX_KEY_CHARS);
            l.end(depth);
        }
        for q in &c.questions {
            l.push(Style::Plain, "    ? ");
            l.one_line(Style::Plain, &q.question, MAX_KEY_CHARS);
            l.end(depth);
            for o in &q.options {
                l.push(Style::Dim, "      - ");
                l.one_line(Style::Dim, o, MAX_KEY_CHARS);
                l.end(depth);
            }
        }
        // A result that reports the changes made shows their diff instead.
        if self.verbose() && stat.is_some() && !c.changes_in_result {
            let max_lines = self.opts.max_lines;
            edits::diff(
                &mut self.lines,
                &mut self.differ,
                &c.changes,
                max_lines,
                depth,
            );
        }
        // Its start was shown (`▸ Name`) and nothing came in between: finish
        // that line.
        if self.tool_started(depth) && self.stream.as_ref().is_some_and(|st| st.seen.is(&c.name)) {
            self.drop_stream();
            // The spans after `▸ ` and the name.
            let head = self.lines.spans_of(0).min(2);
            self.lines.write_rest_of(&mut self.out, &self.st, 0, head)?;
            let cols = self.cols();
            self.lines.write_wrapped(&mut self.out, &self.st, 1, cols)?;
            return self.write_held();
        }
        self.emit(To::Out)
    }

    fn tool_result(&mut self, r: &ToolResult<'_>, s: &Session, depth: usize) -> io::Result<()> {
        let note = s.note();
        let tool = note.tool.as_deref().unwrap_or("tool");
        let key = (note.key_arg.as_deref())
            .map(|k| shown_key(k, note.tool_kind.unwrap_or_default(), s.cwd()));
        if note.denied {
            // A denial: its `⊘` line was shown, or the permission_denied
            // event that follows says it better.
            return Ok(());
        }
        if r.is_error && !matches!(self.alerts, Alerts::All) {
            self.unshown_errors += 1;
            return Ok(());
        }
        let call = (tool, key, note.elapsed);
        if r.is_error {
            return self.failed_result(r, call, depth);
        }
        if !r.answers.is_empty() {
            return self.answers(r, depth);
        }
        let agent = crate::event::is_subagent_tool(tool);
        if agent || self.verbose() {
            return self.shown_result(r, call, agent, depth);
        }
        // Successful results are not shown by default, but a long-running
        // tool is worth a mark.
        match took(note.elapsed, LONG_RUNNING_SECS) {
            Some(ms) => self.long_running(ms, tool, key, depth),
            None => Ok(()),
        }
    }

    /// A failed call's `✗` line and its error text, an alert.
    fn failed_result(
        &mut self,
        r: &ToolResult<'_>,
        call: Call<'_>,
        depth: usize,
    ) -> io::Result<()> {
        let (tool, key, elapsed) = call;
        let max_lines = self.opts.max_lines;
        let text = strip_tool_error(r.content.text_with(&mut self.scratch));
        self.lines.clear();
        let l = &mut self.lines;
        l.push(Style::Error, "✗ ");
        l.tool_name(Style::Error, tool);
        if let Some(k) = key {
            l.push(Style::Plain, " ");
            l.one_line(Style::Key, k, 80);
        }
        l.push(Style::Error, " failed");
        if let Some(ms) = took(elapsed, 1) {
            l.push(Style::Dim, " after ");
            fmt_duration(l.text(), ms);
            l.close(Style::Dim);
        }
        l.end(depth);
        body(l, text, Style::Error, max_lines, depth);
        self.last_error = Some(text_hash(text));
        self.emit(To::Alert)
    }

    /// The human's answers to the call's questions: shown by default, like
    /// a prompt (they replace the result's text, which only repeats them).
    fn answers(&mut self, r: &ToolResult<'_>, depth: usize) -> io::Result<()> {
        self.last_call = None;
        let l = self.compose();
        for a in &r.answers {
            l.push(Style::Dim, "› ");
            l.one_line(Style::Dim, &a.question, MAX_KEY_CHARS);
            l.push(Style::Dim, " → ");
            l.one_line(Style::Plain, &a.answer, MAX_KEY_CHARS);
            l.end(depth);
        }
        self.emit(To::Out)
    }

    /// A result shown: a sub-agent's answer (only here, so shown by
    /// default), or any result with `-v`.
    fn shown_result(
        &mut self,
        r: &ToolResult<'_>,
        call: Call<'_>,
        agent: bool,
        depth: usize,
    ) -> io::Result<()> {
        let (tool, key, elapsed) = call;
        let max_lines = self.opts.max_lines;
        let mut text = r.content.text_with(&mut self.scratch);
        self.lines.clear();
        let l = &mut self.lines;
        // A result that does not follow its own call's line (calls
        // made in parallel) says which call it answers.
        let follows_call = std::mem::take(&mut self.last_call) == Some(text_hash(&r.id));
        if !agent && !follows_call {
            l.push(Style::Dim, "◂ ");
            l.tool_name(Style::Dim, tool);
            if let Some(k) = key {
                l.push(Style::Dim, " ");
                l.one_line(Style::Dim, k, 80);
            }
            l.end(depth);
        }
        if agent {
            text = super::agent_answer(text);
            l.push(Style::Tool, "◂ ");
            l.tool_name(Style::Tool, tool);
            if let Some(k) = key {
                l.push(Style::Plain, " ");
                l.one_line(Style::Key, k, 80);
            }
            l.end(depth);
        }
        let head = l.count();
        if agent && self.agent_texts.contains(&text_hash(text.trim())) {
            // The sub-agent's report, shown in its block just above.
            l.push(Style::Dim, "  ⎿ (its report, above)");
            l.end(depth);
        } else if r.changes.is_empty() {
            body(l, text, Style::Result, max_lines, depth);
        } else {
            // What was done, counted (the call's line counts what was
            // asked), and its diff: they say more than its message.
            if let Some(stat) = super::diff::stat(&r.changes) {
                l.push(Style::Dim, "  ⎿");
                edits::stat(l, stat);
                l.end(depth);
            }
            edits::diff(l, &mut self.differ, &r.changes, max_lines, depth);
        }
        if l.count() <= head {
            l.push(Style::Dim, "  ⎿ (no output)");
            l.end(depth);
        }
        if let Some(ms) = took(elapsed, 1) {
            l.push(Style::Dim, "    took ");
            fmt_duration(l.text(), ms);
            l.close(Style::Dim);
            l.end(depth);
        }
        self.emit(To::Out)
    }

    /// The mark of a successful call that took `ms`, long.
    fn long_running(
        &mut self,
        ms: u64,
        tool: &str,
        key: Option<&str>,
        depth: usize,
    ) -> io::Result<()> {
        let l = self.compose();
        l.push(Style::Dim, "  ⎿ ");
        l.push(Style::Warn, "long-running: ");
        l.tool_name(Style::Warn, tool);
        l.push(Style::Warn, " took ");
        fmt_duration(l.text(), ms);
        l.close(Style::Warn);
        if let Some(k) = key {
            l.push(Style::Dim, " (");
            l.one_line(Style::Dim, k, 60);
            l.push(Style::Dim, ")");
        }
        l.end(depth);
        self.emit(To::Out)
    }

    fn denial(&mut self, d: &Denial<'_>, s: &Session, depth: usize) -> io::Result<()> {
        let note = s.note();
        if note.duplicate
            || matches!(
                self.alerts,
                Alerts::Sessions | Alerts::Nothing | Alerts::Counted
            )
        {
            return Ok(());
        }
        let tool = note.tool.as_deref().or(d.tool.as_deref()).unwrap_or("tool");
        let l = self.compose();
        l.push(Style::Denied, "⊘ permission denied: ");
        l.tool_name(Style::Denied, tool);
        let kind = note.tool_kind.unwrap_or_default();
        let key = note.key_arg.as_deref().or(d.key_arg.as_deref());
        if let Some(k) = key.map(|k| shown_key(k, kind, s.cwd())) {
            l.push(Style::Plain, " ");
            l.one_line(Style::Key, k, MAX_KEY_CHARS);
        }
        l.end(depth);
        if let Some(m) = d
            .message
            .as_deref()
            .map(strip_tool_error)
            .filter(|m| !m.is_empty())
        {
            l.push(Style::Dim, "  ⎿ ");
            l.one_line(Style::Dim, m, 300);
            l.end(depth);
        }
        self.emit(To::Alert)
    }

    fn notice(&mut self, n: &Notice<'_>, depth: usize) -> io::Result<()> {
        // One "thinking… ~N tokens" per thinking block, not one per update.
        let again = std::mem::replace(&mut self.estimate_noted, n.estimate);
        if n.estimate && again {
            return Ok(());
        }
        let (style, mark, to) = match n.level {
            Level::Debug if !self.verbose() => return Ok(()),
            // Bookkeeping (thinking token estimates, status) would cut a
            // streamed line in the middle of a word.
            Level::Debug if self.streaming() => return Ok(()),
            Level::Debug | Level::Info => (Style::Dim, "· ", To::Out),
            Level::Warning => (Style::Warn, "! ", To::Out),
            Level::Error => (Style::Error, "✗ ", To::Alert),
        };
        if n.level == Level::Error {
            self.last_error = Some(text_hash(&n.text));
        }
        let text = sanitize(&n.text);
        let l = self.compose();
        for (i, line) in text.lines().enumerate() {
            l.push(style, if i == 0 { mark } else { "  " });
            l.push(style, line);
            l.end(depth);
        }
        if l.is_empty() {
            l.push(style, mark);
            l.sanitized(style, &n.subtype);
            l.end(depth);
        }
        self.emit(to)
    }

    fn result(&mut self, r: &SessionResult<'_>, s: &Session) -> io::Result<()> {
        let r = &*counted_turns(r, s);
        let repeat = r.is_error
            || r.text
                .as_deref()
                .is_none_or(|t| t.trim().is_empty() || self.shown_texts.contains(&text_hash(t)));
        if !repeat && let Some(t) = r.text.as_deref() {
            // The result repeats the last text; show it only when it was not shown.
            let l = self.compose();
            for line in sanitize(t).trim_matches('\n').lines() {
                l.push(Style::Plain, line);
                l.end(0);
            }
            self.emit(To::Out)?;
        }
        // The reasons of a failure, unless the API error notice just said it.
        let reasons = r.text.as_deref().filter(|_| r.is_error).into_iter();
        let errors = r.errors.iter().map(AsRef::as_ref).filter(|_| r.is_error);
        let reasons = reasons
            .chain(errors)
            .filter(|m| !m.trim().is_empty() && self.last_error != Some(text_hash(m)))
            .map(str::to_string)
            .collect();
        let part = Part::of(r, reasons);
        let verbose = self.verbose();
        let cols = self.cols();
        self.lines.clear();
        let l = &mut self.lines;
        let n = self.end.count();
        // The end was written, and nothing since: this part goes under it.
        let under =
            n > 0 && self.end.last && !self.end.is_held() && (self.end.failed || !r.is_error);
        match n {
            0 => {
                end_line(l, r, &part.reasons, self.opts.verbosity, s, cols);
                self.end.failed = r.is_error;
            }
            _ if under => part.write(l, n, cols),
            _ => {}
        }
        self.end.push(part);
        if n > 0 && !under {
            let no_reasons: &[String] = &[];
            let totals = session_totals(s);
            end_line(l, &totals, no_reasons, self.opts.verbosity, s, cols);
            self.end.failed = totals.is_error;
            self.end.write_parts(l, cols);
        }
        let unanswered = &s.note().unanswered;
        for (name, kind, key) in unanswered.iter().take(MAX_LISTED) {
            l.push(Style::Warn, "  ⎿ never answered: ");
            l.tool_name(Style::Warn, name);
            if let Some(k) = key.as_deref().map(|k| shown_key(k, *kind, s.cwd())) {
                l.push(Style::Warn, " ");
                l.one_line(Style::Warn, k, 80);
            }
            l.end(0);
        }
        let more =
            unanswered.len().saturating_sub(MAX_LISTED) as u64 + s.note().unanswered_forgotten;
        if more > 0 {
            l.fmt(
                Style::Warn,
                format_args!(
                    "  ⎿ … and {} never answered",
                    Counted(more, "more call", "more calls")
                ),
            );
            l.end(0);
        }
        if verbose {
            result_details(l, r, s);
        }
        let to = if r.is_error { To::Alert } else { To::Out };
        self.end.hold(&mut self.lines, to);
        if s.note().more_results {
            // Turns that began are still to report: their results join
            // this end.
            return Ok(());
        }
        self.write_end()
    }

    /// Write the end held (see [`end`]).
    fn write_end(&mut self) -> io::Result<()> {
        let Some(to) = self.end.to.take() else {
            return Ok(());
        };
        std::mem::swap(&mut self.lines, &mut self.end.lines);
        self.emit(to)?;
        self.end.last = true;
        Ok(())
    }

    fn incomplete(&mut self, s: &Session) -> io::Result<()> {
        let head = if s.is_interrupted() {
            "✗ interrupted (Ctrl-C) before a result"
        } else {
            "✗ stream ended without a result"
        };
        let l = self.compose();
        l.push(Style::Error, head);
        l.end(0);
        // Once, at the end: the calls in a stable order.
        let mut open: Vec<_> = s.unanswered_calls().collect();
        open.sort_by(|a, b| a.0.cmp(b.0));
        let more = open.len().saturating_sub(MAX_LISTED);
        // Paths as the calls' lines showed them: relative to the session's
        // folder (closed by now, at the end of the input).
        let cwd = (s.cwd()).or_else(|| s.last_finished().and_then(|x| x.cwd.as_deref()));
        for (_, c) in open.into_iter().take(MAX_LISTED) {
            l.push(Style::Warn, "  interrupted: ");
            l.tool_name(Style::Warn, &c.name);
            if let Some(k) = c.key_arg.as_deref().map(|k| shown_key(k, c.kind, cwd)) {
                l.push(Style::Warn, " ");
                l.one_line(Style::Warn, k, 80);
            }
            l.end(0);
        }
        let more = more as u64 + s.current().map_or(0, |c| c.forgotten_calls);
        if more > 0 {
            l.fmt(
                Style::Warn,
                format_args!(
                    "  … and {} interrupted",
                    Counted(more, "more call", "more calls")
                ),
            );
            l.end(0);
        }
        if let Some(cur) = s.current() {
            let t = l.text();
            let from = t.len();
            t.push_str("  so far: ");
            let stats = t.len();
            let sep = |t: &mut String| {
                if t.len() > stats {
                    t.push_str(" · ");
                }
            };
            if cur.messages > 0 {
                let _ = write!(
                    t,
                    "{}",
                    Counted(cur.messages, "API response", "API responses")
                );
            }
            if cur.tool_calls > 0 {
                sep(t);
                let _ = write!(t, "{}", Counted(cur.tool_calls, "tool call", "tool calls"));
            }
            if !cur.message_tokens.is_empty() {
                sep(t);
                // Output counts before the result are preliminary: input only.
                let tokens = Tokens {
                    output: None,
                    ..cur.message_tokens
                };
                let at = t.len();
                fmt_tokens(t, at, &tokens);
            }
            if t.len() > stats {
                l.close(Style::Dim);
                l.end(0);
            } else {
                t.truncate(from);
            }
        }
        self.emit(To::Alert)
    }

    fn text(&mut self, t: &Text<'_>, depth: usize) -> io::Result<()> {
        if t.role == Role::User {
            return self.prompt(t, depth);
        }
        let style = if t.role == Role::User {
            Style::Dim
        } else {
            Style::Plain
        };
        if depth == 0 && t.role == Role::Assistant {
            self.shown_texts.insert(text_hash(&t.text));
        } else if t.role == Role::Assistant && !self.quiet() {
            if self.agent_texts.len() >= MAX_AGENT_TEXTS {
                self.agent_texts.clear();
            }
            self.agent_texts.insert(text_hash(t.text.trim()));
        }
        if t.role == Role::Assistant
            && self.was_streamed(DeltaKind::Text, &t.text, depth, t.continues)?
        {
            // Already shown fragment by fragment.
            return Ok(());
        }
        let text = sanitize(&t.text);
        let text = text.trim_matches('\n');
        if text.is_empty() {
            return Ok(());
        }
        let l = self.compose();
        for (i, line) in text.lines().enumerate() {
            if t.role == Role::User && i == 0 {
                l.push(style, "› ");
            }
            l.push(style, line);
            l.end(depth);
        }
        self.emit(To::Out)
    }

    /// A prompt (the human's, a transcript's, a sub-agent's): by default
    /// the first line of the main agent's, with `-v` all of every one; a
    /// slash command as it was typed (`/clear`).
    fn prompt(&mut self, t: &Text<'_>, depth: usize) -> io::Result<()> {
        let verbose = self.verbose();
        if depth > 0 && !verbose {
            return Ok(());
        }
        let text = sanitize(t.command.as_deref().unwrap_or(&t.text));
        let text = text.trim_matches('\n');
        if text.trim().is_empty() {
            return Ok(());
        }
        let l = self.compose();
        let total = line_total(text);
        let shown = if verbose { total } else { 1 };
        for (i, line) in text.lines().take(shown).enumerate() {
            let mark = match i {
                0 => "› ",
                _ if line.is_empty() => "",
                _ => "  ",
            };
            l.push(Style::Dim, mark);
            l.push(Style::Dim, line);
            if i + 1 == shown && shown < total {
                l.fmt(Style::Dim, format_args!(" (+{} lines)", total - shown));
            }
            l.end(depth);
        }
        self.emit(To::Out)
    }

    fn thinking(&mut self, t: &Thinking<'_>, depth: usize) -> io::Result<()> {
        if !self.verbose() {
            return Ok(());
        }
        if !t.redacted && self.was_streamed(DeltaKind::Thinking, &t.text, depth, false)? {
            return Ok(());
        }
        let text = if t.redacted || t.text.trim().is_empty() {
            Cow::Borrowed("[redacted thinking]")
        } else {
            sanitize(&t.text)
        };
        let l = self.compose();
        for (i, line) in text.trim_matches('\n').lines().enumerate() {
            l.push(Style::Thinking, if i == 0 { "✻ " } else { "  " });
            l.push(Style::Thinking, line);
            l.end(depth);
        }
        self.emit(To::Out)
    }

    fn usage(&mut self, u: &Usage<'_>, depth: usize) -> io::Result<()> {
        if !self.verbose() {
            return Ok(());
        }
        // The message's usage comes with the call it is about: not in the
        // middle of the call's line.
        let held = self.tool_started(depth);
        let l = if held { &mut self.held } else { self.compose() };
        let t = l.text();
        t.push_str("· API call: ");
        // Output counts that are preliminary (Claude Code repeats the
        // message_start usage on each line): the input side only.
        let tokens = Tokens {
            output: if u.preliminary_output {
                None
            } else {
                u.tokens.output
            },
            ..u.tokens
        };
        let at = t.len();
        fmt_tokens(t, at, &tokens);
        l.close(Style::Dim);
        if let Some(m) = &u.model {
            l.push(Style::Dim, " (");
            l.sanitized(Style::Dim, m);
            l.push(Style::Dim, ")");
        }
        l.end(depth);
        if held {
            return Ok(());
        }
        self.emit(To::Out)
    }
}

/// The verbose lines under a session's header: versions, modes, ids and
/// what the session offers.
fn session_details(l: &mut Lines, st: &SessionStart<'_>, producer: Producer, s: &Session) {
    l.push(Style::Dim, "  ");
    if let Some(v) = &st.version {
        l.push(Style::Dim, producer.label());
        l.push(Style::Dim, " ");
        l.sanitized(Style::Dim, v);
        l.push(Style::Dim, " · ");
    }
    if let Some(m) = &st.permission_mode {
        l.push(Style::Dim, "permission mode ");
        l.sanitized(Style::Dim, m);
        l.push(Style::Dim, " · ");
    }
    if let Some(k) = &st.api_key_source {
        l.push(Style::Dim, "API key from ");
        l.sanitized(Style::Dim, k);
        l.push(Style::Dim, " · ");
    }
    l.push(Style::Dim, "session ");
    l.sanitized(
        Style::Dim,
        s.current().and_then(|c| c.id.as_deref()).unwrap_or("?"),
    );
    l.end(0);
    for (label, list) in [
        ("tools", &st.tools),
        ("agents", &st.agents),
        ("skills", &st.skills),
        ("slash commands", &st.slash_commands),
    ] {
        if !list.is_empty() {
            l.fmt(Style::Dim, format_args!("  {label}: "));
            for (i, t) in list.iter().enumerate() {
                if i > 0 {
                    l.push(Style::Dim, ", ");
                }
                l.sanitized(Style::Dim, t);
            }
            l.end(0);
        }
    }
}

/// ` · 3 turns · 1.2s · $0.05 · 3.7k in / 166 out`: what a result line
/// says after its outcome, as one span.
/// `✓ done · …` or `✗ session failed (why) · …`, and the reasons of a
/// failure under it.
fn end_line(
    l: &mut Lines,
    r: &SessionResult<'_>,
    reasons: &[String],
    verbosity: Verbosity,
    s: &Session,
    cols: Option<usize>,
) {
    if r.is_error {
        l.push(Style::Error, "✗ ");
        l.push(Style::Error, "session failed");
        if let Some(st) = r.api_error_status {
            l.fmt(Style::Error, format_args!(" (API error {st})"));
        } else if let Some(sub) = r.subtype.as_deref().filter(|s| {
            // These say nothing about why (a result rebuilt at the end
            // of the input is not a failure *because* the input ended).
            !matches!(*s, "success" | "error" | "end_of_input" | "transcript_end")
        }) {
            l.push(Style::Error, " (");
            l.sanitized(Style::Error, sub);
            l.push(Style::Error, ")");
        }
    } else {
        l.push(Style::Ok, "✓ ");
        l.push(Style::Ok, "done");
    }
    // No cost reported: the session's, estimated from the price table.
    let estimate = (r.cost_usd.is_none())
        .then(|| s.current().map(|c| c.cost(s.prices())))
        .flatten()
        .filter(|c| c.estimated);
    let stats = Stats {
        estimate,
        verbose: verbosity == Verbosity::Verbose,
        whole: with_agents(r, s),
        shed: 0,
    };
    fit(l, cols, |l, shed| {
        result_stats(l, r, &Stats { shed, ..stats });
    });
    l.end(0);
    for m in reasons {
        l.push(Style::Error, "  ⎿ ");
        l.one_line(Style::Error, m, 500);
        l.end(0);
    }
}

/// The session's results added up: turns and durations summed (each
/// result reports its own turn's), the last cost (each reports the
/// session's so far), the worst outcome.
fn session_totals(s: &Session) -> SessionResult<'static> {
    let Some(cur) = s.current() else {
        return SessionResult::default();
    };
    SessionResult {
        is_error: cur.outcome == Some(Outcome::Error),
        num_turns: cur.total_turns,
        duration_ms: cur.total_duration_ms,
        cost_usd: cur.cost_usd,
        tokens: cur.total_result_tokens,
        ..SessionResult::default()
    }
}

/// What an end line says besides the result's own numbers.
#[derive(Clone, Copy)]
struct Stats {
    /// The session's cost estimated, when none was reported.
    estimate: Option<Cost>,
    verbose: bool,
    /// The whole session's tokens, sub-agents' included, when sub-agents
    /// ran (the result's are the main agent's: [`with_agents`]).
    whole: Option<Tokens>,
    /// How many of the parts that matter least are left out, to fit a
    /// narrow terminal: the cache share, the turns, the duration.
    shed: usize,
}

impl Stats {
    /// The numbers of the result alone, all of them.
    const PLAIN: Stats = Stats {
        estimate: None,
        verbose: false,
        whole: None,
        shed: 0,
    };
}

/// The rest of a line composed by `compose` given how many parts it
/// leaves out ([`Stats::shed`]): on a terminal `cols` wide, what matters
/// least goes first until the line fits (what is left wraps between words).
fn fit(l: &mut Lines, cols: Option<usize>, mut compose: impl FnMut(&mut Lines, usize)) {
    let mark = l.mark();
    for shed in 0..=SHED {
        l.truncate(mark);
        compose(l, shed);
        if cols.is_none_or(|c| l.open_width() <= c) {
            break;
        }
    }
}

/// Parts an end line can leave out ([`Stats::shed`]).
const SHED: usize = 3;

/// The session's tokens with its sub-agents', when sub-agents ran and the
/// result counts other tokens (Claude Code's result counts the main
/// agent's; the session's totals, as the summary shows them, every agent's).
fn with_agents(r: &SessionResult<'_>, s: &Session) -> Option<Tokens> {
    let cur = s.current()?;
    let ran = (&cur.tools)
        .into_iter()
        .any(|t| t.kind == crate::event::ToolKind::Agent);
    let whole = cur.tokens();
    (ran && !r.tokens.is_empty() && !whole.is_empty() && whole != r.tokens).then_some(whole)
}

fn result_stats(l: &mut Lines, r: &SessionResult<'_>, stats: &Stats) {
    let t = l.text();
    if let Some(n) = r.num_turns.filter(|_| stats.shed < 2) {
        let _ = write!(t, " · {}", Counted(n, "turn", "turns"));
    }
    if let Some(ms) = r.duration_ms.filter(|_| stats.shed < 3) {
        t.push_str(" · ");
        fmt_duration(t, ms);
        if let (true, Some(api)) = (stats.verbose, r.duration_api_ms) {
            t.push_str(" (API ");
            fmt_duration(t, api);
            t.push(')');
        }
    }
    // The cost in a span of its own (a theme's `cost`): reported, else
    // estimated (`~`), from part of the session (`≥ ~`).
    let cost = match (r.cost_usd, stats.estimate) {
        (Some(c), _) => Some(("", c)),
        (
            None,
            Some(Cost {
                usd: Some(c),
                partial,
                ..
            }),
        ) => Some((if partial { "≥ ~" } else { "~" }, c)),
        _ => None,
    };
    if let Some((mark, c)) = cost {
        t.push_str(" · ");
        l.close(Style::Plain);
        l.text().push_str(mark);
        fmt_cost(l.text(), c);
        l.close(Style::Cost);
    }
    let t = l.text();
    if !r.tokens.is_empty() {
        t.push_str(" · ");
        if stats.whole.is_some() {
            t.push_str("main ");
        }
        let at = t.len();
        fmt_in_out(t, at, &r.tokens);
        if let Some(whole) = &stats.whole {
            t.push_str(" · with sub-agents ");
            fmt_count(t, whole.total_input());
            if let Some(o) = whole.output {
                t.push_str(" / ");
                fmt_count(t, o);
            }
        }
        if stats.shed < 1 {
            fmt_cache_share(t, &r.tokens);
        }
    }
    l.close(Style::Plain);
}

/// The verbose lines under a result: usage per model, why it stopped.
fn result_details(l: &mut Lines, r: &SessionResult<'_>, s: &Session) {
    for m in &r.model_usage {
        l.push(Style::Dim, "  ");
        l.sanitized(Style::Dim, &m.model);
        let t = l.text();
        t.push_str(": ");
        let at = t.len();
        fmt_tokens(t, at, &m.tokens);
        if let Some(c) = m.cost_usd {
            t.push_str(" · ");
            fmt_cost(t, c);
        }
        l.close(Style::Dim);
        l.end(0);
    }
    let id = s.current().and_then(|c| c.id.as_deref());
    let why = [
        ("stop reason ", r.stop_reason.as_deref()),
        ("terminal reason ", r.terminal_reason.as_deref()),
        ("session ", id),
    ];
    if why.iter().any(|(_, v)| v.is_some()) {
        l.push(Style::Dim, "  ");
        let mut first = true;
        for (label, v) in why {
            if let Some(v) = v {
                if !first {
                    l.push(Style::Dim, " · ");
                }
                first = false;
                l.push(Style::Dim, label);
                l.sanitized(Style::Dim, v);
            }
        }
        l.end(0);
    }
}

/// Up to `max_lines` lines of `text`, indented under a tool line.
fn body(l: &mut Lines, text: &str, style: Style, max_lines: usize, depth: usize) {
    let text = text.trim_end_matches(['\n', '\r']);
    if text.trim().is_empty() {
        return;
    }
    let total = line_total(text);
    let max = max_lines.max(1);
    for (i, line) in text.lines().take(max).enumerate() {
        // An error's first line in bold, the rest of it plain red.
        let style = match style {
            Style::Error if i > 0 => Style::ErrorBody,
            s => s,
        };
        l.push(style, if i == 0 { "  ⎿ " } else { "    " });
        l.sanitized(style, line);
        l.end_hanging(depth, 4);
    }
    if total > max {
        let more = total - max;
        let lines = if more == 1 { "line" } else { "lines" };
        l.fmt(
            Style::Dim,
            format_args!("    … {more} more {lines} (--max-lines)"),
        );
        l.end(depth);
    }
}

impl<W: WriteColor, E: WriteColor> Sink for Pretty<W, E> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        let depth = s.note().depth;
        if !matches!(ev.kind, EventKind::Result(_)) {
            self.write_end()?;
            self.end.last = false;
        }
        self.note_source(s);
        self.lines.agent.clone_from(&s.note().agent);
        if !matches!(ev.kind, EventKind::Notice(_)) {
            self.estimate_noted = false;
        }
        if self.cannot_alert(&ev.kind) {
            self.said_incomplete = false;
            return Ok(());
        }
        let shown = match &ev.kind {
            EventKind::SessionStart(st) => self.session_start(st, ev.producer, s),
            EventKind::Text(t) => self.text(t, depth),
            EventKind::Thinking(t) => self.thinking(t, depth),
            EventKind::ToolCall(c) => self.tool_call(c, s, depth),
            EventKind::ToolResult(r) => self.tool_result(r, s, depth),
            EventKind::PermissionDenied(d) => self.denial(d, s, depth),
            EventKind::Usage(u) => self.usage(u, depth),
            EventKind::Notice(n) => self.notice(n, depth),
            EventKind::Result(r) => self.result(r, s),
            EventKind::Delta(d) => self.delta(d, depth),
            EventKind::PlainText(t) => {
                self.compose().sanitized(Style::Plain, t);
                self.lines.end(0);
                self.emit(To::Out)
            }
            EventKind::Unknown(u) => {
                if !self.verbose() {
                    return Ok(());
                }
                let l = self.compose();
                l.push(Style::Dim, "? unknown event ");
                l.sanitized(Style::Dim, &u.type_name);
                l.end(depth);
                self.emit(To::Out)
            }
        };
        self.said_incomplete = false;
        shown
    }

    fn input_end(&mut self, s: &Session) -> io::Result<()> {
        // Nothing more comes for a held end, a streamed line or this
        // session: said here, as `finish` says it for the last input, so
        // the output of each file of a library is its own (`-j`).
        self.write_end()?;
        self.end_stream()?;
        // The next file's results are another session's, even when its
        // start is filtered out.
        self.end.reset();
        self.end.last = false;
        if s.incomplete_if_ended() && !self.alerts_only {
            self.incomplete(s)?;
            self.said_incomplete = true;
        }
        Ok(())
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        self.write_end()?;
        self.end_stream()?;
        if self.alerts == Alerts::Brief && self.unshown_errors > 0 {
            // Of every file: none is named.
            let source = self.source.replace(String::new());
            let n = self.unshown_errors;
            let l = self.compose();
            l.push(Style::Error, "✗ ");
            plural(l, Style::Error, n, "tool error", "tool errors");
            l.push(Style::Dim, " (`--format pretty` shows them)");
            l.end(0);
            self.emit(To::Alert)?;
            self.source = source;
        }
        if self.alerts == Alerts::Counted {
            return self.count_unfinished(s);
        }
        if s.current().and_then(|c| c.outcome) == Some(Outcome::Incomplete) && !self.said_incomplete
        {
            self.incomplete(s)?;
        }
        if self.summary {
            let summary = Summary::from_session(s);
            if self.quiet() {
                self.out.flush()?;
                let _ = write_table(&mut self.err, &summary);
                let _ = self.err.flush();
            } else {
                self.out.write_all(b"\n")?;
                write_table(&mut self.out, &summary)?;
            }
        }
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn line_end(&self) -> LineEnd {
        match self.stream.as_ref() {
            Some(s) if s.open && s.started && s.kind == DeltaKind::ToolStart => LineEnd::Held,
            Some(s) if s.open && s.started => LineEnd::Streaming,
            _ => LineEnd::Complete,
        }
    }

    fn end_line(&mut self) -> io::Result<()> {
        // A stall, not other output: the newlines the text owes are still
        // owed (this line end stands for the first of them), so a paragraph
        // break that came just before it is kept.
        let owed = self.stream.as_ref().map_or(0, |s| s.pending_newlines);
        // After a pause that long, the word waiting is whole.
        self.end_stream_line()?;
        if let Some(s) = self.stream.as_mut() {
            s.pending_newlines = owed;
        }
        Ok(())
    }
}

/// A block being printed as its fragments arrive.
struct Stream {
    kind: DeltaKind,
    depth: usize,
    index: Option<u64>,
    /// What streamed so far, to recognise the complete block.
    seen: Streamed,
    /// The cursor is at the end of this block's line (no other output since).
    open: bool,
    /// Something visible was printed (leading newlines are dropped, as the
    /// complete block's rendering trims them).
    started: bool,
    /// Newlines seen but not yet printed (trailing ones are dropped).
    pending_newlines: usize,
    /// Columns taken on the current line (its prefix included), and what
    /// the prefix takes: on a terminal the text wraps between words.
    col: usize,
    indent: usize,
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    /// Start streaming a block, its text beginning with `text`.
    fn start_stream(&mut self, kind: DeltaKind, depth: usize, index: Option<u64>, text: &str) {
        self.word.clear();
        let mut seen = Streamed::new(&self.stream_keys);
        seen.push(text);
        self.stream = Some(Stream {
            kind,
            depth,
            index,
            seen,
            open: false,
            started: false,
            pending_newlines: 0,
            col: 0,
            indent: 0,
        });
    }

    /// The streamed block is over.
    fn drop_stream(&mut self) {
        self.stream = None;
    }

    /// Print a text or thinking fragment at once, on the current line. Tool
    /// input fragments are not shown: the call is shown once complete.
    fn delta(&mut self, d: &crate::event::Delta<'_>, depth: usize) -> io::Result<()> {
        let shown = match d.kind {
            DeltaKind::Text => true,
            DeltaKind::Thinking => self.verbose(),
            DeltaKind::ToolInput => false,
            DeltaKind::ToolStart => {
                // Another call's line: a result that comes now is not
                // under its own.
                self.last_call = None;
                return self.tool_start(d, depth);
            }
        };
        if !shown || self.quiet() {
            return Ok(());
        }
        let same = self
            .stream
            .as_ref()
            .is_some_and(|st| st.kind == d.kind && st.depth == depth && st.index == d.index);
        if same {
            if let Some(st) = self.stream.as_mut() {
                st.seen.push(&d.text);
            }
        } else {
            self.end_stream()?;
            self.start_stream(d.kind, depth, d.index, &d.text);
        }
        let cols = self.cols();
        let Some(stream) = self.stream.as_mut() else {
            return Ok(());
        };
        let thinking = d.kind == DeltaKind::Thinking;
        let text = sanitize(&d.text);
        let mut pieces = text.split('\n').peekable();
        while let Some(piece) = pieces.next() {
            // The piece ends its line: the word waiting is complete.
            let ends = pieces.peek().is_some();
            if !piece.is_empty() || (ends && !self.word.is_empty()) {
                if !stream.open || stream.pending_newlines > 0 {
                    if stream.open {
                        self.out.reset()?;
                        self.out.write_all(b"\n")?;
                        // The line ended: what other agents said meanwhile.
                        write_parked(&mut self.out, &mut self.parked)?;
                    }
                    // A new line of the block: its first, or one after a
                    // newline in the text or after other output.
                    write_prefix(&mut self.out, &self.st, depth)?;
                    if thinking {
                        paint(&mut self.out, self.st.spec(Style::Thinking))?;
                        let mark = if stream.started { "  " } else { "✻ " };
                        self.out.write_all(mark.as_bytes())?;
                    }
                    for _ in 1..stream.pending_newlines {
                        self.out.reset()?;
                        self.out.write_all(b"\n")?;
                        write_prefix(&mut self.out, &self.st, depth)?;
                    }
                    stream.pending_newlines = 0;
                    stream.indent = depth_width(depth) + if thinking { 2 } else { 0 };
                    stream.col = stream.indent;
                    stream.open = true;
                    stream.started = true;
                }
                let look = if thinking {
                    Style::Thinking
                } else {
                    Style::Plain
                };
                paint(&mut self.out, self.st.spec(look))?;
                // Never split a word: what follows the last space waits for
                // the rest of its word, so that a line cut by other output
                // (see `cut_stream_line`) is cut between two words.
                self.word.push_str(piece);
                let upto = match self.word.rfind(char::is_whitespace) {
                    _ if ends || self.word.len() > MAX_WORD => self.word.len(),
                    Some(i) => i + self.word[i..].chars().next().map_or(1, char::len_utf8),
                    None => 0,
                };
                let line = Line {
                    depth,
                    thinking,
                    look,
                    cols,
                };
                line.words(&mut self.out, &self.st, stream, &self.word[..upto])?;
                self.word.drain(..upto);
            }
            if ends && stream.started {
                stream.pending_newlines += 1;
            }
        }
        Ok(())
    }

    /// A tool call begins: its line starts now (`▸ Write`) and is completed
    /// by the call once its input has streamed ([`Pretty::tool_call`]).
    fn tool_start(&mut self, d: &crate::event::Delta<'_>, depth: usize) -> io::Result<()> {
        if self.quiet() {
            return Ok(());
        }
        self.end_stream_line()?;
        let l = self.compose();
        l.push(Style::Tool, "▸ ");
        l.tool_name(Style::Tool, &d.text);
        l.end(depth);
        self.lines.write_open(&mut self.out, &self.st, 0)?;
        self.start_stream(DeltaKind::ToolStart, depth, d.index, &d.text);
        if let Some(st) = self.stream.as_mut() {
            st.open = true;
            st.started = true;
        }
        Ok(())
    }

    /// True while the line of a tool call started at `depth` is open.
    fn tool_started(&self, depth: usize) -> bool {
        self.stream
            .as_ref()
            .is_some_and(|st| st.open && st.kind == DeltaKind::ToolStart && st.depth == depth)
    }

    /// The lines composed are parked until the line of text streaming above
    /// them ends: they are a deeper agent's (a sub-agent's), the line is
    /// open, and at most [`MAX_PARKED`] bytes wait (then the line is cut).
    fn parks(&self) -> bool {
        self.would_park() && self.parked.as_ref().is_none_or(|b| b.len() < MAX_PARKED)
    }

    /// The lines composed would be parked but for [`MAX_PARKED`].
    fn parks_over_bound(&self) -> bool {
        self.would_park() && self.parked.as_ref().is_some_and(|b| b.len() >= MAX_PARKED)
    }

    /// The lines composed are a deeper agent's, under an open line of text.
    fn would_park(&self) -> bool {
        let deeper = |st: &Stream| self.lines.min_depth().is_some_and(|d| d > st.depth);
        !self.quiet()
            && self.stream.as_ref().is_some_and(|st| {
                st.open && st.started && st.kind != DeltaKind::ToolStart && deeper(st)
            })
    }

    /// The lines held back while a tool call's line was open.
    fn write_held(&mut self) -> io::Result<()> {
        self.held.agent.clone_from(&self.lines.agent);
        let cols = self.cols();
        self.held.write_wrapped(&mut self.out, &self.st, 0, cols)?;
        self.held.clear();
        Ok(())
    }

    /// Other output follows: end the line of a block being streamed (the
    /// block may go on below it), the word it waits for the rest of
    /// written as it is. A line already cut keeps its word for the text
    /// that follows.
    fn end_stream_line(&mut self) -> io::Result<()> {
        if self.stream.as_ref().is_some_and(|st| st.open) {
            self.write_word()?;
        }
        self.cut_stream_line(false)
    }

    /// The streamed block is over (or its input): its last word is
    /// written, on a line of its own if its line was cut.
    fn end_stream(&mut self) -> io::Result<()> {
        self.write_word()?;
        self.cut_stream_line(false)
    }

    /// The start of a word streamed, written at the end of its line (it
    /// opens one of its own if the line was cut: `cut_stream_line`).
    fn write_word(&mut self) -> io::Result<()> {
        let cols = self.cols();
        let Some(st) = self.stream.as_mut().filter(|_| !self.word.is_empty()) else {
            return Ok(());
        };
        let thinking = st.kind == DeltaKind::Thinking;
        if !st.open {
            write_prefix(&mut self.out, &self.st, st.depth)?;
            if thinking {
                paint(&mut self.out, self.st.spec(Style::Thinking))?;
                self.out.write_all("  ".as_bytes())?;
            }
            st.indent = depth_width(st.depth) + if thinking { 2 } else { 0 };
            st.col = st.indent;
            st.open = true;
        }
        let look = if thinking {
            Style::Thinking
        } else {
            Style::Plain
        };
        paint(&mut self.out, self.st.spec(look))?;
        let line = Line {
            depth: st.depth,
            thinking,
            look,
            cols,
        };
        line.words(&mut self.out, &self.st, st, &self.word)?;
        self.word.clear();
        Ok(())
    }

    /// End the line of a block being streamed, between two words: the
    /// word it waits for the rest of goes on on the next line, with that
    /// rest. `marked`: the line ends with a dimmed `…` (the text was cut,
    /// not ended).
    fn cut_stream_line(&mut self, marked: bool) -> io::Result<()> {
        if let Some(st) = self.stream.as_mut()
            && st.open
        {
            st.open = false;
            // Newlines owed to the text are replaced by this line end.
            st.pending_newlines = 0;
            if st.kind == DeltaKind::ToolStart {
                // A call whose line was cut by other output: its complete
                // line comes later, this one says it is not the whole call.
                self.out.set_color(self.st.spec(Style::Dim))?;
                self.out.write_all(" …".as_bytes())?;
            } else if marked {
                // Text cut after a space: the rest of it comes below.
                self.out.set_color(self.st.spec(Style::Dim))?;
                self.out.write_all("…".as_bytes())?;
            }
            self.out.reset()?;
            self.out.write_all(b"\n")?;
            self.write_held()?;
            write_parked(&mut self.out, &mut self.parked)?;
        }
        Ok(())
    }

    /// True when `text` is the block just shown fragment by fragment. The
    /// streamed block ends here either way, unless `text` is a part of an
    /// answer that `continues` and it was shown: the rest of the answer then
    /// goes on streaming on the same line.
    fn was_streamed(
        &mut self,
        kind: DeltaKind,
        text: &str,
        depth: usize,
        continues: bool,
    ) -> io::Result<bool> {
        let Some(st) = self.stream.as_ref() else {
            return Ok(false);
        };
        if st.depth != depth {
            // Another agent's block (a sub-agent's text while the main
            // agent streams): the streamed block is still going on.
            return Ok(false);
        }
        let same = st.kind == kind && st.seen.is(text);
        if same
            && continues
            && let Some(st) = self.stream.as_mut()
        {
            st.seen.reset();
            return Ok(true);
        }
        self.end_stream()?;
        self.drop_stream();
        Ok(same)
    }

    /// As the alert channel of a report (failed sessions only), an event
    /// that can only write to stdout (nothing) and changes nothing a later
    /// alert reads: text, thinking, a call, usage, when no streamed line is
    /// open. Not composed at all: a report over a library sends every
    /// event of every session here (3% of its instructions).
    fn cannot_alert(&self, kind: &EventKind<'_>) -> bool {
        if self.alerts_only && self.alerts == Alerts::Counted {
            return true;
        }
        self.alerts_only
            && self.alerts == Alerts::Sessions
            && self.stream.is_none()
            && matches!(
                kind,
                EventKind::Text(_)
                    | EventKind::Thinking(_)
                    | EventKind::ToolCall(_)
                    | EventKind::Usage(_)
            )
    }

    /// True while a block is being streamed on the current line.
    fn streaming(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.open)
    }

    /// A report's one line on stderr for the sessions that failed or did
    /// not end ([`Alerts::Counted`]).
    fn count_unfinished(&mut self, s: &Session) -> io::Result<()> {
        let o = s.outcomes();
        if o.error + o.incomplete == 0 {
            return Ok(());
        }
        let l = self.compose();
        l.push(Style::Error, "✗ ");
        if o.error > 0 {
            plural(
                l,
                Style::Error,
                o.error,
                "session failed",
                "sessions failed",
            );
        }
        // One failure: why, in a few words.
        let why = (o.error == 1)
            .then(|| s.sessions().find(|x| x.outcome == Some(Outcome::Error)))
            .flatten()
            .and_then(|x| x.error.as_deref())
            .map(|why| why.trim_end().trim_end_matches('.'));
        if let Some(why) = why {
            l.push(Style::Error, ": ");
            l.one_line(Style::Error, why, 80);
        }
        match (o.error, o.incomplete) {
            (_, 0) => {}
            (0, n) => plural(
                l,
                Style::Error,
                n,
                "session incomplete",
                "sessions incomplete",
            ),
            (_, n) => l.push(Style::Error, &format!(", {n} incomplete")),
        }
        l.push(Style::Dim, "; --errors stderr lists them");
        l.end(0);
        self.out.flush()?;
        let _ = self.lines.write(&mut self.err, &self.st, 0);
        let _ = self.err.flush();
        Ok(())
    }

    fn incomplete_previous(&mut self) -> io::Result<()> {
        self.compose()
            .push(Style::Error, "✗ previous session ended without a result");
        self.lines.end(0);
        self.emit(To::Alert)
    }
}

/// The output parked while a line of text was open (see
/// [`Pretty::parks`]), now that it ended.
fn write_parked<W: WriteColor>(
    out: &mut W,
    parked: &mut Option<termcolor::Buffer>,
) -> io::Result<()> {
    if let Some(buf) = parked.as_mut().filter(|b| !b.is_empty()) {
        out.write_all(buf.as_slice())?;
        buf.clear();
        out.reset()?;
    }
    Ok(())
}

/// `r` with its turns as the session counted them, where it could
/// ([`Note::turns`](crate::session::Note)).
fn counted_turns<'r, 'a>(r: &'r SessionResult<'a>, s: &Session) -> Cow<'r, SessionResult<'a>> {
    match s.note().turns {
        Some(t) if r.num_turns != Some(t) => Cow::Owned(SessionResult {
            num_turns: Some(t),
            ..r.clone()
        }),
        _ => Cow::Borrowed(r),
    }
}

/// The sub-agent indentation of a line.
fn write_prefix<W: WriteColor>(w: &mut W, st: &Styles, depth: usize) -> io::Result<()> {
    if depth > 0 {
        paint(w, st.spec(Style::Gutter))?;
        write_depth(w, depth)?;
        w.reset()?;
    }
    Ok(())
}

/// The line a streamed block writes on: on a terminal of `cols` columns,
/// its words go on the next line (under the same prefix) rather than be
/// cut at the edge; a space at the edge is the break.
struct Line {
    depth: usize,
    thinking: bool,
    look: Style,
    cols: Option<usize>,
}

impl Line {
    /// Write `text` (whole words, and the spaces after them) on `stream`'s
    /// line.
    fn words<W: WriteColor>(
        &self,
        out: &mut W,
        st: &Styles,
        stream: &mut Stream,
        text: &str,
    ) -> io::Result<()> {
        let Some(cols) = self.cols else {
            return out.write_all(text.as_bytes());
        };
        let mut rest = text;
        while !rest.is_empty() {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let (word, after) = rest.split_at(end);
            let gap = after
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(after.len());
            let (space, next) = after.split_at(gap);
            let w = width(word);
            if stream.col > stream.indent && stream.col + w > cols {
                self.next_line(out, st, stream)?;
            }
            out.write_all(word.as_bytes())?;
            stream.col += w;
            if stream.col + width(space) > cols {
                self.next_line(out, st, stream)?;
            } else {
                out.write_all(space.as_bytes())?;
                stream.col += width(space);
            }
            rest = next;
        }
        Ok(())
    }

    /// Go on on the next line, under the block's prefix.
    fn next_line<W: WriteColor>(
        &self,
        out: &mut W,
        st: &Styles,
        stream: &mut Stream,
    ) -> io::Result<()> {
        out.reset()?;
        out.write_all(b"\n")?;
        write_prefix(out, st, self.depth)?;
        if self.thinking {
            paint(out, st.spec(Style::Thinking))?;
            out.write_all(b"  ")?;
        }
        paint(out, st.spec(self.look))?;
        stream.col = stream.indent;
        Ok(())
    }
}

/// Claude wraps validation errors in `<tool_use_error>…</tool_use_error>`.
fn strip_tool_error(s: &str) -> &str {
    let t = s.trim();
    t.strip_prefix("<tool_use_error>")
        .and_then(|x| x.strip_suffix("</tool_use_error>"))
        .unwrap_or(t)
}

/// `3.7k in / 166 out · cache read 40%`, appended to `out`, whose text from
/// `from` on is this span's.
fn fmt_tokens(out: &mut String, from: usize, t: &Tokens) {
    fmt_in_out(out, from, t);
    fmt_cache_share(out, t);
}

/// ` · cache read 40%`, when `t` says it.
fn fmt_cache_share(out: &mut String, t: &Tokens) {
    if let Some(share) = t.cache_read_share() {
        let _ = write!(out, " · cache read {share:.0}%");
    }
}

/// `3.7k in / 166 out`, appended to `out`, whose text from `from` on is
/// this span's.
fn fmt_in_out(out: &mut String, from: usize, t: &Tokens) {
    if t.input.is_some() || t.cache_read.is_some() || t.cache_creation.is_some() {
        fmt_count(out, t.total_input());
        out.push_str(" in");
    }
    if let Some(o) = t.output {
        if !out.ends_with(' ') && out.len() > from && !out.ends_with(": ") {
            out.push_str(" / ");
        }
        fmt_count(out, o);
        out.push_str(" out");
    }
}

/// The hash of `t` without its surrounding space, keyed for the process
/// (foldhash: a tool output of 12 KB hashed with `SipHash` was 5% of a
/// Codex stream's view).
fn text_hash(t: &str) -> u64 {
    static KEYS: LazyLock<foldhash::quality::RandomState> = LazyLock::new(Default::default);
    KEYS.hash_one(t.trim())
}

/// How many lines `text` holds (`text.lines().count()`, for a text not
/// ending with a line break), counted a vector at a time.
fn line_total(text: &str) -> usize {
    let breaks =
        usize::try_from(crate::input::lines::newlines(text.as_bytes())).unwrap_or(usize::MAX);
    if text.is_empty() {
        0
    } else {
        breaks.saturating_add(1)
    }
}

/// Calls listed one by one as never answered or interrupted; the rest are
/// counted.
const MAX_LISTED: usize = 50;

/// `1 tool`, `3 tools`.
struct Counted(u64, &'static str, &'static str);

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Counted(n, one, many) = *self;
        write!(f, "{n} {}", if n == 1 { one } else { many })
    }
}

/// A span of [`Counted`].
fn plural(l: &mut Lines, style: Style, n: u64, one: &'static str, many: &'static str) {
    l.fmt(style, format_args!("{}", Counted(n, one, many)));
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The vector count gives what `lines()` gives for every text the
        /// view counts (none ends with a line break), line breaks of
        /// every kind and long runs between them included.
        #[test]
        fn line_total_is_the_count_of_lines(
            parts in prop::collection::vec(("[a-z\\r é]{0,40}", 0usize..4), 0..40)
        ) {
            let mut text = String::new();
            for (piece, breaks) in &parts {
                text.push_str(piece);
                text.push_str(["", "\n", "\r\n", "\n\n"][*breaks]);
            }
            let text = text.trim_end_matches('\n');
            prop_assert_eq!(super::line_total(text), text.lines().count());
        }
    }
}
