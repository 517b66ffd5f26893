//! What a session would cost, for the logs that do not say.
//!
//! Claude Code's stream results carry their cost; its transcripts (older
//! than 2.1.330), Codex's stream and rollouts, Gemini's and `OpenCode`'s
//! streams carry tokens only. [`Prices`] turns tokens into an estimate:
//! a bundled, dated table (`prices.json` beside this file, generated from
//! `LiteLLM`'s price database by `examples/prices.rs`: USD per million tokens
//! of each kind, per model) that a user's file extends or overrides
//! (`--prices FILE`: the bundled file's shape, or `LiteLLM`'s
//! `model_prices_and_context_window.json` as it is). An estimate is always
//! marked as one where it is shown (`~$0.12`, `cost_estimated`), and a model
//! the table does not know is named, never priced at zero.
//!
//! **Each message is priced on its own**, as providers bill: a message
//! whose prompt (uncached input, cache reads and cache writes together)
//! is above a model's long-context threshold (200k tokens for Claude and
//! Gemini, 272k for GPT-5.4 and later) is priced whole at the long-context
//! rates; cache writes kept an hour cost their own rate. Counts of several
//! messages together ([`Prices::estimate`]) are priced at the base rates.
//!
//! **Names** are matched as agents write them: without a provider prefix
//! (`anthropic/…`, `dashscope/…`, Bedrock's `us.anthropic.…`), a context
//! marker (`[1m]`), a version suffix (`-v1:0`), case, and with `.` and `@`
//! read as `-` (`claude-opus-4.5`, `claude-sonnet-4-5@20250929`); then, if
//! that name is not in the table, also without a date (`-20250929`,
//! `-2026-04-23`) or `-latest`. No guess from a family's name: a model's
//! successor often costs something else.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use foldhash::HashMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value as JsonValue};

use crate::event::{Tokens, Usage};
use crate::json::{Arr, Parser, Value};

/// The bundled table.
const BUNDLED: &str = include_str!("prices.json");

/// The highest price accepted, in USD per million tokens: far above any
/// model's, far below what makes a sum absurd.
const MAX_RATE: f64 = 10_000.0;

/// USD per million tokens of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rates {
    /// Uncached input.
    pub input: f64,
    /// Output (reasoning included).
    pub output: f64,
    /// Input read from the prompt cache.
    pub cache_read: f64,
    /// Input written to the prompt cache (kept five minutes).
    pub cache_write: f64,
    /// Input written to the prompt cache kept an hour.
    pub cache_write_1h: f64,
}

impl Rates {
    /// What `t` costs in USD (an absent count costs nothing), `write_1h`
    /// of its cache writes kept an hour.
    pub fn cost(&self, t: &Tokens, write_1h: u64) -> f64 {
        // Counts beyond 2^53 tokens lose precision: no session has them.
        #[allow(clippy::cast_precision_loss)]
        let m = |n: u64, rate: f64| n as f64 * rate;
        let writes = t.cache_creation.unwrap_or(0);
        let write_1h = write_1h.min(writes);
        (m(t.input.unwrap_or(0), self.input)
            + m(t.output.unwrap_or(0), self.output)
            + m(t.cache_read.unwrap_or(0), self.cache_read)
            + m(writes - write_1h, self.cache_write)
            + m(write_1h, self.cache_write_1h))
            / 1e6
    }
}

/// One model's prices: its base rates, and those of a prompt above each
/// long-context threshold (ascending).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// The rates of a prompt up to the first threshold.
    pub base: Rates,
    /// `(threshold, rates)`: a prompt of more tokens than the threshold is
    /// priced at these.
    pub long_context: Vec<(u64, Rates)>,
    /// What a message answered in fast mode costs, times its price
    /// (`LiteLLM`'s `provider_specific_entry.fast`); `None`: not known, the
    /// standard price.
    pub fast: Option<f64>,
}

impl Model {
    /// What one API message of this model costs in USD (see
    /// [`Prices::message`]).
    #[must_use]
    pub fn message(&self, t: &Tokens, how: Billing) -> f64 {
        let times = if how.fast {
            self.fast.unwrap_or(1.0)
        } else {
            1.0
        };
        self.rates_for(t.total_input()).cost(t, how.write_1h) * times
    }

