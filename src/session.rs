//! Cross-event state: pairs tool results with their calls, tracks sub-agent
//! nesting, sums totals and decides how each session ended.
//!
//! [`Session::observe`] is called once per event, before the sinks see it;
//! sinks read the state (and the [`Note`] about the event just observed) but
//! never change it. One input may hold several sessions (concatenated logs):
//! a `session_start` with a new session id, or an event of another session
//! after a result, closes the current one.

use foldhash::{HashMap, HashSet};
use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use price::Prices;
pub use tally::{Row, Tally};

use crate::event::ToolKind;
use crate::event::{
    Denial, Event, EventKind, Producer, Role, SessionResult, SessionStart, Tokens, ToolCall,
    ToolResult, Usage,
};
use crate::input::library::Origins;
use crate::time::Timestamp;

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// The results reported success.
    Success,
    /// A result reported an error (any `error_*` subtype, `is_error`).
    Error,
    /// The input ended without a result (agent crashed, stream cut off), or
    /// the session was still working after its last result.
    Incomplete,
}

impl Outcome {
    /// Name used in messages and summaries.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Error => "error",
            Outcome::Incomplete => "incomplete",
        }
    }
}

/// How many sessions ended each way (a session without an outcome is
/// incomplete, as its exit status says).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Outcomes {
    /// Sessions that ended with a success result.
    pub success: u64,
    /// Sessions that ended with an error result.
    pub error: u64,
    /// Sessions that ended without a result.
    pub incomplete: u64,
}

impl Outcomes {
    /// Count one session that ended with `o`.
    pub fn add(&mut self, o: Option<Outcome>) {
        match o {
            Some(Outcome::Success) => self.success += 1,
            Some(Outcome::Error) => self.error += 1,
            Some(Outcome::Incomplete) | None => self.incomplete += 1,
        }
    }

    /// Add the counts of `other`.
    pub fn merge(&mut self, other: Outcomes) {
        self.success += other.success;
        self.error += other.error;
        self.incomplete += other.incomplete;
    }
}

/// A call's id and key argument, in one allocation shared by the call
/// table's key, the call and the notes about it: remembering a call costs
/// one allocation (issue 13: the pretty and JSONL pipelines allocate at
/// most 0.5 times per line).
#[derive(Clone, Debug)]
struct CallText {
    /// The id, then the key argument.
    text: Arc<str>,
    id_len: usize,
}

impl CallText {
    /// The text of a call; `scratch` is reused to join its parts.
    fn new(id: &str, key_arg: Option<&str>, scratch: &mut String) -> Self {
        let text: Arc<str> = match key_arg {
            Some(k) => {
                scratch.clear();
                scratch.push_str(id);
                scratch.push_str(k);
                Arc::from(scratch.as_str())
            }
            None => id.into(),
        };
        CallText {
            text,
            id_len: id.len(),
        }
    }

    fn id(&self) -> &str {
        self.text.get(..self.id_len).unwrap_or("")
    }
}

impl Borrow<str> for CallText {
    fn borrow(&self) -> &str {
        self.id()
    }
}

impl PartialEq for CallText {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Eq for CallText {}

impl Hash for CallText {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // As `str` hashes: lookups go by `&str` (`Borrow`).
        self.id().hash(state);
    }
}

/// A tool call's key argument (a path, a command…), shared with the call:
/// cloning it copies no text. Reads as `&str` (`Deref`, `as_deref()`).
#[derive(Clone, Debug)]
pub struct KeyArg(CallText);

impl Deref for KeyArg {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.text.get(self.0.id_len..).unwrap_or("")
    }
}

impl PartialEq<&str> for KeyArg {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}

/// What is known about one tool call.
#[derive(Clone, Debug, Default)]
pub struct CallInfo {
    /// Tool name (one allocation per distinct name, shared by its calls).
    pub name: Arc<str>,
    /// What the tool does.
    pub kind: ToolKind,
    /// Its key argument, if any.
    pub key_arg: Option<KeyArg>,
    /// Nesting depth: 0 for the main agent, 1 inside a sub-agent…
    pub depth: usize,
    /// True once its result arrived.
    pub answered: bool,
    /// True when the result was an error.
    pub failed: bool,
    /// Order of the call in the session.
    pub seq: u64,
    /// Already listed as never answered by a result.
    pub reported: bool,
    /// When the call arrived (for its duration, by arrival time).
    pub arrived: Option<Instant>,
    /// When the call was made, as its line says (for its duration in a
    /// replay, see [`Session::replaying`]).
    pub time: Option<Timestamp>,
}

/// Calls of one tool in a session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolStats {
    /// Tool name as the producer spells it (shared with its calls).
    pub name: Arc<str>,
    /// What the tool does (as its first call said).
    pub kind: ToolKind,
    /// Calls made (sub-agents included).
    pub calls: u64,
    /// Results that were errors (permission refusals included).
    pub errors: u64,
    /// Distinct permission denials.
    pub denials: u64,
    /// Time from each call to its result, summed: by arrival, or in a
    /// replay by the events' timestamps (see [`Session::replaying`]).
    pub time: Duration,
}

/// What a session cost in USD, and how sure that is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// The cost; `None` when neither reported nor priced.
    pub usd: Option<f64>,
    /// Estimated from a price table: the producer reported none.
    pub estimated: bool,
    /// A lower bound: some tokens have no price (a model the table lacks,
    /// output not counted).
    pub partial: bool,
}

/// Usage of one model in a session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelStats {
    /// Model name.
    pub model: String,
    /// Token counts (absent counts stay absent).
    pub tokens: Tokens,
    /// Cost in USD, when reported.
    pub cost_usd: Option<f64>,
    /// What its API messages cost by the price table, each priced on its
    /// own (its prompt's long-context rates, its cache writes kept an
    /// hour): `None` when not summed message by message.
    pub estimate: Option<f64>,
}

impl ModelStats {
    /// Add another model's counts (absent + absent stays absent).
    pub fn add(&mut self, other: &ModelStats) {
        self.tokens.add(&other.tokens);
        self.cost_usd = add_opt_f64(self.cost_usd, other.cost_usd);
        self.estimate = add_opt_f64(self.estimate, other.estimate);
    }

    /// Take another count of it back out (a copy, or counts replaced).
    pub fn sub(&mut self, other: &ModelStats) {
        self.tokens.sub(&other.tokens);
        if let (Some(a), Some(b)) = (self.estimate, other.estimate) {
            self.estimate = Some((a - b).max(0.0));
        }
    }

    /// Its cost: as reported plus what its messages cost by the price
    /// table (sums of sessions' shares hold both), else its tokens at
    /// `prices`' base rates (a sum reported without a cost); `None` when
    /// `prices` does not know the model.
    #[must_use]
    pub fn priced(&self, prices: &Prices) -> Option<f64> {
        add_opt_f64(self.cost_usd, self.estimate)
            .or_else(|| prices.estimate(&self.model, &self.tokens))
    }
}

impl ModelStats {
    /// The cost a table or a metric shows for it, and whether any of it
    /// is estimated: [`ModelStats::priced`] when it has a cost or tokens;
    /// `None` when nothing prices it.
    #[must_use]
    pub fn shown_cost(&self, prices: &Prices) -> Option<(f64, bool)> {
        let estimated = self.estimate.is_some() || self.cost_usd.is_none();
        (self.cost_usd.is_some() || !self.tokens.is_empty())
            .then(|| self.priced(prices))
            .flatten()
            .map(|usd| (usd, estimated))
    }
}

impl ToolStats {
    /// Add another count of the same tool.
    fn add(&mut self, other: &ToolStats) {
        self.calls += other.calls;
        self.errors += other.errors;
        self.denials += other.denials;
        self.time += other.time;
    }
}

impl Row for ToolStats {
    const OTHER: &'static str = "(other tools)";
    fn key(&self) -> &str {
        &self.name
    }
    fn named(key: &str) -> Self {
        ToolStats {
            name: key.into(),
            ..ToolStats::default()
        }
    }
    fn add(&mut self, other: &Self) {
        ToolStats::add(self, other);
    }
}

