//! Hardening, round 3 (issue 30): the classes the held-out adversarial
//! suite found, one test each, on crafted inputs.
//!
//! - a followed file replaced by a compressed one (a rotation), and
//!   compressed sub-agent files under `--latest -f`, are decompressed; a
//!   deleted one is said once;
//! - the price table's words reach every output inert, and a file name in
//!   a refusal stays on its one line;
//! - a count or cost no log means is refused, its line named;
//! - a large `LiteLLM` table loads in linear time;
//! - a saved session of one huge JSON document is refused in one line that
//!   says why, with bounded memory;
//! - a directory of many tiny session files is read in bounded time;
//! - `--list` over hostile file names and titles stays inert;
//! - `-j 65535` over a library runs, its output that of `-j1`;
//! - `/dev/zero` (a file or standard input) is given up as binary after a
//!   bounded read;
//! - a FIFO without a writer among several `-f` files is said to wait for
//!   one, once, and the other files are followed meanwhile.
//!
//! docs/usage.md ("Bad input", "Terminal safety") documents each result.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a panic is a failure"
)]

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::{assert_terminal_safe, fixture, read, sv, sv_std};
use serde_json::json;

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardening-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-5","cwd":"/w","tools":["Bash"]}"#;
const DONE: &str =
    r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s1","num_turns":1}"#;

fn text_line(text: &str) -> String {
    json!({"type":"assistant","session_id":"s1","message":{"id":"m1","content":[{"type":"text","text":text}]}})
        .to_string()
}

/// A Claude Code stream: init, `lines`, and a result when `done`.
fn stream(lines: &[String], done: bool) -> Vec<u8> {
    let mut v = format!("{INIT}\n");
    for l in lines {
        v += l;
        v.push('\n');
    }
    if done {
        v += DONE;
        v.push('\n');
    }
    v.into_bytes()
}

/// Wait for `child` (at most 30 s: then it is killed and the test fails).
fn finish(child: Child) -> Output {
    let pid = child.id().to_string();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || tx.send(child.wait_with_output()));
    let got = rx.recv_timeout(Duration::from_secs(30));
    if got.is_err() {
        let _ = std::process::Command::new("kill").arg(&pid).status();
    }
    got.expect("the view ends").unwrap()
}

// ----------------------------------------------------------------- follow

/// `-f` on a file that a rotation replaces by a compressed one (renamed
/// over it, or rewritten in place) reads the new file decompressed, to its
/// end, as a file compressed from the start is read: it was read as text
/// (lines of gzip's bytes skipped as not UTF-8).
#[test]
fn a_followed_file_replaced_by_a_compressed_one_is_decompressed() {
    let d = dir("rotated");
    let rotated = stream(&[text_line("after the rotation")], true);
    for (how, packed) in [
        ("renamed gzip", common::compress::gzip(&rotated)),
        ("rewritten zstd", common::compress::zstd(&rotated)),
    ] {
        let log = d.join("log.jsonl");
        fs::write(&log, stream(&[text_line("before the rotation")], false)).unwrap();
        let child = sv_std()
            .args(["--color", "never", "-f"])
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        thread::sleep(Duration::from_millis(400));
        if how.starts_with("renamed") {
            fs::write(d.join("tmp"), &packed).unwrap();
            fs::rename(d.join("tmp"), &log).unwrap();
        } else {
            fs::write(&log, &packed).unwrap();
        }
        let got = finish(child);
        let (out, err) = (
            String::from_utf8(got.stdout).unwrap(),
            String::from_utf8(got.stderr).unwrap(),
        );
        assert_eq!(got.status.code(), Some(0), "{how}: {err}");
        assert!(out.contains("before the rotation"), "{how}: {out}");
        assert!(out.contains("after the rotation"), "{how}: {out}");
        assert!(!err.contains("not valid UTF-8"), "{how}: {err}");
        let kind = how.split(' ').nth(1).unwrap();
        assert!(
            err.contains(&format!("{kind}-compressed: read to its end, not followed")),
            "{how}: {err}"
        );
        assert_terminal_safe(how, out.as_bytes(), false);
        assert_terminal_safe(how, err.as_bytes(), false);
    }
    let _ = fs::remove_dir_all(&d);
}

