//! Item vectors as int8 with one scale each (a quarter of the f32 size; cosine error well under
//! 1%), kept in a bytes fast field and read into one flat array per segment on first use.

use std::sync::OnceLock;

use tantivy::SegmentReader;

use super::codes::{QuantizedRows, SignCodes};
use super::EncodedStore;
use crate::error::Result;

pub const VECTOR_FIELD: &str = "vector";

/// `v` as i8 values and the scale that maps them back (`x ≈ value × scale`).
pub fn quantized(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs())).max(f32::MIN_POSITIVE);
    let scale = max / 127.0;
    (v.iter().map(|x| rounded(x / scale)).collect(), scale)
}

/// `q.round().clamp(-127.0, 127.0) as i8`, bit for bit, without the C library's `roundf`, which
/// the baseline x86-64 target calls once a value (half of quantising an item's vector as it is
/// added). Below 2²³, rounding half away from zero is truncating after adding the largest float
/// under one half with `q`'s sign (LLVM's own lowering of `round`); at and past it, and for the
/// infinities, both sides clamp to ±127; NaN is 0 on both.
#[inline(always)]
fn rounded(q: f32) -> i8 {
    ((q + 0.5f32.next_down().copysign(q)) as i32).clamp(-127, 127) as i8
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
    /// Built by the first scan that shortlists ([`Self::codes`]).
    codes: OnceLock<SignCodes>,
}

impl SegmentVectors {
    pub fn open(segment: &SegmentReader, dims: usize) -> Result<SegmentVectors> {
        let max_doc = segment.max_doc() as usize;
        let mut values = vec![0i8; max_doc * dims];
        let mut scales = vec![0f32; max_doc];
        if let Some(column) = segment.fast_fields().bytes(VECTOR_FIELD)? {
            // Docs in the order of their vector's ordinal, so the dictionary is read once, in
            // order, each vector written where its docs' rows are: a copy of the whole dictionary,
            // one allocation a vector, doubled what a million items' first semantic search took.
            let mut docs_by_ord: Vec<(u64, u32)> =
                (0..max_doc as u32).filter_map(|doc| Some((column.ords().first(doc)?, doc))).collect();
            docs_by_ord.sort_unstable();
            let mut next = docs_by_ord.iter().peekable();
            let mut stream = column.dictionary().stream()?;
            while next.peek().is_some() && stream.advance() {
                let (ord, bytes) = (stream.term_ord(), stream.key());
                while let Some(&&(_, doc)) = next.peek().filter(|(of, _)| *of == ord) {
                    next.next();
                    if bytes.len() != dims + 4 {
                        continue;
                    }
                    let doc = doc as usize;
                    for (slot, b) in values[doc * dims..][..dims].iter_mut().zip(&bytes[..dims]) {
                        *slot = *b as i8;
                    }
                    scales[doc] = f32::from_le_bytes(bytes[dims..].try_into().unwrap());
                }
            }
        }
        Ok(SegmentVectors { dims, values, scales, codes: OnceLock::new() })
    }

