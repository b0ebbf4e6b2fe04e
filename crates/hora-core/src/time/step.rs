//! Stepping along a frequency and sizing a grid before building it.
//!
//! `s`, `min`, `h` are exact durations on UTC instants. `d`, `w`, `B` and the month family move
//! on the zone's wall clock (date changes, local time of day kept) and are then converted back
//! with the DST rule of `zone.rs`, so local midnight survives daylight saving. In UTC and in
//! zones without DST both readings agree. Month-family steps land on the frequency's anchor
//! (day 1, the month's last day, or `M@<day>` clamped to the month's length), so stepping from a
//! grid point and back returns to it. Callers build a grid as `step(origin, k)` for k = 0..n
//! rather than chaining steps, so a DST-shifted point never drifts the rest of the grid.

use super::civil::{
    civil_from_days, days_from_civil, days_in_month, in_supported_range, split_day, weekday, MICROS_PER_DAY,
};
use super::freq::{Freq, FreqUnit};
use super::zone::{from_wall, skipped_days, to_wall, written_wall, ZoneRule};
use super::Micros;

/// `t` moved by `n` steps of `freq` (n may be negative). `None` when `t` or the result lies
/// outside years 1 to 9999 or the arithmetic would overflow.
pub fn step(t: Micros, n: i64, freq: &Freq, zone: ZoneRule) -> Option<Micros> {
    if !in_supported_range(t) {
        return None;
    }
    if n == 0 {
        return Some(t);
    }
    let k = i64::from(freq.n);
    let out = match freq.unit {
        FreqUnit::Second | FreqUnit::Minute | FreqUnit::Hour => {
            t.checked_add(n.checked_mul(freq.fixed_step_micros()?)?)?
        }
        FreqUnit::Day => shift_days(t, n.checked_mul(k)?, zone)?,
        FreqUnit::Week => shift_days(t, n.checked_mul(k)?.checked_mul(7)?, zone)?,
        FreqUnit::BusinessDay => business(t, n, zone)?,
        _ => months(t, n.checked_mul(freq.months()?)?, freq.unit, zone)?,
    };
    in_supported_range(out).then_some(out)
}

fn shift_days(t: Micros, days: i64, zone: ZoneRule) -> Option<Micros> {
    let wall = to_wall(t, zone).checked_add(days.checked_mul(MICROS_PER_DAY)?)?;
    // The range is the instants', not the wall clock's: 10000-01-01 in Tokyo is 9999-12-31 UTC.
    let next = from_wall(wall, zone).0;
    in_supported_range(next).then_some(next)
}

fn business(t: Micros, n: i64, zone: ZoneRule) -> Option<Micros> {
    let (days, tod) = split_day(to_wall(t, zone));
    let wd = i64::from(weekday(days));
    // A weekend start counts as the Friday before (forward) or the Monday after (backward).
    let (days, wd) = match (wd >= 5, n > 0) {
        (true, true) => (days - (wd - 4), 4),
        (true, false) => (days + (7 - wd), 0),
        _ => (days, wd),
    };
    let target = |steps: i64| -> Option<i64> {
        let total = wd.checked_add(steps)?;
        Some(days - wd + total.div_euclid(5).checked_mul(7)? + total.rem_euclid(5))
    };
    // A business day the zone skipped whole (Pacific/Apia, Friday 2011-12-30) is stepped over like
    // a weekend day: each one passed costs one step more, until the count settles.
    let skipped = skipped_days(zone);
    let mut steps = n;
    let new_days = loop {
        let end = target(steps)?;
        let (lo, hi) = if n > 0 { (days + 1, end) } else { (end, days - 1) };
        let lost = skipped.iter().filter(|&&d| (lo..=hi).contains(&d) && weekday(d) < 5).count() as i64;
        let needed = n.checked_add(n.signum() * lost)?;
        if needed == steps {
            break end;
        }
        steps = needed;
    };
    let wall = new_days.checked_mul(MICROS_PER_DAY)?.checked_add(tod)?;
    in_supported_range(wall).then(|| from_wall(wall, zone).0)
}