impl Row for ModelStats {
    const OTHER: &'static str = "(other models)";
    fn key(&self) -> &str {
        &self.model
    }
    fn named(key: &str) -> Self {
        ModelStats {
            model: key.to_string(),
            ..ModelStats::default()
        }
    }
    fn add(&mut self, other: &Self) {
        ModelStats::add(self, other);
    }
}

/// `a + b` where `None` means "not reported": absent only when both are.
#[must_use]
pub fn add_opt_f64(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// `a + b` where `None` means "not reported": absent only when both are.
#[must_use]
pub fn add_opt_u64(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    }
}

/// Totals of one session.
#[derive(Clone, Debug, Default)]
pub struct SessionSummary {
    /// Session id.
    pub id: Option<String>,
    /// The input the session started in (see [`Session::set_source`]).
    pub source: Option<String>,
    /// Every file it was read from, `source` first (several: a stream and
    /// the file its agent saved, see [`SessionSummary::merge_view`]).
    pub sources: Vec<String>,
    /// The producer of the session's first event.
    pub producer: Option<Producer>,
    /// Model from the session start.
    pub model: Option<String>,
    /// Working directory from the main agent's session start (from a
    /// sub-agent's when its file is read alone).
    pub cwd: Option<String>,
    /// The main agent's first prompt, its first line cut to
    /// [`TITLE_CHARS`] characters: how `claude --resume` names a session.
    pub title: Option<String>,
    /// The time of its first event that has one.
    pub started: Option<Timestamp>,
    /// How it ended; `None` while it is still running.
    pub outcome: Option<Outcome>,
    /// Number of `result` events seen.
    pub results: u64,
    /// Turns begun: session starts, the first and each repeated one
    /// (Claude Code 2.1.330 repeats it for the turn each background
    /// agent's end starts). More than `results`: results are still due.
    pub turns_begun: u64,
    /// Tool calls made (sub-agents included).
    pub tool_calls: u64,
    /// Tool results that were errors.
    pub tool_errors: u64,
    /// Distinct permission denials.
    pub denials: u64,
    /// Tool calls that never got a result (known at the end), those
    /// forgotten included.
    pub unanswered: u64,
    /// Open calls forgotten to bound memory ([`KEEP_OPEN`]): counted as
    /// never answered.
    pub forgotten_calls: u64,
    /// Model responses of the main agent, counted per API message.
    pub messages: u64,
    /// Tokens summed over API messages (each counted once); preliminary
    /// output counts, so the result's totals are preferred when present.
    pub message_tokens: Tokens,
    /// Turns reported by the last result.
    pub num_turns: Option<u64>,
    /// Duration reported by the last result.
    pub duration_ms: Option<u64>,
    /// Cost reported by the last result (cumulative).
    pub cost_usd: Option<f64>,
    /// Tokens reported by the last result.
    pub result_tokens: Option<Tokens>,
    /// Error text of an error result.
    pub error: Option<String>,
    /// Turns summed over the results (each result reports the turns of its
    /// own prompt).
    pub total_turns: Option<u64>,
    /// Duration summed over the results (each reports its own prompt's).
    pub total_duration_ms: Option<u64>,
    /// Tokens summed over the results.
    pub total_result_tokens: Tokens,
    /// Calls per tool, in the order of each tool's first call (see
    /// [`Tally`] for the bound).
    pub tools: Tally<ToolStats>,
    /// Usage per model summed over API messages of every agent (sub-agents
    /// included). Claude's stream reports preliminary output counts on its
    /// messages, so for it only the input side is summed.
    pub message_models: Tally<ModelStats>,
    /// Usage and cost per model from the last result that reported them
    /// (Claude, Qwen and transcripts report them cumulatively, sub-agents
    /// included).
    pub result_models: Tally<ModelStats>,
    /// Input lines skipped while this session was read (bad JSON, too long…).
    pub skipped_lines: u64,
    /// The output counts on its API messages are preliminary (see
    /// [`Usage::preliminary_output`](crate::event::Usage)): the sums over
    /// messages keep the input side only.
    pub preliminary_output: bool,
    /// API messages that were copies of one counted before (a resumed
    /// session's file saves them again): not in the totals (see
    /// `session::copies`).
    pub copies: u64,
    /// The main agent's tokens in those copies: taken off the totals of
    /// a reconstructed result ([`SessionSummary::tokens`]).
    copied: Tokens,
    /// Messages not yet checked for copies ([`copies::Check::Later`]).
    keyed: Vec<copies::Keyed>,
    /// `--by day|week|month|block`: the tokens of its API messages by
    /// the time they were answered (the local day, or for blocks the UTC
    /// hour: [`group::Groups::bucket`]) and the row of their model in
    /// `message_models`.
    buckets: std::collections::BTreeMap<(i64, Option<usize>), ModelStats>,
    /// Events of it were left out by `--since`/`--until`: with no dated
    /// event kept, it is not in the report ([`Session::keep`]).
    left_out: bool,
}

/// The longest session title kept, in characters.
pub const TITLE_CHARS: usize = 80;

/// A prompt as a session's title, as `claude --resume` lists it: its
/// first line with words, cut to [`TITLE_CHARS`] characters; a slash
/// command with arguments as typed. `None` for a prompt of no words (an
/// image, an empty line) and for a bare slash command (`/clear`,
/// `/compact`): the next prompt is the title.
pub(crate) fn title(t: &crate::event::Text<'_>) -> Option<String> {
    let text = t.command.as_deref().unwrap_or(&t.text);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    if bare_command(line) {
        return None;
    }
    let mut out: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().nth(TITLE_CHARS).is_some() {
        out.pop();
        out.push('…');
    }
    Some(out)
}

/// `/clear`, `/compact`, `/mcp:tool`: a slash command with no argument.
fn bare_command(line: &str) -> bool {
    line.strip_prefix('/').is_some_and(|name| {
        name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'))
    })
}

impl SessionSummary {
    /// Usage per model: the result's (with cost) when a result reported it,
    /// else the sums over API messages.
    #[must_use]
    pub fn models(&self) -> &Tally<ModelStats> {
        if self.result_models.is_empty() {
            &self.message_models
        } else {
            &self.result_models
        }
    }

    /// The session's cost: as its results reported it, else the sum of
    /// its models' tokens priced by `prices` (see [`Cost`]).
    #[must_use]
    pub fn cost(&self, prices: &Prices) -> Cost {
        if let Some(usd) = self.cost_usd {
            return Cost {
                usd: Some(usd),
                ..Cost::default()
            };
        }
        let mut cost = Cost::default();
        // A model with no token counted (an API error before any
        // answer) costs nothing to estimate.
        for m in self.models().into_iter().filter(|m| m.tokens.total() > 0) {
            match m.priced(prices) {
                Some(c) => {
                    cost.usd = Some(cost.usd.unwrap_or(0.0) + c);
                    cost.estimated |= m.estimate.is_some() || m.cost_usd.is_none();
                }
                None => cost.partial |= !m.tokens.is_empty(),
            }
        }
        // Output counted nowhere (Claude's stream cut before its result):
        // only the input is priced.
        cost.partial = cost.estimated && (cost.partial || self.tokens().output.is_none());
        cost
    }

    /// The session's tokens: the per-model totals of the result when
    /// reported (they cover sub-agents, as the cost does), else the sums
    /// over the API messages of every agent per model when their counts
    /// are final (the same the estimated cost prices: a transcript's
    /// sub-agents, a rollout), else the sum of the results' totals, else
    /// the sum over the main agent's API messages (input only when their
    /// output counts are preliminary, as Claude Code's are).
    #[must_use]
    pub fn tokens(&self) -> Tokens {
        if !self.result_models.is_empty() {
            let mut t = Tokens::default();
            for m in &self.result_models {
                t.add(&m.tokens);
            }
            return t;
        }
        if self.result_models.is_empty() && self.messages_final() {
            let mut t = Tokens::default();
            for m in &self.message_models {
                t.add(&m.tokens);
            }
            return t;
        }
        if !self.total_result_tokens.is_empty() {
            // A transcript's result is rebuilt from its messages: copies
            // come off it.
            let mut t = self.total_result_tokens;
            t.sub(&self.copied);
            return t;
        }
        let mut t = self.message_tokens;
        if self.preliminary_output {
            t.output = None;
        }
        t
    }

