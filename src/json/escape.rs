//! Every escape streamview reads or writes, in one place: JSON string
//! bodies unescaped ([`unescape`]), strings written as JSON the way
//! simd-json writes them ([`write_json_str`], for text that must read back
//! byte for byte) or terminal-safe ([`push_json_str`], [`push_safe_json`],
//! [`SafeFormatter`]: the JSON value unchanged, but DEL, C1 controls and
//! bidi overrides as `\uXXXX`), and which characters a terminal must never
//! receive raw ([`is_unsafe`], [`escape_at`]), which the sanitizer of the
//! pretty sink also reads.
//!
//! The scans go through [`find_special`], a branch-free block loop the
//! compiler vectorizes: plain text costs well under an instruction per byte.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

use super::blocks::{self, Class};

/// Bytes that may start a character a terminal must not receive raw: C0
/// controls, DEL, and the lead bytes of the C1 (`C2`), U+061C (`D8`) and bidi
/// and line-separator (`E2`) sequences. The sanitizer and the JSON writers
/// look closer only at these; everything else is copied in runs.
pub(crate) const SUSPECT: [bool; 256] = special_bytes(false);

/// [`SUSPECT`] and `"` and `\\`: the bytes that may need an escape in a JSON
/// string.
pub(crate) const STRING_SPECIAL: [bool; 256] = special_bytes(true);

const fn special_bytes(quotes: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[0x7f] = true;
    t[0xc2] = true;
    t[0xd8] = true;
    t[0xe2] = true;
    if quotes {
        t[b'"' as usize] = true;
        t[b'\\' as usize] = true;
    }
    t
}

/// The two-character JSON escape of `c` (`\n`, `\"`…), or nothing.
pub(crate) fn short_escape(c: u8) -> &'static [u8] {
    match c {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        _ => b"",
    }
}

/// Index of the first byte at or after `i` that `table` flags. Sixteen
/// bytes at a time, branch-free, in a loop the compiler turns into vector
/// compares: a block is looked at byte by byte only when it holds a byte
/// the tables can flag (C0, `"`, `\\`, DEL, or any non-ASCII byte), so
/// plain text costs well under an instruction per byte.
#[inline]
pub(crate) fn find_special(bytes: &[u8], mut i: usize, table: &[bool; 256]) -> Option<usize> {
    const BLOCK: usize = 16;
    while let Some(chunk) = bytes.get(i..i + BLOCK) {
        let mut maybe = false;
        for &c in chunk {
            // Bitwise on purpose: no branch, so the loop becomes vector code.
            #[allow(clippy::needless_bitwise_bool)]
            let special = (c < 0x20) | (c == b'"') | (c == b'\\') | (c >= 0x7f);
            maybe |= special;
        }
        if maybe && let Some(p) = chunk.iter().position(|&c| table[usize::from(c)]) {
            return Some(i + p);
        }
        i += BLOCK;
    }
    bytes[i..]
        .iter()
        .position(|&c| table[usize::from(c)])
        .map(|p| i + p)
}

/// True for the characters a terminal must never receive raw from content
/// (tab and line feed excepted: callers decide about those).
#[must_use]
pub fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{200e}'
        | '\u{200f}'
        | '\u{061c}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// When the character starting at byte `i` of `s` must not reach a terminal
/// raw: its length in bytes and its code point. `s` is UTF-8 (or JSON text,
/// which is). Used by the JSONL writer, which escapes it as `\uXXXX`.
#[must_use]
pub fn escape_at(s: &[u8], i: usize) -> Option<(usize, u32)> {
    match *s.get(i)? {
        b @ (0..0x20 | 0x7f) => Some((1, u32::from(b))),
        0xc2 => match s.get(i + 1) {
            Some(&b @ 0x80..=0x9f) => Some((2, u32::from(b))),
            _ => None,
        },
        0xd8 => (s.get(i + 1) == Some(&0x9c)).then_some((2, 0x061c)),
        0xe2 => match (s.get(i + 1), s.get(i + 2)) {
            (Some(0x80), Some(&b @ (0x8e | 0x8f | 0xaa..=0xae))) => {
                Some((3, 0x2000 + u32::from(b - 0x80)))
            }
            (Some(0x81), Some(&b @ 0xa6..=0xa9)) => Some((3, 0x2040 + u32::from(b - 0x80))),
            _ => None,
        },
        _ => None,
    }
}

