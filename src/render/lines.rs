//! Styled lines composed in memory reused from one event to the next.
//!
//! The pretty sink writes a piece of output twice when it is an alert
//! (stdout, and stderr when errors are mirrored), and sometimes holds a
//! line back; so it composes first and writes after, as hl's
//! `format_record(buf)` does: spans of one text buffer, each with its style.
//! Once the buffers have grown to what an event needs, composing and
//! writing allocate nothing (issue 13; `tests/alloc.rs` counts).

use std::fmt::{self, Write as _};
use std::io;

use termcolor::{ColorSpec, WriteColor};

use super::sanitize::{sanitize, sanitize_line, sanitize_to};
use super::theme::{Role, Theme};

/// How a span looks: the roles of a theme ([`Role`]), and the few looks
/// derived from them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Style {
    Header,
    Tool,
    /// A tool call's key argument.
    Key,
    Error,
    /// The lines of an error's text after its first: its colour, not bold
    /// (a long traceback in bold is heavy).
    ErrorBody,
    Warn,
    Denied,
    Ok,
    Dim,
    /// The agent's text.
    Plain,
    Thinking,
    /// A tool's output under its call.
    Result,
    /// The bars of a sub-agent's lines.
    Gutter,
    Cost,
    /// A diff's added lines (green) and removed lines (red).
    Added,
    Removed,
    /// The `+12 −3` of an edit's line: the same, dimmed.
    AddedStat,
    RemovedStat,
}

/// The look of each [`Style`], resolved once from the theme.
#[derive(Clone)]
pub(crate) struct Styles {
    specs: [ColorSpec; 18],
}

impl Styles {
    /// The default theme's.
    pub(crate) fn new() -> Self {
        Styles::of(&Theme::default())
    }

    /// `theme`'s.
    pub(crate) fn of(theme: &Theme) -> Self {
        let r = |role| theme.spec(role).clone();
        let with = |role, f: fn(&mut ColorSpec)| {
            let mut s = r(role);
            f(&mut s);
            s
        };
        // In the order of `Style`.
        Styles {
            specs: [
                r(Role::Header),
                r(Role::Tool),
                r(Role::Key),
                r(Role::Error),
                with(Role::Error, |s| {
                    s.set_bold(false);
                }),
                r(Role::Warning),
                r(Role::Denial),
                r(Role::Success),
                r(Role::Dim),
                r(Role::Text),
                r(Role::Thinking),
                r(Role::Result),
                r(Role::Gutter),
                r(Role::Cost),
                r(Role::Added),
                r(Role::Removed),
                with(Role::Added, |s| {
                    s.set_dimmed(true);
                }),
                with(Role::Removed, |s| {
                    s.set_dimmed(true);
                }),
            ],
        }
    }

    pub(crate) fn spec(&self, s: Style) -> &ColorSpec {
        &self.specs[s as usize]
    }
}

/// Switch `w` to `spec`: a reset for the terminal's own look.
pub(crate) fn paint<W: WriteColor>(w: &mut W, spec: &ColorSpec) -> io::Result<()> {
    if spec.is_none() {
        w.reset()
    } else {
        w.set_color(spec)
    }
}

/// Lines of styled spans, in one reused text buffer.
#[derive(Default)]
pub(crate) struct Lines {
    text: String,
    /// Each span's style and where it ends in `text`.
    spans: Vec<(Style, usize)>,
    /// Where each line ends in `spans`.
    ends: Vec<usize>,
    /// The nesting depth of each line (see [`write_depth`]) and the
    /// columns its continuation lines are indented by when it is wrapped.
    depths: Vec<(usize, usize)>,
    /// The sub-agent the nested lines are of, named after the bars when
    /// several run at once (`  │ [Inspect the code] ▸ Read …`).
    pub(crate) agent: Option<std::sync::Arc<str>>,
}

