//! `--by`: the totals of a run grouped by time (day, week, month in the
//! local time zone, or Claude's 5-hour usage blocks), by session id,
//! project (working directory), model or agent: "what did I spend this
//! week, on which project, with which model".
//!
//! A session is added to its groups when it closes ([`Groups::add`]), so
//! the groups count every session, also those folded beyond the sessions
//! a summary lists, and the groups of runs on other threads add up
//! ([`Groups::merge`]). By session, project or agent a session counts
//! whole: its cost is its reported one, else its estimate
//! ([`SessionSummary::cost`]).
//!
//! By time, as ccusage counts, each API message counts when it was
//! answered: the session keeps its usage by time bucket
//! ([`Groups::bucket`]: the local day, or for blocks the quarter hour, so
//! that a local day of any zone is made of whole buckets), and
//! its cost is estimated from those tokens. A session's count and calls go
//! to the bucket it began in; a session whose messages carry no time
//! counts whole when it began, else in `–`. Blocks are made of the hours
//! as Claude's usage limits make them (and ccusage shows them): a block
//! begins at the hour of the first message after the last block ended,
//! and lasts 5 hours.
//!
//! By model, a session's usage is split by its models (a session of two
//! models counts in both; its calls count with its main model's).

use std::collections::BTreeMap;

use super::price::Prices;
use super::share::spread;
use super::{Cost, ModelStats, SessionSummary, Tally, add_opt_f64};
use crate::event::Tokens;
use crate::time::zone::Zone;
use crate::time::{Timestamp, civil_from_days};

