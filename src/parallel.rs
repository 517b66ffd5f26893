//! `-j N`: work on N threads, results in order.
//!
//! [`ordered`] hands the items of a list to `jobs` threads, the calling
//! thread one of them, and gives their results back on the calling thread
//! in the list's order, each once it and every one before it are done: the
//! output of a parallel run is the output of a run on one thread, written
//! while the work goes on. At most `ahead` results wait to be given back
//! (a thread that would run further ahead waits), so memory is bounded by
//! that many items' results, whatever the length of the list. This is how
//! hl and ripgrep keep their output in order; std's scoped threads, a mutex
//! and a condition variable are all it takes.
//!
//! The calling thread gives back between its own items rather than
//! sleeping until each result comes: a thread woken for every file of a
//! library is a context switch a file, and on a virtual machine a wake-up
//! can cost more than a small file's work (issue 27: 1,857 switches and
//! 80 ms of CPU over a `--grep` of 1,575 files).
//!
//! A thread the system will not give (`-j 65535`: `EAGAIN`) is done
//! without: the work goes on on the threads it gave, the calling thread's
//! at least, and the results are the same.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, PoisonError};

/// Where the work stands.
struct State<R> {
    /// The next item to start.
    next: usize,
    /// The next result to give back.
    given: usize,
    /// Results done, not yet given back.
    done: BTreeMap<usize, R>,
    /// Stop starting items: the caller failed, or `stop` said so.
    stopped: bool,
    /// A thread's work panicked: its result will never come.
    failed: bool,
    /// Threads waiting for a change: a change wakes them only if there
    /// are some (a wake is a system call even when nobody waits: three per
    /// item, 5,800 of them over a library of 1,575 files).
    waiting: usize,
}

/// What the threads share: the state, and a signal when it changed.
struct Shared<R> {
    state: Mutex<State<R>>,
    changed: Condvar,
    /// Items in all.
    len: usize,
    /// At most this many results wait to be given back.
    ahead: usize,
}

impl<R> Shared<R> {
    fn lock(&self) -> std::sync::MutexGuard<'_, State<R>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(
        &self,
        mut s: std::sync::MutexGuard<'a, State<R>>,
    ) -> std::sync::MutexGuard<'a, State<R>> {
        s.waiting += 1;
        let mut s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        s.waiting -= 1;
        s
    }

    /// The state changed (under `s`, released here): wake who waits.
    fn changed(&self, s: std::sync::MutexGuard<'_, State<R>>) {
        let waiting = s.waiting > 0;
        drop(s);
        if waiting {
            self.changed.notify_all();
        }
    }

    /// Items are left to start, and the run goes on.
    fn open(&self, s: &State<R>) -> bool {
        !s.stopped && s.next < self.len
    }

    /// Fewer than `ahead` results wait: the next item may start.
    fn room(&self, s: &State<R>) -> bool {
        s.next < s.given + self.ahead
    }

    /// Start the next item, unless `stop` says the run stops (then no
    /// more will).
    fn take(s: &mut State<R>, stop: &(dyn Fn() -> bool + Sync)) -> Option<usize> {
        if stop() {
            s.stopped = true;
            return None;
        }
        s.next += 1;
        Some(s.next - 1)
    }

    /// The next item for a thread to work on, once fewer than `ahead`
    /// results wait; `None` when every item is started or the run stops.
    fn start(&self, stop: &(dyn Fn() -> bool + Sync)) -> Option<usize> {
        let mut s = self.lock();
        while self.open(&s) && !self.room(&s) {
            s = self.wait(s);
        }
        let i = if self.open(&s) {
            Self::take(&mut s, stop)
        } else {
            None
        };
        if i.is_none() {
            s.stopped = true;
        }
        self.changed(s);
        i
    }

    /// Item `i`'s result is done.
    fn done(&self, i: usize, r: R) {
        let mut s = self.lock();
        s.done.insert(i, r);
        self.changed(s);
    }

    /// What the calling thread does next: give back the next result in
    /// order once it is done, else start an item while fewer than `ahead`
    /// results wait, else wait for the next result; `End` once every item
    /// started was given back and none is left to start.
    fn next_step(&self, stop: &(dyn Fn() -> bool + Sync)) -> Step<R> {
        let mut s = self.lock();
        let next = loop {
            let first = s.given;
            if let Some(r) = s.done.remove(&first) {
                s.given += 1;
                break Step::Give(r);
            }
            if s.failed {
                break Step::End;
            }
            if self.open(&s) && self.room(&s) {
                match Self::take(&mut s, stop) {
                    Some(i) => break Step::Work(i),
                    None => continue,
                }
            }
            if !self.open(&s) && s.given >= s.next {
                break Step::End;
            }
            s = self.wait(s);
        };
        self.changed(s);
        next
    }

    /// Start no more items.
    fn stop(&self) {
        let mut s = self.lock();
        s.stopped = true;
        self.changed(s);
    }
}

