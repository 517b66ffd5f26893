//! Bytes → framing (random read sizes) → detection → decoding → both
//! renderers, with every invariant of issue 6 checked on the way out:
//!
//! - no panic, no hang (libFuzzer's `-timeout`);
//! - the exit status is one of the documented ones;
//! - the output does not depend on how the input was cut into reads, and
//!   the push API (`Feeder`, fed in random chunks) gives the same events;
//! - every JSONL line parses back, and reading our JSONL again gives the
//!   same events;
//! - sparing long strings the parser (`json::scan`, here every string
//!   value) changes no event;
//! - nothing on stdout or stderr (pretty, diagnostics, mirrored errors; with
//!   colour on and off) carries a control character, a C1 control or a bidi
//!   override that came from the input: only `\n`, `\t` and our own SGR
//!   colour sequences.
//!
//! Input layout: byte 0 picks `--from` (auto or a producer), the verbosity,
//! colour and a small `--max-line-bytes`; byte 1 seeds the read sizes; the
//! rest is the stream. `fuzz/seed.sh` prefixes every fixture with two such
//! bytes to build the corpus.

#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use streamview::decode::Decoder;
use streamview::diag::Diag;
use streamview::input::Line;
use streamview::render::jsonl::write_event;
use streamview::render::{Jsonl, Pretty, PrettyOptions, SummarySink, Verbosity};
use streamview::{ExitStatus, Feeder, Producer, Runner};
use termcolor::{Ansi, NoColor};

const PRODUCERS: [Option<Producer>; 22] = [
    None,
    Some(Producer::Claude),
    Some(Producer::ClaudeTranscript),
    Some(Producer::Codex),
    Some(Producer::CodexRollout),
    Some(Producer::Gemini),
    Some(Producer::GeminiSession),
    Some(Producer::OpenCode),
    Some(Producer::Qwen),
    Some(Producer::Amp),
    Some(Producer::Cursor),
    Some(Producer::Copilot),
    Some(Producer::Droid),
    Some(Producer::Pi),
    Some(Producer::Cline),
    Some(Producer::Kilo),
    Some(Producer::Kimi),
    Some(Producer::KimiSession),
    Some(Producer::Grok),
    Some(Producer::Hermes),
    Some(Producer::OpenClaw),
    Some(Producer::Crush),
];

/// Hands out the data in pseudo-random read sizes (1 byte to 8 KiB).
struct Chunked<'a> {
    data: &'a [u8],
    state: u32,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 17;
        self.state ^= self.state << 5;
        let want = match self.state % 4 {
            0 => 1,
            1 => (self.state >> 8) as usize % 16 + 1,
            _ => (self.state >> 8) as usize % 8192 + 1,
        };
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[derive(Clone, Copy)]
struct Config {
    from: Option<Producer>,
    verbosity: Verbosity,
    max_line: usize,
    seed: u32,
}

#[derive(Debug, PartialEq, Eq)]
struct Outputs {
    status: ExitStatus,
    jsonl: Vec<u8>,
    jsonl_diag: Vec<u8>,
    plain: Vec<u8>,
    plain_err: Vec<u8>,
    plain_diag: Vec<u8>,
    color: Vec<u8>,
    color_err: Vec<u8>,
    /// `--format summary` or `summary-json` (in colour), then its alerts.
    summary: Vec<u8>,
}

fn reader(data: &[u8], seed: Option<u32>) -> Box<dyn Read + '_> {
    match seed {
        None => Box::new(data),
        Some(s) => Box::new(Chunked { data, state: s | 1 }),
    }
}

fn jsonl(data: &[u8], cfg: Config, seed: Option<u32>) -> (ExitStatus, Vec<u8>, Vec<u8>) {
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), true);
    let mut runner = Runner::new(&mut sink, &mut diag, cfg.max_line).with_producer(cfg.from);
    runner.source("fuzz", reader(data, seed)).unwrap();
    let (_, st) = runner.finish().unwrap();
    (st, sink.into_inner(), diag.into_inner())
}

