//! Write batches: one writer, upserts by key, atomic commits.

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustc_hash::{FxBuildHasher, FxHashSet};

use tantivy::directory::INDEX_WRITER_LOCK;
use tantivy::index::SegmentId;
use tantivy::indexer::MergePolicy;
use tantivy::schema::{Field, Term};
use tantivy::InvertedIndexReader;
use tantivy::{Directory, Index, IndexReader, IndexWriter, TantivyDocument};

use super::bulk_run::{BulkWrite, Parked, DEFERRED_SEGMENTS_MAX};
use super::merge::{merge_by_policy, merge_in_bounds};
use super::parts::PartsCache;
use crate::error::{Error, Result};
use crate::exact::{composed, meta_facet};
use crate::schema::{version_number, Fields};
use crate::semantic;
use crate::wire::answer::stored_item;
use crate::wire::ItemDoc;

/// Items embedded before they are handed to the indexing thread (see [`Batch::upsert`]).
const EMBED_CHUNK: usize = 64;

/// One write session. Nothing is visible to readers until `commit`; dropping it discards.
pub struct Batch {
    pub(super) writer: IndexWriter<TantivyDocument>,
    pub(super) fields: Fields,
    pub(super) reader: IndexReader,
    /// What searches opened of the segments, pruned as the reader reloads.
    pub(super) parts: PartsCache,
    /// For a bulk batch: the segments that existed before it.
    pub(super) bulk: Option<Vec<SegmentId>>,
    pub(super) keys: KnownKeys,
    /// Which segments merge after a commit (the writer's own policy merges nothing).
    pub(super) merges: Box<dyn MergePolicy>,
    /// A bulk batch's place in its run of adds, or a small one's that took the place of the
    /// run's parked merges (see [`super::bulk_run`]).
    pub(super) run: Option<BulkWrite>,
    /// The folder of an index on disk (`None` in memory), asked why a write failed.
    pub(super) location: Option<PathBuf>,
}

/// Which keys an upsert must delete first: those in the index when the batch began and those
/// added earlier in the batch. A delete of a key that is nowhere is not free (Tantivy looks
/// every deleted term up when it writes a segment): skipping them made a fresh build of 63,666
/// items ~30% faster and ~60 MB lighter.
pub(super) enum KnownKeys {
    /// An index on disk, which other processes write too: its segments' keys are looked up.
    Looked { committed: Vec<Arc<InvertedIndexReader>>, added: HashSet<String> },
    /// An index in memory, whose every key this handle wrote: a set of their hashes answers
    /// without a lookup per segment, which a run of bulk adds leaves many of (a million items in
    /// 5,000s spent seconds looking new keys up). A key added and then removed, or two keys with
    /// one hash, only cost a delete that finds nothing.
    Written(Arc<Mutex<WrittenKeys>>),
}

/// Hashes of every key an index in memory was given.
pub(crate) type WrittenKeys = FxHashSet<u64>;

/// What [`WrittenKeys`] holds of a key.
pub(crate) fn key_hash(key: &str) -> u64 {
    FxBuildHasher.hash_one(key)
}

impl KnownKeys {
    pub(super) fn of(searcher: &tantivy::Searcher, key: Field) -> Result<Self> {
        let committed =
            searcher.segment_readers().iter().map(|r| r.inverted_index(key)).collect::<tantivy::Result<_>>()?;
        Ok(KnownKeys::Looked { committed, added: HashSet::new() })
    }

