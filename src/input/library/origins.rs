//! Where each line of a session read as one input came from: a session's
//! file and its sub-agents' files are merged line by line
//! (`interleave.rs`), and a line of the merge is line 14 of one of them.
//! `--grep` names that file and line, as ripgrep would, so that an editor
//! can jump there.
//!
//! The merge takes runs of lines from one file; one entry is kept per run
//! (the merged line it starts at, the file, that file's line), written when
//! the merge turns to another file, and a line is found by a binary search.
//! The merge may be read ahead on another thread: the runs are behind a
//! lock, taken once per run and once per line asked about.

use std::sync::Mutex;

/// Where the lines of a merged input came from (see the module docs).
#[derive(Debug)]
pub struct Origins {
    /// The files, the session's first, in the merge's order.
    files: Vec<String>,
    runs: Mutex<Vec<Run>>,
}

/// Lines from one file, one after the other.
#[derive(Clone, Copy, Debug)]
struct Run {
    /// The merged line it starts at (1-based).
    from: u64,
    /// The file (an index in `files`).
    file: usize,
    /// Its first line's number in that file (1-based).
    line: u64,
}

impl Origins {
    /// The origins of a merge of `files` (names as they are shown).
    #[must_use]
    pub fn new(files: Vec<String>) -> Self {
        Origins {
            files,
            runs: Mutex::new(Vec::new()),
        }
    }

    /// Merged line `from` is line `line` of file `file`, and starts a run.
    pub(super) fn record(&self, from: u64, file: usize, line: u64) {
        let mut runs = self
            .runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        runs.push(Run { from, file, line });
    }

    /// The file (an index in [`Origins::files`]) and line that merged line
    /// `merged` came from; a line before any (0: an event of no line) is
    /// the first file's.
    #[must_use]
    pub fn of(&self, merged: u64) -> (usize, u64) {
        let runs = self
            .runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let i = runs.partition_point(|r| r.from <= merged);
        match i.checked_sub(1).and_then(|i| runs.get(i)) {
            Some(r) => (r.file, r.line + (merged - r.from)),
            None => (0, merged),
        }
    }

    /// The files merged, the session's first.
    #[must_use]
    pub fn files(&self) -> &[String] {
        &self.files
    }
}
