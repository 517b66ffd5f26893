//! Directories named as inputs: the session files below them, in the order
//! the sessions began.
//!
//! Agents keep their past sessions as files in a tree: Claude Code in
//! `~/.claude/projects/<project>/<session>.jsonl`, each sub-agent in
//! `<session>/subagents/agent-*.jsonl`; Codex in
//! `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`. [`sessions_below`] walks
//! a directory (recursively, symbolic links to directories not followed, so
//! a loop cannot trap it) and keeps the files named `*.jsonl`, `*.ndjson`
//! or either with `.gz` or `.zst` after it (and Gemini CLI's older
//! `chats/session-*.json`, Cline CLI's `sessions/<id>/<id>.messages.json`);
//! Gemini CLI's 2025 documents anywhere, `session-*.json` that begin as one;
//! Qwen Code's `usage_record.jsonl` in its home, and the files an agent's
//! store reader says hold none (Kimi CLI's `context.jsonl` beside its
//! `wire.jsonl`), are not sessions of their own; any other file is counted
//! and left alone. A file so named that is not a regular file (a device, a
//! FIFO, a socket: its reads could wait or go on for ever) is counted
//! apart and never opened, and so is a file replaced by one before it is
//! opened ([`crate::file::open_regular`]).
//!
//! Order: by the time each session began, the first `"timestamp":"…"` in
//! the first [`HEAD`] bytes of the file (transcripts, rollouts and Gemini
//! streams carry one on their first lines), else the file's modification
//! time; ties by path. For `--since` and `--until`, a session also ends:
//! at the last timestamp in the last [`HEAD`] bytes of its files, else
//! (compressed, or no timestamp) when they were last changed
//! ([`Session::may_overlap`]).
//!
//! What an agent's store says of a file is its reader's (`store.rs`: the
//! [`Readers`] the walk is given, the registry's): a store (a database
//! such as `OpenCode`'s `opencode.db`) found below a directory, or named
//! itself, holds many sessions: each is a [`Session`] of that file with its
//! id ([`Session::stored`]), dated by the store's own times. A file that
//! lists stores elsewhere ([`StoreReader::listed`]), found below a
//! directory or named itself, stands for the stores it lists; a store
//! found twice is read once. A reader also says which files its agent
//! keeps sessions in whatever their names, which named as sessions are
//! none, and marks a file's first line with what its place says
//! (`marks.rs`).
//!
//! A sub-agent file goes with its session's file (the `<session>.jsonl`
//! beside its `<session>/` folder; Qwen Code's `chats/<session>.jsonl` for
//! its `subagents/<session>/`): they are read as one input, their lines
//! merged in time order ([`Session::open`], `interleave.rs`), so that the
//! transcript reader nests each sub-agent under its call, where it ran.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

pub use super::store::Stored;
use super::store::{Readers, StoreReader};
use super::{Compression, Decompress, OneLine};
use crate::file::{open_regular, open_regular_sized};
use crate::index::{Dated, Entry, Index, Listing, Stamp};
use crate::time::Timestamp;
use crate::time::window::Window;
use interleave::Interleave;
pub use origins::Origins;

/// Bytes read from the start of a file to find when its session began.
pub const HEAD: usize = 64 << 10;

/// A session's files read as one input ([`Session::open`]).
pub type Merged = Box<dyn Read + Send>;

/// A session's file and the files of its sub-agents, read as one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The session's file (or a sub-agent file whose session's is not there).
    pub file: PathBuf,
    /// Its sub-agents' files, in the order they began.
    pub subagents: Vec<PathBuf>,
    /// When it began, as its first timestamp says (`None`: its file has
    /// none in its head).
    pub began: Option<Timestamp>,
    /// A session of a `SQLite` store (`file`): which one (boxed: a library
    /// keeps a `Session` per file for the whole run, and most are files).
    pub stored: Option<Box<Stored>>,
    /// The bytes of its files when they were found (a store's session: 0).
    pub bytes: u64,
    /// When its files last changed, as the walk found them (the epoch:
    /// not known, ask the files).
    pub changed: Timestamp,
    /// Its file's and its sub-agents' stamps as the walk found them, in
    /// that order (`None`: not known, ask the files): each file of a
    /// library is stat'ed once ([`Session::stamps`]).
    pub walked: Option<Box<[Stamp]>>,
}

