//! Answers: filters and fields, previews, JSON answers and their framing, facets, the wire refusing unknown keys.

use super::*;

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
fn previews_are_snippets_around_matches() {
    let long = format!("{} needle in the haystack {}", "filler ".repeat(100), "tail ".repeat(100));
    let idx = index(&[doc("p/x", "project", "x", "", &long)]);
    let hit = &idx.search(&SearchRequest { preview_chars: 60, ..q("needle") }).unwrap().hits[0];
    assert!(hit.preview.contains("needle"), "{}", hit.preview);
    assert!(hit.preview.chars().count() <= 60);
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
