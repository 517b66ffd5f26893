use super::*;

#[test]
fn a_store_is_known_by_its_name() {
    for (name, cli) in [
        ("opencode.db", Some(Cli::OpenCode)),
        ("opencode-beta.db", Some(Cli::OpenCode)),
        ("kilo.db", Some(Cli::Kilo)),
        ("crush.db", None),
        ("crush.db-wal", None),
        ("opencode.db-wal", None),
        ("opencodex.db", None),
        ("sessions.db", None),
        ("kilo.jsonl", None),
    ] {
        let path = Path::new(name);
        assert_eq!(Cli::of(path), cli, "{name}");
        assert_eq!(Cli::OpenCode.is_store(path), cli == Some(Cli::OpenCode));
        assert_eq!(Cli::Kilo.is_store(path), cli == Some(Cli::Kilo));
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
