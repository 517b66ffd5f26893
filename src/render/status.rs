//! The live status line: one line at the bottom of the terminal that says
//! what is happening now, and what is stuck.
//!
//! ```text
//! ⠹ Bash npm test · 12s · +2 running · last event 3s ago · turn 4 · 12.3k tokens · $0.0421
//! ⏳ waiting 45s — Bash npm test · 2m10s · turn 4 · 12.3k tokens · $0.0421
//! ⠼ working — last: text · API retry 3 · turn 2 · 4.1k tokens
//! ```
//!
//! It names the call open longest (the session knows which,
//! [`Session::oldest_open_call`]) as the output shows calls (`Bash for f in
//! *; do (+2 lines)`), and how many others run. The times come right after
//! it: a long label is cut to leave them room, then counters that still do
//! not fit are left out from the end.
//!
//! It is drawn only on a terminal (the binary decides, see
//! [`crate::cli::Options::status`]), never into a pipe, a file or JSONL.
//! The [`crate::Runner`] drives it:
//!
//! - every event goes through [`StatusLine::observe`];
//! - before anything else is written to the terminal, [`StatusLine::hide`]
//!   erases it (`\r` + erase-line), so it never mixes with real output;
//! - when the reader is about to wait, and on each tick while it waits
//!   ([`crate::input::ReadAhead::with_tick`]), [`StatusLine::draw`] redraws
//!   it, at most [`MIN_REDRAW`] apart;
//! - at the end it is erased.
//!
//! The line is cut to the terminal's width (and autowrap is off while it is
//! written) so that erasing one row always erases all of it. While the
//! output stops in the middle of a line (text being streamed, a tool call's
//! line waiting for its input) it is not drawn, as the erase would take the
//! partial line with it; once that line has stalled ([`STALL`], see
//! [`StatusLine::line_stalled`]) the sink ends it ([`crate::render::Sink::end_line`])
//! and the line is drawn below: a stalled agent shows that it is stalled.
//!
//! Content in it (tool names, key arguments) is sanitized like everything
//! else the pretty output shows.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use super::LineEnd;

mod board;
use super::lines::{one_line_to, tool_name_to};
use crate::event::{DeltaKind, EventKind};
use crate::render::{fmt_cost, fmt_count, shown_key};
use crate::session::{CallInfo, Session};
pub use board::Board;

/// Shortest time between two redraws.
pub const MIN_REDRAW: Duration = Duration::from_millis(200);

/// How often a waiting reader wakes up to redraw.
pub const TICK: Duration = Duration::from_millis(250);

/// Default time without an event before the line says it is waiting.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// How long the output may stop in the middle of a line (or `--status-wait`,
/// if shorter) before the line is ended to draw the status line: a pause
/// this long inside streamed text is the agent stalling, not typing.
pub const STALL: Duration = Duration::from_secs(2);

/// Columns the label keeps however narrow the terminal: counters are left
/// out first.
const MIN_LABEL: usize = 20;

/// Longest first line of a key argument shown, in characters.
const MAX_KEY: usize = 120;

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// Erase the current row and go to its start.
const ERASE: &[u8] = b"\r\x1b[2K";

/// See the module docs.
pub struct StatusLine {
    out: Box<dyn Write>,
    width: Box<dyn Fn() -> Option<usize>>,
    color: bool,
    wait: Duration,
    shown: bool,
    broken: bool,
    last_draw: Option<Instant>,
    frame: usize,
    last_event: Option<Instant>,
    /// What the last event was about, for "— last: …".
    last: Last,
    /// The last event was a session's result: the agent is not working.
    finished: bool,
    /// API requests retried since the model last answered (Claude's
    /// `api_retry`, Qwen's `system/retry`): a stalled agent says why.
    retries: u64,
    /// Since when the output's line has been held (see [`LineEnd::Held`]).
    held_since: Option<Instant>,
    buf: Vec<u8>,
    /// `--label`: the line starts with it, as every line of the output.
    label: Box<[u8]>,
    /// The columns the label takes.
    label_cols: usize,
}

