//! `--follow`: read a log file that another process is still writing, like
//! `tail -f` from the beginning.
//!
//! A file that does not exist yet is waited for, like `tail -F`: the agent
//! may not have created its log when streamview starts. When it appears it
//! gets the checks a file there at the start gets, once its first bytes
//! tell: compressed, it is decompressed and read once; a FIFO is read until
//! its writer closes it (a wait for one is said once).
//!
//! At the end of the file the reader waits and polls for more instead of
//! reporting end of input. It notices the file being truncated (starts again
//! from the top) or replaced (reopens the path), and it ends by itself once
//! the session has finished: after the run signals a final result and the
//! file then stays quiet for a grace period (newer Claude Code prints a few
//! results in a row when background sub-agents finish).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use super::{Compression, Decompress, Readers};

/// How often to look for new data at the end of the file.
const POLL: Duration = Duration::from_millis(50);

/// How long the file must stay quiet after a result before following ends.
const GRACE: Duration = Duration::from_millis(1500);

/// The first bytes of the file kept, to tell a rewritten file from a
/// grown one.
const HEAD: usize = 1024;

/// A partial line held back at most: the rest of a longer one is passed
/// on (and, if the file is then truncated, ended where it was cut).
const HOLD: usize = 64 << 10;

/// How long a FIFO's `open` waits before it is said to wait for a writer
/// (with one, it opens at once).
const WRITER_WAIT: Duration = Duration::from_millis(200);

/// How [`open`] reads the file, for the run to tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// Followed.
    Followed,
    /// Not there yet: waited for, then followed.
    Waiting,
    /// Compressed: read once to its end, not followed.
    NotFollowed(Compression),
    /// A FIFO (or another file that is not a regular one): read until its
    /// writer closes it, like standard input.
    Stream,
}

/// Where [`Follow`] says that it starts the file again (the run prints
/// it as a note about the file).
pub type Notice = Box<dyn FnMut(&str) + Send>;

/// Open `path` for `--follow`. A file that does not exist yet is waited
/// for. A compressed file is not followed: its writer (`gzip`) emits blocks
/// long after the lines in them were written, and a compressed log is
/// usually a finished, rotated one. It is read once to its end instead,
/// decompressed. A FIFO has no end to wait at and cannot seek: it is read
/// until its writer closes it (issue 18: it ended with "Illegal seek");
/// its `open` waits for a writer, which `notice` says once.
///
/// # Errors
/// The file cannot be opened or read (other than by not existing).
pub fn open(
    path: PathBuf,
    finished: Arc<AtomicBool>,
    notice: Notice,
) -> io::Result<(Box<dyn Read + Send>, Opened)> {
    match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() && !m.is_dir() => {
            let file = open_stream(&path, &m, notice)?;
            return Ok((Box::new(Decompress::new(file)), Opened::Stream));
        }
        _ => {}
    }
    match Compression::of_file(&path) {
        Ok(Some(c)) => {
            let file = File::open(&path)?;
            return Ok((Box::new(Decompress::new(file)), Opened::NotFollowed(c)));
        }
        Ok(None) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let f = Appearing {
                path,
                finished,
                notice: Some(notice),
                now: None,
            };
            return Ok((Box::new(f), Opened::Waiting));
        }
        Err(e) => return Err(e),
    }
    let f = Follow::open(path, finished)?.with_notice(notice);
    Ok((Box::new(f), Opened::Followed))
}

/// Open `path`, a file that is not a regular one (`meta`). A FIFO's `open`
/// waits until a writer opens it: if it still waits after
/// [`WRITER_WAIT`], `notice` says so, once, from a thread of its own (the
/// `open` holds this one; the other files `-f` follows are read on).
fn open_stream(
    path: &std::path::Path,
    meta: &std::fs::Metadata,
    mut notice: Notice,
) -> io::Result<File> {
    #[cfg(unix)]
    let fifo = std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type());
    #[cfg(not(unix))]
    let fifo = {
        let _ = meta;
        false
    };
    let (opened, waiting) = std::sync::mpsc::channel::<()>();
    if fifo {
        // Without the thread, the wait is only not said.
        let _ = std::thread::Builder::new().spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = waiting.recv_timeout(WRITER_WAIT) {
                notice("a FIFO with no writer yet; waiting for one to open it");
            }
        });
    }
    let file = File::open(path);
    // The thread's wait ends: no notice once the `open` returned.
    drop(opened);
    file
}

