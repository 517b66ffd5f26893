//! A session's file and its sub-agents' files read as one input, their
//! lines in the order of their timestamps: each sub-agent's activity comes
//! between its `Agent`/`Task` call and that call's result, as a live
//! stream shows it, and the transcript reader nests it there.
//!
//! A k-way merge of whole lines. The next line of each file is dated by
//! the first `"timestamp":"…"` in its first [`LOOKAHEAD`] bytes (a
//! transcript entry writes its time after the message, which a long tool
//! output pushes further: such a line, and a line without a time, takes the
//! time of the line before it in its file, so each file keeps its own
//! order). The earliest goes first, ties to the file named first (the
//! session's). A line is passed on as it is read, in pieces if it is long:
//! memory stays at one buffer per file, whatever the line lengths. A file
//! that does not end with a line break gets one.

use std::io::{self, Read};
use std::sync::{Arc, LazyLock};

use memchr::memmem::Finder;

use super::Origins;
use crate::time::Timestamp;

/// Bytes of a line looked at for its time, and the buffer of each file
/// (a session with a hundred sub-agents holds 1.6 MiB of them).
pub const LOOKAHEAD: usize = 16 << 10;

/// Buffers of ended parts kept on each thread for the next sessions' (a
/// zeroed 16 KiB per file was 3.3% of a report over a library of small
/// sessions with sub-agents; issue 27).
const KEPT: usize = 8;

