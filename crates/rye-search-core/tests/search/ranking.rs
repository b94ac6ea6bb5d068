//! Ranking: field boosts, exact ties, totals, sorts, pages as slices of one order, min_score, recency, like, explain.

use super::*;

#[test]
fn title_outranks_content_by_field_boost() {
    let idx = index(&[
        doc("a/in_content", "project", "alpha", "", "widget"),
        doc("a/in_title", "project", "widget", "", "alpha"),
    ]);
    let res = idx.search(&q("widget")).unwrap();
    assert_eq!(res.hits[0].id, "a/in_title");
    assert_eq!(res.hits[0].score, 1.0);
    assert!(res.hits[1].score < 1.0 && res.hits[1].score > 0.0);
}

#[test]
fn ties_break_by_space_then_id_and_scores_are_stable_across_pages() {
    let mut docs = Vec::new();
    for (i, space) in ["system:core", "user", "project"].iter().enumerate() {
        for j in 0..4 {
            docs.push(doc(&format!("same/item{j}{i}"), space, "same", "", ""));
        }
    }
    let idx = index(&docs);
    let spaces: Vec<String> = ["project", "user", "system:core"].iter().map(|s| s.to_string()).collect();
    let all = idx.search(&SearchRequest { spaces: spaces.clone(), limit: 100, ..q("same") }).unwrap();
    let order: Vec<_> = all.hits.iter().map(|h| (h.item_str("space").unwrap(), h.id.clone())).collect();
    let mut expected = order.clone();
    expected.sort_by_key(|(s, id)| (spaces.iter().position(|x| x == s), id.clone()));
    assert_eq!(order, expected);
    for offset in 0..12 {
        let page = idx.search(&SearchRequest { spaces: spaces.clone(), limit: 1, offset, ..q("same") }).unwrap();
        assert_eq!(page.total, 12);
        assert_eq!(page.hits[0].id, all.hits[offset].id, "page at offset {offset}");
        assert_eq!(page.hits[0].score, all.hits[offset].score);
    }
    let beyond = idx.search(&SearchRequest { offset: 50, ..q("same") }).unwrap();
    assert!(beyond.hits.is_empty());
    assert_eq!(beyond.total, 12);
}

/// Many identical documents spread over several segments (one small commit each), with ids
/// that share long prefixes: every page is the exact slice of the full order, by id.
#[test]
fn ties_across_segments_are_exact_by_id() {
    let index = SearchIndex::in_memory().unwrap();
    let prefix = "vendor/a-very-long-shared-namespace-prefix/item";
    let mut expected = Vec::new();
    // Two commits: two segments, below what the merge policy merges.
    for commit in 0..2 {
        let docs: Vec<ItemDoc> = (0..100)
            .map(|i| {
                let id = format!("{prefix}-{:03}", (i * 7 + commit * 13) % 200);
                doc(&id, "project", "replica", "identical text", "")
            })
            .collect();
        expected.extend(docs.iter().map(|d| d.id.clone()));
        let mut batch = index.batch_for(docs.len()).unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    }
    let mut batch = index.batch_for(1).unwrap();
    batch.delete(&[format!("project:{prefix}-000")]);
    batch.commit().unwrap();
    expected.retain(|id| !id.ends_with("-000"));
    expected.sort();
    expected.dedup();
    assert!(index.num_segments() > 1, "the test needs several segments");
    let all = ids(&index, SearchRequest { limit: 1000, ..q("replica") });
    assert_eq!(all, expected);
    for offset in [0, 9, 10, 57, 150] {
        let page = index.search(&SearchRequest { limit: 10, offset, ..q("replica") }).unwrap();
        assert_eq!(page.total, expected.len());
        let want: Vec<_> = expected.iter().skip(offset).take(10).cloned().collect();
        assert_eq!(page.hits.into_iter().map(|h| h.id).collect::<Vec<_>>(), want, "page at {offset}");
    }
    assert_eq!(index.search(&SearchRequest { limit: 0, ..q("replica") }).unwrap().total, expected.len());
    let by_name = ids(&index, SearchRequest { sort_by: SortBy::Name, limit: 5, ..q("replica") });
    assert_eq!(by_name, expected[..5].to_vec());
}

