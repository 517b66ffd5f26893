use super::*;

#[test]
fn has_unsafe_finds_what_the_sanitizer_flags() {
    for c in (0x20u32..0x3000).filter_map(char::from_u32) {
        for pad in ["", "a", "\\n…"] {
            let s = format!("{pad}{c}x");
            assert_eq!(
                has_unsafe(s.as_bytes()),
                is_unsafe(c),
                "{c:?} after {pad:?}"
            );
        }
    }
}

/// Past the first 64 bytes, where the lead bytes are found a block at a
/// time: every character whose lead byte is looked for, at every offset
/// around the blocks' edges (a character cut by one included), after a
/// run of harmless characters with the same leads.
#[test]
fn has_unsafe_finds_them_at_every_offset_of_a_long_text() {
    let leads = (0x7fu32..0x3000)
        .filter_map(char::from_u32)
        .filter(|c| matches!(c.to_string().as_bytes()[0], 0x7f | 0xc2 | 0xd8 | 0xe2));
    for c in leads {
        for at in 0..140 {
            let before: String = "”●\u{a0}a".chars().cycle().take(at).collect();
            let s = format!("{before}{c}{}", "b".repeat(140 - at));
            assert_eq!(has_unsafe(s.as_bytes()), is_unsafe(c), "{c:?} at {at}");
        }
    }
}

proptest::proptest! {
    /// Any bytes (valid UTF-8 or not): true exactly when a byte past
    /// ASCII starts what `escape_at` flags.
    #[test]
    fn has_unsafe_is_the_byte_by_byte_answer(
        bytes in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::prelude::Just(0x7fu8),
                proptest::prelude::Just(0xc2),
                proptest::prelude::Just(0xd8),
                proptest::prelude::Just(0xe2),
                proptest::prelude::Just(0x80),
                proptest::prelude::Just(0x81),
                proptest::prelude::Just(0xae),
                proptest::prelude::any::<u8>(),
            ],
            0..300,
        ),
    ) {
        let naive = (0..bytes.len()).any(|p| bytes[p] >= 0x7f && escape_at(&bytes, p).is_some());
        proptest::prop_assert_eq!(has_unsafe(&bytes), naive);
    }
}

#[test]
fn escape_at_finds_exactly_the_unsafe_characters() {
    for c in (0u32..0x3000).filter_map(char::from_u32) {
        let s = format!("a{c}b");
        let want = (c == '\n' || c == '\t' || is_unsafe(c)).then(|| (c.len_utf8(), c as u32));
        assert_eq!(escape_at(s.as_bytes(), 1), want, "{c:?}");
        assert_eq!(escape_at(s.as_bytes(), 0), None);
    }
    assert_eq!(escape_at(b"\xe2\x80", 0), None);
    assert_eq!(escape_at(b"", 0), None);
}

proptest::proptest! {
    #[test]
    fn the_word_scan_finds_what_the_byte_scan_finds(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
        from in 0usize..80,
        quotes in proptest::prelude::any::<bool>(),
    ) {
        let table = if quotes { &STRING_SPECIAL } else { &SUSPECT };
        let from = from.min(bytes.len());
        let naive = bytes[from..].iter().position(|&c| table[usize::from(c)]).map(|p| from + p);
        proptest::prop_assert_eq!(find_special(&bytes, from, table), naive);
    }
}

#[test]
fn the_word_scan_sees_every_special_byte_at_every_offset() {
    for table in [&STRING_SPECIAL, &SUSPECT] {
        for b in 0..=255u8 {
            for at in 0..20 {
                let mut bytes = vec![b'a'; 20];
                bytes[at] = b;
                let want = table[usize::from(b)].then_some(at);
                assert_eq!(find_special(&bytes, 0, table), want, "{b:#x} at {at}");
            }
        }
    }
}

fn json_str(s: &str) -> String {
    let mut b = Vec::new();
    push_json_str(&mut b, s);
    String::from_utf8(b).unwrap()
}

#[test]
fn strings_read_back_exactly_and_carry_nothing_unsafe() {
    let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
    for s in [
        all.as_str(),
        "",
        "plain",
        "\"\\",
        "a\u{202e}b\u{9b}c\u{7f}",
        "é—ü\u{2028}",
    ] {
        let out = json_str(s);
        assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s);
        assert!(!out.chars().any(|c| c == '\n' || c == '\t' || is_unsafe(c)));
    }
}

