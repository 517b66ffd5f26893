//! What Claude Code tells a status-line command on its standard input:
//! one JSON object, each field of which may be missing, of the wrong type
//! or hostile. Only what the line shows is kept, checked: a string is
//! sanitized when it is drawn, a number is finite and not negative.

use std::path::PathBuf;

use serde_json::Value;

use crate::time::Timestamp;

/// The fields of Claude Code's status-line input that the line shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Claude {
    /// `session_id`.
    pub session_id: Option<String>,
    /// `transcript_path`: the session's transcript.
    pub transcript: Option<PathBuf>,
    /// `model.display_name`, else `model.id`.
    pub model: Option<String>,
    /// `cost.total_cost_usd`: Claude Code's own figure for this session.
    pub cost_usd: Option<f64>,
    /// The context window used, in percent: `context_window.used_percentage`,
    /// else its `current_usage` over its `context_window_size`.
    pub context_pct: Option<f64>,
    /// `rate_limits.five_hour`.
    pub five_hour: Option<Limit>,
    /// `rate_limits.seven_day`.
    pub seven_day: Option<Limit>,
}

/// A plan's rate limit, as `rate_limits` gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limit {
    /// `used_percentage`, 0 to 100.
    pub used_pct: f64,
    /// `resets_at` (epoch seconds).
    pub resets_at: Option<Timestamp>,
}

impl Claude {
    /// Read the input; anything that is not a JSON object gives no field.
    #[must_use]
    pub fn parse(bytes: &[u8]) -> Claude {
        // serde_json refuses nesting deeper than 128 levels, without
        // recursing further.
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) if v.is_object() => Claude::of(&v),
            _ => Claude::default(),
        }
    }

    fn of(v: &Value) -> Claude {
        let model = text(v.pointer("/model/display_name")).or_else(|| text(v.pointer("/model/id")));
        Claude {
            session_id: text(v.get("session_id")),
            transcript: text(v.get("transcript_path")).map(PathBuf::from),
            model,
            cost_usd: number(v.pointer("/cost/total_cost_usd")),
            context_pct: context(v.get("context_window")),
            five_hour: limit(v.pointer("/rate_limits/five_hour")),
            seven_day: limit(v.pointer("/rate_limits/seven_day")),
        }
    }
}

/// A string that says something (at most 4 KiB of it: a status line has
/// no room for more).
fn text(v: Option<&Value>) -> Option<String> {
    const MAX: usize = 4096;
    let s = v?.as_str()?.trim();
    if s.is_empty() {
        return None;
    }
    let mut end = s.len().min(MAX);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    Some(s[..end].to_string())
}

/// A finite number, not negative, also when written as a string.
fn number(v: Option<&Value>) -> Option<f64> {
    let n = match v? {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (n.is_finite() && n >= 0.0).then_some(n)
}

/// A percentage, held to 0–100.
fn percent(v: Option<&Value>) -> Option<f64> {
    number(v).map(|p| p.min(100.0))
}

fn limit(v: Option<&Value>) -> Option<Limit> {
    let v = v?;
    Some(Limit {
        used_pct: percent(v.get("used_percentage"))?,
        resets_at: number(v.get("resets_at"))
            .map(|secs| (secs * 1000.0).trunc())
            .and_then(Timestamp::from_epoch_number),
    })
}

/// The context used: Claude Code's percentage, else the tokens of the
/// last request (input, cache written and read) over the window's size.
fn context(v: Option<&Value>) -> Option<f64> {
    let v = v?;
    if let Some(p) = percent(v.get("used_percentage")) {
        return Some(p);
    }
    let size = number(v.get("context_window_size")).filter(|&s| s > 0.0)?;
    let usage = v.get("current_usage")?;
    let used: f64 = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ]
    .iter()
    .filter_map(|k| number(usage.get(k)))
    .sum();
    Some((used / size * 100.0).min(100.0))
}