impl Session {
    /// The files as one input, their lines in the order of their
    /// timestamps (`interleave.rs`): each sub-agent's activity comes where
    /// it happened, between its call and the call's result. Compressed
    /// files are decompressed. A store's session is read by the one of
    /// `readers` whose store it is; a file's first line is marked by the
    /// one that marks it (`marks.rs`).
    ///
    /// # Errors
    /// The session's file cannot be opened or is no longer a regular file;
    /// a sub-agent file that cannot be read is left out.
    pub fn open(&self, readers: Readers) -> io::Result<Box<dyn Read + Send>> {
        self.open_traced(readers).map(|(rdr, _)| rdr)
    }

    /// As [`Session::open`], and where each line read comes from when
    /// there are sub-agents' files ([`Origins`]; `None`: each line is the
    /// session file's own).
    ///
    /// # Errors
    /// As [`Session::open`].
    pub fn open_traced(&self, readers: Readers) -> io::Result<(Merged, Option<Arc<Origins>>)> {
        if let Some(s) = &self.stored {
            return Ok((readers.open(&self.file, &s.id)?, None));
        }
        let first = OneLine::new(Decompress::new(open_regular(&self.file)?));
        if self.subagents.is_empty() {
            let first = super::marks::marked(readers, &self.file, first);
            return Ok((super::with_companion(&self.file, first), None));
        }
        let mut names = vec![self.file.display().to_string()];
        let agents: Vec<_> = (self.subagents.iter())
            .filter_map(|f| {
                let opened = open_regular(f).ok()?;
                names.push(f.display().to_string());
                Some(OneLine::new(Decompress::new(opened)))
            })
            .collect();
        let origins = Arc::new(Origins::new(names));
        let merged =
            Interleave::new(std::iter::once(first).chain(agents)).tracing(Arc::clone(&origins));
        Ok((Box::new(merged), Some(origins)))
    }

    /// When its files last say something happened: the latest of their
    /// last timestamps, or for a file without one (or compressed) its
    /// modification time, which is never earlier.
    #[must_use]
    pub fn ended(&self) -> Timestamp {
        if let Some(s) = &self.stored {
            return (s.updated.or(self.began)).unwrap_or_else(|| modified(&self.file));
        }
        std::iter::once(&self.file)
            .chain(&self.subagents)
            .map(|f| end_time(f).unwrap_or_else(|| modified(f)))
            .max()
            .unwrap_or(Timestamp::of(UNIX_EPOCH))
    }

    /// Something in the session can fall in `window`: it did not begin
    /// after the window's end, nor end before its start. A session whose
    /// file gives no time is dated by the file's modification time.
    #[must_use]
    pub fn may_overlap(&self, window: &Window) -> bool {
        if window.is_all() {
            return true;
        }
        // A file's lines were written by the time it last changed: files
        // all last changed before the window begins hold nothing in it,
        // and their tails are not read (`ended`).
        if self.stored.is_none()
            && let Some(since) = window.since
            && self.changed() < since
        {
            return false;
        }
        let began = self.began.unwrap_or_else(|| modified(&self.file));
        window.overlaps(began, self.ended().max(began))
    }

    /// Its files and their stamps, as the index tells them apart: its file
    /// and its sub-agents' (or the companion read with it), or a store and
    /// its write-ahead log. `None` when one is not a regular file.
    #[must_use]
    pub fn stamps(&self) -> Option<Vec<(PathBuf, Stamp)>> {
        if let Some(walked) = &self.walked
            && self.stored.is_none()
            && !self.subagents.is_empty()
            && walked.len() == 1 + self.subagents.len()
        {
            let paths = std::iter::once(&self.file).chain(&self.subagents);
            return Some(paths.cloned().zip(walked.iter().copied()).collect());
        }
        let walked = self.walked.as_ref().and_then(|w| w.first());
        let one = |p: &Path| Some((p.to_path_buf(), Stamp::of_path(p)?));
        let mut files = vec![match walked {
            Some(w) => (self.file.clone(), *w),
            None => one(&self.file)?,
        }];
        if self.stored.is_some() {
            let mut wal = self.file.clone().into_os_string();
            wal.push("-wal");
            files.extend(one(Path::new(&wal)));
        } else if self.subagents.is_empty() {
            files.extend(super::companion(&self.file).and_then(|(c, _)| one(&c)));
        }
        for f in &self.subagents {
            files.push(one(f)?);
        }
        Some(files)
    }

