//! How `--grep` writes an event: as the pretty view marks it (`▸` a call,
//! `⎿` its output…), then the line of the field that holds the match, cut
//! around it, the match in colour. A call whose input holds the match in
//! a field other than its key argument (an `Edit`'s `old_string`, a
//! `TodoWrite`'s items) is written as the pretty view shows the call
//! (`▸ Edit src/a.rs`), then that field's name and its text around the
//! match (`· old_string: …`), not its input's JSON. An event around a
//! match (`-C`) is written by its first line.

use std::io;

use regex::Regex;
use termcolor::{Color, ColorSpec, WriteColor};

use super::{Grep, each_field};
use crate::event::{Event, EventKind, Role, ToolCall};
use crate::json::{J, Parser, Value, view};
use crate::render::sanitize::sanitize_line;
use crate::render::shown_key;
use crate::session::Session;

/// Columns of a matched line shown at most around its match.
const CONTEXT: usize = 100;

/// Columns of a call's key argument in its one-line form.
const KEY: usize = 60;

/// Levels of an input looked into for the field that holds a match.
const DEPTH: usize = 32;

/// What an event is, as the pretty view marks it.
pub(super) fn symbol(ev: &Event<'_>) -> &'static str {
    match &ev.kind {
        EventKind::ToolCall(_) => "▸ ",
        EventKind::ToolResult(r) if r.is_error => "✗ ",
        EventKind::ToolResult(_) => "⎿ ",
        EventKind::PermissionDenied(_) => "⊘ ",
        EventKind::Text(t) if t.role == Role::User => "› ",
        EventKind::Thinking(_) => "∴ ",
        EventKind::Notice(_) => "· ",
        EventKind::Result(r) if r.is_error => "✗ ",
        EventKind::Result(_) => "✓ ",
        _ => "",
    }
}

/// The colour of a match.
fn hit_color() -> ColorSpec {
    ColorSpec::new()
        .set_fg(Some(Color::Red))
        .set_bold(true)
        .clone()
}

/// Write `ev`, whose `field` holds a match at `start..end`, after its
/// `FILE:LINE:SESSION:` prefix: ` ▸ Bash npm test`, ending the line.
pub(super) fn matched<W: WriteColor>(
    out: &mut W,
    grep: &Grep,
    ev: &Event<'_>,
    s: &Session,
    (field, start, end): (&str, usize, usize),
) -> io::Result<()> {
    write!(out, " {}", symbol(ev))?;
    if let EventKind::ToolCall(c) = &ev.kind {
        let in_input = field != c.name.as_ref() && c.key_arg.as_deref() != Some(field);
        let hit = in_input.then(|| input_field(&grep.text, field)).flatten();
        // A field the key argument shows whole (a command, a patch's path)
        // is shown there.
        let key = c.key_arg.as_deref().unwrap_or_default();
        let in_key = hit
            .as_ref()
            .and_then(|h| key.contains(&h.text).then_some(()));
        if let Some(m) = in_key.and_then(|()| grep.text.find(key)) {
            write!(out, "{} ", sanitize_line(&c.name))?;
            window(out, key, m.start(), m.end())?;
            return writeln!(out);
        }
        if let Some(hit) = hit {
            call_form(out, c, s)?;
            write!(out, " · {}: ", sanitize_line(&hit.path))?;
            window(out, &hit.text, hit.start, hit.end)?;
            return writeln!(out);
        }
        if !field.starts_with(c.name.as_ref()) {
            write!(out, "{} ", sanitize_line(&c.name))?;
        }
    }
    let (field, start, end) = without_tags(ev, field, start, end);
    window(out, field, start, end)?;
    writeln!(out)
}

/// The call as the pretty view's first line shows it: its name and key
/// argument (a path under the working directory relative to it).
fn call_form<W: WriteColor>(out: &mut W, c: &ToolCall<'_>, s: &Session) -> io::Result<()> {
    write!(out, "{}", sanitize_line(&c.name))?;
    let key = c.key_arg.as_deref().map(|k| shown_key(k, c.kind, s.cwd()));
    if let Some(k) = key.filter(|k| !k.is_empty()) {
        let first = k.lines().next().unwrap_or_default();
        let cut = cut_after(first, KEY);
        write!(out, " {}", sanitize_line(cut))?;
        if cut.len() < k.len() {
            write!(out, "…")?;
        }
    }
    Ok(())
}

/// The line of `field` that holds the match at `start..end`, cut around
/// it, the match in colour.
fn window<W: WriteColor>(out: &mut W, field: &str, start: usize, end: usize) -> io::Result<()> {
    let line_start = field[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = field[end..].find('\n').map_or(field.len(), |i| end + i);
    let from = cut_before(&field[line_start..start], CONTEXT);
    let to = cut_after(&field[end..line_end], CONTEXT);
    if from.len() < start - line_start {
        write!(out, "…")?;
    }
    write!(out, "{}", sanitize_line(from))?;
    out.set_color(&hit_color())?;
    write!(out, "{}", sanitize_line(&field[start..end]))?;
    out.reset()?;
    write!(out, "{}", sanitize_line(to))?;
    if to.len() < line_end - end {
        write!(out, "…")?;
    }
    Ok(())
}

/// Claude's wrapper of a tool's validation error (`<tool_use_error>…`).
const ERROR_TAGS: (&str, &str) = ("<tool_use_error>", "</tool_use_error>");

/// A tool result's `field` without Claude's `<tool_use_error>` tags
/// around it, as the pretty view shows it, and the match `start..end`
/// moved with it; as it is when the match is in the tags, or it has none.
fn without_tags<'f>(
    ev: &Event<'_>,
    field: &'f str,
    start: usize,
    end: usize,
) -> (&'f str, usize, usize) {
    match tagged(ev, field) {
        Some((at, inner)) if start >= at && end <= at + inner.len() => {
            (inner, start - at, end - at)
        }
        _ => (field, start, end),
    }
}

/// The text inside `field`'s `<tool_use_error>` tags, and where it begins
/// in `field`, when `ev` is a tool result and `field` is so wrapped.
fn tagged<'f>(ev: &Event<'_>, field: &'f str) -> Option<(usize, &'f str)> {
    if !matches!(ev.kind, EventKind::ToolResult(_)) {
        return None;
    }
    let from = field.len() - field.trim_start().len();
    let inner = (field.trim())
        .strip_prefix(ERROR_TAGS.0)?
        .strip_suffix(ERROR_TAGS.1)?;
    Some((from + ERROR_TAGS.0.len(), inner))
}

