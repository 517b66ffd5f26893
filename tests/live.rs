//! The live side: `--follow` renders lines appended to a file after it
//! started and exits by itself after the result.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(20);

#[test]
fn follow_renders_appended_lines_and_stops_after_the_result() {
    let fixture = std::fs::read_to_string("tests/fixtures/claude/tools_basic.jsonl").unwrap();
    let lines: Vec<&str> = fixture.lines().collect();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("follow");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("session.jsonl");
    // The agent has written its first two lines so far.
    std::fs::write(&path, format!("{}\n{}\n", lines[0], lines[1])).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(["--color", "never", "-f"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    // What was there at the start is rendered…
    let first = rx.recv_timeout(DEADLINE).expect("the header is rendered");
    assert!(first.starts_with("● "), "{first}");
    let text = rx
        .recv_timeout(DEADLINE)
        .expect("the first text is rendered");
    assert_eq!(text, "I'll start by reading the README.");
    // …and so is what the agent appends later, while streamview waits.
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    for l in &lines[2..] {
        writeln!(log, "{l}").unwrap();
        log.flush().unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut rest = Vec::new();
    while let Ok(l) = rx.recv_timeout(DEADLINE) {
        let done = l.starts_with("✓ done");
        rest.push(l);
        if done {
            break;
        }
    }
    assert!(rest.iter().any(|l| l.starts_with("▸ Bash")), "{rest:?}");
    assert!(rest.last().unwrap().starts_with("✓ done"), "{rest:?}");
    // It stops by itself after the result (a grace period of quiet).
    let mut waited = Duration::ZERO;
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(waited < DEADLINE, "--follow did not stop after the result");
        std::thread::sleep(Duration::from_millis(50));
        waited += Duration::from_millis(50);
    };
    assert_eq!(status.code(), Some(0));
}

#[test]
fn follow_needs_a_file() {
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .arg("-f")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("standard input cannot be followed"), "{err}");
}
