//! What the caller hands the index: one searchable item, already parsed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

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
