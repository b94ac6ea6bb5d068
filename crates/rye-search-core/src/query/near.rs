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
use tantivy::query::{Bm25Weight, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, TERMINATED};

/// Every word of a phrase within `slop` of its place, in one field; scored by BM25 of the number
/// of windows found, as Tantivy scores a phrase by its count.
#[derive(Clone, Debug)]
pub struct NearQuery {
    /// Distinct words with their place in the phrase (a repeated word counts where it first stands).
    terms: Vec<(u32, Term)>,
    slop: u32,
}

impl NearQuery {
    /// `terms` in phrase order, all of one field; at least two distinct ones.
    pub fn new(terms: Vec<Term>, slop: u32) -> NearQuery {
        let mut placed: Vec<(u32, Term)> = Vec::with_capacity(terms.len());
        for (at, term) in terms.into_iter().enumerate() {
            if !placed.iter().any(|(_, t)| *t == term) {
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
                let terms: Vec<Term> = self.terms.iter().map(|(_, t)| t.clone()).collect();
                Some(Bm25Weight::for_terms(statistics_provider, &terms)?)
            }
            EnableScoring::Disabled { .. } => None,
        };
        Ok(Box::new(NearWeight { query: self.clone(), bm25 }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for (_, term) in &self.terms {
            visitor(term, true);
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
        let field = first.field();
        let mut words = Vec::with_capacity(self.query.terms.len());
        for (at, term) in &self.query.terms {
            if term.field() != field {
                return Err(TantivyError::InvalidArgument("the words of a near query are in one field".into()));
            }
            match reader.inverted_index(field)?.read_postings(term, IndexRecordOption::WithFreqsAndPositions)? {
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
    use tantivy::collector::TopDocs;
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{doc, Index};

    use super::*;

    fn search(texts: &[&str], words: &[&str], slop: u32) -> Vec<u32> {
        let mut schema = Schema::builder();
        let field = schema.add_text_field("text", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for text in texts {
            writer.add_document(doc!(field => *text)).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let query = NearQuery::new(words.iter().map(|w| Term::from_field_text(field, w)).collect(), slop);
        let mut found: Vec<u32> = searcher
            .search(&query, &TopDocs::with_limit(100).order_by_score())
            .unwrap()
            .into_iter()
            .map(|(_, a)| a.doc_id)
            .collect();
        found.sort();
        found
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
