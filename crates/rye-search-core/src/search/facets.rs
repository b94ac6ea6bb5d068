//! Counts over a whole match set (`facets: true`): how many matches of each type, space,
//! category and integrity, not only on the page. The match set is a bitset per segment; each
//! value's postings are walked once and counted where they meet it.

use std::sync::Arc;

use tantivy::query::{EnableScoring, Query};
use tantivy::schema::IndexRecordOption;
use tantivy::DocId;

use crate::error::Result;
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::order::quantise;
use crate::wire::Counts;
use crate::wire::SearchRequest;

/// The facets an answer can count, each from its terms: a field, and a prefix of its terms that
/// is cut off to give the value.
const FACETS: [(&str, Facet); 4] = [
    ("type", Facet::Field("kind")),
    ("space", Facet::Field("space")),
    ("category", Facet::Meta("category=")),
    ("integrity", Facet::Meta("integrity=")),
];

#[derive(Clone, Copy)]
enum Facet {
    /// Every term of this raw field is a value.
    Field(&'static str),
    /// Terms of the metadata field that start with this prefix.
    Meta(&'static str),
}

/// The documents of one segment that match, one bit each.
pub(super) struct MatchSet {
    words: Vec<u64>,
}

impl MatchSet {
    pub fn new(max_doc: u32) -> Self {
        MatchSet { words: vec![0; (max_doc as usize).div_ceil(64)] }
    }

    /// The live documents among `bits` (a ranking's matches, which may mark deleted documents).
    pub fn live(bits: Option<&[u64]>, reader: &tantivy::SegmentReader) -> Self {
        let mut set = MatchSet::new(reader.max_doc());
        for (word, &bits) in set.words.iter_mut().zip(bits.unwrap_or_default()) {
            *word = bits;
        }
        if let Some(alive) = reader.alive_bitset() {
            for (i, word) in set.words.iter_mut().enumerate() {
                let mut rest = *word;
                while rest != 0 {
                    let bit = rest.trailing_zeros();
                    rest &= rest - 1;
                    if !alive.is_alive(i as DocId * 64 + bit) {
                        *word &= !(1 << bit);
                    }
                }
            }
        }
        set
    }

    pub fn insert(&mut self, doc: DocId) {
        if let Some(w) = self.words.get_mut(doc as usize / 64) {
            *w |= 1 << (doc % 64);
        }
    }

    fn contains(&self, doc: DocId) -> bool {
        self.words.get(doc as usize / 64).is_some_and(|w| w & (1 << (doc % 64)) != 0)
    }
}

impl SearchIndex {
    /// The live documents of each segment that `query` matches (with scores at least `min`, when
    /// given, the request's recency boost applied as in ranking: a `min_score` search counts only
    /// what it keeps).
    pub(super) fn match_sets(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        query: &dyn Query,
        min: Option<f32>,
    ) -> Result<Vec<MatchSet>> {
        let recency = req.recency();
        let scoring = if min.is_some() {
            EnableScoring::enabled_from_searcher(searcher)
        } else {
            EnableScoring::disabled_from_searcher(searcher)
        };
        let weight = query.weight(scoring)?;
        let mut sets = Vec::with_capacity(searcher.segment_readers().len());
        for (reader, part) in searcher.segment_readers().iter().zip(parts) {
            let mut set = MatchSet::new(reader.max_doc());
            let boost = |doc: DocId| recency.map_or(1.0, |r| r.factor(part.columns.date(doc)));
            let alive = reader.alive_bitset();
            let live = |doc: DocId| alive.is_none_or(|a| a.is_alive(doc));
            match min {
                // The score as the ranking compares it with the bound (see `collect::quantise`).
                Some(min) => weight.for_each(reader, &mut |doc, score| {
                    if quantise(score * boost(doc)) >= min && live(doc) {
                        set.insert(doc);
                    }
                })?,
                None => weight.for_each_no_score(reader, &mut |docs| {
                    for &doc in docs {
                        if live(doc) {
                            set.insert(doc);
                        }
                    }
                })?,
            }
            sets.push(set);
        }
        Ok(sets)
    }

    /// How many documents of `sets` have each value of each facet. Values no match has are left
    /// out.
    pub(super) fn counts(&self, searcher: &tantivy::Searcher, sets: &[MatchSet]) -> Result<Counts> {
        let schema = self.index.schema();
        let mut counts = Counts::new();
        for (name, facet) in FACETS {
            let (field, prefix) = match facet {
                Facet::Field(field) => (schema.get_field(field)?, ""),
                Facet::Meta(prefix) => (self.fields.meta, prefix),
            };
            let values = counts.entry(name).or_default();
            for (reader, set) in searcher.segment_readers().iter().zip(sets) {
                let inverted = reader.inverted_index(field)?;
                let mut end = prefix.as_bytes().to_vec();
                let mut range = inverted.terms().range().ge(prefix.as_bytes());
                // Every term that starts with the prefix sorts below the prefix with its last
                // byte raised by one (the prefixes end in `=`, never 0xFF).
                if let Some(last) = end.last_mut() {
                    *last += 1;
                    range = range.lt(&end);
                }
                let mut terms = range.into_stream()?;
                while terms.advance() {
                    let info = terms.value();
                    let mut postings = inverted.read_block_postings_from_terminfo(info, IndexRecordOption::Basic)?;
                    let (mut n, mut left) = (0u64, info.doc_freq as usize);
                    while left > 0 && !postings.docs().is_empty() {
                        n += postings.docs().iter().filter(|&&doc| set.contains(doc)).count() as u64;
                        left = left.saturating_sub(postings.docs().len());
                        postings.advance();
                    }
                    if n > 0 {
                        let value = String::from_utf8_lossy(&terms.key()[prefix.len()..]).into_owned();
                        *values.entry(value).or_default() += n;
                    }
                }
            }
        }
        Ok(counts)
    }
}