/// Whether month `m` is one `unit` steps through: calendar quarters for `QS` (January, April,
/// July, October) and `QE` (March, June, September, December), January for `YS`, December for
/// `YE`, every month for the other units.
fn is_anchor_month(unit: FreqUnit, m: u32) -> bool {
    match unit {
        FreqUnit::QuarterStart => m % 3 == 1,
        FreqUnit::QuarterEnd => m.is_multiple_of(3),
        FreqUnit::YearStart => m == 1,
        FreqUnit::YearEnd => m == 12,
        _ => true,
    }
}

/// Which of `freq`'s calendar grids holds `t`: two stamps with the same phase lie on one grid
/// `step(origin, k)`. The phase is the local time of day and the position within a step of several
/// days, weeks or months. `None` when no grid of `freq` holds `t`: a month-family stamp off its
/// anchor day or month, a weekend day for `B`. A stamp a spring-forward moved is read at the wall
/// time it was written as, where the grid places it. Sub-daily frequencies have no calendar phase.
pub fn calendar_phase(t: Micros, freq: &Freq, zone: ZoneRule) -> Option<(i64, i64)> {
    let (days, tod) = split_day(written_wall(t, zone).unwrap_or_else(|| to_wall(t, zone)));
    let n = i64::from(freq.n);
    match freq.unit {
        FreqUnit::Second | FreqUnit::Minute | FreqUnit::Hour => None,
        FreqUnit::Day => Some((tod, days.rem_euclid(n))),
        FreqUnit::Week => Some((tod, days.rem_euclid(7 * n))),
        FreqUnit::BusinessDay => (weekday(days) < 5).then_some((tod, 0)),
        unit => {
            let (y, m, d) = civil_from_days(days);
            let on_anchor = d == anchor_day(unit, y, m) && is_anchor_month(unit, m);
            on_anchor.then(|| (tod, (y * 12 + i64::from(m) - 1).rem_euclid(freq.months().unwrap_or(1))))
        }
    }
}

/// The anchored day of a month-family frequency in month `m` of year `y`.
pub fn anchor_day(unit: FreqUnit, y: i64, m: u32) -> u32 {
    let dim = days_in_month(y, m);
    match unit {
        FreqUnit::MonthEnd | FreqUnit::QuarterEnd | FreqUnit::YearEnd => dim,
        FreqUnit::MonthDay(d) => u32::from(d).min(dim),
        _ => 1,
    }
}

fn months(t: Micros, add: i64, unit: FreqUnit, zone: ZoneRule) -> Option<Micros> {
    let (days, tod) = split_day(to_wall(t, zone));
    let (y, m, _) = civil_from_days(days);
    let idx = (y.checked_mul(12)? + i64::from(m) - 1).checked_add(add)?;
    let (y2, m2) = (idx.div_euclid(12), (idx.rem_euclid(12) + 1) as u32);
    // A local date one year past either end can still be an instant inside years 1 to 9999.
    if !(0..=10_000).contains(&y2) {
        return None;
    }
    let wall = days_from_civil(y2, m2, anchor_day(unit, y2, m2)) * MICROS_PER_DAY + tod;
    let next = from_wall(wall, zone).0;
    in_supported_range(next).then_some(next)
}

