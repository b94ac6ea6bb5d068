//! Item vectors as int8 with one scale each (a quarter of the f32 size; cosine error well under
//! 1%), kept in a bytes fast field and read into one flat array per segment on first use.

use tantivy::SegmentReader;

use crate::error::Result;

pub const VECTOR_FIELD: &str = "vector";

/// `v` as i8 values and the scale that maps them back (`x ≈ value × scale`).
pub fn quantized(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs())).max(f32::MIN_POSITIVE);
    let scale = max / 127.0;
    (v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect(), scale)
}

/// `v` (a unit vector) as stored: `dims` i8 values followed by its f32 scale.
pub fn quantize(v: &[f32]) -> Vec<u8> {
    let (values, scale) = quantized(v);
    let mut out: Vec<u8> = values.into_iter().map(|x| x as u8).collect();
    out.extend(scale.to_le_bytes());
    out
}

/// Every vector of one segment, by doc id; a doc without one (added without a model, or with no
/// known word) never matches semantically.
pub struct SegmentVectors {
    dims: usize,
    values: Vec<i8>,
    scales: Vec<f32>,
}

impl SegmentVectors {
    pub fn open(segment: &SegmentReader, dims: usize) -> Result<SegmentVectors> {
        let max_doc = segment.max_doc() as usize;
        let mut values = vec![0i8; max_doc * dims];
        let mut scales = vec![0f32; max_doc];
        if let Some(column) = segment.fast_fields().bytes(VECTOR_FIELD)? {
            // The dictionary is read once in order; docs then point into it by ordinal.
            let mut by_ord: Vec<Vec<u8>> = Vec::with_capacity(column.num_terms());
            let mut stream = column.dictionary().stream()?;
            while stream.advance() {
                by_ord.push(stream.key().to_vec());
            }
            for doc in 0..max_doc {
                let Some(ord) = column.ords().first(doc as u32) else { continue };
                let Some(bytes) = by_ord.get(ord as usize).filter(|b| b.len() == dims + 4) else { continue };
                for (slot, b) in values[doc * dims..][..dims].iter_mut().zip(&bytes[..dims]) {
                    *slot = *b as i8;
                }
                scales[doc] = f32::from_le_bytes(bytes[dims..].try_into().unwrap());
            }
        }
        Ok(SegmentVectors { dims, values, scales })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The stored vector of `doc`, back as f32; None for a doc without one.
    pub fn vector(&self, doc: u32) -> Option<Vec<f32>> {
        let doc = doc as usize;
        let scale = *self.scales.get(doc).filter(|s| **s != 0.0)?;
        Some(self.values[doc * self.dims..][..self.dims].iter().map(|v| *v as f32 * scale).collect())
    }

    /// Cosine similarities of `docs` with the quantized query (`query_scale` from [`quantized`]),
    /// one per doc into `out`: the semantic scan's inner loop, a block of candidates at a time.
    pub fn similarities(&self, docs: &[u32], query: &[i8], query_scale: f32, out: &mut Vec<f32>) {
        out.clear();
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.similarities_avx2(docs, query, query_scale, out) };
        }
        self.similarities_portable(docs, query, query_scale, out)
    }

    #[inline(always)]
    fn similarities_portable(&self, docs: &[u32], query: &[i8], query_scale: f32, out: &mut Vec<f32>) {
        for &doc in docs {
            let doc = doc as usize;
            let row = &self.values[doc * self.dims..][..self.dims];
            // A doc without a vector has scale 0, so similarity 0.
            out.push(dot_portable(row, query) as f32 * self.scales[doc] * query_scale);
        }
    }

    /// The same loop compiled for AVX2 (sign-extend and multiply-add 16 pairs at a time): the
    /// package is built for baseline x86-64 (SSE2), where it ran about twice as slow.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn similarities_avx2(&self, docs: &[u32], query: &[i8], query_scale: f32, out: &mut Vec<f32>) {
        self.similarities_portable(docs, query, query_scale, out)
    }
}

#[inline(always)]
fn dot_portable(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(x, y)| *x as i32 * *y as i32).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarities_agree_with_a_plain_dot_product() {
        for dims in [1, 15, 16, 33, 256, 300] {
            let row = |seed: usize| -> Vec<i8> { (0..dims).map(|i| ((i * seed % 255) as i32 - 127) as i8).collect() };
            let vectors = SegmentVectors { dims, values: [row(37), row(53)].concat(), scales: vec![0.5, 0.0] };
            let query = row(91);
            let mut out = Vec::new();
            vectors.similarities(&[0, 1], &query, 2.0, &mut out);
            let expected: i32 = row(37).iter().zip(&query).map(|(x, y)| *x as i32 * *y as i32).sum();
            // The second doc has no vector (scale 0).
            assert_eq!(out, [expected as f32, 0.0]);
        }
    }

    #[test]
    fn quantized_vectors_keep_their_cosine() {
        let a: Vec<f32> = (0..64).map(|i| ((i * 7 % 13) as f32 - 6.0) / 20.0).collect();
        let norm = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        let a: Vec<f32> = a.iter().map(|x| x / norm).collect();
        let q = quantize(&a);
        let scale = f32::from_le_bytes(q[64..].try_into().unwrap());
        let back: f32 = q[..64].iter().zip(&a).map(|(b, x)| (*b as i8) as f32 * scale * x).sum();
        assert!((back - 1.0).abs() < 0.01, "{back}");
    }
}
