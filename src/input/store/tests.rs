use super::*;

/// A reader whose stores are `a.db`, listed by `a.list`.
struct A;

impl StoreReader for A {
    fn is_store(&self, path: &Path) -> bool {
        path.file_name().is_some_and(|n| n == "a.db")
    }

    fn sessions(&self, path: &Path) -> io::Result<Vec<Stored>> {
        open(path)?;
        Ok(Vec::new())
    }

    fn listed(&self, path: &Path) -> Option<Vec<PathBuf>> {
        (path.file_name()? == "a.list").then(|| vec![PathBuf::from("a.db")])
    }
}

/// A reader that claims nothing: every default.
struct Nothing;

impl StoreReader for Nothing {}

#[test]
fn each_file_is_asked_of_the_readers_in_order() {
    let readers = Readers(&[&Nothing, &A]);
    assert!(readers.store(Path::new("/x/a.db")).is_some());
    assert!(readers.store(Path::new("/x/b.db")).is_none());
    let (_, listed) = readers.listed(Path::new("/x/a.list")).unwrap();
    assert_eq!(listed, [PathBuf::from("a.db")]);
    assert!(readers.listed(Path::new("/x/a.db")).is_none());
    assert!(readers.marker(Path::new("/x/s.jsonl")).is_none());
    assert!(!readers.keeps_session(Path::new("/x/s.jsonl")));
    assert!(!readers.no_session(Path::new("/x/s.jsonl"), "s.jsonl"));
    let mut head = b"{}".to_vec();
    readers.mark_head(Path::new("/x/s.jsonl"), &mut head);
    assert_eq!(head, b"{}");
    assert!(Readers::NONE.store(Path::new("/x/a.db")).is_none());
    // A name no reader's store has is no store.
    let e = readers.open(Path::new("/x/b.db"), "s").err().unwrap();
    assert_eq!(e.to_string(), "not a store");
    let e = Nothing.sessions(Path::new("/x/a.db")).unwrap_err();
    assert_eq!(e.to_string(), "not a store");
}

#[test]
fn a_store_is_opened_only_when_it_is_a_database() {
    let dir = std::env::temp_dir().join(format!("sv-store-open-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("a.db");
    std::fs::write(&db, b"SQLite").unwrap();
    let readers = Readers(&[&A]);
    let e = readers.sessions(&db).unwrap_err();
    assert_eq!(e.to_string(), "not a SQLite database (too short)");
    std::fs::write(&db, b"not a database, and long enough").unwrap();
    let e = readers.sessions(&db).unwrap_err();
    assert_eq!(e.to_string(), "not a SQLite database");
    std::fs::remove_file(&db).unwrap();
    Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    assert_eq!(readers.sessions(&db).unwrap(), []);
    let e = missing(rusqlite::Error::QueryReturnedNoRows);
    assert_eq!(e.to_string(), "no such session");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_connection_kept_serves_its_file_and_not_one_put_in_its_place() {
    let dir = std::env::temp_dir().join(format!("sv-store-pool-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("a.db");
    let make = |path: &Path, n: i64| {
        let c = Connection::open(path).unwrap();
        c.execute_batch(&format!("CREATE TABLE t (x); INSERT INTO t VALUES ({n})"))
            .unwrap();
    };
    let x = |path: &Path| -> i64 {
        open(path)
            .unwrap()
            .query_row("SELECT x FROM t", [], |r| r.get(0))
            .unwrap()
    };
    make(&db, 1);
    assert_eq!(x(&db), 1);
    // Given back, then taken again: the same connection (its statements
    // kept prepared).
    let first = open(&db).unwrap();
    first.prepare_cached("SELECT x FROM t").unwrap();
    drop(first);
    let again = open(&db).unwrap();
    assert!(again.prepare_cached("SELECT x FROM t").is_ok());
    drop(again);
    // Another file renamed into its place: opened anew, not read through
    // the old one's connection.
    let other = dir.join("b.db");
    make(&other, 2);
    std::fs::rename(&other, &db).unwrap();
    assert_eq!(x(&db), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
