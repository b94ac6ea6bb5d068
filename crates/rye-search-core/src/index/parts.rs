//! What searches read of a segment besides its postings, opened once per segment and kept while
//! it lives (segments are immutable, so never stale): sort columns, the hit store, the all-terms
//! dictionary, per-field dictionaries, and item vectors on the first semantic search.

use std::collections::hash_map::Entry;
use std::sync::{Arc, OnceLock};

use tantivy::SegmentReader;

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

impl SearchIndex {
    /// What searches read of each segment of `searcher`, opened on first use.
    pub(crate) fn segment_parts(&self, searcher: &tantivy::Searcher) -> Result<Vec<Arc<SegmentParts>>> {
        let mut cache = self.segments.lock().unwrap_or_else(|e| e.into_inner());
        let segments = searcher.segment_readers();
        if segments.iter().any(|s| !cache.contains_key(&s.segment_id())) {
            cache.retain(|id, _| segments.iter().any(|s| s.segment_id() == *id));
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
