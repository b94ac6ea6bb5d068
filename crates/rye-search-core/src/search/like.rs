//! `like: "kind:id"`: the items most like one item. By its words (its most telling terms, as
//! tf × idf rank them) and, when vectors exist, by its meaning (its own vector), fused as a
//! hybrid search is; the item itself, in every space, left out. A query besides narrows the
//! items to those it matches.

use std::collections::HashMap;
use std::sync::Arc;

use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::DocAddress;
use tantivy::Searcher;

use super::facets::MatchSet;
use super::fusion::{similarity_evidence, ByMeaning, Fused, KeywordWeight, FUSION_DEPTH, SEMANTIC_WINDOW};
use super::keyword::{min_bound, normalise, Ranking, Want};
use super::semantic_scan::Scan;
use super::{above_min_score, found_either_way, only};
use crate::error::{Error, Result};
use crate::exact::unicode_forms;
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::query::parse::Node;
use crate::query::{parse, relax};
use crate::tokenizer::{self};
use crate::wire::{LikeRef, Matched, Mode};
use crate::wire::{SearchRequest, SearchResponse, SortBy};

/// How many of the item's terms describe it: enough for its topic, few enough to stay fast.
const LIKE_TERMS: usize = 25;
/// How much of the item's text is read for its terms.
const LIKE_TEXT_BYTES: usize = 8_000;

impl SearchIndex {
    pub(super) fn like(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        like: &LikeRef,
    ) -> Result<SearchResponse> {
        let address = self.find_liked(searcher, parts, like)?;
        let part = &parts[address.segment_ord as usize];
        let read =
            |content: &[u8]| Ok((prefix(crate::stored::text(content)?, LIKE_TEXT_BYTES).to_string(), Vec::new()));
        let hit = self.materialise(&part.store.document(address.doc_id)?, Some(&read), false)?;
        let fields = ["title", "name", "description", "category"].map(|f| hit.item_str(f).unwrap_or_default());
        let mut text = fields.join("\n");
        text.push('\n');
        text.push_str(&hit.preview);

        let narrow = match req.query.trim() {
            "" | "*" => None,
            q => Some(parse(q)?),
        };
        let terms = self.telling_terms(searcher, &text);
        let depth = req.offset + req.limit + FUSION_DEPTH;
        let mut warnings_before = Vec::new();
        // `mode` picks the evidence: `keyword` by words alone, `semantic` by meaning alone, `auto`
        // and `hybrid` both.
        let by_words = req.mode != Mode::Semantic;
        let by_meaning = req.mode != Mode::Keyword;
        if req.sort_by != SortBy::Score {
            warnings_before.push("sort_by is ignored with like: results are ranked by likeness".to_string());
        }
        let keyword = if terms.is_empty() || !by_words {
            None
        } else {
            let words = Node::Or(terms.into_iter().map(Node::Term).collect());
            let node = match &narrow {
                Some(n) => Node::And(vec![n.clone(), words]),
                None => words,
            };
            Some(self.rank_node(req, searcher, parts, node, Want::top(depth).with_matches())?)
        };
        let mut warnings = warnings_before;
        let meaning = self.meaning(searcher).filter(|_| by_meaning);
        let vector = match meaning.as_ref() {
            Some(m) => {
                m.vectors(part, &searcher.segment_readers()[address.segment_ord as usize])?.vector(address.doc_id)
            }
            None => None,
        };
        if vector.is_none() && by_meaning {
            warnings.push(match by_words {
                true => "found by words only: no vector for this item (no embedding model loaded)".into(),
                false => "nothing found by meaning: no vector for this item (no embedding model loaded)".into(),
            });
        }
        let floor = meaning.as_ref().map_or(0.0, |m| m.floor());
        let semantic = match (&vector, &meaning) {
            (Some(v), Some(meaning)) => {
                let narrow_query = match &narrow {
                    Some(n) => Some(self.rank_node(req, searcher, parts, n.clone(), Want::top(0))?.query),
                    None => None,
                };
                // Only the window is kept, as in hybrid: the scan may shortlist.
                let scan = Scan { narrow: narrow_query.as_deref(), shortlist: true, ..Scan::default() };
                Some(self.rank_semantic(req, searcher, parts, (v, meaning), SEMANTIC_WINDOW, scan)?.top)
            }
            _ => None,
        };
        let (mut ranked, mut total, keyword) = match (keyword, &semantic) {
            (Some(keyword), Some(semantic)) => {
                let Fused { ranked, total, keyword } = self.fuse(
                    req,
                    searcher,
                    parts,
                    keyword,
                    KeywordWeight::uniform(1.0),
                    ByMeaning { ranked: semantic, floor },
                )?;
                (ranked, total, Some(keyword))
            }
            (Some(keyword), None) => {
                // Cut at `min_score` as a keyword search is: ranked again below the bound if need be.
                let keyword = self.at_least(req, searcher, parts, keyword, depth)?;
                let ranked = keyword.top.iter().map(|&(s, a)| (s, a, Matched::Keyword)).collect();
                (ranked, keyword.total, Some(keyword))
            }
            (None, Some(semantic)) => {
                let best = semantic.first().map_or(0.0, |s| s.0);
                let ranked = semantic
                    .iter()
                    .map(|&(s, a)| (similarity_evidence(s, best, floor), a, Matched::Semantic))
                    .collect();
                (ranked, semantic.len(), None)
            }
            (None, None) => (Vec::new(), 0, None),
        };
        let best = ranked.first().map_or(1.0, |r| r.0);
        if semantic.is_some() && req.min_score > 0.0 {
            // The fused list is exact down to the bound (see `fuse`), and a semantic window is the
            // whole list: what is left above the bound is every item there.
            above_min_score(req, &mut ranked, |r| r.0, best, &mut total);
            total = ranked.len();
        }
        let page: Vec<_> =
            ranked.iter().skip(req.offset).take(req.limit).map(|&(s, a, m)| (normalise(s, best), a, m)).collect();
        let query = keyword.as_ref().map(|k| &*k.query);
        let hits = self.load_page(req, searcher, parts, query, &page)?;
        let counts = match req.facets {
            true => Some(
                self.counts(searcher, &self.like_sets(req, searcher, parts, keyword.as_ref(), &semantic, &ranked)?)?,
            ),
            false => None,
        };
        let mut total_relation = None;
        if let Some(k) = keyword {
            warnings.extend(k.warnings);
            total_relation = k.lower_bound.then_some("gte");
        }
        let search_type = match (by_words, &semantic) {
            (true, Some(_)) => "hybrid",
            (false, _) => "semantic",
            (true, None) => "keyword",
        };
        let vectors = semantic.as_ref().and(meaning.as_ref()).map(|m| m.tier());
        Ok(SearchResponse { total, hits, warnings, relaxed: false, search_type, counts, vectors, total_relation })
    }

