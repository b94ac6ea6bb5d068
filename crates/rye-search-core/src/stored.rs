//! Reading a hit's stored fields. Content is stored last and is usually the bulk of a
//! document; a hit without a preview stops reading before it.

use tantivy::schema::document::{
    DeserializeError, DocumentDeserialize, DocumentDeserializer, ValueDeserialize, ValueDeserializer, ValueVisitor,
};
use tantivy::schema::Field;

use crate::schema::CONTENT_FIELD_ID;

/// The stored values of one document, in the order they were written.
pub struct Stored<const WITH_CONTENT: bool>(pub Vec<(Field, StoredValue)>);

pub type WithoutContent = Stored<false>;
pub type WithContent = Stored<true>;

pub enum StoredValue {
    Text(String),
    /// Any other scalar: not used by hits, read past rather than failing the search.
    Other,
}

impl<const WITH_CONTENT: bool> Stored<WITH_CONTENT> {
    /// Moves the first text of `field` out (each field is read once per hit).
    pub fn take_text(&mut self, field: Field) -> String {
        self.0
            .iter_mut()
            .find_map(|(f, v)| match v {
                StoredValue::Text(t) if *f == field => Some(std::mem::take(t)),
                _ => None,
            })
            .unwrap_or_default()
    }
}

impl<const WITH_CONTENT: bool> DocumentDeserialize for Stored<WITH_CONTENT> {
    fn deserialize<'de, D>(mut deserializer: D) -> Result<Self, DeserializeError>
    where
        D: DocumentDeserializer<'de>,
    {
        let mut out = Vec::with_capacity(deserializer.size_hint());
        while let Some((field, value)) = deserializer.next_field::<StoredValue>()? {
            if field.field_id() == CONTENT_FIELD_ID && !WITH_CONTENT {
                break;
            }
            out.push((field, value));
        }
        Ok(Stored(out))
    }
}

impl ValueDeserialize for StoredValue {
    fn deserialize<'de, D>(deserializer: D) -> Result<Self, DeserializeError>
    where
        D: ValueDeserializer<'de>,
    {
        deserializer.deserialize_any(Visitor)
    }
}

struct Visitor;

impl ValueVisitor for Visitor {
    type Value = StoredValue;

    fn visit_string(&self, val: String) -> Result<StoredValue, DeserializeError> {
        Ok(StoredValue::Text(val))
    }

    fn visit_i64(&self, _val: i64) -> Result<StoredValue, DeserializeError> {
        Ok(StoredValue::Other)
    }

    fn visit_null(&self) -> Result<StoredValue, DeserializeError> {
        Ok(StoredValue::Other)
    }

    fn visit_u64(&self, _val: u64) -> Result<StoredValue, DeserializeError> {
        Ok(StoredValue::Other)
    }

    fn visit_f64(&self, _val: f64) -> Result<StoredValue, DeserializeError> {
        Ok(StoredValue::Other)
    }

    fn visit_bool(&self, _val: bool) -> Result<StoredValue, DeserializeError> {
        Ok(StoredValue::Other)
    }
}
