//! The raw preset: the structural check only, no report, fixed data_quality.

mod clean_common;
use clean_common::*;
use hora_core::ErrorCode;
use serde_json::json;

fn raw() -> hora_core::clean::CleanOptions {
    opts(json!({"preset": "raw"}))
}

fn reasons(err: &hora_core::HoraError) -> Vec<String> {
    err.details["violations"].as_array().unwrap().iter().map(|v| v["reason"].as_str().unwrap().to_string()).collect()
}

#[test]
fn raw_preset_feeds_valid_rows_unchanged_without_a_report() {
    let out = run(&table(&hourly("a", 20)), Some("h"), 2, &raw()).unwrap();
    assert!(out.report.is_none());
    assert_eq!(quality(&out), json!({"status": "ok", "missing_ratio": 0.0}));
    assert_eq!(out.entities[0].values.len(), 20);
    assert_eq!(out.entities[0].forecast_stamps, vec![micros(20), micros(21)]);
    assert_eq!(out.input_data_points, 20);
}

#[test]
fn raw_preset_without_freq_is_a_validation_error() {
    let err = run(&table(&hourly("a", 20)), None, 1, &raw()).unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationError);
    // The service's own step-5 check says the same (src/policy/effective.ts).
    assert_eq!(err.message, "The request body is invalid: freq is required with the raw preset.");
}

#[test]
fn raw_preset_lists_each_violation_reason() {
    let mut rows = hourly("a", 20);
    rows[2].1 = "2026-01-01 02:00:00Z".into(); // space instead of T
    rows[5].1 = rows[4].1.clone(); // duplicate
    rows[8].1 = hour_stamp(3); // going back
    rows[12].1 = hour_stamp(14); // skips a step
    rows[15].2 = None;
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!(err.code, ErrorCode::RawInputInvalid);
    let r = reasons(&err);
    for reason in ["ds_format", "ds_duplicate", "ds_not_increasing", "step_mismatch", "not_observed"] {
        assert!(r.contains(&reason.to_string()), "{reason} in {r:?}");
    }
    assert!(err.details["hint"].is_string());
    assert_eq!(err.details["violations"][0], json!({"unique_id": "a", "index": 2, "reason": "ds_format"}));
}

#[test]
fn raw_preset_reads_a_leap_second_as_a_ds_format_violation() {
    // The contract's shape has seconds 00 to 59; chrono alone would read :60.
    let mut rows = hourly("a", 20);
    rows[5].1 = "2026-01-01T05:00:60Z".into();
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!(err.details["violations"][0], json!({"unique_id": "a", "index": 5, "reason": "ds_format"}));
}

#[test]
fn raw_preset_reads_up_to_six_fractional_second_digits() {
    // The contract's shape is YYYY-MM-DDTHH:MM[:SS[.ffffff]]: a seventh digit is a ds_format violation.
    let mut rows = hourly("a", 20);
    rows[5].1 = "2026-01-01T05:00:00.000000Z".into();
    assert!(run(&table(&rows), Some("h"), 1, &raw()).is_ok());
    rows[5].1 = "2026-01-01T05:00:00.0000000Z".into();
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!(err.details["violations"][0], json!({"unique_id": "a", "index": 5, "reason": "ds_format"}));
}

#[test]
fn raw_preset_accepts_exactly_the_minimum_context_and_refuses_one_row_less() {
    assert!(run(&table(&hourly("a", 16)), Some("h"), 1, &raw()).is_ok());
    let err = run(&table(&hourly("a", 15)), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooShort);
    assert_eq!((err.details["points"].clone(), err.details["min_context"].clone()), (json!(15), json!(16)));
}

#[test]
fn raw_preset_lists_every_short_entity_shortest_first_as_the_other_presets() {
    let rows: Vec<Row> = [hourly("a", 15), hourly("b", 20), hourly("c", 10)].concat();
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooShort);
    assert_eq!((err.details["unique_id"].clone(), err.details["points"].clone()), (json!("c"), json!(10)));
    assert_eq!(err.details["series"], json!([{"unique_id": "c", "points": 10}, {"unique_id": "a", "points": 15}]));
    assert_eq!(err.details["series_count"], json!(2));
}

