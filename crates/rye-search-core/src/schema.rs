//! The index schema: weighted text fields for BM25, raw fields for exact filters, fast fields
//! for sorting, tie-breaking and the refresh manifest.

use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};

use crate::stem::STEM_TOKENIZER_NAME;
use crate::tokenizer::TOKENIZER_NAME;

/// Bumped whenever the schema, the tokenizer or what is stored per item (the facade's `extra`)
/// changes; an index with another version is rebuilt.
pub const SCHEMA_VERSION: u32 = 27;

/// The five weighted text fields, in the order of [`crate::Weights`].
pub const TEXT_FIELDS: [&str; 5] = ["title", "name", "description", "category", "content"];

#[derive(Clone, Copy)]
pub struct Fields {
    pub text: [Field; 5],
    pub key: Field,
    pub id: Field,
    pub kind: Field,
    pub space: Field,
    pub space_rank: Field,
    /// Lowercased name, for the name sort.
    pub name_sort: Field,
    pub meta: Field,
    /// Every proper ancestor namespace of the id (`a`, `a/b` for `a/b/c`): scope filters are terms.
    pub namespace: Field,
    pub version_num: Field,
    pub date: Field,
    pub mtime: Field,
    pub size: Field,
    /// What a hit shows besides id, score and preview, as one JSON array written at index time:
    /// a hit reads one stored value instead of deserialising ten.
    pub item: Field,
    /// The English stems of the short text fields' words (see [`crate::stem`]).
    pub stem: Field,
    /// The item's embedding (see `semantic::quantize`), when a model was loaded at indexing.
    pub vector: Field,
    /// A hash of the text the sentence encoder reads (`semantic::meaning_text`, made again from
    /// the stored item and content when it reads it), 0 for none: what the encoded vectors are
    /// kept and looked up by.
    pub meaning_key: Field,
}

impl Fields {
    pub fn content(&self) -> Field {
        self.text[4]
    }

    /// The fields queries look words up in: the text fields and the stems.
    pub fn looked_up(&self) -> [Field; 6] {
        let [a, b, c, d, e] = self.text;
        [a, b, c, d, e, self.stem]
    }

    /// Text field by its public name (`fields` request parameter).
    pub fn text_field(&self, name: &str) -> Option<(usize, Field)> {
        TEXT_FIELDS.iter().position(|f| *f == name).map(|i| (i, self.text[i]))
    }
}

pub fn build() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER_NAME)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let text = TextOptions::default().set_indexing_options(indexing);
    // Only content is stored among the text fields (for previews); the rest are in `item`.
    let stored_text = |name: &str| if name == "content" { text.clone().set_stored() } else { text.clone() };
    let num = || NumericOptions::default().set_fast();
    let fields = Fields {
        text: TEXT_FIELDS.map(|name| b.add_text_field(name, stored_text(name))),
        key: b.add_text_field("key", STRING | FAST),
        id: b.add_text_field("id", STRING | STORED | FAST),
        kind: b.add_text_field("kind", STRING),
        space: b.add_text_field("space", STRING),
        space_rank: b.add_u64_field("space_rank", num()),
        name_sort: b.add_text_field("name_sort", FAST),
        meta: b.add_text_field("meta", STRING),
        namespace: b.add_text_field("namespace", STRING),
        version_num: b.add_u64_field("version_num", NumericOptions::default() | INDEXED),
        date: b.add_i64_field("date", num() | INDEXED),
        mtime: b.add_i64_field("mtime", num()),
        size: b.add_u64_field("size", num()),
        // Read only by the manifest: a column, not a term dictionary of random strings.
        item: b.add_text_field("item", STORED),
        // Matched word by word, never as a phrase: frequencies without positions.
        stem: b.add_text_field(
            "stem",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(STEM_TOKENIZER_NAME)
                    .set_index_option(IndexRecordOption::WithFreqs),
            ),
        ),
        vector: b.add_bytes_field(crate::semantic::VECTOR_FIELD, FAST),
        meaning_key: b.add_u64_field("meaning_key", num()),
    };
    (b.build(), fields)
}

/// `1.2.3` → comparable number; up to three numeric parts, each below 2^20.
pub fn version_number(v: &str) -> Option<u64> {
    let v = v.trim().trim_start_matches(['v', 'V']);
    let parts: Vec<&str> = v.split('.').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut n = 0u64;
    for i in 0..3 {
        let p = match parts.get(i) {
            Some(p) => p.parse::<u64>().ok().filter(|x| *x < (1 << 20))?,
            None => 0,
        };
        n = (n << 20) | p;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn versions_compare_numerically() {
        assert!(version_number("1.10.0").unwrap() > version_number("1.9.9").unwrap());
        assert_eq!(version_number("1.2"), version_number("1.2.0"));
        assert_eq!(version_number("v2"), version_number("2.0.0"));
        assert_eq!(version_number("1.x"), None);
    }
}
