//! The live status line (issue 4): drawn under a pseudo-terminal while the
//! agent is quiet, erased before every other output and at the end, never
//! written into a pipe. The pseudo-terminal comes from util-linux `script`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s","model":"claude-test","cwd":"/w","tools":["Bash"]}"#;
const TEXT: &str = r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"text","text":"Running the tests."}],"usage":{"input_tokens":1200,"output_tokens":30}}}"#;
const CALL: &str = r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test"}}]}}"#;
const RESULT: &str = r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"all 12 passed"}]}}"#;
const FINAL: &str = r#"{"type":"assistant","session_id":"s","message":{"id":"m2","content":[{"type":"text","text":"All tests pass."}]}}"#;
const DONE: &str = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":2,"duration_ms":2100,"total_cost_usd":0.0421,"result":"All tests pass."}"#;

/// Seconds the agent stays quiet while `npm test` runs.
const PAUSE: f64 = 1.6;

const DRAW: &str = "\r\x1b[2K\x1b[?7l";
const DRAW_END: &str = "\x1b[?7h";
const ERASE: &str = "\r\x1b[2K";

/// A directory of its own for each run (tests run in parallel).
fn dir() -> PathBuf {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "status-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The session in two files: before and after the quiet tool run.
fn session() -> (String, String) {
    (
        format!("{INIT}\n{TEXT}\n{CALL}\n"),
        format!("{RESULT}\n{FINAL}\n{DONE}\n"),
    )
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// A shell pipeline that writes `before`, pauses, then writes `after`
/// into streamview.
fn pipeline((before, after): &(String, String), args: &str) -> String {
    pipeline_of(&[before, after], PAUSE, args)
}

/// A shell pipeline that writes `parts` into streamview, `pause` seconds
/// apart.
fn pipeline_of(parts: &[&String], pause: f64, args: &str) -> String {
    let d = dir();
    let mut feed = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let file = d.join(format!("{i}.jsonl"));
        std::fs::write(&file, part).unwrap();
        feed.push(format!("cat {}", quote(&file)));
    }
    format!(
        "({}) | {} {args}",
        feed.join(&format!("; sleep {pause}; ")),
        quote(Path::new(env!("CARGO_BIN_EXE_streamview")))
    )
}

/// Run `pipeline(args)` with streamview's stdout on a pseudo-terminal;
/// returns what the terminal received and the run's duration.
fn under_pty(input: &(String, String), args: &str) -> (String, Duration) {
    run_under_pty(&pipeline(input, args))
}

/// Run the shell command `cmd` on a pseudo-terminal; returns what the
/// terminal received and the run's duration.
fn run_under_pty(cmd: &str) -> (String, Duration) {
    let start = Instant::now();
    let out = Command::new("script")
        .args(["-q", "-e", "-c", cmd, "/dev/null"])
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("util-linux `script` runs a command under a pseudo-terminal; install util-linux");
    assert!(out.status.success(), "exit status {:?}", out.status);
    (String::from_utf8(out.stdout).unwrap(), start.elapsed())
}

/// The terminal output without the status line: every draw and every erase
/// removed.
fn without_status(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(DRAW) {
        out.push_str(&rest[..i]);
        let after = &rest[i + DRAW.len()..];
        let end = after.find(DRAW_END).expect("a draw is closed");
        rest = &after[end + DRAW_END.len()..];
    }
    out.push_str(rest);
    out.replace(ERASE, "")
}

#[test]
fn the_status_line_shows_the_wait_under_a_terminal_and_never_mixes_with_output() {
    let (out, took) = under_pty(&session(), "--color never --status-wait 1");
    // While `npm test` runs it says what is running, then that it waits.
    assert!(out.contains("Bash npm test · "), "{out:?}");
    assert!(
        out.contains("⏳ waiting 1s — Bash npm test · 1s · turn 1"),
        "{out:?}"
    );
    assert!(
        out.contains("turn 1") && out.contains("1.2k tokens"),
        "{out:?}"
    );
    // Redrawn a few times a second at most.
    let draws = out.matches(DRAW).count();
    assert!(draws >= 2, "{draws} draws: {out:?}");
    let limit = usize::try_from(took.as_millis() / 200).unwrap() + 3;
    assert!(draws <= limit, "{draws} draws in {took:?}");
    // Erased at the end: nothing is drawn after the last erase.
    let last_draw = out.rfind(DRAW_END).unwrap();
    let last_erase = out.rfind(ERASE).unwrap();
    assert!(
        last_erase > last_draw,
        "the line is left on screen: {out:?}"
    );
    // Without it, the output is exactly what --no-status prints.
    let (plain, _) = under_pty(&session(), "--color never --no-status");
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert_eq!(without_status(&out), plain);
    assert!(plain.contains("▸ Bash npm test"), "{plain:?}");
    assert!(plain.contains("✓ done"), "{plain:?}");
}

#[test]
fn the_status_line_is_coloured_with_the_output() {
    let (out, _) = under_pty(&session(), "--status-wait 1");
    assert!(out.contains("\x1b[1;33m⏳ waiting"), "{out:?}");
    let (out, _) = under_pty(&session(), "--color never --status-wait 1");
    assert!(
        !out.contains("\x1b[1;33m") && !out.contains("\x1b[2m"),
        "{out:?}"
    );
}

#[test]
fn no_status_line_in_a_pipe_or_for_data_formats() {
    let run = |args: &str| {
        let out = Command::new("sh")
            .args(["-c", &pipeline(&session(), args)])
            .env("TERM", "xterm-256color")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success());
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (out, err) = run("--status-wait 1");
    for s in [&out, &err] {
        assert!(!s.contains('\x1b') && !s.contains("waiting"), "{s:?}");
    }
    assert!(out.contains("▸ Bash npm test"), "{out:?}");
    // On a terminal, JSONL stays data.
    let (out, _) = under_pty(&session(), "--format jsonl --status-wait 1");
    assert!(!out.contains('\x1b') && !out.contains("waiting"), "{out:?}");
    let (piped, _) = run("--format jsonl");
    assert_eq!(out.replace("\r\n", "\n"), piped);
}

/// `fixture`'s lines, cut after the first line that contains `at`.
fn cut_after(fixture: &str, at: &str) -> (String, String) {
    let text = std::fs::read_to_string(fixture).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = lines.iter().position(|l| l.contains(at)).unwrap();
    (
        lines[..=cut].join("\n") + "\n",
        lines[cut + 1..].join("\n") + "\n",
    )
}

#[test]
fn a_stall_mid_line_ends_the_line_and_shows_what_is_stuck() {
    // Issue 15: a partial-messages stream that stops in the middle of a
    // sentence ("reading th|e README."); the status line used to stay away
    // as long as the pause lasted.
    let input = cut_after(
        "tests/fixtures/claude/partial_messages.jsonl",
        r#""text":"I'll start by reading th""#,
    );
    let (out, _) = under_pty(&input, "--color never --status-wait 1");
    let from = out.find("reading th").unwrap();
    let to = from + out[from..].find("e README.").unwrap();
    // The line is ended, then the status line is drawn below it...
    let pause = &out[from..to];
    assert!(pause.starts_with("reading th\r\n"), "{pause:?}");
    assert!(pause.contains(DRAW), "{pause:?}");
    assert!(pause.contains("⏳ waiting 1s — last: text"), "{pause:?}");
    // ...and the text goes on on the next line: nothing lost or repeated,
    // the one change to the output is that line break.
    let (plain, _) = under_pty(&input, "--color never --no-status");
    assert!(plain.contains("reading the README."), "{plain:?}");
    assert_eq!(
        without_status(&out),
        plain.replacen("reading the README.", "reading th\r\ne README.", 1)
    );
    // In a pipe, nothing changes.
    let piped = Command::new("sh")
        .args(["-c", &pipeline(&input, "--status-wait 1")])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(piped.stdout).unwrap(),
        plain.replace("\r\n", "\n")
    );
}

