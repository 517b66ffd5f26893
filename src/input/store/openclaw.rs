//! `OpenClaw`'s store: each agent's database
//! `~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite` (`--state-dir`,
//! `$OPENCLAW_STATE_DIR` move `~/.openclaw`), whose `transcript_events`
//! table holds each session's transcript, an entry a row (`event_json`, in
//! `seq` order), and the older JSONL files of the same entries,
//! `agents/<agent>/sessions/<id>.jsonl` (and the `.jsonl.deleted.<time>`,
//! `.jsonl.reset.<time>` `OpenClaw` keeps of a session deleted or reset).
//!
//! The entries are Pi's saved session's, header included, so both readers
//! mark the header: `"store": "openclaw"` is put first in it, which tells
//! `decode/openclaw.rs` (and not Pi's decoder) that the lines are
//! `OpenClaw`'s. A row is given as it is, else:
//!
//! * an entry kept compressed (`event_zstd`, `event_json` NULL: a large
//!   one, since 2026.9.6) is given decompressed;
//! * an entry larger than [`MAX_ROW`], compressed or not:
//!   `{"type": "skipped", "table", "id", "bytes"}`, said as not read;
//! * an entry whose text is no JSON object (or no zstd frame):
//!   `{"type": "unreadable", …}`.

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use rusqlite::{Connection, params};
use serde_json::json;

use crate::time::Timestamp;

use super::stored::{MAX_ROW, Stored};

/// The mark put first in a session's header (see the module docs).
const MARK: &[u8] = br#""store":"openclaw","#;

/// The longest first line looked at for a header to mark.
const MAX_HEADER: u64 = 64 << 10;

/// Every session of the store, oldest first.
pub(super) fn sessions(db: &Connection) -> rusqlite::Result<Vec<Stored>> {
    let mut q = db.prepare(
        "SELECT session_id, min(created_at), max(created_at) FROM transcript_events \
         GROUP BY session_id ORDER BY 2, 1",
    )?;
    let rows = q.query_map([], |r| {
        Ok(Stored {
            id: r.get(0)?,
            began: r.get::<_, Option<i64>>(1)?.and_then(Timestamp::from_millis),
            updated: r.get::<_, Option<i64>>(2)?.and_then(Timestamp::from_millis),
        })
    })?;
    rows.collect()
}

/// The session `id` of the store `db` as lines (see the module docs).
pub(super) fn lines(db: &Connection, id: &str) -> rusqlite::Result<Vec<u8>> {
    // Older stores have no `event_zstd` column.
    let zstd = db
        .prepare("SELECT event_zstd FROM transcript_events LIMIT 0")
        .is_ok();
    let compressed = if zstd {
        format!("CASE WHEN length(event_zstd) <= {MAX_ROW} THEN event_zstd END")
    } else {
        "NULL".to_string()
    };
    let mut q = db.prepare(&format!(
        "SELECT seq, CASE WHEN length(event_json) <= {MAX_ROW} THEN event_json END, \
         {compressed}, coalesce(length(event_json), {}) \
         FROM transcript_events WHERE session_id = ?1 ORDER BY seq",
        if zstd { "length(event_zstd)" } else { "NULL" }
    ))?;
    let mut rows = q.query(params![id])?;
    let mut out = Vec::new();
    let mut any = false;
    while let Some(r) = rows.next()? {
        any = true;
        let seq: i64 = r.get(0)?;
        let text: Option<String> = r.get(1)?;
        let packed: Option<Vec<u8>> = r.get(2)?;
        let bytes: Option<i64> = r.get(3)?;
        let text = text.or_else(|| packed.as_deref().and_then(unpack));
        match text {
            Some(t) if t.trim_start().starts_with('{') => put(&mut out, &t),
            Some(_) => note(&mut out, "unreadable", seq, bytes),
            None if packed.is_some() => note(&mut out, "unreadable", seq, bytes),
            None => note(&mut out, "skipped", seq, bytes),
        }
    }
    if !any {
        return Err(rusqlite::Error::QueryReturnedNoRows);
    }
    Ok(out)
}

