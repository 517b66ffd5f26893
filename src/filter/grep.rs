//! `--grep PATTERN`: the events whose words match a regular expression, in
//! ripgrep's manner (`FILE:LINE:SESSION: ▸ Bash npm test`), or as JSONL.
//!
//! What is searched is what a person reads that the line wrote: the text
//! of the assistant, the user and the reasoning, a tool call's name, key
//! argument (when its input holds it as it is) and input, a tool's output,
//! a denial, a notice (an API error, a retry) when its line holds the match
//! as it came ([`Grep::find`]); not ids, keys or the JSON around them, not
//! what repeats a text already searched (streamed fragments, the final
//! answer a result repeats), and not what streamview writes itself: a
//! notice's own words ("context compacted", "turn started", "sub-agent …
//! shown un-nested"), results (their errors are gathered from other lines,
//! or made up at the end), a call's summary of its own making (`3 items`).
//! Those words are in no line a raw pre-check could find, and some depend
//! on lines a search leaves unread: searching them could not be exact.
//!
//! A line is decoded only when its raw bytes can hold a match
//! ([`Grep::line_may_match`]): the pattern runs over the line as it came,
//! and a line it does not match is skipped unread. That is done when the
//! pattern is plain (ASCII, no control character, no backslash, no quote),
//! rewritten for what JSON escapes (see `raw`): `<`, `>`, `&`, `/` may be
//! written `\u003c`, `\u003e`, `\u0026`, `\/`; what matches any one
//! character (`.`, `[^a]`) may meet an escape (`\t`, `\"`, `\u00e9`);
//! `^` and `$` are left out (they say where a decoded string starts and
//! ends, not the line). Any other pattern is looked for in every decoded
//! line. A line is skipped too when every raw match lies in what
//! is never searched: a key of the line's top-level object that says who,
//! when or where (`permissionMode`, `parentUuid`, `timestamp`, `version`:
//! the words of the metadata every transcript line repeats), or its string
//! value. Deeper keys are searched (a tool call's input is searched as
//! JSON text), and so are the other top-level keys (some decoders write
//! their names into a text). Each match's string is told key or value by
//! reading the line forward once from its start, escapes skipped, as far
//! as the last match (see `unsearched`); a match that is not wholly inside
//! such a string keeps the line.
//!
//! Lines may be left unread, so the decoders are told (see
//! `Decoder::lines_may_be_skipped`): a transcript's sub-agent is not
//! linked to its `Agent` call, whose line may be unread. A line read
//! alone lacks what earlier lines said (a tool result does not know its
//! call's name), so the search shows each match by itself. Not yet exact:
//! words some decoders write into a call's name or a tool's output (Codex
//! names its commands `shell` and `apply_patch`; `exit code 1` before a
//! failed command's output from Amp, Codex, Qwen; Codex's `searched: …`),
//! and with `--format jsonl` a result's `name` and what a call's two lines
//! (Codex's started and completed) make of it, which depend on the lines
//! read. The exit status is grep's: 0 when something matched, 1 when
//! nothing did, 2 on an error.
//!
//! How matches are written for people is in `lines.rs` (`FILE:LINE:`,
//! the file and line of a sub-agent's match, `-C`, `-l`, `-c`) and
//! `show.rs` (an event's line, a call's input by the field that matches).

use std::cell::Cell;
use std::io;
use std::rc::Rc;
use std::sync::Arc;

use regex::{Regex, RegexBuilder};

use crate::event::{Event, EventKind};
use crate::render::Sink;
use crate::session::Session;
pub use lines::GrepLines;
use unsearched::Unsearched;

/// What `--grep` prints, besides the events in JSONL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// One line per match, and `context` events before and after each
    /// (`-C N`), groups apart separated by `--`.
    Matches {
        /// Events shown around a match.
        context: usize,
    },
    /// The names of the files with a match (`-l`).
    Files,
    /// Each file with a match and how many (`-c`): `FILE:COUNT`.
    Counts,
}

impl Default for Listing {
    fn default() -> Self {
        Listing::Matches { context: 0 }
    }
}

/// A compiled `--grep` pattern.
#[derive(Clone, Debug)]
pub struct Grep {
    /// Shared: a library's every file has a sink of its own (`-j`), and a
    /// regex's clone builds a new pool of search caches.
    text: Arc<Regex>,
    /// The same pattern over raw lines, when that is exact (see the module docs).
    raw: Option<Arc<regex::bytes::Regex>>,
}

impl Grep {
    /// Compile `pattern` (`-i`: `ignore_case`).
    ///
    /// # Errors
    /// The pattern is not a valid regular expression: the message says why.
    pub fn new(pattern: &str, ignore_case: bool) -> Result<Grep, String> {
        let text = RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            .build()
            .map_err(|e| format!("invalid --grep pattern: {}", one_line(&e.to_string())))?;
        let plain = pattern
            .bytes()
            .all(|b| b.is_ascii() && !b.is_ascii_control() && b != b'\\' && b != b'"');
        let raw = plain
            .then(|| raw::raw_pattern(pattern, ignore_case))
            .flatten()
            .and_then(|raw| {
                regex::bytes::RegexBuilder::new(&raw)
                    .case_insensitive(ignore_case)
                    .unicode(false)
                    .build()
                    .ok()
            });
        Ok(Grep {
            text: Arc::new(text),
            raw: raw.map(Arc::new),
        })
    }

