//! Calendar frequencies and zones through the cleaning stage: month grids, DST days, non-ISO formats.

mod clean_common;
use clean_common::*;
use serde_json::json;

fn micros_of(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp_micros()
}

#[test]
fn a_missing_month_is_regridded_on_the_calendar_and_the_forecast_steps_by_month() {
    let rows: Vec<Row> = (0..24)
        .filter(|m| *m != 7)
        .map(|m| ("a".to_string(), format!("{}-{:02}-01", 2024 + m / 12, m % 12 + 1), Some(m as f64)))
        .collect();
    let out = run(&table(&rows), Some("MS"), 2, &opts(json!({}))).unwrap();
    let e = &out.entities[0];
    assert_eq!(e.values.len(), 24);
    assert_eq!(e.values[7], 7.0);
    assert_eq!(e.forecast_stamps, vec![micros_of("2026-01-01T00:00:00Z"), micros_of("2026-02-01T00:00:00Z")]);
    assert_eq!(decisions(out.report.as_ref().unwrap(), "grid.regrid")[0]["count"], 1);
}

#[test]
fn inferred_month_end_data_is_echoed_with_its_canonical_token() {
    let rows: Vec<Row> = (0..20)
        .map(|m| {
            let (y, mo) = (2024 + m / 12, m % 12 + 1);
            let next = chrono::NaiveDate::from_ymd_opt((y + mo / 12) as i32, (mo % 12 + 1) as u32, 1).unwrap();
            ("a".to_string(), format!("{}", next.pred_opt().unwrap()), Some(m as f64))
        })
        .collect();
    let out = run(&table(&rows), None, 1, &opts(json!({}))).unwrap();
    assert_eq!(out.freq, "ME");
    assert_eq!(out.entities[0].values.len(), 20);
}

#[test]
fn daily_local_midnights_across_daylight_saving_stay_on_one_grid() {
    // Europe/Berlin switches to summer time on 2026-03-29: local midnights are 23 h apart there.
    let rows: Vec<Row> = (0..30)
        .map(|k| {
            let d = chrono::NaiveDate::from_ymd_opt(2026, 3, 15).unwrap() + chrono::Days::new(k);
            ("a".to_string(), format!("{d}T00:00:00"), Some(k as f64))
        })
        .collect();
    let out = run(&table(&rows), Some("D"), 1, &opts(json!({"timezone": "Europe/Berlin"}))).unwrap();
    let e = &out.entities[0];
    assert_eq!(e.values.len(), 30);
    assert!(out.report.as_ref().unwrap()["decisions"].as_array().unwrap().is_empty());
    // 2026-04-14 local midnight is 22:00Z the day before.
    assert_eq!(e.forecast_stamps, vec![micros_of("2026-04-13T22:00:00Z")]);
    assert_eq!(out.report.unwrap()["series"][0]["timezone"]["source"], "option");
}

#[test]
fn a_non_iso_format_is_recorded_as_a_timestamp_format_issue() {
    let rows: Vec<Row> = (0..20)
        .map(|k| {
            let d = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap() + chrono::Days::new(k);
            ("a".to_string(), d.format("%Y%m%d").to_string(), Some(k as f64))
        })
        .collect();
    let out = run(&table(&rows), Some("D"), 1, &opts(json!({}))).unwrap();
    let issues = &out.report.unwrap()["series"][0]["issues"];
    assert!(issues.as_array().unwrap().iter().any(|i| i["code"] == "timestamp_format" && i["format"] == "compact_date"));
}

/// First days of every third month from `first_month` (1-based), `n` of them.
fn quarterly_from(first_month: i64, n: i64) -> Vec<Row> {
    (0..n)
        .map(|q| {
            let idx = first_month - 1 + 3 * q;
            ("a".to_string(), format!("{}-{:02}-01", 2010 + idx / 12, idx % 12 + 1), Some(q as f64))
        })
        .collect()
}

#[test]
fn quarter_and_year_frequencies_are_calendar_quarters_and_years() {
    // On calendar quarters, QS works and forecasts the next quarter starts.
    let out = run(&table(&quarterly_from(1, 20)), Some("QS"), 2, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].forecast_stamps, vec![micros_of("2015-01-01T00:00:00Z"), micros_of("2015-04-01T00:00:00Z")]);
    // Starts of February, May, August and November are not quarter starts: every stamp is off the
    // QS grid, as inference would say (it finds 3MS for them).
    let err = run(&table(&quarterly_from(2, 20)), Some("QS"), 2, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, hora_core::ErrorCode::FreqInferenceFailed);
    let out = run(&table(&quarterly_from(2, 20)), None, 2, &opts(json!({}))).unwrap();
    assert_eq!(out.freq, "3MS");
    assert_eq!(out.entities[0].forecast_stamps, vec![micros_of("2015-02-01T00:00:00Z"), micros_of("2015-05-01T00:00:00Z")]);
    // Yearly data on 30 June is not year-end data; on 31 December it is.
    let june: Vec<Row> = (0..20).map(|y| ("a".to_string(), format!("{}-06-30", 2000 + y), Some(y as f64))).collect();
    assert_eq!(run(&table(&june), Some("YE"), 1, &opts(json!({}))).unwrap_err().code, hora_core::ErrorCode::FreqInferenceFailed);
    let december: Vec<Row> = (0..20).map(|y| ("a".to_string(), format!("{}-12-31", 2000 + y), Some(y as f64))).collect();
    let out = run(&table(&december), Some("YE"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].forecast_stamps, vec![micros_of("2020-12-31T00:00:00Z")]);
}

#[test]
fn a_first_stamp_off_the_month_grid_is_dropped_and_the_grid_starts_at_the_next_one() {
    // The origin is the best of the first stamps: a stray noon first row must not put every later
    // midnight row off the grid.
    let mut rows: Vec<Row> = vec![("a".to_string(), "2024-01-01T12:00:00Z".to_string(), Some(-1.0))];
    rows.extend((1..21).map(|m| ("a".to_string(), format!("{}-{:02}-01T00:00:00Z", 2024 + m / 12, m % 12 + 1), Some(m as f64))));
    let out = run(&table(&rows), Some("MS"), 1, &opts(json!({}))).unwrap();
    let e = &out.entities[0];
    assert_eq!(e.values, (1..21).map(|m| m as f64).collect::<Vec<_>>());
    let dropped = decisions(out.report.as_ref().unwrap(), "grid.drop_off_grid");
    assert_eq!(dropped[0]["count"], 1);
}