    /// Its turns: the model's responses to the main agent, counted one by
    /// one (each API message once) where the log has them; else as the
    /// agent reported them (Gemini's stream: none). Claude Code's own
    /// `num_turns` counts otherwise (its tool results, one more per
    /// prompt): it stays in the result, as reported.
    #[must_use]
    pub fn turns(&self) -> Option<u64> {
        if self.messages > 0 {
            Some(self.messages)
        } else {
            self.total_turns
        }
    }

    /// The counts on its API messages are final (not Claude Code's
    /// stream, whose output counts before the result are preliminary):
    /// its usage can be split by when each message was answered (`--by
    /// day`, `block`).
    #[must_use]
    pub fn messages_final(&self) -> bool {
        !self.preliminary_output && !self.message_models.is_empty()
    }

    /// Count a message's usage (of the model in row `slot`) in time
    /// `bucket` for `--by` by time; in `began`, the session's own, once
    /// it has [`group::MAX_BUCKETS`] (crafted timestamps). The bucket
    /// counted in.
    fn count_when(
        &mut self,
        bucket: Option<i64>,
        began: Option<i64>,
        slot: Option<usize>,
        counted: &ModelStats,
    ) -> Option<i64> {
        let full =
            |b| self.buckets.len() >= group::MAX_BUCKETS && !self.buckets.contains_key(&(b, slot));
        let bucket = if bucket.is_some_and(full) {
            began
        } else {
            bucket
        }?;
        self.buckets.entry((bucket, slot)).or_default().add(counted);
        Some(bucket)
    }

    /// Take in `other`, the same session as an earlier file of another
    /// producer showed it (a stream and its saved session): each call, error and
    /// message once. The two views show the same calls and API messages
    /// under ids that need not match (Codex names them apart in its stream
    /// and its rollout), so a count is the larger of the two views', and
    /// the tokens those of the view that counted more; every file is
    /// named.
    pub fn merge_view(&mut self, other: SessionSummary) {
        let max = |a: &mut u64, b: u64| *a = (*a).max(b);
        max(&mut self.results, other.results);
        max(&mut self.turns_begun, other.turns_begun);
        max(&mut self.tool_calls, other.tool_calls);
        max(&mut self.tool_errors, other.tool_errors);
        max(&mut self.denials, other.denials);
        max(&mut self.unanswered, other.unanswered);
        max(&mut self.forgotten_calls, other.forgotten_calls);
        for t in &other.tools {
            let mine = self.tools.entry(&t.name, || ToolStats {
                name: t.name.clone(),
                kind: t.kind,
                ..ToolStats::default()
            });
            max(&mut mine.calls, t.calls);
            max(&mut mine.errors, t.errors);
            max(&mut mine.denials, t.denials);
            mine.time = mine.time.max(t.time);
        }
        self.skipped_lines += other.skipped_lines;
        self.copies += other.copies;
        self.keyed.extend(other.keyed.iter().cloned());
        self.started = match (self.started, other.started) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // The earlier view's files first.
        let mine = std::mem::replace(&mut self.sources, other.sources.clone());
        for s in mine {
            if !self.sources.contains(&s) {
                self.sources.push(s);
            }
        }
        self.source = other.source.clone().or(self.source.take());
        self.take_missing(other);
    }

    /// What `other` knows and this view does not (its reported totals),
    /// and its API messages when it counted more of them.
    fn take_missing(&mut self, other: SessionSummary) {
        let total = |s: &SessionSummary| {
            s.message_models
                .into_iter()
                .map(|m| m.tokens.total())
                .sum::<u64>()
        };
        if total(&other) > total(self) {
            self.messages = other.messages;
            self.message_tokens = other.message_tokens;
            self.message_models = other.message_models;
            self.buckets = other.buckets;
            self.preliminary_output = other.preliminary_output;
            self.copied = other.copied;
        }
        if self.result_models.is_empty() {
            self.result_models = other.result_models;
        }
        if self.total_result_tokens.is_empty() {
            self.total_result_tokens = other.total_result_tokens;
            self.result_tokens = other.result_tokens;
        }
        self.cost_usd = self.cost_usd.or(other.cost_usd);
        self.total_turns = self.total_turns.max(other.total_turns);
        self.total_duration_ms = self.total_duration_ms.max(other.total_duration_ms);
        self.num_turns = self.num_turns.or(other.num_turns);
        self.duration_ms = self.duration_ms.or(other.duration_ms);
        self.id = self.id.take().or(other.id);
        self.model = self.model.take().or(other.model);
        self.cwd = self.cwd.take().or(other.cwd);
        self.title = self.title.take().or(other.title);
        self.error = self.error.take().or(other.error);
        // The view that saw the session end says how it ended.
        if matches!(self.outcome, None | Some(Outcome::Incomplete)) {
            self.outcome = other.outcome.or(self.outcome);
        }
    }

    /// Take a count of the model in row `slot` back out of time `bucket`.
    fn uncount_when(&mut self, bucket: Option<i64>, slot: Option<usize>, counted: &ModelStats) {
        if let Some(t) = bucket.and_then(|b| self.buckets.get_mut(&(b, slot))) {
            t.sub(counted);
        }
    }

    /// The statistics of tool `name`, created on first use (of `kind`).
    fn tool(&mut self, name: &Arc<str>, kind: ToolKind) -> &mut ToolStats {
        self.tools.entry(name, || ToolStats {
            name: name.clone(),
            kind,
            ..ToolStats::default()
        })
    }
}

/// What the session learned from the event it just observed; sinks use it.
#[derive(Clone, Debug, Default)]
pub struct Note {
    /// For a tool result: the time since its call, by arrival or in a
    /// replay by their timestamps (see [`Session::replaying`]).
    pub elapsed: Option<Duration>,
    /// Nesting depth of the event (0 = main agent).
    pub depth: usize,
    /// The event repeats something already reported (a denial seen before);
    /// sinks should not show it again.
    pub duplicate: bool,
    /// For a session start: true when it opens a new session (false for the
    /// repeated per-turn header of the same session).
    pub new_session: bool,
    /// For a repeated session start: the model or permission mode changed.
    pub header_changed: bool,
    /// For a session start that opens a new session: the previous session
    /// ended without a result.
    pub previous_incomplete: bool,
    /// For a result: main-agent tool calls that never got a result, in call
    /// order (name, key argument).
    pub unanswered: Vec<(Arc<str>, ToolKind, Option<KeyArg>)>,
    /// For a result: more main-agent calls that never got a result, which
    /// were forgotten to bound memory (only their number is known).
    pub unanswered_forgotten: u64,
    /// For a result: more results of this session are due (turns that
    /// began have not all reported), so it is not the session's end yet.
    pub more_results: bool,
    /// For a tool result: its call was denied (a denial was reported for
    /// it, or the result says so), so its error is that denial, not a
    /// failure of the tool.
    pub denied: bool,
    /// For an event of a sub-agent while two or more run at once: a short
    /// name of its agent (the call's description, else its type), so that
    /// their lines can be told apart.
    pub agent: Option<Arc<str>>,
    /// Name of the tool a result or denial belongs to.
    pub tool: Option<Arc<str>>,
    /// What that tool does, when its call was seen.
    pub tool_kind: Option<ToolKind>,
    /// Key argument of that tool call.
    pub key_arg: Option<KeyArg>,
    /// For the one result of a session: the model's responses to the main
    /// agent, counted ([`SessionSummary::turns`]); `None` where the log has
    /// none to count, or for a session of several results (their own
    /// counts stand).
    pub turns: Option<u64>,
}