/// A followed file that is deleted is said once (one line, not one per
/// look) and read on; a file that then appears in its place is read from
/// its start, to the session's end.
#[test]
fn a_followed_file_deleted_then_recreated_is_said_once_and_read_again() {
    let d = dir("deleted");
    let log = d.join("log.jsonl");
    fs::write(&log, stream(&[text_line("the first file")], false)).unwrap();
    let child = sv_std()
        .args(["--color", "never", "-f"])
        .arg(&log)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    thread::sleep(Duration::from_millis(400));
    fs::remove_file(&log).unwrap();
    thread::sleep(Duration::from_millis(600));
    fs::write(&log, stream(&[text_line("the second file")], true)).unwrap();
    let got = finish(child);
    let (out, err) = (
        String::from_utf8(got.stdout).unwrap(),
        String::from_utf8(got.stderr).unwrap(),
    );
    assert_eq!(got.status.code(), Some(0), "{err}");
    assert!(
        out.contains("the first file") && out.contains("the second file"),
        "{out}"
    );
    assert_eq!(err.matches("deleted; read on").count(), 1, "{err}");
    assert_eq!(
        err.matches("replaced; reading it again").count(),
        1,
        "{err}"
    );
    assert_eq!(err.lines().count(), 2, "{err}");
    let _ = fs::remove_dir_all(&d);
}

