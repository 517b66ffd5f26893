//! Unit tests of the `OpenCode` decoder: small hand-written lines for the
//! edge cases, and real lines of the recorded 1.18.33 streams.

use std::fmt::Write as _;

use super::super::{Decoded, Decoder};
use crate::event::{Event, EventKind, Producer};
use crate::input::Line;

/// One line per event: its kind and the fields that matter here.
fn describe(ev: &Event<'_>) -> String {
    let mut s = format!("{}:{}", ev.line, ev.kind.name());
    if let Some(p) = &ev.parent {
        let _ = write!(s, " parent={p}");
    }
    match &ev.kind {
        EventKind::SessionStart(st) => {
            let _ = write!(
                s,
                " session={} model={:?}",
                ev.session.as_deref().unwrap_or("-"),
                st.model.as_deref()
            );
        }
        EventKind::Text(t) => {
            let _ = write!(s, " {} {:?}", t.role.name(), t.text);
        }
        EventKind::Thinking(t) => {
            let _ = write!(s, " {:?} redacted={}", t.text, t.redacted);
        }
        EventKind::ToolCall(c) => {
            let _ = write!(s, " {} {} {:?}", c.id, c.name, c.key_arg.as_deref());
            for t in &c.todos {
                let _ = write!(s, " [{}:{}]", t.status, t.content);
            }
            for q in &c.questions {
                let _ = write!(s, " [?{} {:?}]", q.question, q.options);
            }
        }
        EventKind::ToolResult(r) => {
            let _ = write!(
                s,
                " {} error={} denied={} {:?}",
                r.id, r.is_error, r.denied, r.content
            );
        }
        EventKind::PermissionDenied(d) => {
            let _ = write!(
                s,
                " {:?} {:?} {:?}",
                d.id.as_deref(),
                d.tool.as_deref(),
                d.key_arg.as_deref()
            );
        }
        EventKind::Usage(u) => {
            let t = u.tokens;
            let _ = write!(
                s,
                " {:?} in={:?} out={:?} read={:?} write={:?}",
                u.message_id.as_deref(),
                t.input,
                t.output,
                t.cache_read,
                t.cache_creation
            );
        }
        EventKind::Notice(n) => {
            let _ = write!(s, " {} {} {:?}", n.subtype, n.level.name(), n.text);
        }
        EventKind::Result(r) => {
            let t = r.tokens;
            let _ = write!(
                s,
                " session={} error={} subtype={:?} turns={:?} ms={:?} cost={:?} in={:?} out={:?} read={:?} write={:?} stop={:?} status={:?} errors={:?} text={:?}",
                ev.session.as_deref().unwrap_or("-"),
                r.is_error,
                r.subtype.as_deref(),
                r.num_turns,
                r.duration_ms,
                r.cost_usd,
                t.input,
                t.output,
                t.cache_read,
                t.cache_creation,
                r.stop_reason.as_deref(),
                r.api_error_status,
                r.errors,
                r.text.as_deref(),
            );
            if let Some(x) = &r.terminal_reason {
                let _ = write!(s, " terminal={x}");
            }
        }
        EventKind::Unknown(u) => {
            let _ = write!(s, " {}", u.type_name);
        }
        EventKind::Delta(_) | EventKind::PlainText(_) => {}
    }
    s
}

/// Decode `input` as one `OpenCode` stream (detected, not forced), then end it.
fn run(input: &str) -> Vec<String> {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for (i, l) in input.lines().enumerate() {
        let line = Line {
            number: i as u64 + 1,
            bytes: l.as_bytes(),
            partial: false,
        };
        let got = dec
            .decode(&line, &mut |ev| {
                assert_eq!(ev.producer, Producer::OpenCode, "{l}");
                out.push(describe(ev));
                Ok(())
            })
            .unwrap();
        assert!(
            matches!(got, Decoded::Events | Decoded::Blank),
            "{l}: {got:?}"
        );
    }
    dec.finish(&mut |ev| {
        out.push(describe(ev));
        Ok(())
    })
    .unwrap();
    out
}

fn has(out: &[String], needle: &str) -> bool {
    out.iter().any(|l| l.contains(needle))
}