impl Lines {
    /// Forget the lines, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
        self.ends.clear();
        self.depths.clear();
    }

    /// The least nesting of the complete lines (`None`: no line).
    pub(crate) fn min_depth(&self) -> Option<usize> {
        self.depths.iter().map(|&(d, _)| d).min()
    }

    /// The number of complete lines.
    pub(crate) fn count(&self) -> usize {
        self.ends.len()
    }

    /// True without complete lines.
    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The text being composed, for a span that [`Lines::close`] ends.
    pub(crate) fn text(&mut self) -> &mut String {
        &mut self.text
    }

    /// End the span written since the last one, in `style`.
    pub(crate) fn close(&mut self, style: Style) {
        self.spans.push((style, self.text.len()));
    }

    /// A span of `s`.
    pub(crate) fn push(&mut self, style: Style, s: &str) {
        self.text.push_str(s);
        self.close(style);
    }

    /// A span of formatted text.
    pub(crate) fn fmt(&mut self, style: Style, args: fmt::Arguments<'_>) {
        let _ = self.text.write_fmt(args);
        self.close(style);
    }

    /// A span of `s` made safe for a terminal (multi-line text keeps its
    /// line breaks; see [`sanitize`]).
    pub(crate) fn sanitized(&mut self, style: Style, s: &str) {
        sanitize_to(&mut self.text, s);
        self.close(style);
    }

    /// A span of `s` sanitized, on one line, at most `max` characters (see
    /// [`one_line_to`]).
    pub(crate) fn one_line(&mut self, style: Style, s: &str, max: usize) {
        one_line_to(&mut self.text, s, max);
        self.close(style);
    }

    /// A span of a tool's name as people read it (see [`tool_name_to`]).
    pub(crate) fn tool_name(&mut self, style: Style, name: &str) {
        tool_name_to(&mut self.text, name);
        self.close(style);
    }

    /// Where the text and the spans end now, to come back to
    /// ([`Lines::truncate`]).
    pub(crate) fn mark(&self) -> (usize, usize) {
        (self.text.len(), self.spans.len())
    }

    /// Forget what was composed since `mark` ([`Lines::mark`]).
    pub(crate) fn truncate(&mut self, (text, spans): (usize, usize)) {
        self.text.truncate(text);
        self.spans.truncate(spans);
    }

    /// The columns the line being composed takes so far.
    pub(crate) fn open_width(&self) -> usize {
        let ended = self.ends.last().map_or(0, |&e| e);
        let start = if ended == 0 {
            0
        } else {
            self.spans[ended - 1].1
        };
        width(self.text.get(start..).unwrap_or(""))
    }

    /// End the line, to be written at nesting `depth`.
    pub(crate) fn end(&mut self, depth: usize) {
        self.end_hanging(depth, 0);
    }

    /// End the line, to be written at nesting `depth`; wrapped (see
    /// [`Lines::write_wrapped`]), its continuation lines are indented by
    /// `hang` columns after the nesting bars.
    pub(crate) fn end_hanging(&mut self, depth: usize, hang: usize) {
        self.ends.push(self.spans.len());
        self.depths.push((depth, hang));
    }

    /// The spans of line `i`, from its `from`th.
    fn line(&self, i: usize, from: usize) -> impl Iterator<Item = (Style, &str)> + Clone {
        let first = if i == 0 { 0 } else { self.ends[i - 1] };
        let last = self.ends.get(i).copied().unwrap_or(first);
        (first + from..last).map(move |k| {
            let start = if k == 0 { 0 } else { self.spans[k - 1].1 };
            let (style, end) = self.spans[k];
            (style, self.text.get(start..end).unwrap_or(""))
        })
    }

    /// Write lines `from..` (each at its depth).
    pub(crate) fn write<W: WriteColor>(
        &self,
        w: &mut W,
        st: &Styles,
        from: usize,
    ) -> io::Result<()> {
        self.write_wrapped(w, st, from, None)
    }

    /// Write lines `from..` (each at its depth) on a terminal `cols`
    /// columns wide: a line wider is wrapped here between words, each
    /// continuation line after the same nesting bars and its hang
    /// ([`Lines::end_hanging`]), instead of by the terminal at column 0,
    /// which would lose the bars and cut words (`mysel|f`). A word longer
    /// than a line is cut between characters.
    pub(crate) fn write_wrapped<W: WriteColor>(
        &self,
        w: &mut W,
        st: &Styles,
        from: usize,
        cols: Option<usize>,
    ) -> io::Result<()> {
        for i in from..self.count() {
            let (depth, hang) = self.depths[i];
            let wrap = cols.map(|c| (c, hang));
            write_line(
                w,
                st,
                Some((depth, self.agent.as_deref())),
                self.line(i, 0),
                true,
                wrap,
            )?;
        }
        Ok(())
    }

    /// Write line `i` from its `from`th span, on from what the output
    /// already shows (no indentation), and end it.
    pub(crate) fn write_rest_of<W: WriteColor>(
        &self,
        w: &mut W,
        st: &Styles,
        i: usize,
        from: usize,
    ) -> io::Result<()> {
        write_line(w, st, None, self.line(i, from), true, None)
    }

    /// Write line `i` without ending it (the output goes on on that line).
    pub(crate) fn write_open<W: WriteColor>(
        &self,
        w: &mut W,
        st: &Styles,
        i: usize,
    ) -> io::Result<()> {
        let depth = Some((self.depths[i].0, self.agent.as_deref()));
        write_line(w, st, depth, self.line(i, 0), false, None)
    }

    /// The number of spans of line `i`.
    pub(crate) fn spans_of(&self, i: usize) -> usize {
        let first = if i == 0 { 0 } else { self.ends[i - 1] };
        self.ends.get(i).map_or(0, |e| e - first)
    }
}

