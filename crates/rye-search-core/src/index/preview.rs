//! Previews: a snippet around the best cluster of matched words, with the matched words' ranges.
//!
//! A preview costs a fraction of the search it belongs to: the query's words are found by a
//! case-insensitive substring scan and only the words around a find, and words with characters
//! beyond ASCII, are tokenised (text beyond ASCII is read in a bounded window). Tantivy's
//! snippet generator (term weights looked up per query, each hit's text tokenised whole) cost
//! more than the search.

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::hash::BuildHasher;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use memchr::memmem;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use super::*;
use crate::stem;

/// Characters of context a preview shows before its first matched word.
const LEAD_CHARS: usize = 40;
/// Matched words considered per hit: the preview is cut around the best cluster among them.
const MAX_MATCHES: usize = 16;
/// Finds of one pattern looked at per text (most are matches; a short pattern inside many
/// other words stops here, and the preview is then cut from the matches found so far).
const MAX_FINDS: usize = 1024;
/// Bytes of a long text lower-cased and searched at a time for its first term ([`first_of_few`]).
const FIRST_TERM_STRETCH: usize = 4096;
/// Up to this many patterns are scanned for one by one; more go through one Aho-Corasick
/// automaton (building one costs more than a few scans of a preview's text).
const FEW_PATTERNS: usize = 4;

