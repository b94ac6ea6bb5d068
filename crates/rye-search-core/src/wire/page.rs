//! Answers as the Node API reads them: each answer's text in one string, and every number —
//! including where each field lies in that string — in one table for the whole batch. The facade
//! (`ts/answer-page.ts`) slices its fields out of the string: no JSON to parse on the hot path.
//! Parsing an answer's JSON (~3.5 KB at c60k with previews) and reshaping it into results was
//! most of a default `searchMany` query's time on the JS thread.
//!
//! Offsets are JavaScript string indices (UTF-16 code units). The layout, entry by entry (read
//! back by `ts/answer-page.ts`, and by `read_page` in `tests/search/answers.rs`; the codes are
//! held to `ts/wire.ts` by `tests/wire_keys.rs`):
//!
//! ```text
//! answer: status (0 ok, 1 error: the text is the error's JSON payload)
//!         total, hits, search type, vectors, total relation, relaxed (0/1),
//!         rest (start, end: a JSON object with `warnings` and `counts`, or empty),
//!         then each hit
//! hit:    form, id (start, end), score, preview (start, end), matched, explain (start, end),
//!         highlights (count of offsets, -1 without a preview, then the offsets), then by form:
//!         ITEM   kind, space, name, title, description, category, path (start, end each; a
//!                text equal to the last hit's in its place has that one's start and end, a
//!                title equal to the name the name's),
//!                date (NaN: none), signed (0/1), integrity (start, end; -1, -1: none),
//!                metadata (start, end: its JSON; -1, -1: none), tokens (NaN: none)
//!         KIND   kind (start, end)                  — an itemless hit
//!         RAW    item (start, end): its stored JSON — an item written in another shape
//! ```

use std::borrow::Cow;

use serde_json::value::RawValue;

use crate::error::{Error, Result};
use crate::wire::{Hit, SearchResponse};

/// A batch's answers: one text each, and the table of all of them.
#[derive(Debug, Default)]
pub struct Page {
    pub texts: Vec<String>,
    pub table: Vec<f64>,
}

/// One answer of a page, written on the thread that searched it.
#[derive(Debug, Default)]
pub struct AnswerPage {
    text: Text,
    table: Vec<f64>,
    /// Where the last hit's item texts lie: their bytes in `text` and their span (see `hit`).
    last_texts: [(usize, usize, f64, f64); 7],
}

pub const STATUS_OK: f64 = 0.0;
pub const STATUS_ERROR: f64 = 1.0;
/// How a hit's item is written (see the module's layout).
pub const FORM_ITEM: f64 = 0.0;
pub const FORM_KIND: f64 = 1.0;
pub const FORM_RAW: f64 = 2.0;

/// `search type`, `vectors`, `total relation` and `matched`: an index in these lists (0: none
/// where the entry may be absent).
pub const SEARCH_TYPES: [&str; 3] = ["keyword", "hybrid", "semantic"];
pub const VECTORS: [&str; 3] = ["", "static", "encoder"];
pub const TOTAL_RELATIONS: [&str; 3] = ["", "eq", "gte"];
pub const MATCHED: [&str; 4] = ["", "keyword", "semantic", "both"];

impl AnswerPage {
    /// One request's answer, or its error.
    pub fn of(r: Result<SearchResponse>) -> Self {
        r.and_then(|res| Self::answer(&res)).unwrap_or_else(|e| Self::error(&e))
    }

    fn error(e: &Error) -> Self {
        let mut page = AnswerPage::default();
        page.text.push(&e.payload_json());
        page.table.push(STATUS_ERROR);
        page
    }

