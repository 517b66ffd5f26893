//! What was streamed of a block, in constant memory.
//!
//! The pretty view prints a text or thinking block fragment by fragment as
//! it streams, then receives the complete block and must not print it again.
//! It used to keep every fragment to compare: 60 MB of streamed text held
//! 60 MB (issue 18). [`Streamed`] keeps a keyed hash and the length of the
//! text instead, with the block's leading and trailing newlines left out as
//! the comparison always did; equal hashes of equal lengths are the same
//! text. The key is random per process (std's `RandomState`), so a stream
//! cannot be crafted to make a different block look already shown.

use std::hash::{BuildHasher, DefaultHasher, Hasher, RandomState};

/// The digest of a streamed block, fed fragment by fragment.
pub(super) struct Streamed {
    keys: RandomState,
    hash: DefaultHasher,
    /// Bytes hashed.
    len: usize,
    /// Something other than a newline was seen (leading newlines are not
    /// part of the block).
    started: bool,
    /// Newlines seen after the last other character: hashed only when more
    /// text follows (trailing newlines are not part of the block).
    newlines: usize,
}

impl Streamed {
    /// An empty digest whose hashes use `keys`.
    pub(super) fn new(keys: &RandomState) -> Self {
        Streamed {
            keys: keys.clone(),
            hash: keys.build_hasher(),
            len: 0,
            started: false,
            newlines: 0,
        }
    }

    /// Empty again: what streams next is compared on its own.
    pub(super) fn reset(&mut self) {
        *self = Streamed::new(&self.keys);
    }

    /// Add the next fragment of the block.
    pub(super) fn push(&mut self, fragment: &str) {
        for (i, piece) in fragment.split('\n').enumerate() {
            if i > 0 && self.started {
                self.newlines += 1;
            }
            if piece.is_empty() {
                continue;
            }
            for _ in 0..self.newlines {
                self.hash.write(b"\n");
            }
            self.len += self.newlines;
            self.newlines = 0;
            self.hash.write(piece.as_bytes());
            self.len += piece.len();
            self.started = true;
        }
    }

    /// `text` is what was streamed, leading and trailing newlines aside.
    pub(super) fn is(&self, text: &str) -> bool {
        let text = text.trim_matches('\n');
        if text.len() != self.len {
            return false;
        }
        let mut h = self.keys.build_hasher();
        h.write(text.as_bytes());
        h.finish() == self.hash.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streamed(fragments: &[&str]) -> Streamed {
        let mut s = Streamed::new(&RandomState::new());
        for f in fragments {
            s.push(f);
        }
        s
    }

    #[test]
    fn the_complete_block_is_recognised_however_it_was_cut() {
        let text = "Hello,\n\nworld: a block\nof text.";
        for cut in 0..=text.len() {
            for cut2 in cut..=text.len() {
                let s = streamed(&[&text[..cut], &text[cut..cut2], &text[cut2..]]);
                assert!(s.is(text), "{cut} {cut2}");
            }
        }
    }

    #[test]
    fn newlines_around_the_block_do_not_count_and_inside_they_do() {
        let s = streamed(&["\n\n", "Hi", "\nthere", "\n\n"]);
        assert!(s.is("Hi\nthere"));
        assert!(s.is("\nHi\nthere\n"));
        assert!(!s.is("Hi\n\nthere"));
        assert!(!s.is("Hithere"));
        assert!(!s.is("Hi\nthere!"));
        assert!(streamed(&["\n"]).is(""));
    }

    #[test]
    fn after_a_reset_only_what_follows_counts() {
        let mut s = streamed(&["part one\n"]);
        assert!(s.is("part one"));
        s.reset();
        s.push("part two");
        assert!(s.is("part two"));
        assert!(!s.is("part one\npart two"));
    }
}
