//! A static embedding model (model2vec style): one vector per WordPiece token; a text's vector is
//! the mean of its tokens' vectors, normalised. No network, no Python, no matrix library: a
//! lookup table and a sum, a few microseconds per item.
//!
//! File format (`model/*.rye-embed`, written by `scripts/model/build-model.py`), little-endian:
//! magic `RYEEMB01`, u32 dims, u32 vocabulary size, u32 id of `[UNK]`; the vocabulary as u16
//! length + UTF-8 bytes per token, in id order; then per token an f32 scale and `dims` i8 values.

use std::path::Path;

use rustc_hash::FxHashMap;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::error::{Error, Result};
use crate::files::{self, FileRead};

const MAGIC: &[u8; 8] = b"RYEEMB01";
/// The largest model file read: the shipped one is 7.9 MB, a 4096-dimension model of 64k tokens
/// would be 270 MB. A larger file (or a device posing as one) is refused before it is read.
pub const MAX_MODEL_BYTES: u64 = 512 << 20;
/// Bytes of a file header: magic, dims, vocabulary size, id of `[UNK]`.
const HEADER_BYTES: usize = 8 + 3 * 4;
/// Tokens embedded per text: the start of an item says what it is about, and the cost of
/// embedding stays bounded whatever the item's size.
pub const MAX_TOKENS: usize = 256;
/// BERT's limit: a longer "word" (a hash, base64) is one unknown token.
const MAX_WORD_CHARS: usize = 100;

pub struct StaticModel {
    dims: usize,
    unk: u32,
    /// Looked up for every word of every item embedded: a fast hash (the keys are the model's
    /// own, so no caller can choose colliding ones).
    vocab: FxHashMap<String, u32>,
    /// `dims` i8 values per token.
    weights: Vec<i8>,
    scales: Vec<f32>,
    /// Dimensions, tokens and a hash of the file's bytes: vectors are comparable only with
    /// vectors of the same model.
    identity: String,
}

fn corrupt(path: &Path, detail: &str) -> Error {
    Error::invalid(
        format!("the embedding model {} is not usable: {detail}", path.display()),
        "reinstall the package, or rebuild the model with scripts/model/build-model.py",
    )
}

impl StaticModel {
    /// Loads a regular file of at most [`MAX_MODEL_BYTES`]: a FIFO is refused, never waited on,
    /// and a device (`/dev/zero`) never read.
    pub fn load(path: &Path) -> Result<StaticModel> {
        let bytes = match files::read(path, MAX_MODEL_BYTES) {
            FileRead::Bytes(bytes) => bytes,
            FileRead::TooLarge(size) => {
                return Err(corrupt(path, &format!("{size} bytes is over the {MAX_MODEL_BYTES}-byte cap")))
            }
            FileRead::NotRegular | FileRead::Outside(_) => return Err(corrupt(path, "not a regular file")),
            FileRead::Failed { message, .. } => return Err(corrupt(path, &message)),
        };
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
        // Every token takes at least its length, scale and weights: a header that claims more
        // than the file holds is refused before anything is reserved for it.
        let least = size.checked_mul(2 + 4 + dims).and_then(|b| b.checked_add(HEADER_BYTES));
        if least.is_none_or(|least| least > bytes.len()) {
            return Err(format!(
                "the header claims {dims} dims × {size} tokens, more than the file's {} bytes",
                bytes.len()
            ));
        }
        let mut vocab = FxHashMap::with_capacity_and_hasher(size, Default::default());
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
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hasher::write(&mut hasher, bytes);
        let identity = format!("{dims}d{size}t-{:016x}", std::hash::Hasher::finish(&hasher));
        Ok(StaticModel { dims, unk, vocab, weights, scales, identity })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// What tells this model's vectors from another's (see [`StaticModel::identity`]'s field).
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The unit vector of `text`, or `None` when no token of it is known.
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let ids = self.token_ids(text);
        let mut sum = vec![0f32; self.dims];
        rows::add_up(&mut sum, ids.iter().map(|&id| (self.scales[id as usize], self.row(id))));
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        (!ids.is_empty() && norm > 0.0).then(|| sum.into_iter().map(|x| x / norm).collect())
    }