/// A JSON string as simd-json's writer escapes it: `"`, `\\` and C0
/// controls only, the usual five by letter.
pub(crate) fn write_json_str(out: &mut impl io::Write, s: &str) {
    let _ = out.write_all(b"\"");
    let b = s.as_bytes();
    let mut done = 0;
    for (i, &c) in b.iter().enumerate() {
        if c >= 0x20 && c != b'"' && c != b'\\' {
            continue;
        }
        let short = short_escape(c);
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

/// A JSON string: `"`, `\\` and the usual control characters escaped as
/// `serde_json` does, and every other character that [`escape_at`] flags
/// (C0, DEL, C1, bidi) as `\uXXXX`.
pub(crate) fn push_json_str(b: &mut Vec<u8>, s: &str) {
    // Room for the string and a few escapes: the copies below then never
    // grow the buffer one piece at a time.
    b.reserve(s.len() + s.len() / 16 + 2);
    b.push(b'"');
    let bytes = s.as_bytes();
    let mut done = 0;
    let mut i = 0;
    while let Some(p) = find_special(bytes, i, &STRING_SPECIAL) {
        i = p;
        let short = short_escape(bytes[i]);
        if !short.is_empty() {
            b.extend_from_slice(&bytes[done..i]);
            b.extend_from_slice(short);
            i += 1;
            done = i;
        } else if let Some((len, cp)) = escape_at(bytes, i) {
            b.extend_from_slice(&bytes[done..i]);
            push_u_escape(b, cp);
            i += len;
            done = i;
        } else {
            i += 1;
        }
    }
    b.extend_from_slice(&bytes[done..]);
    b.push(b'"');
}

/// A `serde_json` formatter (compact) that also writes the characters
/// [`escape_at`] flags as `\u` escapes, like the JSONL sink: for the other
/// JSON streamview prints (`--format summary-json`).
pub(crate) struct SafeFormatter;

impl serde_json::ser::Formatter for SafeFormatter {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json escapes `"`, `\\` and C0 itself; a fragment holds none.
        // Only the bytes `find_special` flags can start one: looked at 16
        // at a time, not each by `escape_at`.
        let bytes = fragment.as_bytes();
        let (mut done, mut i) = (0, 0);
        while let Some(p) = find_special(bytes, i, &SUSPECT) {
            match escape_at(bytes, p) {
                Some((len, cp)) => {
                    w.write_all(&bytes[done..p])?;
                    write!(w, "\\u{cp:04x}")?;
                    i = p + len;
                    done = i;
                }
                None => i = p + 1,
            }
        }
        w.write_all(&bytes[done..])
    }
}

/// True when `b` holds a character above U+007E that [`escape_at`] flags
/// (DEL, C1, bidi controls…; the others are ASCII controls, which a JSON
/// string body holds only as escapes): their lead bytes found 64 at a
/// step, each looked at. (With `memchr` for DEL and `memchr3` for the
/// three leads, a search begun again after each `”` or `●` of a command's
/// output, it was 11% of a Codex stream's JSONL.)
pub(crate) fn has_unsafe(b: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { has_unsafe_avx2(b) };
    }
    has_unsafe_in(b, |block| blocks::baseline(block, LEADS))
}

/// The lead bytes of what [`has_unsafe`] looks for: DEL and C1 (`0x7f`,
/// `0xc2`), U+061C (`0xd8`), the bidi controls of U+2000–U+206F (`0xe2`).
const LEADS: [Class; 2] = [Class::Either(0x7f, 0xc2), Class::Either(0xd8, 0xe2)];

/// [`has_unsafe`] compiled for AVX2, the masks inlined into the loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn has_unsafe_avx2(b: &[u8]) -> bool {
    has_unsafe_in(b, |block| blocks::avx2(block, LEADS))
}

#[allow(clippy::inline_always)]
#[inline(always)]
fn has_unsafe_in(b: &[u8], leads: impl Fn(&[u8; 64]) -> [u64; 2]) -> bool {
    let (blocks, tail) = b.as_chunks::<64>();
    for (k, block) in blocks.iter().enumerate() {
        let [a, c] = leads(block);
        let mut hits = a | c;
        while hits != 0 {
            if escape_at(b, 64 * k + hits.trailing_zeros() as usize).is_some() {
                return true;
            }
            hits &= hits - 1;
        }
    }
    let at = b.len() - tail.len();
    tail.iter()
        .enumerate()
        .any(|(i, &c)| matches!(c, 0x7f | 0xc2 | 0xd8 | 0xe2) && escape_at(b, at + i).is_some())
}

