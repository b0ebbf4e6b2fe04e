//! Property tests over random messy series: shuffled, duplicated, gapped, nulls, off-grid stamps,
//! mixed offsets. The engine never panics, and every successful output keeps the invariants.

mod clean_common;
use clean_common::*;
use chrono::{FixedOffset, TimeZone};
use hora_core::clean::decisions::DecisionId;
use hora_core::ErrorCode;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::json;
use std::collections::HashMap;

#[derive(Debug, Clone)]
struct Messy {
    rows: Vec<Row>,
    /// Per entity: hour index -> y of the last row sent for it (None = null), on-grid stamps only.
    truth: HashMap<String, HashMap<i64, Option<f64>>>,
}

fn stamp(k_minutes: i64, offset_hours: i32) -> String {
    let t = 1_767_225_600i64 + k_minutes * 60;
    let off = FixedOffset::east_opt(offset_hours * 3600).unwrap();
    off.timestamp_opt(t, 0).unwrap().format("%Y-%m-%dT%H:%M:%S%:z").to_string()
}

fn messy() -> impl Strategy<Value = Messy> {
    let entity = (16usize..120, prop::collection::vec((0u8..100, 0u8..100, -50.0f64..50.0, 0u8..3), 120));
    (prop::collection::vec(entity, 1..4), any::<u64>()).prop_map(|(entities, seed)| {
        let mut rows = Vec::new();
        let mut truth: HashMap<String, HashMap<i64, Option<f64>>> = HashMap::new();
        for (e, (n, draws)) in entities.into_iter().enumerate() {
            let u = format!("e{e}");
            let t = truth.entry(u.clone()).or_default();
            for (k, &(gap, kind, y, zone)) in draws.iter().enumerate().take(n) {
                if gap < 8 {
                    continue; // missing stamp
                }
                let y = if kind < 5 { None } else { Some(y) };
                rows.push((u.clone(), stamp(k as i64 * 60, zone as i32), y));
                t.insert(k as i64, y);
                if kind > 96 {
                    let y2 = Some(y.unwrap_or(0.0) + 1.0);
                    rows.push((u.clone(), stamp(k as i64 * 60, 0), y2)); // duplicate, sent later: wins
                    t.insert(k as i64, y2);
                }
                if kind == 50 {
                    rows.push((u.clone(), stamp(k as i64 * 60 + 30, 0), Some(7.0))); // off the grid
                }
            }
        }
        // Deterministic shuffle that keeps the order of rows with the same stamp (the last one wins).
        let mut keyed: Vec<(u64, usize, Row)> =
            rows.into_iter().enumerate().map(|(i, r)| (seed.wrapping_mul(i as u64 + 1).rotate_left(17) % 7, i, r)).collect();
        keyed.sort_by_key(|(k, i, _)| (*k, *i));
        let mut seen: HashMap<(String, String), usize> = HashMap::new();
        let mut rows: Vec<Row> = Vec::new();
        for (_, _, r) in keyed {
            rows.push(r);
        }
        // Restore "duplicate sent later" for equal instants: sort rows of one instant by original order is
        // not needed when duplicates share the shuffle key; recompute truth from the final order instead.
        let mut last: HashMap<(String, i64), Option<f64>> = HashMap::new();
        for r in &rows {
            let t = chrono::DateTime::parse_from_rfc3339(&r.1).unwrap().timestamp() - 1_767_225_600;
            if t % 3600 == 0 {
                last.insert((r.0.clone(), t / 3600), r.2);
            }
            *seen.entry((r.0.clone(), r.1.clone())).or_default() += 1;
        }
        for ((u, k), y) in last {
            truth.get_mut(&u).unwrap().insert(k, y);
        }
        Messy { rows, truth }
    })
}

const ALLOWED: [ErrorCode; 9] = [
    ErrorCode::SeriesDiscontinuous,
    ErrorCode::TimestampIrregular,
    ErrorCode::FreqInferenceFailed,
    ErrorCode::FreqAmbiguous,
    ErrorCode::SeriesEmpty,
    ErrorCode::SeriesTooShort,
    ErrorCode::SeriesTooLong,
    ErrorCode::PointsExceeded,
    ErrorCode::CleaningOptionUnsupported,
];

