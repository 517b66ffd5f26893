//! `--by block` (issue 26 §6): each agent's 5-hour blocks apart (Claude's
//! usage windows mean nothing to Codex), and for a block still open what
//! `ccusage blocks --live` shows: tokens and cost so far, the burn rate,
//! the projected cost at its end, the time left.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{fixture, read, sv};
use streamview::time::Timestamp;

/// A directory of its own for each test.
fn dir() -> PathBuf {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "blocks-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("claude")).unwrap();
    std::fs::create_dir_all(d.join("codex")).unwrap();
    d
}

/// Claude's transcript fixture moved to the UTC hour `hour`
/// (`2026-11-24T08`).
fn claude_at(hour: &str) -> String {
    String::from_utf8(read(&fixture(
        "claude-transcript/transcript_tools_basic.jsonl",
    )))
    .unwrap()
    .replace("2026-11-22T03", hour)
}

fn by_block(d: &std::path::Path) -> String {
    let out = sv()
        .args(["--by", "block", "--tz", "UTC"])
        .arg(d)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn each_agent_has_its_own_blocks() {
    let d = dir();
    // A Claude session in the same hour as the Codex rollout.
    std::fs::write(d.join("claude/s.jsonl"), claude_at("2026-11-24T08")).unwrap();
    std::fs::copy(
        fixture("codex-rollout/apply_patch.rollout.jsonl"),
        d.join("codex/r.jsonl"),
    )
    .unwrap();
    let out = by_block(&d);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("2026-")).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows[0].starts_with("2026-11-24 08:00 claude "), "{out}");
    assert!(rows[1].starts_with("2026-11-24 08:00 codex "), "{out}");
    // One agent: the rows are named by time alone, as before.
    let claude = by_block(&d.join("claude"));
    assert!(claude.contains("\n2026-11-24 08:00   "), "{claude}");
    assert!(
        !claude.contains(" open: "),
        "an old block is closed: {claude}"
    );
}

#[test]
fn the_open_block_says_what_ccusage_blocks_live_says() {
    let d = dir();
    let hour_ago = Timestamp::of(std::time::SystemTime::now()).plus(-3_600_000);
    let hour = &hour_ago.to_string()[..13];
    std::fs::write(d.join("claude/s.jsonl"), claude_at(hour)).unwrap();
    let out = by_block(&d);
    let line = out
        .lines()
        .find(|l| l.starts_with("block ") && l.contains(" open: "))
        .unwrap_or_else(|| panic!("no open block in {out}"));
    // Begun an hour or two ago: 3 to 4 hours left.
    assert!(
        line.contains(&format!("block {}:00 open", hour.replace('T', " "))),
        "{line}"
    );
    let left = &line[line.find(" open: ").unwrap() + 7..];
    assert!(left.starts_with("3h") || left.starts_with("4h"), "{line}");
    for part in [
        " left (ends ",
        ":00) · ",
        " tokens · ~$",
        " so far · ~$",
        "/h · ~$",
        " projected",
    ] {
        assert!(line.contains(part), "{part:?} in {line}");
    }
    // The rate is the cost over the time since the block began, the
    // projection the cost at that rate until its end: above the cost.
    let dollars = |after: &str| -> f64 {
        let s = &line[line.find(after).unwrap() + after.len()..];
        s[..s.find(|c: char| c != '.' && !c.is_ascii_digit()).unwrap()]
            .parse()
            .unwrap()
    };
    let so_far = dollars(" tokens · ~$");
    let projected = dollars("/h · ~$");
    assert!(so_far > 0.0 && projected > so_far * 2.0, "{line}");
    // summary-json says the same in `by.open`; a closed block has none.
    let json = sv()
        .args(["--format", "summary-json", "--by", "block", "--tz", "UTC"])
        .arg(&d)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let open = &v["by"]["open"][0];
    assert_eq!(open["group"], format!("{}:00", hour.replace('T', " ")));
    let left = open["left_ms"].as_i64().unwrap();
    assert!((3 * 3_600_000..=4 * 3_600_000).contains(&left), "{open}");
    let (cost, burn, projected) = (
        open["cost_usd"].as_f64().unwrap(),
        open["burn_usd_per_hour"].as_f64().unwrap(),
        open["projected_cost_usd"].as_f64().unwrap(),
    );
    #[allow(clippy::cast_precision_loss)]
    let expected = cost + burn * left as f64 / 3.6e6;
    assert!((projected - expected).abs() < 1e-6, "{open}");
    let old = dir();
    std::fs::write(old.join("claude/s.jsonl"), claude_at("2026-11-24T08")).unwrap();
    let json = sv()
        .args(["--format", "summary-json", "--by", "block"])
        .arg(&old)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(v["by"].get("open").is_none(), "{v}");
}
