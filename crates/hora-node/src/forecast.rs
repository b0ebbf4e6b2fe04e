//! `POST /v1/forecast` after validation: cleaning and inference on the thread pool.

use crate::body::ParsedRequest;
use crate::errors::EngineError;
use crate::body::RequestRows;
use hora_core::forecast::{clean_for_forecast, forecast_cleaned, CleanedForecast, ForecastOutput, ForecastRequest};
use hora_core::model::{plan_quantiles, ForecastOptions, Nonnegative, QuantilePolicy, QuantileRequest};
use crate::options::CleaningParams;
use crate::guard::{EngineTask, Guarded};
use hora_core::clean::CleanOptions;
use hora_core::choice::Choice;
use hora_core::HoraError;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The validated forecast controls; field names follow the contract.
#[napi(object)]
pub struct ForecastParams {
    pub h: u32,
    pub freq: Option<String>,
    pub level: Vec<u32>,
    pub point_quantile: Option<f64>,
    /// `nearest` or `strict`.
    pub quantile_policy: String,
    pub flip_average: bool,
    /// `auto`, `true` or `false`.
    pub nonnegative: String,
    pub cleaning: CleaningParams,
    /// The request budget of the model call: past it the model stops between batches (the
    /// service has answered 504 by then).
    pub budget_ms: Option<f64>,
}

#[napi(object)]
pub struct StageTimingsJs {
    pub clean_ms: f64,
    pub inference_ms: f64,
    pub serialize_ms: f64,
}

/// The engine-made parts of the response; JSON parts come serialised as UTF-8 bytes, ready to
/// splice into the body (a megabyte of forecast rows never becomes a JavaScript string).
#[napi(object)]
pub struct ForecastParts {
    pub freq: String,
    pub forecast_json: Buffer,
    pub model_input_json: Buffer,
    pub data_quality_json: Buffer,
    pub cleaning_report_json: Option<Buffer>,
    /// `[]` when there are none.
    pub warnings_json: Buffer,
    pub quantile_report_json: Buffer,
    pub point_quantile: Option<f64>,
    pub series_count: u32,
    pub input_data_points: f64,
    pub forecast_data_points: f64,
    pub timings: StageTimingsJs,
}

#[napi(object)]
pub struct ForecastOutcome {
    pub error: Option<EngineError>,
    pub parts: Option<ForecastParts>,
}

// The service validated these strings already; a value it let through by mistake is refused
// here by name rather than read as a default.
fn quantile_request(p: &ForecastParams) -> std::result::Result<QuantileRequest, HoraError> {
    let policy = QuantilePolicy::read("quantile_policy", &p.quantile_policy)?;
    Ok(QuantileRequest { levels: p.level.clone(), point_quantile: p.point_quantile, policy })
}

fn to_request(p: &ForecastParams) -> std::result::Result<ForecastRequest, HoraError> {
    let nonnegative = Nonnegative::read("model_options.nonnegative", &p.nonnegative)?;
    let clean = CleanOptions::from(&p.cleaning);
    Ok(ForecastRequest {
        h: p.h as usize,
        freq: p.freq.clone(),
        quantiles: quantile_request(p)?,
        // The budget runs from here: the model task builds its request as it starts.
        model: ForecastOptions {
            flip_average: p.flip_average,
            nonnegative,
            deadline: p.budget_ms.filter(|ms| ms.is_finite() && *ms >= 0.0).map(|ms| Instant::now() + Duration::from_secs_f64(ms / 1000.0)),
        },
        clean,
    })
}

pub(crate) fn json(v: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_else(|_| b"null".to_vec())
}

/// The parts serialised on the thread pool; they become Buffers (without a copy) on the JS thread.
/// Not Buffers already: napi's debug builds register each Vec-made Buffer in a thread-local set
/// that is cleared on the JS thread, so one made on a worker would stay registered there.
pub struct SerialisedParts {
    freq: String,
    forecast_json: Vec<u8>,
    model_input_json: Vec<u8>,
    data_quality_json: Vec<u8>,
    cleaning_report_json: Option<Vec<u8>>,
    warnings_json: Vec<u8>,
    quantile_report_json: Vec<u8>,
    point_quantile: Option<f64>,
    series_count: u32,
    input_data_points: f64,
    forecast_data_points: f64,
    timings: StageTimingsJs,
}

fn serialise(o: ForecastOutput) -> SerialisedParts {
    SerialisedParts {
        freq: o.freq,
        forecast_json: o.forecast_json.into_bytes(),
        model_input_json: json(&o.model_input),
        data_quality_json: json(&o.data_quality),
        cleaning_report_json: o.cleaning_report.as_ref().map(json),
        warnings_json: json(&o.warnings),
        quantile_report_json: json(&o.quantile_report),
        point_quantile: o.point_quantile,
        series_count: o.series_count as u32,
        input_data_points: o.input_data_points as f64,
        forecast_data_points: o.forecast_data_points as f64,
        timings: StageTimingsJs { clean_ms: o.timings.clean_ms, inference_ms: o.timings.inference_ms, serialize_ms: o.timings.serialize_ms },
    }
}

