//! The parts of a raw JSON line that `--grep` never searches, found as the
//! raw matches ask: the keys of the line's top-level object that say who,
//! when and where (each producer's list, `Entry::unsearched` in the
//! decoder registry: `permissionMode`, `timestamp`, …), and their string
//! values.
//!
//! Only the top-level object: a key deeper down may be searched (a tool
//! call's input is searched as JSON text, its keys with it). Only these
//! keys: other top-level keys are written into what is searched by some
//! decoder (Codex's `questions` into its call's input; `OpenCode`'s
//! `rejected` next to the words "permission auto-rejected"; a
//! transcript's `type` in "transcript line of type …"; `agentId` in a
//! sub-agent's notice). Nor `sessionId`: a transcript's sub-agent whose
//! Agent call was not read gets a notice (`cat <session>.jsonl …`), and
//! the call's line, were it skipped for holding `session` only in its
//! `sessionId`, would bring that notice about where reading every line
//! does not.
//!
//! The line is read once, forward, as far as the last match asked about:
//! strings (their escapes skipped), and outside them the brackets that
//! nest. No allocation.

/// A line read as far as the matches ask (see the module docs).
pub(super) struct Unsearched<'a> {
    line: &'a [u8],
    /// The bytes before `at` are read.
    at: usize,
    /// Brackets open at `at`: 1 inside the top-level object.
    depth: u32,
    /// The top-level object is closed: what follows is no part of it.
    ended: bool,
    /// The next value at depth 1 is that of an unsearched key.
    skip_value: bool,
    /// The last string read: its text (`start..end`, `end` its closing
    /// quote) and whether it is never searched.
    last: (usize, usize, bool),
}

impl<'a> Unsearched<'a> {
    /// `None` when `line` is no JSON object (after a byte-order mark and
    /// whitespace, as the decoder trims it): plain text is searched whole.
    pub(super) fn new(line: &'a [u8]) -> Option<Self> {
        let bom = if line.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let at = bom + line[bom..].iter().position(|b| !b.is_ascii_whitespace())?;
        (line[at] == b'{').then_some(Unsearched {
            line,
            at,
            depth: 0,
            ended: false,
            skip_value: false,
            last: (0, 0, false),
        })
    }

    /// The raw match `start..end` lies inside the text of a string that
    /// is never searched. Matches are asked about in order, each after
    /// the one before (as `find_iter` gives them).
    pub(super) fn covers(&mut self, start: usize, end: usize) -> bool {
        if start < self.at {
            // Read already: only the last string can hold it.
            let (from, to, unsearched) = self.last;
            return unsearched && start >= from && end <= to;
        }
        loop {
            // Outside strings, up to the next one or to `start`.
            while self.at < start {
                match self.line[self.at] {
                    b'"' => break,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        self.ended |= self.depth == 0;
                    }
                    b',' if self.depth == 1 => self.skip_value = false,
                    _ => {}
                }
                self.at += 1;
            }
            if self.at >= start {
                // `start` is outside every string, or on an opening quote.
                return false;
            }
            let from = self.at + 1;
            let Some(to) = closing_quote(self.line, from) else {
                // Unterminated: not JSON the decoder reads; searched, then.
                self.at = self.line.len();
                self.last = (from, self.line.len(), false);
                return false;
            };
            self.at = to + 1;
            let unsearched = self.depth == 1 && !self.ended && self.classify(from, to);
            self.last = (from, to, unsearched);
            if to >= start {
                return unsearched && end <= to;
            }
        }
    }

    /// A string of the top-level object (its text `from..to`, its closing
    /// quote at `to`) is an unsearched key, or the string value of one.
    fn classify(&mut self, from: usize, to: usize) -> bool {
        let next = self.line[to + 1..]
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
        if next == Some(&b':') {
            self.skip_value = crate::decode::unsearched_key(&self.line[from..to]);
            self.skip_value
        } else {
            std::mem::take(&mut self.skip_value)
        }
    }
}

/// The quote that ends the string whose text starts at `from`.
fn closing_quote(line: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let i = from + memchr::memchr2(b'"', b'\\', line.get(from..)?)?;
        if line[i] == b'"' {
            return Some(i);
        }
        // An escape: the byte after the backslash is part of it.
        from = i + 2;
    }
}
