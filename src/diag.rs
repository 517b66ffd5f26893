//! Per-line problems and other messages for stderr: counted, one line each,
//! `streamview: <source>:<line>: <what>; skipped`.

use std::io::Write;

use crate::decode::LineProblem;
use crate::render::sanitize::sanitize;

/// Longest excerpt of a skipped line shown in verbose mode, in characters.
const EXCERPT_CHARS: usize = 80;

/// Writes diagnostics and counts skipped lines.
pub struct Diag<E: Write> {
    err: E,
    verbose: bool,
    skipped: u64,
}

impl<E: Write> Diag<E> {
    /// Diagnostics to `err`; `verbose` adds an excerpt of each skipped line.
    pub fn new(err: E, verbose: bool) -> Self {
        Diag {
            err,
            verbose,
            skipped: 0,
        }
    }

    /// Give back the writer.
    pub fn into_inner(self) -> E {
        self.err
    }

    /// Lines skipped so far.
    #[must_use]
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Report a skipped line. Errors writing to stderr are ignored: there is
    /// nowhere left to report them.
    pub fn skipped_line(&mut self, source: &str, line: u64, problem: &LineProblem, bytes: &[u8]) {
        self.skipped += 1;
        let _ = writeln!(self.err, "streamview: {source}:{line}: {problem}; skipped");
        if self.verbose && !bytes.is_empty() {
            let text = String::from_utf8_lossy(bytes);
            let excerpt: String = sanitize(&text).chars().take(EXCERPT_CHARS).collect();
            let more = if text.chars().count() > EXCERPT_CHARS {
                "…"
            } else {
                ""
            };
            let _ = writeln!(self.err, "streamview:   | {excerpt}{more}");
        }
        let _ = self.err.flush();
    }

    /// Any other one-line message.
    pub fn message(&mut self, msg: &str) {
        let _ = writeln!(self.err, "streamview: {msg}");
        let _ = self.err.flush();
    }

    /// The closing count, when lines were skipped.
    pub fn finish(&mut self) {
        if self.skipped > 0 {
            let n = self.skipped;
            let _ = writeln!(
                self.err,
                "streamview: {n} line{} skipped",
                if n == 1 { "" } else { "s" }
            );
            let _ = self.err.flush();
        }
    }
}