/// A compressed entry's text (a zstd frame of UTF-8 JSON), read up to
/// [`MAX_ROW`] bytes: `None` when it is not one, or larger.
fn unpack(packed: &[u8]) -> Option<String> {
    let d = zstd::stream::read::Decoder::new(packed).ok()?;
    let mut text = Vec::new();
    let limit = u64::try_from(MAX_ROW).unwrap_or(u64::MAX);
    d.take(limit + 1).read_to_end(&mut text).ok()?;
    if text.len() as u64 > limit {
        return None;
    }
    String::from_utf8(text).ok()
}

/// An entry as a line: its line breaks (none in JSON `OpenClaw` writes)
/// read as spaces, the header marked.
fn put(out: &mut Vec<u8>, entry: &str) {
    let from = out.len();
    if is_header(entry.as_bytes()) {
        out.extend_from_slice(&mark(entry.as_bytes()));
    } else {
        out.extend_from_slice(entry.as_bytes());
    }
    for b in &mut out[from..] {
        if matches!(*b, b'\n' | b'\r') {
            *b = b' ';
        }
    }
    out.push(b'\n');
}

/// A row not read, said as a line of its own.
fn note(out: &mut Vec<u8>, why: &str, seq: i64, bytes: Option<i64>) {
    let line = json!({
        "type": why,
        "table": "transcript_events",
        "id": seq.to_string(),
        "bytes": bytes,
    });
    // A `Value` always serializes.
    let _ = serde_json::to_writer(&mut *out, &line);
    out.push(b'\n');
}

/// The line is a session's header: `{"type":"session"` first.
fn is_header(line: &[u8]) -> bool {
    let rest = line.trim_ascii_start();
    let Some(rest) = rest.strip_prefix(b"{") else {
        return false;
    };
    rest.trim_ascii_start().starts_with(br#""type":"session""#)
}

/// `line` with [`MARK`] put first in its object.
fn mark(line: &[u8]) -> Vec<u8> {
    let at = line.iter().position(|&b| b == b'{').map_or(0, |i| i + 1);
    let mut out = Vec::with_capacity(line.len() + MARK.len());
    out.extend_from_slice(&line[..at]);
    out.extend_from_slice(MARK);
    out.extend_from_slice(&line[at..]);
    out
}

/// The file is one of `OpenClaw`'s older JSONL sessions:
/// `agents/<agent>/sessions/<id>.jsonl`, or such a file kept after its
/// session was deleted or reset (`.jsonl.deleted.<time>`,
/// `.jsonl.reset.<time>`).
#[must_use]
pub fn is_session_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let kept = |what: &str| {
        name.split_once(&format!(".jsonl.{what}."))
            .is_some_and(|(stem, _)| !stem.is_empty())
    };
    let jsonl = Path::new(name).extension().is_some_and(|e| e == "jsonl");
    let named = jsonl || kept("deleted") || kept("reset");
    let sessions = path.parent();
    let agents = sessions.and_then(Path::parent).and_then(Path::parent);
    named && dir_named(sessions, "sessions") && dir_named(agents, "agents")
}

/// `dir` is a folder named `name`.
fn dir_named(dir: Option<&Path>, name: &str) -> bool {
    dir.and_then(Path::file_name).is_some_and(|n| n == name)
}

/// `rdr`, the file at `path`'s bytes, with its header marked when it is
/// one of `OpenClaw`'s JSONL sessions ([`is_session_file`]); as it is
/// otherwise.
pub(crate) fn marked<R: Read + Send + 'static>(path: &Path, rdr: R) -> Box<dyn Read + Send> {
    if !is_session_file(path) {
        return Box::new(rdr);
    }
    let mut rdr = BufReader::new(rdr);
    let mut first = Vec::new();
    // A first line too long, or unreadable, is left as it is.
    if (&mut rdr)
        .take(MAX_HEADER)
        .read_until(b'\n', &mut first)
        .is_err()
    {
        return Box::new(io::Cursor::new(first).chain(rdr));
    }
    mark_head(path, &mut first);
    Box::new(io::Cursor::new(first).chain(rdr))
}

/// `head`, the first bytes of the file at `path`, with its header marked
/// when it is one of `OpenClaw`'s JSONL sessions (for a reader that
/// takes the file's bytes as they come: `--top`).
pub fn mark_head(path: &Path, head: &mut Vec<u8>) {
    if is_session_file(path) && is_header(head) {
        *head = mark(head);
    }
}
