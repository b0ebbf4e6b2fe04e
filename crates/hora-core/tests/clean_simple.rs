//! The simple path the forecast route relies on first: ISO stamps with offsets, explicit fixed
//! freq, sorted rows, default preset, no gaps.

mod clean_common;
use clean_common::*;
use serde_json::json;

#[test]
fn clean_sorted_hourly_series_passes_through_unchanged() {
    let t = table(&[hourly("a", 40), hourly("b", 20)].concat());
    let out = run(&t, Some("h"), 3, &opts(json!({}))).unwrap();
    assert_eq!(out.freq, "h");
    assert_eq!(out.inferred_freq, None);
    assert_eq!(out.entities.len(), 2);
    let a = &out.entities[0];
    assert_eq!(a.unique_id, "a");
    assert_eq!(a.values, (0..40).map(|k| 10.0 + k as f64).collect::<Vec<_>>());
    assert_eq!(a.forecast_stamps, vec![micros(40), micros(41), micros(42)]);
    assert_eq!(json_of(&a.model_input)["context_points"], 40);
    assert_eq!(json_of(&a.model_input)["fed_points"], 40);
    assert_eq!(json_of(&a.model_input)["truncated"], 0);
    assert_eq!(json_of(&a.model_input)["missing_mode"], "filled");
    assert_eq!(out.input_data_points, 60);
    assert_eq!(quality(&out)["status"], "ok");
    assert_eq!(quality(&out)["missing_ratio"], 0.0);
    assert_eq!(quality(&out)["inferred_freq"], serde_json::Value::Null);
    let report = report_value(&out);
    assert_eq!(report["schema_version"], "cleaning_report/1");
    assert_eq!(report["policy"]["id"], "default@2026-13");
    assert_eq!(report["overall"]["series_count"], 2);
    assert_eq!(report["overall"]["input_points"], 60);
    assert_eq!(report["overall"]["output_points"], 60);
    assert_eq!(report["decisions"], json!([]));
    assert_eq!(report["series"][0]["timezone"]["source"], "explicit_offset");
    assert!(out.warnings.is_empty());
}

#[test]
fn offsets_other_than_utc_are_read_with_their_own_offset() {
    let rows: Vec<Row> = (0..20)
        .map(|k| ("a".to_string(), format!("2026-01-01T{:02}:00:00+02:00", k), Some(1.0 + k as f64)))
        .collect();
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"timezone": "America/New_York"}))).unwrap();
    // 2026-01-01T19:00+02:00 is 17:00Z; the next stamp is 18:00Z.
    assert_eq!(out.entities[0].forecast_stamps, vec![micros(18)]);
    assert_eq!(quality(&out)["timezone_normalized"], true);
    assert_eq!(report_value(&out)["series"][0]["timezone"]["explicit_offsets"], json!(["+02:00"]));
}

/// Month ends (or starts) at local midnight written with one constant offset, e.g. +01:00.
fn monthly_at_offset(month_end: bool, offset: &str, months: i32) -> Vec<Row> {
    use chrono::{Datelike, Months, NaiveDate};
    (0..months)
        .map(|i| {
            let (y, m) = (2022 + i / 12, (i % 12) as u32 + 1);
            let first = NaiveDate::from_ymd_opt(y, m, 1).unwrap();
            let day = if month_end { (first + Months::new(1)).pred_opt().unwrap().day() } else { 1 };
            ("a".to_string(), format!("{y}-{m:02}-{day:02}T00:00:00{offset}"), Some(10.0 + i as f64))
        })
        .collect()
}

#[test]
fn monthly_data_at_one_fixed_offset_steps_on_that_offsets_calendar() {
    // A whole hour is IANA's Etc/GMT zone; +05:30 has none, so the offset itself is the calendar
    // (docs/time.md). The next two periods after June 2024 come at local midnight.
    let cases = [
        ("+01:00", "Etc/GMT-1", ["2024-07-30T23:00:00Z", "2024-08-30T23:00:00Z"], ["2024-06-30T23:00:00Z", "2024-07-31T23:00:00Z"]),
        ("+05:30", "+05:30", ["2024-07-30T18:30:00Z", "2024-08-30T18:30:00Z"], ["2024-06-30T18:30:00Z", "2024-07-31T18:30:00Z"]),
    ];
    for (offset, used, ends, starts) in cases {
        for (month_end, freq) in [(true, "ME"), (false, "MS")] {
            let out = run(&table(&monthly_at_offset(month_end, offset, 30)), None, 2, &opts(json!({}))).unwrap();
            assert_eq!(out.inferred_freq.as_deref(), Some(freq), "{offset} month_end {month_end}");
            let report = report_value(&out);
            assert_eq!(report["series"][0]["timezone"]["used"], used);
            assert_eq!(report["decisions"], json!([]));
            let got: Vec<String> = out.entities[0].forecast_stamps.iter().map(|&t| hora_core::time::format_utc(t)).collect();
            assert_eq!(got, if month_end { ends } else { starts }, "{offset} month_end {month_end}");
        }
    }
}

#[test]
fn naive_stamps_read_in_utc_under_another_name_are_not_normalized() {
    let rows: Vec<Row> = (0..20).map(|k| ("a".to_string(), format!("2026-01-01T{:02}:00:00", k), Some(k as f64))).collect();
    for (zone, normalized) in [("UTC", false), ("Etc/UTC", false), ("GMT", false), ("Zulu", false), ("Europe/London", true), ("Asia/Tokyo", true)] {
        let out = run(&table(&rows), Some("h"), 1, &opts(json!({"timezone": zone}))).unwrap();
        assert_eq!(quality(&out)["timezone_normalized"], normalized, "{zone}");
    }
}

#[test]
fn stamps_written_in_utc_are_not_timezone_normalized() {
    for suffix in ["Z", "+00:00", "-00:00"] {
        let rows: Vec<Row> = (0..20).map(|k| ("a".to_string(), format!("2026-01-01T{k:02}:00:00{suffix}"), Some(k as f64))).collect();
        let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
        assert_eq!(quality(&out)["timezone_normalized"], false, "{suffix}");
    }
}

#[test]
fn forecast_stamps_keep_a_fraction_of_a_second_and_are_written_with_it_cut() {
    // Every stamp .5 s past the hour: the grid and the forecast stamps keep the half second, and
    // a response writes each to the second it falls in (docs/time.md), 23:59:59.5 staying on its day.
    let rows: Vec<Row> = (0..20).map(|k| ("a".to_string(), format!("2026-01-01T{:02}:59:59.500Z", k + 2), Some(k as f64))).collect();
    let out = run(&table(&rows), Some("h"), 2, &opts(json!({}))).unwrap();
    let half = 500_000;
    // The last row is 21:59:59.5.
    assert_eq!(out.entities[0].forecast_stamps, vec![micros(23) - half, micros(24) - half]);
    let got: Vec<String> = out.entities[0].forecast_stamps.iter().map(|&t| hora_core::time::format_utc(t)).collect();
    assert_eq!(got, ["2026-01-01T22:59:59Z", "2026-01-01T23:59:59Z"]);
}
