//! Many searches on all cores, answered one by one or as one page (`wire::page`).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::error::{contained, Error, Result};
use crate::index::SearchIndex;
use crate::wire::page::{AnswerPage, Page};
use crate::wire::{SearchRequest, SearchResponse};

/// Set once the process is ending. Its exit waits for the native work in flight, and a batch's
/// searches can take minutes (2,048 at a time; 4,096 costly hybrid searches held a
/// `process.exit()` for 196 s): those not yet begun then answer at once, with an error no one reads.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Stops the batches of searches under way, and every later one, from beginning another search
/// (the process is ending).
pub fn stop_batches() {
    STOPPING.store(true, Ordering::Relaxed);
}

impl SearchIndex {
    /// Runs many searches on all cores; each result stands on its own.
    pub fn search_many(&self, reqs: &[SearchRequest]) -> Vec<Result<SearchResponse>> {
        self.search_many_with(reqs, |r| r)
    }

    /// Like [`Self::search_many`], with `each` applied on the searching thread (e.g. to serialise
    /// the response there instead of afterwards on one thread).
    pub fn search_many_with<T: Send>(
        &self,
        reqs: &[SearchRequest],
        each: impl Fn(Result<SearchResponse>) -> T + Sync,
    ) -> Vec<T> {
        // Rayon's pool: threads (and their allocator caches) live across calls, and a thread
        // that drew cheap queries takes work from one that drew expensive ones.
        // A panic in one query answers that query with `Internal`; the others still run.
        reqs.par_iter()
            .with_min_len(8)
            .map(|r| match STOPPING.load(Ordering::Relaxed) {
                true => each(Err(Error::Internal("not searched: the process is exiting".into()))),
                false => each(contained(|| self.search(r))),
            })
            .collect()
    }

    /// Runs `reqs` on all cores, answered as a [`Page`] (each answer written on the thread that
    /// searched it), its texts within `max_len` bytes in all.
    pub fn search_many_page(&self, reqs: &[SearchRequest], max_len: usize) -> Page {
        Page::of(self.search_many_with(reqs, AnswerPage::of), max_len)
    }
}
