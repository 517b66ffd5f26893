//! `--format html`: a session as one self-contained HTML page.
//!
//! The [`Report`] decides what is shown; this module
//! lays it out: the summary tables at the top, a filter bar (text search,
//! errors only, one kind of tool), then the conversation in order, each
//! tool call a collapsible row (`<details>`: name, key argument, duration,
//! status colour) with its output inside, a sub-agent's events nested in
//! the call that started it, thinking collapsed.
//!
//! Safety. Every string from the stream is escaped (`escape_html`); the
//! assistant's Markdown is rendered by `pulldown-cmark` with its raw HTML
//! turned into text, unsafe link targets dropped and images shown as links.
//! The only code on the page is the inline style and script shipped here,
//! allowed by a Content-Security-Policy by their sha256 ([`STYLE_SHA256`],
//! [`SCRIPT_SHA256`]) under `default-src 'none'`: no other script, style,
//! image, font, frame or connection can load or run, and the page makes no
//! network request.
//!
//! Size. The summary comes first but is known last, so the body is held in
//! memory until the input ends, bounded: each output is cut (see
//! [`report`](super::report)), and once the body holds [`BODY_BUDGET`]
//! bytes, further events are left out and counted in a note. A page is at
//! most about that size plus the summary, whatever the log's size.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::diff::Stat;
use super::escape::escape_html;
use super::fmt_duration;
use super::markdown::unsafe_url;
use super::report::{
    At, Call, Changes, Cut, Document, End, Header, Mark, Notice, Output, Refusal, Report, Status,
};
use super::rows::{Row, Summary};
use super::tables::{self, Align, Table};
use crate::event::{Level, ToolKind};
use crate::session::Session;

/// Bytes of conversation a page holds at most; beyond, events are counted,
/// not shown.
pub const BODY_BUDGET: usize = 8 << 20;

/// The page's style.
const STYLE: &str = include_str!("html/style.css");

/// The columns whose cells are cut with an ellipsis past their width
/// (`td.clip` in the style), the rest of the row kept in view.
const CLIPPED: [&str; 2] = ["title", "project"];
/// The page's script: the filter bar.
const SCRIPT: &str = include_str!("html/script.js");
/// `sha256-…` of the page's style, allowed by the page's CSP (a unit test checks it).
pub const STYLE_SHA256: &str = "sha256-55v2FMpN5tEr5QatDG3/sTwHI401G52ketWEPyBUNX4=";
/// `sha256-…` of the page's script, allowed by the page's CSP (a unit test checks it).
pub const SCRIPT_SHA256: &str = "sha256-gmbJlmxUmsOQk3xU4aAw/ZlglGxbFwMisFsrX99Ps3E=";

/// Nesting kept at most: a sub-agent deeper than this is shown at this
/// depth (the page is written by recursion).
const MAX_NESTING: usize = 32;

/// The HTML sink: a [`Report`] written by [`Html`].
pub type HtmlSink<W> = Report<Html<W>>;

/// One piece of the conversation.
struct Node {
    /// The piece's HTML (for a call: its summary line).
    html: String,
    /// For a call: its state and what goes inside it.
    call: Option<CallNode>,
    /// Where it is nested.
    level: usize,
}

struct CallNode {
    kind: ToolKind,
    status: Option<Status>,
    agent: bool,
    /// True when it shows a diff: open from the start (what changed is
    /// what a reader of a session looks for).
    diff: bool,
    /// Its todo items and diff.
    body: String,
    /// Its sub-agent's events.
    children: Vec<usize>,
    /// Its output (after its sub-agent's events: a sub-agent's answer
    /// comes at its end).
    output: String,
}

/// The HTML document over `W`; see the module docs.
pub struct Html<W: Write> {
    out: W,
    nodes: Vec<Node>,
    top: Vec<usize>,
    /// Calls by id, to put their output and their sub-agent inside.
    calls: HashMap<String, usize>,
    /// Bytes held.
    size: usize,
    /// Events left out once the budget was spent, and how many were errors.
    omitted: (u64, u64),
    /// The first session's header, for the page's title.
    first: Option<(String, String)>,
    /// Tool kinds seen, for the filter bar.
    kinds: Vec<ToolKind>,
}

