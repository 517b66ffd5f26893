//! The human view: one line per tool call, the assistant's text, errors and
//! denials that are never hidden, and a summary line per result.
//!
//! Everything that comes from the agent or its tools goes through
//! [`sanitize`] first. Errors and denials are also mirrored to a second
//! writer (stderr) when asked: in quiet mode, and when stdout is not a
//! terminal, so `streamview > log 2> errors` separates them.

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;

use termcolor::{Color, ColorSpec, WriteColor};

use super::sanitize::{sanitize, sanitize_line};
use super::summary::{Summary, write_table};
use super::{Sink, fmt_cost, fmt_count, fmt_duration};
use crate::event::{
    DeltaKind, Denial, Event, EventKind, Level, Notice, Producer, Role, SessionResult,
    SessionStart, ToolCall, ToolResult,
};
use crate::session::{Outcome, Session};

/// How much to show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// Nothing on stdout; errors and denials on stderr.
    Quiet,
    /// Text, tool calls, errors, denials, notable notices, summaries.
    #[default]
    Normal,
    /// Also tool results, thinking, usage, every notice, full session details.
    Verbose,
}

/// Settings of the pretty sink.
#[derive(Clone, Debug)]
pub struct PrettyOptions {
    /// How much to show.
    pub verbosity: Verbosity,
    /// Lines of a tool result (or error text) to show before cutting.
    pub max_lines: usize,
    /// Also write errors and denials to the second writer.
    pub mirror_errors: bool,
}

impl Default for PrettyOptions {
    fn default() -> Self {
        PrettyOptions {
            verbosity: Verbosity::Normal,
            max_lines: 10,
            mirror_errors: false,
        }
    }
}

/// A tool whose result arrives this many seconds after its call is marked.
const LONG_RUNNING_SECS: u64 = 10;

