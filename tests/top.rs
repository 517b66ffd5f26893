//! `--top` (issue 47): the board of the sessions being written. Without a
//! terminal, one snapshot; on a pseudo-terminal (util-linux `script`), the
//! board takes the alternate screen, shows a call written while it runs
//! with its key argument, and gives the terminal back on `q` and SIGTERM.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use common::sv_std;

const TOOLS: &str = "claude-transcript/v2.1.330_transcript_tools_basic.jsonl";

/// A home with one session being written (its last line a call still
/// open) and one last written an hour ago.
fn home(name: &str) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("sv-top-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let dir = root.join(".claude/projects/-home-dev-shop");
    fs::create_dir_all(&dir).unwrap();
    let text = fs::read_to_string(common::fixture(TOOLS)).unwrap();
    let live = dir.join("11111111-0000-4000-8000-000000000000.jsonl");
    // The session up to its first call, which is still running.
    let upto = text.find("\"type\":\"tool_use\",\"id\"").unwrap();
    let end = upto + text[upto..].find('\n').unwrap() + 1;
    fs::write(&live, &text[..end]).unwrap();
    let old = dir.join("22222222-0000-4000-8000-000000000000.jsonl");
    fs::write(&old, &text).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    (root, live)
}

/// The key argument of the fixture's first call.
fn first_call() -> (String, String) {
    let text = fs::read_to_string(common::fixture(TOOLS)).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("\"type\":\"tool_use\",\"id\""))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let call = &v["message"]["content"][0];
    let input = call["input"].as_object().unwrap();
    let key = ["file_path", "command", "pattern", "path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(|x| x.as_str()))
        .unwrap();
    (call["name"].as_str().unwrap().to_string(), key.to_string())
}