    /// The rates a message of `prompt` input tokens is billed at.
    #[must_use]
    pub fn rates_for(&self, prompt: u64) -> &Rates {
        (self.long_context.iter().rev())
            .find(|(above, _)| prompt > *above)
            .map_or(&self.base, |(_, r)| r)
    }
}

/// How a message is billed beyond its counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Billing {
    /// Of its cache writes, those kept an hour.
    pub write_1h: u64,
    /// Answered in fast mode (Claude's `usage.speed: "fast"`), which costs
    /// the model's fast multiple where the table gives one.
    pub fast: bool,
}

impl Billing {
    /// How `u` is billed.
    #[must_use]
    pub fn of(u: &Usage<'_>) -> Billing {
        Billing {
            write_1h: u.cache_write_1h.unwrap_or(0),
            fast: u.fast,
        }
    }
}

/// A price table; see the module docs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prices {
    /// The date the prices were read, when the table says.
    pub as_of: Option<String>,
    /// Where they come from, when the table says.
    pub source: Option<String>,
    /// The models, in the order of their names.
    models: Vec<(String, Model)>,
    /// Each model's [`name_key`], hashed ([`hash_key`]) → its index.
    names: HashMap<u64, usize>,
    /// Each model's [`base_key`], hashed → its index (the first name of a
    /// base).
    bases: HashMap<u64, usize>,
}

/// The hash the maps of a [`Prices`] keep a key by, not the key: a table's
/// names are most of its memory (three copies of each, with the keys).
/// Fixed seeds: the same in every run. A lookup checks the model it finds
/// against the key, so two keys of one hash (odds of 1 in 10^10 over a
/// table of 100,000 models) can only leave the second one unpriced.
fn hash_key(key: &str) -> u64 {
    use std::hash::BuildHasher;
    const KEYS: foldhash::quality::FixedState =
        foldhash::quality::FixedState::with_seed(0x7072_6963_6573_2121);
    KEYS.hash_one(key)
}

