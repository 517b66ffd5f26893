//! What a session would cost, for the logs that do not say.
//!
//! Claude Code's stream results carry their cost; its transcripts (older
//! than 2.1.330), Codex's stream and rollouts, Gemini's and `OpenCode`'s
//! streams carry tokens only. [`Prices`] turns tokens into an estimate:
//! a bundled, dated table (`prices.json` beside this file: USD per million
//! tokens of each kind, per model) that a user's file of the same shape
//! extends or overrides (`--prices FILE`). An estimate is always marked
//! as one where it is shown (`~$0.12`, `cost_estimated`), and a model the
//! table does not know is named, never priced at zero.
//!
//! A model is looked up by its name without what does not change the
//! price: a provider prefix (`anthropic/claude-sonnet-4-5`), a context
//! marker (`claude-opus-4-8[1m]`) and a date (`claude-sonnet-4-5-20250929`);
//! the rest must match exactly: no guess from a family's name, since a
//! model's successor often costs something else.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::event::Tokens;

/// The bundled table.
const BUNDLED: &str = include_str!("prices.json");

/// USD per million tokens of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rates {
    /// Uncached input.
    pub input: f64,
    /// Output (reasoning included).
    pub output: f64,
    /// Input read from the prompt cache.
    pub cache_read: f64,
    /// Input written to the prompt cache.
    pub cache_write: f64,
}

impl Rates {
    /// What `t` costs in USD (an absent count costs nothing).
    pub fn cost(&self, t: &Tokens) -> f64 {
        // Counts beyond 2^53 tokens lose precision: no session has them.
        #[allow(clippy::cast_precision_loss)]
        let m = |n: Option<u64>, rate: f64| n.unwrap_or(0) as f64 * rate;
        (m(t.input, self.input)
            + m(t.output, self.output)
            + m(t.cache_read, self.cache_read)
            + m(t.cache_creation, self.cache_write))
            / 1e6
    }
}

/// The file's shape (`unit` and `note` document the bundled one).
#[derive(Deserialize)]
struct File {
    #[serde(default)]
    as_of: Option<String>,
    #[serde(default, rename = "unit")]
    _unit: Option<String>,
    #[serde(default, rename = "note")]
    _note: Option<String>,
    models: std::collections::BTreeMap<String, Entry>,
}

/// One model's line: its rates, and where they come from (documentation
/// only).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    input: f64,
    output: f64,
    #[serde(default)]
    cache_read: f64,
    #[serde(default)]
    cache_write: f64,
    #[serde(default, rename = "source")]
    _source: Option<String>,
}

/// A price table; see the module docs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prices {
    /// The date the prices were read, when the table says.
    pub as_of: Option<String>,
    models: Vec<(String, Rates)>,
}

impl Prices {
    /// The bundled table, parsed once.
    pub fn bundled() -> &'static Prices {
        static TABLE: OnceLock<Prices> = OnceLock::new();
        TABLE.get_or_init(|| Prices::parse(BUNDLED).unwrap_or_default())
    }

    /// A table in the bundled file's JSON shape: `{"as_of": "…", "models":
    /// {"name": {"input": 3, "output": 15, "cache_read": 0.3,
    /// "cache_write": 3.75}}}`, USD per million tokens.
    ///
    /// # Errors
    /// The text is not such a table; the message says what is wrong.
    pub fn parse(text: &str) -> Result<Prices, String> {
        let file: File = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut models = Vec::with_capacity(file.models.len());
        for (name, e) in file.models {
            let rates = [e.input, e.output, e.cache_read, e.cache_write];
            if rates.iter().any(|r| !r.is_finite() || *r < 0.0) {
                return Err(format!("the prices of {name} must be numbers ≥ 0"));
            }
            models.push((
                name,
                Rates {
                    input: e.input,
                    output: e.output,
                    cache_read: e.cache_read,
                    cache_write: e.cache_write,
                },
            ));
        }
        Ok(Prices {
            as_of: file.as_of,
            models,
        })
    }

    /// This table with `user`'s models added, or replacing ours of the
    /// same name; `user`'s date when it gives one.
    #[must_use]
    pub fn with(&self, user: Prices) -> Prices {
        let mut out = self.clone();
        for (name, rates) in user.models {
            match out.models.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = rates,
                None => out.models.push((name, rates)),
            }
        }
        out.as_of = user.as_of.or(out.as_of);
        out
    }

    /// The rates of `model`, if the table knows it (see the module docs
    /// for how a name is matched).
    pub fn rates(&self, model: &str) -> Option<&Rates> {
        let key = price_key(model);
        self.models
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(key))
            .map(|(_, r)| r)
    }

    /// What `tokens` of `model` cost in USD, if the table knows the model.
    pub fn estimate(&self, model: &str, tokens: &Tokens) -> Option<f64> {
        self.rates(model).map(|r| r.cost(tokens))
    }
}

