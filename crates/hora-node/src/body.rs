//! Request bodies: parsed off the event loop into columns that stay in Rust.

use crate::errors::EngineError;
use crate::guard::{EngineTask, Guarded};
use hora_core::ingest::{canonical_digest, parse_body, FieldError, ParsedBody};
use hora_core::HoraError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use hora_core::choice::Choice;
use hora_core::clean::options::{self, ImputeMethod, Preset};
use hora_core::clean::decisions::{self, DecisionId};
use hora_core::clean::EntityStamps;
use hora_core::model::{Nonnegative, QuantilePolicy};
use hora_core::time::DayMonthOrder;
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

/// What the body parser accepts, for the request schema to state the same (and a test to compare).
#[napi(object)]
pub struct RequestShape {
    pub top_level_fields: Vec<String>,
    pub options_fields: Vec<String>,
    pub cleaning_fields: Vec<String>,
    pub bounds_fields: Vec<String>,
    pub model_options_fields: Vec<String>,
    pub max_covariate_columns: u32,
    /// Entries of `details.errors[]` at most.
    pub max_listed_errors: u32,
    /// The message of an unknown field.
    pub unknown_field_message: String,
    /// How a `VALIDATION_ERROR`'s message begins, before the first field and what is wrong.
    pub invalid_body_message: String,
    /// The value lists and ranges of the options the engine reads.
    pub presets: Vec<String>,
    pub impute_methods: Vec<String>,
    pub nonnegative_values: Vec<String>,
    pub long_gap_values: Vec<String>,
    pub quantile_policies: Vec<String>,
    /// `options.ds_format`.
    pub ds_formats: Vec<String>,
    /// A cleaning decision's `id`, `kind` and `status` values (the report's schema).
    pub decision_ids: Vec<String>,
    pub decision_kinds: Vec<String>,
    pub decision_statuses: Vec<String>,
    pub seasonal_period_min: u32,
    pub seasonal_period_max: u32,
    /// What is wrong with `options.cleaning.bounds`: lower above upper; upper below 0 with
    /// `nonnegative: true`.
    pub bounds_order_message: String,
    pub bounds_below_nonnegative_message: String,
    /// `accept` and `decline`: ids at most, and characters per id at most.
    pub max_decision_ids: u32,
    pub max_decision_id_chars: u32,
    /// Stamps or ranges a report lists at most (issues, blocks, `future_rows_unused`).
    pub max_listed_stamps: u32,
    /// The model the engine serves (its file's `hora.name` must match).
    pub model_name: String,
}

/// The closed value lists of the cleaning report and the response parts, as the engine writes
/// them: the service's report and response schemas are built from these, not from a copy.
#[napi(object)]
pub struct ReportShape {
    /// A blocking entry's `code`, `kind` and `reason` values.
    pub blocking_codes: Vec<String>,
    pub blocking_kinds: Vec<String>,
    pub blocking_reasons: Vec<String>,
    /// A blocking entry's `status`: that of the decision needed and not applied.
    pub blocking_statuses: Vec<String>,
    /// `SERIES_TOO_LONG`'s `measured`.
    pub measured: Vec<String>,
    pub warning_codes: Vec<String>,
    /// The codes a response's own `warnings[]` can carry (the report-only ones left out).
    pub response_warning_codes: Vec<String>,
    pub issue_codes: Vec<String>,
    pub issue_levels: Vec<String>,
    /// `series[].timezone.source` and `series[].freq.source`.
    pub zone_sources: Vec<String>,
    pub freq_sources: Vec<String>,
    /// `data_quality.status`.
    pub quality_statuses: Vec<String>,
    /// `quantile_report.point_forecast.method`.
    pub point_methods: Vec<String>,
    /// `model_input[].covariates[]`: `reason` and `role`.
    pub covariate_reasons: Vec<String>,
    pub covariate_roles: Vec<String>,
    /// A decision's `method`: the impute methods and the structural-zero fill.
    pub fill_methods: Vec<String>,
}

