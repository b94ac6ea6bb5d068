//! Exact top-k in the order a search asks for (`order`): everything comes from fast fields, so
//! ranking never reads the doc store, and ties are settled in one pass however many documents
//! share a score. Exact totals, and the matches kept when a search asks for them.

use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Weight;
use tantivy::{DocAddress, DocId, Score, SegmentOrdinal, SegmentReader};

use crate::order::{exact_order, ord, quantise, score_key, text, Ranked, SortColumns};
use crate::query::max_score::{self, Clause};
use crate::recency::Recency;
use crate::wire::SortBy;

/// Every document a query matched, one bit each per segment, when the collector was asked to
/// keep them (hybrid fusion asks which of its semantic hits the words match). A segment that
/// was counted again after skipping (see [`Collected::pruned`]) may also mark deleted documents.
#[derive(Default)]
pub struct Matches {
    segments: Vec<(SegmentOrdinal, Vec<u64>)>,
}

impl Matches {
    /// The matches at `addresses` (every match of a query, when a ranking holds them all).
    pub fn of(addresses: impl IntoIterator<Item = DocAddress>) -> Self {
        let mut matches = Matches::default();
        for a in addresses {
            let (word, bit) = (a.doc_id as usize / 64, a.doc_id % 64);
            let at = match matches.segments.iter().position(|(ord, _)| *ord == a.segment_ord) {
                Some(at) => at,
                None => {
                    matches.segments.push((a.segment_ord, Vec::new()));
                    matches.segments.len() - 1
                }
            };
            let bits = &mut matches.segments[at].1;
            if bits.len() <= word {
                bits.resize(word + 1, 0);
            }
            bits[word] |= 1 << bit;
        }
        matches
    }

    pub fn contains(&self, address: DocAddress) -> bool {
        let doc = address.doc_id as usize;
        self.segment(address.segment_ord)
            .and_then(|bits| bits.get(doc / 64))
            .is_some_and(|w| w & (1 << (doc % 64)) != 0)
    }

    /// A segment's bits, one per document.
    pub fn segment(&self, segment: SegmentOrdinal) -> Option<&[u64]> {
        self.segments.iter().find(|(ord, _)| *ord == segment).map(|(_, bits)| &bits[..])
    }

    /// Replaces a segment's bits (with a complete set, after counting it again).
    pub fn set_segment(&mut self, segment: SegmentOrdinal, bits: Vec<u64>) {
        self.segments.retain(|(ord, _)| *ord != segment);
        self.segments.push((segment, bits));
    }
}

/// What a search collected: matches seen, the best score among all matches, the top.
pub struct Collected {
    pub seen: u64,
    /// Segments where block-max WAND skipped documents, with what `seen` counted there: after
    /// `totals::collect`, only those not counted again (`seen` is then a lower bound).
    pub pruned: Vec<(SegmentOrdinal, u64)>,
    pub best: Score,
    pub top: Vec<Ranked>,
    /// With [`TopRanked::marks`]: every match.
    pub matches: Matches,
}

/// Collects the best `wanted` documents, counting matches on the way. With `prune` (score sort
/// only) documents that cannot reach the current k-th score are skipped (block-max WAND, or
/// MaxScore over a few terms); the segments where that happened are reported in
/// [`Collected::pruned`] for the caller to count again.
pub struct TopRanked {
    pub sort: SortBy,
    pub wanted: usize,
    /// Skip what cannot enter the top (see above). Only a union of term queries can skip; any
    /// other query visits every match anyway, and is then counted on the way, not twice.
    pub prune: bool,
    /// Columns per segment ordinal, when the caller keeps them open.
    pub columns: Vec<Arc<SortColumns>>,
    /// Matches scoring below this are neither kept nor counted (`min_score`).
    pub min_score: Score,
    /// Raises newer items' scores (`boost_recent`).
    pub recency: Option<Recency>,
    /// Keep a bit for every match ([`Collected::matches`]).
    pub marks: bool,
    /// Count every match, also where top-k skipped some (else `seen` is a lower bound there).
    pub exact_total: bool,
}

