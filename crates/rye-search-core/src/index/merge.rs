//! When segments merge. Every query pays per segment (a term lookup per field, a scorer), so
//! segments are merged early; every merge rewrites all it merges, so a merge must not pull in
//! much more than what was just written.
//!
//! Also how a round of merges runs (`merge_by_policy`: a commit's, or the merges a run of bulk
//! adds parks), how large one merge may be (`merge_in_bounds`) and the order a merge stacks its
//! segments in (`in_stable_order`).

use tantivy::index::{SegmentId, SegmentMeta};
use tantivy::indexer::{LogMergePolicy, MergeCandidate, MergePolicy};
use tantivy::schema::Field;
use tantivy::{Index, IndexReader, IndexWriter, SegmentReader, TantivyDocument};

use super::parts::PartsCache;
use crate::error::Result;

/// Bulk batches: segments merge as soon as three of a similar size exist (Tantivy's default
/// waits for eight). Adding in batches of 5,000 then leaves a handful of segments instead of a
/// dozen, and as merges grow geometrically, each document is merged only a few times.
pub(super) fn bulk_policy() -> LogMergePolicy {
    log_policy(MERGE_AT_SEGMENTS, BULK_FLOOR_DOCS)
}

/// Small edits: segments under [`EDIT_FLOOR_DOCS`] items (what edits write) merge once eight
/// exist, as each merge rewrites them all; larger ones, from three of a size, over that floor,
/// not the bulk one, so an edit's segment never pulls the index's large segments into a merge
/// (at 60,000 items that took a second). A stream of one-item adds leaves a few small segments
/// and adds of a few hundred items grow into a few larger ones, not one segment per add (1,000
/// one-item adds to 2,000 items: 6 ms an add, searches 7% slower than merging at three, which
/// cost 12 ms an add; floors of 100 or 10 cost more on both sides).
#[derive(Debug)]
pub(super) struct EditPolicy {
    small: LogMergePolicy,
    larger: LogMergePolicy,
}

impl EditPolicy {
    pub(super) fn new() -> Self {
        EditPolicy {
            small: log_policy(EDIT_MERGE_AT_SEGMENTS, EDIT_FLOOR_DOCS),
            larger: log_policy(MERGE_AT_SEGMENTS, EDIT_FLOOR_DOCS),
        }
    }
}

impl MergePolicy for EditPolicy {
    fn compute_merge_candidates(&self, segments: &[SegmentMeta]) -> Vec<MergeCandidate> {
        let (small, larger): (Vec<SegmentMeta>, Vec<SegmentMeta>) =
            segments.iter().cloned().partition(|s| s.num_docs() < EDIT_FLOOR_DOCS);
        let mut candidates = self.small.compute_merge_candidates(&small);
        candidates.extend(self.larger.compute_merge_candidates(&larger));
        candidates
    }
}

fn log_policy(merge_at: usize, floor: u32) -> LogMergePolicy {
    let mut policy = LogMergePolicy::default();
    policy.set_min_num_segments(merge_at);
    policy.set_min_layer_size(floor);
    policy.set_max_docs_before_merge(MERGE_DOCS_MAX as usize / 2);
    policy
}

/// Segments of a similar size merged together, at least.
const MERGE_AT_SEGMENTS: usize = 3;
/// Bulk batches: segments under this many documents count as one size, so they keep merging
/// into one: 13 adds of 5,000 leave one segment of 63,666 items, not three, and search as fast
/// as one add (`bench/batched-adds.js`: worst kind 1.04×). Higher merges small items more often
/// (with 100,000, a million items added in 5,000s took 269 s against 123 s before; separate
/// runs); 20,000 left three segments at c60k.
const BULK_FLOOR_DOCS: u32 = 50_000;
/// Segments one merge takes at most ([`merge_by_policy`] cuts a larger candidate, in the order
/// of the segments' contents). A run of adds to an index in memory merges once it pauses
/// (`bulk_run`): a million items in 5,000s leave 200 segments, and one merge of them all held the
/// index twice over (peak RSS 2.7 → 4.3 GB while it ran); merges of 32 (~160,000 items) add a few
/// hundred MB at a time.
const MERGE_SEGMENTS_MAX: usize = 32;
/// Documents one merge writes at most. A merge holds what it writes beside what it merges, so
/// its size is what it adds to a peak: a million items added in 5,000s whose run paused midway
/// (a slow batch, a long garbage collection: 585,000 items merged then into segments of 160,000
/// or fewer) merged four of those into one after the adds, ~600 MB more at the peak than the runs
/// that did not pause (2,623 against ~2,200 MB). Segments over half of it never merge again: an
/// edit's commit merged three of a size, and a million items would have been merged into one.
const MERGE_DOCS_MAX: u32 = 200_000;
/// Small edits: segments under this many documents count as one size (see [`EditPolicy`]).
const EDIT_FLOOR_DOCS: u32 = 1_000;
/// Small edits' segments merged together, at least (see [`EditPolicy`]).
const EDIT_MERGE_AT_SEGMENTS: usize = 8;

