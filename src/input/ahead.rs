//! Reading on a thread of its own, so that the loop waiting for input can be
//! woken up.
//!
//! Why: Ctrl-C must print the summary so far (issue 6). The signal handler
//! (`ctrlc`, installed with `SA_RESTART`) runs on its own thread and does not
//! interrupt a `read()` blocked on a quiet pipe, and the crate forbids the
//! unsafe code it would take to change that. So the blocking `read()` happens
//! here, on a reader thread, and the main loop waits on a channel that the
//! handler can also post to ([`Interrupt::trigger`]). The main loop keeps
//! its shape (frame what is buffered, flush, then wait), which is also where
//! a live status line (issue 4) will hook in.
//!
//! Memory stays bounded: at most [`QUEUE`] chunks of [`CHUNK`] bytes are in
//! flight, and their buffers are handed back to the reader for reuse. The
//! one copy, from a chunk into the line buffer, costs far less than parsing.
//! A regular file never makes a read wait, so it needs no thread: it is read
//! in place through [`Checked`], which looks at the flag before each read.

use std::fmt;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::Duration;

/// Bytes asked for by one `read()` on the reader thread.
pub const CHUNK: usize = 64 * 1024;

/// Chunks read ahead at most.
pub const QUEUE: usize = 4;

enum Msg {
    /// A buffer and how many of its bytes were read.
    Data(Vec<u8>, usize),
    /// End of input.
    End,
    /// The read failed; the input ends here.
    Failed(io::Error),
    /// Look at the interrupt flag.
    Wake,
}

/// The flag a SIGINT handler sets, and the way to wake the readers that
/// wait for input (one per followed file: `-f A B …` reads several at
/// once, each on a [`ReadAhead`] of its own).
#[derive(Default)]
pub struct Interrupt {
    flag: AtomicBool,
    wakers: Mutex<Vec<SyncSender<Msg>>>,
}

impl fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interrupt")
            .field("set", &self.is_set())
            .finish_non_exhaustive()
    }
}

impl Interrupt {
    /// A flag that is not set.
    #[must_use]
    pub fn new() -> Arc<Interrupt> {
        Arc::new(Interrupt::default())
    }

    /// Set the flag and wake every [`ReadAhead`] waiting for input.
    /// Returns true when the flag was already set (a second Ctrl-C).
    pub fn trigger(&self) -> bool {
        let was = self.flag.swap(true, Ordering::SeqCst);
        let mut wakers = self.wakers.lock().unwrap_or_else(PoisonError::into_inner);
        // A full queue means the reader is not waiting: it looks at the
        // flag before it takes the next chunk. A reader gone is forgotten.
        wakers.retain(|tx| !matches!(tx.try_send(Msg::Wake), Err(TrySendError::Disconnected(_))));
        was
    }

    /// Wake `tx`'s reader on the next [`Interrupt::trigger`]; readers gone
    /// are forgotten.
    fn add_waker(&self, tx: SyncSender<Msg>) {
        let mut wakers = self.wakers.lock().unwrap_or_else(PoisonError::into_inner);
        // A spurious wake is harmless: the reader looks at the flag.
        wakers.retain(|w| !matches!(w.try_send(Msg::Wake), Err(TrySendError::Disconnected(_))));
        wakers.push(tx);
    }

    /// True once [`Interrupt::trigger`] was called.
    #[must_use]
    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

/// Why a read returned an error without anything going wrong: the errors
/// [`ReadAhead`] (and [`Checked`]) return, told apart by [`is_interrupt`]
/// and [`is_tick`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wake {
    /// The [`Interrupt`] was triggered.
    Interrupted,
    /// No input came for a tick (see [`ReadAhead::with_tick`]); the read can
    /// be repeated.
    Tick,
}

impl fmt::Display for Wake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wake::Interrupted => "interrupted",
            Wake::Tick => "no input for a tick",
        })
    }
}

impl std::error::Error for Wake {}

