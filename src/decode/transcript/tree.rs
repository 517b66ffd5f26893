//! The conversation tree of a transcript: entries by `uuid`, each hung on
//! its `parentUuid`. A resume writes entries again (skipped by `uuid`); a
//! rewind hangs a new prompt or answer on an entry that already had one,
//! and what hung there before is an abandoned branch, described by
//! [`abandoned`].

use foldhash::HashMap;

/// Entries counted at most when a rewind describes the branch it leaves:
/// the count scans the entries read after the branch's first one, and a
/// crafted transcript of many rewinds must not make that quadratic.
pub(super) const MAX_BRANCH_SCAN: usize = 10_000;

/// The conversation tree: entries in the order they were read, and an index
/// by `uuid`.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Tree {
    index: HashMap<String, usize>,
    pub(super) nodes: Vec<Node>,
}

impl Tree {
    pub(super) fn contains_key(&self, uuid: &str) -> bool {
        self.index.contains_key(uuid)
    }

    pub(super) fn get(&self, uuid: &str) -> Option<&Node> {
        self.nodes.get(*self.index.get(uuid)?)
    }

    /// Add the entry `uuid` hung on `parent` (replacing one with the same
    /// uuid), which it becomes the live branch of when both are on the same
    /// side: a sub-agent's first entries can hang on the main conversation
    /// (a compaction agent's do), and they are not a branch of it.
    pub(super) fn hang(&mut self, uuid: &str, parent: Option<&str>, node: Node) {
        let parent = parent.and_then(|p| self.index.get(p).copied());
        let side = node.side;
        let node = Node { parent, ..node };
        let i = if let Some(&i) = self.index.get(uuid) {
            self.nodes[i] = node;
            i
        } else {
            let i = self.nodes.len();
            self.index.insert(uuid.to_string(), i);
            self.nodes.push(node);
            i
        };
        if let Some(pn) = parent.map(|p| &mut self.nodes[p])
            && pn.side == side
        {
            pn.child = Some(i);
        }
    }
}

/// One conversation entry of the tree.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Node {
    pub(super) line: u64,
    /// Position of the parent entry in [`Tree::nodes`] (always earlier).
    pub(super) parent: Option<usize>,
    /// Position of the entry hung on this one most recently (the live
    /// branch).
    pub(super) child: Option<usize>,
    /// A user entry that is not only tool results (a prompt, injected text).
    pub(super) prompt: bool,
    /// An assistant entry's message id.
    pub(super) msg: Option<String>,
    /// A sidechain (sub-agent) entry.
    pub(super) side: bool,
}

/// The branch that hung on the rewound entry, from `first` (its position
/// in [`Tree::nodes`]) on.
pub(super) fn abandoned(tree: &Tree, first: usize, from: u64) -> String {
    let start = tree.nodes[first].line;
    // Entries are in reading order and a parent comes before its children,
    // so one pass from the root finds the branch.
    let later = &tree.nodes[first..];
    let scanned = later.len().min(MAX_BRANCH_SCAN);
    let mut branch = vec![false; scanned];
    let (mut count, mut end) = (0u64, start);
    for (k, n) in later.iter().take(scanned).enumerate() {
        let hangs = n
            .parent
            .and_then(|p| p.checked_sub(first))
            .is_some_and(|p| branch.get(p).copied().unwrap_or(false));
        if k == 0 || hangs {
            branch[k] = true;
            count += 1;
            end = end.max(n.line);
        }
    }
    let at_least = if scanned < later.len() {
        "at least "
    } else {
        ""
    };
    let lines = if end == start {
        format!("line {start}")
    } else {
        format!("lines {start}–{end}")
    };
    format!(
        "rewind: the conversation goes on from line {from}; {at_least}{count} entr{} ({lines}) left on an abandoned branch",
        if count == 1 { "y" } else { "ies" }
    )
}
