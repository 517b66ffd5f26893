//! The summary's tables as data: a head and rows of cells each, sanitized
//! for one line and escaped for no markup; the terminal, Markdown and HTML draw them.
//!
//! The sessions (one row each, a total row when there are several), the
//! groups of `--by`, the tools and the models, the sessions of `--list`,
//! and the notes under them, all made from the [`Summary`]'s rows. A
//! number the producer did not report is `–` (absent is not zero); a cost
//! says `~` when estimated and `≥` when a lower bound. A table is made to
//! fit a terminal's width ([`Summary::width`]) by cutting or leaving out
//! columns in a documented order ([`SESSION_FIT`], [`LIST_FIT`]). The
//! terminal draws them padded (`summary.rs`, which adds the bars of `--by`),
//! `markdown.rs` and `html.rs` as tables of their markup.

use super::rows::{GroupRow, Row, Summary, TokenCounts, group_total};
use super::sanitize::sanitize_line;
use super::{fmt_cost, fmt_count, fmt_duration};
use crate::session::Outcomes;

/// How a column's cells are aligned.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// A table of the summary: its head and rows of cells (sanitized for one
/// line, not escaped for any markup). Written padded as plain text by
/// `summary.rs`, and as Markdown and HTML tables by the report formats.
pub(crate) struct Table {
    /// Column names and alignment.
    pub head: Vec<(&'static str, Align)>,
    /// The cells, row by row.
    pub rows: Vec<Vec<String>>,
    /// Index of a closing total row, shown in bold.
    pub total: Option<usize>,
}

impl Table {
    /// The width of each column: its widest cell or head.
    fn widths(&self) -> Vec<usize> {
        let mut width: Vec<usize> = self.head.iter().map(|(h, _)| h.chars().count()).collect();
        for r in &self.rows {
            for (w, c) in width.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        width
    }

    /// Its width in characters (two spaces between columns).
    pub(crate) fn width(&self) -> usize {
        let w = self.widths();
        w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1)
    }

