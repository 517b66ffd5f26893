//! `--format jsonl`: one normalized event per line, schema version
//! [`SCHEMA_VERSION`], documented in `docs/schema.md` and
//! `docs/streamview-event.schema.json`.
//!
//! Every field of a kind is always written (`null` when the producer did not
//! say), so `jq` and `DuckDB` see one stable shape. Tool inputs and unknown
//! events are embedded as JSON, not as strings. Output is built in one reused
//! buffer.
//!
//! Terminal safety without changing a value: besides what JSON requires,
//! strings escape DEL, C1 controls and bidi overrides as `\uXXXX`, and the
//! embedded JSON (`raw`, `input`) gets the same treatment, so a JSONL stream
//! printed on a terminal cannot drive it, and a JSON parser reads exactly
//! the strings of the input.

use std::borrow::Cow;
use std::io::{self, Write};

use crate::event::{
    Content, Edit, Event, EventKind, FileChange, JsonText, SessionResult, SessionStart, Tokens,
    ToolCall, ToolKind, ToolResult,
};
use crate::json::escape::{
    SUSPECT, find_special, has_unsafe, make_json_safe, push_json_str, push_safe_json,
};
use crate::render::Sink;
use crate::render::diff::Stat;
use crate::session::Session;
use crate::session::price::Billing;
use crate::time::Timestamp;

/// Version of the JSONL schema (the `v` field of every line).
pub const SCHEMA_VERSION: u32 = 1;

/// The JSONL sink.
pub struct Jsonl<W: Write> {
    out: W,
    buf: Vec<u8>,
    /// `--label`: every event's `label`.
    label: Option<Box<str>>,
}

impl<W: Write> Jsonl<W> {
    /// A sink writing to `out` (buffer it: the sink writes one line at a time).
    pub fn new(out: W) -> Self {
        Jsonl {
            out,
            buf: Vec::with_capacity(4096),
            label: None,
        }
    }

    /// Every event says `label` (`--label`; `None`: `null`).
    #[must_use]
    pub fn with_label(mut self, label: Option<&str>) -> Self {
        self.label = label.map(Into::into);
        self
    }

