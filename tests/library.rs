//! Directories as inputs (issue 17): the session files below a directory,
//! read in the order the sessions began, each Claude transcript with its
//! `subagents/` files as `cat` would give them; other files left alone.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;
#[path = "../benches/support/generate.rs"]
mod generate;
#[path = "../benches/support/library.rs"]
mod library_gen;

use std::fs;
use std::path::{Path, PathBuf};

use common::{fixture, read, run, sv};

/// A Claude projects folder as Claude Code lays it out, with a stray
/// file, an empty log and a non-session file beside the sessions.
fn library(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("library-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let project = root.join("-home-dev-work-project");
    let agents = project.join("6eb7e71f/subagents");
    fs::create_dir_all(&agents).unwrap();
    let t = |n: &str| fixture(&format!("claude-transcript/{n}"));
    // Began at 03:53:01: second.
    fs::copy(
        t("transcript_subagent.jsonl"),
        project.join("6eb7e71f.jsonl"),
    )
    .unwrap();
    for id in ["a8164d334e3dc2758", "abe457c7cccc84957"] {
        let from = t(&format!("transcript_subagent.agent-{id}.jsonl"));
        fs::copy(from, agents.join(format!("agent-{id}.jsonl"))).unwrap();
    }
    // Began at 03:52:49: first, though its name sorts last.
    fs::copy(t("transcript_tools_basic.jsonl"), project.join("zz.jsonl")).unwrap();
    // Began at 04:47:24, compressed, in a folder of its own: third.
    let later = root.join("other-project");
    fs::create_dir_all(&later).unwrap();
    let thinking = read(&t("v2.1.330_transcript_thinking.jsonl"));
    fs::write(later.join("s.jsonl.gz"), common::compress::gzip(&thinking)).unwrap();
    fs::write(project.join("empty.jsonl"), "").unwrap();
    fs::write(root.join("notes.txt"), "not a session\n").unwrap();
    fs::write(project.join("6eb7e71f/tool-result.json"), "{}\n").unwrap();
    root
}

/// An empty projects folder with one project: (the folder, the project).
fn empty_project(name: &str) -> (PathBuf, PathBuf) {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("library-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let project = root.join("-home-dev-work-project");
    fs::create_dir_all(&project).unwrap();
    (root, project)
}

fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap()
}

/// Events of JSONL output, without the `source` field (which names the file).
fn events(jsonl: &[u8]) -> Vec<serde_json::Value> {
    text(jsonl)
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("source");
            v
        })
        .collect()
}

fn sessions_in(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("● ")).collect()
}

