//! The loop: lines → decode → session → sink, and the flush policy.
//!
//! Output is block-buffered and flushed every time the reader is about to
//! wait for more input (and before any diagnostic goes to stderr). A live
//! agent stream therefore shows each line the moment it arrives, also through
//! a pipe, while a large saved log is written in big blocks.

mod feeder;
mod record;

use std::io::{Read, Write};

pub use feeder::Feeder;

use crate::decode::{Decoded, Decoder, LineProblem};
use crate::diag::Diag;
use crate::error::{Error, ExitStatus, describe_io};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::event::{Event, EventKind, Producer};
use crate::filter::grep::Grep;
use crate::index::Index;
use crate::input::library::{self, Origins};
use crate::input::{Checked, Frame, Interrupt, Line, LineReader, ahead};
use crate::render::{LineEnd, Sink, StatusLine};
use crate::session::Session;
use crate::time::window::Window;
use std::time::Instant;

/// Default `--max-line-bytes`: 64 MiB. Real sessions have single lines of
/// several megabytes (a Write of a big file is echoed twice); nothing sane is
/// near this.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// An input is not an event stream (a binary, a compressed format we do not
/// read) once this many of its lines were skipped before any event, and
/// they are at least half of its lines so far: the rest of it is skipped
/// with one message instead of one per line (issue 15: a binary file gave
/// 95,907 of them).
pub const NOT_A_STREAM_AFTER: u64 = 20;

/// What `-v` says of a line read with its lone UTF-16 surrogate escapes as
/// U+FFFD (see `json::repair`).
const REPAIRED: &str = "lone UTF-16 surrogate escape read as U+FFFD";

/// What the run knows of the input being read.
#[derive(Debug, Default)]
struct Current {
    /// Frames read before it.
    frames_before: u64,
    /// Events other than plain text observed before it.
    events_before: u64,
    /// Plain-text lines observed before it.
    plain_before: u64,
    /// Its lines skipped so far.
    skipped: u64,
    /// Of them, those longer than `--max-line-bytes` (a saved session
    /// of one JSON document is one line), and the longest's length.
    too_long: (u64, u64),
    /// It does not look like an event stream: stop reading it.
    give_up: bool,
    /// It was found below a directory named as input: holding no session
    /// is no fault of the user's (see [`Runner::source_found`]).
    found: bool,
    /// `--grep`: lines to frame one by one before passing over again, and
    /// how many the last wait was ([`Runner::pass_over`]).
    pass_wait: (u32, u32),
}

/// What a [`Runner`] counted besides its session (see
/// [`Runner::into_counted`]).
#[derive(Debug, Default)]
pub struct Counted {
    lines: u64,
    inputs: u64,
    without_session: u64,
    notes: Vec<String>,
    found_without_session: u64,
    io_failed: bool,
    outside: u64,
    skipped: u64,
    /// What the sink counted to say at the end ([`Sink::take_count`]).
    count: Option<crate::render::RunCount>,
}

/// Drives one or more inputs through a sink.
pub struct Runner<'a, S: Sink + ?Sized, E: Write> {
    session: Session,
    sink: &'a mut S,
    diag: &'a mut Diag<E>,
    max_line: usize,
    io_failed: bool,
    lines: u64,
    from: Option<Producer>,
    /// Raised while the last event is a result (the session may be over),
    /// lowered by any later activity: `--follow` ends on it.
    finished: Option<Arc<AtomicBool>>,
    /// The live status line (a terminal only).
    status: Option<StatusLine>,
    /// When the bytes being decoded were read: the arrival time of every
    /// line they hold (one clock reading per read, not per event).
    arrived: Instant,
    /// The input being read.
    current: Current,
    /// Inputs opened or tried so far.
    inputs: u64,
    /// Inputs read to their end without a session (no event but plain
    /// text): each makes the status 3.
    without_session: u64,
    /// Their notes, printed at the end when there were several inputs.
    notes: Vec<String>,
    /// Files found below directories that held no session.
    found_without_session: u64,
    /// Every directory named held no session file, and that was said.
    explained: bool,
    /// `--grep`: lines that cannot match are not decoded.
    grep: Option<Grep>,
    /// Where the lines of the next input come from, when it merges several
    /// files (a library session with sub-agents).
    origins: Option<Arc<Origins>>,
    /// `--since`, `--until`: events dated outside are left out.
    window: Window,
    /// Events left out by the window so far.
    outside: u64,
    /// Sessions of a library skipped as outside the window.
    sessions_outside: u64,
    /// Inputs given up as not event streams (each said in one line).
    given_up: u64,
    /// The sink is a report (the summaries, Markdown, HTML): over several
    /// sessions, their outcomes are in its tables, not in the status.
    report: bool,
    /// The sink counts and nothing else (the summaries): what no count
    /// reads is left unparsed (see [`Decoder::for_report`]).
    ledger: bool,
    /// The sink reads no more of a line than a report does (`--format
    /// otlp`): that is left unparsed too, without the index.
    unread: bool,
    /// The index of the library being read: its sessions replayed from it,
    /// or recorded into it ([`Runner::with_index`]).
    index: Option<Arc<Index>>,
    /// The session being read, recorded for the index.
    recorder: Option<record::Recorder>,
}

