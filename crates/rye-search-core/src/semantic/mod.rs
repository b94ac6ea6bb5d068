//! Semantic search: a static embedding model loaded once per process (optional: without it every
//! search is keyword-only), item vectors stored with the index, and a scan over the items a
//! search's filters let through: exact, or (hybrid, `like`) first shortlisted by sign codes.

mod codes;
pub mod encoder;
mod model;
mod vectors;
mod wordpiece;

use std::path::Path;
use std::sync::{Arc, RwLock};

pub use codes::SignCodes;
pub use model::StaticModel;
pub use vectors::{quantize, quantized, SegmentVectors, VECTOR_FIELD};

use crate::error::Result;
use crate::wire::ItemDoc;

static MODEL: RwLock<Option<Arc<StaticModel>>> = RwLock::new(None);

/// Loads the model every index of this process embeds with; returns its identity (see
/// [`StaticModel::identity`]): an index's vectors belong to the model that made them.
pub fn load_model(path: &Path) -> Result<String> {
    let model = Arc::new(StaticModel::load(path)?);
    let identity = model.identity().to_string();
    *MODEL.write().unwrap_or_else(|e| e.into_inner()) = Some(model);
    Ok(identity)
}

pub fn model() -> Option<Arc<StaticModel>> {
    MODEL.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Characters of content embedded after the item's title, name, description and tags: what an
/// item is about is said at its start.
const CONTENT_CHARS: usize = 600;

/// The text an item is embedded from.
pub fn item_text(d: &ItemDoc) -> String {
    let mut text = String::with_capacity(1024);
    for part in [&d.title, &d.name, &d.description] {
        if !part.is_empty() {
            text.push_str(part);
            text.push_str(". ");
        }
    }
    if let Some(tags) = d.meta.get("tags") {
        text.push_str(&tags.join(", "));
        text.push_str(". ");
    }
    let cut = d.content.char_indices().nth(CONTENT_CHARS).map_or(d.content.len(), |(i, _)| i);
    text.push_str(&d.content[..cut]);
    text
}
