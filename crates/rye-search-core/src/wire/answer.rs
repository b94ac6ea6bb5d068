//! The search answer as the facade reads it: hits as arrays, written by hand and kept ASCII
//! (see [`SearchResponse::write_json`]), and the stored item array each hit carries.

use std::collections::BTreeMap;

use crate::ascii::{first_beyond_ascii, CHUNK};
use crate::wire::document::ItemDoc;

/// Facet name → value → number of matches.
pub type Counts = BTreeMap<&'static str, BTreeMap<String, u64>>;

/// How one hit matched; `Keyword` on keyword searches (not written to the wire there).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Matched {
    #[default]
    Keyword,
    Semantic,
    Both,
}

impl Matched {
    pub fn as_str(self) -> &'static str {
        match self {
            Matched::Keyword => "keyword",
            Matched::Semantic => "semantic",
            Matched::Both => "both",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Hit {
    pub id: String,
    /// Normalised 0–1 against the best match of the whole query (not of the page).
    pub score: f64,
    pub preview: String,
    /// JSON array of [`ITEM_FIELDS`] as the index wrote it: passed through verbatim, never
    /// parsed here.
    pub item: String,
    pub matched: Matched,
    /// The matched words in `preview`, as `[start, end)` in UTF-16 code units (JavaScript string
    /// indices), in order and not overlapping.
    pub highlights: Vec<(u32, u32)>,
    /// With `explain`: the terms' contributions, a JSON array.
    pub explain: Option<String>,
}

/// What `Hit::item` holds, in order.
pub const ITEM_FIELDS: [&str; 9] =
    ["kind", "space", "name", "title", "description", "category", "path", "date", "extra"];

impl Hit {
    /// One string field of `item` (`kind`, `space`, `title`, …), parsed on demand.
    pub fn item_str(&self, name: &str) -> Option<String> {
        let at = ITEM_FIELDS.iter().position(|f| *f == name)?;
        let values: Vec<serde_json::Value> = serde_json::from_str(&self.item).ok()?;
        values.get(at)?.as_str().map(String::from)
    }
}

#[derive(Debug, Clone, Default)]
pub struct SearchResponse {
    pub total: usize,
    pub hits: Vec<Hit>,
    pub warnings: Vec<String>,
    /// A plain question found nothing with every word, and was answered without some of them.
    pub relaxed: bool,
    /// What ran: `keyword`, `hybrid` or `semantic`.
    pub search_type: &'static str,
    /// With `facets`: facet → value → number of matches, over the whole match set.
    pub counts: Option<Counts>,
    /// Which vectors ranked by meaning, when any did: `static` or `encoder`.
    pub vectors: Option<&'static str>,
    /// With a count other than exact: `eq` (`total` is exact anyway) or `gte` (at least).
    pub total_relation: Option<&'static str>,
}

impl SearchResponse {
    /// `{"total","hits":[[id,score,preview,item(,matched(,highlights(,explain)))]],"warnings","searchType"}`
    /// (`matched` null in keyword searches; highlights with a preview; explain when asked),
    /// written by hand so that each hit's
    /// stored JSON is copied instead of parsed and serialised again. Hits are arrays: the reader
    /// is `JSON.parse`, which builds arrays several times faster than objects with keys.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let start = out.len();
        self.write_json_utf8(out);
        ascii_escaped(out, start);
    }

    fn write_json_utf8(&self, out: &mut Vec<u8>) {
        fn json(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
            serde_json::to_writer(out, value).expect("writing to a Vec");
        }
        out.extend_from_slice(b"{\"total\":");
        json(out, &self.total);
        out.extend_from_slice(b",\"hits\":[");
        for (i, h) in self.hits.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'[');
            json_str(out, &h.id);
            out.push(b',');
            json(out, &h.score);
            out.push(b',');
            json_str(out, &h.preview);
            out.push(b',');
            out.extend_from_slice(if h.item.is_empty() { b"null" } else { h.item.as_bytes() });
            // Trailing elements, each written when it or a later one is there (null if absent).
            let keyword = self.search_type == "keyword";
            let last = if h.explain.is_some() {
                3
            } else if !h.preview.is_empty() {
                2
            } else {
                usize::from(!keyword)
            };
            if last >= 1 {
                out.push(b',');
                if keyword {
                    out.extend_from_slice(b"null");
                } else {
                    out.push(b'"');
                    out.extend_from_slice(h.matched.as_str().as_bytes());
                    out.push(b'"');
                }
            }
            if last >= 2 && h.preview.is_empty() {
                out.extend_from_slice(b",null");
            } else if last >= 2 {
                // Flat `[start, end, start, end, …]`: cheaper to parse than pairs.
                out.extend_from_slice(b",[");
                for (k, &(start, end)) in h.highlights.iter().enumerate() {
                    if k > 0 {
                        out.push(b',');
                    }
                    decimal(out, start);
                    out.push(b',');
                    decimal(out, end);
                }
                out.push(b']');
            }
            if let Some(explain) = &h.explain {
                out.push(b',');
                out.extend_from_slice(explain.as_bytes());
            }
            out.push(b']');
        }
        out.extend_from_slice(b"],\"warnings\":");
        json(out, &self.warnings);
        if self.relaxed {
            out.extend_from_slice(b",\"relaxed\":true");
        }
        if let Some(counts) = &self.counts {
            out.extend_from_slice(b",\"counts\":");
            json(out, counts);
        }
        if let Some(vectors) = self.vectors {
            out.extend_from_slice(b",\"vectors\":\"");
            out.extend_from_slice(vectors.as_bytes());
            out.push(b'"');
        }
        if let Some(relation) = self.total_relation {
            out.extend_from_slice(b",\"totalRelation\":\"");
            out.extend_from_slice(relation.as_bytes());
            out.push(b'"');
        }
        out.extend_from_slice(b",\"searchType\":\"");
        out.extend_from_slice(self.search_type.as_bytes());
        out.push(b'"');
        out.push(b'}');
    }

    /// The answer's JSON, ASCII only (see [`ascii_escaped`]).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(256 + self.hits.len() * 512);
        self.write_json(&mut out);
        String::from_utf8(out).expect("JSON of strings is UTF-8")
    }
}

