use super::*;
use crate::run::Feeder;
use crate::session::Session;

/// The events of `stream` that `grep` finds, as their matched field.
fn finds(grep: &Grep, stream: &str) -> Vec<String> {
    let mut feeder = Feeder::new();
    let mut found = Vec::new();
    let mut scratch = String::new();
    let mut each = |ev: &Event<'_>, _: &Session| {
        if let Some((field, start, end)) = grep.find(ev, &mut scratch) {
            found.push(format!("{}:{}", ev.kind.name(), &field[start..end]));
        }
    };
    feeder.feed(stream.as_bytes(), &mut each);
    feeder.finish(&mut each);
    found
}

const STREAM: &str = concat!(
    r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"text","text":"Running the Tests now"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test --release"}}]}}"#,
    "\n",
    r#"{"type":"user","session_id":"s1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"error[E0308]: mismatched types"}]}}"#,
    "\n",
);

#[test]
fn words_people_read_are_searched_not_ids_or_keys() {
    let g = Grep::new("test", false).unwrap();
    assert_eq!(finds(&g, STREAM), ["tool_call:test"]);
    let g = Grep::new("test", true).unwrap();
    assert_eq!(finds(&g, STREAM), ["text:Test", "tool_call:test"]);
    let g = Grep::new(r"E\d+", false).unwrap();
    assert_eq!(finds(&g, STREAM), ["tool_result:E0308"]);
    // Keys, ids and types are not text.
    for not_text in ["tool_use_id", "t1", "assistant", "session_id"] {
        assert_eq!(
            finds(&Grep::new(not_text, false).unwrap(), STREAM),
            Vec::<String>::new()
        );
    }
}

#[test]
fn raw_lines_are_skipped_only_when_that_is_exact() {
    let plain = Grep::new("cargo test", false).unwrap();
    assert!(plain.raw.is_some());
    assert!(plain.line_may_match(STREAM.lines().next().unwrap().as_bytes()));
    assert!(!plain.line_may_match(STREAM.lines().nth(1).unwrap().as_bytes()));
    // A backslash or a quote is written otherwise in JSON; so may be any
    // character that is not ASCII (`\u00e9`): every line is decoded.
    for pattern in [r"E\d+", "say \"hi\"", "café"] {
        let g = Grep::new(pattern, false).unwrap();
        assert!(g.raw.is_none(), "{pattern}");
        assert!(g.line_may_match(b"{}"), "{pattern}");
    }
    let escaped = r#"{"type":"assistant","session_id":"s","message":{"id":"m","content":[{"type":"text","text":"caf\u00e9"}]}}"#;
    assert_eq!(
        finds(&Grep::new("café", false).unwrap(), escaped),
        ["text:café"]
    );
}

#[test]
fn a_bad_pattern_is_one_line() {
    let e = Grep::new("(unclosed", false).unwrap_err();
    assert!(e.starts_with("invalid --grep pattern: "), "{e}");
    assert!(!e.contains('\n'), "{e}");
}
