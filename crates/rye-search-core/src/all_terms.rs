//! One dictionary of the terms of every text field of a segment, each term marked with the
//! fields that hold it. A fuzzy term or a wildcard walks its automaton over this one
//! dictionary instead of over five: the walk, not the matches, is what such a query costs
//! (each field's walk cost about the same, however few terms it found), so fuzzy queries get
//! several times faster. Built for a segment when its first fuzzy or wildcard query comes, and
//! kept with it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread;

use tantivy::schema::Field;
use tantivy::SegmentReader;
use tantivy_fst::raw::{Fst, Node, Output};
use tantivy_fst::{Automaton, Map, MapBuilder};

use crate::error::{Error, Result};

pub struct AllTerms {
    /// Term → its ordinal (the index of its start, mask and frequencies below).
    map: Map<Vec<u8>>,
    fields: Vec<Field>,
    /// The same terms in order, each followed by [`SEPARATOR`], with where each starts and its
    /// mask: a pattern that starts with a wildcard cannot narrow a walk of the dictionary (a
    /// whole walk took ~20 ms at 60k items), but a substring search of these bytes is fast.
    text: Vec<u8>,
    starts: Vec<u32>,
    /// Bit `i` set when `fields[i]` holds the term.
    masks: Vec<u64>,
    /// The term's document frequency in each field that holds it, in bit order, from
    /// `df_starts[ordinal]`: a wildcard matching 70,000 terms looked each up again in every field's
    /// dictionary to rank them (`*e*` took 0.7 s at 60k items).
    dfs: Vec<u32>,
    df_starts: Vec<u32>,
}

/// A term a search of [`AllTerms`] found: the fields that hold it and how often.
pub struct FoundTerm<'a> {
    pub term: &'a [u8],
    pub mask: u64,
    dfs: &'a [u32],
}

impl FoundTerm<'_> {
    /// Documents of the field of `bit` (from [`AllTerms::bit`]) that hold the term, if it does.
    pub fn doc_freq(&self, bit: u64) -> Option<u32> {
        (self.mask & bit != 0).then(|| self.dfs[(self.mask & (bit - 1)).count_ones() as usize])
    }
}

/// A Levenshtein automaton (a fuzzy term's, a typo's, "did you mean"'s) as the dictionaries walk it.
pub struct DfaAutomaton<'a>(pub &'a levenshtein_automata::DFA);

impl Automaton for DfaAutomaton<'_> {
    type State = u32;
    fn start(&self) -> u32 {
        self.0.initial_state()
    }
    fn is_match(&self, state: &u32) -> bool {
        matches!(self.0.distance(*state), levenshtein_automata::Distance::Exact(_))
    }
    fn can_match(&self, state: &u32) -> bool {
        *state != levenshtein_automata::SINK_STATE
    }
    fn accept(&self, state: &u32, byte: u8) -> u32 {
        self.0.transition(*state, byte)
    }
}

/// Ends every term in [`AllTerms::text`]; never part of UTF-8, so never part of a match.
const SEPARATOR: u8 = 0xFF;

impl AllTerms {
    /// Merges the sorted term dictionaries of `fields` (at most 64).
    pub fn build(segment: &SegmentReader, fields: &[Field]) -> Result<Self> {
        let inverted = fields.iter().map(|&f| segment.inverted_index(f)).collect::<tantivy::Result<Vec<_>>>()?;
        let mut streams = Vec::with_capacity(inverted.len());
        for index in &inverted {
            let mut stream = index.terms().stream()?;
            let live = stream.advance();
            streams.push((stream, live));
        }
        let mut builder = MapBuilder::memory();
        let (mut text, mut starts, mut masks) = (Vec::new(), Vec::new(), Vec::new());
        let (mut dfs, mut df_starts) = (Vec::new(), Vec::new());
        let mut key = Vec::new();
        while let Some(least) = streams.iter().filter(|(_, live)| *live).map(|(s, _)| s.key()).min() {
            key.clear();
            key.extend_from_slice(least);
            let mut mask = 0u64;
            df_starts.push(u32::try_from(dfs.len()).map_err(|_| too_large())?);
            for (bit, (stream, live)) in streams.iter_mut().enumerate() {
                if *live && stream.key() == key.as_slice() {
                    mask |= 1 << bit;
                    dfs.push(stream.value().doc_freq);
                    *live = stream.advance();
                }
            }
            builder.insert(&key, masks.len() as u64).map_err(fst_error)?;
            starts.push(u32::try_from(text.len()).map_err(|_| too_large())?);
            text.extend_from_slice(&key);
            text.push(SEPARATOR);
            masks.push(mask);
        }
        let map = Map::from_bytes(builder.into_inner().map_err(fst_error)?).map_err(fst_error)?;
        Ok(AllTerms { map, fields: fields.to_vec(), text, starts, masks, dfs, df_starts })
    }

