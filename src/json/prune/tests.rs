use super::*;

/// The line with the values `rules` name emptied, or `None` when the walk
/// refused it.
fn emptied(line: &str, rules: &[Unread]) -> Option<String> {
    let mut spans = Vec::new();
    if !unread_values(line.as_bytes(), rules, &mut spans) {
        return None;
    }
    let mut out = Vec::new();
    condense(&mut out, line.as_bytes(), &spans);
    Some(String::from_utf8(out).unwrap())
}

const ATTACHMENT: &[Unread] = &[Unread::key("rendered"), Unread::member("attachment", "*")];

#[test]
fn values_named_are_emptied_and_the_rest_is_kept() {
    let line = r#"{"parentUuid":"p","attachment":{"type":"prompt_snapshot","tools":[{"name":"Bash","schema":{"a":[1,2]}}],"systemPrompt":["x","y"],"n":3},"type":"attachment","rendered":[{"content":"z"}],"uuid":"u"}"#;
    assert_eq!(
        emptied(line, ATTACHMENT).unwrap(),
        r#"{"parentUuid":"p","attachment":{"type":"prompt_snapshot","tools":[],"systemPrompt":[],"n":3},"type":"attachment","rendered":[],"uuid":"u"}"#
    );
    // Another key of the same name deeper down is no member of the line.
    let deep = r#"{"message":{"content":[{"attachment":{"tools":[1]},"rendered":[2]}]}}"#;
    assert_eq!(emptied(deep, ATTACHMENT).unwrap(), deep);
}

#[test]
fn a_lines_type_counts_only_when_read_before_the_value() {
    let rules = [Unread::all_of("api-request-shape")];
    let line = r#"{"type":"api-request-shape","sessionId":"s","shape":{"tools":[{"name":"Bash"}]},"list":[1],"n":{}}"#;
    assert_eq!(
        emptied(line, &rules).unwrap(),
        r#"{"type":"api-request-shape","sessionId":"s","shape":{},"list":[],"n":{}}"#
    );
    let late = r#"{"shape":{"tools":[]},"type":"api-request-shape"}"#;
    assert_eq!(emptied(late, &rules).unwrap(), late);
    let other = r#"{"type":"assistant","message":{"content":[]}}"#;
    assert_eq!(emptied(other, &rules).unwrap(), other);
    // A `type` deeper down is not the line's.
    let nested = r#"{"x":{"type":"api-request-shape"},"shape":{"a":1}}"#;
    assert_eq!(emptied(nested, &rules).unwrap(), nested);
}

#[test]
fn brackets_quotes_and_escapes_inside_strings_are_text() {
    let line = r#"{"attachment":{"type":"t","content":["a]}\"{[","\\",{"k\"}":"]"}],"after":"x"},"rendered":[]}"#;
    assert_eq!(
        emptied(line, ATTACHMENT).unwrap(),
        r#"{"attachment":{"type":"t","content":[],"after":"x"},"rendered":[]}"#
    );
    // A key written with an escape is not the key named.
    let escaped = r#"{"rendere\u0064":[1]}"#;
    assert_eq!(emptied(escaped, ATTACHMENT).unwrap(), escaped);
}

#[test]
fn a_line_that_is_no_whole_object_is_refused() {
    for line in [
        r#"{"rendered":[1,2"#,
        r#"{"rendered":[1,2]"#,
        r#"{"rendered":"open"#,
        r#"[{"rendered":[1]}]"#,
        r#"{"rendered":[1]}}"#,
        r#"{"rendered":[1]},{"a":1}"#,
        r#"{"rendered":[1]]}"#,
        r#"{"rendered":{"a":1]}"#,
        r#"{"rendered":[{"a":1}}"#,
        r#""rendered""#,
        "",
    ] {
        assert_eq!(emptied(line, ATTACHMENT), None, "{line}");
    }
    // Whitespace around it is no part of it.
    assert_eq!(
        emptied(" {\"rendered\" : [ 1 ] } \r", ATTACHMENT).unwrap(),
        " {\"rendered\" : [] } \r"
    );
}