/// `-f` on a file that does not exist yet: waited for, then read as
/// [`open`] reads a file there at the start, decided once its first bytes
/// say whether it is compressed (an empty file is waited on too: `gzip`
/// creates its output before it writes the magic number).
struct Appearing {
    path: PathBuf,
    finished: Arc<AtomicBool>,
    /// Handed to what reads the file once it is there.
    notice: Option<Notice>,
    /// What reads the file, once it is there.
    now: Option<Box<dyn Read + Send>>,
}

impl Appearing {
    /// What reads the file, if it is there and its first bytes tell.
    fn arrived(&mut self) -> io::Result<Option<Box<dyn Read + Send>>> {
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let quiet = || -> Notice { Box::new(|_: &str| {}) };
        if !meta.is_file() {
            // A FIFO, a device, a directory: as at the start.
            let notice = self.notice.take().unwrap_or_else(quiet);
            return open(self.path.clone(), Arc::clone(&self.finished), notice).map(|o| Some(o.0));
        }
        let mut head = Vec::with_capacity(4);
        File::open(&self.path)?.take(4).read_to_end(&mut head)?;
        let compression = match Compression::sniff(&head) {
            Some(c) if !head.is_empty() => c,
            // Empty, or the start of a magic number: not yet.
            _ => return Ok(None),
        };
        let mut notice = self.notice.take().unwrap_or_else(quiet);
        if let Some(c) = compression {
            notice(&format!(
                "appeared {c}-compressed: read to its end, not followed"
            ));
            return Ok(Some(Box::new(Decompress::new(File::open(&self.path)?))));
        }
        let f = Follow::open(self.path.clone(), Arc::clone(&self.finished))?;
        Ok(Some(Box::new(f.with_notice(notice))))
    }
}

impl Read for Appearing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(r) = self.now.as_mut() {
                return r.read(buf);
            }
            self.now = self.arrived()?;
            if self.now.is_none() {
                std::thread::sleep(POLL);
            }
        }
    }
}

/// A `Read` over a growing file. It gives complete lines only, holding a
/// partial one back until its end arrives (up to 64 KiB), so that when
/// the file is truncated, rewritten or replaced it can start again from
/// the top without gluing an unfinished line to the new first one, as
/// `tail -F` does.
pub struct Follow {
    path: PathBuf,
    /// `None` until the file exists.
    file: Option<File>,
    /// Bytes read from the file so far.
    pos: u64,
    /// Its first bytes (up to [`HEAD`]).
    head: Vec<u8>,
    /// Read but not given yet: the partial last line, or lines that did
    /// not fit the caller's buffer.
    pending: Vec<u8>,
    /// What was given ends in the middle of a line (one longer than
    /// [`HOLD`]).
    mid_line: bool,
    /// Set by the run when a result event arrived.
    finished: Arc<AtomicBool>,
    /// When the file last grew (or the result arrived).
    quiet_since: Option<Instant>,
    notice: Option<Notice>,
    /// The file turned out compressed (there at the start, appeared, or
    /// put in its place): decompressed and read to its end, not followed.
    unpacked: Option<Box<Decompress<File>>>,
    /// The compressed file was read to its end.
    ended: bool,
    /// Its path names no file (deleted, or renamed away), said once.
    gone: bool,
}

impl Follow {
    /// Follow `path`; `finished` is set by whoever sees the session end.
    ///
    /// # Errors
    /// The file cannot be opened.
    pub fn open(path: PathBuf, finished: Arc<AtomicBool>) -> io::Result<Follow> {
        let file = open_file(&path)?;
        let mut f = Follow::waiting(path, finished);
        f.file = Some(file);
        Ok(f)
    }

