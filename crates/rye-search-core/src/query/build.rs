//! Query AST → Tantivy query. Wildcards and fuzzy terms are expanded here against the term
//! dictionaries so that every expansion is a real BM25 term query (Tantivy's own Fuzzy/Regex
//! queries score every match the same); fuzzy expansions are down-weighted by edit distance.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use levenshtein_automata::LevenshteinAutomatonBuilder;
use tantivy::index::SegmentId;
use tantivy::postings::TermInfo;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, BoostWeight, EmptyQuery, EnableScoring, Occur, PhraseQuery, Query, TermQuery,
    Weight,
};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::Searcher;
use tantivy_fst::{Automaton, Regex};

use super::budget::Budget;
use super::few_postings::{FewPostingsQuery, FieldTerm, FEW_POSTINGS};
use super::near::NearQuery;
use super::parse::Node;
use super::probed::{AnyFieldQuery, ProbedUnionQuery};
use crate::all_terms::LazyAllTerms;
use crate::error::{Error, Result};
use crate::query::dictionaries::Dictionaries;
use crate::{stem, tokenizer};

/// Weight of a compound query's joined spelling (`realtime` for `real-time`) beside its parts
/// in a row. German known-item MRR@10 (`bench/i18n-quality.js`, every compound joined then):
/// 0.947 before, 0.938 at weight 1, 0.942 at 0.5 and at 0.25 (Japanese 0.891 at 0.5, 0.885 at
/// 0.25). With two-part compounds only: de 0.943, Debian English 0.9402 → 0.9427.
const JOINED_WEIGHT: f32 = 0.5;
/// Most terms one wildcard may expand to, per field (the most frequent are kept).
pub const MAX_WILDCARD_EXPANSIONS: usize = 256;
/// Most terms one fuzzy term may expand to, per field (the closest, then most frequent).
pub const MAX_FUZZY_EXPANSIONS: usize = 32;
/// Fuzzy terms shorter than this are matched exactly: one edit on two letters matches noise.
pub const MIN_FUZZY_TERM_CHARS: usize = 3;

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

pub struct Builder<'a> {
    pub searcher: &'a Searcher,
    /// Each segment's all-terms dictionary, in segment order: fuzzy terms and wildcards walk it.
    all_terms: Vec<&'a LazyAllTerms>,
    /// Each segment's dictionaries of the searched fields, in segment order: words are looked up.
    dictionaries: Vec<&'a Dictionaries>,
    pub query: &'a str,
    pub fuzzy: u8,
    pub warnings: Vec<String>,
    lev: Option<&'static LevenshteinAutomatonBuilder>,
    budget: &'a Budget,
    /// The stem field and its boost: plain words also match their English word forms there.
    stems: Option<(Field, f32)>,
    /// Building a word that is one side of an intersection: it will be probed, not walked.
    probed: bool,
}

/// Levenshtein automaton builders for distances 1 and 2, a transposition counting as one edit. Building one costs far more than a
/// fuzzy query, so each is built once per process.
fn lev_builder(distance: u8) -> &'static LevenshteinAutomatonBuilder {
    static BUILDERS: [OnceLock<LevenshteinAutomatonBuilder>; 2] = [OnceLock::new(), OnceLock::new()];
    BUILDERS[distance as usize - 1].get_or_init(|| LevenshteinAutomatonBuilder::new(distance, true))
}

impl<'a> Builder<'a> {
    pub fn new(
        searcher: &'a Searcher,
        segments: impl Iterator<Item = (&'a LazyAllTerms, &'a Dictionaries)>,
        query: &'a str,
        fuzzy: u8,
        budget: &'a Budget,
    ) -> Self {
        let fuzzy = fuzzy.min(2);
        let lev = (fuzzy > 0).then(|| lev_builder(fuzzy));
        let (all_terms, dictionaries) = segments.unzip();
        Builder {
            searcher,
            all_terms,
            dictionaries,
            query,
            fuzzy,
            warnings: Vec::new(),
            lev,
            budget,
            stems: None,
            probed: false,
        }
    }