    /// When its files last changed.
    fn changed(&self) -> Timestamp {
        if self.changed != Timestamp::of(UNIX_EPOCH) {
            return self.changed;
        }
        std::iter::once(&self.file)
            .chain(&self.subagents)
            .map(|f| modified(f))
            .max()
            .unwrap_or(Timestamp::of(UNIX_EPOCH))
    }

    /// Files in the session: 1 and its sub-agents.
    #[must_use]
    pub fn files(&self) -> usize {
        1 + self.subagents.len()
    }

    /// The name it is given in messages and tables: its file's path, and
    /// for a session of a store, `<store>#<id>`.
    #[must_use]
    pub fn name(&self) -> String {
        match &self.stored {
            Some(s) => format!("{}#{}", self.file.display(), s.id),
            None => self.file.display().to_string(),
        }
    }
}

/// What a walk found below one directory.
#[derive(Debug, Default)]
pub struct Found {
    /// Sessions, in the order they are to be read.
    pub sessions: Vec<Session>,
    /// Other files, left alone.
    pub other_files: u64,
    /// Files named like session files that are not regular files (a
    /// device, a FIFO, a socket), left unread.
    pub not_regular: u64,
    /// Directories that could not be listed, with why.
    pub unreadable: Vec<(PathBuf, io::Error)>,
}

/// The session files below `dir` (see the module docs), and the stores
/// of `readers`.
#[must_use]
pub fn sessions_below(dir: &Path, readers: Readers) -> Found {
    sessions_below_on(dir, 1, None, readers)
}

/// A directory walk's state (see [`sessions_below_on`]).
#[derive(Default)]
struct Walk {
    /// Directories not listed yet.
    pending: Vec<PathBuf>,
    /// The session files found, in the order found.
    files: Vec<PathBuf>,
    /// The stores found, each with its reader.
    stores: Vec<(PathBuf, &'static dyn StoreReader)>,
    /// What the agents' stores say of a file.
    readers: Readers,
    found: Found,
}

impl Walk {
    /// List the directory `d` (from `index` when it is unchanged since it
    /// last listed it, else read, and kept there): its session files and
    /// stores are kept, its directories walked later, the rest counted.
    fn list(&mut self, d: PathBuf, index: Option<&Index>) {
        let Some(ix) = index else {
            return self.read(d, None);
        };
        let Some(stamp) = Stamp::of_dir(&d) else {
            return self.read(d, None);
        };
        if let Some(listing) = ix.listing(&d, &stamp) {
            for (name, kind) in &listing.entries {
                self.take(d.join(name), *kind);
            }
            return;
        }
        let indexed_at = crate::index::now_ns();
        let mut entries = Vec::new();
        self.read(d.clone(), Some(&mut entries));
        ix.put_listing(
            &d,
            Listing {
                stamp,
                indexed_at,
                entries,
            },
        );
    }

    /// Read the directory `d`, each entry taken, and kept in `listed`.
    fn read(&mut self, d: PathBuf, mut listed: Option<&mut Vec<(OsString, Entry)>>) {
        let entries = match fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) => {
                self.found.unreadable.push((d, e));
                return;
            }
        };
        for entry in entries.flatten() {
            // Not followed: a link to a directory could make a loop.
            let Ok(t) = entry.file_type() else {
                continue;
            };
            let kind = if t.is_dir() {
                Entry::Dir
            } else if t.is_file() {
                Entry::File
            } else if t.is_symlink() {
                Entry::Link
            } else {
                Entry::Other
            };
            if let Some(l) = listed.as_deref_mut() {
                l.push((entry.file_name(), kind));
            }
            self.take(entry.path(), kind);
        }
    }

    /// An entry of a directory listed.
    fn take(&mut self, path: PathBuf, kind: Entry) {
        let readers = self.readers;
        if kind == Entry::Dir {
            self.pending.push(path);
        } else if let Some(reader) = readers.store(&path) {
            self.stores.push((path, reader));
        } else if kind == Entry::File
            && let Some((reader, listed)) = readers.listed(&path)
        {
            self.stores
                .extend(listed.into_iter().map(|db| (db, reader)));
        } else if is_session_file(&path, readers) && kind == Entry::File {
            self.files.push(path);
        } else if is_session_file(&path, readers) {
            // A link, followed: to a regular file, it is read.
            match fs::metadata(&path) {
                Ok(m) if m.is_file() => self.files.push(path),
                Ok(m) if !m.is_dir() => self.found.not_regular += 1,
                _ => self.found.other_files += 1,
            }
        } else {
            self.found.other_files += 1;
        }
    }
}

