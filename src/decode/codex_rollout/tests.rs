//! Codex rollout decoding, through the whole pipeline to JSONL: the older
//! shape (`event_msg` text, outputs as JSON), what is printed twice read
//! once, outputs paired by `call_id`, and malformed lines. The corpus pairs
//! are compared with their streams in `tests/producer_codex_rollout.rs`.

use serde_json::{Value as J, json};

use super::tools::framed;
use crate::decode::{Decoded, Decoder};
use crate::diag::Diag;
use crate::event::{Event, Producer};
use crate::input::Line;
use crate::json::Arena;
use crate::render::Jsonl;
use crate::run::Runner;

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

#[test]
fn detected_by_the_envelope() {
    use crate::decode::detect;
    let d = |s: &str| {
        let mut parser = crate::json::Parser::default();
        parser.parse(s.as_bytes(), |v| detect(v.unwrap()))
    };
    assert_eq!(
        d(r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}"#),
        Some(Producer::CodexRollout)
    );
    assert_eq!(
        d(r#"{"type":"event_msg","payload":{"type":"token_count"}}"#),
        Some(Producer::CodexRollout)
    );
    assert_eq!(d(r#"{"type":"event_msg","payload":"x"}"#), None);
    assert_eq!(d(r#"{"type":"turn_context"}"#), None);
}

#[test]
fn framed_outputs() {
    let a = Arena::default();
    let t = |s: &'static str| {
        let (e, c) = framed(s, &a);
        (e, c.text().into_owned())
    };
    assert_eq!(
        t("Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 3\nOutput:\nbad\n"),
        (true, "exit code 3\nbad\n".into())
    );
    assert_eq!(
        t("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"),
        (false, "Success.\n".into())
    );
    assert_eq!(t("Plan updated"), (false, "Plan updated".into()));
    assert_eq!(t("Output:"), (false, String::new()));
    assert_eq!(
        t("Process exited with code x\nOutput:\n"),
        (false, String::new())
    );
}

/// Values of every type in every field of every line of the corpus, and
/// every line cut short: no panic, and every line gives events or is
/// skipped with a reason.
#[test]
fn malformed_lines() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/codex-rollout");
    let odd = [
        json!(null),
        json!(7),
        json!("s"),
        json!([]),
        json!({}),
        json!([{"type": 1}]),
        json!(-1.5),
    ];
    for name in [
        "apply_patch",
        "mcp",
        "image",
        "plan",
        "reasoning",
        "web_search",
        "error_500",
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{name}.rollout.jsonl")).unwrap();
        let mut dec = Decoder::with_producer(Some(Producer::CodexRollout));
        let mut feed = |bytes: &[u8]| {
            let line = Line {
                number: 1,
                bytes,
                partial: false,
            };
            let d = dec.decode(&line, &mut |_: &Event<'_>| Ok(())).unwrap();
            assert!(
                !matches!(d, Decoded::Blank),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        };
        for l in text.lines() {
            let v: J = serde_json::from_str(l).unwrap();
            for variant in variants(&v, &odd) {
                feed(variant.to_string().as_bytes());
            }
            for cut in (1..l.len()).step_by(l.len() / 9 + 1) {
                if l.is_char_boundary(cut) {
                    feed(&l.as_bytes()[..cut]);
                }
            }
        }
        dec.finish(&mut |_: &Event<'_>| Ok(())).unwrap();
    }
}

/// `v` with each field of its payload, its payload's item and their
/// objects one level down replaced by each of `odd` in turn.
fn variants(v: &J, odd: &[J]) -> Vec<J> {
    let mut out = Vec::new();
    let paths: [&[&str]; 4] = [
        &[],
        &["payload"],
        &["payload", "item"],
        &["payload", "info"],
    ];
    for path in paths {
        let Some(obj) = path
            .iter()
            .try_fold(v, |v, k| v.get(k))
            .and_then(J::as_object)
        else {
            continue;
        };
        for key in obj.keys() {
            for o in odd {
                let mut w = v.clone();
                let mut at = &mut w;
                for k in path {
                    at = &mut at[*k];
                }
                at[key.as_str()] = o.clone();
                out.push(w);
            }
        }
    }
    out
}
