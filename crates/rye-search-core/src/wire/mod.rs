//! What crosses to the facade, in one place: the request it sends (`request`), the documents
//! it indexes (`document`), the answer (`answer`), and answers as the Node API reads them,
//! sliced out of one string a search (`page`). `ts/wire.ts` mirrors these shapes;
//! `tests/wire_keys.rs` holds the two to the same keys and codes.

pub mod answer;
pub mod document;
pub mod page;
pub mod request;

pub use answer::{Counts, Hit, Matched, SearchResponse, ITEM_FIELDS};
pub use document::{ItemDoc, ManifestEntry, MAX_ID_BYTES, MAX_KEY_BYTES};
pub use request::{Count, Filter, LikeRef, Mode, Scope, SearchRequest, SortBy, Weights};