/// [`sessions_below`], each file's first timestamp read on `jobs` threads
/// (`-j`: the reads of a library's discovery, before any file is decoded,
/// were its one serial part; issue 27), or taken from `index` for the
/// files it knows unchanged (then the file is not opened).
#[must_use]
pub fn sessions_below_on(
    dir: &Path,
    jobs: usize,
    index: Option<&Index>,
    readers: Readers,
) -> Found {
    let mut walk = Walk {
        pending: vec![dir.to_path_buf()],
        readers,
        ..Walk::default()
    };
    if let Some(reader) = readers.store(dir).filter(|_| !dir.is_dir()) {
        walk.pending.clear();
        walk.stores.push((dir.to_path_buf(), reader));
    } else if let Some((reader, listed)) = readers.listed(dir) {
        walk.pending.clear();
        walk.stores = listed.into_iter().map(|db| (db, reader)).collect();
    }
    // Each file's first timestamp is read on `jobs` threads while the
    // walk goes on, directory by directory.
    let starts = crate::parallel::map_fed(
        jobs,
        |give| {
            while let Some(d) = walk.pending.pop() {
                let before = walk.files.len();
                walk.list(d, index);
                give(walk.files[before..].to_vec());
            }
        },
        &|f: &PathBuf| match index {
            Some(ix) => dated_by(f, ix),
            None => dated(f),
        },
    );
    let Walk {
        files,
        stores,
        mut found,
        ..
    } = walk;
    found.sessions = in_start_order(&files, &starts);
    for (db, reader) in once_each(stores) {
        match fs::metadata(&db) {
            Ok(m) if m.is_file() => match reader.sessions(&db) {
                Ok(listed) => found.sessions.extend(listed.into_iter().map(|s| Session {
                    file: db.clone(),
                    subagents: Vec::new(),
                    began: s.began,
                    stored: Some(Box::new(s)),
                    bytes: 0,
                    changed: Timestamp::of(UNIX_EPOCH),
                    walked: None,
                })),
                Err(e) => found.unreadable.push((db, e)),
            },
            Ok(_) => found.not_regular += 1,
            Err(e) => found.unreadable.push((db, e)),
        }
    }
    if found.sessions.iter().any(|s| s.stored.is_some()) {
        // In start order with the files' sessions (a stable sort: a
        // store's sessions are in order already).
        found
            .sessions
            .sort_by_cached_key(|s| s.began.unwrap_or_else(|| modified(&s.file)));
    }
    found
}

/// The stores found, each once (found below a directory and listed in a
/// file that lists stores too), in the order first found.
fn once_each<T>(stores: Vec<(PathBuf, T)>) -> Vec<(PathBuf, T)> {
    let mut seen = std::collections::HashSet::new();
    (stores.into_iter())
        .filter(|(db, _)| seen.insert(fs::canonicalize(db).unwrap_or_else(|_| db.clone())))
        .collect()
}

/// A path read as a library: a directory, a store of one of `readers`, or
/// a file that lists stores ([`StoreReader::listed`]).
#[must_use]
pub fn is_library(path: &Path, readers: Readers) -> bool {
    path.is_dir() || readers.store(path).is_some() || readers.listed(path).is_some()
}

/// The session that began last (`None`: there is none).
#[must_use]
pub fn latest(sessions: impl IntoIterator<Item = Session>) -> Option<Session> {
    newest(sessions, 1).pop()
}

