//! The cleaning stage on its own (`POST /v1/clean`), and the engine's check of cleaning options.

use crate::body::ParsedRequest;
use crate::errors::EngineError;
use crate::body::{ReadStamps, RequestRows};
use crate::guard::{EngineTask, Guarded};
use hora_core::choice::Choice;
use hora_core::clean::options::Preset;
use hora_core::clean::{self, CleanOptions, CleanRequest, Purpose};
use hora_core::HoraError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use crate::forecast::json;
use crate::options::CleaningParams;
use std::sync::Arc;

/// The engine's cleaning policy table, as the service needs it: the versions (newest first), the
/// platform's preset and version, and the presets that clean. The service reads the table here
/// instead of keeping its own copy.
#[napi(object)]
pub struct CleaningPolicies {
    pub versions: Vec<String>,
    pub default_version: String,
    pub default_preset: String,
    /// The presets that clean and so have a cleaning report (`raw` does not), in contract order.
    pub cleaning_presets: Vec<String>,
}

#[napi]
pub fn cleaning_policies() -> CleaningPolicies {
    CleaningPolicies {
        versions: clean::policy::versions().into_iter().map(String::from).collect(),
        default_version: clean::policy::DEFAULT_VERSION.to_string(),
        default_preset: Preset::PLATFORM.as_str().to_string(),
        cleaning_presets: Preset::offered(Purpose::DryRun).into_iter().map(String::from).collect(),
    }
}

/// Checks the cleaning options (resolved preset and version included) against the policy
/// versions: `CLEANING_OPTION_UNSUPPORTED`, or a `VALIDATION_ERROR` for a knob value out of range.
/// `dry_run`: for `/v1/clean`, whose unknown preset lists only the presets that clean.
#[napi(catch_unwind)]
pub fn check_cleaning_options(options: CleaningParams, dry_run: bool) -> Option<EngineError> {
    let purpose = if dry_run { Purpose::DryRun } else { Purpose::Forecast };
    CleanOptions::from(&options).resolve_for(purpose).err().map(Into::into)
}

#[napi(object)]
pub struct CleanParams {
    pub freq: Option<String>,
    pub h: u32,
    /// The request named a `model`: the loaded model's context limits apply.
    pub with_model: bool,
    pub cleaning: CleaningParams,
}

/// The cleaning report as UTF-8 JSON, ready to splice into the body. The contract's dry run
/// returns only the report and the effective policy (which the service resolved itself), so the
/// response's other parts (`freq`, `data_quality`, `warnings`) are not written: the report holds
/// the per-entity frequencies and the warnings.
#[napi(object)]
pub struct CleanParts {
    pub report_json: Buffer,
    pub clean_ms: f64,
    /// Writing the parts as JSON (the `serialize` stage, with the service's splice).
    pub serialize_ms: f64,
}

/// The parts serialised on the thread pool; they become Buffers (without a copy) on the JS thread.
pub struct SerialisedClean {
    report_json: Vec<u8>,
    clean_ms: f64,
    serialize_ms: f64,
}

#[napi(object)]
pub struct CleanOutcome {
    pub error: Option<EngineError>,
    pub parts: Option<CleanParts>,
}

pub struct CleanTask {
    rows: RequestRows,
    params: CleanParams,
}

/// Builds the engine's request from the request's rows and `p`, and runs `stage` on it.
fn with_request<T>(
    rows: &RequestRows,
    p: &CleanParams,
    stage: impl FnOnce(&CleanRequest) -> std::result::Result<T, HoraError>,
) -> std::result::Result<T, HoraError> {
    let options = CleanOptions::from(&p.cleaning);
    let model_limits = if p.with_model { Some(crate::model::loaded()?.spec.limits()) } else { None };
    stage(&CleanRequest {
        series: &rows.body.series,
        future: rows.body.future.as_ref(),
        freq: p.freq.as_deref(),
        h: p.h as usize,
        options: &options,
        model_limits,
        stamps: rows.stamps(),
        // `/v1/clean` answers no forecast stamps, and the validation checks read none (the
        // forecast's own cleaning runs in the engine, `forecast::clean_for_forecast`).
        purpose: Purpose::DryRun,
    })
}

impl EngineTask for CleanTask {
    type Output = std::result::Result<SerialisedClean, EngineError>;
    type JsValue = CleanOutcome;

    fn run(&mut self) -> Result<Self::Output> {
        let start = std::time::Instant::now();
        Ok(with_request(&self.rows, &self.params, clean::run)
            .map(|c| {
                let clean_ms = start.elapsed().as_secs_f64() * 1000.0;
                let serialising = std::time::Instant::now();
                let report_json = json(&c.report);
                let serialize_ms = serialising.elapsed().as_secs_f64() * 1000.0;
                SerialisedClean { report_json, clean_ms, serialize_ms }
            })
            .map_err(Into::into))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<CleanOutcome> {
        Ok(match output {
            Err(e) => CleanOutcome { error: Some(e), parts: None },
            Ok(c) => CleanOutcome {
                error: None,
                parts: Some(CleanParts {
                    report_json: c.report_json.into(),
                    clean_ms: c.clean_ms,
                    serialize_ms: c.serialize_ms,
                }),
            },
        })
    }
}

/// Runs the cleaning stage of a parsed request on the thread pool.
#[napi(ts_return_type = "Promise<CleanOutcome>")]
pub fn run_clean_task(request: &ParsedRequest, params: CleanParams) -> Result<AsyncTask<Guarded<CleanTask>>> {
    Ok(AsyncTask::new(Guarded(CleanTask { rows: request.rows()?, params })))
}

/// A check of the validation order over the parsed rows.
type RowCheck = dyn FnMut(&CleanRequest) -> std::result::Result<(), HoraError> + Send;

/// One check of the validation order that reads the rows: the error, or null.
pub struct CheckTask {
    rows: RequestRows,
    params: CleanParams,
    check: Box<RowCheck>,
}

impl EngineTask for CheckTask {
    type Output = Option<EngineError>;
    type JsValue = Option<EngineError>;

