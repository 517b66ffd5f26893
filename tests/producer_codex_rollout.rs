//! Codex rollout files (`~/.codex/sessions/…/rollout-*.jsonl`) through the
//! binary, each against the `codex exec --json` stream of the same run
//! (`tests/fixtures/codex-rollout/`: `<name>.rollout.jsonl` beside
//! `stream/<name>.jsonl`): the pretty output is the stream's, but for the
//! differences named here, and the exit status is the same.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of a test binary

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/codex-rollout");

/// Lines only one side has, per scenario: (scenario, only in the stream,
/// only in the rollout). Every other line must be the same, in order.
const NAMED: [(&str, &[&str], &[&str]); 6] = [
    (
        // The patch rejected before it ran: the stream has no event for it
        // (stderr log only); the rollout has the call and its error. And a
        // failed patch's stderr, which the stream drops.
        "apply_patch",
        &[],
        &[
            "▸ apply_patch update /home/dev/codex/apply_patch/ws/does_not_exist.txt",
            "✗ apply_patch update /home/dev/codex/apply_patch/ws/does_not_exist.txt failed",
            "  ⎿ apply_patch verification failed: Failed to read file to update \
             /home/dev/codex/apply_patch/ws/does_not_exist.txt: No such file or directory (os \
             error 2)",
            "    Failed to write file /home/dev/codex/apply_patch/ws/hello.txt/child.txt",
        ],
    ),
    (
        // The stream turns `update_plan` into one `todo_list` item updated
        // in place (its items only done or not); the rollout has each
        // `update_plan` call with its steps' statuses.
        "plan",
        &[
            "▸ todo_list 3 items",
            "    ☐ Inspect the repository",
            "    ☐ Write the file",
            "    ☐ Verify",
            "· plan updated (2/3 done)",
            "  ☑ Inspect the repository",
            "  ☑ Write the file",
            "  ☐ Verify",
        ],
        &[
            "▸ update_plan 3 items",
            "    ◐ Inspect the repository",
            "    ☐ Write the file",
            "    ☐ Verify",
            "▸ update_plan 3 items",
            "    ☑ Inspect the repository",
            "    ☑ Write the file",
            "    ◐ Verify",
        ],
    ),
    // `view_image` is in the rollout only.
    ("image", &[], &["▸ view_image dot.png"]),
    (
        // After `codex exec resume` the stream reports the thread's total
        // as the second turn's (counted twice in the sum); the rollout
        // gives each turn its own.
        "resume",
        &[
            "✓ done · 7.2k in / 335 out · cache read 83%",
            "  ⎿ ✓ turn 2 · 4.8k in / 225 out · cache read 83%",
        ],
        &[
            "✓ done · 4.8k in / 225 out · cache read 83%",
            "  ⎿ ✓ turn 2 · 2.4k in / 115 out · cache read 82%",
        ],
    ),
    // Codex's warning about the unknown model is in the stream only.
    ("mcp", &[UNKNOWN_MODEL], &[]),
    ("unknown_model", &[UNKNOWN_MODEL], &[]),
];

/// Codex's warning (an `error` item) when the model is unknown to it.
const UNKNOWN_MODEL: &str = "! Model metadata for `mock-model` not found. Defaulting to \
                             fallback metadata; this can degrade performance and cause issues.";

/// The rollout files, by scenario name.
fn scenarios() -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.strip_suffix(".rollout.jsonl")?;
            Some((name.to_string(), p.clone()))
        })
        .collect();
    v.sort();
    assert_eq!(v.len(), 14, "rollout fixtures missing in {DIR}");
    v
}

/// The stream of the same run (`resume`: both `codex exec` processes).
fn stream_of(name: &str) -> Vec<u8> {
    let dir = Path::new(DIR).join("stream");
    let mut bytes = std::fs::read(dir.join(format!("{name}.jsonl"))).unwrap();
    if let Ok(more) = std::fs::read(dir.join(format!("{name}.2.jsonl"))) {
        bytes.extend_from_slice(&more);
    }
    bytes
}

/// streamview's stdout and exit status for `input`.
fn run(args: &[&str], input: &[u8]) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(args)
        .env("STREAMVIEW_CONFIG", "")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, input).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

/// The differences every pair has, made alike: the header (the rollout
/// knows the model and the working directory, the stream neither), the
/// prompts (`›`, in the rollout only), the turn's duration, its turns
/// (counted from the rollout's responses; the stream has none) and its
/// estimated cost (the rollout names the model, the stream does not), Codex's
/// name for a failure (`(internal_server_error)`, in the rollout only) and
/// the lines a patch adds and removes (`+2 −1`: the rollout has the patch,
/// the stream's `file_change` names only the files).
fn common(out: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for (i, l) in out.lines().enumerate() {
        if i == 0 {
            assert!(l.starts_with('●'), "header: {l}");
            continue;
        }
        if l.starts_with("› ") {
            continue;
        }
        let mut parts: Vec<&str> = (l.split(" · "))
            .filter(|p| !is_duration(p) && !p.ends_with(" turns") && !p.ends_with(" turn"))
            .filter(|p| !p.starts_with("~$") && !p.starts_with("≥ ~$"))
            .collect();
        if let Some(first) = parts.first_mut()
            && first.starts_with("✗ session failed (")
        {
            *first = "✗ session failed";
        }
        let l = parts.join(" · ");
        lines.push(without_counts(l));
    }
    lines
}

