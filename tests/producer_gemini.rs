//! Gemini CLI fixtures against independent counts from the raw files: every
//! `tool_use` is one `tool_call`, every `tool_result` one `tool_result` with
//! the same id, the assistant chunks are one `text`, the producer is
//! detected without `--from`, and the final `result` sets the exit status.
//! Also: the non-streaming `--output-format json` captures do not crash.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use serde_json::Value;
use streamview::diag::Diag;
use streamview::event::Producer;
use streamview::render::Jsonl;
use streamview::{ExitStatus, Runner};

const DIR: &str = "tests/fixtures/gemini";

fn fixtures(ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no *.{ext} fixtures in {DIR}");
    v
}

/// The fixture as JSONL events, with the exit status; `from` forces the producer.
fn normalize(path: &Path, from: Option<Producer>) -> (ExitStatus, Vec<Value>) {
    let input = std::fs::read(path).unwrap();
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), false);
    let mut runner = Runner::new(&mut sink, &mut diag, 64 << 20).with_producer(from);
    runner.source("fixture", &input[..]).unwrap();
    let (_, status) = runner.finish().unwrap();
    let out = String::from_utf8(sink.into_inner()).unwrap();
    let events = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (status, events)
}

/// The raw lines of a fixture.
fn raw(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn of_kind<'a>(evs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["kind"] == kind).collect()
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_tool_use_is_one_tool_call() {
    for path in fixtures("jsonl") {
        let lines = raw(&path);
        let (_, evs) = normalize(&path, None);
        let raw_ids: Vec<&str> = lines
            .iter()
            .filter(|l| l["type"] == "tool_use")
            .map(|l| l["tool_id"].as_str().unwrap())
            .collect();
        let call_ids: Vec<&str> = of_kind(&evs, "tool_call")
            .iter()
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        assert_eq!(call_ids, raw_ids, "{}", name(&path));
        for call in of_kind(&evs, "tool_call") {
            assert!(
                call["key_arg"].is_string() || call["name"] == "no_such_tool",
                "{}: tool call without key argument: {call}",
                name(&path)
            );
        }
    }
}

#[test]
fn every_tool_result_is_one_tool_result_with_its_status() {
    for path in fixtures("jsonl") {
        let lines = raw(&path);
        let (_, evs) = normalize(&path, None);
        let raw_results: Vec<(&str, bool)> = lines
            .iter()
            .filter(|l| l["type"] == "tool_result")
            .map(|l| (l["tool_id"].as_str().unwrap(), l["status"] == "error"))
            .collect();
        let results: Vec<(&str, bool)> = of_kind(&evs, "tool_result")
            .iter()
            .map(|e| (e["id"].as_str().unwrap(), e["is_error"].as_bool().unwrap()))
            .collect();
        assert_eq!(results, raw_results, "{}", name(&path));
        for r in of_kind(&evs, "tool_result") {
            assert!(
                r["name"].is_string(),
                "{}: unpaired result {r}",
                name(&path)
            );
            if r["is_error"] == true {
                assert_ne!(r["content"], "", "{}: silent failure {r}", name(&path));
            }
        }
    }
}

#[test]
fn assistant_chunks_become_one_text_per_answer() {
    for path in fixtures("jsonl") {
        let lines = raw(&path);
        let (_, evs) = normalize(&path, None);
        // Independent join: consecutive assistant chunks form one answer.
        let mut answers: Vec<String> = Vec::new();
        let mut open = false;
        for l in &lines {
            if l["type"] == "message" && l["role"] == "assistant" && l["delta"] == true {
                if !open {
                    answers.push(String::new());
                    open = true;
                }
                answers
                    .last_mut()
                    .unwrap()
                    .push_str(l["content"].as_str().unwrap());
            } else {
                open = false;
            }
        }
        let texts: Vec<&str> = of_kind(&evs, "text")
            .iter()
            .filter(|e| e["role"] == "assistant")
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        assert_eq!(texts, answers, "{}", name(&path));
        let chunks = lines
            .iter()
            .filter(|l| l["type"] == "message" && l["role"] == "assistant")
            .count();
        assert_eq!(of_kind(&evs, "delta").len(), chunks, "{}", name(&path));
    }
}

#[test]
fn fixtures_are_detected_without_from() {
    for path in fixtures("jsonl") {
        let (auto_status, auto) = normalize(&path, None);
        assert!(!auto.is_empty(), "{}", name(&path));
        for e in &auto {
            assert_eq!(e["producer"], "gemini", "{}: {e}", name(&path));
            assert!(
                e["session"].is_string(),
                "{}: no session on {e}",
                name(&path)
            );
            assert_ne!(e["kind"], "unknown", "{}: {e}", name(&path));
        }
        let (forced_status, forced) = normalize(&path, Some(Producer::Gemini));
        assert_eq!(auto, forced, "{}", name(&path));
        assert_eq!(auto_status, forced_status, "{}", name(&path));
    }
}

#[test]
fn the_result_decides_the_exit_status() {
    for path in fixtures("jsonl") {
        let lines = raw(&path);
        let (exit, evs) = normalize(&path, None);
        let last = lines.last().unwrap();
        assert_eq!(last["type"], "result", "{}", name(&path));
        let expected = if last["status"] == "success" {
            ExitStatus::Success
        } else {
            ExitStatus::SessionError
        };
        assert_eq!(exit, expected, "{}", name(&path));
        let results = of_kind(&evs, "result");
        assert_eq!(results.len(), 1, "{}", name(&path));
        let r = results[0];
        let stats = &last["stats"];
        assert_eq!(r["tokens"]["input"], stats["input"], "{}", name(&path));
        assert_eq!(
            r["tokens"]["output"],
            stats["output_tokens"],
            "{}",
            name(&path)
        );
        assert_eq!(
            r["tokens"]["cache_read"],
            stats["cached"],
            "{}",
            name(&path)
        );
        assert_eq!(r["cost_usd"], Value::Null, "{}", name(&path));
        assert_eq!(r["num_turns"], Value::Null, "{}", name(&path));
        if last["status"] == "success" {
            assert_eq!(r["duration_ms"], stats["duration_ms"], "{}", name(&path));
        } else {
            assert_eq!(r["text"], last["error"]["message"], "{}", name(&path));
            assert!(r["duration_ms"].as_u64().unwrap() > 0, "{}", name(&path));
        }
    }
}

#[test]
fn warnings_stay_visible() {
    let (_, evs) = normalize(&Path::new(DIR).join("loop.jsonl"), None);
    let notices = of_kind(&evs, "notice");
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0]["level"], "warning");
    assert_eq!(notices[0]["text"], "Loop detected, stopping execution");
}

