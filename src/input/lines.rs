//! Line framing: `memchr` over one reused buffer.
//!
//! The reader hands out complete lines that are already buffered and only
//! reads again when none is left, so the caller can flush its output right
//! before it may block (see [`crate::run`](mod@crate::run)). A line longer than the limit is
//! not kept: the reader discards bytes until the next newline and reports the
//! line as [`Frame::TooLong`], so memory stays bounded by the limit.
//! An input whose first line runs past the limit with a NUL byte in it
//! ([`LineReader::is_binary`]: `/dev/zero`, one line that never ends) is
//! not text: it ends there.

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
    /// The first line ran past the limit with a NUL byte in it.
    binary: bool,
    bytes_read: u64,
    /// Where the whole lines buffered end (after the last `\n` before
    /// `end`), once looked for since the last read ([`LineReader::pass_over`]).
    whole_end: Option<usize>,
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
            binary: false,
            bytes_read: 0,
            whole_end: None,
        }
    }

    /// Its lines numbered on from `before` (the first is `before + 1`): the
    /// rest of a file whose first `before` lines were read by another run.
    #[must_use]
    pub fn numbered_after(mut self, before: u64) -> Self {
        self.line_no = before;
        self
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

    /// The input's first bytes, two more than the limit (a line over it
    /// and its `\r`), hold a NUL byte and no line break: it is binary, not
    /// text (no JSON line holds a raw NUL, and `/dev/zero` is one such line
    /// that never ends, which [`LineReader::fill`] would read for ever). It
    /// ends there, without a frame: [`LineReader::fill`] reads no more of
    /// it and says it ended.
    #[must_use]
    pub fn is_binary(&self) -> bool {
        self.binary
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
        if self.binary {
            return None;
        }
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

    /// Pass over the whole lines buffered before the first that `find` says
    /// may hold what is looked for, without framing them one by one, and
    /// return how many were passed over (their numbers are taken as if
    /// framed), or `None` when there was nothing to look at. `find` gets
    /// the buffered whole lines as one slice, each with its `\n`, and
    /// returns where in it a match may start (`None`: nowhere); the line it
    /// starts in is framed next. A search that only
    /// reads lines that may match (`--grep`) then reads at a memchr's pace,
    /// as ripgrep does, and not line by line.
    ///
    /// Nothing is passed over while an over-long line is being dropped, or
    /// when the buffer could hold a line over the limit: those are framed
    /// as [`Frame::TooLong`] and reported as ever.
    pub fn pass_over(&mut self, find: impl FnOnce(&[u8]) -> Option<usize>) -> Option<u64> {
        // A whole line in the buffer is at most one byte shorter than it.
        if self.discarding.is_some() || self.buf.len() > self.max_line.saturating_add(1) {
            return None;
        }
        // The last line break is looked for once a read: asked before each
        // line framed, it was a search of the last line's bytes each time.
        let whole_end = *self.whole_end.get_or_insert_with(|| {
            memchr::memrchr(b'\n', &self.buf[self.start..self.end])
                .map_or(0, |i| self.start + i + 1)
        });
        if whole_end <= self.start {
            return None;
        }
        let whole = &self.buf[self.start..whole_end];
        let upto = match find(whole) {
            None => whole.len(),
            Some(at) => {
                memchr::memrchr(b'\n', &whole[..at.min(whole.len())]).map_or(0, |nl| nl + 1)
            }
        };
        if upto == 0 {
            return Some(0);
        }
        let lines = newlines(&whole[..upto]);
        self.line_no += lines;
        // The bytes before `scanned` held no newline, so it was before them;
        // after the last newline, there is none.
        self.scanned = if upto == whole.len() {
            self.end
        } else {
            self.start + upto
        };
        self.start += upto;
        Some(lines)
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
        self.whole_end = None;
        self.make_room();
        if self.binary {
            self.eof = true;
            return Ok(false);
        }
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
            // The first line: binary if these bytes of it hold a NUL.
            let first = &self.buf[self.start..self.end];
            self.binary = self.line_no == 0 && memchr::memchr(0, first).is_some();
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

/// The `\n`s in `bytes`: with AVX2, 32 byte counters added to by vector
/// compares, summed every 255 steps (memchr's count finds them one by one:
/// 49 M instructions where this takes 18 M, over a library's 198 MiB).
/// The pretty view counts a tool output's lines with it too.
pub(crate) fn newlines(bytes: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { newlines_avx2(bytes) };
    }
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn newlines_avx2(bytes: &[u8]) -> u64 {
    use std::arch::x86_64::{
        _mm256_cmpeq_epi8, _mm256_extract_epi64, _mm256_loadu_si256, _mm256_sad_epu8,
        _mm256_set1_epi8, _mm256_setzero_si256, _mm256_sub_epi8,
    };
    #[allow(clippy::cast_possible_wrap)]
    let nl = _mm256_set1_epi8(b'\n' as i8);
    let mut n = 0;
    // Runs of 255 steps of 32 bytes: a byte counter cannot pass 255.
    for run in bytes.chunks(32 * 255) {
        let mut counts = _mm256_setzero_si256();
        let mut steps = run.chunks_exact(32);
        for step in &mut steps {
            // SAFETY: `step` is 32 bytes long; the load is unaligned.
            #[allow(unsafe_code)]
            let v = unsafe { _mm256_loadu_si256(step.as_ptr().cast()) };
            // A match is -1 in its byte: subtracted, it counts one.
            counts = _mm256_sub_epi8(counts, _mm256_cmpeq_epi8(v, nl));
        }
        let sums = _mm256_sad_epu8(counts, _mm256_setzero_si256());
        #[allow(clippy::cast_sign_loss)]
        let sum = [
            _mm256_extract_epi64::<0>(sums),
            _mm256_extract_epi64::<1>(sums),
            _mm256_extract_epi64::<2>(sums),
            _mm256_extract_epi64::<3>(sums),
        ]
        .iter()
        .map(|&s| s as u64)
        .sum::<u64>();
        n += sum + memchr::memchr_iter(b'\n', steps.remainder()).count() as u64;
    }
    n
}

fn strip_cr(bytes: &[u8]) -> &[u8] {
    match bytes.split_last() {
        Some((b'\r', rest)) => rest,
        _ => bytes,
    }
}

#[cfg(test)]
mod tests;
