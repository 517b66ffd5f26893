//! Long string values found without parsing them.
//!
//! Saved sessions are mostly tool output: a Claude `user` line carries a
//! file's content twice (`message.content` and `tool_use_result`), and no
//! sink needs either unescaped by default (pretty shows a successful tool's
//! output only with `-v`; JSONL copies it). simd-json would still validate,
//! unescape and copy every byte of them, which costs more than all the rest
//! of streamview together (docs/performance.md).
//!
//! So on a long line this module finds the string values of at least
//! [`MIN_LEN`] bytes, 64 bytes per step, and checks them (no raw control
//! character, valid escapes, valid UTF-8); the decoder then hands simd-json
//! the line with each of them replaced by a short placeholder, and resolves
//! a placeholder only when a decoder reads it.
//!
//! The block scan is simdjson's stage 1 reduced to strings: bit masks of
//! quotes, backslashes and control bytes per 64-byte block; the characters
//! an odd run of backslashes escapes (the same arithmetic as simd-json's
//! `find_odd_backslash_sequences`); quotes that are not escaped delimit the
//! strings. Only rare things are looked at one by one: escapes other than
//! `\n`, `\t`, `\"` and `\\`. A block without quotes inside a string (most of a
//! file's text) skips the quote logic. The masks come from SSE2 compares,
//! or AVX2 ones when the processor has it (checked at run time; the whole
//! scan is compiled for it then, so the masks stay inlined).
//!
//! Anything unusual in a string (a raw control, a bad or surrogate `\u`
//! escape, invalid UTF-8, an unterminated string) makes [`long_strings`]
//! return false, and the line is parsed whole as before: simd-json then
//! reports the problem in its own words, so errors do not depend on this
//! module.

use super::blocks::{self, Class};
use super::escape::hex4;

/// String values shorter than this are left to simd-json.
pub(crate) const MIN_LEN: usize = 1024;

/// Lines shorter than this are parsed whole: they cannot hold enough long
/// strings for the scan to pay.
pub(crate) const MIN_LINE: usize = 4096;

/// A string value the parser is spared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Long<'a> {
    /// Offset of the body (after the opening quote) in the line.
    pub start: usize,
    /// The body as it stands in the line, escapes and all.
    pub body: &'a str,
    /// Holds a backslash escape: the text differs from the body.
    pub escaped: bool,
    /// Every escape is the one streamview's JSON writers would write for
    /// its character (`\n`, `\"`, `\u001b`…, not `\/` or `\u00e9`), so the
    /// body re-escaped is the body.
    pub canonical: bool,
}

/// Finds the string values of `line` that are at least `min_len` bytes
/// long, or start with `\u0000` (which the decoder's placeholders start
/// with), and puts them in `out` in line order. Object keys are never
/// taken.
///
/// Returns false, with `out` in any state, when the line is not plainly
/// valid in its strings; the caller then parses it whole.
pub(crate) fn long_strings<'a>(line: &'a [u8], min_len: usize, out: &mut Vec<Long<'a>>) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { long_strings_avx2(line, min_len, out) };
    }
    scan_line(line, min_len, out, masks)
}

/// [`long_strings`] compiled for AVX2, masks included: 32 bytes per
/// compare instead of 16 (about 7% of the user time on long-line logs).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn long_strings_avx2<'a>(line: &'a [u8], min_len: usize, out: &mut Vec<Long<'a>>) -> bool {
    // A closure defined here has this function's target features.
    scan_line(line, min_len, out, |b| masks_avx2(b))
}

// Inlined into each of its two instances (SSE2, AVX2), so that the masks
// are computed in the loop with the instance's instructions.
#[allow(clippy::inline_always)]
#[inline(always)]
fn scan_line<'a>(
    line: &'a [u8],
    min_len: usize,
    out: &mut Vec<Long<'a>>,
    masks: impl Fn(&[u8; 64]) -> Masks,
) -> bool {
    out.clear();
    let mut s = Scan {
        prev_escaped: 0,
        prev_inside: 0,
        open: None,
        escaped: false,
        noncanonical: false,
    };
    let mut base = 0;
    for block in line.chunks_exact(64) {
        let block: &[u8; 64] = block.try_into().unwrap_or(&[b' '; 64]);
        if !s.block(line, base, masks(block), min_len, out) {
            return false;
        }
        base += 64;
    }
    if base < line.len() {
        // The end, padded with spaces.
        let mut tail = [b' '; 64];
        tail[..line.len() - base].copy_from_slice(&line[base..]);
        if !s.block(line, base, masks(&tail), min_len, out) {
            return false;
        }
    }
    s.open.is_none()
}

