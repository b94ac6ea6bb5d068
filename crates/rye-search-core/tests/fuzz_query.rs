//! Random and adversarial query strings: the parser and the search never panic, always answer
//! within a time cap, and every failure carries a stable code. Deterministic (seeded) so a
//! failure reproduces; no external fuzzing crate needed.
use std::time::{Duration, Instant};

use rye_search_core::{ItemDoc, SearchIndex, SearchRequest};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "AND",
    "OR",
    "NOT",
    "(",
    ")",
    "\"",
    "*",
    "**",
    "file",
    "fi*le",
    "*thread*",
    "create_tool",
    "-",
    "\\",
    "é",
    "𝔘",
    "\u{0}",
    "\n",
    "\t",
    " ",
    "and",
    "or",
    "NOT(",
    "\u{202e}",
    "[",
    "]",
    "?",
    "{",
    "}",
    "^",
    "$",
    ".*",
    "a.b",
    "%2f",
    "..",
];

fn random_query(rng: &mut Rng) -> String {
    let len = rng.below(24);
    let mut q = String::new();
    for _ in 0..len {
        match rng.below(4) {
            0 => q.push(char::from_u32(rng.below(0x2FFF) as u32).unwrap_or('x')),
            _ => q.push_str(PIECES[rng.below(PIECES.len())]),
        }
        if rng.below(3) == 0 {
            q.push(' ');
        }
    }
    q
}

fn index() -> SearchIndex {
    let idx = SearchIndex::in_memory().unwrap();
    let mut batch = idx.batch().unwrap();
    let docs: Vec<ItemDoc> = (0..200)
        .map(|i| ItemDoc {
            key: format!("k{i}"),
            id: format!("ns{}/item{i}", i % 7),
            kind: "tool".into(),
            space: "project".into(),
            title: format!("file thread create_tool multithreaded item{i}"),
            content: "the quick brown fox jumps over the lazy dog ".repeat(i % 5 + 1),
            ..Default::default()
        })
        .collect();
    batch.upsert(&docs).unwrap();
    batch.commit().unwrap();
    idx
}

fn check(idx: &SearchIndex, query: String, fuzzy: u8) {
    let started = Instant::now();
    let req = SearchRequest { query: query.clone(), fuzzy: fuzzy.into(), proximity: Some(3), ..Default::default() };
    match idx.search(&req) {
        Ok(res) => assert!(res.hits.len() <= 10),
        Err(e) => assert!(["E_QUERY_SYNTAX", "E_LIMIT", "E_INVALID_ARGUMENT"].contains(&e.code()), "{query:?}: {e}"),
    }
    assert!(started.elapsed() < Duration::from_secs(2), "{query:?} took {:?}", started.elapsed());
}

#[test]
fn thousands_of_random_queries_never_panic_or_hang() {
    let idx = index();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..5000 {
        check(&idx, random_query(&mut rng), (i % 4) as u8);
    }
}

#[test]
fn adversarial_queries_get_codes_not_crashes() {
    let idx = index();
    let long_term = "a".repeat(100_000);
    let cases = vec![
        "(".repeat(10_000),
        ")".repeat(10_000),
        "\"".repeat(9_999),
        "NOT ".repeat(2_000),
        "a OR ".repeat(3_000),
        "*".repeat(5_000),
        "*a*".repeat(1_000),
        long_term.clone(),
        format!("{long_term}*"),
        "x ".repeat(4_000),
        "\u{0}\u{1}\u{2}\u{7f}".into(),
        "((((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))))".into(),
    ];
    for q in cases {
        check(&idx, q, 2);
    }
}
