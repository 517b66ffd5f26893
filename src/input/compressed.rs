//! Compressed input, read transparently: a gzip or zstd stream
//! (`x.jsonl.gz`, `x.jsonl.zst`, or `gzip -c log | streamview`) is
//! recognised by its magic bytes, not by a file name, and decompressed as it
//! is read.
//!
//! [`Decompress`] decides on its first read. Plain input costs one look at
//! the first byte: a JSON line starts with `{`, blank or a BOM, never with a
//! byte that begins a magic number, so the first read decides and every
//! later read goes straight to the source. Only a first byte that could
//! begin a magic number makes it read on, and only until the magic number
//! is complete or contradicted, so a live pipe never waits for bytes that
//! the writer has not sent. Concatenated gzip members (`cat a.gz b.gz`, or a
//! log rotated with `gzip` appended to) and zstd frames are read one after
//! the other.
//!
//! Errors of the decompressor (corrupt or truncated data) come back as read
//! errors with a one-line text that names the format; the run reports them
//! like any read error and goes on with the next input.

use std::fmt;
use std::io::{self, Chain, Cursor, Read};

use flate2::read::MultiGzDecoder;
use std::io::BufReader;

/// A compression format recognised by its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// gzip (RFC 1952): `1f 8b`.
    Gzip,
    /// Zstandard (RFC 8878): `28 b5 2f fd`.
    Zstd,
}

impl Compression {
    /// Every format, with its magic bytes.
    const MAGIC: [(Compression, &'static [u8]); 2] = [
        (Compression::Gzip, &[0x1f, 0x8b]),
        (Compression::Zstd, &[0x28, 0xb5, 0x2f, 0xfd]),
    ];

    /// What the first bytes of an input say: `Some(Some(c))` compressed with
    /// `c`, `Some(None)` not compressed, `None` too few bytes to tell (they
    /// begin a magic number).
    #[must_use]
    pub fn sniff(head: &[u8]) -> Option<Option<Compression>> {
        let mut undecided = false;
        for (c, magic) in Compression::MAGIC {
            if head.starts_with(magic) {
                return Some(Some(c));
            }
            undecided |= head.len() < magic.len() && magic.starts_with(head);
        }
        if undecided { None } else { Some(None) }
    }

    /// The compression of the file at `path`, from its first bytes;
    /// `None` also for anything but a regular file (a named pipe is not
    /// read: its bytes would be gone). `--follow` asks before following.
    ///
    /// # Errors
    /// The file cannot be opened or read.
    pub fn of_file(path: &std::path::Path) -> io::Result<Option<Compression>> {
        let file = std::fs::File::open(path)?;
        if !file.metadata()?.is_file() {
            return Ok(None);
        }
        let mut head = Vec::with_capacity(8);
        file.take(8).read_to_end(&mut head)?;
        Ok(Compression::sniff(&head).flatten())
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        })
    }
}

/// The bytes read while deciding, then the rest of the source.
type Replay<R> = Chain<Cursor<Vec<u8>>, R>;

enum State<R> {
    /// Not decided yet; the bytes read so far.
    Sniff(R, Vec<u8>),
    /// Plain, decided on the first read: the source as it is.
    Plain(R),
    /// Plain, decided after more than one read: the bytes held back first.
    Replay(Replay<R>),
    /// gzip.
    Gzip(Box<MultiGzDecoder<Replay<R>>>),
    /// zstd.
    Zstd(Box<zstd::stream::read::Decoder<'static, BufReader<Replay<R>>>>),
    /// Between two states (only while [`Decompress::sniff`] runs).
    Moving,
}

/// A `Read` that decompresses its source when the first bytes say it is
/// compressed, and passes it through otherwise.
pub struct Decompress<R> {
    state: State<R>,
}

impl<R: Read> Decompress<R> {
    /// Read `rdr`, decompressing it if it turns out to be compressed.
    pub fn new(rdr: R) -> Self {
        Decompress {
            state: State::Sniff(rdr, Vec::new()),
        }
    }

    /// The compression found, once the first read decided it (`None` for
    /// plain input, and before the first read).
    #[must_use]
    pub fn compression(&self) -> Option<Compression> {
        match self.state {
            State::Gzip(_) => Some(Compression::Gzip),
            State::Zstd(_) => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// The first reads: decide, then read through the chosen state.
    fn sniff(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let State::Sniff(mut rdr, mut head) = std::mem::replace(&mut self.state, State::Moving)
        else {
            unreachable!("sniff is called in the Sniff state only")
        };
        loop {
            let n = match rdr.read(out) {
                Ok(n) => n,
                Err(e) => {
                    self.state = State::Sniff(rdr, head);
                    return Err(e);
                }
            };
            if n == 0 && head.is_empty() {
                // The end, before any byte: said now, not read again (a
                // terminal's Ctrl-D is read once, as `cat` reads it).
                self.state = State::Plain(rdr);
                return Ok(0);
            }
            if head.is_empty() && Compression::sniff(&out[..n]) == Some(None) {
                // The common case: plain, and nothing held back.
                self.state = State::Plain(rdr);
                return Ok(n);
            }
            head.extend_from_slice(&out[..n]);
            let decided = if n == 0 {
                Some(None) // the input ended before a magic number did
            } else {
                Compression::sniff(&head)
            };
            let Some(compression) = decided else {
                continue;
            };
            let replay = Cursor::new(head).chain(rdr);
            self.state = match compression {
                None => State::Replay(replay),
                Some(Compression::Gzip) => State::Gzip(Box::new(MultiGzDecoder::new(replay))),
                Some(Compression::Zstd) => match zstd::stream::read::Decoder::new(replay) {
                    Ok(d) => State::Zstd(Box::new(d)),
                    Err(e) => return Err(corrupt(Compression::Zstd, &e)),
                },
            };
            return self.read(out);
        }
    }
}

impl<R: Read> Read for Decompress<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        match &mut self.state {
            State::Plain(r) => r.read(out),
            State::Replay(r) => r.read(out),
            State::Gzip(d) => d.read(out).map_err(|e| corrupt(Compression::Gzip, &e)),
            State::Zstd(d) => d.read(out).map_err(|e| corrupt(Compression::Zstd, &e)),
            State::Sniff(..) if out.is_empty() => Ok(0),
            State::Sniff(..) => self.sniff(out),
            State::Moving => Err(io::Error::other("read after a failed decision")),
        }
    }
}

/// A decompressor's error in one line that names the format: the data ends
/// in the middle of the stream, or is not what the format says.
fn corrupt(c: Compression, e: &io::Error) -> io::Error {
    match e.kind() {
        io::ErrorKind::Interrupted => io::Error::from(io::ErrorKind::Interrupted),
        io::ErrorKind::UnexpectedEof => io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("truncated {c} data (the input ends in the middle of the compressed stream)"),
        ),
        kind => io::Error::new(kind, format!("corrupt {c} data ({e})")),
    }
}

#[cfg(test)]
mod tests;
