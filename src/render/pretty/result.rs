//! How a session ended: its result line (outcome, turns, time, cost,
//! tokens) fitted to the width, an incomplete session, the count of unfinished.

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::io;

use termcolor::WriteColor;

use crate::event::{SessionResult, Tokens};
use crate::render::lines::{Lines, Style};
use crate::render::sanitize::sanitize;
use crate::render::{fmt_cost, fmt_count, fmt_duration, shown_key};
use crate::session::{Cost, Outcome, Session};

use super::end::Part;
use super::{Pretty, To, Verbosity, text_hash};

/// `✓ done · …` or `✗ session failed (why) · …`, and the reasons of a
/// failure under it.
pub(super) fn end_line(
    l: &mut Lines,
    r: &SessionResult<'_>,
    reasons: &[String],
    verbosity: Verbosity,
    s: &Session,
    cols: Option<usize>,
) {
    if r.is_error {
        l.push(Style::Error, "✗ ");
        l.push(Style::Error, "session failed");
        if let Some(st) = r.api_error_status {
            l.fmt(Style::Error, format_args!(" (API error {st})"));
        } else if let Some(sub) = r.subtype.as_deref().filter(|s| {
            // These say nothing about why (a result rebuilt at the end
            // of the input is not a failure *because* the input ended).
            !matches!(*s, "success" | "error" | "end_of_input" | "transcript_end")
        }) {
            l.push(Style::Error, " (");
            l.sanitized(Style::Error, sub);
            l.push(Style::Error, ")");
        }
    } else {
        l.push(Style::Ok, "✓ ");
        l.push(Style::Ok, "done");
    }
    // No cost reported: the session's, estimated from the price table.
    let estimate = (r.cost_usd.is_none())
        .then(|| s.current().map(|c| c.cost(s.prices())))
        .flatten()
        .filter(|c| c.estimated);
    let stats = Stats {
        estimate,
        verbose: verbosity == Verbosity::Verbose,
        whole: with_agents(r, s),
        shed: 0,
    };
    fit(l, cols, |l, shed| {
        result_stats(l, r, &Stats { shed, ..stats });
    });
    l.end(0);
    for m in reasons {
        l.push(Style::Error, "  ⎿ ");
        l.one_line(Style::Error, m, 500);
        l.end(0);
    }
}

/// The session's results added up: turns and durations summed (each
/// result reports its own turn's), the last cost (each reports the
/// session's so far), the worst outcome.
pub(super) fn session_totals(s: &Session) -> SessionResult<'static> {
    let Some(cur) = s.current() else {
        return SessionResult::default();
    };
    SessionResult {
        is_error: cur.outcome == Some(Outcome::Error),
        num_turns: cur.total_turns,
        duration_ms: cur.total_duration_ms,
        cost_usd: cur.cost_usd,
        tokens: cur.total_result_tokens,
        ..SessionResult::default()
    }
}

/// What an end line says besides the result's own numbers.
#[derive(Clone, Copy)]
pub(super) struct Stats {
    /// The session's cost estimated, when none was reported.
    pub(super) estimate: Option<Cost>,
    pub(super) verbose: bool,
    /// The whole session's tokens, sub-agents' included, when sub-agents
    /// ran (the result's are the main agent's: [`with_agents`]).
    pub(super) whole: Option<Tokens>,
    /// How many of the parts that matter least are left out, to fit a
    /// narrow terminal: the cache share, the turns, the duration.
    pub(super) shed: usize,
}

impl Stats {
    /// The numbers of the result alone, all of them.
    pub(super) const PLAIN: Stats = Stats {
        estimate: None,
        verbose: false,
        whole: None,
        shed: 0,
    };
}

/// The rest of a line composed by `compose` given how many parts it
/// leaves out ([`Stats::shed`]): on a terminal `cols` wide, what matters
/// least goes first until the line fits (what is left wraps between words).
pub(super) fn fit(l: &mut Lines, cols: Option<usize>, mut compose: impl FnMut(&mut Lines, usize)) {
    let mark = l.mark();
    for shed in 0..=SHED {
        l.truncate(mark);
        compose(l, shed);
        if cols.is_none_or(|c| l.open_width() <= c) {
            break;
        }
    }
}

/// Parts an end line can leave out ([`Stats::shed`]).
pub(super) const SHED: usize = 3;

