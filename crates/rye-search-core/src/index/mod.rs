//! Index lifecycle: open (persistent or in memory, checked and rebuilt when damaged), reload,
//! the refresh manifest, writing in batches (`batch`) and when segments merge (`merge`), an index
//! held in memory (`memory_dir`), and what searches read of a segment (`parts`). Searching is
//! `crate::search`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tantivy::directory::error::LockError;
use tantivy::directory::{MmapDirectory, INDEX_WRITER_LOCK, META_LOCK};
use tantivy::index::IndexSettings;
use tantivy::indexer::{MergePolicy, NoMergePolicy};
use tantivy::store::Compressor;
use tantivy::Directory;
use tantivy::{DocId, Index, IndexReader, ReloadPolicy, TantivyError};

use crate::error::{contained, Error, Result};
use crate::schema::{self, Fields, SCHEMA_VERSION};
use crate::stem::{StemTokenizer, STEM_TOKENIZER_NAME};
use crate::stored::utf8;
use crate::tokenizer::{IdentTokenizer, TOKENIZER_NAME};
use crate::wire::ManifestEntry;

pub(crate) mod batch;
mod bulk_run;
mod encoding;
pub(crate) mod memory_dir;
mod merge;
pub(crate) mod parts;

pub use batch::Batch;
use batch::{KnownKeys, WrittenKeys};
pub use bulk_run::set_merge_guard;
use bulk_run::BulkRun;
use encoding::EncodingSlot;
pub use encoding::EncodingStatus;
use memory_dir::MemoryDirectory;
use parts::{PartsCache, SegmentParts};

const VERSION_FILE: &str = "rye-search-schema";
const MB: usize = 1024 * 1024;
/// Up to this many documents, a batch gets a small writer (see [`merge::EditPolicy`]).
const SMALL_BATCH_DOCS: usize = 256;
/// Up to this many documents, one indexing thread with room for all of them (a typical item
/// takes ~3 KB of indexing memory, which is only taken as it is used): one segment, so no merge.
const ONE_SEGMENT_DOCS: usize = 150_000;
const DOC_STORE_BLOCK_BYTES: usize = 2048;
/// Keys an index in memory may have been given beyond twice what it holds before it forgets the
/// removed ones (see [`SearchIndex::forget_removed_keys`]).
const KEYS_SLACK: usize = 4096;
/// How long an open that finds the index missing or failing while another process holds its
/// writer asks again before answering `IndexLocked`: that process's creation or commit is
/// milliseconds; an open blocks its caller's thread.
const BUSY_OPEN_WAIT: Duration = Duration::from_secs(3);
const BUSY_OPEN_RETRY: Duration = Duration::from_millis(20);
/// Reloads that fail (segments gone between reading the metas and opening them) tried again.
const RELOAD_TRIES: u32 = 3;

pub struct SearchIndex {
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    pub(crate) location: Option<PathBuf>,
    /// The directory of an index held in memory (its files are the index's memory).
    pub(crate) memory: Option<MemoryDirectory>,
    /// What searches read of the segments searched lately.
    pub(crate) segments: PartsCache,
    /// The opstamp `reload` last reopened the reader at (`u64::MAX` before the first).
    pub(crate) reloaded_at: AtomicU64,
    /// Sentence-encoder vectors made in the background, once started.
    pub(crate) encoding: EncodingSlot,
    /// An index in memory: hashes of every key it was given (see `batch::KnownKeys`).
    pub(crate) written_keys: Option<Arc<Mutex<WrittenKeys>>>,
    /// The bulk batches under way and what waits for them to pause (see [`bulk_run`]).
    pub(crate) bulk_run: Arc<BulkRun>,
}

impl SearchIndex {
    /// Opens (or creates) a persistent index in `dir`. An index written by another schema
    /// version is discarded and recreated: it is a cache of the files, rebuilt by a refresh.
    ///
    /// Several processes may open one index at once (two MCP servers, a CLI beside them). An
    /// index that is missing, stale or fails to open is only made again under the writer's lock:
    /// without it, one process took another's index under creation (files there, version not yet
    /// written) or under commit (segments just merged away) for damage, and deleted it.
    pub fn open(dir: &Path) -> Result<Self> {
        fs::create_dir_all(dir)?;
        remove_foreign_entries(dir)?;
        let index = Self::open_shared(dir)?;
        // Made now, with the index's own files: background encoding only ever writes into it.
        crate::semantic::encoded::create_file(dir)?;
        Ok(index)
    }

