//! From one line of bytes to normalized [`Event`]s.
//!
//! The [`Decoder`] owns the reused parse buffers (the line is copied into a
//! scratch `Vec` and parsed in place by simd-json, so the original bytes stay
//! intact for verbatim pass-through). On a long line, the long string values
//! (tool output, file contents) are left out of that copy: `scan` finds and
//! checks them, simd-json sees a placeholder, and `Value` resolves it when
//! a decoder reads it, or hands it on still in its JSON form
//! ([`Content`]). Each producer is one module; this
//! module only classifies the line and picks the module.

/// `format!` into the line's arena: `text!(arena, "…", args)` is a
/// `Cow<str>` borrowed from it (see [`arena`]).
macro_rules! text {
    ($arena:expr, $($arg:tt)*) => {
        $arena.fmt(format_args!($($arg)*))
    };
}

mod amp;
mod arena;
mod claude;
mod codex;
mod cursor;
mod detect;
mod gemini;
mod native;
mod opencode;
mod qwen;
mod scan;
mod transcript;

pub(crate) use arena::Arena;
pub(crate) use detect::detect;

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::sync::Mutex;
use std::sync::OnceLock;

use simd_json::prelude::*;
use simd_json::tape::Tape;

use crate::event::{Content, Event, EventKind, List, Producer, Question, Todo, Unknown};
use crate::input::Line;

/// Why a line was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineProblem {
    /// The bytes are not UTF-8.
    InvalidUtf8 {
        /// Byte offset of the first invalid byte.
        at: usize,
    },
    /// The line looks like JSON but does not parse.
    InvalidJson {
        /// Byte offset where parsing failed.
        at: usize,
        /// What the parser said.
        what: String,
        /// True when this was an unterminated last line (a cut-off stream).
        truncated: bool,
    },
    /// Valid JSON, but not an object.
    NotAnObject {
        /// `array`, `string`, `number`, …
        found: &'static str,
    },
    /// Longer than `--max-line-bytes`.
    TooLong {
        /// Length in bytes.
        len: u64,
        /// The limit.
        max: usize,
    },
}

impl fmt::Display for LineProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineProblem::InvalidUtf8 { at } => write!(f, "not valid UTF-8 (byte {})", at + 1),
            LineProblem::InvalidJson {
                truncated: true, ..
            } => f.write_str("truncated last line (the input ended mid-line)"),
            LineProblem::InvalidJson { at, what, .. } => {
                write!(f, "invalid JSON at byte {} ({what})", at + 1)
            }
            LineProblem::NotAnObject { found } => write!(f, "JSON {found}, not an object"),
            LineProblem::TooLong { len, max } => {
                write!(f, "line of {len} bytes exceeds --max-line-bytes {max}")
            }
        }
    }
}

/// What became of one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// Empty or whitespace only: ignored.
    Blank,
    /// One or more events were emitted (plain text lines included).
    Events,
    /// Skipped, with the reason.
    Skipped(LineProblem),
}

/// Callback receiving each decoded event.
pub type Emit<'e> = dyn FnMut(&Event<'_>) -> io::Result<()> + 'e;

/// Turns lines into events. One per input source: it carries per-stream
/// state (the producer it detected, which API messages were counted…).
pub struct Decoder {
    /// The line being parsed, followed by simd-json's padding.
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
    /// The tape of the last line, kept empty between lines for its
    /// allocation (a `'static` tape holds no borrow).
    tape: Option<Tape<'static>>,
    /// The long strings of the last line (see [`scan`]), kept empty
    /// between lines for the allocation.
    longs: Vec<scan::Long<'static>>,
    /// The unescaped text of the long strings read, one per long string.
    long_text: Vec<OnceLock<String>>,
    /// Their allocations, between lines.
    text_pool: Mutex<Vec<String>>,
    /// Text composed while decoding a line (see [`arena`]).
    arena: Arena,
    /// Lines at least this long are scanned for long strings (tests lower
    /// it to put every line through the scan).
    scan_min_line: usize,
    /// Strings at least this long are spared the parser.
    scan_min_len: usize,
    /// Forced with `--from`.
    forced: Option<Producer>,
    /// Decided from the first recognisable line.
    latched: Option<Producer>,
    states: States,
}

/// Each producer module's own per-stream state.
#[derive(Default)]
struct States {
    claude: claude::State,
    transcript: transcript::State,
    codex: codex::State,
    gemini: gemini::State,
    opencode: opencode::State,
    qwen: qwen::State,
    amp: amp::State,
    cursor: cursor::State,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    /// A fresh decoder.
    #[must_use]
    pub fn new() -> Self {
        Decoder::with_producer(None)
    }

