//! The end of a session: its results, shown as one.
//!
//! Claude Code 2.1.330 runs sub-agents in the background, and the end of
//! each one starts a turn of its own with its own `result` line, so one
//! session can print several results, usually together at the very end.
//! Shown as they come they read as several ends (`✓ done` three times).
//! So while turns that began (each repeats the session's header) have not
//! all reported ([`crate::session::Note::more_results`]), the lines of a
//! result are held ([`End`]); the results that follow are folded into one
//! end: the session's totals, then one line per part. What decides is the
//! data, never when the input pauses, so the output does not depend on how
//! the input is read. A result that comes after its end was written goes
//! under it as a part (or, when it fails the session, with a new end).
//!
//! ```text
//! ✓ done · 5 turns · 359ms · $0.1147 · 14.2k in / 192 out
//!   ⎿ ✓ main turn · 3 turns · 276ms · 6.1k in / 166 out
//!   ⎿ ✓ after task Inspect Python code · 1 turn · 41ms · 3.8k in / 13 out
//! ```
//!
//! A session with one result shows exactly what it always did.

use std::collections::VecDeque;

use crate::event::{SessionResult, Tokens};

use super::{Lines, Style, To};

/// The end being shown, and the results of the session so far.
#[derive(Default)]
pub(super) struct End {
    /// The lines composed and not yet written.
    pub(super) lines: Lines,
    /// Where they go.
    pub(super) to: Option<To>,
    /// The last [`MAX_PARTS`] results of the session in progress.
    parts: VecDeque<Part>,
    /// How many results the session had.
    count: usize,
    /// The last output written was this end: a later result adds its part
    /// under it (unless it turns the end's `✓` into a failure).
    pub(super) last: bool,
    /// The end line says the session failed.
    pub(super) failed: bool,
}

impl End {
    /// A new session: its results start afresh.
    pub(super) fn reset(&mut self) {
        self.parts.clear();
        self.count = 0;
    }

    /// How many results the session had before this one.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// One more result.
    pub(super) fn push(&mut self, part: Part) {
        if self.parts.len() >= MAX_PARTS {
            self.parts.pop_front();
        }
        self.parts.push_back(part);
        self.count += 1;
    }

    /// The part lines of the results so far (the last [`MAX_PARTS`]).
    pub(super) fn write_parts(&self, l: &mut Lines, cols: Option<usize>) {
        let first = self.count - self.parts.len();
        if first > 0 {
            l.push(Style::Dim, "  ⎿ ");
            l.fmt(Style::Dim, format_args!("… {first} earlier turns"));
            l.end(0);
        }
        for (i, p) in self.parts.iter().enumerate() {
            p.write(l, first + i, cols);
        }
    }

    /// Hold `lines` (swapped in, the old content swapped out) for `to`.
    pub(super) fn hold(&mut self, lines: &mut Lines, to: To) {
        std::mem::swap(&mut self.lines, lines);
        self.to = Some(match (self.to, to) {
            (Some(To::Alert), _) | (_, To::Alert) => To::Alert,
            _ => To::Out,
        });
    }

    /// True while lines are held.
    pub(super) fn is_held(&self) -> bool {
        self.to.is_some()
    }
}

/// Results of a session listed under its end at most: a stream of many
/// (a long `--input-format stream-json` conversation, a crafted one)
/// stays linear.
const MAX_PARTS: usize = 8;

/// One result of a session, as its part line says it.
pub(super) struct Part {
    pub(super) is_error: bool,
    /// The background task whose end started this turn.
    pub(super) after_task: Option<String>,
    pub(super) num_turns: Option<u64>,
    pub(super) duration_ms: Option<u64>,
    pub(super) tokens: Tokens,
    /// Why it failed.
    pub(super) reasons: Vec<String>,
}

impl Part {
    pub(super) fn of(r: &SessionResult<'_>, reasons: Vec<String>) -> Part {
        Part {
            is_error: r.is_error,
            after_task: r.after_task.as_deref().map(str::to_string),
            num_turns: r.num_turns,
            duration_ms: r.duration_ms,
            tokens: r.tokens,
            reasons,
        }
    }

    /// `  ⎿ ✓ main turn · 3 turns · 276ms · 6.1k in / 166 out`, and the
    /// reasons of a failed part under it. `i` is its place in the session;
    /// on a terminal `cols` wide, the least needed numbers go first.
    pub(super) fn write(&self, l: &mut Lines, i: usize, cols: Option<usize>) {
        l.push(Style::Dim, "  ⎿ ");
        if self.is_error {
            l.push(Style::Error, "✗ ");
        } else {
            l.push(Style::Ok, "✓ ");
        }
        match (&self.after_task, i) {
            (Some(t), _) => {
                l.push(Style::Plain, "after task ");
                l.one_line(Style::Plain, t, 80);
            }
            (None, 0) => l.push(Style::Plain, "main turn"),
            (None, _) => l.fmt(Style::Plain, format_args!("turn {}", i + 1)),
        }
        // The cost is the session's so far in every result: said once, in
        // the totals.
        let stats = SessionResult {
            num_turns: self.num_turns,
            duration_ms: self.duration_ms,
            tokens: self.tokens,
            ..SessionResult::default()
        };
        super::fit(l, cols, |l, shed| {
            super::result_stats(
                l,
                &stats,
                &super::Stats {
                    shed,
                    ..super::Stats::PLAIN
                },
            );
        });
        l.end_hanging(0, 4);
        for m in &self.reasons {
            l.push(Style::Error, "      ");
            l.one_line(Style::Error, m, 500);
            l.end(0);
        }
    }
}
