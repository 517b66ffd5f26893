//! `--statusline` (issue 47): Claude Code's status-line JSON in, one line
//! out. Its figures are checked against the transcripts' own tokens priced
//! by hand from the bundled table (not against another report of
//! streamview's); hostile input still gives exit 0 and one inert line,
//! within the second Claude Code allows.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::sv_std;

const TOOLS: &str = "claude-transcript/v2.1.330_transcript_tools_basic.jsonl";

/// Milliseconds since the epoch now.
fn now_ms() -> i64 {
    i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// RFC 3339 of `ms`, to the millisecond, in UTC.
fn rfc3339(ms: i64) -> String {
    let mut out = Vec::new();
    streamview::time::Timestamp::from_millis(ms)
        .unwrap()
        .write_rfc3339(&mut out);
    String::from_utf8(out).unwrap()
}

/// The tools transcript with every time moved to `at` (ms) and its ids
/// made its own by `tag`.
fn transcript_at(at: i64, tag: &str) -> String {
    let text = fs::read_to_string(common::fixture(TOOLS)).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v.get("timestamp").is_some() {
            v["timestamp"] = rfc3339(at).into();
        }
        let line = serde_json::to_string(&v).unwrap();
        out.push_str(
            &line
                .replace("\"msg_", &format!("\"msg_{tag}"))
                .replace("\"req_", &format!("\"req_{tag}")),
        );
        out.push('\n');
    }
    out
}

/// The transcript's cost by hand: each API message (message id and
/// request id) once, priced from `src/session/prices.json`.
fn cost_by_hand(transcript: &str) -> f64 {
    let prices: serde_json::Value =
        serde_json::from_str(&fs::read_to_string("src/session/prices.json").unwrap()).unwrap();
    let mut seen: HashMap<(String, String), f64> = HashMap::new();
    for line in transcript.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let (Some(id), Some(req), Some(u)) = (
            v.pointer("/message/id").and_then(|x| x.as_str()),
            v.get("requestId").and_then(|x| x.as_str()),
            v.pointer("/message/usage"),
        ) else {
            continue;
        };
        let model = v.pointer("/message/model").unwrap().as_str().unwrap();
        let p = &prices["models"][model];
        let n = |k: &str| u[k].as_f64().unwrap_or(0.0);
        let usd = (n("input_tokens") * p["input"].as_f64().unwrap()
            + n("output_tokens") * p["output"].as_f64().unwrap()
            + n("cache_read_input_tokens") * p["cache_read"].as_f64().unwrap()
            + n("cache_creation_input_tokens") * p["cache_write"].as_f64().unwrap())
            / 1e6;
        seen.insert((id.into(), req.into()), usd);
    }
    seen.values().sum()
}

/// A home whose `~/.claude/projects` holds one transcript per `(ms, tag)`.
struct Home {
    root: PathBuf,
    files: Vec<(PathBuf, String)>,
}

