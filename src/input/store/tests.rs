use super::*;

#[test]
fn a_store_is_known_by_its_name() {
    for (name, cli) in [
        ("opencode.db", Some(Cli::OpenCode)),
        ("opencode-beta.db", Some(Cli::OpenCode)),
        ("kilo.db", Some(Cli::Kilo)),
        ("opencode.db-wal", None),
        ("opencodex.db", None),
        ("sessions.db", None),
        ("kilo.jsonl", None),
    ] {
        assert_eq!(Cli::of(Path::new(name)), cli, "{name}");
    }
}

#[test]
fn each_cli_names_a_parts_ids_in_its_own_order() {
    let data: Map<String, Value> =
        serde_json::from_str(r#"{"type":"step-start","id":"old"}"#).unwrap();
    let ids = ["prt_1", "msg_1", "ses_1"];
    assert_eq!(
        Cli::OpenCode.part(ids, &data),
        r#"{"id":"prt_1","messageID":"msg_1","sessionID":"ses_1","type":"step-start"}"#
    );
    assert_eq!(
        Cli::Kilo.part(ids, &data),
        r#"{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"step-start"}"#
    );
    assert_eq!(
        Cli::Kilo.part(ids, &Map::new()),
        r#"{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1"}"#
    );
}

#[test]
fn roots_are_found_in_linear_time_circles_included() {
    // A chain of 100,000 sub-agents under "0", and a circle of three.
    let n = 100_000;
    let names: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let mut parent: HashMap<&str, &str> = HashMap::new();
    for i in 1..n {
        parent.insert(&names[i], &names[i - 1]);
    }
    parent.insert("x", "z");
    parent.insert("y", "x");
    parent.insert("z", "y");
    parent.insert("lost", "gone");
    let mut ids: HashSet<&str> = names.iter().map(String::as_str).collect();
    ids.extend(["x", "y", "z", "lost"]);
    let mut roots = HashMap::new();
    let started = std::time::Instant::now();
    for id in names.iter().rev().map(String::as_str).chain(["y", "lost"]) {
        root_of(id, &parent, &ids, &mut roots);
    }
    assert!(started.elapsed().as_secs() < 10);
    assert!(names.iter().all(|n| roots[n.as_str()] == "0"));
    assert_eq!([roots["x"], roots["y"], roots["z"]], ["x"; 3]);
    assert_eq!(roots["lost"], "lost");
}

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
    ] {
        assert_eq!(
            crate::input::marks::is_openclaw_session(Path::new(path)),
            is,
            "{path}"
        );
    }
    assert_eq!(
        Cli::of(Path::new("openclaw-agent.sqlite")),
        Some(Cli::OpenClaw)
    );
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
    let lines = String::from_utf8(openclaw::lines(&db, "s").unwrap()).unwrap();
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"store":"openclaw","type":"session","version":4,"id":"s","cwd":"/w"}"#
    );
    assert_eq!(lines[1], big, "a compressed entry, decompressed");
    for (line, id) in [(lines[2], "2"), (lines[3], "3")] {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["type"], "unreadable");
        assert_eq!(v["id"], id);
    }
    let listed = openclaw::sessions(&db).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, "s");
    assert!(matches!(
        openclaw::lines(&db, "nope"),
        Err(rusqlite::Error::QueryReturnedNoRows)
    ));
}
