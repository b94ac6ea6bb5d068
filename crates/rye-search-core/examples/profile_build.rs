//! Times a bulk build from a JSON array of documents and reports resident memory at each stage,
//! without Node in the way: `cargo run --release --example profile_build -- docs.json` (`MODEL=file` embeds with that model;
//! `CHUNK=n` adds and commits in batches of n, as the bench does, and reports memory after each).
use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use rye_search_core::{ItemDoc, SearchIndex};

/// Current and peak resident memory in MB (Linux; blank elsewhere).
fn memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mb = |key: &str| {
        status.lines().find(|l| l.starts_with(key)).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
    };
    match (mb("VmRSS:"), mb("VmHWM:")) {
        (Some(now), Some(peak)) => format!("rss {} MB, peak {} MB", now / 1024, peak / 1024),
        _ => String::new(),
    }
}

/// What the Node binding does after a bulk write (when its `PromptReturn` ends), so the numbers
/// here are those of the package.
fn release_freed_memory() {
    // SAFETY: `mi_collect` only walks the allocator's own structures.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

fn main() {
    let file = std::env::args().nth(1).expect("docs.json");
    let docs: Vec<ItemDoc> = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    println!("{} documents parsed: {}", docs.len(), memory());
    // `MODEL=file`: embed the items as the Node package does with its bundled model.
    if let Some(model) = std::env::var_os("MODEL") {
        rye_search_core::semantic::load_model(std::path::Path::new(&model)).unwrap();
    }
    let index = SearchIndex::in_memory().unwrap();
    let t = Instant::now();
    match std::env::var("CHUNK").ok().and_then(|c| c.parse::<usize>().ok()) {
        // One batch (the Node binding hands it documents 5,000 at a time).
        None => {
            let mut batch = index.batch_for(docs.len()).unwrap();
            for chunk in docs.chunks(5000) {
                batch.upsert(chunk).unwrap();
            }
            println!("added in {:?}: {}", t.elapsed(), memory());
            batch.commit().unwrap();
        }
        // A batch and a commit per `CHUNK` documents.
        Some(n) => {
            for chunk in docs.chunks(n.max(1)) {
                let mut batch = index.batch_for(chunk.len()).unwrap();
                batch.upsert(chunk).unwrap();
                batch.commit().unwrap();
                release_freed_memory();
                println!("  {} docs, {} segments: {}", index.num_docs(), index.num_segments(), memory());
            }
        }
    }
    println!("committed in {:?} ({} segments): {}", t.elapsed(), index.num_segments(), memory());
    drop(docs);
    release_freed_memory();
    println!("documents dropped, freed memory released: {}", memory());
}
