//! `--by`: the sessions' totals grouped by the day, week or month they
//! began (in the local time zone), by session id, project (working
//! directory), model or agent, or by Claude's 5-hour usage blocks: "what
//! did I spend this week, on which project, with which model".
//!
//! A session is added to its group when it closes ([`Groups::add`]), so
//! the groups count every session, also those folded beyond the sessions
//! a summary lists, and the groups of runs on other threads add up
//! ([`Groups::merge`]). A session's cost is its reported one, else its
//! estimate ([`SessionSummary::cost`]); a session without a timestamp is
//! in the group `–`.
//!
//! By model, a session's usage is split by its models (a session of two
//! models counts in both; its calls count with its main model's). By
//! block, each API message counts in the hour (UTC) it was answered in,
//! and the hours make blocks as Claude's usage limits do (and ccusage
//! shows them): a block begins at the hour of the first message after the
//! last block ended, and lasts 5 hours. A session's count and calls go to
//! the block it began in; a session whose messages have no time, to the
//! hour it began, else to `–`.

use std::collections::BTreeMap;

use super::price::Prices;
use super::{Cost, ModelStats, SessionSummary, Tally, add_opt_f64};
use crate::event::Tokens;
use crate::time::zone::Zone;
use crate::time::{Timestamp, civil_from_days};

/// What sessions are grouped by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// The local day the session began: `2026-11-24`.
    Day,
    /// The week (from Monday) it began, named by its Monday: `2026-11-23`.
    Week,
    /// The month it began: `2026-11`.
    Month,
    /// Its session id (the files of a session resumed under its id
    /// together).
    Session,
    /// Its working directory.
    Project,
    /// The models that answered.
    Model,
    /// The agent (producer) that wrote it.
    Agent,
    /// Claude's 5-hour usage blocks (see the module docs).
    Block,
}

impl By {
    /// The name of the grouping (`--by` value, the table's first column).
    pub fn name(self) -> &'static str {
        match self {
            By::Day => "day",
            By::Week => "week",
            By::Month => "month",
            By::Session => "session",
            By::Project => "project",
            By::Model => "model",
            By::Agent => "agent",
            By::Block => "block",
        }
    }
}

/// One group's totals.
#[derive(Clone, Debug, Default)]
pub struct Group {
    /// Sessions in it.
    pub sessions: u64,
    /// Their tokens.
    pub tokens: Tokens,
    /// Their cost, summed: reported or estimated.
    pub cost: Cost,
    /// Tool calls.
    pub tool_calls: u64,
    /// Tool results that were errors.
    pub tool_errors: u64,
    /// The tokens by model (and the cost a producer reported for them),
    /// as ccusage's breakdowns give them.
    pub models: Tally<ModelStats>,
}

impl Group {
    /// Add tokens of `model` (`None`: unnamed), priced by `prices`.
    fn add_usage(&mut self, model: Option<&str>, tokens: &Tokens, prices: &Prices) {
        self.tokens.add(tokens);
        if let Some(m) = model {
            self.models.get_mut(m).tokens.add(tokens);
        }
        match model.and_then(|m| prices.estimate(m, tokens)) {
            Some(c) => {
                self.cost.usd = add_opt_f64(self.cost.usd, Some(c));
                self.cost.estimated = true;
            }
            None => self.cost.partial |= tokens.total() > 0,
        }
    }

    fn add(&mut self, other: &Group) {
        self.sessions += other.sessions;
        self.tokens.add(&other.tokens);
        self.cost.usd = add_opt_f64(self.cost.usd, other.cost.usd);
        // A session of unknown cost makes the sum a lower bound.
        self.cost.partial |= other.cost.partial;
        self.cost.estimated |= other.cost.estimated;
        self.tool_calls += other.tool_calls;
        self.tool_errors += other.tool_errors;
        self.models.merge(&other.models);
    }
}

