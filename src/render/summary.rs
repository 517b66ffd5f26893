//! The summary: per session and across all of them, turns, duration, cost,
//! tokens, cache share, tool calls and errors, skipped lines; per tool its
//! calls, errors and denials; per model its tokens and cost.
//!
//! [`Summary::from_session`] reads the [`Session`] state once at the end of
//! the input; [`write_table`] renders it for people (`--summary`,
//! `--format summary`) and [`write_json`] as one JSON object on one line
//! (`--format summary-json`), so a script can append it to a log of runs.
//! [`SummarySink`] is the sink of the two summary formats: nothing but the
//! summary on stdout; errors and denials go to stderr as they happen.
//!
//! Per-tool time is not reported: events carry no arrival time yet.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;
use termcolor::{ColorSpec, WriteColor};

use super::chart;
use super::sanitize::sanitize_line;
use super::{LineEnd, Sink, fmt_cost, fmt_count, fmt_duration};
use crate::event::{Event, Tokens};
use crate::session::{
    ModelStats, Outcome, Outcomes, Prices, Session, SessionSummary, Tally, ToolStats, add_opt_f64,
    add_opt_u64,
};

/// Version of the `summary-json` object (its `v` field).
pub const SUMMARY_VERSION: u32 = 1;

/// Token counts; `null` when not reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TokenCounts {
    /// Uncached input tokens.
    pub input: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
    /// Input tokens read from the prompt cache.
    pub cache_read: Option<u64>,
    /// Input tokens written to the prompt cache.
    pub cache_creation: Option<u64>,
}

impl From<Tokens> for TokenCounts {
    fn from(t: Tokens) -> Self {
        TokenCounts {
            input: t.input,
            output: t.output,
            cache_read: t.cache_read,
            cache_creation: t.cache_creation,
        }
    }
}

/// One tool's line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolRow {
    /// Tool name as the producer spells it.
    pub name: String,
    /// What the tool does (`shell`, `read`…: the JSONL `tool_kind`).
    pub kind: &'static str,
    /// Calls.
    pub calls: u64,
    /// Results that were errors (permission refusals included).
    pub errors: u64,
    /// Permission denials.
    pub denials: u64,
    /// Time from calls to their results by arrival, in ms; `null` under a
    /// second (a replayed log arrives all at once, so only a live session
    /// has tool times).
    pub time_ms: Option<u64>,
}

/// Tool time worth showing: a second or more.
fn tool_time(d: std::time::Duration) -> Option<u64> {
    (d.as_secs() >= 1).then(|| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// One model's line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelRow {
    /// Model name.
    pub model: String,
    /// Tokens.
    pub tokens: TokenCounts,
    /// Cost in USD: as reported, else estimated from the price table;
    /// `null` when neither.
    pub cost_usd: Option<f64>,
    /// The cost is an estimate (the producer reported none).
    pub cost_estimated: bool,
}

/// The totals of one session, or of all of them (`total`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Row {
    /// Sessions this row covers: 1 for a session; the number of sessions
    /// folded together for the first row when there were more than
    /// [`KEEP_SESSIONS`](crate::session::KEEP_SESSIONS); all of them for the total.
    pub sessions: u64,
    /// Session id (`null` for the total, or when the producer gave none).
    pub session: Option<String>,
    /// The input the session started in (`null` for the total).
    pub source: Option<String>,
    /// Every input it was read from, `source` first: several when a
    /// stream and the session its agent saved were both given (empty for
    /// the total).
    pub sources: Vec<String>,
    /// Producer name (`null` for a total over several producers).
    pub producer: Option<String>,
    /// Model of the session header (`null` for a total over several models).
    pub model: Option<String>,
    /// When the session began: its first event's time, RFC 3339 in UTC
    /// (`null` for the total, or when no event had a time).
    pub started: Option<String>,
    /// The project: the main agent's working directory (`null` for the
    /// total, or when the producer does not say it).
    pub project: Option<String>,
    /// The main agent's first prompt, its first line (`null` for the total
    /// or without a prompt).
    pub title: Option<String>,
    /// `success`, `error` or `incomplete`; for the total the worst of all.
    pub outcome: Option<&'static str>,
    /// Result events seen.
    pub results: u64,
    /// Turns, summed over the results.
    pub turns: Option<u64>,
    /// Wall-clock duration in milliseconds, summed over the results.
    pub duration_ms: Option<u64>,
    /// Cost in USD (a session's cumulative cost; the total sums the sessions).
    pub cost_usd: Option<f64>,
    /// The cost leaves out tokens whose price is not known (a model the
    /// price table lacks, a session cut before its output was counted):
    /// it is a lower bound.
    pub cost_partial: bool,
    /// The cost, or part of it, is estimated from the price table (the
    /// producer reported none).
    pub cost_estimated: bool,
    /// Models whose tokens have no cost: the producer reported none and
    /// the price table does not know them.
    pub unpriced_models: Vec<String>,
    /// Tokens (see [`SessionSummary::tokens`]).
    pub tokens: TokenCounts,
    /// Percentage of input tokens read from the prompt cache.
    pub cache_read_pct: Option<f64>,
    /// Tool calls, sub-agents included.
    pub tool_calls: u64,
    /// Tool results that were errors.
    pub tool_errors: u64,
    /// Distinct permission denials.
    pub denials: u64,
    /// Tool calls that never got a result.
    pub unanswered: u64,
    /// Input lines skipped.
    pub skipped_lines: u64,
    /// API messages left out of the totals as copies of one counted
    /// before (a resumed session's file saves them again).
    pub copies_folded: u64,
    /// Per tool, most called first.
    pub tools: Vec<ToolRow>,
    /// Per model.
    pub models: Vec<ModelRow>,
}