/// One line's spans: after the sub-agent indentation of `depth` and the
/// agent's label (`None`: the line goes on from earlier output), and ended
/// when `end`; wrapped at `wrap`'s columns with its hang (see
/// [`Lines::write_wrapped`]).
fn write_line<'s, W: WriteColor>(
    w: &mut W,
    st: &Styles,
    depth: Option<(usize, Option<&str>)>,
    spans: impl Iterator<Item = (Style, &'s str)> + Clone,
    end: bool,
    wrap: Option<(usize, usize)>,
) -> io::Result<()> {
    // Switch colours only where the look changes; a line starts and ends
    // in the terminal's own.
    let none = ColorSpec::new();
    let mut current: Option<Style> = None;
    let set = |w: &mut W, style: Style, current: &mut Option<Style>| -> io::Result<()> {
        let spec = st.spec(style);
        if spec != current.map_or(&none, |c| st.spec(c)) {
            paint(w, spec)?;
        }
        *current = Some(style);
        Ok(())
    };
    let reset = |w: &mut W, current: &mut Option<Style>| -> io::Result<()> {
        if current.is_some_and(|c| !st.spec(c).is_none()) {
            w.reset()?;
        }
        *current = None;
        Ok(())
    };
    let bars = depth.map_or(0, |d| d.0);
    // The column the cursor is at, and where a continuation line starts.
    let mut col = 0;
    if let Some((depth, agent)) = depth.filter(|d| d.0 > 0) {
        set(w, Style::Gutter, &mut current)?;
        col += write_depth(w, depth)?;
        if let Some(a) = agent {
            let a = sanitize_line(a);
            w.write_all(b"[")?;
            w.write_all(a.as_bytes())?;
            w.write_all(b"] ")?;
            col += width(&a) + 3;
        }
    }
    let hang_at = depth_width(bars) + wrap.map_or(0, |(_, hang)| hang);
    // Wrapping needs room for some text after the bars and the hang.
    let cols = wrap
        .map(|(cols, _)| cols)
        .filter(|cols| *cols >= hang_at + MIN_WRAPPED);
    // The last character written was a space (or none was): a word starts.
    let mut after_space = true;
    let mut spans = spans;
    while let Some((style, text)) = spans.next() {
        if text.is_empty() {
            continue;
        }
        set(w, style, &mut current)?;
        // The last line of defence: every span is content-bearing text
        // that callers already sanitized, but nothing a terminal acts
        // on (and no line break) gets out of here, whatever a caller forgot.
        let text = sanitize_line(text);
        let Some(cols) = cols else {
            w.write_all(text.as_bytes())?;
            continue;
        };
        // Break before a word that would cross the edge (its width
        // measured over the spans that follow too), at a space that would,
        // or, in a word longer than a line, between characters (never
        // inside one, and escape sequences are only ever written between
        // spans).
        let mut from = 0;
        for (i, c) in text.char_indices() {
            let cw = char_width(c);
            let starts_word = c != ' ' && after_space;
            after_space = c == ' ';
            let full = col > hang_at;
            let cut = if c == ' ' {
                full && col + cw > cols
            } else if starts_word && full {
                let word = word_width(&text[i..], spans.clone());
                col + word > cols && word <= cols - hang_at
            } else {
                full && col + cw > cols
            };
            if cut {
                w.write_all(text[from..i].as_bytes())?;
                // A space at the edge is the line break.
                from = if c == ' ' { i + 1 } else { i };
                reset(w, &mut current)?;
                w.write_all(b"\n")?;
                if bars > 0 {
                    set(w, Style::Gutter, &mut current)?;
                    write_depth(w, bars)?;
                }
                for _ in depth_width(bars)..hang_at {
                    w.write_all(b" ")?;
                }
                set(w, style, &mut current)?;
                col = hang_at;
                if c == ' ' {
                    continue;
                }
            }
            col += cw;
        }
        w.write_all(text[from..].as_bytes())?;
    }
    reset(w, &mut current)?;
    if end {
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// The columns of the word `rest` starts with, up to its first space,
/// going on into the spans that follow when it ends none.
fn word_width<'s>(rest: &str, spans: impl Iterator<Item = (Style, &'s str)>) -> usize {
    let mut width = 0;
    let mut measure = |s: &str| {
        for c in s.chars() {
            if c == ' ' {
                return true;
            }
            width += char_width(c);
        }
        false
    };
    if !measure(rest) {
        for (_, text) in spans {
            if measure(&sanitize_line(text)) {
                break;
            }
        }
    }
    width
}

