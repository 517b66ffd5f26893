//! `OpenCode`'s and its fork Kilo's stores: `opencode.db` (`opencode-<channel>.db`)
//! and `kilo.db`, read as the lines of the CLI's own `run --format json`.
//!
//! One database (`~/.local/share/opencode/`, `~/.local/share/kilo/`) holds
//! every session of every project, in the tables `session`, `message` and
//! `part`. A session that is not a sub-agent's is a session of its own
//! ([`Cli::sessions`](StoreReader::sessions)), read as the lines of the
//! CLI's stream, so that the stream's decoder reads it
//! (`decode/opencode.rs`, `decode/kilo.rs`). A `part` row's `data` is the
//! part the stream prints, without the ids the row keeps in columns; the
//! lines add what only the store has:
//!
//! * a first line `{"type":"session", "store", "sessionID", "timestamp",
//!   "directory", "model", "version", "title"}`;
//! * the user's prompts, as `{"type":"prompt", "part"}`;
//! * an assistant message's `error`, as the stream's `error` line;
//! * each sub-agent (a child session, `parent_id` set) inside its parent's
//!   lines: a `task` call is given first as running, then the child's
//!   parts (the line's `sessionID` the parent's, the part's the child's,
//!   as the stream would print them), then the call finished.
//!
//! A row larger than [`MAX_ROW`] is not read: its line says so (`"type":
//! "skipped"`).

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::Path;

use rusqlite::{Connection, params, params_from_iter};
use serde_json::{Map, Value, json};

use crate::input::store::rows::put;
use crate::input::store::{MAX_ROW, StoreReader, Stored, bad, open, sql};
use crate::time::Timestamp;

/// Sub-agents nested deeper than this are read after the rest, not
/// inside their parent's lines (the reader's stack stays small).
const MAX_DEPTH: usize = 16;

/// Which CLI wrote a store: the reader of its stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cli {
    /// `OpenCode`: `opencode.db`, `opencode-<channel>.db`.
    OpenCode,
    /// Kilo CLI: `kilo.db`.
    Kilo,
}

impl StoreReader for Cli {
    fn is_store(&self, path: &Path) -> bool {
        Cli::of(path) == Some(*self)
    }

    fn sessions(&self, path: &Path) -> io::Result<Vec<Stored>> {
        sessions(&*open(path)?).map_err(sql)
    }

    fn lines(&self, path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
        lines(*self, &*open(path)?, id, out)
    }
}

impl Cli {
    /// The CLI whose store a file's name says it is (`None`: not a store).
    fn of(path: &Path) -> Option<Cli> {
        let name = path.file_name()?.to_str()?;
        let stem = name.strip_suffix(".db")?;
        let is =
            |cli: &str| stem == cli || stem.strip_prefix(cli).is_some_and(|c| c.starts_with('-'));
        if is("opencode") {
            Some(Cli::OpenCode)
        } else if is("kilo") {
            Some(Cli::Kilo)
        } else {
            None
        }
    }