    /// Give back the writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink for Jsonl<W> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        if s.note().duplicate {
            // A denial already written (the result repeats earlier ones).
            return Ok(());
        }
        self.buf.clear();
        if let Some((r, body)) = long_content(ev) {
            // The content (the last field) straight from the line to the
            // writer: a tool's output of any size costs no second copy.
            let rest = Event {
                kind: EventKind::ToolResult(ToolResult {
                    content: Content::default(),
                    ..r.clone()
                }),
                ..ev.clone()
            };
            write_labelled(&mut self.buf, &rest, s, self.label.as_deref());
            if let Some(head) = self.buf.strip_suffix(br#""content":""}"#) {
                self.out.write_all(head)?;
                self.out.write_all(br#""content":""#)?;
                self.out.write_all(body.as_bytes())?;
                return self.out.write_all(b"\"}\n");
            }
            self.buf.clear();
        }
        write_labelled(&mut self.buf, ev, s, self.label.as_deref());
        self.buf.push(b'\n');
        self.out.write_all(&self.buf)
    }

    fn finish(&mut self, _s: &Session) -> io::Result<()> {
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The decimal digits of `v` (what `write!` gives, without the formatter).
fn push_u64(b: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        #[allow(clippy::cast_possible_truncation)] // a digit
        {
            digits[i] = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 {
            break;
        }
    }
    b.extend_from_slice(&digits[i..]);
}

/// Tool output this long is written from the line to the writer.
const STREAMED: usize = 64 << 10;

/// A tool result whose content is written as it came (see [`Content`]),
/// and that content, if it is long.
fn long_content<'e, 'a>(ev: &'e Event<'a>) -> Option<(&'e ToolResult<'a>, &'a str)> {
    let EventKind::ToolResult(r) = &ev.kind else {
        return None;
    };
    match r.content.json_body() {
        Some((body, true)) if body.len() >= STREAMED && !has_unsafe(body.as_bytes()) => {
            Some((r, body))
        }
        _ => None,
    }
}

/// Serialize one event as a JSON object (without the newline).
pub fn write_event(b: &mut Vec<u8>, ev: &Event<'_>, s: &Session) {
    write_labelled(b, ev, s, None);
}

/// [`write_event`] with the run's `--label` (`None`: `null`).
pub fn write_labelled(b: &mut Vec<u8>, ev: &Event<'_>, s: &Session, label: Option<&str>) {
    let mut o = Obj::new(b);
    o.num("v", u64::from(SCHEMA_VERSION));
    o.name("kind", ev.kind.name());
    o.name("producer", ev.producer.name());
    o.num("line", ev.line);
    o.opt_str("session", ev.session.as_deref());
    o.opt_str("parent", ev.parent.as_deref());
    o.opt_str("source", ev.source.as_deref().or(s.source()));
    o.time("timestamp", ev.time);
    o.opt_str("label", label);
    kind_fields(&mut o, ev, s);
    o.end();
}

/// The fields of `ev`'s kind, after the common ones.
fn kind_fields(o: &mut Obj<'_>, ev: &Event<'_>, s: &Session) {
    match &ev.kind {
        EventKind::SessionStart(st) => session_start(o, st),
        EventKind::Text(t) => {
            o.name("role", t.role.name());
            o.str("text", &t.text);
            o.opt_str("message_id", t.message_id.as_deref());
            o.opt_str("command", t.command.as_deref());
            o.bool("continues", t.continues);
        }
        EventKind::Thinking(t) => {
            o.str("text", &t.text);
            o.bool("redacted", t.redacted);
            o.opt_str("message_id", t.message_id.as_deref());
        }
        EventKind::ToolCall(c) => tool_call(o, c),
        EventKind::ToolResult(r) => {
            o.str("id", &r.id);
            o.opt_str("name", s.note().tool.as_deref());
            o.opt_name("tool_kind", s.note().tool_kind.map(ToolKind::name));
            o.bool("is_error", r.is_error);
            o.bool("denied", r.denied);
            o.objects("answers", &r.answers, |inner, a| {
                inner.str("question", &a.question);
                inner.str("answer", &a.answer);
            });
            // `[]` but where the result reports the changes made (Claude Code).
            changes(o, &r.changes, true);
            // Last: a long content is written straight from the line.
            o.content("content", &r.content);
        }
        EventKind::PermissionDenied(d) => {
            o.opt_str("id", d.id.as_deref());
            o.opt_str("tool", s.note().tool.as_deref().or(d.tool.as_deref()));
            o.opt_name("tool_kind", s.note().tool_kind.map(ToolKind::name));
            o.opt_str(
                "key_arg",
                s.note().key_arg.as_deref().or(d.key_arg.as_deref()),
            );
            o.opt_str("message", d.message.as_deref());
        }
        EventKind::Usage(u) => {
            o.opt_str("message_id", u.message_id.as_deref());
            o.opt_str("request_id", u.request_id.as_deref());
            o.opt_str("model", u.model.as_deref());
            o.tokens("tokens", &u.tokens);
            match &u.replaces {
                Some(t) => o.tokens("replaces", t),
                None => o.null("replaces"),
            }
            o.opt_num("cache_write_1h", u.cache_write_1h);
            // Priced only when the output count is final.
            let estimate = (u.model.as_deref())
                .filter(|_| !u.preliminary_output)
                .and_then(|m| s.prices().message(m, &u.tokens, Billing::of(u)));
            o.opt_f64("cost_usd_estimated", estimate);
        }
        EventKind::Notice(n) => {
            o.str("subtype", &n.subtype);
            o.name("level", n.level.name());
            o.str("text", &n.text);
            match &n.raw {
                Some(r) => o.raw("raw", r),
                None => o.null("raw"),
            }
        }
        EventKind::Result(r) => {
            result(o, r);
            // No cost reported: the session's so far, priced.
            let estimate = (r.cost_usd.is_none())
                .then(|| s.current().map(|c| c.cost(s.prices())))
                .flatten()
                .and_then(|c| c.usd.filter(|_| c.estimated));
            o.opt_f64("cost_usd_estimated", estimate);
        }
        EventKind::Delta(d) => {
            o.name("delta_kind", d.kind.name());
            o.opt_num("index", d.index);
            o.str("text", &d.text);
        }
        EventKind::PlainText(t) => o.str("text", t),
        EventKind::Unknown(u) => {
            o.str("event_type", &u.type_name);
            o.raw("raw", &u.raw);
        }
    }
}

/// The fields of a `session_start` line.
fn session_start(o: &mut Obj<'_>, st: &SessionStart<'_>) {
    o.opt_str("model", st.model.as_deref());
    o.opt_str("cwd", st.cwd.as_deref());
    o.opt_str("version", st.version.as_deref());
    o.opt_str("permission_mode", st.permission_mode.as_deref());
    o.opt_str("agent_mode", st.agent_mode.as_deref());
    o.opt_str("api_key_source", st.api_key_source.as_deref());
    o.str_list("tools", &st.tools);
    o.objects("mcp_servers", &st.mcp_servers, |inner, m| {
        inner.str("name", &m.name);
        inner.str("status", &m.status);
    });
    o.str_list("agents", &st.agents);
    o.str_list("skills", &st.skills);
    o.str_list("slash_commands", &st.slash_commands);
}

/// The fields of a `tool_call` line.
fn tool_call(o: &mut Obj<'_>, c: &ToolCall<'_>) {
    o.str("id", &c.id);
    o.str("name", &c.name);
    o.name("tool_kind", c.kind.name());
    o.opt_str("key_arg", c.key_arg.as_deref());
    o.json("input", &c.input);
    o.objects("todos", &c.todos, |inner, t| {
        inner.str("content", &t.content);
        inner.str("status", &t.status);
    });
    o.objects("questions", &c.questions, |inner, q| {
        inner.str("question", &q.question);
        inner.str_list("options", &q.options);
    });
    // What was done is the result's diff: the call's counts suffice.
    changes(o, &c.changes, !c.changes_in_result);
    o.bool("changes_in_result", c.changes_in_result);
    o.opt_str("message_id", c.message_id.as_deref());
}

/// The changes of an edit tool's call (`[]` for other calls), or those its
/// result reports made: the lines
/// added and removed in all (`null` when the stream says for no change: no
/// counts for paths alone), and each file's
/// change: its path when it has one of its own, its counts and its diff
/// as unified text (or the action alone, `add`, `update`, `delete`, when
/// that is all the producer said).
fn changes(o: &mut Obj<'_>, changes: &[FileChange<'_>], with_diff: bool) {
    super::diff::with_differ(|differ, text| {
        let mut total: Option<Stat> = None;
        o.objects("changes", changes, |inner, ch| {
            inner.opt_str("path", ch.path.as_deref());
            if let Edit::Action(a) = &ch.edit {
                inner.str("action", a);
                return;
            }
            // The counts alone (Myers' operations, no hunks, no text), or
            // the diff and its counts.
            text.clear();
            let stat = if with_diff {
                let diff = differ.diff(&ch.edit, DIFF_CONTEXT);
                diff.write_unified(text);
                match ch.edit {
                    Edit::Counted { added, removed } => Stat { added, removed },
                    _ => diff.stat(),
                }
            } else {
                differ.stat(&ch.edit).unwrap_or_default()
            };
            let t = total.get_or_insert_default();
            t.added += stat.added;
            t.removed += stat.removed;
            inner.num("lines_added", stat.added);
            inner.num("lines_removed", stat.removed);
            if !text.is_empty() {
                inner.str("diff", text);
            }
        });
        o.opt_num("lines_added", total.map(|t| t.added));
        o.opt_num("lines_removed", total.map(|t| t.removed));
    });
}

