//! The forward pass's element-wise work and attention, written as plain loops over slices and
//! compiled three times — AVX-512, AVX2 + FMA, and the baseline — with the widest the CPU has
//! chosen at run time (the crate is built for the baseline, where these loops ran a lane at a
//! time and took a fifth of the encoder's time). No loop reorders a sum, so every path gives
//! the same bits.

/// Defines `pub fn $name` that runs `$body` compiled for the widest vectors the CPU has.
macro_rules! widest {
    ($(#[$meta:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$meta])*
        pub fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn body($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                fn avx512($($arg: $ty),*) {
                    body($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn avx2($($arg: $ty),*) {
                    body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has the features the function was compiled for.
                    return unsafe { avx512($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                    // SAFETY: as above.
                    return unsafe { avx2($($arg),*) };
                }
            }
            body($($arg),*)
        }
    };
}

/// One attention head of one sequence, in the layout the forward pass keeps: `qkv` holds the
/// sequence's rows (`3·hidden` wide: queries, keys, values), `head` picks `width` columns of
/// each; the head's output goes to the same columns of `context`'s rows (`hidden` wide).
pub struct Head {
    pub rows: usize,
    pub hidden: usize,
    pub offset: usize,
    pub width: usize,
    pub scale: f32,
}

widest! {
    /// `context = softmax(q · kᵀ · scale) · v` for one head; `keys` and `scores` are room the
    /// caller keeps from head to head.
    pub fn attend(head: &Head, qkv: &[f32], context: &mut [f32], keys: &mut Vec<f32>, scores: &mut Vec<f32>) {
        let Head { rows: n, hidden: h, offset, width: d, scale } = *head;
        // The head's keys transposed (`d × n`), so a query's scores are sums of whole rows.
        keys.clear();
        keys.resize(d * n, 0.0);
        for j in 0..n {
            for (dd, k) in qkv[j * 3 * h + h + offset..][..d].iter().enumerate() {
                keys[dd * n + j] = *k;
            }
        }
        scores.clear();
        scores.resize(n, 0.0);
        for i in 0..n {
            scores.iter_mut().for_each(|s| *s = 0.0);
            for (dd, q) in qkv[i * 3 * h + offset..][..d].iter().enumerate() {
                let q = q * scale;
                for (s, k) in scores.iter_mut().zip(&keys[dd * n..][..n]) {
                    *s += q * k;
                }
            }
            softmax(scores);
            let out = &mut context[i * h + offset..][..d];
            out.iter_mut().for_each(|c| *c = 0.0);
            for (j, p) in scores.iter().enumerate() {
                for (c, v) in out.iter_mut().zip(&qkv[j * 3 * h + 2 * h + offset..][..d]) {
                    *c += p * v;
                }
            }
        }
    }
}

widest! {
    /// BERT's GELU on every value.
    pub fn gelu_all(values: &mut [f32]) {
        values.iter_mut().for_each(|v| *v = gelu(*v));
    }
}

widest! {
    /// `x += y`, then each `width`-wide row of `x` layer-normalised with `gain` and `bias`.
    pub fn add_and_normalise(x: &mut [f32], y: &[f32], width: usize, gain: &[f32], bias: &[f32], eps: f32) {
        x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
        normalise_rows(x, width, gain, bias, eps);
    }
}

widest! {
    /// Each `width`-wide row of `x` layer-normalised with `gain` and `bias`.
    pub fn normalise(x: &mut [f32], width: usize, gain: &[f32], bias: &[f32], eps: f32) {
        normalise_rows(x, width, gain, bias, eps);
    }
}

#[inline(always)]
fn normalise_rows(x: &mut [f32], width: usize, gain: &[f32], bias: &[f32], eps: f32) {
    for row in x.chunks_exact_mut(width) {
        let mean = row.iter().sum::<f32>() / width as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / width as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gain).zip(bias) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

#[inline(always)]
fn softmax(row: &mut [f32]) {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, v| m.max(*v));
    row.iter_mut().for_each(|v| *v = exp(*v - max));
    let sum: f32 = row.iter().sum();
    row.iter_mut().for_each(|v| *v /= sum);
}

/// BERT's GELU, with the error function (not the tanh approximation).
#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function within 1.5e-7 (Abramowitz and Stegun, 7.1.26).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t * (0.254_829_6 + t * (-0.284_496_7 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let y = 1.0 - poly * exp(-x * x);
    y.copysign(x)
}

/// `e^x` within a few parts in 10⁶, without a branch or a call, so loops over it vectorise:
/// `2^n · e^f` with `n = round(x / ln 2)` and a degree-6 polynomial for `e^f`, `|f| ≤ ln 2 / 2`.
#[inline(always)]
fn exp(x: f32) -> f32 {
    // Rounded by adding 1.5 · 2²³: the sum's low mantissa bits are then the integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    let f = x - n * std::f32::consts::LN_2;
    let p = 1.0 + f * (1.0 + f * (0.5 + f * (1.0 / 6.0 + f * (1.0 / 24.0 + f * (1.0 / 120.0 + f * (1.0 / 720.0))))));
    let whole = (shifted.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    p * f32::from_bits((whole.wrapping_add(127) as u32) << 23)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [(0.0f32, 0.0f32), (0.5, 0.520_499_9), (1.0, 0.842_700_8), (-2.0, -0.995_322_3), (4.0, 1.0)] {
            assert!((erf(x) - want).abs() < 1e-6, "erf({x}) = {} not {want}", erf(x));
        }
    }

    #[test]
    fn exp_matches_std_across_its_range() {
        let mut x = -87.0f32;
        while x < 88.0 {
            let (got, want) = (exp(x), x.exp());
            assert!((got - want).abs() <= want * 1e-5, "exp({x}) = {got} not {want}");
            x += 0.037;
        }
        for x in [-1000.0, -88.0, 88.5, 1000.0, f32::NEG_INFINITY, f32::INFINITY] {
            assert!(exp(x).is_finite() && exp(x) >= 0.0, "exp({x}) = {}", exp(x));
        }
    }

    #[test]
    fn softmax_is_a_distribution_even_for_large_scores() {
        let mut r = [1000.0, 1000.0, -1000.0];
        softmax(&mut r);
        assert!((r[0] - 0.5).abs() < 1e-6 && r[2] < 1e-30);
    }

    #[test]
    fn attention_of_one_head_matches_the_textbook_formula() {
        let (n, h, d) = (3, 4, 2);
        let qkv: Vec<f32> = (0..n * 3 * h).map(|i| ((i * 7 % 11) as f32 - 5.0) / 4.0).collect();
        let head = Head { rows: n, hidden: h, offset: 2, width: d, scale: 0.5 };
        let mut context = vec![0f32; n * h];
        attend(&head, &qkv, &mut context, &mut Vec::new(), &mut Vec::new());
        let at = |row: usize, part: usize, col: usize| qkv[row * 3 * h + part * h + 2 + col];
        for i in 0..n {
            let scores: Vec<f64> =
                (0..n).map(|j| (0..d).map(|c| (at(i, 0, c) * at(j, 1, c)) as f64).sum::<f64>() * 0.5).collect();
            let total: f64 = scores.iter().map(|s| s.exp()).sum();
            for c in 0..d {
                let want: f64 = (0..n).map(|j| scores[j].exp() / total * at(j, 2, c) as f64).sum();
                assert!((context[i * h + 2 + c] as f64 - want).abs() < 1e-5);
            }
            assert_eq!(context[i * h], 0.0, "other heads' columns untouched");
        }
    }
}
