//! The filter stage: `--only KINDS`, `--hide KINDS`, `--tool NAME` and
//! `--tool-kind KINDS` select which events reach the output, in every format
//! that shows events (pretty and JSONL).
//!
//! It sits between the session and the sink ([`Filtered`]): the session has
//! observed every event before the filter looks at it, so totals, the summary
//! and the exit status never depend on what is shown. Errors and permission
//! denials are never dropped silently: one that the filter keeps off the
//! output is written to stderr instead, exactly as `-q` writes them. A filter
//! therefore decides what goes into stdout (the data), never what the user
//! learns; `2>/dev/null` is the explicit way to not see them.

pub mod grep;

use std::io;
use std::sync::Arc;

use clap::ValueEnum;

use crate::event::{DeltaKind, Event, EventKind, Level, Role, ToolKind};
use crate::render::sanitize::sanitize_line;
use crate::render::{LineEnd, RunCount, Sink};
use crate::session::Session;

/// A kind of event, as named by `--only` and `--hide`. Every event belongs
/// to one kind, plus `subagents` when a sub-agent produced it; an error
/// result is both `final` and `errors`, a streamed fragment both `deltas`
/// and what it is a fragment of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// Session headers (model, directory, tools).
    Header,
    /// The assistant's text.
    Text,
    /// Text given to the model as the user: prompts, sub-agent prompts (shown with -v).
    Prompts,
    /// Reasoning (shown with -v).
    Thinking,
    /// Tool calls.
    Tools,
    /// Tool results that are not errors; a sub-agent's answer and the user's answer to a question are (others shown with -v).
    Results,
    /// Failed tool calls, API errors, error results.
    Errors,
    /// Permission denials.
    Denials,
    /// Warnings: API retries, failed hooks.
    Warnings,
    /// Other system events: compaction, task notifications, hooks (all of them with -v).
    System,
    /// Token usage per API call (shown with -v).
    Usage,
    /// The result line of each session: outcome, totals, the final text when not shown before.
    Final,
    /// Everything a sub-agent did.
    Subagents,
    /// Streamed fragments (`--include-partial-messages`); each is also of the kind it is part of (text, thinking, tools).
    Deltas,
    /// Plain-text lines and events of unknown type.
    Other,
}

impl Kind {
    /// Every kind, in the order of the documentation.
    pub const ALL: [Kind; 15] = [
        Kind::Header,
        Kind::Text,
        Kind::Prompts,
        Kind::Thinking,
        Kind::Tools,
        Kind::Results,
        Kind::Errors,
        Kind::Denials,
        Kind::Warnings,
        Kind::System,
        Kind::Usage,
        Kind::Final,
        Kind::Subagents,
        Kind::Deltas,
        Kind::Other,
    ];

