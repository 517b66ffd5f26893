//! Numbers you can bill by (issue 25): every token counted once, with
//! its final count, checked against a count made here from the raw lines
//! (never against streamview itself).

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{fixture, json_lines, read, sv};
use serde_json::Value;

/// Claude transcripts whose messages' output counts grow from line to
/// line, as Claude Code writes them (see the folder's README).
fn growing() -> PathBuf {
    fixture("claude-transcript/growing/projects")
}

/// Every `.jsonl` file below `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// The four counts of a `usage` object as Claude writes it.
fn counts(u: &Value) -> [u64; 4] {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    [
        n("input_tokens"),
        n("output_tokens"),
        n("cache_read_input_tokens"),
        n("cache_creation_input_tokens"),
    ]
}

/// The hand count: per UTC day, each API message (message id + request
/// id) once, with the counts of its line of the largest total, on that
/// line's day.
fn hand_count(dir: &Path) -> BTreeMap<String, [u64; 4]> {
    let mut paths = Vec::new();
    files(dir, &mut paths);
    let mut best: BTreeMap<(String, String), (String, [u64; 4])> = BTreeMap::new();
    for p in paths {
        for line in String::from_utf8(read(&p)).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let Some(u) = v
                .pointer("/message/usage")
                .filter(|_| v["type"] == "assistant")
            else {
                continue;
            };
            let key = (
                v.pointer("/message/id")
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string(),
                v["requestId"].as_str().unwrap().to_string(),
            );
            let day = v["timestamp"].as_str().unwrap()[..10].to_string();
            let c = counts(u);
            let e = best.entry(key).or_insert((day.clone(), c));
            if c.iter().sum::<u64>() > e.1.iter().sum::<u64>() {
                *e = (day, c);
            }
        }
    }
    let mut days: BTreeMap<String, [u64; 4]> = BTreeMap::new();
    for (day, c) in best.into_values() {
        let d = days.entry(day).or_default();
        for i in 0..4 {
            d[i] += c[i];
        }
    }
    days
}

fn tokens_of(t: &Value) -> [u64; 4] {
    let n = |k: &str| t[k].as_u64().unwrap_or(0);
    [
        n("input"),
        n("output"),
        n("cache_read"),
        n("cache_creation"),
    ]
}

