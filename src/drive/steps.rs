//! A plan's steps taken on the calling thread, into one [`Runner`]: each
//! input opened as what it is (a file read in place, a pipe or a followed
//! file on a thread that Ctrl-C can wake), a library's sessions in order
//! (on `-j` threads by [`Jobs`]), the latest session found and read or
//! followed with its sub-agents.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::cli::Options;
use crate::decode::store_readers;
use crate::error::Error;
use crate::index::{self, Index};
use crate::input::{self, Checked, Interrupt, ReadAhead, Source, library};
use crate::render::{self, Sink};
use crate::run::Runner;

use super::jobs::Jobs;
use super::plan::Step;
use super::progress::Progress;

/// What every step reads with.
pub(super) struct Reading<'a> {
    pub opts: &'a Options,
    /// Ctrl-C: stops a read that waits.
    pub interrupt: Option<&'a Arc<Interrupt>>,
    /// How often a waiting read wakes to redraw the status line.
    pub tick: Option<Duration>,
    /// Set by the run when a followed session has finished.
    pub finished: Arc<AtomicBool>,
    /// A library's files on several threads (`-j`).
    pub jobs: Option<&'a Jobs<'a>>,
    /// The progress line of a library read.
    pub progress: Option<&'a Progress>,
    /// The cache directory the index is kept in, once a report over a
    /// library asked for it (`None`: not used, which was said once).
    pub cache: std::cell::OnceCell<Option<std::path::PathBuf>>,
}

