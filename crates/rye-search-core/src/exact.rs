//! Exact (unscored) fields are written and compared in NFC: namespaces and metadata facets. An
//! id is looked up in each Unicode form, as files spell ids either way.

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// Facet term for exact, case-insensitive metadata filters, in NFC: a value written in NFD (as
/// some macOS tools write accents) matches the same value typed in NFC.
pub fn meta_facet(key: &str, value: &str) -> String {
    let text = format!("{}={}", key.trim().to_lowercase(), value.trim().to_lowercase());
    composed(&text)
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
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => text.to_string(),
        _ => text.nfc().collect(),
    }
}