pub(crate) fn push_u_escape(b: &mut Vec<u8>, cp: u32) {
    // Writing into a Vec cannot fail.
    let _ = write!(b, "\\u{cp:04x}");
}

/// Copy JSON text, escaping what a terminal must not see raw. In valid JSON
/// DEL, C1 and bidi characters can only stand inside strings, where `\u`
/// escapes keep the value; raw C0 controls can only be whitespace between
/// tokens (`\t`, `\r`), where a space is the same JSON.
pub(crate) fn push_safe_json(b: &mut Vec<u8>, json: &str) {
    let start = b.len();
    b.extend_from_slice(json.as_bytes());
    make_json_safe(b, start);
}

/// [`push_safe_json`] on the JSON text already at `b[start..]`, in place:
/// no second buffer, so writing an event allocates nothing (issue 13).
///
/// A first pass sums what the escapes add; the text is moved up by that
/// much and copied back down with its escapes. The writer never overtakes
/// the reader: it is behind by what the escapes still to come will add.
pub(crate) fn make_json_safe(b: &mut Vec<u8>, start: usize) {
    let end = b.len();
    let mut grow = 0;
    let mut spaces = false;
    let mut i = start;
    while let Some(p) = find_special(b, i, &SUSPECT) {
        match escape_at(b, p) {
            Some((len, cp)) => {
                if cp < 0x20 {
                    spaces = true;
                } else {
                    grow += 6 - len;
                }
                i = p + len;
            }
            None => i = p + 1,
        }
    }
    if grow == 0 && !spaces {
        return;
    }
    b.resize(end + grow, 0);
    b.copy_within(start..end, start + grow);
    let stop = end + grow;
    let (mut r, mut w) = (start + grow, start);
    while r < stop {
        let Some(p) = find_special(&b[..stop], r, &SUSPECT) else {
            b.copy_within(r..stop, w);
            break;
        };
        b.copy_within(r..p, w);
        w += p - r;
        r = p;
        match escape_at(&b[..stop], r) {
            None => {
                b[w] = b[r];
                w += 1;
                r += 1;
            }
            Some((len, cp)) if cp < 0x20 => {
                b[w] = b' ';
                w += 1;
                r += len;
            }
            Some((len, cp)) => {
                // `r - w` is at least what this escape adds (6 - len): the
                // six bytes end where the character read ends, or before.
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let mut esc = *b"\\u0000";
                for (k, shift) in [12, 8, 4, 0].into_iter().enumerate() {
                    esc[2 + k] = HEX[((cp >> shift) & 0xf) as usize];
                }
                b[w..w + 6].copy_from_slice(&esc);
                w += 6;
                r += len;
            }
        }
    }
}

/// The text of a valid JSON string body (as [`scan`](super::scan) checks them).
pub(crate) fn unescape(body: &str) -> Cow<'_, str> {
    if memchr::memchr(b'\\', body.as_bytes()).is_none() {
        return Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    unescape_to(body, &mut out);
    Cow::Owned(out)
}

/// [`unescape`] into `out`.
///
/// After the first escape, the body is read 64 bytes at a time (a mask of
/// its backslashes, from SSE2 compares; the block copied whole, and as much
/// of it kept as comes before the next escape) and the text gathered in a
/// buffer on the stack, written out a few hundred bytes or KiB at a time:
/// a tool's output has an escape every few dozen bytes (`\n`, the `\u001b`
/// of its colours), and a `memchr` and two writes per escape made
/// unescaping a failed command's output 6 instructions a byte
/// (docs/performance.md).
pub(crate) fn unescape_to(body: &str, out: &mut impl fmt::Write) {
    let b = body.as_bytes();
    let Some(first) = memchr::memchr(b'\\', b) else {
        let _ = out.write_str(body);
        return;
    };
    let _ = out.write_str(&body[..first]);
    // The buffer is zeroed for each body: a short one (a token delta's
    // text) gets a short buffer.
    if b.len() - first < 1024 {
        unescape_from(b, first, &mut Gathered::<_, 256>::new(out));
    } else {
        unescape_from(b, first, &mut Gathered::<_, 4096>::new(out));
    }
}

