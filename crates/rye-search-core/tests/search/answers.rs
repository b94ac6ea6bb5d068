//! Answers: filters and fields, previews, answers as pages, facets, the wire refusing unknown keys.

use rye_search_core::wire::page::{self, Page};
use serde_json::value::RawValue;
use serde_json::{json, Value};

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

/// A page read back as `ts/answer-page.ts` reads it, each answer as JSON: the layout
/// `wire/page.rs` describes, held to by both sides.
fn read_page(page: &Page) -> Vec<Value> {
    let t = &page.table;
    let mut at = 0;
    let mut answers = Vec::new();
    for text in &page.texts {
        let units: Vec<u16> = text.encode_utf16().collect();
        let slice = |start: f64, end: f64| String::from_utf16(&units[start as usize..end as usize]).unwrap();
        if t[at] == page::STATUS_ERROR {
            at += 1;
            answers.push(json!({ "error": serde_json::from_str::<Value>(text).unwrap() }));
            continue;
        }
        assert_eq!(t[at], page::STATUS_OK);
        let rest: Value = match t[at + 8] > t[at + 7] {
            true => serde_json::from_str(&slice(t[at + 7], t[at + 8])).unwrap(),
            false => json!({ "warnings": [], "counts": null }),
        };
        let mut answer = json!({
            "total": t[at + 1],
            "searchType": page::SEARCH_TYPES[t[at + 3] as usize],
            "vectors": page::VECTORS[t[at + 4] as usize],
            "totalRelation": page::TOTAL_RELATIONS[t[at + 5] as usize],
            "relaxed": t[at + 6] == 1.0,
            "warnings": rest["warnings"],
            "counts": rest["counts"],
        });
        let count = t[at + 2] as usize;
        at += 9;
        let mut hits = Vec::new();
        for _ in 0..count {
            let form = t[at];
            let mut hit = json!({
                "id": slice(t[at + 1], t[at + 2]),
                "score": t[at + 3],
                "preview": slice(t[at + 4], t[at + 5]),
                "matched": page::MATCHED[t[at + 6] as usize],
            });
            if t[at + 8] > t[at + 7] {
                hit["explain"] = serde_json::from_str(&slice(t[at + 7], t[at + 8])).unwrap();
            }
            let marks = t[at + 9];
            at += 10;
            if marks >= 0.0 {
                let flat = &t[at..at + marks as usize];
                hit["highlights"] = json!(flat.chunks(2).map(|p| (p[0], p[1])).collect::<Vec<_>>());
                at += marks as usize;
            }
            if form == page::FORM_ITEM {
                let names = ["kind", "space", "name", "title", "description", "category", "path"];
                for (k, name) in names.iter().enumerate() {
                    hit[*name] = json!(slice(t[at + 2 * k], t[at + 2 * k + 1]));
                }
                let date = t[at + 14];
                hit["date"] = if date.is_nan() { Value::Null } else { json!(date) };
                hit["signed"] = json!(t[at + 15] == 1.0);
                hit["integrity"] = if t[at + 16] < 0.0 { Value::Null } else { json!(slice(t[at + 16], t[at + 17])) };
                hit["metadata"] = match t[at + 18] < 0.0 {
                    true => Value::Null,
                    false => serde_json::from_str(&slice(t[at + 18], t[at + 19])).unwrap(),
                };
                let tokens = t[at + 20];
                hit["tokens"] = if tokens.is_nan() { Value::Null } else { json!(tokens) };
                at += 21;
            } else if form == page::FORM_KIND {
                hit["kind"] = json!(slice(t[at], t[at + 1]));
                at += 2;
            } else {
                assert_eq!(form, page::FORM_RAW);
                hit["raw"] = serde_json::from_str(&slice(t[at], t[at + 1])).unwrap();
                at += 2;
            }
            hits.push(hit);
        }
        answer["hits"] = json!(hits);
        answers.push(answer);
    }
    assert_eq!(at, t.len(), "the whole table read");
    answers
}

fn extra(json: &str) -> Option<Box<RawValue>> {
    Some(RawValue::from_string(json.into()).unwrap())
}