#[test]
fn long_values_across_blocks() {
    // Values spanning many 64-byte blocks, deep nesting, and the level
    // closing at every offset of a block.
    for pad in 0..130 {
        let filler = "x".repeat(pad);
        let nested = format!(
            r#"{{"a":"{filler}","rendered":[{deep}"{filler}\\\""{close}],"b":[{{"c":"{filler}"}}]}}"#,
            deep = "[{\"k\":".repeat(40),
            close = "}]".repeat(40),
        );
        let want = format!(r#"{{"a":"{filler}","rendered":[],"b":[{{"c":"{filler}"}}]}}"#);
        assert_eq!(emptied(&nested, ATTACHMENT).unwrap(), want, "pad {pad}");
    }
}

/// Blocks of string from end to end are skimmed (their quotes and
/// backslashes only): the same spans as the walk of every block whole,
/// with escaped quotes and runs of backslashes at every offset of a block
/// and strings that end, or a value that closes, right after one.
#[test]
fn skimmed_string_blocks_change_nothing() {
    let rules = [Unread::key("*"), Unread::member("*", "*")];
    for pad in 0..140 {
        for tricky in [r#"\""#, r"\\", r#"\\\""#, "\\n", "{[}]", r"\\\\"] {
            let text = format!("{}{tricky}{}", "y".repeat(pad), "z".repeat(150 - pad));
            let line = format!(
                r#"{{"a":"{text}","b":{{"c":["{text}",{{"d":"{text}"}}],"e":"{text}"}},"f":["{text}"],"g":"{text}"}}"#
            );
            let line = line.as_bytes();
            assert!(serde_json::from_slice::<serde_json::Value>(line).is_ok());
            let (mut skimmed, mut whole) = (Vec::new(), Vec::new());
            let ok = unread_values(line, &rules, &mut skimmed);
            assert!(ok, "{pad} {tricky}");
            assert!(walk_line(
                line,
                &rules,
                &mut whole,
                false,
                strings_scalar,
                structure_scalar
            ));
            assert_eq!(skimmed, whole, "{pad} {tricky}");
            assert_eq!(skimmed.len(), 2, "{pad} {tricky}");
        }
    }
}

/// Every fixture line the walk accepts: each span is one whole JSON
/// value, the emptied line is JSON, and the SIMD masks agree with the
/// byte-at-a-time ones.
#[test]
fn on_every_fixture_line_the_spans_are_whole_values() {
    let rules = [Unread::key("*"), Unread::member("*", "*")];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = vec![root];
    let (mut lines, mut pruned) = (0, 0);
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if p.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        for line in bytes.split(|&b| b == b'\n') {
            let mut spans = Vec::new();
            let mut scalar = Vec::new();
            let ok = unread_values(line, &rules, &mut spans);
            assert_eq!(
                ok,
                walk_line(
                    line,
                    &rules,
                    &mut scalar,
                    false,
                    strings_scalar,
                    structure_scalar
                )
            );
            if !ok {
                continue;
            }
            assert_eq!(spans, scalar);
            lines += 1;
            let whole = serde_json::from_slice::<serde_json::Value>(line).is_ok();
            for &(open, close) in &spans {
                let v: serde_json::Value = serde_json::from_slice(&line[open..=close])
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert!(v.is_object() || v.is_array());
                pruned += 1;
            }
            if whole {
                let mut out = Vec::new();
                condense(&mut out, line, &spans);
                let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
                assert!(v.is_object());
            }
        }
    }
    assert!(
        lines > 1000 && pruned > 1000,
        "{lines} lines, {pruned} values"
    );
}

/// Fixture lines broken at random (cut short, structural bytes flipped
/// in): the walk never panics, and what it accepts is spans of matching
/// brackets inside the line, in order, not overlapping.
#[test]
fn broken_lines_are_refused_or_pruned_safely() {
    let rules = [
        Unread::key("*"),
        Unread::member("*", "*"),
        Unread::all_of("api-request-shape"),
    ];
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-transcript");
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut tried = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        for line in bytes.split(|&b| b == b'\n').filter(|l| l.len() > 16) {
            for _ in 0..8 {
                let mut l = line.to_vec();
                let n = l.len();
                #[allow(clippy::cast_possible_truncation)]
                match next() % 3 {
                    0 => l.truncate((next() as usize) % n),
                    _ => {
                        for _ in 0..=next() % 4 {
                            let at = (next() as usize) % n;
                            l[at] = b"{}[]\",\\:"[(next() % 8) as usize];
                        }
                    }
                }
                let mut spans = Vec::new();
                tried += 1;
                if !unread_values(&l, &rules, &mut spans) {
                    continue;
                }
                let mut after = 0;
                for &(open, close) in &spans {
                    assert!(after <= open && open < close && close < l.len());
                    let pair = (l[open], l[close]);
                    assert!(pair == (b'{', b'}') || pair == (b'[', b']'), "{pair:?}");
                    after = close + 1;
                }
            }
        }
    }
    assert!(tried > 1000, "{tried}");
}
