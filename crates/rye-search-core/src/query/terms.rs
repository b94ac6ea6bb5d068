//! Term queries with their weights, and unions of them: what translation and expansion build.

use tantivy::query::{
    BooleanQuery, BoostQuery, BoostWeight, EmptyQuery, EnableScoring, Occur, Query, TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption, Term};

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
    Box::new(WeightedTerm { term, boost })
}

/// A term query with a weight: a boosted [`TermQuery`] that says its term and weight, which
/// ranking a union by MaxScore needs ([`super::max_score`]). It scores as a `BoostQuery` of the
/// term query does, and its scorer is Tantivy's term scorer (block-max WAND takes it as such).
#[derive(Clone, Debug)]
pub struct WeightedTerm {
    pub term: Term,
    pub boost: f32,
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

pub(super) fn term_queries(terms: &[FieldTerm]) -> Vec<Box<dyn Query>> {
    terms.iter().map(|t| term_query(t.term.clone(), t.boost)).collect()
}

pub(super) fn any_of(mut queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    match queries.len() {
        0 => Box::new(EmptyQuery),
        1 => queries.pop().unwrap(),
        _ => Box::new(BooleanQuery::new(queries.into_iter().map(|q| (Occur::Should, q)).collect())),
    }
}