/// Rewrites the JSON written from byte `start` of `out` with every non-ASCII character as a
/// `\uXXXX` escape (valid anywhere: JSON outside strings is ASCII), unless more than one byte in
/// [`ESCAPED_UP_TO`] is beyond ASCII. V8 makes a string of one-byte characters from ASCII by
/// copying it; one `’` in a preview made it decode a whole `searchMany` batch into a two-byte
/// string instead, which `JSON.parse` then read more slowly. An answer in Russian or Greek is
/// two-byte text whatever is done, and escaping each of its letters as six bytes was a quarter of
/// such a search with previews.
fn ascii_escaped(out: &mut Vec<u8>, start: usize) {
    // Most answers are ASCII; the rest is rewritten from the first byte beyond it.
    let Some(first) = first_beyond_ascii(&out[start..]) else { return };
    let beyond = out[start + first..].iter().filter(|&&b| b >= 0x80).count();
    if beyond * ESCAPED_UP_TO > out.len() - start {
        return;
    }
    let tail = out.split_off(start + first);
    // Everything written came from strings, so this is UTF-8; the lossy read only guards.
    let tail = String::from_utf8(tail).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let mut rest: &str = &tail;
    let mut units = [0u16; 2];
    // The ASCII runs between characters beyond it are copied whole.
    while let Some(at) = first_beyond_ascii(rest.as_bytes()) {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        let c = rest[at..].chars().next().expect("a character starts at a non-ASCII byte");
        for &unit in c.encode_utf16(&mut units).iter() {
            let digit = |shift: u16| HEX[usize::from(unit >> shift & 0xf)];
            out.extend_from_slice(&[b'\\', b'u', digit(12), digit(8), digit(4), digit(0)]);
        }
        rest = &rest[at + c.len_utf8()..];
    }
    out.extend_from_slice(rest.as_bytes());
}

/// Answers with at most one byte in this many beyond ASCII are written as ASCII (see
/// [`ascii_escaped`]): a few accents or quotation marks, not a text in another script.
const ESCAPED_UP_TO: usize = 8;

