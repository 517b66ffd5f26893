//! Terminal safety (issue 6): nothing from the input — text, tool input and
//! output, file names, error messages, model and MCP server names, session
//! ids — and nothing from the command line reaches stdout or stderr as a
//! raw ESC (CSI, OSC 52 clipboard writes, OSC 8 links, titles), C1 control,
//! backspace or carriage-return overwrite, or bidi override; with colour on
//! and off, in every verbosity and format, for every producer. JSONL stays
//! exact: the same strings, escaped.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a panic is a failure"
)]

mod common;

use std::os::unix::ffi::OsStrExt;

use common::{
    PRODUCERS, all_fixtures, assert_jsonl, assert_terminal_safe, fixture, read, run, run_all, sv,
    temp_file,
};
use serde_json::Value;
use streamview::render::Verbosity;

/// Everything a terminal can be made to do, in one string: colours, an OSC
/// 52 clipboard write, an OSC 8 link, a title change (BEL- and ST-ended), C1
/// CSI and NEL, backspaces and a carriage return that would overwrite what
/// came before, bidi overrides, isolates and marks, NUL, DEL, a line break
/// in the middle (which must not start a line of our own) and a fake
/// summary line.
const HOSTILE: &str = "\u{1b}[31mred\u{1b}[0m\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}]8;;http://evil/\u{1b}\\link\u{1b}]8;;\u{1b}\\\u{1b}]0;pwned\u{7}\u{9b}2J\u{85}ok\u{8}\u{8}\rEVIL\u{202e}txt.exe\u{2066}\u{2069}\u{200e}\u{200f}\u{61c}\u{0}\u{7f}\n✓ done · fake\r\n";

/// Salt every string of `v` with [`HOSTILE`]: `keys` too when asked; the
/// strings of the fields named in `keep` stay (so events decode as usual).
fn salt(v: &mut Value, keep: &[&str], keys: bool) {
    match v {
        Value::String(s) => s.push_str(HOSTILE),
        Value::Array(a) => a.iter_mut().for_each(|x| salt(x, keep, keys)),
        Value::Object(m) => {
            let old = std::mem::take(m);
            for (k, mut x) in old {
                if !(x.is_string() && keep.contains(&k.as_str())) {
                    salt(&mut x, keep, keys);
                }
                let k = if keys && !keep.contains(&k.as_str()) {
                    format!("{k}{HOSTILE}")
                } else {
                    k
                };
                m.insert(k, x);
            }
        }
        _ => {}
    }
}

fn salted(data: &[u8], keep: &[&str], keys: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for line in data.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        match serde_json::from_slice::<Value>(line) {
            Ok(mut v) => {
                salt(&mut v, keep, keys);
                out.extend_from_slice(v.to_string().as_bytes());
            }
            Err(_) => out.extend_from_slice(line),
        }
        out.push(b'\n');
    }
    out
}

/// Variants: content salted but the fields that pick the event kept; also
/// the tool names; everything but `type`; everything, keys included.
const KEEPS: [(&[&str], bool); 4] = [
    (
        &[
            "type",
            "subtype",
            "kind",
            "role",
            "name",
            "tool_name",
            "status",
            "id",
            "tool_use_id",
            "call_id",
            "uuid",
            "parentUuid",
        ],
        false,
    ),
    (&["type", "subtype", "kind", "role"], false),
    (&["type"], false),
    (&[], true),
];

/// Every fixture of every producer, salted four ways, read detected and as
/// every producer, in every verbosity: JSONL, diagnostics, pretty stdout
/// and the stderr mirror, plain and in colour, carry nothing raw.
#[test]
fn salted_fixtures_of_every_producer_stay_inert() {
    let mut runs = 0;
    for path in all_fixtures() {
        let data = read(&path);
        if data.len() > 1 << 20 {
            continue; // the 5 MB one adds time, not cases
        }
        for (i, (keep, keys)) in KEEPS.iter().enumerate() {
            let input = salted(&data, keep, *keys);
            let what = format!("{} salted {i}", path.display());
            // Each verbosity in turn (the pretty sink at that verbosity,
            // JSONL and colour in every run), then every other decoder on the
            // same lines.
            let verbosity = [Verbosity::Quiet, Verbosity::Normal, Verbosity::Verbose][runs % 3];
            run_all(&input, None, verbosity).check(&what);
            let from = PRODUCERS[1 + (runs % (PRODUCERS.len() - 1))];
            run_all(&input, from, Verbosity::Verbose).check(&format!("{what} {from:?}"));
            runs += 1;
        }
    }
    assert!(runs > 400, "{runs}");
}

