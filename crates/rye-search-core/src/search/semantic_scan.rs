//! The semantic scan: the items most similar to a query vector among those a request's
//! restrictions let through, exact or shortlisted by sign codes, on all cores in stretches.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use tantivy::fastfield::AliveBitSet;
use tantivy::query::{AllQuery, BooleanQuery, EnableScoring, Occur, Query, Weight};
use tantivy::{DocAddress, DocId, Searcher, SegmentReader, COLLECT_BLOCK_BUFFER_LEN};

use super::facets::MatchSet;
use super::fusion::best_first;
use super::share;
use super::QueryVector;
use crate::error::Result;
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::order::SortColumns;
use crate::recency::{Recency, RECENCY_WEIGHT};
use crate::semantic::{quantized, SegmentVectors};
use crate::wire::SearchRequest;

impl SearchIndex {
    /// The `wanted` items most similar to `vector` among those the request's restrictions let
    /// through, with how many reach the vectors' floor ([`super::meaning::Meaning::floor`]). Exact, every candidate compared, unless
    /// the scan shortlists ([`Scan::shortlist`]).
    pub(super) fn rank_semantic(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        (vector, meaning): QueryVector,
        wanted: usize,
        scan: Scan,
    ) -> Result<SemanticRanking> {
        let Scan { mut matched, narrow, alongside, shortlist } = scan;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(AllQuery))];
        clauses.extend(self.restrictions(searcher, req)?);
        clauses.extend(narrow.map(|q| (Occur::Must, q.box_clone())));
        let filter = BooleanQuery::new(clauses);
        let weight = filter.weight(EnableScoring::disabled_from_searcher(searcher))?;
        let (query, query_scale) = quantized(vector);
        let recency = req.recency();
        let floor = SharedFloor::default();
        let readers = searcher.segment_readers();
        let vectors: Vec<Arc<SegmentVectors>> =
            readers.iter().enumerate().map(|(ord, r)| meaning.vectors(&parts[ord], r)).collect::<Result<_>>()?;
        let marking = matched.is_some();
        // A recency boost can lift an item the codes left out above one they kept.
        let shortlist_by = (shortlist && !marking && recency.is_none()).then_some(vector);
        let stretch = |ord: usize| Stretch {
            shortlist_by,
            vectors: &vectors[ord],
            query: &query,
            query_scale,
            alive: readers[ord].alive_bitset(),
            recency,
            columns: &parts[ord].columns,
            ord: ord as u32,
            wanted,
            marking,
            floor: &floor,
            min: meaning.floor(),
        };
        // Every segment in stretches of doc ids, each with its own pass of the filter, shared by
        // all cores; the answers are merged in order.
        let stretches: Vec<(usize, Range<DocId>)> = (readers.iter().enumerate())
            .flat_map(|(ord, r)| {
                let max_doc = r.max_doc();
                (0..max_doc)
                    .step_by(SCAN_STRETCH)
                    .map(move |start| (ord, start..max_doc.min(start + SCAN_STRETCH as u32)))
            })
            .collect();
        let first = || {
            if let Some(alongside) = alongside {
                alongside()
            }
        };
        let found = share::with_pool(stretches.len(), first, |i| {
            let (ord, range) = &stretches[i];
            Result::Ok(stretch(*ord).scan(&candidates(&*weight, &readers[*ord], range.clone())?))
        });
        let mut top: Vec<(f32, DocAddress)> = Vec::new();
        let mut total = 0usize;
        for ((ord, _), f) in stretches.iter().zip(found) {
            let f = f?;
            total += f.total;
            top.extend(f.top);
            if let Some(set) = matched.as_deref_mut().and_then(|sets| sets.get_mut(*ord)) {
                f.matched.into_iter().for_each(|doc| set.insert(doc));
            }
            if top.len() > 4 * wanted.max(64) {
                keep_best(&mut top, wanted);
            }
        }
        keep_best(&mut top, wanted);
        top.sort_by(|a, b| best_first(*a, *b));
        Ok(SemanticRanking { top, total })
    }
}

