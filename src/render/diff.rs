//! The diffs of the changes tool calls report ([`FileChange`]): how many
//! lines an edit adds and removes, and its unified hunks, for every view
//! that shows them (pretty's `+12 −3` and its `-v` diff, JSONL's counts, the
//! report formats).
//!
//! The line diff is `similar`'s Myers. This module cuts the texts into
//! lines, trims their common head and tail (a pure insertion or deletion
//! then needs no Myers run), and groups the operations into hunks with
//! context. Its memory is reused: a [`Differ`] keeps its line tables, its
//! operations and its rows from one edit to the next, so a view that diffs
//! every edit allocates nothing once warm, except Myers' two work vectors
//! for an edit changed on both sides. [`stat`] counts with a `Differ` of
//! the thread's own.
//!
//! What a change's producer reported decides what can be shown:
//! - [`Edit::Replace`] is a fragment of a file whose place is not known:
//!   its hunks have no line numbers ([`DiffLine::Hunk`] of `None`);
//! - [`Edit::Write`] is a whole file, all added (`@@ -0,0 +1,n @@`);
//! - [`Edit::Rewrite`] is a whole file before and after: numbered hunks;
//! - [`Edit::Patch`] is shown as it came, its own headers included (those
//!   of Claude Code's `structuredPatch` numbered);
//! - [`Edit::Action`] and [`Edit::Counted`] have no lines to show.
//!
//! ```
//! use streamview::event::Edit;
//! use streamview::render::diff::{Differ, DiffLine, Stat};
//!
//! let edit = Edit::Replace { old: "a\nb\nc\n".into(), new: "a\nB\nc\n".into(), all: false };
//! let mut differ = Differ::new();
//! let diff = differ.diff(&edit, 3);
//! assert_eq!(diff.stat(), Stat { added: 1, removed: 1 });
//! let lines: Vec<_> = diff.lines().collect();
//! assert_eq!(lines[0], DiffLine::Hunk(None));
//! assert_eq!(lines[2], DiffLine::Removed("b"));
//! assert_eq!(lines[3], DiffLine::Added("B"));
//! ```

use std::cell::RefCell;
use std::convert::Infallible;
use std::fmt;
use std::ops::{Index, Range};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use similar::algorithms::{DiffHook, myers};

use crate::event::{Edit, FileChange};

/// How long Myers may search before it settles for a coarser diff: a
/// pathological edit (two unrelated megabytes) must not stall the stream.
const DEADLINE: Duration = Duration::from_millis(200);

/// Myers runs of this process (see [`myers_runs`]).
static MYERS_RUNS: AtomicU64 = AtomicU64::new(0);

/// How many times this process has run Myers, that is diffed an edit
/// changed on both sides of its common head and tail. Each run allocates
/// Myers' two work vectors (`similar` takes no buffers to reuse): the one
/// allocation a warm [`Differ`] makes, which tests/alloc.rs counts apart.
pub fn myers_runs() -> u64 {
    MYERS_RUNS.load(Ordering::Relaxed)
}

/// Lines added and removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stat {
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
}

impl Stat {
    /// The sides a `+12 −3` shows: the zero side left out (a new file is
    /// `+40`), both when nothing changed.
    pub fn shown(self) -> (Option<u64>, Option<u64>) {
        let zero = self.added == 0 && self.removed == 0;
        (
            (self.added > 0 || zero).then_some(self.added),
            (self.removed > 0 || zero).then_some(self.removed),
        )
    }
}

/// Where a hunk sits in the old and the new file: 0-based first lines and
/// line counts. Written as unified diffs do (`@@ -3,4 +3,5 @@`, 1-based; an
/// empty side names the line before it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HunkRange {
    /// First line in the old file (0-based).
    pub old_start: usize,
    /// Lines of the old file in the hunk.
    pub old_len: usize,
    /// First line in the new file (0-based).
    pub new_start: usize,
    /// Lines of the new file in the hunk.
    pub new_len: usize,
}