const START: &str = r#"{"type":"step_start","timestamp":1000,"sessionID":"ses_a","part":{"id":"prt_s1","messageID":"msg_1","sessionID":"ses_a","type":"step-start"}}"#;
const FINISH_STOP: &str = r#"{"type":"step_finish","timestamp":1500,"sessionID":"ses_a","part":{"id":"prt_f1","reason":"stop","messageID":"msg_1","sessionID":"ses_a","type":"step-finish","tokens":{"total":1040,"input":200,"output":32,"reasoning":8,"cache":{"write":5,"read":800}},"cost":0.25}}"#;

#[test]
fn text_session_gets_a_rebuilt_result() {
    let text = r#"{"type":"text","timestamp":1200,"sessionID":"ses_a","part":{"id":"prt_t1","messageID":"msg_1","sessionID":"ses_a","type":"text","text":"Hello","time":{"start":900,"end":1100}}}"#;
    let out = run(&[START, text, FINISH_STOP].join("\n"));
    assert_eq!(
        out,
        [
            "1:session_start session=ses_a model=None",
            "2:text assistant \"Hello\"",
            "3:usage Some(\"msg_1\") in=Some(200) out=Some(40) read=Some(800) write=Some(5)",
            "3:result session=ses_a error=false subtype=Some(\"end_of_input\") turns=Some(1) ms=Some(600) cost=Some(0.25) in=Some(200) out=Some(40) read=Some(800) write=Some(5) stop=Some(\"stop\") status=None errors=[] text=Some(\"Hello\")",
        ]
    );
}

#[test]
fn totals_are_summed_over_steps() {
    let finish_tools = FINISH_STOP
        .replace("prt_f1", "prt_f0")
        .replace("\"stop\"", "\"tool-calls\"");
    let start2 = START.replace("prt_s1", "prt_s2");
    let out = run(&[START, &finish_tools, &start2, FINISH_STOP].join("\n"));
    let result = out.last().unwrap();
    assert!(result.contains("turns=Some(2)"), "{result}");
    assert!(result.contains("cost=Some(0.5)"), "{result}");
    assert!(result.contains("in=Some(400) out=Some(80)"), "{result}");
    assert!(result.contains("stop=Some(\"stop\")"), "{result}");
}

#[test]
fn step_without_cost_or_tokens_reports_none() {
    let start =
        r#"{"type":"step_start","timestamp":1,"sessionID":"s","part":{"type":"step-start"}}"#;
    let finish = r#"{"type":"step_finish","timestamp":2,"sessionID":"s","part":{"type":"step-finish","reason":"stop"}}"#;
    let out = run(&[start, finish].join("\n"));
    let result = out.last().unwrap();
    assert!(result.contains("cost=None"), "{result}");
    assert!(
        result.contains("in=None out=None read=None write=None"),
        "{result}"
    );
    assert!(result.contains("text=None"), "{result}");
}

#[test]
fn cut_mid_step_gives_no_result() {
    let text = r#"{"type":"text","timestamp":1200,"sessionID":"ses_a","part":{"id":"prt_t1","messageID":"msg_1","sessionID":"ses_a","type":"text","text":"Hel","time":{"start":900,"end":1100}}}"#;
    let out = run(&[START, text].join("\n"));
    assert!(!has(&out, ":result"), "{out:#?}");
    // A finished step followed by a new one that never finished: still cut.
    let start2 = START.replace("prt_s1", "prt_s2");
    let out = run(&[START, FINISH_STOP, &start2].join("\n"));
    assert!(!has(&out, ":result"), "{out:#?}");
}

#[test]
fn cut_after_a_tool_calls_step_gives_no_result() {
    let finish_tools = FINISH_STOP.replace("\"stop\"", "\"tool-calls\"");
    let out = run(&[START, &finish_tools].join("\n"));
    assert!(!has(&out, ":result"), "{out:#?}");
}

