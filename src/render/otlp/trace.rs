//! One session as a trace: what is held while it runs (the open calls, the
//! sub-agents, each agent's model response not yet complete) and the spans
//! written as each completes, into a batch the sink sends as a request
//! every [`BATCH`] spans; the sub-agents and the root at the session's end
//! ([`Trace::close`]).
//!
//! Memory is bounded whatever the session: at most [`MAX_OPEN`] open
//! calls (the oldest is written unanswered beyond), [`MAX_AGENTS`]
//! sub-agents (later ones' spans go under the root), every text cut.

use std::borrow::Cow;
use std::io::{self, Write};

use foldhash::HashMap;

use crate::event::{
    Denial, Event, EventKind, Producer, Role, ToolCall, ToolKind, ToolResult, Usage,
    is_subagent_tool,
};
use crate::session::{Outcome, Session, SessionSummary};
use crate::time::Timestamp;

use super::encode::{self, Attr, Kind, MAX_CONTENT, MAX_TEXT, Resource, Signal, Span, Value, cut};
use super::ids::{SpanId, TraceId};
use super::metrics;
use super::options::OtlpOptions;
use super::provider;

/// Spans per trace request: a session of any length goes out in pieces.
pub const BATCH: usize = 512;

/// Open calls held at most.
pub const MAX_OPEN: usize = 4096;

/// Sub-agents given a span of their own at most, per session.
pub const MAX_AGENTS: usize = 256;

/// Where times come from when the events say none.
#[derive(Clone, Copy, Debug)]
enum Clock {
    /// A stream: when each event arrives.
    Arrival,
    /// A saved file: when it was last written.
    Fixed(u64),
}

impl Clock {
    /// The clock of the input named `source`.
    fn of(source: Option<&str>) -> Clock {
        let mtime = source
            .and_then(|p| std::fs::metadata(p).ok())
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok());
        match mtime {
            Some(t) => Clock::Fixed(nanos(Timestamp::of(t))),
            None => Clock::Arrival,
        }
    }

    fn now() -> u64 {
        nanos(Timestamp::of(std::time::SystemTime::now()))
    }
}

/// The input's name as a whole path, when it names a file (`<stdin>`
/// for none).
fn whole_path(source: Option<&str>) -> String {
    let source = source.unwrap_or("<stdin>");
    match std::fs::canonicalize(source) {
        Ok(p) => p.to_string_lossy().into_owned(),
        Err(_) => source.to_string(),
    }
}

/// Unix nanoseconds of `t` (0 before 1970).
fn nanos(t: Timestamp) -> u64 {
    u64::try_from(t.millis())
        .unwrap_or(0)
        .saturating_mul(1_000_000)
}

/// The earliest and latest of some times.
#[derive(Clone, Copy, Debug, Default)]
struct Range(Option<(u64, u64)>);

impl Range {
    fn add(&mut self, t: u64) {
        self.0 = Some(match self.0 {
            Some((a, b)) => (a.min(t), b.max(t)),
            None => (t, t),
        });
    }
}

/// A model response of one agent, held until its last line.
#[derive(Debug)]
struct Chat {
    id: Option<String>,
    line: u64,
    model: Option<String>,
    tokens: crate::event::Tokens,
    output_final: bool,
    start: Option<u64>,
    end: Option<u64>,
    /// `--otlp-content`: the prompts it answers (`gen_ai.input.messages`).
    input: Option<String>,
}

/// The main agent or a sub-agent: when it worked, its response held.
#[derive(Debug, Default)]
struct Agent {
    times: Range,
    last: Option<u64>,
    pending: Option<Chat>,
}

/// A sub-agent: the call that started it, and its agent.
#[derive(Debug)]
struct SubAgent {
    call: String,
    agent: Agent,
}

