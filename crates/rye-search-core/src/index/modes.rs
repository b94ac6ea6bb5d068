//! What a search runs: keyword ranking, semantic ranking (cosine over the item vectors of the
//! items the filters let through), or both fused by reciprocal rank (hybrid).

use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use tantivy::fastfield::AliveBitSet;
use tantivy::query::Weight;
use tantivy::COLLECT_BLOCK_BUFFER_LEN;
use tantivy::{DocAddress, DocId};

use super::facets::MatchSet;
use super::fusion::{best_first, Fused, KeywordWeight, FUSION_DEPTH, SEMANTIC_WINDOW};
use super::search::{min_bound, normalise, Built, Ranking, Want, Words};
use super::*;
use crate::collect::{Matches, SortColumns};
use crate::recency::{Recency, RECENCY_WEIGHT};
use crate::semantic::{self, quantized, SegmentVectors};
use crate::wire::{Matched, Mode, SearchResponse, Weights};

/// Weight of keyword hits the words name — every word in the item's title, name, description,
/// category or tags — against 1 for the semantic list: high enough that they keep their keyword
/// order (meaning only breaks their ties and adds items after them). Known-item MRR@10 on the
/// Debian bench (200 synopsis queries): weight 1 → 0.906, 4 → 0.931, 100 → 0.9485, the keyword
/// figure.
pub(super) const KEYWORD_WEIGHT: f32 = 100.0;
/// Weak keyword evidence: a relaxed list (no item had every word), or an item that holds every
/// word only in its body. Meaning then leads; the words break its ties and add items after it.
/// MRR@10 of `auto` with this weight 0.2 → 0.05 (`bench/nl-quality.js`, and 14 RYE questions
/// written after the choice was measured on the others): RYE questions 0.564 → 0.627, held-out
/// 0.662 → 0.719, Debian 0.169 → 0.164, known items 0.943 both; body-only hits weighed 100, as
/// named ones, gave 0.503, 0.637, 0.145 (the semantic ranking alone: 0.676, 0.743, 0.136).
const WEAK_KEYWORD_WEIGHT: f32 = 0.05;
/// Cosine similarity from which an item counts as found by meaning.
pub const SEMANTIC_MIN: f32 = 0.3;

