//! Finding the query's words in a preview's text: ASCII patterns case aside, runs beyond ASCII,
//! word bounds, and the first find in a long text.

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use memchr::memmem;

use super::*;

/// Bytes of a long text lower-cased and searched at a time for its first term ([`first_of_few`]).
pub(super) const FIRST_TERM_STRETCH: usize = 4096;
/// Up to this many patterns are scanned for one by one; more go through one Aho-Corasick
/// automaton (building one costs more than a few scans of a preview's text).
pub(super) const FEW_PATTERNS: usize = 4;

/// Finds ASCII patterns in text, ignoring ASCII case.
pub(super) enum Finder {
    /// Each pattern, lower-cased, searched in a lower-cased copy of the text (SIMD substring
    /// search beats scanning for a pattern's first letter, common letters being common).
    Few(Vec<memmem::Finder<'static>>),
    Many(AhoCorasick),
}

impl Finder {
    pub(super) fn new(patterns: &[String]) -> Self {
        if patterns.len() > FEW_PATTERNS {
            let built = AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                .build(patterns);
            if let Ok(automaton) = built {
                return Finder::Many(automaton);
            }
        }
        Finder::Few(patterns.iter().map(|p| memmem::Finder::new(p).into_owned()).collect())
    }

    /// Byte ranges of the finds in `text` into `found`, in text order, up to `cap` of each
    /// pattern; whether that was all of them. Every ASCII token that starts with a pattern starts
    /// at a find. `lower` is room for a lower-cased copy of the text.
    pub(super) fn find(&self, text: &str, cap: usize, found: &mut Vec<(usize, usize)>, lower: &mut Vec<u8>) -> bool {
        found.clear();
        match self {
            Finder::Many(automaton) => {
                found.extend(automaton.find_iter(text).take(cap + 1).map(|m| (m.start(), m.end())));
                let all = found.len() <= cap;
                found.truncate(cap);
                all
            }
            Finder::Few(patterns) => {
                // ASCII lower-casing keeps every byte's place.
                ascii_lowercase_into(text.as_bytes(), lower);
                let mut all = true;
                for p in patterns {
                    let len = p.needle().len();
                    let (mut from, mut finds) = (0, 0);
                    while let Some(at) = p.find(&lower[from..]).map(|i| from + i) {
                        finds += 1;
                        if finds > cap {
                            all = false;
                            break;
                        }
                        // A find inside a word's lower-case run (`are` in `software`) starts no
                        // token: skipped, and the search goes on from its next byte, so no
                        // overlapping find that does start one is passed over.
                        if may_start_token(text.as_bytes(), at) {
                            found.push((at, at + len));
                            from = at + len;
                        } else {
                            from = at + 1;
                        }
                    }
                }
                if patterns.len() > 1 {
                    found.sort_unstable();
                }
                all
            }
        }
    }
}

/// Where the first of a few lower-case terms (`finders`, the longest `longest` bytes) is in
/// `text`, ASCII case aside. The text is lower-cased into `lower` and searched `stretch` bytes at
/// a time, as the first find of a long text is most often near its start (rare words are found
/// in long texts). Stretches overlap by a term's length less one, so a term across their seam is
/// found whole in the next, and a find is taken once no term across the seam could begin before
/// it. The finders are built once a page: building one per stretch was a tenth of a preview of
/// a long text.
pub(super) fn first_of_few(
    text: &[u8],
    finders: &[memmem::Finder<'static>],
    longest: usize,
    stretch: usize,
    lower: &mut Vec<u8>,
) -> Option<usize> {
    if finders.is_empty() {
        return None;
    }
    let mut best: Option<usize> = None;
    let mut from = 0;
    loop {
        let to = (from + stretch.max(2 * longest)).min(text.len());
        ascii_lowercase_into(&text[from..to], lower);
        let found = finders.iter().filter_map(|f| f.find(lower).map(|at| from + at)).min();
        best = best.into_iter().chain(found).min();
        // A term not wholly in this stretch begins at `seam` or later.
        let seam = (to + 1).saturating_sub(longest);
        if to == text.len() || best.is_some_and(|at| at < seam) {
            return best;
        }
        from = seam;
    }
}

/// `bytes` with ASCII capitals lower-cased, every byte in its place, into `out` (cleared first:
/// a page's previews reuse it). Written as branch-free arithmetic on each byte, which the
/// compiler turns into SIMD; `to_ascii_lowercase` copied the text, then lower-cased it a byte at
/// a time (together ~15% of a rare-term search's instructions with previews).
pub(super) fn ascii_lowercase_into(bytes: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend(bytes.iter().copied().map(ascii_lower));
}

pub(super) fn ascii_lower(b: u8) -> u8 {
    b | ((b.wrapping_sub(b'A') < 26) as u8) << 5
}

/// The patterns, lower-cased, without those that begin with another one: a token that begins
/// with the longer one begins with the shorter too (so `tar*`'s expansions `tar`, `tarball`,
/// `targets` are one substring search for `tar`), and a token's start is where it is found.
pub(super) fn fewest(patterns: Vec<String>) -> Vec<String> {
    let mut patterns = patterns;
    patterns.iter_mut().for_each(|p| p.make_ascii_lowercase());
    patterns.sort_by_key(String::len);
    patterns.dedup();
    let mut kept: Vec<String> = Vec::new();
    for p in patterns {
        if !kept.iter().any(|k| p.starts_with(k.as_str())) {
            kept.push(p);
        }
    }
    kept
}

/// Whether a token of `text` may start at byte `at`: anywhere but after an ASCII letter or digit
/// at a byte that is not a capital (tokens start at a word's start, after a joiner, at a
/// camel-case capital, or after a character beyond ASCII, which may end a CJK run).
pub(super) fn may_start_token(text: &[u8], at: usize) -> bool {
    let inside_word = at > 0 && text[at - 1].is_ascii_alphanumeric();
    !inside_word || text[at].is_ascii_uppercase()
}

/// The byte range of the word ([`in_word`] bytes) around byte `at` of `bytes`.
pub(super) fn word_around(bytes: &[u8], at: usize) -> (usize, usize) {
    let mut from = at;
    while from > 0 && in_word(bytes[from - 1]) {
        from -= 1;
    }
    let mut to = at;
    while to < bytes.len() && in_word(bytes[to]) {
        to += 1;
    }
    (from, to)
}

/// The pairs of bytes that follow each other in some pattern, ASCII case aside, as bits (a byte
/// beyond ASCII pairs with any: such words are looked at whole anyway).
pub(super) struct Pairs([u64; 128 * 128 / 64]);

impl Pairs {
    pub(super) fn of(patterns: &[String]) -> Box<Self> {
        let mut pairs = Box::new(Pairs([0; 128 * 128 / 64]));
        for pair in patterns.iter().flat_map(|p| p.as_bytes().windows(2)) {
            let (word, bit) = Self::bit(pair[0], pair[1]);
            pairs.0[word] |= bit;
        }
        pairs
    }

    pub(super) fn has(&self, first: u8, second: u8) -> bool {
        let (word, bit) = Self::bit(first, second);
        first >= 0x80 || second >= 0x80 || self.0[word] & bit != 0
    }

    pub(super) fn bit(first: u8, second: u8) -> (usize, u64) {
        let at = usize::from(first.to_ascii_lowercase() & 0x7f) << 7 | usize::from(second.to_ascii_lowercase() & 0x7f);
        (at / 64, 1 << (at % 64))
    }
}

/// Where each run of characters beyond ASCII starts that may be part of a matched token: one
/// holding a word character (a letter, digit or mark), or one touching ASCII word bytes (the
/// word around it is then tokenised whole, as the tokeniser splits it). A run of symbols alone
/// between spaces or punctuation is a word of no token, so it is passed over: such symbols are
/// most of what takes English text beyond ASCII (box drawing, dashes, arrows, check marks:
/// 3,100 of the RYE items' 3,138 characters beyond ASCII). Each byte is compared once, eight at
/// a time until a run.
pub(super) fn runs_beyond_ascii(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let word_byte = |i: Option<usize>| i.and_then(|i| bytes.get(i)).is_some_and(|&b| in_ascii_word(b));
    let mut runs = Vec::new();
    let mut at = 0;
    while let Some(start) = next_beyond_ascii(bytes, at) {
        at = bytes[start..].iter().position(|&b| b < 0x80).map_or(bytes.len(), |i| start + i);
        if word_byte(start.checked_sub(1)) || word_byte(Some(at)) {
            runs.push(start);
            continue;
        }
        // Both ends border ASCII bytes (or the text's ends): they are character boundaries. A
        // character like the one before it is not looked up again (box-drawing lines).
        let mut chars = text[start..at].chars();
        let mut before = None;
        if chars.any(|c| before.replace(c) != Some(c) && tokenizer::is_word_char(c)) {
            runs.push(start);
        }
    }
    runs
}

/// An ASCII byte a word may hold: a letter, a digit or a joiner.
pub(super) const fn in_ascii_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A byte a word of a preview's text may hold: an ASCII word byte, or any byte beyond ASCII
/// (it might be part of a letter, so a run is never cut inside a word; the tokeniser then tells
/// words apart within it). One load per byte: previews walk every word around a find.
pub(super) fn in_word(b: u8) -> bool {
    static WORD_BYTES: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            table[b] = b >= 0x80 || in_ascii_word(b as u8);
            b += 1;
        }
        table
    };
    WORD_BYTES[usize::from(b)]
}

/// The first byte beyond ASCII at or after `from`.
pub(super) fn next_beyond_ascii(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    let mut eights = rest.chunks_exact(8);
    let mut offset = from;
    for eight in &mut eights {
        let high = u64::from_le_bytes(eight.try_into().expect("8 bytes")) & 0x8080_8080_8080_8080;
        if high != 0 {
            return Some(offset + (high.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    eights.remainder().iter().position(|&b| b >= 0x80).map(|i| offset + i)
}

/// Two ascending sequences of offsets as one.
pub(super) fn merged(a: impl Iterator<Item = usize>, b: impl Iterator<Item = usize>) -> impl Iterator<Item = usize> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(&x), Some(&y)) if y < x => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}
