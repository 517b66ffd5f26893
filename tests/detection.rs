//! Producer detection: every captured stream is recognised without
//! `--from`, several files of different producers in one call each get
//! their own detection, and logs of different agents concatenated into one
//! input are told apart at each session header.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

const DIRS: [(&str, &str); 18] = [
    ("claude", "claude"),
    ("claude-2.1.330", "claude"),
    ("codex", "codex"),
    ("gemini", "gemini"),
    ("opencode", "opencode"),
    ("qwen", "qwen"),
    ("qwen-0.24.4", "qwen"),
    ("amp", "amp"),
    ("cursor", "cursor"),
    ("claude-transcript", "claude-transcript"),
    ("codex-rollout", "codex-rollout"),
    ("copilot", "copilot"),
    ("droid", "droid"),
    ("pi", "pi"),
    ("cline", "cline"),
    ("kilo", "kilo"),
    ("kimi", "kimi"),
    ("grok", "grok"),
];

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&path) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    v
}

/// Run `--format jsonl` on `args` (or on `stdin`), return the events.
fn events(args: &[&Path], stdin: Option<&[u8]>) -> (Vec<Value>, i32) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_streamview"));
    cmd.arg("--format").arg("jsonl").args(args);
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    if let Some(data) = stdin {
        let mut w = child.stdin.take().unwrap();
        w.write_all(data).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let evs = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (evs, out.status.code().unwrap())
}

/// Gemini CLI's session files (in their `chats/` folders) are detected as
/// such, not as its stream, and their streams as the stream.
#[test]
fn gemini_session_files_are_detected() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-session");
    let mut files = vec![dir.join("older/chats/session-2025-09-01T10-00-d724fc11.json")];
    for name in [
        "files",
        "shell_fail",
        "tool_error",
        "parallel",
        "thinking",
        "error_500",
    ] {
        let chats = dir.join(name).join("chats");
        files.extend(
            std::fs::read_dir(&chats)
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
        let (evs, _) = events(&[&dir.join("stream").join(format!("{name}.jsonl"))], None);
        assert!(evs.iter().all(|e| e["producer"] == "gemini"), "{name}");
    }
    for f in files {
        let (evs, _) = events(&[&f], None);
        assert!(!evs.is_empty(), "{}", f.display());
        assert!(
            evs.iter().all(|e| e["producer"] == "gemini-session"),
            "{}",
            f.display()
        );
    }
}

/// Hermes Agent's store (its sessions' lines, `decode/hermes/store.rs`) and
/// its usage reports are Hermes', and nothing else is: the lines of its
/// store piped as a stream too.
#[test]
fn hermes_stores_and_reports_are_detected() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut inputs: Vec<PathBuf> = ["mixed_oneshot", "error_500_oneshot"]
        .iter()
        .map(|n| root.join(format!("hermes/{n}.usage.json")))
        .collect();
    for run in ["mixed", "tool_error", "error_400"] {
        inputs.push(root.join(format!("hermes-session/{run}/state.db")));
    }
    for f in &inputs {
        let (evs, _) = events(&[f], None);
        assert!(!evs.is_empty(), "{}", f.display());
        assert!(
            evs.iter().all(|e| e["producer"] == "hermes"),
            "{}",
            f.display()
        );
    }
    // The store's lines, written by `--format jsonl`'s source and piped.
    let db = root.join("hermes-session/mixed/state.db");
    let stored = store_lines(&db, "20261202_044445_e9943d");
    let (evs, status) = events(&[], Some(&stored));
    assert_eq!(status, 0);
    assert!(evs.iter().all(|e| e["producer"] == "hermes"));
    assert_eq!(evs.iter().filter(|e| e["kind"] == "tool_call").count(), 3);
}

/// `OpenClaw`'s reports (one JSON document each) and stores (their sessions'
/// lines, `decode/openclaw/store.rs`) are `OpenClaw`'s: the store's lines
/// piped as a stream too (its header is marked); the same entries without
/// the mark are Pi's, whose saved session they are to the byte.
#[test]
fn openclaw_stores_and_reports_are_detected() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut inputs: Vec<PathBuf> = ["text", "tool_error", "error_400", "mixed_local"]
        .iter()
        .map(|n| root.join(format!("openclaw/{n}.json")))
        .collect();
    let db = |run: &str| {
        root.join(format!(
            "openclaw-session/{run}/agents/main/agent/openclaw-agent.sqlite"
        ))
    };
    for run in ["mixed", "tool_error", "error_400"] {
        inputs.push(db(run));
    }
    for f in &inputs {
        let (evs, _) = events(&[f], None);
        assert!(!evs.is_empty(), "{}", f.display());
        assert!(
            evs.iter().all(|e| e["producer"] == "openclaw"),
            "{}",
            f.display()
        );
    }
    let sessions = streamview::decode::store_readers()
        .sessions(&db("mixed"))
        .unwrap();
    let stored = store_lines(&db("mixed"), &sessions[0].id);
    let (evs, status) = events(&[], Some(&stored));
    assert_eq!(status, 0);
    assert!(evs.iter().all(|e| e["producer"] == "openclaw"));
    assert_eq!(evs.iter().filter(|e| e["kind"] == "tool_call").count(), 3);
    let text = String::from_utf8(stored).unwrap();
    let unmarked = text.replacen(r#""store":"openclaw","#, "", 1);
    let (evs, _) = events(&[], Some(unmarked.as_bytes()));
    assert!(evs.iter().all(|e| e["producer"] == "pi"));
}

