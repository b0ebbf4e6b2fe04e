//! Frequency inference thresholds: how much of the data a step must explain, and when daily data
//! is business days.

mod time_support;

use hora_core::time::{self, ZoneRule};
use hora_core::ErrorCode;
use time_support::table_of;

/// UTC hourly stamps from 2024-01-01 separated by `gaps` hours, in order.
fn hours_apart(gaps: &[i64]) -> Vec<i64> {
    let mut t = 1_704_067_200_000_000i64;
    let mut out = vec![t];
    for g in gaps {
        t += g * 3_600_000_000;
        out.push(t);
    }
    out
}

fn days(dates: &[chrono::NaiveDate]) -> Vec<i64> {
    let ds: Vec<String> = dates.iter().map(|d| d.format("%Y-%m-%d").to_string()).collect();
    time::parse_entity(&table_of(&ds.iter().map(String::as_str).collect::<Vec<_>>()), 0, None, None).unwrap().instants
}

#[test]
fn a_step_is_inferred_when_it_separates_half_of_the_neighbouring_stamps_and_not_below() {
    // 10 of 20 intervals one hour apart: exactly half, so `h` holds.
    let half: Vec<i64> = [[1; 10], [2; 10]].concat();
    assert_eq!(time::infer_freq(&hours_apart(&half), ZoneRule::UTC, false).unwrap().freq.canonical(), "h");
    // 9 of 20 (45 %), the rest 2 and 3 hours: no step is supported.
    let under: Vec<i64> = [vec![1; 9], vec![2; 6], vec![3; 5]].concat();
    let err = time::infer_freq(&hours_apart(&under), ZoneRule::UTC, false).unwrap_err();
    assert_eq!(err.code, ErrorCode::FreqInferenceFailed);
}

#[test]
fn daily_data_with_a_saturday_is_not_business_days() {
    let start = chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap(); // a Monday
    let weekdays: Vec<chrono::NaiveDate> =
        (0..42).map(|k| start + chrono::Days::new(k)).filter(|d| chrono::Datelike::weekday(d).num_days_from_monday() < 5).collect();
    assert_eq!(time::infer_freq(&days(&weekdays), ZoneRule::UTC, true).unwrap().freq.canonical(), "B");
    let mut with_saturday = weekdays.clone();
    with_saturday.push(start + chrono::Days::new(12)); // Saturday 2024-01-13
    with_saturday.sort();
    assert_eq!(time::infer_freq(&days(&with_saturday), ZoneRule::UTC, true).unwrap().freq.canonical(), "d");
}

#[test]
fn a_step_past_the_largest_multiple_a_freq_may_name_is_not_inferred() {
    // 1,000,000 hours is the largest `freq` multiple; one hour more has no token the service accepts.
    assert_eq!(time::infer_freq(&hours_apart(&[1_000_000; 3]), ZoneRule::UTC, false).unwrap().freq.canonical(), "1000000h");
    let err = time::infer_freq(&hours_apart(&[1_000_001; 3]), ZoneRule::UTC, false).unwrap_err();
    assert_eq!(err.code, ErrorCode::FreqInferenceFailed);
}
