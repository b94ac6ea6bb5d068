//! `explain: true`: what each term of the query gave a hit. Every term the query ran (exact
//! words, word forms, typo and wildcard expansions, phrase words) is scored alone against the
//! hit: its field, its weight there and its BM25 score. Typo expansions also count for less in
//! the ranking itself (see `query::build`), and nearness, recency and meaning add to it; the
//! hit's `match` says when meaning found it.

use std::collections::HashSet;

use serde::Serialize;
use tantivy::query::Weight;
use tantivy::query::{EnableScoring, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::{DocId, Searcher, SegmentReader};

use crate::error::Result;
use crate::index::SearchIndex;
use crate::query::build::positive_tokens;
use crate::query::parse;
use crate::stem::STEM_WEIGHT;
use crate::wire::SearchRequest;

#[derive(Serialize)]
struct Contribution<'a> {
    field: &'a str,
    term: &'a str,
    /// `exact`, `word form`, `phrase`, `typo` or `wildcard`.
    how: &'static str,
    /// The field's weight.
    weight: f32,
    /// The term's BM25 score in that field of this item, before the weight.
    bm25: f32,
}

struct ExplainedTerm {
    field: String,
    text: String,
    how: &'static str,
    weight: f32,
    scoring: Box<dyn Weight>,
}

/// The terms of one query, ready to be scored against each hit.
pub(super) struct Explainer {
    terms: Vec<ExplainedTerm>,
}

impl SearchIndex {
    pub(super) fn explainer(&self, req: &SearchRequest, searcher: &Searcher, query: &dyn Query) -> Result<Explainer> {
        let f = &self.fields;
        let schema = self.index.schema();
        let weights = req.weights.as_array();
        let mut typed = Vec::new();
        if let Ok(node) = parse(&req.query) {
            positive_tokens(&node, &mut typed);
        }
        let wildcard = req.query.contains(['*', '?']);
        let mut seen = HashSet::new();
        let mut found: Vec<(Term, bool)> = Vec::new();
        query.query_terms(&mut |term, positions| {
            if seen.insert(term.clone()) {
                found.push((term.clone(), positions));
            }
        });
        let mut terms = Vec::new();
        for (term, positions) in found {
            let field = term.field();
            let weight = match f.text.iter().position(|t| *t == field) {
                Some(i) => weights[i],
                None if field == f.stem => STEM_WEIGHT,
                None => continue, // restrictions: kind, space, metadata
            };
            let Some(text) = term.value().as_str().map(String::from) else { continue };
            let how = if field == f.stem {
                "word form"
            } else if positions {
                "phrase"
            } else if typed.contains(&text) || req.like.is_some() {
                "exact"
            } else if wildcard {
                "wildcard"
            } else {
                "typo"
            };
            let scoring = TermQuery::new(term, IndexRecordOption::WithFreqs)
                .weight(EnableScoring::enabled_from_searcher(searcher))?;
            terms.push(ExplainedTerm { field: schema.get_field_name(field).to_string(), text, how, weight, scoring });
        }
        Ok(Explainer { terms })
    }
}

impl Explainer {
    /// The contributions to one hit, largest first, as a JSON array.
    pub fn explain(&self, reader: &SegmentReader, doc: DocId) -> Result<String> {
        let mut parts = Vec::new();
        for t in &self.terms {
            let mut scorer = t.scoring.scorer(reader, 1.0)?;
            // A new scorer stands on the term's first doc: one past `doc` means the term is not
            // in it (seeking back is not allowed).
            if scorer.doc() <= doc && scorer.seek(doc) == doc {
                let bm25 = (scorer.score() * 10_000.0).round() / 10_000.0;
                parts.push(Contribution { field: &t.field, term: &t.text, how: t.how, weight: t.weight, bm25 });
            }
        }
        parts.sort_by(|a, b| (b.weight * b.bm25).total_cmp(&(a.weight * a.bm25)));
        Ok(serde_json::to_string(&parts).expect("contributions serialise"))
    }
}
