//! Finding a hit's stored bytes in a segment's doc store without copying its block.
//!
//! Tantivy's `StoreReader` finds a document's block by decoding a layer of its skip index at
//! every lookup, then copies the block out of the file (even when it is not compressed) and
//! through a locked LRU cache: over a quarter of a mid-frequency term search. The index writes
//! uncompressed blocks, so the bytes can be sliced straight out of the file: this reads the
//! skip index's finest layer once per segment into a table of block starts, and finds a
//! document's block by binary search.
//!
//! The layout read (doc store version 2, Tantivy pinned): blocks, then the skip index, then a
//! 28-byte footer (u32 version, u64 skip-index offset, u8 compressor id, 15 reserved bytes).
//! The skip index is a VInt count and VInt end offsets of its layers, coarsest first; a layer
//! is a run of checkpoint blocks, each a VInt count, VInt first doc and first byte, then per
//! checkpoint VInt docs and bytes. A block ends with u32 offsets of its documents and their
//! count. Anything else (another version, compression, a file already merged away) falls back
//! to Tantivy's reader.

use std::ops::Range;

use tantivy::directory::OwnedBytes;
use tantivy::error::DataCorruption;
use tantivy::index::SegmentComponent;
use tantivy::store::StoreReader;
use tantivy::{DocId, Index, SegmentReader};

use crate::error::{Error, Result};
use crate::stored::read_vint;

const FOOTER_BYTES: usize = 28;
const DOC_STORE_VERSION: u32 = 2;
const UNCOMPRESSED: u8 = 0;
/// Blocks Tantivy's reader keeps decompressed, when it is the fallback (its default).
const FALLBACK_CACHE_BLOCKS: usize = 100;

pub enum HitStore {
    Raw(RawStore),
    Tantivy(StoreReader),
}

impl HitStore {
    pub fn open(index: &Index, segment: &SegmentReader) -> Result<Self> {
        let meta = index.new_segment_meta(segment.segment_id(), segment.max_doc());
        let raw = index
            .segment(meta)
            .open_read(SegmentComponent::Store)
            .ok()
            .and_then(|file| file.read_bytes().ok())
            .and_then(|bytes| RawStore::parse(bytes).ok().flatten());
        Ok(match raw {
            Some(raw) => HitStore::Raw(raw),
            None => HitStore::Tantivy(segment.get_store_reader(FALLBACK_CACHE_BLOCKS)?),
        })
    }

    /// The stored bytes of one document.
    pub fn document(&self, doc: DocId) -> Result<OwnedBytes> {
        match self {
            HitStore::Raw(raw) => raw.document(doc),
            HitStore::Tantivy(reader) => Ok(reader.get_document_bytes(doc)?),
        }
    }
}

pub struct RawStore {
    /// The blocks, as written.
    blocks: OwnedBytes,
    /// First document of each block, then one past the last document.
    first_docs: Vec<DocId>,
    /// Byte start of each block in `blocks`, then the end of the last.
    starts: Vec<usize>,
    /// The block of every [`SAMPLE`]th document: a hit's block is found from there in a cache
    /// line or two of `first_docs`, where a binary search over every block's first document
    /// missed the cache ~6 times (a sixth of a rare-term search with cold caches).
    sampled_blocks: Vec<u32>,
}

/// Documents per entry of [`RawStore::sampled_blocks`]: a block holds several documents, so
/// the walk from the sampled block to a document's own is short.
const SAMPLE: usize = 32;

impl RawStore {
    /// `None` when the file is not laid out as expected: the caller uses Tantivy's reader.
    fn parse(file: OwnedBytes) -> Result<Option<Self>> {
        let Some(body_len) = file.len().checked_sub(FOOTER_BYTES) else { return Ok(None) };
        let footer = &file.as_slice()[body_len..];
        let version = u32::from_le_bytes(footer[0..4].try_into().expect("4 bytes"));
        let index_at = u64::from_le_bytes(footer[4..12].try_into().expect("8 bytes"));
        if version != DOC_STORE_VERSION || footer[12] != UNCOMPRESSED {
            return Ok(None);
        }
        let Some(index_at) = usize::try_from(index_at).ok().filter(|&at| at <= body_len) else {
            return Ok(None);
        };
        let mut skip = &file.as_slice()[index_at..body_len];
        let Some(finest) = finest_layer(&mut skip) else { return Ok(None) };
        let (mut first_docs, mut starts) = (vec![0], vec![0]);
        if !read_checkpoints(finest, &mut first_docs, &mut starts) || *starts.last().expect("one") > index_at {
            return Ok(None);
        }
        let Some(sampled_blocks) = sample_blocks(&first_docs) else { return Ok(None) };
        Ok(Some(RawStore { blocks: file.slice(0..index_at), first_docs, starts, sampled_blocks }))
    }

    fn document(&self, doc: DocId) -> Result<OwnedBytes> {
        let end = *self.first_docs.last().expect("one past the last document");
        if doc >= end {
            return Err(corrupt("no block holds the document"));
        }
        // From the block of the sampled document at or before `doc` to the block holding it.
        let mut block = self.sampled_blocks[doc as usize / SAMPLE] as usize;
        while self.first_docs[block + 1] <= doc {
            block += 1;
        }
        let range = self.starts[block]..self.starts[block + 1];
        let in_block = document_range(&self.blocks.as_slice()[range.clone()], doc - self.first_docs[block])
            .ok_or_else(|| corrupt("a block's document offsets are out of range"))?;
        Ok(self.blocks.slice(range.start + in_block.start..range.start + in_block.end))
    }
}