    /// Follow `path`, which does not exist yet: reads wait until it does.
    pub fn waiting(path: PathBuf, finished: Arc<AtomicBool>) -> Follow {
        Follow {
            path,
            file: None,
            pos: 0,
            head: Vec::new(),
            pending: Vec::new(),
            mid_line: false,
            finished,
            quiet_since: None,
            notice: None,
            unpacked: None,
            ended: false,
            gone: false,
        }
    }

    /// Say through `notice` when the file is read again from its start.
    #[must_use]
    pub fn with_notice(mut self, notice: Notice) -> Follow {
        self.notice = Some(notice);
        self
    }

    /// Why the file must be read again from its start, if it must: it is
    /// shorter than what was read (truncated), its first bytes changed
    /// (truncated and rewritten past the old length between two looks),
    /// or the path names another file (replaced by a rename, re-created).
    fn changed(&mut self) -> io::Result<Option<&'static str>> {
        let Some(file) = self.file.as_ref().filter(|_| self.unpacked.is_none()) else {
            return Ok(None);
        };
        let meta = file.metadata()?;
        if meta.len() < self.pos {
            return Ok(Some("truncated"));
        }
        match std::fs::metadata(&self.path) {
            Ok(now) if !same_file(&now, &meta) => {
                self.gone = false;
                // Not a FIFO that would block the view: an error, said.
                self.file = Some(crate::file::open_regular(&self.path)?);
                return Ok(Some("replaced"));
            }
            Ok(_) => self.gone = false,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !self.gone => {
                // As `tail -F`: what its writer still writes is read, and
                // a file that appears in its place is read from its start.
                self.gone = true;
                if let Some(n) = self.notice.as_mut() {
                    n(
                        "deleted; read on while its writer writes, and a file that appears in its place from its start",
                    );
                }
            }
            Err(_) => {}
        }
        if !self.head.is_empty() && !starts_with(file, &self.head)? {
            return Ok(Some("rewritten"));
        }
        Ok(None)
    }

    /// Read the file again from its start; an unfinished line read from
    /// the old content is dropped (or ended, when part of it was given).
    fn restart(&mut self, why: &str) -> io::Result<()> {
        if let Some(f) = self.file.as_mut() {
            f.seek(SeekFrom::Start(0))?;
        }
        let dropped = !self.pending.is_empty() || self.mid_line;
        self.pending.clear();
        if self.mid_line {
            self.pending.push(b'\n');
            self.mid_line = false;
        }
        self.pos = 0;
        self.head.clear();
        if let Some(n) = self.notice.as_mut() {
            let what = if dropped {
                format!("{why}; reading it again from its start (its unfinished last line dropped)")
            } else {
                format!("{why}; reading it again from its start")
            };
            n(&what);
        }
        Ok(())
    }

    /// Give what is pending into `buf`: complete lines, or all of it when
    /// `all` (the end), or when a partial line outgrew [`HOLD`].
    fn give(&mut self, buf: &mut [u8], all: bool) -> usize {
        let ready = if all || self.pending.len() >= HOLD {
            self.pending.len()
        } else {
            memchr::memrchr(b'\n', &self.pending).map_or(0, |i| i + 1)
        };
        let n = ready.min(buf.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        if n > 0 {
            self.mid_line = buf[n - 1] != b'\n';
        }
        n
    }

    /// Read more of the file into `pending`: the number of bytes read.
    fn fill(&mut self, want: usize) -> io::Result<usize> {
        if self.pos == 0 && self.unpacked.is_none() && !self.unpack()? {
            // Empty, or the start of a magic number so far: not yet.
            return Ok(0);
        }
        let old = self.pending.len();
        let Some(file) = self.file.as_mut() else {
            return Ok(0);
        };
        self.pending.resize(old + want.max(4096), 0);
        let n = match self.unpacked.as_mut() {
            Some(z) => z.read(&mut self.pending[old..]),
            None => file.read(&mut self.pending[old..]),
        };
        if matches!(n, Ok(0)) && self.unpacked.is_some() {
            self.ended = true;
        }
        self.pending.truncate(old + *n.as_ref().unwrap_or(&0));
        let n = n?;
        if self.head.len() < HEAD {
            let room = HEAD - self.head.len();
            let new = &self.pending[old..old + n];
            self.head.extend_from_slice(&new[..new.len().min(room)]);
        }
        self.pos += n as u64;
        Ok(n)
    }

    /// At the file's start: look at its first bytes, as a file read
    /// whole is looked at. Compressed (there at the start, appeared, or
    /// put in the followed file's place by a rotation), it is decompressed
    /// and read to its end, not followed, and said. False while they do not
    /// tell (none yet, or the start of a magic number).
    fn unpack(&mut self) -> io::Result<bool> {
        let Some(file) = self.file.as_ref() else {
            return Ok(false);
        };
        let mut head = [0u8; 4];
        let got = read_head(file, &mut head)?;
        let c = match Compression::sniff(&head[..got]) {
            None => return Ok(false),
            Some(None) => return Ok(true),
            Some(Some(c)) => c,
        };
        // A handle of its own at offset 0 (the file's is there too).
        let mut own = file.try_clone()?;
        own.seek(SeekFrom::Start(0))?;
        self.unpacked = Some(Box::new(Decompress::new(own)));
        if let Some(n) = self.notice.as_mut() {
            n(&format!("{c}-compressed: read to its end, not followed"));
        }
        Ok(true)
    }
}

