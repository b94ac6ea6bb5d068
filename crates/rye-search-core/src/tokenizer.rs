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
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Name under which the tokenizer is registered with Tantivy.
pub const TOKENIZER_NAME: &str = "rye_ident";

/// Tokens longer than this (in bytes) are dropped: they are hashes or data, not words.
const MAX_TOKEN_BYTES: usize = 64;

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

/// Letters, digits and combining marks: a mark belongs to the letter before it (NFD accents,
/// Devanagari and Thai vowel signs), so it never splits a word. [`ALPHABETS`] characters are
/// looked up: the rule searches Unicode's tables, a tenth of previewing Russian text.
pub(crate) fn is_word_char(c: char) -> bool {
    match alphabet_index(c).and_then(|at| alphabet_word_chars().get(at)) {
        Some(&word) => word,
        None => is_word_char_by_rule(c),
    }
}

fn is_word_char_by_rule(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// Which [`ALPHABETS`] characters are word characters, built once from the rule.
fn alphabet_word_chars() -> &'static [bool] {
    static WORD: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    WORD.get_or_init(|| ALPHABETS.map(is_word_char_by_rule).collect())
}

pub(crate) fn is_joiner(c: char) -> bool {
    c == '_' || c == '-'
}

/// Byte spans of the words of `text`: runs of alphanumerics, possibly joined by `_`/`-` between
/// them. Scans in place, an ASCII byte at a time (a character is decoded only beyond ASCII):
/// indexing calls this for every text field of every document.
fn word_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
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
fn char_at(text: &str, at: usize) -> Option<(bool, usize)> {
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
fn is_plain(word: &str) -> bool {
    word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

fn make_word(raw: &str, start: usize, end: usize) -> Word {
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
fn joined_pieces(raw: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
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

/// A part as the index stores it: each character lower-cased, then folded (see [`fold`]).
fn fold_part(piece: &str) -> String {
    // ASCII (most parts): lower-casing is all there is to do.
    if piece.is_ascii() {
        return piece.to_ascii_lowercase();
    }
    if let Some(folded) = fold_alphabetic(piece) {
        return folded;
    }
    fold(piece.chars().flat_map(char::to_lowercase).collect())
}

/// Scripts written without spaces between words, indexed as overlapping pairs of characters:
/// Han, kana, Hangul, and Thai, Lao, Khmer and Myanmar (pairs need no dictionary, and a word
/// inside a run is found by its characters, as in CJK).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3400..=0x4DBF // CJK Extension A
        | 0x4E00..=0x9FFF // CJK Unified Ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF) // CJK Extensions B–F
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
fn cjk_pieces(piece: &str) -> Vec<(usize, usize, String)> {
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

/// How text is compared: lower-cased, compatibility forms and Latin diacritics folded. Query
/// patterns (wildcards) go through this too, so they meet the terms as indexed.
pub fn normalize(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    if let Some(folded) = fold_alphabetic(text) {
        return folded;
    }
    fold(text.to_lowercase())
}

/// Latin letters beyond ASCII (Latin-1, Extended-A and B), Greek and Cyrillic: most of what
/// takes European text beyond ASCII.
const ALPHABETS: std::ops::RangeInclusive<char> = '\u{c0}'..='\u{52f}';

/// `text` lower-cased and folded as [`fold`] would, when it is ASCII and [`ALPHABETS`] letters
/// that fold one by one (none else): each such letter's form is looked up, where [`fold`]
/// lower-cased the text, checked it for NFKC and decomposed each letter (a German, French or
/// Russian word cost ten times an ASCII word to tokenise). None for any other text.
pub(crate) fn fold_alphabetic(text: &str) -> Option<String> {
    fold_letters(text, |_, _| None)
}

/// `text` with its words folded as [`fold_alphabetic`] folds them, letters of scripts written
/// without spaces as they are, and each character that is not part of a word (`’`, `—`) written
/// as a space: each token of `text` is a piece of it, or of it without its joiners. None when a
/// letter of it is not folded alone.
pub(crate) fn fold_words(text: &str) -> Option<String> {
    fold_letters(text, |c, out| {
        match c {
            _ if !is_word_char(c) => out.push(' '),
            // A letter of a script written without spaces is its own form where NFKC keeps it and
            // it is no mark (a kana voicing mark composes with the kana before it).
            _ if is_cjk(c) && !is_combining_mark(c) && is_nfkc_quick([c].into_iter()) == IsNormalized::Yes => {
                out.push(c)
            }
            _ => return None,
        }
        Some(())
    })
}

/// `text` with ASCII lower-cased and [`ALPHABETS`] letters in their looked-up forms; any other
/// character is written by `other`, or ends it with None.
fn fold_letters(text: &str, other: impl Fn(char, &mut String) -> Option<()>) -> Option<String> {
    let forms = alphabet_forms();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        match alphabet_index(c).and_then(|at| forms.get(at)?.as_deref()) {
            Some(form) => out.push_str(form),
            None => other(c, &mut out)?,
        }
    }
    Some(out)
}

/// Where `c` is in [`ALPHABETS`] tables, if at or after its start.
fn alphabet_index(c: char) -> Option<usize> {
    (c as usize).checked_sub(*ALPHABETS.start() as usize)
}

/// The form [`fold`] gives each [`ALPHABETS`] character, lower-cased, when it gives it whatever
/// surrounds it: the character lower-cases to one character, which NFKC leaves as it is, and is
/// no mark (so the text around it is NFKC too, and no rule of [`fold`] looks at its neighbours;
/// a final `Σ`, which lower-cases to `ς` in a word, folds to `σ` either way). Built once from
/// [`fold`] itself, so the two cannot disagree.
fn alphabet_forms() -> &'static [Option<Box<str>>] {
    static FORMS: std::sync::OnceLock<Vec<Option<Box<str>>>> = std::sync::OnceLock::new();
    FORMS.get_or_init(|| {
        ALPHABETS
            .map(|c| {
                let mut lower = c.to_lowercase();
                let (Some(l), None) = (lower.next(), lower.next()) else { return None };
                let alone = is_nfkc_quick([c, l].into_iter()) == IsNormalized::Yes;
                (alone && !is_combining_mark(l)).then(|| fold(l.to_string()).into_boxed_str())
            })
            .collect()
    })
}

/// Folds lower-case text to how it is indexed: compatibility forms to their plain letters
/// (NFKC: `ﬁ` → `fi`, `Ａ` → `a`), Latin letters to their base letters (`é` → `e`, `ß` → `ss`,
/// `ø` → `o`, the dot `İ` leaves on `i`), Greek final sigma to σ. The marks people leave out
/// when they type go too: Greek accents (`καλημέρα` is `καλημερα`), Russian `ё` (`ёлка` is
/// `елка`) and stress marks, Arabic vowel marks and tatweel with the alef, yeh and teh marbuta
/// forms (`كِتَاب` is `كتاب`, `أحمد` is `احمد`), Hebrew points (`סֵפֶר` is `ספר`). Letters stay
/// letters (`й` is not `и`, `ї` is not `і`), and the signs of Indic and Thai scripts stay.
fn fold(word: String) -> String {
    if word.is_ascii() {
        return word;
    }
    let word = if is_nfkc_quick(word.chars()) == IsNormalized::Yes {
        word
    } else {
        // NFKC can bring back capitals (`ℌ` → `H`): lower-case again.
        word.nfkc().flat_map(char::to_lowercase).collect()
    };
    if word.is_ascii() {
        return word;
    }
    let mut out = String::with_capacity(word.len());
    // The script of the last letter: a mark after it is dropped when that script's readers
    // leave such marks out (marks NFKC could not compose onto it: `i` + dot above from `İ`).
    let mut after = Script::Other;
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
            // Final sigma is a position-dependent form of σ: lower-casing a whole word writes ς
            // where lower-casing its letters one by one writes σ.
            'ς' => out.push('σ'),
            'ё' => out.push('е'),
            'آ' | 'أ' | 'إ' | 'ٱ' => out.push('ا'),
            'ى' => out.push('ي'),
            'ة' => out.push('ه'),
            _ if after.drops(c) => {}
            // Precomposed Latin and Greek letters: their base letter.
            '\u{c0}'..='\u{24f}' | '\u{1e00}'..='\u{1eff}' | '\u{386}'..='\u{3ce}' | '\u{1f00}'..='\u{1fff}' => {
                out.extend(std::iter::once(c).nfd().filter(|d| !('\u{300}'..='\u{36f}').contains(d)));
            }
            _ => out.push(c),
        }
        if !is_combining_mark(c) {
            after = Script::of(c);
        }
    }
    out
}

/// Scripts whose readers type some marks or none (see [`fold`]).
#[derive(Clone, Copy)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
    Arabic,
    Hebrew,
    Other,
}

