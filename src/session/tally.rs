//! Per-name statistics (calls per tool, usage per model) found by name in
//! constant time, in the order of each name's first appearance, and
//! bounded: a crafted stream can name every call differently (issue 18:
//! 80,000 distinct tool names took 8.7 s when each was looked up by a
//! linear search, and each kept a row).

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::Arc;

/// A row of a [`Tally`]: what is counted for one name.
pub trait Row: Clone {
    /// The name the row counts for.
    fn key(&self) -> &str;
    /// An empty row for `key`.
    fn named(key: &str) -> Self;
    /// Add another row's counts (same name, or folded into "other").
    fn add(&mut self, other: &Self);
    /// The name of the row the names beyond the bound are folded into.
    const OTHER: &'static str;
}

/// Rows by name: the first [`Tally::KEEP`] distinct names each have their
/// own row, in order of first appearance; the counts of every later name
/// are added to one last row named [`Row::OTHER`], so the sums over the
/// rows stay exact. Reads as the slice of its rows.
#[derive(Clone, Debug)]
pub struct Tally<R> {
    rows: Vec<R>,
    /// Row of each name kept in detail, once there are more than
    /// [`SEARCHED`].
    index: HashMap<Arc<str>, usize>,
    /// The last row is the "other" row.
    folded: bool,
}

impl<R> Default for Tally<R> {
    fn default() -> Self {
        Tally {
            rows: Vec::new(),
            index: HashMap::new(),
            folded: false,
        }
    }
}

impl<R> Deref for Tally<R> {
    type Target = [R];
    fn deref(&self) -> &[R] {
        &self.rows
    }
}

impl<R: Row> Tally<R> {
    /// Distinct names with a row of their own; the documented bound
    /// (docs/usage.md, "Summary").
    pub const KEEP: usize = 200;

    /// The rows of the names kept in detail, in order of first appearance.
    #[must_use]
    pub fn detailed(&self) -> &[R] {
        let n = self.rows.len() - usize::from(self.folded);
        &self.rows[..n]
    }

    /// The row of the names beyond [`Tally::KEEP`], if there were any.
    #[must_use]
    pub fn other(&self) -> Option<&R> {
        self.rows.last().filter(|_| self.folded)
    }

    /// The row of `key`, created on its first use (or the "other" row,
    /// once [`Tally::KEEP`] names have theirs).
    pub fn get_mut(&mut self, key: &str) -> &mut R {
        self.entry(key, || R::named(key))
    }

    /// [`Tally::get_mut`], with the row made by `make` when `key` is new
    /// (a tool's row shares the name its calls share: no allocation).
    pub fn entry(&mut self, key: &str, make: impl FnOnce() -> R) -> &mut R {
        let i = self.position(key, make);
        &mut self.rows[i]
    }

    /// The position of `key`'s row (see [`Tally::get_mut`]), to find it
    /// again with [`Tally::at_mut`].
    pub fn slot(&mut self, key: &str) -> usize {
        self.position(key, || R::named(key))
    }

    /// Where the row of `key` is, made by `make` when `key` is new.
    fn position(&mut self, key: &str, make: impl FnOnce() -> R) -> usize {
        match self.find(key) {
            Some(i) => i,
            None => self.push(make()),
        }
    }

    /// The row at `slot` (see [`Tally::slot`]).
    pub fn at_mut(&mut self, slot: usize) -> Option<&mut R> {
        self.rows.get_mut(slot)
    }

    /// Add `row` to the row of its name (a new one, or "other").
    fn add_row(&mut self, row: R) {
        match self.find(row.key()) {
            Some(i) => self.rows[i].add(&row),
            None => {
                self.push(row);
            }
        }
    }

    /// The row of `key` among those kept in detail.
    fn find(&self, key: &str) -> Option<usize> {
        if self.index.is_empty() {
            // A handful of names (the usual case): a search is cheaper
            // than hashing, and allocates nothing.
            self.detailed().iter().position(|r| r.key() == key)
        } else {
            self.index.get(key).copied()
        }
    }

