//! Exit statuses and fatal errors.

use std::fmt;
use std::io;

use crate::session::Outcome;

/// The process exit status. [`ExitStatus::ALL`] with [`ExitStatus::code`]
/// and [`ExitStatus::meaning`] is the one table that `--help`, the man page
/// and the README (checked by `tests/generated.rs`) show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// 0: every session ended with a success result.
    Success,
    /// 1: a session ended with an error result.
    SessionError,
    /// 2: usage error or I/O error (a file cannot be opened or read, output cannot be written).
    Failure,
    /// 3: the input ended without a result event (agent crashed, stream cut off, empty input).
    Incomplete,
    /// 130: interrupted by SIGINT (Ctrl-C), after printing the summary so far.
    Interrupted,
}

impl ExitStatus {
    /// Every status, in the order of their codes.
    pub const ALL: [ExitStatus; 5] = [
        ExitStatus::Success,
        ExitStatus::SessionError,
        ExitStatus::Failure,
        ExitStatus::Incomplete,
        ExitStatus::Interrupted,
    ];

    /// What the status says, for people (`--help`, the man page, the
    /// README).
    #[must_use]
    pub fn meaning(self) -> &'static str {
        match self {
            ExitStatus::Success => {
                "the session ended with a success result (every session, when the input holds \
                 several); a report over several sessions (summary, --by, Markdown, HTML) was written"
            }
            ExitStatus::SessionError => {
                "a session ended with an error result: an API error, the turn or budget limit…"
            }
            ExitStatus::Failure => {
                "usage error; a file could not be opened or read; output could not be written"
            }
            ExitStatus::Incomplete => {
                "the input ended without a result event (the agent crashed or was killed, the \
                 stream was cut off, the input was empty), or the agent was still working after \
                 its last result"
            }
            ExitStatus::Interrupted => {
                "interrupted with Ctrl-C (SIGINT): the summary so far is printed first"
            }
        }
    }

    /// The numeric code.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::SessionError => 1,
            ExitStatus::Failure => 2,
            ExitStatus::Incomplete => 3,
            ExitStatus::Interrupted => 130,
        }
    }

    /// The status that tells how a session ended.
    #[must_use]
    pub fn from_outcome(o: Option<Outcome>) -> ExitStatus {
        match o {
            Some(Outcome::Success) => ExitStatus::Success,
            Some(Outcome::Error) => ExitStatus::SessionError,
            Some(Outcome::Incomplete) | None => ExitStatus::Incomplete,
        }
    }
}

/// True when `e`, or an error it wraps, is a closed pipe: a writer that
/// wraps the output (a serializer, a compressor) may hand it back inside
/// an error of its own (issue 18: `--format summary-json` into a closed
/// pipe exited 2).
fn is_broken_pipe(e: &io::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        cause = match c.downcast_ref::<io::Error>() {
            Some(e) if e.kind() == io::ErrorKind::BrokenPipe => return true,
            // Its `source()` skips the error it wraps.
            Some(e) => e.get_ref().map(|w| w as &(dyn std::error::Error + 'static)),
            // serde_json's `source()` skips the writer's error too.
            None if c
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(io::ErrorKind::BrokenPipe)) =>
            {
                return true;
            }
            None => c.source(),
        };
    }
    false
}

/// A fatal error: the run stops.
#[derive(Debug)]
pub enum Error {
    /// Output could not be written (a closed pipe is `BrokenPipe`).
    Write(io::Error),
    /// SIGINT arrived while reading (see [`crate::input::ahead`]): the
    /// caller prints the summary so far and exits with status 130.
    Interrupted,
}

impl Error {
    /// True for a reader that went away (`streamview … | head`): not an error.
    #[must_use]
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Error::Write(e) => is_broken_pipe(e),
            Error::Interrupted => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Write(e) => write!(f, "cannot write output: {}", describe_io(e)),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Write(e) => Some(e),
            Error::Interrupted => None,
        }
    }
}

pub use crate::file::describe_io;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_inside_another_error_is_still_a_closed_pipe() {
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(Error::Write(pipe()).is_broken_pipe());
        assert!(Error::Write(io::Error::other(pipe())).is_broken_pipe());
        let json = serde_json::to_writer(Closed, &[1]).unwrap_err();
        assert!(Error::Write(io::Error::other(json)).is_broken_pipe());
        assert!(!Error::Write(io::Error::other("disk on fire")).is_broken_pipe());
        assert!(!Error::Write(io::Error::from(io::ErrorKind::StorageFull)).is_broken_pipe());
    }

    struct Closed;

    impl io::Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}
