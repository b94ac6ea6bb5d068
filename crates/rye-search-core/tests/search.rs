use std::collections::BTreeMap;

use rye_search_core::{Error, Filter, ItemDoc, LikeRef, Scope, SearchIndex, SearchRequest, SortBy};

fn doc(id: &str, space: &str, title: &str, description: &str, content: &str) -> ItemDoc {
    let name = id.rsplit('/').next().unwrap().to_string();
    ItemDoc {
        key: format!("{space}:{id}"),
        id: id.into(),
        kind: "tool".into(),
        space: space.into(),
        space_rank: match space {
            "project" => 0,
            "user" => 1,
            _ => 2,
        },
        title: title.into(),
        name,
        description: description.into(),
        content: content.into(),
        ..Default::default()
    }
}

fn index(docs: &[ItemDoc]) -> SearchIndex {
    let index = SearchIndex::in_memory().unwrap();
    let mut batch = index.batch().unwrap();
    batch.upsert(docs).unwrap();
    batch.commit().unwrap();
    index
}

fn ids(index: &SearchIndex, req: SearchRequest) -> Vec<String> {
    index.search(&req).unwrap().hits.into_iter().map(|h| h.id).collect()
}

fn q(query: &str) -> SearchRequest {
    SearchRequest { query: query.into(), ..Default::default() }
}

fn corpus() -> Vec<ItemDoc> {
    vec![
        doc("rye/core/create_tool", "project", "create_tool", "Create a new tool", "Makes a tool from a template"),
        doc(
            "rye/file-system/read",
            "system:core",
            "read",
            "Read file contents",
            "Read the contents of a file at the given path",
        ),
        doc("rye/web/websearch", "system:core", "websearch", "Search the web", "Queries a search engine"),
        doc(
            "rye/agent/threads",
            "user",
            "threads",
            "Run multithreaded agents",
            "thread one two three four orchestrator",
        ),
        doc("rye/core_utils/fileSystem", "project", "fileSystem", "Helpers", "temporary files and directories"),
    ]
}

#[test]
fn identifiers_are_found_by_parts_and_whole() {
    let idx = index(&corpus());
    assert_eq!(ids(&idx, q("create_tool")), vec!["rye/core/create_tool"]);
    assert_eq!(ids(&idx, q("create")), vec!["rye/core/create_tool"]);
    assert_eq!(ids(&idx, q("filesystem")), vec!["rye/core_utils/fileSystem"]);
    assert!(ids(&idx, q("system")).contains(&"rye/core_utils/fileSystem".to_string()));
    assert!(!ids(&idx, q("system")).contains(&"rye/file-system/read".to_string()), "ids are not indexed text");
}

#[test]
fn wildcards_prefix_suffix_infix() {
    let idx = index(&corpus());
    let files = ids(&idx, q("file*"));
    assert!(files.contains(&"rye/file-system/read".to_string()));
    assert!(files.contains(&"rye/core_utils/fileSystem".to_string()));
    assert_eq!(ids(&idx, q("*search")), vec!["rye/web/websearch"]);
    assert_eq!(ids(&idx, q("*thread*")), vec!["rye/agent/threads"]);
    assert_eq!(idx.search(&q("*")).unwrap().total, 5);
}

#[test]
fn boolean_operators() {
    let idx = index(&corpus());
    assert_eq!(idx.search(&q("read OR websearch")).unwrap().total, 2);
    assert_eq!(idx.search(&q("read AND websearch")).unwrap().total, 0);
    assert_eq!(idx.search(&q("NOT read")).unwrap().total, 4);
    // `files` also finds the word form `file` (title "Read file contents").
    assert_eq!(ids(&idx, q("files NOT temporary")), vec!["rye/file-system/read"]);
    assert_eq!(ids(&idx, q("(search OR tool) NOT web")), vec!["rye/core/create_tool"]);
    // A word no document has, in any field: it drops out of a union and empties an AND.
    let scored = |query: &str| {
        let res = idx.search(&q(query)).unwrap();
        (res.total, res.hits.into_iter().map(|h| (h.id, h.score)).collect::<Vec<_>>())
    };
    assert_eq!(scored("read OR zzqx"), scored("read"));
    assert_eq!(scored("read OR (zzqx AND file)"), scored("read"));
    assert_eq!(scored("read NOT zzqx"), scored("read"));
    assert_eq!(scored("read AND zzqx").0, 0);
    // Plain words relax: with no item holding both, the word that matches least is left out.
    let relaxed = idx.search(&q("read zzqx")).unwrap();
    assert!(relaxed.relaxed && relaxed.total == scored("read").0, "{relaxed:?}");
    assert_eq!(scored("\"read zzqx\"").0, 0);
    assert_eq!(scored("zzqx OR qqzx").0, 0);
}

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