/// The first bytes of `file` (read at offset 0, the read position
/// unchanged), as many as there are up to `head`'s length.
#[cfg(unix)]
fn read_head(file: &File, head: &mut [u8]) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut got = 0;
    while got < head.len() {
        match file.read_at(&mut head[got..], got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

#[cfg(not(unix))]
fn read_head(_: &File, _: &mut [u8]) -> io::Result<usize> {
    Ok(0)
}

/// True when `file` starts with `head` (read at offset 0, the read
/// position unchanged).
#[cfg(unix)]
fn starts_with(file: &File, head: &[u8]) -> io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let mut now = vec![0; head.len()];
    let mut got = 0;
    while got < now.len() {
        match file.read_at(&mut now[got..], got as u64)? {
            0 => return Ok(false),
            n => got += n,
        }
    }
    Ok(now == head)
}

#[cfg(not(unix))]
fn starts_with(_: &File, _: &[u8]) -> io::Result<bool> {
    Ok(true)
}

/// Open a file to follow: not a directory.
fn open_file(path: &std::path::Path) -> io::Result<File> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    Ok(file)
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.created().ok() == b.created().ok()
}

impl Follow {
    /// One look at the file without waiting: complete lines into `buf`
    /// (`Some(n)`), or `None` at the end of what was written so far (or
    /// before the file exists).
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn poll(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            if self.file.is_none() {
                // Not created yet: look again after a while.
                match open_file(&self.path) {
                    Ok(f) => self.file = Some(f),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                    Err(e) => return Err(e),
                }
                continue;
            }
            let n = self.give(buf, false);
            if n > 0 {
                return Ok(Some(n));
            }
            // Before reading on where the last read ended: the file may
            // have been cut, rewritten or replaced meanwhile (three system
            // calls and a look at its first bytes per read of the file).
            if let Some(why) = self.changed()? {
                self.restart(why)?;
                continue;
            }
            let held = self.pending.len();
            if self.fill(buf.len())? > 0 {
                // Cut or rewritten between the look and the read: what was
                // read may be new content at the old offset.
                if let Some(why) = self.changed()? {
                    self.pending.truncate(held);
                    self.restart(why)?;
                }
                self.quiet_since = None;
                continue;
            }
            return Ok(None);
        }
    }

    /// The session has finished and the file stayed quiet for the grace
    /// period since (the clock starts at the first call).
    fn done(&mut self) -> bool {
        if self.ended {
            return true;
        }
        if !self.finished.load(Ordering::Relaxed) {
            return false;
        }
        let since = *self.quiet_since.get_or_insert_with(Instant::now);
        since.elapsed() >= GRACE
    }

    /// The end: what is held, an unterminated last line too.
    fn give_rest(&mut self, buf: &mut [u8]) -> usize {
        self.give(buf, true)
    }
}

