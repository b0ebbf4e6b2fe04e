//! The cleaning stage: policies (versions as values), decisions, the cleaning report, the raw
//! structural check and covariates. The pipeline's entry point is [`run`], used by `/v1/forecast`
//! and `/v1/clean`; validation steps 3 and 6 enter through `validate` (`check_stamps`,
//! `read_stamps`, `check_length`), the benchmark through `kernels`. The pipeline order is
//! documented in docs/cleaning-policy.md.

mod blocking;
mod covariates;
pub mod decisions;
mod entity;
mod fill;
mod freq;
mod grid;
mod horizon;
pub mod kernels;
mod long_gap;
pub mod notices;
pub mod options;
mod pipeline;
pub mod policy;
mod prepare;
mod raw;
mod report;
mod stamps;
mod validate;

pub use options::{Bounds, CleanOptions, ModelLimits};
pub use pipeline::run;
pub use validate::{check_length, check_stamps, read_stamps};
pub use stamps::EntityStamps;
pub use covariates::{CovariateReason, CovariateRole, CovariateUse};
pub use notices::{Issue, Level, Warning};
pub use blocking::{Measured, Reason};
pub use report::{CleanedQuality, CleaningReport, DataQuality, FreqSource, ModelInput, QualityStatus, SCHEMA_VERSION};

use crate::ingest::RowTable;
use crate::time::Freq;

/// One cleaning run: the request's rows, its `freq` and `h`, and the resolved options.
pub struct CleanRequest<'a> {
    pub series: &'a RowTable,
    /// `future_covariates` rows, same columnar form.
    pub future: Option<&'a RowTable>,
    /// `freq` as sent.
    pub freq: Option<&'a str>,
    /// Forecast horizon; 0 when `/v1/clean` is sent no `h`.
    pub h: usize,
    pub options: &'a CleanOptions,
    /// The model's context limits (from its ONNX metadata); `None` on `/clean` without `model`.
    pub model_limits: Option<ModelLimits>,
    /// A forecast lists every entity's forecast stamps; a dry run only those it checks.
    pub purpose: Purpose,
    /// Every entity's stamps as [`read_stamps`] parsed them at validation (same zone and
    /// day/month order), so the cleaning does not parse them again; `None` parses here.
    pub stamps: Option<&'a [EntityStamps]>,
}

/// What the cleaning is for. `/v1/forecast` answers with every entity's forecast stamps;
/// `/v1/clean` (the dry run) answers with none, so it lists them only for entities whose future
/// rows are checked against them, and otherwise checks only that `h` of them fit the calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Forecast,
    DryRun,
}

impl Purpose {
    /// Whether an entity's forecast stamps are listed: on a forecast, or where the entity's
    /// future rows are checked against them.
    pub fn lists_forecast_stamps(self, future_rows: bool) -> bool {
        self.keeps_forecast_stamps() || future_rows
    }

    /// Whether the stamps listed are kept once the future rows are checked: only the forecast
    /// answers with them (a dry run of 100,000 entities with future rows at h = 2048 held them
    /// all at once, 1.6 GB).
    pub fn keeps_forecast_stamps(self) -> bool {
        self == Purpose::Forecast
    }
}

/// The result of a cleaning run that may proceed to the model.
#[derive(Debug, Clone)]
pub struct Cleaned {
    /// `freq` echo: as sent, or the inferred canonical token.
    pub freq: String,
    /// The grid's frequency, parsed.
    pub grid: Freq,
    pub inferred_freq: Option<String>,
    pub entities: Vec<CleanEntity>,
    /// `cleaning_report/1`; `None` under `raw`.
    pub report: Option<CleaningReport>,
    pub data_quality: DataQuality,
    /// Response `warnings[]` entries.
    pub warnings: Vec<Warning>,
    /// `usage.input_data_points`: observed points fed, after the long-gap split, excluding
    /// imputed values and inserted stamps.
    pub input_data_points: u64,
}

/// One entity's model input.
#[derive(Debug, Clone)]
pub struct CleanEntity {
    pub unique_id: String,
    /// Model context on the grid; NaN = masked (masked tail, `long_gap: mask`).
    pub values: Vec<f64>,
    /// The context's grid stamps (UTC micros).
    pub stamps: Vec<i64>,
    /// `h` stamps continuing the grid (UTC micros).
    pub forecast_stamps: Vec<i64>,
    /// This entity's `model_input[]` entry.
    pub model_input: ModelInput,
    /// Every observed value of the history sent is nonnegative (`nonnegative: auto`): every row,
    /// also those a repair dropped (a duplicate, a stamp off the grid, a gap split).
    pub history_nonnegative: bool,
}

/// Whether every observed (non-null) value is nonnegative.
pub(crate) fn all_nonnegative(values: &[f64]) -> bool {
    values.iter().all(|v| v.is_nan() || *v >= 0.0)
}
