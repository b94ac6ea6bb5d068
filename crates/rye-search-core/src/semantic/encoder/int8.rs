//! Linear layers in int8 where the CPU has AVX-512 VNNI: the weights as stored (int8, a scale per
//! output), the activations quantised per row as they come (a scale per token), products summed
//! in i32 by `vpdpbusd` (64 multiply-adds an instruction, against 16 for f32 FMA) and scaled
//! back. Elsewhere the forward pass multiplies in f32 (`matrixmultiply`).
//!
//! `vpdpbusd` multiplies unsigned by signed bytes: a row is stored as `q + 128` and the sum
//! corrected by `128 · Σ w`. Weights are packed once, four inputs of 16 outputs in each 64-byte
//! vector, so one broadcast of four input bytes meets 16 outputs at once.

use super::file::Rows;

/// Outputs a kernel call covers (two vectors of 16).
const BLOCK: usize = 32;

pub struct Int8Linear {
    inputs: usize,
    /// `inputs` rounded up to a multiple of 4.
    inputs4: usize,
    outputs: usize,
    /// `outputs` rounded up to a multiple of [`BLOCK`].
    outputs32: usize,
    /// `[input / 4][output][input % 4]`, zero past the real inputs and outputs.
    packed: Vec<i8>,
    scales: Vec<f32>,
    /// `128 · Σ w` per output: what the +128 of the unsigned rows added.
    offsets: Vec<i32>,
}

/// Whether this CPU runs the int8 path.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

impl Int8Linear {
    /// `rows` as stored: `outputs × inputs`, int8 with a scale per output.
    pub fn new(rows: &Rows) -> Int8Linear {
        let (outputs, inputs) = (rows.rows, rows.cols);
        let inputs4 = inputs.div_ceil(4) * 4;
        let outputs32 = outputs.div_ceil(BLOCK) * BLOCK;
        let mut packed = vec![0i8; inputs4 * outputs32];
        let mut offsets = vec![0i32; outputs32];
        for o in 0..outputs {
            let row = &rows.values[o * inputs..][..inputs];
            for (i, w) in row.iter().enumerate() {
                packed[((i / 4) * outputs32 + o) * 4 + i % 4] = *w;
            }
            offsets[o] = 128 * row.iter().map(|w| *w as i32).sum::<i32>();
        }
        let mut scales = rows.scales.clone();
        scales.resize(outputs32, 0.0);
        Int8Linear { inputs, inputs4, outputs, outputs32, packed, scales, offsets }
    }

