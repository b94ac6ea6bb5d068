//! A bare Tantivy index of the bench's five fields, as SQLite FTS5 indexes them there (words
//! lowercased by Tantivy's default tokenizer, positions kept, every column stored, uncompressed
//! as rye-search stores them): what `build_floor` and `search_floor` measure Tantivy alone on.

use serde::Deserialize;
use tantivy::schema::{Field, Schema, STORED, STRING, TEXT};
use tantivy::store::Compressor;
use tantivy::{doc, Index, IndexSettings, IndexWriter};

/// A document of the bench's corpus (`bench/corpus.js`).
#[derive(Deserialize)]
pub struct Doc {
    pub id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub category: String,
    #[serde(default)]
    pub content: String,
}

/// The text fields and the bench's boosts for them.
pub const FIELDS: [(&str, f32); 5] =
    [("title", 3.0), ("name", 3.0), ("description", 2.0), ("category", 1.5), ("content", 1.0)];

pub struct Bare {
    pub index: Index,
    pub id: Field,
    pub text: [Field; 5],
}

impl Bare {
    pub fn new() -> tantivy::Result<Bare> {
        let mut b = Schema::builder();
        let id = b.add_text_field("id", STRING | STORED);
        let text = FIELDS.map(|(name, _)| b.add_text_field(name, TEXT | STORED));
        let settings = IndexSettings { docstore_compression: Compressor::None, ..IndexSettings::default() };
        let index = Index::builder().schema(b.build()).settings(settings).create_in_ram()?;
        Ok(Bare { index, id, text })
    }

    pub fn add(&self, writer: &mut IndexWriter, d: &Doc) -> tantivy::Result<()> {
        let t = self.text;
        writer.add_document(doc!(
            self.id => d.id.as_str(),
            t[0] => d.title.as_str(),
            t[1] => d.name.as_str(),
            t[2] => d.description.as_str(),
            t[3] => d.category.as_str(),
            t[4] => d.content.as_str(),
        ))?;
        Ok(())
    }
}

/// The documents of a JSON array file.
pub fn read_docs(file: &str) -> Vec<Doc> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: not a JSON array of documents: {e}"))
}
