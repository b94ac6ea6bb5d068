//! Reciprocal rank fusion of a keyword ranking and a semantic one (hybrid and `like` searches),
//! as one list whatever page is asked.
//!
//! An item's fused score is `weight / (k + 1 + its keyword rank)` plus `1 / (k + 1 + its semantic
//! rank)`, with ranks counted over the whole keyword match set and over a semantic window of fixed
//! size. Ranking the keyword list only as deep as the page reaches would make a score depend on
//! the page (an item the list reaches only for a deeper page would jump ahead), so the keyword
//! list is deepened until nothing it has not reached could enter the part of the list that is
//! answered.

use std::collections::HashMap;
use std::sync::Arc;

use tantivy::DocAddress;
use tantivy::Searcher;

use super::keyword::{min_bound, Ranking};
use crate::collect::Matches;
use crate::error::Result;
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::wire::Matched;
use crate::wire::SearchRequest;

/// How far past the page the keyword list is first ranked: deep enough that one pass is usually
/// enough to prove the page exact.
pub(super) const FUSION_DEPTH: usize = 50;
/// The semantic list fused: its best items, the same number for every page (meaning adds at most
/// this many items to what the words find). 60 is what a first page of 10 fused before the
/// window was fixed, so first pages rank as they did (`bench/nl-quality.js` unchanged); 100 cost
/// a fifth more per hybrid question (fewer scan blocks skipped).
pub(super) const SEMANTIC_WINDOW: usize = 60;
/// Reciprocal rank fusion's constant (Cormack et al.): damps the head of each list.
const RRF_K: f32 = 60.0;

/// A fused list, exact from its best item down to the end of the page (and, with `min_score`,
/// down to the bound).
pub(super) struct Fused {
    /// Fused score, address and how each item was found, best first.
    pub ranked: Vec<(f32, DocAddress, Matched)>,
    /// Items found either way, each once.
    pub total: usize,
    /// The keyword ranking as deep as it had to go.
    pub keyword: Ranking,
}

fn share(weight: f32, rank: usize) -> f32 {
    weight / (RRF_K + 1.0 + rank as f32)
}

/// What a keyword hit weighs against 1 for the semantic list: `named` for the items in
/// `naming` (or for every hit when there is no such set), `other` for the rest.
pub(super) struct KeywordWeight<'a> {
    pub named: f32,
    pub other: f32,
    pub naming: Option<&'a Matches>,
}

impl KeywordWeight<'_> {
    pub fn uniform(weight: f32) -> Self {
        KeywordWeight { named: weight, other: weight, naming: None }
    }

    fn of(&self, address: DocAddress) -> f32 {
        match self.naming {
            Some(set) if !set.contains(address) => self.other,
            _ => self.named,
        }
    }

    /// The most any hit weighs: what an item the list has not reached yet may weigh.
    fn most(&self) -> f32 {
        self.named.max(self.other)
    }
}

impl SearchIndex {
    /// Fuses `keyword` (weighted by `keyword_weight`, ranked with its matches) with `semantic`
    /// (best first, at most [`SEMANTIC_WINDOW`] items), ranking the keyword list deeper while an item it has not
    /// reached could still score above the page's last item or the `min_score` bound.
    pub(super) fn fuse(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        mut keyword: Ranking,
        keyword_weight: KeywordWeight,
        semantic: &[(f32, DocAddress)],
    ) -> Result<Fused> {
        let only_semantic = semantic.iter().filter(|s| !keyword.matches.contains(s.1)).count();
        let wanted = (req.offset + req.limit).max(1);
        // A deeper ranking that holds no more than the last ends the loop, whatever the count says.
        let mut stalled = false;
        loop {
            let complete = keyword.top.len() >= keyword.total || stalled;
            let mut fused: HashMap<DocAddress, (f32, Matched)> =
                HashMap::with_capacity(keyword.top.len() + semantic.len());
            for (rank, &(_, address)) in keyword.top.iter().enumerate() {
                fused.insert(address, (share(keyword_weight.of(address), rank), Matched::Keyword));
            }
            // Found by meaning and matched by the words past the keyword list: its keyword share is
            // not known yet, at most that of the list's next rank.
            let mut unreached_semantic = 0.0f32;
            for (rank, &(_, address)) in semantic.iter().enumerate() {
                let part = share(1.0, rank);
                match fused.get_mut(&address) {
                    Some(entry) => *entry = (entry.0 + part, Matched::Both),
                    None if keyword.matches.contains(address) => unreached_semantic = unreached_semantic.max(part),
                    None => {
                        fused.insert(address, (part, Matched::Semantic));
                    }
                }
            }
            let mut ranked: Vec<(f32, DocAddress, Matched)> = fused.into_iter().map(|(a, (s, m))| (s, a, m)).collect();
            ranked.sort_by(|a, b| best_first((a.0, a.1), (b.0, b.1)));
            // The lowest score that must be exact: the page's last; with `min_score`, the bound
            // (every item above it is counted, and the page holds only such items).
            let needed = match req.min_score > 0.0 {
                true => min_bound(req.min_score, ranked.first().map_or(0.0, |r| r.0)),
                false => ranked.get(wanted - 1).map_or(f32::MIN, |r| r.0),
            };
            let unreached = share(keyword_weight.most(), keyword.top.len()) + unreached_semantic;
            if complete || unreached < needed {
                return Ok(Fused { ranked, total: keyword.total + only_semantic, keyword });
            }
            // Straight to the rank whose share no longer reaches `needed` (at least twice as deep):
            // a deep `min_score` bound took seven rankings of half a million matches at c1m. An item
            // found by meaning that scores above `needed` whatever its keyword rank is looked for
            // four times deeper at a time: its rank may be near.
            let reached = keyword.top.len();
            let gap = needed - unreached_semantic;
            let enough = match gap > 0.0 {
                true => (keyword_weight.most() / gap - RRF_K).max(0.0).min(keyword.total as f32) as usize + 1,
                false => reached * 4,
            };
            let deeper = enough.max(reached * 2).max(wanted + FUSION_DEPTH).min(keyword.total);
            self.deepen(req, searcher, parts, &mut keyword, deeper)?;
            stalled = keyword.top.len() <= reached;
        }
    }
}

/// Higher score first; equal scores break by address, so the same query always pages the same way.
pub(super) fn best_first(a: (f32, DocAddress), b: (f32, DocAddress)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0).then(a.1.segment_ord.cmp(&b.1.segment_ord)).then(a.1.doc_id.cmp(&b.1.doc_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{KEYWORD_WEIGHT, WORDS_SETTLE};

    /// Each of the first `wanted` ranks of a keyword list weighted `weight` outscores the next by
    /// more than the most a semantic rank adds: fusion cannot reorder them or pass them.
    fn keyword_head_holds(weight: f32, wanted: usize) -> bool {
        (0..wanted).all(|rank| share(weight, rank) - share(weight, rank + 1) > share(1.0, 0))
    }

    #[test]
    fn a_full_keyword_list_keeps_the_page_auto_answers_with_words_alone() {
        assert!(keyword_head_holds(KEYWORD_WEIGHT, WORDS_SETTLE));
        // The bound is not loose by much: 18 ranks no longer hold.
        assert!(keyword_head_holds(KEYWORD_WEIGHT, 17));
        assert!(!keyword_head_holds(KEYWORD_WEIGHT, 18));
    }
}