/// `--latest -f`: a session's sub-agent file compressed (`agent-x.jsonl.gz`,
/// or gzip's bytes under `agent-x.jsonl`) is decompressed and read, as a
/// library reads it: the first was never picked up, the second was read
/// as text.
#[test]
fn latest_follow_reads_compressed_sub_agent_files() {
    let t = |n: &str| {
        read(&fixture(&format!(
            "claude-transcript/v2.1.330_transcript_subagent{n}.jsonl"
        )))
    };
    let agent = "agent-a33c7066d6f0e2ac6";
    for name in [format!("{agent}.jsonl.gz"), format!("{agent}.jsonl")] {
        let root = dir("latest-gz");
        let agents = root.join("p/s/subagents");
        fs::create_dir_all(&agents).unwrap();
        fs::write(root.join("p/s.jsonl"), t("")).unwrap();
        let packed = common::compress::gzip(&t(&format!(".{agent}")));
        fs::write(agents.join(&name), packed).unwrap();
        let mut child = sv_std()
            .args(["--latest", "-f", "--color", "never"])
            .arg(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        let mut seen = Vec::new();
        while let Ok(l) = rx.recv_timeout(Duration::from_secs(20)) {
            let found = l.contains("▸ Bash wc -l src/lib.rs");
            seen.push(l);
            if found {
                break;
            }
        }
        // A transcript never says it has ended: Ctrl-C ends the following.
        common::sigint(child.id());
        let got = finish(child);
        let err = String::from_utf8(got.stderr).unwrap();
        assert!(
            seen.iter().any(|l| l.contains("▸ Bash wc -l src/lib.rs")),
            "{name}: the sub-agent's call never came: {seen:#?}\n{err}"
        );
        assert!(!err.contains("not valid UTF-8"), "{name}: {err}");
        let _ = fs::remove_dir_all(&root);
    }
}

// ----------------------------------------------------------------- prices

/// The words of a price table (`as_of`, read from any file `--prices`
/// names) reach the terminal, Markdown and HTML through the sanitizer, as
/// a log's: an escape sequence or a bidi control shows as a visible
/// stand-in. The date was printed raw.
#[test]
fn the_price_tables_words_reach_every_output_inert() {
    let d = dir("as-of");
    let table = d.join("prices.json");
    fs::write(
        &table,
        json!({"as_of": "2026\u{1b}[2J\u{1b}]0;pwned\u{7}\u{202e}-01\u{9b}31m",
               "source": "\u{1b}]8;;https://evil\u{7}x",
               "models": {"gpt-5.5": {"input": 2, "output": 16}}})
        .to_string(),
    )
    .unwrap();
    let log = fixture("codex-rollout/mixed.rollout.jsonl");
    for format in ["summary", "markdown", "html", "summary-json", "pretty"] {
        let o = sv()
            .args(["--prices", table.to_str().unwrap(), "--format", format])
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{format}");
        assert_terminal_safe(format, &o.stdout, false);
        assert_terminal_safe(format, &o.stderr, false);
        let out = String::from_utf8(o.stdout).unwrap();
        if format == "summary" {
            assert!(out.contains("␛[2J␛]0;pwned␇<U+202E>-01"), "{format}: {out}");
        }
    }
    let _ = fs::remove_dir_all(&d);
}

/// A file name with a line break, named by an option or the environment,
/// is said on the refusal's one line (`␊`), not on two.
#[test]
fn a_refusal_naming_a_hostile_file_is_one_line() {
    let log = fixture("codex/text.jsonl");
    for (var, opt) in [("STREAMVIEW_PRICES", "--prices"), ("", "--theme")] {
        let name = "/nonexistent/a\nb\u{1b}[2J\u{202e}";
        let mut cmd = sv();
        if var.is_empty() {
            cmd.arg(opt).arg(format!(".{name}"));
        } else {
            cmd.env(var, name);
        }
        let o = cmd.arg(&log).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{opt}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{opt}: {err}");
        assert!(err.contains("a␊b␛[2J<U+202E>"), "{opt}: {err}");
        assert_terminal_safe(opt, err.as_bytes(), false);
    }
}

/// A `LiteLLM` table of 100,000 models loads in about four times the time
/// of one of 25,000 (the issue measured 1.4 s and 42 s), and within a
/// bound.
#[test]
fn a_large_litellm_table_loads_in_linear_time() {
    let d = dir("litellm");
    let table = |n: usize| {
        let mut t = serde_json::Map::new();
        for i in 0..n {
            let name = match i % 3 {
                0 => format!("model-{i}-2025{:02}01", i % 12 + 1),
                1 => format!("provider{}/model-{i}-v{}", i % 50, i % 7),
                _ => format!("us.anthropic.claude-{i}@latest[1m]"),
            };
            t.insert(
                name,
                json!({"input_cost_per_token": 1e-6, "output_cost_per_token": 5e-6,
                       "input_cost_per_token_above_200k_tokens": 2e-6,
                       "litellm_provider": "openai", "mode": "chat"}),
            );
        }
        let path = d.join(format!("litellm-{n}.json"));
        fs::write(&path, serde_json::Value::Object(t).to_string()).unwrap();
        path
    };
    let log = fixture("codex-rollout/mixed.rollout.jsonl");
    let time = |path: &Path| {
        (0..2)
            .map(|_| {
                let start = Instant::now();
                let o = sv()
                    .args(["--format", "summary-json", "--prices"])
                    .arg(path)
                    .arg(&log)
                    .output()
                    .unwrap();
                assert_eq!(o.status.code(), Some(0));
                start.elapsed()
            })
            .min()
            .unwrap()
    };
    let (small, large) = (time(&table(25_000)), time(&table(100_000)));
    eprintln!("LiteLLM table: 25,000 models {small:?}, 100,000 models {large:?}");
    assert!(large < Duration::from_secs(20), "{large:?}");
    assert!(
        large < small * 10,
        "superlinear: 25,000 in {small:?}, 100,000 in {large:?}"
    );
    let _ = fs::remove_dir_all(&d);
}

/// Issue 51: a `LiteLLM` table of 80,000 models, 10 MB, of the shapes that
/// were slow (long names with a provider, many keys, long-context tiers)
/// loads in at most 16 MiB and three times the file (the release build's
/// bound; an unoptimized test build maps 10 MiB more of itself).
#[test]
fn a_large_litellm_table_loads_within_three_times_its_size() {
    let d = dir("litellm-memory");
    let mut t = serde_json::Map::new();
    for i in 0..80_000 {
        let name = match i % 4 {
            0 => format!("model-{i}-2025{:02}01", i % 12 + 1),
            1 => format!(
                "provider{}/a-rather-long-family-name-{i}-instruct-v{}",
                i % 50,
                i % 7
            ),
            2 => format!("us.anthropic.claude-{i}@latest[1m]"),
            _ => format!("model-{i}"),
        };
        let mut e = json!({"input_cost_per_token": 1e-6, "output_cost_per_token": 5e-6,
                           "litellm_provider": "openai", "mode": "chat"});
        if i % 10 == 0 {
            for k in [128, 200, 256] {
                e[format!("input_cost_per_token_above_{k}k_tokens")] = json!(2e-6);
                e[format!("output_cost_per_token_above_{k}k_tokens")] = json!(8e-6);
            }
        }
        t.insert(name, e);
    }
    let path = d.join("litellm.json");
    fs::write(&path, serde_json::Value::Object(t).to_string()).unwrap();
    let file_kib = fs::metadata(&path).unwrap().len() >> 10;
    // Kept running (its input open) until its first session is shown,
    // so its peak can be read.
    let mut child = sv_std()
        .args(["--prices"])
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&read(&fixture("claude/tools_basic.jsonl")))
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert!(lines.any(|l| l.unwrap().starts_with("✓ done")));
    let peak = common::vm_hwm_kib(child.id());
    drop(stdin);
    let _ = child.wait();
    let _ = fs::remove_dir_all(&d);
    let Some(peak) = peak else {
        eprintln!("skipped: no /proc/<pid>/status here");
        return;
    };
    let slack = if cfg!(debug_assertions) { 10 << 10 } else { 0 };
    let bound = (16 << 10) + 3 * file_kib + slack;
    eprintln!("LiteLLM table of {file_kib} KiB: peak RSS {peak} KiB (bound {bound} KiB)");
    assert!(peak <= bound, "{peak} KiB > {bound} KiB");
}

