//! Streamed fragments (`--include-partial-messages`) printed as they
//! arrive, wrapped between words, and other output parked under an open line.

use std::io;

use termcolor::WriteColor;

use crate::event::{DeltaKind, EventKind};
use crate::render::lines::{Style, Styles, depth_width, paint, width, write_depth};
use crate::render::sanitize::sanitize;

use super::streamed::Streamed;
use super::{Alerts, Pretty};

/// Bytes of a word held back at most (see [`Pretty::delta`]): a longer run
/// of text without a space (a URL, an encoded blob) is no word to keep
/// whole.
pub(super) const MAX_WORD: usize = 256;

/// Bytes of other agents' output parked at most under an open line of
/// streamed text (see [`Pretty::parks`]): beyond, the line is cut.
pub(super) const MAX_PARKED: usize = 64 << 10;

/// A block being printed as its fragments arrive.
pub(super) struct Stream {
    pub(super) kind: DeltaKind,
    pub(super) depth: usize,
    pub(super) index: Option<u64>,
    /// What streamed so far, to recognise the complete block.
    pub(super) seen: Streamed,
    /// The cursor is at the end of this block's line (no other output since).
    pub(super) open: bool,
    /// Something visible was printed (leading newlines are dropped, as the
    /// complete block's rendering trims them).
    pub(super) started: bool,
    /// Newlines seen but not yet printed (trailing ones are dropped).
    pub(super) pending_newlines: usize,
    /// Columns taken on the current line (its prefix included), and what
    /// the prefix takes: on a terminal the text wraps between words.
    pub(super) col: usize,
    pub(super) indent: usize,
}

/// The output parked while a line of text was open (see
/// [`Pretty::parks`]), now that it ended.
pub(super) fn write_parked<W: WriteColor>(
    out: &mut W,
    parked: &mut Option<termcolor::Buffer>,
) -> io::Result<()> {
    if let Some(buf) = parked.as_mut().filter(|b| !b.is_empty()) {
        out.write_all(buf.as_slice())?;
        buf.clear();
        out.reset()?;
    }
    Ok(())
}

/// The sub-agent indentation of a line.
pub(super) fn write_prefix<W: WriteColor>(w: &mut W, st: &Styles, depth: usize) -> io::Result<()> {
    if depth > 0 {
        paint(w, st.spec(Style::Gutter))?;
        write_depth(w, depth)?;
        w.reset()?;
    }
    Ok(())
}

/// The line a streamed block writes on: on a terminal of `cols` columns,
/// its words go on the next line (under the same prefix) rather than be
/// cut at the edge; a space at the edge is the break.
pub(super) struct Line {
    depth: usize,
    thinking: bool,
    look: Style,
    cols: Option<usize>,
}

impl Line {
    /// Write `text` (whole words, and the spaces after them) on `stream`'s
    /// line.
    fn words<W: WriteColor>(
        &self,
        out: &mut W,
        st: &Styles,
        stream: &mut Stream,
        text: &str,
    ) -> io::Result<()> {
        let Some(cols) = self.cols else {
            return out.write_all(text.as_bytes());
        };
        let mut rest = text;
        while !rest.is_empty() {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let (word, after) = rest.split_at(end);
            let gap = after
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(after.len());
            let (space, next) = after.split_at(gap);
            let w = width(word);
            if stream.col > stream.indent && stream.col + w > cols {
                self.next_line(out, st, stream)?;
            }
            out.write_all(word.as_bytes())?;
            stream.col += w;
            if stream.col + width(space) > cols {
                self.next_line(out, st, stream)?;
            } else {
                out.write_all(space.as_bytes())?;
                stream.col += width(space);
            }
            rest = next;
        }
        Ok(())
    }

