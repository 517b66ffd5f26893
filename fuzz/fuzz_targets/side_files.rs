//! The small files and words options name (issue 30), from arbitrary bytes:
//! a price table (`--prices`, the bundled shape or `LiteLLM`'s), a theme
//! file (`--theme FILE`) and a label (`--label`). Checked on the way out:
//!
//! - no panic, no hang (libFuzzer's `-timeout`);
//! - an error is one line, and inert once sanitized as the run shows it;
//! - a table that loads gives a finite, non-negative cost for every
//!   plausible count (at most 10^12 tokens of each kind), at the base and
//!   the long-context rates, and its words (`as_of`, `source`) shown
//!   through the sanitizer are inert;
//! - a theme that loads draws `--list-themes`' sample with nothing but
//!   text and its own SGR colours;
//! - a label's prefix is inert.
//!
//! Input layout: byte 0 picks the kind (price table, theme, label) and the
//! colour depth; the rest is the file's text. `fuzz/seed.sh side` seeds the
//! corpus from `tests/fixtures/prices` and the built-in themes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use streamview::decode::plausible::MAX_TOKENS;
use streamview::event::Tokens;
use streamview::render::label;
use streamview::render::sanitize::sanitize_line;
use streamview::render::theme::{self, Depth};
use streamview::session::Prices;
use streamview::session::price::Billing;

fn is_forbidden(c: char) -> bool {
    matches!(c,
        '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{200e}' | '\u{200f}' | '\u{061c}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Only `\n`, `\t` and (with `colour`) `ESC [ digits ; m` sequences.
fn assert_terminal_safe(what: &str, s: &str, colour: bool) {
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' && colour {
            assert_eq!(chars.next(), Some('['), "{what}: ESC not SGR in {s:?}");
            loop {
                match chars.next() {
                    Some('0'..='9' | ';') => {}
                    Some('m') => break,
                    other => panic!("{what}: {other:?} in an SGR sequence in {s:?}"),
                }
            }
            continue;
        }
        assert!(!is_forbidden(c), "{what}: raw {c:?} in {s:?}");
    }
}

/// An error as the run says it: one line, sanitized.
fn check_error(what: &str, e: &str) {
    let shown = sanitize_line(e);
    assert!(!shown.contains('\n'), "{what}: {shown:?}");
    assert_terminal_safe(what, &shown, false);
}

fn prices(text: &[u8]) {
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let table = match Prices::parse(text) {
        Ok(t) => Prices::bundled().with(t),
        Err(e) => return check_error("price table", &e),
    };
    for words in [&table.as_of, &table.source].into_iter().flatten() {
        assert_terminal_safe("price table words", &sanitize_line(words), false);
    }
    let all = Tokens {
        input: Some(MAX_TOKENS),
        output: Some(MAX_TOKENS),
        cache_read: Some(MAX_TOKENS),
        cache_creation: Some(MAX_TOKENS),
        reasoning: Some(MAX_TOKENS),
    };
    let fast = Billing {
        write_1h: MAX_TOKENS / 2,
        fast: true,
    };
    for name in ["gpt-5.5", "claude-sonnet-4-5", "m", "model-0", "x"] {
        if let Some(m) = table.model(name) {
            for how in [Billing::default(), fast] {
                let c = m.message(&all, how);
                assert!(c.is_finite() && c >= 0.0, "{name}: {c}");
            }
        }
    }
}

fn theme_file(text: &[u8], depth: Depth) {
    match theme::parse(text, depth) {
        Ok(t) => {
            let drawn = theme::list(&[(t, "fuzzed")], true);
            let drawn = std::str::from_utf8(&drawn).expect("UTF-8");
            assert_terminal_safe("theme sample", drawn, true);
        }
        Err((_, e)) => check_error("theme", &e),
    }
}

fn label_text(text: &[u8], depth: Depth) {
    let name = String::from_utf8_lossy(text);
    let Some(theme) = theme::Theme::named("default", depth) else {
        return;
    };
    let spec = theme.label_spec(&name);
    for colour in [false, true] {
        let prefix = label::prefix(&name, &spec, colour);
        let prefix = std::str::from_utf8(&prefix).expect("UTF-8");
        assert_terminal_safe("label", prefix, colour);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&how, text)) = data.split_first() else {
        return;
    };
    let depth = [Depth::Basic, Depth::Ansi256, Depth::TrueColor][usize::from(how >> 4) % 3];
    match how % 3 {
        0 => prices(text),
        1 => theme_file(text, depth),
        _ => label_text(text, depth),
    }
});
