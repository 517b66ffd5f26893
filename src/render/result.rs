//! `--format result`: only the final answer, for
//! `answer=$(claude … | streamview --format result)`.
//!
//! Per session, the text of its last successful result is written when the
//! session ends, followed by a newline. Producers whose result carries no
//! text (Gemini CLI) give their last main-agent assistant text before the
//! result instead. An error result writes nothing on stdout: its reason goes
//! to stderr with the other errors and denials (as `-q` writes them), and the
//! exit status (1; 3 when the stream ended without a result) tells the script.
//!
//! The text is written exactly as the producer sent it (like `jq -r`),
//! unless stdout is a terminal, where it is sanitized as in the pretty format.

use std::io::{self, Write};

use super::Sink;
use super::sanitize::sanitize;
use crate::event::{Event, EventKind, Role};
use crate::session::Session;

/// The `--format result` sink.
pub struct ResultText<W: Write, A: Sink> {
    out: W,
    alerts: A,
    sanitize: bool,
    /// Last main-agent assistant text since the last result (all its
    /// parts, when it came in parts).
    last_text: String,
    /// The last text said that its answer continues in the next.
    continued: bool,
    /// The answer of the session in progress.
    answer: Option<String>,
    /// Sessions seen, to notice when one ends and the next begins.
    sessions: usize,
}

impl<W: Write, A: Sink> ResultText<W, A> {
    /// Answers to `out` (sanitized when `sanitize`), everything else to
    /// `alerts` (a quiet pretty sink over stderr).
    pub fn new(out: W, alerts: A, sanitize: bool) -> Self {
        ResultText {
            out,
            alerts,
            sanitize,
            last_text: String::new(),
            continued: false,
            answer: None,
            sessions: 0,
        }
    }

    /// Give back the writer and the alert sink.
    pub fn into_inner(self) -> (W, A) {
        (self.out, self.alerts)
    }

    fn write_answer(&mut self) -> io::Result<()> {
        let Some(text) = self.answer.take() else {
            return Ok(());
        };
        let text = if self.sanitize {
            sanitize(&text)
        } else {
            text.as_str().into()
        };
        self.out.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl<W: Write, A: Sink> Sink for ResultText<W, A> {
    fn event(&mut self, ev: &Event<'_>, s: &Session) -> io::Result<()> {
        if s.session_count() != self.sessions {
            // A new session began: the previous one has said all it will.
            self.sessions = s.session_count();
            self.write_answer()?;
            self.last_text.clear();
            self.continued = false;
        }
        match &ev.kind {
            EventKind::Text(t)
                if t.role == Role::Assistant
                    && s.note().depth == 0
                    && (self.continued || !t.text.trim().is_empty()) =>
            {
                if !self.continued {
                    self.last_text.clear();
                }
                self.last_text.push_str(&t.text);
                self.continued = t.continues;
            }
            EventKind::Result(r) => {
                self.answer = if r.is_error {
                    None
                } else {
                    match r.text.as_deref().filter(|t| !t.trim().is_empty()) {
                        Some(t) => Some(t.to_string()),
                        None if !self.last_text.is_empty() => Some(self.last_text.clone()),
                        None => None,
                    }
                };
                self.last_text.clear();
                self.continued = false;
            }
            _ => {}
        }
        self.alerts.event(ev, s)
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        self.alerts.finish(s)?;
        self.write_answer()?;
        self.out.flush()
    }

    fn flush(&mut self) -> io::Result<()> {
        // A failed result's alert is written when the input pauses.
        self.alerts.flush()?;
        self.out.flush()
    }
}
