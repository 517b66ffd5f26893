//! Neutralizes text from the agent or its tools before it reaches a terminal.
//!
//! The rule (documented in the README): content may contain anything, so
//! every character that a terminal would act on instead of print is replaced
//! by a visible stand-in.
//! - C0 controls and DEL become Unicode control pictures (`ESC` → `␛`,
//!   `BEL` → `␇`, `BS` → `␈`, a lone `CR` → `␍`, `NUL` → `␀`), so escape
//!   sequences (CSI colours, OSC 52 clipboard writes, OSC 8 links, title
//!   changes) and overwrite tricks print as inert text.
//! - C1 controls (U+0080–U+009F, which some terminals treat as `ESC [` etc.)
//!   become `<U+009B>`.
//! - Bidirectional overrides and isolates (Trojan Source: U+202A–U+202E,
//!   U+2066–U+2069, U+200E, U+200F, U+061C) become `<U+202E>`.
//! - `\n` is kept (callers indent continuation lines), `\t` is kept, and the
//!   `\r` of a `\r\n` pair is dropped.
//!
//! Text that needs no change is returned borrowed.

use std::borrow::Cow;
use std::fmt::Write as _;

fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{200e}'
        | '\u{200f}'
        | '\u{061c}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// Make `s` safe to print on a terminal; see the module docs for the rule.
#[must_use]
pub fn sanitize(s: &str) -> Cow<'_, str> {
    // Fast path: ASCII printable text (the common case) needs no work.
    let Some(first) = s
        .char_indices()
        .find(|&(_, c)| needs_escape(c))
        .map(|(i, _)| i)
    else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    let mut chars = s[first..].chars().peekable();
    while let Some(c) = chars.next() {
        if !needs_escape(c) {
            out.push(c);
            continue;
        }
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
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
    Cow::Owned(out)
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
    }

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(sanitize("\x1b[31mred\x1b[0m"), "␛[31mred␛[0m");
        assert_eq!(sanitize("\x1b]52;c;aGk=\x07"), "␛]52;c;aGk=␇");
        assert_eq!(sanitize("\x1b]0;title\x1b\\"), "␛]0;title␛\\");
    }

    #[test]
    fn overwrites_are_neutralized() {
        assert_eq!(sanitize("safe\rEVIL"), "safe␍EVIL");
        assert_eq!(sanitize("ab\x08\x08cd"), "ab␈␈cd");
        assert_eq!(sanitize("line\r\nnext"), "line\nnext");
        assert_eq!(sanitize("nul\0del\x7f"), "nul␀del␡");
    }

    #[test]
    fn c1_and_bidi_are_shown_as_code_points() {
        assert_eq!(sanitize("a\u{9b}31mb"), "a<U+009B>31mb");
        assert_eq!(sanitize("x\u{202e}cba\u{2066}"), "x<U+202E>cba<U+2066>");
    }

    #[test]
    fn output_never_contains_controls() {
        let all: String = (0u32..0x300).filter_map(char::from_u32).collect();
        let out = sanitize(&all);
        assert!(
            !out.chars()
                .any(|c| c != '\n' && c != '\t' && (c.is_control() || c == '\u{202e}'))
        );
    }
}