impl Prices {
    /// The bundled table, parsed once.
    pub fn bundled() -> &'static Prices {
        static TABLE: OnceLock<Prices> = OnceLock::new();
        TABLE.get_or_init(|| Prices::parse(BUNDLED).unwrap_or_default())
    }

    /// A table in the bundled file's shape (`{"as_of": "…", "models":
    /// {"name": {"input": 3, "output": 15, "cache_read": 0.3,
    /// "cache_write": 3.75, "cache_write_1h": 6, "long_context": [{"above":
    /// 200000, "input": 6, …}]}}}`, USD per million tokens), or `LiteLLM`'s
    /// (`{"name": {"input_cost_per_token": 3e-6, …}}`, USD per token).
    ///
    /// # Errors
    /// The text is not such a table, or a price is not a number from 0 to
    /// 10,000 USD per million tokens; the message names the model and key.
    pub fn parse(text: &str) -> Result<Prices, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // The top object's fields, each value left as its text, then each
        // entry parsed into a tape and read in place, one at a time (serde_json
        // into a tree was 60% of a one-session report's instructions; one
        // tape of a whole table of 80,000 models, 8x the file in memory).
        let top = fields_of(text, "a price table is a JSON object")?;
        let mut parser = Parser::default();
        let mut p = Prices::default();
        // Each name moved from the fields into the table (a table's names
        // are most of its memory).
        if let Some(models) = top.get("models") {
            let models = fields_of(models.get(), "\"models\" must be an object")?;
            p.as_of = string_at(&top, "as_of");
            p.source = string_at(&top, "source");
            p.models.reserve(models.len());
            for (name, e) in models {
                let m = entry(&mut parser, &name, e, |e| own_entry(&name, e))?;
                p.push(name, m);
            }
        } else {
            p.models.reserve(top.len());
            for (name, e) in litellm_order(top) {
                if let Some(m) = entry(&mut parser, &name, e, |e| litellm_entry(&name, e))? {
                    p.push(name, m);
                }
            }
        }
        p.models.shrink_to_fit();
        Ok(p)
    }

    /// Add `model` as `name`, unless a model of the same [`name_key`] is
    /// there (the first stays).
    fn push(&mut self, name: String, model: Model) {
        let key = name_key(&name);
        if key.is_empty() || self.names.contains_key(&hash_key(&key)) {
            return;
        }
        let i = self.models.len();
        self.bases.entry(hash_key(base_key(&key))).or_insert(i);
        self.names.insert(hash_key(&key), i);
        self.models.push((name, model));
    }

    /// This table with `user`'s models added, or replacing ours of the
    /// same name (dated versions of it included: `claude-sonnet-4-5`
    /// replaces our `claude-sonnet-4-5-20250929`); `user`'s date and source
    /// when it gives them.
    #[must_use]
    pub fn with(&self, user: Prices) -> Prices {
        // `user`'s names and models moved, not copied: its maps are made
        // again (a table of 80,000 models is twice the memory otherwise).
        let Prices {
            as_of,
            source,
            models,
            names,
            bases,
        } = user;
        drop((names, bases));
        let mut out = Prices {
            as_of: as_of.or_else(|| self.as_of.clone()),
            source: source.or_else(|| self.source.clone()),
            ..Prices::default()
        };
        // Made at their size: grown by doubling, a table of 80,000 models
        // passes through twice its size.
        let n = models.len() + self.models.len();
        out.models.reserve_exact(n);
        out.names.reserve(n);
        out.bases.reserve(n);
        for (name, m) in models {
            out.push(name, m);
        }
        for (name, m) in &self.models {
            if !out.bases.contains_key(&hash_key(base_key(&name_key(name)))) {
                out.push(name.clone(), m.clone());
            }
        }
        out
    }

    /// How many models the table prices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// The table prices no model.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// The prices of `model`, if the table knows it (see the module docs
    /// for how a name is matched).
    pub fn model(&self, model: &str) -> Option<&Model> {
        self.model_at(self.find(model)?)
    }

    /// Where the table keeps `model`, for [`Prices::model_at`] (a caller
    /// pricing message after message of one model looks it up once).
    pub fn find(&self, model: &str) -> Option<usize> {
        // The key is made on the stack (no allocation per line) unless the
        // name is long.
        let mut buf = [0u8; 96];
        let owned;
        let key = if let Some(k) = key_in(model, &mut buf) {
            k
        } else {
            owned = name_key(model);
            &owned
        };
        // The model found checked against the key (the maps keep hashes),
        // its own key made on the stack too.
        let mut mine = [0u8; 96];
        let mut stored = |i: usize, check: &dyn Fn(&str) -> bool| {
            let Some((name, _)) = self.models.get(i) else {
                return false;
            };
            match key_in(name, &mut mine) {
                Some(k) => check(k),
                None => check(&name_key(name)),
            }
        };
        if let Some(&i) = self.names.get(&hash_key(key))
            && stored(i, &|k| k == key)
        {
            return Some(i);
        }
        let base = base_key(key);
        let &i = self.bases.get(&hash_key(base))?;
        stored(i, &|k| base_key(k) == base).then_some(i)
    }

    /// The model [`Prices::find`] found at `i`.
    pub fn model_at(&self, i: usize) -> Option<&Model> {
        self.models.get(i).map(|(_, m)| m)
    }

    /// The base rates of `model`, if the table knows it.
    pub fn rates(&self, model: &str) -> Option<&Rates> {
        self.model(model).map(|m| &m.base)
    }

    /// What one API message of `model` costs in USD, priced at the rates
    /// of its prompt's size, billed as `how` says.
    pub fn message(&self, model: &str, t: &Tokens, how: Billing) -> Option<f64> {
        Some(self.model(model)?.message(t, how))
    }

    /// What `tokens` of `model`, the sum of several messages, cost in USD
    /// at its base rates.
    pub fn estimate(&self, model: &str, tokens: &Tokens) -> Option<f64> {
        self.rates(model).map(|r| r.cost(tokens, 0))
    }
}