/// Counters over the whole input.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Events observed.
    pub events: u64,
    /// Streaming fragments observed (not rendered by the pretty sink).
    pub deltas: u64,
    /// Events of unknown type.
    pub unknown: u64,
    /// Lines that were not JSON and were shown as text.
    pub plain_text: u64,
    /// Lines skipped (reported by the reader through [`Session::skipped_line`]).
    pub skipped: u64,
}

/// Answered tool calls remembered at least, per session (see
/// [`prune_calls`]).
const KEEP_ANSWERED: usize = 4096;

/// Open calls remembered at most, per session (see `prune_calls`).
pub const KEEP_OPEN: usize = 4096;

/// Bound the memory of a long session: forget answered calls but the
/// [`KEEP_ANSWERED`] most recent (a late duplicate or denial of an older one
/// is all that could still refer to it), and open calls but the
/// [`KEEP_OPEN`] most recent (a stream of calls that are never answered
/// would otherwise grow without end). Returns how many of the open calls
/// forgotten would have been listed as never answered.
fn prune_calls(
    calls: &mut HashMap<CallText, CallInfo>,
    unreported: &mut Vec<CallText>,
    seq: u64,
) -> u64 {
    let keep_from = seq.saturating_sub(KEEP_ANSWERED as u64);
    calls.retain(|_, c| !c.answered || c.seq > keep_from);
    let mut forgotten = 0;
    let open = calls.values().filter(|c| !c.answered).count();
    if open > KEEP_OPEN {
        // The KEEP_OPEN newest stay: those from the cutoff's sequence on.
        let mut seqs: Vec<u64> = calls
            .values()
            .filter(|c| !c.answered)
            .map(|c| c.seq)
            .collect();
        let (_, &mut cutoff, _) = seqs.select_nth_unstable(open - KEEP_OPEN);
        calls.retain(|_, c| {
            let keep = c.answered || c.seq >= cutoff;
            if !keep && c.depth == 0 && !c.reported && !is_agent(&c.name) {
                forgotten += 1;
            }
            keep
        });
    }
    unreported.retain(|id| calls.get(id.id()).is_some_and(|c| !c.answered));
    forgotten
}

/// Distinct tool names remembered at most (a crafted stream could name
/// each call differently): beyond, they are forgotten and shared anew.
const KEEP_NAMES: usize = 1024;

/// The shared copy of tool name `name` in `names`.
fn intern(names: &mut HashSet<Arc<str>>, name: &str) -> Arc<str> {
    if let Some(n) = names.get(name) {
        return n.clone();
    }
    if names.len() >= KEEP_NAMES {
        names.clear();
    }
    let n: Arc<str> = name.into();
    names.insert(n.clone());
    n
}

/// Finished sessions kept one by one; older ones are folded into one
/// [`Earlier`] aggregate, so a log of any number of sessions takes bounded
/// memory.
pub const KEEP_SESSIONS: usize = 1000;

/// Finished sessions folded together (beyond [`KEEP_SESSIONS`]): their
/// number, and one [`SessionSummary`] of their sums (turns, duration, cost,
/// tokens, calls, errors, per tool and per model), their worst outcome, and
/// producer, model and source when all of them share it.
#[derive(Clone, Debug, Default)]
pub struct Earlier {
    /// Sessions folded.
    pub count: u64,
    /// Their sums; `id` is `None`.
    pub summary: SessionSummary,
    /// How they ended.
    pub outcomes: Outcomes,
    /// Their cost: each one's, reported or estimated.
    pub cost: Cost,
}

impl Earlier {
    /// Fold in another fold, as if its sessions were folded one by one.
    fn merge(&mut self, other: &Earlier) {
        if other.count == 0 {
            return;
        }
        let (count, mut outcomes) = (self.count, self.outcomes);
        self.fold(&other.summary, other.summary.models(), other.cost);
        self.count = count + other.count;
        outcomes.merge(other.outcomes);
        self.outcomes = outcomes;
    }

    /// Fold in session `s` of cost `cost`, whose models with their shares
    /// of it are `models` ([`SessionSummary::priced_models`]).
    fn fold(&mut self, s: &SessionSummary, models: &Tally<ModelStats>, cost: Cost) {
        self.cost.usd = add_opt_f64(self.cost.usd, cost.usd);
        self.cost.estimated |= cost.estimated;
        self.cost.partial |= cost.partial || (cost.usd.is_none() && !s.tokens().is_empty());
        let a = &mut self.summary;
        if self.count == 0 {
            a.producer = s.producer;
            a.model.clone_from(&s.model);
            a.source.clone_from(&s.source);
        } else {
            if a.producer != s.producer {
                a.producer = None;
            }
            if a.model != s.model {
                a.model = None;
            }
            if a.source != s.source {
                a.source = None;
            }
        }
        self.count += 1;
        self.outcomes.add(s.outcome);
        a.outcome = a.outcome.max(s.outcome);
        a.results += s.results;
        a.tool_calls += s.tool_calls;
        a.tool_errors += s.tool_errors;
        a.denials += s.denials;
        a.unanswered += s.unanswered;
        a.forgotten_calls += s.forgotten_calls;
        a.messages += s.messages;
        a.skipped_lines += s.skipped_lines;
        a.copies += s.copies;
        a.total_turns = add_opt_u64(a.total_turns, s.total_turns);
        a.total_duration_ms = add_opt_u64(a.total_duration_ms, s.total_duration_ms);
        // Sums of what each session reports: `tokens()`, `models()` and
        // `cost()` of the aggregate read these.
        a.total_result_tokens.add(&s.tokens());
        a.message_models.merge(models);
        a.tools.merge(&s.tools);
    }
}

/// A sub-agent running: from its call until its answer. A call answered
/// before any line of its own came (Claude Code 2.1.330's "agent launched"
/// in the background) runs on until the turn ends.
#[derive(Debug)]
struct Running {
    /// The call (shared with the call table: no allocation).
    call: CallText,
    name: Arc<str>,
    /// What its lines are labelled with while others run beside it, made
    /// the first time it is needed.
    label: Option<Arc<str>>,
    /// A line of its own was seen.
    spoke: bool,
}

/// The state machine; see the module docs.
#[derive(Default)]
pub struct Session {
    done: std::collections::VecDeque<SessionSummary>,
    /// Finished sessions beyond the [`KEEP_SESSIONS`] most recent.
    earlier: Option<Earlier>,
    current: Option<SessionSummary>,
    /// The session in progress as another file showed it (see
    /// [`Session::begin_view`]).
    other_view: Option<SessionSummary>,
    /// The model last priced, and where the price table keeps it.
    last_priced: (String, Option<usize>),
    calls: HashMap<CallText, CallInfo>,
    /// Size of `calls` at which answered calls are next forgotten.
    prune_at: usize,
    /// Ids of main-agent calls not yet listed as never answered, in call
    /// order: a result looks only at these, not at every call of the
    /// session (a stream of many results stays linear).
    unreported: Vec<CallText>,
    /// Main-agent calls forgotten while open ([`KEEP_OPEN`]) since the last
    /// result: the next result reports them as a number.
    forgotten_unreported: u64,
    /// Tool names, shared by their calls (see [`KEEP_NAMES`]).
    names: HashSet<Arc<str>>,
    /// Where a call's id and key argument are joined.
    scratch: String,
    denied: HashSet<String>,
    /// Sub-agents running (see [`Running`]).
    running: Vec<Running>,
    last_model: Option<String>,
    last_permission_mode: Option<String>,
    /// A session start was seen for the current session.
    seen_header: bool,
    /// Work (text, tool calls) seen since the last result.
    active_since_result: bool,
    /// The input was cut in the middle of a line.
    cut: bool,
    /// The run was stopped by Ctrl-C.
    interrupted: bool,
    /// The input being read, for the sessions that start in it.
    source: Option<String>,
    /// Where its lines came from, when it merges several files (a
    /// session's and its sub-agents').
    origins: Option<Arc<Origins>>,
    /// The input is a saved file replayed: durations come from the
    /// events' timestamps.
    replaying: bool,
    /// Events were left out (`--since`, `--until`), last of the session
    /// `left_out_of` names: its results' totals, which count them, are
    /// not taken.
    left_out: bool,
    left_out_of: Option<String>,
    /// Lines skipped before the first session began.
    pending_skipped: u64,
    /// The prices a cost is estimated with; the bundled table when `None`.
    prices: Option<Arc<Prices>>,
    /// `--by`: the sessions' totals by day, project…
    groups: Option<group::Groups>,
    /// The zone of local times in the tables (`--tz`, `TZ`).
    zone: crate::time::zone::Zone,
    /// When API messages are checked for copies, and those seen.
    check: copies::Check,
    seen_messages: copies::Seen,
    note: Note,
    stats: Stats,
}

