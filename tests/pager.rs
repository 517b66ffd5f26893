//! `--paging` (issue 15): a replay on a terminal goes through a pager. The
//! terminal comes from util-linux `script` (as in tests/status.rs); the
//! pager is a small shell script that keeps what it is given in a file.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A session with tool errors; exit status 0.
const ERRORS: &str = "tests/fixtures/claude/tool_errors.jsonl";
/// A session that hits its turn limit: exit status 1.
const MAX_TURNS: &str = "tests/fixtures/claude/max_turns.jsonl";
/// 5 MB of output.
const BIG: &str = "tests/fixtures/misc/claude_big_output.jsonl";

/// A directory of its own for each run (tests run in parallel).
fn dir() -> PathBuf {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "pager-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `s` quoted for the shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn quote(p: &Path) -> String {
    sh(p.to_str().unwrap())
}

/// A pager that writes its arguments, then what it reads, into a file.
fn fake_pager(d: &Path) -> (PathBuf, PathBuf) {
    let (script, kept) = (d.join("pager"), d.join("paged"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"args: $*\" > {p}\ncat >> {p}\n",
            p = quote(&kept)
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (script, kept)
}

/// streamview with a hermetic environment and `pager` as its pager.
fn sv(pager: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.env("STREAMVIEW_PAGER", pager)
        .env("STREAMVIEW_CONFIG", "")
        .env("TERM", "xterm-256color")
        .env_remove("PAGER")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("STREAMVIEW_VERBOSE")
        .env_remove("STREAMVIEW_QUIET")
        .stdin(Stdio::null());
    cmd
}

fn bin() -> String {
    quote(Path::new(env!("CARGO_BIN_EXE_streamview")))
}

/// Run the shell command `line` with its stdout and stderr on a
/// pseudo-terminal: what the terminal received, and the status.
fn under_pty(pager: &str, line: &str) -> (String, i32) {
    let out = sv(pager)
        .args(["-c", &format!("script -q -e -c {} /dev/null", sh(line))])
        .output()
        .expect("util-linux `script` runs a command under a pseudo-terminal; install util-linux");
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

fn in_pipes(pager: &str, line: &str) -> Output {
    sv(pager).args(["-c", line]).output().unwrap()
}

#[test]
fn a_replay_on_a_terminal_goes_through_the_pager_in_colour() {
    let d = dir();
    let (program, kept) = fake_pager(&d);
    let pager = format!("{} --flag", program.display());
    let (screen, code) = under_pty(&pager, &format!("{} {MAX_TURNS}", bin()));
    assert_eq!(code, 1, "the session's own status: {screen:?}");
    // The terminal got nothing from streamview: no status line, no errors.
    assert_eq!(screen, "");
    let got = std::fs::read_to_string(kept).unwrap();
    assert!(got.starts_with("args: --flag\n"), "{got:?}");
    // Coloured, as on the terminal.
    assert!(got.contains("\x1b["), "{got:?}");
    assert!(got.contains("error_max_turns"), "{got:?}");
    // Exactly what --paging never shows, minus the status line.
    let (plain, _) = under_pty(
        &pager,
        &format!("{} --paging never --no-status {MAX_TURNS}", bin()),
    );
    let paged_text = got.split_once('\n').unwrap().1;
    assert_eq!(plain.replace("\r\n", "\n"), paged_text);
}

#[test]
fn what_would_go_to_the_terminals_stderr_goes_into_the_pager() {
    let d = dir();
    let (program, kept) = fake_pager(&d);
    let log = d.join("bad.jsonl");
    let mut text = std::fs::read_to_string(ERRORS).unwrap();
    text.insert_str(text.find('\n').unwrap() + 1, "{not json\n");
    std::fs::write(&log, text).unwrap();
    let (screen, code) = under_pty(
        program.to_str().unwrap(),
        &format!("{} --hide errors {}", bin(), quote(&log)),
    );
    assert_eq!((screen.as_str(), code), ("", 0));
    let got = std::fs::read_to_string(&kept).unwrap();
    assert!(got.contains(":2: "), "the skipped line: {got:?}");
    assert!(
        got.contains("missing.txt"),
        "a hidden error, told anyway: {got:?}"
    );
    // The note at the end too.
    std::fs::remove_file(&kept).unwrap();
    let (screen, _) = under_pty(
        program.to_str().unwrap(),
        &format!("{} --tool Nope {ERRORS}", bin()),
    );
    assert_eq!(screen, "");
    let got = std::fs::read_to_string(&kept).unwrap();
    assert!(
        got.contains("--tool 'Nope' matched no tool call"),
        "{got:?}"
    );
    // With stderr elsewhere, it stays there.
    let out = in_pipes(
        program.to_str().unwrap(),
        &format!(
            "{} --paging always --hide errors {} 2> {}",
            bin(),
            quote(&log),
            quote(&d.join("err"))
        ),
    );
    assert!(out.status.success());
    let err = std::fs::read_to_string(d.join("err")).unwrap();
    assert!(
        err.contains(":2: ") && err.contains("missing.txt"),
        "{err:?}"
    );
}

#[test]
fn live_input_and_data_formats_are_not_paged() {
    let d = dir();
    let (program, kept) = fake_pager(&d);
    let pager = program.to_str().unwrap();
    for line in [
        format!("cat {ERRORS} | {}", bin()),
        format!("{} - < {ERRORS}", bin()),
        format!("{} -f {ERRORS}", bin()),
        format!("{} --format jsonl {ERRORS}", bin()),
        format!("{} --paging never {ERRORS}", bin()),
    ] {
        let (screen, _) = under_pty(pager, &line);
        assert!(screen.contains("missing.txt"), "{line}: {screen:?}");
        assert!(!kept.exists(), "{line}: paged");
    }
    // A pipe is not a terminal.
    let out = in_pipes(pager, &format!("{} {ERRORS}", bin()));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("missing.txt")
    );
    assert!(!kept.exists());
}

#[test]
fn a_pager_that_quits_early_ends_the_run_quietly() {
    let start = Instant::now();
    let out = in_pipes("head -c 100", &format!("{} --paging always {BIG}", bin()));
    assert_eq!(out.status.code(), Some(0), "as a closed pipe");
    assert_eq!(String::from_utf8(out.stdout).unwrap().len(), 100);
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_pager_that_cannot_be_run_is_reported_and_the_output_shown() {
    let out = in_pipes(
        "/nonexistent/pager -x",
        &format!("{} --paging always {MAX_TURNS}", bin()),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "streamview: cannot run the pager `/nonexistent/pager -x` (STREAMVIEW_PAGER): no such \
         file; showing the output without it (or use --paging never)\n"
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("error_max_turns")
    );
}

#[test]
fn a_filter_on_a_terminal_says_the_errors_it_hides_in_one_line() {
    let one_line = "✗ 4 errors of calls not shown (Edit 3, Read 1); --errors stderr lists them";
    for args in [
        format!("--tool Bash {ERRORS}"),
        "--tool Bash -j1 tests/fixtures/claude".to_string(),
        "--tool Bash -j4 tests/fixtures/claude".to_string(),
    ] {
        let line = format!("{} --paging never --no-status --color never {args}", bin());
        let (out, _) = under_pty("cat", &line);
        let about_others: Vec<&str> = out
            .lines()
            .map(str::trim_end)
            .filter(|l| l.contains("Read") || l.contains("Edit"))
            .collect();
        assert_eq!(about_others, [one_line], "{args}: {out}");
        // The shown tool's errors are still there.
        assert!(out.contains("✗ Bash sleep 5 failed"), "{args}: {out}");
    }
    // --only too; --errors stderr lists each.
    let line = format!("{} --paging never --only text {ERRORS}", bin());
    let (out, _) = under_pty("cat", &line);
    assert_eq!(
        out.lines().filter(|l| l.contains("not shown")).count(),
        1,
        "{out}"
    );
    let o = in_pipes(
        "cat",
        &format!("{} --tool Bash --errors stderr {ERRORS} >/dev/null", bin()),
    );
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("✗ Read missing.txt failed") && !err.contains("not shown"),
        "{err}"
    );
}
