//! What the library walk asks of the agents' stores ([`StoreReader`]), the
//! readers a run knows ([`Readers`]), and a `SQLite` store opened to read.
//!
//! An agent's store is where it keeps its saved sessions: databases that
//! hold many sessions each, files that list stores kept elsewhere, and
//! session files whose place says what their lines do not. Each reader is
//! its producer's, beside the decoder that reads what it gives
//! (`decode/<name>/store.rs`), and the registry's entry carries it; the
//! driver hands them down to the walk (`library.rs`) and to whoever opens
//! a session's file, so that this floor names no producer.
//!
//! A store is read as a library: each session that is not a sub-agent's
//! is a session of its own ([`StoreReader::sessions`]), read as lines its
//! producer's decoder reads ([`StoreReader::lines`]). A database is opened
//! read-only and never waited on for long ([`open`]: a running agent
//! writes to it, in WAL mode, so readers are not blocked). A row larger
//! than [`MAX_ROW`] is not read: its line says so.

use std::fmt;
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::file::open_regular;

pub use stored::{MAX_ROW, Stored};

/// How long a read waits for a writer that holds the database locked.
const BUSY: Duration = Duration::from_secs(2);

/// The reader of one agent's store: which files are its stores and how
/// they are read, which file lists stores elsewhere, and what only a
/// session file's place in it says. Each method has a default that claims
/// nothing; a reader implements those its agent needs.
pub trait StoreReader: Sync {
    /// The file at `path` is one of its stores (a database of many
    /// sessions), as its name says.
    fn is_store(&self, path: &Path) -> bool {
        let _ = path;
        false
    }

    /// The sessions of its store at `path` that are not sub-agents', oldest
    /// first.
    ///
    /// # Errors
    /// The file is not a regular file, or not a store of this reader's
    /// (not a `SQLite` database, or without the tables it reads).
    fn sessions(&self, path: &Path) -> io::Result<Vec<Stored>> {
        let _ = path;
        Err(not_a_store())
    }

    /// The session `id` of its store at `path` as lines its producer's
    /// decoder reads, with its sub-agents, written to `out` as they are
    /// read (a row at a time: a session of any size in bounded memory).
    ///
    /// # Errors
    /// As [`StoreReader::sessions`], the session is not in the store, or
    /// `out` fails (its reader is gone).
    fn lines(&self, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
        let _ = (path, id, out);
        Err(not_a_store())
    }

    /// The stores the file at `path` lists elsewhere, those that are files,
    /// each one of this reader's (named so: [`StoreReader::is_store`], as a
    /// store's session is opened by its file's name); `None` when the file
    /// is no such list.
    fn listed(&self, path: &Path) -> Option<Vec<PathBuf>> {
        let _ = path;
        None
    }

    /// The file is a session its agent keeps under a name no session file
    /// has (a copy kept after the session was reset or deleted).
    fn keeps_session(&self, path: &Path) -> bool {
        let _ = path;
        false
    }

    /// The file, named as session files are (`*.jsonl`; `name`: its name
    /// in lower case, without `.gz` or `.zst`), holds no session of its own
    /// (a trace of one, or what another file records too).
    fn no_session(&self, path: &Path, name: &str) -> bool {
        let _ = (path, name);
        false
    }

    /// The file's first line is one [`StoreReader::mark_head`] may mark
    /// (asked before the file is read).
    fn marks(&self, path: &Path) -> bool {
        let _ = path;
        false
    }

    /// `head`, the first bytes of the file at `path` (one it
    /// [`marks`](StoreReader::marks)), with what only the file's place says
    /// put into its first line, so that every line keeps its number.
    fn mark_head(&self, path: &Path, head: &mut Vec<u8>) {
        let _ = (path, head);
    }
}

impl fmt::Debug for dyn StoreReader + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreReader").finish_non_exhaustive()
    }
}

/// The readers of the agents' stores a run knows, in the order they are
/// asked (the registry's, handed down by the driver).
#[derive(Clone, Copy, Debug, Default)]
pub struct Readers(pub &'static [&'static dyn StoreReader]);

impl Readers {
    /// No reader: files are only what their names say.
    pub const NONE: Readers = Readers(&[]);

