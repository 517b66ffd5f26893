//! [`Feeder`]: the pipeline pushed from outside, chunk by chunk.

use crate::decode::{Decoded, Decoder, LineProblem};
use crate::event::Event;
use crate::input::Line;
use crate::session::Session;

use super::DEFAULT_MAX_LINE_BYTES;

/// Push-style use of the pipeline for programs that receive the stream in
/// chunks (from a child process, a socket…): feed bytes as they come, get
/// normalized events and the session state.
///
/// ```
/// use streamview::{Feeder, EventKind};
///
/// let mut feeder = Feeder::new();
/// let mut tools = Vec::new();
/// let stream = concat!(
///     r#"{"type":"assistant","session_id":"s1","message":{"id":"m1","content":["#,
///     r#"{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#, "\n",
///     r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01}"#,
/// );
/// // Chunks may split lines anywhere.
/// for chunk in stream.as_bytes().chunks(7) {
///     feeder.feed(chunk, &mut |ev, _session| {
///         if let EventKind::ToolCall(c) = &ev.kind {
///             tools.push(format!("{} {}", c.name, c.key_arg.as_deref().unwrap_or("")));
///         }
///     });
/// }
/// let session = feeder.finish(&mut |_, _| {});
/// assert_eq!(tools, ["Bash ls"]);
/// assert_eq!(session.worst_outcome(), Some(streamview::Outcome::Success));
/// assert_eq!(session.current().and_then(|s| s.cost_usd), Some(0.01));
/// ```
pub struct Feeder {
    pending: Vec<u8>,
    line: u64,
    max_line: usize,
    /// Bytes of an over-long line dropped so far (`Some` while discarding).
    discarding: Option<u64>,
    /// The last dropped byte of the over-long line was `\r`.
    discarded_cr: bool,
    decoder: Decoder,
    session: Session,
    problems: Vec<(u64, LineProblem)>,
}

impl Default for Feeder {
    fn default() -> Self {
        Feeder::new()
    }
}

impl Feeder {
    /// A feeder with the default line limit.
    #[must_use]
    pub fn new() -> Self {
        Feeder::with_max_line(DEFAULT_MAX_LINE_BYTES)
    }

    /// A feeder that skips lines longer than `max_line` bytes.
    #[must_use]
    pub fn with_max_line(max_line: usize) -> Self {
        Feeder {
            pending: Vec::new(),
            line: 0,
            max_line,
            discarding: None,
            discarded_cr: false,
            decoder: Decoder::new(),
            session: Session::new(),
            problems: Vec::new(),
        }
    }

    /// The session state so far.
    #[must_use]
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Lines skipped so far, with their numbers and reasons.
    #[must_use]
    pub fn problems(&self) -> &[(u64, LineProblem)] {
        &self.problems
    }

    /// Feed a chunk; every complete line in it is decoded at once.
    pub fn feed(&mut self, mut bytes: &[u8], on_event: &mut dyn FnMut(&Event<'_>, &Session)) {
        while let Some(pos) = memchr::memchr(b'\n', bytes) {
            let (head, rest) = (&bytes[..pos], &bytes[pos + 1..]);
            bytes = rest;
            self.line += 1;
            if let Some(n) = self.discarding.take() {
                let cr = match head.last() {
                    Some(b) => *b == b'\r',
                    None => self.discarded_cr,
                };
                let len = n + head.len() as u64 - u64::from(cr);
                self.session.skipped_line();
                self.problems.push((
                    self.line,
                    LineProblem::TooLong {
                        len,
                        max: self.max_line,
                    },
                ));
                continue;
            }
            if self.pending.is_empty() {
                self.process(head, false, on_event);
            } else {
                let mut line = std::mem::take(&mut self.pending);
                line.extend_from_slice(head);
                self.process(&line, false, on_event);
                line.clear();
                self.pending = line;
            }
        }
        if let Some(n) = self.discarding.as_mut() {
            *n += bytes.len() as u64;
            if let Some(b) = bytes.last() {
                self.discarded_cr = *b == b'\r';
            }
        } else {
            self.pending.extend_from_slice(bytes);
            if self.pending.len() > self.max_line.saturating_add(1) {
                self.discarded_cr = self.pending.last() == Some(&b'\r');
                self.discarding = Some(self.pending.len() as u64);
                self.pending = Vec::new();
            }
        }
    }

    /// End of input: decode an unterminated last line, close the session and
    /// return the final state.
    pub fn finish(mut self, on_event: &mut dyn FnMut(&Event<'_>, &Session)) -> Session {
        if let Some(n) = self.discarding.take() {
            self.line += 1;
            self.session.skipped_line();
            self.problems.push((
                self.line,
                LineProblem::TooLong {
                    len: n,
                    max: self.max_line,
                },
            ));
            self.session.mark_cut();
        } else if !self.pending.is_empty() {
            self.line += 1;
            let line = std::mem::take(&mut self.pending);
            self.process(&line, true, on_event);
        }
        let session = &mut self.session;
        let _ = self.decoder.finish(&mut |ev: &Event<'_>| {
            session.observe(ev);
            on_event(ev, session);
            Ok(())
        });
        self.session.finish();
        self.session
    }

    fn process(
        &mut self,
        bytes: &[u8],
        partial: bool,
        on_event: &mut dyn FnMut(&Event<'_>, &Session),
    ) {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let number = self.line;
        if bytes.len() > self.max_line {
            if partial {
                // As `Runner::skip`: the producer was cut off mid-line.
                self.session.mark_cut();
            }
            self.session.skipped_line();
            self.problems.push((
                number,
                LineProblem::TooLong {
                    len: bytes.len() as u64,
                    max: self.max_line,
                },
            ));
            return;
        }
        let line = Line {
            number,
            bytes,
            partial,
        };
        let session = &mut self.session;
        let res = self.decoder.decode(&line, &mut |ev: &Event<'_>| {
            session.observe(ev);
            on_event(ev, session);
            Ok(())
        });
        if let Ok(Decoded::Skipped(p)) = res {
            if partial {
                self.session.mark_cut();
            }
            self.session.skipped_line();
            self.problems.push((number, p));
        }
    }
}
