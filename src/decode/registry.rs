//! The producers streamview reads, in one table (what a producer module
//! provides is in `producer.rs`).
//!
//! A producer is one module (`decode/<name>.rs`) that implements [`Format`]
//! (its names, its detection rule, whether a line opens its stream, and its
//! per-stream decoder, a [`Stream`]) and one line in [`REGISTRY`]. Detection
//! ([`detect`], [`opener`]), `--from` and the names of [`Producer`] (in
//! JSONL, `--help` and the man page) and the dispatch of lines all read this
//! table; nothing outside `decode/` asks which producer an event came from.
//!
//! `Producer` itself, the identity an event carries, is a word of the event
//! model (`event.rs`); its names are here, beside the decoders.

use std::fmt;
use std::sync::OnceLock;

use super::producer::{Entry, Evidence, Shape, Store};
use super::{
    amp, claude, cline, cline_session, codex, codex_rollout, copilot, crush, cursor, droid, gemini,
    gemini_session, grok, hermes, kilo, kimi, kimi_session, openclaw, opencode, pi, qwen,
    qwen_session, transcript,
};
use crate::event::Producer;
use crate::input::{Readers, StoreReader};
use crate::json::Value;

/// Every producer, in the order detection asks them: of two producers whose
/// rules both claim a line with the same [`Evidence`], the first wins.
pub(crate) static REGISTRY: [Entry; 23] = [
    qwen_session::ENTRY,
    transcript::ENTRY,
    copilot::ENTRY,
    droid::ENTRY,
    pi::ENTRY,
    cline::ENTRY,
    cline_session::ENTRY,
    codex::ENTRY,
    codex_rollout::ENTRY,
    kilo::ENTRY,
    opencode::ENTRY,
    gemini_session::ENTRY,
    gemini::ENTRY,
    qwen::ENTRY,
    claude::ENTRY,
    cursor::ENTRY,
    amp::ENTRY,
    kimi::ENTRY,
    kimi_session::ENTRY,
    grok::ENTRY,
    hermes::ENTRY,
    openclaw::ENTRY,
    crush::ENTRY,
];

/// `key` (raw, unescaped bytes) is one of a producer's
/// [`Entry::unsearched`] keys, or of streamview's own JSONL.
pub(crate) fn unsearched_key(key: &[u8]) -> bool {
    let listed = |keys: &[&str]| keys.iter().any(|k| k.as_bytes() == key);
    listed(super::native::UNSEARCHED) || REGISTRY.iter().any(|e| listed(e.unsearched))
}

/// The registry's entry for `p`.
#[inline]
pub(crate) fn entry(p: Producer) -> &'static Entry {
    // `Producer`'s variants are declared in this table's order (a test
    // checks it): its names are read for every JSONL line.
    &REGISTRY[p as usize]
}

/// The producer a single parsed line belongs to, when the line says so;
/// `None` for lines several producers share (`assistant`, `user`, `result`
/// without telltale fields) and for unknown shapes.
pub(crate) fn detect(v: Value<'_>) -> Option<Producer> {
    detect_shape(Shape::of(v))
}

fn detect_shape(s: Shape<'_>) -> Option<Producer> {
    let mut best: Option<(Evidence, Producer)> = None;
    for f in &REGISTRY {
        if let Some(e) = f.format.detect(s)
            && best.is_none_or(|(b, _)| e < b)
        {
            best = Some((e, f.producer));
        }
    }
    best.map(|(_, p)| p)
}

/// Every agent's store, in the documented order of its producers.
pub(crate) fn stores() -> impl Iterator<Item = &'static Store> {
    Producer::ALL
        .into_iter()
        .filter_map(|p| entry(p).store.as_ref())
}

/// The readers of the agents' stores, every entry's (in the registry's
/// order): what the driver hands down to the library walk and to whoever
/// opens a session's files (`input::store`).
#[must_use]
pub fn store_readers() -> Readers {
    static READERS: OnceLock<Vec<&'static dyn StoreReader>> = OnceLock::new();
    let all = READERS.get_or_init(|| REGISTRY.iter().filter_map(|e| e.store?.reader).collect());
    Readers(all)
}

/// The producer other than `reading` whose stream this line *starts*, for
/// lines that can only be the first of a stream (a session header); `None`
/// for any other line. Used to notice a second producer's log concatenated
/// after a first one without re-guessing on ordinary lines (Qwen also
/// prints Claude's `stream_event`, for instance).
pub(crate) fn opener(v: Value<'_>, reading: Producer) -> Option<Producer> {
    // Asked of every line once a producer is known: the rules first, then
    // detection only for the rare line that opens another producer's
    // stream. A line only `reading`'s rule opens (a transcript's metadata
    // lines, 30% of a library's) starts nothing else: detection could only
    // answer `reading`.
    let s = Shape::of(v);
    if !REGISTRY
        .iter()
        .any(|f| f.producer != reading && f.format.opens(s))
    {
        return None;
    }
    detect_shape(s).filter(|&p| p != reading && entry(p).format.opens(s))
}

impl Producer {
    /// The stable name used in JSONL (`"producer"`) and on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        entry(self).name
    }

    /// The agent, whichever form of its output this producer reads:
    /// `claude` for Claude Code's stream and its transcripts alike (the
    /// registry's names say the form after a `-`).
    #[must_use]
    pub fn agent(self) -> &'static str {
        let name = self.name();
        name.split_once('-').map_or(name, |(agent, _)| agent)
    }

    /// The product's name, for people.
    #[must_use]
    pub fn label(self) -> &'static str {
        entry(self).label
    }

    /// The command whose output this is (`--from`'s help).
    #[must_use]
    pub fn invocation(self) -> &'static str {
        entry(self).invocation
    }

    /// The producer that reads this one's agent's saved sessions, the
    /// agent's entry with a [`Store`] (`codex-rollout` for `codex`); `None`
    /// for an agent that keeps none.
    #[must_use]
    pub(crate) fn keeper(self) -> Option<Producer> {
        REGISTRY
            .iter()
            .find(|e| e.store.is_some() && e.producer.agent() == self.agent())
            .map(|e| e.producer)
    }

    /// Where this producer's agent keeps its saved sessions.
    #[must_use]
    pub(crate) fn store(self) -> Option<&'static Store> {
        self.keeper().and_then(|p| entry(p).store.as_ref())
    }

    /// Parse a name written by [`Producer::name`].
    #[must_use]
    pub fn from_name(s: &str) -> Option<Producer> {
        REGISTRY.iter().find(|f| f.name == s).map(|f| f.producer)
    }
}

impl fmt::Display for Producer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
