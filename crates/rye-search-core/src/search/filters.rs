//! Restrictions that select without scoring: kind, scope (namespace or id pattern), spaces and
//! metadata filters.

use std::ops::Bound;

use tantivy::query::{AllQuery, BooleanQuery, Occur, Query, RangeQuery, RegexQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Term};

use crate::error::{echo, Error, Result};
use crate::exact::{composed, meta_facet, unicode_forms};
use crate::index::SearchIndex;
use crate::schema::version_number;
use crate::wire::Scope;
use crate::wire::{Filter, SearchRequest};

impl SearchIndex {
    /// Kind, scope, spaces and filters: clauses that restrict but do not score.
    pub(super) fn restrictions(
        &self,
        searcher: &tantivy::Searcher,
        req: &SearchRequest,
    ) -> Result<Vec<(Occur, Box<dyn Query>)>> {
        let f = &self.fields;
        let mut out: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let max_doc: u64 = searcher.segment_readers().iter().map(|s| s.max_doc() as u64).sum();
        // A restriction every document satisfies only slows the intersection down: leave it out.
        let covers_all = |field: Field, values: &[&str]| -> Result<bool> {
            let mut n = 0u64;
            for v in values {
                n += searcher.doc_freq(&Term::from_field_text(field, v))?;
            }
            Ok(n >= max_doc)
        };
        match req.scopes.as_slice() {
            [] => {}
            [one] => out.extend(self.scope(one, &covers_all)?.into_iter().map(|q| (Occur::Must, q))),
            several => {
                let any = several
                    .iter()
                    .map(|scope| Ok((Occur::Should, all_of(self.scope(scope, &covers_all)?))))
                    .collect::<Result<Vec<_>>>()?;
                out.push((Occur::Must, Box::new(BooleanQuery::new(any))));
            }
        }
        let spaces: Vec<&str> = req.spaces.iter().map(String::as_str).collect();
        if !spaces.is_empty() && !covers_all(f.space, &spaces)? {
            out.push((Occur::Must, any_raw(f.space, spaces.into_iter())));
        }
        for filter in &req.filters {
            out.push(self.filter(filter)?);
        }
        // An item is never like itself: every copy of it is left out.
        if let Some(like) = &req.like {
            let itself = BooleanQuery::new(vec![
                (Occur::Must, any_raw(f.id, unicode_forms(&like.id).iter().map(String::as_str))),
                (Occur::Must, any_raw(f.kind, like.kinds.iter().map(String::as_str))),
            ]);
            out.push((Occur::MustNot, Box::new(itself)));
        }
        Ok(out)
    }

    /// What one scope requires of an item, every clause at once; none for every item.
    fn scope(&self, scope: &Scope, covers_all: &dyn Fn(Field, &[&str]) -> Result<bool>) -> Result<Vec<Box<dyn Query>>> {
        let f = &self.fields;
        let mut out = Vec::new();
        if let Some(kind) = &scope.kind {
            if !covers_all(f.kind, &[kind])? {
                out.push(raw_term(f.kind, kind));
            }
        }
        if let Some(pattern) = &scope.id_pattern {
            let q = RegexQuery::from_pattern(pattern, f.id)
                .map_err(|e| Error::invalid(format!("invalid scope pattern: {e}"), "check the scope"))?;
            out.push(Box::new(q));
        }
        if let Some(ns) = &scope.namespace {
            let under = raw_term(f.namespace, &composed(ns));
            out.push(if scope.namespace_exact {
                // The item itself, its id in either Unicode form (ids are kept as files spell them).
                let itself = any_raw(f.id, unicode_forms(ns).iter().map(String::as_str));
                Box::new(BooleanQuery::new(vec![(Occur::Should, under), (Occur::Should, itself)]))
            } else {
                under
            });
        }
        Ok(out)
    }

    fn filter(&self, filter: &Filter) -> Result<(Occur, Box<dyn Query>)> {
        let f = &self.fields;
        Ok(match filter {
            Filter::AnyOf { key, values } | Filter::NoneOf { key, values } => {
                let facets: Vec<String> = values.iter().map(|v| meta_facet(key, v)).collect();
                // Tantivy keeps no term that long, so no item holds it as a filter value: said,
                // not answered with nothing.
                if let Some(long) = facets.iter().find(|t| t.len() > tantivy::tokenizer::MAX_TOKEN_LEN) {
                    return Err(Error::limit(
                        format!("a filter on \"{}\" of {} bytes can never match", echo(key), long.len()),
                        format!("filter values are kept up to {} bytes", tantivy::tokenizer::MAX_TOKEN_LEN),
                    ));
                }
                let q = any_raw(f.meta, facets.iter().map(String::as_str));
                let occur = if matches!(filter, Filter::AnyOf { .. }) { Occur::Must } else { Occur::MustNot };
                (occur, q)
            }
            Filter::Version { op, value } => {
                let v = version_number(value).ok_or_else(|| {
                    Error::invalid(
                        format!("version filter \"{value}\" is not a version"),
                        "use numbers like 1.2 or 1.2.0, e.g. \">=1.2\"",
                    )
                })?;
                let t = |x: u64| Term::from_field_u64(f.version_num, x);
                let q: Box<dyn Query> = match op.as_str() {
                    "=" => Box::new(TermQuery::new(t(v), IndexRecordOption::Basic)),
                    ">=" => Box::new(RangeQuery::new(Bound::Included(t(v)), Bound::Unbounded)),
                    ">" => Box::new(RangeQuery::new(Bound::Excluded(t(v)), Bound::Unbounded)),
                    "<=" => Box::new(RangeQuery::new(Bound::Unbounded, Bound::Included(t(v)))),
                    "<" => Box::new(RangeQuery::new(Bound::Unbounded, Bound::Excluded(t(v)))),
                    other => {
                        return Err(Error::invalid(
                            format!("unknown version operator \"{other}\""),
                            "use =, >=, >, <= or <",
                        ))
                    }
                };
                (Occur::Must, q)
            }
            Filter::Date { from, to } => {
                let t = |x: i64| Term::from_field_i64(f.date, x);
                let lower = from.map(|x| Bound::Included(t(x))).unwrap_or(Bound::Unbounded);
                let upper = to.map(|x| Bound::Included(t(x))).unwrap_or(Bound::Unbounded);
                let q: Box<dyn Query> = if from.is_none() && to.is_none() {
                    Box::new(AllQuery)
                } else {
                    Box::new(RangeQuery::new(lower, upper))
                };
                (Occur::Must, q)
            }
        })
    }
}

fn all_of(mut clauses: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    match clauses.len() {
        0 => Box::new(AllQuery),
        1 => clauses.pop().expect("one clause"),
        _ => Box::new(BooleanQuery::new(clauses.into_iter().map(|q| (Occur::Must, q)).collect())),
    }
}

fn raw_term(field: Field, value: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(Term::from_field_text(field, value), IndexRecordOption::Basic))
}

fn any_raw<'a>(field: Field, values: impl Iterator<Item = &'a str>) -> Box<dyn Query> {
    let clauses: Vec<(Occur, Box<dyn Query>)> = values.map(|v| (Occur::Should, raw_term(field, v))).collect();
    Box::new(BooleanQuery::new(clauses))
}
