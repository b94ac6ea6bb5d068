//! What a preview marks, and where in a text: the query's terms and stems, the words of a page
//! remembered with their matched tokens.

use std::cell::{OnceCell, RefCell};
use std::hash::BuildHasher;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use memchr::memmem;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use super::find::{
    fewest, first_of_few, in_word, merged, runs_beyond_ascii, word_around, Finder, Pairs, FEW_PATTERNS,
    FIRST_TERM_STRETCH,
};
use super::MAX_MATCHES;
use super::*;
use crate::stem;

/// Finds of one pattern looked at per text (most are matches; a short pattern inside many
/// other words stops here, and the preview is then cut from the matches found so far).
const MAX_FINDS: usize = 1024;

/// What a preview marks: the query's content terms (typo and wildcard expansions included) and
/// the stems of its plain words.
pub(in crate::search) struct Marks {
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
    pub(super) found: RefCell<Vec<Match>>,
}

/// What [`Marks::matches_into`] works in: a lower-cased copy of the text, the finds, and the
/// words with joiners and characters beyond ASCII to look at besides them.
#[derive(Default)]
pub(super) struct Scratch {
    lower: Vec<u8>,
    finds: Vec<(usize, usize)>,
    others: Vec<usize>,
}

/// Words (and tokens) whose matches [`Marks`] remembers: a page of long texts in many words stops
/// adding.
pub(super) const MAX_SEEN: usize = 4096;
/// Distinct words (and tokens) the preview of a hit usually adds to what its page looked at (64
/// for a ten-hit page).
pub(super) const WORDS_OF_A_HIT: usize = 7;

/// A matched token of a word, at byte offsets in the word.
#[derive(Clone, Copy)]
pub(super) struct WordMatch {
    from: u32,
    to: u32,
    weight: f32,
    word: u64,
}

/// A matched token of a text: its byte range and weight, and a hash of its text (which words
/// are the same is all a preview asks of it).
pub(super) struct Match {
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) weight: f32,
    pub(super) word: u64,
}

impl Marks {
    /// What the previews of a page of `hits` hits mark.
    pub(in crate::search) fn new(
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

    pub(super) fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.stems.is_empty()
    }

    /// Where the first term or other form of a query word is in `text` (ASCII case aside). A few
    /// are each searched for in a lower-cased copy; many (a wildcard's expansions: each searched for took 50 ms a hit on
    /// 6 MB) are found in one pass of an automaton, slower per byte than a substring search.
    pub(super) fn first_term(&self, text: &[u8]) -> Option<usize> {
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
    pub(super) fn weight(&self, token: &str) -> f32 {
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
    pub(super) fn word_matches(&self, word: &str) -> Box<[WordMatch]> {
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
    pub(super) fn may_hold_match(&self, word: &str) -> bool {
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
    pub(super) fn may_match_joined(&self, text: &[u8]) -> bool {
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
    pub(super) fn matches(&self, text: &str, ascii: bool, limit: usize) -> (Vec<Match>, bool) {
        let mut out = Vec::with_capacity(limit.min(MAX_MATCHES));
        let all = self.matches_into(text, ascii, limit, &mut out);
        (out, all)
    }

    /// [`Self::matches`] into `out` (cleared first); whether they are all of the text's matches.
    pub(super) fn matches_into(&self, text: &str, ascii: bool, limit: usize, out: &mut Vec<Match>) -> bool {
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
