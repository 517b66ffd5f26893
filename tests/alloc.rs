//! Heap allocations per line in steady state (issue 5), counted by dhat's
//! global allocator (the crate forbids `unsafe`, so it cannot have its own
//! `GlobalAlloc`).
//!
//! For each generated profile (`benches/support/generate.rs`) and each
//! stage, a fresh pipeline reads the first quarter of the lines to warm up
//! (buffers grown, producer detected, sessions open), then the allocations
//! over the remaining lines are counted and divided by their number:
//!
//! - `decode`: [`Decoder::decode`], events dropped;
//! - `session`: the same, each event observed by a [`Session`];
//! - `pretty`: decoder, session and the pretty sink (no colour, errors
//!   mirrored as when stdout is not a terminal) into a reused buffer;
//! - `pretty -v`: the same with `-v` (tool results, thinking, usage…),
//!   labelled (`--label`: each line after its label, in whole lines);
//! - `jsonl`: decoder, session and the JSONL sink, labelled.
//!
//! Framing is not counted here: the [`LineReader`](streamview::input::LineReader)
//! reuses one buffer, which grows only for a line longer than any before.
//!
//! `cargo test --test alloc -- --nocapture` prints the table. The goal is
//! zero allocations per line on the decode path, and it is asserted where
//! it holds exactly: decoding the lines of a session a second time
//! allocates nothing at all (`decoding_allocates_nothing_within_a_session`).
//! What decoding still allocates is per session (a result's box, Codex's
//! thread id, the first ids of the usage window); the other stages allocate
//! in the session state and the sinks. The table's bounds are about 1.5 ×
//! what was measured, to catch regressions: tighten `BOUNDS` whenever a
//! stage gets cheaper. Issue 13's goal is asserted on its own: at most 0.5
//! allocations per line in pretty (default and `-v`) and JSONL on the
//! Claude and delta-stream profiles (`GOAL`). What is left there is the
//! session's one allocation per tool call (its id and key argument).
//!
//! Diffs (issue 16): an edit whose old and new text differ on both sides
//! of their common head and tail is diffed by `similar`'s Myers, which
//! allocates its two work vectors on each run and takes no buffers to
//! reuse. Those are counted apart (`render::diff::myers_runs`), shown as
//! `(+0.07 Myers)` and left out of the bounds; everything else the diffs
//! use (line tables, operations, rows, unescaped text) is reused and
//! inside them. Pretty runs Myers once per edit for its `+12 −3`, `-v` a
//! second time for the diff; JSONL once.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

#[path = "../benches/support/generate.rs"]
mod generate;

use std::io;

use generate::{Profile, generate_vec, split_lines};
use streamview::Session;
use streamview::decode::Decoder;
use streamview::input::Line;
use streamview::render::diff::myers_runs;
use streamview::render::label::{self, WholeLines};
use streamview::render::theme::Theme;
use streamview::render::{Jsonl, Pretty, PrettyOptions, Sink, Verbosity};
use termcolor::NoColor;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Bytes generated per profile: enough lines for a steady state, few enough
/// for dhat (it records a backtrace per allocation) in a debug build.
const SIZE: u64 = 4 << 20;

/// Upper bounds on allocations per line, by profile and stage (`decode`,
/// `session`, `pretty`, `jsonl`): about 1.5 × the measured values. The goal
/// is 0; lower them as the stages improve.
/// Measured (allocations per line, decode / session / pretty / jsonl), at
/// main 59af653 (simd-json tape per line): claude 1.07 / 3.02 / 10.68 /
/// 3.02, claude-partial 0.25 / 0.38 / 0.75 / 0.38, codex 5.39 / 7.70 /
/// 12.78 / 7.70, gemini 0.68 / 2.00 / 4.00 / 2.00. With the per-line arena
/// (issue 5, stop 11): claude 0.03 / 1.98 / 9.65 / 2.06, claude-partial
/// 0.00 / 0.13 / 0.50 / 0.13, codex 0.05 / 2.36 / 7.45 / 2.40, gemini
/// 0.01 / 1.33 / 3.33 / 1.37. Calls remembered in one allocation, the pretty
/// sink composing into reused lines and JSONL making embedded JSON safe in
/// place (issue 13, stop 19; decode / session / pretty / pretty -v /
/// jsonl): claude 0.03 / 0.46 / 0.47 / 0.47 / 0.46, claude-partial 0.00 /
/// 0.03 / 0.03 / 0.03 / 0.03, codex 0.05 / 0.46 / 0.46 / 0.46 / 0.46,
/// gemini 0.01 / 0.26 / 0.26 / 0.26 / 0.26 (`examples/alloc_sites.rs`
/// lists where a stage allocates). With diffs (issue 16), Myers apart:
/// claude 0.04 / 0.47 / 0.49 (+0.07) / 0.48 (+0.15) / 0.47 (+0.07),
/// gemini 0.01 / 0.26 / 0.26 (+0.06) / 0.26 (+0.13) / 0.26 (+0.06).
const BOUNDS: [(&str, [f64; 5]); 4] = [
    ("claude", [0.05, 0.5, 0.5, 0.5, 0.5]),
    ("claude-partial", [0.01, 0.05, 0.05, 0.05, 0.05]),
    ("codex", [0.08, 0.7, 0.7, 0.7, 0.7]),
    ("gemini", [0.02, 0.4, 0.4, 0.4, 0.4]),
];

