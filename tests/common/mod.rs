//! Helpers shared by the hardening tests (issue 6): the binary with a
//! hermetic environment, in-process runs over every sink, fixtures, and the
//! terminal-safety check every output goes through.

#![allow(dead_code, reason = "each test file uses a part")]

pub mod compress;
pub mod hostile;
pub mod pipeline;
pub mod saved;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use streamview::diag::Diag;
use streamview::render::{Jsonl, Pretty, PrettyOptions, Verbosity};
use streamview::{Producer, Runner};
use termcolor::{Ansi, NoColor};

/// Variables that change what streamview does; removed from every run.
pub const ENV_VARS: [&str; 5] = [
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "STREAMVIEW_VERBOSE",
    "STREAMVIEW_QUIET",
];

/// Upper bound for any single run: a hang fails the test instead of blocking it.
pub const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Every `--from` value, `None` for detection: every producer of the
/// registry (`Producer::ALL`), so that a new one is thrown every fixture.
pub const PRODUCERS: [Option<Producer>; Producer::ALL.len() + 1] = {
    let mut all = [None; Producer::ALL.len() + 1];
    let mut i = 0;
    while i < Producer::ALL.len() {
        all[i + 1] = Some(Producer::ALL[i]);
        i += 1;
    }
    all
};

/// The binary with a hermetic environment.
pub fn sv() -> Command {
    let mut cmd = Command::cargo_bin("streamview").unwrap();
    for v in ENV_VARS {
        cmd.env_remove(v);
    }
    // No configuration file; an index of this test process's own.
    cmd.env("STREAMVIEW_CONFIG", "");
    cmd.env("STREAMVIEW_CACHE_DIR", test_cache());
    cmd.timeout(RUN_LIMIT);
    cmd
}

/// The cache directory of this test process's runs: reports over the same
/// library in one test file share an index, as a user's runs do.
pub fn test_cache() -> PathBuf {
    std::env::temp_dir().join(format!("streamview-test-cache-{}", std::process::id()))
}

/// The same, as a `std::process::Command` for runs driven by hand.
pub fn sv_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("streamview"));
    for v in ENV_VARS {
        cmd.env_remove(v);
    }
    // No configuration file; an index of this test process's own.
    cmd.env("STREAMVIEW_CONFIG", "");
    cmd.env("STREAMVIEW_CACHE_DIR", test_cache());
    cmd
}

/// The outcome of one run of the binary.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Out {
    pub fn out(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    pub fn err(&self) -> String {
        String::from_utf8(self.stderr.clone()).expect("stderr is UTF-8")
    }
}

/// Run the binary with arguments and stdin.
pub fn run(args: &[&str], stdin: &[u8]) -> Out {
    let o = sv()
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .unwrap();
    Out {
        code: o
            .status
            .code()
            .expect("exited normally, not by a signal or the timeout"),
        stdout: o.stdout,
        stderr: o.stderr,
    }
}

pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every stream fixture (`*.jsonl`), sorted.
pub fn all_fixtures() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in std::fs::read_dir(fixture("")).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(v.len() >= 100, "fixtures missing: {}", v.len());
    v
}

/// A file in cargo's per-target temporary directory (never under tests/).
pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardening-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Wait for a spawned child, killing it (and failing) after `limit`.
pub fn wait_deadline(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("streamview did not exit within {limit:?}");
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// Read a pipe to its end on a thread.
pub fn drain<R: Read + Send + 'static>(mut r: R) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

// ------------------------------------------------------------ in-process runs

/// What one in-process run over every sink produced.
#[derive(Debug, PartialEq, Eq)]
pub struct Outputs {
    pub status: streamview::ExitStatus,
    pub jsonl: Vec<u8>,
    pub diag: Vec<u8>,
    /// Pretty, no colour, at the given verbosity: stdout and the mirror.
    pub plain: Vec<u8>,
    pub plain_err: Vec<u8>,
    /// Pretty in colour: stdout and the mirror.
    pub color: Vec<u8>,
    pub color_err: Vec<u8>,
}

/// Run `data` through the library as the binary would (JSONL, pretty plain,
/// pretty in colour with errors mirrored), reading with `--from from`.
pub fn run_all(data: &[u8], from: Option<Producer>, verbosity: Verbosity) -> Outputs {
    let max_line = 1 << 20;
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), true);
    let mut runner = Runner::new(&mut sink, &mut diag, max_line).with_producer(from);
    runner.source("in", data).unwrap();
    let (_, status) = runner.finish().unwrap();
    let (jsonl, diag) = (sink.into_inner(), diag.into_inner());

    let opts = PrettyOptions {
        verbosity,
        max_lines: 4,
        mirror_errors: true,
    };
    let mut sink = Pretty::new(
        NoColor::new(Vec::new()),
        NoColor::new(Vec::new()),
        opts.clone(),
    );
    let mut d = Diag::new(Vec::new(), verbosity == Verbosity::Verbose);
    let mut runner = Runner::new(&mut sink, &mut d, max_line).with_producer(from);
    runner.source("in", data).unwrap();
    let (_, st) = runner.finish().unwrap();
    assert_eq!(st, status, "the exit status does not depend on the format");
    let (o, e) = sink.into_inner();
    let (plain, plain_err) = (o.into_inner(), e.into_inner());

    let mut sink = Pretty::new(Ansi::new(Vec::new()), Ansi::new(Vec::new()), opts);
    let mut d = Diag::new(Vec::new(), false);
    let mut runner = Runner::new(&mut sink, &mut d, max_line).with_producer(from);
    runner.source("in", data).unwrap();
    let _ = runner.finish().unwrap();
    let (o, e) = sink.into_inner();
    Outputs {
        status,
        jsonl,
        diag,
        plain,
        plain_err,
        color: o.into_inner(),
        color_err: e.into_inner(),
    }
}

