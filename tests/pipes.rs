//! Pipes and signals (issue 6): a reader that goes away, a full disk, an
//! unwritable stdout, Ctrl-C, and input that arrives slowly, in bursts or
//! one byte at a time through a real pipe.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a panic is a failure"
)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::{RUN_LIMIT, drain, fixture, read, sigint, sv, sv_std, temp_file, wait_deadline};

/// One fixture per producer (each ends with a result; none has an error
/// that would be mirrored to stderr), and what they are made of.
const CLEAN: [&str; 8] = [
    "claude/tools_basic.jsonl",
    "claude/edit_write.jsonl",
    "codex/shell_ok.jsonl",
    "gemini/files.jsonl",
    "opencode/files.jsonl",
    "qwen/files.jsonl",
    "cursor/tools.jsonl",
    "claude-transcript/transcript_tools_basic.jsonl",
];

/// Several megabytes of clean sessions in one file.
fn big_file() -> std::path::PathBuf {
    let mut big = Vec::new();
    while big.len() < 8 << 20 {
        for name in ["claude/tools_basic.jsonl", "claude/edit_write.jsonl"] {
            big.extend_from_slice(&read(&fixture(name)));
        }
    }
    temp_file("big.jsonl", &big)
}

fn bash_available() -> bool {
    Command::new("bash")
        .arg("-c")
        .arg("true")
        .status()
        .is_ok_and(|s| s.success())
}

// ---------------------------------------------------------------- readers that go away

/// `streamview big.jsonl | head -1` in a real shell: head's line, status 0,
/// nothing on stderr; both formats, file and stdin.
#[test]
fn head_1_ends_quietly_with_status_0() {
    if !bash_available() {
        eprintln!("no bash: skipped");
        return;
    }
    let big = big_file();
    let bin = assert_cmd::cargo::cargo_bin("streamview");
    for script in [
        r#""$0" "$1" | head -1; echo "status ${PIPESTATUS[0]}""#,
        r#""$0" --format jsonl "$1" | head -1; echo "status ${PIPESTATUS[0]}""#,
        r#""$0" -v < "$1" | head -1; echo "status ${PIPESTATUS[0]}""#,
        r#"cat "$1" | "$0" --format jsonl | head -1; echo "status ${PIPESTATUS[1]}""#,
    ] {
        let o = Command::new("bash")
            .arg("-c")
            .arg(script)
            .arg(&bin)
            .arg(&big)
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(out.lines().count(), 2, "{script}: {out}");
        assert!(out.ends_with("status 0\n"), "{script}: {out}");
        assert_eq!(err, "", "{script}");
    }
}

// ---------------------------------------------------------------- unwritable stdout

/// A full disk: one line that says so, status 2, whatever the input holds
/// (errors that would be mirrored, lines that would be reported).
#[test]
fn a_full_disk_is_one_clear_error_and_status_2() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("no /dev/full: skipped");
        return;
    }
    let mut input = read(&fixture("claude/tool_errors.jsonl"));
    input.extend_from_slice(b"{not json\n");
    let path = temp_file("full.jsonl", &input);
    for args in [
        &[][..],
        &["--format", "jsonl"],
        &["-v"],
        &["--color", "always"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = sv_std()
            .args(args)
            .arg(&path)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8(o.stderr).unwrap(),
            "streamview: cannot write output: No space left on device\n",
            "{args:?}"
        );
    }
}

/// A stdout that cannot be written at all (fd 1 opened read-only, as in
/// `streamview x 1<file`): one clear error, status 2. (Rust's `Stdout`
/// would swallow this `EBADF`; streamview writes through its own handle.)
#[test]
fn an_unwritable_stdout_is_one_clear_error_and_status_2() {
    let read_only = std::fs::File::open(fixture("claude/text_only.jsonl")).unwrap();
    let o = sv_std()
        .arg(fixture("claude/tools_basic.jsonl"))
        .stdout(read_only)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        "streamview: cannot write output: Bad file descriptor\n"
    );
}

