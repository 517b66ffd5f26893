//! The reused memory a line is parsed in, and the one place that knows how
//! its lifetimes fit together.
//!
//! simd-json parses in place: the line is copied into a scratch `Vec`
//! (padded as simd-json needs) and its strings are unescaped there, so the
//! original bytes stay intact for verbatim pass-through. The tape, the
//! long strings of the line ([`scan`]) and their unescaped text are kept
//! between lines for their allocations, emptied: once they have grown to
//! what the lines need, parsing a line allocates nothing. A [`Value`]
//! borrows all of them, so it lives only inside [`Parser::parse`]'s
//! callback.

use std::sync::{Mutex, OnceLock};

use simd_json::tape::Tape;

use super::scan;
use super::value::{Longs, POOLED_TEXT, POOLED_TEXTS, Value};

/// Parses lines into [`Value`]s, reusing its buffers.
pub(crate) struct Parser {
    /// The line being parsed, followed by simd-json's padding.
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
    /// The tape of the last line, kept empty between lines for its
    /// allocation (a `'static` tape holds no borrow).
    tape: Option<Tape<'static>>,
    /// The long strings of the last line, kept empty between lines for
    /// the allocation.
    longs: Vec<scan::Long<'static>>,
    /// The unescaped text of the long strings read, one per long string.
    long_text: Vec<OnceLock<String>>,
    /// Their allocations, between lines.
    text_pool: Mutex<Vec<String>>,
    /// Lines at least this long are scanned for long strings.
    scan_min_line: usize,
    /// Strings at least this long are spared the parser.
    scan_min_len: usize,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            scratch: Vec::new(),
            buffers: simd_json::Buffers::default(),
            tape: None,
            longs: Vec::new(),
            long_text: Vec::new(),
            text_pool: Mutex::new(Vec::new()),
            scan_min_line: scan::MIN_LINE,
            scan_min_len: scan::MIN_LEN,
        }
    }
}

impl Parser {
    /// Lines at least `min_line` bytes long have their string values of at
    /// least `min_len` bytes spared the parser (by default 4 KiB and 1 KiB).
    /// Only speed may depend on it: tests and the fuzz target compare the
    /// events with the scan everywhere and nowhere.
    pub(crate) fn spare_strings(&mut self, min_line: usize, min_len: usize) {
        self.scan_min_line = min_line;
        self.scan_min_len = min_len;
    }

    /// Parse `bytes` (one JSON text) and pass the value, or simd-json's
    /// error, to `then`.
    pub(crate) fn parse<R>(
        &mut self,
        bytes: &[u8],
        then: impl FnOnce(Result<Value<'_>, simd_json::Error>) -> R,
    ) -> R {
        let Parser {
            scratch,
            buffers,
            tape,
            longs,
            long_text,
            text_pool,
            scan_min_line,
            scan_min_len,
        } = self;
        // A long line's long string values are spared the parser (see
        // `scan`): it gets the line with placeholders in their place.
        let mut found: Vec<scan::Long<'_>> = Vec::new();
        if bytes.len() >= *scan_min_line {
            found = std::mem::take(longs);
            if !scan::long_strings(bytes, *scan_min_len, &mut found) {
                found.clear();
            }
        }
        // Parsed in place in one copy of the line (simd-json unescapes
        // strings in it), padded as simd-json needs, into a reused tape.
        let result = loop {
            let json_len = fill_skeleton(scratch, bytes, &found);
            let mut parsed: Tape<'_> = tape.take().unwrap_or_else(|| Tape(Vec::new())).reset();
            let res = simd_json::fill_tape_padded(scratch, json_len, buffers, &mut parsed);
            let result = match res {
                Err(_) if !found.is_empty() => {
                    // Not valid (or the scan was wrong): the whole line
                    // again, for simd-json's own report.
                    *tape = Some(parsed.reset());
                    found.clear();
                    continue;
                }
                Err(e) => then(Err(e)),
                Ok(()) => {
                    if long_text.len() < found.len() {
                        long_text.resize_with(found.len(), OnceLock::new);
                    }
                    let lookup = Longs {
                        list: &found,
                        text: &long_text[..found.len()],
                        pool: Some(text_pool),
                    };
                    then(Ok(Value::new(parsed.as_value(), &lookup)))
                }
            };
            *tape = Some(parsed.reset());
            break result;
        };
        if found.capacity() > 0 {
            let pool = text_pool
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for t in &mut long_text[..found.len()] {
                if let Some(text) = t.take()
                    && text.capacity() <= POOLED_TEXT
                    && pool.len() < POOLED_TEXTS
                {
                    pool.push(text);
                }
            }
            found.clear();
            // Empty: the allocation, without the line's lifetime (collected
            // in place; the closure only changes the type).
            #[allow(clippy::unnecessary_filter_map)]
            let empty = found.into_iter().filter_map(|_| None).collect();
            *longs = empty;
        }
        result
    }
}

/// `scratch` := `line` with each of `longs` replaced by a placeholder
/// (`\u0000` and its index), and simd-json's padding after it; its length
/// is that of the JSON text.
fn fill_skeleton(scratch: &mut Vec<u8>, line: &[u8], longs: &[scan::Long<'_>]) -> usize {
    scratch.clear();
    let mut done = 0;
    for (i, l) in longs.iter().enumerate() {
        scratch.extend_from_slice(&line[done..l.start]);
        scratch.extend_from_slice(b"\\u0000");
        push_index(scratch, i);
        done = l.start + l.body.len();
    }
    scratch.extend_from_slice(&line[done..]);
    let len = scratch.len();
    scratch.resize(len + simd_json::INPUT_PADDING, 0);
    len
}

fn push_index(out: &mut Vec<u8>, i: usize) {
    if i >= 10 {
        push_index(out, i / 10);
    }
    #[allow(clippy::cast_possible_truncation)] // a digit
    out.push(b'0' + (i % 10) as u8);
}
