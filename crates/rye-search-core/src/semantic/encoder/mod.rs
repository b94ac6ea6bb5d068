//! A transformer sentence encoder (all-MiniLM-L6-v2 by default): better vectors than the static
//! model, at a cost of milliseconds a text instead of microseconds, so items are embedded with
//! it in the background (see `crate::encoding`) while the static model answers at once.

mod bert;
mod file;
mod int8;
mod kernels;

use std::path::Path;

use super::model::model_bytes;
use super::wordpiece::{Unknown, WordPiece};
use crate::error::{Error, Result};

/// Tokens a text may keep, `[CLS]` and `[SEP]` included: the length the model was trained at
/// (its tokenizer's own limit), and what bounds a text's cost.
pub const MAX_SEQUENCE: usize = 128;

pub struct Encoder {
    bert: bert::Bert,
    pieces: WordPiece,
    identity: String,
}

fn corrupt(path: &Path, detail: &str) -> Error {
    Error::invalid(
        format!("the sentence encoder {} is not usable: {detail}", path.display()),
        "reinstall the package, rebuild it with scripts/model/build-encoder.py, or set RYE_SEARCH_ENCODER=off",
    )
}

impl Encoder {
    /// Loads an encoder file (a regular file under the models' size cap).
    pub fn load(path: &Path) -> Result<Encoder> {
        let bytes = model_bytes(path).map_err(|detail| corrupt(path, &detail))?;
        Self::from_bytes(&bytes).map_err(|detail| corrupt(path, &detail))
    }

    /// The encoder in `bytes`, multiplying in int8 where the CPU has AVX-512 VNNI (vectors within
    /// a cosine of 0.99 of f32's), else in f32.
    pub fn from_bytes(bytes: &[u8]) -> std::result::Result<Encoder, String> {
        Self::with_precision(bytes, true)
    }

    /// The encoder in `bytes`, in int8 where the CPU allows and `int8` asks, else in f32 (the
    /// reference the int8 path is measured against: `examples/encoder_precision.rs`).
    pub fn with_precision(bytes: &[u8], int8: bool) -> std::result::Result<Encoder, String> {
        let parsed = file::parse(bytes)?;
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hasher::write(&mut hasher, bytes);
        let identity = format!(
            "enc{}d{}l-{:016x}",
            parsed.config.hidden,
            parsed.config.layers,
            std::hash::Hasher::finish(&hasher)
        );
        let pieces = WordPiece::new(parsed.vocab.clone(), parsed.config.unk);
        Ok(Encoder { bert: bert::Bert::new(parsed, int8), pieces, identity })
    }

    pub fn dims(&self) -> usize {
        self.bert.config.hidden
    }

    /// What tells this encoder's vectors from another's.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// Whether the vocabulary holds a piece of any word of `text` (not only `[UNK]`).
    pub fn knows_a_word(&self, text: &str) -> bool {
        !self.pieces.ids(text, MAX_SEQUENCE, Unknown::Drop).is_empty()
    }

    /// The unit vector of each text, its first `tokens` tokens (at most [`MAX_SEQUENCE`]), or
    /// `None` for a text with no words. One thread; the cost grows with the tokens.
    pub fn embed(&self, texts: &[&str], tokens: usize) -> Vec<Option<Vec<f32>>> {
        let limit = tokens.clamp(3, MAX_SEQUENCE.min(self.bert.config.positions));
        let sequences: Vec<Option<Vec<u32>>> = texts
            .iter()
            .map(|t| {
                let ids = self.pieces.ids(t, limit - 2, Unknown::Keep);
                (!ids.is_empty()).then(|| {
                    let mut seq = Vec::with_capacity(ids.len() + 2);
                    seq.push(self.bert.config.cls);
                    seq.extend(ids);
                    seq.push(self.bert.config.sep);
                    seq
                })
            })
            .collect();
        let present: Vec<Vec<u32>> = sequences.iter().flatten().cloned().collect();
        let mut vectors = self.bert.embed(&present).into_iter();
        sequences.iter().map(|s| s.as_ref().and_then(|_| vectors.next())).collect()
    }
}

#[cfg(test)]
mod tests;
