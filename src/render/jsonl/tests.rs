//! The JSONL sink: its own names, and what it writes of decoded lines: a
//! decoder's fast paths (strings spared the parser, token deltas read from
//! their bytes) give the same events and the same JSONL as the parsed
//! lines, and long outputs kept in their JSON form are written as the whole
//! event would be (moved from `decode/tests.rs`, issue 52: the sink is on
//! this floor).

use super::*;
use crate::decode::Decoder;
use crate::event::EventKind;
use crate::input::Line;
use crate::json::scan;
use crate::render::Sink;

#[test]
fn own_names_need_no_escape() {
    use crate::event::{DeltaKind, Level, Producer, Role};
    let names = Producer::ALL
        .iter()
        .map(|p| p.name())
        .chain(
            [Level::Debug, Level::Info, Level::Warning, Level::Error]
                .map(crate::event::Level::name),
        )
        .chain([Role::User, Role::Assistant].map(crate::event::Role::name))
        .chain(
            [
                DeltaKind::Text,
                DeltaKind::Thinking,
                DeltaKind::ToolInput,
                DeltaKind::ToolStart,
            ]
            .map(crate::event::DeltaKind::name),
        );
    for n in names {
        let mut b = Vec::new();
        push_json_str(&mut b, n);
        assert_eq!(b, format!("\"{n}\"").into_bytes(), "{n}");
    }
}

#[test]
fn numbers_are_written_as_write_would() {
    for v in [
        0,
        1,
        9,
        10,
        99,
        100,
        12_345,
        u64::from(u32::MAX),
        u64::MAX - 1,
        u64::MAX,
    ] {
        let mut b = Vec::new();
        push_u64(&mut b, v);
        assert_eq!(String::from_utf8(b).unwrap(), v.to_string());
    }
}

// ---------------------------------------------------------------------------
// Long strings spared the parser (`scan`)

