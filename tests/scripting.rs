//! End-to-end tests of the binary as scripts use it: `--format result` in
//! `answer=$(…)`, the summary formats, `--summary` next to data on stdout,
//! the filters, `--help`/`--version`, colour of the tables.
//!
//! Every run has a hermetic environment (no `NO_COLOR`, `CLICOLOR*`,
//! `STREAMVIEW_*`) and reads only `tests/fixtures`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use common::sv;
use serde_json::Value;

/// A fixture's path, as an argument.
fn fixture(rel: &str) -> String {
    common::fixture(rel).to_str().unwrap().to_string()
}

/// One run, its output as text.
struct Run {
    code: i32,
    out: String,
    err: String,
}

fn run(args: &[&str]) -> Run {
    run_stdin(args, b"")
}

fn run_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let o = common::run(args, stdin);
    Run {
        code: o.code,
        out: o.out(),
        err: o.err(),
    }
}

// ------------------------------------------------------------ --format result

#[test]
fn result_prints_the_answer_and_exit_status_tells() {
    let o = run(&["--format", "result", &fixture("claude/text_only.jsonl")]);
    assert_eq!(o.code, 0);
    assert!(
        o.out.starts_with("This is a tiny demo project"),
        "{}",
        o.out
    );
    assert!(o.out.ends_with("- no tests yet\n"), "{:?}", o.out);
    assert_eq!(o.err, "");

    let o = run(&["--format", "result", &fixture("claude/api_error_500.jsonl")]);
    assert_eq!(o.code, 1);
    assert_eq!(o.out, "", "an error is not an answer");
    assert!(o.err.contains("API Error: 500"), "{}", o.err);

    let bytes = std::fs::read(fixture("claude/tools_basic.jsonl")).unwrap();
    let cut = &bytes[..bytes.len() - 40];
    let o = run_stdin(&["--format", "result"], cut);
    assert_eq!(o.code, 3);
    assert_eq!(o.out, "");
    assert!(o.err.contains("stream ended without a result"), "{}", o.err);
}

/// The documented shell idiom: the answer in a variable, `$?` the outcome.
#[test]
fn result_in_a_shell_variable() {
    let bin = assert_cmd::cargo::cargo_bin("streamview");
    let script = r#"answer=$("$SV" --format result "$F"); echo "status=$? [$answer]""#;
    for (rel, expected) in [
        (
            "codex/text.jsonl",
            "status=0 [Hello! I am a scripted mock model.",
        ),
        (
            "gemini/text.jsonl",
            "status=0 [Hello! I am a scripted mock Gemini model.",
        ),
        ("claude/max_turns.jsonl", "status=1 []"),
    ] {
        let o = std::process::Command::new("sh")
            .args(["-c", script])
            .env("SV", &bin)
            .env("F", fixture(rel))
            .output()
            .unwrap();
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(text.starts_with(expected), "{rel}: {text}");
    }
}

/// Exact bytes through a pipe (like `jq -r`); a terminal would get them
/// sanitized, which `cli::resolve` decides from the terminal check.
#[test]
fn result_is_exact_through_a_pipe() {
    let input = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"model\":\"m\"}\n\
                 {\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"session_id\":\"s\",\"result\":\"red \\u001b[31mX\\u001b[0m\"}\n";
    let o = run_stdin(&["--format", "result"], input.as_bytes());
    assert_eq!(o.code, 0);
    assert_eq!(o.out, "red \x1b[31mX\x1b[0m\n");
}

/// Several sessions: one answer each, in order.
#[test]
fn result_of_several_files() {
    let o = run(&[
        "--format",
        "result",
        &fixture("amp/text.jsonl"),
        &fixture("cursor/text.jsonl"),
    ]);
    assert_eq!(o.code, 0);
    let amp = o.out.find("A stock file is a CSV").unwrap();
    let cursor = o.out.find("I am Cursor").unwrap();
    assert!(amp < cursor, "{}", o.out);
}

// ------------------------------------------------------------------ summary

