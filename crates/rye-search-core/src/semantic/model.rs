//! A static embedding model (model2vec style): one vector per WordPiece token; a text's vector is
//! the mean of its tokens' vectors, normalised. No network, no Python, no matrix library: a
//! lookup table and a sum, a few microseconds per item.
//!
//! File format (`model/*.rye-embed`, written by `scripts/model/build-model.py`), little-endian:
//! magic `RYEEMB01`, u32 dims, u32 vocabulary size, u32 id of `[UNK]`; the vocabulary as u16
//! length + UTF-8 bytes per token, in id order; then per token an f32 scale and `dims` i8 values.

use std::path::Path;

use rustc_hash::FxHashMap;

use super::wordpiece::{Unknown, WordPiece};
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

pub struct StaticModel {
    dims: usize,
    pieces: WordPiece,
    /// `dims` i8 values per token.
    weights: Vec<i8>,
    scales: Vec<f32>,
    /// Dimensions, tokens and a hash of the file's bytes: vectors are comparable only with
    /// vectors of the same model.
    identity: String,
}

/// The bytes of a model file (either model's): a regular file of at most [`MAX_MODEL_BYTES`] (a
/// FIFO is refused, never waited on; a device such as `/dev/zero` never read), or why not.
pub(super) fn model_bytes(path: &Path) -> std::result::Result<Vec<u8>, String> {
    match files::read(path, MAX_MODEL_BYTES) {
        FileRead::Bytes(bytes) => Ok(bytes),
        FileRead::TooLarge(size) => Err(format!("{size} bytes is over the {MAX_MODEL_BYTES}-byte cap")),
        FileRead::NotRegular | FileRead::Outside(_) => Err("not a regular file".into()),
        FileRead::Failed { message, .. } => Err(message),
    }
}

fn corrupt(path: &Path, detail: &str) -> Error {
    Error::invalid(
        format!("the embedding model {} is not usable: {detail}", path.display()),
        "reinstall the package, or rebuild the model with scripts/model/build-model.py",
    )
}

impl StaticModel {
    /// Loads a model file (see [`model_bytes`]).
    pub fn load(path: &Path) -> Result<StaticModel> {
        let bytes = model_bytes(path).map_err(|detail| corrupt(path, &detail))?;
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
        Ok(StaticModel { dims, pieces: WordPiece::new(vocab, unk), weights, scales, identity })
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
        let ids = self.pieces.ids(text, MAX_TOKENS, Unknown::Drop);
        let mut sum = vec![0f32; self.dims];
        let rows: Vec<(f32, &[i8])> = ids.iter().map(|&id| (self.scales[id as usize], self.row(id))).collect();
        rows::add_up(&mut sum, &rows);
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        (!ids.is_empty() && norm > 0.0).then(|| sum.into_iter().map(|x| x / norm).collect())
    }

    fn row(&self, id: u32) -> &[i8] {
        &self.weights[id as usize * self.dims..][..self.dims]
    }
}

/// Sums of scaled token vectors, the most of what embedding an item costs, in the widest vectors
/// the CPU has. Each lane adds its rows in the same order on every path, so every path gives the
/// same bits.
mod rows {
    /// Dimensions summed over every row at a time: their sums stay in registers (eight of AVX2's
    /// sixteen) while the rows are read, instead of being loaded and stored again for each row:
    /// a fifth fewer instructions (10,000 Debian texts embedded six times by
    /// `examples/static_embed_speed.rs` under callgrind: 1,216M → 953M).
    const BLOCK: usize = 64;

    pub fn add_up(sum: &mut [f32], rows: &[(f32, &[i8])]) {
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
    unsafe fn add_up_avx2(sum: &mut [f32], rows: &[(f32, &[i8])]) {
        add_up_portable(sum, rows)
    }

    #[inline(always)]
    fn add_up_portable(sum: &mut [f32], rows: &[(f32, &[i8])]) {
        let whole = sum.len() / BLOCK * BLOCK;
        for (k, block) in sum.chunks_exact_mut(BLOCK).enumerate() {
            let mut acc = [0f32; BLOCK];
            acc.copy_from_slice(block);
            for (scale, row) in rows {
                // A row shorter than the sum (never, from a model's table) is left out of the
                // blocks it does not fill.
                let Some(row) = row.get(k * BLOCK..(k + 1) * BLOCK).and_then(|r| <&[i8; BLOCK]>::try_from(r).ok())
                else {
                    continue;
                };
                for (s, w) in acc.iter_mut().zip(row) {
                    *s += scale * f32::from(*w);
                }
            }
            block.copy_from_slice(&acc);
        }
        for (scale, row) in rows {
            for (s, w) in sum[whole..].iter_mut().zip(row.get(whole..).unwrap_or_default()) {
                *s += scale * f32::from(*w);
            }
        }
    }
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

    #[test]
    fn sums_in_blocks_are_the_row_by_row_sums_bit_for_bit() {
        // Two blocks and a tail, rows of every value and scales of several magnitudes.
        let dims = 2 * 64 + 5;
        let rows: Vec<(f32, Vec<i8>)> = (0..37)
            .map(|t| (0.001 * (t as f32 + 1.0).powi(3), (0..dims).map(|d| ((t * 31 + d * 17) % 255) as i8).collect()))
            .collect();
        let borrowed: Vec<(f32, &[i8])> = rows.iter().map(|(s, r)| (*s, r.as_slice())).collect();
        let mut blocked = vec![0f32; dims];
        rows::add_up(&mut blocked, &borrowed);
        let mut plain = vec![0f32; dims];
        for (scale, row) in &rows {
            for (s, w) in plain.iter_mut().zip(row) {
                *s += scale * f32::from(*w);
            }
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&blocked), bits(&plain));
    }
}
