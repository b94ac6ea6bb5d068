//! Running a keyword query: building it, collecting the top ranked hits with exact totals, loading
//! the page.

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::Arc;

use tantivy::collector::Collector;
use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, ConstScoreQuery, EnableScoring, Occur, Query};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::DocAddress;

use crate::collect::TopRanked;
use crate::collect::{Matches, Ranker};
use crate::error::{Error, Result};
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::query::budget::Budget;
use crate::query::build::{is_term_leaf, positive_tokens, Builder};
use crate::query::max_score;
use crate::query::probed::ProbedUnionQuery;
use crate::query::{parse, relax};
use crate::schema::{self};
use crate::search::*;
use crate::stem;
use crate::tokenizer::{self};
use crate::wire::{Filter, SearchRequest, SortBy};

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
            return Ok(ranking);
        }
        let found = self.collect_best(req, searcher, parts, &*ranking.query, Want::top(wanted), bound)?;
        ranking.top = found.top.iter().map(|r| (r.score, r.address)).collect();
        ranking.total = found.seen as usize;
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
        let budget = Budget::for_query(std::iter::once(&node).chain(field_nodes.iter().map(|f| &f.2)), req.fuzzy > 0)?;
        let segments = || parts.iter().map(|p| (&p.all_terms, &p.dictionaries));
        let mut builder = Builder::new(searcher, segments(), &req.query, req.fuzzy.min(2) as u8, &budget)
            .with_stems(f.stem, stem::STEM_WEIGHT);
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
            let mut tokens = Vec::new();
            positive_tokens(&node, &mut tokens);
            if distinct(&tokens) >= 2 {
                clauses.push((Occur::Must, ProbedUnionQuery::of(builder.near(&tokens, &all_fields, slop))));
            }
        } else if let Some(tokens) = plain_words(&node) {
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

/// Runs the collector; segments where it skipped documents are counted again, unscored.
fn collect(
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
    let ranker = match max_score::clauses(query, &tally).transpose()? {
        Some(found) => Ranker::MaxScore(clauses.insert(found)),
        None => Ranker::Weight(&**weight.insert(query.weight(scoring)?)),
    };
    let postings = tally.postings.get();
    // Counting only the matches above a minimum score visits every match anyway; a recency
    // boost raises scores past the blocks' maxima that skipping relies on.
    collector.prune = collector.min_score == f32::MIN
        && collector.recency.is_none()
        && is_term_union(query)
        && (postings < 2 * collector.wanted as u64 || postings >= PRUNE_MIN_POSTINGS);
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
    let mut found = collector.merge_fruits(fruits)?;
    if !found.pruned.is_empty() {
        let mut terms = Vec::new();
        query.query_terms(&mut |term, _| terms.push(term.clone()));
        for &(ord, visited) in &found.pruned {
            let (count, bits) = count_any(&terms, &segments[ord as usize])?;
            found.seen = found.seen - visited + count;
            if marks {
                found.matches.set_segment(ord, bits);
            }
        }
    }
    Ok(found)
}

/// How many live documents of `segment` hold any of `terms`, and the bits of all that do: each
/// term's posting blocks set one bit per document, then the bits are counted. The union scorer it replaces advanced every term
/// document by document, a sixth of a common-term search (only a union of term queries is
/// ever pruned, so counting what the query matches is counting what its terms match).
fn count_any(terms: &[Term], segment: &tantivy::SegmentReader) -> Result<(u64, Vec<u64>)> {
    let mut bits = vec![0u64; (segment.max_doc() as usize).div_ceil(64)];
    for term in terms {
        let index = segment.inverted_index(term.field())?;
        let Some(info) = index.get_term_info(term)? else { continue };
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
    let s = if best > 0.0 { (raw / best).clamp(0.0, 1.0) as f64 } else { 1.0 };
    (s * 10_000.0).round() / 10_000.0
}
