//! The regrid-plus-linear-impute kernel over many entities' columns, for hosts that hand over
//! typed arrays (the addon's `regridImputeOffsets`/`regridImputeInto`, the benchmark against plain
//! TypeScript). The service's cleaning places values with `grid.rs` (calendar grids, off-grid
//! stamps, decisions); the pipeline's per-entity kernels are in `fill.rs`.

use super::fill::{fill_run, missing_runs};
use super::options::ImputeMethod;
use std::sync::{Mutex, PoisonError};

/// An instant the regrid kernel can place on a grid: microseconds as `i64` (the engine's own
/// columns) or as `f64` (what a JS host hands over without a conversion pass).
/// `Send + Sync` because the kernel spreads entities over threads.
pub trait GridInstant: Copy + PartialEq + Send + Sync {
    /// Whole steps from `start` to `self` (both on the grid, `self >= start`).
    fn steps_from(self, start: Self, step: i64) -> usize;
    /// `self - prev == step`: the common case, answered without a division.
    fn is_next(self, prev: Self, step: i64) -> bool;
    /// `self.steps_from(start, step)`, answered without a division when it is `guess`.
    #[inline]
    fn steps_from_guess(self, start: Self, step: i64, guess: usize) -> usize {
        let _ = guess;
        self.steps_from(start, step)
    }
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
    #[inline]
    fn steps_from_guess(self, start: i64, step: i64, guess: usize) -> usize {
        // An exact multiple divides back to `guess` exactly.
        if step != 0 && i64::try_from(guess).ok().and_then(|g| g.checked_mul(step)) == Some(self - start) {
            guess
        } else {
            self.steps_from(start, step)
        }
    }
}

impl GridInstant for f64 {
    #[inline]
    fn steps_from(self, start: f64, step: i64) -> usize {
        // `q.round() as usize` without `round`, a libm call on baseline x86-64: the cast truncates
        // (saturating, NaN and negatives to 0) and the fraction left over is exact.
        let q = (self - start) / step as f64;
        if (0.0..EXACT).contains(&q) {
            let whole = q as i64;
            (whole + (q - whole as f64 >= 0.5) as i64) as usize
        } else {
            q.round() as usize
        }
    }
    #[inline]
    fn is_next(self, prev: f64, step: i64) -> bool {
        self - prev == step as f64
    }
    #[inline]
    fn steps_from_guess(self, start: f64, step: i64, guess: usize) -> usize {
        // Integers below 2^53 multiply exactly, so a difference equal to `guess` steps divides
        // back to exactly `guess` (the step, from an i64, is an integer too).
        let (d, s) = (self - start, step as f64);
        let g = guess as i64;
        if g >= 0 && s != 0.0 && d.abs() < EXACT && d == g as f64 * s {
            guess
        } else {
            self.steps_from(start, step)
        }
    }
}

/// 2^53: below it every integer is an f64 and the fraction of an f64 is exact.
const EXACT: f64 = 9_007_199_254_740_992.0;

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
        let end: usize = offsets[offsets.len() - 1];
        offsets.push(end.saturating_add(grid_len(stamps, w[0], w[1], step)));
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
/// On `Err`, `index` is the first offending stamp and what `out` holds is unspecified.
pub fn regrid_impute_into<T: GridInstant>(
    stamps: &[T],
    y: &[f64],
    indptr: &[usize],
    step: i64,
    offsets: &[usize],
    out: &mut [f64],
) -> Result<(), OffGrid> {
    let threads = kernel_threads(stamps.len().min(y.len()), indptr, offsets, out.len());
    if threads <= 1 {
        return regrid_entities(stamps, y, indptr, step, offsets, out);
    }
    // Contiguous chunks of entities of about equal output, each with its own part of `out`, taken
    // in turn by the threads (this one too): a thread that starts late (tens of µs) takes fewer.
    let entities = indptr.len() - 1;
    let chunks = threads * CHUNKS_PER_THREAD;
    let share = out.len() / chunks;
    let mut cuts: Vec<usize> = (0..chunks).map(|i| offsets.partition_point(|&o| o < share * i).min(entities)).collect();
    cuts.push(entities);
    cuts.dedup();
    let mut parts = Vec::with_capacity(cuts.len() - 1);
    let mut rest = out;
    for w in cuts.windows(2) {
        let (part, tail) = rest.split_at_mut(offsets[w[1]] - offsets[w[0]]);
        parts.push((w[0], w[1], part));
        rest = tail;
    }
    let queue = Mutex::new(parts.into_iter().enumerate());
    // Each thread's first error, by chunk: entities run in order within a chunk, so the error of
    // the first failing chunk is the one a single thread would meet first.
    let work = || {
        let mut first: Option<(usize, OffGrid)> = None;
        loop {
            let Some((i, (e0, e1, part))) = queue.lock().unwrap_or_else(PoisonError::into_inner).next() else {
                return first;
            };
            let done = regrid_entities(stamps, y, &indptr[e0..=e1], step, &offsets[e0..=e1], part);
            if let (Err(e), None) = (done, &first) {
                first = Some((i, e));
            }
        }
    };
    let failed = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut failed = vec![work()];
        // A panic is a bug: re-raised here as it would have happened on this thread.
        failed.extend(helpers.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))));
        failed
    });
    failed.into_iter().flatten().min_by_key(|(i, _)| *i).map_or(Ok(()), |(_, e)| Err(e))
}

