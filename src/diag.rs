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

/// Writes diagnostics and counts skipped lines. Each line is composed
/// first and written with one `write` call, so that two processes sharing
/// a stderr (`a | streamview 2>>log & b | streamview 2>>log`) do not
/// garble each other's lines (`E` should be unbuffered: `io::stderr()`).
pub struct Diag<E: Write> {
    err: E,
    verbose: bool,
    skipped: u64,
    /// The line being composed.
    buf: Vec<u8>,
    /// Lines held back (see [`Diag::hold`]) and the skipped lines among
    /// them; `None` when lines are written as they come.
    held: Option<(Vec<u8>, u64)>,
}

impl<E: Write> Diag<E> {
    /// Diagnostics to `err`; `verbose` adds an excerpt of each skipped line.
    pub fn new(err: E, verbose: bool) -> Self {
        Diag {
            err,
            verbose,
            skipped: 0,
            buf: Vec::new(),
            held: None,
        }
    }

    /// Hold back what is written from now on, until [`Diag::release`]
    /// writes it or [`Diag::discard`] drops it: an input's first problems,
    /// until it turns out to be an event stream or not.
    pub fn hold(&mut self) {
        self.release();
        self.held = Some((Vec::new(), 0));
    }

    /// True while lines are held back.
    #[must_use]
    pub fn holding(&self) -> bool {
        self.held.is_some()
    }

    /// Write what was held back; write as lines come from now on.
    pub fn release(&mut self) {
        if let Some((lines, skipped)) = self.held.take() {
            self.skipped += skipped;
            let _ = self.err.write_all(&lines);
            let _ = self.err.flush();
        }
    }

    /// Drop what was held back (a line that says it all follows), its
    /// skipped lines not counted in [`Diag::finish`]'s total.
    pub fn discard(&mut self) {
        self.held = None;
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

    /// Count lines skipped and reported elsewhere (`-j`: by the diagnostics
    /// of another thread, whose lines were passed on).
    pub fn add_skipped(&mut self, n: u64) {
        self.skipped += n;
    }

    /// True when notes about lines are wanted (`-v`).
    #[must_use]
    pub fn is_verbose(&self) -> bool {
        self.verbose
    }

    /// Write `streamview: ` and `parts`, sanitized, and a line end, in one
    /// call. Errors writing to stderr are ignored: there is nowhere left to
    /// report them.
    fn line(&mut self, parts: &[&str]) {
        self.buf.clear();
        self.buf.extend_from_slice(b"streamview: ");
        for p in parts {
            self.buf.extend_from_slice(sanitize_line(p).as_bytes());
        }
        self.buf.push(b'\n');
        if let Some((lines, _)) = &mut self.held {
            lines.extend_from_slice(&self.buf);
            return;
        }
        let _ = self.err.write_all(&self.buf);
        let _ = self.err.flush();
    }

    /// Report a skipped line.
    pub fn skipped_line(&mut self, source: &str, line: u64, problem: &LineProblem, bytes: &[u8]) {
        match &mut self.held {
            Some((_, held)) => *held += 1,
            None => self.skipped += 1,
        }
        let what = format!(":{line}: {problem}; skipped");
        self.line(&[source, &what]);
        if self.verbose && !bytes.is_empty() {
            // Cut first (a line may be 64 MiB), then make it safe.
            let head = &bytes[..bytes.len().min(EXCERPT_CHARS * 4 + 4)];
            let text = String::from_utf8_lossy(head);
            let cut: String = text.chars().take(EXCERPT_CHARS).collect();
            let more = if head.len() < bytes.len() || text.chars().count() > EXCERPT_CHARS {
                "…"
            } else {
                ""
            };
            self.line(&["  | ", &cut, more]);
        }
    }

    /// A note about a line that was read (`source:line: what`).
    pub fn line_note(&mut self, source: &str, line: u64, what: &str) {
        self.line(&[source, &format!(":{line}: "), what]);
    }

    /// Any other one-line message.
    pub fn message(&mut self, msg: &str) {
        self.line(&[msg]);
    }

    /// The closing count, when lines were skipped.
    pub fn finish(&mut self) {
        self.release();
        if self.skipped > 0 {
            let n = self.skipped;
            let msg = format!("{n} line{} skipped", if n == 1 { "" } else { "s" });
            self.message(&msg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records each `write` call.
    #[derive(Default)]
    struct Calls(Vec<Vec<u8>>);

    impl Write for Calls {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.push(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn each_diagnostic_line_is_one_write() {
        let mut d = Diag::new(Calls::default(), true);
        let problem = LineProblem::NotAnObject { found: "array" };
        d.skipped_line("a\x1b]0;x\x07.jsonl", 7, &problem, b"[1,\x1b[31m2]");
        d.line_note("s.jsonl", 3, "a note");
        d.message("done");
        d.finish();
        let calls: Vec<String> = d
            .into_inner()
            .0
            .into_iter()
            .map(|c| String::from_utf8(c).unwrap())
            .collect();
        assert_eq!(
            calls,
            [
                "streamview: a␛]0;x␇.jsonl:7: JSON array, not an object; skipped\n",
                "streamview:   | [1,␛[31m2]\n",
                "streamview: s.jsonl:3: a note\n",
                "streamview: done\n",
                "streamview: 1 line skipped\n",
            ]
        );
    }
}