    /// What a session's header says of its store (`"store"`).
    fn name(self) -> &'static str {
        match self {
            Cli::OpenCode => "opencode",
            Cli::Kilo => "kilo",
        }
    }

    /// A part as this CLI's stream prints it: the row's `[id, message,
    /// session]` first, in the CLI's order (Kilo names the session
    /// second, which tells its lines from `OpenCode`'s), then its `data`.
    fn part(self, [id, message, session]: [&str; 3], data: &Map<String, Value>) -> String {
        let ids = match self {
            Cli::OpenCode => [("id", id), ("messageID", message), ("sessionID", session)],
            Cli::Kilo => [("id", id), ("sessionID", session), ("messageID", message)],
        };
        let mut out = String::from("{");
        for (k, v) in ids {
            out.push_str(&Value::from(k).to_string());
            out.push(':');
            out.push_str(&Value::from(v).to_string());
            out.push(',');
        }
        let rest: Map<String, Value> = (data.iter())
            .filter(|(k, _)| !matches!(k.as_str(), "id" | "messageID" | "sessionID"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let rest = Value::Object(rest).to_string();
        match rest.strip_prefix('{') {
            Some("}") | None => {
                out.pop();
                out.push('}');
            }
            Some(fields) => out.push_str(fields),
        }
        out
    }
}

/// The sessions of the store `db` that are not sub-agents', oldest first:
/// those without a parent in the store (and, of sessions whose parents go
/// round in a circle, the one with the smallest id).
fn sessions(db: &Connection) -> rusqlite::Result<Vec<Stored>> {
    let mut q = db.prepare(
        "SELECT id, parent_id, time_created, time_updated, \
         (SELECT count(*) FROM part p WHERE p.session_id = s.id) \
         FROM session s ORDER BY time_created, id",
    )?;
    let rows = q.query_map([], |r| {
        let stored = Stored {
            id: r.get(0)?,
            began: r.get::<_, Option<i64>>(2)?.and_then(Timestamp::from_millis),
            updated: r.get::<_, Option<i64>>(3)?.and_then(Timestamp::from_millis),
            // Its own parts (its sub-agents' not counted).
            rows: r.get::<_, i64>(4)?.unsigned_abs(),
        };
        Ok((stored, r.get::<_, Option<String>>(1)?))
    })?;
    let all: Vec<(Stored, Option<String>)> = rows.collect::<Result<_, _>>()?;
    let parent: HashMap<&str, &str> = (all.iter())
        .filter_map(|(s, p)| Some((s.id.as_str(), p.as_deref().filter(|p| !p.is_empty())?)))
        .collect();
    let ids: HashSet<&str> = all.iter().map(|(s, _)| s.id.as_str()).collect();
    let mut roots: HashMap<&str, &str> = HashMap::new();
    for (s, _) in &all {
        root_of(&s.id, &parent, &ids, &mut roots);
    }
    let tops: HashSet<String> = roots.values().map(|r| (*r).to_string()).collect();
    Ok(all
        .into_iter()
        .map(|(s, _)| s)
        .filter(|s| tops.contains(&s.id))
        .collect())
}

/// Record in `roots` the session `id` is read with, and every session on
/// its way there: the last of its ancestors in the store, or in a circle
/// of them, the smallest id. Linear over all sessions: each is walked
/// once.
fn root_of<'a>(
    id: &'a str,
    parent: &HashMap<&'a str, &'a str>,
    ids: &HashSet<&'a str>,
    roots: &mut HashMap<&'a str, &'a str>,
) {
    let mut path: Vec<&'a str> = Vec::new();
    let mut on_path: HashMap<&'a str, usize> = HashMap::new();
    let mut at = id;
    let root = loop {
        if let Some(r) = roots.get(at) {
            break *r;
        }
        if let Some(&i) = on_path.get(at) {
            break path[i..].iter().min().copied().unwrap_or(at);
        }
        on_path.insert(at, path.len());
        path.push(at);
        match parent.get(at) {
            Some(&p) if ids.contains(p) => at = p,
            _ => break at,
        }
    };
    for p in path {
        roots.insert(p, root);
    }
}

/// The session `id` of the store `db` as stream lines (see the module
/// docs), with its sub-agents, as `cli` prints them.
fn lines(cli: Cli, db: &Connection, id: &str, out: &mut dyn Write) -> io::Result<()> {
    let mut out = Writer {
        db,
        cli,
        out,
        visited: HashSet::new(),
        deep: Vec::new(),
    };
    out.header(id)?;
    out.session(id, id, 0)?;
    while let Some(d) = out.deep.pop() {
        out.session(id, &d, 1)?;
    }
    Ok(())
}

/// A row of `message` or `part`.
struct Row {
    id: String,
    message: String,
    session: String,
    updated: Option<i64>,
    /// `data` parsed (`None`: too large, or not a JSON object).
    data: Option<Map<String, Value>>,
    /// Its size, when it was too large to read.
    skipped: Option<i64>,
}

/// Writes a session's lines.
struct Writer<'a> {
    db: &'a Connection,
    cli: Cli,
    out: &'a mut dyn Write,
    /// Sessions written: each once, whatever their `parent_id`s say.
    visited: HashSet<String>,
    /// Sub-agents nested deeper than [`MAX_DEPTH`], read at the end.
    deep: Vec<String>,
}

