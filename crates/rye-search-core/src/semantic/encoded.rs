//! Vectors the sentence encoder made, by meaning key ([`super::meaning_key`]): in memory, and for
//! an index on disk in a file in its directory too, so that after a restart only new or changed
//! items are encoded again.
//!
//! The file: magic `RYEVEC01`, u32 dims, u16 length + the encoder's identity; then records, each
//! u64 key, f32 scale, `dims` i8 values and a u32 checksum (FNV-1a of the rest). Records are
//! appended a batch per write (`O_APPEND`: two processes appending interleave whole batches).
//! A file of another encoder, damaged, or not a regular file is replaced, never trusted: a
//! record that fails its checksum ends the read, and the good records are written again.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
#[cfg(test)]
use std::path::PathBuf;
use std::sync::{Mutex, RwLock};

use rustc_hash::{FxHashMap, FxHashSet};

use super::vectors::quantized;
use crate::files::{self, FileRead};

pub const ENCODED_FILE: &str = "rye-encoded.vectors";
const MAGIC: &[u8; 8] = b"RYEVEC01";
/// The largest vector file read (about ten million items of 384 dims); a larger one is replaced.
const MAX_FILE_BYTES: u64 = 4 << 30;

pub struct EncodedStore {
    dims: usize,
    identity: String,
    /// Where records are appended; `None` for an index in memory, or when the file cannot be
    /// written (the vectors then live as long as the process).
    file: Mutex<Option<File>>,
    rows: RwLock<Rows>,
}

#[derive(Default)]
struct Rows {
    at: FxHashMap<u64, u32>,
    values: Vec<i8>,
    scales: Vec<f32>,
}

impl EncodedStore {
    pub fn in_memory(dims: usize, identity: &str) -> EncodedStore {
        EncodedStore { dims, identity: identity.to_string(), file: Mutex::new(None), rows: RwLock::default() }
    }

    /// The vectors kept in `dir` for this encoder, or none; never fails (a file that cannot be
    /// read or written leaves the vectors in memory only). Only a file the index made when it
    /// opened ([`create_file`]) is used, rewritten in place when damaged: this never adds an
    /// entry to the directory, so it cannot race with whoever deletes the index.
    pub fn open(dir: &Path, dims: usize, identity: &str) -> EncodedStore {
        let store = Self::in_memory(dims, identity);
        let path = dir.join(ENCODED_FILE);
        let (rows, file) = match files::read(&path, MAX_FILE_BYTES) {
            FileRead::Bytes(bytes) => {
                let (rows, clean) = store.parse(&bytes);
                let file = match clean {
                    true => append_to(&path).ok(),
                    false => store.rewrite(&path, &rows).ok(),
                };
                (rows, file)
            }
            FileRead::TooLarge(_) => (Rows::default(), store.rewrite(&path, &Rows::default()).ok()),
            _ => (Rows::default(), None),
        };
        *store.rows.write().unwrap_or_else(|e| e.into_inner()) = rows;
        *store.file.lock().unwrap_or_else(|e| e.into_inner()) = file;
        store
    }

    fn header(&self) -> Vec<u8> {
        let mut h = MAGIC.to_vec();
        h.extend((self.dims as u32).to_le_bytes());
        h.extend((self.identity.len() as u16).to_le_bytes());
        h.extend(self.identity.as_bytes());
        h
    }

    fn record_bytes(&self) -> usize {
        8 + 4 + self.dims + 4
    }

    /// The good records of a file's bytes, and whether the file is worth appending to as it is.
    fn parse(&self, bytes: &[u8]) -> (Rows, bool) {
        let header = self.header();
        if !bytes.starts_with(&header) {
            return (Rows::default(), false);
        }
        let mut rows = Rows::default();
        let mut records = 0usize;
        let body = &bytes[header.len()..];
        let size = self.record_bytes();
        for record in body.chunks(size) {
            if record.len() != size
                || checksum(&record[..size - 4]) != u32::from_le_bytes(record[size - 4..].try_into().unwrap())
            {
                return (rows, false);
            }
            records += 1;
            let key = u64::from_le_bytes(record[..8].try_into().unwrap());
            let scale = f32::from_le_bytes(record[8..12].try_into().unwrap());
            if key == 0 || !scale.is_finite() {
                return (rows, false);
            }
            rows.insert(key, record[12..12 + self.dims].iter().map(|b| *b as i8), scale);
        }
        let compact = records <= 2 * rows.scales.len() + 1024;
        (rows, compact)
    }

    /// Writes `rows` over the file, in place, and keeps it open for appending.
    fn rewrite(&self, path: &Path, rows: &Rows) -> std::io::Result<File> {
        let mut file = append_to(path)?;
        self.write_over(&mut file, rows)?;
        Ok(file)
    }