/// A tool call waiting for its result.
#[derive(Debug)]
struct Call {
    name: String,
    kind: ToolKind,
    key_arg: Option<String>,
    line: u64,
    seq: u64,
    start: Option<u64>,
    /// The sub-agent that made it (an index in `agents`); `None`: the main.
    agent: Option<usize>,
    /// The denial reported for it, its message.
    denied: Option<String>,
    /// `--otlp-content`: its input.
    input: Option<String>,
}

/// How a call ended, as its span says.
struct Ending<'a> {
    end: Option<u64>,
    error: Option<(Cow<'a, str>, &'static str)>,
    output: Option<Cow<'a, str>>,
    unanswered: bool,
}

/// A session being exported.
pub struct Trace {
    /// The session's number in the run ([`Session::session_count`]).
    pub number: usize,
    id: Option<TraceId>,
    /// The input it was read from, as named, and the line it began at:
    /// the trace's id when the session has none.
    origin: (Option<String>, u64),
    producer: Producer,
    version: Option<String>,
    clock: Clock,
    /// Times the events gave, and those the clock gave.
    stamped: Range,
    clocked: Range,
    last_stamp: Option<u64>,
    main: Agent,
    agents: Vec<SubAgent>,
    /// The sub-agent calls made, whose spans are under this trace: id →
    /// the agent's name (the call's sub-agent type, else its tool).
    agent_calls: HashMap<String, String>,
    calls: HashMap<String, Call>,
    seq: u64,
    /// The line of the last response written without an id, and how many
    /// were of that line (a producer may give several at once: a store's
    /// totals per model at the session's end), so that each has its span.
    chat_line: (u64, u64),
    body: Vec<u8>,
    spans: usize,
    /// Model responses written per model, for the metrics' counts.
    responses: Vec<(String, u64)>,
    content: bool,
    /// `--otlp-content`: the main agent's prompts since its last response,
    /// as the elements of `gen_ai.input.messages` (JSON, comma-separated),
    /// at most [`MAX_CONTENT`] bytes with the brackets.
    prompts: String,
}

impl Trace {
    /// The trace of the session that `ev` begins (number `number`).
    pub fn begin(number: usize, ev: &Event<'_>, s: &Session, content: bool) -> Trace {
        Trace {
            number,
            id: None,
            origin: (s.source().map(str::to_string), ev.line),
            producer: ev.producer,
            version: None,
            clock: Clock::of(s.source()),
            stamped: Range::default(),
            clocked: Range::default(),
            last_stamp: None,
            main: Agent::default(),
            agents: Vec::new(),
            agent_calls: HashMap::default(),
            calls: HashMap::default(),
            seq: 0,
            chat_line: (0, 0),
            body: Vec::new(),
            spans: 0,
            responses: Vec::new(),
            content,
            prompts: String::new(),
        }
    }

    /// Name the trace after the session's id, if none named it yet: the
    /// producer, the session's id and the name of its file, nothing of
    /// the folder it is in (a library moved or copied elsewhere gives the
    /// same ids). The file's name keeps apart what a session's id alone
    /// does not: two runs of `codex exec resume` of one thread are two
    /// streams of the same id, whose calls' ids both start at `item_0`.
    fn name(&mut self, session: Option<&str>) {
        if self.id.is_none()
            && let Some(id) = session.filter(|i| !i.is_empty())
        {
            let file = self.origin.0.as_deref().map_or("<stdin>", |p| {
                std::path::Path::new(p)
                    .file_name()
                    .and_then(std::ffi::OsStr::to_str)
                    .unwrap_or(p)
            });
            self.id = Some(TraceId::of(&[
                b"session",
                self.producer.name().as_bytes(),
                id.as_bytes(),
                file.as_bytes(),
            ]));
        }
    }

