//! Copies of API messages: a resumed Claude Code session saves the
//! messages it resumes from again in its new file, so totals over a
//! library would count them twice. A message is known by its message id
//! and request id together, as ccusage knows it (a message without both is
//! never a copy); the first sighting in the run's order keeps it, and each
//! later one is a copy: its tokens are taken back out of its session's
//! totals ([`take_back`]) and counted in [`SessionSummary::copies`].
//!
//! A sub-agent's file can also replay a message of its parent under a
//! request id of its own (Claude Code's `/btw` side questions): as ccusage
//! 20 does, a message id seen before is a copy too when either of the two
//! is a sub-agent's.
//!
//! Only the totals rebuilt from messages change (the sums over messages,
//! and a transcript's reconstructed result, see [`SessionSummary::tokens`],
//! and the cost a producer reported per message, which its session's
//! cost sums: Pi's and `OpenClaw`'s saved entries, keyed by response and
//! entry ids); what a producer reported itself for the session
//! (`modelUsage`, a cost) stands.
//!
//! A session keeps its messages' keys while it is read, and the check is
//! made once it has closed, in the order sessions are read: by the main
//! run when the session closes ([`Check::Now`]), or, for a file read on a
//! thread of its own under `-j` ([`Check::Later`]), when the main run
//! takes the file's sessions in
//! ([`Session::absorb`](super::Session::absorb)). So what is written
//! while a session is read (a result's estimate, the pretty view's end) is
//! the same on any thread, and so are the totals, byte for byte.
//!
//! Memory: the run keeps two 8-byte hashes per distinct keyed message (of
//! the two ids, and of the message id with a bit for a sub-agent's
//! sighting; a collision over a million messages has odds of 1 in 10^7):
//! 18 bytes with the tables' control bytes, up to twice that while a table
//! is less full.

use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

use foldhash::quality::FixedState;

use super::{ModelStats, SessionSummary};
use crate::event::{Tokens, Usage};

/// The hash messages are keyed by: fixed seeds, so the same key in every
/// run and thread; foldhash's higher quality (`SipHash`, before, cost 0.4%
/// of a report's time, for the same odds of a collision).
const IDS: FixedState = FixedState::with_seed(0x5eed_c0de_5eed_c0de);

/// A keyed message a session counted: what to take back if it is a copy.
#[derive(Clone, Debug)]
pub(super) struct Keyed {
    key: u64,
    /// The key of its message id alone.
    message: u64,
    /// A sub-agent's (a sidechain's) message.
    side: bool,
    /// The row of its model in [`SessionSummary::message_models`].
    model: Option<usize>,
    /// The time bucket it counts in for `--by` by time.
    bucket: Option<i64>,
    /// What the model's row counted of it.
    counted: ModelStats,
    /// Its tokens as the main agent's sums counted them (`None`: a
    /// sub-agent's message).
    main: Option<Tokens>,
}

impl Keyed {
    /// The key of `u`, when it names both its message and its request.
    pub(super) fn key(u: &Usage<'_>) -> Option<u64> {
        let (m, r) = (u.message_id.as_deref()?, u.request_id.as_deref()?);
        Some(IDS.hash_one((m, r)))
    }

    /// The key of `u`'s message id alone (`u` has a [`Keyed::key`]).
    fn message_key(u: &Usage<'_>) -> u64 {
        IDS.hash_one(u.message_id.as_deref().unwrap_or(""))
    }

    /// A message counted under key `key`, in the row of its model and
    /// (`--by` by time) its time bucket.
    pub(super) fn new(
        (key, u): (u64, &Usage<'_>),
        (model, bucket): (Option<usize>, Option<i64>),
        counted: ModelStats,
        main: Option<Tokens>,
    ) -> Keyed {
        Keyed {
            key,
            message: Self::message_key(u),
            side: main.is_none() || u.sidechain,
            model,
            bucket,
            counted,
            main,
        }
    }
}

impl Keyed {
    /// It is the message of key `key`.
    pub(super) fn is(&self, key: u64) -> bool {
        self.key == key
    }

    /// Its message, counted again with its final counts (see
    /// [`Usage::replaces`]): now in time `bucket`, as `counted`. The bucket
    /// it counted in before.
    pub(super) fn replace(
        &mut self,
        bucket: Option<i64>,
        counted: &ModelStats,
        main: Option<Tokens>,
    ) -> Option<i64> {
        self.counted = counted.clone();
        self.main = main;
        std::mem::replace(&mut self.bucket, bucket)
    }
}

/// When messages are checked; see the module docs.
#[derive(Debug, Default)]
pub(super) enum Check {
    /// Against the run's messages, when the session closes.
    #[default]
    Now,
    /// By the run that takes this one's sessions in.
    Later,
}

/// The keys of the messages seen in the run, and of their message ids
/// (whether one of them was a sub-agent's). The keys are hashes already:
/// the sets do not hash them again.
#[derive(Debug, Default)]
pub(super) struct Seen {
    keys: HashSet<u64, BuildHasherDefault<KeyHasher>>,
    /// A message id's key with its lowest bit set when a sub-agent's
    /// sighting was among its sightings: 8 bytes a message, where a map to
    /// a flag took 16.
    messages: HashSet<u64, BuildHasherDefault<KeyHasher>>,
}

impl Seen {
    /// Check `k` of session `s`: the first sighting is kept, a later one
    /// taken back. A sub-agent's file can also replay a message of its
    /// parent under a request id of its own (Claude Code's `/btw` side
    /// questions, ccusage's issue #913): a message id seen before is a
    /// copy when either sighting is a sub-agent's.
    pub(super) fn check(&mut self, s: &mut SessionSummary, k: &Keyed) {
        let new_key = self.keys.insert(k.key);
        let seen = self.message(k.message);
        let replay = new_key && seen.is_some_and(|side| side || k.side);
        match (seen, k.side) {
            (None, side) => {
                self.messages.insert(k.message & !1 | u64::from(side));
            }
            (Some(false), true) => {
                self.messages.remove(&(k.message & !1));
                self.messages.insert(k.message | 1);
            }
            _ => {}
        }
        if !new_key || replay {
            take_back(s, k);
        }
    }

    /// Whether message key `m` was seen, and if so whether a sub-agent's
    /// sighting was among them.
    fn message(&self, m: u64) -> Option<bool> {
        if self.messages.contains(&(m | 1)) {
            Some(true)
        } else {
            self.messages.contains(&(m & !1)).then_some(false)
        }
    }
}

/// Take a copy's tokens back out of its session's totals.
fn take_back(s: &mut SessionSummary, k: &Keyed) {
    s.copies += 1;
    if let Some(row) = k.model.and_then(|i| s.message_models.at_mut(i)) {
        row.sub(&k.counted);
    }
    if let Some(t) = k.bucket.and_then(|b| s.buckets.get_mut(&(b, k.model))) {
        t.sub(&k.counted);
    }
    if let Some(t) = &k.main {
        s.messages = s.messages.saturating_sub(1);
        s.message_tokens.sub(t);
        s.copied.add(t);
    }
    // The cost the agent reported for the message (Pi's, `OpenClaw`'s)
    // is in the session's cost, which its result summed from them.
    if let (Some(total), Some(c)) = (s.cost_usd.as_mut(), k.counted.cost_usd) {
        *total = (*total - c).max(0.0);
    }
}

/// The identity over a key that is a hash already.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used; anything else folds in FNV-style.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
