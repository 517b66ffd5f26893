//! End-to-end tests of the `streamview` binary: exit statuses, inputs,
//! diagnostics, quiet/verbose, mirroring, colour, closed pipes, live
//! streaming and the JSONL round trip.
//!
//! Every test runs the real binary with a hermetic environment (see [`sv`])
//! and only reads `tests/fixtures`. Nothing blocks without a deadline.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a panic is a failure"
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

/// Variables that change what streamview does; removed from every run.
const ENV_VARS: [&str; 5] = [
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "STREAMVIEW_VERBOSE",
    "STREAMVIEW_QUIET",
];

/// Upper bound for any single run: a hang fails the test instead of blocking it.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Generous deadline for the live-streaming and closed-pipe reads.
const READ_LIMIT: Duration = Duration::from_secs(10);

/// Text of the single assistant message in `claude/text_only.jsonl`.
const TEXT_ONLY_START: &str = "This is a tiny demo project";
const TEXT_ONLY_END: &str = "- no tests yet";

// ---------------------------------------------------------------- helpers

/// The binary with a hermetic environment.
fn sv() -> Command {
    let mut cmd = Command::cargo_bin("streamview").unwrap();
    for v in ENV_VARS {
        cmd.env_remove(v);
    }
    // No configuration file.
    cmd.env("STREAMVIEW_CONFIG", "");
    cmd.timeout(RUN_LIMIT);
    cmd
}