    /// The vectors `store` keeps for this segment's items, by their meaning keys; an item
    /// without one never matches semantically.
    pub fn from_store(segment: &SegmentReader, store: &EncodedStore) -> Result<SegmentVectors> {
        let (dims, max_doc) = (store.dims(), segment.max_doc() as usize);
        let mut values = vec![0i8; max_doc * dims];
        let mut scales = vec![0f32; max_doc];
        if let Ok(keys) = segment.fast_fields().u64("meaning_key") {
            let docs = (0..max_doc).filter_map(|doc| Some((doc, keys.first(doc as u32).filter(|k| *k != 0)?)));
            store.fill(docs, &mut values, &mut scales);
        }
        Ok(SegmentVectors { dims, values, scales, codes: OnceLock::new() })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Bytes these vectors hold, with their sign codes once built.
    pub fn bytes(&self) -> u64 {
        let codes = self.codes.get().map_or(0, SignCodes::bytes);
        (self.values.len() + self.scales.len() * 4) as u64 + codes
    }

    /// Docs this segment has room for (with a vector or not).
    pub fn max_doc(&self) -> usize {
        self.scales.len()
    }

    /// The stored values of `doc`'s vector and their scale; None for a doc without one.
    pub fn raw(&self, doc: usize) -> Option<(&[i8], f32)> {
        let scale = *self.scales.get(doc).filter(|s| **s != 0.0)?;
        Some((&self.values[doc * self.dims..][..self.dims], scale))
    }

    /// The sign codes of these vectors, built on first use. Not `get_or_init`: the build runs on
    /// the thread pool, and a pool thread blocked waiting for it (a scan's other stretch) while
    /// the build waited for pool threads hung the search. Two first uses at once both build; one
    /// is kept.
    pub fn codes(&self) -> &SignCodes {
        if self.codes.get().is_none() {
            let _ = self.codes.set(SignCodes::of(self));
        }
        self.codes.get().expect("set just above")
    }

    /// The stored vector of `doc`, back as f32; None for a doc without one.
    pub fn vector(&self, doc: u32) -> Option<Vec<f32>> {
        let (row, scale) = self.raw(doc as usize)?;
        Some(row.iter().map(|v| *v as f32 * scale).collect())
    }

    /// Cosine similarities of `docs` with the quantized query (`query_scale` from [`quantized`]),
    /// one per doc into `out`: the semantic scan's inner loop, a stretch of candidates at a time.
    pub fn similarities(&self, docs: &[u32], query: &[i8], query_scale: f32, out: &mut Vec<f32>) {
        // A query of other dimensions (another model) takes the loop that cannot read past a row.
        let kernel = if query.len() == self.dims { Kernel::best() } else { Kernel::Portable };
        self.similarities_with(kernel, docs, query, query_scale, out)
    }

    fn similarities_with(&self, kernel: Kernel, docs: &[u32], query: &[i8], query_scale: f32, out: &mut Vec<f32>) {
        out.clear();
        match kernel {
            // SAFETY: `Kernel::best` chose the kernel after checking the CPU has its features, and
            // `similarities` checked the query's length.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Vnni => unsafe { x86::similarities_avx512_vnni(self, docs, query, query_scale, out) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::similarities_avx2(self, docs, query, query_scale, out) },
            Kernel::Portable => {
                for &doc in docs {
                    out.push(dot_portable(self.row(doc), query) as f32 * self.scales[doc as usize] * query_scale);
                }
            }
        }
    }

    /// The values of `doc`'s vector (zeros and scale 0 for a doc without one, so similarity 0).
    #[inline(always)]
    fn row(&self, doc: u32) -> &[i8] {
        &self.values[doc as usize * self.dims..][..self.dims]
    }
}

/// The widest integer dot product this CPU has, checked once per process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    #[cfg(target_arch = "x86_64")]
    Avx512Vnni,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

impl QuantizedRows for SegmentVectors {
    fn dims(&self) -> usize {
        SegmentVectors::dims(self)
    }
    fn max_doc(&self) -> usize {
        SegmentVectors::max_doc(self)
    }
    fn raw(&self, doc: usize) -> Option<(&[i8], f32)> {
        SegmentVectors::raw(self, doc)
    }
}

impl Kernel {
    fn best() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                if x86::has_avx512_vnni() {
                    return Kernel::Avx512Vnni;
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    return Kernel::Avx2;
                }
            }
            Kernel::Portable
        })
    }
}

fn dot_portable(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(x, y)| *x as i32 * *y as i32).sum()
}

