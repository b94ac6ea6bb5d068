//! Work shared by the calling thread and the thread pool.
//!
//! A parallel iterator started from a thread outside the pool hands the whole job to the pool and
//! sleeps until it is done: the caller pays a pool thread's wake-up before any work starts and
//! its own wake-up after (tens of microseconds each on a busy machine, a tenth of a hybrid
//! search). Here the caller works too: it starts on the tasks at once, and the pool's threads
//! join in as they wake.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Runs `first` on this thread, then tasks `0..n` on this thread and the pool's threads, each
/// task once; the answers in task order.
pub(super) fn with_pool<T: Send>(n: usize, first: impl FnOnce(), task: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let answers: Vec<Mutex<Option<T>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= n {
            return;
        }
        let answer = task(i);
        *answers[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(answer);
    };
    rayon::in_place_scope(|scope| {
        // Every pool thread is asked: one left out idled while this thread took turns with the
        // others (measured: a pool thread fewer was no faster from Node, slower natively).
        for _ in 0..rayon::current_num_threads().min(n) {
            scope.spawn(|_| work());
        }
        first();
        work();
    });
    // Every index below `n` was taken by exactly one worker, and the scope waited for them all
    // (a task that panicked has re-raised its panic by now).
    answers.into_iter().map(|a| a.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every task ran")).collect()
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    use super::*;

    #[test]
    fn every_task_runs_once_and_answers_keep_their_order() {
        for n in [0, 1, 2, 7, 100] {
            let mut first_ran = false;
            let answers = with_pool(n, || first_ran = true, |i| i * i);
            assert!(first_ran);
            assert_eq!(answers, (0..n).map(|i| i * i).collect::<Vec<_>>());
        }
        // From inside the pool too (as `search_many` calls it).
        let nested: Vec<Vec<usize>> = (0..8usize).into_par_iter().map(|k| with_pool(k, || {}, |i| i + k)).collect();
        assert_eq!(nested[5], vec![5, 6, 7, 8, 9]);
    }

    /// A task that panics on a pool thread reaches the caller as a panic (which the binding
    /// contains), never as an abort of the process; the pool stays usable.
    #[test]
    fn a_panicking_task_reaches_the_caller_and_the_pool_lives_on() {
        for n in [1, 3, 64] {
            let caught =
                std::panic::catch_unwind(|| with_pool(n, || {}, |i| if i + 1 == n { panic!("task {i}") } else { i }));
            assert!(caught.is_err(), "{n} tasks");
        }
        assert_eq!(with_pool(3, || {}, |i| i), vec![0, 1, 2]);
    }
}
