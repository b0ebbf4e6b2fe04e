//! In-context spread calibration (the reference is `model/spread.py`; docs/model-card.md,
//! "Spread calibration").
//!
//! The model's intervals are calibrated on the generator's series; a caller's series can be more or
//! less predictable than it looks. So the model first forecasts the last window of each context
//! from the points before it, and the spread factor that would have minimised that window's pinball
//! loss, shrunk halfway to 1 (its square root), scales every forecast quantile's distance from the
//! median. Only the caller's own history is used.

/// Points before the window that the backtest reads: bounds its cost whatever the context length.
pub const BACKTEST_CONTEXT: usize = 256;
/// The window is the horizon, but at least this many steps (one step says little about a spread)
/// and at most the native horizon (one graph run).
const MIN_WINDOW: usize = 16;
const MIN_OBSERVED_BEFORE: usize = 16;
const MIN_OBSERVED_IN_WINDOW: usize = 8;
/// The search range of the factor before shrinking (served factors lie in [0.45, 2.24]).
const LOWER: f64 = 0.2;
const UPPER: f64 = 5.0;

/// Steps in the backtest window for a forecast of `h` steps.
pub fn window(h: usize, native_horizon: usize) -> usize {
    h.max(MIN_WINDOW).min(native_horizon)
}

/// The backtest of one context: at most [`BACKTEST_CONTEXT`] points before the window, and the
/// window. `None` when too little is observed on either side to judge a spread.
pub fn backtest(context: &[f64], window: usize) -> Option<(&[f64], &[f64])> {
    if context.len() <= window {
        return None;
    }
    let (before, after) = context.split_at(context.len() - window);
    let before = &before[before.len().saturating_sub(BACKTEST_CONTEXT)..];
    let observed = |s: &[f64]| s.iter().filter(|v| v.is_finite()).count();
    (observed(before) >= MIN_OBSERVED_BEFORE && observed(after) >= MIN_OBSERVED_IN_WINDOW).then_some((before, after))
}

/// The factor served for a backtest: `q` holds the window's sorted quantiles (`levels.len()` per
/// step), `y` the values that came (NaN = missing).
pub fn served_factor(q: &[f64], y: &[f64], levels: &[f64], median: usize) -> f64 {
    pinball_factor(q, y, levels, median).sqrt()
}

/// The exact minimiser over [LOWER, UPPER] of the summed pinball loss of `m + f (q - m)`: convex
/// and piecewise linear in `f`, so its right derivative rises by `|q - m|` at each kink
/// `(y - m) / (q - m)`, and the minimum is where that derivative first reaches 0. 1 when no
/// quantile differs from its median (nothing to scale).
fn pinball_factor(q: &[f64], y: &[f64], levels: &[f64], median: usize) -> f64 {
    let nq = levels.len();
    let (mut slope, mut any) = (0.0, false);
    let mut kinks: Vec<(f64, f64)> = Vec::new();
    for (step, &observed) in q.chunks_exact(nq).zip(y) {
        if !observed.is_finite() {
            continue;
        }
        let m = step[median];
        let r = observed - m;
        for (&qk, &tau) in step.iter().zip(levels) {
            let d = qk - m;
            if d == 0.0 {
                continue;
            }
            any = true;
            // Which side of this quantile the value lies on just above LOWER.
            let g = r - LOWER * d;
            let above = if g != 0.0 { g > 0.0 } else { d < 0.0 };
            slope += -d * if above { tau } else { tau - 1.0 };
            let kink = r / d;
            if kink > LOWER && kink < UPPER {
                kinks.push((kink, d.abs()));
            }
        }
    }
    if !any {
        return 1.0;
    }
    if slope >= 0.0 {
        return LOWER;
    }
    // Stable: equal kinks keep their step-then-quantile order, as the Python reference does.
    kinks.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (kink, rise) in kinks {
        slope += rise;
        if slope >= 0.0 {
            return kink;
        }
    }
    UPPER
}

