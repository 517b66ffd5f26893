//! Points in time, as the producers write them and as `--since` and
//! `--until` name them.
//!
//! A [`Timestamp`] is a count of milliseconds since the Unix epoch (UTC):
//! eight bytes, copied, compared and subtracted for free, so an event
//! carries one without allocating. Producers write RFC 3339 text
//! (`"2026-11-24T08:52:48.513Z"`: Claude Code, its transcripts, Codex's
//! rollouts, Gemini CLI) or a number of milliseconds (`OpenCode`'s
//! `timestamp`, Cursor's `timestamp_ms`); both are read here without a
//! date library (the calendar is Howard Hinnant's `days_from_civil`), and a
//! value that is not a time is `None`, never an error. Out, a timestamp is
//! always RFC 3339 in UTC with milliseconds, which jq compares as text and
//! `DuckDB` casts to `TIMESTAMP`.
//!
//! [`zone`] gives the offset of local time (`TZ`, `/etc/localtime`) for
//! dates typed without one; [`window`] reads the values of `--since` and
//! `--until` and decides what falls between them.

pub mod window;
pub mod zone;

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds in a day.
const DAY_MS: i64 = 86_400_000;

/// The latest time written or read: 9999-12-31T23:59:59.999Z.
const MAX_MS: i64 = 253_402_300_799_999;

/// A point in time: milliseconds since 1970-01-01T00:00:00Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The time `ms` milliseconds after the epoch, if it is between years 0
    /// and 9999 (what RFC 3339 can write).
    #[must_use]
    pub fn from_millis(ms: i64) -> Option<Timestamp> {
        (MIN_MS..=MAX_MS).contains(&ms).then_some(Timestamp(ms))
    }

    /// Milliseconds since the epoch.
    #[must_use]
    pub fn millis(self) -> i64 {
        self.0
    }

    /// The milliseconds from `from` to `to`, when both are known (a
    /// session's duration from its first and last times); `to` before
    /// `from` counts as far the other way.
    #[must_use]
    pub fn ms_between(from: Option<Timestamp>, to: Option<Timestamp>) -> Option<u64> {
        Some(to?.0.saturating_sub(from?.0).unsigned_abs())
    }

    /// A number of milliseconds since the epoch as a producer writes it
    /// (an integer, or an integral float), if it is one.
    #[must_use]
    pub fn from_epoch_number(n: f64) -> Option<Timestamp> {
        // Within `0..=MAX_MS`, exact in an `f64`.
        if !(n.is_finite() && (0.0..=253_402_300_799_999.0).contains(&n)) {
            return None;
        }
        #[allow(clippy::cast_possible_truncation)] // range checked
        Timestamp::from_millis(n as i64)
    }

    /// The clock's time.
    #[must_use]
    pub fn of(t: SystemTime) -> Timestamp {
        let ms = match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(MAX_MS),
            Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(MAX_MS),
        };
        Timestamp(ms.clamp(MIN_MS, MAX_MS))
    }

    /// RFC 3339 text: `YYYY-MM-DD`, `T` (or `t`, or a space), `hh:mm:ss`,
    /// an optional fraction (read to the millisecond), then `Z` or an
    /// offset (`+02:00`, `+0200`). Without an offset the time is taken as
    /// UTC (what producers mean); `None` when it is not a time.
    #[must_use]
    pub fn parse(s: &str) -> Option<Timestamp> {
        let (civil, rest) = Civil::parse(s.as_bytes())?;
        let offset = match rest {
            [] => 0,
            _ => offset(rest)?,
        };
        civil.at_offset(offset)
    }

    /// `self` plus `ms` milliseconds (saturating at the ends of the range).
    #[must_use]
    pub fn plus(self, ms: i64) -> Timestamp {
        Timestamp(self.0.saturating_add(ms).clamp(MIN_MS, MAX_MS))
    }

    /// Append `YYYY-MM-DDThh:mm:ss.mmmZ` to `out`.
    pub fn write_rfc3339(self, out: &mut Vec<u8>) {
        let days = self.0.div_euclid(DAY_MS);
        let ms = self.0.rem_euclid(DAY_MS);
        let (y, m, d) = civil_from_days(days);
        let mut b = *b"0000-00-00T00:00:00.000Z";
        let mut put = |at: usize, len: usize, mut v: i64| {
            for i in (at..at + len).rev() {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a digit
                {
                    b[i] = b'0' + (v % 10) as u8;
                }
                v /= 10;
            }
        };
        put(0, 4, y);
        put(5, 2, m);
        put(8, 2, d);
        put(11, 2, ms / 3_600_000);
        put(14, 2, ms / 60_000 % 60);
        put(17, 2, ms / 1000 % 60);
        put(20, 3, ms % 1000);
        out.extend_from_slice(&b);
    }
}