impl Outputs {
    /// Every documented invariant of an output: a documented status, JSONL
    /// that parses, and nothing a terminal would act on anywhere.
    pub fn check(&self, what: &str) {
        assert!(
            matches!(
                self.status,
                streamview::ExitStatus::Success
                    | streamview::ExitStatus::SessionError
                    | streamview::ExitStatus::Incomplete
            ),
            "{what}: status {:?}",
            self.status
        );
        assert_jsonl(what, &self.jsonl);
        assert_terminal_safe(&format!("{what} jsonl"), &self.jsonl, false);
        assert_terminal_safe(&format!("{what} diagnostics"), &self.diag, false);
        assert_terminal_safe(&format!("{what} pretty"), &self.plain, false);
        assert_terminal_safe(&format!("{what} pretty stderr"), &self.plain_err, false);
        assert_terminal_safe(&format!("{what} colour"), &self.color, true);
        assert_terminal_safe(&format!("{what} colour stderr"), &self.color_err, true);
    }
}

/// Every line parses as JSON (without `serde_json`'s recursion limit: a tool
/// input may legitimately nest up to simd-json's 1024 levels).
pub fn assert_jsonl(what: &str, jsonl: &[u8]) {
    for line in jsonl.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut de = serde_json::Deserializer::from_slice(line);
        de.disable_recursion_limit();
        let parsed = serde::de::Deserialize::deserialize(&mut de)
            .map(|_: serde_json::Value| ())
            .and_then(|()| de.end());
        if let Err(e) = parsed {
            panic!(
                "{what}: JSONL line does not parse ({e}): {}",
                String::from_utf8_lossy(line)
            );
        }
    }
}

/// The characters a terminal acts on: C0 but tab and newline, DEL, C1, and
/// the bidi overrides, isolates and marks.
pub fn is_forbidden(c: char) -> bool {
    matches!(c,
        '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{200e}' | '\u{200f}' | '\u{061c}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Only `\n`, `\t` and, when `colour`, streamview's own SGR sequences
/// (`ESC [ digits ; m`): nothing from the content reaches the terminal raw.
pub fn assert_terminal_safe(what: &str, bytes: &[u8], colour: bool) {
    let s = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
    let mut chars = s.char_indices();
    while let Some((at, c)) = chars.next() {
        if c == '\x1b' && colour {
            let ok = chars.next().map(|x| x.1) == Some('[')
                && loop {
                    match chars.next().map(|x| x.1) {
                        Some('0'..='9' | ';') => {}
                        Some('m') => break true,
                        _ => break false,
                    }
                };
            assert!(ok, "{what}: an escape that is not ours at byte {at}: {s:?}");
            continue;
        }
        assert!(
            !is_forbidden(c),
            "{what}: raw {c:?} at byte {at}: {:?}",
            around(s, at)
        );
    }
}

/// Up to 60 bytes either side of `at`, on character boundaries.
fn around(s: &str, at: usize) -> &str {
    let from = (0..=at.saturating_sub(60))
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0);
    let to = ((at + 60).min(s.len())..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[from..to]
}

/// Every number as a float: our JSONL's embedded `raw` keeps the producer's
/// spelling (`-0`, `1E2`) and a second pass re-encodes it (`0`, `100.0`):
/// the same JSON numbers, which `serde_json::Value`'s equality (integer vs
/// float variants) would tell apart.
pub fn numbers_as_floats(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_floats).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, numbers_as_floats(v)))
                .collect(),
        ),
        other => other,
    }
}

