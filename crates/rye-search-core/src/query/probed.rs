//! Unions an intersection probes: one word over its fields, as a side of `a b` or `a AND b`,
//! and the nearness of plain words, scored beside the words for each of their matches.
//!
//! An intersection walks its rarest side and asks the others to seek to each match; an optional
//! clause is asked to seek to each match it scores. Tantivy's union is built to be walked: it
//! buffers the next 4,096 documents of every part, and a seek past them clears that window and
//! fills the next (for a phrase, matching its positions in all of them). Probed once per match of
//! a rarer word, that was a third of a two-word search at a million items. Here each part seeks
//! on its own (a field's postings on their skip lists) and the union's document is the smallest.
//! A word's dictionary entries found while building the query are reused (a term query looks
//! each one up twice more), and each field scores with the BM25 weight its term query would have.

use tantivy::fieldnorm::FieldNormReader;
use tantivy::index::SegmentId;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{Bm25Weight, BooleanQuery, EnableScoring, Explanation, Occur, Query, Scorer, Weight};
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, TERMINATED};

use super::few_postings::{segment_ord, FieldTerm};

/// Sum of the BM25 scores of one word's field terms, as a union of boosted term queries scores.
#[derive(Clone, Debug)]
pub struct AnyFieldQuery {
    /// The segments the dictionary entries belong to, in order.
    segments: Vec<SegmentId>,
    terms: Vec<FieldTerm>,
}

impl AnyFieldQuery {
    pub fn new(segments: Vec<SegmentId>, terms: Vec<FieldTerm>) -> Self {
        AnyFieldQuery { segments, terms }
    }
}

impl Query for AnyFieldQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let mut bm25 = Vec::new();
        if let EnableScoring::Enabled { statistics_provider: stats, .. } = scoring {
            let docs = stats.total_num_docs()?;
            for t in &self.terms {
                let average_fieldnorm = stats.total_num_tokens(t.term.field())? as Score / docs as Score;
                bm25.push(Bm25Weight::for_one_term_without_explain(t.doc_freq(), docs, average_fieldnorm));
            }
        }
        Ok(Box::new(AnyFieldWeight { query: self.clone(), bm25 }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for t in &self.terms {
            visitor(&t.term, false);
        }
    }
}

struct AnyFieldWeight {
    query: AnyFieldQuery,
    /// Per term, before its boost; empty when scoring is disabled.
    bm25: Vec<Bm25Weight>,
}

impl AnyFieldWeight {
    fn union(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<ProbedUnion<FieldPostings>> {
        let ord = segment_ord(&self.query.segments, reader)?;
        let mut fields = Vec::new();
        for (i, t) in self.query.terms.iter().enumerate() {
            let Some(info) = t.infos.get(ord).and_then(Option::as_ref) else { continue };
            let field = t.term.field();
            let postings =
                reader.inverted_index(field)?.read_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?;
            if postings.doc() == TERMINATED {
                continue;
            }
            let scoring = match self.bm25.get(i) {
                // As a boosted term query boosts: the outer boost times the term's.
                Some(bm25) => Some((bm25.boost_by(boost * t.boost), reader.get_fieldnorms_reader(field)?)),
                None => None,
            };
            fields.push(FieldPostings { postings, scoring });
        }
        Ok(ProbedUnion::new(fields))
    }
}

impl Weight for AnyFieldWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(self.union(reader, boost)?))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut union = self.union(reader, 1.0)?;
        if union.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!("document {doc} does not match")));
        }
        let mut explanation = Explanation::new("sum of the BM25 scores of the word in each field", union.score());
        for f in union.parts.iter().filter(|f| f.postings.doc() == doc) {
            if let Some((bm25, norms)) = &f.scoring {
                explanation.add_detail(bm25.explain(norms.fieldnorm_id(doc), f.postings.term_freq()));
            }
        }
        Ok(explanation)
    }
}

/// One field's postings of the word, with what scores them.
struct FieldPostings {
    postings: SegmentPostings,
    scoring: Option<(Bm25Weight, FieldNormReader)>,
}

impl DocSet for FieldPostings {
    fn advance(&mut self) -> DocId {
        self.postings.advance()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        self.postings.seek(target)
    }

    fn doc(&self) -> DocId {
        self.postings.doc()
    }

    fn size_hint(&self) -> u32 {
        self.postings.size_hint()
    }
}

impl Scorer for FieldPostings {
    fn score(&mut self) -> Score {
        match &self.scoring {
            Some((bm25, norms)) => bm25.score(norms.fieldnorm_id(self.postings.doc()), self.postings.term_freq()),
            None => 0.0,
        }
    }
}

/// A union of a few parts that seek on their own, positioned on the smallest of their documents.
struct ProbedUnion<S> {
    parts: Vec<S>,
    doc: DocId,
}

