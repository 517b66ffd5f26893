//! One status line for several sources followed at once (`-f A B …`,
//! `--latest N -f`): what each is doing, side by side, and which has been
//! quiet longest.
//!
//! ```text
//! [api] ⠹ Bash npm test · 12s │ [web] ⏳ waiting 45s — Read a.txt │ quiet longest: [web] 45s
//! ```
//!
//! Each source's run keeps its own [`StatusLine`], as one run does, cut to
//! its share of the width; it writes into its slot of the [`Board`]
//! ([`Board::status_line`]) instead of the terminal. The board draws the
//! slots on one line, and every line of real output the runs write goes
//! through it ([`Board::terminal`]): the line is erased before and drawn
//! again after, under one lock, so that it never mixes with the output
//! (the runs write whole lines only: `render/label.rs`).

use std::io::{self, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{ERASE, MIN_REDRAW, StatusLine};
use crate::render::label::Label;

/// Columns kept for `quiet longest: [NAME] 12m05s`.
const QUIET: usize = 32;

/// Between two slots.
const SEPARATOR: &str = " │ ";

/// The line of several sources (see the module docs).
pub struct Board {
    inner: Mutex<Inner>,
    width: super::Width,
    color: bool,
}

struct Inner {
    /// The terminal.
    out: Box<dyn Write + Send>,
    slots: Vec<Slot>,
    /// The line is on the screen.
    shown: bool,
    last_draw: Option<Instant>,
}

struct Slot {
    name: String,
    /// What its status line says, without the erase and wrap controls.
    text: Vec<u8>,
    /// When its run last wrote a line of output (or began).
    last_output: Instant,
    ended: bool,
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Board").finish_non_exhaustive()
    }
}

impl Board {
    /// A board for the sources `labels`, drawn on `out` (the terminal,
    /// `width` columns wide).
    pub fn new(
        out: Box<dyn Write + Send>,
        width: super::Width,
        labels: &[Label],
        color: bool,
    ) -> Arc<Board> {
        let now = Instant::now();
        let slots = (labels.iter())
            .map(|l| Slot {
                name: l.name.clone(),
                text: Vec::new(),
                last_output: now,
                ended: false,
            })
            .collect();
        Arc::new(Board {
            inner: Mutex::new(Inner {
                out,
                slots,
                shown: false,
                last_draw: None,
            }),
            width,
            color,
        })
    }

    /// A board on the terminal that is standard output (`None`: it cannot
    /// be duplicated).
    #[must_use]
    pub fn on_stdout(labels: &[Label], color: bool) -> Option<Arc<Board>> {
        let (out, width) = super::stdout_terminal()?;
        Some(Board::new(out, width, labels, color))
    }

    /// The columns each source's status line gets.
    fn share(&self, n: usize) -> usize {
        let cols = (self.width)().filter(|w| *w > 1).unwrap_or(80) - 1;
        let n = n.max(1);
        let rest = cols.saturating_sub(QUIET + SEPARATOR.len() * n);
        (rest / n).max(16)
    }

    /// The status line of source `slot`, with `label` at its start, written
    /// into its slot.
    #[must_use]
    pub fn status_line(self: &Arc<Self>, slot: usize, label: &Label, wait: Duration) -> StatusLine {
        let board = Arc::clone(self);
        let n = self.lock().slots.len();
        let share =
            move || Some(board.share(n) + super::super::label::prefix_width(&board.name(slot)) + 1);
        let writer = SlotWriter {
            board: Arc::clone(self),
            slot,
        };
        StatusLine::new(Box::new(writer), Box::new(share), self.color, wait).with_label(Some(label))
    }

    /// Standard output (or error) of source `slot`: every write is whole
    /// lines, written with the line erased before and drawn again after.
    #[must_use]
    pub fn terminal(self: &Arc<Self>, slot: usize, out: Box<dyn Write>) -> Box<dyn Write> {
        Box::new(Output {
            board: Arc::clone(self),
            slot,
            out,
        })
    }

    /// Source `slot`'s run has ended; the line is erased when all have.
    pub fn end(&self, slot: usize) {
        let mut inner = self.lock();
        if let Some(s) = inner.slots.get_mut(slot) {
            s.ended = true;
        }
        if inner.slots.iter().all(|s| s.ended) {
            inner.erase();
        } else {
            self.draw(&mut inner, true);
        }
    }

