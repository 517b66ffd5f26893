//! Claude Code's stream-json, line by line: sessions, system lines, text,
//! usage, tool calls and their key arguments, tool results and denials,
//! results and stream events.

use crate::decode::testing::*;

#[test]
fn line_number_and_session_are_carried() {
    let mut dec = Decoder::new();
    let line = Line {
        number: 42,
        bytes: br#"{"type":"assistant","session_id":"sess-9","parent_tool_use_id":"toolu_p","message":{"content":[{"type":"text","text":"x"}]}}"#,
        partial: false,
    };
    let (_, evs) = decode_line(&mut dec, &line);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].line, 42);
    assert_eq!(evs[0].session.as_deref(), Some("sess-9"));
    assert_eq!(evs[0].parent.as_deref(), Some("toolu_p"));
}

#[test]
fn camel_case_session_id_is_accepted() {
    let ev = one(r#"{"type":"result","sessionId":"abc","subtype":"success"}"#);
    assert_eq!(ev.session.as_deref(), Some("abc"));
}

#[test]
fn null_parent_is_no_parent() {
    let ev = one(
        r#"{"type":"assistant","parent_tool_use_id":null,"message":{"content":[{"type":"text","text":"x"}]}}"#,
    );
    assert!(ev.parent.is_none());
}

// ---------------------------------------------------------------------------
// system

#[test]
fn init_line_gives_session_start() {
    let line = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":["Task","Bash"],"mcp_servers":[{"name":"gh","status":"connected"},{"status":"failed"}],"model":"claude-x","permissionMode":"default","slash_commands":["init"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.197","agents":["Explore",{"name":"Plan"}],"skills":["verify"]}"#;
    let ev = one(line);
    assert_eq!(ev.session.as_deref(), Some("s1"));
    let EventKind::SessionStart(s) = &ev.kind else {
        panic!("expected session start, got {:?}", ev.kind)
    };
    assert_eq!(s.model.as_deref(), Some("claude-x"));
    assert_eq!(s.cwd.as_deref(), Some("/w"));
    assert_eq!(s.version.as_deref(), Some("2.1.197"));
    assert_eq!(s.permission_mode.as_deref(), Some("default"));
    assert_eq!(s.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
    assert_eq!(s.tools, ["Task", "Bash"]);
    assert_eq!(
        s.mcp_servers,
        [
            McpServer {
                name: "gh".into(),
                status: "connected".into()
            },
            McpServer {
                name: "?".into(),
                status: "failed".into()
            }
        ]
    );
    assert_eq!(s.agents, ["Explore", "Plan"]);
    assert_eq!(s.skills, ["verify"]);
    assert_eq!(s.slash_commands, ["init"]);
}

#[test]
fn real_init_line() {
    let text = include_str!("../../../tests/fixtures/claude/text_only.jsonl");
    let first = text.lines().next().unwrap();
    let ev = one(first);
    assert_eq!(
        ev.session.as_deref(),
        Some("c8eda084-9860-432c-8d04-5c917bdc971e")
    );
    let EventKind::SessionStart(s) = &ev.kind else {
        panic!("expected session start, got {:?}", ev.kind)
    };
    assert_eq!(s.model.as_deref(), Some("claude-opus-4-8[1m]"));
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/work/text_only/project"));
    assert_eq!(s.version.as_deref(), Some("2.1.197"));
    assert_eq!(s.permission_mode.as_deref(), Some("default"));
    assert_eq!(s.tools.len(), 24);
    assert_eq!(s.tools[0], "Task");
    assert!(s.mcp_servers.is_empty());
    assert_eq!(
        s.agents,
        [
            "claude",
            "Explore",
            "general-purpose",
            "Plan",
            "statusline-setup"
        ]
    );
}

#[test]
fn unknown_system_subtype_is_unknown_with_raw_line() {
    let line = r#"{"type":"system","subtype":"brand_new_thing","session_id":"s","x":[1,2]}"#;
    let ev = one(line);
    let u = as_unknown(&ev);
    assert_eq!(u.type_name, "system/brand_new_thing");
    assert_eq!(u.raw, line);
    assert_eq!(ev.session.as_deref(), Some("s"));
}

#[test]
fn system_without_subtype_is_named_system() {
    let ev = one(r#"{"type":"system","session_id":"s"}"#);
    assert_eq!(as_unknown(&ev).type_name, "system");
}

#[test]
fn system_permission_denied_gives_denial() {
    let ev = one(
        r#"{"type":"system","subtype":"permission_denied","tool_use_id":"toolu_9","tool_name":"Bash","message":"nope","session_id":"s"}"#,
    );
    let d = as_denial(&ev);
    assert_eq!(d.id.as_deref(), Some("toolu_9"));
    assert_eq!(d.tool.as_deref(), Some("Bash"));
    assert_eq!(d.message.as_deref(), Some("nope"));
    assert!(d.key_arg.is_none());
}

#[test]
fn api_retry_is_a_notice_keeping_the_raw_line() {
    let text = include_str!("../../../tests/fixtures/claude/api_error_500.jsonl");
    let line = text.lines().nth(1).unwrap();
    let ev = one(line);
    let n = as_notice(&ev);
    assert_eq!(n.subtype, "api_retry");
    assert_eq!(n.raw.as_deref(), Some(line));
    assert!(!n.text.is_empty());
}

#[test]
fn known_system_subtypes_are_notices() {
    for (line, sub) in [
        (
            r#"{"type":"system","subtype":"status","status":"requesting"}"#,
            "status",
        ),
        (
            r#"{"type":"system","subtype":"thinking_tokens","estimated_tokens":12}"#,
            "thinking_tokens",
        ),
        (
            r#"{"type":"system","subtype":"task_started","description":"d","tool_use_id":"t"}"#,
            "task_started",
        ),
        (
            r#"{"type":"system","subtype":"hook_response","hook_name":"Stop","outcome":"success","exit_code":0}"#,
            "hook_response",
        ),
    ] {
        let ev = one(line);
        let n = as_notice(&ev);
        assert_eq!(n.subtype, sub);
        assert_eq!(n.raw.as_deref(), Some(line));
        // Only the thinking-token count is a running estimate.
        assert_eq!(n.estimate, sub == "thinking_tokens", "{sub}");
    }
}

#[test]
fn a_slash_command_is_given_as_typed() {
    for (line, typed) in [
        (
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>"}}"#,
            Some("/model opus"),
        ),
        (
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<command-message>clear</command-message>\n<command-name>clear</command-name>\n<command-args></command-args>"}]}}"#,
            Some("/clear"),
        ),
        (
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/broken"}}"#,
            None,
        ),
        (
            r#"{"type":"user","message":{"role":"user","content":"fix the bug"}}"#,
            None,
        ),
    ] {
        let ev = one(line);
        let EventKind::Text(t) = &ev.kind else {
            panic!("{ev:?}")
        };
        assert_eq!(t.role, Role::User);
        assert_eq!(t.command.as_deref(), typed, "{line}");
        // The text stays as it came (JSONL keeps the record).
        assert_eq!(
            t.text.contains("<command-name>"),
            line.contains("<command-name>")
        );
    }
}

#[test]
fn failed_hook_is_a_warning() {
    let ev = one(
        r#"{"type":"system","subtype":"hook_response","hook_name":"PreToolUse","outcome":"error","exit_code":2,"stderr":"blocked\n"}"#,
    );
    let n = as_notice(&ev);
    assert_eq!(n.level, Level::Warning);
    assert_eq!(n.text, "hook PreToolUse: error (exit 2): blocked");
}

// ---------------------------------------------------------------------------
// Unknown top-level types

#[test]
fn unknown_type_keeps_the_original_line() {
    let line =
        r#"{"type":"brand_new_event","operation":"enqueue","content":"hi","n":[1,{"x":null}]}"#;
    let ev = one(line);
    let u = as_unknown(&ev);
    assert_eq!(u.type_name, "brand_new_event");
    assert_eq!(u.raw, line);
}

#[test]
fn unknown_type_with_subtype_is_named_type_slash_subtype() {
    let ev = one(r#"{"type":"attachment","subtype":"skill_listing"}"#);
    assert_eq!(as_unknown(&ev).type_name, "attachment/skill_listing");
}

#[test]
fn unknown_assistant_block_is_unknown() {
    let line = r#"{"type":"assistant","message":{"content":[{"type":"hologram","x":1}]}}"#;
    let ev = one(line);
    let u = as_unknown(&ev);
    assert_eq!(u.type_name, "assistant/hologram");
    assert_eq!(u.raw, line);
}

#[test]
fn unknown_user_block_is_unknown() {
    let ev = one(r#"{"type":"user","message":{"content":[{"type":"smell","x":1}]}}"#);
    assert_eq!(as_unknown(&ev).type_name, "user/smell");
}

// ---------------------------------------------------------------------------
// assistant

#[test]
fn assistant_text_with_usage() {
    let evs = events(
        r#"{"type":"assistant","session_id":"s","message":{"id":"msg_1","model":"claude-x","content":[{"type":"text","text":"Hello"}],"usage":{"input_tokens":10,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":1}}}"#,
    );
    assert_eq!(kinds(&evs), ["usage", "text"]);
    let u = as_usage(&evs[0]);
    assert_eq!(u.message_id.as_deref(), Some("msg_1"));
    assert_eq!(u.model.as_deref(), Some("claude-x"));
    assert_eq!(
        u.tokens,
        Tokens {
            input: Some(10),
            output: Some(1),
            cache_read: Some(3),
            cache_creation: Some(2),
            reasoning: None,
        }
    );
    let t = as_text(&evs[1]);
    assert_eq!(t.role, Role::Assistant);
    assert_eq!(t.text, "Hello");
    assert_eq!(t.message_id.as_deref(), Some("msg_1"));
}

#[test]
fn usage_is_emitted_once_per_message_id() {
    let mut dec = Decoder::new();
    let line = |id: &str, text: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"{id}","content":[{{"type":"text","text":"{text}"}}],"usage":{{"input_tokens":5,"output_tokens":1}}}}}}"#
        )
    };
    let mut all = Vec::new();
    for (id, text) in [
        ("m1", "a"),
        ("m1", "b"),
        ("m1", "c"),
        ("m2", "d"),
        ("m2", "e"),
        ("m3", "f"),
    ] {
        let (d, evs) = decode_bytes(&mut dec, line(id, text).as_bytes());
        assert_eq!(d, Decoded::Events);
        all.extend(evs);
    }
    assert_eq!(
        kinds(&all),
        [
            "usage", "text", "text", "text", "usage", "text", "text", "usage", "text"
        ]
    );
    let ids: Vec<_> = all
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Usage(u) => u.message_id.as_deref().map(str::to_string),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["m1", "m2", "m3"]);
}

