//! hora-1.0 serving: the ONNX session, its metadata contract, batching, flip averaging,
//! nonnegative clipping, monotone quantiles, the rollout past the native horizon, and the mapping
//! of requested levels onto native quantiles, and the interval calibration by frequency family.

mod calibration;
mod quantiles;
mod runtime;
mod serve;
mod session;
mod spec;

pub use calibration::{FreqFamily, SpreadScale};
pub use quantiles::{plan_quantiles, PointMethod, QuantilePlan, QuantilePolicy, QuantileReport, QuantileRequest};
pub use runtime::init_runtime;
pub use crate::nonnegative::Nonnegative;
pub use serve::{forecast, is_capped, ForecastOptions, ModelContext};
pub use session::{LoadPart, ModelLoadError, ModelSession};
pub use spec::{ModelSpec, MODEL_NAME};
