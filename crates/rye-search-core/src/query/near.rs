//! Words near one another in one field: `proximity`, and the nearness of plain words.
//!
//! Tantivy's sloppy phrase carries every position within the slop from one word to the next, and
//! with repeated words its lists multiply (a Thai text of repeated syllable pairs and a slop of 100
//! asked for gigabytes). Here a document matches where one position of every word, each counted
//! from its place in the phrase, spreads over at most `slop` (Lucene's rule: the words in order
//! and adjacent spread 0; `b a` for `a b` spreads 2). The windows are found in one merge of the
//! words' positions, so a document costs its positions × log(words) and memory for its positions
//! only, whatever the slop and the text.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{
    Bm25StatisticsProvider, Bm25Weight, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, TERMINATED};

use super::terms::Entries;

/// Every word of a phrase within `slop` of its place, in one field; scored by BM25 of the number
/// of windows found, as Tantivy scores a phrase by its count.
#[derive(Clone, Debug)]
pub struct NearQuery {
    /// Distinct words with their place in the phrase (a repeated word counts where it first stands).
    terms: Vec<(u32, NearTerm)>,
    slop: u32,
}

/// A word of a near query, with its dictionary entry in each segment when the query's builder
/// had looked it up (each lookup saved is a walk of the dictionary).
#[derive(Clone, Debug)]
pub struct NearTerm {
    pub term: Term,
    pub entries: Option<Entries>,
}

impl NearQuery {
    /// `terms` in phrase order, all of one field; at least two distinct ones.
    pub fn new(terms: Vec<Term>, slop: u32) -> NearQuery {
        Self::found(terms.into_iter().map(|term| NearTerm { term, entries: None }).collect(), slop)
    }

    /// [`Self::new`] with the terms' dictionary entries, where they were looked up.
    pub fn found(terms: Vec<NearTerm>, slop: u32) -> NearQuery {
        let mut placed: Vec<(u32, NearTerm)> = Vec::with_capacity(terms.len());
        for (at, term) in terms.into_iter().enumerate() {
            if !placed.iter().any(|(_, t)| t.term == term.term) {
                placed.push((at as u32, term));
            }
        }
        NearQuery { terms: placed, slop }
    }
}

impl Query for NearQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let bm25 = match scoring {
            EnableScoring::Enabled { statistics_provider, .. } => {
                let terms: Vec<Term> = self.terms.iter().map(|(_, t)| t.term.clone()).collect();
                let known = KnownDocFreqs { stats: statistics_provider, terms: &self.terms };
                Some(Bm25Weight::for_terms(&known, &terms)?)
            }
            EnableScoring::Disabled { .. } => None,
        };
        Ok(Box::new(NearWeight { query: self.clone(), bm25 }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for (_, t) in &self.terms {
            visitor(&t.term, true);
        }
    }
}

/// The statistics of a query's scoring, with the document frequencies its terms' dictionary
/// entries give (the same sums a lookup gives, without the lookup).
struct KnownDocFreqs<'a> {
    stats: &'a dyn Bm25StatisticsProvider,
    terms: &'a [(u32, NearTerm)],
}

impl Bm25StatisticsProvider for KnownDocFreqs<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.stats.total_num_tokens(field)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.stats.total_num_docs()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        match self.terms.iter().find(|(_, t)| t.term == *term).and_then(|(_, t)| t.entries.as_ref()) {
            Some(entries) => Ok(entries.doc_freq()),
            None => self.stats.doc_freq(term),
        }
    }
}

struct NearWeight {
    query: NearQuery,
    bm25: Option<Bm25Weight>,
}

impl NearWeight {
    fn near_scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Option<NearScorer>> {
        let Some((_, first)) = self.query.terms.first() else { return Ok(None) };
        let field = first.term.field();
        let index = reader.inverted_index(field)?;
        let mut words = Vec::with_capacity(self.query.terms.len());
        for (at, t) in &self.query.terms {
            if t.term.field() != field {
                return Err(TantivyError::InvalidArgument("the words of a near query are in one field".into()));
            }
            let found = match t.entries.as_ref().and_then(|e| e.of(reader)) {
                Some(Some(info)) => {
                    Some(index.read_postings_from_terminfo(info, IndexRecordOption::WithFreqsAndPositions)?)
                }
                Some(None) => None,
                None => index.read_postings(&t.term, IndexRecordOption::WithFreqsAndPositions)?,
            };
            match found {
                Some(postings) => words.push(Word { at: *at as i64, postings, positions: Vec::new(), next: 0 }),
                None => return Ok(None),
            }
        }
        // The rarest word leads: the others seek to its documents.
        words.sort_by_key(|w| w.postings.doc_freq());
        let scoring = match &self.bm25 {
            Some(bm25) => Some((bm25.boost_by(boost), reader.get_fieldnorms_reader(field)?)),
            None => None,
        };
        let mut scorer =
            NearScorer { words, slop: self.query.slop as i64, doc: 0, windows: 0, scoring, heap: BinaryHeap::new() };
        let first = scorer.words[0].postings.doc();
        scorer.settle(first);
        Ok(Some(scorer))
    }
}