/// The same, as a `std::process::Command` for the streaming cases.
fn sv_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("streamview"));
    for v in ENV_VARS {
        cmd.env_remove(v);
    }
    // No configuration file.
    cmd.env("STREAMVIEW_CONFIG", "");
    cmd
}

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn claude(name: &str) -> PathBuf {
    fixture(&format!("claude/{name}.jsonl"))
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A file in cargo's per-target temporary directory (never under tests/).
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The outcome of one run.
#[derive(Debug)]
struct Out {
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Out {
    fn out(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    fn err(&self) -> String {
        String::from_utf8(self.stderr.clone()).expect("stderr is UTF-8")
    }

    fn err_lines(&self) -> Vec<String> {
        self.err().lines().map(str::to_string).collect()
    }
}

/// Run with extra environment variables, arguments and stdin.
fn run_env(env: &[(&str, &str)], args: &[&str], stdin: &[u8]) -> Out {
    let mut cmd = sv();
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.args(args).write_stdin(stdin.to_vec()).output().unwrap();
    Out {
        code: o
            .status
            .code()
            .expect("exited normally, not by a signal or the timeout"),
        stdout: o.stdout,
        stderr: o.stderr,
    }
}

fn run(args: &[&str], stdin: &[u8]) -> Out {
    run_env(&[], args, stdin)
}

/// Run on one file given as an argument, with extra arguments before it.
fn run_file(args: &[&str], path: &Path) -> Out {
    let mut all = args.to_vec();
    all.push(path_str(path));
    run(&all, b"")
}

/// Wait for a spawned child, killing it (and failing) after `limit`.
fn wait_deadline(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("streamview did not exit within {limit:?}");
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Read a pipe to its end on a thread.
fn drain<R: Read + Send + 'static>(mut r: R) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// Lines of a fixture, each with its newline.
fn fixture_lines(path: &Path) -> Vec<Vec<u8>> {
    read(path)
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// The fixture with its last line cut in half (no newline at the end).
fn cut_stream(path: &Path) -> (Vec<u8>, usize) {
    let lines = fixture_lines(path);
    let (last, head) = lines.split_last().unwrap();
    let mut bytes = head.concat();
    let last = last.strip_suffix(b"\n").unwrap_or(last);
    bytes.extend_from_slice(&last[..last.len() / 2]);
    (bytes, lines.len())
}

/// Remove SGR colour sequences (`ESC [ … m`).
fn strip_sgr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    assert_eq!(c, 'm', "only SGR sequences are expected");
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn has_esc(bytes: &[u8]) -> bool {
    bytes.contains(&0x1b)
}

fn headers(stdout: &str) -> usize {
    stdout.lines().filter(|l| l.starts_with("● ")).count()
}

/// The closing summary lines of the pretty format: `✓ done · …` / `✗ … · N turn(s) · …`.
fn summaries(stdout: &str) -> usize {
    stdout
        .lines()
        .filter(|l| {
            (l.starts_with("✓ ") || l.starts_with("✗ "))
                && (l.contains(" turn ") || l.contains(" turns "))
        })
        .count()
}

/// The fixtures used for the data-driven tests: every stream in both corpora.
fn all_stream_fixtures() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["claude", "claude-2.1.330"] {
        for e in std::fs::read_dir(fixture(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(v.len() >= 40, "fixtures missing: {v:?}");
    v
}

// ---------------------------------------------------------------- exit statuses

#[test]
fn exit_0_for_a_successful_session() {
    let o = run_file(&[], &claude("text_only"));
    assert_eq!(o.code, 0, "{o:?}");
    let out = o.out();
    assert!(out.starts_with("● "), "header first: {out}");
    assert!(
        out.contains(TEXT_ONLY_START) && out.contains(TEXT_ONLY_END),
        "{out}"
    );
    assert!(out.lines().last().unwrap().starts_with("✓ done"), "{out}");
    assert_eq!(o.err(), "", "nothing on stderr for a clean session");
}

#[test]
fn exit_1_for_error_results() {
    for (name, needle) in [
        ("max_turns", "Reached maximum number of turns"),
        ("api_error_500", "500 Internal server error"),
        ("max_budget", "Reached maximum budget"),
    ] {
        let o = run_file(&[], &claude(name));
        assert_eq!(o.code, 1, "{name}: {o:?}");
        let out = o.out();
        assert_eq!(headers(&out), 1, "{name}: {out}");
        assert!(out.contains(needle), "{name}: {needle:?} not in {out}");
        assert!(
            out.lines().any(|l| l.starts_with("✗ ")),
            "{name}: no failure line in {out}"
        );
        // Not copied to stderr: the pipe carries it.
        assert!(
            !o.err().contains(needle),
            "{name}: {needle:?} copied into a pipe's stderr: {}",
            o.err()
        );
    }
}

#[test]
fn exit_2_for_a_missing_file_and_the_other_files_are_still_rendered() {
    let missing = fixture("claude/does-not-exist.jsonl");
    let alone = run_file(&[], &claude("text_only"));
    let o = run(&[path_str(&missing), path_str(&claude("text_only"))], b"");
    assert_eq!(o.code, 2, "{o:?}");
    assert_eq!(
        o.err_lines(),
        [format!(
            "streamview: cannot open {}: no such file",
            missing.display()
        )]
    );
    assert_eq!(
        o.out(),
        alone.out(),
        "the existing file is rendered as if alone"
    );

    // In the middle of the list: the files on both sides are rendered, in order.
    let o = run(
        &[
            path_str(&claude("text_only")),
            path_str(&missing),
            path_str(&claude("max_turns")),
        ],
        b"",
    );
    assert_eq!(o.code, 2, "{o:?}");
    let out = o.out();
    assert_eq!(headers(&out), 2, "{out}");
    assert!(
        out.find(TEXT_ONLY_START).unwrap() < out.find("Reached maximum number of turns").unwrap(),
        "{out}"
    );
    assert!(
        o.err().contains(&format!(
            "streamview: cannot open {}: no such file\n",
            missing.display()
        )),
        "{}",
        o.err()
    );
}

#[test]
fn exit_2_for_a_lone_missing_file_says_only_that() {
    let missing = fixture("claude/does-not-exist.jsonl");
    let o = run(&[path_str(&missing)], b"");
    assert_eq!(o.code, 2, "{o:?}");
    assert_eq!(o.out(), "");
    assert_eq!(
        o.err_lines(),
        [format!(
            "streamview: cannot open {}: no such file",
            missing.display()
        )]
    );
}

#[test]
fn exit_2_for_usage_errors() {
    let o = run(&["--no-such-flag", path_str(&claude("text_only"))], b"");
    assert_eq!(o.code, 2, "{o:?}");
    assert_eq!(o.out(), "", "nothing rendered on a usage error");
    assert!(o.err().contains("--no-such-flag"), "{}", o.err());

    // Given twice, an option is not a usage error: the last one wins.
    let o = run(&["-v", "-q", path_str(&claude("text_only"))], b"");
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.out(), "");

    for bad in ["0", "lots", "12X"] {
        let o = run(
            &["--max-line-bytes", bad, path_str(&claude("text_only"))],
            b"",
        );
        assert_eq!(o.code, 2, "--max-line-bytes {bad}: {o:?}");
        assert!(o.err().contains("--max-line-bytes"), "{}", o.err());
    }

    let o = run(&["--format", "xml", path_str(&claude("text_only"))], b"");
    assert_eq!(o.code, 2, "{o:?}");
    let o = run(
        &["--color", "sometimes", path_str(&claude("text_only"))],
        b"",
    );
    assert_eq!(o.code, 2, "{o:?}");
}

#[test]
fn exit_3_for_empty_stdin() {
    let o = run(&[], b"");
    assert_eq!(o.code, 3, "{o:?}");
    assert_eq!(o.out(), "");
    let err = o.err();
    assert_eq!(o.err_lines().len(), 1, "{err}");
    assert!(
        err.starts_with("streamview: ") && err.contains("empty"),
        "{err}"
    );
    assert!(
        err.contains("--output-format stream-json --verbose"),
        "{err}"
    );

    // `-` is stdin too.
    let o = run(&["-"], b"");
    assert_eq!(o.code, 3, "{o:?}");
    assert!(
        o.err().contains("--output-format stream-json --verbose"),
        "{}",
        o.err()
    );
}

#[test]
fn exit_3_for_blank_input() {
    let o = run(&[], b"\n\n  \n");
    assert_eq!(o.code, 3, "{o:?}");
    assert_eq!(o.out(), "");
    assert!(o.err().starts_with("streamview: "), "{}", o.err());
}

#[test]
fn exit_3_for_a_stream_cut_mid_line() {
    let path = claude("tools_basic");
    let full = run_file(&[], &path);
    assert_eq!(full.code, 0);
    let full_out = full.out();
    // Everything the complete run shows before its closing summary.
    let before_summary: String = full_out
        .split_inclusive('\n')
        .take_while(|l| !l.starts_with("✓ done"))
        .collect();
    assert!(
        before_summary.contains("Everything looks consistent."),
        "{full_out}"
    );

    let (cut, n) = cut_stream(&path);
    let o = run(&[], &cut);
    assert_eq!(o.code, 3, "{o:?}");
    let out = o.out();
    assert!(
        out.starts_with(&before_summary),
        "everything before the cut is rendered:\n{out}"
    );
    assert!(!out.contains("✓ done"), "{out}");
    let after = &out[before_summary.len()..];
    assert!(
        after
            .lines()
            .any(|l| l.contains("stream ended without a result")),
        "{out}"
    );

    let err = o.err_lines();
    let prefix = format!("streamview: <stdin>:{n}: ");
    let diag = err
        .iter()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no line {n} diagnostic: {err:?}"));
    assert!(
        diag.contains("truncated last line") && diag.ends_with("; skipped"),
        "{diag}"
    );
    assert_eq!(err.last().unwrap(), "streamview: 1 line skipped", "{err:?}");

    // The same, read from a named file.
    let file = temp_file("cut.jsonl", &cut);
    let o = run_file(&[], &file);
    assert_eq!(o.code, 3, "{o:?}");
    assert_eq!(o.out(), out);
    assert!(
        o.err().contains(&format!(
            "streamview: {}:{n}: truncated last line",
            file.display()
        )),
        "{}",
        o.err()
    );
}

#[test]
fn exit_3_for_plain_text_output() {
    let path = fixture("misc/claude_text_output.txt");
    let text = String::from_utf8(read(&path)).unwrap();
    let o = run_file(&[], &path);
    assert_eq!(o.code, 3, "{o:?}");
    let out = o.out();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        assert!(out.contains(line), "{line:?} not shown in {out}");
    }
    let err = o.err();
    assert!(err.contains("no JSON events"), "{err}");
    assert!(
        err.contains("--output-format stream-json --verbose"),
        "{err}"
    );
}

// ---------------------------------------------------------------- stdin vs files

#[test]
fn stdin_file_and_dash_give_the_same_output() {
    for name in [
        "text_only",
        "tools_basic",
        "max_turns",
        "permission_denied",
        "subagent",
    ] {
        let path = claude(name);
        let bytes = read(&path);
        let by_file = run_file(&[], &path);
        let by_stdin = run(&[], &bytes);
        let by_dash = run(&["-"], &bytes);
        assert!(!by_file.stdout.is_empty(), "{name}");
        assert_eq!(by_file.out(), by_stdin.out(), "{name}: file vs stdin");
        assert_eq!(by_file.out(), by_dash.out(), "{name}: file vs -");
        assert_eq!(by_file.code, by_stdin.code, "{name}");
        assert_eq!(by_file.code, by_dash.code, "{name}");
        // Mirrored errors and denials are the same too.
        assert_eq!(by_file.err(), by_stdin.err(), "{name}");
    }
}

#[test]
fn several_files_are_read_in_order_like_their_concatenation() {
    let (a, b) = (claude("text_only"), claude("tools_basic"));
    let both = run(&[path_str(&a), path_str(&b)], b"");
    let cat = run(&[], &[read(&a), read(&b)].concat());
    assert_eq!(both.code, 0, "{both:?}");
    assert_eq!(both.out(), cat.out());
    let out = both.out();
    assert_eq!(headers(&out), 2, "{out}");
    assert_eq!(summaries(&out), 2, "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("✓ done")).count(),
        2,
        "{out}"
    );
    assert!(
        out.find(TEXT_ONLY_START).unwrap() < out.find("Everything looks consistent.").unwrap(),
        "{out}"
    );

    // Reversed order, reversed output.
    let rev = run(&[path_str(&b), path_str(&a)], b"").out();
    assert!(
        rev.find(TEXT_ONLY_START).unwrap() > rev.find("Everything looks consistent.").unwrap(),
        "{rev}"
    );

    // `-` takes its place among the files.
    let c = claude("max_turns");
    let mixed = run(&[path_str(&a), "-", path_str(&c)], &read(&b));
    let cat3 = run(&[], &[read(&a), read(&b), read(&c)].concat());
    assert_eq!(mixed.out(), cat3.out());
    assert_eq!(mixed.code, 1);
    assert_eq!(headers(&mixed.out()), 3, "{}", mixed.out());
}

#[test]
fn several_files_exit_with_the_worst_status() {
    // Different sessions each (the same session id twice is one session).
    let ok = claude("text_only");
    let ok2 = claude("tools_basic");
    let failed = claude("max_turns");
    for (files, want) in [
        (vec![&ok, &ok2], 0),
        (vec![&ok, &failed], 1),
        (vec![&failed, &ok], 1),
        (vec![&ok, &failed, &ok2], 1),
    ] {
        let args: Vec<&str> = files.iter().map(|p| path_str(p)).collect();
        let o = run(&args, b"");
        assert_eq!(o.code, want, "{args:?}: {o:?}");
        let out = o.out();
        assert_eq!(headers(&out), files.len(), "{args:?}: {out}");
        assert_eq!(summaries(&out), files.len(), "{args:?}: {out}");
    }

    // A cut stream first, a good one after: incomplete beats success.
    let (cut, _) = cut_stream(&claude("tools_basic"));
    let cut = temp_file("worst-cut.jsonl", &cut);
    let o = run(&[path_str(&cut), path_str(&ok)], b"");
    assert_eq!(o.code, 3, "{o:?}");
    let o = run(&[path_str(&failed), path_str(&cut)], b"");
    assert_eq!(o.code, 3, "{o:?}");
}

#[test]
fn a_cut_stream_does_not_taint_the_next_session() {
    let (cut, _) = cut_stream(&claude("tools_basic"));
    let cut = temp_file("taint-cut.jsonl", &cut);
    let ok = claude("text_only");
    let o = run(&[path_str(&cut), path_str(&ok)], b"");
    assert_eq!(o.code, 3, "the first session is still incomplete: {o:?}");
    let out = o.out();
    let second = &out[out.find(TEXT_ONLY_START).unwrap()..];
    assert!(second.lines().any(|l| l.starts_with("✓ done")), "{out}");
    assert!(
        !second.contains("stream ended without a result"),
        "the second session has its result:\n{out}"
    );
}

// ---------------------------------------------------------------- skipped lines

/// The init line, three bad lines, then the rest of `text_only`.
fn stream_with_bad_lines() -> Vec<u8> {
    let lines = fixture_lines(&claude("text_only"));
    let mut v = lines[0].clone();
    v.extend_from_slice(b"{\"type\":\n");
    v.extend_from_slice(b"\xff\xfe\n");
    v.extend_from_slice(b"[1,2]\n");
    for l in &lines[1..] {
        v.extend_from_slice(l);
    }
    v
}

#[test]
fn skipped_lines_are_reported_with_their_numbers_and_processing_goes_on() {
    let clean = run_file(&[], &claude("text_only"));
    let o = run(&[], &stream_with_bad_lines());
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(
        o.out(),
        clean.out(),
        "bad lines render nothing; the lines after them render as usual"
    );
    let err = o.err_lines();
    assert_eq!(err.len(), 4, "{err:?}");
    for (i, n) in [2, 3, 4].into_iter().enumerate() {
        let prefix = format!("streamview: <stdin>:{n}: ");
        assert!(
            err[i].starts_with(&prefix) && err[i].ends_with("; skipped"),
            "{:?}",
            err[i]
        );
    }
    assert!(err[0].contains("JSON"), "{}", err[0]);
    assert!(err[1].contains("UTF-8"), "{}", err[1]);
    assert!(err[2].contains("array"), "{}", err[2]);
    assert_eq!(err[3], "streamview: 3 lines skipped");

    // From a file, the file's name is used.
    let file = temp_file("bad-lines.jsonl", &stream_with_bad_lines());
    let o = run_file(&[], &file);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(
        o.err()
            .starts_with(&format!("streamview: {}:2: ", file.display())),
        "{}",
        o.err()
    );
}

#[test]
fn verbose_adds_an_excerpt_after_each_skipped_line() {
    let o = run(&["-v"], &stream_with_bad_lines());
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.out().contains(TEXT_ONLY_END), "{}", o.out());
    let err = o.err_lines();
    assert_eq!(err.len(), 7, "{err:?}");
    for (i, n) in [2, 3, 4].into_iter().enumerate() {
        assert!(
            err[2 * i].starts_with(&format!("streamview: <stdin>:{n}: ")),
            "{err:?}"
        );
        assert!(err[2 * i + 1].starts_with("streamview:   | "), "{err:?}");
    }
    assert!(err[1].contains("{\"type\":"), "{}", err[1]);
    assert!(err[5].contains("[1,2]"), "{}", err[5]);
    assert_eq!(err[6], "streamview: 3 lines skipped");
}

#[test]
fn lines_over_max_line_bytes_are_skipped_and_the_next_ones_are_fine() {
    let init =
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"]}"#;
    let msg = |text: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"m1","content":[{{"type":"text","text":"{text}"}}]}}}}"#
        )
    };
    let long = msg(&"x".repeat(500 - msg("").len()));
    assert_eq!(long.len(), 500);
    let result = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1}"#;
    let input = format!("{init}\n{long}\n{}\n{result}\n", msg("after the long line"));
    assert!(
        input
            .lines()
            .filter(|l| l.len() != 500)
            .all(|l| l.len() <= 100)
    );

    let o = run(&["--max-line-bytes", "100"], input.as_bytes());
    assert_eq!(o.code, 0, "{o:?}");
    let out = o.out();
    assert!(out.contains("after the long line"), "{out}");
    assert!(!out.contains("xxxxxxxxxx"), "{out}");
    assert!(out.lines().last().unwrap().starts_with("✓ done"), "{out}");
    let err = o.err_lines();
    assert_eq!(err.len(), 2, "{err:?}");
    assert!(
        err[0].starts_with("streamview: <stdin>:2: ") && err[0].ends_with("; skipped"),
        "{}",
        err[0]
    );
    assert!(
        err[0].contains("500") && err[0].contains("exceeds --max-line-bytes 100"),
        "{}",
        err[0]
    );
    assert_eq!(err[1], "streamview: 1 line skipped");

    // Suffixes: 1K is plenty for these lines.
    let o = run(&["--max-line-bytes", "1K"], input.as_bytes());
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.err(), "");
    assert!(o.out().contains(&"x".repeat(100)), "{}", o.out());
}

