//! What is done with a line simd-json rejected: lone UTF-16 surrogate
//! escapes read as U+FFFD, where the escape that failed is (simd-json
//! reports it from the start of its string), and what is wrong with the
//! line's structure, in words (simd-json's `InternalError` or
//! `ExpectedObjectContent` say little to a user).
//!
//! Node's `JSON.stringify` writes a string cut in the middle of an emoji
//! with a lone surrogate escape (`"\ud83d"`), and Python and Node parse
//! it back; simd-json, like `serde_json`, rejects the line. streamview
//! reads such an escape as U+FFFD, as a lenient UTF-16 decoder does, so
//! the line is not lost (issue 18).
//!
//! Backslashes only occur inside strings in valid JSON, and every escape
//! says how long it is, so the escapes are found by a scan from backslash
//! to backslash, without tracking strings.

use super::escape::hex4;

const HIGH: std::ops::Range<u32> = 0xd800..0xdc00;
const LOW: std::ops::Range<u32> = 0xdc00..0xe000;

/// One escape of a line.
enum Escape {
    /// Valid, this many bytes long.
    Valid(usize),
    /// A surrogate without its other half (6 bytes).
    Lone,
    /// Not a JSON escape.
    Invalid,
}

/// The escape whose backslash is at `at`.
fn escape(line: &[u8], at: usize) -> Escape {
    match line.get(at + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Escape::Valid(2),
        Some(b'u') => match line.get(at + 2..at + 6).and_then(hex4) {
            None => Escape::Invalid,
            Some(cp) if HIGH.contains(&cp) => {
                let next = line.get(at + 6..at + 8) == Some(b"\\u");
                match line.get(at + 8..at + 12).and_then(hex4) {
                    Some(low) if next && LOW.contains(&low) => Escape::Valid(12),
                    _ => Escape::Lone,
                }
            }
            Some(cp) if LOW.contains(&cp) => Escape::Lone,
            Some(_) => Escape::Valid(6),
        },
        _ => Escape::Invalid,
    }
}

/// `out` := `line` with each lone surrogate escape replaced by `\ufffd`
/// (the same length: offsets in the line stay right). False when there
/// was none (`out` is then undefined).
pub(crate) fn replace_lone_surrogates(line: &[u8], out: &mut Vec<u8>) -> bool {
    let mut found = false;
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'\\', line.get(i..).unwrap_or_default()) {
        let at = i + p;
        i = match escape(line, at) {
            Escape::Valid(n) => at + n,
            Escape::Invalid => at + 2,
            Escape::Lone => {
                if !found {
                    out.clear();
                    out.extend_from_slice(line);
                    found = true;
                }
                out[at..at + 6].copy_from_slice(b"\\ufffd");
                at + 6
            }
        };
    }
    found
}

/// Offset of the first escape of `line` that is not JSON, if any (a lone
/// surrogate is read, see [`replace_lone_surrogates`]).
pub(crate) fn first_bad_escape(line: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'\\', line.get(i..).unwrap_or_default()) {
        let at = i + p;
        match escape(line, at) {
            Escape::Valid(n) => i = at + n,
            Escape::Lone => i = at + 6,
            Escape::Invalid => return Some(at),
        }
    }
    None
}