#[test]
fn a_page_holds_each_hits_stored_fields_at_javascript_string_indices() {
    // Quotes, backslashes and characters beyond the BMP before the word a preview marks.
    let mut a = doc(
        "x/quoted",
        "project",
        "Say \"hi\" \\ \u{e9}t\u{e9} \u{1f600}",
        "line\nbreak",
        "\u{1f600} caf\u{e9} needle",
    );
    a.date = Some(1234);
    a.extra = extra(r#"[true,"verified",{"tags":["a","\u00e9"],"n":{"deep":[1,{"x":"]"}]}},12]"#);
    // The facade's other shapes of `extra`: none, nulls inside, tokens that are not a number.
    let b = doc("x/plain", "user", "needle", "", "");
    let mut c = doc("x/nulls", "project", "needle nulls", "", "");
    c.extra = extra(r#"[null,null,null,"12"]"#);
    // Another shape altogether (an index written by other code): handed over as its JSON.
    let mut d = doc("x/other", "project", "needle other", "", "");
    d.extra = extra(r#"{"signed":true,"metadata":{"tags":["a","b"]}}"#);
    let idx = index(&[a, b, c, d]);
    let req = SearchRequest { preview_chars: 40, ..q("needle") };
    let page = idx.search_many_page(std::slice::from_ref(&req), usize::MAX);
    let answer = &read_page(&page)[0];
    assert_eq!(answer["total"], 4.0);
    assert_eq!(answer["searchType"], "keyword");
    let hit = |id: &str| answer["hits"].as_array().unwrap().iter().find(|h| h["id"] == id).unwrap().clone();
    let quoted = hit("x/quoted");
    assert_eq!(quoted["title"], "Say \"hi\" \\ \u{e9}t\u{e9} \u{1f600}");
    assert_eq!(quoted["description"], "line\nbreak");
    assert_eq!(
        (&quoted["kind"], &quoted["space"], &quoted["name"]),
        (&json!("tool"), &json!("project"), &json!("quoted"))
    );
    assert_eq!(quoted["date"], 1234.0);
    assert_eq!(
        (&quoted["signed"], &quoted["integrity"], &quoted["tokens"]),
        (&json!(true), &json!("verified"), &json!(12.0))
    );
    assert_eq!(quoted["metadata"], json!({ "tags": ["a", "\u{e9}"], "n": { "deep": [1, { "x": "]" }] } }));
    assert!(quoted["score"].as_f64().unwrap() > 0.0);
    // The highlight is a JavaScript string index pair: the emoji before it counts two.
    let preview: Vec<u16> = quoted["preview"].as_str().unwrap().encode_utf16().collect();
    let (start, end) = (quoted["highlights"][0][0].as_f64().unwrap(), quoted["highlights"][0][1].as_f64().unwrap());
    assert_eq!(String::from_utf16(&preview[start as usize..end as usize]).unwrap(), "needle");
    let plain = hit("x/plain");
    assert_eq!(
        (&plain["signed"], &plain["integrity"], &plain["metadata"]),
        (&json!(false), &Value::Null, &Value::Null)
    );
    assert_eq!((&plain["date"], &plain["tokens"]), (&Value::Null, &Value::Null));
    let nulls = hit("x/nulls");
    assert_eq!((&nulls["signed"], &nulls["integrity"], &nulls["tokens"]), (&json!(false), &Value::Null, &Value::Null));
    assert_eq!(hit("x/other")["raw"][8]["metadata"]["tags"][1], "b");
    assert_eq!(hit("x/other")["raw"][3], "needle other");
    // The stored item is the facade's to read in place: other code reads it by name.
    let res = idx.search(&req).unwrap();
    assert_eq!(res.hits.iter().find(|h| h.id == "x/quoted").unwrap().item_str("description").unwrap(), "line\nbreak");
    assert!(serde_json::from_str::<ItemDoc>(r#"{"key": "k", "id": "a", "extra": {not json}"#).is_err());
    // Itemless answers carry the kind alone; explain, warnings and facet counts come as JSON.
    let lean = SearchRequest { itemless: true, explain: true, facets: true, fuzzy: 9, ..q("needle") };
    let answer = &read_page(&idx.search_many_page(&[lean], usize::MAX))[0];
    assert_eq!(answer["hits"][0]["kind"], "tool");
    assert!(answer["hits"][0].get("title").is_none());
    assert!(answer["hits"][0]["explain"].as_array().is_some_and(|e| !e.is_empty()), "{answer}");
    assert_eq!(answer["counts"]["type"]["tool"], 4);
    assert_eq!(answer["warnings"], json!(idx.search(&SearchRequest { fuzzy: 9, ..q("needle") }).unwrap().warnings));
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
fn a_page_answers_each_request_and_refuses_the_largest_past_the_limit() {
    let index = index(&corpus());
    let every = SearchRequest { limit: 10, ..q("file OR web OR agents OR tool OR helpers") };
    let reqs = vec![every, q("a AND (b"), q("nothingmatchesthis")];
    let all = read_page(&index.search_many_page(&reqs, usize::MAX));
    assert_eq!(all.len(), reqs.len());
    assert!(all[0]["hits"].as_array().is_some_and(|h| !h.is_empty()), "{all:?}");
    assert_eq!(all[1]["error"]["code"], "E_QUERY_SYNTAX");
    assert_eq!(all[2]["total"], 0.0);
    // `extra` written across lines (compacted when stored) reads back whole.
    let mut spread = doc("a/spread", "project", "spread", "extra over lines", "");
    spread.extra = extra("[true,\r\n \"verified\",\n null, 3]");
    let with_spread = self::index(&[spread]);
    let answers = read_page(&with_spread.search_many_page(&[q("spread"), q("spread")], usize::MAX));
    assert_eq!(
        (&answers[1]["hits"][0]["integrity"], &answers[1]["hits"][0]["tokens"]),
        (&json!("verified"), &json!(3.0))
    );
    // One byte short of the whole: only the largest answer is refused.
    let whole: usize = index.search_many_page(&reqs, usize::MAX).texts.iter().map(String::len).sum();
    let tight = read_page(&index.search_many_page(&reqs, whole - 1));
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
    let page = read_page(&idx.search_many_page(&[q("delta")], usize::MAX));
    assert!(page[0]["counts"].is_null(), "{page:?}");
}