const STAGES: [&str; 5] = ["decode", "session", "pretty", "pretty -v", "jsonl"];

/// Issue 13: at most this many allocations per line in pretty (default and
/// `-v`) and JSONL, on these profiles.
const GOAL: (f64, [&str; 2], [&str; 3]) = (
    0.5,
    ["claude", "claude-partial"],
    ["pretty", "pretty -v", "jsonl"],
);

/// A writer that keeps nothing, behind a buffer, as stdout into /dev/null.
fn out() -> NoColor<io::BufWriter<io::Sink>> {
    NoColor::new(io::BufWriter::with_capacity(64 << 10, io::sink()))
}

/// The same, as a `--label api` run writes it: every line after its
/// label, in whole lines (issue 28: the label costs no allocation per line).
fn labelled() -> io::BufWriter<WholeLines<io::Sink>> {
    let prefix = label::prefix("api", &Theme::default().label_spec("api"), true);
    io::BufWriter::with_capacity(64 << 10, WholeLines::new(io::sink(), prefix))
}

/// The pipeline of one stage, fed line by line.
struct Pipeline {
    decoder: Decoder,
    session: Session,
    sink: Option<Box<dyn Sink>>,
    observe: bool,
}

impl Pipeline {
    fn new(stage: &str) -> Self {
        let sink: Option<Box<dyn Sink>> = match stage {
            "pretty" | "pretty -v" => {
                let opts = PrettyOptions {
                    mirror_errors: true,
                    verbosity: if stage == "pretty -v" {
                        Verbosity::Verbose
                    } else {
                        Verbosity::Normal
                    },
                    ..PrettyOptions::default()
                };
                if stage == "pretty -v" {
                    Some(Box::new(Pretty::new(NoColor::new(labelled()), out(), opts)))
                } else {
                    Some(Box::new(Pretty::new(out(), out(), opts)))
                }
            }
            "jsonl" => Some(Box::new(Jsonl::new(labelled()).with_label(Some("api")))),
            _ => None,
        };
        Pipeline {
            decoder: Decoder::new(),
            session: Session::new(),
            sink,
            observe: stage != "decode",
        }
    }

    /// What the run loop does with one line (`Runner::frame`).
    fn line(&mut self, line: &Line<'_>) {
        let Pipeline {
            decoder,
            session,
            sink,
            observe,
        } = self;
        decoder
            .decode(line, &mut |ev| {
                if *observe {
                    session.observe(ev);
                }
                if let Some(s) = sink {
                    s.event(ev, session)
                } else {
                    std::hint::black_box(ev);
                    Ok(())
                }
            })
            .unwrap();
    }
}

/// Allocations (count, bytes) per line over `lines[warm..]`, without
/// Myers' two work vectors per edit diffed (issue 16: `similar` takes no
/// buffers to reuse), and those per line on their own.
fn per_line(stage: &str, lines: &[Line<'_>], warm: usize) -> (f64, f64, f64) {
    let mut p = Pipeline::new(stage);
    for line in &lines[..warm] {
        p.line(line);
    }
    let before = dhat::HeapStats::get();
    let runs = myers_runs();
    for line in &lines[warm..] {
        p.line(line);
    }
    let after = dhat::HeapStats::get();
    let myers = 2 * (myers_runs() - runs);
    drop(p);
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let n = (lines.len() - warm) as f64;
    #[allow(clippy::cast_precision_loss)]
    (
        (after.total_blocks - before.total_blocks - myers) as f64 / n,
        (after.total_bytes - before.total_bytes) as f64 / n,
        myers as f64 / n,
    )
}

// One test: dhat's allocator counts for the whole process, and tests of one
// binary run in parallel threads.
#[test]
fn allocations_per_line() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let mut report = String::from(
        "\nheap allocations per line in steady state (allocations / bytes)\n\
         profile          lines   decode         session        pretty         pretty -v      jsonl\n",
    );
    let mut over = Vec::new();
    for profile in Profile::ALL {
        let (data, _) = generate_vec(profile, SIZE, 11);
        let lines = split_lines(&data);
        let warm = lines.len() / 4;
        let bounds = BOUNDS
            .iter()
            .find(|(name, _)| *name == profile.name())
            .map(|(_, b)| *b)
            .unwrap();
        report.push_str(&format!("{:<16} {:>6}", profile.name(), lines.len() - warm));
        for (stage, bound) in STAGES.iter().zip(bounds) {
            let (count, bytes, myers) = per_line(stage, &lines, warm);
            report.push_str(&format!("   {count:>5.2} / {bytes:>6.0}"));
            if myers > 0.0 {
                report.push_str(&format!(" (+{myers:.2} Myers)"));
            }
            if count > bound {
                over.push(format!(
                    "{} {stage}: {count:.2} allocations per line, bound {bound}",
                    profile.name()
                ));
            }
            let (goal, profiles, stages) = GOAL;
            if profiles.contains(&profile.name()) && stages.contains(stage) && count > goal {
                over.push(format!(
                    "{} {stage}: {count:.2} allocations per line, issue 13's goal is {goal}",
                    profile.name()
                ));
            }
        }
        report.push('\n');
    }
    rollout_per_line(&mut report, &mut over);
    println!("{report}");
    decoding_allocates_nothing_within_a_session();
    assert!(
        over.is_empty(),
        "more allocations per line than the bound (a regression, or lower BOUNDS):\n{}",
        over.join("\n")
    );
}