/// What is wrong with the brackets and strings of a line that starts with
/// `{` or `[`, and where: an unterminated string (at its quote), a
/// bracket that closes nothing or the wrong thing, an object or array
/// never closed (at its opening bracket), or something after the value.
/// `None` when they are sound (the fault is elsewhere).
pub(crate) fn structure_fault(line: &[u8]) -> Option<(usize, &'static str)> {
    // Only on lines that failed: the stack may allocate.
    let mut open: Vec<(u8, usize)> = Vec::new();
    let mut i = 0;
    let mut done = false;
    while let Some(&c) = line.get(i) {
        if done && !c.is_ascii_whitespace() {
            let what = if matches!(c, b'{' | b'[') {
                "two JSON values on one line"
            } else {
                "extra text after the JSON value"
            };
            return Some((i, what));
        }
        match c {
            b'"' => {
                let mut j = i + 1;
                loop {
                    let Some(p) = memchr::memchr2(b'"', b'\\', line.get(j..).unwrap_or_default())
                    else {
                        return Some((i, "unterminated string"));
                    };
                    if line[j + p] == b'"' {
                        break i = j + p;
                    }
                    j += p + 2;
                }
            }
            b'{' | b'[' => open.push((c, i)),
            b'}' | b']' => {
                let want = if c == b'}' { b'{' } else { b'[' };
                match open.pop() {
                    None => return Some((i, "a closing bracket that closes nothing")),
                    Some((o, _)) if o != want => {
                        let what = if o == b'{' {
                            "`]` where the object needs its `}`"
                        } else {
                            "`}` where the array needs its `]`"
                        };
                        return Some((i, what));
                    }
                    Some(_) => done = open.is_empty(),
                }
            }
            _ => {}
        }
        i += 1;
    }
    let &(o, at) = open.last()?;
    Some((
        at,
        if o == b'{' {
            "unterminated object"
        } else {
            "unterminated array"
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(line: &str) -> Option<String> {
        let mut out = Vec::new();
        replace_lone_surrogates(line.as_bytes(), &mut out).then(|| String::from_utf8(out).unwrap())
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        assert_eq!(
            repaired(r#"{"t":"cut \ud83d"}"#).as_deref(),
            Some(r#"{"t":"cut \ufffd"}"#)
        );
        assert_eq!(
            repaired(r#"{"t":"\udc00x\uD800\u0041"}"#).as_deref(),
            Some(r#"{"t":"\ufffdx\ufffd\u0041"}"#)
        );
        // Two high ones: the first is lone, the second has its low half.
        assert_eq!(
            repaired(r#"["\ud83d\ud83d\ude00"]"#).as_deref(),
            Some(r#"["\ufffd\ud83d\ude00"]"#)
        );
        // At the very end of a (cut) line.
        assert_eq!(repaired(r#"["\ud83d"#).as_deref(), Some(r#"["\ufffd"#));
    }

    #[test]
    fn pairs_and_escaped_backslashes_are_left_alone() {
        for line in [
            r#"{"t":"😀 \ud83d\ude00"}"#,
            r#"{"t":"\\ud83d"}"#,
            r#"{"t":"\\\\ud83d \u00e9 \n \x"}"#,
            r#"{"t":"\ud8"}"#,
            "no escapes",
            "\\",
        ] {
            assert_eq!(repaired(line), None, "{line}");
        }
    }

    #[test]
    fn structure_faults_are_named_where_they_are() {
        for (line, at, what) in [
            (r#"{"a":1}{"b":2}"#, 7, "two JSON values on one line"),
            (r#"{"a":1} [2]"#, 8, "two JSON values on one line"),
            (r#"{"a":1} x"#, 8, "extra text after the JSON value"),
            (r#"{"a":1}}"#, 7, "extra text after the JSON value"),
            (r#"{"a":1"#, 0, "unterminated object"),
            (r#"{"a":{"b":{"c":1}}"#, 0, "unterminated object"),
            (r#"{"a":[1,2"#, 5, "unterminated array"),
            (r#"{"a":"x\"}"#, 5, "unterminated string"),
            (r#"{"a":"x\"#, 5, "unterminated string"),
            (r#"{"a":[1,2}"#, 9, "`}` where the array needs its `]`"),
            (r#"{"a":1]"#, 6, "`]` where the object needs its `}`"),
        ] {
            assert_eq!(structure_fault(line.as_bytes()), Some((at, what)), "{line}");
        }
        for sound in [r#"{"a":"}]\"{"}"#, r#"[{"a":[]}]  "#, r#"{"a":tru}"#] {
            assert_eq!(structure_fault(sound.as_bytes()), None, "{sound}");
        }
    }

    #[test]
    fn the_first_bad_escape_is_found_in_the_line() {
        assert_eq!(first_bad_escape(br#"{"a":"\n","b":"\x"}"#), Some(15));
        assert_eq!(first_bad_escape(br#"{"a":"\\x \u12"}"#), Some(10));
        assert_eq!(first_bad_escape(br#"{"a":"\ud800\x"}"#), Some(12));
        assert_eq!(first_bad_escape(br#"{"a":"\ud800\udc00"}"#), None);
        assert_eq!(first_bad_escape(b"\\"), Some(0));
    }
}
