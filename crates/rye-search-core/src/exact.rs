//! Exact (unscored) fields are written and compared in NFC: namespaces and metadata facets. An
//! id is looked up in each Unicode form, as files spell ids either way.

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// Facet term for exact, case-insensitive metadata filters, in NFC: a value written in NFD (as
/// some macOS tools write accents) matches the same value typed in NFC.
pub fn meta_facet(key: &str, value: &str) -> String {
    let (key, value) = (key.trim(), value.trim());
    if key.is_ascii() && value.is_ascii() {
        // One string, lower-cased in place: ASCII is its own NFC (every item pays this per tag).
        let mut text = String::with_capacity(key.len() + 1 + value.len());
        text.push_str(key);
        text.push('=');
        text.push_str(value);
        text.make_ascii_lowercase();
        return text;
    }
    composed(&format!("{}={}", key.to_lowercase(), value.to_lowercase()))
}

/// `text` as given, then its NFC and NFD forms where they differ: ids are kept as files spell
/// them, so an id asked in one form is looked up in each.
pub fn unicode_forms(text: &str) -> Vec<String> {
    let mut forms = vec![text.to_string()];
    for form in [text.nfc().collect::<String>(), text.nfd().collect()] {
        if !forms.contains(&form) {
            forms.push(form);
        }
    }
    forms
}

/// `text` in NFC, the form exact (unscored) fields are compared in: namespaces and facets.
pub fn composed(text: &str) -> String {
    if text.is_ascii() {
        return text.to_string();
    }
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => text.to_string(),
        _ => text.nfc().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facets_of_ascii_are_those_of_the_general_rule() {
        let general = |k: &str, v: &str| {
            let text = format!("{}={}", k.trim().to_lowercase(), v.trim().to_lowercase());
            text.nfc().collect::<String>()
        };
        let parts =
            ["", " ", "Tag", "game::Puzzle", " x\t", "\u{b}A\u{b}", "É", "E\u{301}", "İ", "ß", "\u{a0}v\u{3000}"];
        for key in parts {
            for value in parts {
                assert_eq!(meta_facet(key, value), general(key, value), "{key:?} {value:?}");
                let joined = format!("{key}{value}");
                assert_eq!(composed(&joined), joined.nfc().collect::<String>(), "{joined:?}");
            }
        }
    }
}