    /// The reader whose store the file at `path` is, as its name says.
    #[must_use]
    pub fn store(self, path: &Path) -> Option<&'static dyn StoreReader> {
        self.0.iter().copied().find(|r| r.is_store(path))
    }

    /// The stores the file at `path` lists elsewhere, and their reader
    /// (`None`: it lists none).
    #[must_use]
    pub fn listed(self, path: &Path) -> Option<(&'static dyn StoreReader, Vec<PathBuf>)> {
        self.0.iter().find_map(|r| Some((*r, r.listed(path)?)))
    }

    /// A file some agent keeps a session in, whatever its name.
    #[must_use]
    pub fn keeps_session(self, path: &Path) -> bool {
        self.0.iter().any(|r| r.keeps_session(path))
    }

    /// A file named as session files are that some agent says holds none.
    #[must_use]
    pub fn no_session(self, path: &Path, name: &str) -> bool {
        self.0.iter().any(|r| r.no_session(path, name))
    }

    /// The reader that may mark the first line of the file at `path`.
    #[must_use]
    pub fn marker(self, path: &Path) -> Option<&'static dyn StoreReader> {
        self.0.iter().copied().find(|r| r.marks(path))
    }

    /// `head`, the first bytes of the file at `path`, with its first line
    /// marked as its place says (as it is when no reader marks it).
    pub fn mark_head(self, path: &Path, head: &mut Vec<u8>) {
        if let Some(r) = self.marker(path) {
            r.mark_head(path, head);
        }
    }

    /// The sessions of the store at `path`, read by the reader its name
    /// says ([`StoreReader::sessions`]).
    ///
    /// # Errors
    /// No reader's store is so named, or as [`StoreReader::sessions`].
    pub fn sessions(self, path: &Path) -> io::Result<Vec<Stored>> {
        self.store(path).ok_or_else(not_a_store)?.sessions(path)
    }

    /// The session `id` of the store at `path` as lines, read by the reader
    /// its name says ([`StoreReader::lines`]) as they are read (`piped.rs`).
    ///
    /// # Errors
    /// No reader's store is so named, or what the reader says before its
    /// first lines.
    pub fn open(self, path: &Path, id: &str) -> io::Result<Box<dyn Read + Send>> {
        let reader = self.store(path).ok_or_else(not_a_store)?;
        let (path, id) = (path.to_path_buf(), id.to_string());
        piped::open(move |out| reader.lines(&path, &id, out))
    }
}

/// Open the database read-only, after checking it is a regular file that
/// begins as `SQLite` databases do: one of this process's connections to
/// that very file when one is free ([`Db`]), else a new one.
///
/// # Errors
/// The file is not a regular file, or not a `SQLite` database.
pub fn open(path: &Path) -> io::Result<Db> {
    let mut magic = [0u8; 16];
    let mut f = open_regular(path)?;
    f.read_exact(&mut magic)
        .map_err(|_| bad("not a SQLite database (too short)"))?;
    if &magic != b"SQLite format 3\0" {
        return Err(bad("not a SQLite database"));
    }
    let meta = f.metadata()?;
    let key = (path.to_path_buf(), meta.dev(), meta.ino());
    if let Some(db) = pool::take(&key) {
        return Ok(Db { db: Some(db), key });
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(path, flags).map_err(sql)?;
    db.busy_timeout(BUSY).map_err(sql)?;
    db.set_prepared_statement_cache_capacity(STATEMENTS);
    Ok(Db { db: Some(db), key })
}

/// The statements a connection keeps prepared: each reader's few per
/// session, asked again for each session of its store.
const STATEMENTS: usize = 32;

/// A connection to a store ([`open`]), given back to this process's few
/// kept for the next session of the same file when it is dropped: a
/// store of thousands of sessions is opened, and its statements parsed,
/// once, not once a session (the schema read and each statement parsed
/// were 1–2 ms a session).
pub struct Db {
    db: Option<Connection>,
    key: pool::Key,
}

impl std::ops::Deref for Db {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        // Taken only by `drop`.
        self.db.as_ref().unwrap_or_else(|| unreachable!())
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            pool::give(std::mem::take(&mut self.key), db);
        }
    }
}

impl fmt::Debug for Db {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.key.0)
            .finish_non_exhaustive()
    }
}

/// An error of data that is not what a reader reads.
#[must_use]
pub fn bad(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

/// A `SQLite` error in a message's words.
#[allow(clippy::needless_pass_by_value)] // used as map_err(sql)
#[must_use]
pub fn sql(e: rusqlite::Error) -> io::Error {
    let text = match &e {
        rusqlite::Error::SqliteFailure(_, Some(m)) => m.clone(),
        other => other.to_string(),
    };
    io::Error::new(io::ErrorKind::InvalidData, format!("SQLite: {text}"))
}

/// [`sql`], a query that found no row said as a session not in the store
/// (a reader's [`StoreReader::lines`]).
#[must_use]
pub fn missing(e: rusqlite::Error) -> io::Error {
    match e {
        rusqlite::Error::QueryReturnedNoRows => bad("no such session"),
        e => sql(e),
    }
}

/// A file no reader's store is named as.
fn not_a_store() -> io::Error {
    bad("not a store")
}

mod piped;
mod pool;
pub mod rows;
mod stored;

#[cfg(test)]
mod tests;
