use super::*;
use crate::decode::Decoder;
use crate::input::Line;

/// Each event of `stream` as a run decodes it: line by line (a last line
/// without its newline partial), then what the decoder held at the end.
fn decoded(stream: &str, each: &mut dyn FnMut(&Event<'_>)) {
    let mut decoder = Decoder::new();
    let mut lines = stream.split('\n').peekable();
    let mut number = 0;
    while let Some(bytes) = lines.next() {
        let last = lines.peek().is_none();
        if last && bytes.is_empty() {
            break;
        }
        number += 1;
        let line = Line {
            number,
            bytes: bytes.strip_suffix('\r').unwrap_or(bytes).as_bytes(),
            partial: last,
        };
        let _ = decoder.decode(&line, &mut |ev: &Event<'_>| {
            each(ev);
            Ok(())
        });
    }
    let _ = decoder.finish(&mut |ev: &Event<'_>| {
        each(ev);
        Ok(())
    });
}

/// The events of `stream` that `grep` finds, as their matched field.
fn finds(grep: &Grep, stream: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut scratch = String::new();
    decoded(stream, &mut |ev: &Event<'_>| {
        if let Some((field, start, end)) = grep.find(ev, &mut scratch) {
            found.push(format!("{}:{}", ev.kind.name(), &field[start..end]));
        }
    });
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

/// `line_may_match` of `pattern` (`-i`: `ignore_case`) on `line`.
fn may_match(pattern: &str, ignore_case: bool, line: &str) -> bool {
    let g = Grep::new(pattern, ignore_case).unwrap();
    assert!(g.raw.is_some(), "{pattern}: no raw pre-check");
    g.line_may_match(line.as_bytes())
}

#[test]
fn a_line_that_matches_only_in_unsearched_keys_is_skipped() {
    let line = r#"{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"permissionMode":"default","sessionId":"s1","permissionDecision":{"decision":"accept"}}"#;
    assert!(!may_match("permission", false, line));
    // Not `sessionId`: see `unsearched`.
    assert!(may_match("session", false, line));
    assert!(!may_match("Uuid", false, line));
    // Case-insensitive: the key, and its value (`bypassPermissions`).
    let bypass = line.replace("\"default\"", "\"bypassPermissions\"");
    assert!(!may_match("PERMISSION", true, &bypass));
    assert!(!may_match("permission", true, &bypass));
    assert!(may_match(
        "Permission",
        false,
        &bypass.replace("permissionMode", "mode")
    ));
    // Whitespace between a key and its colon.
    assert!(!may_match(
        "permission",
        false,
        r#"{ "permissionMode" : "x" , "a" : 1 }"#
    ));
    assert!(!may_match(
        "permission",
        false,
        "\u{feff}  {\"permissionMode\":\"x\"}"
    ));
    // Every match in a key: several keys, a key and its value.
    assert!(!may_match(
        "permission",
        true,
        r#"{"permissionMode":"x","permissionDecision":"permission"}"#
    ));
    // The line is read to the end for its last match: no earlier string
    // leaves it.
    let long = format!(
        r#"{{"a":"{}","b":[{{"c":"d"}}],"uuid":"u","permissionMode":"x"}}"#,
        "lorem \\\" ipsum ".repeat(10_000)
    );
    assert!(!may_match("permission|uuid", false, &long));
}

