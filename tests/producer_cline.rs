//! Cline CLI (`tests/fixtures/cline/`, real captures of 3.0.65) through the pipeline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// Cline CLI decoding: the real captures of 3.0.65
/// (`tests/fixtures/cline/`) and small inline lines, through the whole
/// pipeline to JSONL.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/cline/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use crate::common::pipeline::{calls_of, fixture_text, jsonl_run as run, of_kind as kind};
    use streamview::ExitStatus;
    use streamview::event::Producer;

    fn fixture(name: &str) -> (Vec<J>, ExitStatus) {
        run(&fixture_text("cline", name), None)
    }

    fn call(name: &str, args: &str) -> String {
        format!(
            r#"{{"ts":"2026-11-26T17:44:23.577Z","type":"agent_event","event":{{"type":"content_start","contentType":"tool","toolName":"{name}","toolCallId":"c1","input":{args}}}}}"#
        )
    }

    fn key(name: &str, args: &str) -> J {
        let (evs, _) = run(&call(name, args), Some(Producer::Cline));
        kind(&evs, "tool_call")[0]["key_arg"].clone()
    }

    #[test]
    fn detected_not_as_claude_and_totalled() {
        let (evs, status) = fixture("mixed");
        assert_eq!(status, ExitStatus::Success);
        assert!(evs.iter().all(|e| e["producer"] == "cline"), "{evs:?}");
        assert_eq!(kind(&evs, "session_start").len(), 1);
        assert_eq!(kind(&evs, "thinking").len(), 1);
        let texts: Vec<_> = kind(&evs, "text")
            .iter()
            .map(|t| t["text"].clone())
            .collect();
        assert_eq!(
            texts,
            [
                json!("Let me look around."),
                json!("Created `hello.txt`; `missing.txt` does not exist.")
            ]
        );
        assert_eq!(kind(&evs, "usage").len(), 4);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["text"], texts[1]);
        assert_eq!(r["num_turns"], 4);
        assert_eq!(r["duration_ms"], 681);
        assert_eq!(
            r["tokens"],
            json!({"input":1100,"output":190,"cache_read":3200,"cache_creation":0})
        );
        assert_eq!(r["cost_usd"], J::Null, "a model without prices reports 0");
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
                    json!("editor"),
                    json!("write"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("read_files"),
                    json!("read"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("editor"),
                    json!("edit"),
                    json!(format!("{w}/notes.txt"))
                ),
                (
                    json!("run_commands"),
                    json!("shell"),
                    json!(format!("find {w} -path '*/*.txt' | sort"))
                ),
                (json!("search_codebase"), json!("search"), json!("BETA")),
                (
                    json!("run_commands"),
                    json!("shell"),
                    json!(format!("ls -la {w}"))
                ),
            ]
        );
        assert_eq!(kind(&evs, "tool_call")[2]["lines_added"], 1);
        let (evs, _) = fixture("parallel");
        let calls = kind(&evs, "tool_call");
        let results = kind(&evs, "tool_result");
        assert_eq!((calls.len(), results.len()), (2, 2));
        assert_eq!(results[1]["id"], calls[1]["id"]);
    }

    #[test]
    fn failures_in_the_output_array() {
        let (evs, _) = fixture("tool_error");
        let errors: Vec<_> = kind(&evs, "tool_result")
            .iter()
            .filter(|r| r["is_error"] == true)
            .map(|r| r["content"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(errors.len(), 2);
        assert!(
            errors[0].starts_with("Error reading file: ENOENT"),
            "{errors:?}"
        );
        assert!(
            errors[1].contains("rejected before execution"),
            "{errors:?}"
        );
        let (evs, status) = fixture("shell_fail");
        assert_eq!(status, ExitStatus::Success);
        let r = kind(&evs, "tool_result")[0];
        assert_eq!(r["is_error"], true);
        assert!(
            r["content"]
                .as_str()
                .unwrap()
                .starts_with("[Command exited with code 3]")
        );
    }

    #[test]
    fn api_errors_fail_the_session() {
        for name in ["error_400", "error_500", "stream_error"] {
            let (evs, status) = fixture(name);
            assert_eq!(status, ExitStatus::SessionError, "{name}");
            let r = kind(&evs, "result")[0];
            assert_eq!(r["is_error"], true, "{name}");
            assert_eq!(r["subtype"], "error", "{name}");
            assert_eq!(r["tokens"]["input"], J::Null, "{name}: zeros are no counts");
            assert_eq!(r["errors"].as_array().unwrap().len(), 1, "{name}");
            let errors = kind(&evs, "notice")
                .into_iter()
                .filter(|n| n["level"] == "error")
                .count();
            assert_eq!(errors, 1, "{name}");
        }
    }

    #[test]
    fn key_args_of_cline_tools() {
        assert_eq!(
            key("run_commands", r#"{"commands":["ls","pwd"]}"#),
            "ls; pwd"
        );
        assert_eq!(
            key("read_files", r#"{"files":[{"path":"/a"},{"path":"/b"}]}"#),
            "/a, /b"
        );
        assert_eq!(
            key("editor", r#"{"path":"/c","old_text":"a","new_text":"b"}"#),
            "/c"
        );
        assert_eq!(key("search_codebase", r#"{"queries":["x","y"]}"#), "x, y");
        assert_eq!(key("mcp_tool", r#"{"q":"x"}"#), "x");
        assert_eq!(key("run_commands", r#"{"commands":7}"#), J::Null);
        assert_eq!(key("editor", "[]"), J::Null);
    }

    #[test]
    fn a_run_cut_before_its_result_is_incomplete() {
        let (_, status) = run(&call("run_commands", r#"{"commands":["ls"]}"#), None);
        assert_eq!(status, ExitStatus::Incomplete);
    }
}
