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

use super::prune::{self, Unread};
use super::scan;
use super::value::{Longs, POOLED_TEXT, POOLED_TEXTS, Value};

/// [`Parser::reuse`] keeps the buffers of lines up to this long.
const KEEP_BETWEEN_INPUTS: usize = 4 << 20;

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
    /// How lines are parsed (the rest is memory).
    settings: Settings,
    /// The line without the values no reader reads, when it held some.
    condensed: Vec<u8>,
    /// Their spans in the line.
    pruned: Vec<(usize, usize)>,
}

/// How a [`Parser`] parses lines.
#[derive(Clone, Copy)]
struct Settings {
    /// Lines at least this long are scanned for long strings.
    scan_min_line: usize,
    /// Strings at least this long are spared the parser.
    scan_min_len: usize,
    /// The values no reader of these lines reads ([`Parser::leave_unread`]).
    unread: &'static [Unread],
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            scan_min_line: scan::MIN_LINE,
            scan_min_len: scan::MIN_LEN,
            unread: &[],
        }
    }
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
            settings: Settings::default(),
            condensed: Vec::new(),
            pruned: Vec::new(),
        }
    }
}

impl Parser {
    /// Lines at least `min_line` bytes long have their string values of at
    /// least `min_len` bytes spared the parser (by default 4 KiB and 1 KiB).
    /// Only speed may depend on it: tests and the fuzz target compare the
    /// events with the scan everywhere and nowhere.
    pub(crate) fn spare_strings(&mut self, min_line: usize, min_len: usize) {
        self.settings.scan_min_line = min_line;
        self.settings.scan_min_len = min_len;
    }

    /// The same buffers, emptied, with the default settings: for another
    /// input. After a line over [`KEEP_BETWEEN_INPUTS`] bytes, new ones, so
    /// that one huge line does not pin its memory for the rest of a run.
    pub(crate) fn reuse(self) -> Parser {
        if self.scratch.capacity() > KEEP_BETWEEN_INPUTS {
            return Parser::default();
        }
        Parser {
            settings: Settings::default(),
            ..self
        }
    }

    /// Values no report reads (see [`prune`]): on a long line, those that
    /// are objects or arrays are emptied before the parse. Empty (the
    /// default): every value is parsed.
    pub(crate) fn leave_unread(&mut self, rules: &'static [Unread]) {
        self.settings.unread = rules;
    }

