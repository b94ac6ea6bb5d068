//! Tantivy's own floor for one single-term search (issue #64: "single-term `search()` p50 at or
//! below MiniSearch's"): the same five fields with the bench's boosts, in a bare Tantivy index
//! (`common/bare.rs`, one segment), without Node and without anything rye-search adds.
//! Per term, each step timed in a pass of its own: the top 10 by BM25 alone (block-max WAND
//! skips what cannot reach it: what a lean search with a lower-bound count needs); with the
//! exact count (rye-search's default); that and the 10 stored documents; that and a
//! 200-character snippet of each one's `content` by Tantivy's own generator.
//!   cargo run --release --example search_floor -- docs.json terms.json
//! `terms.json`: `{"kind": ["term", …], …}`. Prints one JSON line: p50 µs per kind and step, and
//! the means of the top 10 alone, with the stored documents and with the snippets (what bounds a
//! batch's queries per second on each core, for lean answers and for answers with previews).
//! Then the same steps measured as a batch would run them: every kind's terms in turn on every
//! core at once (a thread a core, each with its own searcher), best of three: the most queries a
//! second Tantivy itself answers here, lean (top 10 alone) and as a default answer needs them
//! (counted, with stored documents and snippets), under the `parallel` key with the threads.
//! `bench/probes/single-latency.js` runs it beside rye-search and MiniSearch in one run.
use std::collections::BTreeMap;
use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/bare.rs"]
mod bare;

use bare::FIELDS;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, IndexWriter, Score, Searcher, TantivyDocument, Term};

const ROUNDS: usize = 2000;
/// Queries each thread runs in one timed pass of the parallel rate.
const PARALLEL_QUERIES: usize = 20_000;

fn query(fields: &[Field; 5], term: &str) -> Box<dyn Query> {
    let clauses = fields
        .iter()
        .zip(FIELDS)
        .map(|(&f, (_, boost))| {
            let q = TermQuery::new(Term::from_field_text(f, term), IndexRecordOption::WithFreqs);
            (Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost)) as Box<dyn Query>)
        })
        .collect();
    Box::new(BooleanQuery::new(clauses))
}

/// The top 10 with the count.
fn top(searcher: &Searcher, q: &dyn Query) -> tantivy::Result<Vec<(Score, DocAddress)>> {
    Ok(searcher.search(q, &(TopDocs::with_limit(10).order_by_score(), Count))?.0)
}

/// The top 10 alone: Tantivy then skips, by block-max WAND, the blocks that cannot reach it.
fn top_uncounted(searcher: &Searcher, q: &dyn Query) -> tantivy::Result<Vec<(Score, DocAddress)>> {
    searcher.search(q, &TopDocs::with_limit(10).order_by_score())
}

/// One search as a step asks for it: the top 10 alone (`lean`), or counted with the stored
/// documents and 200-character snippets of `content`, as a default answer needs them.
fn answer(searcher: &Searcher, fields: &[Field; 5], term: &str, lean: bool) -> tantivy::Result<()> {
    let q = query(fields, term);
    if lean {
        std::hint::black_box(top_uncounted(searcher, q.as_ref())?);
        return Ok(());
    }
    let hits = top(searcher, q.as_ref())?;
    let docs = load(searcher, &hits)?;
    let mut snippets = SnippetGenerator::create(searcher, q.as_ref(), fields[4])?;
    snippets.set_max_num_chars(200);
    let shown: Vec<String> = docs.iter().map(|d| snippets.snippet_from_doc(d).fragment().to_owned()).collect();
    std::hint::black_box((hits, shown));
    Ok(())
}

/// Queries a second on `threads` threads at once, each running [`PARALLEL_QUERIES`] of `terms`
/// in turn from its own place in them; best of three passes.
fn parallel_rate(
    searcher: &Searcher,
    fields: &[Field; 5],
    terms: &[String],
    threads: usize,
    lean: bool,
) -> tantivy::Result<f64> {
    let mut best = 0f64;
    for _ in 0..3 {
        let start = Instant::now();
        std::thread::scope(|s| {
            let runs: Vec<_> = (0..threads)
                .map(|t| {
                    let searcher = searcher.clone();
                    s.spawn(move || {
                        (0..PARALLEL_QUERIES)
                            .try_for_each(|i| answer(&searcher, fields, &terms[(i + t * 7) % terms.len()], lean))
                    })
                })
                .collect();
            runs.into_iter().try_for_each(|r| r.join().expect("a search thread panicked"))
        })?;
        best = best.max((threads * PARALLEL_QUERIES) as f64 / start.elapsed().as_secs_f64());
    }
    Ok(best.round())
}

