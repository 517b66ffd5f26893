//! The index: what each saved session of a library gave a report, kept on
//! disk, so that a report over years of sessions reads only what changed.
//!
//! A report (`--by`, `--format summary*`, `--list`) over a library asks two
//! things of every file: when its session began (to order and date it: the
//! head of the file) and what its lines say (the events, decoded). Both are
//! kept here, per library, in one file of the cache directory
//! ([`cache_dir`]): for each file, its [`Stamp`] (device, inode, size,
//! modification and change times) and its dates; for each session, its
//! files' stamps, its number of lines and its events as the decoders gave
//! them, in streamview's JSONL, stripped of what no report reads (texts,
//! tool outputs: `run/record.rs`). A later report replays those events
//! through the same session and sink as a read would: every option
//! (`--since`, `--tz`, `--by`, `--prices`) applies as it does to a read,
//! and costs are priced at report time, never stored.
//!
//! Trust: an entry counts only if every file of it has the stamp it had
//! when it was indexed, and that stamp is older than the moment of
//! indexing by more than the file systems' time granularity ([`RACY_NS`]):
//! a file changed again within the same tick as its indexing looks
//! unchanged (git's "racy" case), so it is read again. A file that grew,
//! shrank, was replaced or rewritten is read again whole; one that vanished
//! is forgotten. A `SQLite` store's sessions are read again when the
//! database or its WAL changed. The file itself is trusted only if it is a
//! regular file of ours, not reached through a link, of this format
//! version, written by this very binary for the same reads (the library as
//! named, `--from`, `--max-line-bytes`), and its body's checksum holds
//! (`format.rs`); anything else is as if there were no index, and the next
//! run that writes one replaces it (whole, by a rename: two runs writing at
//! once leave one of their files, never a mix).

mod format;

use std::ffi::{OsStr, OsString};
use std::fs::{self, Metadata};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::time::Timestamp;

/// Nanoseconds a file must have been unchanged for before it was indexed
/// for its entry to be trusted: two seconds, the coarsest modification time
/// of the file systems in use (FAT's), beyond the nanoseconds of ext4,
/// XFS, btrfs and APFS.
pub const RACY_NS: i64 = 2_000_000_000;

/// What tells a file apart from its other versions, without reading it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Length in bytes.
    pub size: u64,
    /// Last modified, in nanoseconds since the epoch.
    pub mtime: i64,
    /// Last changed (its inode), in nanoseconds since the epoch.
    pub ctime: i64,
}

impl Stamp {
    /// The stamp of the file `m` describes.
    #[must_use]
    pub fn of(m: &Metadata) -> Stamp {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
            Stamp {
                dev: m.dev(),
                ino: m.ino(),
                size: m.size(),
                mtime: ns(m.mtime(), m.mtime_nsec()),
                ctime: ns(m.ctime(), m.ctime_nsec()),
            }
        }
        #[cfg(not(unix))]
        {
            let ns = |t: io::Result<SystemTime>| {
                t.ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
            };
            Stamp {
                size: m.len(),
                mtime: ns(m.modified()),
                ..Stamp::default()
            }
        }
    }

    /// The stamp of the file at `path` (a link followed), if it is a
    /// regular file.
    #[must_use]
    pub fn of_path(path: &Path) -> Option<Stamp> {
        fs::metadata(path)
            .ok()
            .filter(Metadata::is_file)
            .map(|m| Stamp::of(&m))
    }

    /// The stamp of the directory at `path` (a link followed), if it is
    /// one.
    #[must_use]
    pub fn of_dir(path: &Path) -> Option<Stamp> {
        fs::metadata(path)
            .ok()
            .filter(Metadata::is_dir)
            .map(|m| Stamp::of(&m))
    }

    /// It is `then`, and was already when it was indexed at `indexed_at`
    /// (see [`RACY_NS`]).
    fn trusted(&self, then: &Stamp, indexed_at: u64) -> bool {
        let at = i64::try_from(indexed_at).unwrap_or(i64::MAX);
        self == then && then.mtime.max(then.ctime).saturating_add(RACY_NS) < at
    }
}

/// What the index keeps of one file: when its session began, as its head
/// says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dated {
    /// The file as it was.
    pub stamp: Stamp,
    /// Its first timestamp.
    pub began: Option<Timestamp>,
    /// When it was indexed, in nanoseconds since the epoch.
    pub indexed_at: u64,
}

