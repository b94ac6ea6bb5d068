//! Encoding in the background: items get sentence-encoder vectors on threads of their own, at a
//! lower priority, a few hundred at a time, while the static model's vectors answer. Searches
//! switch to the encoder's vectors once every item they can see has one (the index has
//! *settled*), and back to the static ones while new items wait — never a mix of the two, whose
//! similarities are not comparable. Nothing here blocks a search, a refresh or a commit: the
//! threads read a searcher like any search and keep vectors outside the index.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::Duration;

use rustc_hash::FxHashSet;
use tantivy::index::SegmentId;
use tantivy::{DocId, Searcher};

use super::SearchIndex;
use crate::error::{contained, Result};
use crate::hit_store::HitStore;
use crate::semantic::{self, EncodedStore, Encoder};
use crate::stored::{stored_texts, text};
use crate::wire::answer::stored_meaning_parts;

/// Items encoded together: one batch of matrix products (larger batches were no faster).
const BATCH: usize = 32;
/// Items a round encodes before it looks again at what the index holds (new commits, a drop).
const ROUND: usize = 512;
/// How often a settled index looks for new items without being woken.
const IDLE_WAIT: Duration = Duration::from_millis(500);
/// How long a new index's encoding waits for its first adds to begin before reading the encoder
/// (they usually follow its making at once; then it waits for their pause).
const FIRST_ADDS: Duration = Duration::from_millis(100);

/// Where an index's background encoding stands.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EncodingStatus {
    /// `loading` (reading the encoder), `encoding`, `settled` (searches use its vectors), or
    /// `off` (no encoder: `error` says why).
    pub state: &'static str,
    /// Items that have an encoder vector, of `total` with text to encode.
    pub encoded: u64,
    pub total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

pub(crate) struct Encoding {
    threads: usize,
    stop: AtomicBool,
    state: Mutex<EncodingStatus>,
    wake: Condvar,
    store: OnceLock<Arc<EncodedStore>>,
    /// The segments of the searcher the index last settled for, sorted; None before it first
    /// settled (an index with no segments settles too: a caller waits for that).
    settled: Mutex<Option<Vec<SegmentId>>>,
    /// The encoding thread, joined when the index is closed.
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl SearchIndex {
    /// Starts encoding this index's items in the background on up to `threads` threads (once; a
    /// second call changes nothing).
    pub fn encode_in_background(self: &Arc<Self>, threads: usize) {
        // An encoder turned off (or one that failed to load for another index) is off from the
        // start: "loading" until the thread found out had answers say the encoder was starting.
        let unavailable = semantic::encoder_unavailable();
        let state = match &unavailable {
            Some(why) => EncodingStatus { state: "off", encoded: 0, total: 0, error: Some(why.clone()) },
            None => EncodingStatus { state: "loading", encoded: 0, total: 0, error: None },
        };
        let encoding = Arc::new(Encoding {
            threads: threads.clamp(1, 64),
            stop: AtomicBool::new(false),
            state: Mutex::new(state),
            wake: Condvar::new(),
            store: OnceLock::new(),
            settled: Mutex::default(),
            thread: Mutex::default(),
        });
        if self.encoding.set(encoding.clone()).is_err() || unavailable.is_some() {
            return;
        }
        let index = Arc::downgrade(self);
        let running = encoding.clone();
        match std::thread::Builder::new().name("rye-encode".into()).spawn(move || running.run(index)) {
            Ok(handle) => *encoding.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle),
            Err(e) => self.encoding_failed(format!("no thread to encode on: {e}")),
        }
    }