#[test]
fn without_a_terminal_one_snapshot_of_the_sessions_at_work() {
    let (root, _) = home("snapshot");
    let out = sv_std()
        .arg("--top")
        .env("HOME", &root)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("streamview --top · 1 session"),
        "{text}"
    );
    assert!(lines[1].starts_with("AGENT"), "{text}");
    // The session an hour old is not at work.
    assert_eq!(lines.len(), 3, "{text}");
    let (name, key) = first_call();
    let row = lines[2];
    assert!(row.starts_with("claude "), "{row}");
    assert!(row.contains(&format!("{name} ")), "{row}");
    // The key argument (a path: shown from its project when under it).
    let tail = Path::new(&key).file_name().unwrap().to_str().unwrap();
    assert!(row.contains(tail), "{row} lacks {tail}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn an_openclaw_jsonl_session_at_work_is_openclaws() {
    let root = std::env::temp_dir().join(format!("sv-top-openclaw-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let dir = root.join(".openclaw/agents/main/sessions");
    fs::create_dir_all(&dir).unwrap();
    let from = common::fixture(
        "openclaw-session/legacy/agents/main/sessions/f4fdbb6b-20d5-4bdb-ba72-522f047bb114.jsonl",
    );
    fs::copy(from, dir.join("f4fdbb6b.jsonl")).unwrap();
    let out = sv_std()
        .arg("--top")
        .env("HOME", &root)
        .env_remove("OPENCLAW_STATE_DIR")
        .env_remove("OPENCLAW_DIR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let _ = fs::remove_dir_all(&root);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    // Its header marked as every reader marks it: not Pi's.
    assert!(lines[2].starts_with("openclaw "), "{text}");
    // Its model, its first answer's (no header names it).
    assert!(lines[2].contains(" mock-model "), "{text}");
}

/// `streamview --top` under a pseudo-terminal of 100x20 while `during`
/// runs (given its pid), then `q`: its screen, and whether it exited 0.
/// `None`: no `script` to make the terminal with.
fn on_terminal(root: &Path, wait: Duration, during: impl FnOnce(u32)) -> Option<(String, bool)> {
    on_terminal_as(root, ("", (100, 20)), wait, during)
}

/// [`on_terminal`] with more of the environment (`NAME=value` words) on
/// a terminal of `cols` × `rows`.
fn on_terminal_as(
    root: &Path,
    (env, size): (&str, (u16, u16)),
    wait: Duration,
    during: impl FnOnce(u32),
) -> Option<(String, bool)> {
    let env = format!("HOME='{}' {env}", root.display());
    let (mut child, pid) = common::on_pty(root, &env, "--top", size, true)?;
    let out = common::drain(child.stdout.take().unwrap());
    std::thread::sleep(wait);
    during(common::pty_pid(&pid));
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(b"q");
    let _ = stdin.flush();
    let status = common::wait_deadline(&mut child, Duration::from_secs(10));
    drop(stdin);
    let bytes = out.join().unwrap();
    Some((
        String::from_utf8_lossy(&bytes).into_owned(),
        status.success(),
    ))
}

#[test]
fn on_a_terminal_a_call_written_while_it_runs_shows_and_q_restores() {
    let (root, live) = home("tty");
    let text = fs::read_to_string(common::fixture(TOOLS)).unwrap();
    let Some((out, ok)) = on_terminal(&root, Duration::from_millis(1500), |_| {
        // The call's result, then the next call: the board moves on.
        let from = fs::read_to_string(&live).unwrap().len();
        let rest = &text[from..];
        let second = rest.find("\"type\":\"tool_use\",\"id\"").unwrap();
        let end = second + rest[second..].find('\n').unwrap() + 1;
        let mut f = fs::OpenOptions::new().append(true).open(&live).unwrap();
        f.write_all(&rest.as_bytes()[..end]).unwrap();
        std::thread::sleep(Duration::from_millis(1200));
    }) else {
        return;
    };
    assert!(ok, "{out:?}");
    // The alternate screen entered and left, the cursor shown again.
    let enter = out.find("\u{1b}[?1049h").expect("alternate screen");
    let leave = out.rfind("\u{1b}[?1049l").expect("screen restored");
    assert!(enter < leave);
    assert!(out[leave..].contains("\u{1b}[?25h"), "{:?}", &out[leave..]);
    assert!(out.contains("streamview --top · 1 session"), "{out:?}");
    // The second call, written while the board ran.
    let rest: String = text
        .lines()
        .filter(|l| l.contains("\"type\":\"tool_use\",\"id\""))
        .nth(1)
        .unwrap()
        .into();
    let v: serde_json::Value = serde_json::from_str(&rest).unwrap();
    let name = v["message"]["content"][0]["name"].as_str().unwrap();
    assert!(out.contains(&format!("{name} ")), "{out:?}");
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn sigterm_ends_the_board_and_restores_the_terminal() {
    let (root, _) = home("term");
    let t = Instant::now();
    let Some((out, _)) = on_terminal(&root, Duration::from_millis(1500), |pid| {
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        std::thread::sleep(Duration::from_millis(500));
    }) else {
        return;
    };
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(out.contains("\u{1b}[?1049l"), "{out:?}");
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn a_closed_terminal_ends_the_board() {
    let (root, _) = home("closed");
    let env = format!("HOME='{}'", root.display());
    let Some((mut script, pid)) = common::on_pty(&root, &env, "--top", (100, 20), false) else {
        return;
    };
    std::thread::sleep(Duration::from_millis(1500));
    let pid = common::pty_pid(&pid);
    // The terminal goes: its other end is closed with `script`.
    script.kill().unwrap();
    let _ = script.wait();
    let deadline = Instant::now() + Duration::from_secs(5);
    let proc = PathBuf::from(format!("/proc/{pid}"));
    while proc.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let stat = fs::read_to_string(proc.join("stat")).unwrap_or_default();
    // Gone, or a zombie waiting for its parent.
    assert!(
        !proc.exists() || stat.contains(") Z "),
        "still running: {stat}"
    );
    let _ = fs::remove_dir_all(&root);
}

/// The board left as it was entered: the alternate screen left after it
/// was entered, the cursor shown again.
fn restored(out: &str) -> bool {
    let (Some(enter), Some(leave)) = (out.find("\u{1b}[?1049h"), out.rfind("\u{1b}[?1049l")) else {
        return false;
    };
    enter < leave && out[leave..].contains("\u{1b}[?25h")
}

#[test]
fn terminals_of_any_size_dumb_or_not_utf8_are_drawn_and_given_back() {
    let (root, _) = home("sizes");
    for (env, size) in [
        ("", (1, 1)),
        ("", (10, 3)),
        ("", (500, 200)),
        ("LANG=C LC_ALL=POSIX", (80, 24)),
    ] {
        let Some((out, ok)) =
            on_terminal_as(&root, (env, size), Duration::from_millis(800), |_| {})
        else {
            return;
        };
        assert!(ok, "{env} {size:?}: {out:?}");
        assert!(restored(&out), "{env} {size:?}: {out:?}");
    }
    // A terminal that cannot draw a board gets one snapshot, plain.
    let Some((out, ok)) = on_terminal_as(
        &root,
        ("TERM=dumb", (80, 24)),
        Duration::from_millis(800),
        |_| {},
    ) else {
        return;
    };
    assert!(ok, "{out:?}");
    assert!(out.starts_with("streamview --top · 1 session"), "{out:?}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn a_terminal_resized_and_files_cut_or_gone_under_it_keep_the_board_up() {
    let (root, live) = home("resize");
    let Some((out, ok)) = on_terminal(&root, Duration::from_millis(1200), |pid| {
        // Its terminal made 30x6, then 200x50, said as the kernel says it.
        let tty = fs::read_link(format!("/proc/{pid}/fd/0")).unwrap();
        for (cols, rows) in [(30, 6), (200, 50)] {
            let _ = Command::new("stty")
                .arg("-F")
                .arg(&tty)
                .args(["cols", &cols.to_string(), "rows", &rows.to_string()])
                .status();
            let _ = Command::new("kill")
                .args(["-WINCH", &pid.to_string()])
                .status();
            std::thread::sleep(Duration::from_millis(600));
        }
        // The session's file cut to nothing, then gone.
        fs::write(&live, "").unwrap();
        std::thread::sleep(Duration::from_millis(600));
        fs::remove_file(&live).unwrap();
        std::thread::sleep(Duration::from_millis(600));
    }) else {
        return;
    };
    assert!(ok, "{out:?}");
    assert!(restored(&out), "{out:?}");
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn a_thousand_sessions_at_work_are_one_board() {
    let root = std::env::temp_dir().join(format!("sv-top-many-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let text = fs::read_to_string(common::fixture(TOOLS)).unwrap();
    let upto: usize = text.lines().take(4).map(|l| l.len() + 1).sum();
    let first = &text[..upto];
    for p in 0..10 {
        let dir = root.join(format!(".claude/projects/-home-dev-p{p}"));
        fs::create_dir_all(&dir).unwrap();
        for i in 0..100 {
            fs::write(
                dir.join(format!("{p:02}{i:03}-0000-4000-8000-000000000000.jsonl")),
                first,
            )
            .unwrap();
        }
    }
    let t = Instant::now();
    let out = sv_std()
        .arg("--top")
        .env("HOME", &root)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let took = t.elapsed();
    let _ = fs::remove_dir_all(&root);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("streamview --top · 1000 sessions"),
        "{}",
        text.lines().next().unwrap_or("")
    );
    assert_eq!(
        text.lines().count(),
        1002,
        "a header, the columns, a row each"
    );
    assert!(took < Duration::from_secs(60), "{took:?}");
}
