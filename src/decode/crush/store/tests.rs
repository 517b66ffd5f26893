use super::*;

/// A temporary folder of this test's own.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sv-store-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_store_is_known_by_its_name() {
    for (name, is) in [
        ("crush.db", true),
        ("crush.db-wal", false),
        ("opencode.db", false),
        ("projects.json", false),
    ] {
        assert_eq!(Crush.is_store(Path::new(name)), is, "{name}");
    }
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
    let listed = Crush.sessions(&path).unwrap();
    let at = |s: i64| Timestamp::from_millis(s * 1000);
    // Circles of parents: the first of them, once.
    let ids: Vec<&str> = listed.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["s", "ms", "x"]);
    assert_eq!(listed[0].began, at(1_764_590_400));
    // Dated by its sub-agent's row too.
    assert_eq!(listed[0].updated, at(1_764_590_499));
    assert_eq!(listed[1].began, at(1_764_590_405));
    assert_eq!(listed[1].updated, at(1_764_590_420));
    let mut out = Vec::new();
    Crush.lines(&path, "s", &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
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
    let missing = Crush.lines(&path, "nope", &mut Vec::new()).unwrap_err();
    assert_eq!(missing.to_string(), "no such session");
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
        Crush.listed(&list),
        Some(vec![
            home.join("a/.crush/crush.db"),
            home.join("b/data/crush.db")
        ])
    );
    std::fs::write(&list, b"[1, 2]").unwrap();
    assert_eq!(Crush.listed(&list), None, "not the shape");
    let other = home.join("other.json");
    std::fs::write(&other, doc.to_string()).unwrap();
    assert_eq!(Crush.listed(&other), None, "not the name");
    std::fs::remove_dir_all(&home).unwrap();
}
