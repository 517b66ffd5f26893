//! The man page and the shell completions are generated from the clap
//! definition (`streamview --generate KIND`, library `cli::generate`) and
//! checked in, so packagers need no build step. This test fails when a
//! checked-in file differs from what the current code generates; run with
//! `STREAMVIEW_BLESS=1` to rewrite them.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::Path;

use assert_cmd::Command;
use streamview::cli::{Generate, generate};

const BLESS: &str = "run `STREAMVIEW_BLESS=1 cargo test --test generated`";

#[test]
fn man_page_and_completions_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("STREAMVIEW_BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    let mut stale = Vec::new();
    for kind in Generate::ALL {
        let path = root.join(kind.path());
        let fresh = generate(kind);
        let current = std::fs::read(&path).ok();
        if current.as_deref() == Some(fresh.as_slice()) {
            continue;
        }
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &fresh).unwrap();
        } else {
            stale.push(kind.path());
        }
    }
    assert!(
        stale.is_empty(),
        "out of date: {} (the command line changed); {BLESS} and commit the result",
        stale.join(", ")
    );
}

/// The hidden flag prints exactly what the library generates.
#[test]
fn generate_flag_prints_the_files() {
    for (arg, kind) in [("man", Generate::Man), ("fish", Generate::Fish)] {
        let out = Command::cargo_bin("streamview")
            .unwrap()
            .args(["--generate", arg])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout, generate(kind));
    }
    // It takes no other arguments, and is not offered in the help.
    let out = Command::cargo_bin("streamview")
        .unwrap()
        .args(["--generate", "man", "x.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let help = Command::cargo_bin("streamview")
        .unwrap()
        .arg("--help")
        .output()
        .unwrap();
    assert!(
        !String::from_utf8(help.stdout)
            .unwrap()
            .contains("--generate")
    );
}

/// Every option of `--help` is in the man page and in every completion
/// file, and the man page has the sections a man page needs.
#[test]
fn generated_files_cover_every_option() {
    use clap::CommandFactory;
    let cmd = streamview::cli::Cli::command();
    let man = String::from_utf8(generate(Generate::Man)).unwrap();
    for section in [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "FILTERS",
        "OUTPUT",
        "FILTERING",
        "JSONL SCHEMA",
        "ENVIRONMENT",
        "EXIT STATUS",
        "EXAMPLES",
        "SEE ALSO",
        "VERSION",
    ] {
        assert!(
            man.contains(&format!(".SH \"{section}\""))
                || man.contains(&format!(".SH {section}\n")),
            "man page lacks {section}"
        );
    }
    assert!(
        man.is_ascii(),
        "troff wants ASCII: the rest goes as \\[uXXXX]"
    );
    for var in [
        "STREAMVIEW_VERBOSE",
        "STREAMVIEW_QUIET",
        "NO_COLOR",
        "CLICOLOR_FORCE",
    ] {
        assert!(man.contains(var), "man page lacks {var}");
    }
    for kind in streamview::filter::Kind::ALL {
        assert!(
            man.contains(kind.name()),
            "man page lacks kind {}",
            kind.name()
        );
    }
    let completions: Vec<(Generate, String)> = Generate::ALL[1..]
        .iter()
        .map(|k| (*k, String::from_utf8(generate(*k)).unwrap()))
        .collect();
    let synopsis = man
        .lines()
        .skip_while(|l| *l != ".SH SYNOPSIS")
        .nth(1)
        .unwrap();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let Some(long) = arg.get_long() else {
            continue;
        };
        // roff escapes the dash.
        let flag = format!("\\-\\-{}", long.replace('-', "\\-"));
        assert!(man.contains(&flag), "man page lacks --{long}");
        // The synopsis gives an option's value too (`--format FORMAT`).
        if let Some(value) = arg
            .get_value_names()
            .and_then(|v| v.first())
            .filter(|_| arg.get_action().takes_values())
        {
            let shown = format!("{flag}\\fR \\fI{value}\\fR]");
            assert!(synopsis.contains(&shown), "synopsis lacks {shown}");
        }
        for (kind, text) in &completions {
            assert!(text.contains(long), "{kind:?} completions lack --{long}");
        }
    }
}

fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The bash completions load and complete option values.
#[test]
fn bash_completion_works() {
    if !have("bash") {
        eprintln!("skipped: no bash");
        return;
    }
    let script = r#"source completions/streamview.bash
COMP_WORDS=(streamview --format ""); COMP_CWORD=2
_streamview streamview "" --format; echo "${COMPREPLY[*]}"
COMP_WORDS=(streamview --only ""); COMP_CWORD=2
_streamview streamview "" --only; echo "${COMPREPLY[*]}"
COMP_WORDS=(streamview --su); COMP_CWORD=1
_streamview streamview --su streamview; echo "${COMPREPLY[*]}""#;
    let out = std::process::Command::new("bash")
        .args(["--norc", "-c", script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "pretty jsonl result summary summary-json markdown html otlp",
            "header text prompts thinking tools results errors denials warnings system usage final subagents deltas other",
            "--summary",
        ],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fish completions load and complete option values (when fish is
/// installed; CI has it only if the machine does).
#[test]
fn fish_completion_works() {
    if !have("fish") {
        eprintln!("skipped: fish is not installed");
        return;
    }
    let out = std::process::Command::new("fish")
        .args([
            "--no-config",
            "-c",
            "source completions/streamview.fish; complete -C 'streamview --format summ'",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = text
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(names, ["summary", "summary-json"], "{text}");
}

/// The README's exit-status table is `ExitStatus`' table, as `--help` and
/// the man page are (they are generated from it; the README is checked).
#[test]
fn readme_exit_statuses_are_the_codes_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("\n## Exit status\n")
        .nth(1)
        .expect("README.md has a `## Exit status` section");
    let rows: Vec<(String, String)> = section
        .lines()
        .skip_while(|l| !l.starts_with("| code |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            (cells[0].to_string(), cells[1..].join(" | "))
        })
        .collect();
    let want: Vec<(String, String)> = streamview::ExitStatus::ALL
        .iter()
        .map(|s| (s.code().to_string(), s.meaning().to_string()))
        .collect();
    assert_eq!(
        rows, want,
        "README.md's exit-status table must be ExitStatus::ALL with ExitStatus::meaning (src/error.rs)"
    );
}
