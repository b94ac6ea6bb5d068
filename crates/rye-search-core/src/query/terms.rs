//! Term queries with their weights, and unions of them: what translation and expansion build.

use std::sync::Arc;

use tantivy::index::SegmentId;
use tantivy::postings::TermInfo;
use tantivy::query::{
    BooleanQuery, BoostQuery, BoostWeight, EmptyQuery, EnableScoring, Occur, Query, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::SegmentReader;

use super::few_postings::FieldTerm;

/// Term dictionaries hold the UTF-8 bytes of text terms.
pub(super) fn text_term(field: Field, bytes: &[u8]) -> Term {
    Term::from_field_text(field, &String::from_utf8_lossy(bytes))
}

pub(super) fn boosted(q: Box<dyn Query>, boost: f32) -> Box<dyn Query> {
    if (boost - 1.0).abs() < f32::EPSILON {
        q
    } else {
        Box::new(BoostQuery::new(q, boost))
    }
}

pub(super) fn term_query(term: Term, boost: f32) -> Box<dyn Query> {
    Box::new(WeightedTerm { term, boost, entries: None })
}

/// A term query with a weight: a boosted [`TermQuery`] that says its term and weight, which
/// ranking a union by MaxScore needs ([`super::max_score`]). It scores as a `BoostQuery` of the
/// term query does, and its scorer is Tantivy's term scorer (block-max WAND takes it as such).
#[derive(Clone, Debug)]
pub struct WeightedTerm {
    pub term: Term,
    pub boost: f32,
    /// Its dictionary entries, when the query's building looked them up.
    pub entries: Option<Entries>,
}

/// A term's dictionary entry in each segment of the searcher a query was built on, as building
/// it found them. Ranking by MaxScore and counting reuse them: otherwise the term is looked up
/// again for its statistics, its postings and its count.
#[derive(Clone, Debug)]
pub struct Entries {
    /// The segments, in the searcher's order.
    pub segments: Arc<[SegmentId]>,
    /// The entry in each segment; None where it lacks the term.
    pub infos: Vec<Option<TermInfo>>,
}

impl Entries {
    /// Documents holding the term in any segment (deleted ones included, as Tantivy counts).
    pub fn doc_freq(&self) -> u64 {
        self.infos.iter().flatten().map(|i| i.doc_freq as u64).sum()
    }

    /// The entry in `reader`'s segment: `Some(None)` when the segment lacks the term, `None` when
    /// it is not one of the segments (then the term must be looked up).
    pub fn of(&self, reader: &SegmentReader) -> Option<Option<&TermInfo>> {
        let ord = self.segments.iter().position(|id| *id == reader.segment_id())?;
        Some(self.infos.get(ord)?.as_ref())
    }
}

impl Query for WeightedTerm {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let weight = TermQuery::new(self.term.clone(), IndexRecordOption::WithFreqs).weight(scoring)?;
        Ok(match (self.boost - 1.0).abs() < f32::EPSILON {
            true => weight,
            false => Box::new(BoostWeight::new(weight, self.boost)),
        })
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        visitor(&self.term, false);
    }
}

/// Term queries of `terms`, whose entries belong to `segments`.
pub(super) fn term_queries(terms: &[FieldTerm], segments: &[SegmentId]) -> Vec<Box<dyn Query>> {
    let segments: Arc<[SegmentId]> = segments.into();
    let query = |t: &FieldTerm| -> Box<dyn Query> {
        let entries = Entries { segments: segments.clone(), infos: t.infos.clone() };
        Box::new(WeightedTerm { term: t.term.clone(), boost: t.boost, entries: Some(entries) })
    };
    terms.iter().map(query).collect()
}

pub(super) fn any_of(mut queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    match queries.len() {
        0 => Box::new(EmptyQuery),
        1 => queries.pop().unwrap(),
        _ => Box::new(BooleanQuery::new(queries.into_iter().map(|q| (Occur::Should, q)).collect())),
    }
}
