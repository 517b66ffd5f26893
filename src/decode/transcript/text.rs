//! Text taken out of entries: the first text block, an error's message,
//! command tags stripped, one line of a longer text.

use crate::json::{J, Value, get, str_at, view};

/// The text of a user message: its string, or its first text block.
pub(super) fn first_text(content: Option<Value<'_>>) -> Option<&str> {
    match view(content?) {
        J::Str(s) => Some(s),
        J::Arr(blocks) => blocks
            .iter()
            .find(|b| str_at(*b, "type") == Some("text"))
            .and_then(|b| str_at(b, "text")),
        _ => None,
    }
}

/// The message of an API error object, however deeply the SDK nested it.
pub(super) fn error_message(e: Value<'_>) -> Option<&str> {
    let mut cur = e;
    for _ in 0..4 {
        if let Some(m) = str_at(cur, "message") {
            return Some(m);
        }
        cur = get(cur, "error")?;
        if let Some(s) = cur.into_string() {
            return Some(s);
        }
    }
    None
}

/// `<name>…</name>` inside a pseudo-XML text.
pub(super) fn tag<'s>(s: &'s str, name: &str) -> Option<&'s str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = s.find(&open)? + open.len();
    let len = s.get(start..)?.find(&close)?;
    s.get(start..start + len).map(str::trim)
}

/// Slash-command output is wrapped in `<local-command-stdout>` and friends.
pub(super) fn strip_command_tags(s: &str) -> &str {
    let t = s.trim();
    for name in [
        "local-command-stdout",
        "local-command-stderr",
        "bash-stdout",
    ] {
        if let Some(inner) = tag(t, name)
            && t.starts_with('<')
        {
            return inner;
        }
    }
    t
}

/// The first non-empty line, at most 200 characters.
pub(super) fn one_line(s: &str) -> String {
    let line = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut out: String = line.chars().take(200).collect();
    if out.len() < line.len() || s.trim().lines().nth(1).is_some() {
        out.push('…');
    }
    out
}
