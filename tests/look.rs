//! Look rather than read (issue 26 §7): `--by day|week|month`'s bars on a
//! terminal (none in a pipe), the HTML report's SVG chart, and the
//! progress line of a long library read on a terminal's stderr (none in a
//! pipe). The terminal is a pseudo-terminal from util-linux `script`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{days_library, sv};

/// Three days: the second a twelfth of the first's cost, the third's
/// model priced by no table.
const DAYS: [(&str, &str); 4] = [
    ("2026-11-20", "claude-opus-4-8"),
    ("2026-11-20", "claude-sonnet-4-5"),
    ("2026-11-21", "claude-haiku-4-5"),
    ("2026-11-23", "<img src=x onerror=alert(1)>&\"'"),
];

/// A directory of its own for each test.
fn dir() -> PathBuf {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "look-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// `streamview ARGS` with stdout and stderr on a pseudo-terminal of
/// `cols` columns: what the terminal received.
fn under_pty(cols: u16, args: &str) -> String {
    let cmd = format!(
        "stty rows 40 cols {cols}; {} {args}",
        quote(Path::new(env!("CARGO_BIN_EXE_streamview")))
    );
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .env("TERM", "xterm-256color")
        .env("STREAMVIEW_CONFIG", "")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("PAGER")
        .env_remove("STREAMVIEW_PAGER")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("util-linux `script` runs a command under a pseudo-terminal; install util-linux");
    assert!(out.status.success(), "exit status {:?}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

/// The row of `day` in `out`.
fn row<'a>(out: &'a str, day: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(day))
        .unwrap_or_else(|| panic!("no row of {day} in {out:?}"))
}

/// The bar at the end of `line`: its block characters.
fn bar(line: &str) -> String {
    line.trim_end_matches(['\r', '\n'])
        .chars()
        .rev()
        .take_while(|c| ('\u{2588}'..='\u{258F}').contains(c))
        .collect()
}

#[test]
fn a_terminal_shows_each_days_bar_scaled_to_the_largest_and_fitted() {
    let d = dir();
    days_library(&d, &DAYS, 1);
    let args = format!(
        "--paging never --no-status --color never --by day {}",
        quote(&d)
    );
    let wide = under_pty(200, &args);
    let first = bar(row(&wide, "2026-11-20"));
    // The largest row is 40 cells of full blocks.
    assert_eq!(first, "█".repeat(40), "{wide}");
    let second = bar(row(&wide, "2026-11-21"));
    assert!(
        !second.is_empty() && second.chars().count() < 40,
        "{second:?} in {wide}"
    );
    // The total row has none; the day priced by no table has none either
    // (the bars measure cost, and it has no cost).
    assert_eq!(bar(row(&wide, "total")), "");
    assert_eq!(bar(row(&wide, "2026-11-23")), "", "{wide}");
    // At 120 columns the bar takes what the table leaves, and no line is
    // wider than the terminal.
    let narrow = under_pty(120, &args);
    let fitted = bar(row(&narrow, "2026-11-20"));
    assert!(
        (8..40).contains(&fitted.chars().count()),
        "{fitted:?} in {narrow}"
    );
    for l in narrow.lines() {
        assert!(l.trim_end().chars().count() <= 120, "{l:?}");
    }
    // Too narrow for 8 cells: no bar, the table as it was.
    let cramped = under_pty(80, &args);
    assert_eq!(bar(row(&cramped, "2026-11-20")), "", "{cramped}");
}

#[test]
fn a_pipe_gets_no_bar_and_nothing_measured_by_cost_is_measured_by_tokens() {
    let d = dir();
    days_library(&d, &DAYS, 1);
    let piped = sv().args(["--by", "day"]).arg(&d).output().unwrap();
    let text = String::from_utf8(piped.stdout).unwrap();
    assert!(!text.contains('█') && !text.contains('▏'), "{text}");
    // Only unpriced models: the bars measure tokens.
    let e = dir();
    days_library(&e, &[("2026-11-20", "x-1"), ("2026-11-22", "x-2")], 1);
    let out = under_pty(
        200,
        &format!(
            "--paging never --no-status --color never --by day {}",
            quote(&e)
        ),
    );
    assert_eq!(bar(row(&out, "2026-11-20")), "█".repeat(40), "{out}");
    assert_eq!(bar(row(&out, "2026-11-22")), "█".repeat(40), "{out}");
}

#[test]
fn the_html_report_by_day_holds_an_svg_chart_with_every_name_escaped() {
    let d = dir();
    days_library(&d, &DAYS, 1);
    let out = sv()
        .args(["--format", "html", "--by", "day"])
        .arg(&d)
        .output()
        .unwrap();
    let html = String::from_utf8(out.stdout).unwrap();
    let start = html.find("<svg").expect("a chart");
    let svg = &html[start..start + html[start..].find("</svg>").unwrap()];
    assert!(svg.contains("<title>cost by day</title>"), "{svg}");
    // A column per day, a part per model, the numbers on hover.
    for day in ["2026-11-20", "2026-11-21", "2026-11-23"] {
        assert!(svg.contains(&format!(">{day}</text>")), "{day}: {svg}");
    }
    assert!(
        svg.contains("<title>2026-11-20: claude-opus-4-8 · $"),
        "{svg}"
    );
    assert!(
        svg.contains("<title>2026-11-20: claude-sonnet-4-5 · $"),
        "{svg}"
    );
    // The hostile model's name is text; nothing of it is markup.
    assert!(!svg.contains("<img"), "{svg}");
    assert!(
        svg.contains("&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;"),
        "{svg}"
    );
    // No script, no style of its own: the page's policy is unchanged.
    assert!(!svg.contains("<script") && !svg.contains("style="), "{svg}");
    // Other groups are not charted.
    let by_project = sv()
        .args(["--format", "html", "--by", "project"])
        .arg(&d)
        .output()
        .unwrap();
    assert!(
        !String::from_utf8(by_project.stdout)
            .unwrap()
            .contains("<svg")
    );
}

/// The progress line's draw: back to the start, erase, autowrap off, the
/// text, autowrap on.
const DRAW: &str = "\r\x1b[2K\x1b[?7lstreamview: ";
const DRAW_END: &str = "\x1b[?7h";
const ERASE: &str = "\r\x1b[2K";

/// The progress lines drawn in `s`, and `s` without them or their erases.
fn progress_lines(s: &str) -> (Vec<String>, String) {
    let mut lines = Vec::new();
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(DRAW) {
        out.push_str(&rest[..i]);
        let after = &rest[i + DRAW.len()..];
        let end = after.find(DRAW_END).expect("a draw is closed");
        lines.push(after[..end].to_string());
        rest = &after[end + DRAW_END.len()..];
    }
    out.push_str(rest);
    (lines, out.replace(ERASE, ""))
}

/// The `N` of a progress line's `… of N files read · …` (`12,800`: 12800).
fn files_of(line: &str) -> Option<usize> {
    let (_, rest) = line.split_once(" of ")?;
    let (n, _) = rest.split_once(" files read · ")?;
    n.replace(',', "").parse().ok()
}

/// A library whose report takes more than the progress line's second on
/// one thread, and its number of files: 1,600, doubled until a run
/// without a terminal takes 1.5 s (a release build reads 1,600 files in
/// less than a second; a debug build takes several).
fn slow_library() -> (PathBuf, usize) {
    let d = dir();
    let mut copies = 400;
    loop {
        days_library(&d, &DAYS, copies);
        let started = Instant::now();
        let out = sv().args(["-j1", "--by", "day"]).arg(&d).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        if started.elapsed() >= Duration::from_millis(1500) || copies >= 12_800 {
            return (d, copies * DAYS.len());
        }
        copies *= 2;
    }
}

#[test]
fn a_long_report_on_a_terminal_says_how_far_it_is_then_erases_it() {
    let (d, files) = slow_library();
    let args = format!(
        "-j1 --paging never --no-status --color never --by day {}",
        quote(&d)
    );
    let shown = under_pty(200, &args);
    let (lines, rest) = progress_lines(&shown);
    assert!(!lines.is_empty(), "no progress line in {shown:?}");
    for l in &lines {
        assert!(l.ends_with(" MB/s") && files_of(l) == Some(files), "{l:?}");
    }
    // Erased before the table, which is what the run writes without it.
    let table = shown.find("day ").unwrap();
    assert!(shown[..table].ends_with(ERASE), "{:?}", &shown[..table]);
    let quiet = under_pty(200, &format!("{args} 2>/dev/null"));
    assert_eq!(rest, quiet);
    assert!(progress_lines(&quiet).0.is_empty());
    // stderr in a file: nothing there either.
    let err = d.join("err.txt");
    under_pty(200, &format!("{args} 2>{}", quote(&err)));
    assert_eq!(std::fs::read_to_string(&err).unwrap(), "");
}

#[test]
fn a_long_search_on_a_terminal_keeps_its_matches_whole() {
    let (d, files) = slow_library();
    let args = format!(
        "-j1 --paging never --color never --grep 'wc -l' {}",
        quote(&d)
    );
    let shown = under_pty(200, &args);
    let (lines, rest) = progress_lines(&shown);
    let quiet = under_pty(200, &format!("{args} 2>/dev/null"));
    // With or without the line, the same matches, none cut by it.
    assert_eq!(rest, quiet);
    assert_eq!(quiet.matches("▸ Bash ").count(), files, "{lines:?}");
}

/// `s` without its SGR sequences (clap's bold and underlined headings).
fn plain(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("\x1b[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('m').map_or(after.len(), |e| e + 1);
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn short_help_fits_a_screen_and_long_help_has_every_option() {
    // Issue 49 §9: `-h` on an 80-column terminal of 40 rows.
    let short = plain(&under_pty(80, "-h"));
    let lines: Vec<&str> = short.lines().collect();
    assert!(lines.len() <= 40, "{} lines:\n{short}", lines.len());
    for l in &lines {
        assert!(l.trim_end().chars().count() <= 80, "{l:?}");
    }
    for want in [
        "Usage: streamview",
        "--follow",
        "--format",
        "--grep",
        "--by",
        "--latest",
        "--since",
        "Common tasks:",
        "streamview --by day",
        "--help for every option",
    ] {
        assert!(short.contains(want), "{want:?} in\n{short}");
    }
    assert!(!short.contains("--max-line-bytes"), "{short}");
    // `--help` keeps every option, each with its whole help.
    let long = sv().arg("--help").output().unwrap();
    let long = String::from_utf8(long.stdout).unwrap();
    for want in [
        "--max-line-bytes",
        "--tool-kind",
        "--status-wait",
        "Exit status:",
    ] {
        assert!(long.contains(want), "{want:?} in\n{long}");
    }
    assert!(
        long.contains("with --by, the grouped table alone"),
        "{long}"
    );
    assert!(long.lines().count() > 100);
}
