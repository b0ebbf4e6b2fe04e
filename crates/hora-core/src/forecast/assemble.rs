//! Serialises `forecast[]` straight from the quantile arrays (thousands of rows, no Value tree).

use crate::clean::CleanEntity;
use crate::model::QuantilePlan;
use crate::error::{ErrorCode, HoraError};
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

/// The most bytes [`push_number`] writes: the longest shortest-form `f64` (`-2.2250738585072014e-308`).
const NUMBER_MAX: usize = 24;
/// The most bytes [`write_utc`] writes for a stamp parsed from input (years 1 to 9999).
const STAMP_MAX: usize = 20;

pub(crate) fn forecast_rows_json(
    entities: &[CleanEntity],
    quantiles: &[Vec<f64>],
    q: usize,
    plan: &QuantilePlan,
) -> Result<String, HoraError> {
    let rows: Vec<(&str, &[i64])> = entities.iter().map(|e| (e.unique_id.as_str(), e.forecast_stamps.as_slice())).collect();
    write_rows(&rows, quantiles, q, plan)
}

/// `forecast[]` for each entity's id and forecast stamps, with its `quantiles` (`q` per step).
fn write_rows(entities: &[(&str, &[i64])], quantiles: &[Vec<f64>], q: usize, plan: &QuantilePlan) -> Result<String, HoraError> {
    let interval_keys: Vec<String> = plan.intervals.iter().map(|(key, _, _)| format!("\"{key}\":{{\"lo\":")).collect();
    let uids: Vec<String> = entities.iter().map(|(id, _)| serde_json::to_string(id).unwrap_or_default()).collect();
    // Every row repeats its entity's id, so a long id counts h times: one request can ask for
    // gigabytes. The whole answer is reserved at once, fallibly, from a bound no row can pass, so
    // writing never grows the string and a failed allocation is this request's 500 rather than an
    // abort of the process with every request in flight.
    let bound = answer_bound(entities.iter().zip(&uids).map(|((_, stamps), uid)| (uid.len(), stamps.len())), &interval_keys);
    let mut out = reserve_answer(bound)?;
    out.push('[');
    let mut first = true;
    let mut buf = zmij::Buffer::new();
    for (((_, stamps), values), uid) in entities.iter().zip(quantiles).zip(&uids) {
        for (step, stamp) in stamps.iter().enumerate() {
            if !first {
                out.push(',');
            }
            first = false;
            let row = &values[step * q..(step + 1) * q];
            out.push_str("{\"unique_id\":");
            out.push_str(uid);
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
    Ok(out)
}

/// The most bytes `forecast[]` can take for entities given as (JSON id length, forecast steps);
/// `None` past `usize`.
fn answer_bound(mut entities: impl Iterator<Item = (usize, usize)>, interval_keys: &[String]) -> Option<usize> {
    let intervals_max = if interval_keys.is_empty() {
        0
    } else {
        ",\"intervals\":{}".len() + interval_keys.iter().map(|k| k.len() + ",\"hi\":}".len() + 2 * NUMBER_MAX + 1).sum::<usize>()
    };
    let row_max = "{\"unique_id\":,\"ds\":\"\",\"y_hat\":},".len() + STAMP_MAX + NUMBER_MAX + intervals_max;
    entities.try_fold("[]".len(), |sum, (id, steps)| steps.checked_mul(row_max.checked_add(id)?).and_then(|b| sum.checked_add(b)))
}

/// An empty string with room for `bound` bytes, or the 500 that says the answer cannot be held.
fn reserve_answer(bound: Option<usize>) -> Result<String, HoraError> {
    let mut out = String::new();
    let reserved = match bound {
        Some(bytes) => out.try_reserve_exact(bytes).map_err(|e| e.to_string()),
        None => Err("its size overflows".to_string()),
    };
    reserved.map_err(|why| {
        HoraError::new(ErrorCode::InternalServerError, format!("The forecast is too large to be written ({why})."))
    })?;
    Ok(out)
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
    fn the_answer_never_outgrows_the_room_reserved_for_it() {
        use crate::model::{plan_quantiles, QuantilePolicy, QuantileRequest};
        use crate::time::{days_from_civil, MICROS_PER_DAY};
        let native = [0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];
        let request = QuantileRequest { levels: (1..=99).collect(), point_quantile: None, policy: QuantilePolicy::Nearest };
        let plan = plan_quantiles("hora-1.0", &native, &request).unwrap();
        // The longest forms each part can take: an id escaped to six bytes a character, the last
        // stamp of year 9999, and numbers of 24 characters.
        let id = "\u{1}\"\\".repeat(50);
        let last = days_from_civil(9999, 12, 31) * MICROS_PER_DAY + MICROS_PER_DAY - 1;
        let stamps: Vec<i64> = (0..8).map(|k| last - k).collect();
        let worst = [-2.2250738585072014e-308, -1.7976931348623157e308, -1.2345678901234567e-100, -3.4028234663852886e38];
        let values: Vec<f64> = (0..8 * native.len()).map(|i| worst[i % worst.len()]).collect();
        let json = write_rows(&[(id.as_str(), &stamps), ("", &stamps[..1])], &[values.clone(), values], native.len(), &plan).unwrap();
        let keys: Vec<String> = plan.intervals.iter().map(|(key, _, _)| format!("\"{key}\":{{\"lo\":")).collect();
        let id_json = serde_json::to_string(&id).unwrap().len();
        let bound = answer_bound([(id_json, 8), (2, 1)].into_iter(), &keys).unwrap();
        assert!(json.len() <= bound, "{} written, {bound} reserved", json.len());
        assert_eq!(json.capacity(), bound, "writing grew the string past its reservation");
        let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(rows.as_array().unwrap().len(), 9);
        assert!(worst.iter().all(|v| printed(*v).len() <= NUMBER_MAX));
    }

    #[test]
    fn an_answer_too_large_to_hold_is_a_500_not_an_abort() {
        for bound in [None, Some(isize::MAX as usize), Some(usize::MAX)] {
            let err = reserve_answer(bound).unwrap_err();
            assert_eq!(err.code, ErrorCode::InternalServerError);
            assert!(err.message.starts_with("The forecast is too large to be written"), "{}", err.message);
        }
        assert!(reserve_answer(Some(1 << 20)).unwrap().capacity() >= 1 << 20);
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
