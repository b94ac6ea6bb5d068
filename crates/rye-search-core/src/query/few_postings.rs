//! A union of terms with few postings, scored by reading every posting once.
//!
//! Tantivy's term query pays a fixed cost per term and field before it reads a posting: a
//! dictionary lookup for the statistics and another for the scorer, an idf explanation, a
//! 256-entry norm table. For a rare term that setup is most of the search. Here the dictionary
//! entries found while building the query are reused, and each posting is scored with the same
//! BM25 formula (so scores equal those of the term queries it replaces). Block-max WAND would
//! skip nothing on so few postings, so nothing is lost by scoring them all.

use tantivy::fieldnorm::FieldNormReader;
use tantivy::index::SegmentId;
use tantivy::postings::TermInfo;
use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, TERMINATED};

/// Up to this many postings (over every term, field and segment), a term union is scored here.
/// `PRUNE_MIN_POSTINGS` in `index.rs` is why: below it, Tantivy scores every match anyway.
pub const FEW_POSTINGS: u64 = 1500;

// Tantivy's BM25 constants.
const K1: Score = 1.2;
const B: Score = 0.75;

/// One term in one field, with its dictionary entry in each segment (by segment order).
#[derive(Clone, Debug)]
pub struct FieldTerm {
    pub term: Term,
    pub boost: Score,
    pub infos: Vec<Option<TermInfo>>,
}

impl FieldTerm {
    pub fn doc_freq(&self) -> u64 {
        self.infos.iter().flatten().map(|i| i.doc_freq as u64).sum()
    }
}

/// Sum of the BM25 scores of its terms, like a union of boosted term queries.
#[derive(Clone, Debug)]
pub struct FewPostingsQuery {
    /// The segments the dictionary entries belong to, in order.
    segments: Vec<SegmentId>,
    terms: Vec<FieldTerm>,
}

impl FewPostingsQuery {
    pub fn new(segments: Vec<SegmentId>, terms: Vec<FieldTerm>) -> Self {
        FewPostingsQuery { segments, terms }
    }

    pub fn terms(&self) -> &[FieldTerm] {
        &self.terms
    }

    /// The segments its terms' entries belong to, in order.
    pub fn segments(&self) -> &[SegmentId] {
        &self.segments
    }

    /// One union over the terms of both (segments are the same: both come from one searcher).
    pub fn join(mut self, other: &FewPostingsQuery) -> Self {
        self.terms.extend(other.terms.iter().cloned());
        self
    }
}

impl Query for FewPostingsQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let mut weights = Vec::with_capacity(self.terms.len());
        if let EnableScoring::Enabled { statistics_provider: stats, .. } = scoring {
            let docs = stats.total_num_docs()?;
            for t in &self.terms {
                let average_fieldnorm = stats.total_num_tokens(t.term.field())? as Score / docs as Score;
                // As Tantivy computes it: idf × (1 + K1), then × the boost.
                let mut weight = idf(t.doc_freq(), docs) * (1.0 + K1);
                if t.boost != 1.0 {
                    weight *= t.boost;
                }
                weights.push(TermScoring { weight, average_fieldnorm });
            }
        }
        Ok(Box::new(FewPostingsWeight { query: self.clone(), weights }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for t in &self.terms {
            visitor(&t.term, false);
        }
    }
}

/// Where `reader`'s segment is in `segments` (those a query's dictionary entries come from).
pub(super) fn segment_ord(segments: &[SegmentId], reader: &SegmentReader) -> tantivy::Result<usize> {
    segments
        .iter()
        .position(|id| *id == reader.segment_id())
        .ok_or_else(|| TantivyError::InvalidArgument("segment not in the searcher the query was built on".into()))
}

fn idf(doc_freq: u64, docs: u64) -> Score {
    let x = (docs.saturating_sub(doc_freq) as Score + 0.5) / (doc_freq as Score + 0.5);
    (1.0 + x).ln()
}

#[derive(Clone, Copy)]
struct TermScoring {
    weight: Score,
    average_fieldnorm: Score,
}

impl TermScoring {
    fn score(&self, fieldnorm_id: u8, term_freq: u32) -> Score {
        let fieldnorm = FieldNormReader::id_to_fieldnorm(fieldnorm_id);
        let norm = K1 * (1.0 - B + B * fieldnorm as Score / self.average_fieldnorm);
        let tf = term_freq as Score;
        self.weight * (tf / (tf + norm))
    }
}

struct FewPostingsWeight {
    query: FewPostingsQuery,
    /// Per term; empty when scoring is disabled.
    weights: Vec<TermScoring>,
}

