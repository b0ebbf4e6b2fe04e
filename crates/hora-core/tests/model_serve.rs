//! Serving through the committed model file and the ONNX Runtime library that `npm ci` installs
//! (onnxruntime-node ships it; `ORT_DYLIB_PATH` names another): what needs a real session.

use hora_core::model::{forecast, init_runtime, FreqFamily, ForecastOptions, ModelContext, ModelSession, Nonnegative};
use hora_core::ErrorCode;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The runtime as the service finds it (src/native.ts): `ORT_DYLIB_PATH`, else the package's copy.
fn runtime_path() -> String {
    if let Ok(p) = std::env::var("ORT_DYLIB_PATH") {
        if !p.is_empty() {
            return p;
        }
    }
    let (platform, lib) = if cfg!(target_os = "macos") { ("darwin", "libonnxruntime.1.dylib") } else { ("linux", "libonnxruntime.so.1") };
    let arch = if cfg!(target_arch = "aarch64") { "arm64" } else { "x64" };
    let path = root().join("node_modules/onnxruntime-node/bin/napi-v6").join(platform).join(arch).join(lib);
    assert!(path.is_file(), "no ONNX Runtime library at {} (run `npm ci` first, or set ORT_DYLIB_PATH)", path.display());
    path.canonicalize().unwrap().to_string_lossy().into_owned()
}

fn session() -> ModelSession {
    init_runtime(&runtime_path()).unwrap();
    let model = root().join("models/hora-1.0.onnx").canonicalize().unwrap();
    ModelSession::load(model.to_str().unwrap(), 1).unwrap()
}

fn sine(n: usize, phase: f64) -> Vec<f64> {
    (0..n).map(|k| 10.0 + (k as f64 / 4.0 + phase).sin()).collect()
}

fn options(deadline: Option<Instant>) -> ForecastOptions {
    ForecastOptions { flip_average: true, nonnegative: Nonnegative::Auto, deadline }
}

#[test]
fn a_run_past_its_deadline_stops_before_the_next_batch_with_gateway_timeout() {
    let model = session();
    // 300 entities: more than one batch of the graph (256 rows, 128 entities with flip averaging).
    let series: Vec<Vec<f64>> = (0..300).map(|e| sine(64, e as f64)).collect();
    let entities: Vec<ModelContext> = series.iter().map(|values| ModelContext { values, history_nonnegative: true }).collect();
    // A deadline already past: no batch may start.
    let err = forecast(&model, &entities, 8, FreqFamily::Hourly, options(Some(Instant::now()))).unwrap_err();
    assert_eq!(err.code, ErrorCode::GatewayTimeout);
    // The same run with time to spare completes, every entity forecast.
    let done = forecast(&model, &entities, 8, FreqFamily::Hourly, options(Some(Instant::now() + Duration::from_secs(600)))).unwrap();
    assert_eq!(done.len(), 300);
    assert!(done.iter().all(|f| f.len() == 8 * model.spec.quantiles.len() && f.iter().all(|v| v.is_finite())));
}
