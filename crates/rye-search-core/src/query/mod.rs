//! The query language: parsing (`parse`) and translation to Tantivy (`build`).
pub mod budget;
pub mod build;
pub mod few;
pub mod parse;

pub use parse::{parse, Node};
