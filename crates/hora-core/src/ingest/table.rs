//! The columnar form of `series[]` (and `future_covariates[]`): no object per row.

/// Strings of one column stored back to back: row `i` is `bytes[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct StrColumn {
    pub bytes: String,
    pub offsets: Vec<u32>,
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

    pub fn get(&self, i: usize) -> &str {
        &self.bytes[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// One covariate column (a sibling key of `unique_id`, `ds`, `y`) over all rows of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct CovariateColumn {
    pub name: String,
    /// Numeric value per row; NaN where the row holds null, a string, a boolean or lacks the key.
    pub values: Vec<f64>,
    /// Rows holding a string or a boolean: such a column is not numeric.
    pub non_numeric_rows: usize,
}

/// Rows of one array of the body, grouped by entity.
///
/// `rows[indptr[e]..indptr[e + 1]]` are the row indices (positions in the body's array) of entity
/// `e`, in the order they were sent. `entities` holds entity names in first-seen order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RowTable {
    pub entities: Vec<String>,
    pub indptr: Vec<usize>,
    pub rows: Vec<u32>,
    /// `ds` of every row, indexed by row index.
    pub ds: StrColumn,
    /// `y` of every row, indexed by row index; NaN marks `null` (non-finite input is rejected).
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

    /// Row indices of entity `e`, in the order sent.
    pub fn entity_rows(&self, e: usize) -> &[u32] {
        &self.rows[self.indptr[e]..self.indptr[e + 1]]
    }
}
