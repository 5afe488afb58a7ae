//! Two-way fork-join for the steps of one file that are large enough to be
//! worth splitting (parsing a long list of numbers, a third of the time of
//! baking a big file): half runs on a scoped thread, half on the caller's,
//! and the result is the one thread's result, in the same order.
//!
//! One thread budget: each thread has a share of the cores (all of them
//! unless [`with_share`] says otherwise, as a batch's workers do); a join
//! splits its share between its two halves, and one with a share of one
//! runs both halves itself. So however the steps nest, no more threads are
//! busy than the shares add up to.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

thread_local! {
    /// This thread's share of the cores; 0: not set (all of them).
    static SHARE: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` on this thread with a share of `threads` (0: all the cores).
pub fn with_share<R>(threads: usize, f: impl FnOnce() -> R) -> R {
    let before = SHARE.replace(threads);
    let r = f();
    SHARE.set(before);
    r
}

/// This thread's share of the cores.
fn share() -> usize {
    match SHARE.get() {
        0 => cores(),
        n => n,
    }
}

/// The cores this process may use, asked once (the answer reads cgroup
/// files: asked for each small step, it cost more than the step).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Drops `value` on a thread of its own where this thread's share has room
/// for one, so that freeing it (a large buffer's pages: 0.8 ms for 10 MB
/// here) overlaps what this thread does next; here otherwise, and where no
/// thread can start (the closure, which holds it, is dropped here then).
pub fn drop_aside<T: Send + 'static>(value: T) {
    if share() < 2 {
        drop(value);
        return;
    }
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

/// Work on at least this many bytes is split in two; below it a thread
/// costs more than it saves.
pub const SPLIT_BYTES: usize = 1 << 20;

/// How many threads a step may keep busy when `asked` (0: this thread's
/// share, see [`with_share`]).
pub fn budget(asked: usize) -> usize {
    match asked {
        0 => share(),
        n => n,
    }
}

/// `f` of each item, in order, on this thread's share of the cores: the
/// items split into halves of about equal `bytes` (each item's), joined,
/// while there are at least two, [`SPLIT_BYTES`] and a share of two; the
/// same results however many threads.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    bytes: &(impl Fn(&T) -> usize + Sync),
    f: &(impl Fn(&T) -> R + Sync),
) -> Vec<R> {
    let total: usize = items.iter().map(bytes).sum();
    if items.len() < 2 || total < SPLIT_BYTES || share() < 2 {
        return items.iter().map(f).collect();
    }
    let (mut half, mut at) = (0, 0);
    while at < items.len() - 1 && half + bytes(&items[at]) <= total / 2 {
        half += bytes(&items[at]);
        at += 1;
    }
    let (a, b) = items.split_at(at.max(1));
    let (mut a, b) = join(|| map(a, bytes, f), || map(b, bytes, f));
    a.extend(b);
    a
}

/// `f` of each item, in order, on this thread's share of the cores, each
/// thread taking the next item none has taken: for many items whose time
/// their `bytes` tell less well than [`map`] needs, or when a thread
/// starts late. Split as [`map`] is (past [`SPLIT_BYTES`], with a share of
/// two); the same results however many threads.
pub fn map_queued<T: Sync, R: Send>(
    items: &[T],
    bytes: &(impl Fn(&T) -> usize + Sync),
    f: &(impl Fn(&T) -> R + Sync),
) -> Vec<R> {
    let threads = share().min(items.len());
    if threads < 2 || items.iter().map(bytes).sum::<usize>() < SPLIT_BYTES {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let mut made: Vec<(usize, R)> = std::thread::scope(|s| {
        let spawned: Vec<_> = (1..threads)
            .filter_map(|_| {
                let mine = || with_share(1, work);
                std::thread::Builder::new().spawn_scoped(s, mine).ok()
            })
            .collect();
        let mut made = with_share(1, work);
        for handle in spawned {
            let theirs = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            made.extend(theirs);
        }
        made
    });
    made.sort_unstable_by_key(|&(i, _)| i);
    made.into_iter().map(|(_, r)| r).collect()
}

/// Runs `a` on this thread and `b` on another at the same time, each with
/// half this thread's share; `b` on this one after `a` where the share is
/// one, no thread can be started, or the other has not begun it by then (a
/// thread can take a millisecond or more to start on a busy machine, and
/// waiting for it took longer than `b`); a panic in `b` goes on here.
pub fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    let share = share();
    if share < 2 {
        return (a(), b());
    }
    let (here, there) = (share - share / 2, share / 2);
    // `b` is run by whichever thread takes it first.
    let b = Mutex::new(Some(b));
    let run_b = || {
        let b = b.lock().unwrap_or_else(PoisonError::into_inner).take();
        b.map(|b| with_share(there, b))
    };
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new().spawn_scoped(s, run_b);
        let a = with_share(here, a);
        let here_b = run_b();
        let there_b = spawned.ok().and_then(|handle| {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        (a, here_b.or(there_b).expect("b runs once"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value dropped aside is dropped on another thread with a share of
    /// two, here (before the call returns) with a share of one.
    #[test]
    fn a_value_dropped_aside_is_dropped_on_another_thread_given_room() {
        struct Told(std::sync::mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Told {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let here = std::thread::current().id();
        for (share, aside) in [(1, false), (2, true)] {
            let (tell, told) = std::sync::mpsc::channel();
            with_share(share, || drop_aside(Told(tell)));
            if !aside {
                assert_eq!(told.try_recv(), Ok(here));
            } else {
                assert_ne!(told.recv(), Ok(here));
            }
        }
    }

    /// `a` runs here; `b` on the other thread when it begins `b` before
    /// `a` ends (here `a` waits for that), and the results come in order.
    #[test]
    fn join_returns_both_results_in_order() {
        use std::sync::atomic::AtomicBool;
        let here = std::thread::current().id();
        let begun = AtomicBool::new(false);
        let (a, b) = with_share(2, || {
            join(
                || {
                    while !begun.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                    (1, std::thread::current().id())
                },
                || {
                    begun.store(true, Ordering::Release);
                    (2, std::thread::current().id())
                },
            )
        });
        assert_eq!((a.0, b.0), (1, 2));
        assert_eq!(a.1, here);
        assert_ne!(b.1, here);
    }

    /// However the two threads meet (`b` run there, or here once `a` is
    /// done), `b` runs once and the results come in order.
    #[test]
    fn join_runs_b_once_wherever_it_runs() {
        let runs = AtomicUsize::new(0);
        for i in 0..200 {
            let (a, b) = with_share(2, || {
                join(
                    || i,
                    || {
                        runs.fetch_add(1, Ordering::Relaxed);
                        i + 1
                    },
                )
            });
            assert_eq!((a, b), (i, i + 1));
        }
        assert_eq!(runs.into_inner(), 200);
    }

    /// A share of one runs both halves here; a share of four gives each
    /// half two, and theirs one each: four threads at most.
    #[test]
    fn joins_split_the_share_and_never_pass_it() {
        let here = std::thread::current().id();
        let (a, b) = with_share(1, || {
            join(
                || std::thread::current().id(),
                || std::thread::current().id(),
            )
        });
        assert_eq!((a, b), (here, here));
        let shares = with_share(4, || join(|| join(share, share), || join(share, share)));
        assert_eq!(shares, ((1, 1), (1, 1)));
        assert_eq!(with_share(3, || join(share, share)), (2, 1));
        assert_eq!(with_share(5, || budget(0)), 5);
        assert_eq!(budget(7), 7);
    }

    /// Taken in turns or not, the results in the items' order; a share
    /// of one keeps them all here, and each thread runs with a share of
    /// one.
    #[test]
    fn queued_items_give_their_results_in_order() {
        let items: Vec<usize> = (0..500).collect();
        let bytes = |_: &usize| SPLIT_BYTES / 100;
        let here = std::thread::current().id();
        let f = |&i: &usize| (i * i, std::thread::current().id(), share());
        let one = with_share(1, || map_queued(&items, &bytes, &f));
        assert!(one.iter().all(|&(_, thread, _)| thread == here));
        let four = with_share(4, || map_queued(&items, &bytes, &f));
        let squares = |r: &[(usize, std::thread::ThreadId, usize)]| -> Vec<usize> {
            r.iter().map(|&(sq, _, _)| sq).collect()
        };
        assert_eq!(
            squares(&four),
            items.iter().map(|i| i * i).collect::<Vec<_>>()
        );
        assert_eq!(squares(&one), squares(&four));
        assert!(four.iter().all(|&(_, _, share)| share == 1));
        // Below the size that splits, all here.
        let small = with_share(4, || map_queued(&items[..3], &bytes, &f));
        assert!(small.iter().all(|&(_, thread, _)| thread == here));
    }

    #[test]
    #[should_panic(expected = "item 7")]
    fn a_panic_in_a_queued_item_goes_on_here() {
        let items: Vec<usize> = (0..64).collect();
        with_share(2, || {
            map_queued(&items, &|_| SPLIT_BYTES, &|&i| assert!(i != 7, "item 7"))
        });
    }

    #[test]
    #[should_panic(expected = "from b")]
    fn a_panic_in_b_goes_on_here() {
        join(|| (), || panic!("from b"));
    }
}
