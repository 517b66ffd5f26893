//! A tool call's line with its key argument, its result (or its failure,
//! with the output), a long-running mark and a permission denial.

use std::io;
use std::time::Duration;

use termcolor::WriteColor;

use crate::event::{Denial, ToolCall, ToolResult};
use crate::render::lines::Style;
use crate::render::{fmt_duration, shown_key};
use crate::session::Session;

use super::texts::body;
use super::{Alerts, Pretty, To, text_hash};

/// A tool whose result arrives this many seconds after its call is marked.
pub(super) const LONG_RUNNING_SECS: u64 = 10;

/// A call as its result's line names it: the tool, its key argument, the
/// time it took.
pub(super) type Call<'a> = (&'a str, Option<&'a str>, Option<Duration>);

/// A call's duration by arrival time, in milliseconds, when it is at least
/// `min_secs` (a replayed log arrives all at once: its durations mean
/// nothing).
pub(super) fn took(elapsed: Option<Duration>, min_secs: u64) -> Option<u64> {
    let d = elapsed.filter(|d| d.as_secs() >= min_secs)?;
    Some(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Longest key argument shown on a tool line, in characters.
pub(super) const MAX_KEY_CHARS: usize = 200;

/// Longest compact-JSON input shown for tools without a key argument.
pub(super) const MAX_INPUT_CHARS: usize = 120;

/// Claude wraps validation errors in `<tool_use_error>…</tool_use_error>`.
pub(super) fn strip_tool_error(s: &str) -> &str {
    let t = s.trim();
    t.strip_prefix("<tool_use_error>")
        .and_then(|x| x.strip_suffix("</tool_use_error>"))
        .unwrap_or(t)
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    pub(super) fn tool_call(
        &mut self,
        c: &ToolCall<'_>,
        s: &Session,
        depth: usize,
    ) -> io::Result<()> {
        self.last_call = Some(text_hash(&c.id));
        let key = c.key_arg.as_deref().map(|k| shown_key(k, c.kind, s.cwd()));
        // Counted only when the call changes files: the default view pays
        // for the `+12 −3`, `-v` for the diff.
        let stat = crate::render::diff::stat(&c.changes);
        let verbose = self.verbose();
        let l = self.compose();
        l.push(Style::Tool, "▸ ");
        l.tool_name(Style::Tool, &c.name);
        match key {
            Some(k) if !k.is_empty() => {
                l.push(Style::Plain, " ");
                l.one_line(Style::Key, k, MAX_KEY_CHARS);
            }
            _ if c.todos.is_empty() && c.questions.is_empty() => {
                let input = c.input.text();
                if input.len() > 2 {
                    l.push(Style::Dim, " ");
                    l.one_line(Style::Dim, &input, MAX_INPUT_CHARS);
                }
            }
            _ => {}
        }
        // With `-v`, a result that reports the changes made counts them
        // (`⎿ +3 −3`): the call's line does not say another number.
        if let Some(stat) = stat.filter(|_| !(verbose && c.changes_in_result)) {
            super::edits::stat(l, stat);
        }
        // A long command wraps under itself, after `▸ `.
        l.end_hanging(depth, 2);
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
            l.fmt(style, format_args!("    {mark} "));
            l.one_line(style, &t.content, MAX_KEY_CHARS);
            l.end(depth);
        }
        for q in &c.questions {
            l.push(Style::Plain, "    ? ");
            l.one_line(Style::Plain, &q.question, MAX_KEY_CHARS);
            l.end(depth);
            for o in &q.options {
                l.push(Style::Dim, "      - ");
                l.one_line(Style::Dim, o, MAX_KEY_CHARS);
                l.end(depth);
            }
        }
        // A result that reports the changes made shows their diff instead.
        if self.verbose() && stat.is_some() && !c.changes_in_result {
            let max_lines = self.opts.max_lines;
            super::edits::diff(
                &mut self.lines,
                &mut self.differ,
                &c.changes,
                max_lines,
                depth,
            );
        }
        // Its start was shown (`▸ Name`) and nothing came in between: finish
        // that line.
        if self.tool_started(depth) && self.stream.as_ref().is_some_and(|st| st.seen.is(&c.name)) {
            self.drop_stream();
            // The spans after `▸ ` and the name.
            let head = self.lines.spans_of(0).min(2);
            self.lines.write_rest_of(&mut self.out, &self.st, 0, head)?;
            let cols = self.cols();
            self.lines.write_wrapped(&mut self.out, &self.st, 1, cols)?;
            return self.write_held();
        }
        self.emit(To::Out)
    }

    pub(super) fn tool_result(
        &mut self,
        r: &ToolResult<'_>,
        s: &Session,
        depth: usize,
    ) -> io::Result<()> {
        let note = s.note();
        let tool = note.tool.as_deref().unwrap_or("tool");
        let key = (note.key_arg.as_deref())
            .map(|k| shown_key(k, note.tool_kind.unwrap_or_default(), s.cwd()));
        if note.denied {
            // A denial: its `⊘` line was shown, or the permission_denied
            // event that follows says it better.
            return Ok(());
        }
        if r.is_error && !matches!(self.alerts, Alerts::All) {
            self.unshown_errors += 1;
            return Ok(());
        }
        let call = (tool, key, note.elapsed);
        if r.is_error {
            return self.failed_result(r, call, depth);
        }
        if !r.answers.is_empty() {
            return self.answers(r, depth);
        }
        let agent = crate::event::is_subagent_tool(tool);
        if agent || self.verbose() {
            return self.shown_result(r, call, agent, depth);
        }
        // Successful results are not shown by default, but a long-running
        // tool is worth a mark.
        match took(note.elapsed, LONG_RUNNING_SECS) {
            Some(ms) => self.long_running(ms, tool, key, depth),
            None => Ok(()),
        }
    }

    /// A failed call's `✗` line and its error text, an alert.
    pub(super) fn failed_result(
        &mut self,
        r: &ToolResult<'_>,
        call: Call<'_>,
        depth: usize,
    ) -> io::Result<()> {
        let (tool, key, elapsed) = call;
        let max_lines = self.opts.max_lines;
        let text = strip_tool_error(r.content.text_with(&mut self.scratch));
        self.lines.clear();
        let l = &mut self.lines;
        l.push(Style::Error, "✗ ");
        l.tool_name(Style::Error, tool);
        if let Some(k) = key {
            l.push(Style::Plain, " ");
            l.one_line(Style::Key, k, 80);
        }
        l.push(Style::Error, " failed");
        if let Some(ms) = took(elapsed, 1) {
            l.push(Style::Dim, " after ");
            fmt_duration(l.text(), ms);
            l.close(Style::Dim);
        }
        l.end(depth);
        body(l, text, Style::Error, max_lines, depth);
        self.last_error = Some(text_hash(text));
        self.emit(To::Alert)
    }

    /// The human's answers to the call's questions: shown by default, like
    /// a prompt (they replace the result's text, which only repeats them).
    pub(super) fn answers(&mut self, r: &ToolResult<'_>, depth: usize) -> io::Result<()> {
        self.last_call = None;
        let l = self.compose();
        for a in &r.answers {
            l.push(Style::Dim, "› ");
            l.one_line(Style::Dim, &a.question, MAX_KEY_CHARS);
            l.push(Style::Dim, " → ");
            l.one_line(Style::Plain, &a.answer, MAX_KEY_CHARS);
            l.end(depth);
        }
        self.emit(To::Out)
    }

    /// A result shown: a sub-agent's answer (only here, so shown by
    /// default), or any result with `-v`.
    pub(super) fn shown_result(
        &mut self,
        r: &ToolResult<'_>,
        call: Call<'_>,
        agent: bool,
        depth: usize,
    ) -> io::Result<()> {
        let (tool, key, elapsed) = call;
        let max_lines = self.opts.max_lines;
        let mut text = r.content.text_with(&mut self.scratch);
        self.lines.clear();
        let l = &mut self.lines;
        // A result that does not follow its own call's line (calls
        // made in parallel) says which call it answers.
        let follows_call = std::mem::take(&mut self.last_call) == Some(text_hash(&r.id));
        if !agent && !follows_call {
            l.push(Style::Dim, "◂ ");
            l.tool_name(Style::Dim, tool);
            if let Some(k) = key {
                l.push(Style::Dim, " ");
                l.one_line(Style::Dim, k, 80);
            }
            l.end(depth);
        }
        if agent {
            text = crate::render::agent_answer(text);
            l.push(Style::Tool, "◂ ");
            l.tool_name(Style::Tool, tool);
            if let Some(k) = key {
                l.push(Style::Plain, " ");
                l.one_line(Style::Key, k, 80);
            }
            l.end(depth);
        }
        let head = l.count();
        if agent && self.agent_texts.contains(&text_hash(text.trim())) {
            // The sub-agent's report, shown in its block just above.
            l.push(Style::Dim, "  ⎿ (its report, above)");
            l.end(depth);
        } else if r.changes.is_empty() {
            body(l, text, Style::Result, max_lines, depth);
        } else {
            // What was done, counted (the call's line counts what was
            // asked), and its diff: they say more than its message.
            if let Some(stat) = crate::render::diff::stat(&r.changes) {
                l.push(Style::Dim, "  ⎿");
                super::edits::stat(l, stat);
                l.end(depth);
            }
            super::edits::diff(l, &mut self.differ, &r.changes, max_lines, depth);
        }
        if l.count() <= head {
            l.push(Style::Dim, "  ⎿ (no output)");
            l.end(depth);
        }
        if let Some(ms) = took(elapsed, 1) {
            l.push(Style::Dim, "    took ");
            fmt_duration(l.text(), ms);
            l.close(Style::Dim);
            l.end(depth);
        }
        self.emit(To::Out)
    }

    /// The mark of a successful call that took `ms`, long.
    pub(super) fn long_running(
        &mut self,
        ms: u64,
        tool: &str,
        key: Option<&str>,
        depth: usize,
    ) -> io::Result<()> {
        let l = self.compose();
        l.push(Style::Dim, "  ⎿ ");
        l.push(Style::Warn, "long-running: ");
        l.tool_name(Style::Warn, tool);
        l.push(Style::Warn, " took ");
        fmt_duration(l.text(), ms);
        l.close(Style::Warn);
        if let Some(k) = key {
            l.push(Style::Dim, " (");
            l.one_line(Style::Dim, k, 60);
            l.push(Style::Dim, ")");
        }
        l.end(depth);
        self.emit(To::Out)
    }

    pub(super) fn denial(&mut self, d: &Denial<'_>, s: &Session, depth: usize) -> io::Result<()> {
        let note = s.note();
        if note.duplicate
            || matches!(
                self.alerts,
                Alerts::Sessions | Alerts::Nothing | Alerts::Counted
            )
        {
            return Ok(());
        }
        let tool = note.tool.as_deref().or(d.tool.as_deref()).unwrap_or("tool");
        let l = self.compose();
        l.push(Style::Denied, "⊘ permission denied: ");
        l.tool_name(Style::Denied, tool);
        let kind = note.tool_kind.unwrap_or_default();
        let key = note.key_arg.as_deref().or(d.key_arg.as_deref());
        if let Some(k) = key.map(|k| shown_key(k, kind, s.cwd())) {
            l.push(Style::Plain, " ");
            l.one_line(Style::Key, k, MAX_KEY_CHARS);
        }
        l.end(depth);
        if let Some(m) = d
            .message
            .as_deref()
            .map(strip_tool_error)
            .filter(|m| !m.is_empty())
        {
            l.push(Style::Dim, "  ⎿ ");
            l.one_line(Style::Dim, m, 300);
            l.end(depth);
        }
        self.emit(To::Alert)
    }
}
