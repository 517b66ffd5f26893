//! How each event changes the session: a call remembered, its result
//! paired, a denial, tokens and cost counted, a result deciding the outcome.

use std::time::{Duration, Instant};

use crate::event::{
    Denial, Event, EventKind, Role, SessionResult, SessionStart, Tokens, ToolCall, ToolKind,
    ToolResult, Usage,
};
use crate::time::Timestamp;

use super::{
    CallInfo, CallText, KEEP_ANSWERED, KeyArg, MAX_RUNNING, ModelStats, Note, Outcome, Running,
    Session, SessionSummary, add_opt_u64, agent_label, copies, intern, is_agent, price,
    prune_calls, title,
};

impl Session {
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
    pub(super) fn session_start(&mut self, s: &SessionStart<'_>) {
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
    pub(super) fn tool_call(
        &mut self,
        c: &ToolCall<'_>,
        (now, time): (Instant, Option<Timestamp>),
    ) {
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
    pub(super) fn tool_result(
        &mut self,
        r: &ToolResult<'_>,
        (now, time): (Instant, Option<Timestamp>),
    ) {
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
                // A failed result whose call was never seen (a log cut at
                // the front; OpenClaw keeps no turn that called an unknown
                // tool): a call that failed, under an unknown name.
                cur.tool_calls += 1;
                let unknown = cur.tool(&intern(&mut self.names, "?"), ToolKind::Other);
                unknown.calls += 1;
                unknown.errors += 1;
            }
        }
    }

    /// A permission denial: counted once however often it is reported.
    pub(super) fn denial(&mut self, d: &Denial<'_>) {
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
    pub(super) fn usage(&mut self, u: &Usage<'_>, main: bool, time: Option<Timestamp>) {
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
            // A header without a model (Pi's, OpenClaw's, Crush's): the
            // session's model is its first answer's.
            if cur.model.is_none() {
                cur.model = u.model.as_deref().map(str::to_string);
            }
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
    pub(super) fn counted(&mut self, u: &Usage<'_>) -> (ModelStats, Option<ModelStats>) {
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
    pub(super) fn price_of(&mut self, model: &str) -> Option<usize> {
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
    pub(super) fn result(&mut self, r: &SessionResult<'_>) {
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

    pub(super) fn depth_of(&self, parent: Option<&str>) -> usize {
        match parent {
            None | Some("") => 0,
            Some(p) => self.calls.get(p).map_or(1, |c| c.depth + 1),
        }
    }
}