/// Unchanged lines kept around each change of a diff (as `diff -u`).
const DIFF_CONTEXT: usize = 3;

/// The fields of a `result` line.
fn result(o: &mut Obj<'_>, r: &SessionResult<'_>) {
    o.bool("is_error", r.is_error);
    o.opt_str("subtype", r.subtype.as_deref());
    o.opt_str("text", r.text.as_deref());
    o.str_list("errors", &r.errors);
    o.opt_num("num_turns", r.num_turns);
    o.opt_num("duration_ms", r.duration_ms);
    o.opt_num("duration_api_ms", r.duration_api_ms);
    o.opt_f64("cost_usd", r.cost_usd);
    o.tokens("tokens", &r.tokens);
    o.objects("model_usage", &r.model_usage, |inner, m| {
        inner.str("model", &m.model);
        inner.tokens("tokens", &m.tokens);
        inner.opt_f64("cost_usd", m.cost_usd);
    });
    o.opt_str("stop_reason", r.stop_reason.as_deref());
    o.opt_str("terminal_reason", r.terminal_reason.as_deref());
    o.opt_num("api_error_status", r.api_error_status);
    o.opt_str("after_task", r.after_task.as_deref());
}

/// A tiny JSON object writer over a byte buffer.
struct Obj<'b> {
    b: &'b mut Vec<u8>,
    first: bool,
}

