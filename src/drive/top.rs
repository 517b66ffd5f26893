//! `--top`: a board of every agent session being written now, redrawn as
//! they grow.
//!
//! Every [`SCAN`] the stores are walked as `--all-agents` walks them, and
//! each session changed in the last [`ACTIVE`] is tracked: its file is
//! read from where the last read stopped, a few times a second ([`POLL`]),
//! its lines fed to a [`Feeder`] of its own and its events to a live
//! status line's memory ([`StatusLine`]), whose text says what it does
//! now. A session of a `SQLite` store is read again whole when the store
//! changed. Rows of sessions that ended stay, greyed, for [`ENDED_KEPT`].
//!
//! On a terminal the board takes the screen (raw mode, the alternate
//! screen) until `q`, Esc, Ctrl-C, SIGTERM or SIGHUP, or the terminal
//! closes, and the terminal is restored on every way out (a guard's
//! `Drop`); elsewhere one snapshot is printed. The keys are read from
//! standard input by a thread of ours (crossterm's event reader spun on a
//! closed terminal).

use std::io::{self, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant, SystemTime};

use crossterm::{cursor, execute, terminal};

use crate::cli::Options;
use crate::decode::store_readers;
use crate::error::{Error, ExitStatus};
use crate::index::Stamp;
use crate::input::library::{self, Session as Found};
use crate::input::{Interrupt, Source};
use crate::render::StatusLine;
use crate::render::top::{Row, draw};
use crate::run::Feeder;
use crate::time::Timestamp;

/// How often the stores are walked for sessions that began.
const SCAN: Duration = Duration::from_secs(5);

/// How often the tracked files are asked whether they grew.
const POLL: Duration = Duration::from_millis(250);

/// A session is on the board while it changed this recently.
const ACTIVE: Duration = Duration::from_secs(600);

/// A session that ended stays this long, greyed.
const ENDED_KEPT: Duration = Duration::from_secs(60);

/// A session silent this long is greyed.
const QUIET: Duration = Duration::from_secs(120);

/// Bytes read of one file per poll: a long session is caught up over a
/// few polls, the board still answering keys.
const STEP: u64 = 8 << 20;

/// One session followed.
struct Tracked {
    found: Found,
    /// Bytes of its file fed so far.
    offset: u64,
    /// A store's stamp when its session was last read.
    stamp: Option<Stamp>,
    feeder: Feeder,
    status: StatusLine,
    /// When it last grew.
    grew: Instant,
    /// When it was first seen ended.
    ended: Option<Instant>,
    /// What it held when it was found has been read.
    caught_up: bool,
}

impl Tracked {
    fn new(found: Found, now: Instant) -> Tracked {
        // It last grew when its file last changed.
        let changed =
            (found.stored.as_ref()).map_or(Some(found.changed), |s| s.updated.or(found.began));
        let age = changed.map_or(0, |t| {
            Timestamp::of(SystemTime::now()).millis() - t.millis()
        });
        let grew = now
            .checked_sub(Duration::from_millis(u64::try_from(age).unwrap_or(0)))
            .unwrap_or(now);
        Tracked {
            found,
            offset: 0,
            stamp: None,
            feeder: Feeder::new(),
            status: quiet_status(),
            grew,
            ended: None,
            caught_up: false,
        }
    }

    /// Read what was added since the last poll; true when something was.
    fn poll(&mut self, now: Instant) -> bool {
        let grew = if self.found.stored.is_some() {
            self.reread_store()
        } else {
            self.read_more()
        };
        if grew {
            // What it held when found is history: it grew when it changed.
            if self.caught_up {
                self.grew = now;
            }
            let ended = self.feeder.session().current().and_then(|c| c.outcome);
            self.ended = ended.map(|_| self.ended.unwrap_or(now));
        }
        self.caught_up |= !grew;
        grew
    }

    /// The file from where it was left; from its start when it shrank.
    fn read_more(&mut self) -> bool {
        let Ok(mut file) = crate::file::open_regular(&self.found.file) else {
            return false;
        };
        let len = file.metadata().map_or(0, |m| m.len());
        if len < self.offset {
            // Rewritten: read again.
            self.feeder = Feeder::new();
            self.status = quiet_status();
            self.offset = 0;
        }
        if len == self.offset || file.seek(SeekFrom::Start(self.offset)).is_err() {
            return false;
        }
        let mut bytes = Vec::new();
        let _ = (&mut file).take(STEP).read_to_end(&mut bytes);
        let start = self.offset == 0;
        self.offset += bytes.len() as u64;
        let read = !bytes.is_empty();
        if start {
            // Its first line marked as its place says (`StoreReader::mark_head`).
            store_readers().mark_head(&self.found.file, &mut bytes);
        }
        self.feed(&bytes);
        read
    }

