//! Sign codes: one bit per dimension of each item vector, set where it lies above the segment's
//! mean vector. Comparing codes (differing bits) reads 32 bytes of a 256-dimension item instead
//! of 256, so a long scan first keeps the items whose codes agree most with the query's and
//! computes the exact similarity of those alone. Centring matters: static embeddings share a
//! large common direction (the mean of the Debian items has norm 0.72), which would set most
//! bits the same for every item.

use rayon::prelude::*;

/// Quantised vectors, a row a document, as codes are made from them (a segment's vectors).
pub trait QuantizedRows: Sync {
    fn dims(&self) -> usize;
    fn max_doc(&self) -> usize;
    /// The stored values of `doc`'s vector and their scale; None for a doc without one.
    fn raw(&self, doc: usize) -> Option<(&[i8], f32)>;
}

/// The sign codes of one segment's vectors.
pub struct SignCodes {
    /// 64-bit words per item.
    words: usize,
    /// The segment's mean vector (over the items that have one).
    mean: Vec<f32>,
    codes: Vec<u64>,
    /// Items without a vector: never shortlisted.
    missing: Vec<bool>,
    any_missing: bool,
}

impl SignCodes {
    /// Bytes these codes hold.
    pub fn bytes(&self) -> u64 {
        (self.mean.len() * 4 + self.codes.len() * 8 + self.missing.len()) as u64
    }

    pub fn of(vectors: &impl QuantizedRows) -> SignCodes {
        let (dims, items) = (vectors.dims(), vectors.max_doc());
        let words = dims.div_ceil(64);
        let mean = mean_of(vectors);
        let mut codes = vec![0u64; items * words];
        // Rows in parallel: a million items are built in a fraction of a second on the first
        // hybrid search, which waits for them.
        codes.par_chunks_mut(words.max(1) * CODE_ROWS_PER_TASK).enumerate().for_each(|(task, chunk)| {
            for (i, code) in chunk.chunks_mut(words.max(1)).enumerate() {
                if let Some((row, scale)) = vectors.raw(task * CODE_ROWS_PER_TASK + i) {
                    encode(row, scale, &mean, code);
                }
            }
        });
        let missing: Vec<bool> = (0..items).map(|doc| vectors.raw(doc).is_none()).collect();
        let any_missing = missing.contains(&true);
        SignCodes { words, mean, codes, missing, any_missing }
    }

    /// The code of `vector` against this segment's mean.
    pub fn query(&self, vector: &[f32]) -> Vec<u64> {
        let mut code = vec![0u64; self.words];
        set_bits(&mut code, vector.iter().zip(&self.mean).map(|(&v, &m)| v > m));
        code
    }

    /// About `keep` of `docs` (more on ties), those whose codes agree most with `query` (from
    /// [`Self::query`]), in their order. `docs` ascend, as a scan's stretch of candidates does.
    pub fn shortlist(&self, docs: &[u32], query: &[u64], keep: usize) -> Vec<u32> {
        let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else { return Vec::new() };
        if query.len() != self.words || last < first || last as usize >= self.missing.len() {
            return docs.to_vec();
        }
        // Every code from the first doc to the last, in one pass over memory in order: cheaper
        // than picking the docs' codes one by one, even when the filters let few through.
        let (first, last) = (first as usize, last as usize);
        let mut differ = vec![0u32; last - first + 1];
        differing_bits(&self.codes[first * self.words..(last + 1) * self.words], query, &mut differ);
        // A doc without a vector differs in more bits than any other can.
        let never = self.words as u32 * 64 + 1;
        if self.any_missing {
            for (d, &missing) in differ.iter_mut().zip(&self.missing[first..=last]) {
                if missing {
                    *d = never;
                }
            }
        }
        // Each doc's count, in the docs' order: `differ` itself when the docs are the whole range
        // (a scan without filters), else gathered. A doc outside the first..=last range (docs
        // that do not ascend) counts as never kept.
        let whole_range =
            docs.len() == differ.len() && docs.iter().zip(first as u32..).fold(true, |all, (&d, e)| all & (d == e));
        let gathered: Vec<u32>;
        let counts_of_docs: &[u32] = match whole_range {
            true => &differ,
            false => {
                gathered = docs
                    .iter()
                    .map(|&doc| differ.get((doc as usize).wrapping_sub(first)).copied().unwrap_or(never))
                    .collect();
                &gathered
            }
        };
        let bound = bound_keeping(counts_of_docs, keep, never);
        // Every doc is written and the end moves past the kept ones: which are kept follows no
        // pattern a branch could predict.
        let mut kept = vec![0u32; docs.len()];
        let mut end = 0;
        for (&doc, &d) in docs.iter().zip(counts_of_docs) {
            kept[end] = doc;
            end += (d <= bound) as usize;
        }
        kept.truncate(end);
        kept
    }
}

