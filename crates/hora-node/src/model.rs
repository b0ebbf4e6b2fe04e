//! The one model session of the process, loaded at start-up.

use hora_core::model::{init_runtime, ModelLoadError, ModelSession};
use hora_core::{ErrorCode, HoraError};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

static MODEL: RwLock<Option<Arc<ModelSession>>> = RwLock::new(None);

pub(crate) fn current() -> Option<Arc<ModelSession>> {
    MODEL.read().ok().and_then(|m| m.clone())
}

/// The loaded model, or the error of a request that needs it before start-up loaded one.
pub(crate) fn loaded() -> std::result::Result<Arc<ModelSession>, HoraError> {
    current().ok_or_else(|| HoraError::new(ErrorCode::ServiceUnavailable, "The model is not loaded."))
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

/// Why start-up could not load the model, as data: which file failed and whether its path names
/// no file, so that the host names its own setting for that path without reading the sentence.
#[napi(object)]
pub struct LoadFailure {
    #[napi(ts_type = "'runtime' | 'model'")]
    pub part: String,
    pub missing: bool,
    /// One sentence naming what is missing or malformed.
    pub message: String,
}

/// The loaded model's identity and limits, or why it could not be loaded.
#[napi(object)]
pub struct LoadOutcome {
    pub model: Option<ModelInfo>,
    pub failure: Option<LoadFailure>,
}

impl From<ModelLoadError> for LoadFailure {
    fn from(e: ModelLoadError) -> Self {
        LoadFailure { part: e.part.as_str().to_string(), missing: e.missing, message: e.message }
    }
}

/// Loads ONNX Runtime from `runtime_path` and the model from `model_path` (both absolute). A file
/// that is missing or malformed is a `failure`; the server refuses to start on it.
#[napi(catch_unwind)]
pub fn load_model(model_path: String, runtime_path: String, threads: u32) -> Result<LoadOutcome> {
    let session = match init_runtime(&runtime_path).and_then(|()| ModelSession::load(&model_path, threads as usize)) {
        Ok(session) => session,
        Err(e) => return Ok(LoadOutcome { model: None, failure: Some(e.into()) }),
    };
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
    Ok(LoadOutcome { model: Some(info), failure: None })
}
