//! BERT-uncased WordPiece, as the models rye-search ships were trained with: lower-cased,
//! accents stripped, split on white space and punctuation (each CJK ideograph a word of its own),
//! each word split greedily into the longest pieces the vocabulary has.

use rustc_hash::FxHashMap;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Words read from one text: the start of an item says what it is about, and the cost of
/// tokenising stays bounded whatever the item's size.
pub const MAX_WORDS: usize = 256;
/// BERT's limit: a longer "word" (a hash, base64) is one unknown token.
const MAX_WORD_CHARS: usize = 100;

pub struct WordPiece {
    /// Looked up for every word of every item embedded: a fast hash (the keys are the model's
    /// own, so no caller can choose colliding ones).
    vocab: FxHashMap<String, u32>,
    unk: u32,
}

/// What becomes of a word no pieces cover.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    /// Left out (a static model has no vector worth adding for it).
    Drop,
    /// One `[UNK]` token, as BERT's tokenizer gives it.
    Keep,
}

impl WordPiece {
    pub fn new(vocab: FxHashMap<String, u32>, unk: u32) -> WordPiece {
        WordPiece { vocab, unk }
    }

    /// The ids of `text`'s pieces, at most `max`.
    pub fn ids(&self, text: &str, max: usize, unknown: Unknown) -> Vec<u32> {
        let mut ids = Vec::with_capacity(max.min(MAX_WORDS));
        let mut piece = String::new();
        for word in basic_words(text) {
            if ids.len() >= max {
                break;
            }
            if !self.push_pieces(&word, &mut piece, &mut ids) && unknown == Unknown::Keep {
                ids.push(self.unk);
            }
        }
        ids.truncate(max);
        ids
    }

    /// Greedy longest-match WordPiece: pushes the ids of `word`'s pieces to `ids` and says true,
    /// or pushes none and says false when a part of it no piece covers (the word is `[UNK]`).
    /// `piece`: room to spell each piece tried in, kept from word to word.
    fn push_pieces(&self, word: &str, piece: &mut String, ids: &mut Vec<u32>) -> bool {
        if word.chars().count() > MAX_WORD_CHARS {
            return false;
        }
        let before = ids.len();
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while end > start {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[start..end]);
                if let Some(id) = self.vocab.get(piece.as_str()) {
                    found = Some(*id);
                    break;
                }
                end = word[..end].char_indices().next_back().map_or(start, |(i, _)| i);
            }
            match found {
                Some(id) if id != self.unk => ids.push(id),
                Some(_) => {}
                None => {
                    ids.truncate(before);
                    return false;
                }
            }
            start = end;
        }
        true
    }
}

/// BERT's basic tokenizer: lowercase, accents stripped, split on white space and punctuation,
/// each CJK ideograph a word of its own, control characters dropped.
fn basic_words(text: &str) -> impl Iterator<Item = String> + '_ {
    let words = match text.is_ascii() {
        true => ascii_words(text.as_bytes()),
        false => words_of(text.chars().flat_map(char::to_lowercase).nfd()),
    };
    words.into_iter()
}

/// [`words_of`] for ASCII text, a byte at a time: no accent to strip, nothing to decompose, no
/// CJK (most items are ASCII, and the Unicode path cost a fifth of embedding one).
fn ascii_words(text: &[u8]) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for &b in text {
        // A vertical tab is white space to Unicode, not to `is_ascii_whitespace`.
        if b.is_ascii_whitespace() || b == 0x0B {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else if b.is_ascii_control() {
            continue;
        } else if b.is_ascii_punctuation() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            words.push(char::from(b).to_string());
        } else {
            word.push(char::from(b.to_ascii_lowercase()));
        }
        if words.len() > MAX_WORDS {
            break;
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The words of lower-cased, decomposed characters (see [`basic_words`]).
fn words_of(chars: impl Iterator<Item = char>) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    for c in chars {
        if is_combining_mark(c) || c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        if c.is_whitespace() {
            flush(&mut word, &mut words);
        } else if is_cjk(c) || c.is_ascii_punctuation() || !(c.is_alphanumeric() || c.is_ascii()) {
            flush(&mut word, &mut words);
            words.push(c.to_string());
        } else {
            word.push(c);
        }
        if words.len() > MAX_WORDS {
            break;
        }
    }
    flush(&mut word, &mut words);
    words
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> WordPiece {
        let tokens = ["[UNK]", "keep", "shell", "session", "##s", "running", "un", "##aff", "##able", "."];
        WordPiece::new(tokens.iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect(), 0)
    }

    #[test]
    fn wordpiece_splits_greedily_and_drops_or_keeps_unknown_words() {
        let text = "Keep shell SESSIONS running. unaffable zzz";
        assert_eq!(tiny().ids(text, 100, Unknown::Drop), vec![1, 2, 3, 4, 5, 9, 6, 7, 8]);
        assert_eq!(tiny().ids(text, 100, Unknown::Keep), vec![1, 2, 3, 4, 5, 9, 6, 7, 8, 0]);
        assert_eq!(tiny().ids(text, 4, Unknown::Keep), vec![1, 2, 3, 4]);
        let long = "a".repeat(MAX_WORD_CHARS + 1);
        assert_eq!(tiny().ids(&long, 10, Unknown::Keep), vec![0]);
    }

    #[test]
    fn ascii_text_splits_as_the_unicode_path_splits_it() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..20_000 {
            // Every ASCII byte, letters and spaces more often; long texts reach the word cap.
            let len = (next() % if case % 50 == 0 { 3000 } else { 120 }) as usize;
            let text: String = (0..len)
                .map(|_| match next() % 4 {
                    0 => ' ',
                    1 => char::from(b'A' + (next() % 26) as u8),
                    2 => char::from(b'a' + (next() % 26) as u8),
                    _ => char::from((next() % 128) as u8),
                })
                .collect();
            let unicode = words_of(text.chars().flat_map(char::to_lowercase).nfd());
            assert_eq!(ascii_words(text.as_bytes()), unicode, "{text:?}");
        }
    }
}