    /// The name used on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kind::Header => "header",
            Kind::Text => "text",
            Kind::Prompts => "prompts",
            Kind::Thinking => "thinking",
            Kind::Tools => "tools",
            Kind::Results => "results",
            Kind::Errors => "errors",
            Kind::Denials => "denials",
            Kind::Warnings => "warnings",
            Kind::System => "system",
            Kind::Usage => "usage",
            Kind::Final => "final",
            Kind::Subagents => "subagents",
            Kind::Deltas => "deltas",
            Kind::Other => "other",
        }
    }

    /// True for the kinds the pretty format shows only with `-v`: naming one
    /// in `--only` turns `-v` on, or the selection would show nothing.
    #[must_use]
    pub fn needs_verbose(self) -> bool {
        matches!(
            self,
            Kind::Prompts | Kind::Thinking | Kind::Results | Kind::Usage
        )
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of [`Kind`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindSet(u16);

impl KindSet {
    /// The empty set.
    pub const EMPTY: KindSet = KindSet(0);

    /// The set of `kinds`.
    #[must_use]
    pub fn of(kinds: &[Kind]) -> KindSet {
        KindSet(kinds.iter().fold(0, |acc, k| acc | k.bit()))
    }

    /// True when `k` is in the set.
    #[must_use]
    pub fn contains(self, k: Kind) -> bool {
        self.0 & k.bit() != 0
    }

    /// True when the sets share a kind.
    #[must_use]
    pub fn intersects(self, other: KindSet) -> bool {
        self.0 & other.0 != 0
    }

    fn with(self, k: Kind) -> KindSet {
        KindSet(self.0 | k.bit())
    }
}

/// The kinds `ev` belongs to (`s` has observed it).
#[must_use]
pub fn kinds_of(ev: &Event<'_>, s: &Session) -> KindSet {
    let k = match &ev.kind {
        EventKind::SessionStart(_) => Kind::Header,
        EventKind::Text(t) => match t.role {
            Role::Assistant => Kind::Text,
            Role::User => Kind::Prompts,
        },
        EventKind::Thinking(_) => Kind::Thinking,
        EventKind::ToolCall(_) => Kind::Tools,
        EventKind::ToolResult(r) if r.denied => Kind::Denials,
        EventKind::ToolResult(r) if r.is_error => Kind::Errors,
        EventKind::ToolResult(_) => Kind::Results,
        EventKind::PermissionDenied(_) => Kind::Denials,
        EventKind::Usage(_) => Kind::Usage,
        EventKind::Notice(n) => match n.level {
            Level::Error => Kind::Errors,
            Level::Warning => Kind::Warnings,
            Level::Info | Level::Debug => Kind::System,
        },
        EventKind::Result(_) => Kind::Final,
        EventKind::Delta(_) => Kind::Deltas,
        EventKind::PlainText(_) | EventKind::Unknown(_) => Kind::Other,
    };
    let mut set = KindSet::of(&[k]);
    match &ev.kind {
        EventKind::Result(r) if r.is_error => set = set.with(Kind::Errors),
        // A fragment is part of what it streams: the pretty format prints
        // text fragments as they come, so `--hide text` must hide them too.
        EventKind::Delta(d) => {
            set = set.with(match d.kind {
                DeltaKind::Text => Kind::Text,
                DeltaKind::Thinking => Kind::Thinking,
                DeltaKind::ToolInput | DeltaKind::ToolStart => Kind::Tools,
            });
        }
        _ => {}
    }
    if s.note().depth > 0 {
        set = set.with(Kind::Subagents);
    }
    set
}

/// True for the events streamview never hides: failed tool calls, permission
/// denials (the first report of each), error notices, error results, a
/// header with a failed MCP server or one that closes a session that ended
/// without a result. These are the events the pretty format sends to stderr
/// in quiet mode.
#[must_use]
pub fn is_alert(ev: &Event<'_>, s: &Session) -> bool {
    let note = s.note();
    match &ev.kind {
        EventKind::SessionStart(st) => {
            (note.new_session && note.previous_incomplete)
                || st.mcp_servers.iter().any(|m| m.status == "failed")
        }
        EventKind::ToolResult(r) => r.is_error && !r.denied,
        EventKind::PermissionDenied(_) => !note.duplicate,
        EventKind::Notice(n) => n.level == Level::Error,
        EventKind::Result(r) => r.is_error,
        _ => false,
    }
}

/// `--tool-kind` names the kinds of tools as JSONL's `tool_kind` does.
impl ValueEnum for ToolKind {
    fn value_variants<'a>() -> &'a [Self] {
        &ToolKind::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.describe()))
    }
}

/// A shell-style pattern for tool names: `*` matches any run of characters
/// (also none), `?` exactly one; everything else matches itself, case
/// included. `mcp__*` selects every MCP tool, `mcp__github__*` one server's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    pattern: Vec<char>,
    /// The pattern as given, to name it in a message.
    text: String,
}

impl Glob {
    /// Compile `pattern`.
    #[must_use]
    pub fn new(pattern: &str) -> Glob {
        Glob {
            pattern: pattern.chars().collect(),
            text: pattern.to_string(),
        }
    }

    /// True when the tool `name` matches, or the form the output shows it
    /// in: an MCP tool `mcp__server__tool` as `server/tool`.
    #[must_use]
    pub fn matches_tool(&self, name: &str) -> bool {
        if self.matches(name) {
            return true;
        }
        let Some((server, tool)) = name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
        else {
            return false;
        };
        // `server/tool`, composed on the stack (no allocation per event).
        let mut buf = [0u8; 256];
        let len = server.len() + 1 + tool.len();
        if len > buf.len() {
            return false;
        }
        buf[..server.len()].copy_from_slice(server.as_bytes());
        buf[server.len()] = b'/';
        buf[server.len() + 1..len].copy_from_slice(tool.as_bytes());
        std::str::from_utf8(&buf[..len]).is_ok_and(|shown| self.matches(shown))
    }