/// What the index keeps of one directory of a library: its entries as
/// the walk found them, so that a directory unchanged since (its stamp,
/// safely older than the listing) is not listed again.
#[derive(Clone, Debug, PartialEq)]
pub struct Listing {
    /// The directory as it was.
    pub stamp: Stamp,
    /// When it was listed, in nanoseconds since the epoch.
    pub indexed_at: u64,
    /// Its entries: each name, and what it is.
    pub entries: Vec<(std::ffi::OsString, Entry)>,
}

/// What a directory's entry is, as its listing says (a link not followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A directory.
    Dir = 0,
    /// A regular file.
    File = 1,
    /// A symbolic link.
    Link = 2,
    /// Anything else (a FIFO, a socket, a device).
    Other = 3,
}

/// What the index keeps of one session: its events, as a report reads
/// them (`E`: the events themselves; in the file's table, the frame that
/// holds them).
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded<E = Vec<u8>> {
    /// Its files, the session's first, each as it was.
    pub files: Vec<(PathBuf, Stamp)>,
    /// The lines its files held.
    pub lines: u64,
    /// When it was indexed, in nanoseconds since the epoch.
    pub indexed_at: u64,
    /// Its events, one JSONL line each.
    pub events: E,
    /// Where its file is read on from when it grows, and its decoder's
    /// state there (`E` again: in the file's table, its frame), for a
    /// session of one file whose decoder's state could be saved. Kept
    /// apart from the events: a report that replays them does not read it.
    pub resume: Option<(Resume, E)>,
}

/// Where a session of one file that grew is read on from: the point after
/// its last line, and how to tell the file still holds what was read
/// before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// The bytes of the file read: where its next line begins.
    pub offset: u64,
    /// The checksum of the file's first and last [`EDGE`] bytes before
    /// `offset` ([`edges`]).
    pub edges: u64,
    /// The length of the events given before the end of the input (those
    /// the decoder gives at the end follow: a resumed read gives them
    /// again).
    pub body: u64,
}

/// Bytes checked at each end of what was read of a file that grew.
pub const EDGE: u64 = 4096;

/// The checksum of the first and last [`EDGE`] bytes of the first `len`
/// bytes of `f` (`None`: it has fewer, or cannot be read).
#[must_use]
pub fn edges(f: &fs::File, len: u64) -> Option<u64> {
    let n = usize::try_from(len.min(EDGE)).ok()?;
    let head = read_at(f, 0, n)?;
    let tail = read_at(f, len - len.min(EDGE), n)?;
    let mut h = foldhash::fast::FixedState::with_seed(0xed9e).build_hasher();
    h.write(&head);
    h.write(&tail);
    Some(h.finish())
}

/// Now, in nanoseconds since the epoch.
#[must_use]
pub fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Where the index lives: `$STREAMVIEW_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/streamview`, else `~/.cache/streamview` (`None`: no
/// home either).
#[must_use]
pub fn cache_dir(
    own: Option<&OsStr>,
    xdg_cache_home: Option<&OsStr>,
    home: Option<&OsStr>,
) -> Option<PathBuf> {
    let set = |v: Option<&OsStr>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    set(own)
        .or_else(|| set(xdg_cache_home).map(|d| d.join("streamview")))
        .or_else(|| set(home).map(|h| h.join(".cache").join("streamview")))
}

/// The cache directory, made (0700) if missing, if it is safe to keep the
/// index in: a directory of this user's that no one else can write.
///
/// # Errors
/// One line saying why it is not used, for the user.
pub fn open_dir(dir: &Path) -> Result<PathBuf, String> {
    let refuse = |why: &str| {
        Err(format!(
            "not using the cache {}: {why}; every file is read (set STREAMVIEW_CACHE_DIR, or \
             --no-cache)",
            dir.display()
        ))
    };
    let meta = match fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let mut b = fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            if let Err(e) = b.create(dir) {
                return refuse(&format!(
                    "it cannot be made ({})",
                    crate::file::describe_io(&e)
                ));
            }
            match fs::metadata(dir) {
                Ok(m) => m,
                Err(e) => return refuse(&crate::file::describe_io(&e)),
            }
        }
        Err(e) => return refuse(&crate::file::describe_io(&e)),
    };
    if !meta.is_dir() {
        return refuse("it is not a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.uid() != euid() {
            return refuse("it belongs to another user");
        }
        if meta.mode() & 0o022 != 0 {
            return refuse("others can write to it");
        }
    }
    Ok(dir.to_path_buf())
}

