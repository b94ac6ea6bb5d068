//! Identifier-aware tokenizer: `create_tool`, `file-system` and `fileSystem` are indexed whole
//! AND by their parts, so a search finds them by either.
//!
//! Positions: the parts of a compound take consecutive positions and the whole shares the first
//! one, so phrases such as `"create tool"` match `create_tool` and proximity counts words.
//!
//! Latin letters lose their diacritics (`Café` → `cafe`, `Straße` → `strasse`), in the index and
//! in queries alike, as most search engines' default analysers do (SQLite FTS5's
//! `remove_diacritics`): someone typing `cafe` or `munchen` finds `Café` and `München`.
//!
//! Han, kana and Hangul, written without spaces between words, are indexed as overlapping pairs
//! of characters (`中文搜索` → `中文 文搜 搜索`, as Lucene's CJK analyser does), so a word inside
//! a run is found by its characters, and a longer query matches as a phrase of pairs.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use unicode_normalization::UnicodeNormalization;

/// Name under which the tokenizer is registered with Tantivy.
pub const TOKENIZER_NAME: &str = "rye_ident";

/// Tokens longer than this (in bytes) are dropped: they are hashes or data, not words.
const MAX_TOKEN_BYTES: usize = 64;

/// One word of the text: its lower-cased whole form and its parts (one part for a plain word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub whole: String,
    pub parts: Vec<String>,
    pub start: usize,
    pub end: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn is_joiner(c: char) -> bool {
    c == '_' || c == '-'
}

/// Byte spans of the words of `text`: runs of alphanumerics, possibly joined by `_`/`-` between
/// them. Scans in place: indexing calls this for every text field of every document.
fn word_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let start = loop {
            let (i, c) = chars.next()?;
            if is_word_char(c) {
                break i;
            }
        };
        let mut end = start + text[start..].chars().next().map_or(1, char::len_utf8);
        while let Some(&(i, c)) = chars.peek() {
            if is_word_char(c) {
                end = i + c.len_utf8();
                chars.next();
            } else if is_joiner(c) {
                // Joiners belong to the word only when a word character follows them.
                let after = text[i..].trim_start_matches(is_joiner);
                if !after.starts_with(is_word_char) {
                    break;
                }
                let resume = text.len() - after.len();
                while chars.next_if(|&(j, _)| j < resume).is_some() {}
            } else {
                break;
            }
        }
        Some((start, end))
    })
}

/// Splits text into words: runs of alphanumerics, possibly joined by `_`/`-` between them.
pub fn words(text: &str) -> Vec<Word> {
    word_spans(text).map(|(start, end)| make_word(&text[start..end], start, end)).collect()
}

/// A word that is its own only token: lower-case ASCII letters and digits, no joiners.
fn is_plain(word: &str) -> bool {
    word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

fn make_word(raw: &str, start: usize, end: usize) -> Word {
    let mut parts = Vec::new();
    for piece in raw.split(is_joiner).filter(|p| !p.is_empty()) {
        split_camel(piece, &mut parts);
    }
    let mut folded = Vec::with_capacity(parts.len());
    for part in parts {
        if part.chars().any(is_cjk) {
            split_cjk(&part, &mut folded);
        } else {
            folded.push(fold_latin(part));
        }
    }
    Word { whole: normalize(raw), parts: folded, start, end }
}

/// Han, kana and Hangul: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF // Hiragana, Katakana
        | 0x3400..=0x4DBF // CJK Extension A
        | 0x4E00..=0x9FFF // CJK Unified Ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF) // CJK Extensions B–F
}

/// A part holding CJK characters: each run of them becomes its overlapping pairs (a lone
/// character stays whole), and the text between runs a part of its own.
fn split_cjk(part: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = part.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let cjk = is_cjk(chars[i]);
        let run = chars[i..].iter().take_while(|&&c| is_cjk(c) == cjk).count();
        let piece = &chars[i..i + run];
        if !cjk {
            out.push(fold_latin(piece.iter().collect()));
        } else if run == 1 {
            out.push(piece[0].to_string());
        } else {
            out.extend(piece.windows(2).map(|pair| pair.iter().collect::<String>()));
        }
        i += run;
    }
}