// ------------------------------------------------------ implausible numbers

/// A count or cost no log means (`u64::MAX` tokens, a cost of 1e308 or
/// beyond a float) is refused where its line is read, the file, line and
/// count named on one line, and the totals stay finite and plausible (they
/// printed `~$5.534e13` and `18446744073709.6M`). The rest of the line and
/// the session are read.
#[test]
fn counts_and_costs_no_log_means_are_refused_with_their_line_named() {
    let usage = |n: &str, said: &str| {
        format!(
            r#"{{"type":"assistant","session_id":"s1","message":{{"id":"m{said}","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"said {said}"}}],"usage":{{"input_tokens":{n},"output_tokens":3}}}}}}"#
        )
    };
    let result = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s1","num_turns":2,"total_cost_usd":1e308,"usage":{"input_tokens":5,"output_tokens":18446744073709551615}}"#;
    let d = dir("implausible");
    let log = d.join("big.jsonl");
    let mut text = format!(
        "{INIT}\n{}\n{}\n",
        usage("18446744073709551615", "one"),
        usage("7", "two")
    );
    text += result;
    text.push('\n');
    fs::write(&log, text).unwrap();
    for format in ["pretty", "summary", "summary-json", "markdown", "jsonl"] {
        let o = sv()
            .args(["--color", "never", "--format", format])
            .arg(&log)
            .output()
            .unwrap();
        let (out, err) = (
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        );
        assert_eq!(o.status.code(), Some(0), "{format}: {err}");
        let name = log.display();
        let said = [
            format!(
                "{name}:2: input count 18446744073709551615 is not a plausible number of tokens"
            ),
            format!("{name}:4: cost 1e308 is not a plausible cost"),
        ];
        for s in &said {
            assert_eq!(err.matches(s.as_str()).count(), 1, "{format}: {err}");
        }
        if !format.starts_with("summary") {
            assert!(
                out.contains("said one") && out.contains("said two"),
                "{format}: {out}"
            );
        }
        for absurd in ["e13", "e308", "$inf", "NaN", "18446744073709"] {
            assert!(!out.contains(absurd), "{format}: {absurd} in {out}");
        }
    }
    let _ = fs::remove_dir_all(&d);
}

// --------------------------------------------------------- saved sessions