impl<W: Write> Html<W> {
    /// An HTML document on `out`.
    pub fn new(out: W) -> Self {
        Html {
            out,
            nodes: Vec::new(),
            top: Vec::new(),
            calls: HashMap::new(),
            size: 0,
            omitted: (0, 0),
            first: None,
            kinds: Vec::new(),
        }
    }

    /// The sink of `--format html` on `out`.
    pub fn sink(out: W) -> HtmlSink<W> {
        Report::new(Html::new(out))
    }

    /// Give back the writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Room for `n` more bytes; otherwise count the event left out.
    fn room(&mut self, n: usize, bad: bool) -> bool {
        if self.size + n <= BODY_BUDGET {
            self.size += n;
            return true;
        }
        self.omitted.0 += 1;
        self.omitted.1 += u64::from(bad);
        false
    }

    /// The call a sub-agent's event goes in, if it is shown.
    fn parent(&self, at: At<'_>) -> Option<usize> {
        let p = *self.calls.get(at.parent?)?;
        (self.nodes[p].level < MAX_NESTING).then_some(p)
    }

    /// Add a piece (a call when `call` is set) where `at` says.
    fn add(
        &mut self,
        html: String,
        call: Option<CallNode>,
        at: At<'_>,
        bad: bool,
    ) -> Option<usize> {
        if !self.room(html.len(), bad) {
            return None;
        }
        let parent = self.parent(at);
        let level = parent.map_or(0, |p| self.nodes[p].level + 1);
        let i = self.nodes.len();
        self.nodes.push(Node { html, call, level });
        match parent.and_then(|p| self.nodes[p].call.as_mut()) {
            Some(c) => c.children.push(i),
            None => self.top.push(i),
        }
        Some(i)
    }

    /// A piece that is not a call.
    fn block(&mut self, html: String, at: At<'_>, bad: bool) {
        let _ = self.add(html, None, at, bad);
    }

    fn write_node(&mut self, i: usize, page: &mut String) {
        let Some(node) = self.nodes.get_mut(i) else {
            return;
        };
        let html = std::mem::take(&mut node.html);
        let Some(call) = node.call.take() else {
            page.push_str(&html);
            return;
        };
        let (class, badge) = match call.status {
            None => ("pending", ""),
            Some(Status::Ok) => ("ok", ""),
            Some(Status::Failed) => ("fail bad", "failed"),
            Some(Status::Denied) => ("denied bad", "denied"),
        };
        // Nothing inside (a denial said where it was reported): closed.
        let empty = call.body.is_empty() && call.output.is_empty() && call.children.is_empty();
        let open = !empty
            && (matches!(call.status, Some(Status::Failed | Status::Denied))
                || (call.agent && !call.children.is_empty())
                || call.diff);
        let _ = write!(
            page,
            "<details class=\"ev call {class}\" data-kind=\"{}\"{}><summary>{html}",
            call.kind.name(),
            if open { " open" } else { "" }
        );
        if !badge.is_empty() {
            let _ = write!(page, "<span class=\"badge\">{badge}</span>");
        }
        page.push_str("</summary><div class=\"in\">");
        page.push_str(&call.body);
        if !call.children.is_empty() {
            page.push_str("<div class=\"sub\">");
            for c in call.children {
                self.write_node(c, page);
            }
            page.push_str("</div>");
        }
        page.push_str(&call.output);
        page.push_str("</div></details>\n");
    }

    /// The page's head and title: the session's agent and model, or for
    /// several (a library) how many, and whose when they share an agent.
    fn head(&mut self, total: &Row) -> io::Result<()> {
        let (agent, detail) = self.first.clone().unwrap_or_default();
        let title = match (agent.is_empty(), total.sessions) {
            (true, _) => "streamview report".to_string(),
            (false, 0 | 1) => format!("{agent} session{detail}"),
            (false, n) if total.producer.is_some() => format!("{n} {agent} sessions"),
            (false, n) => format!("{n} sessions"),
        };
        write!(
            self.out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src '{STYLE_SHA256}'; script-src '{SCRIPT_SHA256}'; img-src 'none'; \
             base-uri 'none'; form-action 'none'\">\n\
             <meta name=\"referrer\" content=\"no-referrer\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"generator\" content=\"streamview {}\">\n\
             <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<div class=\"page\">\n\
             <header><h1>{}</h1></header>\n",
            env!("CARGO_PKG_VERSION"),
            escape_html(&title),
            escape_html(&title),
        )
    }