    fn open_shared(dir: &Path) -> Result<Self> {
        let deadline = Instant::now() + BUSY_OPEN_WAIT;
        loop {
            match Self::open_current(dir) {
                Ok(Some(index)) => return Ok(index),
                // Out of descriptors or memory says nothing about the index: never cleared for it.
                Err(e) if e.exhausted() => return Err(e),
                _ => {}
            }
            let directory = MmapDirectory::open(dir).map_err(TantivyError::from)?;
            match directory.acquire_lock(&INDEX_WRITER_LOCK) {
                Ok(_lock) => return Self::open_or_rebuild(dir),
                // Another process holds the writer: it is creating the index or committing to it,
                // and what failed to open is most likely its work in progress. Asked again.
                Err(LockError::LockBusy) if Instant::now() < deadline => std::thread::sleep(BUSY_OPEN_RETRY),
                Err(LockError::LockBusy) => return Err(Error::IndexLocked { path: dir.display().to_string() }),
                Err(LockError::IoError(e)) => return Err(Error::Io(io_error(&e))),
            }
        }
    }

    /// The index in `dir` if it is there, of this schema version, and opens whole; `None` when
    /// it is missing or stale.
    fn open_current(dir: &Path) -> Result<Option<Self>> {
        // The version is written before an index is created: one without it is stale.
        let stored = fs::read_to_string(dir.join(VERSION_FILE)).unwrap_or_default();
        if stored.trim() != SCHEMA_VERSION.to_string() || !dir.join("meta.json").exists() {
            return Ok(None);
        }
        Self::open_or_create(dir).map(Some)
    }

    /// Opening includes the reader: segments a `meta.json` names but that are missing fail
    /// there. Tantivy's decoders assert on some damage: a panic while opening is damage too.
    fn open_or_create(dir: &Path) -> Result<Self> {
        contained(|| {
            let (_, fields) = schema::build();
            Self::wrap(open_checked(dir)?, fields, Some(dir.to_path_buf()))
        })
    }

    /// Under the writer's lock: the index as it is if it opens now, else its files cleared and
    /// an empty index made. A second failure (e.g. a directory that cannot be written) is
    /// reported, never a loop.
    fn open_or_rebuild(dir: &Path) -> Result<Self> {
        match Self::open_current(dir) {
            Ok(Some(index)) => return Ok(index),
            Err(e) if e.exhausted() => return Err(e),
            _ => {}
        }
        clear_index_files(dir)?;
        fs::write(dir.join(VERSION_FILE), SCHEMA_VERSION.to_string())?;
        // A failure now is the directory's, not a bug the index lives on after.
        let damaged = |detail| Error::Corrupt { path: dir.display().to_string(), detail };
        Self::open_or_create(dir).map_err(|e| if let Error::Internal(m) = e { damaged(m) } else { e })
    }

    /// An index that lives only in memory (tests, ephemeral use, plain-document indexes).
    pub fn in_memory() -> Result<Self> {
        let (schema, fields) = schema::build();
        let memory = MemoryDirectory::default();
        let index = Index::builder().schema(schema).settings(index_settings()).open_or_create(memory.clone())?;
        let written_keys = Some(Arc::default());
        Ok(SearchIndex { memory: Some(memory), written_keys, ..Self::wrap(index, fields, None)? })
    }

    /// Bytes this index holds in the process's own memory: the files of an index held in memory
    /// (an index on disk is mapped from the disk's cache), the vectors its semantic searches
    /// read and the all-terms dictionaries its fuzzy and wildcard searches built. Cheap enough to
    /// ask after every search: a sum over the segments searched lately.
    pub fn memory_bytes(&self) -> u64 {
        let files = self.memory.as_ref().map_or(0, MemoryDirectory::bytes);
        let segments = self.segments.lock();
        let vectors = |cell: &parts::VectorsCell| cell.get().map_or(0, |v| v.bytes());
        let built = |p: &Arc<SegmentParts>| vectors(&p.vectors) + vectors(&p.encoded) + p.all_terms.bytes();
        let keys = self.written_keys.as_ref().map_or(0, |k| {
            // A hash and a control byte a slot.
            k.lock().unwrap_or_else(|e| e.into_inner()).capacity() as u64 * 9
        });
        files + segments.values().map(built).sum::<u64>() + self.encoded_bytes() + keys
    }

    fn wrap(index: Index, fields: Fields, location: Option<PathBuf>) -> Result<Self> {
        crate::threads::size_the_pool();
        index.tokenizers().register(TOKENIZER_NAME, IdentTokenizer::default());
        index.tokenizers().register(STEM_TOKENIZER_NAME, StemTokenizer::default());
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(SearchIndex {
            index,
            reader,
            fields,
            location,
            memory: None,
            segments: PartsCache::default(),
            reloaded_at: AtomicU64::new(u64::MAX),
            encoding: EncodingSlot::default(),
            written_keys: None,
            bulk_run: Arc::default(),
        })
    }