    /// A store's session, read whole again when the store changed.
    fn reread_store(&mut self) -> bool {
        let stamp = Stamp::of_path(&self.found.file);
        if stamp.is_none() || stamp == self.stamp {
            return false;
        }
        self.stamp = stamp;
        let Ok(mut rdr) = self.found.open(store_readers()) else {
            return false;
        };
        let mut bytes = Vec::new();
        let _ = (&mut rdr).take(64 << 20).read_to_end(&mut bytes);
        self.feeder = Feeder::new();
        self.status = quiet_status();
        self.feed(&bytes);
        true
    }

    fn feed(&mut self, bytes: &[u8]) {
        let now = Instant::now();
        let status = &mut self.status;
        self.feeder
            .feed(bytes, &mut |ev, s| status.observe(&ev.kind, s, now));
    }

    fn row(&self, now: Instant) -> Row {
        let session = self.feeder.session();
        let cur = session.current();
        let project = (session.cwd().map(PathBuf::from))
            .or_else(|| self.found.file.parent().map(PathBuf::from))
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let text = self.status.text(now, session, 400);
        // The spinner is the board's to say, not each row's; the time
        // since the last event is AGO's (the line's counts from when the
        // board read it).
        let mut doing = text
            .trim_start_matches(|c: char| ('\u{2800}'..='\u{28ff}').contains(&c))
            .trim_start()
            .to_string();
        if let Some(at) = doing.find(" · last event ") {
            let end = doing[at + 3..]
                .find(" · ")
                .map_or(doing.len(), |e| at + 3 + e);
            doing.replace_range(at..end, "");
        }
        Row {
            agent: cur
                .and_then(|c| c.producer)
                .map_or("?", |p| p.agent())
                .to_string(),
            project,
            model: cur.and_then(|c| c.model.clone()).unwrap_or_default(),
            ago: ago(now.saturating_duration_since(self.grew)),
            cost: cur.map_or_else(String::new, |c| money(&c.cost(session.prices()))),
            doing,
            ended: cur
                .and_then(|c| c.outcome)
                .map(crate::session::Outcome::name),
            dim: self.ended.is_some() || now.saturating_duration_since(self.grew) >= QUIET,
        }
    }

    /// Still on the board at `now`.
    fn kept(&self, now: Instant) -> bool {
        let since = |t: Instant| now.saturating_duration_since(t);
        self.ended.is_none_or(|t| since(t) < ENDED_KEPT) && since(self.grew) < ACTIVE
    }
}

/// `12s`, `3m`, `1h`.
fn ago(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        _ => format!("{}h", s / 3600),
    }
}

/// `~$0.0421` (`~`: estimated), empty when unknown.
fn money(c: &crate::session::Cost) -> String {
    let Some(usd) = c.usd else {
        return String::new();
    };
    let mut s = String::from(if c.estimated { "~" } else { "" });
    crate::render::fmt_cost(&mut s, usd);
    s
}

/// A status line that is never drawn: its memory of the last event and its
/// text are the row's.
fn quiet_status() -> StatusLine {
    StatusLine::new(
        Box::new(io::sink()),
        Box::new(|| None),
        false,
        crate::render::status::DEFAULT_WAIT,
    )
}

/// The sessions followed.
struct Board {
    dirs: Vec<PathBuf>,
    tracked: Vec<Tracked>,
    scanned: Option<Instant>,
}

impl Board {
    fn new(opts: &Options) -> Board {
        Board {
            dirs: opts
                .sources
                .iter()
                .filter_map(Source::path)
                .map(PathBuf::from)
                .collect(),
            tracked: Vec::new(),
            scanned: None,
        }
    }

    /// Walk the stores (every [`SCAN`]): the sessions changed lately that
    /// are not followed yet are.
    fn scan(&mut self, now: Instant) {
        if self
            .scanned
            .is_some_and(|t| now.saturating_duration_since(t) < SCAN)
        {
            return;
        }
        self.scanned = Some(now);
        let since = Timestamp::of(SystemTime::now() - ACTIVE);
        for dir in &self.dirs {
            for s in library::sessions_below_on(dir, 1, None, store_readers()).sessions {
                let changed = match &s.stored {
                    Some(st) => st.updated.or(s.began),
                    None => Some(s.changed),
                };
                let followed = self
                    .tracked
                    .iter()
                    .any(|t| t.found.file == s.file && t.found.stored == s.stored);
                if !followed && changed.is_some_and(|t| t >= since) {
                    self.tracked.push(Tracked::new(s, now));
                }
            }
        }
    }

    /// Poll every session; true when one grew or left.
    fn poll(&mut self, now: Instant) -> bool {
        let mut changed = false;
        for t in &mut self.tracked {
            changed |= t.poll(now);
        }
        let before = self.tracked.len();
        self.tracked.retain(|t| t.kept(now));
        changed || self.tracked.len() != before
    }

