//! Where a stage allocates, for work on `tests/alloc.rs`'s numbers: runs a
//! generated profile through decoder, session and a sink under dhat's heap
//! profiler, after a warm-up quarter, and leaves `dhat-heap.json` (open it in
//! dhat's viewer, or sort its `pps` by `tbk`).
//!
//! ```text
//! cargo build --profile profiling --example alloc_sites
//! target/profiling/examples/alloc_sites claude pretty-v   # pretty | pretty-v | jsonl
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)] // a tool: fail loudly

#[path = "../benches/support/generate.rs"]
mod generate;

use std::io;

use generate::{Profile, generate_vec, split_lines};
use streamview::Session;
use streamview::decode::Decoder;
use streamview::render::{Jsonl, Pretty, PrettyOptions, Sink, Verbosity};
use termcolor::NoColor;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: alloc_sites PROFILE (claude|claude-partial|codex|gemini) STAGE (pretty|pretty-v|jsonl)";
    let profile = args
        .get(1)
        .and_then(|name| Profile::ALL.into_iter().find(|p| p.name() == name))
        .expect(usage);
    let stage = args.get(2).map_or("pretty", String::as_str);
    let (data, _) = generate_vec(profile, 4 << 20, 11);
    let lines = split_lines(&data);
    let out = || NoColor::new(io::BufWriter::with_capacity(64 << 10, io::sink()));
    let mut sink: Box<dyn Sink> = match stage {
        "jsonl" => Box::new(Jsonl::new(io::BufWriter::with_capacity(
            64 << 10,
            io::sink(),
        ))),
        "pretty" | "pretty-v" => {
            let opts = PrettyOptions {
                mirror_errors: true,
                verbosity: if stage == "pretty-v" {
                    Verbosity::Verbose
                } else {
                    Verbosity::Normal
                },
                ..PrettyOptions::default()
            };
            Box::new(Pretty::new(out(), out(), opts))
        }
        _ => panic!("{usage}"),
    };
    let mut decoder = Decoder::new();
    let mut session = Session::new();
    let mut run = |from: usize, to: usize| {
        for line in &lines[from..to] {
            decoder
                .decode(line, &mut |ev| {
                    session.observe(ev);
                    sink.event(ev, &session)
                })
                .unwrap();
        }
    };
    let warm = lines.len() / 4;
    run(0, warm);
    let _profiler = dhat::Profiler::new_heap();
    run(warm, lines.len());
    eprintln!("{} lines profiled", lines.len() - warm);
}
