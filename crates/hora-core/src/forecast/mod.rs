//! The forecast path after validation: cleaning, inference, and the response's engine-made parts.

mod assemble;
mod run;

pub use run::{run_forecast, ForecastOutput, ForecastRequest, StageTimings};
