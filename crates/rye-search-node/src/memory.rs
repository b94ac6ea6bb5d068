//! When freed memory goes back to the system. mimalloc keeps freed pages for reuse, and returns
//! what a thread frees only after a delay (a second; ten for its arenas) or when that thread
//! collects. A bulk write frees whole segments on Tantivy's indexing and merge threads, and
//! merges follow each other faster than that: a build held each merge's garbage through the
//! next one.

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

use libmimalloc_sys::{mi_collect, mi_option_get, mi_option_set, mi_option_t};

/// `mi_option_purge_delay` in the mimalloc (v3) that `libmimalloc-sys` pins (the crate names no
/// constant for it): milliseconds before freed memory is returned, `0` at once.
const PURGE_DELAY: mi_option_t = 15;

/// Bulk writes running now (one per index at most, several indexes at once).
static BULK_WRITES: AtomicUsize = AtomicUsize::new(0);
/// The delay in force before the first of them began.
static USUAL_DELAY: AtomicI64 = AtomicI64::new(0);

/// While one lives, memory freed by any thread goes back to the system at once. Held by bulk
/// writes: c60k added in 5,000s through Node peaked at 514 instead of 571 MB. Searches run with
/// the usual delay (returning at once made `searchMany` ~8% slower).
pub struct PromptReturn(());

impl PromptReturn {
    pub fn begin() -> Self {
        if BULK_WRITES.fetch_add(1, Ordering::AcqRel) == 0 {
            // SAFETY: reading and setting an option only touch mimalloc's option table.
            unsafe {
                USUAL_DELAY.store(mi_option_get(PURGE_DELAY) as i64, Ordering::Release);
                mi_option_set(PURGE_DELAY, 0);
            }
        }
        PromptReturn(())
    }
}

impl Drop for PromptReturn {
    fn drop(&mut self) {
        if BULK_WRITES.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: as in `begin`. A write that began meanwhile then runs with the usual delay,
            // which costs memory for a moment, never correctness.
            unsafe { mi_option_set(PURGE_DELAY, USUAL_DELAY.load(Ordering::Acquire) as _) }
        }
    }
}

/// Hands memory freed by a bulk write back to the system now: what this thread's own caches
/// hold (a process that indexed 63,666 items went on holding ~170 MB it no longer used).
/// Small edits skip it (~1.5 ms).
pub fn release_freed_memory() {
    // SAFETY: `mi_collect` only walks the allocator's own structures; any thread may call it.
    unsafe { mi_collect(true) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_writes_return_memory_at_once_and_restore_the_usual_delay_after_the_last() {
        // SAFETY: reading an option only touches mimalloc's option table.
        let delay = || unsafe { mi_option_get(PURGE_DELAY) };
        let usual = delay();
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            // The option's index is right: mimalloc v3's default purge delay is a second.
            assert_eq!(usual, 1000);
        }
        let first = PromptReturn::begin();
        let second = PromptReturn::begin();
        assert_eq!(delay(), 0);
        drop(first);
        assert_eq!(delay(), 0, "another bulk write still runs");
        drop(second);
        assert_eq!(delay(), usual);
    }
}
