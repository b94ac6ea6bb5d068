//! What the caller hands the index: one searchable item, already parsed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::error::{echo, Error, Result};

/// The longest id a document may have, in UTF-8 bytes. An id, and the key made of it, are single
/// terms of the index, and Tantivy leaves out a term past 65,530 bytes: a document with a longer
/// id was neither replaced by an upsert nor removed (two copies of it, then four).
pub const MAX_ID_BYTES: usize = 4096;

/// The longest key a document may have, in UTF-8 bytes: the longest term Tantivy keeps.
pub const MAX_KEY_BYTES: usize = tantivy::tokenizer::MAX_TOKEN_LEN;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
/// Unknown keys are errors: a misspelt key must not silently become a default.
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ItemDoc {
    /// Unique key of the document (space label + path for files); upserts replace by key.
    pub key: String,
    pub id: String,
    pub kind: String,
    /// Space label: `project`, `user`, `system:<bundle_id>` (free-form for memory indexes).
    pub space: String,
    /// 0 project, 1 user, 2 system: the coarse tie-break order.
    pub space_rank: u64,
    pub title: String,
    pub name: String,
    pub description: String,
    pub category: String,
    pub content: String,
    pub path: String,
    pub version: Option<String>,
    /// Milliseconds since the epoch (`created_at`/`updated_at`), for `sort_by: date` and date filters.
    pub date: Option<i64>,
    /// Exact-match facets for filters: key → values (compared case-insensitively).
    pub meta: BTreeMap<String, Vec<String>>,
    pub mtime: i64,
    pub size: u64,
    /// Opaque JSON returned with each hit (metadata the facade wants to show), kept as written.
    pub extra: Option<Box<RawValue>>,
}

/// One row of the refresh manifest: what the index holds for a key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestEntry {
    pub key: String,
    pub mtime: i64,
    pub size: u64,
}

impl ItemDoc {
    /// Refuses a document the index could not find again by its id or key.
    pub fn check(&self) -> Result<()> {
        let too_long = |what: &str, len: usize, most: usize| {
            let start = self.id.char_indices().nth(40).map_or(self.id.as_str(), |(i, _)| &self.id[..i]);
            Error::limit(
                format!(
                    "document \"{}…\": its {what} is {len} bytes, more than the {most} an index finds again",
                    echo(start)
                ),
                format!("keep ids within {MAX_ID_BYTES} bytes (they are names or paths)"),
            )
        };
        if self.id.len() > MAX_ID_BYTES {
            return Err(too_long("id", self.id.len(), MAX_ID_BYTES));
        }
        if self.key.len() > MAX_KEY_BYTES {
            return Err(too_long("key", self.key.len(), MAX_KEY_BYTES));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_keys_the_index_could_not_find_again_are_refused() {
        let doc = |id: String, key: String| ItemDoc { id, key, ..ItemDoc::default() };
        let at = "é".repeat(MAX_ID_BYTES / 2);
        assert!(doc(at.clone(), format!("knowledge\0{at}")).check().is_ok());
        let over = format!("{at}x");
        let Err(Error::Limit { message, .. }) = doc(over.clone(), "k".into()).check() else { panic!("id refused") };
        assert!(message.contains(&"é".repeat(40)) && message.contains("4097 bytes"), "{message}");
        let key = "k".repeat(tantivy::tokenizer::MAX_TOKEN_LEN + 1);
        assert!(matches!(doc("a".into(), key).check(), Err(Error::Limit { .. })));
    }
}
