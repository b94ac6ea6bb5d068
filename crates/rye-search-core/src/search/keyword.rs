//! Ranking a keyword query: checking its limits, building it (plain questions relaxed, words
//! counted), and ranking it; collecting is `totals`, loading the page `page`.

use std::collections::HashSet;
use std::sync::Arc;

use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query};
use tantivy::schema::{Field, Term};
use tantivy::DocAddress;

use super::totals::collect;
use super::{MAX_FILTER_VALUES, MAX_LIMIT, MAX_OFFSET, MAX_PREVIEW_CHARS, MAX_PROXIMITY, NEARNESS_SLOP};
use crate::collect::Matches;
use crate::collect::TopRanked;
use crate::error::{Error, Result};
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::query::budget::Budget;
use crate::query::build::{positive_tokens, Builder};
use crate::query::probed::ProbedUnionQuery;
use crate::query::{parse, relax};
use crate::schema::{self};
use crate::stem;
use crate::tokenizer::{self};
use crate::wire::{Count, Filter, SearchRequest, SortBy};

/// The ranked matches of one query, before their page is loaded.
pub(super) struct Ranking {
    /// Raw scores (or sort order) and addresses, best first, up to the number wanted.
    pub top: Vec<(f32, DocAddress)>,
    pub total: usize,
    pub best: f32,
    pub query: Box<dyn Query>,
    pub warnings: Vec<String>,
    pub relaxed: bool,
    /// Every match, when the ranking was asked for them ([`Want::matches`]).
    pub matches: Matches,
    /// `total` counts only the matches the ranking visited (the request let the count go).
    pub lower_bound: bool,
}

impl Ranking {
    /// What a query collected, as a ranking.
    fn of(found: crate::collect::Collected, Built { query, warnings }: Built) -> Ranking {
        Ranking {
            top: found.top.iter().map(|r| (r.score, r.address)).collect(),
            total: found.seen as usize,
            best: found.best,
            query,
            warnings,
            relaxed: false,
            lower_bound: !found.pruned.is_empty(),
            matches: found.matches,
        }
    }
}

/// A keyword query, built, with the warnings building it gave.
pub(super) struct Built {
    pub query: Box<dyn Query>,
    pub warnings: Vec<String>,
}

/// Which keyword ranking of a plain question.
pub(super) enum Words {
    /// Only the first try: every word (stop words aside), never relaxed.
    Every,
    /// Words dropped until something matches, going on from the first try when it was made
    /// (with the same [`Want`]).
    Relaxing(Option<Ranking>),
}

/// How much of a keyword ranking to keep.
#[derive(Clone, Copy)]
pub(super) struct Want {
    /// The best this many.
    pub top: usize,
    /// A bit for every match as well.
    pub matches: bool,
}

impl Want {
    pub fn top(top: usize) -> Self {
        Want { top, matches: false }
    }

    pub fn with_matches(self) -> Self {
        Want { matches: true, ..self }
    }
}

impl SearchIndex {
    /// The limits every mode shares: the page, the query's length.
    pub(super) fn check_limits(req: &SearchRequest) -> Result<()> {
        parse::checked_length(&req.query)?;
        if req.limit > MAX_LIMIT {
            return Err(Error::limit(
                format!("limit {} is above the maximum of {MAX_LIMIT}", req.limit),
                "page through results with offset",
            ));
        }
        if req.preview_chars > MAX_PREVIEW_CHARS {
            return Err(Error::limit(
                format!("preview_chars {} is above the maximum of {MAX_PREVIEW_CHARS}", req.preview_chars),
                "ask for a shorter preview, and fetch the item for its whole text",
            ));
        }
        if req.offset > MAX_OFFSET {
            return Err(Error::limit(
                format!("offset {} is above the maximum of {MAX_OFFSET}", req.offset),
                "narrow the query with scope, fields or filters",
            ));
        }
        let values: usize = (req.filters.iter())
            .map(|f| match f {
                Filter::AnyOf { values, .. } | Filter::NoneOf { values, .. } => values.len(),
                _ => 1,
            })
            .sum();
        if values > MAX_FILTER_VALUES {
            return Err(Error::limit(
                format!("the filters hold {values} values; the limit is {MAX_FILTER_VALUES}"),
                "filter on something the items share (a category, a tag), or split the search",
            ));
        }
        Ok(())
    }

