//! Directories named as inputs: the session files below them, in the order
//! the sessions began.
//!
//! Agents keep their past sessions as files in a tree: Claude Code in
//! `~/.claude/projects/<project>/<session>.jsonl`, each sub-agent in
//! `<session>/subagents/agent-*.jsonl`; Codex in
//! `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`. [`sessions_below`] walks
//! a directory (recursively, symbolic links to directories not followed, so
//! a loop cannot trap it) and keeps the files named `*.jsonl`, `*.ndjson`
//! or either with `.gz` or `.zst` after it; any other file is counted and
//! left alone.
//!
//! Order: by the time each session began, the first `"timestamp":"…"` in
//! the first [`HEAD`] bytes of the file (transcripts, rollouts and Gemini
//! streams carry one on their first lines), else the file's modification
//! time; ties by path. A sub-agent file goes with its session's file (the
//! `<session>.jsonl` beside its `<session>/` folder), in its own start
//! order: the two are read as one input ([`Session::open`]), as
//! `cat main.jsonl subagents/*.jsonl` gives them, so that the transcript
//! reader nests each sub-agent under its call.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::Decompress;

/// Bytes read from the start of a file to find when its session began.
pub const HEAD: usize = 64 << 10;

/// A session's file and the files of its sub-agents, read as one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The session's file (or a sub-agent file whose session's is not there).
    pub file: PathBuf,
    /// Its sub-agents' files, in the order they began.
    pub subagents: Vec<PathBuf>,
}

impl Session {
    /// The files one after the other, as `cat` gives them (same line
    /// numbers), except that a file not ending with a line break gets one
    /// (its last line would be glued to the next file's first).
    /// Compressed files are decompressed.
    ///
    /// # Errors
    /// The session's file cannot be opened; a sub-agent file that cannot
    /// is left out.
    pub fn open(&self) -> io::Result<Box<dyn Read + Send>> {
        let first = Decompress::new(fs::File::open(&self.file)?);
        let mut rdr: Box<dyn Read + Send> = Box::new(LineEnded::new(first));
        for f in &self.subagents {
            if let Ok(file) = fs::File::open(f) {
                rdr = Box::new(rdr.chain(LineEnded::new(Decompress::new(file))));
            }
        }
        Ok(rdr)
    }

    /// Files in the session: 1 and its sub-agents.
    #[must_use]
    pub fn files(&self) -> usize {
        1 + self.subagents.len()
    }
}

/// A reader whose bytes end with a line break unless there are none.
struct LineEnded<R> {
    inner: R,
    /// The last byte given was a line break (or none was given).
    ended: bool,
    done: bool,
}

impl<R: Read> LineEnded<R> {
    fn new(inner: R) -> Self {
        LineEnded {
            inner,
            ended: true,
            done: false,
        }
    }
}

impl<R: Read> Read for LineEnded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.ended = buf[n - 1] == b'\n';
            return Ok(n);
        }
        self.done = true;
        if self.ended {
            return Ok(0);
        }
        buf[0] = b'\n';
        Ok(1)
    }
}

/// What a walk found below one directory.
#[derive(Debug, Default)]
pub struct Found {
    /// Sessions, in the order they are to be read.
    pub sessions: Vec<Session>,
    /// Other files, left alone.
    pub other_files: u64,
    /// Directories that could not be listed, with why.
    pub unreadable: Vec<(PathBuf, io::Error)>,
}

/// The session files below `dir` (see the module docs).
#[must_use]
pub fn sessions_below(dir: &Path) -> Found {
    let mut found = Found::default();
    let mut pending = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = pending.pop() {
        let entries = match fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) => {
                found.unreadable.push((d, e));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // Not followed: a link to a directory could make a loop.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(path);
            } else if is_session_file(&path) && fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                files.push(path);
            } else {
                found.other_files += 1;
            }
        }
    }
    found.sessions = in_start_order(&files);
    found
}

/// The session whose files changed last (`None`: there is none).
#[must_use]
pub fn latest(sessions: impl IntoIterator<Item = Session>) -> Option<Session> {
    let changed = |s: &Session| {
        std::iter::once(&s.file)
            .chain(&s.subagents)
            .filter_map(|f| fs::metadata(f).and_then(|m| m.modified()).ok())
            .max()
            .unwrap_or(UNIX_EPOCH)
    };
    sessions
        .into_iter()
        .map(|s| (changed(&s), s))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, s)| s)
}

