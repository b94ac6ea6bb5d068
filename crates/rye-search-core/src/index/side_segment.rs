//! A bulk batch's second segment, indexed on a thread of its own beside the writer's.
//!
//! A batch of an index in memory on two cores wrote one segment on one thread: at its commit that
//! thread wrote the segment alone, a core idle, ~30% of a batched build (c60k in batches of 5,000:
//! `bench/probes/build-timeline.js`, "indexing alone"). Every other chunk of documents now goes to
//! a segment written here, finalised while the writer's commit writes its own: in four runs
//! alternated with the code before, the adds took 3.31–3.80× FTS5's time instead of 3.78–4.49×,
//! the indexing thread alone ~2% of it. The build is then bound by its CPU, not its overlap.
//!
//! Which documents go where is decided by their place in the batch (chunks of
//! [`super::batch::EMBED_CHUNK`], taking turns), never by which thread is free, as Tantivy's own
//! threads are given them: the segments, and so the order their merge stacks documents in (which a
//! semantic scan's shortlist depends on), are the same from one process to the next.
//!
//! The segment joins the index after the writer's commit (`IndexWriter::add_segment`, public but
//! left out of Tantivy's docs; the version is pinned), so the batch's deletes (its upserts' and
//! `delete`'s) never reach it: a document of it that a later one of the batch replaces or removes
//! is deleted here, from the batch's own record of its keys.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use rustc_hash::FxHashMap;
use tantivy::directory::TerminatingWrite;
use tantivy::index::{Segment, SegmentComponent, SegmentMeta};
use tantivy::indexer::{AddOperation, SegmentWriter};
use tantivy::{DocId, IndexWriter, Opstamp, TantivyDocument};
use tantivy_common::BitSet;

use crate::error::{contained, Error, Result};

/// Documents handed over and not yet indexed, at most: a chunk's worth many times over.
const QUEUE: usize = 4096;

pub(super) struct SideSegment {
    sender: Option<SyncSender<TantivyDocument>>,
    /// Set when the batch is dropped uncommitted: the thread then writes no segment.
    abandoned: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<Option<Segment>>>>,
    /// Text bytes handed over; past `bytes_max`, the writer takes every chunk (its segments
    /// flush at its memory budget; this one holds all it is given until the commit).
    bytes: usize,
    bytes_max: usize,
    /// Chunks of the batch so far.
    chunks: usize,
    /// Each key's last document here, and the documents a later one replaced or removed.
    keys: FxHashMap<String, DocId>,
    written: DocId,
    dead: Vec<DocId>,
}

impl SideSegment {
    /// Starts the thread, its segment's indexing memory at most `memory` bytes (a document's text
    /// takes ~8 times its size while it is indexed).
    pub(super) fn start(writer: &IndexWriter<TantivyDocument>, memory: usize) -> Result<SideSegment> {
        let segment = writer.new_segment();
        let (sender, documents) = sync_channel::<TantivyDocument>(QUEUE);
        let abandoned = Arc::new(AtomicBool::new(false));
        let dropped = abandoned.clone();
        let index = move || -> Result<Option<Segment>> {
            let mut segment_writer = SegmentWriter::for_segment(memory, segment.clone())?;
            for document in documents {
                segment_writer.add_document(AddOperation { opstamp: 0, document })?;
            }
            let max_doc = segment_writer.max_doc();
            // What it wrote so far is no segment's: the index's next commit collects its files.
            if max_doc == 0 || dropped.load(Ordering::Acquire) {
                return Ok(None);
            }
            segment_writer.finalize()?;
            Ok(Some(segment.with_max_doc(max_doc)))
        };
        let thread = std::thread::Builder::new()
            .name("rye-index-side".into())
            .spawn(move || contained(index))
            .map_err(|e| Error::Internal(format!("no thread to index on: {e}")))?;
        Ok(SideSegment {
            sender: Some(sender),
            abandoned,
            thread: Some(thread),
            bytes: 0,
            bytes_max: memory / 8,
            chunks: 0,
            keys: FxHashMap::default(),
            written: 0,
            dead: Vec::new(),
        })
    }

    /// Whether the batch's next chunk, of `bytes` bytes of text, is written here: every other one
    /// while this segment has room.
    pub(super) fn takes_chunk(&mut self, bytes: usize) -> bool {
        self.chunks += 1;
        let takes = self.chunks.is_multiple_of(2) && self.bytes + bytes <= self.bytes_max;
        self.bytes += if takes { bytes } else { 0 };
        takes
    }

    /// Records that the batch writes a document of `key` now (`here`, or by the writer): the one
    /// this segment held for it is replaced.
    pub(super) fn written(&mut self, key: &str, here: bool) {
        match here {
            true => {
                if let Some(old) = self.keys.insert(key.to_owned(), self.written) {
                    self.dead.push(old);
                }
                self.written += 1;
            }
            false => self.removed(key),
        }
    }

    /// Records that the batch deletes `key`.
    pub(super) fn removed(&mut self, key: &str) {
        if let Some(old) = self.keys.remove(key) {
            self.dead.push(old);
        }
    }

    /// Hands `document` to the thread; an error once the thread has stopped (its own is given by
    /// [`Self::finish`]).
    pub(super) fn send(&mut self, document: TantivyDocument) -> Result<()> {
        let sent = self.sender.as_ref().map(|s| s.send(document).is_ok());
        match sent {
            Some(true) => Ok(()),
            _ => Err(self.stopped()),
        }
    }

    /// Lets the thread write its segment (call before the writer's commit, so both are written at
    /// once).
    pub(super) fn close(&mut self) {
        self.sender = None;
    }

    /// Waits for the segment; with the documents the batch replaced or removed deleted as of
    /// `opstamp` (the writer's commit), ready for `IndexWriter::add_segment`. None when the batch
    /// gave it nothing.
    pub(super) fn finish(mut self, opstamp: Opstamp) -> Result<Option<SegmentMeta>> {
        self.close();
        let Some(segment) = self.join()? else { return Ok(None) };
        if self.dead.is_empty() {
            return Ok(Some(segment.meta().clone()));
        }
        let max_doc = segment.meta().max_doc();
        let mut alive = BitSet::with_max_value_and_full(max_doc);
        for &doc in &self.dead {
            alive.remove(doc);
        }
        let deleted = max_doc - alive.len() as u32;
        let mut segment = segment.with_delete_meta(deleted, opstamp);
        let mut file = segment.open_write(SegmentComponent::Delete).map_err(tantivy::TantivyError::from)?;
        tantivy::fastfield::write_alive_bitset(&alive, &mut file)?;
        file.terminate()?;
        Ok(Some(segment.meta().clone()))
    }

    fn join(&mut self) -> Result<Option<Segment>> {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(Error::Internal("the side indexing thread ended without a result".into())),
            None => Err(Error::Internal("the side indexing thread was already joined".into())),
        }
    }

    /// Why the thread stopped taking documents (its error, once it has ended).
    fn stopped(&mut self) -> Error {
        self.sender = None;
        match self.join() {
            Err(e) => e,
            Ok(_) => Error::Internal("the side indexing thread stopped early".into()),
        }
    }
}

impl Drop for SideSegment {
    /// A batch discarded (or failed) ends the thread without writing its segment.
    fn drop(&mut self) {
        self.abandoned.store(true, Ordering::Release);
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