impl SearchIndex {
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        Self::check_limits(req)?;
        let searcher = self.reader.searcher();
        let parts = self.segment_parts(&searcher)?;
        if let Some(like) = &req.like {
            return self.like(req, &searcher, &parts, like);
        }
        let mut warnings = Vec::new();
        let model = semantic::model();
        let mode = match req.mode {
            Mode::Keyword => Mode::Keyword,
            Mode::Auto if !is_question(req) => Mode::Keyword,
            _ if model.is_none() => {
                warnings.push(
                    "semantic search is off: no embedding model is loaded, so this ran as a keyword search".into(),
                );
                Mode::Keyword
            }
            Mode::Auto => Mode::Hybrid,
            explicit => explicit,
        };
        if mode != Mode::Keyword && req.sort_by != SortBy::Score {
            warnings.push(format!("sort_by is ignored in {} mode: results are ranked by relevance", mode.as_str()));
        }
        // `auto` ranks a question's every-word query before anything is embedded or scanned: when
        // enough items hold every word, the answer is theirs alone (embedding the query and
        // starting the scan beside it cost a settled two-word question at c1m a quarter).
        let every_word = match mode == Mode::Hybrid && req.mode == Mode::Auto {
            true => self.every_word(req, &searcher, &parts)?,
            false => None,
        };
        let every_word = match every_word {
            Some(EveryWord::Settles(ranking)) => {
                let mut res = self.keyword_answer(req, &searcher, &parts, ranking)?;
                res.warnings.splice(0..0, warnings);
                return Ok(res);
            }
            few => few,
        };
        // Only a search that ranks by meaning embeds its query.
        let query_vector = if mode == Mode::Keyword { None } else { model.as_ref().and_then(|m| m.embed(&req.query)) };
        let mut res = match (mode, query_vector) {
            (Mode::Keyword, _) => self.keyword(req, &searcher, &parts)?,
            (_, None) => {
                warnings.push("no word of the query is known to the embedding model: keyword results only".into());
                self.keyword(req, &searcher, &parts)?
            }
            (Mode::Semantic, Some(v)) => self.semantic(req, &searcher, &parts, &v)?,
            (_, Some(v)) => self.hybrid(req, &searcher, &parts, &v, every_word)?,
        };
        res.warnings.splice(0..0, warnings);
        Ok(res)
    }

    fn keyword(&self, req: &SearchRequest, searcher: &Searcher, parts: &[Arc<SegmentParts>]) -> Result<SearchResponse> {
        let ranking = self.rank_keyword(req, searcher, parts, Want::top(req.offset + req.limit))?;
        self.keyword_answer(req, searcher, parts, ranking)
    }

    /// The answer to a keyword search from its ranking (`offset + limit` deep).
    fn keyword_answer(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        ranking: Ranking,
    ) -> Result<SearchResponse> {
        let ranking = self.at_least(req, searcher, parts, ranking, req.offset + req.limit)?;
        let page: Vec<_> = ranking
            .top
            .iter()
            .skip(req.offset)
            .map(|&(raw, address)| (normalise(raw, ranking.best), address, Matched::Keyword))
            .collect();
        let hits = self.load_page(req, searcher, parts, Some(&*ranking.query), &page)?;
        let counts = match req.facets {
            true => {
                let bound = (req.min_score > 0.0).then(|| min_bound(req.min_score, ranking.best));
                Some(self.counts(searcher, &self.match_sets(req, searcher, parts, &*ranking.query, bound)?)?)
            }
            false => None,
        };
        Ok(SearchResponse {
            total: ranking.total,
            hits,
            warnings: ranking.warnings,
            relaxed: ranking.relaxed,
            search_type: "keyword",
            counts,
        })
    }

    fn semantic(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        vector: &[f32],
    ) -> Result<SearchResponse> {
        let mut sets = self.empty_sets(req, searcher);
        let SemanticRanking { mut top, mut total, .. } = self.rank_semantic(
            req,
            searcher,
            parts,
            vector,
            req.offset + req.limit,
            Scan::marking(sets.as_deref_mut()),
        )?;
        let best = top.first().map_or(1.0, |t| t.0);
        if above_min_score(req, &mut top, |t| t.0, best, &mut total) {
            sets = sets.map(|_| only(searcher, top.iter().map(|t| t.1)));
        }
        let page: Vec<_> =
            top.iter().skip(req.offset).map(|&(sim, a)| (normalise(sim, best), a, Matched::Semantic)).collect();
        let hits = self.load_page(req, searcher, parts, None, &page)?;
        let counts = sets.map(|sets| self.counts(searcher, &sets)).transpose()?;
        Ok(SearchResponse { total, hits, warnings: Vec::new(), relaxed: false, search_type: "semantic", counts })
    }

    /// Keyword and semantic lists fused; in `auto`, starting from the every-word query whose
    /// matches were too few to settle the answer.
    fn hybrid(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        vector: &[f32],
        every_word: Option<EveryWord>,
    ) -> Result<SearchResponse> {
        // Neither list needs the other: the keyword list is ranked on this thread while the pool
        // starts the scan.
        let mut keyword = None;
        let rank_keyword = || {
            let ranking = match (req.mode, every_word) {
                (Mode::Auto, Some(few)) => {
                    let every_word = match few {
                        EveryWord::FewPastThePage(built) => {
                            self.rank_query(req, searcher, parts, built, fusion_want(req))?
                        }
                        EveryWord::Few(ranking) | EveryWord::Settles(ranking) => ranking,
                    };
                    self.rank_words(req, searcher, parts, fusion_want(req), Words::Relaxing(Some(every_word)))?
                }
                _ => self.rank_keyword(req, searcher, parts, fusion_want(req))?,
            };
            // Which hits the words name matters only when every word found some.
            let named = match ranking.total > 0 && !ranking.relaxed && is_question(req) {
                true => Some(self.named_by_words(req, searcher, parts)?),
                false => None,
            };
            Ok((ranking, named))
        };
        let scan =
            Scan { shortlist: true, alongside: Some(Box::new(|| keyword = Some(rank_keyword()))), ..Scan::default() };
        let semantic = self.rank_semantic(req, searcher, parts, vector, SEMANTIC_WINDOW, scan);
        let keyword: Result<(Ranking, Option<Matches>)> = keyword.expect("ranked alongside the scan");
        let (keyword, named) = keyword?;
        let keyword_weight = match keyword.relaxed {
            true => KeywordWeight::uniform(WEAK_KEYWORD_WEIGHT),
            false => KeywordWeight { named: KEYWORD_WEIGHT, other: WEAK_KEYWORD_WEIGHT, naming: named.as_ref() },
        };
        let semantic = semantic?.top;
        let Fused { mut ranked, mut total, keyword } =
            self.fuse(req, searcher, parts, keyword, keyword_weight, &semantic)?;
        let best = ranked.first().map_or(1.0, |r| r.0);
        let mut sets = req.facets.then(|| found_either_way(searcher, &keyword, &semantic));
        if req.min_score > 0.0 {
            above_min_score(req, &mut ranked, |r| r.0, best, &mut total);
            // The fused list is exact down to the bound: what is left is every item above it.
            total = ranked.len();
            sets = sets.map(|_| only(searcher, ranked.iter().map(|r| r.1)));
        }
        let page: Vec<_> =
            ranked.iter().skip(req.offset).take(req.limit).map(|&(s, a, m)| (normalise(s, best), a, m)).collect();
        let hits = self.load_page(req, searcher, parts, Some(&*keyword.query), &page)?;
        let counts = sets.map(|sets| self.counts(searcher, &sets)).transpose()?;
        let Ranking { warnings, relaxed, .. } = keyword;
        Ok(SearchResponse { total, hits, warnings, relaxed, search_type: "hybrid", counts })
    }

    /// A plain question's every-word query (stop words aside), which `auto` starts from, ranked
    /// for the page as a keyword search would rank it (`None` when the request is no plain
    /// question).
    fn every_word(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
    ) -> Result<Option<EveryWord>> {
        let node = parse(&req.query)?;
        let Some(words) = relax::plain_query_words(&req.query, &node) else { return Ok(None) };
        let (words, _stop_words) = relax::without_stop_words(words);
        let built = self.node_query(req, searcher, parts, relax::all_of(&words))?;
        let mut ranking = self.rank_query(req, searcher, parts, built, Want::top(req.offset + req.limit))?;
        Ok(Some(match ranking.total {
            total if total >= WORDS_SETTLE => EveryWord::Settles(ranking),
            // A page holding every match is the ranking fusion wants, once they are marked.
            total if total <= ranking.top.len() => {
                ranking.matches = Matches::of(ranking.top.iter().map(|t| t.1));
                EveryWord::Few(ranking)
            }
            _ => EveryWord::FewPastThePage(Built { query: ranking.query, warnings: ranking.warnings }),
        }))
    }

    /// The items a plain question's words name: every word (stop words aside) in the item's title,
    /// name, description, category or tags, or their stems, not only in its body.
    fn named_by_words(&self, req: &SearchRequest, searcher: &Searcher, parts: &[Arc<SegmentParts>]) -> Result<Matches> {
        let short_fields = SearchRequest { weights: Weights { content: 0.0, ..req.weights }, ..req.clone() };
        Ok(self.rank_words(&short_fields, searcher, parts, Want::top(0).with_matches(), Words::Every)?.matches)
    }

    /// Empty match sets to fill, when the request counts facets.
    fn empty_sets(&self, req: &SearchRequest, searcher: &Searcher) -> Option<Vec<MatchSet>> {
        req.facets.then(|| searcher.segment_readers().iter().map(|r| MatchSet::new(r.max_doc())).collect())
    }

    /// The `wanted` items most similar to `vector` among those the request's restrictions let
    /// through, with how many reach [`SEMANTIC_MIN`]. Exact, every candidate compared, unless
    /// the scan shortlists ([`Scan::shortlist`]).
    pub(super) fn rank_semantic(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        vector: &[f32],
        wanted: usize,
        scan: Scan,
    ) -> Result<SemanticRanking> {
        let Scan { mut matched, narrow, alongside, shortlist } = scan;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(AllQuery))];
        clauses.extend(self.restrictions(searcher, req)?);
        clauses.extend(narrow.map(|q| (Occur::Must, q.box_clone())));
        let filter = BooleanQuery::new(clauses);
        let weight = filter.weight(EnableScoring::disabled_from_searcher(searcher))?;
        let (query, query_scale) = quantized(vector);
        let recency = req.recency();
        let floor = SharedFloor::default();
        let readers = searcher.segment_readers();
        let vectors: Vec<Arc<SegmentVectors>> =
            readers.iter().enumerate().map(|(ord, r)| parts[ord].vectors(r, vector.len())).collect::<Result<_>>()?;
        let marking = matched.is_some();
        // A recency boost can lift an item the codes left out above one they kept.
        let shortlist_by = (shortlist && !marking && recency.is_none()).then_some(vector);
        let stretch = |ord: usize| Stretch {
            shortlist_by,
            vectors: &vectors[ord],
            query: &query,
            query_scale,
            alive: readers[ord].alive_bitset(),
            recency,
            columns: &parts[ord].columns,
            ord: ord as u32,
            wanted,
            marking,
            floor: &floor,
        };
        // Every segment in stretches of doc ids, each with its own pass of the filter, shared by
        // all cores; the answers are merged in order.
        let stretches: Vec<(usize, Range<DocId>)> = (readers.iter().enumerate())
            .flat_map(|(ord, r)| {
                let max_doc = r.max_doc();
                (0..max_doc)
                    .step_by(SCAN_STRETCH)
                    .map(move |start| (ord, start..max_doc.min(start + SCAN_STRETCH as u32)))
            })
            .collect();
        let first = || {
            if let Some(alongside) = alongside {
                alongside()
            }
        };
        let found = share::with_pool(stretches.len(), first, |i| {
            let (ord, range) = &stretches[i];
            Result::Ok(stretch(*ord).scan(&candidates(&*weight, &readers[*ord], range.clone())?))
        });
        let mut top: Vec<(f32, DocAddress)> = Vec::new();
        let mut total = 0usize;
        for ((ord, _), f) in stretches.iter().zip(found) {
            let f = f?;
            total += f.total;
            top.extend(f.top);
            if let Some(set) = matched.as_deref_mut().and_then(|sets| sets.get_mut(*ord)) {
                f.matched.into_iter().for_each(|doc| set.insert(doc));
            }
            if top.len() > 4 * wanted.max(64) {
                keep_best(&mut top, wanted);
            }
        }
        keep_best(&mut top, wanted);
        top.sort_by(|a, b| best_first(*a, *b));
        Ok(SemanticRanking { top, total })
    }
}

