// Token counts of tests are small; prices read back are exact (they are
// rounded to the 10^-9 when read).
#![allow(clippy::cast_precision_loss, clippy::float_cmp)]

use super::*;

fn tokens(input: u64, output: u64, read: u64, write: u64) -> Tokens {
    Tokens {
        input: Some(input),
        output: Some(output),
        cache_read: Some(read),
        cache_creation: Some(write),
        reasoning: None,
    }
}

/// `LiteLLM`'s table as the litellm package 1.110.2 ships it
/// (`model_prices_and_context_window_backup.json`).
fn litellm() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/prices/litellm-1.110.2.json.zst"
    );
    let bytes = zstd::decode_all(std::fs::File::open(path).unwrap()).unwrap();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn the_bundled_table_is_what_the_generator_makes_of_litellms() {
    let p = Prices::bundled();
    let (as_of, source) = (p.as_of.as_deref().unwrap(), p.source.as_deref().unwrap());
    assert!(source.starts_with("LiteLLM 1.110.2"), "{source}");
    assert_eq!(bundle(&litellm(), as_of, source).unwrap(), BUNDLED);
}

/// Each model of the bundled table is priced as its line of `LiteLLM`'s
/// file is, given with `--prices`; and the whole file is read.
#[test]
fn the_bundled_table_prices_as_litellms_file_does() {
    let text = litellm();
    let whole: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert!(Prices::parse(&text).unwrap().len() > 1500);
    let bundled = Prices::bundled();
    assert!(bundled.len() > 300, "{}", bundled.len());
    for (name, m) in &bundled.models {
        let line = serde_json::json!({ name: whole[name] }).to_string();
        assert_eq!(Prices::parse(&line).unwrap().model(name), Some(m), "{name}");
    }
}

/// The models the agents of our captures and of today's users name: a
/// price for each, as agents write the names.
#[test]
fn current_models_are_priced_as_agents_name_them() {
    let p = Prices::bundled();
    for (name, input, output) in [
        ("gpt-5.5", 5.0, 30.0),
        ("gpt-5.5-2026-04-23", 5.0, 30.0),
        ("openai/gpt-5.5", 5.0, 30.0),
        ("claude-opus-4-6", 5.0, 25.0),
        ("claude-sonnet-4-6", 3.0, 15.0),
        ("claude-opus-4-8[1m]", 5.0, 25.0),
        ("claude-sonnet-4-5-20250929", 3.0, 15.0),
        ("claude-sonnet-4-5@20250929", 3.0, 15.0),
        ("anthropic/claude-sonnet-4.5", 3.0, 15.0),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3.0, 15.0),
        ("Claude-Haiku-4-5", 1.0, 5.0),
        // Older ones, as saved sessions of 2025 name them.
        ("claude-opus-4-1-20250805", 15.0, 75.0),
        ("claude-sonnet-4-20250514", 3.0, 15.0),
        ("claude-3-5-haiku-20241022", 0.8, 4.0),
        ("claude-3-7-sonnet-20250219", 3.0, 15.0),
        ("gemini-2.5-pro", 1.25, 10.0),
        ("gemini-3.1-pro-preview", 2.0, 12.0),
        ("gemini-3-pro-preview", 2.0, 12.0),
        ("qwen3-coder-plus", 1.0, 5.0),
    ] {
        let r = p
            .rates(name)
            .unwrap_or_else(|| panic!("no price for {name}"));
        assert_eq!((r.input, r.output), (input, output), "{name}");
    }
    // No guess from a family's name, no price for an empty one.
    for name in [
        "claude-sonnet-9",
        "gpt-5.55",
        "mock-model",
        "",
        "[1m]",
        "-20250101",
    ] {
        assert_eq!(p.rates(name), None, "{name}");
    }
}

#[test]
fn every_kind_of_token_is_priced() {
    let p = Prices::bundled();
    // 1M of each: input 3 + output 15 + read 0.3 + write 3.75.
    let million = tokens(1_000_000, 1_000_000, 1_000_000, 1_000_000);
    let c = p
        .message("claude-sonnet-4-5", &million, Billing::default())
        .unwrap();
    assert!((c - 22.05).abs() < 1e-9, "{c}");
    // Writes kept an hour: twice the input price.
    let c = p
        .message(
            "claude-sonnet-4-5",
            &tokens(0, 0, 0, 1_000_000),
            Billing {
                write_1h: 400_000,
                fast: false,
            },
        )
        .unwrap();
    assert!((c - (0.6 * 3.75 + 0.4 * 6.0)).abs() < 1e-9, "{c}");
    // Absent counts cost nothing.
    let t = Tokens {
        input: Some(1_000_000),
        ..Tokens::default()
    };
    assert!((p.estimate("gpt-5", &t).unwrap() - 1.25).abs() < 1e-9);
}

