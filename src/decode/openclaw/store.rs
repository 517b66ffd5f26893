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
//! Both are marked too (`"store": "openclaw"`), so that a session whose
//! only line is one of them is still read as `OpenClaw`'s.
//!
//! A session deleted or reset leaves `transcript_events` for
//! `session_transcript_archives` (hours later): its archive, JSONL of the
//! same entries, plain or zstd, is a session of the store too, named
//! `archive:<generation>:<session id>` (its tokens were spent).
//!
//! A session left alone for long (`session.maintenance.coldStorage`, 30
//! days by default) leaves `transcript_events` for cold storage: a row of
//! `session_transcript_cold_archives` says where its archive is, in the
//! row (`storage` `sqlite`, `archive_blob`) or in a file of the agent's
//! `sessions/cold/` (`storage` `file`, named `<sha-256>.jsonl.zst`). The
//! archive is zstd of JSONL records: a `{"kind":"header"}`, then
//! `{"kind":"event","row":{"seq","event_json","created_at"}}` for each
//! entry, among records of `OpenClaw`'s own indexes (`identity`, `active`,
//! `index`, `fts`), which are not read. The session is one of the store,
//! named `cold:<session id>`, its entries read as they are decompressed;
//! a record that is not JSON is one line saying so, and an archive that
//! is missing or not zstd is one such line. The files in `sessions/cold/`
//! are no sessions of their own.

use std::borrow::Cow;
use std::io::{self, BufRead, Read, Write};
use std::path::Path;

use rusqlite::{Connection, params};
use serde_json::json;

use crate::input::marks::{begins, put_first};
use crate::input::store::{MAX_ROW, StoreReader, Stored, bad, missing, open, rows, sql};
use crate::time::Timestamp;

/// What `OpenClaw`'s store readers add to the session header (and to a
/// line saying what was not read), which `decode/openclaw.rs` looks for.
pub(crate) const STORE: &str = "openclaw";

/// What marks an `OpenClaw` session's header: its lines are not Pi's.
const MARK: &[u8] = br#""store":"openclaw","#;

/// What names an archived session among the store's sessions:
/// `archive:<generation>:<session id>`.
const ARCHIVE: &str = "archive:";

/// What names a session in cold storage among the store's sessions:
/// `cold:<session id>`.
const COLD: &str = "cold:";

/// The reader of `OpenClaw`'s stores and session files (the registry's
/// entry carries it).
pub(crate) struct OpenClaw;

impl StoreReader for OpenClaw {
    fn is_store(&self, path: &Path) -> bool {
        path.file_name()
            .is_some_and(|n| n == "openclaw-agent.sqlite")
    }

    fn sessions(&self, path: &Path) -> io::Result<Vec<Stored>> {
        sessions(&*open(path)?).map_err(sql)
    }

    fn lines(&self, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
        let db = open(path)?;
        match id.strip_prefix(COLD) {
            Some(cold) => cold_lines(&db, path, cold, out),
            None => lines(&db, id, out),
        }
    }

    fn keeps_session(&self, path: &Path) -> bool {
        is_session(path)
    }