/// A closed stdout (`>&-`): the Rust runtime opens `/dev/null` in its place
/// before `main`, so the output is discarded and the status is the
/// session's (documented in docs/usage.md; no way to tell it from
/// `>/dev/null` without guessing).
#[test]
fn a_closed_stdout_is_like_dev_null() {
    if !bash_available() {
        eprintln!("no bash: skipped");
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("streamview");
    let o = Command::new("bash")
        .arg("-c")
        .arg(r#""$0" "$1" >&-; echo "status $?" >&2"#)
        .arg(&bin)
        .arg(fixture("claude/tools_basic.jsonl"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(o.stderr).unwrap(), "status 0\n");
}

// ---------------------------------------------------------------- Ctrl-C

/// Start streamview on a pipe, write `lines`, wait until `ready` shows up
/// on stdout, press Ctrl-C; return status, stdout, stderr.
fn interrupt_after(args: &[&str], lines: &[u8], ready: &str) -> (Option<i32>, String, String) {
    let mut child = sv_std()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(lines).unwrap();
    stdin.flush().unwrap();
    let stderr = drain(child.stderr.take().unwrap());
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let ready = ready.to_string();
    let reader = thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if line.contains(&ready) {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the lines written so far are shown before the interrupt");
    sigint(child.id());
    let status = wait_deadline(&mut child, Duration::from_secs(10));
    drop(stdin);
    (
        status.code(),
        reader.join().unwrap(),
        String::from_utf8(stderr.join().unwrap()).unwrap(),
    )
}

const CALL: &str = r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","usage":{"input_tokens":1200,"output_tokens":5},"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make test"}}]}}"#;
const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","cwd":"/w","tools":["Bash"]}"#;

/// Ctrl-C while the agent is still working (streamview waits on a quiet
/// pipe): the summary so far, status 130.
#[test]
fn ctrl_c_prints_the_summary_so_far_and_exits_130() {
    let input = format!("{INIT}\n{CALL}\n{{broken\n");
    let (code, out, err) = interrupt_after(&[], input.as_bytes(), "▸ Bash make test");
    assert_eq!(code, Some(130), "{out}{err}");
    assert!(
        out.ends_with(
            "▸ Bash make test\n\
             ✗ interrupted (Ctrl-C) before a result\n  \
             interrupted: Bash make test\n  \
             so far: 1 API response · 1 tool call · 1.2k in\n"
        ),
        "{out}"
    );
    // Diagnostics as at the end of input; the failure is not copied to
    // stderr (stdout is a pipe, which carries it).
    assert!(
        err.contains("streamview: <stdin>:3: invalid JSON at byte 1 (unterminated object)"),
        "{err}"
    );
    assert!(err.ends_with("streamview: 1 line skipped\n"), "{err}");
    assert!(
        !err.contains("✗ interrupted (Ctrl-C) before a result"),
        "{err}"
    );
}

#[test]
fn ctrl_c_in_jsonl_keeps_what_was_written_and_exits_130() {
    let input = format!("{INIT}\n{CALL}\n");
    let (code, out, err) = interrupt_after(&["--format", "jsonl"], input.as_bytes(), "tool_call");
    assert_eq!(code, Some(130));
    assert_eq!(out.lines().count(), 3, "{out}");
    for l in out.lines() {
        serde_json::from_str::<serde_json::Value>(l).unwrap();
    }
    assert_eq!(err, "");
}

/// Ctrl-C while a big file is being read (no waiting: the file is read in
/// place and the flag checked before each read): stops within a read,
/// summary so far, status 130.
#[test]
fn ctrl_c_while_reading_a_big_file() {
    let mut big = Vec::new();
    let session = read(&fixture("claude/tools_basic.jsonl"));
    while big.len() < 64 << 20 {
        big.extend_from_slice(&session);
    }
    big.extend_from_slice(format!("{INIT}\n{CALL}\n").as_bytes());
    let path = temp_file("interrupt-big.jsonl", &big);
    let mut child = sv_std()
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("● "), "{first}");
    let started = Instant::now();
    sigint(child.id());
    let out = drain(stdout);
    let err = drain(child.stderr.take().unwrap());
    let status = wait_deadline(&mut child, Duration::from_secs(10));
    let out = String::from_utf8(out.join().unwrap()).unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&err.join().unwrap())
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // Stopped long before the end, with whole lines (the summary of a
    // session in progress when the stop fell inside one).
    let sessions = big.len() / session.len();
    let done = out.matches("✓ done").count();
    assert!(done < sessions / 2, "{done} of {sessions} sessions shown");
    assert!(out.is_empty() || out.ends_with('\n'));
    std::fs::remove_file(&path).unwrap();
}

/// Ctrl-C while `--follow` waits for a log to grow: woken at once.
#[test]
fn ctrl_c_while_following_a_log() {
    let path = temp_file("follow.jsonl", format!("{INIT}\n{CALL}\n").as_bytes());
    let mut child = sv_std()
        .arg("--follow")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if line.contains("▸ Bash") {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let err = drain(child.stderr.take().unwrap());
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the call is shown");
    sigint(child.id());
    let status = wait_deadline(&mut child, Duration::from_secs(10));
    let out = reader.join().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&err.join().unwrap())
    );
    assert!(
        out.contains("✗ interrupted (Ctrl-C) before a result\n  interrupted: Bash make test"),
        "{out}"
    );
}

/// Ctrl-C after the session ended (the agent has not closed the pipe yet):
/// nothing more to say, status 130.
#[test]
fn ctrl_c_after_a_result_adds_nothing() {
    let done =
        r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s1","num_turns":1}"#;
    let input = format!("{INIT}\n{done}\n");
    let (code, out, err) = interrupt_after(&[], input.as_bytes(), "✓ done");
    assert_eq!(code, Some(130));
    assert!(out.ends_with("✓ done · 1 turn\n"), "{out}");
    assert_eq!(err, "");
}

/// Ctrl-C before any event (only a line of text so far): nothing to
/// summarize, and no "no JSON events in the input" advice; status 130.
#[test]
fn ctrl_c_before_any_event() {
    let (code, out, err) = interrupt_after(&[], b"npm WARN something\n", "npm WARN");
    assert_eq!(code, Some(130));
    assert_eq!(out, "npm WARN something\n");
    assert_eq!(err, "");
}

// ---------------------------------------------------------------- slow pipes

/// How to feed a pipe.
#[derive(Clone, Copy, Debug)]
enum Feed {
    /// One byte per write.
    ByteAtATime,
    /// Irregular bursts (1 byte to 5 KB) with pauses.
    Bursty,
    /// One line per write, a millisecond apart, as an agent writes.
    LineByLine,
}

fn feed_through_pipe(args: &[&str], data: &[u8], feed: Feed) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    let mut child = sv_std()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = data.to_vec();
    let writer = thread::spawn(move || {
        let mut state = 0x9e37_79b9_u32;
        let mut rest = &data[..];
        while !rest.is_empty() {
            let n = match feed {
                Feed::ByteAtATime => 1,
                Feed::LineByLine => rest
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(rest.len(), |p| p + 1),
                Feed::Bursty => {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    (state as usize % 5000 + 1).min(rest.len())
                }
            };
            stdin.write_all(&rest[..n]).unwrap();
            stdin.flush().unwrap();
            rest = &rest[n..];
            match feed {
                Feed::ByteAtATime => {}
                Feed::LineByLine => thread::sleep(Duration::from_millis(1)),
                Feed::Bursty => {
                    if state.is_multiple_of(4) {
                        thread::sleep(Duration::from_millis(u64::from(state % 7)));
                    }
                }
            }
        }
    });
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    writer.join().unwrap();
    let status = wait_deadline(&mut child, RUN_LIMIT);
    (status.code(), out.join().unwrap(), err.join().unwrap())
}

