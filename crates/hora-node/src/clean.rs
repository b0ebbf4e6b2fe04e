//! The cleaning stage on its own (`POST /v1/clean`), the engine's policy table and its check of
//! cleaning options.

use crate::body::{ParsedRequest, RequestRows};
use crate::errors::EngineError;
use crate::guard::{EngineTask, Guarded};
use hora_core::choice::Choice;
use hora_core::clean::options::{self, Nonnegative, Preset};
use hora_core::clean::{self, CleanOptions, CleanRequest, Purpose};
use hora_core::HoraError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use crate::forecast::json;
use crate::options::CleaningParams;

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

/// Why `options.cleaning.bounds` of `lower` and `upper` cannot be used under `nonnegative` (its
/// value as sent, boolean or string) and `structural_zero`, in the engine's words, or `None`: the
/// service checks it at validation step 3 with the body's other fields; an unreadable
/// `nonnegative` is judged at step 5.
#[napi]
pub fn bounds_error(lower: f64, upper: f64, nonnegative: Option<String>, structural_zero: bool) -> Option<String> {
    let nonnegative = nonnegative.and_then(|v| Nonnegative::parse(&v));
    options::bounds_fault(lower, upper, nonnegative, structural_zero).map(str::to_string)
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
pub(crate) fn with_request<T>(
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
