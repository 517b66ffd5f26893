//! The whole pipeline in process, read back as JSON: a `Runner` into the
//! JSONL sink (the decoders' tests that check what a run writes, moved out
//! of `src/decode/` by issue 52: a floor's own tests use only the floors
//! below it).

use serde_json::Value;
use streamview::diag::Diag;
use streamview::render::Jsonl;
use streamview::{ExitStatus, Producer, Runner};

/// The JSONL events the whole pipeline writes for `input` (detected, or
/// read as `from`), and the exit status.
pub fn jsonl_run(input: &str, from: Option<Producer>) -> (Vec<Value>, ExitStatus) {
    let mut sink = Jsonl::new(Vec::new());
    let mut diag = Diag::new(Vec::new(), false);
    let status = {
        let mut runner = Runner::new(&mut sink, &mut diag, 1 << 20).with_producer(from);
        runner.source("t", input.as_bytes()).unwrap();
        runner.finish().unwrap().1
    };
    let out = String::from_utf8(sink.into_inner()).unwrap();
    let evs = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (evs, status)
}

/// The events of kind `k` of `evs` (JSONL).
pub fn of_kind<'a>(evs: &'a [Value], k: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["kind"] == k).collect()
}

/// The text of `tests/fixtures/{dir}/{name}.jsonl`.
pub fn fixture_text(dir: &str, name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{dir}/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Each `tool_call` of `evs` (JSONL) as (name, tool kind, key argument).
pub fn calls_of(evs: &[Value]) -> Vec<(Value, Value, Value)> {
    of_kind(evs, "tool_call")
        .iter()
        .map(|c| {
            (
                c["name"].clone(),
                c["tool_kind"].clone(),
                c["key_arg"].clone(),
            )
        })
        .collect()
}