/// The docs of `range` that `filter` matches, in order (read 64 at a time: one dynamic call a
/// block, not one a doc).
fn candidates(filter: &dyn Weight, reader: &SegmentReader, range: Range<DocId>) -> Result<Vec<DocId>> {
    let mut scorer = filter.scorer(reader, 1.0)?;
    if scorer.doc() < range.start {
        scorer.seek(range.start);
    }
    let mut docs = Vec::with_capacity(range.len());
    let mut block = [0; COLLECT_BLOCK_BUFFER_LEN];
    loop {
        let n = scorer.fill_buffer(&mut block);
        let inside = block[..n].partition_point(|&d| d < range.end);
        docs.extend_from_slice(&block[..inside]);
        if inside < COLLECT_BLOCK_BUFFER_LEN {
            return Ok(docs);
        }
    }
}

/// What a semantic ranking found.
pub(super) struct SemanticRanking {
    /// The best items asked for, best first.
    pub top: Vec<(f32, DocAddress)>,
    /// Items similar enough to count (the vectors' floor).
    pub total: usize,
}

/// What a semantic scan does besides ranking.
#[derive(Default)]
pub(super) struct Scan<'a> {
    /// Marks the items similar enough to count (for facets).
    pub matched: Option<&'a mut [MatchSet]>,
    /// Only items this query matches.
    pub narrow: Option<&'a dyn Query>,
    /// Runs on the calling thread while the pool's threads start on the scan.
    pub alongside: Option<Box<dyn FnOnce() + 'a>>,
    /// Long stretches compare only the candidates their sign codes shortlist ([`semantic::SignCodes`]):
    /// the best `wanted` are then approximate and the total counts only the shortlisted. Not
    /// when marking facets or boosting recent items.
    pub shortlist: bool,
}

impl<'a> Scan<'a> {
    pub(super) fn marking(matched: Option<&'a mut [MatchSet]>) -> Self {
        Scan { matched, ..Scan::default() }
    }
}

/// Candidates one thread of a semantic scan takes at a time (2 MB of 256-dimension vectors):
/// a scan of a few thousand items stays on its thread, a long one is shared by all cores.
const SCAN_STRETCH: usize = 8192;

/// A shortlisting stretch keeps the larger of this many candidates per item wanted and this
/// share of its candidates (a stretch less than twice that long is compared whole). Against the
/// exact scan, 240 plain-language questions over the 63,666 Debian items: 99.8% of the best 10
/// and 98.5% of a hybrid window's 60 are the same, the best item always (a share of 1/12: 99.6%,
/// 97.3%); `auto` MRR@10 unchanged on every `bench/nl-quality.js` set. Codes and shortlisted
/// vectors are a quarter of the bytes of every vector: questions in `auto` at c60k p50 0.71–0.92 →
/// 0.60 ms, at c1m 3.7–4.1 → 2.6 ms (the scan is bound by memory, and a shortlist is read out of
/// order).
const SHORTLIST_PER_WANTED: usize = 8;
const SHORTLIST_SHARE: usize = 8;

/// One segment's semantic scan, for any stretch of its candidates.
struct Stretch<'a> {
    vectors: &'a SegmentVectors,
    /// The query's vector, when the scan shortlists by sign codes (built on the segment's first
    /// stretch long enough to shortlist).
    shortlist_by: Option<&'a [f32]>,
    query: &'a [i8],
    query_scale: f32,
    alive: Option<&'a AliveBitSet>,
    recency: Option<Recency>,
    columns: &'a SortColumns,
    ord: u32,
    wanted: usize,
    /// Facets are counted: every item similar enough is reported.
    marking: bool,
    /// Shared by the stretches of one ranking.
    floor: &'a SharedFloor,
    /// The similarity from which an item counts as found by meaning.
    min: f32,
}

/// What a stretch of candidates gave.
struct Found {
    /// Items similar enough to count.
    total: usize,
    /// The best `wanted` of them (in no order).
    top: Vec<(f32, DocAddress)>,
    /// Every one of them, when marking.
    matched: Vec<DocId>,
}

