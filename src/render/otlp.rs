//! `--format otlp`: OpenTelemetry's OTLP/JSON, one export request per
//! line, the form the Collector's `otlpjsonfile` receiver reads and its
//! file exporter writes (`docs/otlp.md`). A filter like every format: no
//! network code; a collector tails the file or reads the pipe.
//!
//! Each session is a trace (the `GenAI` semantic conventions): an `invoke_agent`
//! root span, a `chat` span per model response, an `execute_tool` span per
//! tool call, an `invoke_agent` span per sub-agent under the call that
//! started it (`otlp/trace.rs`); at its end, its token and cost metrics
//! (`otlp/metrics.rs`). Ids are hashes of the session's, calls' and
//! messages' ids (`otlp/ids.rs`): the same session exported twice has the
//! same ids. Spans go out as they complete, a request every
//! 512 of them (`trace::BATCH`): a session of any length, a library of any
//! size, in bounded memory.

mod encode;
mod ids;
mod metrics;
mod options;
mod provider;
mod trace;

use std::io::{self, Write};

use crate::event::{Event, EventKind};
use crate::render::Sink;
use crate::session::{Outcome, Session, SessionSummary};

pub use options::OtlpOptions;

/// The OTLP sink.
pub struct Otlp<W: Write> {
    out: W,
    opts: OtlpOptions,
    /// The session being exported.
    trace: Option<trace::Trace>,
}

impl<W: Write> Otlp<W> {
    /// A sink writing to `out` (buffer it).
    pub fn new(out: W, opts: OtlpOptions) -> Self {
        Otlp {
            out,
            opts,
            trace: None,
        }
    }

    /// Give back the writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// End the session being exported as `sum` says.
    fn close(
        &mut self,
        sum: &SessionSummary,
        outcome: Option<Outcome>,
        s: &Session,
    ) -> io::Result<()> {
        let Some(t) = self.trace.take() else {
            return Ok(());
        };
        t.close(sum, outcome, s, &self.opts, &mut self.out)
    }
}

impl<W: Write> Sink for Otlp<W> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        if matches!(ev.kind, EventKind::PlainText(_)) || s.current().is_none() {
            return Ok(());
        }
        let number = s.session_count();
        if self.trace.as_ref().is_some_and(|t| t.number != number) {
            // This event began another session: the one before is the
            // last one finished, its outcome decided.
            if let Some(prev) = s.last_finished() {
                self.close(prev, prev.outcome, s)?;
            }
            self.trace = None;
        }
        let t = self
            .trace
            .get_or_insert_with(|| trace::Trace::begin(number, ev, s, self.opts.content));
        t.event(ev, s);
        if t.full() {
            t.take_request(&self.opts, &mut self.out)?;
        }
        Ok(())
    }

    fn input_end(&mut self, s: &Session) -> io::Result<()> {
        // The file's session ends with it, not yet closed: its outcome is
        // what closing it will decide.
        let Some(cur) = s.current() else {
            return Ok(());
        };
        let outcome = if s.incomplete_if_ended() {
            Some(Outcome::Incomplete)
        } else {
            cur.outcome
        };
        self.close(cur, outcome, s)
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        if let Some(cur) = s.current() {
            self.close(cur, cur.outcome, s)?;
        }
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
