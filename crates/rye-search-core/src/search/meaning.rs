//! Which vectors answer a search by meaning: the sentence encoder's once the index has settled
//! (every item it shows has one, see `index::encoding`), else the static model's. One search
//! uses one kind for its query and every item, so its similarities are comparable.

use std::sync::Arc;

use tantivy::{Searcher, SegmentReader};

use crate::error::Result;
use crate::index::parts::SegmentParts;
use crate::index::SearchIndex;
use crate::query::parse::{parse, Node};
use crate::semantic::{self, EncodedStore, Encoder, SegmentVectors, StaticModel};

/// Cosine similarity from which an item counts as found by meaning, with the static model's
/// vectors (whose similarities run high: averaged word vectors share a common direction).
const STATIC_MIN: f32 = 0.3;
/// The same with the sentence encoder's, whose unrelated texts sit near 0 (-0.1 to 0.1 for the
/// README's questions against unrelated items) and related ones from about 0.15 ("keep my shell
/// alive when ssh drops" against tmux's "terminal multiplexer … detach them and reattach them
/// later": 0.17).
const ENCODER_MIN: f32 = 0.15;

pub(crate) enum Meaning {
    Static(Arc<StaticModel>),
    Encoded(Arc<Encoder>, Arc<EncodedStore>),
}

impl SearchIndex {
    /// The vectors a search by meaning uses now; `None` when no model is loaded.
    pub(crate) fn meaning(&self, searcher: &Searcher) -> Option<Meaning> {
        if let Some((encoder, store)) = self.settled_encoder(searcher) {
            return Some(Meaning::Encoded(encoder, store));
        }
        semantic::model().map(Meaning::Static)
    }
}

impl Meaning {
    /// The query's vector, or `None` when the model knows none of its words. The encoder reads
    /// punctuation and `[UNK]` too: a query of emoji or of `?` alone made a vector all the same,
    /// and the items nearest it were answered as found by meaning.
    pub(crate) fn embed(&self, query: &str) -> Option<Vec<f32>> {
        match self {
            Meaning::Static(model) => model.embed(query),
            Meaning::Encoded(encoder, _)
                if !query.chars().any(char::is_alphanumeric) || !encoder.knows_a_word(query) =>
            {
                None
            }
            Meaning::Encoded(encoder, _) => encoder.embed(&[query], semantic::encoder::MAX_SEQUENCE).pop().flatten(),
        }
    }

    /// What the answer says answered: `static` or `encoder`.
    pub(crate) fn tier(&self) -> &'static str {
        match self {
            Meaning::Static(_) => "static",
            Meaning::Encoded(..) => "encoder",
        }
    }

    /// The similarity from which an item counts as found by meaning with these vectors.
    pub(crate) fn floor(&self) -> f32 {
        match self {
            Meaning::Static(_) => STATIC_MIN,
            Meaning::Encoded(..) => ENCODER_MIN,
        }
    }

    /// The item vectors of one segment of these.
    pub(crate) fn vectors(&self, parts: &SegmentParts, reader: &SegmentReader) -> Result<Arc<SegmentVectors>> {
        match self {
            Meaning::Static(model) => parts.vectors(reader, model.dims()),
            Meaning::Encoded(_, store) => parts.encoded_vectors(reader, store),
        }
    }
}

/// What a search by meaning reads of a query written in the query language. A vector follows no
/// operator: `NOT bash` embedded as it is ranked bash first, and `*` or `sen*` ranked whatever
/// sat nearest a few characters. So the words of its terms and phrases are embedded (not those
/// NOT keeps out, nor wildcards), and what NOT keeps out at the top level narrows the items
/// compared. A plain question (or a query that does not parse) is read as it is.
pub(super) struct MeaningQuery {
    /// The text embedded; empty when the query has no words to rank by meaning.
    pub text: String,
    /// Clauses every item found by meaning must not match (`NOT x` joined to the rest by AND).
    pub excluded: Vec<Node>,
}

impl MeaningQuery {
    pub fn of(query: &str) -> MeaningQuery {
        let as_written = || MeaningQuery { text: query.to_string(), excluded: Vec::new() };
        let Ok(node) = parse(query) else { return as_written() };
        if plain(&node) {
            return as_written();
        }
        let (mut words, mut excluded) = (Vec::new(), Vec::new());
        read(&node, true, &mut words, &mut excluded);
        MeaningQuery { text: words.join(" "), excluded }
    }

    /// The query restricting the items compared, as a node: `*` and every exclusion.
    pub fn narrowing(&self) -> Option<Node> {
        (!self.excluded.is_empty()).then(|| {
            let not = self.excluded.iter().map(|n| Node::Not(Box::new(n.clone())));
            Node::And(std::iter::once(Node::All).chain(not).collect())
        })
    }
}

/// Terms alone, or terms joined by AND: written as a question is.
fn plain(node: &Node) -> bool {
    match node {
        Node::Term(_) => true,
        Node::And(children) => children.iter().all(|c| matches!(c, Node::Term(_))),
        _ => false,
    }
}

/// Words of `node` outside NOT, and at the top level (`top`: joined to the rest by AND) what NOT
/// keeps out; a NOT inside OR keeps nothing out of the whole.
fn read<'a>(node: &'a Node, top: bool, words: &mut Vec<&'a str>, excluded: &mut Vec<Node>) {
    match node {
        Node::Term(text) | Node::Phrase(text) => words.push(text),
        Node::Not(inner) if top => excluded.push((**inner).clone()),
        Node::And(children) => children.iter().for_each(|c| read(c, top, words, excluded)),
        Node::Or(children) => children.iter().for_each(|c| read(c, false, words, excluded)),
        Node::Not(_) | Node::Wildcard(_) | Node::All => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_words_outside_not_and_keeps_top_level_exclusions() {
        let read = |q: &str| {
            let m = MeaningQuery::of(q);
            (m.text, m.excluded.len())
        };
        assert_eq!(read("how do I send an email"), ("how do I send an email".into(), 0));
        assert_eq!(read("NOT bash"), ("".into(), 1));
        assert_eq!(read("*"), ("".into(), 0));
        assert_eq!(read("sen* ema*"), ("".into(), 0));
        assert_eq!(read("email NOT forward"), ("email".into(), 1));
        assert_eq!(read("(send OR reply) AND email NOT forward"), ("send reply email".into(), 1));
        assert_eq!(read("send OR NOT reply"), ("send".into(), 0));
        assert_eq!(read("\"send an email\" draft*"), ("send an email".into(), 0));
        // Not the query language: read as written.
        assert_eq!(read("\"unclosed"), ("\"unclosed".into(), 0));
        assert!(MeaningQuery::of("email").narrowing().is_none());
        assert!(matches!(MeaningQuery::of("email NOT forward").narrowing(), Some(Node::And(c)) if c.len() == 2));
    }
}
