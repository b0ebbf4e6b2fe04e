//! Property tests of the time engine over every frequency unit (with multiples) and several zones,
//! DST zones on both hemispheres and half-hour offsets included.

mod time_support;

use chrono::NaiveDate;
use hora_core::time::{self, Freq, FreqUnit, Micros, ZoneRule};
use proptest::prelude::*;

const ZONES: &[&str] = &[
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "Australia/Sydney",
    "Asia/Kolkata",
    "America/St_Johns",
    "Pacific/Chatham",
];

fn freq_strategy() -> impl Strategy<Value = Freq> {
    prop_oneof![
        (1u32..60).prop_map(|n| Freq::new(n, FreqUnit::Second)),
        (1u32..60).prop_map(|n| Freq::new(n, FreqUnit::Minute)),
        (1u32..24).prop_map(|n| Freq::new(n, FreqUnit::Hour)),
        (1u32..7).prop_map(|n| Freq::new(n, FreqUnit::Day)),
        (1u32..4).prop_map(|n| Freq::new(n, FreqUnit::Week)),
        (1u32..5).prop_map(|n| Freq::new(n, FreqUnit::MonthStart)),
        (1u32..5).prop_map(|n| Freq::new(n, FreqUnit::MonthEnd)),
        ((1u32..3), (2u8..=31)).prop_map(|(n, d)| Freq::new(n, FreqUnit::MonthDay(d))),
        (1u32..3).prop_map(|n| Freq::new(n, FreqUnit::QuarterStart)),
        (1u32..3).prop_map(|n| Freq::new(n, FreqUnit::QuarterEnd)),
        (1u32..3).prop_map(|n| Freq::new(n, FreqUnit::YearStart)),
        (1u32..3).prop_map(|n| Freq::new(n, FreqUnit::YearEnd)),
        Just(Freq::new(1, FreqUnit::BusinessDay)),
    ]
}

fn days_in_month(y: i32, m: u32) -> u32 {
    let next = if m == 12 { NaiveDate::from_ymd_opt(y + 1, 1, 1) } else { NaiveDate::from_ymd_opt(y, m + 1, 1) };
    next.unwrap().pred_opt().unwrap().day0() + 1
}

use chrono::Datelike;

/// A grid origin on the frequency's anchor, at a local time of day that no zone above skips or
/// repeats in these years.
fn origin(freq: &Freq, zone: ZoneRule, y: i32, m: u32, d: u32, tod_pick: usize, secs: u32) -> Micros {
    let dim = days_in_month(y, m);
    let day = match freq.unit {
        FreqUnit::MonthStart | FreqUnit::QuarterStart | FreqUnit::YearStart => 1,
        FreqUnit::MonthEnd | FreqUnit::QuarterEnd | FreqUnit::YearEnd => dim,
        FreqUnit::MonthDay(k) => u32::from(k).min(dim),
        _ => d,
    };
    let mut date = NaiveDate::from_ymd_opt(y, m, day).unwrap();
    if freq.unit == FreqUnit::BusinessDay {
        while date.weekday().number_from_monday() > 5 {
            date = date.succ_opt().unwrap();
        }
    }
    let (h, mi, s) = if freq.is_sub_daily() {
        (secs / 3600 % 24, secs / 60 % 60, secs % 60)
    } else {
        [(0, 0, 0), (6, 0, 0), (12, 0, 0), (18, 30, 0)][tod_pick % 4]
    };
    let wall = date.and_hms_opt(h, mi, s).unwrap().and_utc().timestamp_micros();
    time::from_wall(wall, zone).0
}

/// The named zones, plus fixed offsets that no IANA zone names (+05:30, -09:30, +05:45).
fn zone_strategy() -> impl Strategy<Value = ZoneRule> {
    prop_oneof![
        4 => (0..ZONES.len()).prop_map(|i| time::parse_zone(ZONES[i]).unwrap()),
        1 => prop_oneof![Just(ZoneRule::Fixed(19_800)), Just(ZoneRule::Fixed(-34_200)), Just(ZoneRule::Fixed(20_700))],
    ]
}

