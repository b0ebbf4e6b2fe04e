//! Covariates: per column used/reason, future row checks, clean_exog.

mod clean_common;
use clean_common::*;
use hora_core::clean::Purpose;
use hora_core::ErrorCode;
use serde_json::json;

fn future(u: &str, from: i64, h: i64, col: &str, v: Option<f64>) -> hora_core::ingest::RowTable {
    let rows: Vec<Row> = (from..from + h).map(|k| (u.to_string(), hour_stamp(k), None)).collect();
    table_with(&rows, &[(col, vec![v; h as usize])])
}

fn column(out: &hora_core::clean::Cleaned, name: &str) -> serde_json::Value {
    json_of(&out.entities[0].model_input)["covariates"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap().clone()
}

#[test]
fn a_column_passing_every_check_is_model_unsupported_for_hora_1() {
    let rows = hourly("a", 30);
    let t = table_with(&rows, &[("temp", (0..30).map(|k| Some(k as f64)).collect())]);
    let f = future("a", 30, 3, "temp", Some(1.0));
    let out = run_future(&t, &f, Some("h"), 3, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "temp"), json!({"name": "temp", "role": "future", "used": false, "reason": "model_unsupported"}));
    assert_eq!(json_of(&out.entities[0].model_input)["covariates_used"], false);
}

#[test]
fn a_column_not_covering_every_forecast_stamp_is_not_used() {
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    let f = future("a", 30, 2, "temp", Some(1.0));
    let out = run_future(&t, &f, Some("h"), 3, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "temp")["reason"], "future_values_missing");
    // A history-only column cannot cover the forecast stamps either.
    let out = run(&t, Some("h"), 3, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "temp")["role"], "past");
    assert_eq!(column(&out, "temp")["reason"], "future_values_missing");
}

#[test]
fn a_forecast_stamp_sent_twice_in_future_rows_is_judged_on_the_last_row() {
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    let twice = |first: Option<f64>, last: Option<f64>| {
        let rows: Vec<Row> = [30, 31, 31].iter().map(|&k| ("a".to_string(), hour_stamp(k), None)).collect();
        table_with(&rows, &[("temp", vec![Some(1.0), first, last])])
    };
    let reason = |f| column(&run_future(&t, &f, Some("h"), 2, &opts(json!({}))).unwrap(), "temp")["reason"].clone();
    assert_eq!(reason(twice(None, Some(2.0))), "model_unsupported");
    assert_eq!(reason(twice(Some(2.0), None)), "future_values_missing");
}

#[test]
fn future_stamps_read_at_an_offset_other_than_utc_make_the_data_timezone_normalized() {
    // History written in UTC; the future rows name the same instants at +05:00.
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    let at_plus_five = |k: i64| {
        let t = chrono::DateTime::from_timestamp(1_767_225_600 + k * 3600, 0).unwrap();
        t.with_timezone(&chrono::FixedOffset::east_opt(5 * 3600).unwrap()).format("%Y-%m-%dT%H:%M:%S%:z").to_string()
    };
    let rows: Vec<Row> = [30, 31].iter().map(|&k| ("a".to_string(), at_plus_five(k), None)).collect();
    let f = table_with(&rows, &[("temp", vec![Some(1.0); 2])]);
    let out = run_future(&t, &f, Some("h"), 2, &opts(json!({}))).unwrap();
    assert_eq!(quality(&out)["timezone_normalized"], true);
    // The report says it too (a /v1/clean body has no data_quality), though its series[].timezone
    // describes the history alone.
    assert_eq!(report_value(&out)["overall"]["timezone_normalized"], true);
    assert_eq!(report_value(&out)["series"][0]["timezone"]["explicit_offsets"], json!(["+00:00"]));
    assert_eq!(column(&out, "temp")["reason"], "model_unsupported", "the future rows were read at their instants");
    let out = run_future(&t, &future("a", 30, 2, "temp", Some(1.0)), Some("h"), 2, &opts(json!({}))).unwrap();
    assert_eq!(quality(&out)["timezone_normalized"], false);
    assert_eq!(report_value(&out)["overall"]["timezone_normalized"], false);
}

