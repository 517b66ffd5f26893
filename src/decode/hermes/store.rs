//! Hermes Agent's store: `$HERMES_HOME/state.db` (`~/.hermes`), one `SQLite`
//! database of every session, read as lines of this reader's own.
//!
//! A profile's store is `profiles/<name>/state.db`. The database holds the
//! tables `sessions`, `messages` and `session_model_usage`; the request an
//! API error ended is kept beside it as
//! `sessions/request_dump_<session id>_<time>.json` (the only record of the
//! error: the store keeps just the prompt).
//!
//! Hermes prints no JSON, so a session is read as lines of this reader's
//! own, each a row as it is, its columns its keys (`decode/hermes.rs` reads
//! them):
//!
//! * `{"type": "hermes_session", "timestamp", …}`: the `sessions` row
//!   (without its system prompt), `timestamp` its `started_at` in
//!   milliseconds;
//! * `{"type": "hermes_message", "timestamp", …}`: each `messages` row in
//!   the order written, its `tool_calls` JSON text parsed, and a tool's
//!   `content` when it is a JSON object;
//! * `{"type": "hermes_usage", …}`: each `session_model_usage` row;
//! * `{"type": "hermes_error", "file", "reason", "error"}`: each request
//!   dump of the session (`error` as Hermes wrote it; the request left
//!   out), or `{"type": "hermes_error", "file", "unreadable"}`.
//!
//! A value larger than `input::store::MAX_ROW` is left out, said
//! (`"skipped": {column: bytes}`).

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

use crate::input::store::rows::{has_table, line, one, put_time, rows};
use crate::input::store::{StoreReader, Stored, bad, open, sql};
use crate::time::Timestamp;

/// The largest request dump read (its request holds the whole prompt).
const MAX_DUMP: u64 = 64 << 20;

/// The reader of Hermes Agent's stores (the registry's entry carries it).
pub(crate) struct Hermes;

impl StoreReader for Hermes {
    fn is_store(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == "state.db")
    }

    fn sessions(&self, path: &Path) -> io::Result<Vec<Stored>> {
        sessions(&*open(path)?).map_err(sql)
    }

    fn lines(&self, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
        lines(&*open(path)?, path, id, out)
    }
}

/// Every session of the store, oldest first.
fn sessions(db: &Connection) -> rusqlite::Result<Vec<Stored>> {
    let mut q = db.prepare(
        "SELECT id, started_at, \
         coalesce(ended_at, (SELECT max(timestamp) FROM messages m WHERE m.session_id = s.id)), \
         (SELECT count(*) FROM messages m WHERE m.session_id = s.id) \
         FROM sessions s ORDER BY started_at, id",
    )?;
    let rows = q.query_map([], |r| {
        Ok(Stored {
            id: r.get(0)?,
            began: seconds(r.get_ref(1)?),
            updated: seconds(r.get_ref(2)?),
            rows: r.get::<_, i64>(3)?.unsigned_abs(),
        })
    })?;
    rows.collect()
}

/// A time in seconds since the epoch (a float), as a [`Timestamp`].
fn seconds(v: ValueRef<'_>) -> Option<Timestamp> {
    let s = match v {
        ValueRef::Real(f) => f,
        #[allow(clippy::cast_precision_loss)] // seconds: exact far beyond 9999
        ValueRef::Integer(n) => n as f64,
        _ => return None,
    };
    Timestamp::from_epoch_number((s * 1000.0).round())
}

/// The session `id` of the store `db` (the file at `path`) as lines (see
/// the module docs), each written to `out` as it is read.
fn lines(db: &Connection, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
    let session = one(db, "sessions", "id", id, &["system_prompt"])?;
    let mut session = session.ok_or_else(|| bad("no such session"))?;
    let began = session.get("started_at").and_then(Value::as_f64);
    put_time(&mut session, began);
    line(out, "hermes_session", session)?;
    rows(db, "messages", "session_id", id, &[], |mut m| {
        let at = m.get("timestamp").and_then(Value::as_f64);
        put_time(&mut m, at);
        if let Some(Value::String(calls)) = m.get("tool_calls")
            && let Ok(parsed) = serde_json::from_str::<Value>(calls)
        {
            m.insert("tool_calls".into(), parsed);
        }
        // A tool's result is JSON text of the tool's own, mostly.
        if m.get("role").and_then(Value::as_str) == Some("tool")
            && let Some(Value::String(content)) = m.get("content")
            && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(content)
        {
            m.insert("content".into(), parsed);
        }
        line(out, "hermes_message", m)
    })?;
    // Older stores have no such table: no usage rows.
    if has_table(db, "session_model_usage") {
        rows(db, "session_model_usage", "session_id", id, &[], |u| {
            line(out, "hermes_usage", u)
        })?;
    }
    for dump in dumps(path, id) {
        line(out, "hermes_error", dump)?;
    }
    Ok(())
}

/// The request dumps of session `id` beside the store at `path`
/// (`sessions/request_dump_<id>_<time>.json`), in the order of their
/// names: the error each says, without the request.
fn dumps(path: &Path, id: &str) -> Vec<Map<String, Value>> {
    let Some(dir) = path.parent().map(|d| d.join("sessions")) else {
        return Vec::new();
    };
    let prefix = format!("request_dump_{id}_");
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(&prefix) && Path::new(n).extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let read = crate::file::read_small(&dir.join(&name), MAX_DUMP)
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
            let mut out = Map::new();
            out.insert("file".into(), name.into());
            match read {
                Some(Value::Object(d)) => {
                    for k in ["session_id", "reason", "error"] {
                        if let Some(v) = d.get(k) {
                            out.insert(k.into(), v.clone());
                        }
                    }
                }
                _ => {
                    out.insert("unreadable".into(), true.into());
                }
            }
            out
        })
        .collect()
}