    /// The trace's id: from the session's id once an event named it, else
    /// from where the session began (the file's whole path, so the same
    /// file named from another folder is the same session, and the line);
    /// fixed once used.
    fn trace_id(&mut self) -> TraceId {
        *self.id.get_or_insert_with(|| {
            TraceId::of(&[
                b"origin",
                whole_path(self.origin.0.as_deref()).as_bytes(),
                &self.origin.1.to_le_bytes(),
            ])
        })
    }

    fn root_id(&mut self) -> SpanId {
        self.trace_id().span("root", &[])
    }

    /// The span an agent's spans go under.
    fn agent_span(&mut self, agent: Option<usize>) -> SpanId {
        match agent.and_then(|i| self.agents.get(i)) {
            Some(a) => {
                let call = a.call.clone();
                self.trace_id().span("agent", &[call.as_bytes()])
            }
            None => self.root_id(),
        }
    }

    /// The span of the call `id` (first seen at `line`).
    fn call_span(&mut self, id: &str, line: u64) -> SpanId {
        let t = self.trace_id();
        if id.is_empty() {
            t.span("tool-line", &[&line.to_le_bytes()])
        } else {
            t.span("tool", &[id.as_bytes()])
        }
    }

    /// The time of `ev`: its own, else the last one an event gave, else
    /// on a stream when it arrived; `None` (not known yet) in a saved
    /// file before its first time.
    fn time(&mut self, ev: &Event<'_>) -> Option<u64> {
        if let Some(t) = ev.time {
            let t = nanos(t);
            self.stamped.add(t);
            self.last_stamp = Some(t);
            return Some(t);
        }
        if self.last_stamp.is_some() {
            return self.last_stamp;
        }
        match self.clock {
            Clock::Arrival => {
                let t = Clock::now();
                self.clocked.add(t);
                Some(t)
            }
            Clock::Fixed(_) => None,
        }
    }

    /// A time not known when its event came: the last one an event gave
    /// since, else the file's.
    fn known(&self, t: Option<u64>) -> u64 {
        t.or(self.last_stamp).unwrap_or_else(|| match self.clock {
            Clock::Fixed(t) => t,
            Clock::Arrival => Clock::now(),
        })
    }

    /// The sub-agent the events of call `parent` are (made when first
    /// seen), `None` for the main agent or beyond [`MAX_AGENTS`].
    fn agent_of(&mut self, parent: Option<&str>) -> Option<usize> {
        let p = parent.filter(|p| !p.is_empty())?;
        if let Some(i) = self.agents.iter().position(|a| a.call == p) {
            return Some(i);
        }
        if self.agents.len() >= MAX_AGENTS {
            return None;
        }
        self.agents.push(SubAgent {
            call: p.to_string(),
            agent: Agent::default(),
        });
        Some(self.agents.len() - 1)
    }

    fn agent_mut(&mut self, agent: Option<usize>) -> &mut Agent {
        match agent {
            Some(i) if i < self.agents.len() => &mut self.agents[i].agent,
            _ => &mut self.main,
        }
    }

    /// Take in one event of the session.
    pub fn event(&mut self, ev: &Event<'_>, s: &Session) {
        // The event's session, else the one the session's state has from
        // an earlier event (a Codex rollout names it in its first line
        // only).
        let session = ev.session.as_deref();
        self.name(session.or_else(|| s.current().and_then(|c| c.id.as_deref())));
        let t = self.time(ev);
        let agent = self.agent_of(ev.parent.as_deref());
        match &ev.kind {
            EventKind::SessionStart(st) if self.version.is_none() => {
                self.version = st.version.as_deref().map(|v| cut(v, MAX_TEXT).into_owned());
            }
            EventKind::ToolCall(c) => self.call(c, ev.line, agent, t),
            EventKind::ToolResult(r) => self.result(r, s.note().denied, (ev.line, agent, t)),
            EventKind::PermissionDenied(d) if !s.note().duplicate => self.denial(d),
            EventKind::Usage(u) => self.usage(u, ev.line, agent, t),
            EventKind::Text(x) if self.content && x.role == Role::User && agent.is_none() => {
                self.prompt(&x.text);
            }
            _ => {}
        }
        let a = self.agent_mut(agent);
        if let Some(t) = t {
            a.times.add(t);
            a.last = Some(t);
        }
    }

