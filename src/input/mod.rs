//! Where bytes come from: standard input or files, and how they are cut into
//! lines. Knows nothing about JSON.

pub mod ahead;
pub mod compressed;
pub mod document;
pub mod follow;
pub mod library;
pub mod lines;
pub mod marks;
pub mod store;

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

pub use ahead::{Checked, Interrupt, ReadAhead};
pub use compressed::{Compression, Decompress};
pub use document::OneLine;
pub use lines::{Frame, Line, LineReader};
pub use store::{Readers, StoreReader};

/// One input named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Standard input (no file given, or `-`).
    Stdin,
    /// A file.
    Path(PathBuf),
}

impl Source {
    /// Interpret a command-line argument: `-` is standard input.
    #[must_use]
    pub fn from_arg(arg: &std::ffi::OsStr) -> Source {
        if arg == "-" {
            Source::Stdin
        } else {
            Source::Path(PathBuf::from(arg))
        }
    }

    /// The file's path (`None`: standard input).
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Path(p) => Some(p),
            Source::Stdin => None,
        }
    }

    /// The name used in messages (`<stdin>` or the path as given).
    #[must_use]
    pub fn display_name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_string(),
            Source::Path(p) => p.display().to_string(),
        }
    }

    /// True when the source is a regular file (also standard input
    /// redirected from one): its reads never wait for a writer.
    #[must_use]
    pub fn is_regular_file(&self) -> bool {
        match self {
            Source::Path(p) => std::fs::metadata(p).is_ok_and(|m| m.is_file()),
            Source::Stdin => stdin_is_file(),
        }
    }

    /// Open the source for reading (`Send`, so that a [`ReadAhead`] can
    /// read it on its own thread). Compressed input is decompressed as it
    /// is read ([`Decompress`]); a pretty-printed JSON document is read as
    /// one line ([`OneLine`]); a file's first line is marked as its place
    /// says, by the one of `readers` that marks it (`marks.rs`).
    ///
    /// # Errors
    /// The file cannot be opened (missing, permission, a directory…).
    pub fn open(&self, readers: Readers) -> io::Result<Box<dyn Read + Send>> {
        match self {
            Source::Stdin => Ok(Box::new(OneLine::new(Decompress::new(io::stdin())))),
            Source::Path(p) => {
                let f = File::open(p)?;
                if f.metadata()?.is_dir() {
                    return Err(io::Error::other("is a directory"));
                }
                let rdr = marks::marked(readers, p, OneLine::new(Decompress::new(f)));
                Ok(with_companion(p, rdr))
            }
        }
    }
}

/// Where a session file's [`companion`] is read: before it or after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Read first, as its first line.
    Before,
    /// Read last, as its last line.
    After,
}

/// The file a session file is read with, as one more line: Factory Droid
/// keeps a session's token totals in `<id>.settings.json` beside its
/// `<id>.jsonl` (read after it); Cline CLI its session's record (working
/// directory, model, outcome, totals) in `<id>.json` beside its
/// `<id>.messages.json` (read before it).
#[must_use]
pub fn companion(file: &Path) -> Option<(PathBuf, Place)> {
    let name = file.file_name()?.to_str()?;
    let (c, place) = if let Some(stem) = name.strip_suffix(".messages.json") {
        (file.with_file_name(format!("{stem}.json")), Place::Before)
    } else {
        let stem = name.strip_suffix(".jsonl")?;
        (
            file.with_file_name(format!("{stem}.settings.json")),
            Place::After,
        )
    };
    c.is_file().then_some((c, place))
}

/// `first` with its file's [`companion`] if it has one (a regular file),
/// read as one line, before or after it, with a line break between.
pub(crate) fn with_companion<R: Read + Send + 'static>(
    file: &Path,
    first: R,
) -> Box<dyn Read + Send> {
    let next =
        companion(file).and_then(|(c, place)| Some((crate::file::open_regular(&c).ok()?, place)));
    match next {
        Some((c, Place::After)) => Box::new(first.chain(&b"\n"[..]).chain(OneLine::new(c))),
        Some((c, Place::Before)) => Box::new(OneLine::new(c).chain(&b"\n"[..]).chain(first)),
        None => Box::new(first),
    }
}

#[cfg(unix)]
fn stdin_is_file() -> bool {
    use std::os::fd::AsFd;
    io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|f| f.metadata())
        .is_ok_and(|m| m.is_file())
}

#[cfg(not(unix))]
fn stdin_is_file() -> bool {
    false
}