/// The field `k` of `o`: the last of a repeated key, as a JSON object
/// read into a map keeps it.
fn field<'v>(o: Value<'v>, k: &str) -> Option<Value<'v>> {
    (o.as_object()?.iter())
        .filter(|(key, _)| *key == k)
        .last()
        .map(|(_, v)| v)
}

/// The fields of `o` by name, each name once (its last value): the order
/// and the values a JSON object read into a sorted map has, so that of two
/// names of one [`name_key`] the same one is kept whatever their order.
fn by_name(o: Value<'_>) -> Vec<(&str, Value<'_>)> {
    let mut all: Vec<_> = o
        .as_object()
        .map(|o| o.iter().collect())
        .unwrap_or_default();
    // Stable: of a repeated name, the last stays last.
    all.sort_by(|a, b| a.0.cmp(b.0));
    let mut out: Vec<(&str, Value<'_>)> = Vec::with_capacity(all.len());
    for (k, v) in all {
        match out.last_mut() {
            Some(last) if last.0 == k => last.1 = v,
            _ => out.push((k, v)),
        }
    }
    out
}

/// A string of the table, at most 100 characters of it: what shows it
/// makes it inert (the render's sanitizer; JSON escapes it).
fn string_at(top: &Texts<'_>, k: &str) -> Option<String> {
    let text: String = serde_json::from_str(top.get(k)?.get()).ok()?;
    Some(text.chars().take(100).collect())
}

/// An object's fields by name, each value left as its text (a repeated
/// name: its last value, as a JSON object read into a map keeps it).
type Texts<'t> = BTreeMap<String, &'t RawValue>;

/// The fields of the JSON object `text` ([`Texts`]), or why not: `not`
/// when it is JSON but no object, else where it is not JSON.
fn fields_of<'t>(text: &'t str, not: &str) -> Result<Texts<'t>, String> {
    serde_json::from_str::<Texts<'t>>(text).map_err(|e| {
        match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Ok(_) => not.to_string(),
            Err(_) => e.to_string(),
        }
    })
}

/// The entry `name` of a table, its text `e` parsed in `parser`, read by
/// `read`.
fn entry<R>(
    parser: &mut Parser,
    name: &str,
    e: &RawValue,
    read: impl FnOnce(Value<'_>) -> Result<R, String>,
) -> Result<R, String> {
    parser.parse(e.get().as_bytes(), |v| match v {
        Ok(v) => read(v),
        Err(_) => Err(format!("{}: cannot be read", inert(name))),
    })
}

/// `s` without what could act on a terminal (controls, C1, bidi
/// overrides), at most 100 characters: the table's words are shown in
/// tables and errors.
fn inert(s: &str) -> String {
    let acts = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    s.chars().filter(|&c| !acts(c)).take(100).collect()
}

/// `model` as the table is searched by: lower case, without a provider
/// prefix, a `[…]` marker or a `-v1:0` version, `.` and `@` as `-`.
#[must_use]
pub fn name_key(model: &str) -> String {
    let key: Vec<u8> = stripped(model).bytes().map(key_byte).collect();
    // ASCII only changes: the bytes stay UTF-8.
    String::from_utf8(key).unwrap_or_default()
}

/// [`name_key`] written in `buf`, if it fits.
fn key_in<'b>(model: &str, buf: &'b mut [u8]) -> Option<&'b str> {
    let m = stripped(model);
    let out = buf.get_mut(..m.len())?;
    for (o, b) in out.iter_mut().zip(m.bytes()) {
        *o = key_byte(b);
    }
    std::str::from_utf8(out).ok()
}

/// A byte of a [`name_key`]: ASCII in lower case, `.` and `@` as `-`.
fn key_byte(b: u8) -> u8 {
    match b {
        b'.' | b'@' => b'-',
        b => b.to_ascii_lowercase(),
    }
}