    /// Ranks the keyword matches of `req` (its `wanted` best). A plain question: stop words never
    /// have to match; when the other words together find nothing, the one that matches least is
    /// dropped, again, until something is found.
    pub(super) fn rank_keyword(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        want: Want,
    ) -> Result<Ranking> {
        self.rank_words(req, searcher, parts, want, Words::Relaxing(None))
    }

    /// [`Self::rank_keyword`], or only its first try ([`Words`]).
    pub(super) fn rank_words(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        want: Want,
        words: Words,
    ) -> Result<Ranking> {
        let (relax, mut every_word) = match words {
            Words::Every => (false, None),
            Words::Relaxing(first) => (true, first),
        };
        let node = parse(&req.query)?;
        // Proximity asks for every word, near each other: it never relaxes.
        let plain = if req.proximity.is_none() { relax::plain_query_words(&req.query, &node) } else { None };
        let Some(words) = plain else {
            return every_word.map_or_else(|| self.rank_node(req, searcher, parts, node, want), Ok);
        };
        let (mut words, _stop_words) = relax::without_stop_words(words);
        let mut dropped = Vec::new();
        loop {
            let mut ranking = match every_word.take() {
                Some(ranking) => ranking,
                None => self.rank_node(req, searcher, parts, relax::all_of(&words), want)?,
            };
            if ranking.total > 0 || words.len() <= 1 || !relax {
                if !dropped.is_empty() {
                    ranking.relaxed = true;
                    ranking.warnings.push(format!(
                        "no item has every word; found without: {} (put words in quotes or join them with AND to require them)",
                        dropped.join(", ")
                    ));
                }
                return Ok(ranking);
            }
            let rarest =
                (0..words.len()).min_by_key(|&i| self.doc_freq(searcher, &words[i])).expect("two words or more");
            dropped.push(words.remove(rarest));
        }
    }

    /// The ranking cut to the matches that score at least `min_score` of the best (scores are
    /// relative to the best match), the total counting only those. Ranked by score, a page that
    /// already reaches below the bound holds all of them; otherwise the query runs again, keeping
    /// and counting only matches above the bound, so totals and pages stay exact in every sort.
    pub(super) fn at_least(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        mut ranking: Ranking,
        wanted: usize,
    ) -> Result<Ranking> {
        if req.min_score <= 0.0 || ranking.total == 0 {
            return Ok(ranking);
        }
        let bound = min_bound(req.min_score, ranking.best);
        if req.sort_by == SortBy::Score && ranking.top.last().is_some_and(|t| t.0 < bound) {
            ranking.top.retain(|t| t.0 >= bound);
            ranking.total = ranking.top.len();
            ranking.lower_bound = false;
            return Ok(ranking);
        }
        let found = self.collect_best(req, searcher, parts, &*ranking.query, Want::top(wanted), bound)?;
        ranking.top = found.top.iter().map(|r| (r.score, r.address)).collect();
        ranking.total = found.seen as usize;
        ranking.lower_bound = !found.pruned.is_empty();
        Ok(ranking)
    }

    /// The same ranking (its query, relaxation and warnings), `wanted` deep.
    pub(super) fn deepen(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        ranking: &mut Ranking,
        wanted: usize,
    ) -> Result<()> {
        let found = self.collect_best(req, searcher, parts, &*ranking.query, Want::top(wanted), f32::MIN)?;
        ranking.top = found.top.iter().map(|r| (r.score, r.address)).collect();
        ranking.total = found.seen as usize;
        ranking.best = found.best;
        ranking.lower_bound = !found.pruned.is_empty();
        Ok(())
    }

