//! Amp fixtures (`tests/fixtures/amp/`, real captures of the Amp CLI)
//! through the binary: detected without `--from`, every tool call and
//! every result written exactly once, and a command that exited non-zero
//! written as failed (counted independently from the raw lines).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

mod common;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/amp");

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    assert!(v.len() >= 3, "fixtures missing in {DIR}");
    v
}

/// `streamview --format jsonl` (no `--from`) on a file or on stdin.
fn jsonl(path: Option<&Path>, stdin: &str) -> (Vec<Value>, i32) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_streamview"));
    cmd.args(["--format", "jsonl", "--color", "never"]);
    if let Some(p) = path {
        cmd.arg(p);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let code = out.status.code().unwrap();
    assert!(matches!(code, 0 | 1 | 3), "{out:?}");
    let evs = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (evs, code)
}

fn raw(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn blocks<'a>(lines: &'a [Value], line_type: &str, block: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l["type"] == line_type)
        .filter_map(|l| l["message"]["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == block)
        .collect()
}

fn of_kind<'a>(evs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["kind"] == kind).collect()
}

fn strs<'a>(vals: &[&'a Value], key: &str) -> Vec<&'a str> {
    vals.iter().map(|v| v[key].as_str().unwrap()).collect()
}

#[test]
fn detected_without_from() {
    for f in fixtures() {
        let (evs, _) = jsonl(Some(&f), "");
        assert!(!evs.is_empty(), "{}", f.display());
        for e in &evs {
            assert_eq!(e["producer"], "amp", "{}: {e}", f.display());
        }
    }
}

#[test]
fn every_tool_call_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(Some(&f), "").0;
        let calls = of_kind(&evs, "tool_call");
        assert_eq!(
            strs(&calls, "id"),
            strs(&blocks(&lines, "assistant", "tool_use"), "id"),
            "{}",
            f.display()
        );
        for c in &calls {
            assert!(c["key_arg"].is_string(), "{}: no key for {c}", f.display());
        }
    }
}

#[test]
fn every_tool_result_exactly_once() {
    for f in fixtures() {
        let lines = raw(&f);
        let evs = jsonl(Some(&f), "").0;
        let expected = blocks(&lines, "user", "tool_result");
        let results = of_kind(&evs, "tool_result");
        assert_eq!(
            strs(&results, "id"),
            strs(&expected, "tool_use_id"),
            "{}",
            f.display()
        );
        for (r, b) in results.iter().zip(&expected) {
            // A command's exit code is only inside its JSON text.
            let exit = serde_json::from_str::<Value>(b["content"].as_str().unwrap())
                .ok()
                .and_then(|c| c["exitCode"].as_i64());
            let failed = b["is_error"] == true || exit.is_some_and(|c| c != 0);
            assert_eq!(r["is_error"], failed, "{}: {r}", f.display());
            if let Some(code) = exit.filter(|&c| c != 0) {
                let content = r["content"].as_str().unwrap();
                assert!(
                    content.starts_with(&format!("exit code {code}\n")),
                    "{content}"
                );
            }
            assert!(r["name"].is_string(), "{}: unpaired {r}", f.display());
        }
    }
}