    /// Stops the background encoding and waits for its threads to end (they stop between two
    /// batches: well under a second): a closed index no longer reads its files or writes its
    /// vectors. What was encoded is kept.
    pub fn stop_encoding(&self) {
        let Some(encoding) = self.encoding.get() else { return };
        encoding.stop.store(true, Ordering::Release);
        encoding.wake.notify_all();
        let handle = encoding.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(handle) = handle {
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
        let mut state = encoding.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.state != "off" {
            state.state = "off";
            state.error = Some("stopped: the index was closed".into());
        }
    }

    /// Where the background encoding stands; `None` when it was never started. `settled` only
    /// while searches see what it settled for: after a commit it is `encoding` until the
    /// encoding has looked at the new items.
    pub fn encoding_status(&self) -> Option<EncodingStatus> {
        let encoding = self.encoding.get()?;
        let mut status = encoding.state.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if status.state == "settled" && self.settled_encoder(&self.reader.searcher()).is_none() {
            status.state = "encoding";
        }
        Some(status)
    }

    /// Bytes the encoder's vectors take in memory (besides the segments' copies).
    pub(crate) fn encoded_bytes(&self) -> u64 {
        self.encoding.get().and_then(|e| e.store.get()).map_or(0, |s| s.bytes())
    }

    fn encoding_failed(&self, why: String) {
        if let Some(encoding) = self.encoding.get() {
            encoding.set_off(why);
        }
    }

    /// The encoder and its vectors, when every item `searcher` sees has one.
    pub(crate) fn settled_encoder(&self, searcher: &Searcher) -> Option<(Arc<Encoder>, Arc<EncodedStore>)> {
        let encoding = self.encoding.get()?;
        let store = encoding.store.get()?;
        let mut ids: Vec<SegmentId> = searcher.segment_readers().iter().map(|s| s.segment_id()).collect();
        ids.sort_unstable();
        let settled = encoding.settled.lock().unwrap_or_else(|e| e.into_inner()).as_ref() == Some(&ids);
        settled.then(|| Some((semantic::loaded_encoder()?, store.clone()))).flatten()
    }

    /// Wakes the background encoding (new items may be visible).
    pub(crate) fn wake_encoding(&self) {
        if let Some(encoding) = self.encoding.get() {
            encoding.wake.notify_all();
        }
    }
}

/// An index's background encoding, once started; stopped when the index is dropped.
#[derive(Default)]
pub(crate) struct EncodingSlot(OnceLock<Arc<Encoding>>);

impl EncodingSlot {
    fn get(&self) -> Option<&Arc<Encoding>> {
        self.0.get()
    }

    fn set(&self, encoding: Arc<Encoding>) -> std::result::Result<(), Arc<Encoding>> {
        self.0.set(encoding)
    }
}

impl Drop for EncodingSlot {
    fn drop(&mut self) {
        if let Some(encoding) = self.0.get() {
            encoding.stop.store(true, Ordering::Release);
            encoding.wake.notify_all();
        }
    }
}

impl Encoding {
    fn set_off(&self, why: String) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.state = "off";
        state.error = Some(why);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    fn run(&self, index: Weak<SearchIndex>) {
        lower_priority();
        // The encoder is read once the adds that follow an index's making have paused and their
        // merges have run: read beside them, it added ~33 MB to their peak (c60k in 5,000s).
        {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if !self.stopped() {
                let _ = self.wake.wait_timeout(state, FIRST_ADDS);
            }
        }
        match index.upgrade() {
            Some(index) => index.bulk_run.wait_for_pause(|| self.stopped()),
            None => return,
        }
        if self.stopped() {
            return;
        }
        let encoder = match semantic::encoder() {
            Ok(encoder) => encoder,
            Err(why) => return self.set_off(why),
        };
        let Some(first) = index.upgrade() else { return };
        let store = match &first.location {
            Some(dir) => EncodedStore::open(dir, encoder.dims(), encoder.identity()),
            None => EncodedStore::in_memory(encoder.dims(), encoder.identity()),
        };
        let store = self.store.get_or_init(|| Arc::new(store)).clone();
        drop(first);
        while !self.stopped() {
            let Some(index) = index.upgrade() else { return };
            // A panic (a bug) turns the encoding off with its message: the static tier answers on.
            match contained(|| self.round(&index, &encoder, &store)) {
                Ok(true) => continue,
                Ok(false) => {}
                Err(e) => return self.set_off(format!("encoding stopped: {e}")),
            }
            drop(index);
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if !self.stopped() {
                let _ = self.wake.wait_timeout(state, IDLE_WAIT);
            }
        }
    }

