//! What a search runs: keyword ranking, semantic ranking (cosine over the item vectors of the
//! items the filters let through), or both fused by reciprocal rank (hybrid).

mod explain;
mod facets;
mod filters;
mod fusion;
mod keyword;
mod left_out;
mod like;
mod many;
mod meaning;
mod page;
mod preview;
mod semantic_scan;
mod share;
mod totals;
mod typos;

pub use many::stop_batches;

/// Largest page a request may ask for, and deepest offset (bounded memory per query).
pub const MAX_LIMIT: usize = 1000;
pub const MAX_OFFSET: usize = 100_000;
/// Values of every exact filter of a request together (each is a clause of the search): a list
/// of a million tags took seconds to refuse nothing.
pub const MAX_FILTER_VALUES: usize = 1024;
/// Longest preview a hit may ask for, in characters (`ts/search-options.ts` states it to callers).
pub const MAX_PREVIEW_CHARS: usize = 10_000;
/// Farthest apart proximity's words may be; more is clamped, with a warning (a window past the
/// longest field only costs).
pub const MAX_PROXIMITY: u64 = 1000;

/// How far apart the words of a plain query may be to earn the nearness bonus.
const NEARNESS_SLOP: u32 = 3;

use std::sync::Arc;

use tantivy::DocAddress;
use tantivy::Searcher;

use self::facets::MatchSet;
use self::fusion::{similarity_evidence, ByMeaning, Fused, KeywordWeight, FUSION_DEPTH, SEMANTIC_WINDOW};
use self::keyword::{min_bound, normalise, Built, Ranking, Want, Words};
use self::meaning::MeaningQuery;
use self::semantic_scan::{Scan, SemanticRanking};
use crate::collect::Matches;
use crate::error::Result;
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::query::{parse, relax};
use crate::wire::{Count, Matched, Mode, Weights};
use crate::wire::{SearchRequest, SearchResponse, SortBy};

/// Weight of keyword hits the words name — every word in the item's title, name, description,
/// category or tags — against 1 for the semantic list: high enough that they keep their keyword
/// order (meaning only breaks their ties and adds items after them). Known-item MRR@10 on the
/// Debian bench (200 synopsis queries): weight 1 → 0.906, 4 → 0.931, 100 → 0.9485, the keyword
/// figure.
const KEYWORD_WEIGHT: f32 = 100.0;
/// Weak keyword evidence: a relaxed list (no item had every word), or an item that holds every
/// word only in its body. Meaning then leads; the words break its ties and add items after it.
/// MRR@10 of `auto` with this weight 0.2 → 0.05 (`bench/nl-quality.js`, and 14 RYE questions
/// written after the choice was measured on the others): RYE questions 0.564 → 0.627, held-out
/// 0.662 → 0.719, Debian 0.169 → 0.164, known items 0.943 both; body-only hits weighed 100, as
/// named ones, gave 0.503, 0.637, 0.145 (the semantic ranking alone: 0.676, 0.743, 0.136).
/// Measured again with the sentence encoder's vectors (0.05, 0.02, 0.01, 0): Debian questions
/// 0.273, 0.272, 0.259, 0.259 (top 10: 21, 20, 20, 20 of 40); RYE questions 0.707, 0.729, 0.796,
/// 0.796, held-out 0.81, 0.81, 0.774, 0.774; known items 0.945 at every weight. Kept for both.
const WEAK_KEYWORD_WEIGHT: f32 = 0.05;

/// A query's vector and the vectors it is compared with.
pub(crate) type QueryVector<'a> = (&'a [f32], &'a meaning::Meaning);

