//! The query language: parsing (`parse`), translation to Tantivy (`build`), typo and wildcard
//! expansion (`expand`), term queries and their unions (`terms`), what one query may spend on
//! expansions (`budget`), scoring terms with few postings directly (`few_postings`), ranking unions
//! of a few terms by MaxScore (`max_score`), unions an intersection probes (`probed`), words near
//! one another (`near`), plain questions relaxed (`relax`), and the term dictionaries a translation
//! looks words up in (`dictionaries`).
pub mod budget;
pub mod build;
pub mod dictionaries;
mod expand;
pub mod few_postings;
pub mod max_score;
pub mod near;
pub mod parse;
pub mod probed;
pub mod relax;
pub mod terms;
#[cfg(test)]
mod testing;

pub use expand::{closest_words, TypoWalks, MAX_TYPO_CHARS};
pub use parse::{parse, Node};
