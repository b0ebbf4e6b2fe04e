//! Data errors of the cleaning stage: empty, too short, too long (both measures), grid too large,
//! frequency codes; each carries the report where the contract says so.

mod clean_common;
use clean_common::*;
use hora_core::clean::{self, CleanRequest, Purpose};
use hora_core::ErrorCode;
use serde_json::{json, Value};

#[test]
fn an_entity_without_numeric_y_is_series_empty() {
    let rows: Vec<Row> = [hourly("a", 20), (0..20).map(|k| ("b".to_string(), hour_stamp(k), None)).collect()].concat();
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesEmpty);
    assert_eq!(err.details["unique_id"], "b");
    assert!(err.cleaning_report.is_some());
}

#[test]
fn an_entity_a_dedupe_left_without_numeric_y_reports_that_dedupe_alone_as_among_others() {
    // Found by audit: with no other entity the run stopped before the stamps' decisions reached
    // the report, so the dedupe that dropped the only number was not listed.
    let emptied: Vec<Row> = vec![("a".into(), hour_stamp(0), Some(5.0)), ("a".into(), hour_stamp(0), None), ("a".into(), hour_stamp(1), None)];
    let summary = |rows: &[Row], options: Value| {
        let err = run(&table(rows), Some("h"), 1, &opts(options)).unwrap_err();
        let report = report_of(&err);
        let of_a = |list: &Value| -> Vec<Value> { list.as_array().unwrap().iter().filter(|x| x["unique_id"] == "a").cloned().collect() };
        (err.code, of_a(&report["decisions"]), of_a(&report["blocking"]))
    };
    for options in [json!({}), json!({"preset": "strict"})] {
        let alone = summary(&emptied, options.clone());
        let among = summary(&[emptied.clone(), hourly("b", 20)].concat(), options.clone());
        assert_eq!(alone, among, "{options}");
        assert_eq!(alone.1.iter().map(|d| d["id"].clone()).collect::<Vec<_>>(), [json!("ds.dedupe")], "{options}");
    }
}

#[test]
fn a_report_that_ends_before_the_grid_stages_lists_the_stamps_decisions_made_so_far_and_counts_what_it_lists() {
    // a: hourly with one stamp sent twice. b: slash dates whose day/month order nothing proves.
    let mut a = hourly("a", 30);
    a.push(a[5].clone());
    let b: Vec<Row> = (1..=12).map(|d| ("b".to_string(), format!("{d}/{}/2024", d % 12 + 1), Some(1.0))).collect();
    let ambiguous = run(&table(&[a.clone(), b].concat()), None, 1, &opts(json!({}))).unwrap_err();
    assert_eq!(ambiguous.code, ErrorCode::AmbiguousDateFormat);
    let report = report_of(&ambiguous);
    assert_eq!(decisions(&report, "ds.dedupe").len(), 1);
    // Only a is listed, and only its 31 rows are counted.
    assert_eq!((report["overall"]["series_count"].clone(), report["overall"]["input_points"].clone()), (json!(1), json!(31)));
    // Stamps no frequency fits: the frequency's failure, with a's dedupe listed.
    let irregular: Vec<Row> = [0, 1, 3, 7, 15, 31, 63, 64].iter().map(|&k| ("c".to_string(), hour_stamp(k), Some(1.0))).chain([("c".to_string(), hour_stamp(0), Some(2.0))]).collect();
    let failed = run(&table(&irregular), None, 1, &opts(json!({}))).unwrap_err();
    assert_eq!(failed.code, ErrorCode::FreqInferenceFailed);
    assert_eq!(decisions(&report_of(&failed), "ds.dedupe").len(), 1);
}

#[test]
fn an_empty_entity_sent_first_decides_the_code_as_alone_when_the_others_give_no_frequency() {
    // Found by review: under strict its proposed dedupe made TIMESTAMP_IRREGULAR alone or beside
    // a regular entity, but SERIES_EMPTY beside one whose frequency could not be inferred.
    let empty: Vec<Row> = vec![("e".into(), hour_stamp(0), None), ("e".into(), hour_stamp(0), None), ("e".into(), hour_stamp(1), None)];
    let irregular: Vec<Row> = [0, 1, 3, 7, 15, 31, 63, 64].iter().map(|&k| ("c".to_string(), hour_stamp(k), Some(1.0))).collect();
    let strict = opts(json!({"preset": "strict"}));
    let code = |rows: &[Row]| run(&table(rows), None, 1, &strict).unwrap_err().code;
    assert_eq!(code(&empty), ErrorCode::TimestampIrregular);
    assert_eq!(code(&[empty.clone(), hourly("b", 30)].concat()), ErrorCode::TimestampIrregular);
    assert_eq!(code(&[empty.clone(), irregular.clone()].concat()), ErrorCode::TimestampIrregular);
    // Sent after the entity that gives no frequency, the frequency's failure decides; so it does
    // after a regular entity the failure does not list.
    assert_eq!(code(&[irregular.clone(), empty.clone()].concat()), ErrorCode::FreqInferenceFailed);
    assert_eq!(code(&[hourly("b", 30), empty, irregular].concat()), ErrorCode::FreqInferenceFailed);
}

