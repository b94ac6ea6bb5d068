//! Times searches on documents from a JSON file, without Node in the way:
//! `cargo run --release --example profile_search -- docs.json queries.txt [repeats]`
//! (`queries.txt`: one query per line; a plain string instead of a file is one query).
//! Environment: `CHUNK=n` documents per batch, `PREVIEW=n` preview characters (default 0), `FUZZY=1|2` fuzzy distance, `ONLY=<field>` search one text field, `EACH=1` time
//! each query, `KNOWN=file.tsv` known-item MRR (`DUMP=out.txt` writes every result list),
//! `MODEL=file` embed with that model, `MODE=auto|keyword|semantic|hybrid` (default keyword),
//! `ONLY_MANY=1` / `NO_MANY=1` time only `search_many` / only single searches, `GAP_US=n` work n µs
//! between searches (as a caller does; the pool may fall asleep meanwhile), `PAGE=1` write each
//! answer as a page (as the Node binding does), `THRASH_MB=n` write over n MB between searches (as a
//! Node process's own work evicts the caches; the searches alone are then timed apart), `LEAN=1`
//! lean answers (itemless hits, a lower-bound count: `include_fields: ['id', 'score']`,
//! `count: 'lower_bound'`), `SETTLE_MS=n` wait n ms before the timed runs (for
//! what the first searches started building on other threads).
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use rye_search_core::wire::page::AnswerPage;
use rye_search_core::{ItemDoc, Scope, SearchIndex, SearchRequest};

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("docs.json");
    let queries = args.next().unwrap_or_else(|| "library".into());
    if let Some(model) = std::env::var_os("MODEL") {
        rye_search_core::semantic::load_model(std::path::Path::new(&model)).unwrap();
    }
    let mode: rye_search_core::Mode =
        serde_json::from_value(serde_json::json!(std::env::var("MODE").unwrap_or("keyword".into()))).unwrap();
    let repeats: usize = args.next().map(|r| r.parse().unwrap()).unwrap_or(20);
    let queries: Vec<String> = match std::fs::read_to_string(&queries) {
        Ok(text) => text.lines().filter(|l| !l.trim().is_empty()).map(String::from).collect(),
        Err(_) => vec![queries],
    };
    // `INDEX_DIR=dir`: a persistent index, built on the first run and opened on the next ones
    // (callgrind on a million documents then skips the indexing).
    let index = match std::env::var_os("INDEX_DIR") {
        Some(dir) => SearchIndex::open(std::path::Path::new(&dir)).unwrap(),
        None => SearchIndex::in_memory().unwrap(),
    };
    if index.num_docs() == 0 {
        let docs: Vec<ItemDoc> = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let t = Instant::now();
        // In batches of `CHUNK` documents, as the bench adds them (default: one batch).
        let chunk = std::env::var("CHUNK").ok().and_then(|c| c.parse().ok()).unwrap_or(docs.len()).max(1);
        for part in docs.chunks(chunk) {
            let mut batch = index.batch_for(part.len()).unwrap();
            batch.upsert(part).unwrap();
            batch.commit().unwrap();
        }
        println!("indexed {} docs in {:?} ({} segments)", docs.len(), t.elapsed(), index.num_segments());
        // The merges a bulk run left parked, run as the Node API's `ready()` runs them.
        index.settle_merges().unwrap();
        index.reload().unwrap();
        println!("merged in {:?} ({} segments)", t.elapsed(), index.num_segments());
    }
    // Known-item MRR@10: lines of `target-id<TAB>query`.
    if let Some(known) = std::env::var_os("KNOWN") {
        let text = std::fs::read_to_string(known).unwrap();
        let (mut rr, mut n) = (0.0, 0);
        for line in text.lines() {
            let (target, query) = line.split_once('\t').unwrap();
            let req = SearchRequest { query: query.into(), preview_chars: 0, ..Default::default() };
            let hits = index.search(&req).unwrap().hits;
            if let Some(rank) = hits.iter().position(|h| h.id == target) {
                rr += 1.0 / (rank + 1) as f64;
            }
            n += 1;
        }
        println!("known-item MRR@10 {:.4} over {n}", rr / n as f64);
        if let Some(dump) = std::env::var_os("DUMP") {
            // Every result list, written out, then searched again to check it is the same.
            let all_results = || {
                let mut out = String::new();
                for line in text.lines() {
                    let (_, query) = line.split_once('\t').unwrap();
                    let req = SearchRequest { query: query.into(), preview_chars: 0, ..Default::default() };
                    for h in index.search(&req).unwrap().hits {
                        out.push_str(&format!("{query}\t{}\t{}\n", h.id, h.score));
                    }
                }
                out
            };
            let out = all_results();
            std::fs::write(&dump, &out).unwrap();
            println!("same results on a second pass: {}", all_results() == out);
        }
    }
    let lean = std::env::var_os("LEAN").is_some();
    let reqs: Vec<SearchRequest> = queries
        .iter()
        .map(|q| SearchRequest {
            query: q.clone(),
            // `NOSCOPE=1`: every kind, as a search without a scope.
            scopes: match std::env::var_os("NOSCOPE") {
                Some(_) => Vec::new(),
                None => vec![Scope { kind: Some("knowledge".into()), ..Default::default() }],
            },
            preview_chars: std::env::var("PREVIEW").ok().and_then(|p| p.parse().ok()).unwrap_or(0),
            mode,
            fuzzy: std::env::var("FUZZY").ok().and_then(|f| f.parse().ok()).unwrap_or(0),
            weights: match std::env::var("ONLY").ok().as_deref() {
                Some(f) => {
                    let w = |n: &str| if n == f { 1.0 } else { 0.0 };
                    rye_search_core::Weights {
                        title: w("title"),
                        name: w("name"),
                        description: w("description"),
                        category: w("category"),
                        content: w("content"),
                    }
                }
                None => Default::default(),
            },
            itemless: lean,
            count: if lean { rye_search_core::wire::Count::LowerBound } else { Default::default() },
            ..Default::default()
        })
        .collect();
    // Opens what searches keep open per segment, so the first runs below time cold queries only.
    index.search(&SearchRequest { query: "zzzzqqqx".into(), ..Default::default() }).unwrap();
    // First sight of each query: caches (doc store blocks, dictionaries) are cold for it.
    let t = Instant::now();
    run_each(&index, &reqs);
    println!("{:.1} µs per search, first run of each", t.elapsed().as_secs_f64() * 1e6 / reqs.len() as f64);
    // `SETTLE_MS=n`: waits before the timed runs, so what the first searches started building on
    // other threads (a segment's all-terms dictionary, for fuzzy and wildcard terms and for words
    // that matched nothing) is ready.
    if let Some(ms) = std::env::var("SETTLE_MS").ok().and_then(|m| m.parse().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    if std::env::var_os("EACH").is_some() {
        for req in &reqs {
            let t = Instant::now();
            let mut total = 0;
            for _ in 0..repeats {
                total = index.search(req).unwrap().total;
            }
            let us = t.elapsed().as_secs_f64() * 1e6 / repeats as f64;
            println!("{us:9.1} µs  {total:6} hits  {}", req.query);
        }
    }
    let only_many = std::env::var_os("ONLY_MANY").is_some();
    let t = Instant::now();
    for _ in 0..if only_many { 0 } else { repeats } {
        run_warm(&index, &reqs);
    }
    let n = (repeats * reqs.len()) as f64;
    println!("{:.1} µs per search", t.elapsed().as_secs_f64() * 1e6 / n);
    println!("{:.1} µs per search, searches alone", SEARCH_NANOS.load(Ordering::Relaxed) as f64 / 1e3 / n);
    if std::env::var_os("NO_MANY").is_some() {
        return;
    }
    // In slices of 2,048, as `searchMany` sends them (keeping every answer would time page faults).
    let many: Vec<SearchRequest> = (0..repeats).flat_map(|_| reqs.iter().cloned()).collect();
    let t = Instant::now();
    for slice in many.chunks(2048) {
        index.search_many(slice);
    }
    println!("{:.1} µs per query in search_many", t.elapsed().as_secs_f64() * 1e6 / n);
}

