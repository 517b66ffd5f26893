//! The index (issue 46): every report over a library is the same byte for
//! byte with and without it, cold and warm, through what happens to a
//! library (lines appended, a file deleted, rewritten, replaced, another
//! time zone, another price table), and whatever becomes of the index's own
//! file (damaged, cut, a link, written by several runs at once).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::sv_std;

/// The reports compared, over every state.
const REPORTS: &[&[&str]] = &[
    &["--by", "day"],
    &["--by", "model"],
    &["--by", "block"],
    &["--by", "project", "--format", "summary-json"],
    &["--format", "summary-json"],
    &["--list"],
    &["--since", "2026-11-24", "--by", "day"],
    &["--until", "2026-11-24T12:00:00Z", "--format", "summary"],
    &["-j2", "--by", "session"],
    // The sessions of one project: their working directory from the index.
    &["--project", "codex", "--by", "day"],
    &["--project", "work", "--list"],
];

/// A library of copies of real stores: Claude Code's transcripts with
/// sub-agents, Codex's rollouts, `OpenCode`'s databases.
struct Library {
    root: PathBuf,
    cache: PathBuf,
}

impl Library {
    fn new(name: &str) -> Library {
        let root = std::env::temp_dir().join(format!("sv-index-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let lib = root.join("lib");
        for f in ["claude-transcript", "codex-rollout", "opencode-session"] {
            copy_tree(&common::fixture(f), &lib.join(f));
        }
        Library {
            cache: root.join("cache"),
            root,
        }
    }

    fn lib(&self) -> PathBuf {
        self.root.join("lib")
    }

    /// One run: its stdout, stderr and status, with the cache or without.
    fn run(&self, args: &[&str], cached: bool) -> (String, String, i32) {
        let mut cmd = sv_std();
        cmd.env("STREAMVIEW_CACHE_DIR", &self.cache)
            .env("TZ", "UTC")
            .args(args)
            .arg(self.lib());
        if !cached {
            cmd.arg("--no-cache");
        }
        let o = cmd.output().unwrap();
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
            o.status.code().unwrap_or(-1),
        )
    }

    /// Every report the same with the index as without, `extra` added.
    fn same(&self, state: &str, extra: &[&str]) {
        for report in REPORTS {
            let args: Vec<&str> = report.iter().chain(extra).copied().collect();
            let direct = self.run(&args, false);
            assert_eq!(direct.2, 0, "{state} {args:?}: {direct:?}");
            assert_eq!(self.run(&args, true), direct, "{state} {args:?}");
        }
    }

    /// Sessions `-v` says were taken from the index by a `--by day`.
    fn served(&self) -> u64 {
        let (_, err, _) = self.run(&["-v", "--by", "day"], true);
        let said = err
            .lines()
            .find_map(|l| l.split_once(" from the index"))
            .unwrap_or_else(|| panic!("no count of sessions from the index: {err}"));
        said.0.rsplit(' ').next().unwrap().parse().unwrap()
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Wait out the time a change must be older than for the index to trust
/// the file again (`index::RACY_NS`).
fn settle() {
    std::thread::sleep(Duration::from_millis(2_100));
}

/// Give `path` the modification time of `ago` before now.
fn age(path: &Path, ago: Duration) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - ago).unwrap();
}

#[test]
fn every_report_is_the_same_with_the_index_through_every_change() {
    let l = Library::new("walk");
    let lib = l.lib();
    l.same("cold", &[]);
    settle();
    l.same("warm", &[]);
    // A warm run reads the index, not the files: every session of the
    // library but those whose file had a problem to say.
    let served = l.served();
    assert!(served >= 30, "only {served} sessions from the index");

    // Lines appended to a transcript: the same session, grown.
    let grown = lib.join("claude-transcript/transcript_tools_basic.jsonl");
    let more = fs::read(lib.join("claude-transcript/transcript_thinking.jsonl")).unwrap();
    let mut bytes = fs::read(&grown).unwrap();
    bytes.extend_from_slice(&more);
    fs::write(&grown, &bytes).unwrap();
    l.same("appended", &[]);

    // A file deleted.
    fs::remove_file(lib.join("codex-rollout/mixed.rollout.jsonl")).unwrap();
    l.same("deleted", &[]);

    // A file truncated and rewritten with other content, its old time put
    // back: its size and change time still tell.
    let rewritten = lib.join("codex-rollout/text.rollout.jsonl");
    let other = fs::read(lib.join("codex-rollout/plan.rollout.jsonl")).unwrap();
    fs::write(&rewritten, &other).unwrap();
    age(&rewritten, Duration::from_secs(3600));
    l.same("rewritten", &[]);

    // A file replaced by a copy (another inode) with another time.
    let replaced = lib.join("claude-transcript/v2.1.330_transcript_thinking.jsonl");
    let copy = l.root.join("copy.jsonl");
    fs::copy(&replaced, &copy).unwrap();
    age(&copy, Duration::from_secs(86_400));
    fs::rename(&copy, &replaced).unwrap();
    l.same("replaced", &[]);

    settle();
    l.same("settled", &[]);
    // Another time zone, another price table: the index keeps tokens and
    // times, not days or costs.
    l.same("another zone", &["--tz", "Asia/Kolkata"]);
    let prices = l.root.join("prices.json");
    fs::write(
        &prices,
        r#"{"claude-opus-4-8": {"input_cost_per_token": 3e-5, "output_cost_per_token": 9e-5},
            "gpt-5.5": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6}}"#,
    )
    .unwrap();
    l.same(
        "another price table",
        &["--prices", prices.to_str().unwrap()],
    );
    assert!(l.served() >= 28);

    // Directories whose listing the index trusts (unchanged, settled): a
    // session added to one, a folder of sessions made in one, a session
    // taken out of one; each is listed again.
    settle();
    l.same("listings trusted", &[]);
    let rollouts = lib.join("codex-rollout");
    fs::copy(
        rollouts.join("plan.rollout.jsonl"),
        rollouts.join("added.rollout.jsonl"),
    )
    .unwrap();
    l.same("a session added to a listed folder", &[]);
    copy_tree(&lib.join("claude-transcript"), &rollouts.join("nested"));
    l.same("a folder made in a listed folder", &[]);
    settle();
    l.same("settled again", &[]);
    fs::remove_file(rollouts.join("added.rollout.jsonl")).unwrap();
    fs::remove_dir_all(rollouts.join("nested")).unwrap();
    l.same("taken out of a listed folder", &[]);
}