#[test]
fn a_split_proposed_or_declined_exempts_the_entity_from_the_count_of_stamps_in_the_report_too() {
    // Found by audit: validation exempted it, but the report still listed SERIES_TOO_LONG on the
    // 4,200 stamps, though accepting the split answers 200 with 3,000 points.
    let rows = drop_range(hourly("a", 4700), 1200..1700);
    for options in [json!({"preset": "strict"}), json!({"decline": ["gap.split"]}), json!({"clean_series": false})] {
        let err = run(&table(&rows), Some("h"), 1, &opts(options.clone())).unwrap_err();
        assert_eq!(err.code, ErrorCode::SeriesDiscontinuous, "{options}");
        let reasons: Vec<Value> = report_of(&err)["blocking"].as_array().unwrap().iter().map(|b| b["reason"].clone()).collect();
        assert!(!reasons.contains(&json!("too_long")), "{options}: {reasons:?}");
    }
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({"preset": "strict", "accept": ["gap.split"]}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 3000);
}

#[test]
fn entities_without_numeric_y_are_listed_among_the_others_and_the_first_blocked_decides() {
    let empty = |id: &str| (0..20).map(|k| (id.to_string(), hour_stamp(k), None)).collect::<Vec<Row>>();
    // Found by audit: the first empty entity used to stop cleaning, hiding every other block.
    let rows: Vec<Row> = [hourly("ok", 40), hourly("short", 8), empty("e1"), empty("e2")].concat();
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooShort);
    let blocked: Vec<(String, String)> = report_of(&err)["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["unique_id"].as_str().unwrap().to_string(), b["reason"].as_str().unwrap().to_string()))
        .collect();
    let want = [("short", "too_short"), ("e1", "no_numeric_values"), ("e2", "no_numeric_values")];
    assert_eq!(blocked, want.map(|(u, r)| (u.to_string(), r.to_string())));
    // An empty entity has no grid, so its series entry has no counts; the others keep theirs.
    let series = &report_of(&err)["series"];
    assert!(series[2].get("output_points").is_none() && series[2].get("missing_ratio").is_none());
    assert_eq!(series[0]["output_points"], 40);
    // Without a frequency sent, the empty entities' stamps take no part in the inference.
    let lone_null: Vec<Row> = [hourly("ok", 40), vec![("n".to_string(), hour_stamp(3), None)]].concat();
    let err = run(&table(&lone_null), None, 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesEmpty);
    // Nor in the grid: stamps off the hourly grid (5 minutes apart) neither fail it nor hide the
    // blocks of the entities after them.
    let five_min = |id: &str| {
        (0..20)
            .map(|k| (id.to_string(), chrono::DateTime::from_timestamp(1_767_225_600 + k * 300, 0).unwrap().format("%Y-%m-%dT%H:%M:%SZ").to_string(), None))
            .collect::<Vec<Row>>()
    };
    let rows: Vec<Row> = [hourly("ok", 40), five_min("e5"), hourly("short", 8)].concat();
    let err = run(&table(&rows), None, 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesEmpty);
    let report = report_of(&err);
    let reasons: Vec<&str> = report["blocking"].as_array().unwrap().iter().map(|b| b["reason"].as_str().unwrap()).collect();
    assert_eq!(reasons, ["no_numeric_values", "too_short"]);
    // When the inference fails for the others, an empty entity sent first still decides the code.
    let rows: Vec<Row> = [empty("e"), hourly("one", 2)].concat();
    let err = run(&table(&rows), None, 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesEmpty);
    let report = report_of(&err);
    let reasons: Vec<&str> = report["blocking"].as_array().unwrap().iter().map(|b| b["reason"].as_str().unwrap()).collect();
    assert_eq!(reasons, ["no_numeric_values", "too_few_stamps"]);
}

