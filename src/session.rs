//! Cross-event state: pairs tool results with their calls, tracks sub-agent
//! nesting, sums totals and decides how each session ended.
//!
//! [`Session::observe`] is called once per event, before the sinks see it;
//! sinks read the state (and the [`Note`] about the event just observed) but
//! never change it. One input may hold several sessions (concatenated logs):
//! a `session_start` with a new session id, or an event of another session
//! after a result, closes the current one.

use std::sync::Arc;
use std::time::Duration;

use foldhash::{HashMap, HashSet};

pub use calls::{CallInfo, KEEP_OPEN, KeyArg};
pub use counts::{Cost, ModelStats, ToolStats, add_opt_f64, add_opt_u64};
pub use earlier::{Earlier, KEEP_SESSIONS};
pub use outcome::{Outcome, Outcomes};
pub use price::Prices;
pub use summary::{SessionSummary, TITLE_CHARS};
pub use tally::{Row, Tally};

pub(crate) use summary::title;

use crate::event::{Event, ToolKind};
use crate::input::library::Origins;
use calls::{
    CallText, KEEP_ANSWERED, MAX_RUNNING, Running, agent_label, intern, is_agent, prune_calls,
};

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
}

mod calls;
mod close;
mod copies;
mod counts;
mod earlier;
pub mod group;
mod observe;
mod outcome;
pub mod price;
mod share;
mod summary;
mod tally;
#[cfg(test)]
mod tests;