    /// Go on on the next line, under the block's prefix.
    fn next_line<W: WriteColor>(
        &self,
        out: &mut W,
        st: &Styles,
        stream: &mut Stream,
    ) -> io::Result<()> {
        out.reset()?;
        out.write_all(b"\n")?;
        write_prefix(out, st, self.depth)?;
        if self.thinking {
            paint(out, st.spec(Style::Thinking))?;
            out.write_all(b"  ")?;
        }
        paint(out, st.spec(self.look))?;
        stream.col = stream.indent;
        Ok(())
    }
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    /// Start streaming a block, its text beginning with `text`.
    pub(super) fn start_stream(
        &mut self,
        kind: DeltaKind,
        depth: usize,
        index: Option<u64>,
        text: &str,
    ) {
        self.word.clear();
        let mut seen = Streamed::new(&self.stream_keys);
        seen.push(text);
        self.stream = Some(Stream {
            kind,
            depth,
            index,
            seen,
            open: false,
            started: false,
            pending_newlines: 0,
            col: 0,
            indent: 0,
        });
    }

    /// The streamed block is over.
    pub(super) fn drop_stream(&mut self) {
        self.stream = None;
    }

    /// Print a text or thinking fragment at once, on the current line. Tool
    /// input fragments are not shown: the call is shown once complete.
    pub(super) fn delta(&mut self, d: &crate::event::Delta<'_>, depth: usize) -> io::Result<()> {
        let shown = match d.kind {
            DeltaKind::Text => true,
            DeltaKind::Thinking => self.verbose(),
            DeltaKind::ToolInput => false,
            DeltaKind::ToolStart => {
                // Another call's line: a result that comes now is not
                // under its own.
                self.last_call = None;
                return self.tool_start(d, depth);
            }
        };
        if !shown || self.quiet() {
            return Ok(());
        }
        let same = self
            .stream
            .as_ref()
            .is_some_and(|st| st.kind == d.kind && st.depth == depth && st.index == d.index);
        if same {
            if let Some(st) = self.stream.as_mut() {
                st.seen.push(&d.text);
            }
        } else {
            self.end_stream()?;
            self.start_stream(d.kind, depth, d.index, &d.text);
        }
        let cols = self.cols();
        let Some(stream) = self.stream.as_mut() else {
            return Ok(());
        };
        let thinking = d.kind == DeltaKind::Thinking;
        let text = sanitize(&d.text);
        let mut pieces = text.split('\n').peekable();
        while let Some(piece) = pieces.next() {
            // The piece ends its line: the word waiting is complete.
            let ends = pieces.peek().is_some();
            if !piece.is_empty() || (ends && !self.word.is_empty()) {
                if !stream.open || stream.pending_newlines > 0 {
                    if stream.open {
                        self.out.reset()?;
                        self.out.write_all(b"\n")?;
                        // The line ended: what other agents said meanwhile.
                        write_parked(&mut self.out, &mut self.parked)?;
                    }
                    // A new line of the block: its first, or one after a
                    // newline in the text or after other output.
                    write_prefix(&mut self.out, &self.st, depth)?;
                    if thinking {
                        paint(&mut self.out, self.st.spec(Style::Thinking))?;
                        let mark = if stream.started { "  " } else { "✻ " };
                        self.out.write_all(mark.as_bytes())?;
                    }
                    for _ in 1..stream.pending_newlines {
                        self.out.reset()?;
                        self.out.write_all(b"\n")?;
                        write_prefix(&mut self.out, &self.st, depth)?;
                    }
                    stream.pending_newlines = 0;
                    stream.indent = depth_width(depth) + if thinking { 2 } else { 0 };
                    stream.col = stream.indent;
                    stream.open = true;
                    stream.started = true;
                }
                let look = if thinking {
                    Style::Thinking
                } else {
                    Style::Plain
                };
                paint(&mut self.out, self.st.spec(look))?;
                // Never split a word: what follows the last space waits for
                // the rest of its word, so that a line cut by other output
                // (see `cut_stream_line`) is cut between two words.
                self.word.push_str(piece);
                let upto = match self.word.rfind(char::is_whitespace) {
                    _ if ends || self.word.len() > MAX_WORD => self.word.len(),
                    Some(i) => i + self.word[i..].chars().next().map_or(1, char::len_utf8),
                    None => 0,
                };
                let line = Line {
                    depth,
                    thinking,
                    look,
                    cols,
                };
                line.words(&mut self.out, &self.st, stream, &self.word[..upto])?;
                self.word.drain(..upto);
            }
            if ends && stream.started {
                stream.pending_newlines += 1;
            }
        }
        Ok(())
    }