impl Writer<'_> {
    fn line(&mut self, v: &Value) -> io::Result<()> {
        put(self.out, v)
    }

    /// The first line: what the `session` row says of the session (the
    /// columns a CLI's version has; `model` is JSON, its `id` taken).
    fn header(&mut self, id: &str) -> io::Result<()> {
        let mut q = self
            .db
            .prepare_cached("SELECT * FROM session WHERE id = ?1")
            .map_err(sql)?;
        let names: Vec<String> = q.column_names().iter().map(|n| (*n).to_string()).collect();
        let mut rows = q.query(params![id]).map_err(sql)?;
        let row = rows
            .next()
            .map_err(sql)?
            .ok_or_else(|| bad("no such session"))?;
        let col = |name: &str| -> Value {
            let Some(i) = names.iter().position(|n| n == name) else {
                return Value::Null;
            };
            match row.get_ref(i) {
                Ok(rusqlite::types::ValueRef::Text(t)) => String::from_utf8_lossy(t).into(),
                Ok(rusqlite::types::ValueRef::Integer(n)) => n.into(),
                _ => Value::Null,
            }
        };
        let model = match col("model") {
            Value::String(m) => serde_json::from_str::<Value>(&m)
                .ok()
                .and_then(|m| m.get("id").cloned())
                .unwrap_or(Value::String(m)),
            other => other,
        };
        let header = json!({
            "type": "session",
            "store": self.cli.name(),
            "sessionID": id,
            "timestamp": col("time_created"),
            "directory": col("directory"),
            "model": model,
            "version": col("version"),
            "title": col("title"),
            "agent": col("agent"),
        });
        drop(rows);
        self.line(&header)
    }

    /// The lines of session `id` (the `top` session's or one of its
    /// sub-agents'), message by message.
    fn session(&mut self, top: &str, id: &str, depth: usize) -> io::Result<()> {
        if self.visited.contains(id) {
            return Ok(());
        }
        if depth > MAX_DEPTH {
            // Read after the rest, not nested on the stack.
            self.deep.push(id.to_string());
            return Ok(());
        }
        self.visited.insert(id.to_string());
        let db = self.db;
        let mine = "session_id = ?1 ORDER BY time_created, id";
        rows(db, "message", mine, [id, ""], &mut |m| {
            self.message(top, id, &m, depth)
        })?;
        // Parts of no message listed (a message row missing): at the end.
        let rest = "session_id = ?1 AND message_id NOT IN \
                    (SELECT id FROM message WHERE session_id = ?1) ORDER BY time_updated, id";
        rows(db, "part", rest, [id, ""], &mut |p| {
            self.part(top, p, false, depth)
        })?;
        self.children(top, id, depth)
    }

    /// Message `m` of session `id` (the `top` session's or one of its
    /// sub-agents'): its parts, then its error.
    fn message(&mut self, top: &str, id: &str, m: &Row, depth: usize) -> io::Result<()> {
        let role = m
            .data
            .as_ref()
            .and_then(|d| d.get("role"))
            .and_then(Value::as_str);
        let user = role == Some("user");
        let model = m.data.as_ref().and_then(|d| d.get("modelID")).cloned();
        let db = self.db;
        if role == Some("assistant") && unfinished(m.data.as_ref()) && !has_parts(db, &m.id, id) {
            // A request that never finished (the CLI was stopped): a step
            // begun, so that the session reads as cut short.
            let ids = [m.id.as_str(), m.id.as_str(), id];
            let part = self
                .cli
                .part(ids, &Map::from_iter([("type".into(), "step-start".into())]));
            self.stream_line("step_start", m.updated, top, &part)?;
        }
        let own = "message_id = ?1 AND session_id = ?2 ORDER BY time_created, id";
        rows(db, "part", own, [&m.id, id], &mut |mut p| {
            // A step's tokens are the message's model's (the stream does
            // not say which).
            if let (Some(d), Some(model)) = (p.data.as_mut(), &model)
                && d.get("type").and_then(Value::as_str) == Some("step-finish")
            {
                d.entry("modelID").or_insert_with(|| model.clone());
            }
            self.part(top, p, user, depth)
        })?;
        if let Some(e) = m.data.as_ref().and_then(|d| d.get("error")) {
            self.line(&json!({
                "type": "error",
                "timestamp": m.updated,
                "sessionID": top,
                "error": e,
            }))?;
        }
        Ok(())
    }

    /// The sub-agents of `id` no `task` call named: after its lines.
    fn children(&mut self, top: &str, id: &str, depth: usize) -> io::Result<()> {
        let mut q = self
            .db
            .prepare_cached("SELECT id FROM session WHERE parent_id = ?1 ORDER BY time_created, id")
            .map_err(sql)?;
        let children: Vec<String> = q
            .query_map(params![id], |r| r.get(0))
            .map_err(sql)?
            .collect::<Result<_, _>>()
            .map_err(sql)?;
        for c in children {
            self.session(top, &c, depth + 1)?;
        }
        Ok(())
    }

    /// One part's line (a sub-agent's lines inside a `task` call's).
    fn part(&mut self, top: &str, p: Row, user: bool, depth: usize) -> io::Result<()> {
        let Some(data) = p.data else {
            let why = if p.skipped.is_some() {
                "skipped"
            } else {
                "unreadable"
            };
            self.line(&json!({
                "type": why,
                "timestamp": p.updated,
                "sessionID": top,
                "table": "part",
                "id": p.id,
                "bytes": p.skipped,
            }))?;
            return Ok(());
        };
        let ty = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let child = (ty == "tool")
            .then(|| child_of(&data))
            .flatten()
            .filter(|c| !self.visited.contains(c) && self.exists(c));
        let ty = match ty.as_str() {
            "text" if user => "prompt".to_string(),
            "tool" => "tool_use".to_string(),
            other => other.replace('-', "_"),
        };
        let ids = [p.id.as_str(), p.message.as_str(), p.session.as_str()];
        if let Some(c) = child {
            let part = self.cli.part(ids, &running(&data));
            self.stream_line(&ty, p.updated, top, &part)?;
            self.session(top, &c, depth + 1)?;
        }
        let part = self.cli.part(ids, &data);
        self.stream_line(&ty, p.updated, top, &part)
    }

    /// `{type, timestamp, sessionID, part}`: a line as the stream prints it.
    fn stream_line(
        &mut self,
        ty: &str,
        ts: Option<i64>,
        session: &str,
        part: &str,
    ) -> io::Result<()> {
        let head = json!({ "type": ty, "timestamp": ts, "sessionID": session }).to_string();
        let head = head.strip_suffix('}').unwrap_or(&head); // its `}`
        writeln!(self.out, "{head},\"part\":{part}}}")
    }

    /// A session of that id is in the store.
    fn exists(&self, id: &str) -> bool {
        (self
            .db
            .prepare_cached("SELECT 1 FROM session WHERE id = ?1"))
        .and_then(|mut q| q.query_row(params![id], |_| Ok(())))
        .is_ok()
    }
}