/// Below this many rows of output the kernel stays on the calling thread: measured on a 2-core
/// host, a second thread starts some 45 µs late and pays from about 150k rows (~0.13 ms).
const MIN_KERNEL_ROWS: usize = 150_000;

/// Chunks per thread: fine enough to even out a late start, coarse enough to cost nothing.
const CHUNKS_PER_THREAD: usize = 8;

/// Threads for the kernel: one for small outputs, or where the columns do not fit together (the
/// single-threaded path then panics or fails just where it always has), else as `par` decides.
fn kernel_threads(columns: usize, indptr: &[usize], offsets: &[usize], rows: usize) -> usize {
    if rows < MIN_KERNEL_ROWS || indptr.len() < 3 {
        return 1;
    }
    let fits = offsets.len() == indptr.len()
        && offsets[0] == 0
        && offsets[offsets.len() - 1] == rows
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && indptr.iter().all(|&i| i <= columns);
    if fits { crate::par::threads_for(rows) } else { 1 }
}

/// The entities of `indptr` into `out`, their part of the output: its first slot is `offsets[0]`.
fn regrid_entities<T: GridInstant>(
    stamps: &[T], y: &[f64], indptr: &[usize], step: i64, offsets: &[usize], out: &mut [f64],
) -> Result<(), OffGrid> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: `regrid_entities_avx2` only needs the CPU to have AVX2, checked just above.
        return unsafe { regrid_entities_avx2(stamps, y, indptr, step, offsets, out) };
    }
    regrid_entities_portable(stamps, y, indptr, step, offsets, out)
}

/// The same code compiled for AVX2 (the build itself targets baseline x86-64): the run checks
/// and copies go four lanes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn regrid_entities_avx2<T: GridInstant>(
    stamps: &[T], y: &[f64], indptr: &[usize], step: i64, offsets: &[usize], out: &mut [f64],
) -> Result<(), OffGrid> {
    regrid_entities_portable(stamps, y, indptr, step, offsets, out)
}

// Always inlined, so that it (and what it calls) is compiled for each caller's target features.
#[inline(always)]
fn regrid_entities_portable<T: GridInstant>(
    stamps: &[T], y: &[f64], indptr: &[usize], step: i64, offsets: &[usize], out: &mut [f64],
) -> Result<(), OffGrid> {
    let base = offsets.first().copied().unwrap_or(0);
    for (e, w) in indptr.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        let grid = &mut out[offsets[e] - base..offsets[e + 1] - base];
        if b > a {
            regrid_entity(&stamps[a..b], &y[a..b], step, grid).map_err(|k| OffGrid { index: a + k })?;
        }
    }
    Ok(())
}

