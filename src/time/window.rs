//! `--since` and `--until`: the times a user types, and the window of time
//! they select.
//!
//! A [`When`] is what was typed, read once by the command line parser (a
//! value that is not a time is a usage error there): a time with its
//! offset (RFC 3339), a wall-clock date or time (`2026-11-24`,
//! `2026-11-24 18:00`, read in the local zone), a span back from now (`30m`,
//! `2h`, `3d`, `1w`, `today`, `yesterday`). [`When::at`] turns it into a
//! [`Timestamp`] given the clock and the zone, which `cli::resolve` takes
//! from the environment it is handed (tests pin both).
//!
//! A [`Window`] is `since <= t < until`: `--until` names the first moment
//! left out, and a bare date as `--until` means the end of that day
//! (`--since 2026-11-20 --until 2026-11-24` includes the 24th), as
//! ccusage's `--until` does.

use std::fmt;

use super::zone::Zone;
use super::{Civil, DAY_MS, Timestamp};

/// A time as typed for `--since` or `--until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// A time with its offset.
    At(Timestamp),
    /// A date and time of day on the local wall clock.
    Local(Civil),
    /// A whole local day (days since 1970-01-01).
    Day(i64),
    /// This many milliseconds before now.
    Ago(i64),
    /// The local day this many days before today (0: today).
    DaysAgo(i64),
}

/// Which end of the window a [`When`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// `--since`: the first moment in.
    Since,
    /// `--until`: the first moment out.
    Until,
}

impl When {
    /// Read a value of `--since` or `--until` (the error says what would
    /// be one).
    ///
    /// # Errors
    /// `s` is not a time.
    pub fn parse(s: &str) -> Result<When, String> {
        let t = s.trim();
        let bad = || {
            format!(
                "`{s}` is not a time: use a date (2026-11-24), a local time (\"2026-11-24 18:00\"), \
                 RFC 3339 (2026-11-24T18:00:00Z), or a span back from now (30m, 2h, 3d, 1w, today, \
                 yesterday)"
            )
        };
        match t {
            "today" => return Ok(When::DaysAgo(0)),
            "yesterday" => return Ok(When::DaysAgo(1)),
            _ => {}
        }
        if let Some(ms) = span(t) {
            return Ok(When::Ago(ms));
        }
        let (civil, rest) = Civil::parse(t.as_bytes()).ok_or_else(bad)?;
        if rest.is_empty() {
            return Ok(if t.len() == 10 {
                When::Day(civil.days)
            } else {
                When::Local(civil)
            });
        }
        Timestamp::parse(t).map(When::At).ok_or_else(bad)
    }

    /// The moment meant, as the `end` of a window, `now` in `zone`.
    #[must_use]
    pub fn at(self, end: End, now: Timestamp, zone: &Zone) -> Timestamp {
        let day = |days: i64| {
            let days = if end == End::Until { days + 1 } else { days };
            zone.resolve(Civil { days, ms: 0 })
        };
        let t = match self {
            When::At(t) => Some(t),
            When::Local(c) => zone.resolve(c),
            When::Day(days) => day(days),
            When::Ago(ms) => Some(now.plus(-ms)),
            When::DaysAgo(n) => {
                let local = now.plus(zone.offset_at(now) * 1000);
                day(local.millis().div_euclid(DAY_MS) - n)
            }
        };
        t.unwrap_or(match end {
            End::Since => now.plus(i64::MIN),
            End::Until => now.plus(i64::MAX),
        })
    }
}

/// `30m`, `2h`, `3d`, `1w` (also `45s`) in milliseconds.
fn span(s: &str) -> Option<i64> {
    let unit = s.chars().last()?;
    let n: i64 = s[..s.len() - unit.len_utf8()].parse().ok()?;
    let ms = match unit {
        's' => 1000,
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => DAY_MS,
        'w' => 7 * DAY_MS,
        _ => return None,
    };
    (n >= 0).then(|| n.saturating_mul(ms))
}

/// The times selected: `since <= t < until`, either end open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// The first moment in.
    pub since: Option<Timestamp>,
    /// The first moment out.
    pub until: Option<Timestamp>,
}

impl Window {
    /// No bound: every time is in.
    #[must_use]
    pub fn is_all(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Nothing can be in (`since` is not before `until`).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        matches!((self.since, self.until), (Some(s), Some(u)) if s >= u)
    }

    /// `t` is in.
    #[must_use]
    pub fn contains(&self, t: Timestamp) -> bool {
        self.since.is_none_or(|s| s <= t) && self.until.is_none_or(|u| t < u)
    }

    /// Something between `first` and `last` (inclusive) can be in.
    #[must_use]
    pub fn overlaps(&self, first: Timestamp, last: Timestamp) -> bool {
        self.since.is_none_or(|s| s <= last) && self.until.is_none_or(|u| first < u)
    }
}

/// `since 2026-11-24T00:00:00.000Z`, `until …`, `between … and …`.
impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.since, self.until) {
            (Some(s), Some(u)) => write!(f, "between {s} and {u}"),
            (Some(s), None) => write!(f, "since {s}"),
            (None, Some(u)) => write!(f, "before {u}"),
            (None, None) => f.write_str("at any time"),
        }
    }
}

#[cfg(test)]
mod tests;
