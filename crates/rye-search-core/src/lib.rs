//! rye-search core: a Tantivy index of RYE items with an identifier-aware tokenizer, a small
//! boolean query language with ranked wildcard and fuzzy expansion, and exact tie-breaking.
//! No Node dependency: the napi binding only translates.

mod all_terms;
mod ascii;
mod collect;
mod error;
mod exact;
pub mod files;
mod hit_store;
mod index;
mod search;

mod order;
pub mod query;
mod recency;
mod schema;
pub mod semantic;
mod stem;
mod stored;
mod threads;
pub mod tokenizer;
pub mod wire;

pub use error::{contained, Error, Result};
pub use exact::meta_facet;
pub use index::{set_merge_guard, Batch, EncodingStatus, SearchIndex};
pub use schema::{version_number, SCHEMA_VERSION, TEXT_FIELDS};
pub use search::{stop_batches, MAX_FILTER_VALUES, MAX_LIMIT, MAX_OFFSET, MAX_PREVIEW_CHARS, MAX_PROXIMITY};
pub use wire::{
    Filter, Hit, ItemDoc, LikeRef, ManifestEntry, Matched, Mode, Scope, SearchRequest, SearchResponse, SortBy, Weights,
    MAX_ID_BYTES, MAX_KEY_BYTES,
};
