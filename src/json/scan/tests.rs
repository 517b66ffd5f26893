use super::*;
use proptest::prelude::*;

/// The strings of a valid JSON line, a byte at a time: (body start, body
/// end, followed by `:`).
fn reference_strings(line: &[u8]) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i] == b'"' {
            let start = i + 1;
            let mut j = start;
            while line[j] != b'"' {
                j += if line[j] == b'\\' { 2 } else { 1 };
            }
            let key = line[j + 1..].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b':');
            out.push((start, j, key));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// What streamview's writers make of `text`.
fn our_escape(text: &str) -> String {
    let mut o = String::new();
    for c in text.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            '\u{8}' => o.push_str("\\b"),
            '\u{c}' => o.push_str("\\f"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o
}

fn expected(line: &[u8], min_len: usize) -> Vec<Long<'_>> {
    reference_strings(line)
        .into_iter()
        .filter(|&(s, e, key)| !key && (e - s >= min_len || line[s..e].starts_with(b"\\u0000")))
        .map(|(start, end, _)| {
            let body = std::str::from_utf8(&line[start..end]).unwrap();
            let text: String = serde_json::from_str(&format!("\"{body}\"")).unwrap();
            Long {
                start,
                body,
                escaped: body.contains('\\'),
                canonical: our_escape(&text) == body,
            }
        })
        .collect()
}

/// What [`long_strings`] finds, checked to be what the SSE2 instance finds
/// (on a processor with AVX2, `long_strings` runs the AVX2 one).
fn scanned(line: &[u8], min_len: usize) -> Option<Vec<Long<'_>>> {
    let mut out = Vec::new();
    let found = long_strings(line, min_len, &mut out).then_some(out);
    let mut sse2 = Vec::new();
    let by_sse2 = scan_line(line, min_len, &mut sse2, masks).then_some(sse2);
    assert_eq!(found, by_sse2, "the AVX2 and SSE2 scans disagree");
    found
}

/// Pieces strings are made of: plain runs, runs of backslashes, escapes of
/// every kind, characters a terminal must not get, multi-byte text.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,70}",
        Just("\\\\".into()),
        Just("\\\\\\\\".into()),
        Just("\\\"".into()),
        Just("\\n".into()),
        Just("\\t".into()),
        Just("\\/".into()),
        Just("\\u001b".into()),
        Just("\\u001B".into()),
        Just("\\u000a".into()),
        Just("\\u00e9".into()),
        Just("\\u0000".into()),
        Just("\\ud83d\\ude80".into()),
        Just("\u{85}".into()),
        Just("\u{202e}".into()),
        Just("\u{7f}".into()),
        Just("…“✓".into()),
        Just("日本語 café 🚀".into()),
        Just(":{}[],\"".replace('"', "\\\"")),
    ]
}

fn body() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|p| p.concat())
}