// ---------------------------------------------------------------- quiet / verbose

fn assert_quiet(o: &Out, what: &str, needles: &[&str]) {
    assert_eq!(o.out(), "", "{what}: nothing on stdout");
    let err = o.err();
    for n in needles {
        assert!(err.contains(n), "{what}: {n:?} not on stderr:\n{err}");
    }
}

#[test]
fn quiet_prints_nothing_on_stdout_but_errors_and_denials_on_stderr() {
    for env in [&[][..], &[("STREAMVIEW_QUIET", "1")][..]] {
        let args: &[&str] = if env.is_empty() { &["-q"] } else { &[] };
        let what = format!("{args:?} {env:?}");

        let o = run_env(
            env,
            &[args, &[path_str(&claude("permission_denied"))]].concat(),
            b"",
        );
        assert_eq!(o.code, 0, "{what}: {o:?}");
        assert_quiet(
            &o,
            &what,
            &[
                "permission denied",
                "rm -rf build && touch build.marker",
                "marker.txt",
            ],
        );
        assert!(
            !o.err().contains("I'll clean the build directory"),
            "{what}: ordinary text on stderr"
        );

        let o = run_env(
            env,
            &[args, &[path_str(&claude("tool_errors"))]].concat(),
            b"",
        );
        assert_eq!(o.code, 0, "{what}: {o:?}");
        assert_quiet(
            &o,
            &what,
            &[
                "Exit code 3",
                "File does not exist.",
                "String to replace not found in file.",
            ],
        );
        assert!(
            !o.err().contains("Several operations failed"),
            "{what}: ordinary text on stderr"
        );

        let o = run_env(
            env,
            &[args, &[path_str(&claude("max_turns"))]].concat(),
            b"",
        );
        assert_eq!(o.code, 1, "{what}: {o:?}");
        assert_quiet(&o, &what, &["Reached maximum number of turns"]);

        let o = run_env(
            env,
            &[args, &[path_str(&claude("text_only"))]].concat(),
            b"",
        );
        assert_eq!(o.code, 0, "{what}: {o:?}");
        assert_eq!(o.out(), "", "{what}");
        assert_eq!(o.err(), "", "{what}: a clean session is silent");

        let (cut, _) = cut_stream(&claude("tools_basic"));
        let o = run_env(env, args, &cut);
        assert_eq!(o.code, 3, "{what}: {o:?}");
        assert_quiet(&o, &what, &["truncated last line"]);
    }
}

