//! Query AST → Tantivy query: words, phrases, operators and fields become term, phrase and
//! boolean queries over the weighted fields (few-postings, probed and MaxScore shapes where they
//! are faster); fuzzy terms and wildcards are expanded by `expand` into real BM25 terms.

use std::cell::RefCell;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use tantivy::index::SegmentId;
use tantivy::postings::TermInfo;
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, EmptyQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{Field, Term};
use tantivy::Searcher;

use super::budget::Budget;
use super::expand::{
    typos_by_length, Expander, TypoWalks, MAX_FUZZY_EXPANSIONS, MAX_TYPO_CHARS, MAX_WILDCARD_EXPANSIONS,
    MIN_FUZZY_TERM_CHARS,
};
use super::few_postings::{FewPostingsQuery, FieldTerm, FEW_POSTINGS};
use super::near::{NearQuery, NearTerm};
use super::parse::Node;
use super::probed::{AnyFieldQuery, ProbedUnionQuery};
use super::terms::{any_of, boosted, term_queries, term_query, Entries, WeightedTerm};
use crate::all_terms::LazyAllTerms;
use crate::error::{Error, Result};
use crate::query::dictionaries::Dictionaries;
use crate::{stem, tokenizer};

/// Weight of a compound query's joined spelling (`realtime` for `real-time`) beside its parts
/// in a row. German known-item MRR@10 (`bench/i18n-quality.js`, every compound joined then):
/// 0.947 before, 0.938 at weight 1, 0.942 at 0.5 and at 0.25 (Japanese 0.891 at 0.5, 0.885 at
/// 0.25). With two-part compounds only: de 0.943, Debian English 0.9402 → 0.9427.
const JOINED_WEIGHT: f32 = 0.5;
pub struct Builder<'a> {
    pub searcher: &'a Searcher,
    /// Fuzzy terms, wildcards and lone CJK characters are expanded by it.
    expander: Expander<'a>,
    /// Each segment's dictionaries of the searched fields, in segment order: words are looked up.
    dictionaries: Vec<&'a Dictionaries>,
    pub query: &'a str,
    pub fuzzy: u8,
    pub warnings: Vec<String>,
    budget: &'a Budget,
    /// The stem field and its boost: plain words also match their English word forms there.
    stems: Option<(Field, f32)>,
    /// Building a word that is one side of an intersection: it will be probed, not walked.
    probed: bool,
    /// Typos allowed by each word's length ([`typos_by_length`]) instead of `fuzzy`.
    typos_by_length: bool,
    /// The dictionary entries looked up so far, by token and field, when the query will ask for
    /// them again ([`Self::remembering`]).
    looked_up: Option<RefCell<Remembered>>,
}

/// A token's dictionary entry in one field of each segment, in segment order; None when a lookup
/// failed.
type LookedUp = Option<Vec<Option<TermInfo>>>;

/// Entries looked up, by token, then field.
type Remembered = FxHashMap<String, Vec<(Field, LookedUp)>>;

impl<'a> Builder<'a> {
    pub fn new(
        searcher: &'a Searcher,
        segments: impl Iterator<Item = (&'a LazyAllTerms, &'a Dictionaries)>,
        query: &'a str,
        fuzzy: u8,
        budget: &'a Budget,
    ) -> Self {
        let fuzzy = fuzzy.min(2);
        let (all_terms, dictionaries) = segments.unzip();
        Builder {
            searcher,
            expander: Expander::new(searcher, all_terms),
            dictionaries,
            query,
            fuzzy,
            warnings: Vec::new(),
            budget,
            stems: None,
            probed: false,
            typos_by_length: false,
            looked_up: None,
        }
    }

    /// Words may have typos by their length (one from 5 characters, two from 9), whatever
    /// `fuzzy` says: a search that found nothing, tried again.
    pub fn with_typos_by_length(mut self) -> Self {
        self.typos_by_length = true;
        self
    }

    /// Typo walks are read from, and kept in, `walks` (see [`TypoWalks`]).
    pub fn sharing_typo_walks(mut self, walks: Option<&'a TypoWalks>) -> Self {
        self.expander = self.expander.sharing(walks);
        self
    }

