//! One word in any of its fields, as one side of an intersection (`a b`, `a AND b`).
//!
//! An intersection walks its rarest side and asks the others to seek to each match. Tantivy's
//! union of term queries is built to be walked: it buffers the next 4,096 documents of every
//! field, and a seek past them clears that window and fills the next one. Probed once per match
//! of a rarer word, that was a third of a two-word search at a million items. Here each field's
//! postings seek on their own skip lists and the union's document is the smallest of theirs.
//! The dictionary entries found while building the query are reused (a term query looks each
//! one up twice more), and each field scores with the BM25 weight its term query would have.

use tantivy::fieldnorm::FieldNormReader;
use tantivy::index::SegmentId;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{Bm25Weight, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, TERMINATED};

use super::few_postings::{segment_ord, FieldTerm};

/// Sum of the BM25 scores of one word's field terms, as a union of boosted term queries scores.
#[derive(Clone, Debug)]
pub struct AnyFieldQuery {
    /// The segments the dictionary entries belong to, in order.
    segments: Vec<SegmentId>,
    terms: Vec<FieldTerm>,
}

impl AnyFieldQuery {
    pub fn new(segments: Vec<SegmentId>, terms: Vec<FieldTerm>) -> Self {
        AnyFieldQuery { segments, terms }
    }
}

impl Query for AnyFieldQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let mut bm25 = Vec::new();
        if let EnableScoring::Enabled { statistics_provider: stats, .. } = scoring {
            let docs = stats.total_num_docs()?;
            for t in &self.terms {
                let average_fieldnorm = stats.total_num_tokens(t.term.field())? as Score / docs as Score;
                bm25.push(Bm25Weight::for_one_term_without_explain(t.doc_freq(), docs, average_fieldnorm));
            }
        }
        Ok(Box::new(AnyFieldWeight { query: self.clone(), bm25 }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for t in &self.terms {
            visitor(&t.term, false);
        }
    }
}

struct AnyFieldWeight {
    query: AnyFieldQuery,
    /// Per term, before its boost; empty when scoring is disabled.
    bm25: Vec<Bm25Weight>,
}

impl AnyFieldWeight {
    fn union(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<AnyFieldScorer> {
        let ord = segment_ord(&self.query.segments, reader)?;
        let mut fields = Vec::new();
        for (i, t) in self.query.terms.iter().enumerate() {
            let Some(info) = &t.infos[ord] else { continue };
            let field = t.term.field();
            let postings =
                reader.inverted_index(field)?.read_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?;
            if postings.doc() == TERMINATED {
                continue;
            }
            let scoring = match self.bm25.get(i) {
                // As a boosted term query boosts: the outer boost times the term's.
                Some(bm25) => Some((bm25.boost_by(boost * t.boost), reader.get_fieldnorms_reader(field)?)),
                None => None,
            };
            fields.push(FieldPostings { postings, scoring });
        }
        Ok(AnyFieldScorer::new(fields))
    }
}

impl Weight for AnyFieldWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(self.union(reader, boost)?))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut union = self.union(reader, 1.0)?;
        if union.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!("document {doc} does not match")));
        }
        let mut explanation = Explanation::new("sum of the BM25 scores of the word in each field", union.score());
        for f in union.fields.iter().filter(|f| f.postings.doc() == doc) {
            if let Some((bm25, norms)) = &f.scoring {
                explanation.add_detail(bm25.explain(norms.fieldnorm_id(doc), f.postings.term_freq()));
            }
        }
        Ok(explanation)
    }
}

/// One field's postings of the word, with what scores them.
struct FieldPostings {
    postings: SegmentPostings,
    scoring: Option<(Bm25Weight, FieldNormReader)>,
}

impl FieldPostings {
    fn score(&self) -> Score {
        match &self.scoring {
            Some((bm25, norms)) => bm25.score(norms.fieldnorm_id(self.postings.doc()), self.postings.term_freq()),
            None => 0.0,
        }
    }
}

/// The union of a few fields' postings (one word: a field each), positioned on the smallest.
struct AnyFieldScorer {
    fields: Vec<FieldPostings>,
    doc: DocId,
}

impl AnyFieldScorer {
    fn new(fields: Vec<FieldPostings>) -> Self {
        let mut union = AnyFieldScorer { fields, doc: TERMINATED };
        union.doc = union.smallest();
        union
    }

    fn smallest(&self) -> DocId {
        self.fields.iter().map(|f| f.postings.doc()).min().unwrap_or(TERMINATED)
    }
}

impl DocSet for AnyFieldScorer {
    fn advance(&mut self) -> DocId {
        if self.doc == TERMINATED {
            return TERMINATED;
        }
        for f in &mut self.fields {
            if f.postings.doc() == self.doc {
                f.postings.advance();
            }
        }
        self.doc = self.smallest();
        self.doc
    }

    fn seek(&mut self, target: DocId) -> DocId {
        if self.doc >= target {
            return self.doc;
        }
        for f in &mut self.fields {
            if f.postings.doc() < target {
                f.postings.seek(target);
            }
        }
        self.doc = self.smallest();
        self.doc
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.fields.iter().map(|f| f.postings.size_hint()).fold(0, u32::saturating_add)
    }
}