fn wake_of(e: &io::Error) -> Option<Wake> {
    e.get_ref()?.downcast_ref::<Wake>().copied()
}

/// True for the error a [`ReadAhead`] returns when a tick passed without
/// input (see [`ReadAhead::with_tick`]); reading again goes on waiting.
#[must_use]
pub fn is_tick(e: &io::Error) -> bool {
    wake_of(e) == Some(Wake::Tick)
}

/// True for the error a [`ReadAhead`] returns when its [`Interrupt`] was
/// triggered.
#[must_use]
pub fn is_interrupt(e: &io::Error) -> bool {
    wake_of(e) == Some(Wake::Interrupted)
}

/// A `Read` that checks the [`Interrupt`] before every read, on the
/// caller's thread: for regular files, whose reads never wait, so Ctrl-C is
/// seen within one read without a thread or a copy.
pub struct Checked<R> {
    rdr: R,
    interrupt: Arc<Interrupt>,
}

impl<R: Read> Checked<R> {
    /// Read `rdr`, stopping once `interrupt` is set.
    pub fn new(rdr: R, interrupt: &Arc<Interrupt>) -> Self {
        Checked {
            rdr,
            interrupt: Arc::clone(interrupt),
        }
    }
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.interrupt.is_set() {
            return Err(io::Error::other(Wake::Interrupted));
        }
        self.rdr.read(out)
    }
}

/// A `Read` whose reads happen on a background thread; see the module docs.
pub struct ReadAhead {
    rx: Receiver<Msg>,
    spare: Sender<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
    len: usize,
    done: bool,
    interrupt: Arc<Interrupt>,
    tick: Option<Duration>,
}

impl ReadAhead {
    /// Wake a read that waits longer than `tick` with an error that
    /// [`is_tick`] recognises, so that the caller can redraw a live status
    /// line (and then read again).
    #[must_use]
    pub fn with_tick(mut self, tick: Option<Duration>) -> Self {
        self.tick = tick;
        self
    }

