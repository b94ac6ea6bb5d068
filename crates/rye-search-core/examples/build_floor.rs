//! Tantivy's own floor for a bulk build (issue #64: "build ≤ 2× SQLite FTS5's time"): the five
//! text fields FTS5 indexes in the bench, in a bare Tantivy index (`common/bare.rs`) — none of
//! what rye-search adds (stems, identifier parts, ids and scopes, the stored item, embeddings).
//! Only the adds and the commit are timed; reading the JSON is not.
//!   cargo run --release --example build_floor -- docs.json [threads]
//! Prints one JSON line: `{"threads":n,"docs":n,"ms":n}`. `bench/probes/build-floor.js` runs it
//! beside FTS5 and rye-search in one run.
use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/bare.rs"]
mod bare;

use tantivy::IndexWriter;

/// Tantivy's own bound on one indexing thread's memory is 4 GB; 1 GB a thread holds c60k
/// (and 1M items in a few segments) without a flush in between.
const BUDGET_PER_THREAD: usize = 1 << 30;

fn main() -> tantivy::Result<()> {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("usage: build_floor docs.json [threads]");
    let threads: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(1).max(1);
    let docs = bare::read_docs(&file);
    let bare = bare::Bare::new()?;

    let start = Instant::now();
    let mut writer: IndexWriter = bare.index.writer_with_num_threads(threads, BUDGET_PER_THREAD * threads)?;
    for d in &docs {
        bare.add(&mut writer, d)?;
    }
    writer.commit()?;
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    println!("{{\"threads\":{threads},\"docs\":{},\"ms\":{ms:.0}}}", docs.len());
    Ok(())
}
