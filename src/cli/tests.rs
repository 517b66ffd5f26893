use super::*;
use super::{args::*, env::*};
use crate::event::Producer;
use crate::input::Source;
use crate::render::Verbosity;
use crate::time::Timestamp;
use clap::Parser;
use std::time::Duration;

fn cli(args: &[&str]) -> Cli {
    Cli::try_parse_from(std::iter::once("streamview").chain(args.iter().copied())).unwrap()
}

#[test]
fn sizes() {
    assert_eq!(parse_size("100"), Ok(100));
    assert_eq!(parse_size("64M"), Ok(64 << 20));
    assert_eq!(parse_size("2k"), Ok(2048));
    assert!(parse_size("0").is_err());
    assert!(parse_size("lots").is_err());
}

#[test]
fn since_and_until_read_the_clock_and_zone_given() {
    let env = Env {
        now: Timestamp::parse("2026-11-24T10:30:00Z"),
        tz: Some("CET-1".into()),
        ..Env::default()
    };
    let w = resolve(&cli(&["--since", "2h", "--until", "2026-11-24"]), &env)
        .unwrap()
        .window;
    assert_eq!(w.since, Timestamp::parse("2026-11-24T08:30:00Z"));
    // The end of the 24th in Paris in winter.
    assert_eq!(w.until, Timestamp::parse("2026-11-24T23:00:00Z"));
    let utc = Env {
        tz: Some("UTC".into()),
        ..env.clone()
    };
    let w = resolve(&cli(&["--since", "yesterday"]), &utc)
        .unwrap()
        .window;
    assert_eq!(w.since, Timestamp::parse("2026-11-23T00:00:00Z"));
    assert_eq!(w.until, None);
    assert!(resolve(&cli(&[]), &env).unwrap().window.is_all());
    assert!(Cli::try_parse_from(["streamview", "--since", "soon"]).is_err());
}

#[test]
fn latest_from_codex_reads_rollouts() {
    let from = |args: &[&str]| resolve(&cli(args), &Env::default()).unwrap().from;
    assert_eq!(
        from(&["--latest", "--from", "codex"]),
        Some(Producer::CodexRollout)
    );
    assert_eq!(from(&["--from", "codex", "x.jsonl"]), Some(Producer::Codex));
    assert_eq!(
        from(&["--latest", "--from", "gemini"]),
        Some(Producer::GeminiSession)
    );
    let env = Env {
        home: Some("/h".into()),
        homes: homes::Homes::default().with("GEMINI_CLI_HOME", "/g"),
        ..Env::default()
    };
    let sources = |args: &[&str], env: &Env| resolve(&cli(args), env).unwrap().sources;
    assert!(
        matches!(&sources(&["--latest", "--from", "gemini"], &env)[..],
        [Source::Path(p)] if p == std::path::Path::new("/g/.gemini/tmp"))
    );
    let env = Env {
        homes: homes::Homes::default(),
        ..env
    };
    assert!(
        matches!(&sources(&["--latest", "--from", "gemini"], &env)[..],
        [Source::Path(p)] if p == std::path::Path::new("/h/.gemini/tmp"))
    );
    assert_eq!(
        from(&["--latest", "--from", "claude"]),
        Some(Producer::Claude)
    );
    for (named, read) in [
        ("qwen", Producer::QwenSession),
        ("cline", Producer::ClineSession),
        ("pi", Producer::Pi),
        ("amp", Producer::Amp),
        ("claude-transcript", Producer::ClaudeTranscript),
        ("codex-rollout", Producer::CodexRollout),
    ] {
        assert_eq!(from(&["--latest", "--from", named]), Some(read), "{named}");
    }
    // An agent that keeps no sessions: Claude Code's folder.
    assert!(matches!(&sources(&["--latest", "--from", "amp"], &env)[..],
        [Source::Path(p)] if p == std::path::Path::new("/h/.claude/projects")));
}

#[test]
fn jobs_are_at_most_eight_per_core() {
    let jobs = |args: &[&str], cores: usize| {
        let env = Env {
            cores,
            ..Env::default()
        };
        resolve(&cli(args), &env).unwrap().jobs
    };
    assert_eq!(jobs(&[], 4), 4);
    assert_eq!(jobs(&[], 0), 1);
    assert_eq!(jobs(&["-j", "3"], 2), 3);
    assert_eq!(jobs(&["-j", "16"], 2), 16);
    assert_eq!(jobs(&["-j", "65535"], 2), 16);
    assert_eq!(jobs(&["-j", "65535"], 0), 8);
}

