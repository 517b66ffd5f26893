//! A line before and after the parser: what is not part of its JSON
//! (byte-order mark, surrounding whitespace, the terminal noise a
//! pseudo-terminal wraps it in), and why a line that does not parse was
//! skipped or is plain text.

use std::borrow::Cow;
use std::fmt;
use std::io;

use super::producer::Emit;
use crate::event::{Event, EventKind, Producer};
use crate::input::Line;
use crate::json::{Value, first_bad_escape, structure_fault};

/// What became of one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// Empty or whitespace only: ignored.
    Blank,
    /// One or more events were emitted (plain text lines included).
    Events,
    /// Skipped, with the reason.
    Skipped(LineProblem),
    /// Events were emitted once lone UTF-16 surrogate escapes (`"\ud83d"`,
    /// which strict JSON parsers reject) were read as U+FFFD.
    Repaired,
    /// Events were emitted without a count or cost no log means (see
    /// [`plausible`](super::plausible)), said.
    Implausible(String),
}

/// Why a line was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineProblem {
    /// The bytes are not UTF-8.
    InvalidUtf8 {
        /// Byte offset of the first invalid byte.
        at: usize,
    },
    /// Not JSON and, before the input's first event, not text either: a
    /// NUL byte, which no text holds (a binary file's).
    Binary {
        /// Byte offset of the first NUL.
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
    /// So many JSON values that parsing the line would take more memory
    /// than streamview allows a line (docs/usage.md).
    TooDense {
        /// About how many values it holds.
        values: usize,
        /// Its length in bytes.
        len: usize,
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
            LineProblem::Binary { at } => write!(f, "binary, not text (a NUL at byte {})", at + 1),
            LineProblem::InvalidJson {
                truncated: true, ..
            } => f.write_str("truncated last line (the input ended mid-line)"),
            LineProblem::InvalidJson { at, what, .. } => {
                write!(f, "invalid JSON at byte {} ({what})", at + 1)
            }
            LineProblem::NotAnObject { found } => write!(f, "JSON {found}, not an object"),
            LineProblem::TooDense { values, len } => write!(
                f,
                "{values} JSON values in {len} bytes: too many to parse within streamview's memory bound"
            ),
            LineProblem::TooLong { len, max } => {
                write!(f, "line of {len} bytes exceeds --max-line-bytes {max}")
            }
        }
    }
}

/// Blank, BOM and surrounding whitespace are not part of an event. Returns
/// the offset of what is left in the line, for error positions.
pub(super) fn trim(line: &[u8]) -> (usize, &[u8]) {
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
/// (titles, links), other two-byte escapes, and whitespace, at either end;
/// NUL bytes at the start.
/// Returns the offset of what is left and what is left; a line that is not
/// wrapped comes back unchanged. Raw ESC is never valid inside JSON, so
/// nothing that belongs to an event is removed.
pub(super) fn strip_terminal_noise(line: &[u8]) -> (usize, &[u8]) {
    // `line` comes trimmed: noise can only be an escape at either end
    // (checked without a pass over the whole line).
    if !matches!(line.first(), Some(0x1b | 0)) && trailing_escape_len(line).is_none() {
        return (0, line);
    }
    let mut start = 0;
    let mut end = line.len();
    loop {
        // NULs too: what `: > log` leaves before the next line of a writer
        // that does not append (the file is sparse up to its offset).
        while start < end && (line[start].is_ascii_whitespace() || line[start] == 0) {
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
pub(super) fn classify_failure(
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
        let (at, what) = diagnose(bytes, err);
        return Ok(Decoded::Skipped(LineProblem::InvalidJson {
            at: offset + at,
            what,
            truncated: line.partial,
        }));
    }
    let ev = Event {
        producer,
        line: line.number,
        source: None,
        session: None,
        parent: None,
        time: None,
        kind: EventKind::PlainText(Cow::Borrowed(text)),
    };
    emit(&ev)?;
    Ok(Decoded::Events)
}

/// simd-json failed inside a string's escapes: it reports the offset
/// from the start of that string, and a lone surrogate may be the cause.
pub(super) fn string_error(e: &simd_json::Error) -> bool {
    use simd_json::ErrorType as E;
    matches!(
        e.error(),
        E::InvalidEscape | E::InvalidUnicodeEscape | E::InvalidUnicodeCodepoint | E::InvalidUtf8
    )
}

/// Where a JSON line that failed went wrong, and what is wrong there, in
/// words a user knows.
fn diagnose(bytes: &[u8], err: &simd_json::Error) -> (usize, String) {
    use simd_json::ErrorType as E;
    if string_error(err) {
        // simd-json counts from the start of the string.
        let at = first_bad_escape(bytes).unwrap_or(err.index());
        return (at, "invalid escape in a string".into());
    }
    if *err.error() == E::DepthLimitExceeded {
        // Whether or not it is closed at last.
        return (err.index(), "nested too deeply".into());
    }
    if let Some((at, what)) = structure_fault(bytes) {
        return (at, what.into());
    }
    let at = err.index();
    let what = match err.error() {
        E::Eof => "unexpected end of line",
        // 1e400 is valid JSON grammar but no f64: reported, like serde_json.
        E::InvalidNumber | E::InvalidExponent => "invalid or out-of-range number",
        E::TrailingData => "extra text after the JSON value",
        E::ExpectedObjectColon => "expected `:` after a key",
        E::ExpectedObjectContent
        | E::ExpectedObjectKey
        | E::ExpectedMapComma
        | E::ExpectedMapEnd
        | E::KeyMustBeAString
        | E::BadKeyType => "expected a quoted key, `,` or `}` in an object",
        E::ExpectedArrayContent | E::ExpectedArrayComma => {
            "expected a value, `,` or `]` in an array"
        }
        E::ExpectedTrue | E::ExpectedFalse | E::ExpectedNull => {
            "unknown word: JSON has only true, false and null"
        }
        E::UnterminatedString => "unterminated string",
        _ => return (at, unexpected(bytes, at)),
    };
    (at, what.into())
}

/// "unexpected `x`" for the character at `at`, when it can be shown.
fn unexpected(bytes: &[u8], at: usize) -> String {
    // The line is UTF-8 (checked before it is called JSON gone wrong).
    let c = std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.get(at..)?.chars().next());
    match c {
        Some(c) if !c.is_whitespace() && !c.is_control() => format!("unexpected `{c}`"),
        _ => "syntax error".into(),
    }
}

pub(super) fn type_name(v: Value<'_>) -> &'static str {
    match v.value_type() {
        simd_json::ValueType::Array => "array",
        simd_json::ValueType::String => "string",
        simd_json::ValueType::Null => "null",
        simd_json::ValueType::Bool => "boolean",
        _ => "number",
    }
}
