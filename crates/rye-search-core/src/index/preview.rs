//! Previews: a snippet around the first match, cut from a window of the text.

use super::*;

/// Snippet around the first matched term. Only a window of the text is tokenized: documents
/// can be long, and tokenizing each hit whole cost milliseconds per query.
pub(super) fn preview(g: &SnippetGenerator, terms: &[String], content: &str, chars: usize) -> String {
    let window = preview_window(content, terms.iter().map(String::as_str), chars);
    let snippet = g.snippet(window);
    let text = if snippet.fragment().trim().is_empty() { window } else { snippet.fragment() };
    let collapsed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed.chars().take(chars).collect()
}

/// The part of `content` around the earliest occurrence of any term (ASCII case-insensitive,
/// which keeps byte offsets exact), or its beginning.
fn preview_window<'a>(content: &'a str, terms: impl Iterator<Item = &'a str>, chars: usize) -> &'a str {
    let span = (chars * 8).max(1024);
    if content.len() <= span {
        return content;
    }
    let lower = content.to_ascii_lowercase();
    let first = terms.filter(|t| !t.is_empty()).filter_map(|t| lower.find(t)).min().unwrap_or(0);
    let floor = |mut i: usize| {
        while !content.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(first.saturating_sub(span / 4));
    let end = floor((start + span).min(content.len()));
    &content[start..end]
}