    /// Hold a prompt of the main agent's for the span of the response
    /// that answers it (`--otlp-content`): a user message of the `GenAI`
    /// conventions' `gen_ai.input.messages`, cut to the room left (the
    /// messages held are at most [`MAX_CONTENT`] bytes, as a tool's input).
    fn prompt(&mut self, text: &str) {
        const HEAD: &str = r#"{"role":"user","parts":[{"type":"text","content":"#;
        const TAIL: &str = "}]}";
        let used = self.prompts.len() + usize::from(!self.prompts.is_empty()) + 2;
        let Some(room) = MAX_CONTENT.checked_sub(used + HEAD.len() + TAIL.len() + 2) else {
            return;
        };
        if room < 64 {
            return;
        }
        // Escaping may lengthen the text: cut it shorter until it fits.
        let mut max = room;
        let escaped = loop {
            let mut b = Vec::new();
            crate::json::escape::push_json_str(&mut b, &cut(text, max));
            if b.len() <= room || max < 64 {
                break b;
            }
            max = max * room / b.len();
        };
        if escaped.len() > room {
            return;
        }
        if !self.prompts.is_empty() {
            self.prompts.push(',');
        }
        self.prompts.push_str(HEAD);
        self.prompts.push_str(&String::from_utf8_lossy(&escaped));
        self.prompts.push_str(TAIL);
    }

    /// The prompts held, as `gen_ai.input.messages`' value; none held after.
    fn take_prompts(&mut self) -> Option<String> {
        (!self.prompts.is_empty()).then(|| format!("[{}]", std::mem::take(&mut self.prompts)))
    }

    fn call(&mut self, c: &ToolCall<'_>, line: u64, agent: Option<usize>, t: Option<u64>) {
        if self.calls.len() >= MAX_OPEN {
            self.write_oldest_open();
        }
        debug_assert!(self.calls.len() < MAX_OPEN);
        self.seq += 1;
        if (is_subagent_tool(&c.name) || c.kind == ToolKind::Agent)
            && self.agent_calls.len() < MAX_OPEN
        {
            let key = c.key_arg.as_deref().and_then(|k| k.split_once(": "));
            let name = key.map_or(c.name.as_ref(), |(kind, _)| kind);
            self.agent_calls
                .insert(c.id.to_string(), cut(name, MAX_TEXT).into_owned());
        }
        let call = Call {
            name: cut(&c.name, MAX_TEXT).into_owned(),
            kind: c.kind,
            key_arg: c.key_arg.as_deref().map(|k| cut(k, MAX_TEXT).into_owned()),
            line,
            seq: self.seq,
            start: t,
            agent,
            denied: None,
            input: self
                .content
                .then(|| cut(&c.input.text(), MAX_CONTENT).into_owned()),
        };
        if let Some(old) = self.calls.insert(c.id.to_string(), call) {
            // The same id again: the first is written as it stands.
            self.write_open(c.id.as_ref(), &old);
        }
    }

    /// Write the quarter of the open calls made first, unanswered
    /// (memory is bounded; a quarter at once, so a stream of calls never
    /// answered is not a scan of them all per call).
    fn write_oldest_open(&mut self) {
        let mut seqs: Vec<u64> = self.calls.values().map(|c| c.seq).collect();
        let n = (seqs.len() / 4).max(1);
        let (_, &mut cutoff, _) = seqs.select_nth_unstable(n - 1);
        let ids: Vec<String> = (self.calls.iter())
            .filter(|(_, c)| c.seq <= cutoff)
            .map(|(id, _)| id.clone())
            .collect();
        let mut old: Vec<(String, Call)> = (ids.into_iter())
            .filter_map(|id| self.calls.remove(&id).map(|c| (id, c)))
            .collect();
        old.sort_by_key(|(_, c)| c.seq);
        for (id, call) in old {
            self.write_open(&id, &call);
        }
    }