/// Both kernels multiply `|b|` (unsigned) by `a` with `b`'s sign, the form the unsigned × signed
/// byte instructions take; values are within ±127 (see [`quantized`]), so neither the negation nor
/// the pair sums of `maddubs` (2 × 127 × 127 < 2¹⁵) overflow. A damaged stored -128 wraps: that
/// item's similarity is wrong, nothing else.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::SegmentVectors;

    pub fn has_avx512_vnni() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }

    /// Four rows at a time, so four independent sums hide `vpdpbusd`'s latency.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VNNI ([`has_avx512_vnni`]); `q.len()` is `v`'s dimensions.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn similarities_avx512_vnni(v: &SegmentVectors, docs: &[u32], q: &[i8], scale: f32, out: &mut Vec<f32>) {
        let q = Avx512Query::new(q);
        let apart = lie_apart(docs);
        let mut groups = docs.chunks_exact(4);
        for (g, group) in (&mut groups).enumerate() {
            if apart {
                for &doc in docs.get(g * 4 + PREFETCH_ROWS..).unwrap_or(&[]).iter().take(4) {
                    v.prefetch(doc);
                }
            }
            let sums = q.dots([v.row(group[0]), v.row(group[1]), v.row(group[2]), v.row(group[3])]);
            for (&doc, sum) in group.iter().zip(sums) {
                out.push(sum as f32 * v.scales[doc as usize] * scale);
            }
        }
        for &doc in groups.remainder() {
            out.push(q.dots([v.row(doc)])[0] as f32 * v.scales[doc as usize] * scale);
        }
    }

    /// How many rows ahead a scan asks for a row's bytes, before it needs them.
    const PREFETCH_ROWS: usize = 8;

    /// Whether `docs` (ascending) skip most rows between them, as a shortlist does: the hardware
    /// prefetcher does not see such rows coming, so a scan asks for them ahead. Rows read one
    /// after another it fetches itself, and asking too made a scan of every item ~14% slower.
    pub(super) fn lie_apart(docs: &[u32]) -> bool {
        let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else { return false };
        last.saturating_sub(first) as usize >= 2 * docs.len()
    }

    impl SegmentVectors {
        /// Asks for `doc`'s row to be brought into the cache (a hint: never faults, even past
        /// the end).
        #[inline(always)]
        fn prefetch(&self, doc: u32) {
            let row = self.values.as_ptr().wrapping_add(doc as usize * self.dims);
            for line in (0..self.dims).step_by(64) {
                // SAFETY: a prefetch reads nothing and cannot fault, whatever the address.
                unsafe { _mm_prefetch(row.wrapping_add(line).cast(), _MM_HINT_T0) };
            }
        }
    }

    /// The query as `vpdpbusd` takes it, 64 bytes a chunk: magnitudes, and the lanes where it is
    /// negative (the row's byte is negated there instead).
    struct Avx512Query {
        magnitudes: Vec<__m512i>,
        negative: Vec<__mmask64>,
        /// Lanes of the last chunk inside the vector.
        tail: __mmask64,
    }

    impl Avx512Query {
        #[target_feature(enable = "avx512f,avx512bw")]
        unsafe fn new(q: &[i8]) -> Avx512Query {
            let chunks = q.len().div_ceil(64);
            let tail = match q.len() % 64 {
                0 => u64::MAX,
                r => (1u64 << r) - 1,
            };
            let mut query = Avx512Query { magnitudes: Vec::new(), negative: Vec::new(), tail };
            for c in 0..chunks {
                let v = _mm512_maskz_loadu_epi8(query.lanes(c, chunks), q.as_ptr().add(c * 64));
                query.magnitudes.push(_mm512_abs_epi8(v));
                query.negative.push(_mm512_movepi8_mask(v));
            }
            query
        }

        #[inline(always)]
        fn lanes(&self, chunk: usize, chunks: usize) -> __mmask64 {
            if chunk + 1 == chunks {
                self.tail
            } else {
                u64::MAX
            }
        }

        /// Dot products of `rows` (each as long as the query; masked loads never read past it).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
        unsafe fn dots<const N: usize>(&self, rows: [&[i8]; N]) -> [i32; N] {
            let chunks = self.magnitudes.len();
            let mut acc = [_mm512_setzero_si512(); N];
            for c in 0..chunks {
                let lanes = self.lanes(c, chunks);
                for (sum, row) in acc.iter_mut().zip(&rows) {
                    let bytes = _mm512_maskz_loadu_epi8(lanes, row.as_ptr().add(c * 64));
                    let signed = _mm512_mask_sub_epi8(bytes, self.negative[c], _mm512_setzero_si512(), bytes);
                    *sum = _mm512_dpbusd_epi32(*sum, self.magnitudes[c], signed);
                }
            }
            acc.map(|sum| _mm512_reduce_add_epi32(sum))
        }
    }

    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn similarities_avx2(v: &SegmentVectors, docs: &[u32], q: &[i8], scale: f32, out: &mut Vec<f32>) {
        let apart = lie_apart(docs);
        for (i, &doc) in docs.iter().enumerate() {
            if let Some(&ahead) = docs.get(i + PREFETCH_ROWS).filter(|_| apart) {
                v.prefetch(ahead);
            }
            out.push(dot_avx2(v.row(doc), q) as f32 * v.scales[doc as usize] * scale);
        }
    }

    /// 32 products a step (`vpmaddubsw`, then `vpmaddwd` to 32 bits); the tail is plain.
    ///
    /// # Safety
    /// The CPU has AVX2; `a` and `b` have the same length.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn dot_avx2(a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let ones = _mm256_set1_epi16(1);
        let mut acc = _mm256_setzero_si256();
        let mut i = 0;
        while i + 32 <= n {
            let va = _mm256_loadu_si256(a.as_ptr().add(i).cast());
            let vb = _mm256_loadu_si256(b.as_ptr().add(i).cast());
            let pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(vb), _mm256_sign_epi8(va, vb));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
            i += 32;
        }
        let sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0b01_00_11_10));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0b10_11_00_01));
        _mm_cvtsi128_si32(sum) + super::dot_portable(&a[i..n], &b[i..n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_this_cpu_has_agrees_with_a_plain_dot_product() {
        let mut kernels = vec![Kernel::Portable, Kernel::best()];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            kernels.push(Kernel::Avx2);
        }
        // Extremes (±127) and lengths around the 32- and 64-byte steps, rows in groups of four and
        // a remainder.
        for dims in [1, 15, 31, 32, 33, 63, 64, 65, 127, 256, 300] {
            let row = |seed: usize| -> Vec<i8> {
                (0..dims).map(|i| ((i * seed + i * i) % 255) as i32 - 127).map(|x| x as i8).collect()
            };
            let seeds = [37, 53, 1, 0, 254, 91, 7];
            let values: Vec<i8> = seeds.iter().flat_map(|&s| row(s)).collect();
            let scales: Vec<f32> = seeds.iter().enumerate().map(|(i, _)| if i == 3 { 0.0 } else { 0.5 }).collect();
            let vectors = SegmentVectors { dims, values, scales, codes: OnceLock::new() };
            let mut query = row(91);
            query[0] = -127;
            let docs: Vec<u32> = (0..seeds.len() as u32).rev().collect();
            let expected: Vec<f32> = docs
                .iter()
                .map(|&d| {
                    let dot: i32 = row(seeds[d as usize]).iter().zip(&query).map(|(x, y)| *x as i32 * *y as i32).sum();
                    // The fourth doc has no vector (scale 0).
                    dot as f32 * vectors.scales[d as usize] * 2.0
                })
                .collect();
            for &kernel in &kernels {
                let mut out = Vec::new();
                vectors.similarities_with(kernel, &docs, &query, 2.0, &mut out);
                assert_eq!(out, expected, "{kernel:?}, {dims} dimensions");
            }
        }
    }

    #[test]
    fn a_scan_of_rows_that_lie_apart_agrees_with_a_plain_one() {
        // Docs spread over the segment, as a shortlist leaves them: the kernels ask for rows ahead
        // of those they read, up to the last.
        let (dims, rows) = (256, 60);
        let values: Vec<i8> =
            (0..dims * rows).map(|i| ((i * 31 + i / dims) % 255) as i32 - 127).map(|x| x as i8).collect();
        let vectors = SegmentVectors { dims, values, scales: vec![0.25; rows], codes: OnceLock::new() };
        let query: Vec<i8> = (0..dims).map(|i| ((i * 7) % 255) as i32 - 127).map(|x| x as i8).collect();
        let docs: Vec<u32> = (0..rows as u32).step_by(3).collect();
        #[cfg(target_arch = "x86_64")]
        assert!(x86::lie_apart(&docs) && !x86::lie_apart(&(0..30).collect::<Vec<u32>>()) && !x86::lie_apart(&[]));
        let mut expected = Vec::new();
        vectors.similarities_with(Kernel::Portable, &docs, &query, 1.0, &mut expected);
        let mut out = Vec::new();
        vectors.similarities(&docs, &query, 1.0, &mut out);
        assert_eq!(out, expected);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            vectors.similarities_with(Kernel::Avx2, &docs, &query, 1.0, &mut out);
            assert_eq!(out, expected);
        }
    }

    #[test]
    fn a_segment_reads_back_each_doc_s_vector_shared_missing_or_damaged() {
        use tantivy::schema::{Schema, FAST};
        use tantivy::{doc, Index, TantivyDocument};
        let dims = 4;
        let mut schema = Schema::builder();
        let field = schema.add_bytes_field(VECTOR_FIELD, FAST);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        // Vectors whose bytes sort in another order than their docs, each shared by several docs
        // (one ordinal, many docs); docs without one, and stored bytes of the wrong length.
        let vectors: Vec<Vec<f32>> =
            (0..7).map(|i| (0..dims).map(|d| ((i * 5 + d * 3) % 11) as f32 - 5.0 + i as f32 * 0.1).collect()).collect();
        let mut expected: Vec<Option<Vec<u8>>> = Vec::new();
        for n in 0..60usize {
            let (document, vector): (TantivyDocument, _) = match n % 9 {
                0 => (doc!(), None),
                1 => (doc!(field => vec![1u8, 2, 3]), None),
                _ => {
                    let bytes = quantize(&vectors[(n * 5) % vectors.len()]);
                    (doc!(field => bytes.clone()), Some(bytes))
                }
            };
            writer.add_document(document).unwrap();
            expected.push(vector);
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let opened = SegmentVectors::open(searcher.segment_reader(0), dims).unwrap();
        assert_eq!(opened.max_doc(), expected.len());
        for (doc, vector) in expected.iter().enumerate() {
            let read = opened.raw(doc).map(|(row, scale)| {
                let mut bytes: Vec<u8> = row.iter().map(|v| *v as u8).collect();
                bytes.extend(scale.to_le_bytes());
                bytes
            });
            assert_eq!(&read, vector, "doc {doc}");
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

    #[test]
    fn quantised_values_round_as_the_standard_library_does() {
        let standard = |q: f32| q.round().clamp(-127.0, 127.0) as i8;
        let mut edges = vec![0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN, 8388609.0];
        for n in -260..=260 {
            let half = n as f32 / 2.0;
            edges.extend([
                half,
                half.next_up(),
                half.next_down(),
                half.next_up().next_up(),
                half.next_down().next_down(),
            ]);
        }
        for q in edges {
            assert_eq!(rounded(q), standard(q), "{q:e}");
        }
        // Floats from -130 to 130, a few dozen apart in their bits (a few thousand below one half). Every
        // finite float and both infinities were checked once this way, one apart.
        let mut bits = 0u32;
        while bits < 0x4302_0000 {
            for q in [f32::from_bits(bits), -f32::from_bits(bits)] {
                assert_eq!(rounded(q), standard(q), "{q:e}");
            }
            bits += if bits < 0x3f00_0000 { 4093 } else { 61 };
        }
    }
}
