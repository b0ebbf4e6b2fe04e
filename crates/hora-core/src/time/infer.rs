//! Frequency inference for one entity, robust to gaps, duplicates and a few off-grid stamps.
//!
//! Candidates are scored by their on-grid share: the share of distinct stamps that lie on one grid
//! of the candidate (same phase, same local time of day, same anchor). The most common step
//! decides the candidate step, so gaps (which make longer steps) do not move it.
//! - sub-daily steps (`s`, `min`, `h` multiples) are measured on UTC instants;
//! - day and week steps are measured on the zone's wall clock, and also as exact hours on UTC
//!   (`24h`) for data that really steps 24 h across DST; the wall-clock reading wins a tie;
//! - the month family (`MS`, `ME`, `M@<day>`, `QS`, `QE`, `YS`, `YE` and multiples) is tried when the
//!   most common step is 28 days or more, on the wall clock;
//! - `B` when allowed, for daily data with no weekend dates and at least one Friday-to-Monday step.
//!
//! A candidate also needs support: at least half of the intervals between neighbouring stamps
//! must be exactly one step (otherwise a fine grid such as `1min` would "fit" any irregular data
//! with huge gaps). The best supported candidate must have an on-grid share of at least 0.9
//! (else `FREQ_INFERENCE_FAILED`); two different candidates with the same best share are
//! `FREQ_AMBIGUOUS`.

use super::civil::{
    civil_from_days, days_in_month, in_supported_range, split_day, weekday, MICROS_PER_DAY, MICROS_PER_HOUR,
    MICROS_PER_MINUTE, MICROS_PER_SECOND,
};
use super::freq::{Freq, FreqUnit, MAX_MULTIPLE};
use super::step::anchor_day;
use super::zone::{to_wall, written_wall, ZoneRule};
use super::Micros;
use crate::error::{ErrorCode, HoraError};

/// More than this share of an entity's stamps off the grid makes its frequency unusable
/// (`FREQ_INFERENCE_FAILED`, contract), whether the frequency was inferred or sent.
pub const MAX_OFF_GRID_SHARE: f64 = 0.10;
/// Minimum share of neighbour intervals that are exactly one step.
pub const MIN_STEP_SUPPORT: f64 = 0.5;
/// Fewest distinct stamps inference works from.
pub const MIN_DISTINCT_STAMPS: usize = 3;
/// Intervals after which the sample-size factor of the confidence reaches 1.
const FULL_CONFIDENCE_INTERVALS: f64 = 10.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InferredFreq {
    pub freq: Freq,
    /// On-grid share times a sample-size factor `min(1, intervals / 10)`, in [0, 1].
    pub confidence: f64,
}

#[derive(Debug, Clone, Copy)]
struct Candidate {
    freq: Freq,
    share: f64,
    /// Share of neighbour intervals that are exactly one step.
    support: f64,
}

fn failed(message: String) -> HoraError {
    HoraError::new(ErrorCode::FreqInferenceFailed, message)
}

/// Infers the frequency of one entity's instants (sorted; duplicates allowed).
pub fn infer_freq(instants_sorted: &[Micros], zone: ZoneRule, allow_business: bool) -> Result<InferredFreq, HoraError> {
    let mut t: Vec<Micros> = instants_sorted.to_vec();
    if !t.is_sorted() {
        t.sort_unstable();
    }
    t.dedup();
    if t.iter().any(|&x| !in_supported_range(x)) {
        return Err(failed("timestamps lie outside the years 1 to 9999".into()));
    }
    if t.len() < MIN_DISTINCT_STAMPS {
        return Err(failed(format!(
            "at least {MIN_DISTINCT_STAMPS} distinct timestamps are needed to infer a frequency; found {}",
            t.len()
        ))
        .with("distinct_timestamps", t.len()));
    }
    let wall: Vec<Micros> = t.iter().map(|&x| to_wall(x, zone)).collect();
    // Asked only of the few stamps off a wall-clock reading's mode.
    let written = |i: usize| written_wall(t[i], zone);
    let mut cands = Vec::new();
    if let Some(c) = fixed_candidate(&t, false, &|_| None) {
        cands.push(c);
    }
    if let Some(c) = fixed_candidate(&wall, true, &written) {
        cands.push(c);
    }
    let wall_step = mode_delta(&wall);
    if wall_step >= 28 * MICROS_PER_DAY {
        if let Some(c) = month_candidate(&wall, &written) {
            cands.push(c);
        }
    }
    if allow_business && wall_step == MICROS_PER_DAY {
        if let Some(c) = business_candidate(&wall, &written) {
            cands.push(c);
        }
    }
    choose(cands, t.len())
}

