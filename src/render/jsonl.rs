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

/// Key `name` as it is written after another field, `,"name":`, in an
/// array whose length is a constant (see `Obj::key`).
macro_rules! k {
    ($name:literal) => {{
        const TEXT: &str = concat!(",\"", $name, "\":");
        const BYTES: &[u8; TEXT.len()] = match TEXT.as_bytes().first_chunk() {
            Some(bytes) => bytes,
            None => unreachable!(),
        };
        BYTES
    }};
}

/// The JSONL sink.
pub struct Jsonl<W: Write> {
    out: W,
    buf: Vec<u8>,
    /// `--label`: every event's `label`.
    label: Option<Box<str>>,
    origin: Origin,
}

/// The `session`, `parent` and `source` fields as last written, and the
/// values they were written from: the events of a session share them, so
/// they are escaped once a session, not once an event. In reused buffers:
/// no allocation when they change (a sub-agent's events and its parent's
/// take turns).
#[derive(Default)]
struct Origin {
    /// The three values, one after another…
    of: String,
    /// …their ends in `of` (`None`: the field was `null`).
    ends: [Option<usize>; 3],
    /// `,"session":…,"parent":…,"source":…` (empty: nothing written yet).
    written: Vec<u8>,
}

impl Origin {
    /// The values the fields were written from.
    fn values(&self) -> [Option<&str>; 3] {
        let mut start = 0;
        self.ends.map(|end| {
            let end = end?;
            let v = &self.of[start..end];
            start = end;
            Some(v)
        })
    }

    /// Write the three fields of `now` after the fields `o` has.
    fn write(&mut self, o: &mut Obj<'_>, now: [Option<&str>; 3]) {
        if self.written.is_empty() || self.values() != now {
            self.written.clear();
            let mut fields = Obj {
                b: &mut self.written,
                first: false,
                terse: o.terse,
            };
            fields.opt_str(k!("session"), now[0]);
            fields.opt_str(k!("parent"), now[1]);
            fields.opt_str(k!("source"), now[2]);
            self.of.clear();
            self.ends = now.map(|v| {
                self.of.push_str(v?);
                Some(self.of.len())
            });
        }
        debug_assert!(!o.first);
        o.b.extend_from_slice(&self.written);
    }
}

