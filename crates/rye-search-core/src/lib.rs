//! rye-search core: a Tantivy index of RYE items with an identifier-aware tokenizer, a small
//! boolean query language with ranked wildcard and fuzzy expansion, and exact tie-breaking.
//! No Node dependency: the napi binding only translates.

mod all_terms;
mod ascii;
mod collect;
mod error;
pub mod files;
mod hit_store;
mod index;
mod memory_dir;
pub mod query;
mod recency;
mod schema;
pub mod semantic;
mod stem;
mod stored;
pub mod tokenizer;
pub mod wire;

pub use error::{contained, Error, Result};
pub use index::{meta_facet, Batch, SearchIndex, MAX_LIMIT, MAX_OFFSET};
pub use schema::{version_number, SCHEMA_VERSION, TEXT_FIELDS};
pub use wire::{
    Filter, Hit, ItemDoc, LikeRef, ManifestEntry, Matched, Mode, Scope, SearchRequest, SearchResponse, SortBy, Weights,
};