impl Reading<'_> {
    /// Take `step`.
    ///
    /// # Errors
    /// Output cannot be written, or the run was interrupted.
    pub(super) fn take<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        step: &Step<'_>,
    ) -> Result<(), Error> {
        match step {
            Step::Read(src) | Step::Follow(src) => {
                self.source(runner, src, matches!(step, Step::Follow(_)))
            }
            Step::Library(dir) => self.library(runner, dir),
            Step::Latest {
                dirs,
                count,
                follow,
            } => self.latest(runner, dirs, *count, *follow),
            Step::Session(session) => self.follow_session(runner, session),
        }
    }

    /// The index of the library `dir`, for a report (see `crate::index`):
    /// `None` for other runs, with `--no-cache`, or when the cache
    /// directory is not safe to use (said once).
    fn index<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        dir: &Path,
    ) -> Option<Arc<Index>> {
        if !super::sinks::ledger(self.opts) {
            return None;
        }
        let cache = self.cache.get_or_init(|| {
            let opened = index::open_dir(self.opts.cache.as_deref()?);
            opened.map_err(|why| runner.say(&why)).ok()
        });
        let reads = format!(
            "from={:?} max-line-bytes={}",
            self.opts.from.map(crate::event::Producer::name),
            self.opts.max_line_bytes
        );
        Some(Arc::new(Index::load(cache.as_deref()?, dir, &reads)))
    }

    /// Read the session files below `dir` (a directory named as input), in
    /// the order [`input::library`] gives; with `-v`, say how many files
    /// there were.
    fn library<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        dir: &Path,
    ) -> Result<(), Error> {
        let name = dir.display().to_string();
        let index = self.index(runner, dir);
        let found =
            library::sessions_below_on(dir, self.opts.jobs, index.as_deref(), store_readers());
        for (d, e) in &found.unreadable {
            runner.open_failed(&d.display().to_string(), e);
        }
        say_not_regular(runner, &name, found.not_regular);
        if found.sessions.is_empty() {
            // Else said, with why (status 2).
            if found.unreadable.is_empty() {
                runner.empty_directory(&name, found.other_files);
            }
            return Ok(());
        }
        let before = runner.found_without_session();
        // `--since`, `--until`: sessions wholly outside are not read;
        // `--project`: nor those of other projects.
        let (inside, outside): (Vec<_>, Vec<_>) =
            (found.sessions.iter()).partition(|s| s.may_overlap(&self.opts.window));
        for _ in &outside {
            runner.session_outside();
        }
        let (inside, elsewhere): (Vec<_>, Vec<_>) = inside
            .into_iter()
            .partition(|s| self.in_project(s, index.as_deref()));
        if let Some(p) = self.progress {
            p.begin(inside.iter().map(|s| s.files() as u64).sum());
        }
        runner.set_index(index.clone());
        let read = match self.jobs {
            Some(jobs) => jobs.read(runner, self.opts, &inside, self.interrupt, self.progress),
            None => inside.iter().try_for_each(|session| {
                runner.library_session(session, true, self.interrupt)?;
                self.progress.inspect(|p| p.read(session));
                Ok(())
            }),
        };
        runner.set_index(None);
        if let Some(p) = self.progress {
            p.end();
        }
        read?;
        let served = index.as_ref().map(|i| (i.served(), i.read_on()));
        if let Some(Ok(Err(why))) = index.map(|i| Arc::try_unwrap(i).map(Index::save)) {
            runner.say(&why);
        }
        if self.opts.verbosity == render::Verbosity::Verbose {
            let read = Counts {
                files: inside.iter().map(|s| s.files()).sum(),
                empty: runner.found_without_session() - before,
                outside: outside.len(),
                elsewhere: elsewhere.len(),
                other: found.other_files,
                served,
            };
            runner.note(&name, &read.describe(self.opts));
        }
        Ok(())
    }

    /// `--latest[=N]`: the N sessions below `dirs` that changed last, said
    /// on stderr, read (or the latest followed) as if they had been named,
    /// in the order they began.
    fn latest<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        dirs: &[&Path],
        count: usize,
        follow: bool,
    ) -> Result<(), Error> {
        let mut found = candidates(self.opts, dirs);
        if follow && found.sessions.is_empty() {
            found = self.wait_for_a_session(runner, dirs, found)?;
        }
        for (d, e) in &found.unreadable {
            runner.open_failed(&d.display().to_string(), e);
        }
        for (dir, n) in &found.not_regular {
            say_not_regular(runner, dir, *n);
        }
        // With -f, one: several are followed by runs of their own
        // (`drive::follow_latest`), unless only one is there.
        let count = if follow { 1 } else { count };
        let newest = library::newest(found.sessions, count);
        if newest.is_empty() {
            if found.unreadable.is_empty() {
                let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
                runner.empty_directory(&names.join(", "), found.other_files);
            }
            // Else said, with why (status 2).
            return Ok(());
        }
        let what = match newest.len() {
            1 => "the latest session".to_string(),
            n => format!("one of the {n} latest sessions"),
        };
        for session in &newest {
            let name = session.name();
            if follow && session.stored.is_none() {
                runner.note(&name, "the latest session; following it");
                return self.follow_session(runner, session);
            }
            if follow {
                // A database is not followed: its sessions are not files that grow.
                runner.note(
                    &name,
                    "the latest session, in a database: read as it is now (not followed)",
                );
            } else {
                runner.note(&name, &what);
            }
            runner.library_session(session, false, self.interrupt)?;
        }
        Ok(())
    }

    /// `--latest -f` with no session yet ("start the viewer, then the
    /// agent"): said once, then the directories (which need not exist
    /// yet) looked at every quarter second until a session is there, as
    /// `-f FILE` waits for its file. Ctrl-C ends the wait.
    fn wait_for_a_session<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        dirs: &[&Path],
        mut found: Candidates,
    ) -> Result<Candidates, Error> {
        let not_yet = |f: &Candidates| {
            f.sessions.is_empty()
                && (f.unreadable.iter()).all(|(_, e)| e.kind() == io::ErrorKind::NotFound)
        };
        if !not_yet(&found) {
            return Ok(found);
        }
        let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        runner.note(
            &names.join(", "),
            "no session yet; waiting for the first one (start the agent)",
        );
        while not_yet(&found) {
            if self.interrupt.is_some_and(|i| i.is_set()) {
                return Err(Error::Interrupted);
            }
            std::thread::sleep(std::time::Duration::from_millis(250));
            found = candidates(self.opts, dirs);
        }
        Ok(found)
    }

    /// `--latest -f`: follow a session's file with its sub-agents' files,
    /// those created later too (see [`input::follow::FollowSession`]).
    fn follow_session<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        session: &library::Session,
    ) -> Result<(), Error> {
        let name = session.name();
        runner.replaying(false);
        // `<session>.jsonl` keeps its sub-agents in `<session>/subagents/`.
        // (`<session>.jsonl.gz` too.)
        let mut stem = session.file.clone();
        let zipped =
            |e: &std::ffi::OsStr| e.eq_ignore_ascii_case("gz") || e.eq_ignore_ascii_case("zst");
        if stem.extension().is_some_and(zipped) {
            stem.set_extension("");
        }
        let agents = stem.with_extension("").join("subagents");
        let finished = Arc::clone(&self.finished);
        let opened = input::follow::FollowSession::open(session.file.clone(), agents, finished)
            .map(|f| f.with_notice(follow_notice(&name)))
            .and_then(|f| self.waking(Box::new(f)));
        match opened {
            Ok(rdr) => runner.source(&name, rdr),
            Err(e) => {
                runner.open_failed(&name, &e);
                Ok(())
            }
        }
    }

    /// Open one input (following it with `follow`) and read it to its end.
    fn source<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        src: &Source,
        follow: bool,
    ) -> Result<(), Error> {
        let name = src.display_name();
        // A saved file read at once; a followed one, a pipe, a terminal are
        // live.
        let in_place = !follow && src.is_regular_file();
        runner.replaying(in_place);
        let opened = match src {
            Source::Path(p) if follow => self.follow(runner, p, &name),
            Source::Stdin if follow => Err(io::Error::other("standard input cannot be followed")),
            _ => src.open(store_readers()),
        };
        // With an interrupt: inputs that can make a read wait (pipes,
        // terminals, a followed file) are read on a thread that Ctrl-C can
        // wake; regular files in place, checked before each read.
        let opened = opened.and_then(|rdr| match self.interrupt {
            Some(intr) if in_place => Ok(Box::new(Checked::new(rdr, intr)) as Box<dyn Read>),
            _ => self.waking(rdr),
        });
        match opened {
            Ok(rdr) => runner.source(&name, rdr),
            Err(e) => {
                runner.open_failed(&name, &e);
                Ok(())
            }
        }
    }

    /// `-f FILE`: the file opened to be followed, with a note when it does
    /// not exist yet or cannot be followed.
    fn follow<S: Sink + ?Sized, E: Write>(
        &self,
        runner: &mut Runner<'_, S, E>,
        path: &Path,
        name: &str,
    ) -> io::Result<Box<dyn Read + Send>> {
        let finished = Arc::clone(&self.finished);
        let (rdr, how) = input::follow::open(path.to_path_buf(), finished, follow_notice(name))?;
        match how {
            input::follow::Opened::Followed | input::follow::Opened::Stream => {}
            input::follow::Opened::Waiting => {
                runner.note(name, "no such file yet; waiting for it to appear");
            }
            input::follow::Opened::NotFollowed(c) => runner.note(
                name,
                &format!("{c}-compressed: read to its end, not followed"),
            ),
        }
        Ok(rdr)
    }

    /// `--project`: `session` was run in the project asked for (any, without
    /// the option).
    fn in_project(&self, session: &library::Session, index: Option<&Index>) -> bool {
        (self.opts.project.as_deref()).is_none_or(|p| super::project::matches(session, p, index))
    }

    /// `rdr` read on a thread that Ctrl-C wakes, when there is an
    /// interrupt.
    fn waking(&self, rdr: Box<dyn Read + Send>) -> io::Result<Box<dyn Read>> {
        Ok(match self.interrupt {
            Some(intr) => Box::new(ReadAhead::spawn(rdr, intr)?.with_tick(self.tick)),
            None => rdr,
        })
    }
}