/// A call's duration by arrival time, when it is at least `min_secs`
/// (a replayed log arrives all at once: its durations mean nothing).
fn took(elapsed: Option<std::time::Duration>, min_secs: u64) -> Option<String> {
    let d = elapsed.filter(|d| d.as_secs() >= min_secs)?;
    let mut s = String::new();
    fmt_duration(&mut s, u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    Some(s)
}

/// Longest key argument shown on a tool line, in characters.
const MAX_KEY_CHARS: usize = 200;
/// Longest compact-JSON input shown for tools without a key argument.
const MAX_INPUT_CHARS: usize = 120;

/// Colour specs, resolved once.
struct Styles {
    header: ColorSpec,
    tool: ColorSpec,
    error: ColorSpec,
    warn: ColorSpec,
    denied: ColorSpec,
    ok: ColorSpec,
    dim: ColorSpec,
    plain: ColorSpec,
}

impl Styles {
    fn new() -> Self {
        let mut header = ColorSpec::new();
        header.set_fg(Some(Color::Cyan)).set_bold(true);
        let mut tool = ColorSpec::new();
        tool.set_fg(Some(Color::Blue)).set_bold(true);
        let mut error = ColorSpec::new();
        error.set_fg(Some(Color::Red)).set_bold(true);
        let mut warn = ColorSpec::new();
        warn.set_fg(Some(Color::Yellow));
        let mut denied = ColorSpec::new();
        denied.set_fg(Some(Color::Magenta)).set_bold(true);
        let mut ok = ColorSpec::new();
        ok.set_fg(Some(Color::Green)).set_bold(true);
        let mut dim = ColorSpec::new();
        dim.set_dimmed(true);
        Styles {
            header,
            tool,
            error,
            warn,
            denied,
            ok,
            dim,
            plain: ColorSpec::new(),
        }
    }
}

/// The pretty sink: `W` is stdout, `E` is where errors are mirrored (stderr).
pub struct Pretty<W: WriteColor, E: WriteColor> {
    out: W,
    err: E,
    opts: PrettyOptions,
    st: Styles,
    /// Hashes of the main agent's texts shown in this session: a result
    /// repeats the last one, and is printed only when it was not shown.
    shown_texts: HashSet<u64>,
    /// Last error text shown: the error result usually repeats it.
    last_error: String,
    /// Add the summary tables at the end (`--summary`).
    summary: bool,
    /// The text (or thinking) block being printed fragment by fragment,
    /// kept until the complete block that repeats it arrives (which is then
    /// not printed again).
    stream: Option<Stream>,
    /// Dim lines (depth, text) held back while a tool call's line is open,
    /// printed once it is complete.
    held: Vec<(usize, String)>,
}

impl<E: WriteColor> Pretty<termcolor::NoColor<io::Sink>, E> {
    /// A sink that writes nothing but errors and permission denials, to
    /// `err`, as quiet mode does: the alert channel of the formats whose
    /// stdout carries something else (a filtered view, a result, a summary).
    pub fn alerts_only(err: E, max_lines: usize) -> Self {
        Pretty::new(
            termcolor::NoColor::new(io::sink()),
            err,
            PrettyOptions {
                verbosity: Verbosity::Quiet,
                max_lines,
                mirror_errors: true,
            },
        )
    }
}

/// Where a piece of output goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum To {
    /// stdout only (nothing in quiet mode).
    Out,
    /// An error or denial: stdout, plus stderr when mirroring (or quiet).
    Alert,
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    /// A pretty sink writing to `out`, mirroring errors to `err`.
    pub fn new(out: W, err: E, opts: PrettyOptions) -> Self {
        Pretty {
            out,
            err,
            opts,
            st: Styles::new(),
            shown_texts: HashSet::new(),
            last_error: String::new(),
            summary: false,
            stream: None,
            held: Vec::new(),
        }
    }

    /// Add the summary tables at the end (`--summary`): on stdout, or on
    /// stderr in quiet mode.
    #[must_use]
    pub fn with_summary(mut self, on: bool) -> Self {
        self.summary = on;
        self
    }

    /// Give back the writers.
    pub fn into_inner(self) -> (W, E) {
        (self.out, self.err)
    }

    fn verbose(&self) -> bool {
        self.opts.verbosity == Verbosity::Verbose
    }

    fn quiet(&self) -> bool {
        self.opts.verbosity == Verbosity::Quiet
    }

    /// Write `lines` (already built) to the targets of `to`. Each element is a
    /// list of (style, text) spans forming one line.
    fn emit(
        &mut self,
        to: To,
        depth: usize,
        lines: &[Vec<(Style, Cow<'_, str>)>],
    ) -> io::Result<()> {
        self.end_stream_line()?;
        if !self.quiet() {
            write_lines(&mut self.out, &self.st, depth, lines)?;
        }
        if to == To::Alert && (self.quiet() || self.opts.mirror_errors) {
            // stdout first, so the two streams stay in order on a terminal.
            self.out.flush()?;
            // Errors writing to stderr are not worth dying for.
            let _ = write_lines(&mut self.err, &self.st, depth, lines);
            let _ = self.err.flush();
        }
        Ok(())
    }

    fn session_start(
        &mut self,
        st: &SessionStart<'_>,
        producer: Producer,
        s: &Session,
    ) -> io::Result<()> {
        let note = s.note();
        if !note.new_session {
            if note.header_changed {
                let mut l = vec![(Style::Header, Cow::Borrowed("● "))];
                l.push((
                    Style::Plain,
                    Cow::Owned(format!(
                        "model {} · permission mode {}",
                        sanitize(st.model.as_deref().unwrap_or("?")),
                        sanitize(st.permission_mode.as_deref().unwrap_or("?"))
                    )),
                ));
                return self.emit(To::Out, 0, &[l]);
            }
            if self.verbose() {
                return self.emit(
                    To::Out,
                    0,
                    &[vec![(Style::Dim, Cow::Borrowed("· new turn"))]],
                );
            }
            return Ok(());
        }
        let mut line = vec![(Style::Header, Cow::Borrowed("● "))];
        let mut head = String::new();
        match st.model.as_deref() {
            Some(m) => head.push_str(&sanitize(m)),
            // Some producers (Codex) do not say which model runs.
            None => head.push_str(producer.label()),
        }
        line.push((Style::Header, Cow::Owned(head)));
        if let Some(cwd) = &st.cwd {
            line.push((Style::Plain, Cow::Owned(format!(" in {}", sanitize(cwd)))));
        }
        if !st.tools.is_empty() {
            line.push((
                Style::Dim,
                Cow::Owned(format!(
                    " · {}",
                    plural(st.tools.len() as u64, "tool", "tools")
                )),
            ));
        }
        if !st.mcp_servers.is_empty() {
            line.push((Style::Dim, Cow::Borrowed(" · MCP:")));
            for m in &st.mcp_servers {
                let bad = !matches!(m.status.as_ref(), "connected" | "pending");
                let style = if bad { Style::Error } else { Style::Plain };
                let text = if bad {
                    format!(" {} ({})", sanitize(&m.name), sanitize(&m.status))
                } else {
                    format!(" {}", sanitize(&m.name))
                };
                line.push((style, Cow::Owned(text)));
            }
        }
        let mut lines = vec![line];
        if self.verbose() {
            let mut d = String::new();
            if let Some(v) = &st.version {
                d.push_str(&format!("{} {} · ", producer.label(), sanitize(v)));
            }
            if let Some(m) = &st.permission_mode {
                d.push_str(&format!("permission mode {} · ", sanitize(m)));
            }
            if let Some(k) = &st.api_key_source {
                d.push_str(&format!("API key from {} · ", sanitize(k)));
            }
            d.push_str(&format!(
                "session {}",
                sanitize(s.current().and_then(|c| c.id.as_deref()).unwrap_or("?"))
            ));
            lines.push(vec![(Style::Dim, Cow::Owned(format!("  {d}")))]);
            for (label, list) in [
                ("tools", &st.tools),
                ("agents", &st.agents),
                ("skills", &st.skills),
                ("slash commands", &st.slash_commands),
            ] {
                if !list.is_empty() {
                    let joined: Vec<Cow<'_, str>> = list.iter().map(|t| sanitize(t)).collect();
                    lines.push(vec![(
                        Style::Dim,
                        Cow::Owned(format!("  {label}: {}", joined.join(", "))),
                    )]);
                }
            }
        }
        // A failed MCP server is an error the user must see.
        let failed = st.mcp_servers.iter().any(|m| m.status == "failed");
        self.emit(if failed { To::Alert } else { To::Out }, 0, &lines)
    }

    fn tool_call(&mut self, c: &ToolCall<'_>, depth: usize) -> io::Result<()> {
        let mut line = vec![
            (Style::Tool, Cow::Borrowed("▸ ")),
            (Style::Tool, display_name(&c.name)),
        ];
        match &c.key_arg {
            Some(k) if !k.is_empty() => {
                line.push((
                    Style::Plain,
                    Cow::Owned(format!(" {}", one_line(k, MAX_KEY_CHARS))),
                ));
            }
            _ if c.todos.is_empty() && c.questions.is_empty() => {
                let input = c.input.text();
                if input.len() > 2 {
                    line.push((
                        Style::Dim,
                        Cow::Owned(format!(" {}", one_line(&input, MAX_INPUT_CHARS))),
                    ));
                }
            }
            _ => {}
        }
        let head = line.len().min(2);
        let mut lines = vec![line];
        for t in &c.todos {
            let mark = match t.status.as_ref() {
                "completed" => "☑",
                "in_progress" => "◐",
                _ => "☐",
            };
            let style = if t.status == "completed" {
                Style::Dim
            } else {
                Style::Plain
            };
            lines.push(vec![(
                style,
                Cow::Owned(format!(
                    "    {mark} {}",
                    one_line(&t.content, MAX_KEY_CHARS)
                )),
            )]);
        }
        for q in &c.questions {
            lines.push(vec![(
                Style::Plain,
                Cow::Owned(format!("    ? {}", one_line(&q.question, MAX_KEY_CHARS))),
            )]);
            for o in &q.options {
                lines.push(vec![(
                    Style::Dim,
                    Cow::Owned(format!("      - {}", one_line(o, MAX_KEY_CHARS))),
                )]);
            }
        }
        // Its start was shown (`▸ Name`) and nothing came in between: finish
        // that line.
        if self.tool_started(depth) && self.stream.as_ref().is_some_and(|st| st.text == c.name) {
            self.stream = None;
            write_line(&mut self.out, &self.st, None, &lines[0][head..], true)?;
            write_lines(&mut self.out, &self.st, depth, &lines[1..])?;
            return self.write_held();
        }
        self.emit(To::Out, depth, &lines)
    }

    fn tool_result(&mut self, r: &ToolResult<'_>, s: &Session, depth: usize) -> io::Result<()> {
        let note = s.note();
        let tool = note.tool.as_deref().unwrap_or("tool");
        if r.denied && !self.verbose() {
            // The permission_denied event that follows says it better.
            return Ok(());
        }
        if r.is_error {
            let content = r.content.text();
            let text = strip_tool_error(&content);
            let mut head = vec![
                (Style::Error, Cow::Borrowed("✗ ")),
                (Style::Error, Cow::Owned(display_name(tool).into_owned())),
            ];
            if let Some(k) = &note.key_arg {
                head.push((Style::Plain, Cow::Owned(format!(" {}", one_line(k, 80)))));
            }
            head.push((Style::Error, Cow::Borrowed(" failed")));
            if let Some(t) = took(note.elapsed, 1) {
                head.push((Style::Dim, Cow::Owned(format!(" after {t}"))));
            }
            let mut lines = vec![head];
            self.body_lines(&mut lines, text, Style::Error);
            self.last_error.clear();
            self.last_error.push_str(text.trim());
            return self.emit(To::Alert, depth, &lines);
        }
        let agent = crate::event::is_subagent_tool(tool);
        if agent || self.verbose() {
            // A sub-agent's answer only exists here, so it is shown by default.
            let content = r.content.text();
            let mut text: &str = &content;
            let mut lines = Vec::new();
            if agent {
                if let Some(p) = text.find("\nagentId:") {
                    text = &text[..p];
                }
                if text.starts_with("Async agent launched") {
                    // Newer CLIs run sub-agents in the background; the
                    // result is metadata the model is told not to quote.
                    text = "(running in the background)";
                }
                let mut head = vec![
                    (Style::Tool, Cow::Borrowed("◂ ")),
                    (Style::Tool, display_name(tool)),
                ];
                if let Some(k) = &note.key_arg {
                    head.push((Style::Plain, Cow::Owned(format!(" {}", one_line(k, 80)))));
                }
                lines.push(head);
            }
            self.body_lines(&mut lines, text, Style::Dim);
            if lines.len() <= usize::from(agent) {
                lines.push(vec![(Style::Dim, Cow::Borrowed("  ⎿ (no output)"))]);
            }
            if let Some(t) = took(note.elapsed, 1) {
                lines.push(vec![(Style::Dim, Cow::Owned(format!("    took {t}")))]);
            }
            return self.emit(To::Out, depth, &lines);
        }
        // Successful results are not shown by default, but a long-running
        // tool is worth a mark.
        if let Some(t) = took(note.elapsed, LONG_RUNNING_SECS) {
            let mut line = vec![
                (Style::Dim, Cow::Borrowed("  ⎿ ")),
                (
                    Style::Warn,
                    Cow::Owned(format!("long-running: {} took {t}", display_name(tool))),
                ),
            ];
            if let Some(k) = &note.key_arg {
                line.push((Style::Dim, Cow::Owned(format!(" ({})", one_line(k, 60)))));
            }
            return self.emit(To::Out, depth, &[line]);
        }
        Ok(())
    }

    /// Up to `max_lines` lines of `text`, indented under a tool line.
    fn body_lines<'t>(
        &self,
        lines: &mut Vec<Vec<(Style, Cow<'t, str>)>>,
        text: &'t str,
        style: Style,
    ) {
        let text = text.trim_end_matches(['\n', '\r']);
        if text.trim().is_empty() {
            return;
        }
        let total = text.lines().count();
        let max = self.opts.max_lines.max(1);
        for (i, l) in text.lines().take(max).enumerate() {
            let prefix = if i == 0 { "  ⎿ " } else { "    " };
            lines.push(vec![(
                style,
                Cow::Owned(format!("{prefix}{}", sanitize(l))),
            )]);
        }
        if total > max {
            lines.push(vec![(
                Style::Dim,
                Cow::Owned(format!("    … {} more lines (--max-lines)", total - max)),
            )]);
        }
    }

    fn denial(&mut self, d: &Denial<'_>, s: &Session, depth: usize) -> io::Result<()> {
        let note = s.note();
        if note.duplicate {
            return Ok(());
        }
        let tool = note.tool.as_deref().or(d.tool.as_deref()).unwrap_or("tool");
        let mut line = vec![
            (Style::Denied, Cow::Borrowed("⊘ permission denied: ")),
            (Style::Denied, Cow::Owned(display_name(tool).into_owned())),
        ];
        if let Some(k) = note.key_arg.as_deref().or(d.key_arg.as_deref()) {
            line.push((
                Style::Plain,
                Cow::Owned(format!(" {}", one_line(k, MAX_KEY_CHARS))),
            ));
        }
        let mut lines = vec![line];
        if let Some(m) = d
            .message
            .as_deref()
            .map(strip_tool_error)
            .filter(|m| !m.is_empty())
        {
            lines.push(vec![(
                Style::Dim,
                Cow::Owned(format!("  ⎿ {}", one_line(m, 300))),
            )]);
        }
        self.emit(To::Alert, depth, &lines)
    }

    fn notice(&mut self, n: &Notice<'_>, depth: usize) -> io::Result<()> {
        let (style, mark, to) = match n.level {
            Level::Debug if !self.verbose() => return Ok(()),
            // Bookkeeping (thinking token estimates, status) would cut a
            // streamed line in the middle of a word.
            Level::Debug if self.streaming() => return Ok(()),
            Level::Debug | Level::Info => (Style::Dim, "· ", To::Out),
            Level::Warning => (Style::Warn, "! ", To::Out),
            Level::Error => (Style::Error, "✗ ", To::Alert),
        };
        if n.level == Level::Error {
            self.last_error.clear();
            self.last_error.push_str(n.text.trim());
        }
        let text = sanitize(&n.text);
        let mut lines = Vec::new();
        for (i, l) in text.lines().enumerate() {
            let prefix = if i == 0 { mark } else { "  " };
            lines.push(vec![(style, Cow::Owned(format!("{prefix}{l}")))]);
        }
        if lines.is_empty() {
            lines.push(vec![(
                style,
                Cow::Owned(format!("{mark}{}", sanitize(&n.subtype))),
            )]);
        }
        self.emit(to, depth, &lines)
    }

    fn result(&mut self, r: &SessionResult<'_>, s: &Session) -> io::Result<()> {
        let mut lines = Vec::new();
        if !r.is_error
            && let Some(t) = r.text.as_deref()
            && !t.trim().is_empty()
            && !self.shown_texts.contains(&text_hash(t))
        {
            // The result repeats the last text; show it only when it was not shown.
            for l in sanitize(t).trim_matches('\n').lines() {
                lines.push(vec![(Style::Plain, Cow::Owned(l.to_string()))]);
            }
        }
        let mut stats = String::new();
        if let Some(n) = r.num_turns {
            stats.push_str(&format!(" · {n} turn{}", if n == 1 { "" } else { "s" }));
        }
        if let Some(ms) = r.duration_ms {
            stats.push_str(" · ");
            fmt_duration(&mut stats, ms);
            if let (true, Some(api)) = (self.verbose(), r.duration_api_ms) {
                stats.push_str(" (API ");
                fmt_duration(&mut stats, api);
                stats.push(')');
            }
        }
        if let Some(c) = r.cost_usd {
            stats.push_str(" · ");
            fmt_cost(&mut stats, c);
        }
        if !r.tokens.is_empty() {
            stats.push_str(" · ");
            fmt_tokens(&mut stats, &r.tokens);
        }
        if r.is_error {
            let mut what = String::from("session failed");
            if let Some(st) = r.api_error_status {
                what.push_str(&format!(" (API error {st})"));
            } else if let Some(sub) = r.subtype.as_deref().filter(|s| {
                // These say nothing about why (a result rebuilt at the end
                // of the input is not a failure *because* the input ended).
                !matches!(*s, "success" | "error" | "end_of_input" | "transcript_end")
            }) {
                what.push_str(&format!(" ({})", sanitize(sub)));
            }
            lines.push(vec![
                (Style::Error, Cow::Borrowed("✗ ")),
                (Style::Error, Cow::Owned(what)),
                (Style::Plain, Cow::Owned(stats)),
            ]);
            // The reason, unless the API error notice just said it.
            let mut msgs: Vec<&str> = r.errors.iter().map(AsRef::as_ref).collect();
            if let Some(t) = r.text.as_deref() {
                msgs.insert(0, t);
            }
            for m in msgs
                .iter()
                .filter(|m| !m.trim().is_empty() && m.trim() != self.last_error)
            {
                lines.push(vec![(
                    Style::Error,
                    Cow::Owned(format!("  ⎿ {}", one_line(m, 500))),
                )]);
            }
        } else {
            lines.push(vec![
                (Style::Ok, Cow::Borrowed("✓ ")),
                (Style::Ok, Cow::Borrowed("done")),
                (Style::Plain, Cow::Owned(stats)),
            ]);
        }
        for (name, key) in &s.note().unanswered {
            let mut t = format!("  ⎿ never answered: {}", display_name(name));
            if let Some(k) = key {
                t.push(' ');
                t.push_str(&one_line(k, 80));
            }
            lines.push(vec![(Style::Warn, Cow::Owned(t))]);
        }
        if self.verbose() {
            for m in &r.model_usage {
                let mut t = format!("  {}: ", sanitize(&m.model));
                fmt_tokens(&mut t, &m.tokens);
                if let Some(c) = m.cost_usd {
                    t.push_str(" · ");
                    fmt_cost(&mut t, c);
                }
                lines.push(vec![(Style::Dim, Cow::Owned(t))]);
            }
            let mut why = Vec::new();
            if let Some(x) = &r.stop_reason {
                why.push(format!("stop reason {}", sanitize(x)));
            }
            if let Some(x) = &r.terminal_reason {
                why.push(format!("terminal reason {}", sanitize(x)));
            }
            if let Some(id) = s.current().and_then(|c| c.id.as_deref()) {
                why.push(format!("session {}", sanitize(id)));
            }
            if !why.is_empty() {
                lines.push(vec![(
                    Style::Dim,
                    Cow::Owned(format!("  {}", why.join(" · "))),
                )]);
            }
        }
        self.emit(if r.is_error { To::Alert } else { To::Out }, 0, &lines)
    }

    fn incomplete(&mut self, s: &Session) -> io::Result<()> {
        let head = if s.is_interrupted() {
            "✗ interrupted (Ctrl-C) before a result"
        } else {
            "✗ stream ended without a result"
        };
        let mut lines = vec![vec![(Style::Error, Cow::Borrowed(head))]];
        let mut open: Vec<_> = s.unanswered_calls().collect();
        open.sort_by(|a, b| a.0.cmp(b.0));
        for (_, c) in open {
            let mut t = format!("  interrupted: {}", display_name(&c.name));
            if let Some(k) = &c.key_arg {
                t.push(' ');
                t.push_str(&one_line(k, 80));
            }
            lines.push(vec![(Style::Warn, Cow::Owned(t))]);
        }
        if let Some(cur) = s.current() {
            let mut parts = Vec::new();
            if cur.messages > 0 {
                parts.push(plural(cur.messages, "API response", "API responses"));
            }
            if cur.tool_calls > 0 {
                parts.push(plural(cur.tool_calls, "tool call", "tool calls"));
            }
            let mut stats = parts.join(" · ");
            if !cur.message_tokens.is_empty() {
                if !stats.is_empty() {
                    stats.push_str(" · ");
                }
                // Output counts before the result are preliminary: input only.
                fmt_tokens(
                    &mut stats,
                    &crate::event::Tokens {
                        output: None,
                        ..cur.message_tokens
                    },
                );
            }
            if !stats.is_empty() {
                lines.push(vec![(Style::Dim, Cow::Owned(format!("  so far: {stats}")))]);
            }
        }
        self.emit(To::Alert, 0, &lines)
    }
}

impl<W: WriteColor, E: WriteColor> Sink for Pretty<W, E> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        let depth = s.note().depth;
        match &ev.kind {
            EventKind::SessionStart(st) => {
                if s.note().new_session {
                    if s.note().previous_incomplete {
                        self.incomplete_previous()?;
                    }
                    self.shown_texts.clear();
                    self.last_error.clear();
                }
                self.session_start(st, ev.producer, s)
            }
            EventKind::Text(t) => {
                if t.role == Role::User && !self.verbose() {
                    return Ok(());
                }
                let style = if t.role == Role::User {
                    Style::Dim
                } else {
                    Style::Plain
                };
                if depth == 0 && t.role == Role::Assistant {
                    self.shown_texts.insert(text_hash(&t.text));
                }
                if t.role == Role::Assistant
                    && self.was_streamed(DeltaKind::Text, &t.text, depth)?
                {
                    // Already shown fragment by fragment.
                    return Ok(());
                }
                let text = sanitize(&t.text);
                let text = text.trim_matches('\n');
                if text.is_empty() {
                    return Ok(());
                }
                let lines: Vec<_> = text
                    .lines()
                    .enumerate()
                    .map(|(i, l)| {
                        let prefix = if t.role == Role::User && i == 0 {
                            "› "
                        } else {
                            ""
                        };
                        vec![(style, Cow::Owned(format!("{prefix}{l}")))]
                    })
                    .collect();
                self.emit(To::Out, depth, &lines)
            }
            EventKind::Thinking(t) => {
                if !self.verbose() {
                    return Ok(());
                }
                if !t.redacted && self.was_streamed(DeltaKind::Thinking, &t.text, depth)? {
                    return Ok(());
                }
                let text = if t.redacted || t.text.trim().is_empty() {
                    Cow::Borrowed("[redacted thinking]")
                } else {
                    sanitize(&t.text)
                };
                let lines: Vec<_> = text
                    .trim_matches('\n')
                    .lines()
                    .enumerate()
                    .map(|(i, l)| {
                        vec![(
                            Style::Dim,
                            Cow::Owned(format!("{}{l}", if i == 0 { "✻ " } else { "  " })),
                        )]
                    })
                    .collect();
                self.emit(To::Out, depth, &lines)
            }
            EventKind::ToolCall(c) => self.tool_call(c, depth),
            EventKind::ToolResult(r) => self.tool_result(r, s, depth),
            EventKind::PermissionDenied(d) => self.denial(d, s, depth),
            EventKind::Usage(u) => {
                if !self.verbose() {
                    return Ok(());
                }
                // Output counts that are preliminary (Claude Code repeats the
                // message_start usage on each line): the input side only.
                let preliminary = u.preliminary_output;
                let mut t = String::from("· API call: ");
                fmt_tokens(
                    &mut t,
                    &crate::event::Tokens {
                        output: if preliminary { None } else { u.tokens.output },
                        ..u.tokens
                    },
                );
                if let Some(m) = &u.model {
                    t.push_str(&format!(" ({})", sanitize(m)));
                }
                if self.tool_started(depth) {
                    // The message's usage comes with the call it is about:
                    // not in the middle of the call's line.
                    self.held.push((depth, t));
                    return Ok(());
                }
                self.emit(To::Out, depth, &[vec![(Style::Dim, Cow::Owned(t))]])
            }
            EventKind::Notice(n) => self.notice(n, depth),
            EventKind::Result(r) => self.result(r, s),
            EventKind::Delta(d) => self.delta(d, depth),
            EventKind::PlainText(t) => {
                let text = sanitize(t);
                self.emit(
                    To::Out,
                    0,
                    &[vec![(Style::Plain, Cow::Owned(text.into_owned()))]],
                )
            }
            EventKind::Unknown(u) => {
                if !self.verbose() {
                    return Ok(());
                }
                let t = format!("? unknown event {}", sanitize(&u.type_name));
                self.emit(To::Out, depth, &[vec![(Style::Dim, Cow::Owned(t))]])
            }
        }
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        self.end_stream_line()?;
        if s.current().and_then(|c| c.outcome) == Some(Outcome::Incomplete) {
            self.incomplete(s)?;
        }
        if self.summary {
            let summary = Summary::from_session(s);
            if self.quiet() {
                self.out.flush()?;
                let _ = write_table(&mut self.err, &summary);
                let _ = self.err.flush();
            } else {
                self.out.write_all(b"\n")?;
                write_table(&mut self.out, &summary)?;
            }
        }
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn mid_line(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.open && s.started)
    }
}

