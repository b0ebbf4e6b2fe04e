//! A JSON value read through serde that reports duplicate object keys instead of silently keeping
//! the last one (serde_json's `Value` does that), so no field of a request is ever dropped unseen.

use crate::error::FieldErrors;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt;

/// Containers nested deeper than this are not read into the value. No field of the contract
/// nests past a few levels, and serde_json's own limit (128) would make a deep but well-formed
/// value a syntax error: `"h": [[[...]]]` must be `h must be integer`, not `MALFORMED_JSON`.
const MAX_DEPTH: usize = 64;

/// Array items and object members one top-level field other than the rows may hold. The largest
/// the contract allows is 200 (`accept`, `decline`); without a bound a 10 MB `level` array costs
/// gigabytes once the service has turned it into objects and checked every item.
pub const MAX_FIELD_VALUES: usize = 10_000;

/// The state of reading one top-level field: the path being read (for a parse error) and how
/// many more items and members it may hold.
pub(crate) struct FieldRead {
    pub reading: RefCell<String>,
    values_left: Cell<usize>,
    over: Cell<bool>,
}

impl FieldRead {
    pub fn new() -> Self {
        FieldRead { reading: RefCell::new(String::new()), values_left: Cell::new(MAX_FIELD_VALUES), over: Cell::new(false) }
    }

    /// Whether the field held more than `MAX_FIELD_VALUES` items and members; the rest were skipped.
    pub fn over(&self) -> bool {
        self.over.get()
    }

    /// Counts one more item or member: false once the field has used them all.
    fn take_one(&self) -> bool {
        let left = self.values_left.get();
        self.values_left.set(left.saturating_sub(1));
        left > 0
    }
}

/// The error of a field over `MAX_FIELD_VALUES`.
pub(crate) fn too_many_values() -> String {
    format!("must hold at most {MAX_FIELD_VALUES} array items and object members in all")
}

pub(crate) struct StrictValue<'e> {
    pub path: String,
    /// Where each duplicate key is reported with its path.
    pub errors: &'e mut FieldErrors,
    /// Containers around this value. A container at `MAX_DEPTH` is skipped without recursion and
    /// read as `null`, which every field's own check then refuses (and an unknown key under
    /// `options` is ignored, as the contract says).
    pub depth: usize,
    /// The top-level field being read: the path being read, kept up to date for a parse error
    /// (serde_json refuses a number beyond f64 before any visitor sees it, and the error must name
    /// its own path), and the items and members left.
    field: &'e FieldRead,
}

impl<'e> StrictValue<'e> {
    /// The value of top-level field `key` of a request (its objects' keys checked as `keys_of`
    /// says), with `field.reading` following the path being read. Past `MAX_FIELD_VALUES` items
    /// and members the rest of each container is skipped and `field.over()` is true.
    pub fn top_level(key: &str, errors: &'e mut FieldErrors, field: &'e FieldRead) -> Self {
        field.reading.replace(key.to_string());
        StrictValue { path: key.to_string(), errors, depth: 0, field }
    }

    fn child(&mut self, path: String) -> StrictValue<'_> {
        self.field.reading.replace(path.clone());
        StrictValue { path, errors: &mut *self.errors, depth: self.depth + 1, field: self.field }
    }

    /// Counts one more item or member of the top-level field; false once it holds too many,
    /// and then the field is marked as over the cap.
    fn take_one(&self) -> bool {
        let room = self.field.take_one();
        if !room {
            self.field.over.set(true);
        }
        room
    }

    /// Whether the field has room for one more item; it is counted once the item is seen.
    fn has_room(&self) -> bool {
        self.field.values_left.get() > 0
    }

    /// Whether this container is past `MAX_DEPTH`, to be skipped.
    fn too_deep(&self) -> bool {
        self.depth >= MAX_DEPTH
    }
}

/// What a request's object at `path` may hold. Another key's value is skipped unread (never
/// decoded, so not even a number beyond f64 refuses it); the key itself is refused as not a field
/// in the closed objects and ignored directly under `options`, as the contract says.
struct Keys {
    known: &'static [&'static str],
    refuse_others: bool,
}

fn keys_of(path: &str) -> Option<Keys> {
    let (known, refuse_others) = match path {
        "options" => (super::OPTIONS_FIELDS, false),
        "options.cleaning" => (super::CLEANING_FIELDS, true),
        "options.cleaning.bounds" => (super::BOUNDS_FIELDS, true),
        "model_options" => (super::MODEL_OPTIONS_FIELDS, true),
        _ => return None,
    };
    Some(Keys { known, refuse_others })
}

impl<'de, 'e> DeserializeSeed<'de> for StrictValue<'e> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, 'e> Visitor<'de> for StrictValue<'e> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // serde_json never yields a non-finite float, so `from_f64` cannot fail here.
        Ok(Number::from_f64(v).map(Value::Number).unwrap_or(Value::Null))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        if self.too_deep() {
            // serde_json skips an ignored value without recursing, at any depth.
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Value::Null);
        }
        let mut out = Vec::new();
        loop {
            if !self.has_room() {
                // Only an item past the cap makes the field too large.
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    self.take_one();
                }
                return Ok(Value::Array(out));
            }
            let path = format!("{}[{}]", self.path, out.len());
            match seq.next_element_seed(self.child(path))? {
                Some(v) => {
                    self.take_one();
                    out.push(v)
                }
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        if self.too_deep() {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(Value::Null);
        }
        let mut out = Map::new();
        let keys = keys_of(&self.path);
        // A set, not a list: a closed object with 80,000 unknown keys made the scan quadratic.
        let mut refused: HashSet<String> = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let unknown = keys.as_ref().filter(|k| !k.known.contains(&key.as_str()));
            // An unknown key where the contract ignores them (directly under `options`) is skipped
            // unread and uncounted: no number of them makes the request fail.
            if unknown.is_some_and(|k| !k.refuse_others) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if !self.take_one() {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if unknown.is_some() {
                map.next_value::<IgnoredAny>()?;
                // A closed object's unknown key, named once however often it repeats.
                if !refused.contains(&key) {
                    self.errors.push(|| format!("{}.{}", self.path, key), super::body::UNKNOWN_FIELD);
                    refused.insert(key);
                }
                continue;
            }
            let path = if self.path.is_empty() { key.clone() } else { format!("{}.{}", self.path, key) };
            let value = map.next_value_seed(self.child(path.clone()))?;
            if !out.contains_key(&key) {
                out.insert(key, value);
                continue;
            }
            self.errors.push(|| path, "duplicate key");
        }
        Ok(Value::Object(out))
    }
}