/// The groups of a run; see the module docs.
#[derive(Clone, Debug)]
pub struct Groups {
    by: By,
    zone: Zone,
    rows: BTreeMap<String, Group>,
    /// By block: the usage of each hour (since the epoch, UTC) with any.
    hours: BTreeMap<i64, Group>,
}

/// Hours in a usage block.
const BLOCK_HOURS: i64 = 5;

/// Milliseconds in an hour.
pub(super) const HOUR_MS: i64 = 3_600_000;

/// Hours (with their models) one session keeps its usage by at most,
/// about a year of use every hour: a crafted session's timestamps cannot
/// make memory grow without end (see `Session::usage`).
pub(super) const MAX_HOURS: usize = 8192;

/// Hours the usage blocks of a run are made of at most (15 years of use
/// every hour).
const MAX_GROUP_HOURS: usize = 1 << 17;

/// The group of sessions without what the grouping needs.
pub const UNKNOWN: &str = "–";

impl Groups {
    /// No group yet, by `by`, days in `zone`.
    pub fn new(by: By, zone: Zone) -> Groups {
        Groups {
            by,
            zone,
            rows: BTreeMap::new(),
            hours: BTreeMap::new(),
        }
    }

    /// What the sessions are grouped by.
    pub fn by(&self) -> By {
        self.by
    }

    /// The groups, in order (dates and blocks ascending, `–` last).
    pub fn rows(&self) -> Vec<(String, Group)> {
        let mut rows = self.blocks();
        rows.extend(self.rows.iter().map(|(k, g)| (k.clone(), g.clone())));
        rows
    }

    /// The usage blocks the hours make (see the module docs), named by
    /// the local time they began.
    fn blocks(&self) -> Vec<(String, Group)> {
        let mut blocks: Vec<(i64, Group)> = Vec::new();
        for (&hour, g) in &self.hours {
            match blocks.last_mut() {
                Some((start, block)) if hour < *start + BLOCK_HOURS => block.add(g),
                _ => blocks.push((hour, g.clone())),
            }
        }
        blocks
            .into_iter()
            .filter_map(|(hour, g)| {
                let t = Timestamp::from_millis(hour.checked_mul(HOUR_MS)?)?;
                let local = t.millis() + self.zone.offset_at(t) * 1000;
                let (y, m, d) = civil_from_days(local.div_euclid(86_400_000));
                let mins = local.rem_euclid(86_400_000) / 60_000;
                let key = format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", mins / 60, mins % 60);
                Some((key, g))
            })
            .collect()
    }

    /// Add a closed session to its group.
    pub fn add(&mut self, s: &SessionSummary, prices: &Prices) {
        match self.by {
            By::Model => return self.add_by_model(s, prices),
            By::Block if !s.hours.is_empty() || s.started.is_some() => {
                return self.add_by_hour(s, prices);
            }
            _ => {}
        }
        let key = self.key(s);
        self.rows
            .entry(key)
            .or_default()
            .add(&Self::whole(s, prices));
    }

    /// A session's totals as one group's.
    fn whole(s: &SessionSummary, prices: &Prices) -> Group {
        let cost = s.cost(prices);
        Group {
            sessions: 1,
            tokens: s.tokens(),
            cost: Cost {
                // Unknown: the group's sum is a lower bound.
                partial: cost.partial || (cost.usd.is_none() && !s.tokens().is_empty()),
                ..cost
            },
            tool_calls: s.tool_calls,
            tool_errors: s.tool_errors,
            models: s.models().clone(),
        }
    }