thread_local! {
    /// The last input's line buffer and decoder on this thread, for the
    /// next input's: a library's sessions are read one after another (on
    /// each `-j` thread, by a runner each) without allocating, zeroing and
    /// growing them again (−3% instructions on a report of transcripts).
    static SPARE: std::cell::Cell<Option<(Vec<u8>, Decoder)>> = const { std::cell::Cell::new(None) };
}

impl<'a, S: Sink + ?Sized, E: Write> Runner<'a, S, E> {
    /// A runner writing events to `sink` and problems to `diag`.
    pub fn new(sink: &'a mut S, diag: &'a mut Diag<E>, max_line: usize) -> Self {
        Runner {
            session: Session::new(),
            sink,
            diag,
            max_line,
            io_failed: false,
            lines: 0,
            from: None,
            finished: None,
            status: None,
            arrived: Instant::now(),
            current: Current::default(),
            inputs: 0,
            report: false,
            ledger: false,
            unread: false,
            index: None,
            recorder: None,
            given_up: 0,
            without_session: 0,
            notes: Vec::new(),
            found_without_session: 0,
            explained: false,
            grep: None,
            origins: None,
            window: Window::default(),
            outside: 0,
            sessions_outside: 0,
        }
    }

    /// Show a live status line (see [`StatusLine`]) while waiting for input.
    #[must_use]
    pub fn with_status(mut self, status: Option<StatusLine>) -> Self {
        self.status = status;
        self
    }