/// Every line of every fixture, with the reader's line numbers and the
/// last line's `partial` flag.
fn fixture_inputs() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("jsonl" | "json" | "bin" | "txt")
            ) {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// What a decoder makes of `data`: per line, what became of it, its
/// events and their JSONL.
fn decode_all(mut dec: Decoder, data: &[u8]) -> Vec<String> {
    let mut session = Session::new();
    let mut out = Vec::new();
    let mut lines = data.split(|&b| b == b'\n').peekable();
    let mut number = 0;
    while let Some(bytes) = lines.next() {
        number += 1;
        let line = Line {
            number,
            bytes,
            partial: lines.peek().is_none(),
        };
        let mut jsonl = Jsonl::new(Vec::new());
        let mut evs = Vec::new();
        let d = dec
            .decode(&line, &mut |ev| {
                session.observe(ev);
                jsonl.event(ev, &session)?;
                evs.push(format!("{ev:?}"));
                Ok(())
            })
            .unwrap();
        jsonl.flush().unwrap();
        let jsonl = String::from_utf8(jsonl.into_inner()).unwrap();
        out.push(format!("{number}: {d:?}\n{}\n{jsonl}", evs.join("\n")));
    }
    out
}

/// Each token delta of the fixtures, and the same line changed the ways a
/// reader of its bytes could get wrong: keys in another order, keys added
/// or doubled, values of other kinds, escapes, a time.
fn delta_variants(line: &str) -> Vec<String> {
    type Map = serde_json::Map<String, serde_json::Value>;
    let v: Map = serde_json::from_str(line).unwrap();
    let write = |m: &Map| serde_json::to_string(m).unwrap();
    let with = |f: &dyn Fn(&mut Map)| {
        let mut m = v.clone();
        f(&mut m);
        write(&m)
    };
    let mut out = vec![line.to_owned()];
    // Keys last to first (serde_json keeps the order it is given).
    out.push(format!(
        "{{{}}}",
        v.iter()
            .rev()
            .map(|(k, x)| format!("{}:{x}", serde_json::to_string(k).unwrap()))
            .collect::<Vec<_>>()
            .join(",")
    ));
    let edits: [&dyn Fn(&mut Map); 13] = [
        &|m| drop(m.insert("timestamp".into(), "2026-11-28T01:02:03Z".into())),
        &|m| drop(m.insert("timestamp_ms".into(), 1_795_000_000_000_u64.into())),
        &|m| drop(m.insert("api_message_id".into(), "msg_01".into())),
        &|m| drop(m.insert("extra".into(), serde_json::json!({"nested": [1]}))),
        &|m| drop(m.insert("parent_tool_use_id".into(), "toolu_1".into())),
        &|m| drop(m.insert("parent_tool_use_id".into(), "".into())),
        &|m| drop(m.insert("session_id".into(), serde_json::Value::Null)),
        &|m| drop(m.insert("sessionId".into(), "camel \"id\"".into())),
        &|m| drop(m.remove("session_id")),
        &|m| m["event"]["index"] = serde_json::Value::Null,
        &|m| m["event"]["index"] = 2.0.into(),
        &|m| m["event"]["index"] = 12_345_678_901_234_567_890_u64.into(),
        &|m| {
            let d = &mut m["event"]["delta"];
            for k in ["text", "thinking", "partial_json"] {
                if d.get(k).is_some() {
                    d[k] = "line\nbreak \"q\" \\ \u{e9} / 🚀\t".into();
                }
            }
        },
    ];
    out.extend(edits.iter().map(|f| with(f)));
    for (path, x) in [
        ("type", serde_json::json!("stream_events")),
        ("delta_type", serde_json::json!("signature_delta")),
        ("delta_type", serde_json::json!(null)),
        ("text", serde_json::json!("a control \u{1} written \\u0001")),
        ("text", serde_json::json!(null)),
        ("text", serde_json::json!(7)),
        ("text", serde_json::json!({"a": 1})),
        ("event_type", serde_json::json!("content_block_stop")),
    ] {
        out.push(with(&|m| match path {
            "type" => m["type"] = x.clone(),
            "delta_type" => m["event"]["delta"]["type"] = x.clone(),
            "event_type" => m["event"]["type"] = x.clone(),
            _ => {
                for k in ["text", "thinking", "partial_json"] {
                    if m["event"]["delta"].get(k).is_some() {
                        m["event"]["delta"][k] = x.clone();
                    }
                }
            }
        }));
    }
    // A key twice (the first wins in the parsed line), and spaces.
    let dup = line.replacen(
        r#""type":"stream_event","#,
        r#""type":"stream_event","session_id":"first","#,
        1,
    );
    out.push(dup);
    out.push(line.replace("\":", "\": "));
    out
}

#[test]
fn deltas_read_from_their_bytes_give_the_events_and_jsonl_the_parsed_lines_give() {
    let init =
        r#"{"type":"system","subtype":"init","session_id":"s0","claude_code_version":"2.1.330"}"#;
    let mut deltas = 0;
    for (name, data) in fixture_inputs() {
        let mut lines = Vec::new();
        for line in String::from_utf8_lossy(&data).lines() {
            if line.contains(r#""type":"content_block_delta""#)
                && serde_json::from_str::<serde_json::Value>(line).is_ok()
            {
                deltas += 1;
                lines.extend(delta_variants(line));
            }
        }
        if lines.is_empty() {
            continue;
        }
        // As the fixture is, and after a session header, so that its
        // lines are known for Claude Code's.
        for data in [
            data.clone(),
            format!("{init}\n{}", lines.join("\n")).into_bytes(),
        ] {
            let parsed = decode_all(Decoder::new().read_unparsed(false), &data);
            let read = decode_all(Decoder::new(), &data);
            assert_eq!(parsed.len(), read.len());
            for (x, y) in parsed.iter().zip(&read) {
                assert_eq!(x, y, "{name}");
            }
        }
    }
    // The comparison meant something.
    assert!(deltas > 200, "{deltas}");
}

#[test]
fn strings_spared_the_parser_give_the_same_events_and_jsonl() {
    let mut spared_lines = 0;
    for (name, data) in fixture_inputs() {
        let whole = Decoder::new().spare_strings(usize::MAX, 0);
        // Every string value of every line through the scan.
        let spared = Decoder::new().spare_strings(0, 0);
        let (a, b) = (decode_all(whole, &data), decode_all(spared, &data));
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y, "{name}");
        }
        assert_eq!(a.len(), b.len());
        let mut probe = Vec::new();
        spared_lines += data
            .split(|&b| b == b'\n')
            .filter(|l| scan::long_strings(l, 0, &mut probe) && !probe.is_empty())
            .count();
    }
    // The comparison meant something.
    assert!(spared_lines > 1000, "{spared_lines}");
}