#[test]
fn a_refused_permission_ends_the_run_after_tool_calls() {
    let denied = r#"{"type":"tool_use","timestamp":1300,"sessionID":"ses_a","part":{"type":"tool","tool":"bash","callID":"call_9","state":{"status":"error","input":{"command":"rm -rf /tmp/x"},"error":"The user rejected permission to use this specific tool call.","time":{"start":1,"end":2}},"id":"prt_x","sessionID":"ses_a","messageID":"msg_1"}}"#;
    let finish_tools = FINISH_STOP.replace("\"stop\"", "\"tool-calls\"");
    let out = run(&[START, denied, &finish_tools].join("\n"));
    assert!(has(&out, "2:tool_call call_9 bash Some(\"rm -rf /tmp/x\")"));
    assert!(has(&out, "2:tool_result call_9 error=true denied=true"));
    assert!(has(
        &out,
        "2:permission_denied Some(\"call_9\") Some(\"bash\") Some(\"rm -rf /tmp/x\")"
    ));
    let result = out.last().unwrap();
    assert!(result.contains(":result"), "{out:#?}");
    assert!(result.contains("error=false"), "{result}");
    assert!(result.contains("stop=Some(\"tool-calls\")"), "{result}");
}

#[test]
fn an_error_ends_an_open_step_and_fails_the_session() {
    let err = r#"{"type":"error","timestamp":1600,"sessionID":"ses_a","error":{"name":"APIError","data":{"message":"overloaded","statusCode":529,"isRetryable":true}}}"#;
    let out = run(&[START, err].join("\n"));
    assert!(has(
        &out,
        "2:notice APIError error \"APIError: overloaded (HTTP 529)\""
    ));
    let result = out.last().unwrap();
    assert!(result.contains("error=true"), "{result}");
    assert!(result.contains("status=Some(529)"), "{result}");
    assert!(
        result.contains("errors=[\"APIError: overloaded (HTTP 529)\"]"),
        "{result}"
    );
    assert!(result.contains("text=None"), "{result}");
}