/// The `n` sessions that began last, as `--list` orders them (one whose
/// start is unknown by when its files last changed), in the order they
/// began (as a library is read).
#[must_use]
pub fn newest(sessions: impl IntoIterator<Item = Session>, n: usize) -> Vec<Session> {
    let began = |s: &Session| {
        let updated = s.stored.as_ref().and_then(|st| st.updated);
        s.began.or(updated).unwrap_or(s.changed)
    };
    let mut by_start: Vec<(Timestamp, usize, Session)> = (sessions.into_iter())
        .enumerate()
        .map(|(i, s)| (began(&s), i, s))
        .collect();
    // The latest first; of two begun at once, the one later in start
    // order.
    by_start.sort_by_key(|(t, i, _)| std::cmp::Reverse((*t, *i)));
    by_start.truncate(n);
    // Back in start order.
    by_start.sort_by_key(|(_, i, _)| *i);
    by_start.into_iter().map(|(_, _, s)| s).collect()
}

/// A name that session files have: `*.jsonl` or `*.ndjson`, compressed
/// (`.gz`, `.zst`) or not, and the agents' own (Gemini CLI's, Cline CLI's
/// `*.json` documents; a Gemini `session-*.json` outside `chats/` is
/// asked how it begins); of those, not one a reader of `readers` says
/// holds no session ([`StoreReader::no_session`]); and the files a reader
/// says its agent keeps sessions in whatever their names
/// ([`StoreReader::keeps_session`]: `*.jsonl.reset.<time>`, say).
#[must_use]
pub fn is_session_file(path: &Path, readers: Readers) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let name = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(&name);
    let ext = Path::new(name).extension();
    (ext.is_some_and(|e| e == "jsonl" || e == "ndjson")
        && !is_qwen_usage_record(path, name)
        && !readers.no_session(path, name))
        || is_gemini_document(path, name)
        || is_cline_messages(path, name)
        || readers.keeps_session(path)
}

/// Qwen Code's `usage_record.jsonl` in its home (`~/.qwen`, or the folder
/// beside `projects/`): one line per finished session of every project,
/// what the sessions' chats already say.
fn is_qwen_usage_record(path: &Path, name: &str) -> bool {
    name == "usage_record.jsonl"
        && (path.parent().and_then(Path::file_name) == Some(OsStr::new(".qwen"))
            || path.with_file_name("projects").is_dir())
}

/// Cline CLI's sessions: `sessions/<id>/<id>.messages.json`, one JSON
/// document (its record `<id>.json` is read with it: `input::companion`).
fn is_cline_messages(path: &Path, name: &str) -> bool {
    name.strip_suffix(".messages.json").is_some_and(|id| {
        path.parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d.eq_ignore_ascii_case(id))
    })
}

/// Gemini CLI's older session files: `chats/session-*.json`, one JSON
/// document each (read as one line: [`OneLine`]); out of `chats/` (a
/// folder of them copied elsewhere), those that begin as the CLI writes
/// them.
fn is_gemini_document(path: &Path, name: &str) -> bool {
    name.starts_with("session-")
        && Path::new(name).extension().is_some_and(|e| e == "json")
        && (path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == "chats")
            || begins_as_gemini_document(path))
}

/// The file begins `{"sessionId"` (between white space), as Gemini CLI
/// writes its one-document sessions: the first key of the object.
fn begins_as_gemini_document(path: &Path) -> bool {
    let mut head = [0u8; 64];
    let Ok(mut f) = open_regular(path) else {
        return false;
    };
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    let rest = head[..n].trim_ascii_start();
    rest.strip_prefix(b"{")
        .is_some_and(|r| r.trim_ascii_start().starts_with(b"\"sessionId\""))
}

/// What the walk learns of a file: when it sorts (its first timestamp,
/// or without one when it last changed), its first timestamp, its size
/// and when it last changed.
#[derive(Clone, Copy)]
struct Start {
    sorts: Timestamp,
    began: Option<Timestamp>,
    bytes: u64,
    changed: Timestamp,
    /// Its stamp, when it was taken ([`dated_by`]).
    stamp: Option<Stamp>,
}