#[test]
fn the_fixture_has_messages_whose_output_grows() {
    // Otherwise the tests below could not tell first from final counts.
    let text = String::from_utf8(read(
        &growing().join("-home-dev-work-a2-thinking/c59622bb-43e6-412d-98b0-fcc05a374e4b.jsonl"),
    ))
    .unwrap();
    assert!(text.contains(r#""output_tokens":31"#) && text.contains(r#""output_tokens":127"#));
}

/// `--by day` over a library counts each message with its final counts
/// on the day of its final line: the same tokens as the hand count.
#[test]
fn each_message_counts_its_final_usage_per_day() {
    let expected = hand_count(&growing());
    assert_eq!(expected.len(), 2, "{expected:?}");
    let out = sv()
        .env("TZ", "UTC")
        .args(["--format", "summary-json", "--by", "day"])
        .arg(growing())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["by"]["rows"].as_array().unwrap();
    let got: BTreeMap<String, [u64; 4]> = rows
        .iter()
        .map(|r| {
            (
                r["group"].as_str().unwrap().to_string(),
                tokens_of(&r["tokens"]),
            )
        })
        .collect();
    assert_eq!(got, expected);
}

/// In JSONL, a message's later usage says which counts it replaces: the
/// last usage of each message, or the sum of `tokens` less `replaces`,
/// is the hand count.
#[test]
fn jsonl_usage_replaces_the_earlier_counts_of_its_message() {
    let expected: [u64; 4] = hand_count(&growing())
        .into_values()
        .fold([0; 4], |mut a, d| {
            for i in 0..4 {
                a[i] += d[i];
            }
            a
        });
    let out = sv()
        .args(["--format", "jsonl"])
        .arg(growing())
        .output()
        .unwrap();
    let usage: Vec<Value> = json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["kind"] == "usage")
        .collect();
    let mut net = [0i64; 4];
    let mut last: BTreeMap<(String, String), [u64; 4]> = BTreeMap::new();
    let mut replacing = 0;
    for u in &usage {
        let t = tokens_of(&u["tokens"]);
        let r = if u["replaces"].is_null() {
            [0; 4]
        } else {
            replacing += 1;
            tokens_of(&u["replaces"])
        };
        for i in 0..4 {
            net[i] += i64::try_from(t[i]).unwrap() - i64::try_from(r[i]).unwrap();
        }
        let key = (
            u["message_id"].as_str().unwrap().to_string(),
            u["request_id"].as_str().unwrap().to_string(),
        );
        last.insert(key, t);
    }
    assert!(replacing > 0);
    let sum_last = last.into_values().fold([0; 4], |mut a, t| {
        for i in 0..4 {
            a[i] += t[i];
        }
        a
    });
    assert_eq!(sum_last, expected);
    assert_eq!(net.map(|n| u64::try_from(n).unwrap()), expected);
}

/// `LiteLLM`'s price line of `model` (USD per token), read from the copy of
/// its table the bundled one is made from.
fn litellm(model: &str) -> Value {
    let f = std::fs::File::open(fixture("prices/litellm-1.110.2.json.zst")).unwrap();
    let all: Value = serde_json::from_slice(&zstd::decode_all(f).unwrap()).unwrap();
    all[model].clone()
}

/// The growing library with every message answered by `model`, with cache
/// reads and writes (a third of them kept an hour), in a folder of its own.
fn priced_library(model: &str, name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ledger-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut paths = Vec::new();
    files(&growing(), &mut paths);
    for p in paths {
        let to = root.join(p.strip_prefix(growing()).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let mut out = String::new();
        for line in String::from_utf8(read(&p)).unwrap().lines() {
            let mut v: Value = serde_json::from_str(line).unwrap();
            if v["type"] == "cost-state" {
                // Its total prices the captured tokens, not these: left
                // out, as CLIs before 2.1.330 wrote none (a cost line
                // counts as reported: usage.md, one number per question).
                continue;
            }
            if v["type"] == "assistant" && v.pointer("/message/usage").is_some() {
                v["message"]["model"] = model.into();
                let u = &mut v["message"]["usage"];
                u["cache_read_input_tokens"] = 20_000.into();
                u["cache_creation_input_tokens"] = 3_000.into();
                u["cache_creation"] = serde_json::json!({"ephemeral_5m_input_tokens": 2000, "ephemeral_1h_input_tokens": 1000});
            }
            out += &v.to_string();
            out.push('\n');
        }
        std::fs::write(to, out).unwrap();
    }
    root
}

/// Each day's cost is its messages' final tokens at `LiteLLM`'s prices
/// (cache writes kept an hour at twice the input price, as ccusage 20
/// prices them; it gives the same costs for this library).
#[test]
fn each_days_cost_is_its_messages_at_litellms_prices() {
    let model = "claude-sonnet-4-5-20250929";
    let lib = priced_library(model, "cost");
    let p = litellm(model);
    let rate = |k: &str| p[k].as_f64().unwrap();
    let out = sv()
        .env("TZ", "UTC")
        .args(["--format", "summary-json", "--by", "day"])
        .arg(&lib)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["by"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (row, (day, c)) in rows.iter().zip(hand_count(&lib)) {
        assert_eq!(row["group"], day.as_str());
        // c: input, output, cache read, cache writes (1,000 of each
        // message's 3,000 kept an hour).
        let messages = c[3] / 3000;
        #[allow(clippy::cast_precision_loss)]
        let expected = c[0] as f64 * rate("input_cost_per_token")
            + c[1] as f64 * rate("output_cost_per_token")
            + c[2] as f64 * rate("cache_read_input_token_cost")
            + (2000 * messages) as f64 * rate("cache_creation_input_token_cost")
            + (1000 * messages) as f64 * rate("cache_creation_input_token_cost_above_1hr");
        let got = row["cost_usd"].as_f64().unwrap();
        assert!((got - expected).abs() < 1e-6, "{day}: {got} ≠ {expected}");
        assert_eq!(row["cost_estimated"], true);
    }
}

/// A message whose prompt is above the model's long-context threshold is
/// priced whole at the long-context rates, as Anthropic bills it.
#[test]
fn a_message_over_the_long_context_threshold_costs_more_per_token() {
    let model = "claude-sonnet-4-20250514";
    let p = litellm(&format!("anthropic.{model}-v1:0"));
    let rate = |k: &str| p[k].as_f64().unwrap();
    let line = |id: &str, read: u64| {
        serde_json::json!({"type": "assistant", "parentUuid": null, "sessionId": "s1", "requestId": format!("r{id}"),
            "timestamp": "2026-11-20T10:00:00.000Z", "uuid": id, "cwd": "/w",
            "message": {"id": format!("m{id}"), "model": model, "role": "assistant", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": 1000, "output_tokens": 500, "cache_read_input_tokens": read}}})
        .to_string()
    };
    let input = format!("{}\n{}\n", line("a", 198_000), line("b", 199_001));
    let out = sv()
        .args(["--format", "jsonl"])
        .write_stdin(input)
        .output()
        .unwrap();
    let costs: Vec<f64> = json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["kind"] == "usage")
        .map(|e| e["cost_usd_estimated"].as_f64().unwrap())
        .collect();
    let base = 1000.0 * rate("input_cost_per_token")
        + 500.0 * rate("output_cost_per_token")
        + 198_000.0 * rate("cache_read_input_token_cost");
    let long = 1000.0 * rate("input_cost_per_token_above_200k_tokens")
        + 500.0 * rate("output_cost_per_token_above_200k_tokens")
        + 199_001.0 * rate("cache_read_input_token_cost_above_200k_tokens");
    assert!((costs[0] - base).abs() < 1e-9, "{costs:?} {base}");
    assert!((costs[1] - long).abs() < 1e-9, "{costs:?} {long}");
    // Per token: more than the base rates, by far.
    assert!(costs[1] / 200_501.0 > 1.5 * costs[0] / 199_500.0);
}

/// A Codex stream and the rollout Codex saved of the same run, given
/// together, are one session: each call once (as many as the rollout's
/// call lines), its tokens once (the rollout's `token_count` running
/// total), both files named.
#[test]
fn a_stream_and_its_saved_session_count_each_call_and_token_once() {
    for name in ["apply_patch", "mixed", "plan", "shell_fail", "mcp"] {
        let rollout = fixture(&format!("codex-rollout/{name}.rollout.jsonl"));
        let stream = fixture(&format!("codex-rollout/stream/{name}.jsonl"));
        let lines: Vec<Value> = String::from_utf8(read(&rollout))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let calls = (lines.iter())
            .filter(|v| v["type"] == "response_item")
            .filter(|v| {
                v["payload"]["type"]
                    .as_str()
                    .unwrap_or("")
                    .ends_with("call")
            })
            .count() as u64;
        let total = (lines.iter().rev())
            .find_map(|v| v.pointer("/payload/info/total_token_usage"))
            .unwrap();
        let out = sv()
            .args(["--format", "summary-json"])
            .arg(&stream)
            .arg(&rollout)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let sessions = v["sessions"].as_array().unwrap();
        assert_eq!(sessions.len(), 1, "{name}: {v}");
        let s = &sessions[0];
        assert_eq!(s["tool_calls"], calls, "{name}");
        let t = &s["tokens"];
        let n = |k: &str| total[k].as_u64().unwrap();
        assert_eq!(t["output"], n("output_tokens"), "{name}");
        assert_eq!(t["cache_read"], n("cached_input_tokens"), "{name}");
        assert_eq!(
            t["input"],
            n("input_tokens") - n("cached_input_tokens"),
            "{name}"
        );
        let sources: Vec<&str> = s["sources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert_eq!(
            sources,
            [stream.to_str().unwrap(), rollout.to_str().unwrap()],
            "{name}"
        );
    }
}

/// A transcript line as Claude Code writes it: an answer of `out` output
/// tokens (100 in, 1,000 read from the cache) to the line `parent`.
fn answer(uuid: &str, parent: &str, (msg, req): (&str, &str), side: bool, out: u64) -> String {
    serde_json::json!({"parentUuid": parent, "isSidechain": side, "cwd": "/w", "sessionId": "s1",
        "version": "2.1.332", "type": "assistant", "uuid": uuid, "requestId": req,
        "timestamp": "2026-11-20T10:00:00.000Z",
        "message": {"id": msg, "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "stop_reason": "end_turn", "content": [{"type": "text", "text": uuid}],
            "usage": {"input_tokens": 100, "output_tokens": out, "cache_read_input_tokens": 1000}}})
    .to_string()
}

/// A sidechain (a `/btw` side question under `subagents/`) replays a
/// message of its parent under a request id of its own: counted once, as
/// ccusage 20 counts it (its issue #913), however far back the message
/// was; the side question's own answer counts.
#[test]
fn a_sidechain_replay_of_a_parent_message_counts_once() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ledger-{}-btw", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let agents = root.join("proj/s1/subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let mut main = String::new();
    for i in 0..40 {
        let parent = if i == 0 {
            "u".to_string()
        } else {
            format!("a{}", i - 1)
        };
        main += &answer(
            &format!("a{i}"),
            &parent,
            (&format!("msg_{i}"), &format!("req_{i}")),
            false,
            50,
        );
        main.push('\n');
    }
    std::fs::write(root.join("proj/s1.jsonl"), main).unwrap();
    let aside = [
        answer("b1", "v1", ("msg_0", "req_aside"), true, 50),
        answer("b2", "b1", ("msg_aside", "req_aside_2"), true, 7),
    ];
    std::fs::write(agents.join("agent-aside.jsonl"), aside.join("\n") + "\n").unwrap();
    let out = sv()
        .args(["--format", "summary-json", "--by", "day"])
        .arg(root.join("proj"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // 40 messages of the main chain, and the side question's own.
    assert_eq!(
        tokens_of(&v["by"]["rows"][0]["tokens"]),
        [41 * 100, 40 * 50 + 7, 41 * 1000, 0]
    );
}

/// A sink that says nothing (the summary's alerts).
struct Silent;

impl streamview::render::Sink for Silent {
    fn event(&mut self, _: &streamview::Event<'_>, _: &streamview::Session) -> std::io::Result<()> {
        Ok(())
    }
    fn finish(&mut self, _: &streamview::Session) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `--format summary-json INPUT` (a file, or a library read as the
/// command line reads one), and what it wrote on stderr: with what no
/// report reads left unparsed (`ledger`, as the command line does), or
/// every value parsed.
fn summary_json(input: &Path, ledger: bool) -> (String, String) {
    use streamview::render::SummarySink;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut sink = SummarySink::new(termcolor::NoColor::new(&mut out), Silent, true);
    let mut diag = streamview::diag::Diag::new(&mut err, false);
    let mut runner = streamview::Runner::new(&mut sink, &mut diag, 64 << 20)
        .with_report(true)
        .with_ledger(ledger);
    let name = input.display().to_string();
    if input.is_dir() {
        for s in
            streamview::input::library::sessions_below(input, streamview::decode::store_readers())
                .sessions
        {
            runner.library_session(&s, true, None).unwrap();
        }
    } else {
        runner
            .source(&name, std::fs::File::open(input).unwrap())
            .unwrap();
    }
    runner.finish().unwrap();
    (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// What no report reads (request logs, prompt snapshots: `Entry::unread`)
/// is left unparsed by the summaries: over every fixture, file by file and
/// folder by folder, the report and its warnings are byte for byte those
/// of a run that parses every value.
#[test]
fn a_report_that_leaves_context_unread_is_the_same_report() {
    let mut inputs = vec![fixture("")];
    let mut checked = 0;
    while let Some(p) = inputs.pop() {
        if p.is_dir() {
            inputs.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if !p
            .extension()
            .is_some_and(|e| e == "jsonl" || e == "json" || e == "ndjson")
        {
            continue;
        }
        let (fast, slow) = (summary_json(&p, true), summary_json(&p, false));
        let at = (fast.0.bytes().zip(slow.0.bytes())).take_while(|(a, b)| a == b);
        assert!(
            fast == slow,
            "{}: the reports differ from byte {} on",
            p.display(),
            at.count()
        );
        checked += 1;
    }
    assert!(checked > 300, "{checked}");
}
