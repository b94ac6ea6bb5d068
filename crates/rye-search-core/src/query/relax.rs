//! Plain questions: a query of plain words (no operators, quotes, wildcards or groups) does not
//! need every word. Stop words never have to match, and when all the other words together find
//! nothing, the words that match least are dropped one by one until something is found. Explicit
//! `AND`, quotes and `fields` keep their strict meaning.

use super::parse::Node;

/// English function words: in a question they carry no topic ("how do I make a new tool").
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
    "both", "but", "by", "can", "could", "did", "do", "does", "doing", "each", "for", "from", "get", "had", "has",
    "have", "having", "he", "her", "here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just",
    "me", "more", "most", "my", "no", "not", "of", "on", "once", "only", "or", "other", "our", "out", "over", "own",
    "please", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "want", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "without", "would", "you", "your",
];

pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// The words of a plain query, when it has at least two and nothing else.
pub fn plain_query_words(query: &str, node: &Node) -> Option<Vec<String>> {
    if query.contains(['"', '(', ')', '*']) || query.split_whitespace().any(|w| matches!(w, "AND" | "OR" | "NOT")) {
        return None;
    }
    let Node::And(children) = node else { return None };
    let words: Option<Vec<String>> =
        children.iter().map(|c| if let Node::Term(t) = c { Some(t.clone()) } else { None }).collect();
    words.filter(|w| w.len() >= 2)
}

/// Splits off the stop words, unless nothing else would be left.
pub fn without_stop_words(words: Vec<String>) -> (Vec<String>, Vec<String>) {
    let (stops, kept): (Vec<String>, Vec<String>) =
        words.into_iter().partition(|w| STOP_WORDS.contains(&w.to_lowercase().as_str()));
    if kept.is_empty() {
        (stops, Vec::new())
    } else {
        (kept, stops)
    }
}

/// The query that requires every one of `words`.
pub fn all_of(words: &[String]) -> Node {
    match words {
        [one] => Node::Term(one.clone()),
        _ => Node::And(words.iter().cloned().map(Node::Term).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parse;

    #[test]
    fn only_plain_word_queries_relax() {
        let words = |q: &str| plain_query_words(q, &parse(q).unwrap());
        assert_eq!(words("how do I make a new tool").unwrap().len(), 7);
        for strict in ["a AND b", "\"a b\"", "a OR b", "a NOT b", "(a b)", "a* b", "single"] {
            assert_eq!(words(strict), None, "{strict}");
        }
        let (kept, stops) = without_stop_words(words("how do I make a new tool").unwrap());
        assert_eq!((kept.join(" "), stops.join(" ")), ("make new tool".into(), "how do I a".into()));
        assert_eq!(without_stop_words(vec!["the".into(), "who".into()]).0.len(), 2);
    }
}
