//! What the store readers share: a session as a store lists it, and the
//! largest row they read.

use crate::time::Timestamp;

/// The largest row read (its `data`): larger ones are skipped, said.
pub const MAX_ROW: i64 = 64 << 20;

/// A session of a store, as its reader lists it (and a library's
/// `Session::stored` keeps it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// Its id (`ses_…`).
    pub id: String,
    /// When it was created.
    pub began: Option<Timestamp>,
    /// When it was last updated.
    pub updated: Option<Timestamp>,
    /// The rows its lines are read from, as counted when it was listed
    /// (0: not counted): what tells a session too big to hold in memory
    /// from the others, which `-j` reads ahead on its threads.
    pub rows: u64,
}
