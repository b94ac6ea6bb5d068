//! The search answer, and the stored item each hit carries (written at index time, read in
//! place when the answer is written as a page: `page.rs`).

use std::collections::BTreeMap;

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

/// What a hit shows besides id, score and preview, as a JSON array in the order of
/// [`ITEM_FIELDS`] (and of `NativeItem` in `ts/wire.ts`). `extra` is copied as the caller wrote
/// it (it arrives as JSON, parsed once), compacted if it spans lines: a page reads an item
/// without whitespace in place (`page.rs`) and hands any other over as its JSON.
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

/// The title, name and description a stored item holds, as they were given: what the sentence
/// encoder's text is made again from (`semantic::meaning_text`). `None` for an item of another
/// shape.
pub(crate) fn stored_meaning_parts(item: &str) -> Option<[String; 3]> {
    let values: Vec<&serde_json::value::RawValue> = serde_json::from_str(item).ok()?;
    let field = |name: &str| -> Option<String> {
        let at = ITEM_FIELDS.iter().position(|f| *f == name)?;
        serde_json::from_str(values.get(at)?.get()).ok()
    };
    Some([field("title")?, field("name")?, field("description")?])
}
