//! The forecast stamps after an entity's context: stepped on the grid's calendar, skipping what
//! the zone skipped, and ending short at year 9999 (docs/time.md).

use super::entity::Ctx;
use super::stamps::{self, Zone};

/// The `h` stamps after grid slot `last`, each stepped from the grid's origin as the grid itself
/// was, not chained from the last slot, which a DST gap may have moved off its wall-clock time
/// (docs/time.md). A step that lands on an instant already passed (a local day the zone skipped
/// whole) is skipped, as in the grid; a slot's step index is at least its position, so the search
/// starts there. Stamps past year 9999 end the list short; the pipeline refuses that.
fn forecast_stamps(grid: &[i64], last: usize, ctx: &Ctx) -> Vec<i64> {
    let mut out = Vec::with_capacity(ctx.h);
    let mut prev = grid[last];
    let base = step_base(grid, last, ctx.zone);
    // Skipped whole days are rare: a bounded search, never an endless one.
    for k in (last + 1 - base)..=(last - base + 2 * ctx.h + 64) {
        if out.len() == ctx.h {
            break;
        }
        match stamps::step(grid[base], k as i64, ctx.freq, ctx.zone) {
            Some(t) if t > prev => {
                out.push(t);
                prev = t;
            }
            Some(_) => {}
            None => break,
        }
    }
    out
}

/// The slot forecast stamps step from: the first a spring-forward did not move (a moved slot's
/// wall time is not the grid's, 02:30 read as 03:30, and steps from it would keep 03:30).
fn step_base(grid: &[i64], last: usize, zone: &Zone) -> usize {
    (0..=last).find(|&i| !stamps::moved_by_gap(grid[i], zone)).unwrap_or(0)
}

/// The forecast stamps after grid slot `last` when `ctx.list_forecast_stamps` (else none), and
/// whether fewer than `h` of them fit the calendar.
pub(super) fn horizon(grid: &[i64], last: usize, ctx: &Ctx) -> (Vec<i64>, bool) {
    if ctx.list_forecast_stamps {
        let listed = forecast_stamps(grid, last, ctx);
        let short = listed.len() < ctx.h;
        (listed, short)
    } else {
        (Vec::new(), !horizon_fits(grid, last, ctx))
    }
}

/// Whether [`forecast_stamps`] would list all `h` stamps, without listing them (a dry run's
/// entity with no future rows: 100,000 entities at h = 2048 would step 2 x 10^8 stamps). A
/// stamp is skipped only where the zone skipped a whole local day, so with `s` such days the
/// list is whole when the (h + s)th step past the last slot exists, and short when the h-th
/// does not; in between (a skipped day and year 9999 in one horizon) the list decides.
fn horizon_fits(grid: &[i64], last: usize, ctx: &Ctx) -> bool {
    if ctx.h == 0 {
        return true;
    }
    let base = step_base(grid, last, ctx.zone);
    let skips = stamps::skipped_days(ctx.zone);
    let exists = |after: usize| stamps::step(grid[base], (last - base + after) as i64, ctx.freq, ctx.zone).is_some();
    if skips <= ctx.h + 64 && exists(ctx.h + skips) {
        return true;
    }
    if !exists(ctx.h) {
        return false;
    }
    forecast_stamps(grid, last, ctx).len() == ctx.h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clean::options::CleanOptions;
    use crate::clean::stamps::{parse_freq, parse_zone, FreqSpec};
    use crate::time::{days_from_civil, from_wall, MICROS_PER_DAY};

    /// A three-slot grid stepped from local midnight of day `d0` (days since 1970), as the grid
    /// stages step it: a step onto an instant already passed is no slot.
    fn grid_from(d0: i64, freq: &FreqSpec, zone: &Zone) -> Vec<i64> {
        let t0 = from_wall(d0 * MICROS_PER_DAY, zone.tz).0;
        let mut grid: Vec<i64> = Vec::new();
        for k in 0..3 {
            match stamps::step(t0, k, freq, zone) {
                Some(t) if grid.last().is_none_or(|&p| t > p) => grid.push(t),
                _ => {}
            }
        }
        grid
    }

    #[test]
    fn horizon_check_agrees_with_the_listed_stamps_across_skipped_days_and_year_9999() {
        let res = CleanOptions::default().resolve().unwrap();
        // Zones that skipped a whole local day, one that never did, and UTC.
        let skipped = [
            ("Pacific/Apia", days_from_civil(2011, 12, 30)),
            ("Pacific/Kiritimati", days_from_civil(1994, 12, 31)),
            ("Pacific/Kwajalein", days_from_civil(1993, 8, 21)),
            ("Asia/Manila", days_from_civil(1844, 12, 31)),
            ("Europe/Berlin", days_from_civil(2026, 3, 29)),
            ("UTC", days_from_civil(9999, 12, 31)),
        ];
        let (mut fits, mut short) = (0, 0);
        for (name, day) in skipped {
            let zone = parse_zone(Some(name)).unwrap();
            for token in ["D", "2D", "W", "B", "MS", "ME", "h"] {
                let freq = parse_freq(token, true).unwrap();
                for d0 in (day - 70..=day + 2).chain(days_from_civil(9999, 9, 1)..=days_from_civil(9999, 12, 31)) {
                    let grid = grid_from(d0, &freq, &zone);
                    if grid.is_empty() {
                        continue;
                    }
                    for h in [1, 2, 3, 5, 8, 13, 40] {
                        let ctx = Ctx { freq: &freq, zone: &zone, res: &res, limits: None, h, period: 2, list_forecast_stamps: false };
                        let listed = forecast_stamps(&grid, grid.len() - 1, &ctx).len() == h;
                        assert_eq!(horizon_fits(&grid, grid.len() - 1, &ctx), listed, "{name} {token} from day {d0}, h = {h}");
                        if listed { fits += 1 } else { short += 1 }
                    }
                }
            }
        }
        // Both answers were reached, so the agreement is not one answer everywhere.
        assert!(fits > 1000 && short > 100, "{fits} fit, {short} short");
    }

    #[test]
    fn a_daily_horizon_fits_up_to_the_last_day_of_year_9999() {
        let res = CleanOptions::default().resolve().unwrap();
        let (zone, freq) = (parse_zone(None).unwrap(), parse_freq("D", false).unwrap());
        let grid = grid_from(days_from_civil(9999, 12, 23), &freq, &zone);
        let fits = |h| horizon_fits(&grid, 2, &Ctx { freq: &freq, zone: &zone, res: &res, limits: None, h, period: 2, list_forecast_stamps: false });
        // The grid ends on 25 December: 26 to 31 December are six stamps.
        assert!(fits(6));
        assert!(!fits(7));
    }
}