/// The text `ev` is shown by around a match (`-C`): its mark and first
/// line (a call by its one-line form); `None` for an event `--grep` never
/// shows (a usage, a result, a streamed fragment).
pub(super) fn context_line(ev: &Event<'_>, s: &Session, scratch: &mut String) -> Option<String> {
    let mut text = String::from(symbol(ev));
    if let EventKind::ToolCall(c) = &ev.kind {
        let mut line = termcolor::NoColor::new(Vec::new());
        call_form(&mut line, c, s).ok()?;
        text.push_str(&String::from_utf8_lossy(&line.into_inner()));
        return Some(text);
    }
    let mut first = None;
    each_field(ev, scratch, &|_| true, &mut |f: &str| {
        let f = tagged(ev, f).map_or(f, |(_, inner)| inner);
        if first.is_none() && !f.trim().is_empty() {
            first = Some(f.trim().lines().next().unwrap_or_default().to_string());
        }
    });
    let first = first?;
    let cut = cut_after(&first, 2 * CONTEXT);
    text.push_str(&sanitize_line(cut));
    if cut.len() < first.len() {
        text.push('…');
    }
    Some(text)
}

/// A field of a call's input that holds a match: its place (`old_string`,
/// `todos[1].content`), its text and where the match is in it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct InputHit {
    pub path: String,
    pub text: String,
    pub start: usize,
    pub end: usize,
}

/// The first string of `input` (a call's input as JSON text), in the
/// order it is written, that `re` matches; `None` when the match is only
/// in a key, a number or the JSON around them.
pub(super) fn input_field(re: &Regex, input: &str) -> Option<InputHit> {
    let mut parser = Parser::default();
    parser.parse(input.as_bytes(), |v| {
        let mut path = String::new();
        find_in(re, v.ok()?, &mut path, 0)
    })
}

/// The first string below `v` (at `path`) that `re` matches.
fn find_in(re: &Regex, v: Value<'_>, path: &mut String, depth: usize) -> Option<InputHit> {
    if depth > DEPTH {
        return None;
    }
    match view(v) {
        J::Str(s) => re.find(s).map(|m| InputHit {
            path: if path.is_empty() {
                "input".to_string()
            } else {
                path.clone()
            },
            text: s.to_string(),
            start: m.start(),
            end: m.end(),
        }),
        J::Arr(a) => a.iter().enumerate().find_map(|(i, x)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let hit = find_in(re, x, path, depth + 1);
            path.truncate(len);
            hit
        }),
        J::Obj => v.as_object()?.iter().find_map(|(k, x)| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(k);
            let hit = find_in(re, x, path, depth + 1);
            path.truncate(len);
            hit
        }),
        J::Null | J::Scalar(_) => None,
    }
}

/// The end of `s`, at most `n` characters.
fn cut_before(s: &str, n: usize) -> &str {
    let skip = s.chars().count().saturating_sub(n);
    s.char_indices().nth(skip).map_or("", |(i, _)| &s[i..])
}

/// The start of `s`, at most `n` characters.
fn cut_after(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}