impl FewPostingsWeight {
    /// Every matching document of the segment with its score, in document order.
    fn matches(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Vec<(DocId, Score)>> {
        let ord = segment_ord(&self.query.segments, reader)?;
        // The sum so far, the term read, and the next sum: three buffers, reused term after term.
        let mut all: Vec<(DocId, Score)> = Vec::new();
        let mut one = Vec::new();
        let mut next = Vec::new();
        for (i, t) in self.query.terms.iter().enumerate() {
            let Some(info) = t.infos.get(ord).and_then(Option::as_ref) else { continue };
            let field: Field = t.term.field();
            let mut postings =
                reader.inverted_index(field)?.read_block_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?;
            let scoring = match self.weights.get(i) {
                Some(weight) => Some((weight, reader.get_fieldnorms_reader(field)?)),
                None => None,
            };
            one.clear();
            one.reserve(info.doc_freq as usize);
            let mut left = info.doc_freq as usize;
            while left > 0 && !postings.docs().is_empty() {
                for (&doc, &tf) in postings.docs().iter().zip(postings.freqs()) {
                    let score = scoring.as_ref().map_or(0.0, |(w, norms)| w.score(norms.fieldnorm_id(doc), tf) * boost);
                    one.push((doc, score));
                }
                left = left.saturating_sub(postings.docs().len());
                postings.advance();
            }
            if all.is_empty() {
                std::mem::swap(&mut all, &mut one);
            } else {
                merge_sum(&all, &one, &mut next);
                std::mem::swap(&mut all, &mut next);
            }
        }
        Ok(all)
    }
}

/// Two doc-ordered lists as one, into `out`, scores of a document in both added (`a`'s first, as
/// a union adds its clauses in order).
fn merge_sum(a: &[(DocId, Score)], b: &[(DocId, Score)], out: &mut Vec<(DocId, Score)>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (da, sa) = a[i];
        let (db, sb) = b[j];
        if da < db {
            out.push(a[i]);
            i += 1;
        } else if db < da {
            out.push(b[j]);
            j += 1;
        } else {
            out.push((da, sa + sb));
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

impl Weight for FewPostingsWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let matches = self.matches(reader, boost)?;
        Ok(Box::new(ListScorer { matches, at: 0 }))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let matches = self.matches(reader, 1.0)?;
        match matches.binary_search_by_key(&doc, |m| m.0) {
            Ok(i) => Ok(Explanation::new("sum of BM25 scores of the terms (few postings)", matches[i].1)),
            Err(_) => Err(TantivyError::InvalidArgument(format!("document {doc} does not match"))),
        }
    }
}

/// A scored list of documents as a scorer.
struct ListScorer {
    matches: Vec<(DocId, Score)>,
    at: usize,
}

impl DocSet for ListScorer {
    fn advance(&mut self) -> DocId {
        self.at = (self.at + 1).min(self.matches.len());
        self.doc()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        let rest = &self.matches[self.at..];
        self.at += rest.partition_point(|m| m.0 < target);
        self.doc()
    }

    fn doc(&self) -> DocId {
        self.matches.get(self.at).map_or(TERMINATED, |m| m.0)
    }

    fn size_hint(&self) -> u32 {
        (self.matches.len() - self.at) as u32
    }
}

impl Scorer for ListScorer {
    fn score(&mut self) -> Score {
        self.matches.get(self.at).map_or(0.0, |m| m.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::testing::{both, by_address, field_terms, searcher, tantivy_union};
    use tantivy::collector::{Count, TopDocs};
    use tantivy::Searcher;

    fn few(searcher: &Searcher, token: &str, fields: &[(Field, f32)]) -> FewPostingsQuery {
        let (segments, terms) = field_terms(searcher, token, fields);
        FewPostingsQuery::new(segments, terms)
    }

    #[test]
    fn scores_equal_those_of_a_union_of_boosted_term_queries() {
        let (searcher, title, body) = searcher(40);
        let fields = [(title, 3.0), (body, 1.5)];
        for token in ["alpha", "beta", "gamma", "delta", "epsilon", "absent"] {
            let ours = searcher
                .search(&few(&searcher, token, &fields), &(TopDocs::with_limit(200).order_by_score(), Count))
                .unwrap();
            let theirs = searcher
                .search(&*tantivy_union(token, &fields), &(TopDocs::with_limit(200).order_by_score(), Count))
                .unwrap();
            assert_eq!(ours.1, theirs.1, "{token}: count");
            assert_eq!(by_address(ours.0), by_address(theirs.0), "{token}: documents and scores");
        }
    }

    #[test]
    fn intersects_and_explains_like_any_query() {
        let (searcher, title, body) = searcher(40);
        let fields = [(title, 2.0), (body, 1.0)];
        let ours = both(Box::new(few(&searcher, "alpha", &fields)), Box::new(few(&searcher, "beta", &fields)));
        let theirs = both(tantivy_union("alpha", &fields), tantivy_union("beta", &fields));
        let top = |q: &dyn Query| searcher.search(q, &TopDocs::with_limit(5).order_by_score()).unwrap();
        let (a, b) = (top(&ours), top(&theirs));
        assert!(!a.is_empty());
        assert_eq!(a, b);
        let joined = few(&searcher, "alpha", &fields).join(&few(&searcher, "delta", &fields));
        let (score, address) = searcher.search(&joined, &TopDocs::with_limit(1).order_by_score()).unwrap()[0];
        assert_eq!(joined.explain(&searcher, address).unwrap().value(), score);
    }

    #[test]
    fn merged_lists_add_the_scores_of_shared_documents() {
        let a = [(1, 1.0), (4, 2.0), (9, 0.5)];
        let b = [(0, 3.0), (4, 1.0), (10, 1.0)];
        let mut out = vec![(99, 9.0)];
        merge_sum(&a, &b, &mut out);
        assert_eq!(out, vec![(0, 3.0), (1, 1.0), (4, 3.0), (9, 0.5), (10, 1.0)]);
        merge_sum(&[], &b, &mut out);
        assert_eq!(out, b.to_vec());
    }

    #[test]
    fn a_list_scorer_seeks_and_ends() {
        let mut s = ListScorer { matches: vec![(2, 1.0), (5, 2.0), (7, 3.0)], at: 0 };
        assert_eq!(s.doc(), 2);
        assert_eq!(s.seek(5), 5);
        assert_eq!(s.score(), 2.0);
        assert_eq!(s.seek(6), 7);
        assert_eq!(s.advance(), TERMINATED);
        assert_eq!(s.advance(), TERMINATED);
        assert_eq!(s.score(), 0.0);
    }
}