/// One id in two system bundles (same space rank), written in separate segments, in either
/// order: the tie is broken by key, so the order never depends on where documents sit.
#[test]
fn same_id_ties_across_segments_break_by_key() {
    for spaces in [["system:b", "system:a"], ["system:a", "system:b"]] {
        let index = SearchIndex::in_memory().unwrap();
        for space in spaces {
            let mut batch = index.batch_for(1).unwrap();
            batch.upsert(&[doc("x/shared", space, "replica", "identical text", "")]).unwrap();
            batch.commit().unwrap();
        }
        assert_eq!(index.num_segments(), 2);
        let hits = index.search(&SearchRequest { preview_chars: 0, ..q("replica") }).unwrap().hits;
        let spaces: Vec<String> = hits.iter().map(|h| h.item_str("space").unwrap_or_default()).collect();
        assert_eq!(spaces, ["system:a", "system:b"]);
    }
}

/// The total of a one-hit page equals the number of hits of a page holding every match, for
/// every query shape (skipping blocks for the first must not change the count), across segments
/// and with deleted documents.
#[test]
fn totals_are_exact_for_every_query_shape() {
    // Enough documents that common words take the pruned path (counted in a second pass) and
    // `omega` (in one document of 25) the exhaustive one.
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
    let index = SearchIndex::in_memory().unwrap();
    for commit in 0..4 {
        let docs: Vec<ItemDoc> = (0..600)
            .map(|i| {
                let pick = |k: usize| words[(i * (k + 3) + commit * 7 + k * k) % words.len()];
                let omega = if i % 25 == 0 { "omega" } else { "" };
                let text = format!("{} {} {} {omega} {}", pick(0), pick(1), pick(2), "filler ".repeat(i % 13));
                let mut d = doc(&format!("set{commit}/doc{i}"), "project", pick(3), pick(4), &text);
                d.kind = if i % 3 == 0 { "directive".into() } else { "tool".into() };
                d
            })
            .collect();
        let mut batch = index.batch_for(docs.len()).unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    }
    let mut batch = index.batch_for(1).unwrap();
    batch.delete(&(0..50).map(|i| format!("project:set1/doc{i}")).collect::<Vec<_>>());
    batch.commit().unwrap();
    assert!(index.num_segments() > 1);
    for query in [
        "alpha",
        "omega",
        "alpha OR omega",
        "alpha OR beta",
        "alpha beta",
        "\"alpha beta\"",
        "alpha NOT gamma",
        "gam*",
        "*",
    ] {
        for kind in [None, Some("tool")] {
            let scopes = kind.map(|k| Scope { kind: Some(k.into()), ..Default::default() }).into_iter().collect();
            let req = SearchRequest { query: query.into(), scopes, ..Default::default() };
            // Sorted by name, nothing is skipped: every match is counted on the way.
            let by_name = index.search(&SearchRequest { limit: 1000, sort_by: SortBy::Name, ..req.clone() }).unwrap();
            let all = index.search(&SearchRequest { limit: 1000, ..req.clone() }).unwrap();
            let one = index.search(&SearchRequest { limit: 1, ..req.clone() }).unwrap();
            let none = index.search(&SearchRequest { limit: 0, ..req }).unwrap();
            assert_eq!(by_name.hits.len(), by_name.total.min(1000), "{query} {kind:?}: page of the name sort");
            assert_eq!(all.total, by_name.total, "{query} {kind:?}: total of the full page");
            assert_eq!(one.total, all.total, "{query} {kind:?}: total of a one-hit page");
            assert_eq!(none.total, all.total, "{query} {kind:?}: total without hits");
            assert_eq!(one.hits.first().map(|h| &h.id), all.hits.first().map(|h| &h.id), "{query} {kind:?}: best hit");
        }
    }
}

