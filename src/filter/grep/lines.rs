//! `--grep` for people: one line per match, `FILE:LINE:SESSION: ▸ Bash npm
//! test`, the match coloured; with `-C N` the events around each match
//! (`FILE-LINE-SESSION- …`, groups apart separated by `--`, as grep
//! writes them); with `-l` the names of the files with a match, with `-c`
//! each with its count (`FILE:COUNT`).
//!
//! FILE and LINE are where the event's line is: in a session read with its
//! sub-agents' files, the sub-agent's file and its line there
//! ([`Session::origin`]), so that an editor can jump to it. `-l` and `-c`
//! count a sub-agent's matches under its own file, as ripgrep would, and
//! name a session's files when it ends, the session's first, then its
//! sub-agents' in the order they began. A file without a match is not
//! named (as `rg -c`). The events around a match are the session's before
//! and after it, in the order they happened, whatever file each is in;
//! they do not reach into another input.

use std::cell::Cell;
use std::collections::VecDeque;
use std::io;
use std::rc::Rc;

use termcolor::{ColorSpec, WriteColor};

use super::{Grep, Listing, show};
use crate::event::Event;
use crate::render::Sink;
use crate::render::sanitize::sanitize_line;
use crate::session::Session;

/// The matches for people (see the module docs).
pub struct GrepLines<W: WriteColor> {
    out: W,
    grep: Grep,
    listing: Listing,
    scratch: String,
    matched: Rc<Cell<u64>>,
    /// `-l`, `-c`: the files of the input being read with a match, by
    /// their place among its files, and how many.
    counts: Vec<(usize, String, u64)>,
    /// `-C`: what is kept of the events before a match.
    around: Around,
}

/// `-C N`'s memory: the last events shown by none, and how many after a
/// match are still to be shown.
#[derive(Default)]
struct Around {
    /// Events that `--grep` shows, counted in the input being read.
    seq: u64,
    /// The input being read (context never reaches into another).
    source: String,
    /// The last events not shown, at most N: their number and line.
    before: VecDeque<(u64, Shown)>,
    /// Events after the last match still to be shown.
    after: usize,
    /// The number of the last event shown, in the input being read.
    last: Option<u64>,
    /// Something was written (a group apart from it gets `--` first).
    written: bool,
}

/// An event around a match, as it is written.
struct Shown {
    file: String,
    line: u64,
    session: Option<String>,
    text: String,
}

impl<W: WriteColor> GrepLines<W> {
    /// Matches of `grep` written to `out` as `listing` says, counted in
    /// `matched`.
    pub fn new(out: W, grep: Grep, listing: Listing, matched: Rc<Cell<u64>>) -> Self {
        GrepLines {
            out,
            grep,
            listing,
            scratch: String::new(),
            matched,
            counts: Vec::new(),
            around: Around::default(),
        }
    }

    /// The output, back.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// `FILE:LINE:SESSION:` (`-` in place of `:` for an event around a
    /// match), dimmed.
    fn prefix(
        &mut self,
        file: &str,
        line: u64,
        session: Option<&str>,
        sep: char,
    ) -> io::Result<()> {
        self.out.set_color(ColorSpec::new().set_dimmed(true))?;
        write!(self.out, "{}{sep}{line}{sep}", sanitize_line(file))?;
        if let Some(id) = session {
            let short: String = id.chars().take(8).collect();
            write!(self.out, "{}{sep}", sanitize_line(&short))?;
        }
        self.out.reset()
    }

    /// `-l`, `-c`: one more match in file `index` of the input, `name`.
    fn count(&mut self, index: usize, name: &str) {
        match self
            .counts
            .iter_mut()
            .find(|(i, n, _)| *i == index && n == name)
        {
            Some((_, _, c)) => *c += 1,
            None => self.counts.push((index, name.to_string(), 1)),
        }
    }