    /// The rows, the latest to grow first.
    fn rows(&self, now: Instant) -> Vec<Row> {
        let mut order: Vec<&Tracked> = self.tracked.iter().collect();
        order.sort_by_key(|t| std::cmp::Reverse(t.grew));
        order.iter().map(|t| t.row(now)).collect()
    }

    fn title(&self) -> String {
        let n = self.tracked.len();
        let working = self.tracked.iter().filter(|t| t.ended.is_none()).count();
        format!(
            "streamview --top · {n} session{} · {working} working · q quits",
            if n == 1 { "" } else { "s" }
        )
    }
}

/// Run the board: full screen on a terminal, else one snapshot.
///
/// # Errors
/// The output cannot be written.
pub(super) fn run(opts: &Options, interrupt: &Arc<Interrupt>) -> Result<ExitStatus, Error> {
    let mut board = Board::new(opts);
    let terminal = io::stdout().is_terminal()
        && io::stdin().is_terminal()
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb");
    if !terminal {
        return snapshot(&mut board);
    }
    let screen = Screen::enter().map_err(Error::Write)?;
    let ends = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        let _ = signal_hook::flag::register(sig, Arc::clone(&ends));
    }
    let keys = keys();
    let mut drawn: Option<Instant> = None;
    let mut size = None;
    while !ends.load(Ordering::Relaxed) && !interrupt.is_set() {
        let now = Instant::now();
        board.scan(now);
        let changed = board.poll(now);
        let resized = size != terminal::size().ok();
        size = terminal::size().ok();
        if changed
            || resized
            || drawn.is_none_or(|t| now.saturating_duration_since(t) >= Duration::from_secs(1))
        {
            Screen::draw(&board, opts, now).map_err(Error::Write)?;
            drawn = Some(now);
        }
        match keys.recv_timeout(POLL) {
            Ok(Press::Quit) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    drop(screen);
    Ok(ExitStatus::Success)
}

/// Without a terminal: the sessions as they are now, read whole, once.
fn snapshot(board: &mut Board) -> Result<ExitStatus, Error> {
    let now = Instant::now();
    board.scan(now);
    // Read to their ends (a file grows by at most a step per poll).
    while board.tracked.iter_mut().any(|t| t.poll(now)) {}
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .unwrap_or(usize::MAX);
    let bytes = draw(
        &board.title(),
        &board.rows(now),
        (width, usize::MAX),
        None,
        b"\n",
    )
    .map_err(Error::Write)?;
    io::stdout()
        .lock()
        .write_all(&bytes)
        .map_err(Error::Write)?;
    Ok(ExitStatus::Success)
}

/// What the keyboard said.
enum Press {
    Quit,
}

/// The keys, read on a thread of their own (raw mode: each byte as it is
/// typed): `q`, Esc alone and Ctrl-C quit, and so does a terminal that
/// can no longer be read (closed: its reads end at once).
fn keys() -> mpsc::Receiver<Press> {
    let (tx, rx) = mpsc::channel();
    let _ = std::thread::Builder::new()
        .name("top-keys".into())
        .spawn(move || {
            let mut buf = [0u8; 64];
            let mut stdin = io::stdin().lock();
            loop {
                let quit = match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => true,
                    // Esc alone; an arrow key's sequence starts with it too.
                    Ok(1) if buf[0] == 0x1b => true,
                    Ok(n) => buf[..n].iter().any(|b| matches!(b, b'q' | b'Q' | 0x03)),
                };
                if quit {
                    let _ = tx.send(Press::Quit);
                    return;
                }
            }
        });
    rx
}

/// The terminal while the board has it: raw mode, the alternate screen,
/// the cursor hidden; all undone when dropped (also on an error's way
/// out), and by a panic before its message is written (the release build
/// aborts on a panic: nothing is dropped, and a message written on the
/// alternate screen would be wiped with it).
struct Screen;

impl Screen {
    fn enter() -> io::Result<Screen> {
        let said = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            Screen::restore();
            said(info);
        }));
        terminal::enable_raw_mode()?;
        let screen = Screen;
        execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(screen)
    }

    /// The terminal as the board found it.
    fn restore() {
        let _ = execute!(io::stdout(), terminal::LeaveAlternateScreen, cursor::Show);
        let _ = terminal::disable_raw_mode();
    }

    fn draw(board: &Board, opts: &Options, now: Instant) -> io::Result<()> {
        let (cols, rows) =
            terminal::size().map_or((80, 24), |(c, r)| (usize::from(c), usize::from(r)));
        let theme = opts.color_stdout.then_some(&opts.theme);
        // The last row is left empty: a newline there would scroll.
        let lines = draw(
            &board.title(),
            &board.rows(now),
            (cols, rows.saturating_sub(1)),
            theme,
            b"\x1b[K\r\n",
        )?;
        let mut out = io::stdout().lock();
        out.write_all(b"\x1b[H")?;
        out.write_all(&lines)?;
        out.write_all(b"\x1b[J")?;
        out.flush()
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        Screen::restore();
    }
}