#[test]
fn error_shapes_are_read_leniently() {
    for (error, text, subtype) in [
        (r#""plain words""#, "plain words", "error"),
        (r#"{"name":"UnknownError"}"#, "UnknownError", "UnknownError"),
        (
            r#"{"name":"ProviderAuthError","data":{"providerID":"x","message":"bad key"}}"#,
            "ProviderAuthError: bad key",
            "ProviderAuthError",
        ),
        (r#"{"message":"top level"}"#, "top level", "error"),
        ("42", "42", "error"),
    ] {
        let line = format!(r#"{{"type":"error","timestamp":1,"sessionID":"s","error":{error}}}"#);
        let out = run(&line);
        let want = format!("1:notice {subtype} error {text:?}");
        assert!(has(&out, &want), "{want}\n{out:#?}");
    }
    let out = run(r#"{"type":"error","timestamp":1,"sessionID":"s"}"#);
    assert!(has(&out, "1:notice error error \"error\""), "{out:#?}");
}

#[test]
fn shell_failure_is_an_error_with_its_exit_code() {
    // Real line (shell_fail.jsonl): the status says completed.
    let line = r#"{"type":"tool_use","timestamp":1795321402414,"sessionID":"ses_dfe817306ffe8Q5mBSfwgBmP69","part":{"type":"tool","tool":"bash","callID":"call_0013","state":{"status":"completed","input":{"command":"ls /definitely/not/here; echo to-stderr >&2; exit 3","description":"Failing command"},"output":"ls: cannot access '/definitely/not/here': No such file or directory\nto-stderr\n","metadata":{"output":"ls: cannot access '/definitely/not/here': No such file or directory\nto-stderr\n","exit":3,"truncated":false},"title":"ls /definitely/not/here; echo to-stderr >&2; exit 3","time":{"start":1795321402292,"end":1795321402389}},"id":"prt_2017e93a9001klduqt9ZfHCshL","sessionID":"ses_dfe817306ffe8Q5mBSfwgBmP69","messageID":"msg_2017e90530012zlHBghDz7Lysx"}}"#;
    let out = run(line);
    assert_eq!(
        out[1..3],
        [
            "1:tool_call call_0013 bash Some(\"ls /definitely/not/here; echo to-stderr >&2; exit 3\")",
            "1:tool_result call_0013 error=true denied=false \"exit code 3\\nls: cannot access '/definitely/not/here': No such file or directory\\nto-stderr\\n\"",
        ]
    );
    // exit 0, and an exit code without output.
    let ok = line.replace("\"exit\":3", "\"exit\":0");
    assert!(has(&run(&ok), "tool_result call_0013 error=false"));
    let silent = r#"{"type":"tool_use","timestamp":1,"sessionID":"s","part":{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"false"},"output":"","metadata":{"exit":1.0}}}}"#;
    assert!(has(
        &run(silent),
        "tool_result c error=true denied=false \"exit code 1\""
    ));
}

#[test]
fn tool_errors_and_invalid_tools_fail() {
    // Real lines (tool_error.jsonl).
    let missing = r#"{"type":"tool_use","timestamp":1795321409891,"sessionID":"ses_dfe8154d5ffesILDsHjHnhpdbV","part":{"type":"tool","tool":"read","callID":"call_0031","state":{"status":"error","input":{"filePath":"/home/dev/opencode/tool_error/ws/does_not_exist.txt"},"error":"File not found: /home/dev/opencode/tool_error/ws/does_not_exist.txt","time":{"start":1795321409804,"end":1795321409820}},"id":"prt_2017eb0f4001WgNH3FbhLyI1ph","sessionID":"ses_dfe8154d5ffesILDsHjHnhpdbV","messageID":"msg_2017eae280011bhXVRJV79UXGc"}}"#;
    let invalid = r#"{"type":"tool_use","timestamp":1795321409995,"sessionID":"ses_dfe8154d5ffesILDsHjHnhpdbV","part":{"type":"tool","tool":"invalid","callID":"call_0033","state":{"status":"completed","input":{"tool":"no_such_tool","error":"Model tried to call unavailable tool 'no_such_tool'."},"output":"The arguments provided to the tool are invalid: Model tried to call unavailable tool 'no_such_tool'.","metadata":{"truncated":false},"title":"Invalid Tool","time":{"start":1795321409988,"end":1795321409993}},"id":"prt_2017eb1bd0016HL5fQFSyHznL8","sessionID":"ses_dfe8154d5ffesILDsHjHnhpdbV","messageID":"msg_2017eb13c001Y3Gi5Ltxf6LsXz"}}"#;
    let out = run(&[missing, invalid].join("\n"));
    assert!(has(
        &out,
        "1:tool_call call_0031 read Some(\"/home/dev/opencode/tool_error/ws/does_not_exist.txt\")"
    ));
    assert!(has(
        &out,
        "1:tool_result call_0031 error=true denied=false \"File not found: "
    ));
    assert!(has(
        &out,
        "2:tool_call call_0033 invalid Some(\"no_such_tool\")"
    ));
    assert!(has(
        &out,
        "2:tool_result call_0033 error=true denied=false \"The arguments provided"
    ));
    // An error that is not a string is kept as JSON text.
    let odd = r#"{"type":"tool_use","timestamp":1,"sessionID":"s","part":{"type":"tool","tool":"read","callID":"c","state":{"status":"error","error":{"code":5}}}}"#;
    assert!(has(
        &run(odd),
        "tool_result c error=true denied=false \"{\\\"code\\\":5}\""
    ));
}

#[test]
fn each_call_and_result_once() {
    let done = r#"{"type":"tool_use","timestamp":1,"sessionID":"s","part":{"type":"tool","tool":"read","callID":"c1","id":"p1","state":{"status":"completed","input":{"filePath":"/a"},"output":"x"}}}"#;
    let running = r#"{"type":"tool_use","timestamp":1,"sessionID":"s","part":{"type":"tool","tool":"task","callID":"c2","id":"p2","state":{"status":"running","input":{"description":"look","subagent_type":"general"}}}}"#;
    let finished = running
        .replace("\"running\"", "\"completed\"")
        .replace("}}}}", "},\"output\":\"found it\"}}}");
    let out = run(&[done, done, running, &finished, &finished].join("\n"));
    let calls: Vec<_> = out.iter().filter(|l| l.contains(":tool_call")).collect();
    let results: Vec<_> = out.iter().filter(|l| l.contains(":tool_result")).collect();
    assert_eq!(
        calls,
        [
            "1:tool_call c1 read Some(\"/a\")",
            "3:tool_call c2 task Some(\"general: look\")"
        ]
    );
    assert_eq!(
        results,
        [
            "1:tool_result c1 error=false denied=false \"x\"",
            "4:tool_result c2 error=false denied=false \"found it\""
        ]
    );
}

#[test]
fn texts_and_reasoning_once_and_synthetic_as_user() {
    let text = r#"{"type":"text","timestamp":1,"sessionID":"s","part":{"id":"t1","messageID":"m","type":"text","text":"once"}}"#;
    let empty = r#"{"type":"text","timestamp":1,"sessionID":"s","part":{"id":"t2","type":"text","text":"  "}}"#;
    let synthetic = r#"{"type":"text","timestamp":1,"sessionID":"s","part":{"id":"t3","type":"text","synthetic":true,"metadata":{"compaction_continue":true},"text":"Continue if you have next steps"}}"#;
    let reasoning = r#"{"type":"reasoning","timestamp":1,"sessionID":"s","part":{"id":"r1","type":"reasoning","text":"hmm"}}"#;
    let hidden = r#"{"type":"reasoning","timestamp":1,"sessionID":"s","part":{"id":"r2","type":"reasoning","text":""}}"#;
    let out = run(&[text, text, empty, synthetic, reasoning, reasoning, hidden].join("\n"));
    assert_eq!(
        out[1..5],
        [
            "1:text assistant \"once\"",
            "4:text user \"Continue if you have next steps\"",
            "5:thinking \"hmm\" redacted=false",
            "7:thinking \"\" redacted=true",
        ]
    );
    // The result's text is the assistant's last, not the injected one.
    assert!(out.last().unwrap().contains("text=Some(\"once\")"));
}

#[test]
fn key_arguments_of_opencode_tools() {
    let call = |tool: &str, input: &str| {
        let line = format!(
            r#"{{"type":"tool_use","timestamp":1,"sessionID":"s","part":{{"type":"tool","tool":"{tool}","callID":"c","state":{{"status":"completed","input":{input},"output":""}}}}}}"#
        );
        run(&line)
            .into_iter()
            .find(|l| l.contains(":tool_call"))
            .unwrap()
    };
    for (tool, input, want) in [
        (
            "bash",
            r#"{"command":"ls","description":"d"}"#,
            "Some(\"ls\")",
        ),
        ("read", r#"{"filePath":"/a"}"#, "Some(\"/a\")"),
        (
            "write",
            r#"{"filePath":"/b","content":"x"}"#,
            "Some(\"/b\")",
        ),
        (
            "edit",
            r#"{"filePath":"/c","oldString":"a","newString":"b"}"#,
            "Some(\"/c\")",
        ),
        ("glob", r#"{"pattern":"**/*.rs"}"#, "Some(\"**/*.rs\")"),
        (
            "grep",
            r#"{"pattern":"fn","path":"/src","include":"*.rs"}"#,
            "Some(\"fn in /src (*.rs)\")",
        ),
        ("list", r#"{"path":"/d"}"#, "Some(\"/d\")"),
        (
            "webfetch",
            r#"{"url":"https://x.dev","format":"markdown"}"#,
            "Some(\"https://x.dev\")",
        ),
        ("websearch", r#"{"query":"rust"}"#, "Some(\"rust\")"),
        ("codesearch", r#"{"query":"serde"}"#, "Some(\"serde\")"),
        (
            "task",
            r#"{"description":"find","prompt":"p","subagent_type":"explore"}"#,
            "Some(\"explore: find\")",
        ),
        (
            "task",
            r#"{"description":"find","prompt":"p"}"#,
            "Some(\"find\")",
        ),
        ("skill", r#"{"name":"pdf"}"#, "Some(\"pdf\")"),
        (
            "apply_patch",
            r#"{"patchText":"*** Begin Patch\n*** Update File: a.rs\n@@\n*** Add File: b.rs\n*** End Patch"}"#,
            "Some(\"a.rs, b.rs\")",
        ),
        ("todoread", "{}", "None"),
        (
            "todowrite",
            r#"{"todos":[{"content":"x","status":"pending","priority":"low"}]}"#,
            "Some(\"1 item\") [pending:x]",
        ),
        (
            "question",
            r#"{"questions":[{"question":"Which?","header":"h","options":[{"label":"A","description":"a"},{"label":"B"}]}]}"#,
            "Some(\"Which?\") [?Which? [\"A\", \"B\"]]",
        ),
        (
            "invalid",
            r#"{"tool":"nope","error":"e"}"#,
            "Some(\"nope\")",
        ),
        (
            "github_create_issue",
            r#"{"title":"Bug","n":3}"#,
            "Some(\"Bug\")",
        ),
        ("mcp_thing", r#"{"n":3}"#, "Some(\"3\")"),
        ("mcp_thing", r#"{"o":{}}"#, "None"),
        ("bash", r#"{"command":""}"#, "None"),
    ] {
        let got = call(tool, input);
        assert!(
            got.ends_with(&format!("c {tool} {want}")),
            "{tool} {input}: {got}"
        );
    }
    // No input at all.
    let out = run(
        r#"{"type":"tool_use","timestamp":1,"sessionID":"s","part":{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","output":"x"}}}"#,
    );
    assert!(has(&out, "1:tool_call c bash None"), "{out:#?}");
}

#[test]
fn a_new_session_id_closes_the_previous_session() {
    let a_text = r#"{"type":"text","timestamp":1,"sessionID":"ses_a","part":{"id":"t1","type":"text","text":"first"}}"#;
    let b_start = r#"{"type":"step_start","timestamp":5,"sessionID":"ses_b","part":{"id":"s2","type":"step-start"}}"#;
    let b_finish = r#"{"type":"step_finish","timestamp":6,"sessionID":"ses_b","part":{"id":"f2","type":"step-finish","reason":"stop","cost":1}}"#;
    let out = run(&[START, a_text, FINISH_STOP, b_start, b_finish].join("\n"));
    let kinds: Vec<_> = out
        .iter()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            "1:session_start",
            "2:text",
            "3:usage",
            "3:result",
            "4:session_start",
            "5:usage",
            "5:result"
        ]
    );
    assert!(out[3].contains("session=ses_a") && out[3].contains("turns=Some(1)"));
    assert!(out[4].contains("session=ses_b"));
    assert!(out[6].contains("session=ses_b") && out[6].contains("turns=Some(1)"));
    assert!(out[6].contains("cost=Some(1.0)") && out[6].contains("text=None"));
}

#[test]
fn an_error_before_the_first_step_opens_the_session() {
    // error_400.jsonl: the overflow error, then the compaction steps.
    let err = r#"{"type":"error","timestamp":1,"sessionID":"ses_a","error":{"name":"ContextOverflowError","data":{"message":"too long"}}}"#;
    let out = run(&[err, START, FINISH_STOP].join("\n"));
    assert_eq!(out[0], "1:session_start session=ses_a model=None");
    assert_eq!(
        out[1],
        "1:notice ContextOverflowError error \"ContextOverflowError: too long\""
    );
    let result = out.last().unwrap();
    assert!(result.contains("error=true") && result.contains("status=None"));
    assert!(result.contains("turns=Some(1)"));
    // A single timestamp is no duration.
    let out = run(err);
    assert!(out.last().unwrap().contains("ms=None"));
    assert!(out.last().unwrap().contains("turns=Some(0)"));
}

#[test]
fn child_session_parts_are_nested() {
    let child = r#"{"type":"tool_use","timestamp":1,"sessionID":"ses_a","part":{"type":"tool","tool":"read","callID":"c7","sessionID":"ses_child","state":{"status":"completed","input":{"filePath":"/x"},"output":"y"}}}"#;
    let child_step = r#"{"type":"step_start","timestamp":1,"sessionID":"ses_a","part":{"id":"cs","sessionID":"ses_child","type":"step-start"}}"#;
    let out = run(&[START, child_step, child, FINISH_STOP].join("\n"));
    assert!(has(
        &out,
        "3:tool_call parent=ses_child c7 read Some(\"/x\")"
    ));
    assert!(has(&out, "3:tool_result parent=ses_child c7 error=false"));
    // The child's step is not a turn of the session, and does not leave it open.
    assert!(out.last().unwrap().contains("turns=Some(1)"), "{out:#?}");
}

#[test]
fn done_line_closes_the_session_with_its_rejections() {
    let done = r#"{"type":"done","timestamp":2000,"sessionID":"ses_a","reason":"idle","rejected":["bash","external_directory"]}"#;
    let out = run(&[START, FINISH_STOP, done].join("\n"));
    assert!(has(&out, "3:permission_denied None Some(\"bash\") None"));
    assert!(has(
        &out,
        "3:permission_denied None Some(\"external_directory\") None"
    ));
    let results: Vec<_> = out.iter().filter(|l| l.contains(":result")).collect();
    assert_eq!(results.len(), 1, "{out:#?}");
    assert!(results[0].contains("subtype=Some(\"done\")"));
    assert!(results[0].ends_with("terminal=idle"), "{}", results[0]);
}

#[test]
fn unknown_types_and_odd_lines_are_kept() {
    let odd = r#"{"type":"brand_new","timestamp":1,"sessionID":"s","x":1}"#;
    let no_part = r#"{"type":"tool_use","timestamp":1,"sessionID":"s"}"#;
    let text_no_part = r#"{"type":"text","timestamp":1,"sessionID":"s"}"#;
    let finish_no_part = r#"{"type":"step_finish","timestamp":1,"sessionID":"s","part":"x"}"#;
    let out = run(&[odd, no_part, text_no_part, finish_no_part].join("\n"));
    assert!(has(&out, "1:unknown brand_new"));
    assert!(has(&out, "2:unknown tool_use"));
    assert!(!has(&out, ":text"));
    assert!(has(&out, "4:usage None in=None out=None"), "{out:#?}");
}

#[test]
fn real_streams_decode_completely() {
    let mixed = include_str!("../../../tests/fixtures/opencode/mixed.jsonl");
    let out = run(mixed);
    assert!(!has(&out, ":unknown"));
    assert_eq!(out.iter().filter(|l| l.contains(":tool_call")).count(), 3);
    assert_eq!(out.iter().filter(|l| l.contains(":tool_result")).count(), 3);
    assert_eq!(
        out.iter()
            .filter(|l| l.contains(":tool_result") && l.contains("error=true"))
            .count(),
        1
    );
    assert!(has(&out, "2:thinking \"Plan: list, write, verify.\""));
    let result = out.last().unwrap();
    assert!(result.starts_with("14:result session=ses_dfe812ab0ffeysEkwNmy1n7upx error=false"));
    assert!(result.contains("turns=Some(4)"));
    assert!(result.contains("in=Some(1100) out=Some(190) read=Some(3200) write=Some(0)"));

    let err = include_str!("../../../tests/fixtures/opencode/error_500.jsonl");
    let out = run(err);
    assert_eq!(out.len(), 3, "{out:#?}");
    assert!(out[2].contains("error=true") && out[2].contains("status=Some(500)"));
}

#[test]
fn tool_kinds_of_names_not_in_the_captures() {
    use super::tool_kind;
    use crate::event::ToolKind;
    // An MCP tool is `<server>_<tool>`; the built-ins with an `_` are not.
    assert_eq!(tool_kind("github_create_issue"), ToolKind::Mcp);
    assert_eq!(tool_kind("apply_patch"), ToolKind::Edit);
    assert_eq!(tool_kind("lsp_hover"), ToolKind::Other);
    assert_eq!(tool_kind("webfetch"), ToolKind::Fetch);
    assert_eq!(tool_kind("task"), ToolKind::Agent);
    assert_eq!(tool_kind("question"), ToolKind::Other);
}

#[test]
fn a_task_answer_is_its_report_without_the_envelope() {
    let wrapped = "<task id=\"ses_1\" state=\"completed\">\n<task_result>\nAll done.\n</task_result>\n</task>";
    assert_eq!(super::task_report(wrapped), "All done.");
    // Not the envelope: as it is.
    for other in [
        "<task_result>x</task_result>",
        "<task id=1> no result",
        "plain",
    ] {
        assert_eq!(super::task_report(other), other);
    }
}
