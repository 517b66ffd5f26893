//! `--format html` in a real browser (issue 16): the reports of real
//! captures of every producer are loaded by headless Chromium, which runs
//! the page's script and prints the DOM it ends with (`--dump-dom`) and its
//! console (`--enable-logging=stderr`). The tests check what a reader
//! would: the console is silent (no script error, no Content-Security-Policy
//! violation), the script ran (`data-ready` on the body), every tool call,
//! failed call and edit of the stream is on the page, the filter bar
//! filters, the hostile fixture's script and handlers run nothing, a
//! 100 MB log gives a page of bounded size that still opens, and a
//! screenshot is made.
//!
//! Chromium is not a Rust crate: the tests use a `chromium` (or
//! `chromium-browser`, `google-chrome`; or `$STREAMVIEW_BROWSER`) binary
//! when one is installed, and otherwise say that they skipped. `.ci/run`
//! installs it and sets `STREAMVIEW_REQUIRE_BROWSER=1`, which turns a
//! missing browser into a failure, so CI cannot skip them silently.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

#[path = "../benches/support/generate.rs"]
mod generate;

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{hostile, sv};
use serde_json::Value;

/// A browser that does not answer in this time has hung.
const BROWSER_LIMIT: Duration = Duration::from_secs(120);

fn required() -> bool {
    std::env::var_os("STREAMVIEW_REQUIRE_BROWSER").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The browser to drive, or `None` (the test skips, or fails in CI).
fn browser() -> Option<PathBuf> {
    let named = std::env::var_os("STREAMVIEW_BROWSER").map(PathBuf::from);
    let found = named.into_iter().chain(
        [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ]
        .into_iter()
        .map(PathBuf::from),
    );
    let found = found.into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    assert!(
        found.is_some() || !required(),
        "no Chromium found but STREAMVIEW_REQUIRE_BROWSER is set (.ci/run installs it)"
    );
    if found.is_none() {
        eprintln!("skipped: no chromium, chromium-browser or google-chrome is installed");
    }
    found
}

/// A page as the browser left it.
struct Page {
    /// The DOM after the page's script ran.
    dom: String,
    /// What the page wrote to the console (script errors, CSP violations).
    console: Vec<String>,
}

impl Page {
    /// Occurrences of `needle` in the DOM.
    fn count(&self, needle: &str) -> usize {
        self.dom.matches(needle).count()
    }

    /// The classes of each event on the page (`ev call fail bad`).
    fn events(&self) -> Vec<&str> {
        self.dom
            .match_indices("class=\"ev ")
            .map(|(i, m)| {
                let rest = &self.dom[i + m.len() - 3..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect()
    }

    /// The text of the filter bar's count (`3 of 9 shown`).
    fn shown(&self) -> &str {
        let start = self.dom.find("id=\"count\">").unwrap() + "id=\"count\">".len();
        &self.dom[start..start + self.dom[start..].find('<').unwrap()]
    }

    /// The checks every page passes: nothing on the console, the script
    /// ran to its end, nothing of the stream ran.
    fn assert_clean(&self, what: &str) {
        assert!(
            self.console.is_empty(),
            "{what}: console: {:#?}",
            self.console
        );
        assert!(
            self.dom.contains("data-ready=\"1\""),
            "{what}: the page's script did not run"
        );
        // The payload's text says `'data-pwned'`; only code that ran
        // makes it an attribute.
        assert!(
            !self.dom.contains("data-pwned=\""),
            "{what}: injected code ran"
        );
    }
}

/// A directory of its own for each browser run (profile, page, shots).
fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "streamview-browser-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a browser run gave.
struct Run {
    stdout: Vec<u8>,
    console: Vec<String>,
    /// `shot.png`, when the run made one.
    shot: Option<Vec<u8>>,
}

/// Run the browser on `html` (its address ending with `fragment`) with
/// `args`, in a directory of its own.
fn open(browser: &Path, html: &[u8], fragment: &str, args: &[&str]) -> Run {
    let dir = scratch();
    let page = dir.join("report.html");
    std::fs::write(&page, html).unwrap();
    let out = dir.join("out");
    let err = dir.join("err");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            // Lets the page's timers run before the DOM is taken.
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(args)
        .arg(format!("file://{}{fragment}", page.display()))
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > BROWSER_LIMIT {
            child.kill().unwrap();
            panic!("the browser did not finish in {BROWSER_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let console = std::fs::read_to_string(&err)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    let run = Run {
        stdout: std::fs::read(&out).unwrap(),
        console,
        shot: std::fs::read(dir.join("shot.png")).ok(),
    };
    let _ = std::fs::remove_dir_all(&dir);
    run
}

/// Load `html` and take its DOM.
fn load(browser: &Path, html: &[u8], fragment: &str) -> Page {
    let run = open(browser, html, fragment, &["--dump-dom"]);
    let dom = String::from_utf8(run.stdout).unwrap();
    assert!(dom.contains("</html>"), "no DOM came back");
    Page {
        dom,
        console: run.console,
    }
}

/// A capture of `tests/fixtures/`.
fn fixture(rel: &str) -> Vec<u8> {
    common::read(&common::fixture(rel))
}

/// streamview's `--format html` of `input`.
fn report(input: &[u8]) -> Vec<u8> {
    let out = sv()
        .args(["--format", "html", "--color", "never"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    out.stdout
}

/// streamview's JSONL of `input`, parsed.
fn events(input: &[u8]) -> Vec<Value> {
    let out = sv()
        .args(["--format", "jsonl"])
        .write_stdin(input)
        .output()
        .unwrap();
    common::json_lines(&out.stdout)
}

/// `s` escaped as the page escapes text.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Each capture's page loads without a console message, and shows each of
/// the stream's tool calls (its tool's name), each failed call marked
/// failed and each denied one denied, as many as the JSONL of the same
/// stream has.
#[test]
fn reports_of_every_producer_show_their_calls_and_errors() {
    let Some(b) = browser() else { return };
    for rel in common::REPORT_CAPTURES {
        let input = fixture(rel);
        let page = load(&b, &report(&input), "");
        page.assert_clean(rel);
        let evs = events(&input);
        let mut calls = 0;
        for e in evs.iter().filter(|e| e["kind"] == "tool_call") {
            let name = escaped(e["name"].as_str().unwrap());
            assert!(
                page.dom
                    .contains(&format!("<span class=\"tn\">{name}</span>")),
                "{rel}: the call of {name} is not on the page"
            );
            calls += 1;
        }
        let results = |denied: bool| {
            evs.iter()
                .filter(|e| e["kind"] == "tool_result" && e["is_error"] == true)
                .filter(|e| e["denied"].as_bool().unwrap_or(false) == denied)
                .count()
        };
        let (failed, denied) = (results(false), results(true));
        assert_eq!(
            page.count("badge\">failed<"),
            failed,
            "{rel}: failed calls on the page"
        );
        assert_eq!(
            page.count("badge\">denied<"),
            denied,
            "{rel}: denied calls on the page"
        );
        assert_eq!(
            page.count("<details class=\"ev call "),
            calls,
            "{rel}: calls on the page"
        );
        eprintln!("{rel}: {calls} calls, {failed} failed, {denied} denied");
    }
}

/// An edit's lines are on the page as removed and added lines, read
/// from the edit's own before and after in the stream.
#[test]
fn edits_are_shown_as_their_diff() {
    let Some(b) = browser() else { return };
    let input = fixture("claude/edit_write.jsonl");
    let page = load(&b, &report(&input), "");
    page.assert_clean("edit_write");
    let mut edits = 0;
    // A line of the page's diff of `class` (`del`, `add`) holding `text`:
    // the tool's patch shows whole lines, the edit a fragment of them.
    let shown = |class: &str, text: &str| {
        let open = format!("<span class=\"{class}\">");
        page.dom.match_indices(&open).any(|(i, _)| {
            let rest = &page.dom[i + open.len()..];
            rest[..rest.find("</span>").unwrap()].contains(&escaped(text))
        })
    };
    for e in events(&input)
        .iter()
        .filter(|e| e["kind"] == "tool_call" && e["name"] == "Edit")
    {
        let input = &e["input"];
        for line in input["old_string"].as_str().unwrap().lines() {
            assert!(shown("del", line), "-{line} is not on the page");
        }
        for line in input["new_string"].as_str().unwrap().lines() {
            assert!(shown("add", line), "+{line} is not on the page");
        }
        edits += 1;
    }
    assert_eq!(edits, 2);
    // The edit's hunk as the tool's patch numbers it, with its context.
    assert!(
        page.dom
            .contains("<span class=\"dh\">@@ -1,4 +1,4 @@</span>")
    );
    assert!(page.dom.contains("<span class=\"dc\"> # TODO</span>"));
    // The new file's lines, all added, under a hunk header with numbers.
    assert!(
        page.dom
            .contains("<span class=\"dh\">@@ -0,0 +1,4 @@</span>")
    );
    assert!(page.dom.contains("<span class=\"add\">+# TODO</span>"));
    // A call with a diff is open from the start.
    assert!(page.count("<details class=\"ev call ok\" data-kind=\"edit\" open=\"\">") >= 2);
    // Indented lines keep their indentation (the page's `pre` keeps it).
    assert!(
        page.dom
            .contains("<span class=\"dc\">     print(\"hi\")</span>")
    );
    assert!(
        page.dom
            .contains("<span class=\"add\">+    return f\"Hello, {name}!\"</span>")
    );
}

/// A denied Write: its call is marked denied, its line has no count, and
/// what it would have written is folded away as a proposal, not applied;
/// the denial is said once.
#[test]
fn a_denied_write_is_shown_as_proposed() {
    let Some(b) = browser() else { return };
    let input = fixture("claude-2.1.330/permission_denied.jsonl");
    let page = load(&b, &report(&input), "");
    page.assert_clean("permission_denied");
    let write = "<details class=\"ev call denied bad\" data-kind=\"write\" open=\"\"><summary>\
                 <span class=\"tn\">Write</span> <code>marker.txt</code><span class=\"badge\">";
    assert_eq!(page.count(write), 1, "{}", page.dom);
    let proposal = page
        .dom
        .find("<details class=\"proposed\"><summary>proposed change, not applied");
    let marker = page.dom.find("<span class=\"add\">+marker</span>");
    assert!(proposal.is_some_and(|p| marker.is_some_and(|m| m > p)));
    assert_eq!(page.count("but you haven't granted it yet"), 1);
    assert_eq!(page.count("require approval: rm -rf build"), 1);
}

/// The filter bar, set by the page's address: errors only, a text, a tool
/// kind. What it shows is counted by the page and checked against the
/// stream.
#[test]
fn the_filter_bar_filters_offline() {
    let Some(b) = browser() else { return };
    let input = fixture("claude/tool_errors.jsonl");
    let html = report(&input);
    let all = load(&b, &html, "");
    assert_eq!(all.shown(), "", "nothing is filtered without a filter");
    let total = all.events().len();
    assert!(all.events().iter().all(|c| !c.contains("hide")));

    // Errors only: every event marked bad (failed calls, error notices,
    // the failed end) is counted; the calls they are in are shown too.
    let errors = load(&b, &html, "#errors");
    errors.assert_clean("#errors");
    let bad = all.events().iter().filter(|c| c.ends_with(" bad")).count();
    assert!(bad > 0);
    let hidden = errors
        .events()
        .iter()
        .filter(|c| c.contains(" hide"))
        .count();
    assert_eq!(hidden, total - bad);
    assert_eq!(errors.shown(), format!("{bad} of {total} shown"));

    let shell = load(&b, &html, "#kind=shell");
    let shells = events(&input)
        .iter()
        .filter(|e| e["kind"] == "tool_call" && e["tool_kind"] == "shell")
        .count();
    assert!(shells > 0);
    assert_eq!(shell.shown(), format!("{shells} of {total} shown"));

    // A text: the calls whose line or output holds it, in any case.
    let text = load(&b, &html, "#q=NO_SUCH_FILE_XYZ");
    assert_eq!(text.shown(), format!("0 of {total} shown"));
    let text = load(&b, &html, "#q=EXIT%20CODE");
    assert!(!text.shown().starts_with("0 "), "{}", text.shown());
    // A fragment that is not well formed is ignored, not an error.
    load(&b, &html, "#q=%E0%A4%A&kind").assert_clean("bad fragment");
}

/// The hostile fixture (markup, script, handlers, `javascript:` links,
/// closing tags and escapes in every field, an edit among them): the page
/// shows it as text, and none of it runs or loads.
#[test]
fn hostile_content_runs_nothing() {
    let Some(b) = browser() else { return };
    let page = load(&b, &report(&hostile::session()), "");
    page.assert_clean("hostile");
    assert!(!page.dom.contains(&format!("<title>{}", hostile::PWNED)));
    for tag in ["<img", "<iframe", "<a href=\"javascript", "<style>body"] {
        assert!(!page.dom.contains(tag), "{tag} from the stream is markup");
    }
    // Our one script and one style, nothing else.
    assert_eq!(page.count("<script"), 1);
    assert_eq!(page.count("<style"), 1);
    // The payload is there, as text, in every field.
    for field in ["prompt", "text", "command", "output", "error", "old", "new"] {
        let shown = escaped(&format!("{field} </details></summary>"));
        assert!(page.dom.contains(&shown), "{field} is not shown as text");
    }
}

/// A 100 MB log gives a page that still opens: outputs cut, the page
/// bounded (8 MiB of conversation plus the summary), what was left out
/// said; and the browser loads it with a silent console.
#[test]
fn a_huge_log_gives_a_bounded_page() {
    let Some(b) = browser() else { return };
    let mut log = Vec::new();
    generate::generate(&mut log, generate::Profile::Claude, 100 << 20, 3).unwrap();
    let html = report(&log);
    assert!(html.len() < 9 << 20, "a page of {} MiB", html.len() >> 20);
    let text = String::from_utf8_lossy(&html);
    assert!(
        text.contains("The page stops here:"),
        "nothing said about what was left out"
    );
    let start = Instant::now();
    let page = load(&b, &html, "");
    page.assert_clean("100 MB log");
    eprintln!(
        "100 MB log: a page of {} KiB, loaded in {:.1?}",
        html.len() >> 10,
        start.elapsed()
    );
}

/// A screenshot of a report, at a desktop's and at a phone's width.
#[test]
fn a_screenshot_is_made() {
    let Some(b) = browser() else { return };
    let html = report(&fixture("claude-2.1.330/subagent.jsonl"));
    for size in ["1000,1400", "390,844"] {
        let run = open(
            &b,
            &html,
            "",
            &[
                &format!("--window-size={size}"),
                "--screenshot=shot.png",
                "--hide-scrollbars",
            ],
        );
        assert!(run.console.is_empty(), "{:#?}", run.console);
        let png = run.shot.expect("no screenshot");
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
        // A blank page compresses to a few KiB; this one has tables and text.
        assert!(
            png.len() > 30_000,
            "a screenshot of {} bytes at {size}",
            png.len()
        );
    }
}

/// `--format html --by day`: the SVG chart is drawn under the page's
/// policy (nothing on the console), a column part per model with its
/// numbers as a `<title>`, the hostile model's name as text; the
/// screenshot is kept (`target/tmp/chart.png`) to be looked at.
#[test]
fn the_chart_by_day_is_drawn_and_runs_nothing() {
    let Some(b) = browser() else { return };
    let lib = scratch();
    let days = [
        ("2026-11-18", "claude-opus-4-8"),
        ("2026-11-18", "claude-sonnet-4-5"),
        ("2026-11-19", "claude-haiku-4-5"),
        ("2026-11-21", "claude-opus-4-8"),
        (
            "2026-11-21",
            "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">",
        ),
        ("2026-11-22", "claude-sonnet-4-5"),
    ];
    common::days_library(&lib, &days, 2);
    let out = sv()
        .args(["--format", "html", "--by", "day", "--color", "never"])
        .arg(&lib)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let page = load(&b, &out.stdout, "");
    page.assert_clean("--by day");
    assert_eq!(page.count("<svg"), 1);
    assert!(page.count("<rect") >= 6, "{}", page.dom);
    assert!(
        page.dom.contains("<title>2026-11-21: claude-opus-4-8 · $"),
        "{}",
        page.dom
    );
    assert!(page.dom.contains("&lt;img src=x onerror="), "{}", page.dom);
    let run = open(
        &b,
        &out.stdout,
        "",
        &[
            "--window-size=1000,900",
            "--screenshot=shot.png",
            "--hide-scrollbars",
        ],
    );
    assert!(run.console.is_empty(), "{:#?}", run.console);
    let png = run.shot.expect("no screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("chart.png"),
        png,
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&lib);
}

/// The session table of a report over sessions with long titles fits a
/// 1200 px window (issue 49 §12): titles and projects are cut with an
/// ellipsis (whole on hover), so the outcome and the cost stay in view.
/// The screenshot is kept (`target/tmp/sessions.png`) to be looked at.
#[test]
fn the_session_table_fits_1200_px_with_titles_cut() {
    let Some(b) = browser() else { return };
    let lib = scratch();
    common::days_library(
        &lib,
        &[
            ("2026-11-20", "claude-opus-4-8"),
            ("2026-11-21", "claude-sonnet-4-5"),
        ],
        3,
    );
    let long = "Look around this project, read every module and its tests, then summarise \
                what each part does and which of them need work first";
    for f in std::fs::read_dir(lib.join("project")).unwrap() {
        let f = f.unwrap().path();
        let text = std::fs::read_to_string(&f).unwrap();
        let text = text.replace("Look around this project and summarise it.", long);
        std::fs::write(&f, text).unwrap();
    }
    let out = sv()
        .args(["--format", "html", "--color", "never"])
        .arg(&lib)
        .output()
        .unwrap();
    let html = String::from_utf8(out.stdout).unwrap();
    let title: String = long.chars().take(79).collect();
    assert!(
        html.contains(&format!("<td class=\"clip\" title=\"{title}…\">")),
        "{html}"
    );
    let page = load(&b, html.as_bytes(), "");
    page.assert_clean("long titles");
    let run = open(
        &b,
        html.as_bytes(),
        "",
        &[
            "--window-size=1200,900",
            "--screenshot=shot.png",
            "--hide-scrollbars",
        ],
    );
    assert!(run.console.is_empty(), "{:#?}", run.console);
    let png = run.shot.expect("no screenshot");
    std::fs::write(
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("sessions.png"),
        png,
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&lib);
}
