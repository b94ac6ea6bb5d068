//! A static embedding model (model2vec style): one vector per WordPiece token; a text's vector is
//! the mean of its tokens' vectors, normalised. No network, no Python, no matrix library: a
//! lookup table and a sum, a few microseconds per item.
//!
//! File format (`model/*.rye-embed`, written by `scripts/model/build-model.py`), little-endian:
//! magic `RYEEMB01`, u32 dims, u32 vocabulary size, u32 id of `[UNK]`; the vocabulary as u16
//! length + UTF-8 bytes per token, in id order; then per token an f32 scale and `dims` i8 values.

use std::collections::HashMap;
use std::path::Path;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"RYEEMB01";
/// Tokens embedded per text: the start of an item says what it is about, and the cost of
/// embedding stays bounded whatever the item's size.
pub const MAX_TOKENS: usize = 256;
/// BERT's limit: a longer "word" (a hash, base64) is one unknown token.
const MAX_WORD_CHARS: usize = 100;

pub struct StaticModel {
    dims: usize,
    unk: u32,
    vocab: HashMap<String, u32>,
    /// `dims` i8 values per token.
    weights: Vec<i8>,
    scales: Vec<f32>,
}

fn corrupt(path: &Path, detail: &str) -> Error {
    Error::invalid(
        format!("the embedding model {} is not usable: {detail}", path.display()),
        "reinstall the package, or rebuild the model with scripts/model/build-model.py",
    )
}

impl StaticModel {
    pub fn load(path: &Path) -> Result<StaticModel> {
        let bytes = std::fs::read(path)?;
        Self::from_bytes(&bytes).map_err(|detail| corrupt(path, &detail))
    }

    pub fn from_bytes(bytes: &[u8]) -> std::result::Result<StaticModel, String> {
        let mut at = 0usize;
        let mut take = |n: usize| -> std::result::Result<&[u8], String> {
            let end = at.checked_add(n).filter(|e| *e <= bytes.len()).ok_or("the file is truncated")?;
            let slice = &bytes[at..end];
            at = end;
            Ok(slice)
        };
        if take(8)? != MAGIC {
            return Err("not a rye-search embedding model (wrong magic)".into());
        }
        let mut u32_at =
            || -> std::result::Result<u32, String> { Ok(u32::from_le_bytes(take(4)?.try_into().unwrap())) };
        let (dims, size, unk) = (u32_at()? as usize, u32_at()? as usize, u32_at()?);
        if dims == 0 || dims > 4096 || size == 0 || size > 1 << 22 || unk as usize >= size {
            return Err(format!("implausible header: {dims} dims, {size} tokens"));
        }
        let mut vocab = HashMap::with_capacity(size);
        for id in 0..size {
            let len = u16::from_le_bytes(take(2)?.try_into().unwrap()) as usize;
            let token = std::str::from_utf8(take(len)?).map_err(|_| "a token is not UTF-8")?;
            vocab.insert(token.to_owned(), id as u32);
        }
        let mut weights = Vec::with_capacity(size * dims);
        let mut scales = Vec::with_capacity(size);
        for _ in 0..size {
            scales.push(f32::from_le_bytes(take(4)?.try_into().unwrap()));
            weights.extend(take(dims)?.iter().map(|b| *b as i8));
        }
        if at != bytes.len() {
            return Err("trailing bytes after the weights".into());
        }
        Ok(StaticModel { dims, unk, vocab, weights, scales })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The unit vector of `text`, or `None` when no token of it is known.
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let mut sum = vec![0f32; self.dims];
        let mut n = 0usize;
        for id in self.token_ids(text).take(MAX_TOKENS) {
            let row = &self.weights[id as usize * self.dims..][..self.dims];
            let scale = self.scales[id as usize];
            for (s, w) in sum.iter_mut().zip(row) {
                *s += scale * *w as f32;
            }
            n += 1;
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        (n > 0 && norm > 0.0).then(|| sum.into_iter().map(|x| x / norm).collect())
    }

    /// BERT-uncased WordPiece ids of `text`, unknown pieces left out.
    fn token_ids<'a>(&'a self, text: &'a str) -> impl Iterator<Item = u32> + 'a {
        basic_words(text).flat_map(move |word| self.word_pieces(&word)).filter(move |id| *id != self.unk)
    }

    /// Greedy longest-match WordPiece: `[UNK]` for a word with a part no piece covers.
    fn word_pieces(&self, word: &str) -> Vec<u32> {
        if word.chars().count() > MAX_WORD_CHARS {
            return vec![self.unk];
        }
        let mut ids = Vec::new();
        let mut start = 0;
        let mut piece = String::new();
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while end > start {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[start..end]);
                if let Some(id) = self.vocab.get(piece.as_str()) {
                    found = Some(*id);
                    break;
                }
                end = word[..end].char_indices().next_back().map_or(start, |(i, _)| i);
            }
            match found {
                Some(id) => ids.push(id),
                None => return vec![self.unk],
            }
            start = end;
        }
        ids
    }
}