#[test]
fn results_and_exit_statuses() {
    let run = |name: &str| jsonl(Some(&Path::new(DIR).join(name)), "");
    let (evs, code) = run("multi.jsonl");
    assert_eq!(code, 0);
    assert_eq!(of_kind(&evs, "result")[0]["num_turns"], 13);
    let start = of_kind(&evs, "session_start")[0];
    assert_eq!(start["agent_mode"], "medium");
    assert_eq!(start["model"], Value::Null);
    // The patch's key argument is the file it touches; its result the diff.
    let patch = of_kind(&evs, "tool_call")
        .into_iter()
        .find(|c| c["name"] == "apply_patch")
        .unwrap();
    assert_eq!(patch["key_arg"], "NOTES.md");
    let diff = of_kind(&evs, "tool_result")
        .into_iter()
        .find(|r| r["id"] == patch["id"])
        .unwrap();
    assert!(
        diff["content"]
            .as_str()
            .unwrap()
            .contains("+Low stock means")
    );

    // A failed command: shown failed, its output after the exit code.
    let (evs, code) = run("shell.jsonl");
    assert_eq!(code, 0, "a failed command does not fail the session");
    let failed: Vec<&str> = of_kind(&evs, "tool_result")
        .into_iter()
        .filter(|r| r["is_error"] == true)
        .map(|r| r["content"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(failed[0].starts_with("exit code 2\nout of stock: flour"));
    assert!(failed[1].contains("stockctl: command not found"));
    let keys = strs(&of_kind(&evs, "tool_call"), "key_arg");
    assert_eq!(keys[2], "stockctl --sync");

    // The session failed: exit 1, although the CLI itself exits 0.
    let (evs, code) = run("server_error.jsonl");
    assert_eq!(code, 1);
    let result = of_kind(&evs, "result")[0];
    assert_eq!(result["is_error"], true);
    assert_eq!(
        result["errors"][0],
        "mock: inference backend returned HTTP 500 Internal Server Error"
    );

    // A search without a match says so, not `["No results found."]`.
    let (evs, _) = run("search.jsonl");
    let contents = strs(&of_kind(&evs, "tool_result"), "content");
    assert!(contents.contains(&"No results found."), "{contents:?}");

    // The sub-agent's answer is its own text.
    let (evs, _) = run("subagent.jsonl");
    let answer = of_kind(&evs, "tool_result")[0]["content"].as_str().unwrap();
    assert!(
        answer.starts_with("One row has a zero quantity"),
        "{answer}"
    );
}

/// An init that has grown a field the detection table does not expect is
/// still Amp (its thread id), and so is the rest of the stream.
#[test]
fn init_with_an_unexpected_field() {
    let input = [
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"T-9","tools":["Bash"],"mcp_servers":[],"model":"claude-sonnet-4-5"}"#,
        r#"{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"cmd":"ls"}}],"stop_reason":"tool_use","stop_sequence":null},"parent_tool_use_id":null,"session_id":"T-9"}"#,
    ]
    .join("\n");
    let (evs, _) = jsonl(None, &input);
    assert!(evs.iter().all(|e| e["producer"] == "amp"), "{evs:?}");
    assert_eq!(
        of_kind(&evs, "session_start")[0]["model"],
        "claude-sonnet-4-5"
    );
    assert_eq!(of_kind(&evs, "tool_call")[0]["key_arg"], "ls");
}

/// A first line of a shape Claude and Amp share and no thread id (the
/// prompt as Amp reads it with `--stream-json-input`) is read the Claude
/// way; the stream latches to Amp at the first line with a `T-` id.
#[test]
fn ambiguous_first_line() {
    let input = [
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Run ls."}]}}"#,
        r#"{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"cmd":"ls"}}],"stop_reason":"tool_use","stop_sequence":null},"parent_tool_use_id":null,"session_id":"T-9"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt","is_error":false}]},"parent_tool_use_id":null,"session_id":"T-9"}"#,
        r#"{"type":"result","subtype":"success","duration_ms":5,"is_error":false,"num_turns":1,"result":"a.txt","session_id":"T-9"}"#,
    ]
    .join("\n");
    let (evs, code) = jsonl(None, &input);
    assert_eq!(code, 0);
    let producers: Vec<&str> = evs
        .iter()
        .map(|e| e["producer"].as_str().unwrap())
        .collect();
    assert_eq!(producers, ["claude", "amp", "amp", "amp"], "{evs:?}");
    assert_eq!(of_kind(&evs, "text")[0]["text"], "Run ls.");
    // Bash's `cmd` is Amp's: the key argument shows the stream is read as Amp.
    assert_eq!(of_kind(&evs, "tool_call")[0]["key_arg"], "ls");
    assert_eq!(of_kind(&evs, "tool_result")[0]["name"], "Bash");
}

/// Amp decoding, through the whole pipeline to JSONL. The lines follow
/// the real captures (`tests/fixtures/amp/README.md`); some test what only
/// the published types (`docs/protocols.md` §10) allow.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/amp/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as J, json};

    use crate::common::pipeline::{jsonl_run as run, of_kind as kind};
    use streamview::ExitStatus;
    use streamview::event::Producer;

    fn amp(lines: &[&str]) -> Vec<J> {
        run(&lines.join("\n"), Some(Producer::Amp)).0
    }

    const INIT: &str = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"T-1","tools":["Bash","Read"],"mcp_servers":[{"name":"docs","status":"connected"}]}"#;

    fn assistant(id: &str, content: &str, parent: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"id":"{id}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":{content},"stop_reason":"tool_use","stop_sequence":null,"usage":{{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":200}}}},"parent_tool_use_id":{parent},"session_id":"T-1"}}"#
        )
    }

    fn tool_use(name: &str, input: &str) -> String {
        assistant(
            "m1",
            &format!(r#"[{{"type":"tool_use","id":"t1","name":"{name}","input":{input}}}]"#),
            "null",
        )
    }

    fn key(name: &str, input: &str) -> J {
        let evs = amp(&[&tool_use(name, input)]);
        kind(&evs, "tool_call")[0]["key_arg"].clone()
    }

    #[test]
    fn init_is_claude_shaped() {
        let (evs, _) = run(INIT, None);
        let s = kind(&evs, "session_start")[0];
        assert_eq!(s["producer"], "amp");
        assert_eq!(s["session"], "T-1");
        assert_eq!(s["cwd"], "/w");
        assert_eq!(s["tools"], json!(["Bash", "Read"]));
        assert_eq!(
            s["mcp_servers"],
            json!([{"name":"docs","status":"connected"}])
        );
        assert_eq!(s["model"], J::Null);
        assert_eq!(s["version"], J::Null);
    }

    #[test]
    fn key_args_of_amp_tools() {
        assert_eq!(
            key("Bash", r#"{"cmd":"go test ./...","cwd":"core"}"#),
            "go test ./..."
        );
        assert_eq!(key("Read", r#"{"path":"/a","read_range":[1,10]}"#), "/a");
        assert_eq!(
            key("edit_file", r#"{"path":"/b","old_str":"x","new_str":"y"}"#),
            "/b"
        );
        assert_eq!(key("create_file", r#"{"path":"/c","content":"z"}"#), "/c");
        assert_eq!(key("undo_edit", r#"{"path":"/d"}"#), "/d");
        assert_eq!(key("glob", r#"{"filePattern":"**/*.ts"}"#), "**/*.ts");
        assert_eq!(
            key("Grep", r#"{"pattern":"TODO","path":"/w"}"#),
            "TODO in /w"
        );
        assert_eq!(
            key("Task", r#"{"description":"look","prompt":"p"}"#),
            "look"
        );
        assert_eq!(
            key("Task", r#"{"prompt":"first line\nsecond"}"#),
            "first line"
        );
        assert_eq!(key("oracle", r#"{"task":"review"}"#), "review");
        assert_eq!(key("finder", r#"{"query":"auth flow"}"#), "auth flow");
        assert_eq!(key("web_search", r#"{"query":"rust"}"#), "rust");
        assert_eq!(key("read_web_page", r#"{"url":"https://x"}"#), "https://x");
        assert_eq!(key("skill", r#"{"name":"pdf"}"#), "pdf");
        assert_eq!(
            key("todo_write", r#"{"todos":[{"content":"a"}]}"#),
            "1 item"
        );
        assert_eq!(key("mcp__docs__search", r#"{"q":"x"}"#), "x");
        assert_eq!(
            key("shell_command", r#"{"command":"ls -la","workdir":"/w"}"#),
            "ls -la"
        );
        assert_eq!(
            key(
                "async_shell_command",
                r#"{"command":"sleep 1","timeout_ms":5}"#
            ),
            "sleep 1"
        );
        assert_eq!(
            key(
                "apply_patch",
                r#"{"patchText":"*** Begin Patch\n*** Update File: a.md\n@@\n+x\n*** Add File: b.md\n+y\n*** End Patch"}"#
            ),
            "a.md, b.md"
        );
        assert_eq!(key("apply_patch", r#"{"patchText":"no header"}"#), J::Null);
        assert_eq!(key("mermaid", r#"{"code":"graph"}"#), "graph");
        assert_eq!(key("shell_command_status", r#"{"id":"sh-3"}"#), "sh-3");
        assert_eq!(key("reload_mcp", "{}"), J::Null);
        assert_eq!(key("Bash", r#"{"cmd":1}"#), J::Null);
    }

    #[test]
    fn todos_in_usual_words() {
        let evs = amp(&[&tool_use(
            "todo_write",
            r#"{"todos":[{"id":"1","content":"a","status":"in-progress","priority":"high"},{"id":"2","content":"b","status":"todo"},{"id":"3","content":"c","status":"completed"}]}"#,
        )]);
        assert_eq!(
            kind(&evs, "tool_call")[0]["todos"],
            json!([{"content":"a","status":"in_progress"},{"content":"b","status":"pending"},{"content":"c","status":"completed"}])
        );
    }

    #[test]
    fn usage_once_per_message() {
        let line = assistant("m7", r#"[{"type":"text","text":"hi"}]"#, "null");
        let evs = amp(&[&line, &line]);
        let u = kind(&evs, "usage");
        assert_eq!(u.len(), 1);
        assert_eq!(
            u[0]["tokens"],
            json!({"input":10,"output":5,"cache_read":200,"cache_creation":100})
        );
        assert_eq!(u[0]["model"], "claude-sonnet-4-5");
        assert_eq!(kind(&evs, "text").len(), 2);
    }

    #[test]
    fn sub_agent_lines_carry_the_parent() {
        let evs = amp(&[
            &tool_use("Task", r#"{"description":"d","prompt":"p"}"#),
            &assistant(
                "m2",
                r#"[{"type":"tool_use","id":"t2","name":"Read","input":{"path":"/x"}}]"#,
                r#""t1""#,
            ),
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"1: x","is_error":false}]},"parent_tool_use_id":"t1","session_id":"T-1"}"#,
        ]);
        let calls = kind(&evs, "tool_call");
        assert_eq!(calls[1]["parent"], "t1");
        assert_eq!(kind(&evs, "tool_result")[0]["parent"], "t1");
    }

    #[test]
    fn tool_results_are_claude_shaped() {
        let evs = amp(&[
            &tool_use("Bash", r#"{"cmd":"false"}"#),
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"exit status 1","is_error":true}]},"parent_tool_use_id":null,"session_id":"T-1"}"#,
        ]);
        let r = kind(&evs, "tool_result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["name"], "Bash");
        assert_eq!(r["content"], "exit status 1");
    }

    #[test]
    fn error_result_and_denials() {
        let result = r#"{"type":"result","subtype":"error_during_execution","duration_ms":900,"is_error":true,"num_turns":3,"error":"Model request failed","session_id":"T-1","usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":3,"cache_read_input_tokens":4},"permission_denials":["t1","Bash"]}"#;
        let (evs, status) = run(
        &[
            INIT,
            &tool_use("Bash", r#"{"cmd":"rm -rf /"}"#),
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"rejected by a rule","is_error":true}]},"parent_tool_use_id":null,"session_id":"T-1"}"#,
            result,
        ]
        .join("\n"),
        None,
    );
        assert_eq!(status, ExitStatus::SessionError);
        let d = kind(&evs, "permission_denied");
        assert_eq!(d.len(), 2);
        // A call id: the call's name and key argument.
        assert_eq!(d[0]["id"], "t1");
        assert_eq!(d[0]["tool"], "Bash");
        assert_eq!(d[0]["key_arg"], "rm -rf /");
        assert_eq!(d[0]["message"], "rejected by a rule");
        // Anything else: a tool name.
        assert_eq!(d[1]["id"], J::Null);
        assert_eq!(d[1]["tool"], "Bash");
        assert_eq!(d[1]["message"], J::Null);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["subtype"], "error_during_execution");
        assert_eq!(r["errors"], json!(["Model request failed"]));
        assert_eq!(r["text"], J::Null);
        assert_eq!(r["num_turns"], 3);
        assert_eq!(r["duration_ms"], 900);
        assert_eq!(r["duration_api_ms"], J::Null);
        assert_eq!(r["cost_usd"], J::Null);
        assert_eq!(
            r["tokens"],
            json!({"input":1,"output":2,"cache_read":4,"cache_creation":3})
        );
    }

    #[test]
    fn success_result() {
        let (evs, status) = run(
            r#"{"type":"result","subtype":"success","duration_ms":5,"is_error":false,"num_turns":1,"result":"Done.","session_id":"T-1"}"#,
            None,
        );
        assert_eq!(status, ExitStatus::Success);
        let r = kind(&evs, "result")[0];
        assert_eq!(r["producer"], "amp");
        assert_eq!(r["text"], "Done.");
        assert_eq!(r["errors"], json!([]));
        assert_eq!(
            r["tokens"],
            json!({"input":null,"output":null,"cache_read":null,"cache_creation":null})
        );
    }

    #[test]
    fn lenient_on_odd_lines() {
        for line in [
            r#"{"type":"assistant"}"#,
            r#"{"type":"assistant","message":{"content":"plain"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use"},{"type":"thinking","thinking":"t"},{"type":"new_block"}]}}"#,
            r#"{"type":"result","permission_denials":[1,null,{"tool_name":"Bash"}],"usage":7}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}]}]}}"#,
            r#"{"type":"brand_new"}"#,
        ] {
            let _ = amp(&[line]);
        }
        let evs = amp(&[
            r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"t"},{"type":"new_block"}]}}"#,
        ]);
        assert_eq!(kind(&evs, "thinking")[0]["text"], "t");
        assert_eq!(
            kind(&evs, "unknown")[0]["event_type"],
            "assistant/new_block"
        );
    }

    /// The content a `tool_result` line with `content` (a JSON string literal)
    /// after a call of `name` is written with: (`is_error`, `content`).
    fn result_of(name: &str, content: &str, is_error: bool) -> (J, J) {
        let input = r#"{"path":"/p","command":"c","description":"d"}"#;
        let evs = amp(&[
            &tool_use(name, input),
            &format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":{content},"is_error":{is_error}}}]}},"parent_tool_use_id":null,"session_id":"T-1"}}"#
            ),
        ]);
        let r = kind(&evs, "tool_result")[0];
        (r["is_error"].clone(), r["content"].clone())
    }

    #[test]
    fn a_command_that_exits_non_zero_failed() {
        let shell = |c: &str| result_of("shell_command", c, false);
        assert_eq!(
            shell(r#""{\"output\":\"out of stock: flour\\n\",\"exitCode\":2}""#),
            (json!(true), json!("exit code 2\nout of stock: flour\n"))
        );
        assert_eq!(
            shell(r#""{\"output\":\"ok\\n\",\"exitCode\":0}""#),
            (json!(false), json!("ok\n"))
        );
        // No output at all; a negative code (a signal).
        assert_eq!(
            shell(r#""{\"exitCode\":-1}""#),
            (json!(true), json!("exit code -1\n"))
        );
        // Not Amp's JSON: kept as it came.
        for kept in [
            r#""{not json""#,
            r#""{\"exitCode\":\"2\"}""#,
            r#""plain""#,
            r#""[1,2]""#,
        ] {
            let (err, content) = shell(kept);
            assert_eq!(err, false, "{kept}");
            let raw: J = serde_json::from_str(kept).unwrap();
            assert_eq!(content, raw, "{kept}");
        }
        // A tool's own failure stays one, untouched.
        let own = r#""found multiple matches for edit \",kg\\n\"""#;
        assert_eq!(
            result_of("edit_file", own, true),
            (json!(true), serde_json::from_str::<J>(own).unwrap())
        );
    }

    #[test]
    fn data_results_read_as_text() {
        let ok = |name: &str, c: &str| {
            let (err, content) = result_of(name, c, false);
            assert_eq!(err, false, "{c}");
            content
        };
        assert_eq!(
            ok(
                "Read",
                r#""{\"absolutePath\":\"/p\",\"content\":\"1: a\\n2: b\"}""#
            ),
            "1: a\n2: b"
        );
        assert_eq!(
            ok(
                "Read",
                r#""{\"absolutePath\":\"/d\",\"content\":\"\",\"isDirectory\":true,\"directoryEntries\":[\"a.py\",\"b/\"]}""#
            ),
            "a.py\nb/"
        );
        assert_eq!(
            ok(
                "edit_file",
                r#""{\"diff\":\"```diff\\n--- a\\n+++ b\\n@@ -1 +1 @@\\n-x\\n+y\\n```\",\"lineRange\":[1,1]}""#
            ),
            "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y"
        );
        assert_eq!(
            ok(
                "apply_patch",
                r#""{\"summary\":\"update: /p (+1/-0)\",\"files\":[{\"uri\":\"file:///p\",\"diff\":\"+x\"},{\"diff\":\"-y\"}]}""#
            ),
            "+x\n-y"
        );
        assert_eq!(
            ok(
                "apply_patch",
                r#""{\"summary\":\"update: /p (+1/-0)\",\"files\":[]}""#
            ),
            "update: /p (+1/-0)"
        );
        assert_eq!(ok("glob", r#""[\"/a.py\",\"/b.py\"]""#), "/a.py\n/b.py");
        assert_eq!(ok("glob", r#""[]""#), "");
        assert_eq!(
            ok("Grep", r#""[\"No results found.\"]""#),
            "No results found."
        );
        // A sub-agent's answer is its own words, JSON or not.
        assert_eq!(ok("Task", r#""[\"a\",\"b\"]""#), r#"["a","b"]"#);
    }

    #[test]
    fn init_has_the_agent_mode() {
        let (evs, _) = run(
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"T-2","tools":["shell_command"],"mcp_servers":[],"agent_mode":"smart"}"#,
            None,
        );
        let s = kind(&evs, "session_start")[0];
        assert_eq!(s["producer"], "amp");
        assert_eq!(s["agent_mode"], "smart");
        assert_eq!(s["model"], J::Null);
    }
}