    /// Replaces what `file` holds (opened for appending) with `rows`.
    fn write_over(&self, file: &mut File, rows: &Rows) -> std::io::Result<()> {
        let mut out = self.header();
        let mut by_row: Vec<(u32, u64)> = rows.at.iter().map(|(k, r)| (*r, *k)).collect();
        by_row.sort_unstable();
        for (row, key) in by_row {
            let r = row as usize;
            self.push_record(&mut out, key, &rows.values[r * self.dims..][..self.dims], rows.scales[r]);
        }
        file.set_len(0)?;
        file.write_all(&out)
    }

    /// Keeps only the vectors of `live` keys, in memory and in the file (written over in place):
    /// an index whose items change gathers a vector for every text it ever held, and a process
    /// that lives long (an MCP server, a memory index fed a stream of upserts) would keep them all.
    pub fn keep_only(&self, live: &FxHashSet<u64>) {
        let mut rows = self.rows.write().unwrap_or_else(|e| e.into_inner());
        let mut kept = Rows::default();
        for (key, &r) in &rows.at {
            if live.contains(key) {
                let r = r as usize;
                kept.insert(*key, rows.values[r * self.dims..][..self.dims].iter().copied(), rows.scales[r]);
            }
        }
        *rows = kept;
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = file.as_mut() {
            if self.write_over(f, &rows).is_err() {
                *file = None;
            }
        }
    }

    fn push_record(&self, out: &mut Vec<u8>, key: u64, values: &[i8], scale: f32) {
        let start = out.len();
        out.extend(key.to_le_bytes());
        out.extend(scale.to_le_bytes());
        out.extend(values.iter().map(|v| *v as u8));
        let sum = checksum(&out[start..]);
        out.extend(sum.to_le_bytes());
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn identity(&self) -> &str {
        &self.identity
    }

    pub fn contains(&self, key: u64) -> bool {
        self.rows.read().unwrap_or_else(|e| e.into_inner()).at.contains_key(&key)
    }

    /// For each key, whether it has no vector yet (one lock for all).
    pub fn missing(&self, keys: impl Iterator<Item = u64>) -> Vec<bool> {
        let rows = self.rows.read().unwrap_or_else(|e| e.into_inner());
        keys.map(|k| !rows.at.contains_key(&k)).collect()
    }

    /// Vectors kept.
    pub fn len(&self) -> usize {
        self.rows.read().unwrap_or_else(|e| e.into_inner()).scales.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the vectors take in memory.
    pub fn bytes(&self) -> u64 {
        let rows = self.rows.read().unwrap_or_else(|e| e.into_inner());
        (rows.values.len() + rows.scales.len() * 4 + rows.at.len() * 16) as u64
    }

    /// Keeps `vectors` (unit vectors of `dims`), in memory and, with a file, appended to it in
    /// one write. A failed write leaves them in memory: never an error for a search to see.
    pub fn add(&self, vectors: &[(u64, Vec<f32>)]) {
        let mut out = Vec::with_capacity(vectors.len() * self.record_bytes());
        {
            let mut rows = self.rows.write().unwrap_or_else(|e| e.into_inner());
            for (key, v) in vectors {
                if *key == 0 || v.len() != self.dims || rows.at.contains_key(key) {
                    continue;
                }
                let (values, scale) = quantized(v);
                self.push_record(&mut out, *key, &values, scale);
                rows.insert(*key, values.into_iter(), scale);
            }
        }
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = file.as_mut() {
            if !out.is_empty() && f.write_all(&out).is_err() {
                *file = None;
            }
        }
    }

    /// Copies the vector of each `(doc, key)` into row `doc` of `values` (`dims` wide) and
    /// `scales`; returns how many keys have none.
    pub fn fill(&self, docs: impl Iterator<Item = (usize, u64)>, values: &mut [i8], scales: &mut [f32]) -> usize {
        let rows = self.rows.read().unwrap_or_else(|e| e.into_inner());
        let mut missing = 0;
        for (doc, key) in docs {
            match rows.at.get(&key) {
                Some(&r) => {
                    let r = r as usize;
                    values[doc * self.dims..][..self.dims].copy_from_slice(&rows.values[r * self.dims..][..self.dims]);
                    scales[doc] = rows.scales[r];
                }
                None => missing += 1,
            }
        }
        missing
    }
}

impl Rows {
    fn insert(&mut self, key: u64, values: impl Iterator<Item = i8>, scale: f32) {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.at.entry(key) {
            slot.insert(self.scales.len() as u32);
            self.values.extend(values);
            self.scales.push(scale);
        }
    }
}

/// Makes the (empty) vector file in an index's directory, when the index opens: the only time
/// the store adds an entry there.
pub fn create_file(dir: &Path) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    options.open(dir.join(ENCODED_FILE)).map(drop)
}

/// Opens an existing `path` for appending, only if it is a regular file (a FIFO is never waited
/// on; nothing is created).
fn append_to(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

fn checksum(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, b| (h ^ *b as u32).wrapping_mul(0x0100_0193))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u64, dims: usize) -> Vec<f32> {
        let v: Vec<f32> = (0..dims).map(|i| (((seed * 31 + i as u64 * 17) % 13) as f32) - 6.0).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect()
    }

