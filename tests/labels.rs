//! `--label NAME` (issue 28): every line a labelled run prints starts with
//! `[NAME] `, in every format that prints lines, and leaves whole: two
//! labelled runs writing into one pipe never cut each other's lines.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{fixture, read, run, sv_std, temp_file};

const FIXTURE: &str = "claude/edit_write.jsonl";

fn args_and_fixture<'a>(args: &[&'a str], file: &'a str) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.push(file);
    v
}

/// Every line of `text` starts with `[api] `.
fn all_labelled(what: &str, text: &str) {
    assert!(!text.is_empty(), "{what}: no output");
    for line in text.lines() {
        assert!(line.starts_with("[api] "), "{what}: {line:?}\n{text}");
    }
}

#[test]
fn every_line_of_each_format_for_people_starts_with_the_label() {
    let file = fixture(FIXTURE);
    let file = file.to_str().unwrap();
    for args in [
        &["--label", "api"][..],
        &["--label", "api", "-v", "--summary"],
        &["--label", "api", "--format", "result"],
        &["--label", "api", "--format", "summary"],
        &["--label", "api", "--grep", "notes"],
    ] {
        let out = run(&args_and_fixture(args, file), b"");
        all_labelled(&args.join(" "), &out.out());
        if args.contains(&"--grep") {
            continue; // its lines name the file they are in
        }
        // Unlabelled, the same lines.
        let plain = run(&args_and_fixture(&args[2..], file), b"");
        let (out, plain) = (out.out(), plain.out());
        let unlabelled: Vec<&str> = out.lines().map(|l| &l[6..]).collect();
        assert_eq!(unlabelled, plain.lines().collect::<Vec<_>>());
    }
    // Errors and denials copied to stderr too.
    let errors = fixture("claude/tool_errors.jsonl");
    let out = run(
        &[
            "--label",
            "api",
            "--errors",
            "stderr",
            errors.to_str().unwrap(),
        ],
        b"",
    );
    all_labelled("stderr", &out.err());
    assert!(out.err().contains("[api] ✗"), "{}", out.err());
}

#[test]
fn each_jsonl_event_carries_the_label_and_is_otherwise_unchanged() {
    let file = fixture(FIXTURE);
    let file = file.to_str().unwrap();
    let labelled = run(&["--format", "jsonl", "--label", "web", file], b"");
    let plain = run(&["--format", "jsonl", file], b"");
    let a = common::json_lines(&labelled.stdout);
    let b = common::json_lines(&plain.stdout);
    assert_eq!(a.len(), b.len());
    for (mut a, b) in a.into_iter().zip(b) {
        assert_eq!(a["label"], "web");
        assert_eq!(b["label"], serde_json::Value::Null);
        a["label"] = serde_json::Value::Null;
        assert_eq!(a, b);
    }
}

#[test]
fn a_label_must_be_printable_text() {
    for bad in ["", " ", "a\x1b[2Jb", "a\nb", &"x".repeat(33)] {
        let out = run(&["--label", bad, "-"], b"");
        assert_eq!(out.code, 2, "{bad:?}: {}", out.err());
        assert!(out.err().contains("label"), "{}", out.err());
    }
}

/// `copies` sessions of `name` in one file.
fn repeated(name: &str, copies: usize) -> std::path::PathBuf {
    let one = read(&fixture(name));
    let file = format!("labels-{}-{copies}.jsonl", name.replace('/', "-"));
    temp_file(&file, &one.repeat(copies))
}

