//! TEMPORARY pass-through for the cleaning stage (ISO stamps with offsets, explicit fixed freq,
//! a regular grid): keeps the forecast path runnable until the cleaning engine replaces this file.

use crate::error::{ErrorCode, HoraError};
use crate::ingest::RowTable;
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelLimits {
    pub min_context: usize,
    pub max_context: usize,
}

#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct CleanOptions {
    pub timezone: Option<String>,
    pub preset: Option<String>,
    pub version: Option<String>,
}

pub struct CleanRequest<'a> {
    pub series: &'a RowTable,
    pub future: Option<&'a RowTable>,
    pub freq: Option<&'a str>,
    pub h: usize,
    pub options: &'a CleanOptions,
    pub model_limits: Option<ModelLimits>,
}

pub struct CleanEntity {
    pub unique_id: String,
    pub values: Vec<f64>,
    pub forecast_stamps: Vec<i64>,
    pub model_input: Value,
}

pub struct Cleaned {
    pub freq: String,
    pub inferred_freq: Option<String>,
    pub entities: Vec<CleanEntity>,
    pub report: Option<Value>,
    pub data_quality: Value,
    pub warnings: Vec<Value>,
    pub input_data_points: u64,
}

fn step_micros(freq: &str) -> Option<i64> {
    let split = freq.find(|c: char| !c.is_ascii_digit()).unwrap_or(freq.len());
    let n: i64 = if split == 0 { 1 } else { freq[..split].parse().ok()? };
    let unit = match &freq[split..] {
        "s" | "S" => 1_000_000,
        "min" | "T" | "m" => 60_000_000,
        "h" | "H" => 3_600_000_000,
        "d" | "D" => 86_400_000_000,
        "w" | "W" => 7 * 86_400_000_000,
        _ => return None,
    };
    Some(n * unit)
}

pub fn run(req: &CleanRequest) -> Result<Cleaned, HoraError> {
    let freq = req.freq.ok_or_else(|| HoraError::new(ErrorCode::FreqInferenceFailed, "freq is required for now"))?;
    let step = step_micros(freq).ok_or_else(|| HoraError::new(ErrorCode::FreqUnsupported, format!("freq {freq} is not supported")))?;
    let mut entities = Vec::new();
    let mut points = 0u64;
    for e in 0..req.series.entity_count() {
        let mut rows: Vec<(i64, f64)> = Vec::new();
        for &r in req.series.entity_rows(e) {
            let ds = req.series.ds.get(r as usize);
            let t = chrono::DateTime::parse_from_rfc3339(ds)
                .map_err(|_| HoraError::field(format!("series[{r}].ds"), "is not an ISO 8601 timestamp with an offset"))?;
            rows.push((t.timestamp_micros(), req.series.y[r as usize]));
        }
        rows.sort_by_key(|r| r.0);
        let last = rows.last().map(|r| r.0).unwrap_or(0);
        let values: Vec<f64> = rows.iter().map(|r| r.1).collect();
        let fed = values.iter().filter(|v| v.is_finite()).count();
        points += fed as u64;
        if let Some(l) = req.model_limits {
            if values.len() < l.min_context {
                return Err(HoraError::new(ErrorCode::SeriesTooShort, "too short").with("unique_id", req.series.entities[e].clone()));
            }
        }
        entities.push(CleanEntity {
            unique_id: req.series.entities[e].clone(),
            forecast_stamps: (1..=req.h as i64).map(|k| last + k * step).collect(),
            model_input: json!({"unique_id": req.series.entities[e], "context_points": values.len(), "fed_points": fed,
                "truncated": 0, "missing_mode": "filled", "covariates_used": false}),
            values,
        });
    }
    Ok(Cleaned {
        freq: freq.to_string(),
        inferred_freq: None,
        report: Some(json!({"schema_version": "cleaning_report/1", "policy": {"id": "default@2026-13"},
            "overall": {"series_count": entities.len(), "input_points": req.series.row_count(), "output_points": req.series.row_count()},
            "series": [], "warnings": [], "blocking": [], "decisions": []})),
        entities,
        data_quality: json!({"status": "ok", "inferred_freq": null, "missing_ratio": 0.0, "imputed_points": 0,
            "outlier_points_suppressed": 0, "timezone_normalized": false, "notes": []}),
        warnings: vec![],
        input_data_points: points,
    })
}
