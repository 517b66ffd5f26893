//! Helpers of the saved-session suites (`tests/producer_*_session.rs`):
//! the binary's JSONL and summary of a saved session or a stream, to
//! compare one with the other.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The runs captured of each CLI of the newer corpus (Droid, Pi, Cline),
/// each a stream and the saved session of the same run.
pub const SCENARIOS: [&str; 11] = [
    "error_400",
    "error_500",
    "files",
    "mixed",
    "parallel",
    "reasoning",
    "shell_fail",
    "shell_ok",
    "stream_error",
    "text",
    "tool_error",
];

/// The JSON lines the binary prints over `input` with `args`, and its
/// exit status.
pub fn streamview(args: &[&str], input: &Path) -> (Vec<Value>, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_streamview"))
        .args(args)
        .arg(input)
        .output()
        .unwrap();
    let values = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (values, out.status.code().unwrap_or(-1))
}

/// `(name, key argument, failed)` of each tool call, in order, and the
/// exit status.
pub fn calls(input: &Path) -> (Vec<(String, String, bool)>, i32) {
    let (events, status) = streamview(&["--format", "jsonl"], input);
    let failed = |id: &Value| {
        events
            .iter()
            .any(|e| e["kind"] == "tool_result" && &e["id"] == id && e["is_error"] == true)
    };
    let calls = events
        .iter()
        .filter(|e| e["kind"] == "tool_call")
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (s("name"), s("key_arg"), failed(&e["id"]))
        })
        .collect();
    (calls, status)
}

/// `(name, key argument)` of each tool call, in order.
pub fn named_calls(input: &Path) -> Vec<(String, String)> {
    calls(input).0.into_iter().map(|(n, k, _)| (n, k)).collect()
}

/// Streamview's total tokens: uncached input, output, cache read.
pub fn tokens(input: &Path) -> [u64; 3] {
    let (summary, _) = streamview(&["--format", "summary-json"], input);
    let t = &summary[0]["total"]["tokens"];
    ["input", "output", "cache_read"].map(|k| t[k].as_u64().unwrap_or(0))
}
