//! `series[]` and `future_covariates[]` rows, read straight into columns.

use super::cell::{Cell, CellSeed, KeySeed};
use super::errors::FieldErrors;
use super::table::{CovariateColumn, RowTable, StrColumn};
use super::MAX_COVARIATE_COLUMNS;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// Which array the rows come from: the rules for `unique_id`, `ds` and `y` differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowKind {
    Series,
    Future,
}

impl RowKind {
    fn name(self) -> &'static str {
        match self {
            RowKind::Series => "series",
            RowKind::Future => "future_covariates",
        }
    }
}

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

/// Accumulates one array's rows into a `RowTable`.
pub(crate) struct TableBuilder {
    kind: RowKind,
    /// foldhash: several times cheaper per row than SipHash on short names, and seeded per
    /// process, so crafted names cannot make every lookup collide.
    entity_index: HashMap<String, u32, foldhash::fast::RandomState>,
    entities: Vec<String>,
    /// The rows in arrival order; `finish` groups them by entity (a move when they came grouped,
    /// the common case, else one counting-sort pass, so that with shuffled rows later reads of an
    /// entity's stamps are not cache misses).
    entity_of_row: Vec<u32>,
    ds: StrColumn,
    y: Vec<f64>,
    /// Whether every entity's rows so far are contiguous (entity ids never decrease, as ids are
    /// given in first-seen order).
    grouped: bool,
    last_entity: Option<u32>,
    covariates: Vec<CovariateColumn>,
    /// First problem that makes `future_covariates` invalid (FUTURE_COVARIATES_INVALID).
    pub future_invalid: Option<(String, String)>,
    /// Future rows that lack a string `unique_id` or `ds` (missing or not a string, or the row
    /// not an object): their own FUTURE_COVARIATES_INVALID, with no entity or no stamp to read,
    /// never an unreadable stamp.
    pub unread_rows: Vec<u32>,
}

impl TableBuilder {
    pub fn new(kind: RowKind) -> Self {
        TableBuilder {
            kind,
            entity_index: HashMap::default(),
            entities: Vec::new(),
            entity_of_row: Vec::new(),
            ds: StrColumn::new(),
            y: Vec::new(),
            grouped: true,
            last_entity: None,
            covariates: Vec::new(),
            future_invalid: None,
            unread_rows: Vec::new(),
        }
    }

    /// Reserves room for the rows a body of `bytes` bytes can hold at about `row_bytes` each (a
    /// guess: untouched reserved memory costs nothing, growing the columns costs copies).
    pub fn reserve_for(&mut self, bytes: usize, row_bytes: usize) {
        let rows = bytes / row_bytes.max(1);
        self.entity_of_row.reserve(rows);
        self.y.reserve(rows);
        self.ds.offsets.reserve(rows);
        self.ds.bytes.reserve(rows * 20);
    }

    /// Rows read so far: the index of the next row in the body's array.
    pub fn row_count(&self) -> usize {
        self.y.len()
    }

    fn entity(&mut self, name: &str) -> u32 {
        // Rows of one entity usually arrive together: check the last one before hashing.
        if let Some(last) = self.last_entity {
            if self.entities[last as usize] == name {
                return last;
            }
        }
        if let Some(&e) = self.entity_index.get(name) {
            // An entity seen before, after another one: the rows are not grouped.
            self.grouped = false;
            return e;
        }
        let e = self.entities.len() as u32;
        self.entities.push(name.to_owned());
        self.entity_index.insert(name.to_owned(), e);
        e
    }

    /// Appends one row; both readers of the body end every row here.
    pub(crate) fn push_row(&mut self, unique_id: &str, ds: &str, y: f64) {
        let e = self.entity(unique_id);
        self.last_entity = Some(e);
        self.entity_of_row.push(e);
        self.ds.push(ds);
        self.y.push(y);
    }

    /// Appends the rows of `later`, read from the rows right after these (a body read in two
    /// halves): the outcome is the builder one pass over both would have made.
    pub(crate) fn append(&mut self, later: TableBuilder) {
        let ids: Vec<u32> = later.entities.iter().map(|name| self.entity(name)).collect();
        self.entity_of_row.extend(later.entity_of_row.iter().map(|&e| ids[e as usize]));
        self.ds.extend(&later.ds);
        self.y.extend_from_slice(&later.y);
        // Ids are given in first-seen order, so the rows are grouped exactly when ids never fall.
        self.grouped = self.entity_of_row.windows(2).all(|w| w[0] <= w[1]);
        self.last_entity = self.entity_of_row.last().copied();
    }

    fn column(&mut self, name: &str) -> Option<usize> {
        if let Some(i) = self.covariates.iter().position(|c| c.name == name) {
            return Some(i);
        }
        if self.covariates.len() >= MAX_COVARIATE_COLUMNS {
            return None;
        }
        self.covariates.push(CovariateColumn { name: name.to_owned(), values: Vec::new(), non_numeric: Vec::new() });
        Some(self.covariates.len() - 1)
    }

