//! Golden tests: every captured real stream in `tests/fixtures/`, rendered
//! pretty (default and verbose, no colour), as JSONL, and a few in colour
//! (ESC shown as `␛`). Review changes with `cargo insta review`.
//!
//! Also checks, for every fixture, that reading our own JSONL back renders
//! exactly like the original stream.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use streamview::diag::Diag;
use streamview::render::{Jsonl, Pretty, PrettyOptions, Sink, Verbosity};
use streamview::{ExitStatus, Runner};
use termcolor::{Ansi, NoColor};

const MAX_LINE: usize = 64 << 20;

/// Run `input` through `sink`; returns (exit status, diagnostics).
fn drive<S: Sink>(name: &str, input: &[u8], sink: &mut S, verbose: bool) -> (ExitStatus, String) {
    let mut diag = Diag::new(Vec::new(), verbose);
    let mut runner = Runner::new(sink, &mut diag, MAX_LINE);
    runner.source(name, input).unwrap();
    let (_, status) = runner.finish().unwrap();
    (status, String::from_utf8(diag.into_inner()).unwrap())
}

fn pretty(name: &str, input: &[u8], verbosity: Verbosity) -> (ExitStatus, String, String) {
    let opts = PrettyOptions {
        verbosity,
        max_lines: 10,
        mirror_errors: false,
    };
    let mut sink = Pretty::new(NoColor::new(Vec::new()), NoColor::new(Vec::new()), opts);
    let (status, diag) = drive(name, input, &mut sink, verbosity == Verbosity::Verbose);
    let (out, _) = sink.into_inner();
    (status, String::from_utf8(out.into_inner()).unwrap(), diag)
}

fn colour(name: &str, input: &[u8]) -> String {
    let opts = PrettyOptions {
        verbosity: Verbosity::Normal,
        max_lines: 10,
        mirror_errors: false,
    };
    let mut sink = Pretty::new(Ansi::new(Vec::new()), NoColor::new(Vec::new()), opts);
    drive(name, input, &mut sink, false);
    let (out, _) = sink.into_inner();
    String::from_utf8(out.into_inner())
        .unwrap()
        .replace('\x1b', "␛")
}

fn jsonl(name: &str, input: &[u8]) -> (ExitStatus, String) {
    let mut sink = Jsonl::new(Vec::new());
    let (status, _) = drive(name, input, &mut sink, false);
    (status, String::from_utf8(sink.into_inner()).unwrap())
}

fn report(status: ExitStatus, out: &str, diag: &str) -> String {
    format!(
        "exit: {}\n--- stdout\n{out}--- stderr\n{diag}",
        status.code()
    )
}

#[test]
fn pretty_default() {
    insta::glob!("fixtures/[!m]*/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let (status, out, diag) = pretty("fixture", &input, Verbosity::Normal);
        insta::assert_snapshot!(report(status, &out, &diag));
    });
}

#[test]
fn pretty_verbose() {
    insta::glob!("fixtures/[!m]*/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let (status, out, diag) = pretty("fixture", &input, Verbosity::Verbose);
        insta::assert_snapshot!(report(status, &out, &diag));
    });
}

#[test]
fn jsonl_output() {
    insta::glob!("fixtures/[!m]*/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let (status, out) = jsonl("fixture", &input);
        insta::assert_snapshot!(report(status, &out, ""));
    });
}

#[test]
fn pretty_colour() {
    for name in [
        "tools_basic",
        "tool_errors",
        "permission_denied",
        "api_error_500",
    ] {
        let input = std::fs::read(format!("tests/fixtures/claude/{name}.jsonl")).unwrap();
        insta::assert_snapshot!(format!("colour__{name}"), colour("fixture", &input));
    }
}

/// `streamview --format jsonl x | streamview` renders like `streamview x`,
/// with the same exit status, in every verbosity.
#[test]
fn jsonl_reads_back_identically() {
    insta::glob!("fixtures/[!m]*/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let (status, normalized) = jsonl("fixture", &input);
        for v in [Verbosity::Quiet, Verbosity::Normal, Verbosity::Verbose] {
            let direct = pretty("fixture", &input, v);
            let again = pretty("fixture", normalized.as_bytes(), v);
            assert_eq!(direct.0, status, "{}", path.display());
            assert_eq!(
                direct.0,
                again.0,
                "exit status differs for {}",
                path.display()
            );
            assert_eq!(
                direct.1,
                again.1,
                "rendering differs for {} at {v:?}",
                path.display()
            );
        }
        // And the normalized form is a fixed point.
        let (_, twice) = jsonl("fixture", normalized.as_bytes());
        let strip = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            strip(&normalized).len(),
            strip(&twice).len(),
            "{}",
            path.display()
        );
    });
}

/// The 5 MB capture with single lines over 1 MB renders completely: every
/// tool call, the whole 1.2 MB answer, the tool errors, the summary.
#[test]
fn big_lines_render_completely() {
    let input = std::fs::read("tests/fixtures/misc/claude_big_output.jsonl").unwrap();
    let (status, out, diag) = pretty("big", &input, Verbosity::Normal);
    assert_eq!(status, ExitStatus::Success);
    assert_eq!(diag, "");
    let longest = out.lines().map(str::len).max().unwrap();
    assert!(
        longest > 1_000_000,
        "the 1.2 MB answer must not be cut (longest line {longest})"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("▸ ")).count(),
        4,
        "{}",
        &out[..2000.min(out.len())]
    );
    assert!(out.contains("exceeds maximum allowed size"));
    assert!(out.lines().last().unwrap().starts_with("✓ done"));
}

