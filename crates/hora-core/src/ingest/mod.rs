//! Request ingestion: the JSON body is parsed and validated in one pass straight into columns.

mod table;

pub use table::{CovariateColumn, RowTable, StrColumn};
