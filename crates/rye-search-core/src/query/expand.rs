//! Typo and wildcard expansion: a fuzzy term, a wildcard or a lone CJK character becomes the real
//! terms of the dictionaries it matches (the closest or most frequent, as many as the query's
//! budget leaves), each a BM25 term query, typos weighed down by edit distance.

use std::cmp::Ordering;
use std::iter::Peekable;
use std::sync::{Arc, Mutex, OnceLock};

use levenshtein_automata::LevenshteinAutomatonBuilder;
use tantivy::index::SegmentId;
use tantivy::query::Query;
use tantivy::schema::Field;
use tantivy::{Searcher, SegmentReader};
use tantivy_fst::{Automaton, Regex};

use super::terms::{term_query, text_term};
use crate::all_terms::{AllTerms, DfaAutomaton, FoundTerm, LazyAllTerms};
use crate::error::{Error, Result};
use crate::tokenizer;

/// Most terms one wildcard may expand to, per field (the most frequent are kept).
pub const MAX_WILDCARD_EXPANSIONS: usize = 256;
/// Most terms one fuzzy term may expand to, per field (the closest, then most frequent).
pub const MAX_FUZZY_EXPANSIONS: usize = 32;
/// Fuzzy terms shorter than this are matched exactly: one edit on two letters matches noise.
pub const MIN_FUZZY_TERM_CHARS: usize = 3;
/// Characters of the longest word typos are looked for in (fuzzy terms, the retry with typos, "did
/// you mean"). A word's Levenshtein automaton grows with its length: for a run of 4,000 CJK
/// characters (one word) it took ~500 MB and 3 s, and no word that long has a typo worth finding.
pub const MAX_TYPO_CHARS: usize = 64;

/// Typos a word of `chars` characters may have when they are allowed by its length, as
/// Meilisearch allows them: none below 5 characters, one from 5, two from 9.
pub fn typos_by_length(chars: usize) -> u8 {
    match chars {
        0..5 => 0,
        5..9 => 1,
        _ => 2,
    }
}

/// Score multiplier for an expansion at a given edit distance. When the word itself is in the
/// index, typos only rescue items that lack it: they weigh so little that an item with the exact
/// word ranks above one with only a typo, even in a heavier field.
fn distance_weight(distance: u8, exact_exists: bool) -> f32 {
    match (distance, exact_exists) {
        (0, _) => 1.0,
        (1, false) => 0.5,
        (_, false) => 0.25,
        (1, true) => 0.01,
        (_, true) => 0.005,
    }
}

/// Levenshtein automaton builders for distances 1 and 2, a transposition counting as one edit. Building one costs far more than a
/// fuzzy query, so each is built once per process.
fn lev_builder(distance: u8) -> &'static LevenshteinAutomatonBuilder {
    static BUILDERS: [OnceLock<LevenshteinAutomatonBuilder>; 2] = [OnceLock::new(), OnceLock::new()];
    BUILDERS[distance as usize - 1].get_or_init(|| LevenshteinAutomatonBuilder::new(distance, true))
}

/// What terms are expanded against: the searcher's segments and their all-terms dictionaries.
pub(super) struct Expander<'a> {
    searcher: &'a Searcher,
    /// Each segment's all-terms dictionary, in segment order: fuzzy terms and wildcards walk it.
    all_terms: Vec<&'a LazyAllTerms>,
    walks: Option<&'a TypoWalks>,
}

/// The terms each typo walk of one search found (Levenshtein automata over the segments' all-terms
/// dictionaries), kept for the rest of that search: a word that matched nothing is walked at two
/// edits by its retry with typos (once more for each relaxation of a plain question) and again by
/// "did you mean", and a walk at two edits of a long word is most of what such a search costs.
#[derive(Debug, Default)]
pub struct TypoWalks(Mutex<Vec<TypoWalk>>);

#[derive(Debug)]
struct TypoWalk {
    token: String,
    distance: u8,
    /// Ordinals of this segment's dictionary (a refresh between two walks may change the list).
    segment: SegmentId,
    ordinals: Arc<[u32]>,
}

impl TypoWalks {
    fn get_or_walk(
        &self,
        token: &str,
        distance: u8,
        segment: SegmentId,
        walk: impl FnOnce() -> Result<Vec<u32>>,
    ) -> Result<Arc<[u32]>> {
        let same = |w: &&TypoWalk| w.token == token && w.distance == distance && w.segment == segment;
        if let Some(found) = self.0.lock().unwrap_or_else(|e| e.into_inner()).iter().find(same) {
            return Ok(found.ordinals.clone());
        }
        let ordinals: Arc<[u32]> = walk()?.into();
        let walk = TypoWalk { token: token.to_string(), distance, segment, ordinals: ordinals.clone() };
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(walk);
        Ok(ordinals)
    }
}