/// A thread's builder: std's, whose stack a test makes too large to be
/// given.
fn builder() -> std::thread::Builder {
    let b = std::thread::Builder::new();
    #[cfg(test)]
    if let Some(bytes) = tests::STACK.get() {
        return b.stack_size(bytes);
    }
    b
}

/// What the calling thread of [`ordered`] does next.
enum Step<R> {
    /// Give back this result, the next in order.
    Give(R),
    /// Work on this item.
    Work(usize),
    /// Every result was given back.
    End,
}

/// Ends a run of [`ordered`] when dropped while its thread panics (a
/// work or `give` that panicked): no thread then waits for what will never
/// come, and the scope passes the panic on instead of hanging.
struct OnPanic<'a, R>(&'a Shared<R>);

impl<R> Drop for OnPanic<'_, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut s = self.0.lock();
            s.stopped = true;
            s.failed = true;
            drop(s);
            self.0.changed.notify_all();
        }
    }
}

/// Run `work` on each item of `items` on `jobs` threads (1: on this one;
/// fewer when the system gives no more) and pass each result to `give`,
/// in the order of `items`. `stop` is asked before each item is started:
/// once it says `true`, no more are, and the results of those started are
/// still given. An error of `give`
/// stops the run and is returned.
///
/// # Errors
/// The first error of `give`.
pub fn ordered<T, R, E>(
    items: &[T],
    jobs: usize,
    ahead: usize,
    stop: &(dyn Fn() -> bool + Sync),
    work: &(dyn Fn(&T) -> R + Sync),
    give: &mut dyn FnMut(R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Sync,
    R: Send,
{
    if jobs <= 1 || items.len() <= 1 {
        for item in items {
            if stop() {
                break;
            }
            give(work(item))?;
        }
        return Ok(());
    }
    let shared = Shared {
        state: Mutex::new(State {
            next: 0,
            given: 0,
            done: BTreeMap::new(),
            stopped: false,
            failed: false,
            waiting: 0,
        }),
        changed: Condvar::new(),
        len: items.len(),
        ahead: ahead.max(jobs),
    };
    std::thread::scope(|scope| {
        for _ in 1..jobs.min(items.len()) {
            let spawned = builder().spawn_scoped(scope, || {
                let _failed = OnPanic(&shared);
                while let Some(i) = shared.start(stop) {
                    shared.done(i, work(&items[i]));
                }
            });
            // The system gives no more threads: the run goes on with
            // those it gave (this one works, so there is always one).
            if spawned.is_err() {
                break;
            }
        }
        let _failed = OnPanic(&shared);
        // This thread works too, and gives back in order between its
        // items; after an error, the results of the items started are
        // still taken (and dropped).
        let mut res = Ok(());
        loop {
            match shared.next_step(stop) {
                Step::Give(r) => {
                    if res.is_ok() {
                        res = give(r);
                        if res.is_err() {
                            shared.stop();
                        }
                    }
                }
                Step::Work(i) => shared.done(i, work(&items[i])),
                Step::End => break,
            }
        }
        res
    })
}

/// Items given to [`map_fed`]'s threads in batches of at most this many:
/// a directory of a thousand files is shared out.
const FED_BATCH: usize = 32;

/// What [`map_fed`]'s feeder and threads share.
struct Fed<T> {
    /// Batches not taken yet, each with the position of its first item.
    queue: std::collections::VecDeque<(usize, Vec<T>)>,
    /// The feeder is done.
    closed: bool,
    /// Threads waiting for a batch.
    waiting: usize,
}

/// Closes a [`Fed`] queue when dropped, and wakes every thread.
struct Close<'a, T>(&'a (Mutex<Fed<T>>, Condvar));

impl<T> Drop for Close<'_, T> {
    fn drop(&mut self) {
        let (state, changed) = self.0;
        state.lock().unwrap_or_else(PoisonError::into_inner).closed = true;
        changed.notify_all();
    }
}

