//! Orchestrates one forecast: the cleaning stage, one batched model call, the response parts.

use super::assemble::forecast_rows_json;
use crate::clean::{self, CleanEntity, DataQuality, ModelInput, Warning, CleanOptions, CleanRequest, Cleaned, EntityStamps, ModelLimits, Purpose};
use crate::error::HoraError;
use crate::ingest::ParsedBody;
use crate::model::{forecast, is_capped, plan_quantiles, ForecastOptions, FreqFamily, ModelContext, ModelSession, QuantilePlan, QuantileReport, QuantileRequest};
use std::time::Instant;

pub struct ForecastRequest {
    pub h: usize,
    pub freq: Option<String>,
    pub quantiles: QuantileRequest,
    pub model: ForecastOptions,
    pub clean: CleanOptions,
}

/// Wall time of each engine stage, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StageTimings {
    pub clean_ms: f64,
    pub inference_ms: f64,
    pub serialize_ms: f64,
}

pub struct ForecastOutput {
    pub freq: String,
    /// The `forecast[]` array, already serialised.
    pub forecast_json: String,
    pub model_input: Vec<ModelInput>,
    pub data_quality: DataQuality,
    pub cleaning_report: Option<clean::CleaningReport>,
    pub warnings: Vec<Warning>,
    pub quantile_report: QuantileReport,
    /// The native quantile served as `y_hat` when `point_quantile` was sent.
    pub point_quantile: Option<f64>,
    pub series_count: usize,
    pub input_data_points: u64,
    pub forecast_data_points: u64,
    pub timings: StageTimings,
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// A request through its cleaning stage (validation order step 8), waiting for a model slot.
pub struct CleanedForecast {
    cleaned: Cleaned,
    clean_ms: f64,
}

/// The cleaning stage of a forecast against the model's context `limits`. It runs before a model
/// slot is taken, so a request the data refuses never waits for (or is refused by) the model.
/// `stamps`: the entities' stamps as validation read them ([`clean::read_stamps`]), if it did.
pub fn clean_for_forecast(body: &ParsedBody, req: &ForecastRequest, limits: ModelLimits, stamps: Option<&[EntityStamps]>) -> Result<CleanedForecast, HoraError> {
    let t = Instant::now();
    let cleaned = clean::run(&CleanRequest {
        series: &body.series,
        future: body.future.as_ref(),
        freq: req.freq.as_deref(),
        h: req.h,
        options: &req.clean,
        model_limits: Some(limits),
        stamps,
        purpose: Purpose::Forecast,
    })?;
    Ok(CleanedForecast { cleaned, clean_ms: ms(t) })
}

/// One batched model call over the cleaned entities, then the response parts.
pub fn forecast_cleaned(c: CleanedForecast, req: &ForecastRequest, model: &ModelSession) -> Result<ForecastOutput, HoraError> {
    let spec = &model.spec;
    let plan = plan_quantiles(&spec.name, &spec.quantiles, &req.quantiles)?;
    let CleanedForecast { cleaned, clean_ms } = c;

    let t = Instant::now();
    let contexts: Vec<ModelContext> =
        cleaned.entities.iter().map(|e| ModelContext { values: &e.values, history_nonnegative: e.history_nonnegative }).collect();
    let quantiles = forecast(model, &contexts, req.h, FreqFamily::of(&cleaned.grid), req.model)?;
    let inference_ms = ms(t);

    let t = Instant::now();
    let forecast_json = forecast_rows_json(&cleaned.entities, &quantiles, spec.quantiles.len(), &plan)?;
    let serialize_ms = ms(t);

    let series_count = cleaned.entities.len();
    let mut warnings = cleaned.warnings;
    warnings.extend(capped_warnings(&cleaned.entities, &quantiles, spec.quantiles.len(), &plan));
    Ok(ForecastOutput {
        freq: cleaned.freq,
        forecast_json,
        model_input: cleaned.entities.into_iter().map(|e| e.model_input).collect(),
        data_quality: cleaned.data_quality,
        cleaning_report: cleaned.report,
        warnings,
        point_quantile: req.quantiles.point_quantile.map(|_| spec.quantiles[plan.y_hat]),
        quantile_report: plan.report,
        series_count,
        input_data_points: cleaned.input_data_points,
        forecast_data_points: (req.h * series_count) as u64,
        timings: StageTimings { clean_ms, inference_ms, serialize_ms },
    })
}

/// `forecast_value_capped` for each entity with a served value (`y_hat` or an interval bound) at
/// the edge of f64 ([`is_capped`]): a history near 1.7e308 can forecast past the largest double,
/// which serving writes as that double (JSON has no infinity). The bound is then a floor of the model's value,
/// and the warning says so rather than leave it unmarked.
fn capped_warnings(entities: &[CleanEntity], quantiles: &[Vec<f64>], q: usize, plan: &QuantilePlan) -> Vec<Warning> {
    let served: Vec<usize> = std::iter::once(plan.y_hat).chain(plan.intervals.iter().flat_map(|&(_, lo, hi)| [lo, hi])).collect();
    entities
        .iter()
        .zip(quantiles)
        .filter(|(_, f)| f.chunks(q).any(|step| served.iter().any(|&i| is_capped(step[i]))))
        .map(|(e, _)| Warning::ForecastValueCapped { unique_id: e.unique_id.clone() })
        .collect()
}
