//! Line framing: `memchr` over one reused buffer.
//!
//! The reader hands out complete lines that are already buffered and only
//! reads again when none is left, so the caller can flush its output right
//! before it may block (see [`crate::run`](mod@crate::run)). A line longer than the limit is
//! not kept: the reader discards bytes until the next newline and reports the
//! line as [`Frame::TooLong`], so memory stays bounded by the limit.

use std::io::{self, Read};

/// Initial buffer size. The buffer grows (doubling) up to the line limit.
const INITIAL_CAPACITY: usize = 64 * 1024;

/// Above this capacity, the buffer is shrunk back once it is empty, so one huge
/// line does not pin its memory for the rest of the run.
const SHRINK_ABOVE: usize = 1024 * 1024;

/// Past the initial capacity, how much of the buffer is made ready (zeroed)
/// for one read. The capacity doubles, but only what the reads fill is
/// touched: a long line holds about its own length of memory, not the
/// doubling's (a 2.3 MB line: 2.5 MB resident, not 4 MiB).
const READ_AHEAD: usize = 256 * 1024;

/// One line of input, without its `\n` (and without a trailing `\r`).
#[derive(Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// The bytes of the line.
    pub bytes: &'a [u8],
    /// True for an unterminated last line (the input ended mid-line).
    pub partial: bool,
}

/// What the reader yields.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A line that fits the limit.
    Line(Line<'a>),
    /// A line longer than the limit; its bytes were discarded.
    TooLong {
        /// 1-based line number.
        number: u64,
        /// Its length in bytes (without the newline).
        len: u64,
        /// True when the input ended inside this line.
        partial: bool,
    },
}

/// Splits a byte stream into lines with bounded memory.
pub struct LineReader<R> {
    rdr: R,
    buf: Vec<u8>,
    /// Start of unconsumed data in `buf`.
    start: usize,
    /// End of valid data in `buf`.
    end: usize,
    /// Where to resume the newline search (bytes before it hold none).
    scanned: usize,
    max_line: usize,
    line_no: u64,
    eof: bool,
    /// `Some(len)` while skipping the rest of an over-long line.
    discarding: Option<u64>,
    /// The last byte dropped while discarding was `\r` (it may belong to a
    /// `\r\n` whose `\n` comes in the next read; it is not counted then).
    discarded_cr: bool,
    bytes_read: u64,
}

impl<R: Read> LineReader<R> {
    /// A reader over `rdr` that refuses lines longer than `max_line` bytes.
    pub fn new(rdr: R, max_line: usize) -> Self {
        LineReader::with_buffer(rdr, max_line, Vec::new())
    }

    /// As [`LineReader::new`], in the memory of another reader's buffer
    /// ([`LineReader::into_buffer`]): a library's sessions are read one
    /// after another without allocating and zeroing a buffer each.
    pub fn with_buffer(rdr: R, max_line: usize, mut buf: Vec<u8>) -> Self {
        let max_line = max_line.max(1);
        let initial = INITIAL_CAPACITY.min(max_line.saturating_add(1));
        if buf.len() < initial || buf.capacity() > SHRINK_ABOVE {
            buf = vec![0; initial];
        }
        LineReader {
            rdr,
            buf,
            start: 0,
            end: 0,
            scanned: 0,
            max_line,
            line_no: 0,
            eof: false,
            discarding: None,
            discarded_cr: false,
            bytes_read: 0,
        }
    }

    /// True once the underlying reader reported end of input.
    #[must_use]
    pub fn is_eof(&self) -> bool {
        self.eof
    }

