use super::*;
use proptest::prelude::*;
use serde_json::{Map, Value as Json};

/// The whole line read with the lexer, as `serde_json`'s tree; `None` where
/// the lexer declines it.
fn lexed(line: &[u8]) -> Option<Json> {
    let arena = Arena::default();
    let mut lx = Lexer::new(line);
    let v = value(&mut lx, &arena)?;
    lx.at_end().then_some(v)
}

fn value(lx: &mut Lexer<'_>, arena: &Arena) -> Option<Json> {
    Some(match lx.value().ok()? {
        Token::Object => {
            let mut m = Map::new();
            while let Some(k) = lx.key().ok()? {
                let v = value(lx, arena)?;
                // A key twice: declined, as the decoders that read lines
                // here decline it.
                if m.insert(String::from_utf8(k.to_vec()).unwrap(), v)
                    .is_some()
                {
                    return None;
                }
            }
            Json::Object(m)
        }
        Token::Str(s) => Json::String(s.text(arena).into_owned()),
        Token::Int(n) => Json::from(n),
        Token::Bool(b) => Json::Bool(b),
        Token::Null => Json::Null,
    })
}

/// The line read by simd-json, as `serde_json`'s tree; `None` where
/// simd-json refuses it.
fn parsed(line: &[u8]) -> Option<Json> {
    let mut buf = line.to_vec();
    let v = simd_json::to_borrowed_value(&mut buf).ok()?;
    Some(tree(&v))
}

fn tree(v: &simd_json::BorrowedValue<'_>) -> Json {
    use simd_json::prelude::*;
    if let Some(o) = v.as_object() {
        return Json::Object(o.iter().map(|(k, x)| (k.to_string(), tree(x))).collect());
    }
    if let Some(a) = v.as_array() {
        return Json::Array(a.iter().map(tree).collect());
    }
    if let Some(s) = v.as_str() {
        return Json::String(s.to_owned());
    }
    if let Some(n) = v.as_u64() {
        return Json::from(n);
    }
    if let Some(n) = v.as_i64() {
        return Json::from(n);
    }
    if let Some(f) = v.as_f64() {
        return serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number);
    }
    if let Some(b) = v.as_bool() {
        return Json::Bool(b);
    }
    Json::Null
}

/// What the lexer accepts, simd-json accepts and reads the same.
fn agrees(line: &[u8]) -> Result<(), TestCaseError> {
    if let Some(ours) = lexed(line) {
        let theirs = parsed(line);
        prop_assert!(
            theirs.is_some(),
            "accepted, simd-json refuses: {:?}",
            String::from_utf8_lossy(line)
        );
        prop_assert_eq!(Some(ours), theirs, "{:?}", String::from_utf8_lossy(line));
    }
    Ok(())
}

const DELTA: &str = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hé \"quoted\"\n\ttab \\ / \/ 🚀"}},"session_id":"d83af8a3-527e-49ef-84f7-dd10dd05696b","parent_tool_use_id":null,"uuid":"592e0dc5-f13f-41d0-8099-e39c46ae89ab","ttft_ms":805,"ok":true,"no":false}"#;

#[test]
fn a_delta_line_is_read_whole_and_as_simd_json_reads_it() {
    let ours = lexed(DELTA.as_bytes()).expect("accepted");
    assert_eq!(Some(ours.clone()), parsed(DELTA.as_bytes()));
    assert_eq!(
        ours["event"]["delta"]["text"],
        "Hé \"quoted\"\n\ttab \\ / / 🚀"
    );
    assert_eq!(ours["ttft_ms"], 805);
}

