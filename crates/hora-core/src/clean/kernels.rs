//! Pure kernels on instants and values: grid placement, missing runs, imputation, outliers.
//! No policy or report logic here, so each is tested on plain arrays.

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
            _ => left + (right - left) * (k + 1) as f64 / (len + 1) as f64,
        };
    }
}

/// An instant the regrid kernel can place on a grid: microseconds as `i64` (the engine's own
/// columns) or as `f64` (what a JS host hands over without a conversion pass).
pub trait GridInstant: Copy + PartialEq {
    /// Whole steps from `start` to `self` (both on the grid, `self >= start`).
    fn steps_from(self, start: Self, step: i64) -> usize;
    /// `self - prev == step`: the common case, answered without a division.
    fn is_next(self, prev: Self, step: i64) -> bool;
}

impl GridInstant for i64 {
    #[inline]
    fn steps_from(self, start: i64, step: i64) -> usize {
        ((self - start) / step) as usize
    }
    #[inline]
    fn is_next(self, prev: i64, step: i64) -> bool {
        self - prev == step
    }
}

impl GridInstant for f64 {
    #[inline]
    fn steps_from(self, start: f64, step: i64) -> usize {
        ((self - start) / step as f64).round() as usize
    }
    #[inline]
    fn is_next(self, prev: f64, step: i64) -> bool {
        self - prev == step as f64
    }
}

/// Length of entity `e`'s grid: `stamps[indptr[e]..indptr[e + 1]]` from first to last stamp.
fn grid_len<T: GridInstant>(stamps: &[T], a: usize, b: usize, step: i64) -> usize {
    if b > a { stamps[b - 1].steps_from(stamps[a], step) + 1 } else { 0 }
}

/// Offsets of every entity's grid back to back (`indptr.len()` entries, the first 0): sizes the
/// output of [`regrid_impute_into`] before anything is written.
pub fn regrid_offsets<T: GridInstant>(stamps: &[T], indptr: &[usize], step: i64) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(indptr.len());
    offsets.push(0);
    for w in indptr.windows(2) {
        offsets.push(offsets[offsets.len() - 1] + grid_len(stamps, w[0], w[1], step));
    }
    offsets
}

/// Stamps that are not sorted, distinct and on one grid from each entity's first stamp.
#[derive(Debug, PartialEq, Eq)]
pub struct OffGrid {
    pub index: usize,
}

/// Regrid plus linear imputation over many entities at once (the benchmark's kernel, agreed with
/// the plain-TypeScript path in `src/clean/kernel.ts`): entity `e` is
/// `stamps[indptr[e]..indptr[e + 1]]`, sorted distinct instants on one grid of `step`, written to
/// `out[offsets[e]..offsets[e + 1]]` (offsets from [`regrid_offsets`]). Slots between two finite
/// values are filled on a straight line; slots before the first or after the last stay NaN.
pub fn regrid_impute_into<T: GridInstant>(
    stamps: &[T],
    y: &[f64],
    indptr: &[usize],
    step: i64,
    offsets: &[usize],
    out: &mut [f64],
) -> Result<(), OffGrid> {
    for (e, w) in indptr.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        let grid = &mut out[offsets[e]..offsets[e + 1]];
        if b <= a {
            continue;
        }
        let (ts, ys) = (&stamps[a..b], &y[a..b]);
        let start = ts[0];
        // Each run of consecutive stamps (found eight at a time, without a division) is copied
        // whole. While every value is finite, the slots between runs are filled on the line at
        // once; a null or infinity anywhere leaves them NaN for one fill pass over the grid.
        let (mut k, mut slot, mut finite) = (0usize, 0usize, true);
        while k < ts.len() {
            let run = consecutive_run(&ts[k..], step);
            if slot + run > grid.len() {
                return Err(OffGrid { index: a + k + (grid.len() - slot) });
            }
            let values = &ys[k..k + run];
            finite &= values.iter().fold(true, |all, v| all & v.is_finite());
            grid[slot..slot + run].copy_from_slice(values);
            let end = slot + run;
            k += run;
            if k == ts.len() {
                grid[end..].fill(f64::NAN);
                break;
            }
            let next = ts[k].steps_from(start, step);
            if next < end || next >= grid.len() {
                return Err(OffGrid { index: a + k });
            }
            let (lv, v) = (ys[k - 1], ys[k]);
            if finite && v.is_finite() {
                let len = (next - end + 1) as f64;
                for (j, cell) in grid[end..next].iter_mut().enumerate() {
                    *cell = lv + (v - lv) * (j + 1) as f64 / len;
                }
            } else {
                grid[end..next].fill(f64::NAN);
            }
            slot = next;
        }
        if !finite {
            fill_linear_between_finite(grid);
        }
    }
    Ok(())
}

