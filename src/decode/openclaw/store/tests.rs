use super::*;
use crate::input::library::is_session_file;
use crate::input::store::Readers;

#[test]
fn an_openclaw_session_file_is_known_by_its_place() {
    for (path, is) in [
        ("/h/.openclaw/agents/main/sessions/a.jsonl", true),
        (
            "/h/.openclaw/agents/ops/sessions/a.jsonl.reset.2026-12-02T04-40-00.000Z",
            true,
        ),
        (
            "/h/.openclaw/agents/main/sessions/a.jsonl.deleted.1796186328",
            true,
        ),
        ("/h/.openclaw/agents/main/sessions/.jsonl.reset.1", false),
        ("/h/.openclaw/agents/main/sessions/a.json", false),
        ("/h/.openclaw/agents/main/other/a.jsonl", false),
        ("/h/.pi/agent/sessions/a.jsonl", false),
        (
            "/h/.openclaw/agents/main/sessions/a.trajectory.jsonl",
            false,
        ),
    ] {
        assert_eq!(is_session(Path::new(path)), is, "{path}");
        assert_eq!(OpenClaw.marks(Path::new(path)), is, "{path}");
    }
    assert!(OpenClaw.is_store(Path::new("openclaw-agent.sqlite")));
    assert!(!OpenClaw.is_store(Path::new("state.db")));
    // Its runtime traces beside the sessions are no session; a session
    // kept after a delete is one, compressed too.
    let readers = Readers(&[&OpenClaw]);
    let trace = Path::new("/h/.openclaw/agents/main/sessions/a.trajectory.jsonl");
    assert!(!is_session_file(trace, readers));
    assert!(is_session_file(trace, Readers::NONE), "a name as others");
    let kept =
        Path::new("/h/.openclaw/agents/main/sessions/a.jsonl.deleted.2026-12-02T04-40-00.000Z.zst");
    assert!(is_session_file(kept, readers));
    assert!(!is_session_file(kept, Readers::NONE));
}

#[test]
fn a_header_is_marked_and_no_other_line() {
    let path = Path::new("/h/.openclaw/agents/main/sessions/a.jsonl");
    let mut head = br#"{"type":"session","version":4,"id":"s"}"#.to_vec();
    Readers(&[&OpenClaw]).mark_head(path, &mut head);
    assert_eq!(
        head,
        br#"{"store":"openclaw","type":"session","version":4,"id":"s"}"#
    );
    let mut other = br#"{"type":"message","id":"m"}"#.to_vec();
    OpenClaw.mark_head(path, &mut other);
    assert_eq!(other, br#"{"type":"message","id":"m"}"#);
    // Elsewhere, the same header is Pi's.
    let mut pi = br#"{"type":"session","version":4,"id":"s"}"#.to_vec();
    Readers(&[&OpenClaw]).mark_head(Path::new("/h/.pi/agent/sessions/a.jsonl"), &mut pi);
    assert_eq!(pi, br#"{"type":"session","version":4,"id":"s"}"#);
}

#[test]
fn an_openclaw_sessions_entries_are_its_lines_the_header_marked() {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(
        "CREATE TABLE transcript_events (session_id TEXT, seq INTEGER, event_json TEXT, \
         created_at INTEGER, event_zstd BLOB)",
    )
    .unwrap();
    let put = |seq: i64, json: Option<&str>, zstd: Option<Vec<u8>>| {
        db.execute(
            "INSERT INTO transcript_events VALUES ('s', ?1, ?2, ?3, ?4)",
            params![seq, json, 1_796_186_325_936_i64 + seq, zstd],
        )
        .unwrap();
    };
    put(
        0,
        Some(r#"{"type":"session","version":4,"id":"s","cwd":"/w"}"#),
        None,
    );
    let big = r#"{"type":"message","id":"m","message":{"role":"user","content":"hi"}}"#;
    put(1, None, Some(zstd::encode_all(big.as_bytes(), 3).unwrap()));
    put(2, Some("not json"), None);
    put(3, None, Some(b"not zstd".to_vec()));
    let mut out = Vec::new();
    lines(&db, "s", &mut out).unwrap();
    let lines = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"store":"openclaw","type":"session","version":4,"id":"s","cwd":"/w"}"#
    );
    assert_eq!(lines[1], big, "a compressed entry, decompressed");
    for (line, id) in [(lines[2], "2"), (lines[3], "3")] {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["type"], "unreadable");
        assert_eq!(v["id"], id);
    }
    let listed = sessions(&db).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, "s");
    let e = super::lines(&db, "nope", &mut Vec::new()).unwrap_err();
    assert_eq!(e.to_string(), "no such session");
}