    /// A decoder that reads every line as `producer` (`--from`), or detects
    /// it from the first recognisable line when `None`.
    #[must_use]
    pub fn with_producer(producer: Option<Producer>) -> Self {
        Decoder {
            scratch: Vec::new(),
            buffers: simd_json::Buffers::default(),
            tape: None,
            longs: Vec::new(),
            long_text: Vec::new(),
            text_pool: Mutex::new(Vec::new()),
            arena: Arena::default(),
            scan_min_line: scan::MIN_LINE,
            scan_min_len: scan::MIN_LEN,
            forced: producer,
            latched: None,
            states: States::default(),
        }
    }

    /// Lines at least `min_line` bytes long have their string values of
    /// at least `min_len` bytes spared the parser (see `scan`; by default
    /// 4 KiB and 1 KiB). Only speed may depend on it: tests and the fuzz
    /// target compare the events with the scan everywhere and nowhere.
    #[doc(hidden)]
    #[must_use]
    pub fn spare_strings(mut self, min_line: usize, min_len: usize) -> Self {
        self.scan_min_line = min_line;
        self.scan_min_len = min_len;
        self
    }

    /// The producer of this stream, once known.
    #[must_use]
    pub fn producer(&self) -> Option<Producer> {
        self.forced.or(self.latched)
    }

    /// End of this input: producers that hold back events (joined deltas,
    /// reconstructed totals) emit them now.
    ///
    /// # Errors
    /// Only errors returned by `emit`.
    pub fn finish(&mut self, emit: &mut Emit<'_>) -> io::Result<()> {
        finish_producer(self.producer(), &mut self.states, emit)
    }

    /// Decode one line, passing each event to `emit`.
    ///
    /// # Errors
    /// Only errors returned by `emit` (a sink that cannot write).
    pub fn decode(&mut self, line: &Line<'_>, emit: &mut Emit<'_>) -> io::Result<Decoded> {
        let (text_offset, text) = trim(line.bytes);
        if text.is_empty() {
            return Ok(Decoded::Blank);
        }
        // A JSON line may come wrapped in terminal noise (an agent run under
        // a pseudo-terminal): it is parsed without it.
        let (noise, bytes) = strip_terminal_noise(text);
        let offset = text_offset + noise;
        let Decoder {
            scratch,
            buffers,
            tape,
            longs,
            long_text,
            text_pool,
            arena,
            scan_min_line,
            scan_min_len,
            forced,
            latched,
            states,
        } = self;
        arena.reset();
        let arena = &*arena;
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
        // strings in it), padded as simd-json needs, into a reused tape: no
        // allocation per line once the buffers have grown.
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
                Err(e) => {
                    let producer = forced.or(*latched).unwrap_or(Producer::Claude);
                    let parsed = (offset, bytes);
                    classify_failure((text_offset, text), parsed, line, producer, &e, emit)
                }
                Ok(()) => {
                    if long_text.len() < found.len() {
                        long_text.resize_with(found.len(), OnceLock::new);
                    }
                    let lookup = Longs {
                        list: &found,
                        text: &long_text[..found.len()],
                        pool: Some(text_pool),
                    };
                    decode_value(
                        Value::new(parsed.as_value(), &lookup),
                        line,
                        bytes,
                        *forced,
                        latched,
                        states,
                        arena,
                        emit,
                    )
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

/// The rest of [`Decoder::decode`], once the line is parsed.
#[allow(clippy::too_many_arguments)] // the decoder's fields, split to borrow them apart
fn decode_value<'v>(
    value: Value<'v>,
    line: &Line<'_>,
    bytes: &'v [u8],
    forced: Option<Producer>,
    latched: &mut Option<Producer>,
    states: &mut States,
    arena: &'v Arena,
    emit: &mut Emit<'_>,
) -> io::Result<Decoded> {
    // simd-json validated the whole line as UTF-8: the verbatim text
    // (`Ctx::raw`, for the few events that keep it) is taken only when
    // needed, not for every line.
    let raw = bytes;
    if value.as_object().is_none() {
        return Ok(Decoded::Skipped(LineProblem::NotAnObject {
            found: type_name(value),
        }));
    }
    if native::is_native(value) {
        let ctx = Ctx {
            line: line.number,
            raw,
            producer: Producer::Claude,
            arena,
        };
        native::decode(value, &ctx, emit)?;
        return Ok(Decoded::Events);
    }
    let producer = match (forced, *latched) {
        (Some(p), _) => p,
        (None, Some(p)) => match detect::opener(value) {
            // Logs of different agents concatenated into one input: a
            // line that can only start another producer's stream
            // switches to it.
            Some(q) if q != p => {
                // The first stream ended here: let it close.
                finish_producer(Some(p), states, emit)?;
                *latched = Some(q);
                q
            }
            _ => p,
        },
        (None, None) => match detect(value) {
            Some(p) => {
                *latched = Some(p);
                p
            }
            // An ambiguous line before any recognisable one: read it the
            // Claude way (Qwen, Amp and Cursor share these shapes).
            None => Producer::Claude,
        },
    };
    let ctx = Ctx {
        line: line.number,
        raw,
        producer,
        arena,
    };
    match producer {
        Producer::Claude => claude::decode(value, &ctx, &mut states.claude, emit)?,
        Producer::ClaudeTranscript => {
            transcript::decode(value, &ctx, &mut states.transcript, emit)?;
        }
        Producer::Codex => codex::decode(value, &ctx, &mut states.codex, emit)?,
        Producer::Gemini => gemini::decode(value, &ctx, &mut states.gemini, emit)?,
        Producer::OpenCode => opencode::decode(value, &ctx, &mut states.opencode, emit)?,
        Producer::Qwen => qwen::decode(value, &ctx, &mut states.qwen, emit)?,
        Producer::Amp => amp::decode(value, &ctx, &mut states.amp, emit)?,
        Producer::Cursor => cursor::decode(value, &ctx, &mut states.cursor, emit)?,
    }
    Ok(Decoded::Events)
}

/// Let `producer`'s module emit what it held back for the end of its stream.
fn finish_producer(
    producer: Option<Producer>,
    s: &mut States,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    let res = match producer {
        Some(Producer::ClaudeTranscript) => transcript::finish(&mut s.transcript, emit),
        Some(Producer::Codex) => codex::finish(&mut s.codex, emit),
        Some(Producer::Gemini) => gemini::finish(&mut s.gemini, emit),
        Some(Producer::OpenCode) => opencode::finish(&mut s.opencode, emit),
        Some(Producer::Qwen) => qwen::finish(&mut s.qwen, emit),
        Some(Producer::Amp) => amp::finish(&mut s.amp, emit),
        Some(Producer::Cursor) => cursor::finish(&mut s.cursor, emit),
        Some(Producer::Claude) | None => Ok(()),
    };
    // A later stream of the same producer starts from scratch.
    *s = States::default();
    res
}

/// What every producer module gets besides the parsed value.
pub(crate) struct Ctx<'a> {
    /// Line number.
    pub line: u64,
    /// The line (verbatim JSON, valid UTF-8: simd-json checked it).
    pub raw: &'a [u8],
    /// Whose format the line is read as.
    pub producer: Producer,
    /// Where text composed for this line goes (see [`arena`]).
    pub arena: &'a Arena,
}

impl<'a> Ctx<'a> {
    /// The line as text (verbatim JSON).
    pub fn raw(&self) -> Cow<'a, str> {
        // Valid (the parse checked it): the fast check, borrowed.
        match simdutf8::basic::from_utf8(self.raw) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(self.raw),
        }
    }
}

