//! N-API binding: translation only. Requests cross as JSON strings (one buffer per call),
//! answers as pages (a text each and one table of numbers, see `wire/page.rs`); searches run on libuv's pool via `AsyncTask`; every core error becomes a JS
//! error whose message carries `{code, message, hint, position}` for the facade to type.
//! Every entry point runs inside [`guarded`]: a panic that crossed into N-API would abort the
//! Node process, so it becomes an `E_INTERNAL` error instead.

use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use rye_search_core::files::FileRead;
use rye_search_core::wire::page::Page;
use rye_search_core::{contained, Batch, Error as CoreError, ItemDoc, SearchIndex, SearchRequest};

mod memory;
use memory::{PromptReturn, ToldMemory};

/// Searches allocate many small strings on several threads; glibc's malloc serialised them on
/// its arena locks (`searchMany` gained a third with mimalloc).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Marker that prefixes structured error payloads in JS error messages.
const ERROR_MARKER: &str = "RYE_ERROR:";

fn to_js(e: CoreError) -> napi::Error {
    napi::Error::from_reason(format!("{ERROR_MARKER}{}", e.payload_json()))
}

/// Runs one entry point with panics contained (see the module comment).
fn guarded<T>(f: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    contained(|| Ok(f())).unwrap_or_else(|panic| Err(to_js(panic)))
}

/// V8's longest string (2^29 - 24 UTF-16 units on 64-bit); the texts of a `searchMany` page are
/// held to it in all (an answer longer than this could not be handed to JavaScript at all).
const MAX_JS_STRING: usize = (1 << 29) - 24;

fn bad_json(what: &str, e: serde_json::Error) -> napi::Error {
    to_js(CoreError::InvalidArgument {
        message: format!("invalid {what}: {e}"),
        hint: "this is a bug in the caller".into(),
    })
}

fn run_search(index: &SearchIndex, request: &str) -> napi::Result<Page> {
    let req: SearchRequest = serde_json::from_str(request).map_err(|e| bad_json("search request", e))?;
    if test_panic().is_some_and(|q| req.query.contains(q.as_str())) {
        panic!("a panic asked for by RYE_SEARCH_TEST_PANIC");
    }
    let answer = index.search(&req).map_err(to_js)?;
    Page::one(&answer, MAX_JS_STRING).map_err(to_js)
}

/// Answers as `ts/answer-page.ts` reads them (see `wire/page.rs` in the core): `{ texts, table }`,
/// a text each and one table of numbers for them all. The table is copied into a buffer V8 owns:
/// handing it Rust's own (an external buffer, freed by a finalizer) doubled a rare-term search.
pub struct NativePage(Page);

impl TypeName for NativePage {
    fn type_name() -> &'static str {
        "NativePage"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for NativePage {
    unsafe fn to_napi_value(raw: napi::sys::napi_env, page: Self) -> napi::Result<napi::sys::napi_value> {
        let env = Env::from_raw(raw);
        let mut object = Object::new(&env)?;
        object.set("table", Float64ArraySlice::copy_from(&env, &page.0.table)?)?;
        object.set("texts", page.0.texts)?;
        ToNapiValue::to_napi_value(raw, object)
    }
}

/// Text whose presence in a query panics inside the search, for tests that show a panic crossing N-API becomes
/// `E_INTERNAL` and leaves the index serving (read once per process; unset in normal use).
fn test_panic() -> Option<&'static String> {
    static QUERY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    QUERY.get_or_init(|| std::env::var("RYE_SEARCH_TEST_PANIC").ok().filter(|q| !q.is_empty())).as_ref()
}

#[napi(custom_finalize)]
pub struct NativeIndex {
    inner: Arc<SearchIndex>,
    memory: ToldMemory,
}

impl NativeIndex {
    fn new(index: SearchIndex) -> Self {
        // Merges a memory index runs after its bulk adds free memory as a bulk write does.
        rye_search_core::set_merge_guard(|| Box::new(PromptReturn::begin()));
        let inner = Arc::new(index);
        NativeIndex { memory: ToldMemory::new(inner.clone()), inner }
    }
}

impl ObjectFinalize for NativeIndex {
    fn finalize(self, env: Env) -> napi::Result<()> {
        self.memory.release(&env);
        Ok(())
    }
}

#[napi]
impl NativeIndex {
    /// Opens or creates a persistent index in `dir`.
    #[napi(factory)]
    pub fn open(dir: String) -> napi::Result<Self> {
        guarded(|| Ok(NativeIndex::new(SearchIndex::open(std::path::Path::new(&dir)).map_err(to_js)?)))
    }

