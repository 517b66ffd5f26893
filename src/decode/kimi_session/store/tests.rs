use super::*;
use crate::input::library::is_session_file;
use crate::input::store::Readers;

#[test]
fn md5_is_the_digest_kimi_names_folders_by() {
    // RFC 1321's test suite.
    assert_eq!(hex_md5(b""), "d41d8cd98f00b204e9800998ecf8427e");
    assert_eq!(hex_md5(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
}

/// A fresh folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("sv-kimi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_wire_log_is_given_its_folder_and_its_context_is_no_session() {
    let home = scratch("folder");
    let group = hex_md5(b"/w/proj");
    let run = home.join("sessions").join(&group).join("s1");
    std::fs::create_dir_all(&run).unwrap();
    let doc = serde_json::json!({"work_dirs": [{"path": "/elsewhere"}, {"path": "/w/proj"}]});
    std::fs::write(home.join("kimi.json"), doc.to_string()).unwrap();
    let wire = run.join("wire.jsonl");
    std::fs::write(&wire, "{}\n").unwrap();
    let readers = Readers(&[&Kimi]);
    assert!(Kimi.marks(&wire));
    let mut head = b"{\"type\": \"metadata\", \"protocol_version\": \"1.10\"}\n".to_vec();
    readers.mark_head(&wire, &mut head);
    assert_eq!(
        head,
        b"{\"cwd\":\"/w/proj\",\"type\": \"metadata\", \"protocol_version\": \"1.10\"}\n"
    );
    // Another first line is left as it is.
    let mut other = b"{\"timestamp\": 1.5}\n".to_vec();
    readers.mark_head(&wire, &mut other);
    assert_eq!(other, b"{\"timestamp\": 1.5}\n");
    // The context beside it is no session; beside no wire log, it is one.
    let context = run.join("context.jsonl");
    assert!(!is_session_file(&context, readers));
    assert!(is_session_file(&home.join("context.jsonl"), readers));
    assert!(!Kimi.marks(&context));
    std::fs::remove_dir_all(&home).unwrap();
}