/// `work` on each item `feed` gives, on `jobs` threads (fewer when the
/// system gives no more; none: on the calling thread, batch by batch)
/// while `feed` goes on (on the calling thread); the results in the order
/// given. For many small items found one by one (a directory walk's files, each read for
/// its first timestamp): the work begins before the last item is found.
pub fn map_fed<T, R>(
    jobs: usize,
    feed: impl FnOnce(&mut dyn FnMut(Vec<T>)),
    work: &(dyn Fn(&T) -> R + Sync),
) -> Vec<R>
where
    T: Send,
    R: Send,
{
    if jobs <= 1 {
        let mut out = Vec::new();
        feed(&mut |items| out.extend(items.iter().map(work)));
        return out;
    }
    let shared = (
        Mutex::new(Fed {
            queue: std::collections::VecDeque::new(),
            closed: false,
            waiting: 0,
        }),
        Condvar::new(),
    );
    let lock = || shared.0.lock().unwrap_or_else(PoisonError::into_inner);
    let take = || {
        let mut s = lock();
        loop {
            if let Some(batch) = s.queue.pop_front() {
                return Some(batch);
            }
            if s.closed {
                return None;
            }
            s.waiting += 1;
            s = shared.1.wait(s).unwrap_or_else(PoisonError::into_inner);
            s.waiting -= 1;
        }
    };
    let mut parts: Vec<(usize, Vec<R>)> = std::thread::scope(|scope| {
        // As many of the threads as the system gives.
        let threads: Vec<_> = (0..jobs)
            .map_while(|_| {
                let spawned = builder().spawn_scoped(scope, || {
                    let mut done = Vec::new();
                    while let Some((at, items)) = take() {
                        done.push((at, items.iter().map(work).collect::<Vec<R>>()));
                    }
                    done
                });
                spawned.ok()
            })
            .collect();
        if threads.is_empty() {
            // Not one: the work is done here, as the feeder gives it.
            let mut out = Vec::new();
            feed(&mut |items| out.extend(items.iter().map(work)));
            return vec![(0, out)];
        }
        // Closed when the feeder is done, or fails: the threads then end,
        // and the scope can join them (a panic must not become a hang).
        let close = Close(&shared);
        let mut given = 0;
        feed(&mut |mut items| {
            while !items.is_empty() {
                let rest = items.split_off(items.len().min(FED_BATCH));
                let n = items.len();
                let mut s = lock();
                s.queue.push_back((given, items));
                let wake = s.waiting > 0;
                drop(s);
                if wake {
                    shared.1.notify_one();
                }
                given += n;
                items = rest;
            }
        });
        drop(close);
        (threads.into_iter())
            .flat_map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    parts.sort_unstable_by_key(|(at, _)| *at);
    parts.into_iter().flat_map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    thread_local! {
        /// The stack size of the threads [`builder`] makes (`None`: std's).
        pub(super) static STACK: std::cell::Cell<Option<usize>> =
            const { std::cell::Cell::new(None) };
    }

    #[test]
    fn threads_the_system_will_not_give_are_done_without() {
        // A petabyte of stack: no thread can be had.
        STACK.set(Some(1 << 50));
        assert!(builder().spawn(|| ()).is_err());
        let got = run(100, 4, 8);
        let fed = map_fed(
            3,
            |give| {
                give((0..40).collect());
                give((40..50).collect());
            },
            &|&i: &usize| i * 10,
        );
        STACK.set(None);
        assert_eq!(got, (0..100).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(fed, (0..50).map(|i| i * 10).collect::<Vec<_>>());
    }

    fn run(n: usize, jobs: usize, ahead: usize) -> Vec<usize> {
        let items: Vec<usize> = (0..n).collect();
        let mut got = Vec::new();
        let res: Result<(), ()> = ordered(
            &items,
            jobs,
            ahead,
            &|| false,
            // Later items finish first: the order must be restored.
            &|&i| {
                std::thread::sleep(std::time::Duration::from_micros(((n - i) % 7) as u64 * 50));
                i * 10
            },
            &mut |r| {
                got.push(r);
                Ok(())
            },
        );
        assert!(res.is_ok());
        got
    }

    #[test]
    fn map_fed_keeps_the_order_items_were_given_in() {
        for (batches, jobs) in [
            (vec![], 2),
            (vec![0], 1),
            (vec![3, 0, 100, 1, 33], 2),
            (vec![5; 40], 3),
        ] {
            let n: usize = batches.iter().sum();
            let got = map_fed(
                jobs,
                |give| {
                    let mut next = 0;
                    for len in &batches {
                        give((next..next + len).collect());
                        next += len;
                    }
                },
                &|&i: &usize| {
                    std::thread::sleep(std::time::Duration::from_micros((i % 5) as u64 * 20));
                    i * 10
                },
            );
            assert_eq!(
                got,
                (0..n).map(|i| i * 10).collect::<Vec<_>>(),
                "{batches:?} {jobs}"
            );
        }
    }

    #[test]
    fn a_panic_in_the_work_or_the_giving_is_passed_on_not_waited_for() {
        let items: Vec<usize> = (0..100).collect();
        for (bad_work, bad_give) in [(Some(5), None), (Some(0), None), (None, Some(3))] {
            let res = std::panic::catch_unwind(|| {
                ordered(
                    &items,
                    2,
                    4,
                    &|| false,
                    &|&i| {
                        assert_ne!(Some(i), bad_work, "the work failed");
                        i
                    },
                    &mut |i| -> Result<(), ()> {
                        assert_ne!(Some(i), bad_give, "the giving failed");
                        Ok(())
                    },
                )
            });
            assert!(res.is_err(), "{bad_work:?} {bad_give:?}");
        }
    }

    #[test]
    fn a_feeder_that_panics_does_not_leave_the_threads_waiting() {
        let res = std::panic::catch_unwind(|| {
            map_fed(
                2,
                |give| {
                    give(vec![1, 2, 3]);
                    panic!("the walk failed");
                },
                &|&i: &usize| i,
            )
        });
        assert!(res.is_err());
    }

    #[test]
    fn results_come_in_order() {
        for (n, jobs, ahead) in [
            (0, 4, 8),
            (1, 4, 8),
            (100, 1, 1),
            (100, 2, 2),
            (100, 4, 3),
            (257, 8, 64),
        ] {
            let want: Vec<usize> = (0..n).map(|i| i * 10).collect();
            assert_eq!(run(n, jobs, ahead), want, "{n} {jobs} {ahead}");
        }
    }

    #[test]
    fn the_calling_thread_is_one_of_the_jobs() {
        // `jobs` threads in all, the caller among them: it works between
        // giving results back instead of sleeping until each comes.
        let items: Vec<usize> = (0..60).collect();
        let caller = std::thread::current().id();
        let ran = Mutex::new(std::collections::HashSet::new());
        let res: Result<(), ()> = ordered(
            &items,
            2,
            4,
            &|| false,
            &|&i| {
                ran.lock().unwrap().insert(std::thread::current().id());
                std::thread::sleep(std::time::Duration::from_micros(200));
                i
            },
            &mut |_| Ok(()),
        );
        assert!(res.is_ok());
        let ran = ran.into_inner().unwrap();
        assert_eq!(ran.len(), 2, "{ran:?}");
        assert!(ran.contains(&caller));
    }

    #[test]
    fn no_thread_runs_further_ahead_than_allowed() {
        let items: Vec<usize> = (0..200).collect();
        let given = AtomicUsize::new(0);
        let res: Result<(), ()> = ordered(
            &items,
            4,
            6,
            &|| false,
            &|&i| {
                let g = given.load(Ordering::SeqCst);
                assert!(i < g + 6 + 1, "item {i} started with {g} given");
                i
            },
            &mut |_| {
                given.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
        );
        assert!(res.is_ok());
    }

    #[test]
    fn an_error_stops_the_run() {
        let items: Vec<usize> = (0..1000).collect();
        let started = AtomicUsize::new(0);
        let mut given = 0;
        let res = ordered(
            &items,
            3,
            4,
            &|| false,
            &|&i| {
                started.fetch_add(1, Ordering::SeqCst);
                i
            },
            &mut |i| {
                given += 1;
                if i == 10 { Err("full") } else { Ok(()) }
            },
        );
        assert_eq!(res, Err("full"));
        assert_eq!(given, 11);
        assert!(started.load(Ordering::SeqCst) < 30);
    }

    #[test]
    fn stop_starts_no_more_items() {
        let items: Vec<usize> = (0..1000).collect();
        let started = AtomicUsize::new(0);
        let mut got = Vec::new();
        let res: Result<(), ()> = ordered(
            &items,
            2,
            4,
            &|| started.load(Ordering::SeqCst) >= 20,
            &|&i| {
                started.fetch_add(1, Ordering::SeqCst);
                i
            },
            &mut |i| {
                got.push(i);
                Ok(())
            },
        );
        assert!(res.is_ok());
        // What was started is given back, in order, without a gap.
        assert!(got.len() >= 20 && got.len() < 30, "{}", got.len());
        assert_eq!(got, (0..got.len()).collect::<Vec<_>>());
    }
}
