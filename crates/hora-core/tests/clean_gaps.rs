//! Long gaps (split, mask, disabled), trailing nulls per version, and the blocking rules.

mod clean_common;
use clean_common::*;
use hora_core::ErrorCode;
use serde_json::{json, Value};

#[test]
fn a_long_gap_keeps_only_the_latest_segment() {
    // Hourly: default period 24, automatic split at 48 steps.
    let rows = drop_range(hourly("a", 200), 50..110);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 90);
    assert_eq!(out.entities[0].values[0], 120.0);
    assert_eq!(out.input_data_points, 90);
    let report = report_value(&out);
    let split = decisions(&report, "gap.split");
    assert_eq!(split[0]["count"], 50);
    assert_eq!(report["overall"]["output_points"], 90);
}

#[test]
fn with_two_long_gaps_the_segment_after_the_last_one_is_kept() {
    let rows = drop_range(drop_range(hourly("a", 300), 150..210), 50..110);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 90);
    assert_eq!(out.entities[0].values[0], 220.0);
    assert_eq!(quality(&out)["imputed_points"], 0);
}

/// `n` rows stepping `step_days` from 2020-01-05 (a Sunday), with the gap `filled` dropped and
/// then the gap `split` dropped: (grid length and imputed points of the first, grid length of
/// the second).
fn fill_then_split(freq: &str, step_days: u64, n: i64, filled: std::ops::Range<i64>, split: std::ops::Range<i64>) -> (usize, serde_json::Value, usize) {
    let day = |k: i64| (chrono::NaiveDate::from_ymd_opt(2020, 1, 5).unwrap() + chrono::Days::new(k as u64 * step_days)).format("%Y-%m-%d").to_string();
    let rows: Vec<Row> = (0..n).map(|k| ("a".to_string(), day(k), Some(10.0 + (k % 7) as f64))).collect();
    let a = run(&table(&drop_range(rows.clone(), filled)), Some(freq), 1, &opts(json!({}))).unwrap();
    let b = run(&table(&drop_range(rows, split)), Some(freq), 1, &opts(json!({}))).unwrap();
    (a.entities[0].values.len(), quality(&a)["imputed_points"].clone(), b.entities[0].values.len())
}

#[test]
fn weekly_data_splits_only_past_two_years_of_gap() {
    // Weekly data's seasonal period is 52 (steps per year), so the automatic split needs a gap of
    // 104 steps: one of 60 weeks is filled, one of 110 splits.
    assert_eq!(fill_then_split("W", 7, 400, 200..260, 200..310), (400, json!(60), 90));
}

#[test]
fn daily_data_splits_at_the_16_step_floor_not_at_two_weeks() {
    // Daily data's period is 7, and two periods (14) are below the floor of 16 steps: a gap of 15
    // days is filled, one of 16 splits.
    assert_eq!(fill_then_split("D", 1, 100, 40..55, 40..56), (100, json!(15), 44));
}

#[test]
fn a_split_proposed_or_declined_leaves_the_report_counting_every_row() {
    // 140 rows, a gap of 60 slots: the split would drop 50 rows.
    let rows = drop_range(hourly("a", 200), 50..110);
    let t = table(&rows);
    for options in [json!({"preset": "strict", "accept": ["grid.regrid", "gap.impute"]}), json!({"decline": ["gap.split"]})] {
        let err = run(&t, Some("h"), 1, &opts(options.clone())).unwrap_err();
        let report = &report_of(&err);
        assert_ne!(decisions(report, "gap.split")[0]["status"], "applied", "{options}");
        assert_eq!(report["series"][0]["fed_points"], 140, "{options}");
        assert_eq!(report["series"][0]["output_points"], 140, "{options}");
    }
}

