//! What the decoders' unit tests share: decode a line, pick out an event.

#![allow(dead_code)] // each test module uses some of them

pub(crate) use super::{Decoded, Decoder, LineProblem};
pub(crate) use crate::event::{Event, EventKind};
pub(crate) use crate::input::Line;

pub(crate) use crate::event::{
    Delta, Denial, Level, McpServer, Notice, Question, Role, SessionResult, Text, Todo, Tokens,
    ToolCall, ToolResult, Unknown, Usage,
};
pub(crate) use crate::event::{DeltaKind, Producer};

// ---------------------------------------------------------------------------
// Helpers

/// `f` of `line` parsed whole (no string spared the parser), as detection
/// and the decoders read a value.
pub(crate) fn parsed<R>(line: &str, f: impl FnOnce(crate::json::Value<'_>) -> R) -> R {
    let mut bytes = line.as_bytes().to_vec();
    let tape = simd_json::to_tape(&mut bytes).expect("a JSON line");
    f(crate::json::Value::of_document(tape.as_value()))
}

pub(crate) fn decode_line(dec: &mut Decoder, line: &Line<'_>) -> (Decoded, Vec<Event<'static>>) {
    let mut evs = Vec::new();
    let d = dec
        .decode(line, &mut |ev: &Event<'_>| {
            evs.push(ev.to_owned_event());
            Ok(())
        })
        .unwrap();
    (d, evs)
}

pub(crate) fn decode_bytes(dec: &mut Decoder, bytes: &[u8]) -> (Decoded, Vec<Event<'static>>) {
    decode_line(
        dec,
        &Line {
            number: 1,
            bytes,
            partial: false,
        },
    )
}

/// Every event of `lines`, read as one file by one decoder, with its end
/// (`Stream::finish`): the saved-session decoders' tests.
pub(crate) fn replay(lines: &[&str]) -> Vec<Event<'static>> {
    let mut dec = Decoder::new();
    let mut evs = Vec::new();
    for (l, number) in lines.iter().zip(1..) {
        let line = Line {
            number,
            bytes: l.as_bytes(),
            partial: false,
        };
        evs.extend(decode_line(&mut dec, &line).1);
    }
    dec.finish(&mut |ev: &Event<'_>| {
        evs.push(ev.to_owned_event());
        Ok(())
    })
    .unwrap();
    evs
}

/// Decode one line with a fresh decoder.
pub(crate) fn dec1(s: &str) -> (Decoded, Vec<Event<'static>>) {
    decode_bytes(&mut Decoder::new(), s.as_bytes())
}

/// Decode one line that must give events; return them.
pub(crate) fn events(s: &str) -> Vec<Event<'static>> {
    let (d, evs) = dec1(s);
    assert_eq!(d, Decoded::Events, "line {s}");
    evs
}

/// Decode one line that must give exactly one event.
pub(crate) fn one(s: &str) -> Event<'static> {
    let mut evs = events(s);
    assert_eq!(evs.len(), 1, "events of {s}: {evs:?}");
    evs.remove(0)
}

pub(crate) fn kinds(evs: &[Event<'_>]) -> Vec<&'static str> {
    evs.iter().map(|e| e.kind.name()).collect()
}

pub(crate) fn as_call<'a>(ev: &'a Event<'static>) -> &'a ToolCall<'static> {
    match &ev.kind {
        EventKind::ToolCall(c) => c,
        k => panic!("expected a tool call, got {k:?}"),
    }
}

pub(crate) fn as_result<'a>(ev: &'a Event<'static>) -> &'a ToolResult<'static> {
    match &ev.kind {
        EventKind::ToolResult(r) => r,
        k => panic!("expected a tool result, got {k:?}"),
    }
}

pub(crate) fn as_denial<'a>(ev: &'a Event<'static>) -> &'a Denial<'static> {
    match &ev.kind {
        EventKind::PermissionDenied(d) => d,
        k => panic!("expected a denial, got {k:?}"),
    }
}

pub(crate) fn as_session_result<'a>(ev: &'a Event<'static>) -> &'a SessionResult<'static> {
    match &ev.kind {
        EventKind::Result(r) => r,
        k => panic!("expected a result, got {k:?}"),
    }
}

pub(crate) fn as_notice<'a>(ev: &'a Event<'static>) -> &'a Notice<'static> {
    match &ev.kind {
        EventKind::Notice(n) => n,
        k => panic!("expected a notice, got {k:?}"),
    }
}

pub(crate) fn as_unknown<'a>(ev: &'a Event<'static>) -> &'a Unknown<'static> {
    match &ev.kind {
        EventKind::Unknown(u) => u,
        k => panic!("expected an unknown event, got {k:?}"),
    }
}

pub(crate) fn as_delta<'a>(ev: &'a Event<'static>) -> &'a Delta<'static> {
    match &ev.kind {
        EventKind::Delta(d) => d,
        k => panic!("expected a delta, got {k:?}"),
    }
}

pub(crate) fn as_usage<'a>(ev: &'a Event<'static>) -> &'a Usage<'static> {
    match &ev.kind {
        EventKind::Usage(u) => u,
        k => panic!("expected usage, got {k:?}"),
    }
}

pub(crate) fn as_text<'a>(ev: &'a Event<'static>) -> &'a Text<'static> {
    match &ev.kind {
        EventKind::Text(t) => t,
        k => panic!("expected text, got {k:?}"),
    }
}

/// An assistant line holding one `tool_use` block.
pub(crate) fn tool_use(name: &str, input: &str) -> String {
    format!(
        r#"{{"type":"assistant","session_id":"s","message":{{"id":"m1","content":[{{"type":"tool_use","id":"toolu_1","name":"{name}","input":{input}}}]}}}}"#
    )
}

/// The key argument of a call of `name` with `input` (JSON text).
pub(crate) fn key(name: &str, input: &str) -> Option<String> {
    let ev = one(&tool_use(name, input));
    as_call(&ev).key_arg.as_deref().map(str::to_string)
}

/// A user line holding one `tool_result` block whose `content` is given as JSON.
pub(crate) fn tool_result_line(content: &str, is_error: bool) -> String {
    format!(
        r#"{{"type":"user","session_id":"s","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":{content},"is_error":{is_error}}}]}}}}"#
    )
}

pub(crate) const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
