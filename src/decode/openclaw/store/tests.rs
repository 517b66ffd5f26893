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
    let want = format!(r#""store":"{}","#, super::super::STORE);
    assert_eq!(MARK, want.as_bytes());
}
