//! Issue 5 asks to choose "between simd-json typed deserialization and tree
//! parsing by measurement". This benchmark is that measurement, on the
//! lines that dominate a delta stream (`stream_event`, from the generated
//! `claude-partial` profile): the same fields read three ways.
//!
//! - `tape`: what the decoder does, a reused simd-json tape (`fill_tape_padded`)
//!   and lookups into it;
//! - `typed`: `simd_json::serde::from_slice_with_buffers` into borrowed
//!   structs (in simd-json 0.19 the serde deserializer fills a tape of its
//!   own first, then walks it);
//! - `value`: a `BorrowedValue` tree per line.
//!
//! `cargo bench --bench parse`; numbers in docs/performance.md.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
#![allow(clippy::cast_possible_truncation)] // the sums are checksums

#[path = "support/generate.rs"]
mod generate;

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use generate::{Profile, generate_vec, split_lines};
use serde::Deserialize;
use simd_json::prelude::*;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    event: Option<StreamEvent<'a>>,
}

#[derive(Deserialize)]
struct StreamEvent<'a> {
    #[serde(rename = "type", borrow)]
    ty: Option<Cow<'a, str>>,
    index: Option<u64>,
    #[serde(borrow)]
    delta: Option<DeltaBody<'a>>,
}

#[derive(Deserialize)]
struct DeltaBody<'a> {
    #[serde(rename = "type", borrow)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow)]
    partial_json: Option<Cow<'a, str>>,
}

fn len(s: Option<&str>) -> usize {
    s.map_or(0, str::len)
}

fn tape_str<'i>(v: simd_json::tape::Value<'_, 'i>, k: &str) -> Option<&'i str> {
    v.get(k).and_then(ValueIntoString::into_string)
}

fn value_str<'a>(v: &'a simd_json::BorrowedValue<'_>, k: &str) -> Option<&'a str> {
    v.get_str(k)
}

fn tape(lines: &[Vec<u8>]) -> usize {
    let mut scratch = Vec::new();
    let mut buffers = simd_json::Buffers::default();
    let mut tape = simd_json::tape::Tape(Vec::new());
    let mut sum = 0;
    for l in lines {
        scratch.clear();
        scratch.extend_from_slice(l);
        scratch.resize(l.len() + simd_json::INPUT_PADDING, 0);
        let mut t = tape.reset();
        simd_json::fill_tape_padded(&mut scratch, l.len(), &mut buffers, &mut t).unwrap();
        let v = t.as_value();
        let s = tape_str;
        sum += len(s(v, "type")) + len(s(v, "session_id")) + len(s(v, "parent_tool_use_id"));
        if let Some(e) = v.get("event") {
            sum +=
                len(s(e, "type")) + e.get("index").and_then(|i| i.as_u64()).unwrap_or(0) as usize;
            if let Some(d) = e.get("delta") {
                sum += len(s(d, "type")) + len(s(d, "text")) + len(s(d, "thinking"));
                sum += len(s(d, "partial_json"));
            }
        }
        tape = t.reset();
    }
    sum
}

fn typed(lines: &[Vec<u8>]) -> usize {
    let mut scratch = Vec::new();
    let mut buffers = simd_json::Buffers::default();
    let mut sum = 0;
    for l in lines {
        scratch.clear();
        scratch.extend_from_slice(l);
        let line: Line<'_> =
            simd_json::serde::from_slice_with_buffers(&mut scratch, &mut buffers).unwrap();
        sum += len(line.ty.as_deref())
            + len(line.session_id.as_deref())
            + len(line.parent_tool_use_id.as_deref());
        if let Some(e) = line.event {
            sum += len(e.ty.as_deref()) + e.index.unwrap_or(0) as usize;
            if let Some(d) = e.delta {
                sum += len(d.ty.as_deref()) + len(d.text.as_deref()) + len(d.thinking.as_deref());
                sum += len(d.partial_json.as_deref());
            }
        }
    }
    sum
}

fn value(lines: &[Vec<u8>]) -> usize {
    let mut scratch = Vec::new();
    let mut sum = 0;
    for l in lines {
        scratch.clear();
        scratch.extend_from_slice(l);
        let v = simd_json::to_borrowed_value(&mut scratch).unwrap();
        let s = value_str;
        sum += len(s(&v, "type")) + len(s(&v, "session_id")) + len(s(&v, "parent_tool_use_id"));
        if let Some(e) = v.get("event") {
            sum += len(s(e, "type")) + e.get_u64("index").unwrap_or(0) as usize;
            if let Some(d) = e.get("delta") {
                sum += len(s(d, "type")) + len(s(d, "text")) + len(s(d, "thinking"));
                sum += len(s(d, "partial_json"));
            }
        }
    }
    sum
}

fn parse(c: &mut Criterion) {
    let (data, _) = generate_vec(Profile::ClaudePartial, 4 << 20, 1);
    let lines: Vec<Vec<u8>> = split_lines(&data)
        .into_iter()
        .filter(|l| l.bytes.starts_with(br#"{"type":"stream_event""#))
        .map(|l| l.bytes.to_vec())
        .collect();
    let bytes: usize = lines.iter().map(Vec::len).sum();
    assert_eq!(tape(&lines), typed(&lines));
    assert_eq!(tape(&lines), value(&lines));
    let mut g = c.benchmark_group("stream_event");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(4));
    g.bench_function("tape", |b| b.iter(|| tape(black_box(&lines))));
    g.bench_function("typed", |b| b.iter(|| typed(black_box(&lines))));
    g.bench_function("value", |b| b.iter(|| value(black_box(&lines))));
    g.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
