//! The thread pool searches share (Rayon's global pool), sized here once.
//!
//! Left to itself, Rayon starts as many threads as `RAYON_NUM_THREADS` says, whatever it says,
//! when its pool is first used: with 5,000 a first `searchMany` took 23 s and 900 MB, with
//! 100,000 it never answered. The variable is still honoured (the probes pin one thread with it),
//! but never past the machine's cores: searches are CPU-bound, so a thread more than the cores
//! only costs its stack and its allocator's caches.

use std::sync::Once;

/// The pool's threads are named this and their number (Linux keeps 15 bytes of a name).
const POOL_THREAD_NAME: &str = "rye-search-";

/// Threads for a pool on `cores` cores when `RAYON_NUM_THREADS` holds `var`: the number it
/// gives, at most `cores`; `cores` when it gives none (unset, 0 as Rayon reads it, not a number).
pub(crate) fn pool_threads(var: Option<&str>, cores: usize) -> usize {
    let cores = cores.max(1);
    match var.and_then(|v| v.trim().parse::<usize>().ok()) {
        Some(n) if n > 0 => n.min(cores),
        _ => cores,
    }
}

/// Sizes the global pool before anything uses it (every index calls this when it is made). A
/// pool that cannot start its threads is tried with one; should that fail too, the first parallel
/// search fails with Rayon's panic, which `contained` turns into an error.
pub(crate) fn size_the_pool() {
    static SIZED: Once = Once::new();
    SIZED.call_once(|| {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let threads = pool_threads(std::env::var("RAYON_NUM_THREADS").ok().as_deref(), cores);
        // Named, so that `top -H`, `perf` and the probes tell the search threads from the rest.
        let build = |n: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("{POOL_THREAD_NAME}{i}"))
                .build_global()
        };
        if build(threads).is_err() && threads > 1 {
            let _ = build(1);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_is_honoured_up_to_the_cores() {
        assert_eq!(pool_threads(None, 8), 8);
        assert_eq!(pool_threads(Some("1"), 8), 1);
        assert_eq!(pool_threads(Some(" 3 "), 8), 3);
        assert_eq!(pool_threads(Some("100000"), 8), 8);
        assert_eq!(pool_threads(Some("18446744073709551616"), 8), 8);
        for unusable in ["0", "-5", "abc", "", "1e3", "2.5"] {
            assert_eq!(pool_threads(Some(unusable), 8), 8, "{unusable:?}");
        }
        assert_eq!(pool_threads(Some("4"), 0), 1);
    }
}
