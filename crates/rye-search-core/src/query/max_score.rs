//! Top-k over a union of term queries by MaxScore (Turtle and Flood): the clauses whose best
//! scores together cannot lift a document past the page's threshold are never walked, only
//! looked up for the documents the others bring.
//!
//! A word is a union of one term per field (title, name, description, category, content, stems).
//! For a common word the page soon holds items that have it in a heavy short field; from then on
//! the content's and category's postings, thousands long, cannot decide anything on their own.
//! Block-max WAND (Tantivy's pruning for unions) still moved through them block by block,
//! re-sorting its clauses at every step: 60% of a common-term search.

use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{Bm25StatisticsProvider, Bm25Weight, Query};
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED};

use super::terms::{Entries, WeightedTerm};

/// Up to this many clauses a union is ranked here; more (a wildcard's expansions) go to
/// block-max WAND, which keeps its clauses sorted instead of scanning them for each document.
pub const MAX_CLAUSES: usize = 24;

/// Relative slack on the clauses' summed best scores: clause scores are added in another order
/// than their bounds, so a sum may exceed a bound by a few units in the last place.
const BOUND_SLACK: Score = 1.0 + 1e-5;

/// One clause of the union: its term, its BM25 weight (boost included), how many documents hold
/// it, and its dictionary entries when the query came with them.
pub struct Clause {
    pub term: Term,
    bm25: Bm25Weight,
    pub doc_freq: u64,
    pub entries: Option<Entries>,
}

/// The clauses of `query` when it is a union of a few weighted terms (or one), scored with
/// `stats` as a term query would be (a term without entries is looked up in it).
pub fn clauses(query: &dyn Query, stats: &dyn Bm25StatisticsProvider) -> Option<tantivy::Result<Vec<Clause>>> {
    let mut terms: Vec<&WeightedTerm> = Vec::new();
    match query.downcast_ref::<tantivy::query::BooleanQuery>() {
        Some(union) => {
            for (occur, clause) in union.clauses() {
                if *occur != tantivy::query::Occur::Should || terms.len() == MAX_CLAUSES {
                    return None;
                }
                terms.push(clause.downcast_ref::<WeightedTerm>()?);
            }
        }
        None => terms.push(query.downcast_ref::<WeightedTerm>()?),
    }
    let docs = match stats.total_num_docs() {
        Ok(docs) => docs,
        Err(e) => return Some(Err(e)),
    };
    let weighed = |t: &WeightedTerm| {
        let average_fieldnorm = stats.total_num_tokens(t.term.field())? as Score / docs as Score;
        let doc_freq = match &t.entries {
            Some(entries) => entries.doc_freq(),
            None => stats.doc_freq(&t.term)?,
        };
        // As `Bm25Weight::for_terms` weighs one term, without the explanation it would allocate.
        let bm25 = Bm25Weight::for_one_term_without_explain(doc_freq, docs, average_fieldnorm).boost_by(t.boost);
        Ok(Clause { term: t.term.clone(), bm25, doc_freq, entries: t.entries.clone() })
    };
    Some(terms.into_iter().map(weighed).collect())
}

/// A clause's postings in one segment, scored as Tantivy's term scorer scores them.
#[derive(Clone)]
struct Cursor {
    postings: SegmentPostings,
    norms: FieldNormReader,
    bm25: Bm25Weight,
}

impl Cursor {
    fn open(clause: &Clause, reader: &SegmentReader) -> tantivy::Result<Option<Cursor>> {
        let field = clause.term.field();
        let index = reader.inverted_index(field)?;
        let found = match clause.entries.as_ref().and_then(|e| e.of(reader)) {
            Some(Some(info)) => Some(index.read_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?),
            Some(None) => None,
            None => index.read_postings(&clause.term, IndexRecordOption::WithFreqs)?,
        };
        let Some(postings) = found else {
            return Ok(None);
        };
        let norms = reader
            .fieldnorms_readers()
            .get_field(field)?
            .unwrap_or_else(|| FieldNormReader::constant(reader.max_doc(), 1));
        Ok(Some(Cursor { postings, norms, bm25: clause.bm25.clone() }))
    }

    fn doc(&self) -> DocId {
        self.postings.doc()
    }

    fn score(&self) -> Score {
        let doc = self.postings.doc();
        self.bm25.score(self.norms.fieldnorm_id(doc), self.postings.term_freq())
    }

    /// This clause's score for `doc`, at or after where it is (0 if it does not hold it).
    fn score_at(&mut self, doc: DocId) -> Score {
        if self.doc() < doc {
            self.postings.seek(doc);
        }
        if self.doc() == doc {
            self.score()
        } else {
            0.0
        }
    }
}

/// The heaviest clauses are read first, whole, while their postings add up to at most this:
/// their documents, scored in full, set the threshold at once. From a threshold of nothing,
/// MaxScore walked every clause until ten items with the word in a heavy field had turned up
/// (a common word is in the names of a few dozen items and the content of thousands).
const SEED_POSTINGS: u32 = 512;