/// The whole summary: `{"v":1,"sessions":[…],"total":{…}}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// [`SUMMARY_VERSION`].
    pub v: u32,
    /// One row per session, in input order.
    pub sessions: Vec<Row>,
    /// Totals across all sessions.
    pub total: Row,
    /// The date of the price table estimates come from (`null` when no
    /// cost is estimated).
    pub prices_as_of: Option<String>,
    /// `--by`: the totals by day, week, month, project or agent (`null`
    /// without it).
    pub by: Option<Groups>,
    /// How the sessions ended (the tables' total rows say it).
    #[serde(skip)]
    pub outcomes: Outcomes,
    /// The zone the tables say when each session began in.
    #[serde(skip)]
    pub zone: crate::time::zone::Zone,
    /// The session table fits in this many columns (a terminal's width):
    /// see [`SESSION_FIT`].
    #[serde(skip)]
    pub width: Option<usize>,
    /// `-v`: the session table shows each session's id and file too.
    #[serde(skip)]
    pub verbose: bool,
}

/// The totals of `--by`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Groups {
    /// `day`, `week`, `month`, `session`, `project`, `model`, `agent` or
    /// `block`.
    pub key: &'static str,
    /// One row per group, in order (dates ascending, `–` last).
    pub rows: Vec<GroupRow>,
    /// By block, the blocks not ended yet (one per agent at most); left
    /// out of the JSON when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub open: Vec<OpenBlock>,
}

/// A usage block still open when the summary was made: what
/// `ccusage blocks --live` shows of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenBlock {
    /// Its row's name (when it began, and its agent among several).
    pub group: String,
    /// When it ends, in local time.
    pub ends: String,
    /// Milliseconds since it began.
    pub elapsed_ms: i64,
    /// Milliseconds until it ends.
    pub left_ms: i64,
    /// Its tokens so far.
    pub tokens: u64,
    /// Its cost so far (`None`: unknown).
    pub cost_usd: Option<f64>,
    /// The cost is an estimate.
    pub cost_estimated: bool,
    /// Its cost over the hours since it began (a minute at least).
    pub burn_usd_per_hour: Option<f64>,
    /// Its cost at its end, at that rate.
    pub projected_cost_usd: Option<f64>,
}

impl OpenBlock {
    fn of(o: crate::session::group::OpenBlock, zone: &crate::time::zone::Zone) -> OpenBlock {
        let left_ms = o.left_ms();
        let elapsed_ms = o.now.millis() - o.start.millis();
        #[allow(clippy::cast_precision_loss)] // hours, to a cent
        let hours = |ms: i64| ms.max(0) as f64 / 3.6e6;
        let cost = o.group.cost.usd;
        let burn = cost.map(|c| c / hours(elapsed_ms.max(60_000)));
        OpenBlock {
            group: o.name,
            ends: zone.minute(o.end),
            elapsed_ms,
            left_ms,
            tokens: o.group.tokens.total(),
            cost_usd: cost.map(round_cost),
            cost_estimated: o.group.cost.estimated,
            burn_usd_per_hour: burn.map(round_cost),
            projected_cost_usd: cost
                .zip(burn)
                .map(|(c, b)| round_cost(c + b * hours(left_ms))),
        }
    }
}

