//! An empty answer whose words are in items the request's filters, scope or space left out says
//! so, and which of them did: it was answered with typo rescue and "did you mean" suggestions for
//! words that were fine (`{"type": "tool"}`, `{"signed": true}` over unsigned items). An empty
//! search by meaning whose words items hold says that meaning, not a filter, left them out.

use std::time::{Duration, Instant};

use tantivy::Searcher;

use crate::error::{echo, Result};
use crate::exact::meta_facet;
use crate::index::SearchIndex;
use crate::schema::TEXT_FIELDS;
use crate::wire::{Count, Filter, Mode, SearchRequest, SearchResponse};

/// Filters tried one at a time to find which leaves every match out (each costs a search).
const FILTERS_TRIED: usize = 8;
/// Values of one filter a warning names.
const VALUES_SHOWN: usize = 3;
/// A query whose words took longer than this to count is not searched again per restriction.
const DIAGNOSIS_BUDGET: Duration = Duration::from_millis(20);

/// Filter keys every item has (the facade writes them); a metadata key is known only if some item holds it.
const ITEM_KEYS: &str = "type (the kind), source, signed, integrity, category, tags, version";

impl SearchIndex {
    /// Why `res`, an empty answer, is empty when its words alone find items, or `None`.
    pub(super) fn left_out(&self, req: &SearchRequest, res: &SearchResponse) -> Result<Option<String>> {
        let restricted = !req.filters.is_empty() || !req.scopes.is_empty() || !req.spaces.is_empty();
        // A search by meaning alone finds nothing when no item is close enough, whatever the words.
        let by_meaning = req.mode == Mode::Semantic;
        if res.total > 0 || !(restricted || by_meaning) || req.like.is_some() {
            return Ok(None);
        }
        let count = |filters: Vec<Filter>, scoped: bool| -> Result<usize> {
            let probe = SearchRequest {
                filters,
                scopes: if scoped { req.scopes.clone() } else { Vec::new() },
                spaces: if scoped { req.spaces.clone() } else { Vec::new() },
                limit: 0,
                offset: 0,
                mode: Mode::Keyword,
                facets: false,
                explain: false,
                count: Count::Exact,
                ..req.clone()
            };
            Ok(self.search_as_written(&probe)?.total)
        };
        let started = Instant::now();
        let words = count(Vec::new(), false)?;
        if words == 0 {
            return Ok(None);
        }
        let hold = |n: usize| if n == 1 { "1 item holds".to_string() } else { format!("{n} items hold") };
        let items = hold(words);
        // Items that hold the words and pass every restriction: the meaning, not a filter, left them out.
        let kept = match (by_meaning, restricted) {
            (false, _) => 0,
            (true, false) => words,
            (true, true) => count(req.filters.clone(), true)?,
        };
        if kept > 0 {
            let them = if kept == 1 { "it" } else { "them" };
            return Ok(Some(format!(
                "{} these words, but none is close enough in meaning to the query: mode keyword finds {them}",
                hold(kept)
            )));
        }
        if !restricted {
            return Ok(None);
        }
        // Which restriction left them out takes a search each: not for a costly query.
        if started.elapsed() > DIAGNOSIS_BUDGET {
            return Ok(Some(format!("{items} these words, but none passes the filters, scope and space asked for")));
        }
        let searcher = self.reader.searcher();
        let mut culprits = Vec::new();
        // A facade names every space it searches: whether they left anything out is counted.
        let in_scope = match req.scopes.is_empty() && req.spaces.is_empty() {
            true => words,
            false => count(Vec::new(), true)?,
        };
        if in_scope == 0 {
            culprits.push("the scope or space asked for".to_string());
        }
        for filter in req.filters.iter().take(FILTERS_TRIED) {
            if count(vec![filter.clone()], false)? == 0 {
                culprits.push(self.described(&searcher, filter)?);
            }
        }
        let which = match (culprits.is_empty(), in_scope == words) {
            (false, _) => culprits.join("; "),
            (true, true) => "the filters together".to_string(),
            (true, false) => "the filters, scope and space together".to_string(),
        };
        Ok(Some(format!("{items} these words, but none passes {which}")))
    }

    /// A filter as a reader would write it, and whether any item has its key at all.
    fn described(&self, searcher: &Searcher, filter: &Filter) -> Result<String> {
        Ok(match filter {
            Filter::AnyOf { key, values } | Filter::NoneOf { key, values } => {
                let op = if matches!(filter, Filter::AnyOf { .. }) { "=" } else { "!=" };
                // Echoed cut short: a filter may hold a thousand values, each up to 64 KB.
                let mut shown: Vec<String> = values.iter().take(VALUES_SHOWN).map(|v| echo(v).into_owned()).collect();
                if values.len() > VALUES_SHOWN {
                    shown.push(format!("{} more", values.len() - VALUES_SHOWN));
                }
                let text = format!("the filter {} {op} {}", echo(key), shown.join(" or "));
                let words = match TEXT_FIELDS.contains(&key.as_str()) {
                    true => format!("; for words of an item's {key}, ask fields {{\"{key}\": …}}"),
                    false => String::new(),
                };
                match self.has_filter_key(searcher, key)? {
                    true => text,
                    false => format!(
                        "{text} (no item has a \"{}\" key: filters take {ITEM_KEYS}, dates and \
                         the metadata keys items have{words})",
                        echo(key)
                    ),
                }
            }
            Filter::Version { op, value } => format!("the filter version {op} {}", echo(value)),
            Filter::Date { .. } => "the date range".to_string(),
        })
    }

    /// Whether any item holds a value under `key` (a term `key=…` in the facets).
    fn has_filter_key(&self, searcher: &Searcher, key: &str) -> Result<bool> {
        let prefix = meta_facet(key, "");
        // Every `key=…` term sorts from `key=` up to, not including, `key>`.
        let mut upper = prefix.clone().into_bytes();
        if let Some(last) = upper.last_mut() {
            *last += 1;
        }
        for segment in searcher.segment_readers() {
            let terms = segment.inverted_index(self.fields.meta)?;
            let mut stream = terms.terms().range().ge(prefix.as_bytes()).lt(&upper).into_stream()?;
            if stream.advance() {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