/// The fewest differing bits `bound` such that counts at most `bound` number at least `keep`
/// (every count is at most `never`; `never` itself is never kept).
fn bound_keeping(counts: &[u32], keep: usize, never: u32) -> u32 {
    // Four histograms, each doc's count added to one in turn: neighbours often share a count,
    // and adding them to one histogram made each wait for the last (a quarter of a scan).
    let bins = never as usize + 1;
    let mut histograms = vec![0u32; 4 * bins];
    let mut fours = counts.chunks_exact(4);
    for four in &mut fours {
        for (h, &d) in four.iter().enumerate() {
            histograms[h * bins + (d.min(never) as usize)] += 1;
        }
    }
    for &d in fours.remainder() {
        histograms[d.min(never) as usize] += 1;
    }
    let (mut kept, mut bound) = (0usize, 0usize);
    while bound < never as usize {
        let here: usize = (0..4).map(|h| histograms[h * bins + bound] as usize).sum();
        if kept + here >= keep {
            break;
        }
        kept += here;
        bound += 1;
    }
    bound.min(never as usize - 1) as u32
}

/// Rows a task of the parallel build encodes.
const CODE_ROWS_PER_TASK: usize = 4096;
/// Vectors the mean is taken over, spread evenly over the segment: centring needs its
/// direction, not every digit of it.
const MEAN_SAMPLE: usize = 4096;

/// The mean vector of (a sample of) the segment's items that have one.
fn mean_of(vectors: &impl QuantizedRows) -> Vec<f32> {
    let (dims, items) = (vectors.dims(), vectors.max_doc());
    let mut sum = vec![0f32; dims];
    let mut present = 0usize;
    for step in [items.div_ceil(MEAN_SAMPLE).max(1), 1] {
        for doc in (0..items).step_by(step) {
            let Some((row, scale)) = vectors.raw(doc) else { continue };
            present += 1;
            for (s, &v) in sum.iter_mut().zip(row) {
                *s += v as f32 * scale;
            }
        }
        // The sample missed every item with a vector: then all of them.
        if present > 0 {
            break;
        }
    }
    sum.iter().map(|s| s / present.max(1) as f32).collect()
}

/// One item's code: bit `i` set where `row[i] × scale` is above `mean[i]`, 64 dimensions a word.
fn encode(row: &[i8], scale: f32, mean: &[f32], code: &mut [u64]) {
    for ((word, values), means) in code.iter_mut().zip(row.chunks(64)).zip(mean.chunks(64)) {
        let mut bits = 0u64;
        for (j, (&v, &m)) in values.iter().zip(means).enumerate() {
            bits |= ((v as f32 * scale > m) as u64) << j;
        }
        *word = bits;
    }
}

fn set_bits(code: &mut [u64], bits: impl Iterator<Item = bool>) {
    for (i, bit) in bits.enumerate() {
        code[i / 64] |= (bit as u64) << (i % 64);
    }
}

/// Bits in which each code of `rows` (codes as long as `query`, one after another) differs from
/// `query`, into `out`, one per code, with the widest population count this CPU has.
fn differing_bits(rows: &[u64], query: &[u64], out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vpopcntdq") {
            // SAFETY: the CPU has both features, checked just above.
            return unsafe { differing_bits_avx512(rows, query, out) };
        }
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT, checked just above.
            return unsafe { differing_bits_popcnt(rows, query, out) };
        }
    }
    differing_bits_portable(rows, query, out)
}

/// Codes of common widths (256 and 512 dimensions) take a loop unrolled to their length, which
/// the compiler vectorises. Plain loops: a closure would not inherit the target features of the
/// functions below.
#[inline(always)]
fn differing_bits_portable(rows: &[u64], query: &[u64], out: &mut [u32]) {
    match query.len() {
        4 => differing_bits_of::<4>(rows, query, out),
        8 => differing_bits_of::<8>(rows, query, out),
        0 => out.fill(0),
        words => {
            for (d, row) in out.iter_mut().zip(rows.chunks_exact(words)) {
                let mut n = 0;
                for (a, b) in row.iter().zip(query) {
                    n += (a ^ b).count_ones();
                }
                *d = n;
            }
        }
    }
}

#[inline(always)]
fn differing_bits_of<const WORDS: usize>(rows: &[u64], query: &[u64], out: &mut [u32]) {
    let Ok(query) = <&[u64; WORDS]>::try_from(query) else { return };
    for (d, row) in out.iter_mut().zip(rows.as_chunks::<WORDS>().0) {
        let mut n = 0;
        for i in 0..WORDS {
            n += (row[i] ^ query[i]).count_ones();
        }
        *d = n;
    }
}

/// # Safety
/// The CPU has AVX-512 F and VPOPCNTDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
unsafe fn differing_bits_avx512(rows: &[u64], query: &[u64], out: &mut [u32]) {
    differing_bits_portable(rows, query, out)
}