impl fmt::Display for HunkRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = |start: usize, len: usize| if len == 0 { start } else { start + 1 };
        write!(
            f,
            "@@ -{},{} +{},{} @@",
            first(self.old_start, self.old_len),
            self.old_len,
            first(self.new_start, self.new_len),
            self.new_len
        )
    }
}

/// One line of a diff. Texts are without their marker and line end, as the
/// producer wrote them: a sink must sanitize or escape them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffLine<'d> {
    /// A hunk begins, at this place when it is known.
    Hunk(Option<HunkRange>),
    /// A line of a patch that is not content, whole: a file header
    /// (`*** Update File: x`, `--- a/x`), a hunk header as the patch wrote it.
    Header(&'d str),
    /// A line kept.
    Context(&'d str),
    /// A line added.
    Added(&'d str),
    /// A line removed.
    Removed(&'d str),
}

/// Which text a row's line is in.
#[derive(Clone, Copy)]
enum Side {
    Old,
    New,
    /// The old text is a patch: a content line begins with its marker.
    Patch,
}

#[derive(Clone, Copy)]
enum Tag {
    Header,
    Context,
    Added,
    Removed,
}

#[derive(Clone, Copy)]
enum Row {
    Hunk(Option<HunkRange>),
    Line(Tag, Side, usize),
}

/// One operation of the line diff (indices into the old and new lines).
#[derive(Clone, Copy)]
enum Op {
    Equal { old: usize, new: usize, len: usize },
    Delete { old: usize, new: usize, len: usize },
    Insert { old: usize, new: usize, len: usize },
}

impl Op {
    /// Where the op is in the old lines.
    fn old_at(&self) -> usize {
        match *self {
            Op::Equal { old, .. } | Op::Delete { old, .. } | Op::Insert { old, .. } => old,
        }
    }

    /// Where the op is in the new lines.
    fn new_at(&self) -> usize {
        match *self {
            Op::Equal { new, .. } | Op::Delete { new, .. } | Op::Insert { new, .. } => new,
        }
    }
}

/// The diff of one [`Edit`], borrowed from the [`Differ`] that made it.
pub struct Diff<'d> {
    old: Text<'d>,
    new: Text<'d>,
    rows: &'d [Row],
    stat: Stat,
}

impl<'d> Diff<'d> {
    /// Lines added and removed.
    pub fn stat(&self) -> Stat {
        self.stat
    }

    /// True when there is no line to show.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// How many lines [`Diff::lines`] gives.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The diff as unified text appended to `out`: a line per
    /// [`DiffLine`], each ended by `\n`; a hunk `@@ -a,b +c,d @@` (or `@@`
    /// where its place is not known), headers as they are, lines marked
    /// ` `, `+` or `-`. Read back as an [`Edit::Patch`], it gives the same
    /// lines. The text is the agent's: escape it for where it goes.
    pub fn write_unified(&self, out: &mut String) {
        use fmt::Write as _;
        for line in self.lines() {
            let _ = match line {
                DiffLine::Hunk(Some(range)) => write!(out, "{range}"),
                DiffLine::Hunk(None) => out.write_str("@@"),
                DiffLine::Header(t) => out.write_str(t),
                DiffLine::Context(t) => write!(out, " {t}"),
                DiffLine::Added(t) => write!(out, "+{t}"),
                DiffLine::Removed(t) => write!(out, "-{t}"),
            };
            out.push('\n');
        }
    }

    /// The lines, hunk headers included, in order.
    pub fn lines(&self) -> impl ExactSizeIterator<Item = DiffLine<'d>> + 'd {
        let (old, new) = (self.old, self.new);
        self.rows.iter().map(move |row| match *row {
            Row::Hunk(range) => DiffLine::Hunk(range),
            Row::Line(tag, side, i) => {
                let text = match side {
                    Side::Old => old.line(i),
                    Side::New => new.line(i),
                    Side::Patch if matches!(tag, Tag::Header) => old.line(i),
                    Side::Patch => old.line(i).get(1..).unwrap_or(""),
                };
                match tag {
                    Tag::Header => DiffLine::Header(text),
                    Tag::Context => DiffLine::Context(text),
                    Tag::Added => DiffLine::Added(text),
                    Tag::Removed => DiffLine::Removed(text),
                }
            }
        })
    }
}

/// A text and where its lines are (byte ranges, without line ends).
#[derive(Clone, Copy)]
struct Text<'t> {
    text: &'t str,
    lines: &'t [Range<usize>],
}

impl<'t> Text<'t> {
    fn len(&self) -> usize {
        self.lines.len()
    }

    /// Line `i`, for as long as the text lives.
    fn line(self, i: usize) -> &'t str {
        &self.text[self.lines[i].clone()]
    }
}

