//! Kimi CLI's stream: the real captures of 1.51.0 (`tests/fixtures/kimi/`)
//! and small inline lines, through the decoder.

use crate::decode::testing::{
    Decoder, Event, EventKind, Line, Producer, as_call, as_notice, as_result, as_session_result,
    decode_line, replay,
};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/kimi/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Every event of `text`, read as `from` (detected: `None`), its end too.
fn read(text: &str, from: Option<Producer>) -> Vec<Event<'static>> {
    let mut dec = Decoder::with_producer(from);
    let mut evs = Vec::new();
    for (l, number) in text.lines().zip(1..) {
        let line = Line {
            number,
            bytes: l.as_bytes(),
            partial: false,
        };
        evs.extend(decode_line(&mut dec, &line).1);
    }
    dec.finish(&mut |ev: &Event<'_>| {
        evs.push(ev.to_owned_event());
        Ok(())
    })
    .unwrap();
    evs
}

fn calls(evs: &[Event<'static>]) -> Vec<(String, String)> {
    evs.iter()
        .filter(|e| matches!(e.kind, EventKind::ToolCall(_)))
        .map(|e| {
            let c = as_call(e);
            (
                c.name.to_string(),
                c.key_arg.as_deref().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn results(evs: &[Event<'static>]) -> Vec<(bool, String)> {
    evs.iter()
        .filter(|e| matches!(e.kind, EventKind::ToolResult(_)))
        .map(|e| {
            let r = as_result(e);
            (r.is_error, r.content.text().to_string())
        })
        .collect()
}

fn the_result<'e>(evs: &'e [Event<'static>]) -> &'e crate::event::SessionResult<'static> {
    let r = evs
        .iter()
        .rev()
        .find(|e| matches!(e.kind, EventKind::Result(_)));
    as_session_result(r.expect("a result"))
}

#[test]
fn a_run_is_detected_and_ends_with_its_answer() {
    let evs = read(&fixture("mixed"), None);
    assert!(evs.iter().all(|e| e.producer == Producer::Kimi), "{evs:?}");
    assert!(matches!(evs[0].kind, EventKind::SessionStart(_)));
    assert!(
        matches!(&evs[1].kind, EventKind::Thinking(t) if t.text == "Plan: list, write, verify.")
    );
    assert_eq!(
        calls(&evs),
        [
            ("Shell".into(), "ls -la".into()),
            (
                "WriteFile".into(),
                "/home/dev/work/mixed/ws/hello.txt".into()
            ),
            ("Shell".into(), "cat hello.txt && cat missing.txt".into()),
        ]
    );
    let failed: Vec<bool> = results(&evs).iter().map(|r| r.0).collect();
    assert_eq!(failed, [false, false, true]);
    assert_eq!(
        results(&evs)[2].1,
        "Command failed with exit code: 1.\nHello\ncat: missing.txt: No such file or directory\n"
    );
    assert_eq!(
        results(&evs)[1].1,
        "File successfully overwritten. Current size: 6 bytes."
    );
    let r = the_result(&evs);
    assert!(!r.is_error);
    assert_eq!(r.num_turns, Some(4));
    assert_eq!(
        r.text.as_deref(),
        Some("Created `hello.txt`; `missing.txt` does not exist.")
    );
    assert!(!evs.iter().any(|e| matches!(e.kind, EventKind::Unknown(_))));
}

#[test]
fn every_tool_with_its_key_and_failure() {
    let evs = read(&fixture("files"), None);
    let w = "/home/dev/work/files/ws";
    assert_eq!(
        calls(&evs),
        [
            ("WriteFile".into(), format!("{w}/notes.txt")),
            ("ReadFile".into(), format!("{w}/notes.txt")),
            ("StrReplaceFile".into(), format!("{w}/notes.txt")),
            ("Glob".into(), format!("**/*.txt in {w}")),
            ("Grep".into(), format!("BETA in {w}")),
            ("Shell".into(), format!("ls -la {w}")),
        ]
    );
    let failed: Vec<bool> = results(&evs).iter().map(|r| r.0).collect();
    assert_eq!(failed, [false, false, false, true, false, false]);
    let edit = evs.iter().find_map(|e| match &e.kind {
        EventKind::ToolCall(c) if c.name == "StrReplaceFile" => Some(c.changes.len()),
        _ => None,
    });
    assert_eq!(edit, Some(1));
    let todos = read(&fixture("todos"), None);
    let first = todos.iter().find_map(|e| match &e.kind {
        EventKind::ToolCall(c) if c.name == "SetTodoList" => Some(c.clone()),
        _ => None,
    });
    let first = first.unwrap();
    assert_eq!(first.key_arg.as_deref(), Some("2 items"));
    assert_eq!(first.todos[0].content, "Inspect files");
    assert_eq!(first.todos[0].status, "in_progress");
    let errors = read(&fixture("tool_error"), None);
    assert_eq!(
        results(&errors)[1],
        (true, "Tool `no_such_tool` not found".to_string())
    );
}

#[test]
fn a_call_whose_arguments_were_cut_short_keeps_their_whole_members() {
    let evs = read(&fixture("parallel"), None);
    assert_eq!(
        calls(&evs),
        [
            ("Shell".into(), "echo one".into()),
            ("Shell".into(), "echo two".into()),
        ]
    );
    assert!(!the_result(&evs).is_error);
}

#[test]
fn a_failed_request_printed_as_text_fails_the_session_once() {
    let text = fixture("error_400");
    // Detected, there is nothing to tell whose text it is.
    let evs = read(&text, None);
    assert!(
        evs.iter()
            .all(|e| matches!(e.kind, EventKind::PlainText(_)))
    );
    let evs = read(&text, Some(Producer::Kimi));
    let notices: Vec<_> = evs
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Notice(_)))
        .collect();
    assert_eq!(notices.len(), 1, "{evs:?}");
    // The line Kimi's console wrapped at 80 columns is whole again.
    assert_eq!(
        as_notice(notices[0]).text,
        "Error code: 400 - {'error': {'message': 'mock: invalid request (context too long)', \
         'type': 'invalid_request_error', 'code': 'context_length_exceeded'}}"
    );
    let r = the_result(&evs);
    assert!(r.is_error);
    assert_eq!(r.api_error_status, Some(400));
    assert!(
        !evs.iter()
            .any(|e| matches!(e.kind, EventKind::PlainText(_)))
    );
    let r = read(&fixture("stream_error"), Some(Producer::Kimi));
    assert_eq!(the_result(&r).text.as_deref(), Some("Connection error."));
}

#[test]
fn a_run_stopped_with_calls_pending_has_no_result() {
    let lines = fixture("shell_ok");
    let cut: Vec<&str> = lines.lines().take(2).collect();
    let evs = replay(&cut);
    assert!(!evs.iter().any(|e| matches!(e.kind, EventKind::Result(_))));
}

#[test]
fn its_saved_context_reads_as_the_stream() {
    let evs = replay(&[
        r#"{"role": "_system_prompt", "content": "You are Kimi."}"#,
        r#"{"role": "_checkpoint", "id": 0}"#,
        r#"{"role":"user","content":"hi"}"#,
        r#"{"role": "_usage", "token_count": 1000}"#,
        r#"{"role":"assistant","content":"Hello."}"#,
    ]);
    assert!(evs.iter().all(|e| e.producer == Producer::Kimi), "{evs:?}");
    let kinds: Vec<_> = evs.iter().map(|e| e.kind.name()).collect();
    assert_eq!(kinds, ["session_start", "text", "text", "result"]);
}
