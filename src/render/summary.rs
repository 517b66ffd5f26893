//! The summary formats: the tables drawn for a terminal (`--summary`,
//! `--format summary`, `--by`, `--list`) and the summary as JSON.
//!
//! The summary is data ([`Summary`], `rows.rs`) made into tables of cells
//! (`tables.rs`); [`write_table`] draws them padded for people, the table
//! of `--by day|week|month` with a bar per group (`chart.rs`), and
//! [`write_json`] writes the summary as one JSON object on one line
//! (`--format summary-json`), so a script can append it to a log of runs.
//! [`SummarySink`] is the sink of the two summary formats: nothing but the
//! summary on stdout; errors and denials go to stderr as they happen.

use std::borrow::Cow;
use std::io::{self, Write};

use termcolor::{ColorSpec, WriteColor};

use super::chart;
use super::rows::newest_first;
pub use super::rows::{
    GroupRow, Groups, ModelRow, OpenBlock, Row, SUMMARY_VERSION, Summary, TokenCounts, ToolRow,
};
use super::sanitize::sanitize_line;
use super::tables::{self, Align, Table};
pub use super::tables::{Fit, LIST_FIT, SESSION_FIT};
use super::{LineEnd, Sink, fmt_cost, fmt_count, fmt_duration};
use crate::event::Event;
use crate::session::Session;

/// What `ccusage blocks --live` says of an open block, on one line:
/// `block 2026-11-27 10:00 open: 2h10m left (ends 2026-11-27 15:00) ·
/// 45.2k tokens · ~$1.23 so far · ~$0.41/h · ~$2.08 projected`.
fn open_block_line(o: &OpenBlock) -> String {
    let mut line = format!("block {} open: ", sanitize_line(&o.group));
    fmt_duration(&mut line, u64::try_from(o.left_ms).unwrap_or(0));
    line.push_str(&format!(" left (ends {}) · ", o.ends));
    fmt_count(&mut line, o.tokens);
    line.push_str(" tokens");
    if let (Some(cost), Some(burn), Some(projected)) =
        (o.cost_usd, o.burn_usd_per_hour, o.projected_cost_usd)
    {
        let mark = if o.cost_estimated { "~" } else { "" };
        line.push_str(&format!(" · {mark}"));
        fmt_cost(&mut line, cost);
        line.push_str(&format!(" so far · {mark}"));
        fmt_cost(&mut line, burn);
        line.push_str(&format!("/h · {mark}"));
        fmt_cost(&mut line, projected);
        line.push_str(" projected");
    }
    line
}

/// Write `summary` as one JSON object on one line.
///
/// # Errors
/// The output cannot be written.
pub fn write_json<W: Write>(w: &mut W, summary: &Summary) -> io::Result<()> {
    let mut buf = io::BufWriter::with_capacity(64 << 10, &mut *w);
    json_line(&mut buf, summary)?;
    buf.flush()
}

/// `value` as one line of terminal-safe JSON (C1 and bidi characters as
/// `\u` escapes, like the JSONL). `w` should be a buffer of the caller's
/// own: `serde_json` writes in many small pieces (`--by day` over 913
/// sessions: 249,000 writes through the shared, `dyn` standard output took
/// 38.1 M instructions, into a local buffer 16.0 M, on the main thread
/// after every worker is done).
fn json_line(w: &mut impl Write, value: &impl serde::Serialize) -> io::Result<()> {
    let mut ser =
        serde_json::Serializer::with_formatter(&mut *w, crate::json::escape::SafeFormatter);
    // serde_json gives back the writer's own error (a closed pipe stays
    // `BrokenPipe`, which ends the run quietly).
    value.serialize(&mut ser).map_err(io::Error::from)?;
    w.write_all(b"\n")
}

/// Render `summary` as tables: the sessions (with a total row when there are
/// several), the tools, the models, and a line about skipped input. In
/// every table `in` is the uncached input, `cache` (or `cache read` and
/// `cache write`) the input read from and written to the prompt cache,
/// `out` the output: together, every token. `calls` and `errors` are tool
/// calls.
///
/// # Errors
/// The output cannot be written.
pub fn write_table<W: WriteColor>(w: &mut W, summary: &Summary) -> io::Result<()> {
    match tables::session_table(summary) {
        Some(t) => write_padded(w, &t)?,
        None => w.write_all(b"no session in the input\n")?,
    }
    // The tables of `tables::tables_after_sessions`, `--by`'s with its bars.
    let t = &summary.total;
    let after = [
        group_table(summary),
        tables::tool_table(t),
        tables::model_table(t),
    ];
    for table in after.into_iter().flatten() {
        w.write_all(b"\n")?;
        write_padded(w, &table)?;
    }
    write_notes(w, summary)
}

