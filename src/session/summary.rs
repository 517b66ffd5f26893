//! What one session adds up to ([`SessionSummary`]): its identity, title,
//! times, outcome, turns, tools and models, and the totals derived from them.

use std::sync::Arc;

use crate::event::{Producer, Tokens, ToolKind};
use crate::time::Timestamp;

use super::{Cost, ModelStats, Outcome, Prices, Tally, ToolStats, copies, group};

/// Totals of one session.
#[derive(Clone, Debug, Default)]
pub struct SessionSummary {
    /// Session id.
    pub id: Option<String>,
    /// The input the session started in (see [`Session::set_source`](super::Session::set_source)).
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
    /// Open calls forgotten to bound memory ([`KEEP_OPEN`](super::KEEP_OPEN)): counted as
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
    pub(super) copied: Tokens,
    /// Messages not yet checked for copies ([`copies::Check::Later`]).
    pub(super) keyed: Vec<copies::Keyed>,
    /// `--by day|week|month|block`: the tokens of its API messages by
    /// the time they were answered (the local day, or for blocks the UTC
    /// hour: [`group::Groups::bucket`]) and the row of their model in
    /// `message_models`.
    pub(super) buckets: std::collections::BTreeMap<(i64, Option<usize>), ModelStats>,
    /// Events of it were left out by `--since`/`--until`: with no dated
    /// event kept, it is not in the report ([`Session::keep`]).
    pub(super) left_out: bool,
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
pub(super) fn bare_command(line: &str) -> bool {
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
    pub(super) fn count_when(
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
    pub(super) fn take_missing(&mut self, other: SessionSummary) {
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
    pub(super) fn uncount_when(
        &mut self,
        bucket: Option<i64>,
        slot: Option<usize>,
        counted: &ModelStats,
    ) {
        if let Some(t) = bucket.and_then(|b| self.buckets.get_mut(&(b, slot))) {
            t.sub(counted);
        }
    }

    /// The statistics of tool `name`, created on first use (of `kind`).
    pub(super) fn tool(&mut self, name: &Arc<str>, kind: ToolKind) -> &mut ToolStats {
        self.tools.entry(name, || ToolStats {
            name: name.clone(),
            kind,
            ..ToolStats::default()
        })
    }
}
