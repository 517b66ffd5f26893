//! Neutralizes text from the agent or its tools before it reaches a terminal.
//!
//! The rule (documented in docs/usage.md, "Terminal safety"): content may contain anything, so
//! every character that a terminal would act on instead of print is replaced
//! by a visible stand-in.
//! - C0 controls and DEL become Unicode control pictures (`ESC` → `␛`,
//!   `BEL` → `␇`, `BS` → `␈`, a lone `CR` → `␍`, `NUL` → `␀`), so escape
//!   sequences (CSI colours, OSC 52 clipboard writes, OSC 8 links, title
//!   changes) and overwrite tricks print as inert text.
//! - C1 controls (U+0080–U+009F, which some terminals treat as `ESC [` etc.)
//!   become `<U+009B>`.
//! - Bidirectional overrides, isolates and marks (Trojan Source: U+202A–U+202E,
//!   U+2066–U+2069, U+200E, U+200F, U+061C) become `<U+202E>`.
//! - In multi-line text ([`sanitize`]) `\n` is kept (callers indent
//!   continuation lines), `\t` is kept, and the `\r` of a `\r\n` pair is
//!   dropped. Text meant for one line ([`sanitize_line`]: names, ids, paths,
//!   every span the pretty sink writes) shows a line break as `␊` instead, so
//!   content can never start a line of its own that looks like ours.
//!
//! Text that needs no change is returned borrowed. The JSONL sink uses
//! [`escape_at`] to write the same characters as `\u` escapes: the JSON value
//! is unchanged, but a terminal never sees them raw.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::json::escape::{SUSPECT, find_special};
pub use crate::json::escape::{escape_at, is_unsafe};

/// Index of the first byte at or after `from` that may start an unsafe character: an ASCII
/// control, DEL, or the lead byte of the two- and three-byte sequences the
/// C1 and bidi characters use (`C2`, `D8`, `E2`). Cheap enough to run over
/// every span; the char-level check starts from there.
fn first_suspect(s: &str, from: usize) -> Option<usize> {
    find_special(s.as_bytes(), from, &SUSPECT)
}

fn needs_escape(c: char, keep_newline: bool) -> bool {
    if c == '\n' {
        return !keep_newline;
    }
    is_unsafe(c)
}

/// Make multi-line `s` safe to print on a terminal; see the module docs.
#[must_use]
pub fn sanitize(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

/// Make `s` safe to print on a terminal as (part of) one line: like
/// [`sanitize`], and a line break shows as `␊`.
#[must_use]
pub fn sanitize_line(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// [`sanitize`] appended to `out`: no allocation of its own (the pretty
/// sink composes its lines in reused memory).
pub fn sanitize_to(out: &mut String, s: &str) {
    match first_escape(s, true) {
        None => out.push_str(s),
        Some(first) => escape_from(out, s, first, true),
    }
}

fn escape(s: &str, keep_newline: bool) -> Cow<'_, str> {
    let Some(first) = first_escape(s, keep_newline) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    escape_from(&mut out, s, first, keep_newline);
    Cow::Owned(out)
}

/// Where the first character to escape starts, if any.
fn first_escape(s: &str, keep_newline: bool) -> Option<usize> {
    // Every suspect byte starts a character; most (a line feed in
    // multi-line text, `é`) need nothing, and the scan goes on after them.
    let mut from = 0;
    loop {
        let at = first_suspect(s, from)?;
        match s[at..].chars().next() {
            Some(c) if needs_escape(c, keep_newline) => return Some(at),
            _ => from = at + 1,
        }
    }
}

/// `s` escaped into `out`, knowing its first character to escape starts at
/// `first`.
fn escape_from(out: &mut String, s: &str, first: usize, keep_newline: bool) {
    out.push_str(&s[..first]);
    let mut chars = s[first..].chars().peekable();
    while let Some(c) = chars.next() {
        if !needs_escape(c, keep_newline) {
            out.push(c);
            continue;
        }
        match c {
            '\r' if keep_newline && chars.peek() == Some(&'\n') => {}
            '\0'..='\u{1f}' => {
                // U+2400 + code point: the Control Pictures block.
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?'));
            }
            '\u{7f}' => out.push('\u{2421}'),
            _ => {
                let _ = write!(out, "<U+{:04X}>", c as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            sanitize("hello, wörld — 你好 👍\n\tx"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(sanitize_line("a — b ‘c’ … ▸ ⎿"), Cow::Borrowed(_)));
    }

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(sanitize("\x1b[31mred\x1b[0m"), "␛[31mred␛[0m");
        assert_eq!(sanitize("\x1b]52;c;aGk=\x07"), "␛]52;c;aGk=␇");
        assert_eq!(sanitize("\x1b]0;title\x1b\\"), "␛]0;title␛\\");
        assert_eq!(
            sanitize("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\"),
            "␛]8;;http://evil␛\\link␛]8;;␛\\"
        );
    }

    #[test]
    fn overwrites_are_neutralized() {
        assert_eq!(sanitize("safe\rEVIL"), "safe␍EVIL");
        assert_eq!(sanitize("ab\x08\x08cd"), "ab␈␈cd");
        assert_eq!(sanitize("line\r\nnext"), "line\nnext");
        assert_eq!(sanitize("nul\0del\x7f"), "nul␀del␡");
    }

    #[test]
    fn one_line_text_shows_line_breaks() {
        assert_eq!(sanitize_line("a\nb\r\nc\td"), "a␊b␍␊c\td");
        assert_eq!(sanitize_line("/tmp/x\n✓ done"), "/tmp/x␊✓ done");
    }

    #[test]
    fn c1_and_bidi_are_shown_as_code_points() {
        assert_eq!(sanitize("a\u{9b}31mb"), "a<U+009B>31mb");
        assert_eq!(sanitize("x\u{202e}cba\u{2066}"), "x<U+202E>cba<U+2066>");
        assert_eq!(
            sanitize("\u{200e}\u{200f}\u{61c}\u{2069}"),
            "<U+200E><U+200F><U+061C><U+2069>"
        );
    }

    fn unsafe_chars() -> impl Iterator<Item = char> {
        (0u32..0x3000)
            .filter_map(char::from_u32)
            .filter(|&c| c != '\n' && c != '\t')
            .filter(|&c| c.is_control() || is_unsafe(c))
    }

    #[test]
    fn output_never_contains_controls() {
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        for out in [sanitize(&all), sanitize_line(&all)] {
            assert!(!out.chars().any(|c| c != '\n' && c != '\t' && is_unsafe(c)));
            assert!(
                !out.chars()
                    .any(|c| c != '\n' && c != '\t' && c.is_control())
            );
        }
        assert!(!sanitize_line(&all).contains('\n'));
        assert_eq!(unsafe_chars().count(), 65 + 2 + 5 + 4 + 1 - 2);
    }

    #[test]
    fn sanitize_to_appends_what_sanitize_returns() {
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        for s in [all.as_str(), "plain", "a\r\nb\x1b[0m", "", "\u{202e}x"] {
            let mut out = String::from("pre:");
            sanitize_to(&mut out, s);
            assert_eq!(out, format!("pre:{}", sanitize(s)));
        }
    }
}
