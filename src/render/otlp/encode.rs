//! OTLP/JSON as the protocol defines it: field names in lowerCamelCase,
//! ids as hex, 64-bit integers as JSON strings, enums as their numbers;
//! every string from the input escaped as the JSONL sink escapes it
//! (valid UTF-8, and no character a terminal acts on left raw) and cut
//! to a bound.

use std::io::{self, Write};

use crate::json::escape::push_json_str;

use super::ids::{SpanId, TraceId};

/// An attribute's value (`AnyValue`).
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// `stringValue`, cut to [`MAX_TEXT`] bytes.
    Str(&'a str),
    /// `stringValue` up to [`MAX_CONTENT`] bytes (`--otlp-content`).
    Content(&'a str),
    /// `intValue`.
    Int(u64),
    /// `doubleValue`.
    Double(f64),
    /// `boolValue`.
    Bool(bool),
}

/// An attribute, left out when it has no value.
pub type Attr<'a> = (&'static str, Option<Value<'a>>);

/// The longest attribute text or status message kept, in bytes: a key
/// argument (a long command), an error's text.
pub const MAX_TEXT: usize = 1024;

/// The longest prompt, tool input or output kept with `--otlp-content`.
pub const MAX_CONTENT: usize = 64 << 10;

/// `s` cut to at most `max` bytes on a character's boundary (`…` added
/// in the room left).
#[must_use]
pub fn cut(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return s.into();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end]).into()
}

/// `"key":` after the comma when `more`.
fn key(b: &mut Vec<u8>, more: bool, k: &str) {
    if more {
        b.push(b',');
    }
    b.push(b'"');
    b.extend_from_slice(k.as_bytes());
    b.extend_from_slice(b"\":");
}

/// A 64-bit integer as OTLP/JSON writes one: a string.
pub fn int(b: &mut Vec<u8>, v: u64) {
    b.push(b'"');
    b.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    b.push(b'"');
}

/// A finite double (a non-finite one is written as 0).
pub fn double(b: &mut Vec<u8>, v: f64) {
    let v = if v.is_finite() { v } else { 0.0 };
    let _ = serde_json::to_writer(&mut *b, &v);
}

/// `"attributes":[…]` (after a comma when `more`): those with a value.
pub fn attributes(b: &mut Vec<u8>, more: bool, attrs: &[Attr<'_>]) {
    key(b, more, "attributes");
    b.push(b'[');
    let mut first = true;
    for (k, v) in attrs {
        let Some(v) = v else { continue };
        if !first {
            b.push(b',');
        }
        first = false;
        b.extend_from_slice(b"{\"key\":\"");
        b.extend_from_slice(k.as_bytes());
        b.extend_from_slice(b"\",\"value\":{");
        match *v {
            Value::Str(s) => {
                key(b, false, "stringValue");
                push_json_str(b, &cut(s, MAX_TEXT));
            }
            Value::Content(s) => {
                key(b, false, "stringValue");
                push_json_str(b, &cut(s, MAX_CONTENT));
            }
            Value::Int(i) => {
                key(b, false, "intValue");
                int(b, i);
            }
            Value::Double(d) => {
                key(b, false, "doubleValue");
                double(b, d);
            }
            Value::Bool(x) => {
                key(b, false, "boolValue");
                b.extend_from_slice(if x { b"true" } else { b"false" });
            }
        }
        b.extend_from_slice(b"}}");
    }
    b.push(b']');
}

/// What a span is to its trace (`Span.SpanKind`).
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// An agent's work, a tool run in the agent's process.
    Internal = 1,
    /// A request to a model's API.
    Client = 3,
}

/// One span, as [`span`] writes it.
#[derive(Debug)]
pub struct Span<'a> {
    pub trace: TraceId,
    pub id: SpanId,
    pub parent: Option<SpanId>,
    /// `execute_tool Bash`: escaped and cut when written.
    pub name: &'a str,
    pub kind: Kind,
    /// Unix nanoseconds.
    pub start: u64,
    pub end: u64,
    /// Status ERROR with this message (cut to [`MAX_TEXT`]); else unset.
    pub error: Option<&'a str>,
    pub attrs: &'a [Attr<'a>],
}