/// Runs one round of the merges `policy` picks among the committed segments, one at a time and
/// each waited for, then shows the result to `reader` (and prunes `parts`, what searches opened of
/// the segments, to what it sees).
pub(super) fn merge_by_policy(
    mut writer: IndexWriter<TantivyDocument>,
    policy: &dyn MergePolicy,
    key: Field,
    (reader, parts): (&IndexReader, &PartsCache),
) -> Result<()> {
    // One round: a merge's segment that makes a candidate with others of its size merges at
    // a later commit, as when Tantivy started the merges. Running the cascade at once merged
    // everything at the end of a build: 1,000,000 items in batches of 5,000 peaked at 4.2 GB
    // instead of 3.6 (3.8 with one round).
    // The segment metas are dropped before the merges: Tantivy deletes a merged segment's
    // files only once nothing holds its meta, and holding them kept a built index in memory
    // twice over until the next commit (c60k: 153 MB of files for 77; the build's memory
    // after it, 197 → 105 MB).
    let candidates = policy.compute_merge_candidates(&writer.index().searchable_segment_metas()?);
    for candidate in candidates {
        merge_in_bounds(&mut writer, key, &candidate.0, |writer| {
            // A merge's segments are freed once no reader holds them and their files are
            // deleted. Tantivy deletes files as a merge ends, while the reader still holds the
            // segments it replaced: they went one merge later (the last merge's at the next
            // commit), so each merge ran beside the files of the one before.
            parts.reload(reader)?;
            let _ = writer.garbage_collect_files().wait();
            Ok(())
        })?;
    }
    writer.wait_merging_threads()?;
    // Once more after the merges (a round with none reloads for the commit before it).
    parts.reload(reader)?;
    Ok(())
}

/// Merges `ids`, in their stable order, in merges of at most [`MERGE_SEGMENTS_MAX`] segments and
/// [`MERGE_DOCS_MAX`] documents, one at a time, each waited for; `after` runs after each.
pub(super) fn merge_in_bounds(
    writer: &mut IndexWriter<TantivyDocument>,
    key: Field,
    ids: &[SegmentId],
    mut after: impl FnMut(&IndexWriter<TantivyDocument>) -> Result<()>,
) -> Result<()> {
    for merge in merges_of(&in_stable_order(writer.index(), key, ids)?) {
        writer.merge(&merge).wait()?;
        after(writer)?;
    }
    Ok(())
}

/// `segments` (with their sizes) cut, in their order, into merges of at most
/// [`MERGE_SEGMENTS_MAX`] segments and [`MERGE_DOCS_MAX`] documents; a segment left alone is not
/// merged.
fn merges_of(segments: &[(SegmentId, u32)]) -> Vec<Vec<SegmentId>> {
    let mut merges = Vec::new();
    let (mut merge, mut docs) = (Vec::new(), 0u64);
    for &(id, n) in segments {
        if !merge.is_empty() && (merge.len() == MERGE_SEGMENTS_MAX || docs + u64::from(n) > u64::from(MERGE_DOCS_MAX)) {
            merges.push(std::mem::take(&mut merge));
            docs = 0;
        }
        merge.push(id);
        docs += u64::from(n);
    }
    merges.push(merge);
    merges.retain(|m| m.len() > 1);
    merges
}

