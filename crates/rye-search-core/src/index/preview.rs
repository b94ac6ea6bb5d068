//! Previews: a snippet around the first match, cut from a window of the text.

use super::*;

/// Snippet around the first matched term. Only a window of the text is tokenized: documents
/// can be long, and tokenizing each hit whole cost milliseconds per query.
pub(super) fn preview(g: &SnippetGenerator, terms: &[String], content: &str, chars: usize) -> String {
    let window = preview_window(content, terms.iter().map(String::as_str), chars);
    let snippet = g.snippet(window);
    let text = if snippet.fragment().trim().is_empty() { window } else { snippet.fragment() };
    let collapsed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    cut_at_word(&collapsed, chars)
}

/// The beginning of `content`, for a hit no term of the query matched (found by meaning).
pub(super) fn start_of(content: &str, chars: usize) -> String {
    let window = preview_window(content, std::iter::empty(), chars);
    let collapsed: String = window.split_whitespace().collect::<Vec<_>>().join(" ");
    cut_at_word(&collapsed, chars)
}

/// The words of `preview` that the query matched: tokens that are one of `terms` (the query's
/// content terms, typo and wildcard expansions included) or whose stem is one of `stems`, as
/// `[start, end)` in UTF-16 code units, merged where they touch.
pub(super) fn highlights(preview: &str, terms: &HashSet<String>, stems: &HashSet<String>) -> Vec<(u32, u32)> {
    if terms.is_empty() && stems.is_empty() {
        return Vec::new();
    }
    let mut bytes: Vec<(usize, usize)> = tokenizer::tokens(preview)
        .into_iter()
        .filter(|t| terms.contains(&t.text) || crate::stem::stem(&t.text).is_some_and(|s| stems.contains(&*s)))
        .map(|t| (t.offset_from, t.offset_to))
        .collect();
    bytes.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(bytes.len());
    for (from, to) in bytes {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    to_utf16(preview, &merged)
}

/// Byte ranges of `text` (sorted, on char boundaries) as UTF-16 code unit ranges.
fn to_utf16(text: &str, ranges: &[(usize, usize)]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(ranges.len());
    let (mut byte, mut unit) = (0usize, 0u32);
    let mut advance = |to: usize| {
        unit += text[byte..to].chars().map(|c| c.len_utf16() as u32).sum::<u32>();
        byte = to;
        unit
    };
    for &(from, to) in ranges {
        let start = advance(from);
        let end = advance(to);
        out.push((start, end));
    }
    out
}

/// At most `chars` characters of `text`, ending on a word boundary when the cut would split a
/// word (`STRAẞE` is never shown as `STRAẞ`); a single word longer than the budget is cut.
fn cut_at_word(text: &str, chars: usize) -> String {
    let Some((end, next)) = text.char_indices().nth(chars) else { return text.to_string() };
    if next == ' ' {
        return text[..end].to_string();
    }
    match text[..end].rfind(' ') {
        Some(space) if space > 0 => text[..space].to_string(),
        _ => text[..end].to_string(),
    }
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
    let mut start = floor(first.saturating_sub(span / 4));
    // Begin on a word: a window that starts inside one would show its tail.
    if start > 0 && !content[..start].ends_with(char::is_whitespace) {
        start = content[start..].find(char::is_whitespace).map_or(start, |i| start + i);
    }
    let end = floor((start + span).min(content.len()));
    &content[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_end_on_word_boundaries() {
        assert_eq!(cut_at_word("the STRAẞE is long", 9), "the");
        assert_eq!(cut_at_word("data__Schlüssel x", 13), "data__Schlüssel x".chars().take(13).collect::<String>());
        assert_eq!(cut_at_word("a data__Schlüssel x", 14), "a");
        assert_eq!(cut_at_word("short", 80), "short");
        assert_eq!(cut_at_word("two words", 3), "two");
    }

    #[test]
    fn highlights_are_utf16_ranges_of_matched_words() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        let text = "𝔘 café and create_tool tools";
        let marks = highlights(text, &set(&["cafe", "create"]), &set(&["tool"]));
        let units: Vec<u16> = text.encode_utf16().collect();
        let shown: Vec<String> =
            marks.iter().map(|&(a, b)| String::from_utf16(&units[a as usize..b as usize]).unwrap()).collect();
        // Each part of an identifier is marked on its own; `tool` and `tools` by their stem.
        assert_eq!(shown, ["café", "create", "tool", "tools"]);
        assert!(highlights(text, &set(&[]), &set(&[])).is_empty());
    }
}