/// Fuzzy terms and wildcards give the same answers whether a segment's all-terms dictionary
/// is still being built (each field's dictionary is walked) or ready (it is walked instead).
#[test]
fn fuzzy_and_wildcard_answers_do_not_depend_on_the_all_terms_dictionary() {
    let mut docs: Vec<ItemDoc> = (0..300)
        .map(|i| {
            doc(
                &format!("t/tool{i}"),
                "project",
                &format!("direktive{} tool", i % 7),
                "directive helper",
                &format!("content directives {i} dirctive"),
            )
        })
        .collect();
    // Terms that hold a wildcard's literal part without matching the whole pattern.
    for word in ["zirconive", "zirconives", "zirconivez", "conive"] {
        docs.push(doc(&format!("z/{word}"), "project", "other", "", word));
    }
    let idx = index(&docs);
    let zircon = SearchRequest { limit: 50, ..q("*rconive") };
    let queries = [
        SearchRequest { fuzzy: 1, limit: 50, ..q("directive") },
        SearchRequest { fuzzy: 2, limit: 50, ..q("direktiv OR tol") },
        SearchRequest { limit: 50, ..q("dir*") },
        SearchRequest { limit: 50, ..q("*tive") },
        SearchRequest { limit: 50, ..q("*ect*") },
        SearchRequest { limit: 50, ..q("*i*ve OR *rk*v* OR **ool") },
        SearchRequest { limit: 50, ..q("*nothing*here") },
        SearchRequest { limit: 50, fields: [("title".to_string(), "direk*".to_string())].into(), ..q("*") },
    ];
    let answer = |r: &SearchRequest| {
        let res = idx.search(r).unwrap();
        (res.total, res.hits.into_iter().map(|h| (h.id, h.score)).collect::<Vec<_>>(), res.warnings)
    };
    let first: Vec<_> = queries.iter().map(answer).collect(); // starts the build
    assert!(first.iter().filter(|(total, _, _)| *total == 0).count() == 1, "only *nothing*here finds nothing");
    assert_eq!(ids(&idx, zircon.clone()), ["z/zirconive"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let later: Vec<_> = queries.iter().map(answer).collect();
    assert_eq!(first, later);
    assert_eq!(ids(&idx, zircon), ["z/zirconive"]);
}

#[test]
fn fuzzy_matches_typos_and_ranks_exact_first() {
    let idx = index(&[
        doc("d/exact", "project", "directive", "", ""),
        doc("d/typo", "project", "directiv", "", ""),
        doc("d/other", "project", "unrelated", "", ""),
    ]);
    assert!(ids(&idx, q("direcive")).is_empty());
    let fuzzy = SearchRequest { fuzzy: 1, ..q("directive") };
    assert_eq!(ids(&idx, fuzzy), vec!["d/exact", "d/typo"]);
    let typo = SearchRequest { fuzzy: 2, ..q("direcive") };
    assert_eq!(idx.search(&typo).unwrap().total, 2);
    let clamped = SearchRequest { fuzzy: 9, ..q("direcive") };
    assert!(!idx.search(&clamped).unwrap().warnings.is_empty());
}

#[test]
fn proximity_is_phrase_slop() {
    let idx = index(&corpus());
    let near = SearchRequest { proximity: Some(5), ..q("thread orchestrator") };
    assert_eq!(ids(&idx, near), vec!["rye/agent/threads"]);
    let tight = SearchRequest { proximity: Some(2), ..q("thread orchestrator") };
    assert!(ids(&idx, tight).is_empty());
    assert_eq!(ids(&idx, q("\"contents of a file\"")), vec!["rye/file-system/read"]);
    assert!(ids(&idx, q("\"file of contents\"")).is_empty());
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

/// A stream of one-item edits (new items and replacements) leaves a few segments, not one per
/// edit: each commit's merges finish before its writer goes (a merge left running was thrown
/// away when it ended, so every edit added a segment for good), and every item is found once.
#[test]
fn a_stream_of_edits_keeps_few_segments() {
    let base: Vec<ItemDoc> =
        (0..3000).map(|i| doc(&format!("base/item{i}"), "project", "stable", "", &format!("word{i}"))).collect();
    let index = index(&base);
    for i in 0..40 {
        let edit = match i % 2 {
            0 => doc(&format!("edits/item{i}"), "project", "edited", "", "fresh"),
            _ => doc(&format!("base/item{i}"), "project", "edited", "", "fresh"),
        };
        let mut batch = index.batch_for(1).unwrap();
        batch.upsert(&[edit]).unwrap();
        batch.commit().unwrap();
    }
    assert!(index.num_segments() <= 8, "{} segments after 40 edits", index.num_segments());
    assert_eq!(index.num_docs(), 3020);
    let edited = ids(&index, SearchRequest { limit: 100, ..q("edited") });
    assert_eq!(edited.len(), 40);
    assert_eq!(index.search(&q("stable")).unwrap().total, 2980);
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
fn filters_fields_scope_and_kind() {
    let mut a = doc("rye/core/a", "project", "alpha", "", "");
    a.meta = BTreeMap::from([
        ("category".into(), vec!["rye/core".into()]),
        ("tags".into(), vec!["api".into(), "web".into()]),
    ]);
    a.version = Some("1.2.0".into());
    let mut b = doc("rye/core_utils/b", "project", "alpha beta", "", "");
    b.version = Some("0.9.0".into());
    let idx = index(&[a, b]);
    let f = |filters: Vec<Filter>| ids(&idx, SearchRequest { filters, ..q("alpha") });
    assert_eq!(f(vec![Filter::AnyOf { key: "category".into(), values: vec!["RYE/CORE".into()] }]), vec!["rye/core/a"]);
    assert_eq!(f(vec![Filter::NoneOf { key: "tags".into(), values: vec!["api".into()] }]), vec!["rye/core_utils/b"]);
    assert_eq!(f(vec![Filter::Version { op: ">=".into(), value: "1.2".into() }]), vec!["rye/core/a"]);
    assert_eq!(f(vec![Filter::Version { op: "<".into(), value: "1".into() }]), vec!["rye/core_utils/b"]);
    assert!(matches!(
        idx.search(&SearchRequest {
            filters: vec![Filter::Version { op: ">=".into(), value: "1.x".into() }],
            ..q("a")
        }),
        Err(Error::InvalidArgument { .. })
    ));
    let scope = Scope { id_pattern: Some("rye/core/.+".into()), ..Default::default() };
    let scoped = SearchRequest { scopes: vec![scope], ..q("alpha") };
    assert_eq!(ids(&idx, scoped), vec!["rye/core/a"]);
    let fields = SearchRequest { fields: BTreeMap::from([("title".into(), "beta".into())]), ..q("*") };
    assert_eq!(ids(&idx, fields), vec!["rye/core_utils/b"]);
    let unknown = SearchRequest { fields: BTreeMap::from([("nope".into(), "x".into())]), ..q("*") };
    assert_eq!(idx.search(&unknown).unwrap_err().code(), "E_INVALID_ARGUMENT");
    let kind = |k: &str| Scope { kind: Some(k.into()), ..Default::default() };
    assert_eq!(idx.search(&SearchRequest { scopes: vec![kind("directive")], ..q("*") }).unwrap().total, 0);
    // Several scopes: items in any of them, one ranking.
    let under = |ns: &str| Scope { kind: Some("tool".into()), namespace: Some(ns.into()), ..Default::default() };
    let both = SearchRequest { scopes: vec![under("rye/core"), under("rye/core_utils")], ..q("*") };
    assert_eq!(idx.search(&both).unwrap().total, 2);
    let one = SearchRequest { scopes: vec![kind("directive"), under("rye/core_utils")], ..q("*") };
    assert_eq!(ids(&idx, one), vec!["rye/core_utils/b"]);
}

#[test]
fn syntax_errors_carry_code_and_position() {
    let idx = index(&corpus());
    let err = idx.search(&q("read AND")).unwrap_err();
    assert_eq!(err.code(), "E_QUERY_SYNTAX");
    assert_eq!(err.position(), Some(5));
    assert!(!err.hint().is_empty());
    assert_eq!(idx.search(&q("!!!")).unwrap_err().code(), "E_QUERY_SYNTAX");
    assert_eq!(idx.search(&SearchRequest { limit: 5000, ..q("a") }).unwrap_err().code(), "E_LIMIT");
}

#[test]
fn previews_are_snippets_around_matches() {
    let long = format!("{} needle in the haystack {}", "filler ".repeat(100), "tail ".repeat(100));
    let idx = index(&[doc("p/x", "project", "x", "", &long)]);
    let hit = &idx.search(&SearchRequest { preview_chars: 60, ..q("needle") }).unwrap().hits[0];
    assert!(hit.preview.contains("needle"), "{}", hit.preview);
    assert!(hit.preview.chars().count() <= 60);
}

#[test]
fn persistent_index_upserts_deletes_and_manifest() {
    let dir = std::env::temp_dir().join(format!("rye-search-core-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let idx = SearchIndex::open(&dir).unwrap();
        let mut batch = idx.batch().unwrap();
        let mut d = doc("a/one", "project", "one", "", "");
        d.mtime = 42;
        d.size = 7;
        batch.upsert(&[d, doc("a/two", "project", "two", "", "")]).unwrap();
        batch.commit().unwrap();
        // A second writer in the same process is refused while the first is alive.
        let _held = idx.batch().unwrap();
        assert_eq!(idx.batch().err().unwrap().code(), "E_INDEX_LOCKED");
    }
    let idx = SearchIndex::open(&dir).unwrap();
    let mut manifest = idx.manifest().unwrap();
    manifest.sort_by(|a, b| a.key.cmp(&b.key));
    assert_eq!(manifest.len(), 2);
    assert_eq!((manifest[0].mtime, manifest[0].size), (42, 7));
    let mut batch = idx.batch().unwrap();
    batch.upsert(&[doc("a/one", "project", "uno", "", "")]).unwrap();
    batch.delete(&["project:a/two".to_string()]);
    // Uncommitted changes are invisible.
    assert_eq!(idx.search(&q("two")).unwrap().total, 1);
    batch.commit().unwrap();
    assert_eq!(idx.search(&q("two")).unwrap().total, 0);
    assert_eq!(ids(&idx, q("uno")), vec!["a/one"]);
    assert_eq!(idx.num_docs(), 1);
    drop(idx);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn search_many_matches_single_searches() {
    let idx = index(&corpus());
    let reqs: Vec<SearchRequest> =
        ["read", "tool", "file*", "bad AND", "search"].iter().cycle().take(40).map(|s| q(s)).collect();
    let many = idx.search_many(&reqs);
    for (req, res) in reqs.iter().zip(many) {
        match (idx.search(req), res) {
            (Ok(a), Ok(b)) => assert_eq!(a.total, b.total),
            (Err(a), Err(b)) => assert_eq!(a.code(), b.code()),
            _ => panic!("mismatch for {}", req.query),
        }
    }
}

#[test]
fn responses_are_json_with_each_hits_stored_fields() {
    let mut a = doc("x/quoted", "project", "Say \"hi\" \\ \u{e9}t\u{e9} \u{1f600}", "line\nbreak", "needle in content");
    a.date = Some(1234);
    a.extra = Some(
        serde_json::value::RawValue::from_string(r#"{"signed":true,"metadata":{"tags":["a","b"]}}"#.into()).unwrap(),
    );
    let b = doc("x/plain", "user", "needle", "", "");
    let idx = index(&[a, b]);
    let res = idx.search(&SearchRequest { preview_chars: 40, ..q("needle") }).unwrap();
    let json: serde_json::Value = serde_json::from_str(&res.to_json()).unwrap();
    assert_eq!(json["total"], 2);
    // Each hit is [id, score, preview, item]; item is [kind, space, name, title, description,
    // category, path, date, extra].
    let hits = json["hits"].as_array().unwrap();
    let quoted = hits.iter().find(|h| h[0] == "x/quoted").unwrap();
    let item = &quoted[3];
    assert_eq!(item[3], "Say \"hi\" \\ \u{e9}t\u{e9} \u{1f600}");
    assert_eq!(item[4], "line\nbreak");
    assert_eq!((&item[0], &item[1], &item[2]), (&"tool".into(), &"project".into(), &"quoted".into()));
    assert_eq!(item[7], 1234);
    assert_eq!(item[8]["metadata"]["tags"][1], "b");
    assert!(quoted[1].as_f64().unwrap() > 0.0);
    assert!(quoted[2].as_str().unwrap().contains("needle"));
    assert_eq!(res.hits.iter().find(|h| h.id == "x/quoted").unwrap().item_str("description").unwrap(), "line\nbreak");
    // No extra is null. (Extra that is not JSON cannot arrive: it is parsed with the document.)
    let plain = hits.iter().find(|h| h[0] == "x/plain").unwrap();
    assert!(plain[3][8].is_null());
    assert!(serde_json::from_str::<ItemDoc>(r#"{"key": "k", "id": "a", "extra": {not json}"#).is_err());
    assert_eq!(json["warnings"], serde_json::json!([]));
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
fn upserts_replace_by_key_within_a_batch_across_batches_and_across_handles() {
    // Within one batch: the last version of a key wins.
    let idx = SearchIndex::in_memory().unwrap();
    let mut batch = idx.batch_for(1000).unwrap();
    batch.upsert(&[doc("a/one", "project", "first", "", ""), doc("a/two", "project", "two", "", "")]).unwrap();
    batch.upsert(&[doc("a/one", "project", "second", "", "")]).unwrap();
    batch.commit().unwrap();
    assert_eq!(idx.num_docs(), 2);
    assert_eq!(idx.search(&q("first")).unwrap().total, 0);
    assert_eq!(ids(&idx, q("second")), vec!["a/one"]);

    // In a later batch, small or bulk, and after a delete in the same batch.
    for expected in [1, 1000] {
        let mut batch = idx.batch_for(expected).unwrap();
        batch.delete(&["project:a/two".to_string()]);
        batch.upsert(&[doc("a/one", "project", format!("third{expected}").as_str(), "", "")]).unwrap();
        batch.upsert(&[doc("a/two", "project", "back", "", "")]).unwrap();
        batch.commit().unwrap();
        assert_eq!(idx.num_docs(), 2);
        assert_eq!(ids(&idx, q(&format!("third{expected}"))), vec!["a/one"]);
        assert_eq!(ids(&idx, q("back")), vec!["a/two"]);
    }

    // A handle opened before another one committed still replaces what that one wrote.
    let dir = std::env::temp_dir().join(format!("rye-search-core-handles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (early, late) = (SearchIndex::open(&dir).unwrap(), SearchIndex::open(&dir).unwrap());
    let mut batch = late.batch().unwrap();
    batch.upsert(&[doc("a/one", "project", "late", "", "")]).unwrap();
    batch.commit().unwrap();
    let mut batch = early.batch_for(1000).unwrap();
    batch.upsert(&[doc("a/one", "project", "early", "", "")]).unwrap();
    batch.commit().unwrap();
    let seen = late.reload().unwrap();
    assert_eq!(late.num_docs(), 1);
    assert_eq!(ids(&late, q("early")), vec!["a/one"]);
    // A reload with nothing committed since returns the same opstamp and keeps the view; each
    // commit of the other handle moves it and is seen, however many reloads came between.
    assert_eq!(late.reload().unwrap(), seen);
    assert_eq!(ids(&late, q("early")), vec!["a/one"]);
    let mut last = seen;
    for round in 0..3 {
        let mut batch = early.batch_for(1).unwrap();
        batch.upsert(&[doc("a/one", "project", &format!("round{round}"), "", "")]).unwrap();
        batch.commit().unwrap();
        let now = late.reload().unwrap();
        assert!(now > last, "round {round}: {now} after {last}");
        assert_eq!(late.reload().unwrap(), now);
        assert_eq!(ids(&late, q(&format!("round{round}"))), vec!["a/one"]);
        last = now;
    }
    drop((early, late));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn memory_index_locks_its_writer_and_survives_many_commits_and_merges() {
    let idx = SearchIndex::in_memory().unwrap();
    {
        let _held = idx.batch().unwrap();
        assert_eq!(idx.batch().err().unwrap().code(), "E_INDEX_LOCKED");
    }
    // Small batches leave many segments for the merge policy to merge behind them.
    for round in 0..40 {
        let mut batch = idx.batch_for(10).unwrap();
        let docs: Vec<ItemDoc> = (0..10)
            .map(|i| doc(&format!("r/doc{i}"), "project", &format!("round{round}"), "", "shared words"))
            .collect();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    }
    assert_eq!(idx.num_docs(), 10);
    assert_eq!(idx.search(&q("round39")).unwrap().total, 10);
    assert_eq!(idx.search(&q("round38")).unwrap().total, 0);
    assert_eq!(idx.search(&q("shared")).unwrap().total, 10);
}

#[test]
fn wire_shapes_reject_unknown_keys() {
    // A misspelt key must not silently become a default.
    let bad_request = serde_json::from_str::<SearchRequest>(r#"{"query": "x", "limt": 5}"#);
    assert!(bad_request.unwrap_err().to_string().contains("limt"));
    let bad_doc = serde_json::from_str::<ItemDoc>(r#"{"key": "k", "id": "a", "titel": "x"}"#);
    assert!(bad_doc.unwrap_err().to_string().contains("titel"));
    let bad_filter = serde_json::from_str::<Filter>(r#"{"type": "anyOf", "key": "k", "values": [], "extra": 1}"#);
    assert!(bad_filter.is_err());
}

#[test]
fn an_exact_match_outranks_a_typo_even_in_a_heavier_field() {
    let idx = index(&[
        doc("d/typo", "project", "sandbax runner sandbax", "sandbax", "sandbax"),
        doc("d/exact", "project", "runner", "", "a long content where sandbox appears once among many other words"),
        doc("d/only-typo", "project", "sandbax", "", ""),
    ]);
    let fuzzy = SearchRequest { fuzzy: 1, ..q("sandbox") };
    assert_eq!(ids(&idx, fuzzy)[0], "d/exact");
    // With no exact match anywhere, typos still rescue the query, ranked as before.
    let rescue = SearchRequest { fuzzy: 1, ..q("zandbux") };
    assert_eq!(ids(&idx, rescue).len(), 0);
    let rescue = SearchRequest { fuzzy: 2, ..q("zandbux") };
    assert_eq!(ids(&idx, rescue).len(), 3);
}

#[test]
fn search_many_json_frames_each_answer_and_refuses_the_largest_past_the_limit() {
    let index = index(&corpus());
    let every = SearchRequest { limit: 10, ..q("file OR web OR agents OR tool OR helpers") };
    let reqs = vec![every, q("a AND (b"), q("nothingmatchesthis")];
    let lines = |text: String| -> Vec<serde_json::Value> {
        text.split('\n').map(|line| serde_json::from_str(line).unwrap()).collect()
    };
    let all = lines(index.search_many_json(&reqs, usize::MAX));
    assert_eq!(all.len(), reqs.len());
    assert!(all[0]["ok"]["hits"].as_array().is_some_and(|h| !h.is_empty()), "{all:?}");
    assert_eq!(all[1]["error"]["code"], "E_QUERY_SYNTAX");
    assert!(all[2].get("ok").is_some());
    // One answer per line, whatever the documents hold: `extra` written across lines is compacted.
    let mut spread = doc("a/spread", "project", "spread", "extra over lines", "");
    spread.extra = Some(serde_json::value::RawValue::from_string("[true,\r\n \"verified\"\n]".into()).unwrap());
    let with_spread = self::index(&[spread]);
    let twice = with_spread.search_many_json(&[q("spread"), q("spread")], usize::MAX);
    let answers = lines(twice);
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[1]["ok"]["hits"][0][3][8], serde_json::json!([true, "verified"]));
    // One byte short of the whole answer: only the largest entry is refused.
    let whole = index.search_many_json(&reqs, usize::MAX).len();
    let tight = lines(index.search_many_json(&reqs, whole - 1));
    assert_eq!(tight[0]["error"]["code"], "E_LIMIT", "{tight:?}");
    assert_eq!(tight[1]["error"]["code"], "E_QUERY_SYNTAX");
    assert_eq!(tight[2], all[2]);
}

#[test]
fn word_forms_match_and_the_exact_word_ranks_first() {
    let idx = index(&[
        doc("a/create_tool", "project", "Create a tool", "Makes one from a template", ""),
        doc("a/tools", "project", "Tools", "Several helpers for the shell", ""),
        doc("a/creating", "project", "Notes", "About creating things", ""),
        doc("a/other", "project", "Other", "Nothing here", "tooling"),
    ]);
    // `tools` finds `tool`, and the item with `tools` itself comes first.
    assert_eq!(ids(&idx, q("tools")), vec!["a/tools", "a/create_tool"]);
    assert_eq!(ids(&idx, q("tool")), vec!["a/create_tool", "a/tools"]);
    // `creating` finds the identifier part `create`.
    assert_eq!(ids(&idx, q("creating")), vec!["a/creating", "a/create_tool"]);
    assert_eq!(ids(&idx, q("creating tools")), vec!["a/create_tool"]);
    // Quotes and `fields` keep their exact meaning; content is not stemmed.
    assert_eq!(ids(&idx, q("\"tools\"")), vec!["a/tools"]);
    let in_title = SearchRequest { fields: BTreeMap::from([("title".into(), "tools".into())]), ..q("*") };
    assert_eq!(ids(&idx, in_title), vec!["a/tools"]);
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
fn facets_count_the_whole_match_set_not_the_page() {
    let docs: Vec<ItemDoc> = (0..30)
        .map(|i| {
            let mut d = doc(&format!("f/{i:02}"), ["project", "user", "system:core"][i % 3], "delta", "", "");
            d.kind = ["tool", "directive"][i % 2].into();
            d.key = format!("{}:{}", d.kind, d.key);
            let category = ["net", "fs", "ai", "ai"][i % 4];
            d.meta = BTreeMap::from([
                ("category".into(), vec![category.into()]),
                ("integrity".into(), vec![if i < 10 { "verified" } else { "unsigned" }.into()]),
            ]);
            d
        })
        .collect();
    let idx = index(&docs);
    let res = idx.search(&SearchRequest { facets: true, limit: 2, ..q("delta") }).unwrap();
    let counts = res.counts.expect("counts asked for");
    let of = |facet: &str, value: &str| counts[facet].get(value).copied().unwrap_or(0);
    assert_eq!((of("type", "tool"), of("type", "directive")), (15, 15));
    assert_eq!((of("space", "project"), of("space", "user"), of("space", "system:core")), (10, 10, 10));
    assert_eq!((of("category", "ai"), of("category", "net"), of("category", "fs")), (14, 8, 8));
    assert_eq!((of("integrity", "verified"), of("integrity", "unsigned")), (10, 20));
    // Restrictions narrow the counts as they narrow the total.
    let scoped = SearchRequest {
        facets: true,
        scopes: vec![Scope { kind: Some("tool".into()), ..Default::default() }],
        ..q("delta")
    };
    let res = idx.search(&scoped).unwrap();
    assert_eq!(res.total, 15);
    assert_eq!(res.counts.unwrap()["type"].len(), 1);
    assert!(idx.search(&q("delta")).unwrap().counts.is_none());
    assert!(!idx.search(&q("delta")).unwrap().to_json().contains("\"counts\""));
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
    assert!(res.to_json().contains("\"how\":\"exact\""));
    let plain = idx.search(&q("sandbox")).unwrap();
    assert!(plain.hits.iter().all(|h| h.explain.is_none()));
    assert!(!plain.to_json().contains("\"how\""));
}

/// A bulk upsert after small edits: the commit set off a merge of the older segments (Tantivy
/// starts merges while a commit hands over its segments), and when that merge ended before the
/// commit was saved, the commit's first delete was lost, so the upserted item's old version
/// stayed alive beside the new one (1 run in 3 or so). Merges now run after the commit.
#[test]
fn an_upsert_after_small_edits_leaves_one_version_of_each_item() {
    let docs = |from: usize, count: usize, version: &str| -> Vec<ItemDoc> {
        (0..count).map(|k| doc(&format!("m/i{}", from + k), "project", version, "", "")).collect()
    };
    for round in 0..40 {
        let index = SearchIndex::in_memory().unwrap();
        let write = |d: Vec<ItemDoc>| {
            let mut batch = index.batch_for(d.len()).unwrap();
            batch.upsert(&d).unwrap();
            batch.commit().unwrap();
        };
        write(docs(0, 260, "first"));
        write(docs(0, 257, "second"));
        write(docs(0, 2, "third"));
        write(docs(7, 2, "fourth"));
        write(docs(2, 257, "fifth"));
        assert_eq!(index.num_docs(), 260, "round {round}");
        let old = index.search(&SearchRequest { limit: 100, ..q("second") }).unwrap();
        assert_eq!(
            old.total,
            0,
            "round {round}: old versions alive: {:?}",
            old.hits.iter().map(|h| &h.id).collect::<Vec<_>>()
        );
    }
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
    // Two bulk batches, then three small ones: five segments, none merged.
    for (set, size) in [(0, 1200), (1, 700), (2, 200), (3, 150), (4, 100)] {
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

/// The files of segments a merge replaced are deleted when the batch commits, not one commit
/// later: in memory, they held a built index twice over.
#[test]
fn merged_segments_leave_no_files_behind() {
    let dir = std::env::temp_dir().join(format!("rye-search-core-merged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let idx = SearchIndex::open(&dir).unwrap();
    // Bulk batches (more than a small edit) merge once three segments exist.
    for part in 0..3 {
        let docs: Vec<ItemDoc> = (0..600)
            .map(|i| doc(&format!("p{part}/item{i}"), "project", &format!("item {i}"), "merged", "body text"))
            .collect();
        let mut batch = idx.batch_for(docs.len()).unwrap();
        batch.upsert(&docs).unwrap();
        batch.commit().unwrap();
    }
    assert_eq!(idx.num_segments(), 1);
    // Segment files are named by the segment's id (32 hex digits) and an extension.
    let mut segments = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some((stem, _)) = name.split_once('.') {
            if stem.len() == 32 && stem.chars().all(|c| c.is_ascii_hexdigit()) {
                segments.insert(stem.to_string());
            }
        }
    }
    assert_eq!(segments.len(), 1, "{segments:?}");
    assert_eq!(idx.search(&SearchRequest { query: "merged".into(), ..Default::default() }).unwrap().total, 1800);
    drop(idx);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_adds_merge_into_the_same_order_of_items() {
    // Batches large enough to be bulk, three of a size merging at every other commit: the order
    // of items after a merge must follow from what was added, never from the random segment ids.
    let docs: Vec<ItemDoc> = (0..1_500)
        .map(|i| doc(&format!("bulk/item-{:04}", (i * 7_919) % 1_500), "project", "bulk", "item", "words"))
        .collect();
    let order = || {
        let index = SearchIndex::in_memory().unwrap();
        for part in docs.chunks(300) {
            let mut batch = index.batch_for(part.len()).unwrap();
            batch.upsert(part).unwrap();
            batch.commit().unwrap();
        }
        assert!(index.num_segments() < 5, "the batches merged");
        index.manifest().unwrap().into_iter().map(|e| e.key).collect::<Vec<_>>()
    };
    let first = order();
    assert_eq!(first.len(), 1_500);
    for _ in 0..5 {
        assert_eq!(order(), first);
    }
}

#[test]
fn the_all_terms_dictionary_a_fuzzy_search_builds_counts_in_the_index_s_memory() {
    // On disk, so the files count nothing: what is counted is what searches built.
    let docs: Vec<ItemDoc> = (0..400)
        .map(|i| doc(&format!("terms/item-{i}"), "project", &format!("distinctword{i:04}"), "", "shared text"))
        .collect();
    let dir = std::env::temp_dir().join(format!("rye-search-core-all-terms-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let idx = SearchIndex::open(&dir).unwrap();
    let mut batch = idx.batch().unwrap();
    batch.upsert(&docs).unwrap();
    batch.commit().unwrap();
    idx.search(&q("distinctword0001")).unwrap();
    assert_eq!(idx.memory_bytes(), 0, "a plain search builds nothing");
    // The first fuzzy search starts the build on another thread; it is counted once ready.
    idx.search(&SearchRequest { fuzzy: 1, ..q("distinctwerd0001") }).unwrap();
    let terms_text = 400 * "distinctword0000".len() as u64;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while idx.memory_bytes() < terms_text && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(idx.memory_bytes() >= terms_text, "{} bytes counted", idx.memory_bytes());
    drop(idx);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_in_memory_counts_the_bytes_its_files_hold_and_one_on_disk_none() {
    // What the Node binding tells V8 after each commit: it must follow the index as it grows
    // and shrinks, merges included (a merged segment's inputs are no longer counted).
    let docs: Vec<ItemDoc> = (0..1_200)
        .map(|i| doc(&format!("mem/item-{i:04}"), "project", "memory", "counted bytes", &"words ".repeat(40)))
        .collect();
    let index = SearchIndex::in_memory().unwrap();
    let empty = index.memory_bytes();
    let mut after = Vec::new();
    for part in docs.chunks(300) {
        let mut batch = index.batch_for(part.len()).unwrap();
        batch.upsert(part).unwrap();
        batch.commit().unwrap();
        after.push(index.memory_bytes());
    }
    assert!(after[0] > empty + 300 * 240, "{empty} → {after:?}");
    assert!(after.windows(2).all(|w| w[1] > w[0]), "{after:?}");
    // Every item deleted: once the deletes merge away, the index holds about what it held empty.
    let mut batch = index.batch().unwrap();
    batch.delete(&docs.iter().map(|d| d.key.clone()).collect::<Vec<_>>());
    batch.commit().unwrap();
    assert!(index.memory_bytes() < after[0] / 4, "{} after deleting all, {after:?}", index.memory_bytes());

    let dir = std::env::temp_dir().join(format!("rye-search-core-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let on_disk = SearchIndex::open(&dir).unwrap();
    let mut batch = on_disk.batch().unwrap();
    batch.upsert(&docs[..300]).unwrap();
    batch.commit().unwrap();
    assert_eq!(on_disk.memory_bytes(), 0);
    drop(on_disk);
    let _ = std::fs::remove_dir_all(&dir);
}
