//! A plain query that finds nothing is tried again with typos allowed by each word's length (one
//! from 5 characters, two from 9, as Meilisearch allows them) and says so in `warnings`; when even
//! that finds nothing, the answer names the index's closest words ("did you mean").

use std::sync::Arc;

use crate::error::Result;
use crate::index::SearchIndex;
use crate::query::relax::is_stop_word;
use crate::query::{closest_words, parse, Node, TypoWalks, MAX_TYPO_CHARS};
use crate::wire::{SearchRequest, SearchResponse};

/// Suggestions given per word.
const SUGGESTIONS: usize = 3;
/// Words of fewer characters get no suggestions (too many words are near them).
const MIN_SUGGESTED_CHARS: usize = 4;

impl SearchIndex {
    /// `res`, or for a plain query that found nothing, what it finds with typos allowed.
    pub(super) fn rescued(&self, req: &SearchRequest, res: SearchResponse) -> Result<SearchResponse> {
        let Some(words) = rescuable(req, &res) else { return Ok(res) };
        // "Did you mean" reads the walks the retry made (a long word's, at two edits, is the same).
        let walks = Arc::new(TypoWalks::default());
        let again = SearchRequest { typos_by_length: true, typo_walks: Some(walks.clone()), ..req.clone() };
        let mut retried = self.search_as_written(&again)?;
        if retried.total > 0 {
            retried.warnings.insert(
                0,
                "nothing matched as written; these match with typos allowed (one in words of 5 to 8 letters, two from 9)"
                    .into(),
            );
            return Ok(retried);
        }
        let mut res = res;
        if let Some(hint) = self.did_you_mean(&words, &walks)? {
            res.warnings.push(hint);
        }
        Ok(res)
    }

    /// `did you mean: permissions, permission (for permisions)`, or nothing when no word of the
    /// query has a close word in the index.
    fn did_you_mean(&self, words: &[String], walks: &TypoWalks) -> Result<Option<String>> {
        let searcher = self.reader.searcher();
        let parts = self.segment_parts(&searcher)?;
        let fields: Vec<(tantivy::schema::Field, f32)> = self.fields.text.iter().map(|f| (*f, 1.0)).collect();
        let mut said = Vec::new();
        let suggested = |w: &String| (MIN_SUGGESTED_CHARS..=MAX_TYPO_CHARS).contains(&w.chars().count());
        for word in words.iter().filter(|w| suggested(w) && !is_stop_word(w)) {
            let lowered = crate::tokenizer::normalize(word);
            let all_terms = parts.iter().map(|p| &p.all_terms).collect();
            let close = closest_words(&searcher, all_terms, &fields, &lowered, SUGGESTIONS, Some(walks))?;
            if !close.is_empty() {
                said.push(format!("{} (for {word})", close.join(", ")));
            }
        }
        Ok((!said.is_empty()).then(|| format!("no item matches; did you mean: {}", said.join("; "))))
    }
}

/// The words of a plain query (no operators, quotes, wildcards, fields, typos asked for) that
/// found nothing, when trying again could find something.
fn rescuable(req: &SearchRequest, res: &SearchResponse) -> Option<Vec<String>> {
    if res.total > 0
        || req.exact_only
        || req.typos_by_length
        || req.fuzzy > 0
        || !req.fields.is_empty()
        || req.like.is_some()
    {
        return None;
    }
    if req.query.contains(['"', '(', ')', '*', '?']) {
        return None;
    }
    let words = match parse(&req.query).ok()? {
        Node::Term(word) => vec![word],
        Node::And(children) => children
            .into_iter()
            .map(|c| if let Node::Term(t) = c { Some(t) } else { None })
            .collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    Some(words)
}
