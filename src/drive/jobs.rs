//! `-j N`: the files of a session library read on N threads.
//!
//! Each file (a session, with its sub-agents' files) is read on a thread
//! of its own by a [`Runner`] of its own, into a sink built by the same
//! [`sinks::sink`] as the main one but writing to memory. The results are
//! taken in the library's order ([`parallel::ordered`]): what the file's
//! run wrote to stdout and stderr is passed on, and its session and counts
//! are added to the main runner's ([`Runner::absorb`]), which then ends
//! the run as if it had read every file itself: the summary, the closing
//! messages and the exit status come from the sum. Since a library file is
//! a session of its own ([`Session::end_input`]), the output is the same
//! byte for byte as with `-j1`. Only the sinks that write each event as it
//! comes, and say a session's end with its file, take part
//! ([`sinks::parallel`]).

use std::cell::{Cell, RefCell};
use std::io::{self, BufWriter, Write};
use std::rc::Rc;
use std::sync::Arc;

use crate::cli::Options;
use crate::diag::Diag;
use crate::error::Error;
use crate::input::{Interrupt, library};
use crate::parallel;
use crate::render::Sink;
use crate::run::{Counted, Runner};
use crate::session::Session;

use super::progress::Progress;
use super::sinks;

/// Results waiting to be passed on, per thread: bounds the memory of a run
/// to that many files' outputs.
const AHEAD_PER_JOB: usize = 4;

/// A session of more bytes than this (its files, a compressed one counted
/// [`COMPRESSION`] times) is read by the main run itself, in its turn,
/// writing as it reads: its output is not held in memory. With
/// [`AHEAD_PER_JOB`], what waits stays within about 32 MiB per thread.
const BIG: u64 = 8 << 20;

/// A store's session of more rows than this is read as a big file is
/// (rows of 1 KiB or so: [`BIG`] bytes).
const BIG_ROWS: u64 = BIG >> 10;

/// How much larger than its file a compressed log is taken to be.
const COMPRESSION: u64 = 8;

/// Standard output shared by the main sink and the results passed on.
#[derive(Clone)]
pub(crate) struct Shared(Rc<RefCell<BufWriter<Box<dyn Write>>>>);

impl Shared {
    /// `w`, shared.
    pub(crate) fn new(w: BufWriter<Box<dyn Write>>) -> Shared {
        Shared(Rc::new(RefCell::new(w)))
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.borrow_mut().write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// A file's run's output, kept in memory.
#[derive(Clone, Default)]
struct Buf(Rc<RefCell<Vec<u8>>>);

impl Buf {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

impl Write for Buf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Where the results go: the main run's outputs.
pub(crate) struct Jobs<'a> {
    /// Standard output.
    pub stdout: Shared,
    /// Standard error.
    pub stderr: &'a dyn Fn() -> Box<dyn Write>,
    /// `--grep`'s count of matches.
    pub matched: Rc<Cell<u64>>,
    /// The inputs are a library (`sinks::over_library`).
    pub library: bool,
}

/// One file's run.
struct Item {
    out: Vec<u8>,
    err: Vec<u8>,
    /// Boxed: a `Session` is 3.5 KB, and an item is moved from its thread
    /// through the queue of results (five copies of it a file).
    session: Box<Session>,
    counted: Counted,
    matched: u64,
    res: Result<(), Error>,
    /// Its files, and their bytes, for the progress line.
    read: (u64, u64),
}

impl Jobs<'_> {
    /// Read `sessions` on `opts.jobs` threads into `runner`, in order.
    ///
    /// # Errors
    /// The output cannot be written, or the run was interrupted.
    pub(crate) fn read<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        opts: &Options,
        sessions: &[&library::Session],
        interrupt: Option<&Arc<Interrupt>>,
        progress: Option<&Progress>,
    ) -> Result<(), Error> {
        let stop = || interrupt.is_some_and(|i| i.is_set());
        let library = self.library;
        let index = runner.index();
        let work = |s: &&library::Session| read_one(opts, s, library, interrupt, index.as_ref());
        let ahead = opts.jobs * AHEAD_PER_JOB;
        // The small sessions between two big ones on the threads, each big
        // one by the main run: the same order, bounded memory.
        let mut small = 0;
        for (i, s) in sessions.iter().enumerate() {
            if !is_big(s) {
                continue;
            }
            let mut give = |item: Item| self.pass_on(runner, item, progress);
            let part = sessions.get(small..i).unwrap_or_default();
            parallel::ordered(part, opts.jobs, ahead, &stop, &work, &mut give)?;
            if stop() {
                return Err(Error::Interrupted);
            }
            runner.library_session(s, true, interrupt)?;
            progress.inspect(|p| p.read(s));
            small = i + 1;
        }
        let mut give = |item: Item| self.pass_on(runner, item, progress);
        let rest = sessions.get(small..).unwrap_or_default();
        parallel::ordered(rest, opts.jobs, ahead, &stop, &work, &mut give)?;
        // Ctrl-C: the files begun were written; the rest were not started.
        if stop() {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    /// Write what a file's run wrote, and take in its session and counts.
    fn pass_on<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        item: Item,
        progress: Option<&Progress>,
    ) -> Result<(), Error> {
        progress.inspect(|p| p.add(item.read));
        if !item.err.is_empty() {
            let _ = (self.stderr)().write_all(&item.err);
        }
        self.stdout
            .clone()
            .write_all(&item.out)
            .map_err(Error::Write)?;
        self.matched.set(self.matched.get() + item.matched);
        runner.absorb(*item.session, item.counted);
        item.res
    }
}

/// The session's files hold more than [`BIG`] bytes (as they were when
/// found: no `stat` here, on the one thread, of every file before the
/// threads start; issue 27); a store's session, more than [`BIG_ROWS`]
/// rows, as its store counted them when it listed it.
fn is_big(s: &library::Session) -> bool {
    if let Some(st) = &s.stored {
        return st.rows > BIG_ROWS;
    }
    let compressed = s.file.extension().is_some_and(|e| e == "gz" || e == "zst");
    let bytes = if compressed {
        s.bytes.saturating_mul(COMPRESSION)
    } else {
        s.bytes
    };
    bytes > BIG
}

/// Read one library file as the main run would, into memory.
fn read_one(
    opts: &Options,
    s: &library::Session,
    library: bool,
    interrupt: Option<&Arc<Interrupt>>,
    index: Option<&Arc<crate::index::Index>>,
) -> Item {
    let (out, err) = (Buf::default(), Buf::default());
    let matched = Rc::new(Cell::new(0));
    let stderr = {
        let err = err.clone();
        move || Box::new(err.clone()) as Box<dyn Write>
    };
    let mut sink = sinks::sink(
        opts,
        sinks::Writers {
            stdout: Box::new(out.clone()),
            stderr: &stderr,
            matched: matched.clone(),
            library,
        },
    );
    let mut diag = Diag::new(
        err.clone(),
        opts.verbosity == crate::render::Verbosity::Verbose,
    );
    let mut runner = sinks::runner(opts, &mut *sink, &mut diag);
    // Copies of API messages are told in the library's order (`absorb`).
    runner.check_copies_later();
    runner.set_index(index.cloned());
    let res = runner.library_session(s, true, interrupt);
    let (session, counted) = runner.into_counted();
    let session = Box::new(session);
    let res = res.and_then(|()| sink.flush().map_err(Error::Write));
    Item {
        out: out.take(),
        err: err.take(),
        session,
        counted,
        matched: matched.get(),
        res,
        read: (s.files() as u64, s.bytes),
    }
}
