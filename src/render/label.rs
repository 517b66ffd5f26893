//! `--label NAME`: every line of the output starts with `[NAME] `, and
//! leaves in one `write` (issue 28).
//!
//! Several agents watched in one terminal (`a | streamview --label api &
//! b | streamview --label web`) write to one place at once. The kernel
//! keeps a `write` of at most `PIPE_BUF` bytes to a pipe whole, and a
//! terminal takes each `write` under its lock; so [`WholeLines`] sits
//! under every sink of a labelled run and writes only whole lines, several
//! in one `write` while they fit in `PIPE_BUF` bytes, a longer line alone
//! in one. Two processes' lines then never mix inside a line. A line still
//! being written (text being streamed, a tool call waiting for its result)
//! is held until it ends: a labelled run shows streamed text a line at a
//! time.
//!
//! The label is put in front of each line here, below the sinks, so that
//! every format and every kind of line (wrapped, continued, the summary's
//! tables) gets it the same way, in one copy with no allocation per line.

use std::io::{self, Write};

use termcolor::{Ansi, ColorSpec, WriteColor};

use super::sanitize::sanitize_line;

/// The most bytes a `write` to a pipe is sure to keep whole (POSIX
/// `PIPE_BUF`: 4096 on Linux, the minimum 512 elsewhere).
pub const PIPE_BUF: usize = if cfg!(target_os = "linux") { 4096 } else { 512 };

/// The bytes a labelled line starts with: `[NAME] `, the name made safe
/// for a terminal, in `spec` when `color`.
#[must_use]
pub fn prefix(name: &str, spec: &ColorSpec, color: bool) -> Vec<u8> {
    let name = sanitize_line(name);
    let mut out = Ansi::new(Vec::with_capacity(name.len() + 24));
    if color {
        let _ = out.set_color(spec);
    }
    let _ = write!(out, "[{name}]");
    if color {
        let _ = out.reset();
    }
    let _ = out.write_all(b" ");
    out.into_inner()
}

/// The columns a label's prefix takes (`[NAME] `).
#[must_use]
pub fn prefix_width(name: &str) -> usize {
    sanitize_line(name).chars().count() + 3
}

/// The labels of several files followed at once (`-f A B …`, `--latest N
/// -f`): each file's name without its extensions (`api` for
/// `api.jsonl`), an id's first 8 characters for a file named by a UUID
/// (Claude Code's sessions), the folder before it where two are equal
/// (`a/api`, `b/api`), after `base` when given (`NAME/api`); printable,
/// on one line, at most 32 characters.
#[must_use]
pub fn names_of(paths: &[&std::path::Path], base: Option<&str>) -> Vec<String> {
    let stem = |p: &std::path::Path| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let stem = name.split('.').next().unwrap_or_default().to_string();
        let uuid = stem.len() == 36 && stem.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
        if uuid { stem[..8].to_string() } else { stem }
    };
    let stems: Vec<String> = paths.iter().map(|p| stem(p)).collect();
    (paths.iter().zip(&stems))
        .map(|(path, name)| {
            let twice = stems.iter().filter(|n| *n == name).count() > 1;
            let parent = path.parent().and_then(|d| d.file_name());
            let mut name = match parent {
                Some(dir) if twice => format!("{}/{name}", dir.to_string_lossy()),
                _ => name.clone(),
            };
            if let Some(b) = base {
                name = format!("{b}/{name}");
            }
            let name: String = sanitize_line(&name).chars().take(32).collect();
            if name.is_empty() {
                "?".to_string()
            } else {
                name
            }
        })
        .collect()
}

/// A run's label, as decided from the command line: what to write where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// The name (`--label NAME`), printable text on one line.
    pub name: String,
    /// Standard output's lines start with it (the format prints lines
    /// for people); otherwise they are only kept whole (JSONL: each event
    /// carries it).
    pub prefixed: bool,
    /// Colour it on standard output.
    pub color_stdout: bool,
    /// Colour it on standard error.
    pub color_stderr: bool,
    /// Its look: the theme's `label`, or a colour of the theme's palette
    /// picked by the name ([`Theme::label_spec`](super::theme::Theme::label_spec)).
    pub spec: ColorSpec,
}