/// A line of a producer whose decoder does not know it: kept verbatim as an
/// `unknown` event named by its `type` (and `subtype`).
pub(crate) fn unknown_line<'v>(v: Value<'v>, ctx: &Ctx<'v>, emit: &mut Emit<'_>) -> io::Result<()> {
    let ty = str_at(v, "type").unwrap_or("");
    let type_name = match str_at(v, "subtype").filter(|s| !s.is_empty()) {
        Some(sub) => Cow::Owned(format!("{ty}/{sub}")),
        None => Cow::Borrowed(ty),
    };
    emit(&Event {
        producer: ctx.producer,
        line: ctx.line,
        session: None,
        parent: None,
        kind: EventKind::Unknown(Unknown {
            type_name,
            raw: ctx.raw(),
        }),
    })
}

/// Blank, BOM and surrounding whitespace are not part of an event. Returns
/// the offset of what is left in the line, for error positions.
fn trim(line: &[u8]) -> (usize, &[u8]) {
    let bom = if line.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let bytes = &line[bom..];
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |p| p + 1);
    (bom + start, &bytes[start..end])
}

/// Terminal escape sequences and carriage returns around a JSON line, as a
/// pseudo-terminal leaves them (`ESC[2K\r{…}ESC[0m\r`): CSI sequences
/// (colours, erase, cursor), OSC sequences ended by BEL or `ESC \\`
/// (titles, links), other two-byte escapes, and whitespace, at either end.
/// Returns the offset of what is left and what is left; a line that is not
/// wrapped comes back unchanged. Raw ESC is never valid inside JSON, so
/// nothing that belongs to an event is removed.
fn strip_terminal_noise(line: &[u8]) -> (usize, &[u8]) {
    // `line` comes trimmed: noise can only be an escape at either end
    // (checked without a pass over the whole line).
    if line.first() != Some(&0x1b) && trailing_escape_len(line).is_none() {
        return (0, line);
    }
    let mut start = 0;
    let mut end = line.len();
    loop {
        while start < end && line[start].is_ascii_whitespace() {
            start += 1;
        }
        match escape_len(&line[start..end]) {
            Some(n) => start += n,
            None => break,
        }
    }
    loop {
        while end > start && line[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        match trailing_escape_len(&line[start..end]) {
            Some(n) => end -= n,
            None => break,
        }
    }
    (start, &line[start..end])
}

/// Length of the escape sequence `b` starts with, if it starts with one.
fn escape_len(b: &[u8]) -> Option<usize> {
    if b.first() != Some(&0x1b) {
        return None;
    }
    match b.get(1)? {
        // CSI: parameters, intermediates, one final byte.
        b'[' => {
            let body = b[2..].iter().position(|c| !(0x20..=0x3f).contains(c))?;
            let fin = *b.get(2 + body)?;
            (0x40..=0x7e).contains(&fin).then_some(3 + body)
        }
        // OSC: up to BEL or ST (`ESC \`); unterminated is not noise.
        b']' => {
            let mut i = 2;
            loop {
                match *b.get(i)? {
                    0x07 => return Some(i + 1),
                    0x1b => return (b.get(i + 1) == Some(&b'\\')).then_some(i + 2),
                    _ => i += 1,
                }
            }
        }
        // Other escapes: intermediates, then one final byte (`ESC ( B`, `ESC 7`).
        _ => {
            let inter = b[1..].iter().position(|c| !(0x20..=0x2f).contains(c))?;
            let fin = *b.get(1 + inter)?;
            (0x30..=0x7e).contains(&fin).then_some(2 + inter)
        }
    }
}

/// Length of the CSI or OSC sequence `b` ends with, if it ends with one.
fn trailing_escape_len(b: &[u8]) -> Option<usize> {
    let (&last, rest) = b.split_last()?;
    // OSC ended by BEL or ST: back to its `ESC ]`.
    let osc_end = match last {
        0x07 => Some(rest.len()),
        b'\\' if rest.last() == Some(&0x1b) => Some(rest.len() - 1),
        _ => None,
    };
    if let Some(body_end) = osc_end {
        let open = memchr::memmem::rfind(&b[..body_end], b"\x1b]")?;
        return (!b[open + 2..body_end].contains(&0x1b)).then_some(b.len() - open);
    }
    // CSI: a final byte, parameters and intermediates, then `ESC [`.
    if !(0x40..=0x7e).contains(&last) {
        return None;
    }
    let body = rest
        .iter()
        .rev()
        .position(|c| !(0x20..=0x3f).contains(c))
        .unwrap_or(rest.len());
    let open = rest.len() - body;
    (open >= 2 && rest[open - 2] == 0x1b && rest[open - 1] == b'[').then_some(body + 3)
}

fn utf8_error_at(bytes: &[u8]) -> usize {
    std::str::from_utf8(bytes)
        .err()
        .map_or(0, |e| e.valid_up_to())
}

/// A line that does not parse is either JSON gone wrong or plain text.
/// `text` is the whole line (trimmed), `json` the part that was parsed
/// (without terminal noise), each with its offset in the line.
fn classify_failure(
    (text_offset, text): (usize, &[u8]),
    (offset, bytes): (usize, &[u8]),
    line: &Line<'_>,
    producer: Producer,
    err: &simd_json::Error,
    emit: &mut Emit<'_>,
) -> io::Result<Decoded> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Ok(Decoded::Skipped(LineProblem::InvalidUtf8 {
            at: text_offset + utf8_error_at(text),
        }));
    };
    let looks_like_json = matches!(bytes.first(), Some(b'{' | b'['));
    if looks_like_json {
        // simd-json places this error at the start of the line; the byte
        // itself says more.
        if let Some(at) = bytes.iter().position(|&b| b < 0x20 && b != b'\t') {
            return Ok(Decoded::Skipped(LineProblem::InvalidJson {
                at: offset + at,
                what: format!(
                    "raw control character U+{:04X}; JSON must escape it",
                    bytes[at]
                ),
                truncated: line.partial,
            }));
        }
        return Ok(Decoded::Skipped(LineProblem::InvalidJson {
            at: offset + err.index(),
            what: describe(err.error()),
            truncated: line.partial,
        }));
    }
    let ev = Event {
        producer,
        line: line.number,
        session: None,
        parent: None,
        kind: EventKind::PlainText(Cow::Borrowed(text)),
    };
    emit(&ev)?;
    Ok(Decoded::Events)
}

