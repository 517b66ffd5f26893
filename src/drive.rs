//! The driver: what a run reads, in which order, on how many threads, into
//! which sink. A run's options come down here once:
//!
//! - `plan_run.rs`: a plan's steps taken into any sink (the runner, the
//!   live status line), what every run, the status line's and the
//!   redrawn report's included, goes through;
//! - `plan.rs`: the inputs named, made into steps (`Plan::of`): a file
//!   or a pipe read, a file followed, a library's sessions, the latest
//!   session; and the threads a library is read on;
//! - `sinks.rs`: the sink the format, `--grep`, `--summary`, the filters
//!   and `-q` ask for, and the [`Runner`](crate::run::Runner) that reads for it;
//! - `steps.rs`: each step taken on the calling thread;
//! - `jobs.rs`: a library's files read on `-j` threads, taken in order;
//! - `outputs.rs`: standard output and error, or the pager's input;
//! - `project.rs`: `--project`'s look at a session's first lines;
//! - `progress.rs`: the progress line of a long library read;
//! - `statusline.rs`: `--statusline`, Claude Code's status bar;
//! - `top.rs`: `--top`, the board of the sessions being written;
//! - `redraw.rs`: `--by … -f`, the report made again as the library grows.

mod jobs;
mod outputs;
mod plan;
mod plan_run;
mod progress;
mod project;
mod redraw;
mod sinks;
mod statusline;
mod steps;
mod top;

use std::io::{BufWriter, IsTerminal, Write};
use std::sync::Arc;

use crate::cli::Options;
use crate::diag::Diag;
use crate::error::{Error, ExitStatus};
use crate::input::{Interrupt, Source};
use crate::render;

use outputs::{Outputs, Pager};
use plan::Plan;
use plan_run::run_plan;
pub use plan_run::{run_sink, run_sink_with};

/// Output buffer size: big enough that a saved log is written in large
/// blocks; the run loop flushes whenever input pauses.
const OUT_BUFFER: usize = 64 * 1024;

/// What bare `streamview` says when standard input is a terminal: it waits
/// for events typed there, which is rarely what was meant.
pub const TERMINAL_HINT: &str = "reading events from the terminal (Ctrl-D ends them); pipe an \
agent in (claude -p \"…\" --output-format stream-json --verbose | streamview) or name a log \
file; --help shows more";

/// The hint to print before reading, given the inputs and whether standard
/// input is a terminal (passed in as data, so it is tested without one):
/// [`TERMINAL_HINT`] when standard input is the only input and a terminal.
#[must_use]
pub fn terminal_hint(sources: &[Source], stdin_is_terminal: bool) -> Option<&'static str> {
    (stdin_is_terminal && sources == [Source::Stdin]).then_some(TERMINAL_HINT)
}

/// Run streamview over the real stdin/files, stdout and stderr, through the
/// pager `opts` name. `interrupt` (set by the binary's SIGINT handler)
/// stops the run, also one that waits for input (see [`run_sink_with`]):
/// the summary so far is printed and the status is
/// [`ExitStatus::Interrupted`].
///
/// # Errors
/// Output cannot be written ([`Error::is_broken_pipe`] tells a reader that
/// went away, which is not worth a message).
pub fn run(opts: &Options, interrupt: &Arc<Interrupt>) -> Result<ExitStatus, Error> {
    if opts.statusline {
        return statusline::run(opts);
    }
    if opts.top {
        return top::run(opts, interrupt);
    }
    if opts.redraw {
        return redraw::run(opts, interrupt);
    }
    // Bare `streamview` at a prompt: say what it waits for, then wait.
    if !opts.follow
        && let Some(hint) = terminal_hint(&opts.sources, std::io::stdin().is_terminal())
    {
        let _ = writeln!(std::io::stderr(), "streamview: {hint}");
    }
    let mut pager = opts.pager.as_ref().and_then(Pager::spawn);
    let to = pager.as_mut().map_or_else(Outputs::process, Outputs::paged);
    let res = match opts.latest {
        Some(n) if n > 1 && opts.follow => follow_latest(opts, n, interrupt, &to),
        _ if opts.followed.is_empty() => run_to(opts, interrupt, &to),
        _ => follow_several(opts, interrupt, &to),
    };
    drop(to);
    if let Some(pager) = pager {
        pager.wait();
    }
    res
}

