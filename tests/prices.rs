//! Estimated costs (issue 17): logs that report tokens but no cost get one
//! from the price table, marked as an estimate everywhere it is shown;
//! reported costs are never replaced; models the table lacks are named,
//! not priced at zero; a user's table extends the bundled one.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use common::{fixture, sv};
use serde_json::Value;

fn summary(args: &[&str], files: &[&str]) -> Value {
    let mut cmd = sv();
    cmd.args(["--format", "summary-json"]).args(args);
    for f in files {
        cmd.arg(fixture(f));
    }
    let out = cmd.output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn jsonl(args: &[&str], file: &str) -> Vec<Value> {
    let out = sv()
        .args(["--format", "jsonl"])
        .args(args)
        .arg(fixture(file))
        .output()
        .unwrap();
    common::json_lines(&out.stdout)
}

/// `--format summary` of `files`.
fn table(files: &[&str]) -> String {
    let out = sv()
        .args(["--format", "summary"])
        .args(files.iter().map(|f| fixture(f)))
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// USD per million tokens, copied by hand from `LiteLLM`'s table (the
/// copy in tests/fixtures/prices/): (model, input, output, cache read,
/// cache write).
const BY_HAND: [(&str, f64, f64, f64, f64); 2] = [
    ("claude-opus-4-8", 5.0, 25.0, 0.5, 6.25),
    ("gemini-2.5-pro", 1.25, 10.0, 0.125, 1.5625),
];

/// The bundled table's date.
fn as_of() -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/session/prices.json"
    ))
    .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["as_of"].as_str().unwrap().to_string()
}

fn by_hand(model: &str, t: &Value) -> f64 {
    let (_, i, o, r, w) = BY_HAND.iter().find(|m| m.0 == model).unwrap();
    let n = |k: &str| t[k].as_f64().unwrap_or(0.0);
    (n("input") * i + n("output") * o + n("cache_read") * r + n("cache_creation") * w) / 1e6
}

/// A transcript (no cost in it) and a Gemini stream (none either): each
/// model's cost is its tokens times the table's prices, the session's the
/// sum, the total the sum of the sessions; all marked estimated.
#[test]
fn costs_not_reported_are_estimated_from_the_table() {
    let files = [
        "claude-transcript/transcript_subagent.jsonl",
        "gemini/parallel.jsonl",
    ];
    let s = summary(&[], &files);
    let mut total = 0.0;
    for row in s["sessions"].as_array().unwrap() {
        let mut sum = 0.0;
        for m in row["models"].as_array().unwrap() {
            let want = by_hand(m["model"].as_str().unwrap(), &m["tokens"]);
            assert!(close(m["cost_usd"].as_f64().unwrap(), want), "{m}");
            assert_eq!(m["cost_estimated"], true);
            sum += want;
        }
        assert!(sum > 0.0);
        assert!(close(row["cost_usd"].as_f64().unwrap(), sum), "{row}");
        assert_eq!(row["cost_estimated"], true);
        assert_eq!(row["cost_partial"], false);
        total += sum;
    }
    assert!(close(s["total"]["cost_usd"].as_f64().unwrap(), total));
    assert_eq!(s["total"]["cost_estimated"], true);
    assert_eq!(s["prices_as_of"], as_of().as_str());

    // The table says so: `~` before each estimate, the date in a note.
    let table = table(&files);
    assert_eq!(table.matches("~$").count(), 5, "{table}");
    assert!(
        table.contains(&format!("~ estimated from the prices of {}", as_of())),
        "{table}"
    );

    // The pretty end line too.
    let out = sv().arg(fixture(files[0])).output().unwrap();
    let pretty = String::from_utf8(out.stdout).unwrap();
    assert!(
        pretty.contains("✓ done · 2 turns · 914ms · ~$0.0226 · "),
        "{pretty}"
    );
}

/// JSONL: each usage event priced, the result with the session's sum.
#[test]
fn jsonl_prices_each_message_and_the_session() {
    let evs = jsonl(&[], "claude-transcript/transcript_subagent.jsonl");
    let mut sum = 0.0;
    for u in evs.iter().filter(|e| e["kind"] == "usage") {
        let want = by_hand(u["model"].as_str().unwrap(), &u["tokens"]);
        assert!(
            close(u["cost_usd_estimated"].as_f64().unwrap(), want),
            "{u}"
        );
        sum += want;
    }
    let result = evs.iter().find(|e| e["kind"] == "result").unwrap();
    assert_eq!(result["cost_usd"], Value::Null);
    assert!(close(result["cost_usd_estimated"].as_f64().unwrap(), sum));
}

/// A cost the producer reported is the cost: never estimated over, and
/// Claude's stream's preliminary output counts are not priced.
#[test]
fn reported_costs_are_kept() {
    let s = summary(&[], &["claude/subagent.jsonl"]);
    assert_eq!(s["total"]["cost_usd"], 0.066_425);
    assert_eq!(s["total"]["cost_estimated"], false);
    assert_eq!(s["prices_as_of"], Value::Null);
    for e in jsonl(&[], "claude/subagent.jsonl") {
        match e["kind"].as_str().unwrap() {
            "usage" | "result" => assert_eq!(e["cost_usd_estimated"], Value::Null, "{e}"),
            _ => {}
        }
    }
}