    /// A tool call begins: its line starts now (`▸ Write`) and is completed
    /// by the call once its input has streamed ([`Pretty::tool_call`]).
    pub(super) fn tool_start(
        &mut self,
        d: &crate::event::Delta<'_>,
        depth: usize,
    ) -> io::Result<()> {
        if self.quiet() {
            return Ok(());
        }
        self.end_stream_line()?;
        let l = self.compose();
        l.push(Style::Tool, "▸ ");
        l.tool_name(Style::Tool, &d.text);
        l.end(depth);
        self.lines.write_open(&mut self.out, &self.st, 0)?;
        self.start_stream(DeltaKind::ToolStart, depth, d.index, &d.text);
        if let Some(st) = self.stream.as_mut() {
            st.open = true;
            st.started = true;
        }
        Ok(())
    }

    /// True while the line of a tool call started at `depth` is open.
    pub(super) fn tool_started(&self, depth: usize) -> bool {
        self.stream
            .as_ref()
            .is_some_and(|st| st.open && st.kind == DeltaKind::ToolStart && st.depth == depth)
    }

    /// The lines composed are parked until the line of text streaming above
    /// them ends: they are a deeper agent's (a sub-agent's), the line is
    /// open, and at most [`MAX_PARKED`] bytes wait (then the line is cut).
    pub(super) fn parks(&self) -> bool {
        self.would_park() && self.parked.as_ref().is_none_or(|b| b.len() < MAX_PARKED)
    }

    /// The lines composed would be parked but for [`MAX_PARKED`].
    pub(super) fn parks_over_bound(&self) -> bool {
        self.would_park() && self.parked.as_ref().is_some_and(|b| b.len() >= MAX_PARKED)
    }

    /// The lines composed are a deeper agent's, under an open line of text.
    pub(super) fn would_park(&self) -> bool {
        let deeper = |st: &Stream| self.lines.min_depth().is_some_and(|d| d > st.depth);
        !self.quiet()
            && self.stream.as_ref().is_some_and(|st| {
                st.open && st.started && st.kind != DeltaKind::ToolStart && deeper(st)
            })
    }

    /// The lines held back while a tool call's line was open.
    pub(super) fn write_held(&mut self) -> io::Result<()> {
        self.held.agent.clone_from(&self.lines.agent);
        let cols = self.cols();
        self.held.write_wrapped(&mut self.out, &self.st, 0, cols)?;
        self.held.clear();
        Ok(())
    }

    /// Other output follows: end the line of a block being streamed (the
    /// block may go on below it), the word it waits for the rest of
    /// written as it is. A line already cut keeps its word for the text
    /// that follows.
    pub(super) fn end_stream_line(&mut self) -> io::Result<()> {
        if self.stream.as_ref().is_some_and(|st| st.open) {
            self.write_word()?;
        }
        self.cut_stream_line(false)
    }

    /// The streamed block is over (or its input): its last word is
    /// written, on a line of its own if its line was cut.
    pub(super) fn end_stream(&mut self) -> io::Result<()> {
        self.write_word()?;
        self.cut_stream_line(false)
    }

