//! Inputs (issue 15): compressed logs read transparently, by their magic
//! bytes, from files and standard input; a corrupt one reported in one line.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::path::{Path, PathBuf};

use common::compress::{gzip, zstd};
use common::{Out, fixture, read, run, sv, temp_file};

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn run_files(args: &[&str], files: &[&Path]) -> Out {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(files.iter().map(|p| path_str(p)));
    run(&all, b"")
}

/// Two fixtures of every producer, and the 5 MB capture (many gzip blocks,
/// lines longer than a read).
fn samples() -> Vec<PathBuf> {
    let mut v = vec![fixture("misc/claude_big_output.jsonl")];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("misc"))
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        v.extend(files.into_iter().take(2));
    }
    assert!(v.len() > 15, "{v:?}");
    v
}

/// JSONL `out` with the input's name `name` (in `source`) as `IN`, to
/// compare the output of two inputs holding the same log.
fn named_in(out: &[u8], name: &str) -> String {
    String::from_utf8_lossy(out).replace(&format!(r#""source":"{name}""#), r#""source":"IN""#)
}

/// The gzip copy of `path`, under a name that says nothing of gzip:
/// detection is by content.
fn gz_copy(path: &Path, name: &str) -> PathBuf {
    temp_file(name, &gzip(&read(path)))
}

#[test]
fn a_gzip_file_gives_the_output_of_the_plain_file() {
    for (i, path) in samples().iter().enumerate() {
        let gz = gz_copy(path, &format!("sample-{i}.jsonl"));
        for args in [&["--color", "never"][..], &["--format", "jsonl"]] {
            let plain = run_files(args, &[path]);
            let packed = run_files(args, &[&gz]);
            let what = format!("{} {args:?}", path.display());
            assert!(!plain.stdout.is_empty(), "{what}");
            assert_eq!(
                named_in(&packed.stdout, path_str(&gz)),
                named_in(&plain.stdout, path_str(path)),
                "{what}: stdout"
            );
            assert_eq!(packed.code, plain.code, "{what}: exit status");
            assert_eq!(
                packed.err().replace(path_str(&gz), "IN"),
                plain.err().replace(path_str(path), "IN"),
                "{what}: stderr"
            );
        }
        std::fs::remove_file(gz).unwrap();
    }
}

#[test]
fn gzip_on_standard_input_gives_the_output_of_the_plain_input() {
    for path in samples().iter().take(6) {
        let data = read(path);
        for args in [&["--color", "never"][..], &["--format", "jsonl"], &["-"]] {
            let plain = run(args, &data);
            let packed = run(args, &gzip(&data));
            let what = format!("{} {args:?}", path.display());
            assert_eq!(packed.stdout, plain.stdout, "{what}: stdout");
            assert_eq!(packed.stderr, plain.stderr, "{what}: stderr");
            assert_eq!(packed.code, plain.code, "{what}: exit status");
        }
    }
}

#[test]
fn concatenated_gzip_members_read_as_the_concatenated_logs() {
    let (a, b) = (
        read(&fixture("claude/text_only.jsonl")),
        read(&fixture("codex/text.jsonl")),
    );
    let mut gz = gzip(&a);
    gz.extend(gzip(&b));
    let mut plain = a.clone();
    plain.extend(&b);
    let packed = run(&["--format", "jsonl"], &gz);
    let expected = run(&["--format", "jsonl"], &plain);
    assert_eq!(packed.stdout, expected.stdout);
    assert_eq!(packed.code, expected.code);
}

#[test]
fn a_truncated_gzip_file_is_one_line_and_the_next_input_is_read() {
    let full = gzip(&read(&fixture("misc/claude_big_output.jsonl")));
    let cut = temp_file("cut.jsonl.gz", &full[..full.len() / 2]);
    let next = fixture("claude/text_only.jsonl");
    let o = run_files(&["--format", "jsonl"], &[&cut, &next]);
    assert_eq!(o.code, 2, "a file that cannot be read: {o:?}");
    let err = o.err();
    assert_eq!(
        err,
        format!(
            "streamview: error reading {}: truncated gzip data (the input ends in the middle of \
             the compressed stream)\n",
            cut.display()
        )
    );
    // What was decompressed before the cut is shown, then the next file.
    let alone = run_files(&["--format", "jsonl"], &[&next]);
    let out = o.out();
    assert!(out.ends_with(&alone.out()), "the next input is read");
    assert!(out.len() > alone.out().len() * 2, "the first half is shown");
    std::fs::remove_file(cut).unwrap();
}

#[test]
fn corrupt_gzip_on_standard_input_is_one_line() {
    let mut gz = gzip(&read(&fixture("misc/claude_big_output.jsonl")));
    let mid = gz.len() / 2;
    for b in &mut gz[mid..mid + 64] {
        *b = !*b;
    }
    let o = run(&["--format", "jsonl"], &gz);
    assert_eq!(o.code, 2, "{o:?}");
    let err = o.err();
    assert!(
        err.starts_with("streamview: error reading <stdin>: corrupt gzip data (")
            && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn a_gzip_file_is_not_followed_but_read_once() {
    let path = fixture("claude/tools_basic.jsonl");
    let gz = gz_copy(&path, "follow.jsonl");
    let o = sv()
        .args(["--color", "never", "-f", path_str(&gz)])
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    let plain = run_files(&["--color", "never"], &[&path]);
    assert_eq!(o.stdout, plain.stdout);
    assert_eq!(o.status.code(), Some(plain.code));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!(
            "streamview: {}: gzip-compressed: read to its end, not followed\n",
            gz.display()
        )
    );
    std::fs::remove_file(gz).unwrap();
}

// ------------------------------------------------------- not an event stream

/// The lines of stderr that report a skipped line, and the rest.
fn err_split(err: &str) -> (usize, Vec<&str>) {
    let skipped = err.lines().filter(|l| l.ends_with("; skipped")).count();
    let rest = err.lines().filter(|l| !l.ends_with("; skipped")).collect();
    (skipped, rest)
}

#[test]
fn a_binary_file_is_one_message_not_one_per_line() {
    let mut binaries = vec![PathBuf::from(env!("CARGO_BIN_EXE_streamview"))];
    if Path::new("/bin/ls").exists() {
        binaries.push(temp_file("ls", &read(Path::new("/bin/ls"))));
    }
    let good = fixture("claude/text_only.jsonl");
    let alone = run_files(&["--color", "never"], &[&good]);
    assert_eq!(alone.code, 0);
    for bin in &binaries {
        let o = run_files(&["--color", "never"], &[bin]);
        let err = o.err();
        assert_eq!(o.code, 3, "no session in the input: {err}");
        // One line: the lines it skipped are not listed. How many of a
        // binary's first lines happen to read as text depends on its layout
        // (a build of streamview itself had 2 of 22).
        let head = format!(
            "streamview: {}: not an event stream (20 of its first ",
            bin.display()
        );
        let tail = " lines cannot be read as text or JSON); the rest of it is skipped\n";
        assert!(err.starts_with(&head) && err.ends_with(tail), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");

        // The next input is read as if the binary was not there; the
        // binary held no session, so the status is 3.
        let o = run_files(&["--color", "never"], &[bin, &good]);
        assert_eq!(o.code, 3, "{}", o.err());
        assert!(o.out().ends_with(&alone.out()), "{}", o.out());
        assert_eq!(o.err(), err);
    }
}

#[test]
fn a_binary_on_standard_input_is_one_message() {
    let o = run(
        &["--format", "jsonl"],
        &read(Path::new(env!("CARGO_BIN_EXE_streamview"))),
    );
    assert_eq!(o.code, 3);
    let err = o.err();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("streamview: <stdin>: not an event stream ("),
        "{err}"
    );
}

#[test]
fn a_short_binary_is_one_message_too() {
    // Fewer lines than it takes to decide before the end.
    let o = run(&["--color", "never"], &b"\xff\xfe\x00\x01\n".repeat(5));
    assert_eq!(o.code, 3);
    assert_eq!(
        o.err(),
        "streamview: <stdin>: not an event stream (5 of its 5 lines cannot be read as text or \
         JSON)\n"
    );
}

#[test]
fn bad_lines_after_an_event_are_all_reported() {
    // The input is an event stream: its damage is reported line by line.
    let mut data = read(&fixture("claude/text_only.jsonl"));
    for i in 0..40 {
        data.extend(format!("{{\"broken\": {i}\n").as_bytes());
    }
    let err = run(&["--color", "never"], &data).err();
    let (skipped, rest) = err_split(&err);
    assert_eq!(skipped, 40, "{err}");
    assert_eq!(rest, ["streamview: 40 lines skipped"]);
}

#[test]
fn bad_lines_among_more_text_lines_are_all_reported() {
    // Text with bad lines in it (a mostly readable file): not given up.
    let mut data = Vec::new();
    for i in 0..30 {
        data.extend(format!("note {i}\nnote {i} again\n").as_bytes());
        data.extend(b"caf\xe9\n");
    }
    let o = run(&["--color", "never"], &data);
    let (skipped, _) = err_split(&o.err());
    assert_eq!(skipped, 30, "{}", o.err());
    assert!(!o.err().contains("not an event stream"), "{}", o.err());
}

// ----------------------------------------------- inputs without a session

#[test]
fn each_input_without_a_session_gets_a_note_and_makes_the_status_3() {
    let good = fixture("claude/text_only.jsonl");
    let empty = temp_file("empty.jsonl", b"");
    let notes = temp_file("notes.txt", b"some notes\nmore notes\n");
    let blank = temp_file("blank.jsonl", b"\n\n{\"broken\n");
    let alone = run_files(&["--color", "never"], &[&good]);
    let o = run_files(&["--color", "never"], &[&good, &empty, &notes, &blank]);
    assert_eq!(o.code, 3, "{o:?}");
    assert!(o.out().starts_with(&alone.out()));
    let err = o.err();
    let lines: Vec<&str> = err.lines().filter(|l| !l.ends_with("; skipped")).collect();
    assert_eq!(
        lines,
        [
            format!(
                "streamview: {}: no session (the input is empty)",
                empty.display()
            ),
            format!(
                "streamview: {}: no session (only 2 lines of text)",
                notes.display()
            ),
            format!(
                "streamview: {}: no session (every line was blank or skipped)",
                blank.display()
            ),
            "streamview: 1 line skipped".to_string(),
        ],
        "{err}"
    );
    // The same inputs each with a session: 0 and nothing on stderr.
    let o = run_files(&["--color", "never"], &[&good, &good]);
    assert_eq!((o.code, o.err()), (0, String::new()));
}

#[test]
fn a_lone_input_without_a_session_gets_the_hint_and_no_note() {
    let empty = temp_file("lone-empty.jsonl", b"");
    let o = run_files(&[], &[&empty]);
    assert_eq!(o.code, 3);
    assert_eq!(
        o.err(),
        "streamview: the input is empty; run the agent with --output-format stream-json --verbose \
         (e.g. claude -p \"…\" --output-format stream-json --verbose | streamview)\n"
    );
}

#[test]
fn several_inputs_without_a_session_get_a_note_each_then_the_hint() {
    let empty = temp_file("e1.jsonl", b"");
    let o = run(&[empty.to_str().unwrap(), "-"], b"text\n");
    assert_eq!(o.code, 3);
    assert_eq!(
        o.err(),
        format!(
            "streamview: {}: no session (the input is empty)\n\
             streamview: <stdin>: no session (only 1 line of text)\n\
             streamview: no input held a session; run the agent with --output-format \
             stream-json --verbose (e.g. claude -p \"…\" --output-format stream-json --verbose \
             | streamview)\n",
            empty.display()
        )
    );
}

// ------------------------------------------------- --follow of a missing file

/// A path in cargo's temporary directory where nothing is yet.
fn missing(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("inputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn follow_waits_for_a_missing_file_to_appear() {
    use std::process::Stdio;
    use std::time::Duration;
    let path = missing("later.jsonl");
    let mut child = common::sv_std()
        .args(["--color", "never", "-f"])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = common::drain(child.stdout.take().unwrap());
    let err = common::drain(child.stderr.take().unwrap());
    std::thread::sleep(Duration::from_millis(400));
    assert!(child.try_wait().unwrap().is_none(), "it waits");
    let log = fixture("claude/tools_basic.jsonl");
    // Written elsewhere and renamed, as a log appears at once.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, read(&log)).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    let status = common::wait_deadline(&mut child, Duration::from_secs(20));
    let plain = run_files(&["--color", "never"], &[&log]);
    assert_eq!(out.join().unwrap(), plain.stdout);
    assert_eq!(
        String::from_utf8(err.join().unwrap()).unwrap(),
        format!(
            "streamview: {}: no such file yet; waiting for it to appear\n",
            path.display()
        )
    );
    assert_eq!(status.code(), Some(0));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn ctrl_c_while_waiting_for_a_missing_file() {
    use std::process::Stdio;
    use std::time::Duration;
    let path = missing("never.jsonl");
    let mut child = common::sv_std()
        .args(["-f"])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = common::drain(child.stderr.take().unwrap());
    std::thread::sleep(Duration::from_millis(400));
    common::sigint(child.id());
    let status = common::wait_deadline(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(130));
    let err = String::from_utf8(err.join().unwrap()).unwrap();
    assert!(
        err.starts_with(&format!(
            "streamview: {}: no such file yet; waiting for it to appear\n",
            path.display()
        )),
        "{err}"
    );
}

// ------------------------------------------------------ a terminal on stdin

/// Bare `streamview` at a prompt (under a pseudo-terminal from util-linux
/// `script`, as in tests/status.rs): one line says what it waits for, and
/// it goes on waiting (killed by `timeout`, status 124).
#[test]
fn bare_streamview_on_a_terminal_says_how_to_use_it_and_waits() {
    let bin = env!("CARGO_BIN_EXE_streamview");
    let out = std::process::Command::new("script")
        .args([
            "-q",
            "-e",
            "-c",
            &format!("timeout 1 '{bin}' --no-status; echo rc=$?"),
            "/dev/null",
        ])
        .env("TERM", "xterm-256color")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("util-linux `script` runs a command under a pseudo-terminal; install util-linux");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        format!(
            "streamview: {}\r\nrc=124\r\n",
            streamview::drive::TERMINAL_HINT
        )
    );
    assert!(streamview::drive::TERMINAL_HINT.contains("Ctrl-D"));
}

// ---------------------------------------------------------------------- zstd

#[test]
fn zstd_files_and_stdin_give_the_output_of_the_plain_input() {
    for (i, path) in samples().iter().enumerate().take(8) {
        let data = read(path);
        let zst = temp_file(&format!("sample-{i}.jsonl"), &zstd(&data));
        for args in [&["--color", "never"][..], &["--format", "jsonl"]] {
            let plain = run_files(args, &[path]);
            let what = format!("{} {args:?}", path.display());
            let packed = run_files(args, &[&zst]);
            let plain_out = named_in(&plain.stdout, path_str(path));
            assert_eq!(
                named_in(&packed.stdout, path_str(&zst)),
                plain_out,
                "{what}: file"
            );
            assert_eq!(packed.code, plain.code, "{what}: file");
            let piped = run(args, &zstd(&data));
            assert_eq!(
                named_in(&piped.stdout, "<stdin>"),
                plain_out,
                "{what}: stdin"
            );
            assert_eq!(piped.code, plain.code, "{what}: stdin");
        }
        std::fs::remove_file(zst).unwrap();
    }
}

#[test]
fn a_truncated_zstd_input_is_one_line() {
    let full = zstd(&read(&fixture("misc/claude_big_output.jsonl")));
    let o = run(&["--format", "jsonl"], &full[..full.len() / 2]);
    assert_eq!(o.code, 2, "{o:?}");
    assert_eq!(
        o.err(),
        "streamview: error reading <stdin>: truncated zstd data (the input ends in the middle of \
         the compressed stream)\n"
    );
}

#[test]
fn a_short_binary_file_is_given_up_without_control_pictures() {
    // Issue 49 §12: its first line, valid UTF-8 with NULs, was shown as
    // text (`␀␁␂…`) before the file was found not to be a stream.
    let bytes: Vec<u8> = (0u8..=255).cycle().take(768).collect();
    let zip = b"PK\x03\x04\x14\x00\x00\x00\x08\x00abc\x00\x01\x02\nxyz\x00\x00\n";
    for (name, bytes) in [("short.bin", &bytes[..]), ("short.zip", &zip[..])] {
        let f = temp_file(name, bytes);
        let o = run(&["--color", "never", f.to_str().unwrap()], b"");
        assert!(o.stdout.is_empty(), "{name}: {}", o.out());
        let err = o.err();
        assert!(!err.contains('␀') && !err.contains('␁'), "{name}: {err}");
        assert!(err.contains("not an event stream"), "{name}: {err}");
    }
}