fn describe(e: &simd_json::ErrorType) -> String {
    use simd_json::ErrorType as E;
    match e {
        E::Eof => "unexpected end of line".into(),
        E::InvalidUtf8 => "invalid UTF-8".into(),
        E::InvalidEscape | E::InvalidUnicodeEscape | E::InvalidUnicodeCodepoint => {
            "invalid escape in a string".into()
        }
        // 1e400 is valid JSON grammar but no f64: reported, like serde_json.
        E::InvalidNumber | E::InvalidExponent => "invalid or out-of-range number".into(),
        E::DepthLimitExceeded => "nested too deeply".into(),
        E::Syntax => "syntax error".into(),
        E::TrailingData => "extra data after the JSON value".into(),
        other => {
            // The Debug names (`ExpectedMapComma`, …) are terse but precise.
            format!("{other:?}")
        }
    }
}

fn type_name(v: Value<'_>) -> &'static str {
    match v.value_type() {
        simd_json::ValueType::Array => "array",
        simd_json::ValueType::String => "string",
        simd_json::ValueType::Null => "null",
        simd_json::ValueType::Bool => "boolean",
        _ => "number",
    }
}

/// A parsed JSON value: a view into the decoder's reused simd-json tape,
/// with the line's long strings (see [`scan`]) that its string reads
/// resolve. Copyable, allocation-free; strings borrow from the line.
#[derive(Clone, Copy)]
pub(crate) struct Value<'v> {
    t: TapeValue<'v>,
    longs: &'v Longs<'v>,
}