#[test]
fn usage_state_survives_other_lines_in_between() {
    // Tool results and system lines between two blocks of one message do not
    // make the usage count again.
    let mut dec = Decoder::new();
    let a = r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":5}}}"#;
    let u = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#;
    let s = r#"{"type":"system","subtype":"status","status":"requesting"}"#;
    let b = r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"pwd"}}],"usage":{"input_tokens":5}}}"#;
    let mut all = Vec::new();
    for l in [a, u, s, b] {
        all.extend(decode_bytes(&mut dec, l.as_bytes()).1);
    }
    assert_eq!(
        kinds(&all),
        ["usage", "tool_call", "tool_result", "notice", "tool_call"]
    );
}

#[test]
fn usage_is_per_decoder() {
    let line =
        r#"{"type":"assistant","message":{"id":"m1","content":[],"usage":{"input_tokens":5}}}"#;
    assert_eq!(kinds(&dec1(line).1), ["usage"]);
    // A fresh decoder (another input) reports it again.
    assert_eq!(kinds(&dec1(line).1), ["usage"]);
}

#[test]
fn usage_from_real_lines_of_one_message() {
    // tools_basic: lines 2 and 3 are the text and the Read tool_use of
    // message msg_013c60dbfcc30cd123c01b03, both carrying its usage.
    let text = include_str!("../../../tests/fixtures/claude/tools_basic.jsonl");
    let mut dec = Decoder::new();
    let mut lines = text.lines().skip(1);
    let (_, first) = decode_bytes(&mut dec, lines.next().unwrap().as_bytes());
    let (_, second) = decode_bytes(&mut dec, lines.next().unwrap().as_bytes());
    assert_eq!(kinds(&first), ["usage", "text"]);
    assert_eq!(kinds(&second), ["tool_call"]);
    let u = as_usage(&first[0]);
    assert_eq!(
        u.message_id.as_deref(),
        Some("msg_013c60dbfcc30cd123c01b03")
    );
    assert_eq!(u.model.as_deref(), Some("claude-opus-4-8"));
    assert_eq!(
        u.tokens,
        Tokens {
            input: Some(1673),
            output: Some(1),
            cache_read: Some(0),
            cache_creation: Some(0),
            reasoning: None,
        }
    );
    let c = as_call(&second[0]);
    assert_eq!(c.name, "Read");
    assert_eq!(
        c.key_arg.as_deref(),
        Some("/home/dev/work/tools_basic/project/README.md")
    );
    assert_eq!(c.id, "toolu_01Spkpw8CETv7hM6QACPWyCM");
    assert_eq!(
        c.message_id.as_deref(),
        Some("msg_013c60dbfcc30cd123c01b03")
    );
}