/// A file's [`Start`]. Each file is opened once for all: the size and
/// time from one `fstat` (`Session::bytes`, which `-j` and the progress
/// line ask for; `Session::changed`, which `--since` asks for).
fn dated(f: &Path) -> Start {
    let (opened, bytes) = match open_regular_sized(f) {
        Ok((file, bytes)) => (Some(file), bytes),
        Err(_) => (None, 0),
    };
    let changed = match &opened {
        Some(file) => Timestamp::of(
            file.metadata()
                .and_then(|m| m.modified())
                .unwrap_or(UNIX_EPOCH),
        ),
        None => modified(f),
    };
    let began = opened.and_then(start_time);
    Start {
        sorts: began.unwrap_or(changed),
        began,
        bytes,
        changed,
        stamp: None,
    }
}

/// [`dated`] from the index when it knows the file unchanged (the one
/// `stat` of the file); else read, and kept in it.
fn dated_by(f: &Path, index: &Index) -> Start {
    let Some(stamp) = Stamp::of_path(f) else {
        return dated(f);
    };
    if let Some(d) = index.dated(f, &stamp) {
        let changed = Timestamp::from_millis(stamp.mtime.div_euclid(1_000_000))
            .unwrap_or(Timestamp::of(UNIX_EPOCH));
        return Start {
            sorts: d.began.unwrap_or(changed),
            began: d.began,
            bytes: stamp.size,
            changed,
            stamp: Some(stamp),
        };
    }
    let indexed_at = crate::index::now_ns();
    let read = Start {
        stamp: Some(stamp),
        ..dated(f)
    };
    index.put_dated(
        f,
        Dated {
            stamp,
            began: read.began,
            indexed_at,
        },
    );
    read
}

/// A file's place in the library: its session's start and file, whether
/// it is a sub-agent's, its own start and file, its index in the walk.
type Key<'a> = (Timestamp, Walked<'a>, bool, Timestamp, Walked<'a>, usize);

/// `files` as sessions sorted by start time (`starts`: each one's
/// [`dated`]), each with its sub-agents.
fn in_start_order(files: &[PathBuf], starts: &[Start]) -> Vec<Session> {
    // The files by name, as bytes (a `Path` hashes component by component:
    // that was most of this function's time on a library).
    let index: foldhash::HashMap<&OsStr, usize> = (files.iter().enumerate())
        .map(|(i, f)| (f.as_os_str(), i))
        .collect();
    // Each file under its session's (its own when it is one).
    let mut keyed: Vec<Key<'_>> = (files.iter())
        .enumerate()
        .map(|(i, f)| {
            // The session's file compressed too (`s.jsonl.gz` over
            // `s/subagents/agent-x.jsonl`).
            let session = parent_session(f)
                .and_then(|p| {
                    ["", ".gz", ".zst"].iter().find_map(|z| {
                        let mut name = p.clone().into_os_string();
                        name.push(z);
                        index.get(name.as_os_str()).copied()
                    })
                })
                .unwrap_or(i);
            let (own, parent) = (starts[i].sorts, starts[session].sorts);
            (
                parent,
                Walked(&files[session]),
                session != i,
                own,
                Walked(f),
                i,
            )
        })
        .collect();
    // The session first, then its sub-agents by their start.
    keyed.sort_unstable();
    let mut sessions: Vec<Session> = Vec::new();
    for (_, _, sub, _, Walked(f), i) in keyed {
        let Start {
            began,
            bytes,
            changed,
            stamp,
            ..
        } = starts[i];
        match sessions.last_mut() {
            Some(s) if sub => {
                s.subagents.push(f.to_path_buf());
                s.bytes = s.bytes.saturating_add(bytes);
                s.changed = s.changed.max(changed);
                s.walked = s.walked.take().zip(stamp).map(|(w, st)| {
                    let mut w = w.into_vec();
                    w.push(st);
                    w.into_boxed_slice()
                });
            }
            _ => sessions.push(Session {
                file: f.to_path_buf(),
                subagents: Vec::new(),
                began,
                stored: None,
                bytes,
                changed,
                walked: stamp.map(|st| Box::from([st])),
            }),
        }
    }
    sessions
}

/// A path found by the walk, ordered as [`Path`] orders it, component by
/// component, but without parsing them: a walked path has no `.`
/// component, no doubled or trailing separator beyond those of the
/// directory named (which all share), so its bytes, with `/` below every
/// other byte, order the same. Copies of a session tie on their times and
/// their paths decide: parsed, they were 1.5% of the instructions of a
/// report over 1,100 copies of small transcripts (issue 27).
#[derive(Clone, Copy)]
struct Walked<'a>(&'a Path);

