//! Policy versions, presets and knobs: what each version accepts and how each knob acts.

mod clean_common;
use clean_common::*;
use hora_core::clean::policy::POLICIES;
use hora_core::ErrorCode;
use serde_json::json;

fn gapped() -> Vec<Row> {
    with_gap("a", 40, 10..12)
}

#[test]
fn every_version_is_a_policy_value_and_only_2026_13_is_current() {
    let versions: Vec<&str> = POLICIES.iter().map(|p| p.version).collect();
    assert_eq!(versions, vec!["2026-13", "2026-12", "2026-11", "2026-10"]);
    assert!(POLICIES.iter().all(|p| p.deprecated == (p.version != "2026-13")));
}

#[test]
fn pinning_a_deprecated_version_adds_the_warning() {
    let t = table(&hourly("a", 30));
    for v in ["2026-12", "2026-11", "2026-10"] {
        let out = run(&t, Some("h"), 1, &opts(json!({"version": v}))).unwrap();
        assert_eq!(warnings(&out), vec![json!({"code": "cleaning_version_deprecated"})], "{v}");
        assert_eq!(report_value(&out)["policy"]["id"], format!("default@{v}"));
    }
    assert!(run(&t, Some("h"), 1, &opts(json!({"version": "2026-13"}))).unwrap().warnings.is_empty());
}

