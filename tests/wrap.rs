//! Long nested lines on a terminal (issue 15): a sub-agent's line wider than
//! the terminal is wrapped by streamview under its `│` bars, a result body
//! under its indentation; into a pipe nothing is wrapped. The terminal is a
//! pseudo-terminal from util-linux `script`, 60 columns wide.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

const COLS: usize = 60;

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// What a `COLS`-column terminal receives from `streamview ARGS FILE`, its
/// line ends as written (the terminal's `\r\n` made `\n`).
fn on_terminal(args: &str, file: &Path) -> String {
    let cmd = format!(
        "stty cols {COLS} rows 40; {} {args} {}",
        quote(Path::new(env!("CARGO_BIN_EXE_streamview"))),
        quote(file)
    );
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("util-linux `script` runs a command under a pseudo-terminal; install util-linux");
    String::from_utf8(out.stdout).unwrap().replace("\r\n", "\n")
}

fn columns(line: &str) -> usize {
    line.chars().count()
}

fn subagents() -> PathBuf {
    common::fixture("claude-2.1.330/subagent.jsonl")
}

#[test]
fn nested_lines_wrap_under_their_bars_on_a_terminal() {
    // (`--paging never`: a replay on a terminal would go into the pager.)
    let out = on_terminal("--color never --no-status --paging never", &subagents());
    let lines: Vec<&str> = out.lines().collect();
    // The sub-agent's answer: cut at the last space that fits, continued
    // under the bars, not at column 0 and not inside a word.
    let at = lines
        .iter()
        .position(|l| l.starts_with("  │ [Inspect Python code] hello.py defines"))
        .expect(&out);
    assert!(columns(lines[at]) <= COLS, "{out}");
    assert!(lines[at].ends_with("and "), "{out}");
    assert_eq!(lines[at + 1], "  │ prints a greeting.", "{out}");
    // Every nested line fits, so none is wrapped by the terminal.
    for l in lines.iter().filter(|l| l.starts_with("  │ ")) {
        assert!(columns(l) <= COLS, "{l:?}");
    }
    // The same words, wrapped or not.
    let piped = common::sv()
        .args(["--color", "never"])
        .arg(subagents())
        .output()
        .unwrap();
    let piped = String::from_utf8(piped.stdout).unwrap();
    // (the bars and spaces left out, the lines joined).
    let words = |s: &str| -> String {
        s.lines()
            .flat_map(|l| l.chars().filter(|c| !matches!(c, '│' | ' ')))
            .collect()
    };
    assert_eq!(words(&out), words(&piped), "{out}\n---\n{piped}");
}

#[test]
fn a_pipe_gets_long_lines_whole() {
    let piped = common::sv()
        .args(["--color", "never"])
        .arg(subagents())
        .output()
        .unwrap();
    let piped = String::from_utf8(piped.stdout).unwrap();
    assert!(
        piped.contains(
            "  │ [Inspect Python code] hello.py defines greet() and prints a greeting.\n"
        ),
        "{piped}"
    );
}