#[test]
fn raw_preset_stops_at_20_violations_when_a_row_has_two() {
    // One violation in row 0, then two per row (stamp and value): the 20th lands mid-row.
    let mut rows = hourly("a", 30);
    rows[0].1 = "2026-01-01 00:00:00Z".into();
    for r in &mut rows[1..] {
        r.1 = r.1.replace('T', " ");
        r.2 = None;
    }
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!(err.details["violations"].as_array().unwrap().len(), 20);
}

#[test]
fn raw_preset_refuses_calendar_and_unknown_freq() {
    let t = table(&hourly("a", 20));
    let err = run(&t, Some("MS"), 1, &raw()).unwrap_err();
    assert_eq!(reasons(&err), vec!["calendar_freq_unsupported"]);
    let err = run(&t, Some("B"), 1, &raw()).unwrap_err();
    assert_eq!(reasons(&err), vec!["calendar_freq_unsupported"]);
    let err = run(&t, Some("fortnight"), 1, &raw()).unwrap_err();
    assert_eq!(reasons(&err), vec!["freq_invalid"]);
    // A violation of the request as a whole names no row or entity (docs/cleaning-policy.md).
    assert_eq!(err.details["violations"][0], json!({"unique_id": null, "index": null, "reason": "freq_invalid"}));
}

#[test]
fn raw_preset_lists_at_most_20_violations() {
    let rows: Vec<Row> = (0..40).map(|k| ("a".into(), hour_stamp(k), None)).collect();
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!(err.details["violations"].as_array().unwrap().len(), 20);
}

