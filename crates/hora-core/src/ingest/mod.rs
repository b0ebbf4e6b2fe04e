//! Request ingestion: the JSON body is parsed and validated in one pass straight into columns.
//!
//! Only syntax failures stop the parse (`MALFORMED_JSON`); every contract violation found on the
//! way is recorded as a field error and the parse goes on, so one response lists them all.

mod body;
mod builder;
mod cell;
mod digest;
mod fast;
mod rows;
mod table;
mod value;

pub use body::{
    future_rows_error, parse_body, parse_body_general, ParsedBody, BOUNDS_FIELDS, CLEANING_FIELDS, MODEL_OPTIONS_FIELDS, OPTIONS_FIELDS, TOP_LEVEL_FIELDS, UNKNOWN_FIELD,
};
pub use digest::canonical_digest;
pub use crate::error::{FieldError, FieldErrors, MAX_LISTED_ERRORS};
pub use table::{CovariateColumn, RowTable, StrColumn};

/// At most this many covariate columns in total (contract: Series row).
pub const MAX_COVARIATE_COLUMNS: usize = 8;

/// At most this many characters in a covariate column's name. The contract bounds neither, but
/// every entity's `model_input[].covariates[]` repeats each name, so an unbounded name sent once
/// made an answer (and the memory behind it) of entities x name length (docs/decisions.md).
pub const MAX_COLUMN_NAME_CHARS: usize = 256;

/// The field error of a covariate column past `MAX_COVARIATE_COLUMNS`, counted over the request.
pub(crate) const COLUMN_PAST_TOTAL: &str = "is a covariate column past the 8 allowed in total";
const _: () = assert!(MAX_COVARIATE_COLUMNS == 8, "COLUMN_PAST_TOTAL names the cap");