/// This process's effective user id, without `unsafe` (`geteuid` is a
/// foreign function): the owner of `/proc/self`.
#[cfg(unix)]
fn euid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    fs::metadata("/proc/self").map_or_else(|_| euid_of_new_file(), |m| m.uid())
}

/// The effective user id where `/proc` is not mounted: the owner of a
/// file this process makes.
#[cfg(unix)]
fn euid_of_new_file() -> u32 {
    use std::os::unix::fs::MetadataExt;
    let path = std::env::temp_dir().join(format!("streamview-uid-{}", std::process::id()));
    let uid = fs::File::create(&path)
        .and_then(|f| f.metadata())
        .map_or(u32::MAX, |m| m.uid());
    let _ = fs::remove_file(&path);
    uid
}

/// What this binary is: its size and modification time (a rebuilt or
/// upgraded streamview decodes otherwise: its index starts afresh).
fn binary() -> u64 {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| fs::metadata(p).ok());
    let stamp = exe.map(|m| Stamp::of(&m)).unwrap_or_default();
    let mut h = foldhash::fast::FixedState::with_seed(u64::from(format::VERSION)).build_hasher();
    for v in [stamp.size, stamp.ino, stamp.dev] {
        h.write_u64(v);
    }
    h.write_i64(stamp.mtime);
    h.finish()
}

/// Maps and sets by path, hashed as the path's bytes (a `Path` hashes
/// component by component, and `SipHash` after it: a tenth of a status
/// line's time over a library of 1,250 files).
type ByPath<V> = foldhash::HashMap<OsString, V>;
type Paths = foldhash::HashSet<OsString>;
type Names = foldhash::HashSet<String>;

/// What was taken from the index and put in it during a run.
#[derive(Default)]
struct Used {
    /// Files whose entry was asked for.
    files: Paths,
    /// Sessions whose entry was asked for.
    sessions: Names,
    /// Sessions whose entry was trusted.
    served: u64,
    /// Sessions whose file grew, read on from where their entry left it.
    read_on: u64,
    /// Sessions whose events were not what was written: forgotten.
    damaged: Names,
    /// Directories whose listing was asked for.
    dirs: Paths,
    /// New entries.
    added_files: Vec<(PathBuf, Dated)>,
    added_dirs: Vec<(PathBuf, Listing)>,
    added_sessions: Vec<(String, Recorded<Packed>)>,
}

/// The index of one library, as loaded (its table; the events of a
/// session are read from its file when asked for), and what a run adds.
pub struct Index {
    /// Its file.
    path: PathBuf,
    /// What it was written by and for.
    binary: u64,
    context: String,
    /// The file loaded, for its sessions' events.
    file: Option<fs::File>,
    files: ByPath<Dated>,
    dirs: ByPath<Listing>,
    sessions: foldhash::HashMap<String, Recorded<format::Frame>>,
    /// The file there was not an index of ours, or was damaged.
    unreadable: bool,
    used: Mutex<Used>,
}

impl Index {
    /// The index of the library `root` in the cache directory `dir`, for
    /// reads that `reads` describes (`--from`, `--max-line-bytes`): empty
    /// when there is none yet, or none to trust.
    #[must_use]
    pub fn load(dir: &Path, root: &Path, reads: &str) -> Index {
        let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let context = format!("{}\0{}\0{reads}", root.display(), canonical.display());
        let mut h = foldhash::fast::FixedState::with_seed(7).build_hasher();
        h.write(context.as_bytes());
        let path = dir.join(format!("library-{:016x}.idx", h.finish()));
        let binary = binary();
        let file = open_ours(&path);
        let table = file.as_ref().and_then(|f| {
            let len = f.metadata().ok()?.len();
            format::read_table(len, binary, &context, |at, n| read_at(f, at, n))
        });
        let unreadable = table.is_none() && fs::symlink_metadata(&path).is_ok();
        let table = table.unwrap_or_default();
        Index {
            path,
            binary,
            context,
            file,
            files: (table.files.into_iter())
                .map(|(p, d)| (p.into_os_string(), d))
                .collect(),
            dirs: (table.dirs.into_iter())
                .map(|(p, l)| (p.into_os_string(), l))
                .collect(),
            sessions: table.sessions.into_iter().collect(),
            unreadable,
            used: Mutex::new(Used::default()),
        }
    }

