//! Values a reader will not read, found without parsing them.
//!
//! A ledger (`--format summary`, `summary-json`, `--by`) needs a line's
//! usage, model, time, tool calls and errors, not its context: most of the
//! bytes of a Claude Code 2.1.330 transcript are its request logs
//! (`api-request-shape`: every tool's JSON schema) and the snapshots its
//! attachments hold (the system prompt, the tools again), about 80% of a
//! library, parsed and thrown away by every report. Each producer lists
//! the values no report reads ([`Unread`], `Entry::unread` in the decoder
//! registry); on a long line this module finds those that are objects or
//! arrays, and the parser then gets the line with each of them emptied
//! (`{}`, `[]`): simd-json never sees their tokens.
//!
//! The scan is [`scan`](super::scan)'s, 64 bytes per step: quotes that are
//! not escaped delimit strings; outside them, brackets nest. Only the
//! first two levels of the line's object are walked token by token (to
//! know each value's key and the line's `type`); deeper, a block's
//! brackets are only counted, unless they may close the level being
//! looked for; a block that is string from end to end (a snapshot's
//! prose), only for its quotes and backslashes. A pruned value is checked
//! for nothing but its brackets and strings: a broken line is still found
//! (unbalanced, cut short, unterminated: the line is then parsed whole and
//! reported as before), but invalid UTF-8 or a stray token inside a value
//! no report reads is not.

use super::blocks::{self, Class};
use super::scan::{odd_ends, prefix_xor};

/// Lines shorter than this are parsed whole: the walk costs more than
/// it saves on them (cachegrind, a report over 70 transcripts: 104.3 M
/// instructions from 512 bytes on, 94.2 M from 4 KiB, 94.4 M from 16 KiB;
/// `--by day` over 913 transcripts 188 → 158 ms). The values worth it are
/// in the request logs and snapshots of 30–60 KB.
pub(crate) const MIN_LINE: usize = 4096;

/// A value no report reads: of the line's top-level object, the value of
/// `key` (`"*"`: of every key), or of its `member` when not empty (`"*"`:
/// every member), on lines whose top-level `type` is `of_type` (when not
/// empty, and read before the value). Only objects and arrays are pruned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unread {
    pub of_type: &'static str,
    pub key: &'static str,
    pub member: &'static str,
}

impl Unread {
    /// The value of `key`, on every line.
    pub(crate) const fn key(key: &'static str) -> Self {
        Unread {
            of_type: "",
            key,
            member: "",
        }
    }

    /// The value of `key`'s `member`, on every line.
    pub(crate) const fn member(key: &'static str, member: &'static str) -> Self {
        Unread {
            of_type: "",
            key,
            member,
        }
    }

    /// Every value of the lines of type `of_type`.
    pub(crate) const fn all_of(of_type: &'static str) -> Self {
        Unread {
            of_type,
            key: "*",
            member: "",
        }
    }

    fn names(pattern: &str, key: &[u8]) -> bool {
        pattern == "*" || pattern.as_bytes() == key
    }
}

/// `line` with the values `rules` name emptied, written into `out`, when
/// it is long enough to be walked ([`MIN_LINE`]) and holds some (their
/// spans in `spans`); else `None`: the line is parsed as it is.
pub(crate) fn emptied<'a>(
    line: &[u8],
    rules: &[Unread],
    spans: &mut Vec<(usize, usize)>,
    out: &'a mut Vec<u8>,
) -> Option<&'a [u8]> {
    if rules.is_empty()
        || line.len() < MIN_LINE
        || !unread_values(line, rules, spans)
        || spans.is_empty()
    {
        return None;
    }
    condense(out, line, spans);
    Some(out)
}

/// Finds the values of `line` that `rules` name and that are objects or
/// arrays, and puts their spans (first bracket to last, inclusive) in
/// `out`, in line order. Returns false, with `out` in any state, when the
/// line is not a balanced JSON object: the caller then parses it whole.
pub(crate) fn unread_values(line: &[u8], rules: &[Unread], out: &mut Vec<(usize, usize)>) -> bool {
    out.clear();
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { walk_avx2(line, rules, out) };
    }
    walk_line(line, rules, out, true, strings, structure)
}