#[test]
fn an_entity_too_far_off_the_grid_is_blocked_in_its_place_and_the_first_blocked_decides() {
    // Found by audit: the first entity off the grid stopped cleaning, set the code and hid the
    // entities after it. 8 of b's 40 stamps are 20 minutes past the hour.
    let off: Vec<Row> = hourly("b", 40)
        .into_iter()
        .enumerate()
        .map(|(k, (u, ds, y))| (u, if k % 5 == 2 { ds.replace(":00:00Z", ":20:00Z") } else { ds }, y))
        .collect();
    let rows: Vec<Row> = [hourly("a", 8), off.clone(), hourly("c", 8)].concat();
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooShort);
    let report = &report_of(&err);
    let blocked: Vec<(&str, &str)> =
        report["blocking"].as_array().unwrap().iter().map(|b| (b["unique_id"].as_str().unwrap(), b["reason"].as_str().unwrap())).collect();
    assert_eq!(blocked, [("a", "too_short"), ("b", "freq_inference_failed"), ("c", "too_short")]);
    assert_eq!(report["blocking"][1]["off_grid_share"], 0.2);
    // Off the grid, it has no grid and so no counts; the others keep theirs.
    assert!(report["series"][1].get("output_points").is_none());
    assert_eq!(report["series"][2]["output_points"], 8);
    // Sent first, it decides the code, with its figures in the details.
    let rows: Vec<Row> = [off, hourly("a", 8)].concat();
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::FreqInferenceFailed);
    assert_eq!((err.details["unique_id"].as_str(), err.details["off_grid_share"].as_f64()), (Some("b"), Some(0.2)));
    assert_eq!(report_of(&err)["blocking"].as_array().unwrap().len(), 2);
}

#[test]
fn fewer_than_16_points_after_cleaning_is_series_too_short() {
    let err = run(&table(&hourly("a", 15)), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooShort);
    assert_eq!(err.details["min_context"], 16);
    assert_eq!(report_of(&err)["blocking"][0]["reason"], "too_short");
}

#[test]
fn too_many_distinct_stamps_is_series_too_long_measured_on_timestamps() {
    let err = run(&table(&hourly("a", 5000)), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooLong);
    assert_eq!(err.details["measured"], "timestamps");
    assert_eq!(err.details["max_context"], 4096);
    assert_eq!(err.details["series"], json!([{"unique_id": "a", "points": 5000}]));
    assert_eq!(err.details["series_count"], 1);
}

#[test]
fn a_grid_longer_than_the_context_after_filling_is_measured_on_model_input() {
    // 4000 stamps spread over 4100 slots: fewer stamps than the maximum, more grid slots.
    let rows: Vec<Row> = hourly("a", 4100).into_iter().enumerate().filter(|(k, _)| k % 41 != 5).map(|(_, r)| r).collect();
    assert!(rows.len() <= 4096);
    let err = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooLong);
    assert_eq!(err.details["measured"], "model_input");
}

#[test]
fn an_entity_cut_by_a_long_gap_skips_the_pre_cleaning_length_check() {
    let rows: Vec<Row> = hourly("a", 5000).into_iter().enumerate().filter(|(k, _)| !(1000..1100).contains(k)).map(|(_, r)| r).collect();
    let t = table(&rows);
    let o = opts(json!({}));
    // 4,900 rows, more than the model's 4,096, pass the check before cleaning: the split will cut them.
    let req = CleanRequest { series: &t, future: None, freq: Some("h"), h: 1, options: &o, model_limits: Some(LIMITS), stamps: None, purpose: Purpose::Forecast };
    assert!(clean::check_length(&req).is_ok());
    let out = run(&t, Some("h"), 1, &o).unwrap();
    assert_eq!(out.entities[0].values.len(), 3900);
}

#[test]
fn an_implied_grid_too_large_is_points_exceeded_before_allocating() {
    // With splitting off nothing may be cut ahead of the grid.
    let rows: Vec<Row> = vec![("a".into(), "2000-01-01T00:00:00Z".into(), Some(1.0)), ("a".into(), "2090-01-01T00:00:00Z".into(), Some(1.0))];
    let t = table(&rows);
    let o = opts(json!({"gap_split_min_steps": 0}));
    let err = clean::run(&CleanRequest { series: &t, future: None, freq: Some("s"), h: 0, options: &o, model_limits: None, stamps: None, purpose: Purpose::Forecast }).unwrap_err();
    assert_eq!(err.code, ErrorCode::PointsExceeded);
    assert!(err.details["points"].as_u64().unwrap() > err.details["cap"].as_u64().unwrap());
}

