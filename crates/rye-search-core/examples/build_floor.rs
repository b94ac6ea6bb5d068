//! Tantivy's own floor for a bulk build (issue #64: "build ≤ 2× SQLite FTS5's time"): the same
//! five text fields FTS5 indexes in the bench (`unicode61`: words lowercased, positions kept,
//! every column stored), in a bare Tantivy index with its default tokenizer — none of what
//! rye-search adds (stems, the all-terms dictionary, ids and scopes, the stored item, embeddings).
//! Only the adds and the commit are timed; reading the JSON is not.
//!   cargo run --release --example build_floor -- docs.json [threads]
//! Prints one JSON line: `{"threads":n,"docs":n,"ms":n}`. `bench/probes/build-floor.js` runs it
//! beside FTS5 and rye-search in one run.
use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use serde::Deserialize;
use tantivy::schema::{Schema, STORED, STRING, TEXT};
use tantivy::{doc, Index, IndexWriter};

#[derive(Deserialize)]
struct Doc {
    id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    category: String,
    #[serde(default)]
    content: String,
}

/// Tantivy's own bound on one indexing thread's memory is 4 GB; 1 GB a thread holds c60k
/// (and 1M items in a few segments) without a flush in between.
const BUDGET_PER_THREAD: usize = 1 << 30;

fn main() -> tantivy::Result<()> {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("usage: build_floor docs.json [threads]");
    let threads: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(1).max(1);
    let docs: Vec<Doc> = serde_json::from_str(&std::fs::read_to_string(file)?).expect("a JSON array of documents");

    let mut b = Schema::builder();
    let id = b.add_text_field("id", STRING | STORED);
    let text = ["title", "name", "description", "category", "content"].map(|f| b.add_text_field(f, TEXT | STORED));
    let index = Index::create_in_ram(b.build());

    let start = Instant::now();
    let mut writer: IndexWriter = index.writer_with_num_threads(threads, BUDGET_PER_THREAD * threads)?;
    for d in &docs {
        writer.add_document(doc!(
            id => d.id.as_str(),
            text[0] => d.title.as_str(),
            text[1] => d.name.as_str(),
            text[2] => d.description.as_str(),
            text[3] => d.category.as_str(),
            text[4] => d.content.as_str(),
        ))?;
    }
    writer.commit()?;
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    println!("{{\"threads\":{threads},\"docs\":{},\"ms\":{ms:.0}}}", docs.len());
    Ok(())
}