impl From<SerialisedParts> for ForecastParts {
    fn from(p: SerialisedParts) -> Self {
        ForecastParts {
            freq: p.freq,
            forecast_json: p.forecast_json.into(),
            model_input_json: p.model_input_json.into(),
            data_quality_json: p.data_quality_json.into(),
            cleaning_report_json: p.cleaning_report_json.map(Into::into),
            warnings_json: p.warnings_json.into(),
            quantile_report_json: p.quantile_report_json.into(),
            point_quantile: p.point_quantile,
            series_count: p.series_count,
            input_data_points: p.input_data_points,
            forecast_data_points: p.forecast_data_points,
            timings: p.timings,
        }
    }
}

/// Checks the quantile request against the native set (`QUANTILE_UNSUPPORTED` under strict)
/// before quota is reserved; returns the error, if any.
#[napi(catch_unwind)]
pub fn check_quantiles(params: ForecastParams) -> Option<EngineError> {
    let checked = crate::model::loaded().and_then(|model| plan_quantiles(&model.spec.name, &model.spec.quantiles, &quantile_request(&params)?).map(|_| ()));
    checked.err().map(Into::into)
}

/// A forecast request through its cleaning stage: the cleaned entities stay in Rust until the
/// model call takes them (once).
#[napi]
pub struct ForecastCleaning {
    inner: std::result::Result<Mutex<Option<CleanedForecast>>, Mutex<Option<EngineError>>>,
}

#[napi]
impl ForecastCleaning {
    /// The cleaning stage's refusal (a data-invalid or limit code), if any. Handed over once, as
    /// the cleaned data is: its report can be hundreds of megabytes, moved to JavaScript rather
    /// than copied on the event loop; a second read gives null.
    #[napi(getter)]
    pub fn error(&self) -> Option<EngineError> {
        self.inner.as_ref().err().and_then(|e| e.lock().ok()?.take())
    }
}

pub struct CleanForecastTask {
    rows: RequestRows,
    params: ForecastParams,
}

impl EngineTask for CleanForecastTask {
    type Output = std::result::Result<CleanedForecast, EngineError>;
    type JsValue = ForecastCleaning;

    fn run(&mut self) -> Result<Self::Output> {
        Ok(crate::model::loaded()
            .and_then(|model| to_request(&self.params).and_then(|r| clean_for_forecast(&self.rows.body, &r, model.spec.limits(), self.rows.stamps())))
            .map_err(Into::into))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<ForecastCleaning> {
        Ok(ForecastCleaning { inner: output.map(|c| Mutex::new(Some(c))).map_err(|e| Mutex::new(Some(e))) })
    }
}

/// The forecast's cleaning stage on the thread pool (validation order step 8), before a model slot.
#[napi(ts_return_type = "Promise<ForecastCleaning>")]
pub fn run_forecast_cleaning_task(request: &ParsedRequest, params: ForecastParams) -> Result<AsyncTask<Guarded<CleanForecastTask>>> {
    Ok(AsyncTask::new(Guarded(CleanForecastTask { rows: request.rows()?, params })))
}

pub struct ForecastTask {
    cleaned: Option<CleanedForecast>,
    params: ForecastParams,
}

impl EngineTask for ForecastTask {
    type Output = std::result::Result<SerialisedParts, EngineError>;
    type JsValue = ForecastOutcome;

    fn run(&mut self) -> Result<Self::Output> {
        let cleaned = self.cleaned.take().ok_or_else(|| Error::new(Status::GenericFailure, "the cleaned request ran twice"))?;
        Ok(crate::model::loaded()
            .and_then(|model| to_request(&self.params).and_then(|r| forecast_cleaned(cleaned, &r, &model)))
            .map(serialise)
            .map_err(Into::into))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<ForecastOutcome> {
        Ok(match output {
            Ok(p) => ForecastOutcome { error: None, parts: Some(p.into()) },
            Err(e) => ForecastOutcome { error: Some(e), parts: None },
        })
    }
}

/// The model call (validation order step 9) on the thread pool, over a request cleaned by
/// `runForecastCleaningTask`; each cleaning is taken by one model call.
#[napi(ts_return_type = "Promise<ForecastOutcome>")]
pub fn run_forecast_task(cleaning: &ForecastCleaning, params: ForecastParams) -> Result<AsyncTask<Guarded<ForecastTask>>> {
    let slot = cleaning.inner.as_ref().map_err(|_| Error::new(Status::InvalidArg, "the cleaning stage refused this request"))?;
    let cleaned = slot.lock().map_err(|_| Error::new(Status::GenericFailure, "the cleaned request is poisoned"))?.take();
    let cleaned = cleaned.ok_or_else(|| Error::new(Status::InvalidArg, "this cleaned request was already forecast"))?;
    Ok(AsyncTask::new(Guarded(ForecastTask { cleaned: Some(cleaned), params })))
}