    /// Start reading `rdr` on a new thread. `interrupt` can wake the reads.
    ///
    /// # Errors
    /// The thread cannot be started.
    pub fn spawn<R: Read + Send + 'static>(
        mut rdr: R,
        interrupt: &Arc<Interrupt>,
    ) -> io::Result<ReadAhead> {
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let (spare, spares) = mpsc::channel::<Vec<u8>>();
        interrupt.add_waker(tx.clone());
        thread::Builder::new()
            .name("streamview-reader".into())
            .spawn(move || {
                loop {
                    let mut buf = spares.try_recv().unwrap_or_else(|_| vec![0; CHUNK]);
                    let msg = match rdr.read(&mut buf) {
                        Ok(0) => Msg::End,
                        Ok(n) => Msg::Data(buf, n),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => Msg::Failed(e),
                    };
                    let last = !matches!(msg, Msg::Data(..));
                    // The receiver is gone when the run ended early (a
                    // closed stdout): nothing left to do.
                    if tx.send(msg).is_err() || last {
                        return;
                    }
                }
            })?;
        Ok(ReadAhead {
            rx,
            spare,
            chunk: Vec::new(),
            pos: 0,
            len: 0,
            done: false,
            interrupt: Arc::clone(interrupt),
            tick: None,
        })
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.interrupt.is_set() {
                return Err(io::Error::other(Wake::Interrupted));
            }
            if self.pos < self.len {
                let n = out.len().min(self.len - self.pos);
                out[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if self.done {
                return Ok(0);
            }
            if !self.chunk.is_empty() {
                let _ = self.spare.send(std::mem::take(&mut self.chunk));
            }
            let msg = match self.tick {
                Some(t) => match self.rx.recv_timeout(t) {
                    Ok(m) => Ok(m),
                    Err(RecvTimeoutError::Timeout) => return Err(io::Error::other(Wake::Tick)),
                    Err(RecvTimeoutError::Disconnected) => Err(mpsc::RecvError),
                },
                None => self.rx.recv(),
            };
            match msg {
                Ok(Msg::Data(buf, n)) => {
                    self.chunk = buf;
                    self.pos = 0;
                    self.len = n;
                }
                Ok(Msg::End) | Err(_) => {
                    self.done = true;
                    return Ok(0);
                }
                Ok(Msg::Failed(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Ok(Msg::Wake) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that never returns, like a quiet pipe.
    struct Quiet;

    impl Read for Quiet {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            loop {
                thread::sleep(Duration::from_secs(3600));
            }
        }
    }

    #[test]
    fn reads_everything_in_order() {
        let data: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        let intr = Interrupt::new();
        let mut rdr = ReadAhead::spawn(io::Cursor::new(data.clone()), &intr).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 1000];
        loop {
            let n = rdr.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, data);
        assert_eq!(rdr.read(&mut buf).unwrap(), 0);
    }

    #[test]
    fn an_interrupt_wakes_a_blocked_read() {
        let intr = Interrupt::new();
        let mut rdr = ReadAhead::spawn(Quiet, &intr).unwrap();
        let trigger = Arc::clone(&intr);
        let t = thread::spawn(move || {
            thread::sleep(Duration::from_millis(50));
            trigger.trigger()
        });
        let err = rdr.read(&mut [0u8; 16]).unwrap_err();
        assert!(is_interrupt(&err));
        assert!(!t.join().unwrap(), "the first trigger");
        assert!(intr.trigger(), "the second trigger");
    }

    #[test]
    fn an_interrupt_wakes_every_blocked_read_not_only_the_last() {
        // `-f A B …`: one Ctrl-C, several readers waiting.
        let intr = Interrupt::new();
        let readers: Vec<ReadAhead> = (0..3)
            .map(|_| ReadAhead::spawn(Quiet, &intr).unwrap())
            .collect();
        let trigger = Arc::clone(&intr);
        let t = thread::spawn(move || {
            thread::sleep(Duration::from_millis(50));
            trigger.trigger()
        });
        let woken: Vec<_> = readers
            .into_iter()
            .map(|mut r| {
                thread::spawn(move || r.read(&mut [0u8; 16]).map_err(|e| is_interrupt(&e)))
            })
            .collect();
        for w in woken {
            assert_eq!(w.join().unwrap(), Err(true));
        }
        t.join().unwrap();
    }

    #[test]
    fn a_tick_wakes_a_waiting_read_which_can_be_repeated() {
        let intr = Interrupt::new();
        let (r, mut w) = std::io::pipe().unwrap();
        let mut rdr = ReadAhead::spawn(r, &intr)
            .unwrap()
            .with_tick(Some(Duration::from_millis(20)));
        let mut buf = [0u8; 16];
        let err = rdr.read(&mut buf).unwrap_err();
        assert!(is_tick(&err) && !is_interrupt(&err));
        std::io::Write::write_all(&mut w, b"abc").unwrap();
        drop(w);
        let mut got = Vec::new();
        loop {
            match rdr.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if is_tick(&e) => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(got, b"abc");
    }

    #[test]
    fn checked_reads_stop_at_the_interrupt() {
        let intr = Interrupt::new();
        let mut rdr = Checked::new(&b"abc"[..], &intr);
        let mut buf = [0u8; 2];
        assert_eq!(rdr.read(&mut buf).unwrap(), 2);
        intr.trigger();
        assert!(is_interrupt(&rdr.read(&mut buf).unwrap_err()));
    }

    #[test]
    fn read_errors_are_passed_on() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut rdr = ReadAhead::spawn(Failing, &Interrupt::new()).unwrap();
        let err = rdr.read(&mut [0u8; 16]).unwrap_err();
        assert!(!is_interrupt(&err));
        assert_eq!(err.to_string(), "disk on fire");
        assert_eq!(rdr.read(&mut [0u8; 16]).unwrap(), 0);
    }
}