impl PartialEq for Walked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Walked<'_> {}

impl Ord for Walked<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let a = self.0.as_os_str().as_encoded_bytes();
        let b = other.0.as_os_str().as_encoded_bytes();
        let low = |c: u8| if c == b'/' { 0 } else { u16::from(c) + 1 };
        match first_difference(a, b) {
            Some(i) => low(a[i]).cmp(&low(b[i])),
            None => a.len().cmp(&b.len()),
        }
    }
}

/// Where `a` and `b` first differ, up to the shorter's length: eight
/// bytes at a time over the prefix a library's paths share (byte by byte,
/// it was 3% of a status line's time over 1,250 files).
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n && a[i..i + 8] == b[i..i + 8] {
        i += 8;
    }
    (i..n).find(|&k| a[k] != b[k])
}

impl PartialOrd for Walked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// For `<dir>/<session>/subagents/agent-x.jsonl` (Claude Code),
/// `<dir>/<session>.jsonl`; for `<project>/subagents/<session>/agent-x.jsonl`
/// (Qwen Code), `<project>/chats/<session>.jsonl`.
fn parent_session(file: &Path) -> Option<PathBuf> {
    let folder = file.parent()?;
    if folder.file_name()? == "subagents" {
        return Some(folder.parent()?.with_extension("jsonl"));
    }
    let session = folder.file_name()?;
    let project = folder
        .parent()
        .filter(|s| s.file_name() == Some("subagents".as_ref()))?;
    let mut name = session.to_os_string();
    name.push(".jsonl");
    Some(project.parent()?.join("chats").join(name))
}

/// When the session of `file` began: its first timestamp, else (a
/// stream without any) `None`. Read 4 KiB at a time, up to [`HEAD`]: the
/// first line of a session says it (reading 64 KiB of every file was a
/// third of a library's bytes read twice, before any thread starts).
fn start_time(f: File) -> Option<Timestamp> {
    const STEP: usize = 4 << 10;
    // Longer than `"timestamp":"` and any time after it.
    const CUT: usize = 128;
    let mut rdr = Decompress::new(f).take(HEAD as u64);
    let mut head = Vec::with_capacity(STEP);
    loop {
        let from = head.len();
        head.resize(from + STEP, 0);
        let n = loop {
            match rdr.read(&mut head[from..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other.ok()?,
            }
        };
        head.truncate(from + n);
        if n == 0 {
            return timestamps(&head).next();
        }
        // A timestamp ends with its quote: one cut by the read is found
        // whole on the next, which looks again from the start of the last
        // key that may have been cut (a time is under 64 bytes), not from
        // the start of the file.
        let seen = from.saturating_sub(CUT);
        if let Some(t) = timestamps(&head[seen..]).next() {
            return Some(t);
        }
    }
}

/// The last timestamp of `file` (plain files only: a compressed one would
/// have to be read whole).
fn end_time(file: &Path) -> Option<Timestamp> {
    if Compression::of_file(file).ok()?.is_some() {
        return None;
    }
    let mut f = open_regular(file).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(HEAD as u64)))
        .ok()?;
    let mut tail = Vec::with_capacity(HEAD);
    f.take(HEAD as u64).read_to_end(&mut tail).ok()?;
    timestamps(&tail).max()
}

/// The values of `"timestamp":"…"` in `bytes` that are times.
fn timestamps(bytes: &[u8]) -> impl Iterator<Item = Timestamp> + '_ {
    let key = b"\"timestamp\":\"";
    memchr::memmem::find_iter(bytes, key).filter_map(move |i| {
        let from = i + key.len();
        let len = memchr::memchr(b'"', &bytes[from..])?;
        let text = std::str::from_utf8(&bytes[from..from + len]).ok()?;
        Timestamp::parse(text)
    })
}

/// When `file` was last changed.
fn modified(file: &Path) -> Timestamp {
    let t = fs::metadata(file).and_then(|m| m.modified());
    Timestamp::of(t.unwrap_or(UNIX_EPOCH))
}

mod interleave;
mod origins;

#[cfg(test)]
mod tests;
