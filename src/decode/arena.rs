//! Text a decoder composes for one line, in memory reused line after line.
//!
//! Most of an event borrows from the line (its strings are slices of it).
//! What a decoder writes itself (a notice's sentence, `pattern in path` for
//! a search, a long string unescaped, a scalar written as JSON…) is written
//! here instead of into a `String` of its own, and borrowed the same way:
//! the [`Decoder`](super::Decoder) resets the arena before each line, so
//! once it has grown to what a line needs, decoding allocates nothing
//! (issue 5's goal; `tests/alloc.rs` counts).
//!
//! Nothing with a destructor may be put here (the arena never runs them):
//! only text.

use std::borrow::Cow;
use std::fmt::{self, Write};

use bumpalo::Bump;

/// An arena that held more than this after a line is dropped rather than
/// reset, so one exceptional line does not pin its memory for the rest of
/// the run.
const KEEP: usize = 1 << 20;

/// Per-line scratch memory for composed text.
#[derive(Default)]
pub(crate) struct Arena(Bump);

/// A string being composed in an [`Arena`] (`write!` into it, then
/// [`Text::done`]).
pub(crate) struct Text<'a>(bumpalo::collections::String<'a>);

impl Arena {
    /// Forget the last line's text, keeping the memory (up to [`KEEP`]).
    pub(crate) fn reset(&mut self) {
        if self.0.allocated_bytes() > KEEP {
            self.0 = Bump::new();
        } else {
            self.0.reset();
        }
    }

    /// `format!` into the arena (see the `text!` macro).
    pub(crate) fn fmt(&self, args: fmt::Arguments<'_>) -> Cow<'_, str> {
        if let Some(s) = args.as_str() {
            return Cow::Borrowed(s);
        }
        let mut t = self.text();
        let _ = t.0.write_fmt(args);
        Cow::Borrowed(t.done())
    }

    /// An empty string to compose.
    pub(crate) fn text(&self) -> Text<'_> {
        Text(bumpalo::collections::String::new_in(&self.0))
    }

    /// A copy of `s`.
    pub(crate) fn copy<'a>(&'a self, s: &str) -> &'a str {
        self.0.alloc_str(s)
    }

    /// `s` with its underscores as spaces (`worker_shutting_down` →
    /// `worker shutting down`).
    pub(crate) fn spaced<'a>(&'a self, s: &'a str) -> Cow<'a, str> {
        if !s.contains('_') {
            return Cow::Borrowed(s);
        }
        let mut t = self.text();
        for (i, part) in s.split('_').enumerate() {
            if i > 0 {
                t.push(' ');
            }
            t.push_str(part);
        }
        Cow::Borrowed(t.done())
    }

    /// Bytes to write into (JSON text); see [`Arena::utf8`].
    pub(crate) fn bytes(&self) -> bumpalo::collections::Vec<'_, u8> {
        bumpalo::collections::Vec::new_in(&self.0)
    }

    /// Text written with [`Arena::bytes`], if it is UTF-8.
    pub(crate) fn utf8(b: bumpalo::collections::Vec<'_, u8>) -> Option<&str> {
        bumpalo::collections::String::from_utf8(b)
            .ok()
            .map(bumpalo::collections::String::into_bump_str)
    }
}

impl<'a> Text<'a> {
    /// The text composed, borrowed from the arena.
    pub(crate) fn done(self) -> &'a str {
        self.0.into_bump_str()
    }

    /// Append `s`.
    pub(crate) fn push_str(&mut self, s: &str) {
        self.0.push_str(s);
    }

    /// Append `c`.
    pub(crate) fn push(&mut self, c: char) {
        self.0.push(c);
    }

    /// True when nothing was written yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_borrowed_from_the_arena_and_memory_is_reused() {
        let mut a = Arena::default();
        let n = 7;
        assert_eq!(a.fmt(format_args!("{n} tokens")), "7 tokens");
        assert!(matches!(
            a.fmt(format_args!("constant")),
            Cow::Borrowed("constant")
        ));
        let mut t = a.text();
        let _ = write!(t, "{}+{}", 1, 2);
        t.push('!');
        assert_eq!(t.done(), "1+2!");
        assert_eq!(a.spaced("_worker_shutting__down"), " worker shutting  down");
        assert!(matches!(a.spaced("plain"), Cow::Borrowed("plain")));
        let grown = a.0.allocated_bytes();
        for _ in 0..1000 {
            a.reset();
            assert_eq!(a.fmt(format_args!("{n} tokens")), "7 tokens");
        }
        assert_eq!(a.0.allocated_bytes(), grown, "reset keeps the memory");
        // A huge line's text is not kept.
        let big = "x".repeat(KEEP + 1);
        let _ = a.copy(&big);
        a.reset();
        assert!(a.0.allocated_bytes() < KEEP);
    }
}