/// A message above the long-context threshold is priced whole at the
/// long-context rates, as the provider bills it; a sum of messages at
/// the base rates.
#[test]
fn a_long_prompt_costs_more_per_token() {
    let p = Prices::bundled();
    let at = |n: u64| tokens(n - 100_000, 1000, 100_000, 0);
    let per_token =
        |n: u64| p.message("gpt-5.5", &at(n), Billing::default()).unwrap() / (n + 1000) as f64;
    assert!(
        (p.message("gpt-5.5", &at(272_000), Billing::default())
            .unwrap()
            - (172_000.0 * 5.0 + 100_000.0 * 0.5 + 1000.0 * 30.0) / 1e6)
            .abs()
            < 1e-9
    );
    let long = p
        .message("gpt-5.5", &at(272_001), Billing::default())
        .unwrap();
    assert!((long - (172_001.0 * 10.0 + 100_000.0 * 1.0 + 1000.0 * 45.0) / 1e6).abs() < 1e-9);
    assert!(per_token(272_001) > 1.9 * per_token(272_000));
    // Gemini: above 200k. Qwen: tiers of its own.
    assert!(
        p.message("gemini-2.5-pro", &at(200_001), Billing::default())
            > p.message("gemini-2.5-pro", &at(200_000), Billing::default())
                .map(|c| c * 1.5)
    );
    let qwen = |n: u64| {
        p.message("qwen3-coder-plus", &tokens(n, 0, 0, 0), Billing::default())
            .unwrap()
            / n as f64
    };
    assert!(qwen(32_001) > qwen(32_000) && qwen(128_001) > qwen(32_001));
    // Several messages together: the base rates.
    assert!(
        (p.estimate("gpt-5.5", &at(300_000)).unwrap()
            - (200_000.0 * 5.0 + 100_000.0 * 0.5 + 1000.0 * 30.0) / 1e6)
            .abs()
            < 1e-9
    );
}

#[test]
fn a_litellm_file_is_read_as_it_is() {
    let p = Prices::parse(
        r#"{"sample_spec": {"input_cost_per_token": "not a model"},
            "my-model": {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6,
                         "input_cost_per_token_above_128k_tokens": 4e-6, "litellm_provider": "x"},
            "openrouter/vendor/other-model": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6},
            "an-image-model": {"output_cost_per_image": 0.04}}"#,
    );
    // The sample line's text where a number is due is named.
    assert!(p.as_ref().unwrap_err().contains("sample_spec"), "{p:?}");
    let p = Prices::parse(
        r#"{"my-model": {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6,
                         "input_cost_per_token_above_128k_tokens": 4e-6, "litellm_provider": "x"},
            "openrouter/vendor/other-model": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6},
            "an-image-model": {"output_cost_per_image": 0.04}}"#,
    )
    .unwrap();
    assert_eq!(p.len(), 2);
    let m = p.model("my-model").unwrap();
    // Cache prices it does not give: Anthropic's ratios, as ccusage.
    assert_eq!(m.base.cache_read, 0.2);
    assert_eq!(m.base.cache_write, 2.5);
    assert_eq!(m.long_context.len(), 1);
    assert_eq!(m.long_context[0].0, 128_000);
    assert_eq!(m.long_context[0].1.output, 8.0);
    assert!(p.rates("other-model").is_some());
    // Given with --prices, it adds to the bundled table.
    let all = Prices::bundled().with(p);
    assert!(all.rates("my-model").is_some() && all.rates("gpt-5.5").is_some());
}

#[test]
fn a_users_table_extends_and_overrides() {
    let user = Prices::parse(
        r#"{"as_of":"2027-01-01","models":{"gpt-5.5":{"input":2,"output":16},
            "claude-sonnet-4-5":{"input":1,"output":1}}}"#,
    )
    .unwrap();
    let p = Prices::bundled().with(user);
    assert_eq!(p.as_of.as_deref(), Some("2027-01-01"));
    let million = tokens(1_000_000, 1_000_000, 1_000_000, 1_000_000);
    let cost = |m: &str| p.estimate(m, &million).unwrap();
    assert!((cost("gpt-5.5") - 18.0).abs() < 1e-9);
    assert!((cost("claude-sonnet-4-5-20250929") - 2.0).abs() < 1e-9);
    assert!((cost("claude-opus-4-1") - 110.25).abs() < 1e-9);
}

