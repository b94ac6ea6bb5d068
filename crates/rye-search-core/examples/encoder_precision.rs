//! What multiplying in int8 costs the sentence encoder's ranking: Debian items and questions
//! embedded in f32 and in int8 (where the CPU has AVX-512 VNNI), every item ranked by cosine
//! for each question: hits in the top 5 / 10 and MRR@10 per precision, and how close the two
//! precisions' item vectors are. Items are read from stdin as `bench/probes/item-texts.js`
//! writes them (a package's name is the text before its first ". "); questions from a JSON file
//! of `[question, package]` pairs. About 20 minutes on two cores for the 63,666 packages:
//!   node -e "import('./bench/quality/questions.js').then(m => console.log(JSON.stringify(m.DEBIAN_QUESTIONS)))" > /tmp/dq.json
//!   zcat ../shared/corpus/debian/packages.jsonl.gz | node bench/probes/item-texts.js |
//!     cargo run --release --example encoder_precision -p rye-search-core -- /tmp/dq.json [f32|int8]
use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use rye_search_core::semantic::encoder::Encoder;

/// Tokens of an item the background encoding reads (`index/encoding.rs`), and of a question.
const ITEM_TOKENS: usize = 64;
const QUERY_TOKENS: usize = 128;

fn main() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../model/minilm-l6.rye-encoder");
    let bytes = std::fs::read(&model).expect("the encoder file");
    let questions: Vec<(String, String)> =
        serde_json::from_str(&std::fs::read_to_string(std::env::args().nth(1).expect("a questions file")).unwrap())
            .expect("[question, package] pairs");
    let texts: Vec<String> = std::io::stdin().lock().lines().map_while(|l| l.ok()).collect();
    let names: Vec<&str> = texts.iter().map(|t| t.split(". ").next().unwrap_or("")).collect();
    // `int8` or `f32` after the questions: that precision alone.
    let only = std::env::args().nth(2);
    let precisions = [false, true].into_iter().filter(|&int8| only.as_deref().is_none_or(|o| (o == "int8") == int8));
    let mut kept = Vec::new();
    for int8 in precisions {
        let encoder = Encoder::with_precision(&bytes, int8).expect("the encoder loads");
        let t = Instant::now();
        let items = embed_all(&encoder, &texts);
        let secs = t.elapsed().as_secs_f64();
        let (mut top5, mut top10, mut rr) = (0, 0, 0.0);
        let mut ranks = Vec::new();
        for (question, want) in &questions {
            let q = encoder.embed(&[question.as_str()], QUERY_TOKENS).pop().flatten().expect("a question has words");
            let mut scored: Vec<(f32, usize)> =
                items.iter().enumerate().filter_map(|(i, v)| v.as_ref().map(|v| (dot(&q, v), i))).collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            let found = scored.iter().take(10).position(|&(_, i)| names[i] == want);
            ranks.push(found.map_or("-".to_string(), |r| (r + 1).to_string()));
            if let Some(rank) = found {
                top10 += 1;
                top5 += usize::from(rank < 5);
                rr += 1.0 / (rank + 1) as f64;
            }
        }
        println!(
            "{}: {} items in {secs:.0} s ({:.0}/s); questions {}: top5 {top5}, top10 {top10}, MRR@10 {:.3}",
            if int8 { "int8" } else { "f32 " },
            texts.len(),
            texts.len() as f64 / secs,
            questions.len(),
            rr / questions.len() as f64
        );
        println!("  ranks in the top 10, question by question: {}", ranks.join(" "));
        kept.push(items);
    }
    if kept.len() < 2 {
        return;
    }
    let mut cosines: Vec<f32> =
        kept[0].iter().zip(&kept[1]).filter_map(|(a, b)| Some(dot(a.as_ref()?, b.as_ref()?))).collect();
    cosines.sort_by(f32::total_cmp);
    let at = |q: f64| cosines[((cosines.len() - 1) as f64 * q) as usize];
    println!("cosine f32 · int8 per item: min {:.4}, 1% {:.4}, median {:.4}", at(0.0), at(0.01), at(0.5));
}

/// Every text's vector, in batches of 32 on two threads.
fn embed_all(encoder: &Encoder, texts: &[String]) -> Vec<Option<Vec<f32>>> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let halves: Vec<&[&str]> = refs.chunks(refs.len().div_ceil(2).max(1)).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = halves
            .iter()
            .map(|half| {
                s.spawn(move || half.chunks(32).flat_map(|c| encoder.embed(c, ITEM_TOKENS)).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("an encoding thread")).collect()
    })
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