    /// The start of a word streamed, written at the end of its line (it
    /// opens one of its own if the line was cut: `cut_stream_line`).
    pub(super) fn write_word(&mut self) -> io::Result<()> {
        let cols = self.cols();
        let Some(st) = self.stream.as_mut().filter(|_| !self.word.is_empty()) else {
            return Ok(());
        };
        let thinking = st.kind == DeltaKind::Thinking;
        if !st.open {
            write_prefix(&mut self.out, &self.st, st.depth)?;
            if thinking {
                paint(&mut self.out, self.st.spec(Style::Thinking))?;
                self.out.write_all("  ".as_bytes())?;
            }
            st.indent = depth_width(st.depth) + if thinking { 2 } else { 0 };
            st.col = st.indent;
            st.open = true;
        }
        let look = if thinking {
            Style::Thinking
        } else {
            Style::Plain
        };
        paint(&mut self.out, self.st.spec(look))?;
        let line = Line {
            depth: st.depth,
            thinking,
            look,
            cols,
        };
        line.words(&mut self.out, &self.st, st, &self.word)?;
        self.word.clear();
        Ok(())
    }

    /// End the line of a block being streamed, between two words: the
    /// word it waits for the rest of goes on on the next line, with that
    /// rest. `marked`: the line ends with a dimmed `…` (the text was cut,
    /// not ended).
    pub(super) fn cut_stream_line(&mut self, marked: bool) -> io::Result<()> {
        if let Some(st) = self.stream.as_mut()
            && st.open
        {
            st.open = false;
            // Newlines owed to the text are replaced by this line end.
            st.pending_newlines = 0;
            if st.kind == DeltaKind::ToolStart {
                // A call whose line was cut by other output: its complete
                // line comes later, this one says it is not the whole call.
                self.out.set_color(self.st.spec(Style::Dim))?;
                self.out.write_all(" …".as_bytes())?;
            } else if marked {
                // Text cut after a space: the rest of it comes below.
                self.out.set_color(self.st.spec(Style::Dim))?;
                self.out.write_all("…".as_bytes())?;
            }
            self.out.reset()?;
            self.out.write_all(b"\n")?;
            self.write_held()?;
            write_parked(&mut self.out, &mut self.parked)?;
        }
        Ok(())
    }

    /// True when `text` is the block just shown fragment by fragment. The
    /// streamed block ends here either way, unless `text` is a part of an
    /// answer that `continues` and it was shown: the rest of the answer then
    /// goes on streaming on the same line.
    pub(super) fn was_streamed(
        &mut self,
        kind: DeltaKind,
        text: &str,
        depth: usize,
        continues: bool,
    ) -> io::Result<bool> {
        let Some(st) = self.stream.as_ref() else {
            return Ok(false);
        };
        if st.depth != depth {
            // Another agent's block (a sub-agent's text while the main
            // agent streams): the streamed block is still going on.
            return Ok(false);
        }
        let same = st.kind == kind && st.seen.is(text);
        if same
            && continues
            && let Some(st) = self.stream.as_mut()
        {
            st.seen.reset();
            return Ok(true);
        }
        self.end_stream()?;
        self.drop_stream();
        Ok(same)
    }

    /// As the alert channel of a report (failed sessions only), an event
    /// that can only write to stdout (nothing) and changes nothing a later
    /// alert reads: text, thinking, a call, usage, when no streamed line is
    /// open. Not composed at all: a report over a library sends every
    /// event of every session here (3% of its instructions).
    pub(super) fn cannot_alert(&self, kind: &EventKind<'_>) -> bool {
        if self.alerts_only && self.alerts == Alerts::Counted {
            return true;
        }
        self.alerts_only
            && self.alerts == Alerts::Sessions
            && self.stream.is_none()
            && matches!(
                kind,
                EventKind::Text(_)
                    | EventKind::Thinking(_)
                    | EventKind::ToolCall(_)
                    | EventKind::Usage(_)
            )
    }

    /// True while a block is being streamed on the current line.
    pub(super) fn streaming(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.open)
    }
}