impl Script {
    fn of(c: char) -> Script {
        match c {
            'a'..='z' | 'A'..='Z' | '\u{c0}'..='\u{24f}' | '\u{1e00}'..='\u{1eff}' => Script::Latin,
            '\u{370}'..='\u{3ff}' | '\u{1f00}'..='\u{1fff}' => Script::Greek,
            '\u{400}'..='\u{4ff}' => Script::Cyrillic,
            '\u{600}'..='\u{6ff}' | '\u{750}'..='\u{77f}' | '\u{8a0}'..='\u{8ff}' => Script::Arabic,
            '\u{5d0}'..='\u{5ff}' => Script::Hebrew,
            _ => Script::Other,
        }
    }

    /// Whether `c`, after a letter of this script, is a mark its readers leave out.
    fn drops(self, c: char) -> bool {
        match self {
            Script::Latin | Script::Greek => ('\u{300}'..='\u{36f}').contains(&c),
            // Stress marks only: a breve or diaeresis makes another letter (`й`, `ї`).
            Script::Cyrillic => matches!(c, '\u{300}' | '\u{301}'),
            // Vowel marks, Quranic annotation marks, tatweel (a stretch of the line).
            Script::Arabic => matches!(c,
                '\u{610}'..='\u{61a}' | '\u{640}' | '\u{64b}'..='\u{65f}' | '\u{670}'
                | '\u{6d6}'..='\u{6dc}' | '\u{6df}'..='\u{6e4}' | '\u{6e7}' | '\u{6e8}' | '\u{6ea}'..='\u{6ed}'),
            // Points and cantillation (not maqaf or sof pasuq, which are punctuation).
            Script::Hebrew => matches!(
                c,
                '\u{591}'..='\u{5bd}' | '\u{5bf}' | '\u{5c1}' | '\u{5c2}' | '\u{5c4}' | '\u{5c5}' | '\u{5c7}'
            ),
            Script::Other => false,
        }
    }
}