/// The sessions `--latest` picks among: those below the directories, of
/// the project asked for (`--project`), and what could not be read.
#[derive(Default)]
pub(super) struct Candidates {
    /// In the order they began.
    pub sessions: Vec<library::Session>,
    pub other_files: u64,
    pub unreadable: Vec<(std::path::PathBuf, io::Error)>,
    /// Per directory, the files named like logs that are not regular files.
    pub not_regular: Vec<(String, u64)>,
}

/// The [`Candidates`] below `dirs`.
pub(super) fn candidates(opts: &Options, dirs: &[&Path]) -> Candidates {
    let mut c = Candidates::default();
    let in_project = |s: &library::Session| {
        (opts.project.as_deref()).is_none_or(|p| super::project::matches(s, p, None))
    };
    for dir in dirs {
        let found = library::sessions_below(dir, store_readers());
        c.unreadable.extend(found.unreadable);
        c.not_regular
            .push((dir.display().to_string(), found.not_regular));
        c.sessions
            .extend(found.sessions.into_iter().filter(in_project));
        c.other_files += found.other_files;
    }
    c
}

/// What `-v` says of a library read.
struct Counts {
    files: usize,
    empty: u64,
    outside: usize,
    elsewhere: usize,
    other: u64,
    /// Sessions taken from the index, and those of them read on from
    /// where it left their file (`None`: not used).
    served: Option<(u64, u64)>,
}

impl Counts {
    fn describe(&self, opts: &Options) -> String {
        let s = |n: u64| if n == 1 { "" } else { "s" };
        let Counts {
            files,
            empty,
            outside,
            elsewhere,
            other,
            served,
        } = *self;
        let mut skipped = String::new();
        if outside > 0 {
            skipped = format!(
                ", {outside} session{} {} skipped",
                s(outside as u64),
                opts.window
            );
        }
        if elsewhere > 0 {
            let p = opts.project.as_deref().unwrap_or("");
            skipped += &format!(
                ", {elsewhere} session{} of other projects than `{p}` skipped",
                s(elsewhere as u64)
            );
        }
        let indexed = match served {
            Some((n, 0)) => format!(", {n} from the index"),
            Some((n, grown)) => {
                format!(", {n} from the index, {grown} more from it and the lines added since")
            }
            None => String::new(),
        };
        format!(
            "{files} session file{} read ({empty} without a session{indexed}){skipped}, {other} \
             other file{} left alone",
            s(files as u64),
            s(other),
        )
    }
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