fn output_of(args: &[&str], file: &Path) -> String {
    let out = sv_std().args(args).arg(file).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// `a | streamview --label a & b | streamview --label b`, both into one
/// pipe read slowly (so that the writers wait on it and their writes
/// meet): each line is whole, and each run's lines are its output, in
/// order.
#[test]
fn two_labelled_runs_into_one_pipe_never_cut_each_others_lines() {
    // Streamed text (lines built of many events) and a tool-heavy session.
    let a_file = repeated("claude/partial_messages.jsonl", 300);
    let b_file = repeated("claude/tools_basic.jsonl", 300);
    let a_alone = output_of(&["--label", "a", "-v"], &a_file);
    let b_alone = output_of(&["--label", "b", "-v"], &b_file);
    assert!(a_alone.len() > 100_000 && b_alone.len() > 100_000);

    let (mut reader, writer) = std::io::pipe().unwrap();
    let spawn = |label: &str, file: &Path| {
        sv_std()
            .args(["--label", label, "-v"])
            .arg(file)
            .stdout(Stdio::from(writer.try_clone().unwrap()))
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut a = spawn("a", &a_file);
    let mut b = spawn("b", &b_file);
    drop(writer);
    let mut both = Vec::new();
    let mut chunk = vec![0; 3000];
    loop {
        let n = reader.read(&mut chunk).unwrap();
        if n == 0 {
            break;
        }
        both.extend_from_slice(&chunk[..n]);
        // A slow reader: the pipe fills, both writers wait on it.
        std::thread::sleep(Duration::from_millis(5));
    }
    a.wait().unwrap();
    b.wait().unwrap();
    let both = String::from_utf8(both).expect("no line cut inside a character");
    let (mut from_a, mut from_b) = (String::new(), String::new());
    for line in both.lines() {
        let to = match &line.get(..4) {
            Some("[a] ") => &mut from_a,
            Some("[b] ") => &mut from_b,
            _ => panic!("a line cut by another: {line:?}"),
        };
        to.push_str(line);
        to.push('\n');
    }
    assert!(from_a == a_alone, "the lines of a, whole and in order");
    assert!(from_b == b_alone, "the lines of b, whole and in order");
}

/// Run the shell command `cmd` on a pseudo-terminal (util-linux `script`).
fn under_pty(cmd: &str) -> String {
    let out = Command::new("script")
        .args(["-q", "-e", "-c", cmd, "/dev/null"])
        .env("TERM", "xterm-256color")
        .env("STREAMVIEW_CONFIG", "")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("util-linux `script` runs a command under a pseudo-terminal; install util-linux");
    String::from_utf8(out.stdout).unwrap()
}

/// On a terminal the label has a colour of its own, before each line's
/// own colours, and the status line starts with it too.
#[test]
fn on_a_terminal_the_label_is_coloured_and_starts_the_status_line() {
    let text = String::from_utf8(read(&fixture(FIXTURE))).unwrap();
    let (head, tail) = text.split_at(text.find("\n{").unwrap() + 1);
    let head = temp_file("labels-pty-head.jsonl", head.as_bytes());
    let tail = temp_file("labels-pty-tail.jsonl", tail.as_bytes());
    let cmd = format!(
        "(cat '{}'; sleep 1.5; cat '{}') | '{}' --label api --status-wait 1",
        head.display(),
        tail.display(),
        env!("CARGO_BIN_EXE_streamview")
    );
    let out = under_pty(&cmd);
    let label = "\x1b[1m\x1b[38;5;12m[api]\x1b[0m ";
    // Every line of the output (the status line's draws and erases
    // apart) starts with the coloured label.
    let lines: Vec<&str> = out
        .split("\r\n")
        .map(|l| l.rsplit("\r\x1b[2K").next().unwrap())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(lines.len() > 5, "{out:?}");
    for line in &lines {
        assert!(line.starts_with(&format!("\x1b[0m{label}")), "{line:?}");
    }
    assert!(out.contains("\x1b[1m\x1b[36m● claude"), "{out:?}");
    // The status line was drawn, labelled.
    assert!(out.contains(&format!("\x1b[?7l\x1b[0m{label}")), "{out:?}");
    // --color never: the label without colour.
    let plain = under_pty(&cmd.replace("--label", "--color never --label"));
    assert!(plain.contains("[api] ● claude"), "{plain:?}");
    assert!(!plain.contains("\x1b[1m"), "{plain:?}");
}
