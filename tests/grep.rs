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
        // A session of a store is named `<database>#<session id>`.
        let file = file.split_once('#').map_or(file, |(db, _)| db);
        assert!(
            // A log, Cline's saved messages (`<id>.messages.json`), or a
            // store (Hermes' `state.db`, OpenClaw's `*.sqlite`).
            std::path::Path::new(file)
                .extension()
                .is_some_and(|e| ["jsonl", "json", "db", "sqlite"].contains(&e.to_str().unwrap())),
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
        // No notice (`SESSION: · …`); ` · ` also parts a call from the
        // field of its input that holds the match.
        assert!(!fast.contains(": · "), "{word}: {fast}");
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

/// Claude Code's projects folder of `growing/` (issue 26): a session with
/// two sub-agents in `<session>/subagents/`, and two sessions without.
fn growing() -> std::path::PathBuf {
    fixture("claude-transcript/growing/projects")
}

/// Line `n` (1-based) of `file`.
fn line_of(file: &str, n: usize) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines().nth(n - 1).unwrap_or_default().to_string()
}

/// `FILE:LINE:` of a match line.
fn file_and_line(l: &str) -> (&str, usize) {
    let mut parts = l.splitn(3, ':');
    let file = parts.next().unwrap();
    (file, parts.next().unwrap().parse().expect(l))
}

#[test]
fn a_match_in_a_sub_agent_file_names_that_file_and_its_line() {
    // Issue 26: it was `<session>.jsonl:62:`, a line past the end of the
    // session's 51-line file (the line's number in the merged input).
    let project = growing().join("-home-dev-work-a2-subagent-project");
    for j in ["-j1", "-j2"] {
        let (code, out, err) = grep_in(&[j, "--grep", "hello"], &project);
        assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
        let mut in_sub_agent = 0;
        for l in out.lines() {
            let (file, n) = file_and_line(l);
            // The line named holds the words (a call's input, the text).
            assert!(line_of(file, n).contains("hello"), "{l}");
            if file.contains("/subagents/agent-a123725fb86d77dbf.jsonl") {
                in_sub_agent += 1;
            }
        }
        // By hand: its prompt (line 1), its Read call (15), its answer (22).
        assert_eq!(in_sub_agent, 3, "{out}");
    }
    // Qwen Code's `subagents/<session>/`: the same.
    let qwen = fixture("qwen-session/subagent");
    let (_, out, _) = grep_in(&["--grep", "workspace"], &qwen);
    assert!(out.contains("/subagents/"), "{out}");
    for l in out.lines() {
        let (file, n) = file_and_line(l);
        assert!(line_of(file, n).contains("workspace"), "{l}");
    }
    // Gemini CLI's `chats/<parent id>/`: a session of its own.
    let gemini = fixture("gemini-session/subagent");
    let (_, out, _) = grep_in(&["-i", "--grep", "file"], &gemini);
    assert!(out.lines().count() > 1, "{out}");
    for l in out.lines() {
        let (file, n) = file_and_line(l);
        assert!(line_of(file, n).to_lowercase().contains("file"), "{l}");
    }
}

#[test]
fn files_with_matches_and_counts_name_each_file_as_rg_would() {
    let root = growing();
    let session =
        root.join("-home-dev-work-a2-subagent-project/516cf3e6-3244-473e-a21c-0d4cee136cbb");
    let main = session.with_extension("jsonl").display().to_string();
    let agent = session
        .join("subagents/agent-a123725fb86d77dbf.jsonl")
        .display()
        .to_string();
    let thinking = root
        .join("-home-dev-work-a2-thinking/c59622bb-43e6-412d-98b0-fcc05a374e4b.jsonl")
        .display()
        .to_string();
    let tools = root
        .join("-home-dev-work-a2-tools-basic/0a81292a-4b59-40b3-9798-2e8ae72f2c18.jsonl")
        .display()
        .to_string();
    // By hand, the events that say `hello`: the session's Agent call (line
    // 23), its answer (34) and the sub-agent's notification (39), not the
    // launch's result (24), the request copies (28, 40) or the queue (36);
    // the sub-agent's prompt, Read call and answer (1, 15, 22); thinking's
    // prompt, thought, call, output and answer (3, 22, 24, 25, 32);
    // tools-basic's two outputs, a call, an output, the answer (29, 35,
    // 38, 39, 41).
    for j in ["-j1", "-j2"] {
        let (code, out, _) = grep_in(&[j, "--grep", "hello", "-c"], &root);
        assert_eq!(code, Some(0));
        assert_eq!(
            out,
            format!("{thinking}:5\n{tools}:5\n{main}:3\n{agent}:3\n"),
            "{j}"
        );
        let (_, out, _) = grep_in(&[j, "--grep", "hello", "-l"], &root);
        assert_eq!(
            out,
            format!("{thinking}\n{tools}\n{main}\n{agent}\n"),
            "{j}"
        );
    }
    // The counts are the lines `--grep` prints for each file.
    let (_, lines, _) = grep_in(&["--grep", "hello"], &root);
    for (file, n) in [(&thinking, 5), (&tools, 5), (&main, 3), (&agent, 3)] {
        let prefix = format!("{file}:");
        let count = lines.lines().filter(|l| l.starts_with(&prefix)).count();
        assert_eq!(count, n, "{file}");
    }
    // Nothing matched: nothing printed, status 1.
    let (code, out, _) = grep_in(&["--grep", "no such words", "-c"], &root);
    assert_eq!((code, out.as_str()), (Some(1), ""));
}