impl Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if let Some(n) = self.poll(buf)? {
                return Ok(n);
            }
            // At the end of what was written so far.
            if self.file.is_some() && self.done() {
                return Ok(self.give_rest(buf));
            }
            std::thread::sleep(POLL);
        }
    }
}

/// `--latest -f`: a session's file and its sub-agents' files
/// (`<session>/subagents/agent-*.jsonl`) followed together, as one input:
/// complete lines of each as they are written, the session's first, and
/// sub-agent files created later picked up (the directory is looked at
/// again every 250 ms). A sub-agent's line thus comes when it was
/// written, under its call, as a live stream shows it. A compressed file
/// among them (`agent-x.jsonl.gz`, or gzip's bytes under a `.jsonl` name)
/// is decompressed and read to its end, as a library reads it. A sub-agent file
/// that is not a regular file (a FIFO, whose `open` would block the view
/// until a writer came) is left unread, as in a library, and said once
/// (one there at the start by the library's walk).
pub struct FollowSession {
    parts: Vec<Follow>,
    /// Sub-agent files left unread.
    unread: Vec<PathBuf>,
    /// Where sub-agent files appear.
    agents: PathBuf,
    finished: Arc<AtomicBool>,
    last_scan: Option<Instant>,
}

/// How often [`FollowSession`] looks for new sub-agent files.
const RESCAN: Duration = Duration::from_millis(250);

impl FollowSession {
    /// Follow the session file `main` and the sub-agent files below
    /// `agents` (which may not exist yet).
    ///
    /// # Errors
    /// `main` cannot be opened.
    pub fn open(main: PathBuf, agents: PathBuf, finished: Arc<AtomicBool>) -> io::Result<Self> {
        let main = Follow::open(main, Arc::clone(&finished))?;
        Ok(FollowSession {
            parts: vec![main],
            unread: Vec::new(),
            agents,
            finished,
            last_scan: None,
        })
    }

    /// Say through `notice` when the session's file is read again from its
    /// start.
    #[must_use]
    pub fn with_notice(mut self, notice: Notice) -> Self {
        if let Some(main) = self.parts.first_mut() {
            main.notice = Some(notice);
        }
        self
    }

    /// Pick up the sub-agent files not followed yet, in the order of their
    /// names.
    fn scan(&mut self) {
        if self.last_scan.is_some_and(|t| t.elapsed() < RESCAN) {
            return;
        }
        // Those there at the start were said by the library's walk.
        let say = self.last_scan.is_some();
        self.last_scan = Some(Instant::now());
        let Ok(dir) = std::fs::read_dir(&self.agents) else {
            return;
        };
        let mut new: Vec<PathBuf> = dir
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                // As the library's walk: `agent-*.jsonl`, compressed or not
                // (in `subagents/`: no agent's store says more of such a file).
                let name = p.file_name().and_then(|n| n.to_str());
                name.is_some_and(|n| n.starts_with("agent-"))
                    && super::library::is_session_file(p, Readers::NONE)
            })
            .filter(|p| !self.parts.iter().any(|f| f.path == *p) && !self.unread.contains(p))
            .collect();
        new.sort();
        for p in new {
            match crate::file::open_regular(&p) {
                Ok(file) => {
                    let mut f = Follow::waiting(p, Arc::clone(&self.finished));
                    f.file = Some(file);
                    self.parts.push(f);
                }
                Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
                    let name = p.file_name().unwrap_or_default().to_string_lossy();
                    let what = format!("sub-agent file {name}: {e}; left unread");
                    let main = self.parts.first_mut().and_then(|m| m.notice.as_mut());
                    if let Some(n) = main.filter(|_| say) {
                        n(&what);
                    }
                    self.unread.push(p);
                }
                Err(_) => {}
            }
        }
    }
}

