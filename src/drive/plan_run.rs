//! A run's plan taken into any sink: the runner made for the options, the
//! live status line drawn while input is awaited, each step taken on the
//! calling thread (or a library's files on `-j` threads), the end.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::plan::{Plan, Step};
use super::{jobs, progress, sinks, steps};
use crate::cli::Options;
use crate::diag::Diag;
use crate::error::{Error, ExitStatus};
use crate::input::Interrupt;
use crate::render::{self, Sink};
use crate::run::Runner;

/// Run over `opts.sources` into any sink, reading on the calling thread.
///
/// # Errors
/// The sink cannot write.
pub fn run_sink<S: Sink + ?Sized, E: Write>(
    opts: &Options,
    sink: &mut S,
    diag: &mut Diag<E>,
) -> Result<ExitStatus, Error> {
    run_sink_with(opts, sink, diag, None)
}

/// Run over `opts.sources` into any sink, on the calling thread. With an
/// `interrupt`, the run stops when it is triggered: inputs whose reads can
/// wait (pipes, terminals, `--follow`) are read on a background thread
/// ([`crate::input::ReadAhead`]) that the trigger wakes, regular files in
/// place ([`crate::input::Checked`]). With `opts.status`, a live status
/// line ([`render::StatusLine`]) is drawn on standard output while input
/// is awaited.
///
/// # Errors
/// The sink cannot write.
pub fn run_sink_with<S: Sink + ?Sized, E: Write>(
    opts: &Options,
    sink: &mut S,
    diag: &mut Diag<E>,
    interrupt: Option<&Arc<Interrupt>>,
) -> Result<ExitStatus, Error> {
    run_plan(opts, &Plan::of(opts), sink, diag, interrupt, (None, None))
}

/// Take the steps of `plan` into `sink`, a library's files on several
/// threads when `jobs` says where their outputs go (`-j`), its progress
/// said on `progress`.
pub(super) fn run_plan<S: Sink + ?Sized, E: Write>(
    opts: &Options,
    plan: &Plan<'_>,
    sink: &mut S,
    diag: &mut Diag<E>,
    interrupt: Option<&Arc<Interrupt>>,
    (jobs, progress): (Option<&jobs::Jobs<'_>>, Option<&progress::Progress>),
) -> Result<ExitStatus, Error> {
    // The live status line is drawn on standard output, which `opts.status`
    // says is a terminal.
    let status = match (&opts.board, &opts.label) {
        // One of several sources: its slot of the line they share.
        (Some((board, slot)), Some(label)) => {
            Some(board.status_line(*slot, label, opts.status_wait))
        }
        _ if plan.status => render::StatusLine::on_stdout(opts.color_stdout, opts.status_wait)
            .map(|s| s.with_label(opts.label.as_ref())),
        _ => None,
    };
    let reading = steps::Reading {
        opts,
        interrupt,
        tick: status.as_ref().map(|_| render::status::TICK),
        finished: Arc::new(AtomicBool::new(false)),
        jobs,
        progress,
        cache: std::cell::OnceCell::new(),
    };
    let mut runner: Runner<'_, S, E> = sinks::runner(opts, sink, diag).with_status(status);
    // JSONL of a folder is an export: its status, as a report's, says it
    // was written, not how each of its sessions ended.
    if sinks::exports(opts) && plan.steps.iter().any(|s| matches!(s, Step::Library(_))) {
        runner = runner.with_report(true);
    }
    // --follow: the run says when the session has finished, so that
    // following can end.
    if opts.follow {
        runner = runner.with_finished_flag(Arc::clone(&reading.finished));
    }
    for step in &plan.steps {
        match reading.take(&mut runner, step) {
            Ok(()) => {}
            Err(Error::Interrupted) => return Ok(runner.interrupted()?.1),
            Err(e) => return Err(e),
        }
    }
    Ok(runner.finish()?.1)
}