impl Label {
    /// Standard output of a labelled run: whole lines, prefixed as the
    /// format wants.
    #[must_use]
    pub fn stdout(&self, out: Box<dyn Write>) -> Box<dyn Write> {
        let prefix = if self.prefixed {
            prefix(&self.name, &self.spec, self.color_stdout)
        } else {
            Vec::new()
        };
        Box::new(WholeLines::new(out, prefix))
    }

    /// Standard error of a labelled run: every line prefixed, whole.
    #[must_use]
    pub fn stderr(&self, out: Box<dyn Write>) -> Box<dyn Write> {
        let prefix = prefix(&self.name, &self.spec, self.color_stderr);
        Box::new(WholeLines::new(out, prefix))
    }

    /// The prefix of the status line (always on a terminal).
    #[must_use]
    pub fn status_prefix(&self) -> Vec<u8> {
        prefix(&self.name, &self.spec, self.color_stdout)
    }

    /// The columns the prefix takes on standard output (0: none).
    #[must_use]
    pub fn width(&self) -> usize {
        if self.prefixed {
            prefix_width(&self.name)
        } else {
            0
        }
    }
}

/// A writer that writes only whole lines, each started with a prefix, in
/// as few `write`s as keep each at most [`PIPE_BUF`] bytes (a longer line
/// in one of its own). See the module docs.
///
/// [`Write::flush`] writes the whole lines it holds and keeps a partial
/// one; dropping it writes everything.
pub struct WholeLines<W: Write> {
    out: W,
    prefix: Box<[u8]>,
    /// Whole lines, then the start of the next.
    buf: Vec<u8>,
    /// Where the whole lines end in `buf`.
    whole: usize,
    /// The next byte starts a line.
    at_start: bool,
}

impl<W: Write> WholeLines<W> {
    /// Lines to `out`, each after `prefix` (empty: lines as they are).
    pub fn new(out: W, prefix: Vec<u8>) -> Self {
        WholeLines {
            out,
            prefix: prefix.into_boxed_slice(),
            buf: Vec::with_capacity(2 * PIPE_BUF),
            whole: 0,
            at_start: true,
        }
    }

    /// Write the whole lines held, in one `write`.
    fn write_whole(&mut self) -> io::Result<()> {
        if self.whole == 0 {
            return Ok(());
        }
        let res = self.out.write_all(&self.buf[..self.whole]);
        // What was written is gone either way: a failed write is not
        // tried again with the next line.
        self.buf.drain(..self.whole);
        self.whole = 0;
        res
    }

    /// A line has ended at the end of `buf`.
    fn line_ended(&mut self) -> io::Result<()> {
        // Keep each `write` within PIPE_BUF when the lines before this one
        // fill it; a line longer than that goes alone.
        if self.whole > 0 && self.buf.len() > PIPE_BUF {
            self.write_whole()?;
        }
        self.whole = self.buf.len();
        if self.whole >= PIPE_BUF {
            self.write_whole()?;
        }
        Ok(())
    }
}

impl<W: Write> Write for WholeLines<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut rest = data;
        while !rest.is_empty() {
            if self.at_start {
                self.buf.extend_from_slice(&self.prefix);
                self.at_start = false;
            }
            if let Some(i) = memchr::memchr(b'\n', rest) {
                self.buf.extend_from_slice(&rest[..=i]);
                rest = &rest[i + 1..];
                self.at_start = true;
                self.line_ended()?;
            } else {
                self.buf.extend_from_slice(rest);
                rest = &[];
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_whole()?;
        self.out.flush()
    }
}

impl<W: Write> Drop for WholeLines<W> {
    /// The end of the output: a line left open is written as it is.
    fn drop(&mut self) {
        self.whole = self.buf.len();
        let _ = self.write_whole().and_then(|()| self.out.flush());
    }
}

#[cfg(test)]
mod tests;