/// `model` without what [`name_key`] leaves out.
fn stripped(model: &str) -> &str {
    let mut m = model.trim();
    m = m.rsplit('/').next().unwrap_or(m);
    // Bedrock: `anthropic.claude-…`, `us.anthropic.claude-…`.
    // (memchr's search: `str::find` sets a searcher up for each call.)
    if let Some(i) = memchr::memmem::find(m.as_bytes(), b"anthropic.") {
        m = &m[i + "anthropic.".len()..];
    }
    if m.ends_with(']')
        && let Some(i) = m.rfind('[')
    {
        m = &m[..i];
    }
    if let Some(i) = memchr::memmem::rfind(m.as_bytes(), b"-v")
        && m[i + 2..].bytes().all(|b| b.is_ascii_digit() || b == b':')
        && m.len() > i + 2
    {
        m = &m[..i];
    }
    m.trim()
}

/// A [`name_key`] without a date (`-20250929`, `-2026-04-23`) or
/// `-latest` at its end.
#[must_use]
pub fn base_key(key: &str) -> &str {
    if let Some(k) = key.strip_suffix("-latest") {
        return k;
    }
    let b = key.as_bytes();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let n = b.len();
    if n > 9 && b[n - 9] == b'-' && digits(&b[n - 8..]) {
        return &key[..n - 9];
    }
    // `-YYYY-MM-DD`, the dashes of a dotted date included.
    if n > 11
        && b[n - 11] == b'-'
        && digits(&b[n - 10..n - 6])
        && b[n - 6] == b'-'
        && digits(&b[n - 5..n - 3])
        && b[n - 3] == b'-'
        && digits(&b[n - 2..])
    {
        return &key[..n - 11];
    }
    key
}

/// A rate from `v` (USD per million tokens), checked.
fn rate(model: &str, key: &str, v: Value<'_>, per_token: bool) -> Result<Option<f64>, String> {
    let Some(x) = v.cast_f64() else {
        if v.is_null() {
            return Ok(None);
        }
        return Err(format!(
            "{}: \"{}\" must be a number",
            inert(model),
            inert(key)
        ));
    };
    // USD per million from USD per token, rounded to the 10^-9: the float
    // noise of the product gone.
    let x = if per_token {
        (x * 1e15).round() / 1e9
    } else {
        x
    };
    if !x.is_finite() || !(0.0..=MAX_RATE).contains(&x) {
        return Err(format!(
            "{}: \"{}\" must be a price from 0 to {MAX_RATE} USD per million tokens",
            inert(model),
            inert(key)
        ));
    }
    Ok(Some(x))
}

/// A model's line in the bundled file's shape.
fn own_entry(name: &str, e: Value<'_>) -> Result<Model, String> {
    let Some(o) = e.as_object() else {
        return Err(format!("{}: must be an object", inert(name)));
    };
    for (k, _) in &o {
        if !OWN_KEYS.contains(&k) {
            return Err(format!("{}: unknown field \"{}\"", inert(name), inert(k)));
        }
    }
    let base = own_rates(name, rate_fields(e).0, None)?;
    let mut long_context = Vec::new();
    for tier in field(e, "long_context")
        .and_then(Value::as_array)
        .unwrap_or_default()
    {
        if !tier.is_object() {
            return Err(format!(
                "{}: a long_context tier must be an object",
                inert(name)
            ));
        }
        let (rates, above) = rate_fields(tier);
        let above = above.and_then(Value::as_u64);
        let above =
            above.ok_or_else(|| format!("{}: a long_context tier needs \"above\"", inert(name)))?;
        long_context.push((above, own_rates(name, rates, Some(&base))?));
    }
    long_context.sort_by_key(|(above, _)| *above);
    let fast = field(e, "fast").map_or(Ok(None), |v| multiple(name, "fast", v))?;
    Ok(Model {
        base,
        long_context,
        fast,
    })
}

/// A price multiple from `v` (fast mode's), checked: from 1 to 100.
fn multiple(model: &str, key: &str, v: Value<'_>) -> Result<Option<f64>, String> {
    match v.cast_f64() {
        Some(x) if (1.0..=100.0).contains(&x) => Ok(Some(x)),
        None if v.is_null() => Ok(None),
        _ => Err(format!(
            "{}: \"{}\" must be a number from 1 to 100",
            inert(model),
            inert(key)
        )),
    }
}

