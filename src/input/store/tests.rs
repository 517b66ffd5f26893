use super::*;

#[test]
fn a_store_is_known_by_its_name() {
    for (name, cli) in [
        ("opencode.db", Some(Cli::OpenCode)),
        ("opencode-beta.db", Some(Cli::OpenCode)),
        ("kilo.db", Some(Cli::Kilo)),
        ("crush.db", Some(Cli::Crush)),
        ("crush.db-wal", None),
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
        (
            "/h/.openclaw/agents/main/sessions/a.trajectory.jsonl",
            false,
        ),
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
    // Its runtime traces beside the sessions are no session.
    let trace = Path::new("/h/.openclaw/agents/main/sessions/a.trajectory.jsonl");
    assert!(!crate::input::library::is_session_file(trace));
    assert!(crate::input::library::is_session_file(Path::new(
        "/h/.openclaw/agents/main/sessions/a.jsonl.deleted.2026-12-02T04-40-00.000Z.zst"
    )));
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

/// A temporary folder of this test's own.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sv-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn crush_times_are_seconds_or_milliseconds_and_sub_agents_no_sessions() {
    let dir = scratch("crush").join("p/.crush");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("crush.db");
    let db = Connection::open(&path).unwrap();
    db.execute_batch(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT,
           prompt_tokens INTEGER, completion_tokens INTEGER, cost REAL, updated_at INTEGER,
           created_at INTEGER, todos TEXT);
         CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, parts TEXT,
           model TEXT, created_at INTEGER);
         INSERT INTO sessions VALUES ('s', NULL, 't', 1, 2, 0.5, 1764590410, 1764590400, '[]');
         INSERT INTO sessions VALUES ('ms', '', 't', 1, 2, 0.5, 1764590420000, 1764590405000, NULL);
         INSERT INTO sessions VALUES ('m1$$c1', 's', 't', 1, 2, 0.5, 1764590499, 1764590401, NULL);
         INSERT INTO sessions VALUES ('x', 'y', 't', 0, 0, 0, 1, 1, NULL);
         INSERT INTO sessions VALUES ('y', 'x', 't', 0, 0, 0, 2, 2, NULL);
         INSERT INTO messages VALUES ('m1', 's', 'assistant',
           '[{\"type\":\"tool_call\",\"data\":{\"id\":\"c1\",\"name\":\"agent\"}}]', 'big', 1764590401);
         INSERT INTO messages VALUES ('m2', 'm1$$c1', 'assistant', 'not json', 'small', 1764590402);",
    )
    .unwrap();
    drop(db);
    let listed = sessions(&path).unwrap();
    let at = |s: i64| Timestamp::from_millis(s * 1000);
    // Circles of parents: the first of them, once.
    let ids: Vec<&str> = listed.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["s", "ms", "x"]);
    assert_eq!(listed[0].began, at(1_764_590_400));
    // Dated by its sub-agent's row too.
    assert_eq!(listed[0].updated, at(1_764_590_499));
    assert_eq!(listed[1].began, at(1_764_590_405));
    assert_eq!(listed[1].updated, at(1_764_590_420));
    let text = String::from_utf8(lines(&path, "s").unwrap()).unwrap();
    let kinds: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ty = |i: usize| kinds[i]["type"].as_str().unwrap().to_string();
    assert_eq!(
        [ty(0), ty(1), ty(2), ty(3)],
        [
            "crush_session",
            "crush_message",
            "crush_subagent",
            "crush_message"
        ]
    );
    assert_eq!(kinds.len(), 4);
    assert_eq!(kinds[0]["timestamp"], 1_764_590_400_000_i64);
    assert_eq!(kinds[0]["cwd"], dir.parent().unwrap().display().to_string());
    assert_eq!(kinds[0]["model"], "big");
    assert!(kinds[0].get("todos").is_none());
    assert_eq!(kinds[2]["call"], "c1");
    assert_eq!(kinds[3]["call"], "c1");
    assert_eq!(kinds[3]["parts"], "not json", "left as text");
    assert!(lines(&path, "nope").is_err());
    std::fs::remove_dir_all(dir.parent().unwrap().parent().unwrap()).unwrap();
}

#[test]
fn crush_projects_json_lists_the_stores_that_are_there() {
    let home = scratch("projects");
    for p in ["a/.crush", "b/data"] {
        std::fs::create_dir_all(home.join(p)).unwrap();
        std::fs::write(home.join(p).join("crush.db"), b"").unwrap();
    }
    let list = home.join("projects.json");
    let doc = serde_json::json!({"projects": [
        {"path": home.join("a"), "data_dir": home.join("a/.crush"), "last_accessed": "2025-12-01T12:00:00Z"},
        {"path": home.join("b"), "data_dir": "data"},
        {"path": home.join("gone"), "data_dir": home.join("gone/.crush")},
        {"path": 7},
        "x"
    ]});
    std::fs::write(&list, doc.to_string()).unwrap();
    assert_eq!(
        listed(&list),
        Some(vec![
            home.join("a/.crush/crush.db"),
            home.join("b/data/crush.db")
        ])
    );
    std::fs::write(&list, b"[1, 2]").unwrap();
    assert_eq!(listed(&list), None, "not the shape");
    let other = home.join("other.json");
    std::fs::write(&other, doc.to_string()).unwrap();
    assert_eq!(listed(&other), None, "not the name");
    std::fs::remove_dir_all(&home).unwrap();
}