/// `fileSystem` → `file`, `system`; `HTTPServer` → `http`, `server`. Digits stay attached.
/// Pushes the byte ranges of `raw[a..b]`'s pieces.
fn camel_pieces(raw: &str, a: usize, b: usize, out: &mut Vec<(usize, usize)>) {
    match raw[a..b].is_ascii() {
        true => ascii_camel_pieces(raw.as_bytes(), a, b, out),
        false => char_camel_pieces(raw, a, b, out),
    }
}

fn char_camel_pieces(raw: &str, a: usize, b: usize, out: &mut Vec<(usize, usize)>) {
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
fn ascii_camel_pieces(raw: &[u8], a: usize, b: usize, out: &mut Vec<(usize, usize)>) {
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
    // One ASCII word (what a preview tokenises around each find) is its only span.
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric()) {
        visit_word(text, 0, text.len(), 0, &mut lower, &mut visit);
        return;
    }
    let mut position = 0usize;
    for (start, end) in word_spans(text) {
        position += visit_word(&text[start..end], start, end, position, &mut lower, &mut visit);
    }
}

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
pub struct IdentTokenizer;

pub struct VecTokenStream {
    tokens: Vec<Token>,
    index: usize,
}

impl VecTokenStream {
    pub fn new(tokens: Vec<Token>) -> Self {
        VecTokenStream { tokens, index: 0 }
    }
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
        VecTokenStream::new(tokens(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<(String, usize)> {
        tokens(s).into_iter().map(|t| (t.text, t.position)).collect()
    }

    #[test]
    fn word_characters_looked_up_are_those_of_the_rule() {
        for c in (0..0x3000).filter_map(char::from_u32) {
            assert_eq!(is_word_char(c), is_word_char_by_rule(c), "{c:?}");
        }
    }

    #[test]
    fn letters_looked_up_fold_as_the_general_rules_fold_them() {
        // Every letter the table holds, alone and beside ASCII, then random words of ASCII,
        // those letters and characters the table leaves to the general rules (marks, `İ`, `ŉ`,
        // `ſ`, `ǅ`, CJK, compatibility forms), with final sigmas.
        let general = |t: &str| fold(t.to_lowercase());
        let general_part = |t: &str| fold(t.chars().flat_map(char::to_lowercase).collect());
        let mut words: Vec<String> =
            ALPHABETS.flat_map(|c| [c.to_string(), format!("x{c}Y"), format!("{c}{c}"), format!("{c}Σ")]).collect();
        let others =
            ['a', 'Z', '7', '\u{301}', '\u{130}', '\u{149}', '\u{17f}', 'ς', 'Σ', '中', 'ﬁ', 'Ａ', '\u{1e9e}', 'ǅ'];
        let letters: Vec<char> = ALPHABETS.collect();
        let mut seed = 3u64;
        let mut draw = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..20_000 {
            let len = 1 + draw(8);
            words.push(
                (0..len)
                    .map(|_| if draw(4) == 0 { others[draw(others.len())] } else { letters[draw(letters.len())] })
                    .collect(),
            );
        }
        let mut looked_up = 0;
        for word in &words {
            assert_eq!(normalize(word), general(word), "{word:?}");
            assert_eq!(fold_part(word), general_part(word), "{word:?}");
            looked_up += usize::from(fold_alphabetic(word).is_some());
        }
        // Most of them took the table.
        assert!(looked_up > words.len() / 3, "{looked_up} of {}", words.len());
    }

    #[test]
    fn ascii_shortcuts_agree_with_the_general_rules() {
        // Every mix of capitals, lower case and digits up to 6 bytes, and the words around them.
        let alphabet = ['a', 'B', 'c', 'D', '7', 'x', 'Y'];
        let mut words = vec![String::new()];
        for _ in 0..6 {
            let longer: Vec<String> =
                words.iter().flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}"))).collect();
            words.extend(longer);
        }
        words.extend(["HTTPServer", "fileSystem", "x86Arch", "getHTTP2Response", "ABC", "a1B2c3"].map(String::from));
        // Joined words, with the joiners in every place, and parts past the token limit.
        let long = "x".repeat(70);
        words.extend(["create_tool", "a-B_c", "fileSystem-HTTPServer_x86", "_x", "a__b", "x--Y-"].map(String::from));
        words.extend([format!("{long}_a"), format!("a-{long}"), format!("{long}B")]);
        for w in &words {
            // Every token of the ASCII path, as the general one makes them from `make_word`.
            let (mut ascii, mut general) = (Vec::new(), Vec::new());
            let mut record = |t: TokenRef<'_>| ascii.push((t.from, t.to, t.position, t.length, t.text.to_string()));
            let n = visit_ascii_parts(w, 3, 3 + w.len(), 5, &mut record);
            let word = make_word(w, 3, 3 + w.len());
            if word.parts.len() > 1 && kept(&word.whole) {
                general.push((3, 3 + w.len(), 5, word.parts.len(), word.whole.clone()));
            }
            let joined = without_joiners(&word.whole);
            if also_joined(&word.whole, word.parts.len()) && joined != word.whole && kept(&joined) {
                general.push((3, 3 + w.len(), 5, word.parts.len(), joined));
            }
            for (k, (part, &(from, to))) in word.parts.iter().zip(&word.spans).enumerate() {
                if kept(part) {
                    general.push((from, to, 5 + k, 1, part.clone()));
                }
            }
            assert_eq!(ascii, general, "{w}");
            assert_eq!(n, word.parts.len().max(1), "{w}");
        }
        for w in &words {
            let (mut ascii, mut general) = (Vec::new(), Vec::new());
            ascii_camel_pieces(w.as_bytes(), 0, w.len(), &mut ascii);
            char_camel_pieces(w, 0, w.len(), &mut general);
            assert_eq!(ascii, general, "{w}");
            assert_eq!(normalize(w), fold(w.to_lowercase()), "{w}");
            assert_eq!(fold_part(w), fold(w.chars().flat_map(char::to_lowercase).collect()), "{w}");
        }
    }

    #[test]
    fn snake_kebab_and_camel_are_split_and_kept_whole() {
        // Joined words are also one word without their joiners: `realtime` finds `real-time`.
        let t = |s: &str, p| (String::from(s), p);
        assert_eq!(texts("create_tool"), vec![t("create_tool", 0), t("createtool", 0), t("create", 0), t("tool", 1)]);
        assert_eq!(texts("file-system"), vec![t("file-system", 0), t("filesystem", 0), t("file", 0), t("system", 1)]);
        assert_eq!(texts("Real-Time"), vec![t("real-time", 0), t("realtime", 0), t("real", 0), t("time", 1)]);
        // Longer compounds and numbered ones are not written joined.
        assert_eq!(texts("a-b-c"), vec![t("a-b-c", 0), t("a", 0), t("b", 1), t("c", 2)]);
        assert_eq!(texts("x86-64"), vec![t("x86-64", 0), t("x86", 0), t("64", 1)]);
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

    /// xorshift64: a seeded stream of test inputs.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn in_place_scanner_matches_the_reference_on_every_mix_of_characters() {
        let alphabet: Vec<char> =
            "aZ9_- .\u{e9}\u{df}\u{4e2d}\u{1f600}I\u{130}\u{301}\u{a0}\u{2014}\u{663}".chars().collect();
        let mut seed = 0x9e3779b97f4a7c15u64;
        for _ in 0..20_000 {
            next(&mut seed);
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
        let folded: Vec<String> =
            tokens("Café résumé naïve Łódź Øresund Æsir façade-Ñandú").into_iter().map(|t| t.text).collect();
        assert_eq!(
            folded,
            ["cafe", "resume", "naive", "lodz", "oresund", "aesir", "facade-nandu", "facadenandu", "facade", "nandu"]
        );
        // Other scripts keep their letters; only case folds.
        assert_eq!(texts("Поиск Йод"), vec![("поиск".into(), 0), ("йод".into(), 1)]);
        assert_eq!(texts("ΟΔΟΣ οδος"), vec![("οδοσ".into(), 0), ("οδοσ".into(), 1)]);
        assert_eq!(normalize("ΟΔΟΣ"), "οδοσ");
        assert_eq!(normalize("CAFÉ*"), "cafe*");
        let long = "a".repeat(100);
        assert!(texts(&long).is_empty());
    }

    /// The tokens of `s` as indexed, space-separated.
    fn folded(s: &str) -> String {
        tokens(s).into_iter().map(|t| t.text).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn compatibility_forms_turkish_i_and_marks_fold_like_their_letters() {
        assert_eq!(folded("ﬁle ＡＢＣ ℌello"), "file abc hello");
        assert_eq!(folded("İstanbul ıstanbul ISTANBUL"), "istanbul istanbul istanbul");
        // NFD accents are part of their word and fold like the composed letter.
        assert_eq!(folded("Cafe\u{301}s Café"), "cafes cafe");
        // Devanagari vowel signs do not split a word.
        assert_eq!(folded("नमस्ते"), "नमस्ते");
        // Cyrillic й stays й in either form.
        assert_eq!(folded("и\u{306}од йод"), "йод йод");
    }

    #[test]
    fn marks_people_leave_out_when_they_type_fold_away_and_letters_stay() {
        // Greek accents, composed or not, polytonic too.
        assert_eq!(folded("Καλημέρα ΐ ἀρχή καλημε\u{301}ρα"), "καλημερα ι αρχη καλημερα");
        // Russian ё and stress marks; й, Ukrainian ї and Belarusian ў stay letters.
        assert_eq!(folded("Ёлка ещё моло\u{301}ко й ї ў"), "елка еще молоко й ї ў");
        // Arabic vowel marks, tatweel, alef with hamza or madda, alef maqsura, teh marbuta.
        assert_eq!(folded("كِتَابًا أحمد إلى آخر مكتبــة"), "كتابا احمد الي اخر مكتبه");
        // Hebrew points and cantillation; maqaf still joins nothing it did not join before.
        assert_eq!(folded("סֵפֶר שָׁלוֹם"), "ספר שלום");
        // Signs that make Indic and Thai letters are kept.
        assert_eq!(folded("हिन्दी"), "हिन्दी");
        assert_eq!(normalize("ΚΑΛΗΜΈΡΑ"), "καλημερα");
    }

    #[test]
    fn thai_runs_become_pairs_so_words_inside_long_runs_are_found() {
        let run = "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ";
        assert!(run.len() > MAX_TOKEN_BYTES);
        let pairs: Vec<String> = tokens(run).into_iter().map(|t| t.text).collect();
        assert_eq!(pairs.len(), run.chars().count() - 1, "{pairs:?}");
        assert!(pairs.contains(&"ไท".to_string()) && pairs.contains(&"ทย".to_string()));
    }

    #[test]
    fn cjk_runs_become_overlapping_pairs() {
        let pairs = |s: &str| texts(s).into_iter().map(|(t, p)| format!("{t}@{p}")).collect::<Vec<_>>().join(" ");
        assert_eq!(pairs("中文搜索"), "中文搜索@0 中文@0 文搜@1 搜索@2");
        assert_eq!(pairs("中文 搜索"), "中文@0 搜索@1");
        assert_eq!(pairs("中 x"), "中@0 x@1");
        assert_eq!(pairs("Rust语言"), "rust语言@0 rust@0 语言@1");
        assert_eq!(
            pairs("ひらがなカタカナ 한국어"),
            "ひらがなカタカナ@0 ひら@0 らが@1 がな@2 なカ@3 カタ@4 タカ@5 カナ@6 한국어@7 한국@7 국어@8"
        );
    }

    /// Every token covers exactly the original characters it came from, on char boundaries,
    /// in every script the tokenizer treats specially: folding, case changes that change
    /// lengths (`İ`, `ẞ`), identifier parts with any joiners, CJK pairs.
    #[test]
    fn token_offsets_cover_the_characters_they_came_from() {
        let alphabet = [
            "a",
            "Z",
            "9",
            "_",
            "-",
            "--",
            "__",
            " ",
            ".",
            "é",
            "É",
            "ß",
            "ẞ",
            "İ",
            "ı",
            "ﬁ",
            "Ａ",
            "ｂ",
            "Ж",
            "ж",
            "Σ",
            "ς",
            "ا",
            "ש",
            "क",
            "\u{94d}",
            "ก",
            "\u{e31}",
            "中",
            "文",
            "搜",
            "ひ",
            "カ",
            "한",
            "😀",
            "\u{200d}",
            "\u{200b}",
            "\u{feff}",
            "e\u{301}",
            "\r\n",
            "Ⅻ",
            "ǅ",
            "ŉ",
            "\u{1e9e}x",
            "x\u{130}Y",
        ];
        let mut seed = 0x2545f4914f6cdd1du64;
        for _ in 0..30_000 {
            let len = (next(&mut seed) % 16) as usize;
            let text: String = (0..len).map(|_| alphabet[(next(&mut seed) >> 33) as usize % alphabet.len()]).collect();
            for t in tokens(&text) {
                assert!(t.offset_from < t.offset_to && t.offset_to <= text.len(), "{text:?} {t:?}");
                assert!(text.is_char_boundary(t.offset_from) && text.is_char_boundary(t.offset_to), "{text:?} {t:?}");
                let source = &text[t.offset_from..t.offset_to];
                let whole = normalize(source);
                assert!(
                    t.text == fold_part(source) || t.text == whole || t.text == without_joiners(&whole),
                    "{text:?}: {t:?} from {source:?}"
                );
            }
        }
    }

    #[test]
    fn words_that_are_one_token_as_they_stand_tokenise_as_split_and_folded_words_do() {
        let mut buf = String::new();
        for raw in [
            "library",
            "Library",
            "L",
            "Z9",
            "Ab1c",
            "abc123",
            "A1B",
            "HTTPServer",
            "ABC",
            "fileSystem",
            "Éclair",
            "a_b",
        ] {
            let mut split = Vec::new();
            visit_parts(raw, 0, raw.len(), 0, &mut |t| {
                split.push((t.from, t.to, t.position, t.length, t.text.to_owned()))
            });
            match single_token(raw, &mut buf) {
                Some(token) => assert_eq!(split, vec![(0, raw.len(), 0, 1, token.to_owned())], "{raw}"),
                None => assert!(!["library", "Library", "L", "Z9", "Ab1c", "abc123"].contains(&raw), "{raw}"),
            }
        }
    }

    #[test]
    fn parts_keep_their_original_spans() {
        let spans = |s: &str| {
            tokens(s).into_iter().map(|t| format!("{}={}", t.text, &s[t.offset_from..t.offset_to])).collect::<Vec<_>>()
        };
        assert_eq!(spans("my--Ключ"), ["my--ключ=my--Ключ", "myключ=my--Ключ", "my=my", "ключ=Ключ"]);
        assert_eq!(spans("Café"), ["cafe=Café"]);
        assert_eq!(spans("dataSchlüssel"), ["dataschlussel=dataSchlüssel", "data=data", "schlussel=Schlüssel"]);
        assert_eq!(spans("中文搜"), ["中文搜=中文搜", "中文=中文", "文搜=文搜"]);
    }
}