thread_local! {
    static BUFFERS: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One file of the merge.
struct Part<R> {
    rdr: R,
    /// Bytes read and not passed on yet: `buf[at..end]` (the buffer is
    /// [`LOOKAHEAD`] bytes once first read into, never zeroed again).
    buf: Vec<u8>,
    at: usize,
    end: usize,
    /// Its next line's time (or the last one's); `None` before any.
    time: Option<Timestamp>,
    /// `time` is that of the next line (not yet passed on).
    dated: bool,
    /// In the middle of a line: its start was passed on.
    mid_line: bool,
    eof: bool,
    /// Lines begun.
    lines: u64,
    /// Where in `buf` the line break that ends the next line is, once
    /// found: each line is searched once, not by each step of its merge.
    nl: Option<usize>,
}

impl<R: Read> Part<R> {
    fn new(rdr: R) -> Self {
        Part {
            rdr,
            buf: Vec::new(),
            at: 0,
            end: 0,
            time: None,
            dated: false,
            mid_line: false,
            eof: false,
            lines: 0,
            nl: None,
        }
    }

    /// The line break ending the line at `at`, if it is in the buffer.
    fn line_break(&mut self) -> Option<usize> {
        if self.nl.is_none_or(|nl| nl < self.at) {
            self.nl = memchr::memchr(b'\n', &self.buf[self.at..self.end]).map(|i| self.at + i);
        }
        self.nl
    }

    /// Read until the next line (from `at`) is whole in the buffer, or
    /// [`LOOKAHEAD`] bytes of it are, or the file ends. The bytes passed on
    /// are dropped only then, so that short lines cost no copy each.
    fn fill(&mut self) -> io::Result<()> {
        loop {
            if self.eof || self.end - self.at >= LOOKAHEAD || self.line_break().is_some() {
                return Ok(());
            }
            if self.buf.is_empty() {
                self.buf = BUFFERS
                    .with_borrow_mut(Vec::pop)
                    .unwrap_or_else(|| vec![0; LOOKAHEAD]);
            }
            // No line break after `at` (`line_break` left `nl` at `None`):
            // no position to move with the bytes.
            self.buf.copy_within(self.at..self.end, 0);
            self.end -= self.at;
            self.at = 0;
            match self.rdr.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// There is a next line: then it is dated (`time`), reading what that
    /// takes.
    fn next_line(&mut self) -> io::Result<bool> {
        if !self.dated {
            self.fill()?;
            if self.at == self.end {
                return Ok(false);
            }
            let to = self.line_break().unwrap_or(self.end);
            self.time = time_in(&self.buf[self.at..to]).or(self.time);
            self.dated = true;
        }
        Ok(true)
    }

    /// Pass on bytes of the current line into `out`, at most to its end.
    fn copy(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.at >= self.end {
            self.fill()?;
        }
        if self.at == self.end {
            // The file ended in the middle of its last line: end it.
            self.mid_line = false;
            self.dated = false;
            out[0] = b'\n';
            return Ok(1);
        }
        let line = self.line_break().map_or(self.end, |nl| nl + 1) - self.at;
        let rest = &self.buf[self.at..self.end];
        let n = line.min(out.len());
        out[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        self.mid_line = rest[n - 1] != b'\n';
        if !self.mid_line {
            self.dated = false;
        }
        Ok(n)
    }
}

impl<R> Drop for Part<R> {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        if buf.len() == LOOKAHEAD {
            // (Not kept when the thread is ending.)
            let _ = BUFFERS.try_with(|kept| {
                let mut kept = kept.borrow_mut();
                if kept.len() < KEPT {
                    kept.push(buf);
                }
            });
        }
    }
}

/// The first `"timestamp":"…"` of `line` that is a time.
fn time_in(line: &[u8]) -> Option<Timestamp> {
    static KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"timestamp\":\""));
    let from = KEY.find(line)? + KEY.needle().len();
    let len = memchr::memchr(b'"', &line[from..])?;
    Timestamp::parse(std::str::from_utf8(&line[from..from + len]).ok()?)
}

/// The lines of several readers, merged by time (see the module docs).
pub struct Interleave<R> {
    parts: Vec<Part<R>>,
    /// The part whose line is being passed on.
    current: Option<usize>,
    /// Lines begun, of all parts.
    lines: u64,
    /// The part of the last line begun.
    last: Option<usize>,
    /// Where each line came from, when asked ([`Interleave::tracing`]).
    origins: Option<Arc<Origins>>,
}

impl<R: Read> Interleave<R> {
    /// The lines of `readers`, merged; ties go to the earlier reader.
    pub fn new(readers: impl IntoIterator<Item = R>) -> Self {
        Interleave {
            parts: readers.into_iter().map(Part::new).collect(),
            current: None,
            lines: 0,
            last: None,
            origins: None,
        }
    }

    /// Record in `origins` where each line comes from (its parts in the
    /// order of [`Origins::files`]).
    #[must_use]
    pub fn tracing(mut self, origins: Arc<Origins>) -> Self {
        self.origins = Some(origins);
        self
    }

    /// Part `i` begins its next line.
    fn begin(&mut self, i: usize) {
        self.lines += 1;
        let part = &mut self.parts[i];
        part.lines += 1;
        if let Some(o) = &self.origins
            && self.last != Some(i)
        {
            o.record(self.lines, i, part.lines);
        }
        self.last = Some(i);
    }

    /// The part whose next line is the earliest; `None` when all ended.
    fn earliest(&mut self) -> io::Result<Option<usize>> {
        let mut best: Option<(Option<Timestamp>, usize)> = None;
        for (i, p) in self.parts.iter_mut().enumerate() {
            if p.next_line()? && best.is_none_or(|(b, _)| p.time < b) {
                best = Some((p.time, i));
            }
        }
        Ok(best.map(|(_, i)| i))
    }
}

impl<R: Read> Read for Interleave<R> {
    /// As many lines as `out` holds (a reader above may clear its buffer
    /// for each call: one line per call would cost that per line).
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < out.len() {
            let i = match self.current {
                Some(i) => i,
                None => match self.earliest()? {
                    Some(i) => {
                        self.begin(i);
                        i
                    }
                    None => break,
                },
            };
            let part = &mut self.parts[i];
            n += part.copy(&mut out[n..])?;
            self.current = part.mid_line.then_some(i);
            if self.current.is_some() {
                // A line longer than `out`: the rest next time.
                break;
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