    /// Write a call that got no result: denied, or unanswered.
    fn write_open(&mut self, id: &str, call: &Call) {
        let ending = Ending {
            end: self.stamped.0.or(self.clocked.0).map(|r| r.1),
            error: call.denied.as_deref().map(|m| (m.into(), "denied")),
            output: None,
            unanswered: call.denied.is_none(),
        };
        self.write_call(id, call, &ending);
    }

    fn result(
        &mut self,
        r: &ToolResult<'_>,
        denied: bool,
        (line, agent, t): (u64, Option<usize>, Option<u64>),
    ) {
        let call = match self.calls.remove(r.id.as_ref()) {
            Some(call) => call,
            // A failed result whose call was never seen (a log cut at the
            // front; OpenClaw keeps no turn that called an unknown tool):
            // a call of an unknown tool, as the summary counts it.
            None if r.is_error && !denied => {
                self.seq += 1;
                Call {
                    name: "?".to_string(),
                    kind: ToolKind::Other,
                    key_arg: None,
                    line,
                    seq: self.seq,
                    start: t,
                    agent,
                    denied: None,
                    input: None,
                }
            }
            None => return,
        };
        let failed = r.is_error || r.denied || denied || call.denied.is_some();
        let text = (failed || self.content).then(|| r.content.text());
        let error = failed.then(|| {
            let denial = r.denied || denied || call.denied.is_some();
            let msg = match (&call.denied, &text) {
                (Some(m), _) if denial => Cow::Borrowed(m.as_str()),
                (_, Some(t)) if !t.trim().is_empty() => Cow::Borrowed(t.as_ref()),
                _ => Cow::Borrowed(if denial { "denied" } else { "error" }),
            };
            (msg, if denial { "denied" } else { "tool_error" })
        });
        let ending = Ending {
            end: t,
            error,
            output: text.as_deref().filter(|_| self.content).map(Cow::Borrowed),
            unanswered: false,
        };
        self.write_call(r.id.as_ref(), &call, &ending);
    }

    fn denial(&mut self, d: &Denial<'_>) {
        let call = d.id.as_deref().and_then(|id| self.calls.get_mut(id));
        if let Some(call) = call {
            let msg = d.message.as_deref().unwrap_or("denied");
            call.denied = Some(cut(msg, MAX_TEXT).into_owned());
        }
    }

    /// Write the span of call `id`.
    fn write_call(&mut self, id: &str, call: &Call, ending: &Ending<'_>) {
        let trace = self.trace_id();
        let span = self.call_span(id, call.line);
        let parent = self.agent_span(call.agent);
        let name = format!("execute_tool {}", call.name);
        let start = self.known(call.start.or(ending.end));
        let end = self.known(ending.end).max(start);
        let attrs: [Attr<'_>; 9] = [
            ("gen_ai.operation.name", Some(Value::Str("execute_tool"))),
            ("gen_ai.tool.name", Some(Value::Str(&call.name))),
            ("gen_ai.tool.call.id", Some(Value::Str(id))),
            ("streamview.tool.kind", Some(Value::Str(call.kind.name()))),
            (
                "streamview.tool.key_arg",
                call.key_arg.as_deref().map(Value::Str),
            ),
            ("error.type", ending.error.as_ref().map(|e| Value::Str(e.1))),
            (
                "streamview.tool.unanswered",
                ending.unanswered.then_some(Value::Bool(true)),
            ),
            (
                "gen_ai.tool.call.arguments",
                call.input.as_deref().map(Value::Content),
            ),
            (
                "gen_ai.tool.call.result",
                ending.output.as_deref().map(Value::Content),
            ),
        ];
        self.push_span(&Span {
            trace,
            id: span,
            parent: Some(parent),
            name: &name,
            kind: Kind::Internal,
            start,
            end,
            error: ending.error.as_ref().map(|e| e.0.as_ref()),
            attrs: &attrs,
        });
    }

