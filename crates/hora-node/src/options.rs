//! The cleaning options as the service hands them over, typed at the boundary (so index.d.ts
//! types what the service builds), and their conversion to the engine's `CleanOptions`.

use hora_core::clean::{Bounds, CleanOptions};
use napi_derive::napi;
use serde_json::Value;

/// The request's `options.cleaning` with the resolved `preset` and `version` (request, key, org
/// or platform), plus its `timezone`, `ds_format`, `gap_split_min_steps`, `clean_series` and
/// `clean_exog`. Field meanings: the contract's cleaning options.
#[napi(object)]
pub struct CleaningParams {
    pub preset: String,
    pub version: String,
    pub timezone: Option<String>,
    pub ds_format: Option<String>,
    /// At most 2^32 - 1 (napi keeps only the low 32 bits of a larger number, so the service
    /// clamps it: a larger value means the same, since no grid has a longer gap).
    pub gap_split_min_steps: Option<u32>,
    pub clean_series: bool,
    pub clean_exog: bool,
    pub impute_method: Option<String>,
    pub seasonal_period: Option<u32>,
    /// `auto`, `true` or `false`, in text as `ForecastParams::nonnegative` (a boolean sent is
    /// handed over as its string form).
    pub nonnegative: Option<String>,
    pub bounds: Option<BoundsParams>,
    pub structural_zero: Option<bool>,
    pub business_days: Option<bool>,
    pub long_gap: Option<String>,
    pub accept: Option<Vec<String>>,
    pub decline: Option<Vec<String>>,
}

#[napi(object)]
pub struct BoundsParams {
    pub lower: f64,
    pub upper: f64,
}

impl From<&CleaningParams> for CleanOptions {
    fn from(p: &CleaningParams) -> Self {
        CleanOptions {
            timezone: p.timezone.clone(),
            ds_format: p.ds_format.clone(),
            gap_split_min_steps: p.gap_split_min_steps.map(u64::from),
            clean_series: Some(p.clean_series),
            clean_exog: Some(p.clean_exog),
            preset: Some(p.preset.clone()),
            version: Some(p.version.clone()),
            accept: p.accept.clone().unwrap_or_default(),
            decline: p.decline.clone().unwrap_or_default(),
            impute_method: p.impute_method.clone(),
            seasonal_period: p.seasonal_period,
            nonnegative: p.nonnegative.clone().map(Value::String),
            bounds: p.bounds.as_ref().map(|b| Bounds { lower: Some(b.lower), upper: Some(b.upper) }),
            structural_zero: p.structural_zero,
            business_days: p.business_days,
            long_gap: p.long_gap.clone(),
        }
    }
}