    /// True when the whole of `name` matches.
    #[must_use]
    pub fn matches(&self, name: &str) -> bool {
        // The classic linear-backtracking wildcard match: on a mismatch,
        // retry from the last `*`, letting it swallow one more character.
        // Only the last `*` ever needs revisiting, so this is O(p·n) at
        // worst and allocation-free.
        let p = &self.pattern;
        let mut pi = 0;
        let mut star: Option<(usize, std::str::CharIndices<'_>)> = None;
        let mut chars = name.char_indices();
        loop {
            let mut rest = chars.clone();
            match rest.next() {
                Some((_, c)) => {
                    if pi < p.len() && p[pi] == '*' {
                        star = Some((pi, chars.clone()));
                        pi += 1;
                    } else if pi < p.len() && (p[pi] == '?' || p[pi] == c) {
                        pi += 1;
                        chars = rest;
                    } else if let Some((spi, mut schars)) = star.take() {
                        // Let the star take one more character.
                        schars.next();
                        star = Some((spi, schars.clone()));
                        pi = spi + 1;
                        chars = schars;
                    } else {
                        return false;
                    }
                }
                None => return p[pi..].iter().all(|&c| c == '*'),
            }
        }
    }
}

/// What `--only`, `--hide`, `--tool` and `--tool-kind` selected.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    only: Option<KindSet>,
    hide: KindSet,
    tools: Vec<Glob>,
    /// The `--tool-kind` kinds, one bit each (`1 << kind`).
    tool_kinds: u16,
}

impl Filter {
    /// Show only `only` (everything when empty), minus `hide`; tool events
    /// only for tools whose name matches one of `tools` (all when empty).
    #[must_use]
    pub fn new(only: &[Kind], hide: &[Kind], tools: &[String]) -> Filter {
        Filter {
            only: (!only.is_empty()).then(|| KindSet::of(only)),
            hide: KindSet::of(hide),
            tools: tools.iter().map(|t| Glob::new(t)).collect(),
            tool_kinds: 0,
        }
    }

    /// Also show the tool events of tools of these kinds (`--tool-kind`):
    /// with `--tool`, a tool event is shown when its name matches or its
    /// kind is one of these.
    #[must_use]
    pub fn with_tool_kinds(mut self, kinds: &[ToolKind]) -> Filter {
        self.tool_kinds = kinds.iter().fold(0, |acc, k| acc | kind_bit(*k));
        self
    }

    /// True when the filter lets every event through.
    #[must_use]
    pub fn is_all(&self) -> bool {
        self.only.is_none()
            && self.hide == KindSet::EMPTY
            && self.tools.is_empty()
            && self.tool_kinds == 0
    }

    /// True when `ev` (observed by `s`) is to be shown.
    #[must_use]
    pub fn shows(&self, ev: &Event<'_>, s: &Session) -> bool {
        let kinds = kinds_of(ev, s);
        if self.only.is_some_and(|only| !only.intersects(kinds)) || self.hide.intersects(kinds) {
            return false;
        }
        if self.tools.is_empty() && self.tool_kinds == 0 {
            return true;
        }
        let note = s.note();
        let (tool, kind) = match &ev.kind {
            EventKind::ToolCall(c) => (Some(c.name.as_ref()), Some(c.kind)),
            EventKind::ToolResult(_) => (note.tool.as_deref(), note.tool_kind),
            EventKind::PermissionDenied(d) => {
                (note.tool.as_deref().or(d.tool.as_deref()), note.tool_kind)
            }
            // A fragment naming a tool that starts: no kind yet.
            EventKind::Delta(d) if d.kind == DeltaKind::ToolStart => (Some(d.text.as_ref()), None),
            // Not a tool event: `--tool` and `--tool-kind` do not apply.
            _ => return true,
        };
        tool.is_some_and(|name| self.tools.iter().any(|g| g.matches_tool(name)))
            || kind.is_some_and(|k| self.tool_kinds & kind_bit(k) != 0)
    }
}

/// Tool names remembered for the message about a `--tool` pattern that
/// matched nothing: enough to see a misspelling, bounded whatever the input.
const MAX_SEEN_TOOLS: usize = 16;

