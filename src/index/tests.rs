use super::*;

fn stamp(size: u64, mtime: i64) -> Stamp {
    Stamp {
        dev: 1,
        ino: 2,
        size,
        mtime,
        ctime: mtime,
    }
}

/// A cache directory of the test's own.
fn cache(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sv-index-unit-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    open_dir(&dir).unwrap()
}

fn recorded(events: &[u8]) -> Recorded {
    Recorded {
        files: vec![(PathBuf::from("/lib/a"), stamp(10, 5))],
        lines: 3,
        indexed_at: u64::MAX,
        events: events.to_vec(),
        resume: None,
    }
}

/// Where session "b" of [`saved`] is read on from (its decoder's state is
/// "STATE").
const B_RESUME: Resume = Resume {
    offset: 10,
    edges: 7,
    body: 2000,
};

/// A directory of a session file, a folder, a link and a FIFO.
fn listing() -> Listing {
    Listing {
        stamp: stamp(4096, 7),
        indexed_at: u64::MAX,
        entries: vec![
            ("a".into(), Entry::File),
            ("sub".into(), Entry::Dir),
            ("l.jsonl".into(), Entry::Link),
            ("fifo".into(), Entry::Other),
        ],
    }
}

/// An index of two sessions, a file and a directory, saved in `dir`.
fn saved(dir: &Path) -> PathBuf {
    let ix = Index::load(dir, Path::new("/lib"), "r");
    let d = Dated {
        stamp: stamp(10, 5),
        began: Timestamp::from_millis(1_700_000_000_000),
        indexed_at: u64::MAX,
    };
    ix.put_dated(Path::new("/lib/a"), d);
    ix.put_listing(Path::new("/lib"), listing());
    ix.put_session("a", recorded(b"{\"v\":1}\n{\"v\":2}\n"));
    let mut b = recorded(&b"x".repeat(3000));
    b.resume = Some((B_RESUME, b"STATE".to_vec()));
    ix.put_session("b", b);
    let path = ix.path.clone();
    ix.save().unwrap();
    path
}