    /// The same pattern looked for in every decoded line, with no raw
    /// pre-check (`-C`: the events around a match are shown too).
    #[must_use]
    pub fn every_line(mut self) -> Grep {
        self.raw = None;
        self
    }

    /// The raw bytes of a line can hold a match: it is worth decoding.
    #[must_use]
    pub fn line_may_match(&self, line: &[u8]) -> bool {
        let Some(raw) = &self.raw else {
            return true;
        };
        let mut matches = raw.find_iter(line);
        let Some(first) = matches.next() else {
            return false;
        };
        let Some(mut unsearched) = Unsearched::new(line) else {
            return true;
        };
        // A line whose every match lies in what is never searched cannot match.
        !std::iter::once(first)
            .chain(matches)
            .all(|m| !m.is_empty() && unsearched.covers(m.start(), m.end()))
    }

    /// Where in `lines` (whole lines, each with its `\n`) the first line
    /// that [`Grep::line_may_match`] may keep begins, or at least a place
    /// before it: the lines before it can be skipped unread. The raw
    /// pattern has no `^` or `$` and cannot miss a match by running over
    /// many lines at once; a match it finds across a line break, or in
    /// what is never searched, only stops the skip early. `None`: no line
    /// may match.
    #[must_use]
    pub fn first_possible(&self, lines: &[u8]) -> Option<usize> {
        match &self.raw {
            Some(raw) => raw.find(lines).map(|m| m.start()),
            None => Some(0),
        }
    }

    /// The pattern matches line `raw` as it is, outside what is never
    /// searched (see the module docs): a notice of that line is searched.
    /// The same whether or not the pattern has a raw pre-check, and no
    /// line it holds for is skipped by one (the pre-check matches more).
    fn line_holds(&self, raw: &str) -> bool {
        let mut matches = self.text.find_iter(raw).peekable();
        if matches.peek().is_none() {
            return false;
        }
        let Some(mut unsearched) = Unsearched::new(raw.as_bytes()) else {
            return true;
        };
        !matches.all(|m| !m.is_empty() && unsearched.covers(m.start(), m.end()))
    }

    /// The first searched field of `ev` that matches: its text, and where
    /// the match is in it.
    #[must_use]
    pub fn find(&self, ev: &Event<'_>, scratch: &mut String) -> Option<(String, usize, usize)> {
        let mut hit = None;
        let line_ok = |raw: &str| self.line_holds(raw);
        each_field(ev, scratch, &line_ok, &mut |field: &str| {
            if hit.is_none()
                && let Some(m) = self.text.find(field)
            {
                hit = Some((field.to_string(), m.start(), m.end()));
            }
        });
        hit
    }
}

/// The first line of a (multi-line) error message.
fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Call `f` with each text of `ev` that a person reads and the line
/// wrote (see the module docs: a notice when its line, `line_ok`, could
/// hold the match; not a result).
fn each_field(
    ev: &Event<'_>,
    scratch: &mut String,
    line_ok: &dyn Fn(&str) -> bool,
    f: &mut dyn FnMut(&str),
) {
    match &ev.kind {
        EventKind::Text(t) => f(&t.text),
        EventKind::Thinking(t) => f(&t.text),
        EventKind::ToolCall(c) => {
            f(&c.name);
            let input = c.input.text();
            // The key argument as the input holds it (`npm test`), not a
            // summary of the decoder's making (`3 items`, `add src/a.rs`).
            if let Some(k) = c.key_arg.as_deref().filter(|k| input.contains(k)) {
                f(k);
            }
            f(&input);
        }
        EventKind::ToolResult(r) => {
            f(r.content.text_with(scratch));
            for a in &r.answers {
                f(&a.answer);
            }
        }
        EventKind::PermissionDenied(d) => {
            for s in [&d.tool, &d.key_arg, &d.message].into_iter().flatten() {
                f(s);
            }
        }
        EventKind::PlainText(t) => f(t),
        // An API error, a retry, a hook's failure: the producer's words,
        // searched when its line could hold the match, as a line left
        // unread could not (a notice of streamview's own words, "context
        // compacted", is then not found by them).
        EventKind::Notice(n) => {
            if n.raw.as_deref().is_some_and(line_ok) {
                f(&n.text);
            }
        }
        // Written by the decoder, or gathered from other lines.
        EventKind::Result(_)
        | EventKind::SessionStart(_)
        | EventKind::Usage(_)
        | EventKind::Delta(_)
        | EventKind::Unknown(_) => {}
    }
}

/// A sink that passes on the events that match to `inner` (JSONL), and
/// counts them for the exit status.
pub struct Matching<S: Sink> {
    inner: S,
    grep: Grep,
    scratch: String,
    matched: Rc<Cell<u64>>,
}

impl<S: Sink> Matching<S> {
    /// `inner` behind `grep`, counting matches in `matched`.
    pub fn new(inner: S, grep: Grep, matched: Rc<Cell<u64>>) -> Self {
        Matching {
            inner,
            grep,
            scratch: String::new(),
            matched,
        }
    }
}

impl<S: Sink> Sink for Matching<S> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        if self.grep.find(ev, &mut self.scratch).is_none() {
            return Ok(());
        }
        self.matched.set(self.matched.get() + 1);
        self.inner.event(ev, s)
    }

    fn finish(&mut self, _s: &Session) -> io::Result<()> {
        // No session end: a search shows matches only.
        self.inner.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

mod lines;
mod raw;
mod show;
#[cfg(test)]
mod tests;
mod unsearched;
