//! Collecting a keyword query: its best hits in the order asked for, with an exact total. Block-
//! max WAND skips what cannot reach the page; where it skipped, the matches are counted again
//! unscored (or scored all along, when the postings are few enough to be cheaper).

use std::cell::Cell;

use tantivy::collector::Collector;
use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, EnableScoring, Occur, Query};
use tantivy::schema::{Field, IndexRecordOption, Term};

use crate::collect::Ranker;
use crate::collect::TopRanked;
use crate::error::Result;
use crate::query::build::is_term_leaf;
use crate::query::max_score;
use crate::query::terms::Entries;
use crate::wire::SortBy;

/// Runs the collector; segments where it skipped documents are counted again, unscored.
pub(super) fn collect(
    searcher: &tantivy::Searcher,
    query: &dyn Query,
    mut collector: TopRanked,
) -> Result<crate::collect::Collected> {
    let tally = PostingsTally { searcher, postings: Cell::new(0) };
    let scoring = EnableScoring::enabled_from_statistics_provider(&tally, searcher);
    // A union of a few weighted terms is ranked by MaxScore (see `query::max_score`); the clauses'
    // BM25 weights are all it needs, so the union's own weight is never made.
    let (mut clauses, mut weight): (Option<Vec<max_score::Clause>>, Option<Box<dyn tantivy::query::Weight>>) =
        (None, None);
    let (ranker, postings) = match max_score::clauses(query, &tally).transpose()? {
        Some(found) => {
            let found = clauses.insert(found);
            (Ranker::MaxScore(found), found.iter().map(|c| c.doc_freq).sum())
        }
        None => (Ranker::Weight(&**weight.insert(query.weight(scoring)?)), tally.postings.get()),
    };
    // Counting only the matches above a minimum score visits every match anyway; a recency
    // boost raises scores past the blocks' maxima that skipping relies on.
    collector.prune = collector.min_score == f32::MIN
        && collector.recency.is_none()
        && is_term_union(query)
        && union_clauses(query) <= MAX_PRUNED_CLAUSES
        && (postings < 2 * collector.wanted as u64 || postings >= PRUNE_MIN_POSTINGS || !collector.exact_total);
    let segments = searcher.segment_readers();
    // Largest segment first: its top sets the score the others must beat to matter.
    let mut order: Vec<usize> = (0..segments.len()).collect();
    order.sort_by_key(|&ord| std::cmp::Reverse(segments[ord].num_docs()));
    let mut fruits = Vec::with_capacity(segments.len());
    let mut top_scores: Vec<f32> = Vec::new();
    let share_floor = collector.prune && collector.sort == SortBy::Score && collector.wanted > 0;
    for ord in order {
        let above = match share_floor && top_scores.len() >= collector.wanted {
            // Ties with the k-th score may still win on space or id.
            true => top_scores.select_nth_unstable_by(collector.wanted - 1, |a, b| b.total_cmp(a)).1.next_down(),
            false => f32::MIN,
        };
        let fruit = collector.collect_segment_above(&ranker, ord as u32, &segments[ord], above)?;
        top_scores.extend(fruit.top.iter().map(|r| r.score));
        fruits.push(fruit);
    }
    let marks = collector.marks;
    let exact = collector.exact_total || marks;
    let mut found = collector.merge_fruits(fruits)?;
    if exact && !found.pruned.is_empty() {
        let mut terms: Vec<(Term, Option<&Entries>)> = Vec::new();
        match &clauses {
            Some(clauses) => terms.extend(clauses.iter().map(|c| (c.term.clone(), c.entries.as_ref()))),
            None => query.query_terms(&mut |term, _| terms.push((term.clone(), None))),
        }
        for &(ord, visited) in &found.pruned {
            let (count, bits) = count_any(&terms, &segments[ord as usize])?;
            found.seen = found.seen - visited + count;
            if marks {
                found.matches.set_segment(ord, bits);
            }
        }
        found.pruned.clear();
    }
    Ok(found)
}

/// How many live documents of `segment` hold any of `terms`, and the bits of all that do: each
/// term's posting blocks set one bit per document, then the bits are counted. The union scorer it replaces advanced every term
/// document by document, a sixth of a common-term search (only a union of term queries is
/// ever pruned, so counting what the query matches is counting what its terms match).
fn count_any(terms: &[(Term, Option<&Entries>)], segment: &tantivy::SegmentReader) -> Result<(u64, Vec<u64>)> {
    let mut bits = vec![0u64; (segment.max_doc() as usize).div_ceil(64)];
    for (term, entries) in terms {
        let index = segment.inverted_index(term.field())?;
        let found = match entries.and_then(|e| e.of(segment)) {
            Some(entry) => entry.cloned(),
            None => index.get_term_info(term)?,
        };
        let Some(info) = found else { continue };
        let mut postings = index.read_block_postings_from_terminfo(&info, IndexRecordOption::Basic)?;
        let mut left = info.doc_freq as usize;
        while left > 0 && !postings.docs().is_empty() {
            let docs = postings.docs();
            for &doc in &docs[..docs.len().min(left)] {
                bits[doc as usize / 64] |= 1 << (doc % 64);
            }
            left = left.saturating_sub(docs.len());
            postings.advance();
        }
    }
    let count = match segment.alive_bitset() {
        None => bits.iter().map(|w| w.count_ones() as u64).sum(),
        Some(alive) => (0..segment.max_doc())
            .filter(|&doc| bits[doc as usize / 64] & (1 << (doc % 64)) != 0 && alive.is_alive(doc))
            .count() as u64,
    };
    Ok((count, bits))
}

/// Block-max WAND skips documents that cannot reach the page, but once it has skipped any, a
/// second pass must count the matches. From `2 × wanted` postings (before that it never skips)
/// up to this many, scoring every match and counting on the way is cheaper (callgrind, c60k:
/// terms in 50–500 documents 13% fewer instructions; in 1,000–2,000 documents, 9% more).
const PRUNE_MIN_POSTINGS: u64 = 1500;

/// The searcher's statistics, adding up the document frequencies that scoring asks for: the
/// postings a term union will walk, known without looking its terms up again.
struct PostingsTally<'a> {
    searcher: &'a tantivy::Searcher,
    postings: Cell<u64>,
}

impl Bm25StatisticsProvider for PostingsTally<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.searcher.total_num_tokens(field)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.searcher.total_num_docs()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let n = self.searcher.doc_freq(term)?;
        self.postings.set(self.postings.get() + n);
        Ok(n)
    }
}

/// Most clauses of a union ranked with block-max WAND (a wildcard's expansions are up to 1,280
/// terms): Tantivy's keeps its clauses sorted by document and moves each it passes back into
/// place, a walk of the list at every step. `*e*` at 1M items took 12.6 s so; scoring every match
/// through Tantivy's union, which adds up the clauses' scores a block of documents at a time,
/// takes a fraction of that.
const MAX_PRUNED_CLAUSES: usize = 64;

/// Clauses of a union (1 for a lone term query).
fn union_clauses(query: &dyn Query) -> usize {
    query.downcast_ref::<BooleanQuery>().map_or(1, |union| union.clauses().len())
}

/// Whether `query` is a term query or a union of (boosted) term queries: the shape Tantivy
/// scores with block-max WAND.
fn is_term_union(query: &dyn Query) -> bool {
    match query.downcast_ref::<BooleanQuery>() {
        Some(union) => {
            !union.clauses().is_empty()
                && union.clauses().iter().all(|(occur, q)| *occur == Occur::Should && is_term_leaf(&**q))
        }
        None => is_term_leaf(query),
    }
}
