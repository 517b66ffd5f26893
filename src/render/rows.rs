//! The summary as data: per session and across all of them, turns, duration,
//! cost, tokens, cache share, tool calls and errors; per tool, model and group.
//!
//! [`Summary::from_session`] reads the [`Session`] state once at the end of
//! the input. Its fields are those of `--format summary-json` (and a
//! [`Row`] is a line of `--list --format summary-json`); what people read
//! is made from them elsewhere: the tables (`tables.rs`), drawn by the
//! terminal (`summary.rs`), Markdown and HTML, and the bars and chart of
//! `--by` (`chart.rs`). Nothing here is sanitized or escaped: that is for
//! whoever writes it.
//!
//! Per-tool time is not reported: events carry no arrival time yet.

use serde::Serialize;

use crate::event::Tokens;
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
    /// see [`SESSION_FIT`](super::tables::SESSION_FIT).
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
    pub(crate) fn of(
        o: crate::session::group::OpenBlock,
        zone: &crate::time::zone::Zone,
    ) -> OpenBlock {
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
            let cost = m.shown_cost(prices);
            ModelRow {
                model: m.model.clone(),
                tokens: m.tokens.into(),
                cost_usd: cost.map(|(usd, _)| round_cost(usd)),
                cost_estimated: cost.is_some_and(|(_, estimated)| estimated),
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
        let models = model_rows(&s.priced_models(prices), prices);
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
                    row.cost_usd = e.cost.usd.map(round_cost);
                    row.cost_estimated = e.cost.estimated;
                    row.cost_partial = e.cost.partial;
                }
                row
            })
            .collect();
        for (one, row) in sessions.iter().zip(&rows) {
            total.add(one, row);
            tokens.add(&one.tokens());
            tools.merge(&one.tools);
            models.merge(&one.priced_models(prices));
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

/// The sessions of `summary`, newest first (those without a time last, in
/// input order).
pub(crate) fn newest_first(summary: &Summary) -> Vec<&Row> {
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

/// The sums of the groups' rows (each column adds up to it).
pub(crate) fn group_total(rows: &[GroupRow]) -> GroupRow {
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
