//! The forecast path after validation: cleaning, inference, and the response's engine-made parts.

mod assemble;
mod run;

pub use run::{clean_for_forecast, forecast_cleaned, CleanedForecast, ForecastOutput, ForecastRequest, StageTimings};
