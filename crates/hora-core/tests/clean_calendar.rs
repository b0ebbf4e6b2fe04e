//! Calendar frequencies and zones through the cleaning stage: month grids, DST days, non-ISO formats.

mod clean_common;
use clean_common::*;
use hora_core::clean::Purpose;
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
    assert_eq!(decisions(&report_value(&out), "grid.regrid")[0]["count"], 1);
}

#[test]
fn inferred_month_end_data_is_echoed_with_its_canonical_token() {
    let rows: Vec<Row> = (0..20)
        .map(|m| {
            let (y, mo) = (2024 + m / 12, m % 12 + 1);
            let next = chrono::NaiveDate::from_ymd_opt(y + mo / 12, (mo % 12 + 1) as u32, 1).unwrap();
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
    let rows = daily("2026-03-15", 30, |d| format!("{d}T00:00:00"));
    let out = run(&table(&rows), Some("D"), 1, &opts(json!({"timezone": "Europe/Berlin"}))).unwrap();
    let e = &out.entities[0];
    assert_eq!(e.values.len(), 30);
    assert!(report_value(&out)["decisions"].as_array().unwrap().is_empty());
    // 2026-04-14 local midnight is 22:00Z the day before.
    assert_eq!(e.forecast_stamps, vec![micros_of("2026-04-13T22:00:00Z")]);
    assert_eq!(report_value(&out)["series"][0]["timezone"]["source"], "option");
}

#[test]
fn a_non_iso_format_is_recorded_as_a_timestamp_format_issue() {
    let rows = daily("2026-01-01", 20, |d| d.format("%Y%m%d").to_string());
    let out = run(&table(&rows), Some("D"), 1, &opts(json!({}))).unwrap();
    let issues = &report_value(&out)["series"][0]["issues"];
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
    let report = report_value(&out);
    let dropped = decisions(&report, "grid.drop_off_grid");
    assert_eq!(dropped[0]["count"], 1);
}

/// Monthly rows on the 1st from 2022-01, with the stamp of row `i` replaced by `stamp`.
fn month_starts_with(i: usize, stamp: &str) -> Vec<Row> {
    (0..24)
        .map(|m| {
            let ds = if m == i { stamp.to_string() } else { format!("{}-{:02}-01", 2022 + m / 12, m % 12 + 1) };
            ("a".to_string(), ds, Some(m as f64))
        })
        .collect()
}

fn dropped_stamps(out: &hora_core::clean::Cleaned) -> Vec<String> {
    let report = &report_value(out);
    decisions(report, "grid.drop_off_grid").iter().flat_map(|d| d["stamps"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string())).collect()
}

#[test]
fn a_first_stamp_off_its_anchor_day_is_dropped_not_made_the_grid_origin() {
    for freq in ["MS", "M@1"] {
        let out = run(&table(&month_starts_with(0, "2022-01-15")), Some(freq), 1, &opts(json!({}))).unwrap();
        assert_eq!(dropped_stamps(&out), vec!["2022-01-15T00:00:00Z"], "{freq}");
        assert_eq!(out.entities[0].values, (1..24).map(|m| m as f64).collect::<Vec<_>>(), "{freq}");
    }
}

#[test]
fn an_off_anchor_second_stamp_is_dropped_and_the_anchored_first_one_kept() {
    // 2022-02-20 and 2022-01-01 each put 23 stamps on a grid through them; only the 1st is a
    // month start, so 2022-02-20 is dropped and 2022-02-01 regridded.
    let out = run(&table(&month_starts_with(1, "2022-02-20")), Some("MS"), 1, &opts(json!({}))).unwrap();
    assert_eq!(dropped_stamps(&out), vec!["2022-02-20T00:00:00Z"]);
    let e = &out.entities[0];
    assert_eq!((e.values.len(), e.values[0]), (24, 0.0));
    assert_eq!(decisions(&report_value(&out), "grid.regrid")[0]["count"], 1);
}

#[test]
fn a_saturday_before_business_days_is_off_the_business_day_grid() {
    // 2023-12-30 is a Saturday; 2024-01-01 a Monday.
    let mut rows: Vec<Row> = vec![("a".to_string(), "2023-12-30".to_string(), Some(-1.0))];
    let mut d = chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    while rows.len() < 26 {
        if chrono::Datelike::weekday(&d).num_days_from_monday() < 5 {
            rows.push(("a".to_string(), d.to_string(), Some(rows.len() as f64)));
        }
        d = d.succ_opt().unwrap();
    }
    let out = run(&table(&rows), Some("B"), 1, &opts(json!({}))).unwrap();
    assert_eq!(dropped_stamps(&out), vec!["2023-12-30T00:00:00Z"]);
    assert_eq!(out.entities[0].values.len(), 25);
}

#[test]
fn three_leading_stamps_off_the_daily_time_of_day_are_dropped_and_the_rest_cleaned() {
    // 3 % of the stamps off the grid: under the 10 % that fails a frequency, with or without freq.
    let rows = daily("2024-01-01", 100, |d| format!("{d}T{}:00Z", if d.to_string().as_str() < "2024-01-04" { "00:30" } else { "00:00" }));
    for freq in [None, Some("d")] {
        let out = run(&table(&rows), freq, 1, &opts(json!({}))).unwrap();
        assert_eq!(dropped_stamps(&out).len(), 3, "{freq:?}");
        assert_eq!(out.entities[0].values.len(), 97, "{freq:?}");
    }
}

#[test]
fn daily_data_starting_on_a_skipped_wall_time_keeps_its_first_row_and_forecasts_at_the_written_time() {
    // 2024-03-31 02:30 does not exist in Berlin (read 03:30, 01:30Z); the days after are at 02:30.
    let rows = daily("2024-03-31", 20, |d| format!("{d}T02:30:00"));
    let out = run(&table(&rows), Some("D"), 1, &opts(json!({"timezone": "Europe/Berlin"}))).unwrap();
    assert!(dropped_stamps(&out).is_empty());
    assert_eq!(out.entities[0].values, (0..20).map(|k| k as f64).collect::<Vec<_>>());
    // 2024-04-20 02:30 CEST.
    assert_eq!(out.entities[0].forecast_stamps, vec![micros_of("2024-04-20T00:30:00Z")]);
}

#[test]
fn a_daily_stamp_sent_twice_on_the_fall_back_day_is_a_duplicate_and_the_last_row_is_kept() {
    // 2024-10-27 02:30 repeats in Berlin. In hourly data a second 02:30 is the repeated hour's
    // second pass; in daily data it can only be a duplicate, so the last row sent wins.
    for day in ["2024-10-27", "2024-10-15"] {
        let mut rows = daily("2024-10-10", 25, |d| format!("{d}T02:30:00"));
        let at = rows.iter().position(|r| r.1.starts_with(day)).unwrap();
        rows.insert(at + 1, ("a".to_string(), format!("{day}T02:30:00"), Some(999.0)));
        let out = run(&table(&rows), Some("D"), 1, &opts(json!({"timezone": "Europe/Berlin"}))).unwrap();
        let report = &report_value(&out);
        assert!(dropped_stamps(&out).is_empty(), "{day}");
        assert_eq!(decisions(report, "ds.dedupe")[0]["count"], 1, "{day}");
        let e = &out.entities[0];
        assert_eq!(e.values.len(), 25, "{day}");
        assert_eq!(e.values.iter().filter(|v| **v == 999.0).count(), 1, "{day}");
    }
}

#[test]
fn a_dry_run_refuses_a_horizon_past_year_9999_as_the_forecast_does() {
    // Daily rows to 9999-12-25: six days are left in the calendar.
    let rows = daily("9999-12-06", 20, |d| d.format("%Y-%m-%dT00:00:00Z").to_string());
    for preset in ["default", "raw"] {
        let o = opts(json!({"preset": preset}));
        for purpose in [Purpose::Forecast, Purpose::DryRun] {
            assert!(run_for(purpose, &table(&rows), None, Some("D"), 6, &o).is_ok(), "{preset} {purpose:?}");
            let err = run_for(purpose, &table(&rows), None, Some("D"), 7, &o).unwrap_err();
            assert_eq!((err.code, err.details["errors"][0]["field"].as_str()), (hora_core::ErrorCode::ValidationError, Some("h")), "{preset} {purpose:?}");
        }
    }
}


/// Rows every `step_minutes` from `start` (UTC), written as naive wall times of `zone`.
fn naive_local_rows(zone: chrono_tz::Tz, start: &str, step_minutes: i64, n: i64) -> Vec<Row> {
    let start = chrono::DateTime::parse_from_rfc3339(start).unwrap().with_timezone(&chrono::Utc);
    (0..n)
        .map(|k| {
            let local = (start + chrono::Duration::minutes(step_minutes * k)).with_timezone(&zone);
            ("a".to_string(), local.format("%Y-%m-%dT%H:%M").to_string(), Some(k as f64))
        })
        .collect()
}

#[test]
fn a_repeated_wall_time_sent_once_takes_the_instant_on_the_grid_the_other_stamps_share() {
    // UTC-hourly data on Lord Howe's clock: 15:00Z is written 01:30, which the 30-minute
    // fall-back repeats (14:30Z first); 90-minute data across Berlin's fall-back writes 01:30Z
    // as 02:30, which 00:30Z wrote first. Read as the earlier instant, each was off the grid and
    // dropped; the later one is the grid's, and every observed value stays.
    for (zone, start, step, n) in [
        (chrono_tz::Tz::Australia__Lord_Howe, "2024-04-06T00:00:00Z", 60, 30),
        (chrono_tz::Tz::Europe__Berlin, "2024-10-26T18:00:00Z", 90, 16),
    ] {
        let rows = naive_local_rows(zone, start, step, n);
        let out = run(&table(&rows), None, 1, &opts(json!({"timezone": zone.name()}))).unwrap();
        assert_eq!(dropped_stamps(&out), Vec::<String>::new(), "{zone}");
        let e = &out.entities[0];
        assert_eq!(e.values, (0..n).map(|k| k as f64).collect::<Vec<_>>(), "{zone}");
        assert_eq!(e.stamps.first().copied(), Some(micros_of(start)), "{zone}");
    }
    // Hourly data on Berlin's clock that sends the repeated 02:00 once: both instants lie on the
    // hourly grid, so it keeps the earlier (docs/time.md, The DST rule) and the hour after is empty.
    let mut rows = naive_local_rows(chrono_tz::Tz::Europe__Berlin, "2024-10-26T18:00:00Z", 60, 20);
    rows.retain(|r| r.1 != "2024-10-27T02:00" || r.2 == Some(6.0));
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"timezone": "Europe/Berlin"}))).unwrap();
    assert_eq!(out.entities[0].stamps[6], micros_of("2024-10-27T00:00:00Z"));
}