#[test]
fn ordinary_strings_are_written_as_serde_json_does() {
    for s in [
        "plain",
        "quote \" and \\ back",
        "tab\tnl\ncr\r\u{8}\u{c}\u{1b}[0m",
        "日本語 👍",
    ] {
        assert_eq!(json_str(s), serde_json::to_string(s).unwrap());
    }
    assert_eq!(json_str("\u{9b}\u{202e}\u{7f}"), r#""\u009b\u202e\u007f""#);
}

#[test]
fn embedded_json_keeps_its_value() {
    let raw = "{\"a\":\"x\u{202e}\u{85}\u{7f}\",\t\"b\" :\r[1, 2]}";
    let mut b = Vec::new();
    push_safe_json(&mut b, raw);
    let out = String::from_utf8(b).unwrap();
    assert!(!out.chars().any(|c| c == '\t' || c == '\r' || is_unsafe(c)));
    let a: serde_json::Value = serde_json::from_str(raw).unwrap();
    let b: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(a, b);
}

/// The copying version [`make_json_safe`] replaced: the reference.
fn safe_json_by_copy(json: &str) -> Vec<u8> {
    let bytes = json.as_bytes();
    let mut b = Vec::new();
    let (mut done, mut i) = (0, 0);
    while let Some(p) = find_special(bytes, i, &SUSPECT) {
        i = p;
        match escape_at(bytes, i) {
            None => i += 1,
            Some((len, cp)) => {
                b.extend_from_slice(&bytes[done..i]);
                if cp < 0x20 {
                    b.push(b' ');
                } else {
                    push_u_escape(&mut b, cp);
                }
                i += len;
                done = i;
            }
        }
    }
    b.extend_from_slice(&bytes[done..]);
    b
}

proptest::proptest! {
    #[test]
    fn making_json_safe_in_place_gives_what_copying_gave(
        prefix in "[a-z]{0,4}",
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::prelude::Just("\u{202e}".to_string()),
                proptest::prelude::Just("\u{85}".to_string()),
                proptest::prelude::Just("\u{7f}".to_string()),
                proptest::prelude::Just("\t".to_string()),
                proptest::prelude::Just("\r".to_string()),
                proptest::prelude::Just("é—…".to_string()),
                "[ -~]{0,12}",
            ],
            0..12,
        ),
    ) {
        let json: String = parts.concat();
        let mut b = prefix.as_bytes().to_vec();
        make_json_safe(&mut b, 0);
        b.extend_from_slice(json.as_bytes());
        let start = prefix.len();
        make_json_safe(&mut b, start);
        let mut want = prefix.as_bytes().to_vec();
        want.extend(safe_json_by_copy(&json));
        proptest::prop_assert_eq!(b, want);
    }
}

#[test]
fn the_summary_formatter_escapes_as_the_jsonl_does() {
    // Every character to U+3000 alone, between ASCII, after a long clean
    // run (the 16-byte steps of `find_special`) and doubled.
    let long = "x".repeat(37);
    for c in (0u32..0x3000).filter_map(char::from_u32) {
        for s in [
            format!("{c}"),
            format!("a{c}b"),
            format!("{long}{c}{long}"),
            format!("{c}{c}é{long}"),
        ] {
            let mut jsonl = Vec::new();
            push_json_str(&mut jsonl, &s);
            let mut ser = serde_json::Serializer::with_formatter(Vec::new(), SafeFormatter);
            serde::Serialize::serialize(&s, &mut ser).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&ser.into_inner()),
                String::from_utf8_lossy(&jsonl),
                "{c:?} in {s:?}"
            );
        }
    }
}

/// The text of a JSON string body, by `serde_json`: the reference.
fn serde_text(body: &str) -> String {
    serde_json::from_str(&format!("\"{body}\"")).unwrap()
}

#[test]
fn unescape_gives_the_text_at_every_offset_and_across_the_buffer() {
    // Every escape, and characters of every width, at every offset of the
    // 64-byte blocks; then long enough to fill the buffer several times,
    // with the characters cut by its edges.
    let pieces = [
        "\\n", "\\t", "\\r", "\\b", "\\f", "\\\"", "\\\\", "\\/", "\\u001b", "\\u00e9", "\\u20AC",
        "é", "€", "😀", "a",
    ];
    for piece in pieces {
        for pad in 0..140 {
            for after in ["", "x", "é", "😀", "\\n"] {
                let body = format!("{}{piece}{after}", "a".repeat(pad));
                assert_eq!(unescape(&body), serde_text(&body), "{body:?}");
            }
        }
    }
    // Bodies of every size of buffer (short ones get a short buffer).
    for (width, count) in ["a", "é", "€", "😀"]
        .into_iter()
        .flat_map(|w| [100, 300, 700, 12_000].map(|n| (w, n)))
    {
        for every in [1, 3, 7, 16, 17, 100] {
            let body: String = (0..count)
                .map(|i| {
                    if i % every == 0 {
                        "\\n".to_string()
                    } else {
                        width.to_string()
                    }
                })
                .collect();
            assert_eq!(
                unescape(&body),
                serde_text(&body),
                "{count} {width} every {every}"
            );
        }
    }
}

proptest::proptest! {
    #[test]
    fn unescape_reads_what_serde_json_reads(text in "(?s).{0,300}") {
        // Written as JSON by `serde_json`, escapes and all, then read back.
        let json = serde_json::to_string(&text).unwrap();
        let body = &json[1..json.len() - 1];
        proptest::prop_assert_eq!(unescape(body), text);
    }
}
