//! A run of bulk adds, and what waits for it to pause: merges (for an index held in memory) and
//! the background encoding.
//!
//! Adding 63,666 items in batches of 5,000 spent more time merging than indexing: each batch's
//! merge rewrote everything added before it, up to the bulk floor. A bulk batch of an index in
//! memory now returns once its commit is searchable; its writer is parked here, and the merges
//! the policy asks for run on a thread of their own once no bulk write has come for [`QUIET`]:
//! after the last add of a run, all at once. A write that comes first takes the writer's place
//! (the merges wait for the next pause); one that comes while they run waits for them, as it
//! waited for the merges inside a commit before. [`DEFERRED_SEGMENTS_MAX`] bounds what a run that
//! never pauses leaves unmerged (every query and every commit pays per segment).
//!
//! Merges run only with the writer parked here, which no batch holds: never beside a commit (see
//! `Batch::commit` for the race that rules this out). Indexes on disk merge in the commit as
//! before: another process would meet the parked writer's lock, and a process that ends within
//! the pause would leave its segments unmerged for good.
//!
//! The background encoding waits for the same pause ([`BulkRun::wait_for_pause`]): on two cores
//! it took most of a core from the adds it followed (c60k in batches of 5,000: 3.9 s with it,
//! 3.1 s without).

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use tantivy::indexer::MergePolicy;
use tantivy::schema::Field;
use tantivy::{IndexReader, IndexWriter, TantivyDocument};

use super::merge::merge_by_policy;
use super::parts::PartsCache;
use crate::error::{contained, Result};

/// How long no bulk write must come before what waits for a pause starts: far longer than the
/// gap between two adds of a loop, far shorter than a pause a user notices.
const QUIET: Duration = Duration::from_millis(100);
/// Segments a run of bulk adds may leave unmerged; past it, a commit merges as on disk. A
/// million items in 5,000s (200 segments) then merge once, after the adds: 57.5 s until they
/// return, against 80.9 s with 32 and 71.2 s with 128 (merging in the commits), peak RSS 2.4 GB
/// against 2.6 and 2.7 (`node bench/probes/build-phases.js c1m`). A query pays a little per
/// segment, and a commit reopens each (~50 µs): bounded, while a run lasts.
pub(super) const DEFERRED_SEGMENTS_MAX: usize = 256;

/// What the program embedding the index holds while merges run on a thread of their own (the
/// Node binding: memory they free goes back to the system at once, as in a commit's merges).
static MERGE_GUARD: OnceLock<fn() -> Box<dyn Send>> = OnceLock::new();

/// Sets what [`MERGE_GUARD`] makes (once per process; later calls change nothing).
pub fn set_merge_guard(guard: fn() -> Box<dyn Send>) {
    let _ = MERGE_GUARD.set(guard);
}

/// A committed batch's writer, with what its merges need.
pub(super) struct Parked {
    pub(super) writer: IndexWriter<TantivyDocument>,
    pub(super) merges: Box<dyn MergePolicy>,
    pub(super) key: Field,
    pub(super) reader: IndexReader,
    pub(super) parts: PartsCache,
}

impl Parked {
    fn merge(self) -> Result<()> {
        merge_by_policy(self.writer, self.merges.as_ref(), self.key, (&self.reader, &self.parts))
    }
}

#[derive(Default)]
pub(crate) struct BulkRun {
    slot: Mutex<Slot>,
    /// Signalled when a merge run ends.
    idle: Condvar,
}

#[derive(Default)]
struct Slot {
    /// Bulk batches open now.
    open: usize,
    /// When the last bulk batch ended.
    last_end: Option<Instant>,
    parked: Option<Parked>,
    merging: bool,
    /// A write took a parked writer's place before its merges ran: that write parks its own
    /// merges by the bulk policy, small as it may be (else a one-item add right after a run
    /// merged the run's segments in its commit).
    owed: bool,
    /// When the writer now parked was parked.
    parked_at: Option<Instant>,
    /// Whether the thread that merges after a pause is alive.
    waiter: bool,
}

/// One bulk batch of a run, open until dropped.
pub(super) struct BulkWrite {
    run: Arc<BulkRun>,
    defer_merges: bool,
}

impl BulkWrite {
    /// Whether this batch's merges wait for the run to pause (an index in memory).
    pub(super) fn defers_merges(&self) -> bool {
        self.defer_merges
    }

    /// Ends this batch and keeps `parked` until the run pauses, then merges on a thread of its own
    /// (one an index, however fast the writes come).
    pub(super) fn park(self, parked: Parked) {
        let run = self.run.clone();
        drop(self);
        let start_waiter = {
            let mut slot = run.slot();
            slot.parked = Some(parked);
            slot.parked_at = Some(Instant::now());
            !std::mem::replace(&mut slot.waiter, true)
        };
        if !start_waiter {
            return;
        }
        let waiting = run.clone();
        let waiter = std::thread::Builder::new().name("rye-merge".into()).spawn(move || waiting.merge_when_paused());
        if waiter.is_err() {
            run.slot().waiter = false;
            // No thread to wait on: merge now, as a commit on disk does.
            let _ = run.settle();
        }
    }
}