/// A block being printed as its fragments arrive.
struct Stream {
    kind: DeltaKind,
    depth: usize,
    index: Option<u64>,
    /// Everything streamed so far, to recognise the complete block.
    text: String,
    /// The cursor is at the end of this block's line (no other output since).
    open: bool,
    /// Something visible was printed (leading newlines are dropped, as the
    /// complete block's rendering trims them).
    started: bool,
    /// Newlines seen but not yet printed (trailing ones are dropped).
    pending_newlines: usize,
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    /// Print a text or thinking fragment at once, on the current line. Tool
    /// input fragments are not shown: the call is shown once complete.
    fn delta(&mut self, d: &crate::event::Delta<'_>, depth: usize) -> io::Result<()> {
        let shown = match d.kind {
            DeltaKind::Text => true,
            DeltaKind::Thinking => self.verbose(),
            DeltaKind::ToolInput => false,
            DeltaKind::ToolStart => return self.tool_start(d, depth),
        };
        if !shown || self.quiet() {
            return Ok(());
        }
        let same = self
            .stream
            .as_ref()
            .is_some_and(|st| st.kind == d.kind && st.depth == depth && st.index == d.index);
        if !same {
            self.end_stream_line()?;
            self.stream = Some(Stream {
                kind: d.kind,
                depth,
                index: d.index,
                text: String::new(),
                open: false,
                started: false,
                pending_newlines: 0,
            });
        }
        let Some(stream) = self.stream.as_mut() else {
            return Ok(());
        };
        stream.text.push_str(&d.text);
        let thinking = d.kind == DeltaKind::Thinking;
        let text = sanitize(&d.text);
        let mut pieces = text.split('\n').peekable();
        while let Some(piece) = pieces.next() {
            if !piece.is_empty() {
                if !stream.open || stream.pending_newlines > 0 {
                    if stream.open {
                        self.out.reset()?;
                        self.out.write_all(b"\n")?;
                    }
                    // A new line of the block: its first, or one after a
                    // newline in the text or after other output.
                    write_prefix(&mut self.out, &self.st, depth)?;
                    if thinking {
                        self.out.set_color(spec(&self.st, Style::Dim))?;
                        let mark = if stream.started { "  " } else { "✻ " };
                        self.out.write_all(mark.as_bytes())?;
                    }
                    for _ in 1..stream.pending_newlines {
                        self.out.reset()?;
                        self.out.write_all(b"\n")?;
                        write_prefix(&mut self.out, &self.st, depth)?;
                    }
                    stream.pending_newlines = 0;
                    stream.open = true;
                    stream.started = true;
                }
                if thinking {
                    self.out.set_color(spec(&self.st, Style::Dim))?;
                } else {
                    self.out.reset()?;
                }
                self.out.write_all(piece.as_bytes())?;
            }
            if pieces.peek().is_some() && stream.started {
                stream.pending_newlines += 1;
            }
        }
        Ok(())
    }

