//! The contract's error codes as they leave the engine.
//!
//! HTTP status, category and retryable live in the service's registry (`src/errors.ts`);
//! a test checks that every code the engine can raise is in that registry.

use std::sync::Arc;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::clean::CleaningReport;

macro_rules! error_codes {
    ($($variant:ident => $code:literal),* $(,)?) => {
        /// Every error code the contract names that the engine can raise.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode { $($variant),* }

        impl ErrorCode {
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code),* }
            }
        }
    };
}

error_codes! {
    MalformedJson => "MALFORMED_JSON",
    ValidationError => "VALIDATION_ERROR",
    CleaningOptionUnsupported => "CLEANING_OPTION_UNSUPPORTED",
    FutureCovariatesInvalid => "FUTURE_COVARIATES_INVALID",
    CovariateColumnMismatch => "COVARIATE_COLUMN_MISMATCH",
    SeriesDiscontinuous => "SERIES_DISCONTINUOUS",
    TimestampIrregular => "TIMESTAMP_IRREGULAR",
    FreqInferenceFailed => "FREQ_INFERENCE_FAILED",
    FreqAmbiguous => "FREQ_AMBIGUOUS",
    FreqUnsupported => "FREQ_UNSUPPORTED",
    SeriesEmpty => "SERIES_EMPTY",
    SeriesTooShort => "SERIES_TOO_SHORT",
    AmbiguousDateFormat => "AMBIGUOUS_DATE_FORMAT",
    RawInputInvalid => "RAW_INPUT_INVALID",
    PointsExceeded => "POINTS_EXCEEDED",
    SeriesTooLong => "SERIES_TOO_LONG",
    QuantileUnsupported => "QUANTILE_UNSUPPORTED",
    ServiceUnavailable => "SERVICE_UNAVAILABLE",
    GatewayTimeout => "GATEWAY_TIMEOUT",
    InternalServerError => "INTERNAL_SERVER_ERROR",
}

/// How a `VALIDATION_ERROR`'s message begins; the first listed field and what is wrong with it
/// follow (the service words its own schema errors the same way).
pub const INVALID_BODY: &str = "The request body is invalid";

/// An error that stops a request: a contract code, an English message and structured details.
#[derive(Debug, Clone, PartialEq)]
pub struct HoraError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Map<String, Value>,
    /// `details.cleaning_report` (errors of the cleaning group, contract), kept typed so that a
    /// report of many entities is written once ([`HoraError::details_json`]), not built as a tree.
    pub cleaning_report: Option<Arc<CleaningReport>>,
}

impl HoraError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        HoraError { code, message: message.into(), details: Map::new(), cleaning_report: None }
    }

    /// `details` as JSON text, with the cleaning report among its keys in their order.
    pub fn details_json(&self) -> String {
        serde_json::to_string(&Details(self)).unwrap_or_else(|_| "{}".to_string())
    }

    /// Adds one entry to `details`.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }

    /// A 422 `VALIDATION_ERROR` naming one field of the body.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::fields(vec![FieldError { field: field.into(), message: message.into() }])
    }

    /// A 422 `VALIDATION_ERROR` listing field errors, at most the contract's 10. Each entry's
    /// message says what is wrong without repeating its path (`"x" is not in a supported
    /// timestamp format`); the error's message names the first after [`INVALID_BODY`].
    pub fn fields(mut listed: Vec<FieldError>) -> Self {
        listed.truncate(MAX_LISTED_ERRORS);
        // A field path is named in full in the details; the message cuts one past 256 bytes (an
        // unknown key of megabytes would otherwise be echoed twice).
        let message = match listed.first() {
            Some(first) => format!("{INVALID_BODY}: {} {}.", crate::time::cut(&first.field, 256, str::to_string), first.message),
            None => format!("{INVALID_BODY}."),
        };
        let entries = listed.into_iter().map(|e| serde_json::json!({ "field": e.field, "message": e.message })).collect();
        HoraError::new(ErrorCode::ValidationError, message).with("errors", Value::Array(entries))
    }

    /// The `details.errors[]` entries of a [`HoraError::fields`] error (none for any other), so
    /// that the lists of readers that ran apart can be one error.
    pub fn listed_fields(&self) -> Vec<FieldError> {
        let Some(Value::Array(list)) = self.details.get("errors") else { return Vec::new() };
        list.iter()
            .filter_map(|entry| {
                let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_string);
                Some(FieldError { field: text("field")?, message: text("message")? })
            })
            .collect()
    }
}

impl std::fmt::Display for HoraError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for HoraError {}

pub type Result<T> = std::result::Result<T, HoraError>;

// ---- Field errors: the `details.errors[]` of a VALIDATION_ERROR, collected where they are found ----

/// The contract lists at most 10 validation errors.
pub const MAX_LISTED_ERRORS: usize = 10;

/// One `details.errors[]` entry: the field as a path (`series[3].y`) and what is wrong.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
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

const REPORT_KEY: &str = "cleaning_report";

/// `details` plus the typed cleaning report, written as one object with its keys in order (as
/// the map alone writes them).
struct Details<'a>(&'a HoraError);

impl Serialize for Details<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let e = self.0;
        let mut map = s.serialize_map(Some(e.details.len() + usize::from(e.cleaning_report.is_some())))?;
        let mut report = e.cleaning_report.as_deref();
        for (key, value) in &e.details {
            if let Some(r) = report.filter(|_| key.as_str() > REPORT_KEY) {
                map.serialize_entry(REPORT_KEY, r)?;
                report = None;
            }
            map.serialize_entry(key, value)?;
        }
        if let Some(r) = report {
            map.serialize_entry(REPORT_KEY, r)?;
        }
        map.end()
    }
}

