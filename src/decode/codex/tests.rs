use super::*;

use crate::decode::{Decoded, Decoder};
use crate::input::Line;

/// One event as a short line of text: what the tests compare.
fn show(ev: &Event<'_>) -> String {
    let s = ev.session.as_deref().unwrap_or("-");
    let body = match &ev.kind {
        EventKind::SessionStart(st) => format!("start model={:?}", st.model),
        EventKind::Text(t) => format!("text {:?} {}", t.role, t.text),
        EventKind::Thinking(t) => format!("thinking redacted={} {}", t.redacted, t.text),
        EventKind::ToolCall(c) => {
            let mut out = format!(
                "call {} {} key={} input={}",
                c.id,
                c.name,
                c.key_arg.as_deref().unwrap_or("<none>"),
                c.input
            );
            for t in &c.todos {
                out.push_str(&format!(" [{}:{}]", t.status, t.content));
            }
            for q in &c.questions {
                out.push_str(&format!(" [?{} {}]", q.question, q.options.join("/")));
            }
            out
        }
        EventKind::ToolResult(r) => format!(
            "result {} error={} denied={} {:?}",
            r.id, r.is_error, r.denied, r.content
        ),
        EventKind::PermissionDenied(d) => format!(
            "denied {} {}",
            d.id.as_deref().unwrap_or("-"),
            d.message.as_deref().unwrap_or("-")
        ),
        EventKind::Usage(u) => format!("usage {:?}", u.tokens),
        EventKind::Notice(n) => format!("notice {} {} {}", n.subtype, n.level.name(), n.text),
        EventKind::Result(r) => format!(
            "end error={} text={:?} tokens={:?}/{:?}/{:?}/{:?} turns={:?} cost={:?}",
            r.is_error,
            r.text,
            r.tokens.input,
            r.tokens.output,
            r.tokens.cache_read,
            r.tokens.cache_creation,
            r.num_turns,
            r.cost_usd
        ),
        EventKind::Delta(d) => format!("delta {} {}", d.kind.name(), d.text),
        EventKind::PlainText(t) => format!("plain {t}"),
        EventKind::Unknown(u) => format!("unknown {}", u.type_name),
    };
    assert_eq!(ev.producer, Producer::Codex, "{body}");
    assert!(ev.parent.is_none());
    format!("{}@{s}: {body}", ev.line)
}

/// Decode `lines` (auto-detected) plus the end of input; every line must
/// give events.
fn run(lines: &[&str]) -> Vec<String> {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let line = Line {
            number: i as u64 + 1,
            bytes: l.as_bytes(),
            partial: false,
        };
        let d = dec
            .decode(&line, &mut |ev: &Event<'_>| {
                out.push(show(ev));
                Ok(())
            })
            .unwrap();
        assert_eq!(d, Decoded::Events, "{l}");
    }
    assert_eq!(dec.producer(), Some(Producer::Codex));
    dec.finish(&mut |ev: &Event<'_>| {
        out.push(show(ev));
        Ok(())
    })
    .unwrap();
    out
}

const START: &str = r#"{"type":"thread.started","thread_id":"th1"}"#;

/// `START` then `lines`; returns the events after the session start.
fn after_start(lines: &[&str]) -> Vec<String> {
    let mut all = vec![START];
    all.extend_from_slice(lines);
    let mut out = run(&all);
    assert_eq!(out.remove(0), "1@th1: start model=None");
    out
}