/// What an event was about: a tool (its name, key argument and what became
/// of it) or a word (`text`). Its memory is reused from event to event.
#[derive(Default)]
struct Last {
    /// The tool's name, or the word.
    name: String,
    /// The tool's key argument (empty: none).
    key: String,
    tool: bool,
    /// After the tool: ` (done)`, ` (failed)`, ` (input streaming)`.
    how: &'static str,
    /// When the call's input began to stream (its time is shown).
    streaming_since: Option<Instant>,
}

impl Last {
    fn tool(&mut self, name: &str, key: Option<&str>, how: &'static str) {
        name.clone_into(&mut self.name);
        key.unwrap_or("").clone_into(&mut self.key);
        self.tool = true;
        self.how = how;
        self.streaming_since = None;
    }

    fn word(&mut self, word: &str) {
        word.clone_into(&mut self.name);
        self.key.clear();
        self.tool = false;
        self.how = "";
        self.streaming_since = None;
    }

    fn label(&self) -> Option<Label<'_>> {
        (!self.name.is_empty()).then_some(Label {
            name: &self.name,
            key: &self.key,
            tool: self.tool,
            how: self.how,
        })
    }
}

impl StatusLine {
    /// A status line written to `out` (the terminal), cut to the width
    /// `width` reports (`None`: 80 columns), saying "waiting" after `wait`
    /// without an event.
    pub fn new(
        out: Box<dyn Write>,
        width: Box<dyn Fn() -> Option<usize>>,
        color: bool,
        wait: Duration,
    ) -> Self {
        StatusLine {
            out,
            width,
            color,
            wait,
            shown: false,
            broken: false,
            last_draw: None,
            frame: 0,
            last_event: None,
            last: Last::default(),
            finished: false,
            retries: 0,
            held_since: None,
            buf: Vec::new(),
            label: Box::default(),
            label_cols: 0,
        }
    }

    /// The line starts with the run's `--label`, as the output's lines do.
    #[must_use]
    pub fn with_label(mut self, label: Option<&super::label::Label>) -> Self {
        if let Some(l) = label {
            self.label = l.status_prefix().into_boxed_slice();
            self.label_cols = super::label::prefix_width(&l.name);
        }
        self
    }

    /// A status line on the terminal that is standard output, or `None`
    /// when standard output cannot be duplicated.
    #[must_use]
    pub fn on_stdout(color: bool, wait: Duration) -> Option<Self> {
        let (out, width) = stdout_terminal()?;
        Some(StatusLine::new(out, width, color, wait))
    }

    /// True while the line is on the screen.
    #[must_use]
    pub fn is_shown(&self) -> bool {
        self.shown
    }

    /// Learn from an event that arrived at `now`, once `session` has
    /// observed it (which calls are open is the session's to know).
    pub fn observe(&mut self, kind: &EventKind<'_>, session: &Session, now: Instant) {
        self.last_event = Some(now);
        self.finished = false;
        match kind {
            EventKind::Notice(n) if n.subtype == "api_retry" => {
                self.retries += 1;
                return;
            }
            EventKind::Notice(_) | EventKind::Unknown(_) | EventKind::PlainText(_) => {}
            // The model answered (or the turn ended): the retries are over.
            _ => self.retries = 0,
        }
        match kind {
            EventKind::ToolCall(c) => {
                let key = c.key_arg.as_deref();
                let key = key.map(|k| shown_key(k, c.kind, session.cwd()));
                self.last.tool(&c.name, key, "");
            }
            EventKind::ToolResult(r) => {
                let note = session.note();
                if let Some(tool) = note.tool.as_deref() {
                    let how = if r.is_error { " (failed)" } else { " (done)" };
                    let kind = note.tool_kind.unwrap_or_default();
                    let key = note.key_arg.as_deref();
                    let key = key.map(|k| shown_key(k, kind, session.cwd()));
                    self.last.tool(tool, key, how);
                }
            }
            EventKind::Text(_) => self.last.word("text"),
            EventKind::Thinking(_) => self.last.word("thinking"),
            EventKind::Delta(d) if d.kind == DeltaKind::ToolStart => {
                self.last.tool(&d.text, None, " (input streaming)");
                self.last.streaming_since = Some(now);
            }
            // The input of the call just started: still "input streaming".
            EventKind::Delta(d) if d.kind == DeltaKind::ToolInput => {}
            EventKind::Delta(d) => self.last.word(d.kind.name()),
            EventKind::PermissionDenied(_) => self.last.word("permission denied"),
            EventKind::SessionStart(_) => self.last.word("session start"),
            EventKind::Result(_) => {
                self.finished = true;
                self.last.word("result");
            }
            _ => {}
        }
    }