    fn usage(&mut self, u: &Usage<'_>, line: u64, agent: Option<usize>, t: Option<u64>) {
        let a = self.agent_mut(agent);
        if let Some(p) = a.pending.as_mut()
            && p.id.is_some()
            && p.id.as_deref() == u.message_id.as_deref()
        {
            // A later line of the same response: its counts replace.
            p.tokens = u.tokens;
            p.output_final = !u.preliminary_output;
            p.end = t.or(p.end);
            if let Some(m) = u.model.as_deref()
                && p.model.as_deref() != Some(cut(m, MAX_TEXT).as_ref())
            {
                p.model = Some(cut(m, MAX_TEXT).into_owned());
            }
            return;
        }
        let chat = Chat {
            id: u
                .message_id
                .as_deref()
                .map(|i| cut(i, MAX_TEXT).into_owned()),
            line,
            model: u.model.as_deref().map(|m| cut(m, MAX_TEXT).into_owned()),
            tokens: u.tokens,
            output_final: !u.preliminary_output,
            start: a.last.or(t),
            end: t,
            input: None,
        };
        // The prompts held are the main agent's, answered by this response.
        let chat = Chat {
            input: if agent.is_none() {
                self.take_prompts()
            } else {
                None
            },
            ..chat
        };
        let a = self.agent_mut(agent);
        if let Some(done) = a.pending.replace(chat) {
            self.write_chat(&done, agent);
        }
    }

    fn write_chat(&mut self, c: &Chat, agent: Option<usize>) {
        let trace = self.trace_id();
        let span = if let Some(id) = &c.id {
            trace.span("chat", &[id.as_bytes()])
        } else {
            let (line, nth) = &mut self.chat_line;
            *nth = if *line == c.line { *nth + 1 } else { 0 };
            *line = c.line;
            let nth = *nth;
            trace.span("chat-line", &[&c.line.to_le_bytes(), &nth.to_le_bytes()])
        };
        let parent = self.agent_span(agent);
        let model = c.model.as_deref();
        let name = match model {
            Some(m) => format!("chat {m}"),
            None => "chat".to_string(),
        };
        let tokens = token_attrs(&c.tokens, c.output_final);
        let input = c.input.as_deref();
        let end = self.known(c.end.or(c.start));
        let start = self.known(c.start.or(c.end)).min(end);
        let attrs: [Attr<'_>; 11] = [
            ("gen_ai.operation.name", Some(Value::Str("chat"))),
            (
                "gen_ai.provider.name",
                model.and_then(provider::of).map(Value::Str),
            ),
            ("gen_ai.request.model", model.map(Value::Str)),
            ("gen_ai.response.model", model.map(Value::Str)),
            ("gen_ai.response.id", c.id.as_deref().map(Value::Str)),
            tokens[0],
            tokens[1],
            tokens[2],
            tokens[3],
            tokens[4],
            ("gen_ai.input.messages", input.map(Value::Content)),
        ];
        self.push_span(&Span {
            trace,
            id: span,
            parent: Some(parent),
            name: &name,
            kind: Kind::Client,
            start,
            end,
            error: None,
            attrs: &attrs,
        });
        let key = model.unwrap_or("");
        if let Some((_, n)) = self.responses.iter_mut().find(|(m, _)| m == key) {
            *n += 1;
        } else if self.responses.len() < MAX_AGENTS {
            self.responses.push((key.to_string(), 1));
        }
    }

    fn push_span(&mut self, span: &Span<'_>) {
        if self.spans > 0 {
            self.body.push(b',');
        }
        encode::span(&mut self.body, span);
        self.spans += 1;
    }