/// One turn of a Claude Code session, as an agent at work appends it to
/// its transcript: a real transcript's lines, their entry, message and
/// request ids made those of turn `n`.
fn turn(n: u32) -> String {
    let src = fs::read_to_string(common::fixture(
        "claude-transcript/v2.1.330_transcript_tools_basic.jsonl",
    ))
    .unwrap();
    src.replace("\"uuid\":\"", &format!("\"uuid\":\"t{n}-"))
        .replace("\"parentUuid\":\"", &format!("\"parentUuid\":\"t{n}-"))
        .replace("\"msg_", &format!("\"msg_t{n}_"))
        .replace("\"req_", &format!("\"req_t{n}_"))
}

fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut f = fs::File::options().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

impl Library {
    /// An empty library.
    fn bare(name: &str) -> Library {
        let root = std::env::temp_dir().join(format!("sv-index-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("lib")).unwrap();
        Library {
            cache: root.join("cache"),
            root,
        }
    }

    /// Reports, stdout and stderr, the same with the index as without;
    /// how many sessions the first of them read on from where the index
    /// left their file (as `-v` says).
    fn same_read_on(&self, state: &str) -> u64 {
        let (out, err, code) = self.run(&["-v", "--by", "day"], true);
        assert_eq!(
            (out, code),
            {
                let d = self.run(&["--by", "day"], false);
                (d.0, d.2)
            },
            "{state} -v"
        );
        for report in [
            &["--by", "day"][..],
            &["--by", "block"],
            &["--format", "summary-json"],
            &["--list"],
        ] {
            let direct = self.run(report, false);
            assert_eq!(self.run(report, true), direct, "{state} {report:?}");
        }
        err.split_once(" more from it")
            .map_or(0, |(n, _)| n.rsplit(' ').next().unwrap().parse().unwrap())
    }
}

#[test]
fn a_grown_transcript_is_read_on_from_where_the_index_left_it() {
    let l = Library::bare("grown");
    let dir = l.lib().join("p");
    fs::create_dir_all(&dir).unwrap();
    let t = dir.join("t.jsonl");
    let first = turn(0);
    let lines: Vec<&str> = first.split_inclusive('\n').collect();
    // Before its first answer: the session's header waits for the model,
    // and the decoder's state is not kept.
    fs::write(&t, lines[..12].concat()).unwrap();
    l.same_read_on("before the first answer");
    append(&t, lines[12..].concat().as_bytes());
    assert_eq!(l.same_read_on("the first turn"), 0, "read whole");
    append(&t, turn(1).as_bytes());
    assert_eq!(l.same_read_on("a turn appended"), 1);

    // What was read before is not read again: a byte of it changed in
    // place (an output count of the first turn, far from both ends of
    // what was read), the index still counts what it read.
    append(&t, turn(2).as_bytes());
    let before = l.run(&["--by", "day"], false);
    let bytes = fs::read(&t).unwrap();
    let at = bytes
        .windows(18)
        .position(|w| w == b"\"output_tokens\":52")
        .unwrap()
        + 16;
    assert!(at > 8192 && bytes.len() - at > 8192 * 2);
    let mut changed = bytes.clone();
    changed[at..at + 2].copy_from_slice(b"99");
    fs::write(&t, &changed).unwrap();
    let direct = l.run(&["--by", "day"], false);
    assert_ne!(direct, before, "the change is seen by a read");
    assert_eq!(l.run(&["--by", "day"], true), before);
    fs::write(&t, &bytes).unwrap();
    assert_eq!(l.same_read_on("the byte put back"), 1);

    // A line cut off (no line break yet): said, with its line number,
    // by a read of the whole file, which keeps nothing (a line had a
    // problem to say); then ended: read on from where the index left it
    // before, then another turn.
    let third = turn(3);
    let (cut, rest) = third.split_at(third.find('\n').unwrap() / 2);
    append(&t, cut.as_bytes());
    assert_eq!(l.same_read_on("a line cut off"), 0);
    append(&t, rest.as_bytes());
    assert_eq!(l.same_read_on("the line ended"), 1);
    append(&t, turn(6).as_bytes());
    assert_eq!(l.same_read_on("another turn"), 1);
    // A line that is not JSON, said as a read says it.
    append(&t, b"{\"type\":\"assistant\",\n");
    assert_eq!(l.same_read_on("a broken line"), 0);
    // Shorter than what was read, then rewritten with other lines as long.
    fs::write(&t, &bytes[..bytes.len() / 2]).unwrap();
    l.same_read_on("cut in half");
    let other = turn(4);
    fs::write(&t, &other.as_bytes()[..bytes.len().min(other.len())]).unwrap();
    l.same_read_on("rewritten");
    // Its sub-agent's file appears: a session of two files.
    let agents = dir.join("t/subagents");
    fs::create_dir_all(&agents).unwrap();
    fs::copy(
        common::fixture(
            "claude-transcript/v2.1.330_transcript_subagent.agent-a33c7066d6f0e2ac6.jsonl",
        ),
        agents.join("agent-a33c7066d6f0e2ac6.jsonl"),
    )
    .unwrap();
    append(&t, turn(5).as_bytes());
    assert_eq!(l.same_read_on("a sub-agent's file"), 0);
}

#[test]
fn a_grown_rollout_is_read_on_line_by_line() {
    let l = Library::bare("grown-rollout");
    let t = l.lib().join("rollout-2026-11-22T04-00-00-resumed.jsonl");
    let all = fs::read_to_string(common::fixture("codex-rollout/resume.rollout.jsonl")).unwrap();
    let lines: Vec<&str> = all.split_inclusive('\n').collect();
    // Last changed two days ago: its decoder's state is not kept, and
    // when it grows it is read whole once.
    fs::write(&t, lines[0]).unwrap();
    age(&t, Duration::from_secs(2 * 86_400));
    l.same_read_on("its first line, two days old");
    append(&t, lines[1].as_bytes());
    assert_eq!(l.same_read_on("line 2"), 0);
    for (i, line) in lines.iter().enumerate().skip(2) {
        append(&t, line.as_bytes());
        assert_eq!(
            l.same_read_on(&format!("line {}", i + 1)),
            1,
            "line {}",
            i + 1
        );
    }
}

/// The index files of a library's cache.
fn index_files(cache: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "idx"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no index in {}", cache.display());
    v
}

#[test]
fn a_damaged_index_is_never_believed() {
    let l = Library::new("damaged");
    let report: &[&str] = &["--format", "summary-json"];
    let direct = l.run(report, false);
    l.run(report, true);
    settle();
    let ix = index_files(&l.cache).pop().unwrap();
    let good = fs::read(&ix).unwrap();
    // Cut at every sixteenth, bytes flipped at every sixteenth.
    for i in 1..16 {
        let at = good.len() * i / 16;
        fs::write(&ix, &good[..at]).unwrap();
        assert_eq!(l.run(report, true), direct, "cut at {at}");
        let mut bad = good.clone();
        bad[at] ^= 0x5a;
        fs::write(&ix, &bad).unwrap();
        assert_eq!(l.run(report, true), direct, "byte {at} flipped");
    }
    // A future version's.
    let mut future = good.clone();
    future[17] = future[17].wrapping_add(1);
    fs::write(&ix, &future).unwrap();
    assert_eq!(l.run(report, true), direct, "another version");
    // A directory, a FIFO in its place.
    fs::remove_file(&ix).unwrap();
    fs::create_dir(&ix).unwrap();
    let (out, err, code) = l.run(report, true);
    assert_eq!((&out, code), (&direct.0, direct.2));
    // At most a line more: the index could not be written.
    let mut more: Vec<&str> = err.lines().collect();
    for line in direct.1.lines() {
        let at = more.iter().position(|l| *l == line);
        more.remove(at.unwrap_or_else(|| panic!("{line:?} not in {err}")));
    }
    assert!(more.len() <= 1, "{more:?}");
    fs::remove_dir(&ix).unwrap();
    #[cfg(unix)]
    {
        let made = std::process::Command::new("mkfifo").arg(&ix).status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(l.run(report, true), direct, "a FIFO");
            fs::remove_file(&ix).unwrap();
        }
        // A link to a file outside the cache: not followed, not written.
        let outside = l.root.join("outside.idx");
        fs::write(&outside, &good).unwrap();
        std::os::unix::fs::symlink(&outside, &ix).unwrap();
        assert_eq!(l.run(report, true), direct, "a link");
        assert_eq!(fs::read(&outside).unwrap(), good, "written through a link");
        // A link to /dev/zero: not followed, never read for ever.
        fs::remove_file(&ix).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &ix).unwrap();
        assert_eq!(l.run(report, true), direct, "a link to /dev/zero");
        fs::remove_file(&ix).unwrap();
    }
    // A sparse file of 2 GB in its place: its head is no index, and it is
    // not read whole.
    let sparse = fs::File::create(&ix).unwrap();
    sparse.set_len(2 << 30).unwrap();
    drop(sparse);
    assert_eq!(l.run(report, true), direct, "a sparse 2 GB file");
}