#[test]
fn a_bad_table_says_what_is_wrong() {
    for (text, says) in [
        ("{", "EOF"),
        ("[]", "object"),
        (r#"{"models":{"m":{"input":1}}}"#, "\"output\""),
        (
            r#"{"models":{"m":{"input":-1,"output":1}}}"#,
            "m: \"input\" must be a price",
        ),
        (
            r#"{"models":{"m":{"input":1,"output":1e308}}}"#,
            "m: \"output\" must be a price",
        ),
        (
            r#"{"models":{"m":{"input":1,"output":1,"cache":1}}}"#,
            "unknown field \"cache\"",
        ),
        (
            r#"{"m":{"input_cost_per_token":1e300,"output_cost_per_token":1}}"#,
            "m: \"input_cost_per_token\"",
        ),
        (
            r#"{"m":{"input_cost_per_token":"1","output_cost_per_token":1}}"#,
            "must be a number",
        ),
    ] {
        let e = Prices::parse(text).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
    // A byte order mark is no error.
    assert!(Prices::parse("\u{feff}{\"models\":{}}").is_ok());
}

#[test]
fn names_are_keyed_once() {
    assert_eq!(
        name_key(" Anthropic/Claude-Opus-4.5[1m] "),
        "claude-opus-4-5"
    );
    assert_eq!(
        name_key("us.anthropic.claude-opus-4-1-20250805-v1:0"),
        "claude-opus-4-1-20250805"
    );
    assert_eq!(base_key("claude-opus-4-1-20250805"), "claude-opus-4-1");
    assert_eq!(base_key("gpt-5-5-2026-04-23"), "gpt-5-5");
    assert_eq!(base_key("claude-3-5-haiku-latest"), "claude-3-5-haiku");
    assert_eq!(base_key("gpt-4o"), "gpt-4o");
    assert_eq!(name_key("gpt-5-v"), "gpt-5-v");
}

#[test]
fn the_tables_words_are_inert() {
    // Kept as written, at most 100 characters: what shows it sanitizes it.
    let p = Prices::parse("{\"as_of\":\"2026\\u001b[2J\\u202e-01\",\"models\":{}}").unwrap();
    assert_eq!(p.as_of.as_deref(), Some("2026\u{1b}[2J\u{202e}-01"));
    let long = format!("{{\"source\":\"{}\",\"models\":{{}}}}", "x".repeat(5000));
    assert_eq!(Prices::parse(&long).unwrap().source.unwrap().len(), 100);
    let e = Prices::parse("{\"models\":{\"m\\u001b]8;;x\\u0007\":{\"input\":-1,\"output\":1}}}")
        .unwrap_err();
    assert!(!e.chars().any(char::is_control), "{e:?}");
}

/// Fast mode costs the model's multiple where `LiteLLM` gives one.
#[test]
fn fast_mode_costs_the_multiple_litellm_gives() {
    let p = Prices::bundled();
    let t = tokens(1000, 1000, 0, 0);
    let fast = Billing {
        fast: true,
        ..Billing::default()
    };
    let normal = p
        .message("claude-opus-5-5", &t, Billing::default())
        .unwrap();
    assert!((p.message("claude-opus-5-5", &t, fast).unwrap() - 2.0 * normal).abs() < 1e-12);
    // No multiple known: the standard price.
    let gpt = p.message("gpt-5.5", &t, Billing::default());
    assert_eq!(p.message("gpt-5.5", &t, fast), gpt);
}

/// A table is read as a JSON object read into a map: a repeated key's
/// last value counts, and of two names of one key the same one is kept
/// whatever the order they are written in.
#[test]
fn a_table_reads_as_a_map_of_it_would() {
    let rates = |p: &Prices, m: &str| p.rates(m).map(|r| (r.input, r.output));
    let parse = |t: &str| Prices::parse(t).unwrap();
    let a = r#"{"models":{"Claude-X":{"input":1,"output":2},"claude-x":{"input":3,"output":4}}}"#;
    let b = r#"{"models":{"claude-x":{"input":3,"output":4},"Claude-X":{"input":1,"output":2}}}"#;
    assert_eq!(parse(a), parse(b));
    assert_eq!(rates(&parse(a), "claude-x"), Some((1.0, 2.0)));
    // A repeated name, a repeated field, a repeated "models": the last.
    let p =
        parse(r#"{"models":{"m":{"input":1,"output":2},"m":{"input":5,"output":6,"output":7}}}"#);
    assert_eq!((p.len(), rates(&p, "m")), (1, Some((5.0, 7.0))));
    let p =
        parse(r#"{"models":{"a":{"input":1,"output":2}},"models":{"b":{"input":1,"output":2}}}"#);
    assert_eq!((rates(&p, "a"), rates(&p, "b")), (None, Some((1.0, 2.0))));
    // LiteLLM's shape: whole numbers, tiers and their ranges written as
    // integers, a repeated name.
    let p = parse(
        r#"{"q":{"tiered_pricing":[{"range":[0,32000],"input_cost_per_token":1e-6,"output_cost_per_token":2e-6},{"range":[32000,128000],"input_cost_per_token":2e-6,"output_cost_per_token":4e-6}]},
            "z":{"input_cost_per_token":0,"output_cost_per_token":1e-6},
            "z":{"input_cost_per_token":1e-6,"output_cost_per_token":3e-6}}"#,
    );
    let q = p.model("q").unwrap();
    assert_eq!((q.base.input, q.long_context[0].0), (1.0, 32000));
    assert_eq!(rates(&p, "z"), Some((1.0, 3.0)));
}
