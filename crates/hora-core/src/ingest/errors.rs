//! Field errors collected during ingestion.

use serde::Serialize;

/// The contract lists at most 10 validation errors.
pub const MAX_LISTED_ERRORS: usize = 10;

/// One `details.errors[]` entry: the field as a path (`series[3].y`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

/// The first errors found, plus how many there were in all.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FieldErrors {
    pub listed: Vec<FieldError>,
    pub total: usize,
}

impl FieldErrors {
    pub fn push(&mut self, field: impl FnOnce() -> String, message: impl Into<String>) {
        self.total += 1;
        if self.listed.len() < MAX_LISTED_ERRORS {
            self.listed.push(FieldError { field: field(), message: message.into() });
        }
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}
