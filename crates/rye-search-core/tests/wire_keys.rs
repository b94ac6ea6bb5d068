//! `ts/wire.ts` mirrors the wire types by hand: this holds the two to the same keys. A key added,
//! renamed or dropped on one side only fails here, not as a refused request or a missing field
//! at run time.

use std::collections::BTreeSet;

use rye_search_core::wire::{page, Count, ItemDoc, Scope, SearchRequest, ITEM_FIELDS};
use rye_search_core::{MAX_FILTER_VALUES, MAX_ID_BYTES, MAX_LIMIT, MAX_PREVIEW_CHARS, MAX_PROXIMITY, TEXT_FIELDS};

fn wire_ts() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ts/wire.ts");
    std::fs::read_to_string(path).expect("ts/wire.ts beside the crates")
}

/// The body of `export interface NAME { … }` or `export type NAME = [ … ];` in `ts/wire.ts`.
fn body<'a>(ts: &'a str, opening: &str, closing: &str) -> &'a str {
    let start = ts.find(opening).unwrap_or_else(|| panic!("{opening} in ts/wire.ts")) + opening.len();
    let end = ts[start..].find(closing).unwrap_or_else(|| panic!("the end of {opening}")) + start;
    &ts[start..end]
}

/// The names of the members at the first level of a body: `name:`, `name?:` (comments skipped).
fn members(body: &str) -> BTreeSet<String> {
    body.lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .map(str::trim)
        .filter(|line| !line.starts_with("/*") && !line.starts_with('*') && !line.starts_with("//"))
        .filter_map(|line| line.split_once(':').map(|(name, _)| name.trim_end_matches('?').to_string()))
        .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect()
}

fn interface(name: &str) -> BTreeSet<String> {
    let text = wire_ts();
    members(body(&text, &format!("export interface {name} {{\n"), "\n}"))
}