    /// A tool call begins: its line starts now (`▸ Write`) and is completed
    /// by the call once its input has streamed ([`Pretty::tool_call`]).
    fn tool_start(&mut self, d: &crate::event::Delta<'_>, depth: usize) -> io::Result<()> {
        if self.quiet() {
            return Ok(());
        }
        self.end_stream_line()?;
        let head = [
            (Style::Tool, Cow::Borrowed("▸ ")),
            (Style::Tool, display_name(&d.text)),
        ];
        write_line(&mut self.out, &self.st, Some(depth), &head, false)?;
        self.stream = Some(Stream {
            kind: DeltaKind::ToolStart,
            depth,
            index: d.index,
            text: d.text.to_string(),
            open: true,
            started: true,
            pending_newlines: 0,
        });
        Ok(())
    }

    /// True while the line of a tool call started at `depth` is open.
    fn tool_started(&self, depth: usize) -> bool {
        self.stream
            .as_ref()
            .is_some_and(|st| st.open && st.kind == DeltaKind::ToolStart && st.depth == depth)
    }

    /// The lines held back while a tool call's line was open.
    fn write_held(&mut self) -> io::Result<()> {
        for (depth, text) in std::mem::take(&mut self.held) {
            write_line(
                &mut self.out,
                &self.st,
                Some(depth),
                &[(Style::Dim, Cow::Owned(text))],
                true,
            )?;
        }
        Ok(())
    }