    /// The line's text at `now` (without styling), in at most `cols`
    /// columns. What is stuck and for how long come first (the call open
    /// longest, its time, the time since the last event), the counters
    /// after; a long label is cut to leave them room, and what still does
    /// not fit is left out from the end.
    #[must_use]
    pub fn text(&self, now: Instant, session: &Session, cols: usize) -> String {
        let idle = self.last_event.map(|t| now.saturating_duration_since(t));
        let waiting = !self.finished && idle.is_some_and(|d| d >= self.wait);
        let open = if self.finished {
            None
        } else {
            session.oldest_open_call()
        };
        let mut head = String::new();
        let mut label = None;
        if waiting {
            head.push_str("⏳ waiting ");
            push_secs(&mut head, idle.unwrap_or_default());
            if let Some((c, _)) = open {
                head.push_str(" — ");
                label = Some(Label::call(c, session.cwd()));
            } else if let Some(l) = self.last.label() {
                head.push_str(" — last: ");
                label = Some(l);
            }
        } else {
            head.push(SPINNER[self.frame % SPINNER.len()]);
            head.push(' ');
            if self.finished {
                head.push_str("finished");
            } else if let Some((c, _)) = open {
                label = Some(Label::call(c, session.cwd()));
            } else if self.last_event.is_none() {
                head.push_str("waiting for the first event");
            } else {
                head.push_str("working");
                if let Some(l) = self.last.label() {
                    head.push_str(" — last: ");
                    label = Some(l);
                }
            }
        }
        let mut parts = Vec::new();
        if open.is_none()
            && !self.finished
            && let Some(since) = self.last.streaming_since
        {
            parts.push(secs(now.saturating_duration_since(since)));
        }
        if let Some((c, others)) = open {
            if let Some(since) = c.arrived {
                parts.push(secs(now.saturating_duration_since(since)));
            }
            if others > 0 {
                parts.push(format!("+{others} running"));
            }
        }
        if !waiting
            && !self.finished
            && let Some(d) = idle.filter(|d| d.as_secs() >= 1)
        {
            parts.push(format!("last event {} ago", secs(d)));
        }
        if self.retries > 0 && !self.finished {
            parts.push(format!("API retry {}", self.retries));
        }
        if let Some(cur) = session.current() {
            // API responses of the main agent so far; the result's count once
            // only that is known.
            let turns = if cur.messages > 0 {
                cur.messages
            } else {
                cur.total_turns.or(cur.num_turns).unwrap_or(0)
            };
            if turns > 0 {
                let mut p = "turn ".to_string();
                fmt_count(&mut p, turns);
                parts.push(p);
            }
            let tokens = cur.tokens();
            if !tokens.is_empty() {
                let mut p = String::new();
                fmt_count(&mut p, tokens.total());
                p.push_str(" tokens");
                parts.push(p);
            }
            let cost = cur.cost_usd.or_else(|| {
                cur.models()
                    .iter()
                    .filter_map(|m| m.cost_usd)
                    .reduce(|a, b| a + b)
            });
            if let Some(c) = cost {
                let mut p = String::new();
                fmt_cost(&mut p, c);
                parts.push(p);
            }
        }
        fit(&head, label.as_ref(), &parts, cols)
    }

