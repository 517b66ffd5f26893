//! The tool calls a session remembers to pair their results: the call's
//! text and key argument, sub-agents running, all bounded (pruned, interned).

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;
use std::time::Instant;

use foldhash::{HashMap, HashSet};

use crate::event::ToolKind;
use crate::time::Timestamp;

/// A call's id and key argument, in one allocation shared by the call
/// table's key, the call and the notes about it: remembering a call costs
/// one allocation (issue 13: the pretty and JSONL pipelines allocate at
/// most 0.5 times per line).
#[derive(Clone, Debug)]
pub(super) struct CallText {
    /// The id, then the key argument.
    pub(super) text: Arc<str>,
    pub(super) id_len: usize,
}

impl CallText {
    /// The text of a call; `scratch` is reused to join its parts.
    pub(super) fn new(id: &str, key_arg: Option<&str>, scratch: &mut String) -> Self {
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

    pub(super) fn id(&self) -> &str {
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
pub struct KeyArg(pub(super) CallText);

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
    /// replay, see [`Session::replaying`](super::Session::replaying)).
    pub time: Option<Timestamp>,
}

/// Answered tool calls remembered at least, per session (see
/// [`prune_calls`]).
pub(super) const KEEP_ANSWERED: usize = 4096;

/// Open calls remembered at most, per session (see `prune_calls`).
pub const KEEP_OPEN: usize = 4096;

/// Bound the memory of a long session: forget answered calls but the
/// [`KEEP_ANSWERED`] most recent (a late duplicate or denial of an older one
/// is all that could still refer to it), and open calls but the
/// [`KEEP_OPEN`] most recent (a stream of calls that are never answered
/// would otherwise grow without end). Returns how many of the open calls
/// forgotten would have been listed as never answered.
pub(super) fn prune_calls(
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
pub(super) const KEEP_NAMES: usize = 1024;

/// The shared copy of tool name `name` in `names`.
pub(super) fn intern(names: &mut HashSet<Arc<str>>, name: &str) -> Arc<str> {
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

/// A sub-agent running: from its call until its answer. A call answered
/// before any line of its own came (Claude Code 2.1.330's "agent launched"
/// in the background) runs on until the turn ends.
#[derive(Debug)]
pub(super) struct Running {
    /// The call (shared with the call table: no allocation).
    pub(super) call: CallText,
    pub(super) name: Arc<str>,
    /// What its lines are labelled with while others run beside it, made
    /// the first time it is needed.
    pub(super) label: Option<Arc<str>>,
    /// A line of its own was seen.
    pub(super) spoke: bool,
}

/// More sub-agents running at once than anyone can follow: the later ones
/// are not labelled.
pub(super) const MAX_RUNNING: usize = 64;

/// A sub-agent's label: its call's description (`general-purpose: Inspect
/// the code` → `Inspect the code`), else its type, at most 32 characters.
pub(super) fn agent_label(name: &str, key_arg: Option<&str>) -> Arc<str> {
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
pub(super) fn is_agent(name: &str) -> bool {
    crate::event::is_subagent_tool(name)
}