type TapeValue<'v> = simd_json::tape::Value<'v, 'v>;

/// The long string values of the line being decoded, which simd-json saw
/// as placeholders: `\0` and the index here.
pub(crate) struct Longs<'v> {
    list: &'v [scan::Long<'v>],
    /// Their text, unescaped when first read.
    text: &'v [OnceLock<String>],
    /// Emptied strings to unescape into (always there when `list` is not
    /// empty). A `String` and not the arena: a cell holding text borrowed
    /// from the arena would make `Value` invariant in its lifetime. A
    /// `Mutex` (never contended) and a `OnceLock` keep events `Sync`.
    pool: Option<&'v Mutex<Vec<String>>>,
}

/// The pool keeps at most this many strings…
const POOLED_TEXTS: usize = 4;
/// …of at most this capacity, so one huge line does not pin its memory.
const POOLED_TEXT: usize = 1 << 20;

/// No long strings (a line parsed whole).
#[cfg(test)]
pub(crate) const NO_LONGS: Longs<'static> = Longs {
    list: &[],
    text: &[],
    pool: None,
};

impl<'v> Longs<'v> {
    /// The long string `s` stands for, if it is a placeholder.
    fn find(&self, s: &str) -> Option<usize> {
        if self.list.is_empty() {
            return None;
        }
        let i: usize = s.strip_prefix('\0')?.parse().ok()?;
        (i < self.list.len()).then_some(i)
    }

    fn text(&self, i: usize) -> &'v str {
        let long = &self.list[i];
        if long.escaped {
            self.text[i].get_or_init(|| {
                let mut t = self
                    .pool
                    .and_then(|p| p.lock().ok()?.pop())
                    .unwrap_or_default();
                t.clear();
                crate::event::unescape_to(long.body, &mut t);
                t
            })
        } else {
            long.body
        }
    }
}

/// An object (see [`Value::as_object`]).
pub(crate) struct Obj<'v> {
    o: simd_json::tape::Object<'v, 'v>,
    longs: &'v Longs<'v>,
}

impl<'v> Obj<'v> {
    /// Its fields in order.
    pub(crate) fn iter(&self) -> Fields<'v> {
        Fields(self.o.iter(), self.longs)
    }

    /// Its keys in order.
    pub(crate) fn keys(&self) -> simd_json::tape::object::Keys<'v, 'v> {
        self.o.keys()
    }

    /// True without fields.
    pub(crate) fn is_empty(&self) -> bool {
        self.o.is_empty()
    }
}

impl<'v> IntoIterator for &Obj<'v> {
    type Item = (&'v str, Value<'v>);
    type IntoIter = Fields<'v>;
    fn into_iter(self) -> Fields<'v> {
        self.iter()
    }
}

/// Iterator over an object's fields (see [`Obj`]).
pub(crate) struct Fields<'v>(simd_json::tape::object::Iter<'v, 'v>, &'v Longs<'v>);

impl<'v> Iterator for Fields<'v> {
    type Item = (&'v str, Value<'v>);
    fn next(&mut self) -> Option<Self::Item> {
        let longs = self.1;
        self.0.next().map(|(k, t)| (k, Value { t, longs }))
    }
}

impl<'v> Value<'v> {
    pub(crate) fn new(t: TapeValue<'v>, longs: &'v Longs<'v>) -> Self {
        Value { t, longs }
    }

    fn wrap(self, t: TapeValue<'v>) -> Self {
        Value {
            t,
            longs: self.longs,
        }
    }

