//! The query language: parsing (`parse`), translation to Tantivy (`build`), what one query may
//! spend on expansions (`budget`), scoring terms with few postings directly (`few_postings`), a
//! word an intersection probes (`any_field`), and the term dictionaries a translation looks words
//! up in (`dictionaries`).
pub mod any_field;
pub mod budget;
pub mod build;
pub mod dictionaries;
pub mod few_postings;
pub mod parse;
pub mod relax;

pub use parse::{parse, Node};
