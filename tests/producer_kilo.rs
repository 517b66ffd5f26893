//! Kilo CLI (`tests/fixtures/kilo/`, real captures of 7.7.7) through the pipeline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// Kilo CLI decoding: the real captures of 7.7.7
/// (`tests/fixtures/kilo/`) and small inline lines, through the whole
/// pipeline to JSONL.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/kilo/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use crate::common::pipeline::{calls_of, fixture_text, jsonl_run as run, of_kind as kind};
    use streamview::ExitStatus;
    use streamview::event::Producer;

    fn fixture(name: &str) -> (Vec<J>, ExitStatus) {
        run(&fixture_text("kilo", name), None)
    }

    #[test]
    fn named_kilo_and_read_as_opencode() {
        let (evs, status) = fixture("mixed");
        assert_eq!(status, ExitStatus::Success);
        assert!(evs.iter().all(|e| e["producer"] == "kilo"), "{evs:?}");
        let calls: Vec<_> = calls_of(&evs);
        assert_eq!(
            calls,
            [
                (json!("bash"), json!("shell"), json!("ls -la")),
                (
                    json!("write"),
                    json!("write"),
                    json!("/home/dev/work/mixed/ws/hello.txt")
                ),
                (
                    json!("bash"),
                    json!("shell"),
                    json!("cat hello.txt && cat missing.txt")
                ),
            ]
        );
        // A non-zero exit is a failure, as in OpenCode.
        let failed = kind(&evs, "tool_result")
            .iter()
            .filter(|r| r["is_error"] == true)
            .count();
        assert_eq!(failed, 1);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["producer"], "kilo");
        assert_eq!(
            r["text"],
            "Created `hello.txt`; `missing.txt` does not exist."
        );
        assert_eq!(r["num_turns"], 4);
    }

    #[test]
    fn its_extra_keys_are_kept() {
        let (evs, _) = fixture("files");
        // The diff an edit made: the result's changes, from its first hunk.
        let edit = kind(&evs, "tool_call")
            .into_iter()
            .find(|c| c["name"] == "edit")
            .unwrap();
        assert_eq!(edit["changes_in_result"], true, "{edit}");
        let result = kind(&evs, "tool_result")
            .into_iter()
            .find(|r| r["id"] == edit["id"])
            .unwrap();
        assert_eq!(result["lines_added"], 1, "{result}");
        assert_eq!(result["lines_removed"], 1, "{result}");
        let notices: Vec<_> = kind(&evs, "notice");
        let approvals: Vec<_> = notices
            .iter()
            .filter(|n| n["subtype"] == "approval")
            .collect();
        assert_eq!(approvals.len(), 6, "one per call");
        assert_eq!(approvals[0]["text"], "edit *: allow (global rule)");
        let raw = &approvals[0]["raw"]["part"]["state"]["metadata"]["approval"];
        assert_eq!(raw["rule"]["permission"], "edit");
        let metrics: Vec<_> = notices
            .iter()
            .filter(|n| n["subtype"] == "metrics")
            .collect();
        assert_eq!(metrics.len(), 7, "one per step");
        assert!(notices.iter().all(|n| n["level"] == "debug"));
    }

    #[test]
    fn errors_exit_1() {
        for name in [
            "error_500_retrylimit",
            "stream_error_retrylimit",
            "error_400",
            "tool_error",
        ] {
            let (evs, status) = fixture(name);
            let want = if name == "tool_error" {
                ExitStatus::Success
            } else {
                ExitStatus::SessionError
            };
            assert_eq!(status, want, "{name}");
            assert_eq!(kind(&evs, "result").len(), 1, "{name}");
        }
        // A stream that begins with its error cannot be told from OpenCode's.
        let (evs, _) = fixture("error_400");
        assert_eq!(evs[0]["producer"], "opencode");
        let (evs, _) = fixture("tool_error");
        let errors = kind(&evs, "tool_result")
            .iter()
            .filter(|r| r["is_error"] == true)
            .count();
        assert_eq!(errors, 3);
    }

    #[test]
    fn from_kilo_reads_any_opencode_line() {
        let line = r#"{"type":"tool_use","timestamp":1795714790007,"sessionID":"ses_1","part":{"id":"p","sessionID":"ses_1","messageID":"m","type":"tool","callID":"c1","tool":"grep","state":{"status":"completed","input":{"pattern":"x","path":"/w"},"output":"","metadata":{}}}}"#;
        let (evs, _) = run(line, None);
        assert_eq!(evs[0]["producer"], "kilo");
        assert_eq!(kind(&evs, "tool_call")[0]["key_arg"], "x in /w");
        let (evs, _) = run(line, Some(Producer::Kilo));
        assert_eq!(kind(&evs, "tool_call")[0]["producer"], "kilo");
    }

    /// `OpenCode`'s real stream as `OpenCode` of 2025 wrote it: each part's
    /// `sessionID` second, as Kilo writes it, and dated a year earlier.
    fn as_opencode_of_2025(text: &str, shift_ms: u64) -> String {
        let ids = regex::Regex::new(r#""messageID":("[^"]*"),"sessionID":("[^"]*")"#).unwrap();
        let swapped = ids.replace_all(text, r#""sessionID":$2,"messageID":$1"#);
        let ts = regex::Regex::new(r#""timestamp":(\d+)"#).unwrap();
        ts.replace_all(&swapped, |c: &regex::Captures<'_>| {
            let t: u64 = c[1].parse().unwrap();
            format!("\"timestamp\":{}", t - shift_ms)
        })
        .into_owned()
    }

    #[test]
    fn an_opencode_stream_of_2025_is_opencode() {
        let year_ms = 365 * 86_400_000;
        let text = fixture_text("opencode", "files");
        let (original, _) = run(&text, None);
        let older = as_opencode_of_2025(&text, year_ms);
        assert_ne!(older, text);
        assert!(older.starts_with(r#"{"type":"step_start","timestamp":1763"#));
        let (evs, status) = run(&older, None);
        assert_eq!(status, ExitStatus::Success);
        assert!(evs.iter().all(|e| e["producer"] == "opencode"), "{evs:?}");
        assert_eq!(calls_of(&evs), calls_of(&original));
        // The same order dated 2026, when Kilo's fork writes it: Kilo's.
        let (evs, _) = run(&as_opencode_of_2025(&text, 0), None);
        assert_eq!(evs[0]["producer"], "kilo");
        // Kilo's own keys are Kilo's whatever the date.
        let kilo = as_opencode_of_2025(&fixture_text("kilo", "files"), year_ms);
        let step_finish = kilo.lines().find(|l| l.contains("\"metrics\"")).unwrap();
        let (evs, _) = run(step_finish, None);
        assert_eq!(evs[0]["producer"], "kilo");
    }
}