    fn invalid_future(&mut self, field: String, message: &str) {
        if self.future_invalid.is_none() {
            self.future_invalid = Some((field, message.to_owned()));
        }
    }

    /// The columns, grouped by entity, each entity's rows in the order sent.
    pub fn finish(self) -> RowTable {
        let n = self.y.len();
        let k = self.entities.len();
        let mut indptr = vec![0usize; k + 1];
        for &e in &self.entity_of_row {
            indptr[e as usize + 1] += 1;
        }
        for e in 0..k {
            indptr[e + 1] += indptr[e];
        }
        let mut table = if self.grouped {
            RowTable { entities: self.entities, indptr, rows: (0..n as u32).collect(), ds: self.ds, y: self.y, covariates: Vec::new() }
        } else {
            // Counting sort: each row goes to the next free position of its entity; each entity's
            // stamps get a byte range sized in a first pass.
            let mut next_byte = vec![0usize; k + 1];
            for (r, &e) in self.entity_of_row.iter().enumerate() {
                next_byte[e as usize + 1] += (self.ds.offsets[r + 1] - self.ds.offsets[r]) as usize;
            }
            for e in 0..k {
                next_byte[e + 1] += next_byte[e];
            }
            let mut next_pos = indptr.clone();
            let (mut rows, mut y, mut ends) = (vec![0u32; n], vec![0f64; n], vec![0u32; n]);
            let mut ds_bytes = vec![0u8; self.ds.bytes.len()];
            let src = self.ds.bytes.as_bytes();
            for (r, &e) in self.entity_of_row.iter().enumerate() {
                let (e, pos) = (e as usize, next_pos[e as usize]);
                next_pos[e] += 1;
                rows[pos] = r as u32;
                y[pos] = self.y[r];
                let stamp = &src[self.ds.offsets[r] as usize..self.ds.offsets[r + 1] as usize];
                let at = next_byte[e];
                ds_bytes[at..at + stamp.len()].copy_from_slice(stamp);
                next_byte[e] = at + stamp.len();
                ends[pos] = next_byte[e] as u32;
            }
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0);
            offsets.extend_from_slice(&ends);
            // Whole stamps were moved between UTF-8 strings, so the bytes stay valid UTF-8.
            let bytes = String::from_utf8(ds_bytes).expect("stamps moved whole");
            RowTable { entities: self.entities, indptr, rows, ds: StrColumn { bytes, offsets }, y, covariates: Vec::new() }
        };
        // Covariates are read by body row while parsing (rare and few): put them in table order.
        let mut position_of_row: Vec<u32> = Vec::new();
        table.covariates = self
            .covariates
            .into_iter()
            .map(|mut c| {
                c.values.resize(n, f64::NAN);
                c.values = table.rows.iter().map(|&r| c.values[r as usize]).collect();
                if !c.non_numeric.is_empty() {
                    if position_of_row.is_empty() {
                        position_of_row = vec![0; n];
                        for (pos, &r) in table.rows.iter().enumerate() {
                            position_of_row[r as usize] = pos as u32;
                        }
                    }
                    c.non_numeric.iter_mut().for_each(|r| *r = position_of_row[*r as usize]);
                    c.non_numeric.sort_unstable();
                }
                c
            })
            .collect();
        table
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
                    let Some(c) = b.column(name) else {
                        self.errors.push(|| path(name), "is a covariate column past the 8 allowed in total");
                        continue;
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn finish_groups_each_entity_in_the_order_sent(rows in prop::collection::vec(("[a-d]{1,2}", "[0-9é]{0,6}", -1e3..1e3f64), 0..60)) {
            let mut b = TableBuilder::new(RowKind::Series);
            for (uid, ds, y) in &rows {
                b.push_row(uid, ds, *y);
            }
            let t = b.finish();
            prop_assert_eq!(t.row_count(), rows.len());
            let mut first_seen: Vec<&str> = Vec::new();
            for (uid, _, _) in &rows {
                if !first_seen.contains(&uid.as_str()) {
                    first_seen.push(uid);
                }
            }
            prop_assert_eq!(&t.entities, &first_seen);
            for (e, name) in first_seen.iter().enumerate() {
                let want: Vec<u32> = (0..rows.len() as u32).filter(|&r| rows[r as usize].0 == *name).collect();
                prop_assert_eq!(t.entity_rows(e), &want[..]);
                let ds: Vec<(u32, &str)> = t.entity_ds(e).collect();
                let want_ds: Vec<(u32, &str)> = want.iter().map(|&r| (r, rows[r as usize].1.as_str())).collect();
                prop_assert_eq!(ds, want_ds);
                let want_y: Vec<f64> = want.iter().map(|&r| rows[r as usize].2).collect();
                prop_assert_eq!(t.entity_y(e), &want_y[..]);
            }
        }
    }
}
