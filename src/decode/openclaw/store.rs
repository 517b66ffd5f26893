//! `OpenClaw`'s store: each agent's database of its sessions' transcripts,
//! and the older JSONL files of the same entries, their headers marked.
//!
//! Each agent's database is
//! `~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite` (`--state-dir`,
//! `$OPENCLAW_STATE_DIR` move `~/.openclaw`), whose `transcript_events`
//! table holds each session's transcript, an entry a row (`event_json`, in
//! `seq` order); the JSONL files are `agents/<agent>/sessions/<id>.jsonl`
//! (and the `.jsonl.deleted.<time>`, `.jsonl.reset.<time>` `OpenClaw` keeps
//! of a session deleted or reset; its runtime traces beside them,
//! `<id>.trajectory.jsonl`, are no sessions).
//!
//! The entries are Pi's saved session's, header included, so both are
//! marked (a row as it is read, a file's first line as the library opens
//! it: [`StoreReader::mark_head`]): `"store": "openclaw"` is put first in
//! the header, which tells `decode/openclaw.rs` (and not Pi's decoder) that
//! the lines are `OpenClaw`'s. A row is given as it is, else:
//!
//! * an entry kept compressed (`event_zstd`, `event_json` NULL: a large
//!   one, since 2026.9.6) is given decompressed;
//! * an entry larger than [`MAX_ROW`], compressed or not:
//!   `{"type": "skipped", "table", "id", "bytes"}`, said as not read;
//! * an entry whose text is no JSON object (or no zstd frame):
//!   `{"type": "unreadable", …}`.
//!
//! A session deleted or reset leaves `transcript_events` for
//! `session_transcript_archives` (hours later): its archive, JSONL of the
//! same entries, plain or zstd, is a session of the store too, named
//! `archive:<generation>:<session id>` (its tokens were spent). Cold
//! archives (`session_transcript_cold_archives`) are not read: no store
//! seen holds one.

use std::io::{self, Read};
use std::path::Path;

use rusqlite::{Connection, params};
use serde_json::json;

use crate::input::marks::{begins, put_first};
use crate::input::store::{MAX_ROW, StoreReader, Stored, missing, open, sql};
use crate::time::Timestamp;

/// What marks an `OpenClaw` session's header: its lines are not Pi's.
const MARK: &[u8] = br#""store":"openclaw","#;

/// What names an archived session among the store's sessions:
/// `archive:<generation>:<session id>`.
const ARCHIVE: &str = "archive:";

/// The reader of `OpenClaw`'s stores and session files (the registry's
/// entry carries it).
pub(crate) struct OpenClaw;

impl StoreReader for OpenClaw {
    fn is_store(&self, path: &Path) -> bool {
        path.file_name()
            .is_some_and(|n| n == "openclaw-agent.sqlite")
    }

    fn sessions(&self, path: &Path) -> io::Result<Vec<Stored>> {
        sessions(&open(path)?).map_err(sql)
    }

    fn lines(&self, path: &Path, id: &str) -> io::Result<Vec<u8>> {
        lines(&open(path)?, id).map_err(missing)
    }

    fn keeps_session(&self, path: &Path) -> bool {
        is_session(path)
    }

    fn no_session(&self, path: &Path, _name: &str) -> bool {
        is_trajectory(path)
    }

    fn marks(&self, path: &Path) -> bool {
        is_session(path)
    }

    fn mark_head(&self, _path: &Path, head: &mut Vec<u8>) {
        if is_session_header(head) {
            *head = put_first(head, MARK);
        }
    }
}

/// Every session of the store, oldest first: those of `transcript_events`,
/// then the archives of sessions deleted or reset (`ARCHIVE` ids), which
/// left that table for `session_transcript_archives` (older stores have
/// no such table).
fn sessions(db: &Connection) -> rusqlite::Result<Vec<Stored>> {
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
    let mut all: Vec<Stored> = rows.collect::<Result<_, _>>()?;
    if let Ok(mut q) = db.prepare(
        "SELECT generation, session_id, created_at FROM session_transcript_archives \
         ORDER BY created_at, session_id, generation",
    ) {
        let rows = q.query_map([], |r| {
            let (generation, id): (String, String) = (r.get(0)?, r.get(1)?);
            let at = r.get::<_, Option<i64>>(2)?.and_then(Timestamp::from_millis);
            Ok(Stored {
                id: format!("{ARCHIVE}{generation}:{id}"),
                began: None,
                updated: at,
            })
        })?;
        all.extend(rows.collect::<Result<Vec<_>, _>>()?);
    }
    Ok(all)
}