impl<'b> Obj<'b> {
    /// `"key":[{…},{…}]`, one object per item, written by `field`.
    fn objects<T>(&mut self, key: &str, items: &[T], mut field: impl FnMut(&mut Obj<'_>, &T)) {
        self.key(key);
        self.b.push(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.b.push(b',');
            }
            let mut inner = Obj::new(self.b);
            field(&mut inner, item);
            inner.end();
        }
        self.b.push(b']');
    }

    fn new(b: &'b mut Vec<u8>) -> Self {
        b.push(b'{');
        Obj { b, first: true }
    }

    fn end(self) {
        self.b.push(b'}');
    }

    fn key(&mut self, k: &str) {
        if !self.first {
            self.b.push(b',');
        }
        self.first = false;
        self.b.push(b'"');
        self.b.extend_from_slice(k.as_bytes());
        self.b.extend_from_slice(b"\":");
    }

    fn str(&mut self, k: &str, v: &str) {
        self.key(k);
        push_json_str(self.b, v);
    }

    /// One of streamview's own names (`tool_call`, `claude`, `text`…):
    /// plain ASCII, written without the escape scan.
    fn name(&mut self, k: &str, v: &'static str) {
        debug_assert!(
            v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        );
        self.key(k);
        self.b.push(b'"');
        self.b.extend_from_slice(v.as_bytes());
        self.b.push(b'"');
    }

    /// Text that may still be in its JSON form: then copied as it came
    /// when that is what escaping the text would give (characters a
    /// terminal must not get raw still escaped).
    fn content(&mut self, k: &str, c: &Content<'_>) {
        match c.json_body() {
            Some((body, true)) => {
                self.key(k);
                self.b.push(b'"');
                if has_unsafe(body.as_bytes()) {
                    // A body holds no raw control character (the scan
                    // checked), so this escapes only the characters
                    // `has_unsafe` found.
                    push_safe_json(self.b, body);
                } else {
                    self.b.extend_from_slice(body.as_bytes());
                }
                self.b.push(b'"');
            }
            _ => self.str(k, &c.text()),
        }
    }

    fn opt_name(&mut self, k: &str, v: Option<&'static str>) {
        match v {
            Some(v) => self.name(k, v),
            None => self.null(k),
        }
    }

    fn opt_str(&mut self, k: &str, v: Option<&str>) {
        match v {
            Some(v) => self.str(k, v),
            None => self.null(k),
        }
    }