#[test]
fn flags_beat_the_environment() {
    let path = claude("tools_basic");
    let p = path_str(&path);
    let normal = run(&[p], b"");
    let verbose = run(&["-v", p], b"");
    assert_ne!(normal.out(), verbose.out(), "-v shows more");
    assert!(verbose.out().len() > normal.out().len());

    let o = run_env(&[("STREAMVIEW_QUIET", "1")], &["-v", p], b"");
    assert_eq!(o.out(), verbose.out(), "-v beats STREAMVIEW_QUIET=1");
    let o = run_env(&[("STREAMVIEW_VERBOSE", "1")], &[p], b"");
    assert_eq!(o.out(), verbose.out(), "STREAMVIEW_VERBOSE=1 is -v");
    let o = run_env(&[("STREAMVIEW_VERBOSE", "1")], &["-q", p], b"");
    assert_eq!(o.out(), "", "-q beats STREAMVIEW_VERBOSE=1");
    let o = run_env(&[("STREAMVIEW_QUIET", "0")], &[p], b"");
    assert_eq!(o.out(), normal.out(), "STREAMVIEW_QUIET=0 is off");
}

#[test]
fn quiet_jsonl_prints_nothing_on_stdout() {
    let o = run_file(&["-q", "--format", "jsonl"], &claude("max_turns"));
    assert_eq!(o.code, 1, "{o:?}");
    assert_eq!(o.out(), "");
}

