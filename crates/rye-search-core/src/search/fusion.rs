//! Reciprocal rank fusion of a keyword ranking and a semantic one (hybrid and `like` searches),
//! as one list whatever page is asked.
//!
//! An item's fused score is `weight / (k + 1 + its keyword rank)` plus `1 / (k + 1 + its semantic
//! rank)`, with ranks counted over the whole keyword match set and over a semantic window of fixed
//! size. Ranking the keyword list only as deep as the page reaches would make a score depend on
//! the page (an item the list reaches only for a deeper page would jump ahead), so the keyword
//! list is deepened until nothing it has not reached could enter the part of the list that is
//! answered.
//!
//! Ranks are fused; what an answer *shows* as an item's score is evidence, the same in every mode
//! (issue #63): how strongly its words match (BM25 over the best match's) or its meaning does
//! (similarity above the model's floor, over the best's), whichever is stronger, relative to the
//! first result, and never more than the result above it has — so scores fall with the ranking,
//! and a `min_score` cut keeps the head of the list whose evidence holds. RRF's own shares are
//! rank-based and flat (noise at rank 10 kept 0.88 of the best), so a cut could not tell it apart.

use std::collections::HashMap;
use std::sync::Arc;

use tantivy::DocAddress;
use tantivy::Searcher;

use super::keyword::{min_bound, ratio, Ranking};
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
/// down to the cut).
pub(super) struct Fused {
    /// Evidence shown as the score (see the module's doc: falls with the rank), address and how
    /// each item was found, in fused order.
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

    /// How much a hit's words count as evidence: fully, or as weak evidence when it weighs less
    /// than meaning does (a relaxed list, words only in the body).
    fn evidence(&self, address: DocAddress) -> f32 {
        match self.of(address) >= 1.0 {
            true => 1.0,
            false => WEAK_EVIDENCE,
        }
    }
}

/// The semantic list a fusion takes: similarities and addresses, best first, and the model's floor.
pub(super) struct ByMeaning<'a> {
    pub ranked: &'a [(f32, DocAddress)],
    pub floor: f32,
}

/// What weak keyword evidence counts for against a full match of the words.
/// `bench/probes/score-scale.js` measures the cut it gives.
const WEAK_EVIDENCE: f32 = 0.5;

/// A similarity as evidence: 0 at the model's floor (where "found by meaning" starts), 1 at the
/// best similarity of the query.
pub(super) fn similarity_evidence(sim: f32, best: f32, floor: f32) -> f32 {
    match best > floor {
        true => ((sim - floor) / (best - floor)).clamp(0.0, 1.0),
        false => 1.0,
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
        meaning: ByMeaning,
    ) -> Result<Fused> {
        let ByMeaning { ranked: semantic, floor } = meaning;
        let best_similarity = semantic.first().map_or(0.0, |s| s.0);
        let only_semantic = semantic.iter().filter(|s| !keyword.matches.contains(s.1)).count();
        let wanted = (req.offset + req.limit).max(1);
        // A deeper ranking that holds no more than the last ends the loop, whatever the count says.
        let mut stalled = false;
        loop {
            let complete = keyword.top.len() >= keyword.total || stalled;
            // Fused score, how found, evidence.
            let mut fused: HashMap<DocAddress, (f32, Matched, f32)> =
                HashMap::with_capacity(keyword.top.len() + semantic.len());
            let best_words = keyword.top.first().map_or(0.0, |t| t.0);
            for (rank, &(raw, address)) in keyword.top.iter().enumerate() {
                let evidence = keyword_weight.evidence(address) * ratio(raw, best_words);
                fused.insert(address, (share(keyword_weight.of(address), rank), Matched::Keyword, evidence));
            }
            // Found by meaning and matched by the words past the keyword list: its keyword share is
            // not known yet, at most that of the list's next rank.
            let mut unreached_semantic = 0.0f32;
            for (rank, &(sim, address)) in semantic.iter().enumerate() {
                let part = share(1.0, rank);
                let evidence = similarity_evidence(sim, best_similarity, floor);
                match fused.get_mut(&address) {
                    Some(entry) => *entry = (entry.0 + part, Matched::Both, entry.2.max(evidence)),
                    None if keyword.matches.contains(address) => unreached_semantic = unreached_semantic.max(part),
                    None => {
                        fused.insert(address, (part, Matched::Semantic, evidence));
                    }
                }
            }
            let mut ranked: Vec<(f32, DocAddress, Matched, f32)> =
                fused.into_iter().map(|(a, (s, m, e))| (s, a, m, e)).collect();
            ranked.sort_by(|a, b| best_first((a.0, a.1), (b.0, b.1)));
            // Each item's shown score: the least evidence at or above its rank.
            let mut held = f32::MAX;
            for r in ranked.iter_mut() {
                held = held.min(r.3);
                r.3 = held;
            }
            // The lowest fused score that must be exact: the page's last; with `min_score`, the
            // first item whose score falls under the cut (everything above it is counted, and the
            // page holds only such items; with none yet, every match must be reached).
            let needed = match req.min_score > 0.0 {
                true => {
                    let bound = min_bound(req.min_score, ranked.first().map_or(0.0, |r| r.3));
                    ranked.iter().find(|r| r.3 < bound).map_or(f32::MIN, |r| r.0)
                }
                false => ranked.get(wanted - 1).map_or(f32::MIN, |r| r.0),
            };
            let unreached = share(keyword_weight.most(), keyword.top.len()) + unreached_semantic;
            if complete || unreached < needed {
                let ranked = ranked.into_iter().map(|(_, a, m, e)| (e, a, m)).collect();
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
