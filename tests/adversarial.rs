//! Adversarial inputs (issue 6): each case gives its documented result —
//! rendered, or reported on stderr with its line number and skipped — with
//! the documented exit status, bounded memory, and nothing on stdout or
//! stderr that a terminal would act on.
//!
//! docs/usage.md ("Bad input", "Terminal safety") documents every result
//! asserted here.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a panic is a failure"
)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::{
    Out, PRODUCERS, all_fixtures, assert_jsonl, assert_terminal_safe, drain, fixture, read, run,
    run_all, sv_std, vm_hwm_kib, wait_deadline,
};
use serde_json::{Value, json};
use streamview::render::Verbosity;

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","cwd":"/w","tools":["Bash"]}"#;
const DONE: &str =
    r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s1","num_turns":1}"#;

fn text_line(text: &str) -> String {
    json!({"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"text","text":text}]}})
        .to_string()
}

/// A session: init, the given lines, a success result (each newline-ended).
fn session(lines: &[&[u8]]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(INIT.as_bytes());
    v.push(b'\n');
    for l in lines {
        v.extend_from_slice(l);
        v.push(b'\n');
    }
    v.extend_from_slice(DONE.as_bytes());
    v.push(b'\n');
    v
}

/// Run in every format and verbosity, check the streams are terminal-safe
/// and the JSONL parses; return the normal pretty run.
fn run_checked(args: &[&str], stdin: &[u8]) -> Out {
    for extra in [
        &["--format", "jsonl"][..],
        &["-v"],
        &["-q"],
        &["--color", "always"],
    ] {
        let mut all = args.to_vec();
        all.extend_from_slice(extra);
        let o = run(&all, stdin);
        let colour = extra.contains(&"always");
        assert_terminal_safe(&format!("{all:?} stdout"), &o.stdout, colour);
        assert_terminal_safe(&format!("{all:?} stderr"), &o.stderr, colour);
        if extra.contains(&"jsonl") {
            assert_jsonl(&format!("{all:?}"), &o.stdout);
        }
    }
    run(args, stdin)
}

fn skipped(o: &Out, line: u64, what: &str) {
    let want = format!("streamview: <stdin>:{line}: {what}; skipped");
    assert!(
        o.err().lines().any(|l| l == want),
        "missing `{want}` in:\n{}",
        o.err()
    );
}

// ---------------------------------------------------------------- empty input

#[test]
fn empty_input_is_exit_3_with_a_hint() {
    let o = run_checked(&[], b"");
    assert_eq!(o.code, 3);
    assert_eq!(o.out(), "");
    assert!(
        o.err()
            .starts_with("streamview: the input is empty; run the agent with")
    );
}

#[test]
fn only_blank_lines_is_exit_3_and_nothing_is_skipped() {
    let o = run_checked(&[], b"\n\n   \r\n\t\n\xEF\xBB\xBF\n");
    assert_eq!(o.code, 3);
    assert_eq!(o.out(), "");
    assert_eq!(
        o.err(),
        "streamview: no events in the input: every line was blank or skipped\n"
    );
}

// ---------------------------------------------------------------- encodings

#[test]
fn invalid_utf8_outside_strings_is_reported_and_skipped() {
    let input = session(&[
        b"\xff\xfe not text",
        b"{\"type\":\"x\"} \xc3\x28",
        b"caf\xe9",
    ]);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 0, "the session itself is fine");
    skipped(&o, 2, "not valid UTF-8 (byte 1)");
    skipped(&o, 3, "not valid UTF-8 (byte 14)");
    skipped(&o, 4, "not valid UTF-8 (byte 4)");
    assert!(o.err().ends_with("streamview: 3 lines skipped\n"));
    assert!(o.out().contains("✓ done"));
}

#[test]
fn invalid_utf8_inside_a_string_is_reported_and_skipped() {
    let mut bad = text_line("before after").into_bytes();
    let at = bad.windows(6).position(|w| w == b"before").unwrap() + 6;
    bad[at] = 0xff;
    let o = run_checked(&[], &session(&[&bad, text_line("next").as_bytes()]));
    assert_eq!(o.code, 0);
    skipped(&o, 2, &format!("not valid UTF-8 (byte {})", at + 1));
    assert!(o.out().contains("next"));
}

#[test]
fn nul_bytes_are_shown_visibly_or_reported() {
    let escaped = text_line("a\u{0}b");
    let raw_nul = b"{\"type\":\"assistant\",\"message\":{\"content\":\"raw\0nul\"}}";
    let input = session(&[b"\0\0\0", raw_nul, escaped.as_bytes()]);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 0);
    // A line of NULs is not JSON: plain text, shown with control pictures.
    assert!(o.out().contains("␀␀␀"), "{}", o.out());
    // A raw NUL inside JSON is invalid JSON, and says so.
    let at = raw_nul.iter().position(|&b| b == 0).unwrap() + 1;
    skipped(
        &o,
        3,
        &format!("invalid JSON at byte {at} (raw control character U+0000; JSON must escape it)"),
    );
    // An escaped NUL is content: shown as a picture, kept exactly in JSONL.
    assert!(o.out().contains("a␀b"));
    let j = run(&["--format", "jsonl"], &input);
    assert!(j.out().contains(r#""text":"a\u0000b""#));
    assert!(!j.stdout.contains(&0));
}

/// What `: > log` leaves under a writer that does not append: the file
/// is sparse up to the writer's offset, so its next line comes after a run
/// of NULs (issue 18: the line became text and its event was lost).
#[test]
fn nuls_before_a_json_line_are_stripped() {
    let nuls = [&[0u8; 4096][..], text_line("after the hole").as_bytes()].concat();
    let noisy = [
        b"\0\0\x1b[2K\r".as_slice(),
        text_line("noise too").as_bytes(),
    ]
    .concat();
    let input = session(&[&nuls, &noisy]);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 0, "{}", o.err());
    assert_eq!(o.err(), "");
    assert!(o.out().contains("after the hole"), "{}", o.out());
    assert!(o.out().contains("noise too"), "{}", o.out());
    assert!(!o.out().contains('␀'), "{}", o.out());
    let j = run(&["--format", "jsonl"], &input);
    assert!(!j.out().contains("plain_text"), "{}", j.out());
    // A bad line after NULs is reported where it is in the line.
    let bad = [&[0u8; 10][..], br#"{"type":"x","t":"\q"}"#].concat();
    let o = run(&[], &session(&[&bad]));
    skipped(
        &o,
        2,
        "invalid JSON at byte 28 (invalid escape in a string)",
    );
}

/// A lone UTF-16 surrogate escape, as Node's `JSON.stringify` writes a
/// string cut in the middle of an emoji, is read as U+FFFD (issue 18: the
/// line was skipped, and with it a tool result, or the result and the
/// exit status).
#[test]
fn lone_surrogate_escapes_are_read_as_the_replacement_character() {
    let call = r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"emoji"}}]}}"#;
    let answer = r#"{"type":"user","session_id":"s1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"cut \ud83d here, \udc00 there, \ud83d\ude00 whole"}]}}"#;
    let done = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s1","num_turns":1,"result":"the end \ud83d"}"#;
    let mut input = Vec::new();
    for l in [INIT, call, answer, done] {
        input.extend_from_slice(l.as_bytes());
        input.push(b'\n');
    }
    let o = run_checked(&["-v"], &input);
    assert_eq!(o.code, 0, "{}", o.err());
    assert!(
        o.out()
            .contains("cut \u{fffd} here, \u{fffd} there, 😀 whole"),
        "{}",
        o.out()
    );
    // Said with -v, and only then.
    for line in [3, 4] {
        let note =
            format!("streamview: <stdin>:{line}: lone UTF-16 surrogate escape read as U+FFFD");
        assert!(o.err().lines().any(|l| l == note), "{}", o.err());
    }
    let plain = run(&[], &input);
    assert_eq!((plain.code, plain.err()), (0, String::new()));
    let r = run(&["--format", "result"], &input);
    assert_eq!((r.code, r.out()), (0, "the end \u{fffd}\n".to_string()));
    // JSONL: parsed back strictly, with the replacement character.
    let j = run(&["--format", "jsonl"], &input);
    assert_jsonl("surrogates", &j.stdout);
    assert!(j.out().contains("cut \u{fffd} here"), "{}", j.out());
    assert!(!j.out().contains(r"\ud83d here"), "{}", j.out());
}

