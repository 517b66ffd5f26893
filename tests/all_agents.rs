//! `--all-agents`: the saved sessions of every agent found under a home, at
//! once, totalled as each agent counted them.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// Copy the folder `from` (a fixture's) to `to`, recursively.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A home with the `mixed` run of Qwen Code, Copilot, Droid, Pi, Cline,
/// `OpenCode`, Kilo and Kimi CLI saved where each keeps its sessions.
fn home(name: &str) -> PathBuf {
    let home = std::env::temp_dir().join(format!("sv-all-agents-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let f = Path::new(FIXTURES);
    copy_tree(
        &f.join("qwen-session/mixed/projects"),
        &home.join(".qwen/projects"),
    );
    copy_tree(
        &f.join("copilot-session/mixed/session-state"),
        &home.join(".copilot/session-state"),
    );
    copy_tree(
        &f.join("droid-session/mixed/sessions"),
        &home.join(".factory/sessions"),
    );
    copy_tree(
        &f.join("pi-session/mixed/sessions"),
        &home.join(".pi/agent/sessions"),
    );
    copy_tree(
        &f.join("cline-session/mixed/sessions"),
        &home.join(".cline/data/sessions"),
    );
    copy_tree(
        &f.join("kimi-session/mixed/sessions"),
        &home.join(".kimi/sessions"),
    );
    for (db, to) in [
        (
            "opencode-session/mixed/opencode.db",
            ".local/share/opencode",
        ),
        ("kilo-session/mixed/kilo.db", ".local/share/kilo"),
    ] {
        let from = f.join(db);
        std::fs::create_dir_all(home.join(to)).unwrap();
        std::fs::copy(&from, home.join(to).join(from.file_name().unwrap())).unwrap();
    }
    home
}

fn streamview(args: &[&str], home: &Path) -> (String, i32) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_streamview"));
    for v in [
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "QWEN_HOME",
        "QWEN_RUNTIME_DIR",
        "COPILOT_HOME",
        "PI_CODING_AGENT_DIR",
        "XDG_DATA_HOME",
        "OPENCODE_DB",
        "KIMI_SHARE_DIR",
    ] {
        cmd.env_remove(v);
    }
    let out = cmd.args(args).env("HOME", home).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn every_agent_found_is_read_and_totalled() {
    let home = home("all");
    let (text, status) = streamview(&["--all-agents", "--format", "summary-json"], &home);
    let (by_day, day_status) = streamview(&["--all-agents", "--by", "day"], &home);
    let (jsonl, _) = streamview(&["--all-agents", "--format", "jsonl"], &home);
    std::fs::remove_dir_all(&home).unwrap();
    assert_eq!(status, 0, "{text}");
    let v: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let t = &v["total"]["tokens"];
    // Each run: 4300 input tokens of which 3200 cached, 190 output, as each
    // CLI counted them (its usage record, shutdown, settings, messages,
    // session rows or wire log).
    assert_eq!(
        ["input", "output", "cache_read"].map(|k| t[k].as_u64().unwrap()),
        [8 * 1100, 8 * 190, 8 * 3200]
    );
    for p in [
        "qwen-session",
        "copilot",
        "droid",
        "pi",
        "opencode",
        "kilo",
        "cline-session",
        "kimi-session",
    ] {
        assert!(jsonl.contains(&format!("\"producer\":\"{p}\"")), "{p}");
    }
    assert_eq!(day_status, 0, "{by_day}");
    assert!(by_day.contains("2026-11-26"), "{by_day}");
}

#[test]
fn no_agent_found_is_a_usage_error() {
    let empty = std::env::temp_dir().join(format!("sv-no-agents-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let (_, status) = streamview(&["--all-agents"], &empty);
    std::fs::remove_dir_all(&empty).unwrap();
    assert_eq!(status, 2);
}

#[test]
fn latest_from_opencode_or_kilo_reads_the_newest_session_of_its_database() {
    let home = home("latest");
    let (opencode, status) = streamview(
        &["--latest", "--from", "opencode", "--format", "jsonl"],
        &home,
    );
    let (kilo, _) = streamview(&["--latest", "--from", "kilo", "--format", "jsonl"], &home);
    std::fs::remove_dir_all(&home).unwrap();
    assert_eq!(status, 0);
    assert!(opencode.contains("\"producer\":\"opencode\""), "{opencode}");
    assert!(opencode.contains("\"name\":\"write\""), "{opencode}");
    assert!(kilo.contains("\"producer\":\"kilo\""), "{kilo}");
}

#[test]
fn a_report_without_input_at_a_terminal_reads_every_agent() {
    // A newcomer's first command: no file, a terminal on standard input.
    let home = home("tty");
    let env = format!("HOME='{}'", home.display());
    let Some((child, _)) = common::on_pty(&home, &env, "--by day --color never", (160, 40), true)
    else {
        return;
    };
    let out = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    let (piped, _) = streamview(&["--all-agents", "--by", "day"], &home);
    std::fs::remove_dir_all(&home).unwrap();
    assert!(out.status.success(), "{screen}");
    let total = piped.lines().find(|l| l.starts_with("total")).unwrap();
    assert!(screen.contains(total), "{screen:?} lacks {total:?}");
    // With a pipe on standard input, the pipe is read, as always.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_streamview"));
    let piped_in = cmd
        .args(["--by", "day"])
        .env("HOME", "/nonexistent")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    // (An empty pipe, not the refusal of a home without stores.)
    let err = String::from_utf8_lossy(&piped_in.stderr);
    assert!(err.contains("the input is empty"), "{err}");
    assert_eq!(piped_in.status.code(), Some(3), "{err}");
}