    /// By model: each model's usage in its group; the session and its
    /// calls with its main model (the header's, else its first).
    fn add_by_model(&mut self, s: &SessionSummary, prices: &Prices) {
        let models = s.models();
        if models.len() <= 1 {
            // One model (or none): the session's totals, its reported cost.
            let key = models.first().map_or(UNKNOWN, |m| m.model.as_str());
            let key = key.to_string();
            return self
                .rows
                .entry(key)
                .or_default()
                .add(&Self::whole(s, prices));
        }
        let main = (s.model.as_deref())
            .filter(|m| models.iter().any(|x| x.model == *m))
            .unwrap_or(&models[0].model);
        for m in models {
            let g = self.rows.entry(m.model.clone()).or_default();
            match m.cost_usd {
                Some(c) => {
                    g.tokens.add(&m.tokens);
                    g.cost.usd = add_opt_f64(g.cost.usd, Some(c));
                    g.models.get_mut(&m.model).add(m);
                }
                None => g.add_usage(Some(&m.model), &m.tokens, prices),
            }
            if m.model == main {
                g.sessions += 1;
                g.tool_calls += s.tool_calls;
                g.tool_errors += s.tool_errors;
            }
        }
    }

    /// By block: each hour's usage, the session with the hour it began.
    fn add_by_hour(&mut self, s: &SessionSummary, prices: &Prices) {
        let first = s.hours.keys().next().map(|&(h, _)| h);
        let began = s.started.map(|t| t.millis().div_euclid(HOUR_MS));
        let Some(hour) = began.or(first) else {
            return;
        };
        if s.hours.is_empty() {
            // No message has a time: the session's totals, when it began.
            self.hour(hour).add(&Self::whole(s, prices));
            return;
        }
        for (&(h, slot), tokens) in &s.hours {
            let model = slot.and_then(|i| s.message_models.get(i));
            let model = model.map(|m| m.model.as_str());
            self.hour(h).add_usage(model, tokens, prices);
        }
        let g = self.hour(hour);
        g.sessions += 1;
        g.tool_calls += s.tool_calls;
        g.tool_errors += s.tool_errors;
    }

    /// The usage of hour `h`; beyond [`MAX_GROUP_HOURS`] hours (crafted
    /// timestamps), the group `–`.
    fn hour(&mut self, h: i64) -> &mut Group {
        if self.hours.len() >= MAX_GROUP_HOURS && !self.hours.contains_key(&h) {
            return self.rows.entry(UNKNOWN.to_string()).or_default();
        }
        self.hours.entry(h).or_default()
    }

    /// Add the groups of a run that read after this one (`-j`).
    pub fn merge(&mut self, other: &Groups) {
        for (k, g) in &other.rows {
            self.rows.entry(k.clone()).or_default().add(g);
        }
        for (h, g) in &other.hours {
            self.hour(*h).add(g);
        }
    }

    fn key(&self, s: &SessionSummary) -> String {
        let date = |t: Timestamp| {
            let local = t.millis() + self.zone.offset_at(t) * 1000;
            civil_from_days(local.div_euclid(86_400_000))
        };
        match (self.by, s.started) {
            (By::Day, Some(t)) => {
                let (y, m, d) = date(t);
                format!("{y:04}-{m:02}-{d:02}")
            }
            (By::Week, Some(t)) => {
                let local = t.millis() + self.zone.offset_at(t) * 1000;
                let days = local.div_euclid(86_400_000);
                // 1970-01-01 was a Thursday: Monday is 3 days before.
                let monday = days - (days + 3).rem_euclid(7);
                let (y, m, d) = civil_from_days(monday);
                format!("{y:04}-{m:02}-{d:02}")
            }
            (By::Month, Some(t)) => {
                let (y, m, _) = date(t);
                format!("{y:04}-{m:02}")
            }
            (By::Session, _) => s.id.clone().unwrap_or_else(|| UNKNOWN.to_string()),
            (By::Project, _) => s.cwd.clone().unwrap_or_else(|| UNKNOWN.to_string()),
            (By::Agent, _) => s.producer.map_or(UNKNOWN, |p| p.name()).to_string(),
            (By::Model, _) => s.model.clone().unwrap_or_else(|| UNKNOWN.to_string()),
            (By::Day | By::Week | By::Month, None) | (By::Block, _) => UNKNOWN.to_string(),
        }
    }
}
