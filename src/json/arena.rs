//! Text a decoder composes for one line, in memory reused line after line.
//!
//! Most of an event borrows from the line (its strings are slices of it).
//! What a decoder writes itself (a notice's sentence, `pattern in path` for
//! a search, a long string unescaped, a scalar written as JSON…) is written
//! here instead of into a `String` of its own, and borrowed the same way:
//! the decoder resets the arena before each line, so
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
/// [`Draft::done`]).
pub(crate) struct Draft<'a>(bumpalo::collections::String<'a>);

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
    pub(crate) fn text(&self) -> Draft<'_> {
        Draft(bumpalo::collections::String::new_in(&self.0))
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
        Cow::Borrowed(self.join(s.split('_'), " ").unwrap_or(s))
    }

    /// `items` joined by `sep`; `None` when there is no item (one empty
    /// item gives `Some("")`).
    pub(crate) fn join<'a>(
        &'a self,
        items: impl IntoIterator<Item = &'a str>,
        sep: &str,
    ) -> Option<&'a str> {
        let mut items = items.into_iter();
        let mut t = self.text();
        t.push_str(items.next()?);
        for item in items {
            t.push_str(sep);
            t.push_str(item);
        }
        Some(t.done())
    }

    /// `items` in the arena (an event's list: `.into()`). Their strings
    /// must be borrowed (from the line or the arena): the arena never drops
    /// what it holds, so a `Cow::Owned` in it would not be freed.
    pub(crate) fn slice<T>(&self, items: impl IntoIterator<Item = T>) -> &[T] {
        let mut v = bumpalo::collections::Vec::new_in(&self.0);
        v.extend(items);
        v.into_bump_slice()
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

impl<'a> Draft<'a> {
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

impl Write for Draft<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.push_str(s);
        Ok(())
    }
}

/// Strings a decoder's state no longer holds, kept for their allocation:
/// state that lives from one line to a later one (an open tool call's id
/// and name…) cannot borrow from the arena, and reusing its strings keeps
/// decoding free of allocations once they have grown.
#[derive(Default)]
pub(crate) struct Spare(Vec<String>);

/// At most this many spare strings are kept…
const SPARE_STRINGS: usize = 64;
/// …of at most this capacity.
const SPARE_CAPACITY: usize = 16 << 10;

impl Spare {
    /// A string holding `text`, from the spares when there is one: one
    /// with room for it if any (so that the spares grow to what the texts
    /// need, and then stop allocating).
    pub(crate) fn string(&mut self, text: &str) -> String {
        let roomy = self.0.iter().position(|s| s.capacity() >= text.len());
        let mut s = match roomy {
            Some(i) => self.0.swap_remove(i),
            None => self.0.pop().unwrap_or_default(),
        };
        s.clear();
        s.push_str(text);
        s
    }

    /// Keep `s`'s allocation for [`Spare::string`].
    pub(crate) fn give(&mut self, s: String) {
        if s.capacity() > 0 && s.capacity() <= SPARE_CAPACITY && self.0.len() < SPARE_STRINGS {
            self.0.push(s);
        }
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
        assert_eq!(a.join(["a", "", "b"], ", "), Some("a, , b"));
        assert_eq!(a.join([""], ", "), Some(""));
        assert_eq!(a.join([], ", "), None);
        assert_eq!(*a.slice(["x", "y"]), ["x", "y"]);
        assert!(a.slice(std::iter::empty::<&str>()).is_empty());
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

    #[test]
    fn spare_strings_are_reused() {
        let mut spare = Spare::default();
        let s = spare.string("first");
        let at = s.as_ptr();
        spare.give(s);
        let t = spare.string("again");
        assert_eq!(t, "again");
        assert_eq!(t.as_ptr(), at, "the same allocation");
        spare.give(String::with_capacity(SPARE_CAPACITY + 1));
        assert!(spare.0.is_empty(), "a huge string is not kept");
    }
}
