//! The query language: terms, "phrases", wildcards, AND / OR / NOT (upper case), parentheses.
//! Precedence NOT > AND (explicit or implicit) > OR. Malformed input is an error with a
//! 0-based character position and a hint — never silently dropped.

use crate::error::{Error, Result};

/// Limits that keep one query from monopolising the engine (documented in the README).
pub const MAX_QUERY_CHARS: usize = 4096;
pub const MAX_CLAUSES: usize = 64;
pub const MAX_DEPTH: usize = 32;

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A plain term (may tokenize into several words, e.g. `rye/core`).
    Term(String),
    /// A quoted phrase.
    Phrase(String),
    /// A term with `*` in it (but not only `*`).
    Wildcard(String),
    /// `*` alone, or an empty query: every item.
    All,
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Phrase(String),
    And,
    Or,
    Not,
    Open,
    Close,
}

fn syntax(message: impl Into<String>, position: usize, hint: impl Into<String>) -> Error {
    Error::QuerySyntax { message: message.into(), position, hint: hint.into() }
}

fn lex(query: &str) -> Result<Vec<(Tok, usize)>> {
    let chars: Vec<char> = query.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c.is_control() {
            i += 1;
        } else if c == '(' {
            out.push((Tok::Open, i));
            i += 1;
        } else if c == ')' {
            out.push((Tok::Close, i));
            i += 1;
        } else if c == '"' {
            let start = i;
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += 1;
            }
            if j == chars.len() {
                return Err(syntax(
                    "unterminated phrase: opening quote has no closing quote",
                    start,
                    "close the phrase with a second \" or remove the quote",
                ));
            }
            let text: String = chars[start + 1..j].iter().collect();
            if text.trim().is_empty() {
                return Err(syntax("empty phrase \"\"", start, "put words between the quotes, or remove them"));
            }
            out.push((Tok::Phrase(text), start));
            i = j + 1;
        } else {
            let start = i;
            while i < chars.len()
                && !chars[i].is_whitespace()
                && !chars[i].is_control()
                && !matches!(chars[i], '(' | ')' | '"')
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let tok = match word.as_str() {
                "AND" => Tok::And,
                "OR" => Tok::Or,
                "NOT" => Tok::Not,
                _ => Tok::Word(word),
            };
            out.push((tok, start));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    at: usize,
    end: usize,
    clauses: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }
    fn pos(&self) -> usize {
        self.toks.get(self.at).map(|(_, p)| *p).unwrap_or(self.end)
    }

    fn or(&mut self, depth: usize) -> Result<Node> {
        let mut items = vec![self.and(depth)?];
        while self.peek() == Some(&Tok::Or) {
            let op = self.pos();
            self.at += 1;
            if !self.starts_operand() {
                return Err(syntax("OR has nothing after it", op, "add a term after OR, or remove it"));
            }
            items.push(self.and(depth)?);
        }
        // `x OR x` is `x`: a repeated alternative would only split the expansion budget (32 copies
        // of `*e*` found fewer items than one) and repeat the work.
        dedup(&mut items, |_| true);
        Ok(if items.len() == 1 { items.pop().unwrap() } else { Node::Or(items) })
    }

    fn starts_operand(&self) -> bool {
        matches!(self.peek(), Some(Tok::Word(_) | Tok::Phrase(_) | Tok::Not | Tok::Open))
    }

    fn and(&mut self, depth: usize) -> Result<Node> {
        let mut items = vec![self.unary(depth)?];
        loop {
            match self.peek() {
                Some(Tok::And) => {
                    let op = self.pos();
                    self.at += 1;
                    if !self.starts_operand() {
                        return Err(syntax("AND has nothing after it", op, "add a term after AND, or remove it"));
                    }
                    items.push(self.unary(depth)?);
                }
                _ if self.starts_operand() => items.push(self.unary(depth)?),
                _ => break,
            }
        }
        // A repeated wildcard is the same condition (words may repeat: they weigh as written).
        dedup(&mut items, |n| matches!(n, Node::Wildcard(_)));
        Ok(if items.len() == 1 { items.pop().unwrap() } else { Node::And(items) })
    }

    fn unary(&mut self, depth: usize) -> Result<Node> {
        if self.peek() == Some(&Tok::Not) {
            let op = self.pos();
            self.at += 1;
            if !self.starts_operand() {
                return Err(syntax("NOT has nothing after it", op, "add the term to exclude after NOT"));
            }
            if depth >= MAX_DEPTH {
                return Err(syntax("query nests too deeply", op, format!("use at most {MAX_DEPTH} levels")));
            }
            return Ok(Node::Not(Box::new(self.unary(depth + 1)?)));
        }
        self.primary(depth)
    }

    fn primary(&mut self, depth: usize) -> Result<Node> {
        let pos = self.pos();
        let Some((tok, _)) = self.toks.get(self.at).cloned() else {
            return Err(syntax("query ends where a term was expected", pos, "add a term"));
        };
        self.at += 1;
        let node = match tok {
            Tok::Open => {
                if depth >= MAX_DEPTH {
                    return Err(syntax(
                        "query nests too deeply",
                        pos,
                        format!("use at most {MAX_DEPTH} levels of parentheses"),
                    ));
                }
                if self.peek() == Some(&Tok::Close) {
                    return Err(syntax("empty parentheses", pos, "put a term inside the parentheses, or remove them"));
                }
                if self.peek().is_none() {
                    return Err(syntax("unclosed parenthesis", pos, "add a term and a matching ), or remove the ("));
                }
                if !self.starts_operand() {
                    return Err(syntax(
                        "an operator cannot start a group",
                        self.pos(),
                        "put a term before the operator",
                    ));
                }
                let inner = self.or(depth + 1)?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(syntax("unclosed parenthesis", pos, "add a matching ) or remove the ("));
                }
                self.at += 1;
                return Ok(inner);
            }
            Tok::Word(w) => {
                if let Some(field) = field_prefix(&w) {
                    return Err(syntax(
                        format!("\"{w}\" looks like a field search, which the query language does not have"),
                        pos,
                        format!("search one field with fields: {{\"{field}\": \"…\"}} (CLI: --field {field}=…), or quote the words"),
                    ));
                }
                if w.chars().all(|c| c == '*') {
                    Node::All
                } else if w.contains('*') {
                    Node::Wildcard(w)
                } else {
                    Node::Term(w)
                }
            }
            Tok::Phrase(p) => Node::Phrase(p),
            Tok::Close => return Err(syntax("unmatched )", pos, "remove the ) or add a matching (")),
            Tok::And | Tok::Or => {
                let op = if tok == Tok::And { "AND" } else { "OR" };
                return Err(syntax(
                    format!("{op} has nothing before it"),
                    pos,
                    format!(
                        "put a term before {op}, or remove it (lower-case \"{}\" is an ordinary word)",
                        op.to_lowercase()
                    ),
                ));
            }
            Tok::Not => unreachable!("handled in unary"),
        };
        self.clauses += 1;
        if self.clauses > MAX_CLAUSES {
            return Err(Error::limit(
                format!("query has more than {MAX_CLAUSES} terms"),
                "split the query, or use fields/filters to narrow it",
            ));
        }
        Ok(node)
    }
}