    /// Parse `bytes` (one JSON text) and pass the value, or why it was
    /// not parsed, to `then`.
    pub(crate) fn parse<R>(
        &mut self,
        bytes: &[u8],
        then: impl FnOnce(Result<Value<'_>, ParseError>) -> R,
    ) -> R {
        let Parser {
            scratch,
            buffers,
            tape,
            longs,
            long_text,
            text_pool,
            settings,
            condensed,
            pruned,
        } = self;
        let Settings {
            scan_min_line,
            scan_min_len,
            unread,
        } = *settings;
        // A long line's values no report reads are emptied (see `prune`):
        // the rest is parsed as the line.
        let whole = bytes;
        let mut bytes = prune::emptied(bytes, unread, pruned, condensed).unwrap_or(bytes);
        // A long line's long string values are spared the parser (see
        // `scan`): it gets the line with placeholders in their place.
        // (The allocation kept empty between lines, given the line's
        // lifetime: collected in place; the closure only changes the type.)
        #[allow(clippy::unnecessary_filter_map)]
        let mut found: Vec<scan::Long<'_>> = std::mem::take(longs)
            .into_iter()
            .filter_map(|_| None)
            .collect();
        let mut scan_min_line = scan_min_line;
        let result = loop {
            found.clear();
            if bytes.len() >= scan_min_line && !scan::long_strings(bytes, scan_min_len, &mut found)
            {
                found.clear();
            }
            // Parsed in place in one copy of the line (simd-json unescapes
            // strings in it), padded as simd-json needs, into a reused tape.
            let json_len = fill_skeleton(scratch, bytes, &found);
            if let Some(values) = too_dense(&scratch[..json_len], whole.len()) {
                break then(Err(ParseError::TooDense { values }));
            }
            let mut parsed: Tape<'_> = tape.take().unwrap_or_else(|| Tape(Vec::new())).reset();
            let res = simd_json::fill_tape_padded(scratch, json_len, buffers, &mut parsed);
            let result = match res {
                Err(_) if !std::ptr::eq(bytes, whole) => {
                    // Not valid once emptied: the whole line again, for
                    // simd-json's own report.
                    *tape = Some(parsed.reset());
                    bytes = whole;
                    continue;
                }
                Err(_) if !found.is_empty() => {
                    // Not valid (or the scan was wrong): the whole line
                    // again, for simd-json's own report.
                    *tape = Some(parsed.reset());
                    scan_min_line = usize::MAX;
                    continue;
                }
                Err(e) => then(Err(ParseError::Json(e))),
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

/// Why [`Parser::parse`] gives no value.
#[derive(Debug)]
pub(crate) enum ParseError {
    /// Not valid JSON: simd-json's report.
    Json(simd_json::Error),
    /// Valid or not, the line holds more JSON values than its parse may
    /// take memory for ([`too_dense`]); it was not parsed.
    TooDense {
        /// About how many values it holds.
        values: usize,
    },
}

/// Memory simd-json takes per value of a line: a tape node (24 bytes) and
/// about two structural indexes (4 bytes each), rounded up.
const BYTES_PER_VALUE: usize = 32;

/// The parse of any line may take this much memory for its values, plus
/// half the line's length (see [`too_dense`]).
const DENSE_ALLOWANCE: usize = 8 << 20;

/// Lines that could hold values for more than [`DENSE_ALLOWANCE`] at all,
/// at one value per two bytes; shorter ones are never counted.
const DENSE_CHECK_MIN: usize = DENSE_ALLOWANCE / (BYTES_PER_VALUE / 2);

/// `Some(values)` when the JSON text `json` (the skeleton of a line of
/// `line_len` bytes) holds so many values that parsing it would take more
/// than [`DENSE_ALLOWANCE`] plus half the line's length: a 30 MB
/// `[0,0,…]` would take 16 times its size in tape. Such lines are skipped
/// and reported, which keeps memory within 16 MiB plus three times the
/// longest line whatever a line holds (docs/usage.md). Real lines are
/// mostly strings (spared the parser by the long-string scan) and stay far
/// below.
///
/// Values are counted by their separators and openers (`,` `:` `[` `{`):
/// first over every byte, which is fast and can only count too many (a
/// comma inside a short string); only a line that fails that count is
/// counted again outside its strings.
fn too_dense(json: &[u8], line_len: usize) -> Option<usize> {
    if json.len() < DENSE_CHECK_MIN {
        return None;
    }
    let limit = (DENSE_ALLOWANCE + line_len / 2) / BYTES_PER_VALUE;
    if separators(json) <= limit {
        return None;
    }
    let values = values_outside_strings(json);
    (values > limit).then_some(values)
}

/// The separators and openers of `json`, in strings too: counted in runs
/// of 255 bytes into one byte each, which the compiler turns into vector
/// compares (about 5 GB/s measured; a plain `filter().count()` made 1.3).
fn separators(json: &[u8]) -> usize {
    json.chunks(255)
        .map(|run| {
            let mut n: u8 = 0;
            for &b in run {
                n += u8::from(matches!(b, b',' | b':' | b'[' | b'{'));
            }
            usize::from(n)
        })
        .sum()
}

/// The separators and openers of `json` that are not inside a string.
fn values_outside_strings(json: &[u8]) -> usize {
    let mut n = 0;
    let mut in_string = false;
    let mut escaped = false;
    for &b in json {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else {
            match b {
                b'"' => in_string = true,
                b',' | b':' | b'[' | b'{' => n += 1,
                _ => {}
            }
        }
    }
    n
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `[0,0,…]` of `n` values.
    fn zeros(n: usize) -> Vec<u8> {
        let mut v = b"[0".to_vec();
        for _ in 1..n {
            v.extend_from_slice(b",0");
        }
        v.push(b']');
        v
    }

    #[test]
    fn separators_are_counted_outside_strings_only_when_it_matters() {
        let json = br#"{"a,b":[1,{"c":"d:[{"}],"e\",":2}"#;
        assert_eq!(separators(json), 13);
        // `{` `:` `[` `,` `{` `:` `,` `:`: the rest are in strings.
        assert_eq!(values_outside_strings(json), 8);
    }

    #[test]
    fn a_dense_line_is_refused_and_a_sparse_one_of_the_same_length_is_not() {
        let dense = zeros(4 << 20);
        let values = too_dense(&dense, dense.len()).expect("8 MB of zeros is too dense");
        assert_eq!(values, (4 << 20) - 1 + 1);
        // As long, but its commas are inside short strings: parsed.
        let mut sparse = b"[".to_vec();
        while sparse.len() < dense.len() {
            sparse.extend_from_slice(b"\"");
            sparse.extend_from_slice(&[b','; 500]);
            sparse.extend_from_slice(b"\",");
        }
        sparse.extend_from_slice(b"0]");
        assert!(separators(&sparse) > dense.len() / 2);
        assert_eq!(too_dense(&sparse, sparse.len()), None);
        // Below the size where values could need the allowance: never
        // counted, however dense.
        let small = zeros(DENSE_CHECK_MIN / 2 - 1);
        assert_eq!(too_dense(&small, small.len()), None);
    }

    #[test]
    fn the_parser_says_so_instead_of_parsing() {
        let mut parser = Parser::default();
        let dense = zeros(4 << 20);
        let refused = parser.parse(&dense, |r| matches!(r, Err(ParseError::TooDense { .. })));
        assert!(refused);
        // And goes on with the next line.
        assert!(parser.parse(b"{\"a\":1}", |r| r.is_ok()));
    }
}
