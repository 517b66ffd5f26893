//! `-f A B …` (issue 28): several logs followed at once, each line told
//! apart by its source's label, both sessions to their end.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{fixture, read, sv_std};

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("follow-several-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn two_logs_written_at_once_are_followed_to_their_ends_each_line_labelled() {
    let d = dir("two");
    let (a, b) = (d.join("api.jsonl"), d.join("web.jsonl"));
    let la = read(&fixture("claude/tools_basic.jsonl"));
    let lb = read(&fixture("claude/tool_errors.jsonl"));
    // `web` does not exist yet when streamview starts.
    fs::write(&a, b"").unwrap();
    let child = sv_std()
        .arg("-f")
        .arg(&a)
        .arg(&b)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Both written at once, a line of each in turn.
    let (mut fa, mut fb) = (
        fs::OpenOptions::new().append(true).open(&a).unwrap(),
        fs::File::create(&b).unwrap(),
    );
    let (mut ia, mut ib) = (
        la.split_inclusive(|&c| c == b'\n'),
        lb.split_inclusive(|&c| c == b'\n'),
    );
    loop {
        let (x, y) = (ia.next(), ib.next());
        if x.is_none() && y.is_none() {
            break;
        }
        if let Some(x) = x {
            fa.write_all(x).unwrap();
        }
        if let Some(y) = y {
            fb.write_all(y).unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Every line is one source's, whole.
    for line in text.lines() {
        assert!(
            line.starts_with("[api] ") || line.starts_with("[web] "),
            "{line:?}"
        );
    }
    // Each session shown to its end, its end line naming it.
    assert!(text.contains("[api] ✓ done · 5 turns"), "{text}");
    assert!(text.contains("[web] ✓ done · 8 turns"), "{text}");
    // What each says is its own: `api` reads the README, `web` fails.
    assert!(text.contains("[api] ▸ Read README.md"), "{text}");
    assert!(text.contains("[web] ✗ Read missing.txt failed"), "{text}");
    assert!(!text.contains("[api] ✗"), "{text}");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn two_files_of_one_name_are_told_apart_by_their_folders() {
    let d = dir("same");
    fs::create_dir_all(d.join("a")).unwrap();
    fs::create_dir_all(d.join("b")).unwrap();
    fs::copy(fixture("claude/tools_basic.jsonl"), d.join("a/s.jsonl")).unwrap();
    fs::copy(fixture("claude/text_only.jsonl"), d.join("b/s.jsonl")).unwrap();
    let out = sv_std()
        .arg("-f")
        .arg(d.join("a/s.jsonl"))
        .arg(d.join("b/s.jsonl"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("[a/s] ✓ done"), "{text}");
    assert!(text.contains("[b/s] ✓ done"), "{text}");
    fs::remove_dir_all(&d).unwrap();
}