/// `title:thread` and the like: a text field's name, a colon, then more (never a match as words).
fn field_prefix(word: &str) -> Option<&str> {
    let (field, rest) = word.split_once(':')?;
    (!rest.is_empty() && crate::schema::TEXT_FIELDS.contains(&field)).then_some(field)
}

/// The query's length in characters, when within [`MAX_QUERY_CHARS`]. Every search mode checks
/// it (a semantic search never parses its query), so a query is refused or not whatever runs it.
pub fn checked_length(query: &str) -> Result<usize> {
    let chars = query.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(Error::limit(
            format!("query is {chars} characters long; the limit is {MAX_QUERY_CHARS}"),
            "shorten the query",
        ));
    }
    Ok(chars)
}

/// Parses a query string. Blank queries mean "everything", like `*`.
/// Drops the later copies of the `items` that `which` picks.
fn dedup(items: &mut Vec<Node>, which: impl Fn(&Node) -> bool) {
    let mut kept: Vec<Node> = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        if !(which(&item) && kept.contains(&item)) {
            kept.push(item);
        }
    }
    *items = kept;
}

pub fn parse(query: &str) -> Result<Node> {
    let chars = checked_length(query)?;
    let toks = lex(query)?;
    if toks.is_empty() {
        return Ok(Node::All);
    }
    let mut p = Parser { toks, at: 0, end: chars, clauses: 0 };
    let node = p.or(0)?;
    if p.at < p.toks.len() {
        let pos = p.pos();
        return Err(match p.peek() {
            Some(Tok::Close) => syntax("unmatched )", pos, "remove the ) or add a matching ("),
            _ => syntax("unexpected token", pos, "check operators and parentheses"),
        });
    }
    Ok(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Node {
        Node::Term(s.into())
    }

    #[test]
    fn precedence_not_and_or() {
        assert_eq!(parse("a OR b c").unwrap(), Node::Or(vec![t("a"), Node::And(vec![t("b"), t("c")])]));
        assert_eq!(parse("a OR b OR a OR (b)").unwrap(), Node::Or(vec![t("a"), t("b")]));
        assert_eq!(parse("*e* *e* a a").unwrap(), Node::And(vec![Node::Wildcard("*e*".into()), t("a"), t("a")]));
        assert_eq!(parse("a AND NOT b").unwrap(), Node::And(vec![t("a"), Node::Not(Box::new(t("b")))]));
        assert_eq!(
            parse("(file OR dir) AND read").unwrap(),
            Node::And(vec![Node::Or(vec![t("file"), t("dir")]), t("read")])
        );
        assert_eq!(parse("foo (bar OR baz)").unwrap(), Node::And(vec![t("foo"), Node::Or(vec![t("bar"), t("baz")])]));
    }

    #[test]
    fn lower_case_operators_are_terms() {
        assert_eq!(parse("foo or bar").unwrap(), Node::And(vec![t("foo"), t("or"), t("bar")]));
        assert_eq!(parse("ORACLE").unwrap(), t("ORACLE"));
    }

    #[test]
    fn phrases_wildcards_and_all() {
        assert_eq!(parse("\"file system\"").unwrap(), Node::Phrase("file system".into()));
        assert_eq!(parse("file*").unwrap(), Node::Wildcard("file*".into()));
        assert_eq!(parse("*").unwrap(), Node::All);
        assert_eq!(parse("***").unwrap(), Node::All);
        assert_eq!(parse("   ").unwrap(), Node::All);
        assert_eq!(parse("foo\"bar\"").unwrap(), Node::And(vec![t("foo"), Node::Phrase("bar".into())]));
    }

    fn err_at(q: &str) -> usize {
        match parse(q) {
            Err(Error::QuerySyntax { position, .. }) => position,
            other => panic!("expected syntax error for {q:?}, got {other:?}"),
        }
    }

    #[test]
    fn malformed_queries_report_positions() {
        assert_eq!(err_at("\"unbalanced phrase"), 0);
        assert_eq!(err_at("foo (bar"), 4);
        assert_eq!(err_at("foo ) bar"), 4);
        assert_eq!(err_at("foo AND"), 4);
        assert_eq!(err_at("foo OR"), 4);
        assert_eq!(err_at("OR foo"), 0);
        assert_eq!(err_at("NOT"), 0);
        assert_eq!(err_at("a ()"), 2);
        assert_eq!(err_at("a \"\""), 2);
        assert_eq!(err_at("a AND OR b"), 2);
    }

    #[test]
    fn limits_are_enforced() {
        let deep = "(".repeat(100) + "x" + &")".repeat(100);
        assert!(matches!(parse(&deep), Err(Error::QuerySyntax { .. })));
        let long = "a ".repeat(5000);
        assert!(matches!(parse(&long), Err(Error::Limit { .. })));
        let many = "a ".repeat(100);
        assert!(matches!(parse(&many), Err(Error::Limit { .. })));
        let nots = "NOT ".repeat(40) + "x";
        assert!(parse(&nots).is_err());
    }
}
