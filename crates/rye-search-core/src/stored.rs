//! Reading a hit's stored fields straight from the doc store's bytes.
//!
//! The index stores text only (id, item, then content), and Tantivy (pinned, doc store version 2)
//! writes a document as a VInt count, then per value a little-endian u32 field id, a type code
//! (0 for text), a VInt byte length and the UTF-8 bytes. Reading that directly slices the
//! strings out of the block; Tantivy's deserializer read each one through `io::Read` into a
//! growing `String`, a fifth of a rare-term search. Content comes last, so a hit without a
//! preview stops before it.

use std::borrow::Cow;

use tantivy::error::DataCorruption;

use crate::error::{Error, Result};

const TEXT_CODE: u8 = 0;

/// The stored texts of one document, in the order they were written: `(field id, bytes)`.
pub fn stored_texts(doc: &[u8]) -> StoredTexts<'_> {
    StoredTexts { rest: doc, left: None }
}

pub struct StoredTexts<'a> {
    rest: &'a [u8],
    /// Values still to read; `None` before the count is read.
    left: Option<u64>,
}

impl<'a> StoredTexts<'a> {
    fn vint(&mut self) -> Result<u64> {
        read_vint(&mut self.rest).ok_or_else(|| corrupt("a length runs past the document"))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.rest.len() < n {
            return Err(corrupt("a value runs past the document"));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn next_text(&mut self) -> Result<Option<(u32, &'a [u8])>> {
        let left = match self.left {
            Some(n) => n,
            None => self.vint()?,
        };
        if left == 0 {
            self.left = Some(0);
            return Ok(None);
        }
        self.left = Some(left - 1);
        let field = u32::from_le_bytes(self.take(4)?.try_into().expect("four bytes"));
        if self.take(1)?[0] != TEXT_CODE {
            return Err(corrupt("a stored value is not text"));
        }
        let len = usize::try_from(self.vint()?).map_err(|_| corrupt("a length is too large"))?;
        Ok(Some((field, self.take(len)?)))
    }
}

impl<'a> Iterator for StoredTexts<'a> {
    type Item = Result<(u32, &'a [u8])>;

    /// After an error, nothing more: the rest of the bytes cannot be trusted.
    fn next(&mut self) -> Option<Self::Item> {
        let next = self.next_text();
        if next.is_err() {
            self.left = Some(0);
        }
        next.transpose()
    }
}

/// Tantivy's VInt: seven bits per byte, low bits first, the last byte has the high bit set.
/// `None` when `data` ends first.
pub fn read_vint(data: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for (i, &byte) in data.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 != 0 {
            *data = &data[i + 1..];
            return Some(value);
        }
    }
    None
}

/// Stored text as a `String`; the index wrote it from one, so this fails only on corruption.
pub fn utf8(bytes: &[u8]) -> Result<String> {
    text(bytes).map(str::to_owned)
}

/// Stored text, borrowed.
pub fn text(bytes: &[u8]) -> Result<&str> {
    simdutf8::basic::from_utf8(bytes).map_err(|_| corrupt("a text is not UTF-8"))
}

/// Stored text, borrowed, and whether it is ASCII: one pass over the bytes tells both (previews
/// read every hit's content, and take a shorter path through ASCII).
pub fn text_and_ascii(bytes: &[u8]) -> Result<(&str, bool)> {
    if crate::ascii::all_ascii(bytes) {
        // SAFETY: ASCII is valid UTF-8.
        return Ok((unsafe { std::str::from_utf8_unchecked(bytes) }, true));
    }
    Ok((text(bytes)?, false))
}

fn corrupt(what: &str) -> Error {
    Error::Index(DataCorruption::comment_only(format!("stored document: {what}")).into())
}

/// Text as previews show it: whitespace runs as one space, none at either end. Content is
/// stored this way (whitespace only separates words, so it tokenises the same), which makes a
/// preview a slice of the stored text.
pub(crate) fn shown_text(text: &str) -> Cow<'_, str> {
    if is_shown_form(text) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !shown.is_empty() {
            shown.push(' ');
        }
        shown.push_str(word);
    }
    Cow::Owned(shown)
}

/// Whether the only whitespace in `text` is single spaces between words.
fn is_shown_form(text: &str) -> bool {
    // A space first, or after another, is one too many.
    let mut after_space = true;
    for c in text.chars() {
        let space = c.is_whitespace();
        if space && (c != ' ' || after_space) {
            return false;
        }
        after_space = space;
    }
    !after_space || text.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vint(mut n: u64, out: &mut Vec<u8>) {
        while n >= 128 {
            out.push((n & 127) as u8);
            n >>= 7;
        }
        out.push(n as u8 | 128);
    }

    fn text(field: u32, s: &str, out: &mut Vec<u8>) {
        out.extend_from_slice(&field.to_le_bytes());
        out.push(TEXT_CODE);
        vint(s.len() as u64, out);
        out.extend_from_slice(s.as_bytes());
    }

    #[test]
    fn reads_texts_in_order_and_rejects_what_it_cannot_read() {
        let long = "é".repeat(200); // a length over 127 takes two VInt bytes
        let mut doc = Vec::new();
        vint(3, &mut doc);
        text(1, "a/b", &mut doc);
        text(7, &long, &mut doc);
        text(4, "", &mut doc);
        let read: Vec<(u32, &[u8])> = stored_texts(&doc).collect::<Result<_>>().unwrap();
        assert_eq!(read, vec![(1, "a/b".as_bytes()), (7, long.as_bytes()), (4, "".as_bytes())]);

        let truncated = &doc[..doc.len() - 1];
        assert!(stored_texts(truncated).any(|r| r.is_err()));
        let mut not_text = Vec::new();
        vint(1, &mut not_text);
        not_text.extend_from_slice(&1u32.to_le_bytes());
        not_text.push(2);
        assert!(stored_texts(&not_text).next().unwrap().is_err());
    }
}
