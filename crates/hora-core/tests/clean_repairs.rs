//! Sort, duplicates, regrid and imputation under the presets, and the accept/decline round trip.

mod clean_common;
use clean_common::*;
use hora_core::ErrorCode;
use serde_json::{json, Value};

#[test]
fn default_preset_sorts_rows_and_records_the_decision() {
    let mut rows = hourly("a", 30);
    rows.reverse();
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values[0], 10.0);
    let report = report_value(&out);
    let sort = decisions(&report, "ds.sort");
    assert_eq!(sort.len(), 1);
    assert_eq!(sort[0]["status"], "applied");
    assert_eq!(quality(&out)["status"], "cleaned");
}

#[test]
fn duplicate_stamps_keep_the_last_row_sent() {
    let mut rows = hourly("a", 30);
    rows.insert(5, ("a".into(), hour_stamp(3), Some(99.0)));
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values[3], 99.0);
    assert_eq!(out.entities[0].values.len(), 30);
    let report = report_value(&out);
    let d = decisions(&report, "ds.dedupe");
    assert_eq!(d[0]["count"], 1);
    assert_eq!(d[0]["stamps"], json!([hour_stamp(3)]));
}

#[test]
fn ds_sort_counts_the_rows_it_moved() {
    // Two neighbours swapped: two rows change place, the other 28 do not.
    let mut rows = hourly("a", 30);
    rows.swap(10, 11);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(decisions(&report_value(&out), "ds.sort")[0]["count"], 2);
}

#[test]
fn a_stamp_sent_three_times_in_order_is_one_listed_stamp_two_dropped_rows_and_no_sort() {
    let mut rows = hourly("a", 30);
    rows.insert(4, ("a".into(), hour_stamp(3), Some(98.0)));
    rows.insert(5, ("a".into(), hour_stamp(3), Some(99.0)));
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values[3], 99.0);
    let report = report_value(&out);
    let d = decisions(&report, "ds.dedupe");
    assert_eq!((d[0]["count"].clone(), d[0]["stamps"].clone()), (json!(2), json!([hour_stamp(3)])));
    assert!(decisions(&report, "ds.sort").is_empty(), "rows already in time order are not sorted");
}

#[test]
fn gaps_are_regridded_and_imputed_linearly_without_touching_observed_values() {
    let rows = with_gap("a", 40, 10..13);
    let out = run(&table(&rows), Some("h"), 2, &opts(json!({}))).unwrap();
    let v = &out.entities[0].values;
    assert_eq!(v.len(), 40);
    assert_eq!(&v[9..14], &[19.0, 20.0, 21.0, 22.0, 23.0]);
    assert_eq!(quality(&out)["imputed_points"], 3);
    assert_eq!(quality(&out)["missing_ratio"], 3.0 / 40.0);
    assert_eq!(out.input_data_points, 37);
    assert_eq!(json_of(&out.entities[0].model_input)["fed_points"], 37);
    let report = report_value(&out);
    let regrid = decisions(&report, "grid.regrid");
    assert_eq!(regrid[0]["count"], 3);
    assert_eq!(regrid[0]["ranges"], json!([{"from": hour_stamp(10), "to": hour_stamp(12)}]));
    assert_eq!(decisions(&report, "gap.impute")[0]["method"], "linear");
}

#[test]
fn null_values_inside_the_series_are_imputed() {
    let mut rows = hourly("a", 30);
    rows[7].2 = None;
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values[7], 17.0);
    let report = report_value(&out);
    assert!(decisions(&report, "grid.regrid").is_empty());
    assert_eq!(decisions(&report, "gap.impute")[0]["count"], 1);
}