    fn table(page: &mut String, t: &Table) {
        page.push_str("<div class=\"scroll\"><table><thead><tr>");
        for (h, a) in &t.head {
            let _ = write!(page, "<th{}>{}</th>", num(*a), escape_html(h));
        }
        page.push_str("</tr></thead><tbody>");
        for (i, r) in t.rows.iter().enumerate() {
            page.push_str(if t.total == Some(i) {
                "<tr class=\"total\">"
            } else {
                "<tr>"
            });
            for (c, (h, a)) in r.iter().zip(&t.head) {
                if CLIPPED.contains(h) {
                    // Cut to its column's width (the style's `td.clip`),
                    // whole on hover: the table fits a 1200 px window.
                    let c = escape_html(c);
                    let _ = write!(page, "<td class=\"clip\" title=\"{c}\">{c}</td>");
                } else {
                    let _ = write!(page, "<td{}>{}</td>", num(*a), escape_html(c));
                }
            }
            page.push_str("</tr>");
        }
        page.push_str("</tbody></table></div>\n");
    }

    fn summary(summary: &Summary) -> String {
        let mut page = String::from("<section id=\"summary\"><h2>Summary</h2>\n");
        // `--by day|week|month`: the groups drawn first.
        if let Some(chart) = summary.by.as_ref().and_then(super::chart::svg) {
            page.push_str(&chart);
        }
        match tables::session_table(summary) {
            Some(t) => Self::table(&mut page, &t),
            None => page.push_str("<p>No session in the input.</p>\n"),
        }
        page.push_str("<div class=\"tables\">");
        for table in tables::tables_after_sessions(summary) {
            Self::table(&mut page, &table);
        }
        page.push_str("</div>");
        let notes = tables::notes(summary);
        if !notes.is_empty() {
            let _ = write!(
                page,
                "<p class=\"notes\">{}</p>",
                escape_html(&notes.join(" · "))
            );
        }
        page.push_str("</section>\n");
        page
    }

    fn bar(&self) -> String {
        let mut bar = String::from(
            "<nav id=\"bar\" hidden><input type=\"search\" id=\"q\" placeholder=\"Search calls, \
             outputs, text…\" aria-label=\"Search\"><label><input type=\"checkbox\" id=\"errs\"> \
             errors only</label><select id=\"kind\" aria-label=\"Tool kind\"><option value=\"\">\
             all events</option>",
        );
        for k in &self.kinds {
            let _ = write!(bar, "<option value=\"{0}\">{0} tools</option>", k.name());
        }
        bar.push_str(
            "</select><button type=\"button\" id=\"expand\">expand all</button>\
             <button type=\"button\" id=\"collapse\">collapse all</button>\
             <span id=\"count\"></span></nav>\n",
        );
        bar
    }
}

/// The class of a numeric cell.
fn num(a: Align) -> &'static str {
    if a == Align::Right {
        " class=\"n\""
    } else {
        ""
    }
}

/// Append the note on what a cut left out.
fn cut_note(out: &mut String, c: &Cut<'_>) {
    if let Some(n) = c.note() {
        let _ = write!(out, "<p class=\"cut\">{}</p>", escape_html(&n));
    }
}

/// The assistant's Markdown as HTML: its raw HTML as text, links to
/// unsafe targets without their target, images as links (an image would
/// be a request).
pub fn markdown(out: &mut String, text: &str) {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, opts).map(|ev| match ev {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(
            Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }
            | Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            },
        ) => Event::Start(Tag::Link {
            link_type,
            dest_url: if unsafe_url(&dest_url) {
                "#".into()
            } else {
                dest_url
            },
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        e => e,
    });
    pulldown_cmark::html::push_html(out, events);
}

