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
    let d = dir();
    let (a, b) = (d.join("a.jsonl"), d.join("b.jsonl"));
    std::fs::write(&a, before).unwrap();
    std::fs::write(&b, after).unwrap();
    format!(
        "(cat {}; sleep {PAUSE}; cat {}) | {} {args}",
        quote(&a),
        quote(&b),
        quote(Path::new(env!("CARGO_BIN_EXE_streamview")))
    )
}

/// Run `pipeline(args)` with streamview's stdout on a pseudo-terminal;
/// returns what the terminal received and the run's duration.
fn under_pty(input: &(String, String), args: &str) -> (String, Duration) {
    let start = Instant::now();
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &pipeline(input, args), "/dev/null"])
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
        out.contains("⏳ waiting 1s — last: Bash npm test"),
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

#[test]
fn no_status_line_while_text_streams_mid_line() {
    // A partial-messages stream that stops in the middle of a sentence.
    let fixture = std::fs::read_to_string("tests/fixtures/claude/partial_messages.jsonl").unwrap();
    let lines: Vec<&str> = fixture.lines().collect();
    let cut = lines
        .iter()
        .position(|l| l.contains(r#""text":"I'll start by reading th""#))
        .unwrap();
    let input = (
        lines[..=cut].join("\n") + "\n",
        lines[cut + 1..].join("\n") + "\n",
    );
    let (out, _) = under_pty(&input, "--color never --status-wait 1");
    let from = out.find("reading th").unwrap();
    let to = from + out[from..].find("e README.").unwrap();
    assert_eq!(&out[from..to], "reading th", "{out:?}");
    // Once the line is complete, it comes back.
    assert!(out[to..].contains(DRAW), "{out:?}");
}
