//! Throughput of each stage of the pipeline (issue 5), in bytes of input per
//! second, per producer, on streams from the generator
//! (`benches/support/generate.rs`, a few MB per profile in memory):
//!
//! - `framing`: [`LineReader`] alone, cutting the stream into lines.
//! - `decode`: [`Decoder`] over every line (pre-split), events dropped.
//! - `decode+session`: the same, each event observed by a [`Session`]
//!   (correlation, totals), as every format does.
//! - `pretty`: the whole run (framing, decode, session, the pretty sink
//!   without colour, errors mirrored as when stdout is not a terminal) into
//!   a 64 KiB buffer over `io::sink()`, as the binary writes to `/dev/null`.
//! - `jsonl`: the same with the JSONL sink.
//!
//! ```sh
//! cargo bench --bench throughput                  # everything (a few minutes)
//! cargo bench --bench throughput -- claude/decode  # one group/stage
//! STREAMVIEW_BENCH_MB=16 cargo bench --bench throughput   # bigger inputs
//! ```

#![allow(clippy::expect_used)] // a bench over memory and io::sink has no I/O error to handle

use std::hint::black_box;
use std::io::{self, BufWriter};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use streamview::decode::Decoder;
use streamview::diag::Diag;
use streamview::input::{Frame, Line, LineReader};
use streamview::render::{Jsonl, Pretty, PrettyOptions, Sink};
use streamview::{Runner, Session};
use termcolor::NoColor;

#[path = "support/generate.rs"]
mod generate;

use generate::{Profile, generate_vec, split_lines};

const MAX_LINE: usize = 64 << 20;

/// Input size per profile, in MiB (`STREAMVIEW_BENCH_MB`, default 4).
fn size() -> u64 {
    let mb = std::env::var("STREAMVIEW_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4u64);
    mb << 20
}

fn framing(data: &[u8]) -> usize {
    let mut rdr = LineReader::new(data, MAX_LINE);
    let mut n = 0;
    loop {
        while let Some(frame) = rdr.next_frame() {
            if let Frame::Line(line) = frame {
                n += line.bytes.len();
            }
        }
        if rdr.is_eof() || !rdr.fill().expect("reading memory cannot fail") {
            break;
        }
    }
    // The unterminated-last-line frame after end of input.
    while rdr.next_frame().is_some() {}
    n
}

fn decode(lines: &[Line<'_>]) -> usize {
    let mut dec = Decoder::new();
    let mut events = 0;
    for line in lines {
        dec.decode(line, &mut |ev| {
            black_box(ev);
            events += 1;
            Ok(())
        })
        .expect("no sink, no write error");
    }
    dec.finish(&mut |_| Ok(())).expect("no write error");
    events
}

fn decode_session(lines: &[Line<'_>]) -> Session {
    let mut dec = Decoder::new();
    let mut session = Session::new();
    for line in lines {
        dec.decode(line, &mut |ev| {
            session.observe(ev);
            Ok(())
        })
        .expect("no sink, no write error");
    }
    session
}

/// The writers of the binary with stdout not a terminal: block-buffered,
/// no colour.
type Out = NoColor<BufWriter<io::Sink>>;

fn out() -> Out {
    NoColor::new(BufWriter::with_capacity(64 << 10, io::sink()))
}

fn run(data: &[u8], sink: &mut dyn Sink) {
    let mut diag = Diag::new(io::sink(), false);
    let mut runner = Runner::new(sink, &mut diag, MAX_LINE);
    runner.source("bench", data).expect("writes to io::sink");
    let (session, status) = runner.finish().expect("writes to io::sink");
    black_box((session, status));
}

fn pretty(data: &[u8]) {
    let opts = PrettyOptions {
        mirror_errors: true,
        ..PrettyOptions::default()
    };
    let mut sink = Pretty::new(out(), out(), opts);
    run(data, &mut sink);
}

fn jsonl(data: &[u8]) {
    let mut sink = Jsonl::new(BufWriter::with_capacity(64 << 10, io::sink()));
    run(data, &mut sink);
}

fn throughput(c: &mut Criterion) {
    for profile in Profile::ALL {
        let (data, _) = generate_vec(profile, size(), 1);
        let lines = split_lines(&data);
        let mut g = c.benchmark_group(profile.name());
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.sample_size(20);
        g.warm_up_time(Duration::from_secs(1));
        g.measurement_time(Duration::from_secs(4));
        g.bench_function("framing", |b| b.iter(|| framing(black_box(&data))));
        g.bench_function("decode", |b| b.iter(|| decode(black_box(&lines))));
        g.bench_function("decode+session", |b| {
            b.iter(|| decode_session(black_box(&lines)));
        });
        g.bench_function("pretty", |b| b.iter(|| pretty(black_box(&data))));
        g.bench_function("jsonl", |b| b.iter(|| jsonl(black_box(&data))));
        g.finish();
    }
}

criterion_group!(benches, throughput);
criterion_main!(benches);