/// `--output-format json` prints one pretty-printed object (or nothing, on
/// a fatal error): not a stream. streamview shows its lines as text and
/// reports that no result came; it must not crash or invent events.
#[test]
fn json_format_captures_do_not_crash() {
    for path in fixtures("json") {
        for from in [None, Some(Producer::Gemini)] {
            let (status, evs) = normalize(&path, from);
            assert_eq!(status, ExitStatus::Incomplete, "{}", name(&path));
            for e in &evs {
                assert_eq!(e["kind"], "plain_text", "{}: {e}", name(&path));
            }
        }
    }
}

/// Gemini CLI decoding, through the whole pipeline to JSONL and the
/// session's outcome.
///
/// The decoder's lines through the whole pipeline in process, read back
/// as JSONL (moved from `src/decode/gemini/tests.rs`, issue 52: a
/// floor's own tests use only the floors below it).
mod in_process {

    use serde_json::{Value as Json, json};

    use streamview::render::jsonl::write_event;
    use streamview::run::Feeder;
    use streamview::session::Outcome;

    const TS: &str = r#""timestamp":"2026-11-22T03:55:27.879Z""#;

    /// Feed `lines` (joined with newlines) and return every event as its JSONL
    /// object, plus the outcome of the last session.
    fn run(lines: &[&str]) -> (Vec<Json>, Option<Outcome>) {
        let mut input = lines.join("\n");
        input.push('\n');
        let mut out = Vec::new();
        let mut on_event = |ev: &streamview::event::Event<'_>, s: &streamview::session::Session| {
            let mut b = Vec::new();
            write_event(&mut b, ev, s);
            out.push(serde_json::from_slice::<Json>(&b).unwrap());
        };
        let mut feeder = Feeder::new();
        feeder.feed(input.as_bytes(), &mut on_event);
        let session = feeder.finish(&mut on_event);
        let outcome = session.current().and_then(|c| c.outcome);
        (out, outcome)
    }

    fn init() -> String {
        format!(r#"{{"type":"init",{TS},"session_id":"s-1","model":"gemini-2.5-pro"}}"#)
    }

    fn line(body: &str) -> String {
        format!(r"{{{body},{TS}}}")
    }

    fn kinds(evs: &[Json]) -> Vec<&str> {
        evs.iter().map(|e| e["kind"].as_str().unwrap()).collect()
    }

    fn of_kind<'a>(evs: &'a [Json], kind: &str) -> Vec<&'a Json> {
        evs.iter().filter(|e| e["kind"] == kind).collect()
    }

    #[test]
    fn init_gives_session_start_and_every_event_its_session() {
        let (evs, _) = run(&[
            &init(),
            &line(r#""type":"message","role":"user","content":"hi""#),
            &line(r#""type":"error","severity":"warning","message":"careful""#),
        ]);
        assert_eq!(kinds(&evs), ["session_start", "text", "notice"]);
        assert_eq!(evs[0]["producer"], "gemini");
        assert_eq!(evs[0]["model"], "gemini-2.5-pro");
        assert_eq!(evs[0]["cwd"], Json::Null);
        assert_eq!(evs[0]["tools"], json!([]));
        for e in &evs {
            assert_eq!(e["session"], "s-1", "{e}");
            assert_eq!(e["parent"], Json::Null);
        }
        assert_eq!(evs[1]["role"], "user");
        assert_eq!(evs[1]["text"], "hi");
        assert_eq!(evs[1]["line"], 2);
    }

    #[test]
    fn assistant_chunks_are_joined_into_one_text() {
        let (evs, _) = run(&[
            &init(),
            &line(r#""type":"message","role":"assistant","content":"Hel","delta":true"#),
            &line(r#""type":"message","role":"assistant","content":"lo\n","delta":true"#),
            &line(r#""type":"message","role":"assistant","content":"world","delta":true"#),
            &line(
                r#""type":"tool_use","tool_name":"glob","tool_id":"g1","parameters":{"pattern":"*"}"#,
            ),
        ]);
        assert_eq!(
            kinds(&evs),
            [
                "session_start",
                "delta",
                "delta",
                "delta",
                "text",
                "tool_call"
            ]
        );
        let texts = of_kind(&evs, "text");
        assert_eq!(texts.len(), 1);
        assert_eq!(texts[0]["text"], "Hello\nworld");
        assert_eq!(texts[0]["role"], "assistant");
        assert_eq!(texts[0]["line"], 2, "the line where the answer starts");
        assert_eq!(texts[0]["session"], "s-1");
        let deltas = of_kind(&evs, "delta");
        assert_eq!(deltas[0]["delta_kind"], "text");
        assert_eq!(deltas[1]["text"], "lo\n");
        assert_eq!(deltas[2]["line"], 4);
    }

    #[test]
    fn text_is_flushed_before_the_result_and_at_end_of_input() {
        let (evs, outcome) = run(&[
            &init(),
            &line(r#""type":"message","role":"assistant","content":"a","delta":true"#),
            &line(r#""type":"result","status":"success","stats":{"input_tokens":5}"#),
        ]);
        assert_eq!(kinds(&evs), ["session_start", "delta", "text", "result"]);
        assert_eq!(outcome, Some(Outcome::Success));

        // Cut off mid-answer: the text still comes out once, the session is incomplete.
        let (evs, outcome) = run(&[
            &init(),
            &line(r#""type":"message","role":"assistant","content":"a","delta":true"#),
            &line(r#""type":"message","role":"assistant","content":"b","delta":true"#),
        ]);
        assert_eq!(kinds(&evs), ["session_start", "delta", "delta", "text"]);
        assert_eq!(of_kind(&evs, "text")[0]["text"], "ab");
        assert_eq!(outcome, Some(Outcome::Incomplete));
    }

    #[test]
    fn a_user_message_or_a_complete_message_ends_the_chunks() {
        let (evs, _) = run(&[
            &init(),
            &line(r#""type":"message","role":"assistant","content":"one","delta":true"#),
            &line(r#""type":"message","role":"assistant","content":"two""#),
            &line(r#""type":"message","role":"assistant","content":"three","delta":true"#),
            &line(r#""type":"message","role":"user","content":"four""#),
        ]);
        let texts: Vec<_> = of_kind(&evs, "text")
            .iter()
            .map(|t| (t["role"].as_str().unwrap(), t["text"].as_str().unwrap()))
            .collect();
        assert_eq!(
            texts,
            [
                ("assistant", "one"),
                ("assistant", "two"),
                ("assistant", "three"),
                ("user", "four")
            ]
        );
    }

    #[test]
    fn empty_chunks_give_no_text() {
        let (evs, _) = run(&[
            &init(),
            &line(r#""type":"message","role":"assistant","content":"","delta":true"#),
            &line(r#""type":"result","status":"success""#),
        ]);
        assert_eq!(kinds(&evs), ["session_start", "delta", "result"]);
    }

    #[test]
    fn tool_call_and_result_pair_by_id() {
        let (evs, _) = run(&[
            &init(),
            &line(
                r#""type":"tool_use","tool_name":"run_shell_command","tool_id":"sh_1","parameters":{"command":"echo hi","description":"d"}"#,
            ),
            &line(r#""type":"tool_result","tool_id":"sh_1","status":"success","output":"hi""#),
        ]);
        let call = of_kind(&evs, "tool_call")[0];
        assert_eq!(call["id"], "sh_1");
        assert_eq!(call["name"], "run_shell_command");
        assert_eq!(call["key_arg"], "echo hi");
        assert_eq!(call["input"]["description"], "d");
        assert_eq!(call["message_id"], Json::Null);
        let res = of_kind(&evs, "tool_result")[0];
        assert_eq!(res["id"], "sh_1");
        assert_eq!(res["name"], "run_shell_command");
        assert_eq!(res["is_error"], false);
        assert_eq!(res["content"], "hi");
    }

    #[test]
    fn tool_errors_show_the_error_message() {
        let (evs, _) = run(&[
            &init(),
            &line(
                r#""type":"tool_use","tool_name":"read_file","tool_id":"r1","parameters":{"file_path":"/x"}"#,
            ),
            &line(
                r#""type":"tool_result","tool_id":"r1","status":"error","output":"File not found.","error":{"type":"file_not_found","message":"File not found: /x"}"#,
            ),
            &line(r#""type":"tool_use","tool_name":"read_file","tool_id":"r2","parameters":{}"#),
            &line(r#""type":"tool_result","tool_id":"r2","status":"error","output":"Bad.""#),
            &line(r#""type":"tool_use","tool_name":"read_file","tool_id":"r3","parameters":{}"#),
            &line(r#""type":"tool_result","tool_id":"r3","status":"error""#),
        ]);
        let res = of_kind(&evs, "tool_result");
        assert!(
            res.iter()
                .all(|r| r["is_error"] == true && r["denied"] == false)
        );
        assert_eq!(res[0]["content"], "File not found: /x");
        assert_eq!(res[1]["content"], "Bad.");
        assert_eq!(res[2]["content"], "");
    }

    #[test]
    fn policy_denial_is_a_denied_result_and_a_permission_denied() {
        let (evs, _) = run(&[
            &init(),
            &line(
                r#""type":"tool_use","tool_name":"run_shell_command","tool_id":"sh","parameters":{"command":"rm -rf /"}"#,
            ),
            &line(
                r#""type":"tool_result","tool_id":"sh","status":"error","error":{"type":"policy_violation","message":"Tool execution denied by policy."}"#,
            ),
        ]);
        assert_eq!(
            kinds(&evs),
            [
                "session_start",
                "tool_call",
                "tool_result",
                "permission_denied"
            ]
        );
        let r = &evs[2];
        assert_eq!(
            (r["is_error"].as_bool(), r["denied"].as_bool()),
            (Some(true), Some(true))
        );
        let d = &evs[3];
        assert_eq!(d["id"], "sh");
        assert_eq!(d["tool"], "run_shell_command");
        assert_eq!(d["key_arg"], "rm -rf /");
        assert_eq!(d["message"], "Tool execution denied by policy.");
    }

    #[test]
    fn silent_failing_shell_commands_are_errors() {
        let shell = |id: &str| {
            line(&format!(
                r#""type":"tool_use","tool_name":"run_shell_command","tool_id":"{id}","parameters":{{"command":"false"}}"#
            ))
        };
        let result = |id: &str, out: &str| {
            line(&format!(
                r#""type":"tool_result","tool_id":"{id}","status":"success","output":"{out}""#
            ))
        };
        let (evs, _) = run(&[
            &init(),
            &shell("a"),
            &result("a", "Command exited with code: 1"),
            &shell("b"),
            &result("b", "Command terminated by signal: SIGKILL"),
            &shell("c"),
            &result("c", "ls: nope"),
            // The same text from another tool is just output.
            &line(r#""type":"tool_use","tool_name":"read_file","tool_id":"d","parameters":{}"#),
            &result("d", "Command exited with code: 1"),
        ]);
        let errs: Vec<bool> = of_kind(&evs, "tool_result")
            .iter()
            .map(|r| r["is_error"].as_bool().unwrap())
            .collect();
        assert_eq!(errs, [true, true, false, false]);
        assert_eq!(
            of_kind(&evs, "tool_result")[0]["content"],
            "Command exited with code: 1"
        );
    }

    #[test]
    fn key_args_of_gemini_tools() {
        let key = |name: &str, params: &str| -> Json {
            let (evs, _) = run(&[&line(&format!(
                r#""type":"tool_use","tool_name":"{name}","tool_id":"t","parameters":{params}"#
            ))]);
            of_kind(&evs, "tool_call")[0]["key_arg"].clone()
        };
        assert_eq!(key("read_file", r#"{"file_path":"/a"}"#), "/a");
        assert_eq!(key("read_file", r#"{"absolute_path":"/old"}"#), "/old");
        assert_eq!(
            key("write_file", r#"{"file_path":"/w","content":"x"}"#),
            "/w"
        );
        assert_eq!(
            key("replace", r#"{"file_path":"/r","old_string":"a"}"#),
            "/r"
        );
        assert_eq!(key("run_shell_command", r#"{"command":"ls -l"}"#), "ls -l");
        assert_eq!(key("glob", r#"{"pattern":"**/*.rs"}"#), "**/*.rs");
        assert_eq!(
            key(
                "grep_search",
                r#"{"pattern":"TODO","dir_path":"src","include_pattern":"*.rs"}"#
            ),
            "TODO in src (*.rs)"
        );
        assert_eq!(
            key(
                "search_file_content",
                r#"{"pattern":"x","path":"lib","include":"*.c"}"#
            ),
            "x in lib (*.c)"
        );
        assert_eq!(key("list_directory", r#"{"dir_path":"/d"}"#), "/d");
        assert_eq!(key("list_directory", r#"{"path":"/old"}"#), "/old");
        assert_eq!(
            key("read_many_files", r#"{"include":["a.rs","b/*.md"]}"#),
            "a.rs b/*.md"
        );
        assert_eq!(key("read_many_files", r#"{"paths":["p"]}"#), "p");
        assert_eq!(
            key("web_fetch", r#"{"prompt":"summarize https://x.y"}"#),
            "summarize https://x.y"
        );
        assert_eq!(
            key("web_fetch", r#"{"url":"https://x.y","prompt":"p"}"#),
            "https://x.y"
        );
        assert_eq!(key("google_web_search", r#"{"query":"rust"}"#), "rust");
        assert_eq!(key("write_todos", r#"{"todos":[{}]}"#), "1 item");
        assert_eq!(key("save_memory", r#"{"fact":"f"}"#), "f");
        assert_eq!(key("activate_skill", r#"{"name":"pdf"}"#), "pdf");
        assert_eq!(
            key(
                "invoke_agent",
                r#"{"agent_name":"codebase_investigator","prompt":"\nFind X.\nMore."}"#
            ),
            "codebase_investigator: Find X."
        );
        assert_eq!(
            key(
                "tracker_update_task",
                r#"{"id":"ab12cd","status":"closed"}"#
            ),
            "#ab12cd → closed"
        );
        assert_eq!(
            key("mcp_mockecho_echo", r#"{"n":null,"text":"hello"}"#),
            "hello"
        );
        assert_eq!(key("server__tool", r#"{"count":3}"#), "3");
        assert_eq!(key("no_such_tool", r#"{"x":1}"#), Json::Null);
        assert_eq!(key("read_file", "{}"), Json::Null);
    }

    #[test]
    fn todos_and_questions_are_read() {
        let (evs, _) = run(&[
            &line(
                r#""type":"tool_use","tool_name":"write_todos","tool_id":"t","parameters":{"todos":[{"description":"a","status":"completed"},{"description":"b"}]}"#,
            ),
            &line(
                r#""type":"tool_use","tool_name":"ask_user","tool_id":"q","parameters":{"questions":[{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}]}"#,
            ),
        ]);
        let calls = of_kind(&evs, "tool_call");
        assert_eq!(
            calls[0]["todos"],
            json!([{"content":"a","status":"completed"},{"content":"b","status":"pending"}])
        );
        assert_eq!(calls[1]["key_arg"], "Which?");
        assert_eq!(
            calls[1]["questions"],
            json!([{"question":"Which?","options":["A","B"]}])
        );
    }

    #[test]
    fn error_events_are_notices_by_severity() {
        let (evs, _) = run(&[
            &init(),
            &line(
                r#""type":"error","severity":"warning","message":"Loop detected, stopping execution""#,
            ),
            &line(
                r#""type":"error","severity":"error","message":"Maximum session turns exceeded""#,
            ),
            &line(r#""type":"error","message":"""#),
        ]);
        let n = of_kind(&evs, "notice");
        assert_eq!(n[0]["level"], "warning");
        assert_eq!(n[0]["subtype"], "error");
        assert_eq!(n[0]["text"], "Loop detected, stopping execution");
        assert_eq!(n[0]["raw"]["severity"], "warning");
        assert_eq!(n[1]["level"], "error");
        assert_eq!(n[2]["level"], "error");
        assert_eq!(n[2]["text"], "error");
    }

    #[test]
    fn success_result_has_real_totals() {
        let (evs, outcome) = run(&[
            &init(),
            r#"{"type":"result","timestamp":"2026-11-22T03:55:35.469Z","status":"success","stats":{"total_tokens":7364,"input_tokens":7140,"output_tokens":189,"cached":40,"input":7100,"duration_ms":389,"tool_calls":6,"models":{"gemini-2.5-pro":{"total_tokens":7364,"input_tokens":7140,"output_tokens":189,"cached":40,"input":7100}}}}"#,
        ]);
        assert_eq!(outcome, Some(Outcome::Success));
        let r = of_kind(&evs, "result")[0];
        assert_eq!(r["is_error"], false);
        assert_eq!(r["subtype"], "success");
        assert_eq!(r["text"], Json::Null);
        assert_eq!(r["duration_ms"], 389);
        assert_eq!(r["num_turns"], Json::Null);
        assert_eq!(r["cost_usd"], Json::Null);
        assert_eq!(r["api_error_status"], Json::Null);
        let tokens = json!({"input":7100,"output":189,"cache_read":40,"cache_creation":null});
        assert_eq!(r["tokens"], tokens);
        assert_eq!(
            r["model_usage"],
            json!([{"model":"gemini-2.5-pro","tokens":tokens,"cost_usd":null}])
        );
    }

    #[test]
    fn older_stats_without_the_input_breakdown() {
        let (evs, _) = run(&[&line(
            r#""type":"result","status":"success","stats":{"input_tokens":100,"output_tokens":5,"cached":30}"#,
        )]);
        let t = &of_kind(&evs, "result")[0]["tokens"];
        assert_eq!(t["input"], 70);
        assert_eq!(t["cache_read"], 30);
        let (evs, _) = run(&[&line(
            r#""type":"result","status":"success","stats":{"input_tokens":100}"#,
        )]);
        let t = &of_kind(&evs, "result")[0]["tokens"];
        assert_eq!(t["input"], 100);
        assert_eq!(t["cache_read"], Json::Null);
        assert_eq!(t["output"], Json::Null);
    }

    #[test]
    fn api_error_result() {
        let (evs, outcome) = run(&[
            r#"{"type":"init","timestamp":"2026-11-22T03:55:54.001Z","session_id":"x","model":"m"}"#,
            r#"{"type":"result","timestamp":"2026-11-22T03:55:57.645Z","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":500,\"message\":\"mock internal error\",\"status\":\"INTERNAL\"}}]"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":0,"tool_calls":0}}"#,
        ]);
        assert_eq!(outcome, Some(Outcome::Error));
        let r = of_kind(&evs, "result")[0];
        assert_eq!(r["is_error"], true);
        assert_eq!(r["subtype"], "unknown");
        assert_eq!(r["api_error_status"], 500);
        assert!(r["text"].as_str().unwrap().starts_with("[API Error: "));
        // The CLI writes 0 on this path: the time since init is used.
        assert_eq!(r["duration_ms"], 3644);
        assert_eq!(r["tokens"]["input"], 0, "a reported zero stays zero");
    }

    #[test]
    fn error_result_without_error_object_or_init() {
        let (evs, outcome) = run(&[&line(
            r#""type":"result","status":"error","stats":{"duration_ms":0}"#,
        )]);
        assert_eq!(outcome, Some(Outcome::Error));
        let r = of_kind(&evs, "result")[0];
        assert_eq!(r["subtype"], "error");
        assert_eq!(r["text"], Json::Null);
        assert_eq!(r["duration_ms"], Json::Null, "no init to measure from");
        assert_eq!(r["tokens"]["input"], Json::Null);
    }

    #[test]
    fn max_turns_result_keeps_its_error_type() {
        let (evs, _) = run(&[&line(
            r#""type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns"}"#,
        )]);
        let r = of_kind(&evs, "result")[0];
        assert_eq!(r["subtype"], "FatalTurnLimitedError");
        assert_eq!(r["text"], "Reached max session turns");
        assert_eq!(r["api_error_status"], Json::Null);
    }

    #[test]
    fn several_sessions_in_one_input() {
        let second = init().replace("s-1", "s-2");
        let (evs, _) = run(&[
            &init(),
            &line(r#""type":"message","role":"assistant","content":"first","delta":true"#),
            &line(r#""type":"result","status":"success""#),
            &second,
            &line(r#""type":"message","role":"assistant","content":"second","delta":true"#),
            &line(r#""type":"result","status":"success""#),
        ]);
        let texts: Vec<_> = of_kind(&evs, "text")
            .iter()
            .map(|t| (t["session"].as_str().unwrap(), t["text"].as_str().unwrap()))
            .collect();
        assert_eq!(texts, [("s-1", "first"), ("s-2", "second")]);
    }

    #[test]
    fn lenient_with_missing_and_wrong_fields() {
        let (evs, outcome) = run(&[
            &line(r#""type":"init""#),
            &line(r#""type":"message""#),
            &line(r#""type":"message","role":"system","content":"?""#),
            &line(r#""type":"message","role":"assistant","content":5,"delta":true"#),
            &line(r#""type":"tool_use""#),
            &line(r#""type":"tool_use","tool_name":7,"parameters":[1]"#),
            &line(r#""type":"tool_result""#),
            &line(r#""type":"tool_result","status":"error","error":"flat""#),
            &line(r#""type":"error","severity":3"#),
            &line(r#""type":"result","stats":"none""#),
            &line(
                r#""type":"result","status":"success","stats":{"input_tokens":-1,"duration_ms":1.5}"#,
            ),
            &line(r#""type":"brand_new","x":1"#),
        ]);
        assert_eq!(
            kinds(&evs),
            [
                "session_start",
                "unknown",
                "unknown",
                "delta",
                "tool_call",
                "tool_call",
                "tool_result",
                "tool_result",
                "notice",
                "result",
                "result",
                "unknown"
            ]
        );
        assert_eq!(evs[11]["event_type"], "brand_new");
        assert_eq!(evs[11]["raw"]["x"], 1);
        assert_eq!(evs[5]["input"], json!([1]));
        assert_eq!(evs[7]["is_error"], true);
        assert_eq!(evs[10]["tokens"]["input"], Json::Null);
        assert_eq!(evs[10]["duration_ms"], Json::Null);
        assert_eq!(
            outcome,
            Some(Outcome::Success),
            "an unknown line is no work"
        );
    }

    #[test]
    fn real_lines_from_the_corpus() {
        let (evs, outcome) = run(&[
            r#"{"type":"init","timestamp":"2026-11-22T04:18:27.934Z","session_id":"4f93ab05-8153-4f41-8513-b9c24cb2f11e","model":"gemini-2.5-pro"}"#,
            r#"{"type":"message","timestamp":"2026-11-22T04:18:27.935Z","role":"user","content":"[scenario:mcp] [ws:/home/dev/gemini/mcp/ws] Please run the 'mcp' scenario."}"#,
            r#"{"type":"tool_use","timestamp":"2026-11-22T04:18:28.066Z","tool_name":"mcp_mockecho_explode","tool_id":"mcp_mockecho_explode__mcp_mockecho_explode_1795321108064_0","parameters":{"reason":"scripted failure"}}"#,
            r#"{"type":"tool_result","timestamp":"2026-11-22T04:18:28.078Z","tool_id":"mcp_mockecho_explode__mcp_mockecho_explode_1795321108064_0","status":"error","output":"Error: MCP tool 'explode' reported an error.","error":{"type":"mcp_tool_error","message":"MCP tool 'explode' reported tool error for function call: {\"name\":\"explode\",\"args\":{\"reason\":\"scripted failure\"}} with response: [{\"functionResponse\":{\"name\":\"explode\",\"response\":{\"content\":[{\"type\":\"text\",\"text\":\"boom: scripted failure\"}],\"isError\":true}}}]"}}"#,
            r#"{"type":"message","timestamp":"2026-11-22T04:18:28.089Z","role":"assistant","content":"Called the MCP echo too","delta":true}"#,
            r#"{"type":"message","timestamp":"2026-11-22T04:18:28.099Z","role":"assistant","content":"l, then the failing one.","delta":true}"#,
            r#"{"type":"result","timestamp":"2026-11-22T04:18:28.110Z","status":"success","stats":{"total_tokens":2916,"input_tokens":2820,"output_tokens":81,"cached":0,"input":2820,"duration_ms":177,"tool_calls":2,"models":{"gemini-2.5-pro":{"total_tokens":2916,"input_tokens":2820,"output_tokens":81,"cached":0,"input":2820}}}}"#,
        ]);
        assert_eq!(
            kinds(&evs),
            [
                "session_start",
                "text",
                "tool_call",
                "tool_result",
                "delta",
                "delta",
                "text",
                "result"
            ]
        );
        assert_eq!(evs[2]["key_arg"], "scripted failure");
        assert_eq!(evs[3]["is_error"], true);
        assert!(
            evs[3]["content"]
                .as_str()
                .unwrap()
                .contains("boom: scripted failure")
        );
        assert_eq!(
            evs[6]["text"],
            "Called the MCP echo tool, then the failing one."
        );
        assert_eq!(evs[7]["duration_ms"], 177);
        assert_eq!(outcome, Some(Outcome::Success));
    }
}