/// How text is compared: lower-cased, Latin diacritics removed. Query patterns (wildcards)
/// go through this too, so they meet the terms as indexed.
pub fn normalize(text: &str) -> String {
    fold_latin(text.to_lowercase())
}

/// Folds lower-case Latin letters to their base letters: `é` → `e`, `ß` → `ss`, `ø` → `o`.
/// Other scripts are left as they are (`й` is not `и` in Russian).
fn fold_latin(word: String) -> String {
    if word.is_ascii() {
        return word;
    }
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        match c {
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            'œ' => out.push_str("oe"),
            'þ' => out.push_str("th"),
            'ø' => out.push('o'),
            'đ' | 'ð' => out.push('d'),
            'ł' => out.push('l'),
            'ı' => out.push('i'),
            '\u{c0}'..='\u{24f}' | '\u{1e00}'..='\u{1eff}' => {
                out.extend(std::iter::once(c).nfd().filter(|d| !('\u{300}'..='\u{36f}').contains(d)));
            }
            _ => out.push(c),
        }
    }
    out
}

/// `fileSystem` → `file`, `system`; `HTTPServer` → `http`, `server`. Digits stay attached.
fn split_camel(piece: &str, parts: &mut Vec<String>) {
    let chars: Vec<char> = piece.chars().collect();
    let mut current = String::new();
    for (k, &c) in chars.iter().enumerate() {
        if k > 0 && c.is_uppercase() {
            let prev = chars[k - 1];
            let next_lower = chars.get(k + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_numeric() || (prev.is_uppercase() && next_lower) {
                parts.push(std::mem::take(&mut current));
            }
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        parts.push(current);
    }
}

/// The tokens of a text, as the index stores them.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::with_capacity(text.len() / 6);
    let mut position = 0usize;
    for (start, end) in word_spans(text) {
        let raw = &text[start..end];
        if is_plain(raw) {
            // Most words: no parts, no case to fold.
            if raw.len() <= MAX_TOKEN_BYTES {
                out.push(Token {
                    offset_from: start,
                    offset_to: end,
                    position,
                    text: raw.to_owned(),
                    position_length: 1,
                });
            }
            position += 1;
            continue;
        }
        let word = make_word(raw, start, end);
        let keep = |s: &str| !s.is_empty() && s.len() <= MAX_TOKEN_BYTES;
        if word.parts.len() > 1 && keep(&word.whole) {
            out.push(Token {
                offset_from: word.start,
                offset_to: word.end,
                position,
                text: word.whole.clone(),
                position_length: word.parts.len(),
            });
        }
        let mut offset = word.start;
        let count = word.parts.len();
        for (k, part) in word.parts.into_iter().enumerate() {
            let len = part.len();
            if keep(&part) {
                // Offsets of parts are approximate for case-changing scripts; only snippets use them.
                let len = len.min(word.end.saturating_sub(offset));
                out.push(Token {
                    offset_from: offset,
                    offset_to: offset + len,
                    position: position + k,
                    text: part,
                    position_length: 1,
                });
            }
            offset = (offset + len + 1).min(word.end);
        }
        position += count.max(1);
    }
    out
}

#[derive(Clone, Default)]
pub struct IdentTokenizer;

pub struct VecTokenStream {
    tokens: Vec<Token>,
    index: usize,
}

impl TokenStream for VecTokenStream {
    fn advance(&mut self) -> bool {
        if self.index < self.tokens.len() {
            self.index += 1;
            true
        } else {
            false
        }
    }
    fn token(&self) -> &Token {
        &self.tokens[self.index - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.index - 1]
    }
}

impl Tokenizer for IdentTokenizer {
    type TokenStream<'a> = VecTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream {
        VecTokenStream { tokens: tokens(text), index: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<(String, usize)> {
        tokens(s).into_iter().map(|t| (t.text, t.position)).collect()
    }

    #[test]
    fn snake_kebab_and_camel_are_split_and_kept_whole() {
        assert_eq!(texts("create_tool"), vec![("create_tool".into(), 0), ("create".into(), 0), ("tool".into(), 1)]);
        assert_eq!(texts("file-system"), vec![("file-system".into(), 0), ("file".into(), 0), ("system".into(), 1)]);
        assert_eq!(
            texts("fileSystem x"),
            vec![("filesystem".into(), 0), ("file".into(), 0), ("system".into(), 1), ("x".into(), 2)]
        );
        assert_eq!(texts("HTTPServer"), vec![("httpserver".into(), 0), ("http".into(), 0), ("server".into(), 1)]);
    }

    #[test]
    fn punctuation_separates_and_dangling_joiners_are_dropped() {
        assert_eq!(texts("rye/core.bash"), vec![("rye".into(), 0), ("core".into(), 1), ("bash".into(), 2)]);
        assert_eq!(texts("_private- --x"), vec![("private".into(), 0), ("x".into(), 1)]);
        assert!(texts("!!! ... ").is_empty());
    }

    /// The first, straightforward version of `words`: the oracle for the in-place scanner.
    fn reference_words(text: &str) -> Vec<(usize, usize)> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if !is_word_char(chars[i].1) {
                i += 1;
                continue;
            }
            let mut end = i;
            while end < chars.len() {
                if is_word_char(chars[end].1) {
                    end += 1;
                } else if is_joiner(chars[end].1) {
                    let mut j = end;
                    while j < chars.len() && is_joiner(chars[j].1) {
                        j += 1;
                    }
                    if j < chars.len() && is_word_char(chars[j].1) {
                        end = j;
                    } else {
                        break;
                    }
                } else {
                    break;
                }
            }
            out.push((chars[i].0, if end < chars.len() { chars[end].0 } else { text.len() }));
            i = end;
        }
        out
    }

    #[test]
    fn in_place_scanner_matches_the_reference_on_every_mix_of_characters() {
        let alphabet = ['a', 'Z', '9', '_', '-', ' ', '.', '\u{e9}', '\u{df}', '\u{4e2d}', '\u{1f600}', 'I', '\u{130}'];
        let mut seed = 0x9e3779b97f4a7c15u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 12) as usize;
            let text: String =
                (0..len).map(|k| alphabet[((seed >> (k * 4)) % alphabet.len() as u64) as usize]).collect();
            let spans: Vec<_> = word_spans(&text).collect();
            assert_eq!(spans, reference_words(&text), "{text:?}");
            // The plain-word fast path gives what the general path gives.
            for (start, end) in spans {
                let raw = &text[start..end];
                if is_plain(raw) {
                    let w = make_word(raw, start, end);
                    assert_eq!((w.whole.as_str(), w.parts.as_slice()), (raw, &[raw.to_string()][..]));
                }
            }
        }
    }

    #[test]
    fn unicode_and_long_tokens() {
        assert_eq!(texts("Über Straße"), vec![("uber".into(), 0), ("strasse".into(), 1)]);
        let folded: Vec<String> = tokens("Café résumé naïve Łódź Øresund Æsir façade-Ñandú").into_iter().map(|t| t.text).collect();
        assert_eq!(folded, ["cafe", "resume", "naive", "lodz", "oresund", "aesir", "facade-nandu", "facade", "nandu"]);
        // Other scripts keep their letters; only case folds.
        assert_eq!(texts("Поиск Йод"), vec![("поиск".into(), 0), ("йод".into(), 1)]);
        assert_eq!(normalize("CAFÉ*"), "cafe*");
        let long = "a".repeat(100);
        assert!(texts(&long).is_empty());
    }

    #[test]
    fn cjk_runs_become_overlapping_pairs() {
        let pairs = |s: &str| texts(s).into_iter().map(|(t, p)| format!("{t}@{p}")).collect::<Vec<_>>().join(" ");
        assert_eq!(pairs("中文搜索"), "中文搜索@0 中文@0 文搜@1 搜索@2");
        assert_eq!(pairs("中文 搜索"), "中文@0 搜索@1");
        assert_eq!(pairs("中 x"), "中@0 x@1");
        assert_eq!(pairs("Rust语言"), "rust语言@0 rust@0 语言@1");
        assert_eq!(pairs("ひらがなカタカナ 한국어"), "ひらがなカタカナ@0 ひら@0 らが@1 がな@2 なカ@3 カタ@4 タカ@5 カナ@6 한국어@7 한국@7 국어@8");
    }
}
