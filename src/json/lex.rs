//! A line read token by token, for the few shapes a decoder reads without
//! the parser.
//!
//! Most of a token-delta stream is lines of a dozen short keys around one
//! short string (Claude Code's `content_block_delta`: 68% of the lines).
//! simd-json's first stage costs about 2.9 instructions a byte on such a
//! line, the cost of a call rather than of its bytes; a decoder that knows
//! the line's shape reads it here in a third of that, and hands the line to
//! the parser when anything is not as it expects.
//!
//! [`Lexer`] accepts a subset of JSON and nothing outside it: no
//! whitespace, no arrays, numbers only as unsigned integers of up to 18
//! digits, keys of printable ASCII without escapes, string values whose
//! escapes are the two-character ones (`\uXXXX` is left to the parser, which
//! also repairs a lone surrogate), without raw control characters, valid
//! UTF-8. Whatever it accepts simd-json accepts and reads the same; for
//! everything else it answers [`Declined`] and the caller parses the line, so
//! errors are reported in simd-json's words, as before.

use std::borrow::Cow;

use super::Arena;
use super::blocks::{self, Class};
use super::escape::unescape_to;

/// What the lexer does not accept (the line is then the parser's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Declined;

/// A lexer's answer.
pub(crate) type Lexed<T> = Result<T, Declined>;

/// `Ok(x)` for `Some(x)`, else [`Declined`].
fn ok<T>(x: Option<T>) -> Lexed<T> {
    x.ok_or(Declined)
}

/// A cursor over one line's bytes (see the module's doc).
pub(crate) struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    /// At an object's first key (no `,` before it).
    fresh: bool,
}

/// A value's first token: a whole scalar, or the start of an object, whose
/// keys [`Lexer::key`] reads next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    Str(Str<'a>),
    Int(u64),
    Bool(bool),
    Null,
    Object,
}

/// A string value's body, as it stands in the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Str<'a> {
    body: &'a str,
    /// It holds escapes: its text must be unescaped.
    escaped: bool,
}

impl<'a> Str<'a> {
    /// Its text: borrowed from the line, or unescaped into `arena`.
    pub(crate) fn text(self, arena: &'a Arena) -> Cow<'a, str> {
        if !self.escaped {
            return Cow::Borrowed(self.body);
        }
        let mut t = arena.text();
        unescape_to(self.body, &mut t);
        Cow::Borrowed(t.done())
    }

    /// It is exactly `s` (which has no character to escape).
    pub(crate) fn is(self, s: &str) -> bool {
        !self.escaped && self.body == s
    }
}

impl<'a> Lexer<'a> {
    /// A cursor at the start of `b`.
    pub(crate) fn new(b: &'a [u8]) -> Self {
        Lexer {
            b,
            i: 0,
            fresh: false,
        }
    }

    /// The next key of the object being read (its bytes: printable ASCII),
    /// or `None` at its end (its `}` read).
    pub(crate) fn key(&mut self) -> Lexed<Option<&'a [u8]>> {
        match (ok(self.b.get(self.i))?, self.fresh) {
            (b'}', _) => {
                self.i += 1;
                self.fresh = false;
                return Ok(None);
            }
            (b',', false) if self.b.get(self.i + 1) == Some(&b'"') => self.i += 1,
            (b'"', true) => {}
            _ => return Err(Declined),
        }
        self.fresh = false;
        let start = self.i + 1;
        let end = start + ok(self.b.get(start..).and_then(key_len))?;
        if self.b.get(end..end + 2) != Some(b"\":") {
            return Err(Declined);
        }
        self.i = end + 2;
        Ok(Some(&self.b[start..end]))
    }

