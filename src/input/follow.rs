//! `--follow`: read a log file that another process is still writing, like
//! `tail -f` from the beginning.
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

/// Open `path` for `--follow`. A compressed file is not followed: its
/// writer (`gzip`) emits blocks long after the lines in them were written,
/// and a compressed log is usually a finished, rotated one. It is read once
/// to its end instead, decompressed, and its compression returned so that
/// the run can say so.
///
/// # Errors
/// The file cannot be opened or read.
pub fn open(
    path: PathBuf,
    finished: Arc<AtomicBool>,
) -> io::Result<(Box<dyn Read + Send>, Option<Compression>)> {
    if let Some(c) = Compression::of_file(&path)? {
        return Ok((Box::new(Decompress::new(File::open(&path)?)), Some(c)));
    }
    Ok((Box::new(Follow::open(path, finished)?), None))
}

/// A `Read` over a growing file.
pub struct Follow {
    path: PathBuf,
    file: File,
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
        let file = File::open(&path)?;
        if file.metadata()?.is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        Ok(Follow {
            path,
            file,
            pos: 0,
            finished,
            quiet_since: None,
        })
    }

    /// The file at the path is another one (replaced by a rename or
    /// re-created): switch to it, from its beginning.
    fn reopen_if_replaced(&mut self) -> io::Result<bool> {
        let Ok(now) = std::fs::metadata(&self.path) else {
            return Ok(false);
        };
        let cur = self.file.metadata()?;
        if same_file(&now, &cur) {
            return Ok(false);
        }
        self.file = File::open(&self.path)?;
        self.pos = 0;
        Ok(true)
    }
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
            let n = self.file.read(buf)?;
            if n > 0 {
                self.pos += n as u64;
                self.quiet_since = None;
                return Ok(n);
            }
            // At the end of what was written so far.
            let len = self.file.metadata()?.len();
            if len < self.pos {
                // Truncated (`> session.jsonl` again): start over.
                self.file.seek(SeekFrom::Start(0))?;
                self.pos = 0;
                continue;
            }
            if self.reopen_if_replaced()? {
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