#[test]
fn runs_writing_the_index_at_once_leave_a_good_one() {
    let l = Library::new("racing");
    let report: &[&str] = &["--by", "day"];
    let direct = l.run(report, false);
    let runs: Vec<_> = (0..8)
        .map(|_| {
            let mut cmd = sv_std();
            cmd.env("STREAMVIEW_CACHE_DIR", &l.cache)
                .env("TZ", "UTC")
                .args(report)
                .arg(l.lib())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for r in runs {
        let o = r.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stdout), direct.0);
        assert_eq!(String::from_utf8_lossy(&o.stderr), direct.1);
    }
    settle();
    assert_eq!(l.run(report, true), direct);
    assert!(l.served() >= 30);
    // No file half written is left behind.
    let names: Vec<_> = fs::read_dir(&l.cache)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        names.iter().all(|n| n.to_string_lossy().ends_with(".idx")),
        "{names:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_cache_others_can_write_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let l = Library::new("shared");
    fs::create_dir_all(&l.cache).unwrap();
    fs::set_permissions(&l.cache, fs::Permissions::from_mode(0o777)).unwrap();
    let report: &[&str] = &["--by", "day"];
    let direct = l.run(report, false);
    let (out, err, code) = l.run(report, true);
    assert_eq!((out, code), (direct.0, direct.2));
    // One line more, first.
    let (note, rest) = err.split_once('\n').unwrap();
    assert_eq!(rest, direct.1);
    assert!(note.contains("others can write to it"), "{note}");
    assert!(fs::read_dir(&l.cache).unwrap().next().is_none(), "written");
}