/// `-f A B …`: each file followed on a thread of its own by a run of its
/// own, every line it prints started with its label (`opts.followed`):
/// each run writes whole lines, one `write` each, so the runs never cut
/// each other's lines, and a line being streamed shows once it ends. Each
/// run says when its session ended; all end when every one has (or on
/// Ctrl-C, each with its summary so far). The status is the worst of
/// theirs.
fn follow_several(
    opts: &Options,
    interrupt: &Arc<Interrupt>,
    to: &Outputs,
) -> Result<ExitStatus, Error> {
    let runs: Vec<Options> = (opts.sources.iter().zip(&opts.followed))
        .map(|(src, label)| Options {
            sources: vec![src.clone()],
            label: Some(label.clone()),
            followed: Vec::new(),
            ..opts.clone()
        })
        .collect();
    run_each(&on_board(opts, runs), interrupt, to)
}

/// Several runs share one status line, each in its slot (when `opts`
/// draws one: a terminal), each run's own left off.
fn on_board(opts: &Options, mut runs: Vec<Options>) -> Vec<Options> {
    let labels: Vec<render::label::Label> = runs.iter().filter_map(|r| r.label.clone()).collect();
    let board = (opts.status && labels.len() == runs.len())
        .then(|| render::status::Board::on_stdout(&labels, opts.color_stdout))
        .flatten();
    for (i, r) in runs.iter_mut().enumerate() {
        r.status = false;
        r.board = board.as_ref().map(|b| (Arc::clone(b), i));
    }
    runs
}

/// `--latest N -f`: the N sessions that changed last, each followed with
/// its sub-agents by a run of its own, labelled as `-f A B …` labels its
/// files (by the session file's name: a UUID's first 8 characters). With
/// fewer than two found (or a directory that could not be read), the run
/// is `--latest -f`'s, which says why.
fn follow_latest(
    opts: &Options,
    n: usize,
    interrupt: &Arc<Interrupt>,
    to: &Outputs,
) -> Result<ExitStatus, Error> {
    let dirs: Vec<&std::path::Path> = (opts.sources.iter())
        .filter_map(crate::input::Source::path)
        .collect();
    let found = steps::candidates(opts, &dirs);
    let sessions: Vec<_> = crate::input::library::newest(found.sessions, n)
        .into_iter()
        .filter(|s| s.stored.is_none())
        .collect();
    if sessions.len() < 2 || !found.unreadable.is_empty() {
        return run_to(opts, interrupt, to);
    }
    let paths: Vec<&std::path::Path> = sessions.iter().map(|s| s.file.as_path()).collect();
    let base = opts.label.as_ref().map(|l| l.name.as_str());
    let names = render::label::names_of(&paths, base);
    let runs: Vec<Options> = (sessions.iter().zip(names).zip(&opts.followed))
        .map(|((session, name), label)| Options {
            sources: vec![crate::input::Source::Path(session.file.clone())],
            session: Some(session.clone()),
            latest: None,
            label: Some(render::label::Label {
                name,
                ..label.clone()
            }),
            followed: Vec::new(),
            ..opts.clone()
        })
        .collect();
    for r in &runs {
        if let (Some(l), Some(s)) = (&r.label, &r.session) {
            let _ = writeln!(
                std::io::stderr(),
                "streamview: {}: one of the {} latest sessions; following it as [{}]",
                render::sanitize::sanitize_line(&s.name()),
                runs.len(),
                l.name
            );
        }
    }
    run_each(&on_board(opts, runs), interrupt, to)
}

