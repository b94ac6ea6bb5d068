//! Many searches on all cores, answered as one `searchMany` text (framed by `wire::batch`).

use crate::index::SearchIndex;
use crate::wire::batch::{entry, framed};
use crate::wire::SearchRequest;

impl SearchIndex {
    /// Runs `reqs` on all cores; each answer is written on the thread that searched it, and the
    /// whole text stays within `max_len` bytes (see [`framed`]).
    pub fn search_many_json(&self, reqs: &[SearchRequest], max_len: usize) -> String {
        framed(self.search_many_with(reqs, entry), max_len)
    }
}