/// A JSON object with string, nested and other values, keys that may be
/// long, whitespace here and there.
fn line() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        body().prop_map(|b| format!("\"{b}\"")),
        body().prop_map(|b| format!("[\"{b}\", 1, {{\"k\" : \"{b}\"}}]")),
        Just("null".to_string()),
        Just("-1.5e3".to_string()),
    ];
    prop::collection::vec((body(), value, " ?"), 1..6).prop_map(|kv| {
        let fields: Vec<String> = kv
            .into_iter()
            .map(|(k, v, ws)| format!("\"{k}\"{ws}:{ws}{v}"))
            .collect();
        format!("{{{}}}", fields.join(","))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn finds_what_a_byte_by_byte_reading_finds(line in line(), min_len in 0usize..200) {
        // Only valid JSON is compared (the generator rarely makes a lone
        // surrogate or such); simd-json would reject the rest.
        prop_assume!(serde_json::from_str::<serde_json::Value>(&line).is_ok());
        let line = line.as_bytes();
        let got = scanned(line, min_len);
        let has_surrogate = line.windows(3).any(|w| w == b"\\ud" || w == b"\\uD");
        if has_surrogate {
            // Left to simd-json when a long string holds one.
            if let Some(got) = got {
                prop_assert_eq!(got, expected(line, min_len));
            }
        } else {
            prop_assert_eq!(got, Some(expected(line, min_len)));
        }
    }

    #[test]
    fn sse2_masks_match_the_scalar_ones(bytes in prop::collection::vec(
        prop_oneof![any::<u8>(), Just(0xe2u8), Just(0x80), Just(0x81), Just(0xc2), Just(0xaa), Just(0xa6)],
        64,
    )) {
        let b: [u8; 64] = bytes.try_into().unwrap();
        prop_assert_eq!(masks(&b), masks_scalar(&b));
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx2_masks_match_the_scalar_ones(bytes in prop::collection::vec(
        prop_oneof![any::<u8>(), Just(b'"'), Just(b'\\'), Just(b'n'), Just(b't'), Just(0x1f), Just(0x20)],
        64,
    )) {
        if std::is_x86_feature_detected!("avx2") {
            let b: [u8; 64] = bytes.try_into().unwrap();
            // SAFETY: the processor has AVX2 (checked just above).
            #[allow(unsafe_code)]
            let m = unsafe { masks_avx2(&b) };
            prop_assert_eq!(m, masks_scalar(&b));
        }
    }

    #[test]
    fn never_panics(
        bytes in prop::collection::vec(
            prop_oneof![any::<u8>(), Just(b'"'), Just(b'\\'), Just(b'u'), Just(b'0'), Just(b':')],
            0..600,
        ),
        min_len in 0usize..50,
    ) {
        let _ = scanned(&bytes, min_len);
    }
}

#[test]
fn a_long_value_is_found_and_a_long_key_is_not() {
    let long = "x".repeat(2000);
    let line = format!(r#"{{"{long}":1,"a":"{long}","b" : "short"}}"#);
    let got = scanned(line.as_bytes(), MIN_LEN).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body, long);
    assert_eq!(
        got[0].start,
        line.find(&format!(r#""a":"{long}"#)).unwrap() + 5
    );
    assert!(!got[0].escaped && got[0].canonical);
}

#[test]
fn strings_across_block_boundaries_and_escaped_quotes() {
    // Backslash runs and quotes at every offset around a block boundary.
    for pad in 0..130 {
        for run in 0..5 {
            let body = format!("{}{}\\\"z", "a".repeat(pad), "\\\\".repeat(run));
            let line = format!(r#"{{"k":"{body}","j":"tail"}}"#);
            let got = scanned(line.as_bytes(), 0).unwrap();
            let bodies: Vec<&str> = got.iter().map(|l| l.body).collect();
            assert_eq!(bodies, [body.as_str(), "tail"], "pad {pad} run {run}");
        }
    }
}

#[test]
fn flags() {
    let one = |body: &str| {
        let line = format!(r#"{{"k":"{body}"}}"#);
        let l = scanned(line.as_bytes(), 0).unwrap()[0];
        (l.escaped, l.canonical)
    };
    assert_eq!(one("a\\nb\\\"c\\\\d\\u001be"), (true, true));
    for other in ["\\/", "\\u00e9", "\\u001B", "\\u000a", "\\u0085"] {
        assert_eq!(one(other), (true, false), "{other}");
    }
    for plain in ["\u{85}", "\u{202e}", "…", "“x”", "✓", "é", "plain"] {
        assert_eq!(one(plain), (false, true), "{plain:?}");
    }
}

#[test]
fn anything_unusual_leaves_the_line_to_simd_json() {
    let long = "x".repeat(100);
    for bad in [
        format!(r#"{{"k":"{long}"#),          // unterminated
        format!("{{\"k\":\"{long}\u{1}\"}}"), // raw control
        format!("{{\"k\":\"{long}\t\"}}"),    // raw tab
        format!(r#"{{"k":"{long}\x"}}"#),     // unknown escape
        format!(r#"{{"k":"{long}\u12"}}"#),   // short \u
        format!(r#"{{"k":"{long}\ud800"}}"#), // surrogate
        format!(r#"{{"k":"{long}\"#),         // ends with a backslash
        format!(r#"{{"k":"{long}\\\"#),       // ... after escaped ones
    ] {
        assert_eq!(scanned(bad.as_bytes(), 10), None, "{bad}");
    }
    // Invalid UTF-8 in a long body.
    let mut line = format!(r#"{{"k":"{long}"}}"#).into_bytes();
    line[10] = 0xff;
    assert_eq!(scanned(&line, 10), None);
}