// ---------------------------------------------------------------- mirroring

#[test]
fn errors_and_denials_are_mirrored_to_stderr_when_stdout_is_a_pipe() {
    for (name, on_both, ordinary) in [
        (
            "permission_denied",
            &[
                "permission denied: Bash rm -rf build && touch build.marker",
                "permission denied: Write",
            ][..],
            &[
                "I'll clean the build directory",
                "I was not allowed to run the command",
            ][..],
        ),
        (
            "tool_errors",
            &[
                "Exit code 3",
                "File does not exist.",
                "File has not been read yet",
                "Command timed out",
            ][..],
            &["Several operations failed"][..],
        ),
    ] {
        let o = run_file(&["--errors", "stderr"], &claude(name));
        assert_eq!(o.code, 0, "{name}: {o:?}");
        let (out, err) = (o.out(), o.err());
        for n in on_both {
            assert!(out.contains(n), "{name}: {n:?} not on stdout:\n{out}");
            assert!(err.contains(n), "{name}: {n:?} not on stderr:\n{err}");
        }
        for n in ordinary {
            assert!(out.contains(n), "{name}: {n:?} not on stdout");
            assert!(
                !err.contains(n),
                "{name}: ordinary text {n:?} on stderr:\n{err}"
            );
        }
        assert!(!err.contains("● "), "{name}: header on stderr:\n{err}");
        assert!(!err.contains("✓ done"), "{name}: summary on stderr:\n{err}");
        // Everything on stderr is a copy of something on stdout.
        for line in err.lines() {
            assert!(
                out.lines().any(|l| l == line),
                "{name}: {line:?} is on stderr only"
            );
        }
    }
}

// ---------------------------------------------------------------- colour

#[test]
fn no_colour_by_default_through_a_pipe() {
    let o = run_file(&[], &claude("tool_errors"));
    assert!(!has_esc(&o.stdout), "ESC on stdout");
    assert!(!has_esc(&o.stderr), "ESC on stderr");
}

#[test]
fn colour_can_be_forced() {
    let path = claude("tool_errors");
    let plain = run_file(&[], &path);
    let always = run_file(&["--color", "always"], &path);
    assert!(has_esc(&always.stdout), "--color always: no ESC on stdout");
    assert!(always.out().contains("\x1b["), "{}", always.out());
    assert_eq!(
        strip_sgr(&always.out()),
        plain.out(),
        "colour adds SGR sequences and nothing else"
    );
    assert_eq!(strip_sgr(&always.err()), plain.err());

    let forced = run_env(&[("CLICOLOR_FORCE", "1")], &[path_str(&path)], b"");
    assert!(has_esc(&forced.stdout), "CLICOLOR_FORCE=1: no ESC");
    assert_eq!(strip_sgr(&forced.out()), plain.out());

    let never = run_env(
        &[("CLICOLOR_FORCE", "1")],
        &["--color", "never", path_str(&path)],
        b"",
    );
    assert!(
        !has_esc(&never.stdout) && !has_esc(&never.stderr),
        "--color never beats CLICOLOR_FORCE"
    );
    assert_eq!(never.out(), plain.out());

    let off = run_env(&[("CLICOLOR_FORCE", "0")], &[path_str(&path)], b"");
    assert!(!has_esc(&off.stdout), "CLICOLOR_FORCE=0 is off");

    let flag = run_env(
        &[("NO_COLOR", "1")],
        &["--color", "always", path_str(&path)],
        b"",
    );
    assert!(has_esc(&flag.stdout), "--color always beats NO_COLOR");
}

