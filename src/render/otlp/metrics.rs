//! A session's metrics, written when it ends: `gen_ai.client.token.usage`
//! (the conventions' histogram: per model and token type, the number of
//! model responses and the tokens they took) and `streamview.cost.usage`
//! (a monotonic sum in USD, per model, reported or estimated as the
//! summary says), both with delta temporality over the session's time.
//! A dashboard of spend needs no trace storage.

use crate::session::{ModelStats, Prices, SessionSummary};

use super::encode::{self, Attr, Value};
use super::provider;

/// What the metrics of a session are made from.
pub struct Session<'a> {
    pub summary: &'a SessionSummary,
    pub prices: &'a Prices,
    /// `gen_ai.agent.name`.
    pub agent: &'a str,
    /// Its first and last times, Unix nanoseconds.
    pub start: u64,
    pub end: u64,
    /// Model responses written as spans, per model.
    pub responses: &'a [(String, u64)],
}

/// Delta temporality (`AggregationTemporality`).
const DELTA: u8 = 1;

/// The session's metrics, comma-separated, into `b` (nothing when it has
/// neither tokens nor cost).
pub fn write(b: &mut Vec<u8>, s: &Session<'_>) {
    let models = s.summary.models();
    let mut points = Vec::new();
    for m in models {
        token_points(&mut points, s, m);
    }
    if !points.is_empty() {
        b.extend_from_slice(
            b"{\"name\":\"gen_ai.client.token.usage\",\"unit\":\"{token}\",\
              \"description\":\"Tokens used by the session's model responses\",\
              \"histogram\":{\"aggregationTemporality\":",
        );
        b.push(b'0' + DELTA);
        b.extend_from_slice(b",\"dataPoints\":[");
        b.extend_from_slice(&points);
        b.extend_from_slice(b"]}}");
    }
    points.clear();
    cost_points(&mut points, s);
    if !points.is_empty() {
        if !b.is_empty() {
            b.push(b',');
        }
        b.extend_from_slice(
            b"{\"name\":\"streamview.cost.usage\",\"unit\":\"USD\",\
              \"description\":\"What the session's model responses cost, reported or estimated\",\
              \"sum\":{\"aggregationTemporality\":",
        );
        b.push(b'0' + DELTA);
        b.extend_from_slice(b",\"isMonotonic\":true,\"dataPoints\":[");
        b.extend_from_slice(&points);
        b.extend_from_slice(b"]}}");
    }
}

/// The attributes every point of model `model` has.
fn common<'a>(s: &'a Session<'a>, model: Option<&'a str>) -> [Attr<'a>; 5] {
    [
        ("gen_ai.operation.name", Some(Value::Str("chat"))),
        (
            "gen_ai.provider.name",
            model.and_then(provider::of).map(Value::Str),
        ),
        ("gen_ai.request.model", model.map(Value::Str)),
        ("gen_ai.agent.name", Some(Value::Str(s.agent))),
        (
            "gen_ai.conversation.id",
            s.summary.id.as_deref().map(Value::Str),
        ),
    ]
}

/// A point's fields after its attributes: its times.
fn times(b: &mut Vec<u8>, s: &Session<'_>) {
    b.extend_from_slice(b",\"startTimeUnixNano\":");
    encode::int(b, s.start.min(s.end));
    b.extend_from_slice(b",\"timeUnixNano\":");
    encode::int(b, s.end);
}

/// One histogram point per token type `m` counted.
fn token_points(b: &mut Vec<u8>, s: &Session<'_>, m: &ModelStats) {
    let t = &m.tokens;
    let any_input = t.input.is_some() || t.cache_read.is_some() || t.cache_creation.is_some();
    let kinds = [
        ("input", any_input.then(|| t.total_input())),
        ("output", t.output),
        ("cache_read", t.cache_read),
        ("cache_creation", t.cache_creation),
    ];
    let model = Some(m.model.as_str()).filter(|m| !m.is_empty());
    let responses = (s.responses.iter())
        .find(|(r, _)| r == &m.model)
        .map_or(1, |(_, n)| (*n).max(1));
    for (kind, n) in kinds {
        let Some(n) = n else { continue };
        if !b.is_empty() {
            b.push(b',');
        }
        b.push(b'{');
        let [a, p, r, g, c] = common(s, model);
        encode::attributes(
            b,
            false,
            &[a, p, r, g, c, ("gen_ai.token.type", Some(Value::Str(kind)))],
        );
        times(b, s);
        b.extend_from_slice(b",\"count\":");
        encode::int(b, responses);
        b.extend_from_slice(b",\"sum\":");
        #[allow(clippy::cast_precision_loss)] // a histogram's sum is a double
        encode::double(b, n as f64);
        // One bucket, no bounds: the count and the sum are what is known.
        b.extend_from_slice(b",\"bucketCounts\":[");
        encode::int(b, responses);
        b.extend_from_slice(b"],\"explicitBounds\":[]}");
    }
}

/// One sum point per model with a cost: its share of the session's cost
/// (reported or estimated), as the summary's model rows give it, so the
/// points add up to the session's cost; one for the session when no
/// model holds it.
fn cost_points(b: &mut Vec<u8>, s: &Session<'_>) {
    let mut any = false;
    for m in &s.summary.priced_models(s.prices) {
        let Some((usd, estimated)) = m.shown_cost(s.prices) else {
            continue;
        };
        let model = Some(m.model.as_str()).filter(|m| !m.is_empty());
        cost_point(b, s, model, usd, estimated);
        any = true;
    }
    let cost = s.summary.cost(s.prices);
    if !any && let Some(usd) = cost.usd {
        cost_point(b, s, None, usd, cost.estimated);
    }
}

fn cost_point(b: &mut Vec<u8>, s: &Session<'_>, model: Option<&str>, usd: f64, estimated: bool) {
    if !b.is_empty() {
        b.push(b',');
    }
    b.push(b'{');
    let [a, p, r, g, c] = common(s, model);
    encode::attributes(
        b,
        false,
        &[
            a,
            p,
            r,
            g,
            c,
            ("streamview.cost.estimated", Some(Value::Bool(estimated))),
        ],
    );
    times(b, s);
    b.extend_from_slice(b",\"asDouble\":");
    encode::double(b, usd);
    b.push(b'}');
}