    fn row(&self, id: u32) -> &[i8] {
        &self.weights[id as usize * self.dims..][..self.dims]
    }

    /// BERT-uncased WordPiece ids of `text`, unknown pieces left out, the first [`MAX_TOKENS`].
    fn token_ids(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::with_capacity(MAX_TOKENS);
        let mut piece = String::new();
        for word in basic_words(text) {
            self.push_pieces(&word, &mut piece, &mut ids);
            if ids.len() >= MAX_TOKENS {
                ids.truncate(MAX_TOKENS);
                break;
            }
        }
        ids
    }

    /// Greedy longest-match WordPiece: the ids of `word`'s pieces pushed to `ids`, or none when a
    /// part of it no piece covers (the word is `[UNK]`). `piece`: room to spell each piece tried
    /// in, kept from word to word.
    fn push_pieces(&self, word: &str, piece: &mut String, ids: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            return;
        }
        let before = ids.len();
        let mut start = 0;
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
                Some(id) if id != self.unk => ids.push(id),
                Some(_) => {}
                None => return ids.truncate(before),
            }
            start = end;
        }
    }
}

/// BERT's basic tokenizer: lowercase, accents stripped, split on white space and punctuation,
/// each CJK ideograph a word of its own, control characters dropped.
fn basic_words(text: &str) -> impl Iterator<Item = String> + '_ {
    let words = match text.is_ascii() {
        true => ascii_words(text.as_bytes()),
        false => words_of(text.chars().flat_map(char::to_lowercase).nfd()),
    };
    words.into_iter()
}

/// [`words_of`] for ASCII text, a byte at a time: no accent to strip, nothing to decompose, no
/// CJK (most items are ASCII, and the Unicode path cost a fifth of embedding one).
fn ascii_words(text: &[u8]) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for &b in text {
        // A vertical tab is white space to Unicode, not to `is_ascii_whitespace`.
        if b.is_ascii_whitespace() || b == 0x0B {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else if b.is_ascii_control() {
            continue;
        } else if b.is_ascii_punctuation() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            words.push(char::from(b).to_string());
        } else {
            word.push(char::from(b.to_ascii_lowercase()));
        }
        if words.len() > MAX_TOKENS {
            break;
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The words of lower-cased, decomposed characters (see [`basic_words`]).
fn words_of(chars: impl Iterator<Item = char>) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    for c in chars {
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
    words
}

/// Sums of scaled token vectors, the most of what embedding an item costs, in the widest vectors
/// the CPU has. Each lane adds its rows in the same order on every path, so every path gives the
/// same bits.
mod rows {
    pub fn add_up<'a>(sum: &mut [f32], rows: impl Iterator<Item = (f32, &'a [i8])>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { add_up_avx2(sum, rows) };
        }
        add_up_portable(sum, rows)
    }

    /// # Safety
    /// The CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn add_up_avx2<'a>(sum: &mut [f32], rows: impl Iterator<Item = (f32, &'a [i8])>) {
        add_up_portable(sum, rows)
    }

    #[inline(always)]
    fn add_up_portable<'a>(sum: &mut [f32], rows: impl Iterator<Item = (f32, &'a [i8])>) {
        for (scale, row) in rows {
            for (s, w) in sum.iter_mut().zip(row) {
                *s += scale * f32::from(*w);
            }
        }
    }
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
        let ids = m.token_ids("Keep shell SESSIONS running. unaffable zzz");
        assert_eq!(ids, vec![1, 2, 3, 4, 5, 9, 6, 7, 8]);
    }

    #[test]
    fn ascii_text_splits_as_the_unicode_path_splits_it() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..20_000 {
            // Every ASCII byte, letters and spaces more often; long texts reach the word cap.
            let len = (next() % if case % 50 == 0 { 3000 } else { 120 }) as usize;
            let text: String = (0..len)
                .map(|_| match next() % 4 {
                    0 => ' ',
                    1 => char::from(b'A' + (next() % 26) as u8),
                    2 => char::from(b'a' + (next() % 26) as u8),
                    _ => char::from((next() % 128) as u8),
                })
                .collect();
            let unicode = words_of(text.chars().flat_map(char::to_lowercase).nfd());
            assert_eq!(ascii_words(text.as_bytes()), unicode, "{text:?}");
        }
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
