//! Crush's store: a `SQLite` `crush.db` per project, read as lines of this
//! reader's own, and the `projects.json` that lists the projects.
//!
//! A project's store is in its data folder (`<project>/.crush/`), its
//! tables `sessions` (one row a session,
//! with its tokens and cost in USD) and `messages` (one row a message, its
//! `parts` JSON text: `[{"type": "text", "data": {…}}, …]`). The projects
//! are listed in `projects.json` in Crush's own folder
//! (`$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`,
//! `~/.local/share/crush`): [`projects`] reads that list.
//!
//! Crush prints no JSON stream, so a session is read as lines of this
//! reader's own, each a row as it is, its columns its keys
//! (`decode/crush.rs` reads them):
//!
//! * `{"type": "crush_session", "timestamp", "cwd", "model", …}`: the
//!   `sessions` row (without its `todos`), `timestamp` its `created_at` in
//!   milliseconds, `cwd` the project (the folder that holds `.crush/`),
//!   `model` and `provider` its last assistant message's;
//! * `{"type": "crush_message", "timestamp", …}`: each `messages` row in
//!   the order written, its `parts` parsed (left as text when they are not
//!   JSON);
//! * a sub-agent (a session whose `parent_session_id` is this one, its id
//!   `<message id>$$<call id>`) inside its parent, after the message whose
//!   call ran it: `{"type": "crush_subagent", "call", …}`, its `sessions`
//!   row, then its messages, each with `"call"`, the call that ran it;
//!   sub-agents no call names come at the end.
//!
//! Times are Unix seconds (Crush writes `strftime('%s', 'now')`); a value
//! above 10^11 is taken as milliseconds, as stores of other versions may
//! hold. A value larger than `input::store::MAX_ROW` is left out, said.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Map, Value, json};

use crate::input::store::rows::{line, one, rows};
use crate::input::store::{StoreReader, Stored, bad, open, sql};
use crate::time::Timestamp;

/// The largest `projects.json` read.
const MAX_PROJECTS: u64 = 4 << 20;

/// Sub-agents nested deeper than this are read after the rest.
const MAX_DEPTH: usize = 16;

/// The largest time taken as seconds: later ones are milliseconds.
const SECONDS_BELOW: f64 = 1e11;

/// A `sessions` row: its id, parent, when it began and last changed, and
/// its messages.
type Row = (
    String,
    Option<String>,
    Option<Timestamp>,
    Option<Timestamp>,
    u64,
);

/// The reader of Crush's stores and of its list of them (the registry's
/// entry carries it).
pub(crate) struct Crush;

impl StoreReader for Crush {
    fn is_store(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == "crush.db")
    }

    fn sessions(&self, path: &Path) -> io::Result<Vec<Stored>> {
        sessions(&*open(path)?).map_err(sql)
    }

    fn lines(&self, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
        lines(&*open(path)?, path, id, out)
    }

    fn listed(&self, path: &Path) -> Option<Vec<PathBuf>> {
        projects(path)
    }
}

/// A time as Crush writes it: Unix seconds, or milliseconds above 10^11.
fn time(v: ValueRef<'_>) -> Option<Timestamp> {
    let n = match v {
        ValueRef::Real(f) => f,
        #[allow(clippy::cast_precision_loss)] // exact far beyond 9999
        ValueRef::Integer(n) => n as f64,
        _ => return None,
    };
    let ms = if n.abs() < SECONDS_BELOW {
        n * 1000.0
    } else {
        n
    };
    Timestamp::from_epoch_number(ms.round())
}