/// The engine never panics on messy series, and each case either cleans with the invariants kept
/// or is refused with a contract code. The invariants are checked only on cases that clean, so a
/// floor on them is asserted too (a cleaning that refused all messy input with an allowed code
/// would otherwise pass).
#[test]
fn messy_series_either_clean_with_invariants_or_fail_with_a_contract_code() {
    let cases = 300;
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(cases));
    let cleaned = std::cell::RefCell::new(HashMap::<&str, usize>::new());
    let strategy = (
        messy(),
        any::<bool>(),
        prop::sample::select(vec!["2026-13", "2026-12", "2026-11", "2026-10"]),
        prop::sample::select(vec!["default", "default", "strict"]),
        any::<bool>(),
    );
    let outcome = runner.run(&strategy, |(m, infer, version, preset, mask)| {
        let ok = check_case(&m, infer, version, preset, mask)?;
        if ok {
            *cleaned.borrow_mut().entry(preset).or_default() += 1;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let counts = cleaned.into_inner();
    eprintln!("cleaned by preset: {counts:?}");
    // About a third of each preset's cases clean (59 to 83 default and 29 to 49 strict of 300
    // in a dozen runs): floors far below that, so only a refusal of most messy input trips them.
    let at_least = |preset: &str, n: usize| counts.get(preset).copied().unwrap_or(0) >= n;
    assert!(at_least("default", 20) && at_least("strict", 8), "too few cases cleaned: {counts:?}");
}

/// One case: Ok(true) when it cleaned and kept every invariant, Ok(false) when it was refused with
/// a contract code.
fn check_case(m: &Messy, infer: bool, version: &str, preset: &str, mask: bool) -> Result<bool, TestCaseError> {
    let mut o = json!({"version": version, "preset": preset});
    if mask && version != "2026-10" {
        o["long_gap"] = json!("mask");
    }
    if preset == "strict" {
        // Every repair strict proposes is accepted, so strict cases can clean too.
        o["accept"] = json!(DecisionId::ALL.iter().map(|d| d.as_str()).collect::<Vec<_>>());
    }
    let t = table(&m.rows);
    let result = run(&t, if infer { None } else { Some("h") }, 2, &opts(o));
    match result {
        Err(e) => {
            prop_assert!(ALLOWED.contains(&e.code), "unexpected code {:?}: {}", e.code, e.message);
            if matches!(e.code, ErrorCode::SeriesDiscontinuous | ErrorCode::TimestampIrregular | ErrorCode::SeriesTooShort) {
                prop_assert!(e.cleaning_report.is_some());
            }
            Ok(false)
        }
        Ok(out) => {
            let report = report_value(&out);
            let mut grid_total = 0usize;
            let mut observed_total = 0u64;
            for ent in &out.entities {
                let s = &ent.stamps;
                prop_assert_eq!(s.len(), ent.values.len());
                grid_total += s.len();
                // Strictly increasing and regular.
                prop_assert!(s.windows(2).all(|w| w[1] - w[0] == HOUR));
                let truth = &m.truth[&ent.unique_id];
                let (mut filled, mut masked, mut observed) = (0usize, 0usize, 0u64);
                for (t, v) in s.iter().zip(&ent.values) {
                    let k = (t - micros(0)) / HOUR;
                    match truth.get(&k) {
                        Some(Some(y)) => {
                            prop_assert_eq!(*v, *y, "observed value altered at {}", k);
                            observed += 1;
                        }
                        _ if v.is_nan() => masked += 1,
                        _ => filled += 1,
                    }
                }
                observed_total += observed;
                let count = |id: &str| -> usize {
                    report["decisions"].as_array().unwrap().iter()
                        .filter(|d| d["id"] == id && d["unique_id"] == ent.unique_id.as_str() && d["status"] == "applied")
                        .map(|d| d["count"].as_u64().unwrap() as usize).sum()
                };
                prop_assert_eq!(filled, count("gap.impute"), "every filled point is a gap.impute decision");
                prop_assert_eq!(masked, count("gap.masked_tail") + count("gap.mask_long"));
                prop_assert_eq!(json_of(&ent.model_input)["fed_points"].as_u64().unwrap(), observed);
                prop_assert_eq!(ent.forecast_stamps.len(), 2);
                prop_assert_eq!(ent.forecast_stamps[0], s[s.len() - 1] + HOUR);
            }
            prop_assert_eq!(report["overall"]["output_points"].as_u64().unwrap() as usize, grid_total);
            prop_assert_eq!(out.input_data_points, observed_total);
            Ok(true)
        }
    }
}