#[test]
fn usage_is_emitted_once_per_message_when_messages_interleave() {
    // claude-2.1.330/subagent.jsonl lines 12, 13, 15: two sub-agents run in
    // parallel; msg_018b7f84… (line 12) is interrupted by msg_011656bd…
    // (line 13) and continues on line 15 with the same usage.
    let text = include_str!("../../../tests/fixtures/claude-2.1.330/subagent.jsonl");
    let mut dec = Decoder::new();
    let mut usage_ids = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let (_, evs) = decode_line(
            &mut dec,
            &Line {
                number: i as u64 + 1,
                bytes: l.as_bytes(),
                partial: false,
            },
        );
        for e in evs {
            if let EventKind::Usage(u) = &e.kind {
                usage_ids.push(u.message_id.as_deref().unwrap_or("").to_string());
            }
        }
    }
    let mut distinct = usage_ids.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(usage_ids.len(), distinct.len(), "{usage_ids:?}");
}

#[test]
fn message_without_usage_or_id_gives_no_usage() {
    let evs = events(
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"x"}],"usage":{"input_tokens":5}}}"#,
    );
    assert_eq!(kinds(&evs), ["text"]);
    let evs = events(
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"x"}]}}"#,
    );
    assert_eq!(kinds(&evs), ["text"]);
}

#[test]
fn assistant_string_content_is_text() {
    let ev = one(r#"{"type":"assistant","message":{"content":"plain answer"}}"#);
    assert_eq!(as_text(&ev).text, "plain answer");
    assert_eq!(as_text(&ev).role, Role::Assistant);
}

#[test]
fn thinking_and_redacted_thinking() {
    let evs = events(
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"thinking","thinking":"hmm","signature":"x"},{"type":"redacted_thinking","data":"zzz"}]}}"#,
    );
    assert_eq!(kinds(&evs), ["thinking", "thinking"]);
    let EventKind::Thinking(a) = &evs[0].kind else {
        unreachable!()
    };
    let EventKind::Thinking(b) = &evs[1].kind else {
        unreachable!()
    };
    assert_eq!(a.text, "hmm");
    assert!(!a.redacted);
    assert_eq!(a.message_id.as_deref(), Some("m"));
    assert_eq!(b.text, "");
    assert!(b.redacted);
}

#[test]
fn escaped_text_is_unescaped() {
    let ev = one(
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"a\nb \"q\" \u00e9 \u001b[31m"}]}}"#,
    );
    assert_eq!(as_text(&ev).text, "a\nb \"q\" é \u{1b}[31m");
}

#[test]
fn synthetic_model_line_is_an_api_error_notice() {
    let text = include_str!("../../../tests/fixtures/claude/api_error_500.jsonl");
    let line = text.lines().nth(2).unwrap();
    let evs = events(line);
    assert_eq!(kinds(&evs), ["notice"], "no text, no usage");
    let n = as_notice(&evs[0]);
    assert_eq!(n.subtype, "api_error");
    assert_eq!(n.level, Level::Error);
    assert!(
        n.text.starts_with("API Error: 500 Internal server error."),
        "{}",
        n.text
    );
    assert_eq!(n.raw.as_deref(), Some(line));
}

#[test]
fn synthetic_model_line_inline() {
    let evs = events(
        r#"{"type":"assistant","message":{"id":"u","model":"<synthetic>","content":[{"type":"text","text":"API Error: boom"}],"usage":{"input_tokens":0}}}"#,
    );
    assert_eq!(kinds(&evs), ["notice"]);
    let n = as_notice(&evs[0]);
    assert_eq!(n.subtype, "api_error");
    assert_eq!(n.level, Level::Error);
    assert_eq!(n.text, "API Error: boom");
}