/// One entity's grid; `Err` holds the index (within `ts`) of the first stamp off the grid.
#[inline(always)]
fn regrid_entity<T: GridInstant>(ts: &[T], ys: &[f64], step: i64, grid: &mut [f64]) -> Result<(), usize> {
    let start = ts[0];
    // Each run of consecutive stamps is copied whole and each gap between two finite values
    // drawn on their line at once. A null or infinity anywhere (a `poison` lane turns NaN) calls
    // for one fill pass over the grid at the end: it draws the gaps left NaN and keeps finite
    // slots, so the lines drawn here stand as it would have drawn them.
    let (mut k, mut slot, mut poison) = (0usize, 0usize, [0.0; LANES]);
    let mut first_non_finite: Option<Option<usize>> = None;
    loop {
        let room = grid.len() - slot;
        let run = copy_run(&ts[k..], &ys[k..], step, &mut grid[slot..], &mut poison);
        // A run longer than the grid: its first stamp past the end is off the grid.
        if room == 0 || run == room && k + run < ts.len() && ts[k + run].is_next(ts[k + run - 1], step) {
            return Err(k + room);
        }
        let end = slot + run;
        k += run;
        if k == ts.len() {
            grid[end..].fill(f64::NAN);
            break;
        }
        // Most gaps are one missing stamp.
        let next = ts[k].steps_from_guess(start, step, end + 1);
        if next < end || next >= grid.len() {
            return Err(k);
        }
        let (lv, v) = (ys[k - 1], ys[k]);
        if lv.is_finite() && v.is_finite() {
            let mut line_finite = true;
            if next == end + 1 {
                // The line's one slot, j = 0 and len = 2 below: a halving, without a division.
                grid[end] = lv + (v - lv) * 0.5;
                line_finite = grid[end].is_finite();
            } else {
                // Slot counts fit an i64 (a slice has at most isize::MAX items), whose conversion
                // to f64 is one instruction where usize's is several.
                let len = (next - end + 1) as i64 as f64;
                for (j, cell) in grid[end..next].iter_mut().enumerate() {
                    *cell = lv + (v - lv) * (j as i64 + 1) as f64 / len;
                    line_finite &= cell.is_finite();
                }
            }
            // Only a line that overflows (values near f64::MAX) comes out of the final pass
            // otherwise, as the pass redraws infinite slots from their neighbours: such a line
            // stays only while the values so far are all finite, as the kernel always did.
            if !line_finite {
                let first_bad = *first_non_finite.get_or_insert_with(|| ys.iter().position(|v| !v.is_finite()));
                if first_bad.is_some_and(|i| i <= k) {
                    grid[end..next].fill(f64::NAN);
                }
            }
        } else {
            grid[end..next].fill(f64::NAN);
        }
        slot = next;
    }
    if poison.iter().any(|p| p.is_nan()) {
        fill_linear_between_finite(grid);
    }
    Ok(())
}

/// Copies the run of stamps one step apart at the start of `ts` (at most `out.len()` of them, at
/// least one when `out` has room) into `out` in the same pass that checks them, and returns its
/// length. A non-finite value turns a `poison` lane NaN, without a per-block reduction.
#[inline(always)]
fn copy_run<T: GridInstant>(ts: &[T], ys: &[f64], step: i64, out: &mut [f64], poison: &mut [f64; LANES]) -> usize {
    let m = ts.len().min(out.len());
    let (ts, ys, out) = (&ts[..m], &ys[..m], &mut out[..m]);
    let Some(&first) = ys.first() else { return 0 };
    out[0] = first;
    poison[0] += poison_of(first);
    let mut run = 1;
    // A block at a time, without early exits so that it is a few vector instructions. A block
    // that ends the run is still copied and checked whole: its slots past the run's end are
    // written again by the gap or the next run, and its values are this entity's all the same.
    let blocks = ts[1..].chunks_exact(LANES).zip(ts[..m - 1].chunks_exact(LANES)).zip(ys[1..].chunks_exact(LANES));
    for (((t, prev), v), o) in blocks.zip(out[1..].chunks_exact_mut(LANES)) {
        let mut breaks = 0u32;
        for j in 0..LANES {
            o[j] = v[j];
            breaks |= u32::from(!t[j].is_next(prev[j], step)) << j;
            poison[j] += poison_of(v[j]);
        }
        if breaks != 0 {
            return run + breaks.trailing_zeros() as usize;
        }
        run += LANES;
    }
    while run < m && ts[run].is_next(ts[run - 1], step) {
        out[run] = ys[run];
        poison[0] += poison_of(ys[run]);
        run += 1;
    }
    run
}

/// Stamps checked (and values copied) per block: four f64 lanes of AVX2.
const LANES: usize = 4;