/// A call's diff: a line per row, its class for its colour, its marker
/// kept (the page printed, or read without colour, still says which
/// line is which).
fn diff(out: &mut String, changes: &Changes) {
    if changes.lines.is_empty() {
        return;
    }
    out.push_str("<pre class=\"diff\">");
    for (i, (mark, line)) in changes.lines.iter().enumerate() {
        let (class, marker) = match mark {
            Mark::Path => ("dp", ""),
            Mark::Hunk | Mark::Header => ("dh", ""),
            Mark::Context => ("dc", " "),
            Mark::Added => ("add", "+"),
            Mark::Removed => ("del", "-"),
        };
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(
            out,
            "<span class=\"{class}\">{marker}{}</span>",
            escape_html(line)
        );
    }
    out.push_str("</pre>");
    if let Some(n) = changes.note() {
        let _ = write!(out, "<p class=\"cut\">{}</p>", escape_html(&n));
    }
}

/// A call's `+12 −3`, when there is one.
fn stat(out: &mut String, stat: Option<Stat>) {
    let Some(st) = stat else {
        return;
    };
    let (added, removed) = st.shown();
    out.push_str("<span class=\"stat\">");
    if let Some(n) = added {
        let _ = write!(out, " <span class=\"add\">+{n}</span>");
    }
    if let Some(n) = removed {
        let _ = write!(out, " <span class=\"del\">−{n}</span>");
    }
    out.push_str("</span>");
}

/// `<span class="tn">Bash</span> <code>ls</code>`.
fn call_line(out: &mut String, tool: &str, key: Option<&str>) {
    let _ = write!(out, "<span class=\"tn\">{}</span>", escape_html(tool));
    if let Some(k) = key {
        let _ = write!(out, " <code>{}</code>", escape_html(k));
    }
}

impl<W: Write> Document for Html<W> {
    fn header(&mut self, h: &Header<'_>) -> io::Result<()> {
        let mut detail = String::new();
        if let Some(m) = &h.model {
            let _ = write!(detail, " · {m}");
        }
        if self.first.is_none() {
            self.first = Some((h.agent.to_string(), detail.clone()));
        }
        let mut html = format!(
            "<section class=\"hdr\"><h2>{}{}</h2><p class=\"meta\">",
            escape_html(h.agent),
            escape_html(&detail)
        );
        let mut parts = Vec::new();
        if let Some(c) = &h.cwd {
            parts.push(format!("in <code>{}</code>", escape_html(c)));
        }
        if let Some(v) = &h.version {
            parts.push(format!("version {}", escape_html(v)));
        }
        if let Some(s) = &h.session {
            parts.push(format!("session <code>{}</code>", escape_html(s)));
        }
        html.push_str(&parts.join(" · "));
        html.push_str("</p></section>\n");
        let top = At {
            depth: 0,
            parent: None,
            agent: None,
        };
        self.block(html, top, false);
        Ok(())
    }

    fn prompt(&mut self, text: &Cut<'_>, at: At<'_>) -> io::Result<()> {
        let who = if at.depth == 0 { "User" } else { "Task" };
        let mut html = format!(
            "<div class=\"ev prompt\"><div class=\"who\">{who}</div><div class=\"plain\">{}</div>",
            escape_html(&text.text)
        );
        cut_note(&mut html, text);
        html.push_str("</div>\n");
        self.block(html, at, false);
        Ok(())
    }

    fn text(&mut self, text: &Cut<'_>, at: At<'_>) -> io::Result<()> {
        let mut html = String::from("<div class=\"ev text\">");
        if let Some(a) = at.agent {
            let _ = write!(html, "<div class=\"agent\">{}</div>", escape_html(a));
        }
        html.push_str("<div class=\"md\">");
        markdown(&mut html, &text.text);
        html.push_str("</div>");
        cut_note(&mut html, text);
        html.push_str("</div>\n");
        self.block(html, at, false);
        Ok(())
    }

    fn thinking(&mut self, text: Option<&Cut<'_>>, at: At<'_>) -> io::Result<()> {
        let mut html = String::from("<details class=\"ev thinking\"><summary>Thinking</summary>");
        match text {
            Some(t) => {
                html.push_str("<div class=\"md\">");
                markdown(&mut html, &t.text);
                html.push_str("</div>");
                cut_note(&mut html, t);
            }
            None => html.push_str("<p class=\"cut\">withheld by the producer</p>"),
        }
        html.push_str("</details>\n");
        self.block(html, at, false);
        Ok(())
    }