#[test]
fn error_field_without_text_names_the_error() {
    let ev =
        one(r#"{"type":"assistant","error":"authentication_failed","message":{"content":[]}}"#);
    let n = as_notice(&ev);
    assert_eq!(n.subtype, "api_error");
    assert_eq!(n.level, Level::Error);
    assert_eq!(n.text, "API error: authentication_failed");

    let ev = one(r#"{"type":"assistant","is_api_error_message":true,"message":null}"#);
    assert_eq!(as_notice(&ev).text, "API error");
}

#[test]
fn aborted_message_adds_a_warning() {
    let evs = events(
        r#"{"type":"assistant","aborted":true,"message":{"content":[{"type":"text","text":"par"}]}}"#,
    );
    assert_eq!(kinds(&evs), ["text", "notice"]);
    let n = as_notice(&evs[1]);
    assert_eq!(n.subtype, "aborted");
    assert_eq!(n.level, Level::Warning);
}

#[test]
fn several_blocks_in_one_line_give_several_events() {
    let evs = events(
        r#"{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/x"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}}]}}"#,
    );
    assert_eq!(kinds(&evs), ["text", "tool_call", "tool_call"]);
    assert_eq!(as_call(&evs[1]).id, "t1");
    assert_eq!(as_call(&evs[2]).id, "t2");
}

// ---------------------------------------------------------------------------
// Tool calls and their key argument

#[test]
fn key_arg_of_file_tools_is_the_path() {
    for tool in ["Read", "Write", "Edit", "MultiEdit"] {
        assert_eq!(
            key(tool, r#"{"file_path":"/a/b.rs","content":"x"}"#).as_deref(),
            Some("/a/b.rs"),
            "{tool}"
        );
    }
    assert_eq!(key("Read", r#"{"path":"/p"}"#).as_deref(), Some("/p"));
    assert_eq!(
        key("NotebookEdit", r#"{"notebook_path":"/n.ipynb"}"#).as_deref(),
        Some("/n.ipynb")
    );
}

#[test]
fn key_arg_of_bash_is_the_command() {
    assert_eq!(
        key(
            "Bash",
            r#"{"command":"ls -la && wc -l x","description":"List"}"#
        )
        .as_deref(),
        Some("ls -la && wc -l x")
    );
    assert_eq!(key("Bash", r#"{"description":"List"}"#), None);
}

#[test]
fn key_arg_of_glob_and_grep_is_the_pattern() {
    assert_eq!(
        key("Glob", r#"{"pattern":"**/*.py"}"#).as_deref(),
        Some("**/*.py")
    );
    assert_eq!(
        key("Grep", r#"{"pattern":"fn ","path":"/src"}"#).as_deref(),
        Some("fn  in /src")
    );
    assert_eq!(
        key("Glob", r#"{"pattern":"*.rs","path":"src"}"#).as_deref(),
        Some("*.rs in src")
    );
    assert_eq!(
        key("Grep", r#"{"pattern":"TODO","path":"src","glob":"*.rs"}"#).as_deref(),
        Some("TODO in src (*.rs)")
    );
    assert_eq!(key("Grep", r#"{"path":"src"}"#), None);
}

#[test]
fn key_arg_of_sub_agents_is_type_and_description() {
    for tool in ["Agent", "Task"] {
        assert_eq!(
            key(
                tool,
                r#"{"description":"Inspect code","prompt":"long…","subagent_type":"general-purpose"}"#
            )
            .as_deref(),
            Some("general-purpose: Inspect code"),
            "{tool}"
        );
    }
    assert_eq!(
        key("Agent", r#"{"description":"Only desc"}"#).as_deref(),
        Some("Only desc")
    );
    assert_eq!(
        key("Task", r#"{"subagent_type":"Explore"}"#).as_deref(),
        Some("Explore")
    );
    assert_eq!(key("Task", r#"{"prompt":"p"}"#), None);
}

#[test]
fn key_arg_of_web_tools() {
    assert_eq!(
        key("WebFetch", r#"{"url":"https://x.test/a","prompt":"p"}"#).as_deref(),
        Some("https://x.test/a")
    );
    assert_eq!(
        key("WebSearch", r#"{"query":"rust memchr"}"#).as_deref(),
        Some("rust memchr")
    );
}

#[test]
fn todo_write_fills_the_todo_list() {
    let ev = one(&tool_use(
        "TodoWrite",
        r#"{"todos":[{"content":"Write tests","status":"in_progress","activeForm":"Writing"},{"content":"Ship","status":"pending"},{"subject":"From subject"}]}"#,
    ));
    let c = as_call(&ev);
    assert_eq!(c.key_arg.as_deref(), Some("3 items"));
    assert_eq!(
        c.todos,
        [
            Todo {
                content: "Write tests".into(),
                status: "in_progress".into()
            },
            Todo {
                content: "Ship".into(),
                status: "pending".into()
            },
            Todo {
                content: "From subject".into(),
                status: "pending".into()
            },
        ]
    );
    assert_eq!(
        key(
            "TodoWrite",
            r#"{"todos":[{"content":"a","status":"completed"}]}"#
        )
        .as_deref(),
        Some("1 item")
    );
}

#[test]
fn todo_write_from_a_real_line() {
    let text = include_str!("../../../tests/fixtures/claude/edit_write.jsonl");
    let mut dec = Decoder::new();
    let mut todo_lists = Vec::new();
    for l in text.lines() {
        for ev in decode_bytes(&mut dec, l.as_bytes()).1 {
            if let EventKind::ToolCall(c) = &ev.kind
                && c.name == "TodoWrite"
            {
                todo_lists.push(c.todos.clone());
            }
        }
    }
    assert_eq!(todo_lists.len(), 2, "the fixture calls TodoWrite twice");
    assert!(todo_lists.iter().all(|t| !t.is_empty()));
}

#[test]
fn ask_user_question_lists_questions_and_option_labels() {
    let ev = one(&tool_use(
        "AskUserQuestion",
        r#"{"questions":[{"question":"Which DB?","header":"DB","options":[{"label":"Postgres","description":"x"},{"label":"SQLite"},"Plain"],"multiSelect":false},{"question":"Go?","options":[]}]}"#,
    ));
    let c = as_call(&ev);
    assert_eq!(c.key_arg.as_deref(), Some("Which DB?"));
    assert_eq!(
        c.questions,
        [
            Question {
                question: "Which DB?".into(),
                options: vec!["Postgres".into(), "SQLite".into(), "Plain".into()].into()
            },
            Question {
                question: "Go?".into(),
                options: vec![].into()
            },
        ]
    );
}

#[test]
fn key_arg_of_skill() {
    assert_eq!(
        key("Skill", r#"{"skill":"verify"}"#).as_deref(),
        Some("verify")
    );
    assert_eq!(
        key("Skill", r#"{"skill":"review","args":"src/"}"#).as_deref(),
        Some("review src/")
    );
    assert_eq!(
        key("Skill", r#"{"skill":"review","args":""}"#).as_deref(),
        Some("review")
    );
    assert_eq!(
        key("Skill", r#"{"command":"loop"}"#).as_deref(),
        Some("loop")
    );
    assert_eq!(key("Skill", r#"{"args":"x"}"#), None);
}

#[test]
fn key_arg_of_mcp_tools_is_the_first_scalar_argument() {
    assert_eq!(
        key(
            "mcp__github__search_issues",
            r#"{"repo":"a/b","query":"bug","limit":5}"#
        )
        .as_deref(),
        Some("a/b")
    );
    // Nulls and containers are passed over.
    assert_eq!(
        key(
            "mcp__x__y",
            r#"{"opt":null,"list":[1],"obj":{"a":"b"},"name":"n"}"#
        )
        .as_deref(),
        Some("n")
    );
    // A number counts as a scalar argument too.
    assert_eq!(
        key("mcp__x__y", r#"{"id":17,"name":"n"}"#).as_deref(),
        Some("17")
    );
    assert_eq!(key("mcp__x__y", r"{}"), None);
    assert_eq!(key("mcp__x__y", r#"{"a":[],"b":{}}"#), None);
}

#[test]
fn unknown_tool_has_no_key_arg_but_keeps_its_input() {
    let ev = one(&tool_use(
        "FrobnicateTool",
        r#"{"file_path":"/x","command":"y"}"#,
    ));
    let c = as_call(&ev);
    assert_eq!(c.name, "FrobnicateTool");
    assert!(c.key_arg.is_none());
    assert_eq!(c.input, r#"{"file_path":"/x","command":"y"}"#);
    assert!(c.todos.is_empty());
    assert!(c.questions.is_empty());
}

#[test]
fn tool_call_fields() {
    let ev = one(&tool_use(
        "Bash",
        r#"{"command":"echo \"hi\"","timeout":5}"#,
    ));
    let c = as_call(&ev);
    assert_eq!(c.id, "toolu_1");
    assert_eq!(c.name, "Bash");
    assert_eq!(c.key_arg.as_deref(), Some("echo \"hi\""));
    assert_eq!(c.input, r#"{"command":"echo \"hi\"","timeout":5}"#);
    assert_eq!(c.message_id.as_deref(), Some("m1"));
}

#[test]
fn tool_call_without_input_has_empty_object_input() {
    let ev = one(
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash"}]}}"#,
    );
    let c = as_call(&ev);
    assert_eq!(c.input, "{}");
    assert!(c.key_arg.is_none());
}

#[test]
fn server_and_mcp_tool_use_blocks_are_tool_calls() {
    let evs = events(
        r#"{"type":"assistant","message":{"content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"q"}},{"type":"mcp_tool_use","id":"s2","name":"mcp__a__b","input":{"x":"y"}}]}}"#,
    );
    assert_eq!(kinds(&evs), ["tool_call", "tool_call"]);
    assert_eq!(as_call(&evs[0]).key_arg.as_deref(), Some("q"));
    assert_eq!(as_call(&evs[1]).key_arg.as_deref(), Some("y"));
}

#[test]
fn server_tool_result_with_error_code_is_an_error() {
    let evs = events(
        r#"{"type":"assistant","message":{"content":[{"type":"web_search_tool_result","tool_use_id":"s1","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}},{"type":"web_fetch_tool_result","tool_use_id":"s2","content":"page"}]}}"#,
    );
    assert_eq!(kinds(&evs), ["tool_result", "tool_result"]);
    let a = as_result(&evs[0]);
    assert_eq!(a.id, "s1");
    assert!(a.is_error);
    assert_eq!(a.content, "error: max_uses_exceeded");
    let b = as_result(&evs[1]);
    assert!(!b.is_error);
    assert_eq!(b.content, "page");
}

// ---------------------------------------------------------------------------
// user: tool results, denials, text

#[test]
fn tool_result_with_string_content() {
    let ev = one(&tool_result_line(r#""line 1\nline 2""#, false));
    let r = as_result(&ev);
    assert_eq!(r.id, "toolu_1");
    assert!(!r.is_error);
    assert!(!r.denied);
    assert_eq!(r.content, "line 1\nline 2");
}

#[test]
fn tool_result_with_one_text_block() {
    let ev = one(&tool_result_line(
        r#"[{"type":"text","text":"only"}]"#,
        false,
    ));
    assert_eq!(as_result(&ev).content, "only");
}

#[test]
fn tool_result_with_several_blocks_is_joined() {
    let ev = one(&tool_result_line(
        r#"[{"type":"text","text":"answer"},{"type":"image","source":{}},{"type":"tool_reference","tool_name":"Grep"},{"type":"weird"},"bare",{"no_type":1}]"#,
        false,
    ));
    assert_eq!(
        as_result(&ev).content,
        "answer\n[image]\n[tool Grep]\n[weird]\nbare\n{\"no_type\":1}"
    );
}

#[test]
fn tool_result_without_content_is_empty() {
    let ev =
        one(r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}"#);
    let r = as_result(&ev);
    assert_eq!(r.content, "");
    assert!(!r.is_error);
    let ev = one(&tool_result_line("null", true));
    assert_eq!(as_result(&ev).content, "");
}

#[test]
fn agent_tool_result_from_a_real_line() {
    // claude/subagent.jsonl line 16: the Agent result is an array of two
    // text blocks (the answer and the agentId/usage trailer).
    let text = include_str!("../../../tests/fixtures/claude/subagent.jsonl");
    let line = text.lines().nth(15).unwrap();
    let ev = one(line);
    let r = as_result(&ev);
    assert_eq!(r.id, "toolu_01zzvmrPizNbQx7Bqy0wzmq5");
    assert!(!r.is_error);
    assert!(
        r.content.text().starts_with(
            "hello.py defines greet() and prints a greeting.\nagentId: a8164d334e3dc2758"
        ),
        "{}",
        r.content
    );
}

#[test]
fn error_tool_result_is_not_a_denial() {
    let evs = events(&tool_result_line(r#""Exit code 3\nboom""#, true));
    assert_eq!(kinds(&evs), ["tool_result"]);
    let r = as_result(&evs[0]);
    assert!(r.is_error);
    assert!(!r.denied);
}

#[test]
fn denial_texts_give_a_denied_result_and_a_denial() {
    for text in [
        "Claude requested permissions to write to /p/marker.txt, but you haven't granted it yet.",
        "This Bash command contains multiple operations. The following parts require approval: rm -rf build, touch build.marker",
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        "Permission to use Bash has been denied.",
    ] {
        let evs = events(&tool_result_line(&format!("{text:?}"), true));
        assert_eq!(kinds(&evs), ["tool_result", "permission_denied"], "{text}");
        let r = as_result(&evs[0]);
        assert!(r.is_error);
        assert!(r.denied, "{text}");
        assert_eq!(r.content, text);
        let d = as_denial(&evs[1]);
        assert_eq!(d.id.as_deref(), Some("toolu_1"));
        assert_eq!(d.message.as_deref(), Some(text));
        assert!(d.tool.is_none());
    }
}

#[test]
fn denial_text_without_is_error_is_not_a_denial() {
    let evs = events(&tool_result_line(
        r#""Claude requested permissions to write to /x, but you haven't granted it yet.""#,
        false,
    ));
    assert_eq!(kinds(&evs), ["tool_result"]);
    assert!(!as_result(&evs[0]).denied);
}

#[test]
fn real_denials_from_the_permission_denied_fixture() {
    let text = include_str!("../../../tests/fixtures/claude/permission_denied.jsonl");
    let mut dec = Decoder::new();
    let all: Vec<Event<'static>> = text
        .lines()
        .flat_map(|l| decode_bytes(&mut dec, l.as_bytes()).1)
        .collect();
    let denied_results: Vec<_> = all
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult(r) if r.denied => Some(r.id.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(
        denied_results,
        [
            "toolu_013sAeyGSdcGyp5t3TljjpXo",
            "toolu_01jAJWAQ915uYGeg8k1yKVG0"
        ]
    );
    // Each denial: once after its tool result, once in the result line.
    let denials: Vec<_> = all
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::PermissionDenied(d) => Some((
                d.id.as_deref().unwrap_or("").to_string(),
                d.tool.as_deref().map(str::to_string),
                d.key_arg.as_deref().map(str::to_string),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        denials,
        [
            ("toolu_013sAeyGSdcGyp5t3TljjpXo".to_string(), None, None),
            ("toolu_01jAJWAQ915uYGeg8k1yKVG0".to_string(), None, None),
            (
                "toolu_013sAeyGSdcGyp5t3TljjpXo".to_string(),
                Some("Bash".to_string()),
                Some("rm -rf build && touch build.marker".to_string())
            ),
            (
                "toolu_01jAJWAQ915uYGeg8k1yKVG0".to_string(),
                Some("Write".to_string()),
                Some("/home/dev/work/permission_denied/project/marker.txt".to_string())
            ),
        ]
    );
    // The result comes last, after the result line's denials.
    assert_eq!(all.last().map(|e| e.kind.name()), Some("result"));
}

#[test]
fn user_text_in_string_and_blocks() {
    let ev = one(r#"{"type":"user","message":{"role":"user","content":"do it"}}"#);
    let t = as_text(&ev);
    assert_eq!(t.role, Role::User);
    assert_eq!(t.text, "do it");

    let evs = events(
        r#"{"type":"user","parent_tool_use_id":"toolu_a","message":{"content":[{"type":"text","text":"[SUBAGENT] prompt"},{"type":"image","source":{}}]}}"#,
    );
    assert_eq!(kinds(&evs), ["text"], "images are not events");
    assert_eq!(as_text(&evs[0]).role, Role::User);
    assert_eq!(evs[0].parent.as_deref(), Some("toolu_a"));
}

// ---------------------------------------------------------------------------
// result

#[test]
fn result_line_fields_from_a_real_line() {
    // claude/tools_basic.jsonl line 12.
    let text = include_str!("../../../tests/fixtures/claude/tools_basic.jsonl");
    let ev = one(text.lines().nth(11).unwrap());
    assert_eq!(
        ev.session.as_deref(),
        Some("3440a326-acd4-467c-bf1b-7139bca449bd")
    );
    let r = as_session_result(&ev);
    assert!(!r.is_error);
    assert_eq!(r.subtype.as_deref(), Some("success"));
    assert!(r.text.as_deref().unwrap().starts_with("The project has:"));
    assert!(r.errors.is_empty());
    assert_eq!(r.num_turns, Some(5));
    assert_eq!(r.duration_ms, Some(570));
    assert_eq!(r.duration_api_ms, Some(284));
    assert_eq!(r.cost_usd, Some(0.05283));
    assert_eq!(
        r.tokens,
        Tokens {
            input: Some(9426),
            output: Some(228),
            cache_read: Some(0),
            cache_creation: Some(0),
            reasoning: None,
        }
    );
    assert_eq!(r.model_usage.len(), 1);
    assert_eq!(r.model_usage[0].model, "claude-opus-4-8[1m]");
    assert_eq!(r.model_usage[0].cost_usd, Some(0.05283));
    assert_eq!(
        r.model_usage[0].tokens,
        Tokens {
            input: Some(9426),
            output: Some(228),
            cache_read: Some(0),
            cache_creation: Some(0),
            reasoning: None,
        }
    );
    assert_eq!(r.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(r.terminal_reason.as_deref(), Some("completed"));
    assert_eq!(r.api_error_status, None, "null in the line");
}

#[test]
fn success_subtype_with_is_error_is_an_error() {
    let text = include_str!("../../../tests/fixtures/claude/api_error_500.jsonl");
    let ev = one(text.lines().nth(3).unwrap());
    let r = as_session_result(&ev);
    assert!(r.is_error);
    assert_eq!(r.subtype.as_deref(), Some("success"));
    assert_eq!(r.api_error_status, Some(500));
    assert!(r.text.as_deref().unwrap().starts_with("API Error: 500"));
    assert_eq!(r.cost_usd, Some(0.0));
    assert!(r.model_usage.is_empty());
}

#[test]
fn error_max_turns_result() {
    let text = include_str!("../../../tests/fixtures/claude/max_turns.jsonl");
    let ev = one(text.lines().nth(4).unwrap());
    let r = as_session_result(&ev);
    assert!(r.is_error);
    assert_eq!(r.subtype.as_deref(), Some("error_max_turns"));
    assert!(r.text.is_none());
    assert_eq!(r.errors, ["Reached maximum number of turns (1)"]);
    assert_eq!(r.num_turns, Some(2));
    assert_eq!(r.terminal_reason.as_deref(), Some("max_turns"));
    assert_eq!(r.cost_usd, Some(0.00963));
}

#[test]
fn error_subtype_alone_makes_an_error() {
    let ev = one(r#"{"type":"result","subtype":"error_during_execution"}"#);
    assert!(as_session_result(&ev).is_error);
    let ev = one(r#"{"type":"result","subtype":"success","is_error":false}"#);
    assert!(!as_session_result(&ev).is_error);
}

#[test]
fn result_cost_falls_back_to_model_usage() {
    let ev = one(
        r#"{"type":"result","subtype":"success","modelUsage":{"a":{"costUSD":0.5,"inputTokens":1},"b":{"costUSD":0.25}}}"#,
    );
    let r = as_session_result(&ev);
    assert_eq!(r.cost_usd, Some(0.75));
    assert_eq!(r.model_usage.len(), 2);
    let ev = one(r#"{"type":"result","subtype":"success","cost_usd":1.5}"#);
    assert_eq!(as_session_result(&ev).cost_usd, Some(1.5));
    let ev = one(r#"{"type":"result","subtype":"success"}"#);
    assert_eq!(as_session_result(&ev).cost_usd, None);
}

#[test]
fn result_integral_floats_are_accepted() {
    let ev = one(r#"{"type":"result","num_turns":3.0,"duration_ms":605.0,"duration_api_ms":1.5}"#);
    let r = as_session_result(&ev);
    assert_eq!(r.num_turns, Some(3));
    assert_eq!(r.duration_ms, Some(605));
    assert_eq!(r.duration_api_ms, None, "not integral");
}

#[test]
fn non_string_result_is_rendered_as_json() {
    let ev = one(r#"{"type":"result","result":{"a":1}}"#);
    assert_eq!(as_session_result(&ev).text.as_deref(), Some(r#"{"a":1}"#));
    let ev = one(r#"{"type":"result","result":null}"#);
    assert!(as_session_result(&ev).text.is_none());
}

#[test]
fn permission_denials_come_before_the_result() {
    let evs = events(
        r#"{"type":"result","subtype":"success","session_id":"s","permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}},{"tool_name":"Write","tool_use_id":"t2","tool_input":{"file_path":"/etc/x","content":"y"}},{"tool_name":"mcp__s__t","tool_use_id":"t3"}]}"#,
    );
    assert_eq!(
        kinds(&evs),
        [
            "permission_denied",
            "permission_denied",
            "permission_denied",
            "result"
        ]
    );
    let d: Vec<_> = evs[..3].iter().map(as_denial).collect();
    assert_eq!(d[0].id.as_deref(), Some("t1"));
    assert_eq!(d[0].tool.as_deref(), Some("Bash"));
    assert_eq!(d[0].key_arg.as_deref(), Some("rm -rf /"));
    assert!(d[0].message.is_none());
    assert_eq!(d[1].key_arg.as_deref(), Some("/etc/x"));
    assert_eq!(d[2].tool.as_deref(), Some("mcp__s__t"));
    assert!(d[2].key_arg.is_none());
    assert!(evs.iter().all(|e| e.session.as_deref() == Some("s")));
}

// ---------------------------------------------------------------------------
// stream_event

#[test]
fn stream_event_deltas() {
    let ev = one(
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll start"}},"session_id":"s","parent_tool_use_id":null}"#,
    );
    let d = as_delta(&ev);
    assert_eq!(d.kind, DeltaKind::Text);
    assert_eq!(d.index, Some(0));
    assert_eq!(d.text, "I'll start");

    let ev = one(
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"hmm"}}}"#,
    );
    let d = as_delta(&ev);
    assert_eq!(d.kind, DeltaKind::Thinking);
    assert_eq!(d.index, Some(2));
    assert_eq!(d.text, "hmm");

    let ev = one(
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"file_"}}}"#,
    );
    let d = as_delta(&ev);
    assert_eq!(d.kind, DeltaKind::ToolInput);
    assert_eq!(d.index, Some(1));
    assert_eq!(d.text, "{\"file_");
}

#[test]
fn other_stream_events_give_nothing() {
    for l in [
        r#"{"type":"stream_event","event":{"type":"message_start","message":{}}}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_start","index":0}}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"x"}}}"#,
    ] {
        let (d, evs) = dec1(l);
        assert_eq!(d, Decoded::Events, "{l}");
        assert!(evs.is_empty(), "{l}: {evs:?}");
    }
}

#[test]
fn malformed_stream_events_are_kept_as_unknown() {
    // Issue 6: a line of a known type without the fields it must have does
    // not vanish; JSONL keeps it, `-v` shows it.
    for l in [
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0}}"#,
        r#"{"type":"stream_event"}"#,
        r#"{"type":"stream_event","event":5}"#,
        r#"{"type":"stream_event","event":{"delta":{}}}"#,
    ] {
        let ev = one(l);
        assert_eq!(as_unknown(&ev).type_name, "stream_event", "{l}");
        assert_eq!(as_unknown(&ev).raw, l);
    }
}

#[test]
fn deltas_of_a_real_partial_stream() {
    let text = include_str!("../../../tests/fixtures/claude/partial_messages.jsonl");
    let mut dec = Decoder::new();
    let all: Vec<Event<'static>> = text
        .lines()
        .flat_map(|l| decode_bytes(&mut dec, l.as_bytes()).1)
        .collect();
    // Lines 5 and 6 are the first two text deltas of block 0.
    let first_text: Vec<_> = all
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Delta(d) if d.kind == DeltaKind::Text => Some(d.text.to_string()),
            _ => None,
        })
        .take(2)
        .collect();
    assert_eq!(first_text, ["I'll start by reading th", "e README."]);
    assert!(
        all.iter()
            .any(|e| matches!(&e.kind, EventKind::Delta(d) if d.kind == DeltaKind::ToolInput))
    );
}

// ---------------------------------------------------------------------------
// Robustness: wrong types never panic

#[test]
fn wrong_typed_fields_do_not_panic() {
    let lines = [
        r#"{"type":"assistant","message":{"content":5}}"#,
        r#"{"type":"assistant","message":null}"#,
        r#"{"type":"assistant","message":"str"}"#,
        r#"{"type":"assistant","message":{"id":5,"model":[],"usage":"x","content":[5,null,"s",{"type":7}]}}"#,
        r#"{"type":"assistant","message":{"id":"m","usage":"x","content":[]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":1,"name":2,"input":"str"}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":"str"}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Glob","input":[1]}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":"x"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[1,null,{"content":3}]}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"AskUserQuestion","input":{"questions":[5,{"options":"x"}]}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"mcp__a__b","input":"str"}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Agent","input":{"subagent_type":1}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":5}]}}"#,
        r#"{"type":"user","message":{"content":5}}"#,
        r#"{"type":"user","message":null}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":5,"content":5,"is_error":"yes"}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","content":{"a":[1]}}]}}"#,
        r#"{"type":"user","message":{"content":[5,"x",null]}}"#,
        r#"{"type":"result","subtype":5,"is_error":"true","result":5,"num_turns":"3","duration_ms":-5,"total_cost_usd":"x","usage":"u","modelUsage":[1],"errors":"e","permission_denials":{"a":1}}"#,
        r#"{"type":"result","num_turns":1e300,"duration_ms":1.8e19,"usage":{"input_tokens":-1,"output_tokens":1.5}}"#,
        r#"{"type":"result","modelUsage":{"m":5},"permission_denials":[5,{"tool_name":7,"tool_input":"x"}]}"#,
        r#"{"type":"system","subtype":5}"#,
        r#"{"type":"system","subtype":"init","tools":"x","mcp_servers":{"a":1},"agents":[1,{"name":2}]}"#,
        r#"{"type":"system","subtype":"api_retry","attempt":"one","retry_delay_ms":"soon"}"#,
        r#"{"type":"system","subtype":"compact_boundary","compact_metadata":5}"#,
        r#"{"type":"system","subtype":"task_updated","patch":"x"}"#,
        r#"{"type":"system","subtype":"hook_response","exit_code":"x","stderr":5}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":"x","delta":{"type":"text_delta","text":5}}}"#,
        r#"{"type":"rate_limit_event","rate_limit_info":5}"#,
        r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","utilization":"x"}}"#,
        r#"{"type":5}"#,
        r#"{"type":null,"session_id":5,"parent_tool_use_id":[]}"#,
        r#"{"v":1,"kind":"tool_call","input":5}"#,
        r#"{"v":"1","kind":5}"#,
    ];
    for l in lines {
        let (d, _) = dec1(l);
        assert_eq!(d, Decoded::Events, "{l}");
    }
}

#[test]
fn wrong_typed_fields_give_lenient_values() {
    // Issue 6: no usable content is kept as an unknown event, not dropped.
    for l in [
        r#"{"type":"assistant","message":{"content":5}}"#,
        r#"{"type":"assistant","message":null}"#,
        r#"{"type":"assistant"}"#,
        r#"{"type":"user","message":{"content":null}}"#,
        r#"{"type":"user","message":"str"}"#,
    ] {
        let ev = one(l);
        assert_eq!(as_unknown(&ev).raw, l);
    }
    assert!(events(r#"{"type":"assistant","message":{"content":[]}}"#).is_empty());
    let ev = one(
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Read","input":"str"}]}}"#,
    );
    let c = as_call(&ev);
    assert!(c.key_arg.is_none());
    assert_eq!(c.input, r#""str""#);
    let ev = one(r#"{"type":"result","num_turns":"3","is_error":"true","result":5}"#);
    let r = as_session_result(&ev);
    assert_eq!(r.num_turns, None);
    assert!(!r.is_error);
    assert_eq!(r.text.as_deref(), Some("5"));
    let ev = one(r#"{"type":5,"subtype":"x"}"#);
    as_unknown(&ev);
}

#[test]
fn usage_output_counts_are_preliminary_in_claudes_stream_only() {
    let line = r#"{"type":"assistant","session_id":"s","message":{"id":"m1","model":"m","content":[{"type":"text","text":"a"}],"usage":{"input_tokens":5,"output_tokens":1}}}"#;
    let usage = |producer| {
        let mut dec = Decoder::with_producer(Some(producer));
        let (_, evs) = decode_bytes(&mut dec, line.as_bytes());
        evs.iter()
            .find_map(|e| match &e.kind {
                EventKind::Usage(u) => Some(u.preliminary_output),
                _ => None,
            })
            .expect("a usage event")
    };
    assert!(
        usage(Producer::Claude),
        "Claude Code repeats message_start's count"
    );
    assert!(!usage(Producer::Qwen), "Qwen's counts are final");
    assert!(!usage(Producer::Amp), "Amp's counts are final");
}

/// What `delta::read` makes of `line`: `None` when it leaves it to the
/// parser, else the events it emits.
fn read_unparsed(line: &str) -> Option<Vec<Event<'static>>> {
    let arena = crate::json::Arena::default();
    let ctx = crate::decode::producer::Ctx {
        line: 7,
        raw: line.as_bytes(),
        producer: Producer::Claude,
        arena: &arena,
        time: None,
        skipping: false,
    };
    let mut evs = Vec::new();
    let read = super::delta::read(&ctx, &mut |ev| {
        evs.push(ev.to_owned_event());
        Ok(())
    })?;
    read.unwrap();
    Some(evs)
}

#[test]
fn token_deltas_are_read_from_their_bytes_and_the_rest_is_left_to_the_parser() {
    let delta = |head: &str, delta: &str, tail: &str| {
        format!(
            r#"{{{head}"type":"stream_event","event":{{"type":"content_block_delta","index":1,"delta":{delta}}}{tail}}}"#
        )
    };
    let text = r#"{"type":"text_delta","text":"a \"b\"\nc"}"#;
    let ids = r#","session_id":"s1","parent_tool_use_id":null,"uuid":"u1""#;
    for (line, want) in [
        // As Claude Code writes them, in both of its orders, with the key
        // 2.1.332 added.
        (delta("", text, ids), Some("a \"b\"\nc")),
        (
            delta(
                r#""uuid":"u1","session_id":"s1","parent_tool_use_id":null,"#,
                text,
                "",
            ),
            Some("a \"b\"\nc"),
        ),
        (
            delta("", text, &format!(r#"{ids},"api_message_id":"msg_01""#)),
            Some("a \"b\"\nc"),
        ),
        (
            delta(
                "",
                r#"{"type":"input_json_delta","partial_json":"{\"path\":"}"#,
                ids,
            ),
            Some("{\"path\":"),
        ),
        (
            delta("", r#"{"type":"thinking_delta","thinking":"hm"}"#, ids),
            Some("hm"),
        ),
        (delta("", r#"{"type":"text_delta"}"#, ids), Some("")),
        // A signature: read, nothing shown.
        (
            delta("", r#"{"type":"signature_delta","signature":"x"}"#, ids),
            None,
        ),
    ] {
        let evs = read_unparsed(&line).unwrap_or_else(|| panic!("read: {line}"));
        let texts: Vec<_> = evs
            .iter()
            .map(|e| match &e.kind {
                EventKind::Delta(d) => d.text.to_string(),
                k => panic!("{k:?}"),
            })
            .collect();
        assert_eq!(texts, want.into_iter().collect::<Vec<_>>(), "{line}");
        // The same events as the line parsed (after a header: Claude's).
        let mut dec = Decoder::new().read_unparsed(false);
        decode_bytes(
            &mut dec,
            br#"{"type":"system","subtype":"init","session_id":"s0"}"#,
        );
        let (_, parsed) = decode_line(
            &mut dec,
            &Line {
                number: 7,
                bytes: line.as_bytes(),
                partial: false,
            },
        );
        assert_eq!(format!("{evs:?}"), format!("{parsed:?}"), "{line}");
    }
    for line in [
        // A time, a key twice, an object or array it does not know, a
        // `\u` escape, spaces, another event, a number it does not read.
        delta("", text, r#","timestamp":"2026-11-28T00:00:00Z""#),
        delta("", text, r#","timestamp_ms":1"#),
        delta(r#""session_id":"s0","#, text, ids),
        delta("", text, r#","extra":{"a":1}"#),
        delta("", text, r#","extra":[1]"#),
        delta("", r#"{"type":"text_delta","text":"\u00e9"}"#, ids),
        delta("", r#"{"type":"text_delta","text": "x"}"#, ids),
        delta("", r#"{"type":"text_delta","text":"x","text":"y"}"#, ids),
        delta("", r#"{"type":7,"text":"x"}"#, ids),
        delta("", text, r#","n":1.5"#),
        delta("", text, ids).replace("content_block_delta", "content_block_stop"),
        delta("", text, ids).replace(r#""index":1"#, r#""index":1.0"#),
        delta("", text, ids).replace("stream_event", "assistant"),
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":1},"session_id":"s"}"#
            .to_owned(),
        r#"{"type":"stream_event","event":"content_block_delta"}"#.to_owned(),
        format!("{} ", delta("", text, ids)),
    ] {
        assert!(read_unparsed(&line).is_none(), "left to the parser: {line}");
    }
}