/// A failed command's long output stays in its JSON form after its
/// status: the JSONL writer copies it, and escapes only the status.
#[test]
fn a_failed_commands_output_stays_in_its_json_form_after_its_status() {
    let out = "error[E0308]: \\\"mismatched\\\" types — ✓\\n".repeat(200);
    let lines = [
        r#"{"type":"thread.started","thread_id":"th1"}"#.to_string(),
        format!(
            r#"{{"type":"item.completed","item":{{"id":"i","type":"command_execution","command":"cargo build","aggregated_output":"{out}","exit_code":101,"status":"failed"}}}}"#
        ),
    ];
    let mut dec = Decoder::new();
    let mut session = Session::new();
    let (mut seen, mut jsonl) = (0, Vec::new());
    for (n, line) in lines.iter().enumerate() {
        dec.decode(
            &Line {
                number: n as u64 + 1,
                bytes: line.as_bytes(),
                partial: false,
            },
            &mut |ev| {
                if let EventKind::ToolResult(r) = &ev.kind {
                    assert_eq!(
                        r.content.json_parts(),
                        Some(("exit code 101\n", out.as_str(), true))
                    );
                    let text = format!(
                        "exit code 101\n{}",
                        "error[E0308]: \"mismatched\" types — ✓\n".repeat(200)
                    );
                    assert_eq!(r.content.text(), text);
                    write_event(&mut jsonl, ev, &session);
                    let v: serde_json::Value = serde_json::from_slice(&jsonl).unwrap();
                    assert_eq!(v["content"], text.as_str(), "{v}");
                    seen += 1;
                }
                session.observe(ev);
                Ok(())
            },
        )
        .unwrap();
    }
    assert_eq!(seen, 1);
}

#[test]
fn long_tool_output_is_written_from_the_line_as_the_whole_event_would_be() {
    let out = "fn main() {\\n    println!(\\\"hi — ✓\\\");\\n}\\n".repeat(4000);
    assert!(out.len() > 100_000);
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"{out}"}}]}},"session_id":"s1"}}"#
    );
    let mut session = Session::new();
    let mut sink = Jsonl::new(Vec::new());
    let mut whole = Vec::new();
    Decoder::new()
        .decode(
            &Line {
                number: 1,
                bytes: line.as_bytes(),
                partial: false,
            },
            &mut |ev| {
                session.observe(ev);
                sink.event(ev, &session)?;
                write_event(&mut whole, ev, &session);
                whole.push(b'\n');
                Ok(())
            },
        )
        .unwrap();
    let streamed = sink.into_inner();
    assert_eq!(
        String::from_utf8_lossy(&streamed),
        String::from_utf8_lossy(&whole)
    );
    let v: serde_json::Value = serde_json::from_slice(&streamed).unwrap();
    assert_eq!(
        v["content"],
        "fn main() {\n    println!(\"hi — ✓\");\n}\n".repeat(4000)
    );
    assert_eq!(v["id"], "t1");
}

