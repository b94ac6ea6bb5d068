//! Texts/s of the static model (`model/minilm-static-256.rye-embed`) on one thread, for texts read
//! from stdin (one a line), with a checksum of every vector it gave: two builds that print the
//! same checksum embed these texts bit for bit alike (how a change to the tokeniser is checked
//! against the one before it).
//!   zcat ../shared/corpus/debian/packages.jsonl.gz | node bench/probes/item-texts.js |
//!     cargo run --release --example static_embed_speed -p rye-search-core
use std::hash::Hasher;
use std::io::BufRead;
use std::path::Path;
use std::time::Instant;

use rye_search_core::semantic::StaticModel;

fn main() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../model/minilm-static-256.rye-embed");
    let model = StaticModel::load(&model).expect("the static model loads");
    let texts: Vec<String> = std::io::stdin().lock().lines().map_while(|l| l.ok()).collect();
    let mut checksum = std::hash::DefaultHasher::new();
    for v in texts.iter().filter_map(|t| model.embed(t)) {
        v.iter().for_each(|x| checksum.write_u32(x.to_bits()));
    }
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        texts.iter().for_each(|text| drop(std::hint::black_box(model.embed(text))));
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{} texts: {:.0} texts/s on one thread (best of 5), {:.2} µs a text; vectors' checksum {:016x}",
        texts.len(),
        texts.len() as f64 / best,
        best * 1e6 / texts.len() as f64,
        checksum.finish()
    );
}