fn run(data: &[u8], cfg: Config, seed: Option<u32>) -> Outputs {
    let (status, jsonl, jsonl_diag) = jsonl(data, cfg, seed);

    let opts = PrettyOptions {
        verbosity: cfg.verbosity,
        max_lines: 3,
        mirror_errors: true,
    };
    let mut sink = Pretty::new(
        NoColor::new(Vec::new()),
        NoColor::new(Vec::new()),
        opts.clone(),
    );
    let mut diag = Diag::new(Vec::new(), cfg.verbosity == Verbosity::Verbose);
    let mut runner = Runner::new(&mut sink, &mut diag, cfg.max_line).with_producer(cfg.from);
    runner.source("fuzz", reader(data, seed)).unwrap();
    let (_, st) = runner.finish().unwrap();
    assert_eq!(st, status, "the exit status depends on the format");
    let (o, e) = sink.into_inner();
    let (plain, plain_err, plain_diag) = (o.into_inner(), e.into_inner(), diag.into_inner());

    let mut sink = Pretty::new(Ansi::new(Vec::new()), Ansi::new(Vec::new()), opts)
        .with_summary(cfg.seed.is_multiple_of(3));
    let mut diag = Diag::new(Vec::new(), false);
    let mut runner = Runner::new(&mut sink, &mut diag, cfg.max_line).with_producer(cfg.from);
    runner.source("fuzz", reader(data, seed)).unwrap();
    let _ = runner.finish().unwrap();
    let (o, e) = sink.into_inner();

    // The summary formats: a table in colour, or JSON.
    let json = cfg.seed.is_multiple_of(2);
    let alerts = Pretty::alerts_only(Ansi::new(Vec::new()), 3);
    let mut sink = SummarySink::new(Ansi::new(Vec::new()), alerts, json);
    let mut diag = Diag::new(Vec::new(), false);
    // As the command line runs a summary: what no report reads is left
    // unparsed (`json::prune` on arbitrary lines).
    let mut runner = Runner::new(&mut sink, &mut diag, cfg.max_line)
        .with_producer(cfg.from)
        .with_ledger(true);
    runner.source("fuzz", reader(data, seed)).unwrap();
    let _ = runner.finish().unwrap();
    let (summary, alerts) = sink.into_inner();
    let mut summary = summary.into_inner();
    summary.extend_from_slice(&alerts.into_inner().1.into_inner());
    Outputs {
        status,
        jsonl,
        jsonl_diag,
        plain,
        plain_err,
        plain_diag,
        color: o.into_inner(),
        color_err: e.into_inner(),
        summary,
    }
}

fn is_forbidden(c: char) -> bool {
    matches!(c,
        '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{200e}' | '\u{200f}' | '\u{061c}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Only `\n`, `\t` and (with `colour`) our own `ESC [ digits ; m` sequences.
fn assert_terminal_safe(what: &str, bytes: &[u8], colour: bool) {
    let s = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' && colour {
            assert_eq!(
                chars.next(),
                Some('['),
                "{what}: ESC that is not SGR in {s:?}"
            );
            loop {
                match chars.next() {
                    Some('0'..='9' | ';') => {}
                    Some('m') => break,
                    other => panic!("{what}: unexpected {other:?} in an SGR sequence in {s:?}"),
                }
            }
            continue;
        }
        assert!(!is_forbidden(c), "{what}: raw {c:?} in {s:?}");
    }
}

fn check(o: &Outputs) {
    assert!(matches!(
        o.status,
        ExitStatus::Success | ExitStatus::SessionError | ExitStatus::Incomplete
    ));
    assert_terminal_safe("jsonl", &o.jsonl, false);
    assert_terminal_safe("jsonl diagnostics", &o.jsonl_diag, false);
    assert_terminal_safe("pretty", &o.plain, false);
    assert_terminal_safe("pretty stderr", &o.plain_err, false);
    assert_terminal_safe("pretty diagnostics", &o.plain_diag, false);
    assert_terminal_safe("colour", &o.color, true);
    assert_terminal_safe("colour stderr", &o.color_err, true);
    assert_terminal_safe("summary", &o.summary, true);
    for line in o.jsonl.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        if let Err(e) = serde_json::from_slice::<serde_json::Value>(line) {
            panic!(
                "JSONL line does not parse ({e}): {}",
                String::from_utf8_lossy(line)
            );
        }
    }
}

