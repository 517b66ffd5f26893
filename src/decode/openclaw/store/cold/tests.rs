use super::*;

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
}