impl Read for FollowSession {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            self.scan();
            // A part that gave part of a line (one longer than the caller's
            // buffer, or than `HOLD`) keeps the turn until the line ends:
            // another file's lines must not land inside it.
            let turn = self.parts.iter().position(|p| p.mid_line);
            let parts = match turn {
                Some(i) => &mut self.parts[i..=i],
                None => &mut self.parts[..],
            };
            for part in parts {
                if let Some(n) = part.poll(buf)? {
                    return Ok(n);
                }
            }
            // Every file at its end: done once all stayed quiet after the
            // session's result, each unterminated last line ended.
            if self.parts.iter_mut().all(Follow::done) {
                for part in &mut self.parts {
                    let n = part.give_rest(buf);
                    if n > 0 {
                        return Ok(n);
                    }
                    if part.mid_line {
                        // Its last line has no end: ended here, so that
                        // the next file's first line is not glued to it.
                        part.mid_line = false;
                        buf[0] = b'\n';
                        return Ok(1);
                    }
                }
                return Ok(0);
            }
            std::thread::sleep(POLL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_what_is_appended_and_ends_after_the_result() {
        let dir = std::env::temp_dir().join(format!("sv-follow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.jsonl");
        std::fs::write(&path, b"one\n").unwrap();
        let finished = Arc::new(AtomicBool::new(false));
        let mut f = Follow::open(path.clone(), finished.clone()).unwrap();
        let writer = {
            let path = path.clone();
            let finished = finished.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(150));
                let mut w = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                w.write_all(b"two\n").unwrap();
                finished.store(true, Ordering::Relaxed);
            })
        };
        let mut all = Vec::new();
        f.read_to_end(&mut all).unwrap();
        writer.join().unwrap();
        assert_eq!(all, b"one\ntwo\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn waits_for_a_file_that_does_not_exist_yet() {
        let dir = std::env::temp_dir().join(format!("sv-follow-w-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.jsonl");
        let finished = Arc::new(AtomicBool::new(false));
        let (mut f, how) = open(path.clone(), finished.clone(), Box::new(|_: &str| {})).unwrap();
        assert_eq!(how, Opened::Waiting);
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            std::fs::write(&path, b"one\n").unwrap();
            finished.store(true, Ordering::Relaxed);
        });
        let mut all = Vec::new();
        f.read_to_end(&mut all).unwrap();
        writer.join().unwrap();
        assert_eq!(all, b"one\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn starts_over_when_truncated() {
        let dir = std::env::temp_dir().join(format!("sv-follow-t-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.jsonl");
        std::fs::write(&path, b"old line\n").unwrap();
        let finished = Arc::new(AtomicBool::new(false));
        let mut f = Follow::open(path.clone(), finished.clone()).unwrap();
        let mut buf = [0u8; 64];
        let n = f.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"old line\n");
        std::fs::write(&path, b"new\n").unwrap(); // truncates and rewrites
        let n = f.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"new\n");
        finished.store(true, Ordering::Relaxed);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A followed file in a directory of its own, and the notes it gave.
    struct Case {
        dir: PathBuf,
        path: PathBuf,
        finished: Arc<AtomicBool>,
        notes: Arc<std::sync::Mutex<Vec<String>>>,
    }

