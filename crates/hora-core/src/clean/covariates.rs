//! Covariates: future rows checked against the history columns, past columns aligned to the
//! cleaned grid, and per column `used`/`reason` for `model_input[].covariates`.

use serde_json::{json, Value};

use super::decisions::{ranges_of, Decision, DecisionId};
use super::entity::{auto_split_steps, Ctx, Outcome};
use super::kernels::{self, missing_runs};
use super::options::ImputeMethod;
use super::prepare::Prepared;
use super::stamps;
use super::CleanRequest;
use crate::error::{ErrorCode, HoraError, Result};

/// `COVARIATE_COLUMN_MISMATCH` for future columns absent from `series`; `FUTURE_COVARIATES_INVALID`
/// for future rows of an entity without history.
pub fn validate_future(req: &CleanRequest) -> Result<()> {
    let Some(future) = req.future else { return Ok(()) };
    let future_only: Vec<&str> = future
        .covariates
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| !req.series.covariates.iter().any(|c| c.name == *n))
        .collect();
    if !future_only.is_empty() {
        return Err(HoraError::new(ErrorCode::CovariateColumnMismatch, "future_covariates columns must also appear on series rows")
            .with("future_only", json!(future_only)));
    }
    if let Some(u) = future.entities.iter().find(|u| !req.series.entities.contains(u)) {
        return Err(HoraError::new(ErrorCode::FutureCovariatesInvalid, format!("future_covariates rows for '{u}', which has no history"))
            .with("unique_id", u.clone()));
    }
    Ok(())
}

/// Per column of entity `e`: role, used, reason; plus the `exog.impute` decisions of short gaps.
pub fn assess(req: &CleanRequest, e: usize, p: &Prepared, o: &Outcome, ctx: &Ctx) -> (Option<Vec<Value>>, Vec<Decision>) {
    let table = req.series;
    if table.covariates.is_empty() {
        return (None, Vec::new());
    }
    let future_stamps = future_rows(req, &p.unique_id, ctx);
    let short_limit = auto_split_steps(ctx.period) - 1;
    let mut columns = Vec::new();
    let mut decisions = Vec::new();
    for col in &table.covariates {
        let future_col = req.future.and_then(|f| f.covariates.iter().find(|c| c.name == col.name));
        let role = if future_col.is_some() { "future" } else { "past" };
        // History of the column on the cleaned grid: NaN where no row or no number.
        let mut values = vec![f64::NAN; o.grid.len()];
        for (t, row) in p.ts.iter().zip(&p.rows) {
            if let Ok(k) = o.grid.binary_search(t) {
                values[k] = col.values[*row as usize];
            }
        }
        let runs = missing_runs(&values);
        let interior = |r: &(usize, usize)| r.0 > 0 && r.0 + r.1 < values.len();
        let fillable = runs.iter().all(|r| interior(r) && r.1 <= short_limit);
        let gaps_ok = runs.is_empty() || (ctx.res.clean_exog && fillable);
        let covers = match (&future_stamps, future_col) {
            (_, None) => o.forecast_stamps.is_empty(),
            (Some((stamps_, rows)), Some(fc)) => o.forecast_stamps.iter().all(|t| {
                stamps_.iter().zip(rows).any(|(s, r)| s == t && fc.values[*r as usize].is_finite())
            }),
            (None, Some(_)) => o.forecast_stamps.is_empty(),
        };
        let reason = if col.non_numeric_rows > 0 {
            "not_numeric"
        } else if !gaps_ok {
            if ctx.res.clean_exog { "long_gaps" } else { "gaps" }
        } else if !covers {
            "future_values_missing"
        } else {
            "model_unsupported"
        };
        if col.non_numeric_rows == 0 && !runs.is_empty() && gaps_ok {
            let filled: usize = runs.iter().map(|r| r.1).sum();
            for &r in &runs {
                kernels::fill_run(&mut values, r, ImputeMethod::Linear, 0);
            }
            let mut d = Decision::new(DecisionId::ExogImpute, &p.unique_id, filled, ctx.res)
                .with_ranges(ranges_of(&runs, |k| o.grid[k]));
            d.method = Some("linear");
            d.column = Some(col.name.clone());
            decisions.push(d);
        }
        // hora-1.0 uses no covariate: a column that passes every check is still not used.
        columns.push(json!({"name": col.name, "role": role, "used": false, "reason": reason}));
    }
    let _ = e;
    (Some(columns), decisions)
}

/// Stamps and table positions of this entity's future rows, read in the request's zone.
fn future_rows(req: &CleanRequest, unique_id: &str, ctx: &Ctx) -> Option<(Vec<i64>, Vec<u32>)> {
    let future = req.future?;
    let fe = future.entities.iter().position(|u| u == unique_id)?;
    let parsed = stamps::parse_entity(future, fe, ctx.zone, None).ok()?;
    Some((parsed.instants, future.entity_range(fe).map(|k| k as u32).collect()))
}