#[test]
fn text_without_escapes_is_borrowed_from_the_line() {
    let arena = Arena::default();
    let line = br#""plain text""#;
    let mut lx = Lexer::new(line);
    let Ok(Token::Str(s)) = lx.value() else {
        panic!("a string");
    };
    assert!(matches!(s.text(&arena), Cow::Borrowed(t) if t.as_ptr() == line[1..].as_ptr()));
    assert!(s.is("plain text"));
    let line = br#""a\nb""#;
    let Ok(Token::Str(s)) = Lexer::new(line).value() else {
        panic!("a string");
    };
    assert_eq!(s.text(&arena), "a\nb");
    assert!(!s.is("a\\nb"), "an escaped body is not its text");
}

#[test]
fn what_the_lexer_leaves_to_the_parser() {
    for line in [
        // Whitespace, arrays, numbers other than small unsigned integers.
        r#"{ "a":1}"#,
        r#"{"a": 1}"#,
        r#"{"a":1} "#,
        r#"{"a":[]}"#,
        r#"{"a":-1}"#,
        r#"{"a":1.0}"#,
        r#"{"a":1e3}"#,
        r#"{"a":01}"#,
        r#"{"a":1234567890123456789}"#,
        // `\u` escapes (a lone surrogate is repaired by the parser's path).
        r#"{"a":"\u0041"}"#,
        r#"{"a":"\ud83d"}"#,
        // Keys with escapes or past ASCII.
        r#"{"a\"b":1}"#,
        r#"{"é":1}"#,
        // What simd-json refuses too.
        "{\"a\":\"x\u{1}y\"}",
        "{\"a\":\"x\ty\"}",
        r#"{"a":"\x"}"#,
        r#"{"a":"unterminated}"#,
        r#"{"a":1,}"#,
        r#"{,"a":1}"#,
        r#"{"a":1"b":2}"#,
        r#"{"a"1}"#,
        r#"{"a":nul}"#,
        r#"{"a":truex}"#,
        r#"{"a":{"b":1}"#,
        r#"{"a":1}}"#,
        r#"{"a":1}{"#,
        "",
    ] {
        assert_eq!(lexed(line.as_bytes()), None, "{line:?}");
    }
    // Invalid UTF-8 in a string: before a stop and in a sixteen-byte block.
    for bad in [
        &b"{\"a\":\"\xff\"}"[..],
        b"{\"a\":\"0123456789abcdef\xc3(0123456789\"}",
    ] {
        assert_eq!(lexed(bad), None);
        assert_eq!(parsed(bad), None, "simd-json refuses it too");
    }
}

#[test]
fn what_the_lexer_reads() {
    for line in [
        "{}",
        r#"{"a":{}}"#,
        r#"{"a":0,"b":18,"c":999999999999999999}"#,
        r#"{"a":"","b":"\"","c":"\\\\","d":"\/\b\f\n\r\t"}"#,
        r#"{"a":{"b":{"c":null}},"d":true,"e":false}"#,
        "{\"long\":\"0123456789abcdef0123456789abcdefé0123456789abcdef\\n0123456789abcdef\"}",
        "\"a string alone\"",
    ] {
        let ours = lexed(line.as_bytes());
        assert!(ours.is_some(), "{line:?}");
        assert_eq!(ours, parsed(line.as_bytes()), "{line:?}");
    }
}

/// Bytes that make up JSON, and the ones that break it.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "{", "}", "\"", ":", ",", "\\", "\\n", "\\\"", "\\u0041", "a", "type", "0", "1", "-", ".",
        "e", "null", "true", "false", " ", "\t", "é", "🚀", "\u{1}", "\u{7f}", "[", "]",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn pieces_the_lexer_accepts_are_read_as_simd_json_reads_them(
        pieces in prop::collection::vec(piece(), 0..40)
    ) {
        agrees(pieces.concat().as_bytes())?;
    }

    #[test]
    fn a_delta_line_changed_anywhere_is_read_right_or_declined(
        at in 0usize..DELTA.len(),
        len in 0usize..4,
        with in prop::collection::vec(any::<u8>(), 0..4),
    ) {
        let mut line = DELTA.as_bytes().to_vec();
        let end = (at + len).min(line.len());
        line.splice(at..end, with);
        agrees(&line)?;
    }
}
