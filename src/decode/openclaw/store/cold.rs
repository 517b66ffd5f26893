//! `OpenClaw`'s sessions in cold storage (see the module docs above): each
//! a row of `session_transcript_cold_archives`, its archive in the row or
//! in a file of the agent's `sessions/cold/`, zstd of JSONL records of
//! which the `event`s are the session's entries.

use std::borrow::Cow;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};
use serde::Deserialize;

use crate::file::open_regular;
use crate::input::store::{MAX_ROW, bad, missing};

/// The table of the sessions in cold storage.
pub(super) const TABLE: &str = "session_transcript_cold_archives";

/// A cold session's archive, as its row says where it is.
pub(super) enum Archive {
    /// Its records, decompressed as they are read.
    Records(Box<dyn BufRead>),
    /// Kept in its row, larger than [`MAX_ROW`]: not read.
    TooLarge,
    /// Missing, not a regular file, not where the row says, or not zstd.
    Unreadable,
}

/// The archive of session `id` in cold storage in the store `db` (the file
/// at `path`), and its size as its row says.
///
/// # Errors
/// The session is not in cold storage, or the query fails.
pub(super) fn open(db: &Connection, path: &Path, id: &str) -> io::Result<(Archive, Option<i64>)> {
    let (storage, name, blob, bytes): (String, String, Option<Vec<u8>>, Option<i64>) = db
        .query_row(
            &format!(
                "SELECT storage, archive_name, \
                 CASE WHEN length(archive_blob) <= {MAX_ROW} THEN archive_blob END, \
                 coalesce(length(archive_blob), archive_bytes) \
                 FROM {TABLE} WHERE session_id = ?1"
            ),
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .map_err(missing)?;
    let archive = match (storage.as_str(), blob) {
        ("sqlite", Some(blob)) => records(Cursor::new(blob)),
        ("sqlite", None) if bytes.is_some_and(|n| n > MAX_ROW) => Archive::TooLarge,
        ("file", _) => match file(path, &name).and_then(|f| open_regular(&f)) {
            Ok(f) => records(f),
            Err(_) => Archive::Unreadable,
        },
        _ => Archive::Unreadable,
    };
    Ok((archive, bytes))
}

/// An archive's records, read as it is decompressed.
pub(super) fn records(archive: impl Read + 'static) -> Archive {
    match zstd::stream::read::Decoder::new(archive) {
        Ok(d) => Archive::Records(Box::new(BufReader::new(d))),
        Err(_) => Archive::Unreadable,
    }
}

/// A record's entry, when it is an `event` (`None`: another record).
/// A record that is no JSON object, or an event without its entry, is
/// given as it is, so that it is said as not read.
pub(super) fn event(record: &str) -> Option<Cow<'_, str>> {
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

#[cfg(test)]
mod tests;
