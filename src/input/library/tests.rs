use std::io::{Read, Write};

use super::*;

/// A fresh directory for one test.
fn tree(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("streamview-library-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn line(ts: &str) -> String {
    format!("{{\"type\":\"user\",\"timestamp\":\"{ts}\"}}\n")
}

fn names(found: &Found, root: &Path) -> Vec<String> {
    let name = |f: &Path| f.strip_prefix(root).unwrap().display().to_string();
    found
        .sessions
        .iter()
        .map(|s| {
            let mut n = name(&s.file);
            for a in &s.subagents {
                n.push_str(" + ");
                n.push_str(&name(a));
            }
            n
        })
        .collect()
}

#[test]
fn sessions_in_start_order_sub_agents_after_their_session() {
    let root = tree("order");
    let p = root.join("-home-u-proj");
    write(&p.join("a.jsonl"), &line("2026-11-20T10:00:00.500Z"));
    write(
        &p.join("a/subagents/agent-2.jsonl"),
        &line("2026-11-20T10:00:09Z"),
    );
    write(
        &p.join("a/subagents/agent-1.jsonl"),
        &line("2026-11-20T10:00:03.1Z"),
    );
    // Earlier, though its first line has no time: the first one found.
    write(
        &p.join("b.jsonl"),
        &format!("{{\"type\":\"summary\"}}\n{}", line("2026-11-20T09:00:00Z")),
    );
    // Compressed, in a deeper folder, earliest of all.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(line("2026-11-19T23:59:59.999Z").as_bytes())
        .unwrap();
    fs::create_dir_all(root.join("old")).unwrap();
    fs::write(root.join("old/c.jsonl.gz"), gz.finish().unwrap()).unwrap();
    // Not sessions: left alone, counted.
    write(&root.join("notes.txt"), "hello\n");
    write(&p.join("a/tool-results/x.json"), "{}\n");
    let found = sessions_below(&root, Readers::NONE);
    assert_eq!(
        names(&found, &root),
        [
            "old/c.jsonl.gz",
            "-home-u-proj/b.jsonl",
            "-home-u-proj/a.jsonl + -home-u-proj/a/subagents/agent-1.jsonl + \
             -home-u-proj/a/subagents/agent-2.jsonl",
        ]
    );
    assert_eq!(found.other_files, 2);
    assert!(found.unreadable.is_empty());
    // Read as one input, a line break between files that lack one.
    let a = &found.sessions[2];
    fs::write(&a.file, line("2026-11-20T10:00:00.500Z").trim_end()).unwrap();
    let mut text = String::new();
    a.open(Readers::NONE)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines.iter().all(|l| l.starts_with('{') && l.ends_with('}')),
        "{text}"
    );
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_file_without_a_time_sorts_by_its_modification_time() {
    let root = tree("mtime");
    // A stream with no timestamps (Claude's stream-json): its mtime, now,
    // is later than the 2001 session.
    write(&root.join("stream.jsonl"), "{\"type\":\"system\"}\n");
    write(&root.join("old.ndjson"), &line("2001-01-01T00:00:00Z"));
    let found = sessions_below(&root, Readers::NONE);
    assert_eq!(names(&found, &root), ["old.ndjson", "stream.jsonl"]);
    fs::remove_dir_all(&root).unwrap();
}

#[cfg(unix)]
#[test]
fn a_link_back_up_the_tree_is_not_followed() {
    let root = tree("loop");
    write(&root.join("x/s.jsonl"), &line("2026-01-01T00:00:00Z"));
    std::os::unix::fs::symlink(&root, root.join("x/up")).unwrap();
    let found = sessions_below(&root, Readers::NONE);
    assert_eq!(names(&found, &root), ["x/s.jsonl"]);
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn session_file_names() {
    for yes in [
        "a.jsonl",
        "b.JSONL",
        "c.ndjson",
        "d.jsonl.gz",
        "e.jsonl.zst",
    ] {
        assert!(is_session_file(Path::new(yes), Readers::NONE), "{yes}");
    }
    for no in [
        "a.json",
        "b.txt",
        "c.gz",
        "jsonl",
        "d.jsonl.bak",
        "state_5.sqlite",
    ] {
        assert!(!is_session_file(Path::new(no), Readers::NONE), "{no}");
    }
}

#[test]
fn a_qwen_sub_agent_goes_with_its_chat() {
    // `projects/<project>/subagents/<session>/agent-*.jsonl` beside
    // `projects/<project>/chats/<session>.jsonl`.
    let root = tree("qwen");
    let p = root.join("projects/-w");
    write(&p.join("chats/s1.jsonl"), &line("2026-11-20T10:00:00Z"));
    write(
        &p.join("subagents/s1/agent-general-purpose-call_1.jsonl"),
        &line("2026-11-20T10:00:05Z"),
    );
    write(
        &p.join("subagents/s1/agent-general-purpose-call_1.meta.json"),
        "{}",
    );
    write(&p.join("chats/s2.jsonl"), &line("2026-11-20T11:00:00Z"));
    let found = sessions_below(&root, Readers::NONE);
    assert_eq!(
        names(&found, &root),
        [
            "projects/-w/chats/s1.jsonl + projects/-w/subagents/s1/agent-general-purpose-call_1.jsonl",
            "projects/-w/chats/s2.jsonl",
        ]
    );
    assert_eq!(found.other_files, 1);
    fs::remove_dir_all(&root).unwrap();
}

/// Qwen Code's home: its `usage_record.jsonl` (a line per finished
/// session, every project's) is no session; the same name elsewhere is.
#[test]
fn a_qwen_usage_record_is_no_session() {
    let root = tree("qwen-home");
    let home = root.join(".qwen");
    write(
        &home.join("projects/-w/chats/s1.jsonl"),
        &line("2026-11-20T10:00:00Z"),
    );
    write(&home.join("usage_record.jsonl"), "{\"version\":1}\n");
    let moved = root.join("moved");
    write(
        &moved.join("projects/-w/chats/s2.jsonl"),
        &line("2026-11-20T11:00:00Z"),
    );
    write(&moved.join("usage_record.jsonl"), "{\"version\":1}\n");
    write(
        &root.join("other/usage_record.jsonl"),
        &line("2026-11-20T12:00:00Z"),
    );
    let found = sessions_below(&root, Readers::NONE);
    assert_eq!(
        names(&found, &root),
        [
            ".qwen/projects/-w/chats/s1.jsonl",
            "moved/projects/-w/chats/s2.jsonl",
            "other/usage_record.jsonl",
        ]
    );
    assert_eq!(found.other_files, 2);
    fs::remove_dir_all(&root).unwrap();
}

/// Gemini CLI's 2025 documents (`session-*.json`) copied out of `chats/`
/// are found by how they begin; another `session-*.json` is not.
#[test]
fn gemini_documents_out_of_chats_are_found_by_their_head() {
    let root = tree("gemini-docs");
    let doc = "{\n  \"sessionId\": \"d7\",\n  \"startTime\": \"2025-09-01T10:00:00Z\"}";
    write(&root.join("saved/session-2025-09-01T10-00-d7.json"), doc);
    write(
        &root.join("saved/session-search.db-tables.json"),
        "{\"tables\":[]}",
    );
    write(&root.join("saved/session-empty.json"), "");
    let found = sessions_below(&root, Readers::NONE);
    assert_eq!(
        names(&found, &root),
        ["saved/session-2025-09-01T10-00-d7.json"]
    );
    assert_eq!(found.other_files, 2);
    fs::remove_dir_all(&root).unwrap();
}

/// A compressed session file keeps its sub-agents (`s.jsonl.gz` over
/// `s/subagents/agent-1.jsonl`): they were sessions of their own, and
/// `--latest -f` followed a sub-agent as the latest session.
#[test]
fn a_compressed_session_keeps_its_sub_agents() {
    let root = tree("gz-parent");
    let p = root.join("-home-u-proj");
    for (session, z) in [("s", ".gz"), ("t", ".zst"), ("u", "")] {
        let text = line("2026-11-20T10:00:00Z");
        let bytes = match z {
            ".gz" => {
                let mut gz =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                gz.write_all(text.as_bytes()).unwrap();
                gz.finish().unwrap()
            }
            ".zst" => zstd::encode_all(text.as_bytes(), 3).unwrap(),
            _ => text.into_bytes(),
        };
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join(format!("{session}.jsonl{z}")), bytes).unwrap();
        write(
            &p.join(format!("{session}/subagents/agent-1.jsonl")),
            &line("2026-11-20T10:00:05Z"),
        );
    }
    let found = sessions_below(&root, Readers::NONE);
    let mut got = names(&found, &root);
    got.sort();
    assert_eq!(
        got,
        [
            "-home-u-proj/s.jsonl.gz + -home-u-proj/s/subagents/agent-1.jsonl",
            "-home-u-proj/t.jsonl.zst + -home-u-proj/t/subagents/agent-1.jsonl",
            "-home-u-proj/u.jsonl + -home-u-proj/u/subagents/agent-1.jsonl",
        ]
    );
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn a_start_time_cut_by_a_read_is_found_whole() {
    let root = tree("cut-time");
    let time = |t: &str| {
        let f = root.join("s.jsonl");
        fs::write(&f, t).unwrap();
        start_time(fs::File::open(&f).unwrap())
    };
    let at = |ts: &str| Timestamp::parse(ts);
    // The key, or the time after it, cut by each 4 KiB read of the first
    // three: found once the next read ends it, not passed over for the
    // next line's.
    for step in 1..=3 {
        for cut in [1, 8, 13, 20, 30] {
            let pad = "x".repeat(step * 4096 - cut);
            let text = format!(
                "{{\"t\":\"{pad}\",\"timestamp\":\"2026-11-20T10:00:00Z\"}}\n{}",
                line("2026-11-20T12:00:00Z")
            );
            assert_eq!(
                time(&text),
                at("2026-11-20T10:00:00Z"),
                "read {step}, cut {cut}"
            );
        }
    }
    // A "timestamp" that is no time is passed over, however far before.
    let pad = "x".repeat(9000);
    let text = format!(
        "{{\"timestamp\":\"soon\",\"t\":\"{pad}\"}}\n{{\"timestamp\":\"2026-11-20T11:00:00Z\"}}\n"
    );
    assert_eq!(time(&text), at("2026-11-20T11:00:00Z"));
    // None in the first 64 KiB, or none at all.
    assert_eq!(
        time(&format!("{{\"t\":\"{}\"}}\n", "x".repeat(70_000))),
        None
    );
    assert_eq!(time(""), None);
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn a_session_of_the_file_list_is_small() {
    // A library keeps one per file for the whole run (20,000 files: 1.7
    // MB at 88 bytes, 2.1 MB when a store's session was kept inline; 104
    // with the stamps the walk took, which spare a second stat of each).
    let size = std::mem::size_of::<Session>();
    assert!(size <= 104, "{size}");
}

#[test]
fn walked_paths_order_as_paths_do() {
    // Names where a byte after a shared part sorts below `/` ('-', '.',
    // ' ', '!') or above it, prefixes of each other, bytes above ASCII.
    let names = [
        "p/a.jsonl",
        "p/a/subagents/agent-1.jsonl",
        "p/a/subagents/agent-10.jsonl",
        "p/a-b.jsonl",
        "p.x/a.jsonl",
        "p-x/a.jsonl",
        "p x/a.jsonl",
        "p!/a.jsonl",
        "p0/a.jsonl",
        "p/ab.jsonl",
        "p/a b.jsonl",
        "p/A.jsonl",
        "p/é.jsonl",
        "p/\u{7f}.jsonl",
        "pé/a.jsonl",
        "q.jsonl",
        "p/a.jsonl.gz",
    ];
    for root in ["lib", "./lib", "lib//deep/", "/abs/lib"] {
        let paths: Vec<PathBuf> = names.iter().map(|n| Path::new(root).join(n)).collect();
        for a in &paths {
            for b in &paths {
                assert_eq!(Walked(a).cmp(&Walked(b)), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }
}

#[test]
fn a_directory_unchanged_since_its_listing_is_not_listed_again() {
    let root = tree("listing");
    write(&root.join("p/real.jsonl"), &line("2026-11-20T10:00:00Z"));
    let cache = root.join("cache");
    let ix = Index::load(&crate::index::open_dir(&cache).unwrap(), &root, "t");
    // The index's listing of `p` names a file that is not there: taken
    // from the index, the walk finds it (and cannot date it); listed
    // again, it would not.
    let p = root.join("p");
    let stamp = Stamp::of_dir(&p).unwrap();
    let listing = |indexed_at| Listing {
        stamp,
        indexed_at,
        entries: vec![
            ("real.jsonl".into(), Entry::File),
            ("ghost.jsonl".into(), Entry::File),
        ],
    };
    ix.put_listing(&p, listing(u64::MAX));
    ix.save().unwrap();
    let ix = Index::load(&cache, &root, "t");
    let found = sessions_below_on(&root, 1, Some(&ix), Readers::NONE);
    let mut got = names(&found, &root);
    got.sort();
    assert_eq!(got, ["p/ghost.jsonl", "p/real.jsonl"]);
    // Listed when the directory had just changed (within the clock's
    // tick): not trusted, listed again.
    let ix = Index::load(&cache, &root, "t");
    ix.put_listing(&p, listing(u64::try_from(stamp.mtime).unwrap()));
    ix.save().unwrap();
    let ix = Index::load(&cache, &root, "t");
    assert_eq!(
        names(
            &sessions_below_on(&root, 1, Some(&ix), Readers::NONE),
            &root
        ),
        ["p/real.jsonl"]
    );
    let _ = fs::remove_dir_all(&root);
}

/// A store reader of this test's own: `*.store` files are stores of one
/// session each (named by the file's stem), `list.txt` lists stores by
/// path, `*.kept` files are sessions, `trace.jsonl` is none.
struct Fake;

impl StoreReader for Fake {
    fn is_store(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "store")
    }

    fn sessions(&self, path: &Path) -> io::Result<Vec<Stored>> {
        let id = path.file_stem().unwrap().to_str().unwrap().to_string();
        let hour = if id == "x" { "08" } else { "07" };
        Ok(vec![Stored {
            id,
            began: Timestamp::parse(&format!("2026-11-20T{hour}:00:00Z")),
            updated: None,
            rows: 1,
        }])
    }

    fn lines(&self, _path: &Path, id: &str, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{{\"id\":\"{id}\"}}")
    }

    fn listed(&self, path: &Path) -> Option<Vec<PathBuf>> {
        (path.file_name()? == "list.txt")
            .then(|| fs::read_to_string(path).ok())?
            .map(|text| text.lines().map(PathBuf::from).collect())
    }

    fn keeps_session(&self, path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "kept")
    }

    fn no_session(&self, _path: &Path, name: &str) -> bool {
        name == "trace.jsonl"
    }
}

#[test]
fn a_readers_stores_are_found_below_and_where_a_list_says_each_once() {
    let root = tree("stores");
    let away = tree("stores-away");
    write(&root.join("a/x.store"), "");
    write(&away.join("y.store"), "");
    let list = format!(
        "{}\n{}\n",
        root.join("a/x.store").display(),
        away.join("y.store").display()
    );
    write(&root.join("b/list.txt"), &list);
    write(&root.join("s.jsonl"), &line("2026-11-20T10:00:00Z"));
    write(&root.join("t.kept"), &line("2026-11-20T11:00:00Z"));
    write(&root.join("trace.jsonl"), &line("2026-11-20T12:00:00Z"));
    let shown = |found: &Found| -> Vec<String> {
        (found.sessions.iter())
            .map(|s| {
                // `away` first: `root`'s name begins it.
                let name = s.name().replace(&away.display().to_string(), "A");
                name.replace(&root.display().to_string(), "R")
            })
            .collect()
    };
    let readers = Readers(&[&Fake]);
    let found = sessions_below(&root, readers);
    assert_eq!(
        shown(&found),
        ["A/y.store#y", "R/a/x.store#x", "R/s.jsonl", "R/t.kept"]
    );
    assert_eq!(found.other_files, 1, "trace.jsonl");
    let mut text = String::new();
    (found.sessions[0].open(readers).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "{\"id\":\"y\"}\n");
    assert!(found.sessions[0].open(Readers::NONE).is_err());
    // Named itself: a store, a list.
    let x = root.join("a/x.store");
    assert_eq!(shown(&sessions_below(&x, readers)), ["R/a/x.store#x"]);
    let listed = sessions_below(&root.join("b/list.txt"), readers);
    assert_eq!(shown(&listed), ["A/y.store#y", "R/a/x.store#x"]);
    assert!(is_library(&x, readers) && is_library(&root.join("b/list.txt"), readers));
    // Without the reader, only the names say.
    let found = sessions_below(&root, Readers::NONE);
    assert_eq!(shown(&found), ["R/s.jsonl", "R/trace.jsonl"]);
    assert_eq!(found.other_files, 3);
    assert!(!is_library(&x, Readers::NONE));
    let _ = fs::remove_dir_all(&root);
    let _ = fs::remove_dir_all(&away);
}
