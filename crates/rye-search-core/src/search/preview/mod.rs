//! Previews: a snippet around the best cluster of matched words, with the matched words' ranges.
//!
//! A preview costs a fraction of the search it belongs to: the query's words are found by a
//! case-insensitive substring scan and only the words around a find, and words with characters
//! beyond ASCII, are tokenised (text beyond ASCII is read in a bounded window). Tantivy's
//! snippet generator (term weights looked up per query, each hit's text tokenised whole) cost
//! more than the search.

use crate::error::Result;
use crate::tokenizer::{self};

/// Characters of context a preview shows before its first matched word.
const LEAD_CHARS: usize = 40;
/// Matched words considered per hit: the preview is cut around the best cluster among them.
pub(super) const MAX_MATCHES: usize = 16;

mod find;
mod marks;
#[cfg(test)]
mod tests;

pub(super) use marks::Marks;
use marks::Match;

/// A preview of at most `chars` characters of stored `content` (in [`shown_text`] form) around
/// its best-matching part, and the matched words' ranges in it (UTF-16 code units, as JavaScript
/// indexes strings). Fails only when the part read is not UTF-8 (a damaged index).
pub(super) fn preview(marks: &Marks, content: &[u8], chars: usize) -> Result<(String, Vec<(u32, u32)>)> {
    if marks.is_empty() {
        return Ok((start_of(content, chars)?, Vec::new()));
    }
    // Text is read in a window around the first find.
    let (region, ascii) = preview_window(content, |text| marks.first_term(text), chars)?;
    let mut found = marks.found.borrow_mut();
    let all = marks.matches_into(region, ascii, MAX_MATCHES, &mut found);
    let start = best_fragment(&found, region, ascii, chars);
    let text = cut_at_word(&region[start..], chars);
    // When the matches found are all the text has (the window is scanned whole), the preview's
    // highlights are those matches, moved to where the preview starts: matching the preview
    // again cost as much as the first pass.
    let marked = match all {
        true => {
            let moved = moved_matches(&found, start, text.len());
            // In ASCII, bytes are UTF-16 code units too.
            match ascii {
                true => moved.into_iter().map(|(a, b)| (a as u32, b as u32)).collect(),
                false => to_utf16(text, &moved),
            }
        }
        false => highlights(text, marks),
    };
    Ok((text.to_owned(), marked))
}

