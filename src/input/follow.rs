//! `--follow`: read a log file that another process is still writing, like
//! `tail -f` from the beginning.
//!
//! A file that does not exist yet is waited for, like `tail -F`: the agent
//! may not have created its log when streamview starts.
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
use std::time::{Duration, Instant};

use super::{Compression, Decompress};

/// How often to look for new data at the end of the file.
const POLL: Duration = Duration::from_millis(50);

/// How long the file must stay quiet after a result before following ends.
const GRACE: Duration = Duration::from_millis(1500);

/// How [`open`] reads the file, for the run to tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// Followed.
    Followed,
    /// Not there yet: waited for, then followed.
    Waiting,
    /// Compressed: read once to its end, not followed.
    NotFollowed(Compression),
}

/// Open `path` for `--follow`. A file that does not exist yet is waited
/// for. A compressed file is not followed: its writer (`gzip`) emits blocks
/// long after the lines in them were written, and a compressed log is
/// usually a finished, rotated one. It is read once to its end instead,
/// decompressed.
///
/// # Errors
/// The file cannot be opened or read (other than by not existing).
pub fn open(
    path: PathBuf,
    finished: Arc<AtomicBool>,
) -> io::Result<(Box<dyn Read + Send>, Opened)> {
    match Compression::of_file(&path) {
        Ok(Some(c)) => {
            let file = File::open(&path)?;
            return Ok((Box::new(Decompress::new(file)), Opened::NotFollowed(c)));
        }
        Ok(None) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok((Box::new(Follow::waiting(path, finished)), Opened::Waiting));
        }
        Err(e) => return Err(e),
    }
    Ok((Box::new(Follow::open(path, finished)?), Opened::Followed))
}

/// A `Read` over a growing file.
pub struct Follow {
    path: PathBuf,
    /// `None` until the file exists.
    file: Option<File>,
    pos: u64,
    /// Set by the run when a result event arrived.
    finished: Arc<AtomicBool>,
    /// When the file last grew (or the result arrived).
    quiet_since: Option<Instant>,
}

impl Follow {
    /// Follow `path`; `finished` is set by whoever sees the session end.
    ///
    /// # Errors
    /// The file cannot be opened.
    pub fn open(path: PathBuf, finished: Arc<AtomicBool>) -> io::Result<Follow> {
        let file = open_file(&path)?;
        Ok(Follow {
            path,
            file: Some(file),
            pos: 0,
            finished,
            quiet_since: None,
        })
    }

    /// Follow `path`, which does not exist yet: reads wait until it does.
    pub fn waiting(path: PathBuf, finished: Arc<AtomicBool>) -> Follow {
        Follow {
            path,
            file: None,
            pos: 0,
            finished,
            quiet_since: None,
        }
    }

    /// The file at the path is another one (replaced by a rename or
    /// re-created): switch to it, from its beginning.
    fn reopen_if_replaced(&mut self, cur: &std::fs::Metadata) -> io::Result<bool> {
        let Ok(now) = std::fs::metadata(&self.path) else {
            return Ok(false);
        };
        if same_file(&now, cur) {
            return Ok(false);
        }
        self.file = Some(File::open(&self.path)?);
        self.pos = 0;
        Ok(true)
    }
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

impl Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(file) = self.file.as_mut() else {
                // Not created yet: look again after a while.
                match open_file(&self.path) {
                    Ok(f) => self.file = Some(f),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => std::thread::sleep(POLL),
                    Err(e) => return Err(e),
                }
                continue;
            };
            let n = file.read(buf)?;
            if n > 0 {
                self.pos += n as u64;
                self.quiet_since = None;
                return Ok(n);
            }
            // At the end of what was written so far.
            let meta = file.metadata()?;
            if meta.len() < self.pos {
                // Truncated (`> session.jsonl` again): start over.
                file.seek(SeekFrom::Start(0))?;
                self.pos = 0;
                continue;
            }
            if self.reopen_if_replaced(&meta)? {
                continue;
            }
            if self.finished.load(Ordering::Relaxed) {
                let since = *self.quiet_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= GRACE {
                    return Ok(0);
                }
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
        let (mut f, how) = open(path.clone(), finished.clone()).unwrap();
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
}