/// Number of grid points `start, step(start, 1), ...` up to and including `end`, computed
/// without building the grid (so a two-row input spanning centuries at `1s` is refused by its
/// size, not by running out of memory). `None` when `end < start` or either lies outside
/// years 1 to 9999.
pub fn grid_len(start: Micros, end: Micros, freq: &Freq, zone: ZoneRule) -> Option<u64> {
    if end < start || !in_supported_range(start) || !in_supported_range(end) {
        return None;
    }
    if freq.is_sub_daily() {
        let s = freq.fixed_step_micros()?;
        return Some(((end - start) / s) as u64 + 1);
    }
    // Estimate the step count from calendar distance, then correct it by stepping (exact).
    let (d0, _) = split_day(to_wall(start, zone));
    let (d1, _) = split_day(to_wall(end, zone));
    let mut k = match freq.unit {
        FreqUnit::Day => (d1 - d0) / i64::from(freq.n),
        FreqUnit::Week => (d1 - d0) / (7 * i64::from(freq.n)),
        FreqUnit::BusinessDay => (d1 - d0) * 5 / 7,
        _ => {
            let (y0, m0, _) = civil_from_days(d0);
            let (y1, m1, _) = civil_from_days(d1);
            ((y1 - y0) * 12 + i64::from(m1) - i64::from(m0)) / freq.months()?
        }
    };
    let le_end = |k: i64| step(start, k, freq, zone).is_some_and(|t| t <= end);
    // The estimate is off by at most a few steps; the loops are bounded by that.
    while k > 0 && !le_end(k) {
        k -= 1;
    }
    while le_end(k + 1) {
        k += 1;
    }
    Some(k as u64 + 1)
}

#[cfg(test)]
mod tests {
    use super::super::civil::days_from_civil;
    use super::super::zone::{parse_zone, skipped_days};
    use super::*;

    fn at_local_midnight(y: i64, m: u32, d: u32, zone: ZoneRule) -> Micros {
        from_wall(days_from_civil(y, m, d) * MICROS_PER_DAY, zone).0
    }

    #[test]
    fn the_days_a_zone_skipped_whole_are_found_once_and_most_zones_have_none() {
        let apia = parse_zone("Pacific/Apia").unwrap();
        assert_eq!(&*skipped_days(apia), &[days_from_civil(2011, 12, 30)]);
        assert!(skipped_days(parse_zone("Europe/Berlin").unwrap()).is_empty());
        assert!(skipped_days(ZoneRule::Fixed(3600)).is_empty());
    }

    #[test]
    fn business_steps_pass_over_a_skipped_weekday_alike_in_one_step_or_many() {
        let apia = parse_zone("Pacific/Apia").unwrap();
        let b = Freq::new(1, FreqUnit::BusinessDay);
        let monday = at_local_midnight(2011, 12, 26, apia);
        // Mon 26, Tue 27, Wed 28, Thu 29, (Fri 30 skipped), Mon 2 January, Tue 3.
        let expected: Vec<Micros> = [(2011, 12, 26), (2011, 12, 27), (2011, 12, 28), (2011, 12, 29), (2012, 1, 2), (2012, 1, 3)]
            .iter()
            .map(|&(y, m, d)| at_local_midnight(y, m, d, apia))
            .collect();
        let jumped: Vec<Micros> = (0..6).map(|k| step(monday, k, &b, apia).unwrap()).collect();
        assert_eq!(jumped, expected);
        let mut chained = vec![monday];
        for _ in 1..6 {
            chained.push(step(*chained.last().unwrap(), 1, &b, apia).unwrap());
        }
        assert_eq!(chained, expected);
        for (k, &t) in expected.iter().enumerate() {
            assert_eq!(step(t, -(k as i64), &b, apia), Some(monday), "back {k} from {t}");
        }
    }

    #[test]
    fn a_skipped_weekend_day_costs_no_business_step() {
        // Kwajalein skipped Saturday 1993-08-21 (from -12 to +12): Friday's next business day is
        // still Monday the 23rd.
        let kwajalein = parse_zone("Pacific/Kwajalein").unwrap();
        assert!(skipped_days(kwajalein).contains(&days_from_civil(1993, 8, 21)));
        let b = Freq::new(1, FreqUnit::BusinessDay);
        let friday = at_local_midnight(1993, 8, 20, kwajalein);
        assert_eq!(step(friday, 1, &b, kwajalein), Some(at_local_midnight(1993, 8, 23, kwajalein)));
        assert_eq!(step(friday, 2, &b, kwajalein), Some(at_local_midnight(1993, 8, 24, kwajalein)));
    }
}
