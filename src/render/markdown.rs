//! `--format markdown`: a session as Markdown for a pull request or an
//! issue (GitHub-flavoured: tables, `<details>`).
//!
//! The [`Report`] decides what is shown; this module
//! writes it, so that nothing from the stream can change the document
//! around it:
//! - Tool output goes in a code fence longer than any backtick run in it
//!   ([`fence`]), inside `<details>` blocks whose `<summary>` is
//!   HTML-escaped: a `</details><script>` in an output is code, not markup.
//! - Names, paths and notices outside fences are escaped for Markdown and
//!   HTML ([`escape_inline`]); key arguments are code spans
//!   ([`code_span`]).
//! - The assistant's text stays Markdown (it is written as such), made
//!   inert by [`inert`]: its raw HTML is escaped, links to `javascript:`
//!   and the like are defused and a fence left open is closed, as decided
//!   by a real `CommonMark` parser (`pulldown-cmark`), not a guess.
//! - Terminal escapes were neutralized before ([`sanitize`](super::sanitize)).

use std::io::{self, Write};
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

use super::escape::{escape_html, push_escaped};
use super::report::{
    At, Call, Changes, Cut, Document, End, Header, Mark, Notice, Output, Refusal, Status, stat_text,
};
use super::rows::Summary;
use super::tables::{self, Align, Table};
use super::{fmt_duration, report::Report};
use crate::event::{Level, ToolKind};
use crate::session::Session;

/// The Markdown sink: a [`Report`] written by [`Markdown`].
pub type MarkdownSink<W> = Report<Markdown<W>>;

/// The Markdown document over `W`.
pub struct Markdown<W: Write> {
    out: W,
    /// The list item written last, when the last block was one: its
    /// nesting level and its depth (a deeper item may nest under it).
    list: Option<(usize, usize)>,
    /// The call whose line was written last (its output then needs no
    /// name).
    last_call: Option<String>,
    /// Sessions headed so far.
    sessions: u64,
}

impl<W: Write> Markdown<W> {
    /// A Markdown document on `out`.
    pub fn new(out: W) -> Self {
        Markdown {
            out,
            list: None,
            last_call: None,
            sessions: 0,
        }
    }

    /// The sink of `--format markdown` on `out`.
    pub fn sink(out: W) -> MarkdownSink<W> {
        Report::new(Markdown::new(out))
    }

    /// Give back the writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Start a block that is not a list item.
    fn block(&mut self) -> io::Result<()> {
        if self.list.take().is_some() {
            self.out.write_all(b"\n")?;
        }
        self.last_call = None;
        Ok(())
    }

    /// Start a list item at `depth`: nested under the item before when
    /// there is one to nest under, else with a `↳` per level left (an
    /// indented line after a paragraph would be code).
    fn item(&mut self, depth: usize) -> io::Result<()> {
        let (level, arrows) = match self.list {
            Some((level, d)) if depth > d => (level + 1, depth - d - 1),
            Some((level, d)) => {
                let arrows = (d - level).min(depth);
                (depth - arrows, arrows)
            }
            None => (0, depth),
        };
        for _ in 0..level {
            self.out.write_all(b"  ")?;
        }
        self.out.write_all(b"- ")?;
        for _ in 0..arrows {
            self.out.write_all("↳ ".as_bytes())?;
        }
        self.list = Some((level, depth));
        Ok(())
    }