    #[napi(factory)]
    pub fn in_memory() -> napi::Result<Self> {
        guarded(|| Ok(NativeIndex::new(SearchIndex::in_memory().map_err(to_js)?)))
    }

    /// What the index holds, by column: `{keys, mtimes, sizes}`, three arrays in the same order
    /// (`JSON.parse` builds 60k strings and numbers several times faster than 60k objects).
    #[napi]
    pub fn manifest(&self) -> napi::Result<String> {
        #[derive(serde::Serialize)]
        struct Columns<'a> {
            keys: Vec<&'a str>,
            mtimes: Vec<i64>,
            sizes: Vec<u64>,
        }
        guarded(|| {
            let m = self.inner.manifest().map_err(to_js)?;
            let columns = Columns {
                keys: m.iter().map(|e| e.key.as_str()).collect(),
                mtimes: m.iter().map(|e| e.mtime).collect(),
                sizes: m.iter().map(|e| e.size).collect(),
            };
            serde_json::to_string(&columns).map_err(|e| to_js(CoreError::Internal(e.to_string())))
        })
    }

    /// Opstamp of the last commit on disk (changes when any process commits).
    #[napi]
    pub fn opstamp(&self) -> napi::Result<f64> {
        guarded(|| self.inner.opstamp().map(|o| o as f64).map_err(to_js))
    }

    #[napi]
    pub fn num_docs(&self) -> napi::Result<f64> {
        guarded(|| Ok(self.inner.num_docs() as f64))
    }

    /// The bytes V8 was last told this index holds outside its heap (see `memory.rs`).
    #[napi]
    pub fn told_memory(&self) -> f64 {
        self.memory.told() as f64
    }

    /// Sees commits made by other handles or processes; the opstamp of the last commit, which
    /// searches now see.
    #[napi]
    pub fn reload(&self) -> napi::Result<f64> {
        guarded(|| self.inner.reload().map(|o| o as f64).map_err(to_js))
    }

    /// Starts a write batch sized for about `expected_docs` documents (default: a bulk batch);
    /// fails with E_INDEX_LOCKED while another writer is active.
    #[napi]
    pub fn batch(&self, expected_docs: Option<u32>) -> napi::Result<NativeBatch> {
        guarded(|| {
            let expected = expected_docs.map(|n| n as usize).unwrap_or(usize::MAX);
            let batch = self.inner.batch_for(expected).map_err(to_js)?;
            Ok(NativeBatch { inner: Arc::new(Mutex::new(Some(batch))), memory: self.memory.clone() })
        })
    }

    #[napi(ts_return_type = "Promise<{ texts: string[]; table: Float64Array }>")]
    pub fn search(&self, request: String) -> AsyncTask<SearchTask> {
        AsyncTask::new(SearchTask { index: self.inner.clone(), memory: self.memory.clone(), request })
    }

    /// A search on the JS thread. Given `table`, a buffer the caller keeps from one search to the
    /// next, an answer whose numbers fit in it is written there and only its text is returned: a
    /// fresh buffer and an object to hold it cost 8% of a `search()` of a one-item index.
    #[napi(ts_return_type = "string | { texts: string[]; table: Float64Array }")]
    pub fn search_sync(
        &self,
        env: Env,
        request: String,
        table: Option<Float64ArraySlice>,
    ) -> napi::Result<Either<String, NativePage>> {
        let output = guarded(|| run_search(&self.inner, &request));
        // A question answered here may have read the vectors (hundreds of MB at a million items).
        self.memory.update(&env);
        let mut page = output?;
        if let Some(mut table) = table {
            // SAFETY: the JS thread is in this call, so nothing reads or writes the buffer meanwhile.
            let into = unsafe { table.as_mut() };
            if page.texts.len() == 1 && page.table.len() <= into.len() {
                into[..page.table.len()].copy_from_slice(&page.table);
                return Ok(Either::A(page.texts.pop().unwrap_or_default()));
            }
        }
        Ok(Either::B(NativePage(page)))
    }

    /// Starts encoding this index's items with the sentence encoder in the background, on up to
    /// `threads` threads at a lower priority (once; see `useEncoder`).
    #[napi]
    pub fn encode_in_background(&self, threads: u32) -> napi::Result<()> {
        guarded(|| {
            self.inner.encode_in_background(threads as usize);
            Ok(())
        })
    }

    /// Stops the background encoding and resolves once its threads have ended (on a worker
    /// thread: they finish the batch in hand).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn stop_encoding(&self) -> AsyncTask<IndexTask> {
        let work = |index: &SearchIndex| {
            index.stop_encoding();
            Ok(())
        };
        AsyncTask::new(IndexTask { index: self.inner.clone(), work })
    }

    /// Merges parked after bulk adds: run now (`run`) or dropped, and those under way waited
    /// for; resolves on a worker thread once none is left.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn settle_merges(&self, run: bool) -> AsyncTask<IndexTask> {
        let work = match run {
            true => SearchIndex::settle_merges,
            false => |index: &SearchIndex| {
                index.forgo_merges();
                Ok(())
            },
        };
        AsyncTask::new(IndexTask { index: self.inner.clone(), work })
    }

    /// Whether merges are parked after bulk adds or under way.
    #[napi]
    pub fn merges_pending(&self) -> bool {
        self.inner.merges_pending()
    }

    /// Where the background encoding stands; `null` when it was never started.
    #[napi]
    pub fn encoding_status(&self) -> napi::Result<Option<EncodingProgress>> {
        guarded(|| {
            Ok(self.inner.encoding_status().map(|s| EncodingProgress {
                state: s.state.to_string(),
                encoded: s.encoded as f64,
                total: s.total as f64,
                error: s.error,
            }))
        })
    }

    /// JSON array of requests in; a page out, an answer or an error per request, in the same
    /// order (see `wire::page`).
    #[napi(ts_return_type = "Promise<{ texts: string[]; table: Float64Array }>")]
    pub fn search_many(&self, requests: String) -> AsyncTask<SearchManyTask> {
        AsyncTask::new(SearchManyTask { index: self.inner.clone(), memory: self.memory.clone(), requests })
    }
}