#[test]
fn a_match_outside_unsearched_keys_is_decoded() {
    let key = r#""permissionMode":"default""#;
    // Also in a value, before or after the key.
    for line in [
        format!(r#"{{{key},"message":{{"content":"ask for permission"}}}}"#),
        format!(r#"{{"message":{{"content":"ask for permission"}},{key}}}"#),
        format!(r#"{{"content":"permission",{key}}}"#),
        // A key below the top level: a tool call's input is searched
        // with its keys.
        format!(r#"{{{key},"input":{{"permissionMode":"plan"}}}}"#),
        // Top-level keys that decoders write into what is searched.
        format!(r#"{{{key},"permission":1}}"#),
        // Text that looks like a key inside a string: escaped quotes.
        format!(r#"{{{key},"text":"a \"permissionMode\": b"}}"#),
        format!(r#"{{{key},"text":"permission\": x"}}"#),
        format!(r#"{{"text":"a\":b permission",{key}}}"#),
        format!(r#"{{"text":"\\\"permission\":\\",{key}}}"#),
        // A value of an unsearched key holds no key after it.
        format!(r#"{{"cwd":"a\":b","x":"permission",{key}}}"#),
        // Not one JSON object.
        format!(r#"{{{key}}} {{{key},"text":"permission"}}"#),
        r#"{"a":1} "permissionMode":1"#.to_string(),
        r#""permissionMode": 1"#.to_string(),
        format!(r"[{{{key}}}]"),
        r#"{"permissionMode"#.to_string(),
    ] {
        assert!(may_match("permission", false, &line), "{line}");
        assert!(may_match("PERMISSION", true, &line), "{line}");
    }
    // An escaped backslash ends the string before the quote.
    let line = r#"{"text":"x\\","permissionMode":"p"}"#;
    assert!(!may_match("permission", false, line));
    let line = r#"{"text":"x\\\"permissionMode\":1","permissionMode":"p"}"#;
    assert!(may_match("permission", false, line));
    // A match that spans a quote or a colon is not inside a key.
    assert!(may_match("Mode.:", false, r#"{"permissionMode":"x"}"#));
    // A pattern that matches the empty string matches every text.
    assert!(may_match("x*", false, r#"{"permissionMode":"x"}"#));
}

/// The lines of every fixture, and per line the texts `--grep` searches in
/// the events it gave (in `Some` when the run asks `line_may_match` of
/// it: the producer known, its text whole on each line).
fn fixture_lines() -> Vec<(Vec<u8>, Option<Vec<String>>)> {
    use crate::decode::Decoder;
    use crate::input::Line;
    fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut files,
    );
    files.sort();
    let mut all = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let first = all.len();
        let mut dec = Decoder::new();
        let mut scratch = String::new();
        let mut fields: Vec<(u64, String)> = Vec::new();
        let mut asked = Vec::new();
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            asked.push(dec.producer().is_some() && !dec.text_spans_lines());
            let line = Line {
                number: i as u64 + 1,
                bytes: line,
                partial: false,
            };
            dec.decode(&line, &mut |ev: &Event<'_>| {
                // A notice is searched only when its line passes the
                // pre-check: not a field the pre-check must find.
                each_field(ev, &mut scratch, &|_: &str| false, &mut |f: &str| {
                    fields.push((ev.line, f.to_string()));
                });
                Ok(())
            })
            .unwrap();
            all.push((line.bytes.to_vec(), None));
        }
        dec.finish(&mut |ev: &Event<'_>| {
            each_field(ev, &mut scratch, &|_: &str| false, &mut |f: &str| {
                fields.push((ev.line, f.to_string()));
            });
            Ok(())
        })
        .unwrap();
        for (n, i) in asked.iter().zip(first..) {
            if *n {
                all[i].1 = Some(Vec::new());
            }
        }
        for (line, f) in fields {
            if let Some(texts) = all[first + usize::try_from(line).unwrap() - 1].1.as_mut() {
                texts.push(f);
            }
        }
    }
    all
}

/// A line of the fixtures where `find` would match is never skipped unread:
/// for words in keys and ids, plain and `-i`; and for every word of every
/// text searched, when the raw line holds it at all (the raw check before
/// unsearched keys were known; the words a decoder writes itself, like
/// "context compacted", are not always in the line they come from).
#[test]
fn no_line_of_the_fixtures_that_matches_is_skipped() {
    let lines = fixture_lines();
    let asked = lines.iter().filter(|(_, t)| t.is_some()).count();
    assert!(asked > 2000, "{asked} lines asked of {}", lines.len());
    let mut checked = 0;
    for pattern in [
        "permission",
        "Permission",
        "type",
        "session",
        "Session",
        "tool_use",
        "content",
        "mode",
        "uuid",
        "id",
        "cwd",
        "version",
        "timestamp",
        "time",
        "parent",
        "request",
        "prompt",
        "agent",
        "side",
        "branch",
        "user",
        "entry",
        "source",
        "decision",
        "error",
        "e",
        "x*",
        "permission|error",
        "session.id",
        "a.b",
    ] {
        for ignore_case in [false, true] {
            let g = Grep::new(pattern, ignore_case).unwrap();
            for (line, texts) in &lines {
                let Some(texts) = texts else { continue };
                if texts.iter().any(|t| g.text.is_match(t)) {
                    if !g.raw.as_ref().is_none_or(|r| r.is_match(line)) {
                        // Not in the line at all: the errors of OpenCode's
                        // result, gathered from the lines before it.
                        continue;
                    }
                    checked += 1;
                    assert!(
                        g.line_may_match(line),
                        "{pattern} (-i: {ignore_case}): {}",
                        String::from_utf8_lossy(line)
                    );
                }
            }
        }
    }
    assert!(checked > 4000, "{checked}");
    let mut words: std::collections::HashMap<String, Grep> = std::collections::HashMap::new();
    let mut checked = 0;
    for (line, texts) in &lines {
        let Some(texts) = texts else { continue };
        let mut seen = std::collections::HashSet::new();
        for t in texts {
            let cap = if t.len() > 500 { 30 } else { usize::MAX };
            let each = t
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .filter(|w| w.len() > 1);
            for w in each.take(cap) {
                if !seen.insert(w) {
                    continue;
                }
                let g = words
                    .entry(w.to_string())
                    .or_insert_with(|| Grep::new(w, false).unwrap());
                if g.raw.as_ref().unwrap().is_match(line) {
                    checked += 1;
                    assert!(
                        g.line_may_match(line),
                        "{w}: {}",
                        String::from_utf8_lossy(line)
                    );
                }
            }
        }
    }
    assert!(checked > 4000, "{checked}");
}

/// `s` as JSON writes it with every character beyond ASCII escaped
/// (Python's `json.dumps`, `ensure_ascii`): surrogate pairs beyond the BMP.
fn ensure_ascii(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The ways producers write `s` in JSON: as it is (`serde_json`, Node),
/// `ensure_ascii`, Go's `<`, `>`, `&` as `\u003c`…, and `/` as `\/`.
fn written(s: &str) -> Vec<String> {
    let plain = serde_json::to_string(s).unwrap();
    let go = plain
        .replace('<', "\\u003c")
        .replace('>', "\\u003E")
        .replace('&', "\\u0026");
    let slash = plain.replace('/', "\\/");
    vec![plain, ensure_ascii(s), go, slash]
}

/// Plain patterns (the raw pre-check runs) with what may meet an escape:
/// `.`, classes, anchors, quantifiers, `<>&/`, and `k`/`s` under `-i`.
const PLAIN: &[&str] = &[
    "a.b",
    ".",
    "a.*b",
    "a.+",
    "x.{2}y",
    "[^a]",
    "a[^b]c",
    "[^a-z]+",
    "[ -~]",
    "a[ -~]b",
    "^a",
    "b$",
    "^a.b$",
    "^$",
    "^.",
    ".$",
    "<b>",
    "a&b",
    "a/b",
    "x<",
    "k",
    "s",
    "ks",
    "[ks]",
    "(?i)sk",
    "(?i:k)",
    "(a|.)b",
    "a(?:.b)*c",
    "[[:alpha:]]x",
    "[a-z&&[^b]]",
    "(?P<name>a.)",
    "(?<n>&)",
    "a.b|c<d",
];

/// [`PLAIN`] compiled, plain and `-i`.
static COMPILED: std::sync::LazyLock<Vec<(&str, bool, Grep)>> = std::sync::LazyLock::new(|| {
    PLAIN
        .iter()
        .flat_map(|p| [false, true].map(|i| (*p, i, Grep::new(p, i).unwrap())))
        .collect()
});

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

    /// Whatever a plain pattern matches in a decoded string, its raw
    /// pre-check matches in the line that holds the string, however the
    /// string was written.
    #[test]
    fn the_raw_check_matches_every_way_json_writes_a_match(
        chars in proptest::collection::vec(
            proptest::sample::select(vec![
                'a', 'b', 'c', 'x', 'y', 'k', 'K', 's', ' ', '\t', '\n', '"', '\\',
                '<', '>', '&', '/', 'é', '\u{212a}', '\u{17f}', '😀', '\u{1}', '.',
            ]),
            0..8,
        ),
    ) {
        let decoded: String = chars.into_iter().collect();
        for (pattern, ignore_case, g) in COMPILED.iter() {
            proptest::prop_assert!(g.raw.is_some(), "{pattern}: no raw check");
            if !g.text.is_match(&decoded) {
                continue;
            }
            for json in written(&decoded) {
                let line = format!(r#"{{"type":"assistant","text":{json},"n":1}}"#);
                proptest::prop_assert!(
                    g.line_may_match(line.as_bytes()),
                    "{pattern} (-i: {ignore_case}) matches {decoded:?}, not {line}"
                );
            }
        }
    }
}

#[test]
fn escapes_in_the_line_are_matched_by_the_raw_check() {
    let line = |text: &str| format!(r#"{{"type":"assistant","text":"{text}"}}"#);
    for (pattern, ignore_case, text) in [
        ("a.b", false, r"a\tb"),
        ("a.b", false, r"a\u00e9b"),
        ("a.b", false, "a\u{e9}b"),
        ("a.b", false, r"a\ud83d\ude00b"),
        ("a[^x]b", false, r#"a\"b"#),
        ("a.*b", false, r"a\\ \n b"),
        ("x.{2}y", false, r"x\t\u00e9y"),
        ("<div>", false, r"\u003cdiv\u003e"),
        ("a&b", false, r"a\u0026b"),
        ("a/b", false, r"a\/b"),
        ("^main", false, "fn main"),
        ("rs$", false, "main.rs is here"),
        ("k", true, r"\u212a"),
        ("s", true, "\u{17f}"),
    ] {
        assert!(
            may_match(pattern, ignore_case, &line(text)),
            "{pattern} {text}"
        );
    }
    // Common patterns keep a raw check, and it still leaves lines out.
    for pattern in ["foo.rs", "No such file", "a.b", "[^a]q", "^fn"] {
        assert!(
            !may_match(pattern, false, &line("nothing here")),
            "{pattern}"
        );
    }
}

/// A notice is searched when its line could hold the match (the
/// producer's words), as a search that leaves lines unread finds it; its
/// words of streamview's making are not; nor are results and summaries.
#[test]
fn notices_are_searched_by_their_lines_and_results_and_summaries_are_not() {
    let stream = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","cwd":"/w","tools":[]}"#,
        "\n",
        r#"{"type":"system","subtype":"compact_boundary","session_id":"s1","compact_metadata":{"trigger":"auto","pre_tokens":9}}"#,
        "\n",
        r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"a","status":"pending"}]}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"npm test"}}]}}"#,
        "\n",
        r#"{"type":"assistant","session_id":"s1","error":"rate_limit","message":{"id":"m2","model":"<synthetic>","content":[{"type":"text","text":"API Error: Rate limit reached"}]}}"#,
        "\n",
        r#"{"type":"result","subtype":"error_during_execution","session_id":"s1","is_error":true,"errors":["boom failed"]}"#,
        "\n",
    );
    for word in ["compacted", "item", "boom"] {
        assert_eq!(
            finds(&Grep::new(word, false).unwrap(), stream),
            Vec::<String>::new(),
            "{word}"
        );
    }
    // The producer's words: the compaction's line says `compact`, the
    // API error's its text.
    assert_eq!(
        finds(&Grep::new("compact", false).unwrap(), stream),
        ["notice:compact"]
    );
    assert_eq!(
        finds(&Grep::new("rate limit", true).unwrap(), stream),
        ["notice:Rate limit"]
    );
    // A key argument the input holds as it is: searched first.
    assert_eq!(
        finds(&Grep::new("npm", false).unwrap(), stream),
        ["tool_call:npm"]
    );
    let mut scratch = String::new();
    let mut fields = Vec::new();
    decoded(stream, &mut |ev: &Event<'_>| {
        each_field(ev, &mut scratch, &|_: &str| true, &mut |f: &str| {
            fields.push(f.to_string());
        });
    });
    assert!(fields.contains(&"npm test".to_string()), "{fields:?}");
}

#[test]
fn the_field_of_a_call_input_that_holds_a_match() {
    let re = Regex::new("first item").unwrap();
    // In the order the input is written, not the keys' order.
    let input = r#"{"replace_all":false,"old_string":"- [ ] first item","new_string":"- [x] first item (done)"}"#;
    let hit = show::input_field(&re, input).unwrap();
    assert_eq!(
        (hit.path.as_str(), hit.text.as_str(), hit.start, hit.end),
        ("old_string", "- [ ] first item", 6, 16)
    );
    let re = Regex::new("notes").unwrap();
    let input = r#"{"todos":[{"content":"Create file","status":"done"},{"content":"Edit the notes","status":"pending"}]}"#;
    let hit = show::input_field(&re, input).unwrap();
    assert_eq!(hit.path, "todos[1].content");
    // Escapes are read: the field's text is the producer's.
    let re = Regex::new("a\tb").unwrap();
    let hit = show::input_field(&re, r#"{"command":"echo \"a\tb\""}"#).unwrap();
    assert_eq!(hit.text, "echo \"a\tb\"");
    // A match in a key, a number, or not JSON: none.
    let re = Regex::new("status|42").unwrap();
    assert_eq!(show::input_field(&re, r#"{"status":42}"#), None);
    assert_eq!(show::input_field(&re, "status 42 {"), None);
    // Nested past the depth looked into: none, and no overflow.
    let deep = format!("{}\"status\"{}", "[".repeat(5000), "]".repeat(5000));
    assert_eq!(show::input_field(&re, &deep), None);
}