    /// Keep a row of a new name: its own, or added to "other".
    fn push(&mut self, row: R) -> usize {
        if self.rows.len() - usize::from(self.folded) >= Self::KEEP {
            if !self.folded {
                self.rows.push(R::named(R::OTHER));
                self.folded = true;
            }
            let last = self.rows.len() - 1;
            self.rows[last].add(&row);
            return last;
        }
        // Below the bound there is no "other" row yet: rows only ever go
        // before it.
        self.rows.push(row);
        let i = self.rows.len() - 1;
        if i == SEARCHED {
            for (j, r) in self.rows.iter().enumerate() {
                self.index.insert(r.key().into(), j);
            }
        } else if i > SEARCHED {
            self.index.insert(self.rows[i].key().into(), i);
        }
        i
    }

    /// Add the rows of `from`, matched by name (its "other" row to this
    /// one's).
    pub fn merge(&mut self, from: &Tally<R>) {
        for r in from.detailed() {
            self.add_row(r.clone());
        }
        if let Some(o) = from.other() {
            if !self.folded {
                self.rows.push(R::named(R::OTHER));
                self.folded = true;
            }
            if let Some(mine) = self.rows.last_mut() {
                mine.add(o);
            }
        }
    }
}

/// Rows looked up by a search up to this many; by the map beyond.
const SEARCHED: usize = 32;

impl<'a, R> IntoIterator for &'a Tally<R> {
    type Item = &'a R;
    type IntoIter = std::slice::Iter<'a, R>;
    fn into_iter(self) -> Self::IntoIter {
        self.rows.iter()
    }
}

impl<R: Row> FromIterator<R> for Tally<R> {
    fn from_iter<I: IntoIterator<Item = R>>(rows: I) -> Self {
        let mut t = Tally::<R>::default();
        for r in rows {
            t.add_row(r);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Count(String, u64);

    impl Row for Count {
        const OTHER: &'static str = "(other)";
        fn key(&self) -> &str {
            &self.0
        }
        fn named(key: &str) -> Self {
            Count(key.to_string(), 0)
        }
        fn add(&mut self, other: &Self) {
            self.1 += other.1;
        }
    }

    fn keep() -> usize {
        Tally::<Count>::KEEP
    }

    #[test]
    fn rows_keep_the_order_of_first_use() {
        let mut t = Tally::<Count>::default();
        for k in ["b", "a", "b", "c", "a", "b"] {
            t.get_mut(k).1 += 1;
        }
        let got: Vec<_> = t.iter().map(|c| (c.0.as_str(), c.1)).collect();
        assert_eq!(got, [("b", 3), ("a", 2), ("c", 1)]);
        assert!(t.other().is_none());
    }

    #[test]
    fn names_beyond_the_bound_fold_into_one_row_and_sums_stay_exact() {
        let mut t = Tally::<Count>::default();
        let n = keep() * 3;
        for i in 0..n {
            t.get_mut(&format!("n{i}")).1 += 2;
        }
        // A name kept in detail still finds its own row.
        t.get_mut("n0").1 += 1;
        assert_eq!(t.len(), keep() + 1);
        assert_eq!(t.detailed().len(), keep());
        assert_eq!(
            t.other(),
            Some(&Count("(other)".into(), 2 * 2 * keep() as u64))
        );
        assert_eq!(t[0].1, 3);
        assert_eq!(t.iter().map(|c| c.1).sum::<u64>(), 2 * n as u64 + 1);
    }

    #[test]
    fn merging_adds_by_name_and_other_to_other() {
        let mut a = Tally::<Count>::default();
        let mut b = Tally::<Count>::default();
        for i in 0..keep() + 5 {
            b.get_mut(&format!("n{i}")).1 += 1;
        }
        a.get_mut("n3").1 += 10;
        a.get_mut("x").1 += 1;
        a.merge(&b);
        assert_eq!(a[0], Count("n3".into(), 11));
        assert_eq!(a[1], Count("x".into(), 1));
        assert_eq!(a.iter().map(|c| c.1).sum::<u64>(), 11 + keep() as u64 + 5);
        // n199 finds no room in `a` (2 + 198 rows), then b's 5 folded names.
        assert_eq!(a.other().map(|o| o.1), Some(1 + 5));
    }
}