/// Columns of text a wrapped line keeps at least after its bars and hang.
const MIN_WRAPPED: usize = 20;

/// The columns `s` takes on a terminal.
pub(crate) fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Characters drawn over the previous one (see [`char_width`]).
const ZERO: [(u32, u32); 8] = [
    (0x0300, 0x036F), // combining diacritical marks
    (0x0483, 0x0489),
    (0x0591, 0x05BD),
    (0x200B, 0x200F), // zero-width space, joiners, marks
    (0x20D0, 0x20FF), // combining marks for symbols
    (0xFE00, 0xFE0F), // variation selectors
    (0xFE20, 0xFE2F), // combining half marks
    (0xE0100, 0xE01EF),
];
/// Characters two columns wide (see [`char_width`]).
const WIDE: [(u32, u32); 15] = [
    (0x1100, 0x115F), // Hangul Jamo
    (0x231A, 0x231B),
    (0x2329, 0x232A),
    (0x23E9, 0x23EC),
    (0x25FD, 0x25FE),
    (0x2614, 0x2615),
    (0x2E80, 0x303E), // CJK radicals, punctuation
    (0x3041, 0x33FF), // kana, CJK symbols
    (0x3400, 0x4DBF), // CJK extension A
    (0x4E00, 0xA4CF), // CJK ideographs, Yi
    (0xAC00, 0xD7A3), // Hangul syllables
    (0xF900, 0xFAFF), // CJK compatibility ideographs
    (0xFF00, 0xFF60), // fullwidth forms
    (0xFFE0, 0xFFE6),
    (0x1F300, 0x3FFFD), // emoji and pictographs, CJK extensions B on
];

/// The columns a character takes on a terminal: 0 for combining marks,
/// zero-width and variation characters, 2 for East Asian wide and
/// fullwidth characters and emoji, 1 for the rest. A table of the main
/// blocks (Unicode's `EastAsianWidth.txt` W and F ranges, and the marks
/// terminals draw over the previous character), not all of Unicode: a rare
/// character measured wrong moves a wrap by a column, nothing worse.
fn char_width(c: char) -> usize {
    let u = u32::from(c);
    if u < 0x300 {
        return 1;
    }
    let within = |ranges: &[(u32, u32)]| ranges.iter().any(|&(a, b)| (a..=b).contains(&u));
    if within(&ZERO) {
        0
    } else if within(&WIDE) {
        2
    } else {
        1
    }
}

/// The columns the bars of nesting `depth` take (see [`write_depth`]).
pub(crate) fn depth_width(depth: usize) -> usize {
    if depth <= MAX_DRAWN_DEPTH {
        4 * depth
    } else {
        4 * MAX_DRAWN_DEPTH + depth.ilog10() as usize + 1
    }
}

/// Nesting bars drawn at most: sub-agents nested deeper than this (only a
/// crafted stream does that) show their depth as a number, so the output of a
/// line stays bounded instead of growing with the depth.
const MAX_DRAWN_DEPTH: usize = 8;

