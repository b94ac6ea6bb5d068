//! What one query may spend on wildcard and fuzzy expansion, shared by all its clauses (the
//! main query and every `fields` entry). Without it `*e* OR *e* OR …` grew quadratically: 8
//! copies took 15 s on 20k documents and held a thread-pool thread all that time.

use std::cell::Cell;

use super::parse::Node;
use crate::error::{Error, Result};

/// Most wildcard or fuzzy terms one query may hold: each walks the term dictionaries.
pub const MAX_EXPANDING_TERMS: usize = 32;
/// Expanded terms the whole query may search, split evenly between its expanding terms and
/// their fields (one wildcard over five fields keeps its 256 terms per field).
pub const MAX_QUERY_EXPANSIONS: usize = 1280;
/// Each expanding term keeps at least this many terms per field, however many share the budget.
const MIN_SHARE: usize = 8;

pub struct Budget {
    /// Expanding terms in the query (at most the cap), for the even split.
    leaves: usize,
    walks: Cell<usize>,
}

impl Budget {
    /// The budget of a query made of `nodes`, `fuzzy` making plain words expand too. A query
    /// with more wildcards than walks is refused here, before any dictionary is walked (it used
    /// to expand its first 32 wildcards, seconds on a large index, and then fail).
    pub fn for_query<'a>(nodes: impl IntoIterator<Item = &'a Node> + Clone, fuzzy: bool) -> Result<Budget> {
        let mut patterns = Vec::new();
        nodes.clone().into_iter().for_each(|n| wildcards(n, &mut patterns));
        if let Some(past) = patterns.get(MAX_EXPANDING_TERMS) {
            return Err(Budget::too_many_wildcards(past));
        }
        let leaves = nodes.into_iter().map(|n| expanding(n, fuzzy)).sum::<usize>();
        Ok(Budget { leaves: leaves.clamp(1, MAX_EXPANDING_TERMS), walks: Cell::new(0) })
    }

    /// How many terms per field an expansion over `fields` fields may keep (at most `max`).
    pub fn share(&self, fields: usize, max: usize) -> usize {
        (MAX_QUERY_EXPANSIONS / (self.leaves * fields.max(1))).clamp(MIN_SHARE, max.max(MIN_SHARE)).min(max)
    }

    /// Takes one dictionary walk; false once the query has used all of them.
    pub fn take_walk(&self) -> bool {
        let used = self.walks.get();
        self.walks.set(used + 1);
        used < MAX_EXPANDING_TERMS
    }

    pub fn too_many_wildcards(pattern: &str) -> Error {
        Error::limit(
            format!("wildcard \"{pattern}\" is past the limit of {MAX_EXPANDING_TERMS} wildcard and fuzzy terms in one query"),
            "use fewer wildcards, or longer literal parts (file* rather than f*)",
        )
    }
}

/// The wildcard patterns of `node`, in the order the query is built.
fn wildcards<'a>(node: &'a Node, out: &mut Vec<&'a str>) {
    match node {
        Node::Wildcard(pattern) => out.push(pattern),
        Node::Not(inner) => wildcards(inner, out),
        Node::And(children) | Node::Or(children) => children.iter().for_each(|c| wildcards(c, out)),
        Node::All | Node::Term(_) | Node::Phrase(_) => {}
    }
}

fn expanding(node: &Node, fuzzy: bool) -> usize {
    match node {
        Node::Wildcard(_) => 1,
        // A lone ideograph expands to the pairs that hold it (see `Builder::in_pairs`).
        Node::Term(text) => usize::from(fuzzy || crate::tokenizer::lone_word_character(text).is_some()),
        Node::Not(inner) => expanding(inner, fuzzy),
        Node::And(children) | Node::Or(children) => children.iter().map(|c| expanding(c, fuzzy)).sum(),
        Node::All | Node::Phrase(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parse::parse;

    #[test]
    fn one_wildcard_keeps_its_full_expansion_and_many_share() {
        let one = Budget::for_query([&parse("*e*").unwrap()], false).unwrap();
        assert_eq!(one.share(5, 256), 256);
        let eight: Vec<String> = (0..8).map(|i| format!("*e{i}*")).collect();
        let eight = Budget::for_query([&parse(&eight.join(" OR ")).unwrap()], false).unwrap();
        assert_eq!(eight.share(5, 256), 32);
        // The same wildcard eight times is one (the parser keeps one copy).
        let copies = Budget::for_query([&parse(&["*e*"; 8].join(" OR ")).unwrap()], false).unwrap();
        assert_eq!(copies.share(5, 256), 256);
        let many: Vec<String> = (0..30).map(|i| format!("a{i}*")).collect();
        let many = Budget::for_query([&parse(&many.join(" ")).unwrap()], false).unwrap();
        assert_eq!(many.share(5, 256), MIN_SHARE);
        assert_eq!(Budget::for_query([&parse("word").unwrap()], true).unwrap().share(5, 32), 32);
        let b = Budget::for_query([&Node::All], false).unwrap();
        assert!((0..MAX_EXPANDING_TERMS).all(|_| b.take_walk()));
        assert!(!b.take_walk());
    }

    #[test]
    fn a_lone_ideograph_shares_the_budget_like_a_wildcard() {
        let both = Budget::for_query([&parse("猫 file*").unwrap()], false).unwrap();
        assert_eq!(both.share(5, 256), 128);
        let words = Budget::for_query([&parse("猫犬 ファ file").unwrap()], false).unwrap();
        assert_eq!(words.share(5, 256), 256, "pairs, kana and Latin words do not expand");
    }

    #[test]
    fn more_wildcards_than_walks_are_refused_before_any_walk() {
        let words: Vec<String> = (0..40).map(|i| format!("*w{i}*")).collect();
        let query = parse(&words.join(" OR ")).unwrap();
        let Err(Error::Limit { message, .. }) = Budget::for_query([&query], false) else { panic!("refused") };
        assert!(message.contains("\"*w32*\""), "{message}");
        // Wildcards in `fields` count with the main query's.
        let (main, field) = (parse(&words[..20].join(" ")).unwrap(), parse(&words[20..].join(" ")).unwrap());
        assert!(Budget::for_query([&main, &field], false).is_err());
        assert!(Budget::for_query([&main], true).is_ok());
    }
}
