//! Which vectors answer a search by meaning: the sentence encoder's once the index has settled
//! (every item it shows has one, see `index::encoding`), else the static model's. One search
//! uses one kind for its query and every item, so its similarities are comparable.

use std::sync::Arc;

use tantivy::{Searcher, SegmentReader};

use crate::error::Result;
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::semantic::{self, EncodedStore, Encoder, SegmentVectors, StaticModel};

/// Cosine similarity from which an item counts as found by meaning, with the static model's
/// vectors (whose similarities run high: averaged word vectors share a common direction).
const STATIC_MIN: f32 = 0.3;
/// The same with the sentence encoder's, whose unrelated texts sit near 0 (-0.1 to 0.1 for the
/// README's questions against unrelated items) and related ones from about 0.15 ("keep my shell
/// alive when ssh drops" against tmux's "terminal multiplexer … detach them and reattach them
/// later": 0.17).
const ENCODER_MIN: f32 = 0.15;

pub(crate) enum Meaning {
    Static(Arc<StaticModel>),
    Encoded(Arc<Encoder>, Arc<EncodedStore>),
}

impl SearchIndex {
    /// The vectors a search by meaning uses now; `None` when no model is loaded.
    pub(crate) fn meaning(&self, searcher: &Searcher) -> Option<Meaning> {
        if let Some((encoder, store)) = self.settled_encoder(searcher) {
            return Some(Meaning::Encoded(encoder, store));
        }
        semantic::model().map(Meaning::Static)
    }
}

impl Meaning {
    /// The query's vector, or `None` when the model knows none of its words.
    pub(crate) fn embed(&self, query: &str) -> Option<Vec<f32>> {
        match self {
            Meaning::Static(model) => model.embed(query),
            Meaning::Encoded(encoder, _) => encoder.embed(&[query], semantic::encoder::MAX_SEQUENCE).pop().flatten(),
        }
    }

    /// What the answer says answered: `static` or `encoder`.
    pub(crate) fn tier(&self) -> &'static str {
        match self {
            Meaning::Static(_) => "static",
            Meaning::Encoded(..) => "encoder",
        }
    }

    /// The similarity from which an item counts as found by meaning with these vectors.
    pub(crate) fn floor(&self) -> f32 {
        match self {
            Meaning::Static(_) => STATIC_MIN,
            Meaning::Encoded(..) => ENCODER_MIN,
        }
    }

    /// The item vectors of one segment of these.
    pub(crate) fn vectors(&self, parts: &SegmentParts, reader: &SegmentReader) -> Result<Arc<SegmentVectors>> {
        match self {
            Meaning::Static(model) => parts.vectors(reader, model.dims()),
            Meaning::Encoded(_, store) => parts.encoded_vectors(reader, store),
        }
    }
}