#[test]
fn summary_json_is_one_line_of_json() {
    let o = run(&[
        "--format",
        "summary-json",
        &fixture("claude/tools_basic.jsonl"),
        &fixture("claude/max_turns.jsonl"),
    ]);
    // A report over several sessions exits 0: the total counts how they ended.
    assert_eq!(o.code, 0, "written");
    assert_eq!(o.out.lines().count(), 1);
    let v: Value = serde_json::from_str(&o.out).unwrap();
    assert_eq!(v["v"], 1);
    assert_eq!(v["total"]["sessions"], 2);
    assert_eq!(v["total"]["outcome"], "error");
    assert!(
        v["sessions"][0]["source"]
            .as_str()
            .unwrap()
            .ends_with("tools_basic.jsonl")
    );
    // The failed session is counted on stderr, in one line.
    assert_eq!(
        o.err,
        "✗ 1 session failed: Reached maximum number of turns (1); --errors stderr lists them\n",
        "{}",
        o.err
    );
}

#[test]
fn a_report_keeps_stderr_to_one_line_per_kind_of_problem() {
    // Claude Code's captures: sessions failed (API errors, limits), some
    // cut before their result.
    let folder = fixture("claude");
    for args in [
        &["--by", "day"][..],
        &["--list"],
        &["--format", "summary"],
        &["--format", "summary-json"],
    ] {
        let o = run(&[args, &[folder.as_str()]].concat());
        assert_eq!(o.code, 0, "{args:?}: {}", o.err);
        let lines: Vec<&str> = o.err.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {}", o.err);
        assert!(
            lines[0].starts_with("✗ 9 sessions failed; "),
            "{args:?}: {}",
            o.err
        );
        assert!(
            lines[0].ends_with("; --errors stderr lists them"),
            "{}",
            o.err
        );
    }
    // Asked for, each one is listed.
    let o = run(&["--by", "day", "--errors", "stderr", &folder]);
    assert!(o.err.lines().count() > 10, "{}", o.err);
    assert!(
        o.err.contains("session failed (error_max_turns)"),
        "{}",
        o.err
    );
}

#[test]
fn jsonl_of_a_folder_exits_0_once_written_a_stream_keeps_its_status() {
    // A `set -e` export script goes on past an old failed session.
    let o = run(&["--format", "jsonl", &fixture("claude")]);
    assert_eq!(o.code, 0, "{}", o.err);
    assert!(o.out.contains(r#""subtype":"error_max_turns""#));
    // One stream, or one file: its own status (1: it failed).
    let o = run(&["--format", "jsonl", &fixture("claude/max_turns.jsonl")]);
    assert_eq!(o.code, 1, "{}", o.err);
    let stream = std::fs::read(common::fixture("claude/max_turns.jsonl")).unwrap();
    let o = run_stdin(&["--format", "jsonl"], &stream);
    assert_eq!(o.code, 1, "{}", o.err);
}

#[test]
fn summary_flag_goes_to_stderr_next_to_data() {
    let o = run(&[
        "--format",
        "jsonl",
        "--summary",
        &fixture("claude/tool_errors.jsonl"),
    ]);
    assert_eq!(o.code, 0);
    for line in o.out.lines() {
        let _: Value = serde_json::from_str(line).unwrap();
    }
    assert!(
        o.err
            .contains("\ntool  kind   calls  errors  denied  time\n"),
        "{}",
        o.err
    );

    // -q: nothing on stdout, the tables on stderr.
    let o = run(&["-q", "--summary", &fixture("claude/tool_errors.jsonl")]);
    assert_eq!(o.out, "");
    assert!(o.err.contains("started "), "{}", o.err);

    // Pretty: on stdout after the result line.
    let o = run(&["--summary", &fixture("claude/text_only.jsonl")]);
    let (before, table) = o.out.rsplit_once("\n\nstarted ").unwrap();
    assert!(before.lines().last().unwrap().starts_with("✓ done"));
    assert!(table.trim_start().starts_with("agent"), "{table}");
}

#[test]
fn summary_tables_are_coloured_only_when_asked() {
    let f = fixture("claude/tools_basic.jsonl");
    let plain = run(&["--format", "summary", &f]);
    assert!(!plain.out.contains('\x1b'));
    let coloured = run(&["--format", "summary", "--color", "always", &f]);
    assert!(coloured.out.contains("\x1b[1m"), "{:?}", coloured.out);
    let forced = sv()
        .args(["--format", "summary", &f])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(String::from_utf8(forced.stdout).unwrap().contains('\x1b'));
    let json = run(&["--format", "summary-json", "--color", "always", &f]);
    assert!(!json.out.contains('\x1b'), "JSON is data: never coloured");
}

// ------------------------------------------------------------------ filters

#[test]
fn only_tools_in_jsonl_keeps_errors_on_stderr() {
    let o = run(&[
        "--format",
        "jsonl",
        "--only",
        "tools",
        &fixture("claude/tool_errors.jsonl"),
    ]);
    assert_eq!(o.code, 0);
    assert_eq!(o.out.lines().count(), 7);
    for line in o.out.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["kind"], "tool_call");
    }
    assert_eq!(o.err.matches("✗ ").count(), 6, "{}", o.err);
}