/// What ranks a segment's matches: the query's weight, or MaxScore over its clauses.
pub enum Ranker<'a> {
    Weight(&'a dyn Weight),
    MaxScore(&'a [Clause]),
}

/// Segment-local sort key: larger is better.
type LocalKey = (u64, u64, u64, u64, u64);

pub struct SegmentTop {
    segment: SegmentOrdinal,
    sort: SortBy,
    prune: bool,
    wanted: usize,
    /// Up to `2 * wanted` candidates; halved to the best `wanted` when full.
    buffer: Vec<Candidate>,
    /// The worst key still kept after the last halving: anything not above it is out.
    floor: Option<LocalKey>,
    seen: u64,
    best: Score,
    columns: Arc<SortColumns>,
    min_score: Score,
    recency: Option<Recency>,
    marks: Option<Vec<u64>>,
    /// What the segments collected before made the k-th score: when pruning, nothing at or
    /// below it can enter the top, so this segment starts skipping from there.
    above: Score,
}

/// A document in the running top. Its full key (space, id and key ordinals) is read only when
/// its primary key ties with the boundary of the top: three column reads for every match were
/// three likely cache misses each (c60k, cold: 7–8% fewer last-level misses for mid-frequency
/// terms and OR queries).
struct Candidate {
    primary: u64,
    score: Score,
    doc: DocId,
    key: Option<LocalKey>,
}

impl Candidate {
    /// Orders candidates whose keys are read among themselves, and any others by primary key.
    fn order(&self) -> (u64, LocalKey) {
        (self.primary, self.key.unwrap_or_default())
    }
}

impl SegmentTop {
    fn primary(&self, doc: DocId, score: Score) -> u64 {
        let c = &*self.columns;
        match self.sort {
            SortBy::Score => score_key(score),
            SortBy::Name => !ord(&c.names, doc),
            SortBy::Date => c.dates.as_ref().and_then(|c| c.first(doc)).map(|d| (d as u64) ^ (1 << 63)).unwrap_or(0),
        }
    }

    fn key(&self, doc: DocId, primary: u64) -> LocalKey {
        let c = &*self.columns;
        let rank = c.rank.as_ref().and_then(|c| c.first(doc)).unwrap_or(u64::MAX);
        (primary, !rank, !ord(&c.ids, doc), !ord(&c.keys, doc), doc as u64)
    }

    fn push(&mut self, doc: DocId, score: Score) {
        if self.wanted == 0 {
            return;
        }
        // Cheap rejection on the score alone before any fast-field read.
        if let (SortBy::Score, Some(floor)) = (self.sort, self.floor) {
            if score_key(score) < floor.0 {
                return;
            }
        }
        let primary = self.primary(doc, score);
        let mut key = None;
        if let Some(floor) = self.floor {
            if primary < floor.0 {
                return;
            }
            if primary == floor.0 {
                let full = self.key(doc, primary);
                if full <= floor {
                    return;
                }
                key = Some(full);
            }
        }
        self.buffer.push(Candidate { primary, score, doc, key });
        if self.buffer.len() >= 2 * self.wanted {
            self.truncate();
        }
    }

    /// Reads the full key of every candidate whose primary key is `primary`.
    fn read_keys(&mut self, primary: Option<u64>) {
        for i in 0..self.buffer.len() {
            let c = &self.buffer[i];
            if c.key.is_none() && primary.is_none_or(|p| c.primary == p) {
                self.buffer[i].key = Some(self.key(c.doc, c.primary));
            }
        }
    }

    fn truncate(&mut self) {
        let k = self.wanted;
        if self.buffer.len() > k {
            self.buffer.select_nth_unstable_by(k - 1, |a, b| b.primary.cmp(&a.primary));
            let kth = self.buffer[k - 1].primary;
            if self.buffer[k..].iter().any(|c| c.primary == kth) {
                // Ties across the boundary: the tie-break decides which of them stay.
                self.read_keys(Some(kth));
                self.buffer.select_nth_unstable_by(k - 1, |a, b| b.order().cmp(&a.order()));
            }
            self.buffer.truncate(k);
        }
        if self.buffer.len() == k {
            let lowest = self.buffer.iter().map(|c| c.primary).min();
            self.read_keys(lowest);
            self.floor = self.buffer.iter().filter(|c| Some(c.primary) == lowest).filter_map(|c| c.key).min();
        }
    }

    /// The score a document must exceed to matter (for block-max WAND). Ties with the k-th
    /// score still matter: they may win on space or id.
    fn score_threshold(&self) -> Score {
        match self.floor {
            Some(f) => f32::from_bits(f.0 as u32).next_down(),
            None => Score::MIN,
        }
    }
}

impl SegmentCollector for SegmentTop {
    type Fruit = Collected;

    fn collect(&mut self, doc: DocId, score: Score) {
        let score = match &self.recency {
            Some(r) => score * r.factor(self.columns.date(doc)),
            None => score,
        };
        // Compared as ranked: a ranking cut at `min_score` keeps the quantised scores at or above
        // it, and the count must say the same (raw scores a hair above the bound whose quantised
        // score is below it were counted and not kept: total 33 for 27 shown, by the page).
        let score = quantise(score);
        if score < self.min_score {
            return;
        }
        if let Some(bits) = &mut self.marks {
            bits[doc as usize / 64] |= 1 << (doc % 64);
        }
        self.seen += 1;
        self.best = self.best.max(score);
        self.push(doc, score);
    }

    fn harvest(mut self) -> Collected {
        self.truncate();
        self.read_keys(None);
        let names = &self.columns.names;
        let mut out: Vec<Ranked> = Vec::with_capacity(self.buffer.len());
        for c in &self.buffer {
            let (key, score, doc) = (c.key.expect("read above"), c.score, c.doc);
            let by_name = self.sort == SortBy::Name;
            out.push(Ranked {
                score,
                primary: if by_name { 0 } else { key.0 },
                name: by_name.then(|| text(names, ord(names, doc))),
                rank: !key.1,
                id_ord: !key.2,
                key_ord: !key.3,
                columns: self.columns.clone(),
                address: DocAddress::new(self.segment, doc),
            });
        }
        let skipped = self.floor.is_some() || self.above > Score::MIN;
        let pruned = if self.prune && skipped { vec![(self.segment, self.seen)] } else { Vec::new() };
        let mut matches = Matches::default();
        if let Some(bits) = self.marks {
            matches.set_segment(self.segment, bits);
        }
        Collected { seen: self.seen, pruned, best: self.best, top: out, matches }
    }
}

impl Collector for TopRanked {
    type Fruit = Collected;
    type Child = SegmentTop;

    fn for_segment(&self, segment: SegmentOrdinal, reader: &SegmentReader) -> tantivy::Result<SegmentTop> {
        let columns = match self.columns.get(segment as usize) {
            Some(c) => c.clone(),
            None => Arc::new(SortColumns::open(reader, None)?),
        };
        Ok(SegmentTop {
            segment,
            sort: self.sort,
            prune: self.prune && self.sort == SortBy::Score,
            wanted: self.wanted,
            buffer: Vec::with_capacity(2 * self.wanted.min(1024)),
            floor: None,
            seen: 0,
            best: 0.0,
            columns,
            min_score: self.min_score,
            recency: self.recency,
            marks: self.marks.then(|| vec![0; (reader.max_doc() as usize).div_ceil(64)]),
            above: Score::MIN,
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Collected>) -> tantivy::Result<Collected> {
        let seen = fruits.iter().map(|f| f.seen).sum();
        let pruned = fruits.iter().flat_map(|f| f.pruned.iter().copied()).collect();
        let best = fruits.iter().map(|f| f.best).fold(0.0, Score::max);
        let mut matches = Matches::default();
        let mut tops = Vec::new();
        for f in fruits {
            matches.segments.extend(f.matches.segments);
            tops.extend(f.top);
        }
        let top = exact_order(tops, self.wanted);
        Ok(Collected { seen, pruned, best, top, matches })
    }

    fn collect_segment(&self, weight: &dyn Weight, segment: u32, reader: &SegmentReader) -> tantivy::Result<Collected> {
        self.collect_segment_above(&Ranker::Weight(weight), segment, reader, Score::MIN)
    }
}

impl TopRanked {
    /// Collects one segment; when pruning, documents scoring at most `above` (below the k-th
    /// score of the segments collected before) are skipped: a segment starts from the others'
    /// top instead of from nothing.
    pub fn collect_segment_above(
        &self,
        ranker: &Ranker,
        segment: u32,
        reader: &SegmentReader,
        above: Score,
    ) -> tantivy::Result<Collected> {
        let mut top = self.for_segment(segment, reader)?;
        let alive = reader.alive_bitset();
        let is_alive = |doc: DocId| alive.is_none_or(|a| a.is_alive(doc));
        if self.wanted == 0 && !self.marks {
            top.seen = match ranker {
                Ranker::Weight(weight) => weight.count(reader)? as u64,
                Ranker::MaxScore(clauses) => {
                    let mut seen = 0;
                    max_score::for_each_pruning(clauses, reader, Score::MIN, &mut |doc, _| {
                        seen += u64::from(is_alive(doc));
                        Score::MIN
                    })?;
                    seen
                }
            };
            return Ok(top.harvest());
        }
        // Without pruning, every match is handed over: the threshold stays where it starts.
        let prune = top.prune;
        let threshold = if prune { above } else { Score::MIN };
        top.above = threshold;
        let mut callback = |doc, score| {
            if is_alive(doc) {
                top.collect(doc, score);
            }
            match prune {
                true => top.score_threshold().max(threshold),
                false => Score::MIN,
            }
        };
        match ranker {
            Ranker::Weight(weight) if prune => weight.for_each_pruning(above, reader, &mut callback)?,
            Ranker::Weight(weight) => weight.for_each(reader, &mut |doc, score| {
                callback(doc, score);
            })?,
            Ranker::MaxScore(clauses) => max_score::for_each_pruning(clauses, reader, threshold, &mut callback)?,
        }
        Ok(top.harvest())
    }
}
