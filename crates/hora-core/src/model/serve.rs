//! From cleaned contexts to native-quantile forecasts: batching, flip averaging, rollout,
//! monotone quantiles, the interval calibration of the grid's family and nonnegative clipping.
//! `model/eval.py` (`OnnxForecaster.forecast`) repeats the rollout for the model scripts that run
//! the file without the service: a change to these rules is a change to both.

use super::calibration::FreqFamily;
use super::session::ModelSession;
use crate::error::{ErrorCode, HoraError};
use crate::nonnegative::Nonnegative;
use std::collections::BTreeMap;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForecastOptions {
    pub flip_average: bool,
    pub nonnegative: Nonnegative,
    /// Past this instant the run stops between batches with `GATEWAY_TIMEOUT`, so a request
    /// over its budget frees the model soon instead of running to its end.
    pub deadline: Option<Instant>,
}

/// Rows per graph run: bounds the tensor memory of one run (rows × the padded context × 4 bytes,
/// at most 4 MiB per input with the model's 4,096-point maximum).
const MAX_BATCH_ROWS: usize = 256;

/// Values this far from 1 in magnitude would leave f32's range inside the graph, whose scaler
/// sums squares of up to 4,096 values (a 1e20 spike squared is past f32's 3.4e38); such a series
/// is brought into range by an exact power-of-two factor and multiplied back (no rounding).
const F32_SAFE_MAX: f64 = 1e15;
const F32_SAFE_MIN: f64 = 1e-15;

/// One entity's input to [`forecast`].
#[derive(Debug, Clone, Copy)]
pub struct ModelContext<'a> {
    /// The cleaned context on the grid; NaN = masked.
    pub values: &'a [f64],
    /// Every observed value of the history the caller sent is nonnegative: `nonnegative: auto`
    /// clips then. Not read off `values`, which a gap split may have cut.
    pub history_nonnegative: bool,
}

/// Forecasts `h` steps for every entity on a grid of `family`. Returns per entity `h × Q` values,
/// row-major by step, in the order of `spec.quantiles`.
pub fn forecast(model: &ModelSession, entities: &[ModelContext], h: usize, family: FreqFamily, opts: ForecastOptions) -> Result<Vec<Vec<f64>>, HoraError> {
    let spec = &model.spec;
    let q = spec.quantiles.len();
    let median = spec.median_index();
    let spread = spec.spread_scale.factor(family);
    let mut work: Vec<Vec<f64>> = Vec::with_capacity(entities.len());
    let mut exponents = Vec::with_capacity(entities.len());
    for c in entities.iter().map(|e| e.values) {
        let k = range_exponent(c);
        work.push(c.iter().map(|v| scale_pow2(*v, k)).collect());
        exponents.push(k);
    }
    let clips: Vec<bool> = entities.iter().map(|c| opts.nonnegative.holds(|| c.history_nonnegative)).collect();
    let mut out: Vec<Vec<f64>> = vec![Vec::with_capacity(h * q); entities.len()];
    let mut produced = 0;
    while produced < h {
        let steps = (h - produced).min(spec.native_horizon);
        let round = run_round(model, &work, opts.flip_average, opts.deadline)?;
        for (e, mut quantiles) in round.into_iter().enumerate() {
            // Monotone first, so that the path carried forward is the median the caller is shown
            // (the graph's quantiles can cross near the median), as model/eval.py rolls too.
            for step in quantiles[..steps * q].chunks_mut(q) {
                step.sort_by(|a, b| a.total_cmp(b));
            }
            out[e].extend_from_slice(&quantiles[..steps * q]);
            // Rollout: the median path joins the context as if observed, clipped at 0 as it is
            // shown (a power-of-two scale keeps the sign), so a clipped series is not rolled on
            // from values the caller never sees.
            let shown = |m: f64| if clips[e] { m.max(0.0) } else { m };
            work[e].extend((0..steps).map(|s| shown(quantiles[s * q + median])));
        }
        produced += steps;
    }
    for (e, forecast) in out.iter_mut().enumerate() {
        let clip = clips[e];
        accumulate_rollout_spread(forecast, q, spec.native_horizon, median);
        for step in forecast.chunks_mut(q) {
            if spread != 1.0 {
                // About the median, after sorting: a positive factor keeps the order.
                let m = step[median];
                for v in step.iter_mut() {
                    *v = m + spread * (*v - m);
                }
            }
            for v in step.iter_mut() {
                *v = cap(scale_pow2(*v, -exponents[e]));
                if clip && *v < 0.0 {
                    *v = 0.0;
                }
            }
        }
        if forecast.iter().any(|v| !v.is_finite()) {
            return Err(HoraError::new(ErrorCode::ServiceUnavailable, "The model produced a non-finite forecast.")
                .with("stage", "inference"));
        }
    }
    Ok(out)
}

