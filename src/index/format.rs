//! The index file's bytes. A header in the clear (what wrote it and for
//! which reads), then each session's events as a zstd frame of its own,
//! then the table of contents (the files, the sessions and where their
//! frames are) as one zstd frame, then a trailer that says where that
//! table is, its checksum and an end mark. A run reads the header, the
//! trailer and the table; a session's frame only when it is replayed (one
//! at a time: memory stays that of the table, whatever the library's
//! size), checked against its own checksum. Every length read is checked
//! against what is there, so damage is refused, never half believed: a
//! damaged table refuses the whole file, a damaged frame its session.

use std::cell::RefCell;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::PathBuf;

use super::{Dated, Entry, Listing, Recorded, Resume, Stamp};
use crate::time::Timestamp;

/// The first bytes of every index file.
const MAGIC: &[u8; 17] = b"streamview index\n";

/// Its last bytes.
const END: &[u8; 8] = b"\nsv-end\n";

/// The layout (4: usage events keep the cost an agent reported; 5: a
/// saved Pi entry's usage names its entry, a usage report's tokens are
/// its result's; 6: tokens keep the reasoning count an agent reported; 7:
/// a session of one file keeps where it is read on from, and its
/// decoder's state there); a file of another version is not read.
pub(crate) const VERSION: u32 = 7;

/// The trailer: where the table starts, its length compressed and not,
/// its checksum, the end mark.
const TRAILER: u64 = 8 * 4 + END.len() as u64;

/// A table or a frame larger than this once decompressed is not read (a
/// damaged length, a file that is not ours).
const MAX_RAW: u64 = 4 << 30;

/// Where a session's events are in the file, and how to check them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Frame {
    /// Offset in the file.
    pub at: u64,
    /// Compressed length.
    pub len: u64,
    /// Length of the events.
    pub raw: u64,
    /// Their checksum.
    pub sum: u64,
}

/// The table of contents.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Table {
    pub files: Vec<(PathBuf, Dated)>,
    pub dirs: Vec<(PathBuf, Listing)>,
    pub sessions: Vec<(String, Recorded<Frame>)>,
}

/// The checksum of some bytes: foldhash with a fixed seed.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x5eed_1dea).build_hasher();
    h.write(bytes);
    h.finish()
}

/// The header of a file written for `context` by the binary `binary`.
pub(crate) fn header(binary: u64, context: &str) -> Vec<u8> {
    let mut head = Vec::with_capacity(64 + context.len());
    head.extend_from_slice(MAGIC);
    put_u32(&mut head, VERSION);
    put_u64(&mut head, binary);
    put_bytes(&mut head, context.as_bytes());
    head
}

/// `events` compressed as a frame (level 1). Without zstd's own checksum:
/// each frame's is ours, of its bytes once decompressed ([`checksum`]).
///
/// # Errors
/// Only the compressor's.
pub(crate) fn compress(events: &[u8]) -> io::Result<Vec<u8>> {
    ZIP.with(|z| {
        let mut z = z.borrow_mut();
        if z.is_none() {
            *z = Some(zstd::bulk::Compressor::new(1)?);
        }
        let mut out = (z.as_mut())
            .ok_or_else(|| io::Error::other("no compressor"))?
            .compress(events)?;
        // Made as long as the events could take: kept until the index is
        // written, it would hold their size, not the frame's.
        out.shrink_to_fit();
        Ok(out)
    })
}

thread_local! {
    /// The compressor of this thread: a first report indexes hundreds of
    /// sessions, each a frame or two. A context made for each asked the
    /// processor what it can do (`cpuid`), which a virtual machine traps:
    /// a sixth of what indexing added to a report (issue 46).
    static ZIP: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
}

/// The events of `frame`, whose compressed bytes are `bytes`; `None` when
/// they are not what was written.
pub(crate) fn decompress(bytes: &[u8], frame: &Frame) -> Option<Vec<u8>> {
    raw(bytes, frame.raw, frame.sum)
}

