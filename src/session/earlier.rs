//! Sessions beyond the ones kept whole ([`Earlier`]): folded into one row
//! of totals, so a run over any number of sessions keeps bounded memory.

use super::{Cost, ModelStats, Outcomes, SessionSummary, Tally, add_opt_f64, add_opt_u64};

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
    pub(super) fn merge(&mut self, other: &Earlier) {
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
    pub(super) fn fold(&mut self, s: &SessionSummary, models: &Tally<ModelStats>, cost: Cost) {
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