    /// `text` quoted (`> ` before each line), as inert Markdown.
    fn quote(&mut self, text: &str) -> io::Result<()> {
        for line in inert(text).lines() {
            self.out
                .write_all(if line.is_empty() { b">" } else { b"> " })?;
            self.out.write_all(line.as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// A fenced block of `text`, each line after `prefix`.
    fn fenced(&mut self, prefix: &str, text: &str) -> io::Result<()> {
        let f = fence(text);
        writeln!(self.out, "{prefix}{f}")?;
        for line in text.lines() {
            writeln!(self.out, "{prefix}{line}")?;
        }
        writeln!(self.out, "{prefix}{f}")
    }

    /// A call's diff in a ```` ```diff ```` fence inside its list item (after
    /// `indent`), and the note on what was cut.
    fn diff(&mut self, changes: &Changes, indent: &str) -> io::Result<()> {
        if changes.lines.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for (mark, line) in &changes.lines {
            let marker = match mark {
                Mark::Path | Mark::Hunk | Mark::Header => "",
                Mark::Context => " ",
                Mark::Added => "+",
                Mark::Removed => "-",
            };
            text.push_str(marker);
            text.push_str(line);
            text.push('\n');
        }
        let f = fence(&text);
        writeln!(self.out, "\n{indent}{f}diff")?;
        for line in text.lines() {
            writeln!(self.out, "{indent}{line}")?;
        }
        writeln!(self.out, "{indent}{f}")?;
        if let Some(n) = changes.note() {
            writeln!(self.out, "\n{indent}{}", escape_inline(&n))?;
        }
        Ok(())
    }

    /// A result that failed or was denied, quoted with its message.
    fn failure(&mut self, o: &Output<'_>) -> io::Result<()> {
        let mut head = String::from(if o.status == Status::Denied {
            "**⊘ permission denied:** "
        } else {
            "**✗** "
        });
        head.push_str(&format!("**{}**", escape_inline(&o.tool)));
        if let Some(k) = &o.key {
            head.push(' ');
            head.push_str(&code_span(k));
        }
        if o.status == Status::Failed {
            head.push_str(" **failed**");
        }
        if let Some(ms) = o.took_ms {
            head.push_str(" after ");
            fmt_duration(&mut head, ms);
        }
        writeln!(self.out, "> {head}")?;
        if !o.text.text.trim().is_empty() {
            self.out.write_all(b">\n")?;
            self.fenced("> ", &o.text.text)?;
        }
        if let Some(n) = cut_note(&o.text) {
            writeln!(self.out, ">\n> {n}")?;
        }
        self.out.write_all(b"\n")
    }

    /// What a call that was denied or failed asked to change, folded, said
    /// not to be a change.
    fn proposed(&mut self, o: &Output<'_>) -> io::Result<()> {
        if o.changes.lines.is_empty() {
            return Ok(());
        }
        let mut head = format!("Proposed change of {}", escape_html(&o.tool));
        if let Some(k) = &o.key {
            head.push_str(&format!(" <code>{}</code>", escape_html(k)));
        }
        head.push_str(", not applied");
        if let Some(st) = o.changes.stat {
            head.push_str(&format!(" · {}", stat_text(st)));
        }
        writeln!(self.out, "<details><summary>{head}</summary>")?;
        self.diff(&o.changes, "")?;
        self.out.write_all(b"\n</details>\n\n")
    }

    fn table(&mut self, t: &Table) -> io::Result<()> {
        let row = |cells: &mut dyn Iterator<Item = String>| {
            let mut s = String::from("|");
            for c in cells {
                s.push(' ');
                s.push_str(&c);
                s.push_str(" |");
            }
            s.push('\n');
            s
        };
        let head = row(&mut t.head.iter().map(|(h, _)| (*h).to_string()));
        let rule = row(&mut t
            .head
            .iter()
            .map(|(_, a)| if *a == Align::Right { "--:" } else { ":--" }.to_string()));
        self.out.write_all(head.as_bytes())?;
        self.out.write_all(rule.as_bytes())?;
        for (i, r) in t.rows.iter().enumerate() {
            let bold = t.total == Some(i);
            let line = row(&mut r.iter().map(|c| {
                let c = escape_inline(c);
                if bold && !c.is_empty() {
                    format!("**{c}**")
                } else {
                    c
                }
            }));
            self.out.write_all(line.as_bytes())?;
        }
        self.out.write_all(b"\n")
    }

    fn summary(&mut self, summary: &Summary) -> io::Result<()> {
        self.block()?;
        self.out.write_all(b"## Summary\n\n")?;
        match tables::session_table(summary) {
            Some(t) => self.table(&t)?,
            None => self.out.write_all(b"No session in the input.\n\n")?,
        }
        for table in tables::tables_after_sessions(summary) {
            self.table(&table)?;
        }
        let notes = tables::notes(summary);
        if !notes.is_empty() {
            writeln!(self.out, "{}\n", escape_inline(&notes.join(" · ")))?;
        }
        Ok(())
    }
}

/// A note on what a cut left out, as a paragraph line (`None`: nothing).
fn cut_note(c: &Cut<'_>) -> Option<String> {
    c.note().map(|n| format!("*{}*", escape_inline(&n)))
}

impl<W: Write> Document for Markdown<W> {
    fn header(&mut self, h: &Header<'_>) -> io::Result<()> {
        self.block()?;
        self.sessions += 1;
        if self.sessions == 1 {
            writeln!(self.out, "# {} session\n", escape_inline(h.agent))?;
        } else {
            writeln!(
                self.out,
                "---\n\n## Session {}: {}\n",
                h.number,
                escape_inline(h.agent)
            )?;
        }
        let mut meta = Vec::new();
        if let Some(m) = &h.model {
            meta.push(format!("- **Model:** {}", escape_inline(m)));
        }
        if let Some(c) = &h.cwd {
            meta.push(format!("- **Directory:** {}", code_span(c)));
        }
        if let Some(v) = &h.version {
            meta.push(format!("- **Version:** {}", escape_inline(v)));
        }
        if let Some(s) = &h.session {
            meta.push(format!("- **Session:** {}", code_span(s)));
        }
        for m in meta {
            writeln!(self.out, "{m}")?;
        }
        self.out.write_all(b"\n")
    }

    fn prompt(&mut self, text: &Cut<'_>, at: At<'_>) -> io::Result<()> {
        self.block()?;
        let who = if at.depth == 0 { "User" } else { "Task" };
        writeln!(self.out, "**› {who}**\n")?;
        self.quote(&text.text)?;
        if let Some(n) = cut_note(text) {
            writeln!(self.out, ">\n> {n}")?;
        }
        self.out.write_all(b"\n")
    }

    fn text(&mut self, text: &Cut<'_>, at: At<'_>) -> io::Result<()> {
        self.block()?;
        if at.depth > 0 {
            if let Some(a) = at.agent {
                writeln!(self.out, "> *{}:*\n>", escape_inline(a))?;
            }
            self.quote(&text.text)?;
        } else {
            self.out.write_all(inert(&text.text).as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        if let Some(n) = cut_note(text) {
            writeln!(self.out, "\n{n}")?;
        }
        self.out.write_all(b"\n")
    }

    fn thinking(&mut self, text: Option<&Cut<'_>>, _at: At<'_>) -> io::Result<()> {
        self.block()?;
        let Some(text) = text else {
            return self.out.write_all(b"*(thinking withheld)*\n\n");
        };
        self.out
            .write_all(b"<details><summary>Thinking</summary>\n\n")?;
        self.fenced("", &text.text)?;
        if let Some(n) = cut_note(text) {
            writeln!(self.out, "\n{n}")?;
        }
        self.out.write_all(b"\n</details>\n\n")
    }

    fn call(&mut self, c: &Call<'_>, at: At<'_>) -> io::Result<()> {
        self.last_call = None;
        self.item(at.depth)?;
        if let Some(a) = at.agent {
            write!(self.out, "*{}:* ", escape_inline(a))?;
        }
        write!(self.out, "**{}**", escape_inline(&c.name))?;
        if let Some(k) = &c.key {
            write!(self.out, " {}", code_span(k))?;
        }
        if let Some(st) = c.changes.stat {
            write!(self.out, " {}", stat_text(st))?;
        }
        self.out.write_all(b"\n")?;
        let indent = self.list.map_or(0, |(level, _)| level) + 1;
        for i in &c.items {
            for _ in 0..indent {
                self.out.write_all(b"  ")?;
            }
            // `[x] done` is a task list item; the rest is text.
            let (mark, rest, doing) = match i.get(..4) {
                Some(m @ ("[x] " | "[ ] ")) => (m, &i[4..], ""),
                Some("[~] ") => ("[ ] ", &i[4..], " *(in progress)*"),
                _ => ("", i.as_str(), ""),
            };
            writeln!(self.out, "- {mark}{}{doing}", escape_inline(rest))?;
        }
        self.diff(&c.changes, &"  ".repeat(indent))?;
        self.last_call = Some(c.id.to_string());
        Ok(())
    }

    fn output(&mut self, o: &Output<'_>, _at: At<'_>) -> io::Result<()> {
        let follows = self.last_call.as_deref() == Some(o.id);
        // The diff of what was done: under its call when the output
        // follows it, else on its own after the call's name.
        if !o.changes.lines.is_empty() && !o.changes.proposed {
            if follows {
                let indent = self.list.map_or(0, |(level, _)| level) + 1;
                self.diff(&o.changes, &"  ".repeat(indent))?;
            } else {
                self.block()?;
                write!(self.out, "Changes of **{}**", escape_inline(&o.tool))?;
                if let Some(k) = &o.key {
                    write!(self.out, " {}", code_span(k))?;
                }
                if let Some(st) = o.changes.stat {
                    write!(self.out, " {}", stat_text(st))?;
                }
                self.out.write_all(b"\n")?;
                self.diff(&o.changes, "")?;
                self.out.write_all(b"\n")?;
            }
        }
        if o.status == Status::Ok && o.text.text.trim().is_empty() {
            return Ok(());
        }
        self.block()?;
        if o.said {
            // The denial was quoted when it was reported.
            return self.proposed(o);
        }
        if o.status != Status::Ok {
            self.failure(o)?;
            return self.proposed(o);
        }
        let mut head = String::new();
        // Raw HTML: the summary is escaped for HTML, not Markdown.
        head.push_str(if o.kind == ToolKind::Agent {
            "Answer"
        } else {
            "Output"
        });
        if !follows {
            head.push_str(" of ");
            head.push_str(&escape_html(&o.tool));
            if let Some(k) = &o.key {
                head.push_str(" <code>");
                head.push_str(&escape_html(k));
                head.push_str("</code>");
            }
        }
        let n = o.text.lines + o.text.more_lines;
        head.push_str(&format!(" · {n} line{}", if n == 1 { "" } else { "s" }));
        if let Some(ms) = o.took_ms {
            head.push_str(" · ");
            fmt_duration(&mut head, ms);
        }
        writeln!(self.out, "<details><summary>{head}</summary>\n")?;
        self.fenced("", &o.text.text)?;
        if let Some(n) = cut_note(&o.text) {
            writeln!(self.out, "\n{n}")?;
        }
        self.out.write_all(b"\n</details>\n\n")
    }

    fn denial(&mut self, d: &Refusal<'_>, _at: At<'_>) -> io::Result<()> {
        self.block()?;
        write!(
            self.out,
            "> **⊘ permission denied:** **{}**",
            escape_inline(&d.tool)
        )?;
        if let Some(k) = &d.key {
            write!(self.out, " {}", code_span(k))?;
        }
        if let Some(m) = &d.message {
            write!(self.out, " — {}", escape_inline(m))?;
        }
        self.out.write_all(b"\n\n")
    }

    fn notice(&mut self, n: &Notice<'_>, _at: At<'_>) -> io::Result<()> {
        self.block()?;
        let (quote, mark) = match n.level {
            Level::Error => (true, "**✗** "),
            Level::Warning => (true, "**!** "),
            Level::Debug | Level::Info => (false, "· "),
        };
        for (i, line) in n.text.lines().enumerate() {
            if quote {
                self.out.write_all(b"> ")?;
            }
            if i == 0 {
                self.out.write_all(mark.as_bytes())?;
            }
            self.out.write_all(escape_inline(line).as_bytes())?;
            // A hard line break inside the paragraph.
            self.out.write_all(b"  \n")?;
        }
        self.out.write_all(b"\n")
    }

    fn end(&mut self, e: &End) -> io::Result<()> {
        self.block()?;
        if let Some(a) = &e.answer {
            writeln!(self.out, "{}\n", inert(a))?;
        }
        let (head, rest) = e
            .line
            .split_once(" · ")
            .map_or((e.line.as_str(), None), |(h, r)| (h, Some(r)));
        let quote = if e.failed { "> " } else { "" };
        write!(self.out, "{quote}**{}**", escape_inline(head))?;
        if let Some(r) = rest {
            write!(self.out, " · {}", escape_inline(r))?;
        }
        self.out.write_all(b"\n")?;
        for r in &e.reasons {
            writeln!(self.out, "{quote}\n{quote}{}", escape_inline(r))?;
        }
        self.out.write_all(b"\n")
    }

    fn finish(&mut self, summary: &Summary, _s: &Session) -> io::Result<()> {
        self.summary(summary)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Text shown as it is in a Markdown paragraph or table cell: HTML's
/// `<`, `>` and `&` as entities, the punctuation Markdown acts on inside a
/// line backslash-escaped (`*`, `_`, `[`, `]`, `|`, `~`, a backtick, a
/// backslash), and a leading `#`, `-`, `+`, `=` or `1.` that would start a
/// heading or a list; a line break becomes a space.
pub fn escape_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    // What would start a line's block only does so before a space (or
    // alone: `---` is a rule).
    let marker_at = |i: usize| {
        let rest = &s[i + 1..];
        rest.is_empty()
            || rest.starts_with([' ', '\t'])
            || rest.chars().all(|c| c == '-' || c == '=')
    };
    for (i, c) in s.char_indices() {
        match c {
            // Quotes are text here: no attribute is open.
            '<' | '>' | '&' => push_escaped(&mut out, c),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '#' | '-' | '+' | '=' if i == 0 && marker_at(i) => {
                out.push('\\');
                out.push(c);
            }
            '.' | ')' if i == digits && digits > 0 && marker_at(i) => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for x in s.chars() {
        run = if x == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// A backtick fence longer than any backtick run in `text` (at least
/// three): the text cannot close it.
pub fn fence(text: &str) -> String {
    "`".repeat((longest_run(text, '`') + 1).max(3))
}

/// `s` as a code span: delimited by more backticks than any run in it,
/// padded when it starts or ends with a backtick, so it cannot close early.
pub fn code_span(s: &str) -> String {
    let ticks = "`".repeat(longest_run(s, '`') + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') || s.is_empty() {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

/// The parser's options: GitHub's extensions that change what is markup.
fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// A link or image target that runs or embeds something when followed.
pub(crate) fn unsafe_url(url: &str) -> bool {
    let u: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:", "file:"]
        .iter()
        .any(|s| u.starts_with(s))
}

/// What [`inert`] must change in `text`, as found by the parser: the `<` of
/// raw HTML, the `[` of a link (or the `!` of an image) to an unsafe
/// target.
fn hazards(text: &str) -> Vec<usize> {
    let mut at = Vec::new();
    for (ev, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match ev {
            Event::Html(_) | Event::InlineHtml(_) => {
                let slice = text.get(range.clone()).unwrap_or("");
                at.extend(slice.match_indices('<').map(|(i, _)| range.start + i));
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. })
                if unsafe_url(&dest_url) =>
            {
                at.push(range.start);
            }
            _ => {}
        }
    }
    at
}

/// Markdown text (the assistant's) made inert, keeping its formatting: raw
/// HTML shown as text, links and images to `javascript:`, `data:` and the
/// like shown as text, and a code fence left open closed, so that what
/// follows in the document stays out of it.
pub fn inert(text: &str) -> String {
    let mut cur = text.trim_end().to_string();
    // Escaping can change how the rest parses (an HTML block becomes a
    // paragraph): parse again until nothing is left, a few rounds at most.
    for _ in 0..6 {
        let at = hazards(&cur);
        if at.is_empty() {
            close_fence(&mut cur);
            return cur;
        }
        let mut out = String::with_capacity(cur.len() + at.len() * 4);
        let mut from = 0;
        for i in at {
            out.push_str(&cur[from..i]);
            match cur.as_bytes().get(i) {
                Some(b'<') => push_escaped(&mut out, '<'),
                _ => out.push('\\'),
            }
            from = i + usize::from(cur.as_bytes().get(i) == Some(&b'<'));
        }
        out.push_str(&cur[from..]);
        cur = out;
    }
    // It did not settle: every line as plain text.
    cur.lines()
        .map(escape_inline)
        .collect::<Vec<_>>()
        .join("  \n")
}

/// Close a top-level fenced code block that runs to the end of `text`.
fn close_fence(text: &mut String) {
    let mut depth = 0usize;
    let mut open: Option<Range<usize>> = None;
    for (ev, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match ev {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) if depth == 0 => {
                open = Some(range);
                depth += 1;
            }
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let Some(range) = open.filter(|r| r.end >= text.trim_end().len()) else {
        return;
    };
    let block = &text[range];
    let first = block.lines().next().unwrap_or("").trim_start();
    let Some(ch) = first.chars().next() else {
        return;
    };
    let n = first.chars().take_while(|&c| c == ch).count();
    let last = block.lines().last().unwrap_or("");
    let closed = block.lines().count() > 1 && {
        let l = last.trim_start();
        last.len() - l.len() <= 3
            && l.trim_end().chars().all(|c| c == ch)
            && l.trim_end().chars().count() >= n
    };
    if !closed {
        text.push('\n');
        text.extend(std::iter::repeat_n(ch, n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outlast_the_content() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a ``` b"), "````");
        assert_eq!(fence("``````"), "```````");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
    }

    #[test]
    fn raw_html_becomes_text() {
        let t = inert("Hi <script>alert(1)</script> and\n\n<img src=x onerror=alert(1)>\n");
        assert!(!t.contains("<script"), "{t}");
        assert!(!t.contains("<img"), "{t}");
        assert!(t.contains("&lt;script>"));
        // Code keeps its `<`: it is code already.
        assert_eq!(inert("`Vec<u8>`"), "`Vec<u8>`");
        assert_eq!(inert("```\n<b>\n```"), "```\n<b>\n```");
    }

    #[test]
    fn unsafe_links_are_defused() {
        let t = inert("[click](javascript:alert(1)) [ok](https://example.com)");
        assert!(t.starts_with("\\[click]"), "{t}");
        assert!(t.contains("[ok](https://example.com)"));
        assert!(inert("![x](data:image/png;base64,AAAA)").starts_with("\\!"));
    }

    #[test]
    fn an_open_fence_is_closed() {
        assert_eq!(
            inert("text\n````rust\nfn x() {}"),
            "text\n````rust\nfn x() {}\n````"
        );
        assert_eq!(inert("```\nclosed\n```"), "```\nclosed\n```");
        assert_eq!(inert("~~~\nopen"), "~~~\nopen\n~~~");
    }

    #[test]
    fn inline_text_is_escaped() {
        let e = escape_inline("</details><script>*x*|`y`");
        assert!(!e.contains('<'));
        assert_eq!(e, "&lt;/details&gt;&lt;script&gt;\\*x\\*\\|\\`y\\`");
        assert_eq!(escape_inline("claude-opus-4.5"), "claude-opus-4.5");
        assert_eq!(escape_inline("# x"), "\\# x");
        assert_eq!(escape_inline("12. x"), "12\\. x");
        assert_eq!(escape_inline("2.1.330"), "2.1.330");
        assert_eq!(escape_inline("---"), "\\---");
        assert_eq!(escape_inline("-x"), "-x");
    }
}