    /// Single words also match their stem in `field` (see [`crate::stem`]), at `boost`.
    pub fn with_stems(mut self, field: Field, boost: f32) -> Self {
        self.stems = Some((field, boost));
        self
    }

    /// Builds `node` searched over `fields` (field, boost).
    pub fn build(&mut self, node: &Node, fields: &[(Field, f32)]) -> Result<Box<dyn Query>> {
        Ok(match node {
            Node::All => Box::new(AllQuery),
            Node::Term(text) => self.term(text, fields)?,
            Node::Phrase(text) => {
                // Quotes ask for the words as written: no other word forms.
                let seq = self.token_sequence(text)?;
                let stems = self.stems.take();
                let exact = self.sequence(&seq, fields);
                self.stems = stems;
                exact
            }
            Node::Wildcard(pattern) => self.wildcard(pattern, fields)?,
            Node::Not(inner) => Box::new(BooleanQuery::new(vec![
                (Occur::Must, Box::new(AllQuery) as Box<dyn Query>),
                (Occur::MustNot, self.build(inner, fields)?),
            ])),
            Node::And(children) => {
                let mut clauses = Vec::new();
                let mut positive = false;
                for child in children {
                    match child {
                        Node::Not(inner) => clauses.push((Occur::MustNot, self.build(inner, fields)?)),
                        _ => {
                            positive = true;
                            // Only a word directly: inside a union or a phrase it is walked.
                            let probed = std::mem::replace(&mut self.probed, matches!(child, Node::Term(_)));
                            let side = self.build(child, fields);
                            self.probed = probed;
                            let side =
                                if matches!(child, Node::Phrase(_)) { side.map(ProbedUnionQuery::of) } else { side };
                            clauses.push((Occur::Must, side?));
                        }
                    }
                }
                if !positive {
                    clauses.push((Occur::Must, Box::new(AllQuery)));
                }
                Box::new(BooleanQuery::new(clauses))
            }
            Node::Or(children) => {
                let mut alternatives = Vec::new();
                for child in children {
                    push_alternative(&mut alternatives, self.build(child, fields)?);
                }
                any_of(few_or_terms(alternatives))
            }
        })
    }

    fn no_words(&self, text: &str) -> Error {
        Error::QuerySyntax {
            message: format!("\"{text}\" has no letters or digits to search for"),
            position: self
                .query
                .chars()
                .count()
                .min(self.query.find(text).map(|b| self.query[..b].chars().count()).unwrap_or(0)),
            hint: "remove it, or search for words it contains".into(),
        }
    }

    /// The part tokens of a text in order (compounds contribute their parts).
    fn token_sequence(&self, text: &str) -> Result<Vec<String>> {
        let seq: Vec<String> = tokenizer::words(text).into_iter().flat_map(|w| w.parts).collect();
        if seq.is_empty() {
            return Err(self.no_words(text));
        }
        Ok(seq)
    }

    fn term(&mut self, text: &str, fields: &[(Field, f32)]) -> Result<Box<dyn Query>> {
        let words = tokenizer::words(text);
        if words.is_empty() {
            return Err(self.no_words(text));
        }
        if let Some(token) = tokenizer::lone_word_character(text) {
            return self.in_pairs(&token, fields);
        }
        if words.len() == 1 && words[0].parts.len() == 1 {
            let token = words[0].whole.clone();
            if self.fuzzy > 0 && token.chars().count() >= MIN_FUZZY_TERM_CHARS {
                if self.budget.take_walk() {
                    return self.fuzzy_term(&token, fields);
                }
                self.warnings.push(format!("\"{token}\" was matched exactly: the query has too many fuzzy terms"));
            }
            return Ok(self.sequence(&[token], fields));
        }
        if let [word] = &words[..] {
            if !tokenizer::also_joined(&word.whole, word.parts.len()) {
                return Ok(self.sequence(&word.parts, fields));
            }
            // A compound (`real-time`, `createTool`) is its parts in a row, or the same letters
            // written as one word (`realtime`, `createtool`), which the index holds for both.
            let parts = self.sequence(&word.parts, fields);
            let joined = self.sequence(&[tokenizer::without_joiners(&word.whole)], fields);
            let joined = boosted(joined, JOINED_WEIGHT);
            return Ok(any_of(vec![parts, joined]));
        }
        let seq: Vec<String> = words.into_iter().flat_map(|w| w.parts).collect();
        Ok(self.sequence(&seq, fields))
    }

