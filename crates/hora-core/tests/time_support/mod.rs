//! Helpers shared by the time test files.
#![allow(dead_code)]

use hora_core::time::{self, ZoneRule};
use hora_core::ingest::{RowTable, StrColumn};
use serde_json::Value;

pub fn cases() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/time_cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Micros of an RFC 3339 string, read by chrono (not by the code under test).
pub fn micros(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s).unwrap_or_else(|e| panic!("{s}: {e}")).timestamp_micros()
}

pub fn zone_of(name: &str) -> ZoneRule {
    time::parse_zone(name).unwrap()
}

/// A one-entity table whose rows hold `ds` in order.
pub fn table_of(ds: &[&str]) -> RowTable {
    let mut col = StrColumn::new();
    for s in ds {
        col.push(s);
    }
    RowTable {
        entities: vec!["a".into()],
        indptr: vec![0, ds.len()],
        rows: (0..ds.len() as u32).collect(),
        ds: col,
        y: vec![0.0; ds.len()],
        covariates: vec![],
    }
}
