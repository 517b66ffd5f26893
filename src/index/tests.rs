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

fn body() -> format::Body {
    format::Body {
        files: vec![(
            PathBuf::from("/lib/a.jsonl"),
            Dated {
                stamp: stamp(10, 5),
                began: Timestamp::from_millis(1_700_000_000_000),
                ended: None,
                indexed_at: 99,
            },
        )],
        sessions: vec![(
            "/lib/a.jsonl".to_string(),
            Recorded {
                files: vec![(PathBuf::from("/lib/a.jsonl"), stamp(10, 5))],
                lines: 3,
                indexed_at: 99,
                events: b"{\"v\":1}\n{\"v\":1}\n".to_vec(),
            },
        )],
    }
}

fn written() -> Vec<u8> {
    let mut out = Vec::new();
    format::write(&mut out, 42, "ctx", &body()).unwrap();
    out
}

#[test]
fn an_index_reads_back_as_written() {
    let out = written();
    assert_eq!(format::read(&mut out.as_slice(), 42, "ctx"), Some(body()));
}

#[test]
fn another_binary_context_or_version_is_not_read() {
    let out = written();
    assert_eq!(format::read(&mut out.as_slice(), 43, "ctx"), None);
    assert_eq!(format::read(&mut out.as_slice(), 42, "ctx2"), None);
    assert_eq!(format::read(&mut out.as_slice(), 42, "ct"), None);
    let mut future = out.clone();
    // The version follows the magic line.
    future[17] += 1;
    assert_eq!(format::read(&mut future.as_slice(), 42, "ctx"), None);
}

#[test]
fn no_flipped_byte_nor_cut_is_read_as_another_index() {
    let out = written();
    for i in 0..out.len() {
        for bit in [0x01u8, 0x80] {
            let mut bad = out.clone();
            bad[i] ^= bit;
            // Refused, or (a bit of the zstd frame's header that does not
            // change what it holds) read as it was written: never otherwise.
            let read = format::read(&mut bad.as_slice(), 42, "ctx");
            assert!(
                read.is_none() || read == Some(body()),
                "byte {i} ^ {bit:#x} was read as {read:?}"
            );
        }
    }
    for len in 0..out.len() {
        assert_eq!(
            format::read(&mut &out[..len], 42, "ctx"),
            None,
            "cut at {len}"
        );
    }
    // Bytes after the end are refused too.
    let mut longer = out.clone();
    longer.extend_from_slice(b"\0\0\0\0");
    let read = format::read(&mut longer.as_slice(), 42, "ctx");
    assert!(read.is_none() || read == Some(body()));
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
fn entries_are_kept_saved_and_loaded() {
    let dir = std::env::temp_dir().join(format!("sv-index-unit-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let dir = open_dir(&dir).unwrap();
    let lib = dir.join("lib");
    let ix = Index::load(&dir, &lib, "r");
    let s = stamp(10, 5);
    assert_eq!(ix.dated(Path::new("/lib/a"), &s), None);
    let d = Dated {
        stamp: s,
        began: None,
        ended: None,
        indexed_at: u64::MAX,
    };
    ix.put_dated(Path::new("/lib/a"), d);
    let rec = Recorded {
        files: vec![(PathBuf::from("/lib/a"), s)],
        lines: 1,
        indexed_at: u64::MAX,
        events: b"x\n".to_vec(),
    };
    ix.put_session("a", rec.clone());
    ix.save().unwrap();
    let again = Index::load(&dir, &lib, "r");
    assert_eq!(again.dated(Path::new("/lib/a"), &s), Some(d));
    assert_eq!(again.session("a", &rec.files), Some(&rec));
    let grown = [(PathBuf::from("/lib/a"), stamp(11, 5))];
    assert_eq!(again.session("a", &grown), None);
    // Other reads of the same library keep an index of their own.
    assert_eq!(
        Index::load(&dir, &lib, "other").session("a", &rec.files),
        None
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&again.path), 0o600);
    }
    fs::remove_dir_all(&dir).unwrap();
}
