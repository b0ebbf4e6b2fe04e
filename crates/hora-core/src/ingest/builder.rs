//! One array's rows accumulated into a `RowTable`'s columns: entities in first-seen order, each
//! entity's rows grouped at the end.

use super::table::{columns_missing, CovariateColumn, RowTable, StrColumn};
use super::{MAX_COLUMN_NAME_CHARS, MAX_COVARIATE_COLUMNS};
use hashbrown::HashTable;
use std::hash::BuildHasher;

/// Which array the rows come from: the rules for `unique_id`, `ds` and `y` differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowKind {
    Series,
    Future,
}

impl RowKind {
    pub(super) fn name(self) -> &'static str {
        match self {
            RowKind::Series => "series",
            RowKind::Future => "future_covariates",
        }
    }
}

/// Accumulates one array's rows into a `RowTable`.
pub(crate) struct TableBuilder {
    pub(super) kind: RowKind,
    /// Entity ids by name: each slot holds the name's hash and its id, the name itself living
    /// once, in `entities`. Growing the table rehashes from the stored hashes without reading a
    /// name again (a body of millions of one-row entities spent most of its parse there).
    entity_index: HashTable<(u64, u32)>,
    /// foldhash: several times cheaper per row than SipHash on short names, and seeded per
    /// process, so crafted names cannot make every lookup collide.
    hasher: foldhash::fast::RandomState,
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
    pub(super) covariates: Vec<CovariateColumn>,
    /// The body row where each covariate column first appeared (as `covariates`).
    column_first_rows: Vec<u32>,
    /// First problem that makes `future_covariates` invalid (FUTURE_COVARIATES_INVALID).
    pub future_invalid: Option<(String, String)>,
    /// Future rows that lack a string `unique_id` or `ds` (missing or not a string, or the row
    /// not an object): their own FUTURE_COVARIATES_INVALID, with no entity or no stamp to read,
    /// never an unreadable stamp.
    pub unread_rows: Vec<u32>,
    /// Future rows: names past this array's own cap, with the row where each first appeared. The
    /// cap counts the request's columns, so which of them is past it is known only against the
    /// series rows' columns, which may come later in the body (`columns_missing_from`).
    overflow: Vec<(u32, String)>,
}

/// Why a covariate column is not taken.
pub(super) enum ColumnRefused {
    /// Past `MAX_COVARIATE_COLUMNS` in this array.
    PastCap,
    /// A name of more than `MAX_COLUMN_NAME_CHARS` characters (its length).
    NameTooLong(usize),
}

impl TableBuilder {
    pub fn new(kind: RowKind) -> Self {
        TableBuilder {
            kind,
            entity_index: HashTable::new(),
            hasher: Default::default(),
            entities: Vec::new(),
            entity_of_row: Vec::new(),
            ds: StrColumn::new(),
            y: Vec::new(),
            grouped: true,
            last_entity: None,
            covariates: Vec::new(),
            column_first_rows: Vec::new(),
            future_invalid: None,
            unread_rows: Vec::new(),
            overflow: Vec::new(),
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
        let hash = self.hasher.hash_one(name);
        let entities = &self.entities;
        if let Some(&(_, e)) = self.entity_index.find(hash, |&(h, e)| h == hash && entities[e as usize] == name) {
            // An entity seen before, after another one: the rows are not grouped.
            self.grouped = false;
            return e;
        }
        let e = self.entities.len() as u32;
        self.entities.push(name.to_owned());
        self.entity_index.insert_unique(hash, (hash, e), |&(h, _)| h);
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

    /// The index of covariate column `name`, added if new.
    pub(super) fn column(&mut self, name: &str) -> Result<usize, ColumnRefused> {
        if let Some(i) = self.covariates.iter().position(|c| c.name == name) {
            return Ok(i);
        }
        let chars = name.chars().count();
        if chars > MAX_COLUMN_NAME_CHARS {
            return Err(ColumnRefused::NameTooLong(chars));
        }
        if self.covariates.len() >= MAX_COVARIATE_COLUMNS {
            // Enough names to find every one the request's error lists: the series rows hold at
            // most the cap's worth of them, the rest are future-only.
            let listed = MAX_COVARIATE_COLUMNS + crate::error::MAX_LISTED_ERRORS;
            if self.kind == RowKind::Future && self.overflow.len() < listed && self.overflow.iter().all(|(_, n)| n != name) {
                self.overflow.push((self.row_count() as u32, name.to_owned()));
            }
            return Err(ColumnRefused::PastCap);
        }
        self.covariates.push(CovariateColumn { name: name.to_owned(), values: Vec::new(), non_numeric: Vec::new() });
        self.column_first_rows.push(self.row_count() as u32);
        Ok(self.covariates.len() - 1)
    }

    /// The columns of these future rows that the series rows lack (COVARIATE_COLUMN_MISMATCH),
    /// each with the body row where it first appeared, in that order: those past this array's
    /// own cap too, all of which appeared after the columns it took.
    pub(super) fn columns_missing_from(&self, series: Option<&TableBuilder>) -> Vec<(u32, &str)> {
        let known = series.map_or(&[][..], |s| &s.covariates[..]);
        let missing = columns_missing(&self.covariates, known).into_iter();
        let taken = missing.map(|i| (self.column_first_rows[i], self.covariates[i].name.as_str()));
        let past_cap = self.overflow.iter().filter(|(_, n)| known.iter().all(|c| c.name != *n)).map(|(row, n)| (*row, n.as_str()));
        taken.chain(past_cap).collect()
    }

    /// Keeps the first reason `future_covariates` is invalid.
    pub(super) fn invalid_future(&mut self, field: String, message: &str) {
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
