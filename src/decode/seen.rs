//! Ids a decoder has seen, in bounded memory.
//!
//! Decoders remember ids to send each call, result or part once (a resumed
//! transcript writes entries again; `opencode run` repeats a part as it updates
//! it). A set of every id ever seen grows with the input: a million calls
//! held about 100 MB (issue 18). [`Seen`] keeps the [`KEEP`] ids touched
//! most recently at least, and forgets older ones once it holds twice as
//! many (amortized: one pass per [`KEEP`] insertions). A repeat arrives
//! close to its first sighting, so what is forgotten is what no line still
//! refers to; a repeat of an id forgotten is sent again.
//!
//! [`Recent`] is the small case: the last few ids only, where repeats are
//! adjacent (an API message's usage repeated on each of its lines).

use std::collections::VecDeque;

use foldhash::HashMap;

/// Ids remembered at least.
pub(crate) const KEEP: usize = 8192;

/// A set of ids that forgets the least recently seen.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Seen {
    /// Id → when it was last seen (a counter).
    ids: HashMap<Box<str>, u64>,
    /// The counter.
    now: u64,
}

impl Seen {
    /// Add `id`; true when it was not there (like `HashSet::insert`).
    pub(crate) fn insert(&mut self, id: &str) -> bool {
        self.now += 1;
        if let Some(at) = self.ids.get_mut(id) {
            *at = self.now;
            return false;
        }
        if self.ids.len() >= 2 * KEEP {
            let keep_from = self.now.saturating_sub(KEEP as u64);
            self.ids.retain(|_, at| *at > keep_from);
        }
        self.ids.insert(id.into(), self.now);
        true
    }

    /// `id` is remembered.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.ids.contains_key(id)
    }

    /// Forget every id (the allocation stays).
    pub(crate) fn clear(&mut self) {
        self.ids.clear();
    }
}

/// The last `N` ids seen, searched linearly (`N` is small), each with a
/// value of its own (`T`: what a decoder last said of it), their strings
/// reused: remembering an id allocates nothing once the window is full.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "T: serde::Serialize",
    deserialize = "T: serde::Deserialize<'de>"
))]
pub(crate) struct Recent<const N: usize, T = ()> {
    ids: VecDeque<(String, T)>,
    /// Strings of ids forgotten by [`Recent::clear`], for the next ones.
    #[serde(skip)]
    spare: Vec<String>,
}

impl<const N: usize, T> Default for Recent<N, T> {
    fn default() -> Self {
        Recent {
            ids: VecDeque::new(),
            spare: Vec::new(),
        }
    }
}

impl<const N: usize, T: Default> Recent<N, T> {
    /// True the first time `id` is seen within the window.
    pub(crate) fn first_sighting(&mut self, id: &str) -> bool {
        self.sight(id).1
    }

    /// The value of `id`, and whether this is its first sighting within
    /// the window (then its value is `T::default()`).
    pub(crate) fn sight(&mut self, id: &str) -> (&mut T, bool) {
        if let Some(i) = self.ids.iter().position(|(m, _)| m == id) {
            return (&mut self.ids[i].1, false);
        }
        let mut slot = if self.ids.len() >= N {
            self.ids.pop_front().map(|(s, _)| s).unwrap_or_default()
        } else {
            self.spare.pop().unwrap_or_default()
        };
        slot.clear();
        slot.push_str(id);
        self.ids.push_back((slot, T::default()));
        let last = self.ids.len() - 1;
        (&mut self.ids[last].1, true)
    }

    /// Forget every id, keeping their strings for the next ones.
    pub(crate) fn clear(&mut self) {
        self.spare.extend(self.ids.drain(..).map(|(s, _)| s));
    }

    /// `id` is in the window.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.ids.iter().any(|(m, _)| m == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_of_recent_ids() {
        let mut r = Recent::<2>::default();
        assert!(r.first_sighting("a"));
        assert!(!r.first_sighting("a"));
        assert!(r.first_sighting("b"));
        assert!(r.first_sighting("c"));
        // "a" left the window of two.
        assert!(r.first_sighting("a"));
        assert!(!r.first_sighting("c"));
        assert!(r.contains("c") && !r.contains("b"));
        assert_eq!(r.ids.len(), 2);
        r.clear();
        assert!(!r.contains("c"));
        assert!(r.first_sighting("c"));
        assert_eq!(r.spare.len(), 1);
    }

    #[test]
    fn each_recent_id_keeps_its_value() {
        let mut r = Recent::<2, u32>::default();
        let (v, first) = r.sight("a");
        assert!(first && *v == 0);
        *v = 7;
        assert_eq!(r.sight("a"), (&mut 7, false));
        r.sight("b");
        r.sight("c");
        // "a" left the window: seen again, it starts afresh.
        assert_eq!(r.sight("a"), (&mut 0, true));
    }

    #[test]
    fn a_set_that_forgets_the_least_recent_beyond_its_bound() {
        let mut s = Seen::default();
        assert!(s.insert("a"));
        assert!(!s.insert("a"));
        assert!(s.contains("a"));
        for i in 0..10 * KEEP {
            assert!(s.insert(&i.to_string()));
            // "a" stays while it is seen again now and then.
            if i % 100 == 0 {
                assert!(!s.insert("a"), "{i}");
            }
        }
        assert!(s.ids.len() < 2 * KEEP);
        // The most recent KEEP are all there; the first ones are not.
        for i in 9 * KEEP..10 * KEEP {
            assert!(s.contains(&i.to_string()), "{i}");
        }
        assert!(!s.contains("0"));
        s.clear();
        assert!(!s.contains("a"));
    }
}