/// A count other than exact keeps the page exactly as it is and says what the total is: `eq`
/// when nothing was skipped, else `gte` with a total between the page's end and the exact one
/// (and `has more` then holds, since skipped documents are matches of a term union).
#[test]
fn a_count_let_go_keeps_the_page_and_says_whether_the_total_is_exact() {
    // Common words in thousands of documents with varied frequencies: block-max WAND skips.
    let index = SearchIndex::in_memory().unwrap();
    let docs: Vec<ItemDoc> = (0..6000)
        .map(|i| {
            let text =
                format!("{} {} {}", "common ".repeat(1 + i % 7), "word ".repeat(i % 5), "filler ".repeat(i % 11));
            doc(&format!("d/{i}"), "project", "", "", &text)
        })
        .collect();
    let mut batch = index.batch_for(docs.len()).unwrap();
    batch.upsert(&docs).unwrap();
    batch.commit().unwrap();
    let mut skipped = 0;
    let queries = ["common", "common OR word", "word", "common word", "\"common word\"", "filler NOT word"];
    // Small pages too: `auto` decides by how many items hold every word, which must not turn on the count.
    for (query, limit) in queries.iter().flat_map(|q| [(*q, 10), (*q, 2)]) {
        let q = |query: &str| SearchRequest { limit, ..q(query) };
        let exact = index.search(&SearchRequest { preview_chars: 0, ..q(query) }).unwrap();
        assert_eq!(exact.total_relation, None, "{query}: exact by default, said by nothing");
        for count in [Count::LowerBound, Count::None] {
            let res = index.search(&SearchRequest { preview_chars: 0, count, ..q(query) }).unwrap();
            let page = |r: &rye_search_core::wire::SearchResponse| {
                r.hits.iter().map(|h| (h.id.clone(), h.score)).collect::<Vec<_>>()
            };
            assert_eq!(page(&res), page(&exact), "{query} {count:?}: the same page");
            match res.total_relation {
                Some("eq") => assert_eq!(res.total, exact.total, "{query}"),
                Some("gte") => {
                    skipped += 1;
                    assert!(
                        res.total < exact.total && res.total >= res.hits.len(),
                        "{query}: {} of {}",
                        res.total,
                        exact.total
                    );
                }
                other => panic!("{query}: total_relation {other:?}"),
            }
        }
    }
    assert!(skipped > 0, "no query skipped: the test does not reach the lower bound");
}

#[test]
fn sort_by_name_and_date() {
    let mut a = doc("x/b_item", "project", "Bravo", "", "");
    a.name = "Bravo".into();
    a.date = Some(1000);
    let mut b = doc("x/a_item", "project", "alpha", "", "");
    b.name = "alpha".into();
    b.date = Some(2000);
    let c = doc("x/c_item", "project", "charlie", "", "");
    let idx = index(&[a, b, c]);
    assert_eq!(ids(&idx, SearchRequest { sort_by: SortBy::Name, ..q("*") }), vec!["x/a_item", "x/b_item", "x/c_item"]);
    assert_eq!(ids(&idx, SearchRequest { sort_by: SortBy::Date, ..q("*") }), vec!["x/a_item", "x/b_item", "x/c_item"]);
}

#[test]
fn match_all_with_fields_ranks_by_the_fields_and_counts_exactly() {
    let docs: Vec<ItemDoc> = (0..40)
        .map(|i| {
            let title = if i % 3 == 0 {
                "needle needle thread"
            } else if i % 3 == 1 {
                "needle in a long title of many words"
            } else {
                "hay"
            };
            doc(&format!("n/{i:02}"), "project", title, "", "")
        })
        .collect();
    let idx = index(&docs);
    let req = |limit| SearchRequest { fields: BTreeMap::from([("title".into(), "needle".into())]), limit, ..q("*") };
    let all = idx.search(&req(100)).unwrap();
    assert_eq!(all.total, 27);
    // Denser matches first, then id order among equals; pages agree with the full list.
    assert_eq!(all.hits[0].id, "n/00");
    assert_eq!(all.hits[13].id, "n/39");
    assert_eq!(all.hits[14].id, "n/01");
    let top = idx.search(&req(5)).unwrap();
    assert_eq!(top.total, 27);
    assert_eq!(
        top.hits.iter().map(|h| &h.id).collect::<Vec<_>>(),
        all.hits[..5].iter().map(|h| &h.id).collect::<Vec<_>>()
    );
}