/// # Safety
/// The CPU has POPCNT (without it, `count_ones` is a dozen instructions a word).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn differing_bits_popcnt(rows: &[u64], query: &[u64], out: &mut [u32]) {
    differing_bits_portable(rows, query, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: Vec<f32>) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
        v.iter().map(|x| x / norm).collect()
    }

    /// Rows quantised to a byte a dimension (scale: the largest magnitude over 127).
    struct Rows {
        dims: usize,
        values: Vec<i8>,
        scales: Vec<f32>,
    }

    impl QuantizedRows for Rows {
        fn dims(&self) -> usize {
            self.dims
        }
        fn max_doc(&self) -> usize {
            self.scales.len()
        }
        fn raw(&self, doc: usize) -> Option<(&[i8], f32)> {
            let scale = *self.scales.get(doc).filter(|s| **s != 0.0)?;
            Some((&self.values[doc * self.dims..][..self.dims], scale))
        }
    }

    fn vectors(max_doc: usize, rows: &[(usize, Vec<f32>)]) -> Rows {
        let dims = rows[0].1.len();
        let mut out = Rows { dims, values: vec![0; max_doc * dims], scales: vec![0.0; max_doc] };
        for (doc, row) in rows {
            let scale = row.iter().fold(0f32, |m, v| m.max(v.abs())) / 127.0;
            out.scales[*doc] = scale;
            for (d, v) in row.iter().enumerate() {
                out.values[doc * dims + d] = (v / scale).round() as i8;
            }
        }
        out
    }

    fn differ(codes: &SignCodes, doc: usize, query: &[u64]) -> u32 {
        let mut out = [0];
        differing_bits_portable(&codes.codes[doc * codes.words..][..codes.words], query, &mut out);
        out[0]
    }

    #[test]
    fn the_shortlist_keeps_the_items_nearest_the_query_in_their_order() {
        // Items spread around a shared direction: what tells them apart is what lies off it.
        for dims in [70, 256] {
            let rows: Vec<(usize, Vec<f32>)> = (0..40)
                .map(|i| {
                    (i, unit((0..dims).map(|d| 1.0 + if (d * 7 + i * 3) % 11 < 5 { 0.3 } else { -0.3 }).collect()))
                })
                .collect();
            let codes = SignCodes::of(&vectors(40, &rows));
            let docs: Vec<u32> = (3..40).collect();
            let query = codes.query(&rows[17].1);
            let short = codes.shortlist(&docs, &query, 5);
            assert!(short.contains(&17), "{short:?}");
            assert!(short.len() >= 5 && short.len() < docs.len(), "{short:?}");
            assert!(short.windows(2).all(|w| w[0] < w[1]));
            // Every item kept agrees with the query at least as well as every item left out.
            let worst_kept = short.iter().map(|&d| differ(&codes, d as usize, &query)).max().unwrap();
            let left_out = docs.iter().filter(|d| !short.contains(d));
            let best_left = left_out.map(|&d| differ(&codes, d as usize, &query)).min().unwrap();
            assert!(worst_kept < best_left, "{dims} dimensions: {worst_kept} vs {best_left}");
        }
    }

    #[test]
    fn items_without_a_vector_are_never_shortlisted() {
        let rows: Vec<(usize, Vec<f32>)> = (0..10)
            .filter(|i| i % 2 == 0)
            .map(|i| (i, unit((0..8).map(|d| ((d + i) % 3) as f32 - 1.0).collect())))
            .collect();
        let codes = SignCodes::of(&vectors(10, &rows));
        let docs: Vec<u32> = (0..10).collect();
        assert_eq!(codes.shortlist(&docs, &codes.query(&rows[0].1), 10), vec![0, 2, 4, 6, 8]);
        assert_eq!(codes.shortlist(&[], &codes.query(&rows[0].1), 10), Vec::<u32>::new());
        // Docs that do not ascend, or lie past the segment, are answered, never a panic.
        assert_eq!(codes.shortlist(&[9, 2, 4], &codes.query(&rows[0].1), 10), vec![9, 2, 4]);
        assert_eq!(codes.shortlist(&[2, 0, 4], &codes.query(&rows[0].1), 10), vec![2, 4]);
        assert_eq!(codes.shortlist(&[2, 400], &codes.query(&rows[0].1), 1), vec![2, 400]);
    }

    #[test]
    fn every_population_count_this_cpu_has_agrees_with_a_plain_one() {
        for words in [1, 3, 4, 8, 9] {
            let rows: Vec<u64> = (0..words as u64 * 37).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
            let query: Vec<u64> = (0..words as u64).map(|i| !i.wrapping_mul(0xD1B5_4A32_D192_ED03)).collect();
            let expected: Vec<u32> = (rows.chunks(words))
                .map(|row| row.iter().zip(&query).map(|(a, b)| (a ^ b).count_ones()).sum())
                .collect();
            let mut out = vec![0; 37];
            differing_bits(&rows, &query, &mut out);
            assert_eq!(out, expected, "{words} words");
        }
    }
}