/// The term queries an expansion gives, and the most terms any field matched (more than were
/// kept: the caller warns).
pub(super) struct Expansion {
    pub queries: Vec<Box<dyn Query>>,
    pub most: usize,
}

impl<'a> Expander<'a> {
    pub(super) fn new(searcher: &'a Searcher, all_terms: Vec<&'a LazyAllTerms>) -> Self {
        Expander { searcher, all_terms, walks: None }
    }

    /// Typo walks are read from, and kept in, `walks`.
    pub(super) fn sharing(mut self, walks: Option<&'a TypoWalks>) -> Self {
        self.walks = walks;
        self
    }

    /// The closest terms to `token` within `distance` edits (1 or 2), `keep` per field (the
    /// closest, then most frequent), typos weighed down by distance.
    pub(super) fn fuzzy(&self, token: &str, fields: &[(Field, f32)], keep: usize, distance: u8) -> Result<Expansion> {
        let distance = distance.clamp(1, 2);
        let mut most = 0;
        let mut kept = Vec::new();
        for (&(field, boost), found) in fields.iter().zip(self.typos(fields, token, distance)?) {
            let mut ranked: Vec<(u8, u64, Box<[u8]>)> = found
                .into_terms()
                .into_iter()
                .map(|(term, df)| {
                    let d = levenshtein(token, &String::from_utf8_lossy(&term)).min(255) as u8;
                    (d, df, term)
                })
                .collect();
            ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
            most = most.max(ranked.len());
            ranked.truncate(keep);
            kept.push((field, boost, ranked));
        }
        let exact_exists = kept.iter().any(|(_, _, ranked)| ranked.first().is_some_and(|r| r.0 == 0));
        let mut queries = Vec::new();
        for (field, boost, ranked) in kept {
            for (d, _, term) in ranked {
                queries.push(term_query(text_term(field, &term), boost * distance_weight(d, exact_exists)));
            }
        }
        Ok(Expansion { queries, most })
    }

    /// The `keep` most frequent terms per field that `pattern` (`*` any characters) matches;
    /// `query` is the whole query, to place an error.
    pub(super) fn wildcard(
        &self,
        pattern: &str,
        fields: &[(Field, f32)],
        keep: usize,
        query: &str,
    ) -> Result<Expansion> {
        let lowered = tokenizer::normalize(pattern);
        let expanded = match lowered.strip_suffix('*').filter(|p| !p.is_empty() && !p.contains('*')) {
            // `file*`, the usual wildcard: building a regex automaton cost more than the walk.
            Some(prefix) => self.expand(fields, &Prefix(prefix.as_bytes()), None)?,
            None => {
                let regex: String = lowered.split('*').map(regex_syntax::escape).collect::<Vec<_>>().join(".*");
                let automaton = Regex::new(&regex).map_err(|e| Error::QuerySyntax {
                    message: format!("wildcard \"{pattern}\" cannot be used: {e}"),
                    position: query.find(pattern).map(|b| query[..b].chars().count()).unwrap_or(0),
                    hint: "use * only as a wildcard inside a word, e.g. file* or *thread*".into(),
                })?;
                // With a leading `*` the dictionary walk cannot be narrowed: the terms holding
                // the longest literal part are found by substring search instead.
                let part = if lowered.starts_with('*') { lowered.split('*').max_by_key(|p| p.len()) } else { None };
                self.expand(fields, &automaton, part.filter(|p| !p.is_empty()).map(str::as_bytes))?
            }
        };
        Ok(most_frequent(fields, expanded, keep))
    }

    /// The `keep` most frequent pairs per field that hold a lone ideograph or syllable.
    pub(super) fn pairs(&self, token: &str, fields: &[(Field, f32)], keep: usize) -> Result<Expansion> {
        let c = regex_syntax::escape(token);
        let pairs = Regex::new(&format!("{c}.|.{c}")).map_err(|e| Error::Internal(format!("pair pattern: {e}")))?;
        let expanded = self.expand(fields, &pairs, Some(token.as_bytes()))?;
        Ok(most_frequent(fields, expanded, keep))
    }