    /// The field `key` of an object (the first, if the key is repeated).
    ///
    /// Inlined, so that a constant `key` is compared as a length and a few
    /// loads instead of a call to `memcmp` per field.
    #[inline]
    pub(crate) fn get(self, key: &str) -> Option<Value<'v>> {
        let o = self.t.as_object()?;
        o.iter()
            .find(|(k, _)| k.as_bytes() == key.as_bytes())
            .map(|(_, t)| self.wrap(t))
    }

    /// The fields `keys` of an object, in one pass over its keys (instead
    /// of one per field): for the lines read by the hundred thousand. The
    /// first of duplicate keys wins, as with [`Value::get`].
    ///
    /// Always inlined, for the same reason as [`Value::get`]: left to
    /// itself the compiler kept it out of line, with a `memcmp` call per
    /// key compared (5% of the instructions on a delta stream).
    #[inline(always)]
    #[allow(clippy::inline_always)] // measured, see above
    pub(crate) fn fields<const N: usize>(self, keys: [&str; N]) -> [Option<Value<'v>>; N] {
        let mut out = [None; N];
        if let Some(o) = self.as_object() {
            for (k, v) in &o {
                if let Some(i) = keys.iter().position(|want| want.as_bytes() == k.as_bytes())
                    && out[i].is_none()
                {
                    out[i] = Some(v);
                }
            }
        }
        out
    }

    /// The text of a string.
    pub(crate) fn into_string(self) -> Option<&'v str> {
        let s = self.t.into_string()?;
        Some(match self.longs.find(s) {
            Some(i) => self.longs.text(i),
            None => s,
        })
    }

    /// The long string this is, if the parser was spared it.
    pub(crate) fn long(self) -> Option<&'v scan::Long<'v>> {
        let i = self.longs.find(self.t.into_string()?)?;
        Some(&self.longs.list[i])
    }

    pub(crate) fn as_object(self) -> Option<Obj<'v>> {
        Some(Obj {
            o: self.t.as_object()?,
            longs: self.longs,
        })
    }

    pub(crate) fn as_array(self) -> Option<Arr<'v>> {
        self.t.as_array().map(|a| Arr(Some((a, self.longs))))
    }

    pub(crate) fn as_u64(self) -> Option<u64> {
        self.t.as_u64()
    }

    pub(crate) fn as_i64(self) -> Option<i64> {
        self.t.as_i64()
    }

    pub(crate) fn as_f64(self) -> Option<f64> {
        self.t.as_f64()
    }

    pub(crate) fn cast_f64(self) -> Option<f64> {
        self.t.cast_f64()
    }

    pub(crate) fn as_bool(self) -> Option<bool> {
        self.t.as_bool()
    }

    pub(crate) fn value_type(self) -> simd_json::ValueType {
        self.t.value_type()
    }

    pub(crate) fn is_null(self) -> bool {
        self.t.is_null()
    }

    pub(crate) fn is_object(self) -> bool {
        self.t.is_object()
    }

    /// Compact JSON text, as simd-json writes it.
    pub(crate) fn encode(self) -> String {
        if self.longs.list.is_empty() {
            return self.t.encode();
        }
        let mut out = Vec::new();
        self.write_json(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`Value::encode`]'s text, in the line's arena.
    pub(crate) fn encode_in(self, arena: &'v Arena) -> &'v str {
        let mut out = arena.bytes();
        self.write(&mut out);
        Arena::utf8(out).unwrap_or_default()
    }

    /// Append [`Value::encode`]'s text to `out`.
    pub(crate) fn write(self, out: &mut impl io::Write) {
        if self.longs.list.is_empty() {
            let _ = self.t.write(out);
        } else {
            self.write_json(out);
        }
    }

    /// [`Value::encode`] with long strings in it: the same text, a long
    /// string copied from the line when re-escaping it would give the same
    /// bytes.
    fn write_json(self, out: &mut impl io::Write) {
        if let Some(o) = self.as_object() {
            let _ = out.write_all(b"{");
            for (n, (k, v)) in o.iter().enumerate() {
                if n > 0 {
                    let _ = out.write_all(b",");
                }
                write_json_str(out, k);
                let _ = out.write_all(b":");
                v.write_json(out);
            }
            let _ = out.write_all(b"}");
        } else if let Some(a) = self.as_array() {
            let _ = out.write_all(b"[");
            for (n, v) in a.iter().enumerate() {
                if n > 0 {
                    let _ = out.write_all(b",");
                }
                v.write_json(out);
            }
            let _ = out.write_all(b"]");
        } else if let Some(long) = self.long() {
            if long.canonical {
                let _ = out.write_all(b"\"");
                let _ = out.write_all(long.body.as_bytes());
                let _ = out.write_all(b"\"");
            } else {
                write_json_str(out, self.into_string().unwrap_or_default());
            }
        } else if let Some(s) = self.t.into_string() {
            write_json_str(out, s);
        } else {
            // Numbers, booleans, null: simd-json's own text.
            let _ = self.t.write(out);
        }
    }
}

/// A JSON string as simd-json's writer escapes it: `"`, `\\` and C0
/// controls only, the usual five by letter.
fn write_json_str(out: &mut impl io::Write, s: &str) {
    let _ = out.write_all(b"\"");
    let b = s.as_bytes();
    let mut done = 0;
    for (i, &c) in b.iter().enumerate() {
        if c >= 0x20 && c != b'"' && c != b'\\' {
            continue;
        }
        let short = crate::render::short_escape(c);
        let _ = out.write_all(&b[done..i]);
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let _ = out.write_all(b"\\u00");
            let _ = out.write_all(&[HEX[usize::from(c >> 4)]]);
            let _ = out.write_all(&[HEX[usize::from(c & 0xf)]]);
        } else {
            let _ = out.write_all(short);
        }
        done = i + 1;
    }
    let _ = out.write_all(&b[done..]);
    let _ = out.write_all(b"\"");
}

// Lenient field access: a missing or wrongly typed field is `None`, never an error.

