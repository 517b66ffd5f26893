//! Per-line problems and other messages for stderr: counted, one line each,
//! `streamview: <source>:<line>: <what>; skipped`.
//!
//! Everything written here goes through [`sanitize_line`]: source names come
//! from the command line (a file name may hold an escape sequence), and
//! excerpts and messages can quote the input.

use std::io::Write;

use crate::decode::LineProblem;
use crate::render::sanitize::sanitize_line;

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
        let what = format!("{problem}");
        let _ = writeln!(
            self.err,
            "streamview: {}:{line}: {}; skipped",
            sanitize_line(source),
            sanitize_line(&what)
        );
        if self.verbose && !bytes.is_empty() {
            // Cut first (a line may be 64 MiB), then make it safe.
            let head = &bytes[..bytes.len().min(EXCERPT_CHARS * 4 + 4)];
            let text = String::from_utf8_lossy(head);
            let cut: String = text.chars().take(EXCERPT_CHARS).collect();
            let excerpt = sanitize_line(&cut);
            let more = if head.len() < bytes.len() || text.chars().count() > EXCERPT_CHARS {
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
        let _ = writeln!(self.err, "streamview: {}", sanitize_line(msg));
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