#[test]
fn a_naive_future_row_at_a_repeated_time_the_history_sent_is_its_second_pass() {
    // Berlin falls back at 03:00 CEST on 2024-10-27: 02:00 is read twice. The history ends at the
    // first 02:00 (00:00Z); the first forecast stamp is the second 02:00 (01:00Z).
    let wall = |k: i64| (chrono::NaiveDate::from_ymd_opt(2024, 10, 26).unwrap().and_hms_opt(0, 0, 0).unwrap() + chrono::Duration::hours(k)).format("%Y-%m-%d %H:%M:%S").to_string();
    let history: Vec<Row> = (0..=26).map(|k| ("a".to_string(), wall(k), Some(10.0 + (k % 5) as f64))).collect();
    let t = table_with(&history, &[("x", vec![Some(1.0); history.len()])]);
    let future_rows: Vec<Row> = (26..30).map(|k| ("a".to_string(), wall(k), None)).collect();
    let f = table_with(&future_rows, &[("x", vec![Some(2.0); 4])]);
    let out = run_future(&t, &f, Some("h"), 4, &opts(json!({"timezone": "Europe/Berlin"}))).unwrap();
    assert_eq!(column(&out, "x")["reason"], "model_unsupported", "every forecast stamp has its future row");
    assert!(warnings(&out).iter().all(|w| w["code"] != "future_rows_unused"), "{:?}", out.warnings);
}

#[test]
fn a_non_numeric_column_is_not_used() {
    let mut t = table_with(&hourly("a", 30), &[("kind", vec![None; 30])]);
    t.covariates[0].non_numeric = (0..30).collect();
    let out = run(&t, Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "kind")["reason"], "not_numeric");
}

#[test]
fn text_in_one_entity_makes_the_column_not_numeric_for_that_entity_only() {
    let rows: Vec<Row> = hourly("a", 30).into_iter().chain(hourly("b", 30)).collect();
    let mut t = table_with(&rows, &[("temp", (0..60).map(|k| Some(k as f64)).collect())]);
    t.covariates[0].non_numeric = vec![45]; // b's 16th row
    let mut f = future("a", 30, 1, "temp", Some(1.0));
    f.entities.push("b".into());
    f.ds.push(&hour_stamp(30));
    f.y.push(f64::NAN);
    f.rows.push(1);
    f.indptr.push(2);
    f.covariates[0].values.push(2.0);
    let out = run_future(&t, &f, Some("h"), 1, &opts(json!({}))).unwrap();
    let reason = |e: usize| json_of(&out.entities[e].model_input)["covariates"][0]["reason"].clone();
    assert_eq!(reason(0), "model_unsupported");
    assert_eq!(reason(1), "not_numeric");
    // Text in b's future row of the forecast stamp: b's column only.
    t.covariates[0].non_numeric.clear();
    f.covariates[0].non_numeric = vec![1];
    let out = run_future(&t, &f, Some("h"), 1, &opts(json!({}))).unwrap();
    let reason = |e: usize| json_of(&out.entities[e].model_input)["covariates"][0]["reason"].clone();
    assert_eq!(reason(0), "model_unsupported");
    assert_eq!(reason(1), "not_numeric");
}

#[test]
fn text_in_history_the_cleaning_cuts_away_does_not_make_the_column_not_numeric() {
    // A 60-hour gap splits the series; only the segment after it is kept.
    let rows: Vec<Row> = hourly("a", 300).into_iter().enumerate().filter(|(k, _)| !(100..160).contains(k)).map(|(_, r)| r).collect();
    let mut t = table_with(&rows, &[("temp", vec![Some(1.0); rows.len()])]);
    t.covariates[0].non_numeric = vec![5];
    let f = future("a", 300, 1, "temp", Some(1.0));
    let out = run_future(&t, &f, Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "temp")["reason"], "model_unsupported");
    // The same text in the kept segment counts.
    t.covariates[0].non_numeric = vec![200];
    let out = run_future(&t, &f, Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "temp")["reason"], "not_numeric");
}

