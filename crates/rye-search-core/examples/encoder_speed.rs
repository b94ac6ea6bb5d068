//! Items/s of the sentence encoder on this machine, one thread, for texts read from stdin (one a
//! line), texts cut to 128 and 64 tokens, one at a time (a
//! query's cost) and in batches of 32 on one and two threads.
//!   zcat ../shared/corpus/debian/packages.jsonl.gz | head -2000 | node bench/probes/item-texts.js |
//!     cargo run --release --example encoder_speed -p rye-search-core
use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use rye_search_core::semantic::encoder::Encoder;

fn main() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../model/minilm-l6.rye-encoder");
    let encoder = Encoder::load(&model).expect("the encoder loads");
    let texts: Vec<String> = std::io::stdin().lock().lines().map_while(|l| l.ok()).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    for tokens in [128, 64] {
        for (batch, threads) in [(1usize, 1usize), (32, 1), (32, 2)] {
            let t = Instant::now();
            let chunks: Vec<&[&str]> = refs.chunks(batch).collect();
            std::thread::scope(|s| {
                for part in chunks.chunks(chunks.len().div_ceil(threads)) {
                    let encoder = &encoder;
                    s.spawn(move || part.iter().for_each(|c| drop(encoder.embed(c, tokens))));
                }
            });
            let s = t.elapsed().as_secs_f64();
            println!(
                "{tokens:>3} tokens, batch {batch:>2}, {threads} thread(s): {:>6.1} texts/s",
                refs.len() as f64 / s
            );
        }
    }
}