    fn name(&self, slot: usize) -> String {
        (self.lock().slots.get(slot)).map_or_else(String::new, |s| s.name.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Draw the line (unless drawn less than [`MIN_REDRAW`] ago, when not
    /// `now`).
    fn draw(&self, inner: &mut Inner, now: bool) {
        let at = Instant::now();
        if !now
            && inner
                .last_draw
                .is_some_and(|t| at.saturating_duration_since(t) < MIN_REDRAW)
        {
            return;
        }
        inner.last_draw = Some(at);
        let line = compose(&inner.slots, at, self.color);
        let mut buf = Vec::with_capacity(line.len() + 16);
        buf.extend_from_slice(ERASE);
        buf.extend_from_slice(b"\x1b[?7l");
        buf.extend_from_slice(&line);
        buf.extend_from_slice(b"\x1b[?7h");
        let ok = inner.out.write_all(&buf).and_then(|()| inner.out.flush());
        inner.shown = ok.is_ok();
    }
}

impl Inner {
    fn erase(&mut self) {
        if self.shown {
            let _ = self.out.write_all(ERASE).and_then(|()| self.out.flush());
            self.shown = false;
        }
    }
}

/// The slots side by side, then the one quiet longest.
fn compose(slots: &[Slot], now: Instant, color: bool) -> Vec<u8> {
    let mut line = Vec::new();
    for (i, s) in slots.iter().enumerate() {
        if i > 0 {
            line.extend_from_slice(SEPARATOR.as_bytes());
        }
        if s.ended || s.text.is_empty() {
            let what = if s.ended { "ended" } else { "…" };
            let dim = if color { "\x1b[2m" } else { "" };
            let reset = if color { "\x1b[0m" } else { "" };
            line.extend_from_slice(format!("[{}] {dim}{what}{reset}", s.name).as_bytes());
        } else {
            line.extend_from_slice(&s.text);
        }
    }
    let quiet = (slots.iter())
        .filter(|s| !s.ended)
        .map(|s| (now.saturating_duration_since(s.last_output), &s.name))
        .max_by_key(|(d, _)| *d)
        .filter(|_| slots.iter().filter(|s| !s.ended).count() > 1);
    if let Some((d, name)) = quiet {
        let mut t = String::new();
        crate::render::fmt_duration(&mut t, u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        line.extend_from_slice(format!("{SEPARATOR}quiet longest: [{name}] {t}").as_bytes());
    }
    line
}

/// Where a source's [`StatusLine`] writes: its slot.
struct SlotWriter {
    board: Arc<Board>,
    slot: usize,
}

impl Write for SlotWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut inner = self.board.lock();
        // A draw is `ERASE`, autowrap off, the text, autowrap on; a hide is
        // `ERASE` alone: the slot keeps what it last said.
        let text = strip_controls(buf);
        if !text.is_empty()
            && let Some(s) = inner.slots.get_mut(self.slot)
        {
            s.text = text;
            self.board.draw(&mut inner, false);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `buf` without the erase and autowrap sequences a status line writes.
fn strip_controls(buf: &[u8]) -> Vec<u8> {
    let mut out = buf.to_vec();
    for seq in [ERASE, b"\x1b[?7l".as_slice(), b"\x1b[?7h".as_slice()] {
        while let Some(at) = memchr::memmem::find(&out, seq) {
            out.drain(at..at + seq.len());
        }
    }
    out
}

/// A source's output: written with the line out of the way.
struct Output {
    board: Arc<Board>,
    slot: usize,
    out: Box<dyn Write>,
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut inner = self.board.lock();
        inner.erase();
        self.out.write_all(buf)?;
        self.out.flush()?;
        if let Some(s) = inner.slots.get_mut(self.slot) {
            s.last_output = Instant::now();
        }
        self.board.draw(&mut inner, true);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A terminal shared by the test and the board.
    #[derive(Clone, Default)]
    struct Screen(Arc<Mutex<Vec<u8>>>);

    impl Write for Screen {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn label(name: &str) -> Label {
        Label {
            name: name.to_string(),
            prefixed: true,
            color_stdout: false,
            color_stderr: false,
            spec: termcolor::ColorSpec::new(),
        }
    }

    /// The last line drawn: after the last erase.
    fn last_line(screen: &Screen) -> String {
        let bytes = screen.0.lock().unwrap().clone();
        let text = String::from_utf8(bytes).unwrap();
        let last = text.rsplit("\r\x1b[2K").next().unwrap_or("");
        last.replace("\x1b[?7l", "").replace("\x1b[?7h", "")
    }

    #[test]
    fn each_source_says_what_it_does_and_the_quiet_one_is_named() {
        let screen = Screen::default();
        let labels = [label("api"), label("web")];
        let board = Board::new(
            Box::new(screen.clone()),
            Box::new(|| Some(160)),
            &labels,
            false,
        );
        let mut api = board.status_line(0, &labels[0], Duration::from_secs(30));
        let mut out = board.terminal(0, Box::new(screen.clone()));
        // Both write their status; then only api writes output.
        let session = crate::session::Session::new();
        api.draw(Instant::now(), &session);
        std::thread::sleep(Duration::from_millis(30));
        out.write_all(b"[api] line\n").unwrap();
        let line = last_line(&screen);
        assert!(line.starts_with("[api] "), "{line:?}");
        assert!(line.contains(" │ [web] …"), "{line:?}");
        assert!(line.contains("quiet longest: [web]"), "{line:?}");
        // The output itself is on the screen, whole, before the line.
        let all = String::from_utf8(screen.0.lock().unwrap().clone()).unwrap();
        assert!(all.contains("\r\x1b[2K[api] line\n"), "{all:?}");
        board.end(1);
        assert!(
            last_line(&screen).contains("[web] ended"),
            "{:?}",
            last_line(&screen)
        );
        board.end(0);
        assert_eq!(last_line(&screen), "", "erased when all have ended");
    }

    #[test]
    fn a_status_lines_controls_are_not_kept() {
        assert_eq!(strip_controls(b"\r\x1b[2K\x1b[?7l[a] x\x1b[?7h"), b"[a] x");
        assert_eq!(strip_controls(b"\r\x1b[2K"), b"");
    }
}
