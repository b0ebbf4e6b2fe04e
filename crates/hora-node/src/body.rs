//! Request bodies: parsed off the event loop into columns that stay in Rust.

use crate::errors::EngineError;
use crate::guard::{EngineTask, Guarded};
use hora_core::ingest::{canonical_digest, parse_body, FieldError, ParsedBody};
use hora_core::HoraError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use hora_core::clean::EntityStamps;
use std::sync::{Arc, Mutex};

#[napi(object)]
pub struct FieldErrorJs {
    pub field: String,
    pub message: String,
}

impl From<&FieldError> for FieldErrorJs {
    fn from(e: &FieldError) -> Self {
        FieldErrorJs { field: e.field.clone(), message: e.message.clone() }
    }
}

/// A parsed request body. The rows stay in Rust; JavaScript sees counts and the small fields.
#[napi]
pub struct ParsedRequest {
    pub(crate) inner: std::result::Result<Arc<ParsedBody>, HoraError>,
    /// The entities' stamps as validation read them (`readStampsTask`), for the cleaning to reuse.
    pub(crate) stamps: ReadStamps,
}

/// Stamps read once at validation, shared with the tasks that clean the same request.
pub(crate) type ReadStamps = Arc<Mutex<Option<Arc<Vec<EntityStamps>>>>>;

/// What a task takes to the thread pool (by reference count): the parsed columns and the stamps
/// validation read, if it did.
pub(crate) struct RequestRows {
    pub(crate) body: Arc<ParsedBody>,
    read: Option<Arc<Vec<EntityStamps>>>,
}

impl RequestRows {
    pub(crate) fn stamps(&self) -> Option<&[EntityStamps]> {
        self.read.as_deref().map(Vec::as_slice)
    }
}

impl ParsedRequest {
    pub(crate) fn rows(&self) -> Result<RequestRows> {
        let body = self.inner.as_ref().cloned().map_err(|_| Error::new(Status::InvalidArg, "the request body did not parse"))?;
        Ok(RequestRows { body, read: self.stamps.lock().ok().and_then(|s| s.clone()) })
    }
}

#[napi]
impl ParsedRequest {
    /// Set when the body could not be read at all (`MALFORMED_JSON`, or a number beyond f64).
    #[napi(getter)]
    pub fn error(&self) -> Option<EngineError> {
        self.inner.as_ref().err().map(|e| e.clone().into())
    }

    /// Top-level fields other than `series` and `future_covariates` as JSON text, for schema
    /// validation. Text for `JSON.parse`, not an object built key by key: a `__proto__` key must
    /// arrive as an own property the schema sees, not set the object's prototype.
    #[napi(getter)]
    pub fn top_json(&self) -> String {
        self.inner.as_ref().map(|b| Value::Object(b.top.clone()).to_string()).unwrap_or_else(|_| "null".into())
    }

    /// Validation errors found in the rows and in the shape of the body (at most 10 listed).
    #[napi(getter)]
    pub fn field_errors(&self) -> Vec<FieldErrorJs> {
        self.inner.as_ref().map(|b| b.errors.listed.iter().map(Into::into).collect()).unwrap_or_default()
    }

    /// The future rows' error that ends validation step 3 (`FUTURE_COVARIATES_INVALID`, then
    /// `COVARIATE_COLUMN_MISMATCH`), if any.
    #[napi(getter)]
    pub fn future_error(&self) -> Option<EngineError> {
        self.inner.as_ref().ok()?.future_error().map(Into::into)
    }

    /// `series` plus `future_covariates` rows.
    #[napi(getter)]
    pub fn row_count(&self) -> u32 {
        self.inner.as_ref().map(|b| b.row_count() as u32).unwrap_or(0)
    }

    /// `series` rows alone: the input points `/clean` caps.
    #[napi(getter)]
    pub fn series_row_count(&self) -> u32 {
        self.inner.as_ref().map(|b| b.series.row_count() as u32).unwrap_or(0)
    }

    #[napi(getter)]
    pub fn entity_count(&self) -> u32 {
        self.inner.as_ref().map(|b| b.series.entity_count() as u32).unwrap_or(0)
    }

    /// Whether some entity may be longer than `max_context` before cleaning (`RowTable::may_exceed`).
    #[napi(catch_unwind)]
    pub fn has_entity_longer_than(&self, max_context: u32, count_rows: bool) -> bool {
        self.inner.as_ref().is_ok_and(|b| b.series.may_exceed(max_context as usize, count_rows))
    }
}

/// Holds the caller's Buffer (a reference, not a copy: a 12 MB body is read where it lies; the
/// server never writes to a request body).
pub struct ParseTask {
    bytes: Buffer,
}

impl EngineTask for ParseTask {
    type Output = std::result::Result<ParsedBody, HoraError>;
    type JsValue = ParsedRequest;

    fn run(&mut self) -> Result<Self::Output> {
        Ok(parse_body(&self.bytes))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<ParsedRequest> {
        Ok(ParsedRequest { inner: output.map(Arc::new), stamps: ReadStamps::default() })
    }
}

/// Parses and validates a request body (`series` rows straight into columns) on the thread pool.
#[napi(ts_return_type = "Promise<ParsedRequest>")]
pub fn parse_request(body: Buffer) -> AsyncTask<Guarded<ParseTask>> {
    AsyncTask::new(Guarded(ParseTask { bytes: body }))
}

pub struct DigestTask {
    bytes: Buffer,
}

impl EngineTask for DigestTask {
    type Output = String;
    type JsValue = String;

    fn run(&mut self) -> Result<String> {
        Ok(canonical_digest(&self.bytes))
    }

    fn resolve(&mut self, _env: Env, output: String) -> Result<String> {
        Ok(output)
    }
}

/// SHA-256 (hex) of the canonical JSON of a body, for idempotency; computed on the thread pool.
#[napi(ts_return_type = "Promise<string>")]
pub fn canonical_digest_of(body: Buffer) -> AsyncTask<Guarded<DigestTask>> {
    AsyncTask::new(Guarded(DigestTask { bytes: body }))
}
