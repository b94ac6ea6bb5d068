//! A page of hits loaded: each hit's id and stored item read from the doc store (the page
//! only), and its preview made from its stored content, read in place.

use std::sync::Arc;

use tantivy::directory::OwnedBytes;
use tantivy::query::Query;
use tantivy::DocAddress;

use super::preview::{self, preview, Marks};
use crate::error::Result;
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::stored::{stored_texts, utf8};
use crate::wire::Matched;
use crate::wire::{Hit, SearchRequest};

impl SearchIndex {
    /// Loads the hits of a page (`(score, address, how it matched)`, scores already 0–1), with
    /// previews around the terms of `query` when they are wanted.
    pub(super) fn load_page(
        &self,
        req: &SearchRequest,
        searcher: &tantivy::Searcher,
        parts: &[Arc<SegmentParts>],
        query: Option<&dyn Query>,
        page: &[(f64, DocAddress, Matched)],
    ) -> Result<Vec<Hit>> {
        // Every hit's stored bytes are found first and the first hits' asked for ahead (see
        // `hit_store::prefetch`), so they arrive while the previews' matcher is built; each later
        // one is asked for as the hit `PREFETCH_HITS` before it is read.
        let stored: Vec<OwnedBytes> = page
            .iter()
            .map(|&(_, address, _)| parts[address.segment_ord as usize].store.document(address.doc_id))
            .collect::<Result<_>>()?;
        let ahead = if req.preview_chars > 0 { PREFETCH_WITH_PREVIEW } else { PREFETCH_ITEM };
        let prefetch = |i: usize| stored.get(i).into_iter().for_each(|bytes| crate::hit_store::prefetch(bytes, ahead));
        (0..PREFETCH_HITS).for_each(prefetch);
        let f = &self.fields;
        let marks = match query {
            Some(query) if req.preview_chars > 0 && !page.is_empty() => {
                // Collected as they come; `Marks` keeps each once.
                let (mut terms, mut stems) = (Vec::new(), Vec::new());
                query.query_terms(&mut |term, _| {
                    let value = term.value();
                    let Some(text) = value.as_str() else { return };
                    if term.field() == f.content() {
                        terms.push(text.to_string());
                    } else if term.field() == f.stem {
                        stems.push(text.to_string());
                    }
                });
                Some(Marks::new(terms, stems, page.len()))
            }
            _ => None,
        };
        let explainer = match query {
            Some(query) if req.explain => Some(self.explainer(req, searcher, query)?),
            _ => None,
        };
        let chars = req.preview_chars;
        let previewer: Option<Box<Previewer>> = match &marks {
            Some(marks) => Some(Box::new(move |content: &[u8]| preview(marks, content, chars))),
            None if chars > 0 => {
                Some(Box::new(move |content: &[u8]| Ok((preview::start_of(content, chars)?, Vec::new()))))
            }
            None => None,
        };
        let mut hits = Vec::with_capacity(page.len());
        for (i, (&(score, address, matched), bytes)) in page.iter().zip(&stored).enumerate() {
            prefetch(i + PREFETCH_HITS);
            let mut hit = self.materialise(bytes, previewer.as_deref(), req.itemless)?;
            hit.score = score;
            hit.matched = matched;
            if req.explain {
                let reader = searcher.segment_reader(address.segment_ord);
                hit.explain = Some(match &explainer {
                    Some(e) => e.explain(reader, address.doc_id)?,
                    None => "[]".into(),
                });
            }
            hits.push(hit);
        }
        Ok(hits)
    }

    /// Loads the stored fields of one hit from the doc store (only the page is loaded); the
    /// content, only when a preview is wanted.
    /// A hit's id and item (with `itemless`, its kind alone: `["tool"]`); with `preview`, its
    /// preview (and highlights) made from its stored content, which is read in place, never
    /// copied whole.
    pub(super) fn materialise(&self, bytes: &[u8], preview: Option<&Previewer>, itemless: bool) -> Result<Hit> {
        let f = &self.fields;
        let mut hit = Hit::default();
        // Stored in this order: id, item, content.
        for value in stored_texts(bytes) {
            let (field, text) = value?;
            if field == f.id.field_id() {
                hit.id = utf8(text)?;
            } else if field == f.item.field_id() {
                hit.item = match itemless {
                    true => kind_only(text)?,
                    false => utf8(text)?,
                };
                if preview.is_none() {
                    break;
                }
            } else if field == f.content().field_id() {
                if let Some(make) = preview {
                    (hit.preview, hit.highlights) = make(text)?;
                }
                break;
            }
        }
        Ok(hit)
    }
}

/// Makes a hit's preview and highlights from its stored content (read only as far as the
/// preview needs: checked for UTF-8 there).
pub(super) type Previewer<'a> = dyn Fn(&[u8]) -> Result<(String, Vec<(u32, u32)>)> + 'a;

/// `["kind", …]` → `["kind"]`: the stored item's first element (a kind is a plain word, so its
/// JSON string has no escapes): the part of the item up to the first `",`, checked as UTF-8
/// (the rest is not shown), or the whole item when it holds none. Cut from the stored bytes:
/// copying and checking the whole item first, and `format!`, were a tenth of a lean search.
fn kind_only(item: &[u8]) -> Result<String> {
    let end = memchr::memchr_iter(b'"', item).find(|&quote| item.get(quote + 1) == Some(&b','));
    Ok(match end {
        Some(end) => {
            let mut kind = String::with_capacity(end + 2);
            kind.push_str(crate::stored::text(&item[..=end])?);
            kind.push(']');
            kind
        }
        None => utf8(item)?,
    })
}

/// Bytes of each hit asked for before the page is read: with previews, about what a preview
/// reads of a text (the window of a long one is 1,600 bytes by default); without, its id and
/// item, which come first.
const PREFETCH_WITH_PREVIEW: usize = 2048;
const PREFETCH_ITEM: usize = 512;
/// Hits asked for ahead of the one being read: a default page at once, and a page of hundreds
/// never all at once (their bytes would push each other out of the cache before being read).
const PREFETCH_HITS: usize = 10;

#[cfg(test)]
mod tests {
    use super::kind_only;

    #[test]
    fn an_itemless_hit_keeps_the_stored_items_kind_alone() {
        let item = r#"["knowledge","project","café","Café \"au lait\"","d","c","p",null,null]"#;
        assert_eq!(kind_only(item.as_bytes()).unwrap(), r#"["knowledge"]"#);
        // An item of its kind alone, or of another shape, is handed over whole.
        assert_eq!(kind_only(br#"["tool"]"#).unwrap(), r#"["tool"]"#);
        assert_eq!(kind_only(b"{}").unwrap(), "{}");
        // Only what is shown is checked as UTF-8: a damaged tail is never read.
        let mut damaged = br#"["tool","project",""#.to_vec();
        damaged.extend([0xff, 0xfe, b'"', b']']);
        assert_eq!(kind_only(&damaged).unwrap(), r#"["tool"]"#);
        assert!(kind_only(&[b'[', b'"', 0xff, b'"', b',', b'1', b']']).is_err());
        assert!(kind_only(&[b'[', 0xff, b']']).is_err());
    }
}