/// The first search of each query (opens the segments' stores on the first call).
#[inline(never)]
fn run_each(index: &SearchIndex, reqs: &[SearchRequest]) {
    for req in reqs {
        index.search(req).unwrap();
    }
}

/// Time spent in `run_warm`'s searches (and their pages), without what it does between them.
static SEARCH_NANOS: AtomicU64 = AtomicU64::new(0);

/// Repeated searches, apart from the first ones for `callgrind --toggle-collect='*run_warm*'`.
#[inline(never)]
fn run_warm(index: &SearchIndex, reqs: &[SearchRequest]) {
    // `GAP_US=n`: this thread works n µs between searches, as a caller does with each answer
    // (the pool's threads may fall asleep meanwhile).
    let gap = std::env::var("GAP_US").ok().and_then(|g| g.parse().ok()).map(std::time::Duration::from_micros);
    // `PAGE=1`: each answer is written as the Node binding hands it over.
    let page = std::env::var_os("PAGE").is_some();
    // `THRASH_MB=n`: n MB written over between searches, a cache line at a time.
    let thrash_mb: usize = std::env::var("THRASH_MB").ok().and_then(|t| t.parse().ok()).unwrap_or(0);
    let mut thrash = vec![0u8; thrash_mb << 20];
    for req in reqs {
        for (i, b) in thrash.iter_mut().step_by(64).enumerate() {
            *b = b.wrapping_add(i as u8);
        }
        std::hint::black_box(&mut thrash);
        let t = Instant::now();
        let answer = index.search(req);
        if page {
            std::hint::black_box(AnswerPage::of(answer));
        } else {
            std::hint::black_box(answer.unwrap());
        }
        SEARCH_NANOS.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if let Some(gap) = gap {
            let start = Instant::now();
            while start.elapsed() < gap {
                std::hint::spin_loop();
            }
        }
    }
}