#[test]
fn a_grid_cap_cut_that_does_not_apply_leaves_the_report_counting_the_rows_it_would_drop() {
    // One 1990 row, then 300 seconds: the 1990 row is cut ahead of the grid.
    let t = table(&stray_row_before_seconds(300));
    for options in [json!({"preset": "strict", "accept": ["grid.regrid"]}), json!({"decline": ["gap.split"]})] {
        let err = run(&t, Some("s"), 1, &opts(options.clone())).unwrap_err();
        let report = &report_of(&err);
        assert_ne!(decisions(report, "gap.split")[0]["status"], "applied", "{options}");
        assert_eq!(report["series"][0]["output_points"], 301, "{options}");
        assert_eq!(report["series"][0]["fed_points"], 301, "{options}");
    }
    let out = run(&t, Some("s"), 1, &opts(json!({}))).unwrap();
    assert_eq!(report_value(&out)["series"][0]["output_points"], 300);
}

#[test]
fn a_mask_without_a_model_gives_way_to_the_grid_cap_cut_as_the_forecast_does() {
    // /clean without a model keeps masked history (no context to fit), but not past the grid cap.
    let t = table(&stray_row_before_seconds(100));
    let o = opts(json!({"long_gap": "mask"}));
    for limits in [None, Some(LIMITS)] {
        let out = clean::run(&CleanRequest { series: &t, future: None, freq: None, h: 1, options: &o, model_limits: limits, stamps: None, purpose: Purpose::Forecast }).unwrap();
        assert_eq!(out.entities[0].values.len(), 100);
        assert_eq!(decisions(&report_value(&out), "gap.split").len(), 1);
        assert!(warnings(&out).iter().any(|w| w["code"] == "long_gap_mask_unavailable"));
    }
}

#[test]
fn under_the_deprecated_rule_a_grid_cap_cut_without_a_split_still_counts_the_slots_it_cut_away() {
    // Found by audit: a null row years back, nothing observed before the gap, so no split. Uncut,
    // the 10 % rule counts every empty slot from that row on and blocks; the cut counted only what
    // it kept and passed, so a longer gap turned the 422 into a 200. With a value before the gap
    // the split starts the series in both, and both pass.
    let verdict = |rows: &[Row], version: &str| match run(&table(rows), Some("s"), 1, &opts(json!({"version": version}))) {
        Ok(_) => vec![],
        Err(err) => report_of(&err)["blocking"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b["reason"].clone(), b["caused_by"].clone(), b["missing_share"].as_f64().is_some_and(|s| s > 0.99)))
            .collect(),
    };
    for version in ["2026-10", "2026-11", "2026-12"] {
        for (ys, blocked) in [(vec![None], true), (vec![None, None], true), (vec![None, Some(5.0)], false)] {
            let near = verdict(&stray_rows_then_seconds("2023-12-31T00:00:00Z", &ys, 0, false), version);
            let far = verdict(&stray_rows_then_seconds("1990-01-01T00:00:00Z", &ys, 0, false), version);
            assert_eq!(near, far, "{version} {ys:?}");
            assert_eq!(!far.is_empty(), blocked, "{version} {ys:?}: {far:?}");
            assert!(far.iter().all(|b| b.0 == "missing_share_too_high" && b.2), "{version} {ys:?}: {far:?}");
        }
    }
}

/// One row from 1990, then `n` rows a second apart from 2024: a grid of about a billion slots.
fn stray_row_before_seconds(n: i64) -> Vec<Row> {
    let start = 1_704_067_200i64; // 2024-01-01T00:00:00Z
    let stamp = |s: i64| {
        let (d, r) = (s.div_euclid(86_400), s.rem_euclid(86_400));
        format!("2024-01-{:02}T{:02}:{:02}:{:02}Z", 1 + (d - 19_723), r / 3600, r % 3600 / 60, r % 60)
    };
    let mut rows: Vec<Row> = vec![("a".into(), "1990-01-01T00:00:00Z".into(), Some(5.0))];
    rows.extend((0..n).map(|k| ("a".to_string(), stamp(start + k), Some((k as f64 / 10.0).sin()))));
    rows
}

