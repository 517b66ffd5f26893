//! What a run is built of: the sink it writes with (the format, `--grep`,
//! `--summary`, the filters and `-q` decide it) and the runner that reads
//! for it. One place, used by the main run and by each of `-j`'s threads
//! (`drive/jobs.rs`), so that a library file read on a thread of its own is
//! read and rendered as on the main one.

use std::cell::Cell;
use std::io::{BufWriter, Write};
use std::rc::Rc;

use termcolor::{Ansi, NoColor, WriteColor};

use crate::cli::{Format, Options};
use crate::diag::Diag;
use crate::filter::{self, Filtered};
use crate::input;
use crate::render::{
    self, Jsonl, Pretty, PrettyOptions, ResultText, Sink, SummaryAfter, SummarySink,
};
use crate::run::Runner;

/// Where a sink writes.
pub(crate) struct Writers<'a> {
    /// Standard output (buffered by the caller).
    pub stdout: Box<dyn Write>,
    /// A new handle on standard error, for each part that writes there.
    pub stderr: &'a dyn Fn() -> Box<dyn Write>,
    /// Counts the events `--grep` matched.
    pub matched: Rc<Cell<u64>>,
    /// The inputs are a library ([`over_library`]): each alert names its
    /// file.
    pub library: bool,
}

/// The inputs are several, or a directory: over a library, each alert of
/// the formats whose stdout carries something else names its file. Asked
/// once per run, not per sink (a `stat` per session of a library, on `-j`).
pub(crate) fn over_library(opts: &Options) -> bool {
    opts.sources.len() > 1
        || opts
            .sources
            .iter()
            .any(|s| matches!(s, input::Source::Path(p) if p.is_dir()))
}

/// The format the sink writes: `-q` is the pretty sink's quiet mode in
/// every format (nothing on stdout).
pub(crate) fn format(opts: &Options) -> Format {
    if opts.verbosity == render::Verbosity::Quiet {
        Format::Pretty
    } else {
        opts.format
    }
}

/// `w` with colour (ANSI escapes) or without.
fn colored(w: Box<dyn Write>, on: bool) -> Box<dyn WriteColor> {
    if on {
        Box::new(Ansi::new(w))
    } else {
        Box::new(NoColor::new(w))
    }
}

/// The sink `opts` ask for, over `to`.
pub(crate) fn sink(opts: &Options, to: Writers<'_>) -> Box<dyn Sink> {
    let Writers {
        stdout,
        stderr,
        matched,
        library,
    } = to;
    // Buffered: an alert is written span by span, then flushed as one line.
    let err = || colored(Box::new(BufWriter::new(stderr())), opts.color_stderr);
    // Errors and denials of the formats whose stdout carries something else.
    let alerts = || {
        Pretty::alerts_only(err(), opts.max_lines)
            .with_theme(&opts.theme)
            .with_alerts(opts.alerts)
            .naming_sources(library)
    };
    let format = format(opts);
    let label = opts.label.as_ref().map(|l| l.name.as_str());
    let mut sink: Box<dyn Sink> = match (format, opts.grep.clone()) {
        (Format::Jsonl, Some(grep)) => Box::new(filter::grep::Matching::new(
            Jsonl::new(stdout).with_label(label),
            grep,
            matched,
        )),
        (_, Some(grep)) => {
            let out = colored(stdout, opts.color_stdout);
            Box::new(filter::grep::GrepLines::new(
                out,
                grep,
                opts.listing,
                matched,
            ))
        }
        (Format::Jsonl, None) => Box::new(Jsonl::new(stdout).with_label(label)),
        (Format::Pretty, None) => Box::new(pretty(opts, stdout, err())),
        (Format::Result, None) => Box::new(ResultText::new(stdout, alerts(), opts.sanitize_result)),
        (Format::Markdown, None) => Box::new(render::Markdown::sink(stdout)),
        (Format::Html, None) => Box::new(render::Html::sink(stdout)),
        (Format::Otlp, None) => Box::new(render::Otlp::new(stdout, opts.otlp.clone())),
        (Format::Summary | Format::SummaryJson, None) => {
            let out = colored(stdout, opts.color_stdout);
            Box::new(
                SummarySink::new(out, alerts(), format == Format::SummaryJson)
                    .groups_only(opts.groups_only)
                    .list(opts.list)
                    .verbose(opts.verbosity == render::Verbosity::Verbose)
                    .fit_to(opts.wrap.then(terminal_width).flatten()),
            )
        }
    };
    if opts.summary && matches!(format, Format::Jsonl | Format::Result) {
        sink = Box::new(SummaryAfter::new(sink, err()));
    }
    if !opts.filter.is_all()
        && matches!(
            format,
            Format::Pretty | Format::Jsonl | Format::Markdown | Format::Html
        )
    {
        sink = Box::new(
            Filtered::new(sink, alerts(), opts.filter.clone())
                .with_notes(stderr())
                .counting_hidden_errors(opts.count_hidden_errors),
        );
    }
    sink
}

