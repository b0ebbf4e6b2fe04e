//! `series[]` and `future_covariates[]` rows, read straight into columns.

use super::builder::{ColumnRefused, RowKind, TableBuilder};
use super::cell::{Cell, CellSeed, KeySeed};
use crate::error::FieldErrors;
use super::{COLUMN_PAST_TOTAL, MAX_COLUMN_NAME_CHARS};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// Where the parser is, so that a number serde_json cannot represent can still be named.
#[derive(Debug, Default, Clone)]
pub(crate) struct Cursor {
    pub array: Option<RowKind>,
    pub row: usize,
    pub key: String,
}

impl Cursor {
    pub fn path(&self) -> String {
        match self.array {
            Some(kind) if self.key.is_empty() => format!("{}[{}]", kind.name(), self.row),
            Some(kind) => format!("{}[{}].{}", kind.name(), self.row, self.key),
            None if !self.key.is_empty() => self.key.clone(),
            None => "body".to_string(),
        }
    }
}
/// The whole array: `series` or `future_covariates`.
pub(crate) struct RowsSeed<'a> {
    pub builder: &'a mut TableBuilder,
    pub errors: &'a mut FieldErrors,
    pub cursor: &'a mut Cursor,
}

impl<'de, 'a> DeserializeSeed<'de> for RowsSeed<'a> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, 'a> Visitor<'de> for RowsSeed<'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let kind = self.builder.kind;
        let mut row = 0usize;
        loop {
            self.cursor.array = Some(kind);
            self.cursor.row = row;
            self.cursor.key.clear();
            let seed = RowSeed { builder: &mut *self.builder, errors: &mut *self.errors, cursor: &mut *self.cursor };
            if seq.next_element_seed(seed)?.is_none() {
                break;
            }
            row += 1;
        }
        self.cursor.array = None;
        if row == 0 && kind == RowKind::Series {
            self.errors.push(|| "series".into(), "must hold at least 1 row");
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        self.not_an_array();
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.not_an_array();
        Ok(())
    }
}

impl<'a> RowsSeed<'a> {
    fn not_an_array(self) {
        let name = self.builder.kind.name();
        self.errors.push(|| name.to_string(), "must be an array of row objects");
    }
}

/// One row object.
struct RowSeed<'a> {
    builder: &'a mut TableBuilder,
    errors: &'a mut FieldErrors,
    cursor: &'a mut Cursor,
}

impl<'de, 'a> DeserializeSeed<'de> for RowSeed<'a> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let row = self.builder.row_count();
        let kind = self.builder.kind;
        let cell = d.deserialize_any(RowVisitor { builder: &mut *self.builder, errors: &mut *self.errors, cursor: &mut *self.cursor })?;
        if !cell {
            let path = format!("{}[{}]", kind.name(), row);
            match kind {
                RowKind::Series => self.errors.push(|| path, "must be an object"),
                RowKind::Future => self.builder.invalid_future(path, "must be an object"),
            }
            // Keep row indices aligned with positions in the array.
            if kind == RowKind::Future {
                self.builder.unread_rows.push(row as u32);
            }
            self.builder.push_row("", "", f64::NAN);
        }
        Ok(())
    }
}

struct RowVisitor<'a> {
    builder: &'a mut TableBuilder,
    errors: &'a mut FieldErrors,
    cursor: &'a mut Cursor,
}

impl<'de, 'a> Visitor<'de> for RowVisitor<'a> {
    /// Whether the row was an object.
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a row object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let b = self.builder;
        let kind = b.kind;
        let row = b.row_count();
        let path = |key: &str| format!("{}[{}].{}", kind.name(), row, key);
        let (mut uid, mut ds, mut y): (Option<Cow<'de, str>>, Option<Cow<'de, str>>, Option<f64>) = (None, None, None);
        let (mut seen_uid, mut seen_ds, mut seen_y) = (false, false, false);
        let mut set_columns: Vec<usize> = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            self.cursor.key.clear();
            self.cursor.key.push_str(&key);
            let cell = map.next_value_seed(CellSeed)?;
            match key.as_ref() {
                "unique_id" | "ds" => {
                    let is_uid = key == "unique_id";
                    let seen = if is_uid { &mut seen_uid } else { &mut seen_ds };
                    if std::mem::replace(seen, true) {
                        self.errors.push(|| path(&key), "duplicate key");
                        continue;
                    }
                    match cell {
                        Cell::Str(s) if is_uid => uid = Some(s),
                        Cell::Str(s) => ds = Some(s),
                        _ => match kind {
                            RowKind::Series => self.errors.push(|| path(&key), "must be a string"),
                            RowKind::Future => b.invalid_future(path(&key), "must be a string"),
                        },
                    }
                }
                "y" if kind == RowKind::Future => b.invalid_future(path("y"), "is not allowed: future rows carry no y"),
                "y" => {
                    if std::mem::replace(&mut seen_y, true) {
                        self.errors.push(|| path("y"), "duplicate key");
                        continue;
                    }
                    match cell {
                        Cell::Num(v) => y = Some(v),
                        Cell::Null => y = Some(f64::NAN),
                        _ => self.errors.push(|| path("y"), "must be a number or null"),
                    }
                }
                name => {
                    let c = match b.column(name) {
                        Ok(c) => c,
                        // A future row's column past its array's cap is judged with the series
                        // rows' columns once both are read (`columns_missing_from`).
                        Err(ColumnRefused::PastCap) if kind == RowKind::Future => continue,
                        Err(ColumnRefused::PastCap) => {
                            self.errors.push(|| path(name), COLUMN_PAST_TOTAL);
                            continue;
                        }
                        // The row, not the name, locates it: the name is what is too long to echo.
                        Err(ColumnRefused::NameTooLong(chars)) => {
                            let start: String = name.chars().take(32).collect();
                            let message = format!("has a covariate column name of {chars} characters (\"{start}...\"); at most {MAX_COLUMN_NAME_CHARS} are allowed");
                            self.errors.push(|| format!("{}[{}]", kind.name(), row), message);
                            continue;
                        }
                    };
                    if set_columns.contains(&c) {
                        self.errors.push(|| path(name), "duplicate key");
                        continue;
                    }
                    set_columns.push(c);
                    let col = &mut b.covariates[c];
                    col.values.resize(row, f64::NAN);
                    match cell {
                        Cell::Num(v) => col.values.push(v),
                        Cell::Null => col.values.push(f64::NAN),
                        Cell::Str(_) | Cell::Bool => {
                            col.values.push(f64::NAN);
                            col.non_numeric.push(row as u32); // a body row until `finish`
                        }
                        Cell::Nested => {
                            col.values.push(f64::NAN);
                            self.errors.push(|| path(name), "must be a number, string, boolean or null");
                        }
                    }
                }
            }
        }
        self.cursor.key.clear();
        if !seen_uid {
            match kind {
                RowKind::Series => self.errors.push(|| path("unique_id"), "is required"),
                RowKind::Future => b.invalid_future(path("unique_id"), "is required"),
            }
        }
        if !seen_ds {
            match kind {
                RowKind::Series => self.errors.push(|| path("ds"), "is required"),
                RowKind::Future => b.invalid_future(path("ds"), "is required"),
            }
        }
        if kind == RowKind::Series && !seen_y {
            self.errors.push(|| path("y"), "is required (null marks a missing value)");
        }
        if kind == RowKind::Future && (uid.is_none() || ds.is_none()) {
            b.unread_rows.push(row as u32);
        }
        b.push_row(uid.as_deref().unwrap_or(""), ds.as_deref().unwrap_or(""), y.unwrap_or(f64::NAN));
        Ok(true)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}