/// The docs of `range` that `filter` matches, in order (read 64 at a time: one dynamic call a
/// block, not one a doc).
fn candidates(filter: &dyn Weight, reader: &SegmentReader, range: Range<DocId>) -> Result<Vec<DocId>> {
    let mut scorer = filter.scorer(reader, 1.0)?;
    if scorer.doc() < range.start {
        scorer.seek(range.start);
    }
    let mut docs = Vec::with_capacity(range.len());
    let mut block = [0; COLLECT_BLOCK_BUFFER_LEN];
    loop {
        let n = scorer.fill_buffer(&mut block);
        let inside = block[..n].partition_point(|&d| d < range.end);
        docs.extend_from_slice(&block[..inside]);
        if inside < COLLECT_BLOCK_BUFFER_LEN {
            return Ok(docs);
        }
    }
}

/// What a plain question's every-word query tells `auto` (its total is exact: `collect` counts
/// every match).
pub(super) enum EveryWord {
    /// At least [`WORDS_SETTLE`] items hold every word: the answer is theirs; the page's ranking.
    Settles(Ranking),
    /// Fewer, all on the page: ranked and marked, as fusion wants them beside the items' meaning.
    Few(Ranking),
    /// Fewer, some past the page (a short page, or a later one): the query, for fusion to rank.
    FewPastThePage(Built),
}

