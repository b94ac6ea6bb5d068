//! What the query modules' tests share: a small index of two text fields over three segments, a
//! word's dictionary entries in it, and the union of term queries Tantivy would run instead.

use tantivy::index::SegmentId;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, Term, TEXT};
use tantivy::{doc, DocAddress, Index, Score, Searcher};

use super::few_postings::FieldTerm;

/// Two text fields over three segments of `per_segment` documents, one deleted in each: words
/// are in some documents, some fields, some segments, some twice in a field.
pub fn searcher(per_segment: usize) -> (Searcher, Field, Field) {
    let mut b = Schema::builder();
    let (title, body) = (b.add_text_field("title", TEXT), b.add_text_field("body", TEXT));
    let index = Index::create_in_ram(b.build());
    let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
    let words = ["alpha", "beta", "gamma", "delta", "epsilon"];
    for segment in 0..3usize {
        for i in 0..per_segment {
            let title_text = if i % 2 == 0 { words[(i / 3 + segment) % 5] } else { "" };
            let body_text = format!("{} {} {} n{i}", "word ".repeat(i % 9), words[i % 5], words[(i / 5) % 5]);
            writer.add_document(doc!(title => title_text, body => body_text)).unwrap();
        }
        writer.delete_term(Term::from_field_text(body, &format!("n{}", per_segment / 2 + segment)));
        writer.commit().unwrap();
    }
    let reader = index.reader().unwrap();
    assert_eq!(reader.searcher().segment_readers().len(), 3);
    (reader.searcher(), title, body)
}

/// `token` in each of `fields` (field, boost), with its dictionary entry in each segment.
pub fn field_terms(searcher: &Searcher, token: &str, fields: &[(Field, f32)]) -> (Vec<SegmentId>, Vec<FieldTerm>) {
    let segments = searcher.segment_readers();
    let terms = fields
        .iter()
        .map(|&(field, boost)| FieldTerm {
            term: Term::from_field_text(field, token),
            boost,
            infos: segments.iter().map(|s| s.inverted_index(field).unwrap().terms().get(token).unwrap()).collect(),
        })
        .collect();
    (segments.iter().map(|s| s.segment_id()).collect(), terms)
}

/// What Tantivy runs for `token` in `fields`: a union of boosted term queries.
pub fn tantivy_union(token: &str, fields: &[(Field, f32)]) -> Box<dyn Query> {
    let clauses = fields
        .iter()
        .map(|&(field, boost)| {
            let q = TermQuery::new(Term::from_field_text(field, token), IndexRecordOption::WithFreqs);
            (Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost)) as Box<dyn Query>)
        })
        .collect();
    Box::new(BooleanQuery::new(clauses))
}

/// Every document of `a` and of `b` (each required).
pub fn both(a: Box<dyn Query>, b: Box<dyn Query>) -> BooleanQuery {
    BooleanQuery::new(vec![(Occur::Must, a), (Occur::Must, b)])
}

/// Hits in document order, to compare sets of hits whose ties may be ordered differently.
pub fn by_address(hits: Vec<(Score, DocAddress)>) -> Vec<(DocAddress, Score)> {
    let mut hits: Vec<_> = hits.into_iter().map(|(s, a)| (a, s)).collect();
    hits.sort_by_key(|h| h.0);
    hits
}