/// `model` without what does not change its price: a provider prefix, a
/// `[…]` marker, a `-YYYYMMDD` date.
fn price_key(model: &str) -> &str {
    let mut m = model.trim();
    if let Some(i) = m.rfind('/') {
        m = &m[i + 1..];
    }
    if m.ends_with(']')
        && let Some(i) = m.rfind('[')
    {
        m = &m[..i];
    }
    let b = m.as_bytes();
    if b.len() > 9 && b[b.len() - 9] == b'-' && b[b.len() - 8..].iter().all(u8::is_ascii_digit) {
        m = &m[..m.len() - 9];
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: u64, output: u64, read: u64, write: u64) -> Tokens {
        Tokens {
            input: Some(input),
            output: Some(output),
            cache_read: Some(read),
            cache_creation: Some(write),
        }
    }

    #[test]
    fn the_bundled_table_parses_and_is_dated() {
        let p = Prices::bundled();
        assert!(p.as_of.is_some());
        assert!(p.models.len() > 20, "{}", p.models.len());
    }

    /// Claude Code's own costs, read from results of real captures
    /// (`modelUsage`), are what the table gives for the same tokens.
    #[test]
    fn observed_prices_match_claude_codes_own_costs() {
        let p = Prices::bundled();
        for (model, t, cost) in [
            ("claude-opus-4-8[1m]", tokens(11680, 321, 0, 0), 0.066_425),
            ("claude-opus-5-5", tokens(26928, 347, 0, 0), 0.114_652),
            ("claude-sonnet-5", tokens(3711, 163, 0, 0), 0.013_578),
            ("claude-sonnet-5-5", tokens(5384, 163, 0, 0), 0.012_398),
        ] {
            let est = p.estimate(model, &t).unwrap();
            assert!((est - cost).abs() < 1e-9, "{model}: {est} ≠ {cost}");
        }
    }

    #[test]
    fn names_are_matched_without_prefix_marker_or_date() {
        let p = Prices::bundled();
        let sonnet = p.rates("claude-sonnet-4-5").copied();
        assert!(sonnet.is_some());
        for name in [
            "claude-sonnet-4-5-20250929",
            "anthropic/claude-sonnet-4-5",
            "claude-sonnet-4-5[1m]",
            "Claude-Sonnet-4-5",
        ] {
            assert_eq!(p.rates(name).copied(), sonnet, "{name}");
        }
        // No guess from a family name.
        for name in [
            "claude-sonnet-4-6",
            "gpt-5.5",
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
        let c = p
            .estimate(
                "claude-sonnet-4",
                &tokens(1_000_000, 1_000_000, 1_000_000, 1_000_000),
            )
            .unwrap();
        assert!((c - 22.05).abs() < 1e-9, "{c}");
        // Absent counts cost nothing.
        let t = Tokens {
            input: Some(1_000_000),
            ..Tokens::default()
        };
        assert!((p.estimate("gpt-5", &t).unwrap() - 1.25).abs() < 1e-9);
    }

    #[test]
    fn a_users_table_extends_and_overrides() {
        let user = Prices::parse(
            r#"{"as_of":"2027-01-01","models":{"gpt-5.5":{"input":2,"output":16},
                "claude-sonnet-4":{"input":1,"output":1}}}"#,
        )
        .unwrap();
        let p = Prices::bundled().with(user);
        assert_eq!(p.as_of.as_deref(), Some("2027-01-01"));
        // What a million tokens of each kind cost.
        let million = tokens(1_000_000, 1_000_000, 1_000_000, 1_000_000);
        let cost = |m: &str| p.estimate(m, &million).unwrap();
        assert!((cost("gpt-5.5") - 18.0).abs() < 1e-9);
        assert!((cost("claude-sonnet-4") - 2.0).abs() < 1e-9);
        assert!((cost("claude-opus-4") - 110.25).abs() < 1e-9);
    }

    #[test]
    fn a_bad_table_says_what_is_wrong() {
        for (text, says) in [
            ("{", "EOF"),
            (r#"{"models":{"m":{"input":1}}}"#, "output"),
            (r#"{"models":{"m":{"input":-1,"output":1}}}"#, "≥ 0"),
            (
                r#"{"models":{"m":{"input":1,"output":1,"cache":1}}}"#,
                "unknown field",
            ),
        ] {
            let e = Prices::parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