/// [`unescape_to`] of `b` from `i`, an escape, on.
fn unescape_from<W: fmt::Write, const N: usize>(
    b: &[u8],
    mut i: usize,
    text: &mut Gathered<'_, W, N>,
) {
    while i < b.len() {
        if b[i] == b'\\' {
            i += text.escape(&b[i..]);
        } else if let Some(block) = b.get(i..i + 64) {
            let block: &[u8; 64] = block.try_into().unwrap_or(&[b'\\'; 64]);
            let [bs] = blocks::baseline(block, [Class::Is(b'\\')]);
            let n = if bs == 0 {
                64
            } else {
                bs.trailing_zeros() as usize
            };
            text.plain64(block, n);
            i += n;
        } else {
            let n = memchr::memchr(b'\\', &b[i..]).unwrap_or(b.len() - i);
            text.plain(&b[i..i + n]);
            i += n;
        }
    }
    text.flush();
}

/// Unescaped text on its way to a writer: whole characters only reach
/// it, so each write is a `str`.
struct Gathered<'w, W: fmt::Write, const N: usize> {
    out: &'w mut W,
    buf: [u8; N],
    len: usize,
}

/// What [`Gathered`] keeps free: it writes out when less is left.
const SLACK: usize = 64;

impl<'w, W: fmt::Write, const N: usize> Gathered<'w, W, N> {
    fn new(out: &'w mut W) -> Self {
        Gathered {
            out,
            buf: [0; N],
            len: 0,
        }
    }

    /// The first `n` bytes of `block`, plain text (all 64 are copied: a
    /// copy of a known size; only `n` count).
    fn plain64(&mut self, block: &[u8; 64], n: usize) {
        self.room();
        self.buf[self.len..self.len + 64].copy_from_slice(block);
        self.len += n;
    }

    /// Plain text of any length.
    fn plain(&mut self, bytes: &[u8]) {
        for piece in bytes.chunks(N - SLACK) {
            self.room();
            if piece.len() > N - self.len {
                self.write_out();
            }
            self.buf[self.len..self.len + piece.len()].copy_from_slice(piece);
            self.len += piece.len();
        }
    }

    /// The escape at the start of `esc` (its backslash first): its
    /// character added, and its length returned. A valid body holds only
    /// valid escapes; anything else reads as U+FFFD (a `\u` escape) or as
    /// the character after the backslash, as before.
    fn escape(&mut self, esc: &[u8]) -> usize {
        let (c, len) = match esc.get(1) {
            Some(b'n') => ('\n', 2),
            Some(b't') => ('\t', 2),
            Some(b'r') => ('\r', 2),
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'u') => {
                let c = esc.get(2..6).and_then(hex4).and_then(char::from_u32);
                (c.unwrap_or('\u{fffd}'), 6)
            }
            Some(&c) if c.is_ascii() => (char::from(c), 2),
            // A backslash before a character past ASCII: not JSON (and
            // never given here), kept as it stands.
            Some(_) | None => ('\\', 1),
        };
        self.room();
        self.len += c.encode_utf8(&mut self.buf[self.len..]).len();
        len.min(esc.len())
    }

    /// At least [`SLACK`] bytes free.
    fn room(&mut self) {
        if self.len > N - SLACK {
            self.write_out();
        }
    }

    /// Write out the whole characters gathered, keeping a character whose
    /// last bytes are still to come (a block's copy may end inside one).
    fn write_out(&mut self) {
        let whole = char_start(&self.buf[..self.len]);
        let _ = match simdutf8::basic::from_utf8(&self.buf[..whole]) {
            Ok(s) => self.out.write_str(s),
            Err(_) => self
                .out
                .write_str(&String::from_utf8_lossy(&self.buf[..whole])),
        };
        self.buf.copy_within(whole..self.len, 0);
        self.len -= whole;
    }

    /// Everything gathered, written out (the body ends with a whole
    /// character).
    fn flush(&mut self) {
        self.write_out();
        if self.len > 0 {
            let _ = self
                .out
                .write_str(&String::from_utf8_lossy(&self.buf[..self.len]));
            self.len = 0;
        }
    }
}

/// Where the last character of `bytes` starts when it may be cut short
/// (its lead byte is among the last three and its length passes the end);
/// else `bytes.len()`.
fn char_start(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=3.min(n) {
        let b = bytes[n - back];
        if b & 0xc0 != 0x80 {
            let width = match b {
                0xf0.. => 4,
                0xe0.. => 3,
                0xc0.. => 2,
                _ => 1,
            };
            return if width > back { n - back } else { n };
        }
    }
    n
}

/// The code unit of a `\u` escape's four hex digits, if they are four
/// (any case).
pub(super) fn hex4(h: &[u8]) -> Option<u32> {
    if h.len() != 4 {
        return None;
    }
    h.iter().try_fold(0u32, |cp, &d| {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        Some(cp << 4 | u32::from(v))
    })
}

#[cfg(test)]
mod tests;