/// A span as an element of `spans` (no comma before it).
pub fn span(b: &mut Vec<u8>, s: &Span<'_>) {
    b.push(b'{');
    key(b, false, "traceId");
    s.trace.write(b);
    key(b, true, "spanId");
    s.id.write(b);
    if let Some(p) = s.parent {
        key(b, true, "parentSpanId");
        p.write(b);
    }
    key(b, true, "name");
    push_json_str(b, &cut(s.name, MAX_TEXT));
    key(b, true, "kind");
    b.push(b'0' + s.kind as u8);
    key(b, true, "startTimeUnixNano");
    int(b, s.start.min(s.end));
    key(b, true, "endTimeUnixNano");
    int(b, s.end);
    attributes(b, true, s.attrs);
    if let Some(msg) = s.error {
        key(b, true, "status");
        b.extend_from_slice(b"{\"code\":2,\"message\":");
        push_json_str(b, &cut(msg, MAX_TEXT));
        b.push(b'}');
    }
    b.push(b'}');
}

/// Who wrote what a request carries (`Resource`), and where.
#[derive(Debug, Default)]
pub struct Resource<'a> {
    /// The producer's name (`claude`, `codex`…).
    pub agent: &'a str,
    /// The agent's version, when its log says.
    pub agent_version: Option<&'a str>,
    /// `host.name`, unless `--otlp-anonymous`.
    pub host: Option<&'a str>,
    /// `--label`.
    pub label: Option<&'a str>,
}

/// What an export request carries.
#[derive(Clone, Copy, Debug)]
pub enum Signal {
    /// `ExportTraceServiceRequest`: `body` is spans.
    Traces,
    /// `ExportMetricsServiceRequest`: `body` is metrics.
    Metrics,
}

/// One export request on one line into `w`: `body`, the comma-separated
/// spans or metrics, under `res` and streamview's scope. The body goes to
/// `w` as it is, not copied into a line first (most of a request's bytes:
/// a buffered writer passes it straight on).
///
/// # Errors
/// As `w`'s.
pub fn request<W: Write + ?Sized>(
    w: &mut W,
    signal: Signal,
    res: &Resource<'_>,
    body: &[u8],
) -> io::Result<()> {
    let (resources, scopes, items) = match signal {
        Signal::Traces => ("resourceSpans", "scopeSpans", "spans"),
        Signal::Metrics => ("resourceMetrics", "scopeMetrics", "metrics"),
    };
    let mut out = Vec::with_capacity(512);
    out.push(b'{');
    key(&mut out, false, resources);
    out.extend_from_slice(b"[{\"resource\":{");
    let version = env!("CARGO_PKG_VERSION");
    attributes(
        &mut out,
        false,
        &[
            ("service.name", Some(Value::Str("streamview"))),
            ("service.version", Some(Value::Str(version))),
            ("streamview.agent", Some(Value::Str(res.agent))),
            (
                "streamview.agent.version",
                res.agent_version.map(Value::Str),
            ),
            ("host.name", res.host.map(Value::Str)),
            ("streamview.label", res.label.map(Value::Str)),
        ],
    );
    out.extend_from_slice(b"}");
    key(&mut out, true, scopes);
    out.extend_from_slice(b"[{\"scope\":{\"name\":\"streamview\",\"version\":\"");
    out.extend_from_slice(version.as_bytes());
    out.extend_from_slice(b"\"}");
    key(&mut out, true, items);
    out.push(b'[');
    w.write_all(&out)?;
    w.write_all(body)?;
    w.write_all(b"]}]}]}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_characters_whole() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcdef", 5), "ab…");
        // `é` is two bytes: never split.
        let s = cut("ééééé", 6);
        assert!(s.len() <= 6 && s.ends_with('…'), "{s}");
        assert_eq!(cut("abc", 0), "…");
    }

    #[test]
    fn a_span_is_json() {
        let t = TraceId::of(&[b"s"]);
        let mut b = Vec::new();
        span(
            &mut b,
            &Span {
                trace: t,
                id: t.span("root", &[]),
                parent: None,
                name: "invoke_agent \u{1b}[31m\u{202e}",
                kind: Kind::Internal,
                start: 2,
                end: 1,
                error: Some("bad\nthing"),
                attrs: &[
                    ("a", Some(Value::Int(u64::MAX))),
                    ("b", None),
                    ("c", Some(Value::Double(f64::NAN))),
                    ("d", Some(Value::Bool(true))),
                ],
            },
        );
        let v: serde_json::Value = serde_json::from_slice(&b).unwrap_or_default();
        assert_eq!(v["name"], "invoke_agent \u{1b}[31m\u{202e}");
        assert!(!String::from_utf8_lossy(&b).contains('\u{1b}'));
        assert_eq!(v["startTimeUnixNano"], "1");
        assert_eq!(
            v["attributes"][0]["value"]["intValue"],
            u64::MAX.to_string()
        );
        assert_eq!(v["attributes"][1]["value"]["doubleValue"], 0.0);
        assert_eq!(v["status"]["code"], 2);
    }
}