#[test]
fn a_stray_old_row_the_split_drops_does_not_make_the_grid_too_large() {
    let t = table(&stray_row_before_seconds(100));
    let o = opts(json!({}));
    for limits in [None, Some(LIMITS)] {
        let out = clean::run(&CleanRequest { series: &t, future: None, freq: None, h: 1, options: &o, model_limits: limits, stamps: None, purpose: Purpose::Forecast }).unwrap();
        assert_eq!(out.freq, "s");
        assert_eq!(out.entities[0].values.len(), 100);
        let report = report_value(&out);
        let split = decisions(&report, "gap.split");
        assert_eq!(split.len(), 1);
        assert_eq!(split[0]["count"], 1);
        assert_eq!(split[0]["status"], "applied");
        // The slots of the gap cut away still count as missing before repair, as they do when
        // the split runs on a grid small enough to build.
        let ratio = quality(&out)["missing_ratio"].as_f64().unwrap();
        assert!(ratio > 0.9999, "missing_ratio {ratio}");
        assert_eq!(report["series"][0]["missing_ratio"], quality(&out)["missing_ratio"]);
    }
}

#[test]
fn a_requested_mask_that_the_grid_cap_cut_replaces_with_a_split_is_warned_about_once() {
    let t = table(&stray_row_before_seconds(100));
    let o = opts(json!({"long_gap": "mask"}));
    let out = clean::run(&CleanRequest { series: &t, future: None, freq: None, h: 1, options: &o, model_limits: Some(LIMITS), stamps: None, purpose: Purpose::Forecast }).unwrap();
    assert_eq!(out.entities[0].values.len(), 100);
    assert_eq!(decisions(&report_value(&out), "gap.split").len(), 1);
    let warned: Vec<_> = warnings(&out).into_iter().filter(|w| w["code"] == "long_gap_mask_unavailable").collect();
    assert_eq!(warned, [json!({"code": "long_gap_mask_unavailable", "unique_id": "a"})]);
    // Without the mask there is nothing to warn about.
    let plain = clean::run(&CleanRequest { options: &opts(json!({})), series: &t, future: None, freq: None, h: 1, model_limits: Some(LIMITS), stamps: None, purpose: Purpose::Forecast }).unwrap();
    assert!(warnings(&plain).iter().all(|w| w["code"] != "long_gap_mask_unavailable"));
}

#[test]
fn the_grid_cap_cuts_only_the_entity_that_needs_it_and_others_keep_their_own_cleaning() {
    // Found by audit: over the cap every entity was cut, so an entity's mask (and its forecast)
    // depended on another entity's stray row. `m`: 200 seconds with a 60-second gap, masked.
    let second = |k: i64| chrono::DateTime::from_timestamp(1_704_067_200 + k, 0).unwrap().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let m: Vec<Row> = (0..200).filter(|k| !(60..120).contains(k)).map(|k| ("m".to_string(), second(k), Some(k as f64))).collect();
    let o = opts(json!({"long_gap": "mask", "gap_split_min_steps": 30}));
    let alone = run(&table(&m), Some("s"), 1, &o).unwrap();
    let with_stray = run(&table(&[m.clone(), stray_row_before_seconds(100)].concat()), Some("s"), 1, &o).unwrap();
    assert_eq!(json_of(&alone.entities[0].model_input)["long_gap_handling"], "mask");
    assert_eq!(format!("{:?}", with_stray.entities[0]), format!("{:?}", alone.entities[0]));
    assert_eq!(with_stray.entities[1].values.len(), 100, "the stray row's entity is cut");
    let warned: Vec<serde_json::Value> = warnings(&with_stray).into_iter().filter(|w| w["code"] == "long_gap_mask_unavailable").collect();
    assert_eq!(warned, [json!({"code": "long_gap_mask_unavailable", "unique_id": "a"})]);
}

#[test]
fn a_stray_old_row_before_more_stamps_than_the_context_is_cut_not_allocated() {
    // 5,000 seconds: the pre-cleaning length check cleans this entity to decide, over a grid of
    // about a billion slots unless the stray row is cut first.
    let t = table(&stray_row_before_seconds(5000));
    let o = opts(json!({}));
    let req = CleanRequest { series: &t, future: None, freq: None, h: 1, options: &o, model_limits: Some(LIMITS), stamps: None, purpose: Purpose::Forecast };
    // Cut to its 5,000 seconds, the entity is still too long, at step 6 and in the cleaning.
    for err in [clean::check_length(&req).unwrap_err(), clean::run(&req).unwrap_err()] {
        assert_eq!(err.code, ErrorCode::SeriesTooLong);
        assert_eq!(err.details["series"], json!([{"unique_id": "a", "points": 5000}]));
    }
}