    /// `out = x · Wᵀ + bias` for `rows` rows of `x` (`rows × inputs`); `room` holds the
    /// quantised rows from call to call.
    pub fn apply(&self, x: &[f32], rows: usize, bias: &[f32], out: &mut Vec<f32>, room: &mut Vec<u8>) {
        out.clear();
        out.resize(rows * self.outputs, 0.0);
        let mut row_scales = Vec::with_capacity(rows);
        room.clear();
        room.resize(rows * self.inputs4, 128);
        for (r, row) in x.chunks_exact(self.inputs).take(rows).enumerate() {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
            let inv = 1.0 / scale;
            for (q, v) in room[r * self.inputs4..][..self.inputs].iter_mut().zip(row) {
                *q = ((v * inv).round().clamp(-127.0, 127.0) as i32 + 128) as u8;
            }
            row_scales.push(scale);
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: only called where `available()` said the CPU has these features; every index
        // stays inside the buffers sized above.
        unsafe {
            vnni::gemm(self, room, &row_scales, bias, out)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("the int8 path runs only where available() is true")
    }
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use std::arch::x86_64::*;

    use super::{Int8Linear, BLOCK};

    /// Rows quantised together per pass over the outputs (64 × 1,536 bytes at most: L1 and L2).
    const ROW_STRETCH: usize = 64;

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn gemm(l: &Int8Linear, rows_u8: &[u8], row_scales: &[f32], bias: &[f32], out: &mut [f32]) {
        let rows = row_scales.len();
        // A stretch of rows meets every output before the next: its bytes stay in the cache
        // while the weights (under half a megabyte a layer) stream from L2.
        for start in (0..rows).step_by(ROW_STRETCH) {
            let end = rows.min(start + ROW_STRETCH);
            for o in (0..l.outputs32).step_by(BLOCK) {
                let mut r = start;
                while r + 4 <= end {
                    block::<4>(l, rows_u8, row_scales, bias, out, r, o);
                    r += 4;
                }
                while r < end {
                    block::<1>(l, rows_u8, row_scales, bias, out, r, o);
                    r += 1;
                }
            }
        }
    }

    /// Rows `r..r + R` × outputs `o..o + 32`.
    #[inline(always)]
    unsafe fn block<const R: usize>(
        l: &Int8Linear,
        rows_u8: &[u8],
        row_scales: &[f32],
        bias: &[f32],
        out: &mut [f32],
        r: usize,
        o: usize,
    ) {
        let mut acc = [[_mm512_setzero_si512(); 2]; R];
        let weights = l.packed.as_ptr();
        let x = rows_u8.as_ptr();
        for g in 0..l.inputs4 / 4 {
            let w = weights.add((g * l.outputs32 + o) * 4);
            let w0 = _mm512_loadu_si512(w as *const __m512i);
            let w1 = _mm512_loadu_si512(w.add(64) as *const __m512i);
            for (k, a) in acc.iter_mut().enumerate() {
                let four = (x.add((r + k) * l.inputs4 + g * 4) as *const i32).read_unaligned();
                let xb = _mm512_set1_epi32(four);
                a[0] = _mm512_dpbusd_epi32(a[0], xb, w0);
                a[1] = _mm512_dpbusd_epi32(a[1], xb, w1);
            }
        }
        for (k, a) in acc.iter().enumerate() {
            let row = r + k;
            for (half, sums) in a.iter().enumerate() {
                let first = o + half * 16;
                if first >= l.outputs {
                    continue;
                }
                let sums = _mm512_sub_epi32(*sums, _mm512_loadu_si512(l.offsets.as_ptr().add(first) as *const __m512i));
                let scale =
                    _mm512_mul_ps(_mm512_set1_ps(row_scales[row]), _mm512_loadu_ps(l.scales.as_ptr().add(first)));
                let lanes = (l.outputs - first).min(16);
                let mask: __mmask16 = if lanes == 16 { 0xFFFF } else { (1u16 << lanes) - 1 };
                let b = _mm512_maskz_loadu_ps(mask, bias.as_ptr().add(first));
                let v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), scale, b);
                _mm512_mask_storeu_ps(out.as_mut_ptr().add(row * l.outputs + first), mask, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_products_match_f32_within_quantisation() {
        if !available() {
            return;
        }
        for (outputs, inputs, rows) in [(40, 10, 5), (384, 384, 9), (33, 7, 1), (16, 4, 4)] {
            let values: Vec<i8> = (0..outputs * inputs).map(|i| ((i * 37 % 255) as i32 - 127) as i8).collect();
            let scales: Vec<f32> = (0..outputs).map(|o| 0.001 + o as f32 * 1e-5).collect();
            let w = Rows { rows: outputs, cols: inputs, values, scales };
            let x: Vec<f32> = (0..rows * inputs).map(|i| ((i * 13 % 17) as f32 - 8.0) / 3.0).collect();
            let bias: Vec<f32> = (0..outputs).map(|o| o as f32 * 0.01).collect();
            let mut out = Vec::new();
            Int8Linear::new(&w).apply(&x, rows, &bias, &mut out, &mut Vec::new());
            for r in 0..rows {
                let xr = &x[r * inputs..][..inputs];
                let scale = xr.iter().fold(0f32, |m, v| m.max(v.abs())) / 127.0;
                for o in 0..outputs {
                    let want: f32 =
                        (0..inputs).map(|i| xr[i] * w.values[o * inputs + i] as f32 * w.scales[o]).sum::<f32>()
                            + bias[o];
                    let weight_sum: f32 =
                        (0..inputs).map(|i| (w.values[o * inputs + i] as f32 * w.scales[o]).abs()).sum();
                    let tolerance = 0.5 * scale * weight_sum * 1.001 + 1e-4;
                    assert!((out[r * outputs + o] - want).abs() <= tolerance, "{outputs}×{inputs} r{r} o{o}");
                }
            }
        }
    }
}
