//! A table's rows as JSON objects, each column a key, and lines made of
//! them, for the stores read as lines of their reader's own.
//!
//! A value larger than [`MAX_ROW`] is left out, said (`"skipped":
//! {column: bytes}`); a `BLOB` is left out.

use std::io::{self, Write};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};
use serde_json::{Map, Value, json};

use super::stored::MAX_ROW;
use super::{bad, sql};

/// `timestamp` (milliseconds) first, from `seconds`.
pub fn put_time(row: &mut Map<String, Value>, seconds: Option<f64>) {
    let ms = seconds.map(|s| (s * 1000.0).round());
    if let Some(ms) = ms.filter(|ms| ms.is_finite()) {
        row.insert("timestamp".into(), json!(ms));
    }
}

/// One line: `{"type": ty, …row}`.
///
/// # Errors
/// `out` fails.
pub fn line(out: &mut dyn Write, ty: &str, row: Map<String, Value>) -> io::Result<()> {
    let mut v = Map::new();
    v.insert("type".into(), ty.into());
    if let Some(t) = row.get("timestamp") {
        v.insert("timestamp".into(), t.clone());
    }
    v.extend(row);
    put(out, &Value::Object(v))
}

/// `v` as a line of its own.
///
/// # Errors
/// `out` fails.
pub fn put(out: &mut dyn Write, v: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, v)?;
    out.write_all(b"\n")
}

/// The store has a table so named.
#[must_use]
pub fn has_table(db: &Connection, table: &str) -> bool {
    (db.prepare_cached("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1"))
        .and_then(|mut q| q.query_row(params![table], |_| Ok(())))
        .is_ok()
}

/// The row of `table` whose `key` is `id` (the last, were there several),
/// as [`rows`] gives it; `None`: no such row.
///
/// # Errors
/// As [`rows`].
pub fn one(
    db: &Connection,
    table: &str,
    key: &str,
    id: &str,
    leave: &[&str],
) -> io::Result<Option<Map<String, Value>>> {
    let mut found = None;
    rows(db, table, key, id, leave, |row| {
        found = Some(row);
        Ok(())
    })?;
    Ok(found)
}

/// Each row of `table` whose `key` is `id`, in the order written (by
/// `rowid`), given to `each` as its columns (those in `leave` left out; a
/// value larger than [`MAX_ROW`] said in `skipped`) as it is read.
///
/// # Errors
/// The table is not there (or has no column but those left out), the
/// query fails, or `each` fails.
pub fn rows(
    db: &Connection,
    table: &str,
    key: &str,
    id: &str,
    leave: &[&str],
    mut each: impl FnMut(Map<String, Value>) -> io::Result<()>,
) -> io::Result<()> {
    rows_of(db, table, key, id, leave, &mut each)
}

/// [`rows`], `each` not generic.
fn rows_of(
    db: &Connection,
    table: &str,
    key: &str,
    id: &str,
    leave: &[&str],
    each: &mut dyn FnMut(Map<String, Value>) -> io::Result<()>,
) -> io::Result<()> {
    let mut cols = Vec::new();
    {
        let mut q = (db.prepare_cached(&format!("SELECT name FROM pragma_table_info('{table}')")))
            .map_err(sql)?;
        let names = q.query_map([], |r| r.get::<_, String>(0)).map_err(sql)?;
        for n in names {
            let n = n.map_err(sql)?;
            if !leave.contains(&n.as_str()) {
                cols.push(n);
            }
        }
    }
    if cols.is_empty() {
        return Err(bad(&format!("no table {table}")));
    }
    let quoted = |c: &str| format!("\"{}\"", c.replace('"', "\"\""));
    let select: Vec<String> = (cols.iter())
        .map(|c| {
            let c = quoted(c);
            format!("CASE WHEN length({c}) <= {MAX_ROW} THEN {c} END, length({c})")
        })
        .collect();
    // The rows found by the key's index, then read in `rowid` order: a
    // sort of the rows themselves would copy every column of every row
    // into a temporary file first.
    let query = format!(
        "SELECT {} FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE {} = ?1) \
         ORDER BY rowid",
        select.join(", "),
        quoted(key)
    );
    let mut q = db.prepare_cached(&query).map_err(sql)?;
    let mut rows = q.query(params![id]).map_err(sql)?;
    while let Some(r) = rows.next().map_err(sql)? {
        let mut row = Map::new();
        let mut skipped = Map::new();
        for (i, c) in cols.iter().enumerate() {
            let v = match r.get_ref(2 * i).map_err(sql)? {
                ValueRef::Null => match r.get_ref(2 * i + 1).map_err(sql)? {
                    ValueRef::Integer(n) if n > MAX_ROW => {
                        skipped.insert(c.clone(), n.into());
                        continue;
                    }
                    _ => Value::Null,
                },
                ValueRef::Integer(n) => n.into(),
                ValueRef::Real(f) => json!(f),
                ValueRef::Text(t) => String::from_utf8_lossy(t).into(),
                ValueRef::Blob(_) => continue,
            };
            row.insert(c.clone(), v);
        }
        if !skipped.is_empty() {
            row.insert("skipped".into(), Value::Object(skipped));
        }
        each(row)?;
    }
    Ok(())
}
