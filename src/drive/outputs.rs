//! Where a run writes: standard output and error, or a pager's input.

use std::io::{self, Write};

use crate::cli;
use crate::error;
use crate::render::sanitize::sanitize_line;

/// The run's standard output and error: the process's, or the pager's
/// input.
pub(super) struct Outputs {
    /// The pager's standard input, and whether it takes stderr's text too.
    pager: Option<(std::fs::File, bool)>,
}

impl Outputs {
    /// The process's own.
    pub(super) fn process() -> Outputs {
        Outputs { pager: None }
    }

    /// Into `pager`'s input.
    pub(super) fn paged(pager: &mut Pager) -> Outputs {
        let (child, takes_stderr) = &mut pager.0;
        Outputs {
            pager: child
                .stdin
                .take()
                .map(|stdin| (pipe_of(stdin), *takes_stderr)),
        }
    }

    /// A new handle on standard output.
    pub(super) fn stdout(&self) -> Box<dyn Write> {
        match self.pager.as_ref().map(|(p, _)| p.try_clone()) {
            Some(Ok(pipe)) => Box::new(pipe),
            _ => stdout_writer(),
        }
    }

    /// A new handle on standard error.
    pub(super) fn stderr(&self) -> Box<dyn Write> {
        match &self.pager {
            Some((p, true)) => match p.try_clone() {
                Ok(pipe) => Box::new(pipe),
                Err(_) => Box::new(io::stderr()),
            },
            _ => Box::new(io::stderr()),
        }
    }
}

/// A running pager, and whether it takes stderr's text too.
pub(super) struct Pager((std::process::Child, bool));

impl Pager {
    /// Start `pager` with a pipe on its standard input. When it cannot be
    /// started, the output goes to the terminal as without one, saying so
    /// when a variable named it (a missing built-in `less` is not worth a
    /// line).
    pub(super) fn spawn(pager: &cli::Pager) -> Option<Pager> {
        let mut cmd = std::process::Command::new(&pager.program);
        cmd.args(&pager.args).stdin(std::process::Stdio::piped());
        // Our output is UTF-8 whatever the locale says.
        if std::env::var_os("LESSCHARSET").is_none() {
            cmd.env("LESSCHARSET", "utf-8");
        }
        match cmd.spawn() {
            Ok(child) => Some(Pager((child, pager.takes_stderr))),
            Err(e) => {
                if let Some(var) = pager.named_by {
                    let line = format!(
                        "streamview: cannot run the pager `{}` ({var}): {}; showing the output \
                         without it (or use --paging never)",
                        pager.command_line(),
                        error::describe_io(&e)
                    );
                    let _ = writeln!(io::stderr(), "{}", sanitize_line(&line));
                }
                None
            }
        }
    }

    /// Wait for it to end: every end of its pipe must be closed first (the
    /// sinks gone), so that it has its end of file. Quitting it early made
    /// our writes fail with `BrokenPipe`, which ends the run quietly.
    pub(super) fn wait(mut self) {
        let _ = self.0.0.wait();
    }
}

/// The pager's standard input as a `File`, which can be cloned for each
/// writer.
fn pipe_of(stdin: std::process::ChildStdin) -> std::fs::File {
    #[cfg(unix)]
    {
        std::fs::File::from(std::os::fd::OwnedFd::from(stdin))
    }
    #[cfg(windows)]
    {
        std::fs::File::from(std::os::windows::io::OwnedHandle::from(stdin))
    }
}

/// Standard output for the sinks. On Unix a duplicate of fd 1 as a `File`:
/// `Stdout` reports success for writes that fail with `EBADF` (fd 1 opened
/// read-only), and output that cannot be written must be an error.
fn stdout_writer() -> Box<dyn Write> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(io::stdout().lock())
}