/// `out` := `line` with each span of `pruned` (an object or an array,
/// brackets included) emptied.
fn condense(out: &mut Vec<u8>, line: &[u8], pruned: &[(usize, usize)]) {
    out.clear();
    let mut done = 0;
    for &(open, close) in pruned {
        out.extend_from_slice(&line[done..=open]);
        out.push(line[close]);
        done = close + 1;
    }
    out.extend_from_slice(&line[done..]);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn walk_avx2(line: &[u8], rules: &[Unread], out: &mut Vec<(usize, usize)>) -> bool {
    walk_line(
        line,
        rules,
        out,
        true,
        |b| strings_avx2(b),
        |b| structure_avx2(b),
    )
}

#[allow(clippy::inline_always)]
#[inline(always)]
fn walk_line(
    line: &[u8],
    rules: &[Unread],
    out: &mut Vec<(usize, usize)>,
    skim: bool,
    strings: impl Fn(&[u8; 64]) -> [u64; 2],
    structure: impl Fn(&[u8; 64]) -> [u64; 3],
) -> bool {
    let mut w = Walk {
        line,
        rules,
        prev_escaped: 0,
        prev_inside: 0,
        depth: 0,
        object: [false; 3],
        want_key: false,
        string: 0,
        keys: [(0, 0); 3],
        ty: None,
        pruning: None,
        in_string: false,
        closed: false,
    };
    let mut base = 0;
    for block in line.chunks_exact(64) {
        let block: &[u8; 64] = block.try_into().unwrap_or(&[b' '; 64]);
        if !w.step(base, block, skim, &strings, &structure, out) {
            return false;
        }
        base += 64;
    }
    if base < line.len() {
        let mut tail = [b' '; 64];
        tail[..line.len() - base].copy_from_slice(&line[base..]);
        if !w.step(base, &tail, skim, &strings, &structure, out) {
            return false;
        }
    }
    w.closed && !w.in_string && w.prev_inside == 0
}

/// The walk's state between blocks.
struct Walk<'a> {
    line: &'a [u8],
    rules: &'a [Unread],
    prev_escaped: u64,
    prev_inside: u64,
    /// Brackets open: 1 inside the line's object.
    depth: u32,
    /// Levels 1 and 2: an object (else an array).
    object: [bool; 3],
    /// The next string at this level is a key.
    want_key: bool,
    /// Where the open string's text starts.
    string: usize,
    /// The key of the value being read at levels 1 and 2 (its text's span).
    keys: [(usize, usize); 3],
    /// The line's `type`, once read.
    ty: Option<(usize, usize)>,
    /// A value being pruned: its level and first bracket.
    pruning: Option<(u32, usize)>,
    /// Inside a string (at levels 1 and 2: deeper, strings are not followed
    /// one by one).
    in_string: bool,
    /// The line's object is closed.
    closed: bool,
}