/// The totals of one group of sessions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupRow {
    /// The day (`2026-11-24`), the week's Monday, the month (`2026-11`),
    /// the session id, the project's directory, the model, the agent or
    /// the block's start (`2026-11-24 10:00`); `–` when a session does not
    /// say.
    pub group: String,
    /// Sessions in it.
    pub sessions: u64,
    /// Their tokens.
    pub tokens: TokenCounts,
    /// Their cost, reported or estimated.
    pub cost_usd: Option<f64>,
    /// Some of it is estimated.
    pub cost_estimated: bool,
    /// A lower bound: some sessions' cost is unknown.
    pub cost_partial: bool,
    /// Tool calls.
    pub tool_calls: u64,
    /// Tool results that were errors.
    pub tool_errors: u64,
    /// The tokens and cost by model, in the order they first answered
    /// (ccusage's breakdown).
    pub models: Vec<ModelRow>,
}

impl Groups {
    fn of(g: &crate::session::group::Groups, prices: &Prices) -> Groups {
        Groups {
            key: g.by().name(),
            rows: g
                .rows()
                .into_iter()
                .map(|(k, x)| GroupRow {
                    group: k,
                    sessions: x.sessions,
                    tokens: x.tokens.into(),
                    cost_usd: x.cost.usd.map(round_cost),
                    cost_estimated: x.cost.estimated,
                    cost_partial: x.cost.partial,
                    tool_calls: x.tool_calls,
                    tool_errors: x.tool_errors,
                    models: model_rows(&x.models, prices),
                })
                .collect(),
            open: g
                .open_blocks(crate::time::Timestamp::of(std::time::SystemTime::now()))
                .into_iter()
                .map(|o| OpenBlock::of(o, g.zone()))
                .collect(),
        }
    }
}

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

/// Sums of costs are rounded to 1e-10 dollars, so that adding producer
/// values like 0.114652 does not print binary noise.
fn round_cost(c: f64) -> f64 {
    (c * 1e10).round() / 1e10
}

fn share(t: &Tokens) -> Option<f64> {
    t.cache_read_share().map(|p| (p * 10.0).round() / 10.0)
}

fn tool_rows(tools: &Tally<ToolStats>) -> Vec<ToolRow> {
    let row = |t: &ToolStats| ToolRow {
        name: t.name.to_string(),
        kind: t.kind.name(),
        calls: t.calls,
        errors: t.errors,
        denials: t.denials,
        time_ms: tool_time(t.time),
    };
    let mut rows: Vec<ToolRow> = tools.detailed().iter().map(row).collect();
    rows.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
    // The tools beyond the bound, last whatever their count.
    rows.extend(tools.other().map(row));
    rows
}

/// Each model's row, its cost estimated from `prices` when the producer
/// reported none.
fn model_rows(models: &[ModelStats], prices: &Prices) -> Vec<ModelRow> {
    models
        .iter()
        .map(|m| {
            let estimate = (m.cost_usd.is_none() && !m.tokens.is_empty())
                .then(|| m.priced(prices))
                .flatten();
            ModelRow {
                model: m.model.clone(),
                tokens: m.tokens.into(),
                cost_usd: m.cost_usd.or(estimate).map(round_cost),
                cost_estimated: estimate.is_some(),
            }
        })
        .collect()
}

/// The models of `rows` that have tokens but no cost.
fn unpriced(rows: &[ModelRow]) -> Vec<String> {
    rows.iter()
        .filter(|m| m.cost_usd.is_none() && m.tokens != TokenCounts::default())
        .map(|m| m.model.clone())
        .collect()
}