#[test]
fn flag_beats_environment() {
    let env = Env {
        verbose: Some("1".into()),
        ..Env::default()
    };
    assert_eq!(
        resolve(&cli(&[]), &env).unwrap().verbosity,
        Verbosity::Verbose
    );
    assert_eq!(
        resolve(&cli(&["-q"]), &env).unwrap().verbosity,
        Verbosity::Quiet
    );
    let env = Env {
        quiet: Some("1".into()),
        ..Env::default()
    };
    assert_eq!(
        resolve(&cli(&["-v"]), &env).unwrap().verbosity,
        Verbosity::Verbose
    );
    assert_eq!(
        resolve(&cli(&[]), &env).unwrap().verbosity,
        Verbosity::Quiet
    );
    let env = Env {
        quiet: Some("0".into()),
        ..Env::default()
    };
    assert_eq!(
        resolve(&cli(&[]), &env).unwrap().verbosity,
        Verbosity::Normal
    );
}

#[test]
fn colour_decisions() {
    let tty = Env {
        stdout_tty: true,
        stderr_tty: true,
        ..Env::default()
    };
    assert!(resolve(&cli(&[]), &tty).unwrap().color_stdout);
    let no = Env {
        no_color: Some("1".into()),
        ..tty.clone()
    };
    assert!(!resolve(&cli(&[]), &no).unwrap().color_stdout);
    assert!(
        resolve(&cli(&["--color", "always"]), &no)
            .unwrap()
            .color_stdout
    );
    let pipe = Env::default();
    assert!(!resolve(&cli(&[]), &pipe).unwrap().color_stdout);
    let forced = Env {
        clicolor_force: Some("1".into()),
        ..Env::default()
    };
    assert!(resolve(&cli(&[]), &forced).unwrap().color_stdout);
    assert!(
        !resolve(&cli(&["--color", "never"]), &forced)
            .unwrap()
            .color_stdout
    );
    assert!(
        !resolve(&cli(&["--format", "jsonl", "--color", "always"]), &tty)
            .unwrap()
            .color_stdout
    );
}

#[test]
fn mirror_only_off_terminal() {
    assert!(resolve(&cli(&[]), &Env::default()).unwrap().mirror_errors);
    let tty = Env {
        stdout_tty: true,
        ..Env::default()
    };
    assert!(!resolve(&cli(&[]), &tty).unwrap().mirror_errors);
}