/// Gemini CLI's session files, each in its `chats/` folder (the older
/// one-document form is read through the file input: `tests/producer_gemini_session.rs`).
#[test]
fn gemini_session_files() {
    insta::glob!("fixtures/gemini-session/*/chats/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let (status, out, diag) = pretty("fixture", &input, Verbosity::Verbose);
        let (_, jsonl) = jsonl("fixture", &input);
        insta::assert_snapshot!(report(status, &format!("{out}--- jsonl\n{jsonl}"), &diag));
    });
}

/// Qwen Code's session files, each in its `chats/` folder (read with their
/// sub-agents through a library: `tests/producer_qwen_session.rs`).
#[test]
fn qwen_session_files() {
    insta::glob!("fixtures/qwen-session/*/projects/*/chats/*.jsonl", |path| {
        let input = std::fs::read(path).unwrap();
        let (status, out, diag) = pretty("fixture", &input, Verbosity::Verbose);
        let (_, jsonl) = jsonl("fixture", &input);
        insta::assert_snapshot!(report(status, &format!("{out}--- jsonl\n{jsonl}"), &diag));
    });
}

/// Hermes Agent's `hermes -z --usage-file` reports and `OpenClaw`'s
/// `agent exec --json` ones, each one JSON document over many lines
/// (their stores are read in `store_sessions`).
#[test]
fn usage_reports() {
    use std::io::Read;
    insta::glob!("fixtures/{hermes,openclaw}/*.json", |path| {
        // As a file is read: the document joined into one line.
        let mut input = Vec::new();
        let file = std::fs::File::open(path).unwrap();
        let mut joined = streamview::input::OneLine::new(file);
        joined.read_to_end(&mut input).unwrap();
        let (status, out, diag) = pretty("fixture", &input, Verbosity::Verbose);
        let (_, jsonl) = jsonl("fixture", &input);
        insta::assert_snapshot!(report(status, &format!("{out}--- jsonl\n{jsonl}"), &diag));
    });
}

/// `OpenCode`'s, Kilo's, Hermes Agent's and `OpenClaw`'s databases, each
/// session as the lines the store's reader gives the decoder
/// (`decode/<name>/store.rs`), sub-agents nested.
#[test]
fn store_sessions() {
    let store = streamview::decode::store_readers();
    insta::glob!(
        "fixtures/*-session/{*/*.db,*/agents/*/agent/*.sqlite}",
        |path| {
            let mut shown = String::new();
            for s in store.sessions(path).unwrap() {
                let input = stored(path, &s.id);
                let (status, out, diag) = pretty("fixture", &input, Verbosity::Verbose);
                shown.push_str(&report(status, &out, &diag));
            }
            insta::assert_snapshot!(shown);
        }
    );
}

/// Crush's databases (one a project, in its `.crush/`), each session as the
/// lines the store's reader gives the decoder (`decode/crush/store.rs`),
/// sub-agents nested; named by a relative path, as the project folder is
/// shown.
#[test]
fn crush_store_sessions() {
    let store = streamview::decode::store_readers();
    for project in ["alpha", "beta"] {
        let path = std::path::PathBuf::from(format!(
            "tests/fixtures/crush-session/{project}/.crush/crush.db"
        ));
        let mut shown = String::new();
        for s in store.sessions(&path).unwrap() {
            let input = stored(&path, &s.id);
            let (status, out, diag) = pretty("fixture", &input, Verbosity::Verbose);
            shown.push_str(&report(status, &out, &diag));
        }
        insta::assert_snapshot!(format!("crush_store_sessions@{project}"), shown);
    }
}

/// Cline CLI's saved sessions, each read as the library reads it (its
/// record, then its messages: `tests/producer_cline_session.rs`).
#[test]
fn cline_session_files() {
    use std::io::Read;
    let readers = streamview::decode::store_readers();
    insta::glob!("fixtures/cline-session/*/sessions", |path| {
        let found = streamview::input::library::sessions_below(path, readers);
        let mut input = Vec::new();
        for s in &found.sessions {
            s.open(readers).unwrap().read_to_end(&mut input).unwrap();
        }
        let (status, out, diag) = pretty("fixture", &input, Verbosity::Verbose);
        insta::assert_snapshot!(report(status, &out, &diag));
    });
}

/// Copilot CLI's, Droid's, Pi's and Kimi CLI's saved sessions, each run's
/// folder read as the library reads it (Droid's with its settings beside
/// it, Kimi's `wire.jsonl` without the `context.jsonl` beside it).
#[test]
fn saved_session_folders() {
    use std::io::Read;
    let readers = streamview::decode::store_readers();
    insta::glob!("fixtures/{copilot,droid,pi,kimi}-session/*", |path| {
        if !path.is_dir() {
            return;
        }
        let found = streamview::input::library::sessions_below(path, readers);
        let mut shown = String::new();
        for s in &found.sessions {
            let mut input = Vec::new();
            s.open(readers).unwrap().read_to_end(&mut input).unwrap();
            let (status, out, diag) = pretty("fixture", &input, Verbosity::Verbose);
            shown.push_str(&report(status, &out, &diag));
        }
        insta::assert_snapshot!(shown);
    });
}

/// The lines of session `id` of the store at `db`, as its reader gives them
/// to the decoder.
fn stored(db: &std::path::Path, id: &str) -> Vec<u8> {
    use std::io::Read;
    let mut lines = Vec::new();
    let mut rdr = streamview::decode::store_readers().open(db, id).unwrap();
    rdr.read_to_end(&mut lines).unwrap();
    lines
}