#[test]
fn strict_preset_proposes_regrid_and_accept_applies_it() {
    let rows = with_gap("a", 40, 10..12);
    let t = table(&rows);
    let err = run(&t, Some("h"), 1, &opts(json!({"preset": "strict"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    assert_eq!(err.details["reason"], "series_discontinuous");
    assert_eq!(err.details["kind"], "cleaning_required");
    let report = &report_of(&err);
    let proposed: Vec<String> = report["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["status"] == "proposed")
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(proposed, vec!["grid.regrid", "gap.impute"]);
    let out = run(&t, Some("h"), 1, &opts(json!({"preset": "strict", "accept": proposed}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 40);
    assert_eq!(report_value(&out)["policy"]["id"], "strict@2026-13");
}

#[test]
fn strict_preset_answers_timestamp_irregular_for_unsorted_rows() {
    let mut rows = hourly("a", 30);
    rows.swap(3, 4);
    let t = table(&rows);
    let err = run(&t, Some("h"), 1, &opts(json!({"preset": "strict"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::TimestampIrregular);
    assert_eq!(err.details["reason"], "timestamp_irregular");
    assert_eq!(decisions(&report_of(&err), "ds.sort")[0]["status"], "proposed");
    let ok = run(&t, Some("h"), 1, &opts(json!({"preset": "strict", "accept": ["ds.sort"]})));
    assert!(ok.is_ok(), "{:?}", ok.err().map(|e| (e.code, e.details.get("reason").cloned())));
}

#[test]
fn clean_series_false_detects_without_repairing_and_accept_still_applies() {
    let t = table(&with_gap("a", 40, 10..12));
    let err = run(&t, Some("h"), 1, &opts(json!({"clean_series": false}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    // docs/cleaning-policy.md: clean_series false is strict, and `accept` applies what it names.
    let accepted = run(&t, Some("h"), 1, &opts(json!({"clean_series": false, "accept": ["grid.regrid", "gap.impute"]}))).unwrap();
    let report = report_value(&accepted);
    assert_eq!(decisions(&report, "gap.impute")[0]["status"], "applied");
    assert_eq!(accepted.entities[0].values.len(), 40);
    let clean = table(&hourly("a", 40));
    assert!(run(&clean, Some("h"), 1, &opts(json!({"clean_series": false}))).is_ok());
}

#[test]
fn declining_an_applied_reversible_decision_blocks_the_request() {
    let t = table(&with_gap("a", 40, 10..12));
    let err = run(&t, Some("h"), 1, &opts(json!({"decline": ["gap.impute"]}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    let report = &report_of(&err);
    assert_eq!(decisions(report, "gap.impute")[0]["status"], "declined");
    assert_eq!(report["blocking"][0]["caused_by"], json!(["gap.impute"]));
}

#[test]
fn without_the_regrid_the_imputation_counts_only_the_null_rows_it_can_fill() {
    // Stamps 10 and 11 missing, row 20 null.
    let mut rows = with_gap("a", 48, 10..12);
    rows[18].2 = None;
    let t = table(&rows);
    for options in [json!({"decline": ["grid.regrid"]}), json!({"preset": "strict", "accept": ["gap.impute"]})] {
        let err = run(&t, Some("h"), 1, &opts(options.clone())).unwrap_err();
        let report = &report_of(&err);
        assert_ne!(decisions(report, "grid.regrid")[0]["status"], "applied", "{options}");
        let impute = &decisions(report, "gap.impute")[0];
        assert_eq!((impute["status"].as_str(), impute["count"].as_u64()), (Some("applied"), Some(1)), "{options}");
        // The two slots never inserted are not handed on either: 46 rows.
        assert_eq!(report["overall"]["output_points"], 46, "{options}");
        assert_eq!(report["series"][0]["output_points"], 46, "{options}");
    }
    // With the regrid applied, the inserted slots are filled too.
    let out = run(&t, Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(decisions(&report_value(&out), "gap.impute")[0]["count"], 3);
}

#[test]
fn an_imputation_proposed_or_declined_is_not_counted_as_imputed() {
    // Stamps 10 and 11 missing, row 20 null: three slots to fill.
    let mut rows = with_gap("a", 48, 10..12);
    rows[18].2 = None;
    let t = table(&rows);
    for options in [json!({"preset": "strict"}), json!({"decline": ["gap.impute"]})] {
        let report_err = run(&t, Some("h"), 1, &opts(options.clone())).unwrap_err();
        let report = &report_of(&report_err);
        let impute = &decisions(report, "gap.impute")[0];
        assert_ne!(impute["status"], "applied", "{options}");
        assert_eq!(impute["count"], 3, "{options}");
        assert_eq!(report["series"][0]["imputed_points"], 0, "{options}");
    }
    let out = run(&t, Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(report_value(&out)["series"][0]["imputed_points"], 3);
}

#[test]
fn unknown_accept_ids_are_reported_not_refused() {
    let t = table(&hourly("a", 30));
    let out = run(&t, Some("h"), 1, &opts(json!({"accept": ["no.such"], "decline": ["ds.sort"]}))).unwrap();
    let w = &report_value(&out)["warnings"];
    assert!(w.as_array().unwrap().contains(&json!({"code": "accept_id_unknown", "id": "no.such"})));
    assert!(w.as_array().unwrap().contains(&json!({"code": "decline_not_reversible", "id": "ds.sort"})));
}

#[test]
fn an_id_both_accepted_and_declined_is_declined_with_a_report_warning() {
    // Stamps 10 and 11 missing: under strict, accepting gap.impute alone repairs the series.
    let t = table(&with_gap("a", 48, 10..12));
    let strict = |extra: Value| {
        let mut o = json!({"preset": "strict", "accept": ["grid.regrid", "gap.impute"]});
        o.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        opts(o)
    };
    assert!(run(&t, Some("h"), 1, &strict(json!({}))).is_ok());
    let err = run(&t, Some("h"), 1, &strict(json!({"decline": ["gap.impute"]}))).unwrap_err();
    let report = report_of(&err);
    assert_eq!(decisions(&report, "gap.impute")[0]["status"], "declined");
    let w = report["warnings"].as_array().unwrap();
    assert!(w.contains(&json!({"code": "accept_id_declined", "id": "gap.impute"})), "{w:?}");
    assert!(!w.iter().any(|x| x["id"] == "grid.regrid"), "{w:?}");
}

#[test]
fn a_repeated_accept_id_is_one_instruction_and_one_warning() {
    let t = table(&hourly("a", 30));
    let out = run(&t, Some("h"), 1, &opts(json!({"accept": ["no.such", "no.such", "other", "no.such"]}))).unwrap();
    let w = &report_value(&out)["warnings"].as_array().unwrap().clone();
    let unknown: Vec<&Value> = w.iter().filter(|x| x["code"] == "accept_id_unknown").map(|x| &x["id"]).collect();
    assert_eq!(unknown, [&json!("no.such"), &json!("other")]);
}

#[test]
fn stamps_off_the_grid_are_dropped_and_recorded() {
    let mut rows = hourly("a", 40);
    rows[20].1 = rows[20].1.replace(":00:00Z", ":30:00Z");
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    let report = report_value(&out);
    assert_eq!(decisions(&report, "grid.drop_off_grid")[0]["count"], 1);
    // The dropped slot is inserted again and filled.
    assert_eq!(out.entities[0].values[20], 30.0);
}

#[test]
fn many_stamps_off_the_grid_fail_frequency_inference() {
    let rows: Vec<Row> = (0..30).map(|k| ("a".into(), hour_stamp(k).replace(":00:00Z", if k % 3 == 0 { ":20:00Z" } else { ":00:00Z" }), Some(1.0))).collect();
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::FreqInferenceFailed);
    assert!(err.cleaning_report.is_some());
}

#[test]
fn outliers_are_flagged_and_never_modified() {
    let mut rows = hourly("a", 40);
    rows[25].2 = Some(1.0e6);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values[25], 1.0e6);
    assert_eq!(quality(&out)["outlier_points_suppressed"], 0);
    assert_eq!(issue(&out, "outliers_flagged").unwrap()["count"], 1);
}

#[test]
fn value_issues_are_warnings_with_their_count_and_stamps() {
    // docs/cleaning-report.md: outliers_flagged, values_out_of_bounds and negative_values are
    // warnings with `count` and the first 20 `stamps`.
    let mut rows = hourly("a", 40);
    rows[25].2 = Some(1.0e6);
    rows[3].2 = Some(-5.0);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"nonnegative": true, "bounds": {"lower": -10.0, "upper": 100.0}}))).unwrap();
    for (code, k) in [("outliers_flagged", 25), ("values_out_of_bounds", 25), ("negative_values", 3)] {
        let i = issue(&out, code).unwrap_or_else(|| panic!("{code}"));
        assert_eq!((&i["level"], &i["count"]), (&json!("warning"), &json!(1)), "{code}");
        assert_eq!(i["stamps"], json!([hour_stamp(k)]), "{code}");
    }
}

#[test]
fn outliers_are_flagged_above_a_robust_z_score_of_6_only() {
    // y cycles 10..=14: median 12, MAD 1 x 1.4826. 19 scores 4.7 and stays unflagged; 23 scores 7.4.
    let mut rows: Vec<Row> = hourly("a", 40).into_iter().enumerate().map(|(k, (u, ds, _))| (u, ds, Some(10.0 + (k % 5) as f64))).collect();
    rows[25].2 = Some(19.0);
    rows[30].2 = Some(23.0);
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(issue(&out, "outliers_flagged").unwrap()["count"], 1);
    assert_eq!((out.entities[0].values[25], out.entities[0].values[30]), (19.0, 23.0));
}

#[test]
fn a_sent_freq_accepts_up_to_10_percent_of_stamps_off_its_grid() {
    // Every tenth stamp moved half an hour: 10 of 100 off the grid is allowed, 11 is not.
    let shifted = |moved: &[usize]| -> Vec<Row> {
        hourly("a", 100)
            .into_iter()
            .enumerate()
            .map(|(k, (u, ds, y))| if moved.contains(&k) { (u, ds.replace(":00:00Z", ":30:00Z"), y) } else { (u, ds, y) })
            .collect()
    };
    let ten: Vec<usize> = (0..10).map(|i| 5 + 10 * i).collect();
    assert!(run(&table(&shifted(&ten)), Some("h"), 1, &opts(json!({}))).is_ok());
    let eleven: Vec<usize> = ten.iter().copied().chain([52]).collect();
    let err = run(&table(&shifted(&eleven)), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::FreqInferenceFailed);
}

#[test]
fn a_negative_row_dedupe_supersedes_still_marks_the_history_as_able_to_go_negative() {
    let rows = hourly("a", 30);
    assert!(run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap().entities[0].history_nonnegative);
    // An earlier duplicate of hour 5 with y = -5: the later row (y = 15) is kept.
    let mut with_dup = rows.clone();
    with_dup.insert(5, ("a".to_string(), rows[5].1.clone(), Some(-5.0)));
    let out = run(&table(&with_dup), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values[5], 15.0);
    assert!(!out.entities[0].history_nonnegative);
    // A row off the grid (half past hour 5) with y = -5: dropped from the grid, still counted.
    let mut off_grid = rows.clone();
    off_grid.insert(6, ("a".to_string(), rows[5].1.replace(":00:00Z", ":30:00Z"), Some(-5.0)));
    let out = run(&table(&off_grid), Some("h"), 1, &opts(json!({}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 30);
    assert!(!out.entities[0].history_nonnegative);
}

#[test]
fn a_blocking_entry_with_a_declined_cause_among_proposed_ones_says_declined() {
    // A missing stamp (grid.regrid, proposed under strict) and a null (gap.impute, declined).
    let mut rows = with_gap("a", 40, 10..11);
    rows[20].2 = None;
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({"preset": "strict", "decline": ["gap.impute"]}))).unwrap_err();
    let report = report_of(&err);
    assert_eq!(decisions(&report, "grid.regrid")[0]["status"], "proposed");
    assert_eq!(decisions(&report, "gap.impute")[0]["status"], "declined");
    let block = &report["blocking"][0];
    assert_eq!(block["caused_by"], json!(["grid.regrid", "gap.impute"]));
    assert_eq!(block["status"], "declined");
    assert_eq!(err.details["status"], "declined");
}