/// `--list`: one line per session, newest first: when it began, its
/// agent, project and title, turns, cost, outcome and file; as JSON
/// lines (summary-json's rows) with `json`.
///
/// # Errors
/// The output cannot be written.
pub fn write_list<W: WriteColor>(w: &mut W, summary: &Summary, json: bool) -> io::Result<()> {
    let rows = newest_first(summary);
    if json {
        // summary-json's rows.
        let mut buf = io::BufWriter::with_capacity(64 << 10, &mut *w);
        for r in rows {
            json_line(&mut buf, r)?;
        }
        return buf.flush();
    }
    if rows.is_empty() {
        return w.write_all(b"no session in the input\n");
    }
    write_padded(w, &tables::list_table(summary, &rows))
}

/// Render the table of `--by` alone, with its total row, and the notes
/// (`--by` without `--format`, as `ccusage daily` prints it).
///
/// # Errors
/// The output cannot be written.
pub fn write_groups<W: WriteColor>(w: &mut W, summary: &Summary) -> io::Result<()> {
    match group_table(summary) {
        Some(t) if !summary.sessions.is_empty() => write_padded(w, &t)?,
        _ => w.write_all(b"no session in the input\n")?,
    }
    write_notes(w, summary)
}

/// A table padded into columns (two spaces between them, numbers to the
/// right), its head and its total row in bold.
fn write_padded<W: WriteColor>(w: &mut W, table: &Table) -> io::Result<()> {
    let n = table.head.len();
    let mut width: Vec<usize> = table.head.iter().map(|(h, _)| h.chars().count()).collect();
    for r in &table.rows {
        for (i, c) in r.iter().enumerate().take(n) {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let mut bold = ColorSpec::new();
    bold.set_bold(true);
    let line = |w: &mut W, cells: &[Cow<'_, str>], style: Option<&ColorSpec>| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = width[i].saturating_sub(c.chars().count());
            if i > 0 {
                s.push_str("  ");
            }
            if table.head[i].1 == Align::Right {
                s.extend(std::iter::repeat_n(' ', pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                if i + 1 < n {
                    s.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
        let s = s.trim_end();
        if let Some(st) = style {
            w.set_color(st)?;
            w.write_all(s.as_bytes())?;
            w.reset()?;
        } else {
            w.write_all(s.as_bytes())?;
        }
        w.write_all(b"\n")
    };
    let head: Vec<Cow<'_, str>> = table.head.iter().map(|(h, _)| Cow::Borrowed(*h)).collect();
    line(w, &head, Some(&bold))?;
    for (i, r) in table.rows.iter().enumerate() {
        let cells: Vec<Cow<'_, str>> = r.iter().map(|c| Cow::Borrowed(c.as_str())).collect();
        line(w, &cells, (table.total == Some(i)).then_some(&bold))?;
    }
    Ok(())
}

/// The notes under the tables, after a blank line.
fn write_notes<W: WriteColor>(w: &mut W, summary: &Summary) -> io::Result<()> {
    let open = summary.by.as_ref().map_or(&[][..], |b| b.open.as_slice());
    if !open.is_empty() {
        w.write_all(b"\n")?;
        for o in open {
            w.write_all(open_block_line(o).as_bytes())?;
            w.write_all(b"\n")?;
        }
    }
    let notes = tables::notes(summary);
    if !notes.is_empty() {
        w.write_all(b"\n")?;
        w.write_all(notes.join(" · ").as_bytes())?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// The table of `--by` as a terminal shows it: by day, week or month,
/// with a bar per group ([`add_bars`]) when the width is known.
fn group_table(summary: &Summary) -> Option<Table> {
    let mut table = tables::group_table(summary)?;
    if let Some(width) = summary.width
        && let Some(by) = &summary.by
        && chart::charted(by.key)
    {
        add_bars(&mut table, &by.rows, width);
    }
    Some(table)
}

/// A bar is at most this many cells wide.
const BAR_MAX: usize = 40;

/// Narrower than this, a bar says too little: none is drawn.
const BAR_MIN: usize = 8;

/// How the table of `--by` makes room for its bars on a terminal: the
/// models cut to 12 characters.
pub const GROUP_FIT: [Fit; 1] = [Fit::Shrink("models", 12)];

/// On a terminal, `--by day|week|month`: each group's row ends with its
/// bar (its cost, or its tokens where nothing is priced), the largest as
/// wide as the terminal leaves room for, at most [`BAR_MAX`]; none when
/// that is under [`BAR_MIN`] (the models cut first, [`GROUP_FIT`]). The
/// total row has none.
fn add_bars(table: &mut Table, rows: &[GroupRow], width: usize) {
    let room = |t: &Table| width.saturating_sub(t.width() + 2);
    if room(table) < BAR_MIN {
        table.fit(width.saturating_sub(BAR_MIN + 2), &GROUP_FIT);
    }
    let cells = room(table).min(BAR_MAX);
    if cells < BAR_MIN {
        return;
    }
    table.head.push(("", Align::Left));
    for (r, bar) in table.rows.iter_mut().zip(chart::bars(rows, cells)) {
        r.push(bar);
    }
}

/// The sink of `--format summary` and `--format summary-json`: events go to
/// `alerts` (a quiet pretty sink over stderr, so errors and denials are still
/// reported as they happen); the summary is written at the end.
pub struct SummarySink<W: WriteColor, A: Sink> {
    out: W,
    alerts: A,
    json: bool,
    groups_only: bool,
    width: Option<usize>,
    verbose: bool,
    list: bool,
}

impl<W: WriteColor, A: Sink> SummarySink<W, A> {
    /// A summary on `out`, as tables or (`json`) as JSON.
    pub fn new(out: W, alerts: A, json: bool) -> Self {
        SummarySink {
            out,
            alerts,
            json,
            groups_only: false,
            width: None,
            verbose: false,
            list: false,
        }
    }

    /// `--list`: the sessions, newest first, instead of the tables.
    #[must_use]
    pub fn list(mut self, on: bool) -> Self {
        self.list = on;
        self
    }

    /// Fit the session table in `width` columns (a terminal's), dropping
    /// or cutting columns in the order of [`SESSION_FIT`].
    #[must_use]
    pub fn fit_to(mut self, width: Option<usize>) -> Self {
        self.width = width;
        self
    }

    /// `-v`: the session table shows each session's id and file.
    #[must_use]
    pub fn verbose(mut self, on: bool) -> Self {
        self.verbose = on;
        self
    }

    /// Write the table of `--by` alone (`--by` without `--format`).
    #[must_use]
    pub fn groups_only(mut self, on: bool) -> Self {
        self.groups_only = on;
        self
    }

    /// Give back the writer and the alert sink.
    pub fn into_inner(self) -> (W, A) {
        (self.out, self.alerts)
    }
}

impl<W: WriteColor, A: Sink> Sink for SummarySink<W, A> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        self.alerts.event(ev, s)
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        let mut summary = Summary::from_session(s);
        summary.width = self.width;
        summary.verbose = self.verbose;
        if self.list {
            write_list(&mut self.out, &summary, self.json)?;
        } else if self.json {
            write_json(&mut self.out, &summary)?;
        } else if self.groups_only {
            write_groups(&mut self.out, &summary)?;
        } else {
            write_table(&mut self.out, &summary)?;
        }
        self.out.flush()?;
        // The alerts' last words (a report's count of failed sessions)
        // under the tables, by the prompt.
        self.alerts.finish(s)
    }

    fn flush(&mut self) -> io::Result<()> {
        // A failed result's alert is written when the input pauses.
        self.alerts.flush()?;
        self.out.flush()
    }
}

/// `--summary` for the formats whose stdout is data (JSONL, result): the
/// table goes to `err` (stderr) after the inner sink has finished.
pub struct SummaryAfter<S: Sink, E: WriteColor> {
    inner: S,
    err: E,
}

impl<S: Sink, E: WriteColor> SummaryAfter<S, E> {
    /// `inner`, then the summary table on `err`.
    pub fn new(inner: S, err: E) -> Self {
        SummaryAfter { inner, err }
    }

    /// Give back the sink and the writer.
    pub fn into_inner(self) -> (S, E) {
        (self.inner, self.err)
    }
}

impl<S: Sink, E: WriteColor> Sink for SummaryAfter<S, E> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        self.inner.event(ev, s)
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        self.inner.finish(s)?;
        // Errors writing to stderr are not worth dying for.
        let _ = write_table(&mut self.err, &Summary::from_session(s));
        let _ = self.err.flush();
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    fn line_end(&self) -> LineEnd {
        self.inner.line_end()
    }

    fn end_line(&mut self) -> io::Result<()> {
        self.inner.end_line()
    }
}

#[cfg(test)]
mod tests;
