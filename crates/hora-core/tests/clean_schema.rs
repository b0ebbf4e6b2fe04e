//! Every report the engine writes, on success and inside errors, validates against
//! docs/cleaning-report.schema.json (generated from src/schemas/cleaning-report.ts).
//!
//! The validator below covers exactly the keywords the schema uses; a test fails if the schema
//! starts using another one, so the check cannot silently weaken.

mod clean_common;
use clean_common::*;
use serde_json::{json, Value};

const KEYWORDS: [&str; 14] = [
    "$schema", "$id", "title", "type", "required", "additionalProperties", "properties", "items", "enum", "const",
    "minimum", "maximum", "maxItems", "anyOf",
];

fn schema() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cleaning-report.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "integer" => v.is_u64() || v.is_i64(),
        "number" => v.is_number(),
        _ => false,
    }
}

fn validate(s: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    if let Some(alternatives) = s.get("anyOf").and_then(Value::as_array) {
        let fits = |alt: &Value| {
            let mut own = Vec::new();
            validate(alt, v, path, &mut own);
            own.is_empty()
        };
        if !alternatives.iter().any(fits) {
            errors.push(format!("{path}: {v} matches none of {}", Value::Array(alternatives.clone())));
        }
    }
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(t, v),
            Value::Array(ts) => ts.iter().any(|t| type_ok(t.as_str().unwrap(), v)),
            _ => false,
        };
        if !ok {
            errors.push(format!("{path}: {v} is not of type {t}"));
            return;
        }
    }
    if let Some(e) = s.get("enum") {
        if !e.as_array().unwrap().contains(v) {
            errors.push(format!("{path}: {v} not in {e}"));
        }
    }
    if let Some(c) = s.get("const") {
        if c != v {
            errors.push(format!("{path}: {v} != {c}"));
        }
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64()) {
        if n < min {
            errors.push(format!("{path}: {n} < {min}"));
        }
    }
    if let (Some(max), Some(n)) = (s.get("maximum").and_then(Value::as_f64), v.as_f64()) {
        if n > max {
            errors.push(format!("{path}: {n} > {max}"));
        }
    }
    if let Value::Object(o) = v {
        for r in s.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !o.contains_key(r.as_str().unwrap()) {
                errors.push(format!("{path}: missing {r}"));
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (k, child) in o {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => validate(ps, child, &format!("{path}.{k}"), errors),
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    errors.push(format!("{path}: unexpected property {k}"))
                }
                None => {}
            }
        }
    }
    if let Value::Array(a) = v {
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64) {
            if a.len() as u64 > max {
                errors.push(format!("{path}: more than {max} items"));
            }
        }
        if let Some(items) = s.get("items") {
            for (i, x) in a.iter().enumerate() {
                validate(items, x, &format!("{path}[{i}]"), errors);
            }
        }
    }
}

fn keywords_used(s: &Value, out: &mut Vec<String>) {
    if let Value::Object(o) = s {
        for (k, v) in o {
            out.push(k.clone());
            match k.as_str() {
                "properties" => v.as_object().unwrap().values().for_each(|p| keywords_used(p, out)),
                "items" => keywords_used(v, out),
                "anyOf" => v.as_array().unwrap().iter().for_each(|a| keywords_used(a, out)),
                _ => {}
            }
        }
    }
}

fn assert_valid(report: &Value) {
    let mut errors = Vec::new();
    validate(&schema(), report, "$", &mut errors);
    assert!(errors.is_empty(), "{errors:#?}\n{report:#}");
}

#[test]
fn the_schema_uses_only_keywords_the_validator_checks() {
    let mut used = Vec::new();
    keywords_used(&schema(), &mut used);
    for k in used {
        assert!(KEYWORDS.contains(&k.as_str()), "unsupported keyword {k}");
    }
}

