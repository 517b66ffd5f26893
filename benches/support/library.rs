//! A generated session library (issue 17): a `~/.claude/projects` and a
//! `~/.codex/sessions` laid out as the agents lay them out, grown from the
//! real captures in `tests/fixtures/` (Claude Code transcripts of 2.1.197
//! and 2.1.330, one with its `subagents/` files, and Codex rollouts), plus
//! a few saved streams. Each file is a copy of a template whose ids are
//! made its own (session ids per file, message, request, call and entry
//! ids per repetition), its dates spread over 60 days, and its
//! conversation repeated to reach the file's size. One Claude session in
//! 16 is resumed, as `claude --resume` does it: a second file, under a
//! session id of its own, begins with a copy of the first one's entries
//! (the same message and request ids) and goes on with entries of its own.
//! The same seed, count and size always give the same bytes.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use regex::Regex;

use super::generate::{self, Profile, Rng};

/// A template: a session file (and its sub-agents' files).
struct Template {
    /// The main file.
    main: &'static str,
    /// Sub-agent files: (agent id, text).
    agents: &'static [(&'static str, &'static str)],
    /// A Codex rollout, not a Claude transcript.
    rollout: bool,
}

macro_rules! fixture {
    ($p:literal) => {
        include_str!(concat!("../../tests/fixtures/", $p))
    };
}

const TEMPLATES: &[Template] = &[
    Template {
        main: fixture!("claude-transcript/v2.1.330_transcript_tools_basic.jsonl"),
        agents: &[],
        rollout: false,
    },
    Template {
        main: fixture!("claude-transcript/v2.1.330_transcript_thinking.jsonl"),
        agents: &[],
        rollout: false,
    },
    Template {
        main: fixture!("claude-transcript/v2.1.330_transcript_subagent.jsonl"),
        agents: &[
            (
                "a33c7066d6f0e2ac6",
                fixture!(
                    "claude-transcript/v2.1.330_transcript_subagent.agent-a33c7066d6f0e2ac6.jsonl"
                ),
            ),
            (
                "ab9e7b6a40a741e9b",
                fixture!(
                    "claude-transcript/v2.1.330_transcript_subagent.agent-ab9e7b6a40a741e9b.jsonl"
                ),
            ),
        ],
        rollout: false,
    },
    Template {
        main: fixture!("claude-transcript/transcript_tools_basic.jsonl"),
        agents: &[],
        rollout: false,
    },
    Template {
        main: fixture!("codex-rollout/mixed.rollout.jsonl"),
        agents: &[],
        rollout: true,
    },
    Template {
        main: fixture!("codex-rollout/apply_patch.rollout.jsonl"),
        agents: &[],
        rollout: true,
    },
    Template {
        main: fixture!("codex-rollout/shell_fail.rollout.jsonl"),
        agents: &[],
        rollout: true,
    },
    Template {
        main: fixture!("codex-rollout/reasoning.rollout.jsonl"),
        agents: &[],
        rollout: true,
    },
];

/// What was written.
#[derive(Debug, Default)]
pub struct Library {
    /// Session files (sub-agent files not counted).
    pub sessions: u64,
    /// Sub-agent files.
    pub agent_files: u64,
    /// Saved streams.
    pub streams: u64,
    /// Sessions resumed: files that copy an earlier one's entries (also
    /// counted in `sessions`).
    pub resumed: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// The ids a copy rewrites.
struct Ids {
    uuid: Regex,
    prefixed: Regex,
    date: Regex,
}

impl Ids {
    fn new() -> Ids {
        Ids {
            uuid: Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
                .unwrap_or_else(|e| panic!("{e}")),
            prefixed: Regex::new(r"\b(msg|toolu|req|call|fc|rs|resp)_[0-9A-Za-z]{6,}")
                .unwrap_or_else(|e| panic!("{e}")),
            date: Regex::new(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]")
                .unwrap_or_else(|e| panic!("{e}")),
        }
    }
}

/// A uuid of its own for copy `file`, repetition `rep` of `orig`.
fn new_uuid(orig: &str, file: u64, rep: u64) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in orig.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^= file.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ rep.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    h = h.wrapping_mul(0x0100_0000_01b3);
    format!("{}{:012x}", &orig[..24], h & 0xffff_ffff_ffff)
}

/// `text` made copy `file`'s, repetition `rep`: the session id (`sid`)
/// the same in every repetition, every other id of its own, dates moved to
/// `day` (0-based from 2026-09-01), hours by `rep`.
fn rewrite(ids: &Ids, text: &str, sid: &str, file: u64, rep: u64, day: u64) -> String {
    let text = ids.uuid.replace_all(text, |c: &regex::Captures<'_>| {
        let u = &c[0];
        new_uuid(u, file, if u == sid { 0 } else { rep })
    });
    let text = ids.prefixed.replace_all(&text, |c: &regex::Captures<'_>| {
        format!("{}x{file}r{rep}", &c[0])
    });
    let (month, dom) = if day < 30 {
        (9, day + 1)
    } else {
        (10, day - 29)
    };
    ids.date
        .replace_all(&text, |c: &regex::Captures<'_>| {
            let hour: u64 = c[0][11..13].parse().unwrap_or(0);
            format!("2026-{month:02}-{dom:02}T{:02}", (hour + rep) % 24)
        })
        .into_owned()
}