/// Each line of a JSONL output, parsed.
pub fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Ctrl-C to the process `pid` (`kill -INT`).
pub fn sigint(pid: u32) {
    let ok = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill -INT {pid}");
}

/// Wait until the process `pid` has read `bytes` (its `rchar` in
/// `/proc/<pid>/io`), so that a signal sent next lands while it reads:
/// a fixed sleep raced a release build, which read a whole test library
/// before it. Without `/proc`, or past `limit`, it returns anyway.
pub fn wait_read(pid: u32, bytes: u64, limit: Duration) {
    let deadline = Instant::now() + limit;
    let path = format!("/proc/{pid}/io");
    while Instant::now() < deadline {
        let Ok(io) = std::fs::read_to_string(&path) else {
            thread::sleep(limit);
            return;
        };
        let read = io
            .lines()
            .find_map(|l| l.strip_prefix("rchar:"))
            .and_then(|n| n.trim().parse::<u64>().ok());
        if read.is_some_and(|n| n >= bytes) {
            return;
        }
        thread::sleep(Duration::from_micros(500));
    }
}

/// Real captures of every producer, Claude transcripts and Codex rollouts
/// included, that the report formats are shown on (tests/formats.rs
/// snapshots them, tests/browser.rs loads them in a browser).
pub const REPORT_CAPTURES: [&str; 16] = [
    "claude-2.1.330/subagent.jsonl",
    "claude/tool_errors.jsonl",
    "claude/permission_denied.jsonl",
    "claude-2.1.330/permission_denied.jsonl",
    "claude/hook_events.jsonl",
    "claude/edit_write.jsonl",
    "claude-transcript/v2.1.330_transcript_subagent.jsonl",
    "codex/apply_patch.jsonl",
    "codex-rollout/mixed.rollout.jsonl",
    "gemini/parallel.jsonl",
    "gemini/tool_error.jsonl",
    "opencode/tool_error.jsonl",
    "qwen/todos.jsonl",
    "amp/subagent.jsonl",
    "cursor/tool_errors.jsonl",
    "claude/api_error_500.jsonl",
];

/// A library of Claude transcripts in `dir`, one session per `(day, model)`
/// (a copy of `transcript_tools_basic.jsonl` moved to that day, answered
/// by that model), `copies` times over: for `--by day`'s bars and chart.
pub fn days_library(dir: &Path, days: &[(&str, &str)], copies: usize) {
    let base = String::from_utf8(read(&fixture(
        "claude-transcript/transcript_tools_basic.jsonl",
    )))
    .unwrap();
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    for c in 0..copies {
        for (i, (day, model)) in days.iter().enumerate() {
            let model = serde_json::to_string(model).unwrap();
            let text = base
                .replace("2026-11-22T", &format!("{day}T"))
                .replace("\"claude-opus-4-8\"", &model)
                .replace("\"sessionId\":\"", &format!("\"sessionId\":\"{c}-{i}-"))
                // Each a session of its own, not a copy of the others.
                .replace("\"msg_", &format!("\"msg_{c}_{i}_"))
                .replace("\"req_", &format!("\"req_{c}_{i}_"));
            std::fs::write(project.join(format!("s{c}-{i}.jsonl")), text).unwrap();
        }
    }
}

/// streamview run with `args` (and `env`, `NAME=value` words of the
/// shell, after `TERM=xterm`, which they may change) on a pseudo-terminal of `cols` × `rows` made by util-linux
/// `script`, its keys from the returned child's stdin, the screen on its
/// stdout (when `screen`); and the file where its pid will be (the shell
/// `exec`s it). `None`: `script` is not installed (the test says it skips).
pub fn on_pty(
    dir: &Path,
    env: &str,
    args: &str,
    (cols, rows): (u16, u16),
    screen: bool,
) -> Option<(Child, PathBuf)> {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: util-linux `script` is not installed");
        return None;
    }
    let bin = assert_cmd::cargo::cargo_bin("streamview");
    let pid = dir.join("pid");
    let cmd = format!(
        "stty cols {cols} rows {rows}; echo $$ > '{}'; STREAMVIEW_CONFIG= TERM=xterm {env} exec '{}' {args}",
        pid.display(),
        bin.display()
    );
    let child = std::process::Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(if screen {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::null())
        .spawn()
        .expect("script runs");
    Some((child, pid))
}

/// The pid `on_pty`'s shell wrote, once it has.
pub fn pty_pid(file: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "no pid in {}", file.display());
        thread::sleep(Duration::from_millis(20));
    }
}

/// The peak resident memory of a running process, from `/proc` (Linux).
pub fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