/// Errors a filter hides go to stderr, each once: as `--errors stderr`
/// copies the shown ones. Into a pipe (as here), shown ones are not copied.
#[test]
fn hide_errors_moves_them_to_stderr_once() {
    let f = fixture("claude/tool_errors.jsonl");
    let shown = run(&["--errors", "stderr", &f]);
    let hidden = run(&["--hide", "errors", &f]);
    assert_eq!(shown.code, hidden.code);
    assert!(!hidden.out.contains("✗ "), "{}", hidden.out);
    assert_eq!(shown.err, hidden.err);
    assert_eq!(hidden.err.matches("✗ ").count(), 6);
    let piped = run(&[&f]);
    assert_eq!(piped.err, "", "copied into a pipe's stderr");
}

#[test]
fn tool_globs_and_kind_lists() {
    let f = fixture("codex/mcp.jsonl");
    let o = run(&["--only", "tools", "--tool", "mcp__*", &f]);
    let tools: Vec<&str> = o.out.lines().collect();
    assert_eq!(
        tools,
        [
            "▸ mockecho/echo hello over MCP",
            "▸ mockecho/explode scripted failure"
        ]
    );
    // Comma-separated and repeated lists add up.
    let a = run(&["--only", "tools,errors", &f]);
    let b = run(&["--only", "tools", "--only", "errors", &f]);
    assert_eq!(a.out, b.out);
    // --only thinking turns -v on, or nothing would show.
    let o = run(&["--only", "thinking", &fixture("claude/thinking.jsonl")]);
    assert!(o.out.starts_with("✻ "), "{}", o.out);
}

#[test]
fn a_tool_pattern_that_matches_nothing_is_reported_once_at_the_end() {
    let mcp = fixture("codex/mcp.jsonl");
    let text = fixture("claude/text_only.jsonl");
    for format in ["pretty", "jsonl"] {
        let o = run(&[
            "--format", format, "--tool", "ledger*", "--tool", "mcp__*", &mcp, &text,
        ]);
        assert_eq!(
            o.err,
            "streamview: --tool 'ledger*' matched no tool call \
             (tools seen: mcp__mockecho__echo, mcp__mockecho__explode)\n",
            "{format}"
        );
    }
    // Matched in one of the inputs: nothing to say.
    let o = run(&["--tool", "mockecho/*", &text, &mcp]);
    assert_eq!(o.err, "");
    let o = run(&["--tool", "Bash", &text]);
    assert_eq!(
        o.err,
        "streamview: --tool 'Bash' matched no tool call (no tool was called)\n"
    );
}

#[test]
fn unknown_kind_is_a_usage_error() {
    let o = run(&["--only", "tool", "x"]);
    assert_eq!(o.code, 2);
    assert!(o.err.contains("possible values"), "{}", o.err);
}

#[test]
fn filters_never_change_the_exit_status() {
    for rel in [
        "claude/max_turns.jsonl",
        "claude/api_error_500.jsonl",
        "claude/text_only.jsonl",
    ] {
        let f = fixture(rel);
        let base = run(&[&f]).code;
        for args in [
            vec!["--only", "tools"],
            vec!["--hide", "final,errors"],
            vec!["--tool", "Nothing"],
        ] {
            let mut all = args.clone();
            all.push(&f);
            assert_eq!(run(&all).code, base, "{rel} {args:?}");
        }
    }
}

// ------------------------------------------------------------ help, version

#[test]
fn help_short_and_long() {
    let short = run(&["-h"]);
    assert_eq!(short.code, 0);
    assert!(short.out.contains("--grep <PATTERN>"));
    assert!(short.out.contains("--only tools,errors"));
    assert!(!short.out.contains("Examples:"));
    assert!(short.out.contains("--help for every option"));
    let long = run(&["--help"]);
    for part in [
        "Examples:",
        "--format result",
        "Exit status:",
        "Environment:",
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "STREAMVIEW_QUIET",
        "subagents:",
    ] {
        assert!(long.out.contains(part), "--help lacks {part}");
    }
    let v = run(&["--version"]);
    assert_eq!(v.out, format!("streamview {}\n", env!("CARGO_PKG_VERSION")));
}