#[test]
fn a_directory_reads_its_sessions_in_start_order() {
    let root = library("order");
    let o = sv().args(["--color", "never"]).arg(&root).output().unwrap();
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // Other files and a log without a session are left alone, quietly.
    assert_eq!(text(&o.stderr), "");
    let headers = sessions_in(out);
    assert_eq!(headers.len(), 3, "{out}");
    assert!(headers[0].contains("/tools_basic/"), "{headers:?}");
    assert!(headers[1].contains("/subagent/"), "{headers:?}");
    // The sub-agents' activity nested under the bars, where it happened:
    // named while both ran, the Rust one alone after the Python one's
    // answer (its report, shown in its block, not repeated).
    assert!(
        out.contains(
            "  │ [Inspect Python code] ▸ Read hello.py\n  │ [Inspect Rust code] ▸ Bash wc -l src/lib.rs\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("◂ Agent general-purpose: Inspect Python code\n  ⎿ (its report, above)\n  │ ▸ Bash false\n  │ ✗ Bash false failed\n"),
        "{out}"
    );
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_session_and_its_sub_agents_interleave_in_time() {
    let root = library("cat");
    let project = root.join("-home-dev-work-project");
    let main = project.join("6eb7e71f.jsonl");
    let mut cat = read(&main);
    let mut agents: Vec<PathBuf> = fs::read_dir(project.join("6eb7e71f/subagents"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    agents.sort();
    for a in &agents {
        cat.extend(read(a));
    }
    let piped = run(&["--format", "jsonl"], &cat);
    let dir = sv()
        .args(["--format", "jsonl"])
        .arg(&root)
        .output()
        .unwrap();
    let from_dir: Vec<serde_json::Value> = text(&dir.stdout)
        .lines()
        .filter(|l| l.contains(&format!("\"source\":\"{}\"", main.display())))
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("source");
            v
        })
        .collect();
    // The events of `cat`, but in the order they happened: each sub-agent's
    // between its call and the call's result, as a live stream has them.
    let without_line = |evs: &[serde_json::Value]| {
        let mut v: Vec<String> = evs
            .iter()
            .map(|e| {
                let mut e = e.clone();
                e.as_object_mut().unwrap().remove("line");
                e.to_string()
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        without_line(&from_dir),
        without_line(&events(&piped.stdout))
    );
    let times: Vec<&str> = from_dir
        .iter()
        .filter_map(|e| e["timestamp"].as_str())
        .collect();
    assert!(times.is_sorted(), "{times:?}");
    let at = |kind: &str, id: &str| {
        from_dir
            .iter()
            .position(|e| e["kind"] == kind && e["id"] == id)
            .unwrap()
    };
    let mut nested = 0;
    for (i, e) in from_dir.iter().enumerate() {
        if let Some(call) = e["parent"].as_str() {
            assert!(
                at("tool_call", call) < i && i < at("tool_result", call),
                "{e}"
            );
            nested += 1;
        }
    }
    assert!(nested >= 8, "{nested} sub-agent events");
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn verbose_counts_what_was_read_and_left_alone() {
    let root = library("verbose");
    let o = sv()
        .args(["-v", "--color", "never"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "streamview: {}: 6 session files read (1 without a session), 2 other files left alone",
            root.display()
        )),
        "{err}"
    );
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_directory_without_sessions_is_an_input_without_a_session() {
    let root = library("none");
    let empty = root.join("nothing");
    fs::create_dir_all(&empty).unwrap();
    fs::write(empty.join("a.txt"), "x").unwrap();
    let o = sv().arg(&empty).output().unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(
        text(&o.stderr),
        format!(
            "streamview: {}: no session files below it (*.jsonl or *.ndjson, compressed or \
             not; 1 other file left alone)\n",
            empty.display()
        )
    );
    // Beside a directory that has some, it still makes the status 3.
    let o = sv()
        .arg(&empty)
        .arg(root.join("other-project"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(sessions_in(text(&o.stdout)).len() == 1);
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn the_summary_of_a_directory_has_a_row_per_session() {
    let root = library("summary");
    let o = sv()
        .args(["--format", "summary-json"])
        .arg(&root)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sources: Vec<&str> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source"].as_str().unwrap())
        .collect();
    let name = |p: &str| {
        Path::new(p)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        sources.iter().map(|s| name(s)).collect::<Vec<_>>(),
        ["zz.jsonl", "6eb7e71f.jsonl", "s.jsonl.gz"]
    );
    fs::remove_dir_all(&root).unwrap();
}

/// Make `file` the one changed last.
fn touch(file: &Path) {
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    fs::File::options()
        .append(true)
        .open(file)
        .unwrap()
        .set_modified(later)
        .unwrap();
}

#[test]
fn latest_replays_the_session_that_began_last() {
    let root = library("latest");
    let project = root.join("-home-dev-work-project");
    // Of the two left, the one with sub-agents began last (03:53:01); the
    // other (03:52:49) is the file changed last (a session resumed):
    // `--latest`, as `--list`, goes by when a session began.
    fs::remove_dir_all(root.join("other-project")).unwrap();
    // (An empty log, written now, would be a session begun now.)
    fs::remove_file(project.join("empty.jsonl")).unwrap();
    touch(&project.join("zz.jsonl"));
    let o = sv()
        .args(["--latest", "--color", "never"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    // The session that began last, with its sub-agents.
    assert_eq!(sessions_in(out).len(), 1, "{out}");
    assert!(sessions_in(out)[0].contains("/subagent/"), "{out}");
    assert!(out.contains("  │ [Inspect Python code]"), "{out}");
    assert_eq!(
        text(&o.stderr),
        format!(
            "streamview: {}: the latest session\n",
            project.join("6eb7e71f.jsonl").display()
        )
    );
    // Followed: a stream that has ended (a transcript never says it has,
    // as its session can always be resumed) gives the same output and
    // ends once it stays quiet.
    let streams = root.join("streams");
    fs::create_dir_all(&streams).unwrap();
    fs::copy(fixture("claude/tool_errors.jsonl"), streams.join("a.jsonl")).unwrap();
    let args = |follow: bool| {
        let mut cmd = sv();
        cmd.args(["--latest", "--color", "never"]);
        if follow {
            cmd.arg("-f");
        }
        let o = cmd
            .arg(&streams)
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        (o.status.code(), o.stdout)
    };
    let (code, followed) = args(true);
    assert_eq!(code, Some(0));
    assert_eq!(text(&followed), text(&args(false).1));
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn latest_looks_where_each_agent_keeps_its_sessions() {
    let root = library("homes");
    let home = root.join("home");
    let projects = home.join(".claude/projects/-p");
    fs::create_dir_all(&projects).unwrap();
    fs::copy(
        fixture("claude-transcript/transcript_tools_basic.jsonl"),
        projects.join("s.jsonl"),
    )
    .unwrap();
    let codex = root.join("codex-home/sessions/2026/11/24");
    fs::create_dir_all(&codex).unwrap();
    fs::copy(
        fixture("codex-rollout/shell_ok.rollout.jsonl"),
        codex.join("rollout-x.jsonl"),
    )
    .unwrap();
    let latest = |args: &[&str], env: &[(&str, &Path)]| {
        let mut cmd = sv();
        cmd.env_remove("CLAUDE_CONFIG_DIR").env_remove("CODEX_HOME");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let o = cmd.arg("--latest").args(args).output().unwrap();
        (o.status.code(), text(&o.stderr).to_string())
    };
    let (code, err) = latest(&[], &[("HOME", &home)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("/.claude/projects/-p/s.jsonl: the latest session"),
        "{err}"
    );
    let claude_dir = home.join(".claude");
    let (_, err) = latest(&[], &[("HOME", &root), ("CLAUDE_CONFIG_DIR", &claude_dir)]);
    assert!(
        err.contains("/.claude/projects/-p/s.jsonl: the latest session"),
        "{err}"
    );
    let codex_home = root.join("codex-home");
    let (code, err) = latest(
        &["--from", "codex"],
        &[("HOME", &home), ("CODEX_HOME", &codex_home)],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("/sessions/2026/11/24/rollout-x.jsonl: the latest session"),
        "{err}"
    );
    // `--from codex` names the agent: what it keeps is a rollout, read as
    // one (not as the `exec --json` stream), as without --from.
    let jsonl = |args: &[&str]| {
        let mut cmd = sv();
        cmd.env_remove("CLAUDE_CONFIG_DIR")
            .env("CODEX_HOME", &codex_home);
        let o = cmd.arg("--latest").args(args).args(["--format", "jsonl"]);
        let o = o.output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        events(&o.stdout)
    };
    let forced = jsonl(&["--from", "codex"]);
    assert!(forced.iter().all(|e| e["producer"] == "codex-rollout"));
    assert!(forced.iter().any(|e| e["kind"] == "tool_call"));
    assert!(!forced.iter().any(|e| e["kind"] == "unknown"));
    assert_eq!(
        forced,
        jsonl(&[
            "--from",
            "codex-rollout",
            &codex_home.join("sessions").to_string_lossy()
        ])
    );
    // No such folder: said, status 2.
    let (code, err) = latest(&[], &[("HOME", &root)]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        format!(
            "streamview: cannot open {}: no such file\n",
            root.join(".claude/projects").display()
        )
    );
    // A folder without sessions: said, status 3.
    fs::create_dir_all(root.join(".claude/projects")).unwrap();
    let (code, err) = latest(&[], &[("HOME", &root)]);
    assert_eq!(code, Some(3));
    assert!(
        err.starts_with(&format!(
            "streamview: {}: no session files below it",
            root.join(".claude/projects").display()
        )),
        "{err}"
    );
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn background_sub_agents_interleave_in_time_labelled() {
    // Claude Code 2.1.330 launches both agents in the background: their
    // calls are answered at once, and their lines come later, each
    // labelled while both run.
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("library-{}-background", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let agents = root.join("p/s/subagents");
    fs::create_dir_all(&agents).unwrap();
    let t = |n: &str| {
        fixture(&format!(
            "claude-transcript/v2.1.330_transcript_subagent{n}.jsonl"
        ))
    };
    fs::copy(t(""), root.join("p/s.jsonl")).unwrap();
    for id in ["a33c7066d6f0e2ac6", "ab9e7b6a40a741e9b"] {
        fs::copy(
            t(&format!(".agent-{id}")),
            agents.join(format!("agent-{id}.jsonl")),
        )
        .unwrap();
    }
    let o = sv().args(["--color", "never"]).arg(&root).output().unwrap();
    let out = text(&o.stdout);
    assert!(
        out.contains(
            "  │ [Inspect Python code] Reading the file.\n  │ [Inspect Rust code] ▸ Bash wc -l src/lib.rs\n  │ [Inspect Python code] ▸ Read hello.py\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("  │ [Inspect Rust code] ✗ Bash false failed\n"),
        "{out}"
    );
    fs::remove_dir_all(&root).unwrap();
}

/// The generated library of the benchmarks (`examples/library.rs`, grown
/// from the real captures) reads in full: every session file is a session,
/// no line is skipped, every call is answered (the rewritten ids still
/// pair), every sub-agent file is read, and the stderr is silent.
#[test]
fn the_generated_library_reads_in_full() {
    let dir = std::env::temp_dir().join(format!("streamview-genlib-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let lib = library_gen::generate(&dir, 40, 4 << 20, 7).unwrap();
    assert!(
        lib.sessions > 30 && lib.agent_files > 0 && lib.streams > 0,
        "{lib:?}"
    );
    let out = sv()
        .args(["--format", "summary-json"])
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let total = &summary["total"];
    // A saved stream may hold several sessions.
    assert!(
        total["sessions"].as_u64().unwrap() >= lib.sessions + lib.streams,
        "{total}"
    );
    assert_eq!(total["skipped_lines"], 0, "{total}");
    assert_eq!(total["unanswered"], 0, "{total}");
    // Each resumed session copied at least one API message.
    assert!(lib.resumed > 0, "{lib:?}");
    assert!(
        total["copies_folded"].as_u64().unwrap() >= lib.resumed,
        "{total}"
    );
    assert!(total["tool_calls"].as_u64().unwrap() > 100, "{total}");
    for tool in total["tools"].as_array().unwrap() {
        assert!(
            tool["calls"].as_u64().unwrap() > 0,
            "a result without its call: {tool}"
        );
    }
    assert!(err.is_empty(), "{err}");
    // The API messages of the Claude part, each counted once as ccusage
    // counts them (every file, sub-agents' too, by message and request
    // id), are what the usage blocks add up to.
    let claude = dir.join("claude/projects");
    let mut files = Vec::new();
    let mut todo = vec![claude.clone()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let (mut input, mut output) = (0, 0);
    for f in &files {
        for line in text(&read(f)).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let (Some(m), Some(r)) = (v["message"]["id"].as_str(), v["requestId"].as_str()) else {
                continue;
            };
            if v["type"] == "assistant" && seen.insert(format!("{m}:{r}")) {
                input += v["message"]["usage"]["input_tokens"].as_u64().unwrap();
                output += v["message"]["usage"]["output_tokens"].as_u64().unwrap();
            }
        }
    }
    let out = sv()
        .args(["--format", "summary-json", "--by", "block"])
        .arg(&claude)
        .output()
        .unwrap();
    let blocks: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = blocks["by"]["rows"].as_array().unwrap();
    let sum = |k: &str| -> u64 { rows.iter().map(|r| r["tokens"][k].as_u64().unwrap()).sum() };
    assert_eq!((sum("input"), sum("output")), (input, output));
    let _ = fs::remove_dir_all(&dir);
}

/// `-j N` (issue 17): the files of a library read on several threads give
/// the same bytes on stdout and stderr, and the same status, as one
/// thread, for every format that reads in parallel; with bad lines,
/// files without a session and `-v` among them.
#[test]
fn jobs_give_the_same_output_as_one_thread() {
    let dir = std::env::temp_dir().join(format!("streamview-jobs-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    library_gen::generate(&dir, 30, 3 << 20, 11).unwrap();
    let project = dir.join("claude/projects/-home-dev-work-broken");
    fs::create_dir_all(&project).unwrap();
    fs::write(
        project.join("broken.jsonl"),
        [
            read(&fixture("claude/tool_errors.jsonl")),
            b"{not json\n\xff\xfe binary\n".to_vec(),
        ]
        .concat(),
    )
    .unwrap();
    fs::write(project.join("empty.jsonl"), b"").unwrap();
    fs::write(project.join("notes.txt"), b"not a session\n").unwrap();
    let runs: [&[&str]; 17] = [
        &["--only", "tools", "--color", "always"],
        &["--tool", "Bash", "--tool", "nosuch*", "-q"],
        &["--only", "errors", "--format", "jsonl"],
        &["--color", "always"],
        &["-v", "--summary"],
        &["-q"],
        &["--format", "summary"],
        &["--format", "summary-json"],
        &["--format", "jsonl"],
        &["--format", "jsonl", "--summary"],
        &["--grep", "permission|error", "--color", "always"],
        &["--grep", "Bash", "--format", "jsonl"],
        &["--format", "summary", "-v"],
        &["--format", "summary", "--by", "day"],
        &["--format", "summary-json", "--by", "project"],
        &["--format", "summary-json", "--by", "block"],
        &["--format", "summary", "--by", "model"],
    ];
    for args in runs {
        let run = |jobs: &str| {
            let out = sv()
                .args(["-j", jobs])
                .args(args)
                .arg(&dir)
                .output()
                .unwrap();
            (out.status.code(), out.stdout, out.stderr)
        };
        let one = run("1");
        // Quiet: stderr is the only output.
        assert!(
            !one.1.is_empty() || !one.2.is_empty(),
            "{args:?}: no output"
        );
        for jobs in ["2", "4"] {
            let many = run(jobs);
            assert_eq!(many.0, one.0, "{args:?} -j{jobs}: status");
            assert!(many.1 == one.1, "{args:?} -j{jobs}: stdout differs");
            assert_eq!(
                String::from_utf8_lossy(&many.2),
                String::from_utf8_lossy(&one.2),
                "{args:?} -j{jobs}: stderr"
            );
        }
    }
    // The bad lines were reported, once each, with their line numbers.
    let out = sv()
        .args(["-j", "3", "--format", "summary"])
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("broken.jsonl:").count(), 2, "{err}");
    assert!(err.contains("2 lines skipped"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}

/// A library whose last session ended without a result: its end is said
/// once, as one thread says it, not again by the run's end after a thread
/// read it.
#[test]
fn an_unfinished_last_session_is_said_once_whatever_the_threads() {
    let dir = std::env::temp_dir().join(format!("streamview-jobs-cut-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("a.jsonl"),
        b"{\"store\":\"openclaw\",\"type\":\"session\",\"version\":4,\"id\":\"s\"}\n",
    )
    .unwrap();
    let run = |jobs: &str| sv().args(["-j", jobs]).arg(&dir).output().unwrap();
    let one = run("1");
    let stdout = String::from_utf8_lossy(&one.stdout);
    assert_eq!(
        stdout.matches("stream ended without a result").count(),
        1,
        "{stdout}"
    );
    assert_eq!(one.status.code(), Some(3));
    let two = run("2");
    assert_eq!(String::from_utf8_lossy(&two.stdout), stdout);
    assert_eq!(two.stderr, one.stderr);
    assert_eq!(two.status.code(), Some(3));
    let _ = fs::remove_dir_all(&dir);
}

/// `-j N` with a session too big to hold its output in memory (more than
/// 8 MiB): the main run reads it in its turn, between the others read on
/// the threads, and the output is still the same as one thread's.
#[test]
fn jobs_read_a_big_session_in_its_turn() {
    let dir = std::env::temp_dir().join(format!("streamview-jobs-big-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    library_gen::generate(&dir, 12, 1 << 20, 5).unwrap();
    let projects = dir.join("claude/projects");
    let project = fs::read_dir(&projects)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let some = fs::read_dir(&project)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    // The same session again and again, past 8 MiB: it begins when that
    // one does, so it comes between the others.
    let one = read(&some);
    let big = one.repeat((9 << 20) / one.len() + 1);
    fs::write(project.join("big.jsonl"), big).unwrap();
    for args in [
        &["--format", "summary-json", "--by", "day"][..],
        &["--format", "jsonl"],
        &["--color", "always"],
    ] {
        let run = |jobs: &str| {
            let out = sv()
                .args(["-j", jobs])
                .args(args)
                .arg(&dir)
                .output()
                .unwrap();
            (out.status.code(), out.stdout, out.stderr)
        };
        let one = run("1");
        let two = run("2");
        assert_eq!(one.0, two.0, "{args:?}");
        assert!(one.1 == two.1, "{args:?}: stdout differs");
        assert_eq!(text(&one.2), text(&two.2), "{args:?}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Ctrl-C during `-j`: no file is started after it, those begun are
/// written, then the summary so far, and the status is 130, as with one
/// thread.
#[test]
fn jobs_stop_on_ctrl_c_with_the_summary_so_far() {
    use std::process::Stdio;
    use std::time::Duration;
    let dir = std::env::temp_dir().join(format!("streamview-jobs-int-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let lib = library_gen::generate(&dir, 300, 30 << 20, 5).unwrap();
    let mut child = common::sv_std()
        .args(["-j", "2", "--format", "summary-json"])
        .arg(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = common::drain(child.stdout.take().unwrap());
    // Once it has read a third of the library: mid-run, however fast
    // the build.
    common::wait_read(child.id(), 10 << 20, Duration::from_millis(300));
    common::sigint(child.id());
    let status = common::wait_deadline(&mut child, Duration::from_secs(30));
    assert_eq!(status.code(), Some(130));
    let summary: serde_json::Value = serde_json::from_slice(&out.join().unwrap()).unwrap();
    let n = summary["total"]["sessions"].as_u64().unwrap();
    assert!(
        n > 0 && n < lib.sessions,
        "{n} sessions of {}",
        lib.sessions
    );
    let _ = fs::remove_dir_all(&dir);
}

/// `--by` (issue 17): the sessions' totals by the local day they began
/// (moved by `TZ`), by month and by project add up to the total, and
/// count every session.
#[test]
fn by_groups_the_totals_and_they_add_up() {
    let dir = std::env::temp_dir().join(format!("streamview-by-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    library_gen::generate(&dir, 30, 3 << 20, 3).unwrap();
    let summary = |by: &str, tz: &str| -> serde_json::Value {
        let out = sv()
            .env("TZ", tz)
            .args(["--format", "summary-json", "--by", by])
            .arg(&dir)
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    for (by, tz) in [
        ("day", "UTC"),
        ("month", "UTC"),
        ("session", "UTC"),
        ("project", "UTC"),
        ("model", "UTC"),
        ("agent", "UTC"),
    ] {
        let s = summary(by, tz);
        let total = &s["total"];
        let rows = s["by"]["rows"].as_array().unwrap();
        assert_eq!(s["by"]["key"], by);
        let sum = |f: &dyn Fn(&serde_json::Value) -> u64| rows.iter().map(f).sum::<u64>();
        assert_eq!(
            sum(&|r| r["sessions"].as_u64().unwrap()),
            total["sessions"].as_u64().unwrap()
        );
        assert_eq!(
            sum(&|r| r["tool_calls"].as_u64().unwrap()),
            total["tool_calls"].as_u64().unwrap()
        );
        for k in ["input", "output", "cache_read"] {
            let got = sum(&|r| r["tokens"][k].as_u64().unwrap_or(0));
            assert_eq!(got, total["tokens"][k].as_u64().unwrap_or(0), "{by} {k}");
        }
        let cost: f64 = rows.iter().filter_map(|r| r["cost_usd"].as_f64()).sum();
        assert!(
            (cost - total["cost_usd"].as_f64().unwrap()).abs() < 1e-6,
            "{by}"
        );
        assert!(rows.len() > 1, "{by}: {rows:?}");
    }
    // The generated sessions begin at the hour of their template (04:47 UTC
    // and later): six hours west, some are a day earlier.
    let days = |tz: &str| -> Vec<(String, u64)> {
        summary("day", tz)["by"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["group"].as_str().unwrap().to_string(),
                    r["sessions"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let (utc, west) = (days("UTC"), days("UTC+6"));
    assert_ne!(utc, west);
    assert_eq!(
        utc.iter().map(|r| r.1).sum::<u64>(),
        west.iter().map(|r| r.1).sum::<u64>()
    );
    // In order of the days.
    assert!(utc.windows(2).all(|w| w[0].0 < w[1].0), "{utc:?}");
    // The reports show the same groups: a Markdown table, an HTML one.
    for (format, head) in [("markdown", "| day | sessions |"), ("html", "<th>day</th>")] {
        let out = sv()
            .env("TZ", "UTC")
            .args(["--format", format, "--by", "day"])
            .arg(&dir)
            .output()
            .unwrap();
        let page = String::from_utf8(out.stdout).unwrap();
        assert!(page.contains(head), "{format}");
        if format == "html" {
            // A library's page says how many sessions it shows.
            let n: u64 = utc.iter().map(|r| r.1).sum();
            assert!(
                page.contains(&format!("<title>{n} sessions</title>")),
                "title"
            );
        }
        for (day, _) in &utc {
            assert!(page.contains(day.as_str()), "{format}: {day}");
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A child killed when the test that started it fails: no follower is
/// left running.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `--latest -f` (issue 17) follows the session's file and its
/// sub-agents' files as they grow, a sub-agent file created after it
/// started included: its lines come under their call as they are written.
#[test]
fn latest_follows_sub_agent_files_created_later() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::Duration;
    let root = std::env::temp_dir().join(format!("streamview-latest-f-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(root.join("p")).unwrap();
    let t = |n: &str| {
        read(&fixture(&format!(
            "claude-transcript/v2.1.330_transcript_subagent{n}.jsonl"
        )))
    };
    let main = t("");
    // Up to the two Agent calls, their answers (background agents) and
    // the lines after them (the reader holds a message until the next).
    let cut = main
        .split(|&b| b == b'\n')
        .take(30)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let file = root.join("p/s.jsonl");
    fs::write(&file, &main[..cut]).unwrap();
    let mut child = KillOnDrop(
        common::sv_std()
            .args(["--latest", "-f", "--color", "never"])
            .arg(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let (tx, rx) = mpsc::channel();
    let stdout = child.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let wait_for = |what: &str| {
        let mut seen = Vec::new();
        while let Ok(l) = rx.recv_timeout(Duration::from_secs(20)) {
            let found = l.contains(what);
            seen.push(l);
            if found {
                return seen;
            }
        }
        panic!("{what:?} never came: {seen:#?}");
    };
    wait_for("◂ Agent general-purpose: Inspect Rust code");
    // The sub-agent's file appears, then the rest of the session's.
    let agents = root.join("p/s/subagents");
    fs::create_dir_all(&agents).unwrap();
    fs::write(
        agents.join("agent-a33c7066d6f0e2ac6.jsonl"),
        t(".agent-a33c7066d6f0e2ac6"),
    )
    .unwrap();
    let lines = wait_for("▸ Bash wc -l src/lib.rs");
    assert!(lines.last().unwrap().starts_with("  │ "), "{lines:#?}");
    fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &main[cut..]))
        .unwrap();
    wait_for("Both agents reported back");
    // A transcript never says it has ended: Ctrl-C ends the following.
    common::sigint(child.0.id());
    let status = common::wait_deadline(&mut child.0, Duration::from_secs(10));
    assert_eq!(status.code(), Some(130));
    let _ = fs::remove_dir_all(&root);
}

/// The tokens of the main agent's API messages in `files`, each message
/// counted at its first line in the first file it appears in (by message
/// id and request id, as ccusage counts them), and the number of keyed
/// messages seen again: what the totals over a library must say,
/// computed from the raw lines.
fn tokens_once(files: &[&[u8]]) -> (u64, u64, u64) {
    let mut seen = std::collections::HashSet::new();
    let (mut input, mut output, mut copies) = (0, 0, 0);
    for file in files {
        let mut in_file = std::collections::HashSet::new();
        for line in text(file).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let (Some(m), Some(r)) = (v["message"]["id"].as_str(), v["requestId"].as_str()) else {
                continue;
            };
            if v["isSidechain"] == true || !in_file.insert((m.to_string(), r.to_string())) {
                continue;
            }
            if !seen.insert((m.to_string(), r.to_string())) {
                copies += 1;
                continue;
            }
            let u = &v["message"]["usage"];
            input += u["input_tokens"].as_u64().unwrap();
            output += u["output_tokens"].as_u64().unwrap();
        }
    }
    (input, output, copies)
}

/// A resumed session (issue 17): its file begins with copies of the
/// messages of the session it resumes; the totals over both count each
/// API message once and say how many copies they left out, the resumed
/// session's row counts its own messages only, and `-j` agrees.
#[test]
fn a_resumed_sessions_copies_count_once() {
    let (root, project) = empty_project("resumed");
    let first = read(&fixture("claude-transcript/transcript_tools_basic.jsonl"));
    let own = read(&fixture("claude-transcript/transcript_thinking.jsonl"));
    let (sid, own_sid) = (
        "3440a326-acd4-467c-bf1b-7139bca449bd",
        "03287857-51f7-4867-9605-dd0c0946e785",
    );
    let resumed_sid = "9e2b7c1d-0000-4000-8000-000000000001";
    // The copy keeps every id but the session's; then come the entries of
    // the resumed session's own.
    let resumed = [
        text(&first).replace(sid, resumed_sid),
        text(&own).replace(own_sid, resumed_sid),
    ]
    .concat();
    fs::write(project.join("a.jsonl"), &first).unwrap();
    fs::write(project.join("b.jsonl"), &resumed).unwrap();
    let (input, output, copies) = tokens_once(&[&first, resumed.as_bytes()]);
    assert!(copies > 0);

    let summary = |jobs: &str| {
        let out = sv()
            .args(["-j", jobs, "--format", "summary-json"])
            .arg(&root)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let s = summary("1");
    let total = &s["total"];
    assert_eq!(total["copies_folded"], copies, "{total}");
    assert_eq!(total["tokens"]["input"], input, "{total}");
    assert_eq!(total["tokens"]["output"], output, "{total}");
    // The resumed session counts what it added: as much as its own
    // entries read alone.
    let alone = run(
        &["--format", "summary-json"],
        &text(&own).replace(own_sid, resumed_sid).into_bytes(),
    );
    let alone: serde_json::Value = serde_json::from_slice(&alone.stdout).unwrap();
    let rows = s["sessions"].as_array().unwrap();
    let row = rows.iter().find(|r| r["session"] == resumed_sid).unwrap();
    assert_eq!(row["tokens"], alone["total"]["tokens"], "{row}");
    assert_eq!(row["cost_usd"], alone["total"]["cost_usd"], "{row}");
    assert_eq!(row["copies_folded"], copies, "{row}");
    for jobs in ["2", "3"] {
        assert_eq!(summary(jobs), s, "-j{jobs}");
    }
    // The table says it too.
    let out = sv()
        .args(["--format", "summary"])
        .arg(&root)
        .output()
        .unwrap();
    let table = text(&out.stdout);
    assert!(
        table.contains(&format!(
            "{copies} API messages copied by resumed sessions counted once"
        )),
        "{table}"
    );
    let _ = fs::remove_dir_all(&root);
}

/// `--by block` (issue 17): each API message in the 5-hour block of the
/// hour it was answered in, a block beginning at the hour of the first
/// message after the last one ended, named in the zone of `--tz`; the
/// blocks add up to the total.
#[test]
fn blocks_are_five_hours_from_their_first_message() {
    let (root, project) = empty_project("blocks");
    let stamp = regex::Regex::new(r#""timestamp":"[^"]*""#).unwrap();
    let uuid = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-").unwrap();
    // Every entry of a session at one time: 10:20, 14:59 (the same block),
    // 15:30 (after it: a new one from 15:00), the next day 09:10.
    let times = [
        ("transcript_tools_basic", "2026-11-22T10:20:00.000Z"),
        ("transcript_thinking", "2026-11-22T14:59:00.000Z"),
        ("transcript_tools_basic", "2026-11-22T15:30:00.000Z"),
        ("transcript_thinking", "2026-11-23T09:10:00.000Z"),
    ];
    for (i, (name, at)) in times.iter().enumerate() {
        let t = read(&fixture(&format!("claude-transcript/{name}.jsonl")));
        let t = stamp.replace_all(text(&t), format!(r#""timestamp":"{at}""#).as_str());
        // Ids of its own: no copies.
        let t = uuid.replace_all(&t, format!("{i:08x}-0000-"));
        let t = t
            .replace("msg_", &format!("msg_{i}"))
            .replace("req_", &format!("req_{i}"));
        fs::write(project.join(format!("s{i}.jsonl")), t).unwrap();
    }
    let blocks = |tz: &str| -> (Vec<(String, u64)>, serde_json::Value) {
        let out = sv()
            .args(["--format", "summary-json", "--by", "block", "--tz", tz])
            .arg(&root)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let rows = s["by"]["rows"].as_array().unwrap();
        let names = rows
            .iter()
            .map(|r| {
                let g = r["group"].as_str().unwrap().to_string();
                (g, r["sessions"].as_u64().unwrap())
            })
            .collect();
        (names, s)
    };
    let (utc, s) = blocks("UTC");
    let want = [
        ("2026-11-22 10:00", 2),
        ("2026-11-22 15:00", 1),
        ("2026-11-23 09:00", 1),
    ];
    let want: Vec<(String, u64)> = want.iter().map(|(g, n)| (g.to_string(), *n)).collect();
    assert_eq!(utc, want);
    // Transcripts that report nothing themselves: the blocks add up to
    // the total, tokens and estimated cost.
    let rows = s["by"]["rows"].as_array().unwrap();
    for k in ["input", "output"] {
        let sum: u64 = rows.iter().map(|r| r["tokens"][k].as_u64().unwrap()).sum();
        assert_eq!(sum, s["total"]["tokens"][k].as_u64().unwrap(), "{k}");
    }
    let cost: f64 = rows.iter().map(|r| r["cost_usd"].as_f64().unwrap()).sum();
    assert!((cost - s["total"]["cost_usd"].as_f64().unwrap()).abs() < 1e-9);
    // Each block's models add up to it, as ccusage's breakdowns do.
    for r in rows {
        let models = r["models"].as_array().unwrap();
        assert!(!models.is_empty(), "{r}");
        let input: u64 = models
            .iter()
            .map(|m| m["tokens"]["input"].as_u64().unwrap())
            .sum();
        let cost: f64 = models.iter().map(|m| m["cost_usd"].as_f64().unwrap()).sum();
        assert_eq!(input, r["tokens"]["input"].as_u64().unwrap(), "{r}");
        assert!((cost - r["cost_usd"].as_f64().unwrap()).abs() < 1e-9, "{r}");
    }
    // Named in the zone asked for: India is 5:30 ahead (in POSIX
    // notation: a machine may lack the zone files).
    let (india, _) = blocks("<+0530>-5:30");
    let names: Vec<&str> = india.iter().map(|(g, _)| g.as_str()).collect();
    assert_eq!(
        names,
        ["2026-11-22 15:30", "2026-11-22 20:30", "2026-11-23 14:30"]
    );
    // A zone that does not exist is a usage error, said in one line.
    let out = sv()
        .args(["--by", "block", "--tz", "Mars/Olympus"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown time zone"),
        "{}",
        text(&out.stderr)
    );
    let _ = fs::remove_dir_all(&root);
}

/// By day each message counts on its own day, as ccusage counts: a
/// session that goes on past midnight adds to both days, and counts (with
/// its calls) on the day it began.
#[test]
fn a_session_past_midnight_counts_on_both_days() {
    let stamp = regex::Regex::new(r#""timestamp":"[^"]*""#).unwrap();
    let (night, dir) = empty_project("midnight");
    let t = read(&fixture("claude-transcript/transcript_tools_basic.jsonl"));
    let lines: Vec<String> = text(&t)
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let at = if i < 8 {
                "2026-11-24T23:50:00.000Z"
            } else {
                "2026-11-25T00:10:00.000Z"
            };
            stamp
                .replace_all(l, format!(r#""timestamp":"{at}""#).as_str())
                .into_owned()
        })
        .collect();
    fs::write(dir.join("late.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = sv()
        .args(["--format", "summary-json", "--by", "day", "--tz", "UTC"])
        .arg(&night)
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = s["by"]["rows"].as_array().unwrap();
    let days: Vec<(&str, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["group"].as_str().unwrap(),
                r["sessions"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(days, [("2026-11-24", 1), ("2026-11-25", 0)]);
    let input = |r: &serde_json::Value| r["tokens"]["input"].as_u64().unwrap();
    assert!(rows.iter().all(|r| input(r) > 0), "{rows:?}");
    assert_eq!(rows.iter().map(input).sum::<u64>(), input(&s["total"]));
    let _ = fs::remove_dir_all(&night);
}

/// The pretty view of a library (issue 17): a session whose file ends
/// without a result says so at the end of its file, with the call left
/// open, before the next session begins, once; and `-j` writes the same.
#[test]
fn a_library_file_ending_mid_turn_says_so_where_it_ends() {
    let (root, project) = empty_project("midturn");
    let basic = read(&fixture("claude-transcript/transcript_tools_basic.jsonl"));
    // Up to its first tool call (line 7), which gets no result.
    let cut = text(&basic).lines().take(7).collect::<Vec<_>>().join("\n") + "\n";
    fs::write(project.join("a.jsonl"), cut).unwrap();
    fs::copy(
        fixture("claude-transcript/transcript_thinking.jsonl"),
        project.join("b.jsonl"),
    )
    .unwrap();
    let run = |jobs: &str| {
        let out = sv()
            .args(["-j", jobs, "--color", "never"])
            .arg(&root)
            .output()
            .unwrap();
        (out.status.code(), text(&out.stdout).to_string())
    };
    let (status, out) = run("1");
    // The worst outcome decides: incomplete.
    assert_ne!(status, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let end = lines
        .iter()
        .position(|l| *l == "✗ stream ended without a result")
        .unwrap_or_else(|| panic!("{out}"));
    // Its path as the call's line showed it: relative to the project.
    assert_eq!(lines[end + 1], "  interrupted: Read README.md", "{out}");
    let second = lines.iter().rposition(|l| l.starts_with("● ")).unwrap();
    assert!(end < second, "{out}");
    assert_eq!(out.matches("without a result").count(), 1, "{out}");
    assert_eq!(run("2"), (status, out));
    let _ = fs::remove_dir_all(&root);
}

/// A library of three sessions: one that succeeded, one that failed, one
/// cut off before its result (interrupted).
fn mixed_library(name: &str) -> PathBuf {
    let (root, project) = empty_project(name);
    let c = |n: &str| fixture(&format!("claude/{n}"));
    fs::copy(c("tools_basic.jsonl"), project.join("ok.jsonl")).unwrap();
    fs::copy(c("max_turns.jsonl"), project.join("failed.jsonl")).unwrap();
    let whole = read(&c("tool_errors.jsonl"));
    let lines: Vec<&[u8]> = whole.split_inclusive(|b| *b == b'\n').collect();
    fs::write(project.join("cut.jsonl"), lines[..lines.len() - 1].concat()).unwrap();
    root
}

#[test]
fn by_alone_prints_the_groups_and_their_total_and_exits_0() {
    let root = mixed_library("by-alone");
    let o = sv().args(["--by", "day"]).arg(&root).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let table: Vec<&str> = out.lines().take_while(|l| !l.is_empty()).collect();
    assert!(table[0].starts_with("day "), "{out}");
    let (total, days) = table[1..].split_last().unwrap();
    assert!(!days.is_empty());
    for row in days {
        let date = row.split_whitespace().next().unwrap();
        assert!(
            date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-',
            "{row}"
        );
    }
    assert!(total.starts_with("total "), "{out}");
    assert!(total.ends_with("1 ok · 1 failed · 1 incomplete"), "{total}");
    // The sessions, tools and models tables are not there.
    assert!(!out.contains("started ") && !out.contains("tool "), "{out}");
    // With --format summary, every table, and the groups' among them.
    let o = sv()
        .args(["--format", "summary", "--by", "day"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    assert!(out.starts_with("started ") && out.contains("\nday ") && out.contains("\ntool "));
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_report_names_the_file_of_each_alert_and_one_session_keeps_its_status() {
    let root = mixed_library("report-status");
    let project = root.join("-home-dev-work-project");
    let o = sv()
        .args(["--format", "summary"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let failed = project.join("failed.jsonl");
    // One line counts them (the table names them).
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("✗ 1 session failed: "), "{err}");
    assert!(
        err.ends_with(", 1 incomplete; --errors stderr lists them\n"),
        "{err}"
    );
    // Listed, each with its file.
    let o = sv()
        .args(["--format", "summary", "--errors", "stderr"])
        .arg(&root)
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!("{}: ✗ session failed", failed.display())),
        "{err}"
    );
    let total = text(&o.stdout)
        .lines()
        .find(|l| l.starts_with("total"))
        .unwrap()
        .to_string();
    assert!(total.contains("1 ok · 1 failed · 1 incomplete"), "{total}");
    // One session: its own status, and why it failed.
    let o = sv()
        .args(["--format", "summary"])
        .arg(&failed)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).starts_with("✗ 1 session failed: "));
    let o = sv()
        .args(["--format", "summary"])
        .arg(project.join("cut.jsonl"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn by_with_a_format_that_cannot_show_it_is_a_usage_error() {
    let root = mixed_library("by-refused");
    for args in [
        &["--by", "day", "--format", "jsonl"][..],
        &["--by", "week", "--format", "pretty"],
        &["--by", "day", "-q"],
        &["--by", "day", "--grep", "README"],
    ] {
        let o = sv().args(args).arg(&root).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty());
        let err = text(&o.stderr);
        assert!(err.starts_with("error: --by "), "{args:?}: {err}");
    }
    // With --summary, the table is added to the summary on stderr.
    let o = sv()
        .args(["--by", "day", "--format", "jsonl", "--summary"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(text(&o.stderr).contains("\nday "));
    fs::remove_dir_all(&root).unwrap();
}

/// `--project` (issue 26): the sessions of one working directory, for
/// every agent, told from their first lines; the others are not read.
#[test]
fn project_keeps_the_sessions_run_in_it_for_every_agent() {
    let root = library("project");
    let rollouts = root.join("codex/sessions/2026/11/24");
    fs::create_dir_all(&rollouts).unwrap();
    for name in ["shell_ok", "shell_fail", "plan"] {
        let from = fixture(&format!("codex-rollout/{name}.rollout.jsonl"));
        fs::copy(from, rollouts.join(format!("rollout-{name}.jsonl"))).unwrap();
    }
    let rows = |args: &[&str]| {
        let o = sv()
            .args(["--format", "summary-json"])
            .args(args)
            .arg(&root)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (
            v["sessions"].as_array().unwrap().clone(),
            v["total"].clone(),
        )
    };
    let (all, _) = rows(&[]);
    assert_eq!(all.len(), 6, "{all:?}");
    // A Codex rollout's project, and the same session's row as without it.
    let (one, total) = rows(&["--project", "codex/shell_fail"]);
    assert_eq!(one.len(), 1, "{one:?}");
    assert_eq!(one[0]["project"], "/home/dev/codex/shell_fail/ws");
    let alone = all
        .iter()
        .find(|r| r["project"] == one[0]["project"])
        .unwrap();
    assert_eq!(&one[0], alone);
    assert_eq!(total["tokens"], alone["tokens"]);
    // Claude Code's transcripts: both of the project's sessions, not the
    // other project's.
    let claude_cwd = all[0]["project"].as_str().unwrap().to_string();
    let (claude, _) = rows(&["--project", &claude_cwd]);
    assert!(!claude.is_empty());
    assert!(
        claude.iter().all(|r| r["project"] == claude_cwd.as_str()),
        "{claude:?}"
    );
    assert!(claude.len() < all.len());
    // Nowhere: no session; --latest looks only at the project's.
    let (none, _) = rows(&["--project", "/nowhere"]);
    assert!(none.is_empty());
    let o = sv()
        .args([
            "--latest",
            "--project",
            "codex/plan",
            "--format",
            "summary-json",
        ])
        .arg(&root)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["sessions"][0]["project"], "/home/dev/codex/plan/ws",
        "{v}"
    );
    fs::remove_dir_all(&root).unwrap();
}

/// `--list` (issue 26): one line per session, newest first, naming the
/// file to replay; JSON lines with `--format jsonl`.
#[test]
fn list_names_each_session_newest_first() {
    let root = library("list");
    let rollouts = root.join("codex");
    fs::create_dir_all(&rollouts).unwrap();
    for name in ["shell_ok", "plan"] {
        let from = fixture(&format!("codex-rollout/{name}.rollout.jsonl"));
        fs::copy(from, rollouts.join(format!("rollout-{name}.jsonl"))).unwrap();
    }
    let o = sv()
        .env("TZ", "UTC")
        .arg("--list")
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let mut lines = out.lines();
    assert!(lines.next().unwrap().starts_with("started "), "{out}");
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 5, "{out}");
    // Newest first, by the local time each began.
    let starts: Vec<&str> = rows.iter().map(|r| &r[..16]).collect();
    let mut sorted = starts.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(starts, sorted, "{out}");
    // Each names its file, which replays.
    for r in &rows {
        let file = r.rsplit("  ").next().unwrap();
        assert!(Path::new(file).is_file(), "{r}");
    }
    assert!(out.contains("codex") && out.contains("claude"), "{out}");
    // JSON lines: summary-json's rows, the same sessions.
    let o = sv()
        .args(["--list", "--format", "jsonl"])
        .arg(&root)
        .output()
        .unwrap();
    let json: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(json.len(), 5);
    let started: Vec<&str> = json
        .iter()
        .map(|r| r["started"].as_str().unwrap())
        .collect();
    assert!(started.windows(2).all(|w| w[0] >= w[1]), "{started:?}");
    // With an option that prints something else: a usage error.
    let o = sv()
        .args(["--list", "--grep", "x"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--list"), "{}", text(&o.stderr));
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_bad_line_of_a_sub_agent_file_is_named_by_that_file_and_line() {
    // Issue 26: lines were numbered in the merge of a session's files.
    let root = library("bad-sub-agent-line");
    let agent =
        root.join("-home-dev-work-project/6eb7e71f/subagents/agent-a8164d334e3dc2758.jsonl");
    let mut lines: Vec<String> = fs::read_to_string(&agent)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines[2] = "{broken".to_string();
    fs::write(&agent, lines.join("\n") + "\n").unwrap();
    for j in ["-j1", "-j2"] {
        let o = sv()
            .args([j, "--color", "never"])
            .arg(&root)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        let said = format!("streamview: {}:3: invalid JSON", agent.display());
        assert!(err.contains(&said), "{j}: {err}");
    }
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn latest_n_reads_or_lists_the_n_sessions_begun_last_in_start_order() {
    let d = std::env::temp_dir().join(format!("sv-latest-n-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let p = d.join("-home-dev-app");
    std::fs::create_dir_all(&p).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-transcript");
    // Written in this order: thinking, tools, sub-agents; the first is the oldest.
    for (name, from) in [
        ("a", "transcript_thinking.jsonl"),
        ("b", "transcript_tools_basic.jsonl"),
        ("c", "transcript_subagent.jsonl"),
    ] {
        std::fs::copy(fixtures.join(from), p.join(format!("{name}.jsonl"))).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_streamview"))
            .args(args)
            .arg(&d)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, out, err) = run(&["--latest=2", "--format", "summary-json"]);
    let (list_code, list, _) = run(&["--latest=2", "--list", "--format", "jsonl"]);
    let (zero, _, zero_err) = run(&["--latest=0"]);
    std::fs::remove_dir_all(&d).unwrap();
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files: Vec<&str> = (v["sessions"].as_array().unwrap().iter())
        .map(|s| s["source"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    // The two that began last (a at 03:53:04, c at 03:53:01; b, written
    // after a, began first, at 03:52:49), in the order they began.
    assert_eq!(files, ["c.jsonl", "a.jsonl"]);
    assert_eq!(
        err.matches("one of the 2 latest sessions").count(),
        2,
        "{err}"
    );
    assert_eq!(list_code, Some(0));
    assert_eq!(list.lines().count(), 2, "{list}");
    assert_eq!(zero, Some(2), "{zero_err}");
}

#[test]
fn latest_follow_waits_for_the_first_session() {
    use std::io::Read as _;
    // Start the viewer, then the agent.
    let (root, project) = empty_project("waits");
    let mut child = common::sv_std()
        .args(["--latest", "-f", "--color", "never"])
        .arg(&root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    assert!(child.try_wait().unwrap().is_none(), "it waits");
    // A stream that has ended: followed, then left once it stays quiet.
    let target = project.join("a.jsonl");
    fs::copy(fixture("claude/tool_errors.jsonl"), project.join("a.part")).unwrap();
    fs::rename(project.join("a.part"), &target).unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(started.elapsed().as_secs() < 60, "never ended");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let replayed = sv()
        .arg(&target)
        .args(["--color", "never"])
        .output()
        .unwrap();
    fs::remove_dir_all(&root).unwrap();
    assert_eq!(
        err.lines().next().unwrap(),
        format!(
            "streamview: {}: no session yet; waiting for the first one (start the agent)",
            root.display()
        ),
        "{err}"
    );
    assert!(err.contains("the latest session; following it"), "{err}");
    assert_eq!(out, text(&replayed.stdout));
    assert_eq!(status.code(), replayed.status.code());
}

#[test]
fn list_on_a_narrow_terminal_cuts_the_title_never_the_file() {
    let root = library("narrow");
    let args = format!("--list --color never --paging never '{}'", root.display());
    let Some((child, _)) = common::on_pty(&root, "TZ=UTC", &args, (70, 40), true) else {
        return;
    };
    let out = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    let files: Vec<PathBuf> = [
        "-home-dev-work-project/6eb7e71f.jsonl",
        "-home-dev-work-project/zz.jsonl",
    ]
    .iter()
    .map(|f| root.join(f))
    .collect();
    fs::remove_dir_all(&root).unwrap();
    assert!(out.status.success(), "{screen}");
    // Each file whole, where a person copies it from (the line may wrap
    // past the edge: the terminal's rows are joined back).
    let joined: String = screen.lines().collect();
    for f in &files {
        assert!(
            joined.contains(&f.display().to_string()),
            "{f:?} cut in {screen}"
        );
    }
    // The title went first: cut, or left out.
    assert!(
        !screen.contains("Look around this project and summarise it."),
        "{screen}"
    );
}
