//! Property tests: framing does not depend on how reads are cut, the
//! decoders survive any JSON shaped like real events, and every JSONL line
//! we write parses back and is stable under a second pass.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::io::Read;
use std::sync::OnceLock;

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

/// Every stream fixture of every producer up to 200 KB (the 5 MB one adds
/// time, not shapes), sorted.
fn fixtures() -> &'static [String] {
    static ALL: OnceLock<Vec<String>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = Vec::new();
        for dir in std::fs::read_dir("tests/fixtures").unwrap() {
            let dir = dir.unwrap().path();
            if !dir.is_dir() {
                continue;
            }
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                let small = f.metadata().unwrap().len() < 200_000;
                if small && f.extension().is_some_and(|e| e == "jsonl") {
                    v.push(f.to_str().unwrap().to_string());
                }
            }
        }
        v.sort();
        assert!(v.len() > 100);
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any cut of the input into reads gives byte-identical output, also
    /// with a line limit small enough that some lines are skipped, and with
    /// the stream cut at an arbitrary byte.
    #[test]
    fn output_does_not_depend_on_read_sizes(
        which in any::<prop::sample::Index>(),
        sizes in prop::collection::vec(1usize..5000, 1..8),
        cut in any::<prop::sample::Index>(),
        small_limit in any::<bool>(),
    ) {
        let all = std::fs::read(which.get(fixtures())).unwrap();
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

// ------------------------------------------------------ every producer's shapes

mod common;

use streamview::Producer;

/// What the fixtures of one producer look like: its line types, the keys
/// its objects use (any depth), and the string values of the fields that
/// pick a kind (`type`, `subtype`, `role`, `status`, tool names…).
struct Shape {
    dir: &'static str,
    producer: Producer,
    types: Vec<String>,
    keys: Vec<String>,
    words: Vec<String>,
}

const DIRS: [(&str, Producer); 15] = [
    ("claude", Producer::Claude),
    ("claude-2.1.330", Producer::Claude),
    ("claude-transcript", Producer::ClaudeTranscript),
    ("codex", Producer::Codex),
    ("gemini", Producer::Gemini),
    ("opencode", Producer::OpenCode),
    ("qwen", Producer::Qwen),
    ("qwen-0.24.4", Producer::Qwen),
    ("amp", Producer::Amp),
    ("cursor", Producer::Cursor),
    ("copilot", Producer::Copilot),
    ("droid", Producer::Droid),
    ("pi", Producer::Pi),
    ("cline", Producer::Cline),
    ("kilo", Producer::Kilo),
];

const WORD_KEYS: [&str; 9] = [
    "type",
    "subtype",
    "role",
    "status",
    "name",
    "tool_name",
    "kind",
    "level",
    "state",
];

fn shapes() -> &'static [Shape] {
    static ALL: OnceLock<Vec<Shape>> = OnceLock::new();
    ALL.get_or_init(|| {
        DIRS.iter()
            .map(|&(dir, producer)| {
                let (mut types, mut keys, mut words) = (Vec::new(), Vec::new(), Vec::new());
                for f in fixtures()
                    .iter()
                    .filter(|f| f.contains(&format!("/{dir}/")))
                {
                    let text = std::fs::read_to_string(f).unwrap();
                    for v in text
                        .lines()
                        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    {
                        if let Some(t) = v["type"].as_str() {
                            types.push(t.to_string());
                        }
                        collect(&v, 0, &mut keys, &mut words);
                    }
                }
                for v in [&mut types, &mut keys, &mut words] {
                    v.sort();
                    v.dedup();
                }
                assert!(!types.is_empty() && !keys.is_empty(), "{dir}");
                Shape {
                    dir,
                    producer,
                    types,
                    keys,
                    words,
                }
            })
            .collect()
    })
}

fn collect(v: &Value, depth: usize, keys: &mut Vec<String>, words: &mut Vec<String>) {
    if depth > 5 {
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                keys.push(k.clone());
                if let (true, Some(s)) = (WORD_KEYS.contains(&k.as_str()), x.as_str()) {
                    words.push(s.to_string());
                }
                collect(x, depth + 1, keys, words);
            }
        }
        Value::Array(a) => a
            .iter()
            .take(4)
            .for_each(|x| collect(x, depth + 1, keys, words)),
        _ => {}
    }
}