impl Drop for BulkWrite {
    fn drop(&mut self) {
        let mut slot = self.run.slot();
        slot.open = slot.open.saturating_sub(1);
        slot.last_end = Some(Instant::now());
    }
}

impl BulkRun {
    fn slot(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A bulk batch opens (its writer already holds the lock).
    pub(super) fn begin(this: &Arc<Self>, defer_merges: bool) -> BulkWrite {
        this.slot().open += 1;
        BulkWrite { run: this.clone(), defer_merges }
    }

    /// Before a write takes the lock: drops a parked writer (its merges wait for the next pause)
    /// and waits for merges under way.
    pub(super) fn claim(&self) {
        let parked = {
            let mut slot = self.wait_idle();
            let parked = slot.parked.take();
            slot.owed |= parked.is_some();
            parked
        };
        drop(parked);
    }

    /// Whether merges were parked and then left for the next write to park again (see `owed`).
    pub(super) fn owed(&self) -> bool {
        self.slot().owed
    }

    /// Runs what is parked now, without waiting for a pause, and waits for merges under way: the
    /// index is then as merged as its policy asks.
    pub(super) fn settle(&self) -> Result<()> {
        let parked = {
            let mut slot = self.wait_idle();
            let parked = slot.parked.take();
            slot.merging = parked.is_some();
            parked
        };
        self.run(parked)
    }

    /// The waiter's life: merges what is parked once it has been parked for [`QUIET`] (a write
    /// that comes first takes it away, and a later park starts the wait again); ends when nothing
    /// is parked.
    fn merge_when_paused(&self) {
        loop {
            let parked = {
                let mut slot = self.slot();
                let Some(at) = slot.parked_at.filter(|_| slot.parked.is_some()) else {
                    slot.waiter = false;
                    return;
                };
                match quiet_left(at) {
                    Some(left) => {
                        drop(self.idle.wait_timeout(slot, left));
                        continue;
                    }
                    None if slot.merging => {
                        drop(self.idle.wait_timeout(slot, QUIET));
                        continue;
                    }
                    None => {
                        slot.merging = true;
                        slot.parked.take()
                    }
                }
            };
            // A failed merge leaves the segments as they were: searchable, merged at a later pause.
            let _ = self.run(parked);
        }
    }

    /// Whether merges are parked or under way.
    pub(super) fn merges_pending(&self) -> bool {
        let slot = self.slot();
        slot.merging || slot.parked.is_some()
    }

    /// Returns once no bulk batch is open, none has ended for [`QUIET`] and the merges they left
    /// have run, or when `stop` says so (checked at each look). Background work calls it between
    /// its steps: the encoder began beside a million items' merges, and its reads of 200
    /// segments about to go added ~500 MB to their peak.
    pub(crate) fn wait_for_pause(&self, stop: impl Fn() -> bool) {
        while let Some(wait) = self.until_pause() {
            if stop() {
                return;
            }
            std::thread::sleep(wait.min(QUIET));
        }
    }

    /// Whether the run has paused: no bulk batch open, none ended within [`QUIET`], no merge
    /// parked or under way.
    pub(crate) fn paused(&self) -> bool {
        self.until_pause().is_none()
    }

    /// How long to wait before looking again whether the run has paused; none once it has.
    fn until_pause(&self) -> Option<Duration> {
        let slot = self.slot();
        if slot.merging || slot.parked.is_some() {
            return Some(QUIET);
        }
        match (slot.open, slot.last_end) {
            (0, None) => None,
            (0, Some(end)) => quiet_left(end),
            _ => Some(QUIET),
        }
    }

    fn wait_idle(&self) -> MutexGuard<'_, Slot> {
        let mut slot = self.slot();
        while slot.merging {
            slot = self.idle.wait(slot).unwrap_or_else(|e| e.into_inner());
        }
        slot
    }

    /// Merges `parked` (when there is one), then marks the run over, whatever happened in it.
    fn run(&self, parked: Option<Parked>) -> Result<()> {
        let ran = parked.is_some();
        let result = parked.map_or(Ok(()), |p| {
            let _guard = MERGE_GUARD.get().map(|make| make());
            contained(|| p.merge())
        });
        let mut slot = self.slot();
        slot.merging = false;
        slot.owed &= !ran;
        drop(slot);
        self.idle.notify_all();
        result
    }
}

/// What is left of [`QUIET`] since `since`; none once it has passed.
fn quiet_left(since: Instant) -> Option<Duration> {
    QUIET.checked_sub(since.elapsed()).filter(|left| !left.is_zero())
}

impl super::SearchIndex {
    /// Runs the merges parked after bulk adds now and waits for those under way: searches then
    /// read as few segments as the merge policy leaves (`ready()` in the Node API).
    pub fn settle_merges(&self) -> Result<()> {
        self.bulk_run.settle()
    }

    /// Drops the merges parked after bulk adds and waits for those under way (closing an index
    /// in memory: what it holds is about to go).
    pub fn forgo_merges(&self) {
        self.bulk_run.claim();
    }

    /// Whether merges are parked after bulk adds or under way.
    pub fn merges_pending(&self) -> bool {
        self.bulk_run.merges_pending()
    }
}
