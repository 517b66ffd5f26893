//! Factory Droid (`tests/fixtures/droid/`, real captures of 0.215.0) through the pipeline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// Factory Droid decoding: the real captures of 0.215.0
/// (`tests/fixtures/droid/`) and small inline lines, through the whole
/// pipeline to JSONL.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/droid/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use crate::common::pipeline::{calls_of, fixture_text, jsonl_run as run, of_kind as kind};
    use streamview::ExitStatus;
    use streamview::event::Producer;

    fn fixture(name: &str) -> (Vec<J>, ExitStatus) {
        run(&fixture_text("droid", name), None)
    }

    fn call(name: &str, args: &str) -> String {
        format!(
            r#"{{"type":"tool_call","id":"c1","messageId":"m","toolId":"{name}","toolName":"{name}","parameters":{args},"timestamp":1795710974349,"session_id":"s"}}"#
        )
    }

    fn key(name: &str, args: &str) -> J {
        let (evs, _) = run(&call(name, args), Some(Producer::Droid));
        kind(&evs, "tool_call")[0]["key_arg"].clone()
    }

    #[test]
    fn told_from_claude_and_totalled() {
        let (evs, status) = fixture("mixed");
        assert_eq!(status, ExitStatus::Success);
        assert!(evs.iter().all(|e| e["producer"] == "droid"), "{evs:?}");
        let s = kind(&evs, "session_start")[0];
        assert_eq!(s["model"], "custom:Mock-(loopback)-0");
        assert_eq!(s["cwd"], "/home/dev/work/mixed/ws");
        // The reasoning, printed twice, is given once.
        assert_eq!(kind(&evs, "thinking").len(), 1);
        let r = kind(&evs, "result")[0];
        assert_eq!(
            r["text"],
            "Created `hello.txt`; `missing.txt` does not exist."
        );
        assert_eq!(r["num_turns"], 4);
        assert_eq!(r["duration_ms"], 888);
        assert_eq!(
            r["tokens"],
            json!({"input":1100,"output":190,"cache_read":3200,"cache_creation":0})
        );
        let failed: Vec<_> = kind(&evs, "tool_result")
            .into_iter()
            .filter(|r| r["is_error"] == true)
            .collect();
        assert_eq!(failed.len(), 1);
        assert!(
            failed[0]["content"]
                .as_str()
                .unwrap()
                .starts_with("Error: Command failed (exit code: 1)")
        );
        assert!(kind(&evs, "unknown").is_empty(), "{evs:?}");
    }

    #[test]
    fn every_call_with_its_key_and_kind() {
        let (evs, _) = fixture("files");
        let calls: Vec<_> = calls_of(&evs);
        let w = "/home/dev/work/files/ws";
        assert_eq!(
            calls,
            [
                (
                    json!("Create"),
                    json!("write"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("Read"),
                    json!("read"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("Edit"),
                    json!("edit"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("Glob"),
                    json!("search"),
                    json!(format!("**/*.txt in {w}"))
                ),
                (
                    json!("Grep"),
                    json!("search"),
                    json!(format!("BETA in {w}"))
                ),
                (json!("LS"), json!("search"), json!(w)),
            ]
        );
        assert_eq!(kind(&evs, "tool_result").len(), 6);
        let (evs, _) = fixture("parallel");
        let calls = kind(&evs, "tool_call");
        let results = kind(&evs, "tool_result");
        assert_eq!((calls.len(), results.len()), (2, 2));
        assert_eq!(results[1]["id"], calls[1]["id"]);
    }

    #[test]
    fn tool_errors_keep_their_message() {
        let (evs, status) = fixture("tool_error");
        assert_eq!(status, ExitStatus::Success);
        let errors: Vec<_> = kind(&evs, "tool_result")
            .iter()
            .filter(|r| r["is_error"] == true)
            .map(|r| r["content"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(errors.len(), 3);
        assert!(errors[1].contains("Not found: no_such_tool"), "{errors:?}");
    }

    #[test]
    fn api_errors_fail_the_session() {
        for (name, message) in [
            ("error_400", "400 mock: invalid request (context too long)"),
            ("error_500", "500 mock internal error"),
            ("stream_error", "Connection error."),
        ] {
            let (evs, status) = fixture(name);
            assert_eq!(status, ExitStatus::SessionError, "{name}");
            let r = kind(&evs, "result")[0];
            assert_eq!(r["is_error"], true, "{name}");
            assert_eq!(r["errors"], json!([message]), "{name}");
            assert_eq!(kind(&evs, "notice")[0]["text"], message, "{name}");
        }
    }

    #[test]
    fn the_json_output_is_one_result() {
        let (evs, status) = fixture("mixed_json");
        assert_eq!(status, ExitStatus::Success);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["producer"], "droid");
        assert_eq!(r["num_turns"], 4);
        assert_eq!(r["tokens"]["cache_read"], 3200);
    }

    #[test]
    fn key_args_of_droid_tools() {
        assert_eq!(
            key("Execute", r#"{"command":"ls -la","riskLevel":"low"}"#),
            "ls -la"
        );
        assert_eq!(key("Read", r#"{"file_path":"/a"}"#), "/a");
        assert_eq!(key("Glob", r#"{"patterns":["*.rs","*.md"]}"#), "*.rs, *.md");
        assert_eq!(key("FetchUrl", r#"{"url":"https://x.y"}"#), "https://x.y");
        assert_eq!(key("WebSearch", r#"{"query":"rust"}"#), "rust");
        assert_eq!(
            key(
                "Task",
                r#"{"subagent_type":"worker","description":"look","prompt":"p"}"#
            ),
            "worker: look"
        );
        assert_eq!(
            key(
                "TodoWrite",
                r#"{"todos":"1. [in_progress] a\n2. [pending] b"}"#
            ),
            "1. [in_progress] a"
        );
        assert_eq!(key("Execute", r#"{"command":7}"#), J::Null);
        assert_eq!(key("Read", "[]"), J::Null);
    }

    #[test]
    fn a_stream_cut_before_its_completion_is_incomplete() {
        let (_, status) = run(&call("Execute", r#"{"command":"ls"}"#), None);
        assert_eq!(status, ExitStatus::Incomplete);
    }

    /// A saved session (`~/.factory/sessions/…/<id>.jsonl`) with its settings
    /// read as its last line: Claude-like content blocks, the totals of the
    /// settings, a failed turn's error.
    #[test]
    fn a_saved_session_replays_its_messages_and_totals_its_settings() {
        let text = [
        r#"{"type":"session_start","id":"s1","title":"t","cwd":"/w","version":2}"#,
        r#"{"type":"message","id":"context-1","message":{"role":"user","content":[{"type":"text","text":"<system-reminder>tools</system-reminder>"}]}}"#,
        r#"{"type":"message","id":"u1","parentId":"context-1","timestamp":"2026-11-26T16:36:14.131Z","message":{"role":"user","content":[{"type":"text","text":"go"}]}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"thinking","thinking":"Plan."},{"type":"tool_use","id":"c1","name":"Execute","input":{"command":"exit 3"}}]}}"#,
        r#"{"type":"message","id":"r1","parentId":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","is_error":true,"content":"Error: Command failed (exit code: 3)"}]}}"#,
        r#"{"type":"message","id":"a2","parentId":"r1","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}"#,
        r#"{"type":"agent_turn_outcome","turnId":"u1","reason":"completed"}"#,
        r#"{"model":"m","tokenUsage":{"inputTokens":100,"outputTokens":20,"cacheReadTokens":300,"cacheCreationTokens":0}}"#,
    ]
    .join("\n");
        let (evs, status) = run(&text, None);
        assert_eq!(status, ExitStatus::Success);
        assert!(evs.iter().all(|e| e["producer"] == "droid"));
        assert_eq!(
            calls_of(&evs),
            [(json!("Execute"), json!("shell"), json!("exit 3"))]
        );
        assert_eq!(kind(&evs, "tool_result")[0]["is_error"], true);
        assert_eq!(kind(&evs, "text").len(), 2, "the prompt and the answer");
        let r = &kind(&evs, "result")[0];
        assert_eq!(r["num_turns"], 2);
        assert_eq!(r["text"], "Done.");
        assert_eq!(r["tokens"]["input"], 100);
        assert_eq!(r["tokens"]["cache_read"], 300);
    }

    #[test]
    fn a_saved_session_whose_turn_failed_fails() {
        let text = [
        r#"{"type":"session_start","id":"s1","cwd":"/w"}"#,
        r#"{"type":"message","id":"e1","message":{"role":"user","content":[{"type":"text","text":"BYOK Error: 500 boom\n\nUpstream error: boom"}]}}"#,
        r#"{"type":"agent_turn_outcome","reason":"model_provider_unavailable"}"#,
        r#"{"type":"message","id":5,"message":{"role":7,"content":"x"}}"#,
    ]
    .join("\n");
        let (evs, status) = run(&text, None);
        assert_eq!(status, ExitStatus::SessionError);
        let r = &kind(&evs, "result")[0];
        assert_eq!(r["errors"][0], "BYOK Error: 500 boom");
        assert_eq!(kind(&evs, "notice")[0]["subtype"], "api_error");
    }
}