/// Through a real pipe, byte by byte, in bursts, or line by line: the same
/// stdout, stderr and status as reading the file — for one stream of each
/// producer, with bad lines, a cut last line, and in both formats.
#[test]
fn slow_bursty_and_byte_at_a_time_pipes_give_the_same_output() {
    let started = Instant::now();
    for (i, name) in CLEAN.iter().enumerate() {
        let mut data = read(&fixture(name));
        // Some bad lines and a cut at the end, for the diagnostics.
        data.splice(0..0, b"{oops\n\xff\xfe\n".iter().copied());
        data.extend_from_slice(br#"{"type":"assistant","message":{"con"#);
        let path = temp_file(&format!("pipe-{i}.jsonl"), &data);
        for args in [&[][..], &["--format", "jsonl"], &["-v"]] {
            let o = sv()
                .args(args)
                .arg("-")
                .write_stdin(data.clone())
                .output()
                .unwrap();
            let from_file = sv().args(args).arg(&path).output().unwrap();
            // The same, the input's name aside.
            let file_name = format!(r#""source":"{}""#, path.display());
            assert_eq!(
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&from_file.stdout)
                    .replace(&file_name, r#""source":"<stdin>""#),
                "{name} {args:?}"
            );
            for feed in [Feed::ByteAtATime, Feed::Bursty, Feed::LineByLine] {
                let (code, out, err) = feed_through_pipe(args, &data, feed);
                assert_eq!(code, o.status.code(), "{name} {args:?} {feed:?}");
                assert_eq!(
                    String::from_utf8_lossy(&out),
                    String::from_utf8_lossy(&o.stdout),
                    "{name} {args:?} {feed:?}"
                );
                assert_eq!(
                    String::from_utf8_lossy(&err),
                    String::from_utf8_lossy(&o.stderr),
                    "{name} {args:?} {feed:?}"
                );
            }
        }
    }
    eprintln!("pipes: {:?}", started.elapsed());
}
