//! The driver: what becomes of a line (blank, not JSON, not UTF-8, wrapped
//! in terminal noise…), every fixture of every producer, and long strings
//! spared the parser.

use super::line::strip_terminal_noise;
use super::testing::*;

// ---------------------------------------------------------------------------
// Line classification

#[test]
fn empty_and_whitespace_lines_are_blank() {
    for s in [
        "",
        " ",
        "\t",
        "   \t  ",
        "\r",
        " \x0c ",
        "\u{feff}",
        "\u{feff}  ",
    ] {
        let (d, evs) = dec1(s);
        assert_eq!(d, Decoded::Blank, "{s:?}");
        assert!(evs.is_empty());
    }
}

#[test]
fn utf8_bom_is_tolerated() {
    let ev = one("\u{feff}{\"type\":\"result\",\"subtype\":\"success\",\"num_turns\":2}");
    assert_eq!(as_session_result(&ev).num_turns, Some(2));
}

#[test]
fn surrounding_whitespace_is_tolerated() {
    let ev = one("  {\"type\":\"result\",\"subtype\":\"success\",\"num_turns\":3}\t ");
    assert_eq!(as_session_result(&ev).num_turns, Some(3));
}

#[test]
fn invalid_json_object_is_skipped() {
    for s in [
        "{",
        r#"{"type":"assistant""#,
        r#"{"type":"assistant",}"#,
        r#"{"a":1} trailing"#,
        "{not json}",
        "[1,2",
    ] {
        let (d, evs) = dec1(s);
        match d {
            Decoded::Skipped(LineProblem::InvalidJson { truncated, .. }) => {
                assert!(!truncated, "{s}");
            }
            other => panic!("{s}: expected InvalidJson, got {other:?}"),
        }
        assert!(evs.is_empty());
    }
}

#[test]
fn invalid_json_on_a_partial_line_is_truncated() {
    let mut dec = Decoder::new();
    let line = Line {
        number: 7,
        bytes: br#"{"type":"assistant","message":{"id":"m"#,
        partial: true,
    };
    let (d, evs) = decode_line(&mut dec, &line);
    assert!(evs.is_empty());
    let Decoded::Skipped(p) = d else {
        panic!("expected skipped, got {d:?}")
    };
    assert!(
        matches!(
            p,
            LineProblem::InvalidJson {
                truncated: true,
                ..
            }
        ),
        "{p:?}"
    );
    assert_eq!(
        p.to_string(),
        "truncated last line (the input ended mid-line)"
    );
}