    /// The value after a key: a scalar read whole, or the `{` of an object.
    pub(crate) fn value(&mut self) -> Lexed<Token<'a>> {
        let rest = ok(self.b.get(self.i..))?;
        let (token, len) = match *ok(rest.first())? {
            b'"' => return ok(self.string()).map(Token::Str),
            b'{' => {
                self.fresh = true;
                (Token::Object, 1)
            }
            b'n' if rest.starts_with(b"null") => (Token::Null, 4),
            b't' if rest.starts_with(b"true") => (Token::Bool(true), 4),
            b'f' if rest.starts_with(b"false") => (Token::Bool(false), 5),
            b'0'..=b'9' => {
                let len = rest.iter().take_while(|c| c.is_ascii_digit()).count();
                // No leading zero, no fraction or exponent, nothing that
                // might not fit.
                if (len > 1 && rest[0] == b'0')
                    || len > 18
                    || matches!(rest.get(len), Some(b'.' | b'e' | b'E'))
                {
                    return Err(Declined);
                }
                let n = rest[..len]
                    .iter()
                    .fold(0, |n, &d| n * 10 + u64::from(d - b'0'));
                (Token::Int(n), len)
            }
            _ => return Err(Declined),
        };
        self.i += len;
        Ok(token)
    }

    /// The bytes at the cursor are `lit`, passed over. `lit` is tokens the
    /// lexer would read one by one up to the end of a value (a decoder's
    /// literal: `{"type":"stream_event"`), so that reading goes on after it
    /// as after that value.
    pub(crate) fn skip(&mut self, lit: &[u8]) -> bool {
        let at = self.b.get(self.i..).is_some_and(|r| r.starts_with(lit));
        if at {
            self.i += lit.len();
            self.fresh = false;
        }
        at
    }

    /// Nothing is left after the value read: the line is whole.
    pub(crate) fn at_end(&self) -> bool {
        self.i == self.b.len()
    }

    /// The string value at the cursor (its `"`), read to its closing quote.
    fn string(&mut self) -> Option<Str<'a>> {
        let start = self.i + 1;
        let (mut i, mut escaped, mut high) = (start, false, false);
        let end = loop {
            i = stop(self.b, i, &mut high)?;
            match self.b[i] {
                b'"' => break i,
                b'\\' => match self.b.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                        escaped = true;
                        i += 2;
                    }
                    // `\u`: the parser's (surrogates, their repair).
                    _ => return None,
                },
                // A raw control character: simd-json refuses the line.
                _ => return None,
            }
        };
        let body = &self.b[start..end];
        let body = if high {
            simdutf8::basic::from_utf8(body).ok()?
        } else {
            // SAFETY: every byte of `body` is below 0x80 (`stop` saw none
            // past ASCII before the closing quote), and ASCII is UTF-8. The
            // check it spares was a third of reading a delta line.
            #[allow(unsafe_code)]
            unsafe {
                std::str::from_utf8_unchecked(body)
            }
        };
        self.i = end + 1;
        Some(Str { body, escaped })
    }
}

/// What a string's body may not hold raw, and what ends it.
const STRING: [Class; 4] = [
    Class::Is(b'"'),
    Class::Is(b'\\'),
    Class::AtMost(0x1f),
    Class::AtLeast(0x80),
];

/// Index of the first `"`, `\` or control byte at or after `i`, noting in
/// `high` whether a byte past ASCII came before it: sixteen bytes a step
/// (SSE2 compares), the last few one by one.
#[inline]
fn stop(b: &[u8], mut i: usize, high: &mut bool) -> Option<usize> {
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<16>()) {
        let [quote, backslash, control, past] = blocks::baseline16(chunk, STRING);
        let stops = quote | backslash | control;
        if stops != 0 {
            let p = stops.trailing_zeros();
            *high |= past & ((1 << p) - 1) != 0;
            return Some(i + p as usize);
        }
        *high |= past != 0;
        i += 16;
    }
    let rest = b.get(i..)?;
    let p = rest
        .iter()
        .position(|&c| c < 0x20 || c == b'"' || c == b'\\')?;
    *high |= rest[..p].iter().any(|&c| c >= 0x80);
    Some(i + p)
}

/// The length of the key whose body starts `b` (before its closing `"`),
/// if it is printable ASCII without escapes.
#[inline]
fn key_len(b: &[u8]) -> Option<usize> {
    const KEY: [Class; 4] = [
        Class::Is(b'"'),
        Class::Is(b'\\'),
        Class::AtMost(0x1f),
        Class::AtLeast(0x7f),
    ];
    let mut i = 0;
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<16>()) {
        let [quote, backslash, control, past] = blocks::baseline16(chunk, KEY);
        let bad = backslash | control | past;
        if quote != 0 {
            let p = quote.trailing_zeros();
            return (bad & ((1 << p) - 1) == 0).then_some(i + p as usize);
        }
        if bad != 0 {
            return None;
        }
        i += 16;
    }
    let p = b[i..]
        .iter()
        .position(|&c| !(b' '..=b'~').contains(&c) || c == b'"' || c == b'\\')?;
    (b[i + p] == b'"').then_some(i + p)
}

#[cfg(test)]
mod tests;
