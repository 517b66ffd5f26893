//! A table's rows as JSON objects, each column a key, and lines made of
//! them, for the stores read as lines of their reader's own.
//!
//! A value larger than [`MAX_ROW`] is left out, said (`"skipped":
//! {column: bytes}`); a `BLOB` is left out.

use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};
use serde_json::{Map, Value, json};

use super::stored::MAX_ROW;

/// `timestamp` (milliseconds) first, from `seconds`.
pub fn put_time(row: &mut Map<String, Value>, seconds: Option<f64>) {
    let ms = seconds.map(|s| (s * 1000.0).round());
    if let Some(ms) = ms.filter(|ms| ms.is_finite()) {
        row.insert("timestamp".into(), json!(ms));
    }
}

/// One line: `{"type": ty, …row}`.
pub fn line(out: &mut Vec<u8>, ty: &str, row: Map<String, Value>) {
    let mut v = Map::new();
    v.insert("type".into(), ty.into());
    if let Some(t) = row.get("timestamp") {
        v.insert("timestamp".into(), t.clone());
    }
    v.extend(row);
    // A `Value` always serializes.
    let _ = serde_json::to_writer(&mut *out, &Value::Object(v));
    out.push(b'\n');
}

/// The rows of `table` whose `key` is `id`, in the order written (by
/// `rowid`), each as its columns (those in `leave` left out; a value
/// larger than [`MAX_ROW`] said in `skipped`).
///
/// # Errors
/// The table is not there (or has no column but those left out), or the
/// query fails.
pub fn rows(
    db: &Connection,
    table: &str,
    key: &str,
    id: &str,
    leave: &[&str],
) -> rusqlite::Result<Vec<Map<String, Value>>> {
    let mut cols = Vec::new();
    {
        let mut q = db.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?;
        let names = q.query_map([], |r| r.get::<_, String>(0))?;
        for n in names {
            let n = n?;
            if !leave.contains(&n.as_str()) {
                cols.push(n);
            }
        }
    }
    if cols.is_empty() {
        return Err(rusqlite::Error::InvalidColumnName(table.to_string()));
    }
    let quoted = |c: &str| format!("\"{}\"", c.replace('"', "\"\""));
    let select: Vec<String> = (cols.iter())
        .map(|c| {
            let c = quoted(c);
            format!("CASE WHEN length({c}) <= {MAX_ROW} THEN {c} END, length({c})")
        })
        .collect();
    let sql = format!(
        "SELECT {} FROM {table} WHERE {} = ?1 ORDER BY rowid",
        select.join(", "),
        quoted(key)
    );
    let mut q = db.prepare(&sql)?;
    let rows = q.query_map(params![id], |r| {
        let mut row = Map::new();
        let mut skipped = Map::new();
        for (i, c) in cols.iter().enumerate() {
            let v = match r.get_ref(2 * i)? {
                ValueRef::Null => match r.get_ref(2 * i + 1)? {
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
        Ok(row)
    })?;
    rows.collect()
}
