//! `--grep` (issue 17): the events whose words match, in ripgrep's manner,
//! over real captures of every agent; grep's exit statuses.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use common::{fixture, sv};

fn grep(args: &[&str]) -> (Option<i32>, String, String) {
    grep_in(args, &fixture(""))
}

fn grep_in(args: &[&str], path: &std::path::Path) -> (Option<i32>, String, String) {
    let o = sv()
        .args(["--color", "never"])
        .args(args)
        .arg(path)
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
    for agent in [
        "codex", "gemini", "opencode", "qwen", "copilot", "droid", "pi", "cline", "kilo",
    ] {
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

/// `word` looked for in every decoded line: its last letter as `\xNN`
/// (no raw pre-check for a pattern with a backslash).
fn every_line(word: &str) -> String {
    let (head, last) = word.split_at(word.len() - 1);
    format!(r"{head}\x{:02x}", last.as_bytes()[0])
}

/// A projects folder with a transcript and its sub-agents' files (as
/// `tests/library.rs` builds one).
fn projects_with_sub_agents() -> std::path::PathBuf {
    let root = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("grep-subagents-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let project = root.join("-home-dev-work-project");
    let agents = project.join("6eb7e71f/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let t = |n: &str| fixture(&format!("claude-transcript/{n}"));
    std::fs::copy(
        t("transcript_subagent.jsonl"),
        project.join("6eb7e71f.jsonl"),
    )
    .unwrap();
    for id in ["a8164d334e3dc2758", "abe457c7cccc84957"] {
        let from = t(&format!("transcript_subagent.agent-{id}.jsonl"));
        std::fs::copy(from, agents.join(format!("agent-{id}.jsonl"))).unwrap();
    }
    let later = root.join("-home-dev-work-later/5f1ad5d1");
    std::fs::create_dir_all(later.join("subagents")).unwrap();
    std::fs::copy(
        t("v2.1.330_transcript_subagent.jsonl"),
        later.with_extension("jsonl"),
    )
    .unwrap();
    for id in ["a33c7066d6f0e2ac6", "ab9e7b6a40a741e9b"] {
        let from = t(&format!("v2.1.330_transcript_subagent.agent-{id}.jsonl"));
        std::fs::copy(from, later.join(format!("subagents/agent-{id}.jsonl"))).unwrap();
    }
    root
}

#[test]
fn sub_agents_whose_call_was_skipped_are_found_as_reading_every_line_finds_them() {
    // Words of the sub-agents' lines, and of the notice a sub-agent gets
    // when its Agent call is not read (`… started it is not in this input`).
    let root = projects_with_sub_agents();
    let mut found = 0;
    for word in [
        "hello", "file", "Read", "the", "input", "started", "is not", "nest",
    ] {
        for case in [&[][..], &["-i"][..]] {
            let (_, fast, err) = grep_in(&[case, &["--grep", word]].concat(), &root);
            let (_, slow, _) = grep_in(&[case, &["--grep", &every_line(word)]].concat(), &root);
            assert_eq!(fast, slow, "{case:?} {word}");
            assert_eq!(err, "", "{word}");
            assert!(!fast.contains("un-nested"), "{word}: {fast}");
            found += fast.lines().count();
        }
    }
    assert!(found > 20, "{found}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn words_streamview_writes_itself_are_not_searched() {
    // Notices (`turn started`, `injected by the CLI`, `plan updated`,
    // `context compacted`) and results are streamview's summaries, and a
    // call's summary (`3 items`) is its own too: a line that does not
    // hold the words is skipped, and reading it finds none either.
    for word in [
        "turn started",
        "injected by",
        "plan updated",
        "compacted",
        "API retry",
        "items",
        "still running",
        "un-nested",
    ] {
        let (code, fast, _) = grep(&["--grep", word]);
        let (_, slow, _) = grep(&["--grep", &every_line(word)]);
        assert_eq!(fast, slow, "{word}");
        assert!(!fast.contains(" · "), "{word}: {fast}");
        let _ = code;
    }
    let (code, out, _) = grep(&["--grep", "turn started"]);
    assert_eq!((code, out.as_str()), (Some(1), ""));
    // A notice in the producer's words (an API error's text) is found, as
    // reading every line finds it.
    for word in ["rate limit", "Request rejected"] {
        let (code, fast, _) = grep(&["--grep", word]);
        let (_, slow, _) = grep(&["--grep", &every_line(word)]);
        assert_eq!(fast, slow, "{word}");
        assert_eq!(code, Some(0), "{word}");
        assert!(fast.contains(" · API Error"), "{word}: {fast}");
    }
}

#[test]
fn escaped_characters_are_found_as_reading_every_line_finds_them() {
    // A tab, a quote, a character beyond ASCII written `\u00e9`, and `<`
    // written `\u003c` (Go): `.` and `[^x]` match each, `<` matches it.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("grep-escapes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("escaped.jsonl");
    let lines = [
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","cwd":"/w","tools":[]}"#,
        r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"text","text":"col\tumn and caf\u00e9 bar"}]}}"#,
        r#"{"type":"assistant","session_id":"s1","message":{"id":"m2","content":[{"type":"text","text":"say \"hi\" then \u003cdiv\u003e \u0026 x\/y"}]}}"#,
        r#"{"type":"assistant","session_id":"s1","message":{"id":"m3","content":[{"type":"text","text":"main.rs"}]}}"#,
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    for (pattern, hits) in [
        ("col.umn", 1),
        ("caf.", 1),
        ("caf[^x] bar", 1),
        ("say .hi. then", 1),
        ("<div>", 1),
        ("> & x/y", 1),
        ("^say", 1),
        ("x/y$", 1),
        ("^main.rs$", 1),
        ("^col.umn.*bar$", 1),
        ("^bar", 0),
    ] {
        let (_, out, err) = grep_in(&["--grep", pattern], &file);
        assert_eq!(out.lines().count(), hits, "{pattern}: {out}{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
