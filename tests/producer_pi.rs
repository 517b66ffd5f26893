//! Pi (`tests/fixtures/pi/`, real captures of 0.73.1) through the pipeline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// Pi decoding: the real captures of 0.73.1
/// (`tests/fixtures/pi/`) and small inline lines, through the whole
/// pipeline to JSONL.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/pi/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use crate::common::pipeline::{calls_of, fixture_text, jsonl_run as run, of_kind as kind};
    use streamview::ExitStatus;
    use streamview::event::Producer;

    fn fixture(name: &str) -> (Vec<J>, ExitStatus) {
        run(&fixture_text("pi", name), None)
    }

    fn call(name: &str, args: &str) -> String {
        format!(
            r#"{{"type":"message_end","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c1","name":"{name}","arguments":{args}}}],"model":"m","usage":{{"input":0,"output":0}},"stopReason":"toolUse","timestamp":1795711186874}}}}"#
        )
    }

    fn key(name: &str, args: &str) -> J {
        let (evs, _) = run(&call(name, args), Some(Producer::Pi));
        kind(&evs, "tool_call")[0]["key_arg"].clone()
    }

    #[test]
    fn the_result_is_rebuilt_from_the_messages() {
        let (evs, status) = fixture("mixed");
        assert_eq!(status, ExitStatus::Success);
        assert!(evs.iter().all(|e| e["producer"] == "pi"), "{evs:?}");
        assert_eq!(
            kind(&evs, "session_start")[0]["cwd"],
            "/home/dev/work/mixed/ws"
        );
        assert_eq!(kind(&evs, "thinking").len(), 1);
        let usage = kind(&evs, "usage");
        assert_eq!(usage.len(), 4, "one per assistant message");
        let r = kind(&evs, "result")[0];
        assert_eq!(
            r["text"],
            "Created `hello.txt`; `missing.txt` does not exist."
        );
        assert_eq!(r["num_turns"], 4);
        assert_eq!(r["tokens"]["input"], 1100);
        assert_eq!(r["tokens"]["cache_read"], 3200);
        assert!(r["cost_usd"].as_f64().unwrap() > 0.0);
        let texts: Vec<_> = kind(&evs, "text")
            .iter()
            .filter(|t| t["role"] == "assistant")
            .map(|t| t["text"].clone())
            .collect();
        assert_eq!(texts.len(), 2, "each text once: {texts:?}");
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
                    json!("write"),
                    json!("write"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("read"),
                    json!("read"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("edit"),
                    json!("edit"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("find"),
                    json!("search"),
                    json!(format!("**/*.txt in {w}"))
                ),
                (
                    json!("grep"),
                    json!("search"),
                    json!(format!("BETA in {w}"))
                ),
                (json!("ls"), json!("search"), json!(w)),
            ]
        );
        assert_eq!(kind(&evs, "tool_call")[2]["lines_added"], 1);
        let (evs, _) = fixture("parallel");
        let calls = kind(&evs, "tool_call");
        let results = kind(&evs, "tool_result");
        assert_eq!((calls.len(), results.len()), (2, 2));
    }

    #[test]
    fn tool_errors_and_shell_exits() {
        let (evs, _) = fixture("tool_error");
        let errors = kind(&evs, "tool_result")
            .iter()
            .filter(|r| r["is_error"] == true)
            .count();
        assert_eq!(errors, 3);
        let (evs, status) = fixture("shell_fail");
        assert_eq!(status, ExitStatus::Success);
        let r = kind(&evs, "tool_result")[0];
        assert_eq!(r["is_error"], true);
        assert!(
            r["content"]
                .as_str()
                .unwrap()
                .ends_with("Command exited with code 3")
        );
    }

    #[test]
    fn an_api_error_exits_1_though_pi_exits_0() {
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
            assert!(kind(&evs, "usage").is_empty(), "{name}: zero usage is none");
        }
        let (evs, _) = fixture("error_500");
        let retries = kind(&evs, "notice")
            .into_iter()
            .filter(|n| n["subtype"] == "api_retry")
            .count();
        assert_eq!(retries, 3);
    }

    #[test]
    fn key_args_of_pi_tools() {
        assert_eq!(key("bash", r#"{"command":"ls -la"}"#), "ls -la");
        assert_eq!(key("read", r#"{"path":"/a","offset":3}"#), "/a");
        assert_eq!(
            key("grep", r#"{"pattern":"p","path":"/w","glob":"*.rs"}"#),
            "p in /w (*.rs)"
        );
        assert_eq!(key("mcp_tool", r#"{"q":"x"}"#), "x");
        assert_eq!(key("bash", r#"{"command":7}"#), J::Null);
        assert_eq!(key("read", "[]"), J::Null);
    }

    #[test]
    fn a_run_cut_before_its_end_is_incomplete() {
        let (_, status) = run(&call("bash", r#"{"command":"ls"}"#), None);
        assert_eq!(status, ExitStatus::Incomplete);
    }

    /// A saved session (`~/.pi/agent/sessions/--<cwd>--/*.jsonl`): the header,
    /// then each message whole; the result rebuilt at the end.
    #[test]
    fn a_saved_session_replays_its_messages() {
        let text = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-11-26T16:39:55.223Z","cwd":"/w"}"#,
        r#"{"type":"model_change","id":"m1","parentId":null,"provider":"mock","modelId":"mock-model"}"#,
        r#"{"type":"thinking_level_change","id":"t1","parentId":"m1","thinkingLevel":"medium"}"#,
        r#"{"type":"message","id":"u1","parentId":"t1","message":{"role":"user","content":[{"type":"text","text":"go"}],"timestamp":1795711195258}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}],"model":"mock-model","usage":{"input":200,"output":50,"cacheRead":800,"cacheWrite":0},"stopReason":"toolUse","timestamp":1795711195341}}"#,
        r#"{"type":"message","id":"r1","parentId":"a1","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"a"}],"isError":false,"timestamp":1795711195441}}"#,
        r#"{"type":"message","id":"a2","parentId":"r1","message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input":300,"output":40,"cacheRead":800},"stopReason":"stop","timestamp":1795711195550}}"#,
    ]
    .join("\n");
        let (evs, status) = run(&text, None);
        assert_eq!(status, ExitStatus::Success);
        assert!(evs.iter().all(|e| e["producer"] == "pi"));
        assert_eq!(
            calls_of(&evs),
            [(json!("bash"), json!("shell"), json!("ls"))]
        );
        let r = &kind(&evs, "result")[0];
        assert_eq!(r["num_turns"], 2);
        assert_eq!(r["text"], "Done.");
        assert_eq!(r["tokens"]["input"], 500);
        assert_eq!(r["tokens"]["cache_read"], 1600);
    }
}
