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

/// 200 points of noise around 0 with a spike of 50 now and then. With this seed the graph's
/// quantiles cross near the median in the first block (an unsorted median carried forward moved
/// the second block's by 6e-3 of the series' deviation).
fn spiky() -> Vec<f64> {
    let mut state: u64 = 11 * 7919;
    let mut uniform = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..200).map(|_| (uniform() - 0.5) * 3.0 + if uniform() < 0.03 { 50.0 } else { 0.0 }).collect()
}

#[test]
fn the_rollout_carries_forward_the_median_the_caller_is_shown() {
    let model = session();
    let q = model.spec.quantiles.len();
    let median = model.spec.median_index();
    let native = model.spec.native_horizon;
    let opts = ForecastOptions { flip_average: false, nonnegative: Nonnegative::Never, deadline: None };
    let history = spiky();
    let medians = |f: &[f64]| f.chunks(q).map(|s| s[median]).collect::<Vec<f64>>();
    let rolled = forecast(&model, &[ModelContext { values: &history, history_nonnegative: false }], 2 * native, FreqFamily::Hourly, opts).unwrap();
    let shown = medians(&rolled[0]);
    // The second block is the forecast from the history and the first block's shown medians.
    let extended: Vec<f64> = history.iter().copied().chain(shown[..native].iter().copied()).collect();
    let fresh = forecast(&model, &[ModelContext { values: &extended, history_nonnegative: false }], native, FreqFamily::Hourly, opts).unwrap();
    let sd = {
        let mean = history.iter().sum::<f64>() / history.len() as f64;
        (history.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / history.len() as f64).sqrt()
    };
    for (step, (a, b)) in shown[native..].iter().zip(medians(&fresh[0])).enumerate() {
        assert!((a - b).abs() <= 1e-5 * sd, "step {}: rolled {a} against {b}", native + step + 1);
    }
}

#[test]
fn a_clipped_forecast_rolls_on_from_the_clipped_median_it_shows() {
    let model = session();
    let q = model.spec.quantiles.len();
    let median = model.spec.median_index();
    let native = model.spec.native_horizon;
    // A spike as the last value: the model's medians dip below 0 right after it (model card, Limits).
    let history: Vec<f64> = std::iter::repeat_n(1.0, 47).chain([1000.0]).collect();
    let medians = |f: &[f64]| f.chunks(q).map(|s| s[median]).collect::<Vec<f64>>();
    let run = |values: &[f64], h: usize, nonnegative: Nonnegative| {
        let opts = ForecastOptions { flip_average: true, nonnegative, deadline: None };
        forecast(&model, &[ModelContext { values, history_nonnegative: true }], h, FreqFamily::Hourly, opts).unwrap().remove(0)
    };
    let unclipped = medians(&run(&history, native, Nonnegative::Never));
    assert!(unclipped.iter().any(|m| *m < 0.0), "the case needs negative medians to clip");
    let shown = medians(&run(&history, 2 * native, Nonnegative::Auto));
    let extended: Vec<f64> = history.iter().copied().chain(shown[..native].iter().copied()).collect();
    let fresh = medians(&run(&extended, native, Nonnegative::Auto));
    for (step, (a, b)) in shown[native..].iter().zip(&fresh).enumerate() {
        assert!((a - b).abs() <= 1e-4, "step {}: rolled {a} against {b}", native + step + 1);
    }
}
