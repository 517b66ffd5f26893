//! What the agent and the user say: the assistant's text, the prompt,
//! thinking, notices and usage lines, each body cut at `--max-lines`.

use std::borrow::Cow;
use std::io;

use termcolor::WriteColor;

use crate::event::{DeltaKind, Level, Notice, Role, Text, Thinking, Tokens, Usage};
use crate::render::lines::{Lines, Style};
use crate::render::sanitize::sanitize;

use super::result::fmt_tokens;
use super::{Pretty, To, text_hash};

/// Sub-agents' texts remembered to tell a report repeated as its call's
/// answer (see [`Pretty::agent_texts`]).
pub(super) const MAX_AGENT_TEXTS: usize = 1024;

/// Up to `max_lines` lines of `text`, indented under a tool line.
pub(super) fn body(l: &mut Lines, text: &str, style: Style, max_lines: usize, depth: usize) {
    let text = text.trim_end_matches(['\n', '\r']);
    if text.trim().is_empty() {
        return;
    }
    let total = line_total(text);
    let max = max_lines.max(1);
    for (i, line) in text.lines().take(max).enumerate() {
        // An error's first line in bold, the rest of it plain red.
        let style = match style {
            Style::Error if i > 0 => Style::ErrorBody,
            s => s,
        };
        l.push(style, if i == 0 { "  ⎿ " } else { "    " });
        l.sanitized(style, line);
        l.end_hanging(depth, 4);
    }
    if total > max {
        let more = total - max;
        let lines = if more == 1 { "line" } else { "lines" };
        l.fmt(
            Style::Dim,
            format_args!("    … {more} more {lines} (--max-lines)"),
        );
        l.end(depth);
    }
}

/// How many lines `text` holds (`text.lines().count()`, for a text not
/// ending with a line break), counted a vector at a time.
pub(super) fn line_total(text: &str) -> usize {
    let breaks =
        usize::try_from(crate::input::lines::newlines(text.as_bytes())).unwrap_or(usize::MAX);
    if text.is_empty() {
        0
    } else {
        breaks.saturating_add(1)
    }
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    pub(super) fn notice(&mut self, n: &Notice<'_>, depth: usize) -> io::Result<()> {
        // One "thinking… ~N tokens" per thinking block, not one per update.
        let again = std::mem::replace(&mut self.estimate_noted, n.estimate);
        if n.estimate && again {
            return Ok(());
        }
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
            self.last_error = Some(text_hash(&n.text));
        }
        let text = sanitize(&n.text);
        let l = self.compose();
        for (i, line) in text.lines().enumerate() {
            l.push(style, if i == 0 { mark } else { "  " });
            l.push(style, line);
            l.end(depth);
        }
        if l.is_empty() {
            l.push(style, mark);
            l.sanitized(style, &n.subtype);
            l.end(depth);
        }
        self.emit(to)
    }

    pub(super) fn text(&mut self, t: &Text<'_>, depth: usize) -> io::Result<()> {
        if t.role == Role::User {
            return self.prompt(t, depth);
        }
        let style = if t.role == Role::User {
            Style::Dim
        } else {
            Style::Plain
        };
        if depth == 0 && t.role == Role::Assistant {
            self.shown_texts.insert(text_hash(&t.text));
        } else if t.role == Role::Assistant && !self.quiet() {
            if self.agent_texts.len() >= MAX_AGENT_TEXTS {
                self.agent_texts.clear();
            }
            self.agent_texts.insert(text_hash(t.text.trim()));
        }
        if t.role == Role::Assistant
            && self.was_streamed(DeltaKind::Text, &t.text, depth, t.continues)?
        {
            // Already shown fragment by fragment.
            return Ok(());
        }
        let text = sanitize(&t.text);
        let text = text.trim_matches('\n');
        if text.is_empty() {
            return Ok(());
        }
        let l = self.compose();
        for (i, line) in text.lines().enumerate() {
            if t.role == Role::User && i == 0 {
                l.push(style, "› ");
            }
            l.push(style, line);
            l.end(depth);
        }
        self.emit(To::Out)
    }

    /// A prompt (the human's, a transcript's, a sub-agent's): by default
    /// the first line of the main agent's, with `-v` all of every one; a
    /// slash command as it was typed (`/clear`).
    pub(super) fn prompt(&mut self, t: &Text<'_>, depth: usize) -> io::Result<()> {
        let verbose = self.verbose();
        if depth > 0 && !verbose {
            return Ok(());
        }
        let text = sanitize(t.command.as_deref().unwrap_or(&t.text));
        let text = text.trim_matches('\n');
        if text.trim().is_empty() {
            return Ok(());
        }
        let l = self.compose();
        let total = line_total(text);
        let shown = if verbose { total } else { 1 };
        for (i, line) in text.lines().take(shown).enumerate() {
            let mark = match i {
                0 => "› ",
                _ if line.is_empty() => "",
                _ => "  ",
            };
            l.push(Style::Dim, mark);
            l.push(Style::Dim, line);
            if i + 1 == shown && shown < total {
                l.fmt(Style::Dim, format_args!(" (+{} lines)", total - shown));
            }
            l.end(depth);
        }
        self.emit(To::Out)
    }

    pub(super) fn thinking(&mut self, t: &Thinking<'_>, depth: usize) -> io::Result<()> {
        if !self.verbose() {
            return Ok(());
        }
        if !t.redacted && self.was_streamed(DeltaKind::Thinking, &t.text, depth, false)? {
            return Ok(());
        }
        let text = if t.redacted || t.text.trim().is_empty() {
            Cow::Borrowed("[redacted thinking]")
        } else {
            sanitize(&t.text)
        };
        let l = self.compose();
        for (i, line) in text.trim_matches('\n').lines().enumerate() {
            l.push(Style::Thinking, if i == 0 { "✻ " } else { "  " });
            l.push(Style::Thinking, line);
            l.end(depth);
        }
        self.emit(To::Out)
    }

    pub(super) fn usage(&mut self, u: &Usage<'_>, depth: usize) -> io::Result<()> {
        if !self.verbose() {
            return Ok(());
        }
        // The message's usage comes with the call it is about: not in the
        // middle of the call's line.
        let held = self.tool_started(depth);
        let l = if held { &mut self.held } else { self.compose() };
        let t = l.text();
        t.push_str("· API call: ");
        // Output counts that are preliminary (Claude Code repeats the
        // message_start usage on each line): the input side only.
        let tokens = Tokens {
            output: if u.preliminary_output {
                None
            } else {
                u.tokens.output
            },
            ..u.tokens
        };
        let at = t.len();
        fmt_tokens(t, at, &tokens);
        l.close(Style::Dim);
        if let Some(m) = &u.model {
            l.push(Style::Dim, " (");
            l.sanitized(Style::Dim, m);
            l.push(Style::Dim, ")");
        }
        l.end(depth);
        if held {
            return Ok(());
        }
        self.emit(To::Out)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The vector count gives what `lines()` gives for every text the
        /// view counts (none ends with a line break), line breaks of
        /// every kind and long runs between them included.
        #[test]
        fn line_total_is_the_count_of_lines(
            parts in prop::collection::vec(("[a-z\\r é]{0,40}", 0usize..4), 0..40)
        ) {
            let mut text = String::new();
            for (piece, breaks) in &parts {
                text.push_str(piece);
                text.push_str(["", "\n", "\r\n", "\n\n"][*breaks]);
            }
            let text = text.trim_end_matches('\n');
            prop_assert_eq!(super::line_total(text), text.lines().count());
        }
    }
}
