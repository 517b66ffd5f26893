//! When a session ends: at a new session id, at the end of an input or of
//! the run; what was left unanswered, and the outcome it ends with.

use crate::event::{Event, EventKind};

use super::{CallInfo, Outcome, Outcomes, Prices, Session, SessionSummary, is_agent};

impl Session {
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
    /// beyond [`KEEP_SESSIONS`](super::KEEP_SESSIONS) as [`Session::finish`] folds them), its
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

    pub(super) fn close(&mut self, cur: &mut SessionSummary) {
        cur.unanswered =
            self.calls.values().filter(|c| !c.answered).count() as u64 + cur.forgotten_calls;
        if self.unfinished(cur) {
            cur.outcome = Some(Outcome::Incomplete);
        }
    }

    pub(super) fn unfinished(&self, cur: &SessionSummary) -> bool {
        cur.results == 0 || self.active_since_result || self.cut
    }

    /// The session in progress would be incomplete if its input ended
    /// now: no result, or work after its last one.
    #[must_use]
    pub fn incomplete_if_ended(&self) -> bool {
        self.current.as_ref().is_some_and(|c| self.unfinished(c))
    }

    pub(super) fn switch_session_if_needed(&mut self, ev: &Event<'_>) {
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
    pub(super) fn begin_view(&mut self) {
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
    pub(super) fn close_current(&mut self) {
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
}