/// What a semantic ranking found.
pub(super) struct SemanticRanking {
    /// The best items asked for, best first.
    pub top: Vec<(f32, DocAddress)>,
    /// Items similar enough to count ([`SEMANTIC_MIN`]).
    pub total: usize,
}

/// What a semantic scan does besides ranking.
#[derive(Default)]
pub(super) struct Scan<'a> {
    /// Marks the items similar enough to count (for facets).
    pub matched: Option<&'a mut [MatchSet]>,
    /// Only items this query matches.
    pub narrow: Option<&'a dyn Query>,
    /// Runs on the calling thread while the pool's threads start on the scan.
    pub alongside: Option<Box<dyn FnOnce() + 'a>>,
    /// Long stretches compare only the candidates their sign codes shortlist ([`semantic::SignCodes`]):
    /// the best `wanted` are then approximate and the total counts only the shortlisted. Not
    /// when marking facets or boosting recent items.
    pub shortlist: bool,
}

impl<'a> Scan<'a> {
    fn marking(matched: Option<&'a mut [MatchSet]>) -> Self {
        Scan { matched, ..Scan::default() }
    }
}

/// Candidates one thread of a semantic scan takes at a time (2 MB of 256-dimension vectors):
/// a scan of a few thousand items stays on its thread, a long one is shared by all cores.
const SCAN_STRETCH: usize = 8192;