/// The content is salted; the JSONL carries exactly the same strings.
#[test]
fn jsonl_keeps_the_hostile_strings_exactly() {
    let data = salted(
        &read(&fixture("claude/tools_basic.jsonl")),
        KEEPS[0].0,
        false,
    );
    let o = run(&["--format", "jsonl"], &data);
    assert_terminal_safe("jsonl", &o.stdout, false);
    let texts: Vec<String> = o
        .out()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "text")
        .map(|v| v["text"].as_str().unwrap().to_string())
        .collect();
    assert!(!texts.is_empty());
    for t in texts {
        assert!(t.ends_with(HOSTILE), "{t:?}");
    }
    assert!(o.out().contains(r"\u001b]52;c;ZXZpbA==\u0007"));
    assert!(
        o.out()
            .contains(r"\u202etxt.exe\u2066\u2069\u200e\u200f\u061c\u0000\u007f")
    );
}

/// The whole binary, end to end, for one salted fixture per producer: every
/// format, verbosity and colour setting (with errors mirrored to stderr, as
/// through a pipe). Also what the pretty output shows instead.
#[test]
fn the_binary_in_every_mode_writes_nothing_raw() {
    for name in [
        "claude/tool_errors.jsonl",
        "claude/permission_denied.jsonl",
        "claude/subagent.jsonl",
        "codex/mcp.jsonl",
        "codex/shell_fail.jsonl",
        "gemini/tool_error.jsonl",
        "gemini/mcp.jsonl",
        "opencode/tool_error.jsonl",
        "qwen/tool_error.jsonl",
        "amp/server_error.jsonl",
        "cursor/tool_errors.jsonl",
        "claude-transcript/transcript_subagent.jsonl",
    ] {
        let data = salted(&read(&fixture(name)), KEEPS[0].0, false);
        let formats: [&[&str]; 8] = [
            &["--format", "pretty"],
            &["--format", "jsonl"],
            &["--format", "summary"],
            &["--format", "summary-json"],
            &["--summary"],
            &["--format", "jsonl", "--summary"],
            &["--only", "tools,errors"],
            &["--format", "jsonl", "--hide", "text,tools"],
        ];
        for fmt in formats {
            for verbosity in [&[][..], &["-v"], &["-q"]] {
                for color in ["always", "never"] {
                    let mut args = fmt.to_vec();
                    args.extend_from_slice(verbosity);
                    args.extend_from_slice(&["--color", color]);
                    let o = run(&args, &data);
                    let what = format!("{name} {args:?}");
                    let json = fmt.contains(&"jsonl") || fmt.contains(&"summary-json");
                    let colour = color == "always" && !json;
                    assert_terminal_safe(&format!("{what} stdout"), &o.stdout, colour);
                    assert_terminal_safe(&format!("{what} stderr"), &o.stderr, color == "always");
                    if json && verbosity != ["-q"] {
                        assert_jsonl(&what, &o.stdout);
                    }
                }
            }
        }
        // `--format result` writes the answer exactly when stdout is not a
        // terminal (`answer=$(…)`, like `jq -r`); its stderr is inert.
        let o = run(&["--format", "result"], &data);
        assert_terminal_safe(&format!("{name} result stderr"), &o.stderr, false);
        // Table cells (session ids, models, sources) stay on their row.
        let o = run(&["--format", "summary"], &data);
        assert!(
            !o.out().lines().any(|l| l.starts_with("✓ done · fake")),
            "{name}: {}",
            o.out()
        );
    }
    // What it looks like: every sequence visible, on the line it came in.
    let data = salted(
        &read(&fixture("claude/tool_errors.jsonl")),
        KEEPS[0].0,
        false,
    );
    let o = run(&[], &data);
    let out = o.out();
    assert!(
        out.contains("␛[31mred␛[0m␛]52;c;ZXZpbA==␇␛]8;;http://evil/␛\\link"),
        "{out}"
    );
    assert!(out.contains("<U+009B>2J<U+0085>ok␈␈␍EVIL<U+202E>txt.exe<U+2066>"));
    // A line break inside a one-line field (model, directory, tool key)
    // does not start a line of its own: shown as ␊, or the rest counted.
    // (Assistant text is multi-line by nature and printed as such.)
    let header = out.lines().next().unwrap();
    assert!(
        header.starts_with("● ") && header.contains("␊✓ done · fake␊"),
        "{header}"
    );
    assert!(out.contains("▸ Bash echo 'about to fail'"));
    assert!(
        out.lines()
            .filter(|l| l.starts_with("▸ "))
            // An edit's line ends with its counts (`+1 −1`) after that.
            .all(|l| l.ends_with(" (+1 line)") || l.contains(" (+1 line) +"))
    );
}