/// `ids` in an order their contents decide: by the smallest and largest key each segment holds,
/// then its size. A merge stacks its segments' documents in the order it is given, and which items
/// a semantic scan shortlists depends on that order; segment ids are random, so in their order the
/// same adds gave slightly different hybrid answers from one process to the next. (An add of more
/// than [`super::ONE_SEGMENT_DOCS`] items is split among indexing threads as they come free, which no
/// order undoes.) Each with its number of documents.
fn in_stable_order(index: &Index, key: Field, ids: &[SegmentId]) -> Result<Vec<(SegmentId, u32)>> {
    let metas = index.searchable_segment_metas()?;
    let mut keyed = Vec::with_capacity(ids.len());
    for &id in ids {
        let Some(meta) = metas.iter().find(|m| m.id() == id) else {
            keyed.push(((Vec::new(), Vec::new(), 0, 0), id));
            continue;
        };
        let keys = SegmentReader::open(&index.segment(meta.clone()))?.inverted_index(key)?;
        let terms = keys.terms();
        let (mut first, mut last) = (Vec::new(), Vec::new());
        if terms.num_terms() > 0 {
            terms.ord_to_term(0, &mut first)?;
            terms.ord_to_term(terms.num_terms() as u64 - 1, &mut last)?;
        }
        keyed.push(((first, last, meta.max_doc(), meta.num_docs()), id));
    }
    keyed.sort();
    Ok(keyed.into_iter().map(|((.., docs), id)| (id, docs)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::index::SegmentId;
    use tantivy::schema::Schema;
    use tantivy::Index;

    /// The merges the edit policy asks for among segments of these sizes, as lists of sizes.
    fn merges(sizes: &[u32]) -> Vec<Vec<u32>> {
        let index = Index::create_in_ram(Schema::builder().build());
        let metas: Vec<SegmentMeta> =
            sizes.iter().map(|&n| index.new_segment_meta(SegmentId::generate_random(), n)).collect();
        let size_of = |id: &SegmentId| metas.iter().find(|m| m.id() == *id).map(|m| m.num_docs()).unwrap();
        let mut out: Vec<Vec<u32>> = EditPolicy::new()
            .compute_merge_candidates(&metas)
            .into_iter()
            .map(|c| {
                let mut group: Vec<u32> = c.0.iter().map(size_of).collect();
                group.sort_unstable();
                group
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_merge_takes_at_most_its_bound_of_segments_and_of_documents() {
        let ids: Vec<SegmentId> = (0..100).map(|_| SegmentId::generate_random()).collect();
        let sizes = |merges: Vec<Vec<SegmentId>>, sized: &[(SegmentId, u32)]| -> Vec<Vec<u32>> {
            let size = |id: &SegmentId| sized.iter().find(|(i, _)| i == id).unwrap().1;
            merges.into_iter().map(|m| m.iter().map(size).collect()).collect()
        };
        // 70 batches of 5,000: by 32 segments (160,000 documents), the six left over together.
        let batches: Vec<(SegmentId, u32)> = ids[..70].iter().map(|id| (*id, 5_000)).collect();
        let cut = sizes(merges_of(&batches), &batches);
        assert_eq!(cut.iter().map(Vec::len).collect::<Vec<_>>(), vec![32, 32, 6]);
        // Large segments a run left midway: never two into one past the bound; one alone is left.
        let mixed: Vec<(SegmentId, u32)> =
            [150_000, 150_000, 30_000, 20_000, 5_000, 199_999, 1].iter().zip(&ids).map(|(n, id)| (*id, *n)).collect();
        assert_eq!(sizes(merges_of(&mixed), &mixed), vec![vec![150_000, 30_000, 20_000], vec![199_999, 1]]);
        for m in sizes(merges_of(&mixed), &mixed) {
            assert!(m.iter().map(|n| u64::from(*n)).sum::<u64>() <= u64::from(MERGE_DOCS_MAX));
        }
        assert!(merges_of(&[]).is_empty());
        assert!(merges_of(&mixed[..1]).is_empty());
    }

    #[test]
    fn segments_over_half_the_merge_bound_never_merge_again() {
        let policy = bulk_policy();
        let index = Index::create_in_ram(Schema::builder().build());
        let metas: Vec<SegmentMeta> = [160_000, 160_000, 160_000, 160_000, 5_000, 5_000, 5_000]
            .iter()
            .map(|&n| index.new_segment_meta(SegmentId::generate_random(), n))
            .collect();
        let candidates = policy.compute_merge_candidates(&metas);
        let merged: Vec<u32> = candidates
            .iter()
            .flat_map(|c| c.0.iter().map(|id| metas.iter().find(|m| m.id() == *id).unwrap().num_docs()))
            .collect();
        assert_eq!(merged, vec![5_000; 3]);
    }

    #[test]
    fn edits_merge_among_themselves_and_never_pull_in_a_large_segment() {
        // Seven one-item edits wait; the eighth merges them, never the 60,000-item segment.
        assert!(merges(&[60_000, 1, 1, 1, 1, 1, 1, 1]).is_empty());
        assert_eq!(merges(&[60_000, 1, 1, 1, 1, 1, 1, 1, 1]), vec![vec![1; 8]]);
        // What edits grew into merges from three of a size, again without the large segment.
        assert!(merges(&[60_000, 2_000, 2_100]).is_empty());
        assert_eq!(merges(&[60_000, 2_000, 2_100, 1_900, 5]), vec![vec![1_900, 2_000, 2_100]]);
        // Three large segments of a size do merge (an index that grew by edits alone).
        assert_eq!(merges(&[30_000, 31_000, 32_000]), vec![vec![30_000, 31_000, 32_000]]);
        // But never those a large build left: an edit's commit would merge a million items.
        assert!(merges(&[160_000, 160_000, 160_000, 155_000, 160_000, 1]).is_empty());
    }
}
