//! The one model session of the process, loaded at start-up.

use hora_core::model::{init_runtime, ModelSession};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

static MODEL: RwLock<Option<Arc<ModelSession>>> = RwLock::new(None);

pub(crate) fn current() -> Option<Arc<ModelSession>> {
    MODEL.read().ok().and_then(|m| m.clone())
}

/// The model's identity and limits, from its ONNX metadata.
#[napi(object)]
pub struct ModelInfo {
    pub name: String,
    pub quantiles: Vec<f64>,
    pub min_context: u32,
    pub max_context: u32,
    pub max_horizon: u32,
    pub native_horizon: u32,
    pub recipe_hash: String,
    /// Interval calibration: each frequency family's factor on the spreads about the median.
    pub spread_scale: HashMap<String, f64>,
}

/// Loads ONNX Runtime from `runtime_path` and the model from `model_path` (both absolute).
/// Throws one sentence naming what is missing or malformed; the server refuses to start on it.
#[napi(catch_unwind)]
pub fn load_model(model_path: String, runtime_path: String, threads: u32) -> Result<ModelInfo> {
    init_runtime(&runtime_path).map_err(|e| Error::new(Status::GenericFailure, e))?;
    let session = ModelSession::load(&model_path, threads as usize).map_err(|e| Error::new(Status::GenericFailure, e.0))?;
    let s = &session.spec;
    let info = ModelInfo {
        name: s.name.clone(),
        quantiles: s.quantiles.clone(),
        min_context: s.min_context as u32,
        max_context: s.max_context as u32,
        max_horizon: s.max_horizon as u32,
        native_horizon: s.native_horizon as u32,
        recipe_hash: s.recipe_hash.clone(),
        spread_scale: s.spread_scale.by_name().map(|(name, f)| (name.to_string(), f)).collect(),
    };
    *MODEL.write().map_err(|_| Error::new(Status::GenericFailure, "model lock poisoned"))? = Some(Arc::new(session));
    Ok(info)
}