    /// The terms of each of `fields` within `distance` edits (1 or 2) of `token`, as
    /// [`Expander::expand`] finds them; where walks are shared, a walk of the same token and
    /// distance in this search is read instead of made again.
    fn typos(&self, fields: &[(Field, f32)], token: &str, distance: u8) -> Result<Vec<Found>> {
        let dfa = OnceLock::new();
        let automaton = || DfaAutomaton(dfa.get_or_init(|| lev_builder(distance).build_dfa(token)));
        let Some(walks) = self.walks else { return self.expand(fields, &automaton(), None) };
        self.each_segment(
            fields,
            |segment, all, found| {
                let ordinals =
                    walks.get_or_walk(token, distance, segment.segment_id(), || all.ordinals(automaton()))?;
                ordinals.iter().try_for_each(|&ordinal| found(all.at(ordinal)))
            },
            |segment, out| walk_fields(segment, fields, &automaton(), out),
        )
    }

    /// The terms of each of `fields` the automaton accepts, with document frequencies summed
    /// over segments. Where a segment's all-terms dictionary is ready: one walk of it
    /// (or a substring search for `part`, which every accepted term contains), which knows each
    /// term's frequency in each field; else a walk of each field's dictionary.
    fn expand<A: Automaton>(&self, fields: &[(Field, f32)], automaton: &A, part: Option<&[u8]>) -> Result<Vec<Found>>
    where
        A::State: Clone,
    {
        self.each_segment(
            fields,
            |_, all, found| match part {
                Some(part) => all.search_containing(part, automaton, found),
                None => all.search(automaton, found),
            },
            |segment, out| walk_fields(segment, fields, automaton, out),
        )
    }

    /// The terms of each of `fields` that each segment gives, document frequencies summed over
    /// segments: `in_all_terms` hands over what it finds in a segment's all-terms dictionary,
    /// when it is ready; else `in_each_field` adds what it finds in each field's own.
    fn each_segment(
        &self,
        fields: &[(Field, f32)],
        mut in_all_terms: impl FnMut(&SegmentReader, &AllTerms, &mut dyn FnMut(FoundTerm) -> Result<()>) -> Result<()>,
        mut in_each_field: impl FnMut(&SegmentReader, &mut [Found]) -> Result<()>,
    ) -> Result<Vec<Found>> {
        let mut out: Vec<Found> = fields.iter().map(|_| Found::new()).collect();
        for (n, (segment, lazy)) in self.searcher.segment_readers().iter().zip(&self.all_terms).enumerate() {
            if n > 0 {
                out.iter_mut().for_each(Found::next_segment);
            }
            let ready = lazy.get_or_start(segment).and_then(|all| {
                let bits = fields.iter().map(|&(f, _)| all.bit(f)).collect::<Option<Vec<u64>>>()?;
                Some((all, bits))
            });
            match ready {
                Some((all, bits)) => in_all_terms(segment, all, &mut |found: FoundTerm| {
                    for (i, &bit) in bits.iter().enumerate() {
                        if let Some(df) = found.doc_freq(bit) {
                            out[i].add(found.term, df as u64);
                        }
                    }
                    Ok(())
                })?,
                None => in_each_field(segment, &mut out)?,
            }
        }
        Ok(out)
    }
}

/// The terms of each of `fields` the automaton accepts in `segment`, each field's own dictionary
/// walked (its all-terms dictionary is not built yet).
fn walk_fields<A: Automaton>(
    segment: &SegmentReader,
    fields: &[(Field, f32)],
    automaton: &A,
    out: &mut [Found],
) -> Result<()>
where
    A::State: Clone,
{
    for (i, &(field, _)) in fields.iter().enumerate() {
        let index = segment.inverted_index(field)?;
        let mut stream = index.terms().search(automaton).into_stream()?;
        while stream.advance() {
            out[i].add(stream.key(), stream.value().doc_freq as u64);
        }
    }
    Ok(())
}

/// Terms an expansion found in one field, each once, in term order, with their document
/// frequencies summed over segments. Every walk of a segment yields its terms in term order, so
/// each segment's are merged into the terms of those before it as they come: a term found before
/// is neither looked up nor copied again. A wide wildcard finds most of the dictionary (`*e*`:
/// every term with an `e`); an ordered map compared long shared prefixes at every level (half of
/// `*e*`'s time), a hash map hashed and compared every term in every segment.
struct Found {
    /// Terms of the segments before the current one, in term order, not yet passed.
    before: Peekable<std::vec::IntoIter<(Box<[u8]>, u64)>>,
    /// Terms in term order, up to the current segment's last.
    terms: Vec<(Box<[u8]>, u64)>,
}