    /// Keep `flag` raised while the last event seen is a result.
    #[must_use]
    pub fn with_finished_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.finished = Some(flag);
        self
    }

    /// Decode only the lines whose raw bytes can match `grep` (`--grep`).
    #[must_use]
    pub fn with_grep(mut self, grep: Option<Grep>) -> Self {
        self.grep = grep;
        self
    }

    /// Leave out the events dated outside `window` (`--since`, `--until`):
    /// neither shown nor counted.
    #[must_use]
    pub fn with_window(mut self, window: Window) -> Self {
        self.window = window;
        self
    }

    /// Stop here without finishing (no summary, no closing message): the
    /// session and what was counted, for another runner to take in with
    /// [`Runner::absorb`] (`-j`: a library file read on a thread of its
    /// own).
    pub fn into_counted(self) -> (Session, Counted) {
        let count = self.sink.take_count();
        let counted = Counted {
            lines: self.lines,
            inputs: self.inputs,
            without_session: self.without_session,
            notes: self.notes,
            found_without_session: self.found_without_session,
            io_failed: self.io_failed,
            outside: self.outside,
            skipped: self.diag.skipped(),
            count,
        };
        (self.session, counted)
    }

    /// Take in what another runner read after this one's inputs (see
    /// [`Runner::into_counted`]): its sessions and counts, as if this
    /// runner had read its inputs itself. Its output was written by the
    /// caller.
    pub fn absorb(&mut self, session: Session, c: Counted) {
        self.session.absorb(session);
        self.lines += c.lines;
        self.inputs += c.inputs;
        self.without_session += c.without_session;
        self.notes.extend(c.notes);
        self.found_without_session += c.found_without_session;
        self.io_failed |= c.io_failed;
        self.outside += c.outside;
        self.diag.add_skipped(c.skipped);
        if let Some(count) = c.count {
            self.sink.add_count(count);
        }
        self.sink.ended_elsewhere();
    }

    /// Leave the check for copies of API messages to the runner this one
    /// is absorbed into (`-j`, see [`Session::check_copies_later`]).
    pub fn check_copies_later(&mut self) {
        self.session.check_copies_later();
    }

    /// A session of a library was skipped: it lies outside the window.
    pub fn session_outside(&mut self) {
        self.sessions_outside += 1;
    }

    /// The sink is a report: over several sessions, the status is 0 once
    /// its tables are written (their total rows count the outcomes).
    #[must_use]
    pub fn with_report(mut self, report: bool) -> Self {
        self.report = report;
        self
    }

    /// The sink is a summary (`--format summary`, `summary-json`, `--by`),
    /// which counts and shows no text: the values no count reads are left
    /// unparsed ([`Decoder::for_report`]); its output is the same.
    #[must_use]
    pub fn with_ledger(mut self, ledger: bool) -> Self {
        self.ledger = ledger;
        self
    }

    /// The sink reads nothing a report leaves unread (`--format otlp`:
    /// no text of a notice, no session header's tool list): those values
    /// are left unparsed ([`Decoder::for_report`]) as for a report, its
    /// output the same; the index still serves only reports.
    #[must_use]
    pub fn with_unread(mut self, unread: bool) -> Self {
        self.unread = unread;
        self
    }

    /// Replay a library's sessions from `index` where it may be trusted,
    /// and keep those read in it: a report's (`ledger`) only, which is all
    /// the index serves (see `crate::index`).
    pub fn set_index(&mut self, index: Option<Arc<Index>>) {
        self.index = index.filter(|_| self.ledger && self.grep.is_none());
    }

    /// The index [`Runner::set_index`] gave it.
    #[must_use]
    pub fn index(&self) -> Option<Arc<Index>> {
        self.index.clone()
    }

    /// Say local times (the sessions' starts in the tables) in `zone`.
    #[must_use]
    pub fn with_zone(mut self, zone: crate::time::zone::Zone) -> Self {
        self.session.set_zone(zone);
        self
    }

    /// Add up the sessions by day, project… too (`--by`).
    #[must_use]
    pub fn with_groups(
        mut self,
        by: Option<(crate::session::group::By, crate::time::zone::Zone)>,
    ) -> Self {
        if let Some((by, zone)) = by {
            self.session
                .group_by(crate::session::group::Groups::new(by, zone));
        }
        self
    }

    /// Estimate costs with `prices` (`None`: the bundled table).
    #[must_use]
    pub fn with_prices(mut self, prices: Option<Arc<crate::session::Prices>>) -> Self {
        if let Some(p) = prices {
            self.session.set_prices(p);
        }
        self
    }

    /// Read every input as `producer` instead of detecting it (`--from`).
    #[must_use]
    pub fn with_producer(mut self, producer: Option<Producer>) -> Self {
        self.from = producer;
        self
    }

    /// The inputs read from now on are saved files replayed (`true`), or
    /// arrive live (see [`Session::replaying`]).
    pub fn replaying(&mut self, replay: bool) {
        self.session.replaying(replay);
    }

    /// The session state so far.
    #[must_use]
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Report that an input could not be opened; the run goes on with the
    /// others and ends with status 2.
    pub fn open_failed(&mut self, name: &str, err: &std::io::Error) {
        self.hide_status();
        self.io_failed = true;
        self.inputs += 1;
        self.diag
            .message(&format!("cannot open {name}: {}", describe_io(err)));
    }

    /// A one-line note about input `name` on stderr (`streamview: NAME:
    /// WHAT`); it changes nothing else.
    pub fn note(&mut self, name: &str, what: &str) {
        self.hide_status();
        self.diag.message(&format!("{name}: {what}"));
    }

    /// Say `what`, one line on stderr.
    pub fn say(&mut self, what: &str) {
        self.hide_status();
        self.diag.message(what);
    }

    /// A directory named as input holds no session file: say so; it counts
    /// as an input without a session (status 3).
    pub fn empty_directory(&mut self, name: &str, other_files: u64) {
        self.hide_status();
        self.inputs += 1;
        self.without_session += 1;
        self.explained = true;
        self.diag.message(&format!(
            "{name}: no session files below it (*.jsonl or *.ndjson, compressed or not; \
             {other_files} other file{} left alone)",
            if other_files == 1 { "" } else { "s" }
        ));
    }

    /// Files found below directories so far that held no session.
    #[must_use]
    pub fn found_without_session(&self) -> u64 {
        self.found_without_session
    }

    /// Process one input to its end.
    ///
    /// # Errors
    /// Output cannot be written, or the reader was interrupted
    /// ([`Error::Interrupted`], from a [`crate::input::ReadAhead`]: finish
    /// with [`Runner::interrupted`]). A read error is reported, ends this
    /// input and makes the exit status 2, but is not fatal.
    pub fn source<R: Read>(&mut self, name: &str, rdr: R) -> Result<(), Error> {
        self.read(name, rdr, false)
    }

    /// Read one session of a library: its file and its sub-agents' as one
    /// input (see [`library::Session::open`]); `found` below a directory
    /// (see [`Runner::source_found`]) or asked for (`--latest`).
    ///
    /// # Errors
    /// As [`Runner::source`].
    pub fn library_session(
        &mut self,
        session: &library::Session,
        found: bool,
        interrupt: Option<&Arc<Interrupt>>,
    ) -> Result<(), Error> {
        let name = session.name();
        self.replaying(true);
        if let Some(index) = self.index.clone()
            && let Some(files) = session.stamps()
        {
            if let Some(rec) = index.session(&name, &files) {
                return self.replay(&name, &rec.events, rec.lines, found);
            }
            if let [now] = &files[..]
                && let Some(rec) =
                    record::read_on(&index, session, now, self.decoder(), self.max_line)
            {
                let res = self.replay(&name, &rec.events, rec.lines, found);
                index.put_read_on(&name, rec);
                return res;
            }
            self.recorder = Some(record::Recorder::new(files));
        }
        let res = self.read_session(session, &name, found, interrupt);
        // Taken away when a line had a problem to say.
        if let Some(r) = self.recorder.take()
            && res.is_ok()
            && let Some(index) = &self.index
        {
            let lines = self.lines - self.current.frames_before;
            index.put_session(&name, r.recorded(lines, session));
        }
        res
    }

    /// [`Runner::library_session`]'s read of its files.
    fn read_session(
        &mut self,
        session: &library::Session,
        name: &str,
        found: bool,
        interrupt: Option<&Arc<Interrupt>>,
    ) -> Result<(), Error> {
        let opened = session
            .open_traced(crate::decode::store_readers())
            .map(|(rdr, origins)| {
                self.origins = origins;
                match interrupt {
                    Some(intr) => Box::new(Checked::new(rdr, intr)) as Box<dyn Read>,
                    None => rdr as Box<dyn Read>,
                }
            });
        match opened {
            Ok(rdr) if found => self.source_found(name, rdr),
            Ok(rdr) => self.source(name, rdr),
            Err(e) => {
                self.recorder = None;
                self.open_failed(name, &e);
                Ok(())
            }
        }
    }

    /// Session `name` of a library, as the index recorded it (see
    /// `run/record.rs`): its lines read as an input (through the native
    /// decoder, into the same session and sink), counted as the lines its
    /// files held.
    fn replay(&mut self, name: &str, events: &[u8], lines: u64, found: bool) -> Result<(), Error> {
        let (before, max_line) = (self.lines, self.max_line);
        // An event's line may be longer than the line it came from.
        self.max_line = usize::MAX;
        let res = self.read(name, events, found);
        self.max_line = max_line;
        self.lines = before + lines;
        res
    }

    /// Process a file found below a directory named as input, as
    /// [`Runner::source`] does, except that holding no session is only
    /// counted ([`Runner::found_without_session`]): a session library
    /// holds other files too.
    ///
    /// # Errors
    /// As [`Runner::source`].
    pub fn source_found<R: Read>(&mut self, name: &str, rdr: R) -> Result<(), Error> {
        self.read(name, rdr, true)
    }

    /// Read an input; its first problems are held back until it turns out
    /// to be an event stream (then written) or not (then one line says so).
    fn read<R: Read>(&mut self, name: &str, rdr: R, found: bool) -> Result<(), Error> {
        self.diag.hold();
        let res = self.read_input(name, rdr, found);
        self.diag.release();
        res
    }

    fn read_input<R: Read>(&mut self, name: &str, rdr: R, found: bool) -> Result<(), Error> {
        self.session.set_source(name);
        self.session.set_origins(self.origins.take());
        let (buf, dec) = match SPARE.take() {
            Some((buf, dec)) => (buf, dec.reuse(self.from)),
            None => (Vec::new(), Decoder::with_producer(self.from)),
        };
        let mut rdr = LineReader::with_buffer(rdr, self.max_line, buf);
        let mut dec = self.options_of(dec);
        self.arrived = Instant::now();
        self.inputs += 1;
        self.current = Current {
            frames_before: self.lines,
            events_before: self.json_events(),
            plain_before: self.session.stats().plain_text,
            found,
            ..Current::default()
        };
        let res = self.read_lines(name, &mut rdr, &mut dec);
        // Kept without what it read (a session's tree, its ids): only the
        // memory waits for the next input.
        SPARE.set(Some((rdr.into_buffer(), dec.reuse(None))));
        res
    }

    /// A fresh decoder with this runner's options.
    fn decoder(&self) -> Decoder {
        self.options_of(Decoder::with_producer(self.from))
    }

    /// `dec` given this runner's options.
    fn options_of(&self, dec: Decoder) -> Decoder {
        dec.lines_may_be_skipped(self.grep.is_some())
            .for_report(self.ledger || self.unread)
    }

    /// [`Runner::read_input`]'s loop: each line read decoded and offered to
    /// the sink, output flushed before a read may wait.
    fn read_lines<R: Read>(
        &mut self,
        name: &str,
        rdr: &mut LineReader<R>,
        dec: &mut Decoder,
    ) -> Result<(), Error> {
        loop {
            loop {
                self.pass_over(rdr, dec);
                let Some(frame) = rdr.next_frame() else {
                    break;
                };
                self.frame(&frame, dec)?;
                if self.current.give_up {
                    return self.give_up(name, dec, false);
                }
                if self.diag.holding() && self.json_events() != self.current.events_before {
                    self.diag.release();
                }
            }
            if rdr.is_eof() {
                if rdr.is_binary() {
                    return self.give_up_binary(name, dec);
                }
                if self.not_a_stream() {
                    return self.give_up(name, dec, true);
                }
                if let Some(r) = self.recorder.as_mut()
                    && r.may_go_on()
                {
                    r.end_of_lines(rdr.bytes_read(), false, dec.save());
                }
                self.finish_decoder(dec, false)?;
                return self.end_of_input(name);
            }
            // About to block on read: whatever was rendered goes out now.
            self.sink.flush().map_err(Error::Write)?;
            self.draw_status()?;
            let read = rdr.fill();
            self.arrived = Instant::now();
            if let Err(e) = read {
                if ahead::is_tick(&e) {
                    // Waiting: the loop redraws the status line.
                    continue;
                }
                self.hide_status();
                if ahead::is_interrupt(&e) {
                    self.finish_decoder(dec, true)?;
                    return Err(Error::Interrupted);
                }
                self.io_failed = true;
                self.recorder = None;
                self.sink.flush().map_err(Error::Write)?;
                self.diag
                    .message(&format!("error reading {name}: {}", describe_io(&e)));
                return Ok(());
            }
        }
    }

    /// `--grep`: the buffered lines that cannot match passed over unread,
    /// many at a time, on the terms [`Runner::frame`] skips one on. When
    /// the next line may match, the pass searched what the line's own
    /// check searches again: after such a pass, the next 1, 2, 4… up to 64
    /// lines are framed one by one (a pattern in a key every line repeats,
    /// `uuid`, took 4% more instructions than without passing over).
    fn pass_over<R: Read>(&mut self, rdr: &mut LineReader<R>, dec: &Decoder) {
        let (wait, last) = &mut self.current.pass_wait;
        if *wait > 0 {
            *wait -= 1;
            return;
        }
        if let Some(g) = skipping(self.grep.as_ref(), dec) {
            match rdr.pass_over(|lines| g.first_possible(lines)) {
                Some(0) => {
                    *last = (*last * 2).clamp(1, 64);
                    *wait = *last;
                }
                Some(passed) => {
                    *last = 0;
                    self.lines += passed;
                }
                None => {}
            }
        }
    }

    /// Events other than plain text decoded so far (observed, or left
    /// out by the window).
    fn json_events(&self) -> u64 {
        let st = self.session.stats();
        st.events - st.plain_text + self.outside
    }

    /// The input is not an event stream: say so once and skip the rest.
    /// `ended`: it was read to its end, shorter than the lines it takes
    /// to decide before.
    fn give_up(&mut self, name: &str, dec: &mut Decoder, ended: bool) -> Result<(), Error> {
        self.stop_reading(dec)?;
        let lines = self.lines - self.current.frames_before;
        let skipped = self.current.skipped;
        let (too_long, longest) = self.current.too_long;
        self.diag.message(&if too_long == skipped {
            // Nothing else wrong: say what is.
            let max = self.max_line;
            format!(
                "{name}: not read: {} longer than --max-line-bytes ({max}), the longest \
                 {longest} bytes (a saved session of one JSON document is one line); raise \
                 --max-line-bytes to read it",
                if too_long == 1 {
                    "its one line is".to_string()
                } else {
                    format!("{too_long} of its lines are")
                }
            )
        } else if ended {
            format!(
                "{name}: not an event stream ({skipped} of its {lines} lines cannot be read as \
                 text or JSON)"
            )
        } else {
            format!(
                "{name}: not an event stream ({skipped} of its first {lines} lines cannot be \
                 read as text or JSON); the rest of it is skipped"
            )
        });
        self.end_of_input(name)
    }

    /// The input's first line ran past `--max-line-bytes` with NUL bytes in
    /// it ([`LineReader::is_binary`]: `/dev/zero` never ends): say so once
    /// and read no more of it.
    fn give_up_binary(&mut self, name: &str, dec: &mut Decoder) -> Result<(), Error> {
        self.stop_reading(dec)?;
        let max = self.max_line;
        self.diag.message(&format!(
            "{name}: not an event stream (binary: its first line holds NUL bytes and is longer \
             than --max-line-bytes ({max})); the rest of it is skipped"
        ));
        self.end_of_input(name)
    }

    /// An input given up: what it held back is dropped (the line that
    /// says why says what they would), and its decoder finished.
    fn stop_reading(&mut self, dec: &mut Decoder) -> Result<(), Error> {
        // This line says what the lines skipped would.
        self.diag.discard();
        self.recorder = None;
        self.given_up += 1;
        self.current.give_up = true;
        self.finish_decoder(dec, false)?;
        self.sink.flush().map_err(Error::Write)
    }

    /// The input read to its end, its problems still held back, is not an
    /// event stream: no event, no line of text (its note says how to run
    /// the agent), and at least half its lines unreadable.
    fn not_a_stream(&self) -> bool {
        let cur = &self.current;
        self.diag.holding()
            && cur.skipped > 0
            && self.session.stats().plain_text == cur.plain_before
            && cur.skipped * 2 >= self.lines - cur.frames_before
            && self.json_events() == cur.events_before
    }

    /// An input was read to its end (or given up): if it held no session,
    /// count it and keep its note (unless it was given up, which said so).
    fn end_of_input(&mut self, name: &str) -> Result<(), Error> {
        // A file of a library is one session: it ends with the file.
        if self.current.found {
            self.sink.input_end(&self.session).map_err(Error::Write)?;
            self.session.end_input();
        }
        if self.json_events() != self.current.events_before {
            return Ok(());
        }
        if self.current.found {
            self.found_without_session += 1;
            return Ok(());
        }
        self.without_session += 1;
        if self.current.give_up {
            return Ok(());
        }
        let lines = self.lines - self.current.frames_before;
        let plain = self.session.stats().plain_text - self.current.plain_before;
        let why = if plain > 0 {
            format!(
                "only {plain} line{} of text",
                if plain == 1 { "" } else { "s" }
            )
        } else if lines == 0 {
            "the input is empty".to_string()
        } else {
            "every line was blank or skipped".to_string()
        };
        self.notes.push(format!("{name}: no session ({why})"));
        Ok(())
    }

    /// End of one input: the decoder emits what it held back (joined text,
    /// calls, totals). After an interrupt, without the results it would
    /// rebuild: the stream did not end, it was stopped.
    fn finish_decoder(&mut self, dec: &mut Decoder, interrupted: bool) -> Result<(), Error> {
        self.hide_status();
        if interrupted {
            self.recorder = None;
        }
        let Runner {
            session,
            sink,
            status,
            window,
            outside,
            recorder,
            ..
        } = self;
        dec.finish(&mut |ev: &Event<'_>| {
            if interrupted && matches!(ev.kind, EventKind::Result(_)) {
                return Ok(());
            }
            if let Some(r) = recorder.as_mut() {
                r.event(ev);
            }
            if ev.time.is_some_and(|t| !window.contains(t)) {
                *outside += 1;
                session.left_out(ev);
                return Ok(());
            }
            let now = Instant::now();
            session.observe_at(ev, now);
            if let Some(st) = status.as_mut() {
                st.observe(&ev.kind, session, now);
            }
            sink.event(ev, session)
        })
        .map_err(Error::Write)
    }

    /// Ctrl-C: close the sessions as they are (the pretty sink lists what
    /// was interrupted and the totals so far), print the closing
    /// diagnostics, and return [`ExitStatus::Interrupted`].
    ///
    /// # Errors
    /// Output cannot be written.
    pub fn interrupted(mut self) -> Result<(Session, ExitStatus), Error> {
        self.session.mark_interrupted();
        let (session, _) = self.finish()?;
        Ok((session, ExitStatus::Interrupted))
    }

    /// Erase the status line before anything else reaches the terminal.
    fn hide_status(&mut self) {
        if let Some(st) = self.status.as_mut() {
            st.hide();
        }
    }

    /// Draw the status line (rate-limited). Not while the output stops in
    /// the middle of a line (the erase would take it), unless that line
    /// has stalled: then it is ended, and the line says what is stuck.
    fn draw_status(&mut self) -> Result<(), Error> {
        let Some(st) = self.status.as_mut() else {
            return Ok(());
        };
        let now = Instant::now();
        let end = self.sink.line_end();
        if st.line_stalled(end, now) {
            self.sink
                .end_line()
                .and_then(|()| self.sink.flush())
                .map_err(Error::Write)?;
        } else if end != LineEnd::Complete {
            return Ok(());
        }
        st.draw(now, &self.session);
        Ok(())
    }

    fn frame(&mut self, frame: &Frame<'_>, dec: &mut Decoder) -> Result<(), Error> {
        self.lines += 1;
        self.hide_status();
        match frame {
            Frame::TooLong {
                number,
                len,
                partial,
            } => {
                self.recorder = None;
                let problem = LineProblem::TooLong {
                    len: *len,
                    max: self.max_line,
                };
                let (n, longest) = &mut self.current.too_long;
                (*n, *longest) = (*n + 1, (*longest).max(*len));
                self.skip(*number, &problem, &[], *partial)
            }
            // `--grep`: a line that cannot match is not decoded.
            Frame::Line(line)
                if skipping(self.grep.as_ref(), dec)
                    .is_some_and(|g| !g.line_may_match(line.bytes)) =>
            {
                Ok(())
            }
            Frame::Line(line) => {
                let Runner {
                    session,
                    sink,
                    finished,
                    status,
                    arrived,
                    window,
                    outside,
                    recorder,
                    ..
                } = self;
                let now = *arrived;
                let res = dec
                    .decode(line, &mut |ev: &Event<'_>| {
                        if let Some(r) = recorder.as_mut() {
                            r.event(ev);
                        }
                        if ev.time.is_some_and(|t| !window.contains(t)) {
                            *outside += 1;
                            session.left_out(ev);
                            return Ok(());
                        }
                        session.observe_at(ev, now);
                        if let Some(st) = status.as_mut() {
                            st.observe(&ev.kind, session, now);
                        }
                        if let Some(flag) = finished.as_ref() {
                            match ev.kind {
                                EventKind::Result(_) => flag.store(true, Ordering::Relaxed),
                                EventKind::Notice(_) | EventKind::Usage(_) => {}
                                _ => flag.store(false, Ordering::Relaxed),
                            }
                        }
                        sink.event(ev, session)
                    })
                    .map_err(Error::Write)?;
                if !matches!(res, Decoded::Events | Decoded::Blank) {
                    // Said with its line number, which the index does not keep.
                    self.recorder = None;
                }
                match res {
                    Decoded::Skipped(problem) => self.skip_line(line, &problem)?,
                    Decoded::Implausible(why) => {
                        self.sink.flush().map_err(Error::Write)?;
                        let (file, _, number) = self.session.origin(line.number);
                        self.diag.line_note(file, number, &why);
                    }
                    Decoded::Repaired if self.diag.is_verbose() => {
                        self.sink.flush().map_err(Error::Write)?;
                        let (file, _, number) = self.session.origin(line.number);
                        self.diag.line_note(file, number, REPAIRED);
                    }
                    _ => {}
                }
                Ok(())
            }
        }
    }

    fn skip_line(&mut self, line: &Line<'_>, problem: &LineProblem) -> Result<(), Error> {
        self.skip(line.number, problem, line.bytes, line.partial)
    }

    /// Line `number` is skipped, for `problem`: said with the file and
    /// line it is in (a sub-agent's, in a session read with its files).
    fn skip(
        &mut self,
        number: u64,
        problem: &LineProblem,
        bytes: &[u8],
        partial: bool,
    ) -> Result<(), Error> {
        if partial {
            // The producer was cut off mid-line.
            self.session.mark_cut();
        }
        self.session.skipped_line();
        self.sink.flush().map_err(Error::Write)?;
        // A sub-agent's line is named by its own file and line.
        let (file, _, number) = self.session.origin(number);
        self.diag.skipped_line(file, number, problem, bytes);
        self.current.skipped += 1;
        let cur = &self.current;
        if cur.skipped >= NOT_A_STREAM_AFTER
            && cur.skipped * 2 >= self.lines - cur.frames_before
            && self.json_events() == cur.events_before
        {
            self.current.give_up = true;
        } else if cur.skipped >= NOT_A_STREAM_AFTER {
            // An event stream with bad lines: they are said as they come.
            self.diag.release();
        }
        Ok(())
    }

    /// End of all input: close the sessions, let the sink finish, print the
    /// closing diagnostics and decide the exit status.
    ///
    /// # Errors
    /// Output cannot be written.
    pub fn finish(mut self) -> Result<(Session, ExitStatus), Error> {
        self.hide_status();
        self.session.finish();
        self.sink.finish(&self.session).map_err(Error::Write)?;
        let several = self.inputs > 1;
        // A search shows matches: lines it did not read are no fault.
        let searching = self.grep.is_some();
        if several && !searching {
            for note in std::mem::take(&mut self.notes) {
                self.diag.message(&note);
            }
        }
        let said = (self.io_failed || self.explained) && self.lines == 0;
        // `--since`/`--until` left everything out: said, status 1.
        // (Undated lines of a session left out count for nothing.)
        let none_in_window = !self.window.is_all()
            && self.session.session_count() == 0
            && (self.outside > 0 || self.sessions_outside > 0);
        if none_in_window {
            let plural = |n: u64| if n == 1 { "" } else { "s" };
            self.diag.message(&format!(
                "nothing {}: {} event{} and {} session file{} outside it",
                self.window,
                self.outside,
                plural(self.outside),
                self.sessions_outside,
                plural(self.sessions_outside),
            ));
        } else if self.session.is_empty()
            && !said
            && !searching
            && !self.session.is_interrupted()
            // One input, given up: its line said it.
            && (self.inputs != 1 || self.given_up != 1)
        {
            let plain = self.session.stats().plain_text;
            let msg = if several {
                "no input held a session; run the agent with --output-format stream-json \
                 --verbose (e.g. claude -p \"…\" --output-format stream-json --verbose | streamview)"
                    .to_string()
            } else if plain > 0 {
                format!(
                    "no JSON events in the input, only {plain} line{} of text; run the agent with \
                     --output-format stream-json --verbose (e.g. claude -p \"…\" --output-format stream-json --verbose | streamview)",
                    if plain == 1 { "" } else { "s" }
                )
            } else if self.lines == 0 {
                "the input is empty; run the agent with --output-format stream-json --verbose \
                 (e.g. claude -p \"…\" --output-format stream-json --verbose | streamview)"
                    .to_string()
            } else {
                "no events in the input: every line was blank or skipped".to_string()
            };
            self.diag.message(&msg);
        }
        self.diag.finish();
        // Every input counts: one without a session ended without a result.
        let status = if self.io_failed {
            ExitStatus::Failure
        } else if none_in_window {
            ExitStatus::SessionError
        } else if self.report && self.session.session_count() > 1 {
            // Its tables were printed, the outcomes counted in them.
            ExitStatus::Success
        } else if self.without_session > 0 {
            ExitStatus::Incomplete
        } else {
            ExitStatus::from_outcome(self.session.worst_outcome())
        };
        Ok((self.session, status))
    }
}

/// `--grep`'s pattern when the lines it cannot match may be left unread:
/// once the producer is known (the lines that tell it are read) and when
/// its text is whole on each line. One rule for the lines passed over many
/// at a time ([`Runner::pass_over`]) and one by one ([`Runner::frame`]).
fn skipping<'g>(grep: Option<&'g Grep>, dec: &Decoder) -> Option<&'g Grep> {
    grep.filter(|_| dec.producer().is_some() && !dec.text_spans_lines())
}