    /// The dates of the file at `path`, now `stamp`, if the index knows
    /// them and may be trusted.
    #[must_use]
    pub fn dated(&self, path: &Path, stamp: &Stamp) -> Option<Dated> {
        if let Ok(mut u) = self.used.lock() {
            u.files.insert(path.as_os_str().to_os_string());
        }
        self.files
            .get(path.as_os_str())
            .filter(|d| stamp.trusted(&d.stamp, d.indexed_at))
            .copied()
    }

    /// The listing of the directory at `path`, now `stamp`, if the index
    /// has it and may be trusted.
    #[must_use]
    pub fn listing(&self, path: &Path, stamp: &Stamp) -> Option<&Listing> {
        if let Ok(mut u) = self.used.lock() {
            u.dirs.insert(path.as_os_str().to_os_string());
        }
        (self.dirs.get(path.as_os_str())).filter(|l| stamp.trusted(&l.stamp, l.indexed_at))
    }

    /// Keep the listing of the directory at `path`.
    pub fn put_listing(&self, path: &Path, listing: Listing) {
        if let Ok(mut u) = self.used.lock() {
            u.dirs.insert(path.as_os_str().to_os_string());
            u.added_dirs.push((path.to_path_buf(), listing));
        }
    }

    /// Keep the dates of the file at `path`.
    pub fn put_dated(&self, path: &Path, dated: Dated) {
        if let Ok(mut u) = self.used.lock() {
            u.files.insert(path.as_os_str().to_os_string());
            u.added_files.push((path.to_path_buf(), dated));
        }
    }

    /// The events of session `name`, whose files are now `files`, if the
    /// index has them, may be trusted, and reads them back as written.
    #[must_use]
    pub fn session(&self, name: &str, files: &[(PathBuf, Stamp)]) -> Option<Recorded> {
        self.look(name, files, true)
    }

    /// [`Index::session`] for a look before the session is read or
    /// replayed (`--project`: its working directory): not counted as
    /// served.
    #[must_use]
    pub fn peek(&self, name: &str, files: &[(PathBuf, Stamp)]) -> Option<Recorded> {
        self.look(name, files, false)
    }

    fn look(&self, name: &str, files: &[(PathBuf, Stamp)], serve: bool) -> Option<Recorded> {
        if let Ok(mut u) = self.used.lock() {
            u.sessions.insert(name.to_string());
        }
        let e = self.sessions.get(name).filter(|e| {
            e.files.len() == files.len()
                && (e.files.iter().zip(files))
                    .all(|((p, then), (q, now))| p == q && now.trusted(then, e.indexed_at))
        });
        // Its decoder's state is for a read that goes on.
        let rec = self.read(name, e?, false)?;
        if let Ok(mut u) = self.used.lock() {
            u.served += u64::from(serve);
        }
        Some(rec)
    }

    /// The entry of session `name`, now of the one file `now`, to be read
    /// on from its [`Resume`] point: the file is the same one (device and
    /// inode), no shorter than what was read of it, which its head and
    /// tail say it still holds (`file`: it, open); with its decoder's
    /// state.
    #[must_use]
    pub fn resumable(
        &self,
        name: &str,
        now: &(PathBuf, Stamp),
        file: &fs::File,
    ) -> Option<Recorded> {
        let e = self.sessions.get(name)?;
        let (r, _) = e.resume?;
        let [(path, then)] = &e.files[..] else {
            return None;
        };
        let (p, s) = now;
        if path != p || (then.dev, then.ino) != (s.dev, s.ino) || s.size < r.offset {
            return None;
        }
        if edges(file, r.offset)? != r.edges {
            return None;
        }
        self.read(name, e, true)
    }

    /// What the index keeps of session `name`, entry `e`: its events, and
    /// with `state` where a read goes on from and its decoder's state
    /// there (`None`, and the entry forgotten, when they are not as
    /// written).
    fn read(&self, name: &str, e: &Recorded<format::Frame>, state: bool) -> Option<Recorded> {
        let events = self.events(&e.events);
        let resume = match e.resume {
            Some((r, frame)) if state => Some(self.events(&frame).map(|s| (r, s))),
            _ => None,
        };
        let whole = events.is_some() && resume.as_ref().is_none_or(Option::is_some);
        if let Ok(mut u) = self.used.lock() {
            u.sessions.insert(name.to_string());
            if !whole {
                u.damaged.insert(name.to_string());
            }
        }
        Some(Recorded {
            files: e.files.clone(),
            lines: e.lines,
            indexed_at: e.indexed_at,
            events: events?,
            resume: resume.flatten(),
        })
    }