    /// `-l`, `-c`: name the files counted, the input's own first.
    fn write_counts(&mut self) -> io::Result<()> {
        let mut counts = std::mem::take(&mut self.counts);
        counts.sort_by_key(|(i, _, _)| *i);
        for (_, name, n) in &counts {
            match self.listing {
                Listing::Counts => writeln!(self.out, "{}:{n}", sanitize_line(name))?,
                _ => writeln!(self.out, "{}", sanitize_line(name))?,
            }
        }
        Ok(())
    }

    /// `-C`: an event that does not match, shown after a match or kept
    /// for the next one.
    fn not_matched(&mut self, ev: &Event<'_>, s: &Session, context: usize) -> io::Result<()> {
        let Some(text) = show::context_line(ev, s, &mut self.scratch) else {
            return Ok(());
        };
        self.around.seq += 1;
        let (file, _, line) = s.origin(ev.line);
        let shown = Shown {
            file: file.to_string(),
            line,
            session: ev.session.as_deref().map(str::to_string),
            text,
        };
        if self.around.after > 0 {
            self.around.after -= 1;
            self.around.last = Some(self.around.seq);
            return self.write_around(&shown);
        }
        self.around.before.push_back((self.around.seq, shown));
        if self.around.before.len() > context {
            self.around.before.pop_front();
        }
        Ok(())
    }

    /// `-C`: before a match, `--` when its group is apart from the last,
    /// and the events kept before it.
    fn before_match(&mut self, context: usize) -> io::Result<()> {
        self.around.seq += 1;
        let first = self
            .around
            .before
            .front()
            .map_or(self.around.seq, |(n, _)| *n);
        let joined = self.around.last.is_some_and(|l| l + 1 >= first);
        if self.around.written && !joined {
            self.out.set_color(ColorSpec::new().set_dimmed(true))?;
            write!(self.out, "--")?;
            self.out.reset()?;
            writeln!(self.out)?;
        }
        for (_, shown) in std::mem::take(&mut self.around.before) {
            self.write_around(&shown)?;
        }
        self.around.last = Some(self.around.seq);
        self.around.after = context;
        self.around.written = true;
        Ok(())
    }

    /// An event around a match: `FILE-LINE-SESSION- ▸ Bash ls`.
    fn write_around(&mut self, shown: &Shown) -> io::Result<()> {
        self.prefix(&shown.file, shown.line, shown.session.as_deref(), '-')?;
        writeln!(self.out, " {}", shown.text)?;
        self.around.written = true;
        Ok(())
    }

    /// `-C`: the input being read is `s`'s: a new one starts afresh.
    fn same_input(&mut self, s: &Session) {
        let source = s.source().unwrap_or_default();
        if self.around.source != source {
            self.around.source = source.to_string();
            self.new_input();
        }
    }

    /// What is kept of the events before does not reach into the next input.
    fn new_input(&mut self) {
        self.around.seq = 0;
        self.around.before.clear();
        self.around.after = 0;
        self.around.last = None;
    }
}

impl<W: WriteColor> Sink for GrepLines<W> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        let context = match self.listing {
            Listing::Matches { context } => context,
            Listing::Files | Listing::Counts => 0,
        };
        if context > 0 {
            self.same_input(s);
        }
        let Some((field, start, end)) = self.grep.find(ev, &mut self.scratch) else {
            return match context {
                0 => Ok(()),
                n => self.not_matched(ev, s, n),
            };
        };
        self.matched.set(self.matched.get() + 1);
        // The file and line the event came from (a sub-agent's, in a
        // session read with its sub-agents).
        let (file, index, line) = s.origin(ev.line);
        if matches!(self.listing, Listing::Files | Listing::Counts) {
            self.count(index, file);
            return Ok(());
        }
        if context > 0 {
            self.before_match(context)?;
        }
        self.prefix(file, line, ev.session.as_deref(), ':')?;
        show::matched(&mut self.out, &self.grep, ev, s, (&field, start, end))
    }

    fn input_end(&mut self, _s: &Session) -> io::Result<()> {
        self.new_input();
        self.around.source.clear();
        self.write_counts()
    }

    fn finish(&mut self, _s: &Session) -> io::Result<()> {
        self.write_counts()?;
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
