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

/// Codex rollout decoding, through the whole pipeline to JSONL: the older
/// shape (`event_msg` text, outputs as JSON), what is printed twice read
/// once, outputs paired by `call_id`.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/codex_rollout/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use streamview::diag::Diag;
    use streamview::event::Producer;
    use streamview::render::Jsonl;
    use streamview::run::Runner;

    fn run(input: &str, from: Option<Producer>) -> Vec<J> {
        let mut sink = Jsonl::new(Vec::new());
        let mut diag = Diag::new(Vec::new(), false);
        {
            let mut runner = Runner::new(&mut sink, &mut diag, 1 << 20).with_producer(from);
            runner.source("t", input.as_bytes()).unwrap();
            runner.finish().unwrap();
        }
        let out = String::from_utf8(sink.into_inner()).unwrap();
        out.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The events of `lines` (JSON values, each in the rollout envelope).
    fn rollout(lines: &[J]) -> Vec<J> {
        let text: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ty = p["line_type"].as_str().unwrap_or("response_item");
            let mut payload = p.clone();
            payload.as_object_mut().unwrap().remove("line_type");
            json!({"timestamp": "2025-09-01T10:00:00.000Z", "ordinal": i, "type": ty, "payload": payload})
                .to_string()
        })
        .collect();
        run(&text.join("\n"), None)
    }

    fn of_kind<'a>(evs: &'a [J], k: &str) -> Vec<&'a J> {
        evs.iter().filter(|e| e["kind"] == k).collect()
    }

    fn ev(line_type: &str, payload: J) -> J {
        let mut p = payload;
        p["line_type"] = json!(line_type);
        p
    }

    fn meta() -> J {
        ev(
            "session_meta",
            json!({"id": "s-1", "cwd": "/w", "cli_version": "0.30.0", "instructions": null}),
        )
    }

    /// An older file: text from `event_msg` only (the `response_item`
    /// message and reasoning say the same), a `shell` call with an argv, its
    /// output as JSON with an exit code, tokens from `token_count`.
    #[test]
    fn the_older_shape() {
        let evs = rollout(&[
            meta(),
            ev("turn_context", json!({"model": "gpt-5", "cwd": "/w"})),
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}),
            ev(
                "event_msg",
                json!({"type": "user_message", "message": "hi", "images": ["data:image/png;base64,AAAA"]}),
            ),
            json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "hmm"}]}),
            ev(
                "event_msg",
                json!({"type": "agent_reasoning", "text": "hmm"}),
            ),
            ev(
                "event_msg",
                json!({"type": "agent_reasoning_raw_content", "text": "raw"}),
            ),
            json!({"type": "function_call", "name": "shell", "call_id": "c1",
               "arguments": "{\"command\":[\"bash\",\"-lc\",\"ls nope\"],\"timeout_ms\":1000}"}),
            json!({"type": "function_call_output", "call_id": "c1",
               "output": "{\"output\":\"ls: nope: missing\\n\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}"}),
            ev(
                "event_msg",
                json!({"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 7},
            "last_token_usage": {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 7}}}),
            ),
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
            ev(
                "event_msg",
                json!({"type": "agent_message", "message": "done"}),
            ),
        ]);
        let start = &of_kind(&evs, "session_start")[0];
        assert_eq!(start["cwd"], "/w");
        assert_eq!(start["version"], "0.30.0");
        let texts: Vec<(&J, &J)> = of_kind(&evs, "text")
            .iter()
            .map(|e| (&e["role"], &e["text"]))
            .collect();
        assert_eq!(
            texts,
            [
                (&json!("user"), &json!("[image] hi")),
                (&json!("assistant"), &json!("done"))
            ]
        );
        let thinking = of_kind(&evs, "thinking");
        assert_eq!(thinking.len(), 1);
        assert_eq!(thinking[0]["text"], "hmm");
        let call = &of_kind(&evs, "tool_call")[0];
        assert_eq!(
            (&call["name"], &call["tool_kind"]),
            (&json!("shell"), &json!("shell"))
        );
        assert_eq!(call["key_arg"], "ls nope");
        let result = &of_kind(&evs, "tool_result")[0];
        assert_eq!(result["is_error"], true);
        assert_eq!(result["content"], "exit code 2\nls: nope: missing\n");
        let usage = &of_kind(&evs, "usage")[0];
        assert_eq!(usage["model"], "gpt-5");
        assert_eq!(usage["tokens"]["input"], 60);
        assert_eq!(usage["tokens"]["cache_read"], 40);
        // No turn lines: the session's result is made at the end of input.
        let result = &of_kind(&evs, "result")[0];
        assert_eq!(result["is_error"], false);
        assert_eq!(result["tokens"]["output"], 7);
        for e in &evs {
            assert_eq!(e["session"], "s-1", "{e}");
        }
    }

    /// 0.169: a call's result is its item; the output line after it is not a
    /// second result. A call without an item (rejected, `update_plan`) gets
    /// its output as the result.
    #[test]
    fn outputs_pair_by_call_id_once() {
        let evs = rollout(&[
            meta(),
            json!({"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": "{\"cmd\":\"false\"}"}),
            json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
               "input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** Add File: /abs/b.txt\n+z\n*** End Patch"}),
            ev(
                "event_msg",
                json!({"type": "item_completed", "item": {"type": "CommandExecution", "id": "c1",
            "command": ["/bin/bash", "-lc", "false"], "status": "failed", "aggregated_output": "", "exit_code": 1}}),
            ),
            json!({"type": "function_call_output", "call_id": "c1", "output": "Chunk ID: x\nProcess exited with code 1\nOutput:\n"}),
            json!({"type": "custom_tool_call_output", "call_id": "c2", "output": "apply_patch verification failed: no a.txt"}),
            json!({"type": "function_call", "name": "update_plan", "call_id": "c3",
               "arguments": "{\"plan\":[{\"step\":\"a\",\"status\":\"completed\"},{\"step\":\"b\",\"status\":\"in_progress\"}]}"}),
            json!({"type": "function_call_output", "call_id": "c3", "output": "Plan updated"}),
            json!({"type": "function_call", "name": "lookup", "namespace": "mcp__docs", "call_id": "c4", "arguments": "{\"q\":\"x\"}"}),
            ev(
                "event_msg",
                json!({"type": "item_completed", "item": {"type": "McpToolCall", "id": "c4", "server": "docs",
            "tool": "lookup", "status": "completed", "result": {"content": [{"type": "text", "text": "no"}], "isError": true}}}),
            ),
            json!({"type": "function_call_output", "call_id": "c4", "output": [{"type": "input_text", "text": "no"}]}),
        ]);
        let calls: Vec<(&J, &J, &J)> = of_kind(&evs, "tool_call")
            .iter()
            .map(|c| (&c["name"], &c["tool_kind"], &c["key_arg"]))
            .collect();
        assert_eq!(
            calls,
            [
                (&json!("shell"), &json!("shell"), &json!("false")),
                (
                    &json!("apply_patch"),
                    &json!("edit"),
                    &json!("update /w/a.txt, add /abs/b.txt")
                ),
                (&json!("update_plan"), &json!("todo"), &json!("2 items")),
                (&json!("mcp__docs__lookup"), &json!("mcp"), &json!("x")),
            ]
        );
        let todos = &of_kind(&evs, "tool_call")[2]["todos"];
        assert_eq!(todos[1], json!({"content": "b", "status": "in_progress"}));
        let results: Vec<(&J, &J, &J)> = of_kind(&evs, "tool_result")
            .iter()
            .map(|r| (&r["id"], &r["is_error"], &r["content"]))
            .collect();
        assert_eq!(
            results,
            [
                (&json!("c1"), &json!(true), &json!("exit code 1")),
                (
                    &json!("c2"),
                    &json!(true),
                    &json!("apply_patch verification failed: no a.txt")
                ),
                (&json!("c3"), &json!(false), &json!("Plan updated")),
                (&json!("c4"), &json!(true), &json!("no")),
            ]
        );
    }

    /// A `token_count` written again with the same running total (Codex does
    /// when only its rate limits changed) counts its response once: the
    /// usage events add up to the running total.
    #[test]
    fn a_repeated_running_total_counts_once() {
        let count = |i: u64, o: u64, last_i: u64, last_o: u64| {
            ev(
                "event_msg",
                json!({"type": "token_count", "info": {
                "total_token_usage": {"input_tokens": i, "cached_input_tokens": 0, "output_tokens": o},
                "last_token_usage": {"input_tokens": last_i, "cached_input_tokens": 0, "output_tokens": last_o}},
                "rate_limits": {"primary": {"used_percent": 1.0}}}),
            )
        };
        let evs = rollout(&[
            meta(),
            ev("event_msg", json!({"type": "task_started"})),
            count(100, 10, 100, 10),
            count(100, 10, 100, 10),
            count(250, 30, 150, 20),
        ]);
        let usage = of_kind(&evs, "usage");
        assert_eq!(usage.len(), 2, "{usage:?}");
        let sum = |k: &str| {
            usage
                .iter()
                .map(|u| u["tokens"][k].as_u64().unwrap())
                .sum::<u64>()
        };
        assert_eq!((sum("input"), sum("output")), (250, 30));
    }

    /// Each turn's result has its own tokens (the running total's growth), a
    /// failed turn its error, after an error notice.
    #[test]
    fn turns_and_their_results() {
        let total = |i: u64, o: u64| {
            ev(
                "event_msg",
                json!({"type": "token_count", "info": {"total_token_usage":
            {"input_tokens": i, "cached_input_tokens": 0, "output_tokens": o}}}),
            )
        };
        let evs = rollout(&[
            meta(),
            ev("event_msg", json!({"type": "task_started"})),
            total(100, 10),
            ev(
                "event_msg",
                json!({"type": "task_complete", "last_agent_message": "one", "duration_ms": 5}),
            ),
            ev("event_msg", json!({"type": "task_started"})),
            total(250, 30),
            ev("event_msg", json!({"type": "token_count", "info": null})),
            ev(
                "event_msg",
                json!({"type": "task_complete", "last_agent_message": null,
            "error": {"message": "boom", "codex_error_info": "other"}}),
            ),
        ]);
        let results = of_kind(&evs, "result");
        assert_eq!(results.len(), 2);
        assert_eq!(results[0]["text"], "one");
        assert_eq!(results[0]["is_error"], false);
        assert_eq!(results[0]["tokens"]["input"], 100);
        assert_eq!(results[1]["is_error"], true);
        assert_eq!(results[1]["text"], "boom");
        assert_eq!(results[1]["tokens"]["input"], 150);
        assert_eq!(results[1]["tokens"]["output"], 20);
        let errors: Vec<&J> = of_kind(&evs, "notice")
            .into_iter()
            .filter(|n| n["level"] == "error")
            .collect();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0]["text"], "boom");
    }
}