#[test]
fn clean_exog_fills_short_covariate_gaps_and_false_makes_them_unusable() {
    let mut vals: Vec<Option<f64>> = (0..30).map(|k| Some(k as f64)).collect();
    vals[10] = None;
    let t = table_with(&hourly("a", 30), &[("temp", vals.clone())]);
    let f = future("a", 30, 1, "temp", Some(1.0));
    let out = run_future(&t, &f, Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "temp")["reason"], "model_unsupported");
    let report = report_value(&out);
    let d = decisions(&report, "exog.impute");
    assert_eq!(d[0]["column"], "temp");
    assert_eq!(d[0]["count"], 1);
    let off = run_future(&t, &f, Some("h"), 1, &opts(json!({"clean_exog": false}))).unwrap();
    assert_eq!(column(&off, "temp")["reason"], "gaps");
    // A long covariate gap (48 steps or more for hourly data) is never filled.
    let mut long = vec![Some(1.0); 100];
    long[20..80].iter_mut().for_each(|v| *v = None);
    let t = table_with(&hourly("a", 100), &[("temp", long)]);
    let out = run_future(&t, &future("a", 100, 1, "temp", Some(1.0)), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "temp")["reason"], "long_gaps");
}

#[test]
fn the_short_gap_limit_is_47_hourly_steps_and_a_gap_at_either_edge_is_never_filled() {
    // The limit is the automatic split threshold (48 for hourly data) minus one.
    let reason_with = |gap: std::ops::Range<usize>| {
        let mut vals = vec![Some(1.0); 120];
        vals[gap].iter_mut().for_each(|v| *v = None);
        let t = table_with(&hourly("a", 120), &[("temp", vals)]);
        let out = run_future(&t, &future("a", 120, 1, "temp", Some(1.0)), Some("h"), 1, &opts(json!({}))).unwrap();
        let report = report_value(&out);
        let filled = decisions(&report, "exog.impute").first().map(|d| d["count"].clone());
        (column(&out, "temp")["reason"].clone(), filled)
    };
    assert_eq!(reason_with(30..77), (json!("model_unsupported"), Some(json!(47))));
    assert_eq!(reason_with(30..78), (json!("long_gaps"), None));
    assert_eq!(reason_with(0..2), (json!("long_gaps"), None), "a gap at the start");
    assert_eq!(reason_with(118..120), (json!("long_gaps"), None), "a gap at the end");
}