/// The bars of nesting `depth`; the columns they take.
pub(crate) fn write_depth<W: WriteColor>(w: &mut W, depth: usize) -> io::Result<usize> {
    if depth <= MAX_DRAWN_DEPTH {
        for _ in 0..depth {
            w.write_all("  │ ".as_bytes())?;
        }
        return Ok(depth_width(depth));
    }
    for _ in 0..MAX_DRAWN_DEPTH - 1 {
        w.write_all("  │ ".as_bytes())?;
    }
    write!(w, "  │{depth} ")?;
    Ok(depth_width(depth))
}

/// `s` sanitized, on one line, at most `max` characters: a cut is marked
/// `…`, further lines counted (`for f in *; do (+2 lines)`). The one form
/// of a multi-line argument, in the output and on the status line.
pub(crate) fn one_line_to(out: &mut String, s: &str, max: usize) {
    let s = sanitize(s);
    let mut lines = s.lines();
    let first = lines.next().unwrap_or("");
    let more = lines.count();
    let cut = first
        .char_indices()
        .nth(max)
        .map_or(first.len(), |(i, _)| i);
    out.push_str(first.get(..cut).unwrap_or(first));
    if cut < first.len() {
        out.push('…');
    }
    if more > 0 {
        let _ = write!(out, " (+{more} line{})", if more == 1 { "" } else { "s" });
    }
}

