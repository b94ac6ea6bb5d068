//! Identifier-aware tokenizer: `create_tool`, `file-system` and `fileSystem` are indexed whole
//! AND by their parts, so a search finds them by either; a joined word also as one word
//! (`filesystem`), so `realtime` finds `real-time` and `real-time` finds `realtime`.
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

mod chars;
mod fold;
#[cfg(test)]
mod tests;
mod words;

pub(crate) use chars::{is_joiner, is_word_char};
pub(crate) use fold::fold_words;
pub use fold::normalize;
use words::{ascii_camel_pieces, is_plain, joined_pieces, make_word, word_spans};
pub use words::{lone_word_character, words, Word};

/// Name under which the tokenizer is registered with Tantivy.
pub const TOKENIZER_NAME: &str = "rye_ident";

/// Tokens longer than this (in bytes) are dropped: they are hashes or data, not words.
const MAX_TOKEN_BYTES: usize = 64;

/// The tokens of a text, as the index stores them.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::with_capacity(text.len() / 6);
    for_each_token(text, |t| {
        out.push(Token {
            offset_from: t.from,
            offset_to: t.to,
            position: t.position,
            text: t.text.to_owned(),
            position_length: t.length,
        })
    });
    out
}

/// One token, borrowed: a plain word is its own text, so visiting it allocates nothing.
pub struct TokenRef<'a> {
    pub from: usize,
    pub to: usize,
    pub position: usize,
    /// Positions it spans: the parts' count for a compound's whole, else 1.
    pub length: usize,
    pub text: &'a str,
}

