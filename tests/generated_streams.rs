//! The benchmark streams (issue 5) are streams streamview reads in full:
//! every line the generator writes (`benches/support/generate.rs`, 2 MB per
//! profile here) is accepted without a "skipped" report, every tool call
//! and result it emitted is rendered, each session ends with its result, and
//! the exit status is 0. A benchmark over lines that are skipped would
//! measure the error path, not the decoder.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

#[path = "../benches/support/generate.rs"]
mod generate;

mod common;

use generate::{Counts, Profile, generate_vec, parse_size, q};
use streamview::diag::Diag;
use streamview::render::Jsonl;
use streamview::{ExitStatus, Runner};

const SIZE: u64 = 2 << 20;
const SEED: u64 = 7;

/// What the JSONL output holds, by kind.
#[derive(Debug, Default)]
struct Seen {
    tool_calls: u64,
    tool_results: u64,
    tool_errors: u64,
    denied: u64,
    results: u64,
    sub_calls: u64,
}

fn jsonl_counts(jsonl: &[u8]) -> Seen {
    let mut seen = Seen::default();
    for line in jsonl.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: serde_json::Value = serde_json::from_slice(line).unwrap();
        match v["kind"].as_str().unwrap() {
            "tool_call" => {
                seen.tool_calls += 1;
                if !v["parent"].is_null() {
                    seen.sub_calls += 1;
                }
            }
            "tool_result" => {
                seen.tool_results += 1;
                if v["is_error"] == true {
                    seen.tool_errors += 1;
                }
                if v["denied"] == true {
                    seen.denied += 1;
                }
            }
            "result" => seen.results += 1,
            _ => {}
        }
    }
    seen
}

/// In-process, through the JSONL sink: nothing skipped, every call and
/// result of the generator present, status 0.
fn check_library(profile: Profile, data: &[u8], c: &Counts) {
    let name = profile.name();
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), false);
    let mut runner = Runner::new(&mut sink, &mut diag, 64 << 20);
    runner.source(name, data).unwrap();
    let (_, status) = runner.finish().unwrap();
    let stderr = String::from_utf8(diag.into_inner()).unwrap();
    assert_eq!(diag_skipped(&stderr), 0, "{name}: skipped lines:\n{stderr}");
    assert_eq!(status, ExitStatus::Success, "{name}: {stderr}");
    let seen = jsonl_counts(&sink.into_inner());
    assert_eq!(seen.tool_calls, c.tool_calls, "{name}: tool calls");
    assert_eq!(seen.tool_results, c.tool_results, "{name}: tool results");
    assert_eq!(
        seen.tool_errors, c.tool_errors,
        "{name}: failed tool results"
    );
    assert_eq!(seen.denied, c.denials, "{name}: denials");
    assert_eq!(seen.sub_calls, c.subagent_calls, "{name}: sub-agent calls");
    assert_eq!(seen.results, c.sessions, "{name}: one result per session");
}

fn diag_skipped(stderr: &str) -> usize {
    stderr.lines().filter(|l| l.contains("skipped")).count()
}

/// The binary, pretty, as `benches/compare.sh` runs it: a `▸` line per
/// call, a `✗` or `⊘` line per failure, a `✓ done` line per session,
/// nothing skipped, status 0.
fn check_binary(profile: Profile, data: &[u8], c: &Counts) {
    let name = profile.name();
    let path = common::temp_file(&format!("generated-{name}.jsonl"), data);
    let out = common::sv()
        .args(["--color", "never"])
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
    assert!(!stderr.contains("skipped"), "{name}: {stderr}");
    let count = |mark: &str| {
        stdout
            .lines()
            .filter(|l| l.trim_start_matches([' ', '│']).starts_with(mark))
            .count() as u64
    };
    assert_eq!(count("▸ "), c.tool_calls, "{name}: tool lines");
    assert_eq!(count("✗ ") + count("⊘ "), c.tool_errors, "{name}: failures");
    assert_eq!(count("⊘ "), c.denials, "{name}: denials");
    assert_eq!(count("✓ done"), c.sessions, "{name}: result lines");
}

#[test]
fn generated_streams_are_read_in_full() {
    for profile in Profile::ALL {
        let (data, c) = generate_vec(profile, SIZE, SEED);
        let name = profile.name();
        assert!(
            c.bytes >= SIZE && c.bytes == data.len() as u64,
            "{name}: {c:?}"
        );
        assert_eq!(c.lines, memchr::memchr_iter(b'\n', &data).count() as u64);
        assert!(
            c.sessions > 1 && c.tool_calls > 50 && c.tool_errors > 0,
            "{name}: {c:?}"
        );
        assert_eq!(
            c.tool_calls, c.tool_results,
            "{name}: every call is answered"
        );
        check_library(profile, &data, &c);
        check_binary(profile, &data, &c);
    }
}

#[test]
fn generation_is_deterministic() {
    for profile in Profile::ALL {
        let a = generate_vec(profile, 256 << 10, 3);
        let b = generate_vec(profile, 256 << 10, 3);
        assert!(a == b, "{}: same seed, same bytes", profile.name());
        let c = generate_vec(profile, 256 << 10, 4);
        assert!(a.0 != c.0, "{}: another seed, other bytes", profile.name());
    }
}

#[test]
fn partial_streams_are_mostly_small_events() {
    let (data, c) = generate_vec(Profile::ClaudePartial, SIZE, SEED);
    assert!(c.stream_events * 2 > c.lines, "{c:?}");
    let mut lens: Vec<usize> = data.split(|&b| b == b'\n').map(<[u8]>::len).collect();
    lens.sort_unstable();
    let median = lens[lens.len() / 2];
    assert!((150..400).contains(&median), "median line {median}");
}

#[test]
fn generator_helpers() {
    let mut s = String::new();
    q(&mut s, "a\"b\\c\nd\u{1b}é");
    assert_eq!(s, r#""a\"b\\c\nd\u001bé""#);
    assert_eq!(parse_size("2M"), Some(2 << 20));
    assert_eq!(parse_size("500m"), Some(500 << 20));
    assert_eq!(parse_size("64K"), Some(64 << 10));
    assert_eq!(parse_size("123"), Some(123));
    assert_eq!(parse_size("x"), None);
}
