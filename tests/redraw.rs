//! `--by block -f` (issue 47): the block report made again as the library
//! grows. In a pipe a table per change of usage (the clock alone is not
//! one); on a pseudo-terminal the new table replaces the last in place;
//! Ctrl-C ends it with status 130.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::fs;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::sv_std;

const TOOLS: &str = "claude-transcript/v2.1.330_transcript_tools_basic.jsonl";

/// A library of one transcript whose times are now's, and the line of
/// its first API message, for new ones to be made of.
fn library(name: &str) -> (PathBuf, PathBuf, String) {
    let root = std::env::temp_dir().join(format!("sv-redraw-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let dir = root.join("-home-dev-shop");
    fs::create_dir_all(&dir).unwrap();
    let now = now_rfc3339();
    let text = fs::read_to_string(common::fixture(TOOLS)).unwrap();
    let mut out = String::new();
    let mut message = None;
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v.get("timestamp").is_some() {
            v["timestamp"] = now.clone().into();
        }
        let line = serde_json::to_string(&v).unwrap();
        if message.is_none() && v.pointer("/message/usage").is_some() {
            message = Some(line.clone());
        }
        out.push_str(&line);
        out.push('\n');
    }
    let file = dir.join("11111111-0000-4000-8000-000000000000.jsonl");
    fs::write(&file, out).unwrap();
    (root, file, message.unwrap())
}

fn now_rfc3339() -> String {
    let out = Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%S.000Z"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Another API message like `line`, answered now, with ids of its own.
fn another(line: &str, tag: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["timestamp"] = now_rfc3339().into();
    v["uuid"] = format!("{tag}-uuid").into();
    v["requestId"] = format!("req_{tag}").into();
    v["message"]["id"] = format!("msg_{tag}").into();
    format!("{}\n", serde_json::to_string(&v).unwrap())
}

/// Wait until `out` holds `n` tables (total rows).
fn wait_tables(out: &Arc<Mutex<Vec<u8>>>, n: usize, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    loop {
        let text = String::from_utf8_lossy(&out.lock().unwrap()).into_owned();
        if text.matches("\ntotal ").count() >= n || Instant::now() > deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The cost of the last table's total row.
fn last_total_cost(text: &str) -> String {
    let row = text.lines().rfind(|l| l.starts_with("total ")).unwrap();
    row.split_whitespace()
        .find(|w| w.contains('$'))
        .unwrap()
        .to_string()
}

#[test]
fn in_a_pipe_a_table_per_change_of_usage_until_ctrl_c() {
    let (root, file, message) = library("pipe");
    let mut child = sv_std()
        .args(["--by", "block", "-f"])
        .arg(&root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let sink = Arc::clone(&out);
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let first = wait_tables(&out, 1, Duration::from_secs(20));
    assert_eq!(first.matches("\ntotal ").count(), 1, "{first}");
    let before = last_total_cost(&first);
    // Three rounds of the clock without new usage: no new table.
    std::thread::sleep(Duration::from_millis(4500));
    let same = String::from_utf8_lossy(&out.lock().unwrap()).into_owned();
    assert_eq!(same.matches("\ntotal ").count(), 1, "{same}");
    let mut f = fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(another(&message, "new1").as_bytes()).unwrap();
    drop(f);
    let second = wait_tables(&out, 2, Duration::from_secs(20));
    assert_eq!(second.matches("\ntotal ").count(), 2, "{second}");
    let after = last_total_cost(&second);
    assert_ne!(before, after, "{second}");
    assert!(!second.contains('\u{1b}'), "{second:?}");
    common::sigint(child.id());
    let status = common::wait_deadline(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(130));
    reader.join().unwrap();
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn on_a_terminal_the_new_table_replaces_the_last() {
    let (root, file, message) = library("tty");
    let args = format!("--by block -f --color never '{}'", root.display());
    let Some((mut child, pid)) = common::on_pty(&root, "", &args, (160, 40), true) else {
        return;
    };
    let out = common::drain(child.stdout.take().unwrap());
    std::thread::sleep(Duration::from_millis(2500));
    let mut f = fs::OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(another(&message, "new2").as_bytes()).unwrap();
    drop(f);
    std::thread::sleep(Duration::from_secs(3));
    common::sigint(common::pty_pid(&pid));
    common::wait_deadline(&mut child, Duration::from_secs(10));
    let text = String::from_utf8_lossy(&out.join().unwrap()).into_owned();
    // Back up over the last table's lines, erase, draw again.
    let redraws = text.matches("F\u{1b}[J").count();
    assert!(redraws >= 1, "{text:?}");
    let _ = fs::remove_dir_all(&root);
}