impl Weight for NearWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(match self.near_scorer(reader, boost)? {
            Some(scorer) => Box::new(scorer),
            None => Box::new(EmptyScorer),
        })
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let not_found = || TantivyError::InvalidArgument(format!("document #({doc}) does not match"));
        let mut scorer = self.near_scorer(reader, 1.0)?.ok_or_else(not_found)?;
        if scorer.doc() > doc || scorer.seek(doc) != doc {
            return Err(not_found());
        }
        let mut explanation = Explanation::new("Near", scorer.score());
        if let Some((bm25, norms)) = &scorer.scoring {
            explanation.add_detail(bm25.explain(norms.fieldnorm_id(doc), scorer.windows));
        }
        Ok(explanation)
    }
}

/// One word: its postings, its place in the phrase, and its positions in the current document.
struct Word {
    at: i64,
    postings: SegmentPostings,
    positions: Vec<u32>,
    /// The next of `positions` the merge takes.
    next: usize,
}

impl Word {
    /// The position at `i`, counted from the word's place in the phrase.
    fn placed(&self, i: usize) -> i64 {
        self.positions[i] as i64 - self.at
    }
}

struct NearScorer {
    /// Rarest first.
    words: Vec<Word>,
    slop: i64,
    doc: DocId,
    /// Windows found in `doc`: the phrase count BM25 scores.
    windows: u32,
    scoring: Option<(Bm25Weight, FieldNormReader)>,
    /// The merge's heap, kept from document to document.
    heap: BinaryHeap<Reverse<(i64, usize)>>,
}

impl NearScorer {
    /// Moves to the first document at or after `target` that holds every word within the slop.
    fn settle(&mut self, mut target: DocId) -> DocId {
        'candidates: while target != TERMINATED {
            for w in &mut self.words {
                let doc = if w.postings.doc() < target { w.postings.seek(target) } else { w.postings.doc() };
                if doc != target {
                    target = doc;
                    continue 'candidates;
                }
            }
            let windows = self.count_windows();
            if windows > 0 {
                self.windows = windows;
                break;
            }
            target = self.words[0].postings.advance();
        }
        self.doc = target;
        target
    }

    /// How often, in the current document, one position of every word spreads over at most the
    /// slop: one merge of all positions, each taken once.
    fn count_windows(&mut self) -> u32 {
        self.heap.clear();
        let mut highest = i64::MIN;
        for (i, w) in self.words.iter_mut().enumerate() {
            w.postings.positions(&mut w.positions);
            w.next = 0;
            let Some(_) = w.positions.first() else { return 0 };
            let p = w.placed(0);
            highest = highest.max(p);
            self.heap.push(Reverse((p, i)));
        }
        let mut windows = 0u32;
        while let Some(Reverse((lowest, i))) = self.heap.pop() {
            if highest - lowest <= self.slop {
                windows = windows.saturating_add(1);
            }
            let w = &mut self.words[i];
            w.next += 1;
            if w.next == w.positions.len() {
                break;
            }
            let p = w.placed(w.next);
            highest = highest.max(p);
            self.heap.push(Reverse((p, i)));
        }
        windows
    }
}

impl DocSet for NearScorer {
    fn advance(&mut self) -> DocId {
        if self.doc == TERMINATED {
            return TERMINATED;
        }
        let next = self.words[0].postings.advance();
        self.settle(next)
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc >= target {
            return self.doc;
        }
        let next = self.words[0].postings.seek(target);
        self.settle(next)
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.words.iter().map(|w| w.postings.size_hint()).min().unwrap_or(0)
    }
}