/// Which `--tool` patterns matched a call, and the first tool names seen,
/// to say at the end of the run which pattern matched nothing (a typo
/// would otherwise just show an empty view).
#[derive(Default)]
struct ToolsSeen {
    /// One per pattern of the filter.
    matched: Vec<bool>,
    /// The first [`MAX_SEEN_TOOLS`] distinct names, in order of appearance.
    names: Vec<String>,
    /// More names were seen than kept.
    more: bool,
    /// Errors of calls the filter did not show, per tool, in order of
    /// appearance (the first [`MAX_SEEN_TOOLS`] names; the rest in
    /// `hidden_more`), when they are counted rather than listed.
    hidden: Vec<(Arc<str>, u64)>,
    /// Hidden errors of tools beyond those named in `hidden`.
    hidden_more: u64,
}

impl ToolsSeen {
    /// A call of `name` was seen. Once every pattern has matched there is
    /// nothing left to learn; otherwise a name already kept costs a scan of
    /// at most [`MAX_SEEN_TOOLS`] names and no allocation.
    fn call(&mut self, name: &str, tools: &[Glob]) {
        if self.matched.iter().all(|m| *m) {
            return;
        }
        for (m, g) in self.matched.iter_mut().zip(tools) {
            *m = *m || g.matches_tool(name);
        }
        if self.names.iter().any(|n| n == name) {
            return;
        }
        if self.names.len() < MAX_SEEN_TOOLS {
            self.names.push(name.to_string());
        } else {
            self.more = true;
        }
    }

    /// Add what a run that read after this one saw: as if it had seen
    /// its calls itself (once every pattern matched, which names were
    /// kept no longer matters: nothing is reported).
    fn merge(&mut self, other: &ToolsSeen) {
        for (m, o) in self.matched.iter_mut().zip(&other.matched) {
            *m |= *o;
        }
        for name in &other.names {
            if self.names.contains(name) {
                continue;
            }
            if self.names.len() < MAX_SEEN_TOOLS {
                self.names.push(name.clone());
            } else {
                self.more = true;
            }
        }
        self.more |= other.more;
        for (name, n) in &other.hidden {
            self.hidden_error(name, *n);
        }
        self.hidden_more += other.hidden_more;
    }

    /// `n` errors of calls of `name` were not shown.
    fn hidden_error(&mut self, name: &Arc<str>, n: u64) {
        if let Some((_, count)) = self.hidden.iter_mut().find(|(x, _)| x == name) {
            *count += n;
        } else if self.hidden.len() < MAX_SEEN_TOOLS {
            self.hidden.push((Arc::clone(name), n));
        } else {
            self.hidden_more += n;
        }
    }

    /// One line for the errors of the calls not shown: `✗ 9 errors of
    /// calls not shown (Read 3, Edit 2, …); --errors stderr lists them`.
    fn report_hidden(&self, w: &mut dyn io::Write) -> io::Result<()> {
        let total = self.hidden.iter().map(|(_, n)| n).sum::<u64>() + self.hidden_more;
        if total == 0 {
            return Ok(());
        }
        let mut by_count: Vec<&(Arc<str>, u64)> = self.hidden.iter().collect();
        // Most first; of equal counts, the first seen.
        by_count.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let plural = if total == 1 {
            "error of a call"
        } else {
            "errors of calls"
        };
        write!(w, "\u{2717} {total} {plural} not shown (")?;
        for (i, (name, n)) in by_count.iter().take(HIDDEN_NAMED).enumerate() {
            if i > 0 {
                w.write_all(b", ")?;
            }
            write!(w, "{} {n}", sanitize_line(name))?;
        }
        if by_count.len() > HIDDEN_NAMED || self.hidden_more > 0 {
            w.write_all(", \u{2026}".as_bytes())?;
        }
        writeln!(w, "); --errors stderr lists them")?;
        w.flush()
    }

    /// One line per pattern that matched no call:
    /// `streamview: --tool 'x' matched no tool call (tools seen: Bash, Read)`.
    fn report(&self, tools: &[Glob], w: &mut dyn io::Write) -> io::Result<()> {
        for (g, _) in tools.iter().zip(&self.matched).filter(|(_, m)| !**m) {
            let pattern = sanitize_line(&g.text);
            write!(w, "streamview: --tool '{pattern}' matched no tool call")?;
            if self.names.is_empty() {
                writeln!(w, " (no tool was called)")?;
                continue;
            }
            w.write_all(b" (tools seen: ")?;
            for (i, n) in self.names.iter().enumerate() {
                if i > 0 {
                    w.write_all(b", ")?;
                }
                w.write_all(sanitize_line(n).as_bytes())?;
            }
            if self.more {
                w.write_all(", \u{2026}".as_bytes())?;
            }
            w.write_all(b")\n")?;
        }
        w.flush()
    }
}

