//! Stamps off the grid and the regular grid itself (`grid.regrid` inserts its empty slots).

use super::decisions::{Decision, DecisionId};
use super::kernels;
use super::options::Resolved;
use super::policy::MAX_OFF_GRID_SHARE;
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
    let (on, off): (Vec<usize>, Vec<usize>) = match freq.fixed_step {
        Some(step) => {
            let phase = kernels::modal_phase(&p.ts, step);
            (0..p.ts.len()).partition(|&i| p.ts[i].rem_euclid(step) == phase)
        }
        None => {
            let mut grid = vec![p.ts[0]];
            let last = p.ts[p.ts.len() - 1];
            while let Some(&t) = grid.last().filter(|&&t| t < last) {
                grid.push(stamps::step(t, 1, freq, zone));
            }
            (0..p.ts.len()).partition(|&i| grid.binary_search(&p.ts[i]).is_ok())
        }
    };
    let share = off.len() as f64 / p.ts.len() as f64;
    if share > MAX_OFF_GRID_SHARE || on.is_empty() {
        return Err(share);
    }
    let (start, end) = (p.ts[on[0]], p.ts[on[on.len() - 1]]);
    let len = stamps::grid_len(start, end, freq, zone) as usize;
    let grid: Vec<i64> = match freq.fixed_step {
        Some(step) => (0..len as i64).map(|k| start + k * step).collect(),
        None => {
            let mut g = Vec::with_capacity(len);
            let mut t = start;
            while t <= end {
                g.push(t);
                t = stamps::step(t, 1, freq, zone);
            }
            g
        }
    };
    let mut values = vec![f64::NAN; grid.len()];
    let mut from_row = vec![false; grid.len()];
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

/// The `grid.drop_off_grid` decision, when stamps fell off the grid.
pub fn off_grid_decision(p: &Prepared, placed: &Placed, res: &Resolved) -> Option<Decision> {
    (!placed.off_grid.is_empty()).then(|| {
        Decision::new(DecisionId::DropOffGrid, &p.unique_id, placed.off_grid.len(), res)
            .with_stamps(placed.off_grid.iter().copied())
    })
}