    /// Other output follows: end the line of a block being streamed (the
    /// block may go on below it).
    fn end_stream_line(&mut self) -> io::Result<()> {
        if let Some(st) = self.stream.as_mut()
            && st.open
        {
            st.open = false;
            // Newlines owed to the text are replaced by this line end.
            st.pending_newlines = 0;
            if st.kind == DeltaKind::ToolStart {
                // A call whose line was cut by other output: its complete
                // line comes later, this one says it is not the whole call.
                self.out.set_color(&self.st.dim)?;
                self.out.write_all(" …".as_bytes())?;
            }
            self.out.reset()?;
            self.out.write_all(b"\n")?;
            self.write_held()?;
        }
        Ok(())
    }

    /// True when `text` is the block just shown fragment by fragment. The
    /// streamed block ends here either way.
    fn was_streamed(&mut self, kind: DeltaKind, text: &str, depth: usize) -> io::Result<bool> {
        let Some(st) = self.stream.as_ref() else {
            return Ok(false);
        };
        if st.depth != depth {
            // Another agent's block (a sub-agent's text while the main
            // agent streams): the streamed block is still going on.
            return Ok(false);
        }
        let same = st.kind == kind && st.text.trim_matches('\n') == text.trim_matches('\n');
        self.end_stream_line()?;
        self.stream = None;
        Ok(same)
    }