    /// Bytes this dictionary holds.
    pub fn bytes(&self) -> u64 {
        let u32s = self.starts.len() + self.dfs.len() + self.df_starts.len();
        let columns = u32s * size_of::<u32>() + self.masks.len() * size_of::<u64>();
        (self.map.as_fst().size() + self.text.len() + columns) as u64
    }

    /// The bit of `field` in the masks, if this dictionary covers it.
    pub fn bit(&self, field: Field) -> Option<u64> {
        self.fields.iter().position(|&f| f == field).map(|i| 1 << i)
    }

    /// Calls `each` for every term the automaton accepts, in term order.
    pub fn search<A: Automaton>(&self, automaton: A, mut each: impl FnMut(FoundTerm) -> Result<()>) -> Result<()>
    where
        A::State: Clone,
    {
        walk(self.map.as_fst(), &automaton, |term, ordinal| each(self.found(term, ordinal as usize)))
    }

    /// The ordinals of the terms the automaton accepts, in term order (see [`AllTerms::at`]).
    pub fn ordinals<A: Automaton>(&self, automaton: A) -> Result<Vec<u32>>
    where
        A::State: Clone,
    {
        let mut ordinals = Vec::new();
        walk(self.map.as_fst(), &automaton, |_, ordinal| {
            ordinals.push(ordinal as u32);
            Ok(())
        })?;
        Ok(ordinals)
    }

    /// The term of `ordinal`, as a search finds it.
    pub fn at(&self, ordinal: u32) -> FoundTerm<'_> {
        let i = ordinal as usize;
        let end = self.starts.get(i + 1).map_or(self.text.len(), |&next| next as usize) - 1;
        self.found(&self.text[self.starts[i] as usize..end], i)
    }

    fn found<'a>(&'a self, term: &'a [u8], ordinal: usize) -> FoundTerm<'a> {
        let from = self.df_starts[ordinal] as usize;
        let to = self.df_starts.get(ordinal + 1).map_or(self.dfs.len(), |&next| next as usize);
        FoundTerm { term, mask: self.masks[ordinal], dfs: &self.dfs[from..to] }
    }

    /// Like [`AllTerms::search`] for an automaton that only accepts terms containing `part`
    /// (not empty): finds `part` in the terms' bytes, then runs the automaton on those terms.
    pub fn search_containing<A: Automaton>(
        &self,
        part: &[u8],
        automaton: A,
        mut each: impl FnMut(FoundTerm) -> Result<()>,
    ) -> Result<()> {
        let finder = memchr::memmem::Finder::new(part);
        let mut from = 0;
        while let Some(found) = finder.find(&self.text[from..]) {
            // The term holding the match, then on to the next term: each is reported once.
            let i = self.starts.partition_point(|&start| start as usize <= from + found) - 1;
            let term = self.at(i as u32);
            from = self.starts[i] as usize + term.term.len() + 1;
            if accepts(&automaton, term.term) {
                each(term)?;
            }
        }
        Ok(())
    }
}