    /// The buffer, for the next reader ([`LineReader::with_buffer`]).
    #[must_use]
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// Total bytes read so far.
    #[must_use]
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The next frame that can be produced without reading. After end of input
    /// this also yields the unterminated last line. `None` means: call
    /// [`LineReader::fill`] (or stop, at end of input).
    pub fn next_frame(&mut self) -> Option<Frame<'_>> {
        let data = &self.buf[self.scanned..self.end];
        if let Some(pos) = memchr::memchr(b'\n', data) {
            let nl = self.scanned + pos;
            self.line_no += 1;
            let number = self.line_no;
            let line_start = self.start;
            self.start = nl + 1;
            self.scanned = self.start;
            if let Some(skipped) = self.discarding.take() {
                let len = skipped + (nl - line_start) as u64;
                return Some(Frame::TooLong {
                    number,
                    len: self.trim_cr_len(len, line_start, nl),
                    partial: false,
                });
            }
            let bytes = strip_cr(&self.buf[line_start..nl]);
            if bytes.len() > self.max_line {
                return Some(Frame::TooLong {
                    number,
                    len: bytes.len() as u64,
                    partial: false,
                });
            }
            return Some(Frame::Line(Line {
                number,
                bytes,
                partial: false,
            }));
        }
        self.scanned = self.end;
        if !self.eof {
            return None;
        }
        // End of input: whatever is left is an unterminated last line.
        let line_start = self.start;
        self.start = self.end;
        self.scanned = self.end;
        if let Some(skipped) = self.discarding.take() {
            self.line_no += 1;
            let len = skipped + (self.end - line_start) as u64;
            let len = self.trim_cr_len(len, line_start, self.end);
            return Some(Frame::TooLong {
                number: self.line_no,
                len,
                partial: true,
            });
        }
        if line_start == self.end {
            return None;
        }
        self.line_no += 1;
        let bytes = strip_cr(&self.buf[line_start..self.end]);
        if bytes.len() > self.max_line {
            return Some(Frame::TooLong {
                number: self.line_no,
                len: bytes.len() as u64,
                partial: true,
            });
        }
        Some(Frame::Line(Line {
            number: self.line_no,
            bytes,
            partial: true,
        }))
    }

    /// Read more input. Returns `Ok(false)` at end of input. Call only after
    /// [`LineReader::next_frame`] returned `None`.
    ///
    /// # Errors
    /// Any I/O error of the underlying reader other than `Interrupted`.
    pub fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.make_room();
        loop {
            match self.rdr.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    self.bytes_read += n as u64;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The length of an over-long line without its trailing `\r`, which may
    /// still be in the buffer (`buf[from..to]`) or among the dropped bytes.
    fn trim_cr_len(&self, len: u64, from: usize, to: usize) -> u64 {
        let cr = match self.buf[from..to].last() {
            Some(b) => *b == b'\r',
            None => self.discarded_cr,
        };
        if cr { len.saturating_sub(1) } else { len }
    }

    /// Ensure there is free space after `end`: compact, grow, or (for an
    /// over-long line) drop what is buffered and keep only its length.
    fn make_room(&mut self) {
        if self.start == self.end {
            // Nothing pending: start over at the front, and give back memory
            // that a huge line made us take.
            self.start = 0;
            self.end = 0;
            self.scanned = 0;
            if self.buf.capacity() > SHRINK_ABOVE {
                self.buf = vec![0; INITIAL_CAPACITY.min(self.max_line.saturating_add(1))];
            }
        }
        let pending = self.end - self.start;
        if let Some(skipped) = self.discarding.as_mut() {
            // Only the length of an over-long line matters from here on.
            *skipped += pending as u64;
            if pending > 0 {
                self.discarded_cr = self.buf[self.end - 1] == b'\r';
            }
            self.start = 0;
            self.end = 0;
            self.scanned = 0;
            return;
        }
        // The pending partial line may carry a trailing `\r` that is not
        // counted, so allow max_line + 1 bytes before calling it too long.
        if pending > self.max_line.saturating_add(1) {
            self.discarding = Some(pending as u64);
            self.discarded_cr = self.buf[self.end - 1] == b'\r';
            self.start = 0;
            self.end = 0;
            self.scanned = 0;
            return;
        }
        if self.end < self.buf.len() {
            return;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.scanned -= self.start;
            self.end = pending;
            self.start = 0;
            if self.end < self.buf.len() {
                return;
            }
        }
        // Buffer full of one partial line: grow, up to just past the limit so
        // that crossing it is detected (see READ_AHEAD).
        let limit = self.max_line.saturating_add(2);
        let len = self.buf.len();
        if len == self.buf.capacity() {
            let capacity = len.saturating_mul(2).min(limit).max(len + 1);
            self.buf.reserve_exact(capacity - len);
        }
        let ready = (len.saturating_add(READ_AHEAD))
            .min(self.buf.capacity())
            .min(limit)
            .max(len + 1);
        self.buf.resize(ready, 0);
    }
}

fn strip_cr(bytes: &[u8]) -> &[u8] {
    match bytes.split_last() {
        Some((b'\r', rest)) => rest,
        _ => bytes,
    }
}

#[cfg(test)]
mod tests;
