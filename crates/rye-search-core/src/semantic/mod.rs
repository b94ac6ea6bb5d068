//! Semantic search: a static embedding model loaded once per process (optional: without it every
//! search is keyword-only), item vectors stored with the index, and a scan over the items a
//! search's filters let through: exact, or (hybrid, `like`) first shortlisted by sign codes.

mod codes;
pub mod encoded;
pub mod encoder;
mod model;
mod vectors;
mod wordpiece;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

pub use codes::SignCodes;
pub use encoded::EncodedStore;
pub use encoder::Encoder;
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

/// The sentence encoder's file and, once read, what reading it gave.
#[derive(Default)]
struct EncoderSlot {
    path: Option<PathBuf>,
    loaded: Option<std::result::Result<Arc<Encoder>, String>>,
}

static ENCODER: Mutex<EncoderSlot> = Mutex::new(EncoderSlot { path: None, loaded: None });

/// Names the sentence encoder indexes encode with in the background (`None`: none). Nothing is
/// read here: the first background encoding reads it, so opening an index never waits for it.
pub fn use_encoder(path: Option<&Path>) {
    *ENCODER.lock().unwrap_or_else(|e| e.into_inner()) =
        EncoderSlot { path: path.map(Path::to_path_buf), loaded: None };
}

const NO_ENCODER: &str = "no sentence encoder is set (RYE_SEARCH_ENCODER=off)";

/// Why no sentence encoder will encode, when that is known without reading anything: none is
/// set, or reading it failed already. `None`: it may (it is read on first use).
pub fn encoder_unavailable() -> Option<String> {
    let slot = ENCODER.lock().unwrap_or_else(|e| e.into_inner());
    match (&slot.path, &slot.loaded) {
        (None, _) => Some(NO_ENCODER.into()),
        (_, Some(Err(why))) => Some(why.clone()),
        _ => None,
    }
}

/// The sentence encoder, read on first use (a few hundred milliseconds), or why there is none.
pub fn encoder() -> std::result::Result<Arc<Encoder>, String> {
    let mut slot = ENCODER.lock().unwrap_or_else(|e| e.into_inner());
    if slot.loaded.is_none() {
        let loaded = match &slot.path {
            None => Err(NO_ENCODER.to_string()),
            Some(path) => Encoder::load(path).map(Arc::new).map_err(|e| e.to_string()),
        };
        slot.loaded = Some(loaded);
    }
    slot.loaded.clone().expect("set just above")
}

/// The sentence encoder if it has been read already (searches never wait for it).
pub fn loaded_encoder() -> Option<Arc<Encoder>> {
    match &ENCODER.lock().unwrap_or_else(|e| e.into_inner()).loaded {
        Some(Ok(encoder)) => Some(encoder.clone()),
        _ => None,
    }
}

/// Characters of content embedded after the item's title, name, description and tags: what an
/// item is about is said at its start.
const CONTENT_CHARS: usize = 600;

/// Bytes of an item's text the sentence encoder may read: more than the tokens it reads of an
/// item ever take.
const MEANING_BYTES: usize = 2048;

/// What the sentence encoder reads of an item: its title, its name when that says something
/// else, its description and the start of its content. Not its tags: in many corpora they are
/// facets (Debian's `role::program, interface::commandline`) that took a third of the tokens read
/// and pulled items together by form, not meaning (paraphrased Debian needs against 6,040
/// packages with sentence-transformers: MRR@10 0.495 with tags, 0.590 without, same top 10).
///
/// Made from what the index stores (the item's title, name and description as its stored item
/// holds them, `content` in stored form, `stored::shown_text`): an index writes only the text's
/// key, and the encoding makes the text again from the stored document. Storing the text too
/// took 28% of an index (c60k: 89 MB, 64 MB without it; ~385 MB at a million items).
pub fn meaning_text(title: &str, name: &str, description: &str, content: &str) -> String {
    let mut text = String::with_capacity(512);
    let name = Some(name).filter(|n| !n.eq_ignore_ascii_case(title));
    for part in [Some(title), name, Some(description)].into_iter().flatten() {
        if !part.is_empty() {
            text.push_str(part);
            text.push_str(". ");
        }
    }
    let cut = content.char_indices().nth(CONTENT_CHARS).map_or(content.len(), |(i, _)| i);
    text.push_str(&content[..cut]);
    let mut end = text.len().min(MEANING_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

/// The key an item's encoded vector is kept by: FNV-1a (64 bits) of its meaning text, never 0
/// (0 is "no text"). Written into indexes and vector files, so it never changes between builds
/// (std's hasher may).
pub fn meaning_key(text: &str) -> u64 {
    if text.is_empty() {
        return 0;
    }
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    hash.max(1)
}

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