/// The pretty view over `stdout`, its alerts to `err`.
fn pretty(
    opts: &Options,
    stdout: Box<dyn Write>,
    err: Box<dyn WriteColor>,
) -> Pretty<Box<dyn WriteColor>, Box<dyn WriteColor>> {
    let popts = PrettyOptions {
        verbosity: opts.verbosity,
        max_lines: opts.max_lines,
        mirror_errors: opts.mirror_errors,
    };
    let out = colored(stdout, opts.color_stdout);
    let mut pretty = Pretty::new(out, err, popts)
        .with_summary(opts.summary)
        .with_theme(&opts.theme);
    if opts.wrap {
        // A label's prefix takes columns of every line.
        let label = opts.label.as_ref().map_or(0, render::label::Label::width);
        pretty = pretty.with_width(Box::new(move || {
            terminal_width().map(|w| w.saturating_sub(label))
        }));
    }
    // Quiet: stderr is the only output.
    let alerts = if opts.verbosity == render::Verbosity::Quiet {
        opts.alerts
    } else {
        render::Alerts::All
    };
    pretty.with_alerts(alerts)
}

/// The terminal's width, when stdout is one.
fn terminal_width() -> Option<usize> {
    terminal_size::terminal_size().map(|(w, _)| usize::from(w.0))
}

/// A runner into `sink` and `diag` reading as `opts` say: the producer,
/// `--grep`, `--since`/`--until`, `--prices`, `--by`.
pub(crate) fn runner<'a, S: Sink + ?Sized, E: Write>(
    opts: &Options,
    sink: &'a mut S,
    diag: &'a mut Diag<E>,
) -> Runner<'a, S, E> {
    Runner::new(sink, diag, opts.max_line_bytes)
        .with_producer(opts.from)
        .with_grep(opts.grep.clone().map(|g| match opts.listing {
            // The events around a match are read too.
            filter::grep::Listing::Matches { context } if context > 0 => g.every_line(),
            _ => g,
        }))
        .with_window(opts.window)
        .with_zone(opts.zone.clone())
        .with_prices(opts.prices.clone())
        .with_groups(opts.by.clone())
        .with_report(report(opts))
        .with_ledger(ledger(opts))
        .with_unread(opts.grep.is_none() && format(opts) == Format::Otlp)
}

/// True when the run counts and writes nothing else (the summaries,
/// `--by`, `--list`): what no count reads may be left unread, and the
/// index may serve it.
pub(crate) fn ledger(opts: &Options) -> bool {
    opts.statusline
        || (opts.grep.is_none() && matches!(format(opts), Format::Summary | Format::SummaryJson))
}

/// True when the run writes a report (the summaries, Markdown, HTML): over
/// several sessions, its status is 0 once it is written.
pub(crate) fn report(opts: &Options) -> bool {
    opts.grep.is_none()
        && matches!(
            format(opts),
            Format::Summary | Format::SummaryJson | Format::Markdown | Format::Html
        )
}

/// True when the run writes every event as JSONL (`--format jsonl`, no
/// `--grep`): over a library, an export whose status is 0 once written.
pub(crate) fn exports(opts: &Options) -> bool {
    opts.grep.is_none() && format(opts) == Format::Jsonl
}

/// True when the files of a library can be read on several threads
/// (`-j`) with the same output as on one: the sink writes each event as
/// it comes and holds nothing across files but what the session state
/// holds (the pretty view, which says a session's end at its file's end:
/// [`Sink::input_end`](crate::render::Sink::input_end); JSONL, the
/// summaries, `--grep`), and which counts over the run only what it can
/// hand over ([`Sink::take_count`](crate::render::Sink::take_count): the
/// filters' tools seen); the reports and `--format result` add up over
/// the run. Nor can a run that draws the live status line (`status`).
pub(crate) fn parallel(opts: &Options, status: bool) -> bool {
    let per_event = opts.grep.is_some()
        || matches!(
            format(opts),
            Format::Jsonl | Format::Summary | Format::SummaryJson | Format::Pretty | Format::Otlp
        );
    // `-C`'s `--` between groups depends on what other files wrote.
    let context = matches!(opts.listing, filter::grep::Listing::Matches { context } if context > 0);
    opts.jobs > 1 && per_event && !context && !opts.follow && !status
}