    fn call(&mut self, c: &Call<'_>, at: At<'_>) -> io::Result<()> {
        if !self.kinds.contains(&c.kind) {
            self.kinds.push(c.kind);
        }
        let mut html = String::new();
        if let Some(a) = at.agent {
            let _ = write!(html, "<span class=\"agent\">{}:</span> ", escape_html(a));
        }
        call_line(&mut html, &c.name, c.key.as_deref());
        stat(&mut html, c.changes.stat);
        let mut body = String::new();
        if !c.items.is_empty() {
            body.push_str("<ul class=\"items\">");
            for i in &c.items {
                let _ = write!(body, "<li>{}</li>", escape_html(i));
            }
            body.push_str("</ul>");
        }
        diff(&mut body, &c.changes);
        self.size += body.len();
        let node = CallNode {
            kind: c.kind,
            status: None,
            agent: c.agent,
            diff: !c.changes.lines.is_empty(),
            body,
            children: Vec::new(),
            output: String::new(),
        };
        if let Some(i) = self.add(html, Some(node), at, false) {
            self.calls.insert(c.id.to_string(), i);
        }
        Ok(())
    }

    fn output(&mut self, o: &Output<'_>, at: At<'_>) -> io::Result<()> {
        let bad = o.status != Status::Ok;
        let mut html = String::new();
        // The diff of what was done (the call showed only its count).
        if !o.changes.proposed {
            diff(&mut html, &o.changes);
        }
        // A denial shown when it was reported is not repeated.
        if !o.said && !o.text.text.trim().is_empty() {
            let _ = write!(
                html,
                "<pre class=\"out\">{}</pre>",
                escape_html(&o.text.text)
            );
        } else if o.status == Status::Ok {
            html.push_str("<p class=\"cut\">(no output)</p>");
        }
        if !o.said {
            cut_note(&mut html, &o.text);
        }
        if o.changes.proposed && !o.changes.lines.is_empty() {
            html.push_str("<details class=\"proposed\"><summary>proposed change, not applied");
            stat(&mut html, o.changes.stat);
            html.push_str("</summary>");
            diff(&mut html, &o.changes);
            html.push_str("</details>");
        }
        // The count of what was done, when the call's line could not say it.
        let done = o.changes.stat.filter(|_| !o.changes.proposed);
        let call = self.calls.get(o.id).copied();
        let Some(node) = call.and_then(|i| self.nodes.get_mut(i)) else {
            // Its call is not on the page (left out, or never seen): the
            // result stands alone.
            let mut line = String::from("<div class=\"ev");
            line.push_str(if bad { " alert bad\">" } else { "\">" });
            call_line(&mut line, &o.tool, o.key.as_deref());
            stat(&mut line, done);
            line.push_str(&html);
            line.push_str("</div>\n");
            self.block(line, at, bad);
            return Ok(());
        };
        let Some(c) = node.call.as_mut() else {
            return Ok(());
        };
        c.status = Some(o.status);
        c.diff |= !o.changes.lines.is_empty() && !o.changes.proposed;
        stat(&mut node.html, done);
        if let Some(ms) = o.took_ms {
            let mut d = String::new();
            fmt_duration(&mut d, ms);
            let _ = write!(node.html, "<span class=\"dur\">{d}</span>");
        }
        if self.size + html.len() <= BODY_BUDGET {
            self.size += html.len();
            c.output.push_str(&html);
        } else {
            self.omitted.0 += 1;
            self.omitted.1 += u64::from(bad);
        }
        Ok(())
    }

    fn denial(&mut self, d: &Refusal<'_>, at: At<'_>) -> io::Result<()> {
        let mut html =
            String::from("<div class=\"ev alert deny bad\"><b>⊘ permission denied:</b> ");
        call_line(&mut html, &d.tool, d.key.as_deref());
        if let Some(m) = &d.message {
            let _ = write!(html, " — {}", escape_html(m));
        }
        html.push_str("</div>\n");
        self.block(html, at, true);
        Ok(())
    }

