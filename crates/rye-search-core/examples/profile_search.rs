//! Times searches on documents from a JSON file, without Node in the way:
//! `cargo run --release --example profile_search -- docs.json "term" [repeats]`.
use std::time::Instant;

use rye_search_core::{ItemDoc, SearchIndex, SearchRequest};

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("docs.json");
    let query = args.next().unwrap_or_else(|| "library".into());
    let repeats: usize = args.next().map(|r| r.parse().unwrap()).unwrap_or(2000);
    let docs: Vec<ItemDoc> = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let index = SearchIndex::in_memory().unwrap();
    let t = Instant::now();
    let mut batch = index.batch().unwrap();
    batch.upsert(&docs).unwrap();
    batch.commit().unwrap();
    println!("indexed {} docs in {:?}", docs.len(), t.elapsed());
    let req = SearchRequest {
        query: query.clone(),
        kind: Some("knowledge".into()),
        spaces: vec!["project".into()],
        preview_chars: 0,
        ..Default::default()
    };
    let res = index.search(&req).unwrap();
    println!("{query}: {} hits", res.total);
    let t = Instant::now();
    for _ in 0..repeats {
        index.search(&req).unwrap();
    }
    println!("{:.1} µs per search", t.elapsed().as_secs_f64() * 1e6 / repeats as f64);
    let many: Vec<SearchRequest> = (0..repeats).map(|_| req.clone()).collect();
    let t = Instant::now();
    index.search_many(&many);
    println!("{:.1} µs per query in search_many", t.elapsed().as_secs_f64() * 1e6 / repeats as f64);
}