/// Each row of `table` (`message` or `part`) that `pick` picks, in its
/// order (`?1`, `?2`: `args`), given to `each` as it is read.
fn rows(
    db: &Connection,
    table: &str,
    pick: &str,
    args: [&str; 2],
    each: &mut dyn FnMut(Row) -> io::Result<()>,
) -> io::Result<()> {
    let message = if table == "part" { "message_id" } else { "id" };
    let sql_text = format!(
        "SELECT id, {message}, time_updated, length(data), \
         CASE WHEN length(data) <= {MAX_ROW} THEN data END, session_id \
         FROM {table} WHERE {pick}"
    );
    let mut q = db.prepare_cached(&sql_text).map_err(sql)?;
    let n = q.parameter_count();
    let mut rows = q.query(params_from_iter(&args[..n])).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let row = (|| {
            let len: Option<i64> = r.get(3)?;
            let data: Option<String> = r.get(4)?;
            Ok(Row {
                id: r.get(0)?,
                message: r.get(1)?,
                session: r.get(5)?,
                updated: r.get(2)?,
                data: data.and_then(|d| match serde_json::from_str(&d) {
                    Ok(Value::Object(m)) => Some(m),
                    _ => None,
                }),
                skipped: len.filter(|n| *n > MAX_ROW),
            })
        })()
        .map_err(sql)?;
        each(row)?;
    }
    Ok(())
}

/// Message `message` of session `id` has parts.
fn has_parts(db: &Connection, message: &str, id: &str) -> bool {
    (db.prepare_cached("SELECT 1 FROM part WHERE message_id = ?1 AND session_id = ?2 LIMIT 1"))
        .and_then(|mut q| q.query_row(params![message, id], |_| Ok(())))
        .is_ok()
}

/// An assistant message with neither an end nor an error.
fn unfinished(data: Option<&Map<String, Value>>) -> bool {
    let Some(d) = data else {
        return false;
    };
    let completed = d.get("time").and_then(|t| t.get("completed")).is_some();
    !completed && d.get("finish").is_none() && d.get("error").is_none()
}

/// The child session a `task` call ran (`state.metadata.sessionId`).
fn child_of(data: &Map<String, Value>) -> Option<String> {
    let meta = data.get("state")?.get("metadata")?;
    let id = meta.get("sessionId").or_else(|| meta.get("sessionID"))?;
    id.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

/// The call as it was while it ran: its input, no outcome.
fn running(data: &Map<String, Value>) -> Map<String, Value> {
    let mut d = data.clone();
    if let Some(Value::Object(state)) = d.get_mut("state") {
        state.insert("status".into(), "running".into());
        state.remove("output");
        state.remove("error");
    }
    d
}

#[cfg(test)]
mod tests;