/// The keys of a model's line in the bundled file's shape.
const OWN_KEYS: [&str; 9] = [
    "fast",
    "input",
    "output",
    "cache_read",
    "cache_write",
    "cache_write_1h",
    "long_context",
    "provider",
    "source",
];

/// The rates a line (or a tier of it) gives, in the bundled file's shape.
const RATE_KEYS: [&str; 5] = [
    "input",
    "output",
    "cache_read",
    "cache_write",
    "cache_write_1h",
];

/// The fields of `o` named in [`RATE_KEYS`], and its `above` (a tier's),
/// in one pass: the last of a repeated key, as [`field`] finds it.
fn rate_fields(o: Value<'_>) -> ([Option<Value<'_>>; 5], Option<Value<'_>>) {
    let (mut rates, mut above) = ([None; 5], None);
    let Some(fields) = o.as_object() else {
        return (rates, above);
    };
    for (k, v) in &fields {
        if k == "above" {
            above = Some(v);
        } else if let Some(i) = RATE_KEYS.iter().position(|r| *r == k) {
            rates[i] = Some(v);
        }
    }
    (rates, above)
}

/// The rates of a line (or a tier of it, whose absent rates are `base`'s
/// scaled as its input is).
fn own_rates(
    name: &str,
    given: [Option<Value<'_>>; 5],
    base: Option<&Rates>,
) -> Result<Rates, String> {
    // In the order of `RATE_KEYS`.
    let [input, output, cache_read, cache_write, cache_write_1h] = given;
    let get = |k: &str, v: Option<Value<'_>>| v.map_or(Ok(None), |v| rate(name, k, v, false));
    let input = get("input", input)?.or(base.map(|b| b.input));
    let output = get("output", output)?.or(base.map(|b| b.output));
    let (Some(input), Some(output)) = (input, output) else {
        return Err(format!(
            "{}: \"input\" and \"output\" prices are needed",
            inert(name)
        ));
    };
    let scale = base.map_or(1.0, |b| if b.input > 0.0 { input / b.input } else { 1.0 });
    let or = |k: &str, v, fallback: f64| get(k, v).map(|v| v.unwrap_or(fallback));
    Ok(Rates {
        input,
        output,
        cache_read: or(
            "cache_read",
            cache_read,
            base.map_or(0.0, |b| b.cache_read * scale),
        )?,
        cache_write: or(
            "cache_write",
            cache_write,
            base.map_or(0.0, |b| b.cache_write * scale),
        )?,
        cache_write_1h: or(
            "cache_write_1h",
            cache_write_1h,
            base.map_or(0.0, |b| b.cache_write_1h * scale),
        )?,
    })
}

/// `LiteLLM`'s entries in the order they are taken: names that are their
/// own [`name_key`] (the provider's own, `claude-sonnet-4-5`) first, then
/// other names without a provider prefix, then the rest, each by name.
/// The first of a key wins ([`Prices::push`]).
fn litellm_order(top: Texts<'_>) -> impl Iterator<Item = (String, &RawValue)> {
    let rank = |n: &str| {
        if name_key(n) == n {
            0
        } else if n.contains('/') {
            2
        } else {
            1
        }
    };
    // Ranked once each (a key is made for it), in name order within a rank.
    let mut ranks: [Vec<(String, &RawValue)>; 3] = Default::default();
    for (name, e) in top {
        ranks[rank(&name)].push((name, e));
    }
    ranks.into_iter().flatten()
}

/// A model of `LiteLLM`'s table, if it prices tokens (not images or audio
/// alone): USD per token, cache writes at 1.25 and reads at 0.1 times
/// the input price where it gives none (Anthropic's ratios, as ccusage
/// assumes), cache writes kept an hour at twice the input price.
fn litellm_entry(name: &str, e: Value<'_>) -> Result<Option<Model>, String> {
    if !e.is_object() {
        return Ok(None);
    }
    // Its fields by name, looked up by halves: an entry's keys are many
    // (LiteLLM writes some fifty), and each long-context tier asks for six.
    let fields = Fields(by_name(e));
    if let Some(tiers) = fields.get("tiered_pricing").and_then(Value::as_array) {
        return litellm_tiers(name, tiers);
    }
    let get = |k: &str| fields.get(k).map_or(Ok(None), |v| rate(name, k, v, true));
    let (Some(input), Some(output)) = (get("input_cost_per_token")?, get("output_cost_per_token")?)
    else {
        return Ok(None);
    };
    let tier = |suffix: &str, b: Option<&Rates>| -> Result<Option<Rates>, String> {
        let at = |k: &str| get(&format!("{k}{suffix}"));
        let input = at("input_cost_per_token")?.or(b.map(|_| input));
        let Some(input) = input else { return Ok(None) };
        let output = at("output_cost_per_token")?.unwrap_or(output);
        let write_1h = at("cache_creation_input_token_cost_above_1hr")?;
        Ok(Some(Rates {
            input,
            output,
            cache_read: at("cache_read_input_token_cost")?.unwrap_or(input * 0.1),
            cache_write: at("cache_creation_input_token_cost")?.unwrap_or(input * 1.25),
            cache_write_1h: write_1h.unwrap_or(input * 2.0),
        }))
    };
    let base = tier("", None)?.unwrap_or_default();
    let mut long_context = Vec::new();
    for (k, _) in &fields.0 {
        let Some(above) = k
            .strip_prefix("input_cost_per_token_above_")
            .and_then(|r| r.strip_suffix("k_tokens"))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        if let Some(r) = tier(&format!("_above_{above}k_tokens"), Some(&base))? {
            long_context.push((above * 1000, r));
        }
    }
    long_context.sort_by_key(|(above, _)| *above);
    let specific = fields.get("provider_specific_entry");
    let fast = specific
        .and_then(|p| field(p, "fast"))
        .map_or(Ok(None), |v| {
            multiple(name, "provider_specific_entry.fast", v)
        })?;
    Ok(Some(Model {
        base,
        long_context,
        fast,
    }))
}

/// An object's fields sorted by name, each once ([`by_name`]): a field
/// found in `log n` steps, where [`field`] reads them all.
struct Fields<'v>(Vec<(&'v str, Value<'v>)>);

impl<'v> Fields<'v> {
    fn get(&self, k: &str) -> Option<Value<'v>> {
        let i = self.0.binary_search_by(|(n, _)| (*n).cmp(k)).ok()?;
        Some(self.0[i].1)
    }
}