/// A model the table does not know (the scripted server's mock-model
/// here) is named and costs nothing it does not know: its session has no
/// cost, a total with it is a lower bound (`≥`).
#[test]
fn unknown_models_are_named_not_priced_at_zero() {
    let files = [
        "codex-rollout/unknown_model.rollout.jsonl",
        "gemini/parallel.jsonl",
    ];
    let s = summary(&[], &files);
    assert_eq!(s["sessions"][0]["cost_usd"], Value::Null);
    assert_eq!(
        s["sessions"][0]["unpriced_models"],
        serde_json::json!(["mock-model"])
    );
    assert_eq!(
        s["total"]["unpriced_models"],
        serde_json::json!(["mock-model"])
    );
    assert_eq!(s["total"]["cost_partial"], true);
    let table = table(&files);
    assert!(table.contains("≥ ~$0.0029"), "{table}");
    assert!(table.contains("no price for mock-model"), "{table}");
}

/// `--prices FILE` (or `$STREAMVIEW_PRICES`) adds models and replaces
/// ours; a file that is not a table is one clear line and status 2.
#[test]
fn a_users_price_file_extends_the_table() {
    let dir = std::env::temp_dir().join(format!("streamview-prices-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("prices.json");
    std::fs::write(
        &file,
        r#"{"as_of":"2027-01-01","models":{"gpt-5.5":{"input":2,"output":16,"cache_read":0.2}}}"#,
    )
    .unwrap();
    let s = summary(
        &["--prices", file.to_str().unwrap()],
        &["codex-rollout/mixed.rollout.jsonl"],
    );
    let m = &s["total"]["models"][0];
    let t = &m["tokens"];
    let n = |k: &str| t[k].as_f64().unwrap();
    let want = (n("input") * 2.0 + n("output") * 16.0 + n("cache_read") * 0.2) / 1e6;
    assert!(close(m["cost_usd"].as_f64().unwrap(), want), "{m}");
    assert_eq!(s["prices_as_of"], "2027-01-01");
    // The same from the environment.
    let out = sv()
        .env("STREAMVIEW_PRICES", &file)
        .args(["--format", "summary-json"])
        .arg(fixture("codex-rollout/mixed.rollout.jsonl"))
        .output()
        .unwrap();
    let env: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["total"]["cost_usd"], s["total"]["cost_usd"]);

    std::fs::write(&file, r#"{"models":{"m":{"input":1}}}"#).unwrap();
    let out = sv()
        .args(["--prices", file.to_str().unwrap()])
        .arg(fixture("codex/text.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(r#"is not a price table (m: "input" and "output" prices are needed)"#),
        "{err}"
    );
    assert!(err.contains("leave out --prices"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A price file that is not a regular file (a device that never ends) is
/// refused at once with one line, status 2.
#[cfg(unix)]
#[test]
fn a_price_file_that_is_a_device_is_refused() {
    for (how, val) in [
        ("--prices", "/dev/zero"),
        ("STREAMVIEW_PRICES", "/dev/zero"),
    ] {
        let mut cmd = sv();
        if how == "--prices" {
            cmd.args([how, val]);
        } else {
            cmd.env(how, val);
        }
        let out = cmd.arg(fixture("codex/text.jsonl")).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{how}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("not a regular file"), "{err}");
    }
}

/// `--prices` takes `LiteLLM`'s own file as it is: a model named only there
/// gets a cost, at its per-token prices.
#[test]
fn a_litellm_price_file_prices_a_model_named_only_there() {
    let dir = std::env::temp_dir().join(format!("streamview-litellm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("model_prices_and_context_window.json");
    std::fs::write(
        &file,
        r#"{"sample_spec": {"litellm_provider": "one of …", "mode": "chat"},
            "mock-model": {"input_cost_per_token": 2e-6, "output_cost_per_token": 1e-5,
                           "cache_read_input_token_cost": 2e-7, "litellm_provider": "openai", "mode": "chat"}}"#,
    )
    .unwrap();
    let rollout = "codex-rollout/unknown_model.rollout.jsonl";
    assert_eq!(summary(&[], &[rollout])["total"]["cost_usd"], Value::Null);
    let s = summary(&["--prices", file.to_str().unwrap()], &[rollout]);
    let m = &s["total"]["models"][0];
    assert_eq!(m["model"], "mock-model");
    let t = &m["tokens"];
    let n = |k: &str| t[k].as_f64().unwrap_or(0.0);
    let want = n("input") * 2e-6 + n("output") * 1e-5 + n("cache_read") * 2e-7;
    assert!(want > 0.0);
    assert!(close(s["total"]["cost_usd"].as_f64().unwrap(), want), "{s}");
    assert_eq!(s["total"]["cost_estimated"], true);
    let _ = std::fs::remove_dir_all(&dir);
}
