//! One ONNX Runtime session for hora-1.0, loaded at start-up.

use super::spec::{ModelSpec, METADATA_KEYS};
use ort::logging::LogLevel;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Which of the two files start-up loads failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPart {
    /// The ONNX Runtime shared library.
    Runtime,
    /// The model's ONNX file.
    Model,
}

impl LoadPart {
    pub fn as_str(self) -> &'static str {
        match self {
            LoadPart::Runtime => "runtime",
            LoadPart::Model => "model",
        }
    }
}

/// Why the model could not be loaded: one sentence for the operator, with what failed as data so
/// that a host can name its own setting for that path without reading the sentence.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ModelLoadError {
    pub part: LoadPart,
    /// The path names no file at all (as opposed to one that is there but unusable).
    pub missing: bool,
    pub message: String,
}

impl ModelLoadError {
    pub(crate) fn runtime(message: String) -> Self {
        ModelLoadError { part: LoadPart::Runtime, missing: false, message }
    }

    pub(crate) fn model(message: String) -> Self {
        ModelLoadError { part: LoadPart::Model, missing: false, message }
    }

    pub(crate) fn missing(self) -> Self {
        ModelLoadError { missing: true, ..self }
    }
}

/// ONNX Runtime's reason as one clause for the operator: one line, without the "Load model from
/// PATH failed:" preamble (the sentence names the file) or the C++ source location and function
/// signature it puts before the reason (`/onnxruntime_src/.../model.cc:187 onnxruntime::Model::
/// Model(...) ModelProto does not have a graph.`), and without a final dot. A run error carries the
/// location after its own preamble (`... Status Message: /onnxruntime_src/...`): cut there too.
pub(crate) fn runtime_reason(text: &str, path: &str) -> String {
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut detail = one_line(text);
    if let Some(rest) = detail.strip_prefix(&format!("Load model from {} failed:", one_line(path))) {
        detail = rest.trim_start().to_string();
    }
    if let Some((before, reason)) = around_source_location(&detail) {
        detail = format!("{before}{reason}");
    }
    detail.trim_end_matches('.').to_string()
}

/// The text before and after `/....cc:LINE signature(...)`: the location is the first source file
/// named with a line number, starting at the `/` that begins its word; the signature ends where its
/// first parenthesis closes (parameter lists nest: `std::function<void(int)>`), so a reason holding
/// parentheses of its own keeps them.
fn around_source_location(detail: &str) -> Option<(&str, &str)> {
    let location = [".cc:", ".h:", ".cpp:", ".hpp:"].iter().filter_map(|ext| detail.find(ext)).min()?;
    let word = detail[..location].rfind(|c: char| c.is_whitespace() || c == ':').map_or(0, |i| i + 1);
    if !detail[word..].starts_with('/') {
        return None;
    }
    let signature = &detail[location..];
    let signature = &signature[signature.find(' ')? + 1..];
    let mut depth = 0usize;
    for (i, c) in signature.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some((&detail[..word], signature[i + 1..].trim_start()));
                }
            }
            _ => {}
        }
    }
    None
}

pub struct ModelSession {
    pub spec: ModelSpec,
    /// One single-threaded session per lane; a batch is split over the lanes, which run at once.
    /// Measured on this 2-core machine, two single-threaded runs of half the rows each finish
    /// about 12 % sooner than one run over two intra-op threads, which meet at every operator.
    /// (`Session::run` takes `&mut self`, hence a lock per lane.)
    lanes: Vec<Mutex<Session>>,
}