impl Found {
    fn new() -> Self {
        Found { before: Vec::new().into_iter().peekable(), terms: Vec::new() }
    }

    /// Before the next segment's terms (each segment's in term order).
    fn next_segment(&mut self) {
        self.terms.extend(&mut self.before);
        let capacity = self.terms.len();
        self.before = std::mem::replace(&mut self.terms, Vec::with_capacity(capacity)).into_iter().peekable();
    }

    /// Adds `df` documents to `term`, which comes after the current segment's terms so far.
    fn add(&mut self, term: &[u8], df: u64) {
        debug_assert!(self.terms.last().is_none_or(|(last, _)| **last < *term), "terms out of order");
        while let Some(older) = self.before.next_if(|(t, _)| **t < *term) {
            self.terms.push(older);
        }
        match self.before.next_if(|(t, _)| **t == *term) {
            Some((t, sum)) => self.terms.push((t, sum + df)),
            None => self.terms.push((term.into(), df)),
        }
    }

    fn into_terms(mut self) -> Vec<(Box<[u8]>, u64)> {
        self.terms.extend(self.before);
        self.terms
    }
}

/// The `n` words of `fields` closest to `token` within two edits, closest then most frequent
/// first; not `token` itself ("did you mean").
pub fn closest_words(
    searcher: &Searcher,
    all_terms: Vec<&LazyAllTerms>,
    fields: &[(Field, f32)],
    token: &str,
    n: usize,
    walks: Option<&TypoWalks>,
) -> Result<Vec<String>> {
    let expander = Expander::new(searcher, all_terms).sharing(walks);
    // Each field's terms (in term order) are merged as a segment's are: a word may be in several.
    let mut found = Found::new();
    for per_field in expander.typos(fields, token, 2)? {
        found.next_segment();
        for (term, df) in per_field.into_terms() {
            found.add(&term, df);
        }
    }
    let mut ranked: Vec<(usize, u64, String)> = found
        .into_terms()
        .into_iter()
        .map(|(term, df)| (String::from_utf8_lossy(&term).into_owned(), df))
        .filter(|(term, _)| term != token)
        .map(|(term, df)| (levenshtein(token, &term), df, term))
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    Ok(ranked.into_iter().take(n).map(|(_, _, term)| term).collect())
}

/// Term queries for the `keep` most frequent expansions in each field, and the most any field had.
fn most_frequent(fields: &[(Field, f32)], expanded: Vec<Found>, keep: usize) -> Expansion {
    let mut most = 0;
    let mut queries = Vec::new();
    for (&(field, boost), found) in fields.iter().zip(expanded) {
        let terms = found.into_terms();
        most = most.max(terms.len());
        for (term, _) in most_frequent_terms(terms, keep) {
            queries.push(term_query(text_term(field, &term), boost));
        }
    }
    Expansion { queries, most }
}

/// The `keep` most frequent of `terms`, most frequent first, ties by term. The `keep` are chosen
/// in linear time and only they are sorted: a wide wildcard finds tens of thousands.
fn most_frequent_terms(mut terms: Vec<(Box<[u8]>, u64)>, keep: usize) -> Vec<(Box<[u8]>, u64)> {
    let by_frequency = |a: &(Box<[u8]>, u64), b: &(Box<[u8]>, u64)| -> Ordering { b.1.cmp(&a.1).then(a.0.cmp(&b.0)) };
    if terms.len() > keep && keep > 0 {
        terms.select_nth_unstable_by(keep - 1, by_frequency);
    }
    terms.truncate(keep);
    terms.sort_unstable_by(by_frequency);
    terms
}

/// Edit distance over characters where a swap of two neighbouring letters is one edit, as
/// people count typos (`pyhton` is one edit from `python`): optimal string alignment, the
/// distance the fuzzy automata use.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back for the transposition.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 0..a.len() {
        let mut cur = vec![i + 1; b.len() + 1];
        for j in 0..b.len() {
            let mut d = (prev[j] + usize::from(a[i] != b[j])).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

/// Accepts the terms that start with a prefix. State: how many of its bytes matched so far, or
/// None once a byte differs.
struct Prefix<'a>(&'a [u8]);