fn origin_strategy() -> impl Strategy<Value = (Freq, ZoneRule, Micros)> {
    (freq_strategy(), zone_strategy(), 2012i32..2040, 1u32..=12, 1u32..=28, 0usize..4, 0u32..86_400)
        .prop_map(|(f, z, y, m, d, t, s)| (f, z, origin(&f, z, y, m, d, t, s)))
}

/// Two frequencies are the same when they generate the same grid from the same origin.
fn same_grid(a: &Freq, b: &Freq, origin: Micros, zone: ZoneRule) -> bool {
    (0..24).all(|k| time::step(origin, k, a, zone) == time::step(origin, k, b, zone))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn stepping_n_times_then_back_lands_on_the_start((f, zone, t0) in origin_strategy(), n in -60i64..60) {
        let t1 = time::step(t0, n, &f, zone).unwrap();
        prop_assert_eq!(time::step(t1, -n, &f, zone), Some(t0), "{} in {}", f.canonical(), zone.name());
        prop_assert_eq!(t1 > t0, n > 0);
    }

    #[test]
    fn grid_points_round_trip_through_utc_and_local_strings((f, zone, t0) in origin_strategy(), k in 0i64..40) {
        let t = time::step(t0, k, &f, zone).unwrap();
        let utc = time::format_utc(t);
        let local = &time::format_utc(time::to_wall(t, zone))[..19];
        let parsed_utc = time::parse_stamps([(0, utc.as_str())], None, None).unwrap();
        let parsed_local = time::parse_stamps([(0, local)], Some(zone), None).unwrap();
        prop_assert_eq!(parsed_utc.instants[0], t);
        // A wall time that a fall-back repeats reads as its earlier instant (docs/time.md), so the
        // later one comes back as the earlier (found by proptest: 22h steps in America/New_York
        // reaching 2012-11-04T01:00 EST).
        let back = parsed_local.instants[0];
        prop_assert_eq!(time::to_wall(back, zone), time::to_wall(t, zone), "{} read in {}", local, zone.name());
        prop_assert!(back == t || (back < t && t - back <= 2 * 3_600_000_000), "{} read in {}: {} for {}", local, zone.name(), back, t);
        if back == t {
            prop_assert_eq!(time::format_utc(back), utc);
        }
    }

    #[test]
    fn any_instant_round_trips_through_its_utc_string(secs in -62_135_596_800i64..253_402_300_799) {
        let t = secs * 1_000_000;
        let s = time::format_utc(t);
        prop_assert_eq!(time::parse_stamps([(0, s.as_str())], None, None).unwrap().instants[0], t, "{}", s);
    }

    #[test]
    fn grid_len_counts_the_points_up_to_a_stepped_end((f, zone, t0) in origin_strategy(), k in 0i64..500) {
        let end = time::step(t0, k, &f, zone).unwrap();
        prop_assert_eq!(time::grid_len(t0, end, &f, zone), Some(k as u64 + 1));
        if k > 0 {
            prop_assert_eq!(time::grid_len(t0, end - 1, &f, zone), Some(k as u64));
        }
    }

    #[test]
    fn inferred_freq_of_a_regular_grid_with_gaps_is_the_generating_freq(
        (f, zone, t0) in origin_strategy(),
        len in 50usize..160,
        drops in proptest::collection::vec(any::<prop::sample::Index>(), 0..5),
    ) {
        let mut grid: Vec<Micros> = (0..len as i64).map(|k| time::step(t0, k, &f, zone).unwrap()).collect();
        // Up to 10 % random gaps: at most len / 10 dropped points.
        let mut dropped: Vec<usize> = drops.iter().take(len / 10).map(|i| i.index(len)).collect();
        dropped.sort_unstable();
        dropped.dedup();
        for i in dropped.into_iter().rev() {
            grid.remove(i);
        }
        let got = time::infer_freq(&grid, zone, true).unwrap();
        prop_assert!(same_grid(&got.freq, &f, t0, zone), "inferred {} for {} in {}", got.freq.canonical(), f.canonical(), zone.name());
        prop_assert!(got.confidence >= 0.9);
    }
}
