//! Stamps off the grid and the regular grid itself (`grid.regrid` inserts its empty slots), and
//! the implied grid checked against the cap before any is allocated.

use super::decisions::{Decision, DecisionId};
use super::fill;
use super::entity;
use super::long_gap;
use super::policy::GRID_CAP;
use crate::error::{ErrorCode, HoraError};
use super::options::Resolved;
use crate::time::MAX_OFF_GRID_SHARE;
use super::prepare::Prepared;
use super::stamps::{self, FreqSpec, Zone};
use std::collections::BTreeMap;

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
        // Calendar steps: the grid runs through the first stamp of the phase most stamps share
        // (ties: the latest stamp's), as for fixed steps. A stamp off its anchor (the 15th for
        // `MS`, a Saturday for `B`) is on no grid, so it can never be the origin.
        None => match calendar_origin(&p.ts, freq, zone) {
            Some(a) => calendar_grid(p, a, freq, zone),
            None => (Vec::new(), Vec::new(), (0..p.ts.len()).collect()),
        },
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

/// The stamp a calendar grid is built from: the first of the phase most stamps share (ties: the
/// latest stamp's phase), skipping stamps a spring-forward moved, whose wall time is not the
/// grid's. `None` when no stamp lies on any grid of `freq`.
fn calendar_origin(ts: &[i64], freq: &FreqSpec, zone: &Zone) -> Option<usize> {
    let phases: Vec<Option<(i64, i64)>> = ts.iter().map(|&t| stamps::calendar_phase(t, freq, zone)).collect();
    let latest = phases.iter().rev().flatten().next()?;
    let mut counts: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    for phase in phases.iter().flatten() {
        *counts.entry(*phase).or_default() += 1;
    }
    let best = counts.iter().max_by_key(|&(phase, &n)| (n, phase == latest)).map(|(phase, _)| *phase)?;
    let of_best = |i: &usize| phases[*i] == Some(best);
    (0..ts.len()).filter(of_best).find(|&i| !stamps::moved_by_gap(ts[i], zone)).or_else(|| (0..ts.len()).find(of_best))
}

/// Grid through stamp `a`, stepped from it both ways over the entity's stamps, trimmed to the
/// first and last on-grid stamp, with the on/off split.
fn calendar_grid(p: &Prepared, a: usize, freq: &FreqSpec, zone: &Zone) -> (Vec<i64>, Vec<usize>, Vec<usize>) {
    let (origin, first, last) = (p.ts[a], p.ts[0], p.ts[p.ts.len() - 1]);
    let mut grid: Vec<i64> = (1..).map_while(|k| stamps::step(origin, -k, freq, zone).filter(|&t| t >= first)).collect();
    grid.reverse();
    grid.extend((0..).map_while(|k| stamps::step(origin, k, freq, zone).filter(|&t| t <= last)));
    // A local day a zone skipped whole (Pacific/Apia, 2011-12-30) steps onto the next day's
    // instant: the grid keeps each instant once.
    grid.dedup();
    let (on, off): (Vec<usize>, Vec<usize>) = (0..p.ts.len()).partition(|&i| grid.binary_search(&p.ts[i]).is_ok());
    if let (Some(&a), Some(&b)) = (on.first(), on.last()) {
        let (lo, hi) = (grid.binary_search(&p.ts[a]).unwrap_or(0), grid.binary_search(&p.ts[b]).map_or(grid.len(), |k| k + 1));
        grid.truncate(hi);
        grid.drain(..lo);
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

/// The implied grid, checked arithmetically before any grid is allocated. Over the cap, entities
/// whose history before a long gap the split drops anyway are cut (`long_gap::presplit`; the cut
/// version of each such entity is returned at its index), largest grid first and only until the
/// total fits, so an entity that is not the cause keeps its own cleaning (its mask included);
/// the cap is then checked on what is kept.
pub(super) fn fit_grid(prepared: &[Prepared], zones: &[Zone], ctx: &entity::Ctx) -> crate::error::Result<Vec<Option<long_gap::Cut>>> {
    // An entity with no numeric y gets no grid (it is blocked SERIES_EMPTY instead).
    let size = |p: &Prepared, e: usize| if p.has_values() { implied_len(p, ctx.freq, &zones[e]) } else { 0 };
    let mut kept: Vec<u64> = prepared.iter().enumerate().map(|(e, p)| size(p, e)).collect();
    let mut cut: Vec<Option<long_gap::Cut>> = (0..prepared.len()).map(|_| None).collect();
    // A running total (u128: no entity count or grid size overflows it), not a sum per step.
    let mut total: u128 = kept.iter().map(|&k| u128::from(k)).sum();
    let mut largest_first: Vec<usize> = (0..prepared.len()).collect();
    largest_first.sort_by_key(|&e| std::cmp::Reverse(kept[e]));
    for e in largest_first {
        if total <= u128::from(GRID_CAP) {
            break;
        }
        if let Some(c) = long_gap::presplit(&prepared[e], &entity::Ctx { zone: &zones[e], ..*ctx }) {
            let now = size(&c.kept, e);
            total = total - u128::from(kept[e]) + u128::from(now);
            kept[e] = now;
            cut[e] = Some(c);
        }
    }
    let points = u64::try_from(total).unwrap_or(u64::MAX);
    if points <= GRID_CAP {
        return Ok(cut);
    }
    // The entity with the largest grid is named: one stray stamp is the usual cause.
    let largest = (0..kept.len()).max_by_key(|&e| kept[e]).unwrap_or(0);
    Err(HoraError::new(ErrorCode::PointsExceeded, "the implied regular grid is too large")
        .with("points", points)
        .with("cap", GRID_CAP)
        .with("unique_id", prepared[largest].unique_id.clone())
        .with("entity_points", kept[largest]))
}

/// `h` steps after an entity's last stamp would pass 9999-12-31, the last stamp the contract's
/// format can write: a wrong `h` for this data rather than a short forecast.
pub(super) fn horizon_past_calendar(unique_id: &str) -> HoraError {
    HoraError::field("h", format!("is too large for this data: that many steps after the last stamp of {} pass 9999-12-31T23:59:59Z", crate::time::quoted(unique_id))).with("unique_id", unique_id)
}
