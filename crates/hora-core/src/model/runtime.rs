//! Loading the ONNX Runtime shared library (ort's `load-dynamic`): no build-time download.

use super::session::ModelLoadError;
use std::path::Path;
use std::sync::OnceLock;

static INIT: OnceLock<Result<(), ModelLoadError>> = OnceLock::new();

/// Loads `libonnxruntime` from `path` (absolute) once per process; later calls return the first
/// outcome. The error is one sentence an operator can act on.
pub fn init_runtime(path: &str) -> Result<(), ModelLoadError> {
    INIT.get_or_init(|| {
        if !Path::new(path).is_absolute() {
            return Err(ModelLoadError::runtime(format!("The ONNX Runtime library path must be absolute, got {path}.")));
        }
        if !Path::new(path).is_file() {
            return Err(ModelLoadError::runtime(format!("The ONNX Runtime library was not found at {path}.")).missing());
        }
        let builder = ort::init_from(path).map_err(|e| ModelLoadError::runtime(format!("The ONNX Runtime library at {path} could not be loaded: {e}.")))?;
        builder.with_name("hora").commit();
        Ok(())
    })
    .clone()
}
