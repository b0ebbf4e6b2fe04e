//! The columnar form of `series[]` (and `future_covariates[]`): no object per row.

/// Strings of one column stored back to back: row `i` is `bytes[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct StrColumn {
    pub bytes: String,
    pub offsets: Vec<u32>,
}

/// The empty column: one offset, 0 (a derived default would have none, and `len` would underflow).
impl Default for StrColumn {
    fn default() -> Self {
        StrColumn::new()
    }
}

impl StrColumn {
    pub fn new() -> Self {
        StrColumn { bytes: String::new(), offsets: vec![0] }
    }

    pub fn push(&mut self, s: &str) {
        self.bytes.push_str(s);
        self.offsets.push(self.bytes.len() as u32);
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends every string of `other`.
    pub fn extend(&mut self, other: &StrColumn) {
        let base = self.bytes.len() as u32;
        self.bytes.push_str(&other.bytes);
        self.offsets.extend(other.offsets[1..].iter().map(|o| o + base));
    }

    pub fn get(&self, i: usize) -> &str {
        &self.bytes[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// One covariate column (a sibling key of `unique_id`, `ds`, `y`) over all rows of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct CovariateColumn {
    pub name: String,
    /// Numeric value by table position; NaN where the row holds null, a string, a boolean or
    /// lacks the key.
    pub values: Vec<f64>,
    /// Table positions (ascending) of the rows holding a string or a boolean: the column is not
    /// numeric for the entities those rows belong to.
    pub non_numeric: Vec<u32>,
}

/// The positions in `future` of the columns that no history column shares a name with
/// (`COVARIATE_COLUMN_MISMATCH`), in order.
pub(super) fn columns_missing(future: &[CovariateColumn], history: &[CovariateColumn]) -> Vec<usize> {
    (0..future.len()).filter(|&i| !history.iter().any(|c| c.name == future[i].name)).collect()
}

/// Rows of one array of the body, grouped by entity.
///
/// Entity `e` holds the table positions `indptr[e]..indptr[e + 1]` (see [`RowTable::entity_range`]),
/// its rows in the order they were sent; every column (`ds`, `y`, covariates) is indexed by table
/// position, and `rows[position]` is that row's index in the body's array (for error paths).
/// `entities` holds entity names in first-seen order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RowTable {
    pub entities: Vec<String>,
    pub indptr: Vec<usize>,
    pub rows: Vec<u32>,
    /// `ds` of every row, by table position.
    pub ds: StrColumn,
    /// `y` of every row, by table position; NaN marks `null` (non-finite input is rejected).
    pub y: Vec<f64>,
    pub covariates: Vec<CovariateColumn>,
}

impl RowTable {
    pub fn row_count(&self) -> usize {
        self.y.len()
    }

    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Table positions of entity `e` (its slice of every column).
    pub fn entity_range(&self, e: usize) -> std::ops::Range<usize> {
        self.indptr[e]..self.indptr[e + 1]
    }

    /// Future rows checked against their history (`series`): the covariate columns the history
    /// lacks (`COVARIATE_COLUMN_MISMATCH`).
    pub fn columns_missing_from(&self, history: &RowTable) -> Vec<&str> {
        columns_missing(&self.covariates, &history.covariates).into_iter().map(|i| self.covariates[i].name.as_str()).collect()
    }

    /// Future rows checked against their history: the first entity with no history rows
    /// (`FUTURE_COVARIATES_INVALID`).
    pub fn first_entity_missing_from(&self, history: &RowTable) -> Option<&str> {
        // A set, not a scan of the history per future entity: 100,000 entities on each side
        // took 19 s that way, for a check that runs on every body at step 3.
        let known: std::collections::HashSet<&str, foldhash::fast::RandomState> = history.entities.iter().map(String::as_str).collect();
        self.entities.iter().map(String::as_str).find(|u| !known.contains(u))
    }

    /// The stamps alone (entities, body rows, `ds`) without the rows of body indices `drop`
    /// (sorted), for reading stamps; `y` and covariate columns are left empty, and entities left
    /// with no row go.
    pub fn stamps_without(&self, drop: &[u32]) -> RowTable {
        let mut out = RowTable { indptr: vec![0], ..RowTable::default() };
        for e in 0..self.entity_count() {
            let before = out.rows.len();
            for k in self.entity_range(e).filter(|&k| drop.binary_search(&self.rows[k]).is_err()) {
                out.rows.push(self.rows[k]);
                out.ds.push(self.ds.get(k));
            }
            if out.rows.len() > before {
                out.entities.push(self.entities[e].clone());
                out.indptr.push(out.rows.len());
            }
        }
        out
    }

    /// Body row indices of entity `e`, in the order sent.
    pub fn entity_rows(&self, e: usize) -> &[u32] {
        &self.rows[self.entity_range(e)]
    }

    /// `y` of entity `e`, in the order sent.
    pub fn entity_y(&self, e: usize) -> &[f64] {
        &self.y[self.entity_range(e)]
    }

    /// `(body row index, ds)` of entity `e`, in the order sent.
    pub fn entity_ds(&self, e: usize) -> impl Iterator<Item = (u32, &str)> + '_ {
        self.entity_range(e).map(move |k| (self.rows[k], self.ds.get(k)))
    }

    /// Whether some entity may be longer than `max` before cleaning, without parsing a stamp: in
    /// rows when `count_rows` (the raw preset), else in distinct `ds` strings, which are never
    /// fewer than its distinct instants (`Z` and `+00:00` name one instant). A cheap first look:
    /// false means no entity is too long; true means the engine must measure.
    pub fn may_exceed(&self, max: usize, count_rows: bool) -> bool {
        (0..self.entity_count()).any(|e| {
            if self.entity_range(e).len() <= max {
                return false;
            }
            if count_rows {
                return true;
            }
            let mut stamps: Vec<&str> = self.entity_ds(e).map(|(_, ds)| ds).collect();
            stamps.sort_unstable();
            stamps.dedup();
            stamps.len() > max
        })
    }
}