/// Calls `callback` with every document of the union of `clauses` in `reader`'s segment whose
/// score may exceed the threshold, and its score (the sum of its clauses' scores, as a union
/// scores it); the callback returns the threshold as it rises, from `threshold`. Documents
/// scoring at most the threshold may be skipped, as with Tantivy's `for_each_pruning`.
pub fn for_each_pruning(
    clauses: &[Clause],
    reader: &SegmentReader,
    threshold: Score,
    callback: &mut dyn FnMut(DocId, Score) -> Score,
) -> tantivy::Result<()> {
    let mut cursors = Vec::with_capacity(clauses.len());
    for clause in clauses {
        cursors.extend(Cursor::open(clause, reader)?.filter(|c| c.doc() != TERMINATED));
    }
    // Lightest clause first: the clauses that cannot decide alone are a prefix.
    cursors.sort_by(|a, b| a.bm25.max_score().total_cmp(&b.bm25.max_score()));
    let (mut split, mut seeded) = (cursors.len(), 0);
    while split > 0 && seeded + cursors[split - 1].postings.doc_freq() <= SEED_POSTINGS {
        split -= 1;
        seeded += cursors[split].postings.doc_freq();
    }
    let seeds = cursors.split_off(split);
    // The lighter clauses are looked up by the seeds' documents from their own copies, as the
    // walk after it starts them from the beginning again; without seeds there is nothing to copy.
    let (threshold, seen) = match seeds.is_empty() {
        true => (threshold, Vec::new()),
        false => score_seeds(seeds, cursors.clone(), threshold, callback),
    };
    max_score(cursors, &seen, threshold, callback);
    Ok(())
}

/// `bounds[i]`: the most the clauses up to `i` (lightest first) can add together.
fn bounds(cursors: &[Cursor]) -> Vec<Score> {
    let mut sum = 0.0;
    cursors
        .iter()
        .map(|c| {
            sum += c.bm25.max_score();
            sum * BOUND_SLACK
        })
        .collect()
}

/// The score of `doc` (`None` when it cannot exceed `threshold`): the `heavier` clauses at `doc`
/// give their part, then the `lighter` ones (`bounds` theirs) are looked up, heaviest first, while
/// they may still lift it past the threshold. Parts are added lightest clause first, whichever
/// were looked up and in what phase: a document scores the same to the last bit however the
/// threshold rose (segments are collected in varying order), with or without skipping.
fn score(doc: DocId, lighter: &mut [Cursor], heavier: &[Cursor], bounds: &[Score], threshold: Score) -> Option<Score> {
    let mut parts = [0.0; MAX_CLAUSES];
    let (n, mut sum) = (lighter.len(), 0.0);
    for (part, c) in parts[n..].iter_mut().zip(heavier) {
        if c.doc() == doc {
            *part = c.score();
            sum += *part;
        }
    }
    for i in (0..n).rev() {
        if sum + bounds[i] <= threshold {
            return None;
        }
        parts[i] = lighter[i].score_at(doc);
        sum += parts[i];
    }
    let score: Score = parts[..n + heavier.len()].iter().sum();
    (score > threshold).then_some(score)
}

/// Scores every document of the `seeds` in full (looking the `others` up) and hands it to the
/// callback; returns the threshold then, and the documents scored, in order.
fn score_seeds(
    mut seeds: Vec<Cursor>,
    mut others: Vec<Cursor>,
    mut threshold: Score,
    callback: &mut dyn FnMut(DocId, Score) -> Score,
) -> (Score, Vec<DocId>) {
    let bounds = bounds(&others);
    let mut seen = Vec::new();
    loop {
        let doc = seeds.iter().map(Cursor::doc).min().unwrap_or(TERMINATED);
        if doc == TERMINATED {
            return (threshold, seen);
        }
        seen.push(doc);
        if let Some(score) = score(doc, &mut others, &seeds, &bounds, threshold) {
            threshold = threshold.max(callback(doc, score));
        }
        for s in seeds.iter_mut().filter(|s| s.doc() == doc) {
            s.postings.advance();
        }
    }
}

