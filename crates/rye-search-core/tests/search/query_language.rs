//! The query language: identifiers, wildcards, operators, typos, proximity, word forms, syntax errors.

use super::*;

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
fn a_plain_query_that_finds_nothing_is_tried_again_with_typos_by_word_length() {
    let idx = index(&[
        doc("k/perm", "project", "permissions", "", ""),
        doc("k/bird", "project", "bird", "", ""),
        doc("k/other", "project", "unrelated", "", ""),
    ]);
    let typo = |query: &str| idx.search(&q(query)).unwrap();
    // Ten letters: two typos allowed; the answer says it was rescued.
    let res = typo("permisions");
    assert_eq!(res.hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), vec!["k/perm"]);
    assert!(res.warnings[0].contains("typos allowed"), "{:?}", res.warnings);
    assert_eq!(typo("prmisions").total, 1, "two typos in nine letters");
    // Five letters: one typo; four: none, and the closest words are suggested.
    assert_eq!(typo("birds").total, 1, "a word form, found as written");
    let four = typo("bord");
    assert_eq!(four.total, 0);
    assert!(four.warnings.iter().any(|w| w.contains("did you mean: bird (for bord)")), "{:?}", four.warnings);
    // Several words: each with its typos, relaxed as a plain question is.
    assert_eq!(typo("unrelatd").total, 1);
    assert!(typo("unrelatd permisions").total >= 1);
    // Strict when asked: exact only, operators, quotes, explicit fuzzy.
    for strict in [
        SearchRequest { exact_only: true, ..q("permisions") },
        q("permisions OR zzzzzz"),
        q("\"permisions\""),
        SearchRequest { fuzzy: 1, ..q("permisions") },
    ] {
        let res = idx.search(&strict).unwrap();
        assert!(!res.warnings.iter().any(|w| w.contains("typos allowed")), "{:?}: {:?}", strict.query, res.warnings);
    }
    assert_eq!(idx.search(&SearchRequest { exact_only: true, ..q("permisions") }).unwrap().total, 0);
    // Nothing close: no suggestion.
    assert!(typo("zzzzzzzzzz").warnings.is_empty());
}

/// A long word whose retry with typos finds its terms only in items the scope leaves out: "did
/// you mean" names them, from the walk the retry made once the segment's all-terms dictionary is
/// ready (from each field's own dictionary before), and says the same either way.
#[test]
fn did_you_mean_after_a_retry_names_what_the_retry_found() {
    let idx =
        index(&[doc("k/perm", "project", "permissions", "", "permission"), doc("k/bird", "project", "bird", "", "")]);
    let scoped = SearchRequest {
        scopes: vec![rye_search_core::Scope { kind: Some("knowledge".into()), ..Default::default() }],
        ..q("permisions")
    };
    let first = idx.search(&scoped).unwrap(); // starts the build
    std::thread::sleep(std::time::Duration::from_millis(300));
    let later = idx.search(&scoped).unwrap();
    for res in [&first, &later] {
        assert_eq!(res.total, 0);
        let hint = "did you mean: permissions, permission (for permisions)";
        assert!(res.warnings.iter().any(|w| w.contains(hint)), "{:?}", res.warnings);
    }
    assert_eq!(first.warnings, later.warnings);
    // Two searches of one process never share their walks: each finds what its own index holds.
    let other = index(&[doc("k/perm", "project", "permits", "", "")]);
    let res = other.search(&scoped).unwrap();
    assert!(res.warnings.iter().all(|w| !w.contains("permissions")), "{:?}", res.warnings);
}

#[test]
fn fuzzy_matches_typos_and_ranks_exact_first() {
    let idx = index(&[
        doc("d/exact", "project", "directive", "", ""),
        doc("d/typo", "project", "directiv", "", ""),
        doc("d/other", "project", "unrelated", "", ""),
    ]);
    assert!(ids(&idx, SearchRequest { exact_only: true, ..q("direcive") }).is_empty());
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