/// Where an index's background encoding stands.
#[napi(object)]
pub struct EncodingProgress {
    /// `loading`, `encoding`, `settled` (searches use the encoder's vectors) or `off`.
    pub state: String,
    pub encoded: f64,
    pub total: f64,
    /// Why it is `off`.
    pub error: Option<String>,
}

/// Names the sentence encoder's file, which indexes read on their first background encoding
/// (`null`: none; encoding then reports `off`).
#[napi]
pub fn use_encoder(path: Option<String>) -> napi::Result<()> {
    guarded(|| {
        rye_search_core::semantic::use_encoder(path.as_deref().map(std::path::Path::new));
        Ok(())
    })
}

/// The process is ending: searches of batches under way that have not begun answer at once (its
/// exit waits for the native work in flight). Called from the main thread's `exit` event.
#[napi]
pub fn stop_batches() {
    rye_search_core::stop_batches();
}

/// The version of the index's schema this build writes: indexes of other versions are kept in
/// folders of their own (two versions of the package sharing a cache cleared each other's).
#[napi]
pub fn schema_version() -> u32 {
    rye_search_core::SCHEMA_VERSION
}

/// The most UTF-8 bytes a document's id and key may have: a file whose would be longer is skipped.
#[napi(object)]
pub struct DocumentLimits {
    pub id_bytes: u32,
    pub key_bytes: u32,
}

#[napi]
pub fn document_limits() -> DocumentLimits {
    DocumentLimits { id_bytes: rye_search_core::MAX_ID_BYTES as u32, key_bytes: rye_search_core::MAX_KEY_BYTES as u32 }
}

/// Loads the embedding model every index of this process uses for semantic search; returns its
/// identity (dimensions, tokens, a hash of its bytes). Without one, searches are keyword-only.
#[napi]
pub fn load_model(path: String) -> napi::Result<String> {
    guarded(|| rye_search_core::semantic::load_model(std::path::Path::new(&path)).map_err(to_js))
}

/// Stats `\0`-separated paths on all cores: `[mtime µs, size, kind, ctime µs]` per path
/// (kind 0 missing, 1 file, 2 directory, 3 other).
#[napi]
pub fn stat_many(paths: String) -> napi::Result<Float64Array> {
    guarded(|| {
        let list: Vec<&str> = if paths.is_empty() { Vec::new() } else { paths.split('\0').collect() };
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(4);
        let mut out = Vec::with_capacity(list.len() * 4);
        for s in rye_search_core::files::stat_many(&list, threads) {
            out.extend([s.mtime_us as f64, s.size as f64, s.kind as u8 as f64, s.ctime_us as f64]);
        }
        Ok(Float64Array::new(out))
    })
}