/// BERT's basic tokenizer: lowercase, accents stripped, split on white space and punctuation,
/// each CJK ideograph a word of its own, control characters dropped.
fn basic_words(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut words = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    for c in text.chars().flat_map(char::to_lowercase).nfd() {
        if is_combining_mark(c) || c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        if c.is_whitespace() {
            flush(&mut word, &mut words);
        } else if is_cjk(c) || c.is_ascii_punctuation() || !(c.is_alphanumeric() || c.is_ascii()) {
            flush(&mut word, &mut words);
            words.push(c.to_string());
        } else {
            word.push(c);
        }
        if words.len() > MAX_TOKENS {
            break;
        }
    }
    flush(&mut word, &mut words);
    words.into_iter()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> StaticModel {
        let vocab = ["[UNK]", "keep", "shell", "session", "##s", "running", "un", "##aff", "##able", "."];
        let mut bytes = MAGIC.to_vec();
        for n in [2u32, vocab.len() as u32, 0] {
            bytes.extend(n.to_le_bytes());
        }
        for t in vocab {
            bytes.extend((t.len() as u16).to_le_bytes());
            bytes.extend(t.as_bytes());
        }
        for i in 0..vocab.len() {
            bytes.extend(1f32.to_le_bytes());
            bytes.extend([i as u8, 1]);
        }
        StaticModel::from_bytes(&bytes).unwrap()
    }

    #[test]
    fn wordpiece_splits_greedily_and_drops_unknown_words() {
        let m = tiny();
        let ids: Vec<u32> = m.token_ids("Keep shell SESSIONS running. unaffable zzz").collect();
        assert_eq!(ids, vec![1, 2, 3, 4, 5, 9, 6, 7, 8]);
    }

    #[test]
    fn embeddings_are_unit_vectors_and_unknown_text_has_none() {
        let m = tiny();
        let v = m.embed("shell session").unwrap();
        assert!((v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(m.embed("zzz qqq").is_none());
        assert!(m.embed("").is_none());
    }

    #[test]
    fn damaged_files_are_refused_not_panicked_on() {
        // The bytes of a valid file, cut at every length.
        let vocab_file = {
            let mut b = MAGIC.to_vec();
            b.extend(2u32.to_le_bytes());
            b.extend(1u32.to_le_bytes());
            b.extend(0u32.to_le_bytes());
            b.extend(1u16.to_le_bytes());
            b.push(b'a');
            b.extend(1f32.to_le_bytes());
            b.extend([1, 2]);
            b
        };
        assert!(StaticModel::from_bytes(&vocab_file).is_ok());
        for cut in 0..vocab_file.len() {
            assert!(StaticModel::from_bytes(&vocab_file[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = vocab_file.clone();
        bad[8] = 0xFF;
        bad[11] = 0xFF;
        assert!(StaticModel::from_bytes(&bad).is_err());
    }
}