/// The earliest time written or read: 0000-01-01T00:00:00Z.
const MIN_MS: i64 = -62_167_219_200_000;

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut b = Vec::with_capacity(24);
        self.write_rfc3339(&mut b);
        f.write_str(&String::from_utf8_lossy(&b))
    }
}

/// A date and a time of day without an offset: wall-clock time somewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    /// Days since 1970-01-01.
    pub days: i64,
    /// Milliseconds since midnight.
    pub ms: i64,
}

impl Civil {
    /// `YYYY-MM-DD`, then optionally `T` (or a space) and `hh:mm`, `:ss`
    /// and a fraction; with what follows (an offset, or nothing).
    #[must_use]
    pub fn parse(s: &[u8]) -> Option<(Civil, &[u8])> {
        let num = |from: usize, len: usize| -> Option<i64> {
            let d = s.get(from..from + len)?;
            d.iter().try_fold(0i64, |n, &c| {
                c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
            })
        };
        let (y, m, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
        if s[4] != b'-' || s[7] != b'-' || !(1..=12).contains(&m) || d < 1 || d > month_days(y, m) {
            return None;
        }
        let days = days_from_civil(y, m, d);
        if !matches!(s.get(10), Some(b'T' | b't' | b' ')) {
            return Some((Civil { days, ms: 0 }, &s[10..]));
        }
        let (h, min) = (num(11, 2)?, num(14, 2)?);
        if s[13] != b':' || h > 23 || min > 59 {
            return None;
        }
        let mut ms = (h * 60 + min) * 60_000;
        let mut at = 16;
        if s.get(16) == Some(&b':') {
            let sec = num(17, 2)?;
            // 60: a leap second, read as the next.
            if sec > 60 {
                return None;
            }
            ms += sec * 1000;
            at = 19;
            if s.get(19) == Some(&b'.') {
                let digits = s[20..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits == 0 {
                    return None;
                }
                let frac = &s[20..20 + digits.min(3)];
                let scale = [100, 10, 1];
                for (c, k) in frac.iter().zip(scale) {
                    ms += i64::from(c - b'0') * k;
                }
                at = 20 + digits;
            }
        }
        Some((Civil { days, ms }, &s[at..]))
    }

    /// This wall-clock time where it is `offset` seconds ahead of UTC.
    #[must_use]
    pub fn at_offset(self, offset: i64) -> Option<Timestamp> {
        Timestamp::from_millis(self.days * DAY_MS + self.ms - offset * 1000)
    }
}

/// `Z` or `±hh:mm` (`±hhmm`, `±hh`) in seconds ahead of UTC; nothing may
/// follow it.
fn offset(s: &[u8]) -> Option<i64> {
    if matches!(s, [b'Z' | b'z']) {
        return Some(0);
    }
    let sign = match s.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let d = |i: usize| -> Option<i64> {
        let c = *s.get(i)?;
        c.is_ascii_digit().then(|| i64::from(c - b'0'))
    };
    let h = d(1)? * 10 + d(2)?;
    let m = match s.len() {
        3 => 0,
        5 => d(3)? * 10 + d(4)?,
        6 if s[3] == b':' => d(4)? * 10 + d(5)?,
        _ => return None,
    };
    (h <= 23 && m <= 59).then_some(sign * (h * 3600 + m * 60))
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn month_days(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date (Howard Hinnant's `days_from_civil`).
#[must_use]
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a number of days since 1970-01-01 (`civil_from_days`).
#[must_use]
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests;