#[test]
fn unknown_preset_or_version_is_cleaning_option_unsupported() {
    let t = table(&hourly("a", 30));
    let err = run(&t, Some("h"), 1, &opts(json!({"preset": "lenient"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::CleaningOptionUnsupported);
    assert_eq!(err.details["field"], "options.cleaning.preset");
    assert_eq!(err.details["allowed"], json!(["default", "strict", "raw"]));
    let err = run(&t, Some("h"), 1, &opts(json!({"version": "2025-01"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::CleaningOptionUnsupported);
    assert_eq!(err.details["field"], "options.cleaning.version");
}

#[test]
fn knobs_under_2026_10_name_the_version_they_require() {
    let t = table(&hourly("a", 30));
    for knob in [json!({"impute_method": "linear"}), json!({"seasonal_period": 24}), json!({"bounds": {"lower": 0, "upper": 1}}),
                 json!({"structural_zero": true}), json!({"business_days": true}), json!({"long_gap": "mask"})] {
        let mut o = knob.clone();
        o["version"] = json!("2026-10");
        let err = run(&t, Some("h"), 1, &opts(o)).unwrap_err();
        assert_eq!(err.code, ErrorCode::CleaningOptionUnsupported, "{knob}");
        assert_eq!(err.details["requires_version"], "2026-11");
        let field = knob.as_object().unwrap().keys().next().unwrap().clone();
        assert_eq!(err.details["field"], format!("options.cleaning.{field}"));
    }
}

#[test]
fn nonnegative_under_2026_10_accepts_only_its_no_op_values() {
    let t = table(&hourly("a", 30));
    assert!(run(&t, Some("h"), 1, &opts(json!({"version": "2026-10", "nonnegative": false}))).is_ok());
    let err = run(&t, Some("h"), 1, &opts(json!({"version": "2026-10", "nonnegative": true}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::CleaningOptionUnsupported);
    assert_eq!(err.details["options"], json!(["true"]));
    assert_eq!(err.details["supported"], json!(["auto", "false"]));
}

/// `n` weekdays from Monday 2026-01-05, skipping weekends, with y = 0, 1, 2, ...
fn weekday_rows(n: u64) -> Vec<Row> {
    (0..n)
        .map(|k| {
            let d = chrono::NaiveDate::from_ymd_opt(2026, 1, 5).unwrap() + chrono::Days::new(k / 5 * 7 + k % 5);
            ("a".to_string(), format!("{d}"), Some(k as f64))
        })
        .collect()
}

#[test]
fn business_freq_needs_2026_11() {
    let rows = weekday_rows(40);
    let t = table(&rows);
    let err = run(&t, Some("B"), 1, &opts(json!({"version": "2026-10"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::FreqUnsupported);
    let out = run(&t, Some("B"), 1, &opts(json!({"version": "2026-11"}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 40);
    // Friday 2026-02-13 is followed by Monday 2026-02-16.
    assert_eq!(out.freq, "B");
    assert_eq!(quality(&out)["imputed_points"], 0);
}

#[test]
fn business_days_knob_makes_weekends_no_gap_for_daily_data() {
    let rows = weekday_rows(40);
    let t = table(&rows);
    let daily = run(&t, Some("D"), 1, &opts(json!({"version": "2026-12"}))).unwrap_err();
    assert_eq!(daily.code, ErrorCode::SeriesDiscontinuous);
    let out = run(&t, Some("D"), 3, &opts(json!({"business_days": true}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 40);
    assert_eq!(out.freq, "D");
    // The forecast steps as B too: the history ends on Friday 2026-02-27 (eight weeks of five
    // weekdays from Monday 2026-01-05), so the next three stamps are Monday to Wednesday.
    let stamps: Vec<String> = out.entities[0].forecast_stamps.iter().map(|&t| hora_core::time::format_utc(t)).collect();
    assert_eq!(stamps, ["2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z", "2026-03-04T00:00:00Z"]);
}

#[test]
fn structural_zero_fills_missing_slots_with_zero() {
    let out = run(&table(&gapped()), Some("h"), 1, &opts(json!({"structural_zero": true}))).unwrap();
    assert_eq!(&out.entities[0].values[10..12], &[0.0, 0.0]);
    assert_eq!(decisions(&report_value(&out), "gap.impute")[0]["method"], "structural_zero");
}

#[test]
fn structural_zeros_are_not_missing_data_for_the_blocking_rules_or_the_split() {
    // Found by audit: intermittent demand sent as its nonzero days (every second day of 60, a
    // 30-day run of zeros near the start) was refused missing_share_too_high, or split, though
    // the knob says the days left out are zeros.
    let days: Vec<i64> = (0..60).filter(|d| d % 2 == 0 && !(4..34).contains(d)).chain([59]).collect();
    let day = |d: i64| (chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap() + chrono::Days::new(d as u64)).format("%Y-%m-%d").to_string();
    let rows: Vec<Row> = days.iter().map(|&d| ("a".to_string(), day(d), Some(3.0))).collect();
    for version in ["2026-13", "2026-12", "2026-11"] {
        let out = run(&table(&rows), Some("D"), 1, &opts(json!({"version": version, "structural_zero": true}))).unwrap_or_else(|e| panic!("{version}: {e:?}"));
        let e = &out.entities[0];
        assert_eq!(e.values.len(), 60, "{version}: no split");
        assert_eq!(e.values.iter().filter(|v| **v == 0.0).count(), 60 - days.len(), "{version}");
        assert!(decisions(&report_value(&out), "gap.split").is_empty(), "{version}");
        // Without the knob the same rows are missing data.
        assert!(run(&table(&rows), Some("D"), 1, &opts(json!({"version": version}))).is_err_and(|e| e.code == ErrorCode::SeriesDiscontinuous), "{version}");
    }
    // An explicit split threshold still splits: the caller asked for it.
    let out = run(&table(&rows), Some("D"), 1, &opts(json!({"structural_zero": true, "gap_split_min_steps": 20}))).unwrap();
    assert_eq!(decisions(&report_value(&out), "gap.split").len(), 1);
}

#[test]
fn a_slot_that_became_a_structural_zero_is_no_cause_of_a_block() {
    // Found by audit: under the deprecated rule a block from the masked tail alone also named
    // grid.regrid, for a day the knob had filled with a zero the rule does not count.
    let day = |d: u64| (chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap() + chrono::Days::new(d)).format("%Y-%m-%d").to_string();
    let rows: Vec<Row> = (0..21).filter(|&d| d != 8).map(|d| ("a".to_string(), day(d), (d < 18).then_some(1.0 + d as f64))).collect();
    let err = run(&table(&rows), Some("D"), 1, &opts(json!({"version": "2026-12", "structural_zero": true}))).unwrap_err();
    let blocking = report_of(&err)["blocking"].clone();
    assert_eq!(blocking[0]["reason"], "missing_share_too_high", "{blocking}");
    assert_eq!(blocking[0]["caused_by"], json!(["gap.masked_tail"]), "{blocking}");
}

#[test]
fn a_regrid_the_knob_filled_nothing_of_is_still_a_cause_under_structural_zero() {
    // Found by review: a trailing gap too long to mask, with absent days among its null rows, is
    // counted by the deprecated rule; the knob filled none of it, yet grid.regrid left caused_by.
    let day = |d: u64| (chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap() + chrono::Days::new(d)).format("%Y-%m-%d").to_string();
    let rows: Vec<Row> = (0..27).filter(|d| d < &20 || d % 2 == 0).map(|d| ("a".to_string(), day(d), (d < 20).then_some(1.0 + d as f64))).collect();
    let caused_by = |knob: bool| {
        let err = run(&table(&rows), Some("D"), 1, &opts(json!({"version": "2026-12", "structural_zero": knob}))).unwrap_err();
        let report = report_of(&err);
        report["blocking"].as_array().unwrap().iter().find(|b| b["reason"] == "missing_share_too_high").map(|b| b["caused_by"].clone())
    };
    assert_eq!(caused_by(true), caused_by(false));
    assert!(caused_by(true).is_some_and(|c| c.as_array().unwrap().contains(&json!("grid.regrid"))));
}

#[test]
fn structural_zero_with_bounds_that_exclude_zero_is_refused() {
    let err = run(&table(&gapped()), Some("h"), 1, &opts(json!({"structural_zero": true, "bounds": {"lower": 5, "upper": 100}}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationError);
    assert_eq!(err.details["errors"][0]["field"], "options.cleaning.bounds");
    assert!(run(&table(&gapped()), Some("h"), 1, &opts(json!({"structural_zero": true, "bounds": {"lower": 0, "upper": 100}}))).is_ok());
    assert!(run(&table(&gapped()), Some("h"), 1, &opts(json!({"structural_zero": false, "bounds": {"lower": 5, "upper": 100}}))).is_ok());
}

#[test]
fn locf_and_seasonal_impute_methods_fill_as_named() {
    let t = table(&gapped());
    let locf = run(&t, Some("h"), 1, &opts(json!({"impute_method": "locf"}))).unwrap();
    assert_eq!(&locf.entities[0].values[10..12], &[19.0, 19.0]);
    let seasonal = run(&t, Some("h"), 1, &opts(json!({"impute_method": "seasonal", "seasonal_period": 5}))).unwrap();
    assert_eq!(&seasonal.entities[0].values[10..12], &[15.0, 16.0]);
}

#[test]
fn a_seasonal_fill_longer_than_its_period_repeats_the_slots_it_filled() {
    // Slots 10..17 missing, period 3: 10..12 copy observed 7..9 (17, 18, 19), and 13..16 copy the
    // fills three slots before them rather than falling back to a straight line.
    let out = run(&table(&with_gap("a", 40, 10..17)), Some("h"), 1, &opts(json!({"impute_method": "seasonal", "seasonal_period": 3}))).unwrap();
    assert_eq!(&out.entities[0].values[10..17], &[17.0, 18.0, 19.0, 17.0, 18.0, 19.0, 17.0]);
}

#[test]
fn bounds_with_lower_equal_to_upper_pin_the_imputed_values() {
    let out = run(&table(&gapped()), Some("h"), 1, &opts(json!({"bounds": {"lower": 15.0, "upper": 15.0}}))).unwrap();
    assert_eq!(&out.entities[0].values[10..12], &[15.0, 15.0]);
}

#[test]
fn accept_and_decline_take_at_most_200_ids_of_at_most_200_characters() {
    let t = table(&hourly("a", 30));
    let ids = |n: usize| (0..n).map(|k| format!("x{k}")).collect::<Vec<_>>();
    for field in ["accept", "decline"] {
        assert!(run(&t, Some("h"), 1, &opts(json!({field: ids(200)}))).is_ok(), "{field}");
        assert!(run(&t, Some("h"), 1, &opts(json!({field: ["y".repeat(200)]}))).is_ok(), "{field}");
        for too_many in [json!(ids(201)), json!(["y".repeat(201)])] {
            let err = run(&t, Some("h"), 1, &opts(json!({field: too_many}))).unwrap_err();
            assert_eq!(err.code, ErrorCode::ValidationError, "{field}");
            assert_eq!(err.details["errors"][0]["field"], format!("options.cleaning.{field}"), "{field}");
        }
    }
}

#[test]
fn bounds_clamp_imputed_values_at_both_ends_and_only_flag_observed_ones() {
    // y = 10 + k with slots 20..23 missing: a linear fill gives 30, 31, 32.
    let t = table(&with_gap("a", 60, 20..23));
    let run_with = |lower: f64, upper: f64| {
        run(&t, Some("h"), 1, &opts(json!({"impute_method": "linear", "bounds": {"lower": lower, "upper": upper}}))).unwrap()
    };
    let lifted = run_with(31.5, 1000.0);
    assert_eq!(lifted.entities[0].values[20..23], [31.5, 31.5, 32.0]);
    let lowered = run_with(-1000.0, 30.5);
    assert_eq!(lowered.entities[0].values[20..23], [30.0, 30.5, 30.5]);
    // Observed values outside the bounds stay as sent and are flagged: 10..=31 below 31.5 (20 of
    // them observed), 31..=69 above 30.5 (37 observed).
    assert_eq!((lifted.entities[0].values[0], lowered.entities[0].values[59]), (10.0, 69.0));
    assert_eq!(issue(&lifted, "values_out_of_bounds").unwrap()["count"], 20);
    assert_eq!(issue(&lowered, "values_out_of_bounds").unwrap()["count"], 37);
    // One observed value below the range, the gap filled above it.
    let mut rows = gapped();
    rows[0].2 = Some(-5.0);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"bounds": {"lower": 0.0, "upper": 20.0}}))).unwrap();
    let v = &out.entities[0].values;
    assert_eq!(v[0], -5.0, "observed values are never modified");
    assert_eq!(&v[10..12], &[20.0, 20.0]);
    let expected = rows.iter().filter(|r| r.2.is_some_and(|y| !(0.0..=20.0).contains(&y))).count();
    assert_eq!(issue(&out, "values_out_of_bounds").unwrap()["count"], json!(expected));
}

#[test]
fn bounds_below_zero_win_over_nonnegative_auto_for_imputed_values() {
    // Every observed value is >= 0, so `auto` would clamp at 0; the caller's bounds say -10 to -5.
    let t = table(&with_gap("a", 60, 20..23));
    let out = run(&t, Some("h"), 1, &opts(json!({"bounds": {"lower": -10.0, "upper": -5.0}}))).unwrap();
    assert_eq!(out.entities[0].values[20..23], [-5.0, -5.0, -5.0]);
}

#[test]
fn nonnegative_true_clamps_imputed_values_at_zero_and_flags_observed_negatives_unchanged() {
    // y = k - 30 with slots 10..13 missing: a linear fill gives -20, -19, -18.
    let rows: Vec<Row> = with_gap("a", 60, 10..13).into_iter().map(|(u, ds, y)| (u, ds, y.map(|v| v - 40.0))).collect();
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"impute_method": "linear", "nonnegative": true}))).unwrap();
    assert_eq!(out.entities[0].values[10..13], [0.0, 0.0, 0.0]);
    assert_eq!(out.entities[0].values[0], -30.0);
    // -30..=-1 observed except the 3 missing slots.
    assert_eq!(issue(&out, "negative_values").unwrap()["count"], 27);
    let free = run(&table(&rows), Some("h"), 1, &opts(json!({"impute_method": "linear", "nonnegative": false}))).unwrap();
    assert_eq!(free.entities[0].values[10..13], [-20.0, -19.0, -18.0]);
    assert_eq!(issue(&free, "negative_values"), None);
    // A one-slot gap beside an observed negative.
    let rows: Vec<Row> = (0..30).filter(|k| *k != 11).map(|k| ("a".into(), hour_stamp(k), Some(if k == 12 { -10.0 } else { 1.0 }))).collect();
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"nonnegative": true}))).unwrap();
    assert_eq!(out.entities[0].values[11], 0.0);
    assert_eq!(out.entities[0].values[12], -10.0);
}

#[test]
fn invalid_knob_values_are_validation_errors_naming_the_field() {
    let t = table(&hourly("a", 30));
    for (o, field) in [
        (json!({"impute_method": "spline"}), "options.cleaning.impute_method"),
        (json!({"long_gap": "drop"}), "options.cleaning.long_gap"),
        (json!({"seasonal_period": 1}), "options.cleaning.seasonal_period"),
        (json!({"bounds": {"lower": 5, "upper": 1}}), "options.cleaning.bounds"),
    ] {
        let err = run(&t, Some("h"), 1, &opts(o)).unwrap_err();
        assert_eq!(err.code, ErrorCode::ValidationError);
        assert_eq!(err.details["errors"][0]["field"], field);
    }
}

#[test]
fn strict_and_default_agree_once_every_proposal_is_accepted() {
    let t = table(&gapped());
    let default = run(&t, Some("h"), 1, &opts(json!({}))).unwrap();
    let strict = run(&t, Some("h"), 1, &opts(json!({"preset": "strict", "accept": ["grid.regrid", "gap.impute"]}))).unwrap();
    assert_eq!(default.entities[0].values, strict.entities[0].values);
}