    /// The events of `frame` of the loaded file.
    fn events(&self, frame: &format::Frame) -> Option<Vec<u8>> {
        let f = self.file.as_ref()?;
        format::decompress(
            &read_at(f, frame.at, usize::try_from(frame.len).ok()?)?,
            frame,
        )
    }

    /// Keep the events of session `name`: compressed here, on the thread
    /// that read it (`-j`: a first report's compression is shared by its
    /// threads, not left to the end), written with the index.
    pub fn put_session(&self, name: &str, recorded: Recorded) {
        let packed = Packed::of(&recorded.events).and_then(|events| {
            let resume = match &recorded.resume {
                Some((r, state)) => Some((*r, Packed::of(state)?)),
                None => None,
            };
            Ok(Recorded {
                files: recorded.files,
                lines: recorded.lines,
                indexed_at: recorded.indexed_at,
                events,
                resume,
            })
        });
        if let Ok(mut u) = self.used.lock() {
            u.sessions.insert(name.to_string());
            if let Ok(p) = packed {
                u.added_sessions.push((name.to_string(), p));
            }
        }
    }

    /// Keep the events of session `name`, whose file grew and was read
    /// on from where its entry left it ([`Index::resumable`]).
    pub fn put_read_on(&self, name: &str, recorded: Recorded) {
        if let Ok(mut u) = self.used.lock() {
            u.read_on += 1;
        }
        self.put_session(name, recorded);
    }

    /// Sessions taken from the index so far.
    #[must_use]
    pub fn served(&self) -> u64 {
        self.used.lock().map_or(0, |u| u.served)
    }

    /// Sessions read on from where the index left their file so far.
    #[must_use]
    pub fn read_on(&self) -> u64 {
        self.used.lock().map_or(0, |u| u.read_on)
    }

    /// Write the index again if the run changed it: the entries the run
    /// asked for or made (those of files no longer found are forgotten),
    /// each session's events copied from the loaded file as they are.
    ///
    /// # Errors
    /// One line for the user: the index could not be written.
    pub fn save(self) -> Result<(), String> {
        let Ok(used) = self.used.into_inner() else {
            return Ok(());
        };
        let forgotten = self.files.keys().any(|p| !used.files.contains(p))
            || self.dirs.keys().any(|p| !used.dirs.contains(p));
        if used.added_files.is_empty()
            && used.added_dirs.is_empty()
            && used.added_sessions.is_empty()
            && used.damaged.is_empty()
            && !forgotten
            && !self.unreadable
        {
            return Ok(());
        }
        let mut files = self.files;
        files.retain(|p, _| used.files.contains(p));
        files.extend((used.added_files.into_iter()).map(|(p, d)| (p.into_os_string(), d)));
        let mut sessions: std::collections::BTreeMap<String, Kept> = (self.sessions.into_iter())
            .filter(|(name, e)| {
                !used.damaged.contains(name)
                    && (used.sessions.contains(name)
                        || (e.files.first())
                            .is_some_and(|(p, _)| used.files.contains(p.as_os_str())))
            })
            .map(|(name, e)| (name, Kept::Old(e)))
            .collect();
        sessions.extend((used.added_sessions.into_iter()).map(|(n, r)| (n, Kept::New(r))));
        let mut dirs = self.dirs;
        dirs.retain(|p, _| used.dirs.contains(p));
        dirs.extend((used.added_dirs.into_iter()).map(|(p, l)| (p.into_os_string(), l)));
        // The same index for the same library: in the order of the paths'
        // bytes (not `Path`'s, component by component: a tenth of a
        // status line's time when the index is written again).
        let mut files: Vec<(OsString, Dated)> = files.into_iter().collect();
        files.sort_unstable_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
        let mut dirs: Vec<(OsString, Listing)> = dirs.into_iter().collect();
        dirs.sort_unstable_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
        let files = (files.into_iter()).map(|(p, d)| (p.into(), d)).collect();
        let dirs = (dirs.into_iter()).map(|(p, l)| (p.into(), l)).collect();
        let old = self.file.as_ref();
        let head = format::header(self.binary, &self.context);
        write_atomically(&self.path, |w| {
            w.write_all(&head)?;
            let mut table = format::Table {
                files,
                dirs,
                sessions: Vec::with_capacity(sessions.len()),
            };
            let mut at = head.len() as u64;
            for (name, kept) in sessions {
                let Some((entry, bytes)) = kept.frame(old, at) else {
                    continue;
                };
                w.write_all(&bytes)?;
                at += bytes.len() as u64;
                table.sessions.push((name, entry));
            }
            w.write_all(&format::table_and_trailer(&table, at)?)
        })
        .map_err(|e| {
            format!(
                "could not write the index {}: {}; the next report reads every file again \
                 (--no-cache does not try)",
                self.path.display(),
                crate::file::describe_io(&e)
            )
        })
    }
}

