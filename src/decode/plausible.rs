//! Counts and costs no log means: a token count above a trillion, a cost
//! that is not a finite number from 0 to ten million dollars.
//!
//! A log is any file: `"input_tokens": 18446744073709551615` or
//! `"total_cost_usd": 1e308` summed into a table printed `~$5.534e13` and
//! `18446744073709.6M` (issue 30). No session comes near the bounds (a
//! trillion tokens cost a million dollars at a dollar per million), so a
//! value beyond them is refused where the line is decoded, for every
//! producer at once: a usage that holds one is left out whole (half of a
//! message's counts would be wrong too), a result keeps its outcome without
//! the numbers that are wrong, and the run says which line and which count
//! ([`Decoded::Implausible`](super::Decoded::Implausible)).

use crate::event::{Event, EventKind, ModelUsage, SessionResult, Tokens};

/// The most tokens one count of a log may hold.
pub const MAX_TOKENS: u64 = 1_000_000_000_000;

/// The most USD a cost of a log may say.
pub const MAX_COST: f64 = 10_000_000.0;

/// What of `ev` no log means, said (the first such count or cost), or
/// `None`.
#[must_use]
pub fn check(ev: &Event<'_>) -> Option<String> {
    match &ev.kind {
        EventKind::Usage(u) => {
            let one_hour = (u.cache_write_1h.filter(|n| *n > MAX_TOKENS))
                .map(|n| tokens_said("cache_write_1h", n));
            tokens(&u.tokens)
                .or_else(|| u.replaces.as_ref().and_then(tokens))
                .or(one_hour)
                .map(|why| format!("{why}; its usage left out"))
        }
        EventKind::Result(r) => result(r).map(|why| format!("{why}; the result read without it")),
        _ => None,
    }
}

/// `ev` without what [`check`] refused: `None` for a usage (left out
/// whole), a result without the numbers that are out of bounds.
#[must_use]
pub fn without<'a>(ev: &Event<'a>) -> Option<Event<'a>> {
    let EventKind::Result(r) = &ev.kind else {
        return None;
    };
    let mut r = SessionResult::clone(r);
    if cost(r.cost_usd).is_some() {
        r.cost_usd = None;
    }
    if tokens(&r.tokens).is_some() {
        r.tokens = Tokens::default();
    }
    if r.model_usage.iter().any(|m| model(m).is_some()) {
        let kept: Vec<ModelUsage<'a>> = (r.model_usage.iter())
            .filter(|m| model(m).is_none())
            .cloned()
            .collect();
        r.model_usage = kept.into();
    }
    Some(Event {
        kind: EventKind::Result(Box::new(r)),
        ..ev.clone()
    })
}

/// A result's first number out of bounds, said.
fn result(r: &SessionResult<'_>) -> Option<String> {
    cost(r.cost_usd)
        .or_else(|| tokens(&r.tokens))
        .or_else(|| r.model_usage.iter().find_map(model))
}

/// A model's usage's first number out of bounds, said.
fn model(m: &ModelUsage<'_>) -> Option<String> {
    cost(m.cost_usd).or_else(|| tokens(&m.tokens))
}

/// A count of `t` out of bounds, said.
fn tokens(t: &Tokens) -> Option<String> {
    [
        ("input", t.input),
        ("output", t.output),
        ("cache_read", t.cache_read),
        ("cache_creation", t.cache_creation),
        ("reasoning", t.reasoning),
    ]
    .into_iter()
    .find_map(|(key, n)| n.filter(|n| *n > MAX_TOKENS).map(|n| tokens_said(key, n)))
}

fn tokens_said(key: &str, n: u64) -> String {
    format!("{key} count {n} is not a plausible number of tokens (at most 10^12)")
}

/// A cost out of bounds, said.
fn cost(c: Option<f64>) -> Option<String> {
    let c = c?;
    if c.is_finite() && (0.0..=MAX_COST).contains(&c) {
        return None;
    }
    let shown = if c.abs() < 1e15 {
        format!("{c}")
    } else {
        format!("{c:e}")
    };
    Some(format!(
        "cost {shown} is not a plausible cost (0 to 10^7 USD)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Producer, Usage};

    fn event(kind: EventKind<'static>) -> Event<'static> {
        Event {
            producer: Producer::Claude,
            line: 1,
            source: None,
            session: None,
            parent: None,
            time: None,
            kind,
        }
    }

    #[test]
    fn counts_and_costs_beyond_the_bounds_are_refused() {
        let usage = |n| {
            event(EventKind::Usage(Usage {
                tokens: Tokens {
                    input: Some(5),
                    output: Some(n),
                    ..Tokens::default()
                },
                ..Usage::default()
            }))
        };
        assert_eq!(check(&usage(MAX_TOKENS)), None);
        let why = check(&usage(u64::MAX)).unwrap();
        assert_eq!(
            why,
            "output count 18446744073709551615 is not a plausible number of tokens (at most 10^12); its usage left out"
        );
        assert!(without(&usage(u64::MAX)).is_none());
        for bad in [f64::INFINITY, f64::NAN, -1.0, 1e308] {
            let r = event(EventKind::Result(Box::new(SessionResult {
                cost_usd: Some(bad),
                num_turns: Some(3),
                ..SessionResult::default()
            })));
            assert!(check(&r).is_some(), "{bad}");
            let EventKind::Result(kept) = without(&r).unwrap().kind else {
                panic!("a result")
            };
            assert_eq!((kept.cost_usd, kept.num_turns), (None, Some(3)));
        }
    }
}