/// MaxScore over `cursors`, from `threshold`, passing over the documents in `seen` (ascending).
fn max_score(
    mut cursors: Vec<Cursor>,
    seen: &[DocId],
    mut threshold: Score,
    callback: &mut dyn FnMut(DocId, Score) -> Score,
) {
    let bounds = bounds(&cursors);
    let essential_from = |threshold: Score| bounds.iter().position(|&b| b > threshold).unwrap_or(bounds.len());
    let mut essential = essential_from(threshold);
    let mut seen = seen.iter().peekable();
    while essential < cursors.len() {
        let doc = cursors[essential..].iter().map(Cursor::doc).min().unwrap_or(TERMINATED);
        if doc == TERMINATED {
            return;
        }
        while seen.next_if(|&&s| s < doc).is_some() {}
        if seen.next_if_eq(&&doc).is_none() {
            let (lighter, heavier) = cursors.split_at_mut(essential);
            if let Some(score) = score(doc, lighter, heavier, &bounds, threshold) {
                let raised = callback(doc, score);
                if raised > threshold {
                    threshold = raised;
                    essential = essential_from(threshold);
                }
            }
        }
        for c in &mut cursors[essential..] {
            if c.doc() == doc {
                c.postings.advance();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use tantivy::index::SegmentId;
    use tantivy::query::{BooleanQuery, EnableScoring, Occur, Query};
    use tantivy::schema::Field;
    use tantivy::{DocId, Score, Searcher, Term};

    use super::*;
    use crate::order::quantise;
    use crate::query::terms::term_queries;
    use crate::query::testing::{field_terms, searcher, tantivy_union};

    fn weighted_union(token: &str, fields: &[(Field, f32)]) -> Box<dyn Query> {
        let clauses = fields
            .iter()
            .map(|&(field, boost)| {
                let q = WeightedTerm { term: Term::from_field_text(field, token), boost, entries: None };
                (Occur::Should, Box::new(q) as Box<dyn Query>)
            })
            .collect();
        Box::new(BooleanQuery::new(clauses))
    }

    /// The live documents scoring at least the `k`-th best score, as a pruning run hands them
    /// over (the threshold it is given lets ties with the k-th score through), in document order.
    fn top(k: usize, start: Score, run: impl FnOnce(&mut dyn FnMut(DocId, Score) -> Score)) -> Vec<(DocId, Score)> {
        let mut kept: Vec<(DocId, Score)> = Vec::new();
        let kth = |kept: &[(DocId, Score)]| {
            let mut scores: Vec<Score> = kept.iter().map(|h| h.1).collect();
            scores.sort_by(|a, b| b.total_cmp(a));
            scores.get(k - 1).copied()
        };
        run(&mut |doc, score| {
            kept.push((doc, quantise(score)));
            match kth(&kept) {
                Some(kth) => {
                    kept.retain(|h| h.1 >= kth);
                    kth.next_down().max(start)
                }
                None => start,
            }
        });
        if let Some(kth) = kth(&kept) {
            kept.retain(|h| h.1 >= kth);
        }
        kept.retain(|h| h.1 > start);
        kept.sort_by_key(|h| h.0);
        kept
    }

    /// The union as query building makes it: each term with its dictionary entries, which
    /// belong to `segments` (the searcher's, or others: then the terms are looked up).
    fn union_with_entries(
        searcher: &Searcher,
        token: &str,
        fields: &[(Field, f32)],
        segments: Option<&[SegmentId]>,
    ) -> Box<dyn Query> {
        let (own, terms) = field_terms(searcher, token, fields);
        let clauses = term_queries(&terms, segments.unwrap_or(&own)).into_iter().map(|q| (Occur::Should, q));
        Box::new(BooleanQuery::new(clauses.collect()))
    }

    fn check(searcher: &Searcher, token: &str, fields: &[(Field, f32)], k: usize, start: Score) {
        let scoring = EnableScoring::enabled_from_searcher(searcher);
        let reference = tantivy_union(token, fields).weight(scoring).unwrap();
        let elsewhere = [SegmentId::generate_random()];
        let unions = [
            ("looked up", weighted_union(token, fields)),
            ("with entries", union_with_entries(searcher, token, fields, None)),
            ("with another searcher's entries", union_with_entries(searcher, token, fields, Some(&elsewhere))),
        ];
        for (how, union) in unions {
            let clauses = clauses(&*union, searcher).unwrap().unwrap();
            for reader in searcher.segment_readers() {
                let expected = top(k, start, |callback| reference.for_each_pruning(start, reader, callback).unwrap());
                let got = top(k, start, |callback| for_each_pruning(&clauses, reader, start, callback).unwrap());
                assert_eq!(got, expected, "{token} over {fields:?} {how}, top {k} from {start}");
                assert!(expected.len() >= k.min(1) || start > Score::MIN, "{token}: the reference found nothing");
            }
        }
    }

    #[test]
    fn ranks_the_same_top_as_block_max_wand() {
        let (searcher, title, body) = searcher(4000);
        let boosts =
            [vec![(title, 3.0), (body, 1.0)], vec![(title, 1.0), (body, 1.0)], vec![(body, 2.0), (title, 0.5)]];
        for token in ["alpha", "beta", "gamma", "delta", "epsilon", "word", "n7"] {
            for fields in &boosts {
                for k in [1, 3, 10, 100] {
                    check(&searcher, token, fields, k, Score::MIN);
                }
                check(&searcher, token, fields, 10, 1.5);
            }
        }
    }

    #[test]
    fn only_unions_of_a_few_weighted_terms_are_ranked_here() {
        let (searcher, title, body) = searcher(10);
        let fields = [(title, 3.0), (body, 1.0)];
        assert!(clauses(&*weighted_union("alpha", &fields), &searcher).is_some());
        assert!(clauses(&*tantivy_union("alpha", &fields), &searcher).is_none());
        let many: Vec<(Field, f32)> = (0..=MAX_CLAUSES).map(|i| (if i % 2 == 0 { title } else { body }, 1.0)).collect();
        assert!(clauses(&*weighted_union("alpha", &many), &searcher).is_none());
    }
}
