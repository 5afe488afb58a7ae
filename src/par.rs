//! Two-way fork-join for the steps of one file that are large enough to be
//! worth splitting (parsing a long list of numbers, a third of the time of
//! baking a big file): half runs on a scoped thread, half on the caller's,
//! and the result is the one thread's result, in the same order.

use std::sync::{Mutex, PoisonError};

/// Work on at least this many bytes is split in two; below it a thread
/// costs more than it saves.
pub const SPLIT_BYTES: usize = 1 << 20;

/// How many threads a step may keep busy when `asked` (0: one a core).
pub fn budget(asked: usize) -> usize {
    match asked {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Runs `a` on this thread and `b` on another at the same time (on this one
/// after `a` if no thread can be started); a panic in `b` goes on here.
pub fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    // `b` is taken from here by the thread, or by this one if none starts.
    let b = Mutex::new(Some(b));
    let take = || {
        let b = b.lock().unwrap_or_else(PoisonError::into_inner).take();
        b.expect("b runs once")
    };
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new().spawn_scoped(s, || take()());
        let a = a();
        let b = match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => take()(),
        };
        (a, b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_returns_both_results_in_order() {
        let here = std::thread::current().id();
        let (a, b) = join(
            || (1, std::thread::current().id()),
            || (2, std::thread::current().id()),
        );
        assert_eq!((a.0, b.0), (1, 2));
        assert_eq!(a.1, here);
        assert_ne!(b.1, here);
    }

    #[test]
    #[should_panic(expected = "from b")]
    fn a_panic_on_the_other_thread_goes_on_here() {
        join(|| (), || panic!("from b"));
    }
}
