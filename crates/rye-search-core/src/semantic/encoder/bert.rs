//! BERT's forward pass on the CPU, for a batch of token sequences at once: every sequence's
//! tokens are rows of one activation matrix (no padding), so each layer's projections are one
//! large matrix product; attention runs per sequence and head. Matrix products by
//! `matrixmultiply` (pure Rust, SIMD chosen at run time), one thread: callers run batches on
//! threads of their own.

use super::file::{Config, Parsed, Rows};
use super::kernels::{add_and_normalise, attend, gelu_all, normalise, Head};

/// LayerNorm's epsilon in BERT's configuration.
const NORM_EPS: f32 = 1e-12;

/// A linear layer: `in × out` weights (row-major) and a bias per output.
struct Linear {
    inputs: usize,
    outputs: usize,
    weights: Vec<f32>,
    bias: Vec<f32>,
}

struct Norm {
    gain: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    /// Query, key and value side by side (`hidden × 3·hidden`): one product for all three.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    out_norm: Norm,
}

pub struct Bert {
    pub config: Config,
    words: Rows,
    positions: Rows,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Bert {
    pub fn new(parsed: Parsed) -> Bert {
        let Parsed { config, matrices, vectors, .. } = parsed;
        let mut matrices = matrices.into_iter();
        let mut vectors = vectors.into_iter();
        let mut matrix = || matrices.next().expect("parse checked the count");
        let mut vector = || vectors.next().expect("parse checked the count");
        let words = matrix();
        let positions = matrix();
        let token_type = vector();
        let embedding_norm = Norm { gain: vector(), bias: vector() };
        let linear =
            |m: Rows, bias: Vec<f32>| Linear { inputs: m.cols, outputs: m.rows, weights: m.transposed(), bias };
        let layers = (0..config.layers)
            .map(|_| {
                let parts: Vec<Linear> = (0..4).map(|_| linear(matrix(), vector())).collect();
                let [q, k, v, attention_out]: [Linear; 4] = parts.try_into().ok().expect("four parts");
                let attention_norm = Norm { gain: vector(), bias: vector() };
                let up = linear(matrix(), vector());
                let down = linear(matrix(), vector());
                let out_norm = Norm { gain: vector(), bias: vector() };
                Layer { qkv: side_by_side(&[q, k, v]), attention_out, attention_norm, up, down, out_norm }
            })
            .collect();
        Bert { config, words, positions, token_type, embedding_norm, layers }
    }

    /// The mean-pooled, normalised vector of each sequence (ids with `[CLS]` and `[SEP]`, at most
    /// `positions` long, every sequence non-empty).
    pub fn embed(&self, sequences: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let h = self.config.hidden;
        let rows: usize = sequences.iter().map(Vec::len).sum();
        let mut x = vec![0f32; rows * h];
        let mut row = 0;
        for seq in sequences {
            for (position, id) in seq.iter().enumerate() {
                let out = &mut x[row * h..][..h];
                out.copy_from_slice(&self.token_type);
                self.words.add_row(*id as usize, out);
                self.positions.add_row(position, out);
                row += 1;
            }
        }
        normalise(&mut x, h, &self.embedding_norm.gain, &self.embedding_norm.bias, NORM_EPS);
        let mut scratch = Scratch::default();
        for layer in &self.layers {
            self.layer(layer, &mut x, rows, sequences, &mut scratch);
        }
        let mut out = Vec::with_capacity(sequences.len());
        let mut start = 0;
        for seq in sequences {
            let mut mean = vec![0f32; h];
            for r in start..start + seq.len() {
                for (m, v) in mean.iter_mut().zip(&x[r * h..][..h]) {
                    *m += v;
                }
            }
            start += seq.len();
            let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
            mean.iter_mut().for_each(|v| *v /= norm);
            out.push(mean);
        }
        out
    }

    fn layer(&self, layer: &Layer, x: &mut [f32], rows: usize, sequences: &[Vec<u32>], s: &mut Scratch) {
        let h = self.config.hidden;
        let heads = self.config.heads;
        let d = h / heads;
        apply(&layer.qkv, x, rows, &mut s.qkv);
        s.context.clear();
        s.context.resize(rows * h, 0.0);
        let scale = 1.0 / (d as f32).sqrt();
        let mut start = 0;
        for seq in sequences {
            let n = seq.len();
            let qkv = &s.qkv[start * 3 * h..][..n * 3 * h];
            let context = &mut s.context[start * h..][..n * h];
            for head in 0..heads {
                let head = Head { rows: n, hidden: h, offset: head * d, width: d, scale };
                attend(&head, qkv, context, &mut s.keys, &mut s.scores);
            }
            start += n;
        }
        apply(&layer.attention_out, &s.context, rows, &mut s.out);
        let Norm { gain, bias } = &layer.attention_norm;
        add_and_normalise(x, &s.out, h, gain, bias, NORM_EPS);
        apply(&layer.up, x, rows, &mut s.up);
        gelu_all(&mut s.up);
        apply(&layer.down, &s.up, rows, &mut s.out);
        let Norm { gain, bias } = &layer.out_norm;
        add_and_normalise(x, &s.out, h, gain, bias, NORM_EPS);
    }
}

/// Buffers one batch reuses from layer to layer.
#[derive(Default)]
struct Scratch {
    qkv: Vec<f32>,
    context: Vec<f32>,
    keys: Vec<f32>,
    scores: Vec<f32>,
    out: Vec<f32>,
    up: Vec<f32>,
}

/// Linear layers that read the same input, as one (their outputs side by side).
fn side_by_side(parts: &[Linear]) -> Linear {
    let inputs = parts[0].inputs;
    let outputs: usize = parts.iter().map(|p| p.outputs).sum();
    let mut weights = Vec::with_capacity(inputs * outputs);
    for i in 0..inputs {
        for p in parts {
            weights.extend_from_slice(&p.weights[i * p.outputs..][..p.outputs]);
        }
    }
    Linear { inputs, outputs, weights, bias: parts.iter().flat_map(|p| p.bias.iter().copied()).collect() }
}

/// `out = x · W + b` for `rows` rows of `x`.
fn apply(l: &Linear, x: &[f32], rows: usize, out: &mut Vec<f32>) {
    out.clear();
    out.reserve(rows * l.outputs);
    for _ in 0..rows {
        out.extend_from_slice(&l.bias);
    }
    // SAFETY: x is rows × inputs, weights inputs × outputs, out rows × outputs, all row-major.
    unsafe {
        matrixmultiply::sgemm(
            rows,
            l.inputs,
            l.outputs,
            1.0,
            x.as_ptr(),
            l.inputs as isize,
            1,
            l.weights.as_ptr(),
            l.outputs as isize,
            1,
            1.0,
            out.as_mut_ptr(),
            l.outputs as isize,
            1,
        );
    }
}
