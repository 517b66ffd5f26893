//! One number per question: a session's cost split over its models and
//! its time buckets so that every grouping, every table and every total
//! adds up to the same cents.
//!
//! A response's cost is what the agent reported for it, else estimated
//! from its tokens. A session whose agent reported only its total (Claude
//! Code's result, Pi's, a transcript's cost line) has that total spread
//! over its responses by their estimated share, or by their tokens where
//! a model is not priced; what the totals count beyond the responses (a
//! transcript's sub-agents known only by its cost line) is its own part.

use super::price::Prices;
use super::{Cost, ModelStats, SessionSummary, Tally};

/// The shares of a session's cost its parts (its models, or its time
/// buckets) count, which add up to its cost (see [`spread`]).
#[derive(Debug, PartialEq)]
pub(super) struct Shares {
    /// Each part's, in order; `None` for a part of unknown cost.
    pub each: Vec<Option<f64>>,
    /// The cost no part holds: what the session's totals count beyond its
    /// parts, or a reported cost with nothing to spread it over.
    pub rest: Option<f64>,
}

/// A session's cost `whole` split over its parts, each given as its own
/// cost (reported, else estimated; `None` unpriced) and its tokens. Parts
/// that add up to it keep their own; an estimate beyond them is the rest;
/// a reported total is spread over the parts by their estimated share, or
/// by their tokens where any part with tokens is unpriced.
pub(super) fn spread(parts: &[(Option<f64>, u64)], whole: Cost) -> Shares {
    let own = |rest| Shares {
        each: parts.iter().map(|p| p.0).collect(),
        rest,
    };
    let priced: f64 = parts.iter().filter_map(|p| p.0).sum();
    let Some(total) = whole.usd else {
        return own(None);
    };
    let off = total - priced;
    if off.abs() <= 1e-9 * total.abs().max(1.0) {
        return own(None);
    }
    if whole.estimated {
        return own(Some(off));
    }
    let by_estimate = priced > 0.0 && parts.iter().all(|&(p, t)| p.is_some() || t == 0);
    #[allow(clippy::cast_precision_loss)] // a weight
    let weight = |&(p, t): &(Option<f64>, u64)| {
        if by_estimate {
            p.unwrap_or(0.0)
        } else {
            t as f64
        }
    };
    let sum: f64 = parts.iter().map(weight).sum();
    if sum <= 0.0 {
        return Shares {
            each: vec![None; parts.len()],
            rest: Some(total),
        };
    }
    Shares {
        each: parts
            .iter()
            .map(|p| Some(total * weight(p) / sum))
            .collect(),
        rest: None,
    }
}

impl SessionSummary {
    /// Its models, each with its share of the session's cost (spread as the module says):
    /// in `cost_usd` when the session's cost is reported, in `estimate`
    /// when estimated, in neither when the model is not priced. What no
    /// model holds goes with the main model (the header's, else the first).
    #[must_use]
    pub fn priced_models(&self, prices: &Prices) -> Tally<ModelStats> {
        let models = self.models();
        let whole = self.cost(prices);
        let parts: Vec<_> = (models.into_iter())
            .map(|m| (m.priced(prices), m.tokens.total()))
            .collect();
        let shares = spread(&parts, whole);
        let mut out: Tally<ModelStats> = (models.into_iter().zip(shares.each))
            .map(|(m, share)| ModelStats {
                model: m.model.clone(),
                tokens: m.tokens,
                cost_usd: share.filter(|_| !whole.estimated),
                estimate: share.filter(|_| whole.estimated),
            })
            .collect();
        if let Some(rest) = shares.rest {
            let main = (self.model.as_deref())
                .filter(|m| models.iter().any(|x| x.model == *m))
                .or_else(|| models.first().map(|m| m.model.as_str()));
            if let Some(main) = main {
                out.get_mut(main).add(&ModelStats {
                    cost_usd: Some(rest).filter(|_| !whole.estimated),
                    estimate: Some(rest).filter(|_| whole.estimated),
                    ..ModelStats::default()
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reported(usd: f64) -> Cost {
        Cost {
            usd: Some(usd),
            ..Cost::default()
        }
    }

    fn close(a: &Shares, b: &[f64], rest: Option<f64>) -> bool {
        let near = |x: f64, y: f64| (x - y).abs() < 1e-12;
        a.each.len() == b.len()
            && a.each
                .iter()
                .zip(b)
                .all(|(x, y)| x.is_some_and(|x| near(x, *y)))
            && match (a.rest, rest) {
                (Some(x), Some(y)) => near(x, y),
                (x, y) => x.is_none() && y.is_none(),
            }
    }

    #[test]
    fn parts_that_add_up_keep_their_own() {
        let s = spread(&[(Some(0.25), 10), (Some(0.75), 30)], reported(1.0));
        assert!(close(&s, &[0.25, 0.75], None), "{s:?}");
    }

    #[test]
    fn a_reported_total_is_spread_by_estimate_else_by_tokens() {
        // Estimated 1 and 3, reported 2: the same ratio, 2 in all.
        let s = spread(&[(Some(1.0), 10), (Some(3.0), 10)], reported(2.0));
        assert!(close(&s, &[0.5, 1.5], None), "{s:?}");
        // One part unpriced: by tokens, 1 to 3.
        let s = spread(&[(Some(1.0), 100), (None, 300)], reported(2.0));
        assert!(close(&s, &[0.5, 1.5], None), "{s:?}");
        // Nothing to spread it over: all of it the rest.
        let s = spread(&[(None, 0)], reported(2.0));
        assert_eq!(s.each, vec![None]);
        assert_eq!(s.rest, Some(2.0));
    }

    #[test]
    fn an_estimate_beyond_the_parts_is_the_rest() {
        let whole = Cost {
            usd: Some(1.5),
            estimated: true,
            partial: false,
        };
        let s = spread(&[(Some(1.0), 10), (None, 5)], whole);
        assert!(s.each[0] == Some(1.0) && s.each[1].is_none(), "{s:?}");
        assert_eq!(s.rest, Some(0.5));
        // Unknown cost: each part as it is.
        let s = spread(&[(Some(1.0), 10)], Cost::default());
        assert_eq!((s.each, s.rest), (vec![Some(1.0)], None));
    }
}