/// A shortlisting stretch keeps the larger of this many candidates per item wanted and this
/// share of its candidates (a stretch less than twice that long is compared whole). Against the
/// exact scan, 240 plain-language questions over the 63,666 Debian items: 99.8% of the best 10
/// and 98.5% of a hybrid window's 60 are the same, the best item always (a share of 1/12: 99.6%,
/// 97.3%); `auto` MRR@10 unchanged on every `bench/nl-quality.js` set. Codes and shortlisted
/// vectors are a quarter of the bytes of every vector: questions in `auto` at c60k p50 0.71–0.92 →
/// 0.60 ms, at c1m 3.7–4.1 → 2.6 ms (the scan is bound by memory, and a shortlist is read out of
/// order).
const SHORTLIST_PER_WANTED: usize = 8;
const SHORTLIST_SHARE: usize = 8;

/// One segment's semantic scan, for any stretch of its candidates.
struct Stretch<'a> {
    vectors: &'a SegmentVectors,
    /// The query's vector, when the scan shortlists by sign codes (built on the segment's first
    /// stretch long enough to shortlist).
    shortlist_by: Option<&'a [f32]>,
    query: &'a [i8],
    query_scale: f32,
    alive: Option<&'a AliveBitSet>,
    recency: Option<Recency>,
    columns: &'a SortColumns,
    ord: u32,
    wanted: usize,
    /// Facets are counted: every item similar enough is reported.
    marking: bool,
    /// Shared by the stretches of one ranking.
    floor: &'a SharedFloor,
}

/// What a stretch of candidates gave.
struct Found {
    /// Items similar enough to count.
    total: usize,
    /// The best `wanted` of them (in no order).
    top: Vec<(f32, DocAddress)>,
    /// Every one of them, when marking.
    matched: Vec<DocId>,
}

impl Stretch<'_> {
    fn scan(&self, docs: &[DocId]) -> Found {
        let shortlisted;
        let keep = (SHORTLIST_PER_WANTED * self.wanted).max(docs.len() / SHORTLIST_SHARE);
        let docs = match self.shortlist_by {
            Some(vector) if docs.len() >= 2 * keep => {
                let codes = self.vectors.codes();
                shortlisted = codes.shortlist(docs, &codes.query(vector), keep);
                &shortlisted[..]
            }
            _ => docs,
        };
        let mut found = Found { total: 0, top: Vec::new(), matched: Vec::new() };
        // The most recency multiplies a similarity by: a bound on the score an item can reach.
        let most_boost = if self.recency.is_some() { 1.0 + RECENCY_WEIGHT } else { 1.0 };
        // Score a candidate needs to enter the best `wanted` kept so far (docs come in address
        // order, so one that only ties the last kept ranks after it).
        let mut floor = f32::MIN;
        // Without deletes or facets to mark, a block's count is one branch-free pass, and the
        // loop below only looks at the few items that could enter the best `wanted`.
        let plain = self.alive.is_none() && !self.marking;
        // One call for the whole stretch: the kernel prepares the query once.
        let mut all_sims = Vec::with_capacity(docs.len());
        self.vectors.similarities(docs, self.query, self.query_scale, &mut all_sims);
        for (block, sims) in docs.chunks(64).zip(all_sims.chunks(64)) {
            // What other stretches proved: an item of another stretch may rank after one of this
            // stretch that ties it, so only a lower score is out.
            let proved = self.floor.get();
            if plain {
                let (count, best) = block_stats(sims);
                found.total += count;
                if best < SEMANTIC_MIN || best * most_boost <= floor || best * most_boost < proved {
                    continue;
                }
            }
            for (&doc, &sim) in block.iter().zip(sims) {
                let may_enter = sim * most_boost > floor && sim * most_boost >= proved;
                if plain && !may_enter || sim < SEMANTIC_MIN || self.alive.is_some_and(|a| !a.is_alive(doc)) {
                    continue;
                }
                if !plain {
                    found.total += 1;
                    if self.marking {
                        found.matched.push(doc);
                    }
                }
                let score = sim * self.recency.map_or(1.0, |r| r.factor(self.columns.date(doc)));
                if may_enter && score > floor && score >= proved {
                    found.top.push((score, DocAddress::new(self.ord, doc)));
                }
            }
            // Keep the buffer short, so the floor rises early: cut back to the best `wanted`.
            if found.top.len() > 2 * self.wanted.max(8) {
                floor = keep_best(&mut found.top, self.wanted);
                self.floor.raise(floor);
            }
        }
        found
    }
}

