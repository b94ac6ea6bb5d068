//! What searches read of a segment besides its postings, opened once per segment and kept while
//! it lives (segments are immutable, so never stale): sort columns, the hit store, the all-terms
//! dictionary, per-field dictionaries, and item vectors on the first semantic search.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use tantivy::index::SegmentId;
use tantivy::{IndexReader, Searcher, SegmentReader};

use super::SearchIndex;
use crate::all_terms::LazyAllTerms;
use crate::error::Result;
use crate::hit_store::HitStore;
use crate::order::{SortColumns, StoredIds};
use crate::query::dictionaries::Dictionaries;
use crate::semantic::{EncodedStore, SegmentVectors};

/// What searches read of one segment besides its postings, opened once (opening the columns
/// costs more than a rare-term query).
pub(crate) struct SegmentParts {
    pub(crate) columns: Arc<SortColumns>,
    pub(crate) store: Arc<HitStore>,
    pub(crate) all_terms: LazyAllTerms,
    pub(crate) dictionaries: Dictionaries,
    pub(crate) vectors: VectorsCell,
    /// The sentence encoder's vectors, read once the index has settled.
    pub(crate) encoded: VectorsCell,
}

/// What searches read of the segments searched lately, by segment; segments are immutable, so
/// never stale. Shared with the merges, which prune it when they reload the reader: it holds its
/// segments' files, and pruned only by the next search, it kept every segment merges replaced
/// until something searched again (after a run of adds with searches, the whole index twice).
#[derive(Clone, Default)]
pub(crate) struct PartsCache(Arc<Mutex<Parts>>);

type Parts = HashMap<SegmentId, Arc<SegmentParts>>;

impl PartsCache {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Parts> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reloads `reader` and forgets the parts of segments it no longer sees.
    pub(crate) fn reload(&self, reader: &IndexReader) -> tantivy::Result<()> {
        reader.reload()?;
        keep_only(&mut self.lock(), reader.searcher().segment_readers());
        Ok(())
    }
}

/// Forgets the parts of every segment but `segments`.
fn keep_only(parts: &mut Parts, segments: &[SegmentReader]) {
    parts.retain(|id, _| segments.iter().any(|s| s.segment_id() == *id));
}

impl SearchIndex {
    /// What searches read of each segment of `searcher`, opened on first use.
    pub(crate) fn segment_parts(&self, searcher: &Searcher) -> Result<Vec<Arc<SegmentParts>>> {
        let mut cache = self.segments.lock();
        let segments = searcher.segment_readers();
        if segments.iter().any(|s| !cache.contains_key(&s.segment_id())) {
            keep_only(&mut cache, segments);
            for s in segments {
                if let Entry::Vacant(slot) = cache.entry(s.segment_id()) {
                    let store = Arc::new(HitStore::open(&self.index, s)?);
                    let stored_ids = StoredIds { store: store.clone(), id_field: self.fields.id.field_id() };
                    slot.insert(Arc::new(SegmentParts {
                        columns: Arc::new(SortColumns::open(s, Some(stored_ids))?),
                        store,
                        all_terms: LazyAllTerms::new(&self.fields.text),
                        dictionaries: Dictionaries::open(s, &self.fields.looked_up())?,
                        vectors: Default::default(),
                        encoded: Default::default(),
                    }));
                }
            }
        }
        Ok(segments.iter().map(|s| cache[&s.segment_id()].clone()).collect())
    }
}

impl SegmentParts {
    /// This segment's item vectors, read on the first semantic search.
    pub(crate) fn vectors(&self, reader: &SegmentReader, dims: usize) -> Result<Arc<SegmentVectors>> {
        if let Some(v) = self.vectors.get().filter(|v| v.dims() == dims) {
            return Ok(v.clone());
        }
        let v = Arc::new(SegmentVectors::open(reader, dims)?);
        let _ = self.vectors.set(v.clone());
        Ok(v)
    }
}

impl SegmentParts {
    /// This segment's sentence-encoder vectors from `store`, read on the first search that uses
    /// them. Only a settled index uses them, so every item of the segment has one then, and
    /// always will (segments never change; a vector never changes for its key).
    pub(crate) fn encoded_vectors(&self, reader: &SegmentReader, store: &EncodedStore) -> Result<Arc<SegmentVectors>> {
        if let Some(v) = self.encoded.get() {
            return Ok(v.clone());
        }
        let v = Arc::new(SegmentVectors::from_store(reader, store)?);
        let _ = self.encoded.set(v.clone());
        Ok(v)
    }
}

/// Empty until the first semantic search of a segment.
pub(crate) type VectorsCell = OnceLock<Arc<SegmentVectors>>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{ItemDoc, SearchRequest};

    fn bulk_add(index: &SearchIndex, part: usize) {
        let docs: Vec<ItemDoc> = (0..300)
            .map(|i| {
                serde_json::from_value(serde_json::json!({
                    "key": format!("p{part}/item{i}"), "id": format!("p{part}/item{i}"), "kind": "tool",
                    "space": "project", "name": format!("item{i}"), "title": "merged away",
                }))
                .unwrap()
            })
            .collect();
        let mut batch = index.batch_for(docs.len()).unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    }

    /// Searches between bulk adds open parts of each segment; the merges after the adds replace
    /// those segments, and what was opened of them goes with them, not at the next search.
    #[test]
    fn merges_forget_what_searches_opened_of_the_segments_they_replaced() {
        let index = SearchIndex::in_memory().unwrap();
        let search = || index.search(&SearchRequest { query: "merged".into(), ..Default::default() }).unwrap();
        for part in 0..6 {
            bulk_add(&index, part);
            assert_eq!(search().total, 300 * (part + 1));
        }
        assert_eq!(index.segments.lock().len(), 6);
        index.settle_merges().unwrap();
        assert_eq!(index.num_segments(), 1);
        assert!(index.segments.lock().is_empty(), "{} segments' parts kept", index.segments.lock().len());
        assert_eq!(search().total, 1800);
        assert_eq!(index.segments.lock().len(), 1);
    }
}