#[test]
fn a_tool_call_whose_input_streams_is_not_left_without_a_status() {
    // Issue 15: `▸ Read` stays alone on its line while the call's input
    // streams. Here its fragments come half a second apart (each one an
    // event: the agent is not quiet), so only the line's own stall ends it.
    let text = std::fs::read_to_string("tests/fixtures/claude/multi_block_partial.jsonl").unwrap();
    let lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
    let start = lines
        .iter()
        .position(|l| l.contains(r#""partial_json":"{\"file_path\": \"/tmp/stre""#))
        .unwrap();
    let mut parts = vec![lines[..=start].concat()];
    parts.extend(lines[start + 1..start + 4].iter().cloned());
    parts.push(lines[start + 4..].concat());
    let parts: Vec<&String> = parts.iter().collect();
    let cmd = pipeline_of(&parts, 0.5, "--color never --status-wait 1");
    let (out, _) = run_under_pty(&cmd);
    let from = out.find("▸ Read").unwrap();
    let to = from + out[from..].find("▸ Read README.md").expect(&out);
    let held = &out[from..to];
    assert!(held.starts_with("▸ Read …\r\n"), "{held:?}");
    assert!(held.contains("Read (input streaming)"), "{held:?}");
    let (plain, _) = run_under_pty(&pipeline_of(&parts, 0.0, "--color never --no-status"));
    assert_eq!(
        without_status(&out),
        plain.replacen("▸ Read README.md", "▸ Read …\r\n▸ Read README.md", 1)
    );
}

#[test]
fn several_followed_files_share_one_status_line_naming_each_and_the_quiet_one() {
    let d = dir();
    let (before, after) = session();
    let (a, b, rest) = (
        d.join("api.jsonl"),
        d.join("web.jsonl"),
        d.join("rest.jsonl"),
    );
    for f in [&a, &b] {
        std::fs::write(f, &before).unwrap();
    }
    std::fs::write(&rest, &after).unwrap();
    // `web` ends first; `api` stays quiet a while longer.
    let cmd = |args: &str| {
        format!(
            "(sleep {PAUSE}; cat {r} >> {b}; sleep {PAUSE}; cat {r} >> {a}) & {sv} -f {a} {b} {args}; wait",
            r = quote(&rest),
            a = quote(&a),
            b = quote(&b),
            sv = quote(Path::new(env!("CARGO_BIN_EXE_streamview"))),
        )
    };
    let (out, _) = run_under_pty(&cmd("--color never --status-wait 1"));
    let draws: Vec<&str> = out
        .split(DRAW)
        .skip(1)
        .map(|d| d.split(DRAW_END).next().unwrap())
        .collect();
    assert!(
        draws
            .iter()
            .any(|d| d.starts_with("[api] ") && d.contains(" │ [web] ")),
        "{draws:?}"
    );
    assert!(
        draws.iter().any(|d| d.contains("quiet longest: [")),
        "{draws:?}"
    );
    assert!(draws.iter().any(|d| d.contains("[web] ended")), "{draws:?}");
    // The output itself: every line whole and labelled, the same lines as
    // without the status line.
    let shown = without_status(&out);
    for t in [&a, &b] {
        std::fs::write(t, &before).unwrap();
    }
    let (plain, _) = run_under_pty(&cmd("--color never --no-status"));
    let lines = |s: &str| {
        let mut l: Vec<String> = s
            .lines()
            .map(|l| l.trim_end_matches('\r').to_string())
            .collect();
        l.sort();
        l
    };
    assert_eq!(lines(&shown), lines(&plain));
    for l in shown.lines().filter(|l| !l.trim().is_empty()) {
        assert!(l.starts_with("[api] ") || l.starts_with("[web] "), "{l:?}");
    }
}