/// The session's tokens with its sub-agents', when sub-agents ran and the
/// result counts other tokens (Claude Code's result counts the main
/// agent's; the session's totals, as the summary shows them, every agent's).
pub(super) fn with_agents(r: &SessionResult<'_>, s: &Session) -> Option<Tokens> {
    let cur = s.current()?;
    let ran = (&cur.tools)
        .into_iter()
        .any(|t| t.kind == crate::event::ToolKind::Agent);
    let whole = cur.tokens();
    (ran && !r.tokens.is_empty() && !whole.is_empty() && whole != r.tokens).then_some(whole)
}

/// ` · 3 turns · 1.2s · $0.05 · 3.7k in / 166 out`: what a result line
/// says after its outcome, as one span.
pub(super) fn result_stats(l: &mut Lines, r: &SessionResult<'_>, stats: &Stats) {
    let t = l.text();
    if let Some(n) = r.num_turns.filter(|_| stats.shed < 2) {
        let _ = write!(t, " · {}", Counted(n, "turn", "turns"));
    }
    if let Some(ms) = r.duration_ms.filter(|_| stats.shed < 3) {
        t.push_str(" · ");
        fmt_duration(t, ms);
        if let (true, Some(api)) = (stats.verbose, r.duration_api_ms) {
            t.push_str(" (API ");
            fmt_duration(t, api);
            t.push(')');
        }
    }
    // The cost in a span of its own (a theme's `cost`): reported, else
    // estimated (`~`), from part of the session (`≥ ~`).
    let cost = match (r.cost_usd, stats.estimate) {
        (Some(c), _) => Some(("", c)),
        (
            None,
            Some(Cost {
                usd: Some(c),
                partial,
                ..
            }),
        ) => Some((if partial { "≥ ~" } else { "~" }, c)),
        _ => None,
    };
    if let Some((mark, c)) = cost {
        t.push_str(" · ");
        l.close(Style::Plain);
        l.text().push_str(mark);
        fmt_cost(l.text(), c);
        l.close(Style::Cost);
    }
    let t = l.text();
    if !r.tokens.is_empty() {
        t.push_str(" · ");
        if stats.whole.is_some() {
            t.push_str("main ");
        }
        let at = t.len();
        fmt_in_out(t, at, &r.tokens);
        if let Some(whole) = &stats.whole {
            t.push_str(" · with sub-agents ");
            fmt_count(t, whole.total_input());
            if let Some(o) = whole.output {
                t.push_str(" / ");
                fmt_count(t, o);
            }
        }
        if stats.shed < 1 {
            fmt_cache_share(t, &r.tokens);
        }
    }
    l.close(Style::Plain);
}

/// The verbose lines under a result: usage per model, why it stopped.
pub(super) fn result_details(l: &mut Lines, r: &SessionResult<'_>, s: &Session) {
    for m in &r.model_usage {
        l.push(Style::Dim, "  ");
        l.sanitized(Style::Dim, &m.model);
        let t = l.text();
        t.push_str(": ");
        let at = t.len();
        fmt_tokens(t, at, &m.tokens);
        if let Some(c) = m.cost_usd {
            t.push_str(" · ");
            fmt_cost(t, c);
        }
        l.close(Style::Dim);
        l.end(0);
    }
    let id = s.current().and_then(|c| c.id.as_deref());
    let why = [
        ("stop reason ", r.stop_reason.as_deref()),
        ("terminal reason ", r.terminal_reason.as_deref()),
        ("session ", id),
    ];
    if why.iter().any(|(_, v)| v.is_some()) {
        l.push(Style::Dim, "  ");
        let mut first = true;
        for (label, v) in why {
            if let Some(v) = v {
                if !first {
                    l.push(Style::Dim, " · ");
                }
                first = false;
                l.push(Style::Dim, label);
                l.sanitized(Style::Dim, v);
            }
        }
        l.end(0);
    }
}

/// `r` with its turns as the session counted them, where it could
/// ([`Note::turns`](crate::session::Note)).
pub(super) fn counted_turns<'r, 'a>(
    r: &'r SessionResult<'a>,
    s: &Session,
) -> Cow<'r, SessionResult<'a>> {
    match s.note().turns {
        Some(t) if r.num_turns != Some(t) => Cow::Owned(SessionResult {
            num_turns: Some(t),
            ..r.clone()
        }),
        _ => Cow::Borrowed(r),
    }
}

/// `3.7k in / 166 out · cache read 40%`, appended to `out`, whose text from
/// `from` on is this span's.
pub(super) fn fmt_tokens(out: &mut String, from: usize, t: &Tokens) {
    fmt_in_out(out, from, t);
    fmt_cache_share(out, t);
}

