//! Stamps off the grid and the regular grid itself (`grid.regrid` inserts its empty slots).

use super::decisions::{Decision, DecisionId};
use super::fill;
use super::options::Resolved;
use crate::time::MAX_OFF_GRID_SHARE;
use super::prepare::Prepared;
use super::stamps::{self, FreqSpec, Zone};

/// An entity placed on its regular grid.
#[derive(Debug, Clone)]
pub struct Placed {
    /// Grid stamps from the first to the last on-grid stamp.
    pub grid: Vec<i64>,
    /// Value per slot; NaN for inserted slots and for rows holding `null`.
    pub values: Vec<f64>,
    /// Slot holds a row (observed stamp), even when its value is `null`.
    pub from_row: Vec<bool>,
    pub off_grid: Vec<i64>,
}

/// Upper bound of the grid length of an entity, computed without allocating.
pub fn implied_len(p: &Prepared, freq: &FreqSpec, zone: &Zone) -> u64 {
    match (p.ts.first(), p.ts.last()) {
        (Some(&a), Some(&b)) => stamps::grid_len(a, b, freq, zone),
        _ => 0,
    }
}

/// Places the entity's stamps on the grid. Returns the share of stamps off the grid when it is too
/// high to trust the frequency.
pub fn place(p: &Prepared, freq: &FreqSpec, zone: &Zone) -> Result<Placed, f64> {
    let (grid, on, off) = match freq.fixed_step {
        Some(step) => {
            let phase = fill::modal_phase(&p.ts, step);
            let (on, off): (Vec<usize>, Vec<usize>) = (0..p.ts.len()).partition(|&i| p.ts[i].rem_euclid(step) == phase);
            let grid = match (on.first(), on.last()) {
                (Some(&a), Some(&b)) => {
                    let (start, end) = (p.ts[a], p.ts[b]);
                    (0..=(end - start) / step).map(|k| start + k * step).collect()
                }
                _ => Vec::new(),
            };
            (grid, on, off)
        }
        // Calendar steps: the grid runs from one of the first stamps (the one that puts the most
        // stamps on it), built as `step(origin, k)` so a DST shift never drifts it. Quarters and
        // years are calendar ones: only a stamp in an anchor month can be the origin.
        None => (0..p.ts.len())
            .filter(|&a| stamps::in_anchor_month(p.ts[a], freq, zone))
            .take(3)
            .map(|a| calendar_grid(p, a, freq, zone))
            .max_by_key(|(_, on, _)| on.len())
            .unwrap_or_else(|| (Vec::new(), Vec::new(), (0..p.ts.len()).collect())),
    };
    let share = off.len() as f64 / p.ts.len() as f64;
    if share > MAX_OFF_GRID_SHARE || on.is_empty() {
        return Err(share);
    }
    let mut values = vec![f64::NAN; grid.len()];
    let mut from_row = vec![false; grid.len()];
    let start = grid[0];
    for &i in &on {
        let k = match freq.fixed_step {
            Some(step) => ((p.ts[i] - start) / step) as usize,
            None => grid.binary_search(&p.ts[i]).unwrap_or(0),
        };
        values[k] = p.y[i];
        from_row[k] = true;
    }
    Ok(Placed { grid, values, from_row, off_grid: off.iter().map(|&i| p.ts[i]).collect() })
}

/// Grid from stamp `a` to the last stamp, trimmed to the last on-grid stamp, with the on/off split.
fn calendar_grid(p: &Prepared, a: usize, freq: &FreqSpec, zone: &Zone) -> (Vec<i64>, Vec<usize>, Vec<usize>) {
    let origin = p.ts[a];
    let last = p.ts[p.ts.len() - 1];
    let mut grid = Vec::new();
    for k in 0.. {
        match stamps::step(origin, k, freq, zone) {
            // A local day a zone skipped whole (Pacific/Apia, 2011-12-30) steps onto the next
            // day's instant: the grid keeps each instant once.
            Some(t) if t <= last => {
                if grid.last().is_none_or(|&prev| t > prev) {
                    grid.push(t);
                }
            }
            _ => break,
        }
    }
    let (on, off): (Vec<usize>, Vec<usize>) = (0..p.ts.len()).partition(|&i| grid.binary_search(&p.ts[i]).is_ok());
    if let Some(&b) = on.last() {
        grid.truncate(grid.binary_search(&p.ts[b]).map_or(grid.len(), |k| k + 1));
    }
    (grid, on, off)
}

/// The `grid.drop_off_grid` decision, when stamps fell off the grid.
pub fn off_grid_decision(p: &Prepared, placed: &Placed, res: &Resolved) -> Option<Decision> {
    (!placed.off_grid.is_empty()).then(|| {
        Decision::new(DecisionId::DropOffGrid, &p.unique_id, placed.off_grid.len(), res)
            .with_stamps(placed.off_grid.iter().copied())
    })
}