#[test]
fn raw_preset_refuses_accept_decline_and_knobs() {
    let t = table(&hourly("a", 20));
    for o in [json!({"preset": "raw", "accept": ["grid.regrid"]}), json!({"preset": "raw", "decline": ["gap.impute"]}),
              json!({"preset": "raw", "impute_method": "linear"})] {
        let err = run(&t, Some("h"), 1, &opts(o.clone())).unwrap_err();
        assert_eq!(err.code, ErrorCode::CleaningOptionUnsupported, "{o}");
        assert!(err.details["field"].as_str().unwrap().starts_with("options.cleaning."));
    }
    // The split threshold is a cleaning parameter too, though it sits under `options`.
    let err = run(&t, Some("h"), 1, &opts(json!({"preset": "raw", "gap_split_min_steps": 0}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::CleaningOptionUnsupported);
    assert_eq!((err.details["field"].clone(), err.details["options"].clone()), (json!("options.gap_split_min_steps"), json!(["gap_split_min_steps"])));
    let err = run(&t, Some("h"), 1, &opts(json!({"preset": "raw", "impute_method": "linear", "gap_split_min_steps": 5}))).unwrap_err();
    assert_eq!((err.details["field"].clone(), err.details["options"].clone()), (json!("options.cleaning.impute_method"), json!(["impute_method", "gap_split_min_steps"])));
    // An empty list asks for nothing: no combination with raw (docs/cleaning-policy.md).
    for o in [json!({"preset": "raw", "accept": []}), json!({"preset": "raw", "decline": []})] {
        assert!(run(&t, Some("h"), 1, &opts(o.clone())).is_ok(), "{o}");
    }
}

#[test]
fn raw_preset_checks_rows_against_the_maximum_context_first() {
    let mut rows = hourly("a", 4100);
    rows[3].2 = None; // would be a violation, but the length check runs before anything
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooLong);
    assert_eq!(err.details["measured"], "rows");
    assert_eq!(err.details["max_context"], 4096);
    // The top-level fields describe the entity listed first, as on the cleaned path.
    let two: Vec<Row> = [hourly("a", 4100), hourly("b", 4200)].concat();
    let err = run(&table(&two), Some("h"), 1, &raw()).unwrap_err();
    assert_eq!((&err.details["unique_id"], &err.details["points"], &err.details["reason"]), (&json!("b"), &json!(4200), &json!("too_long")));
    assert_eq!(err.details["series"], json!([{"unique_id": "b", "points": 4200}, {"unique_id": "a", "points": 4100}]));
    assert_eq!(err.details["series_count"], 2);
}

#[test]
fn raw_preset_refuses_year_0_and_offsets_beyond_18_hours_as_ds_format() {
    // The bounds of every other preset (docs/time.md); chrono alone reads both.
    for (stamp, expect_ok) in [
        ("2026-01-01T05:00:00+18:00", true),
        ("2026-01-01T05:00:00+18:30", false),
        ("2026-01-01T05:00:00-23:59", false),
        ("0000-06-01T05:00:00Z", false),
    ] {
        let mut rows = hourly("a", 20);
        if expect_ok {
            // Same instant as row 5, written with the largest offset allowed.
            rows[5].1 = "2026-01-01T23:00:00+18:00".into();
        } else {
            rows[5].1 = stamp.into();
        }
        let got = run(&table(&rows), Some("h"), 1, &raw());
        match expect_ok {
            true => assert!(got.is_ok(), "{stamp}"),
            false => assert_eq!(got.unwrap_err().details["violations"][0], json!({"unique_id": "a", "index": 5, "reason": "ds_format"}), "{stamp}"),
        }
    }
    let rows: Vec<Row> = (0..20).map(|k| ("a".to_string(), format!("0000-01-01T{k:02}:00:00Z"), Some(1.0))).collect();
    assert_eq!(run(&table(&rows), Some("h"), 1, &raw()).unwrap_err().code, ErrorCode::RawInputInvalid);
}

#[test]
fn raw_preset_reads_naive_future_stamps_in_the_zone_option_as_the_other_presets_do() {
    // History ends 2026-01-01T19:00Z; the forecast stamps are 20:00Z and 21:00Z, which are
    // 05:00 and 06:00 on 2 January in Tokyo.
    let t = table_with(&hourly("a", 20), &[("x", vec![Some(1.0); 20])]);
    let rows: Vec<Row> = ["2026-01-02T05:00:00", "2026-01-02T06:00:00"].iter().map(|d| ("a".to_string(), d.to_string(), None)).collect();
    let f = table_with(&rows, &[("x", vec![Some(2.0); 2])]);
    for preset in ["raw", "default"] {
        let out = run_future(&t, &f, Some("h"), 2, &opts(json!({"preset": preset, "timezone": "Asia/Tokyo"}))).unwrap();
        let x = &json_of(&out.entities[0].model_input)["covariates"][0];
        assert_eq!(x["reason"], "model_unsupported", "{preset}");
    }
}

#[test]
fn raw_preset_reads_a_stamp_without_offset_or_with_text_after_the_time_as_ds_format() {
    for stamp in ["2026-01-01T05:00", "2026-01-01T05:00:00", "2026-01-01T05:00:00.5", "2026-01-01T05:00é", "2026-01-01T05:00:00+"] {
        let mut rows = hourly("a", 20);
        rows[5].1 = stamp.into();
        let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
        assert_eq!(err.details["violations"][0], json!({"unique_id": "a", "index": 5, "reason": "ds_format"}), "{stamp}");
    }
}

#[test]
fn raw_preset_flags_an_unreadable_stamp_alone_not_the_sound_row_after_it() {
    // The row after an unreadable stamp is judged against the last readable one, so many steps
    // back: sound, it is not flagged for its neighbour's fault; off its step, it still is.
    let mut rows = hourly("a", 20);
    rows[3].1 = "2026-01-01".into();
    rows[7].1 = "2026-01-01 07:00:00Z".into();
    rows[8].1 = "2026-01-01 08:00:00Z".into();
    rows[12].1 = "12".into();
    rows[18].1 = "18".into();
    rows[19].1 = hour_stamp(21);
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    let listed: Vec<(u64, String)> = err.details["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["index"].as_u64().unwrap(), v["reason"].as_str().unwrap().to_string()))
        .collect();
    let expected = [(3, "ds_format"), (7, "ds_format"), (8, "ds_format"), (12, "ds_format"), (18, "ds_format"), (19, "step_mismatch")];
    assert_eq!(listed, expected.map(|(i, r)| (i, r.to_string())));
}

#[test]
fn raw_preset_lists_the_first_20_violations_in_row_order_across_interleaved_entities() {
    // Rows alternate between a and b, every value null: 60 violations, rows 0 to 59.
    let rows: Vec<Row> = (0..60).map(|k| (if k % 2 == 0 { "a" } else { "b" }.to_string(), hour_stamp(k / 2), None)).collect();
    let err = run(&table(&rows), Some("h"), 1, &raw()).unwrap_err();
    let listed: Vec<(u64, String)> = err.details["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["index"].as_u64().unwrap(), v["unique_id"].as_str().unwrap().to_string()))
        .collect();
    let expected: Vec<(u64, String)> = (0..20).map(|k| (k, if k % 2 == 0 { "a" } else { "b" }.to_string())).collect();
    assert_eq!(listed, expected);
}
