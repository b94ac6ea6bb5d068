//! The index over time: segments, upserts and deletes, persistence, merges, memory accounting.

use super::*;

/// A stream of one-item edits (new items and replacements) leaves a few segments, not one per
/// edit: each commit's merges finish before its writer goes (a merge left running was thrown
/// away when it ended, so every edit added a segment for good), and every item is found once.
#[test]
fn a_stream_of_edits_keeps_few_segments() {
    let base: Vec<ItemDoc> =
        (0..3000).map(|i| doc(&format!("base/item{i}"), "project", "stable", "", &format!("word{i}"))).collect();
    let index = index(&base);
    for i in 0..40 {
        let edit = match i % 2 {
            0 => doc(&format!("edits/item{i}"), "project", "edited", "", "fresh"),
            _ => doc(&format!("base/item{i}"), "project", "edited", "", "fresh"),
        };
        let mut batch = index.batch_for(1).unwrap();
        batch.upsert(&[edit]).unwrap();
        batch.commit().unwrap();
    }
    assert!(index.num_segments() <= 8, "{} segments after 40 edits", index.num_segments());
    assert_eq!(index.num_docs(), 3020);
    let edited = ids(&index, SearchRequest { limit: 100, ..q("edited") });
    assert_eq!(edited.len(), 40);
    assert_eq!(index.search(&q("stable")).unwrap().total, 2980);
}