impl Index<usize> for Text<'_> {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        &self.text[self.lines[i].clone()]
    }
}

/// Computes diffs in reused memory (see the module docs). One per sink.
#[derive(Default)]
pub struct Differ {
    old_text: String,
    new_text: String,
    old: Vec<Range<usize>>,
    new: Vec<Range<usize>>,
    ops: Vec<Op>,
    rows: Vec<Row>,
}

impl Differ {
    /// A differ with no memory yet.
    pub fn new() -> Self {
        Differ::default()
    }

    /// The lines `edit` adds and removes; `None` when the stream does not
    /// say ([`Edit::Action`]).
    pub fn stat(&mut self, edit: &Edit<'_>) -> Option<Stat> {
        match edit {
            Edit::Action(_) => None,
            Edit::Counted { added, removed } => Some(Stat {
                added: *added,
                removed: *removed,
            }),
            // All added: counting its lines is enough.
            Edit::Write(c) => Some(Stat {
                added: c.line_count() as u64,
                removed: 0,
            }),
            Edit::Replace { .. } | Edit::Rewrite { .. } | Edit::Patch(_) => {
                Some(self.run(edit, None).stat())
            }
        }
    }

    /// The diff of `edit`, with up to `context` unchanged lines around each
    /// change (a patch keeps the context it came with).
    pub fn diff<'d>(&'d mut self, edit: &'d Edit<'_>, context: usize) -> Diff<'d> {
        self.run(edit, Some(context))
    }

    /// The diff of two whole texts, a file before and after (its hunks
    /// numbered), with up to `context` unchanged lines around each change.
    pub fn files<'d>(&'d mut self, old: &'d str, new: &'d str, context: usize) -> Diff<'d> {
        let Differ {
            old: ol,
            new: nl,
            ops,
            rows,
            ..
        } = self;
        rows.clear();
        texts_diff([old, new], [ol, nl], ops, rows, true, Some(context))
    }

    /// The diff of `edit`: its rows with `context`, or its counts only.
    fn run<'d>(&'d mut self, edit: &'d Edit<'_>, context: Option<usize>) -> Diff<'d> {
        let Differ {
            old_text,
            new_text,
            old,
            new,
            ops,
            rows,
        } = self;
        rows.clear();
        let (o, n, numbered) = match edit {
            Edit::Replace { old: a, new: b, .. } => {
                (a.text_with(old_text), b.text_with(new_text), false)
            }
            Edit::Write(c) => ("", c.text_with(new_text), true),
            Edit::Rewrite { old: a, new: b } => {
                (a.text_with(old_text), b.text_with(new_text), true)
            }
            Edit::Patch(p) => {
                let p = p.text_with(old_text);
                split(p, old);
                new.clear();
                let stat = patch_rows(
                    Text {
                        text: p,
                        lines: old,
                    },
                    rows,
                );
                let empty = Text {
                    text: "",
                    lines: new,
                };
                return Diff {
                    old: Text {
                        text: p,
                        lines: old,
                    },
                    new: empty,
                    rows,
                    stat,
                };
            }
            Edit::Action(_) | Edit::Counted { .. } => ("", "", true),
        };
        texts_diff([o, n], [old, new], ops, rows, numbered, context)
    }
}