#[test]
fn a_repair_that_does_not_apply_decides_the_code_before_the_length_limits() {
    // 100 rows, a gap of 60 slots, then 10 rows: the split would leave 10 points, too short.
    let rows = drop_range(hourly("a", 170), 100..160);
    let t = table(&rows);
    for options in [json!({"decline": ["gap.split"]}), json!({"preset": "strict", "accept": ["grid.regrid", "gap.impute"]})] {
        let err = run(&t, Some("h"), 1, &opts(options.clone())).unwrap_err();
        assert_eq!(err.code, ErrorCode::SeriesDiscontinuous, "{options}");
        assert_eq!(report_of(&err)["blocking"][0]["caused_by"], json!(["gap.split"]), "{options}");
    }
    // With the split applied the remainder is what is too short.
    assert_eq!(run(&t, Some("h"), 1, &opts(json!({}))).unwrap_err().code, ErrorCode::SeriesTooShort);
}

#[test]
fn gap_split_min_steps_sets_the_threshold_and_zero_disables_splitting() {
    let rows = drop_range(hourly("a", 200), 100..110);
    let t = table(&rows);
    let split = run(&t, Some("h"), 1, &opts(json!({"gap_split_min_steps": 5}))).unwrap();
    assert_eq!(split.entities[0].values.len(), 90);
    let kept = run(&t, Some("h"), 1, &opts(json!({"gap_split_min_steps": 0}))).unwrap();
    assert_eq!(kept.entities[0].values.len(), 200);
    assert_eq!(quality(&kept)["imputed_points"], 10);
}

#[test]
fn a_seasonal_fill_never_copies_history_a_split_dropped() {
    // 30 old rows, a 3-slot gap (split at 3 steps), then 47 kept rows with 2 missing slots 7
    // hours in: one period (24) back from those slots lies in the dropped history.
    let rows = |old: f64| -> Vec<Row> {
        drop_range(hourly("a", 80), 30..33)
            .into_iter()
            .enumerate()
            .filter(|(k, _)| *k != 37 && *k != 38)
            .map(|(k, (u, ds, y))| (u, ds, if k < 30 { Some(old) } else { y }))
            .collect()
    };
    let options = opts(json!({"gap_split_min_steps": 3, "impute_method": "seasonal"}));
    let small = run(&table(&rows(1.0)), Some("h"), 1, &options).unwrap();
    let large = run(&table(&rows(1000.0)), Some("h"), 1, &options).unwrap();
    let (v, w) = (&small.entities[0].values, &large.entities[0].values);
    assert_eq!(v, w, "dropped history must not reach the kept context");
    // Before the kept series' start the fill is linear between the neighbours.
    let (left, right) = (v[6], v[9]);
    assert_eq!(&v[7..9], &[left + (right - left) / 3.0, left + 2.0 * (right - left) / 3.0]);
}

#[test]
fn long_gap_mask_keeps_history_and_reports_the_masked_points() {
    let rows = drop_range(hourly("a", 200), 50..110);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"long_gap": "mask"}))).unwrap();
    let e = &out.entities[0];
    assert_eq!(e.values.len(), 200);
    assert!(e.values[50..110].iter().all(|v| v.is_nan()));
    assert_eq!(json_of(&e.model_input)["long_gap_points"], 60);
    assert_eq!(json_of(&e.model_input)["long_gap_handling"], "mask");
    assert!(json_of(&e.model_input)["long_gap_reason"].is_string());
    assert_eq!(out.input_data_points, 140);
}

#[test]
fn masked_long_gaps_count_in_the_recent_gap_and_missing_share_rules() {
    // Hourly, period 24: a 60-step masked gap ending 10 steps before the origin is a recent gap
    // of 0.75 periods or more; 240 of 300 slots masked is a missing share of 35 % or more.
    for (gap, reason) in [(230..290, "gap_near_origin_too_long"), (20..260, "missing_share_too_high")] {
        let rows = drop_range(hourly("a", 300), gap.clone());
        let err = run(&table(&rows), Some("h"), 1, &opts(json!({"long_gap": "mask"}))).unwrap_err();
        assert_eq!(err.code, ErrorCode::SeriesDiscontinuous, "{gap:?}");
        let blocking = &report_of(&err)["blocking"];
        let block = blocking.as_array().unwrap().iter().find(|b| b["reason"] == reason).unwrap_or_else(|| panic!("{reason} in {blocking}"));
        assert!(block["caused_by"].as_array().unwrap().contains(&json!("gap.mask_long")), "{block}");
    }
}