#[napi]
pub fn report_shape() -> ReportShape {
    use hora_core::choice::wire_names;
    use hora_core::clean::{CovariateReason, CovariateRole, FreqSource, Issue, Level, Measured, QualityStatus, Reason, Warning};
    // Each name once, in first-seen order (several reasons share a code or a kind).
    let distinct = |names: Vec<String>| names.iter().enumerate().filter(|(i, n)| !names[..*i].contains(n)).map(|(_, n)| n.clone()).collect();
    let names: Vec<_> = Reason::one_of_each().iter().map(Reason::names).collect();
    ReportShape {
        blocking_codes: distinct(names.iter().map(|n| n.0.as_str().to_string()).collect()),
        blocking_kinds: distinct(names.iter().map(|n| n.1.to_string()).collect()),
        blocking_reasons: names.iter().map(|n| n.2.to_string()).collect(),
        blocking_statuses: decisions::Status::ALL.iter().filter(|s| **s != decisions::Status::Applied).map(|s| s.as_str().to_string()).collect(),
        measured: Measured::ALL.iter().map(|m| m.as_str().to_string()).collect(),
        warning_codes: wire_names(&Warning::one_of_each()),
        response_warning_codes: wire_names(&Warning::one_of_each().into_iter().filter(|w| !w.report_only()).collect::<Vec<_>>()),
        issue_codes: wire_names(&Issue::one_of_each()),
        issue_levels: wire_names(&Level::ALL),
        zone_sources: hora_core::time::ZoneSource::ALL.iter().map(|z| z.as_str().to_string()).collect(),
        freq_sources: wire_names(&FreqSource::ALL),
        quality_statuses: wire_names(&QualityStatus::ALL),
        point_methods: wire_names(&hora_core::model::PointMethod::ALL),
        covariate_reasons: wire_names(&CovariateReason::ALL),
        covariate_roles: wire_names(&CovariateRole::ALL),
        fill_methods: ImputeMethod::names().into_iter().chain([decisions::STRUCTURAL_ZERO_METHOD]).map(str::to_string).collect(),
    }
}

#[napi]
pub fn request_shape() -> RequestShape {
    let strings = |s: &[&str]| s.iter().map(|f| f.to_string()).collect();
    RequestShape {
        top_level_fields: strings(hora_core::ingest::TOP_LEVEL_FIELDS),
        options_fields: strings(hora_core::ingest::OPTIONS_FIELDS),
        cleaning_fields: strings(hora_core::ingest::CLEANING_FIELDS),
        bounds_fields: strings(hora_core::ingest::BOUNDS_FIELDS),
        model_options_fields: strings(hora_core::ingest::MODEL_OPTIONS_FIELDS),
        max_covariate_columns: hora_core::ingest::MAX_COVARIATE_COLUMNS as u32,
        max_listed_errors: hora_core::ingest::MAX_LISTED_ERRORS as u32,
        unknown_field_message: hora_core::ingest::UNKNOWN_FIELD.to_string(),
        invalid_body_message: hora_core::error::INVALID_BODY.to_string(),
        presets: strings(&Preset::names()),
        impute_methods: strings(&ImputeMethod::names()),
        nonnegative_values: strings(&Nonnegative::names()),
        long_gap_values: strings(&options::LongGap::names()),
        quantile_policies: strings(&QuantilePolicy::names()),
        ds_formats: strings(&DayMonthOrder::names()),
        decision_ids: DecisionId::ALL.iter().map(|d| d.as_str().to_string()).collect(),
        decision_kinds: strings(&DecisionId::kinds()),
        decision_statuses: decisions::Status::ALL.iter().map(|s| s.as_str().to_string()).collect(),
        seasonal_period_min: options::SEASONAL_PERIOD_MIN,
        seasonal_period_max: options::SEASONAL_PERIOD_MAX,
        bounds_order_message: options::BOUNDS_ORDER.to_string(),
        bounds_below_nonnegative_message: options::BOUNDS_BELOW_NONNEGATIVE.to_string(),
        max_decision_ids: options::MAX_DECISION_IDS as u32,
        max_decision_id_chars: options::MAX_DECISION_ID_CHARS as u32,
        max_listed_stamps: hora_core::clean::policy::LISTED_MAX as u32,
        model_name: hora_core::model::MODEL_NAME.to_string(),
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