    fn run(&mut self) -> Result<Self::Output> {
        let CheckTask { rows, params, check } = self;
        Ok(with_request(rows, params, |r| check(r)).err().map(Into::into))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

/// The pre-cleaning `SERIES_TOO_LONG` check (validation order step 6) on the thread pool: the
/// error, or null. Only entities over the maximum context are cleaned, to see whether a long gap
/// cuts them.
#[napi(ts_return_type = "Promise<EngineError | null>")]
pub fn run_length_check_task(request: &ParsedRequest, params: CleanParams) -> Result<AsyncTask<Guarded<CheckTask>>> {
    Ok(AsyncTask::new(Guarded(CheckTask { rows: request.rows()?, params, check: Box::new(clean::check_length) })))
}

/// Validation order step 3 for the stamps on the thread pool: every `ds` (and future `ds`) read in
/// the request's zone and day/month order; the `VALIDATION_ERROR` of an unreadable one, or null.
/// The stamps read stay with the request for its cleaning when `keep_stamps`; a request over the row
/// cap, refused next, keeps none (`clean::check_stamps`).
#[napi(ts_return_type = "Promise<EngineError | null>")]
pub fn read_stamps_task(request: &ParsedRequest, params: CleanParams, keep_stamps: bool) -> Result<AsyncTask<Guarded<CheckTask>>> {
    let keep: ReadStamps = request.stamps.clone();
    let rows = request.rows()?;
    let readable = rows.body.future_with_stamps();
    let check = Box::new(move |req: &CleanRequest| {
        let req = CleanRequest { future: readable.as_ref().or(req.future), ..*req };
        if !keep_stamps {
            return clean::check_stamps(&req);
        }
        let read = clean::read_stamps(&req)?;
        if let Ok(mut slot) = keep.lock() {
            *slot = read.map(Arc::new);
        }
        Ok(())
    });
    Ok(AsyncTask::new(Guarded(CheckTask { rows, params, check })))
}

/// `indptr` as entity bounds, once checked against the columns it slices.
fn kernel_columns(stamps: &[f64], values_len: usize, indptr: &[u32], step_micros: f64) -> Result<Vec<usize>> {
    let bounds: Vec<usize> = indptr.iter().map(|&i| i as usize).collect();
    if values_len != stamps.len() || bounds.windows(2).any(|w| w[0] > w[1]) || bounds.last().is_some_and(|&e| e > stamps.len()) {
        return Err(Error::new(Status::InvalidArg, "stamps, values and indptr do not describe the same entities"));
    }
    // Written so that NaN fails too.
    if !(step_micros.is_finite() && step_micros >= 1.0) {
        return Err(Error::new(Status::InvalidArg, format!("the step must be a finite number of microseconds of at least 1, not {step_micros}")));
    }
    Ok(bounds)
}

/// Sizes the regrid-plus-impute kernel's output: the offsets of every entity's grid. Stamps are
/// microseconds carried as f64 (exact below 2^53).
#[napi(catch_unwind)]
pub fn regrid_impute_offsets(stamps: &[f64], indptr: &[u32], step_micros: f64) -> Result<Uint32Array> {
    let entities = kernel_columns(stamps, stamps.len(), indptr, step_micros)?;
    let offsets = clean::kernels::regrid_offsets(stamps, &entities, step_micros as i64);
    let offsets: std::result::Result<Vec<u32>, _> = offsets.into_iter().map(u32::try_from).collect();
    let offsets = offsets.map_err(|_| Error::new(Status::InvalidArg, "the grids have 2^32 slots or more, more than a Uint32Array offset holds"))?;
    Ok(Uint32Array::new(offsets))
}

/// The regrid-plus-linear-impute kernel, writing into `out` (allocated by the caller from
/// `regridImputeOffsets`, so the grids live in memory JavaScript owns): the benchmark's match for
/// the plain-TypeScript path (`src/clean/kernel.ts`).
#[napi(catch_unwind)]
pub fn regrid_impute_into(stamps: &[f64], values: &[f64], indptr: &[u32], step_micros: f64, offsets: &[u32], mut out: Float64Array) -> Result<()> {
    let entities = kernel_columns(stamps, values.len(), indptr, step_micros)?;
    let offsets: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
    if offsets.len() != entities.len() || offsets.last().copied().unwrap_or(0) != out.len() || offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(Error::new(Status::InvalidArg, "out and offsets do not match regridImputeOffsets"));
    }
    // SAFETY: the call is synchronous on the JS thread and `out` is borrowed nowhere else meanwhile.
    let out = unsafe { out.as_mut() };
    clean::kernels::regrid_impute_into(stamps, values, &entities, step_micros as i64, &offsets, out)
        .map_err(|e| Error::new(Status::InvalidArg, format!("stamp {} is not after the previous one on the grid", e.index)))
}