/// A session the index keeps when it is written again.
enum Kept {
    /// As the loaded file has it.
    Old(Recorded<format::Frame>),
    /// Recorded by this run.
    New(Recorded<Packed>),
}

/// Bytes compressed as a frame, not yet placed in a file.
struct Packed {
    /// The frame (its place not yet known).
    frame: format::Frame,
    bytes: Vec<u8>,
}

impl Packed {
    /// `raw` compressed.
    fn of(raw: &[u8]) -> io::Result<Packed> {
        Ok(Packed {
            bytes: format::compress(raw)?,
            frame: format::Frame {
                at: 0,
                len: 0,
                raw: raw.len() as u64,
                sum: format::checksum(raw),
            },
        })
    }
}

impl Kept {
    /// Its entry and its frames' bytes (its events', then its decoder
    /// state's), when written at `at` (`None`: an old frame can no longer
    /// be read).
    fn frame(self, old: Option<&fs::File>, at: u64) -> Option<(Recorded<format::Frame>, Vec<u8>)> {
        let mut out = Placed {
            at,
            bytes: Vec::new(),
        };
        let entry = match self {
            Kept::Old(e) => {
                let read = |f: &format::Frame| {
                    old.and_then(|o| read_at(o, f.at, usize::try_from(f.len).ok()?))
                };
                let bytes = read(&e.events)?;
                let events = out.put(e.events, &bytes);
                let resume = (e.resume).and_then(|(r, s)| Some((r, out.put(s, &read(&s)?))));
                Recorded {
                    events,
                    resume,
                    ..e
                }
            }
            Kept::New(r) => {
                let events = out.put(r.events.frame, &r.events.bytes);
                let resume = (r.resume).map(|(p, s)| (p, out.put(s.frame, &s.bytes)));
                Recorded {
                    files: r.files,
                    lines: r.lines,
                    indexed_at: r.indexed_at,
                    events,
                    resume,
                }
            }
        };
        Some((entry, out.bytes))
    }
}

/// Frames being written one after the other from `at`.
struct Placed {
    at: u64,
    bytes: Vec<u8>,
}

impl Placed {
    /// `frame`, its compressed bytes `compressed`, put next.
    fn put(&mut self, frame: format::Frame, compressed: &[u8]) -> format::Frame {
        let placed = format::Frame {
            at: self.at + self.bytes.len() as u64,
            len: compressed.len() as u64,
            ..frame
        };
        self.bytes.extend_from_slice(compressed);
        placed
    }
}

/// `n` bytes of `f` at offset `at`, if it has them.
pub(crate) fn read_at(f: &fs::File, at: u64, n: usize) -> Option<Vec<u8>> {
    // A length no index of a library has: a damaged one.
    if n > 1 << 32 {
        return None;
    }
    let mut buf = vec![0; n];
    #[cfg(unix)]
    std::os::unix::fs::FileExt::read_exact_at(f, &mut buf, at).ok()?;
    #[cfg(not(unix))]
    {
        let _ = (f, at);
        return None;
    }
    Some(buf)
}

/// Open the index file at `path` for reading if it is a regular file of
/// this user's, not a link.
fn open_ours(path: &Path) -> Option<fs::File> {
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let f = o.open(path).ok()?;
    let m = f.metadata().ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if m.uid() != euid() {
            return None;
        }
    }
    m.is_file().then_some(f)
}

/// Write the file at `path` whole or not at all: into a new file beside
/// it (0600), renamed over it once complete.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<fs::File>) -> io::Result<()>,
) -> io::Result<()> {
    let mut name = path.as_os_str().to_os_string();
    name.push(format!(".{}.{}.tmp", std::process::id(), now_ns()));
    let tmp = PathBuf::from(name);
    let mut o = fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let res = o.open(&tmp).and_then(|f| {
        let mut w = BufWriter::with_capacity(1 << 16, f);
        write(&mut w)?;
        w.into_inner().map_err(io::IntoInnerError::into_error)?;
        fs::rename(&tmp, path)
    });
    if res.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    res
}

#[cfg(test)]
mod tests;
