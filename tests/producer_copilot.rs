//! GitHub Copilot CLI (`tests/fixtures/copilot/`, real captures of 1.0.102) through the pipeline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// GitHub Copilot CLI decoding: the real captures of 1.0.102
/// (`tests/fixtures/copilot/`) and small inline lines, through the whole
/// pipeline to JSONL.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/copilot/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use crate::common::pipeline::{calls_of, fixture_text, jsonl_run as run, of_kind as kind};
    use streamview::ExitStatus;
    use streamview::event::Producer;

    fn fixture(name: &str) -> (Vec<J>, ExitStatus) {
        run(&fixture_text("copilot", name), None)
    }

    fn start(name: &str, args: &str) -> String {
        format!(
            r#"{{"type":"tool.execution_start","data":{{"toolCallId":"c1","toolName":"{name}","arguments":{args}}},"id":"x","timestamp":"2026-11-26T16:35:13.061Z","parentId":null}}"#
        )
    }

    fn key(name: &str, args: &str) -> J {
        let (evs, _) = run(&start(name, args), Some(Producer::Copilot));
        kind(&evs, "tool_call")[0]["key_arg"].clone()
    }

    #[test]
    fn detected_and_answered_once() {
        let (evs, status) = fixture("text");
        assert_eq!(status, ExitStatus::Success);
        assert!(evs.iter().all(|e| e["producer"] == "copilot"), "{evs:?}");
        let s = kind(&evs, "session_start");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0]["model"], "mock-model");
        assert!(!s[0]["skills"].as_array().unwrap().is_empty());
        assert_eq!(kind(&evs, "text")[0]["role"], "user");
        let text = kind(&evs, "text")[1];
        assert!(
            text["text"]
                .as_str()
                .unwrap()
                .starts_with("Hello! I am a scripted")
        );
        // The deltas join into the message's text.
        let joined: String = kind(&evs, "delta")
            .iter()
            .map(|d| d["text"].as_str().unwrap())
            .collect();
        assert_eq!(joined, text["text"].as_str().unwrap());
        let r = kind(&evs, "result")[0];
        assert_eq!(r["is_error"], false);
        assert_eq!(r["text"], text["text"]);
        assert_eq!(r["num_turns"], 1);
        assert_eq!(r["duration_ms"], 489);
        assert_eq!(r["session"], "51dcbfa2-f472-47bd-b950-b5985cedb67e");
        assert!(kind(&evs, "unknown").is_empty(), "{evs:?}");
    }

    #[test]
    fn every_call_once_with_its_key_and_kind() {
        let (evs, _) = fixture("files");
        let calls: Vec<_> = calls_of(&evs);
        let w = "/home/dev/work/files/ws";
        assert_eq!(
            calls,
            [
                (
                    json!("create"),
                    json!("write"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("view"),
                    json!("read"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("edit"),
                    json!("edit"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("glob"),
                    json!("search"),
                    json!(format!("**/*.txt in {w}"))
                ),
                (
                    json!("grep"),
                    json!("search"),
                    json!(format!("BETA in {w}"))
                ),
                (json!("view"), json!("read"), json!(w)),
            ]
        );
        let edit = kind(&evs, "tool_call")[2];
        assert_eq!(edit["lines_added"], 1);
        assert_eq!(edit["lines_removed"], 1);
        assert_eq!(kind(&evs, "tool_result").len(), 6);
        assert!(
            kind(&evs, "tool_result")
                .iter()
                .all(|r| r["is_error"] == false)
        );
    }

    #[test]
    fn parallel_calls_pair_by_id() {
        let (evs, _) = fixture("parallel");
        let calls = kind(&evs, "tool_call");
        assert_eq!(calls.len(), 2);
        let results = kind(&evs, "tool_result");
        assert_eq!(results.len(), 2);
        assert_eq!(results[0]["id"], calls[0]["id"]);
        assert_eq!(results[1]["id"], calls[1]["id"]);
    }

    #[test]
    fn a_non_zero_exit_is_a_failure() {
        let (evs, status) = fixture("shell_fail_allpaths");
        let r = kind(&evs, "tool_result")[0];
        assert_eq!(r["is_error"], true);
        assert!(r["content"].as_str().unwrap().starts_with("exit code 3\n"));
        assert_eq!(status, ExitStatus::Success, "the session itself succeeded");
        let (evs, _) = fixture("shell_ok");
        assert_eq!(kind(&evs, "tool_result")[0]["is_error"], false);
    }

    #[test]
    fn a_refused_permission_is_a_denial() {
        let (evs, _) = fixture("shell_fail");
        let r = kind(&evs, "tool_result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["denied"], true);
        let d = kind(&evs, "permission_denied")[0];
        assert_eq!(d["tool"], "bash");
        assert!(
            d["key_arg"]
                .as_str()
                .unwrap()
                .starts_with("ls /definitely/not/here")
        );
        assert!(
            d["message"]
                .as_str()
                .unwrap()
                .starts_with("Permission denied")
        );
    }

    #[test]
    fn tool_errors_keep_their_message() {
        let (evs, _) = fixture("tool_error");
        let errors: Vec<_> = kind(&evs, "tool_result")
            .iter()
            .filter(|r| r["is_error"] == true)
            .map(|r| r["content"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(errors.len(), 3);
        assert!(errors[1].contains("no_such_tool"), "{errors:?}");
        assert_eq!(kind(&evs, "tool_call")[1]["tool_kind"], "other");
    }

    #[test]
    fn reasoning_once_before_the_answer() {
        for name in ["reasoning", "mixed", "mixed_nostream"] {
            let (evs, _) = fixture(name);
            let thinking = kind(&evs, "thinking");
            assert_eq!(thinking.len(), 1, "{name}");
            let at = |e: &J| evs.iter().position(|x| x == e).unwrap();
            let first_text = kind(&evs, "text")
                .into_iter()
                .find(|t| t["role"] == "assistant")
                .unwrap();
            assert!(at(thinking[0]) < at(first_text), "{name}");
        }
    }

    #[test]
    fn api_errors_fail_the_session() {
        for (name, status) in [
            ("error_400", Some(400)),
            ("error_500", Some(500)),
            ("stream_error", None),
        ] {
            let (evs, exit) = fixture(name);
            assert_eq!(exit, ExitStatus::SessionError, "{name}");
            let r = kind(&evs, "result")[0];
            assert_eq!(r["is_error"], true, "{name}");
            assert_eq!(
                r["api_error_status"],
                status.map_or(J::Null, |s| json!(s)),
                "{name}"
            );
            let errors: Vec<_> = kind(&evs, "notice")
                .into_iter()
                .filter(|n| n["level"] == "error")
                .collect();
            assert_eq!(errors.len(), 1, "{name}");
        }
        let (evs, _) = fixture("error_500");
        let warnings = kind(&evs, "notice")
            .into_iter()
            .filter(|n| n["level"] == "warning")
            .count();
        assert!(warnings >= 6, "each failed attempt is a warning");
    }

    #[test]
    fn key_args_of_copilot_tools() {
        assert_eq!(
            key("bash", r#"{"command":"ls -la","description":"d"}"#),
            "ls -la"
        );
        assert_eq!(key("view", r#"{"path":"/a","view_range":[1,2]}"#), "/a");
        assert_eq!(key("create", r#"{"path":"/b","file_text":"x"}"#), "/b");
        assert_eq!(
            key("grep", r#"{"pattern":"p","path":"/w","glob":"*.rs"}"#),
            "p in /w (*.rs)"
        );
        assert_eq!(key("web_fetch", r#"{"url":"https://x.y"}"#), "https://x.y");
        assert_eq!(
            key(
                "sql",
                r#"{"description":"Track","query":"INSERT INTO todos\nVALUES (1)"}"#
            ),
            "INSERT INTO todos"
        );
        assert_eq!(
            key(
                "task",
                r#"{"agent_type":"explore","description":"look","prompt":"p"}"#
            ),
            "explore: look"
        );
        assert_eq!(key("some_mcp_tool", r#"{"q":"x"}"#), "x");
        assert_eq!(key("bash", r#"{"command":7}"#), J::Null);
        assert_eq!(key("view", "[]"), J::Null);
    }

    #[test]
    fn a_stream_cut_before_its_result_is_incomplete() {
        let (_, status) = run(&start("bash", r#"{"command":"ls"}"#), None);
        assert_eq!(status, ExitStatus::Incomplete);
    }

    /// A line of the envelope: `type`, its `data`, and `extra` top-level keys.
    fn envelope(ty: &str, data: &str, extra: &str) -> String {
        format!(
            r#"{{"type":"{ty}","data":{data},"id":"x","timestamp":"2026-11-26T16:35:13.061Z","parentId":null{extra}}}"#
        )
    }

    #[test]
    fn a_sub_agents_lines_are_nested_under_its_task_call() {
        let lines = [
            envelope(
                "assistant.message",
                r#"{"messageId":"m1","content":"","toolRequests":[{"toolCallId":"t1","name":"task","arguments":{"agent_type":"explore","description":"look"}}]}"#,
                "",
            ),
            envelope(
                "subagent.started",
                r#"{"toolCallId":"t1","agentName":"explore","agentDisplayName":"Explore"}"#,
                r#","agentId":"a1""#,
            ),
            envelope(
                "assistant.message",
                r#"{"messageId":"m2","content":"found it","toolRequests":[{"toolCallId":"c2","name":"view","arguments":{"path":"/a"}}]}"#,
                r#","agentId":"a1""#,
            ),
            envelope(
                "tool.execution_start",
                r#"{"toolCallId":"c3","toolName":"grep","arguments":{"pattern":"p"},"parentToolCallId":"t1"}"#,
                "",
            ),
            envelope(
                "assistant.usage",
                r#"{"model":"m","inputTokens":120,"outputTokens":30,"cacheReadTokens":800}"#,
                "",
            ),
            envelope(
                "assistant.message",
                r#"{"messageId":"m3","content":"done"}"#,
                "",
            ),
            r#"{"type":"result","sessionId":"s","exitCode":0,"usage":{}}"#.to_string(),
        ];
        let (evs, status) = run(&lines.join("\n"), None);
        assert_eq!(status, ExitStatus::Success);
        let calls = kind(&evs, "tool_call");
        let parents: Vec<_> = calls.iter().map(|c| c["parent"].clone()).collect();
        assert_eq!(parents, [J::Null, json!("t1"), json!("t1")]);
        assert_eq!(calls[0]["key_arg"], "explore: look");
        assert_eq!(calls[0]["tool_kind"], "agent");
        let sub_text = kind(&evs, "text")
            .into_iter()
            .find(|t| t["text"] == "found it")
            .unwrap();
        assert_eq!(sub_text["parent"], "t1");
        let u = kind(&evs, "usage")[0];
        assert_eq!(
            u["tokens"],
            json!({"input":120,"output":30,"cache_read":800,"cache_creation":null})
        );
        // The final text is the main agent's.
        assert_eq!(kind(&evs, "result")[0]["text"], "done");
    }

    #[test]
    fn a_session_warning_is_a_warning() {
        let line = envelope(
            "session.warning",
            r#"{"warningType":"quota","message":"low quota"}"#,
            "",
        );
        let (evs, _) = run(&line, Some(Producer::Copilot));
        let n = kind(&evs, "notice")[0];
        assert_eq!(
            (n["level"].as_str(), n["text"].as_str()),
            (Some("warning"), Some("low quota"))
        );
    }

    /// A saved session (`~/.copilot/session-state/<id>/events.jsonl`): its
    /// `session.start`, each request's `session.usage_record` (the input
    /// holds the cached tokens), and `session.shutdown` as the result.
    #[test]
    fn a_saved_session_has_its_tokens_and_its_end() {
        let text = [
        r#"{"type":"session.start","data":{"sessionId":"s1","copilotVersion":"1.0.102","selectedModel":"m","context":{"cwd":"/w"}},"id":"1","timestamp":"2026-11-26T16:35:22.920Z","parentId":null}"#,
        r#"{"type":"system.message","data":{"role":"system","content":"You are…"},"id":"2","timestamp":"2026-11-26T16:35:23.000Z","parentId":"1"}"#,
        r#"{"type":"user.message","data":{"content":"go"},"id":"3","timestamp":"2026-11-26T16:35:23.053Z","parentId":"2"}"#,
        r#"{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"4","timestamp":"2026-11-26T16:35:23.057Z","parentId":"3"}"#,
        r#"{"type":"session.usage_record","data":{"usage":{"model":"m","inputTokens":1000,"outputTokens":50,"cacheReadTokens":800,"cacheWriteTokens":0,"apiCallId":"c1"}},"id":"5","timestamp":"2026-11-26T16:35:23.140Z","parentId":"4"}"#,
        r#"{"type":"assistant.message","data":{"messageId":"m1","content":"Done.","toolRequests":[]},"id":"6","timestamp":"2026-11-26T16:35:23.141Z","parentId":"5"}"#,
        r#"{"type":"session.shutdown","data":{"sessionStartTime":1795710922920,"totalApiDurationMs":76,"modelMetrics":{"m":{"usage":{"inputTokens":1000,"outputTokens":50,"cacheReadTokens":800,"cacheWriteTokens":0}}}},"id":"7","timestamp":"2026-11-26T16:35:23.366Z","parentId":"6"}"#,
    ]
    .join("\n");
        let (evs, status) = run(&text, None);
        assert_eq!(status, ExitStatus::Success);
        let start = &kind(&evs, "session_start")[0];
        assert_eq!(
            (start["cwd"].clone(), start["version"].clone()),
            (json!("/w"), json!("1.0.102"))
        );
        let u = &kind(&evs, "usage")[0];
        assert_eq!(u["tokens"]["input"], 200);
        assert_eq!(u["tokens"]["cache_read"], 800);
        let r = &kind(&evs, "result")[0];
        assert_eq!(r["session"], "s1");
        assert_eq!(r["tokens"]["input"], 200);
        assert_eq!(r["duration_ms"], 446);
        assert_eq!(r["text"], "Done.");
    }
}
