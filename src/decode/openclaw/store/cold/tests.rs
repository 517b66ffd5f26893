use super::*;

/// Records as `OpenClaw` writes them: a header, then events among other
/// records.
fn archive(entries: &[&str]) -> Vec<u8> {
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
    records(archive(&[header, message]).as_slice(), &mut out).unwrap();
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
    let whole = archive(&refs);
    let mut out = Vec::new();
    let e = records(&whole[..whole.len() / 2], &mut out);
    assert!(e.is_err(), "a cut frame is an error");
    assert!(!out.is_empty(), "what came before the cut is written");
    assert!(records(&b"not zstd at all"[..], &mut Vec::new()).is_err());
}

#[test]
fn an_archive_is_named_by_its_hash_in_its_agents_cold_folder() {
    let hex = "ab".repeat(32);
    let name = format!("{hex}.jsonl.zst");
    let store = Path::new("/h/.openclaw/agents/main/agent/openclaw-agent.sqlite");
    assert_eq!(
        file(store, &name).unwrap(),
        Path::new("/h/.openclaw/agents/main/sessions/cold").join(&name)
    );
    let elsewhere = Path::new("/d/shared.sqlite");
    assert_eq!(
        file(elsewhere, &name).unwrap(),
        Path::new("/d/cold").join(&name)
    );
    for bad in [
        "../x.jsonl.zst",
        "ab.jsonl.zst",
        &format!("{}.jsonl.zst", "AB".repeat(32)),
        &format!("../{name}"),
    ] {
        assert!(file(store, bad).is_err(), "{bad}");
    }
    let kept = Path::new("/h/.openclaw/agents/main/sessions/cold").join(&name);
    assert!(is_archive(&kept));
    assert!(!is_archive(Path::new(
        "/h/.openclaw/agents/main/sessions/a.jsonl"
    )));
    assert!(!is_archive(Path::new("/h/elsewhere/cold/a.jsonl.zst")));
}