/// Few score levels, many ties, spaces and ids in no order, one segment: every page is the exact
/// slice of the full order (score, then space, then id), whatever the page size and offset, so
/// the running top keeps the right tied documents however often it is cut.
#[test]
fn pages_of_heavily_tied_results_are_slices_of_the_full_order() {
    let docs: Vec<ItemDoc> = (0..600)
        .map(|i| {
            let space = ["user", "project", "system:x"][(i * 7) % 3];
            let words = ["alpha", "alpha alpha", "alpha beta gamma"][(i * 11) % 3];
            doc(&format!("tie/{:03}", (i * 389) % 600), space, words, "", "")
        })
        .collect();
    let index = index(&docs);
    let rank = |s: &str| ["project", "user"].iter().position(|x| *x == s).unwrap_or(2);
    let all = index.search(&SearchRequest { limit: 1000, ..q("alpha") }).unwrap().hits;
    assert_eq!(all.len(), 600);
    let key = |h: &rye_search_core::Hit| {
        (std::cmp::Reverse(h.score.to_bits()), rank(&h.item_str("space").unwrap()), h.id.clone())
    };
    assert!(all.windows(2).all(|w| key(&w[0]) < key(&w[1])), "the full list is in order");
    assert!(all.windows(2).filter(|w| w[0].score == w[1].score).count() > 500, "the test needs ties");
    for limit in [1, 3, 10, 64] {
        for offset in [0, 1, 7, 99, 200, 397, 590] {
            let page = ids(&index, SearchRequest { limit, offset, ..q("alpha") });
            let want: Vec<String> = all.iter().skip(offset).take(limit).map(|h| h.id.clone()).collect();
            assert_eq!(page, want, "limit {limit} offset {offset}");
        }
    }
    let by_name = ids(&index, SearchRequest { sort_by: SortBy::Name, limit: 7, offset: 3, ..q("alpha") });
    let mut names: Vec<(String, usize, String)> =
        docs.iter().map(|d| (d.name.to_lowercase(), rank(&d.space), d.id.clone())).collect();
    names.sort();
    assert_eq!(by_name, names[3..10].iter().map(|n| n.2.clone()).collect::<Vec<_>>());
}

#[test]
fn equal_documents_rank_by_space_and_id_whatever_the_insertion_order() {
    // Filler documents share the query's words in other fields, so Tantivy's union scorers end
    // at different places depending on where documents land; the twins must still tie exactly.
    let mut docs: Vec<ItemDoc> = (0..12_000)
        .map(|i| {
            let mut d = doc(&format!("fill/{i:05}"), "project", if i % 7 == 0 { "alpha" } else { "filler" }, "", "");
            d.description = if i % 5 == 0 { "beta gamma".into() } else { "delta".into() };
            d.category = if i % 11 == 0 { "alpha".into() } else { String::new() };
            d.content = format!("alpha {} beta", "word ".repeat(i % 13));
            d
        })
        .collect();
    for (i, space) in ["user", "project", "system:x"].iter().cycle().take(30).enumerate() {
        let mut d = doc(&format!("twin/{:02}", (i * 7) % 30), space, "alpha beta", "alpha beta gamma", "alpha beta");
        d.key = format!("{space}:twin{i}");
        docs.insert((i * 397) % docs.len(), d);
    }
    let forward = index(&docs);
    docs.reverse();
    let backward = index(&docs);
    for query in ["alpha", "alpha beta", "alpha OR gamma", "beta gamma"] {
        let a = forward.search(&SearchRequest { limit: 100, ..q(query) }).unwrap();
        let b = backward.search(&SearchRequest { limit: 100, ..q(query) }).unwrap();
        let ids = |r: &rye_search_core::SearchResponse| {
            r.hits.iter().map(|h| (h.id.clone(), h.score.to_bits())).collect::<Vec<_>>()
        };
        assert_eq!(ids(&a), ids(&b), "{query}");
        // The twins tie exactly: project, then user, then system, each by id.
        let twins: Vec<(String, String)> = a
            .hits
            .iter()
            .filter(|h| h.id.starts_with("twin/"))
            .map(|h| (h.item_str("space").unwrap(), h.id.clone()))
            .collect();
        let rank = |s: &str| ["project", "user"].iter().position(|x| *x == s).unwrap_or(2);
        let mut sorted = twins.clone();
        sorted.sort_by(|x, y| (rank(&x.0), &x.1).cmp(&(rank(&y.0), &y.1)));
        assert_eq!(twins.len(), 30, "{query}");
        assert_eq!(twins, sorted, "{query}");
    }
}