fn choose(cands: Vec<Candidate>, distinct: usize) -> Result<InferredFreq, HoraError> {
    let mut cands: Vec<Candidate> = cands.into_iter().filter(|c| c.support >= MIN_STEP_SUPPORT).collect();
    // On an equal share: B beats d, wall-clock days beat UTC hours; a month-family reading and a
    // day/week reading with the same share are genuinely ambiguous.
    cands.sort_by(|a, b| b.share.total_cmp(&a.share).then(rank(&b.freq).cmp(&rank(&a.freq))));
    cands.dedup_by(|a, b| a.freq == b.freq);
    let Some(best) = cands.first().copied() else {
        return Err(failed(
            "no stable frequency: no step separates at least half of the neighbouring timestamps \
             (steps under one second are not supported)"
                .into(),
        ));
    };
    if 1.0 - best.share > MAX_OFF_GRID_SHARE {
        return Err(failed(format!(
            "no stable frequency: the best candidate {} leaves {:.1} % of the timestamps off its grid (at most {} % allowed)",
            best.freq.canonical(),
            (1.0 - best.share) * 100.0,
            MAX_OFF_GRID_SHARE * 100.0
        ))
        .with("candidate", best.freq.canonical())
        .with("on_grid_share", round3(best.share)));
    }
    if let Some(second) = cands.get(1) {
        if second.share == best.share && rank(&second.freq) == rank(&best.freq) {
            let list: Vec<String> = cands
                .iter()
                .filter(|c| c.share == best.share && rank(&c.freq) == rank(&best.freq))
                .map(|c| c.freq.canonical())
                .collect();
            return Err(HoraError::new(
                ErrorCode::FreqAmbiguous,
                format!("several frequencies fit the timestamps equally well: {}; send freq", list.join(", ")),
            )
            .with("candidates", list));
        }
    }
    let sample = ((distinct - 1) as f64 / FULL_CONFIDENCE_INTERVALS).min(1.0);
    Ok(InferredFreq { freq: best.freq, confidence: round3(best.share * sample) })
}