    /// Whether the output, stopped at `end` (see [`LineEnd`]), has stalled
    /// in the middle of a line at `now`: then the runner ends the line and
    /// draws this one below it. A line that events extend stalls after
    /// [`STALL`] (or the wait, if shorter) without an event; one they do not
    /// extend, after as long held.
    pub fn line_stalled(&mut self, end: LineEnd, now: Instant) -> bool {
        if end != LineEnd::Held {
            self.held_since = None;
        }
        let since = match end {
            LineEnd::Complete => return false,
            LineEnd::Streaming => self.last_event,
            LineEnd::Held => Some(*self.held_since.get_or_insert(now)),
        };
        since.is_some_and(|t| now.saturating_duration_since(t) >= STALL.min(self.wait))
    }

    /// Draw the line (replacing the one shown) unless it was drawn less than
    /// [`MIN_REDRAW`] ago. Write errors turn the line off: it is a courtesy,
    /// the real output reports its own errors.
    pub fn draw(&mut self, now: Instant, session: &Session) {
        if self.broken
            || self
                .last_draw
                .is_some_and(|t| now.saturating_duration_since(t) < MIN_REDRAW)
        {
            return;
        }
        self.last_draw = Some(now);
        self.frame = self.frame.wrapping_add(1);
        // One column is left free: a character in the last column makes
        // some terminals wrap at the next output.
        let cols = (self.width)().filter(|w| *w > 1).unwrap_or(80) - 1;
        let cols = cols.saturating_sub(self.label_cols);
        let text = self.text(now, session, cols);
        let waiting = text.starts_with('⏳');
        self.buf.clear();
        self.buf.extend_from_slice(ERASE);
        // Autowrap off while the line is written: a too-wide line is
        // clipped by the terminal instead of spilling onto a second row.
        self.buf.extend_from_slice(b"\x1b[?7l");
        self.buf.extend_from_slice(&self.label);
        if self.color {
            self.buf
                .extend_from_slice(if waiting { b"\x1b[1;33m" } else { b"\x1b[2m" });
        }
        self.buf.extend_from_slice(text.as_bytes());
        if self.color {
            self.buf.extend_from_slice(b"\x1b[0m");
        }
        self.buf.extend_from_slice(b"\x1b[?7h");
        self.write_buf();
        self.shown = !self.broken;
    }

    /// Erase the line if it is shown.
    pub fn hide(&mut self) {
        if self.shown {
            self.buf.clear();
            self.buf.extend_from_slice(ERASE);
            self.write_buf();
            self.shown = false;
            // The next wait redraws at once.
            self.last_draw = None;
        }
    }

    fn write_buf(&mut self) {
        let res = self
            .out
            .write_all(&self.buf)
            .and_then(|()| self.out.flush());
        if res.is_err() {
            self.broken = true;
            self.shown = false;
        }
    }
}

/// The columns of a terminal, as they are now (`None`: not known).
type Width = Box<dyn Fn() -> Option<usize> + Send + Sync>;

/// The terminal that is standard output, written apart from it (a
/// duplicate of its descriptor), and its width as it is now; `None` when
/// it cannot be duplicated.
fn stdout_terminal() -> Option<(Box<dyn Write + Send>, Width)> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
        let file = std::fs::File::from(fd);
        let probe = file.try_clone().ok()?;
        let width = move || terminal_size::terminal_size_of(&probe).map(|(w, _)| usize::from(w.0));
        Some((Box::new(file), Box::new(width)))
    }
    #[cfg(not(unix))]
    {
        let width = || terminal_size::terminal_size().map(|(w, _)| usize::from(w.0));
        Some((Box::new(io::stdout()), Box::new(width)))
    }
}

/// What the line names: a tool call as the output shows it (`Bash npm
/// test`, `github/get_issue 7`, `Bash for f in *; do (+2 lines)`), or a
/// word.
struct Label<'a> {
    name: &'a str,
    key: &'a str,
    tool: bool,
    how: &'a str,
}