/// Visits the tokens of a text in order, as the index stores them (the one owner of what a token
/// is; [`tokens`] collects them). Previews call this for every hit, so plain words — most of
/// any text — are passed as slices of `text`.
pub fn for_each_token(text: &str, mut visit: impl FnMut(TokenRef<'_>)) {
    let mut lower = String::new();
    match text.is_ascii() {
        true => for_each_ascii_token(text, &mut lower, &mut visit),
        false => for_each_word_token(text, &mut lower, &mut visit),
    }
}

/// [`for_each_token`] of any text, a word at a time.
fn for_each_word_token(text: &str, lower: &mut String, visit: &mut impl FnMut(TokenRef<'_>)) {
    let mut position = 0usize;
    for (start, end) in word_spans(text) {
        position += visit_word(&text[start..end], start, end, position, lower, visit);
    }
}

/// [`for_each_token`] of ASCII text (most of what is indexed): one pass over its bytes, a table
/// lookup each, finds each word as [`word_spans`] does and whether it is plain, so a plain word
/// is passed on as it is found. The general path decodes each character, then scans each word
/// again: the 10,000 Debian items' fields took 484M instructions to tokenise that way, 293M so.
fn for_each_ascii_token(text: &str, lower: &mut String, visit: &mut impl FnMut(TokenRef<'_>)) {
    let bytes = text.as_bytes();
    let class = |at: usize| bytes.get(at).map_or(0, |&b| ASCII_CLASS[usize::from(b)]);
    let mut at = 0;
    let mut position = 0usize;
    loop {
        while at < bytes.len() && class(at) & WORD == 0 {
            at += 1;
        }
        if at == bytes.len() {
            return;
        }
        let start = at;
        // What the word's bytes hold besides lower-case letters and digits.
        let mut held = 0;
        loop {
            while class(at) & WORD != 0 {
                held |= class(at);
                at += 1;
            }
            // Joiners belong to the word only when a word character follows them.
            let mut after = at;
            while class(after) & JOINER != 0 {
                after += 1;
            }
            if after == at || class(after) & WORD == 0 {
                break;
            }
            held |= JOINER;
            at = after;
        }
        let raw = &text[start..at];
        position += match held & (UPPER | JOINER) {
            0 => {
                if raw.len() <= MAX_TOKEN_BYTES {
                    visit(TokenRef { from: start, to: at, position, length: 1, text: raw });
                }
                1
            }
            _ => visit_word(raw, start, at, position, lower, visit),
        };
    }
}

/// Classes of ASCII bytes ([`for_each_ascii_token`]): word characters are letters and digits.
const WORD: u8 = 1;
const UPPER: u8 = 2;
const JOINER: u8 = 4;
const ASCII_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = match c {
            b'a'..=b'z' | b'0'..=b'9' => WORD,
            b'A'..=b'Z' => WORD | UPPER,
            b'_' | b'-' => JOINER,
            _ => 0,
        };
        b += 1;
    }
    table
};

/// Visits the tokens of the word `raw` (`text[start..end]`) from `position`; returns the
/// positions it takes.
fn visit_word(
    raw: &str,
    start: usize,
    end: usize,
    position: usize,
    lower: &mut String,
    visit: &mut impl FnMut(TokenRef<'_>),
) -> usize {
    match single_token(raw, lower) {
        Some(token) => {
            if token.len() <= MAX_TOKEN_BYTES {
                visit(TokenRef { from: start, to: end, position, length: 1, text: token });
            }
            1
        }
        None => visit_parts(raw, start, end, position, visit),
    }
}

/// The token of a word that is one token as it stands: lower-case ASCII letters and digits
/// (most words: itself), or those after one capital (`Library`: lower-cased into `buf`). None
/// for any other word, which [`visit_parts`] splits and folds.
fn single_token<'a>(raw: &'a str, buf: &'a mut String) -> Option<&'a str> {
    if is_plain(raw) {
        return Some(raw);
    }
    let first = *raw.as_bytes().first()?;
    if !first.is_ascii_uppercase() || !is_plain(&raw[1..]) {
        return None;
    }
    buf.clear();
    buf.push_str(raw);
    buf.make_ascii_lowercase();
    Some(buf)
}

/// Visits a word's tokens (its whole, for a compound, then its parts); returns the positions it
/// takes.
fn visit_parts(raw: &str, start: usize, end: usize, position: usize, visit: &mut impl FnMut(TokenRef<'_>)) -> usize {
    if raw.is_ascii() {
        return visit_ascii_parts(raw, start, end, position, visit);
    }
    let word = make_word(raw, start, end);
    let parts = word.parts.iter().zip(&word.spans).map(|(part, &(from, to))| (part.as_str(), from, to));
    visit_compound(&word.whole, (start, end), parts, position, visit)
}

/// Visits a word's whole, when it has several parts (and the whole without its joiners, so that
/// `realtime` finds `real-time` and `real-time` finds `realtime`), then its parts (`(text, from,
/// to)`); returns the positions it takes.
fn visit_compound<'a>(
    whole: &'a str,
    (start, end): (usize, usize),
    parts: impl ExactSizeIterator<Item = (&'a str, usize, usize)>,
    position: usize,
    visit: &mut impl FnMut(TokenRef<'_>),
) -> usize {
    let count = parts.len();
    if count > 1 && kept(whole) {
        visit(TokenRef { from: start, to: end, position, length: count, text: whole });
    }
    if whole.contains(is_joiner) && also_joined(whole, count) {
        let joined = without_joiners(whole);
        if kept(&joined) {
            visit(TokenRef { from: start, to: end, position, length: count, text: &joined });
        }
    }
    for (k, (part, from, to)) in parts.enumerate() {
        if kept(part) {
            visit(TokenRef { from, to, position: position + k, length: 1, text: part });
        }
    }
    count.max(1)
}

/// A compound as one word (`real-time` → `realtime`, `foo_bar` → `foobar`): how it is also
/// written, and how a camel-case compound's whole already reads.
pub fn without_joiners(whole: &str) -> String {
    whole.chars().filter(|&c| !is_joiner(c)).collect()
}

/// Whether a compound of `parts` parts (its whole `whole`) is also written as one word: two
/// parts of letters (`real-time`, `e-mail`, `create_tool`). Longer compounds are names typed
/// with their joiners (`elpa-org-contrib`), and dates, versions and numbered names
/// (`2022-09-27`, `x86-64`) are not written joined: indexed joined, every compound of the
/// Debian descriptions added 74,810 terms and 15% to a build; these add 31,983. (The parts are
/// the whole's pieces: a digit in one is a digit in the whole.)
pub fn also_joined(whole: &str, parts: usize) -> bool {
    parts == 2 && !whole.contains(|c: char| c.is_numeric())
}

/// Whether a token goes into the index: not empty, and not so long it is a hash or data.
fn kept(token: &str) -> bool {
    !token.is_empty() && token.len() <= MAX_TOKEN_BYTES
}

/// [`visit_parts`] of an ASCII word, as [`make_word`] splits it: its parts are slices of its
/// lower-cased whole (lower-casing ASCII keeps every byte's place), so one string is made per
/// word, not one per part.
fn visit_ascii_parts(
    raw: &str,
    start: usize,
    end: usize,
    position: usize,
    visit: &mut impl FnMut(TokenRef<'_>),
) -> usize {
    let mut pieces = Vec::new();
    for (a, b) in joined_pieces(raw) {
        ascii_camel_pieces(raw.as_bytes(), a, b, &mut pieces);
    }
    let whole = raw.to_ascii_lowercase();
    let parts = pieces.iter().map(|&(a, b)| (&whole[a..b], start + a, start + b));
    visit_compound(&whole, (start, end), parts, position, visit)
}

#[derive(Clone, Default)]
pub struct IdentTokenizer {
    buffer: TokenBuffer,
}

impl Tokenizer for IdentTokenizer {
    type TokenStream<'a> = BufferedTokens<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> BufferedTokens<'a> {
        let mut fill = self.buffer.refill();
        for_each_token(text, |t| fill.push(&t, t.text));
        fill.stream()
    }
}

/// The tokens of one field value, in storage the next value reuses. Tantivy asks a tokenizer
/// (one per field and segment writer) for a stream per value; a `String` made for every token
/// and dropped after it was an eighth of the indexing thread's time.
#[derive(Clone, Default)]
pub struct TokenBuffer {
    tokens: Vec<Token>,
    len: usize,
}

/// Tokens one field value gives the index at most; the rest of a longer text is stored and shown,
/// not searched. Every token is held until the value is indexed (~70 bytes each, and Tantivy's
/// postings beside them): a memory-index document of 10 MB took 370 MB to add, and one of a few
/// hundred MB would have taken the machine's memory. A million tokens is ~6 MB of prose, six
/// times the largest item file read by default.
pub const MAX_VALUE_TOKENS: usize = 1_000_000;

/// Tokens kept for reuse after a value: a document's worth. A long text's many more are let go
/// once it is indexed.
const KEPT_TOKENS: usize = 4096;

impl TokenBuffer {
    /// Starts over for the next value.
    pub fn refill(&mut self) -> Refill<'_> {
        self.len = 0;
        Refill { buffer: self }
    }
}

/// A [`TokenBuffer`] being filled.
pub struct Refill<'a> {
    buffer: &'a mut TokenBuffer,
}

impl<'a> Refill<'a> {
    /// Appends `text` with `t`'s offsets and positions (none past [`MAX_VALUE_TOKENS`]).
    pub fn push(&mut self, t: &TokenRef<'_>, text: &str) {
        let b = &mut *self.buffer;
        if b.len >= MAX_VALUE_TOKENS {
            return;
        }
        if b.len == b.tokens.len() {
            b.tokens.push(Token::default());
        }
        let token = &mut b.tokens[b.len];
        token.offset_from = t.from;
        token.offset_to = t.to;
        token.position = t.position;
        token.position_length = t.length;
        token.text.clear();
        token.text.push_str(text);
        b.len += 1;
    }

    pub fn stream(self) -> BufferedTokens<'a> {
        BufferedTokens { buffer: self.buffer, index: 0 }
    }
}

/// The tokens of a [`TokenBuffer`], in order.
pub struct BufferedTokens<'a> {
    buffer: &'a mut TokenBuffer,
    index: usize,
}

impl TokenStream for BufferedTokens<'_> {
    fn advance(&mut self) -> bool {
        if self.index < self.buffer.len {
            self.index += 1;
            true
        } else {
            false
        }
    }
    fn token(&self) -> &Token {
        &self.buffer.tokens[self.index - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.buffer.tokens[self.index - 1]
    }
}

impl Drop for BufferedTokens<'_> {
    fn drop(&mut self) {
        let tokens = &mut self.buffer.tokens;
        if tokens.len() > KEPT_TOKENS {
            tokens.truncate(KEPT_TOKENS);
            tokens.shrink_to_fit();
        }
        self.buffer.len = self.buffer.len.min(KEPT_TOKENS);
    }
}