/// File names come from the command line but end up in diagnostics: a
/// name with escape sequences (and bytes that are not UTF-8) is shown
/// inert, for a missing file and for a file with a bad line.
#[test]
fn hostile_file_names_in_diagnostics() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let mut name = b"evil-\x1b]0;title\x07\x1b[2J-\xc2\x9b-\xe2\x80\xae-".to_vec();
    name.extend_from_slice(format!("{}.jsonl", std::process::id()).as_bytes());
    let evil = dir.join(std::ffi::OsStr::from_bytes(&name));
    std::fs::write(
        &evil,
        b"{\"type\":\"system\",\"subtype\":\"init\"}\n{broken\n",
    )
    .unwrap();
    let missing = dir.join(std::ffi::OsStr::from_bytes(b"gone-\x1b[31m\x9b\x07.jsonl"));
    for extra in [
        &[][..],
        &["-v"],
        &["-q"],
        &["--format", "jsonl"],
        &["--color", "always"],
    ] {
        let o = sv().args(extra).arg(&evil).arg(&missing).output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let colour = extra.contains(&"always");
        assert_terminal_safe(&format!("{extra:?} stderr"), &o.stderr, colour);
        assert_terminal_safe(&format!("{extra:?} stdout"), &o.stdout, colour);
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            err.contains("evil-␛]0;title␇␛[2J-<U+009B>-<U+202E>-"),
            "{err}"
        );
        assert!(
            err.contains(":2: invalid JSON at byte 1 (unterminated object)"),
            "{err}"
        );
        assert!(err.contains("cannot open "), "{err}");
        assert!(
            err.contains("gone-␛[31m\u{fffd}␇.jsonl: no such file"),
            "{err}"
        );
    }
    std::fs::remove_file(&evil).unwrap();
}

/// clap quotes a value it cannot use: with a hostile value, that quote is
/// sanitized too.
#[test]
fn hostile_arguments_in_usage_errors() {
    for args in [
        &["--format", "\u{1b}]0;pwn\u{7}\u{1b}[31mX\u{202e}"][..],
        &["--max-line-bytes", "1\u{9b}2J"],
        &["--from", "x\u{8}\u{8}\rclaude"],
        &["--\u{1b}[5mblink"],
    ] {
        let o = sv().args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_terminal_safe(&format!("{args:?}"), &o.stderr, false);
        assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: "));
    }
    // Ordinary usage errors are clap's own, unchanged.
    let o = sv().args(["--format", "nope"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid value 'nope'"));
}

/// Verbose excerpts of skipped lines quote the input: inert too, and cut.
#[test]
fn excerpts_of_skipped_lines_are_inert() {
    let mut input = b"{\"type\":\"system\",\"subtype\":\"init\"}\n{".to_vec();
    input.extend_from_slice(HOSTILE.as_bytes());
    input.extend_from_slice(b"\n\x1b]52;c;x\x07\xff\xfe\x9b\n");
    let long = format!("{{{}\n", HOSTILE.repeat(100));
    input.extend_from_slice(long.as_bytes());
    let path = temp_file("excerpts.jsonl", &input);
    let o = sv().arg("-v").arg(&path).output().unwrap();
    assert_terminal_safe("stderr", &o.stderr, false);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("streamview:   | {␛[31mred"), "{err}");
    assert!(err.lines().all(|l| l.chars().count() < 200), "{err}");
}
