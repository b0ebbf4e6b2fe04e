//! Builders shared by the cleaning tests: row tables from plain tuples, and stamps.
#![allow(dead_code)]

use hora_core::clean::{self, CleanOptions, CleanRequest, Cleaned, ModelLimits, Purpose};
use hora_core::ingest::{CovariateColumn, RowTable, StrColumn};
use hora_core::HoraError;
use serde_json::Value;

pub const HOUR: i64 = 3_600_000_000;
pub const LIMITS: ModelLimits = ModelLimits { min_context: 16, max_context: 4096 };

/// A row: entity, ds, y (None = null).
pub type Row = (String, String, Option<f64>);

/// One row a day for `n` days from `start` (`YYYY-MM-DD`) for entity `a`: `ds` as `ds(day)`
/// writes it, `y` the day's index.
pub fn daily(start: &str, n: u64, ds: impl Fn(chrono::NaiveDate) -> String) -> Vec<Row> {
    let first: chrono::NaiveDate = start.parse().unwrap();
    (0..n).map(|k| ("a".to_string(), ds(first + chrono::Days::new(k)), Some(k as f64))).collect()
}

pub fn table(rows: &[Row]) -> RowTable {
    table_with(rows, &[])
}

/// Rows plus covariate columns (`name`, one value per row; None = null/missing).
pub fn table_with(rows: &[Row], covariates: &[(&str, Vec<Option<f64>>)]) -> RowTable {
    let mut t = RowTable { ds: StrColumn::new(), ..Default::default() };
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (i, (u, _, _)) in rows.iter().enumerate() {
        let e = match t.entities.iter().position(|x| x == u) {
            Some(e) => e,
            None => {
                t.entities.push(u.clone());
                groups.push(Vec::new());
                t.entities.len() - 1
            }
        };
        groups[e].push(i as u32);
    }
    // Columns by table position: grouped by entity, each entity's rows in the order sent.
    t.indptr.push(0);
    for g in groups {
        for &i in &g {
            let (_, ds, y) = &rows[i as usize];
            t.ds.push(ds);
            t.y.push(y.unwrap_or(f64::NAN));
        }
        t.rows.extend(g);
        t.indptr.push(t.rows.len());
    }
    for (name, values) in covariates {
        t.covariates.push(CovariateColumn {
            name: name.to_string(),
            values: t.rows.iter().map(|&r| values[r as usize].unwrap_or(f64::NAN)).collect(),
            non_numeric: Vec::new(),
        });
    }
    t
}

/// `YYYY-MM-DDTHH:MM:SSZ` for `k` hours after 2026-01-01T00:00Z.
pub fn hour_stamp(k: i64) -> String {
    let t = 1_767_225_600i64 + k * 3600;
    chrono::DateTime::from_timestamp(t, 0).unwrap().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

pub fn micros(k: i64) -> i64 {
    1_767_225_600_000_000 + k * HOUR
}

/// `n` hourly rows of one entity with y = 10 + k.
pub fn hourly(u: &str, n: i64) -> Vec<Row> {
    (0..n).map(|k| (u.to_string(), hour_stamp(k), Some(10.0 + k as f64))).collect()
}

/// `rows` without those at positions `gap`.
pub fn drop_range(rows: Vec<Row>, gap: std::ops::Range<i64>) -> Vec<Row> {
    rows.into_iter().enumerate().filter(|(k, _)| !gap.contains(&(*k as i64))).map(|(_, r)| r).collect()
}

/// `hourly(u, n)` without the rows of hours `gap`.
pub fn with_gap(u: &str, n: i64, gap: std::ops::Range<i64>) -> Vec<Row> {
    drop_range(hourly(u, n), gap)
}

pub fn opts(json: Value) -> CleanOptions {
    serde_json::from_value(json).expect("options")
}

pub fn run(t: &RowTable, freq: Option<&str>, h: usize, o: &CleanOptions) -> Result<Cleaned, HoraError> {
    run_for(Purpose::Forecast, t, None, freq, h, o)
}

pub fn run_future(t: &RowTable, f: &RowTable, freq: Option<&str>, h: usize, o: &CleanOptions) -> Result<Cleaned, HoraError> {
    run_for(Purpose::Forecast, t, Some(f), freq, h, o)
}

/// A run with the model's limits for `purpose` (`DryRun`: as `/v1/clean` runs it, forecast stamps listed only
/// where future rows are checked against them).
pub fn run_for(purpose: Purpose, t: &RowTable, f: Option<&RowTable>, freq: Option<&str>, h: usize, o: &CleanOptions) -> Result<Cleaned, HoraError> {
    clean::run(&CleanRequest { series: t, future: f, freq, h, options: o, model_limits: Some(LIMITS), stamps: None, purpose })
}

/// A run's `cleaning_report/1` as JSON.
pub fn report_value(out: &Cleaned) -> Value {
    serde_json::to_value(out.report.as_ref().expect("run has a cleaning report")).unwrap()
}

/// A typed part of a run (`data_quality`, a `model_input[]` entry, a warning) as the wire has it.
pub fn json_of<T: serde::Serialize>(part: &T) -> Value {
    serde_json::to_value(part).unwrap()
}

/// A run's `data_quality` as JSON.
pub fn quality(out: &Cleaned) -> Value {
    json_of(&out.data_quality)
}

/// A run's response `warnings[]` as JSON.
pub fn warnings(out: &Cleaned) -> Vec<Value> {
    out.warnings.iter().map(json_of).collect()
}

pub fn report_of(err: &HoraError) -> Value {
    serde_json::to_value(err.cleaning_report.as_deref().expect("error carries details.cleaning_report")).unwrap()
}

/// Decision records with this id.
pub fn decisions<'a>(report: &'a Value, id: &str) -> Vec<&'a Value> {
    report["decisions"].as_array().unwrap().iter().filter(|d| d["id"] == id).collect()
}

/// The first entity's issue `code` in the report, if it was written.
pub fn issue(out: &Cleaned, code: &str) -> Option<Value> {
    let report = serde_json::to_value(out.report.as_ref()?).ok()?;
    report["series"][0]["issues"].as_array()?.iter().find(|i| i["code"] == code).cloned()
}