#[test]
fn jsonl_is_never_coloured() {
    let path = claude("tool_errors");
    let plain = run_file(&["--format", "jsonl"], &path);
    let always = run_file(&["--format", "jsonl", "--color", "always"], &path);
    assert!(!has_esc(&always.stdout), "ESC in JSONL");
    assert_eq!(always.stdout, plain.stdout);
    let forced = run_env(
        &[("CLICOLOR_FORCE", "1")],
        &["--format", "jsonl", path_str(&path)],
        b"",
    );
    assert!(!has_esc(&forced.stdout), "ESC in JSONL");
}

#[test]
fn control_characters_from_the_content_are_neutralised() {
    let path = claude("unicode_ansi");
    let raw = read(&path);
    // The fixture does carry the dangerous bytes (JSON-escaped).
    let text = String::from_utf8(raw).unwrap();
    assert!(
        text.contains("\\u001b[31m") && text.contains("\\u0007") && text.contains("\\b"),
        "fixture changed"
    );

    let o = run_file(&["-v", "--color", "never"], &path);
    assert_eq!(o.code, 0, "{o:?}");
    for (stream, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        for bad in [0x1b_u8, 0x07, 0x08, b'\r', 0x00] {
            assert!(!bytes.contains(&bad), "{stream} contains byte {bad:#04x}");
        }
    }
    let out = o.out();
    assert!(out.contains('␛'), "no visible stand-in for ESC:\n{out}");
    assert!(out.contains("␛[31mred␛[0m"), "{out}");
    assert!(
        out.contains("bold green") && out.contains("underline"),
        "{out}"
    );

    // With colour, the only ESCs are our own SGR sequences.
    let o = run_file(&["-v", "--color", "always"], &path);
    let stripped = strip_sgr(&o.out());
    assert!(
        !stripped.contains('\x1b') && !stripped.contains('\x07') && !stripped.contains('\x08'),
        "{stripped}"
    );
    assert!(stripped.contains('␛'));
}

// ---------------------------------------------------------------- closed stdout

/// Spawn streamview, read one line of stdout, close the pipe and wait.
/// Returns the line, the exit status and stderr.
fn read_one_line_and_close(args: &[&str], stdin: Option<Vec<u8>>) -> (String, ExitStatus, String) {
    let mut child = sv_std()
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let writer = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().unwrap();
        // The child stops reading once its reader is gone: a write error here is expected.
        thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let stderr = drain(child.stderr.take().unwrap());
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut rdr = BufReader::new(stdout);
        let mut line = String::new();
        let _ = rdr.read_line(&mut line);
        let _ = tx.send(line);
        // `rdr` is dropped here: the read end of the pipe closes.
    });
    let Ok(line) = rx.recv_timeout(READ_LIMIT) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("no first line within {READ_LIMIT:?}");
    };
    let status = wait_deadline(&mut child, RUN_LIMIT);
    if let Some(w) = writer {
        w.join().unwrap();
    }
    let err = String::from_utf8(stderr.join().unwrap()).unwrap();
    (line, status, err)
}

#[test]
fn closed_stdout_ends_quietly_jsonl_files() {
    let big = fixture("misc/claude_big_output.jsonl");
    let p = path_str(&big);
    let (line, status, err) = read_one_line_and_close(&["--format", "jsonl", p, p, p, p], None);
    assert!(line.starts_with("{\"v\":1,"), "{line}");
    assert_eq!(status.code(), Some(0), "{status:?}, stderr: {err}");
    assert_eq!(err, "", "nothing on stderr when the reader goes away");
}

#[test]
fn closed_stdout_ends_quietly_jsonl_stdin() {
    let big = read(&fixture("misc/claude_big_output.jsonl"));
    let (line, status, err) = read_one_line_and_close(&["--format", "jsonl"], Some(big.repeat(3)));
    assert!(line.starts_with("{\"v\":1,"), "{line}");
    assert_eq!(status.code(), Some(0), "{status:?}, stderr: {err}");
    assert_eq!(err, "");
}

/// Pretty output mirrors the fixture's tool errors to stderr (stdout is a
/// pipe), so stderr holds those copies and nothing else: no broken-pipe message.
fn assert_only_mirrored(err: &str, full_stdout: &str) {
    for line in err.lines() {
        assert!(
            !line.starts_with("streamview:"),
            "diagnostic after the reader left: {line}"
        );
        assert!(
            full_stdout.lines().any(|l| l == line),
            "unexpected stderr line {line:?}"
        );
    }
    assert!(!err.to_lowercase().contains("broken pipe"), "{err}");
}

