//! Kernels the cleaning pipeline runs on one entity's values: missing runs, imputation, the
//! modal grid phase and outliers. No policy or report logic here, so each is tested on plain arrays.

use super::options::ImputeMethod;

/// Runs of NaN as `(start, len)`, in order.
pub fn missing_runs(values: &[f64]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < values.len() {
        if values[i].is_nan() {
            let start = i;
            while i < values.len() && values[i].is_nan() {
                i += 1;
            }
            runs.push((start, i - start));
        } else {
            i += 1;
        }
    }
    runs
}

/// The phase (`t mod step`) shared by most stamps; ties go to the phase of the latest stamp, so the
/// grid lines up with the most recent data.
pub fn modal_phase(sorted: &[i64], step: i64) -> i64 {
    // Common case: every stamp on one phase, no sort needed.
    if let Some(first) = sorted.first().map(|t| t.rem_euclid(step)) {
        if sorted.iter().all(|t| t.rem_euclid(step) == first) {
            return first;
        }
    }
    let mut phases: Vec<i64> = sorted.iter().map(|t| t.rem_euclid(step)).collect();
    let last = phases.last().copied().unwrap_or(0);
    phases.sort_unstable();
    let (mut best, mut best_n, mut i) = (last, 0usize, 0usize);
    while i < phases.len() {
        let n = phases[i..].iter().take_while(|&&p| p == phases[i]).count();
        if n > best_n || (n == best_n && phases[i] == last) {
            best = phases[i];
            best_n = n;
        }
        i += n;
    }
    best
}

/// Fills the interior run `(start, len)` (finite neighbours on both sides) by `method`.
pub fn fill_run(values: &mut [f64], run: (usize, usize), method: ImputeMethod, period: usize) {
    let (s, len) = run;
    let (left, right) = (values[s - 1], values[s + len]);
    for k in 0..len {
        let i = s + k;
        values[i] = match method {
            ImputeMethod::Locf => left,
            ImputeMethod::Seasonal if period > 0 && i >= period && values[i - period].is_finite() => values[i - period],
            _ => between(left, right, (k + 1) as f64, (len + 1) as f64),
        };
    }
}

/// The point `k / n` of the way from `left` to `right` (both finite). Near the ends of the f64
/// range `right - left` overflows to infinity, and an infinite fill would be masked while the
/// report says it was imputed; halves never overflow, and the point lies between the two.
fn between(left: f64, right: f64, k: f64, n: f64) -> f64 {
    let v = left + (right - left) * k / n;
    if v.is_finite() {
        v
    } else {
        let (l, r) = (left / 2.0, right / 2.0);
        (l + (r - l) * (k / n)) * 2.0
    }
}

/// Indices of observed values whose robust z-score (median and MAD) exceeds `z`, among at least
/// `min_observed` observed values.
pub fn outliers(values: &[f64], observed: &[bool], z: f64, min_observed: usize) -> Vec<usize> {
    let mut obs: Vec<f64> = values.iter().zip(observed).filter(|(v, o)| **o && v.is_finite()).map(|(v, _)| *v).collect();
    if obs.len() < min_observed {
        return Vec::new();
    }
    // A z-score does not depend on scale. Near f64's limit the values are quartered (exactly), so
    // no sum or difference below passes the range and the verdict is the scaled-down series'.
    let scale = if obs.iter().any(|v| v.abs() > f64::MAX / 4.0) { 0.25 } else { 1.0 };
    obs.iter_mut().for_each(|v| *v *= scale);
    let median = median_in_place(&mut obs);
    let mut dev: Vec<f64> = obs.iter().map(|v| (v - median).abs()).collect();
    let mad = median_in_place(&mut dev) * 1.4826;
    if mad <= 0.0 || !mad.is_finite() {
        return Vec::new();
    }
    (0..values.len()).filter(|&i| observed[i] && values[i].is_finite() && ((values[i] * scale - median) / mad).abs() > z).collect()
}

