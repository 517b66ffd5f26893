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
    on_terminal_of(COLS, args, file)
}

/// The same on a terminal of `cols` columns.
fn on_terminal_of(cols: usize, args: &str, file: &Path) -> String {
    let cmd = format!(
        "stty cols {cols} rows 40; {} {args} {}",
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
    // The end line leaves out on a terminal what does not fit.
    let before_end = |s: &str| -> String { s[..s.find("✓ done").unwrap()].to_string() };
    assert_eq!(
        words(&before_end(&out)),
        words(&before_end(&piped)),
        "{out}\n---\n{piped}"
    );
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

/// What a pipe receives from `streamview --color never FILE`.
fn into_a_pipe(file: &Path) -> String {
    let out = common::sv()
        .args(["--color", "never"])
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The words of `s`, the bars left out.
fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().filter(|w| *w != "│").collect()
}

#[test]
fn the_main_agents_text_and_the_end_line_wrap_between_words() {
    // Issue 49 §8: at 60 columns a terminal showed `mysel|f`, `ca|che read`.
    let file = common::fixture("claude/subagent.jsonl");
    let out = on_terminal("--color never --no-status --paging never", &file);
    let lines: Vec<&str> = out.lines().collect();
    for l in &lines {
        assert!(columns(l) <= COLS, "{l:?} in\n{out}");
    }
    // The main agent's last text: cut after its last space that fits.
    let at = lines
        .iter()
        .position(|l| l.starts_with("Both agents reported back:"))
        .expect(&out);
    assert!(lines[at].ends_with("greeting and "), "{out}");
    assert_eq!(lines[at + 1], "`src/lib.rs` has 3 lines.", "{out}");
    // The end line drops what matters least first (the cache share, the
    // turns, the duration); what is left is cut between words.
    let end = &lines[at + 2..].join(" ");
    assert!(end.starts_with("✓ done · $0.0664 · main 3.7k in"), "{out}");
    assert!(!end.contains("cache"), "{out}");
    // The same words as into a pipe, the end line aside.
    let piped = into_a_pipe(&file);
    let body = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.starts_with("✓ done"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let before_end = lines[..at + 2].join("\n");
    assert_eq!(words(&before_end), words(&body(&piped)), "{out}");
    // Only the cache share is too much: only it goes.
    let other = on_terminal(
        "--color never --no-status --paging never",
        &common::fixture("claude/tools_basic.jsonl"),
    );
    assert!(
        other.contains("\n✓ done · 5 turns · 570ms · $0.0528 · 9.4k in / 228 out\n"),
        "{other}"
    );
}

#[test]
fn streamed_text_wraps_between_words_as_it_arrives() {
    // `--include-partial-messages`: the text comes a few characters at a
    // time, words cut across fragments (`consist` + `ent.`).
    let file = common::fixture("claude/partial_messages.jsonl");
    let out = on_terminal_of(24, "--color never --no-status --paging never", &file);
    let lines: Vec<&str> = out.lines().collect();
    let from = lines
        .iter()
        .position(|l| *l == "The project has:")
        .expect(&out);
    let to = (lines.iter().position(|l| l.ends_with("consistent."))).expect(&out);
    for l in &lines[from..=to] {
        assert!(columns(l) <= 24, "{l:?} in\n{out}");
    }
    assert_eq!(lines[to], "consistent.", "{out}");
    // The same words as into a pipe.
    let piped = into_a_pipe(&file);
    let text = &piped[piped.find("The project has:").unwrap()..];
    let text = &text[..text.find("consistent.").unwrap() + "consistent.".len()];
    assert_eq!(words(&lines[from..=to].join("\n")), words(text), "{out}");
}