/// Gemini CLI's older saved session is one JSON document, read as one
/// line: one larger than `--max-line-bytes` is refused with one line that
/// says so and what to do (it said `1 of its 1 lines cannot be read as
/// text or JSON`), read through in bounded memory and time.
#[test]
fn a_saved_session_of_one_huge_document_is_refused_in_one_clear_line() {
    let d = dir("gemini-doc");
    let chats = d.join("tmp/abc/chats");
    fs::create_dir_all(&chats).unwrap();
    let file = chats.join("session-2026-01-01T00-00-abc.json");
    let mut w = std::io::BufWriter::new(fs::File::create(&file).unwrap());
    w.write_all(b"{\n  \"sessionId\": \"abc\",\n  \"messages\": [\n")
        .unwrap();
    let message = format!(
        "    {{\"id\": \"m\", \"type\": \"gemini\", \"content\": \"{}\"}},\n",
        "x".repeat(64 << 10)
    );
    for _ in 0..64 {
        w.write_all(message.as_bytes()).unwrap();
    }
    w.write_all(b"    {\"id\": \"z\", \"type\": \"user\", \"content\": \"end\"}\n  ]\n}\n")
        .unwrap();
    drop(w);
    for args in [&[][..], &["--list"], &["--latest"], &["-j2"]] {
        let started = Instant::now();
        let target: &Path = if args.is_empty() { &file } else { &d };
        let o = sv()
            .args(args)
            .args(["--max-line-bytes", "1M", "--color", "never"])
            .arg(target)
            .output()
            .unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
        let said: Vec<&str> = err.lines().filter(|l| l.contains("not read")).collect();
        assert_eq!(said.len(), 1, "{args:?}: {err}");
        assert!(
            said[0]
                .contains("its one line is longer than --max-line-bytes (1048576), the longest 4")
                && said[0].ends_with("raise --max-line-bytes to read it"),
            "{args:?}: {err}"
        );
        assert!(started.elapsed() < Duration::from_secs(20), "{args:?}");
    }
    let _ = fs::remove_dir_all(&d);
}

/// A directory of 20,000 tiny session files is listed, summed and its
/// latest shown in bounded time.
#[test]
fn a_directory_of_many_tiny_session_files_takes_bounded_time() {
    let d = dir("many");
    fs::create_dir_all(d.join("p")).unwrap();
    for i in 0..20_000 {
        let line = json!({"type":"user","sessionId":format!("s{i}"),
            "timestamp":format!("2026-01-01T00:{:02}:{:02}Z", i / 60 % 60, i % 60),
            "message":{"role":"user","content":"hi"}});
        fs::write(d.join(format!("p/m{i:05}.jsonl")), format!("{line}\n")).unwrap();
    }
    for args in [
        &["--list"][..],
        &["--format", "summary-json"],
        &["--latest"],
    ] {
        let started = Instant::now();
        let o = sv().args(args).arg(&d).output().unwrap();
        let took = started.elapsed();
        assert!(matches!(o.status.code(), Some(0 | 3)), "{args:?}");
        assert!(took < Duration::from_secs(60), "{args:?}: {took:?}");
        eprintln!("{args:?} over 20,000 files: {took:?}");
    }
    let _ = fs::remove_dir_all(&d);
}

/// `--list` over a library whose file names and first prompts hold escape
/// sequences, line breaks and bidi controls: every format stays inert.
#[test]
fn list_over_hostile_names_and_titles_stays_inert() {
    let d = dir("list");
    fs::create_dir_all(d.join("p")).unwrap();
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}\u{9b}31m\nnext";
    let lines = [
        json!({"type":"user","sessionId":"s1","cwd":format!("/w{evil}"),"timestamp":"2026-01-01T00:00:00Z",
               "message":{"role":"user","content":format!("title {evil}")}}),
        json!({"type":"assistant","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z",
               "message":{"id":"m1","model":format!("m{evil}"),"role":"assistant",
                          "content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":5,"output_tokens":3}}}),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    fs::write(d.join(format!("p/a{evil}.jsonl")), text).unwrap();
    // (`--list` prints a table or JSON lines.)
    for format in ["pretty", "jsonl", "summary", "summary-json"] {
        for colour in ["never", "always"] {
            let o = sv()
                .args(["--list", "--format", format, "--color", colour])
                .arg(&d)
                .output()
                .unwrap();
            let what = format!("{format} {colour}");
            assert_eq!(o.status.code(), Some(0), "{what}");
            assert_terminal_safe(&what, &o.stdout, colour == "always");
            assert_terminal_safe(&what, &o.stderr, colour == "always");
        }
    }
    let _ = fs::remove_dir_all(&d);
}