impl ModelSession {
    /// Loads the graph at `path` once per lane and reads its metadata. `lanes` is how many row
    /// groups of a batch run at once (one thread each).
    pub fn load(path: &str, lanes: usize) -> Result<ModelSession, ModelLoadError> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Err(ModelLoadError::model(format!("The model file {path} is not a regular file."))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ModelLoadError::model(format!("The model file {path} does not exist.")).missing())
            }
            Err(e) => return Err(ModelLoadError::model(format!("The model file {path} cannot be read: {e}."))),
        }
        let fail = |e: &dyn std::fmt::Display| ModelLoadError::model(format!("The model file {path} could not be loaded: {}.", runtime_reason(&e.to_string(), path)));
        // ort's builder errors carry the builder (clippy's result_large_err); they are made once, at start-up.
        #[allow(clippy::result_large_err)]
        let open = || {
            Session::builder()
                .map_err(|e| fail(&e))?
                .with_optimization_level(GraphOptimizationLevel::Level3)
                // Every failure the runtime would log is also returned, and reported in one
                // sentence; its own log line (coloured, with C++ locations) would be a second one.
                .and_then(|b| b.with_log_level(LogLevel::Fatal))
                .and_then(|b| b.with_intra_threads(1))
                .and_then(|b| b.with_inter_threads(1))
                .map_err(|e| fail(&e))?
                .commit_from_file(path)
                .map_err(|e| fail(&e))
        };
        let session = open()?;
        let props: HashMap<String, String> = {
            let meta = session.metadata().map_err(|e| fail(&e))?;
            METADATA_KEYS.iter().filter_map(|k| meta.custom(k).map(|v| (k.to_string(), v))).collect()
        };
        let spec = ModelSpec::from_metadata(&props).map_err(|e| ModelLoadError::model(format!("The model file {path} is not a Hora model: {e}.")))?;
        let names: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
        if !(names.contains(&"context") && names.contains(&"mask")) {
            return Err(ModelLoadError::model(format!("The model file {path} lacks the inputs `context` and `mask`.")));
        }
        if !session.outputs().iter().any(|o| o.name() == "quantiles") {
            return Err(ModelLoadError::model(format!("The model file {path} lacks the output `quantiles`.")));
        }
        let mut sessions = vec![session];
        for _ in 1..lanes.max(1) {
            sessions.push(open()?);
        }
        let model = ModelSession { spec, lanes: sessions.into_iter().map(Mutex::new).collect() };
        // One run at load: a graph that cannot run fails start-up, and the first request is not slow.
        let t = model.spec.context_multiple;
        model
            .run(&vec![0.0; t], &vec![1.0; t], 1, t)
            .map_err(|e| ModelLoadError::model(format!("The model file {path} does not run: {}.", runtime_reason(&e, path))))?;
        Ok(model)
    }

    /// Runs the graph on `batch` rows of `time` steps (row-major); returns
    /// `[batch, native_horizon, quantiles]` row-major. The rows are split over the lanes, which
    /// run at once; a row's result never depends on the rows beside it.
    pub fn run(&self, context: &[f32], mask: &[f32], batch: usize, time: usize) -> Result<Vec<f32>, String> {
        let lanes = self.lanes.len().min(batch).max(1);
        let bounds: Vec<usize> = (0..=lanes).map(|i| i * batch / lanes).collect();
        let part = |i: usize| {
            let (from, to) = (bounds[i] * time, bounds[i + 1] * time);
            self.run_lane(i, &context[from..to], &mask[from..to], bounds[i + 1] - bounds[i], time)
        };
        let parts: Vec<Result<Vec<f32>, String>> = if lanes == 1 {
            vec![part(0)]
        } else {
            std::thread::scope(|s| {
                let others: Vec<_> = (1..lanes).map(|i| s.spawn(move || part(i))).collect();
                let mut parts = vec![part(0)];
                parts.extend(others.into_iter().map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p))));
                parts
            })
        };
        let mut out = Vec::with_capacity(batch * self.spec.native_horizon * self.spec.quantiles.len());
        for p in parts {
            out.extend_from_slice(&p?);
        }
        Ok(out)
    }

    fn run_lane(&self, lane: usize, context: &[f32], mask: &[f32], batch: usize, time: usize) -> Result<Vec<f32>, String> {
        let shape = [batch as i64, time as i64];
        let ctx = TensorRef::from_array_view((shape, context)).map_err(|e| e.to_string())?;
        let msk = TensorRef::from_array_view((shape, mask)).map_err(|e| e.to_string())?;
        let mut session = unpoisoned(&self.lanes[lane]);
        let outputs = session.run(ort::inputs!["context" => ctx, "mask" => msk]).map_err(|e| e.to_string())?;
        let (out_shape, data) = outputs["quantiles"].try_extract_tensor::<f32>().map_err(|e| e.to_string())?;
        let want = [batch as i64, self.spec.native_horizon as i64, self.spec.quantiles.len() as i64];
        if out_shape.as_ref() != want {
            return Err(format!("model output shape {:?}, expected {:?}", out_shape.as_ref(), want));
        }
        Ok(data.to_vec())
    }
}