/// The sessions that are not sub-agents', oldest first: those whose
/// parent is not in the store, then (parents in a circle) the first of
/// those no such session leads to. Each is dated by its own row and its
/// sub-agents'.
fn sessions(db: &Connection) -> rusqlite::Result<Vec<Stored>> {
    let mut q = db.prepare(
        "SELECT id, parent_session_id, created_at, updated_at, \
         (SELECT count(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s \
         ORDER BY created_at, id",
    )?;
    let mut all: Vec<Row> = q
        .query_map([], |r| {
            let parent = match r.get_ref(1)? {
                ValueRef::Text(t) if !t.is_empty() => Some(String::from_utf8_lossy(t).into()),
                _ => None,
            };
            let messages = r.get::<_, i64>(4)?.unsigned_abs();
            Ok((
                r.get(0)?,
                parent,
                time(r.get_ref(2)?),
                time(r.get_ref(3)?),
                messages,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    // In time order, seconds and milliseconds alike (a stable sort).
    all.sort_by_key(|a| a.2);
    let ids: HashSet<&str> = all.iter().map(|s| s.0.as_str()).collect();
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in all.iter().enumerate() {
        if let Some(p) = s.1.as_deref().filter(|p| ids.contains(p)) {
            children.entry(p).or_default().push(i);
        }
    }
    let is_top = |s: &Row| s.1.as_deref().is_none_or(|p| !ids.contains(p));
    let mut seen = vec![false; all.len()];
    let mut listed = Vec::new();
    let tops = (0..all.len()).filter(|&i| is_top(&all[i]));
    // Sessions in a circle of parents after the others, each circle once.
    for i in tops.chain(0..all.len()) {
        if seen[i] {
            continue;
        }
        let mut updated = all[i].3;
        let mut queue = VecDeque::from([i]);
        seen[i] = true;
        while let Some(at) = queue.pop_front() {
            updated = updated.max(all[at].3);
            for &c in children.get(all[at].0.as_str()).into_iter().flatten() {
                if !std::mem::replace(&mut seen[c], true) {
                    queue.push_back(c);
                }
            }
        }
        listed.push(Stored {
            id: all[i].0.clone(),
            began: all[i].2,
            updated,
            rows: all[i].4,
        });
    }
    Ok(listed)
}

/// The session `id` of the store `db` (the file at `path`) as lines (see
/// the module docs), each written to `out` as it is read.
fn lines(db: &Connection, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
    let mut session = row(db, id)?.ok_or_else(|| bad("no such session"))?;
    let mut w = Writer {
        db,
        out,
        visited: HashSet::from([id.to_string()]),
        deep: Vec::new(),
    };
    put_time(&mut session, "created_at");
    if let Some(cwd) = project(path) {
        session.insert("cwd".into(), cwd.into());
    }
    w.model(&mut session, id);
    line(w.out, "crush_session", session)?;
    w.messages(id, None, 0)?;
    while let Some((child, call)) = w.deep.pop() {
        w.subagent(&child, call, 1)?;
    }
    Ok(())
}

/// The `sessions` row of session `id` (without its `todos`).
fn row(db: &Connection, id: &str) -> io::Result<Option<Map<String, Value>>> {
    one(db, "sessions", "id", id, &["todos"])
}

/// The project a store belongs to: the folder that holds its `.crush/`.
fn project(path: &Path) -> Option<String> {
    let dir = path.parent()?;
    (dir.file_name()? == ".crush").then(|| dir.parent().map(|p| p.display().to_string()))?
}

/// `timestamp` (milliseconds) first, from the time in the column `col`.
fn put_time(row: &mut Map<String, Value>, col: &str) {
    let v = match row.get(col) {
        Some(Value::Number(n)) => n.as_f64(),
        _ => None,
    };
    let ms = v.and_then(|n| time(ValueRef::Real(n)));
    if let Some(ms) = ms {
        row.insert("timestamp".into(), json!(ms.millis()));
    }
}

/// Writes a session's lines.
struct Writer<'a> {
    db: &'a Connection,
    out: &'a mut dyn Write,
    /// Sessions written: each once, whatever their parents say.
    visited: HashSet<String>,
    /// Sub-agents nested deeper than [`MAX_DEPTH`], read at the end.
    deep: Vec<(String, Option<String>)>,
}

impl Writer<'_> {
    /// `model` and `provider` (a column of later versions) of session
    /// `id`'s last assistant message that names its model, when found.
    fn model(&self, row: &mut Map<String, Value>, id: &str) {
        let last = |col: &str| -> Option<String> {
            let sql = format!(
                "SELECT {col} FROM messages WHERE session_id = ?1 AND role = 'assistant' \
                 AND length(model) BETWEEN 1 AND 1000 ORDER BY rowid DESC LIMIT 1"
            );
            (self.db.prepare_cached(&sql))
                .and_then(|mut q| q.query_row([id], |r| r.get::<_, Option<String>>(0)))
                .ok()
                .flatten()
                .filter(|v| v.len() <= 1000)
        };
        if let Some(model) = last("model") {
            row.insert("model".into(), model.into());
            row.insert("provider".into(), last("provider").into());
        }
    }

    /// The messages of session `id` (run by the call `call` when it is a
    /// sub-agent), each followed by the sub-agents its calls ran.
    fn messages(&mut self, id: &str, call: Option<&str>, depth: usize) -> io::Result<()> {
        let db = self.db;
        rows(db, "messages", "session_id", id, &[], |mut m| {
            put_time(&mut m, "created_at");
            if let Some(Value::String(parts)) = m.get("parts")
                && let Ok(parsed @ Value::Array(_)) = serde_json::from_str::<Value>(parts)
            {
                m.insert("parts".into(), parsed);
            }
            if let Some(c) = call {
                m.insert("call".into(), c.into());
            }
            let calls = calls_of(&m);
            let message = m
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            line(self.out, "crush_message", m)?;
            for c in calls {
                let child = format!("{message}$${c}");
                if self.is_child(&child, id).map_err(sql)? {
                    self.subagent(&child, Some(c), depth + 1)?;
                }
            }
            Ok(())
        })?;
        // Sub-agents no call named.
        let mut q = (db.prepare_cached(
            "SELECT id FROM sessions WHERE parent_session_id = ?1 ORDER BY created_at, id",
        ))
        .map_err(sql)?;
        let children: Vec<String> = (q.query_map([id], |r| r.get(0)))
            .and_then(Iterator::collect)
            .map_err(sql)?;
        for child in children {
            let call = child.split_once("$$").map(|(_, c)| c.to_string());
            self.subagent(&child, call, depth + 1)?;
        }
        Ok(())
    }

    /// A sub-agent's row, then its messages (after the rest when nested
    /// too deep).
    fn subagent(&mut self, id: &str, call: Option<String>, depth: usize) -> io::Result<()> {
        if self.visited.contains(id) {
            return Ok(());
        }
        if depth > MAX_DEPTH {
            self.deep.push((id.to_string(), call));
            return Ok(());
        }
        self.visited.insert(id.to_string());
        let Some(mut row) = row(self.db, id)? else {
            return Ok(());
        };
        put_time(&mut row, "created_at");
        self.model(&mut row, id);
        row.insert("call".into(), call.clone().into());
        line(self.out, "crush_subagent", row)?;
        self.messages(id, call.as_deref(), depth)
    }

    /// A session `child` of `parent` is in the store, not yet written.
    fn is_child(&self, child: &str, parent: &str) -> rusqlite::Result<bool> {
        if self.visited.contains(child) {
            return Ok(false);
        }
        let mut q = (self.db).prepare_cached(
            "SELECT count(*) FROM sessions WHERE id = ?1 AND parent_session_id = ?2",
        )?;
        let n: i64 = q.query_row([child, parent], |r| r.get(0))?;
        Ok(n > 0)
    }
}

/// The ids of a message's `tool_call` parts.
fn calls_of(m: &Map<String, Value>) -> Vec<String> {
    let Some(Value::Array(parts)) = m.get("parts") else {
        return Vec::new();
    };
    (parts.iter())
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool_call"))
        .filter_map(|p| p.get("data")?.get("id")?.as_str())
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .collect()
}

/// The stores Crush's `projects.json` at `path` lists that are files
/// (each project's `<data_dir>/crush.db`, a relative `data_dir` under its
/// `path`); `None` when the file is not such a list.
fn projects(path: &Path) -> Option<Vec<PathBuf>> {
    if path.file_name()? != "projects.json" {
        return None;
    }
    let bytes = crate::file::read_small(path, MAX_PROJECTS).ok()?;
    let doc: Value = serde_json::from_slice(&bytes).ok()?;
    let list = doc.as_object()?.get("projects")?.as_array()?;
    let mut stores = Vec::new();
    for p in list {
        let dir = p.get("path").and_then(Value::as_str).unwrap_or("");
        let data = p.get("data_dir").and_then(Value::as_str).unwrap_or("");
        if dir.is_empty() && data.is_empty() {
            continue;
        }
        let data = match data {
            "" => Path::new(dir).join(".crush"),
            d => Path::new(dir).join(d),
        };
        let db = data.join("crush.db");
        if db.is_file() && !stores.contains(&db) {
            stores.push(db);
        }
    }
    Some(stores)
}

#[cfg(test)]
mod tests;