    /// A single token or a phrase of tokens, over every field that holds all its tokens.
    pub fn sequence(&self, seq: &[String], fields: &[(Field, f32)]) -> Box<dyn Query> {
        if let [token] = seq {
            return self.single(token, fields);
        }
        self.per_field(seq, fields, |terms| Box::new(PhraseQuery::new(terms)))
    }

    /// Distinct words within `slop` of their places, in any field that holds them all (see
    /// [`NearQuery`]: its work is bounded whatever the slop and the text).
    pub fn near(&self, words: &[String], fields: &[(Field, f32)], slop: u32) -> Box<dyn Query> {
        self.per_field(words, fields, |terms| Box::new(NearQuery::new(terms, slop)))
    }

    /// A query of `tokens` made by `make` in each field that holds them all, boosted by field.
    fn per_field(
        &self,
        tokens: &[String],
        fields: &[(Field, f32)],
        make: impl Fn(Vec<Term>) -> Box<dyn Query>,
    ) -> Box<dyn Query> {
        let per_field = fields
            .iter()
            .filter(|&&(field, _)| tokens.iter().all(|token| self.field_has(field, token)))
            .map(|&(field, boost)| {
                boosted(make(tokens.iter().map(|t| Term::from_field_text(field, t)).collect()), boost)
            })
            .collect();
        any_of(per_field)
    }

    /// One token over the fields that hold it: scored posting by posting when it has few
    /// postings (see [`FewPostingsQuery`]), else a union of term queries (block-max WAND), or
    /// one that seeks when an intersection will probe it (see [`AnyFieldQuery`]).
    fn single(&self, token: &str, fields: &[(Field, f32)]) -> Box<dyn Query> {
        let stem = self.stems.and_then(|(field, boost)| Some((field, boost, stem::stem(token)?)));
        let targets: Vec<(Field, f32, &str)> = fields
            .iter()
            .map(|&(field, boost)| (field, boost, token))
            .chain(stem.as_ref().map(|(f, b, s)| (*f, *b, &**s)))
            .collect();
        let found: Option<Vec<FieldTerm>> = targets
            .iter()
            .map(|&(field, boost, text)| {
                let infos = self.lookup(field, text)?;
                Some(FieldTerm { term: Term::from_field_text(field, text), boost, infos })
            })
            .collect();
        let Some(mut terms) = found else {
            // A dictionary could not be read: term queries report the error when they run.
            let all = targets.iter().map(|&(field, boost, text)| term_query(Term::from_field_text(field, text), boost));
            return any_of(all.collect());
        };
        terms.retain(|t| t.infos.iter().any(Option::is_some));
        if terms.is_empty() {
            return Box::new(EmptyQuery);
        }
        if terms.iter().map(FieldTerm::doc_freq).sum::<u64>() <= FEW_POSTINGS {
            return Box::new(FewPostingsQuery::new(self.segment_ids(), terms));
        }
        match self.probed {
            true => Box::new(AnyFieldQuery::new(self.segment_ids(), terms)),
            false => any_of(term_queries(&terms)),
        }
    }

    fn segment_ids(&self) -> Vec<SegmentId> {
        self.searcher.segment_readers().iter().map(|s| s.segment_id()).collect()
    }

    /// The dictionary entry of `token` in `field` in each segment; None when a lookup failed.
    fn lookup(&self, field: Field, token: &str) -> Option<Vec<Option<TermInfo>>> {
        let segments = self.searcher.segment_readers().iter().enumerate();
        segments
            .map(|(i, segment)| match self.dictionaries.get(i).and_then(|d| d.get(field)) {
                Some(dictionary) => dictionary.terms().get(token.as_bytes()).ok(),
                None => segment.inverted_index(field).ok()?.terms().get(token.as_bytes()).ok(),
            })
            .collect()
    }