/// How many of a block's similarities reach [`SEMANTIC_MIN`], and the highest: lane by lane,
/// so the compiler keeps it in vector registers.
fn block_stats(sims: &[f32]) -> (usize, f32) {
    const LANES: usize = 16;
    let mut counts = [0u32; LANES];
    let mut best = [f32::MIN; LANES];
    let mut lanes = sims.chunks_exact(LANES);
    for chunk in &mut lanes {
        for i in 0..LANES {
            counts[i] += (chunk[i] >= SEMANTIC_MIN) as u32;
            best[i] = if chunk[i] > best[i] { chunk[i] } else { best[i] };
        }
    }
    let rest = lanes.remainder();
    let count = counts.iter().sum::<u32>() as usize + rest.iter().filter(|&&s| s >= SEMANTIC_MIN).count();
    let best = best.iter().chain(rest).fold(f32::MIN, |m, &s| if s > m { s } else { m });
    (count, best)
}

/// The lowest score that can still enter a scan's best `wanted`, as proved by any of its
/// stretches so far (stretches run on several threads). Scores are positive, so their bits order
/// as they do.
#[derive(Default)]
struct SharedFloor(AtomicU32);

impl SharedFloor {
    fn get(&self) -> f32 {
        f32::from_bits(self.0.load(Ordering::Relaxed))
    }

    fn raise(&self, floor: f32) {
        if floor > 0.0 && floor.is_finite() {
            self.0.fetch_max(floor.to_bits(), Ordering::Relaxed);
        }
    }
}

/// What a fused search counts: the keyword matches (the ranking marked them all) and the
/// semantic window.
pub(super) fn found_either_way(searcher: &Searcher, keyword: &Ranking, window: &[(f32, DocAddress)]) -> Vec<MatchSet> {
    let readers = searcher.segment_readers().iter().enumerate();
    let mut sets: Vec<MatchSet> =
        readers.map(|(ord, r)| MatchSet::live(keyword.matches.segment(ord as u32), r)).collect();
    window.iter().for_each(|&(_, a)| sets[a.segment_ord as usize].insert(a.doc_id));
    sets
}

/// Match sets holding exactly `kept`: with `min_score`, counts cover what the cut list kept.
pub(super) fn only(searcher: &Searcher, kept: impl Iterator<Item = DocAddress>) -> Vec<MatchSet> {
    let mut sets: Vec<MatchSet> = searcher.segment_readers().iter().map(|r| MatchSet::new(r.max_doc())).collect();
    for a in kept {
        sets[a.segment_ord as usize].insert(a.doc_id);
    }
    sets
}

/// A ranked list (best first) cut at `min_score` of the best. When the cut falls inside the
/// list, everything above the bound is in it and the total is exact (returns true: counts then
/// cover the list); past the list's depth it stays the estimate it was.
pub(super) fn above_min_score<T>(
    req: &SearchRequest,
    ranked: &mut Vec<T>,
    score: impl Fn(&T) -> f32,
    best: f32,
    total: &mut usize,
) -> bool {
    if req.min_score <= 0.0 {
        return false;
    }
    let bound = (req.min_score - 0.00005).max(0.0);
    let before = ranked.len();
    ranked.retain(|r| normalise(score(r), best) >= bound);
    let cut = ranked.len() < before;
    if cut {
        *total = ranked.len();
    }
    cut
}