/// The session `id` of the store `db` as lines (see the module docs).
fn lines(db: &Connection, id: &str) -> rusqlite::Result<Vec<u8>> {
    if let Some(archived) = id.strip_prefix(ARCHIVE) {
        return archive(db, archived);
    }
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
            Some(_) => note(&mut out, "unreadable", &seq.to_string(), bytes, TABLE),
            None if packed.is_some() => {
                note(&mut out, "unreadable", &seq.to_string(), bytes, TABLE);
            }
            None => note(&mut out, "skipped", &seq.to_string(), bytes, TABLE),
        }
    }
    if !any {
        return Err(rusqlite::Error::QueryReturnedNoRows);
    }
    Ok(out)
}

/// An archived session (`<generation>:<session id>`): its archive's text,
/// JSONL of its entries (`encoding` `identity`, or `zstd`), as lines, the
/// header marked. An archive larger than [`MAX_ROW`], or not readable, is
/// one line saying so.
fn archive(db: &Connection, archived: &str) -> rusqlite::Result<Vec<u8>> {
    let (generation, id) = archived
        .split_once(':')
        .ok_or(rusqlite::Error::QueryReturnedNoRows)?;
    let (encoding, blob, bytes): (String, Option<Vec<u8>>, Option<i64>) = db.query_row(
        &format!(
            "SELECT encoding, CASE WHEN length(archive_blob) <= {MAX_ROW} THEN archive_blob END, \
             length(archive_blob) FROM session_transcript_archives \
             WHERE session_id = ?1 AND generation = ?2"
        ),
        params![id, generation],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let mut out = Vec::new();
    let text = match (encoding.as_str(), blob.as_deref()) {
        ("zstd", Some(b)) => unpack(b),
        (_, Some(b)) => String::from_utf8(b.to_vec()).ok(),
        (_, None) => {
            note(
                &mut out,
                "skipped",
                archived,
                bytes,
                "session_transcript_archives",
            );
            return Ok(out);
        }
    };
    let Some(text) = text else {
        note(
            &mut out,
            "unreadable",
            archived,
            bytes,
            "session_transcript_archives",
        );
        return Ok(out);
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        put(&mut out, line);
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
    if is_session_header(entry.as_bytes()) {
        out.extend_from_slice(&put_first(entry.as_bytes(), MARK));
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

/// The table of the entries.
const TABLE: &str = "transcript_events";

/// A row `id` of `table` not read, said as a line of its own.
fn note(out: &mut Vec<u8>, why: &str, id: &str, bytes: Option<i64>, table: &str) {
    let line = json!({
        "type": why,
        "table": table,
        "id": id,
        "bytes": bytes,
    });
    // A `Value` always serializes.
    let _ = serde_json::to_writer(&mut *out, &line);
    out.push(b'\n');
}

/// The file is one of `OpenClaw`'s JSONL sessions:
/// `agents/<agent>/sessions/<id>.jsonl`, or such a file kept after its
/// session was deleted or reset (`.jsonl.deleted.<time>`,
/// `.jsonl.reset.<time>`).
fn is_session(path: &Path) -> bool {
    // The place first: asked of every file a walk finds.
    if !in_sessions(path) {
        return false;
    }
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let kept = |mark: &str| {
        name.split_once(mark)
            .is_some_and(|(stem, _)| !stem.is_empty())
    };
    let jsonl = Path::new(name).extension().is_some_and(|e| e == "jsonl");
    (jsonl || kept(".jsonl.deleted.") || kept(".jsonl.reset.")) && !name.contains(".trajectory")
}

/// The file is one of the runtime traces `OpenClaw` keeps beside its
/// sessions (`<id>.trajectory.jsonl`): no session of its own.
fn is_trajectory(path: &Path) -> bool {
    in_sessions(path)
        && (path.file_name().and_then(|n| n.to_str())).is_some_and(|n| n.contains(".trajectory"))
}

/// The file is in `agents/<agent>/sessions/`.
fn in_sessions(path: &Path) -> bool {
    let sessions = path.parent();
    let agents = sessions.and_then(Path::parent).and_then(Path::parent);
    dir_named(sessions, "sessions") && dir_named(agents, "agents")
}

/// `dir` is a folder named `name`.
fn dir_named(dir: Option<&Path>, name: &str) -> bool {
    dir.and_then(Path::file_name).is_some_and(|n| n == name)
}

/// The line is a Pi-style session header: `{"type":"session"` first.
fn is_session_header(line: &[u8]) -> bool {
    begins(line, br#""type":"session""#)
}

#[cfg(test)]
mod tests;
