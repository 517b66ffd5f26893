//! `--by … -f` (`--by block -f`: the open block live): the report run
//! again every [`EVERY`] over the library, through the index (only what
//! changed is read), until Ctrl-C. On a terminal each new table replaces
//! the last in place; elsewhere a table is printed each time it changes
//! (blank-line apart), so a pipe sees one table per change.

use std::cell::RefCell;
use std::io::{self, IsTerminal, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use crate::cli::Options;
use crate::diag::Diag;
use crate::error::{Error, ExitStatus};
use crate::input::Interrupt;

/// How often the report is made again.
const EVERY: Duration = Duration::from_secs(2);

/// A writer into memory that its clones share.
#[derive(Clone, Default)]
struct Buffer(Rc<RefCell<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Make the report again and again until `interrupt`.
///
/// # Errors
/// Standard output cannot be written.
pub(super) fn run(opts: &Options, interrupt: &Arc<Interrupt>) -> Result<ExitStatus, Error> {
    let terminal = io::stdout().is_terminal();
    let mut shown: Option<Vec<u8>> = None;
    while !interrupt.is_set() {
        let table = report(opts);
        // On a terminal the clock of the open block ticks; in a pipe a new
        // table is for new usage, not for a minute gone by.
        let changed = match &shown {
            None => true,
            Some(last) if terminal => *last != table,
            Some(last) => usage(last) != usage(&table),
        };
        if changed {
            let mut out = io::stdout().lock();
            match &shown {
                // Up to the first line of the last table, and erase to the
                // end of the screen; a table taller than the screen is
                // drawn on a cleared one.
                Some(last) if terminal => {
                    let lines = memchr::memchr_iter(b'\n', last).count();
                    let rows = terminal_size::terminal_size().map_or(0, |(_, h)| usize::from(h.0));
                    if lines < rows {
                        write!(out, "\x1b[{lines}F\x1b[J").map_err(Error::Write)?;
                    } else {
                        out.write_all(b"\x1b[H\x1b[2J").map_err(Error::Write)?;
                    }
                }
                Some(_) => out.write_all(b"\n").map_err(Error::Write)?,
                None => {}
            }
            out.write_all(&table).map_err(Error::Write)?;
            out.flush().map_err(Error::Write)?;
            shown = Some(table);
        }
        wait(interrupt, EVERY);
    }
    Ok(ExitStatus::Interrupted)
}

/// The lines of a report that only usage changes: without the open
/// block's (its time left and burn rate change with the clock).
fn usage(table: &[u8]) -> Vec<&[u8]> {
    table
        .split(|&b| b == b'\n')
        .filter(|l| memchr::memmem::find(l, b" open: ").is_none())
        .collect()
}

/// The report as it is now, its alerts unsaid (they would come between
/// the tables at every turn).
fn report(opts: &Options) -> Vec<u8> {
    let buf = Buffer::default();
    let stderr = || -> Box<dyn Write> { Box::new(io::sink()) };
    let mut sink = super::sinks::sink(
        opts,
        super::sinks::Writers {
            stdout: Box::new(buf.clone()),
            stderr: &stderr,
            matched: Rc::new(std::cell::Cell::new(0)),
            library: true,
        },
    );
    let mut diag = Diag::new(io::sink(), false);
    let _ = super::plan_run::run_sink(opts, &mut sink, &mut diag);
    drop(sink);
    buf.0.take()
}

/// Sleep `d`, waking early when interrupted.
fn wait(interrupt: &Interrupt, d: Duration) {
    let step = Duration::from_millis(100);
    let mut left = d;
    while !left.is_zero() && !interrupt.is_set() {
        std::thread::sleep(step.min(left));
        left = left.saturating_sub(step);
    }
}