/// A model of `LiteLLM`'s table priced by `tiered_pricing` (Qwen's): each
/// tier `{"range": [from, to], "input_cost_per_token": …}` is the price of
/// a prompt of more than `from` tokens; the one from 0 is the base.
fn litellm_tiers(name: &str, tiers: Arr<'_>) -> Result<Option<Model>, String> {
    let mut all = Vec::new();
    for t in tiers {
        let from = (field(t, "range").and_then(Value::as_array))
            .and_then(Arr::first)
            .and_then(Value::cast_f64)
            .unwrap_or(0.0);
        if !(0.0..1e12).contains(&from) {
            continue;
        }
        let get = |k: &str| field(t, k).map_or(Ok(None), |v| rate(name, k, v, true));
        let (Some(input), Some(output)) =
            (get("input_cost_per_token")?, get("output_cost_per_token")?)
        else {
            continue;
        };
        let r = Rates {
            input,
            output,
            cache_read: get("cache_read_input_token_cost")?.unwrap_or(input * 0.1),
            cache_write: get("cache_creation_input_token_cost")?.unwrap_or(input * 1.25),
            cache_write_1h: input * 2.0,
        };
        // Whole tokens: the range's bounds are written as floats.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        all.push((from as u64, r));
    }
    all.sort_by_key(|(from, _)| *from);
    let mut tiers = all.into_iter();
    let Some((0, base)) = tiers.next() else {
        return Ok(None);
    };
    Ok(Some(Model {
        base,
        long_context: tiers.collect(),
        fast: None,
    }))
}