// ---------------------------------------------------------------- threads

/// `-j 65535` over a library reads it on as many threads as the machine
/// gives, with the output and status of `-j1`: it aborted, a thread the
/// system would not give a panic.
#[test]
fn any_number_of_jobs_runs_as_one_thread_does() {
    let library = fixture("claude-transcript");
    for format in ["pretty", "jsonl", "summary-json"] {
        let run = |jobs: &str| {
            sv().args(["--color", "never", "--format", format, "-j", jobs])
                .arg(&library)
                .output()
                .unwrap()
        };
        let (one, many) = (run("1"), run("65535"));
        let err = String::from_utf8_lossy(&many.stderr);
        assert!(!err.contains("panicked"), "{format}: {err}");
        assert_eq!(many.status.code(), one.status.code(), "{format}: {err}");
        assert!(!one.stdout.is_empty(), "{format}");
        assert_eq!(many.stdout, one.stdout, "{format}");
        assert_eq!(many.stderr, one.stderr, "{format}");
    }
}

// ----------------------------------------------------------------- binary

/// `/dev/zero`, named or as standard input, is one line of NULs that never
/// ends: it is given up as binary once it is longer than
/// `--max-line-bytes`, in one line, status 3 (as other input that is not
/// an event stream). It was read for ever.
#[test]
fn dev_zero_is_given_up_as_binary_after_a_bounded_read() {
    let zero = Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    for (args, stdin) in [
        (&[][..], false),
        (&[], true),
        (&["--max-line-bytes", "1K"], false),
        (&["-f"], false),
    ] {
        let mut cmd = sv_std();
        cmd.args(["--color", "never"]).args(args);
        if stdin {
            cmd.stdin(fs::File::open(zero).unwrap());
        } else {
            cmd.arg(zero).stdin(Stdio::null());
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (out, err) = (
            common::drain(child.stdout.take().unwrap()),
            common::drain(child.stderr.take().unwrap()),
        );
        let status = common::wait_deadline(&mut child, Duration::from_secs(10));
        let (out, err) = (out.join().unwrap(), err.join().unwrap());
        let err = String::from_utf8(err).unwrap();
        let what = format!("{args:?} stdin {stdin}");
        assert_eq!(status.code(), Some(3), "{what}: {err}");
        assert!(out.is_empty(), "{what}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        let name = if stdin { "<stdin>" } else { "/dev/zero" };
        assert!(
            err.starts_with(&format!(
                "streamview: {name}: not an event stream (binary: "
            )),
            "{what}: {err}"
        );
    }
}

// ------------------------------------------------------------------- fifo

/// The lines of `r`, each sent on a channel as it comes.
fn lines_of(r: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    rx
}

/// Lines from `rx` until one holds `what` (at most 20 s): the lines.
fn until(rx: &mpsc::Receiver<String>, what: &str) -> Vec<String> {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(l) = rx.recv_timeout(left) else { break };
        let found = l.contains(what);
        seen.push(l);
        if found {
            break;
        }
    }
    seen
}

/// A child killed when dropped: a test that fails leaves no process
/// waiting for ever.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `-f fifo file.jsonl`: the FIFO has no writer, so its `open` waits; one
/// line says so, once, naming it, and the file is followed meanwhile. A
/// writer then comes, and the FIFO is read. The wait was silent.
#[cfg(unix)]
#[test]
fn a_fifo_without_a_writer_among_followed_files_is_said_once() {
    let d = dir("fifo");
    let (fifo, file) = (d.join("fifo"), d.join("file.jsonl"));
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success());
    let log = read(&fixture("claude/tools_basic.jsonl"));
    fs::write(&file, &log).unwrap();
    let mut child = Reaped(
        sv_std()
            .args(["--color", "never", "-f"])
            .arg(&fifo)
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let out = lines_of(child.0.stdout.take().unwrap());
    let err = lines_of(child.0.stderr.take().unwrap());
    let said = until(&err, "no writer");
    let shown = until(&out, "[file] ✓ done");
    // Time for a second saying, were there one.
    thread::sleep(Duration::from_millis(600));
    let said: Vec<String> = said.into_iter().chain(err.try_iter()).collect();
    let fifo_name = fifo.display().to_string();
    assert_eq!(
        said,
        [format!(
            "streamview: {fifo_name}: a FIFO with no writer yet; waiting for one to open it"
        )],
        "{shown:#?}"
    );
    assert!(
        shown.iter().any(|l| l == "[file] ▸ Read README.md")
            && shown.last().is_some_and(|l| l.starts_with("[file] ✓ done")),
        "{shown:#?}"
    );
    // A writer comes: the FIFO is read, and both sessions end.
    let writer = thread::spawn(move || {
        let mut w = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        w.write_all(&log).unwrap();
    });
    let status = common::wait_deadline(&mut child.0, Duration::from_secs(30));
    writer.join().unwrap();
    let rest: Vec<String> = out.iter().collect();
    assert_eq!(status.code(), Some(0), "{rest:#?}");
    assert!(
        rest.iter().any(|l| l.starts_with("[fifo] ✓ done")),
        "{rest:#?}"
    );
    assert_eq!(err.iter().count(), 0);
    let _ = fs::remove_dir_all(&d);
}

// ------------------------------------------------- round 4's new producers

/// A Grok conversation: a message of `n` calls, each answered, then an
/// answer.
fn grok_calls(n: usize) -> String {
    let calls: Vec<serde_json::Value> = (0..n)
        .map(|i| json!({"id": format!("call_{i}"), "type": "function",
                        "function": {"name": "bash", "arguments": format!("{{\"command\": \"echo {i}\"}}")}}))
        .collect();
    let mut grok = json!({"role": "user", "content": "go"}).to_string() + "\n";
    grok += &json!({"role": "assistant", "content": "", "tool_calls": calls}).to_string();
    grok.push('\n');
    for i in 0..n {
        grok += &json!({"role": "tool", "tool_call_id": format!("call_{i}"), "content": "ok"})
            .to_string();
        grok.push('\n');
    }
    grok += &json!({"role": "assistant", "content": "Done."}).to_string();
    grok + "\n"
}

/// Issue 51: the new producers' crafted shapes. A Grok message of 10,000
/// calls, each answered, is read; one of 100,000 (1.1 million values in a
/// line of 12 MB) is refused in one line, as any line too dense to parse
/// within the memory bound; an `OpenClaw` report nested 100,000 deep and a
/// Kimi wire log whose one line is past `--max-line-bytes` are refused in
/// one line; never a panic.
#[test]
fn the_new_producers_crafted_shapes_are_read_or_refused_in_one_line() {
    let d = dir("new-producers");
    for (n, read) in [(10_000, true), (100_000, false)] {
        let grok_file = d.join(format!("grok-{n}.jsonl"));
        fs::write(&grok_file, grok_calls(n)).unwrap();
        let t = Instant::now();
        let o = sv()
            .args(["--format", "summary-json", "--from", "grok"])
            .arg(&grok_file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
        assert_eq!(o.status.code(), Some(0), "{err}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        if read {
            assert_eq!(v["total"]["tool_calls"], n, "{err}");
        } else {
            assert!(
                err.contains(":2: ") && err.contains("too many to parse"),
                "{err}"
            );
        }
    }
    let deep = format!(
        "{{\n\"ok\": true, \"status\": \"ok\", \"payloads\": {}{}\n}}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let kimi = format!(
        "{{\"type\": \"metadata\", \"protocol_version\": \"1.10\"}}\n{{\"timestamp\": 1796186312.5, \"message\": {{\"type\": \"TurnBegin\", \"payload\": {{\"user_input\": \"{}\"}}}}}}\n",
        "a".repeat(2 << 20)
    );
    for (name, text, args) in [
        ("openclaw-deep.json", deep, &[][..]),
        ("wire.jsonl", kimi, &["--max-line-bytes", "1M"][..]),
    ] {
        let path = d.join(name);
        fs::write(&path, text).unwrap();
        let o = sv().args(args).arg(&path).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{name}: {err}");
        assert!(err.lines().count() <= 2, "{name}: {err}");
        assert_terminal_safe(name, &o.stdout, true);
    }
    let _ = fs::remove_dir_all(&d);
}

// ------------------------------------------------------ a store's big session

/// A Hermes store whose sessions' parents go round in a circle, one of them
/// holding `PAIRS` calls and their results: each session is read once
/// (the circle is no loop), every call is counted, and the session is read
/// as its rows are, in bounded memory (the lines are not built whole
/// first: issue 51). The peak is sampled while the export is written.
#[test]
fn a_store_session_of_many_rows_is_read_in_bounded_memory() {
    const PAIRS: usize = 30_000;
    let d = std::env::temp_dir().join(format!("sv-hermes-big-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    let db = d.join("state.db");
    fs::copy(fixture("hermes-session/mixed/state.db"), &db).unwrap();
    let mut conn = rusqlite::Connection::open(&db).unwrap();
    let triggers: Vec<String> = {
        let mut q = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger'")
            .unwrap();
        q.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    for t in triggers {
        conn.execute_batch(&format!("DROP TRIGGER \"{t}\""))
            .unwrap();
    }
    // Each parent is the other's: the second is not there yet.
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    let tx = conn.transaction().unwrap();
    for (id, parent) in [("loop-a", "loop-b"), ("loop-b", "loop-a")] {
        tx.execute(
            "INSERT INTO sessions (id, source, model, parent_session_id, started_at) \
             VALUES (?1, 'cli', 'mock-model', ?2, 1796186400.0)",
            [id, parent],
        )
        .unwrap();
    }
    {
        let mut put = tx
            .prepare(
                "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, \
                 tool_name, timestamp) VALUES ('loop-a', ?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .unwrap();
        let padding = "x".repeat(300);
        for i in 0..PAIRS {
            let call = format!("call_{i}");
            let calls = json!([{"id": call, "type": "function", "function": {
                "name": "terminal", "arguments": json!({"command": format!("echo {i}")}).to_string()}}])
            .to_string();
            #[allow(clippy::cast_precision_loss)]
            let at = 1_796_186_400.0 + i as f64;
            put.execute(rusqlite::params![
                "assistant",
                padding,
                None::<String>,
                calls,
                None::<String>,
                at
            ])
            .unwrap();
            let out = json!({"output": format!("{i} {padding}"), "exit_code": 0}).to_string();
            put.execute(rusqlite::params![
                "tool",
                out,
                call,
                None::<String>,
                "terminal",
                at
            ])
            .unwrap();
        }
    }
    tx.commit().unwrap();
    drop(conn);
    let store_mib = fs::metadata(&db).unwrap().len() >> 20;
    let mut child = sv_std()
        .args(["--format", "jsonl"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut calls = 0;
    let mut peak = None;
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for (n, line) in lines.enumerate() {
        let line = line.unwrap();
        calls += usize::from(line.contains(r#""kind":"tool_call""#));
        if n % 1000 == 0 {
            peak = peak.max(common::vm_hwm_kib(pid));
        }
    }
    let status = child.wait().unwrap();
    let _ = fs::remove_dir_all(&d);
    assert_eq!(calls, PAIRS + 3, "each call once, the fixture's three too");
    assert!(status.code().is_some(), "{status:?}");
    let Some(peak) = peak else {
        eprintln!("skipped: no /proc/<pid>/status here");
        return;
    };
    eprintln!("a store of {store_mib} MiB: peak RSS {peak} KiB");
    assert!(peak < 48 << 10, "{peak} KiB for a store of {store_mib} MiB");
}
