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
    /// Pieces that begin a word, by their text; looked up for every word of every item embedded:
    /// a fast hash (the keys are the model's own, so no caller can choose colliding ones).
    first: Pieces,
    /// Pieces that continue a word (`##able`), by their text after the `##`: a part of a word is
    /// looked up as the slice it is, with nothing spelt out first.
    rest: Pieces,
    unk: u32,
}

/// Pieces by their text, and the longest's length in bytes: no longer slice is looked up (a long
/// word unknown to the model tried every length from its whole down, ~30 hashes a part).
struct Pieces {
    ids: FxHashMap<Box<str>, u32>,
    longest: usize,
}

impl Pieces {
    fn new(pieces: impl Iterator<Item = (Box<str>, u32)>) -> Pieces {
        let ids: FxHashMap<Box<str>, u32> = pieces.collect();
        let longest = ids.keys().map(|k| k.len()).max().unwrap_or(0);
        Pieces { ids, longest }
    }

    /// The longest piece `word[start..]` begins with: its id and where it ends.
    fn longest_at(&self, word: &str, start: usize) -> Option<(u32, usize)> {
        let mut end = word.len().min(start + self.longest);
        while !word.is_char_boundary(end) {
            end -= 1;
        }
        while end > start {
            if let Some(&id) = self.ids.get(&word[start..end]) {
                return Some((id, end));
            }
            end = word[..end].char_indices().next_back().map_or(start, |(i, _)| i);
        }
        None
    }
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
        // A word never holds `#` (it is punctuation, a word of its own), so no word begins with
        // `##`: those pieces only ever continue one.
        let (rest, first): (Vec<_>, Vec<_>) = vocab.into_iter().partition(|(piece, _)| piece.starts_with("##"));
        WordPiece {
            first: Pieces::new(first.into_iter().map(|(p, id)| (p.into_boxed_str(), id))),
            rest: Pieces::new(rest.into_iter().map(|(p, id)| (p[2..].into(), id))),
            unk,
        }
    }

    /// The ids of `text`'s pieces, at most `max`.
    pub fn ids(&self, text: &str, max: usize, unknown: Unknown) -> Vec<u32> {
        let mut ids = Vec::with_capacity(max.min(MAX_WORDS));
        let words = basic_words(text);
        for word in words.iter() {
            if ids.len() >= max {
                break;
            }
            if !self.push_pieces(word, &mut ids) && unknown == Unknown::Keep {
                ids.push(self.unk);
            }
        }
        ids.truncate(max);
        ids
    }

    /// Greedy longest-match WordPiece: pushes the ids of `word`'s pieces to `ids` and says true,
    /// or pushes none and says false when a part of it no piece covers (the word is `[UNK]`).
    fn push_pieces(&self, word: &str, ids: &mut Vec<u32>) -> bool {
        if word.len() > MAX_WORD_CHARS && word.chars().count() > MAX_WORD_CHARS {
            return false;
        }
        let before = ids.len();
        let mut start = 0;
        while start < word.len() {
            let pieces = if start == 0 { &self.first } else { &self.rest };
            match pieces.longest_at(word, start) {
                Some((id, end)) => {
                    if id != self.unk {
                        ids.push(id);
                    }
                    start = end;
                }
                None => {
                    ids.truncate(before);
                    return false;
                }
            }
        }
        true
    }
}

/// A text's words, as one lower-cased string and each word's span in it.
struct Words {
    text: String,
    spans: Vec<(usize, usize)>,
}