/// The providers whose models the bundled table keeps: those of the
/// coding agents streamview reads (first-party APIs; other hosts of the
/// same models are matched by name), and the Claude models of the clouds
/// ([`CLOUDS`]), where `LiteLLM` keeps the older ones (`claude-opus-4-1`,
/// `claude-sonnet-4`, `claude-3-5-haiku`) that saved sessions name.
pub const PROVIDERS: [&str; 12] = [
    "anthropic",
    "openai",
    "gemini",
    "vertex_ai-language-models",
    "xai",
    "deepseek",
    "mistral",
    "dashscope",
    "qwen_ai_platform",
    "zai",
    "moonshot",
    "minimax",
];

/// The clouds whose models of one family the bundled table keeps: the
/// Claude models of Bedrock and Vertex, Vertex's Gemini previews
/// (`gemini-3-pro-preview` is listed only there).
pub const CLOUDS: [(&str, &str); 4] = [
    ("bedrock", "claude"),
    ("bedrock_converse", "claude"),
    ("vertex_ai-anthropic_models", "claude"),
    ("vertex_ai", "gemini"),
];

/// The bundled table's text made from `LiteLLM`'s (`litellm`): the token
/// models of [`PROVIDERS`], in the bundled file's shape, dated `as_of`,
/// its `source` said. `examples/prices.rs` writes `prices.json` with it.
///
/// # Errors
/// `litellm` is not `LiteLLM`'s table.
pub fn bundle(litellm: &str, as_of: &str, source: &str) -> Result<String, String> {
    let v: JsonValue = serde_json::from_str(litellm).map_err(|e| e.to_string())?;
    let JsonValue::Object(all) = v else {
        return Err("LiteLLM's table is a JSON object".into());
    };
    let kept: Map<String, JsonValue> = all
        .into_iter()
        .filter(|(name, e)| {
            let at = |k: &str| e.get(k).and_then(JsonValue::as_str);
            let provider = at("litellm_provider").unwrap_or("");
            let wanted = match CLOUDS.iter().find(|(p, _)| *p == provider) {
                Some((_, family)) => name.contains(family),
                None => PROVIDERS.contains(&provider),
            };
            wanted && at("mode").is_none_or(|m| matches!(m, "chat" | "responses" | "completion"))
        })
        .collect();
    let p = Prices::parse(&JsonValue::Object(kept).to_string())?;
    let mut out = String::from("{\n");
    let quoted = |s: &str| JsonValue::from(s).to_string();
    out += &format!("  \"as_of\": {},\n", quoted(as_of));
    out += &format!("  \"source\": {},\n", quoted(source));
    out += "  \"unit\": \"USD per million tokens\",\n  \"models\": {\n";
    let mut models: Vec<_> = p.models.iter().collect();
    models.sort_by(|a, b| a.0.cmp(&b.0));
    for (i, (name, m)) in models.iter().enumerate() {
        let sep = if i + 1 == models.len() { "" } else { "," };
        out += &format!("    {}: {{{}", quoted(name), rates_json(&m.base));
        if !m.long_context.is_empty() {
            let tiers: Vec<String> = (m.long_context.iter())
                .map(|(above, r)| format!("{{\"above\": {above}, {}}}", rates_json(r)))
                .collect();
            out += &format!(", \"long_context\": [{}]", tiers.join(", "));
        }
        if let Some(x) = m.fast {
            out += &format!(", \"fast\": {x}");
        }
        out += &format!("}}{sep}\n");
    }
    out += "  }\n}\n";
    Ok(out)
}

/// `r` as the bundled file writes it.
fn rates_json(r: &Rates) -> String {
    let n = |x: f64| format!("{x}");
    format!(
        "\"input\": {}, \"output\": {}, \"cache_read\": {}, \"cache_write\": {}, \"cache_write_1h\": {}",
        n(r.input),
        n(r.output),
        n(r.cache_read),
        n(r.cache_write),
        n(r.cache_write_1h)
    )
}

#[cfg(test)]
mod tests;