/// The stored documents of `hits`.
fn load(searcher: &Searcher, hits: &[(Score, DocAddress)]) -> tantivy::Result<Vec<TantivyDocument>> {
    hits.iter().map(|&(_, at)| searcher.doc::<TantivyDocument>(at)).collect()
}

fn mean(xs: &[f64]) -> f64 {
    (xs.iter().sum::<f64>() / xs.len() as f64 * 10.0).round() / 10.0
}

fn p50(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2] * 10.0).round() / 10.0
}

fn main() -> tantivy::Result<()> {
    let mut args = std::env::args().skip(1);
    let (docs, terms) = (args.next(), args.next());
    let (Some(docs), Some(terms)) = (docs, terms) else { panic!("usage: search_floor docs.json terms.json") };
    let docs = bare::read_docs(&docs);
    let terms: BTreeMap<String, Vec<String>> =
        serde_json::from_str(&std::fs::read_to_string(terms)?).expect("{kind: [terms]}");

    let bare = bare::Bare::new()?;
    let fields = bare.text;
    // One thread with room for every document: one segment, as rye-search's merged index.
    let mut writer: IndexWriter = bare.index.writer_with_num_threads(1, 1 << 30)?;
    for d in &docs {
        bare.add(&mut writer, d)?;
    }
    writer.commit()?;
    let index = bare.index;
    let searcher = index.reader()?.searcher();

    let mut out = BTreeMap::new();
    for (kind, terms) in &terms {
        let mut times = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        // The first half warms the caches, as the probe's other engines are timed. Each step
        // is timed in a pass of its own (a step right after another on the same term finds its
        // postings and documents in the CPU's caches).
        for (step, times) in times.iter_mut().enumerate() {
            for round in 0..ROUNDS {
                let term = &terms[round % terms.len()];
                let start = Instant::now();
                let q = query(&fields, term);
                let hits = match step {
                    0 => top_uncounted(&searcher, q.as_ref())?,
                    _ => top(&searcher, q.as_ref())?,
                };
                if step >= 2 {
                    let docs = load(&searcher, &hits)?;
                    if step == 3 {
                        let mut snippets = SnippetGenerator::create(&searcher, q.as_ref(), fields[4])?;
                        snippets.set_max_num_chars(200);
                        let shown: Vec<String> =
                            docs.iter().map(|d| snippets.snippet_from_doc(d).fragment().to_owned()).collect();
                        std::hint::black_box(shown);
                    }
                    std::hint::black_box(docs);
                }
                std::hint::black_box(hits);
                if round >= ROUNDS / 2 {
                    times.push(start.elapsed().as_secs_f64() * 1e6);
                }
            }
        }
        let [uncounted, ranked, loaded, previewed] = times;
        let means = [mean(&uncounted), mean(&loaded), mean(&previewed)];
        out.insert(kind.clone(), (means, p50(uncounted), p50(ranked), p50(loaded), p50(previewed)));
    }
    let mut rows: Vec<String> = out
        .iter()
        .map(|(k, ([m, ml, mp], u, r, l, p))| {
            format!(
                "\"{k}\":{{\"uncounted_mean_us\":{m},\"loaded_mean_us\":{ml},\"previewed_mean_us\":{mp},\
                 \"uncounted_us\":{u},\"ranked_us\":{r},\"loaded_us\":{l},\"previewed_us\":{p}}}"
            )
        })
        .collect();
    let every: Vec<String> = terms.values().flatten().cloned().collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let lean = parallel_rate(&searcher, &fields, &every, threads, true)?;
    let default = parallel_rate(&searcher, &fields, &every, threads, false)?;
    rows.push(format!("\"parallel\":{{\"threads\":{threads},\"lean_qps\":{lean},\"default_qps\":{default}}}"));
    println!("{{{}}}", rows.join(","));
    Ok(())
}