impl Automaton for Prefix<'_> {
    type State = Option<usize>;

    fn start(&self) -> Option<usize> {
        Some(0)
    }

    fn is_match(&self, state: &Option<usize>) -> bool {
        *state == Some(self.0.len())
    }

    fn can_match(&self, state: &Option<usize>) -> bool {
        state.is_some()
    }

    fn will_always_match(&self, state: &Option<usize>) -> bool {
        self.is_match(state)
    }

    fn accept(&self, state: &Option<usize>, byte: u8) -> Option<usize> {
        match *state {
            Some(n) if n == self.0.len() => Some(n),
            Some(n) if self.0[n] == byte => Some(n + 1),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::testing;
    use super::*;

    /// Each field's terms `automaton` accepts, summed over segments, by walking each field's
    /// dictionary in each segment: what `expand` must find, both before and after the segments'
    /// all-terms dictionaries are built.
    fn walked<A: Automaton>(searcher: &Searcher, fields: &[(Field, f32)], automaton: &A) -> Vec<BTreeMap<Vec<u8>, u64>>
    where
        A::State: Clone,
    {
        let mut out = vec![BTreeMap::new(); fields.len()];
        for segment in searcher.segment_readers() {
            for (i, &(field, _)) in fields.iter().enumerate() {
                let index = segment.inverted_index(field).unwrap();
                let mut stream = index.terms().search(automaton).into_stream().unwrap();
                while stream.advance() {
                    *out[i].entry(stream.key().to_vec()).or_insert(0) += stream.value().doc_freq as u64;
                }
            }
        }
        out
    }

    #[test]
    fn expansions_sum_each_term_over_segments() {
        let (searcher, title, body) = testing::searcher(60);
        let fields = [(title, 2.0), (body, 1.0)];
        let lazy: Vec<LazyAllTerms> =
            searcher.segment_readers().iter().map(|_| LazyAllTerms::new(&[title, body])).collect();
        let expander = Expander::new(&searcher, lazy.iter().collect());
        // `n0`…`n59` in every segment's body, `epsilon` in some titles.
        let regex = Regex::new(".*n.*").unwrap();
        let expected = walked(&searcher, &fields, &regex);
        assert!(expected[1].len() > 50 && !expected[0].is_empty());
        let found = |part: Option<&[u8]>| -> Vec<BTreeMap<Vec<u8>, u64>> {
            let out = expander.expand(&fields, &regex, part).unwrap();
            out.into_iter().map(|f| f.into_terms().into_iter().map(|(t, df)| (t.into_vec(), df)).collect()).collect()
        };
        // The all-terms dictionaries are not built yet: each field's dictionary is walked.
        assert_eq!(found(None), expected);
        for (segment, lazy) in searcher.segment_readers().iter().zip(&lazy) {
            while lazy.get_or_start(segment).is_none() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        assert_eq!(found(None), expected);
        assert_eq!(found(Some(b"n")), expected);
    }

    #[test]
    fn the_most_frequent_terms_are_kept_ties_by_term() {
        // Frequencies with many ties, terms in no order.
        let terms: Vec<(Box<[u8]>, u64)> =
            (0..200u64).map(|i| (format!("t{:03}", (i * 37) % 200).into_bytes().into(), (i * 7) % 13)).collect();
        let mut sorted = terms.clone();
        sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for keep in [0, 1, 2, 13, 50, 199, 200, 256] {
            let expected: Vec<_> = sorted.iter().take(keep).cloned().collect();
            assert_eq!(most_frequent_terms(terms.clone(), keep), expected, "keep {keep}");
        }
    }

    fn accepted<A: Automaton>(automaton: &A, term: &str) -> bool {
        let mut state = automaton.start();
        for &b in term.as_bytes() {
            if !automaton.can_match(&state) {
                return false;
            }
            state = automaton.accept(&state, b);
        }
        automaton.is_match(&state)
    }

    #[test]
    fn a_prefix_accepts_what_its_regex_accepts() {
        for p in ["f", "file", "fil\u{e9}", "a.b"] {
            let regex = Regex::new(&format!("{}.*", regex_syntax::escape(p))).unwrap();
            for t in ["", "f", "file", "files", "fil\u{e9}s", "afile", "fi", "a.b", "a.bc", "axb"] {
                assert_eq!(accepted(&Prefix(p.as_bytes()), t), accepted(&regex, t), "{p} {t}");
            }
        }
    }

    #[test]
    fn levenshtein_distance() {
        assert_eq!(levenshtein("direcive", "directive"), 1);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        for (typo, word) in [("pyhton", "python"), ("libary", "library"), ("spwan", "spawn"), ("ab", "ba")] {
            assert_eq!(levenshtein(typo, word), 1, "{typo}");
        }
    }
}