/// Crush's stores (their sessions' lines, `decode/crush/store.rs`) are
/// Crush's, and nothing else is: the lines of a store piped as a stream
/// too.
#[test]
fn crush_stores_are_detected() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crush-session");
    for project in ["alpha", "beta"] {
        let db = root.join(project).join(".crush/crush.db");
        let (evs, _) = events(&[&db], None);
        assert!(!evs.is_empty(), "{project}");
        assert!(evs.iter().all(|e| e["producer"] == "crush"), "{project}");
    }
    let db = root.join("alpha/.crush/crush.db");
    let stored = store_lines(&db, "a3");
    let (evs, status) = events(&[], Some(&stored));
    assert_eq!(status, 0);
    assert!(evs.iter().all(|e| e["producer"] == "crush"));
    // The agent call and its sub-agent's glob.
    assert_eq!(evs.iter().filter(|e| e["kind"] == "tool_call").count(), 2);
}

/// Kilo streams whose first line is an `error`: the same line as
/// `OpenCode`'s, so the stream reads as `OpenCode`'s (`decode/kilo.rs`).
const READ_AS_OPENCODE: [&str; 3] = [
    "kilo/error_400.jsonl",
    "kilo/error_500_retrylimit.jsonl",
    "kilo/stream_error_retrylimit.jsonl",
];

#[test]
fn every_captured_stream_is_detected_without_from() {
    let mut checked = 0;
    for (dir, producer) in DIRS {
        for f in fixtures(dir) {
            let name = format!("{dir}/{}", f.file_name().unwrap().to_string_lossy());
            let producer = if READ_AS_OPENCODE.contains(&name.as_str()) {
                "opencode"
            } else {
                producer
            };
            let (evs, _) = events(&[&f], None);
            assert!(!evs.is_empty(), "{}: no events", f.display());
            for e in &evs {
                if e["kind"] == "plain_text" {
                    continue;
                }
                assert_eq!(
                    e["producer"],
                    producer,
                    "{}: line {}",
                    f.display(),
                    e["line"]
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 90, "only {checked} fixtures found");
}

/// One call, files of five producers: each keeps its own producer, sessions
/// follow each other in order, and the exit status is the worst.
#[test]
fn several_producers_in_one_call() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let files = [
        root.join("codex/shell_fail.jsonl"),
        root.join("gemini/files.jsonl"),
        root.join("claude/max_turns.jsonl"),
        root.join("opencode/text.jsonl"),
        root.join("qwen/text.jsonl"),
    ];
    let args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let (evs, code) = events(&args, None);
    let order: Vec<&str> = evs
        .iter()
        .filter(|e| e["kind"] == "session_start")
        .map(|e| e["producer"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["codex", "gemini", "claude", "opencode", "qwen"]);
    let results: Vec<bool> = evs
        .iter()
        .filter(|e| e["kind"] == "result")
        .map(|e| e["is_error"].as_bool().unwrap())
        .collect();
    assert_eq!(results, [false, false, true, false, false]);
    assert_eq!(code, 1, "the Claude session hit max turns");
}

/// The same logs concatenated into one stdin give the same events as the
/// files given one by one (the line numbers and the input's name aside).
#[test]
fn concatenated_logs_of_different_agents_are_told_apart() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let files = [
        root.join("opencode/shell_fail.jsonl"),
        root.join("claude/tools_basic.jsonl"),
        root.join("gemini/shell_ok.jsonl"),
        root.join("codex/mixed.jsonl"),
        root.join("opencode/todos.jsonl"),
    ];
    let mut cat = Vec::new();
    for f in &files {
        cat.extend(std::fs::read(f).unwrap());
    }
    let args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let (separate, code_a) = events(&args, None);
    let (together, code_b) = events(&[], Some(&cat));
    let strip = |evs: &[Value]| -> Vec<Value> {
        evs.iter()
            .map(|e| {
                let mut e = e.clone();
                let o = e.as_object_mut().unwrap();
                o.remove("line");
                o.remove("source");
                e
            })
            .collect()
    };
    assert_eq!(strip(&separate), strip(&together));
    assert_eq!(code_a, code_b);
    let sessions = together
        .iter()
        .filter(|e| e["kind"] == "session_start")
        .count();
    assert_eq!(sessions, 5);
}

/// A stream whose first lines are ambiguous (shapes several producers
/// share) is latched at its first recognisable line; nothing is lost.
#[test]
fn ambiguous_first_lines() {
    let input = concat!(
        r#"{"type":"user","message":{"role":"user","content":"hi"},"session_id":"s"}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hello"}]},"session_id":"s"}"#,
        "\n",
        r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"ls"}}},"session_id":"s"}"#,
        "\n",
        r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"ls"},"result":{"success":{"stdout":"a\n","exitCode":0}}}},"session_id":"s"}"#,
        "\n",
        r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"result":"hello","session_id":"s"}"#,
        "\n",
    );
    let (evs, code) = events(&[], Some(input.as_bytes()));
    assert_eq!(code, 0);
    let kinds: Vec<&str> = evs.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["text", "text", "tool_call", "tool_result", "result"]
    );
    // Before the telltale `tool_call` line the shared shapes are read the
    // Claude way; from it on, the stream is Cursor's.
    let producers: Vec<&str> = evs
        .iter()
        .map(|e| e["producer"].as_str().unwrap())
        .collect();
    assert_eq!(
        producers,
        ["claude", "claude", "cursor", "cursor", "cursor"]
    );
    assert_eq!(evs[2]["name"], "shell");
    assert_eq!(evs[2]["key_arg"], "ls");
}

/// The lines of session `id` of the store at `db`, as its reader writes them.
fn store_lines(db: &std::path::Path, id: &str) -> Vec<u8> {
    use std::io::Read;
    let mut lines = Vec::new();
    let mut rdr = streamview::decode::store_readers().open(db, id).unwrap();
    rdr.read_to_end(&mut lines).unwrap();
    lines
}