#[test]
fn shell_wrapper_is_removed() {
    let cases = [
        ("/bin/bash -lc 'ls -la'", "ls -la"),
        ("/bin/bash -lc pwd", "pwd"),
        ("bash -c 'echo hi'", "echo hi"),
        ("/bin/zsh -lc 'a && b'", "a && b"),
        (
            r#"/bin/bash -lc "echo hello && printf 'a\\nb\\n' | wc -l""#,
            r"echo hello && printf 'a\nb\n' | wc -l",
        ),
        (r#"/bin/bash -lc "say \"hi\" \$HOME""#, r#"say "hi" $HOME"#),
        (r"/bin/bash -lc 'it'\''s'", "it's"),
        (r"/bin/bash -lc a\ b", "a b"),
        // Not one word, not a shell, no -c: unchanged.
        ("/bin/bash -lc 'a' 'b'", "/bin/bash -lc 'a' 'b'"),
        ("/bin/bash -lc 'unterminated", "/bin/bash -lc 'unterminated"),
        ("python3 -c 'print(1)'", "python3 -c 'print(1)'"),
        ("/bin/bash script.sh", "/bin/bash script.sh"),
        ("ls", "ls"),
        ("", ""),
    ];
    let arena = crate::decode::Arena::default();
    for (wrapped, inner) in cases {
        assert_eq!(shell_inner(wrapped, &arena), inner, "{wrapped}");
    }
}

#[test]
fn session_id_is_stamped_on_every_event() {
    let out = run(&[
        r#"{"type":"thread.started","thread_id":"a"}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}"#,
        r#"{"type":"thread.started","thread_id":"b"}"#,
        r#"{"type":"turn.started"}"#,
    ]);
    assert_eq!(
        out,
        [
            "1@a: start model=None",
            "2@a: notice turn.started debug turn started",
            "3@a: text Assistant hi",
            "4@a: end error=false text=Some(\"hi\") tokens=Some(6)/Some(2)/Some(4)/None turns=None cost=None",
            "5@b: start model=None",
            "6@b: notice turn.started debug turn started",
        ]
    );
}

#[test]
fn real_commands_one_call_one_result() {
    // shell_fail.jsonl
    let out = after_start(&[
        r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'ls /definitely/not/here; echo to-stderr >&2; exit 3'","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'ls /definitely/not/here; echo to-stderr >&2; exit 3'","aggregated_output":"ls: cannot access '/definitely/not/here': No such file or directory\nto-stderr\n","exit_code":3,"status":"failed"}}"#,
        r#"{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc false","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc false","aggregated_output":"","exit_code":1,"status":"failed"}}"#,
        r#"{"type":"item.started","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -lc pwd","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -lc pwd","aggregated_output":"/w\n","exit_code":0,"status":"completed"}}"#,
    ]);
    assert_eq!(
        out,
        [
            r#"2@th1: call item_0 shell key=ls /definitely/not/here; echo to-stderr >&2; exit 3 input={"command":"/bin/bash -lc 'ls /definitely/not/here; echo to-stderr >&2; exit 3'"}"#,
            r#"3@th1: result item_0 error=true denied=false "exit code 3\nls: cannot access '/definitely/not/here': No such file or directory\nto-stderr\n""#,
            r#"4@th1: call item_1 shell key=false input={"command":"/bin/bash -lc false"}"#,
            r#"5@th1: result item_1 error=true denied=false "exit code 1""#,
            r#"6@th1: call item_2 shell key=pwd input={"command":"/bin/bash -lc pwd"}"#,
            r#"7@th1: result item_2 error=false denied=false "/w\n""#,
        ]
    );
}

#[test]
fn declined_and_failed_statuses_are_errors() {
    let out = after_start(&[
        r#"{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"rm -rf /","aggregated_output":"","exit_code":null,"status":"declined"}}"#,
        r#"{"type":"item.completed","item":{"id":"j","type":"command_execution","command":"x","aggregated_output":"spawn failed","exit_code":null,"status":"failed"}}"#,
        r#"{"type":"item.completed","item":{"id":"k","type":"command_execution","command":"x","aggregated_output":"","exit_code":-1,"status":"completed"}}"#,
    ]);
    assert_eq!(
        out,
        [
            r#"2@th1: call i shell key=rm -rf / input={"command":"rm -rf /"}"#,
            r#"2@th1: result i error=true denied=true "command declined""#,
            "2@th1: denied i approval declined",
            r#"3@th1: call j shell key=x input={"command":"x"}"#,
            r#"3@th1: result j error=true denied=false "command failed\nspawn failed""#,
            r#"4@th1: call k shell key=x input={"command":"x"}"#,
            r#"4@th1: result k error=true denied=false "exit code -1""#,
        ]
    );
}

#[test]
fn file_changes() {
    let out = after_start(&[
        r#"{"type":"item.started","item":{"id":"item_1","type":"file_change","changes":[{"path":"/w/a.txt","kind":"add"},{"path":"/w/b.txt","kind":"delete"}],"status":"in_progress"}}"#,
        r#"{"type":"item.updated","item":{"id":"item_1","type":"file_change","changes":[{"path":"/w/a.txt","kind":"add"},{"path":"/w/b.txt","kind":"delete"}],"status":"in_progress"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"file_change","changes":[{"path":"/w/a.txt","kind":"add","diff":"+hello"},{"path":"/w/b.txt","kind":"delete"}],"status":"completed"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"/w/c/d.txt","kind":"add"}],"status":"failed"}}"#,
    ]);
    assert_eq!(
        out,
        [
            r#"2@th1: call item_1 apply_patch key=add /w/a.txt, delete /w/b.txt input={"changes":[{"path":"/w/a.txt","kind":"add"},{"path":"/w/b.txt","kind":"delete"}]}"#,
            r#"4@th1: result item_1 error=false denied=false "/w/a.txt\n+hello""#,
            r#"5@th1: call item_3 apply_patch key=add /w/c/d.txt input={"changes":[{"path":"/w/c/d.txt","kind":"add"}]}"#,
            r#"5@th1: result item_3 error=true denied=false "patch failed""#,
        ]
    );
}

#[test]
fn mcp_calls() {
    let out = after_start(&[
        r#"{"type":"item.started","item":{"id":"item_1","type":"mcp_tool_call","server":"mockecho","tool":"echo","arguments":{"n":3,"text":"hi"},"result":null,"error":null,"status":"in_progress"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"mockecho","tool":"echo","arguments":{"n":3,"text":"hi"},"result":{"content":[{"type":"text","text":"echo: hi"}],"structured_content":null},"error":null,"status":"completed"}}"#,
        // isError:true from the server: status failed, error null, text in the content.
        r#"{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"mockecho","tool":"explode","arguments":{"reason":"r"},"result":{"content":[{"type":"text","text":"boom: r"}],"structured_content":null},"error":null,"status":"failed"}}"#,
        // A call that could not be made: the error object.
        r#"{"type":"item.completed","item":{"id":"item_3","type":"mcp_tool_call","server":"s","tool":"t","arguments":null,"result":null,"error":{"message":"server not running"},"status":"failed"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_4","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":{"content":[],"structured_content":{"ok":true}},"error":null,"status":"completed"}}"#,
    ]);
    assert_eq!(
        out,
        [
            r#"2@th1: call item_1 mcp__mockecho__echo key=3 input={"n":3,"text":"hi"}"#,
            r#"3@th1: result item_1 error=false denied=false "echo: hi""#,
            r#"4@th1: call item_2 mcp__mockecho__explode key=r input={"reason":"r"}"#,
            r#"4@th1: result item_2 error=true denied=false "boom: r""#,
            "5@th1: call item_3 mcp__s__t key=<none> input={}",
            r#"5@th1: result item_3 error=true denied=false "server not running""#,
            "6@th1: call item_4 mcp__s__t key=<none> input={}",
            r#"6@th1: result item_4 error=false denied=false "{\"ok\":true}""#,
        ]
    );
}

#[test]
fn web_search_waits_for_its_query() {
    // web_search.jsonl: the key `id` twice in one object.
    let out = after_start(&[
        r#"{"type":"item.started","item":{"id":"item_0","type":"web_search","id":"ws_0063","query":"","action":{"type":"other"}}}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"web_search","id":"ws_0063","query":"streamview jsonl renderer","action":{"type":"search","query":"streamview jsonl renderer"}}}"#,
    ]);
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(
        out[0].starts_with("3@th1: call ")
            && out[0].contains(" web_search key=streamview jsonl renderer input="),
        "{out:?}"
    );
    let id = out[0].split(' ').nth(2).unwrap();
    assert_eq!(
        out[1],
        format!(
            r#"3@th1: result {id} error=false denied=false "searched: streamview jsonl renderer""#
        )
    );
}

#[test]
fn a_search_cut_off_still_counts_as_a_call() {
    let out = after_start(&[
        r#"{"type":"item.started","item":{"id":"item_0","type":"web_search","query":"","action":{"type":"other"}}}"#,
        r#"{"type":"item.started","item":{"id":"item_1","type":"web_search","query":"","action":{"type":"open_page","url":"https://x.test/"}}}"#,
    ]);
    assert_eq!(
        out,
        [
            r#"3@th1: call item_1 web_search key=https://x.test/ input={"query":"","action":{"type":"open_page","url":"https://x.test/"}}"#,
            r#"2@th1: call item_0 web_search key=<none> input={"query":"","action":{"type":"other"}}"#,
        ]
    );
    // Held back until the turn ends, then shown before the result.
    let out = after_start(&[
        r#"{"type":"item.started","item":{"id":"item_0","type":"web_search","query":"","action":{"type":"other"}}}"#,
        r#"{"type":"turn.failed","error":{"message":"boom"}}"#,
    ]);
    assert_eq!(
        out,
        [
            r#"2@th1: call item_0 web_search key=<none> input={"query":"","action":{"type":"other"}}"#,
            r#"3@th1: end error=true text=Some("boom") tokens=None/None/None/None turns=None cost=None"#,
        ]
    );
}

#[test]
fn todo_list_lifecycle() {
    // plan.jsonl
    let out = after_start(&[
        r#"{"type":"item.started","item":{"id":"item_0","type":"todo_list","items":[{"text":"Inspect","completed":false},{"text":"Write","completed":false}]}}"#,
        r#"{"type":"item.updated","item":{"id":"item_0","type":"todo_list","items":[{"text":"Inspect","completed":true},{"text":"Write","completed":false}]}}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"todo_list","items":[{"text":"Inspect","completed":true},{"text":"Write","completed":false}]}}"#,
    ]);
    assert_eq!(
        out,
        [
            r#"2@th1: call item_0 todo_list key=2 items input={"items":[{"text":"Inspect","completed":false},{"text":"Write","completed":false}]} [pending:Inspect] [pending:Write]"#,
            "3@th1: notice todo_list info plan updated (1/2 done)\n☑ Inspect\n☐ Write",
            r#"4@th1: result item_0 error=false denied=false "1/2 done: ☑ Inspect · ☐ Write""#,
        ]
    );
}

#[test]
fn turn_results_and_errors() {
    let out = after_start(&[
        r#"{"type":"turn.started"}"#,
        r#"{"type":"error","message":"Reconnecting... 2/5 (stream disconnected)"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Falling back"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"done"}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":7350,"cached_input_tokens":6000,"cache_write_input_tokens":0,"output_tokens":335,"reasoning_output_tokens":72}}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"error","message":"We’re currently experiencing high demand"}"#,
        r#"{"type":"turn.failed","error":{"message":"We’re currently experiencing high demand"}}"#,
        r#"{"type":"turn.completed"}"#,
        r#"{"type":"turn.failed"}"#,
    ]);
    assert_eq!(
        out,
        [
            "2@th1: notice turn.started debug turn started",
            "3@th1: notice error warning Reconnecting... 2/5 (stream disconnected)",
            "4@th1: notice error warning Falling back",
            "5@th1: text Assistant done",
            r#"6@th1: end error=false text=Some("done") tokens=Some(1350)/Some(335)/Some(6000)/Some(0) turns=None cost=None"#,
            "7@th1: notice turn.started debug turn started",
            "8@th1: notice error error We’re currently experiencing high demand",
            r#"9@th1: end error=true text=Some("We’re currently experiencing high demand") tokens=None/None/None/None turns=None cost=None"#,
            "10@th1: end error=false text=None tokens=None/None/None/None turns=None cost=None",
            "11@th1: end error=true text=None tokens=None/None/None/None turns=None cost=None",
        ]
    );
}

#[test]
fn messages_reasoning_plans() {
    let out = after_start(&[
        r#"{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Thinking**\n\nabout it"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"reasoning","text":""}}"#,
        r#"{"type":"item.plan.delta","item_id":"item_2","delta":"1. do"}"#,
        r#"{"type":"item.started","item":{"id":"item_2","type":"plan","text":""}}"#,
        r#"{"type":"item.completed","item":{"id":"item_2","type":"plan","text":"1. do it"}}"#,
        r#"{"type":"item.started","item":{"id":"item_3","type":"agent_message","text":""}}"#,
        r#"{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"ok"}}"#,
    ]);
    assert_eq!(
        out,
        [
            "2@th1: thinking redacted=false **Thinking**\n\nabout it",
            "3@th1: thinking redacted=true ",
            "4@th1: delta text 1. do",
            "6@th1: text Assistant 1. do it",
            "8@th1: text Assistant ok",
        ]
    );
}

#[test]
fn questions_and_sub_agents() {
    let out = after_start(&[
        r#"{"type":"request_user_input","id":"turn1","call_id":"call_9","questions":[{"id":"q","header":"Mode","question":"Which mode?","isOther":false,"isSecret":false,"options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]}"#,
        r#"{"type":"item.started","item":{"id":"item_1","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"th1","receiver_thread_ids":[],"prompt":"Count the files","agents_states":{},"status":"in_progress"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"th1","receiver_thread_ids":["th2"],"prompt":"Count the files","agents_states":{"th2":{"status":"completed","message":"12 files"}},"status":"completed"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_2","type":"collab_tool_call","tool":"wait","sender_thread_id":"th1","receiver_thread_ids":["th2","th3"],"prompt":null,"agents_states":{},"status":"failed"}}"#,
    ]);
    assert_eq!(
        out,
        [
            r#"2@th1: call call_9 request_user_input key=Which mode? input={"questions":[{"id":"q","header":"Mode","question":"Which mode?","isOther":false,"isSecret":false,"options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]}]} [?Which mode? A/B]"#,
            r#"3@th1: call item_1 spawn_agent key=Count the files input={"tool":"spawn_agent","sender_thread_id":"th1","receiver_thread_ids":[],"prompt":"Count the files"}"#,
            r#"4@th1: result item_1 error=false denied=false "th2: completed: 12 files""#,
            r#"5@th1: call item_2 wait key=th2, th3 input={"tool":"wait","sender_thread_id":"th1","receiver_thread_ids":["th2","th3"],"prompt":null}"#,
            r#"5@th1: result item_2 error=true denied=false "failed""#,
        ]
    );
}

#[test]
fn odd_lines_are_kept_and_never_panic() {
    let out = after_start(&[
        r#"{"type":"item.completed","item":{"id":"item_0","type":"brand_new_item"}}"#,
        r#"{"type":"item.completed","item":5}"#,
        r#"{"type":"item.completed"}"#,
        r#"{"type":"thread.archived","x":1}"#,
        r#"{"type":"item.completed","item":{"type":"command_execution"}}"#,
        r#"{"type":"item.completed","item":{"id":7,"type":"file_change","changes":"x","status":5}}"#,
        r#"{"type":"item.completed","item":{"id":"m","type":"mcp_tool_call","arguments":"raw","result":{"content":"plain"},"error":"bad"}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":"many","cached_input_tokens":9,"output_tokens":1.0}}"#,
        r#"{"type":"error"}"#,
        r#"{"type":"request_user_input","questions":"?"}"#,
        r#"{"type":"item.updated","item":{"id":"zz","type":"todo_list","items":[{"step":"s","status":"in_progress"}]}}"#,
    ]);
    assert_eq!(
        out,
        [
            "2@th1: unknown item.completed/brand_new_item",
            "3@th1: unknown item.completed",
            "4@th1: unknown item.completed",
            "5@th1: unknown thread.archived",
            "6@th1: call line-6 shell key=<none> input={}",
            r#"6@th1: result line-6 error=false denied=false """#,
            "7@th1: call line-7 apply_patch key=<none> input={\"changes\":\"x\"}",
            r#"7@th1: result line-7 error=false denied=false """#,
            r#"8@th1: call m mcp_tool_call key=<none> input={"arguments":"raw"}"#,
            r#"8@th1: result m error=true denied=false "bad""#,
            "9@th1: end error=false text=None tokens=None/Some(1)/Some(9)/None turns=None cost=None",
            "10@th1: notice error error error",
            "11@th1: call line-11 request_user_input key=<none> input={\"questions\":\"?\"} ",
            r#"12@th1: call zz todo_list key=1 item input={"items":[{"step":"s","status":"in_progress"}]} [in_progress:s]"#,
        ]
        .map(str::trim_end)
    );
}

#[test]
fn the_corpus_is_detected_as_codex() {
    for line in [
        START,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"error","message":"x"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"m"}}"#,
    ] {
        assert_eq!(
            crate::decode::testing::parsed(line, super::super::detect),
            Some(Producer::Codex),
            "{line}"
        );
    }
}
