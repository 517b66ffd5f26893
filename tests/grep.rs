//! `--grep` (issue 17): the events whose words match, in ripgrep's manner,
//! over real captures of every agent; grep's exit statuses.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use common::{fixture, sv};

fn grep(args: &[&str]) -> (Option<i32>, String, String) {
    let o = sv()
        .args(["--color", "never"])
        .args(args)
        .arg(fixture(""))
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

#[test]
fn matches_are_lines_that_name_file_line_and_session() {
    let (code, out, err) = grep(&["--grep", "definitely/not/here"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err, "");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() > 5, "{out}");
    for l in &lines {
        // FILE:LINE:[SESSION:] then the event.
        let mut parts = l.splitn(3, ':');
        let file = parts.next().unwrap();
        let line: u64 = parts.next().unwrap().parse().expect(l);
        assert!(
            std::path::Path::new(file)
                .extension()
                .is_some_and(|e| e == "jsonl"),
            "{l}"
        );
        assert!(line >= 1);
        assert!(l.contains("definitely/not/here"), "{l}");
    }
    // A failed command's call and its error, of several agents.
    let claude = fixture("claude/tool_errors.jsonl").display().to_string();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("{claude}:")) && l.contains(": ▸ Bash ")),
        "{out}"
    );
    assert!(lines.iter().any(|l| l.contains(": ✗ ")), "{out}");
    for agent in ["codex", "gemini", "opencode", "qwen"] {
        assert!(out.contains(&format!("/{agent}/")), "{agent}: {out}");
    }
}

#[test]
fn grep_exit_statuses() {
    assert_eq!(grep(&["--grep", "no such words anywhere"]).0, Some(1));
    let (code, out, err) = grep(&["--grep", "no such words anywhere"]);
    assert_eq!((code, out.as_str(), err.as_str()), (Some(1), "", ""));
    let (code, _, err) = grep(&["--grep", "(unclosed"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("invalid --grep pattern"), "{err}");
}

#[test]
fn lines_skipped_unread_change_nothing() {
    // `hello` is looked for in raw lines first; `hell\x6f` (the same
    // word) in every decoded line.
    let (_, fast, _) = grep(&["--grep", "hello"]);
    let (_, slow, _) = grep(&["--grep", r"hell\x6f"]);
    assert!(fast.lines().count() > 10);
    assert_eq!(fast, slow);
    let (_, fast, _) = grep(&["-i", "--grep", "HELLO"]);
    let (_, slow, _) = grep(&["--ignore-case", "--grep", r"HELL\x4f"]);
    assert_eq!(fast, slow);
    // Words in the keys of every transcript line (`permissionMode`,
    // `sessionId`): a line that holds them nowhere else is skipped too.
    for (fast, slow) in [
        ("permission", r"permissio\x6e"),
        ("session", r"sessio\x6e"),
        ("Uuid|version", r"Uui\x64|version"),
    ] {
        for case in [&[][..], &["-i"][..]] {
            let (_, fast, _) = grep(&[case, &["--grep", fast]].concat());
            let (_, slow, _) = grep(&[case, &["--grep", slow]].concat());
            assert_eq!(fast, slow, "{case:?} {fast}");
        }
    }
    let (_, out, _) = grep(&["-i", "--grep", "permission"]);
    assert!(out.lines().count() > 3, "{out}");
}

#[test]
fn jsonl_gives_the_matching_events() {
    let (code, out, _) = grep(&["--format", "jsonl", "--grep", "greet"]);
    assert_eq!(code, Some(0));
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(events.len() > 5);
    for e in &events {
        assert!(e.to_string().contains("greet"), "{e}");
        assert_ne!(e["kind"], "delta");
    }
}