#[test]
fn no_cache_neither_reads_nor_writes_the_index() {
    let l = Library::new("nocache");
    l.run(&["--by", "day"], false);
    assert!(!l.cache.exists());
    // Nor does a view that needs the events.
    l.run(&["--format", "jsonl"], true);
    assert!(!l.cache.exists());
    l.run(&["--by", "day"], true);
    assert_eq!(index_files(&l.cache).len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&l.cache), 0o700);
        assert_eq!(mode(&index_files(&l.cache)[0]), 0o600);
    }
}

#[test]
fn since_skips_the_files_last_changed_before_it_unread() {
    let l = Library::new("since");
    let report: &[&str] = &["--since", "2026-01-01", "--format", "summary-json"];
    let sessions = |out: &str| -> u64 {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        v["total"]["sessions"].as_u64().unwrap()
    };
    let all = sessions(&l.run(report, false).0);
    // Its lines say November 2026; the file says it last changed in 2020.
    let old = l.lib().join("claude-transcript/transcript_thinking.jsonl");
    let f = fs::File::options().write(true).open(&old).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_577_836_800))
        .unwrap();
    for cached in [false, true, true] {
        assert_eq!(
            sessions(&l.run(report, cached).0),
            all - 1,
            "cached: {cached}"
        );
    }
    // Without a window it is read.
    let (out, ..) = l.run(&["--format", "summary-json"], true);
    assert_eq!(
        sessions(&out),
        sessions(&l.run(&["--format", "summary-json"], false).0)
    );
}