    /// The answer written; an error when a hit's stored item is not JSON at all (a damaged
    /// store: the facade could not read it).
    fn answer(res: &SearchResponse) -> Result<Self> {
        // The hits' texts are most of it (the items' JSON a little more than their fields).
        let bytes: usize = res.hits.iter().map(|h| h.id.len() + h.preview.len() + h.item.len()).sum();
        let text = Text { text: String::with_capacity(bytes + 64), units: 0 };
        let table = Vec::with_capacity(12 + res.hits.len() * 40);
        let mut page = AnswerPage { text, table, last_texts: Default::default() };
        page.table.extend([
            STATUS_OK,
            res.total as f64,
            res.hits.len() as f64,
            code(&SEARCH_TYPES, res.search_type),
            code(&VECTORS, res.vectors.unwrap_or("")),
            code(&TOTAL_RELATIONS, res.total_relation.unwrap_or("")),
            f64::from(u8::from(res.relaxed)),
        ]);
        let rest_at = page.table.len();
        page.table.extend([0.0, 0.0]);
        let keyword = res.search_type == "keyword";
        for hit in &res.hits {
            if !page.hit(hit, keyword) {
                return Err(Error::Corrupt {
                    path: "this index".into(),
                    detail: format!("the stored item of {:?} is not JSON", hit.id),
                });
            }
        }
        // The rare parts, as JSON read once an answer (most answers have neither).
        if !res.warnings.is_empty() || res.counts.is_some() {
            let rest = serde_json::json!({ "warnings": res.warnings, "counts": res.counts });
            let (start, end) = page.text.push(&rest.to_string());
            page.table[rest_at..rest_at + 2].copy_from_slice(&[start, end]);
        }
        Ok(page)
    }

    /// Writes `hit`; false when its stored item is not JSON.
    fn hit(&mut self, hit: &Hit, keyword: bool) -> bool {
        let item = Item::read(&hit.item);
        self.table.push(match item {
            Some(Item::Fields(_)) => FORM_ITEM,
            Some(Item::Kind(_)) => FORM_KIND,
            None => FORM_RAW,
        });
        self.span(&hit.id);
        self.table.push(hit.score);
        self.span(&hit.preview);
        self.table.push(if keyword { 0.0 } else { code(&MATCHED, hit.matched.as_str()) });
        self.span(hit.explain.as_deref().unwrap_or(""));
        // Highlights come with a preview, as in the JSON answer.
        if hit.preview.is_empty() {
            self.table.push(-1.0);
        } else {
            self.table.push((hit.highlights.len() * 2) as f64);
            for &(start, end) in &hit.highlights {
                self.table.extend([f64::from(start), f64::from(end)]);
            }
        }
        match item {
            Some(Item::Fields(f)) => {
                // kind, space, name, title, …: a text the last hit had in the same place (its
                // kind, space, category) points at that hit's characters, and a title that
                // repeats the name (the usual case when an item has no title of its own) at the
                // name's: the facade then makes one string for both.
                for (k, text) in f.texts.iter().enumerate() {
                    let (start, end, from, to) = self.last_texts[k];
                    if k == TITLE && *text == f.texts[TITLE - 1] {
                        self.table.extend_from_within(self.table.len() - 2..);
                    } else if end > start && self.text.text.get(start..end) == Some(text.as_ref()) {
                        self.table.extend([from, to]);
                    } else {
                        let start = self.text.text.len();
                        let (from, to) = self.text.push(text);
                        self.last_texts[k] = (start, self.text.text.len(), from, to);
                        self.table.extend([from, to]);
                    }
                }
                self.table.push(f.date.unwrap_or(f64::NAN));
                self.table.push(f64::from(u8::from(f.signed)));
                match &f.integrity {
                    Some(text) => self.span(text),
                    None => self.table.extend([-1.0, -1.0]),
                }
                // Its own JSON: parsed only when a result's metadata is read.
                match f.metadata {
                    Some(raw) => self.span(raw),
                    None => self.table.extend([-1.0, -1.0]),
                }
                self.table.push(f.tokens.unwrap_or(f64::NAN));
            }
            Some(Item::Kind(kind)) => self.span(&kind),
            None if serde_json::from_str::<Vec<&RawValue>>(&hit.item).is_err() => return false,
            None => self.span(&hit.item),
        }
        true
    }

    fn span(&mut self, text: &str) {
        let (start, end) = self.text.push(text);
        self.table.extend([start, end]);
    }
}

