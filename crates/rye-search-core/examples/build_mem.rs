use std::time::Instant;
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
use rye_search_core::{ItemDoc, SearchIndex};
fn rss() -> String {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines().filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM")).map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024).map(|m| m.to_string()).collect::<Vec<_>>().join("/")
}
fn main() {
    let file = std::env::args().nth(1).unwrap();
    let docs: Vec<ItemDoc> = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    println!("parsed rss {}", rss());
    let index = SearchIndex::in_memory().unwrap();
    let t = Instant::now();
    let mut batch = index.batch_for(docs.len()).unwrap();
    for (i, c) in docs.chunks(5000).enumerate() {
        batch.upsert(c).unwrap();
        if i % 4 == 3 { println!("upsert {} rss {} {:?}", i, rss(), t.elapsed()); }
    }
    println!("before commit rss {} {:?}", rss(), t.elapsed());
    batch.commit().unwrap();
    println!("after commit rss {} {:?}", rss(), t.elapsed());
}
