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
/// `OpenCode`, Kilo, Kimi CLI, Hermes Agent and `OpenClaw` saved where each
/// keeps its sessions, and Crush's two projects
/// (`~/work/<project>/.crush/crush.db`, listed in
/// `~/.local/share/crush/projects.json`).
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
    copy_tree(
        &f.join("openclaw-session/mixed/agents"),
        &home.join(".openclaw/agents"),
    );
    for (db, to) in [
        (
            "opencode-session/mixed/opencode.db",
            ".local/share/opencode",
        ),
        ("kilo-session/mixed/kilo.db", ".local/share/kilo"),
        ("hermes-session/mixed/state.db", ".hermes"),
    ] {
        let from = f.join(db);
        std::fs::create_dir_all(home.join(to)).unwrap();
        std::fs::copy(&from, home.join(to).join(from.file_name().unwrap())).unwrap();
    }
    let mut projects = Vec::new();
    for p in CRUSH_PROJECTS {
        let data = home.join("work").join(p).join(".crush");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::copy(crush_db(p), data.join("crush.db")).unwrap();
        projects.push(serde_json::json!({"path": home.join("work").join(p), "data_dir": data}));
    }
    let crush = home.join(".local/share/crush");
    std::fs::create_dir_all(&crush).unwrap();
    let list = serde_json::json!({ "projects": projects }).to_string();
    std::fs::write(crush.join("projects.json"), list).unwrap();
    home
}

/// Crush's fixture projects.
const CRUSH_PROJECTS: [&str; 2] = ["alpha", "beta"];

fn crush_db(project: &str) -> PathBuf {
    Path::new(FIXTURES).join(format!("crush-session/{project}/.crush/crush.db"))
}

/// Crush's tokens (prompt, completion) in its stores' `sessions` rows,
/// sub-agents' included, as Crush counted them.
fn crush_tokens() -> [u64; 2] {
    let mut sum = [0; 2];
    for p in CRUSH_PROJECTS {
        let db = rusqlite::Connection::open(crush_db(p)).unwrap();
        let row: (i64, i64) = db
            .query_row(
                "SELECT sum(prompt_tokens), sum(completion_tokens) FROM sessions",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        sum[0] += u64::try_from(row.0).unwrap();
        sum[1] += u64::try_from(row.1).unwrap();
    }
    sum
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
        "HERMES_HOME",
        "OPENCLAW_STATE_DIR",
        "OPENCLAW_DIR",
        "CRUSH_GLOBAL_DATA",
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
    // session rows or wire log); and Crush's sessions rows.
    let [prompt, completion] = crush_tokens();
    assert_eq!(
        ["input", "output", "cache_read"].map(|k| t[k].as_u64().unwrap()),
        [10 * 1100 + prompt, 10 * 190 + completion, 10 * 3200]
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
        "hermes",
        "openclaw",
        "crush",
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

/// `home`'s agents with Claude Code's transcripts as it keeps them (a
/// session with its sub-agents' files, its cost line reporting the total)
/// and Codex's rollouts: reported and estimated costs side by side.
fn home_with_costs(name: &str) -> PathBuf {
    let home = home(name);
    let f = Path::new(FIXTURES);
    let project = home.join(".claude/projects/-home-dev-work-subagent");
    let session = "5f1ad5d1-d6ee-42ad-828a-3a8469893c3f";
    let transcripts = f.join("claude-transcript");
    std::fs::create_dir_all(project.join(session).join("subagents")).unwrap();
    let copy = |from: &str, to: PathBuf| std::fs::copy(transcripts.join(from), to).unwrap();
    copy(
        "v2.1.330_transcript_subagent.jsonl",
        project.join(format!("{session}.jsonl")),
    );
    for agent in ["a33c7066d6f0e2ac6", "ab9e7b6a40a741e9b"] {
        copy(
            &format!("v2.1.330_transcript_subagent.agent-{agent}.jsonl"),
            project
                .join(session)
                .join(format!("subagents/agent-{agent}.jsonl")),
        );
    }
    for t in [
        "transcript_thinking.jsonl",
        "v2.1.330_transcript_tools_basic.jsonl",
    ] {
        copy(t, project.join(t));
    }
    let rollouts = home.join(".codex/sessions/2026/11/22");
    std::fs::create_dir_all(&rollouts).unwrap();
    for r in ["mixed", "shell_fail", "reasoning"] {
        std::fs::copy(
            f.join(format!("codex-rollout/{r}.rollout.jsonl")),
            rollouts.join(format!("rollout-{r}.jsonl")),
        )
        .unwrap();
    }
    home
}

/// Cents, as the tables show them.
fn cents(usd: f64) -> i64 {
    #[allow(clippy::cast_possible_truncation)] // cents of a test's sums
    let c = (usd * 100.0).round() as i64;
    c
}

#[test]
fn every_grouping_adds_up_to_the_same_cents() {
    let home = home_with_costs("cents");
    let report = |by: &str| {
        let args = ["--all-agents", "--by", by, "--format", "summary-json"];
        let (text, status) = streamview(&args, &home);
        assert_eq!(status, 0, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let reports: Vec<(&str, Value)> = [
        "day", "week", "month", "block", "session", "project", "model", "agent",
    ]
    .into_iter()
    .map(|by| (by, report(by)))
    .collect();
    let (table_day, _) = streamview(&["--all-agents", "--by", "day"], &home);
    let (table_model, _) = streamview(&["--all-agents", "--by", "model"], &home);
    std::fs::remove_dir_all(&home).unwrap();
    let total = reports[0].1["total"]["cost_usd"].as_f64().unwrap();
    // A reported total (the transcript's cost line, Pi's) and estimates both
    // count: more than either kind alone.
    assert!(total > 0.2, "{total}");
    let sum = |rows: &Value, f: &dyn Fn(&Value) -> f64| -> f64 {
        rows.as_array().unwrap().iter().map(f).sum()
    };
    let cost = |r: &Value| r["cost_usd"].as_f64().unwrap_or(0.0);
    let output = |r: &Value| r["tokens"]["output"].as_f64().unwrap_or(0.0);
    let total_output = reports[0].1["total"]["tokens"]["output"].as_f64().unwrap();
    // By model, each model's row; in every other grouping, its breakdowns.
    let model_cost = |report: &Value, model: &str| -> f64 {
        let rows = report["by"]["rows"].as_array().unwrap();
        (rows.iter().flat_map(|r| r["models"].as_array().unwrap()))
            .filter(|m| m["model"] == model)
            .map(cost)
            .sum()
    };
    let by_model = &reports[6].1["by"]["rows"];
    for (by, r) in &reports {
        let rows = &r["by"]["rows"];
        assert_eq!(cents(sum(rows, &cost)), cents(total), "--by {by}");
        assert!((sum(rows, &output) - total_output).abs() < 0.5, "--by {by}");
        for m in by_model.as_array().unwrap() {
            let name = m["group"].as_str().unwrap();
            if name != "–" {
                assert_eq!(
                    cents(model_cost(r, name)),
                    cents(cost(m)),
                    "{name} --by {by}"
                );
            }
        }
    }
    // The tables' total lines show it too.
    let line = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("total"))
            .unwrap()
            .to_string()
    };
    // (In cents, or to a hundredth of a cent when a row costs less than
    // one: Crush's sessions.)
    let dollars = [format!("${total:.2}"), format!("${total:.4}")];
    let shows = |t: &str| dollars.iter().any(|d| line(t).contains(d.as_str()));
    assert!(shows(&table_day), "{table_day}");
    assert!(shows(&table_model), "{table_model}");
}