/// A disk full under the index's writing, as a file size limit makes it
/// (`ulimit -f`: CI runs as root, whom a read-only folder does not stop):
/// the report is the same, one line says the index was not kept, no
/// half-written file stays, and the next run (room again) writes it.
#[test]
fn a_full_disk_keeps_no_index_and_costs_one_line() {
    let l = Library::new("full");
    let (want, said, _) = l.run(&["--by", "day"], false);
    let full = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#"ulimit -f 4; exec "$@""#)
        .arg("limited")
        .arg(assert_cmd::cargo::cargo_bin("streamview"))
        .args(["--by", "day"])
        .arg(l.lib())
        .env("STREAMVIEW_CACHE_DIR", &l.cache)
        .env("TZ", "UTC")
        .env("STREAMVIEW_CONFIG", "")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&full.stdout).into_owned(),
        String::from_utf8_lossy(&full.stderr).into_owned(),
    );
    assert_eq!(full.status.code(), Some(0), "{err}");
    assert_eq!(out, want);
    // One line more than the report says itself.
    let (note, rest) = err.split_once('\n').unwrap();
    assert!(note.contains("could not write the index"), "{err}");
    assert_eq!(rest, said);
    let left: Vec<_> = fs::read_dir(&l.cache).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
    let (again, _, status) = l.run(&["--by", "day"], true);
    assert_eq!((again, status), (want, 0));
    assert_eq!(index_files(&l.cache).len(), 1);
    let _ = fs::remove_dir_all(&l.root);
}

/// The cache of another user, and one this user cannot write to: each
/// costs one line and the report is the full read's. Run as `nobody`
/// (`setpriv`), which needs root: skipped otherwise, said on stderr.
#[cfg(unix)]
#[test]
fn a_cache_of_another_user_or_read_only_costs_one_line() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let root = fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !root || !setpriv {
        eprintln!("skipped: running as another user needs root and setpriv");
        return;
    }
    let l = Library::new("owner");
    let report = ["--by", "day"];
    let (want, said, _) = l.run(&report, false);
    let as_nobody = |cache: &Path| {
        let o = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(assert_cmd::cargo::cargo_bin("streamview"))
            .args(report)
            .arg(l.lib())
            .env("STREAMVIEW_CACHE_DIR", cache)
            .env("TZ", "UTC")
            .env("STREAMVIEW_CONFIG", "")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), want);
        let (note, rest) = err.split_once('\n').unwrap();
        assert_eq!(rest, said);
        note.to_string()
    };
    // Root's, made by root's run.
    let (_, _, code) = l.run(&report, true);
    assert_eq!(code, 0);
    let note = as_nobody(&l.cache);
    assert!(note.contains("belongs to another user"), "{note}");
    // Nobody's, read only.
    let ro = l.root.join("read-only");
    fs::create_dir(&ro).unwrap();
    std::os::unix::fs::chown(&ro, Some(65534), Some(65534)).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o500)).unwrap();
    let note = as_nobody(&ro);
    assert!(note.contains("could not write the index"), "{note}");
    assert!(fs::read_dir(&ro).unwrap().next().is_none(), "written");
}