impl Row {
    fn of_session(s: &SessionSummary, prices: &Prices) -> Row {
        let tokens = s.tokens();
        let models = model_rows(s.models(), prices);
        let unpriced_models = unpriced(&models);
        let cost = s.cost(prices);
        Row {
            sessions: 1,
            session: s.id.clone(),
            source: s.source.clone(),
            sources: s.sources.clone(),
            producer: s.producer.map(|p| p.name().to_string()),
            model: s.model.clone(),
            started: s.started.map(|t| t.to_string()),
            project: s.cwd.clone(),
            title: s.title.clone(),
            outcome: s.outcome.map(Outcome::name),
            results: s.results,
            turns: s.turns(),
            duration_ms: s.total_duration_ms,
            cost_usd: cost.usd.map(round_cost),
            cost_partial: cost.partial,
            cost_estimated: cost.estimated,
            unpriced_models,
            tokens: tokens.into(),
            cache_read_pct: share(&tokens),
            tool_calls: s.tool_calls,
            tool_errors: s.tool_errors,
            denials: s.denials,
            unanswered: s.unanswered,
            skipped_lines: s.skipped_lines,
            copies_folded: s.copies,
            tools: tool_rows(&s.tools),
            models,
        }
    }
}

impl Row {
    /// Add session `one`, whose row is `row`, to this total (its counts;
    /// the tokens, tools and models are added up by the caller).
    fn add(&mut self, one: &SessionSummary, row: &Row) {
        self.results += one.results;
        self.turns = add_opt_u64(self.turns, one.turns());
        self.duration_ms = add_opt_u64(self.duration_ms, one.total_duration_ms);
        self.cost_usd = add_opt_f64(self.cost_usd, row.cost_usd);
        self.cost_estimated |= row.cost_estimated;
        self.cost_partial |= row.cost_partial;
        self.tool_calls += one.tool_calls;
        self.tool_errors += one.tool_errors;
        self.denials += one.denials;
        self.unanswered += one.unanswered;
        self.copies_folded += one.copies;
    }
}

impl Summary {
    /// Build the summary of everything `s` observed (call after the input
    /// ended, when every outcome is decided).
    #[must_use]
    pub fn from_session(s: &Session) -> Summary {
        let prices = s.prices();
        let earlier = s.earlier();
        // The folded sessions (see `Session::earlier`) count as one in the
        // sums: the aggregate holds their sums.
        let sessions: Vec<&SessionSummary> = earlier
            .map(|e| &e.summary)
            .into_iter()
            .chain(s.sessions())
            .collect();
        let folded = earlier.map_or(0, |e| e.count.saturating_sub(1));
        let mut tokens = Tokens::default();
        let mut tools: Tally<ToolStats> = Tally::default();
        let mut models: Tally<ModelStats> = Tally::default();
        let mut total = Row {
            sessions: sessions.len() as u64 + folded,
            outcome: s.worst_outcome().map(Outcome::name),
            // Lines skipped before any session began belong to none.
            skipped_lines: s.stats().skipped,
            ..Row::default()
        };
        let rows: Vec<Row> = sessions
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let mut row = Row::of_session(x, prices);
                if i == 0
                    && let Some(e) = earlier
                {
                    row.sessions = e.count;
                }
                row
            })
            .collect();
        for (one, row) in sessions.iter().zip(&rows) {
            total.add(one, row);
            tokens.add(&one.tokens());
            tools.merge(&one.tools);
            models.merge(one.models());
        }
        let same = |f: &dyn Fn(&SessionSummary) -> Option<String>| -> Option<String> {
            let first = f(sessions.first()?);
            sessions
                .iter()
                .all(|x| f(x) == first)
                .then_some(first)
                .flatten()
        };
        total.producer = same(&|x| x.producer.map(|p| p.name().to_string()));
        total.model = same(&|x| x.model.clone());
        total.cost_usd = total.cost_usd.map(round_cost);
        total.cost_partial |= total.cost_usd.is_some() && rows.iter().any(|x| x.cost_usd.is_none());
        total.tokens = tokens.into();
        total.cache_read_pct = share(&tokens);
        total.tools = tool_rows(&tools);
        total.models = model_rows(&models, prices);
        total.unpriced_models = unpriced(&total.models);
        let estimated = total.cost_estimated || total.models.iter().any(|m| m.cost_estimated);
        Summary {
            v: SUMMARY_VERSION,
            sessions: rows,
            total,
            prices_as_of: prices.as_of.clone().filter(|_| estimated),
            by: s.groups().map(|g| Groups::of(g, prices)),
            outcomes: s.outcomes(),
            zone: s.zone().clone(),
            width: None,
            verbose: false,
        }
    }
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

/// How a column's cells are aligned.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// Text.
    Left,
    /// Numbers.
    Right,
}

