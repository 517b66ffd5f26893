//! Claude Code 2.1.330's background sub-agents and several results in one
//! session, through the binary on the real capture
//! (`tests/fixtures/claude-2.1.330/subagent.jsonl`: two agents run at once,
//! each one's end starts a turn with a result of its own).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde_json::{Value, json};

const SUBAGENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude-2.1.330/subagent.jsonl"
);
const DENIED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude-2.1.330/permission_denied.jsonl"
);

/// stdout and exit code of `streamview --color never ARGS` with `stdin`.
fn run(args: &[&str], stdin: &str) -> (String, i32) {
    let args: Vec<&str> = ["--color", "never"]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    let o = common::run(&args, stdin.as_bytes());
    (o.out(), o.code)
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn one_end_with_its_parts() {
    let (out, code) = run(&[SUBAGENT], "");
    assert_eq!(code, 0);
    assert_eq!(count(&out, "✓ done"), 1, "{out}");
    let end = &out[out.find("✓ done").unwrap()..];
    let lines: Vec<&str> = end.lines().collect();
    // The totals: the turns and durations of the three results added up.
    assert!(lines[0].starts_with("✓ done · 5 turns · 359ms"), "{end}");
    assert!(
        lines[1].starts_with("  ⎿ ✓ main turn · 3 turns · 276ms"),
        "{end}"
    );
    assert!(
        lines[2].starts_with("  ⎿ ✓ after task Inspect Python code · 1 turn"),
        "{end}"
    );
    assert!(
        lines[3].starts_with("  ⎿ ✓ after task Inspect Rust code · 1 turn"),
        "{end}"
    );
    assert_eq!(lines.len(), 4, "{end}");
}

#[test]
fn answers_once_and_lines_labelled() {
    let (out, _) = run(&[SUBAGENT], "");
    // The answer is the agent's own last text; the notice only names it.
    assert_eq!(
        count(&out, "hello.py defines greet() and prints a greeting."),
        1,
        "{out}"
    );
    assert_eq!(count(&out, "src/lib.rs has 3 lines."), 1, "{out}");
    assert!(
        out.contains("· task completed: Inspect Python code\n"),
        "{out}"
    );
    // Both run at once: every nested line says whose it is.
    for line in out.lines().filter(|l| l.starts_with("  │")) {
        assert!(
            line.starts_with("  │ [Inspect Python code] ")
                || line.starts_with("  │ [Inspect Rust code] "),
            "{line}"
        );
    }
    assert!(
        out.contains("  │ [Inspect Rust code] ✗ Bash false failed"),
        "{out}"
    );
}

#[test]
fn results_name_their_task_and_read_back() {
    let (jsonl, _) = run(&["--format", "jsonl", SUBAGENT], "");
    let after: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "result")
        .map(|e| e["after_task"].clone())
        .collect();
    assert_eq!(
        after,
        [
            Value::Null,
            json!("Inspect Python code"),
            json!("Inspect Rust code")
        ]
    );
    // Read back, the JSONL renders the same.
    assert_eq!(run(&[], &jsonl).0, run(&[SUBAGENT], "").0);
}

#[test]
fn the_worst_result_is_the_outcome() {
    let input = [
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"/w","tools":[]}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"num_turns":2,"duration_ms":10,"result":"ok","session_id":"s"}"#,
        r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,"duration_ms":5,"errors":["boom"],"session_id":"s","result_index":1}"#,
    ]
    .join("\n");
    let (out, code) = run(&[], &input);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("✗ session failed · 3 turns · 15ms\n"), "{out}");
    assert!(out.contains("  ⎿ ✓ main turn · 2 turns · 10ms\n"), "{out}");
    assert!(
        out.contains("  ⎿ ✗ turn 2 · 1 turn · 5ms\n      boom\n"),
        "{out}"
    );
    // Whether the end was written before the failure came or not, the
    // last end line says the session failed.
    let last_end = out.lines().rfind(|l| l.starts_with(['✓', '✗'])).unwrap();
    assert!(last_end.starts_with("✗ session failed"), "{out}");
}

#[test]
fn a_denial_is_shown_and_counted_once() {
    let (out, _) = run(&["-v", DENIED], "");
    assert_eq!(count(&out, "⊘ permission denied"), 2, "{out}");
    assert!(!out.contains("✗ "), "{out}");
    let (json, _) = run(&["--format", "summary-json", DENIED], "");
    let total = &serde_json::from_str::<Value>(&json).unwrap()["total"];
    assert_eq!(total["tool_errors"], 0, "{total}");
    assert_eq!(total["denials"], 2, "{total}");
}