impl Session {
    /// A fresh state.
    #[must_use]
    pub fn new() -> Self {
        Session::default()
    }

    /// Add up the sessions by `by` too (`--by`).
    pub fn group_by(&mut self, groups: group::Groups) {
        self.groups = Some(groups);
    }

    /// Local times are said in `zone`.
    pub fn set_zone(&mut self, zone: crate::time::zone::Zone) {
        self.zone = zone;
    }

    /// The zone local times are said in.
    #[must_use]
    pub fn zone(&self) -> &crate::time::zone::Zone {
        &self.zone
    }

    /// Leave the check for copies of API messages to the run that takes
    /// this one's sessions in (`-j`: see `session::copies`).
    pub fn check_copies_later(&mut self) {
        self.check = copies::Check::Later;
    }

    /// The sessions' totals by day, project… (`--by`).
    #[must_use]
    pub fn groups(&self) -> Option<&group::Groups> {
        self.groups.as_ref()
    }

    /// Estimate costs with `prices` instead of the bundled table.
    pub fn set_prices(&mut self, prices: Arc<Prices>) {
        self.prices = Some(prices);
        self.last_priced = (String::new(), None);
    }

    /// The prices a cost is estimated with (see [`price`]).
    #[must_use]
    pub fn prices(&self) -> &Prices {
        match &self.prices {
            Some(p) => p,
            None => Prices::bundled(),
        }
    }

    /// What was learned from the last observed event.
    #[must_use]
    pub fn note(&self) -> &Note {
        &self.note
    }

    /// Counters over the whole input.
    #[must_use]
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The tool call with this id, if it was seen.
    #[must_use]
    pub fn call(&self, id: &str) -> Option<&CallInfo> {
        self.calls.get(id)
    }

    /// The session in progress (the last one, once the input has ended).
    #[must_use]
    pub fn current(&self) -> Option<&SessionSummary> {
        self.current.as_ref().or(self.done.back())
    }

    /// The sessions seen so far, finished ones first: the [`KEEP_SESSIONS`]
    /// most recent finished ones (see [`Session::earlier`]) and the one in
    /// progress.
    pub fn sessions(&self) -> impl Iterator<Item = &SessionSummary> {
        self.done.iter().chain(self.current.iter())
    }

    /// The session finished last (the one before the session in
    /// progress, once another has begun).
    #[must_use]
    pub fn last_finished(&self) -> Option<&SessionSummary> {
        self.done.back()
    }

    /// Finished sessions before those [`Session::sessions`] lists, folded
    /// into one aggregate; `None` until there are more than
    /// [`KEEP_SESSIONS`].
    #[must_use]
    pub fn earlier(&self) -> Option<&Earlier> {
        self.earlier.as_ref()
    }

    /// Keep a finished session; fold the oldest kept one when there are
    /// too many.
    fn keep(&mut self, mut s: SessionSummary) {
        if s.left_out && s.started.is_none() {
            // Nothing of it dated in the window (an old transcript's
            // `summary` lines, which carry no time): not in the report.
            return;
        }
        if let Some(view) = self.other_view.take() {
            s.merge_view(view);
        }
        if let copies::Check::Now = self.check {
            self.check_copies(&mut s);
            self.add_to_groups(&s);
        }
        self.keep_counted(s);
    }

    /// Take the copies of messages seen before out of `s`'s totals (see
    /// `session::copies`).
    fn check_copies(&mut self, s: &mut SessionSummary) {
        for k in std::mem::take(&mut s.keyed) {
            self.seen_messages.check(s, &k);
        }
    }

    /// Add a finished session to the groups (`--by`).
    fn add_to_groups(&mut self, s: &SessionSummary) {
        if let Some(g) = self.groups.as_mut() {
            let prices = match &self.prices {
                Some(p) => p,
                None => Prices::bundled(),
            };
            g.add(s, prices);
        }
    }

    /// Keep a session already added to the groups (or, when copies are
    /// checked later, to be added then).
    fn keep_counted(&mut self, s: SessionSummary) {
        self.done.push_back(s);
        if self.done.len() > KEEP_SESSIONS
            && let Some(mut old) = self.done.pop_front()
        {
            if let copies::Check::Later = self.check {
                // One file of more than KEEP_SESSIONS sessions under -j
                // (saved streams, which name no requests): what the
                // oldest keeps is not checked, and counts as it is.
                old.keyed = Vec::new();
                self.add_to_groups(&old);
            }
            let (models, cost) = (old.priced_models(self.prices()), old.cost(self.prices()));
            self.earlier
                .get_or_insert_default()
                .fold(&old, &models, cost);
        }
    }

