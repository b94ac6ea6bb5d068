//! BERT's forward pass on the CPU, for a batch of token sequences at once: every sequence's
//! tokens are rows of one activation matrix (no padding), so each layer's projections are one
//! large matrix product; attention runs per sequence and head. Matrix products by
//! `matrixmultiply` (pure Rust, SIMD chosen at run time), one thread: callers run batches on
//! threads of their own.

use super::file::{Config, Parsed, Rows};
use super::int8::{self, Int8Linear};
use super::kernels::{add_and_normalise, attend, gelu_all, normalise, Head};

/// LayerNorm's epsilon in BERT's configuration.
const NORM_EPS: f32 = 1e-12;

/// A linear layer: its weights and a bias per output.
struct Linear {
    inputs: usize,
    outputs: usize,
    weights: Weights,
    bias: Vec<f32>,
}

enum Weights {
    /// `in × out`, row-major, for `matrixmultiply`.
    F32(Vec<f32>),
    /// As stored, packed for AVX-512 VNNI (see `int8.rs`).
    Int8(Int8Linear),
}

impl Linear {
    /// `rows` as stored (`out × in`): int8 where the CPU multiplies it, else f32.
    fn new(rows: Rows, bias: Vec<f32>, int8: bool) -> Linear {
        let (inputs, outputs) = (rows.cols, rows.rows);
        let weights = if int8 { Weights::Int8(Int8Linear::new(&rows)) } else { Weights::F32(rows.transposed()) };
        Linear { inputs, outputs, weights, bias }
    }
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
    /// The model of `parsed`, its linear layers in int8 (`int8`, only where the CPU has it) or f32.
    pub fn new(parsed: Parsed, int8: bool) -> Bert {
        let Parsed { config, matrices, vectors, .. } = parsed;
        let mut matrices = matrices.into_iter();
        let mut vectors = vectors.into_iter();
        let mut matrix = || matrices.next().expect("parse checked the count");
        let mut vector = || vectors.next().expect("parse checked the count");
        let words = matrix();
        let positions = matrix();
        let token_type = vector();
        let embedding_norm = Norm { gain: vector(), bias: vector() };
        let int8 = int8 && int8::available();
        let layers = (0..config.layers)
            .map(|_| {
                let mut parts: Vec<(Rows, Vec<f32>)> = (0..4).map(|_| (matrix(), vector())).collect();
                let (out_rows, out_bias) = parts.pop().expect("four parts");
                let attention_out = Linear::new(out_rows, out_bias, int8);
                let attention_norm = Norm { gain: vector(), bias: vector() };
                let up = Linear::new(matrix(), vector(), int8);
                let down = Linear::new(matrix(), vector(), int8);
                let out_norm = Norm { gain: vector(), bias: vector() };
                let (qkv, qkv_bias) = stacked(parts);
                let qkv = Linear::new(qkv, qkv_bias, int8);
                Layer { qkv, attention_out, attention_norm, up, down, out_norm }
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
        apply(&layer.qkv, x, rows, &mut s.qkv, &mut s.room);
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
        apply(&layer.attention_out, &s.context, rows, &mut s.out, &mut s.room);
        let Norm { gain, bias } = &layer.attention_norm;
        add_and_normalise(x, &s.out, h, gain, bias, NORM_EPS);
        apply(&layer.up, x, rows, &mut s.up, &mut s.room);
        gelu_all(&mut s.up);
        apply(&layer.down, &s.up, rows, &mut s.out, &mut s.room);
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
    room: Vec<u8>,
}

/// Linear layers that read the same input, as one: their stored rows stacked (outputs side by side).
fn stacked(parts: Vec<(Rows, Vec<f32>)>) -> (Rows, Vec<f32>) {
    let cols = parts[0].0.cols;
    let mut all = Rows { rows: 0, cols, values: Vec::new(), scales: Vec::new() };
    let mut bias = Vec::new();
    for (rows, b) in parts {
        all.rows += rows.rows;
        all.values.extend(rows.values);
        all.scales.extend(rows.scales);
        bias.extend(b);
    }
    (all, bias)
}

/// `out = x · W + b` for `rows` rows of `x`; `room`: the int8 path's quantised rows.
fn apply(l: &Linear, x: &[f32], rows: usize, out: &mut Vec<f32>, room: &mut Vec<u8>) {
    let weights = match &l.weights {
        Weights::Int8(w) => return w.apply(x, rows, &l.bias, out, room),
        Weights::F32(w) => w,
    };
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
            weights.as_ptr(),
            l.outputs as isize,
            1,
            1.0,
            out.as_mut_ptr(),
            l.outputs as isize,
            1,
        );
    }
}