impl Stretch<'_> {
    fn scan(&self, docs: &[DocId]) -> Found {
        let shortlisted;
        let keep = (SHORTLIST_PER_WANTED * self.wanted).max(docs.len() / SHORTLIST_SHARE);
        let docs = match self.shortlist_by {
            Some(vector) if docs.len() >= 2 * keep => {
                let codes = self.vectors.codes();
                shortlisted = codes.shortlist(docs, &codes.query(vector), keep);
                &shortlisted[..]
            }
            _ => docs,
        };
        let mut found = Found { total: 0, top: Vec::new(), matched: Vec::new() };
        // The most recency multiplies a similarity by: a bound on the score an item can reach.
        let most_boost = if self.recency.is_some() { 1.0 + RECENCY_WEIGHT } else { 1.0 };
        // Score a candidate needs to enter the best `wanted` kept so far (docs come in address
        // order, so one that only ties the last kept ranks after it).
        let mut floor = f32::MIN;
        // Without deletes or facets to mark, a block's count is one branch-free pass, and the
        // loop below only looks at the few items that could enter the best `wanted`.
        let plain = self.alive.is_none() && !self.marking;
        // One call for the whole stretch: the kernel prepares the query once.
        let mut all_sims = Vec::with_capacity(docs.len());
        self.vectors.similarities(docs, self.query, self.query_scale, &mut all_sims);
        for (block, sims) in docs.chunks(64).zip(all_sims.chunks(64)) {
            // What other stretches proved: an item of another stretch may rank after one of this
            // stretch that ties it, so only a lower score is out.
            let proved = self.floor.get();
            if plain {
                let (count, best) = block_stats(sims, self.min);
                found.total += count;
                if best < self.min || best * most_boost <= floor || best * most_boost < proved {
                    continue;
                }
            }
            for (&doc, &sim) in block.iter().zip(sims) {
                let may_enter = sim * most_boost > floor && sim * most_boost >= proved;
                if plain && !may_enter || sim < self.min || self.alive.is_some_and(|a| !a.is_alive(doc)) {
                    continue;
                }
                if !plain {
                    found.total += 1;
                    if self.marking {
                        found.matched.push(doc);
                    }
                }
                let score = sim * self.recency.map_or(1.0, |r| r.factor(self.columns.date(doc)));
                if may_enter && score > floor && score >= proved {
                    found.top.push((score, DocAddress::new(self.ord, doc)));
                }
            }
            // Keep the buffer short, so the floor rises early: cut back to the best `wanted`.
            if found.top.len() > 2 * self.wanted.max(8) {
                floor = keep_best(&mut found.top, self.wanted);
                self.floor.raise(floor);
            }
        }
        found
    }
}

/// How many of a block's similarities reach `min`, and the highest: lane by lane, so the
/// compiler keeps it in vector registers.
fn block_stats(sims: &[f32], min: f32) -> (usize, f32) {
    const LANES: usize = 16;
    let mut counts = [0u32; LANES];
    let mut best = [f32::MIN; LANES];
    let mut lanes = sims.chunks_exact(LANES);
    for chunk in &mut lanes {
        for i in 0..LANES {
            counts[i] += (chunk[i] >= min) as u32;
            best[i] = if chunk[i] > best[i] { chunk[i] } else { best[i] };
        }
    }
    let rest = lanes.remainder();
    let count = counts.iter().sum::<u32>() as usize + rest.iter().filter(|&&s| s >= min).count();
    let best = best.iter().chain(rest).fold(f32::MIN, |m, &s| if s > m { s } else { m });
    (count, best)
}

/// The lowest score that can still enter a scan's best `wanted`, as proved by any of its
/// stretches so far (stretches run on several threads). Scores are positive, so their bits order
/// as they do.
#[derive(Default)]
struct SharedFloor(AtomicU32);

impl SharedFloor {
    fn get(&self) -> f32 {
        f32::from_bits(self.0.load(Ordering::Relaxed))
    }

    fn raise(&self, floor: f32) {
        if floor > 0.0 && floor.is_finite() {
            self.0.fetch_max(floor.to_bits(), Ordering::Relaxed);
        }
    }
}

/// Cuts `top` to its best `wanted` (in no order) and returns the score the last of them has, the
/// floor a newcomer must beat (`f32::MIN` while fewer are kept).
fn keep_best(top: &mut Vec<(f32, DocAddress)>, wanted: usize) -> f32 {
    if wanted == 0 {
        top.clear();
        return f32::MAX;
    }
    if top.len() < wanted {
        return f32::MIN;
    }
    top.select_nth_unstable_by(wanted - 1, |a, b| best_first(*a, *b));
    top.truncate(wanted);
    top[wanted - 1].0
}
