//! Character classes: word characters and joiners, scripts, and the alphabet tables that
//! answer for Latin, Greek and Cyrillic letters without a search of Unicode's.

use unicode_normalization::char::is_combining_mark;

/// Letters, digits and combining marks: a mark belongs to the letter before it (NFD accents,
/// Devanagari and Thai vowel signs), so it never splits a word. [`ALPHABETS`] characters are
/// looked up: the rule searches Unicode's tables, a tenth of previewing Russian text.
pub(crate) fn is_word_char(c: char) -> bool {
    match alphabet_index(c).and_then(|at| alphabet_word_chars().get(at)) {
        Some(&word) => word,
        None => is_word_char_by_rule(c),
    }
}

pub(super) fn is_word_char_by_rule(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// Which [`ALPHABETS`] characters are word characters, built once from the rule.
pub(super) fn alphabet_word_chars() -> &'static [bool] {
    static WORD: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    WORD.get_or_init(|| ALPHABETS.map(is_word_char_by_rule).collect())
}

pub(crate) fn is_joiner(c: char) -> bool {
    c == '_' || c == '-'
}

/// Scripts written without spaces between words, indexed as overlapping pairs of characters:
/// Han, kana, Hangul, and Thai, Lao, Khmer and Myanmar (pairs need no dictionary, and a word
/// inside a run is found by its characters, as in CJK).
pub(super) fn is_cjk(c: char) -> bool {
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

/// Latin letters beyond ASCII (Latin-1, Extended-A and B), Greek and Cyrillic: most of what
/// takes European text beyond ASCII.
pub(super) const ALPHABETS: std::ops::RangeInclusive<char> = '\u{c0}'..='\u{52f}';

/// Where `c` is in [`ALPHABETS`] tables, if at or after its start.
pub(super) fn alphabet_index(c: char) -> Option<usize> {
    (c as usize).checked_sub(*ALPHABETS.start() as usize)
}

/// Scripts whose readers type some marks or none (see [`fold`]).
#[derive(Clone, Copy)]
pub(super) enum Script {
    Latin,
    Greek,
    Cyrillic,
    Arabic,
    Hebrew,
    Other,
}

impl Script {
    pub(super) fn of(c: char) -> Script {
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
    pub(super) fn drops(self, c: char) -> bool {
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