impl Scorer for AnyFieldScorer {
    fn score(&mut self) -> Score {
        let doc = self.doc;
        self.fields.iter().filter(|f| f.postings.doc() == doc).map(FieldPostings::score).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::{Count, TopDocs};
    use tantivy::query::{BooleanQuery, BoostQuery, Occur, TermQuery};
    use tantivy::schema::{Field, Schema, TEXT};
    use tantivy::{doc, DocAddress, Index, Searcher};

    /// Two text fields over three segments of 1,500 documents (postings span many blocks, so
    /// seeks skip), some documents deleted: each word is in some documents, some fields.
    fn searcher() -> (Searcher, Field, Field) {
        let mut b = Schema::builder();
        let (title, body) = (b.add_text_field("title", TEXT), b.add_text_field("body", TEXT));
        let index = Index::create_in_ram(b.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        let words = ["alpha", "beta", "gamma", "delta", "epsilon"];
        for segment in 0..3usize {
            for i in 0..1_500usize {
                let title_text = if i % 2 == 0 { words[(i / 3 + segment) % 5] } else { "" };
                let body_text = format!("{} {} {} {i}", "word ".repeat(i % 9), words[i % 5], words[(i / 5) % 5]);
                writer.add_document(doc!(title => title_text, body => body_text)).unwrap();
            }
            writer.delete_term(Term::from_field_text(body, &format!("{}", 100 + segment)));
            writer.commit().unwrap();
        }
        let reader = index.reader().unwrap();
        assert_eq!(reader.searcher().segment_readers().len(), 3);
        (reader.searcher(), title, body)
    }

    fn any_field(searcher: &Searcher, token: &str, fields: &[(Field, f32)]) -> Box<dyn Query> {
        let segments = searcher.segment_readers();
        let terms = fields
            .iter()
            .map(|&(field, boost)| FieldTerm {
                term: Term::from_field_text(field, token),
                boost,
                infos: segments.iter().map(|s| s.inverted_index(field).unwrap().terms().get(token).unwrap()).collect(),
            })
            .collect();
        Box::new(AnyFieldQuery::new(segments.iter().map(|s| s.segment_id()).collect(), terms))
    }

    fn tantivy_union(token: &str, fields: &[(Field, f32)]) -> Box<dyn Query> {
        let clauses = fields
            .iter()
            .map(|&(field, boost)| {
                let q = TermQuery::new(Term::from_field_text(field, token), IndexRecordOption::WithFreqs);
                (Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost)) as Box<dyn Query>)
            })
            .collect();
        Box::new(BooleanQuery::new(clauses))
    }

    fn by_address(hits: Vec<(Score, DocAddress)>) -> Vec<(DocAddress, Score)> {
        let mut hits: Vec<_> = hits.into_iter().map(|(s, a)| (a, s)).collect();
        hits.sort_by_key(|h| h.0);
        hits
    }

    #[test]
    fn an_intersection_of_words_matches_and_scores_as_one_of_term_unions_does() {
        let (searcher, title, body) = searcher();
        let fields = [(title, 3.0), (body, 1.5)];
        let all = (TopDocs::with_limit(5_000).order_by_score(), Count);
        for (a, b) in [("alpha", "beta"), ("gamma", "alpha"), ("delta", "epsilon"), ("beta", "absent")] {
            let both =
                |x: Box<dyn Query>, y: Box<dyn Query>| BooleanQuery::new(vec![(Occur::Must, x), (Occur::Must, y)]);
            let ours = searcher.search(&both(any_field(&searcher, a, &fields), any_field(&searcher, b, &fields)), &all);
            let theirs = searcher.search(&both(tantivy_union(a, &fields), tantivy_union(b, &fields)), &all).unwrap();
            let ours = ours.unwrap();
            assert_eq!(ours.1, theirs.1, "{a} {b}: count");
            assert!(b == "absent" || ours.1 > 200, "{a} {b}: the test needs many matches");
            // The same documents; scores equal but for the order the fields' scores are added in.
            let (ours, theirs) = (by_address(ours.0), by_address(theirs.0));
            assert_eq!(ours.len(), theirs.len());
            for (o, t) in ours.iter().zip(&theirs) {
                assert_eq!(o.0, t.0, "{a} {b}");
                assert!((o.1 - t.1).abs() <= 1e-5 * t.1, "{a} {b}: {} vs {}", o.1, t.1);
            }
        }
    }

    #[test]
    fn a_word_walks_seeks_and_explains_its_score() {
        let (searcher, title, body) = searcher();
        let fields = [(title, 2.0), (body, 1.0)];
        let query = any_field(&searcher, "alpha", &fields);
        let reference = tantivy_union("alpha", &fields);
        let top = searcher.search(&*query, &TopDocs::with_limit(3).order_by_score()).unwrap();
        assert_eq!(top.len(), 3);
        for (score, address) in top {
            assert!((query.explain(&searcher, address).unwrap().value() - score).abs() <= 1e-6 * score);
        }
        // Seeking to every 97th document lands where Tantivy's union lands, scored alike.
        let segment = &searcher.segment_readers()[1];
        let scoring = EnableScoring::enabled_from_searcher(&searcher);
        let mut ours = query.weight(scoring).unwrap().scorer(segment, 1.0).unwrap();
        let mut theirs = reference.weight(scoring).unwrap().scorer(segment, 1.0).unwrap();
        for target in (0..1_600).step_by(97) {
            if ours.doc() >= target || theirs.doc() >= target {
                continue;
            }
            assert_eq!(ours.seek(target), theirs.seek(target));
            if ours.doc() != TERMINATED {
                assert!((ours.score() - theirs.score()).abs() <= 1e-5 * theirs.score());
            }
        }
        assert_eq!(ours.seek(TERMINATED), TERMINATED);
        assert_eq!(ours.advance(), TERMINATED);
    }
}
