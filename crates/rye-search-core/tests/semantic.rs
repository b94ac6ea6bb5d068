//! Semantic search with the model the package ships.

use std::path::Path;

use rye_search_core::semantic::{load_model, model};
use rye_search_core::{Filter, ItemDoc, LikeRef, Matched, Mode, Scope, SearchIndex, SearchRequest};

fn shipped_model() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../model/minilm-static-256.rye-embed");
    assert!(load_model(&path).unwrap().starts_with("256d"));
}

#[test]
fn embeddings_match_the_python_model_they_were_distilled_with() {
    shipped_model();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/embeddings.json");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let m = model().unwrap();
    for case in cases {
        let expected: Vec<f32> =
            case["vector"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
        let got = m.embed(case["text"].as_str().unwrap()).unwrap();
        let cosine: f32 = got.iter().zip(&expected).map(|(a, b)| a * b).sum();
        assert!(cosine > 0.99, "{}: cosine {cosine}", case["text"]);
    }
}

fn doc(id: &str, title: &str, description: &str) -> ItemDoc {
    serde_json::from_value(serde_json::json!({
        "key": format!("tool\u{0}project\u{0}{id}"), "id": id, "kind": "tool", "space": "project",
        "name": id, "title": title, "description": description, "content": description,
    }))
    .unwrap()
}

#[test]
fn a_question_in_other_words_finds_the_item_and_filters_stay_exact() {
    shipped_model();
    let index = SearchIndex::in_memory().unwrap();
    let mut batch = index.batch().unwrap();
    batch
        .upsert(&[
            doc(
                "tmux",
                "terminal multiplexer",
                "lets you switch between several programs in one terminal, detach them and reattach them later",
            ),
            doc("gzip", "GNU compression utility", "reduces the size of files"),
            doc("curl", "command line tool for transferring data with URL syntax", "fetches web pages"),
        ])
        .unwrap();
    batch.commit().unwrap();
    let question = "keep my programs running after I disconnect";
    let keyword =
        index.search(&SearchRequest { query: question.into(), mode: Mode::Keyword, ..Default::default() }).unwrap();
    assert_eq!(keyword.search_type, "keyword");
    let auto = index.search(&SearchRequest { query: question.into(), ..Default::default() }).unwrap();
    assert_eq!(auto.search_type, "hybrid");
    assert_eq!(auto.hits[0].id, "tmux", "{:?}", auto.hits.iter().map(|h| &h.id).collect::<Vec<_>>());
    assert!(auto.hits.iter().all(|h| (0.0..=1.0).contains(&h.score)));
    let semantic = index
        .search(&SearchRequest { query: "make files smaller".into(), mode: Mode::Semantic, ..Default::default() })
        .unwrap();
    assert_eq!(semantic.hits[0].id, "gzip");
    // Identifiers and operators stay keyword in auto mode.
    let ident = index.search(&SearchRequest { query: "tmux OR gzip".into(), ..Default::default() }).unwrap();
    assert_eq!(ident.search_type, "keyword");
    let other_kind = index
        .search(&SearchRequest {
            query: question.into(),
            scopes: vec![Scope { kind: Some("directive".into()), ..Default::default() }],
            mode: Mode::Hybrid,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(other_kind.total, 0);
}

/// The scan has a short path (no deletes, no facets: counts a block at once and skips blocks
/// nothing in can enter the page) and the general one (facets mark every match, deletes are
/// checked). Every page either gives is a slice of the best 1,000, with its total, with and
/// without the recency boost, before and after items are replaced; hybrid pages agree between the
/// two paths. 9,000 items: a scan longer than one stretch is shared by threads.
/// 9,000 items of three title and six description words from a small vocabulary, dated up to a
/// year back: many items share words, so questions find hundreds by words and by meaning.
fn word_salad() -> Vec<ItemDoc> {
    let words = [
        "network",
        "file",
        "compression",
        "terminal",
        "editor",
        "music",
        "player",
        "image",
        "viewer",
        "mail",
        "server",
        "client",
        "database",
        "backup",
        "font",
        "game",
        "chess",
        "python",
        "library",
        "parser",
        "json",
        "xml",
        "video",
        "audio",
        "printer",
        "driver",
        "kernel",
        "monitor",
        "clock",
        "calendar",
    ];
    let mut seed = 7u64;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let docs: Vec<ItemDoc> = (0..9000)
        .map(|i| {
            let title: Vec<&str> = (0..3).map(|_| words[next(words.len())]).collect();
            let description: Vec<&str> = (0..6).map(|_| words[next(words.len())]).collect();
            let mut d = doc(&format!("item{i}"), &title.join(" "), &description.join(" "));
            // Ages from now to a year: recency raises scores by different factors.
            d.date = Some(now - next(365) as i64 * 86_400_000);
            d
        })
        .collect();
    docs
}

/// The shipped model, and an index of [`word_salad`]'s items added in one batch.
fn salad_index() -> (Vec<ItemDoc>, SearchIndex) {
    shipped_model();
    let docs = word_salad();
    let index = SearchIndex::in_memory().unwrap();
    add(&index, &docs);
    (docs, index)
}

/// Adds `docs` in one batch.
fn add(index: &SearchIndex, docs: &[ItemDoc]) {
    let mut batch = index.batch().unwrap();
    batch.upsert(docs).unwrap();
    batch.commit().unwrap();
}

/// Every tenth item again, in other words (`word` added to its title): added to an index that
/// holds them, a second segment and deletes in the first.
fn every_tenth_again(docs: &[ItemDoc], word: &str) -> Vec<ItemDoc> {
    docs.iter().step_by(10).map(|d| ItemDoc { title: format!("{} {word}", d.description), ..d.clone() }).collect()
}

#[test]
fn the_scan_pages_are_slices_of_the_whole_ranking() {
    let (docs, index) = salad_index();
    let run = |query: &str, mode, limit, offset, facets, recency_half_life| {
        let req = SearchRequest {
            query: query.into(),
            mode,
            limit,
            offset,
            facets,
            recency_half_life,
            preview_chars: 0,
            ..Default::default()
        };
        let res = index.search(&req).unwrap();
        (res.total, res.hits.into_iter().map(|h| (h.id, h.score)).collect::<Vec<_>>())
    };
    for replaced in [false, true] {
        if replaced {
            add(&index, &every_tenth_again(&docs, "music"));
        }
        for query in ["play my music files", "a program to read mail", "keep backups of the database"] {
            for recency_half_life in [None, Some(30 * 86_400_000)] {
                let (total, whole) = run(query, Mode::Semantic, 1000, 0, false, recency_half_life);
                assert!(whole.len() > 100, "{query}: {} found", whole.len());
                for (limit, offset) in [(1, 0), (10, 0), (10, 40), (50, 100)] {
                    for facets in [false, true] {
                        let page = run(query, Mode::Semantic, limit, offset, facets, recency_half_life);
                        let expected = (total, whole[offset..offset + limit].to_vec());
                        assert_eq!(
                            page, expected,
                            "{query}: {limit} from {offset}, facets {facets}, {recency_half_life:?}"
                        );
                        let short = run(query, Mode::Hybrid, limit, offset, false, recency_half_life);
                        assert_eq!(short, run(query, Mode::Hybrid, limit, offset, true, recency_half_life));
                    }
                }
            }
        }
    }
}

/// A hybrid ranking is one list, whatever page is asked: an item's fused score must not depend on
/// how deep the page reaches (an item the keyword list only reached for a deeper page used to
/// jump ahead, and totals moved with the offset). Pages of 7 must be slices of one page of 300,
/// with the same total, scores and match kinds; facet counts add up to the total. Questions
/// that keep every word (strict) and that lose words (relaxed), over two segments with deletes.
#[test]
fn hybrid_pages_are_slices_of_one_ranking() {
    let (docs, index) = salad_index();
    add(&index, &every_tenth_again(&docs, "chess"));
    let run = |query: &str, limit, offset, min_score, recency_half_life, facets| {
        let req = SearchRequest {
            query: query.into(),
            mode: Mode::Hybrid,
            limit,
            offset,
            min_score,
            recency_half_life,
            facets,
            preview_chars: 0,
            ..Default::default()
        };
        let res = index.search(&req).unwrap();
        let hits: Vec<_> = res.hits.into_iter().map(|h| (h.id, h.score, h.matched)).collect();
        (res.total, hits, res.relaxed, res.counts)
    };
    // Items like one item: its words and its meaning, fused the same way.
    let like = |limit, offset| {
        let like = Some(LikeRef { id: "item5".into(), kinds: vec!["tool".into()] });
        let req = SearchRequest { like, limit, offset, preview_chars: 0, ..Default::default() };
        let res = index.search(&req).unwrap();
        (res.total, res.hits.into_iter().map(|h| (h.id, h.score, h.matched)).collect::<Vec<_>>())
    };
    let (total, whole) = like(300, 0);
    assert_eq!(whole.len(), 300);
    for offset in (0..300).step_by(7) {
        let (page_total, page) = like(7, offset);
        let end = (offset + 7).min(300);
        assert_eq!((page_total, &page[..end - offset]), (total, &whole[offset..end]), "like, 7 from {offset}");
    }
    // "music" alone: a term union, whose ranking skips documents and counts them again.
    let questions = ["python library parser", "play music files", "chess game", "a quiet zebra playing chess", "music"];
    for query in questions {
        for min_score in [0.0, 0.3] {
            for recency_half_life in [None, Some(30 * 86_400_000)] {
                let (total, whole, relaxed, _) = run(query, 300, 0, min_score, recency_half_life, false);
                assert!(!whole.is_empty(), "{query}: nothing found");
                for offset in (0..whole.len().min(300)).step_by(7) {
                    let (page_total, page, page_relaxed, _) =
                        run(query, 7, offset, min_score, recency_half_life, false);
                    let end = (offset + 7).min(whole.len());
                    let context = format!(
                        "{query} (relaxed {relaxed}), 7 from {offset}, min_score {min_score}, {recency_half_life:?}"
                    );
                    assert_eq!(page_total, total, "{context}: total");
                    assert_eq!(page_relaxed, relaxed, "{context}: relaxed");
                    // The long page may end inside the last short one.
                    let page = if whole.len() == 300 { &page[..page.len().min(end - offset)] } else { &page[..] };
                    let expected = &whole[offset..end];
                    match recency_half_life {
                        None => assert_eq!(page, expected, "{context}: page"),
                        // Ages run from the moment of each search: a score rounded to four places
                        // may move by one in its last place between the two (seen under load).
                        Some(_) => {
                            let same = page.len() == expected.len()
                                && page
                                    .iter()
                                    .zip(expected)
                                    .all(|(a, b)| a.0 == b.0 && a.2 == b.2 && (a.1 - b.1).abs() <= 0.00011);
                            assert!(same, "{context}: page\n  left: {page:?}\n right: {expected:?}");
                        }
                    }
                }
                let (facet_total, _, _, counts) = run(query, 10, 0, min_score, recency_half_life, true);
                assert_eq!(facet_total, total, "{query}: total with facets");
                let by_type: u64 = counts.expect("counts")["type"].values().sum();
                assert_eq!(by_type as usize, total, "{query}: counts by type add up to the total");
            }
        }
    }
}

/// `auto` is keyword first: a plain question whose words all match at least ten items is answered
/// by its words (the first page hybrid would give, in the same order, without the vector scan);
/// one whose words find fewer, or not all of them, still fuses meaning in. Either way every page
/// of one question is a slice of one ranking, with one total.
#[test]
fn auto_answers_by_words_when_they_find_a_page_and_fuses_meaning_otherwise() {
    let (docs, index) = salad_index();
    add(&index, &every_tenth_again(&docs, "chess"));
    let run = |query: &str, mode, limit, offset| {
        let req = SearchRequest { query: query.into(), mode, limit, offset, preview_chars: 0, ..Default::default() };
        let res = index.search(&req).unwrap();
        let hits: Vec<_> = res.hits.into_iter().map(|h| (h.id, h.score, h.matched)).collect();
        (res.search_type, res.total, hits)
    };
    let ids = |hits: &[(String, f64, Matched)]| hits.iter().map(|h| h.0.clone()).collect::<Vec<_>>();
    // Plenty of items have both words; "zebra" is in none (relaxed); three rare words together
    // are in fewer than ten items.
    let keyword_total = |query: &str| run(query, Mode::Keyword, 1, 0).1;
    assert!(keyword_total("chess game") >= 10);
    let rare = "chess clock calendar printer font";
    assert!((1..10).contains(&keyword_total(rare)), "{rare}: {}", keyword_total(rare));
    for (query, by_words) in
        [("chess game", true), ("python library parser", true), ("a quiet zebra playing chess", false), (rare, false)]
    {
        let (kind, total, whole) = run(query, Mode::Auto, 60, 0);
        assert_eq!(kind, if by_words { "keyword" } else { "hybrid" }, "{query}");
        let (_, _, hybrid) = run(query, Mode::Hybrid, 10, 0);
        assert_eq!(ids(&whole[..10]), ids(&hybrid), "{query}: hybrid's first page, in its order");
        if !by_words {
            // `auto` ranks the few items holding every word from the matches it counted; hybrid
            // ranks them by walking the query: one answer, scores and all.
            assert_eq!(("hybrid", total, whole.clone()), run(query, Mode::Hybrid, 60, 0), "{query}: hybrid's answer");
        }
        if by_words {
            assert_eq!(
                ("keyword", total, whole.clone()),
                run(query, Mode::Keyword, 60, 0),
                "{query}: the keyword answer"
            );
        }
        for offset in (0..60).step_by(7) {
            let (page_kind, page_total, page) = run(query, Mode::Auto, 7, offset);
            let end = (offset + 7).min(whole.len());
            assert_eq!((page_kind, page_total), (kind, total), "{query}: 7 from {offset}");
            assert_eq!(&page[..end - offset], &whole[offset..end], "{query}: 7 from {offset}");
        }
    }
}

/// `auto` ranks a question's every-word query first: below [`WORDS_SETTLE`] matches it fuses
/// them with meaning exactly as hybrid does — found in every segment, never a deleted one, with
/// the same counts — whether the page holds all of them or not.
#[test]
fn auto_ranks_a_few_every_word_matches_across_segments_as_hybrid_does() {
    shipped_model();
    let mut docs = word_salad();
    let rare = |i: usize, title: &str| doc(&format!("rare{i}"), title, "quasar nebula seen through a telescope");
    docs.extend((0..4).map(|i| rare(i, "quasar nebula")));
    let index = SearchIndex::in_memory().unwrap();
    add(&index, &docs);
    // A second segment: two more, and one of the first four again (deleted from the first).
    add(&index, &[rare(1, "quasar nebula chess"), rare(4, "a quasar nebula"), rare(5, "nebula quasar")]);
    let run = |mode, offset, limit| {
        let req = SearchRequest {
            query: "quasar nebula".into(),
            mode,
            offset,
            limit,
            facets: true,
            preview_chars: 0,
            ..Default::default()
        };
        let res = index.search(&req).unwrap();
        let hits: Vec<_> = res.hits.into_iter().map(|h| (h.id, h.score, h.matched)).collect();
        (res.search_type, res.total, hits, res.counts)
    };
    let keyword = run(Mode::Keyword, 0, 60);
    assert_eq!(keyword.1, 6);
    let auto = run(Mode::Auto, 0, 60);
    assert_eq!(auto.0, "hybrid");
    assert_eq!(auto, run(Mode::Hybrid, 0, 60));
    let found: Vec<&String> = auto.2.iter().map(|h| &h.0).collect();
    for (id, ..) in &keyword.2 {
        assert_eq!(found.iter().filter(|f| **f == id).count(), 1, "{id} once in {found:?}");
    }
    // Pages shorter than the six matches, and one after them.
    for (offset, limit) in [(0, 3), (2, 2), (6, 5)] {
        assert_eq!(run(Mode::Auto, offset, limit), run(Mode::Hybrid, offset, limit), "offset {offset}, limit {limit}");
    }
}

/// A hybrid scan over thousands of candidates computes the similarity of those whose sign codes
/// (one bit a dimension) agree most with the question's, not of every one: what meaning alone
/// ranks best must still be found. Questions none of whose words any item holds, so the hybrid
/// ranking is the shortlisted window's own order.
#[test]
fn a_shortlisted_hybrid_scan_finds_what_the_exact_scan_ranks_best() {
    let (_, index) = salad_index();
    let ids = |query: &str, mode| {
        let req = SearchRequest { query: query.into(), mode, limit: 10, preview_chars: 0, ..Default::default() };
        index.search(&req).unwrap().hits.into_iter().map(|h| h.id).collect::<Vec<_>>()
    };
    for query in ["songs and tunes", "photographs and pictures", "typefaces", "sending letters electronically"] {
        let (exact, shortlisted) = (ids(query, Mode::Semantic), ids(query, Mode::Hybrid));
        assert_eq!(exact.len(), 10, "{query}");
        assert_eq!(shortlisted.first(), exact.first(), "{query}: the best item");
        let shared = shortlisted.iter().filter(|id| exact.contains(id)).count();
        assert!(shared >= 8, "{query}: {shared} of the exact best 10: {shortlisted:?} vs {exact:?}");
    }
}

/// A segment's sign codes are built by the first scan that shortlists, on the thread pool. The
/// first hybrid searches of a fresh index, from pool threads (`search_many`) and from outside the
/// pool at once, must all answer: a pool thread that waited for another's build while that build
/// waited for pool threads hung them all.
#[test]
fn the_first_hybrid_searches_of_an_index_answer_from_every_thread_at_once() {
    shipped_model();
    let texts = ["terminal music player", "mail server backup", "chess game engine", "image viewer font"];
    let docs: Vec<ItemDoc> = (0..40_000).map(|i| doc(&format!("n{i:05}"), texts[i % 4], texts[(i / 7) % 4])).collect();
    for round in 0..3 {
        let index = std::sync::Arc::new(SearchIndex::in_memory().unwrap());
        add(&index, &docs[..30_000 + round * 5_000]);
        let req = |query: &str| SearchRequest {
            query: query.into(),
            mode: Mode::Hybrid,
            preview_chars: 0,
            ..Default::default()
        };
        let (done, finished) = std::sync::mpsc::channel();
        let many = {
            let (index, done) = (index.clone(), done.clone());
            let reqs: Vec<SearchRequest> = (0..16).map(|i| req(["play songs", "back up my mail"][i % 2])).collect();
            std::thread::spawn(move || {
                let _ = done.send(index.search_many(&reqs).iter().all(|r| r.is_ok()));
            })
        };
        let single = {
            let index = index.clone();
            std::thread::spawn(move || {
                let _ = done.send(index.search(&req("a game of chess")).is_ok());
            })
        };
        for _ in 0..2 {
            let answered = finished.recv_timeout(std::time::Duration::from_secs(60));
            assert_eq!(answered, Ok(true), "round {round}: every search answers within a minute");
        }
        many.join().unwrap();
        single.join().unwrap();
    }
}

/// Words that name an item (all of them in its title, name, description, category or tags) keep
/// it first; words an item holds only somewhere in its body are weak evidence, and a question
/// fused with meaning then ranks what meaning finds first.
#[test]
fn words_only_in_a_body_do_not_outrank_meaning_words_that_name_an_item_do() {
    shipped_model();
    let question = "how do I make a new tool";
    // Eighty items about writing tools, none with the words "make" or "new": meaning finds them
    // first. One item about backups holds every word, in its body only.
    let mut docs = Vec::new();
    for verb in ["Create", "Write", "Build", "Author", "Generate"] {
        for what in ["a tool", "tool files", "a tool script", "tool metadata"] {
            for how in ["for agents", "with metadata", "and sign it", "from a template"] {
                let title = format!("{verb} {what} {how}");
                docs.push(doc(&title.to_lowercase().replace(' ', "_"), &title, "Writes a tool file and checks it"));
            }
        }
    }
    docs.push(ItemDoc {
        content: "Mailboxes are copied at night. Make room on the disk first; a new copy replaces the old, and the \
                  rsync tool checks it."
            .into(),
        ..doc("backup", "Back up a mail server", "Copies mailboxes to another disk every night")
    });
    let index = SearchIndex::in_memory().unwrap();
    add(&index, &docs);
    let search = |mode, limit| {
        let req = SearchRequest { query: question.into(), mode, limit, preview_chars: 0, ..Default::default() };
        let res = index.search(&req).unwrap();
        (res.search_type, res.hits.into_iter().map(|h| h.id).collect::<Vec<_>>())
    };
    assert_eq!(search(Mode::Keyword, 10).1, ["backup"], "every word, in its body");
    let (_, by_meaning) = search(Mode::Semantic, 60);
    assert!(!by_meaning.contains(&"backup".to_string()), "meaning alone does not find it");
    let (kind, auto) = search(Mode::Auto, 100);
    assert_eq!(kind, "hybrid");
    assert_eq!(auto[..10], by_meaning[..10], "meaning leads");
    assert!(auto.contains(&"backup".to_string()), "the words add it after");
    // The same words in a name: that item is what they ask for.
    add(&index, &[doc("toolsmith", "Make a new tool", "Scaffolds a tool from a template")]);
    let (kind, auto) = search(Mode::Auto, 10);
    assert_eq!(kind, "hybrid");
    assert_eq!(auto[0], "toolsmith", "{auto:?}");
}

/// The scan's stretches run on several threads and share the lowest score that can still enter
/// the best: an item that only ties it must not be dropped when another stretch proved it, since
/// among equal scores the lower address ranks first. Thousands of items with the same text (the
/// same vector) across many stretches: every page is a slice of one ranking, the same on every
/// run.
#[test]
fn tied_items_across_parallel_stretches_rank_by_address_every_time() {
    shipped_model();
    let texts = ["terminal music player", "mail server backup", "chess game engine", "image viewer font"];
    // The name is embedded too: the same for every item of a text.
    let docs: Vec<ItemDoc> = (0..40_000)
        .map(|i| {
            let (title, description) = (texts[i % texts.len()], texts[(i / 7) % texts.len()]);
            let kind = if i % 3 == 0 { "directive" } else { "tool" };
            ItemDoc { name: "same".into(), kind: kind.into(), ..doc(&format!("t{i:05}"), title, description) }
        })
        .collect();
    let index = SearchIndex::in_memory().unwrap();
    add(&index, &docs);
    let run = |limit, offset| {
        let req = SearchRequest {
            query: "play songs in a terminal".into(),
            mode: Mode::Semantic,
            limit,
            offset,
            preview_chars: 0,
            ..Default::default()
        };
        let res = index.search(&req).unwrap();
        (res.total, res.hits.into_iter().map(|h| (h.id, h.score)).collect::<Vec<_>>())
    };
    let (total, whole) = run(100, 0);
    assert!(whole.windows(2).all(|p| p[0].1 >= p[1].1));
    assert!(whole[..60].iter().all(|h| h.1 == whole[0].1), "the best 60 tie: {whole:?}");
    // A scope is a filter each stretch runs over its own range of doc ids: what it lets through
    // is what the unfiltered scan counts for that type.
    let directives = SearchRequest {
        query: "play songs in a terminal".into(),
        mode: Mode::Semantic,
        scopes: vec![Scope { kind: Some("directive".into()), ..Default::default() }],
        facets: true,
        ..Default::default()
    };
    let scoped = index.search(&directives).unwrap();
    let all = index.search(&SearchRequest { scopes: Vec::new(), ..directives.clone() }).unwrap();
    assert_eq!(scoped.total as u64, all.counts.unwrap()["type"]["directive"]);
    assert!(scoped.total > 1000, "{}", scoped.total);
    for hit in &scoped.hits {
        assert_eq!(hit.id.trim_start_matches('t').parse::<usize>().unwrap() % 3, 0, "{}", hit.id);
    }
    for _ in 0..5 {
        assert_eq!(run(100, 0), (total, whole.clone()));
        for offset in [0, 13, 60, 90] {
            assert_eq!(run(10, offset), (total, whole[offset..offset + 10].to_vec()), "10 from {offset}");
        }
    }
}

#[test]
fn the_vectors_a_semantic_search_reads_count_in_the_index_s_memory() {
    // What the Node binding tells V8 after a search: a first semantic search reads every
    // segment's vectors into memory, on disk as in memory.
    let (docs, in_memory) = salad_index();
    let dir = std::env::temp_dir().join(format!("rye-search-core-vectors-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let on_disk = SearchIndex::open(&dir).unwrap();
    add(&on_disk, &docs);
    for index in [&in_memory, &on_disk] {
        let before = index.memory_bytes();
        let semantic = SearchRequest { query: "make files smaller".into(), mode: Mode::Semantic, ..Default::default() };
        index.search(&semantic).unwrap();
        let vectors = (docs.len() * 256) as u64;
        assert!(index.memory_bytes() >= before + vectors, "{before} → {}", index.memory_bytes());
        // Keyword searches read none.
        let after = index.memory_bytes();
        index.search(&SearchRequest { query: "files".into(), mode: Mode::Keyword, ..Default::default() }).unwrap();
        assert_eq!(index.memory_bytes(), after);
    }
    drop(on_disk);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_empty_search_by_meaning_says_meaning_left_the_items_out_not_a_filter() {
    shipped_model();
    let index = SearchIndex::in_memory().unwrap();
    add(
        &index,
        &[
            doc("walrus", "a walrus", "a large marine mammal of the arctic"),
            doc("penguin", "a penguin", "a bird of the south"),
        ],
    );
    let semantic = |spaces: Vec<String>, filters: Vec<Filter>| {
        let req = SearchRequest { query: "a".into(), mode: Mode::Semantic, spaces, filters, ..Default::default() };
        index.search(&req).unwrap()
    };
    // A word every item holds, with no meaning of its own: nothing is close enough.
    let keyword =
        index.search(&SearchRequest { query: "a".into(), mode: Mode::Keyword, ..Default::default() }).unwrap();
    assert_eq!(keyword.total, 2);
    for spaces in [vec![], vec!["project".to_string()]] {
        let res = semantic(spaces.clone(), vec![]);
        assert_eq!(res.total, 0, "{spaces:?}");
        assert_eq!(
            res.warnings,
            ["2 items hold these words, but none is close enough in meaning to the query: mode keyword finds them"],
            "{spaces:?}"
        );
    }
    // A filter that leaves every item out is still named as what did.
    let res = semantic(vec![], vec![Filter::AnyOf { key: "category".into(), values: vec!["none".into()] }]);
    assert_eq!(res.total, 0);
    assert!(res.warnings.iter().any(|w| w.contains("none passes the filter category = none")), "{:?}", res.warnings);
}