#[test]
fn the_mark_is_what_the_decoder_looks_for() {
    let want = format!(r#""store":"{STORE}","#);
    assert_eq!(MARK, want.as_bytes());
}

/// Records as `OpenClaw` writes them: a header, then events among other
/// records.
fn cold_archive(entries: &[&str]) -> Vec<u8> {
    let mut text =
        String::from(r#"{"kind":"header","version":1,"sessionId":"s","generation":"g"}"#);
    text.push('\n');
    for (seq, e) in entries.iter().enumerate() {
        let event = serde_json::json!({"kind": "event", "row": {"seq": seq, "event_json": e, "created_at": 1}});
        text.push_str(&event.to_string());
        text.push('\n');
        text.push_str(r#"{"kind":"active","row":{"active_position":0,"event_seq":0,"message_position":null,"context_eligible":1}}"#);
        text.push('\n');
    }
    zstd::encode_all(text.as_bytes(), 3).unwrap()
}

#[test]
fn the_events_are_the_entries_and_nothing_else_is() {
    let header = r#"{"type":"session","version":4,"id":"s"}"#;
    let message =
        r#"{"type":"message","id":"m","message":{"role":"user","content":"a \"quoted\"\nline"}}"#;
    let mut out = Vec::new();
    read_cold(cold_archive(&[header, message]), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(
        lines[0],
        r#"{"store":"openclaw","type":"session","version":4,"id":"s"}"#
    );
    assert_eq!(lines[1], message);
}

#[test]
fn a_cut_or_foreign_archive_is_an_error_after_what_it_held() {
    let entries: Vec<String> = (0..2000)
        .map(|i| {
            format!(
                r#"{{"type":"message","id":"m{i}","message":{{"role":"user","content":"{}"}}}}"#,
                "x".repeat(i % 97)
            )
        })
        .collect();
    let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
    let whole = cold_archive(&refs);
    let mut out = Vec::new();
    let e = read_cold(whole[..whole.len() / 2].to_vec(), &mut out);
    assert!(e.is_err(), "a cut frame is an error");
    assert!(!out.is_empty(), "what came before the cut is written");
    assert!(read_cold(b"not zstd at all".to_vec(), &mut Vec::new()).is_err());
}

/// A cold archive's lines, as a session of the store gives them.
fn read_cold(archive: Vec<u8>, out: &mut Vec<u8>) -> io::Result<()> {
    match cold::records(io::Cursor::new(archive)) {
        cold::Archive::Records(r) => entries(r, out, cold::event),
        _ => Err(bad("not zstd")),
    }
}

#[test]
fn a_cold_archives_file_is_no_session_of_its_own() {
    let name = format!("{}.jsonl.zst", "ab".repeat(32));
    let kept = Path::new("/h/.openclaw/agents/main/sessions/cold").join(&name);
    assert!(OpenClaw.no_session(&kept, "x.jsonl"));
    assert!(is_session_file(&kept, Readers::NONE), "a name as others");
    assert!(!is_session_file(&kept, Readers(&[&OpenClaw])));
    for other in [
        "/h/.openclaw/agents/main/sessions/a.jsonl",
        "/h/elsewhere/cold/a.jsonl.zst",
    ] {
        assert!(!OpenClaw.no_session(Path::new(other), "a.jsonl"), "{other}");
    }
}