/// The tools the line about hidden errors names, most errors first.
const HIDDEN_NAMED: usize = 5;

fn kind_bit(k: ToolKind) -> u16 {
    1 << (k as u16)
}

/// A sink behind the filter: selected events go to `inner`; alerts the filter
/// hides go to `alerts` (a quiet pretty sink over stderr), so that no error
/// or denial disappears unannounced.
pub struct Filtered<S: Sink, A: Sink> {
    inner: S,
    alerts: A,
    filter: Filter,
    seen: ToolsSeen,
    /// Where a `--tool` pattern that matched nothing is reported (stderr).
    notes: Box<dyn io::Write>,
    /// The errors of calls not shown are counted, and said in one line at
    /// the end, rather than each written to `alerts`.
    count_hidden: bool,
}

impl<S: Sink, A: Sink> Filtered<S, A> {
    /// `inner` behind `filter`, hidden alerts to `alerts`.
    pub fn new(inner: S, alerts: A, filter: Filter) -> Self {
        Filtered {
            inner,
            alerts,
            seen: ToolsSeen {
                matched: vec![false; filter.tools.len()],
                ..ToolsSeen::default()
            },
            filter,
            notes: Box::new(io::sink()),
            count_hidden: false,
        }
    }

    /// Count the errors of the calls not shown, and say them in one line
    /// at the end (`on`), rather than write each to the alerts.
    #[must_use]
    pub fn counting_hidden_errors(mut self, on: bool) -> Self {
        self.count_hidden = on;
        self
    }

    /// Say at the end of the run, on `notes`, which `--tool` pattern
    /// matched no tool call.
    #[must_use]
    pub fn with_notes(mut self, notes: Box<dyn io::Write>) -> Self {
        self.notes = notes;
        self
    }

    /// Give back the sinks.
    pub fn into_inner(self) -> (S, A) {
        (self.inner, self.alerts)
    }
}

impl<S: Sink, A: Sink> Sink for Filtered<S, A> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        if let EventKind::ToolCall(c) = &ev.kind {
            self.seen.call(&c.name, &self.filter.tools);
        }
        if self.filter.shows(ev, s) {
            return self.inner.event(ev, s);
        }
        if let EventKind::ToolResult(r) = &ev.kind
            && self.count_hidden
            && r.is_error
            && !r.denied
        {
            let name = s
                .call(&r.id)
                .map_or_else(|| Arc::from("?"), |c| Arc::clone(&c.name));
            self.seen.hidden_error(&name, 1);
            return Ok(());
        }
        if is_alert(ev, s) {
            // stdout first, so the two streams stay in order on a terminal.
            self.inner.flush()?;
            self.alerts.event(ev, s)?;
        }
        Ok(())
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        // The alerts' end (a failed result) is held until flushed; the
        // rest of their finish (an incomplete session) `inner` says.
        self.alerts.flush()?;
        self.inner.finish(s)?;
        // Errors writing to stderr are not worth dying for.
        let _ = self.seen.report(&self.filter.tools, &mut *self.notes);
        let _ = self.seen.report_hidden(&mut *self.notes);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.alerts.flush()?;
        self.inner.flush()
    }

    fn line_end(&self) -> LineEnd {
        self.inner.line_end()
    }

    fn end_line(&mut self) -> io::Result<()> {
        self.inner.end_line()
    }

    fn input_end(&mut self, s: &Session) -> io::Result<()> {
        // The view says how the session ended; the alerts write a failed
        // end they held (it must not take the next file's results in).
        self.inner.input_end(s)?;
        self.alerts.input_end(s)
    }

    fn ended_elsewhere(&mut self) {
        self.inner.ended_elsewhere();
        self.alerts.ended_elsewhere();
    }

    fn take_count(&mut self) -> Option<RunCount> {
        Some(Box::new(std::mem::take(&mut self.seen)))
    }

    fn add_count(&mut self, count: RunCount) {
        if let Ok(seen) = count.downcast::<ToolsSeen>() {
            self.seen.merge(&seen);
        }
    }
}

#[cfg(test)]
mod tests;