/// The scan's state between blocks.
struct Scan {
    /// 1 when the block starts with an escaped character.
    prev_escaped: u64,
    /// All ones when the block starts inside a string.
    prev_inside: u64,
    /// Offset of the open string's opening quote.
    open: Option<usize>,
    /// What the open string holds so far.
    escaped: bool,
    noncanonical: bool,
}

const EVEN: u64 = 0x5555_5555_5555_5555;
const ODD: u64 = !EVEN;

impl Scan {
    // Two call sites (whole blocks, the padded end) kept it out of line: inlined,
    // long lines take 7% less user time (hyperfine, 525 MB).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn block<'a>(
        &mut self,
        line: &'a [u8],
        base: usize,
        m: Masks,
        min_len: usize,
        out: &mut Vec<Long<'a>>,
    ) -> bool {
        let escaped = odd_ends(m.backslash, &mut self.prev_escaped);
        if m.quote == 0 && self.prev_inside != 0 {
            // The commonest block of a long line: inside a string from end
            // to end (a file's text, its lines ended by `\n`).
            return self.inside(line, base, &m, escaped);
        }
        let quotes = m.quote & !escaped;
        let inside = prefix_xor(quotes) ^ self.prev_inside;
        self.prev_inside = if inside >> 63 == 1 { !0 } else { 0 };
        let body = inside & !quotes;
        if m.control & body != 0 {
            return false;
        }
        // Escapes other than `\n`, `\t`, `\"` and `\\`, one by one (`inside`
        // repeats the loop: a shared function gained nothing in the hot loop).
        let mut noncanonical = 0;
        let mut rare = escaped & body & !(m.nt | m.quote | m.backslash);
        while rare != 0 {
            let bit = rare.trailing_zeros();
            rare &= rare - 1;
            let at = base + bit as usize;
            match check_escape(line, at) {
                Escape::Canonical => {}
                Escape::Other => noncanonical |= 1 << bit,
                Escape::Invalid => return false,
            }
        }
        // Walk the quotes: each opens or closes a string.
        let mut from = 0;
        let mut q = quotes;
        loop {
            let to = if q == 0 { 64 } else { q.trailing_zeros() };
            if self.open.is_some() {
                let seg = bits(from, to);
                self.escaped |= m.backslash & seg != 0;
                self.noncanonical |= noncanonical & seg != 0;
            }
            if q == 0 {
                return true;
            }
            q &= q - 1;
            let at = base + to as usize;
            match self.open.take() {
                None => {
                    self.open = Some(at);
                    self.escaped = false;
                    self.noncanonical = false;
                }
                Some(open) => {
                    if !self.close(line, open + 1, at, min_len, out) {
                        return false;
                    }
                }
            }
            from = to + 1;
        }
    }

    /// [`Scan::block`] for a block without quotes that starts inside a
    /// string: all of it is string body.
    fn inside(&mut self, line: &[u8], base: usize, m: &Masks, escaped: u64) -> bool {
        if m.control != 0 {
            return false;
        }
        let mut rare = escaped & !(m.nt | m.backslash);
        while rare != 0 {
            let bit = rare.trailing_zeros();
            rare &= rare - 1;
            match check_escape(line, base + bit as usize) {
                Escape::Canonical => {}
                Escape::Other => self.noncanonical = true,
                Escape::Invalid => return false,
            }
        }
        self.escaped |= m.backslash != 0;
        true
    }

    /// A string's body ends at `end`: keep it if it is a long value.
    fn close<'a>(
        &self,
        line: &'a [u8],
        start: usize,
        end: usize,
        min_len: usize,
        out: &mut Vec<Long<'a>>,
    ) -> bool {
        let body = &line[start..end];
        if body.len() < min_len && !body.starts_with(b"\\u0000") {
            return true;
        }
        let is_key = line[end + 1..]
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            == Some(&b':');
        if is_key {
            return true;
        }
        let Ok(body) = simdutf8::basic::from_utf8(body) else {
            return false;
        };
        out.push(Long {
            start,
            body,
            escaped: self.escaped,
            canonical: !self.noncanonical,
        });
        true
    }
}