impl Page {
    /// One search's page, or its error (a single search throws it rather than holding it).
    pub fn one(res: &SearchResponse, max_len: usize) -> Result<Self> {
        let answer = AnswerPage::answer(res)?;
        if answer.text.text.len() > max_len {
            return Err(too_long(answer.text.text.len()));
        }
        Ok(Page { texts: vec![answer.text.text], table: answer.table })
    }

    /// The answers in order. Answers that would make the texts longer than `max_len` bytes in
    /// all (what the caller can hold) are replaced by `E_LIMIT` errors, largest first, so a batch
    /// fails query by query, never as a whole.
    pub fn of(mut answers: Vec<AnswerPage>, max_len: usize) -> Self {
        let sizes: Vec<usize> = answers.iter().map(|a| a.text.text.len()).collect();
        for i in largest_over(&sizes, max_len) {
            answers[i] = AnswerPage::error(&too_long(sizes[i]));
        }
        let mut page = Page {
            texts: Vec::with_capacity(answers.len()),
            table: Vec::with_capacity(answers.iter().map(|a| a.table.len()).sum()),
        };
        for answer in answers {
            page.texts.push(answer.text.text);
            page.table.extend(answer.table);
        }
        page
    }
}

/// Where the title is among an item's texts (after kind, space and name).
const TITLE: usize = 3;

/// `name`'s index in one of the page's lists of names (0, "absent", for one it does not hold).
fn code(list: &[&str], name: &str) -> f64 {
    list.iter().position(|n| *n == name).unwrap_or(0) as f64
}

/// Which answers of these sizes to refuse, largest first, until the rest and the refusals
/// ([`REFUSAL_MAX`] bytes each at most) fit in `max_len`.
fn largest_over(sizes: &[usize], max_len: usize) -> Vec<usize> {
    let mut total: usize = sizes.iter().sum();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let mut refused = Vec::new();
    for i in order {
        if total <= max_len || sizes[i] <= REFUSAL_MAX {
            break;
        }
        total = total - sizes[i] + REFUSAL_MAX;
        refused.push(i);
    }
    refused
}

/// Bytes an `E_LIMIT` refusal takes at most.
const REFUSAL_MAX: usize = 256;

/// The refusal of an answer of `bytes` bytes.
fn too_long(bytes: usize) -> Error {
    Error::Limit {
        message: format!("this answer ({bytes} bytes) would make the whole batch too long to return"),
        hint: "ask for fewer results or shorter previews, or split the batch".into(),
    }
}

/// An answer's text, and its length in UTF-16 code units (JavaScript string indices).
#[derive(Debug, Default)]
struct Text {
    text: String,
    units: usize,
}

impl Text {
    fn push(&mut self, s: &str) -> (f64, f64) {
        let start = self.units;
        self.text.push_str(s);
        self.units +=
            if crate::ascii::all_ascii(s.as_bytes()) { s.len() } else { s.chars().map(char::len_utf16).sum() };
        (start as f64, self.units as f64)
    }
}