/// The byte ranges of the matches at or after byte `start` of a text, counted from there, in
/// its first `len` bytes from there; merged where they touch.
fn moved_matches(found: &[Match], start: usize, len: usize) -> Vec<(usize, usize)> {
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(found.len());
    for m in found.iter().filter(|m| m.from >= start) {
        let (a, b) = (m.from - start, m.to - start);
        if a >= len {
            break;
        }
        // A match the cut runs through (a compound whose end was cut) is left out; its parts
        // before the cut are matches of their own.
        if b > len {
            continue;
        }
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// The beginning of stored `content`, for a hit no term of the query matched (found by meaning).
pub(super) fn start_of(content: &[u8], chars: usize) -> Result<String> {
    let (window, _) = preview_window(content, |_| None, chars)?;
    Ok(cut_at_word(window, chars).to_owned())
}

/// Byte offset in `region` where the preview starts: a little before the matched word whose
/// following `chars` characters hold the most matches (distinct words first, the earliest on a
/// tie), or 0 when nothing matched.
fn best_fragment(found: &[Match], region: &str, ascii: bool, chars: usize) -> usize {
    // At most `MAX_MATCHES` matches are weighed: on the stack, as this runs for every hit.
    let found = &found[..found.len().min(MAX_MATCHES)];
    // Character offsets of the matches (byte offsets in ASCII text).
    let mut char_at = [0usize; MAX_MATCHES];
    let (mut byte, mut count) = (0usize, 0usize);
    for (m, at) in found.iter().zip(&mut char_at) {
        count += if ascii { m.from - byte } else { region[byte..m.from].chars().count() };
        byte = m.from;
        *at = count;
    }
    let char_at = &char_at[..found.len()];
    let lead = LEAD_CHARS.min(chars / 4);
    let mut best = (0.0f32, 0usize);
    for (i, &from) in char_at.iter().enumerate() {
        let mut score = 0.0;
        for (k, (m, &at)) in found[i..].iter().zip(&char_at[i..]).enumerate() {
            if at >= from + chars - lead {
                break;
            }
            // A word counts fully once; repeats only break ties.
            let repeat = found[i..i + k].iter().any(|earlier| earlier.word == m.word);
            score += if repeat { m.weight / 16.0 } else { m.weight };
        }
        if score > best.0 {
            best = (score, i);
        }
    }
    match found.get(best.1) {
        Some(m) => lead_in(region, m.from, lead, ascii),
        None => 0,
    }
}

/// A start up to `lead` characters before byte `anchor`, moved forward to a word's beginning so
/// the preview never opens on a word's tail (`ascii`: whether `text` is ASCII, whose characters
/// are its bytes).
fn lead_in(text: &str, anchor: usize, lead: usize, ascii: bool) -> usize {
    if lead == 0 {
        return anchor;
    }
    let start = match ascii {
        true => anchor.checked_sub(lead),
        false => text[..anchor].char_indices().rev().nth(lead - 1).map(|(start, _)| start),
    };
    let Some(start) = start else { return 0 };
    if text[..start].ends_with(char::is_whitespace) {
        return start;
    }
    if let Some(after) = after_whitespace(&text[start..anchor]) {
        return start + after;
    }
    // The matched token is part of a long word (an identifier, or text without spaces): open on
    // that word when it begins close enough, else on the token itself.
    let word = text[..anchor].char_indices().rev().find(|c| c.1.is_whitespace()).map_or(0, |(i, c)| i + c.len_utf8());
    if text[word..anchor].chars().count() <= lead * 2 {
        word
    } else {
        anchor
    }
}

/// The words of `preview` that the query matched, as `[start, end)` in UTF-16 code units, merged
/// where they touch.
fn highlights(preview: &str, marks: &Marks) -> Vec<(u32, u32)> {
    let mut merged: Vec<(usize, usize)> = Vec::new();
    // Matches come in text order; a compound's whole precedes its parts and covers them.
    for m in marks.matches(preview, preview.is_ascii(), usize::MAX).0 {
        match merged.last_mut() {
            Some(last) if m.from <= last.1 => last.1 = last.1.max(m.to),
            _ => merged.push((m.from, m.to)),
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

/// Where the text after the first whitespace character of `text` begins. ASCII bytes are read
/// as they are; a character is decoded only beyond ASCII.
fn after_whitespace(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        let (c, len) = match b < 0x80 {
            true => (char::from(b), 1),
            false => text[at..].chars().next().map(|c| (c, c.len_utf8()))?,
        };
        at += len;
        if c.is_whitespace() {
            return Some(at);
        }
    }
    None
}

/// At most `chars` characters of `text`, ending on a word boundary when the cut would split a
/// word (`STRAẞE` is never shown as `STRAẞ`); a single word longer than the budget is cut.
fn cut_at_word(text: &str, chars: usize) -> &str {
    // When the first `chars + 1` bytes are ASCII, they are the first `chars + 1` characters.
    let at = match crate::ascii::all_ascii(&text.as_bytes()[..text.len().min(chars + 1)]) {
        true => text.as_bytes().get(chars).map(|&b| (chars, b as char)),
        false => text.char_indices().nth(chars),
    };
    let Some((end, next)) = at else { return text };
    if next == ' ' {
        return &text[..end];
    }
    match text[..end].rfind(' ') {
        Some(space) if space > 0 => &text[..space],
        _ => &text[..end],
    }
}

/// The part of stored `content` (in [`shown_text`] form: words apart by single spaces) around
/// the first term in it (`first_term`), or its beginning, and whether it is ASCII: a long text is
/// read in a window of `chars × 8` bytes (at least 1 KiB) that opens and ends on whole words, so
/// a preview costs the same however long the text (rare words are found in long texts: c60k
/// rare-term searches with previews, 107k → 87k instructions each). Only the window is checked
/// for UTF-8 and ASCII: a whole 80 KB text was checked for each hit in it.
fn preview_window(
    content: &[u8],
    first_term: impl FnOnce(&[u8]) -> Option<usize>,
    chars: usize,
) -> Result<(&str, bool)> {
    let span = (chars * 8).max(1024);
    if content.len() <= span {
        return crate::stored::text_and_ascii(content);
    }
    let first = first_term(content).unwrap_or(0);
    // Back to where a character begins (a byte that continues one is 0b10xx_xxxx).
    let floor = |mut i: usize| {
        while i > 0 && content.get(i).is_some_and(|&b| b & 0xc0 == 0x80) {
            i -= 1;
        }
        i
    };
    let mut start = floor(first.saturating_sub(span / 4));
    // Begin on a word: a window that starts inside one would show its tail.
    if start > 0 && content[start - 1] != b' ' {
        start = memchr::memchr(b' ', &content[start..]).map_or(start, |i| start + i + 1);
    }
    // Back to where a character begins, unless none does after the start: then the window is
    // continuation bytes only (damage), and checking it says so.
    let reach = (start + span).min(content.len());
    let mut end = match floor(reach) {
        end if end > start => end,
        _ => reach,
    };
    // End on a word too: a word cut short could look like a query word (`libra` of `library`).
    if end < content.len() && content[end] != b' ' {
        end = memchr::memrchr(b' ', &content[start..end]).filter(|&space| space > 0).map_or(end, |space| start + space);
    }
    crate::stored::text_and_ascii(&content[start..end])
}