impl<S: Scorer> ProbedUnion<S> {
    fn new(parts: Vec<S>) -> Self {
        let mut union = ProbedUnion { parts, doc: TERMINATED };
        union.doc = union.smallest();
        union
    }

    fn smallest(&self) -> DocId {
        self.parts.iter().map(S::doc).min().unwrap_or(TERMINATED)
    }
}

impl<S: Scorer> DocSet for ProbedUnion<S> {
    fn advance(&mut self) -> DocId {
        if self.doc == TERMINATED {
            return TERMINATED;
        }
        for part in &mut self.parts {
            if part.doc() == self.doc {
                part.advance();
            }
        }
        self.doc = self.smallest();
        self.doc
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc >= target {
            return self.doc;
        }
        for part in &mut self.parts {
            if part.doc() < target {
                part.seek(target);
            }
        }
        self.doc = self.smallest();
        self.doc
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.parts.iter().map(S::size_hint).fold(0, u32::saturating_add)
    }
}

impl<S: Scorer> Scorer for ProbedUnion<S> {
    fn score(&mut self) -> Score {
        let doc = self.doc;
        self.parts.iter_mut().filter(|part| part.doc() == doc).map(|part| part.score()).sum()
    }
}

/// Any union of a few clauses (a phrase over its fields) as one that seeks.
#[derive(Debug)]
pub struct ProbedUnionQuery {
    clauses: Vec<Box<dyn Query>>,
}

impl Clone for ProbedUnionQuery {
    fn clone(&self) -> Self {
        ProbedUnionQuery { clauses: self.clauses.iter().map(|q| q.box_clone()).collect() }
    }
}

impl ProbedUnionQuery {
    /// `query` as a union that seeks when it is a union of at most [`MAX_PROBED_CLAUSES`]
    /// clauses (walked instead, each step compares them all); else `query` itself.
    pub fn of(query: Box<dyn Query>) -> Box<dyn Query> {
        let Some(union) = query.downcast_ref::<BooleanQuery>() else { return query };
        let clauses = union.clauses();
        if clauses.is_empty() || clauses.len() > MAX_PROBED_CLAUSES || clauses.iter().any(|(o, _)| *o != Occur::Should)
        {
            return query;
        }
        Box::new(ProbedUnionQuery { clauses: clauses.iter().map(|(_, q)| q.box_clone()).collect() })
    }
}

/// The most clauses [`ProbedUnionQuery::of`] takes: a phrase's fields, a word's fields and stems.
const MAX_PROBED_CLAUSES: usize = 8;

impl Query for ProbedUnionQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let weights = self.clauses.iter().map(|q| q.weight(scoring)).collect::<tantivy::Result<_>>()?;
        Ok(Box::new(ProbedUnionWeight { weights }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for q in &self.clauses {
            q.query_terms(visitor);
        }
    }
}

struct ProbedUnionWeight {
    weights: Vec<Box<dyn Weight>>,
}