    fn row_of(store: &EncodedStore, key: u64) -> Option<Vec<i8>> {
        let mut values = vec![0i8; store.dims()];
        let mut scales = vec![0f32; 1];
        (store.fill(std::iter::once((0, key)), &mut values, &mut scales) == 0).then_some(values)
    }

    #[test]
    fn vectors_no_item_needs_are_let_go_in_memory_and_in_the_file() {
        let dir = tempfile_dir();
        create_file(&dir).unwrap();
        let store = EncodedStore::open(&dir, 8, "enc-a");
        store.add(&(1..=50).map(|k| (k, unit(k, 8))).collect::<Vec<_>>());
        let kept = row_of(&store, 7).unwrap();
        store.keep_only(&[7, 9, 99].into_iter().collect());
        assert_eq!((store.len(), row_of(&store, 7), row_of(&store, 8)), (2, Some(kept.clone()), None));
        // What comes after is appended to the file written over.
        store.add(&[(60, unit(60, 8))]);
        drop(store);
        let again = EncodedStore::open(&dir, 8, "enc-a");
        assert_eq!((again.len(), row_of(&again, 7), row_of(&again, 1)), (3, Some(kept), None));
        assert!(again.contains(9) && again.contains(60));
        // In memory only, the same.
        let memory = EncodedStore::in_memory(8, "enc-a");
        memory.add(&[(1, unit(1, 8)), (2, unit(2, 8))]);
        memory.keep_only(&[2].into_iter().collect());
        assert_eq!((memory.len(), memory.contains(1), memory.contains(2)), (1, false, true));
    }

    #[test]
    fn vectors_come_back_after_a_reopen_and_damage_loses_only_what_it_hit() {
        let dir = tempfile_dir();
        create_file(&dir).unwrap();
        let store = EncodedStore::open(&dir, 8, "enc-a");
        store.add(&[(1, unit(1, 8)), (2, unit(2, 8))]);
        store.add(&[(3, unit(3, 8)), (0, unit(9, 8)), (4, unit(4, 7))]);
        let kept = row_of(&store, 2).unwrap();
        drop(store);
        let again = EncodedStore::open(&dir, 8, "enc-a");
        assert_eq!((again.len(), row_of(&again, 2)), (3, Some(kept)));
        drop(again);
        // The last record damaged: the two before it stay, and the file is written again.
        let path = dir.join(ENCODED_FILE);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 5;
        bytes[last] ^= 0xFF;
        std::fs::write(&path, &bytes).unwrap();
        let damaged = EncodedStore::open(&dir, 8, "enc-a");
        assert_eq!(damaged.len(), 2);
        damaged.add(&[(5, unit(5, 8))]);
        drop(damaged);
        assert_eq!(EncodedStore::open(&dir, 8, "enc-a").len(), 3);
        // Another encoder's file is not read.
        assert_eq!(EncodedStore::open(&dir, 8, "enc-b").len(), 0);
        assert_eq!(EncodedStore::open(&dir, 8, "enc-a").len(), 0, "replaced by enc-b's");
    }

    #[test]
    fn no_file_a_folder_or_a_fifo_in_its_place_keeps_the_vectors_in_memory_and_adds_nothing() {
        let empty = tempfile_dir();
        let store = EncodedStore::open(&empty, 4, "enc");
        store.add(&[(7, unit(7, 4))]);
        assert_eq!(store.len(), 1);
        assert!(std::fs::read_dir(&empty).unwrap().next().is_none(), "the store created nothing");
        let folder = tempfile_dir();
        std::fs::create_dir(folder.join(ENCODED_FILE)).unwrap();
        let store = EncodedStore::open(&folder, 4, "enc");
        store.add(&[(7, unit(7, 4))]);
        assert!(folder.join(ENCODED_FILE).is_dir());
        #[cfg(unix)]
        {
            let fifo_dir = tempfile_dir();
            let fifo = fifo_dir.join(ENCODED_FILE);
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a plain mkfifo of a path this test owns.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            let store = EncodedStore::open(&fifo_dir, 4, "enc");
            store.add(&[(7, unit(7, 4))]);
            assert_eq!(store.len(), 1);
        }
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "rye-encoded-{}-{:?}",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