#[test]
fn long_gap_mask_falls_back_to_the_split_when_the_context_would_be_too_long() {
    let rows = drop_range(hourly("a", 4100), 50..110);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"long_gap": "mask"}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 3990);
    assert!(warnings(&out).contains(&json!({"code": "long_gap_mask_unavailable", "unique_id": "a"})));
}

#[test]
fn the_mask_fits_the_context_it_keeps_not_the_trailing_null_rows_trimmed_before_2026_12() {
    // Found by audit: 4,096 slots ending in 2 null rows were judged as 4,098 under 2026-11, which
    // trims those rows, so the split replaced the mask and dropped 1,000 observed points.
    let mut rows = drop_range(hourly("a", 4098), 1000..1060);
    let n = rows.len();
    rows[n - 2].2 = None;
    rows[n - 1].2 = None;
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"version": "2026-11", "long_gap": "mask"}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 4096);
    assert_eq!(json_of(&out.entities[0].model_input)["long_gap_handling"], "mask");
    let report = report_value(&out);
    assert!(decisions(&report, "gap.split").is_empty());
    assert_eq!(decisions(&report, "gap.trim_tail")[0]["count"], 2);
    assert!(warnings(&out).iter().all(|w| w["code"] != "long_gap_mask_unavailable"));
    // From 2026-12 the same two slots are a masked tail inside the context: 4,098 slots do not fit.
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"version": "2026-12", "long_gap": "mask"}))).unwrap();
    assert_eq!(decisions(&report_value(&out), "gap.split").len(), 1);
    assert!(warnings(&out).contains(&json!({"code": "long_gap_mask_unavailable", "unique_id": "a"})));
}

#[test]
fn up_to_three_trailing_nulls_are_kept_as_a_masked_tail() {
    let mut rows = hourly("a", 30);
    rows[28].2 = None;
    rows[29].2 = None;
    let out = run(&table(&rows), Some("h"), 2, &opts(json!({}))).unwrap();
    let e = &out.entities[0];
    assert_eq!(e.values.len(), 30);
    assert!(e.values[28].is_nan() && e.values[29].is_nan());
    assert_eq!(json_of(&e.model_input)["masked_tail"], 2);
    assert_eq!(json_of(&e.model_input)["tail_handling"], "mask");
    assert_eq!(e.forecast_stamps[0], micros(30));
    assert!(warnings(&out).contains(&json!({"code": "trailing_values_missing", "unique_id": "a"})));
    assert_eq!(decisions(&report_value(&out), "gap.masked_tail")[0]["count"], 2);
}

#[test]
fn a_tail_only_proposed_or_declined_carries_no_trailing_values_missing_warning() {
    let mut rows = hourly("a", 30);
    rows[29].2 = None;
    for options in [json!({"preset": "strict"}), json!({"decline": ["gap.masked_tail"]}), json!({"clean_series": false})] {
        let err = run(&table(&rows), Some("h"), 1, &opts(options.clone())).unwrap_err();
        let report = report_of(&err);
        assert_ne!(decisions(&report, "gap.masked_tail")[0]["status"], "applied", "{options}");
        let codes: Vec<&Value> = report["warnings"].as_array().map(|w| w.iter().map(|x| &x["code"]).collect()).unwrap_or_default();
        assert!(!codes.contains(&&json!("trailing_values_missing")), "{options}: {codes:?}");
    }
    // Accepted, the tail is masked and the warning comes back.
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"preset": "strict", "accept": ["gap.masked_tail"]}))).unwrap();
    assert!(warnings(&out).contains(&json!({"code": "trailing_values_missing", "unique_id": "a"})));
}

#[test]
fn more_than_three_trailing_nulls_is_trailing_gap_too_long() {
    let mut rows = hourly("a", 30);
    for r in &mut rows[25..] {
        r.2 = None;
    }
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    assert_eq!(err.details["reason"], "trailing_gap_too_long");
    assert_eq!(err.details["count"], 5);
    assert_eq!(err.details["max_steps"], 3);
}