    /// Whether a segment's dictionary of `field` holds `token` (a failed lookup counts as yes).
    /// A clause for a term no document has in that field scores nothing, yet costs a weight (an
    /// idf explanation, a 256-entry norm table, a lookup) and a scorer (another lookup): a term
    /// is usually in two or three of the five fields.
    fn field_has(&self, field: Field, token: &str) -> bool {
        self.lookup(field, token).is_none_or(|infos| infos.iter().any(Option::is_some))
    }

    fn fuzzy_term(&mut self, token: &str, fields: &[(Field, f32)]) -> Result<Box<dyn Query>> {
        let dfa = self.lev.expect("fuzzy builder").build_dfa(token);
        let keep = self.budget.share(fields.len(), MAX_FUZZY_EXPANSIONS);
        let mut most = 0;
        let mut kept = Vec::new();
        for (&(field, boost), found) in fields.iter().zip(self.expand(fields, &DfaAutomaton(&dfa), None)?) {
            let mut ranked: Vec<(u8, u64, Vec<u8>)> = found
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
        let mut per_field = Vec::new();
        for (field, boost, ranked) in kept {
            for (d, _, term) in ranked {
                per_field.push(term_query(text_term(field, &term), boost * distance_weight(d, exact_exists)));
            }
        }
        // One warning per term, however many fields cut it.
        if most > keep {
            self.warnings.push(format!("fuzzy term \"{token}\" matched {most} terms; the {keep} closest were used"));
        }
        Ok(any_of(per_field))
    }

    fn wildcard(&mut self, pattern: &str, fields: &[(Field, f32)]) -> Result<Box<dyn Query>> {
        if !self.budget.take_walk() {
            return Err(Budget::too_many_wildcards(pattern));
        }
        let keep = self.budget.share(fields.len(), MAX_WILDCARD_EXPANSIONS);
        let lowered = tokenizer::normalize(pattern);
        let expanded = match lowered.strip_suffix('*').filter(|p| !p.is_empty() && !p.contains('*')) {
            // `file*`, the usual wildcard: building a regex automaton cost more than the walk.
            Some(prefix) => self.expand(fields, &Prefix(prefix.as_bytes()), None)?,
            None => {
                let regex: String = lowered.split('*').map(regex_syntax::escape).collect::<Vec<_>>().join(".*");
                let automaton = Regex::new(&regex).map_err(|e| Error::QuerySyntax {
                    message: format!("wildcard \"{pattern}\" cannot be used: {e}"),
                    position: self.query.find(pattern).map(|b| self.query[..b].chars().count()).unwrap_or(0),
                    hint: "use * only as a wildcard inside a word, e.g. file* or *thread*".into(),
                })?;
                // With a leading `*` the dictionary walk cannot be narrowed: the terms holding
                // the longest literal part are found by substring search instead.
                let part = if lowered.starts_with('*') { lowered.split('*').max_by_key(|p| p.len()) } else { None };
                self.expand(fields, &automaton, part.filter(|p| !p.is_empty()).map(str::as_bytes))?
            }
        };
        let (per_field, most) = most_frequent(fields, expanded, keep);
        if most > keep {
            self.warnings
                .push(format!("wildcard \"{pattern}\" matched {most} terms; the {keep} most frequent were used"));
        }
        Ok(any_of(per_field))
    }

    /// A lone ideograph or Hangul syllable (`猫`) is a word, but text indexes it inside the pairs
    /// of its run (`猫は` `黒猫`): it matches itself and, as a wildcard would, the most frequent
    /// pairs that hold it. Without this, `猫` found only items where it stood alone.
    fn in_pairs(&mut self, token: &str, fields: &[(Field, f32)]) -> Result<Box<dyn Query>> {
        let alone = self.sequence(&[token.to_string()], fields);
        if !self.budget.take_walk() {
            self.warnings.push(format!(
                "\"{token}\" was matched alone, not inside longer words: the query has too many wildcards"
            ));
            return Ok(alone);
        }
        let keep = self.budget.share(fields.len(), MAX_WILDCARD_EXPANSIONS);
        let c = regex_syntax::escape(token);
        let pairs = Regex::new(&format!("{c}.|.{c}")).map_err(|e| Error::Internal(format!("pair pattern: {e}")))?;
        let expanded = self.expand(fields, &pairs, Some(token.as_bytes()))?;
        let (mut alternatives, _) = most_frequent(fields, expanded, keep);
        alternatives.insert(0, alone);
        Ok(any_of(alternatives))
    }

    /// The terms of each of `fields` the automaton accepts, with document frequencies summed
    /// over segments. Where a segment's all-terms dictionary is ready: one walk of it (or a
    /// substring search for `part`, which every accepted term contains), then a lookup in each
    /// field that holds a term found; else a walk of each field's dictionary.
    fn expand<A: Automaton>(
        &self,
        fields: &[(Field, f32)],
        automaton: &A,
        part: Option<&[u8]>,
    ) -> Result<Vec<BTreeMap<Vec<u8>, u64>>>
    where
        A::State: Clone,
    {
        let mut out = vec![BTreeMap::new(); fields.len()];
        for (segment, lazy) in self.searcher.segment_readers().iter().zip(&self.all_terms) {
            let inverted =
                fields.iter().map(|&(f, _)| segment.inverted_index(f)).collect::<tantivy::Result<Vec<_>>>()?;
            let ready = lazy.get_or_start(segment).and_then(|all| {
                let bits = fields.iter().map(|&(f, _)| all.bit(f)).collect::<Option<Vec<u64>>>()?;
                Some((all, bits))
            });
            match ready {
                Some((all, bits)) => {
                    let found = |term: &[u8], mask: u64| {
                        for (i, bit) in bits.iter().enumerate() {
                            if mask & bit != 0 {
                                if let Some(info) = inverted[i].terms().get(term)? {
                                    *out[i].entry(term.to_vec()).or_insert(0) += info.doc_freq as u64;
                                }
                            }
                        }
                        Ok(())
                    };
                    match part {
                        Some(part) => all.search_containing(part, automaton, found)?,
                        None => all.search(automaton, found)?,
                    }
                }
                None => {
                    for (i, index) in inverted.iter().enumerate() {
                        let mut stream = index.terms().search(automaton).into_stream()?;
                        while stream.advance() {
                            *out[i].entry(stream.key().to_vec()).or_insert(0) += stream.value().doc_freq as u64;
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Term queries for the `keep` most frequent expansions in each field, and the most any field had.
fn most_frequent(
    fields: &[(Field, f32)],
    expanded: Vec<BTreeMap<Vec<u8>, u64>>,
    keep: usize,
) -> (Vec<Box<dyn Query>>, usize) {
    let mut most = 0;
    let mut queries = Vec::new();
    for (&(field, boost), found) in fields.iter().zip(expanded) {
        let mut ranked: Vec<(u64, Vec<u8>)> = found.into_iter().map(|(t, df)| (df, t)).collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        most = most.max(ranked.len());
        ranked.truncate(keep);
        for (_, term) in ranked {
            queries.push(term_query(text_term(field, &term), boost));
        }
    }
    (queries, most)
}

/// Term dictionaries hold the UTF-8 bytes of text terms.
fn text_term(field: Field, bytes: &[u8]) -> Term {
    Term::from_field_text(field, &String::from_utf8_lossy(bytes))
}

fn boosted(q: Box<dyn Query>, boost: f32) -> Box<dyn Query> {
    if (boost - 1.0).abs() < f32::EPSILON {
        q
    } else {
        Box::new(BoostQuery::new(q, boost))
    }
}

/// Adds `q` to a union, flattening a union inside it: `a OR b` over five fields becomes one
/// union of ten term queries, which Tantivy scores with block-max WAND, instead of a union of
/// unions that scores every match.
fn push_alternative(out: &mut Vec<Box<dyn Query>>, q: Box<dyn Query>) {
    if q.downcast_ref::<EmptyQuery>().is_some() {
        return; // matches nothing: `a OR b` where `b` is in no document is `a`
    }
    if let Some(union) = q.downcast_ref::<BooleanQuery>() {
        let clauses = union.clauses();
        if !clauses.is_empty() && clauses.iter().all(|(occur, _)| *occur == Occur::Should) {
            out.extend(clauses.iter().map(|(_, c)| c.box_clone()));
            return;
        }
    }
    out.push(q);
}

/// The alternatives of a union, with its few-postings parts joined into one when nothing else
/// is there, or turned back into term queries when the rest are term queries: a union of term
/// queries is scored with block-max WAND.
fn few_or_terms(alternatives: Vec<Box<dyn Query>>) -> Vec<Box<dyn Query>> {
    let (few, rest): (Vec<_>, Vec<_>) =
        alternatives.into_iter().partition(|q| q.downcast_ref::<FewPostingsQuery>().is_some());
    let few = few.iter().filter_map(|q| q.downcast_ref::<FewPostingsQuery>());
    if rest.is_empty() {
        let joined = few.cloned().reduce(|a, b| a.join(&b));
        return joined.into_iter().map(|q| Box::new(q) as Box<dyn Query>).collect();
    }
    let mut out = rest;
    if out.iter().all(|q| is_term_leaf(&**q)) {
        for q in few {
            out.extend(term_queries(q.terms()));
        }
    } else {
        out.extend(few.map(|q| Box::new(q.clone()) as Box<dyn Query>));
    }
    out
}

/// Whether `query` is a term query, boosted or not: what block-max WAND can skip through. A
/// boosted query is taken for a term query when it holds a single term without positions;
/// mistaking one costs time, never results.
pub fn is_term_leaf(query: &dyn Query) -> bool {
    if query.downcast_ref::<TermQuery>().is_some() || query.downcast_ref::<WeightedTerm>().is_some() {
        return true;
    }
    let mut terms = 0;
    let mut positions = false;
    query.query_terms(&mut |_, needs_positions| {
        terms += 1;
        positions |= needs_positions;
    });
    query.downcast_ref::<BoostQuery>().is_some() && terms == 1 && !positions
}

fn term_query(term: Term, boost: f32) -> Box<dyn Query> {
    Box::new(WeightedTerm { term, boost })
}

/// A term query with a weight: a boosted [`TermQuery`] that says its term and weight, which
/// ranking a union by MaxScore needs ([`super::max_score`]). It scores as a `BoostQuery` of the
/// term query does, and its scorer is Tantivy's term scorer (block-max WAND takes it as such).
#[derive(Clone, Debug)]
pub struct WeightedTerm {
    pub term: Term,
    pub boost: f32,
}

impl Query for WeightedTerm {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let weight = TermQuery::new(self.term.clone(), IndexRecordOption::WithFreqs).weight(scoring)?;
        Ok(match (self.boost - 1.0).abs() < f32::EPSILON {
            true => weight,
            false => Box::new(BoostWeight::new(weight, self.boost)),
        })
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        visitor(&self.term, false);
    }
}

fn term_queries(terms: &[FieldTerm]) -> Vec<Box<dyn Query>> {
    terms.iter().map(|t| term_query(t.term.clone(), t.boost)).collect()
}

fn any_of(mut queries: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    match queries.len() {
        0 => Box::new(EmptyQuery),
        1 => queries.pop().unwrap(),
        _ => Box::new(BooleanQuery::new(queries.into_iter().map(|q| (Occur::Should, q)).collect())),
    }
}

struct DfaAutomaton<'a>(&'a levenshtein_automata::DFA);

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

/// Positive plain tokens of a query in order (not under NOT), for proximity: a repeated token
/// stays, so each keeps its place in the query.
pub fn positive_tokens(node: &Node, out: &mut Vec<String>) {
    match node {
        Node::Term(t) | Node::Phrase(t) => out.extend(tokenizer::words(t).into_iter().flat_map(|w| w.parts)),
        Node::And(c) | Node::Or(c) => c.iter().for_each(|n| positive_tokens(n, out)),
        Node::Not(_) | Node::Wildcard(_) | Node::All => {}
    }
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
    use super::*;

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
