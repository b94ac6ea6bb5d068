//! A segment's term dictionaries of the fields a query looks its words up in, opened once per
//! segment. Tantivy hands each out from a map behind a lock, keyed with SipHash, and translating
//! a query asked for them ~6 times a segment (callgrind, 1,000 single-mid searches on ten
//! segments: 291M -> 282M instructions).

use std::sync::Arc;

use tantivy::schema::Field;
use tantivy::{InvertedIndexReader, SegmentReader};

pub struct Dictionaries(Vec<(Field, Arc<InvertedIndexReader>)>);

impl Dictionaries {
    pub fn open(segment: &SegmentReader, fields: &[Field]) -> tantivy::Result<Self> {
        fields.iter().map(|&f| Ok((f, segment.inverted_index(f)?))).collect::<tantivy::Result<_>>().map(Dictionaries)
    }

    /// The dictionary of `field`, when it is one of those opened.
    pub fn get(&self, field: Field) -> Option<&InvertedIndexReader> {
        self.0.iter().find(|(f, _)| *f == field).map(|(_, reader)| &**reader)
    }
}