/// A table of the summary: its head and rows of cells (sanitized for one
/// line, not escaped for any markup). Written padded as plain text here,
/// and as Markdown and HTML tables by the report formats.
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
    fn width(&self) -> usize {
        let w = self.widths();
        w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1)
    }

    /// Make it at most `width` wide, taking the steps of `order` one after
    /// the other until it is (a table that cannot is left as narrow as they
    /// make it).
    fn fit(&mut self, width: usize, order: &[Fit]) {
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

    fn write<W: WriteColor>(&self, w: &mut W) -> io::Result<()> {
        let n = self.head.len();
        let mut width: Vec<usize> = self.head.iter().map(|(h, _)| h.chars().count()).collect();
        for r in &self.rows {
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
                if self.head[i].1 == Align::Right {
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
        let head: Vec<Cow<'_, str>> = self.head.iter().map(|(h, _)| Cow::Borrowed(*h)).collect();
        line(w, &head, Some(&bold))?;
        for (i, r) in self.rows.iter().enumerate() {
            let cells: Vec<Cow<'_, str>> = r.iter().map(|c| Cow::Borrowed(c.as_str())).collect();
            line(w, &cells, (self.total == Some(i)).then_some(&bold))?;
        }
        Ok(())
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
    match session_table(summary) {
        Some(t) => t.write(w)?,
        None => w.write_all(b"no session in the input\n")?,
    }
    for table in tables_after_sessions(summary) {
        w.write_all(b"\n")?;
        table.write(w)?;
    }
    write_notes(w, summary)
}

/// How `--list` is made to fit a terminal narrower than it: the title
/// cut to 20 characters, the file to 24 (its end kept), the project to
/// 10, then the title, the project and the agent left out.
pub const LIST_FIT: [Fit; 6] = [
    Fit::Shrink("title", 20),
    Fit::ShrinkStart("file", 24),
    Fit::Shrink("project", 10),
    Fit::Drop("title"),
    Fit::Drop("project"),
    Fit::Drop("agent"),
];

/// The sessions of `summary`, newest first (those without a time last, in
/// input order).
fn newest_first(summary: &Summary) -> Vec<&Row> {
    let mut rows: Vec<&Row> = summary.sessions.iter().collect();
    // RFC 3339 in UTC with the same layout: the text sorts as the time.
    rows.sort_by(|a, b| match (&a.started, &b.started) {
        (Some(x), Some(y)) => y.cmp(x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    rows
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
    let rows = (rows.into_iter())
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
    table.write(w)
}

/// Render the table of `--by` alone, with its total row, and the notes
/// (`--by` without `--format`, as `ccusage daily` prints it).
///
/// # Errors
/// The output cannot be written.
pub fn write_groups<W: WriteColor>(w: &mut W, summary: &Summary) -> io::Result<()> {
    match group_table(summary) {
        Some(t) if !summary.sessions.is_empty() => t.write(w)?,
        _ => w.write_all(b"no session in the input\n")?,
    }
    write_notes(w, summary)
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
    let notes = notes(summary);
    if !notes.is_empty() {
        w.write_all(b"\n")?;
        w.write_all(notes.join(" · ").as_bytes())?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

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
    if let Some(width) = summary.width
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

/// The sums of the groups' rows (each column adds up to it).
fn group_total(rows: &[GroupRow]) -> GroupRow {
    let mut t = GroupRow {
        group: String::new(),
        sessions: 0,
        tokens: TokenCounts::default(),
        cost_usd: None,
        cost_estimated: false,
        cost_partial: false,
        tool_calls: 0,
        tool_errors: 0,
        models: Vec::new(),
    };
    for g in rows {
        t.sessions += g.sessions;
        t.tokens.input = add_opt_u64(t.tokens.input, g.tokens.input);
        t.tokens.output = add_opt_u64(t.tokens.output, g.tokens.output);
        t.tokens.cache_read = add_opt_u64(t.tokens.cache_read, g.tokens.cache_read);
        t.tokens.cache_creation = add_opt_u64(t.tokens.cache_creation, g.tokens.cache_creation);
        t.cost_usd = add_opt_f64(t.cost_usd, g.cost_usd);
        t.cost_estimated |= g.cost_estimated;
        t.cost_partial |= g.cost_partial || (g.cost_usd.is_none() && g.sessions > 0);
        t.tool_calls += g.tool_calls;
        t.tool_errors += g.tool_errors;
    }
    t.cost_partial &= t.cost_usd.is_some();
    t.cost_usd = t.cost_usd.map(round_cost);
    t
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
        self.alerts.finish(s)?;
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
        self.out.flush()
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