thread_local! {
    /// The decompressor of this thread: a report replays hundreds of
    /// sessions, each a frame (a context made for each was 2.5% of it).
    static UNZIP: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// The `size` bytes of checksum `sum` that `bytes` decompress to.
fn raw(bytes: &[u8], size: u64, sum: u64) -> Option<Vec<u8>> {
    if size > MAX_RAW {
        return None;
    }
    // One byte more than said: a longer frame is refused too.
    let room = usize::try_from(size).ok()?.checked_add(1)?;
    let out = UNZIP.with(|z| {
        let mut z = z.borrow_mut();
        let d = match z.as_mut() {
            Some(d) => d,
            None => z.insert(zstd::bulk::Decompressor::new().ok()?),
        };
        d.decompress(bytes, room).ok()
    })?;
    (out.len() as u64 == size && checksum(&out) == sum).then_some(out)
}

/// The table, compressed, and its trailer (`at`: where it starts).
///
/// # Errors
/// Only the compressor's.
pub(crate) fn table_and_trailer(table: &Table, at: u64) -> io::Result<Vec<u8>> {
    let mut b = Vec::with_capacity(1 << 16);
    put_u32(&mut b, u32::try_from(table.files.len()).unwrap_or(u32::MAX));
    for (path, d) in &table.files {
        put_bytes(&mut b, path.as_os_str().as_encoded_bytes());
        put_stamp(&mut b, &d.stamp);
        put_time(&mut b, d.began);
        put_u64(&mut b, d.indexed_at);
    }
    put_u32(
        &mut b,
        u32::try_from(table.sessions.len()).unwrap_or(u32::MAX),
    );
    for (name, e) in &table.sessions {
        put_bytes(&mut b, name.as_bytes());
        put_u32(&mut b, u32::try_from(e.files.len()).unwrap_or(u32::MAX));
        for (path, stamp) in &e.files {
            put_bytes(&mut b, path.as_os_str().as_encoded_bytes());
            put_stamp(&mut b, stamp);
        }
        for v in [
            e.lines,
            e.indexed_at,
            e.events.at,
            e.events.len,
            e.events.raw,
            e.events.sum,
        ] {
            put_u64(&mut b, v);
        }
        put_resume(&mut b, e.resume.as_ref());
    }
    put_u32(&mut b, u32::try_from(table.dirs.len()).unwrap_or(u32::MAX));
    for (path, l) in &table.dirs {
        put_bytes(&mut b, path.as_os_str().as_encoded_bytes());
        put_stamp(&mut b, &l.stamp);
        put_u64(&mut b, l.indexed_at);
        put_u32(&mut b, u32::try_from(l.entries.len()).unwrap_or(u32::MAX));
        for (name, kind) in &l.entries {
            put_bytes(&mut b, name.as_encoded_bytes());
            put_u32(&mut b, *kind as u32);
        }
    }
    let mut out = compress(&b)?;
    for v in [at, out.len() as u64, b.len() as u64, checksum(&b)] {
        put_u64(&mut out, v);
    }
    out.extend_from_slice(END);
    Ok(out)
}

/// Read the table of an index file of `len` bytes written for `context`
/// by the binary `binary`; `read_at` reads the file's bytes at an offset.
/// `None` when it is not one, is another version's or another binary's,
/// was written for other reads, or is damaged.
pub(crate) fn read_table(
    len: u64,
    binary: u64,
    context: &str,
    read_at: impl Fn(u64, usize) -> Option<Vec<u8>>,
) -> Option<Table> {
    let head = header(binary, context);
    if len < head.len() as u64 + TRAILER || read_at(0, head.len())? != head {
        return None;
    }
    let trailer = read_at(len - TRAILER, usize::try_from(TRAILER).ok()?)?;
    let mut r = Reader(&trailer);
    let (at, size, raw_len, sum) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
    if r.0 != END || at.checked_add(size)? != len - TRAILER || at < head.len() as u64 {
        return None;
    }
    let bytes = read_at(at, usize::try_from(size).ok()?)?;
    parse(&raw(&bytes, raw_len, sum)?, at)
}

/// The table's records; each frame must lie before the table at `end`.
fn parse(body: &[u8], end: u64) -> Option<Table> {
    let mut r = Reader(body);
    let mut out = Table::default();
    for _ in 0..r.u32()? {
        let path = r.path()?;
        let d = Dated {
            stamp: r.stamp()?,
            began: r.time().ok()?,
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
        let e = Recorded {
            files,
            lines: r.u64()?,
            indexed_at: r.u64()?,
            events: Frame {
                at: r.u64()?,
                len: r.u64()?,
                raw: r.u64()?,
                sum: r.u64()?,
            },
            resume: r.resume().ok()?,
        };
        let within = |f: &Frame| f.at.checked_add(f.len).is_some_and(|n| n <= end);
        if !within(&e.events)
            || e.resume
                .is_some_and(|(p, s)| p.body > e.events.raw || !within(&s))
        {
            return None;
        }
        out.sessions.push((name, e));
    }
    for _ in 0..r.u32()? {
        let path = r.path()?;
        let (stamp, indexed_at) = (r.stamp()?, r.u64()?);
        let mut entries = Vec::new();
        for _ in 0..r.u32()? {
            let name = r.path()?.into_os_string();
            let kind = match r.u32()? {
                0 => Entry::Dir,
                1 => Entry::File,
                2 => Entry::Link,
                3 => Entry::Other,
                _ => return None,
            };
            entries.push((name, kind));
        }
        let listing = Listing {
            stamp,
            indexed_at,
            entries,
        };
        out.dirs.push((path, listing));
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

/// A resume point and its state's frame, or none: a flag, then their
/// numbers.
fn put_resume(b: &mut Vec<u8>, r: Option<&(Resume, Frame)>) {
    put_u64(b, u64::from(r.is_some()));
    if let Some((r, f)) = r {
        for v in [r.offset, r.edges, r.body, f.at, f.len, f.raw, f.sum] {
            put_u64(b, v);
        }
    }
}

/// A time, or none (`i64::MIN`).
fn put_time(b: &mut Vec<u8>, t: Option<Timestamp>) {
    b.extend_from_slice(&t.map_or(i64::MIN, Timestamp::millis).to_le_bytes());
}

/// Bytes that do not hold what they should.
struct Damaged;

/// Bytes being read: each read takes its bytes off the front, or fails
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

    /// A resume point and its state's frame, none, or (`Err`) bytes that
    /// are not one.
    fn resume(&mut self) -> Result<Option<(Resume, Frame)>, Damaged> {
        let mut u64 = || self.u64().ok_or(Damaged);
        Ok(match u64()? {
            0 => None,
            1 => Some((
                Resume {
                    offset: u64()?,
                    edges: u64()?,
                    body: u64()?,
                },
                Frame {
                    at: u64()?,
                    len: u64()?,
                    raw: u64()?,
                    sum: u64()?,
                },
            )),
            _ => return Err(Damaged),
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