#[test]
fn a_grid_cap_cut_proposed_or_declined_exempts_the_entity_from_the_count_of_stamps_as_a_split_does() {
    // Found by review: 2,000 seconds in 1990 and 3,000 in 2024 (5,000 stamps, over the context)
    // got SERIES_TOO_LONG with no report unless every decision of the cut applied.
    let second = |from: &str, k: i64| (from.parse::<chrono::DateTime<chrono::Utc>>().unwrap() + chrono::Duration::seconds(k)).format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let rows = |lead_nulls: i64| -> Vec<Row> {
        let old = (0..2000).map(|k| ("a".to_string(), second("1990-01-01T00:00:00Z", k), (k >= lead_nulls).then_some(1.0)));
        old.chain((0..3000).map(|k| ("a".to_string(), second("2024-01-01T00:00:00Z", k), Some((k as f64 / 10.0).sin())))).collect()
    };
    let cases = [(0, json!({"preset": "strict"})), (0, json!({"decline": ["gap.split"]})), (0, json!({"clean_series": false})), (3, json!({"preset": "strict", "accept": ["gap.split"]}))];
    for (lead_nulls, options) in cases {
        let (t, o) = (table(&rows(lead_nulls)), opts(options.clone()));
        let req = CleanRequest { series: &t, future: None, freq: Some("s"), h: 1, options: &o, model_limits: Some(LIMITS), stamps: None, purpose: Purpose::Forecast };
        assert!(clean::check_length(&req).is_ok(), "{options}");
        let err = clean::run(&req).unwrap_err();
        assert_eq!(err.code, ErrorCode::SeriesDiscontinuous, "{options}");
        assert!(report_of(&err)["blocking"].as_array().unwrap().iter().all(|b| b["reason"] != "too_long"), "{options}");
    }
}

#[test]
fn an_empty_entity_beside_a_long_one_takes_no_part_in_the_frequency_the_length_check_infers() {
    // Found by audit: its daily stamps made step 6's inference fail, so the long hourly entity was
    // measured as sent and refused SERIES_TOO_LONG with no report, its split never offered.
    let long = drop_range(hourly("a", 4700), 1200..1700);
    let empty: Vec<Row> = (0..20).map(|d| ("e".to_string(), format!("2025-03-{:02}", d + 1), None)).collect();
    let t = table(&[long, empty].concat());
    let o = opts(json!({"preset": "strict"}));
    let req = CleanRequest { series: &t, future: None, freq: None, h: 1, options: &o, model_limits: Some(LIMITS), stamps: None, purpose: Purpose::Forecast };
    assert!(clean::check_length(&req).is_ok());
    let err = clean::run(&req).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    assert_eq!(decisions(&report_of(&err), "gap.split")[0]["status"], "proposed");
}

#[test]
fn a_grid_too_large_with_splitting_off_names_the_largest_entity() {
    let t = table(&[stray_row_before_seconds(100), hourly("b", 30)].concat());
    let o = opts(json!({"gap_split_min_steps": 0}));
    let err = run(&t, Some("s"), 1, &o).unwrap_err();
    assert_eq!(err.code, ErrorCode::PointsExceeded);
    assert_eq!(err.details["unique_id"], "a");
    assert!(err.details["entity_points"].as_u64().unwrap() > 1_000_000);
}

