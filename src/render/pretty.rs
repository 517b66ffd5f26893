//! The human view: one line per tool call, the assistant's text, errors and
//! denials that are never hidden, and a summary line per result.
//!
//! Everything that comes from the agent or its tools goes through
//! [`sanitize`](super::sanitize::sanitize) first. Errors and denials are also mirrored to a second
//! writer (stderr) when asked: in quiet mode, and when stdout is not a
//! terminal, so `streamview > log 2> errors` separates them.

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::io;
use std::sync::LazyLock;

use termcolor::WriteColor;

use super::lines::{Lines, Style, Styles};
use super::sanitize::sanitize_line;
use super::summary::{Summary, write_table};

mod calls;
mod deltas;
mod edits;
mod end;
mod header;
mod result;
mod streamed;
mod texts;
use super::{LineEnd, Sink};
use crate::event::{DeltaKind, Event, EventKind};
use crate::session::{Outcome, Session};
use end::End;
use {deltas::Stream, result::Stats, result::fit, result::plural, result::result_stats};

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
    /// Hashes of the texts sub-agents said (at most [`MAX_AGENT_TEXTS`](texts::MAX_AGENT_TEXTS)):
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
    /// The last event was an estimate ([`Notice::estimate`](crate::event::Notice::estimate)): the next
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

    fn ended_elsewhere(&mut self) {
        self.said_incomplete = true;
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

/// The hash of `t` without its surrounding space, keyed for the process
/// (foldhash: a tool output of 12 KB hashed with `SipHash` was 5% of a
/// Codex stream's view).
fn text_hash(t: &str) -> u64 {
    static KEYS: LazyLock<foldhash::quality::RandomState> = LazyLock::new(Default::default);
    KEYS.hash_one(t.trim())
}
