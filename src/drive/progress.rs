//! The progress line of a long library read: a report (`--by`, the
//! summaries, Markdown, HTML), `--list` or `--grep` over a directory that
//! takes more than [`AFTER`] says how far it is on stderr, a terminal:
//!
//! ```text
//! streamview: 1,204 of 3,310 files read · 41.2 MB/s
//! ```
//!
//! redrawn every [`EVERY`] by a thread of its own, in place (`\r`, erase
//! line, autowrap off so it never takes a second row), and erased before
//! anything else reaches the terminal and when the read ends: the output is
//! that of a run without it. It is not drawn while a line written to the
//! terminal is unfinished (erasing it would take the partial line along),
//! and never again once output has gone to the pager, which then owns the
//! screen. Everything written to the terminal while it may be shown goes
//! through [`Progress::writer`], under the same lock as the drawing.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::input::library;

/// A read shorter than this shows nothing.
pub(crate) const AFTER: Duration = Duration::from_secs(1);
/// How often the line is redrawn.
const EVERY: Duration = Duration::from_millis(100);
/// Back to the line's start, the line erased.
const ERASE: &[u8] = b"\r\x1b[2K";

/// Where a writer given to [`Progress::writer`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum To {
    /// The terminal the line is drawn on.
    Terminal,
    /// The pager: once written to, the line is not drawn again.
    Pager,
}

/// A library read under way.
struct Read {
    started: Instant,
    found: u64,
    files: u64,
    bytes: u64,
}

#[derive(Default)]
struct State {
    /// The line is on the terminal now.
    shown: bool,
    /// What was last written to the terminal ended its line.
    partial: bool,
    /// The pager owns the screen.
    stopped: bool,
    /// The run is over: the thread ends.
    done: bool,
    reading: Option<Read>,
}

impl State {
    /// Erase the line if it is shown.
    fn erase(&mut self) {
        if self.shown {
            let _ = io::stderr().write_all(ERASE);
            self.shown = false;
        }
    }

    /// Draw the line if it is due.
    fn draw(&mut self) {
        let Some(r) = &self.reading else { return };
        let took = r.started.elapsed();
        if took < AFTER || self.partial || self.stopped {
            return;
        }
        let line = format!(
            "\r\x1b[2K\x1b[?7lstreamview: {} of {} files read · {} MB/s\x1b[?7h",
            thousands(r.files),
            thousands(r.found),
            mb_per_s(r.bytes, took),
        );
        self.shown = io::stderr().write_all(line.as_bytes()).is_ok();
    }
}

/// `1204` → `1,204`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Megabytes (10⁶ bytes) a second, to a tenth.
fn mb_per_s(bytes: u64, took: Duration) -> String {
    #[allow(clippy::cast_precision_loss)] // shown to a tenth
    let rate = bytes as f64 / 1e6 / took.as_secs_f64().max(1e-3);
    format!("{rate:.1}")
}

/// What the thread and the writers share.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere leaves the state as good as it was.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The progress line and the thread that draws it; dropped, the thread
/// ends and the line is erased.
pub(crate) struct Progress {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Start the drawing thread (nothing is drawn before [`Progress::begin`]).
    pub(crate) fn start() -> Progress {
        let shared = Arc::new(Shared::default());
        let s = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                let mut st = s.lock();
                while !st.done {
                    st = (s.wake.wait_timeout(st, EVERY))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                    if !st.done {
                        st.draw();
                    }
                }
            })
            .ok();
        Progress { shared, thread }
    }

    /// A library read of `found` files begins.
    pub(crate) fn begin(&self, found: u64) {
        self.shared.lock().reading = Some(Read {
            started: Instant::now(),
            found,
            files: 0,
            bytes: 0,
        });
    }

    /// A session of the library has been read.
    pub(crate) fn read(&self, s: &library::Session) {
        self.add((s.files() as u64, s.bytes));
    }

    /// `files` more files, of `bytes`, have been read.
    pub(crate) fn add(&self, (files, bytes): (u64, u64)) {
        if let Some(r) = &mut self.shared.lock().reading {
            r.files = r.files.saturating_add(files);
            r.bytes = r.bytes.saturating_add(bytes);
        }
    }

    /// The library read has ended: the line is erased.
    pub(crate) fn end(&self) {
        let mut st = self.shared.lock();
        st.reading = None;
        st.erase();
    }

    /// `w`, which writes `to` the terminal or the pager: each write first
    /// erases the line.
    pub(crate) fn writer(&self, w: Box<dyn Write>, to: To) -> Box<dyn Write> {
        Box::new(Erasing {
            inner: w,
            shared: Arc::clone(&self.shared),
            to,
        })
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        {
            let mut st = self.shared.lock();
            st.done = true;
            st.erase();
        }
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A writer that erases the progress line before it writes.
struct Erasing {
    inner: Box<dyn Write>,
    shared: Arc<Shared>,
    to: To,
}

impl Write for Erasing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut st = self.shared.lock();
        st.erase();
        let n = self.inner.write(buf)?;
        match self.to {
            To::Pager => st.stopped = true,
            To::Terminal => {
                if let Some(last) = buf[..n].last() {
                    st.partial = *last != b'\n';
                }
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_rates_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1204), "1,204");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(mb_per_s(41_200_000, Duration::from_secs(1)), "41.2");
        assert_eq!(mb_per_s(5, Duration::ZERO), "0.0");
    }
}
