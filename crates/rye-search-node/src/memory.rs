//! The addon's memory as others see it: when freed memory goes back to the system
//! ([`PromptReturn`]), and what V8 is told an index holds ([`ToldMemory`]).
//!
//! mimalloc keeps freed pages for reuse, and returns what a thread frees only after a delay (v2:
//! 10 ms; ten times that for its arenas) or when that thread collects. A bulk write frees whole segments on
//! Tantivy's indexing and merge threads, and merges follow each other faster than that: a build
//! held each merge's garbage through the next one.

use std::ffi::c_long;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use libmimalloc_sys::{mi_collect, mi_option_get, mi_option_set, mi_option_t};
use napi::Env;
use rye_search_core::SearchIndex;

/// `mi_option_purge_delay` in the mimalloc (v2) that `libmimalloc-sys` pins (the crate names no
/// constant for it): milliseconds before freed memory is returned, `0` at once.
const PURGE_DELAY: mi_option_t = 15;

/// How long memory freed during a bulk write waits before it goes back to the system, in ms. At
/// once (`0`), memory freed and soon allocated again came back as fresh pages, each zeroed by the
/// kernel (page faults were ~6% of a build's CPU samples): c60k added in 5,000s (static model,
/// no encoder) 3,238 → 2,945 ms, median of five (CPU 4,504 → 4,185 ms); c1m 57.2 → 51.5 s; peak
/// RSS the same within 10 MB.
const BULK_PURGE_DELAY_MS: c_long = 10;

/// Bulk writes running now (one per index at most, several indexes at once).
static BULK_WRITES: AtomicUsize = AtomicUsize::new(0);
/// The delay in force before the first bulk write began (read once: a later read could see the
/// `0` of a write that is just ending).
static USUAL_DELAY: OnceLock<c_long> = OnceLock::new();

fn usual_delay() -> c_long {
    // SAFETY: reading an option only touches mimalloc's option table.
    *USUAL_DELAY.get_or_init(|| unsafe { mi_option_get(PURGE_DELAY) })
}

/// Held by each bulk write. While one lives, memory freed by any thread goes back to the system
/// after [`BULK_PURGE_DELAY_MS`]: c60k added in 5,000s through Node peaked at 514 instead of
/// 571 MB when it went back at once. Searches run with the usual delay (returning at once made
/// `searchMany` ~8% slower). When one ends, what the thread's own caches hold goes back too (a
/// process that indexed 63,666 items went on holding ~170 MB it no longer used); small edits skip
/// both (~1.5 ms).
pub struct PromptReturn(());

impl PromptReturn {
    pub fn begin() -> Self {
        usual_delay(); // read before the first bulk write sets its own
        if BULK_WRITES.fetch_add(1, Ordering::AcqRel) == 0 {
            // SAFETY: setting an option only touches mimalloc's option table.
            unsafe { mi_option_set(PURGE_DELAY, BULK_PURGE_DELAY_MS) }
        }
        PromptReturn(())
    }
}

impl Drop for PromptReturn {
    fn drop(&mut self) {
        // SAFETY: `mi_collect` only walks the allocator's own structures; any thread may call it.
        unsafe { mi_collect(true) }
        if BULK_WRITES.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: as in `begin`. A write that began meanwhile may then run with the usual
            // delay: memory held a moment longer, never a wrong answer.
            unsafe { mi_option_set(PURGE_DELAY, usual_delay()) }
        }
    }
}

/// What one index holds outside V8's heap (its files in memory, what its searches built: vectors,
/// all-terms dictionaries), as last told to V8 after a commit or a search (`None` once its handle is
/// finalized: a task resolving later tells nothing more). V8 collects its garbage when its own
/// heap grows, and counts memory it is told of: untold, a build that grew an index by hundreds
/// of MB in native memory left the caller's JS garbage uncollected beside it (c60k added in
/// 5,000s through Node: the corpus's parse, ~80 MB, held through the whole build).
#[derive(Clone)]
pub struct ToldMemory {
    index: Arc<SearchIndex>,
    told: Arc<Mutex<Option<i64>>>,
}

impl ToldMemory {
    pub fn new(index: Arc<SearchIndex>) -> Self {
        ToldMemory { index, told: Arc::new(Mutex::new(Some(0))) }
    }

    /// Tells V8 what the index holds now (after a commit or a search).
    pub fn update(&self, env: &Env) {
        self.tell(env, self.index.memory_bytes());
    }

    fn tell(&self, env: &Env, bytes: u64) {
        let mut told = self.told.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(before) = told.as_mut() {
            let now = i64::try_from(bytes).unwrap_or(i64::MAX);
            // Only a hint to the collector: a failure loses nothing.
            if now != *before && env.adjust_external_memory(now - *before).is_ok() {
                *before = now;
            }
        }
    }

    /// The bytes V8 was last told of (0 once released).
    pub fn told(&self) -> i64 {
        self.told.lock().unwrap_or_else(|e| e.into_inner()).unwrap_or(0)
    }

    /// Tells V8 the index's memory is gone, and nothing after.
    pub fn release(&self, env: &Env) {
        self.tell(env, 0);
        self.told.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_writes_return_memory_soon_and_restore_the_usual_delay_after_the_last() {
        // SAFETY: reading an option only touches mimalloc's option table.
        let delay = || unsafe { mi_option_get(PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            // The option's index is right: mimalloc v2's default purge delay is 10 ms.
            assert_eq!(delay(), 10);
        }
        // A usual delay apart from the bulk writes' (as `MIMALLOC_PURGE_DELAY` sets one), so that
        // its return can be seen. Set before the first bulk write of this process reads it.
        // SAFETY: setting an option only touches mimalloc's option table.
        unsafe { mi_option_set(PURGE_DELAY, 250) };
        let usual = delay();
        let first = PromptReturn::begin();
        let second = PromptReturn::begin();
        assert_eq!(delay(), BULK_PURGE_DELAY_MS);
        drop(first);
        assert_eq!(delay(), BULK_PURGE_DELAY_MS, "another bulk write still runs");
        drop(second);
        assert_eq!(delay(), usual);
        // Again: the usual delay was kept, not read back while it was the bulk writes'.
        let again = PromptReturn::begin();
        assert_eq!(delay(), BULK_PURGE_DELAY_MS);
        drop(again);
        assert_eq!(delay(), usual);
    }
}