    /// The best matches of `query` in the request's order, and how many match (only those scoring
    /// at least `min_score`, with the request's recency boost).
    fn collect_best(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        query: &dyn Query,
        want: Want,
        min_score: f32,
    ) -> Result<crate::collect::Collected> {
        collect(searcher, query, self.top_ranked(req, parts, want, min_score))
    }

    fn top_ranked(&self, req: &SearchRequest, parts: &[Arc<SegmentParts>], want: Want, min_score: f32) -> TopRanked {
        TopRanked {
            sort: req.sort_by,
            wanted: want.top,
            prune: false, // decided by `collect` once the query's postings are known
            columns: parts.iter().map(|p| p.columns.clone()).collect(),
            min_score,
            recency: req.recency(),
            marks: want.matches,
            exact_total: req.count == Count::Exact,
        }
    }

    /// In how many documents a word's tokens all occur at most (its rarest token, best field,
    /// word forms included).
    pub(super) fn doc_freq(&self, searcher: &tantivy::Searcher, word: &str) -> u64 {
        let tokens: Vec<String> = tokenizer::words(word).into_iter().flat_map(|w| w.parts).collect();
        let count = |field, text: &str| searcher.doc_freq(&Term::from_field_text(field, text)).unwrap_or(0);
        tokens
            .iter()
            .map(|t| {
                let exact = self.fields.text.iter().map(|&f| count(f, t)).max().unwrap_or(0);
                let forms = stem::stem(t).map_or(0, |s| count(self.fields.stem, &s));
                exact.max(forms)
            })
            .min()
            .unwrap_or(0)
    }

    pub(super) fn rank_node(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        node: parse::Node,
        want: Want,
    ) -> Result<Ranking> {
        let built = self.node_query(req, searcher, parts, node)?;
        self.rank_query(req, searcher, parts, built, want)
    }

    /// The ranking of a query from [`Self::node_query`].
    pub(super) fn rank_query(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        built: Built,
        want: Want,
    ) -> Result<Ranking> {
        let found = self.collect_best(req, searcher, parts, &*built.query, want, f32::MIN)?;
        Ok(Ranking::of(found, built))
    }

