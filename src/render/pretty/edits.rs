//! The changes of an edit tool's call in the pretty view: its `+12 −3`
//! after the key argument, and with `-v` its unified diff under the call
//! (hunk headers, `+` added, `-` removed, context dimmed), cut at
//! `--max-lines`. Every line of it is sanitized: a file's text is the
//! agent's, and may hold escape sequences.

use super::super::diff::{DiffLine, Differ, Shown, Stat, each_shown};
use super::super::lines::{Lines, Style};
use crate::event::FileChange;

/// Unchanged lines shown around each change (as `diff -u`).
const CONTEXT: usize = 3;

/// ` +12 −3` on the line being composed: the zero side left out (a new
/// file is `+40`), both when nothing changed.
pub(super) fn stat(l: &mut Lines, s: Stat) {
    let (added, removed) = s.shown();
    if let Some(n) = added {
        l.push(Style::Plain, " ");
        l.fmt(Style::AddedStat, format_args!("+{n}"));
    }
    if let Some(n) = removed {
        l.push(Style::Plain, " ");
        l.fmt(Style::RemovedStat, format_args!("−{n}"));
    }
}

/// The diff of `changes` under their call, at most `max_lines` lines of it
/// and then how many were cut. A change that has no lines to show (a path
/// and an action only) adds nothing: the call's line says it.
pub(super) fn diff(
    l: &mut Lines,
    differ: &mut Differ,
    changes: &[FileChange<'_>],
    max_lines: usize,
    depth: usize,
) {
    let max = max_lines.max(1);
    let (mut shown, mut cut) = (0, 0);
    each_shown(differ, changes, CONTEXT, |line| {
        if shown == max {
            cut += 1;
            return;
        }
        shown += 1;
        match line {
            Shown::Path(path) => {
                l.push(Style::Dim, "    ");
                l.one_line(Style::Dim, path, usize::MAX);
                l.end(depth);
            }
            Shown::Line(line) => {
                diff_line(l, line);
                l.end_hanging(depth, 5);
            }
        }
    });
    if cut > 0 {
        let lines = if cut == 1 { "line" } else { "lines" };
        l.fmt(
            Style::Dim,
            format_args!("    … {cut} more {lines} (--max-lines)"),
        );
        l.end(depth);
    }
}

/// One line of a diff, indented under its call, its marker first.
fn diff_line(l: &mut Lines, line: DiffLine<'_>) {
    match line {
        DiffLine::Hunk(Some(range)) => l.fmt(Style::Dim, format_args!("    {range}")),
        DiffLine::Hunk(None) => l.push(Style::Dim, "    @@"),
        DiffLine::Header(t) => {
            l.push(Style::Dim, "    ");
            l.one_line(Style::Dim, t, usize::MAX);
        }
        DiffLine::Context(t) => {
            l.push(Style::Dim, "     ");
            l.one_line(Style::Dim, t, usize::MAX);
        }
        DiffLine::Added(t) => {
            l.push(Style::Added, "    +");
            l.one_line(Style::Added, t, usize::MAX);
        }
        DiffLine::Removed(t) => {
            l.push(Style::Removed, "    -");
            l.one_line(Style::Removed, t, usize::MAX);
        }
    }
}