fn values(jsonl: &[u8]) -> Vec<serde_json::Value> {
    jsonl
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| numbers_as_floats(serde_json::from_slice(l).unwrap()))
        .collect()
}

/// Every number as a float: the embedded `raw` keeps the producer's
/// spelling the first time (`-0`, `1E2`) and is re-encoded the second
/// (`0`, `100.0`); the same JSON numbers, which `serde_json::Value`'s
/// equality (integer vs float variants) would tell apart.
fn numbers_as_floats(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_floats).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, numbers_as_floats(v)))
                .collect(),
        ),
        other => other,
    }
}

/// Each line's decoded events (Debug), with string values of lines at
/// least `scan_from` bytes long spared the parser, and the lines a stream
/// reads from their bytes (token deltas) read so or not (`unparsed`).
fn events(stream: &[u8], from: Option<Producer>, scan_from: usize, unparsed: bool) -> Vec<String> {
    let mut dec = Decoder::with_producer(from)
        .spare_strings(scan_from, 0)
        .read_unparsed(unparsed);
    let mut out = Vec::new();
    let mut lines = stream.split(|&b| b == b'\n').peekable();
    let mut number = 0;
    while let Some(bytes) = lines.next() {
        number += 1;
        let line = Line {
            number,
            bytes,
            partial: lines.peek().is_none(),
        };
        let d = dec.decode(&line, &mut |ev| {
            out.push(format!("{ev:?}"));
            Ok(())
        });
        out.push(format!("{d:?}"));
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let (flags, seed, stream) = match data {
        [f, s, rest @ ..] => (*f, *s, rest),
        _ => (0, 0, data),
    };
    let cfg = Config {
        from: PRODUCERS[usize::from(flags & 0x0f) % PRODUCERS.len()],
        verbosity: match (flags >> 4) & 3 {
            0 => Verbosity::Quiet,
            1 => Verbosity::Verbose,
            _ => Verbosity::Normal,
        },
        max_line: if flags & 0x40 != 0 { 200 } else { 1 << 20 },
        seed: u32::from(seed).wrapping_mul(2_654_435_761),
    };
    let whole = run(stream, cfg, None);
    check(&whole);
    let chunked = run(stream, cfg, Some(cfg.seed));
    assert_eq!(whole, chunked, "the output depends on the read sizes");

    // The push API, fed in chunks, gives the same events as the runner.
    if cfg.from.is_none() {
        let mut feeder = Feeder::with_max_line(cfg.max_line);
        let mut fed = Vec::new();
        let mut on_event = |ev: &streamview::Event<'_>, s: &streamview::Session| {
            if !s.note().duplicate {
                write_event(&mut fed, ev, s);
                fed.push(b'\n');
            }
        };
        let mut rest = stream;
        let mut state = cfg.seed | 1;
        while !rest.is_empty() {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let n = (state as usize % 300 + 1).min(rest.len());
            feeder.feed(&rest[..n], &mut on_event);
            rest = &rest[n..];
        }
        let session = feeder.finish(&mut on_event);
        // The feeder reads no named input: its events have no `source`.
        let named = String::from_utf8_lossy(&whole.jsonl).replace(
            r#","source":"fuzz","timestamp":"#,
            r#","source":null,"timestamp":"#,
        );
        assert_eq!(
            String::from_utf8_lossy(&fed),
            named,
            "Feeder and Runner disagree"
        );
        assert_eq!(
            ExitStatus::from_outcome(session.worst_outcome()),
            whole.status,
            "Feeder and Runner disagree on the outcome"
        );
    }

    // Long strings spared the parser (every string value, here) give the
    // same events as the whole line parsed, and so do token deltas read
    // from their bytes.
    let parsed = events(stream, cfg.from, usize::MAX, false);
    assert_eq!(
        parsed,
        events(stream, cfg.from, 0, false),
        "the string scan changed an event"
    );
    assert_eq!(
        parsed,
        events(stream, cfg.from, usize::MAX, true),
        "a line read without the parser changed an event"
    );

    // Our JSONL, read back, is the same events.
    let again = Config {
        from: None,
        max_line: 1 << 24,
        ..cfg
    };
    let (_, jsonl2, _) = jsonl(&whole.jsonl, again, None);
    assert_eq!(values(&whole.jsonl), values(&jsonl2), "JSONL round trip");
});