/// An `apply_patch` call's line without its counts (` +2 −1`).
fn without_counts(mut l: String) -> String {
    if l.starts_with("▸ apply_patch ") {
        while let Some((head, last)) = l.rsplit_once(' ')
            && (last.starts_with('+') || last.starts_with('−'))
            && last.len() > 1
            && last
                .trim_start_matches(['+', '−'])
                .bytes()
                .all(|b| b.is_ascii_digit())
        {
            l.truncate(head.len());
        }
    }
    l
}

/// `96ms`, `1.5s`, `2m 3s`.
fn is_duration(p: &str) -> bool {
    p.split(' ').all(|w| {
        let n = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        !n.is_empty() && n.len() < w.len() && n.chars().all(|c| c.is_ascii_digit() || c == '.')
    })
}

/// `lines` without `named`, each taken out once; a named line that is not
/// there fails the test (the difference is gone: update the list).
fn without(mut lines: Vec<String>, named: &[&str], side: &str, name: &str) -> Vec<String> {
    for n in named {
        let at = lines.iter().position(|l| l == n);
        let at = at.unwrap_or_else(|| panic!("{name}: {side} lacks the named line {n:?}"));
        lines.remove(at);
    }
    lines
}

#[test]
fn rollouts_render_as_their_streams_but_for_named_differences() {
    for (name, path) in scenarios() {
        let (stream, stream_code) = run(&["--color", "never"], &stream_of(&name));
        let (rollout, rollout_code) = run(&["--color", "never"], &std::fs::read(&path).unwrap());
        assert_eq!(stream_code, rollout_code, "{name}: exit status");
        let (only_stream, only_rollout) = NAMED
            .iter()
            .find(|(n, _, _)| *n == name)
            .map_or((&[][..], &[][..]), |(_, s, r)| (*s, *r));
        let s = without(common(&stream), only_stream, "the stream", &name);
        let r = without(common(&rollout), only_rollout, "the rollout", &name);
        assert_eq!(s, r, "{name}\n--- stream\n{stream}--- rollout\n{rollout}");
        assert!(rollout.starts_with("● "), "{name}: {rollout}");
    }
}

/// The exit status of each run as Codex gave it (`meta.json`): the
/// rollout's is the same.
#[test]
fn exit_status_is_codexs() {
    for (name, path) in scenarios() {
        let meta: Value = serde_json::from_slice(
            &std::fs::read(Path::new(DIR).join(format!("stream/{name}.meta.json"))).unwrap(),
        )
        .unwrap();
        let (_, code) = run(&[], &std::fs::read(&path).unwrap());
        assert_eq!(
            i64::from(code),
            meta["exit_code"].as_i64().unwrap(),
            "{name}"
        );
    }
}

/// JSONL of every rollout: every event is `codex-rollout`'s and names the
/// session; the system prompt, the settings snapshot and base64 images
/// appear nowhere, in JSONL or pretty (`-v` too).
#[test]
fn jsonl_names_the_producer_and_leaves_out_the_bulk() {
    for (name, path) in scenarios() {
        let input = std::fs::read(&path).unwrap();
        let (jsonl, _) = run(&["--format", "jsonl"], &input);
        let (verbose, _) = run(&["--color", "never", "-v"], &input);
        for out in [&jsonl, &verbose] {
            for bulk in [
                "You are Codex",
                "base64,",
                "host_skills",
                "<environment_context>",
            ] {
                assert!(!out.contains(bulk), "{name}: {bulk} printed");
            }
        }
        let evs: Vec<Value> = jsonl
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(evs.len() >= 4, "{name}: {jsonl}");
        let session = evs[0]["session"].as_str().unwrap();
        assert!(path.to_str().unwrap().contains(".rollout.jsonl"));
        for e in &evs {
            assert_eq!(e["producer"], "codex-rollout", "{name}: {e}");
            assert_eq!(e["session"], session, "{name}: {e}");
        }
        let kinds: Vec<&str> = evs.iter().filter_map(|e| e["kind"].as_str()).collect();
        assert_eq!(kinds[0], "session_start", "{name}");
        assert!(kinds.contains(&"result"), "{name}: {kinds:?}");
        assert!(!kinds.contains(&"unknown"), "{name}: {kinds:?}");
    }
}

/// A rollout's `apply_patch` call holds the patch itself (a
/// `custom_tool_call`'s `input`), which the stream's `file_change` does
/// not: its changes are that patch, counted, as Amp's and `OpenCode`'s.
#[test]
fn apply_patch_calls_carry_their_patch() {
    let input = std::fs::read(Path::new(DIR).join("apply_patch.rollout.jsonl")).unwrap();
    let (jsonl, _) = run(&["--format", "jsonl"], &input);
    let calls: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "tool_call" && e["name"] == "apply_patch")
        .collect();
    let counts: Vec<(u64, u64)> = calls
        .iter()
        .map(|c| {
            (
                c["lines_added"].as_u64().unwrap(),
                c["lines_removed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counts, [(2, 0), (2, 1), (1, 1), (1, 0)], "{jsonl}");
    let diff = calls[1]["changes"][0]["diff"].as_str().unwrap();
    assert!(
        diff.contains("*** Update File: hello.txt\n@@\n-Second line.\n+Second line, edited.\n"),
        "{diff}"
    );
    let (verbose, _) = run(&["--color", "never", "-v"], &input);
    assert!(
        verbose.contains(
            "▸ apply_patch update /home/dev/codex/apply_patch/ws/hello.txt +2 −1\n    *** Begin Patch\n"
        ),
        "{verbose}"
    );
}
