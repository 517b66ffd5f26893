//! Property tests: framing does not depend on how reads are cut, the
//! decoders survive any JSON shaped like real events, and every JSONL line
//! we write parses back and is stable under a second pass.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::io::Read;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use streamview::diag::Diag;
use streamview::render::{Jsonl, Pretty, PrettyOptions, Verbosity};
use streamview::{ExitStatus, Runner};
use termcolor::NoColor;

/// A reader that hands out its data in the given chunk sizes (cycled).
struct Chunked<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    i: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = self.sizes[self.i % self.sizes.len()].max(1);
        self.i += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn run_jsonl<R: Read>(r: R, max_line: usize) -> (ExitStatus, String, String) {
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), false);
    let mut runner = Runner::new(&mut sink, &mut diag, max_line);
    runner.source("p", r).unwrap();
    let (_, st) = runner.finish().unwrap();
    let err = String::from_utf8(diag.into_inner()).unwrap();
    (st, String::from_utf8(sink.into_inner()).unwrap(), err)
}

fn run_pretty<R: Read>(r: R) -> (ExitStatus, String) {
    let opts = PrettyOptions {
        verbosity: Verbosity::Verbose,
        max_lines: 5,
        mirror_errors: false,
    };
    let mut sink = Pretty::new(NoColor::new(Vec::new()), NoColor::new(Vec::new()), opts);
    let mut diag = Diag::new(Vec::new(), false);
    let mut runner = Runner::new(&mut sink, &mut diag, 1 << 20);
    runner.source("p", r).unwrap();
    let (_, st) = runner.finish().unwrap();
    (
        st,
        String::from_utf8(sink.into_inner().0.into_inner()).unwrap(),
    )
}

const FIXTURES: [&str; 6] = [
    "tests/fixtures/claude/tools_basic.jsonl",
    "tests/fixtures/claude/partial_messages.jsonl",
    "tests/fixtures/claude/subagent.jsonl",
    "tests/fixtures/claude/unicode_ansi.jsonl",
    "tests/fixtures/claude-2.1.330/permission_denied.jsonl",
    "tests/fixtures/claude/api_error_sse.jsonl",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any cut of the input into reads gives byte-identical output, also
    /// with a line limit small enough that some lines are skipped, and with
    /// the stream cut at an arbitrary byte.
    #[test]
    fn output_does_not_depend_on_read_sizes(
        which in 0..FIXTURES.len(),
        sizes in prop::collection::vec(1usize..5000, 1..8),
        cut in any::<prop::sample::Index>(),
        small_limit in any::<bool>(),
    ) {
        let all = std::fs::read(FIXTURES[which]).unwrap();
        let data = &all[..cut.index(all.len() + 1)];
        let limit = if small_limit { 2000 } else { 1 << 20 };
        let whole = run_jsonl(data, limit);
        let chunked = run_jsonl(Chunked { data, sizes: sizes.clone(), i: 0 }, limit);
        prop_assert_eq!(&whole, &chunked);
        let whole = run_pretty(data);
        let chunked = run_pretty(Chunked { data, sizes, i: 0 });
        prop_assert_eq!(whole, chunked);
    }

    /// Arbitrary bytes never panic and always end with a documented status.
    #[test]
    fn arbitrary_bytes_do_not_panic(data in prop::collection::vec(any::<u8>(), 0..2000)) {
        let (st, out, _) = run_jsonl(&data[..], 300);
        prop_assert!(matches!(st, ExitStatus::Success | ExitStatus::SessionError | ExitStatus::Incomplete));
        for line in out.lines() {
            prop_assert!(serde_json::from_str::<Value>(line).is_ok(), "{}", line);
        }
        let _ = run_pretty(&data[..]);
    }

    /// JSON values shaped like Claude events, with any field missing or of
    /// the wrong type: no panic, every JSONL line parses, and reading our
    /// JSONL back gives the same JSONL.
    #[test]
    fn event_shaped_json_is_handled(events in prop::collection::vec(event(), 1..12)) {
        let mut input = String::new();
        for e in &events {
            input.push_str(&e.to_string());
            input.push('\n');
        }
        let (st, out, _) = run_jsonl(input.as_bytes(), 1 << 20);
        for line in out.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            prop_assert_eq!(&v["v"], &json!(1));
        }
        let (st2, again, _) = run_jsonl(out.as_bytes(), 1 << 20);
        prop_assert_eq!(st, st2);
        // `line` numbers are carried over, so the two passes are the same
        // JSON (embedded `raw`/`input` are re-encoded: compare values, since
        // a number may be spelled differently).
        let parse = |s: &str| s.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).collect::<Vec<_>>();
        prop_assert_eq!(parse(&out), parse(&again));
        let _ = run_pretty(input.as_bytes());
    }
}

/// Leaf values of any JSON type, including hostile strings.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z_]{0,8}".prop_map(Value::String),
        "\\PC{0,20}".prop_map(Value::String),
        Just(json!("\u{1b}]52;c;x\u{7}\r\u{202e}")),
        Just(json!("toolu_1")),
    ]
}

/// Keys real events use, so generated objects hit real code paths.
const KEYS: [&str; 24] = [
    "type",
    "subtype",
    "message",
    "content",
    "text",
    "id",
    "name",
    "input",
    "tool_use_id",
    "is_error",
    "session_id",
    "parent_tool_use_id",
    "usage",
    "result",
    "errors",
    "model",
    "permission_denials",
    "tool_name",
    "tool_input",
    "event",
    "delta",
    "todos",
    "questions",
    "modelUsage",
];

const TYPES: [&str; 9] = [
    "system",
    "assistant",
    "user",
    "result",
    "stream_event",
    "rate_limit_event",
    "tool_progress",
    "bogus",
    "keep_alive",
];

const BLOCKS: [&str; 7] = [
    "text",
    "thinking",
    "tool_use",
    "tool_result",
    "redacted_thinking",
    "image",
    "odd",
];

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS.to_vec()), inner.clone()), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
            (prop::sample::select(BLOCKS.to_vec()), inner).prop_map(|(t, v)| json!({"type": t, "text": v, "input": v, "content": v, "id": "toolu_1", "tool_use_id": "toolu_1", "name": "Bash"})),
        ]
    })
}

fn event() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(TYPES.to_vec()),
        prop::option::of(prop::sample::select(vec![
            "init",
            "success",
            "error_max_turns",
            "api_retry",
            "task_started",
            "x",
        ])),
        prop::collection::vec((prop::sample::select(KEYS.to_vec()), value()), 0..6),
    )
        .prop_map(|(ty, sub, fields)| {
            let mut m = Map::new();
            for (k, v) in fields {
                m.insert(k.to_string(), v);
            }
            m.insert("type".into(), json!(ty));
            if let Some(s) = sub {
                m.insert("subtype".into(), json!(s));
            }
            Value::Object(m)
        })
}