/// Median by selection (linear time; the order of `v` is lost).
fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    let (lower, mid, _) = v.select_nth_unstable_by(n / 2, |a, b| a.total_cmp(b));
    let mid = *mid;
    if n % 2 == 1 {
        mid
    } else {
        let below = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (below + mid) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn missing_runs_finds_each_run_of_nan() {
        let v = [f64::NAN, 1.0, f64::NAN, f64::NAN, 2.0, f64::NAN];
        assert_eq!(missing_runs(&v), vec![(0, 1), (2, 2), (5, 1)]);
    }

    #[test]
    fn linear_imputation_fills_between_neighbours() {
        let mut v = vec![f64::NAN, 1.0, f64::NAN, f64::NAN, 4.0, f64::NAN];
        fill_run(&mut v, (2, 2), ImputeMethod::Linear, 0);
        assert_eq!((v[2], v[3]), (2.0, 3.0));
        assert!(v[0].is_nan() && v[5].is_nan());
    }

    #[test]
    fn linear_imputation_between_the_ends_of_the_f64_range_stays_finite() {
        let mut v = vec![1.7e308, f64::NAN, -1.7e308];
        fill_run(&mut v, (1, 1), ImputeMethod::Linear, 0);
        assert_eq!(v[1], 0.0);
        let mut w = vec![-f64::MAX, f64::NAN, f64::NAN, f64::NAN, f64::MAX];
        fill_run(&mut w, (1, 3), ImputeMethod::Linear, 0);
        assert!(w.iter().all(|x| x.is_finite()) && w[1] < w[2] && w[2] < w[3], "{w:?}");
    }

    #[test]
    fn seasonal_imputation_copies_one_period_back_and_falls_back_to_linear() {
        let mut v = vec![1.0, 5.0, 2.0, f64::NAN, 3.0];
        fill_run(&mut v, (3, 1), ImputeMethod::Seasonal, 2);
        assert_eq!(v[3], 5.0);
        let mut w = vec![1.0, f64::NAN, 3.0];
        fill_run(&mut w, (1, 1), ImputeMethod::Seasonal, 2);
        assert_eq!(w[1], 2.0);
    }

    #[test]
    fn modal_phase_prefers_the_majority_then_the_latest_stamp() {
        assert_eq!(modal_phase(&[0, 10, 20, 35], 10), 0);
        assert_eq!(modal_phase(&[1, 12], 10), 2);
    }

    #[test]
    fn no_outlier_is_flagged_when_more_than_half_the_values_are_equal() {
        // Intermittent demand: a MAD of 0 would make every sale an outlier (docs/cleaning-policy.md).
        let v: Vec<f64> = (0..40).map(|i| if i % 5 == 0 { 7.0 } else { 0.0 }).collect();
        assert!(outliers(&v, &vec![true; v.len()], 6.0, 8).is_empty());
        // Exactly half equal: the median of an even count lies between the two middle values, the
        // MAD is not 0, and a spike is flagged.
        let mut half: Vec<f64> = (0..20).map(|i| if i < 10 { 0.0 } else { 1.0 }).collect();
        half[19] = 100.0;
        assert_eq!(outliers(&half, &vec![true; half.len()], 6.0, 8), vec![19]);
        half[10] = 0.0;
        assert!(outliers(&half, &vec![true; half.len()], 6.0, 8).is_empty());
    }

    #[test]
    fn outliers_are_found_by_robust_z_score() {
        let mut v: Vec<f64> = (0..20).map(|i| (i % 3) as f64).collect();
        v[7] = 1000.0;
        let obs = vec![true; v.len()];
        assert_eq!(outliers(&v, &obs, 6.0, 8), vec![7]);
    }

    #[test]
    fn near_the_largest_double_a_series_flags_what_it_flags_scaled_down() {
        // An even count's median adds two values near 1.6e308; a difference from the median
        // passes the range for a value of the other sign.
        let mut even: Vec<f64> = (0..16).map(|i| 1.6e308 + i as f64 * 1e300).collect();
        even[5] = -1.7e308;
        assert_eq!(outliers(&even, &[true; 16], 6.0, 8), vec![5]);
        // Spread wide enough that a value 1.7e308 from the median is within z = 6 of it.
        let odd: Vec<f64> = (0..17).map(|i| if i % 2 == 0 { 1.7e308 } else { -1.0e308 + i as f64 * 1e306 }).collect();
        for v in [even, odd] {
            let obs = vec![true; v.len()];
            let small: Vec<f64> = v.iter().map(|x| x * 1e-300).collect();
            assert_eq!(outliers(&v, &obs, 6.0, 8), outliers(&small, &obs, 6.0, 8), "{v:?}");
        }
    }
}