impl Words {
    fn with_capacity(bytes: usize) -> Words {
        Words { text: String::with_capacity(bytes), spans: Vec::new() }
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.spans.iter().map(|&(a, b)| &self.text[a..b])
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    /// Ends the word being written (the text since the last span), if any.
    fn end_word(&mut self) {
        let from = self.spans.last().map_or(0, |s| s.1);
        if self.text.len() > from {
            self.spans.push((from, self.text.len()));
        }
    }

    /// Appends `part` (ASCII) to the word being written, lower-cased.
    fn push_lowercase(&mut self, part: &str) {
        let from = self.text.len();
        self.text.push_str(part);
        self.text[from..].make_ascii_lowercase();
    }

    /// A character that is a word of its own (punctuation, a CJK ideograph).
    fn push_alone(&mut self, c: char) {
        self.end_word();
        self.text.push(c);
        self.end_word();
    }

    #[cfg(test)]
    fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

/// BERT's basic tokenizer: lowercase, accents stripped, split on white space and punctuation,
/// each CJK ideograph a word of its own, control characters dropped.
fn basic_words(text: &str) -> Words {
    match text.is_ascii() {
        true => ascii_words(text),
        false => words_of(text.chars().flat_map(char::to_lowercase).nfd()),
    }
}

/// Bytes reserved for a text's words at first: an item's start, where [`MAX_WORDS`] ends most.
const WORDS_BYTES: usize = 4096;

/// How [`ascii_words`] reads a byte.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ascii {
    /// A letter or a digit: part of a word.
    Word,
    /// White space (a vertical tab too, as Unicode has it): ends a word.
    Space,
    /// Punctuation: a word of its own.
    Punctuation,
    /// Any other control character: dropped, the word it is in goes on.
    Control,
}

const ASCII_CLASS: [Ascii; 128] = {
    let mut class = [Ascii::Word; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        class[b] = if c.is_ascii_whitespace() || c == 0x0B {
            Ascii::Space
        } else if c.is_ascii_control() {
            Ascii::Control
        } else if c.is_ascii_punctuation() {
            Ascii::Punctuation
        } else {
            Ascii::Word
        };
        b += 1;
    }
    class
};

/// [`words_of`] for ASCII text: no accent to strip, nothing to decompose, no CJK (most items are
/// ASCII, and the Unicode path cost a fifth of embedding one). Bytes are classed through a table
/// and each run of word bytes is copied and lower-cased as one: classing and pushing a byte at a
/// time cost ~4,000 instructions more a Debian item (6% of embedding one).
fn ascii_words(text: &str) -> Words {
    let mut words = Words::with_capacity(text.len().min(WORDS_BYTES));
    // Where the word bytes not yet copied start.
    let mut run = 0;
    for (at, &b) in text.as_bytes().iter().enumerate() {
        let class = ASCII_CLASS[usize::from(b & 0x7F)];
        if class == Ascii::Word {
            continue;
        }
        words.push_lowercase(&text[run..at]);
        run = at + 1;
        match class {
            Ascii::Space => words.end_word(),
            Ascii::Punctuation => words.push_alone(char::from(b)),
            Ascii::Control | Ascii::Word => {}
        }
        if words.len() > MAX_WORDS {
            return words;
        }
    }
    words.push_lowercase(&text[run..]);
    words.end_word();
    words
}

/// The words of lower-cased, decomposed characters (see [`basic_words`]).
fn words_of(chars: impl Iterator<Item = char>) -> Words {
    let mut words = Words::with_capacity(WORDS_BYTES);
    for c in chars {
        if is_combining_mark(c) || c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        if c.is_whitespace() {
            words.end_word();
        } else if is_cjk(c) || c.is_ascii_punctuation() || !(c.is_alphanumeric() || c.is_ascii()) {
            words.push_alone(c);
        } else {
            words.text.push(c);
        }
        if words.len() > MAX_WORDS {
            break;
        }
    }
    words.end_word();
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
            assert_eq!(ascii_words(&text).to_vec(), unicode.to_vec(), "{text:?}");
        }
    }

    /// BERT's WordPiece as written in its reference: each piece tried spelt out (`##` and all),
    /// from the rest of the word down to one character.
    fn spelt_out(vocab: &FxHashMap<String, u32>, unk: u32, word: &str) -> Option<Vec<u32>> {
        if word.chars().count() > MAX_WORD_CHARS {
            return None;
        }
        let (mut ids, mut start) = (Vec::new(), 0);
        while start < word.len() {
            let mut end = word.len();
            let found = loop {
                if end == start {
                    break None;
                }
                let piece = format!("{}{}", if start > 0 { "##" } else { "" }, &word[start..end]);
                if let Some(&id) = vocab.get(&piece) {
                    break Some(id);
                }
                end = word[..end].char_indices().next_back().unwrap().0;
            };
            ids.extend(found?.ne(&unk).then_some(found?));
            start = end;
        }
        Some(ids)
    }

    #[test]
    fn pieces_are_found_as_spelling_each_out_finds_them() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Letters of one to four bytes, so that pieces end inside and beside multi-byte ones; `#`
        // only in pieces (a word never holds one: it is punctuation, a word of its own).
        let alphabet = ['a', 'b', 'c', 'é', 'ß', '中', '文', '𝔸', '#'];
        let word = |next: &mut dyn FnMut() -> u64, most: u64, letters: usize| -> String {
            (0..1 + next() % most).map(|_| alphabet[(next() % letters as u64) as usize]).collect()
        };
        for case in 0..3_000 {
            let mut vocab = FxHashMap::default();
            vocab.insert("[UNK]".to_string(), 0);
            for id in 1..1 + next() % 40 {
                let piece = word(&mut next, 6, alphabet.len());
                let piece = if next() % 2 == 0 { format!("##{piece}") } else { piece };
                vocab.insert(piece, id as u32);
            }
            let pieces = WordPiece::new(vocab.clone(), 0);
            for _ in 0..20 {
                let w = word(&mut next, if case % 100 == 0 { 120 } else { 12 }, alphabet.len() - 1);
                let mut ids = Vec::new();
                let found = pieces.push_pieces(&w, &mut ids).then_some(ids);
                assert_eq!(found, spelt_out(&vocab, 0, &w), "{w:?} with {vocab:?}");
            }
        }
    }
}