impl<W: Write> Jsonl<W> {
    /// A sink writing to `out` (buffer it: the sink writes one line at a time).
    pub fn new(out: W) -> Self {
        Jsonl {
            out,
            buf: Vec::with_capacity(4096),
            label: None,
            origin: Origin::default(),
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
            write_labelled(
                Obj::new(&mut self.buf),
                &rest,
                s,
                self.label.as_deref(),
                &mut self.origin,
            );
            if let Some(head) = self.buf.strip_suffix(br#""content":""}"#) {
                self.out.write_all(head)?;
                self.out.write_all(br#""content":""#)?;
                self.out.write_all(body.as_bytes())?;
                return self.out.write_all(b"\"}\n");
            }
            self.buf.clear();
        }
        write_labelled(
            Obj::new(&mut self.buf),
            ev,
            s,
            self.label.as_deref(),
            &mut self.origin,
        );
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

/// The decimal digits of `v` (what `write!` gives, without the formatter:
/// `itoa` writes two digits a step).
fn push_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
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
    write_labelled(Obj::new(b), ev, s, None, &mut Origin::default());
}

/// Events written for the index (`run/record.rs`): as [`write_event`]
/// writes them, but the fields that are `null` left out and no cost
/// estimated (a report prices the events it replays). The native decoder
/// reads a missing field as `null`: the same events, in fewer bytes to
/// write, compress, keep and parse again.
#[derive(Default)]
pub struct Terse {
    /// The origin fields last written (a session's events share them).
    origin: Origin,
}

impl Terse {
    /// Write `ev` (without the newline).
    pub fn write(&mut self, b: &mut Vec<u8>, ev: &Event<'_>, s: &Session) {
        let mut o = Obj::new(b);
        o.terse = true;
        write_labelled(o, ev, s, None, &mut self.origin);
    }
}

/// [`write_event`] with the run's `--label` (`None`: `null`), the origin
/// fields as `origin` last wrote them when they are the same.
fn write_labelled(
    mut o: Obj<'_>,
    ev: &Event<'_>,
    s: &Session,
    label: Option<&str>,
    origin: &mut Origin,
) {
    o.num(k!("v"), u64::from(SCHEMA_VERSION));
    o.name(k!("kind"), ev.kind.name());
    o.name(k!("producer"), ev.producer.name());
    o.num(k!("line"), ev.line);
    let source = ev.source.as_deref().or(s.source());
    origin.write(
        &mut o,
        [ev.session.as_deref(), ev.parent.as_deref(), source],
    );
    o.time(k!("timestamp"), ev.time);
    o.opt_str(k!("label"), label);
    kind_fields(&mut o, ev, s);
    o.end();
}

/// The fields of `ev`'s kind, after the common ones.
fn kind_fields(o: &mut Obj<'_>, ev: &Event<'_>, s: &Session) {
    match &ev.kind {
        EventKind::SessionStart(st) => session_start(o, st),
        EventKind::Text(t) => {
            o.name(k!("role"), t.role.name());
            o.str(k!("text"), &t.text);
            o.opt_str(k!("message_id"), t.message_id.as_deref());
            o.opt_str(k!("command"), t.command.as_deref());
            o.bool(k!("continues"), t.continues);
        }
        EventKind::Thinking(t) => {
            o.str(k!("text"), &t.text);
            o.bool(k!("redacted"), t.redacted);
            o.opt_str(k!("message_id"), t.message_id.as_deref());
        }
        EventKind::ToolCall(c) => tool_call(o, c),
        EventKind::ToolResult(r) => {
            o.str(k!("id"), &r.id);
            o.opt_str(k!("name"), s.note().tool.as_deref());
            o.opt_name(k!("tool_kind"), s.note().tool_kind.map(ToolKind::name));
            o.bool(k!("is_error"), r.is_error);
            o.bool(k!("denied"), r.denied);
            o.objects(k!("answers"), &r.answers, |inner, a| {
                inner.str(k!("question"), &a.question);
                inner.str(k!("answer"), &a.answer);
            });
            // `[]` but where the result reports the changes made (Claude Code).
            changes(o, &r.changes, true);
            // Last: a long content is written straight from the line.
            o.content(k!("content"), &r.content);
        }
        EventKind::PermissionDenied(d) => {
            o.opt_str(k!("id"), d.id.as_deref());
            o.opt_str(k!("tool"), s.note().tool.as_deref().or(d.tool.as_deref()));
            o.opt_name(k!("tool_kind"), s.note().tool_kind.map(ToolKind::name));
            o.opt_str(
                k!("key_arg"),
                s.note().key_arg.as_deref().or(d.key_arg.as_deref()),
            );
            o.opt_str(k!("message"), d.message.as_deref());
        }
        EventKind::Usage(u) => {
            o.opt_str(k!("message_id"), u.message_id.as_deref());
            o.opt_str(k!("request_id"), u.request_id.as_deref());
            o.opt_str(k!("model"), u.model.as_deref());
            o.tokens(k!("tokens"), &u.tokens);
            match &u.replaces {
                Some(t) => o.tokens(k!("replaces"), t),
                None => o.null(k!("replaces")),
            }
            o.opt_num(k!("cache_write_1h"), u.cache_write_1h);
            // What the ledger needs to count and price it as a read of the
            // log does: read back, a report is the same (the index too).
            o.bool(k!("preliminary_output"), u.preliminary_output);
            o.bool(k!("sidechain"), u.sidechain);
            o.bool(k!("fast"), u.fast);
            o.opt_f64(k!("cost_usd"), u.cost_usd);
            // Priced only when the output count is final.
            let estimate = (u.model.as_deref())
                .filter(|_| !u.preliminary_output && !o.terse)
                .and_then(|m| s.prices().message(m, &u.tokens, Billing::of(u)));
            o.opt_f64(k!("cost_usd_estimated"), estimate);
        }
        EventKind::Notice(n) => {
            o.str(k!("subtype"), &n.subtype);
            o.name(k!("level"), n.level.name());
            o.str(k!("text"), &n.text);
            match &n.raw {
                Some(r) => o.raw(k!("raw"), r),
                None => o.null(k!("raw")),
            }
        }
        EventKind::Result(r) => {
            result(o, r);
            // No cost reported: the session's so far, priced.
            let estimate = (r.cost_usd.is_none() && !o.terse)
                .then(|| s.current().map(|c| c.cost(s.prices())))
                .flatten()
                .and_then(|c| c.usd.filter(|_| c.estimated));
            o.opt_f64(k!("cost_usd_estimated"), estimate);
        }
        EventKind::Delta(d) => {
            o.name(k!("delta_kind"), d.kind.name());
            o.opt_num(k!("index"), d.index);
            o.str(k!("text"), &d.text);
        }
        EventKind::PlainText(t) => o.str(k!("text"), t),
        EventKind::Unknown(u) => {
            o.str(k!("event_type"), &u.type_name);
            o.raw(k!("raw"), &u.raw);
        }
    }
}

/// The fields of a `session_start` line.
fn session_start(o: &mut Obj<'_>, st: &SessionStart<'_>) {
    o.opt_str(k!("model"), st.model.as_deref());
    o.opt_str(k!("cwd"), st.cwd.as_deref());
    o.opt_str(k!("version"), st.version.as_deref());
    o.opt_str(k!("permission_mode"), st.permission_mode.as_deref());
    o.opt_str(k!("agent_mode"), st.agent_mode.as_deref());
    o.opt_str(k!("api_key_source"), st.api_key_source.as_deref());
    o.str_list(k!("tools"), &st.tools);
    o.objects(k!("mcp_servers"), &st.mcp_servers, |inner, m| {
        inner.str(k!("name"), &m.name);
        inner.str(k!("status"), &m.status);
    });
    o.str_list(k!("agents"), &st.agents);
    o.str_list(k!("skills"), &st.skills);
    o.str_list(k!("slash_commands"), &st.slash_commands);
}

/// The fields of a `tool_call` line.
fn tool_call(o: &mut Obj<'_>, c: &ToolCall<'_>) {
    o.str(k!("id"), &c.id);
    o.str(k!("name"), &c.name);
    o.name(k!("tool_kind"), c.kind.name());
    o.opt_str(k!("key_arg"), c.key_arg.as_deref());
    o.json(k!("input"), &c.input);
    o.objects(k!("todos"), &c.todos, |inner, t| {
        inner.str(k!("content"), &t.content);
        inner.str(k!("status"), &t.status);
    });
    o.objects(k!("questions"), &c.questions, |inner, q| {
        inner.str(k!("question"), &q.question);
        inner.str_list(k!("options"), &q.options);
    });
    // What was done is the result's diff: the call's counts suffice.
    changes(o, &c.changes, !c.changes_in_result);
    o.bool(k!("changes_in_result"), c.changes_in_result);
    o.opt_str(k!("message_id"), c.message_id.as_deref());
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
        o.objects(k!("changes"), changes, |inner, ch| {
            inner.opt_str(k!("path"), ch.path.as_deref());
            if let Edit::Action(a) = &ch.edit {
                inner.str(k!("action"), a);
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
            inner.num(k!("lines_added"), stat.added);
            inner.num(k!("lines_removed"), stat.removed);
            if !text.is_empty() {
                inner.str(k!("diff"), text);
            }
        });
        o.opt_num(k!("lines_added"), total.map(|t| t.added));
        o.opt_num(k!("lines_removed"), total.map(|t| t.removed));
    });
}

/// Unchanged lines kept around each change of a diff (as `diff -u`).
const DIFF_CONTEXT: usize = 3;

/// The fields of a `result` line.
fn result(o: &mut Obj<'_>, r: &SessionResult<'_>) {
    o.bool(k!("is_error"), r.is_error);
    o.opt_str(k!("subtype"), r.subtype.as_deref());
    o.opt_str(k!("text"), r.text.as_deref());
    o.str_list(k!("errors"), &r.errors);
    o.opt_num(k!("num_turns"), r.num_turns);
    o.opt_num(k!("duration_ms"), r.duration_ms);
    o.opt_num(k!("duration_api_ms"), r.duration_api_ms);
    o.opt_f64(k!("cost_usd"), r.cost_usd);
    o.tokens(k!("tokens"), &r.tokens);
    o.objects(k!("model_usage"), &r.model_usage, |inner, m| {
        inner.str(k!("model"), &m.model);
        inner.tokens(k!("tokens"), &m.tokens);
        inner.opt_f64(k!("cost_usd"), m.cost_usd);
    });
    o.opt_str(k!("stop_reason"), r.stop_reason.as_deref());
    o.opt_str(k!("terminal_reason"), r.terminal_reason.as_deref());
    o.opt_num(k!("api_error_status"), r.api_error_status);
    o.opt_str(k!("after_task"), r.after_task.as_deref());
}

/// A tiny JSON object writer over a byte buffer.
struct Obj<'b> {
    b: &'b mut Vec<u8>,
    first: bool,
    /// Fields that are `null` are left out ([`Terse`]).
    terse: bool,
}

