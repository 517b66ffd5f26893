//! Local time: the offset from UTC of the wall-clock times a user types
//! (`--since 2026-11-24`, `--until "2026-11-24 18:00"`).
//!
//! The zone is `TZ` as the C library reads it, kept simple: unset or empty
//! means `/etc/localtime`; `UTC`, `GMT`, `UTC0` mean UTC; a POSIX zone with
//! a fixed offset (`CET-1`: one hour *ahead*, POSIX's sign) is that offset
//! (with a daylight-saving part, its standard offset); any other value
//! (`Europe/Paris`, `:Europe/Paris`) names a file under
//! `/usr/share/zoneinfo`. Zone files are read in the compiled `TZif` form
//! (its transitions only: the footer rule that slim files leave the future
//! to is not read, so a date after the last transition gets the last
//! offset). Whatever cannot be read is UTC: a time is never refused for
//! its zone, except when `TZ` names a file that is no zone file at all: one
//! that is not a regular file (`TZ=/dev/zero` would be read for ever) or
//! larger than [`MAX_BYTES`].

use std::ffi::OsStr;
use std::path::Path;

use super::{Civil, Timestamp};
use crate::file::{describe_io, read_small};

/// A zone file larger than this is not one (the largest of the system's
/// database take a few KiB).
pub const MAX_BYTES: u64 = 1 << 20;

/// Where the wall clock is: the offsets it has had (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Zone {
    /// From each time (Unix seconds) on, the offset (seconds ahead of
    /// UTC); sorted. Empty: UTC.
    changes: Vec<(i64, i64)>,
    /// The offset before the first change.
    first: i64,
}

impl Zone {
    /// `t` on this zone's wall clock, to the minute: `2026-11-24 18:03`.
    #[must_use]
    pub fn minute(&self, t: Timestamp) -> String {
        const DAY_MS: i64 = 86_400_000;
        let local = t
            .millis()
            .saturating_add(self.offset_at(t).saturating_mul(1000));
        let (y, m, d) = super::civil_from_days(local.div_euclid(DAY_MS));
        let mins = local.rem_euclid(DAY_MS) / 60_000;
        format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", mins / 60, mins % 60)
    }

    /// UTC.
    #[must_use]
    pub fn utc() -> Zone {
        Zone::default()
    }

    /// Always `offset` seconds ahead of UTC.
    #[must_use]
    pub fn fixed(offset: i64) -> Zone {
        Zone {
            changes: Vec::new(),
            first: offset,
        }
    }

    /// The zone `TZ` (its value, `None` when unset) names.
    ///
    /// # Errors
    /// It names a file that is not a regular one or is too large (see the
    /// module docs): one line saying which and what to do.
    pub fn from_tz(tz: Option<&OsStr>) -> Result<Zone, String> {
        let tz = tz.map(OsStr::to_string_lossy).unwrap_or_default();
        let tz = tz.strip_prefix(':').unwrap_or(&tz);
        let path = if tz.is_empty() {
            Path::new("/etc/localtime").to_path_buf()
        } else if let Some(offset) = posix_offset(tz) {
            return Ok(Zone::fixed(offset));
        } else if tz.starts_with('/') {
            Path::new(tz).to_path_buf()
        } else if tz.split('/').any(|part| part == ".." || part.is_empty()) {
            return Ok(Zone::utc());
        } else {
            Path::new("/usr/share/zoneinfo").join(tz)
        };
        match read_small(&path, MAX_BYTES) {
            Ok(b) => Ok(tzif(&b).unwrap_or_default()),
            Err(e) if refused(&e) => Err(format!(
                "the time zone file {} (of TZ) is {}: set TZ to a zone (Europe/Paris, UTC, \
                 CET-1), or give --tz",
                path.display(),
                describe_io(&e)
            )),
            Err(_) => Ok(Zone::utc()),
        }
    }

    /// The zone `name` names (`--tz`): a name of the system's zone
    /// database (`Europe/Paris`), a POSIX `TZ` value (`UTC`, `CET-1`) or a
    /// path to a `TZif` file.
    ///
    /// # Errors
    /// No such zone: the message says what is accepted.
    pub fn named(name: &str) -> Result<Zone, String> {
        let bad = || {
            format!(
                "unknown time zone {name:?}: give a name of /usr/share/zoneinfo (Europe/Paris), \
                 UTC, or a POSIX offset (CET-1)"
            )
        };
        let tz = name.strip_prefix(':').unwrap_or(name);
        if let Some(offset) = posix_offset(tz) {
            return Ok(Zone::fixed(offset));
        }
        if tz.is_empty() || tz.split('/').any(|part| part == "..") {
            return Err(bad());
        }
        let path = if tz.starts_with('/') {
            Path::new(tz).to_path_buf()
        } else {
            Path::new("/usr/share/zoneinfo").join(tz)
        };
        match read_small(&path, MAX_BYTES) {
            Ok(b) => tzif(&b).ok_or_else(bad),
            Err(e) if refused(&e) => Err(format!(
                "the time zone file {} is {}: give a zone file, a name of \
                 /usr/share/zoneinfo (Europe/Paris), UTC, or a POSIX offset (CET-1)",
                path.display(),
                describe_io(&e)
            )),
            Err(_) => Err(bad()),
        }
    }