impl Scorer for NearScorer {
    fn score(&mut self) -> Score {
        match &self.scoring {
            Some((bm25, norms)) => bm25.score(norms.fieldnorm_id(self.doc), self.windows),
            None => 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use tantivy::collector::TopDocs;
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{doc, Index};

    use super::*;

    /// An index of `texts`, one segment per slice, and its one field.
    fn index_of(segments: &[&[&str]]) -> (tantivy::Searcher, tantivy::schema::Field) {
        let mut schema = Schema::builder();
        let field = schema.add_text_field("text", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for texts in segments {
            for text in *texts {
                writer.add_document(doc!(field => *text)).unwrap();
            }
            writer.commit().unwrap();
        }
        (index.reader().unwrap().searcher(), field)
    }

    fn ranked(searcher: &tantivy::Searcher, query: &NearQuery) -> Vec<(Score, tantivy::DocAddress)> {
        searcher.search(query, &TopDocs::with_limit(100).order_by_score()).unwrap()
    }

    fn search(texts: &[&str], words: &[&str], slop: u32) -> Vec<u32> {
        let (searcher, field) = index_of(&[texts]);
        let query = NearQuery::new(words.iter().map(|w| Term::from_field_text(field, w)).collect(), slop);
        let mut found: Vec<u32> = ranked(&searcher, &query).into_iter().map(|(_, a)| a.doc_id).collect();
        found.sort();
        found
    }

    #[test]
    fn entries_found_while_building_rank_as_lookups_do() {
        let (searcher, field) =
            index_of(&[&["alpha beta", "beta x alpha", "alpha"], &["gamma", "alpha x beta beta", "beta alpha alpha"]]);
        let segments: std::sync::Arc<[tantivy::index::SegmentId]> =
            searcher.segment_readers().iter().map(|r| r.segment_id()).collect();
        assert_eq!(segments.len(), 2);
        let terms = |words: &[&str]| -> Vec<Term> { words.iter().map(|w| Term::from_field_text(field, w)).collect() };
        let found = |words: &[&str]| -> Vec<NearTerm> {
            terms(words)
                .into_iter()
                .map(|term| {
                    let infos = searcher
                        .segment_readers()
                        .iter()
                        .map(|r| r.inverted_index(field).unwrap().get_term_info(&term).unwrap())
                        .collect();
                    NearTerm { term, entries: Some(Entries { segments: segments.clone(), infos }) }
                })
                .collect()
        };
        for (words, slop) in [(&["alpha", "beta"][..], 1), (&["beta", "alpha"], 2), (&["alpha", "gamma"], 5)] {
            let looked_up = ranked(&searcher, &NearQuery::new(terms(words), slop));
            let given = ranked(&searcher, &NearQuery::found(found(words), slop));
            assert_eq!(looked_up, given, "{words:?} within {slop}");
        }
        // Matches in both segments: `alpha beta` and `alpha x beta beta`.
        let both = ranked(&searcher, &NearQuery::new(terms(&["alpha", "beta"]), 1));
        assert_eq!(both.iter().map(|(_, a)| a.segment_ord).collect::<HashSet<_>>().len(), 2);
    }

    #[test]
    fn words_match_within_the_slop_of_their_places() {
        let texts = ["alpha beta", "alpha gamma beta", "beta alpha", "alpha x x x x beta", "alpha"];
        assert_eq!(search(&texts, &["alpha", "beta"], 0), vec![0]);
        assert_eq!(search(&texts, &["alpha", "beta"], 1), vec![0, 1]);
        assert_eq!(search(&texts, &["alpha", "beta"], 2), vec![0, 1, 2]);
        assert_eq!(search(&texts, &["alpha", "beta"], 4), vec![0, 1, 2, 3]);
        assert_eq!(search(&texts, &["alpha", "beta", "gamma"], 2), vec![1]);
        // A repeated word is one word.
        assert_eq!(search(&texts, &["alpha", "beta", "alpha"], 0), vec![0]);
    }

    #[test]
    fn repeated_words_and_a_huge_slop_cost_a_pass_over_the_positions() {
        // The shape that made Tantivy's carried slop grow without bound.
        let text = "a b a b c a b ".repeat(2000);
        let words: Vec<&str> = "a b a b c a b a b c a b a b".split(' ').collect();
        assert_eq!(search(&[&text, "c"], &words, u32::MAX), vec![0]);
        assert_eq!(search(&[&text], &["a", "b", "zzz"], 1000), Vec::<u32>::new());
    }
}
