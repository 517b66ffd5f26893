//! The configuration file (issue 15): default options, one per line, read
//! from `$STREAMVIEW_CONFIG` or `$XDG_CONFIG_HOME/streamview/config`; the
//! command line wins over the `STREAMVIEW_*` variables, which win over the
//! file.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Out, sv};

const TOOLS: &str = "tests/fixtures/claude/tools_basic.jsonl";

/// A directory of its own for each test.
fn dir() -> PathBuf {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "config-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A configuration file holding `text`.
fn config(text: &str) -> PathBuf {
    let path = dir().join("config");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(env: &[(&str, &Path)], args: &[&str]) -> Out {
    let mut cmd = sv();
    // `sv` says "no configuration file"; these runs name one.
    cmd.env_remove("STREAMVIEW_CONFIG");
    cmd.env("HOME", dir());
    cmd.env_remove("XDG_CONFIG_HOME");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.args(args).output().unwrap();
    Out {
        code: o.status.code().unwrap(),
        stdout: o.stdout,
        stderr: o.stderr,
    }
}

fn with(config: &Path, vars: &[(&str, &str)], args: &[&str]) -> Out {
    let mut cmd = sv();
    cmd.env("STREAMVIEW_CONFIG", config);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let o = cmd.args(args).output().unwrap();
    Out {
        code: o.status.code().unwrap(),
        stdout: o.stdout,
        stderr: o.stderr,
    }
}

fn plain(args: &[&str]) -> String {
    let mut all = vec!["--no-config"];
    all.extend_from_slice(args);
    with(Path::new("/nonexistent"), &[], &all).out()
}

#[test]
fn its_options_are_the_defaults_and_the_command_line_wins() {
    let c = config("# mine\n--max-lines 2\n\n--color=always\n");
    let o = with(&c, &[], &["-v", TOOLS]);
    assert_eq!(o.code, 0, "{}", o.err());
    assert_eq!(
        o.out(),
        plain(&["-v", "--max-lines", "2", "--color", "always", TOOLS])
    );
    assert_ne!(o.out(), plain(&["-v", TOOLS]));
    let o = with(
        &c,
        &[],
        &["-v", "--max-lines", "5", "--color", "never", TOOLS],
    );
    assert_eq!(o.out(), plain(&["-v", "--max-lines", "5", TOOLS]));
    // --no-config, or an empty STREAMVIEW_CONFIG: no file.
    let o = with(&c, &[], &["--no-config", "-v", TOOLS]);
    assert_eq!(o.out(), plain(&["-v", TOOLS]));
    let o = with(Path::new(""), &[], &["-v", TOOLS]);
    assert_eq!(o.out(), plain(&["-v", TOOLS]));
}

#[test]
fn its_list_options_give_way_to_the_command_lines() {
    let c = config("--only tools\n");
    let o = with(&c, &[], &[TOOLS]);
    assert_eq!(o.out(), plain(&["--only", "tools", TOOLS]));
    let o = with(&c, &[], &["--only", "text", TOOLS]);
    assert_eq!(o.out(), plain(&["--only", "text", TOOLS]));
}

/// -v and -q: command line > `STREAMVIEW_VERBOSE` / `STREAMVIEW_QUIET` >
/// configuration file > default.
#[test]
fn verbosity_command_line_then_environment_then_file() {
    let (normal, verbose) = (plain(&[TOOLS]), plain(&["-v", TOOLS]));
    assert_ne!(normal, verbose);
    let quiet_file = config("-q\n");
    let verbose_file = config("--verbose\n");
    // The file over the default.
    assert_eq!(with(&quiet_file, &[], &[TOOLS]).out(), "");
    assert_eq!(with(&verbose_file, &[], &[TOOLS]).out(), verbose);
    // The environment over the file.
    let o = with(&quiet_file, &[("STREAMVIEW_VERBOSE", "1")], &[TOOLS]);
    assert_eq!(o.out(), verbose, "STREAMVIEW_VERBOSE beats the file's -q");
    let o = with(&verbose_file, &[("STREAMVIEW_QUIET", "1")], &[TOOLS]);
    assert_eq!(o.out(), "", "STREAMVIEW_QUIET beats the file's -v");
    // The command line over the environment.
    let o = with(&quiet_file, &[("STREAMVIEW_VERBOSE", "1")], &["-q", TOOLS]);
    assert_eq!(o.out(), "");
    let o = with(&verbose_file, &[("STREAMVIEW_QUIET", "1")], &["-v", TOOLS]);
    assert_eq!(o.out(), verbose);
    let o = with(
        &verbose_file,
        &[("STREAMVIEW_VERBOSE", "1")],
        &["-q", TOOLS],
    );
    assert_eq!(o.out(), "");
}

#[test]
fn a_bad_line_stops_the_run_with_its_file_and_line() {
    let c = config("--max-lines 20\n# ok so far\n--colour always\n");
    let o = with(&c, &[], &[TOOLS]);
    assert_eq!(o.code, 2);
    assert_eq!(o.out(), "");
    assert_eq!(
        o.err(),
        format!(
            "streamview: {}:3: unexpected argument '--colour' found (a similar argument exists: \
             '--color'); fix the line, or run with --no-config\n",
            c.display()
        )
    );
    let c = config("--max-lines=many\n");
    let o = with(&c, &[], &[TOOLS]);
    assert_eq!(o.code, 2);
    assert!(
        o.err().starts_with(&format!(
            "streamview: {}:1: invalid value 'many'",
            c.display()
        )),
        "{}",
        o.err()
    );
    let c = config("-v\nsession.jsonl\n");
    let o = with(&c, &[], &[TOOLS]);
    assert_eq!(o.code, 2);
    assert!(
        o.err().contains(":2: `session.jsonl` is not an option"),
        "{}",
        o.err()
    );
    // No advice meant for a command line (`use '-- --bogus'`).
    let c = config("--bogus\n");
    let o = with(&c, &[], &[TOOLS]);
    assert_eq!(
        o.err(),
        format!(
            "streamview: {}:1: unexpected argument '--bogus' found; fix the line, or run with \
             --no-config\n",
            c.display()
        )
    );
    // --no-config does not read it at all.
    assert_eq!(with(&c, &[], &["--no-config", TOOLS]).code, 0);
}

#[test]
fn a_named_file_must_exist_the_usual_one_need_not() {
    let missing = dir().join("nothing-here");
    let o = with(&missing, &[], &[TOOLS]);
    assert_eq!(o.code, 2);
    assert_eq!(
        o.err(),
        format!(
            "streamview: {}: cannot read the configuration file named by STREAMVIEW_CONFIG: no \
             such file (or run with --no-config)\n",
            missing.display()
        )
    );
    // No file in $HOME/.config or $XDG_CONFIG_HOME: the defaults.
    let o = run(&[], &[TOOLS]);
    assert_eq!((o.code, o.out()), (0, plain(&[TOOLS])));
    let xdg = dir();
    let o = run(&[("XDG_CONFIG_HOME", &xdg)], &[TOOLS]);
    assert_eq!((o.code, o.out()), (0, plain(&[TOOLS])));
}

#[test]
fn the_usual_places() {
    let xdg = dir();
    std::fs::create_dir_all(xdg.join("streamview")).unwrap();
    std::fs::write(xdg.join("streamview/config"), "-q\n").unwrap();
    let o = run(&[("XDG_CONFIG_HOME", &xdg)], &[TOOLS]);
    assert_eq!((o.code, o.out()), (0, String::new()), "{}", o.err());
    let home = dir();
    std::fs::create_dir_all(home.join(".config/streamview")).unwrap();
    std::fs::write(home.join(".config/streamview/config"), "-q\n").unwrap();
    let o = run(&[("HOME", &home)], &[TOOLS]);
    assert_eq!((o.code, o.out()), (0, String::new()), "{}", o.err());
    // STREAMVIEW_CONFIG names another.
    let o = run(
        &[("HOME", &home), ("STREAMVIEW_CONFIG", &config("-v\n"))],
        &[TOOLS],
    );
    assert_eq!(o.out(), plain(&["-v", TOOLS]));
}

/// Hostile text (escape sequences, C1 controls, bidi overrides, broken
/// UTF-8) in every value of a configuration file, in its options' names, in
/// a line that is no option, and in the file's own name: nothing reaches
/// stdout or stderr raw (a `--grep` pattern from the file that is not a
/// regular expression was quoted raw by clap), and each run ends with a
/// documented status.
#[test]
fn hostile_text_in_a_configuration_file_reaches_the_terminal_inert() {
    use clap::CommandFactory;
    const HOSTILE: &str = "\x1b[31mred\x1b]0;title\x07\u{9b}2J\u{202e}evil\u{85}\x08(";
    let longs: Vec<String> = (streamview::cli::Cli::command().get_arguments())
        .filter(|a| a.get_action().takes_values())
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect();
    assert!(longs.len() >= 15, "{longs:?}");
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for long in &longs {
        lines.push(format!("--{long} {HOSTILE}").into_bytes());
        lines.push(format!("--{long}=/{HOSTILE}").into_bytes());
    }
    lines.push(format!("--{HOSTILE}").into_bytes());
    lines.push(HOSTILE.as_bytes().to_vec());
    lines.push([b"--grep \xff\xfe", HOSTILE.as_bytes()].concat());
    let d = dir();
    for (i, line) in lines.iter().enumerate() {
        // In the file's name too (a directory of that name holds it).
        let path = match i % 2 {
            0 => d.join("config"),
            _ => d.join(format!("{HOSTILE}.config")),
        };
        std::fs::write(&path, [&line[..], b"\n"].concat()).unwrap();
        for format in ["pretty", "summary", "markdown"] {
            let o = sv()
                .env("STREAMVIEW_CONFIG", &path)
                .args(["--color", "never", "--format", format, TOOLS])
                .output()
                .unwrap();
            let what = format!(
                "{} ({format})",
                String::from_utf8_lossy(line).escape_debug()
            );
            common::assert_terminal_safe(&what, &o.stdout, false);
            common::assert_terminal_safe(&what, &o.stderr, false);
            assert!(matches!(o.status.code(), Some(0..=3)), "{what}: {o:?}");
        }
    }
    let missing = d.join(format!("{HOSTILE}.missing"));
    let o = sv()
        .env("STREAMVIEW_CONFIG", &missing)
        .arg(TOOLS)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    common::assert_terminal_safe("a missing file", &o.stderr, false);
}

/// A configuration file saved with a UTF-8 byte order mark (Notepad, some
/// editors) is read as without it: the mark was taken as part of the first
/// option, which was refused with a message in which the cause is
/// invisible.
#[test]
fn a_byte_order_mark_at_the_start_is_accepted() {
    for first in ["--max-lines 2", "# a comment", "-v"] {
        let text = format!("\u{feff}{first}\n--color=always\n");
        let o = with(&config(&text), &[], &["--format", "summary", TOOLS]);
        assert_eq!(o.code, 0, "{first}: {}", o.err());
        let bare = with(&config(&text[3..]), &[], &["--format", "summary", TOOLS]);
        assert_eq!(o.out(), bare.out(), "{first}");
        assert_eq!(o.err(), bare.err(), "{first}");
    }
}