    /// True when no event at all was observed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.stats.events == self.stats.plain_text && self.done.is_empty() && self.current.is_none()
    }

    /// Record that the input ended in the middle of a line: the producer was
    /// cut off, so the session cannot count as complete.
    pub fn mark_cut(&mut self) {
        self.cut = true;
    }

    /// Record that the run was stopped (Ctrl-C) before the input ended. The
    /// outcome is still decided from the events seen; sinks use this to say
    /// why the summary comes early.
    pub fn mark_interrupted(&mut self) {
        self.interrupted = true;
    }

    /// True when the run was stopped by Ctrl-C.
    #[must_use]
    pub fn is_interrupted(&self) -> bool {
        self.interrupted
    }

    /// Name the input being read from now on (a file name, `<stdin>`);
    /// sessions that start in it carry it in [`SessionSummary::source`].
    pub fn set_source(&mut self, name: &str) {
        self.source = Some(name.to_string());
        self.origins = None;
        self.left_out = false;
    }

    /// The input being read merges the lines of several files (see
    /// [`Origins`]): [`Session::origin`] tells them apart.
    pub fn set_origins(&mut self, origins: Option<Arc<Origins>>) {
        self.origins = origins;
    }

    /// Where line `line` of the input being read came from: the file (its
    /// name, and its place among the input's files: 0 is the input's
    /// own) and its line in that file; the input's own line unless it
    /// merges several files ([`Session::set_origins`]).
    #[must_use]
    pub fn origin(&self, line: u64) -> (&str, usize, u64) {
        let source = self.source.as_deref().unwrap_or("<stdin>");
        let Some(o) = &self.origins else {
            return (source, 0, line);
        };
        let (file, line) = o.of(line);
        let name = o.files().get(file).map_or(source, String::as_str);
        (name, file, line)
    }

    /// The input being read from now on is a saved file replayed (`true`)
    /// or arrives live (`false`, the default). A replay arrives all at
    /// once: a tool call's duration is then the time between the
    /// timestamps of the call and of its result, where the producer gives
    /// both (else it has none: its arrival times mean nothing).
    pub fn replaying(&mut self, replay: bool) {
        self.replaying = replay;
    }

    /// `ev` is left out (`--since`, `--until`): not observed, but its
    /// session's totals are then counted from the events observed (its
    /// usage), not taken from its results, which count everything.
    pub fn left_out(&mut self, ev: &Event<'_>) {
        if let Some(cur) = self.current.as_mut() {
            cur.left_out = true;
        }
        let id = ev.session.as_deref();
        if !self.left_out || self.left_out_of.as_deref() != id {
            self.left_out = true;
            self.left_out_of = id.map(str::to_string);
        }
    }

    /// The input being read (see [`Session::set_source`]); `None` before
    /// one is named (the library's `Feeder` names none).
    #[must_use]
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    /// The working directory of the session in progress, as its main
    /// agent's session start gave it.
    #[must_use]
    pub fn cwd(&self) -> Option<&str> {
        self.current.as_ref()?.cwd.as_deref()
    }

    /// Count a line the reader skipped (it never became an event), for the
    /// session in progress, or the next one when none has begun.
    pub fn skipped_line(&mut self) {
        self.stats.skipped += 1;
        match self.current.as_mut() {
            Some(cur) => cur.skipped_lines += 1,
            None => self.pending_skipped += 1,
        }
    }

    /// The number of sessions seen so far (finished ones and the one in
    /// progress); grows by one when a new session begins.
    #[must_use]
    pub fn session_count(&self) -> usize {
        let earlier = self.earlier.as_ref().map_or(0, |e| e.count);
        usize::try_from(earlier).unwrap_or(usize::MAX)
            + self.done.len()
            + usize::from(self.current.is_some())
    }

    /// Update the state with one event. Call before handing it to sinks.
    pub fn observe(&mut self, ev: &Event<'_>) {
        self.observe_at(ev, Instant::now());
    }

    /// [`Session::observe`] with the event's arrival time given (tests).
    pub fn observe_at(&mut self, ev: &Event<'_>, now: Instant) {
        self.note = Note::default();
        self.stats.events += 1;
        if let EventKind::PlainText(_) = ev.kind {
            self.stats.plain_text += 1;
            return;
        }
        self.switch_session_if_needed(ev);
        self.note.depth = self.depth_of(ev.parent.as_deref());
        if let Some(p) = ev.parent.as_deref() {
            let many = self.running.len() > 1;
            if let Some(a) = self.running.iter_mut().find(|r| r.call.id() == p) {
                // Its prompt (a transcript's sub-agent file begins with
                // it, before a background launch is answered) is not a
                // line of its own.
                a.spoke |= !matches!(&ev.kind, EventKind::Text(t) if t.role == Role::User);
                if many {
                    let key = a.call.text.get(a.call.id_len..).filter(|k| !k.is_empty());
                    let label = a.label.get_or_insert_with(|| agent_label(&a.name, key));
                    self.note.agent = Some(label.clone());
                }
            }
        }
        let (source, pending) = (&self.source, &mut self.pending_skipped);
        let cur = self.current.get_or_insert_with(|| SessionSummary {
            id: ev.session.as_deref().map(str::to_string),
            source: source.clone(),
            sources: source.iter().cloned().collect(),
            producer: Some(ev.producer),
            skipped_lines: std::mem::take(pending),
            ..SessionSummary::default()
        });
        if cur.id.is_none() {
            cur.id = ev.session.as_deref().map(str::to_string);
        }
        if cur.started.is_none() {
            cur.started = ev.time;
        }
        match &ev.kind {
            EventKind::SessionStart(s) => self.session_start(s),
            EventKind::Text(t) => {
                if t.role == Role::Assistant {
                    self.active_since_result = true;
                } else if cur.title.is_none() && ev.parent.is_none() {
                    cur.title = title(t);
                }
            }
            EventKind::Thinking(_) => self.active_since_result = true,
            EventKind::ToolCall(c) => self.tool_call(c, (now, ev.time)),
            EventKind::ToolResult(r) => self.tool_result(r, (now, ev.time)),
            EventKind::PermissionDenied(d) => self.denial(d),
            EventKind::Usage(u) => self.usage(u, ev.parent.is_none(), ev.time),
            EventKind::Result(r) => self.result(r),
            EventKind::Delta(_) => self.stats.deltas += 1,
            EventKind::Unknown(_) => self.stats.unknown += 1,
            EventKind::Notice(_) | EventKind::PlainText(_) => {}
        }
    }

    /// A session start: the model and permission mode, and whether the
    /// header is a new session's or a changed one.
    fn session_start(&mut self, s: &SessionStart<'_>) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let model = s.model.as_deref().map(str::to_string);
        let mode = s.permission_mode.as_deref().map(str::to_string);
        if cur.model.is_none() {
            cur.model.clone_from(&model);
        }
        // The main agent's; a sub-agent's when its file is read alone
        // (its start is nested), so its paths are shown relative too.
        if cur.cwd.is_none() {
            cur.cwd = s.cwd.as_deref().map(str::to_string);
        }
        self.note.new_session = !self.seen_header;
        cur.turns_begun += 1;
        self.note.header_changed = (model.is_some() && model != self.last_model)
            || (mode.is_some() && mode != self.last_permission_mode);
        self.seen_header = true;
        self.last_model = model;
        self.last_permission_mode = mode;
    }

    /// A tool call: counted and remembered (one allocation: its id and key
    /// argument) until its result.
    fn tool_call(&mut self, c: &ToolCall<'_>, (now, time): (Instant, Option<Timestamp>)) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        self.active_since_result = true;
        cur.tool_calls += 1;
        let name = intern(&mut self.names, &c.name);
        cur.tool(&name, c.kind).calls += 1;
        let depth = self.note.depth;
        let text = CallText::new(&c.id, c.key_arg.as_deref(), &mut self.scratch);
        if is_agent(&c.name) && self.running.len() < MAX_RUNNING {
            self.running.push(Running {
                call: text.clone(),
                name: name.clone(),
                label: None,
                spoke: false,
            });
        }
        if self.calls.len() >= self.prune_at.max(2 * KEEP_ANSWERED) {
            let forgotten = prune_calls(&mut self.calls, &mut self.unreported, cur.tool_calls);
            cur.forgotten_calls += forgotten;
            self.forgotten_unreported += forgotten;
            // Prune again only once as many more came.
            self.prune_at = 2 * self.calls.len();
        }
        // After the pruning, which keeps only the ids of calls it holds.
        if depth == 0 && !is_agent(&c.name) {
            self.unreported.push(text.clone());
        }
        self.calls.insert(
            text.clone(),
            CallInfo {
                name,
                kind: c.kind,
                key_arg: c.key_arg.is_some().then_some(KeyArg(text)),
                depth,
                answered: false,
                failed: false,
                seq: cur.tool_calls,
                reported: false,
                arrived: Some(now),
                time,
            },
        );
    }

    /// A tool result: paired with its call, which the note names.
    fn tool_result(&mut self, r: &ToolResult<'_>, (now, time): (Instant, Option<Timestamp>)) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        self.active_since_result = true;
        // A sub-agent's answer ends it; a launch in the background (no line
        // of its own yet) does not.
        if !self.running.is_empty() {
            self.running.retain(|a| a.call.id() != r.id || !a.spoke);
        }
        let denied = r.denied
            || (r.is_error && !self.denied.is_empty() && self.denied.contains(r.id.as_ref()));
        self.note.denied = denied;
        // A denied call's error result is counted as the denial it is.
        let failed = r.is_error && !denied;
        if failed {
            cur.tool_errors += 1;
        }
        if let Some(call) = self.calls.get_mut(r.id.as_ref()) {
            // A replay arrives at once: its arrival times say nothing
            // (and differ from one run to the next), its timestamps do.
            let elapsed = match (self.replaying, call.time, time) {
                (true, Some(a), Some(b)) => u64::try_from(b.millis() - a.millis())
                    .ok()
                    .map(Duration::from_millis),
                (true, ..) => None,
                (false, ..) => call.arrived.map(|a| now.saturating_duration_since(a)),
            };
            if !call.answered
                && let Some(elapsed) = elapsed
            {
                self.note.elapsed = Some(elapsed);
                cur.tool(&call.name, call.kind).time += elapsed;
            }
            call.answered = true;
            call.failed = failed;
            self.note.tool = Some(call.name.clone());
            self.note.tool_kind = Some(call.kind);
            self.note.key_arg.clone_from(&call.key_arg);
            if failed {
                cur.tool(&call.name, call.kind).errors += 1;
            }
        } else {
            if cur.forgotten_calls > 0 {
                // Most likely the answer to a call forgotten while open
                // (bounded memory): that one was answered after all.
                cur.forgotten_calls -= 1;
                self.forgotten_unreported = self.forgotten_unreported.saturating_sub(1);
            }
            if failed {
                // A result whose call was never seen (a log cut at the
                // front): counted, under an unknown name.
                cur.tool(&intern(&mut self.names, "?"), ToolKind::Other)
                    .errors += 1;
            }
        }
    }

    /// A permission denial: counted once however often it is reported.
    fn denial(&mut self, d: &Denial<'_>) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        let id = d.id.as_deref().unwrap_or("");
        // One denial can be reported three times (the tool result, a
        // system line, the result's list): count and show it once.
        if !id.is_empty() && !self.denied.insert(id.to_string()) {
            self.note.duplicate = true;
        } else {
            cur.denials += 1;
        }
        // Its error result came first and was counted as a failure: it
        // was this denial.
        if let Some(call) = self.calls.get_mut(id)
            && call.failed
        {
            call.failed = false;
            cur.tool_errors = cur.tool_errors.saturating_sub(1);
            let t = cur.tool(&call.name, call.kind);
            t.errors = t.errors.saturating_sub(1);
        }
        let call = self.calls.get(id);
        self.note.tool_kind = call.map(|c| c.kind);
        self.note.tool = match d.tool.as_deref() {
            Some(t) => Some(intern(&mut self.names, t)),
            None => call.map(|c| c.name.clone()),
        };
        self.note.key_arg = match d.key_arg.as_deref() {
            Some(k) => Some(KeyArg(CallText::new("", Some(k), &mut self.scratch))),
            None => call.and_then(|c| c.key_arg.clone()),
        };
        if !self.note.duplicate {
            let name = match &self.note.tool {
                Some(t) => t.clone(),
                None => intern(&mut self.names, "?"),
            };
            let kind = self.note.tool_kind.unwrap_or_default();
            cur.tool(&name, kind).denials += 1;
        }
    }

    /// The usage of one API message: summed for the main agent, per model
    /// for every agent, each message priced on its own. A message's later
    /// usage replaces its earlier one ([`Usage::replaces`]): each message
    /// counts once, finally.
    fn usage(&mut self, u: &Usage<'_>, main: bool, time: Option<Timestamp>) {
        let (counted, before) = self.counted(u);
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        if main {
            match &u.replaces {
                Some(before) => cur.message_tokens.sub(before),
                None => cur.messages += 1,
            }
            cur.message_tokens.add(&u.tokens);
        }
        cur.preliminary_output |= u.preliminary_output;
        let slot = u.model.as_deref().map(|model| {
            let slot = cur.message_models.slot(model);
            if let Some(row) = cur.message_models.at_mut(slot) {
                row.sub(&before.clone().unwrap_or_default());
                row.add(&counted);
            }
            slot
        });
        let bucket_of = |t: Timestamp| self.groups.as_ref().and_then(|g| g.bucket(t));
        let began = cur.started.and_then(bucket_of);
        let when = time.or(cur.started).and_then(bucket_of);
        let bucket = cur.count_when(when, began, slot, &counted);
        let main = main.then_some(u.tokens);
        let key = copies::Keyed::key(u);
        // A message counted before: out of the time bucket it counted in
        // (this line's, when it is not known).
        if let Some(before) = &before {
            let replaced = key.and_then(|k| {
                let e = cur.keyed.iter_mut().rev().find(|e| e.is(k))?;
                Some(e.replace(bucket, &counted, main))
            });
            cur.uncount_when(replaced.unwrap_or(bucket), slot, before);
            // Its key was kept (or checked) with its first counts.
            return;
        }
        // Counted, then taken back if it is a copy (see `copies`).
        if let Some(key) = key {
            let k = copies::Keyed::new((key, u), (slot, bucket), counted, main);
            cur.keyed.push(k);
        }
    }

    /// What a usage counts for its model (the output side left out where
    /// it is preliminary: Claude's stream), priced message by message,
    /// and what it replaces.
    fn counted(&mut self, u: &Usage<'_>) -> (ModelStats, Option<ModelStats>) {
        let priced = u.model.as_deref().filter(|_| !u.preliminary_output);
        let found = priced.and_then(|m| self.price_of(m));
        let count = |t: &Tokens, reported: Option<f64>| {
            let tokens = Tokens {
                output: t.output.filter(|_| !u.preliminary_output),
                ..*t
            };
            // What the agent reported the message cost counts as it is.
            let estimate = (found.and_then(|i| self.prices().model_at(i)))
                .filter(|_| reported.is_none())
                .map(|m| m.message(&tokens, price::Billing::of(u)));
            ModelStats {
                tokens,
                estimate,
                cost_usd: reported,
                ..ModelStats::default()
            }
        };
        let replaced = u.replaces.as_ref().map(|t| count(t, None));
        (count(&u.tokens, u.cost_usd), replaced)
    }

    /// Where the price table keeps `model`: looked up once for the messages
    /// of one model in a row (the name's buffer reused).
    fn price_of(&mut self, model: &str) -> Option<usize> {
        if self.last_priced.0 != model {
            let found = self.prices().find(model);
            self.last_priced.0.clear();
            self.last_priced.0.push_str(model);
            self.last_priced.1 = found;
        }
        self.last_priced.1
    }

    /// A result: the outcome and totals it reports, and the calls it leaves
    /// unanswered.
    fn result(&mut self, r: &SessionResult<'_>) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        self.active_since_result = false;
        self.running.clear();
        // Calls of the main agent still open when its turn ends never
        // ran (a budget or turn limit stopped the agent first).
        self.note.unanswered_forgotten = std::mem::take(&mut self.forgotten_unreported);
        for id in self.unreported.drain(..) {
            if let Some(c) = self.calls.get_mut(&id)
                && !c.answered
                && !c.reported
                && c.depth == 0
                && !is_agent(&c.name)
            {
                c.reported = true;
                self.note
                    .unanswered
                    .push((c.name.clone(), c.kind, c.key_arg.clone()));
            }
        }
        cur.results += 1;
        // A session whose header named no model (Droid's saved form, Cline's
        // stream): the one model its result counted under.
        if cur.model.is_none()
            && let [m] = &*r.model_usage
        {
            cur.model = Some(m.model.to_string());
        }
        self.note.more_results = cur.turns_begun > cur.results;
        // Counted where the result covers them all: a session's one
        // result (several can come together, after all their turns).
        let alone = cur.results == 1 && !self.note.more_results;
        self.note.turns = (alone && cur.messages > 0).then_some(cur.messages);
        // Several results in one session (Claude Code's background agents
        // each end a turn of their own): the worst one is the outcome.
        let outcome = if r.is_error {
            Outcome::Error
        } else {
            Outcome::Success
        };
        cur.outcome = cur.outcome.max(Some(outcome));
        if r.is_error {
            cur.error = r
                .text
                .as_deref()
                .map(str::to_string)
                .or_else(|| r.errors.first().map(std::string::ToString::to_string));
        }
        if self.left_out && self.left_out_of == cur.id {
            // Its totals count events left out: the usage observed counts.
            return;
        }
        cur.num_turns = r.num_turns.or(cur.num_turns);
        cur.duration_ms = r.duration_ms.or(cur.duration_ms);
        cur.cost_usd = r.cost_usd.or(cur.cost_usd);
        if !r.tokens.is_empty() {
            cur.result_tokens = Some(r.tokens);
        }
        cur.total_turns = add_opt_u64(cur.total_turns, r.num_turns);
        cur.total_duration_ms = add_opt_u64(cur.total_duration_ms, r.duration_ms);
        cur.total_result_tokens.add(&r.tokens);
        if !r.model_usage.is_empty() {
            // Cumulative: the last report replaces the earlier ones.
            cur.result_models = r
                .model_usage
                .iter()
                .map(|m| ModelStats {
                    model: m.model.to_string(),
                    tokens: m.tokens,
                    cost_usd: m.cost_usd,
                    estimate: None,
                })
                .collect();
        }
    }

    /// Close the input: decide the outcome of the session in progress.
    pub fn finish(&mut self) {
        if let Some(mut cur) = self.current.take() {
            self.close(&mut cur);
            self.keep(cur);
        }
    }

    /// A file of a session library has ended: its session ends with it
    /// (the next file is another session, even under the same id: a
    /// resumed session's copy), and lines skipped before it began belong
    /// to no session (the total counts them). Whether it ended complete
    /// is for the sinks to say before ([`Session::incomplete_if_ended`],
    /// [`Sink::input_end`](crate::render::Sink::input_end)): the next
    /// file's note does not.
    pub fn end_input(&mut self) {
        self.close_current();
        self.pending_skipped = 0;
    }

    /// Take in what `other` observed after this state's inputs, as if it
    /// had read them itself: its finished sessions after ours (folded
    /// beyond [`KEEP_SESSIONS`] as [`Session::finish`] folds them), its
    /// counters added. Both must be between inputs ([`Session::end_input`]):
    /// this is how `-j` puts together the library files read in parallel.
    pub fn absorb(&mut self, mut other: Session) {
        other.end_input();
        self.end_input();
        if let Some(e) = other.earlier.take() {
            // `other` alone had more than `KEEP_SESSIONS`: everything
            // before its kept ones is folded, ours first.
            let prices = match &self.prices {
                Some(p) => p,
                None => Prices::bundled(),
            };
            let ours = self.earlier.get_or_insert_default();
            for s in self.done.drain(..) {
                ours.fold(&s, &s.priced_models(prices), s.cost(prices));
            }
            ours.merge(&e);
        }
        if let (Some(ours), Some(theirs)) = (self.groups.as_mut(), other.groups.as_ref()) {
            ours.merge(theirs);
        }
        for mut s in other.done {
            // Checked for copies here, in the library's order, and then
            // added up (see `copies`).
            self.check_copies(&mut s);
            self.add_to_groups(&s);
            self.keep_counted(s);
        }
        let (a, b) = (&mut self.stats, &other.stats);
        a.events += b.events;
        a.deltas += b.deltas;
        a.unknown += b.unknown;
        a.plain_text += b.plain_text;
        a.skipped += b.skipped;
        self.interrupted |= other.interrupted;
    }

    /// How many sessions ended each way, the folded ones included.
    #[must_use]
    pub fn outcomes(&self) -> Outcomes {
        let mut all = self
            .earlier
            .as_ref()
            .map_or_else(Outcomes::default, |e| e.outcomes);
        for s in self.sessions() {
            all.add(s.outcome);
        }
        all
    }

    /// The worst outcome over all sessions; `None` when there was none.
    #[must_use]
    pub fn worst_outcome(&self) -> Option<Outcome> {
        let earlier = self.earlier.as_ref().and_then(|e| e.summary.outcome);
        self.sessions().filter_map(|s| s.outcome).max().max(earlier)
    }

    /// Calls that have not (yet) received a result, in no particular order.
    pub fn unanswered_calls(&self) -> impl Iterator<Item = (&str, &CallInfo)> {
        self.calls
            .iter()
            .filter(|(_, c)| !c.answered)
            .map(|(id, c)| (id.id(), c))
    }

    /// The call open longest, and how many other calls are open: what a
    /// stalled agent waits for (the live status line asks a few times a
    /// second; one pass over the calls kept). Calls already listed as never
    /// answered are over. A sub-agent's call (`Agent`, `Task`) is open as
    /// long as the sub-agent works, so it is named only when no tool call
    /// is open: the tool its sub-agent waits for says more.
    #[must_use]
    pub fn oldest_open_call(&self) -> Option<(&CallInfo, usize)> {
        let mut open = self.calls.values().filter(|c| !c.answered && !c.reported);
        let first = open.next()?;
        let (oldest, others) = open.fold((first, 0), |(old, n), c| {
            let older = (is_agent(&c.name), c.seq) < (is_agent(&old.name), old.seq);
            (if older { c } else { old }, n + 1)
        });
        Some((oldest, others))
    }

    fn close(&mut self, cur: &mut SessionSummary) {
        cur.unanswered =
            self.calls.values().filter(|c| !c.answered).count() as u64 + cur.forgotten_calls;
        if self.unfinished(cur) {
            cur.outcome = Some(Outcome::Incomplete);
        }
    }

    fn unfinished(&self, cur: &SessionSummary) -> bool {
        cur.results == 0 || self.active_since_result || self.cut
    }

    /// The session in progress would be incomplete if its input ended
    /// now: no result, or work after its last one.
    #[must_use]
    pub fn incomplete_if_ended(&self) -> bool {
        self.current.as_ref().is_some_and(|c| self.unfinished(c))
    }

    fn switch_session_if_needed(&mut self, ev: &Event<'_>) {
        let Some(cur) = self.current.as_ref() else {
            return;
        };
        let (Some(new_id), Some(cur_id)) = (ev.session.as_deref(), cur.id.as_deref()) else {
            return;
        };
        if new_id == cur_id {
            if cur.producer.is_some_and(|p| p != ev.producer) {
                self.begin_view();
            }
            return;
        }
        let starts = matches!(ev.kind, EventKind::SessionStart(_));
        if starts || cur.results > 0 {
            self.close_current();
        }
    }

    /// The session in progress goes on in a file of another producer: the
    /// same session as another view shows it (`codex exec --json` and its
    /// rollout, a Claude stream and its transcript). What this view counted
    /// is kept aside, and taken in when the session closes
    /// ([`SessionSummary::merge_view`]): each call and message once.
    fn begin_view(&mut self) {
        if let Some(mut view) = self.current.take() {
            self.close(&mut view);
            self.cut = false;
            if let Some(before) = self.other_view.take() {
                view.merge_view(before);
            }
            self.other_view = Some(view);
        }
    }

    /// Close the session in progress and forget its calls: the next event
    /// begins another.
    fn close_current(&mut self) {
        if let Some(mut old) = self.current.take() {
            self.close(&mut old);
            // A cut recorded so far belongs to the session being closed.
            self.cut = false;
            self.note.previous_incomplete = old.outcome == Some(Outcome::Incomplete);
            self.keep(old);
            self.calls.clear();
            self.unreported.clear();
            self.forgotten_unreported = 0;
            self.denied.clear();
            self.running.clear();
            self.last_model = None;
            self.last_permission_mode = None;
            self.active_since_result = false;
            self.seen_header = false;
        }
    }

    fn depth_of(&self, parent: Option<&str>) -> usize {
        match parent {
            None | Some("") => 0,
            Some(p) => self.calls.get(p).map_or(1, |c| c.depth + 1),
        }
    }
}

mod copies;
pub mod group;
pub mod price;
mod share;
mod tally;
#[cfg(test)]
mod tests;

/// More sub-agents running at once than anyone can follow: the later ones
/// are not labelled.
const MAX_RUNNING: usize = 64;

/// A sub-agent's label: its call's description (`general-purpose: Inspect
/// the code` → `Inspect the code`), else its type, at most 32 characters.
fn agent_label(name: &str, key_arg: Option<&str>) -> Arc<str> {
    let key = key_arg.unwrap_or(name);
    let short = key.split_once(": ").map_or(key, |(_, d)| d).trim();
    let short = if short.is_empty() { name } else { short };
    match short.char_indices().nth(32) {
        Some((i, _)) => Arc::from(format!("{}…", &short[..i]).as_str()),
        None => Arc::from(short),
    }
}

/// Sub-agent calls of newer CLIs return only when the sub-agent finishes,
/// which can be after a result: not "never ran".
fn is_agent(name: &str) -> bool {
    crate::event::is_subagent_tool(name)
}