/// Cuts `top` to its best `wanted` (in no order) and returns the score the last of them has, the
/// floor a newcomer must beat (`f32::MIN` while fewer are kept).
fn keep_best(top: &mut Vec<(f32, DocAddress)>, wanted: usize) -> f32 {
    if wanted == 0 {
        top.clear();
        return f32::MAX;
    }
    if top.len() < wanted {
        return f32::MIN;
    }
    top.select_nth_unstable_by(wanted - 1, |a, b| best_first(*a, *b));
    top.truncate(wanted);
    top[wanted - 1].0
}

/// Items matching every word from which `auto` answers a plain question by its words alone, with
/// no query embedded and no vector scanned: that many items holding every word say the words mean what they say.
/// When the words name the first ten (see [`KEYWORD_WEIGHT`]), hybrid's first page holds the same
/// items in the same order (fusion keeps the first 17 ranks of named hits, see the fusion tests).
/// The rule does not look at the page, so every page of one question is a slice of one ranking.
pub(super) const WORDS_SETTLE: usize = 10;

/// The keyword ranking a fusion starts from: past the page, with every match marked.
fn fusion_want(req: &SearchRequest) -> Want {
    Want::top(req.offset + req.limit + FUSION_DEPTH).with_matches()
}

/// A plain question: two or more plain words, none of them an identifier (`create_tool`,
/// `rye/core`, `v1.2`, `camelCase`), no operator, quote, wildcard, field or proximity, ranked
/// by relevance. Everything else is a keyword query.
fn is_question(req: &SearchRequest) -> bool {
    if !req.fields.is_empty() || req.proximity.is_some() || req.sort_by != SortBy::Score {
        return false;
    }
    // A one-word query, the most common kind, is no question without being parsed again.
    two_words(&req.query) && words_make_question(&req.query)
}

/// Whether `query` has two words with white space or a control character between them: the
/// parser's only word breaks besides quotes and parentheses, which make no question.
fn two_words(query: &str) -> bool {
    query.split(|c: char| c.is_whitespace() || c.is_control()).filter(|w| !w.is_empty()).nth(1).is_some()
}

/// Whether `query` parses as two or more plain words, not all stop words, none an identifier.
fn words_make_question(query: &str) -> bool {
    let Ok(node) = parse(query) else { return false };
    let Some(words) = relax::plain_query_words(query, &node) else { return false };
    let identifier = |w: &String| {
        w.contains(['_', '/', '.', ':', '-', '@', '#'])
            || w.chars().any(|c| c.is_ascii_digit())
            || w.chars().skip(1).any(|c| c.is_uppercase()) && w.chars().any(|c| c.is_lowercase())
    };
    !words.iter().any(identifier) && relax::without_stop_words(words).0.len() >= 2
}

impl SegmentParts {
    /// This segment's item vectors, read on the first semantic search.
    pub(super) fn vectors(&self, reader: &SegmentReader, dims: usize) -> Result<Arc<SegmentVectors>> {
        if let Some(v) = self.vectors.get().filter(|v| v.dims() == dims) {
            return Ok(v.clone());
        }
        let v = Arc::new(SegmentVectors::open(reader, dims)?);
        let _ = self.vectors.set(v.clone());
        Ok(v)
    }
}

/// Empty until the first semantic search of a segment.
pub(super) type VectorsCell = OnceLock<Arc<SegmentVectors>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_query_of_two_words_can_be_a_question() {
        let pieces = [
            "tar", "files", "the", "how", " ", "\t", "\n", "\u{a0}", "\u{3000}", "\u{1}", "(", ")", "\"", "*", "-",
            "_", "OR", "AND", "NOT", "é", ":", ",", "?",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut questions = 0;
        for _ in 0..50_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 7) as usize;
            let query: String = (0..len).map(|k| pieces[((seed >> (8 * k)) % pieces.len() as u64) as usize]).collect();
            let question = words_make_question(&query);
            assert!(two_words(&query) || !question, "{query:?}");
            questions += usize::from(question);
        }
        // The draws hold questions too, so the check above is not vacuous.
        assert!(questions > 100, "{questions}");
        assert!(words_make_question("how to extract tar files"));
        assert!(!two_words("tar") && !two_words(" tar\t") && two_words("tar\u{1}files"));
    }
}