#[test]
fn context_shows_the_events_around_each_match() {
    let file = fixture("claude/edit_write.jsonl");
    let f = file.display().to_string();
    // By hand (the pretty view with -v): before the Write, its TodoWrite's
    // result (line 3); after, the Write's result (5); the Read's output
    // (9) before the Edit of `greet` into `welcome`, its result (11)
    // after. The API calls' usage lines are not events --grep shows.
    let (code, out, err) = grep_in(&["--grep", "welcome|second", "-C", "1"], &file);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let heads: Vec<String> = out
        .lines()
        .map(|l| l.strip_prefix(&f).unwrap_or(l).chars().take(16).collect())
        .collect();
    assert_eq!(
        heads,
        [
            "-3-5e70ecd8- ⎿ T",
            ":4:5e70ecd8: ▸ W",
            "-5-5e70ecd8- ⎿ F",
            "--",
            "-9-5e70ecd8- ⎿ 1",
            ":10:5e70ecd8: ▸ ",
            "-11-5e70ecd8- ⎿ ",
        ],
        "{out}"
    );
    // Five events apart (lines 5 to 9): with -C 2 one is left out
    // between the groups, with -C 3 none, and they join.
    let (_, out, _) = grep_in(&["--grep", "welcome|second", "-C", "2"], &file);
    assert_eq!(out.lines().filter(|l| l == &"--").count(), 1, "{out}");
    assert_eq!(out.lines().count(), 2 + 4 + 4 + 1, "{out}");
    let (_, out, _) = grep_in(&["--grep", "welcome|second", "-C", "3"], &file);
    assert!(!out.lines().any(|l| l == "--"), "{out}");
    // Over every fixture: the matches are those found without -C, and each
    // line names a line of its file.
    let (_, plain, _) = grep(&["--grep", "hello"]);
    let (_, around, _) = grep(&["--grep", "hello", "-C", "2"]);
    assert!(around.lines().any(|l| l == "--"));
    let matches: Vec<&str> = around.lines().filter(|l| is_match_line(l)).collect();
    assert_eq!(matches, plain.lines().collect::<Vec<_>>());
    assert!(around.lines().count() > plain.lines().count() * 2);
}

/// A line of `--grep -C` is a match's (`FILE:LINE:`), not an event's
/// around it (`FILE-LINE-SESSION- ⎿ …`, whose first `:` comes after the
/// space before its text): the fixtures' paths hold neither `:` nor a space.
fn is_match_line(l: &str) -> bool {
    l.split_once(':')
        .is_some_and(|(file, _)| !file.contains(' '))
}

#[test]
fn a_match_in_a_call_input_shows_the_call_and_the_field() {
    let file = fixture("claude/edit_write.jsonl");
    let f = file.display().to_string();
    let (_, out, _) = grep_in(&["--grep", "welcome"], &file);
    assert_eq!(
        out,
        format!("{f}:10:5e70ecd8: ▸ Edit hello.py · new_string: welcome\n")
    );
    let (_, out, _) = grep_in(&["--grep", "Edit the"], &file);
    assert_eq!(
        out,
        format!(
            "{f}:2:5e70ecd8: ▸ TodoWrite 3 items · todos[1].content: Edit the notes file\n\
             {f}:14:5e70ecd8: ▸ TodoWrite 3 items · todos[1].content: Edit the notes file\n"
        )
    );
    // The match in colour, in the field's text.
    let o = sv()
        .args(["--color", "always", "--grep", "first item"])
        .arg(&file)
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains(
            "▸ Edit notes/todo.md · old_string: - [ ] \u{1b}[0m\u{1b}[1m\u{1b}[31mfirst item"
        ),
        "{out:?}"
    );
    // No call of any fixture is shown as its input's JSON where a field
    // holds the match (a match in a key only is: `▸ todo_list {"items":…`).
    let (_, out, _) = grep(&["--grep", "notes|hello|greet"]);
    for l in out.lines().filter(|l| l.contains(": ▸ ")) {
        assert!(!l.contains("\":\""), "{l}");
    }
}

#[test]
fn grep_only_options_are_refused_elsewhere() {
    let file = fixture("claude/edit_write.jsonl");
    for args in [
        &["-l"][..],
        &["-c"],
        &["-C", "2"],
        &["--grep", "x", "-l", "-c"],
        &["--grep", "x", "-C", "1", "-l"],
        &["--grep", "x", "-c", "--format", "jsonl"],
    ] {
        let (code, out, err) = grep_in(args, &file);
        assert_eq!((code, out.as_str()), (Some(2), ""), "{args:?}");
        assert!(err.starts_with("error: -"), "{args:?}: {err}");
        assert_eq!(err.lines().next().map(str::len), err.find('\n'), "{err}");
    }
}

#[test]
fn claudes_tool_errors_show_without_their_tags() {
    // Issue 49 §12: as the pretty view shows them.
    let file = fixture("claude/tool_errors.jsonl");
    let (code, out, err) = grep_in(&["--grep", "not been read"], &file);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains(": ✗ File has not been read yet. Read it first before writing to it.\n"),
        "{out}"
    );
    assert!(!out.contains("tool_use_error"), "{out}");
    // The line of an error around a match (`-C`) too.
    let (_, around, _) = grep_in(&["--grep", "not been read", "-C", "1"], &file);
    assert!(!around.contains("tool_use_error"), "{around}");
}