/// A name that session files have: `*.jsonl` or `*.ndjson`, compressed
/// (`.gz`, `.zst`) or not.
#[must_use]
pub fn is_session_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let name = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(&name);
    let ext = Path::new(name).extension();
    ext.is_some_and(|e| e == "jsonl" || e == "ndjson")
}

/// `files` as sessions sorted by start time, each with its sub-agents.
fn in_start_order(files: &[PathBuf]) -> Vec<Session> {
    let set: HashSet<&Path> = files.iter().map(PathBuf::as_path).collect();
    let starts: HashMap<&Path, String> =
        files.iter().map(|f| (f.as_path(), start_time(f))).collect();
    // Each file under its session's (its own when it is one).
    let mut keyed: Vec<(&str, &Path, bool, &str, &Path)> = files
        .iter()
        .map(|f| {
            let session = parent_session(f)
                .and_then(|p| set.get(p.as_path()).copied())
                .unwrap_or(f);
            let start = starts[session].as_str();
            (
                start,
                session,
                session != f,
                starts[f.as_path()].as_str(),
                f.as_path(),
            )
        })
        .collect();
    // The session first, then its sub-agents by their start.
    keyed.sort_unstable();
    let mut sessions: Vec<Session> = Vec::new();
    for (_, _, sub, _, f) in keyed {
        match sessions.last_mut() {
            Some(s) if sub => s.subagents.push(f.to_path_buf()),
            _ => sessions.push(Session {
                file: f.to_path_buf(),
                subagents: Vec::new(),
            }),
        }
    }
    sessions
}

/// For `<dir>/<session>/subagents/agent-x.jsonl`, `<dir>/<session>.jsonl`.
fn parent_session(file: &Path) -> Option<PathBuf> {
    let subagents = file.parent()?;
    if subagents.file_name()? != "subagents" {
        return None;
    }
    let session = subagents.parent()?;
    Some(session.with_extension("jsonl"))
}

/// When the session of `file` began, as text that sorts by time
/// (`2026-11-24T10:00:00.000Z`).
fn start_time(file: &Path) -> String {
    first_timestamp(file).unwrap_or_else(|| {
        let modified = fs::metadata(file).and_then(|m| m.modified());
        rfc3339(modified.unwrap_or(UNIX_EPOCH))
    })
}

/// The first `"timestamp":"YYYY-MM-DDThh:mm:ss…"` in the head of `file`.
fn first_timestamp(file: &Path) -> Option<String> {
    let f = fs::File::open(file).ok()?;
    let mut head = Vec::with_capacity(HEAD);
    Decompress::new(f)
        .take(HEAD as u64)
        .read_to_end(&mut head)
        .ok()?;
    let mut at = 0;
    let key = b"\"timestamp\":\"";
    while let Some(i) = memchr::memmem::find(&head[at..], key) {
        let from = at + i + key.len();
        let value = head.get(from..from + 19)?;
        if looks_like_a_time(value) {
            let end = head[from..]
                .iter()
                .position(|&b| b == b'"')
                .map_or(head.len(), |e| from + e);
            return Some(normalized(&String::from_utf8_lossy(&head[from..end])));
        }
        at = from;
    }
    None
}

/// `YYYY-MM-DDThh:mm:ss` (or a space for the `T`).
fn looks_like_a_time(v: &[u8]) -> bool {
    v.iter().enumerate().all(|(i, &b)| match i {
        4 | 7 => b == b'-',
        10 => b == b'T' || b == b' ',
        13 | 16 => b == b':',
        _ => b.is_ascii_digit(),
    })
}

/// A time with its fraction to milliseconds, so that times sort as text
/// (`…:05Z` and `…:05.120Z` alike).
fn normalized(t: &str) -> String {
    let (secs, rest) = t.split_at(19.min(t.len()));
    let frac: String = rest
        .strip_prefix('.')
        .unwrap_or("")
        .chars()
        .take_while(char::is_ascii_digit)
        .chain(std::iter::repeat('0'))
        .take(3)
        .collect();
    format!(
        "{}T{}.{frac}Z",
        &secs[..10.min(secs.len())],
        secs.get(11..).unwrap_or("")
    )
}

/// `t` as `YYYY-MM-DDThh:mm:ss.mmmZ` (UTC).
fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (y, m, day) = civil_from_days(secs / 86_400);
    let s = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        s / 3600,
        s / 60 % 60,
        s % 60,
        d.subsec_millis()
    )
}

/// Days since 1970-01-01 as a date (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests;
