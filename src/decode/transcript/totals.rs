//! What the reconstructed result of a transcript adds up: per chain of
//! entries (the main conversation, the sidechains) the usage of each API
//! message once, the last answer, and the session's time span and the
//! totals of its `cost-state` line. A transcript has no `result` line;
//! [`result`] builds one from these.

use foldhash::{HashMap, HashSet};
use std::borrow::Cow;

use crate::event::{List, ModelUsage, SessionResult, Tokens};
use crate::json::{Arena, Arr, J, Value, f64_at, str_at, u64_at, view};

/// Earliest and latest timestamp, in ms since the epoch.
#[derive(Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Span {
    pub(super) first: Option<i64>,
    pub(super) last: Option<i64>,
}

impl Span {
    pub(super) fn add(&mut self, t: i64) {
        self.first = Some(self.first.map_or(t, |f| f.min(t)));
        self.last = Some(self.last.map_or(t, |l| l.max(t)));
    }

    pub(super) fn merge(&mut self, other: Span) {
        for t in [other.first, other.last].into_iter().flatten() {
            self.add(t);
        }
    }

    pub(super) fn duration_ms(self) -> Option<u64> {
        u64::try_from(self.last? - self.first?).ok()
    }
}

/// What the reconstructed result needs from one chain of entries.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Acc {
    /// Usage per API message id, in order (its largest counts, as its
    /// `usage` events say: see `claude::MessageUsage`).
    pub(super) msgs: Vec<Msg>,
    pub(super) index: HashMap<String, usize>,
    pub(super) last: Option<Last>,
    /// A user entry (prompt, tool result) came after the last answer.
    pub(super) user_after: bool,
    pub(super) seen: bool,
}

/// One API message of a chain.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Msg {
    pub(super) tokens: Option<Tokens>,
    /// `costUSD` of the entry (Claude Code ≤ 1.0 wrote one per message).
    pub(super) cost: Option<f64>,
    /// A line of it had a `stop_reason`: its usage is the final one. Older
    /// CLIs (2.1.39 seen) saved the preliminary usage, `stop_reason` null.
    pub(super) complete: bool,
}

/// The last assistant message of a chain.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Last {
    pub(super) id: Option<String>,
    pub(super) stop_reason: Option<String>,
    /// The API error text, when the message is the CLI's error report.
    pub(super) error: Option<String>,
    /// Its last text block.
    pub(super) text: Option<String>,
    /// Its tool calls that have no result yet (a set: a crafted message
    /// can hold thousands, each answered on a line of its own).
    pub(super) open: HashSet<String>,
}

/// Totals of a `cost-state` line (newer CLIs write one when a session ends).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Cost {
    pub(super) usd: Option<f64>,
    pub(super) api_ms: Option<u64>,
    pub(super) models: Vec<ModelUsage<'static>>,
}

pub(super) fn cost_state(v: Value<'_>, a: &Arena) -> Cost {
    // Held past the line, so owned.
    let models = super::claude::model_usage(v, a)
        .iter()
        .map(|m| ModelUsage {
            model: Cow::Owned(m.model.to_string()),
            tokens: m.tokens,
            cost_usd: m.cost_usd,
        })
        .collect();
    Cost {
        usd: f64_at(v, "totalCostUSD"),
        api_ms: u64_at(v, "totalAPIDuration"),
        models,
    }
}

/// The result a transcript's session ended with, rebuilt: `None` when the
/// agent was still working (tools running, or the model not yet
/// answering), which makes the session incomplete.
pub(super) fn result(
    main: &Acc,
    side: &Acc,
    span: Span,
    cost: Option<Cost>,
) -> Option<SessionResult<'static>> {
    // A sub-agent's own file has only sidechain entries: they are its session.
    let acc = if main.seen { main } else { side };
    let last = acc.last.as_ref()?;
    if acc.user_after || !last.open.is_empty() {
        // The agent was still working: tools running, or the model not yet
        // answering. No result: the session is incomplete.
        return None;
    }
    let mut tokens = Tokens::default();
    for t in acc.msgs.iter().filter_map(|m| m.tokens.as_ref()) {
        tokens.add(t);
    }
    if acc.msgs.iter().any(|m| !m.complete) {
        // Some usage is the preliminary one: the output count is unknown.
        tokens.output = None;
    }
    let is_error = last.error.is_some();
    let cost = cost.or_else(|| {
        // Old transcripts price each message; sub-agents included.
        let costs: Vec<f64> = main
            .msgs
            .iter()
            .chain(&side.msgs)
            .filter_map(|m| m.cost)
            .collect();
        (!costs.is_empty()).then(|| Cost {
            usd: Some(costs.iter().sum()),
            api_ms: None,
            models: Vec::new(),
        })
    });
    let res = SessionResult {
        is_error,
        subtype: Some(Cow::Borrowed(if is_error {
            "api_error"
        } else {
            "transcript_end"
        })),
        text: last
            .error
            .clone()
            .or_else(|| last.text.clone())
            .map(Cow::Owned),
        errors: List::default(),
        num_turns: Some(acc.msgs.len() as u64),
        duration_ms: span.duration_ms(),
        duration_api_ms: cost.as_ref().and_then(|c| c.api_ms),
        cost_usd: cost.as_ref().and_then(|c| c.usd),
        tokens,
        model_usage: cost.map(|c| c.models).unwrap_or_default().into(),
        stop_reason: last.stop_reason.clone().map(Cow::Owned),
        terminal_reason: None,
        api_error_status: None,
        after_task: None,
    };
    Some(res)
}

impl Acc {
    /// The usage of API message `id` (its largest counts: the output count
    /// grows from line to line of a message).
    pub(super) fn count(
        &mut self,
        id: &str,
        tokens: Option<Tokens>,
        cost: Option<f64>,
        complete: bool,
    ) {
        if let Some(m) = self.index.get(id).and_then(|&i| self.msgs.get_mut(i)) {
            if tokens.map(|t| t.total()) > m.tokens.map(|t| t.total()) {
                m.tokens = tokens;
            }
            m.cost = cost.or(m.cost);
            m.complete |= complete;
        } else {
            self.index.insert(id.to_string(), self.msgs.len());
            self.msgs.push(Msg {
                tokens,
                cost,
                complete,
            });
        }
    }

    /// The last answer, continued when this line is of the same message.
    pub(super) fn last_of(&mut self, id: Option<&str>) -> &mut Last {
        let same = self
            .last
            .as_ref()
            .is_some_and(|l| l.id.is_some() && l.id.as_deref() == id);
        if same {
            self.last.get_or_insert_with(Last::default)
        } else {
            self.last.insert(Last {
                id: id.map(str::to_string),
                ..Last::default()
            })
        }
    }
}

impl Last {
    /// An answer's content: its last text, and its calls still open.
    pub(super) fn answer(&mut self, content: Option<Value<'_>>, blocks: Arr<'_>) {
        if let Some(J::Str(s)) = content.map(view) {
            self.text = Some(s.to_string());
        }
        for b in blocks {
            match str_at(b, "type").unwrap_or("") {
                "text" => self.text = str_at(b, "text").map(str::to_string),
                "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                    if let Some(i) = str_at(b, "id") {
                        self.open.insert(i.to_string());
                    }
                }
                t if t.ends_with("tool_result") => {
                    if let Some(i) = str_at(b, "tool_use_id") {
                        self.open.remove(i);
                    }
                }
                _ => {}
            }
        }
    }
}