#[test]
fn a_covariate_fill_that_is_only_proposed_leaves_the_column_with_gaps() {
    let mut vals: Vec<Option<f64>> = (0..30).map(|k| Some(k as f64)).collect();
    vals[10] = None;
    let t = table_with(&hourly("a", 30), &[("temp", vals)]);
    let f = future("a", 30, 1, "temp", Some(1.0));
    for options in [json!({"preset": "strict"}), json!({"clean_series": false})] {
        let out = run_future(&t, &f, Some("h"), 1, &opts(options.clone())).unwrap();
        assert_eq!(column(&out, "temp")["reason"], "gaps", "{options}");
        assert_eq!(decisions(&report_value(&out), "exog.impute")[0]["status"], "proposed", "{options}");
    }
    // The raw preset fills nothing: the gap stays, reported `gaps` whatever its length or place
    // and whatever clean_exog says (raw judges no gap too long to fill).
    let out = run_future(&t, &f, Some("h"), 1, &opts(json!({"preset": "raw"}))).unwrap();
    assert_eq!(column(&out, "temp")["reason"], "gaps");
    let with_gap = |gap: std::ops::Range<usize>| {
        let mut vals: Vec<Option<f64>> = (0..120).map(|k| Some(k as f64)).collect();
        for v in &mut vals[gap] {
            *v = None;
        }
        table_with(&hourly("a", 120), &[("temp", vals)])
    };
    let f120 = future("a", 120, 1, "temp", Some(1.0));
    for gap in [30..50, 30..90, 0..2, 118..120] {
        for clean_exog in [true, false] {
            let out = run_future(&with_gap(gap.clone()), &f120, Some("h"), 1, &opts(json!({"preset": "raw", "clean_exog": clean_exog}))).unwrap();
            assert_eq!(column(&out, "temp")["reason"], "gaps", "{gap:?} clean_exog {clean_exog}");
        }
    }
    // Accepting the proposal fills the gap.
    let out = run_future(&t, &f, Some("h"), 1, &opts(json!({"preset": "strict", "accept": ["exog.impute"]}))).unwrap();
    assert_eq!(column(&out, "temp")["reason"], "model_unsupported");
}

#[test]
fn future_rows_at_no_forecast_stamp_are_ignored_with_a_warning() {
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    // Stamps 30..35 for h = 2: the last three are past the horizon.
    let f = future("a", 30, 5, "temp", Some(1.0));
    let out = run_future(&t, &f, Some("h"), 2, &opts(json!({}))).unwrap();
    assert_eq!(column(&out, "temp")["reason"], "model_unsupported");
    let w = warnings(&out).into_iter().find(|w| w["code"] == "future_rows_unused").expect("a warning");
    assert_eq!(w["unique_id"], "a");
    assert_eq!(w["count"], 3);
    assert_eq!(w["stamps"][0], hour_stamp(32));
    assert!(report_value(&out)["warnings"].as_array().unwrap().contains(&w));
    // Every future row at a forecast stamp: no warning.
    let out = run_future(&t, &future("a", 30, 2, "temp", Some(1.0)), Some("h"), 2, &opts(json!({}))).unwrap();
    assert!(warnings(&out).iter().all(|w| w["code"] != "future_rows_unused"));
}

#[test]
fn a_future_row_a_later_one_for_the_same_stamp_supersedes_is_reported_unused() {
    // Found by audit: the earlier copy was dropped without a trace, while a duplicate series row
    // is a `ds.dedupe` decision and an off-horizon future row this warning.
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    let rows: Vec<Row> = [31, 30, 31, 31].iter().map(|&k| ("a".to_string(), hour_stamp(k), None)).collect();
    let f = table_with(&rows, &[("temp", vec![Some(99.0), Some(1.0), Some(98.0), None])]);
    let out = run_future(&t, &f, Some("h"), 2, &opts(json!({}))).unwrap();
    let w = warnings(&out).into_iter().find(|w| w["code"] == "future_rows_unused").expect("a warning");
    // Two rows superseded, their stamp listed once (as ds.dedupe lists its stamps).
    assert_eq!((w["count"].clone(), w["stamps"].clone()), (json!(2), json!([hour_stamp(31)])));
    // The last copy is the one judged: its null leaves the stamp uncovered.
    assert_eq!(column(&out, "temp")["reason"], "future_values_missing");
}

#[test]
fn a_future_column_absent_from_series_is_a_column_mismatch() {
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    let f = future("a", 30, 1, "promo", Some(1.0));
    let err = run_future(&t, &f, Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::CovariateColumnMismatch);
    assert_eq!(err.details["future_only"], json!(["promo"]));
}

#[test]
fn future_rows_of_an_entity_without_history_are_invalid() {
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    let f = future("zz", 30, 1, "temp", Some(1.0));
    let err = run_future(&t, &f, Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::FutureCovariatesInvalid);
}

