//! The live status line: one line at the bottom of the terminal that says
//! what is happening now.
//!
//! ```text
//! ⠹ Bash npm test · 12s · turn 4 · 12.3k tokens · $0.0421 · last event 3s ago
//! ⏳ waiting 45s — last: Bash npm test · turn 4 · 12.3k tokens · $0.0421
//! ⠼ working — last: text · API retry 3 · turn 2 · 4.1k tokens
//! ```
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
//! written) so that erasing one row always erases all of it. While a text
//! block is being streamed mid-line it is not drawn: the growing text is the
//! progress, and the line's erase would take the text with it.
//!
//! Content in it (tool names, key arguments) is sanitized like everything
//! else the pretty output shows.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use crate::event::{DeltaKind, EventKind};
use crate::render::sanitize::sanitize_line;
use crate::render::{fmt_cost, fmt_count};
use crate::session::Session;

/// Shortest time between two redraws.
pub const MIN_REDRAW: Duration = Duration::from_millis(200);

/// How often a waiting reader wakes up to redraw.
pub const TICK: Duration = Duration::from_millis(250);

/// Default time without an event before the line says it is waiting.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// Longest tool label (name and key argument), in characters.
const MAX_LABEL: usize = 48;

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
    /// What the last event was about, for "waiting … — last: …".
    last_what: String,
    /// The last event was a session's result: the agent is not working.
    finished: bool,
    /// API requests retried since the model last answered (Claude's
    /// `api_retry`, Qwen's `system/retry`): a stalled agent says why.
    retries: u64,
    buf: Vec<u8>,
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
            last_what: String::new(),
            finished: false,
            retries: 0,
            buf: Vec::new(),
        }
    }

    /// A status line on the terminal that is standard output, or `None`
    /// when standard output cannot be duplicated.
    #[must_use]
    pub fn on_stdout(color: bool, wait: Duration) -> Option<Self> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let fd = io::stdout().as_fd().try_clone_to_owned().ok()?;
            let file = std::fs::File::from(fd);
            let probe = file.try_clone().ok()?;
            let width =
                move || terminal_size::terminal_size_of(&probe).map(|(w, _)| usize::from(w.0));
            Some(StatusLine::new(
                Box::new(file),
                Box::new(width),
                color,
                wait,
            ))
        }
        #[cfg(not(unix))]
        {
            let width = || terminal_size::terminal_size().map(|(w, _)| usize::from(w.0));
            Some(StatusLine::new(
                Box::new(io::stdout()),
                Box::new(width),
                color,
                wait,
            ))
        }
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
            EventKind::ToolCall(c) => self.last_what = label(&c.name, c.key_arg.as_deref()),
            EventKind::ToolResult(r) => {
                let note = session.note();
                if let Some(tool) = note.tool.as_deref() {
                    let how = if r.is_error { "failed" } else { "done" };
                    self.last_what = format!("{} ({how})", label(tool, note.key_arg.as_deref()));
                }
            }
            EventKind::Text(_) => "text".clone_into(&mut self.last_what),
            EventKind::Thinking(_) => "thinking".clone_into(&mut self.last_what),
            EventKind::Delta(d) if d.kind == DeltaKind::ToolStart => {
                self.last_what = format!("{} (input streaming)", label(&d.text, None));
            }
            EventKind::Delta(d) => d.kind.name().clone_into(&mut self.last_what),
            EventKind::PermissionDenied(_) => {
                "permission denied".clone_into(&mut self.last_what);
            }
            EventKind::SessionStart(_) => "session start".clone_into(&mut self.last_what),
            EventKind::Result(_) => {
                self.finished = true;
                "result".clone_into(&mut self.last_what);
            }
            _ => {}
        }
    }

    /// The line's text at `now` (without styling), before cutting.
    #[must_use]
    pub fn text(&self, now: Instant, session: &Session) -> String {
        let mut s = String::new();
        let idle = self.last_event.map(|t| now.saturating_duration_since(t));
        let waiting = !self.finished && idle.is_some_and(|d| d >= self.wait);
        if waiting {
            s.push_str("⏳ waiting ");
            push_secs(&mut s, idle.unwrap_or_default());
            if !self.last_what.is_empty() {
                s.push_str(" — last: ");
                s.push_str(&self.last_what);
            }
        } else {
            s.push(SPINNER[self.frame % SPINNER.len()]);
            s.push(' ');
            // The latest call still open (not one already reported as
            // never answered), and how many others are.
            let open = || {
                session
                    .unanswered_calls()
                    .map(|(_, c)| c)
                    .filter(|c| !c.reported)
            };
            let latest = open().max_by_key(|c| c.seq);
            let others = open().count().saturating_sub(1);
            if self.finished {
                s.push_str("finished");
            } else if let Some(c) = latest {
                s.push_str(&label(&c.name, c.key_arg.as_deref()));
                if let Some(since) = c.arrived {
                    s.push_str(" · ");
                    push_secs(&mut s, now.saturating_duration_since(since));
                }
                if others > 0 {
                    let _ = write!(s, " (+{others} running)");
                }
            } else if self.last_event.is_none() {
                s.push_str("waiting for the first event");
            } else {
                s.push_str("working");
                if !self.last_what.is_empty() {
                    s.push_str(" — last: ");
                    s.push_str(&self.last_what);
                }
            }
        }
        if self.retries > 0 && !self.finished {
            let _ = write!(s, " · API retry {}", self.retries);
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
                s.push_str(" · turn ");
                fmt_count(&mut s, turns);
            }
            let tokens = cur.tokens();
            if !tokens.is_empty() {
                s.push_str(" · ");
                fmt_count(&mut s, tokens.total());
                s.push_str(" tokens");
            }
            let cost = cur.cost_usd.or_else(|| {
                cur.models()
                    .iter()
                    .filter_map(|m| m.cost_usd)
                    .reduce(|a, b| a + b)
            });
            if let Some(c) = cost {
                s.push_str(" · ");
                fmt_cost(&mut s, c);
            }
        }
        if !waiting
            && !self.finished
            && let Some(d) = idle.filter(|d| d.as_secs() >= 1)
        {
            s.push_str(" · last event ");
            push_secs(&mut s, d);
            s.push_str(" ago");
        }
        s
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
        let text = self.text(now, session);
        let waiting = text.starts_with('⏳');
        // One column is left free: a character in the last column makes
        // some terminals wrap at the next output.
        let cols = (self.width)().filter(|w| *w > 1).unwrap_or(80) - 1;
        let text = cut(&text, cols);
        self.buf.clear();
        self.buf.extend_from_slice(ERASE);
        // Autowrap off while the line is written: a too-wide line is
        // clipped by the terminal instead of spilling onto a second row.
        self.buf.extend_from_slice(b"\x1b[?7l");
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

/// `Bash npm test`, sanitized, on one line, cut.
fn label(name: &str, key: Option<&str>) -> String {
    let mut s = String::with_capacity(MAX_LABEL);
    s.push_str(&sanitize_line(name));
    if let Some(k) = key {
        s.push(' ');
        s.push_str(&sanitize_line(k));
    }
    // sanitize_line already shows line breaks as `␊`: one row.
    cut(&s, MAX_LABEL)
}

/// At most `cols` columns of `s`, with `…` when cut. Any character outside
/// ASCII counts as two columns (wide CJK, emoji): a line cut a little short
/// never spills onto a second row.
fn cut(s: &str, cols: usize) -> String {
    let width = |c: char| if c.is_ascii() { 1 } else { 2 };
    if s.chars().map(width).sum::<usize>() <= cols {
        return s.to_string();
    }
    // One column for the ellipsis.
    let mut used = 1;
    let mut out = String::with_capacity(cols * 4);
    for c in s.chars() {
        if used + width(c) > cols {
            break;
        }
        used += width(c);
        out.push(c);
    }
    out.push('…');
    out
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