/// The diff of the texts `old` and `new` (lines cut into `lines`): its
/// rows with `context`, or its counts only.
fn texts_diff<'d>(
    [old, new]: [&'d str; 2],
    [old_lines, new_lines]: [&'d mut Vec<Range<usize>>; 2],
    ops: &'d mut Vec<Op>,
    rows: &'d mut Vec<Row>,
    numbered: bool,
    context: Option<usize>,
) -> Diff<'d> {
    split(old, old_lines);
    split(new, new_lines);
    let o = Text {
        text: old,
        lines: old_lines,
    };
    let n = Text {
        text: new,
        lines: new_lines,
    };
    line_diff(o, n, ops);
    let mut stat = Stat::default();
    for op in ops.iter() {
        match *op {
            Op::Delete { len, .. } => stat.removed += len as u64,
            Op::Insert { len, .. } => stat.added += len as u64,
            Op::Equal { .. } => {}
        }
    }
    if let Some(context) = context {
        hunks(ops, context, numbered, rows);
    }
    Diff {
        old: o,
        new: n,
        rows,
        stat,
    }
}

thread_local! {
    static SCRATCH: RefCell<(Differ, String)> = RefCell::new((Differ::new(), String::new()));
}

/// Run `f` with this thread's own [`Differ`] and a text buffer, both
/// reused from one call to the next: for a sink that has no state of its
/// own to keep them in (JSONL's `write_event` is a function).
pub fn with_differ<R>(f: impl FnOnce(&mut Differ, &mut String) -> R) -> R {
    SCRATCH.with_borrow_mut(|(d, text)| f(d, text))
}