/// Calls `each` with every key of `fst` that `automaton` accepts, and its value, in key order.
///
/// A depth-first walk that steps into a node only when the automaton can still match there.
/// `tantivy_fst`'s stream decodes the node behind every transition and pushes it on its stack
/// before asking the automaton: a two-edit Levenshtein automaton dies on most transitions of a
/// large dictionary, so a word that matched nothing (retried with typos, then given "did you
/// mean") spent milliseconds walking nodes it could never enter.
fn walk<A: Automaton>(fst: &Fst<Vec<u8>>, automaton: &A, mut each: impl FnMut(&[u8], u64) -> Result<()>) -> Result<()>
where
    A::State: Clone,
{
    struct Frame<'f, S> {
        node: Node<'f>,
        next: usize,
        out: Output,
        state: S,
    }
    let start = automaton.start();
    if !automaton.can_match(&start) {
        return Ok(());
    }
    let root = fst.root();
    if root.is_final() && automaton.is_match(&start) {
        each(&[], root.final_output().value())?;
    }
    let mut key: Vec<u8> = Vec::new();
    let mut stack = vec![Frame { node: root, next: 0, out: Output::zero(), state: start }];
    while let Some(top) = stack.last_mut() {
        if top.next == top.node.len() {
            stack.pop();
            // The root has no byte of the key.
            key.pop();
            continue;
        }
        let transition = top.node.transition(top.next);
        top.next += 1;
        let state = automaton.accept(&top.state, transition.inp);
        if !automaton.can_match(&state) {
            continue;
        }
        let out = top.out.cat(transition.out);
        let node = fst.node(transition.addr);
        key.push(transition.inp);
        if node.is_final() && automaton.is_match(&state) {
            each(&key, out.cat(node.final_output()).value())?;
        }
        stack.push(Frame { node, next: 0, out, state });
    }
    Ok(())
}

fn accepts<A: Automaton>(automaton: &A, bytes: &[u8]) -> bool {
    let mut state = automaton.start();
    for &b in bytes {
        if !automaton.can_match(&state) {
            return false;
        }
        state = automaton.accept(&state, b);
    }
    automaton.is_match(&state)
}

fn too_large() -> Error {
    Error::Index(tantivy::TantivyError::InternalError("the all-terms dictionary is over 4 GiB".into()))
}

/// A segment's [`AllTerms`] of `fields`, built on another thread when first asked for:
/// building takes ~2 µs a term (~130 ms for the 63,666 Debian items), which a search should
/// not wait for; until it is ready, searches walk each field's own dictionary.
pub struct LazyAllTerms(Arc<Shared>);

struct Shared {
    fields: Vec<Field>,
    started: AtomicBool,
    built: OnceLock<AllTerms>,
}

impl LazyAllTerms {
    pub fn new(fields: &[Field]) -> Self {
        LazyAllTerms(Arc::new(Shared {
            fields: fields.to_vec(),
            started: AtomicBool::new(false),
            built: OnceLock::new(),
        }))
    }

    /// Bytes of the dictionary, once built.
    pub fn bytes(&self) -> u64 {
        self.0.built.get().map_or(0, AllTerms::bytes)
    }

    /// The dictionary, if built; else `None`, and it starts being built.
    pub fn get_or_start(&self, segment: &SegmentReader) -> Option<&AllTerms> {
        if let Some(built) = self.0.built.get() {
            return Some(built);
        }
        if !self.0.started.swap(true, Ordering::AcqRel) {
            let (shared, segment) = (self.0.clone(), segment.clone());
            // If the thread cannot start or the build fails, searches keep walking each field.
            let _ = thread::Builder::new().name("rye-search-all-terms".into()).spawn(move || {
                if let Ok(built) = AllTerms::build(&segment, &shared.fields) {
                    let _ = shared.built.set(built);
                }
            });
        }
        None
    }
}

