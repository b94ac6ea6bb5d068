//! English word forms: `tools` finds `tool`, `creating` finds `create_tool`. A parallel `stem`
//! field holds the stems of the short fields' words (title, name, description, category, tags)
//! and weighs less than the exact fields, so exact words still rank first.
//!
//! Only plain ASCII words are stemmed (after diacritic folding, most Latin text is): the
//! English stemmer has nothing to say about other scripts, numbers or identifiers, and those
//! tokens stay out of the field.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;
use tantivy::tokenizer::Tokenizer;

use crate::tokenizer::{for_each_token, BufferedTokens, TokenBuffer};

/// Name under which the stemming tokenizer is registered with Tantivy.
pub const STEM_TOKENIZER_NAME: &str = "rye_stem";

/// The stem field's boost: below every exact field (content weighs 1), so an item with the word
/// itself ranks above one with only another form of it.
pub const STEM_WEIGHT: f32 = 0.5;

/// Words shorter than this are kept out: stems of two letters match noise.
const MIN_STEM_CHARS: usize = 3;

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Stems each thread remembers before it starts over: texts repeat their words (Zipf), and a
/// stem costs several times a lookup. About 1.5 MB a thread, as only words of at most
/// [`REMEMBERED_WORD_BYTES`] are kept (a query's words may be longer than any indexed token).
const REMEMBERED_STEMS: usize = 16 * 1024;
const REMEMBERED_WORD_BYTES: usize = 24;

thread_local! {
    /// Plain words and their stems; `None` for a word that is its own stem.
    static STEMS: RefCell<FxHashMap<Box<str>, Option<Box<str>>>> = RefCell::default();
}

/// The stem of one lower-cased token, or None when the token is not a plain English word.
pub fn stem(token: &str) -> Option<Cow<'_, str>> {
    with_stem(token, |stem| match stem.len() == token.len() && stem == token {
        true => Cow::Borrowed(token),
        false => Cow::Owned(stem.to_owned()),
    })
}

/// `f` of the stem of `token` (see [`stem`]), without making a string of a remembered stem.
fn with_stem<R>(token: &str, f: impl FnOnce(&str) -> R) -> Option<R> {
    let plain = token.len() >= MIN_STEM_CHARS && token.bytes().all(|b| b.is_ascii_lowercase());
    if !plain {
        return None;
    }
    if token.len() > REMEMBERED_WORD_BYTES {
        return Some(f(&stemmer().stem(token)));
    }
    STEMS.with_borrow_mut(|stems| {
        if let Some(stem) = stems.get(token) {
            return Some(f(stem.as_deref().unwrap_or(token)));
        }
        if stems.len() >= REMEMBERED_STEMS {
            stems.clear();
        }
        let stem = match stemmer().stem(token) {
            Cow::Borrowed(_) => None,
            Cow::Owned(stem) => Some(stem.into_boxed_str()),
        };
        let out = f(stem.as_deref().unwrap_or(token));
        stems.insert(token.into(), stem);
        Some(out)
    })
}

/// The part of a stem that every word with that stem begins with: the stem itself, but for a
/// last letter the stemmer may have written rather than kept (`strategi` ← strategy, `move` ←
/// moving, `possibl` ← possibility, `sky` ← skies), and for its three irregular forms (`die` ←
/// dying, `lie` ← lying, `tie` ← tying). The stemmer's other rules only cut endings (checked
/// over the 77,140 words of the Debian corpus).
pub fn prefix_of_its_words(stem: &str) -> &str {
    match stem.as_bytes() {
        b"die" | b"lie" | b"tie" => &stem[..1],
        b"sky" | [_, _, .., b'e' | b'i'] | [_, .., b'b', b'l'] => &stem[..stem.len() - 1],
        _ => stem,
    }
}

/// The identifier-aware tokenizer's tokens, stemmed; tokens that are not plain words dropped.
#[derive(Clone, Default)]
pub struct StemTokenizer {
    buffer: TokenBuffer,
}

impl Tokenizer for StemTokenizer {
    type TokenStream<'a> = BufferedTokens<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> BufferedTokens<'a> {
        let mut fill = self.buffer.refill();
        for_each_token(text, |t| {
            with_stem(t.text, |stem| fill.push(&t, stem));
        });
        fill.stream()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::TokenStream;

    #[test]
    fn remembered_stems_are_the_stemmer_s() {
        let mut words: Vec<String> =
            ["running", "runs", "tools", "tool", "generalizations", "sky", "skies", "dying"].map(String::from).into();
        words.push("internationalizationsandlocalizations".into());
        // More distinct words than are remembered, so the memory starts over in between.
        let letters = |mut i: usize| {
            let mut w = String::from("x");
            while i > 0 {
                w.push(char::from(b'a' + (i % 26) as u8));
                i /= 26;
            }
            w + "ings"
        };
        words.extend((0..REMEMBERED_STEMS + 10).map(letters));
        for _ in 0..2 {
            for w in &words {
                let expected = w.bytes().all(|b| b.is_ascii_lowercase()).then(|| stemmer().stem(w).into_owned());
                assert_eq!(stem(w).map(Cow::into_owned), expected, "{w}");
            }
        }
        assert_eq!(stem("ab"), None);
        assert_eq!(stem("Tools"), None);
    }

    #[test]
    fn every_word_begins_with_the_prefix_of_its_stem() {
        let words = [
            "strategy",
            "strategies",
            "history",
            "any",
            "sliding",
            "moving",
            "using",
            "having",
            "hoping",
            "hopping",
            "scalability",
            "possibility",
            "possibly",
            "possible",
            "capabilities",
            "readability",
            "tying",
            "lying",
            "dying",
            "skies",
            "ties",
            "cries",
            "generator",
            "generation",
            "organization",
            "organizer",
            "relational",
            "conditional",
            "radically",
            "fluency",
            "valency",
            "analogy",
            "gently",
            "early",
            "only",
            "areas",
            "running",
            "tools",
            "created",
            "creator",
            "effective",
            "hopefulness",
            "news",
            "idly",
            "library",
            "libraries",
        ];
        for word in words {
            let stem = stem(word).expect("a plain word");
            assert!(word.starts_with(prefix_of_its_words(&stem)), "{word} → {stem}");
        }
        // The prefix is the whole stem whenever it can be: a shorter one is found in more words.
        assert_eq!(prefix_of_its_words("area"), "area");
        assert_eq!(prefix_of_its_words("tool"), "tool");
    }

    fn stems(text: &str) -> Vec<String> {
        let mut tokenizer = StemTokenizer::default();
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn word_forms_meet_at_one_stem() {
        assert_eq!(stem("tools"), stem("tool"));
        assert_eq!(stem("creating"), stem("create"));
        assert_eq!(stems("create_tool"), ["createtool", "creat", "tool"]);
        assert_eq!(stems("Café 中文 v2 x ab Searching"), ["cafe", "search"]);
        assert_eq!(stem("über"), None);
    }
}