/// What the totals are grouped by (`--by`; the docs are its help).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    /// The local day each API message was answered (a session counts on the day it began).
    Day,
    /// The week (from Monday), named by its Monday.
    Week,
    /// The month.
    Month,
    /// Its session id (a session resumed under its id: its files together).
    Session,
    /// Its working directory.
    Project,
    /// The models that answered (a session of two models counts in both).
    Model,
    /// The agent that wrote it.
    Agent,
    /// Claude's 5-hour usage blocks: each API message in the block of the hour it was
    /// answered in.
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
    /// Add a part of a session (a model's usage, or a time bucket's):
    /// its tokens `u` of `model` (`None`: unnamed) and its `share` of the
    /// session's cost, reported or estimated as the session's `whole` is.
    fn add_part(&mut self, model: Option<&str>, u: &ModelStats, share: Option<f64>, whole: Cost) {
        self.tokens.add(&u.tokens);
        if let Some(m) = model {
            // The breakdown's cost: the share, marked as the session's is.
            self.models.get_mut(m).add(&ModelStats {
                tokens: u.tokens,
                cost_usd: share.filter(|_| !whole.estimated),
                estimate: share.filter(|_| whole.estimated),
                ..ModelStats::default()
            });
        }
        match share {
            Some(c) => {
                self.cost.usd = add_opt_f64(self.cost.usd, Some(c));
                self.cost.estimated |= whole.estimated;
                self.cost.partial |= whole.partial;
            }
            None => self.cost.partial |= u.tokens.total() > 0,
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
    /// By time: the usage of each time bucket with any ([`Groups::bucket`]),
    /// by agent for blocks (`""` by day, week or month).
    buckets: BTreeMap<(&'static str, i64), Group>,
}

/// A usage block that has not ended yet (see [`Groups::open_blocks`]).
#[derive(Clone, Debug)]
pub struct OpenBlock {
    /// Its row's name.
    pub name: String,
    /// Its agent's name (`claude`: see [`crate::event::Producer::agent`]).
    pub agent: &'static str,
    /// When it began.
    pub start: Timestamp,
    /// When it ends: 5 hours after it began.
    pub end: Timestamp,
    /// Its usage so far.
    pub group: Group,
    /// When it was found open.
    pub now: Timestamp,
}

impl OpenBlock {
    /// Milliseconds until it ends.
    pub fn left_ms(&self) -> i64 {
        self.end.millis() - self.now.millis()
    }
}

/// Hours in a usage block.
const BLOCK_HOURS: i64 = 5;

/// Milliseconds in an hour.
pub(super) const HOUR_MS: i64 = 3_600_000;

/// Milliseconds in a quarter hour: a block's bucket (every zone's offset
/// is a whole number of them).
const QUARTER_MS: i64 = 900_000;

/// Quarter hours in an hour.
const QUARTERS: i64 = HOUR_MS / QUARTER_MS;

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// Time buckets (with their models) one session keeps its usage by at
/// most, about a year of use every hour: a crafted session's timestamps
/// cannot make memory grow without end (see `Session::usage`).
pub(super) const MAX_BUCKETS: usize = 8192;

/// Time buckets a run keeps at most (15 years of use every hour, or
/// every quarter hour of 4 years).
const MAX_GROUP_BUCKETS: usize = 1 << 17;

/// The group of sessions without what the grouping needs.
pub const UNKNOWN: &str = "–";

impl Groups {
    /// No group yet, by `by`, days in `zone`.
    pub fn new(by: By, zone: Zone) -> Groups {
        Groups {
            by,
            zone,
            rows: BTreeMap::new(),
            buckets: BTreeMap::new(),
        }
    }

    /// What the sessions are grouped by.
    pub fn by(&self) -> By {
        self.by
    }

    /// The zone days and blocks are named in.
    pub fn zone(&self) -> &Zone {
        &self.zone
    }

    /// The time bucket `t` counts in: for blocks its quarter hour (since
    /// the epoch, UTC), for days, weeks and months its local day (since the
    /// epoch); `None` when the groups are not by time.
    pub fn bucket(&self, t: Timestamp) -> Option<i64> {
        match self.by {
            By::Block => Some(t.millis().div_euclid(QUARTER_MS)),
            By::Day | By::Week | By::Month => {
                Some((t.millis() + self.zone.offset_at(t) * 1000).div_euclid(DAY_MS))
            }
            By::Session | By::Project | By::Model | By::Agent => None,
        }
    }

    /// The groups, in order (dates and blocks ascending, `–` last).
    pub fn rows(&self) -> Vec<(String, Group)> {
        let mut rows = match self.by {
            By::Block => self.blocks(),
            By::Day | By::Week | By::Month => self.dates(),
            By::Session | By::Project | By::Model | By::Agent => Vec::new(),
        };
        rows.extend(self.rows.iter().map(|(k, g)| (k.clone(), g.clone())));
        rows
    }

    /// The days, weeks or months the local days make.
    fn dates(&self) -> Vec<(String, Group)> {
        let mut dates: BTreeMap<String, Group> = BTreeMap::new();
        for (&(_, day), g) in &self.buckets {
            let key = match self.by {
                By::Week => {
                    // 1970-01-01 was a Thursday: Monday is 3 days before.
                    let (y, m, d) = civil_from_days(day - (day + 3).rem_euclid(7));
                    format!("{y:04}-{m:02}-{d:02}")
                }
                By::Month => {
                    let (y, m, _) = civil_from_days(day);
                    format!("{y:04}-{m:02}")
                }
                _ => {
                    // By day.
                    let (y, m, d) = civil_from_days(day);
                    format!("{y:04}-{m:02}-{d:02}")
                }
            };
            dates.entry(key).or_default().add(g);
        }
        dates.into_iter().collect()
    }

    /// The usage blocks the hours make (see the module docs), each
    /// agent's apart, named by the local time they began (and their agent,
    /// when there are several), in the order they began.
    fn blocks(&self) -> Vec<(String, Group)> {
        self.agent_blocks()
            .into_iter()
            .map(|(_, _, name, g)| (name, g))
            .collect()
    }

    /// The blocks, each with the hour it began and its agent.
    fn agent_blocks(&self) -> Vec<(i64, &'static str, String, Group)> {
        let mut blocks: Vec<(&'static str, i64, Group)> = Vec::new();
        // In the order of agent, then time: each agent's hours together.
        for (&(agent, quarter), g) in &self.buckets {
            let hour = quarter.div_euclid(QUARTERS);
            match blocks.last_mut() {
                Some((a, start, block)) if *a == agent && hour < *start + BLOCK_HOURS => {
                    block.add(g);
                }
                _ => blocks.push((agent, hour, g.clone())),
            }
        }
        blocks.sort_by_key(|&(agent, hour, _)| (hour, agent));
        let several = blocks.iter().any(|(a, ..)| *a != blocks[0].0);
        blocks
            .into_iter()
            .filter_map(|(agent, hour, g)| {
                let t = Timestamp::from_millis(hour.checked_mul(HOUR_MS)?)?;
                let mut name = self.zone.minute(t);
                if several {
                    name = format!("{name} {agent}");
                }
                Some((hour, agent, name, g))
            })
            .collect()
    }

    /// By block, the blocks not ended at `now` (one per agent at most),
    /// for `ccusage blocks --live`'s numbers.
    pub fn open_blocks(&self, now: Timestamp) -> Vec<OpenBlock> {
        if self.by != By::Block {
            return Vec::new();
        }
        self.agent_blocks()
            .into_iter()
            .filter_map(|(hour, agent, name, group)| {
                let start = Timestamp::from_millis(hour.checked_mul(HOUR_MS)?)?;
                let end = start.plus(BLOCK_HOURS * HOUR_MS);
                (start <= now && now < end).then_some(OpenBlock {
                    name,
                    agent,
                    start,
                    end,
                    group,
                    now,
                })
            })
            .collect()
    }

    /// By block, the usage of every agent answered at `from` or later (a
    /// local day's, when `from` is its midnight: days are whole quarter
    /// hours in every zone).
    pub fn usage_since(&self, from: Timestamp) -> Group {
        let mut sum = Group::default();
        if self.by == By::Block {
            let first = from.millis().div_euclid(QUARTER_MS)
                + i64::from(from.millis().rem_euclid(QUARTER_MS) != 0);
            for (_, g) in self.buckets.iter().filter(|((_, q), _)| *q >= first) {
                sum.add(g);
            }
        }
        sum
    }

    /// By block, whether `agent`'s blocks from `known` on are those of its
    /// whole history, when only the messages answered since `known` were
    /// added (`--since`): a block begins at the first message after the
    /// last one ended, so once no message came for a block's length, what
    /// came before no longer matters. True when such a pause lies between
    /// `known` and `now`.
    pub fn blocks_settled(&self, agent: &str, known: Timestamp, now: Timestamp) -> bool {
        let quiet = BLOCK_HOURS * QUARTERS;
        let quarter = |t: Timestamp| t.millis().div_euclid(QUARTER_MS);
        // The quarter before the first known one: no message is known in it.
        let mut last = quarter(known) - 1;
        for &(a, q) in self.buckets.keys() {
            if a != agent || q <= last {
                continue;
            }
            // Messages in quarters `last` and `q` are more than the
            // quarters between them apart.
            if q - last > quiet {
                return true;
            }
            last = q;
        }
        quarter(now) - last > quiet
    }

    /// Add a closed session to its group.
    pub fn add(&mut self, s: &SessionSummary, prices: &Prices) {
        match self.by {
            By::Model => return self.add_by_model(s, prices),
            By::Block | By::Day | By::Week | By::Month => return self.add_by_time(s, prices),
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
            models: s.priced_models(prices),
        }
    }

    /// By model: each model's usage and its share of the session's cost
    /// ([`SessionSummary::priced_models`]) in its group; the session and its calls with its main
    /// model (the header's, else its first).
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
        let whole = s.cost(prices);
        for m in &s.priced_models(prices) {
            let g = self.rows.entry(m.model.clone()).or_default();
            g.add_part(Some(&m.model), m, m.cost_usd.or(m.estimate), whole);
            if m.model == main {
                g.sessions += 1;
                g.tool_calls += s.tool_calls;
                g.tool_errors += s.tool_errors;
            }
        }
    }

    /// By time: the usage of each bucket with its share of the session's
    /// cost ([`spread`]), the session in the bucket it began in, with
    /// what its totals count beyond its messages (a transcript's
    /// sub-agents known only by its cost line); a session whose messages'
    /// counts are not final (Claude Code's stream: its result reports
    /// them), or have no time, whole when it began.
    fn add_by_time(&mut self, s: &SessionSummary, prices: &Prices) {
        let first = s.buckets.keys().next().map(|&(b, _)| b);
        let began = s.started.and_then(|t| self.bucket(t));
        let Some(bucket) = began.or(first) else {
            let key = self.key(s);
            self.rows
                .entry(key)
                .or_default()
                .add(&Self::whole(s, prices));
            return;
        };
        // Blocks are each agent's: Claude's 5-hour windows mean nothing to Codex.
        let agent = match self.by {
            By::Block => s.producer.map_or(UNKNOWN, |p| p.agent()),
            _ => "",
        };
        if s.buckets.is_empty() || !s.messages_final() {
            self.at(agent, bucket).add(&Self::whole(s, prices));
            return;
        }
        let model_of = |slot: Option<usize>| {
            let m = slot.and_then(|i| s.message_models.get(i));
            m.map(|m| m.model.as_str())
        };
        let whole = s.cost(prices);
        let parts: Vec<_> = (s.buckets.iter())
            .map(|(&(_, slot), u)| {
                // Reported and estimated messages of one bucket and model
                // add up; a bucket of neither is priced whole.
                let own = add_opt_f64(u.cost_usd, u.estimate)
                    .or_else(|| prices.estimate(model_of(slot)?, &u.tokens));
                (model_of(slot).and(own), u.tokens.total())
            })
            .collect();
        let shares = spread(&parts, whole);
        let mut counted = Tokens::default();
        for ((&(b, slot), u), share) in s.buckets.iter().zip(shares.each) {
            counted.add(&u.tokens);
            self.at(agent, b).add_part(model_of(slot), u, share, whole);
        }
        // What the session's totals count beyond its messages.
        let mut beyond = ModelStats {
            tokens: s.tokens(),
            ..ModelStats::default()
        };
        beyond.tokens.sub(&counted);
        let g = self.at(agent, bucket);
        if beyond.tokens.total() > 0 || shares.rest.is_some() {
            // A reported cost spread over the messages counts these too.
            let rest = shares.rest.or(whole.usd.map(|_| 0.0));
            g.add_part(s.model.as_deref(), &beyond, rest, whole);
        }
        g.sessions += 1;
        g.tool_calls += s.tool_calls;
        g.tool_errors += s.tool_errors;
    }

    /// The usage of time bucket `h`; beyond [`MAX_GROUP_BUCKETS`] of them
    /// (crafted timestamps), the group `–`.
    fn at(&mut self, agent: &'static str, h: i64) -> &mut Group {
        let key = (agent, h);
        if self.buckets.len() >= MAX_GROUP_BUCKETS && !self.buckets.contains_key(&key) {
            return self.rows.entry(UNKNOWN.to_string()).or_default();
        }
        self.buckets.entry(key).or_default()
    }

    /// Add the groups of a run that read after this one (`-j`).
    pub fn merge(&mut self, other: &Groups) {
        for (k, g) in &other.rows {
            self.rows.entry(k.clone()).or_default().add(g);
        }
        for (&(agent, h), g) in &other.buckets {
            self.at(agent, h).add(g);
        }
    }

    /// The group of a session that counts whole (a session of no time
    /// counts in `–` by time).
    fn key(&self, s: &SessionSummary) -> String {
        match self.by {
            By::Session => s.id.clone(),
            By::Project => s.cwd.clone(),
            By::Agent => s.producer.map(|p| p.name().to_string()),
            By::Model => s.model.clone(),
            By::Day | By::Week | By::Month | By::Block => None,
        }
        .unwrap_or_else(|| UNKNOWN.to_string())
    }
}