impl<'b> Obj<'b> {
    /// `"key":[{…},{…}]`, one object per item, written by `field`.
    fn objects<T, const N: usize>(
        &mut self,
        key: &[u8; N],
        items: &[T],
        mut field: impl FnMut(&mut Obj<'_>, &T),
    ) {
        self.key(key);
        self.b.push(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.b.push(b',');
            }
            let terse = self.terse;
            let mut inner = Obj::new(self.b);
            inner.terse = terse;
            field(&mut inner, item);
            inner.end();
        }
        self.b.push(b']');
    }

    fn new(b: &'b mut Vec<u8>) -> Self {
        b.push(b'{');
        Obj {
            b,
            first: true,
            terse: false,
        }
    }

    fn end(self) {
        self.b.push(b'}');
    }

    /// `k` (`,"name":`, see [`k!`]), without its comma for the first key:
    /// its length is a constant where it is written, so it is written as
    /// such, not by a call to `memcpy` (writing keys took 7.6% of the
    /// instructions of a delta stream's JSONL).
    #[inline]
    fn key<const N: usize>(&mut self, k: &[u8; N]) {
        if self.first {
            self.first = false;
            self.b.extend_from_slice(&k[1..]);
        } else {
            self.b.extend_from_slice(k);
        }
    }

    fn str<const N: usize>(&mut self, k: &[u8; N], v: &str) {
        self.key(k);
        push_json_str(self.b, v);
    }