#[test]
fn invalid_json_display_names_the_byte() {
    let (d, _) = dec1(r#"{"a":}"#);
    let Decoded::Skipped(p @ LineProblem::InvalidJson { .. }) = d else {
        panic!("expected InvalidJson, got {d:?}")
    };
    let msg = p.to_string();
    assert!(msg.starts_with("invalid JSON at byte "), "{msg}");
}

#[test]
fn non_utf8_bytes_are_skipped() {
    let cases: [(&[u8], usize); 4] = [
        (b"caf\xe9 au lait", 3),
        (b"\xff\xfe", 0),
        (b"{\"type\":\"assistant\",\"x\":\"\xc3\x28\"}", 25),
        (b"{\"a\":\"ok\"} \xff", 11),
    ];
    for (bytes, at) in cases {
        let (d, evs) = decode_bytes(&mut Decoder::new(), bytes);
        assert_eq!(
            d,
            Decoded::Skipped(LineProblem::InvalidUtf8 { at }),
            "{bytes:?}"
        );
        assert!(evs.is_empty());
    }
}

#[test]
fn problem_offsets_are_relative_to_the_line() {
    // Two leading spaces: the bad byte is byte 5 (0-based) of the line as
    // read, and the diagnostic says "byte {at + 1}" of that line.
    let (d, _) = decode_bytes(&mut Decoder::new(), b"  caf\xe9");
    assert_eq!(d, Decoded::Skipped(LineProblem::InvalidUtf8 { at: 5 }));
    // The same for a JSON error: two more leading bytes, offset two further.
    let at = |s: &str| match dec1(s).0 {
        Decoded::Skipped(LineProblem::InvalidJson { at, .. }) => at,
        d => panic!("{s}: expected InvalidJson, got {d:?}"),
    };
    assert_eq!(at(r#"  {"a":}"#), at(r#"{"a":}"#) + 2);
}

#[test]
fn non_object_json_is_skipped() {
    for (s, found) in [
        ("[1,2]", "array"),
        ("[]", "array"),
        ("42", "number"),
        ("-1.5", "number"),
        ("\"just a string\"", "string"),
        ("null", "null"),
        ("true", "boolean"),
    ] {
        let (d, evs) = dec1(s);
        assert_eq!(
            d,
            Decoded::Skipped(LineProblem::NotAnObject { found }),
            "{s}"
        );
        assert!(evs.is_empty());
    }
    assert_eq!(
        LineProblem::NotAnObject { found: "array" }.to_string(),
        "JSON array, not an object"
    );
}

#[test]
fn plain_text_becomes_one_plain_text_event() {
    let mut dec = Decoder::new();
    let line = Line {
        number: 12,
        bytes: b"npm WARN deprecated inflight@1.0.6: This module is not supported",
        partial: false,
    };
    let (d, evs) = decode_line(&mut dec, &line);
    assert_eq!(d, Decoded::Events);
    assert_eq!(evs.len(), 1);
    let ev = &evs[0];
    assert_eq!(ev.line, 12);
    assert_eq!(ev.producer, Producer::Claude);
    assert!(ev.session.is_none());
    assert!(ev.parent.is_none());
    match &ev.kind {
        EventKind::PlainText(t) => assert_eq!(
            t,
            "npm WARN deprecated inflight@1.0.6: This module is not supported"
        ),
        k => panic!("expected plain text, got {k:?}"),
    }
}

#[test]
fn plain_text_is_trimmed_and_not_json() {
    for s in [
        "Error: something went wrong",
        "  hello  ",
        "true story",
        "123 apples",
    ] {
        let evs = events(s);
        assert_eq!(kinds(&evs), ["plain_text"], "{s}");
        let EventKind::PlainText(t) = &evs[0].kind else {
            unreachable!()
        };
        assert_eq!(t, s.trim());
    }
}

#[test]
fn deeply_nested_json_does_not_crash() {
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let (d, _) = dec1(&deep);
    assert!(matches!(d, Decoded::Skipped(_)), "{d:?}");
    let deep_obj = format!("{}1{}", r#"{"a":"#.repeat(5000), "}".repeat(5000));
    let (d, _) = dec1(&deep_obj);
    assert!(matches!(d, Decoded::Skipped(_)), "{d:?}");
}

#[test]
fn object_without_type_is_unknown_with_empty_name() {
    let ev = one(r#"{"hello":"world"}"#);
    let u = as_unknown(&ev);
    assert_eq!(u.type_name, "");
    assert_eq!(u.raw, r#"{"hello":"world"}"#);
}

// ---------------------------------------------------------------------------
// Every captured stream

fn fixture_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in ["claude", "claude-2.1.330"] {
        for entry in std::fs::read_dir(format!("{FIXTURES}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.push(format!("{FIXTURES}/misc/claude_big_output.jsonl").into());
    files.sort();
    files
}

#[test]
fn every_fixture_line_decodes_without_skips() {
    let files = fixture_files();
    assert!(files.len() >= 50, "found only {} fixtures", files.len());
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let mut dec = Decoder::new();
        let mut lines = 0;
        let mut events = 0;
        let mut results = 0;
        for (i, bytes) in data.split(|&b| b == b'\n').enumerate() {
            let line = Line {
                number: i as u64 + 1,
                bytes,
                partial: false,
            };
            let mut kinds = Vec::new();
            let d = dec
                .decode(&line, &mut |ev: &Event<'_>| {
                    assert_eq!(ev.line, i as u64 + 1);
                    kinds.push(ev.kind.name());
                    Ok(())
                })
                .unwrap();
            match d {
                Decoded::Skipped(p) => panic!("{}:{}: skipped: {p}", path.display(), i + 1),
                Decoded::Blank => assert!(bytes.is_empty(), "{}:{}", path.display(), i + 1),
                Decoded::Events | Decoded::Repaired => lines += 1,
                // No real log holds a count or cost beyond the bounds.
                Decoded::Implausible(why) => panic!("{}:{}: {why}", path.display(), i + 1),
            }
            assert!(
                !kinds.contains(&"plain_text"),
                "{}:{}: JSON line decoded as plain text",
                path.display(),
                i + 1
            );
            results += kinds.iter().filter(|k| **k == "result").count();
            events += kinds.len();
        }
        assert!(lines > 0, "{}", path.display());
        assert!(events > 0, "{}", path.display());
        assert!(results >= 1, "{}: no result", path.display());
    }
}

#[test]
fn no_fixture_event_is_unknown() {
    // Every line type in the captured streams is modelled (the README lists
    // them); an Unknown here means a decoding gap.
    for path in fixture_files() {
        let data = std::fs::read(&path).unwrap();
        let mut dec = Decoder::new();
        for (i, bytes) in data.split(|&b| b == b'\n').enumerate() {
            let (_, evs) = decode_bytes(&mut dec, bytes);
            for e in evs {
                if let EventKind::Unknown(u) = &e.kind {
                    panic!("{}:{}: unknown {}", path.display(), i + 1, u.type_name);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Terminal noise around JSON lines (issue 6)

#[test]
fn terminal_noise_around_a_json_line_is_stripped() {
    for wrapped in [
        "\x1b[2K\r{\"type\":\"x\"}",
        "{\"type\":\"x\"}\x1b[0m\r",
        "\x1b[?25l\x1b[1;32m{\"type\":\"x\"}\x1b[0m\x1b[K",
        "\x1b]0;agent\x07{\"type\":\"x\"}",
        "\x1b]8;;http://x\x1b\\{\"type\":\"x\"}\x1b]8;;\x1b\\",
        "\x1b(B\x1b7 {\"type\":\"x\"} \r\x1b[0m \r",
    ] {
        let (d, evs) = dec1(wrapped);
        assert_eq!(d, Decoded::Events, "{wrapped:?}");
        assert_eq!(as_unknown(&evs[0]).raw, "{\"type\":\"x\"}", "{wrapped:?}");
    }
}

#[test]
fn noise_stripping_keeps_what_is_not_wrapped_json() {
    assert_eq!(strip_terminal_noise(b"{\"a\":1}"), (0, &b"{\"a\":1}"[..]));
    // Unterminated or unknown sequences stay.
    assert_eq!(strip_terminal_noise(b"\x1b]0;t{}"), (0, &b"\x1b]0;t{}"[..]));
    assert_eq!(strip_terminal_noise(b"{}\x1b["), (0, &b"{}\x1b["[..]));
    assert_eq!(strip_terminal_noise(b"\x1b"), (0, &b"\x1b"[..]));
    assert_eq!(strip_terminal_noise(b"\x1b[31m"), (5, &b""[..]));
    // Plain text in colour is shown as it was (visibly, by the renderer).
    let (d, evs) = dec1("\x1b[31mError: boom\x1b[0m");
    assert_eq!(d, Decoded::Events);
    match &evs[0].kind {
        EventKind::PlainText(t) => assert_eq!(t, "\x1b[31mError: boom\x1b[0m"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn broken_json_in_noise_is_reported_at_its_byte() {
    let (d, _) = dec1("\x1b[0m{\"type\":}");
    match d {
        Decoded::Skipped(LineProblem::InvalidJson { at, .. }) => assert!(at >= 4, "{at}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn raw_control_characters_in_a_json_line_are_named() {
    let (d, _) = dec1("{\"text\":\"a\x1bb\"}");
    assert_eq!(
        d,
        Decoded::Skipped(LineProblem::InvalidJson {
            at: 10,
            what: "raw control character U+001B; JSON must escape it".into(),
            truncated: false,
        })
    );
}

#[test]
fn huge_integers_are_read_as_floats_and_overflowing_floats_are_reported() {
    let (d, _) = dec1(r#"{"type":"x","n":18446744073709551616,"m":-0}"#);
    assert_eq!(d, Decoded::Events);
    let (d, _) = dec1(r#"{"type":"x","n":1e400}"#);
    assert!(
        matches!(&d, Decoded::Skipped(LineProblem::InvalidJson { what, .. }) if what.contains("out-of-range")),
        "{d:?}"
    );
}

#[test]
fn tool_output_stays_in_its_json_form_until_read() {
    let out = "line \\\"one\\\"\\n".repeat(200);
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"{out}"}}]}},"tool_use_result":{{"stdout":"{out}"}}}}"#
    );
    let mut dec = Decoder::new();
    let mut seen = 0;
    dec.decode(
        &Line {
            number: 1,
            bytes: line.as_bytes(),
            partial: false,
        },
        &mut |ev| {
            let EventKind::ToolResult(r) = &ev.kind else {
                panic!("{ev:?}");
            };
            assert_eq!(r.content.json_body(), Some((out.as_str(), true)));
            assert_eq!(r.content.text(), "line \"one\"\n".repeat(200));
            seen += 1;
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(seen, 1);
}
#[test]
fn todo_statuses_in_any_spelling_are_claudes_words() {
    for (given, want) in [
        ("pending", "pending"),
        ("TODO", "pending"),
        ("Not-Started", "pending"),
        ("in-progress", "in_progress"),
        ("TODO_STATUS_IN_PROGRESS", "in_progress"),
        ("InProgress", "in_progress"),
        ("active", "in_progress"),
        ("Done", "completed"),
        ("TODO_STATUS_COMPLETED", "completed"),
        ("canceled", "cancelled"),
        // Unknown: as given (without Cursor's prefix).
        ("Blocked-On-Review", "Blocked-On-Review"),
        ("TODO_STATUS_WAITING", "WAITING"),
        ("", ""),
    ] {
        assert_eq!(super::args::todo_status(given), want, "{given}");
    }
}

/// Every event of `data` and its end, read by `dec`, as text to compare.
fn read_through(dec: &mut Decoder, data: &[u8]) -> Vec<String> {
    let mut evs = Vec::new();
    for (i, bytes) in data.split(|&b| b == b'\n').enumerate() {
        let line = Line {
            number: i as u64 + 1,
            bytes,
            partial: false,
        };
        let (d, got) = decode_line(dec, &line);
        evs.push(format!("{d:?}"));
        evs.extend(got.iter().map(|e| format!("{e:?}")));
    }
    dec.finish(&mut |ev: &Event<'_>| {
        evs.push(format!("{ev:?}"));
        Ok(())
    })
    .unwrap();
    evs
}

#[test]
fn a_reused_decoder_reads_each_input_as_a_fresh_one() {
    // A library's sessions are read one after another by one decoder
    // (`Decoder::reuse`): nothing of one may change what the next gives,
    // whatever producer each is, for a report or not.
    let mut files = fixture_files();
    for dir in [
        "claude-transcript",
        "codex-rollout",
        "gemini",
        "opencode",
        "qwen",
    ] {
        let mut more: Vec<_> = std::fs::read_dir(format!("{FIXTURES}/{dir}"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        more.sort();
        files.extend(more);
    }
    for report in [false, true] {
        let mut reused = Decoder::new().for_report(report);
        for path in &files {
            let data = std::fs::read(path).unwrap();
            let fresh = read_through(&mut Decoder::new().for_report(report), &data);
            reused = reused.reuse(None).for_report(report);
            assert_eq!(
                read_through(&mut reused, &data),
                fresh,
                "{}",
                path.display()
            );
        }
    }
}

// ---------------------------------------------------------------------------
// A line's time

#[test]
fn a_timestamp_key_wins_over_timestamp_ms_wherever_it_stands() {
    use crate::time::Timestamp;
    let at = |keys: &str| {
        one(&format!(
            "{{\"type\":\"result\",\"subtype\":\"success\",\"num_turns\":1{keys}}}"
        ))
        .time
    };
    let text = Timestamp::parse("2026-01-02T03:04:05Z");
    let ms = Timestamp::from_epoch_number(1_700_000_000_000.0);
    assert!(text.is_some() && ms.is_some() && text != ms);
    let (t, m) = (
        r#","timestamp":"2026-01-02T03:04:05Z""#,
        r#","timestamp_ms":1700000000000"#,
    );
    assert_eq!(at(&format!("{t}{m}")), text);
    assert_eq!(at(&format!("{m}{t}")), text);
    assert_eq!(at(m), ms);
    assert_eq!(at(""), None);
    // Of two, the first (as every field is read).
    assert_eq!(
        at(&format!("{t},\"timestamp\":\"2027-01-01T00:00:00Z\"")),
        text
    );
    assert_eq!(at(&format!("{m},\"timestamp_ms\":1800000000000")), ms);
}
