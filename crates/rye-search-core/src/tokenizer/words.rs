//! What a word is, and its parts: identifier and camel-case pieces, joined forms, CJK runs as
//! pairs of characters.

use super::chars::{is_cjk, is_joiner, is_word_char};
use super::fold::{fold_part, normalize};

/// One word of the text: its lower-cased whole form and its parts (one part for a plain word).
/// `spans[k]` is the byte range of the original text that `parts[k]` came from: folding,
/// lower-casing and CJK pairing change lengths, so a part's place is never computed from its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub whole: String,
    pub parts: Vec<String>,
    pub spans: Vec<(usize, usize)>,
    pub start: usize,
    pub end: usize,
}

/// Byte spans of the words of `text`: runs of alphanumerics, possibly joined by `_`/`-` between
/// them. Scans in place, an ASCII byte at a time (a character is decoded only beyond ASCII):
/// indexing calls this for every text field of every document.
pub(super) fn word_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        let (start, first) = loop {
            let (word, len) = char_at(text, at)?;
            if word {
                break (at, len);
            }
            at += len;
        };
        let mut end = start + first;
        at = end;
        while let Some((word, len)) = char_at(text, at) {
            if word {
                at += len;
                end = at;
            } else if matches!(bytes[at], b'_' | b'-') {
                // Joiners belong to the word only when a word character follows them.
                let after = at + bytes[at..].iter().take_while(|&&b| b == b'_' || b == b'-').count();
                if !char_at(text, after).is_some_and(|(word, _)| word) {
                    break;
                }
                at = after;
            } else {
                break;
            }
        }
        Some((start, end))
    })
}

/// Whether the character at byte `at` of `text` (a character boundary) is a word character, and
/// its length in bytes; None at the end.
pub(super) fn char_at(text: &str, at: usize) -> Option<(bool, usize)> {
    let b = *text.as_bytes().get(at)?;
    if b < 0x80 {
        // Among ASCII characters, the word characters are the letters and digits (no mark).
        return Some((b.is_ascii_alphanumeric(), 1));
    }
    let c = text[at..].chars().next()?;
    Some((is_word_char(c), c.len_utf8()))
}

/// Splits text into words: runs of alphanumerics, possibly joined by `_`/`-` between them.
pub fn words(text: &str) -> Vec<Word> {
    word_spans(text).map(|(start, end)| make_word(&text[start..end], start, end)).collect()
}

/// A word that is its own only token: lower-case ASCII letters and digits, no joiners.
pub(super) fn is_plain(word: &str) -> bool {
    word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

pub(super) fn make_word(raw: &str, start: usize, end: usize) -> Word {
    let mut pieces = Vec::new();
    for (a, b) in joined_pieces(raw) {
        camel_pieces(raw, a, b, &mut pieces);
    }
    let mut word = Word { whole: normalize(raw), parts: Vec::new(), spans: Vec::new(), start, end };
    for (a, b) in pieces {
        for (from, to, text) in cjk_pieces(&raw[a..b]) {
            word.parts.push(text);
            word.spans.push((start + a + from, start + a + to));
        }
    }
    word
}

/// Byte ranges of `raw` between its joiners.
pub(super) fn joined_pieces(raw: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut from = None;
    let mut bounds = raw.char_indices().chain(std::iter::once((raw.len(), '_')));
    std::iter::from_fn(move || loop {
        let (i, c) = bounds.next()?;
        if is_joiner(c) {
            if let Some(a) = from.take() {
                return Some((a, i));
            }
        } else if from.is_none() {
            from = Some(i);
        }
    })
}

/// The token of `text` when it is one character that is a word on its own yet is indexed
/// inside the pairs of its run: an ideograph (猫, 山) or a Hangul syllable (집). Kana and the
/// letters of Thai and its neighbours spell sounds, not words.
pub fn lone_word_character(text: &str) -> Option<String> {
    if text.is_ascii() {
        return None;
    }
    let words = words(text);
    let [word] = &words[..] else { return None };
    let mut chars = word.whole.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else { return None };
    let sound = matches!(c as u32, 0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x3040..=0x30FF);
    (is_cjk(c) && !sound).then(|| word.whole.clone())
}

/// The parts of one camel-case piece: each run of CJK characters becomes its overlapping pairs
/// (a lone character stays whole), the text between runs a part of its own. Offsets are byte
/// ranges of `piece`.
pub(super) fn cjk_pieces(piece: &str) -> Vec<(usize, usize, String)> {
    if piece.is_ascii() || !piece.chars().any(is_cjk) {
        return vec![(0, piece.len(), fold_part(piece))];
    }
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let at = |k: usize| chars.get(k).map_or(piece.len(), |&(i, _)| i);
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let cjk = is_cjk(chars[i].1);
        let run = chars[i..].iter().take_while(|&&(_, c)| is_cjk(c) == cjk).count();
        if !cjk || run == 1 {
            out.push((at(i), at(i + run), fold_part(&piece[at(i)..at(i + run)])));
        } else {
            out.extend((i..i + run - 1).map(|k| (at(k), at(k + 2), fold_part(&piece[at(k)..at(k + 2)]))));
        }
        i += run;
    }
    out
}

/// `fileSystem` → `file`, `system`; `HTTPServer` → `http`, `server`. Digits stay attached.
/// Pushes the byte ranges of `raw[a..b]`'s pieces.
pub(super) fn camel_pieces(raw: &str, a: usize, b: usize, out: &mut Vec<(usize, usize)>) {
    match raw[a..b].is_ascii() {
        true => ascii_camel_pieces(raw.as_bytes(), a, b, out),
        false => char_camel_pieces(raw, a, b, out),
    }
}

pub(super) fn char_camel_pieces(raw: &str, a: usize, b: usize, out: &mut Vec<(usize, usize)>) {
    let chars: Vec<(usize, char)> = raw[a..b].char_indices().map(|(i, c)| (a + i, c)).collect();
    let mut from = a;
    for k in 1..chars.len() {
        let (i, c) = chars[k];
        if c.is_uppercase() {
            let prev = chars[k - 1].1;
            let next_lower = chars.get(k + 1).is_some_and(|n| n.1.is_lowercase());
            if prev.is_lowercase() || prev.is_numeric() || (prev.is_uppercase() && next_lower) {
                out.push((from, i));
                from = i;
            }
        }
    }
    if from < b {
        out.push((from, b));
    }
}

/// [`camel_pieces`] of ASCII text, on its bytes (the same rules: for ASCII, upper case, lower
/// case and numeric are the ASCII classes), without collecting its characters first.
pub(super) fn ascii_camel_pieces(raw: &[u8], a: usize, b: usize, out: &mut Vec<(usize, usize)>) {
    let mut from = a;
    for i in a + 1..b {
        if raw[i].is_ascii_uppercase() {
            let prev = raw[i - 1];
            let next_lower = i + 1 < b && raw[i + 1].is_ascii_lowercase();
            if prev.is_ascii_lowercase() || prev.is_ascii_digit() || (prev.is_ascii_uppercase() && next_lower) {
                out.push((from, i));
                from = i;
            }
        }
    }
    if from < b {
        out.push((from, b));
    }
}