#[test]
fn closed_stdout_ends_quietly_pretty() {
    let big = fixture("misc/claude_big_output.jsonl");
    let p = path_str(&big);
    let full_verbose = run_file(&["-v"], &big);
    assert_eq!(full_verbose.code, 0);

    // Verbose output (over 1 MB a copy) is certain to outgrow the pipe.
    let (line, status, err) = read_one_line_and_close(&["-v"], Some(read(&big).repeat(3)));
    assert!(line.starts_with("● "), "{line}");
    assert_eq!(status.code(), Some(0), "{status:?}, stderr: {err}");
    assert_only_mirrored(&err, &full_verbose.out());

    let (line, status, err) = read_one_line_and_close(&["-v", p, p, p], None);
    assert!(line.starts_with("● "), "{line}");
    assert_eq!(status.code(), Some(0), "{status:?}, stderr: {err}");
    assert_only_mirrored(&err, &full_verbose.out());

    let full = run_file(&[], &big);
    let (line, status, err) = read_one_line_and_close(&[p, p, p, p], None);
    assert!(line.starts_with("● "), "{line}");
    assert_eq!(status.code(), Some(0), "{status:?}, stderr: {err}");
    assert_only_mirrored(&err, &full.out());
}

// ---------------------------------------------------------------- live streaming

#[test]
fn output_appears_while_the_input_is_still_open() {
    let path = claude("text_only");
    let lines = fixture_lines(&path);
    assert_eq!(lines.len(), 3, "text_only is init, assistant, result");
    let mut child = sv_std()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stderr = drain(child.stderr.take().unwrap());
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let reader = thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });

    stdin.write_all(&lines[0]).unwrap();
    stdin.write_all(&lines[1]).unwrap();
    stdin.flush().unwrap();

    // stdin stays open: the text must arrive anyway.
    let mut got = Vec::new();
    let deadline = Instant::now() + READ_LIMIT;
    while !String::from_utf8_lossy(&got).contains(TEXT_ONLY_END) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(chunk) => got.extend_from_slice(&chunk),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "assistant text not shown while stdin is open ({e:?}); got so far:\n{}",
                    String::from_utf8_lossy(&got)
                );
            }
        }
    }
    let so_far = String::from_utf8(got.clone()).unwrap();
    assert!(so_far.starts_with("● "), "{so_far}");
    assert!(so_far.contains(TEXT_ONLY_START), "{so_far}");
    assert!(
        !so_far.contains("✓ done"),
        "no summary before the result: {so_far}"
    );

    stdin.write_all(&lines[2]).unwrap();
    drop(stdin);
    let deadline = Instant::now() + READ_LIMIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(chunk) => got.extend_from_slice(&chunk),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("stdout not closed after EOF on stdin");
            }
        }
    }
    let status = wait_deadline(&mut child, RUN_LIMIT);
    reader.join().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(String::from_utf8(stderr.join().unwrap()).unwrap(), "");
    assert_eq!(
        String::from_utf8(got).unwrap(),
        run_file(&[], &path).out(),
        "live output equals batch output"
    );
}

// ---------------------------------------------------------------- JSONL

/// Counts of `tool_use` blocks in assistant messages and `tool_result`
/// blocks in user messages, straight from the fixture.
fn count_blocks(path: &Path) -> (usize, usize) {
    let (mut uses, mut results) = (0, 0);
    for line in String::from_utf8(read(path)).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let Some(content) = v.pointer("/message/content").and_then(Value::as_array) else {
            continue;
        };
        for block in content {
            match (v["type"].as_str(), block["type"].as_str()) {
                (Some("assistant"), Some("tool_use")) => uses += 1,
                (Some("user"), Some("tool_result")) => results += 1,
                _ => {}
            }
        }
    }
    (uses, results)
}

#[test]
fn jsonl_lines_follow_the_schema_and_count_tool_calls() {
    let mut total_calls = 0;
    for path in all_stream_fixtures() {
        let name = path.display().to_string();
        let n_lines = fixture_lines(&path).len() as u64;
        let o = run_file(&["--format", "jsonl"], &path);
        let pretty = run_file(&[], &path);
        assert_eq!(o.code, pretty.code, "{name}");
        let out = o.out();
        assert!(!out.is_empty(), "{name}");
        let (mut calls, mut results) = (0, 0);
        let mut prev_line = 0;
        for l in out.lines() {
            let v: Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {l}"));
            assert!(v.is_object(), "{name}: {l}");
            assert_eq!(v["v"], 1, "{name}: {l}");
            let kind = v["kind"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: no kind: {l}"));
            assert_eq!(v["producer"], "claude", "{name}: {l}");
            let line = v["line"]
                .as_u64()
                .unwrap_or_else(|| panic!("{name}: no line: {l}"));
            assert!(
                (1..=n_lines).contains(&line),
                "{name}: line {line} of {n_lines}"
            );
            assert!(line >= prev_line, "{name}: line numbers go back: {l}");
            prev_line = line;
            match kind {
                "tool_call" => calls += 1,
                "tool_result" => results += 1,
                _ => {}
            }
        }
        let (uses, tool_results) = count_blocks(&path);
        assert_eq!(calls, uses, "{name}: tool_call lines vs tool_use blocks");
        assert_eq!(
            results, tool_results,
            "{name}: tool_result lines vs tool_result blocks"
        );
        total_calls += calls;
    }
    assert!(total_calls > 20, "the fixtures do exercise tools");
}

fn assert_round_trip(path: &Path, flags: &[&str]) {
    let name = path.display();
    let direct = run_file(flags, path);
    let jsonl = run_file(&["--format", "jsonl"], path);
    // Replayed from a file as the original is: tool durations come from
    // the timestamps the JSONL keeps.
    let tag: String = format!("{name}{flags:?}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let saved = temp_file(&format!("rt{tag}.jsonl"), &jsonl.stdout);
    let again = run_file(flags, &saved);
    assert_eq!(
        again.out(),
        direct.out(),
        "{name} {flags:?}: pretty(jsonl(f)) != pretty(f)"
    );
    assert_eq!(again.code, direct.code, "{name} {flags:?}: exit status");
    assert_eq!(
        jsonl.code, direct.code,
        "{name}: exit status of --format jsonl"
    );
}

#[test]
fn jsonl_round_trip_gives_the_same_pretty_output() {
    for path in all_stream_fixtures() {
        assert_round_trip(&path, &[]);
    }
    // A cut stream keeps its status through the round trip.
    let (cut, _) = cut_stream(&claude("tools_basic"));
    assert_round_trip(&temp_file("rt-cut.jsonl", &cut), &[]);
}

#[test]
fn jsonl_round_trip_gives_the_same_verbose_output() {
    for name in [
        "tools_basic",
        "tool_errors",
        "subagent",
        "thinking",
        "permission_denied",
        "unicode_ansi",
        "edit_write",
    ] {
        assert_round_trip(&claude(name), &["-v"]);
    }
}

// ---------------------------------------------------------------- help, version

#[test]
fn help_has_the_alias_and_the_exit_statuses() {
    let o = run(&["--help"], b"");
    assert_eq!(o.code, 0, "{o:?}");
    let out = o.out();
    assert!(out.contains("cc() {"), "{out}");
    assert!(
        out.contains("--output-format stream-json --verbose | streamview"),
        "{out}"
    );
    assert!(out.contains("Exit status"), "{out}");
    for code in ["0  ", "1  ", "2  ", "3  "] {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(code)),
            "exit status {code:?} missing:\n{out}"
        );
    }
    for var in [
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "STREAMVIEW_VERBOSE",
        "STREAMVIEW_QUIET",
    ] {
        assert!(out.contains(var), "{var} missing");
    }
    // -h is the short form and points to --help.
    let o = run(&["-h"], b"");
    assert_eq!(o.code, 0);
    assert!(o.out().contains("--help"), "{}", o.out());
}