fn keys(value: serde_json::Value) -> BTreeSet<String> {
    value.as_object().expect("an object").keys().cloned().collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_request_has_the_same_keys_on_both_sides() {
    let rust = keys(serde_json::to_value(SearchRequest::default()).unwrap());
    let ts = interface("NativeRequest");
    // Field weights are the core's own: the facade never sends them.
    assert_eq!(&rust - &ts, set(&["weights"]), "keys only Rust has");
    assert_eq!(&ts - &rust, set(&[]), "keys only ts/wire.ts has");
    let scope = keys(serde_json::to_value(Scope::default()).unwrap());
    assert_eq!(scope, interface("NativeScope"));
}

#[test]
fn the_document_has_the_same_keys_on_both_sides() {
    let rust = keys(serde_json::to_value(ItemDoc::default()).unwrap());
    assert_eq!(rust, interface("NativeDocument"));
}

/// The names in `export const NAME = [ … ] as const;` of `ts/wire.ts`.
fn const_list(text: &str, name: &str) -> Vec<String> {
    let list = body(text, &format!("export const {name} = ["), "] as const;");
    list.split(',').map(|n| n.trim().trim_matches('\'').to_string()).filter(|n| !n.is_empty()).collect()
}

#[test]
fn an_answer_page_codes_names_alike_on_both_sides() {
    // The page writes an index in these lists; `ts/answer-page.ts` reads it in wire.ts's lists,
    // after a leading "absent" where the entry may be absent.
    let text = wire_ts();
    let absent_first = |list: &[&str]| list[1..].iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(const_list(&text, "SEARCH_TYPES"), page::SEARCH_TYPES.map(String::from).to_vec());
    assert_eq!(const_list(&text, "VECTOR_TIERS"), absent_first(&page::VECTORS));
    assert_eq!(const_list(&text, "MATCH_KINDS"), absent_first(&page::MATCHED));
    let reader = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../ts/answer-page.ts")).unwrap();
    assert!(reader.contains("const TOTAL_RELATIONS = [undefined, 'eq', 'gte'] as const;"));
    assert_eq!(page::TOTAL_RELATIONS, ["", "eq", "gte"]);
    for (name, code) in [
        ("STATUS_ERROR", page::STATUS_ERROR),
        ("FORM_ITEM", page::FORM_ITEM),
        ("FORM_KIND", page::FORM_KIND),
        ("FORM_RAW", page::FORM_RAW),
    ] {
        assert!(reader.contains(&format!("export const {name} = {code};")), "{name} = {code} in ts/answer-page.ts");
    }
}

#[test]
fn the_count_modes_are_named_alike_on_both_sides() {
    let text = wire_ts();
    let ts = body(&text, "export const TOTAL_COUNTS = [", "] as const;");
    let names: Vec<String> = ts.split(',').map(|n| n.trim().trim_matches('\'').to_string()).collect();
    let rust: Vec<String> = [Count::Exact, Count::LowerBound, Count::None]
        .iter()
        .map(|c| serde_json::to_value(c).unwrap().as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, rust);
}

#[test]
fn a_hit_item_lists_its_fields_in_the_same_order_on_both_sides() {
    let text = wire_ts();
    let ts = body(&text, "export type NativeItem = [\n", "\n];");
    let names: Vec<&str> = ts.lines().filter_map(|l| l.trim().split_once(':').map(|(n, _)| n)).collect();
    assert_eq!(names, ITEM_FIELDS.to_vec());
}

#[test]
fn the_checks_would_see_a_key_on_one_side_only() {
    let ts = "export interface X {\n  /** doc: not a key */\n  a: string;\n  b?: number;\n  nested: {\n    inner: string;\n  };\n}";
    assert_eq!(members(body(ts, "export interface X {\n", "\n}")), set(&["a", "b", "nested"]));
}

/// The value of `export const NAME = …;` in `ts/search-options.ts`, digits only.
fn ts_limit(name: &str) -> u64 {
    ts_number("search-options.ts", name)
}

/// The number `export const NAME = …;` states in `ts/FILE`.
fn ts_number(file: &str, name: &str) -> u64 {
    let path = format!("{}/../../ts/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("ts/{file} beside the crates"));
    let opening = format!("export const {name} = ");
    let start = text.find(&opening).unwrap_or_else(|| panic!("{opening} in ts/{file}")) + opening.len();
    let digits: String = text[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '_').collect();
    digits.replace('_', "").parse().expect("a number")
}

#[test]
fn the_limits_callers_are_told_are_the_core_s() {
    assert_eq!(ts_limit("MAX_PREVIEW_CHARS"), MAX_PREVIEW_CHARS as u64);
    assert_eq!(ts_limit("MAX_PROXIMITY"), MAX_PROXIMITY);
    assert_eq!(ts_limit("MAX_LIMIT"), MAX_LIMIT as u64);
    assert!(ts_limit("MAX_MCP_LIMIT") <= MAX_LIMIT as u64, "MCP pages within the core's limit");
    assert_eq!(ts_number("errors.ts", "MAX_ID_BYTES"), MAX_ID_BYTES as u64, "fetch refuses the ids no item has");
    assert_eq!(ts_limit("MAX_FILTER_VALUES"), MAX_FILTER_VALUES as u64, "filters refused before they are read");
}

#[test]
fn the_fields_a_search_may_name_are_the_core_s_text_fields() {
    let path = format!("{}/../../ts/search-options.ts", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("ts/search-options.ts beside the crates");
    let list = body(&text, "export const TEXT_FIELD_NAMES = [", "]");
    let names: Vec<&str> = list.split(',').map(|n| n.trim().trim_matches('\'')).filter(|n| !n.is_empty()).collect();
    assert_eq!(names, TEXT_FIELDS.to_vec());
}

#[test]
fn a_request_key_the_facade_leaves_out_is_what_it_would_send() {
    // `requestJson` in ts/wire.ts leaves out a key at REQUEST_DEFAULTS, an empty list or map, and
    // an absent option: the core must take the same for each.
    let text = wire_ts();
    let defaults = body(&text, "export const REQUEST_DEFAULTS = {\n", "\n} as const;");
    let rust = serde_json::to_value(SearchRequest::default()).unwrap();
    let rust = rust.as_object().unwrap();
    let mut named = BTreeSet::new();
    for line in defaults.lines() {
        let (key, value) = line.trim().trim_end_matches(',').split_once(": ").expect("`key: value,`");
        let value: serde_json::Value = serde_json::from_str(&value.replace('\'', "\"")).expect("a JSON value");
        let core = rust.get(key).unwrap_or_else(|| panic!("{key} is no request key"));
        // JSON's numbers alike whatever their spelling (`0` in TypeScript, `0.0` from an f64).
        let same = match (core.as_f64(), value.as_f64()) {
            (Some(a), Some(b)) => a == b,
            _ => *core == value,
        };
        assert!(same, "the default of {key}: the core takes {core}, ts/wire.ts says {value}");
        named.insert(key.to_string());
    }
    for (key, value) in rust {
        // The query is always sent; the weights never are.
        if named.contains(key) || key == "query" || key == "weights" {
            continue;
        }
        let empty = value.is_null()
            || value.as_array().is_some_and(Vec::is_empty)
            || value.as_object().is_some_and(serde_json::Map::is_empty);
        assert!(empty, "{key} is left out when empty or absent, yet the core takes {value} for it");
    }
}