/// More tasks than the decoder remembers at once: each one's end is still
/// named right (its memory is reused and compacted, never mixed up).
#[test]
fn many_tasks() {
    let mut input = String::from(
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"/w","tools":[]}"#,
    );
    for i in 0..300 {
        input.push('\n');
        input.push_str(&json!({"type":"system","subtype":"task_started","task_id":format!("k{i}"),"run_id":format!("r{i}"),"tool_use_id":format!("t{i}"),"description":format!("job number {i} {}", "x".repeat(i % 50)),"session_id":"s"}).to_string());
        if i >= 10 {
            let j = i - 10;
            input.push('\n');
            input.push_str(&json!({"type":"system","subtype":"task_notification","task_id":format!("k{j}"),"status":"completed","summary":"done","session_id":"s"}).to_string());
        }
    }
    let (out, _) = run(&[], &input);
    for j in 0..290 {
        let want = format!(
            "· task completed: job number {j} {}: done\n",
            "x".repeat(j % 50)
        );
        assert!(out.contains(&want), "{want}");
    }
}

/// Claude Code 2.1.332 writes a background sub-agent's line between two
/// fragments of the main agent's streamed text: the main text's line stays
/// whole, the sub-agent's lines follow it, each once and in order.
#[test]
fn a_sub_agents_line_inside_streamed_text_waits_for_the_line_to_end() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude-2.1.332/subagent_partial_interleaved.jsonl"
    );
    let (out, code) = run(&[path], "");
    assert_eq!(code, 0);
    let main =
        "Both agents reported back: `hello.py` prints a greeting and `src/lib.rs` has 3 lines.";
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == main)
        .unwrap_or_else(|| panic!("{out}"));
    // What the sub-agents said meanwhile comes after it, not inside it.
    assert_eq!(
        lines[at + 1],
        "  │ [Inspect Python code] Reading the file.",
        "{out}"
    );
    assert_eq!(count(&out, "Reading the file."), 1, "{out}");
    // With colour, the same words.
    let o = common::run(&["--color", "always", path], b"");
    let plain = String::from_utf8(strip_ansi(&o.stdout)).unwrap();
    assert!(plain.lines().any(|l| l == main), "{plain}");
}

/// `s` without its SGR escape sequences.
fn strip_ansi(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if s[i] == 0x1b && s.get(i + 1) == Some(&b'[') {
            i += 2;
            while i < s.len() && !s[i].is_ascii_alphabetic() {
                i += 1;
            }
            i += 1;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// A transcript with its sub-agents' files: each sub-agent's report is
/// shown once, in its block; its call's answer says so rather than
/// repeating it, in the pretty view and the reports alike.
#[test]
fn a_sub_agents_report_is_shown_once() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("reports-once-{}", std::process::id()));
    let agents = dir.join("p/s/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let fixture = |n: &str| {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/claude-transcript")
            .join(n)
    };
    std::fs::copy(fixture("transcript_subagent.jsonl"), dir.join("p/s.jsonl")).unwrap();
    for id in ["a8164d334e3dc2758", "abe457c7cccc84957"] {
        let from = fixture(&format!("transcript_subagent.agent-{id}.jsonl"));
        std::fs::copy(from, agents.join(format!("agent-{id}.jsonl"))).unwrap();
    }
    let lib = dir.join("p");
    for format in ["pretty", "markdown", "html"] {
        let (out, code) = run(&["--format", format, lib.to_str().unwrap()], "");
        assert_eq!(code, 0, "{format}");
        assert_eq!(
            count(&out, "hello.py defines greet() and prints a greeting."),
            1,
            "{format}: {out}"
        );
        assert_eq!(count(&out, "src/lib.rs has 3 lines."), 1, "{format}: {out}");
        assert_eq!(count(&out, "(its report, above)"), 2, "{format}: {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 28: when more of the sub-agents' output waits under the main
/// agent's open line than is kept (64 KiB), the line is cut, visibly and
/// between two words: `reported…`, the sub-agents' lines, then `back: …`
/// on a line of its own, never `bac` / `k:`.
#[test]
fn a_line_cut_for_too_much_waiting_output_is_cut_between_words() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude-2.1.332/subagent_partial_interleaved.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let at = lines
        .iter()
        .position(|l| l.contains("\"text\":\"Reading the file.\""))
        .unwrap();
    let mut sub: Value = serde_json::from_str(&lines[at]).unwrap();
    // 100 lines of a kilobyte each from the sub-agent, after its first.
    let filler: Vec<String> = (0..100)
        .map(|i| {
            sub["message"]["id"] = json!(format!("msg_filler_{i}"));
            sub["uuid"] = json!(format!("filler-{i}"));
            sub["message"]["content"][0]["text"] =
                json!(format!("note {i}: {}", "word ".repeat(200)));
            sub.to_string()
        })
        .collect();
    lines.splice(at + 1..=at, filler);
    let (out, code) = run(&["-"], &(lines.join("\n") + "\n"));
    assert_eq!(code, 0);
    let shown: Vec<&str> = out.lines().collect();
    let cut = shown
        .iter()
        .position(|l| l.starts_with("Both agents reported"))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(shown[cut], "Both agents reported …", "{out}");
    assert_eq!(
        shown[cut + 1],
        "  │ [Inspect Python code] Reading the file."
    );
    let rest = shown
        .iter()
        .position(|l| l.starts_with("back: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(rest > cut + 60, "the waiting lines come between: {rest}");
    assert_eq!(
        shown[rest],
        "back: `hello.py` prints a greeting and `src/lib.rs` has 3 lines."
    );
    assert!(!out.contains("bac\n"), "{out}");
}
