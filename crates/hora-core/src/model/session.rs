//! One ONNX Runtime session for hora-1.0, loaded at start-up.

use super::spec::ModelSpec;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;
use std::collections::HashMap;
use std::sync::Mutex;

const METADATA_KEYS: &[&str] = &[
    "hora.name",
    "hora.quantiles",
    "hora.min_context",
    "hora.max_context",
    "hora.max_horizon",
    "hora.native_horizon",
    "hora.context_multiple",
    "hora.recipe_hash",
];

/// Why the model could not be loaded: one sentence for the operator.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ModelLoadError(pub String);

pub struct ModelSession {
    pub spec: ModelSpec,
    // `Session::run` takes `&mut self`: runs are serialised; the service bounds how many wait.
    session: Mutex<Session>,
}

impl ModelSession {
    /// Loads the graph at `path` and reads its metadata. `threads` sizes ONNX Runtime's intra-op pool.
    pub fn load(path: &str, threads: usize) -> Result<ModelSession, ModelLoadError> {
        if !std::path::Path::new(path).is_file() {
            return Err(ModelLoadError(format!("The model file {path} does not exist.")));
        }
        let fail = |e: &dyn std::fmt::Display| {
            ModelLoadError(format!("The model file {path} could not be loaded: {}.", e.to_string().trim_end_matches('.')))
        };
        let session = Session::builder()
            .map_err(|e| fail(&e))?
            .with_optimization_level(GraphOptimizationLevel::Level3)
            .and_then(|b| b.with_intra_threads(threads.max(1)))
            .and_then(|b| b.with_inter_threads(1))
            // Sleeping workers: spinning ones measured no faster here (37.6 vs 36.0 ms for 100
            // series with flip averaging) and would burn a shared core after every run.
            .and_then(|b| b.with_intra_op_spinning(false))
            .map_err(|e| fail(&e))?
            .commit_from_file(path)
            .map_err(|e| fail(&e))?;
        let props: HashMap<String, String> = {
            let meta = session.metadata().map_err(|e| fail(&e))?;
            METADATA_KEYS.iter().filter_map(|k| meta.custom(k).map(|v| (k.to_string(), v))).collect()
        };
        let spec = ModelSpec::from_metadata(&props).map_err(|e| ModelLoadError(format!("The model file {path} is not a Hora model: {e}.")))?;
        let names: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
        if !(names.contains(&"context") && names.contains(&"mask")) {
            return Err(ModelLoadError(format!("The model file {path} lacks the inputs `context` and `mask`.")));
        }
        if !session.outputs().iter().any(|o| o.name() == "quantiles") {
            return Err(ModelLoadError(format!("The model file {path} lacks the output `quantiles`.")));
        }
        let model = ModelSession { spec, session: Mutex::new(session) };
        // One run at load: a graph that cannot run fails start-up, and the first request is not slow.
        let t = model.spec.context_multiple;
        model
            .run(&vec![0.0; t], &vec![1.0; t], 1, t)
            .map_err(|e| ModelLoadError(format!("The model file {path} does not run: {e}.")))?;
        Ok(model)
    }

    /// Runs the graph on `batch` rows of `time` steps (row-major); returns
    /// `[batch, native_horizon, quantiles]` row-major.
    pub fn run(&self, context: &[f32], mask: &[f32], batch: usize, time: usize) -> Result<Vec<f32>, String> {
        let shape = [batch as i64, time as i64];
        let ctx = TensorRef::from_array_view((shape, context)).map_err(|e| e.to_string())?;
        let msk = TensorRef::from_array_view((shape, mask)).map_err(|e| e.to_string())?;
        let mut session = self.session.lock().map_err(|_| "model session poisoned".to_string())?;
        let outputs = session.run(ort::inputs!["context" => ctx, "mask" => msk]).map_err(|e| e.to_string())?;
        let (out_shape, data) = outputs["quantiles"].try_extract_tensor::<f32>().map_err(|e| e.to_string())?;
        let want = [batch as i64, self.spec.native_horizon as i64, self.spec.quantiles.len() as i64];
        if out_shape.as_ref() != want {
            return Err(format!("model output shape {:?}, expected {:?}", out_shape.as_ref(), want));
        }
        Ok(data.to_vec())
    }
}
