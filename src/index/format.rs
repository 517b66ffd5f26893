//! The index file's bytes: a header in the clear (what wrote it, for which
//! reads, and a checksum of the body), then the body as one zstd frame
//! (with zstd's own checksum). The body is a list of files and a list of
//! sessions, each field length-prefixed and little-endian; reading checks
//! every length against what is left, so a damaged body is refused whole,
//! never half believed.

use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::path::PathBuf;

use super::{Dated, Recorded, Stamp};
use crate::time::Timestamp;

/// The first bytes of every index file.
const MAGIC: &[u8; 17] = b"streamview index\n";

/// The layout of the body; a file of another version is not read.
pub(crate) const VERSION: u32 = 1;

/// A body larger than this once decompressed is not read (a damaged length,
/// a file that is not ours).
const MAX_BODY: u64 = 8 << 30;

/// What an index file holds.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Body {
    pub files: Vec<(PathBuf, Dated)>,
    pub sessions: Vec<(String, Recorded)>,
}

/// The checksum of a body: foldhash with a fixed seed, 8 bytes at a time.
fn checksum(body: &[u8]) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x5eed_1dea).build_hasher();
    h.write(body);
    h.finish()
}

/// Write `body` for the reads of `context` by the binary `binary`.
pub(crate) fn write(
    out: &mut impl Write,
    binary: u64,
    context: &str,
    body: &Body,
) -> io::Result<()> {
    let mut b = Vec::with_capacity(1 << 16);
    put_u32(&mut b, u32::try_from(body.files.len()).unwrap_or(u32::MAX));
    for (path, d) in &body.files {
        put_bytes(&mut b, path.as_os_str().as_encoded_bytes());
        put_stamp(&mut b, &d.stamp);
        put_time(&mut b, d.began);
        put_time(&mut b, d.ended);
        put_u64(&mut b, d.indexed_at);
    }
    put_u32(
        &mut b,
        u32::try_from(body.sessions.len()).unwrap_or(u32::MAX),
    );
    for (name, r) in &body.sessions {
        put_bytes(&mut b, name.as_bytes());
        put_u32(&mut b, u32::try_from(r.files.len()).unwrap_or(u32::MAX));
        for (path, stamp) in &r.files {
            put_bytes(&mut b, path.as_os_str().as_encoded_bytes());
            put_stamp(&mut b, stamp);
        }
        put_u64(&mut b, r.lines);
        put_u64(&mut b, r.indexed_at);
        put_bytes(&mut b, &r.events);
    }
    let mut head = Vec::with_capacity(64 + context.len());
    head.extend_from_slice(MAGIC);
    put_u32(&mut head, VERSION);
    put_u64(&mut head, binary);
    put_bytes(&mut head, context.as_bytes());
    put_u64(&mut head, b.len() as u64);
    put_u64(&mut head, checksum(&b));
    out.write_all(&head)?;
    let mut z = zstd::stream::write::Encoder::new(out, 1)?;
    z.include_checksum(true)?;
    z.write_all(&b)?;
    z.finish()?;
    Ok(())
}

/// Read an index file written for `context` by the binary `binary`;
/// `None` when it is not one, is another version's or another binary's,
/// was written for other reads, or is damaged in any way.
pub(crate) fn read(input: &mut impl Read, binary: u64, context: &str) -> Option<Body> {
    let mut magic = [0; MAGIC.len()];
    input.read_exact(&mut magic).ok()?;
    if &magic != MAGIC {
        return None;
    }
    let mut fixed = [0u8; 16];
    input.read_exact(&mut fixed[..12]).ok()?;
    let mut r = Reader(&fixed[..12]);
    if r.u32()? != VERSION || r.u64()? != binary {
        return None;
    }
    let mut len = [0u8; 4];
    input.read_exact(&mut len).ok()?;
    let len = u32::from_le_bytes(len) as usize;
    if len != context.len() {
        return None;
    }
    let mut written_for = vec![0; len];
    input.read_exact(&mut written_for).ok()?;
    if written_for != context.as_bytes() {
        return None;
    }
    input.read_exact(&mut fixed).ok()?;
    let mut r = Reader(&fixed);
    let (size, sum) = (r.u64()?, r.u64()?);
    if size > MAX_BODY {
        return None;
    }
    let mut body = Vec::with_capacity(usize::try_from(size).ok()?.min(1 << 26));
    let z = zstd::stream::read::Decoder::new(input).ok()?;
    // One byte more than said: a longer body is refused too.
    z.take(size + 1).read_to_end(&mut body).ok()?;
    if body.len() as u64 != size || checksum(&body) != sum {
        return None;
    }
    parse(&body)
}

/// The body's records.
fn parse(body: &[u8]) -> Option<Body> {
    let mut r = Reader(body);
    let mut out = Body::default();
    for _ in 0..r.u32()? {
        let path = r.path()?;
        let d = Dated {
            stamp: r.stamp()?,
            began: r.time().ok()?,
            ended: r.time().ok()?,
            indexed_at: r.u64()?,
        };
        out.files.push((path, d));
    }
    for _ in 0..r.u32()? {
        let name = String::from_utf8(r.bytes()?.to_vec()).ok()?;
        let mut files = Vec::new();
        for _ in 0..r.u32()? {
            files.push((r.path()?, r.stamp()?));
        }
        let rec = Recorded {
            files,
            lines: r.u64()?,
            indexed_at: r.u64()?,
            events: r.bytes()?.to_vec(),
        };
        out.sessions.push((name, rec));
    }
    r.0.is_empty().then_some(out)
}

fn put_u32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(b: &mut Vec<u8>, v: &[u8]) {
    put_u32(b, u32::try_from(v.len()).unwrap_or(u32::MAX));
    b.extend_from_slice(v);
}

fn put_stamp(b: &mut Vec<u8>, s: &Stamp) {
    for v in [s.dev, s.ino, s.size] {
        put_u64(b, v);
    }
    for v in [s.mtime, s.ctime] {
        b.extend_from_slice(&v.to_le_bytes());
    }
}

/// A time, or none (`i64::MIN`).
fn put_time(b: &mut Vec<u8>, t: Option<Timestamp>) {
    b.extend_from_slice(&t.map_or(i64::MIN, Timestamp::millis).to_le_bytes());
}

/// Bytes that do not hold what they should.
struct Damaged;

/// The body being read: each read takes its bytes off the front, or fails
/// when too few are left.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    fn path(&mut self) -> Option<PathBuf> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            Some(PathBuf::from(std::ffi::OsStr::from_bytes(self.bytes()?)))
        }
        #[cfg(not(unix))]
        {
            Some(PathBuf::from(std::str::from_utf8(self.bytes()?).ok()?))
        }
    }

    fn stamp(&mut self) -> Option<Stamp> {
        Some(Stamp {
            dev: self.u64()?,
            ino: self.u64()?,
            size: self.u64()?,
            mtime: self.i64()?,
            ctime: self.i64()?,
        })
    }

    /// A time, none, or (`Err`) bytes that are not one.
    fn time(&mut self) -> Result<Option<Timestamp>, Damaged> {
        match self.i64().ok_or(Damaged)? {
            i64::MIN => Ok(None),
            t => Timestamp::from_millis(t).map(Some).ok_or(Damaged),
        }
    }
}
