//! Gemini CLI session files: the records replayed (upsert by id, `$set`,
//! `$rewindTo`), tokens, results, and hostile records. The corpus pairs are
//! compared with their streams in `tests/producer_gemini_session.rs`.

use crate::decode::testing::*;

const HEADER: &str = r#"{"sessionId":"s1","projectHash":"ab","startTime":"2026-11-26T16:45:12.256Z","lastUpdated":"2026-11-26T16:45:12.256Z","kind":"main"}"#;
const PROMPT: &str = r#"{"id":"u1","timestamp":"2026-11-26T16:45:12.300Z","type":"user","content":[{"text":"hello"}]}"#;
const TURN: &str = r#"{"id":"g1","timestamp":"2026-11-26T16:45:12.400Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":900,"output":27,"cached":100,"thoughts":5,"tool":0,"total":932},"model":"gemini-2.5-pro"}"#;
const TURN_WITH_CALL: &str = r#"{"id":"g1","timestamp":"2026-11-26T16:45:12.400Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":900,"output":27,"cached":100,"thoughts":5,"tool":0,"total":932},"model":"gemini-2.5-pro","toolCalls":[{"id":"c1","name":"read_file","args":{"file_path":"/w/a.txt"},"result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"alpha"}}}],"status":"success"}]}"#;
const ANSWER: &str = r#"{"id":"g2","timestamp":"2026-11-26T16:45:13.400Z","type":"gemini","content":"Done.","thoughts":[{"subject":"","description":"**Think"},{"subject":"","description":"ing**"}],"tokens":{"input":1000,"output":3,"cached":0},"model":"gemini-2.5-pro"}"#;

#[test]
fn nothing_is_written_before_the_end_then_the_final_state_in_order() {
    let mut dec = Decoder::new();
    for l in [HEADER, PROMPT, TURN, TURN_WITH_CALL, ANSWER] {
        assert!(decode_bytes(&mut dec, l.as_bytes()).1.is_empty());
    }
    let evs = replay(&[HEADER, PROMPT, TURN, TURN_WITH_CALL, ANSWER]);
    assert_eq!(
        kinds(&evs),
        [
            "session_start",
            "text",
            "usage",
            "tool_call",
            "tool_result",
            "thinking",
            "usage",
            "text",
            "result"
        ]
    );
    assert!(evs.iter().all(|e| e.producer == Producer::GeminiSession));
    assert!(evs.iter().all(|e| e.session.as_deref() == Some("s1")));
    let call = as_call(&evs[3]);
    assert_eq!(call.key_arg.as_deref(), Some("/w/a.txt"));
    assert_eq!(as_result(&evs[4]).content.text(), "alpha");
    let EventKind::Thinking(t) = &evs[5].kind else {
        panic!()
    };
    assert_eq!(t.text, "**Thinking**");
    let r = as_session_result(evs.last().unwrap());
    assert_eq!(r.num_turns, Some(2));
    assert_eq!(r.duration_ms, Some(1100));
    assert_eq!(r.text.as_deref(), Some("Done."));
    // `input` is the whole prompt: its cached part is not counted twice.
    assert_eq!(r.tokens.input, Some(800 + 1000));
    assert_eq!(r.tokens.cache_read, Some(100));
    assert_eq!(r.tokens.output, Some(30));
}

#[test]
fn set_messages_replaces_the_list_and_rewind_drops_the_rest() {
    let set = r#"{"$set":{"messages":[{"id":"u0","timestamp":"2026-11-26T16:45:12.257Z","type":"user","content":[{"text":"<session_context>\nToday"}]}]}}"#;
    let evs = replay(&[HEADER, PROMPT, TURN, set, ANSWER]);
    assert_eq!(
        kinds(&evs),
        [
            "session_start",
            "notice",
            "thinking",
            "usage",
            "text",
            "result"
        ]
    );
    let evs = replay(&[HEADER, PROMPT, TURN, ANSWER, r#"{"$rewindTo":"g1"}"#]);
    assert_eq!(kinds(&evs), ["session_start", "text", "notice"]);
    let EventKind::Notice(n) = &evs[2].kind else {
        panic!()
    };
    assert_eq!(n.subtype, "no_answer");
    // A rewind to an id never seen drops nothing.
    let evs = replay(&[HEADER, PROMPT, ANSWER, r#"{"$rewindTo":"zz"}"#]);
    assert_eq!(kinds(&evs).last(), Some(&"result"));
}

#[test]
fn the_header_is_detected_and_opens_a_second_session() {
    let other = HEADER.replace("s1", "s2");
    let evs = replay(&[HEADER, PROMPT, ANSWER, &other, PROMPT, ANSWER]);
    let starts: Vec<_> = evs
        .iter()
        .filter(|e| matches!(e.kind, EventKind::SessionStart(_)))
        .map(|e| e.session.as_deref().unwrap().to_string())
        .collect();
    assert_eq!(starts, ["s1", "s2"]);
}

#[test]
fn hostile_records_give_events_not_panics() {
    for l in [
        r#"{"id":5,"type":"gemini"}"#,
        r#"{"id":"x","type":"gemini","toolCalls":[{"name":7},{"result":"no"},null],"tokens":"many","thoughts":[1,{"description":2}]}"#,
        r#"{"id":"x","type":"user","content":{"text":"?"}}"#,
        r#"{"id":"x","type":"strange"}"#,
        r#"{"$set":{"messages":"no"}}"#,
        r#"{"$set":{"messages":[1,null,{"id":"y","type":"gemini","content":"\u001b[31mred"}]}}"#,
        r#"{"$rewindTo":["a"]}"#,
        r#"{"sessionId":7,"projectHash":null,"messages":{}}"#,
    ] {
        let _ = replay(&[HEADER, l]);
    }
    let evs = replay(&[HEADER, r#"{"id":"x","type":"strange"}"#]);
    assert!(kinds(&evs).contains(&"unknown"));
}