#[test]
fn version_prints_the_package_version() {
    let o = run(&["--version"], b"");
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(
        o.out().trim(),
        format!("streamview {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(o.err(), "");
}

// ---------------------------------------------------------------- wording

#[test]
fn singular_counts_are_singular() {
    let init =
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"]}"#;
    let o = run(&[], format!("{init}\n").as_bytes());
    assert_eq!(o.code, 3, "{o:?}");
    let out = o.out();
    assert!(out.contains("1 tool") && !out.contains("1 tools"), "{out}");

    let lines = fixture_lines(&claude("text_only"));
    let o = run(&[], &lines[..2].concat());
    assert_eq!(o.code, 3, "{o:?}");
    assert!(!o.out().contains("1 responses"), "{}", o.out());
}

/// Where errors are copied (`--errors auto`): never into a pipe (it carries
/// them), always beside a file; the data formats say less.
#[test]
fn errors_are_copied_beside_a_file_not_into_a_pipe() {
    let f = claude("tool_errors");
    // A pipe: nothing copied.
    let o = run_file(&[], &f);
    assert_eq!(o.err(), "", "{o:?}");
    // A file: every error copied, once.
    let out = std::env::temp_dir().join(format!("sv-errors-{}.log", std::process::id()));
    let file = std::fs::File::create(&out).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_streamview"))
        .arg(&f)
        .stdout(file)
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    let written = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert_eq!(err.matches("✗ ").count(), 6, "{err}");
    assert_eq!(written.matches("✗ ").count(), 6, "{written}");
    for line in err.lines() {
        assert!(
            written.lines().any(|l| l == line),
            "{line:?} not in the file"
        );
    }
    // --errors never: not even with -q.
    let o = run_file(&["-q", "--errors", "never"], &f);
    assert_eq!((o.out(), o.err()), (String::new(), String::new()));
}

#[test]
fn data_formats_say_less_on_stderr() {
    let failed = claude("api_error_500");
    let errors = claude("tool_errors");
    let denied = claude("permission_denied");
    // Summary: how many sessions failed, in one line; no tool errors, no
    // denials (its tables say which failed).
    let o = run(
        &[
            "--format",
            "summary",
            path_str(&errors),
            path_str(&denied),
            path_str(&failed),
        ],
        b"",
    );
    let err = o.err();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("✗ 1 session failed: API Error: 500"),
        "{err}"
    );
    assert!(err.ends_with("; --errors stderr lists them\n"), "{err}");
    // Result: the failure, the denials, and the tool errors counted.
    let o = run(
        &["--format", "result", path_str(&errors), path_str(&denied)],
        b"",
    );
    let err = o.err();
    assert_eq!(err.matches("⊘ permission denied").count(), 2, "{err}");
    assert!(!err.contains("Exit code 3"), "{err}");
    assert!(
        err.contains("✗ 6 tool errors (`--format pretty` shows them)"),
        "{err}"
    );
    // --errors stderr: all of it.
    let o = run(
        &[
            "--format",
            "result",
            "--errors",
            "stderr",
            path_str(&errors),
        ],
        b"",
    );
    assert!(o.err().contains("Exit code 3"), "{}", o.err());
}

/// `-f` with two files follows both (issue 28), each line labelled.
#[test]
fn follow_takes_several_files() {
    let a = claude("text_only");
    let b = claude("tools_basic");
    let o = run(&["-f", path_str(&a), path_str(&b)], b"");
    assert_eq!(o.code, 0, "{o:?}");
    assert!(
        o.out()
            .lines()
            .all(|l| l.starts_with("[text_only] ") || l.starts_with("[tools_basic] ")),
        "{}",
        o.out()
    );
}