    fn notice(&mut self, n: &Notice<'_>, at: At<'_>) -> io::Result<()> {
        let (class, mark) = match n.level {
            Level::Error => ("ev alert bad", "✗ "),
            Level::Warning => ("ev notice warning", "! "),
            Level::Debug | Level::Info => ("ev notice", "· "),
        };
        let html = format!(
            "<div class=\"{class}\"><span class=\"plain\">{mark}{}</span></div>\n",
            escape_html(&n.text)
        );
        self.block(html, at, n.level == Level::Error);
        Ok(())
    }

    fn end(&mut self, e: &End) -> io::Result<()> {
        let top = At {
            depth: 0,
            parent: None,
            agent: None,
        };
        if let Some(a) = &e.answer {
            let mut html = String::from("<div class=\"ev text\"><div class=\"md\">");
            markdown(&mut html, a);
            html.push_str("</div></div>\n");
            self.block(html, top, false);
        }
        let (mark, rest) = e.line.split_at(e.line.find(' ').unwrap_or(0));
        let mut html = format!(
            "<div class=\"ev end {}\"><span class=\"mark\">{}</span>{}",
            if e.failed { "failed bad" } else { "ok" },
            escape_html(mark),
            escape_html(rest)
        );
        if !e.reasons.is_empty() {
            html.push_str("<ul>");
            for r in &e.reasons {
                let _ = write!(html, "<li>{}</li>", escape_html(r));
            }
            html.push_str("</ul>");
        }
        html.push_str("</div>\n");
        self.block(html, top, e.failed);
        Ok(())
    }

    fn finish(&mut self, summary: &Summary, session: &Session) -> io::Result<()> {
        self.head(&summary.total)?;
        let s = Self::summary(summary);
        self.out.write_all(s.as_bytes())?;
        let bar = self.bar();
        self.out.write_all(bar.as_bytes())?;
        self.out.write_all(b"<main id=\"log\">\n")?;
        let mut page = String::new();
        for i in std::mem::take(&mut self.top) {
            self.write_node(i, &mut page);
            // Written as it goes: the page is not held twice.
            if page.len() > 1 << 16 {
                self.out.write_all(page.as_bytes())?;
                page.clear();
            }
        }
        self.out.write_all(page.as_bytes())?;
        let (n, errors) = self.omitted;
        if n > 0 {
            let mut mib = String::new();
            let _ = write!(mib, "{}", BODY_BUDGET >> 20);
            writeln!(
                self.out,
                "<div class=\"omitted\"><b>The page stops here:</b> {n} more events ({errors} of \
                 them errors) were left out to keep it under {mib} MiB. The summary above counts \
                 everything; <code>streamview</code> in a terminal shows the whole session.</div>"
            )?;
        }
        write!(
            self.out,
            "</main>\n<footer>Made by streamview {} from {} events.</footer>\n</div>\n\
             <script>{SCRIPT}</script>\n</body>\n</html>\n",
            env!("CARGO_PKG_VERSION"),
            session.stats().events
        )?;
        self.nodes.clear();
        self.calls.clear();
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        // Nothing is written before the end.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base64(bytes: &[u8]) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    fn sha256(s: &str) -> String {
        use sha2::Digest;
        format!("sha256-{}", base64(&sha2::Sha256::digest(s.as_bytes())))
    }

    /// The CSP allows the shipped style and script by their hashes: edit
    /// one, and this says the new hash.
    #[test]
    fn the_csp_hashes_match_the_shipped_code() {
        assert_eq!(base64(b"abc"), "YWJj");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(STYLE_SHA256, sha256(STYLE), "STYLE_SHA256");
        assert_eq!(SCRIPT_SHA256, sha256(SCRIPT), "SCRIPT_SHA256");
    }

    #[test]
    fn markdown_keeps_its_formatting_but_no_markup() {
        let mut out = String::new();
        markdown(
            &mut out,
            "**bold** `a<b>` <script>x</script>\n\n[j](javascript:alert(1)) ![i](https://e.com/i.png)",
        );
        assert!(out.contains("<strong>bold</strong>"), "{out}");
        assert!(out.contains("<code>a&lt;b&gt;</code>"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("javascript:"), "{out}");
        assert!(!out.contains("<img"), "{out}");
    }
}