    /// True while a block is being streamed on the current line.
    fn streaming(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.open)
    }

    fn incomplete_previous(&mut self) -> io::Result<()> {
        let lines = vec![vec![(
            Style::Error,
            Cow::Borrowed("✗ previous session ended without a result"),
        )]];
        self.emit(To::Alert, 0, &lines)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Header,
    Tool,
    Error,
    Warn,
    Denied,
    Ok,
    Dim,
    Plain,
}

fn spec(st: &Styles, s: Style) -> &ColorSpec {
    match s {
        Style::Header => &st.header,
        Style::Tool => &st.tool,
        Style::Error => &st.error,
        Style::Warn => &st.warn,
        Style::Denied => &st.denied,
        Style::Ok => &st.ok,
        Style::Dim => &st.dim,
        Style::Plain => &st.plain,
    }
}

fn write_lines<W: WriteColor>(
    w: &mut W,
    st: &Styles,
    depth: usize,
    lines: &[Vec<(Style, Cow<'_, str>)>],
) -> io::Result<()> {
    for line in lines {
        write_line(w, st, Some(depth), line, true)?;
    }
    Ok(())
}

/// One line's spans: after the sub-agent indentation of `depth` (`None`:
/// the line goes on from earlier output), and ended when `end`.
fn write_line<W: WriteColor>(
    w: &mut W,
    st: &Styles,
    depth: Option<usize>,
    line: &[(Style, Cow<'_, str>)],
    end: bool,
) -> io::Result<()> {
    // Switch colours only where the style changes.
    let mut current = Style::Plain;
    let set = |w: &mut W, style: Style, current: &mut Style| -> io::Result<()> {
        if style != *current {
            if style == Style::Plain {
                w.reset()?;
            } else {
                w.set_color(spec(st, style))?;
            }
            *current = style;
        }
        Ok(())
    };
    if let Some(depth) = depth.filter(|d| *d > 0) {
        set(w, Style::Dim, &mut current)?;
        write_depth(w, depth)?;
    }
    for (style, text) in line {
        if text.is_empty() {
            continue;
        }
        set(w, *style, &mut current)?;
        // The last line of defence: every span is content-bearing text
        // that callers already sanitized, but nothing a terminal acts
        // on (and no line break) gets out of here, whatever a caller forgot.
        w.write_all(sanitize_line(text).as_bytes())?;
    }
    set(w, Style::Plain, &mut current)?;
    if end {
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// Nesting bars drawn at most: sub-agents nested deeper than this (only a
/// crafted stream does that) show their depth as a number, so the output of a
/// line stays bounded instead of growing with the depth.
const MAX_DRAWN_DEPTH: usize = 8;

fn write_depth<W: WriteColor>(w: &mut W, depth: usize) -> io::Result<()> {
    if depth <= MAX_DRAWN_DEPTH {
        for _ in 0..depth {
            w.write_all("  │ ".as_bytes())?;
        }
        return Ok(());
    }
    for _ in 0..MAX_DRAWN_DEPTH - 1 {
        w.write_all("  │ ".as_bytes())?;
    }
    write!(w, "  │{depth} ")
}

/// The sub-agent indentation of a line.
fn write_prefix<W: WriteColor>(w: &mut W, st: &Styles, depth: usize) -> io::Result<()> {
    if depth > 0 {
        w.set_color(&st.dim)?;
        write_depth(w, depth)?;
        w.reset()?;
    }
    Ok(())
}

/// `mcp__server__tool` → `server/tool`; other names unchanged.
fn display_name(name: &str) -> Cow<'_, str> {
    if let Some(rest) = name.strip_prefix("mcp__")
        && let Some((server, tool)) = rest.split_once("__")
    {
        return Cow::Owned(format!("{}/{}", sanitize(server), sanitize(tool)));
    }
    sanitize(name)
}

/// Sanitized, on one line, at most `max` characters (cuts are marked).
fn one_line(s: &str, max: usize) -> String {
    let s = sanitize(s);
    let mut lines = s.lines();
    let first = lines.next().unwrap_or("");
    let more = lines.count();
    let mut out: String = first.chars().take(max).collect();
    if out.len() < first.len() {
        out.push('…');
    }
    if more > 0 {
        out.push_str(&format!(
            " (+{more} line{})",
            if more == 1 { "" } else { "s" }
        ));
    }
    out
}

/// Claude wraps validation errors in `<tool_use_error>…</tool_use_error>`.
fn strip_tool_error(s: &str) -> &str {
    let t = s.trim();
    t.strip_prefix("<tool_use_error>")
        .and_then(|x| x.strip_suffix("</tool_use_error>"))
        .unwrap_or(t)
}

fn fmt_tokens(out: &mut String, t: &crate::event::Tokens) {
    if t.input.is_some() || t.cache_read.is_some() || t.cache_creation.is_some() {
        fmt_count(out, t.total_input());
        out.push_str(" in");
    }
    if let Some(o) = t.output {
        if !out.ends_with(' ') && !out.is_empty() && !out.ends_with(": ") {
            out.push_str(" / ");
        }
        fmt_count(out, o);
        out.push_str(" out");
    }
    if let Some(share) = t.cache_read_share() {
        out.push_str(&format!(" · cache read {share:.0}%"));
    }
}

fn text_hash(t: &str) -> u64 {
    let mut h = DefaultHasher::new();
    t.trim().hash(&mut h);
    h.finish()
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