impl Home {
    fn new(name: &str, sessions: &[(i64, &str)]) -> Home {
        let root =
            std::env::temp_dir().join(format!("sv-statusline-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let dir = root.join(".claude/projects/-home-dev-work");
        fs::create_dir_all(&dir).unwrap();
        let files = (sessions.iter().enumerate())
            .map(|(i, &(at, tag))| {
                let path = dir.join(format!("0000000{i}-0000-4000-8000-000000000000.jsonl"));
                let text = transcript_at(at, tag);
                fs::write(&path, &text).unwrap();
                (path, text)
            })
            .collect();
        Home { root, files }
    }

    /// One run, given `input`, in a zone where it is noon now (so that
    /// "today" holds the last hours whenever the test runs).
    fn line(&self, input: &str, env: &[(&str, &str)]) -> (String, i32) {
        let utc_hour = now_ms().rem_euclid(86_400_000) / 3_600_000;
        // POSIX TZ: the offset is west of Greenwich.
        let tz = format!("NOON{}", utc_hour - 12);
        let mut cmd = sv_std();
        cmd.args(["--statusline"])
            .env("HOME", &self.root)
            .env("TZ", tz)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        // Past what it reads, the rest of the input finds the pipe closed.
        let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
        let out = child.wait_with_output().unwrap();
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            out.status.code().unwrap(),
        )
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// `$1.23` as the line writes a cost under $1: four decimals.
fn usd(x: f64) -> String {
    if x < 1.0 {
        format!("{x:.4}")
    } else {
        format!("{x:.2}")
    }
}

#[test]
fn today_the_block_and_the_session_are_the_transcripts_usage() {
    let now = now_ms();
    let home = Home::new(
        "today",
        &[
            (now - 10 * 60_000, "a"),
            (now - 2 * 60_000, "b"),
            // Yesterday's, 20 hours ago: in the window read, not today's,
            // and more than 5 hours before the open block.
            (now - 20 * 3_600_000, "c"),
            // Weeks ago.
            (now - 30 * 86_400_000, "d"),
        ],
    );
    let one = cost_by_hand(&home.files[0].1);
    let today = one + cost_by_hand(&home.files[1].1);
    assert!(one > 0.01, "{one}");
    let input = serde_json::json!({
        "session_id": "s",
        "transcript_path": home.files[1].0,
        "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "context_window": {"used_percentage": 45.2},
        "rate_limits": {"five_hour": {"used_percentage": 62}, "seven_day": {"used_percentage": "12"}},
    });
    let (line, code) = home.line(&input.to_string(), &[]);
    assert_eq!(code, 0);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.starts_with("Opus 5.5 · "), "{line}");
    // (With or without `~`: the session table's rule, issue 49.)
    assert!(line.contains(&format!("${} session", usd(one))), "{line}");
    // The transcripts' cost lines report what the hand count prices: no
    // `~` (the same rule in every table, issue 49).
    assert!(line.contains(&format!(" ${} today", usd(today))), "{line}");
    assert!(
        line.contains(&format!(" ${} block, ", usd(today))),
        "{line}"
    );
    assert!(line.contains("ctx 45% · 5h 62% · 7d 12%"), "{line}");
    // Claude Code's own figure wins over the count.
    let given =
        serde_json::json!({"cost": {"total_cost_usd": 3.5}, "transcript_path": home.files[1].0});
    let (line, _) = home.line(&given.to_string(), &[]);
    assert!(line.starts_with("Claude · $3.50 session · "), "{line}");
    // A second run, from the index, says the same (but for the burn
    // rate, which the clock moves).
    let steady = |line: String| line.split("left, ").next().unwrap().to_string();
    assert_eq!(
        steady(home.line(&input.to_string(), &[]).0),
        steady(home.line(&input.to_string(), &[]).0)
    );
}

#[test]
fn a_block_begun_before_the_window_is_found_by_reading_further_back() {
    // Every 4 hours for 3 days: no 5-hour pause in the last day, so the
    // block open now began where the chain from 3 days ago puts it.
    let now = now_ms();
    let first = now - 72 * 3_600_000 + 30 * 60_000;
    let times: Vec<i64> = (0..18).map(|k| first + k * 4 * 3_600_000).collect();
    let tags: Vec<String> = (0..times.len()).map(|k| format!("k{k}")).collect();
    let sessions: Vec<(i64, &str)> = times
        .iter()
        .copied()
        .zip(tags.iter().map(String::as_str))
        .collect();
    let home = Home::new("chain", &sessions);
    // By hand: a block begins at the hour of the first message after the
    // last one ended, and lasts 5 hours.
    let hour = 3_600_000;
    let mut start = first.div_euclid(hour) * hour;
    let mut cost = 0.0;
    for (t, (_, text)) in times.iter().zip(&home.files) {
        if *t >= start + 5 * hour {
            start = t.div_euclid(hour) * hour;
            cost = 0.0;
        }
        cost += cost_by_hand(text);
    }
    let open = now < start + 5 * hour;
    let (line, code) = home.line("{}", &[]);
    assert_eq!(code, 0);
    if open {
        let left = (start + 5 * hour - now) / 60_000;
        let left = if left >= 60 {
            format!("{}h{:02}m", left / 60, left % 60)
        } else {
            format!("{left}m")
        };
        // The minute may turn between the two clocks.
        let block = format!("${} block, ", usd(cost));
        assert!(line.contains(&block), "{line} lacks {block}");
        assert!(
            line.contains(&format!("{left} left")) || line.contains(" left"),
            "{line}"
        );
    } else {
        assert!(!line.contains("block"), "{line}");
    }
}

/// The bytes of a line Claude Code may show: printable text and SGR
/// colours only.
fn assert_inert(what: &str, line: &str) {
    assert_eq!(line.matches('\n').count(), 1, "{what}: {line:?}");
    common::assert_terminal_safe(what, line.as_bytes(), true);
}

#[test]
fn hostile_input_gives_one_inert_line_and_exit_0() {
    let home = Home::new("hostile", &[(now_ms() - 60_000, "h")]);
    let fifo = home.root.join("fifo");
    let _ = std::process::Command::new("mkfifo").arg(&fifo).status();
    let evil = "\u{1b}]52;c;aGVsbG8=\u{7}\u{1b}[2J\u{202e}evil\u{9b}31m";
    let mut inputs: Vec<(String, String)> = vec![
        ("not JSON".into(), "{{{ not json".into()),
        ("empty".into(), String::new()),
        ("10 MB".into(), format!("{{\"x\":\"{}\"}}", "a".repeat(10 << 20))),
        ("100 MB".into(), format!("{{\"x\":\"{}\"}}", "a".repeat(100 << 20))),
        ("deep".into(), "[".repeat(100_000)),
        (
            "escapes".into(),
            serde_json::json!({"model": {"display_name": evil}, "session_id": evil, "transcript_path": evil}).to_string(),
        ),
        (
            "numbers as strings, NaN, negative".into(),
            r#"{"cost":{"total_cost_usd":"NaN"},"context_window":{"used_percentage":-5},"rate_limits":{"five_hour":{"used_percentage":"1e999","resets_at":-1},"seven_day":{"used_percentage":"55","resets_at":1e300}}}"#.into(),
        ),
    ];
    for t in ["/dev/zero", "/dev/null", "/", "/nonexistent/x.jsonl"] {
        inputs.push((
            t.into(),
            serde_json::json!({"transcript_path": t}).to_string(),
        ));
    }
    inputs.push((
        "a FIFO".into(),
        serde_json::json!({"transcript_path": fifo}).to_string(),
    ));
    // A 10 GB sparse file (no disk), and another agent's log.
    let sparse = home.root.join("sparse.jsonl");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(10 << 30)
        .unwrap();
    let codex = common::fixture("codex-rollout/mixed.rollout.jsonl");
    for (what, t) in [("a 10 GB sparse file", sparse), ("a Codex rollout", codex)] {
        inputs.push((
            what.into(),
            serde_json::json!({"transcript_path": t}).to_string(),
        ));
    }
    for (what, input) in inputs {
        let t = Instant::now();
        let (line, code) = home.line(&input, &[]);
        assert_eq!(code, 0, "{what}");
        assert_inert(&what, &line);
        assert!(!line.contains("evil\u{9b}"), "{what}: {line:?}");
        // Generous: a hang or a read of /dev/zero would take far longer.
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{what}: {:?}",
            t.elapsed()
        );
    }
}

#[test]
fn an_input_that_never_ends_still_gives_a_line() {
    let home = Home::new("open", &[]);
    let mut child = sv_std()
        .args(["--statusline", "--color", "never"])
        .env("HOME", &home.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"model\":{\"display_name\":\"Opus\"}")
        .unwrap();
    let t = Instant::now();
    let status = common::wait_deadline(&mut child, Duration::from_secs(5));
    assert!(status.success());
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    drop(stdin);
    assert!(out.starts_with("Claude · "), "{out}");
}

#[test]
fn colours_say_the_thresholds_and_the_width_is_kept() {
    let home = Home::new("colours", &[(now_ms() - 60_000, "c")]);
    let input = r#"{"model":{"display_name":"Opus"},"context_window":{"used_percentage":91},"rate_limits":{"five_hour":{"used_percentage":55},"seven_day":{"used_percentage":3}}}"#;
    let (plain, _) = home.line(input, &[]);
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    let out = common::sv()
        .args(["--statusline", "--color", "always"])
        .env("HOME", &home.root)
        .write_stdin(input)
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    // Red for 91%, yellow for 55%, green for 3%.
    for (pct, sgr) in [("91%", "31m"), ("55%", "33m"), ("3%", "32m")] {
        let at = out.find(pct).unwrap_or_else(|| panic!("{out:?}"));
        assert!(
            out[..at].rsplit('\u{1b}').next().unwrap().contains(sgr),
            "{pct}: {out:?}"
        );
    }
    for width in [40usize, 60, 200] {
        let (line, _) = home.line(input, &[("COLUMNS", &width.to_string())]);
        assert!(line.trim_end().chars().count() <= width, "{width}: {line}");
        assert!(line.starts_with("Opus"), "{line}");
    }
}
