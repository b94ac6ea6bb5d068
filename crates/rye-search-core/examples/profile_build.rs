//! Times a bulk build from a JSON array of documents and reports resident memory at each stage,
//! without Node in the way: `cargo run --release --example profile_build -- docs.json`.
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

fn main() {
    let file = std::env::args().nth(1).expect("docs.json");
    let docs: Vec<ItemDoc> = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    println!("{} documents parsed: {}", docs.len(), memory());
    let index = SearchIndex::in_memory().unwrap();
    let t = Instant::now();
    let mut batch = index.batch_for(docs.len()).unwrap();
    // In chunks, as the Node binding receives them.
    for chunk in docs.chunks(5000) {
        batch.upsert(chunk).unwrap();
    }
    println!("added in {:?}: {}", t.elapsed(), memory());
    batch.commit().unwrap();
    println!("committed in {:?} ({} segments): {}", t.elapsed(), index.num_segments(), memory());
}
