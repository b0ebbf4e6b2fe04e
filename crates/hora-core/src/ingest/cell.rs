//! One cell of a row and one object key, read by serde without building a `Value`: a string
//! borrows from the body where it can, and a nested array or object is skipped unread.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A scalar cell of a row; nested arrays and objects are skipped and reported.
pub(super) enum Cell<'de> {
    Str(Cow<'de, str>),
    Num(f64),
    Bool,
    Null,
    Nested,
}

pub(super) struct CellSeed;

impl<'de> DeserializeSeed<'de> for CellSeed {
    type Value = Cell<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cell<'de>, D::Error> {
        d.deserialize_any(CellVisitor)
    }
}

struct CellVisitor;

impl<'de> Visitor<'de> for CellVisitor {
    type Value = Cell<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Cell<'de>, E> {
        Ok(Cell::Bool)
    }
    fn visit_i64<E>(self, v: i64) -> Result<Cell<'de>, E> {
        Ok(Cell::Num(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Cell<'de>, E> {
        Ok(Cell::Num(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Cell<'de>, E> {
        Ok(Cell::Num(v))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cell<'de>, E> {
        Ok(Cell::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Cell<'de>, E> {
        Ok(Cell::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Cell<'de>, E> {
        Ok(Cell::Str(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Cell<'de>, E> {
        Ok(Cell::Null)
    }
    fn visit_none<E>(self) -> Result<Cell<'de>, E> {
        Ok(Cell::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cell<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Cell::Nested)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Cell<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Cell::Nested)
    }
}

/// An object key, borrowed from the body when it holds no escapes (no allocation per row).
pub(super) struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}