    impl Case {
        fn new(name: &str, content: &[u8]) -> (Case, Follow) {
            let dir = std::env::temp_dir().join(format!("sv-follow-{name}-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("log.jsonl");
            std::fs::write(&path, content).unwrap();
            let finished = Arc::new(AtomicBool::new(false));
            let notes = Arc::new(std::sync::Mutex::new(Vec::new()));
            let sink = notes.clone();
            let f = Follow::open(path.clone(), finished.clone())
                .unwrap()
                .with_notice(Box::new(move |w: &str| {
                    sink.lock().unwrap().push(w.to_string());
                }));
            let case = Case {
                dir,
                path,
                finished,
                notes,
            };
            (case, f)
        }

        fn notes(&self) -> Vec<String> {
            self.notes.lock().unwrap().clone()
        }
    }

    impl Drop for Case {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn read_some(f: &mut Follow) -> String {
        let mut buf = [0u8; 256];
        let n = f.read(&mut buf).unwrap();
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn starts_over_when_rewritten_longer_between_two_looks() {
        let (case, mut f) = Case::new("rw", b"{\"old\":1}\n");
        assert_eq!(read_some(&mut f), "{\"old\":1}\n");
        // Truncated and rewritten past the old length before the next look
        // (the size alone does not tell).
        let new = "{\"new\":\"a much longer first line than before\"}\n";
        std::fs::write(&case.path, new).unwrap();
        assert_eq!(read_some(&mut f), new);
        assert_eq!(case.notes(), ["rewritten; reading it again from its start"]);
    }

    #[test]
    fn a_partial_line_is_held_and_dropped_when_the_file_is_truncated() {
        let (case, mut f) = Case::new("part", b"one\n{\"cut");
        assert_eq!(read_some(&mut f), "one\n");
        std::fs::write(&case.path, b"x\n").unwrap();
        assert_eq!(read_some(&mut f), "x\n");
        assert_eq!(
            case.notes(),
            ["truncated; reading it again from its start (its unfinished last line dropped)"]
        );
    }

    #[test]
    fn starts_over_when_replaced() {
        let (case, mut f) = Case::new("mv", b"one\n");
        assert_eq!(read_some(&mut f), "one\n");
        let other = case.dir.join("new.jsonl");
        std::fs::write(&other, b"one\ntwo\nthree\n").unwrap();
        std::fs::rename(&other, &case.path).unwrap();
        assert_eq!(read_some(&mut f), "one\ntwo\nthree\n");
        assert_eq!(case.notes(), ["replaced; reading it again from its start"]);
    }

    #[test]
    fn a_line_completed_later_is_given_whole_and_an_unfinished_one_at_the_end() {
        let (case, mut f) = Case::new("late", b"{\"a\":");
        let writer = {
            let path = case.path.clone();
            let finished = case.finished.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(120));
                let mut w = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                w.write_all(b"1}\n{\"b\"").unwrap();
                finished.store(true, Ordering::Relaxed);
            })
        };
        assert_eq!(read_some(&mut f), "{\"a\":1}\n");
        let mut rest = String::new();
        f.read_to_string(&mut rest).unwrap();
        writer.join().unwrap();
        assert_eq!(rest, "{\"b\"");
        assert!(case.notes().is_empty());
    }

    /// Issue: CI saw a session's new lines glued into a sub-agent's line
    /// longer than the reader's buffer (`--latest -f`): a file that gave
    /// part of a line keeps the turn until the line ends, and a last line
    /// without an end is ended before the next file's.
    #[test]
    fn a_session_never_puts_one_files_lines_inside_anothers() {
        let dir = std::env::temp_dir().join(format!("sv-follow-s-{}", std::process::id()));
        let agents = dir.join("s/subagents");
        std::fs::create_dir_all(&agents).unwrap();
        let main = dir.join("s.jsonl");
        std::fs::write(&main, b"m1\n").unwrap();
        let long = format!("{}\n", "a".repeat(40));
        std::fs::write(agents.join("agent-x.jsonl"), format!("{long}{long}")).unwrap();
        let finished = Arc::new(AtomicBool::new(false));
        let mut f = FollowSession::open(main.clone(), agents.clone(), finished.clone()).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 16];
        let mut read = |f: &mut FollowSession, got: &mut Vec<u8>| {
            let n = f.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..n]);
            n
        };
        // The session's line, then the first 16 bytes of the agent's.
        read(&mut f, &mut got);
        read(&mut f, &mut got);
        assert_eq!(got, [&b"m1\n"[..], &[b'a'; 16]].concat());
        // The session grows while the agent's line is half given; the
        // agent's last line ends without a newline.
        let mut w = std::fs::OpenOptions::new()
            .append(true)
            .open(&main)
            .unwrap();
        w.write_all(b"m2\nm3").unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(agents.join("agent-x.jsonl"))
            .unwrap()
            .write_all(b"tail")
            .unwrap();
        finished.store(true, Ordering::Relaxed);
        while read(&mut f, &mut got) > 0 {}
        let mut lines: Vec<&[u8]> = got.split(|&b| b == b'\n').collect();
        lines.sort_unstable();
        let a = &long.as_bytes()[..40];
        assert_eq!(lines, [&b""[..], a, a, b"m1", b"m2", b"m3", b"tail"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