#[test]
fn hourly_naive_stamps_after_a_half_hour_fall_back_are_off_the_grid_and_the_forecast_continues_the_grid() {
    // Australia/Lord_Howe falls back 30 minutes at 02:00 local on 2024-04-07 (+11:00 to +10:30):
    // the local 02:00 after it is 15:30Z, off the UTC hour grid the other 26 stamps share. It is
    // dropped and listed, and the forecast steps on from the grid's last slot, so its first stamp
    // (15:00Z) comes before that dropped stamp (docs/time.md, Stepping).
    let rows: Vec<Row> = (0..27)
        .map(|k| {
            let local = chrono::NaiveDate::from_ymd_opt(2024, 4, 6).unwrap().and_hms_opt(0, 0, 0).unwrap() + chrono::Duration::hours(k);
            ("a".to_string(), local.format("%Y-%m-%dT%H:%M").to_string(), Some(k as f64))
        })
        .collect();
    let out = run(&table(&rows), Some("h"), 2, &opts(json!({"timezone": "Australia/Lord_Howe"}))).unwrap();
    assert_eq!(dropped_stamps(&out), vec!["2024-04-06T15:30:00Z"]);
    let e = &out.entities[0];
    assert_eq!(e.stamps.last().copied(), Some(micros_of("2024-04-06T14:00:00Z")));
    assert_eq!(e.forecast_stamps, vec![micros_of("2024-04-06T15:00:00Z"), micros_of("2024-04-06T16:00:00Z")]);
    // The observed values are the model's, unchanged; the dropped row's value is not among them.
    assert_eq!(e.values, (0..26).map(|k| k as f64).collect::<Vec<_>>());
}