    /// A time as RFC 3339 text in UTC (`null` without one).
    fn time(&mut self, k: &str, t: Option<Timestamp>) {
        let Some(t) = t else {
            return self.null(k);
        };
        self.key(k);
        self.b.push(b'"');
        t.write_rfc3339(self.b);
        self.b.push(b'"');
    }

    fn null(&mut self, k: &str) {
        self.key(k);
        self.b.extend_from_slice(b"null");
    }

    fn bool(&mut self, k: &str, v: bool) {
        self.key(k);
        self.b.extend_from_slice(if v { b"true" } else { b"false" });
    }

    fn num(&mut self, k: &str, v: u64) {
        self.key(k);
        push_u64(self.b, v);
    }

    fn opt_num(&mut self, k: &str, v: Option<u64>) {
        match v {
            Some(v) => self.num(k, v),
            None => self.null(k),
        }
    }

    fn opt_f64(&mut self, k: &str, v: Option<f64>) {
        self.key(k);
        match v.filter(|f| f.is_finite()) {
            // serde_json writes the shortest representation that round-trips.
            Some(f) => {
                let _ = serde_json::to_writer(&mut *self.b, &f);
            }
            None => self.b.extend_from_slice(b"null"),
        }
    }

    /// A JSON value, written in place (characters a terminal must not get
    /// raw escaped, as [`push_safe_json`] does).
    fn json(&mut self, k: &str, v: &JsonText<'_>) {
        if let Some(t) = v.as_text() {
            return self.raw(k, t);
        }
        self.key(k);
        let start = self.b.len();
        v.write(self.b);
        if find_special(&self.b[start..], 0, &SUSPECT).is_some() {
            make_json_safe(self.b, start);
        }
    }

    /// Embed text that is already JSON: the decoders only put valid JSON
    /// here (a re-encoded value, or a line that parsed), so it is copied,
    /// made terminal-safe by [`push_safe_json`].
    fn raw(&mut self, k: &str, json: &str) {
        self.key(k);
        let t = json.trim();
        if t.is_empty() {
            self.b.extend_from_slice(b"null");
        } else {
            push_safe_json(self.b, t);
        }
    }

    fn str_list(&mut self, k: &str, items: &[Cow<'_, str>]) {
        self.key(k);
        self.b.push(b'[');
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                self.b.push(b',');
            }
            push_json_str(self.b, it);
        }
        self.b.push(b']');
    }

    fn tokens(&mut self, k: &str, t: &Tokens) {
        self.key(k);
        let mut inner = Obj::new(self.b);
        inner.opt_num("input", t.input);
        inner.opt_num("output", t.output);
        inner.opt_num("cache_read", t.cache_read);
        inner.opt_num("cache_creation", t.cache_creation);
        inner.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_names_need_no_escape() {
        use crate::event::{DeltaKind, Level, Producer, Role};
        let names = Producer::ALL
            .iter()
            .map(|p| p.name())
            .chain(
                [Level::Debug, Level::Info, Level::Warning, Level::Error]
                    .map(crate::event::Level::name),
            )
            .chain([Role::User, Role::Assistant].map(crate::event::Role::name))
            .chain(
                [
                    DeltaKind::Text,
                    DeltaKind::Thinking,
                    DeltaKind::ToolInput,
                    DeltaKind::ToolStart,
                ]
                .map(crate::event::DeltaKind::name),
            );
        for n in names {
            let mut b = Vec::new();
            push_json_str(&mut b, n);
            assert_eq!(b, format!("\"{n}\"").into_bytes(), "{n}");
        }
    }

    #[test]
    fn numbers_are_written_as_write_would() {
        for v in [
            0,
            1,
            9,
            10,
            99,
            100,
            12_345,
            u64::from(u32::MAX),
            u64::MAX - 1,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            push_u64(&mut b, v);
            assert_eq!(String::from_utf8(b).unwrap(), v.to_string());
        }
    }
}
