//! Mapping requested levels and `point_quantile` onto the model's native quantiles.

use crate::choice::Choice;
use crate::error::{ErrorCode, HoraError};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantilePolicy {
    /// The nearest native quantile; a tie goes outward (the wider interval).
    Nearest,
    /// Any non-native quantile is `QUANTILE_UNSUPPORTED`.
    Strict,
}

impl Choice for QuantilePolicy {
    const ALL: &'static [QuantilePolicy] = &[QuantilePolicy::Nearest, QuantilePolicy::Strict];

    fn as_str(self) -> &'static str {
        match self {
            QuantilePolicy::Nearest => "nearest",
            QuantilePolicy::Strict => "strict",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct QuantileRequest {
    /// Requested levels, each 1 to 99 (duplicates allowed; they are merged).
    pub levels: Vec<u32>,
    pub point_quantile: Option<f64>,
    pub policy: QuantilePolicy,
}

/// Which native quantile feeds `y_hat` and each interval, and the `quantile_report`.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantilePlan {
    pub y_hat: usize,
    /// `(key, lo index, hi index)`, one per distinct pair, ordered by key width.
    pub intervals: Vec<(String, usize, usize)>,
    pub report: QuantileReport,
}

/// The response's `quantile_report`: what was asked for and which native quantiles answer it
/// (fields in the order of their names, the order a JSON map writes them in).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuantileReport {
    /// Present when `point_quantile` was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point_forecast: Option<PointForecast>,
    pub policy: &'static str,
    /// The quantiles the response needs (`y_hat`'s, the median or `point_quantile`, and each
    /// level's two), sorted, without repeats.
    pub requested: Vec<f64>,
    /// Each requested quantile that is not native, with the native one used for it.
    pub substitutions: Vec<Substitution>,
    /// The native quantiles served.
    pub used: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointForecast {
    pub method: PointMethod,
    pub requested: f64,
    pub used: f64,
}

/// How `point_quantile` was served: a native quantile, or the nearest one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PointMethod {
    Native,
    Nearest,
}