/// ` · cache read 40%`, when `t` says it.
pub(super) fn fmt_cache_share(out: &mut String, t: &Tokens) {
    if let Some(share) = t.cache_read_share() {
        let _ = write!(out, " · cache read {share:.0}%");
    }
}

/// `3.7k in / 166 out`, appended to `out`, whose text from `from` on is
/// this span's.
pub(super) fn fmt_in_out(out: &mut String, from: usize, t: &Tokens) {
    if t.input.is_some() || t.cache_read.is_some() || t.cache_creation.is_some() {
        fmt_count(out, t.total_input());
        out.push_str(" in");
    }
    if let Some(o) = t.output {
        if !out.ends_with(' ') && out.len() > from && !out.ends_with(": ") {
            out.push_str(" / ");
        }
        fmt_count(out, o);
        out.push_str(" out");
    }
}

/// Calls listed one by one as never answered or interrupted; the rest are
/// counted.
pub(super) const MAX_LISTED: usize = 50;

/// `1 tool`, `3 tools`.
pub(super) struct Counted(u64, &'static str, &'static str);

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Counted(n, one, many) = *self;
        write!(f, "{n} {}", if n == 1 { one } else { many })
    }
}

/// A span of [`Counted`].
pub(super) fn plural(l: &mut Lines, style: Style, n: u64, one: &'static str, many: &'static str) {
    l.fmt(style, format_args!("{}", Counted(n, one, many)));
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    pub(super) fn result(&mut self, r: &SessionResult<'_>, s: &Session) -> io::Result<()> {
        let r = &*counted_turns(r, s);
        let repeat = r.is_error
            || r.text
                .as_deref()
                .is_none_or(|t| t.trim().is_empty() || self.shown_texts.contains(&text_hash(t)));
        if !repeat && let Some(t) = r.text.as_deref() {
            // The result repeats the last text; show it only when it was not shown.
            let l = self.compose();
            for line in sanitize(t).trim_matches('\n').lines() {
                l.push(Style::Plain, line);
                l.end(0);
            }
            self.emit(To::Out)?;
        }
        // The reasons of a failure, unless the API error notice just said it.
        let reasons = r.text.as_deref().filter(|_| r.is_error).into_iter();
        let errors = r.errors.iter().map(AsRef::as_ref).filter(|_| r.is_error);
        let reasons = reasons
            .chain(errors)
            .filter(|m| !m.trim().is_empty() && self.last_error != Some(text_hash(m)))
            .map(str::to_string)
            .collect();
        let part = Part::of(r, reasons);
        let verbose = self.verbose();
        let cols = self.cols();
        self.lines.clear();
        let l = &mut self.lines;
        let n = self.end.count();
        // The end was written, and nothing since: this part goes under it.
        let under =
            n > 0 && self.end.last && !self.end.is_held() && (self.end.failed || !r.is_error);
        match n {
            0 => {
                end_line(l, r, &part.reasons, self.opts.verbosity, s, cols);
                self.end.failed = r.is_error;
            }
            _ if under => part.write(l, n, cols),
            _ => {}
        }
        self.end.push(part);
        if n > 0 && !under {
            let no_reasons: &[String] = &[];
            let totals = session_totals(s);
            end_line(l, &totals, no_reasons, self.opts.verbosity, s, cols);
            self.end.failed = totals.is_error;
            self.end.write_parts(l, cols);
        }
        let unanswered = &s.note().unanswered;
        for (name, kind, key) in unanswered.iter().take(MAX_LISTED) {
            l.push(Style::Warn, "  ⎿ never answered: ");
            l.tool_name(Style::Warn, name);
            if let Some(k) = key.as_deref().map(|k| shown_key(k, *kind, s.cwd())) {
                l.push(Style::Warn, " ");
                l.one_line(Style::Warn, k, 80);
            }
            l.end(0);
        }
        let more =
            unanswered.len().saturating_sub(MAX_LISTED) as u64 + s.note().unanswered_forgotten;
        if more > 0 {
            l.fmt(
                Style::Warn,
                format_args!(
                    "  ⎿ … and {} never answered",
                    Counted(more, "more call", "more calls")
                ),
            );
            l.end(0);
        }
        if verbose {
            result_details(l, r, s);
        }
        let to = if r.is_error { To::Alert } else { To::Out };
        self.end.hold(&mut self.lines, to);
        if s.note().more_results {
            // Turns that began are still to report: their results join
            // this end.
            return Ok(());
        }
        self.write_end()
    }

    /// Write the end held (see [`end`](super::end)).
    pub(super) fn write_end(&mut self) -> io::Result<()> {
        let Some(to) = self.end.to.take() else {
            return Ok(());
        };
        std::mem::swap(&mut self.lines, &mut self.end.lines);
        self.emit(to)?;
        self.end.last = true;
        Ok(())
    }

    pub(super) fn incomplete(&mut self, s: &Session) -> io::Result<()> {
        let head = if s.is_interrupted() {
            "✗ interrupted (Ctrl-C) before a result"
        } else {
            "✗ stream ended without a result"
        };
        let l = self.compose();
        l.push(Style::Error, head);
        l.end(0);
        // Once, at the end: the calls in a stable order.
        let mut open: Vec<_> = s.unanswered_calls().collect();
        open.sort_by(|a, b| a.0.cmp(b.0));
        let more = open.len().saturating_sub(MAX_LISTED);
        // Paths as the calls' lines showed them: relative to the session's
        // folder (closed by now, at the end of the input).
        let cwd = (s.cwd()).or_else(|| s.last_finished().and_then(|x| x.cwd.as_deref()));
        for (_, c) in open.into_iter().take(MAX_LISTED) {
            l.push(Style::Warn, "  interrupted: ");
            l.tool_name(Style::Warn, &c.name);
            if let Some(k) = c.key_arg.as_deref().map(|k| shown_key(k, c.kind, cwd)) {
                l.push(Style::Warn, " ");
                l.one_line(Style::Warn, k, 80);
            }
            l.end(0);
        }
        let more = more as u64 + s.current().map_or(0, |c| c.forgotten_calls);
        if more > 0 {
            l.fmt(
                Style::Warn,
                format_args!(
                    "  … and {} interrupted",
                    Counted(more, "more call", "more calls")
                ),
            );
            l.end(0);
        }
        if let Some(cur) = s.current() {
            let t = l.text();
            let from = t.len();
            t.push_str("  so far: ");
            let stats = t.len();
            let sep = |t: &mut String| {
                if t.len() > stats {
                    t.push_str(" · ");
                }
            };
            if cur.messages > 0 {
                let _ = write!(
                    t,
                    "{}",
                    Counted(cur.messages, "API response", "API responses")
                );
            }
            if cur.tool_calls > 0 {
                sep(t);
                let _ = write!(t, "{}", Counted(cur.tool_calls, "tool call", "tool calls"));
            }
            if !cur.message_tokens.is_empty() {
                sep(t);
                // Output counts before the result are preliminary: input only.
                let tokens = Tokens {
                    output: None,
                    ..cur.message_tokens
                };
                let at = t.len();
                fmt_tokens(t, at, &tokens);
            }
            if t.len() > stats {
                l.close(Style::Dim);
                l.end(0);
            } else {
                t.truncate(from);
            }
        }
        self.emit(To::Alert)
    }

    /// A report's one line on stderr for the sessions that failed or did
    /// not end ([`Alerts::Counted`](super::Alerts::Counted)).
    pub(super) fn count_unfinished(&mut self, s: &Session) -> io::Result<()> {
        let o = s.outcomes();
        if o.error + o.incomplete == 0 {
            return Ok(());
        }
        let l = self.compose();
        l.push(Style::Error, "✗ ");
        if o.error > 0 {
            plural(
                l,
                Style::Error,
                o.error,
                "session failed",
                "sessions failed",
            );
        }
        // One failure: why, in a few words.
        let why = (o.error == 1)
            .then(|| s.sessions().find(|x| x.outcome == Some(Outcome::Error)))
            .flatten()
            .and_then(|x| x.error.as_deref())
            .map(|why| why.trim_end().trim_end_matches('.'));
        if let Some(why) = why {
            l.push(Style::Error, ": ");
            l.one_line(Style::Error, why, 80);
        }
        match (o.error, o.incomplete) {
            (_, 0) => {}
            (0, n) => plural(
                l,
                Style::Error,
                n,
                "session incomplete",
                "sessions incomplete",
            ),
            (_, n) => l.push(Style::Error, &format!(", {n} incomplete")),
        }
        l.push(Style::Dim, "; --errors stderr lists them");
        l.end(0);
        self.out.flush()?;
        let _ = self.lines.write(&mut self.err, &self.st, 0);
        let _ = self.err.flush();
        Ok(())
    }

    pub(super) fn incomplete_previous(&mut self) -> io::Result<()> {
        self.compose()
            .push(Style::Error, "✗ previous session ended without a result");
        self.lines.end(0);
        self.emit(To::Alert)
    }
}