/// A JSON line shaped like one of `sh`'s events: one of its types, its
/// keys, its words, and hostile or wrongly typed values anywhere.
fn shaped_event(sh: &'static Shape) -> impl Strategy<Value = Value> {
    let word = prop::sample::select(sh.words.clone()).prop_map(Value::String);
    let leaves = prop_oneof![3 => leaf(), 2 => word];
    let keys = sh.keys.clone();
    let words = sh.words.clone();
    let value = leaves.prop_recursive(4, 40, 6, move |inner| {
        let object =
            prop::collection::vec((prop::sample::select(keys.clone()), inner.clone()), 0..6)
                .prop_map(|kv| kv.into_iter().collect::<Map<String, Value>>());
        prop_oneof![
            prop::collection::vec(inner, 0..4).prop_map(Value::Array),
            object.clone().prop_map(Value::Object),
            // Objects that say what they are, like content blocks and items.
            (object, prop::sample::select(words.clone())).prop_map(|(mut m, w)| {
                m.insert("type".into(), Value::String(w));
                Value::Object(m)
            }),
        ]
    });
    (
        prop::sample::select(sh.types.clone()),
        prop::collection::vec((prop::sample::select(sh.keys.clone()), value), 0..8),
    )
        .prop_map(|(ty, fields)| {
            let mut m: Map<String, Value> = fields.into_iter().collect();
            m.insert("type".into(), json!(ty));
            Value::Object(m)
        })
}

/// One fixture line: its JSON with `edits` applied. Each edit walks into the
/// value by the given choices (an object's key, an array's item) and puts a
/// new value where the walk ends.
fn edit(v: &mut Value, path: &[prop::sample::Index], new: Value) {
    enum Step {
        Key(String),
        Item(usize),
        Here,
    }
    let step = match (path.first(), &*v) {
        (Some(c), Value::Object(m)) if !m.is_empty() => {
            Step::Key(c.get(&m.keys().cloned().collect::<Vec<_>>()).clone())
        }
        (Some(c), Value::Array(a)) if !a.is_empty() => Step::Item(c.index(a.len())),
        _ => Step::Here,
    };
    match step {
        Step::Key(k) => edit(&mut v[k.as_str()], &path[1..], new),
        Step::Item(i) => edit(&mut v[i], &path[1..], new),
        Step::Here => *v = new,
    }
}

fn producer_of(path: &str) -> Option<Producer> {
    DIRS.iter()
        .find(|(d, _)| path.contains(&format!("/{d}/")))
        .map(|&(_, p)| p)
}

/// Our JSONL read back gives the same JSONL (as JSON values, numbers
/// compared as numbers).
fn assert_stable(jsonl: &str) {
    let (_, again, _) = run_jsonl(jsonl.as_bytes(), 1 << 24);
    let parse = |s: &str| {
        s.lines()
            .map(|l| common::numbers_as_floats(serde_json::from_str::<Value>(l).unwrap()))
            .collect::<Vec<_>>()
    };
    assert_eq!(parse(jsonl), parse(&again));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// JSON lines shaped like each producer's events (its types, keys and
    /// words, with any value of any type anywhere), read detected and as
    /// that producer: no panic, a documented status, JSONL that parses and
    /// is stable when read back, nothing unsafe on any output.
    #[test]
    fn every_producers_event_shapes_are_handled(
        (which, events) in (0..DIRS.len()).prop_flat_map(|i| {
            (Just(i), prop::collection::vec(shaped_event(&shapes()[i]), 1..10))
        }),
        verbose in any::<bool>(),
    ) {
        let sh = &shapes()[which];
        let mut input = String::new();
        for e in &events {
            input.push_str(&e.to_string());
            input.push('\n');
        }
        let verbosity = if verbose { Verbosity::Verbose } else { Verbosity::Normal };
        for from in [None, Some(sh.producer)] {
            let o = common::run_all(input.as_bytes(), from, verbosity);
            o.check(&format!("{} {from:?}", sh.dir));
            assert_stable(std::str::from_utf8(&o.jsonl).unwrap());
        }
    }

    /// Real streams of every producer with a few values replaced anywhere in
    /// their lines (the mutation harness of the issue, in small): the same
    /// invariants, and the output still does not depend on read sizes.
    #[test]
    fn mutated_real_streams_of_every_producer(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), prop::collection::vec(any::<prop::sample::Index>(), 0..5), value()),
            1..4,
        ),
        forced in any::<bool>(),
        sizes in prop::collection::vec(1usize..300, 1..4),
    ) {
        let path = which.get(fixtures());
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| Value::String(l.to_string())))
            .collect();
        for (line, walk, new) in edits {
            let i = line.index(lines.len());
            edit(&mut lines[i], &walk, new);
        }
        let mut input = String::new();
        for v in &lines {
            input.push_str(&v.to_string());
            input.push('\n');
        }
        let from = if forced { producer_of(path) } else { None };
        let o = common::run_all(input.as_bytes(), from, Verbosity::Verbose);
        o.check(path);
        let jsonl = std::str::from_utf8(&o.jsonl).unwrap();
        assert_stable(jsonl);
        if from.is_none() {
            let data = input.as_bytes();
            prop_assert_eq!(
                run_jsonl(data, 1 << 20),
                run_jsonl(Chunked { data, sizes, i: 0 }, 1 << 20)
            );
        }
    }
}
