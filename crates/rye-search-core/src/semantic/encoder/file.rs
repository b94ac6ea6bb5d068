//! The encoder's file (`model/*.rye-encoder`, written by `scripts/model/build-encoder.py`),
//! little-endian: magic `RYEENC01`; nine u32 (vocabulary size, hidden size, layers, heads,
//! intermediate size, positions, ids of `[UNK]`, `[CLS]`, `[SEP]`); the vocabulary as u16 length +
//! UTF-8 bytes per token, in id order; then the tensors in BERT's order. A matrix is u32 rows,
//! u32 columns, then per row an f32 scale and `columns` i8 values; a vector is u32 length and f32
//! values.

use rustc_hash::FxHashMap;

const MAGIC: &[u8; 8] = b"RYEENC01";

pub struct Config {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub positions: usize,
    pub unk: u32,
    pub cls: u32,
    pub sep: u32,
}

/// An int8 matrix with one scale per row, as stored.
pub struct Rows {
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<i8>,
    pub scales: Vec<f32>,
}

impl Rows {
    /// Row `r` back as f32, added to `out`.
    pub fn add_row(&self, r: usize, out: &mut [f32]) {
        let scale = self.scales[r];
        for (o, v) in out.iter_mut().zip(&self.values[r * self.cols..][..self.cols]) {
            *o += *v as f32 * scale;
        }
    }

    /// The matrix as f32, transposed (`cols × rows`, row-major): a PyTorch `Linear` keeps
    /// `out × in`, and the forward pass multiplies activations (`tokens × in`) by `in × out`.
    pub fn transposed(&self) -> Vec<f32> {
        let mut t = vec![0f32; self.rows * self.cols];
        for r in 0..self.rows {
            let scale = self.scales[r];
            for (c, v) in self.values[r * self.cols..][..self.cols].iter().enumerate() {
                t[c * self.rows + r] = *v as f32 * scale;
            }
        }
        t
    }
}

/// The file's parts, in its order; [`super::weights`] shapes them for the forward pass.
pub struct Parsed {
    pub config: Config,
    pub vocab: FxHashMap<String, u32>,
    pub matrices: Vec<Rows>,
    pub vectors: Vec<Vec<f32>>,
}

/// Reads the file's bytes; every size is checked against the bytes left before anything is
/// reserved for it, so a damaged or hostile file is refused, never panicked or over-allocated on.
pub fn parse(bytes: &[u8]) -> Result<Parsed, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(8)? != MAGIC {
        return Err("not a rye-search encoder (wrong magic)".into());
    }
    let mut n = [0usize; 9];
    for slot in &mut n {
        *slot = r.u32()? as usize;
    }
    let [vocab, hidden, layers, heads, intermediate, positions, unk, cls, sep] = n;
    let plausible = (1..=1 << 20).contains(&vocab)
        && (1..=4096).contains(&hidden)
        && (1..=48).contains(&layers)
        && heads > 0
        && hidden % heads == 0
        && (1..=16384).contains(&intermediate)
        && (2..=8192).contains(&positions)
        && [unk, cls, sep].iter().all(|id| *id < vocab);
    if !plausible {
        return Err(format!("implausible header: {n:?}"));
    }
    let config = Config { hidden, layers, heads, positions, unk: unk as u32, cls: cls as u32, sep: sep as u32 };
    let mut words = FxHashMap::with_capacity_and_hasher(vocab.min(bytes.len() / 3), Default::default());
    for id in 0..vocab {
        let len = r.u16()? as usize;
        let token = std::str::from_utf8(r.take(len)?).map_err(|_| "a token is not UTF-8")?;
        words.insert(token.to_owned(), id as u32);
    }
    let mut matrices = Vec::new();
    let mut vectors = Vec::new();
    let mut matrix = |r: &mut Reader, rows: usize, cols: usize| -> Result<(), String> {
        let (got_rows, got_cols) = (r.u32()? as usize, r.u32()? as usize);
        if (got_rows, got_cols) != (rows, cols) {
            return Err(format!("a matrix is {got_rows}×{got_cols}, expected {rows}×{cols}"));
        }
        let row_bytes = cols + 4;
        if rows.checked_mul(row_bytes).is_none_or(|b| b > r.left()) {
            return Err("the file is truncated".into());
        }
        let mut values = Vec::with_capacity(rows * cols);
        let mut scales = Vec::with_capacity(rows);
        for _ in 0..rows {
            let scale = r.f32()?;
            if !scale.is_finite() {
                return Err("a scale is not a finite number".into());
            }
            scales.push(scale);
            values.extend(r.take(cols)?.iter().map(|b| *b as i8));
        }
        matrices.push(Rows { rows, cols, values, scales });
        Ok(())
    };
    let vector = |r: &mut Reader, len: usize, vectors: &mut Vec<Vec<f32>>| -> Result<(), String> {
        if r.u32()? as usize != len {
            return Err(format!("a vector is not {len} long"));
        }
        let raw = r.take(len.checked_mul(4).ok_or("the file is truncated")?)?;
        let v: Vec<f32> = raw.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
        if v.iter().any(|x| !x.is_finite()) {
            return Err("a weight is not a finite number".into());
        }
        vectors.push(v);
        Ok(())
    };
    matrix(&mut r, vocab, hidden)?;
    matrix(&mut r, positions, hidden)?;
    for _ in 0..3 {
        vector(&mut r, hidden, &mut vectors)?; // token type 0, embedding norm's gain and bias
    }
    for _ in 0..layers {
        for _ in 0..4 {
            matrix(&mut r, hidden, hidden)?; // query, key, value, attention output
            vector(&mut r, hidden, &mut vectors)?;
        }
        vector(&mut r, hidden, &mut vectors)?;
        vector(&mut r, hidden, &mut vectors)?;
        matrix(&mut r, intermediate, hidden)?;
        vector(&mut r, intermediate, &mut vectors)?;
        matrix(&mut r, hidden, intermediate)?;
        vector(&mut r, hidden, &mut vectors)?;
        vector(&mut r, hidden, &mut vectors)?;
        vector(&mut r, hidden, &mut vectors)?;
    }
    if r.left() != 0 {
        return Err("trailing bytes after the weights".into());
    }
    Ok(Parsed { config, vocab: words, matrices, vectors })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len()).ok_or("the file is truncated")?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
}