#[test]
fn declining_the_masked_tail_is_trailing_gap_too_long() {
    let mut rows = hourly("a", 30);
    rows[29].2 = None;
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({"decline": ["gap.masked_tail"]}))).unwrap_err();
    assert_eq!(err.details["reason"], "trailing_gap_too_long");
    assert_eq!(err.details["count"], 1);
    assert_eq!(err.details["max_steps"], 3);
    // The tail is within the limit: the message names the decline, not the length.
    assert!(err.message.contains("ends with 1 empty step and gap.masked_tail was declined"), "{}", err.message);
}

#[test]
fn trimming_counts_and_lists_the_null_rows_not_the_empty_slots_beside_them() {
    // A null first row, no row at hour 1, values from hour 2 to 77; then two nulls. Five empty
    // slots of 80 stay under the deprecated 10 % rule.
    let mut rows: Vec<Row> = hourly("a", 80).into_iter().enumerate().filter(|(k, _)| *k != 1 && *k != 27).map(|(_, r)| r).collect();
    rows[0].2 = None;
    let n = rows.len();
    rows[n - 1].2 = None;
    rows[n - 2].2 = None;
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"version": "2026-11"}))).unwrap();
    let report = report_value(&out);
    let head = decisions(&report, "gap.trim_head");
    assert_eq!((head[0]["count"].clone(), head[0]["stamps"].clone()), (json!(1), json!([hour_stamp(0)])));
    let tail = decisions(&report, "gap.trim_tail");
    assert_eq!((tail[0]["count"].clone(), tail[0]["stamps"].clone()), (json!(2), json!([hour_stamp(78), hour_stamp(79)])));
    assert_eq!(out.entities[0].values.len(), 76);
}

#[test]
fn before_2026_12_trailing_nulls_are_trimmed() {
    let mut rows = hourly("a", 60);
    for r in &mut rows[55..] {
        r.2 = None;
    }
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"version": "2026-11"}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 55);
    assert_eq!(out.entities[0].forecast_stamps, vec![micros(55)]);
    assert_eq!(decisions(&report_value(&out), "gap.trim_tail")[0]["count"], 5);
    // The forecast starts inside the stamps sent: the caller is warned, as for a masked tail.
    assert!(warnings(&out).contains(&json!({"code": "trailing_values_missing", "unique_id": "a"})));
}

#[test]
fn the_deprecated_10_percent_rule_counts_every_null_of_the_series() {
    // Two nulls of 20: inside the context, at the start (trimmed), at the end (trimmed before
    // 2026-12, a masked tail from it on). Each reaches 10 % of the series.
    for (nulls, version) in [([9, 10], "2026-11"), ([0, 1], "2026-10"), ([18, 19], "2026-11"), ([18, 19], "2026-12")] {
        let mut rows = hourly("a", 20);
        for k in nulls {
            rows[k].2 = None;
        }
        let err = run(&table(&rows), Some("h"), 1, &opts(json!({"version": version}))).unwrap_err();
        assert_eq!(err.code, ErrorCode::SeriesDiscontinuous, "{nulls:?} {version}");
        assert_eq!(err.details["reason"], "missing_share_too_high");
        assert_eq!(err.details["threshold"], 0.1);
        // One null fewer is 5 %: the series runs.
        let mut rows = hourly("a", 20);
        rows[nulls[0]].2 = None;
        assert!(run(&table(&rows), Some("h"), 1, &opts(json!({"version": version}))).is_ok(), "{nulls:?} {version}");
    }
}