/// Codex rollout files (`tests/fixtures/codex-rollout/`, issue 17): the 14
/// captured sessions, `copies` times over (real lines, not generated: the
/// format is too young for a generator profile).
fn rollout_data(copies: usize) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/codex-rollout");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(".rollout.jsonl"))
        .collect();
    files.sort();
    let one: Vec<u8> = files
        .iter()
        .flat_map(|f| std::fs::read(f).unwrap())
        .collect();
    one.repeat(copies)
}

/// Bounds for the rollout lines, per stage: about 1.5 × what was measured
/// (decode / session / pretty / pretty -v / jsonl: 0.10 / 0.46 / 0.46 /
/// 0.46 / 0.46). Decoding allocates per session only (its id, a result's
/// box per turn), but these sessions are short: 22 lines each.
const ROLLOUT_BOUNDS: [f64; 5] = [0.15, 0.7, 0.7, 0.7, 0.7];

fn rollout_per_line(report: &mut String, over: &mut Vec<String>) {
    let data = rollout_data(4);
    let lines = split_lines(&data);
    let warm = lines.len() / 4;
    report.push_str(&format!(
        "{:<16} {:>6}",
        "codex-rollout",
        lines.len() - warm
    ));
    for (stage, bound) in STAGES.iter().zip(ROLLOUT_BOUNDS) {
        let (count, bytes, _) = per_line(stage, &lines, warm);
        report.push_str(&format!("   {count:>5.2} / {bytes:>6.0}"));
        if count > bound {
            over.push(format!(
                "codex-rollout {stage}: {count:.2} allocations per line, bound {bound}"
            ));
        }
    }
    report.push('\n');
}

/// Lines that open or close a session (and so allocate what lives as long
/// as the session: a result's box, Codex's thread id…).
fn bounds_a_session(line: &[u8]) -> bool {
    const MARKS: [&[u8]; 8] = [
        br#""type":"session_meta""#,
        br#""type":"task_complete""#,
        br#""subtype":"init""#,
        br#""type":"init""#,
        br#""type":"result""#,
        br#""type":"thread.started""#,
        br#""type":"turn.completed""#,
        br#""type":"turn.failed""#,
    ];
    MARKS.iter().any(|m| line.windows(m.len()).any(|w| w == *m))
}

/// The goal itself: once a decoder has seen a session's lines, decoding
/// them again allocates nothing at all. (Each is decoded twice: the first
/// time grows the buffers, the arena and the pools of reused strings.)
/// Called from the one test (see below).
fn decoding_allocates_nothing_within_a_session() {
    let mut report = String::new();
    let mut second_pass = |name: &str, data: &[u8]| {
        let lines: Vec<Line<'_>> = split_lines(data)
            .into_iter()
            .filter(|l| !bounds_a_session(l.bytes))
            .collect();
        let mut p = Pipeline::new("decode");
        for line in &lines {
            p.line(line);
        }
        let before = dhat::HeapStats::get();
        for line in &lines {
            p.line(line);
        }
        let n = dhat::HeapStats::get().total_blocks - before.total_blocks;
        report.push_str(&format!(
            "{name}: {n} allocations over {} lines\n",
            lines.len()
        ));
    };
    for profile in Profile::ALL {
        let (data, _) = generate_vec(profile, 1 << 20, 5);
        second_pass(profile.name(), &data);
    }
    second_pass("codex-rollout", &rollout_data(1));
    assert!(
        !report.lines().any(|l| !l.contains(": 0 allocations")),
        "decoding allocated:\n{report}"
    );
}