/// The block of documents 0, SAMPLE, 2·SAMPLE, … given each block's first document (then one
/// past the last); `None` when blocks do not start at 0 or go backwards.
fn sample_blocks(first_docs: &[DocId]) -> Option<Vec<u32>> {
    let end = *first_docs.last()?;
    if first_docs[0] != 0 || first_docs.windows(2).any(|w| w[0] > w[1]) {
        return None;
    }
    let mut sampled = Vec::with_capacity(end as usize / SAMPLE + 1);
    let mut block = 0;
    for doc in (0..end).step_by(SAMPLE) {
        while first_docs[block + 1] <= doc {
            block += 1;
        }
        sampled.push(u32::try_from(block).ok()?);
    }
    Some(sampled)
}

/// The finest (last written) layer of the skip index.
fn finest_layer<'a>(skip: &mut &'a [u8]) -> Option<&'a [u8]> {
    let layers = read_vint(skip)?;
    let mut ends = Vec::new();
    for _ in 0..layers {
        ends.push(usize::try_from(read_vint(skip)?).ok()?);
    }
    let end = *ends.last()?;
    let start = if ends.len() > 1 { ends[ends.len() - 2] } else { 0 };
    skip.get(start..end)
}

/// Appends each checkpoint's end document and end byte; `false` if they do not follow on.
fn read_checkpoints(mut layer: &[u8], first_docs: &mut Vec<DocId>, starts: &mut Vec<usize>) -> bool {
    let mut read = || -> Option<()> {
        while !layer.is_empty() {
            let count = read_vint(&mut layer)?;
            if count == 0 {
                continue;
            }
            let (doc, byte) = (read_vint(&mut layer)?, read_vint(&mut layer)?);
            if doc != u64::from(*first_docs.last()?) || usize::try_from(byte).ok()? != *starts.last()? {
                return None;
            }
            for _ in 0..count {
                let docs = u32::try_from(read_vint(&mut layer)?).ok()?;
                let bytes = usize::try_from(read_vint(&mut layer)?).ok()?;
                first_docs.push(first_docs.last()?.checked_add(docs)?);
                starts.push(starts.last()?.checked_add(bytes)?);
            }
        }
        Some(())
    };
    read().is_some()
}

/// Where document number `at` of a block lies in it: the block ends with the documents' u32
/// start offsets and then their count.
fn document_range(block: &[u8], at: DocId) -> Option<Range<usize>> {
    let u32_at = |pos: usize| Some(u32::from_le_bytes(block.get(pos..pos + 4)?.try_into().ok()?) as usize);
    let count = u32_at(block.len().checked_sub(4)?)?;
    let offsets = block.len().checked_sub((count + 1) * 4)?;
    let at = at as usize;
    if at >= count {
        return None;
    }
    let start = u32_at(offsets + at * 4)?;
    let end = if at + 1 < count { u32_at(offsets + (at + 1) * 4)? } else { offsets };
    (start <= end && end <= offsets).then_some(start..end)
}

/// Asks for the first `up_to` bytes of `bytes` to be brought into the cache (a hint, never a
/// fault). A page's hits lie far apart in the store, and between searches a caller's own work
/// (a Node process parsing answers) evicts them: read one after another, each hit waited for
/// its own cache misses; asked for together, the misses overlap.
pub fn prefetch(bytes: &[u8], up_to: usize) {
    #[cfg(target_arch = "x86_64")]
    for line in bytes[..bytes.len().min(up_to)].chunks(64) {
        // SAFETY: a prefetch reads nothing and cannot fault; the address is inside `bytes`.
        unsafe { std::arch::x86_64::_mm_prefetch(line.as_ptr().cast(), std::arch::x86_64::_MM_HINT_T0) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, up_to);
}

fn corrupt(what: &str) -> Error {
    Error::Index(DataCorruption::comment_only(format!("doc store: {what}")).into())
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{Schema, STORED, TEXT};
    use tantivy::store::Compressor;
    use tantivy::{doc, IndexSettings};

    use super::*;

    /// Every document of a store with thousands of blocks (three skip-index layers) and
    /// documents larger than a block reads the same bytes as through Tantivy's reader.
    #[test]
    fn reads_every_document_as_tantivy_does() {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", TEXT | STORED);
        let settings = IndexSettings {
            docstore_blocksize: 256,
            docstore_compression: Compressor::None,
            ..IndexSettings::default()
        };
        let index = Index::builder().schema(schema.build()).settings(settings).create_in_ram().unwrap();
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for i in 0..3000 {
            writer.add_document(doc!(body => format!("document {i} ").repeat(i % 97))).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let segment = &searcher.segment_readers()[0];
        let store = HitStore::open(&index, segment).unwrap();
        let HitStore::Raw(raw) = &store else { panic!("an uncompressed store is read raw") };
        assert!(raw.first_docs.len() > 8 * 8 * 8, "{} blocks: need three layers", raw.first_docs.len());
        let tantivy = segment.get_store_reader(0).unwrap();
        for doc in 0..segment.max_doc() {
            assert_eq!(store.document(doc).unwrap().as_slice(), tantivy.get_document_bytes(doc).unwrap().as_slice());
        }
        assert!(store.document(segment.max_doc()).is_err());
    }

    #[test]
    fn finds_offsets_in_a_block_and_rejects_bad_ones() {
        // Two documents, "ab" and "cde", then their offsets 0 and 2, then the count 2.
        let mut block = b"abcde".to_vec();
        for n in [0u32, 2, 2] {
            block.extend_from_slice(&n.to_le_bytes());
        }
        assert_eq!(document_range(&block, 0), Some(0..2));
        assert_eq!(document_range(&block, 1), Some(2..5));
        assert_eq!(document_range(&block, 2), None);
        assert_eq!(document_range(&block[..3], 0), None);
        let mut bad = block.clone();
        bad[5..9].copy_from_slice(&9u32.to_le_bytes());
        assert_eq!(document_range(&bad, 0), None);
    }
}