impl Weight for ProbedUnionWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut parts = Vec::with_capacity(self.weights.len());
        for weight in &self.weights {
            let part = weight.scorer(reader, boost)?;
            if part.doc() != TERMINATED {
                parts.push(part);
            }
        }
        Ok(Box::new(ProbedUnion::new(parts)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let matched: Vec<Explanation> = self.weights.iter().filter_map(|w| w.explain(reader, doc).ok()).collect();
        if matched.is_empty() {
            return Err(TantivyError::InvalidArgument(format!("document {doc} does not match")));
        }
        let mut explanation =
            Explanation::new("sum of the clauses that match", matched.iter().map(|e| e.value()).sum());
        for e in matched {
            explanation.add_detail(e);
        }
        Ok(explanation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::testing::{both, by_address, field_terms, searcher, tantivy_union};
    use tantivy::collector::{Count, TopDocs};
    use tantivy::query::{BoostQuery, PhraseQuery};
    use tantivy::schema::Field;
    use tantivy::Searcher;

    fn any_field(searcher: &Searcher, token: &str, fields: &[(Field, f32)]) -> Box<dyn Query> {
        let (segments, terms) = field_terms(searcher, token, fields);
        Box::new(AnyFieldQuery::new(segments, terms))
    }

    #[test]
    fn an_intersection_of_words_matches_and_scores_as_one_of_term_unions_does() {
        let (searcher, title, body) = searcher(1_500);
        let fields = [(title, 3.0), (body, 1.5)];
        let all = (TopDocs::with_limit(5_000).order_by_score(), Count);
        for (a, b) in [("alpha", "beta"), ("gamma", "alpha"), ("delta", "epsilon"), ("beta", "absent")] {
            let ours = searcher.search(&both(any_field(&searcher, a, &fields), any_field(&searcher, b, &fields)), &all);
            let theirs = searcher.search(&both(tantivy_union(a, &fields), tantivy_union(b, &fields)), &all).unwrap();
            let ours = ours.unwrap();
            assert_eq!(ours.1, theirs.1, "{a} {b}: count");
            assert!(b == "absent" || ours.1 > 200, "{a} {b}: the test needs many matches");
            // The same documents; scores equal but for the order the fields' scores are added in.
            let (ours, theirs) = (by_address(ours.0), by_address(theirs.0));
            assert_eq!(ours.len(), theirs.len());
            for (o, t) in ours.iter().zip(&theirs) {
                assert_eq!(o.0, t.0, "{a} {b}");
                assert!((o.1 - t.1).abs() <= 1e-5 * t.1, "{a} {b}: {} vs {}", o.1, t.1);
            }
        }
    }

    #[test]
    fn a_word_walks_seeks_and_explains_its_score() {
        let (searcher, title, body) = searcher(1_500);
        let fields = [(title, 2.0), (body, 1.0)];
        let query = any_field(&searcher, "alpha", &fields);
        let reference = tantivy_union("alpha", &fields);
        let top = searcher.search(&*query, &TopDocs::with_limit(3).order_by_score()).unwrap();
        assert_eq!(top.len(), 3);
        for (score, address) in top {
            assert!((query.explain(&searcher, address).unwrap().value() - score).abs() <= 1e-6 * score);
        }
        // Seeking to every 97th document lands where Tantivy's union lands, scored alike.
        let segment = &searcher.segment_readers()[1];
        let scoring = EnableScoring::enabled_from_searcher(&searcher);
        let mut ours = query.weight(scoring).unwrap().scorer(segment, 1.0).unwrap();
        let mut theirs = reference.weight(scoring).unwrap().scorer(segment, 1.0).unwrap();
        for target in (0..1_600).step_by(97) {
            if ours.doc() >= target || theirs.doc() >= target {
                continue;
            }
            assert_eq!(ours.seek(target), theirs.seek(target));
            if ours.doc() != TERMINATED {
                assert!((ours.score() - theirs.score()).abs() <= 1e-5 * theirs.score());
            }
        }
        assert_eq!(ours.seek(TERMINATED), TERMINATED);
        assert_eq!(ours.advance(), TERMINATED);
    }

    #[test]
    fn phrases_probed_beside_a_word_score_as_tantivys_union_of_them_does() {
        let (searcher, title, body) = searcher(1_500);
        let phrase = |field: Field, slop: u32| -> Box<dyn Query> {
            let mut q =
                PhraseQuery::new(vec![Term::from_field_text(field, "alpha"), Term::from_field_text(field, "beta")]);
            q.set_slop(slop);
            Box::new(BoostQuery::new(Box::new(q), if field == title { 2.0 } else { 1.0 }))
        };
        let all = (TopDocs::with_limit(5_000).order_by_score(), Count);
        for slop in [0, 3] {
            let phrases = || {
                Box::new(BooleanQuery::new(vec![
                    (Occur::Should, phrase(title, slop)),
                    (Occur::Should, phrase(body, slop)),
                ]))
            };
            let words = || tantivy_union("alpha", &[(title, 2.0), (body, 1.0)]);
            let with = |near: Box<dyn Query>| BooleanQuery::new(vec![(Occur::Must, words()), (Occur::Should, near)]);
            let probed = ProbedUnionQuery::of(phrases());
            assert!(probed.downcast_ref::<ProbedUnionQuery>().is_some());
            let (ours, theirs) =
                (searcher.search(&with(probed), &all).unwrap(), searcher.search(&with(phrases()), &all).unwrap());
            assert_eq!(ours.1, theirs.1);
            let (ours, theirs) = (by_address(ours.0), by_address(theirs.0));
            assert!(ours.windows(2).any(|w| w[0].1 != w[1].1), "the phrases must tell documents apart");
            for (o, t) in ours.iter().zip(&theirs) {
                assert_eq!(o.0, t.0);
                assert!((o.1 - t.1).abs() <= 1e-5 * t.1, "slop {slop}: {} vs {}", o.1, t.1);
            }
            // Alone (walked), it matches what Tantivy's union matches.
            let alone = searcher.search(&*ProbedUnionQuery::of(phrases()), &all).unwrap();
            assert_eq!(alone.1, searcher.search(&*phrases(), &all).unwrap().1);
            assert!(alone.1 > 0);
        }
        // Anything but a small union of optional clauses is left as it is.
        let lone = ProbedUnionQuery::of(phrase(body, 0));
        assert!(lone.downcast_ref::<BoostQuery>().is_some());
        let required = ProbedUnionQuery::of(Box::new(BooleanQuery::new(vec![(Occur::Must, phrase(body, 0))])));
        assert!(required.downcast_ref::<BooleanQuery>().is_some());
        let wide = (0..9).map(|_| (Occur::Should, phrase(body, 0))).collect();
        assert!(ProbedUnionQuery::of(Box::new(BooleanQuery::new(wide))).downcast_ref::<BooleanQuery>().is_some());
    }
}
