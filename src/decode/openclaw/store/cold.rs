//! `OpenClaw`'s sessions in cold storage (see the module docs above): each
//! a row of `session_transcript_cold_archives`, its archive in the row or
//! in a file of the agent's `sessions/cold/`, zstd of JSONL records of
//! which the `event`s are the session's entries.

use std::borrow::Cow;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};
use serde::Deserialize;

use super::{COLD_TABLE, MAX_ROW, bad, entries, missing, note};
use crate::file::open_regular;

/// A cold session's row: where its archive is.
struct Row {
    /// `file` or `sqlite`.
    storage: String,
    /// The archive's file name (`<sha-256>.jsonl.zst`), for `file`.
    name: String,
    /// The archive, for `sqlite` (`None`: larger than [`MAX_ROW`]).
    blob: Option<Vec<u8>>,
    /// The archive's size, as the row says.
    bytes: Option<i64>,
}

/// The lines of session `id` in cold storage in the store at `path`.
///
/// # Errors
/// The session is not in cold storage, the query fails, or `out` fails.
pub(super) fn lines(db: &Connection, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
    let row = db
        .query_row(
            &format!(
                "SELECT storage, archive_name, \
                 CASE WHEN length(archive_blob) <= {MAX_ROW} THEN archive_blob END, \
                 coalesce(length(archive_blob), archive_bytes) \
                 FROM {COLD_TABLE} WHERE session_id = ?1"
            ),
            params![id],
            |r| {
                Ok(Row {
                    storage: r.get(0)?,
                    name: r.get(1)?,
                    blob: r.get(2)?,
                    bytes: r.get(3)?,
                })
            },
        )
        .map_err(missing)?;
    let unreadable = |out: &mut dyn Write| note(out, "unreadable", id, row.bytes, COLD_TABLE);
    let read = match (row.storage.as_str(), row.blob.as_deref()) {
        ("sqlite", Some(blob)) => records(blob, out),
        ("sqlite", None) if row.bytes.is_some_and(|n| n > MAX_ROW) => {
            return note(out, "skipped", id, row.bytes, COLD_TABLE);
        }
        ("file", _) => match file(path, &row.name).and_then(|f| open_regular(&f)) {
            Ok(f) => records(f, out),
            Err(_) => return unreadable(out),
        },
        _ => return unreadable(out),
    };
    // What was read before a broken frame stays written.
    read.or_else(|e| match e.kind() {
        io::ErrorKind::BrokenPipe => Err(e),
        _ => unreadable(out),
    })
}

/// The archive's entries, read as it is decompressed.
fn records(archive: impl Read, out: &mut dyn Write) -> io::Result<()> {
    let d = zstd::stream::read::Decoder::new(archive)?;
    entries(BufReader::new(d), out, event)
}

/// A record's entry, when it is an `event` (`None`: another record).
/// A record that is no JSON object, or an event without its entry, is
/// given as it is, so that it is said as not read.
fn event(record: &str) -> Option<Cow<'_, str>> {
    #[derive(Deserialize)]
    struct Record<'a> {
        #[serde(borrow)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow)]
        row: Option<EventRow<'a>>,
    }
    #[derive(Deserialize)]
    struct EventRow<'a> {
        #[serde(borrow)]
        event_json: Option<Cow<'a, str>>,
    }
    let Ok(r) = serde_json::from_str::<Record<'_>>(record) else {
        return Some(Cow::Borrowed(record));
    };
    if r.kind.as_deref() != Some("event") {
        return None;
    }
    Some(
        r.row
            .and_then(|row| row.event_json)
            .unwrap_or(Cow::Borrowed(record)),
    )
}

/// The file of an archive named `name` beside the store at `path`: in
/// `sessions/cold/` of the store's agent (`agents/<agent>/agent/` holds
/// the store), else in `cold/` beside the store. A name that is not
/// `<sha-256>.jsonl.zst` names no file.
fn file(path: &Path, name: &str) -> io::Result<PathBuf> {
    let hex = name.strip_suffix(".jsonl.zst").unwrap_or("");
    let named = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !named {
        return Err(bad("not an archive's name"));
    }
    let dir = path.parent().ok_or_else(|| bad("no folder"))?;
    let dir = match dir.file_name() {
        Some(n) if n == "agent" => dir.parent().unwrap_or(dir).join("sessions"),
        _ => dir.to_path_buf(),
    };
    Ok(dir.join("cold").join(name))
}

/// The file is an archive in an agent's `sessions/cold/`: read through
/// its store, no session of its own.
pub(super) fn is_archive(path: &Path) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    dir.file_name().is_some_and(|n| n == "cold")
        && super::in_sessions(dir)
        && (path.file_name().and_then(|n| n.to_str())).is_some_and(|n| n.ends_with(".jsonl.zst"))
}

#[cfg(test)]
mod tests;