    /// A request's worth of spans is waiting.
    #[must_use]
    pub fn full(&self) -> bool {
        self.spans >= BATCH
    }

    fn resource<'a>(&'a self, opts: &'a OtlpOptions) -> Resource<'a> {
        Resource {
            agent: self.producer.name(),
            agent_version: self.version.as_deref(),
            host: opts.host.as_deref().filter(|_| !opts.anonymous),
            label: opts.label.as_deref(),
        }
    }

    /// The spans written so far, as one trace request into `out`.
    ///
    /// # Errors
    /// As `out`'s.
    pub fn take_request<W: Write + ?Sized>(
        &mut self,
        opts: &OtlpOptions,
        out: &mut W,
    ) -> io::Result<()> {
        if self.spans == 0 {
            return Ok(());
        }
        encode::request(out, Signal::Traces, &self.resource(opts), &self.body)?;
        self.body.clear();
        self.spans = 0;
        Ok(())
    }

    /// The session has ended as `sum` says (`outcome` decided): write what
    /// is still held, the sub-agents, the root, and the requests of the
    /// last spans and of the session's metrics into `out`.
    ///
    /// # Errors
    /// As `out`'s.
    pub fn close<W: Write + ?Sized>(
        mut self,
        sum: &SessionSummary,
        outcome: Option<Outcome>,
        s: &Session,
        opts: &OtlpOptions,
        out: &mut W,
    ) -> io::Result<()> {
        self.name(sum.id.as_deref());
        self.write_held();
        self.write_agents();
        self.write_root(sum, outcome, s, opts);
        self.take_request(opts, out)?;
        let (start, end) = self.times();
        let mut body = Vec::new();
        metrics::write(
            &mut body,
            &metrics::Session {
                summary: sum,
                prices: s.prices(),
                agent: self.producer.label(),
                start,
                end,
                responses: &self.responses,
            },
        );
        if !body.is_empty() {
            encode::request(out, Signal::Metrics, &self.resource(opts), &body)?;
        }
        Ok(())
    }

    /// The session's first and last times: the events' own when they gave
    /// some, else the clock's.
    fn times(&self) -> (u64, u64) {
        let mut all = self.stamped;
        if let Some((a, b)) = self.clocked.0 {
            all.add(a);
            all.add(b);
        }
        all.0.unwrap_or_else(|| {
            let t = self.known(None);
            (t, t)
        })
    }

    /// Write the responses and calls still held.
    fn write_held(&mut self) {
        if let Some(c) = self.main.pending.take() {
            self.write_chat(&c, None);
        }
        for i in 0..self.agents.len() {
            if let Some(c) = self.agents[i].agent.pending.take() {
                self.write_chat(&c, Some(i));
            }
        }
        let mut open: Vec<(String, Call)> = self.calls.drain().collect();
        open.sort_by_key(|(_, c)| c.seq);
        for (id, call) in open {
            self.write_open(&id, &call);
        }
    }

    /// Write each sub-agent's span, under the call that started it.
    fn write_agents(&mut self) {
        let trace = self.trace_id();
        let root = self.root_id();
        for i in 0..self.agents.len() {
            let call = self.agents[i].call.clone();
            let (start, end) = (self.agents[i].agent.times.0)
                .unwrap_or_else(|| (self.known(None), self.known(None)));
            let named = self.agent_calls.get(&call).cloned();
            let parent = match named {
                Some(_) => trace.span("tool", &[call.as_bytes()]),
                None => root,
            };
            let agent = named.unwrap_or_else(|| "sub-agent".to_string());
            let name = format!("invoke_agent {agent}");
            let attrs: [Attr<'_>; 3] = [
                ("gen_ai.operation.name", Some(Value::Str("invoke_agent"))),
                ("gen_ai.agent.name", Some(Value::Str(&agent))),
                ("streamview.agent.call.id", Some(Value::Str(&call))),
            ];
            self.push_span(&Span {
                trace,
                id: trace.span("agent", &[call.as_bytes()]),
                parent: Some(parent),
                name: &name,
                kind: Kind::Internal,
                start,
                end,
                error: None,
                attrs: &attrs,
            });
        }
    }