#[test]
fn one_sinks_events_are_written_as_each_alone_would_be() {
    // The JSONL sink writes an event's session, parent and source as it
    // wrote them last when they are the same: over a sub-agent's stream
    // (parents coming and going) and sessions whose ids need escaping, each
    // line is what the event written alone gives.
    let mut data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude-2.1.332/subagent_partial_interleaved.jsonl"
    ))
    .unwrap();
    for id in [r#"s\"1"#, r"s\u001b[2J", "", r#"s\"1"#, r#"s\"1\u202e"#] {
        let line = format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"hi"}}]}},"session_id":"{id}","parent_tool_use_id":null}}"#
        );
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
    }
    let mut session = Session::new();
    let mut sink = Jsonl::new(Vec::new());
    let mut alone = Vec::new();
    let mut decoder = Decoder::new();
    for (i, bytes) in data.split(|&b| b == b'\n').enumerate() {
        let line = Line {
            number: i as u64 + 1,
            bytes,
            partial: false,
        };
        let _ = decoder.decode(&line, &mut |ev| {
            session.observe(ev);
            sink.event(ev, &session)?;
            if !session.note().duplicate {
                write_event(&mut alone, ev, &session);
                alone.push(b'\n');
            }
            Ok(())
        });
    }
    let written = String::from_utf8(sink.into_inner()).unwrap();
    assert_eq!(written, String::from_utf8(alone).unwrap());
    let parents = (written.lines())
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["parent"].to_string())
        .collect::<std::collections::BTreeSet<_>>();
    assert!(parents.len() > 1, "{parents:?}");
    assert!(written.contains(r#""session":"s\"1\u202e""#), "{written}");
}

#[test]
fn tool_output_with_characters_a_terminal_must_not_get_is_escaped_as_before() {
    let out = "ok\\n\u{85}bidi\u{202e}\u{7f} “quoted” …\\t".repeat(200);
    assert!(out.len() > 4096, "long enough to be spared the parser");
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"{out}"}}]}}}}"#
    );
    let whole = decode_all(Decoder::new().spare_strings(usize::MAX, 0), line.as_bytes());
    let spared = decode_all(Decoder::new(), line.as_bytes());
    assert_eq!(whole, spared);
    let jsonl = &spared[0];
    assert!(
        jsonl.contains(r"\u0085bidi\u202e\u007f “quoted” …\t"),
        "{jsonl}"
    );
    assert!(
        !jsonl.contains('\u{85}') && !jsonl.contains('\u{202e}'),
        "{jsonl}"
    );
}

/// `line` (one JSONL event) read back by the native decoder: its events.
fn read_back(line: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let line = Line {
        number: 1,
        bytes: line,
        partial: false,
    };
    Decoder::new()
        .decode(&line, &mut |ev| {
            out.push(format!("{:?}", ev.kind));
            Ok(())
        })
        .unwrap();
    out
}

#[test]
fn terse_events_read_back_as_the_whole_ones() {
    // The index keeps every event of every fixture as `Terse` writes it:
    // what the native decoder reads of it must be what it reads of the
    // event written whole, in fewer bytes.
    let (mut whole_bytes, mut terse_bytes) = (0, 0);
    for (name, data) in fixture_inputs() {
        let mut dec = Decoder::new();
        let mut session = Session::new();
        let mut terse = Terse::default();
        for (i, bytes) in data.split(|&b| b == b'\n').enumerate() {
            let line = Line {
                number: i as u64 + 1,
                bytes,
                partial: false,
            };
            let _ = dec.decode(&line, &mut |ev| {
                session.observe(ev);
                let (mut whole, mut short) = (Vec::new(), Vec::new());
                write_event(&mut whole, ev, &session);
                terse.write(&mut short, ev, &session);
                // No `null` of its own (a line kept whole may hold some).
                let label = b",\"label\":null";
                let own = |b: &[u8]| b.windows(label.len()).any(|w| w == label);
                assert!(own(&whole) && !own(&short), "{name}:{}", i + 1);
                assert_eq!(read_back(&short), read_back(&whole), "{name}:{}", i + 1);
                whole_bytes += whole.len();
                terse_bytes += short.len();
                Ok(())
            });
        }
    }
    // The fixtures' texts and outputs are most of their events (the index
    // strips those apart: `run/record.rs`); still a twentieth fewer.
    assert!(
        terse_bytes * 20 < whole_bytes * 19,
        "{terse_bytes} of {whole_bytes}"
    );
}