#[test]
fn min_score_keeps_the_hits_above_it_in_every_sort_with_exact_totals() {
    let docs: Vec<ItemDoc> = (0..40)
        .map(|i| doc(&format!("n/{i:02}"), "project", if i < 5 { "alpha" } else { "other" }, "", "alpha text"))
        .collect();
    let idx = index(&docs);
    let all = idx.search(&SearchRequest { limit: 100, ..q("alpha") }).unwrap();
    assert_eq!(all.total, 40);
    let strong: Vec<String> = all.hits.iter().filter(|h| h.score >= 0.5).map(|h| h.id.clone()).collect();
    assert_eq!(strong.len(), 5);
    for sort_by in [SortBy::Score, SortBy::Name, SortBy::Date] {
        for limit in [2, 100] {
            let req = SearchRequest { min_score: 0.5, sort_by, limit, ..q("alpha") };
            let res = idx.search(&req).unwrap();
            assert_eq!(res.total, 5, "{sort_by:?} {limit}");
            assert!(res.hits.iter().all(|h| strong.contains(&h.id)), "{sort_by:?}");
            assert_eq!(res.hits.len(), limit.min(5));
        }
    }
    let everything = idx.search(&SearchRequest { min_score: 0.0, ..q("alpha") }).unwrap();
    assert_eq!(everything.total, 40);
}

#[test]
fn boost_recent_breaks_near_ties_toward_newer_items_but_keeps_a_much_better_old_match_first() {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let day = 86_400_000;
    let dated = |id: &str, title: &str, content: &str, age_days: i64| ItemDoc {
        date: Some(now - age_days * day),
        ..doc(id, "project", title, "", content)
    };
    // `ancient-exact` has the word in its title (weight 3): far above the other two, which
    // have it only in their text, the older one slightly better.
    let idx = index(&[
        dated("old", "notes", "kappa notes", 400),
        dated("new", "notes", "kappa notes too", 1),
        dated("ancient-exact", "kappa", "", 2000),
    ]);
    let plain = ids(&idx, q("kappa"));
    assert_eq!(plain, vec!["ancient-exact", "old", "new"]);
    let boosted = ids(&idx, SearchRequest { recency_half_life: Some(30 * day as u64), ..q("kappa") });
    assert_eq!(boosted, vec!["ancient-exact", "new", "old"]);
}