/// Scales one step's sorted quantiles about its median (order is kept: the factor is positive).
pub fn apply(step: &mut [f64], median: usize, factor: f64) {
    let m = step[median];
    for v in step.iter_mut() {
        *v = m + factor * (*v - m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEVELS: [f64; 3] = [0.1, 0.5, 0.9];

    /// Steps of quantiles `[-w, 0, w]` about 0.
    fn spread(w: f64, steps: usize) -> Vec<f64> {
        (0..steps).flat_map(|_| [-w, 0.0, w]).collect()
    }

    #[test]
    fn a_spread_matching_the_outcomes_keeps_its_width() {
        // Ten outcomes spread so that exactly one lies beyond each outer quantile, at the 10 % and 90 %
        // points: the pinball-optimal factor is the one that puts the quantiles there.
        let y = [-1.0, -0.5, -0.3, -0.1, 0.0, 0.0, 0.1, 0.3, 0.5, 1.0];
        let f = pinball_factor(&spread(1.0, 10), &y, &LEVELS, 1);
        assert!((0.5..=1.0).contains(&f), "{f}");
    }

    #[test]
    fn outcomes_far_tighter_than_the_quantiles_narrow_them_and_wider_ones_widen_them() {
        let y: Vec<f64> = (0..20).map(|i| if i % 2 == 0 { 0.05 } else { -0.05 }).collect();
        assert_eq!(pinball_factor(&spread(1.0, 20), &y, &LEVELS, 1), LOWER);
        let y: Vec<f64> = (0..20).map(|i| if i % 2 == 0 { 100.0 } else { -100.0 }).collect();
        assert_eq!(pinball_factor(&spread(1.0, 20), &y, &LEVELS, 1), UPPER);
        // Served: shrunk halfway (geometric) to 1.
        assert!((served_factor(&spread(1.0, 20), &y, &LEVELS, 1) - UPPER.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn the_factor_is_the_exact_minimiser_of_the_window_pinball_loss() {
        let q: Vec<f64> = (0..12).flat_map(|s| [-1.0 - s as f64 * 0.1, 0.2, 1.5 + s as f64 * 0.05]).collect();
        let y: Vec<f64> = (0..12).map(|s| ((s * 7919) % 13) as f64 / 4.0 - 1.5).collect();
        let loss = |f: f64| -> f64 {
            q.chunks(3)
                .zip(&y)
                .map(|(step, &obs)| {
                    LEVELS
                        .iter()
                        .zip(step)
                        .map(|(tau, qk)| {
                            let d = obs - (step[1] + f * (qk - step[1]));
                            (tau * d).max((tau - 1.0) * d)
                        })
                        .sum::<f64>()
                })
                .sum()
        };
        let best = pinball_factor(&q, &y, &LEVELS, 1);
        for k in 0..=480 {
            let f = LOWER + (UPPER - LOWER) * k as f64 / 480.0;
            assert!(loss(best) <= loss(f) + 1e-12, "f={f}: {} < {}", loss(f), loss(best));
        }
    }

    #[test]
    fn missing_outcomes_are_skipped_and_flat_quantiles_give_no_factor() {
        let y = [f64::NAN; 10];
        assert_eq!(pinball_factor(&spread(1.0, 10), &y, &LEVELS, 1), 1.0);
        assert_eq!(pinball_factor(&spread(0.0, 10), &[1.0; 10], &LEVELS, 1), 1.0);
    }

    #[test]
    fn a_backtest_needs_observed_points_on_both_sides_and_reads_at_most_256_before() {
        let long: Vec<f64> = (0..1000).map(f64::from).collect();
        let (before, after) = backtest(&long, 48).unwrap();
        assert_eq!((before.len(), after.len()), (BACKTEST_CONTEXT, 48));
        assert_eq!((before[0], after[0]), (1000.0 - 48.0 - 256.0, 952.0));
        assert!(backtest(&long[..16 + 15], 16).is_none());
        assert!(backtest(&long[..32], 16).is_some());
        let mut gappy = long[..64].to_vec();
        gappy[48..60].fill(f64::NAN);
        assert!(backtest(&gappy, 16).is_none());
    }

    #[test]
    fn the_window_is_the_horizon_within_16_and_the_native_horizon() {
        assert_eq!((window(1, 64), window(48, 64), window(500, 64)), (16, 48, 64));
    }

    #[test]
    fn scaling_keeps_the_median_and_the_order() {
        let mut step = [1.0, 2.0, 4.0];
        apply(&mut step, 1, 0.5);
        assert_eq!(step, [1.5, 2.0, 3.0]);
    }
}