/// A hit's stored item (see `stored_item` in `answer.rs`), read in place: a value on the stack
/// while its hit is written (boxed, it was an allocation a hit).
#[allow(clippy::large_enum_variant)]
enum Item<'a> {
    Fields(ItemFields<'a>),
    /// An itemless hit's item: its kind alone.
    Kind(Cow<'a, str>),
}

/// The fields of a stored item as the facade shows them: `signed` false and `integrity` absent
/// without `extra`, `metadata` as its JSON, `tokens` only when a number.
struct ItemFields<'a> {
    /// kind, space, name, title, description, category, path.
    texts: [Cow<'a, str>; 7],
    date: Option<f64>,
    signed: bool,
    integrity: Option<Cow<'a, str>>,
    metadata: Option<&'a str>,
    tokens: Option<f64>,
}

impl<'a> Item<'a> {
    /// None for an item of any other shape (an index written by other code): the facade then
    /// reads its JSON as it is. Read by hand, not by serde_json: a page's items were a tenth of
    /// a search with serde's.
    fn read(json: &'a str) -> Option<Self> {
        let mut s = Scanner { json, at: 0 };
        s.expect(b'[')?;
        let kind = s.string()?;
        if s.eat(b']') {
            return s.done().then_some(Item::Kind(kind));
        }
        let mut texts: [Cow<'a, str>; 7] = Default::default();
        texts[0] = kind;
        for text in &mut texts[1..] {
            s.expect(b',')?;
            *text = s.string()?;
        }
        s.expect(b',')?;
        let date = s.nullable(Scanner::number)?;
        s.expect(b',')?;
        let mut fields = ItemFields { texts, date, signed: false, integrity: None, metadata: None, tokens: None };
        if !s.literal("null") {
            s.expect(b'[')?;
            fields.signed = match () {
                _ if s.literal("true") => true,
                _ if s.literal("false") || s.literal("null") => false,
                _ => return None,
            };
            s.expect(b',')?;
            fields.integrity = s.nullable(Scanner::string)?;
            s.expect(b',')?;
            let metadata = s.value()?;
            fields.metadata = Some(metadata).filter(|m| *m != "null");
            s.expect(b',')?;
            // Only a number is a count of tokens: the facade shows nothing for anything else.
            fields.tokens = serde_json::from_str::<f64>(s.value()?).ok();
            s.expect(b']')?;
        }
        s.expect(b']')?;
        s.done().then_some(Item::Fields(fields))
    }
}

/// Reads the JSON `stored_item` writes (serde_json's, without whitespace); anything else fails.
struct Scanner<'a> {
    json: &'a str,
    at: usize,
}

impl<'a> Scanner<'a> {
    /// Steps over `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let found = self.json.as_bytes().get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    fn literal(&mut self, word: &str) -> bool {
        let found = self.json[self.at..].starts_with(word);
        self.at += if found { word.len() } else { 0 };
        found
    }

    fn done(&self) -> bool {
        self.at == self.json.len()
    }

    /// A string's text: borrowed when it holds no escape.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.at;
        self.expect(b'"')?;
        let bytes = self.json.as_bytes();
        let mut escaped = false;
        loop {
            // `get`: an escape at the very end leaves `at` past it.
            let found = memchr::memchr2(b'"', b'\\', bytes.get(self.at..)?)? + self.at;
            if bytes[found] == b'"' {
                self.at = found + 1;
                break;
            }
            escaped = true;
            // The escaped character (a quote or backslash among them) is skipped whole.
            self.at = found + 2;
        }
        match escaped {
            false => Some(Cow::Borrowed(&self.json[start + 1..self.at - 1])),
            true => serde_json::from_str::<String>(&self.json[start..self.at]).ok().map(Cow::Owned),
        }
    }

    /// A number, as JavaScript reads it (serde_json checks its grammar).
    fn number(&mut self) -> Option<f64> {
        let len = self.json[self.at..]
            .bytes()
            .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        let text = &self.json[self.at..self.at + len];
        self.at += len;
        serde_json::from_str::<f64>(text).ok()
    }

    /// `null` as Some(None); else `read`'s value, or None (the item is of another shape).
    fn nullable<T>(&mut self, read: impl Fn(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.literal("null") {
            true => Some(None),
            false => read(self).map(Some),
        }
    }

    /// The text of one JSON value of any kind, checked by serde_json (strings and brackets are
    /// matched here only to find where it ends).
    fn value(&mut self) -> Option<&'a str> {
        let start = self.at;
        let bytes = self.json.as_bytes();
        match bytes.get(start)? {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match bytes.get(self.at)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => depth -= 1,
                        _ => {}
                    }
                    self.at += 1;
                    if depth == 0 {
                        break;
                    }
                }
                // Checked: the facade parses it with the answer's other rare parts, which one
                // damaged value must not take down with it.
                serde_json::from_str::<&RawValue>(&self.json[start..self.at]).ok()?;
            }
            _ => {
                let len = bytes[start..].iter().take_while(|b| !matches!(b, b',' | b']' | b'}')).count();
                self.at += len;
                serde_json::from_str::<&RawValue>(&self.json[start..self.at]).ok()?;
            }
        }
        Some(&self.json[start..self.at])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What the facade makes of an item's JSON (`readItem` in `ts/answer-page.ts`), for items of
    /// the usual shape: the fields `Item::read` must give.
    /// texts, date, signed, integrity, metadata, tokens.
    type Fields = (Vec<String>, Option<f64>, bool, Option<String>, Option<Value>, Option<f64>);

    fn expected(json: &str) -> Option<Fields> {
        let v: Vec<Value> = serde_json::from_str(json).ok()?;
        let texts = v.get(..7)?.iter().map(|t| t.as_str().map(String::from)).collect::<Option<Vec<_>>>()?;
        let extra = v.get(8)?.as_array().cloned().unwrap_or_default();
        let metadata = extra.get(2).filter(|m| !m.is_null()).cloned();
        Some((
            texts,
            v[7].as_f64(),
            extra.first() == Some(&Value::Bool(true)),
            extra.get(1).and_then(|i| i.as_str().map(String::from)),
            metadata,
            extra.get(3).and_then(Value::as_f64),
        ))
    }

    fn read(json: &str) -> Option<Fields> {
        match Item::read(json)? {
            Item::Fields(f) => Some((
                f.texts.iter().map(|t| t.to_string()).collect(),
                f.date,
                f.signed,
                f.integrity.as_deref().map(String::from),
                f.metadata.map(|m| serde_json::from_str(m).expect("metadata is one JSON value")),
                f.tokens,
            )),
            Item::Kind(_) => None,
        }
    }

    #[test]
    fn items_read_in_place_as_the_facade_reads_their_json_or_not_at_all() {
        let items = [
            r#"["tool","project","a","Say \"hi\" \\ été 😀","line\nbreak","c/d","p/q.md",1234,[true,"verified",{"tags":["a","]}"],"n":{"x":[1,{"y":null}]}},12]]"#,
            r#"["knowledge","system:core","n","t","d","c","",null,null]"#,
            r#"["directive","user","n","t","d","c","",-1.5e3,[false,"unsigned",null,null]]"#,
            r#"["tool","user","n","\u00e9\ud83d\ude00","","","",0,[null,null,"meta",7.5]]"#,
        ];
        for item in items {
            assert!(read(item).is_some(), "{item}");
            assert_eq!(read(item), expected(item), "{item}");
            // Every cut and every byte swapped for another: read the same as the facade reads
            // the JSON, or handed over as JSON (None) — never a panic, never other fields.
            for cut in 0..item.len() {
                if item.is_char_boundary(cut) {
                    assert_eq!(read(&item[..cut]), None, "{}", &item[..cut]);
                }
            }
            for at in 0..item.len() {
                for byte in [b'"', b'\\', b',', b'[', b']', b'{', b'}', b' ', b'n', b'1', b'e', b'-'] {
                    let mut bytes = item.as_bytes().to_vec();
                    bytes[at] = byte;
                    let Ok(changed) = String::from_utf8(bytes) else { continue };
                    if let Some(fields) = read(&changed) {
                        assert_eq!(Some(fields), expected(&changed), "{changed}");
                    }
                }
            }
            // Characters beyond ASCII where JSON allows none (after a backslash, between values).
            for at in (0..item.len()).filter(|&at| item.is_char_boundary(at)) {
                for inserted in ["é", "\\é", "😀,"] {
                    let changed = format!("{}{inserted}{}", &item[..at], &item[at..]);
                    if let Some(fields) = read(&changed) {
                        assert_eq!(Some(fields), expected(&changed), "{changed}");
                    }
                }
            }
        }
        assert!(matches!(Item::read(r#"["tool"]"#), Some(Item::Kind(k)) if k == "tool"));
        for other in [
            r#"["tool",1]"#,
            r#"["a","b","c","d","e","f","g","2024-01-01",null]"#,
            r#"["a","b","c","d","e","f","g",1,[true,1,null,2]]"#,
            r#"["a","b","c","d","e","f","g",1,[true,"v",null]]"#,
            r#"["a","b","c","d","e","f","g",1,{"signed":true}]"#,
            "",
            "[]",
            r#"["a\"#,
        ] {
            assert!(read(other).is_none(), "{other}");
        }
    }

    #[test]
    fn an_item_that_is_not_json_fails_its_search_with_a_code() {
        let hit = |item: &str| Hit { id: "a".into(), item: item.into(), ..Default::default() };
        for item in ["[\"tool\",", "{not json", "", "{\"x\":1}"] {
            let res = SearchResponse { total: 1, hits: vec![hit(item)], search_type: "keyword", ..Default::default() };
            let page = Page::of(vec![AnswerPage::of(Ok(res.clone()))], usize::MAX);
            assert_eq!(page.table, vec![STATUS_ERROR]);
            assert!(page.texts[0].contains("E_INDEX_CORRUPT"), "{}", page.texts[0]);
            assert_eq!(Page::one(&res, usize::MAX).unwrap_err().code(), "E_INDEX_CORRUPT");
        }
        // Another shape that is JSON is handed over as it is; a page too long for the caller is refused.
        let res =
            SearchResponse { total: 1, hits: vec![hit("[\"tool\",1]")], search_type: "keyword", ..Default::default() };
        let page = Page::one(&res, usize::MAX).unwrap();
        assert_eq!(page.table[9], FORM_RAW);
        assert_eq!(Page::one(&res, 3).unwrap_err().code(), "E_LIMIT");
    }

    #[test]
    fn texts_repeated_from_the_name_or_the_last_hit_are_written_once() {
        // Each hit's seven item texts, as spans and as the text they point at.
        let read = |items: &[&str]| {
            let hits = items.iter().map(|i| Hit { id: "a".into(), item: (*i).into(), ..Default::default() }).collect();
            let res = SearchResponse { total: 1, hits, search_type: "keyword", ..Default::default() };
            let page = Page::one(&res, usize::MAX).unwrap();
            // The answer's 9 entries; each hit's 10 before its item (no preview), then its 21.
            (0..items.len())
                .map(|h| {
                    let item_at = 9 + h * 31 + 10;
                    (0..7)
                        .map(|k| {
                            let (start, end) = (page.table[item_at + 2 * k], page.table[item_at + 2 * k + 1]);
                            ((start, end), page.texts[0].get(start as usize..end as usize).unwrap().to_string())
                        })
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let hits = read(&[
            r#"["tool","user","grep","grep","d","utils","",null,null]"#,
            r#"["tool","user","sed","Sed it","e","utils","",null,null]"#,
            r#"["knowledge","user","sed","Sed it","e","text","",null,null]"#,
        ]);
        let texts = |h: usize| hits[h].iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>();
        // Every text reads as written, whichever span it points at.
        assert_eq!(texts(0), ["tool", "user", "grep", "grep", "d", "utils", ""]);
        assert_eq!(texts(1), ["tool", "user", "sed", "Sed it", "e", "utils", ""]);
        assert_eq!(texts(2), ["knowledge", "user", "sed", "Sed it", "e", "text", ""]);
        let span = |h: usize, k: usize| hits[h][k].0;
        // A title equal to the name points at the name; a title of its own does not.
        assert_eq!(span(0, 3), span(0, 2));
        assert_ne!(span(1, 3), span(1, 2));
        // The last hit's kind, space and category are pointed at again, and only when equal.
        assert_eq!((span(1, 0), span(1, 1), span(1, 5)), (span(0, 0), span(0, 1), span(0, 5)));
        assert_eq!((span(2, 1), span(2, 2), span(2, 3), span(2, 4)), (span(1, 1), span(1, 2), span(1, 3), span(1, 4)));
        assert_ne!(span(2, 0), span(1, 0));
        assert_ne!(span(2, 5), span(1, 5));
    }

    #[test]
    fn text_is_counted_in_javascript_string_indices() {
        let mut text = Text::default();
        assert_eq!(text.push("ab"), (0.0, 2.0));
        assert_eq!(text.push("é😀"), (2.0, 5.0));
        assert_eq!(text.push(""), (5.0, 5.0));
        assert_eq!(text.text.encode_utf16().count(), 5);
    }
}