/// 0 for a finite `v`, NaN for an infinity or a NaN; a sum of these is NaN once any value was not
/// finite.
#[inline(always)]
#[allow(clippy::eq_op)]
fn poison_of(v: f64) -> f64 {
    v - v
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

#[cfg(test)]
mod tests {
    use super::*;
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
    fn f64_steps_round_half_away_from_zero_as_round_does() {
        let tricky = [0.0, -0.0, 0.49999999999999994, 0.5, 1.5, 2.5, 3.4999999999999996, -0.3, -0.7, -2.5];
        let huge = [4503599627370495.5, 9007199254740993.0, 1.8446744073709552e19, 1e300, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
        for x in tricky.into_iter().chain(huge) {
            assert_eq!(x.steps_from(0.0, 1), x.round() as usize, "{x}");
            assert_eq!(x.steps_from_guess(0.0, 1, 3), x.round() as usize, "{x}");
        }
        assert_eq!(30.0f64.steps_from_guess(0.0, 10, 3), 3);
        assert_eq!(30.0f64.steps_from_guess(0.0, 10, 2), 3);
        assert_eq!(30i64.steps_from_guess(0, 10, 3), 3);
        assert_eq!(35i64.steps_from_guess(0, 10, 4), 3);
    }

    #[test]
    fn an_overflowing_line_is_redrawn_only_after_a_null_before_it() {
        let stamps = [0.0f64, 1.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        let (v, _) = regrid_impute(&stamps, &[1.0, -300.0, -1e308, 1.0, f64::NAN, 3.0, 4.0], &[0, 7], 1).unwrap();
        // Drawn while every value so far was finite, then its infinite slot drawn again by the pass.
        assert_eq!(&v[..5], &[1.0, -300.0, -300.0 + (-1e308 + 300.0) / 3.0, -6.666666666666667e307, -1e308]);
        assert_eq!(v[6], 2.0);
        // After a null the pass draws the whole grid with the service's fill, which stays finite
        // where `right - left` times the step overflows.
        let (v, _) = regrid_impute(&stamps, &[f64::NAN, -300.0, -1e308, 1.0, 2.0, 3.0, 4.0], &[0, 7], 1).unwrap();
        assert_eq!(v[3], -6.666666666666666e307);
        // Without one, the slot keeps the fast path's line, as the plain-TypeScript path draws it.
        let (v, _) = regrid_impute(&stamps, &[1.0, -300.0, -1e308, 1.0, 2.0, 3.0, 4.0], &[0, 7], 1).unwrap();
        assert_eq!(v[3], f64::NEG_INFINITY);
    }

    /// Enough rows for the threads: the result (and the first error) is what each entity gives
    /// on its own, on one thread.
    #[test]
    fn threads_change_nothing_in_the_grids_or_the_error() {
        let (mut stamps, mut y, mut indptr) = (Vec::new(), Vec::new(), vec![0usize]);
        for e in 0..150u64 {
            let mut t = 1.7e15;
            for i in 0..1100u64 {
                let h = (e * 7919 + i * 104_729) % 1000;
                t += 3.6e9 * if h < 30 { 2.0 } else if h < 33 { 9.0 } else { 1.0 };
                stamps.push(t);
                y.push(if h == 500 { f64::NAN } else if h == 501 { f64::INFINITY } else { (i as f64).sin() * 10.0 });
            }
            indptr.push(stamps.len());
        }
        let step = 3_600_000_000;
        let (out, offsets) = regrid_impute(&stamps, &y, &indptr, step).unwrap();
        assert!(out.len() >= MIN_KERNEL_ROWS);
        for (e, w) in indptr.windows(2).enumerate() {
            let (one, _) = regrid_impute(&stamps[w[0]..w[1]], &y[w[0]..w[1]], &[0, w[1] - w[0]], step).unwrap();
            let same = one.iter().zip(&out[offsets[e]..offsets[e + 1]]).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same && one.len() == offsets[e + 1] - offsets[e], "entity {e}");
        }
        // Two bad stamps far apart: the first is reported, whichever thread meets it.
        let (late, early) = (indptr[140] + 5, indptr[3] + 700);
        stamps[late] += 1.0;
        stamps[early] = stamps[early - 1];
        assert_eq!(regrid_impute(&stamps, &y, &indptr, step), Err(OffGrid { index: early }));
    }
}
