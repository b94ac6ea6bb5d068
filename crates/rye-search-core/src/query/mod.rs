//! The query language: parsing (`parse`), translation to Tantivy (`build`), what one query may
//! spend on expansions (`budget`), and scoring terms with few postings directly (`few_postings`).
pub mod budget;
pub mod build;
pub mod few_postings;
pub mod parse;
pub mod relax;

pub use parse::{parse, Node};