impl Walk<'_> {
    /// One block: its quotes and backslashes first, since a block of string
    /// from end to end needs nothing else (`skim`: false only for the
    /// tests' reference, which walks every block whole).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn step(
        &mut self,
        base: usize,
        block: &[u8; 64],
        skim: bool,
        strings: &impl Fn(&[u8; 64]) -> [u64; 2],
        structure: &impl Fn(&[u8; 64]) -> [u64; 3],
        out: &mut Vec<(usize, usize)>,
    ) -> bool {
        let s = strings(block);
        (skim && self.string_only(s)) || self.block(base, &Masks::of(s, structure(block)), out)
    }

    /// A block that is string from end to end (begun before it, with no
    /// quote in it that is not escaped), the commonest in a snapshot's
    /// prose: only whether it ends on an escape carries over, as
    /// [`Walk::block`] would find. False, and the walk untouched, for any
    /// other block.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn string_only(&mut self, [quote, backslash]: [u64; 2]) -> bool {
        if self.prev_inside == 0 {
            return false;
        }
        let mut prev_escaped = self.prev_escaped;
        let escaped = odd_ends(backslash, &mut prev_escaped);
        if quote & !escaped != 0 {
            return false;
        }
        self.prev_escaped = prev_escaped;
        true
    }

    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn block(&mut self, base: usize, m: &Masks, out: &mut Vec<(usize, usize)>) -> bool {
        let escaped = odd_ends(m.backslash, &mut self.prev_escaped);
        let quotes = m.quote & !escaped;
        let inside = prefix_xor(quotes) ^ self.prev_inside;
        self.prev_inside = if inside >> 63 == 1 { !0 } else { 0 };
        let opens = m.open & !inside;
        let closes = m.close & !inside;
        let mut pending = quotes | opens | closes | (m.comma & !inside);
        while pending != 0 {
            if self.closed {
                // Something after the line's object.
                return false;
            }
            // Deep in the line (or in a value pruned): brackets only,
            // counted a block at a time while none can close the level
            // looked for.
            let floor = self.pruning.map_or(2, |(level, _)| level);
            if self.depth > floor {
                let (o, c) = (opens & pending, closes & pending);
                if self.depth.saturating_sub(c.count_ones()) > floor {
                    self.depth += o.count_ones();
                    self.depth -= c.count_ones();
                    return true;
                }
                let mut brackets = o | c;
                loop {
                    if brackets == 0 {
                        return true;
                    }
                    let bit = brackets.trailing_zeros();
                    brackets &= brackets - 1;
                    if o >> bit & 1 == 1 {
                        self.depth += 1;
                        continue;
                    }
                    self.depth -= 1;
                    if self.depth == floor {
                        if let Some((_, start)) = self.pruning.take() {
                            let end = base + bit as usize;
                            // `{…]`: broken; the whole line's parse says how.
                            if self.line.get(start).map(|b| b.wrapping_add(2))
                                != self.line.get(end).copied()
                            {
                                return false;
                            }
                            out.push((start, end));
                        }
                        self.want_key = false;
                        // The rest of the block, token by token.
                        pending &= !(u64::MAX >> (63 - bit));
                        break;
                    }
                }
                continue;
            }
            let bit = pending.trailing_zeros();
            pending &= pending - 1;
            let at = base + bit as usize;
            if !self.token(at, quotes >> bit & 1 == 1) {
                return false;
            }
        }
        true
    }

    /// A quote, bracket or comma at level 2 or above, at `at`.
    fn token(&mut self, at: usize, quote: bool) -> bool {
        let d = self.depth as usize;
        if quote {
            if self.in_string {
                self.end_string(at, d);
            } else {
                self.string = at + 1;
            }
            self.in_string = !self.in_string;
            return true;
        }
        match self.line.get(at) {
            Some(b',') => self.want_key = self.object[d],
            Some(&c @ (b'{' | b'[')) => {
                if d == 0 && c != b'{' {
                    return false;
                }
                if (d == 1 || d == 2) && self.unread(d) {
                    self.pruning = Some((self.depth, at));
                }
                self.depth += 1;
                if d < 2 {
                    self.object[d + 1] = c == b'{';
                }
                self.want_key = c == b'{';
            }
            _ => {
                if d == 0 {
                    return false;
                }
                self.depth -= 1;
                self.closed = self.depth == 0;
                self.want_key = false;
            }
        }
        true
    }

    /// A string at level `d` ends at `at`: a key, or the line's `type`.
    fn end_string(&mut self, at: usize, d: usize) {
        let span = (self.string, at);
        if self.want_key {
            self.keys[d] = span;
            self.want_key = false;
        } else if d == 1 && self.text(self.keys[1]) == b"type" {
            self.ty = Some(span);
        }
    }

    fn text(&self, (from, to): (usize, usize)) -> &[u8] {
        self.line.get(from..to).unwrap_or_default()
    }

    /// The value starting at level `d` (1 or 2) is one the rules name.
    fn unread(&self, d: usize) -> bool {
        let key = self.text(self.keys[1]);
        let member = self.text(self.keys[2]);
        self.rules.iter().any(|r| {
            let of_type = r.of_type.is_empty()
                || self
                    .ty
                    .is_some_and(|t| self.text(t) == r.of_type.as_bytes());
            of_type
                && Unread::names(r.key, key)
                && if d == 1 {
                    r.member.is_empty()
                } else {
                    !r.member.is_empty() && self.object[2] && Unread::names(r.member, member)
                }
        })
    }
}

/// Bit masks of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// `{` or `[`.
    open: u64,
    /// `}` or `]`.
    close: u64,
    comma: u64,
}

impl Masks {
    /// From a block's [`STRINGS`] and [`STRUCTURE`].
    fn of([quote, backslash]: [u64; 2], [open, close, comma]: [u64; 3]) -> Self {
        Masks {
            quote,
            backslash,
            open,
            close,
            comma,
        }
    }
}

/// Quotes and backslashes: all a block inside a string is looked at for.
const STRINGS: [Class; 2] = [Class::Is(b'"'), Class::Is(b'\\')];

/// The brackets and commas of a block with more than string in it.
const STRUCTURE: [Class; 3] = [
    Class::Either(b'{', b'['),
    Class::Either(b'}', b']'),
    Class::Is(b','),
];

/// The [`STRINGS`] masks with what every processor of the target has.
fn strings(block: &[u8; 64]) -> [u64; 2] {
    blocks::baseline(block, STRINGS)
}

/// The [`STRUCTURE`] masks with what every processor of the target has.
fn structure(block: &[u8; 64]) -> [u64; 3] {
    blocks::baseline(block, STRUCTURE)
}

/// The [`STRINGS`] masks with AVX2, 32 bytes per compare.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn strings_avx2(block: &[u8; 64]) -> [u64; 2] {
    blocks::avx2(block, STRINGS)
}

/// The [`STRUCTURE`] masks with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn structure_avx2(block: &[u8; 64]) -> [u64; 3] {
    blocks::avx2(block, STRUCTURE)
}

/// The masks a byte at a time: the reference.
#[cfg(test)]
fn strings_scalar(block: &[u8; 64]) -> [u64; 2] {
    blocks::scalar(block, STRINGS)
}

#[cfg(test)]
fn structure_scalar(block: &[u8; 64]) -> [u64; 3] {
    blocks::scalar(block, STRUCTURE)
}

#[cfg(test)]
mod tests;