#[test]
fn a_report_without_input_at_a_terminal_reads_the_stores() {
    let home = std::env::temp_dir().join(format!("sv-cli-home-{}", std::process::id()));
    std::fs::create_dir_all(home.join(".claude/projects")).unwrap();
    let env = Env {
        stdin_tty: true,
        home: Some(home.clone().into()),
        ..Env::default()
    };
    let projects = Source::Path(home.join(".claude/projects"));
    for args in [&["--by", "day"][..], &["--list"], &["--format", "summary"]] {
        let sources = resolve(&cli(args), &env).unwrap().sources;
        assert_eq!(sources, std::slice::from_ref(&projects), "{args:?}");
    }
    // A pipe on standard input, a view, a file named: as before.
    let piped = Env {
        stdin_tty: false,
        ..env.clone()
    };
    let stdin = |args: &[&str], env: &Env| resolve(&cli(args), env).unwrap().sources;
    assert_eq!(stdin(&["--by", "day"], &piped), [Source::Stdin]);
    assert_eq!(stdin(&[], &env), [Source::Stdin]);
    assert_eq!(stdin(&["--format", "jsonl"], &env), [Source::Stdin]);
    // No store at all: refused in one line that says what to do.
    let bare = Env {
        home: Some("/nonexistent".into()),
        ..env.clone()
    };
    assert!(resolve(&cli(&["--by", "day"]), &bare).is_err());
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn status_line_only_on_a_capable_terminal_for_people() {
    let tty = Env {
        stdout_tty: true,
        term: Some("xterm-256color".into()),
        ..Env::default()
    };
    assert!(resolve(&cli(&[]), &tty).unwrap().status);
    assert!(
        resolve(&cli(&["--format", "summary"]), &tty)
            .unwrap()
            .status
    );
    assert!(!resolve(&cli(&["--no-status"]), &tty).unwrap().status);
    assert!(!resolve(&cli(&["--format", "jsonl"]), &tty).unwrap().status);
    assert!(
        !resolve(&cli(&["--format", "summary-json"]), &tty)
            .unwrap()
            .status
    );
    assert!(!resolve(&cli(&["-q"]), &tty).unwrap().status);
    assert!(
        !resolve(&cli(&[]), &Env::default()).unwrap().status,
        "a pipe"
    );
    let dumb = Env {
        term: Some("dumb".into()),
        ..tty.clone()
    };
    assert!(!resolve(&cli(&[]), &dumb).unwrap().status);
    assert_eq!(
        resolve(&cli(&["--status-wait", "5"]), &tty)
            .unwrap()
            .status_wait,
        Duration::from_secs(5)
    );
    assert!(Cli::try_parse_from(["streamview", "--status-wait", "0"]).is_err());
}

/// Verbosity: the command line, then `STREAMVIEW_*`, then the
/// configuration file, then the default.
#[test]
fn verbosity_precedence_with_a_configuration_file() {
    let from_file = |v: Verbosity, args: &[&str]| Cli {
        config_verbosity: Some(v),
        ..cli(args)
    };
    let none = Env::default();
    let verbose = Env {
        verbose: Some("1".into()),
        ..Env::default()
    };
    let quiet = Env {
        quiet: Some("1".into()),
        ..Env::default()
    };
    let v = |c: &Cli, e: &Env| resolve(c, e).unwrap().verbosity;
    // STREAMVIEW_VERBOSE
    assert_eq!(
        v(&from_file(Verbosity::Quiet, &[]), &none),
        Verbosity::Quiet
    );
    assert_eq!(
        v(&from_file(Verbosity::Quiet, &[]), &verbose),
        Verbosity::Verbose
    );
    assert_eq!(
        v(&from_file(Verbosity::Quiet, &["-q"]), &verbose),
        Verbosity::Quiet
    );
    // STREAMVIEW_QUIET
    assert_eq!(
        v(&from_file(Verbosity::Verbose, &[]), &none),
        Verbosity::Verbose
    );
    assert_eq!(
        v(&from_file(Verbosity::Verbose, &[]), &quiet),
        Verbosity::Quiet
    );
    assert_eq!(
        v(&from_file(Verbosity::Verbose, &["-v"]), &quiet),
        Verbosity::Verbose
    );
    // A variable set to 0 is unset: the file decides.
    let zero = Env {
        verbose: Some("0".into()),
        ..Env::default()
    };
    assert_eq!(
        v(&from_file(Verbosity::Quiet, &[]), &zero),
        Verbosity::Quiet
    );
    assert_eq!(v(&cli(&[]), &zero), Verbosity::Normal);
}

fn replay() -> Env {
    Env {
        stdout_tty: true,
        stderr_tty: true,
        term: Some("xterm-256color".into()),
        regular_inputs: true,
        ..Env::default()
    }
}

#[test]
fn a_progress_line_for_reports_and_searches_on_a_terminals_stderr() {
    let env = replay();
    let progress = |args: &[&str], env: &Env| resolve(&cli(args), env).unwrap().progress;
    assert!(progress(&["--by", "day", "lib"], &env));
    assert!(progress(&["--format", "html", "lib"], &env));
    assert!(progress(&["--grep", "x", "lib"], &env));
    assert!(progress(&["--list", "lib"], &env));
    // The pretty view streams; -q and -f are not reports.
    assert!(!progress(&["lib"], &env));
    assert!(!progress(&["-q", "--grep", "x", "lib"], &env));
    assert!(!progress(&["-f", "--format", "summary", "a.jsonl"], &env));
    let piped = Env {
        stderr_tty: false,
        ..replay()
    };
    assert!(!progress(&["--by", "day", "lib"], &piped));
    let dumb = Env {
        term: Some("dumb".into()),
        ..replay()
    };
    assert!(!progress(&["--by", "day", "lib"], &dumb));
}

#[test]
fn a_replay_on_a_terminal_is_paged() {
    let env = replay();
    let paged = |args: &[&str], env: &Env| resolve(&cli(args), env).unwrap().pager.is_some();
    assert!(paged(&["a.jsonl"], &env));
    assert!(paged(&["--format", "summary", "a.jsonl"], &env));
    assert!(!paged(&["--format", "jsonl", "a.jsonl"], &env));
    assert!(!paged(&["--format", "result", "a.jsonl"], &env));
    assert!(!paged(&["-q", "a.jsonl"], &env));
    assert!(!paged(&["-f", "a.jsonl"], &env));
    assert!(!paged(&["--paging", "never", "a.jsonl"], &env));
    let live = Env {
        regular_inputs: false,
        ..replay()
    };
    assert!(!paged(&[], &live), "standard input, a FIFO");
    assert!(paged(&["--paging", "always"], &live));
    let piped = Env {
        stdout_tty: false,
        stdout_pipe: true,
        ..replay()
    };
    assert!(!paged(&["a.jsonl"], &piped));
    assert!(paged(&["--paging", "always", "--format", "jsonl"], &piped));
    // While paging: no status line, colour as on the terminal, no
    // copies of the errors on stderr.
    let o = resolve(&cli(&["a.jsonl"]), &env).unwrap();
    assert!(!o.status && o.color_stdout && !o.mirror_errors);
    assert!(o.pager.as_ref().is_some_and(|p| p.takes_stderr));
    let o = resolve(&cli(&["--paging", "never", "a.jsonl"]), &env).unwrap();
    assert!(o.status && o.pager.is_none());
    let o = resolve(&cli(&["--paging", "always"]), &Env::default()).unwrap();
    assert!(!o.mirror_errors, "the pager shows them in the stream");
    let err_to_file = Env {
        stderr_tty: false,
        ..replay()
    };
    let o = resolve(&cli(&["a.jsonl"]), &err_to_file).unwrap();
    assert!(
        o.pager.is_some_and(|p| !p.takes_stderr),
        "stderr stays where it goes"
    );
}

#[test]
fn which_pager() {
    let pager = |sv: Option<&str>, pager: Option<&str>| {
        let env = Env {
            pager: sv.map(Into::into),
            pager_env: pager.map(Into::into),
            ..replay()
        };
        let p = resolve(&cli(&["a.jsonl"]), &env).unwrap().pager.unwrap();
        (p.command_line(), p.named_by)
    };
    assert_eq!(pager(None, None), ("less -RFX".into(), None));
    assert_eq!(pager(Some(""), Some("  ")), ("less -RFX".into(), None));
    assert_eq!(pager(None, Some("more")), ("more".into(), Some("PAGER")));
    assert_eq!(pager(None, Some("less")), ("less -R".into(), Some("PAGER")));
    assert_eq!(
        pager(None, Some("/usr/bin/less -i")),
        ("/usr/bin/less -i -R".into(), Some("PAGER"))
    );
    assert_eq!(
        pager(Some("less -S"), Some("more")),
        ("less -S".into(), Some("STREAMVIEW_PAGER"))
    );
    assert_eq!(
        pager(Some("  bat  --plain "), None),
        ("bat --plain".into(), Some("STREAMVIEW_PAGER"))
    );
}

/// An alias's options given again: the last one wins, `-v`/`-q`
/// included; list options add up.
#[test]
fn the_last_option_wins() {
    let env = Env::default();
    let parse = |args: &[&str]| {
        let mut all = vec!["streamview"];
        all.extend_from_slice(args);
        Cli::try_parse_from(all).unwrap()
    };
    let v = |args: &[&str]| resolve(&parse(args), &env).unwrap().verbosity;
    assert_eq!(v(&["-v", "-q"]), Verbosity::Quiet);
    assert_eq!(v(&["-q", "-v"]), Verbosity::Verbose);
    assert_eq!(v(&["-vv"]), Verbosity::Verbose);
    assert_eq!(v(&["-v", "--verbose"]), Verbosity::Verbose);
    let c = parse(&["--format", "jsonl", "--format", "summary"]);
    assert_eq!(c.format, Some(Format::Summary));
    let c = parse(&[
        "--color",
        "always",
        "--color",
        "never",
        "--no-status",
        "--no-status",
    ]);
    assert_eq!(c.color, ColorWhen::Never);
    let c = parse(&[
        "--max-lines",
        "3",
        "--max-lines",
        "7",
        "--status-wait",
        "5",
        "--status-wait",
        "9",
    ]);
    assert_eq!((c.max_lines, c.status_wait), (7, 9));
    let c = parse(&["--tool", "Bash", "--tool", "Read"]);
    assert_eq!(c.tools.len(), 2);
    let c = parse(&[
        "--from",
        "claude",
        "--from",
        "codex",
        "-f",
        "-f",
        "--summary",
        "--summary",
    ]);
    assert!(c.follow && c.summary);
}