    /// Make it at most `width` wide, taking the steps of `order` one after
    /// the other until it is (a table that cannot is left as narrow as they
    /// make it).
    pub(crate) fn fit(&mut self, width: usize, order: &[Fit]) {
        for step in order {
            let over = self.width().saturating_sub(width);
            if over == 0 {
                return;
            }
            let (Fit::Shrink(name, _) | Fit::ShrinkStart(name, _) | Fit::Drop(name)) = *step;
            let Some(col) = self.head.iter().position(|(h, _)| *h == name) else {
                continue;
            };
            match *step {
                Fit::Shrink(_, least) | Fit::ShrinkStart(_, least) => {
                    let now = self.widths()[col];
                    let to = now.saturating_sub(over).max(least);
                    let end = matches!(step, Fit::ShrinkStart(..));
                    for r in &mut self.rows {
                        if let Some(c) = r.get_mut(col) {
                            *c = if end { cell_end(c, to) } else { cell(c, to) };
                        }
                    }
                }
                Fit::Drop(_) => {
                    self.head.remove(col);
                    for r in &mut self.rows {
                        if col < r.len() {
                            r.remove(col);
                        }
                    }
                }
            }
        }
    }
}

/// `–` for a number the producer did not report (absent is not zero).
const ABSENT: &str = "–";

fn opt<T>(v: Option<T>, f: impl FnOnce(&mut String, T)) -> String {
    match v {
        Some(v) => {
            let mut s = String::new();
            f(&mut s, v);
            s
        }
        None => ABSENT.to_string(),
    }
}

fn count(n: Option<u64>) -> String {
    opt(n, fmt_count)
}

/// Input tokens as the pretty format counts them: uncached + cache.
/// The input read from or written to the prompt cache: the session
/// table's `cache` column.
fn cache_tokens(t: &TokenCounts) -> Option<u64> {
    match (t.cache_read, t.cache_creation) {
        (None, None) => None,
        (r, w) => Some(r.unwrap_or(0).saturating_add(w.unwrap_or(0))),
    }
}

/// At most `max` characters of `s`, sanitized for one line, cut with `…`.
fn cell(s: &str, max: usize) -> String {
    let s = sanitize_line(s);
    if s.chars().count() <= max {
        return s.into_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `s` in at most `max` characters, cut from the left: the end of a path
/// (its file name) is what tells rows apart.
fn cell_end(s: &str, max: usize) -> String {
    let s = sanitize_line(s);
    let n = s.chars().count();
    if n <= max {
        return s.into_owned();
    }
    let mut out = String::from("…");
    out.extend(s.chars().skip(n - max.saturating_sub(1)));
    out
}

/// The length of the directory all `paths` start with (up to and with its
/// last `/`): the source column leaves it out.
fn common_dir(paths: &[&str]) -> usize {
    let Some((first, rest)) = paths.split_first() else {
        return 0;
    };
    let mut len = first.len();
    for p in rest {
        len = first
            .bytes()
            .zip(p.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    // By bytes: the common part may end inside a character; `/` never is.
    first.as_bytes()[..len]
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(0, |i| i + 1)
}

/// Width of the source column.
const SOURCE_COLUMN: usize = 32;

/// Width of the title column before any fitting: a title is at most this.
const TITLE_COLUMN: usize = crate::session::TITLE_CHARS;

/// How the session table is made to fit a terminal narrower than it, in
/// this order until it fits: the title cut to 20 characters, the `cache`
/// and `time` columns left out, the project cut to 10, the title to 10,
/// then the project, the title, the agent and the start left out.
pub const SESSION_FIT: [Fit; 9] = [
    Fit::Shrink("title", 20),
    Fit::Drop("cache"),
    Fit::Drop("time"),
    Fit::Shrink("project", 10),
    Fit::Shrink("title", 10),
    Fit::Drop("project"),
    Fit::Drop("title"),
    Fit::Drop("agent"),
    Fit::Drop("started"),
];

/// A way to make a table narrower.
#[derive(Clone, Copy, Debug)]
pub enum Fit {
    /// Cut the cells of this column to at least this many characters.
    Shrink(&'static str, usize),
    /// Cut the cells of this column to at least this many characters,
    /// keeping their end (a file's name).
    ShrinkStart(&'static str, usize),
    /// Leave this column out.
    Drop(&'static str),
}

/// What names a session in the table: when it began (local time), which
/// agent, which project (its working directory's last part), its title;
/// with `-v` its id and file too (`source`: the length of the common
/// directory left out of the file).
fn session_label(r: &Row, zone: &crate::time::zone::Zone, source: Option<usize>) -> Vec<String> {
    let started = (r.started.as_deref())
        .and_then(crate::time::Timestamp::parse)
        .map_or_else(|| ABSENT.to_string(), |t| zone.minute(t));
    let project = r.project.as_deref().map_or(ABSENT, |p| {
        let p = p.trim_end_matches(['/', '\\']);
        p.rsplit(['/', '\\'])
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(p)
    });
    // The agent, not the form of its log (`claude-transcript`: `claude`).
    let agent = (r.producer.as_deref()).map_or(ABSENT, |p| {
        crate::event::Producer::from_name(p).map_or(p, |p| p.agent())
    });
    let mut cells = vec![
        started,
        agent.to_string(),
        cell(project, SOURCE_COLUMN),
        match (&r.title, &r.source) {
            (Some(t), _) => cell(t, TITLE_COLUMN),
            // Without a prompt, its file tells it apart.
            (None, Some(file)) => cell_end(file, TITLE_COLUMN),
            (None, None) => String::new(),
        },
    ];
    if let Some(common) = source {
        cells.push(
            r.session
                .as_deref()
                .map_or(ABSENT.to_string(), |id| cell(id, 40)),
        );
        let s = r.source.as_deref().unwrap_or("");
        let s = s.get(common..).unwrap_or(s);
        cells.push(match r.sources.len() {
            0 | 1 => cell_end(s, SOURCE_COLUMN),
            n => format!("{} +{}", cell_end(s, SOURCE_COLUMN - 3), n - 1),
        });
    }
    cells
}

/// The numbers of a row of the session table.
fn session_numbers(r: &Row) -> [String; 9] {
    [
        r.outcome.unwrap_or(ABSENT).to_string(),
        r.turns.map_or(ABSENT.to_string(), |t| t.to_string()),
        opt(r.duration_ms, fmt_duration),
        cost_cell(r.cost_usd, r.cost_partial, r.cost_estimated),
        count(r.tokens.input),
        count(r.tokens.output),
        count(cache_tokens(&r.tokens)),
        r.tool_calls.to_string(),
        r.tool_errors.to_string(),
    ]
}

/// How `--list` is made to fit a terminal narrower than it: the title
/// cut to 20 characters, then to 10, the project to 10, then the title,
/// the project and the agent left out. The file is never cut: it is
/// there to be copied and replayed.
pub const LIST_FIT: [Fit; 6] = [
    Fit::Shrink("title", 20),
    Fit::Shrink("title", 10),
    Fit::Shrink("project", 10),
    Fit::Drop("title"),
    Fit::Drop("project"),
    Fit::Drop("agent"),
];

/// One row per session (and a total row when there are several); `None`
/// when there was no session. Made to fit `summary.width` (see
/// [`SESSION_FIT`]).
pub(crate) fn session_table(summary: &Summary) -> Option<Table> {
    let verbose = summary.verbose;
    let mut sources: Vec<&str> = (summary.sessions.iter())
        .filter_map(|r| r.source.as_deref())
        .collect();
    sources.dedup();
    let source = verbose.then(|| common_dir(&sources));
    let mut head = vec![
        ("started", Align::Left),
        ("agent", Align::Left),
        ("project", Align::Left),
        ("title", Align::Left),
    ];
    if verbose {
        head.extend([("session", Align::Left), ("source", Align::Left)]);
    }
    head.extend([
        ("outcome", Align::Left),
        ("turns", Align::Right),
        ("time", Align::Right),
        ("cost", Align::Right),
        ("in", Align::Right),
        ("out", Align::Right),
        ("cache", Align::Right),
        ("calls", Align::Right),
        ("errors", Align::Right),
    ]);
    let labels = head.len() - 9;
    let mut rows: Vec<Vec<String>> = (summary.sessions.iter())
        .map(|r| {
            let mut cells = session_label(r, &summary.zone, source);
            if r.sessions > 1 {
                cells[0] = format!("{} earlier", r.sessions);
            }
            cells.extend(session_numbers(r));
            cells
        })
        .collect();
    // Within one year, the year says nothing.
    let year = |r: &Vec<String>| {
        r[0].get(..5)
            .filter(|y| y.ends_with('-'))
            .map(str::to_string)
    };
    if let Some(first) = rows.iter().find_map(year)
        && rows.iter().filter_map(year).all(|y| y == first)
    {
        for r in &mut rows {
            if year(r).is_some() {
                r[0].replace_range(..5, "");
            }
        }
    }
    let mut total = None;
    if summary.sessions.len() > 1 {
        total = Some(rows.len());
        let t = &summary.total;
        let mut cells = vec![String::new(); labels];
        cells[0] = format!("total ({})", t.sessions);
        cells.extend(session_numbers(t));
        cells[labels] = outcome_counts(&summary.outcomes);
        rows.push(cells);
    }
    let mut table = Table { head, rows, total };
    if let Some(width) = summary.width {
        table.fit(width, &SESSION_FIT);
    }
    (!table.rows.is_empty()).then_some(table)
}

/// `--list`'s table of `rows` (the sessions, newest first): when each
/// began, its agent, project and title, turns, cost, outcome and file;
/// made to fit `summary.width` (see [`LIST_FIT`]).
pub(crate) fn list_table(summary: &Summary, rows: &[&Row]) -> Table {
    let head = vec![
        ("started", Align::Left),
        ("agent", Align::Left),
        ("project", Align::Left),
        ("title", Align::Left),
        ("turns", Align::Right),
        ("cost", Align::Right),
        ("outcome", Align::Left),
        ("file", Align::Left),
    ];
    let rows = (rows.iter())
        .map(|r| {
            let mut cells = session_label(r, &summary.zone, None);
            if r.sessions > 1 {
                cells[0] = format!("{} earlier", r.sessions);
            }
            cells.extend([
                r.turns.map_or(ABSENT.to_string(), |t| t.to_string()),
                cost_cell(r.cost_usd, r.cost_partial, r.cost_estimated),
                r.outcome.unwrap_or(ABSENT).to_string(),
                sanitize_line(r.source.as_deref().unwrap_or(ABSENT)).into_owned(),
            ]);
            cells
        })
        .collect();
    let mut table = Table {
        head,
        rows,
        total: None,
    };
    if let Some(width) = summary.width {
        table.fit(width, &LIST_FIT);
    }
    table
}

/// Calls, errors, denials and time per tool; `None` without tool calls.
pub(crate) fn tool_table(t: &Row) -> Option<Table> {
    let head = vec![
        ("tool", Align::Left),
        ("kind", Align::Left),
        ("calls", Align::Right),
        ("errors", Align::Right),
        ("denied", Align::Right),
        ("time", Align::Right),
    ];
    per_item(&t.tools, head, |x| {
        vec![
            cell(&x.name, 40),
            x.kind.to_string(),
            x.calls.to_string(),
            x.errors.to_string(),
            x.denials.to_string(),
            opt(x.time_ms, fmt_duration),
        ]
    })
}

/// Tokens and cost per model; `None` when no model reported usage.
pub(crate) fn model_table(t: &Row) -> Option<Table> {
    let head = vec![
        ("model", Align::Left),
        ("in", Align::Right),
        ("out", Align::Right),
        ("cache read", Align::Right),
        ("cache write", Align::Right),
        ("cost", Align::Right),
    ];
    per_item(&t.models, head, |m| {
        vec![
            cell(&m.model, 40),
            count(m.tokens.input),
            count(m.tokens.output),
            count(m.tokens.cache_read),
            count(m.tokens.cache_creation),
            cost_cell(m.cost_usd, false, m.cost_estimated),
        ]
    })
}

/// How the sessions ended, in a total row: `19 ok · 2 failed · 2 incomplete`
/// (the counts that are not 0).
fn outcome_counts(o: &Outcomes) -> String {
    let parts: Vec<String> = [
        (o.success, "ok"),
        (o.error, "failed"),
        (o.incomplete, "incomplete"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if parts.is_empty() {
        ABSENT.to_string()
    } else {
        parts.join(" · ")
    }
}

/// The tables after the sessions': the groups of `--by`, the tools, the
/// models (those that have rows).
pub(crate) fn tables_after_sessions(summary: &Summary) -> impl Iterator<Item = Table> {
    let t = &summary.total;
    [group_table(summary), tool_table(t), model_table(t)]
        .into_iter()
        .flatten()
}

/// A cost: `$0.05`, `~$0.05` estimated, `≥ $0.05` a lower bound, `–`
/// unknown.
fn cost_cell(usd: Option<f64>, partial: bool, estimated: bool) -> String {
    opt(usd, |out, c| {
        if partial {
            out.push_str("≥ ");
        }
        if estimated {
            out.push('~');
        }
        fmt_cost(out, c);
    })
}

/// The totals by day, week, month, project or agent (`--by`); `None`
/// without `--by`.
pub(crate) fn group_table(summary: &Summary) -> Option<Table> {
    let by = summary.by.as_ref()?;
    let mut head = vec![
        (by.key, Align::Left),
        ("sessions", Align::Right),
        ("in", Align::Right),
        ("out", Align::Right),
        ("cache read", Align::Right),
        ("cache write", Align::Right),
        ("cost", Align::Right),
        ("calls", Align::Right),
        ("errors", Align::Right),
    ];
    // By model, the group is its model; the total's outcomes go last.
    let models = by.key != "model";
    head.push((if models { "models" } else { "" }, Align::Left));
    let mut table = per_item(&by.rows, head, |g| {
        // The first model, and how many more (summary-json lists them).
        let names = match g.models.as_slice() {
            [] => "–".to_string(),
            [one] => cell(&one.model, 30),
            [one, more @ ..] => format!("{} +{}", cell(&one.model, 30), more.len()),
        };
        let mut cells = group_cells(cell(&g.group, 60), g);
        cells.push(if models { names } else { String::new() });
        cells
    })?;
    let mut cells = group_cells("total".to_string(), &group_total(&by.rows));
    cells.push(outcome_counts(&summary.outcomes));
    table.total = Some(table.rows.len());
    table.rows.push(cells);
    Some(table)
}

/// The cells of a group's row after its name, before its models.
fn group_cells(name: String, g: &GroupRow) -> Vec<String> {
    vec![
        name,
        g.sessions.to_string(),
        count(g.tokens.input),
        count(g.tokens.output),
        count(g.tokens.cache_read),
        count(g.tokens.cache_creation),
        cost_cell(g.cost_usd, g.cost_partial, g.cost_estimated),
        g.tool_calls.to_string(),
        g.tool_errors.to_string(),
    ]
}

/// A table of one row per item, without a total; `None` without items.
fn per_item<T>(
    items: &[T],
    head: Vec<(&'static str, Align)>,
    row: impl Fn(&T) -> Vec<String>,
) -> Option<Table> {
    (!items.is_empty()).then(|| Table {
        head,
        rows: items.iter().map(row).collect(),
        total: None,
    })
}

/// What else the total says: calls never answered, denials, skipped
/// lines, where estimated costs come from and which models have none.
pub(crate) fn notes(summary: &Summary) -> Vec<String> {
    let t = &summary.total;
    let mut notes = Vec::new();
    if let Some(date) = &summary.prices_as_of {
        // The price table's words, as the logs' (`--prices` names any file).
        notes.push(format!("~ estimated from the prices of {}", cell(date, 40)));
    }
    if !t.unpriced_models.is_empty() {
        let names: Vec<String> = t.unpriced_models.iter().map(|m| cell(m, 40)).collect();
        notes.push(format!("no price for {}", names.join(", ")));
    }
    let mut note = |n: u64, one: &str, many: &str| {
        if n > 0 {
            notes.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    };
    note(
        t.unanswered,
        "tool call never answered",
        "tool calls never answered",
    );
    note(t.denials, "permission denial", "permission denials");
    note(t.skipped_lines, "input line skipped", "input lines skipped");
    note(
        t.copies_folded,
        "API message copied by a resumed session counted once",
        "API messages copied by resumed sessions counted once",
    );
    notes
}

#[cfg(test)]
mod source_column_tests {
    use super::{cell_end, common_dir};

    #[test]
    fn the_shared_directory_is_left_out() {
        assert_eq!(
            common_dir(&["/h/logs/a.jsonl", "/h/logs/b.jsonl"]),
            "/h/logs/".len()
        );
        assert_eq!(
            common_dir(&["/h/logs/ab.jsonl", "/h/logs/ac.jsonl"]),
            "/h/logs/".len()
        );
        assert_eq!(common_dir(&["claude/a.jsonl", "codex/a.jsonl"]), 0);
        assert_eq!(common_dir(&["x/a", "x/b/c", "x/b/d"]), "x/".len());
        assert_eq!(common_dir(&["a.jsonl", "b.jsonl"]), 0);
        assert_eq!(common_dir(&[]), 0);
        // A name that is not ASCII is cut at a `/`, never inside a character.
        assert_eq!(common_dir(&["/é/ü.jsonl", "/é/ö.jsonl"]), "/é/".len());
    }

    #[test]
    fn a_long_source_keeps_its_end() {
        assert_eq!(cell_end("short.jsonl", 32), "short.jsonl");
        let long = "very/long/directory/names/here/session-2026-11-24.jsonl";
        let c = cell_end(long, 20);
        assert_eq!(c.chars().count(), 20);
        assert_eq!(c, "…on-2026-11-24.jsonl");
        // Terminal controls in a file name do not reach the terminal.
        assert!(!cell_end("a\x1b[31mb.jsonl", 32).contains('\x1b'));
    }
}

#[cfg(test)]
mod session_table_tests {
    use super::{Row, SESSION_FIT, Summary, session_table};

    fn row(started: &str, producer: &str, cwd: &str, title: Option<&str>) -> Row {
        Row {
            sessions: 1,
            session: Some("0b5c2a8e-6f0e-4c6a-9d55-2d2b8b3c1f00".into()),
            source: Some(format!("/home/u/.claude/projects/p/{started}.jsonl")),
            producer: Some(producer.into()),
            started: Some(started.into()),
            project: Some(cwd.into()),
            title: title.map(Into::into),
            outcome: Some("success"),
            turns: Some(3),
            ..Row::default()
        }
    }

    fn summary(width: Option<usize>, verbose: bool) -> Summary {
        let sessions = vec![
            row(
                "2026-11-24T09:05:00Z",
                "claude-transcript",
                "/work/api",
                Some("fix the flaky login test and run the suite"),
            ),
            row("2026-11-25T17:40:00Z", "codex-rollout", "/work/web/", None),
        ];
        Summary {
            v: 1,
            total: Row {
                sessions: 2,
                ..Row::default()
            },
            sessions,
            prices_as_of: None,
            by: None,
            outcomes: crate::session::Outcomes::default(),
            zone: crate::time::zone::Zone::fixed(3600),
            width,
            verbose,
        }
    }

    fn column(t: &super::Table, name: &str) -> Option<Vec<String>> {
        let i = t.head.iter().position(|(h, _)| *h == name)?;
        Some(t.rows.iter().map(|r| r[i].clone()).collect())
    }

    #[test]
    fn a_row_says_when_which_agent_which_project_and_what() {
        let t = session_table(&summary(None, false)).unwrap();
        // Local time (one hour ahead), the year left out within one year.
        assert_eq!(
            column(&t, "started").unwrap()[..2],
            ["11-24 10:05", "11-25 18:40"]
        );
        assert_eq!(column(&t, "agent").unwrap()[..2], ["claude", "codex"]);
        assert_eq!(column(&t, "project").unwrap()[..2], ["api", "web"]);
        let titles = column(&t, "title").unwrap();
        assert_eq!(titles[0], "fix the flaky login test and run the suite");
        // No prompt: the file tells it apart.
        assert!(
            titles[1].ends_with("2026-11-25T17:40:00Z.jsonl"),
            "{titles:?}"
        );
        assert!(column(&t, "session").is_none() && column(&t, "source").is_none());
        // -v: the id and the file in full.
        let v = session_table(&summary(None, true)).unwrap();
        assert_eq!(
            column(&v, "session").unwrap()[0],
            "0b5c2a8e-6f0e-4c6a-9d55-2d2b8b3c1f00"
        );
        assert!(column(&v, "source").is_some());
    }

    #[test]
    fn a_narrow_terminal_gives_up_columns_in_the_documented_order() {
        let full = session_table(&summary(None, false)).unwrap();
        let mut previous = full.width();
        let mut gone = Vec::new();
        for width in (20..full.width()).rev().step_by(4) {
            let t = session_table(&summary(Some(width), false)).unwrap();
            assert!(
                t.width() <= previous,
                "{width}: wider than at a larger width"
            );
            previous = t.width();
            for (h, _) in &full.head {
                if !t.head.iter().any(|(x, _)| x == h) && !gone.contains(h) {
                    gone.push(*h);
                }
            }
            if t.width() > width {
                // Only when every step was taken.
                let names: Vec<&str> = t.head.iter().map(|(h, _)| *h).collect();
                assert_eq!(t.head.len(), full.head.len() - 6, "{width}: {names:?}");
            }
        }
        let order: Vec<&str> = SESSION_FIT
            .iter()
            .filter_map(|f| match f {
                super::Fit::Drop(c) => Some(*c),
                super::Fit::Shrink(..) | super::Fit::ShrinkStart(..) => None,
            })
            .collect();
        assert_eq!(gone, order);
        // The title is cut before anything is left out.
        let t = session_table(&summary(Some(full.width() - 10), false)).unwrap();
        assert_eq!(t.head.len(), full.head.len());
        assert_eq!(t.width(), full.width() - 10);
        assert!(column(&t, "title").unwrap()[1].ends_with('…'));
    }
}
