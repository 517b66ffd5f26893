//! `--by`: the sessions' totals grouped by the day, week or month they
//! began (in the local time zone), by project (working directory) or by
//! agent: "what did I spend this week, on which project".
//!
//! A session is added to its group when it closes ([`Groups::add`]), so
//! the groups count every session, also those folded beyond the sessions
//! a summary lists, and the groups of runs on other threads add up
//! ([`Groups::merge`]). A session's cost is its reported one, else its
//! estimate ([`SessionSummary::cost`]); a session without a timestamp is
//! in the group `–`.

use std::collections::BTreeMap;

use super::price::Prices;
use super::{Cost, SessionSummary, add_opt_f64};
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
    /// Its working directory.
    Project,
    /// The agent (producer) that wrote it.
    Agent,
}

impl By {
    /// The name of the grouping (`--by` value, the table's first column).
    pub fn name(self) -> &'static str {
        match self {
            By::Day => "day",
            By::Week => "week",
            By::Month => "month",
            By::Project => "project",
            By::Agent => "agent",
        }
    }
}

/// One group's totals.
#[derive(Clone, Debug, Default, PartialEq)]
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
}

impl Group {
    fn add(&mut self, other: &Group) {
        self.sessions += other.sessions;
        self.tokens.add(&other.tokens);
        self.cost.usd = add_opt_f64(self.cost.usd, other.cost.usd);
        // A session of unknown cost makes the sum a lower bound.
        self.cost.partial |= other.cost.partial;
        self.cost.estimated |= other.cost.estimated;
        self.tool_calls += other.tool_calls;
        self.tool_errors += other.tool_errors;
    }
}

/// The groups of a run; see the module docs.
#[derive(Clone, Debug)]
pub struct Groups {
    by: By,
    zone: Zone,
    rows: BTreeMap<String, Group>,
}

/// The group of sessions without what the grouping needs.
pub const UNKNOWN: &str = "–";

impl Groups {
    /// No group yet, by `by`, days in `zone`.
    pub fn new(by: By, zone: Zone) -> Groups {
        Groups {
            by,
            zone,
            rows: BTreeMap::new(),
        }
    }

    /// What the sessions are grouped by.
    pub fn by(&self) -> By {
        self.by
    }

    /// The groups, in order (dates ascending, `–` last).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Group)> {
        self.rows.iter().map(|(k, g)| (k.as_str(), g))
    }

    /// Add a closed session to its group.
    pub fn add(&mut self, s: &SessionSummary, prices: &Prices) {
        let key = self.key(s);
        let cost = s.cost(prices);
        let one = Group {
            sessions: 1,
            tokens: s.tokens(),
            cost: Cost {
                // Unknown: the group's sum is a lower bound.
                partial: cost.partial || (cost.usd.is_none() && !s.tokens().is_empty()),
                ..cost
            },
            tool_calls: s.tool_calls,
            tool_errors: s.tool_errors,
        };
        self.rows.entry(key).or_default().add(&one);
    }

    /// Add the groups of a run that read after this one (`-j`).
    pub fn merge(&mut self, other: &Groups) {
        for (k, g) in &other.rows {
            self.rows.entry(k.clone()).or_default().add(g);
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
            (By::Project, _) => s.cwd.clone().unwrap_or_else(|| UNKNOWN.to_string()),
            (By::Agent, _) => s.producer.map_or(UNKNOWN, |p| p.name()).to_string(),
            (By::Day | By::Week | By::Month, None) => UNKNOWN.to_string(),
        }
    }
}