/// Messages about invalid JSON say what is wrong in words and where in the
/// line (issue 18: `(InternalError)`, `(ExpectedObjectContent)`, and
/// offsets counted inside a string).
#[test]
fn invalid_json_is_described_in_words_at_its_place_in_the_line() {
    let pad = "x".repeat(50);
    let cases: [(String, &str); 9] = [
        (
            format!(r#"{{"type":"x","t":"{pad}"}}{{"type":"y"}}"#),
            "two JSON values on one line",
        ),
        (
            r#"{"type":"x"} trailing"#.into(),
            "extra text after the JSON value",
        ),
        (r#"{"type":"x","t":{"a":1}"#.into(), "unterminated object"),
        (r#"{"type":"x","t":[1,2"#.into(), "unterminated array"),
        (r#"{"type":"x","t":"open}"#.into(), "unterminated string"),
        (
            r#"{"type":"x","t":[1}"#.into(),
            "`}` where the array needs its `]`",
        ),
        (
            format!(r#"{{"type":"x","t":"{pad}\ud800\q"}}"#),
            "invalid escape in a string",
        ),
        (
            r#"{"type":"x" "t":1}"#.into(),
            "expected a quoted key, `,` or `}` in an object",
        ),
        (r#"{"type":'x'}"#.into(), "unexpected `'`"),
    ];
    let lines: Vec<&[u8]> = cases.iter().map(|(l, _)| l.as_bytes()).collect();
    let o = run_checked(&[], &session(&lines));
    assert_eq!(o.code, 0);
    let at = |l: &str, what: &str| l.find(what).unwrap() + 1;
    let wants = [
        at(&cases[0].0, "}{") + 1,
        at(&cases[1].0, "trailing"),
        1,
        at(&cases[3].0, "["),
        at(&cases[4].0, "\"open"),
        at(&cases[5].0, "}"),
        at(&cases[6].0, r"\q"),
        at(&cases[7].0, r#" "t""#) + 1,
        at(&cases[8].0, "'"),
    ];
    for (i, ((_, what), want)) in cases.iter().zip(wants).enumerate() {
        skipped(
            &o,
            i as u64 + 2,
            &format!("invalid JSON at byte {want} ({what})"),
        );
    }
    assert!(
        !o.err().contains("Error") && !o.err().contains("Expected"),
        "{}",
        o.err()
    );
}

#[test]
fn a_bom_is_accepted_at_the_start_and_on_later_lines() {
    let path = fixture("claude/tools_basic.jsonl");
    let plain = read(&path);
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    for (i, l) in plain.split_inclusive(|&b| b == b'\n').enumerate() {
        if i % 3 == 2 {
            with_bom.extend_from_slice(b"\xEF\xBB\xBF");
        }
        with_bom.extend_from_slice(l);
    }
    for args in [&[][..], &["--format", "jsonl"], &["-v"]] {
        let a = run_checked(args, &plain);
        let b = run_checked(args, &with_bom);
        assert_eq!(a.out(), b.out(), "{args:?}");
        assert_eq!(a.err(), b.err());
        assert_eq!(a.code, b.code);
    }
}

#[test]
fn crlf_line_ends_give_the_same_output() {
    for name in [
        "claude/tools_basic.jsonl",
        "codex/mixed.jsonl",
        "gemini/files.jsonl",
        "opencode/mixed.jsonl",
        "qwen/mixed.jsonl",
        "amp/multi.jsonl",
        "cursor/tools.jsonl",
        "claude-transcript/transcript_tools_basic.jsonl",
    ] {
        let lf = read(&fixture(name));
        let mut crlf = Vec::new();
        for l in lf.split_inclusive(|&b| b == b'\n') {
            crlf.extend_from_slice(l.strip_suffix(b"\n").unwrap_or(l));
            crlf.extend_from_slice(b"\r\n");
        }
        for args in [&[][..], &["--format", "jsonl"]] {
            let a = run(args, &lf);
            let b = run_checked(args, &crlf);
            assert_eq!(a.out(), b.out(), "{name} {args:?}");
            assert_eq!(a.code, b.code, "{name}");
        }
    }
}

// ---------------------------------------------------------------- long lines

/// A 200 MB single line, written through a pipe, with the default limit
/// (64 MiB): reported with its line number and length and skipped, the rest
/// of the stream rendered, and the peak memory of the process stays near the
/// limit (the line buffer grows to the limit once, then discards).
#[test]
fn a_200_mb_line_is_skipped_with_bounded_memory() {
    const LEN: usize = 200 * 1024 * 1024;
    let mut child = sv_std()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let (close_tx, close_rx) = mpsc::channel::<()>();
    let writer = thread::spawn(move || {
        writeln!(stdin, "{INIT}").unwrap();
        let head = br#"{"type":"assistant","message":{"content":[{"type":"text","text":""#;
        let tail = b"\"}]}}\n";
        stdin.write_all(head).unwrap();
        let block = vec![b'A'; 1 << 20];
        let mut left = LEN - head.len() - (tail.len() - 1);
        while left > 0 {
            let n = left.min(block.len());
            stdin.write_all(&block[..n]).unwrap();
            left -= n;
        }
        stdin.write_all(tail).unwrap();
        writeln!(stdin, "{DONE}").unwrap();
        // Keep the pipe open until the memory was measured.
        let _ = close_rx.recv_timeout(Duration::from_secs(60));
    });
    let stderr = drain(child.stderr.take().unwrap());
    let (done_tx, done_rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || {
        let mut out = String::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if line.starts_with("✓ done") {
                let _ = done_tx.send(());
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    });
    let started = Instant::now();
    done_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the line after the long one is rendered");
    let peak = vm_hwm_kib(pid);
    let elapsed = started.elapsed();
    close_tx.send(()).unwrap();
    writer.join().unwrap();
    let status = wait_deadline(&mut child, Duration::from_secs(30));
    let out = reader.join().unwrap();
    let err = String::from_utf8(stderr.join().unwrap()).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(
        err,
        format!(
            "streamview: <stdin>:2: line of {LEN} bytes exceeds --max-line-bytes 67108864; skipped\n\
             streamview: 1 line skipped\n"
        )
    );
    assert!(out.starts_with("● m in /w"), "{out}");
    if let Some(kib) = peak {
        // 64 MiB of line buffer plus the program itself and the read-ahead
        // queue; far from the 200 MB of the line.
        eprintln!("200 MB line: peak RSS {kib} KiB, {elapsed:?}");
        assert!(kib < 100 * 1024, "peak RSS {kib} KiB");
    }
}

/// Runs the binary on `input` (through a pipe kept open), waits for the
/// session's end on stdout, and returns the peak memory then (KiB, `None`
/// without `/proc`), stdout, stderr and the exit code.
fn peak_at_the_end(input: Vec<u8>) -> (Option<u64>, String, String, Option<i32>) {
    let mut child = sv_std()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let (close_tx, close_rx) = mpsc::channel::<()>();
    let writer = thread::spawn(move || {
        stdin.write_all(&input).unwrap();
        let _ = close_rx.recv_timeout(Duration::from_secs(60));
    });
    let stderr = drain(child.stderr.take().unwrap());
    let (done_tx, done_rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = thread::spawn(move || {
        let mut out = String::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if line.starts_with("✓ done") {
                let _ = done_tx.send(());
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    });
    done_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the session's end is rendered");
    let peak = vm_hwm_kib(pid);
    close_tx.send(()).unwrap();
    writer.join().unwrap();
    let status = wait_deadline(&mut child, Duration::from_secs(30));
    let out = reader.join().unwrap();
    let err = String::from_utf8(stderr.join().unwrap()).unwrap();
    (peak, out, err, status.code())
}

/// Issue 18: a line of many tiny values would cost simd-json about 16
/// times its size in tape. Whatever a line holds, memory stays within
/// 16 MiB plus three times the longest line (over what the binary takes
/// for a short session, less 4 MiB): lines too dense for that are
/// reported and skipped, the rest of the session is shown, and a line as
/// long whose separators are inside its strings is read.
#[test]
fn memory_stays_within_three_lines_whatever_a_line_holds() {
    const LEN: usize = 12 << 20;
    let tool_use = |input: &str| {
        format!(
            r#"{{"type":"assistant","session_id":"s1","message":{{"id":"m1","content":[{{"type":"tool_use","id":"t1","name":"Probe","input":{{"v":{input}}}}}]}}}}"#
        )
    };
    let repeat = |item: &str| {
        let mut s = String::from("[");
        while s.len() < LEN {
            s.push_str(item);
            s.push(',');
        }
        s.push_str("0]");
        s
    };
    let dense = [
        ("numbers", repeat("0")),
        ("objects", repeat(r#"{"a":1}"#)),
        ("short strings", repeat(r#""ab""#)),
        ("nested arrays", repeat("[[0,0],[0]]")),
    ];
    // The bound is over what the same binary takes for a session of one
    // short line (a debug build's own pages alone are several MiB more
    // than a release build's); 16 MiB was the whole of it in release.
    let (base, ..) = peak_at_the_end(session(&[tool_use("[0]").as_bytes()]));
    let base = base.map_or(0, |b| b.saturating_sub(4 << 10));
    let bound_kib = |line: usize| base + (16 << 10) + 3 * line as u64 / 1024;
    for (what, input) in &dense {
        let line = tool_use(input);
        let (peak, out, err, code) = peak_at_the_end(session(&[line.as_bytes()]));
        assert_eq!(code, Some(0), "{what}: {err}");
        assert!(
            err.starts_with("streamview: <stdin>:2: ")
                && err.contains(" JSON values in ")
                && err.contains("too many to parse within streamview's memory bound; skipped"),
            "{what}: {err}"
        );
        assert!(
            out.starts_with("● m in /w") && out.contains("✓ done"),
            "{what}: {out}"
        );
        if let Some(kib) = peak {
            eprintln!("{what}: {} MB line, peak RSS {kib} KiB", line.len() >> 20);
            assert!(kib < bound_kib(line.len()), "{what}: peak RSS {kib} KiB");
        }
    }
    // As long, as many commas, all inside short strings: read and shown.
    let commas = format!("\"{}\"", ",".repeat(900));
    let line = tool_use(&repeat(&commas));
    let (peak, out, err, code) = peak_at_the_end(session(&[line.as_bytes()]));
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.contains("▸ Probe"), "{out}");
    if let Some(kib) = peak {
        eprintln!("commas in strings: peak RSS {kib} KiB");
        assert!(kib < bound_kib(line.len()), "peak RSS {kib} KiB");
    }
}

/// Issue 18: a streamed answer is shown as it streams and not held whole:
/// 24 MB of Claude text deltas, and as many Gemini chunks (which streamview
/// joins into text events of at most 1 MiB), stay within 16 MiB plus three
/// of their short lines; the text is shown once, complete, and
/// `--format result` gives the whole Gemini answer.
#[test]
fn a_streamed_answer_is_not_held_whole() {
    const TOTAL: usize = 24 << 20;
    let piece = |i: usize| format!("<{i:07}>{}", "w".repeat(300));
    let n = TOTAL / piece(0).len();
    let mut claude = String::from(INIT);
    claude.push('\n');
    claude.push_str(r#"{"type":"stream_event","session_id":"s1","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}"#);
    claude.push('\n');
    let mut gemini = String::from(
        r#"{"type":"init","timestamp":"2026-11-22T03:55:27.879Z","session_id":"g1","model":"gemini-2.5-pro"}"#,
    );
    gemini.push('\n');
    for i in 0..n {
        let p = piece(i);
        claude.push_str(&json!({"type":"stream_event","session_id":"s1","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":p}}}).to_string());
        claude.push('\n');
        gemini.push_str(&json!({"type":"message","timestamp":"2026-11-22T03:55:28.000Z","role":"assistant","content":p,"delta":true}).to_string());
        gemini.push('\n');
    }
    claude.push_str(r#"{"type":"stream_event","session_id":"s1","event":{"type":"content_block_stop","index":0}}"#);
    claude.push('\n');
    claude.push_str(DONE);
    claude.push('\n');
    gemini.push_str(r#"{"type":"result","timestamp":"2026-11-22T03:55:29.000Z","status":"success","stats":{"total_tokens":1,"input_tokens":1,"output_tokens":0,"duration_ms":5,"tool_calls":0}}"#);
    gemini.push('\n');
    // The bound is over what the same binary takes for a session without
    // text: a build's own pages grow with its code (a debug build's by
    // several MiB), while holding the answer would take 24 MB more.
    let (base, ..) = peak_at_the_end(format!("{INIT}\n{DONE}\n").into_bytes());
    let bound = base.unwrap_or(0) + (8 << 10);
    for (what, input) in [("claude", claude), ("gemini", gemini)] {
        let (peak, out, err, code) = peak_at_the_end(input.clone().into_bytes());
        assert_eq!((code, err.as_str()), (Some(0), ""), "{what}");
        for i in [0, n / 2, n - 1] {
            assert_eq!(
                out.matches(&format!("<{i:07}>")).count(),
                1,
                "{what}: piece {i} once"
            );
        }
        if let Some(kib) = peak {
            eprintln!(
                "{what}: {} MB of streamed text, peak RSS {kib} KiB (bound {bound} KiB)",
                TOTAL >> 20
            );
            assert!(kib < bound, "{what}: peak RSS {kib} KiB, bound {bound} KiB");
        }
        if what == "gemini" {
            let o = run(&["--format", "result"], input.as_bytes());
            let whole: String = (0..n).map(piece).collect();
            assert!(
                o.stdout == format!("{whole}\n").into_bytes(),
                "the whole answer"
            );
        }
    }
}

/// Issue 18: tool calls that never get an answer are not kept without
/// end (Claude, Gemini, Codex): 150,000 of them stay within 16 MiB, and
/// the end still says how many were never answered.
#[test]
fn calls_never_answered_take_bounded_memory() {
    const N: usize = 150_000;
    let mut claude = format!("{INIT}\n");
    let mut gemini = String::from(
        "{\"type\":\"init\",\"timestamp\":\"2026-11-22T03:55:27.879Z\",\"session_id\":\"g1\",\"model\":\"gemini-2.5-pro\"}\n",
    );
    let mut codex = String::from(
        "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n{\"type\":\"turn.started\"}\n",
    );
    for i in 0..N {
        claude.push_str(&json!({"type":"assistant","session_id":"s1","message":{"id":format!("m{i}"),"content":[{"type":"tool_use","id":format!("toolu_{i:08}"),"name":"Bash","input":{"command":format!("ls /tmp/{i}")}}]}}).to_string());
        claude.push('\n');
        gemini.push_str(&json!({"type":"tool_use","timestamp":"2026-11-22T03:55:35.193Z","tool_name":"run_shell_command","tool_id":format!("run_{i:08}"),"parameters":{"command":format!("ls {i}")}}).to_string());
        gemini.push('\n');
        codex.push_str(&json!({"type":"item.started","item":{"id":format!("item_{i}"),"type":"command_execution","command":format!("ls {i}"),"aggregated_output":"","exit_code":null,"status":"in_progress"}}).to_string());
        codex.push('\n');
    }
    claude.push_str(DONE);
    claude.push('\n');
    gemini.push_str("{\"type\":\"result\",\"timestamp\":\"2026-11-22T03:55:29.000Z\",\"status\":\"success\",\"stats\":{\"total_tokens\":1}}\n");
    codex.push_str("{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":1,\"cached_input_tokens\":0,\"output_tokens\":1}}\n");
    for (what, input) in [("claude", claude), ("gemini", gemini), ("codex", codex)] {
        let (peak, out, err, code) = peak_at_the_end(input.into_bytes());
        assert!(matches!(code, Some(0 | 1)), "{what}: {code:?} {err}");
        if what == "claude" {
            assert_eq!(
                out.matches("  ⎿ never answered: Bash ls /tmp/").count(),
                50,
                "{what}"
            );
            assert!(
                out.contains(&format!("… and {} more calls never answered", N - 50)),
                "{what}: {}",
                &out[out.len().saturating_sub(400)..]
            );
        }
        if let Some(kib) = peak {
            eprintln!("{what}: {N} calls never answered, peak RSS {kib} KiB");
            // The bound is the release build's (12.5 MiB for Codex here);
            // an unoptimized test build maps a larger binary and keeps
            // more on its stack frames (19.4 MiB; 26.2 MiB once the
            // binary carried the OTLP exporter and ran beside two builds).
            let bound = if cfg!(debug_assertions) {
                28 << 10
            } else {
                16 << 10
            };
            assert!(kib < bound, "{what}: peak RSS {kib} KiB");
        }
    }
}

#[test]
fn a_line_just_over_max_line_bytes_is_skipped_and_one_at_the_limit_is_not() {
    let limit = 1000;
    let fit = |len: usize| {
        let base = text_line("").len();
        let l = text_line(&"x".repeat(len - base));
        assert_eq!(l.len(), len);
        l
    };
    let at = fit(limit);
    let over = fit(limit + 1);
    let at_crlf = format!("{at}\r");
    let input = session(&[at.as_bytes(), over.as_bytes(), at_crlf.as_bytes()]);
    let o = run_checked(&["--max-line-bytes", "1000"], &input);
    assert_eq!(o.code, 0);
    skipped(&o, 3, "line of 1001 bytes exceeds --max-line-bytes 1000");
    assert_eq!(o.err().lines().count(), 2, "{}", o.err());
    assert_eq!(
        o.out().lines().filter(|l| l.contains("xxxxxxxxxx")).count(),
        2
    );
}

// ---------------------------------------------------------------- JSON edge cases

#[test]
fn a_hundred_thousand_levels_of_nesting_are_reported_and_skipped() {
    let arrays = "[".repeat(100_000);
    let objects = r#"{"a":"#.repeat(100_000);
    let closed = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let input = session(&[arrays.as_bytes(), objects.as_bytes(), closed.as_bytes()]);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 0);
    for line in 2..=4 {
        let prefix = format!("streamview: <stdin>:{line}: invalid JSON at byte ");
        let l = o
            .err()
            .lines()
            .find(|l| l.starts_with(&prefix))
            .map(str::to_string);
        assert!(
            l.is_some_and(|l| l.ends_with("(nested too deeply); skipped")),
            "{}",
            o.err()
        );
    }
    // Deep but within simd-json's limit: rendered, and the JSONL keeps it.
    let deep = format!(
        r#"{{"type":"assistant","message":{{"content":[{{"type":"tool_use","id":"t","name":"X","input":{{"a":{}1{}}}}}]}}}}"#,
        "[".repeat(1000),
        "]".repeat(1000)
    );
    let o = run_checked(&["--format", "jsonl"], &session(&[deep.as_bytes()]));
    assert_eq!(o.code, 0);
    assert!(o.out().contains(r#""name":"X""#));
}

#[test]
fn huge_and_odd_numbers() {
    let input = session(&[
        br#"{"type":"result","subtype":"success","is_error":false,"session_id":"s1","total_cost_usd":1e400}"#,
        br#"{"type":"assistant","session_id":"s1","message":{"id":"m2","usage":{"input_tokens":18446744073709551616,"output_tokens":-0},"content":[{"type":"tool_use","id":"t1","name":"X","input":{"n":18446744073709551616,"z":-0,"e":1e308,"f":-1.5e-320}}]}}"#,
        br#"{"type":"user","session_id":"s1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#,
        br#"{"type":"result","subtype":"success","is_error":false,"session_id":"s1","num_turns":18446744073709551616,"duration_ms":-0,"total_cost_usd":1e308}"#,
    ]);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 0);
    // Beyond f64: reported like any invalid JSON (serde_json refuses it too).
    let l = o.err().lines().next().unwrap().to_string();
    assert!(
        l.starts_with("streamview: <stdin>:2: invalid JSON at byte ")
            && l.ends_with("(invalid or out-of-range number); skipped"),
        "{l}"
    );
    // 2^64 is read as a float: not a count of turns or tokens, so absent
    // (the turn is the one response counted); -0 is 0; an absurd cost is
    // refused, its line named (issue 30: it was shown as `$1.000e308`).
    // (The session's second result goes under its end as a part.)
    assert!(
        o.out()
            .contains("✓ done · 1 turn · 0ms\n  ⎿ ✓ turn 2 · 1 turn\n"),
        "{}",
        o.out()
    );
    assert!(
        o.err().contains(
            "streamview: <stdin>:5: cost 1e308 is not a plausible cost (0 to 10^7 USD); \
             the result read without it\n"
        ),
        "{}",
        o.err()
    );
    let j = run(&["--format", "jsonl"], &input);
    assert!(j.out().contains(r#""n":1.8446744073709552e19"#));
    assert!(j.out().contains(r#""num_turns":null,"duration_ms":0"#));
    assert!(!j.out().contains(r#""cost_usd":1e+308"#));
}

/// simd-json keeps the first of duplicate keys: the first value is the one
/// read (documented); JSONL's `raw` keeps the line as it was.
#[test]
fn duplicate_keys_the_first_one_counts() {
    let dup = br#"{"type":"result","subtype":"success","is_error":true,"is_error":false,"num_turns":1,"num_turns":2}"#;
    let input = [INIT.as_bytes(), b"\n", dup, b"\n"].concat();
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 1);
    assert!(o.out().contains("✗ session failed · 1 turn"), "{}", o.out());
    let unknown = br#"{"type":"mystery","a":1,"a":2}"#;
    let j = run(&["--format", "jsonl"], unknown);
    assert!(j.out().contains(r#""raw":{"type":"mystery","a":1,"a":2}"#));
}

#[test]
fn strings_with_every_escape() {
    let text = "\" \\ / \u{8} \u{c} \n \r \t \u{0} \u{1b}[31m \u{7f} \u{85} \u{9b} \u{200e} \u{202e} \u{2066} \u{61c} 😀 é \u{2028}";
    let line = text_line(text);
    assert!(line.contains(r"\u001b") && line.contains(r"\n"));
    // Every escape JSON has, spelled out in the line.
    let spelled = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"\" \\ \/ \b \f \n \r \t \u0000 \u001B \ud83d\ude00 \u00e9"}]}}"#;
    let input = session(&[line.as_bytes(), spelled.as_bytes()]);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 0);
    assert!(
        o.out()
            .contains("\" \\ / ␈ ␌ \n ␍ \t ␀ ␛[31m ␡ <U+0085> <U+009B> <U+200E> <U+202E> <U+2066> <U+061C> 😀 é \u{2028}"),
        "{}",
        o.out()
    );
    assert!(o.out().contains("\" \\ / ␈ ␌ \n ␍ \t ␀ ␛ 😀 é"));
    // JSONL: the same strings, exactly.
    let j = run(&["--format", "jsonl"], &input);
    let texts: Vec<String> = j
        .out()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "text")
        .map(|v| v["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        texts,
        [text, "\" \\ / \u{8} \u{c} \n \r \t \u{0} \u{1b} 😀 é"]
    );
}

#[test]
fn invalid_escapes_are_reported() {
    let input = session(&[
        br#"{"type":"x","t":"\x"}"#,
        br#"{"type":"x","t":"\ud800"}"#,
        br#"{"type":"x","t":"\u12"}"#,
    ]);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 0);
    // A lone surrogate is read (as U+FFFD, see below).
    assert!(!o.err().contains("<stdin>:3:"), "{}", o.err());
    for line in [2, 4] {
        assert!(
            o.err().lines().any(|l| l.starts_with(&format!(
                "streamview: <stdin>:{line}: invalid JSON at byte "
            )) && l.ends_with("(invalid escape in a string); skipped")),
            "{}",
            o.err()
        );
    }
}

#[test]
fn truncated_json_at_the_end_is_reported_and_exit_3() {
    let mut input = session(&[text_line("hello").as_bytes()]);
    input.extend_from_slice(br#"{"type":"assistant","message":{"content":[{"type":"te"#);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 3);
    skipped(&o, 4, "truncated last line (the input ended mid-line)");
    assert!(o.out().contains("hello"));
}

#[test]
fn arrays_and_scalars_where_an_object_is_expected() {
    let input = session(&[
        b"[1,2]",
        b"\"a string\"",
        b"42",
        b"null",
        b"true",
        br#"{"type":"assistant","message":{"content":[1,"x",null,[],{}]}}"#,
        br#"{"type":"user","message":{"content":[5,{"type":"tool_result","tool_use_id":[],"content":{}}]}}"#,
    ]);
    let o = run_checked(&[], &input);
    assert_eq!(o.code, 0);
    skipped(&o, 2, "JSON array, not an object");
    skipped(&o, 3, "JSON string, not an object");
    skipped(&o, 4, "JSON number, not an object");
    skipped(&o, 5, "JSON null, not an object");
    skipped(&o, 6, "JSON boolean, not an object");
    assert!(o.err().ends_with("streamview: 5 lines skipped\n"));
    // Blocks that are not objects are kept as unknown events (JSONL).
    let j = run(&["--format", "jsonl"], &input);
    assert!(j.out().matches(r#""event_type":"assistant/""#).count() >= 5);
}

// ---------------------------------------------------------------- wrong fields

/// Field paths of `v` down to depth 3 (object keys only).
fn paths(v: &Value, prefix: &[String], out: &mut Vec<Vec<String>>) {
    if let Value::Object(m) = v {
        for (k, x) in m {
            let mut p = prefix.to_vec();
            p.push(k.clone());
            out.push(p.clone());
            if p.len() < 3 {
                paths(x, &p, out);
            }
        }
        // Into the first block of a content array, where most fields live.
        for (k, x) in m {
            if let Some(first) = x.as_array().and_then(|a| a.first()) {
                let mut p = prefix.to_vec();
                p.push(format!("{k}[0]"));
                out.push(p.clone());
                paths(first, &p, out);
            }
        }
    }
}

fn set(v: &mut Value, path: &[String], new: Option<&Value>) {
    let mut cur = v;
    let (last, head) = path.split_last().unwrap();
    for k in head {
        cur = match k.strip_suffix("[0]") {
            Some(k) => &mut cur[k][0],
            None => &mut cur[k.as_str()],
        };
    }
    let last = last.strip_suffix("[0]").map_or(last.as_str(), |k| k);
    let m = cur.as_object_mut().unwrap();
    match new {
        Some(n) if path.last().unwrap().ends_with("[0]") => m[last][0] = n.clone(),
        Some(n) => {
            m.insert(last.to_string(), n.clone());
        }
        None => {
            m.remove(last);
        }
    }
}

/// Every main event type of every producer, with each of its fields (to
/// three levels, and inside the first content block) missing or of the wrong
/// type (`5`, `null`, `"str"`, `[]`, `{}`): never a panic, a documented
/// status, JSONL that parses, nothing unsafe on any stream, in every
/// verbosity, with the producer detected and forced. (The property tests
/// throw random values at the same shapes.)
#[test]
fn wrong_or_missing_fields_in_every_producers_events() {
    let fixtures = [
        ("claude/tools_basic.jsonl", streamview::Producer::Claude),
        ("claude/subagent.jsonl", streamview::Producer::Claude),
        (
            "claude/partial_messages.jsonl",
            streamview::Producer::Claude,
        ),
        (
            "claude/permission_denied.jsonl",
            streamview::Producer::Claude,
        ),
        ("codex/mixed.jsonl", streamview::Producer::Codex),
        ("codex/mcp.jsonl", streamview::Producer::Codex),
        ("codex/plan.jsonl", streamview::Producer::Codex),
        ("gemini/files.jsonl", streamview::Producer::Gemini),
        ("gemini/tool_error.jsonl", streamview::Producer::Gemini),
        ("opencode/mixed.jsonl", streamview::Producer::OpenCode),
        ("opencode/todos.jsonl", streamview::Producer::OpenCode),
        ("qwen/mixed.jsonl", streamview::Producer::Qwen),
        ("qwen/partial_mixed.jsonl", streamview::Producer::Qwen),
        ("amp/multi.jsonl", streamview::Producer::Amp),
        ("amp/server_error.jsonl", streamview::Producer::Amp),
        ("cursor/tools.jsonl", streamview::Producer::Cursor),
        ("cursor/partial_output.jsonl", streamview::Producer::Cursor),
        (
            "claude-transcript/transcript_tools_basic.jsonl",
            streamview::Producer::ClaudeTranscript,
        ),
        (
            "claude-transcript/transcript_subagent.jsonl",
            streamview::Producer::ClaudeTranscript,
        ),
    ];
    let bad = [
        Some(json!(5)),
        Some(Value::Null),
        Some(json!("str")),
        Some(json!([])),
        Some(json!({})),
        None,
    ];
    let mut cases = 0;
    for (name, producer) in fixtures {
        let text = String::from_utf8(read(&fixture(name))).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The first line of each distinct type/subtype (and block type).
        let mut seen = std::collections::HashSet::new();
        for (i, line) in lines.iter().enumerate() {
            let v: Value = serde_json::from_str(line).unwrap();
            let key = format!(
                "{}/{}/{}/{}",
                v["type"],
                v["subtype"],
                v["message"]["content"][0]["type"],
                v["item"]["type"]
                    .as_str()
                    .or(v["part"]["type"].as_str())
                    .unwrap_or("")
            );
            if !seen.insert(key) {
                continue;
            }
            let mut ps = Vec::new();
            paths(&v, &[], &mut ps);
            for p in ps {
                for new in &bad {
                    let mut m = v.clone();
                    set(&mut m, &p, new.as_ref());
                    let mutated = m.to_string();
                    // The stream up to a few lines after the mutated one
                    // (the results that answer it), to keep the test fast.
                    let mut stream: Vec<u8> = Vec::new();
                    for (j, l) in lines.iter().enumerate().take(i + 4) {
                        stream.extend_from_slice(
                            if i == j { mutated.as_str() } else { l }.as_bytes(),
                        );
                        stream.push(b'\n');
                    }
                    let what = format!("{name}:{} {} = {new:?}", i + 1, p.join("."));
                    // Detected or forced, each verbosity, in turn.
                    let (from, verbosity) = match cases % 3 {
                        0 => (None, Verbosity::Normal),
                        1 => (Some(producer), Verbosity::Verbose),
                        _ => (Some(producer), Verbosity::Quiet),
                    };
                    run_all(&stream, from, verbosity).check(&what);
                    cases += 1;
                }
            }
        }
    }
    eprintln!("{cases} cases");
    assert!(cases > 1000, "{cases} cases");
}

/// The three examples of the issue, for the main event types of each
/// producer, must each still give an event (kept as `unknown` when nothing
/// else can be read) rather than vanish.
#[test]
fn content_5_message_null_input_str_never_vanish() {
    let cases: &[(&str, &str)] = &[
        ("claude", r#"{"type":"assistant","message":{"content":5}}"#),
        ("claude", r#"{"type":"assistant","message":null}"#),
        ("claude", r#"{"type":"user","message":{"content":5}}"#),
        ("claude", r#"{"type":"user","message":null}"#),
        (
            "claude",
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":"str"}]}}"#,
        ),
        ("claude", r#"{"type":"stream_event","event":null}"#),
        ("qwen", r#"{"type":"assistant","message":{"content":5}}"#),
        ("amp", r#"{"type":"assistant","message":null}"#),
        ("cursor", r#"{"type":"assistant","message":{"content":5}}"#),
        (
            "cursor",
            r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":"str"}"#,
        ),
        ("codex", r#"{"type":"item.completed","item":null}"#),
        (
            "codex",
            r#"{"type":"item.started","item":{"type":"command_execution","command":5}}"#,
        ),
        (
            "gemini",
            r#"{"type":"message","role":"assistant","content":5,"timestamp":"t"}"#,
        ),
        (
            "gemini",
            r#"{"type":"tool_use","tool_name":"x","parameters":"str","timestamp":"t"}"#,
        ),
        (
            "opencode",
            r#"{"type":"tool_use","sessionID":"s","timestamp":1,"part":null}"#,
        ),
        (
            "opencode",
            r#"{"type":"text","sessionID":"s","timestamp":1,"part":{"text":5}}"#,
        ),
        (
            "claude-transcript",
            r#"{"type":"assistant","uuid":"u","parentUuid":null,"sessionId":"s","message":null}"#,
        ),
        (
            "claude-transcript",
            r#"{"type":"user","uuid":"u2","parentUuid":"u","sessionId":"s","message":{"content":5}}"#,
        ),
    ];
    for (from, line) in cases {
        let o = run(
            &["--format", "jsonl", "--from", from],
            format!("{line}\n").as_bytes(),
        );
        assert!(o.out().lines().count() >= 1, "{from} {line}: vanished");
        assert_eq!(o.err(), "", "{from} {line}: not a bad line");
        assert_jsonl(line, &o.stdout);
        assert!(matches!(o.code, 0 | 1 | 3), "{from} {line}: {}", o.code);
    }
}

// ---------------------------------------------------------------- correlation

#[test]
fn a_result_for_no_call_and_a_call_without_result() {
    let call = br#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}"#;
    let orphan = br#"{"type":"user","session_id":"s1","message":{"content":[{"type":"tool_result","tool_use_id":"nobody","content":"orphan output","is_error":true}]}}"#;
    // With a result: the call is listed as never answered; the orphan
    // result is shown (an error: never hidden), named "tool".
    let o = run_checked(&[], &session(&[call, orphan]));
    assert_eq!(o.code, 0);
    let out = o.out();
    assert!(out.contains("▸ Bash make"), "{out}");
    assert!(out.contains("✗ tool failed\n  ⎿ orphan output"), "{out}");
    assert!(out.contains("  ⎿ never answered: Bash make"), "{out}");
    // Without a result: exit 3, the call is listed as interrupted.
    let mut cut = session(&[call, orphan]);
    cut.truncate(cut.len() - DONE.len() - 1);
    let o = run_checked(&[], &cut);
    assert_eq!(o.code, 3);
    assert!(
        o.out()
            .contains("✗ stream ended without a result\n  interrupted: Bash make"),
        "{}",
        o.out()
    );
    let j = run(&["--format", "jsonl"], &cut);
    assert!(
        j.out()
            .contains(r#""id":"nobody","name":null,"tool_kind":null,"is_error":true"#)
    );
}

// ---------------------------------------------------------------- noise

/// Each line wrapped the way a pseudo-terminal leaves it (erase-line and
/// `\r` before, a colour reset and `\r\n` after, an OSC title now and then):
/// the same output as the clean stream, in both formats.
#[test]
fn pty_noise_around_json_lines_is_stripped() {
    for name in [
        "claude/tools_basic.jsonl",
        "claude/unicode_ansi.jsonl",
        "codex/mixed.jsonl",
        "gemini/files.jsonl",
        "opencode/mixed.jsonl",
        "qwen/mixed.jsonl",
        "amp/multi.jsonl",
        "cursor/tools.jsonl",
    ] {
        let clean = read(&fixture(name));
        let mut noisy = Vec::new();
        for (i, l) in clean.split_inclusive(|&b| b == b'\n').enumerate() {
            let l = l.strip_suffix(b"\n").unwrap_or(l);
            if i % 4 == 1 {
                noisy.extend_from_slice(b"\x1b]0;agent\x07");
            }
            noisy.extend_from_slice(b"\x1b[2K\r\x1b[?25l");
            noisy.extend_from_slice(l);
            noisy.extend_from_slice(b"\x1b[0m\x1b[K\r\r\n");
        }
        for args in [&[][..], &["--format", "jsonl"], &["-v"]] {
            let a = run(args, &clean);
            let b = run_checked(args, &noisy);
            assert_eq!(a.out(), b.out(), "{name} {args:?}");
            assert_eq!(a.err(), b.err(), "{name} {args:?}");
            assert_eq!(a.code, b.code);
        }
    }
}

#[test]
fn interleaved_plain_text_is_shown_and_changes_nothing_else() {
    let clean = read(&fixture("claude/tool_errors.jsonl"));
    let mut mixed = Vec::new();
    let mut texts = 0;
    for (i, l) in clean.split_inclusive(|&b| b == b'\n').enumerate() {
        if i % 2 == 1 {
            mixed.extend_from_slice(format!("npm WARN deprecated thing@{i}\n").as_bytes());
            texts += 1;
        }
        mixed.extend_from_slice(l);
    }
    let a = run(&[], &clean);
    let b = run_checked(&[], &mixed);
    assert_eq!(a.code, b.code);
    assert_eq!(b.out().matches("npm WARN deprecated thing@").count(), texts);
    let without: String = b
        .out()
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("npm WARN"))
        .collect();
    assert_eq!(without, a.out());
    let j = run(&["--format", "jsonl"], &mixed);
    assert_eq!(j.out().matches(r#""kind":"plain_text""#).count(), texts);
}

// ---------------------------------------------------------------- amplification

/// Crafted streams that made the work or the output grow faster than the
/// input (found while hardening): a chain of 20 000 nested sub-agents, 20 000
/// results after 20 000 calls, 10 000 rewinds of a transcript. Each must
/// finish promptly with output proportional to its input.
#[test]
fn crafted_streams_stay_linear() {
    let mut chain = String::from(INIT);
    chain.push('\n');
    for i in 0..20_000 {
        let parent = if i == 0 {
            Value::Null
        } else {
            json!(format!("t{}", i - 1))
        };
        chain.push_str(&json!({"type":"assistant","session_id":"s1","parent_tool_use_id":parent,"message":{"id":format!("m{i}"),"content":[{"type":"tool_use","id":format!("t{i}"),"name":"Task","input":{"description":"d"}}]}}).to_string());
        chain.push('\n');
    }
    let mut results = String::from(INIT);
    results.push('\n');
    for i in 0..20_000 {
        results.push_str(&json!({"type":"assistant","session_id":"s1","message":{"id":format!("m{i}"),"content":[{"type":"tool_use","id":format!("t{i}"),"name":"Bash","input":{"command":"ls"}}]}}).to_string());
        results.push('\n');
    }
    for _ in 0..20_000 {
        results.push_str(DONE);
        results.push('\n');
    }
    let mut rewinds = String::new();
    let k = 10_000;
    for i in 0..k {
        let parent = if i == 0 {
            Value::Null
        } else {
            json!(format!("c{}", i - 1))
        };
        rewinds.push_str(&json!({"type":"user","uuid":format!("p{i}"),"parentUuid":parent,"sessionId":"s","message":{"role":"user","content":"hi"}}).to_string());
        rewinds.push('\n');
        rewinds.push_str(&json!({"type":"assistant","uuid":format!("c{i}"),"parentUuid":format!("p{i}"),"sessionId":"s","message":{"id":format!("m{i}"),"role":"assistant","content":[{"type":"text","text":"x"}]}}).to_string());
        rewinds.push('\n');
    }
    for i in 0..k {
        rewinds.push_str(&json!({"type":"assistant","uuid":format!("f{i}"),"parentUuid":format!("p{i}"),"sessionId":"s","message":{"id":format!("n{i}"),"role":"assistant","content":[{"type":"text","text":"y"}]}}).to_string());
        rewinds.push('\n');
    }
    for (what, input) in [("chain", chain), ("results", results), ("rewinds", rewinds)] {
        let started = Instant::now();
        let o = run(&[], input.as_bytes());
        let took = started.elapsed();
        assert!(matches!(o.code, 0 | 3), "{what}: {}", o.code);
        assert!(
            o.stdout.len() < 2 * input.len(),
            "{what}: {} bytes of output for {} of input",
            o.stdout.len(),
            input.len()
        );
        // Generous for a debug build on a slow machine; the quadratic
        // versions took minutes.
        assert!(took < Duration::from_secs(20), "{what} took {took:?}");
    }
}

/// A Claude session of `n` tool calls, each answered, each of its own tool
/// and its own model (issue 18: per-tool and per-model rows were found by a
/// linear search, so such a stream took quadratic time).
fn distinct_names(n: usize) -> Vec<u8> {
    let mut s = String::from(INIT);
    s.push('\n');
    for i in 0..n {
        s.push_str(&json!({"type":"assistant","session_id":"s1","message":{"id":format!("m{i}"),"model":format!("model-{i}"),"usage":{"input_tokens":3,"output_tokens":1},"content":[{"type":"tool_use","id":format!("t{i}"),"name":format!("tool-{i}"),"input":{}}]}}).to_string());
        s.push('\n');
        s.push_str(&json!({"type":"user","session_id":"s1","message":{"content":[{"type":"tool_result","tool_use_id":format!("t{i}"),"content":"ok","is_error":i % 2 == 0}]}}).to_string());
        s.push('\n');
    }
    s.push_str(DONE);
    s.push('\n');
    s.into_bytes()
}

/// The fastest of three runs of each input, taken in turns so that a
/// change in the machine's load touches both alike.
fn best_times(args: &[&str], inputs: [&[u8]; 2]) -> [Duration; 2] {
    let mut best = [Duration::MAX; 2];
    for _ in 0..3 {
        for (b, input) in best.iter_mut().zip(inputs) {
            let started = Instant::now();
            let o = run(args, input);
            assert_eq!(o.code, 0, "{}", o.err());
            *b = (*b).min(started.elapsed());
        }
    }
    best
}

/// Four times the distinct tool and model names take about four times as
/// long (a ratio within this run, with slack for a loaded machine: under
/// 8; the linear searches made it 16).
#[test]
fn distinct_tool_and_model_names_take_linear_time() {
    let (small, big) = (distinct_names(4_000), distinct_names(16_000));
    for args in [&["--format", "summary-json"][..], &[]] {
        let [a, b] = best_times(args, [&small, &big]);
        let ratio = b.as_secs_f64() / a.as_secs_f64();
        assert!(
            ratio < 8.0,
            "{args:?}: {a:?} for 4000 names, {b:?} for 16 000"
        );
    }
}

/// Names beyond the bound share one row; the totals stay exact.
#[test]
fn distinct_tool_names_beyond_the_bound_fold_into_one_row() {
    let n = 1000;
    let o = run(&["--format", "summary-json"], &distinct_names(n));
    assert_eq!(o.code, 0, "{}", o.err());
    let v: Value = serde_json::from_str(&o.out()).unwrap();
    let total = &v["total"];
    assert_eq!(total["tool_calls"], n);
    let tools = total["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 201, "200 in detail, then the others");
    let other = tools.last().unwrap();
    assert_eq!(other["name"], "(other tools)");
    assert_eq!(other["calls"], n - 200);
    let calls: u64 = tools.iter().map(|t| t["calls"].as_u64().unwrap()).sum();
    let errors: u64 = tools.iter().map(|t| t["errors"].as_u64().unwrap()).sum();
    assert_eq!((calls, errors), (n as u64, n as u64 / 2));
    let models = total["models"].as_array().unwrap();
    assert_eq!(models.len(), 201);
    assert_eq!(models.last().unwrap()["model"], "(other models)");
    let input: u64 = models
        .iter()
        .map(|m| m["tokens"]["input"].as_u64().unwrap())
        .sum();
    assert_eq!(input, 3 * n as u64);
}

// ---------------------------------------------------------------- --follow

/// A temporary directory of this test run.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("adversarial-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `-f` on a FIFO reads it until its writer closes it, then ends as the
/// same bytes on standard input do (issue 18: "Illegal seek", status 2).
#[cfg(unix)]
#[test]
fn follow_reads_a_fifo_until_its_writer_closes_it() {
    let dir = temp_dir("fifo");
    let complete = session(&[text_line("through the fifo").as_bytes()]);
    let cut = [
        INIT.as_bytes(),
        b"\n",
        text_line("no result").as_bytes(),
        b"\n",
    ]
    .concat();
    for (i, input) in [complete, cut].into_iter().enumerate() {
        let fifo = dir.join(format!("f{i}"));
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let child = sv_std()
            .args(["--color", "never", "-f"])
            .arg(&fifo)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let data = input.clone();
        let path = fifo.clone();
        let writer = thread::spawn(move || {
            let mut w = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            for chunk in data.chunks(50) {
                w.write_all(chunk).unwrap();
                thread::sleep(Duration::from_millis(2));
            }
        });
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || tx.send(child.wait_with_output()));
        let got = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("-f on a FIFO ends when its writer closes it")
            .unwrap();
        writer.join().unwrap();
        let want = run(&["--color", "never"], &input);
        assert_eq!(got.status.code(), Some(want.code), "{i}");
        assert_eq!(String::from_utf8(got.stdout).unwrap(), want.out(), "{i}");
        assert_eq!(String::from_utf8(got.stderr).unwrap(), want.err(), "{i}");
    }
}

/// A followed file truncated and written again, while its last line was
/// unfinished: read again from its start, the unfinished line dropped
/// with one note, never glued to the new first line (issue 18).
#[test]
fn follow_starts_again_when_the_file_is_truncated_or_rewritten() {
    let dir = temp_dir("truncate");
    // Rewritten shorter (truncated), and longer than what was read.
    for (i, filler) in [0, 2000].into_iter().enumerate() {
        let path = dir.join(format!("log{i}.jsonl"));
        let before = [
            INIT.as_bytes(),
            b"\n",
            text_line("before").as_bytes(),
            b"\n",
            br#"{"type":"assistant","session_id":"s1","message":{"id":"m9","content":[{"type":"te"#,
        ]
        .concat();
        std::fs::write(&path, &before).unwrap();
        let mut child = sv_std()
            .args(["--color", "never", "-f"])
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = drain(child.stderr.take().unwrap());
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        let mut out = Vec::new();
        while !out.iter().any(|l: &String| l == "before") {
            out.push(rx.recv_timeout(Duration::from_secs(20)).expect("before"));
        }
        let after = session(&[text_line(&format!("after{}", "!".repeat(filler))).as_bytes()]);
        std::fs::write(&path, &after).unwrap();
        while let Ok(l) = rx.recv_timeout(Duration::from_secs(20)) {
            let done = l.starts_with("✓ done");
            out.push(l);
            if done {
                break;
            }
        }
        let status = wait_deadline(&mut child, Duration::from_secs(20));
        let err = String::from_utf8(stderr.join().unwrap()).unwrap();
        assert_eq!(status.code(), Some(0), "{i}: {err}");
        let text = out.join("\n");
        assert!(
            text.contains(&format!("after{}", "!".repeat(filler))),
            "{i}: {text}"
        );
        assert!(out.last().unwrap().starts_with("✓ done"), "{i}: {text}");
        assert!(!text.contains(r#"{"type""#), "{i}: nothing glued: {text}");
        let name = path.display();
        let notes: Vec<&str> = err.lines().collect();
        assert_eq!(notes.len(), 1, "{i}: {err}");
        assert!(
            ["truncated", "rewritten"].iter().any(|why| notes[0]
                == format!(
                    "streamview: {name}: {why}; reading it again from its start \
                     (its unfinished last line dropped)"
                )),
            "{i}: {err}"
        );
    }
}

// ---------------------------------------------------------------- closed pipes

/// Sessions enough for every format to write well over a pipe's buffer.
fn many_sessions(n: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..n {
        let id = format!("s{i}");
        s.push_str(&json!({"type":"system","subtype":"init","session_id":id,"model":"m","cwd":"/w","tools":["Bash"]}).to_string());
        s.push('\n');
        s.push_str(&json!({"type":"assistant","session_id":id,"message":{"id":format!("m{i}"),"content":[{"type":"text","text":"some text to show"}]}}).to_string());
        s.push('\n');
        s.push_str(&json!({"type":"result","subtype":"success","is_error":false,"session_id":id,"num_turns":1,"result":"a result of a few words, long enough to fill the pipe sooner than a short one would","total_cost_usd":0.5}).to_string());
        s.push('\n');
    }
    s.into_bytes()
}

/// Every format into a pipe whose reader takes one byte and leaves, as
/// `| head -c 1` does: status 0 and nothing on stderr (issue 18:
/// `--format summary-json` exited 2 once its output passed 128 KiB).
#[test]
fn every_format_ends_quietly_when_the_reader_leaves() {
    let input = many_sessions(4000);
    for format in ["pretty", "jsonl", "result", "summary", "summary-json"] {
        let full = run(&["--format", format], &input);
        assert_eq!(full.code, 0, "{format}");
        // More than a pipe holds (64 KiB): some of it is written after the
        // reader left (the summary table stops at its 1000 session rows).
        assert!(
            full.stdout.len() > 72 << 10,
            "{format}: {}",
            full.stdout.len()
        );
        let mut child = sv_std()
            .args(["--format", format])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdin.take().unwrap();
        let data = input.clone();
        let writer = thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
        let err = drain(child.stderr.take().unwrap());
        let mut out = child.stdout.take().unwrap();
        let mut one = [0u8; 1];
        std::io::Read::read_exact(&mut out, &mut one).unwrap();
        drop(out);
        let status = wait_deadline(&mut child, Duration::from_secs(60));
        writer.join().unwrap();
        let err = String::from_utf8(err.join().unwrap()).unwrap();
        assert_eq!((status.code(), err.as_str()), (Some(0), ""), "{format}");
    }
}

/// Nothing any producer can be made to say reaches the terminal raw, for
/// every fixture with its strings salted with hostile sequences: covered in
/// `tests/terminal_safety.rs`. Here: every fixture read with every `--from`,
/// which throws each producer's lines at every other decoder.
#[test]
fn every_fixture_read_as_every_producer() {
    for path in all_fixtures() {
        let data = read(&path);
        for from in PRODUCERS {
            run_all(&data, from, Verbosity::Verbose).check(&format!("{} {from:?}", path.display()));
        }
    }
}

// ---------------------------------------------------------------- fuzz regressions

/// Fuzzer, first crash: a line of text holding DEL (`*{"cwd":"/proj\x7fct"…`,
/// not JSON, so plain text) came out raw in JSONL. Now `\u007f`, and `␡`.
#[test]
fn fuzz_raw_del_in_plain_text_is_escaped_in_jsonl() {
    let input = b"*{\"type\":\"system\",\"cwd\":\"/proj\x7fct\"}\n\xc2\x9b1m \xe2\x80\xae text\n";
    let j = run(&["--format", "jsonl"], input);
    assert_terminal_safe("jsonl", &j.stdout, false);
    assert!(
        j.out()
            .contains(r#""text":"*{\"type\":\"system\",\"cwd\":\"/proj\u007fct\"}""#)
    );
    assert!(j.out().contains(r#""text":"\u009b1m \u202e text""#));
    let o = run_checked(&[], input);
    assert!(o.out().contains("/proj␡ct"));
}

/// Fuzzer, a JSONL round trip that differed in the last digit: a 49-digit
/// integer kept verbatim in `raw`, re-encoded as a float on the second pass.
/// Both are the same number; the difference was `serde_json` (without
/// `float_roundtrip`) misrounding the long integer when comparing.
#[test]
fn fuzz_long_integers_survive_the_jsonl_round_trip() {
    let line = br#"{"type":"thinking","subtype":"completed","timestamp_ms":1866666666666666666666666666666666666666600004795}"#;
    let once = run(
        &["--format", "jsonl", "--from", "codex"],
        &[&line[..], b"\n"].concat(),
    );
    let twice = run(&["--format", "jsonl"], &once.stdout);
    let parse = |o: &Out| -> Vec<Value> {
        o.out()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    assert_eq!(parse(&once), parse(&twice));
    assert!(
        once.out()
            .contains("1866666666666666666666666666666666666666600004795")
    );
}

/// Fuzzer: `-0` kept verbatim in `raw` the first time, `0` after a second
/// pass (simd-json reads it as an integer): the same number, compared as
/// numbers.
#[test]
fn fuzz_minus_zero_survives_the_jsonl_round_trip() {
    let line = br#"{"type":"mystery","a":-0,"b":-0.0,"c":1E2,"d":-0e0}"#;
    let once = run(&["--format", "jsonl"], &[&line[..], b"\n"].concat());
    let twice = run(&["--format", "jsonl"], &once.stdout);
    let parse = |o: &Out| -> Vec<Value> {
        o.out()
            .lines()
            .map(|l| common::numbers_as_floats(serde_json::from_str(l).unwrap()))
            .collect()
    };
    assert_eq!(parse(&once), parse(&twice));
    assert!(once.out().contains(r#""a":-0,"b":-0.0,"c":1E2"#));
}

/// Fuzzer, fourth crash (`fuzz/artifacts/…/crash-f64ac2e9…`): a Qwen init
/// line cut by NUL bytes and mutated keys. The overflow was in the fuzz
/// harness's own seed arithmetic (fixed there); the input stays as a
/// regression test of the paths it reaches: every producer, every
/// verbosity, every sink, terminal-safe and with every JSONL line valid.
#[test]
fn fuzz_mutated_qwen_init_with_nul_bytes() {
    let data = read(&fixture("misc/fuzz-crash-f64ac2e9.bin"));
    assert!(data.contains(&0), "the input keeps its NUL bytes");
    for from in PRODUCERS {
        for verbosity in [Verbosity::Quiet, Verbosity::Normal, Verbosity::Verbose] {
            run_all(&data, from, verbosity).check(&format!("{from:?} {verbosity:?}"));
        }
    }
}

/// `--format markdown` (issue 16): hostile markup in every field (a
/// closing `</details>`, `<script>`, `<img onerror>`, fences of every
/// length, `javascript:` links, terminal escapes) stays text. The report is
/// parsed as GitHub parses it (`CommonMark` with tables): the only raw HTML
/// is our own `<details>`, `<summary>` and `<code>`, no link or image
/// points anywhere unsafe, and the document's own structure (the summary
/// heading at the end) survives every payload.
#[test]
fn markdown_report_keeps_hostile_content_inert() {
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag};
    let out = run(&["--format", "markdown"], &common::hostile::session());
    assert_eq!(out.code, 0, "{}", out.err());
    assert_terminal_safe("markdown", &out.stdout, false);
    let md = out.out();
    let ours = [
        "<details>",
        "</details>",
        "<summary>",
        "</summary>",
        "<code>",
        "</code>",
    ];
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut headings = Vec::new();
    let mut in_heading = false;
    for ev in Parser::new_ext(&md, opts) {
        match ev {
            Event::Html(h) | Event::InlineHtml(h) => {
                let mut rest = h.to_string();
                for tag in ours {
                    rest = rest.replace(tag, "");
                }
                assert!(!rest.contains('<'), "raw HTML from the stream: {h:?}\n{md}");
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                let u = dest_url.to_ascii_lowercase();
                assert!(u.starts_with("http"), "a link to {dest_url:?}\n{md}");
            }
            Event::Start(Tag::Image { dest_url, .. }) => panic!("an image of {dest_url:?}\n{md}"),
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                ..
            }) => in_heading = true,
            Event::Text(t) if in_heading => {
                headings.push(t.to_string());
                in_heading = false;
            }
            _ => {}
        }
    }
    assert_eq!(headings.last().map(String::as_str), Some("Summary"), "{md}");
    // Nothing was dropped to get there: every field is in the report.
    for field in [
        "model", "cwd", "prompt", "thinking", "text", "toolname", "command", "output", "error",
        "denied", "command2", "old", "new",
    ] {
        assert!(md.contains(&format!("{field} ")), "{field} missing:\n{md}");
    }
}

// ------------------------------------- files named by options and the environment

/// Files that options and the environment name (`--tz`, `TZ`, the
/// configuration file) and files named like logs in a library are read only
/// when they are regular files, the small ones with a size bound: a device
/// never ends (`/dev/zero` read 7 GB in 5 s), a FIFO without a writer
/// blocks its `open`. Each is refused at once with one line (status 2); a
/// library leaves them unread and says so once.
#[cfg(unix)]
#[test]
fn files_named_by_options_are_regular_and_bounded() {
    let dir = temp_dir("named-files");
    let fifo = dir.join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = dir.join("big");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(2 << 20)
        .unwrap();
    let log = common::temp_file("named-files.jsonl", &session(&[]));
    let fifo = fifo.to_str().unwrap();
    let big = big.to_str().unwrap();
    let refused = |env: &[(&str, &str)], args: &[&str], says: &str| {
        let started = Instant::now();
        let o = common::sv()
            .envs(env.iter().copied())
            .args(args)
            .arg(&log)
            .output()
            .unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(2), "{env:?} {args:?}: {err}");
        // One line (clap's usage errors add their `For more information`).
        let said: Vec<&str> = (err.lines())
            .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
            .collect();
        assert_eq!(said.len(), 1, "{env:?} {args:?}: {err}");
        assert!(said[0].contains(says), "{env:?} {args:?}: {err}");
        assert!(o.stdout.is_empty());
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{env:?} {args:?}"
        );
    };
    for file in ["/dev/zero", fifo] {
        refused(&[], &["--tz", file], "is not a regular file");
        refused(&[("TZ", file)], &["--since", "1d"], "is not a regular file");
        refused(&[("STREAMVIEW_CONFIG", file)], &[], "not a regular file");
    }
    refused(&[], &["--tz", big], "is larger than 1 MiB");
    refused(&[("TZ", big)], &["--by", "day"], "is larger than 1 MiB");
    refused(&[("STREAMVIEW_CONFIG", big)], &[], "larger than 1 MiB");
    // TZ unused (no time to read): not even looked at.
    let o = common::sv()
        .env("TZ", "/dev/zero")
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));

    // A library: a FIFO and a device named like logs are left unread.
    let lib = dir.join("library");
    std::fs::create_dir_all(lib.join("p")).unwrap();
    std::fs::write(
        lib.join("p/s.jsonl"),
        session(&[text_line("read").as_bytes()]),
    )
    .unwrap();
    std::fs::rename(fifo, lib.join("p/fifo.jsonl")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", lib.join("p/zero.jsonl")).unwrap();
    for args in [&["-j1"][..], &["-j2"], &["--latest"]] {
        let o = common::sv()
            .args(args)
            .args(["--color", "never"])
            .arg(&lib)
            .output()
            .unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            String::from_utf8(o.stdout).unwrap().contains("read"),
            "{args:?}"
        );
        let said = "2 files named like logs left unread: not regular files";
        assert_eq!(err.matches(said).count(), 1, "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&log).unwrap();
}

/// Followed files get the checks of read files when they appear: `-f` on a
/// file that does not exist yet and then appears gzip-compressed (written
/// in place, or renamed there) is decompressed, as one there at the start
/// is; `--latest -f` with a FIFO among a session's sub-agent files (its
/// `open` blocked the whole view) leaves it unread and shows the session.
#[cfg(unix)]
#[test]
fn followed_files_get_the_checks_of_read_files_when_they_appear() {
    let dir = temp_dir("follow-appear");
    let log = session(&[text_line("appeared compressed").as_bytes()]);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&log).unwrap();
        e.finish().unwrap()
    };
    let want = run(&["--color", "never"], &log);
    let finish = |child: std::process::Child| {
        let pid = child.id().to_string();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || tx.send(child.wait_with_output()));
        let got = rx.recv_timeout(Duration::from_secs(30));
        if got.is_err() {
            let _ = std::process::Command::new("kill").arg(&pid).status();
        }
        got.expect("the view ends").unwrap()
    };
    for renamed in [false, true] {
        let path = dir.join(format!("late-{renamed}.jsonl"));
        let child = sv_std()
            .args(["--color", "never", "-f"])
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        thread::sleep(Duration::from_millis(300));
        if renamed {
            std::fs::write(dir.join("tmp"), &gz).unwrap();
            std::fs::rename(dir.join("tmp"), &path).unwrap();
        } else {
            let mut w = std::fs::File::create(&path).unwrap();
            thread::sleep(Duration::from_millis(200));
            w.write_all(&gz[..1]).unwrap();
            thread::sleep(Duration::from_millis(200));
            w.write_all(&gz[1..]).unwrap();
        }
        let got = finish(child);
        let err = String::from_utf8(got.stderr).unwrap();
        assert_eq!(got.status.code(), Some(want.code), "{err}");
        assert_eq!(String::from_utf8(got.stdout).unwrap(), want.out());
        assert!(err.contains("appeared gzip-compressed"), "{err}");
    }

    let lib = dir.join("library");
    let agents = lib.join("p/s/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(lib.join("p/s.jsonl"), &log).unwrap();
    let fifo = agents.join("agent-x.jsonl");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let child = sv_std()
        .args(["--color", "never", "--latest", "-f"])
        .arg(&lib)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let got = finish(child);
    let err = String::from_utf8(got.stderr).unwrap();
    assert_eq!(got.status.code(), Some(0), "{err}");
    assert!(
        String::from_utf8(got.stdout)
            .unwrap()
            .contains("appeared compressed")
    );
    assert!(err.contains("1 file named like logs left unread"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