#[test]
fn data_quality_notes_count_entities_not_covariate_columns() {
    let mut vals: Vec<Option<f64>> = (0..30).map(|k| Some(k as f64)).collect();
    vals[10] = None;
    let t = table_with(&hourly("a", 30), &[("temp", vals.clone()), ("wind", vals)]);
    let f_rows: Vec<Row> = vec![("a".to_string(), hour_stamp(30), None)];
    let f = table_with(&f_rows, &[("temp", vec![Some(1.0)]), ("wind", vec![Some(1.0)])]);
    let out = run_future(&t, &f, Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(decisions(&report_value(&out), "exog.impute").len(), 2);
    assert_eq!(quality(&out)["notes"], json!(["exog.impute: 2 points in 1 series"]));
}

#[test]
fn with_the_regrid_declined_a_covariate_fill_covers_only_the_rows_that_exist() {
    // Hour 30 has no row at all; hour 40 has a row whose covariate is null.
    let rows = drop_range(hourly("a", 72), 30..31);
    let temp: Vec<Option<f64>> = rows.iter().enumerate().map(|(i, _)| if i == 39 { None } else { Some(i as f64) }).collect();
    let t = table_with(&rows, &[("temp", temp)]);
    let err = run(&t, Some("h"), 1, &opts(json!({"decline": ["grid.regrid"]}))).unwrap_err();
    let report = report_of(&err);
    let fills = decisions(&report, "exog.impute");
    assert_eq!(fills.len(), 1);
    assert_eq!((fills[0]["count"].clone(), fills[0]["status"].clone()), (json!(1), json!("applied")));
    assert_eq!(fills[0]["ranges"][0]["from"], json!(hour_stamp(40)));
    // Proposed (strict) with the fill accepted: the same, the regrid's slot does not exist.
    let err = run(&t, Some("h"), 1, &opts(json!({"preset": "strict", "accept": ["exog.impute"]}))).unwrap_err();
    let report = report_of(&err);
    let fills = decisions(&report, "exog.impute");
    assert_eq!((fills[0]["count"].clone(), fills[0]["status"].clone()), (json!(1), json!("applied")));
    assert_eq!(fills[0]["ranges"][0]["from"], json!(hour_stamp(40)));
    // With the regrid applied, both slots are filled.
    let out = run(&t, Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(decisions(&report_value(&out), "exog.impute")[0]["count"], json!(2));
}

#[test]
fn naive_future_stamps_read_in_utc_count_in_the_naive_timestamps_issue() {
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    // The forecast stamps are hours 30 to 32; the future rows are written without an offset.
    let rows: Vec<Row> = (30..33).map(|k| ("a".to_string(), hour_stamp(k).trim_end_matches('Z').to_string(), None)).collect();
    let f = table_with(&rows, &[("temp", vec![Some(2.0); 3])]);
    let out = run_future(&t, &f, Some("h"), 3, &opts(json!({}))).unwrap();
    assert_eq!(report_value(&out)["series"][0]["issues"], json!([{"code": "naive_timestamps_assumed_utc", "level": "info", "count": 3}]));
    assert_eq!(column(&out, "temp")["reason"], "model_unsupported");
    // Read in options.timezone, they are no fallback.
    let out = run_future(&t, &f, Some("h"), 3, &opts(json!({"timezone": "UTC"}))).unwrap();
    assert_eq!(report_value(&out)["series"][0]["issues"], json!([]));
    // An entity blocked before it has a grid (no numeric y) is counted the same.
    let empty: Vec<Row> = hourly("a", 30).into_iter().map(|(u, ds, _)| (u, ds, None)).collect();
    let err = run_future(&table_with(&empty, &[("temp", vec![Some(1.0); 30])]), &f, Some("h"), 3, &opts(json!({}))).unwrap_err();
    assert_eq!(report_of(&err)["series"][0]["issues"], json!([{"code": "naive_timestamps_assumed_utc", "level": "info", "count": 3}]));
}

#[test]
fn a_dry_run_reports_as_the_forecast_does_and_keeps_no_forecast_stamps_once_the_future_rows_are_checked() {
    // Entity a sends future rows for two of three forecast stamps; b sends none.
    let rows: Vec<Row> = hourly("a", 30).into_iter().chain(hourly("b", 30)).collect();
    let t = table_with(&rows, &[("temp", vec![Some(1.0); 60])]);
    let f = future("a", 30, 2, "temp", Some(1.0));
    let o = opts(json!({}));
    let forecast = run_for(Purpose::Forecast, &t, Some(&f), Some("h"), 3, &o).unwrap();
    let dry = run_for(Purpose::DryRun, &t, Some(&f), Some("h"), 3, &o).unwrap();
    assert_eq!(dry.report, forecast.report);
    assert_eq!(dry.data_quality, forecast.data_quality);
    assert_eq!(dry.warnings, forecast.warnings);
    for (d, f) in dry.entities.iter().zip(&forecast.entities) {
        assert_eq!(d.model_input, f.model_input);
    }
    // a's column was checked against its three stamps (it covers two); b's misses every forecast
    // stamp though none was listed for it.
    assert_eq!(json_of(&dry.entities[0].model_input)["covariates"][0]["reason"], "future_values_missing");
    assert_eq!(json_of(&dry.entities[1].model_input)["covariates"][0]["reason"], "future_values_missing");
    // Found by audit: kept, a's stamps made a dry run of 100,000 such entities at h = 2048 hold
    // 1.6 GB at once; the answer needs none.
    assert!(dry.entities.iter().all(|e| e.forecast_stamps.is_empty()));
    assert_eq!(forecast.entities[0].forecast_stamps, vec![micros(30), micros(31), micros(32)]);
    assert_eq!(forecast.entities[1].forecast_stamps.len(), 3);
    // The engine's raw path, which the service's /v1/clean refuses, keeps none either.
    let raw = opts(json!({"preset": "raw"}));
    let dry = run_for(Purpose::DryRun, &t, Some(&f), Some("h"), 3, &raw).unwrap();
    assert!(dry.entities.iter().all(|e| e.forecast_stamps.is_empty()));
    assert_eq!(run_for(Purpose::Forecast, &t, Some(&f), Some("h"), 3, &raw).unwrap().entities[0].forecast_stamps.len(), 3);
}


#[test]
fn future_rows_written_in_another_format_than_their_history_are_a_validation_error() {
    // One format per entity: hourly ISO history, future rows as Unix seconds of the next hours.
    let t = table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]);
    let unix = |k: i64| (micros(k) / 1_000_000).to_string();
    let rows: Vec<Row> = [30, 31].iter().map(|&k| ("a".to_string(), unix(k), None)).collect();
    let f = table_with(&rows, &[("temp", vec![Some(1.0); 2])]);
    for preset in ["default", "raw"] {
        let err = run_future(&t, &f, Some("h"), 2, &opts(json!({"preset": preset}))).unwrap_err();
        assert_eq!(err.code, ErrorCode::ValidationError, "{preset}");
        let listed: Vec<&str> = err.details["errors"].as_array().unwrap().iter().map(|e| e["field"].as_str().unwrap()).collect();
        assert_eq!(listed, ["future_covariates[0].ds", "future_covariates[1].ds"], "{preset}");
        assert!(err.details["errors"][0]["message"].as_str().unwrap().ends_with("is written in another format than series[0].ds; one timestamp format per entity"));
    }
    // Written as the history was, the same instants are read.
    let iso: Vec<Row> = [30, 31].iter().map(|&k| ("a".to_string(), hour_stamp(k), None)).collect();
    assert!(run_future(&t, &table_with(&iso, &[("temp", vec![Some(1.0); 2])]), Some("h"), 2, &opts(json!({}))).is_ok());
}