    /// What a `like` search's counts cover, the items its total counts: with a semantic list,
    /// every keyword match (the ranking marked them) and the semantic window, or with
    /// `min_score` the cut list (exact down to the bound); by words alone, the query's matches
    /// (above the bound).
    fn like_sets(
        &self,
        req: &SearchRequest,
        searcher: &Searcher,
        parts: &[Arc<SegmentParts>],
        keyword: Option<&Ranking>,
        semantic: &Option<Vec<(f32, DocAddress)>>,
        ranked: &[(f32, DocAddress, Matched)],
    ) -> Result<Vec<MatchSet>> {
        match (keyword, semantic) {
            (Some(keyword), None) => {
                let bound = (req.min_score > 0.0).then(|| min_bound(req.min_score, keyword.best));
                self.match_sets(req, searcher, parts, &*keyword.query, bound)
            }
            (Some(keyword), Some(window)) if req.min_score <= 0.0 => Ok(found_either_way(searcher, keyword, window)),
            _ => Ok(only(searcher, ranked.iter().map(|r| r.1))),
        }
    }

    /// The liked item: among its copies, the one of the space that wins precedence.
    fn find_liked(&self, searcher: &Searcher, parts: &[Arc<SegmentParts>], like: &LikeRef) -> Result<DocAddress> {
        let f = &self.fields;
        let kinds: Vec<(Occur, Box<dyn Query>)> = like
            .kinds
            .iter()
            .map(|k| {
                (
                    Occur::Should,
                    Box::new(TermQuery::new(Term::from_field_text(f.kind, k), IndexRecordOption::Basic))
                        as Box<dyn Query>,
                )
            })
            .collect();
        // The id as given, else in its other Unicode forms: an item named in NFD (as macOS writes
        // file names) is found by an id typed in NFC, and the other way round.
        let mut found = Default::default();
        for id in unicode_forms(&like.id) {
            let query = BooleanQuery::new(vec![
                (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.id, &id), IndexRecordOption::Basic))),
                (Occur::Must, Box::new(BooleanQuery::new(kinds.iter().map(|(o, q)| (*o, q.box_clone())).collect()))),
            ]);
            found = searcher.search(&query, &DocSetCollector)?;
            if !found.is_empty() {
                break;
            }
        }
        found
            .into_iter()
            .min_by_key(|a| (parts[a.segment_ord as usize].columns.rank(a.doc_id), a.segment_ord, a.doc_id))
            .ok_or_else(|| Error::NotFound {
                message: format!(
                    "no item {}:{} to find items like",
                    like.kinds.join("|"),
                    crate::error::echo(&like.id)
                ),
                hint: "check the id with a search; like takes kind:id, e.g. \"tool:rye/core/sign\"".into(),
            })
    }

    /// The words that tell most about `text`: frequent in it, rare in the index (tf × idf), stop
    /// words, identifiers' whole forms and words no other item has left out.
    fn telling_terms(&self, searcher: &Searcher, text: &str) -> Vec<String> {
        let mut tf: HashMap<String, u32> = HashMap::new();
        for token in tokenizer::tokens(text) {
            let t = token.text;
            let word_like = t.chars().count() >= 2 && !t.contains(['_', '-']) && !t.chars().all(|c| c.is_ascii_digit());
            if word_like && !relax::is_stop_word(&t) {
                *tf.entry(t).or_default() += 1;
            }
        }
        let docs = searcher.num_docs().max(1) as f32;
        let mut scored: Vec<(f32, String)> = tf
            .into_iter()
            .filter_map(|(t, n)| {
                let df = self.doc_freq(searcher, &t);
                (df > 1).then(|| ((n as f32).sqrt() * (docs / df as f32).ln(), t))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        scored.into_iter().take(LIKE_TERMS).map(|(_, t)| t).collect()
    }
}

/// At most `bytes` bytes of `text`, cut on a character boundary.
fn prefix(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