/// A line of what the views show of a call's changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown<'d> {
    /// The file the lines after it change (a patch of several files
    /// names each).
    Path(&'d str),
    /// A line of its diff.
    Line(DiffLine<'d>),
}

/// Pass `f` each line the views show of `changes`: their diffs with
/// `context` unchanged lines around each change. A change that has no
/// lines to show (an action, counts) adds nothing: the call's line says
/// it; nor does a fragment's lone hunk header without numbers.
pub fn each_shown(
    differ: &mut Differ,
    changes: &[FileChange<'_>],
    context: usize,
    mut f: impl FnMut(Shown<'_>),
) {
    for change in changes {
        if matches!(change.edit, Edit::Action(_) | Edit::Counted { .. }) {
            continue;
        }
        if let Some(path) = &change.path {
            f(Shown::Path(path));
        }
        let d = differ.diff(&change.edit, context);
        for (i, line) in d.lines().enumerate() {
            if i == 0 && line == DiffLine::Hunk(None) {
                continue;
            }
            f(Shown::Line(line));
        }
    }
}

/// The lines all of `changes` add and remove together; `None` when the
/// stream says for none of them (no change, or paths only).
pub fn stat(changes: &[FileChange<'_>]) -> Option<Stat> {
    if changes.is_empty() {
        return None;
    }
    with_differ(|d, _| {
        changes
            .iter()
            .fold(None, |sum, c| match (sum, d.stat(&c.edit)) {
                (None, s) | (s, None) => s,
                (Some(a), Some(b)) => Some(Stat {
                    added: a.added + b.added,
                    removed: a.removed + b.removed,
                }),
            })
    })
}

/// The byte ranges of `text`'s lines, as `str::lines` cuts them (no line
/// end, a `\r` before the `\n` dropped, no empty line after the last `\n`).
fn split(text: &str, out: &mut Vec<Range<usize>>) {
    out.clear();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        let e = if end > start && text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        out.push(start..e);
        start = end + 1;
    }
    if start < text.len() {
        out.push(start..text.len());
    }
}

/// Records Myers' operations.
struct Record<'o>(&'o mut Vec<Op>);

impl DiffHook for Record<'_> {
    type Error = Infallible;
    fn equal(&mut self, old: usize, new: usize, len: usize) -> Result<(), Infallible> {
        self.0.push(Op::Equal { old, new, len });
        Ok(())
    }
    fn delete(&mut self, old: usize, len: usize, new: usize) -> Result<(), Infallible> {
        self.0.push(Op::Delete { old, new, len });
        Ok(())
    }
    fn insert(&mut self, old: usize, new: usize, len: usize) -> Result<(), Infallible> {
        self.0.push(Op::Insert { old, new, len });
        Ok(())
    }
}

/// The operations that turn `old`'s lines into `new`'s.
fn line_diff(old: Text<'_>, new: Text<'_>, ops: &mut Vec<Op>) {
    ops.clear();
    let (n, m) = (old.len(), new.len());
    let head = (0..n.min(m)).take_while(|&i| old[i] == new[i]).count();
    let tail = (0..(n - head).min(m - head))
        .take_while(|&i| old[n - 1 - i] == new[m - 1 - i])
        .count();
    if head > 0 {
        ops.push(Op::Equal {
            old: 0,
            new: 0,
            len: head,
        });
    }
    let (o, nw) = (head..n - tail, head..m - tail);
    match (o.is_empty(), nw.is_empty()) {
        (true, true) => {}
        (false, true) => ops.push(Op::Delete {
            old: o.start,
            new: nw.start,
            len: o.len(),
        }),
        (true, false) => ops.push(Op::Insert {
            old: o.start,
            new: nw.start,
            len: nw.len(),
        }),
        (false, false) => {
            MYERS_RUNS.fetch_add(1, Ordering::Relaxed);
            let deadline = Instant::now().checked_add(DEADLINE);
            let _ = myers::diff_deadline(&mut Record(ops), &old, o, &new, nw, deadline);
        }
    }
    if tail > 0 {
        ops.push(Op::Equal {
            old: n - tail,
            new: m - tail,
            len: tail,
        });
    }
    // Myers may insert before it deletes; a unified diff shows the lines
    // removed first. Within each run of changes, deletions go first, each
    // side in its order (sorted in place: no allocation).
    // A hunk opens at the first op of its run: each op of a run then
    // starts where the run does.
    for run in ops.split_mut(|op| matches!(op, Op::Equal { .. })) {
        run.sort_unstable_by_key(|op| match *op {
            Op::Delete { old, .. } => (0, old),
            Op::Insert { new, .. } => (1, new),
            Op::Equal { .. } => (2, 0),
        });
        let at = |f: fn(&Op) -> usize| run.iter().map(f).min().unwrap_or(0);
        let (o, n) = (at(Op::old_at), at(Op::new_at));
        for op in run.iter_mut() {
            match op {
                Op::Delete { new, .. } => *new = n,
                Op::Insert { old, .. } => *old = o,
                Op::Equal { .. } => {}
            }
        }
    }
}

/// Group `ops` into hunks of rows, with up to `context` kept lines around
/// each change; two changes closer than twice that share a hunk.
fn hunks(ops: &[Op], context: usize, numbered: bool, rows: &mut Vec<Row>) {
    // The open hunk: its header's row and its range so far.
    let mut open: Option<(usize, HunkRange)> = None;
    let close = |open: &mut Option<(usize, HunkRange)>, rows: &mut Vec<Row>| {
        if let Some((at, range)) = open.take() {
            rows[at] = Row::Hunk(numbered.then_some(range));
        }
    };
    let start = |old: usize, new: usize, rows: &mut Vec<Row>| {
        rows.push(Row::Hunk(None));
        let range = HunkRange {
            old_start: old,
            old_len: 0,
            new_start: new,
            new_len: 0,
        };
        Some((rows.len() - 1, range))
    };
    for (k, op) in ops.iter().enumerate() {
        let last = k + 1 == ops.len();
        match *op {
            Op::Equal { old, new, len } => {
                let after = match open {
                    None => 0,
                    Some(_) if last || len > 2 * context => len.min(context),
                    Some(_) => len,
                };
                if let Some((_, r)) = &mut open {
                    for i in old..old + after {
                        rows.push(Row::Line(Tag::Context, Side::Old, i));
                    }
                    r.old_len += after;
                    r.new_len += after;
                }
                if after < len {
                    close(&mut open, rows);
                }
                if open.is_none() && !last {
                    let before = len.min(context);
                    let (o, n) = (old + len - before, new + len - before);
                    open = start(o, n, rows);
                    for i in o..o + before {
                        rows.push(Row::Line(Tag::Context, Side::Old, i));
                    }
                    if let Some((_, r)) = &mut open {
                        r.old_len += before;
                        r.new_len += before;
                    }
                }
            }
            Op::Delete { old, new, len } => {
                if open.is_none() {
                    open = start(old, new, rows);
                }
                rows.extend((old..old + len).map(|i| Row::Line(Tag::Removed, Side::Old, i)));
                if let Some((_, r)) = &mut open {
                    r.old_len += len;
                }
            }
            Op::Insert { old, new, len } => {
                if open.is_none() {
                    open = start(old, new, rows);
                }
                rows.extend((new..new + len).map(|i| Row::Line(Tag::Added, Side::New, i)));
                if let Some((_, r)) = &mut open {
                    r.new_len += len;
                }
            }
        }
    }
    close(&mut open, rows);
}

/// The row of a hunk header written as [`Diff::write_unified`] writes
/// one: `@@` alone (its place not known), or `@@ -a,b +c,d @@` with
/// nothing after it. Another header (`@@ fn main` of `apply_patch`, a section
/// name after the numbers) stays a header line, as written.
fn hunk_header(line: &str) -> Option<Row> {
    if line == "@@" {
        return Some(Row::Hunk(None));
    }
    let nums = line.strip_prefix("@@ -")?.strip_suffix(" @@")?;
    let (old, new) = nums.split_once(" +")?;
    let side = |s: &str| -> Option<(usize, usize)> {
        let (start, len) = s.split_once(',')?;
        if !(start.bytes().chain(len.bytes())).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (start, len) = (start.parse::<usize>().ok()?, len.parse::<usize>().ok()?);
        // Written 1-based, or the line before an empty side.
        Some((
            if len == 0 {
                start
            } else {
                start.checked_sub(1)?
            },
            len,
        ))
    };
    let ((old_start, old_len), (new_start, new_len)) = (side(old)?, side(new)?);
    Some(Row::Hunk(Some(HunkRange {
        old_start,
        old_len,
        new_start,
        new_len,
    })))
}

/// The rows of a patch's lines, and the lines it adds and removes.
fn patch_rows(patch: Text<'_>, rows: &mut Vec<Row>) -> Stat {
    let mut stat = Stat::default();
    let mut i = 0;
    while i < patch.len() {
        let line = &patch[i];
        // A `--- a` `+++ b` pair names the files; alone, each is content.
        let file_pair =
            line.starts_with("--- ") && i + 1 < patch.len() && patch[i + 1].starts_with("+++ ");
        if file_pair {
            rows.push(Row::Line(Tag::Header, Side::Patch, i));
            rows.push(Row::Line(Tag::Header, Side::Patch, i + 1));
            i += 2;
            continue;
        }
        let tag = match line.as_bytes().first() {
            Some(b'+') => {
                stat.added += 1;
                Tag::Added
            }
            Some(b'-') => {
                stat.removed += 1;
                Tag::Removed
            }
            Some(b' ') | None => Tag::Context,
            Some(b'@') if let Some(hunk) = hunk_header(line) => {
                rows.push(hunk);
                i += 1;
                continue;
            }
            Some(_) => Tag::Header,
        };
        rows.push(Row::Line(tag, Side::Patch, i));
        i += 1;
    }
    stat
}