    fn no_session(&self, path: &Path, _name: &str) -> bool {
        is_trajectory(path) || is_cold_archive(path)
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
/// left that table for `session_transcript_archives`, then those in cold
/// storage (`COLD` ids; older stores have neither table).
fn sessions(db: &Connection) -> rusqlite::Result<Vec<Stored>> {
    let mut q = db.prepare(
        "SELECT session_id, min(created_at), max(created_at), count(*) FROM transcript_events \
         GROUP BY session_id ORDER BY 2, 1",
    )?;
    let rows = q.query_map([], |r| {
        Ok(Stored {
            id: r.get(0)?,
            began: r.get::<_, Option<i64>>(1)?.and_then(Timestamp::from_millis),
            updated: r.get::<_, Option<i64>>(2)?.and_then(Timestamp::from_millis),
            rows: r.get::<_, i64>(3)?.unsigned_abs(),
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
                // One archive, at most `MAX_ROW` bytes: held whole anyway.
                rows: 1,
            })
        })?;
        all.extend(rows.collect::<Result<Vec<_>, _>>()?);
    }
    if let Ok(mut q) = db.prepare(&format!(
        "SELECT session_id, archived_at, event_count FROM {} \
         ORDER BY archived_at, session_id",
        cold::TABLE
    )) {
        let rows = q.query_map([], |r| {
            Ok(Stored {
                id: format!("{COLD}{}", r.get::<_, String>(0)?),
                began: None,
                updated: r.get::<_, Option<i64>>(1)?.and_then(Timestamp::from_millis),
                // As the row says: the archive may hold any number.
                rows: r
                    .get::<_, Option<i64>>(2)?
                    .map_or(u64::MAX, i64::unsigned_abs),
            })
        })?;
        all.extend(rows.collect::<Result<Vec<_>, _>>()?);
    }
    Ok(all)
}

/// The session `id` of the store `db` as lines (see the module docs),
/// each written to `out` as it is read.
fn lines(db: &Connection, id: &str, out: &mut dyn Write) -> io::Result<()> {
    if let Some(archived) = id.strip_prefix(ARCHIVE) {
        return archive(db, archived, out);
    }
    // Older stores have no `event_zstd` column.
    let zstd = db
        .prepare_cached("SELECT event_zstd FROM transcript_events LIMIT 0")
        .is_ok();
    let compressed = if zstd {
        format!("CASE WHEN length(event_zstd) <= {MAX_ROW} THEN event_zstd END")
    } else {
        "NULL".to_string()
    };
    let mut q = db
        .prepare_cached(&format!(
            "SELECT seq, CASE WHEN length(event_json) <= {MAX_ROW} THEN event_json END, \
             {compressed}, coalesce(length(event_json), {}) \
             FROM transcript_events WHERE session_id = ?1 ORDER BY seq",
            if zstd { "length(event_zstd)" } else { "NULL" }
        ))
        .map_err(sql)?;
    let mut rows = q.query(params![id]).map_err(sql)?;
    let mut any = false;
    while let Some(r) = rows.next().map_err(sql)? {
        any = true;
        let got = |i| r.get_ref(i).map_err(sql);
        let seq = got(0)?.as_i64().unwrap_or_default().to_string();
        let text = got(1)?.as_str_or_null().ok().flatten();
        let packed = got(2)?.as_blob_or_null().ok().flatten();
        let bytes = got(3)?.as_i64_or_null().ok().flatten();
        let unpacked = if text.is_none() {
            packed.and_then(unpack)
        } else {
            None
        };
        match text.or(unpacked.as_deref()) {
            Some(t) if t.trim_start().starts_with('{') => put(out, t)?,
            Some(_) => note(out, "unreadable", &seq, bytes, TABLE)?,
            None if packed.is_some() => note(out, "unreadable", &seq, bytes, TABLE)?,
            None => note(out, "skipped", &seq, bytes, TABLE)?,
        }
    }
    if !any {
        return Err(bad("no such session"));
    }
    Ok(())
}

/// An archived session (`<generation>:<session id>`): its archive's text,
/// JSONL of its entries (`encoding` `identity`, or `zstd`), as lines, the
/// header marked. An archive larger than [`MAX_ROW`], or not readable, is
/// one line saying so.
fn archive(db: &Connection, archived: &str, out: &mut dyn Write) -> io::Result<()> {
    const ARCHIVES: &str = "session_transcript_archives";
    let (generation, id) = archived
        .split_once(':')
        .ok_or_else(|| bad("no such session"))?;
    let (encoding, blob, bytes): (String, Option<Vec<u8>>, Option<i64>) = db
        .query_row(
            &format!(
                "SELECT encoding, CASE WHEN length(archive_blob) <= {MAX_ROW} \
                 THEN archive_blob END, length(archive_blob) FROM {ARCHIVES} \
                 WHERE session_id = ?1 AND generation = ?2"
            ),
            params![id, generation],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .map_err(missing)?;
    let Some(blob) = blob else {
        return note(out, "skipped", archived, bytes, ARCHIVES);
    };
    let read = if encoding == "zstd" {
        match zstd::stream::read::Decoder::new(blob.as_slice()) {
            Ok(d) => entries(io::BufReader::new(d), out, whole),
            Err(e) => Err(e),
        }
    } else {
        entries(blob.as_slice(), out, whole)
    };
    said_unread(read, out, archived, bytes, ARCHIVES)
}

/// The session `id` in cold storage in the store `db` (the file at
/// `path`) as lines: its archive's events, read as it is decompressed. An
/// archive not read is one line saying so; one cut short, after what came
/// before the cut.
fn cold_lines(db: &Connection, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
    let (archive, bytes) = cold::open(db, path, id)?;
    let read = match archive {
        cold::Archive::Records(records) => entries(records, out, cold::event),
        cold::Archive::TooLarge => return note(out, "skipped", id, bytes, cold::TABLE),
        cold::Archive::Unreadable => Err(bad("not readable")),
    };
    said_unread(read, out, id, bytes, cold::TABLE)
}

/// `read`, an archive's lines written, or when it broke off (after what
/// came before), one line saying the archive `id` of `table` was not read
/// whole; a reader gone is no archive's fault, and ends the writing.
fn said_unread(
    read: io::Result<()>,
    out: &mut dyn Write,
    id: &str,
    bytes: Option<i64>,
    table: &str,
) -> io::Result<()> {
    read.or_else(|e| match e.kind() {
        io::ErrorKind::BrokenPipe => Err(e),
        _ => note(out, "unreadable", id, bytes, table),
    })
}

/// A line that is an entry, as it is.
#[allow(clippy::unnecessary_wraps)] // as `entries` asks
fn whole(line: &str) -> Option<Cow<'_, str>> {
    Some(Cow::Borrowed(line))
}

/// Each line of `text`, JSONL of entries (or of records that hold them,
/// `entry` giving each record's entry, `None`: no entry), as lines (see
/// [`put`]), read as it is decompressed. A line longer than [`MAX_ROW`]
/// is one line saying so; an empty line is skipped.
///
/// # Errors
/// `text` is not what it says (a zstd frame that is not one), or `out`
/// fails. Lines before the error are written.
fn entries(
    mut text: impl BufRead,
    out: &mut dyn Write,
    entry: impl Fn(&str) -> Option<Cow<'_, str>>,
) -> io::Result<()> {
    let limit = u64::try_from(MAX_ROW).unwrap_or(u64::MAX);
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        let read = (&mut text).take(limit + 1).read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(());
        }
        if line.last() != Some(&b'\n') && read as u64 > limit {
            // Too long: the rest of it skipped.
            let mut skip = read as u64;
            while !line.ends_with(b"\n") {
                line.clear();
                let more = (&mut text).take(1 << 16).read_until(b'\n', &mut line)?;
                if more == 0 {
                    break;
                }
                skip += more as u64;
            }
            note(
                out,
                "skipped",
                &n.to_string(),
                i64::try_from(skip).ok(),
                "line",
            )?;
            continue;
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            note(out, "unreadable", &n.to_string(), None, "line")?;
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        match entry(text).as_deref() {
            Some(e) if e.trim_start().starts_with('{') => put(out, e.trim_end())?,
            Some(_) => note(out, "unreadable", &n.to_string(), None, "line")?,
            None => {}
        }
    }
    Ok(())
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
fn put(out: &mut dyn Write, entry: &str) -> io::Result<()> {
    let marked;
    let mut entry = entry.as_bytes();
    if is_session_header(entry) {
        marked = put_first(entry, MARK);
        entry = &marked;
    }
    while let Some(at) = entry.iter().position(|b| matches!(*b, b'\n' | b'\r')) {
        out.write_all(&entry[..at])?;
        out.write_all(b" ")?;
        entry = &entry[at + 1..];
    }
    out.write_all(entry)?;
    out.write_all(b"\n")
}

/// The table of the entries.
const TABLE: &str = "transcript_events";

/// A row `id` of `table` not read, said as a line of its own.
fn note(
    out: &mut dyn Write,
    why: &str,
    id: &str,
    bytes: Option<i64>,
    table: &str,
) -> io::Result<()> {
    let line = json!({
        "type": why,
        "store": STORE,
        "table": table,
        "id": id,
        "bytes": bytes,
    });
    rows::put(out, &line)
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

/// The file is an archive in an agent's `sessions/cold/`: read through
/// its store, no session of its own.
fn is_cold_archive(path: &Path) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    dir.file_name().is_some_and(|n| n == "cold")
        && in_sessions(dir)
        && (path.file_name().and_then(|n| n.to_str())).is_some_and(|n| n.ends_with(".jsonl.zst"))
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

mod cold;

#[cfg(test)]
mod tests;