    /// One of streamview's own names (`tool_call`, `claude`, `text`…):
    /// plain ASCII, written without the escape scan.
    fn name<const N: usize>(&mut self, k: &[u8; N], v: &'static str) {
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
    fn content<const N: usize>(&mut self, k: &[u8; N], c: &Content<'_>) {
        match c.json_parts() {
            Some((head, body, true)) => {
                self.key(k);
                // The head escaped, without its closing quote.
                push_json_str(self.b, head);
                self.b.pop();
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

    fn opt_name<const N: usize>(&mut self, k: &[u8; N], v: Option<&'static str>) {
        match v {
            Some(v) => self.name(k, v),
            None => self.null(k),
        }
    }

    fn opt_str<const N: usize>(&mut self, k: &[u8; N], v: Option<&str>) {
        match v {
            Some(v) => self.str(k, v),
            None => self.null(k),
        }
    }

    /// A time as RFC 3339 text in UTC (`null` without one).
    fn time<const N: usize>(&mut self, k: &[u8; N], t: Option<Timestamp>) {
        let Some(t) = t else {
            return self.null(k);
        };
        self.key(k);
        self.b.push(b'"');
        t.write_rfc3339(self.b);
        self.b.push(b'"');
    }

    fn null<const N: usize>(&mut self, k: &[u8; N]) {
        if self.terse {
            return;
        }
        self.key(k);
        self.b.extend_from_slice(b"null");
    }

    fn bool<const N: usize>(&mut self, k: &[u8; N], v: bool) {
        self.key(k);
        self.b.extend_from_slice(if v { b"true" } else { b"false" });
    }

    fn num<const N: usize>(&mut self, k: &[u8; N], v: u64) {
        self.key(k);
        push_u64(self.b, v);
    }

    fn opt_num<const N: usize>(&mut self, k: &[u8; N], v: Option<u64>) {
        match v {
            Some(v) => self.num(k, v),
            None => self.null(k),
        }
    }

    fn opt_f64<const N: usize>(&mut self, k: &[u8; N], v: Option<f64>) {
        match v.filter(|f| f.is_finite()) {
            // serde_json writes the shortest representation that round-trips.
            Some(f) => {
                self.key(k);
                let _ = serde_json::to_writer(&mut *self.b, &f);
            }
            None => self.null(k),
        }
    }

    /// A JSON value, written in place (characters a terminal must not get
    /// raw escaped, as [`push_safe_json`] does).
    fn json<const N: usize>(&mut self, k: &[u8; N], v: &JsonText<'_>) {
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
    fn raw<const N: usize>(&mut self, k: &[u8; N], json: &str) {
        let t = json.trim();
        if t.is_empty() {
            return self.null(k);
        }
        self.key(k);
        push_safe_json(self.b, t);
    }

    fn str_list<const N: usize>(&mut self, k: &[u8; N], items: &[Cow<'_, str>]) {
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

    fn tokens<const N: usize>(&mut self, k: &[u8; N], t: &Tokens) {
        self.key(k);
        let terse = self.terse;
        let mut inner = Obj::new(self.b);
        inner.terse = terse;
        inner.opt_num(k!("input"), t.input);
        inner.opt_num(k!("output"), t.output);
        inner.opt_num(k!("cache_read"), t.cache_read);
        inner.opt_num(k!("cache_creation"), t.cache_creation);
        // Only where the agent says: the four keys above are always there.
        if let Some(r) = t.reasoning {
            inner.num(k!("reasoning"), r);
        }
        inner.end();
    }
}

#[cfg(test)]
mod tests;