    /// Write the session's root span.
    fn write_root(
        &mut self,
        sum: &SessionSummary,
        outcome: Option<Outcome>,
        s: &Session,
        opts: &OtlpOptions,
    ) {
        let trace = self.trace_id();
        let id = self.root_id();
        let (start, end) = self.times();
        let agent = self.producer.label();
        let name = format!("invoke_agent {agent}");
        let model = sum.model.as_deref();
        let cost = sum.cost(s.prices());
        let tokens = token_attrs(&sum.tokens(), true);
        let failed = outcome == Some(Outcome::Error);
        // The prompts no response answered (all of them where the agent
        // reports no response of its own: totals only).
        let input = self.take_prompts();
        let attrs: [Attr<'_>; 18] = [
            ("gen_ai.operation.name", Some(Value::Str("invoke_agent"))),
            ("gen_ai.agent.name", Some(Value::Str(agent))),
            ("gen_ai.conversation.id", sum.id.as_deref().map(Value::Str)),
            (
                "gen_ai.provider.name",
                model.and_then(provider::of).map(Value::Str),
            ),
            ("gen_ai.request.model", model.map(Value::Str)),
            tokens[0],
            tokens[1],
            tokens[2],
            tokens[3],
            tokens[4],
            ("streamview.outcome", outcome.map(|o| Value::Str(o.name()))),
            ("streamview.cost.usd", cost.usd.map(Value::Double)),
            (
                "streamview.cost.estimated",
                cost.usd.map(|_| Value::Bool(cost.estimated)),
            ),
            ("error.type", failed.then_some(Value::Str("agent_error"))),
            (
                "streamview.project",
                sum.cwd
                    .as_deref()
                    .filter(|_| !opts.anonymous)
                    .map(Value::Str),
            ),
            (
                "streamview.session.title",
                sum.title
                    .as_deref()
                    .filter(|_| opts.content)
                    .map(Value::Content),
            ),
            (
                "gen_ai.input.messages",
                input.as_deref().map(Value::Content),
            ),
            (
                "streamview.source",
                sum.source
                    .as_deref()
                    .filter(|_| !opts.anonymous)
                    .map(Value::Str),
            ),
        ];
        self.push_span(&Span {
            trace,
            id,
            parent: None,
            name: &name,
            kind: Kind::Internal,
            start,
            end,
            error: failed.then(|| sum.error.as_deref().unwrap_or("error")),
            attrs: &attrs,
        });
    }
}

/// The `gen_ai.usage.*` attributes of `t`: the input counts every input
/// token (cached ones too, as the conventions define it), the cache kinds
/// are parts of it; the output only when `output_final`; the reasoning
/// tokens where the agent says (a part of the output, but for Gemini
/// CLI's, which its output leaves out).
fn token_attrs(t: &crate::event::Tokens, output_final: bool) -> [Attr<'static>; 5] {
    let any_input = t.input.is_some() || t.cache_read.is_some() || t.cache_creation.is_some();
    [
        (
            "gen_ai.usage.input_tokens",
            any_input.then(|| Value::Int(t.total_input())),
        ),
        (
            "gen_ai.usage.output_tokens",
            t.output.filter(|_| output_final).map(Value::Int),
        ),
        (
            "gen_ai.usage.cache_read.input_tokens",
            t.cache_read.map(Value::Int),
        ),
        (
            "gen_ai.usage.cache_creation.input_tokens",
            t.cache_creation.map(Value::Int),
        ),
        (
            "gen_ai.usage.reasoning.output_tokens",
            t.reasoning.filter(|_| output_final).map(Value::Int),
        ),
    ]
}