fn fst_error(e: tantivy_fst::Error) -> Error {
    Error::Index(tantivy::TantivyError::InternalError(format!("building the all-terms dictionary: {e}")))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use tantivy::schema::{Schema, TEXT};
    use tantivy::{doc, Index};
    use tantivy_fst::{IntoStreamer, Regex};

    use super::*;

    /// The merged dictionary holds exactly each field's terms, each marked with its fields and
    /// its document frequency in each.
    #[test]
    fn marks_every_term_with_the_fields_that_hold_it() {
        let mut schema = Schema::builder();
        let fields: Vec<Field> = ["a", "b", "c"].iter().map(|n| schema.add_text_field(n, TEXT)).collect();
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for i in 0..500u32 {
            let word = |k: u32| format!("w{}", (i * 7 + k) % 311);
            writer.add_document(doc!(fields[0] => word(0), fields[1] => format!("{} x{i}", word(1)))).unwrap();
            if i % 3 == 0 {
                writer.add_document(doc!(fields[2] => word(2))).unwrap();
            }
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let segment = &searcher.segment_readers()[0];
        let all = AllTerms::build(segment, &fields).unwrap();
        for (pattern, part) in [(".*1.*", "1"), (".*0", "0"), (".*4.*9", "9"), (".*w3.*", "w3"), (".*zz", "zz")] {
            let regex = Regex::new(pattern).unwrap();
            let (mut scanned, mut walked) = (Vec::new(), Vec::new());
            all.search_containing(part.as_bytes(), &regex, |f| {
                scanned.push((f.term.to_vec(), f.mask, f.dfs.to_vec()));
                Ok(())
            })
            .unwrap();
            all.search(&regex, |f| {
                walked.push((f.term.to_vec(), f.mask, f.dfs.to_vec()));
                Ok(())
            })
            .unwrap();
            assert_eq!(scanned, walked, "pattern {pattern}");
            assert_eq!(scanned.is_empty(), part == "zz");
        }
        for pattern in [".*", "w1.*", "x4[0-9]", "nothing"] {
            let regex = Regex::new(pattern).unwrap();
            let mut merged: Vec<BTreeSet<(Vec<u8>, u32)>> = vec![BTreeSet::new(); fields.len()];
            all.search(&regex, |found| {
                for (i, set) in merged.iter_mut().enumerate() {
                    if let Some(df) = found.doc_freq(all.bit(fields[i]).unwrap()) {
                        set.insert((found.term.to_vec(), df));
                    }
                }
                Ok(())
            })
            .unwrap();
            for (i, &field) in fields.iter().enumerate() {
                let mut own = BTreeSet::new();
                let inverted = segment.inverted_index(field).unwrap();
                let mut stream = inverted.terms().search(&regex).into_stream().unwrap();
                while stream.advance() {
                    own.insert((stream.key().to_vec(), stream.value().doc_freq));
                }
                assert_eq!(merged[i], own, "field {i}, pattern {pattern}");
            }
        }
        assert_eq!(all.bit(Field::from_field_id(99)), None);
    }

    /// Keys and their values, in the order found.
    type Keys = Vec<(Vec<u8>, u64)>;

    /// The walk finds what `tantivy_fst`'s stream finds, in the same order, with the same values:
    /// Levenshtein automata of one and two edits (as fuzzy terms and "did you mean" use them) and
    /// regexes, over words of ASCII and beyond, the empty key among them.
    #[test]
    fn the_walk_finds_what_the_stream_finds() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let letters: Vec<char> = "abcdeilnorstuéßжк日".chars().collect();
        let mut words: BTreeSet<String> =
            ["", "library", "librari", "libary", "lib", "ébène", "日本語"].map(String::from).into();
        while words.len() < 5_000 {
            let len = 1 + next() % 12;
            words.insert((0..len).map(|_| letters[(next() % letters.len() as u64) as usize]).collect());
        }
        let mut builder = MapBuilder::memory();
        for (i, word) in words.iter().enumerate() {
            builder.insert(word, i as u64 * 3 + 1).unwrap();
        }
        let map = Map::from_bytes(builder.into_inner().unwrap()).unwrap();
        fn both<A: Automaton>(map: &Map<Vec<u8>>, automaton: A) -> (Keys, Keys)
        where
            A::State: Clone,
        {
            let mut walked = Vec::new();
            walk(map.as_fst(), &automaton, |key, value| {
                walked.push((key.to_vec(), value));
                Ok(())
            })
            .unwrap();
            let mut streamed = Vec::new();
            let mut stream = map.search(&automaton).into_stream();
            while let Some((key, value)) = tantivy_fst::Streamer::next(&mut stream) {
                streamed.push((key.to_vec(), value));
            }
            (walked, streamed)
        }
        let mut found = 0;
        let mut check = |name: String, (walked, streamed): (Keys, Keys)| {
            assert_eq!(walked, streamed, "{name}");
            found += walked.len();
        };
        for token in ["library", "libary", "lib", "ébène", "日本", "sotr", "zzzzzzzzzz", "", "dance"] {
            for distance in [1, 2] {
                let dfa = levenshtein_automata::LevenshteinAutomatonBuilder::new(distance, true).build_dfa(token);
                check(format!("{token}~{distance}"), both(&map, DfaAutomaton(&dfa)));
            }
        }
        for pattern in [".*", "", "li.*", ".*é.*", "[a-d]{2}", "nothing"] {
            check(pattern.into(), both(&map, Regex::new(pattern).unwrap()));
        }
        assert!(found > words.len(), "the automata found {found} keys");
    }
}