#[test]
fn a_masked_tail_is_a_recent_gap_under_2026_13() {
    // Quarterly (period 4): three empty quarters at the end reach 0.75 periods; two do not.
    let quarters = |n: usize, empty: usize| -> Vec<Row> {
        (0..n).map(|k| ("a".to_string(), format!("{}-{:02}-01", 2000 + k / 4, 1 + 3 * (k % 4)), (k + empty < n).then_some((k % 4) as f64 + 10.0))).collect()
    };
    let err = run(&table(&quarters(40, 3)), Some("QS"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    assert_eq!(err.details["reason"], "gap_near_origin_too_long");
    let blocking = &report_of(&err)["blocking"][0];
    assert_eq!(blocking["caused_by"], json!(["gap.masked_tail"]));
    assert_eq!(blocking["gap_steps"], 3);
    let out = run(&table(&quarters(40, 2)), Some("QS"), 1, &opts(json!({}))).unwrap();
    assert_eq!(report_value(&out)["blocking"], json!([]));
}

#[test]
fn policy_2026_13_blocks_a_missing_share_of_35_percent() {
    // Every odd slot of 10..52 is missing: 21 of 60 slots (35 %), each gap one step long.
    let rows: Vec<Row> = hourly("a", 60).into_iter().enumerate().filter(|(k, _)| !(10..52).contains(k) || k % 2 == 0).map(|(_, r)| r).collect();
    assert_eq!(rows.len(), 39);
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    assert_eq!(err.details["reason"], "missing_share_too_high");
    let report = &report_of(&err);
    assert_eq!(report["blocking"][0]["kind"], "health_critical");
    assert_eq!(report["blocking"][0]["caused_by"], json!(["grid.regrid", "gap.impute"]));
    // One slot fewer missing passes.
    let mut fewer = rows.clone();
    fewer.push(("a".into(), hour_stamp(11), Some(0.0)));
    assert!(run(&table(&fewer), Some("h"), 1, &opts(json!({}))).is_ok());
}

#[test]
fn policy_2026_13_blocks_a_recent_gap_of_three_quarters_of_a_period() {
    // Daily data: period 7, so a recent gap of 6 days (>= 5.25) blocks; an old one does not.
    let day = |k: i64| {
        let d = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap() + chrono::Days::new(k as u64);
        ("a".to_string(), format!("{}T00:00:00Z", d), Some(1.0 + k as f64))
    };
    let recent: Vec<Row> = (0..70).filter(|k| !(62..68).contains(k)).map(day).collect();
    let err = run(&table(&recent), Some("D"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.details["reason"], "gap_near_origin_too_long");
    assert_eq!(report_of(&err)["blocking"][0]["caused_by"], json!(["gap.impute"]));
    let old: Vec<Row> = (0..70).filter(|k| !(10..16).contains(k)).map(day).collect();
    assert!(run(&table(&old), Some("D"), 1, &opts(json!({}))).is_ok());
    // The last period is days 63 to 69: a gap whose last day is 63 is recent, one ending on 62 is not.
    let ending = |last: i64| -> Vec<Row> { (0..70).filter(|k| !(last - 5..=last).contains(k)).map(day).collect() };
    assert_eq!(run(&table(&ending(63)), Some("D"), 1, &opts(json!({}))).unwrap_err().details["reason"], "gap_near_origin_too_long");
    assert!(run(&table(&ending(62)), Some("D"), 1, &opts(json!({}))).is_ok());
    // Just under three quarters of a period (5 days < 5.25), as recent, passes.
    let five: Vec<Row> = (0..70).filter(|k| !(63..68).contains(k)).map(day).collect();
    assert!(run(&table(&five), Some("D"), 1, &opts(json!({}))).is_ok());
    // Deprecated versions do not know the recent-gap rule, only the 10 % share.
    assert!(run(&table(&recent), Some("D"), 1, &opts(json!({"version": "2026-12"}))).is_ok());
}

#[test]
fn deprecated_versions_block_gaps_plus_nulls_reaching_ten_percent() {
    let mut rows = hourly("a", 40);
    for k in [5, 10, 15, 20] {
        rows[k].2 = None;
    }
    let t = table(&rows);
    let err = run(&t, Some("h"), 1, &opts(json!({"version": "2026-12"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    assert_eq!(err.details["reason"], "missing_share_too_high");
    assert!(run(&t, Some("h"), 1, &opts(json!({}))).is_ok());
    // One null fewer (3 of 40, 7.5 %) passes under the same version.
    rows[20].2 = Some(20.0);
    assert!(run(&table(&rows), Some("h"), 1, &opts(json!({"version": "2026-12"}))).is_ok());
}