    /// Picks up commits made by other handles or processes, and returns the opstamp of the last
    /// commit, which searches now see. The reader is reopened only when the opstamp moved since
    /// the last reload: reopening opens every segment again (~50 µs of a 430 µs refresh of the
    /// RYE spaces that found nothing to do; more with more segments).
    pub fn reload(&self) -> Result<u64> {
        let mut tries = 1;
        loop {
            let opstamp = self.index.load_metas()?.opstamp;
            // Metas only move forward: a reader reopened after reading them shows at least this.
            if self.reloaded_at.load(Ordering::Acquire) == opstamp {
                return Ok(opstamp);
            }
            match self.segments.reload(&self.reader) {
                Ok(()) => {
                    self.reloaded_at.store(opstamp, Ordering::Release);
                    self.wake_encoding();
                    return Ok(opstamp);
                }
                // Another process's commit may have merged away the segments the metas just read
                // named: its next metas name what replaced them.
                Err(_) if tries < RELOAD_TRIES => {
                    tries += 1;
                    std::thread::sleep(BUSY_OPEN_RETRY);
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Opstamp of the last commit on disk: changes whenever any process commits.
    pub fn opstamp(&self) -> Result<u64> {
        Ok(self.index.load_metas()?.opstamp)
    }

    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Segments in the current view (each costs a little per query).
    pub fn num_segments(&self) -> usize {
        self.reader.searcher().segment_readers().len()
    }

    /// Starts a write batch. Fails with `IndexLocked` while another writer holds the index.
    pub fn batch(&self) -> Result<Batch> {
        self.batch_for(usize::MAX)
    }

    /// A write batch sized for about `expected_docs` documents. A small edit gets a small writer
    /// whose merges stay among small segments. A bulk batch that fits one segment is indexed on
    /// one thread while the caller prepares the next documents on its own: merging the segments
    /// of two indexing threads cost more than the second thread saved. Larger batches use two.
    pub fn batch_for(&self, expected_docs: usize) -> Result<Batch> {
        let small = expected_docs <= SMALL_BATCH_DOCS;
        // A parked writer holds the lock: its merges wait for the next pause.
        self.bulk_run.claim();
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let (threads, memory) = match expected_docs {
            n if n <= SMALL_BATCH_DOCS => (1, 15 * MB),
            n if n <= ONE_SEGMENT_DOCS || cores == 1 => (1, 640 * MB),
            _ => (2, 512 * MB),
        };
        let writer = self.index.writer_with_num_threads(threads, memory).map_err(|e| match e {
            TantivyError::LockFailure(LockError::LockBusy, _) => Error::IndexLocked {
                path: self.location.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "memory".into()),
            },
            // The lock file could not be made (a read-only or full disk): the system's refusal,
            // not a damaged index.
            TantivyError::LockFailure(LockError::IoError(e), _) => Error::Io(io_error(&e)),
            other => other.into(),
        })?;
        // Tantivy merges nothing by itself: the batch merges after its commit (see `Batch::commit`).
        writer.set_merge_policy(Box::new(NoMergePolicy));
        // A small write that took the place of a bulk run's parked merges parks them again.
        let owed = self.memory.is_some() && self.bulk_run.owed();
        let merges: Box<dyn MergePolicy> = match small && !owed {
            true => Box::new(merge::EditPolicy::new()),
            false => Box::new(merge::bulk_policy()),
        };
        let bulk = if small { None } else { Some(self.index.searchable_segment_ids()?) };
        // The writer's lock is held, so the latest commit is what this batch writes over.
        self.segments.reload(&self.reader)?;
        let keys = match &self.written_keys {
            Some(written) => {
                self.forget_removed_keys(written)?;
                KnownKeys::Written(written.clone())
            }
            None => KnownKeys::of(&self.reader.searcher(), self.fields.key)?,
        };
        let run = (!small || owed).then(|| BulkRun::begin(&self.bulk_run, self.memory.is_some()));
        let location = self.location.clone();
        let (reader, parts) = (self.reader.clone(), self.segments.clone());
        Ok(Batch { writer, fields: self.fields, reader, parts, bulk, keys, merges, run, location })
    }

    /// Keeps an index in memory's set of written keys near what it holds: keys added and then
    /// removed stay in the set, so an index whose items come and go would grow it without bound.
    /// Once it holds twice the live items (and a few thousand more), it is made again from them.
    fn forget_removed_keys(&self, written: &Mutex<WrittenKeys>) -> Result<()> {
        let live = self.reader.searcher().num_docs() as usize;
        let mut keys = written.lock().unwrap_or_else(|e| e.into_inner());
        if keys.len() <= 2 * live + KEYS_SLACK {
            return Ok(());
        }
        let mut fresh = WrittenKeys::with_capacity_and_hasher(live, Default::default());
        for entry in self.manifest()? {
            fresh.insert(batch::key_hash(&entry.key));
        }
        *keys = fresh;
        Ok(())
    }

    /// What the index holds: key, mtime and size of every live document.
    pub fn manifest(&self) -> Result<Vec<ManifestEntry>> {
        let searcher = self.reader.searcher();
        let mut out = Vec::with_capacity(searcher.num_docs() as usize);
        for segment in searcher.segment_readers() {
            let ff = segment.fast_fields();
            let keys = column_strings(ff.str("key")?)?;
            let mtimes = ff.i64("mtime")?;
            let sizes = ff.u64("size")?;
            for doc in segment.doc_ids_alive() {
                out.push(ManifestEntry {
                    key: keys.of(doc),
                    mtime: mtimes.first(doc).unwrap_or(0),
                    size: sizes.first(doc).unwrap_or(0),
                });
            }
        }
        Ok(out)
    }
}

/// Small, uncompressed doc store blocks: a search loads each hit of the page from its own
/// block, and decompressing a 16 KiB LZ4 block per hit (Tantivy's default) was the largest cost
/// of queries whose hits were not cached. The store grows; queries get cheaper.
fn index_settings() -> IndexSettings {
    IndexSettings {
        docstore_blocksize: DOC_STORE_BLOCK_BYTES,
        docstore_compression: Compressor::None,
        // Nothing to compress: handing each small block to another thread only cost wake-ups.
        docstore_compress_dedicated_thread: false,
    }
}

/// Opens or creates the index in `dir` and checks every file of its segments against its
/// checksum (a few tens of milliseconds for a 60k-item index): a truncated or flipped file must
/// be found here, not by a decoder that trusts a damaged length.
fn open_checked(dir: &Path) -> Result<Index> {
    let (schema, _) = schema::build();
    let corrupt = |detail: String| Error::Corrupt { path: dir.display().to_string(), detail };
    let directory = MmapDirectory::open(dir).map_err(TantivyError::from)?;
    let index = match Index::builder().schema(schema).settings(index_settings()).open_or_create(directory) {
        Ok(index) => index,
        Err(e @ (TantivyError::IoError(_) | TantivyError::OpenDirectoryError(_))) => return Err(e.into()),
        Err(e) => return Err(corrupt(e.to_string())),
    };
    match index.validate_checksum() {
        Ok(damaged) if damaged.is_empty() => Ok(index),
        Ok(damaged) => Err(corrupt(format!("{} file(s) fail their checksum", damaged.len()))),
        Err(e) => Err(corrupt(e.to_string())),
    }
}

/// Removes what no index writes in its directory: folders, links, FIFOs, devices, sockets (a
/// FIFO or a link to `/dev/zero` in place of `meta.json` would block or fill memory when read;
/// a folder in its place would fail every open). The directory holds only this cache's files.
fn remove_foreign_entries(dir: &Path) -> Result<()> {
    // Never through a link: what it points at is not this cache's to clear.
    if !fs::symlink_metadata(dir)?.is_dir() {
        return Err(Error::invalid(
            format!("the index directory {} is not a directory (a link or a file)", dir.display()),
            "remove it, or choose another cache directory (cacheDir, --cache-dir, RYE_SEARCH_CACHE_DIR)",
        ));
    }
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            fs::remove_dir_all(entry.path())?;
        } else if !kind.is_file() {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Deletes the index's files but its locks: a lock file deleted while held lets the next process
/// make a new one and take it too.
fn clear_index_files(dir: &Path) -> Result<()> {
    let locks = [&INDEX_WRITER_LOCK, &META_LOCK].map(|lock| dir.join(&lock.filepath));
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() && !locks.contains(&path) {
            fs::remove_file(path)?;
        }
    }
    Ok(())
}

/// A string column's values by document, its dictionary decoded once in order: looking each
/// ordinal up decodes a dictionary block up to it, which made the manifest of 60k items take
/// ~200 ms.
struct ColumnStrings {
    ords: Option<tantivy::columnar::Column<u64>>,
    by_ord: Vec<String>,
}

impl ColumnStrings {
    fn of(&self, doc: DocId) -> String {
        let ord = self.ords.as_ref().and_then(|c| c.first(doc));
        ord.and_then(|o| self.by_ord.get(o as usize)).cloned().unwrap_or_default()
    }
}

fn column_strings(column: Option<tantivy::columnar::StrColumn>) -> Result<ColumnStrings> {
    let Some(column) = column else { return Ok(ColumnStrings { ords: None, by_ord: Vec::new() }) };
    let mut by_ord = Vec::with_capacity(column.num_terms());
    let mut terms = column.dictionary().stream()?;
    while terms.advance() {
        by_ord.push(utf8(terms.key())?);
    }
    Ok(ColumnStrings { ords: Some(column.ords().clone()), by_ord })
}

/// An I/O error Tantivy shares behind an `Arc`, as one of our own (its OS code kept for the hint).
fn io_error(e: &std::io::Error) -> std::io::Error {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::new(e.kind(), e.to_string()),
    }
}