/// Files read by [`read_files`]: the bytes of those read, end to end, and for every path (in
/// order) where its bytes end, what happened (`""` read, `TOO_LARGE`, `NOT_REGULAR`, or an error
/// code such as `ENOENT`), its size when too large, and the error's message.
#[napi(object)]
pub struct FileBatch {
    pub bytes: Buffer,
    pub ends: Vec<f64>,
    pub codes: Vec<String>,
    pub sizes: Vec<f64>,
    pub messages: Vec<String>,
}

/// Reads `\0`-separated paths off the JS thread, several at a time: regular files of at most
/// `max_bytes` (links followed) that, opened, are inside the real directory given for each in
/// `\0`-separated `within` (empty: anywhere); anything else is reported, never read.
#[napi(ts_return_type = "Promise<FileBatch>")]
pub fn read_files(paths: String, max_bytes: f64, within: String) -> AsyncTask<ReadFilesTask> {
    AsyncTask::new(ReadFilesTask { paths, within, max_bytes: max_bytes.max(0.0) as u64 })
}

pub struct ReadFilesTask {
    paths: String,
    within: String,
    max_bytes: u64,
}

/// The parts of a `\0`-separated list (none for an empty one).
fn split_nul(list: &str) -> Vec<&str> {
    if list.is_empty() {
        Vec::new()
    } else {
        list.split('\0').collect()
    }
}

/// Threads reading at once: a read waits on the disk as often as on a core.
const READ_THREADS: usize = 4;

impl Task for ReadFilesTask {
    type Output = Vec<FileRead>;
    type JsValue = FileBatch;
    fn compute(&mut self) -> napi::Result<Vec<FileRead>> {
        guarded(|| {
            let (paths, within) = (split_nul(&self.paths), split_nul(&self.within));
            let list: Vec<(&str, &str)> =
                paths.iter().enumerate().map(|(i, p)| (*p, within.get(i).copied().unwrap_or(""))).collect();
            Ok(rye_search_core::files::read_many(&list, self.max_bytes, READ_THREADS))
        })
    }
    fn resolve(&mut self, _env: Env, reads: Vec<FileRead>) -> napi::Result<FileBatch> {
        let total = reads.iter().map(|r| if let FileRead::Bytes(b) = r { b.len() } else { 0 }).sum();
        let mut batch = FileBatch {
            bytes: Buffer::from(Vec::new()),
            ends: Vec::with_capacity(reads.len()),
            codes: Vec::with_capacity(reads.len()),
            sizes: Vec::with_capacity(reads.len()),
            messages: Vec::with_capacity(reads.len()),
        };
        let mut bytes = Vec::with_capacity(total);
        for read in reads {
            let (code, size, message) = match read {
                FileRead::Bytes(b) => {
                    bytes.extend_from_slice(&b);
                    ("", b.len() as u64, String::new())
                }
                FileRead::TooLarge(size) => ("TOO_LARGE", size, String::new()),
                FileRead::NotRegular => ("NOT_REGULAR", 0, String::new()),
                FileRead::Outside(real) => ("OUTSIDE", 0, real),
                FileRead::Failed { code, message } => (code, 0, message),
            };
            batch.ends.push(bytes.len() as f64);
            batch.codes.push(code.to_owned());
            batch.sizes.push(size as f64);
            batch.messages.push(message);
        }
        batch.bytes = Buffer::from(bytes);
        Ok(batch)
    }
}

/// Work on an index that answers nothing, run on a worker thread: stopping the encoding,
/// settling merges.
pub struct IndexTask {
    index: Arc<SearchIndex>,
    work: fn(&SearchIndex) -> rye_search_core::Result<()>,
}

impl Task for IndexTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> napi::Result<()> {
        guarded(|| (self.work)(&self.index).map_err(to_js))
    }

    fn resolve(&mut self, _env: Env, _output: ()) -> napi::Result<()> {
        Ok(())
    }
}

pub struct SearchTask {
    index: Arc<SearchIndex>,
    memory: ToldMemory,
    request: String,
}

impl Task for SearchTask {
    type Output = Page;
    type JsValue = NativePage;
    fn compute(&mut self) -> napi::Result<Page> {
        guarded(|| run_search(&self.index, &self.request))
    }
    /// A search may have read a segment's vectors (the first semantic one does).
    fn resolve(&mut self, env: Env, output: Page) -> napi::Result<NativePage> {
        self.memory.update(&env);
        Ok(NativePage(output))
    }
}

pub struct SearchManyTask {
    index: Arc<SearchIndex>,
    memory: ToldMemory,
    requests: String,
}