#[test]
fn like_ranks_the_items_most_like_one_leaving_it_out() {
    let idx = index(&[
        doc("k/deploy", "project", "Deploy to kubernetes", "rolls out a cluster deployment", "kubectl apply pods"),
        doc("k/deploy", "user", "Deploy to kubernetes", "user copy", "kubectl apply pods"),
        doc("k/scale", "project", "Scale kubernetes pods", "cluster autoscaling of deployment", "kubectl scale"),
        doc("k/logs", "project", "Kubernetes logs", "read pod logs from the cluster", "kubectl logs"),
        doc("b/bread", "project", "Bake bread", "sourdough recipe", "flour water salt"),
        doc("b/cake", "project", "Bake a cake", "sponge recipe", "flour eggs sugar"),
    ]);
    let like = |id: &str, query: &str| SearchRequest {
        like: Some(LikeRef { id: id.into(), kinds: vec!["tool".into()] }),
        ..q(query)
    };
    let found = ids(&idx, like("k/deploy", "*"));
    assert_eq!(found[..2].iter().collect::<std::collections::BTreeSet<_>>().len(), 2);
    assert!(found[..2].iter().all(|id| id == "k/scale" || id == "k/logs"), "{found:?}");
    assert!(!found.contains(&"k/deploy".to_string()), "never like itself, in any space");
    assert_eq!(ids(&idx, like("b/bread", ""))[0], "b/cake");
    // A query narrows the items to those it matches.
    assert_eq!(ids(&idx, like("k/deploy", "logs")), vec!["k/logs"]);
    let missing = idx.search(&like("k/nope", "*")).unwrap_err();
    assert_eq!(missing.code(), "E_NOT_FOUND");
}

#[test]
fn like_keeps_only_the_items_scoring_at_least_min_score() {
    // Ten items share some of the liked item's words: the more they share, the higher they score.
    let words = ["cluster", "pods", "deploy", "rollout", "kubectl", "helm", "ingress", "nodes", "service", "volume"];
    let docs: Vec<ItemDoc> = (0..10)
        .map(|i| doc(&format!("k/item{i}"), "project", &words[..=i].join(" "), "kubernetes", ""))
        .chain([doc("k/liked", "project", &words.join(" "), "kubernetes", "")])
        .collect();
    let idx = index(&docs);
    let like = |min_score: f64, offset: usize, limit: usize| SearchRequest {
        like: Some(LikeRef { id: "k/liked".into(), kinds: vec!["tool".into()] }),
        min_score,
        offset,
        limit,
        ..q("*")
    };
    let all = idx.search(&like(0.0, 0, 20)).unwrap();
    let cut = idx.search(&like(0.5, 0, 20)).unwrap();
    let above: Vec<_> = all.hits.iter().filter(|h| h.score >= 0.5 - 1e-4).map(|h| h.id.clone()).collect();
    assert!(!above.is_empty() && above.len() < all.hits.len(), "the bound falls inside the list: {above:?}");
    assert_eq!(cut.hits.iter().map(|h| h.id.clone()).collect::<Vec<_>>(), above);
    assert_eq!(cut.total, above.len(), "the total counts only items above the bound");
    // Pages of the cut list are slices of it, with its total.
    let page = idx.search(&like(0.5, 1, 2)).unwrap();
    assert_eq!(page.hits.iter().map(|h| h.id.clone()).collect::<Vec<_>>(), above[1..3.min(above.len())]);
    assert_eq!(page.total, above.len());
    // Counts cover what the total counts, with and without the bound (like had no counts).
    for min_score in [0.0, 0.5] {
        let res = idx.search(&SearchRequest { facets: true, ..like(min_score, 0, 3) }).unwrap();
        let counts = res.counts.expect("counts asked for");
        assert_eq!(counts["type"].values().sum::<u64>(), res.total as u64, "min_score {min_score}");
        assert_eq!(counts["space"].values().sum::<u64>(), res.total as u64, "min_score {min_score}");
    }
}