    /// The query of `node` with the request's fields, nearness or proximity, and restrictions.
    pub(super) fn node_query(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        node: parse::Node,
    ) -> Result<Built> {
        let f = &self.fields;
        let weights = req.weights.as_array();
        let all_fields: Vec<(Field, f32)> =
            (0..5).filter(|&i| weights[i] > 0.0).map(|i| (f.text[i], weights[i])).collect();

        let field_nodes = req
            .fields
            .iter()
            .map(|(name, text)| parse(text).map(|n| (name, text, n)).map_err(|e| in_field(name, e)))
            .collect::<Result<Vec<_>>>()?;
        let typos = req.fuzzy > 0 || req.typos_by_length;
        let budget = Budget::for_query(std::iter::once(&node).chain(field_nodes.iter().map(|f| &f.2)), typos)?;
        let segments = || parts.iter().map(|p| (&p.all_terms, &p.dictionaries));
        let mut builder = Builder::new(searcher, segments(), &req.query, req.fuzzy.min(2) as u8, &budget)
            .with_stems(f.stem, stem::STEM_WEIGHT);
        if req.typos_by_length {
            builder = builder.with_typos_by_length().sharing_typo_walks(req.typo_walks.as_deref());
        }
        // The nearness of its words (below) looks them up again.
        let near_words = match req.proximity {
            Some(_) => None,
            None => plain_words(&node),
        };
        if req.proximity.is_some() || near_words.is_some() {
            builder = builder.remembering();
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        // `*` with `fields`: the field queries select and rank; matching everything adds only a
        // constant to every score (and would hide a lone field term from block-max WAND).
        if !matches!(node, parse::Node::All) || req.fields.is_empty() {
            clauses.push((Occur::Must, builder.build(&node, &all_fields)?));
        }
        let mut warnings = std::mem::take(&mut builder.warnings);
        if req.fuzzy > 2 {
            warnings.push(format!("fuzzy distance {} was clamped to 2", req.fuzzy));
        }
        if let Some(slop) = req.proximity {
            if slop > MAX_PROXIMITY {
                warnings.push(format!("proximity.max_distance {slop} was clamped to {MAX_PROXIMITY}"));
            }
            let slop = slop.min(MAX_PROXIMITY) as u32;
            let mut tokens = Vec::new();
            positive_tokens(&node, &mut tokens);
            if distinct(&tokens) >= 2 {
                clauses.push((Occur::Must, ProbedUnionQuery::of(builder.near(&tokens, &all_fields, slop))));
            }
        } else if let Some(tokens) = near_words {
            // Several plain words: documents that hold them close together, in one field, rank
            // above those that scatter them (known-item MRR@10 on the Debian set: 0.936 → 0.945).
            // Scored beside the words' matches: probed at each, never walked.
            clauses.push((Occur::Should, ProbedUnionQuery::of(builder.near(&tokens, &all_fields, NEARNESS_SLOP))));
        }
        for (name, text, sub) in &field_nodes {
            let Some((i, field)) = f.text_field(name) else {
                return Err(Error::invalid(
                    format!("unknown field \"{name}\" in fields"),
                    format!("use one of {}", schema::TEXT_FIELDS.join(", ")),
                ));
            };
            let mut fb = Builder::new(searcher, segments(), text, req.fuzzy.min(2) as u8, &budget);
            clauses.push((Occur::Must, fb.build(sub, &[(field, weights[i].max(0.1))]).map_err(|e| in_field(name, e))?));
            warnings.append(&mut fb.warnings);
        }
        for (occur, q) in self.restrictions(searcher, req)? {
            let q: Box<dyn Query> = if occur == Occur::Must { Box::new(ConstScoreQuery::new(q, 0.0)) } else { q };
            clauses.push((occur, q));
        }
        // A lone clause runs as itself: wrapping it would hide a plain union from block-max WAND.
        let query: Box<dyn Query> = if clauses.len() == 1 {
            clauses.pop().expect("one clause").1
        } else {
            Box::new(BooleanQuery::new(clauses))
        };
        Ok(Built { query, warnings })
    }
}

/// The words of a query made only of plain terms joined by AND (at least two words).
fn plain_words(node: &parse::Node) -> Option<Vec<String>> {
    let parse::Node::And(children) = node else { return None };
    if !children.iter().all(|c| matches!(c, parse::Node::Term(_))) {
        return None;
    }
    let mut tokens = Vec::new();
    positive_tokens(node, &mut tokens);
    (distinct(&tokens) >= 2).then_some(tokens)
}

fn distinct(tokens: &[String]) -> usize {
    tokens.iter().collect::<HashSet<_>>().len()
}

fn in_field(name: &str, e: Error) -> Error {
    match e {
        Error::QuerySyntax { message, position, hint } => {
            Error::QuerySyntax { message: format!("in fields.{name}: {message}"), position, hint }
        }
        other => other,
    }
}

/// The raw score a hit needs to show at least `min_score` (scores are relative to the best and
/// rounded to 4 decimals when shown: the bound is compared the same way).
pub(super) fn min_bound(min_score: f64, best: f32) -> f32 {
    (min_score as f32 - 0.00005).max(0.0) * best
}

pub(super) fn normalise(raw: f32, best: f32) -> f64 {
    (ratio(raw, best) as f64 * 10_000.0).round() / 10_000.0
}

/// `raw` over `best`, 0 to 1 (1 when there is no best to compare with).
pub(super) fn ratio(raw: f32, best: f32) -> f32 {
    match best > 0.0 {
        true => (raw / best).clamp(0.0, 1.0),
        false => 1.0,
    }
}