#[test]
fn persistent_index_upserts_deletes_and_manifest() {
    let dir = std::env::temp_dir().join(format!("rye-search-core-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let idx = SearchIndex::open(&dir).unwrap();
        let mut batch = idx.batch().unwrap();
        let mut d = doc("a/one", "project", "one", "", "");
        d.mtime = 42;
        d.size = 7;
        batch.upsert(&[d, doc("a/two", "project", "two", "", "")]).unwrap();
        batch.commit().unwrap();
        // A second writer in the same process is refused while the first is alive.
        let _held = idx.batch().unwrap();
        assert_eq!(idx.batch().err().unwrap().code(), "E_INDEX_LOCKED");
    }
    let idx = SearchIndex::open(&dir).unwrap();
    let mut manifest = idx.manifest().unwrap();
    manifest.sort_by(|a, b| a.key.cmp(&b.key));
    assert_eq!(manifest.len(), 2);
    assert_eq!((manifest[0].mtime, manifest[0].size), (42, 7));
    let mut batch = idx.batch().unwrap();
    batch.upsert(&[doc("a/one", "project", "uno", "", "")]).unwrap();
    batch.delete(&["project:a/two".to_string()]);
    // Uncommitted changes are invisible.
    assert_eq!(idx.search(&q("two")).unwrap().total, 1);
    batch.commit().unwrap();
    assert_eq!(idx.search(&q("two")).unwrap().total, 0);
    assert_eq!(ids(&idx, q("uno")), vec!["a/one"]);
    assert_eq!(idx.num_docs(), 1);
    drop(idx);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn upserts_replace_by_key_within_a_batch_across_batches_and_across_handles() {
    // Within one batch: the last version of a key wins.
    let idx = SearchIndex::in_memory().unwrap();
    let mut batch = idx.batch_for(1000).unwrap();
    batch.upsert(&[doc("a/one", "project", "first", "", ""), doc("a/two", "project", "two", "", "")]).unwrap();
    batch.upsert(&[doc("a/one", "project", "second", "", "")]).unwrap();
    batch.commit().unwrap();
    assert_eq!(idx.num_docs(), 2);
    assert_eq!(idx.search(&q("first")).unwrap().total, 0);
    assert_eq!(ids(&idx, q("second")), vec!["a/one"]);

    // In a later batch, small or bulk, and after a delete in the same batch.
    for expected in [1, 1000] {
        let mut batch = idx.batch_for(expected).unwrap();
        batch.delete(&["project:a/two".to_string()]);
        batch.upsert(&[doc("a/one", "project", format!("third{expected}").as_str(), "", "")]).unwrap();
        batch.upsert(&[doc("a/two", "project", "back", "", "")]).unwrap();
        batch.commit().unwrap();
        assert_eq!(idx.num_docs(), 2);
        assert_eq!(ids(&idx, q(&format!("third{expected}"))), vec!["a/one"]);
        assert_eq!(ids(&idx, q("back")), vec!["a/two"]);
    }

    // A handle opened before another one committed still replaces what that one wrote.
    let dir = std::env::temp_dir().join(format!("rye-search-core-handles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (early, late) = (SearchIndex::open(&dir).unwrap(), SearchIndex::open(&dir).unwrap());
    let mut batch = late.batch().unwrap();
    batch.upsert(&[doc("a/one", "project", "late", "", "")]).unwrap();
    batch.commit().unwrap();
    let mut batch = early.batch_for(1000).unwrap();
    batch.upsert(&[doc("a/one", "project", "early", "", "")]).unwrap();
    batch.commit().unwrap();
    let seen = late.reload().unwrap();
    assert_eq!(late.num_docs(), 1);
    assert_eq!(ids(&late, q("early")), vec!["a/one"]);
    // A reload with nothing committed since returns the same opstamp and keeps the view; each
    // commit of the other handle moves it and is seen, however many reloads came between.
    assert_eq!(late.reload().unwrap(), seen);
    assert_eq!(ids(&late, q("early")), vec!["a/one"]);
    let mut last = seen;
    for round in 0..3 {
        let mut batch = early.batch_for(1).unwrap();
        batch.upsert(&[doc("a/one", "project", &format!("round{round}"), "", "")]).unwrap();
        batch.commit().unwrap();
        let now = late.reload().unwrap();
        assert!(now > last, "round {round}: {now} after {last}");
        assert_eq!(late.reload().unwrap(), now);
        assert_eq!(ids(&late, q(&format!("round{round}"))), vec!["a/one"]);
        last = now;
    }
    drop((early, late));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn memory_index_locks_its_writer_and_survives_many_commits_and_merges() {
    let idx = SearchIndex::in_memory().unwrap();
    {
        let _held = idx.batch().unwrap();
        assert_eq!(idx.batch().err().unwrap().code(), "E_INDEX_LOCKED");
    }
    // Small batches leave many segments for the merge policy to merge behind them.
    for round in 0..40 {
        let mut batch = idx.batch_for(10).unwrap();
        let docs: Vec<ItemDoc> = (0..10)
            .map(|i| doc(&format!("r/doc{i}"), "project", &format!("round{round}"), "", "shared words"))
            .collect();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    }
    assert_eq!(idx.num_docs(), 10);
    assert_eq!(idx.search(&q("round39")).unwrap().total, 10);
    assert_eq!(idx.search(&SearchRequest { exact_only: true, ..q("round38") }).unwrap().total, 0);
    assert_eq!(idx.search(&q("shared")).unwrap().total, 10);
}

/// A bulk upsert after small edits: the commit set off a merge of the older segments (Tantivy
/// starts merges while a commit hands over its segments), and when that merge ended before the
/// commit was saved, the commit's first delete was lost, so the upserted item's old version
/// stayed alive beside the new one (1 run in 3 or so). Merges now run after the commit.
#[test]
fn an_upsert_after_small_edits_leaves_one_version_of_each_item() {
    let docs = |from: usize, count: usize, version: &str| -> Vec<ItemDoc> {
        (0..count).map(|k| doc(&format!("m/i{}", from + k), "project", version, "", "")).collect()
    };
    for round in 0..40 {
        let index = SearchIndex::in_memory().unwrap();
        let write = |d: Vec<ItemDoc>| {
            let mut batch = index.batch_for(d.len()).unwrap();
            batch.upsert(&d).unwrap();
            batch.commit().unwrap();
        };
        write(docs(0, 260, "first"));
        write(docs(0, 257, "second"));
        write(docs(0, 2, "third"));
        write(docs(7, 2, "fourth"));
        write(docs(2, 257, "fifth"));
        assert_eq!(index.num_docs(), 260, "round {round}");
        let old = index.search(&SearchRequest { limit: 100, ..q("second") }).unwrap();
        assert_eq!(
            old.total,
            0,
            "round {round}: old versions alive: {:?}",
            old.hits.iter().map(|h| &h.id).collect::<Vec<_>>()
        );
    }
}

/// Bulk adds to an index in memory return before their merges, which run once the adds pause:
/// every item is found once all along, upserts replace across the run whether the merges have
/// not begun, are under way or are done, and the merges end in one segment.
#[test]
fn bulk_adds_in_memory_merge_once_they_pause() {
    let batch_of = |part: usize, version: &str| -> Vec<ItemDoc> {
        (0..300).map(|i| doc(&format!("p{}/item{i}", part % 5), "project", version, "bulk", "body")).collect()
    };
    let write = |index: &SearchIndex, docs: Vec<ItemDoc>| {
        let mut batch = index.batch_for(docs.len()).unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    };
    let settled = |index: &SearchIndex| {
        let start = std::time::Instant::now();
        while index.merges_pending() {
            assert!(start.elapsed().as_secs() < 30, "merges still pending after 30 s");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    };
    // The second write comes before the pause ends (0 ms), near it, while the merges run or after.
    for (round, pause_ms) in [0u64, 60, 95, 100, 105, 110, 120, 150, 250].into_iter().enumerate() {
        let index = SearchIndex::in_memory().unwrap();
        for part in 0..5 {
            write(&index, batch_of(part, "first"));
        }
        // Searchable at once, before any merge.
        assert!(index.num_segments() > 1, "round {round}: merged in the commits");
        assert_eq!(index.search(&q("first")).unwrap().total, 1500, "round {round}");
        std::thread::sleep(std::time::Duration::from_millis(pause_ms));
        for part in 0..5 {
            write(&index, batch_of(part, "second"));
        }
        settled(&index);
        assert_eq!(index.num_docs(), 1500, "round {round}");
        assert_eq!(index.search(&q("first")).unwrap().total, 0, "round {round}: old versions alive");
        assert_eq!(index.search(&q("second")).unwrap().total, 1500, "round {round}");
        assert_eq!(index.num_segments(), 1, "round {round}");
    }
    // A one-item add right after a run takes the parked writer's place: the run's segments are
    // not merged in its commit, but at the next pause.
    let index = SearchIndex::in_memory().unwrap();
    for part in 0..5 {
        write(&index, batch_of(part, "first"));
    }
    write(&index, vec![doc("late/one", "project", "late", "", "")]);
    assert!(index.num_segments() > 2, "the small add merged the run in its commit");
    settled(&index);
    assert_eq!(index.num_segments(), 1);
    assert_eq!(index.num_docs(), 1501);
    assert_eq!(ids(&index, q("late")), vec!["late/one"]);

    // Asked for, the merges run at once, 32 segments at most to a merge (40 adds: two merges).
    let index = SearchIndex::in_memory().unwrap();
    for part in 0..40 {
        let docs: Vec<ItemDoc> =
            (0..300).map(|i| doc(&format!("q{part}/item{i}"), "project", "many", "", "")).collect();
        write(&index, docs);
    }
    assert_eq!(index.num_segments(), 40);
    index.settle_merges().unwrap();
    assert!(!index.merges_pending());
    assert_eq!(index.num_segments(), 2);
    assert_eq!(index.search(&q("many")).unwrap().total, 12_000);
    assert_eq!(index.num_docs(), 12_000);
}

/// An index in memory knows which keys it may hold by a set of their hashes: items that come and
/// go do not grow it without bound, and an item still held is replaced after the set was made
/// again from what the index holds.
#[test]
fn keys_added_and_removed_are_forgotten_and_live_ones_still_replaced() {
    let index = SearchIndex::in_memory().unwrap();
    let write = |docs: Vec<ItemDoc>| {
        let mut batch = index.batch_for(docs.len()).unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    };
    write(vec![doc("keep/one", "project", "original", "", "")]);
    for round in 0..30 {
        let keys: Vec<String> = (0..1000).map(|i| format!("r{round}/item{i}")).collect();
        write(keys.iter().map(|k| doc(k, "project", "passing", "", "")).collect());
        let mut batch = index.batch_for(keys.len()).unwrap();
        batch.delete(&keys.iter().map(|k| format!("project:{k}")).collect::<Vec<_>>());
        batch.commit().unwrap();
    }
    index.settle_merges().unwrap();
    assert_eq!(index.num_docs(), 1);
    // 30,000 keys were given: their hashes alone would hold ~300 KB.
    assert!(index.memory_bytes() < 150_000, "{} bytes held", index.memory_bytes());
    write(vec![doc("keep/one", "project", "replaced", "", "")]);
    assert_eq!(index.num_docs(), 1);
    assert_eq!(index.search(&q("original")).unwrap().total, 0);
    assert_eq!(ids(&index, q("replaced")), vec!["keep/one"]);
}

/// The files of segments a merge replaced are deleted when the batch commits, not one commit
/// later: in memory, they held a built index twice over.
#[test]
fn merged_segments_leave_no_files_behind() {
    let dir = std::env::temp_dir().join(format!("rye-search-core-merged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let idx = SearchIndex::open(&dir).unwrap();
    // Bulk batches (more than a small edit) merge once three segments exist.
    for part in 0..3 {
        let docs: Vec<ItemDoc> = (0..600)
            .map(|i| doc(&format!("p{part}/item{i}"), "project", &format!("item {i}"), "merged", "body text"))
            .collect();
        let mut batch = idx.batch_for(docs.len()).unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    }
    assert_eq!(idx.num_segments(), 1);
    // Segment files are named by the segment's id (32 hex digits) and an extension.
    let mut segments = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some((stem, _)) = name.split_once('.') {
            if stem.len() == 32 && stem.chars().all(|c| c.is_ascii_hexdigit()) {
                segments.insert(stem.to_string());
            }
        }
    }
    assert_eq!(segments.len(), 1, "{segments:?}");
    assert_eq!(idx.search(&SearchRequest { query: "merged".into(), ..Default::default() }).unwrap().total, 1800);
    drop(idx);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_adds_merge_into_the_same_order_of_items() {
    // Batches large enough to be bulk, merging after them: the order of items after a merge must
    // follow from what was added, never from the random segment ids.
    let docs: Vec<ItemDoc> = (0..1_500)
        .map(|i| doc(&format!("bulk/item-{:04}", (i * 7_919) % 1_500), "project", "bulk", "item", "words"))
        .collect();
    let order = || {
        let index = SearchIndex::in_memory().unwrap();
        for part in docs.chunks(300) {
            let mut batch = index.batch_for(part.len()).unwrap();
            batch.upsert(part).unwrap();
            batch.commit().unwrap();
        }
        // In memory, bulk adds merge once they pause (or when asked).
        index.settle_merges().unwrap();
        assert!(index.num_segments() < 5, "the batches merged");
        index.manifest().unwrap().into_iter().map(|e| e.key).collect::<Vec<_>>()
    };
    let first = order();
    assert_eq!(first.len(), 1_500);
    for _ in 0..5 {
        assert_eq!(order(), first);
    }
}

/// Within one bulk batch, an item given twice is kept once, as last given; an item removed in the
/// batch that added it is gone; one that replaces an item of an earlier batch leaves only itself.
#[test]
fn a_bulk_batch_keeps_the_last_of_each_key_and_its_deletes() {
    let index = SearchIndex::in_memory().unwrap();
    let item = |k: usize, version: &str| doc(&format!("b/item{k}"), "project", version, "", "words");
    let mut batch = index.batch_for(1_000).unwrap();
    batch.upsert(&(0..1_000).map(|k| item(k, "first")).collect::<Vec<_>>()).unwrap();
    batch.commit().unwrap();
    let mut batch = index.batch_for(1_000).unwrap();
    // Items 0–599 replaced, 500–599 twice in the batch; 1500 given and then removed, with 999.
    batch.upsert(&(0..600).map(|k| item(k, "second")).collect::<Vec<_>>()).unwrap();
    batch.upsert(&(500..600).map(|k| item(k, "third")).collect::<Vec<_>>()).unwrap();
    batch.upsert(&[item(1_500, "second")]).unwrap();
    batch.delete(&["project:b/item1500".to_string(), "project:b/item999".to_string()]);
    batch.commit().unwrap();
    index.settle_merges().unwrap();
    assert_eq!(index.num_docs(), 999);
    let total = |word: &str| index.search(&SearchRequest { limit: 1, ..q(word) }).unwrap().total;
    assert_eq!(total("first"), 399);
    assert_eq!(total("second"), 500);
    assert_eq!(total("third"), 100);
    let keys: Vec<String> = index.manifest().unwrap().into_iter().map(|e| e.key).collect();
    assert!(!keys.iter().any(|k| k == "project:b/item1500" || k == "project:b/item999"));
}

#[test]
fn the_all_terms_dictionary_a_fuzzy_search_builds_counts_in_the_index_s_memory() {
    // On disk, so the files count nothing: what is counted is what searches built.
    let docs: Vec<ItemDoc> = (0..400)
        .map(|i| doc(&format!("terms/item-{i}"), "project", &format!("distinctword{i:04}"), "", "shared text"))
        .collect();
    let dir = std::env::temp_dir().join(format!("rye-search-core-all-terms-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let idx = SearchIndex::open(&dir).unwrap();
    let mut batch = idx.batch().unwrap();
    batch.upsert(&docs).unwrap();
    batch.commit().unwrap();
    idx.search(&q("distinctword0001")).unwrap();
    assert_eq!(idx.memory_bytes(), 0, "a plain search builds nothing");
    // The first fuzzy search starts the build on another thread; it is counted once ready.
    idx.search(&SearchRequest { fuzzy: 1, ..q("distinctwerd0001") }).unwrap();
    let terms_text = 400 * "distinctword0000".len() as u64;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while idx.memory_bytes() < terms_text && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(idx.memory_bytes() >= terms_text, "{} bytes counted", idx.memory_bytes());
    drop(idx);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_in_memory_counts_the_bytes_its_files_hold_and_one_on_disk_none() {
    // What the Node binding tells V8 after each commit: it must follow the index as it grows
    // and shrinks, merges included (a merged segment's inputs are no longer counted).
    let docs: Vec<ItemDoc> = (0..1_200)
        .map(|i| doc(&format!("mem/item-{i:04}"), "project", "memory", "counted bytes", &"words ".repeat(40)))
        .collect();
    let index = SearchIndex::in_memory().unwrap();
    let empty = index.memory_bytes();
    let mut after = Vec::new();
    for part in docs.chunks(300) {
        let mut batch = index.batch_for(part.len()).unwrap();
        batch.upsert(part).unwrap();
        batch.commit().unwrap();
        after.push(index.memory_bytes());
    }
    assert!(after[0] > empty + 300 * 240, "{empty} → {after:?}");
    assert!(after.windows(2).all(|w| w[1] > w[0]), "{after:?}");
    // Every item deleted: once the deletes merge away, the index holds about what it held empty.
    let mut batch = index.batch().unwrap();
    batch.delete(&docs.iter().map(|d| d.key.clone()).collect::<Vec<_>>());
    batch.commit().unwrap();
    assert!(index.memory_bytes() < after[0] / 4, "{} after deleting all, {after:?}", index.memory_bytes());

    let dir = std::env::temp_dir().join(format!("rye-search-core-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let on_disk = SearchIndex::open(&dir).unwrap();
    let mut batch = on_disk.batch().unwrap();
    batch.upsert(&docs[..300]).unwrap();
    batch.commit().unwrap();
    assert_eq!(on_disk.memory_bytes(), 0);
    drop(on_disk);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Another handle (or process) holding the writer may be creating the index or committing to
/// it: an open that finds its files half made (no version written yet, a `meta.json` that does
/// not parse) waits for it and never clears them; with no writer left, it rebuilds.
#[test]
fn an_open_never_clears_an_index_another_writer_holds() {
    let dir = std::env::temp_dir().join(format!("rye-search-core-held-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let writer = SearchIndex::open(&dir).unwrap();
    let mut batch = writer.batch().unwrap();
    batch.upsert(&[doc("a/one", "project", "one", "", ""), doc("a/two", "project", "two", "", "")]).unwrap();
    batch.commit().unwrap();
    let held = writer.batch().unwrap();

    // Files there, version not yet written: the other writer's creation is under way.
    let version = dir.join("rye-search-schema");
    let written = std::fs::read(&version).unwrap();
    std::fs::remove_file(&version).unwrap();
    let finishes = std::thread::spawn({
        let version = version.clone();
        move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::fs::write(&version, written).unwrap();
        }
    });
    let opened = SearchIndex::open(&dir).unwrap();
    finishes.join().unwrap();
    assert_eq!(opened.num_docs(), 2);
    drop(opened);

    // A `meta.json` that does not open while the writer stays: the index is locked, not cleared.
    let meta = dir.join("meta.json");
    let metas = std::fs::read(&meta).unwrap();
    std::fs::write(&meta, b"{ half written").unwrap();
    assert_eq!(SearchIndex::open(&dir).err().unwrap().code(), "E_INDEX_LOCKED");
    assert_eq!(std::fs::read(&meta).unwrap(), b"{ half written");
    std::fs::write(&meta, &metas).unwrap();
    assert_eq!(SearchIndex::open(&dir).unwrap().num_docs(), 2);

    // With no writer left, damage is rebuilt as before, and the lock still works.
    drop(held);
    drop(writer);
    std::fs::write(&meta, b"{ damaged").unwrap();
    let rebuilt = SearchIndex::open(&dir).unwrap();
    assert_eq!(rebuilt.num_docs(), 0);
    let _held = rebuilt.batch().unwrap();
    assert_eq!(SearchIndex::open(&dir).unwrap().batch().err().unwrap().code(), "E_INDEX_LOCKED");
    std::fs::remove_dir_all(&dir).unwrap();
}