/// The characters of a block that end an odd run of backslashes: the
/// escaped ones. simd-json's `find_odd_backslash_sequences`; `prev_escaped`
/// (1 when the block starts with an escaped character) is carried from
/// block to block.
pub(super) fn odd_ends(bs: u64, prev_escaped: &mut u64) -> u64 {
    if bs == 0 && *prev_escaped == 0 {
        return 0;
    }
    let start_edges = bs & !(bs << 1);
    let even_start_mask = EVEN ^ *prev_escaped;
    let even_starts = start_edges & even_start_mask;
    let odd_starts = start_edges & !even_start_mask;
    let even_carries = bs.wrapping_add(even_starts);
    let (mut odd_carries, overflow) = bs.overflowing_add(odd_starts);
    odd_carries |= *prev_escaped;
    *prev_escaped = u64::from(overflow);
    let even_carry_ends = even_carries & !bs;
    let odd_carry_ends = odd_carries & !bs;
    (even_carry_ends & ODD) | (odd_carry_ends & EVEN)
}

/// Bits `from..to` (each at most 64).
fn bits(from: u32, to: u32) -> u64 {
    let below_to = if to >= 64 { !0 } else { (1 << to) - 1 };
    let from_up = if from >= 64 { 0 } else { !0 << from };
    below_to & from_up
}

/// Bit `i` set when an odd number of bits at or below `i` are set: the
/// bits between an opening quote (included) and its closing one.
pub(super) fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

enum Escape {
    /// What streamview's writers would write.
    Canonical,
    /// Valid, but written another way (`\/`, `\u00e9`, `\u000A`).
    Other,
    /// Not JSON, or a surrogate (left to simd-json, which checks pairs).
    Invalid,
}

/// The escape whose character (after the backslash) is at `at`.
fn check_escape(line: &[u8], at: usize) -> Escape {
    // Past the end: the line ends with the backslash.
    let Some(&c) = line.get(at) else {
        return Escape::Invalid;
    };
    match c {
        b'n' | b'"' | b'\\' | b'b' | b'f' | b'r' | b't' => Escape::Canonical,
        b'/' => Escape::Other,
        b'u' => {
            let Some(hex) = line.get(at + 1..at + 5) else {
                return Escape::Invalid;
            };
            if hex == b"001b" {
                // ESC, which starts every colour of a tool's output: the
                // commonest `\u` escape of a log by far.
                return Escape::Canonical;
            }
            let Some(cp) = hex4(hex) else {
                return Escape::Invalid;
            };
            let lower = !hex.iter().any(u8::is_ascii_uppercase);
            if (0xd800..0xe000).contains(&cp) {
                Escape::Invalid
            } else if lower && cp < 0x20 && !matches!(cp, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                Escape::Canonical
            } else {
                Escape::Other
            }
        }
        _ => Escape::Invalid,
    }
}

/// Bit masks of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// Bytes below 0x20.
    control: u64,
    /// `n` or `t`, the commonest escapes (line ends; the tabs of numbered
    /// file listings).
    nt: u64,
}

/// In the order of the fields.
impl From<[u64; 4]> for Masks {
    fn from([quote, backslash, control, nt]: [u64; 4]) -> Self {
        Masks {
            quote,
            backslash,
            control,
            nt,
        }
    }
}

/// The classes of [`Masks`], in the order of its fields.
const CLASSES: [Class; 4] = [
    Class::Is(b'"'),
    Class::Is(b'\\'),
    Class::AtMost(0x1f),
    Class::Either(b'n', b't'),
];

/// The masks with what every processor of the target has.
fn masks(block: &[u8; 64]) -> Masks {
    Masks::from(blocks::baseline(block, CLASSES))
}

/// The masks with AVX2, 32 bytes per compare.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn masks_avx2(block: &[u8; 64]) -> Masks {
    Masks::from(blocks::avx2(block, CLASSES))
}

/// The masks a byte at a time: the reference.
#[cfg(test)]
fn masks_scalar(block: &[u8; 64]) -> Masks {
    Masks::from(blocks::scalar(block, CLASSES))
}

#[cfg(test)]
mod tests;
