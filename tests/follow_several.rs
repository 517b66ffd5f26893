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
    each_line_labelled(&text);
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

#[test]
fn latest_n_follows_the_n_sessions_written_last_each_labelled() {
    let d = dir("latest");
    let p = d.join("-home-dev-app");
    fs::create_dir_all(&p).unwrap();
    let old = p.join("00000000-0000-0000-0000-000000000000.jsonl");
    fs::write(&old, read(&fixture("claude/tools_basic.jsonl"))).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let names = [
        "11111111-2222-3333-4444-555555555555",
        "66666666-7777-8888-9999-aaaaaaaaaaaa",
    ];
    let logs = [
        read(&fixture("claude/tools_basic.jsonl")),
        read(&fixture("claude/tool_errors.jsonl")),
    ];
    let paths: Vec<PathBuf> = names.iter().map(|n| p.join(format!("{n}.jsonl"))).collect();
    // Their first lines only, for now.
    for (path, log) in paths.iter().zip(&logs) {
        let first = log.split_inclusive(|&c| c == b'\n').next().unwrap();
        fs::write(path, first).unwrap();
    }
    let child = sv_std()
        .arg("--latest=2")
        .arg("-f")
        .arg(&d)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    for (path, log) in paths.iter().zip(&logs) {
        let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
        for line in log.split_inclusive(|&c| c == b'\n').skip(1) {
            f.write_all(line).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    // Labelled by the ids' first 8 characters; the older session unread.
    for line in text.lines() {
        assert!(
            line.starts_with("[11111111] ") || line.starts_with("[66666666] "),
            "{line:?}"
        );
    }
    assert!(text.contains("[11111111] ✓ done · 5 turns"), "{text}");
    assert!(
        text.contains("[66666666] ✗ Read missing.txt failed"),
        "{text}"
    );
    assert!(
        err.contains("one of the 2 latest sessions; following it as [11111111]"),
        "{err}"
    );
    assert!(!err.contains("00000000"), "{err}");
}

#[test]
fn one_label_per_file_names_each_and_a_wrong_count_is_refused() {
    let d = dir("per-file");
    let (a, b) = (d.join("a.jsonl"), d.join("b.jsonl"));
    fs::write(&a, read(&fixture("claude/tools_basic.jsonl"))).unwrap();
    fs::write(&b, read(&fixture("claude/tool_errors.jsonl"))).unwrap();
    let out = sv_std()
        .args(["--label", "api", "--label", "web", "-f"])
        .arg(&a)
        .arg(&b)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    each_line_labelled(&text);
    assert!(text.contains("[api] ✓ done · 5 turns"), "{text}");
    assert!(text.contains("[web] ✗ Read missing.txt failed"), "{text}");
    // Three labels for two files; two labels for one.
    for args in [
        &["--label", "x", "--label", "y", "--label", "z", "-f"][..],
        &["--label", "x", "--label", "y"][..],
    ] {
        let out = sv_std().args(args).arg(&a).arg(&b).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("--label is given"), "{err}");
    }
}

/// Every line of `text` is one source's, whole: `[api] ` or `[web] `.
fn each_line_labelled(text: &str) {
    for line in text.lines() {
        assert!(
            line.starts_with("[api] ") || line.starts_with("[web] "),
            "{line:?}"
        );
    }
}