    /// Encodes up to [`ROUND`] of the items the index's searcher sees without a vector; false
    /// when there were none (the index is settled for that searcher).
    ///
    /// A round holds its searcher and the segments' stores, and with them every segment it
    /// sees: it starts once bulk adds have paused and stops early when they start again, so the
    /// segments their merges replace are let go. The next round waits for the pause with no
    /// searcher (a round used to wait for it holding one, through the merges).
    fn round(&self, index: &SearchIndex, encoder: &Encoder, store: &EncodedStore) -> Result<bool> {
        index.bulk_run.wait_for_pause(|| self.stopped());
        if self.stopped() {
            return Ok(false);
        }
        let searcher = index.reader.searcher();
        let mut ids: Vec<SegmentId> = searcher.segment_readers().iter().map(|s| s.segment_id()).collect();
        ids.sort_unstable();
        // Settled for these very segments: nothing new can be pending (segments never change),
        // so an idle index does not look up every item's key twice a second.
        if self.settled.lock().unwrap_or_else(|e| e.into_inner()).as_ref() == Some(&ids) {
            return Ok(false);
        }
        let (pending, total) = pending(&searcher, store)?;
        self.report(total, total - pending.len() as u64, pending.is_empty());
        if pending.is_empty() {
            if outgrown(store.len(), total) {
                store.keep_only(&live_keys(&searcher));
            }
            *self.settled.lock().unwrap_or_else(|e| e.into_inner()) = Some(ids);
            return Ok(false);
        }
        // Opened for this round, not taken from the searches' cache of segment parts: a round reads
        // only the stores, and the cache opens every part of each segment (columns, dictionaries).
        let stores: Vec<HitStore> =
            searcher.segment_readers().iter().map(|s| HitStore::open(&index.index, s)).collect::<Result<_>>()?;
        let (item, content) = (index.fields.item.field_id(), index.fields.content().field_id());
        let work: Vec<&[(u64, u32, DocId)]> = pending[..pending.len().min(ROUND)].chunks(BATCH).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let done = AtomicU64::new(total - pending.len() as u64);
        let encode = || -> Result<()> {
            lower_priority();
            loop {
                let i = next.fetch_add(1, Ordering::AcqRel);
                let Some(batch) = work.get(i) else { return Ok(()) };
                // Bulk adds first: their commits make the first answers. The round ends here,
                // and the next waits for their pause.
                if self.stopped() || !index.bulk_run.paused() {
                    return Ok(());
                }
                let mut texts = Vec::with_capacity(batch.len());
                for &(_, ord, doc) in *batch {
                    let bytes = stores[ord as usize].document(doc)?;
                    texts.push(stored_meaning(&bytes, item, content));
                }
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let vectors = encoder.embed(&refs, ITEM_TOKENS);
                let keyed: Vec<(u64, Vec<f32>)> =
                    batch.iter().zip(vectors).filter_map(|(&(key, _, _), v)| Some((key, v?))).collect();
                store.add(&keyed);
                // An item with no words gets no vector, and never will: counted as done.
                let n = done.fetch_add(batch.len() as u64, Ordering::AcqRel) + batch.len() as u64;
                self.report(total, n, false);
            }
        };
        let results: Vec<Result<()>> = std::thread::scope(|s| {
            let helpers: Vec<_> = (1..self.threads.min(work.len())).map(|_| s.spawn(encode)).collect();
            let mut results = vec![encode()];
            let panicked = || Err(crate::error::Error::Internal("an encoding thread panicked".into()));
            results.extend(helpers.into_iter().map(|h| h.join().unwrap_or_else(|_| panicked())));
            results
        });
        results.into_iter().collect::<Result<Vec<()>>>()?;
        Ok(true)
    }

    fn report(&self, total: u64, encoded: u64, settled: bool) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.total = total;
        state.encoded = encoded.min(total);
        state.state = if settled { "settled" } else { "encoding" };
    }
}

/// The text the sentence encoder reads of a stored document, made as the index made its key
/// (`semantic::meaning_text` of its stored item and content). Empty, so given no vector, when
/// the document holds no item of the usual shape or a value cannot be read.
fn stored_meaning(doc: &[u8], item: u32, content: u32) -> String {
    let (mut parts, mut body) = (None, "");
    for (field, bytes) in stored_texts(doc).map_while(|value| value.ok()) {
        match text(bytes) {
            Ok(t) if field == item => parts = stored_meaning_parts(t),
            Ok(t) if field == content => body = t,
            _ => {}
        }
    }
    parts.map_or_else(String::new, |[title, name, description]| {
        semantic::meaning_text(&title, &name, &description, body)
    })
}

/// Tokens of an item the encoder reads: its name, description and tags, and the start of its
/// content. Half the model's 128 halves the cost (the whole Debian archive settles in minutes on
/// two cores instead of a quarter of an hour); what an item is about is said at its start.
const ITEM_TOKENS: usize = 64;

/// The items `searcher` sees whose meaning has no vector yet, one per key, and how many items
/// have a meaning key at all.
/// Items to encode: meaning key, segment ordinal, doc.
type Pending = Vec<(u64, u32, DocId)>;

/// Whether a store keeping `kept` vectors holds many more than the `live` items need: the
/// vectors of texts no item has any longer are let go once they double what is needed (plus a
/// little, so a small index never rewrites its file for a few).
fn outgrown(kept: usize, live: u64) -> bool {
    kept as u64 > 2 * live + 1024
}

/// Calls `visit` with the meaning key (never 0), segment ordinal and doc of every item `searcher`
/// shows that has one.
fn each_meaning_key(searcher: &Searcher, mut visit: impl FnMut(u64, u32, DocId)) {
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let Ok(keys) = segment.fast_fields().u64("meaning_key") else { continue };
        let alive = segment.alive_bitset();
        for doc in 0..segment.max_doc() {
            if alive.is_some_and(|a| !a.is_alive(doc)) {
                continue;
            }
            if let Some(key) = keys.first(doc).filter(|k| *k != 0) {
                visit(key, ord as u32, doc);
            }
        }
    }
}