    /// Keeps every dictionary entry looked up, for a query that asks for its words' entries again:
    /// the nearness of its words looks each one up in every field (a lookup is a walk of the
    /// field's FST, a fifth of a two-word search). Others would only pay for the keeping.
    pub fn remembering(mut self) -> Self {
        self.looked_up = Some(RefCell::default());
        self
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
            let chars = token.chars().count();
            let distance = match self.typos_by_length {
                true => typos_by_length(chars),
                false if chars >= MIN_FUZZY_TERM_CHARS => self.fuzzy,
                false => 0,
            };
            if distance > 0 && chars > MAX_TYPO_CHARS {
                self.warnings.push(format!(
                    "a word of {chars} characters was matched exactly: typos are looked for in words of up to {MAX_TYPO_CHARS}"
                ));
            } else if distance > 0 {
                if self.budget.take_walk() {
                    return self.fuzzy_term(&token, fields, distance);
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
        self.per_field(seq, fields, |field| Box::new(PhraseQuery::new(terms_in(field, seq))))
    }

    /// Distinct words within `slop` of their places, in any field that holds them all (see
    /// [`NearQuery`]: its work is bounded whatever the slop and the text). A builder that
    /// remembers its lookups hands the near query the words' entries (see [`Self::remembering`]).
    pub fn near(&self, words: &[String], fields: &[(Field, f32)], slop: u32) -> Box<dyn Query> {
        let segments: Option<Arc<[SegmentId]>> = self.looked_up.as_ref().map(|_| self.segment_ids().into());
        self.per_field(words, fields, |field| {
            let entries = |word: &str| {
                let segments = segments.as_ref()?;
                self.lookup(field, word).map(|infos| Entries { segments: segments.clone(), infos })
            };
            let terms = words.iter().map(|w| NearTerm { term: Term::from_field_text(field, w), entries: entries(w) });
            Box::new(NearQuery::found(terms.collect(), slop))
        })
    }

    /// A query made by `make` in each field that holds every one of `tokens`, boosted by field.
    fn per_field(
        &self,
        tokens: &[String],
        fields: &[(Field, f32)],
        make: impl Fn(Field) -> Box<dyn Query>,
    ) -> Box<dyn Query> {
        let per_field = fields
            .iter()
            .filter(|&&(field, _)| tokens.iter().all(|token| self.field_has(field, token)))
            .map(|&(field, boost)| boosted(make(field), boost))
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
            false => any_of(term_queries(&terms, &self.segment_ids())),
        }
    }

    fn segment_ids(&self) -> Vec<SegmentId> {
        self.searcher.segment_readers().iter().map(|s| s.segment_id()).collect()
    }

    /// The dictionary entry of `token` in `field` in each segment; None when a lookup failed.
    fn lookup(&self, field: Field, token: &str) -> LookedUp {
        if let Some(known) = &self.looked_up {
            if let Some(found) = known.borrow().get(token).and_then(|f| f.iter().find(|(f, _)| *f == field)) {
                return found.1.clone();
            }
        }
        let segments = self.searcher.segment_readers().iter().enumerate();
        let entries: LookedUp = segments
            .map(|(i, segment)| match self.dictionaries.get(i).and_then(|d| d.get(field)) {
                Some(dictionary) => dictionary.terms().get(token.as_bytes()).ok(),
                None => segment.inverted_index(field).ok()?.terms().get(token.as_bytes()).ok(),
            })
            .collect();
        if let Some(known) = &self.looked_up {
            known.borrow_mut().entry(token.to_owned()).or_default().push((field, entries.clone()));
        }
        entries
    }

    /// Whether a segment's dictionary of `field` holds `token` (a failed lookup counts as yes).
    /// A clause for a term no document has in that field scores nothing, yet costs a weight (an
    /// idf explanation, a 256-entry norm table, a lookup) and a scorer (another lookup): a term
    /// is usually in two or three of the five fields.
    fn field_has(&self, field: Field, token: &str) -> bool {
        self.lookup(field, token).is_none_or(|infos| infos.iter().any(Option::is_some))
    }

    fn fuzzy_term(&mut self, token: &str, fields: &[(Field, f32)], distance: u8) -> Result<Box<dyn Query>> {
        let keep = self.budget.share(fields.len(), MAX_FUZZY_EXPANSIONS);
        let found = self.expander.fuzzy(token, fields, keep, distance)?;
        // One warning per term, however many fields cut it.
        if found.most > keep {
            let most = found.most;
            self.warnings.push(format!("fuzzy term \"{token}\" matched {most} terms; the {keep} closest were used"));
        }
        Ok(any_of(found.queries))
    }

    fn wildcard(&mut self, pattern: &str, fields: &[(Field, f32)]) -> Result<Box<dyn Query>> {
        if !self.budget.take_walk() {
            return Err(Budget::too_many_wildcards(pattern));
        }
        let keep = self.budget.share(fields.len(), MAX_WILDCARD_EXPANSIONS);
        let found = self.expander.wildcard(pattern, fields, keep, self.query)?;
        if found.most > keep {
            let most = found.most;
            self.warnings
                .push(format!("wildcard \"{pattern}\" matched {most} terms; the {keep} most frequent were used"));
        }
        Ok(any_of(found.queries))
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
        let mut alternatives = self.expander.pairs(token, fields, keep)?.queries;
        alternatives.insert(0, alone);
        Ok(any_of(alternatives))
    }
}

/// The terms of `tokens` in `field`, in order.
fn terms_in(field: Field, tokens: &[String]) -> Vec<Term> {
    tokens.iter().map(|t| Term::from_field_text(field, t)).collect()
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
            out.extend(term_queries(q.terms(), q.segments()));
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

/// Positive plain tokens of a query in order (not under NOT), for proximity: a repeated token
/// stays, so each keeps its place in the query.
pub fn positive_tokens(node: &Node, out: &mut Vec<String>) {
    match node {
        Node::Term(t) | Node::Phrase(t) => out.extend(tokenizer::words(t).into_iter().flat_map(|w| w.parts)),
        Node::And(c) | Node::Or(c) => c.iter().for_each(|n| positive_tokens(n, out)),
        Node::Not(_) | Node::Wildcard(_) | Node::All => {}
    }
}
