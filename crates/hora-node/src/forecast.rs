//! `POST /v1/forecast` after validation: cleaning and inference on the thread pool.

use crate::body::ParsedRequest;
use crate::errors::EngineError;
use hora_core::forecast::{run_forecast, ForecastOutput, ForecastRequest};
use hora_core::model::{plan_quantiles, ForecastOptions, Nonnegative, QuantilePolicy, QuantileRequest};
use hora_core::{ErrorCode, HoraError};
use hora_core::ingest::ParsedBody;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;

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
    /// The cleaning options with the resolved preset and version (see hora_core::clean::CleanOptions).
    pub cleaning: Value,
}

#[napi(object)]
pub struct StageTimingsJs {
    pub clean_ms: f64,
    pub inference_ms: f64,
    pub serialize_ms: f64,
}

/// The engine-made parts of the response; JSON parts come serialised, ready to splice.
#[napi(object)]
pub struct ForecastParts {
    pub freq: String,
    pub forecast_json: String,
    pub model_input_json: String,
    pub data_quality_json: String,
    pub cleaning_report_json: Option<String>,
    pub warnings_json: String,
    pub quantile_report_json: String,
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

fn quantile_request(p: &ForecastParams) -> QuantileRequest {
    let policy = if p.quantile_policy == "strict" { QuantilePolicy::Strict } else { QuantilePolicy::Nearest };
    QuantileRequest { levels: p.level.clone(), point_quantile: p.point_quantile, policy }
}

fn to_request(p: &ForecastParams) -> std::result::Result<ForecastRequest, HoraError> {
    let nonnegative = match p.nonnegative.as_str() {
        "true" => Nonnegative::Always,
        "false" => Nonnegative::Never,
        _ => Nonnegative::Auto,
    };
    let clean = serde_json::from_value(p.cleaning.clone())
        .map_err(|e| HoraError::field("options", format!("cleaning options are out of range: {e}")))?;
    Ok(ForecastRequest {
        h: p.h as usize,
        freq: p.freq.clone(),
        quantiles: quantile_request(p),
        model: ForecastOptions { flip_average: p.flip_average, nonnegative },
        clean,
    })
}

fn json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

fn parts(o: ForecastOutput) -> ForecastParts {
    ForecastParts {
        freq: o.freq,
        forecast_json: o.forecast_json,
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

/// Checks the quantile request against the native set (`QUANTILE_UNSUPPORTED` under strict)
/// before quota is reserved; returns the error, if any.
#[napi]
pub fn check_quantiles(params: ForecastParams) -> Option<EngineError> {
    let model = crate::model::current()?;
    plan_quantiles(&model.spec.name, &model.spec.quantiles, &quantile_request(&params)).err().map(Into::into)
}

pub struct ForecastTask {
    body: Arc<ParsedBody>,
    params: ForecastParams,
}

impl Task for ForecastTask {
    type Output = ForecastOutcome;
    type JsValue = ForecastOutcome;

    fn compute(&mut self) -> Result<ForecastOutcome> {
        let outcome = (|| {
            let model = crate::model::current()
                .ok_or_else(|| HoraError::new(ErrorCode::ServiceUnavailable, "The model is not loaded."))?;
            run_forecast(&self.body, &to_request(&self.params)?, &model)
        })();
        Ok(match outcome {
            Ok(o) => ForecastOutcome { error: None, parts: Some(parts(o)) },
            Err(e) => ForecastOutcome { error: Some(e.into()), parts: None },
        })
    }

    fn resolve(&mut self, _env: Env, output: ForecastOutcome) -> Result<ForecastOutcome> {
        Ok(output)
    }
}

/// Cleans and forecasts a parsed request on the thread pool.
#[napi(ts_return_type = "Promise<ForecastOutcome>")]
pub fn run_forecast_task(request: &ParsedRequest, params: ForecastParams) -> Result<AsyncTask<ForecastTask>> {
    let body = request.inner.as_ref().map_err(|_| Error::new(Status::InvalidArg, "the request body did not parse"))?;
    Ok(AsyncTask::new(ForecastTask { body: body.clone(), params }))
}
