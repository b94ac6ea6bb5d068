//! The order results come in: the sort (score, name or date), then space precedence, then id,
//! then key, from fast-field columns opened once per segment. Within a segment, string fast-field
//! ordinals order like the strings themselves; across segments the few documents that tie on
//! everything else are compared by their strings. Scores lose their last bits first (`quantise`),
//! so identical documents tie wherever they are.

use std::cmp::Ordering;
use std::sync::Arc;

use tantivy::columnar::{Column, StrColumn};
use tantivy::{DocAddress, DocId, Score, SegmentReader};

use crate::hit_store::HitStore;
use crate::stored::{stored_texts, utf8};

/// One ranked document. Id and key are kept as segment ordinals; their strings are looked up
/// only when documents from different segments tie on everything before them.
#[derive(Clone)]
pub struct Ranked {
    pub score: Score,
    /// Score bits or date: higher ranks first.
    pub(crate) primary: u64,
    /// Lowercased name for the name sort, lower first; None for the other sorts (comparing
    /// empty strings still called `memcmp`, a visible share of a rare-term search).
    pub(crate) name: Option<String>,
    pub(crate) rank: u64,
    pub(crate) id_ord: u64,
    pub(crate) key_ord: u64,
    pub(crate) columns: Arc<SortColumns>,
    pub address: DocAddress,
}

/// The fast-field columns ranking reads, opened once per segment (opening costs more than
/// a rare-term query) and shared by every search on that segment.
pub struct SortColumns {
    pub(crate) rank: Option<Column<u64>>,
    pub(crate) ids: Option<StrColumn>,
    pub(crate) keys: Option<StrColumn>,
    pub(crate) names: Option<StrColumn>,
    pub(crate) dates: Option<Column<i64>>,
    pub(crate) stored_ids: Option<StoredIds>,
}

/// Where ties across segments read ids: a document's first stored text. Slicing it out of the
/// doc store is cheap; the `id` column's dictionary decodes a block up to the ordinal, and that
/// was 60% of a rare-term search at 1M items (whose top hits tie across segments).
pub struct StoredIds {
    pub store: Arc<HitStore>,
    pub id_field: u32,
}

impl SortColumns {
    /// The document's space rank (0 = the space that wins precedence).
    pub fn rank(&self, doc: DocId) -> u64 {
        self.rank.as_ref().and_then(|c| c.first(doc)).unwrap_or(u64::MAX)
    }

    /// The document's date (epoch ms: its metadata date, else its file's time), when it has one.
    pub fn date(&self, doc: DocId) -> Option<i64> {
        self.dates.as_ref().and_then(|c| c.first(doc))
    }

    pub fn open(reader: &SegmentReader, stored_ids: Option<StoredIds>) -> tantivy::Result<Self> {
        let ff = reader.fast_fields();
        Ok(SortColumns {
            rank: ff.u64("space_rank").ok(),
            ids: ff.str("id")?,
            keys: ff.str("key")?,
            names: ff.str("name_sort")?,
            dates: ff.i64("date").ok(),
            stored_ids,
        })
    }

    fn id(&self, doc: DocId, ord: u64) -> String {
        let stored = self.stored_ids.as_ref().and_then(|s| {
            let bytes = s.store.document(doc).ok()?;
            let (field, id) = stored_texts(&bytes).next()?.ok()?;
            (field == s.id_field).then(|| utf8(id).ok()).flatten()
        });
        stored.unwrap_or_else(|| text(&self.ids, ord))
    }
}

impl Ranked {
    pub(crate) fn coarse(&self, other: &Self) -> Ordering {
        other
            .primary
            .cmp(&self.primary)
            .then_with(|| self.name.cmp(&other.name))
            .then_with(|| self.rank.cmp(&other.rank))
    }

    pub(crate) fn id(&self) -> String {
        self.columns.id(self.address.doc_id, self.id_ord)
    }

    pub(crate) fn key(&self) -> String {
        text(&self.columns.keys, self.key_ord)
    }
}

/// Exact order of `all`, best first, as far as the first `wanted` places.
pub(crate) fn exact_order(mut all: Vec<Ranked>, wanted: usize) -> Vec<Ranked> {
    let local = |r: &Ranked| (r.address.segment_ord, r.id_ord, r.key_ord);
    all.sort_by(|a, b| a.coarse(b).then_with(|| local(a).cmp(&local(b))));
    let mut start = 0;
    while start < all.len().min(wanted) {
        let end = start + all[start..].iter().take_while(|r| r.coarse(&all[start]).is_eq()).count();
        let group = &mut all[start..end];
        if group.iter().any(|r| r.address.segment_ord != group[0].address.segment_ord) {
            // By id, then key; a key is looked up only for ids that tie.
            let mut keyed: Vec<(String, Ranked)> = group.iter().map(|r| (r.id(), r.clone())).collect();
            keyed.sort_by(|a, b| {
                a.0.cmp(&b.0).then_with(|| {
                    if a.1.address.segment_ord == b.1.address.segment_ord {
                        a.1.key_ord.cmp(&b.1.key_ord)
                    } else {
                        a.1.key().cmp(&b.1.key())
                    }
                })
            });
            for (slot, (_, r)) in group.iter_mut().zip(keyed) {
                *slot = r;
            }
        }
        start = end;
    }
    all.truncate(wanted);
    all
}

/// Low mantissa bits dropped from every score (relative precision 2^-13, about 1e-4).
const SCORE_NOISE_BITS: u32 = 10;

/// A score without its last bits. Tantivy sums a document's clause scores in an order that
/// depends on where documents sit in the index (a union drops exhausted clauses by swapping), so
/// identical documents can differ in the last bits of an f32: without this, twins would be
/// ordered by chance instead of by space and id, and two builds of the same items could disagree.
pub fn quantise(score: Score) -> Score {
    if score > 0.0 && score.is_finite() {
        f32::from_bits(score.to_bits() & !((1u32 << SCORE_NOISE_BITS) - 1))
    } else {
        0.0
    }
}

/// Orders like the score (scores are never negative; -0.0 counts as 0).
pub(crate) fn score_key(score: Score) -> u64 {
    if score > 0.0 {
        score.to_bits() as u64
    } else {
        0
    }
}

pub(crate) fn ord(col: &Option<StrColumn>, doc: DocId) -> u64 {
    col.as_ref().and_then(|c| c.ords().first(doc)).unwrap_or(u64::MAX)
}

pub(crate) fn text(col: &Option<StrColumn>, ord: u64) -> String {
    let mut out = String::new();
    if let Some(c) = col {
        let _ = c.ord_to_str(ord, &mut out);
    }
    out
}
