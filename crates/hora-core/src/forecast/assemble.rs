//! Serialises `forecast[]` straight from the quantile arrays (thousands of rows, no Value tree).

use crate::clean::CleanEntity;
use crate::model::QuantilePlan;
use crate::time::write_utc;

/// A forecast value to the model's own precision: the graph computes in single precision, so the
/// shortest decimal that reads back as the same `f32` (at most 9 significant digits) says all it
/// knows; 17 digits of an `f64` would claim more. Values outside `f32`'s normal range (series
/// brought into range by a power-of-two factor) keep the `f64` form. Rounding to the nearest `f32`
/// keeps the quantiles in order and 0 at 0. Checked finite before this point.
fn push_number(out: &mut String, buf: &mut zmij::Buffer, v: f64) {
    let single = v as f32;
    // Only a true 0 prints as the f32 0: a value that rounds to 0 in f32 (a series of 1e-50 scaled
    // back) is not 0.
    if v == 0.0 {
        // -0.0 (a mirrored or clipped zero) is the same forecast as 0.0; print one form.
        out.push_str("0.0");
    } else if single.is_finite() && single.abs() >= f32::MIN_POSITIVE {
        out.push_str(buf.format_finite(single));
    } else {
        out.push_str(buf.format_finite(v));
    }
}

pub(crate) fn forecast_rows_json(entities: &[CleanEntity], quantiles: &[Vec<f64>], q: usize, plan: &QuantilePlan) -> String {
    // Every row repeats its entity's id: a long id counts h times (growing by doubling instead
    // would hold up to twice the answer).
    let row_bytes = 96 + 48 * plan.intervals.len();
    let capacity: usize = entities.iter().map(|e| e.forecast_stamps.len() * (row_bytes + e.unique_id.len() + 2)).sum();
    let mut out = String::with_capacity(capacity);
    out.push('[');
    let mut first = true;
    let mut buf = zmij::Buffer::new();
    let interval_keys: Vec<String> = plan.intervals.iter().map(|(key, _, _)| format!("\"{key}\":{{\"lo\":")).collect();
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
            push_number(&mut out, &mut buf, row[plan.y_hat]);
            if !plan.intervals.is_empty() {
                out.push_str(",\"intervals\":{");
                for (i, (_, lo, hi)) in plan.intervals.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&interval_keys[i]);
                    push_number(&mut out, &mut buf, row[*lo]);
                    out.push_str(",\"hi\":");
                    push_number(&mut out, &mut buf, row[*hi]);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(v: f64) -> String {
        let mut out = String::new();
        push_number(&mut out, &mut zmij::Buffer::new(), v);
        out
    }

    #[test]
    fn values_are_printed_to_single_precision_and_read_back_to_the_same_f32() {
        assert_eq!(printed(65.35710144042969), "65.3571");
        assert_eq!(printed(0.0), "0.0");
        assert_eq!(printed(-0.0), "0.0");
        assert_eq!(printed(-2.5), "-2.5");
        for v in [1e12 + 12345.0, 1e-9 * 3.3, -7.123456789, 123456.789] {
            let text = printed(v);
            assert_eq!(text.parse::<f32>().unwrap(), v as f32, "{text}");
        }
        // Outside f32's normal range the f64 form is kept (never inf, never a flushed subnormal).
        assert_eq!(printed(1e300).parse::<f64>().unwrap(), 1e300);
        assert_eq!(printed(-3e-40).parse::<f64>().unwrap(), -3e-40);
        // Values that round to 0 in f32 keep their size and sign.
        assert_eq!(printed(8.7e-51).parse::<f64>().unwrap(), 8.7e-51);
        assert_eq!(printed(-1e-100).parse::<f64>().unwrap(), -1e-100);
    }
}