impl Task for SearchManyTask {
    type Output = Page;
    type JsValue = NativePage;
    fn compute(&mut self) -> napi::Result<Page> {
        guarded(|| search_many(&self.index, &self.requests))
    }
    fn resolve(&mut self, env: Env, output: Page) -> napi::Result<NativePage> {
        self.memory.update(&env);
        Ok(NativePage(output))
    }
}

fn search_many(index: &SearchIndex, requests: &str) -> napi::Result<Page> {
    let reqs: Vec<SearchRequest> = serde_json::from_str(requests).map_err(|e| bad_json("search requests", e))?;
    Ok(index.search_many_page(&reqs, MAX_JS_STRING))
}

/// One write session; changes become visible at `commit`, or are discarded by `abort`.
#[napi]
pub struct NativeBatch {
    inner: Arc<Mutex<Option<Batch>>>,
    /// The written index's memory, told to V8 after its commit.
    memory: ToldMemory,
}

fn batch_used() -> napi::Error {
    to_js(CoreError::InvalidArgument {
        message: "this batch was already committed or aborted".into(),
        hint: "start a new batch".into(),
    })
}

/// Runs `f` on the open batch. A batch whose operation panicked is dropped (its writer lock
/// released, nothing committed): half-applied documents must never be committed.
fn with_batch<T>(inner: &Mutex<Option<Batch>>, f: impl FnOnce(&mut Batch) -> napi::Result<T>) -> napi::Result<T> {
    let mut guard = inner.lock().unwrap_or_else(|e| e.into_inner());
    let batch = guard.as_mut().ok_or_else(batch_used)?;
    let result = guarded(|| f(batch));
    if matches!(&result, Err(e) if e.reason.contains("E_INTERNAL")) {
        guard.take();
    }
    result
}

#[napi]
impl NativeBatch {
    /// JSON arrays of documents, in order; each document replaces any with the same key. Several
    /// short texts rather than one long one: each dies young on the JS side once copied here.
    /// Runs on libuv's pool (tokenising and embedding take milliseconds per hundred documents),
    /// so the caller can read the next files meanwhile; one upsert at a time per batch.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn upsert(&self, texts: Vec<String>) -> AsyncTask<UpsertTask> {
        AsyncTask::new(UpsertTask { batch: self.inner.clone(), texts })
    }

    #[napi]
    pub fn delete(&self, keys: Vec<String>) -> napi::Result<()> {
        with_batch(&self.inner, |b| {
            b.delete(&keys);
            Ok(())
        })
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn commit(&self) -> napi::Result<AsyncTask<CommitTask>> {
        let batch = self.inner.lock().unwrap_or_else(|e| e.into_inner()).take();
        let batch = batch.ok_or_else(batch_used)?;
        Ok(AsyncTask::new(CommitTask { batch: Some(batch), memory: self.memory.clone() }))
    }

    /// Discards uncommitted changes (and, on disk, the files they wrote) and releases the writer lock.
    #[napi]
    pub fn abort(&self) {
        let batch = self.inner.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(batch) = batch {
            let _ = guarded(|| {
                batch.discard();
                Ok(())
            });
        }
    }
}

pub struct UpsertTask {
    batch: Arc<Mutex<Option<Batch>>>,
    texts: Vec<String>,
}

impl Task for UpsertTask {
    type Output = ();
    type JsValue = ();
    fn compute(&mut self) -> napi::Result<()> {
        let _prompt = with_batch(&self.batch, |b| Ok(b.is_bulk()))?.then(PromptReturn::begin);
        for text in std::mem::take(&mut self.texts) {
            let docs: Vec<ItemDoc> = guarded(|| serde_json::from_str(&text).map_err(|e| bad_json("documents", e)))?;
            drop(text);
            with_batch(&self.batch, |b| b.upsert(&docs).map_err(to_js))?;
        }
        Ok(())
    }
    fn resolve(&mut self, _env: Env, _output: ()) -> napi::Result<()> {
        Ok(())
    }
}

pub struct CommitTask {
    batch: Option<Batch>,
    memory: ToldMemory,
}

impl Task for CommitTask {
    type Output = ();
    type JsValue = ();
    fn compute(&mut self) -> napi::Result<()> {
        match self.batch.take() {
            Some(b) => {
                let _prompt = b.is_bulk().then(PromptReturn::begin);
                guarded(|| b.commit().map_err(to_js))
            }
            None => Ok(()),
        }
    }
    fn resolve(&mut self, env: Env, _output: ()) -> napi::Result<()> {
        self.memory.update(&env);
        Ok(())
    }
}
