//! streamview: a live viewer and normalizer for AI coding-agent event streams.
//!
//! ```text
//! bytes ─▶ input::LineReader ─▶ decode::Decoder ─▶ event::Event ─▶ session::Session ─▶ filter::Filtered ─▶ render::Sink
//!          (memchr, one        (json: simd-json    (normalized     (correlation,       (--only, --hide,    (Pretty, Jsonl,
//!           reused buffer)      in place, long      model)          nesting, totals,    --tool; hidden      ResultText,
//!                               strings spared;                     outcome)            alerts → stderr)    SummarySink)
//!                               one module per
//!                               producer)
//! ```
//!
//! The modules stand on floors (`json` and `input` at the bottom, then
//! `event`, `decode`, `session`, `render`, …): each names only floors
//! below its own (`docs/architecture.md`; `tests/floors.rs` checks it).
//!
//! The session observes every event before the filter looks at it, so
//! totals, summaries and exit statuses do not depend on what is shown.
//!
//! The binary is a thin shell over [`run`](fn@run). Programs that receive a stream in
//! chunks use [`Feeder`]:
//!
//! ```
//! use streamview::{EventKind, Feeder, Outcome};
//!
//! let log = br#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"]}
//! {"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}
//! {"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":1}
//! "#;
//! let mut feeder = Feeder::new();
//! let mut texts = Vec::new();
//! feeder.feed(log, &mut |ev, _| {
//!     if let EventKind::Text(t) = &ev.kind {
//!         texts.push(t.text.to_string());
//!     }
//! });
//! let session = feeder.finish(&mut |_, _| {});
//! assert_eq!(texts, ["hi"]);
//! assert_eq!(session.worst_outcome(), Some(Outcome::Success));
//! ```

pub mod cli;
pub mod decode;
pub mod diag;
pub mod error;
pub mod event;
pub mod file;
pub mod filter;
pub mod input;
mod jobs;
mod json;
mod output;
pub mod parallel;
pub mod render;
pub mod run;
pub mod session;
pub mod time;

use std::io::{self, BufWriter, Write};
use std::sync::Arc;

pub use cli::{Format, Options};
pub use error::{Error, ExitStatus};
pub use event::{Event, EventKind, Producer};
pub use input::Interrupt;
use input::ReadAhead;
pub use run::{Feeder, Runner};
pub use session::{Outcome, Session};

use render::Sink;

/// Output buffer size: big enough that a saved log is written in large
/// blocks; the run loop flushes whenever input pauses.
const OUT_BUFFER: usize = 64 * 1024;

/// What a followed file says when it is read again from its start
/// (truncated, rewritten, replaced): one line on stderr, written in one
/// call from the reading thread (the output before it was flushed when
/// the reader began to wait).
fn follow_notice(name: &str) -> input::follow::Notice {
    let name = render::sanitize::sanitize_line(name).into_owned();
    Box::new(move |what: &str| {
        let line = format!(
            "streamview: {name}: {}\n",
            render::sanitize::sanitize_line(what)
        );
        let _ = io::stderr().write_all(line.as_bytes());
    })
}

/// Run streamview over the real stdin/files, stdout and stderr. `interrupt`
/// (set by the binary's SIGINT handler) stops the run, also one that waits
/// for input (see [`run_sink_with`]): the summary so far is printed and the
/// status is [`ExitStatus::Interrupted`].
///
/// # Errors
/// Output cannot be written ([`Error::is_broken_pipe`] tells a reader that
/// went away, which is not worth a message).
pub fn run(opts: &Options, interrupt: &Arc<Interrupt>) -> Result<ExitStatus, Error> {
    let mut pager = opts.pager.as_ref().and_then(spawn_pager);
    let to = Outputs {
        pager: pager
            .as_mut()
            .and_then(|(child, takes_stderr)| Some((pipe_of(child.stdin.take()?), *takes_stderr))),
    };
    let res = run_to(opts, interrupt, &to);
    drop(to);
    // Every end of the pipe is closed (the sinks are gone): the pager has
    // its end of file. Quitting it early made our writes fail with
    // `BrokenPipe`, which ends the run quietly.
    if let Some((mut child, _)) = pager {
        let _ = child.wait();
    }
    res
}

/// Where the run writes: standard output and error, or the pager's input.
struct Outputs {
    /// The pager's standard input, and whether it takes stderr's text too.
    pager: Option<(std::fs::File, bool)>,
}