#[inline]
pub(crate) fn get<'v>(v: Value<'v>, key: &str) -> Option<Value<'v>> {
    v.get(key)
}

#[inline]
pub(crate) fn str_at<'v>(v: Value<'v>, key: &str) -> Option<&'v str> {
    v.get(key)?.into_string()
}

pub(crate) fn cow_at<'v>(v: Value<'v>, key: &str) -> Option<Cow<'v, str>> {
    str_at(v, key).map(Cow::Borrowed)
}

pub(crate) fn u64_at(v: Value<'_>, key: &str) -> Option<u64> {
    u64_of(v.get(key)?)
}

/// A non-negative integer.
pub(crate) fn u64_of(x: Value<'_>) -> Option<u64> {
    x.as_u64().or_else(|| {
        // Some producers write integral floats (`605.0`); accept them.
        let f = x.as_f64()?;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // range checked
        ((0.0..1.8e19).contains(&f) && f.fract() == 0.0).then_some(f as u64)
    })
}

pub(crate) fn f64_at(v: Value<'_>, key: &str) -> Option<f64> {
    v.get(key)?.cast_f64().filter(|f| f.is_finite())
}

pub(crate) fn bool_at(v: Value<'_>, key: &str) -> Option<bool> {
    v.get(key)?.as_bool()
}

/// True for JSON `null`.
pub(crate) fn is_null(v: Value<'_>) -> bool {
    v.value_type() == simd_json::ValueType::Null
}

/// The array `key` (empty when missing or not an array).
pub(crate) fn arr_at<'v>(v: Value<'v>, key: &str) -> Arr<'v> {
    v.get(key).and_then(Value::as_array).unwrap_or_default()
}

/// An array, or nothing (the default): what [`arr_at`] found.
#[derive(Clone, Copy, Default)]
pub(crate) struct Arr<'v>(Option<(simd_json::tape::Array<'v, 'v>, &'v Longs<'v>)>);

impl<'v> Arr<'v> {
    /// `v` if it is an array, else empty.
    pub(crate) fn of(v: Value<'v>) -> Arr<'v> {
        v.as_array().unwrap_or_default()
    }

    /// The items.
    pub(crate) fn iter(self) -> Items<'v> {
        Items(self.0.map(|(a, l)| (a.iter(), l)))
    }

    /// Number of items.
    pub(crate) fn len(self) -> usize {
        self.0.map_or(0, |(a, _)| a.len())
    }

    /// True without items.
    pub(crate) fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The first item.
    pub(crate) fn first(self) -> Option<Value<'v>> {
        self.0
            .and_then(|(a, longs)| a.get(0).map(|t| Value { t, longs }))
    }
}

impl<'v> IntoIterator for Arr<'v> {
    type Item = Value<'v>;
    type IntoIter = Items<'v>;
    fn into_iter(self) -> Items<'v> {
        self.iter()
    }
}

/// Iterator over an array's items (see [`Arr`]).
pub(crate) struct Items<'v>(Option<(simd_json::tape::array::Iter<'v, 'v>, &'v Longs<'v>)>);

impl<'v> Iterator for Items<'v> {
    type Item = Value<'v>;
    fn next(&mut self) -> Option<Value<'v>> {
        let (it, longs) = self.0.as_mut()?;
        it.next().map(|t| Value { t, longs })
    }
}

/// What a value is, for `match`.
pub(crate) enum J<'v> {
    /// `null`
    Null,
    /// A string.
    Str(&'v str),
    /// An array.
    Arr(Arr<'v>),
    /// An object.
    Obj,
    /// A number or boolean.
    Scalar(Value<'v>),
}

/// The [`J`] view of `v`.
pub(crate) fn view(v: Value<'_>) -> J<'_> {
    if let Some(s) = v.into_string() {
        return J::Str(s);
    }
    match v.value_type() {
        simd_json::ValueType::Null => J::Null,
        simd_json::ValueType::Array => J::Arr(Arr::of(v)),
        simd_json::ValueType::Object => J::Obj,
        _ => J::Scalar(v),
    }
}

/// The key argument of a tool without a known schema (MCP tools and the
/// like): its first scalar argument, as text; with `skip_empty`, an empty
/// string is passed over (Codex, `OpenCode`).
pub(crate) fn first_scalar<'v>(
    args: Value<'v>,
    skip_empty: bool,
    a: &'v Arena,
) -> Option<Cow<'v, str>> {
    args.as_object()?.iter().find_map(|(_, v)| match view(v) {
        J::Str(s) if !(skip_empty && s.is_empty()) => Some(Cow::Borrowed(s)),
        J::Scalar(n) => Some(json_in(n, a)),
        _ => None,
    })
}

/// The first line of the string `key` (a plan, a prompt).
pub(crate) fn first_line_at<'v>(v: Value<'v>, key: &str) -> Option<Cow<'v, str>> {
    str_at(v, key).map(|s| Cow::Borrowed(s.lines().next().unwrap_or("")))
}