    /// Records `key` as added; true when a document with it may already exist.
    fn add(&mut self, key: &str) -> Result<bool> {
        match self {
            KnownKeys::Written(written) => Ok(!written.lock().unwrap_or_else(|e| e.into_inner()).insert(key_hash(key))),
            KnownKeys::Looked { committed, added } => {
                if !added.insert(key.to_owned()) {
                    return Ok(true);
                }
                for segment in committed.iter() {
                    if segment.terms().get(key.as_bytes())?.is_some() {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
        }
    }
}

impl Batch {
    /// Adds documents, replacing any with the same key. With a model loaded, items are embedded
    /// on this thread a few at a time, each few handed to the indexing thread before the next is
    /// embedded: embedding (~20 µs an item) then runs beside indexing (~45 µs an item on its one
    /// thread) instead of before it.
    pub fn upsert(&mut self, docs: &[ItemDoc]) -> Result<()> {
        docs.iter().try_for_each(ItemDoc::check)?;
        self.write(docs).map_err(|e| explained(self.location.as_deref(), e))
    }

    fn write(&mut self, docs: &[ItemDoc]) -> Result<()> {
        let model = semantic::model();
        for part in docs.chunks(EMBED_CHUNK) {
            let vectors: Vec<Option<Vec<u8>>> = match &model {
                Some(model) => {
                    part.iter().map(|d| model.embed(&semantic::item_text(d)).map(|v| semantic::quantize(&v))).collect()
                }
                None => vec![None; part.len()],
            };
            for (d, vector) in part.iter().zip(vectors) {
                if self.keys.add(&d.key)? {
                    self.writer.delete_term(Term::from_field_text(self.fields.key, &d.key));
                }
                let content = crate::stored::shown_text(&d.content);
                let mut doc = to_document(&self.fields, d, &content);
                if let Some(v) = vector {
                    doc.add_bytes(self.fields.vector, &v);
                }
                let meaning = semantic::meaning_text(&d.title, &d.name, &d.description, &content);
                doc.add_u64(self.fields.meaning_key, semantic::meaning_key(&meaning));
                self.writer.add_document(doc)?;
            }
        }
        Ok(())
    }

    /// Drops the batch uncommitted; on disk, the files it wrote go with it (a write that failed on
    /// a full disk left them, and the disk stayed full).
    pub fn discard(self) {
        let index = self.writer.index().clone();
        let on_disk = self.location.is_some();
        drop(self);
        if on_disk {
            collect_garbage(index);
        }
    }

    /// Whether this batch was sized for many documents (see [`SearchIndex::batch_for`]).
    pub fn is_bulk(&self) -> bool {
        self.bulk.is_some()
    }

    pub fn delete(&mut self, keys: &[String]) {
        for k in keys {
            self.writer.delete_term(Term::from_field_text(self.fields.key, k));
        }
    }

    /// Commits atomically, then merges what the batch's policy picks among the committed
    /// segments, one merge at a time, before the result becomes visible to this index's readers
    /// (a bulk batch of an index in memory parks them instead: see [`super::bulk_run`]).
    ///
    /// Merges run only here, after the commit, never beside it. A merge Tantivy starts on its
    /// own while a commit applies its deletes (it starts them as the commit hands over the new
    /// segments) could end without a delete of that commit: an upsert's old version then stayed
    /// alive beside the new one. And a merge still running when the writer is dropped is thrown
    /// away when it ends, so every merge is waited for.
    pub fn commit(self) -> Result<()> {
        let location = self.location.clone();
        let index = self.writer.index().clone();
        self.commit_and_merge().map_err(|e| {
            let e = explained(location.as_deref(), e);
            // The writer is gone: what it wrote goes now, not at the next write (a full disk
            // stayed full of it).
            if location.is_some() {
                collect_garbage(index);
            }
            e
        })
    }

    fn commit_and_merge(mut self) -> Result<()> {
        self.writer.commit()?;
        if let Some(before) = &self.bulk {
            // What a bulk batch wrote becomes one segment (a few past the bound of one merge):
            // every query pays per segment (term lookups, scorers). Older segments are left to
            // the merge policy, so adding in chunks does not re-merge everything each time.
            let written: Vec<SegmentId> =
                self.writer.index().searchable_segment_ids()?.into_iter().filter(|id| !before.contains(id)).collect();
            merge_in_bounds(&mut self.writer, self.fields.key, &written, |_| Ok(()))?;
        }
        if self.run.as_ref().is_some_and(BulkWrite::defers_merges) {
            let segments = self.writer.index().searchable_segment_metas()?;
            if segments.len() <= DEFERRED_SEGMENTS_MAX {
                // Searchable at once; merged after the run of adds (or when a run never pauses,
                // once it has written too many segments).
                self.parts.reload(&self.reader)?;
                if !self.merges.compute_merge_candidates(&segments).is_empty() {
                    let Batch { writer, merges, fields, reader, parts, run, .. } = self;
                    if let Some(run) = run {
                        run.park(Parked { writer, merges, key: fields.key, reader, parts });
                    }
                }
                return Ok(());
            }
        }
        merge_by_policy(self.writer, self.merges.as_ref(), self.fields.key, (&self.reader, &self.parts))
    }
}

/// A failed write of an index on disk, said as the system's when the disk refuses a write now:
/// Tantivy's indexing threads report only that one of them stopped ("An index writer was
/// killed"), never the full disk (`E_INDEX`, with the hint to delete the cache). Other failures
/// stay as they were.
fn explained(location: Option<&Path>, error: Error) -> Error {
    let Some(dir) = location else { return error };
    if error.exhausted() || matches!(error, Error::Io(_)) {
        return error;
    }
    match refused_write(dir) {
        Some(cause) => Error::Io(cause),
        None => error,
    }
}

/// Removes the files of an index on disk that its last commit does not name (what a failed
/// write left, and what a killed one did), when no writer holds it. Tantivy removes them only
/// after a commit succeeds: on a full disk they kept every later write from committing. A
/// failure to remove leaves them for the next commit or failed write.
fn collect_garbage(mut index: Index) {
    let Ok(_lock) = index.directory().acquire_lock(&INDEX_WRITER_LOCK) else { return };
    let Ok(metas) = index.load_metas() else { return };
    let mut living: HashSet<PathBuf> = metas.segments.iter().flat_map(|s| s.list_files()).collect();
    living.insert(PathBuf::from("meta.json"));
    let _ = index.directory_mut().garbage_collect(|| living);
}

/// What the system answers a small write (64 KiB, synced) into `dir` with, when it refuses it.
/// The probe is a new file of a name of its own (`create_new`): whatever else is at a path, a
/// FIFO say, is never opened (a FIFO would block the write for good).
fn refused_write(dir: &Path) -> Option<std::io::Error> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let probe = dir.join(format!(".rye-write-probe-{}-{nanos}", std::process::id()));
    let mut file = match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(file) => file,
        // Something of that name is there already: it says nothing of the disk, and is not ours.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return None,
        Err(e) => return Some(e),
    };
    let written = file.write_all(&[0; 64 * 1024]).and_then(|()| file.sync_all());
    drop(file);
    let _ = std::fs::remove_file(&probe);
    written.err()
}

/// `d` as the index holds it; `content` is its content in stored form (`shown_text`).
fn to_document(f: &Fields, d: &ItemDoc, content: &str) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    // Stored values are read in the order they are added: id, item, then content (read only for
    // previews).
    doc.add_text(f.id, &d.id);
    for (field, value) in f.text.iter().zip([&d.title, &d.name, &d.description, &d.category]) {
        doc.add_text(*field, value);
        doc.add_text(f.stem, value);
    }
    // Tags are searchable text at the category's weight (1.5, as the architecture note weighs
    // tags), besides exact `tags` filters: a second value of the category field.
    if let Some(tags) = d.meta.get("tags").filter(|t| !t.is_empty()) {
        let tags = tags.join(" ");
        doc.add_text(f.stem, &tags);
        doc.add_text(f.text[3], tags);
    }
    doc.add_text(f.key, &d.key);
    doc.add_text(f.kind, &d.kind);
    doc.add_text(f.space, &d.space);
    doc.add_u64(f.space_rank, d.space_rank);
    // Sorted as matched: lower case, compatibility forms and Latin accents folded (`École` by `e`).
    doc.add_text(f.name_sort, crate::tokenizer::normalize(&d.name));
    let mut ancestor = d.id.as_str();
    while let Some(cut) = ancestor.rfind('/') {
        ancestor = &ancestor[..cut];
        doc.add_text(f.namespace, composed(ancestor));
    }
    for (key, values) in &d.meta {
        for v in values {
            doc.add_text(f.meta, meta_facet(key, v));
        }
    }
    if let Some(v) = d.version.as_deref().and_then(version_number) {
        doc.add_u64(f.version_num, v);
    }
    if let Some(date) = d.date {
        doc.add_i64(f.date, date);
    }
    doc.add_i64(f.mtime, d.mtime);
    doc.add_u64(f.size, d.size);
    doc.add_text(f.item, stored_item(d));
    // Stored last, so hits without a preview stop reading before it; as previews show it.
    doc.add_text(f.content(), content);
    doc
}