#[test]
fn entries_are_kept_saved_and_loaded() {
    let dir = cache("kept");
    let path = saved(&dir);
    let files = recorded(b"").files;
    let again = Index::load(&dir, Path::new("/lib"), "r");
    assert_eq!(
        again.listing(Path::new("/lib"), &stamp(4096, 7)),
        Some(&listing())
    );
    // The directory changed since: listed again.
    assert_eq!(again.listing(Path::new("/lib"), &stamp(4096, 8)), None);
    assert_eq!(
        again
            .dated(Path::new("/lib/a"), &stamp(10, 5))
            .unwrap()
            .stamp,
        stamp(10, 5)
    );
    assert_eq!(
        again.session("a", &files).unwrap().events,
        b"{\"v\":1}\n{\"v\":2}\n"
    );
    // Served without the decoder's state, which a read that goes on
    // takes.
    let b = again.session("b", &files).unwrap();
    assert_eq!((b.events, b.resume), (b"x".repeat(3000), None));
    assert_eq!(again.served(), 2);
    let grown = [(PathBuf::from("/lib/a"), stamp(11, 5))];
    assert!(again.session("a", &grown).is_none());
    // Other reads of the same library keep an index of their own.
    assert!(
        Index::load(&dir, Path::new("/lib"), "other")
            .session("a", &files)
            .is_none()
    );
    // Written again, the frames copied: the same sessions.
    again.put_session("c", recorded(b"c\n"));
    again.save().unwrap();
    let third = Index::load(&dir, Path::new("/lib"), "r");
    for (name, events) in [("a", &b"{\"v\":1}\n{\"v\":2}\n"[..]), ("c", b"c\n")] {
        assert_eq!(third.session(name, &files).unwrap().events, events);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&path), 0o600);
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_flipped_byte_nor_cut_is_read_as_another_index() {
    let dir = cache("flipped");
    let path = saved(&dir);
    let good = fs::read(&path).unwrap();
    let files = recorded(b"").files;
    let expected = [
        ("a", b"{\"v\":1}\n{\"v\":2}\n".to_vec()),
        ("b", b"x".repeat(3000)),
    ];
    // Whatever is read is what was written: a session is refused or
    // whole, never other events.
    let check = |bytes: &[u8], what: &str| {
        fs::write(&path, bytes).unwrap();
        let ix = Index::load(&dir, Path::new("/lib"), "r");
        for (name, events) in &expected {
            if let Some(r) = ix.session(name, &files) {
                assert_eq!(&r.events, events, "{what}: {name}");
            }
        }
    };
    for i in 0..good.len() {
        for bit in [0x01u8, 0x80] {
            let mut bad = good.clone();
            bad[i] ^= bit;
            check(&bad, &format!("byte {i} ^ {bit:#x}"));
        }
    }
    for len in 0..good.len() {
        check(&good[..len], &format!("cut at {len}"));
    }
    // A future version's is not read.
    let mut future = good.clone();
    future[17] += 1;
    fs::write(&path, &future).unwrap();
    let ix = Index::load(&dir, Path::new("/lib"), "r");
    assert!(ix.session("a", &files).is_none());
    assert!(ix.unreadable);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stamp_is_trusted_only_when_unchanged_and_older_than_its_indexing() {
    let then = stamp(10, 1_000 * 1_000_000_000);
    let later = 1_000 * 1_000_000_000 + RACY_NS as u64 + 1;
    assert!(then.trusted(&then, later));
    // Changed within the granularity of its indexing: read again.
    assert!(!then.trusted(&then, later - 2));
    let grown = Stamp { size: 11, ..then };
    assert!(!grown.trusted(&then, later));
    let replaced = Stamp { ino: 3, ..then };
    assert!(!replaced.trusted(&then, later));
}

#[test]
fn the_cache_is_where_the_environment_says() {
    let [c, x, h, empty] = ["/c", "/x", "/h", ""].map(|s| Some(OsStr::new(s)));
    assert_eq!(cache_dir(c, x, h), Some(PathBuf::from("/c")));
    assert_eq!(cache_dir(empty, x, h), Some(PathBuf::from("/x/streamview")));
    assert_eq!(
        cache_dir(None, None, h),
        Some(PathBuf::from("/h/.cache/streamview"))
    );
    assert_eq!(cache_dir(None, None, None), None);
}

#[test]
fn a_grown_file_is_read_on_only_while_what_was_read_is_still_there() {
    let dir = cache("resume");
    let file = dir.join("t.jsonl");
    fs::create_dir_all(&dir).unwrap();
    let lines = b"{\"a\":1}\n".repeat(2000);
    fs::write(&file, &lines).unwrap();
    let f = fs::File::open(&file).unwrap();
    let then = Stamp::of_path(&file).unwrap();
    let point = Resume {
        offset: then.size,
        edges: edges(&f, then.size).unwrap(),
        body: 2,
    };
    let ix = Index::load(&dir, &dir, "r");
    ix.put_session(
        "t",
        Recorded {
            files: vec![(file.clone(), then)],
            lines: 2000,
            indexed_at: u64::MAX,
            events: b"e\nf\n".to_vec(),
            resume: Some((point, b"STATE".to_vec())),
        },
    );
    ix.save().unwrap();
    let now = |f: &Path| (f.to_path_buf(), Stamp::of_path(f).unwrap());
    // Asked for, written again (its frames copied), then loaded.
    let again = Index::load(&dir, &dir, "r");
    assert!(again.resumable("t", &now(&file), &f).is_some());
    again.put_session("other", recorded(b"o\n"));
    again.save().unwrap();
    let ix = Index::load(&dir, &dir, "r");

    // Grown: read on, with the decoder's state.
    fs::write(&file, [&lines[..], b"{\"b\":2}\n"].concat()).unwrap();
    let f = fs::File::open(&file).unwrap();
    let r = ix.resumable("t", &now(&file), &f).unwrap();
    assert_eq!(r.events, b"e\nf\n");
    assert_eq!(r.resume, Some((point, b"STATE".to_vec())));
    // What was read changed at either end, or the file is shorter, or
    // another file: read whole.
    for (at, what) in [(3, "its head"), (lines.len() - 3, "its tail")] {
        let mut changed = lines.clone();
        changed[at] = b'9';
        fs::write(&file, &changed).unwrap();
        let f = fs::File::open(&file).unwrap();
        assert!(ix.resumable("t", &now(&file), &f).is_none(), "{what}");
    }
    fs::write(&file, &lines[..lines.len() - 8]).unwrap();
    let f = fs::File::open(&file).unwrap();
    assert!(ix.resumable("t", &now(&file), &f).is_none(), "shorter");
    let copy = dir.join("copy");
    fs::write(&copy, &lines).unwrap();
    fs::rename(&copy, &file).unwrap();
    let f = fs::File::open(&file).unwrap();
    assert!(
        ix.resumable("t", &now(&file), &f).is_none(),
        "another inode"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_session_put_in_the_index_holds_its_frame_not_its_events() {
    // A first report keeps every session's frame until the index is
    // written: one as long as its events (zstd's bound) made a first
    // report over 10 GB hold 1.7 GB.
    let events = b"{\"v\":1,\"kind\":\"usage\",\"producer\":\"claude\"}\n".repeat(20_000);
    let p = Packed::of(&events).unwrap();
    assert!(
        p.bytes.capacity() < events.len() / 20,
        "{} of {}",
        p.bytes.capacity(),
        events.len()
    );
    assert_eq!(
        format::decompress(&p.bytes, &p.frame).as_deref(),
        Some(&events[..])
    );
}