/// Hexadecimal digits of `\uXXXX` escapes.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// `n` in decimal (highlight offsets: a few per hit, each through serde_json cost more).
fn decimal(out: &mut Vec<u8>, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// `text` as a JSON string, as serde_json writes it, copying the runs between escapes whole:
/// previews are most of an answer, and serde_json looks each byte up in a table.
fn json_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..i + CHUNK) {
            if !needs_escape(chunk.try_into().expect("a chunk")) {
                i += CHUNK;
                continue;
            }
        }
        // A chunk with an escape (or the last bytes): a byte at a time to its end.
        let end = (i + CHUNK).min(bytes.len());
        while i < end {
            let b = bytes[i];
            let escape: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0..=0x1f => b"",
                _ => {
                    i += 1;
                    continue;
                }
            };
            out.extend_from_slice(&bytes[copied..i]);
            if escape.is_empty() {
                out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            } else {
                out.extend_from_slice(escape);
            }
            i += 1;
            copied = i;
        }
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}

/// Whether any byte of `chunk` is a control character, `"` or `\` (tested together, as in
/// [`crate::ascii`]).
fn needs_escape(chunk: &[u8; CHUNK]) -> bool {
    chunk.iter().fold(false, |any, &b| any | (b < 0x20) | (b == b'"') | (b == b'\\'))
}

/// What a hit shows besides id, score and preview, as a JSON array in the order of
/// [`ITEM_FIELDS`] (and of `NativeItem` in `ts/wire.ts`): an array because `JSON.parse` builds
/// arrays several times faster than objects with keys. `extra` is copied as the caller wrote it
/// (it arrives as JSON, parsed once), compacted if it spans lines: a `searchMany` answer is one line.
pub(crate) fn stored_item(d: &ItemDoc) -> String {
    let compacted;
    let extra = match d.extra.as_deref() {
        Some(raw) if raw.get().contains(['\n', '\r']) => {
            compacted = serde_json::from_str::<serde_json::Value>(raw.get())
                .ok()
                .and_then(|v| serde_json::value::to_raw_value(&v).ok());
            compacted.as_deref()
        }
        other => other,
    };
    let item = (&d.kind, &d.space, &d.name, &d.title, &d.description, &d.category, &d.path, d.date, extra);
    serde_json::to_string(&item).expect("a tuple of strings serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_written_as_serde_json_writes_them() {
        for n in [0, 7, 10, 99, 100, 65_535, 1_000_000, u32::MAX] {
            let mut out = Vec::new();
            decimal(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&n).unwrap());
        }
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let alphabet =
            ['a', '"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', '😀', ' ', '\t', '\u{8}', '\u{c}', '\r'];
        let mut seed = 3u64;
        for len in (0..40).chain([200, 1000]) {
            for _ in 0..200 {
                let text: String = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        // Mostly plain letters, as in text, so the eight-byte steps are taken.
                        let r = (seed >> 33) as usize;
                        if r.is_multiple_of(3) {
                            alphabet[r / 3 % alphabet.len()]
                        } else {
                            'a'
                        }
                    })
                    .collect();
                let mut out = Vec::new();
                json_str(&mut out, &text);
                assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&text).unwrap(), "{text:?}");
            }
        }
    }

    #[test]
    fn answers_are_ascii_json_that_reads_back_as_the_same_text() {
        // Characters beyond ASCII at every place in and around a scan's chunk of bytes.
        for lead in 0..40 {
            let text = format!("{}café ’quoted’ 搜索 😀 \u{7f} \"q\" \\ end {}", "a".repeat(lead), "x".repeat(200));
            let hit = Hit {
                id: format!("id-{text}"),
                preview: text.clone(),
                item: serde_json::to_string(&["knowledge", "project", &text]).unwrap(),
                ..Default::default()
            };
            let res = SearchResponse {
                hits: vec![hit],
                warnings: vec![text.clone()],
                search_type: "keyword",
                ..Default::default()
            };
            let json = res.to_json();
            assert!(json.is_ascii(), "{json}");
            let back: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(back["hits"][0][0], format!("id-{text}"));
            assert_eq!(back["hits"][0][2], text);
            assert_eq!(back["hits"][0][3][2], text);
            assert_eq!(back["warnings"][0], text);
        }
    }

    #[test]
    fn answers_mostly_beyond_ascii_stay_utf8_and_read_back_as_the_same_text() {
        for text in ["Кроссплатформенная библиотека для работы с изображениями", "Ελληνικά κείμενα 😀 \"q\""]
        {
            let hit = Hit { id: "id".into(), preview: text.into(), item: "[]".into(), ..Default::default() };
            let res = SearchResponse { hits: vec![hit], search_type: "keyword", ..Default::default() };
            let json = res.to_json();
            assert!(json.contains(text.split('"').next().unwrap()), "{json}");
            let back: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(back["hits"][0][2], text);
        }
    }
}