#[test]
fn naive_stamps_at_local_times_the_zone_skipped_or_repeated_are_reported_as_info_issues() {
    // Beirut's clocks skip midnight on 2024-03-31: that date names 01:00 local, read forward.
    let dates = daily("2024-03-01", 40, |d| d.format("%Y-%m-%d").to_string());
    let out = run(&table(&dates), Some("D"), 1, &opts(json!({"timezone": "Asia/Beirut"}))).unwrap();
    assert_eq!(issue(&out, "nonexistent_local_times"), Some(json!({"code": "nonexistent_local_times", "count": 1, "level": "info"})));
    assert_eq!(issue(&out, "ambiguous_local_times"), None);
    // Berlin's 02:00 hour is repeated on 2024-10-27: a logger on local time writes it twice.
    let walls: Vec<String> = (0..48).map(|k| format!("2024-10-26 {:02}:00", k % 24)).collect();
    let mut walls: Vec<String> = walls.iter().enumerate().map(|(k, w)| if k < 24 { w.clone() } else { w.replace("10-26", "10-27") }).collect();
    walls.insert(27, "2024-10-27 02:00".to_string());
    let rows: Vec<Row> = walls.iter().enumerate().map(|(k, w)| ("a".to_string(), w.clone(), Some(k as f64))).collect();
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"timezone": "Europe/Berlin"}))).unwrap();
    assert_eq!(issue(&out, "ambiguous_local_times"), Some(json!({"code": "ambiguous_local_times", "count": 2, "level": "info"})));
    assert_eq!(issue(&out, "nonexistent_local_times"), None);
    // In UTC, or with offsets written, no local time is skipped or repeated.
    let out = run(&table(&dates), Some("D"), 1, &opts(json!({}))).unwrap();
    assert!(issue(&out, "nonexistent_local_times").is_none() && issue(&out, "ambiguous_local_times").is_none());
}