#[test]
fn the_validator_rejects_a_report_missing_a_required_field() {
    let out = run(&table(&hourly("a", 20)), Some("h"), 1, &opts(json!({}))).unwrap();
    let mut report = report_value(&out);
    report.as_object_mut().unwrap().remove("blocking");
    report["decisions"] = json!([{"id": "grid.regrid"}]);
    let mut errors = Vec::new();
    validate(&schema(), &report, "$", &mut errors);
    assert!(errors.iter().any(|e| e.contains("missing \"blocking\"")));
    assert!(errors.iter().any(|e| e.contains("decisions[0]")));
    // A nullable field (anyOf) refuses what is neither of its types.
    report["series"][0]["freq"]["confidence"] = json!("high");
    let mut errors = Vec::new();
    validate(&schema(), &report, "$", &mut errors);
    assert!(errors.iter().any(|e| e.contains("series[0].freq.confidence")), "{errors:?}");
}

fn gapped(n: i64, gap: std::ops::Range<i64>) -> Vec<Row> {
    hourly("a", n).into_iter().enumerate().filter(|(k, _)| !gap.contains(&(*k as i64))).map(|(_, r)| r).collect()
}

/// The typed report writes the bytes its JSON map would: the same keys, in the same order.
fn assert_written_as_its_map(out: &hora_core::clean::Cleaned) {
    assert_eq!(serde_json::to_string(out.report.as_ref().unwrap()).unwrap(), report_value(out).to_string());
}

/// An error's details are written with the report among the other keys, in their order.
fn assert_details_written_as_their_map(err: &hora_core::HoraError) {
    let mut details = err.details.clone();
    details.insert("cleaning_report".into(), report_of(err));
    assert_eq!(err.details_json(), Value::Object(details).to_string());
}

#[test]
fn successful_reports_validate_against_the_schema_and_are_written_as_their_json_maps() {
    let mut tail = gapped(60, 10..12);
    tail.last_mut().unwrap().2 = None;
    let mut shuffled = gapped(200, 50..110);
    shuffled.reverse();
    shuffled.push(("a".into(), hour_stamp(199), Some(3.0)));
    let naive: Vec<Row> = (0..20).map(|k| ("a".to_string(), hour_stamp(k).trim_end_matches('Z').to_string(), Some(1.0))).collect();
    let cases = [
        (table(&hourly("a", 30)), json!({})),
        (table(&tail), json!({})),
        (table(&shuffled), json!({})),
        (table(&shuffled), json!({"long_gap": "mask"})),
        (table(&gapped(60, 10..12)), json!({"preset": "strict", "accept": ["grid.regrid", "gap.impute", "x"]})),
        (table(&gapped(60, 10..12)), json!({"version": "2026-11", "bounds": {"lower": 0, "upper": 1000}})),
        (table(&naive), json!({})),
        (table_with(&hourly("a", 30), &[("temp", vec![Some(1.0); 30])]), json!({})),
        // A covariate's filled gap: a decision with its column, method and ranges.
        (table_with(&hourly("a", 30), &[("temp", (0..30).map(|k| (k != 12).then_some(1.0)).collect())]), json!({})),
    ];
    for (t, o) in cases {
        let out = run(&t, None, 2, &opts(o)).unwrap();
        assert_valid(&report_value(&out));
        assert_written_as_its_map(&out);
    }
}

#[test]
fn reports_inside_errors_validate_against_the_schema_and_are_written_among_the_details() {
    let mut long_tail = hourly("a", 30);
    long_tail[25..].iter_mut().for_each(|r| r.2 = None);
    let mut unsorted = hourly("a", 30);
    unsorted.swap(1, 2);
    let cases = [
        (table(&gapped(60, 10..12)), json!({"preset": "strict"})),
        (table(&unsorted), json!({"clean_series": false})),
        (table(&long_tail), json!({})),
        (table(&gapped(60, 10..12)), json!({"decline": ["grid.regrid"]})),
        (table(&hourly("a", 10)), json!({})),
        (table(&hourly("a", 5000)), json!({})),
        // An entity with no numeric y has no counts in its entry.
        (table(&[hourly("a", 30), vec![("b".to_string(), hour_stamp(0), None)]].concat()), json!({})),
    ];
    for (t, o) in cases {
        let err = run(&t, Some("h"), 1, &opts(o.clone())).unwrap_err();
        assert_valid(&report_of(&err));
        assert_details_written_as_their_map(&err);
    }
}