/// Each of `runs` on a thread of its own, writing into `to`: the worst of
/// their statuses.
fn run_each(
    runs: &[Options],
    interrupt: &Arc<Interrupt>,
    to: &Outputs,
) -> Result<ExitStatus, Error> {
    std::thread::scope(|scope| {
        let threads: Vec<_> = (runs.iter())
            .map(|o| {
                scope.spawn(move || {
                    let done = run_to(o, interrupt, to);
                    // Its slot of the shared status line says it ended.
                    if let Some((board, slot)) = &o.board {
                        board.end(*slot);
                    }
                    done
                })
            })
            .collect();
        let mut worst = Ok(ExitStatus::Success);
        for t in threads {
            let done = t.join().unwrap_or(Ok(ExitStatus::Failure));
            worst = match (worst, done) {
                (Err(e), _) | (_, Err(e)) => Err(e),
                (Ok(a), Ok(b)) => Ok(worse(a, b)),
            };
        }
        worst
    })
}

/// The worse of two statuses, as the README ranks them: 130, then 2, then
/// 3, then 1, then 0.
fn worse(a: ExitStatus, b: ExitStatus) -> ExitStatus {
    let rank = |s: ExitStatus| match s {
        ExitStatus::Success => 0,
        ExitStatus::SessionError => 1,
        ExitStatus::Incomplete => 2,
        ExitStatus::Failure => 3,
        ExitStatus::Interrupted => 4,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// [`run`] into `to`.
fn run_to(opts: &Options, interrupt: &Arc<Interrupt>, to: &Outputs) -> Result<ExitStatus, Error> {
    let plan = Plan::of(opts);
    // A long library read says how far it is; every output erases that
    // line first (dropped last: erased at the end).
    let progress = plan.progress.then(progress::Progress::start);
    let paged = opts.pager.is_some();
    let through = |w: Box<dyn Write>, terminal: bool| {
        let w = match &progress {
            Some(p) if paged => p.writer(w, progress::To::Pager),
            Some(p) if terminal => p.writer(w, progress::To::Terminal),
            _ => w,
        };
        // Several sources: their lines go round the status line they share.
        match &opts.board {
            Some((board, slot)) => board.terminal(*slot, w),
            None => w,
        }
    };
    let (out, err) = (through(to.stdout(), opts.wrap), through(to.stderr(), true));
    // `--label`: whole lines, each started with the label.
    let (out, err) = match &opts.label {
        Some(l) => (l.stdout(out), l.stderr(err)),
        None => (out, err),
    };
    let stdout = jobs::Shared::new(BufWriter::with_capacity(OUT_BUFFER, out));
    let mut diag = Diag::new(err, opts.verbosity == render::Verbosity::Verbose);
    let matched = std::rc::Rc::new(std::cell::Cell::new(0));
    let stderr = || match &opts.label {
        Some(l) => l.stderr(through(to.stderr(), true)),
        None => through(to.stderr(), true),
    };
    let library = sinks::over_library(opts);
    let mut sink = sinks::sink(
        opts,
        sinks::Writers {
            stdout: Box::new(stdout.clone()),
            stderr: &stderr,
            matched: matched.clone(),
            library,
        },
    );
    let jobs = (plan.threads > 1).then(|| jobs::Jobs {
        stdout: stdout.clone(),
        stderr: &stderr,
        matched: matched.clone(),
        library,
    });
    let status = run_plan(
        opts,
        &plan,
        &mut sink,
        &mut diag,
        Some(interrupt),
        (jobs.as_ref(), progress.as_ref()),
    )?;
    // A search tells whether something matched, as grep does.
    Ok(match status {
        _ if opts.grep.is_none() => status,
        ExitStatus::Failure | ExitStatus::Interrupted => status,
        _ if matched.get() > 0 => ExitStatus::Success,
        _ => ExitStatus::SessionError,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_terminal_hint_is_for_a_terminal_as_the_only_input() {
        let file = Source::Path(PathBuf::from("s.jsonl"));
        assert_eq!(terminal_hint(&[Source::Stdin], true), Some(TERMINAL_HINT));
        assert_eq!(terminal_hint(&[Source::Stdin], false), None);
        assert_eq!(terminal_hint(std::slice::from_ref(&file), true), None);
        assert_eq!(terminal_hint(&[file, Source::Stdin], true), None);
        assert_eq!(terminal_hint(&[], true), None);
    }
}