/// What a preview marks: the query's content terms (typo and wildcard expansions included) and
/// the stems of its plain words.
pub(super) struct Marks {
    terms: FxHashSet<String>,
    stems: FxHashSet<String>,
    /// What every word of each stem begins with ([`stem::prefix_of_its_words`]): a token that
    /// begins with none of them is no form of a query word, without running the stemmer.
    stem_prefixes: Vec<String>,
    /// What every matched ASCII token begins with: each ASCII term, and the part of each stem
    /// that every word of it begins with (lower-cased, none beginning with another).
    patterns: Vec<String>,
    /// The terms beyond ASCII (`мир`, `中文`).
    other_terms: Vec<String>,
    /// Whether every matched token holds a pattern or is a term beyond ASCII (not when a stem's
    /// prefix is empty, which every token begins with).
    matches_hold_patterns: bool,
    /// The first byte of each pattern.
    pattern_starts: [bool; 256],
    /// The pairs of bytes that follow each other in a pattern ([`Pairs`]; built for the first run
    /// of joiners a page's previews look at, as most texts of a few hits hold none).
    pattern_pairs: OnceCell<Box<Pairs>>,
    /// Where those patterns are in a text.
    finder: Finder,
    /// A few terms, each searched for where a long text is windowed ([`Self::first_term`]; built
    /// for the first such text of a page).
    few_terms: OnceCell<(Vec<memmem::Finder<'static>>, usize)>,
    /// Many terms at once, for where a long text is windowed ([`Self::first_term`]; built for the
    /// first such text of a page, `None` if it cannot be).
    terms_at_once: OnceCell<Option<AhoCorasick>>,
    /// The matched tokens of each word looked at, over every preview of a page: texts repeat
    /// their words (the query's own in every hit), and tokenising and stemming a word costs.
    seen: RefCell<FxHashMap<Box<str>, Box<[WordMatch]>>>,
    /// Weights of the tokens of those words, by hash: words share their parts (`prime`,
    /// `is_prime`, `next_prime`), and a stem costs.
    weights: RefCell<FxHashMap<u64, f32>>,
    /// Room the previews of a page reuse (a preview's own would be allocations per hit).
    scratch: RefCell<Scratch>,
    /// The matches a preview weighs ([`preview`]).
    found: RefCell<Vec<Match>>,
}

/// What [`Marks::matches_into`] works in: a lower-cased copy of the text, the finds, and the
/// words with joiners and characters beyond ASCII to look at besides them.
#[derive(Default)]
struct Scratch {
    lower: Vec<u8>,
    finds: Vec<(usize, usize)>,
    others: Vec<usize>,
}

/// Words (and tokens) whose matches [`Marks`] remembers: a page of long texts in many words stops
/// adding.
const MAX_SEEN: usize = 4096;
/// Distinct words (and tokens) the preview of a hit usually adds to what its page looked at (64
/// for a ten-hit page).
const WORDS_OF_A_HIT: usize = 7;

/// A matched token of a word, at byte offsets in the word.
#[derive(Clone, Copy)]
struct WordMatch {
    from: u32,
    to: u32,
    weight: f32,
    word: u64,
}

/// Finds ASCII patterns in text, ignoring ASCII case.
enum Finder {
    /// Each pattern, lower-cased, searched in a lower-cased copy of the text (SIMD substring
    /// search beats scanning for a pattern's first letter, common letters being common).
    Few(Vec<memmem::Finder<'static>>),
    Many(AhoCorasick),
}

impl Finder {
    fn new(patterns: &[String]) -> Self {
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
    fn find(&self, text: &str, cap: usize, found: &mut Vec<(usize, usize)>, lower: &mut Vec<u8>) -> bool {
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
fn first_of_few(
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
fn ascii_lowercase_into(bytes: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend(bytes.iter().copied().map(ascii_lower));
}

fn ascii_lower(b: u8) -> u8 {
    b | ((b.wrapping_sub(b'A') < 26) as u8) << 5
}

/// The patterns, lower-cased, without those that begin with another one: a token that begins
/// with the longer one begins with the shorter too (so `tar*`'s expansions `tar`, `tarball`,
/// `targets` are one substring search for `tar`), and a token's start is where it is found.
fn fewest(patterns: Vec<String>) -> Vec<String> {
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
fn may_start_token(text: &[u8], at: usize) -> bool {
    let inside_word = at > 0 && text[at - 1].is_ascii_alphanumeric();
    !inside_word || text[at].is_ascii_uppercase()
}

/// The byte range of the word ([`in_word`] bytes) around byte `at` of `bytes`.
fn word_around(bytes: &[u8], at: usize) -> (usize, usize) {
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
struct Pairs([u64; 128 * 128 / 64]);

impl Pairs {
    fn of(patterns: &[String]) -> Box<Self> {
        let mut pairs = Box::new(Pairs([0; 128 * 128 / 64]));
        for pair in patterns.iter().flat_map(|p| p.as_bytes().windows(2)) {
            let (word, bit) = Self::bit(pair[0], pair[1]);
            pairs.0[word] |= bit;
        }
        pairs
    }

    fn has(&self, first: u8, second: u8) -> bool {
        let (word, bit) = Self::bit(first, second);
        first >= 0x80 || second >= 0x80 || self.0[word] & bit != 0
    }

    fn bit(first: u8, second: u8) -> (usize, u64) {
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
fn runs_beyond_ascii(text: &str) -> Vec<usize> {
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
const fn in_ascii_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A byte a word of a preview's text may hold: an ASCII word byte, or any byte beyond ASCII
/// (it might be part of a letter, so a run is never cut inside a word; the tokeniser then tells
/// words apart within it). One load per byte: previews walk every word around a find.
fn in_word(b: u8) -> bool {
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
fn next_beyond_ascii(bytes: &[u8], from: usize) -> Option<usize> {
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
fn merged(a: impl Iterator<Item = usize>, b: impl Iterator<Item = usize>) -> impl Iterator<Item = usize> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(&x), Some(&y)) if y < x => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// A matched token of a text: its byte range and weight, and a hash of its text (which words
/// are the same is all a preview asks of it).
struct Match {
    from: usize,
    to: usize,
    weight: f32,
    word: u64,
}

impl Marks {
    /// What the previews of a page of `hits` hits mark.
    pub(super) fn new(
        terms: impl IntoIterator<Item = String>,
        stems: impl IntoIterator<Item = String>,
        hits: usize,
    ) -> Self {
        let (terms, stems): (FxHashSet<_>, FxHashSet<_>) = (terms.into_iter().collect(), stems.into_iter().collect());
        let stem_prefixes: Vec<String> = stems.iter().map(|s| stem::prefix_of_its_words(s).to_string()).collect();
        let ascii_terms = terms.iter().filter(|t| t.is_ascii() && !t.is_empty()).cloned();
        let patterns = fewest(ascii_terms.chain(stem_prefixes.iter().cloned()).filter(|p| !p.is_empty()).collect());
        let finder = Finder::new(&patterns);
        let other_terms = terms.iter().filter(|t| !t.is_ascii()).cloned().collect();
        let matches_hold_patterns = stem_prefixes.iter().all(|p| !p.is_empty());
        let words = (hits.max(1) * WORDS_OF_A_HIT).min(MAX_SEEN);
        let mut pattern_starts = [false; 256];
        for &first in patterns.iter().filter_map(|p| p.as_bytes().first()) {
            pattern_starts[usize::from(first)] = true;
        }
        Marks {
            terms,
            stems,
            stem_prefixes,
            patterns,
            other_terms,
            matches_hold_patterns,
            pattern_starts,
            pattern_pairs: OnceCell::new(),
            finder,
            few_terms: OnceCell::new(),
            terms_at_once: OnceCell::new(),
            // Sized for the page's words: growing a table from empty, rehashing at each doubling,
            // cost more than the lookups; a table for ten hits, more than a page of two needs.
            seen: RefCell::new(FxHashMap::with_capacity_and_hasher(words, FxBuildHasher)),
            weights: RefCell::new(FxHashMap::with_capacity_and_hasher(words, FxBuildHasher)),
            scratch: RefCell::default(),
            found: RefCell::new(Vec::with_capacity(MAX_MATCHES)),
        }
    }

    fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.stems.is_empty()
    }

    /// Where the first term or other form of a query word is in `text` (ASCII case aside). A few
    /// are each searched for in a lower-cased copy; many (a wildcard's expansions: each searched for took 50 ms a hit on
    /// 6 MB) are found in one pass of an automaton, slower per byte than a substring search.
    fn first_term(&self, text: &[u8]) -> Option<usize> {
        // Another form of a query word (`library` for `libraries`) begins with its stem's prefix.
        let terms = self.terms.iter().chain(&self.stem_prefixes).filter(|t| !t.is_empty());
        if self.terms.len() + self.stem_prefixes.len() <= FEW_PATTERNS {
            let (finders, longest) = self.few_terms.get_or_init(|| {
                let longest = terms.clone().map(String::len).max().unwrap_or(0);
                (terms.map(|t| memmem::Finder::new(t).into_owned()).collect(), longest)
            });
            let lower = &mut self.scratch.borrow_mut().lower;
            return first_of_few(text, finders, *longest, FIRST_TERM_STRETCH, lower);
        }
        let automaton = self.terms_at_once.get_or_init(|| {
            let mut builder = AhoCorasick::builder();
            // Leftmost: the term that starts first, not the one whose end is seen first; the
            // cheapest automaton to build, as it serves one page.
            builder.ascii_case_insensitive(true).match_kind(MatchKind::LeftmostFirst);
            builder.kind(Some(AhoCorasickKind::NoncontiguousNFA)).build(terms).ok()
        });
        Some(automaton.as_ref()?.find(text)?.start())
    }

    /// 1 for a query term, ½ for another form of a query word, 0 otherwise.
    fn weight(&self, token: &str) -> f32 {
        if self.terms.contains(token) {
            return 1.0;
        }
        let may_stem = self.stem_prefixes.iter().any(|p| token.starts_with(p.as_str()));
        if may_stem && stem::stem(token).is_some_and(|s| self.stems.contains(&*s)) {
            return 0.5;
        }
        0.0
    }

    /// The matched tokens of one word of a text, at offsets in the word.
    fn word_matches(&self, word: &str) -> Box<[WordMatch]> {
        if !word.is_ascii() && !self.may_hold_match(word) {
            return Box::default();
        }
        let mut out = Vec::new();
        let mut weights = self.weights.borrow_mut();
        tokenizer::for_each_token(word, |t| {
            let word = FxBuildHasher.hash_one(t.text);
            let weight = match weights.get(&word) {
                Some(&weight) => weight,
                None => {
                    let weight = self.weight(t.text);
                    if weights.len() < MAX_SEEN {
                        weights.insert(word, weight);
                    }
                    weight
                }
            };
            if weight > 0.0 {
                out.push(WordMatch { from: t.from as u32, to: t.to as u32, weight, word });
            }
        });
        out.into_boxed_slice()
    }

    /// Whether a word beyond ASCII may hold a matched token. A word whose letters fold one by
    /// one ([`tokenizer::fold_words`]: Latin, Greek and Cyrillic, beside punctuation such as `’`)
    /// has tokens that are pieces of its folded form or of that form without its joiners, and a
    /// matched token holds a pattern or is a term beyond ASCII: a word that holds neither has
    /// none, and is not tokenised (in German, French or Russian text most words are beyond
    /// ASCII, each ~4k instructions to tokenise: previews cost twice the search). Other words
    /// are tokenised.
    fn may_hold_match(&self, word: &str) -> bool {
        if !self.matches_hold_patterns {
            return true;
        }
        let Some(folded) = tokenizer::fold_words(word) else { return true };
        let joined = match folded.contains(tokenizer::is_joiner) {
            true => tokenizer::without_joiners(&folded),
            false => String::new(),
        };
        self.patterns
            .iter()
            .chain(&self.other_terms)
            .any(|p| folded.contains(p.as_str()) || joined.contains(p.as_str()))
    }

    /// Whether the word that `text` begins with, written without its joiners (`real-time` →
    /// `realtime`), begins with a pattern, as its joined token must to be a match. (A word with
    /// characters beyond ASCII, whose joined token is folded, is looked at whole anyway.)
    fn may_match_joined(&self, text: &[u8]) -> bool {
        let joined = text.iter().take_while(|&&b| in_word(b)).filter(|&&b| b != b'-' && b != b'_');
        let joined = joined.map(u8::to_ascii_lowercase);
        let Some(first) = joined.clone().next() else { return false };
        // A few patterns are each compared; many (a wildcard's expansions) would cost more per
        // word than tokenising it, so past the first byte those words are tokenised.
        self.pattern_starts[usize::from(first)]
            && (self.patterns.len() > FEW_PATTERNS
                || self.patterns.iter().any(|p| joined.clone().take(p.len()).eq(p.bytes())))
    }

    /// The first `limit` matched tokens of `text` (`ascii`: whether it is ASCII), in text order,
    /// and whether they are all of its matches.
    fn matches(&self, text: &str, ascii: bool, limit: usize) -> (Vec<Match>, bool) {
        let mut out = Vec::with_capacity(limit.min(MAX_MATCHES));
        let all = self.matches_into(text, ascii, limit, &mut out);
        (out, all)
    }

    /// [`Self::matches`] into `out` (cleared first); whether they are all of the text's matches.
    fn matches_into(&self, text: &str, ascii: bool, limit: usize, out: &mut Vec<Match>) -> bool {
        out.clear();
        let mut seen = self.seen.borrow_mut();
        let mut scratch = self.scratch.borrow_mut();
        let Scratch { lower, finds, others } = &mut *scratch;
        let bytes = text.as_bytes();
        let mut done = 0;
        // Where a matched token can be: at a find, or in a word with characters beyond ASCII
        // (folded, `Café` is the term `cafe`, and terms in other scripts have no find). Finds
        // in words that are no match (`tar` in `start`) do not count towards `limit`.
        let all_found = self.finder.find(text, MAX_FINDS, finds, lower);
        // A word with a joiner may be a match in its joined form (`realtime` is a token of
        // `real-time`), which no find shows: those whose joined form begins with a pattern are
        // looked at too (tokenising every compound of a text cost ~7% of a preview).
        others.clear();
        // The joined form begins with a pattern only if the word's first run of joiners stands
        // between two bytes that follow each other in it (`l-t` in `real-time` for `realtime`;
        // had it begun before the run, the pattern would be a find): runs between other bytes
        // are passed over without walking their word. Texts that rare words are found in are
        // long and hold thousands of joiners (`--` lines): walking each one's word, and a search
        // for each joiner, cost a tenth of a rare-term search with previews.
        let (mut at, mut looked_to) = (0, None);
        while let Some(run) = memchr::memchr2(b'-', b'_', &bytes[at..]).map(|i| at + i) {
            let end = run + bytes[run..].iter().take_while(|&&b| b == b'-' || b == b'_').count();
            at = end;
            let (Some(&before), Some(&after)) = (run.checked_sub(1).map(|i| &bytes[i]), bytes.get(end)) else {
                continue;
            };
            if !self.pattern_pairs.get_or_init(|| Pairs::of(&self.patterns)).has(before, after) {
                continue;
            }
            // Back to the word's start, or to the end of the last run looked at (a joiner ends
            // it, so reaching it means the same word): each byte is walked once, however many
            // runs of a word pass.
            let mut from = run;
            while from > 0 && in_word(bytes[from - 1]) && Some(from) != looked_to {
                from -= 1;
            }
            let same_word = Some(from) == looked_to;
            looked_to = Some(end);
            if !same_word && self.may_match_joined(&bytes[from..]) {
                others.push(from);
            }
        }
        if !ascii {
            let runs = runs_beyond_ascii(text);
            *others = merged(runs.into_iter(), others.iter().copied()).collect();
        }
        for start in merged(finds.iter().map(|f| f.0), others.iter().copied()) {
            if out.len() >= limit {
                break;
            }
            if start < done {
                continue;
            }
            // Tokenise the whole word around the find: it decides what the find is a part of.
            let (from, to) = word_around(bytes, start);
            let word = &text[from..to];
            let room = limit - out.len();
            let add = |out: &mut Vec<Match>, matched: &[WordMatch]| {
                out.extend(matched.iter().take(room).map(|m| Match {
                    from: from + m.from as usize,
                    to: from + m.to as usize,
                    weight: m.weight,
                    word: m.word,
                }))
            };
            match seen.get(word) {
                Some(matched) => add(out, matched),
                None => {
                    let matched = self.word_matches(word);
                    add(out, &matched);
                    if seen.len() < MAX_SEEN {
                        seen.insert(word.into(), matched);
                    }
                }
            }
            done = to;
        }
        all_found && out.len() < limit
    }
}

/// Text as previews show it: whitespace runs as one space, none at either end. Content is
/// stored this way (whitespace only separates words, so it tokenises the same), which makes a
/// preview a slice of the stored text.
pub(crate) fn shown_text(text: &str) -> Cow<'_, str> {
    if is_shown_form(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.split_whitespace().collect::<Vec<_>>().join(" "))
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

/// A preview of at most `chars` characters of stored `content` (in [`shown_text`] form) around
/// its best-matching part, and the matched words' ranges in it (UTF-16 code units, as JavaScript
/// indexes strings). Fails only when the part read is not UTF-8 (a damaged index).
pub(super) fn preview(marks: &Marks, content: &[u8], chars: usize) -> Result<(String, Vec<(u32, u32)>)> {
    if marks.is_empty() {
        return Ok((start_of(content, chars)?, Vec::new()));
    }
    // Text is read in a window around the first find.
    let (region, ascii) = preview_window(content, |text| marks.first_term(text), chars)?;
    let mut found = marks.found.borrow_mut();
    let all = marks.matches_into(region, ascii, MAX_MATCHES, &mut found);
    let start = best_fragment(&found, region, ascii, chars);
    let text = cut_at_word(&region[start..], chars);
    // When the matches found are all the text has (the window is scanned whole), the preview's
    // highlights are those matches, moved to where the preview starts: matching the preview
    // again cost as much as the first pass.
    let marked = match all {
        true => {
            let moved = moved_matches(&found, start, text.len());
            // In ASCII, bytes are UTF-16 code units too.
            match ascii {
                true => moved.into_iter().map(|(a, b)| (a as u32, b as u32)).collect(),
                false => to_utf16(text, &moved),
            }
        }
        false => highlights(text, marks),
    };
    Ok((text.to_owned(), marked))
}

/// The byte ranges of the matches at or after byte `start` of a text, counted from there, in
/// its first `len` bytes from there; merged where they touch.
fn moved_matches(found: &[Match], start: usize, len: usize) -> Vec<(usize, usize)> {
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(found.len());
    for m in found.iter().filter(|m| m.from >= start) {
        let (a, b) = (m.from - start, m.to - start);
        if a >= len {
            break;
        }
        // A match the cut runs through (a compound whose end was cut) is left out; its parts
        // before the cut are matches of their own.
        if b > len {
            continue;
        }
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// The beginning of stored `content`, for a hit no term of the query matched (found by meaning).
pub(super) fn start_of(content: &[u8], chars: usize) -> Result<String> {
    let (window, _) = preview_window(content, |_| None, chars)?;
    Ok(cut_at_word(window, chars).to_owned())
}

/// Byte offset in `region` where the preview starts: a little before the matched word whose
/// following `chars` characters hold the most matches (distinct words first, the earliest on a
/// tie), or 0 when nothing matched.
fn best_fragment(found: &[Match], region: &str, ascii: bool, chars: usize) -> usize {
    // At most `MAX_MATCHES` matches are weighed: on the stack, as this runs for every hit.
    let found = &found[..found.len().min(MAX_MATCHES)];
    // Character offsets of the matches (byte offsets in ASCII text).
    let mut char_at = [0usize; MAX_MATCHES];
    let (mut byte, mut count) = (0usize, 0usize);
    for (m, at) in found.iter().zip(&mut char_at) {
        count += if ascii { m.from - byte } else { region[byte..m.from].chars().count() };
        byte = m.from;
        *at = count;
    }
    let char_at = &char_at[..found.len()];
    let lead = LEAD_CHARS.min(chars / 4);
    let mut best = (0.0f32, 0usize);
    for (i, &from) in char_at.iter().enumerate() {
        let mut score = 0.0;
        for (k, (m, &at)) in found[i..].iter().zip(&char_at[i..]).enumerate() {
            if at >= from + chars - lead {
                break;
            }
            // A word counts fully once; repeats only break ties.
            let repeat = found[i..i + k].iter().any(|earlier| earlier.word == m.word);
            score += if repeat { m.weight / 16.0 } else { m.weight };
        }
        if score > best.0 {
            best = (score, i);
        }
    }
    match found.get(best.1) {
        Some(m) => lead_in(region, m.from, lead, ascii),
        None => 0,
    }
}

/// A start up to `lead` characters before byte `anchor`, moved forward to a word's beginning so
/// the preview never opens on a word's tail (`ascii`: whether `text` is ASCII, whose characters
/// are its bytes).
fn lead_in(text: &str, anchor: usize, lead: usize, ascii: bool) -> usize {
    if lead == 0 {
        return anchor;
    }
    let start = match ascii {
        true => anchor.checked_sub(lead),
        false => text[..anchor].char_indices().rev().nth(lead - 1).map(|(start, _)| start),
    };
    let Some(start) = start else { return 0 };
    if text[..start].ends_with(char::is_whitespace) {
        return start;
    }
    if let Some(after) = after_whitespace(&text[start..anchor]) {
        return start + after;
    }
    // The matched token is part of a long word (an identifier, or text without spaces): open on
    // that word when it begins close enough, else on the token itself.
    let word = text[..anchor].char_indices().rev().find(|c| c.1.is_whitespace()).map_or(0, |(i, c)| i + c.len_utf8());
    if text[word..anchor].chars().count() <= lead * 2 {
        word
    } else {
        anchor
    }
}

/// The words of `preview` that the query matched, as `[start, end)` in UTF-16 code units, merged
/// where they touch.
fn highlights(preview: &str, marks: &Marks) -> Vec<(u32, u32)> {
    let mut merged: Vec<(usize, usize)> = Vec::new();
    // Matches come in text order; a compound's whole precedes its parts and covers them.
    for m in marks.matches(preview, preview.is_ascii(), usize::MAX).0 {
        match merged.last_mut() {
            Some(last) if m.from <= last.1 => last.1 = last.1.max(m.to),
            _ => merged.push((m.from, m.to)),
        }
    }
    to_utf16(preview, &merged)
}

/// Byte ranges of `text` (sorted, on char boundaries) as UTF-16 code unit ranges.
fn to_utf16(text: &str, ranges: &[(usize, usize)]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(ranges.len());
    let (mut byte, mut unit) = (0usize, 0u32);
    let mut advance = |to: usize| {
        unit += text[byte..to].chars().map(|c| c.len_utf16() as u32).sum::<u32>();
        byte = to;
        unit
    };
    for &(from, to) in ranges {
        let start = advance(from);
        let end = advance(to);
        out.push((start, end));
    }
    out
}

/// Where the text after the first whitespace character of `text` begins. ASCII bytes are read
/// as they are; a character is decoded only beyond ASCII.
fn after_whitespace(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        let (c, len) = match b < 0x80 {
            true => (char::from(b), 1),
            false => text[at..].chars().next().map(|c| (c, c.len_utf8()))?,
        };
        at += len;
        if c.is_whitespace() {
            return Some(at);
        }
    }
    None
}

/// At most `chars` characters of `text`, ending on a word boundary when the cut would split a
/// word (`STRAẞE` is never shown as `STRAẞ`); a single word longer than the budget is cut.
fn cut_at_word(text: &str, chars: usize) -> &str {
    // When the first `chars + 1` bytes are ASCII, they are the first `chars + 1` characters.
    let at = match crate::ascii::all_ascii(&text.as_bytes()[..text.len().min(chars + 1)]) {
        true => text.as_bytes().get(chars).map(|&b| (chars, b as char)),
        false => text.char_indices().nth(chars),
    };
    let Some((end, next)) = at else { return text };
    if next == ' ' {
        return &text[..end];
    }
    match text[..end].rfind(' ') {
        Some(space) if space > 0 => &text[..space],
        _ => &text[..end],
    }
}

/// The part of stored `content` (in [`shown_text`] form: words apart by single spaces) around
/// the first term in it (`first_term`), or its beginning, and whether it is ASCII: a long text is
/// read in a window of `chars × 8` bytes (at least 1 KiB) that opens and ends on whole words, so
/// a preview costs the same however long the text (rare words are found in long texts: c60k
/// rare-term searches with previews, 107k → 87k instructions each). Only the window is checked
/// for UTF-8 and ASCII: a whole 80 KB text was checked for each hit in it.
fn preview_window(
    content: &[u8],
    first_term: impl FnOnce(&[u8]) -> Option<usize>,
    chars: usize,
) -> Result<(&str, bool)> {
    let span = (chars * 8).max(1024);
    if content.len() <= span {
        return crate::stored::text_and_ascii(content);
    }
    let first = first_term(content).unwrap_or(0);
    // Back to where a character begins (a byte that continues one is 0b10xx_xxxx).
    let floor = |mut i: usize| {
        while i > 0 && content.get(i).is_some_and(|&b| b & 0xc0 == 0x80) {
            i -= 1;
        }
        i
    };
    let mut start = floor(first.saturating_sub(span / 4));
    // Begin on a word: a window that starts inside one would show its tail.
    if start > 0 && content[start - 1] != b' ' {
        start = memchr::memchr(b' ', &content[start..]).map_or(start, |i| start + i + 1);
    }
    // Back to where a character begins, unless none does after the start: then the window is
    // continuation bytes only (damage), and checking it says so.
    let reach = (start + span).min(content.len());
    let mut end = match floor(reach) {
        end if end > start => end,
        _ => reach,
    };
    // End on a word too: a word cut short could look like a query word (`libra` of `library`).
    if end < content.len() && content[end] != b' ' {
        end = memchr::memrchr(b' ', &content[start..end]).filter(|&space| space > 0).map_or(end, |space| start + space);
    }
    crate::stored::text_and_ascii(&content[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the previews of a ten-hit page mark.
    fn page_marks(terms: impl IntoIterator<Item = String>, stems: impl IntoIterator<Item = String>) -> Marks {
        Marks::new(terms, stems, 10)
    }

    /// [`preview`] of any text.
    fn preview_of(marks: &Marks, text: &str, chars: usize) -> (String, Vec<(u32, u32)>) {
        preview(marks, text.as_bytes(), chars).expect("text is UTF-8")
    }

    /// The next draw of a seeded generator (a 64-bit LCG): random texts, the same on every run.
    fn next(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed
    }

    #[test]
    fn previews_end_on_word_boundaries() {
        assert_eq!(cut_at_word("the STRAẞE is long", 9), "the");
        assert_eq!(cut_at_word("data__Schlüssel x", 13), "data__Schlüssel x".chars().take(13).collect::<String>());
        assert_eq!(cut_at_word("a data__Schlüssel x", 14), "a");
        assert_eq!(cut_at_word("short", 80), "short");
        assert_eq!(cut_at_word("two words", 3), "two");
    }

    #[test]
    fn highlights_are_utf16_ranges_of_matched_words() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        let text = "𝔘 café and create_tool tools";
        let marks = highlights(text, &page_marks(set(&["cafe", "create"]), set(&["tool"])));
        let units: Vec<u16> = text.encode_utf16().collect();
        let shown: Vec<String> =
            marks.iter().map(|&(a, b)| String::from_utf16(&units[a as usize..b as usize]).unwrap()).collect();
        // Each part of an identifier is marked on its own; `tool` and `tools` by their stem.
        assert_eq!(shown, ["café", "create", "tool", "tools"]);
        assert!(highlights(text, &page_marks(set(&[]), set(&[]))).is_empty());
    }

    #[test]
    fn previews_show_the_part_with_most_query_words_with_context_before_it() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        let marks = page_marks(set(&["tmux", "session"]), set(&["detach"]));
        let filler = "lorem ipsum dolor sit amet ".repeat(12);
        let text = format!("{filler}one tmux here. {filler}keeps a tmux session when you detached it. {filler}");
        let (shown, marked) = preview_of(&marks, &text, 80);
        assert!(shown.contains("tmux session when you detached"), "{shown}");
        // Context before the first match, opening on a whole word.
        assert!(
            shown.starts_with("lorem")
                || shown.starts_with("ipsum")
                || shown.starts_with("dolor")
                || shown.starts_with("sit")
                || shown.starts_with("amet"),
            "{shown}"
        );
        assert!(shown.chars().count() <= 80);
        let units: Vec<u16> = shown.encode_utf16().collect();
        let words: Vec<String> =
            marked.iter().map(|&(a, b)| String::from_utf16(&units[a as usize..b as usize]).unwrap()).collect();
        assert_eq!(words, ["tmux", "session", "detached"]);
    }

    #[test]
    fn a_preview_without_a_match_in_the_text_is_its_start() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        let marks = page_marks(set(&["absent"]), set(&[]));
        let (shown, marked) = preview_of(&marks, &shown_text("  first   words of\n the text"), 10);
        assert_eq!(shown, "first");
        assert!(marked.is_empty());
    }

    #[test]
    fn a_word_found_after_many_words_that_only_contain_it_is_shown() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        // `tar` is inside every `start`; the preview must still open on the word itself.
        let text = format!("{}then the tar archive", "start ".repeat(40));
        for marks in [page_marks(set(&["tar"]), set(&[])), page_marks(set(&["tar", "a", "b", "c", "d"]), set(&[]))] {
            let (shown, marked) = preview_of(&marks, &text, 40);
            assert!(shown.contains("tar archive"), "{shown}");
            assert_eq!(marked, highlights(&shown, &marks), "{shown}");
            assert_eq!(marked.len(), 1, "{shown}");
        }
    }

    #[test]
    fn shown_text_collapses_whitespace_runs_and_borrows_text_that_needs_none() {
        let mut texts: Vec<String> =
            ["  a  b\tc\n\x0bd\x0ce\rf  ", "one two three", "word", "", "   ", "ab  cd ef", "a\u{85}b", "x "]
                .map(String::from)
                .into();
        // Every mix of letters, single and repeated whitespace, and whitespace beyond ASCII.
        let mut seed = 7u64;
        for _ in 0..3000 {
            let len = (next(&mut seed) >> 33) as usize % 12;
            texts.push(
                (0..len)
                    .map(|_| {
                        ['a', 'b', ' ', '\n', 'é', '\u{3000}', '\t', '\r', '\u{a0}', '搜']
                            [(next(&mut seed) >> 33) as usize % 10]
                    })
                    .collect(),
            );
        }
        for text in &texts {
            let general = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let shown = shown_text(text);
            assert_eq!(shown, general, "{text:?}");
            assert_eq!(matches!(shown, Cow::Borrowed(_)), general == *text, "{text:?}");
        }
    }

    #[test]
    fn a_preview_opens_after_any_whitespace_character() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        // A long word after a three-byte space (U+3000) and a no-break space.
        for space in ['\u{3000}', '\u{a0}'] {
            let text = format!("{}{space}ΟΔΟΣΟΔΟΣΟΔΟΣ__ภาษาไทย_fileSystem tail", "STRAẞE ÆRØ 搜索引擎".repeat(3));
            let (shown, marked) = preview_of(&page_marks(set(&["system"]), set(&[])), &shown_text(&text), 40);
            // The word is too long to open on: the preview opens on the matched part.
            assert!(shown.starts_with("System"), "{shown}");
            assert!(!marked.is_empty());
        }
    }

    #[test]
    fn byte_at_a_time_scans_agree_with_decoding_every_character() {
        // Every byte the word table holds is a word byte of the rule it was built from.
        for b in 0..=255u8 {
            assert_eq!(in_word(b), in_ascii_word(b) || b >= 0x80, "{b:#x}");
        }
        // White space of every kind (a vertical tab, a no-break space, a next-line, an em space),
        // among ASCII, accents and CJK.
        let alphabet: Vec<char> = "ab Z9-_.\t\n\u{b}\u{c}\r\u{a0}\u{85}\u{2003}é搜".chars().collect();
        let mut seed = 7;
        for _ in 0..20_000 {
            let len = (next(&mut seed) % 24) as usize;
            let text: String = (0..len).map(|_| alphabet[(next(&mut seed) >> 33) as usize % alphabet.len()]).collect();
            let decoded = text.char_indices().find(|c| c.1.is_whitespace()).map(|(i, c)| i + c.len_utf8());
            assert_eq!(after_whitespace(&text), decoded, "{text:?}");
            if text.is_ascii() {
                for anchor in 0..=text.len() {
                    for lead in 0..6 {
                        let read = lead_in(&text, anchor, lead, true);
                        assert_eq!(read, lead_in(&text, anchor, lead, false), "{text:?} at {anchor}, lead {lead}");
                    }
                }
            }
        }
    }

    #[test]
    fn highlights_moved_from_the_text_agree_with_highlights_found_in_the_preview() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        let marks = page_marks(set(&["tool", "create", "create_tool"]), set(&["run"]));
        let runs = "Intro  text\n\n with   a Tool:   create_tool runs\tthe  Running tools; tool-chain and\r\n  more tool words at the end of it";
        let single =
            "Intro text\nwith a Tool: create_tool runs\tthe Running tools; tool-chain and\nmore tool words at the end ";
        for text in [runs, single] {
            for chars in [10, 25, 40, 60, 200] {
                let (shown, marked) = preview_of(&marks, &shown_text(text), chars);
                assert_eq!(marked, highlights(&shown, &marks), "{chars}: {shown}");
            }
        }
    }

    #[test]
    fn highlights_moved_from_text_in_any_script_agree_with_highlights_found_in_the_preview() {
        // Words in many scripts, forms (NFC and NFD accents, compatibility forms, capitals),
        // joined by joiners, CJK runs without spaces, symbols beside words; queries of their
        // tokens and stems, as a search would mark them.
        let words = [
            "Café",
            "cafe\u{301}",
            "naïve",
            "STRAẞE",
            "straße",
            "Schlüssel",
            "ﬁle",
            "file-system",
            "fileSystem",
            "create_tool",
            "Привет",
            "мир",
            "Ключ",
            "搜索引擎",
            "中文搜索",
            "ΟΔΟΣ",
            "οδός",
            "ภาษาไทย",
            "Ａｂｃ",
            "relatives—which",
            "“quoted”",
            "it’s",
            "tools",
            "running",
            "x²",
            "①",
            "→",
            "🙂",
            "a",
            "the",
            "data__Schlüssel",
            "日本語テキスト",
        ];
        let mut seed = 11u64;
        let mut compared = 0;
        for _ in 0..400 {
            let len = 5 + (next(&mut seed) >> 33) as usize % 60;
            let text: Vec<&str> = (0..len).map(|_| words[(next(&mut seed) >> 33) as usize % words.len()]).collect();
            let text = text.join(" ");
            let (mut terms, mut stems) = (HashSet::new(), HashSet::new());
            for _ in 0..1 + (next(&mut seed) >> 33) % 3 {
                let word = words[(next(&mut seed) >> 33) as usize % words.len()];
                tokenizer::for_each_token(word, |t| {
                    terms.insert(t.text.to_string());
                    stems.extend(stem::stem(t.text).map(|s| s.into_owned()));
                });
            }
            let marks = page_marks(terms, stems);
            for chars in [12, 30, 80, 200] {
                let (shown, marked) = preview_of(&marks, &text, chars);
                // Where the preview opens inside a word (one too long to open on), tokenising the
                // preview alone splits that word otherwise: compared only where it opens on a word.
                let opens_on_word =
                    text.match_indices(shown.as_str()).all(|(at, _)| at == 0 || text[..at].ends_with(' '));
                if opens_on_word {
                    assert_eq!(marked, highlights(&shown, &marks), "{chars}: {shown:?} of {text:?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "{compared}");
    }

    #[test]
    fn runs_beyond_ascii_start_where_characters_that_may_be_in_a_token_begin() {
        // ASCII, letters and a mark beyond it, and symbols (never part of a word).
        let pieces = ["a", " ", "-", "é", "\u{301}", "ж", "中", "─", "→", "—", "✅", "①", "²"];
        let mut seed = 5u64;
        for len in (0..40).chain([200, 1000]) {
            for _ in 0..50 {
                let text: String = (0..len).map(|_| pieces[next(&mut seed) as usize % pieces.len()]).collect();
                let chars: Vec<(usize, char)> = text.char_indices().collect();
                // Each maximal run of characters beyond ASCII, kept when one of them is a word character.
                let mut naive = Vec::new();
                let mut i = 0;
                while i < chars.len() {
                    if chars[i].1.is_ascii() {
                        i += 1;
                        continue;
                    }
                    let start = i;
                    while i < chars.len() && !chars[i].1.is_ascii() {
                        i += 1;
                    }
                    let touches_word = |c: Option<&(usize, char)>| {
                        c.is_some_and(|&(_, c)| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                    };
                    let touching = touches_word(start.checked_sub(1).map(|b| &chars[b])) || touches_word(chars.get(i));
                    if touching || chars[start..i].iter().any(|&(_, c)| c.is_alphanumeric() || c == '\u{301}') {
                        naive.push(chars[start].0);
                    }
                }
                assert_eq!(runs_beyond_ascii(&text), naive, "{text:?}");
            }
        }
    }

    #[test]
    fn the_first_term_is_found_across_stretch_seams() {
        // `abab` begins before the first stretch (8 bytes) ends, and ends after it; `b` is found
        // inside it, later.
        let first = |text: &[u8], terms: &[&[u8]], stretch| {
            let finders: Vec<_> = terms.iter().map(|t| memmem::Finder::new(t).into_owned()).collect();
            let longest = terms.iter().map(|t| t.len()).max().unwrap_or(0);
            first_of_few(text, &finders, longest, stretch, &mut Vec::new())
        };
        assert_eq!(first(b"xxxxxABab", &[b"abab", b"b"], 1), Some(5));
        let mut seed = 7u64;
        // Mostly other bytes, so that a text's first find may lie at any seam.
        let alphabet = b"abAB -x.\xc3\xa9 -x.-x.-x. -x.-x.-x. -x.-x.-x.";
        for _ in 0..50_000 {
            let len = (next(&mut seed) % 60) as usize;
            let text: Vec<u8> =
                (0..len).map(|_| alphabet[(next(&mut seed) % alphabet.len() as u64) as usize]).collect();
            let terms: Vec<Vec<u8>> = (0..1 + next(&mut seed) % 3)
                .map(|_| (0..1 + next(&mut seed) % 4).map(|_| b"ab"[(next(&mut seed) % 2) as usize]).collect())
                .collect();
            let terms: Vec<&[u8]> = terms.iter().map(Vec::as_slice).collect();
            let lower = text.to_ascii_lowercase();
            let whole = terms.iter().filter_map(|t| memmem::find(&lower, t)).min();
            let stretch = 1 + (next(&mut seed) % 12) as usize;
            assert_eq!(first(&text, &terms, stretch), whole, "{text:?} {terms:?} {stretch}");
        }
    }

    #[test]
    fn ascii_lowercase_is_the_standard_library_s() {
        let every_byte: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in [0, 1, 31, 32, 33, every_byte.len()] {
            // Into room that held something longer: nothing of it stays.
            let mut out = vec![b'X'; 600];
            ascii_lowercase_into(&every_byte[..len], &mut out);
            assert_eq!(out, every_byte[..len].to_ascii_lowercase());
        }
    }

    #[test]
    fn a_long_text_beyond_ascii_is_shown_around_its_first_term_among_many() {
        // Past its window's span, text beyond ASCII is shown around the first term in it, found
        // for all of a wildcard's expansions in one pass.
        let filler = "Größe café ".repeat(1000);
        let text = shown_text(&format!("{filler}the Zeta word {filler}zz7 tail")).into_owned();
        let terms: Vec<String> = (0..1000).map(|i| format!("zz{i}")).chain(["zeta".into()]).collect();
        let marks = page_marks(terms, Vec::new());
        let (shown, marked) = preview_of(&marks, &text, 60);
        assert!(shown.contains("Zeta"), "{shown}");
        let [(a, b)] = marked[..] else { panic!("{marked:?} in {shown}") };
        let units: Vec<u16> = shown.encode_utf16().collect();
        assert_eq!(String::from_utf16_lossy(&units[a as usize..b as usize]), "Zeta");
        // No term at all: the beginning.
        let none = page_marks(vec!["absent".to_string()], Vec::new());
        assert!(preview_of(&none, &text, 60).0.starts_with("Größe"));
    }

    #[test]
    fn a_long_ascii_text_is_read_in_a_window_of_whole_words_around_its_first_term() {
        let filler = "lorem ipsum ".repeat(1000);
        let text = shown_text(&format!("{filler}the Library word {filler}library")).into_owned();
        let marks = page_marks(vec!["library".to_string()], Vec::new());
        let (shown, marked) = preview_of(&marks, &text, 60);
        let [(a, b)] = marked[..] else { panic!("{marked:?} in {shown}") };
        assert_eq!(&shown[a as usize..b as usize], "Library");
        // Another form of the word, far in: the window is around it too.
        let text = shown_text(&format!("{filler}{filler}the Library word")).into_owned();
        let stems = stem::stem("libraries").map(|s| s.to_string());
        let marks = page_marks(vec!["libraries".to_string()], stems);
        let (shown, marked) = preview_of(&marks, &text, 60);
        let [(a, b)] = marked[..] else { panic!("{marked:?} in {shown}") };
        assert_eq!(&shown[a as usize..b as usize], "Library");
        // Wherever the span ends, the window ends where a word does: a word cut short could
        // pass for a query word.
        let mut seed = 7;
        for _ in 0..300 {
            let words: Vec<String> = (0..600).map(|_| "x".repeat(1 + (next(&mut seed) % 12) as usize)).collect();
            let text = words.join(" ");
            let first = (next(&mut seed) as usize) % text.len();
            let (window, _) = preview_window(text.as_bytes(), |_| Some(first), 60).expect("text is UTF-8");
            let start = window.as_ptr() as usize - text.as_ptr() as usize;
            let end = start + window.len();
            assert!(start == 0 || text.as_bytes()[start - 1] == b' ', "opens inside a word at {start}");
            assert!(end == text.len() || text.as_bytes()[end] == b' ', "ends inside a word at {end}");
        }
    }

    #[test]
    fn only_the_window_of_a_long_text_is_read() {
        let filler = "lorem ipsum ".repeat(1000);
        let mut text = format!("é {filler}the Library word {filler}").into_bytes();
        let marks = page_marks(vec!["library".to_string()], Vec::new());
        // Damage far from the first term is never read: the window around it is shown, and as
        // ASCII, though the text is not.
        let end = text.len() - 10;
        text[end] = 0xff;
        let (shown, marked) = preview(&marks, &text, 60).expect("the window is UTF-8");
        let [(a, b)] = marked[..] else { panic!("{marked:?} in {shown}") };
        assert_eq!(&shown[a as usize..b as usize], "Library");
        let (window, ascii) = preview_window(&text, |t| marks.first_term(t), 60).expect("the window is UTF-8");
        assert!(ascii && window.contains("the Library word"), "{window}");
        // Damage inside the window is an error, never a panic or a cut inside a character.
        let library = memmem::find(&text, b"Library").expect("in the text");
        text[library + 12] = 0xff;
        assert!(preview(&marks, &text, 60).is_err());
        // Damage that is all continuation bytes, longer than a window, after a space: the end
        // cannot back up to a character before the start; an error, never a panic.
        let mut damaged = b"x ".repeat(2000);
        damaged.extend(std::iter::repeat_n(0x80u8, 3000));
        damaged.extend(b" library".repeat(10));
        for first in [4300, 5000, 6990, damaged.len() - 7] {
            assert!(preview_window(&damaged, |_| Some(first), 60).is_err(), "{first}");
        }
        assert!(preview(&marks, &damaged, 60).is_err());
        // A window that would open or end inside a character moves to where one begins.
        let mut seed = 11;
        let text = "Größe café 搜索 ".repeat(400);
        for _ in 0..300 {
            let first = (next(&mut seed) as usize) % text.len();
            let (window, _) = preview_window(text.as_bytes(), |_| Some(first), 60).expect("text is UTF-8");
            let start = window.as_ptr() as usize - text.as_ptr() as usize;
            assert!(start == 0 || text.as_bytes()[start - 1] == b' ', "opens inside a word at {start}");
        }
    }

    #[test]
    fn long_texts_of_compounds_mark_what_tokenising_marks_in_one_pass() {
        // Words of 100,000 and 300,000 joiners (walking one from each of them took minutes), and
        // 60,000 compounds with a thousand patterns (comparing each with each would crawl).
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        let texts = [
            format!("{}realtime", "ab-".repeat(100_000)),
            format!("real{}time", "-".repeat(300_000)),
            "x-y ab-cd x_1 ".repeat(20_000),
        ];
        // Many patterns (as a wildcard's expansions give) beginning as the compounds do.
        let many: Vec<String> = (0..1000).map(|i| format!("x{i}")).chain(["xy".into(), "abcd".into()]).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let queries = [&["abab"][..], &["realtime"], &["ab"], &many];
        for (text, terms) in texts.iter().flat_map(|t| queries.map(|q| (t, q))) {
            let marks = page_marks(set(terms), set(&[]));
            let found: Vec<_> = marks.matches(text, true, MAX_MATCHES).0.iter().map(|m| (m.from, m.to)).collect();
            let mut every = Vec::new();
            tokenizer::for_each_token(text, |t| {
                if marks.weight(t.text) > 0.0 && every.len() < MAX_MATCHES {
                    every.push((t.from, t.to));
                }
            });
            assert_eq!(found, every, "{} terms", terms.len());
        }
    }

    #[test]
    fn finds_mark_what_tokenising_every_word_marks() {
        let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
        // Patterns found inside other words (`are`; `ana` overlapping itself in `banAna`),
        // camel case, joiners and digits, one pattern beginning with another (`tar`, `tarball`);
        // words whose folded form is a term (`Café`, NFD `étude`), terms in other scripts, and
        // ASCII parts of words beyond ASCII (`中文abc`), words beside symbols (`tar─ball`).
        let queries = [
            page_marks(set(&["areas"]), set(&["area"])),
            page_marks(set(&["ana", "nan"]), set(&[])),
            page_marks(set(&["tar", "tarball", "star"]), set(&["ball"])),
            page_marks(set(&["file-system", "system", "x86"]), set(&["run"])),
            page_marks(set(&["cafe", "munchen", "etude", "strasse", "abc"]), set(&[])),
            page_marks(set(&["οδος", "中文", "文a"]), set(&["naiv"])),
            page_marks(set(&["a", "b", "c", "d", "e", "f"]), set(&[])),
            // Only in a compound's joined form (`real-time`, `soft-ware` → `software`).
            page_marks(set(&["realtime"]), set(&[&stem::stem("software").unwrap()[..]])),
            // Terms in letters the lookup table folds, whole, as parts and joined.
            page_marks(set(&["мир", "grosse", "große", "οδοσ", "cafe"]), set(&[])),
            page_marks(set(&["приветмир", "cafebar", "application", "arger"]), set(&[])),
            page_marks(set(&["config", "ファイ", "がが", "豈中", "ไท"]), set(&["read"])),
        ];
        let words = [
            "areas",
            "Areas",
            "hardware",
            "software-areas",
            "dataAreas",
            "AREAS",
            "banana",
            "Banana",
            "bAnanas",
            "ananas",
            "banAna",
            "star",
            "tarball",
            "Tarballs",
            "mustard",
            "file-system",
            "filesystem",
            "fileSystem",
            "x86",
            "ax86",
            "running",
            "Runs",
            "outrun",
            "HTMLParser",
            "are",
            "nan",
            "Café",
            "café",
            "cafébar",
            "München",
            "e\u{301}tude",
            "Straße",
            "STRASSE",
            "中文abc",
            "abc中文",
            "ΟΔΟΣ",
            "οδος-x",
            "naïve",
            "naive",
            "x—y",
            "a\u{3000}b",
            "Ærø",
            "設定ファイルconfigを読む",
            "か\u{3099}が",
            "\u{f900}中文",
            "ภาษาไทยabc",
            "l’application",
            "d’Ärger—x",
            "Привет__мир",
            "мир-Ключ",
            "Größe",
            "größe_x",
            "GRÖSSE",
            "Café-Bar",
            "ΟΔΟΣ_οδός",
            "Ключ",
            "real-time",
            "Real_Time",
            "real-times",
            "soft-ware",
            "Soft-wares",
            "x-realtime",
            "real--time",
            "r-e-a-l-t-i-m-e",
            "--Real-time",
            "soft__ware",
            "re_al-ti--me",
            // Symbols beyond ASCII, which are never part of a word, beside words and alone.
            "─",
            "──────",
            "→",
            "✅",
            "tar─ball",
            "──Areas",
            "café→areas",
            "│run│",
            "①",
            "x²",
        ];
        let mut seed = 11u64;
        for _ in 0..4000 {
            let len = (next(&mut seed) >> 33) as usize % 12;
            let text: String = (0..len)
                .map(|_| {
                    let r = next(&mut seed);
                    [" ", "_", "-", ", ", "", " -- "][(r >> 40) as usize % 6].to_string()
                        + words[(r >> 33) as usize % words.len()]
                })
                .collect();
            for marks in &queries {
                let mut every = Vec::new();
                tokenizer::for_each_token(&text, |t| {
                    if marks.weight(t.text) > 0.0 {
                        every.push((t.from, t.to));
                    }
                });
                let found: Vec<_> =
                    marks.matches(&text, text.is_ascii(), usize::MAX).0.iter().map(|m| (m.from, m.to)).collect();
                assert_eq!(found, every, "{text:?}");
            }
        }
    }
}