impl SearchIndex {
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        let mut res = self.search_as_written(req)?;
        // Words found outside the filters or scope are no typos: said, not rescued.
        let mut res = match self.left_out(req, &res)? {
            Some(note) => {
                res.warnings.push(note);
                res
            }
            None => self.rescued(req, res)?,
        };
        // A caller who let the count go is told whether it is exact.
        if req.count != Count::Exact {
            res.total_relation = res.total_relation.or(Some("eq"));
        }
        Ok(res)
    }

    /// The search as the request says it, without the typo rescue (`typos.rs`).
    fn search_as_written(&self, req: &SearchRequest) -> Result<SearchResponse> {
        Self::check_limits(req)?;
        let searcher = self.reader.searcher();
        let parts = self.segment_parts(&searcher)?;
        if let Some(like) = &req.like {
            return self.like(req, &searcher, &parts, like);
        }
        let mut warnings = Vec::new();
        let meaning = self.meaning(&searcher);
        let mode = match req.mode {
            Mode::Keyword => Mode::Keyword,
            Mode::Auto if !is_question(req) => Mode::Keyword,
            _ if meaning.is_none() => {
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
        // Only a search that ranks by meaning embeds its query: its words, not its operators.
        let read = (mode != Mode::Keyword && meaning.is_some()).then(|| MeaningQuery::of(&req.query));
        let query_vector = match (&meaning, &read) {
            (Some(m), Some(read)) => m.embed(&read.text).map(|v| (v, m)),
            _ => None,
        };
        let mut res = match (mode, query_vector) {
            (Mode::Keyword, _) => self.keyword(req, &searcher, &parts)?,
            (_, None) => {
                warnings.push(match read.as_ref().is_some_and(|r| r.text.trim().is_empty()) {
                    true => "the query has no words to rank by meaning (*, wildcards and NOT are keyword syntax): \
                             keyword results only"
                        .into(),
                    false => "no word of the query is known to the embedding model: keyword results only".into(),
                });
                self.keyword(req, &searcher, &parts)?
            }
            (_, Some((v, m))) => {
                // What NOT keeps out and `fields` ask for hold for the items found by meaning too.
                let narrowing = match (read.as_ref().and_then(MeaningQuery::narrowing), req.fields.is_empty()) {
                    (None, true) => None,
                    (node, _) => Some(self.node_query(req, &searcher, &parts, node.unwrap_or(parse::Node::All))?.query),
                };
                match mode {
                    Mode::Semantic => self.semantic(req, &searcher, &parts, (&v, m), narrowing.as_deref())?,
                    _ => self.hybrid(req, &searcher, &parts, (&v, m), every_word, narrowing.as_deref())?,
                }
            }
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
            vectors: None,
            total_relation: ranking.lower_bound.then_some("gte"),
        })
    }

    fn semantic(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        vector: QueryVector,
        narrow: Option<&dyn tantivy::query::Query>,
    ) -> Result<SearchResponse> {
        let mut sets = self.empty_sets(req, searcher);
        let SemanticRanking { mut top, mut total, .. } = self.rank_semantic(
            req,
            searcher,
            parts,
            vector,
            req.offset + req.limit,
            Scan { narrow, ..Scan::marking(sets.as_deref_mut()) },
        )?;
        // Shown as evidence, as in hybrid: 0 at the model's floor, 1 at the best similarity (so
        // the best is 1, what `min_score` and the scores are relative to).
        let best = top.first().map_or(1.0, |t| t.0);
        let floor = vector.1.floor();
        top.iter_mut().for_each(|t| t.0 = similarity_evidence(t.0, best, floor));
        let best = 1.0;
        if above_min_score(req, &mut top, |t| t.0, best, &mut total) {
            sets = sets.map(|_| only(searcher, top.iter().map(|t| t.1)));
        }
        let page: Vec<_> =
            top.iter().skip(req.offset).map(|&(sim, a)| (normalise(sim, best), a, Matched::Semantic)).collect();
        let hits = self.load_page(req, searcher, parts, None, &page)?;
        let counts = sets.map(|sets| self.counts(searcher, &sets)).transpose()?;
        let vectors = Some(vector.1.tier());
        Ok(SearchResponse {
            total,
            hits,
            warnings: Vec::new(),
            relaxed: false,
            search_type: "semantic",
            counts,
            vectors,
            total_relation: None,
        })
    }

    /// Keyword and semantic lists fused; in `auto`, starting from the every-word query whose
    /// matches were too few to settle the answer.
    fn hybrid(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        vector: QueryVector,
        every_word: Option<EveryWord>,
        narrow: Option<&dyn tantivy::query::Query>,
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
        let alongside: Box<dyn FnOnce()> = Box::new(|| keyword = Some(rank_keyword()));
        let scan = Scan { shortlist: true, narrow, alongside: Some(alongside), ..Scan::default() };
        let semantic = self.rank_semantic(req, searcher, parts, vector, SEMANTIC_WINDOW, scan);
        let keyword: Result<(Ranking, Option<Matches>)> = keyword.expect("ranked alongside the scan");
        let (keyword, named) = keyword?;
        let keyword_weight = match keyword.relaxed {
            true => KeywordWeight::uniform(WEAK_KEYWORD_WEIGHT),
            false => KeywordWeight { named: KEYWORD_WEIGHT, other: WEAK_KEYWORD_WEIGHT, naming: named.as_ref() },
        };
        let semantic = semantic?.top;
        let Fused { mut ranked, mut total, keyword } = self.fuse(
            req,
            searcher,
            parts,
            keyword,
            keyword_weight,
            ByMeaning { ranked: &semantic, floor: vector.1.floor() },
        )?;
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
        let Ranking { warnings, relaxed, lower_bound, .. } = keyword;
        let vectors = Some(vector.1.tier());
        let total_relation = lower_bound.then_some("gte");
        Ok(SearchResponse { total, hits, warnings, relaxed, search_type: "hybrid", counts, vectors, total_relation })
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
        // How `auto` answers turns on how many items hold every word: a count the request let go
        // (a lower bound) is made exact when it falls short of deciding, so the page never depends on it.
        if ranking.lower_bound && ranking.total < WORDS_SETTLE {
            let exact = SearchRequest { count: Count::Exact, ..req.clone() };
            let built = Built { query: ranking.query, warnings: ranking.warnings };
            ranking = self.rank_query(&exact, searcher, parts, built, Want::top(req.offset + req.limit))?;
        }
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
}

/// What a plain question's every-word query tells `auto` (its total is exact: `collect` counts
/// every match).
enum EveryWord {
    /// At least [`WORDS_SETTLE`] items hold every word: the answer is theirs; the page's ranking.
    Settles(Ranking),
    /// Fewer, all on the page: ranked and marked, as fusion wants them beside the items' meaning.
    Few(Ranking),
    /// Fewer, some past the page (a short page, or a later one): the query, for fusion to rank.
    FewPastThePage(Built),
}

/// What a fused search counts: the keyword matches (the ranking marked them all) and the
/// semantic window.
fn found_either_way(searcher: &Searcher, keyword: &Ranking, window: &[(f32, DocAddress)]) -> Vec<MatchSet> {
    let readers = searcher.segment_readers().iter().enumerate();
    let mut sets: Vec<MatchSet> =
        readers.map(|(ord, r)| MatchSet::live(keyword.matches.segment(ord as u32), r)).collect();
    window.iter().for_each(|&(_, a)| sets[a.segment_ord as usize].insert(a.doc_id));
    sets
}

/// Match sets holding exactly `kept`: with `min_score`, counts cover what the cut list kept.
fn only(searcher: &Searcher, kept: impl Iterator<Item = DocAddress>) -> Vec<MatchSet> {
    let mut sets: Vec<MatchSet> = searcher.segment_readers().iter().map(|r| MatchSet::new(r.max_doc())).collect();
    for a in kept {
        sets[a.segment_ord as usize].insert(a.doc_id);
    }
    sets
}

/// A ranked list (best first) cut at `min_score` of the best. When the cut falls inside the
/// list, everything above the bound is in it and the total is exact (returns true: counts then
/// cover the list); past the list's depth it stays the estimate it was.
fn above_min_score<T>(
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

/// Items matching every word from which `auto` answers a plain question by its words alone, with
/// no query embedded and no vector scanned: that many items holding every word say the words mean what they say.
/// When the words name the first ten (see [`KEYWORD_WEIGHT`]), hybrid's first page holds the same
/// items in the same order (fusion keeps the first 17 ranks of named hits, see the fusion tests).
/// The rule does not look at the page, so every page of one question is a slice of one ranking.
const WORDS_SETTLE: usize = 10;

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