impl Outputs {
    fn stdout(&self) -> Box<dyn Write> {
        match self.pager.as_ref().map(|(p, _)| p.try_clone()) {
            Some(Ok(pipe)) => Box::new(pipe),
            _ => stdout_writer(),
        }
    }

    fn stderr(&self) -> Box<dyn Write> {
        match &self.pager {
            Some((p, true)) => match p.try_clone() {
                Ok(pipe) => Box::new(pipe),
                Err(_) => Box::new(io::stderr()),
            },
            _ => Box::new(io::stderr()),
        }
    }
}

/// Start the pager with a pipe on its standard input. When it cannot be
/// started, the output goes to the terminal as without one, saying so
/// when a variable named it (a missing built-in `less` is not worth a
/// line).
fn spawn_pager(pager: &cli::Pager) -> Option<(std::process::Child, bool)> {
    let mut cmd = std::process::Command::new(&pager.program);
    cmd.args(&pager.args).stdin(std::process::Stdio::piped());
    // Our output is UTF-8 whatever the locale says.
    if std::env::var_os("LESSCHARSET").is_none() {
        cmd.env("LESSCHARSET", "utf-8");
    }
    match cmd.spawn() {
        Ok(child) => Some((child, pager.takes_stderr)),
        Err(e) => {
            if let Some(var) = pager.named_by {
                let _ = writeln!(
                    io::stderr(),
                    "{}",
                    render::sanitize::sanitize_line(&format!(
                        "streamview: cannot run the pager `{}` ({var}): {}; showing the output \
                         without it (or use --paging never)",
                        pager.command_line(),
                        error::describe_io(&e)
                    ))
                );
            }
            None
        }
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

/// [`run`] into `to`.
fn run_to(opts: &Options, interrupt: &Arc<Interrupt>, to: &Outputs) -> Result<ExitStatus, Error> {
    let stdout = jobs::Shared::new(BufWriter::with_capacity(OUT_BUFFER, to.stdout()));
    let mut diag = diag::Diag::new(to.stderr(), opts.verbosity == render::Verbosity::Verbose);
    let matched = std::rc::Rc::new(std::cell::Cell::new(0));
    let stderr = || to.stderr();
    let mut sink = output::sink(
        opts,
        output::Writers {
            stdout: Box::new(stdout.clone()),
            stderr: &stderr,
            matched: matched.clone(),
        },
    );
    let jobs = output::parallel(opts).then(|| jobs::Jobs {
        stdout: stdout.clone(),
        stderr: &stderr,
        matched: matched.clone(),
    });
    let status = run_jobs(opts, &mut sink, &mut diag, Some(interrupt), jobs.as_ref())?;
    // A search tells whether something matched, as grep does.
    Ok(match status {
        _ if opts.grep.is_none() => status,
        ExitStatus::Failure | ExitStatus::Interrupted => status,
        _ if matched.get() > 0 => ExitStatus::Success,
        _ => ExitStatus::SessionError,
    })
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

/// Run over `opts.sources` into any sink, reading on the calling thread.
///
/// # Errors
/// The sink cannot write.
pub fn run_sink<S: Sink + ?Sized, E: Write>(
    opts: &Options,
    sink: &mut S,
    diag: &mut diag::Diag<E>,
) -> Result<ExitStatus, Error> {
    run_sink_with(opts, sink, diag, None)
}

/// Run over `opts.sources` into any sink. With an `interrupt`, the run
/// stops when it is triggered: inputs whose reads can wait (pipes,
/// terminals, `--follow`) are read on a background thread
/// ([`input::ReadAhead`]) that the trigger wakes, regular files in place
/// ([`input::Checked`]). With `opts.status`, a live status line
/// ([`render::StatusLine`]) is drawn on standard output while input is
/// awaited.
///
/// # Errors
/// The sink cannot write.
pub fn run_sink_with<S: Sink + ?Sized, E: Write>(
    opts: &Options,
    sink: &mut S,
    diag: &mut diag::Diag<E>,
    interrupt: Option<&Arc<Interrupt>>,
) -> Result<ExitStatus, Error> {
    run_jobs(opts, sink, diag, interrupt, None)
}

/// [`run_sink_with`], reading the files of the directories named on
/// several threads when `jobs` says where their outputs go (`-j`).
fn run_jobs<S: Sink + ?Sized, E: Write>(
    opts: &Options,
    sink: &mut S,
    diag: &mut diag::Diag<E>,
    interrupt: Option<&Arc<Interrupt>>,
    jobs: Option<&jobs::Jobs<'_>>,
) -> Result<ExitStatus, Error> {
    // The live status line is drawn on standard output, which `opts.status`
    // says is a terminal.
    let status = if opts.status {
        render::StatusLine::on_stdout(opts.color_stdout, opts.status_wait)
    } else {
        None
    };
    let tick = status.as_ref().map(|_| render::status::TICK);
    let mut runner = output::runner(opts, sink, diag).with_status(status);
    // --follow: the run says when the session has finished, so that
    // following can end.
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    if opts.follow {
        runner = runner.with_finished_flag(finished.clone());
    }
    if opts.latest {
        let res = read_latest(&mut runner, opts, interrupt, tick, &finished);
        return match res {
            Ok(()) => Ok(runner.finish()?.1),
            Err(Error::Interrupted) => Ok(runner.interrupted()?.1),
            Err(e) => Err(e),
        };
    }
    for src in &opts.sources {
        let res = match src {
            input::Source::Path(dir) if !opts.follow && dir.is_dir() => {
                read_directory(&mut runner, opts, dir, interrupt, jobs)
            }
            _ => read_source(&mut runner, opts, src, interrupt, tick, &finished),
        };
        match res {
            Ok(()) => {}
            Err(Error::Interrupted) => return Ok(runner.interrupted()?.1),
            Err(e) => return Err(e),
        }
    }
    let (_, status) = runner.finish()?;
    Ok(status)
}

/// Read the session files below `dir` (a directory named as input), in the
/// order [`input::library`] gives; with `-v`, say how many files there were.
fn read_directory<S: Sink + ?Sized, E: Write>(
    runner: &mut Runner<'_, S, E>,
    opts: &Options,
    dir: &std::path::Path,
    interrupt: Option<&Arc<Interrupt>>,
    jobs: Option<&jobs::Jobs<'_>>,
) -> Result<(), Error> {
    let name = dir.display().to_string();
    let found = input::library::sessions_below(dir);
    for (d, e) in &found.unreadable {
        runner.open_failed(&d.display().to_string(), e);
    }
    say_not_regular(runner, &name, found.not_regular);
    if found.sessions.is_empty() {
        runner.empty_directory(&name, found.other_files);
        return Ok(());
    }
    let before = runner.found_without_session();
    // `--since`, `--until`: sessions wholly outside are not read.
    let (mut files, mut outside) = (0, 0);
    let mut sessions = Vec::with_capacity(found.sessions.len());
    for session in &found.sessions {
        if !session.may_overlap(&opts.window) {
            runner.session_outside();
            outside += 1;
            continue;
        }
        files += session.files();
        sessions.push(session);
    }
    match jobs {
        Some(jobs) => jobs.read(runner, opts, &sessions, interrupt)?,
        None => {
            for session in sessions {
                runner.library_session(session, true, interrupt)?;
            }
        }
    }
    if opts.verbosity == render::Verbosity::Verbose {
        let empty = runner.found_without_session() - before;
        let other = found.other_files;
        let skipped = if outside > 0 {
            format!(
                ", {outside} session{} {} skipped",
                if outside == 1 { "" } else { "s" },
                opts.window
            )
        } else {
            String::new()
        };
        runner.note(
            &name,
            &format!(
                "{files} session file{} read ({empty} without a session){skipped}, {other} other \
                 file{} left alone",
                if files == 1 { "" } else { "s" },
                if other == 1 { "" } else { "s" },
            ),
        );
    }
    Ok(())
}

/// Files below directory `name` named like logs but not regular files
/// (devices, FIFOs, sockets): left unread, said once.
fn say_not_regular<S: Sink + ?Sized, E: Write>(runner: &mut Runner<'_, S, E>, name: &str, n: u64) {
    if n > 0 {
        let s = if n == 1 { "" } else { "s" };
        runner.note(
            name,
            &format!("{n} file{s} named like logs left unread: not regular files (a device, a FIFO or a socket)"),
        );
    }
}

/// `--latest`: the most recent session below the directories named, said
/// on stderr, read (or followed) as if it had been named.
fn read_latest<S: Sink + ?Sized, E: Write>(
    runner: &mut Runner<'_, S, E>,
    opts: &Options,
    interrupt: Option<&Arc<Interrupt>>,
    tick: Option<std::time::Duration>,
    finished: &Arc<std::sync::atomic::AtomicBool>,
) -> Result<(), Error> {
    let dirs: Vec<&std::path::Path> = (opts.sources.iter())
        .filter_map(|s| match s {
            input::Source::Path(p) => Some(p.as_path()),
            input::Source::Stdin => None,
        })
        .collect();
    let mut sessions = Vec::new();
    let mut other_files = 0;
    let mut unreadable = false;
    for dir in &dirs {
        let found = input::library::sessions_below(dir);
        for (d, e) in &found.unreadable {
            runner.open_failed(&d.display().to_string(), e);
        }
        say_not_regular(runner, &dir.display().to_string(), found.not_regular);
        unreadable |= !found.unreadable.is_empty();
        sessions.extend(found.sessions);
        other_files += found.other_files;
    }
    let Some(session) = input::library::latest(sessions) else {
        if unreadable {
            // Said, with why (status 2).
            return Ok(());
        }
        let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        runner.empty_directory(&names.join(", "), other_files);
        return Ok(());
    };
    let name = session.file.display().to_string();
    if opts.follow {
        runner.note(&name, "the latest session; following it");
        return follow_session(runner, &session, interrupt, tick, finished);
    }
    runner.note(&name, "the latest session");
    runner.library_session(&session, false, interrupt)
}

/// `--latest -f`: follow a session's file with its sub-agents' files,
/// those created later too (see [`input::follow::FollowSession`]).
fn follow_session<S: Sink + ?Sized, E: Write>(
    runner: &mut Runner<'_, S, E>,
    session: &input::library::Session,
    interrupt: Option<&Arc<Interrupt>>,
    tick: Option<std::time::Duration>,
    finished: &Arc<std::sync::atomic::AtomicBool>,
) -> Result<(), Error> {
    let name = session.file.display().to_string();
    runner.replaying(false);
    // `<session>.jsonl` keeps its sub-agents in `<session>/subagents/`.
    let agents = session.file.with_extension("").join("subagents");
    let notice = follow_notice(&name);
    let opened =
        input::follow::FollowSession::open(session.file.clone(), agents, Arc::clone(finished))
            .map(|f| f.with_notice(notice))
            .and_then(|f| match interrupt {
                Some(intr) => Ok(
                    Box::new(ReadAhead::spawn(Box::new(f), intr)?.with_tick(tick))
                        as Box<dyn io::Read>,
                ),
                None => Ok(Box::new(f) as Box<dyn io::Read>),
            });
    match opened {
        Ok(rdr) => runner.source(&name, rdr),
        Err(e) => {
            runner.open_failed(&name, &e);
            Ok(())
        }
    }
}

/// Open one input and read it to its end.
fn read_source<S: Sink + ?Sized, E: Write>(
    runner: &mut Runner<'_, S, E>,
    opts: &Options,
    src: &input::Source,
    interrupt: Option<&Arc<Interrupt>>,
    tick: Option<std::time::Duration>,
    finished: &Arc<std::sync::atomic::AtomicBool>,
) -> Result<(), Error> {
    let name = src.display_name();
    // A saved file read at once; a followed one, a pipe, a terminal are
    // live.
    runner.replaying(!opts.follow && src.is_regular_file());
    let opened: io::Result<Box<dyn io::Read + Send>> = match src {
        input::Source::Path(p) if opts.follow => {
            let notice = follow_notice(&name);
            input::follow::open(p.clone(), Arc::clone(finished), notice).map(|(rdr, how)| {
                match how {
                    input::follow::Opened::Followed | input::follow::Opened::Stream => {}
                    input::follow::Opened::Waiting => {
                        runner.note(&name, "no such file yet; waiting for it to appear");
                    }
                    input::follow::Opened::NotFollowed(c) => runner.note(
                        &name,
                        &format!("{c}-compressed: read to its end, not followed"),
                    ),
                }
                rdr
            })
        }
        input::Source::Stdin if opts.follow => {
            Err(std::io::Error::other("standard input cannot be followed"))
        }
        _ => src.open(),
    };
    // With an interrupt: inputs that can make a read wait (pipes,
    // terminals, a followed file) are read on a thread that Ctrl-C can
    // wake; regular files in place, checked before each read.
    let opened = opened.and_then(|rdr| match interrupt {
        Some(intr) if !opts.follow && src.is_regular_file() => {
            Ok(Box::new(input::Checked::new(rdr, intr)) as Box<dyn io::Read>)
        }
        Some(intr) => {
            Ok(Box::new(ReadAhead::spawn(rdr, intr)?.with_tick(tick)) as Box<dyn io::Read>)
        }
        None => Ok(rdr as Box<dyn io::Read>),
    });
    match opened {
        Ok(rdr) => runner.source(&name, rdr),
        Err(e) => {
            runner.open_failed(&name, &e);
            Ok(())
        }
    }
}