/// A todo list's key argument: `3 items`.
pub(crate) fn items(n: usize, a: &Arena) -> Cow<'_, str> {
    text!(a, "{n} item{}", if n == 1 { "" } else { "s" })
}

/// A search's key argument: `pattern in dir (filter)`, the parts that are
/// there (Claude's Glob and Grep, Gemini's and Cursor's search tools).
pub(crate) fn pattern_in<'v>(
    pattern: &'v str,
    dir: Option<&str>,
    filter: Option<&str>,
    a: &'v Arena,
) -> Cow<'v, str> {
    if dir.is_none() && filter.is_none() {
        return Cow::Borrowed(pattern);
    }
    let mut out = a.text();
    out.push_str(pattern);
    if let Some(d) = dir {
        out.push_str(" in ");
        out.push_str(d);
    }
    if let Some(f) = filter {
        out.push_str(" (");
        out.push_str(f);
        out.push(')');
    }
    Cow::Borrowed(out.done())
}

/// Strings of an array (other items are skipped; `{name}` objects give their name).
pub(crate) fn names_at<'v>(v: Value<'v>, key: &str) -> impl Iterator<Item = &'v str> {
    arr_at(v, key)
        .iter()
        .filter_map(|x| x.into_string().or_else(|| str_at(x, "name")))
}

/// [`names_at`] as an event's list.
pub(crate) fn strings_at<'v>(v: Value<'v>, key: &str, a: &'v Arena) -> List<'v, Cow<'v, str>> {
    a.list(names_at(v, key).map(Cow::Borrowed))
}

/// A todo list: the items of the array `key`, their text from the first of
/// `content_keys` present, their status in Claude's words (`pending`,
/// `in_progress`, `completed`) whatever the producer's spelling.
pub(crate) fn todos_at<'v>(
    v: Value<'v>,
    key: &str,
    content_keys: &[&str],
    a: &'v Arena,
) -> List<'v, Todo<'v>> {
    a.list(arr_at(v, key).iter().map(|t| {
        Todo {
            content: content_keys
                .iter()
                .find_map(|k| cow_at(t, k))
                .unwrap_or_default(),
            status: str_at(t, "status").map_or(Cow::Borrowed("pending"), todo_status),
        }
    }))
}

/// `todo`/`in-progress` (Amp), `TODO_STATUS_COMPLETED` (Cursor) and the like.
pub(crate) fn todo_status(s: &str) -> Cow<'_, str> {
    const CANONICAL: [(&str, &str); 11] = [
        ("todo", "pending"),
        ("pending", "pending"),
        ("not_started", "pending"),
        ("in_progress", "in_progress"),
        ("inprogress", "in_progress"),
        ("active", "in_progress"),
        ("completed", "completed"),
        ("complete", "completed"),
        ("done", "completed"),
        ("cancelled", "cancelled"),
        ("canceled", "cancelled"),
    ];
    let s = s.strip_prefix("TODO_STATUS_").unwrap_or(s);
    // Case-insensitive, `-` read as `_`, without a lowered copy.
    let same = |name: &str| {
        name.len() == s.len()
            && name.bytes().zip(s.bytes()).all(|(n, c)| {
                n == if c == b'-' {
                    b'_'
                } else {
                    c.to_ascii_lowercase()
                }
            })
    };
    match CANONICAL.iter().find(|(name, _)| same(name)) {
        Some((_, canonical)) => Cow::Borrowed(canonical),
        None => Cow::Borrowed(s),
    }
}

/// Questions put to the user: the items of the array `key`, the question
/// text from the first of `question_keys`, option labels from strings or
/// `{label}` objects.
pub(crate) fn questions_at<'v>(
    v: Value<'v>,
    key: &str,
    question_keys: &[&str],
    a: &'v Arena,
) -> List<'v, Question<'v>> {
    a.list(arr_at(v, key).iter().map(|q| {
        Question {
            question: question_keys
                .iter()
                .find_map(|k| cow_at(q, k))
                .unwrap_or_default(),
            options: a.list(
                arr_at(q, "options")
                    .iter()
                    .filter_map(|o| o.into_string().or_else(|| str_at(o, "label")))
                    .map(Cow::Borrowed),
            ),
        }
    }))
}

/// A string value as [`Content`]: a long one stays in its JSON form.
pub(crate) fn content_of(v: Value<'_>) -> Option<Content<'_>> {
    match v.long() {
        Some(l) => Some(Content::json(l.body, l.canonical)),
        None => v.into_string().map(Content::from),
    }
}

/// Compact JSON text of a value (for tool inputs and the like).
/// [`to_json`] in the line's arena.
pub(crate) fn json_in<'v>(v: Value<'v>, arena: &'v Arena) -> Cow<'v, str> {
    Cow::Borrowed(v.encode_in(arena))
}

pub(crate) fn to_json(v: Value<'_>) -> String {
    v.encode()
}

#[cfg(test)]
mod tests;
