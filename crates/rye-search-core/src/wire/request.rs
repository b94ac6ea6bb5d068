//! The search request as the facade sends it (serde, camelCase; unknown keys refused).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::query::TypoWalks;

/// Field boosts, in the order of [`crate::schema::TEXT_FIELDS`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    pub title: f32,
    pub name: f32,
    pub description: f32,
    pub category: f32,
    pub content: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights { title: 3.0, name: 3.0, description: 2.0, category: 1.5, content: 1.0 }
    }
}

impl Weights {
    pub fn as_array(&self) -> [f32; 5] {
        [self.title, self.name, self.description, self.category, self.content]
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SortBy {
    #[default]
    Score,
    Name,
    Date,
}

/// An exact filter, already normalised by the facade.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Filter {
    /// Item has `key` with any of `values`.
    AnyOf { key: String, values: Vec<String> },
    /// Item has `key` with none of `values`.
    NoneOf { key: String, values: Vec<String> },
    /// Version comparison: op is one of `=`, `>=`, `>`, `<=`, `<`.
    Version { op: String, value: String },
    /// Inclusive date range in epoch milliseconds; undated items never pass.
    Date { from: Option<i64>, to: Option<i64> },
}

/// One scope: a kind, and within it a namespace or an id pattern.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Scope {
    pub kind: Option<String>,
    /// Regex over the item id (the scope's namespace), matched against the whole id.
    pub id_pattern: Option<String>,
    /// Items under this namespace (segment-aware); with `namespace_exact`, also the item itself.
    pub namespace: Option<String>,
    pub namespace_exact: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SearchRequest {
    pub query: String,
    /// Items in any of these scopes; empty = every item.
    pub scopes: Vec<Scope>,
    /// Space labels to search, in precedence order (used to break ties); empty = all.
    pub spaces: Vec<String>,
    pub fields: BTreeMap<String, String>,
    pub filters: Vec<Filter>,
    /// Levenshtein distance for plain terms (0 = off, clamped to 2 with a warning).
    pub fuzzy: u64,
    /// No typo rescue: a plain query that finds nothing is not tried again with typos allowed
    /// (the caller chose `fuzzy` itself, or asks for exact words only).
    pub exact_only: bool,
    /// Set by the core when a plain query found nothing and is tried again with typos allowed by
    /// each word's length; never on the wire.
    #[serde(skip)]
    pub typos_by_length: bool,
    /// Set by the core with `typos_by_length`: the typo walks that retry makes, kept for its
    /// "did you mean"; never on the wire.
    #[serde(skip)]
    pub typo_walks: Option<Arc<TypoWalks>>,
    /// Phrase slop required between all positive terms; None = off.
    pub proximity: Option<u64>,
    pub sort_by: SortBy,
    pub limit: usize,
    pub offset: usize,
    pub weights: Weights,
    /// Characters of preview per hit; 0 disables previews.
    pub preview_chars: usize,
    pub mode: Mode,
    /// Only hits scoring at least this (0–1, relative to the best hit); 0 = every match.
    pub min_score: f64,
    /// Count the whole match set by type, space, category and integrity.
    pub facets: bool,
    /// Favour recent items (see [`crate::recency`]): the age, in ms, at which the boost halves.
    pub recency_half_life: Option<u64>,
    /// Rank the items most like this one (the query, when not `*`, narrows them).
    pub like: Option<LikeRef>,
    /// Each hit says what each query term gave it (see `index::explain`).
    pub explain: bool,
    /// Hits carry only the item's kind as their item (`["tool"]`): the caller wants no other
    /// item field, and a short answer parses several times faster.
    pub itemless: bool,
    /// How exact `total` must be (see [`Count`]).
    pub count: Count,
}

/// How exact a keyword search's `total` must be. Counting every match after top-k skipped
/// most of them (block-max WAND) is half a common term's cost; a caller who pages by
/// `has_more` or shows "1,000+" does not need it (Lucene's `TotalHits`, Elasticsearch's
/// `track_total_hits`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    /// Every match counted.
    #[default]
    Exact,
    /// At least this many: the matches the ranking visited (the answer says `gte` when some
    /// were skipped).
    LowerBound,
    /// Not asked for: reported as the lower bound, which costs nothing more.
    None,
}

/// An item by id, of any of `kinds` (a bare id may name an item of several kinds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct LikeRef {
    pub id: String,
    pub kinds: Vec<String>,
}

impl Default for SearchRequest {
    fn default() -> Self {
        SearchRequest {
            query: String::new(),
            scopes: Vec::new(),
            spaces: Vec::new(),
            fields: BTreeMap::new(),
            filters: Vec::new(),
            fuzzy: 0,
            exact_only: false,
            typos_by_length: false,
            typo_walks: None,
            proximity: None,
            sort_by: SortBy::Score,
            limit: 10,
            offset: 0,
            weights: Weights::default(),
            preview_chars: 200,
            mode: Mode::Auto,
            min_score: 0.0,
            facets: false,
            recency_half_life: None,
            like: None,
            explain: false,
            itemless: false,
            count: Count::Exact,
        }
    }
}

impl SearchRequest {
    /// The recency boost this request asks for, ages measured from now.
    pub fn recency(&self) -> Option<crate::recency::Recency> {
        self.recency_half_life.and_then(crate::recency::Recency::from_now)
    }
}

/// How a search runs: `Auto` runs plain questions as hybrid (when a model is loaded) and every
/// other query (operators, quotes, wildcards, fields, identifiers) as keyword.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Auto,
    Keyword,
    Semantic,
    Hybrid,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Keyword => "keyword",
            Mode::Semantic => "semantic",
            Mode::Hybrid => "hybrid",
        }
    }
}