#[test]
fn explain_says_what_each_term_gave_each_hit() {
    let idx = index(&[
        doc("e/one", "project", "sandbox runner", "runs tools", "an isolated sandbox"),
        doc("e/two", "project", "other", "sandbax typo here", ""),
    ]);
    let explained = |req: SearchRequest, id: &str| -> serde_json::Value {
        let res = idx.search(&SearchRequest { explain: true, ..req }).unwrap();
        let hit = res.hits.iter().find(|h| h.id == id).expect("hit");
        serde_json::from_str(hit.explain.as_deref().unwrap()).unwrap()
    };
    let has =
        |parts: &serde_json::Value, field: &str, term: &str, how: &str| {
            parts.as_array().unwrap().iter().any(|p| {
                p["field"] == field && p["term"] == term && p["how"] == how && p["bm25"].as_f64().unwrap() > 0.0
            })
        };
    let one = explained(q("sandbox runners"), "e/one");
    assert!(has(&one, "title", "sandbox", "exact"), "{one}");
    assert!(has(&one, "content", "sandbox", "exact"), "{one}");
    assert!(has(&one, "stem", "runner", "word form"), "{one}");
    let typo = explained(SearchRequest { fuzzy: 1, ..q("sandbox") }, "e/two");
    assert!(has(&typo, "description", "sandbax", "typo"), "{typo}");
    let res = idx.search(&SearchRequest { explain: true, ..q("sandbox") }).unwrap();
    assert!(res.hits.iter().any(|h| h.explain.as_deref().is_some_and(|e| e.contains("\"how\":\"exact\""))));
    let plain = idx.search(&q("sandbox")).unwrap();
    assert!(plain.hits.iter().all(|h| h.explain.is_none()));
}

/// Pages from an index in segments of different sizes, with twins across segments and deleted
/// documents, are slices of the exhaustive ranking: each segment after the first is searched
/// only above the k-th score of those before it, and ties with that score still enter.
#[test]
fn pages_from_several_segments_are_slices_of_the_exhaustive_ranking() {
    let words = ["alpha", "beta", "gamma", "delta"];
    let text = |i: usize| {
        let w = |k: usize| words[(i * (k + 5) + k) % words.len()];
        format!("{} {} alpha {}", w(0), w(1), "filler ".repeat(i % 11))
    };
    let index = SearchIndex::in_memory().unwrap();
    // Two bulk batches, then three small ones: five segments. What the bulk run's policy merges
    // (here nothing: two segments are too few) is merged before the small ones, never between two
    // of the searches below: purging deleted items changes every score a little (with seven
    // segments, the bulk ones merged mid-test, and a page's scores were 0.0001 off the ranking's).
    for (set, size) in [(0, 1200), (1, 700), (2, 200), (3, 150), (4, 100)] {
        if set == 2 {
            index.settle_merges().unwrap();
        }
        let docs: Vec<ItemDoc> = (0..size)
            .map(|i| {
                // Every fifth document is the twin of one in the first batch: an equal score, and
                // an id that wins the tie (the first batch's ids sort last).
                let like = if i % 5 == 0 { i % 1200 } else { i + set * 10_000 };
                let id = if set == 0 { format!("z/d{i:04}") } else { format!("s{set}/d{i:04}") };
                doc(&id, "project", words[like % 3], "an item", &text(like))
            })
            .collect();
        let mut batch = index.batch_for(docs.len()).unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    }
    let mut batch = index.batch_for(1).unwrap();
    batch.delete(&(0..1200).step_by(7).map(|i| format!("project:z/d{i:04}")).collect::<Vec<_>>());
    batch.commit().unwrap();
    assert!(index.num_segments() >= 3, "the test needs several segments");
    for query in ["alpha", "beta", "alpha OR gamma", "delta OR beta"] {
        // A minimum score visits every match: the exhaustive ranking.
        let all = index.search(&SearchRequest { limit: 1000, min_score: 1e-9, ..q(query) }).unwrap();
        let ranked: Vec<(String, f64)> = all.hits.iter().map(|h| (h.id.clone(), h.score)).collect();
        assert!(ranked.len() >= 100, "{query}: {} matches", ranked.len());
        for (limit, offset) in [(1, 0), (10, 0), (10, 10), (25, 40), (100, 0), (50, 300)] {
            let page = index.search(&SearchRequest { limit, offset, ..q(query) }).unwrap();
            assert_eq!(page.total, all.total, "{query}: total at {offset}+{limit}");
            let got: Vec<(String, f64)> = page.hits.iter().map(|h| (h.id.clone(), h.score)).collect();
            let want: Vec<(String, f64)> = ranked.iter().skip(offset).take(limit).cloned().collect();
            assert_eq!(got, want, "{query}: page at {offset}+{limit}");
        }
    }
}