/// A tool's name as people read it, sanitized: `mcp__server__tool` →
/// `server/tool`; other names as they are.
pub(crate) fn tool_name_to(out: &mut String, name: &str) {
    if let Some(rest) = name.strip_prefix("mcp__")
        && let Some((server, tool)) = rest.split_once("__")
    {
        sanitize_to(out, server);
        out.push('/');
        sanitize_to(out, tool);
    } else {
        sanitize_to(out, name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use termcolor::{Ansi, NoColor};

    fn plain(l: &Lines) -> String {
        let mut out = NoColor::new(Vec::new());
        l.write(&mut out, &Styles::new(), 0).unwrap();
        String::from_utf8(out.into_inner()).unwrap()
    }

    #[test]
    fn nested_lines_wrap_at_a_space_under_their_bars() {
        let mut l = Lines::default();
        l.push(
            Style::Plain,
            "the quick brown fox jumps over the lazy dog again",
        );
        l.end(1);
        // 30 columns: `  │ ` then 26 of text, cut after the last space.
        assert_eq!(
            wrapped(&l, 30),
            "  │ the quick brown fox jumps \n  │ over the lazy dog again\n"
        );
        // A word longer than the room is cut between characters, and a
        // hanging line continues under its hang.
        l.clear();
        l.push(Style::Tool, "▸ ");
        l.push(Style::Plain, "Read ");
        l.push(Style::Plain, &"x".repeat(40));
        l.end_hanging(1, 2);
        let out = wrapped(&l, 30);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("  │ ▸ Read {}", "x".repeat(19)));
        assert_eq!(lines[1], format!("  │   {}", "x".repeat(21)));
    }

    #[test]
    fn spans_make_lines_at_their_depth_and_memory_is_reused() {
        let mut l = Lines::default();
        l.push(Style::Tool, "▸ ");
        l.tool_name(Style::Tool, "mcp__github__get_issue");
        l.fmt(Style::Plain, format_args!(" #{}", 7));
        l.end(0);
        l.one_line(Style::Dim, "first\nsecond\nthird", 3);
        l.end(2);
        assert_eq!(l.count(), 2);
        assert_eq!(l.spans_of(0), 3);
        assert_eq!(
            plain(&l),
            "▸ github/get_issue #7\n  │   │ fir… (+2 lines)\n"
        );
        let grown = l.text.capacity();
        for _ in 0..100 {
            l.clear();
            l.push(Style::Plain, "again");
            l.end(0);
        }
        assert_eq!(l.text.capacity(), grown, "cleared, not freed");
        assert_eq!(plain(&l), "again\n");
    }

    #[test]
    fn colours_change_only_between_styles_and_content_stays_inert() {
        let mut l = Lines::default();
        l.push(Style::Error, "✗ ");
        l.push(Style::Error, "x\x1b[31m");
        l.push(Style::Plain, " ok");
        l.end(0);
        let mut out = Ansi::new(Vec::new());
        l.write(&mut out, &Styles::new(), 0).unwrap();
        let s = String::from_utf8(out.into_inner()).unwrap();
        assert_eq!(s.matches("\x1b[0m").count(), 2, "{s:?}");
        assert!(s.contains("x␛[31m"), "{s:?}");
    }

    fn wrapped(l: &Lines, cols: usize) -> String {
        let mut out = NoColor::new(Vec::new());
        l.write_wrapped(&mut out, &Styles::new(), 0, Some(cols))
            .unwrap();
        String::from_utf8(out.into_inner()).unwrap()
    }

    #[test]
    fn nested_lines_wrap_under_their_bars_and_bodies_under_their_indent() {
        let mut l = Lines::default();
        l.push(Style::Tool, "▸ ");
        l.push(Style::Plain, "Bash echo one two three four five six");
        l.end_hanging(1, 2);
        l.push(Style::Dim, "  ⎿ ");
        l.push(Style::Dim, "0123456789abcdefghijklmnopqrstuvwxyz0123456789");
        l.end_hanging(0, 4);
        l.push(Style::Plain, "top-level text is wrapped between words too");
        l.end(0);
        let out = wrapped(&l, 30);
        assert_eq!(
            out,
            "  │ ▸ Bash echo one two three \n\
             \x20 │   four five six\n\
             \x20 ⎿ 0123456789abcdefghijklmnop\n\
             \x20   qrstuvwxyz0123456789\n\
             top-level text is wrapped \n\
             between words too\n"
        );
        for line in out.lines() {
            assert!(width(line) <= 30, "{line:?}");
        }
        // Unwrapped (not a terminal): as before.
        assert_eq!(
            plain(&l).lines().next(),
            Some("  │ ▸ Bash echo one two three four five six")
        );
    }

    #[test]
    fn a_word_across_spans_is_never_cut_and_a_space_at_the_edge_breaks() {
        let mut l = Lines::default();
        l.push(Style::Plain, "aaaa bbbb cccc dddd eeee ff");
        l.push(Style::Cost, "ffff gggg");
        l.end(0);
        assert_eq!(wrapped(&l, 30), "aaaa bbbb cccc dddd eeee \nffffff gggg\n");
        // A space that would cross the edge is the break: the next line
        // starts with the word, not a space.
        l.clear();
        l.push(Style::Ok, "✓ done");
        l.push(Style::Plain, " · 12 turns · 1m 2s · ");
        l.push(Style::Cost, "$0.0512");
        l.push(Style::Plain, " · 3.7k in / 166 out · cache read 40%");
        l.end(0);
        let out = wrapped(&l, 30);
        for line in out.lines() {
            assert!(width(line) <= 30 && !line.starts_with(' '), "{out:?}");
        }
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(words(&out), words(&plain(&l)), "{out:?}");
    }

    #[test]
    fn wrapping_counts_columns_not_bytes_and_never_splits_a_character() {
        let mut l = Lines::default();
        // 14 wide characters: 28 columns; e + combining acute: 1 column.
        l.push(Style::Plain, "日本語のテキストを折り返す例\u{65}\u{301}x");
        l.end(2);
        let out = wrapped(&l, 30);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            ["  │   │ 日本語のテキストを折り", "  │   │ 返す例e\u{301}x"]
        );
        for line in &lines {
            assert!(width(line) <= 30, "{line:?}");
        }
        // A colour change inside a wrapped line is restored after the bars.
        let mut l = Lines::default();
        l.push(Style::Error, "✗ ");
        l.push(Style::Error, &"x".repeat(40));
        l.end(1);
        let mut out = Ansi::new(Vec::new());
        l.write_wrapped(&mut out, &Styles::new(), 0, Some(30))
            .unwrap();
        let s = String::from_utf8(out.into_inner()).unwrap();
        let second = s.lines().nth(1).unwrap();
        assert!(
            second.starts_with("\x1b[0m\x1b[2m  │ \x1b[0m\x1b[1m\x1b[31mx"),
            "{second:?}"
        );
        assert!(s.ends_with("\x1b[0m\n"), "{s:?}");
    }

    #[test]
    fn too_narrow_a_terminal_is_not_wrapped_into_a_column() {
        let mut l = Lines::default();
        l.push(Style::Plain, &"y".repeat(50));
        l.end_hanging(3, 4);
        // 12 columns of bars + 4 of hang leave less than 20.
        assert_eq!(wrapped(&l, 30).lines().count(), 1);
        assert_eq!(wrapped(&l, 40).lines().count(), 2);
    }
}