/// Length of the run of stamps one step apart at the start of `ts` (at least 1).
fn consecutive_run<T: GridInstant>(ts: &[T], step: i64) -> usize {
    let mut run = 1;
    while run + 8 <= ts.len() && (0..8).fold(true, |all, j| all & ts[run + j].is_next(ts[run + j - 1], step)) {
        run += 8;
    }
    while run < ts.len() && ts[run].is_next(ts[run - 1], step) {
        run += 1;
    }
    run
}

/// Non-finite slots between two finite values go on the straight line between them; those before
/// the first finite value or after the last become NaN.
fn fill_linear_between_finite(grid: &mut [f64]) {
    for v in grid.iter_mut().filter(|v| !v.is_finite()) {
        *v = f64::NAN;
    }
    for run in missing_runs(grid) {
        if run.0 > 0 && run.0 + run.1 < grid.len() {
            fill_run(grid, run, ImputeMethod::Linear, 0);
        }
    }
}

/// [`regrid_impute_into`] with its own output: the filled grids back to back and their offsets.
pub fn regrid_impute<T: GridInstant>(stamps: &[T], y: &[f64], indptr: &[usize], step: i64) -> Result<(Vec<f64>, Vec<usize>), OffGrid> {
    let offsets = regrid_offsets(stamps, indptr, step);
    let mut out = vec![0.0; offsets[offsets.len() - 1]];
    regrid_impute_into(stamps, y, indptr, step, &offsets, &mut out)?;
    Ok((out, offsets))
}

/// Indices of observed values whose robust z-score (median and MAD) exceeds `z`.
pub fn outliers(values: &[f64], observed: &[bool], z: f64) -> Vec<usize> {
    let mut obs: Vec<f64> = values.iter().zip(observed).filter(|(v, o)| **o && v.is_finite()).map(|(v, _)| *v).collect();
    if obs.len() < 8 {
        return Vec::new();
    }
    let median = median_in_place(&mut obs);
    let mut dev: Vec<f64> = obs.iter().map(|v| (v - median).abs()).collect();
    let mad = median_in_place(&mut dev) * 1.4826;
    if mad <= 0.0 || !mad.is_finite() {
        return Vec::new();
    }
    (0..values.len()).filter(|&i| observed[i] && values[i].is_finite() && ((values[i] - median) / mad).abs() > z).collect()
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
    fn seasonal_imputation_copies_one_period_back_and_falls_back_to_linear() {
        let mut v = vec![1.0, 5.0, 2.0, f64::NAN, 3.0];
        fill_run(&mut v, (3, 1), ImputeMethod::Seasonal, 2);
        assert_eq!(v[3], 5.0);
        let mut w = vec![1.0, f64::NAN, 3.0];
        fill_run(&mut w, (1, 1), ImputeMethod::Seasonal, 2);
        assert_eq!(w[1], 2.0);
    }

    #[test]
    fn regrid_impute_fills_each_entity_on_its_own_grid() {
        let (v, off) = regrid_impute(&[0i64, 20, 5, 15], &[1.0, 3.0, 7.0, 9.0], &[0, 2, 4], 10).unwrap();
        assert_eq!(off, vec![0, 3, 5]);
        assert_eq!(v, vec![1.0, 2.0, 3.0, 7.0, 9.0]);
        let (v, off) = regrid_impute(&[5i64, 25], &[1.0, 9.0], &[0, 2], 5).unwrap();
        assert_eq!(off, vec![0, 5]);
        assert_eq!(v, vec![1.0, 3.0, 5.0, 7.0, 9.0]);
    }

    #[test]
    fn regrid_impute_refuses_unsorted_or_repeated_stamps() {
        assert_eq!(regrid_impute(&[0i64, 20, 10], &[1.0, 2.0, 3.0], &[0, 3], 10), Err(OffGrid { index: 1 }));
        assert_eq!(regrid_impute(&[0.0f64, 10.0, 10.0], &[1.0, 2.0, 3.0], &[0, 3], 10), Err(OffGrid { index: 2 }));
    }

    #[test]
    fn modal_phase_prefers_the_majority_then_the_latest_stamp() {
        assert_eq!(modal_phase(&[0, 10, 20, 35], 10), 0);
        assert_eq!(modal_phase(&[1, 12], 10), 2);
    }

    #[test]
    fn outliers_are_found_by_robust_z_score() {
        let mut v: Vec<f64> = (0..20).map(|i| (i % 3) as f64).collect();
        v[7] = 1000.0;
        let obs = vec![true; v.len()];
        assert_eq!(outliers(&v, &obs, 6.0), vec![7]);
    }
}