/// The meaning keys of the items `searcher` shows.
fn live_keys(searcher: &Searcher) -> FxHashSet<u64> {
    let mut live = FxHashSet::default();
    each_meaning_key(searcher, |key, _, _| {
        live.insert(key);
    });
    live
}

fn pending(searcher: &Searcher, store: &EncodedStore) -> Result<(Pending, u64)> {
    let mut keyed = Vec::new();
    each_meaning_key(searcher, |key, ord, doc| keyed.push((key, ord, doc)));
    let total = keyed.len() as u64;
    let missing = store.missing(keyed.iter().map(|k| k.0));
    let mut seen = FxHashSet::default();
    let pending = keyed.into_iter().zip(missing).filter(|(k, missing)| *missing && seen.insert(k.0)).map(|(k, _)| k);
    Ok((pending.collect(), total))
}

/// Runs the calling thread at the lowest priority, so encoding yields the cores to searches,
/// writes and the event loop. Linux: `SCHED_IDLE` for this thread alone — any other thread that
/// wakes takes the core at once. A nice value of 10 (the fallback) still ran the encoder in
/// whole slices before a woken thread: a one-item add, which hands work between four threads,
/// took 8.9 ms beside the encoder instead of 3.9 ms without it (c10k).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: both calls change only this thread's scheduling (0 is the calling thread).
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        if libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) != 0 {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, 10);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::{meaning_key, meaning_text};
    use crate::stored::shown_text;
    use crate::wire::ItemDoc;

    /// The index writes only the key of an item's meaning text; the encoding makes the text again
    /// from the stored item and content. A text made otherwise would be encoded under a key that
    /// is not its own, and a search by meaning would rank with another item's vector.
    #[test]
    fn the_text_made_again_from_a_stored_document_has_the_key_the_index_wrote() {
        let long = "word ".repeat(300);
        let items = [
            ("Tmux", "tmux", "terminal  multiplexer", "  switch\tbetween\n\nprograms  "),
            ("say \"hi\" \\ now", "other-name", "tab\there, control \u{1}", long.as_str()),
            ("Ünïcödé ✓ 文字 😀", "ÜNÏCÖDÉ ✓ 文字 😀", "", "\u{3000}ideographic\u{3000}space, e\u{301}, \u{2028} "),
            ("", "", "", "   "),
        ];
        let docs: Vec<ItemDoc> = items
            .iter()
            .enumerate()
            .map(|(i, (title, name, description, content))| {
                serde_json::from_value(serde_json::json!({
                    "key": format!("k{i}"), "id": format!("id{i}"), "kind": "tool", "space": "project",
                    "name": name, "title": title, "description": description, "content": content,
                }))
                .unwrap()
            })
            .collect();
        let index = SearchIndex::in_memory().unwrap();
        let mut batch = index.batch().unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
        index.reload().unwrap();
        let searcher = index.reader.searcher();
        let parts = index.segment_parts(&searcher).unwrap();
        let (item, content) = (index.fields.item.field_id(), index.fields.content().field_id());
        let mut made = Vec::new();
        each_meaning_key(&searcher, |key, ord, doc| {
            let bytes = parts[ord as usize].store.document(doc).unwrap();
            made.push((key, stored_meaning(&bytes, item, content)));
        });
        let expected: Vec<String> = docs
            .iter()
            .map(|d| meaning_text(&d.title, &d.name, &d.description, &shown_text(&d.content)))
            .filter(|text| !text.is_empty())
            .collect();
        // The item without words has no key, and is never encoded.
        assert_eq!(made.len(), 3);
        for (key, text) in &made {
            assert_eq!(*key, meaning_key(text), "{text:?}");
            assert!(expected.contains(text), "{text:?} is not among {expected:?}");
        }
        assert!(made.iter().any(|(_, t)| t.starts_with("Tmux. terminal  multiplexer. switch between programs")));
        assert!(made.iter().any(|(_, t)| t.contains("say \"hi\" \\ now. other-name.")));
    }

    #[test]
    fn a_store_is_cut_back_once_it_holds_twice_what_the_items_need_and_more() {
        assert!(!outgrown(0, 0));
        assert!(!outgrown(1024, 0));
        assert!(outgrown(1025, 0));
        assert!(!outgrown(2 * 60_000 + 1024, 60_000));
        assert!(outgrown(2 * 60_000 + 1025, 60_000));
    }
}
