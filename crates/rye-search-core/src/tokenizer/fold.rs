//! Folding: the forms a word is indexed and searched in (NFKC, case, the marks people leave
//! out of Latin, Greek and Cyrillic letters).

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use super::chars::{alphabet_index, is_cjk, is_word_char, Script, ALPHABETS};

/// A part as the index stores it: each character lower-cased, then folded (see [`fold`]).
pub(super) fn fold_part(piece: &str) -> String {
    // ASCII (most parts): lower-casing is all there is to do.
    if piece.is_ascii() {
        return piece.to_ascii_lowercase();
    }
    if let Some(folded) = fold_alphabetic(piece) {
        return folded;
    }
    fold(piece.chars().flat_map(char::to_lowercase).collect())
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
pub(super) fn fold_letters(text: &str, other: impl Fn(char, &mut String) -> Option<()>) -> Option<String> {
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

/// The form [`fold`] gives each [`ALPHABETS`] character, lower-cased, when it gives it whatever
/// surrounds it: the character lower-cases to one character, which NFKC leaves as it is, and is
/// no mark (so the text around it is NFKC too, and no rule of [`fold`] looks at its neighbours;
/// a final `Σ`, which lower-cases to `ς` in a word, folds to `σ` either way). Built once from
/// [`fold`] itself, so the two cannot disagree.
pub(super) fn alphabet_forms() -> &'static [Option<Box<str>>] {
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
pub(super) fn fold(word: String) -> String {
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