/// A lane's lock even when a run panicked while holding it. A session keeps no state from one
/// run to the next, so the panic cost that one request (the addon answers it 500); a poisoned
/// lane refused every later forecast until a restart.
fn unpoisoned<T>(lane: &Mutex<T>) -> MutexGuard<'_, T> {
    lane.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::{runtime_reason, unpoisoned};
    use std::sync::Mutex;

    #[test]
    fn a_lane_whose_run_panicked_serves_the_next_run() {
        let lane = Mutex::new(7);
        let _ = std::thread::scope(|s| {
            s.spawn(|| {
                let _held = lane.lock().unwrap();
                panic!("a run panicked");
            })
            .join()
        });
        assert!(lane.is_poisoned());
        assert_eq!(*unpoisoned(&lane), 7);
    }

    #[test]
    fn runtime_reasons_read_as_one_clause_without_source_locations() {
        let empty = "Load model from /m/empty.onnx failed:/onnxruntime_src/onnxruntime/core/graph/model.cc:187 onnxruntime::Model::Model(onnx::ModelProto&&, const onnxruntime::PathString&, const onnxruntime::logging::Logger&) ModelProto does not have a graph.";
        assert_eq!(runtime_reason(empty, "/m/empty.onnx"), "ModelProto does not have a graph");
        // A reason with parentheses of its own keeps them; a signature with nested ones is cut whole.
        let graph = "Load model from /m/b.onnx failed:/onnxruntime_src/onnxruntime/core/graph/graph.cc:1473 void onnxruntime::Graph::InitializeStateFromModelFileGraphProto(std::function<void(int)>) This is an invalid model. Graph output (y) does not exist in the graph.";
        assert_eq!(runtime_reason(graph, "/m/b.onnx"), "This is an invalid model. Graph output (y) does not exist in the graph");
        assert_eq!(runtime_reason("Load model from /m/t.onnx failed:Protobuf parsing failed.", "/m/t.onnx"), "Protobuf parsing failed");
        let header = "Load model from /m/o.onnx failed:/onnxruntime_src/onnxruntime/core/graph/model_load_utils.h:46 void onnxruntime::model_load_utils::ValidateOpsetForDomain(const std::unordered_map<std::basic_string<char>, int>&, const onnxruntime::logging::Logger&, bool, const string&, int) ONNX Runtime only *guarantees* support for models stamped with official released onnx opset versions.";
        assert_eq!(runtime_reason(header, "/m/o.onnx"), "ONNX Runtime only *guarantees* support for models stamped with official released onnx opset versions");
        assert_eq!(runtime_reason("Load model from /m/a  b.onnx failed:Protobuf parsing failed.", "/m/a  b.onnx"), "Protobuf parsing failed");
        // A path holding " failed:" is still stripped whole.
        assert_eq!(runtime_reason("Load model from /m/x failed:y.onnx failed:Protobuf parsing failed.", "/m/x failed:y.onnx"), "Protobuf parsing failed");
        assert_eq!(runtime_reason("something\nelse went wrong.", "/m/t.onnx"), "something else went wrong");
        // A run error: the location follows the runtime's own preamble, which stays.
        let run = "Non-zero status code returned while running Reshape node. Name:'/Reshape_1' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:91 onnxruntime::ReshapeHelper::ReshapeHelper(const onnxruntime::TensorShape&, onnxruntime::TensorShapeVector&, bool) input_shape_size == requested_shape_size was false. The input tensor cannot be reshaped to the requested shape.";
        assert_eq!(
            runtime_reason(run, ""),
            "Non-zero status code returned while running Reshape node. Name:'/Reshape_1' Status Message: input_shape_size == requested_shape_size was false. The input tensor cannot be reshaped to the requested shape"
        );
    }
}
