//! The connections to stores this process keeps between sessions: a few,
//! each to the file it was opened on (its path, device and inode: a file
//! put in its place is opened anew), the least recently given back
//! dropped first.

use std::path::PathBuf;
use std::sync::Mutex;

use rusqlite::Connection;

/// A store's file: its path, device and inode.
pub type Key = (PathBuf, u64, u64);

/// Connections kept at most.
const KEPT: usize = 4;

/// The connections kept, the most recently given back last.
static KEPT_NOW: Mutex<Vec<(Key, Connection)>> = Mutex::new(Vec::new());

/// A connection to the file `key` names, when one is kept.
pub fn take(key: &Key) -> Option<Connection> {
    let mut kept = KEPT_NOW.lock().ok()?;
    let at = kept.iter().rposition(|(k, _)| k == key)?;
    Some(kept.remove(at).1)
}

/// Keep `db`, a connection to the file `key` names, for the next session.
pub fn give(key: Key, db: Connection) {
    let Ok(mut kept) = KEPT_NOW.lock() else {
        return;
    };
    if kept.len() >= KEPT {
        kept.remove(0);
    }
    kept.push((key, db));
}