impl<'a> Label<'a> {
    fn call(c: &'a CallInfo, cwd: Option<&str>) -> Self {
        Label {
            name: &c.name,
            key: shown_key(c.key_arg.as_deref().unwrap_or(""), c.kind, cwd),
            tool: true,
            how: "",
        }
    }

    /// Write it into `out` in at most `room` columns, sanitized: the key
    /// argument's first line is cut first, the tool's name and the count of
    /// further lines kept.
    fn write(&self, out: &mut String, room: usize) {
        let start = out.len();
        if self.tool {
            tool_name_to(out, self.name);
        } else {
            out.push_str(self.name);
        }
        if !self.key.is_empty() {
            out.push(' ');
        }
        let key_at = out.len();
        let mut max = MAX_KEY;
        loop {
            out.truncate(key_at);
            if !self.key.is_empty() {
                one_line_to(out, self.key, max);
            }
            out.push_str(self.how);
            let over = width(&out[start..]).saturating_sub(room);
            if over == 0 || max == 0 || self.key.is_empty() {
                break;
            }
            // Every character takes a column at least.
            max = max.min(out[key_at..].chars().count()).saturating_sub(over);
        }
        if width(&out[start..]) > room {
            let cut = cut(&out[start..], room);
            out.truncate(start);
            out.push_str(&cut);
        }
    }

    fn width(&self) -> usize {
        let mut s = String::new();
        self.write(&mut s, usize::MAX);
        width(&s)
    }
}

/// `head`, `label` and `parts` (joined by ` · `) in at most `cols` columns:
/// the label is cut to leave the parts room, down to [`MIN_LABEL`]; parts
/// that still do not fit are left out from the end.
fn fit(head: &str, label: Option<&Label<'_>>, parts: &[String], cols: usize) -> String {
    const SEP: &str = " · ";
    let parts_width =
        |n: usize| -> usize { parts[..n].iter().map(|p| width(SEP) + width(p)).sum() };
    let min = label.map_or(0, |l| l.width().min(MIN_LABEL));
    let mut n = parts.len();
    while n > 0 && width(head) + min + parts_width(n) > cols {
        n -= 1;
    }
    let mut s = head.to_string();
    if let Some(l) = label {
        let room = cols.saturating_sub(width(head) + parts_width(n)).max(min);
        l.write(&mut s, room);
    }
    for p in &parts[..n] {
        s.push_str(SEP);
        s.push_str(p);
    }
    cut(&s, cols)
}

/// Columns `s` takes. The line's own marks (`·`, `—`, `…`, the spinner) take
/// one; any other character outside ASCII counts as two (wide CJK, emoji),
/// so a line measured a little long never spills onto a second row.
fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

fn char_width(c: char) -> usize {
    let narrow = c.is_ascii() || matches!(c, '·' | '—' | '…' | '\u{2800}'..='\u{28ff}');
    if narrow { 1 } else { 2 }
}

/// At most `cols` columns of `s` (see [`width`]), with `…` when cut.
fn cut(s: &str, cols: usize) -> String {
    if width(s) <= cols {
        return s.to_string();
    }
    // Room for the ellipsis.
    let mut used = char_width('…');
    let mut out = String::with_capacity(cols * 4);
    for c in s.chars() {
        if used + char_width(c) > cols {
            break;
        }
        used += char_width(c);
        out.push(c);
    }
    out.push('…');
    out
}

fn secs(d: Duration) -> String {
    let mut s = String::new();
    push_secs(&mut s, d);
    s
}

fn push_secs(s: &mut String, d: Duration) {
    let secs = d.as_secs();
    let _ = if secs < 60 {
        write!(s, "{secs}s")
    } else if secs < 3600 {
        write!(s, "{}m{:02}s", secs / 60, secs % 60)
    } else {
        write!(s, "{}h{:02}m", secs / 3600, (secs / 60) % 60)
    };
}

impl std::fmt::Debug for StatusLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatusLine")
            .field("shown", &self.shown)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
