//! What crosses to the facade, in one place: the request it sends (`request`), the documents
//! it indexes (`document`), the answer it reads (`answer`), and a batch of answers framed as
//! JSON Lines (`batch`). `ts/wire.ts` mirrors these shapes; `tests/wire_keys.rs` holds the two
//! to the same keys.

pub mod answer;
pub mod batch;
pub mod document;
pub mod request;

pub use answer::{Counts, Hit, Matched, SearchResponse, ITEM_FIELDS};
pub use document::{ItemDoc, ManifestEntry};
pub use request::{Count, Filter, LikeRef, Mode, Scope, SearchRequest, SortBy, Weights};
