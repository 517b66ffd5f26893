//! `--statusline`: Claude Code's input read, the ledger asked, one line
//! printed, exit 0, within [`DEADLINE`] whatever the input.
//!
//! The ledger is a run over the library (through the index) into the
//! [`Ledger`] sink, grouped by block, with `--since` set to the earlier of
//! today's midnight and a day ago: what changed before is not opened.
//! When that window is too short to say which of Claude's blocks is open
//! (no 5-hour pause in it), it is doubled until it is, or is all of it.
//! The run is on a thread of its own: past the deadline the line is
//! printed without the ledger's figures (and the thread left to end with
//! the process).

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use termcolor::{Ansi, NoColor, WriteColor};

use crate::cli::Options;
use crate::diag::Diag;
use crate::error::{Error, ExitStatus};
use crate::input::Source;
use crate::render::statusline::{self, Claude, Figures, Ledger};
use crate::time::Timestamp;
use crate::time::window::{End, When, Window};

/// The line is printed by then: Claude Code starts the next run after
/// each message and cancels one still going.
const DEADLINE: Duration = Duration::from_millis(900);

/// Claude Code's input is a few kilobytes; more is not read.
const MAX_INPUT: u64 = 1 << 20;

/// The first window read back from now.
const DAY_MS: i64 = 86_400_000;

/// Windows wider than this are the whole history.
const MAX_WINDOW_MS: i64 = 64 * DAY_MS;

/// Print the status line for the input on standard input.
///
/// # Errors
/// Standard output cannot be written.
pub(super) fn run(opts: &Options) -> Result<ExitStatus, Error> {
    let start = Instant::now();
    let claude = Claude::parse(&read_input(start + DEADLINE / 3));
    let now = Timestamp::of(SystemTime::now());
    let today = When::DaysAgo(0).at(End::Since, now, &opts.zone);
    let (tx, rx) = mpsc::channel();
    let (o, transcript) = (opts.clone(), session_file(&claude));
    // Not scoped: past the deadline the process ends without it.
    let _ = std::thread::Builder::new()
        .name("statusline".into())
        .spawn(move || {
            let mut figures = ledger(&o, today, now);
            if let (Some(f), Some(file)) = (figures.as_mut(), transcript) {
                f.session = read_alone(&o, file, today, now).map(|t| t.total);
            }
            let _ = tx.send(figures);
        });
    let figures = rx
        .recv_timeout(DEADLINE.saturating_sub(start.elapsed()))
        .ok()
        .flatten();
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&w| w >= 20);
    let stdout = io::stdout().lock();
    let mut out: Box<dyn WriteColor> = if opts.color_stdout {
        Box::new(Ansi::new(stdout))
    } else {
        Box::new(NoColor::new(stdout))
    };
    statusline::write_line(
        &mut out,
        &claude,
        figures.as_ref(),
        (now, width),
        &opts.theme,
    )
    .map_err(Error::Write)?;
    Ok(ExitStatus::Success)
}

/// Standard input, up to [`MAX_INPUT`] bytes, read until it ends or
/// `by`: an input that never ends still gives a line.
fn read_input(by: Instant) -> Vec<u8> {
    let (tx, rx) = mpsc::channel();
    let _ = std::thread::Builder::new()
        .name("statusline-input".into())
        .spawn(move || {
            let mut bytes = Vec::new();
            let _ = io::stdin().lock().take(MAX_INPUT).read_to_end(&mut bytes);
            let _ = tx.send(bytes);
        });
    rx.recv_timeout(by.saturating_duration_since(Instant::now()))
        .unwrap_or_default()
}

/// The transcript to count this session's cost from, when Claude Code
/// gives none of its own: a regular file (not a device, a FIFO or a
/// directory of sessions).
fn session_file(claude: &Claude) -> Option<PathBuf> {
    if claude.cost_usd.is_some() {
        return None;
    }
    let path = claude.transcript.clone()?;
    std::fs::metadata(&path)
        .is_ok_and(|m| m.is_file())
        .then_some(path)
}

/// The ledger's figures, from a window wide enough to place Claude's
/// open block; `None` when the library cannot be read.
fn ledger(opts: &Options, today: Timestamp, now: Timestamp) -> Option<Figures> {
    let mut known = Some(today.min(now.plus(-DAY_MS)));
    loop {
        let window = Window {
            since: known,
            until: None,
        };
        let run = Options {
            window,
            ..opts.clone()
        };
        let figures = count(&run, Ledger::new(today, known, now))?;
        let wider = known
            .map(|k| now.millis() - k.millis())
            .filter(|&span| span < MAX_WINDOW_MS);
        match wider {
            Some(span) if !figures.settled => known = Some(now.plus(-2 * span)),
            _ if !figures.settled => known = None,
            _ => return Some(figures),
        }
    }
}

/// `file` read alone, whole: its sessions' cost.
fn read_alone(opts: &Options, file: PathBuf, today: Timestamp, now: Timestamp) -> Option<Figures> {
    let run = Options {
        sources: vec![Source::Path(file)],
        window: Window::default(),
        by: None,
        ..opts.clone()
    };
    count(&run, Ledger::new(today, None, now))
}

/// Run `opts` into `sink`, its diagnostics unsaid.
fn count(opts: &Options, mut sink: Ledger) -> Option<Figures> {
    let mut diag = Diag::new(io::sink(), false);
    super::plan_run::run_sink(opts, &mut sink, &mut diag).ok()?;
    sink.figures().cloned()
}