/// The session id of a template: Claude's first `sessionId`, a rollout's
/// first uuid (its `session_meta`).
fn session_id<'t>(ids: &Ids, t: &'t Template) -> &'t str {
    let from = if t.rollout {
        0
    } else {
        t.main.find("\"sessionId\":\"").map_or(0, |i| i + 13)
    };
    ids.uuid.find(&t.main[from..]).map_or("", |m| m.as_str())
}

/// The lines of `text` after its first `head` lines (the repeated body).
fn body(text: &str, head: usize) -> &str {
    let mut at = 0;
    for _ in 0..head {
        match text[at..].find('\n') {
            Some(i) => at += i + 1,
            None => return "",
        }
    }
    &text[at..]
}

/// Write a library of `files` session files of `size` bytes in all below
/// `dir` (`dir/claude/projects/…`, `dir/codex/sessions/…`,
/// `dir/streams/…`).
///
/// # Errors
/// A file cannot be written.
pub fn generate(dir: &Path, files: u64, size: u64, seed: u64) -> io::Result<Library> {
    let ids = Ids::new();
    let mut rng = Rng::new(seed);
    let mut lib = Library::default();
    let per_file = size / files.max(1);
    for file in 0..files {
        let day = rng.next_u64() % 60;
        // One file in 20 is a saved stream, not a session of the library.
        if file % 20 == 19 {
            let profile = rng.pick(&[Profile::Claude, Profile::Codex]);
            let (data, _) = generate::generate_vec(profile, per_file, seed ^ file);
            let path = dir.join(format!("streams/{}/run-{file:05}.jsonl", profile.name()));
            write(&path, &data)?;
            lib.streams += 1;
            lib.bytes += data.len() as u64;
            continue;
        }
        let t = &TEMPLATES[rng.below(TEMPLATES.len())];
        let sid = session_id(&ids, t);
        // The first lines (headers, the first prompt) once, the rest
        // repeated until the file has its size (a random share of the
        // average, so that sizes vary as real ones do).
        let target = per_file / 2 + rng.next_u64() % (per_file + 1);
        let head = if t.rollout { 1 } else { 2 };
        // A transcript's `cost-state` line totals its session: repeated
        // with the conversation it would report one repetition's.
        let mut main = String::with_capacity(t.main.len());
        for l in t
            .main
            .lines()
            .filter(|l| !l.contains(r#""type":"cost-state""#))
        {
            main.push_str(l);
            main.push('\n');
        }
        let main = main.as_str();
        let reps = (target / main.len().max(1) as u64).max(1);
        let mut out = rewrite(&ids, main, sid, file, 0, day);
        for rep in 1..reps {
            out.push_str(&rewrite(&ids, body(main, head), sid, file, rep, day));
        }
        let new_sid = new_uuid(sid, file, 0);
        let path = if t.rollout {
            let (month, dom) = if day < 30 {
                (9, day + 1)
            } else {
                (10, day - 29)
            };
            dir.join(format!(
                "codex/sessions/2026/{month:02}/{dom:02}/rollout-2026-{month:02}-{dom:02}T10-00-00-{new_sid}.jsonl"
            ))
        } else {
            dir.join(format!(
                "claude/projects/-home-dev-work-project{}/{new_sid}.jsonl",
                file % 37
            ))
        };
        write(&path, out.as_bytes())?;
        lib.sessions += 1;
        lib.bytes += out.len() as u64;
        if !t.rollout && t.agents.is_empty() && file % 16 == 5 {
            // Resumed: the copy, then as many entries of its own.
            let resumed_sid = new_uuid(sid, file, u64::MAX);
            let mut more = out.replace(&new_sid, &resumed_sid);
            for rep in reps..2 * reps {
                let own = rewrite(&ids, body(main, head), sid, file, rep, day);
                more.push_str(&own.replace(&new_sid, &resumed_sid));
            }
            write(
                &path.with_file_name(format!("{resumed_sid}.jsonl")),
                more.as_bytes(),
            )?;
            lib.sessions += 1;
            lib.resumed += 1;
            lib.bytes += more.len() as u64;
        }
        for (agent, text) in t.agents {
            let mut a = String::new();
            for rep in 0..reps {
                a.push_str(&rewrite(&ids, text, sid, file, rep, day));
            }
            let mut name = String::new();
            let _ = write!(name, "agent-{agent}.jsonl");
            let path = path.with_extension("").join("subagents").join(name);
            write(&path, a.as_bytes())?;
            lib.agent_files += 1;
            lib.bytes += a.len() as u64;
        }
    }
    Ok(lib)
}

fn write(path: &PathBuf, bytes: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}
