//! What is counted per tool and per model (the rows of a [`Tally`]) and
//! a session's cost, and how two counts add up.

use std::sync::Arc;
use std::time::Duration;

use crate::event::Tokens;
use crate::event::ToolKind;

use super::{Prices, Row};

/// Calls of one tool in a session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolStats {
    /// Tool name as the producer spells it (shared with its calls).
    pub name: Arc<str>,
    /// What the tool does (as its first call said).
    pub kind: ToolKind,
    /// Calls made (sub-agents included).
    pub calls: u64,
    /// Results that were errors (permission refusals included).
    pub errors: u64,
    /// Distinct permission denials.
    pub denials: u64,
    /// Time from each call to its result, summed: by arrival, or in a
    /// replay by the events' timestamps (see [`Session::replaying`](super::Session::replaying)).
    pub time: Duration,
}

/// What a session cost in USD, and how sure that is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// The cost; `None` when neither reported nor priced.
    pub usd: Option<f64>,
    /// Estimated from a price table: the producer reported none.
    pub estimated: bool,
    /// A lower bound: some tokens have no price (a model the table lacks,
    /// output not counted).
    pub partial: bool,
}

/// Usage of one model in a session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelStats {
    /// Model name.
    pub model: String,
    /// Token counts (absent counts stay absent).
    pub tokens: Tokens,
    /// Cost in USD, when reported.
    pub cost_usd: Option<f64>,
    /// What its API messages cost by the price table, each priced on its
    /// own (its prompt's long-context rates, its cache writes kept an
    /// hour): `None` when not summed message by message.
    pub estimate: Option<f64>,
}

impl ModelStats {
    /// Add another model's counts (absent + absent stays absent).
    pub fn add(&mut self, other: &ModelStats) {
        self.tokens.add(&other.tokens);
        self.cost_usd = add_opt_f64(self.cost_usd, other.cost_usd);
        self.estimate = add_opt_f64(self.estimate, other.estimate);
    }

    /// Take another count of it back out (a copy, or counts replaced).
    pub fn sub(&mut self, other: &ModelStats) {
        self.tokens.sub(&other.tokens);
        if let (Some(a), Some(b)) = (self.estimate, other.estimate) {
            self.estimate = Some((a - b).max(0.0));
        }
    }

    /// Its cost: as reported plus what its messages cost by the price
    /// table (sums of sessions' shares hold both), else its tokens at
    /// `prices`' base rates (a sum reported without a cost); `None` when
    /// `prices` does not know the model.
    #[must_use]
    pub fn priced(&self, prices: &Prices) -> Option<f64> {
        add_opt_f64(self.cost_usd, self.estimate)
            .or_else(|| prices.estimate(&self.model, &self.tokens))
    }
}

impl ModelStats {
    /// The cost a table or a metric shows for it, and whether any of it
    /// is estimated: [`ModelStats::priced`] when it has a cost or tokens;
    /// `None` when nothing prices it.
    #[must_use]
    pub fn shown_cost(&self, prices: &Prices) -> Option<(f64, bool)> {
        let estimated = self.estimate.is_some() || self.cost_usd.is_none();
        (self.cost_usd.is_some() || !self.tokens.is_empty())
            .then(|| self.priced(prices))
            .flatten()
            .map(|usd| (usd, estimated))
    }
}

impl ToolStats {
    /// Add another count of the same tool.
    pub(super) fn add(&mut self, other: &ToolStats) {
        self.calls += other.calls;
        self.errors += other.errors;
        self.denials += other.denials;
        self.time += other.time;
    }
}

impl Row for ToolStats {
    const OTHER: &'static str = "(other tools)";
    fn key(&self) -> &str {
        &self.name
    }
    fn named(key: &str) -> Self {
        ToolStats {
            name: key.into(),
            ..ToolStats::default()
        }
    }
    fn add(&mut self, other: &Self) {
        ToolStats::add(self, other);
    }
}

impl Row for ModelStats {
    const OTHER: &'static str = "(other models)";
    fn key(&self) -> &str {
        &self.model
    }
    fn named(key: &str) -> Self {
        ModelStats {
            model: key.to_string(),
            ..ModelStats::default()
        }
    }
    fn add(&mut self, other: &Self) {
        ModelStats::add(self, other);
    }
}

/// `a + b` where `None` means "not reported": absent only when both are.
#[must_use]
pub fn add_opt_f64(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// `a + b` where `None` means "not reported": absent only when both are.
#[must_use]
pub fn add_opt_u64(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    }
}
