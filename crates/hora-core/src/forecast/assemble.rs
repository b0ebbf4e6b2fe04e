//! Serialises `forecast[]` straight from the quantile arrays (thousands of rows, no Value tree).

use crate::clean::CleanEntity;
use crate::model::QuantilePlan;
use crate::time::write_utc;
use std::fmt::Write;

fn push_number(out: &mut String, v: f64) {
    // Quantiles are checked finite before this point; serde_json prints the shortest round-trip form.
    out.push_str(&serde_json::to_string(&v).unwrap_or_else(|_| "null".into()));
}

pub(crate) fn forecast_rows_json(entities: &[CleanEntity], quantiles: &[Vec<f64>], q: usize, plan: &QuantilePlan) -> String {
    let rows: usize = entities.iter().map(|e| e.forecast_stamps.len()).sum();
    let mut out = String::with_capacity(rows * (96 + 48 * plan.intervals.len()));
    out.push('[');
    let mut first = true;
    for (entity, values) in entities.iter().zip(quantiles) {
        let uid = serde_json::to_string(&entity.unique_id).unwrap_or_default();
        for (step, stamp) in entity.forecast_stamps.iter().enumerate() {
            if !first {
                out.push(',');
            }
            first = false;
            let row = &values[step * q..(step + 1) * q];
            out.push_str("{\"unique_id\":");
            out.push_str(&uid);
            out.push_str(",\"ds\":\"");
            write_utc(&mut out, *stamp);
            out.push_str("\",\"y_hat\":");
            push_number(&mut out, row[plan.y_hat]);
            if !plan.intervals.is_empty() {
                out.push_str(",\"intervals\":{");
                for (i, (key, lo, hi)) in plan.intervals.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let _ = write!(out, "\"{key}\":{{\"lo\":");
                    push_number(&mut out, row[*lo]);
                    out.push_str(",\"hi\":");
                    push_number(&mut out, row[*hi]);
                    out.push('}');
                }
                out.push('}');
            }
            out.push('}');
        }
    }
    out.push(']');
    out
}