/// A rolled-forward block reads the median path before it as observed data, so its quantiles hold
/// that block's own uncertainty alone (held-out generated series: 80 % intervals covered 56 % of
/// steps 65 to 128 and 23 % of steps 257 to 512). The uncertainty reached at the end of the block
/// before is added in quadrature, quantile by quantile, as for independent errors: each distance
/// from the median at a later step becomes the hypotenuse of its own and that of the previous
/// block's last step (already widened, so it accumulates). Steps must be sorted; the order is kept
/// (both distances shrink toward the median) and the median never moves.
fn accumulate_rollout_spread(forecast: &mut [f64], q: usize, native_horizon: usize, median: usize) {
    let steps = forecast.len() / q;
    let mut start = native_horizon;
    while start < steps {
        let end = (start + native_horizon).min(steps);
        let last = &forecast[(start - 1) * q..start * q];
        let carried: Vec<f64> = last.iter().map(|v| v - last[median]).collect();
        for step in forecast[start * q..end * q].chunks_mut(q) {
            let m = step[median];
            for (k, v) in step.iter_mut().enumerate() {
                let d = (*v - m).hypot(carried[k]);
                *v = match k.cmp(&median) {
                    std::cmp::Ordering::Less => m - d,
                    std::cmp::Ordering::Equal => m,
                    std::cmp::Ordering::Greater => m + d,
                };
            }
        }
        start = end;
    }
}

/// A history at the edge of f64 (1.7e308) can forecast just past it: the nearest representable
/// value is the answer JSON can carry.
fn cap(v: f64) -> f64 {
    v.clamp(f64::MIN, f64::MAX)
}

/// Whether a served value is one [`cap`] may have made: at the edge of f64's range.
pub fn is_capped(v: f64) -> bool {
    v.abs() == f64::MAX
}

/// The power of two (its exponent) that brings the series' largest magnitude into f32's
/// comfortable range; 0 when it is there already.
fn range_exponent(values: &[f64]) -> i32 {
    let max = values.iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
    if max > F32_SAFE_MAX || (max > 0.0 && max < F32_SAFE_MIN) {
        -max.log2().round() as i32
    } else {
        0
    }
}

/// `v × 2^k`, exact unless the result itself is subnormal. 2^k alone may not be a double: a
/// subnormal series (1e-310, 5e-324) needs 2^1030 to 2^1074, past f64's largest power of two, and
/// one factor of infinity turned its forecast into 0. So the factor is applied in parts.
fn scale_pow2(mut v: f64, mut k: i32) -> f64 {
    const PART: i32 = 1000;
    while k > PART {
        v *= f64::from(PART).exp2();
        k -= PART;
    }
    while k < -PART {
        v *= f64::from(-PART).exp2();
        k += PART;
    }
    v * f64::from(k).exp2()
}