#[test]
fn a_stray_row_under_strict_proposes_the_split_and_accept_applies_it() {
    let t = table(&stray_row_before_seconds(100));
    let err = run(&t, None, 1, &opts(json!({"preset": "strict"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesDiscontinuous);
    assert_eq!(decisions(&report_of(&err), "gap.split")[0]["status"], "proposed");
    let out = run(&t, None, 1, &opts(json!({"preset": "strict", "accept": ["gap.split"]}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 100);
}

#[test]
fn dst_coded_offsets_without_a_zone_fail_with_a_hint_naming_options_timezone() {
    // Berlin midnights as pandas writes them: +01:00 through 2024-03-31 (the change is at 02:00), +02:00 after.
    let rows = daily("2024-03-10", 40, |d| format!("{d}T00:00:00{}", if d.to_string().as_str() <= "2024-03-31" { "+01:00" } else { "+02:00" }));
    let t = table(&rows);
    for freq in [None, Some("D")] {
        let err = run(&t, freq, 1, &opts(json!({}))).unwrap_err();
        assert_eq!(err.code, ErrorCode::FreqInferenceFailed);
        let hint = err.details["hint"].as_str().unwrap();
        assert!(hint.contains("options.timezone") && hint.contains("+01:00, +02:00"), "{hint}");
        assert!(err.message.contains(hint));
    }
    let out = run(&t, None, 1, &opts(json!({"timezone": "Europe/Berlin"}))).unwrap();
    assert_eq!(out.freq, "d");
    // With a zone whose own offsets these are not, the hint does not ask for the zone again.
    let err = run(&t, Some("D"), 1, &opts(json!({"timezone": "America/New_York"}))).unwrap_err();
    let hint = err.details["hint"].as_str().unwrap();
    assert!(!hint.contains("send options.timezone") && hint.contains("not options.timezone's own"), "{hint}");
}

#[test]
fn length_refusals_describe_the_entity_furthest_from_the_limit_and_list_it_first() {
    let long = [hourly("u1", 4200), hourly("u2", 4300), hourly("u3", 4250)].concat();
    let err = run(&table(&long), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!((err.details["unique_id"].clone(), err.details["points"].clone()), (json!("u2"), json!(4300)));
    assert_eq!(err.details["series"][0], json!({"unique_id": "u2", "points": 4300}));
    let short = [hourly("s1", 12), hourly("s2", 5), hourly("s3", 9)].concat();
    let err = run(&table(&short), Some("h"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::SeriesTooShort);
    assert_eq!(err.details["unique_id"], "s2");
    assert_eq!(err.details["series"], json!([{"unique_id": "s2", "points": 5}, {"unique_id": "s3", "points": 9}, {"unique_id": "s1", "points": 12}]));
}

#[test]
fn frequency_codes_surface_from_the_time_engine() {
    let t = table(&hourly("a", 30));
    let unsupported = run(&t, Some("fortnight"), 1, &opts(json!({}))).unwrap_err();
    assert_eq!(unsupported.code, ErrorCode::FreqUnsupported);
    // The request's freq stops every entity, and the report's blocking[] says so for each.
    assert_eq!(report_of(&unsupported)["blocking"], json!([{"unique_id": "a", "code": "FREQ_UNSUPPORTED", "kind": "frequency", "reason": "freq_unsupported"}]));
    let mixed: Vec<Row> = [hourly("a", 30), (0..30).map(|k| ("b".to_string(), hour_stamp(2 * k), Some(1.0))).collect()].concat();
    let err = run(&table(&mixed), None, 1, &opts(json!({}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::FreqAmbiguous);
    assert_eq!(err.details["candidates"], json!(["2h", "h"]));
    assert_eq!(err.details["entities"], json!([{"unique_id": "a", "freq": "h"}, {"unique_id": "b", "freq": "2h"}]));
}

#[test]
fn an_omitted_freq_is_inferred_and_echoed_as_its_canonical_token() {
    let out = run(&table(&hourly("a", 30)), None, 1, &opts(json!({}))).unwrap();
    assert_eq!(out.freq, "h");
    assert_eq!(out.inferred_freq.as_deref(), Some("h"));
    assert_eq!(quality(&out)["inferred_freq"], "h");
    let report = report_value(&out);
    assert_eq!(report["series"][0]["freq"]["source"], "inferred");
    assert!(report["series"][0]["freq"]["confidence"].as_f64().unwrap() > 0.9);
}

#[test]
fn clean_without_a_model_has_no_maximum_context() {
    let t = table(&hourly("a", 5000));
    let o = opts(json!({}));
    let out = clean::run(&CleanRequest { series: &t, future: None, freq: Some("h"), h: 0, options: &o, model_limits: None, stamps: None, purpose: Purpose::Forecast }).unwrap();
    assert_eq!(out.entities[0].values.len(), 5000);
    assert!(out.entities[0].forecast_stamps.is_empty());
}

#[test]
fn naive_stamps_without_a_zone_are_read_as_utc_and_reported() {
    let rows: Vec<Row> = (0..20).map(|k| ("a".to_string(), hour_stamp(k).trim_end_matches('Z').to_string(), Some(1.0))).collect();
    let out = run(&table(&rows), Some("h"), 1, &opts(json!({}))).unwrap();
    let s = &report_value(&out)["series"][0];
    assert_eq!(s["timezone"]["source"], "default_utc");
    assert!(s["issues"].as_array().unwrap().iter().any(|i| i["code"] == "naive_timestamps_assumed_utc" && i["level"] == "info"));
    assert_eq!(out.entities[0].forecast_stamps, vec![micros(20)]);
}

#[test]
fn an_invalid_zone_is_a_validation_error() {
    let err = run(&table(&hourly("a", 20)), Some("h"), 1, &opts(json!({"timezone": "Mars/Olympus"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationError);
}

#[test]
fn a_grid_cap_cut_and_a_later_split_of_the_same_entity_are_one_gap_split() {
    // The 1990 row is cut ahead of the grid; then 40 seconds, 30 null ones, 30 more: the split
    // at the null run drops the first 40 too. Cleaned whole, one split would drop all 41.
    let mut rows = stray_row_before_seconds(100);
    rows[41..71].iter_mut().for_each(|r| r.2 = None);
    let out = run(&table(&rows), Some("s"), 1, &opts(json!({"gap_split_min_steps": 20}))).unwrap();
    assert_eq!(out.entities[0].values.len(), 30);
    let report = report_value(&out);
    assert_eq!(decisions(&report, "gap.split"), [&json!({
        "id": "gap.split", "unique_id": "a", "kind": "drop_history", "status": "applied", "reversible": true, "count": 41,
        "ranges": [{"from": "1990-01-01T00:00:00Z", "to": "2024-01-01T00:01:09Z"}],
    })]);
    assert_eq!(report["overall"]["decisions_applied"], 1);
}


/// Rows `ys`, a second apart from `from`, then 100 rows a second apart from 2024-01-01: the first
/// `lead_nulls` of them null, and the one at second 50 left out when `hole`.
fn stray_rows_then_seconds(from: &str, ys: &[Option<f64>], lead_nulls: usize, hole: bool) -> Vec<Row> {
    let from: chrono::DateTime<chrono::Utc> = from.parse().unwrap();
    let at = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut rows: Vec<Row> = ys.iter().enumerate().map(|(k, y)| ("a".to_string(), at(from + chrono::Duration::seconds(k as i64)), *y)).collect();
    let start: chrono::DateTime<chrono::Utc> = "2024-01-01T00:00:00Z".parse().unwrap();
    let main = (0..100usize).filter(|k| !(hole && *k == 50));
    rows.extend(main.map(|k| ("a".to_string(), at(start + chrono::Duration::seconds(k as i64)), (k >= lead_nulls).then(|| (k as f64 / 10.0).sin()))));
    rows
}

#[test]
fn a_grid_cap_cut_records_the_decisions_of_the_split_it_stands_in_for() {
    // The same stray rows a day back (a grid of 86,500 slots, split at step 8) and 34 years back
    // (a grid past the cap, cut at step 6): the same decisions, counts and blocking entries,
    // whatever the caller allows, with or without null rows after the gap and a repair of the
    // entity's own.
    let summary = |rows: &[Row], options: &Value| {
        let report = match run(&table(rows), Some("s"), 1, &opts(options.clone())) {
            Ok(out) => report_value(&out),
            Err(err) => report_of(&err),
        };
        let listed: Vec<(Value, Value, Value)> =
            report["decisions"].as_array().unwrap().iter().map(|d| (d["id"].clone(), d["status"].clone(), d["count"].clone())).collect();
        (listed, report["series"][0]["output_points"].clone(), report["series"][0]["fed_points"].clone(), report["blocking"].clone())
    };
    let strays = [vec![None], vec![None, Some(5.0)], vec![None, None, Some(5.0), None], vec![Some(5.0)]];
    let options = [
        json!({}),
        json!({"decline": ["gap.split"]}),
        json!({"preset": "strict", "accept": ["gap.trim_head", "gap.split", "grid.regrid", "gap.impute"]}),
        json!({"preset": "strict"}),
        json!({"preset": "strict", "decline": ["gap.split"]}),
    ];
    for ys in &strays {
        for (lead_nulls, hole) in [(0, false), (2, false), (0, true), (3, true)] {
            for o in &options {
                let near = summary(&stray_rows_then_seconds("2023-12-31T00:00:00Z", ys, lead_nulls, hole), o);
                let far = summary(&stray_rows_then_seconds("1990-01-01T00:00:00Z", ys, lead_nulls, hole), o);
                assert_eq!(near, far, "{ys:?} lead_nulls {lead_nulls} hole {hole} {o}");
            }
        }
    }
}