impl PointMethod {
    pub const ALL: [PointMethod; 2] = [PointMethod::Native, PointMethod::Nearest];
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Substitution {
    pub requested: f64,
    pub used: f64,
}

/// Requested quantiles are computed as `0.5 ± L/200`: round away float noise before comparing.
fn clean(q: f64) -> f64 {
    (q * 1e9).round() / 1e9
}

/// The quantiles of a central `level` % interval: `0.5 ∓ level/200` (contract).
fn level_pair(level: u32) -> (f64, f64) {
    let half = level as f64 / 200.0;
    (clean(0.5 - half), clean(0.5 + half))
}

fn nearest(native: &[f64], q: f64) -> usize {
    let mut best = 0;
    for (i, n) in native.iter().enumerate() {
        let (d, db) = (clean((n - q).abs()), clean((native[best] - q).abs()));
        let outward = if q < 0.5 { *n < native[best] } else { *n > native[best] };
        if d < db || (d == db && outward) {
            best = i;
        }
    }
    best
}

fn position(native: &[f64], q: f64) -> Option<usize> {
    native.iter().position(|n| clean(*n) == clean(q))
}

/// Formats an interval key: `(hi - lo) * 100`, without a trailing `.0`.
fn level_key(lo: f64, hi: f64) -> String {
    let width = clean((hi - lo) * 100.0);
    if width.fract() == 0.0 { format!("{}", width as i64) } else { format!("{width}") }
}

pub fn plan_quantiles(model: &str, native: &[f64], req: &QuantileRequest) -> Result<QuantilePlan, HoraError> {
    let mut levels = req.levels.clone();
    levels.sort_unstable();
    levels.dedup();
    // The quantiles the response needs: y_hat's (the median, or `point_quantile`) and each
    // level's two.
    let mut requested: Vec<f64> = vec![req.point_quantile.map_or(0.5, clean)];
    for l in &levels {
        let (lo, hi) = level_pair(*l);
        requested.extend([lo, hi]);
    }
    requested.sort_by(|a, b| a.total_cmp(b));
    requested.dedup();

    if req.policy == QuantilePolicy::Strict {
        // Every non-native quantile the request needs, the point one included.
        let mut unsupported: Vec<f64> =
            requested.iter().copied().chain(req.point_quantile).filter(|q| position(native, *q).is_none()).collect();
        unsupported.sort_by(|a, b| a.total_cmp(b));
        unsupported.dedup();
        let bad_levels: Vec<u32> = levels
            .iter()
            .copied()
            .filter(|l| {
                let (lo, hi) = level_pair(*l);
                unsupported.contains(&lo) || unsupported.contains(&hi)
            })
            .collect();
        let bad_point = req.point_quantile.filter(|p| position(native, *p).is_none());
        if !unsupported.is_empty() {
            let mut e = HoraError::new(ErrorCode::QuantileUnsupported, "A requested quantile is not native to the model and quantile_policy is strict.")
                .with("model", model)
                .with("level", bad_levels)
                .with("unsupported", unsupported)
                .with("supported", native.to_vec());
            if let Some(p) = bad_point {
                e = e.with("point_quantile", p);
            }
            return Err(e);
        }
    }

    let used_of = |q: f64| nearest(native, q);
    let mut used: Vec<f64> = requested.iter().map(|q| native[used_of(*q)]).collect();
    used.sort_by(|a, b| a.total_cmp(b));
    used.dedup();
    let substitutions: Vec<Substitution> = requested
        .iter()
        .filter(|q| position(native, **q).is_none())
        .map(|&q| Substitution { requested: q, used: native[used_of(q)] })
        .collect();
    let mut intervals: Vec<(String, usize, usize)> = Vec::new();
    for l in &levels {
        let (lo, hi) = level_pair(*l);
        let (lo, hi) = (used_of(lo), used_of(hi));
        if !intervals.iter().any(|(_, a, b)| (*a, *b) == (lo, hi)) {
            intervals.push((level_key(native[lo], native[hi]), lo, hi));
        }
    }
    let point_forecast = req.point_quantile.map(|p| PointForecast {
        method: if position(native, p).is_some() { PointMethod::Native } else { PointMethod::Nearest },
        requested: p,
        used: native[used_of(p)],
    });
    let y_hat = used_of(req.point_quantile.unwrap_or(0.5));
    let report = QuantileReport { point_forecast, policy: req.policy.as_str(), requested, substitutions, used };
    Ok(QuantilePlan { y_hat, intervals, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn report(p: &QuantilePlan) -> Value {
        serde_json::to_value(&p.report).unwrap()
    }

    const NATIVE: [f64; 13] = [0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];

    fn plan(levels: &[u32], point: Option<f64>, policy: QuantilePolicy) -> Result<QuantilePlan, HoraError> {
        plan_quantiles("hora-1.0", &NATIVE, &QuantileRequest { levels: levels.to_vec(), point_quantile: point, policy })
    }

    #[test]
    fn levels_80_and_90_request_the_contract_example_quantiles() {
        let p = plan(&[90, 80, 80], None, QuantilePolicy::Nearest).unwrap();
        assert_eq!(report(&p)["requested"], json!([0.05, 0.1, 0.5, 0.9, 0.95]));
        assert_eq!(report(&p)["substitutions"], json!([]));
        let keys: Vec<&str> = p.intervals.iter().map(|i| i.0.as_str()).collect();
        assert_eq!(keys, vec!["80", "90"]);
        assert_eq!(p.y_hat, 6);
    }

    #[test]
    fn level_95_is_served_by_0_01_and_0_99_and_keyed_98() {
        let p = plan(&[95], None, QuantilePolicy::Nearest).unwrap();
        assert_eq!(p.intervals, vec![("98".to_string(), 0, 12)]);
        assert_eq!(report(&p)["substitutions"], json!([{"requested": 0.025, "used": 0.01}, {"requested": 0.975, "used": 0.99}]));
    }

    #[test]
    fn a_tie_goes_outward_to_the_wider_interval() {
        // 0.25 is halfway between 0.2 and 0.3; 0.75 between 0.7 and 0.8.
        let p = plan(&[50], None, QuantilePolicy::Nearest).unwrap();
        assert_eq!(p.intervals, vec![("60".to_string(), 3, 9)]);
    }

    #[test]
    fn levels_resolving_to_the_same_quantiles_appear_once() {
        let p = plan(&[89, 90], None, QuantilePolicy::Nearest).unwrap();
        assert_eq!(p.intervals.len(), 1);
        assert_eq!(p.intervals[0].0, "90");
    }

    #[test]
    fn strict_refuses_non_native_quantiles_with_details() {
        let e = plan(&[80, 95], Some(0.33), QuantilePolicy::Strict).unwrap_err();
        assert_eq!(e.code, ErrorCode::QuantileUnsupported);
        assert_eq!(e.details["level"], json!([95]));
        assert_eq!(e.details["unsupported"], json!([0.025, 0.33, 0.975]));
        assert_eq!(e.details["point_quantile"], json!(0.33));
        // A non-native point quantile alone is named in `unsupported` too.
        let e = plan(&[], Some(0.15), QuantilePolicy::Strict).unwrap_err();
        assert_eq!((e.details["level"].clone(), e.details["unsupported"].clone()), (json!([]), json!([0.15])));
        assert!(plan(&[80, 90], Some(0.7), QuantilePolicy::Strict).is_ok());
    }

    #[test]
    fn point_quantile_maps_to_the_nearest_native_and_reports_the_method() {
        let p = plan(&[], Some(0.7), QuantilePolicy::Nearest).unwrap();
        assert_eq!(p.y_hat, 8);
        assert_eq!(report(&p)["point_forecast"], json!({"requested": 0.7, "used": 0.7, "method": "native"}));
        let p = plan(&[], Some(0.72), QuantilePolicy::Nearest).unwrap();
        assert_eq!(report(&p)["point_forecast"]["method"], "nearest");
        assert_eq!(report(&p)["point_forecast"]["used"], json!(0.7));
    }

    #[test]
    fn the_point_quantile_replaces_the_median_in_requested_used_and_substitutions() {
        let p = plan(&[80], Some(0.75), QuantilePolicy::Nearest).unwrap();
        assert_eq!(report(&p)["requested"], json!([0.1, 0.75, 0.9]));
        assert_eq!(report(&p)["used"], json!([0.1, 0.8, 0.9]));
        assert_eq!(report(&p)["substitutions"], json!([{"requested": 0.75, "used": 0.8}]));
        assert_eq!(p.y_hat, 9);
    }
}