/// Preference between candidates with the same share (higher wins).
fn rank(f: &Freq) -> u8 {
    match f.unit {
        FreqUnit::BusinessDay => 3,
        FreqUnit::Second | FreqUnit::Minute | FreqUnit::Hour => 1,
        _ => 2,
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Most common positive difference between neighbours (sorted instants); the smaller one on a tie.
pub(super) fn mode_delta(v: &[Micros]) -> i64 {
    mode_delta_count(v).0
}

/// Most common positive neighbour difference and the share of intervals equal to it.
fn mode_delta_count(v: &[Micros]) -> (i64, f64) {
    let mut d: Vec<i64> = v.windows(2).map(|w| w[1] - w[0]).filter(|&x| x > 0).collect();
    d.sort_unstable();
    let m = mode_of_sorted(&d).unwrap_or(0);
    let support = d.iter().filter(|&&x| x == m).count() as f64 / (v.len() - 1).max(1) as f64;
    (m, support)
}

fn mode_of_sorted(d: &[i64]) -> Option<i64> {
    let (mut best, mut best_n, mut i) = (None, 0, 0);
    while i < d.len() {
        let j = i + d[i..].iter().take_while(|&&x| x == d[i]).count();
        if j - i > best_n {
            best = Some(d[i]);
            best_n = j - i;
        }
        i = j;
    }
    best
}

/// The most common phase of `v` on a grid of `step` (the smallest on a tie, so the answer does
/// not depend on row order).
pub(super) fn modal_phase(v: &[Micros], step: i64) -> i64 {
    let mut r: Vec<i64> = v.iter().map(|x| x.rem_euclid(step)).collect();
    r.sort_unstable();
    mode_of_sorted(&r).unwrap_or(0)
}

/// Share of values on the most common phase of a grid of `step`; a value also counts when the
/// wall time it was written as (`written`) is on that phase.
fn phase_share(v: &[Micros], step: i64, written: &dyn Fn(usize) -> Option<Micros>) -> f64 {
    let m = modal_phase(v, step);
    let on = |i: usize| v[i].rem_euclid(step) == m || written(i).is_some_and(|w| w.rem_euclid(step) == m);
    (0..v.len()).filter(|&i| on(i)).count() as f64 / v.len() as f64
}

/// A fixed step read on UTC (`wall = false`: `s`/`min`/`h` tokens) or on the wall clock (`wall`:
/// only whole-day steps, as `d`/`w`).
fn fixed_candidate(v: &[Micros], wall: bool, written: &dyn Fn(usize) -> Option<Micros>) -> Option<Candidate> {
    let (step, support) = mode_delta_count(v);
    if step <= 0 || step % MICROS_PER_SECOND != 0 {
        return None;
    }
    let freq = if wall {
        if step % MICROS_PER_DAY != 0 {
            return None;
        }
        let days = step / MICROS_PER_DAY;
        if days % 7 == 0 {
            Freq::new(u32::try_from(days / 7).ok()?, FreqUnit::Week)
        } else {
            Freq::new(u32::try_from(days).ok()?, FreqUnit::Day)
        }
    } else if step % MICROS_PER_HOUR == 0 {
        Freq::new(u32::try_from(step / MICROS_PER_HOUR).ok()?, FreqUnit::Hour)
    } else if step % MICROS_PER_MINUTE == 0 {
        Freq::new(u32::try_from(step / MICROS_PER_MINUTE).ok()?, FreqUnit::Minute)
    } else {
        Freq::new(u32::try_from(step / MICROS_PER_SECOND).ok()?, FreqUnit::Second)
    };
    // A step no `freq` string may name (1,000,001 hours) is no candidate: the service would echo
    // a token it refuses when sent back.
    if freq.n > MAX_MULTIPLE {
        return None;
    }
    Some(Candidate { freq, share: phase_share(v, step, written), support })
}

struct Civil {
    month_index: i64,
    year: i64,
    month: u32,
    day: u32,
    tod: i64,
}

fn civil(wall: Micros) -> Civil {
    let (days, tod) = split_day(wall);
    let (year, month, day) = civil_from_days(days);
    Civil { month_index: year * 12 + i64::from(month) - 1, year, month, day, tod }
}

/// Month-family candidate: the most common month step, the best anchor, then quarter/year names.
fn month_candidate(wall: &[Micros], written: &dyn Fn(usize) -> Option<Micros>) -> Option<Candidate> {
    let c: Vec<Civil> = wall.iter().map(|&w| civil(w)).collect();
    let mut steps: Vec<i64> = c.windows(2).map(|w| w[1].month_index - w[0].month_index).filter(|&x| x > 0).collect();
    steps.sort_unstable();
    let k = mode_of_sorted(&steps)?;
    let support = steps.iter().filter(|&&x| x == k).count() as f64 / (c.len() - 1) as f64;
    let mut tods: Vec<i64> = c.iter().map(|x| x.tod).collect();
    tods.sort_unstable();
    let tod = mode_of_sorted(&tods)?;
    let mut phases: Vec<i64> = c.iter().map(|x| x.month_index.rem_euclid(k)).collect();
    phases.sort_unstable();
    let phase = mode_of_sorted(&phases)?;
    // The fixed day: the most common day of month among days short of the month's end.
    let mut days: Vec<i64> =
        c.iter().filter(|x| x.day < days_in_month(x.year, x.month)).map(|x| i64::from(x.day)).collect();
    days.sort_unstable();
    let mut units = vec![FreqUnit::MonthStart, FreqUnit::MonthEnd];
    if let Some(d) = mode_of_sorted(&days).filter(|&d| d > 1) {
        units.push(FreqUnit::MonthDay(d as u8));
    }
    let share_of = |unit: FreqUnit| {
        let fits = |x: &Civil| x.tod == tod && x.month_index.rem_euclid(k) == phase && x.day == anchor_day(unit, x.year, x.month);
        let on = (0..c.len()).filter(|&i| fits(&c[i]) || written(i).is_some_and(|w| fits(&civil(w)))).count();
        on as f64 / c.len() as f64
    };
    // First listed wins a tie: MS, then ME, then M@<day>.
    let (unit, share) =
        units.into_iter().map(|u| (u, share_of(u))).fold(None, |best: Option<(FreqUnit, f64)>, cur| match best {
            Some(b) if b.1 >= cur.1 => Some(b),
            _ => Some(cur),
        })?;
    let month_of_year = (phase.rem_euclid(12) + 1) as u32; // valid when k divides 12 or is a multiple
    let n = u32::try_from(k).ok()?;
    let freq = match unit {
        FreqUnit::MonthStart if k % 12 == 0 && phase % 12 == 0 => Freq::new(n / 12, FreqUnit::YearStart),
        FreqUnit::MonthEnd if k % 12 == 0 && phase % 12 == 11 => Freq::new(n / 12, FreqUnit::YearEnd),
        FreqUnit::MonthStart if k % 3 == 0 && month_of_year % 3 == 1 => Freq::new(n / 3, FreqUnit::QuarterStart),
        FreqUnit::MonthEnd if k % 3 == 0 && month_of_year.is_multiple_of(3) => Freq::new(n / 3, FreqUnit::QuarterEnd),
        u => Freq::new(n, u),
    };
    Some(Candidate { freq, share, support })
}

/// `B`: daily stamps, none on a weekend, and at least one Friday -> Monday step in the data.
fn business_candidate(wall: &[Micros], written: &dyn Fn(usize) -> Option<Micros>) -> Option<Candidate> {
    let days: Vec<(i64, i64)> = wall.iter().map(|&w| split_day(w)).collect();
    if days.iter().any(|&(d, _)| weekday(d) >= 5) {
        return None;
    }
    let one_step = |w: &[(i64, i64)]| w[1].0 - w[0].0 == if weekday(w[0].0) == 4 { 3 } else { 1 };
    if !days.windows(2).any(|w| weekday(w[0].0) == 4 && w[1].0 - w[0].0 == 3) {
        return None;
    }
    let support = days.windows(2).filter(|w| one_step(w)).count() as f64 / (days.len() - 1) as f64;
    let mut tods: Vec<i64> = days.iter().map(|x| x.1).collect();
    tods.sort_unstable();
    let tod = mode_of_sorted(&tods)?;
    let on = |i: usize| days[i].1 == tod || written(i).is_some_and(|w| split_day(w).1 == tod);
    let share = (0..days.len()).filter(|&i| on(i)).count() as f64 / days.len() as f64;
    Some(Candidate { freq: Freq::new(1, FreqUnit::BusinessDay), share, support })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::zone::from_wall;

    fn cand(s: &str, share: f64) -> Candidate {
        Candidate { freq: Freq::parse(s, true).unwrap(), share, support: 1.0 }
    }

    #[test]
    fn a_month_and_a_week_reading_with_the_same_best_share_are_freq_ambiguous() {
        let err = choose(vec![cand("4w", 0.95), cand("MS", 0.95), cand("672h", 0.95)], 20).unwrap_err();
        assert_eq!(err.code, ErrorCode::FreqAmbiguous);
        assert_eq!(err.details["candidates"], serde_json::json!(["4w", "MS"]));
    }

    #[test]
    fn business_days_beat_days_and_wall_days_beat_utc_hours_on_a_tie() {
        assert_eq!(choose(vec![cand("d", 1.0), cand("B", 1.0)], 20).unwrap().freq.canonical(), "B");
        assert_eq!(choose(vec![cand("24h", 1.0), cand("d", 1.0)], 20).unwrap().freq.canonical(), "d");
    }

    /// Sundays at `hh:mm` Berlin wall time from 2024-03-03 (the fifth is 2024-03-31, whose 02:30
    /// was skipped), read as the grid reads them.
    fn berlin_sundays(n: i64, hh: u32, mm: u32) -> Vec<Micros> {
        let zone = ZoneRule::Iana(chrono_tz::Europe::Berlin);
        let first = chrono::NaiveDate::from_ymd_opt(2024, 3, 3).unwrap().and_hms_opt(hh, mm, 0).unwrap();
        (0..n).map(|k| from_wall((first + chrono::Duration::weeks(k)).and_utc().timestamp_micros(), zone).0).collect()
    }

    #[test]
    fn a_stamp_a_spring_forward_moved_counts_on_the_wall_clock_grid_it_was_written_for() {
        // Found by audit: 02:30 on 2024-03-31 reads 03:30, and counted as off the weekly grid.
        let zone = ZoneRule::Iana(chrono_tz::Europe::Berlin);
        let nine = infer_freq(&berlin_sundays(9, 2, 30), zone, false).unwrap();
        assert_eq!((nine.freq.canonical(), nine.confidence), ("w".to_string(), 0.8));
        assert_eq!(infer_freq(&berlin_sundays(20, 2, 30), zone, false).unwrap().confidence, 1.0);
        // A stamp really written at 03:30 among 02:30 ones is still off the grid, on any day
        // but the one whose 02:30 was skipped.
        let mut t = berlin_sundays(20, 2, 30);
        t[10] += MICROS_PER_HOUR;
        assert_eq!(infer_freq(&t, zone, false).unwrap().confidence, 0.95);
        // Days at 02:00 on Lord Howe, whose 02:00 of 2024-10-06 was skipped (a half-hour gap).
        let howe = ZoneRule::Iana(chrono_tz::Australia::Lord_Howe);
        let first = chrono::NaiveDate::from_ymd_opt(2024, 9, 27).unwrap().and_hms_opt(2, 0, 0).unwrap();
        let days: Vec<Micros> = (0..20).map(|k| from_wall((first + chrono::Duration::days(k)).and_utc().timestamp_micros(), howe).0).collect();
        let daily = infer_freq(&days, howe, false).unwrap();
        assert_eq!((daily.freq.canonical(), daily.confidence), ("d".to_string(), 1.0));
    }

    #[test]
    fn unsupported_candidates_are_dropped_and_confidence_grows_with_the_sample() {
        let weak = Candidate { support: 0.4, ..cand("min", 1.0) };
        assert_eq!(choose(vec![weak], 20).unwrap_err().code, ErrorCode::FreqInferenceFailed);
        assert_eq!(choose(vec![cand("h", 0.95)], 6).unwrap().confidence, 0.475);
        assert_eq!(choose(vec![cand("h", 0.95)], 40).unwrap().confidence, 0.95);
    }
}