/// One graph pass for every entity: `native_horizon × Q` values each.
fn run_round(model: &ModelSession, work: &[Vec<f64>], flip: bool, deadline: Option<Instant>) -> Result<Vec<Vec<f64>>, HoraError> {
    let spec = &model.spec;
    let (hn, q) = (spec.native_horizon, spec.quantiles.len());
    // Entities are grouped by padded length so that an entity's input never depends on its batch.
    let mut buckets: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (e, w) in work.iter().enumerate() {
        let n = w.len().min(spec.max_context);
        let padded = n.div_ceil(spec.context_multiple) * spec.context_multiple;
        buckets.entry(padded.max(spec.context_multiple)).or_default().push(e);
    }
    let mut results = vec![Vec::new(); work.len()];
    let per_entity = if flip { 2 } else { 1 };
    for (time, entities) in buckets {
        for chunk in entities.chunks((MAX_BATCH_ROWS / per_entity).max(1)) {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(HoraError::new(ErrorCode::GatewayTimeout, "The model run passed the request budget.").with("stage", "inference"));
            }
            let rows = chunk.len() * per_entity;
            let mut context = vec![0f32; rows * time];
            let mut mask = vec![0f32; rows * time];
            for (i, &e) in chunk.iter().enumerate() {
                let w = &work[e];
                let tail = &w[w.len().saturating_sub(spec.max_context)..];
                for sign_row in 0..per_entity {
                    let row = i * per_entity + sign_row;
                    let sign = if sign_row == 0 { 1.0 } else { -1.0 };
                    let offset = row * time + (time - tail.len());
                    for (j, v) in tail.iter().enumerate() {
                        if v.is_finite() {
                            context[offset + j] = (sign * v) as f32;
                            mask[offset + j] = 1.0;
                        }
                    }
                }
            }
            let raw = model
                .run(&context, &mask, rows, time)
                .map_err(|e| {
                    let reason = super::session::runtime_reason(&e, "");
                    HoraError::new(ErrorCode::ServiceUnavailable, format!("Inference failed: {reason}.")).with("stage", "inference")
                })?;
            for (i, &e) in chunk.iter().enumerate() {
                let base = i * per_entity * hn * q;
                let mut r: Vec<f64> = raw[base..base + hn * q].iter().map(|v| *v as f64).collect();
                if flip {
                    // f(-x) mirrored: quantile k of x corresponds to -(quantile Q-1-k) of -x.
                    let neg = &raw[base + hn * q..base + 2 * hn * q];
                    for s in 0..hn {
                        for k in 0..q {
                            r[s * q + k] = 0.5 * (r[s * q + k] - neg[s * q + (q - 1 - k)] as f64);
                        }
                    }
                }
                results[e] = r;
            }
        }
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_rollout_blocks_add_the_spread_reached_before_them_in_quadrature() {
        // Three quantiles (median at 1), native horizon 2, five steps: blocks [0,1], [2,3], [4].
        let mut f = vec![
            -1.0, 0.0, 2.0, //
            -3.0, 0.0, 4.0, // end of block 1: distances 3 and 4
            6.0, 10.0, 10.0, // its own distances 4 and 0
            -10.0, -10.0, -10.0, // a degenerate step: it takes the carried spread alone
            1.0, 1.0, 2.0,
        ];
        accumulate_rollout_spread(&mut f, 3, 2, 1);
        assert_eq!(&f[..6], &[-1.0, 0.0, 2.0, -3.0, 0.0, 4.0], "the first block is as the model gave it");
        assert_eq!(&f[6..9], &[5.0, 10.0, 14.0], "hypot(4, 3) below, hypot(0, 4) above");
        assert_eq!(&f[9..12], &[-13.0, -10.0, -6.0]);
        // The third block carries the widened end of the second (3 and 4), not the first's.
        assert_eq!(&f[12..], &[1.0 - 3.0, 1.0, 1.0 + 1f64.hypot(4.0)]);
    }

    #[test]
    fn the_range_exponent_is_nonzero_only_outside_f32_comfort() {
        assert_eq!(range_exponent(&[1.0, 1e12, f64::NAN]), 0);
        let k = range_exponent(&[1e300]);
        assert!(k < 0 && scale_pow2(1e300, k) < F32_SAFE_MAX);
        let k = range_exponent(&[1e-40]);
        assert!(k > 0 && scale_pow2(1e-40, k) > F32_SAFE_MIN);
        assert_eq!(range_exponent(&[0.0, 0.0]), 0);
    }

    #[test]
    fn subnormal_and_extreme_series_scale_into_range_and_back_exactly() {
        for v in [1e-310, -1e-310, 5e-324, f64::MIN_POSITIVE, f64::MAX, -f64::MAX, 1e-40, 3.5] {
            let k = range_exponent(&[v]);
            let scaled = scale_pow2(v, k);
            assert!(scaled.is_finite() && scaled != 0.0, "{v}: {scaled}");
            assert!((F32_SAFE_MIN..=F32_SAFE_MAX).contains(&scaled.abs()), "{v}: {scaled}");
            assert_eq!(scale_pow2(scaled, -k), v, "{v}");
        }
    }
}