    /// The offset in effect at `t`, in seconds.
    #[must_use]
    pub fn offset_at(&self, t: Timestamp) -> i64 {
        let secs = t.millis().div_euclid(1000);
        match self.changes.partition_point(|&(at, _)| at <= secs) {
            0 => self.first,
            i => self.changes[i - 1].1,
        }
    }

    /// The time a wall clock of this zone shows as `c` (of two, the
    /// earlier; in a gap, as if the clock had not changed yet).
    #[must_use]
    pub fn resolve(&self, c: Civil) -> Option<Timestamp> {
        let guess = c.at_offset(self.first)?;
        let offset = self.offset_at(c.at_offset(self.offset_at(guess))?);
        c.at_offset(offset)
    }
}

/// A zone file refused for what it is (see the module docs), not merely
/// missing or unreadable.
fn refused(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::InvalidInput | std::io::ErrorKind::FileTooLarge
    )
}

/// The offset of a POSIX `TZ` value without a file: `UTC`, `GMT`, `UTC0`,
/// `CET-1`, `<+0530>-5:30`; its standard time when it has daylight saving.
fn posix_offset(tz: &str) -> Option<i64> {
    let (name, rest) = if let Some(quoted) = tz.strip_prefix('<') {
        let end = quoted.find('>')?;
        (&quoted[..end], &quoted[end + 1..])
    } else {
        let end = tz
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(tz.len());
        (&tz[..end], &tz[end..])
    };
    if rest.is_empty() {
        return matches!(name, "UTC" | "GMT" | "UCT" | "Z" | "Zulu").then_some(0);
    }
    if name.len() < 3 {
        return None;
    }
    let std = rest
        .split(|c: char| c.is_ascii_alphabetic() || c == ',' || c == '<')
        .next()?;
    let (sign, hm) = match std.as_bytes().first()? {
        b'-' => (1, &std[1..]),
        b'+' => (-1, &std[1..]),
        _ => (-1, std),
    };
    let mut parts = hm.split(':').map(str::parse::<i64>);
    let h = parts.next()?.ok()?;
    let m = parts.next().transpose().ok()?.unwrap_or(0);
    (h <= 24 && m < 60).then_some(sign * (h * 3600 + m * 60))
}

/// A `TZif` file's transitions (RFC 8536): the 64-bit block of version 2
/// and later, else the 32-bit one.
fn tzif(b: &[u8]) -> Option<Zone> {
    if b.get(..4)? != b"TZif" {
        return None;
    }
    let (_, v1_len) = counts(b, 4)?;
    if b[4] >= b'2' {
        let at = 44 + v1_len;
        if b.get(at..at + 4)? == b"TZif" {
            return block(&b[at..], 8);
        }
    }
    block(b, 4)
}

/// The counts of the header at the start of `b` (`timecnt`, `typecnt`)
/// and the length of its data block with times of `width` bytes.
fn counts(b: &[u8], width: usize) -> Option<((usize, usize), usize)> {
    let n = |i: usize| -> Option<usize> {
        let c = b.get(20 + 4 * i..24 + 4 * i)?;
        usize::try_from(u32::from_be_bytes(c.try_into().ok()?)).ok()
    };
    let (isut, isstd, leap, time, types, chars) = (n(0)?, n(1)?, n(2)?, n(3)?, n(4)?, n(5)?);
    let len = time * (width + 1) + types * 6 + chars + leap * (width + 4) + isstd + isut;
    Some(((time, types), len))
}

/// The transitions of the block (header and data) at the start of `b`.
fn block(b: &[u8], width: usize) -> Option<Zone> {
    let ((time, types), _) = counts(b, width)?;
    let data = b.get(44..)?;
    let times = data.get(..time * width)?;
    let idx = data.get(time * width..time * (width + 1))?;
    let infos = data.get(time * (width + 1)..time * (width + 1) + types * 6)?;
    let utoff = |i: usize| -> Option<i64> {
        let o = infos.get(i * 6..i * 6 + 4)?;
        Some(i64::from(i32::from_be_bytes(o.try_into().ok()?)))
    };
    let mut changes = Vec::with_capacity(time);
    for (k, &ty) in idx.iter().enumerate() {
        let t = &times[k * width..(k + 1) * width];
        let at = if width == 8 {
            i64::from_be_bytes(t.try_into().ok()?)
        } else {
            i64::from(i32::from_be_bytes(t.try_into().ok()?))
        };
        changes.push((at, utoff(usize::from(ty))?));
    }
    // Before the first change: the first standard-time type (type 0).
    let first = utoff(0).unwrap_or(0);
    changes.sort_unstable();
    Some(Zone { changes, first })
}

#[cfg(test)]
mod tests;
