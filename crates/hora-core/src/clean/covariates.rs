//! Covariates: future rows checked against the history columns, past columns aligned to the
//! cleaned grid, and per column `used`/`reason` for `model_input[].covariates`.

use std::collections::HashMap;

use serde::Serialize;

use super::decisions::{consent, ranges_of, Decision, DecisionId, Status};
use super::entity::{runs_of, Ctx, Outcome};
use super::fill::missing_runs;
use super::long_gap::auto_split_steps;
use super::notices::Warning;
use super::options::Preset;
use super::policy::LISTED_MAX;
use super::prepare::Prepared;
use super::stamps::{self, format_utc, AsHistory, Zone};
use super::CleanRequest;
use crate::error::{ErrorCode, FieldError, HoraError, Result, MAX_LISTED_ERRORS};
use crate::ingest::CovariateColumn;
use crate::time::StampRows;

/// `FUTURE_COVARIATES_INVALID` for future rows of an entity without history;
/// `COVARIATE_COLUMN_MISMATCH` for future columns absent from `series`.
pub fn validate_future(req: &CleanRequest) -> Result<()> {
    let Some(future) = req.future else { return Ok(()) };
    let orphan = future.first_entity_missing_from(req.series);
    crate::ingest::future_rows_error(None, orphan, &future.columns_missing_from(req.series)).map_or(Ok(()), Err)
}

/// One entity's future rows, read as its history was.
#[derive(Debug, Clone)]
pub struct FutureRows {
    pub instants: Vec<i64>,
    /// Positions in the future table, in the order sent.
    pub rows: Vec<u32>,
    /// Stamps without an offset (read in `options.timezone`, else UTC, as the history's).
    pub naive: usize,
    /// Some stamp was converted to UTC (`data_quality.timezone_normalized`).
    pub converted: bool,
}

/// Each series entity's future rows, read as its history was (`history`): in the request's zone,
/// with `options.ds_format` or else the day/month order its history proved, in the format its
/// history was written in (one format per entity). An unreadable future stamp is a `VALIDATION_ERROR` naming its `future_covariates[i].ds`; it is
/// never dropped in silence.
/// `history_walls` are an entity's repeated local times its history sent: a future row at such a
/// time is the second pass (the one forecast stamp a naive row can name there).
pub fn read_future<'a>(
    req: &CleanRequest,
    zone: &Zone,
    history: impl Fn(usize) -> AsHistory,
    history_walls: impl Fn(usize) -> &'a [i64],
) -> Result<Vec<Option<FutureRows>>> {
    let mut out = vec![None; req.series.entity_count()];
    for (e, rows) in future_by_entity(req, zone, history, history_walls) {
        // Future rows of an entity without history are refused by `validate_future`.
        if let Some(e) = e {
            out[e] = Some(rows?);
        }
    }
    Ok(out)
}

/// Validation step 3 for future stamps: one `VALIDATION_ERROR` listing the unreadable
/// `future_covariates[i].ds` of every entity's future rows ([`unreadable_future_stamps`]).
pub fn check_future_stamps(req: &CleanRequest, zone: &Zone, history: impl Fn(usize) -> AsHistory) -> Result<()> {
    let unreadable = unreadable_future_stamps(req, zone, history);
    if unreadable.is_empty() {
        Ok(())
    } else {
        Err(HoraError::fields(unreadable))
    }
}

/// The unreadable `future_covariates[i].ds`, entity by entity (the contract's at most 10). Rows
/// that need a day/month order their history has not proven are left to the cleaning step, as
/// the history is.
pub fn unreadable_future_stamps(req: &CleanRequest, zone: &Zone, history: impl Fn(usize) -> AsHistory) -> Vec<FieldError> {
    future_by_entity(req, zone, history, |_| &[])
        .filter_map(|(_, rows)| rows.err().filter(|e| e.code == ErrorCode::ValidationError))
        .flat_map(|e| e.listed_fields())
        .take(MAX_LISTED_ERRORS)
        .collect()
}

/// Every future entity's rows read, in the order the future table lists them, with the series
/// entity they belong to (`None` for an entity without history, whose stamps are still read: an
/// unreadable one is this step's `VALIDATION_ERROR`, before `FUTURE_COVARIATES_INVALID`).
fn future_by_entity<'a, 'w>(
    req: &'a CleanRequest,
    zone: &'a Zone,
    history: impl Fn(usize) -> AsHistory + 'a,
    history_walls: impl Fn(usize) -> &'w [i64] + 'a,
) -> impl Iterator<Item = (Option<usize>, Result<FutureRows>)> + 'a
where
    'w: 'a,
{
    let entity_of: HashMap<&str, usize> = req.series.entities.iter().enumerate().map(|(e, u)| (u.as_str(), e)).collect();
    req.future
        .into_iter()
        .flat_map(|future| future.entities.iter().enumerate().map(move |(fe, u)| (future, fe, u)))
        .map(move |(future, fe, u)| {
            let e = entity_of.get(u.as_str()).copied();
            let seen = e.map_or(&[][..], &history_walls);
            let read = stamps::parse_entity_after(future, StampRows::FutureCovariates, fe, zone, e.map(&history).unwrap_or_default(), seen)
                .map(|parsed| FutureRows {
                    converted: parsed.converted(zone),
                    naive: parsed.naive_rows,
                    rows: future.entity_range(fe).map(|k| k as u32).collect(),
                    instants: parsed.instants,
                });
            (e, read)
        })
}

/// The warning for an entity's future rows whose stamp is no forecast stamp (past the horizon,
/// inside the history, or off the grid), or that a later row for the same stamp supersedes (the
/// last one sent counts, as in `series`): they are ignored, and the caller is told so rather
/// than left to think they were used. `None` when every future row counts.
pub fn unused_future_rows(unique_id: &str, forecast_stamps: &[i64], future_stamps: Option<&FutureRows>) -> Option<Warning> {
    let instants = &future_stamps?.instants;
    // The row of each stamp's last copy, the one that counts.
    let last: HashMap<i64, usize> = instants.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let unused: Vec<i64> = instants.iter().enumerate().filter(|&(i, t)| last[t] != i || forecast_stamps.binary_search(t).is_err()).map(|(_, &t)| t).collect();
    if unused.is_empty() {
        return None;
    }
    // Each stamp listed once, as `ds.dedupe` lists its stamps; `count` counts the rows.
    let mut seen = std::collections::HashSet::new();
    let listed: Vec<String> = unused.iter().filter(|t| seen.insert(**t)).take(LISTED_MAX).map(|t| format_utc(*t)).collect();
    Some(Warning::FutureRowsUnused { count: unused.len(), stamps: listed, unique_id: unique_id.to_string() })
}

/// A covariate column's entry in `model_input[].covariates`: whether the model used it, and why
/// not (fields in the order of their names).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CovariateUse {
    pub name: String,
    pub reason: CovariateReason,
    pub role: CovariateRole,
    pub used: bool,
}

/// Why a column is not used: the first that holds, in this order (docs/cleaning-policy.md,
/// "Covariates").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CovariateReason {
    /// A string or boolean in a row of this entity that counts.
    NotNumeric,
    /// A gap left in place: any gap under `clean_exog: false`, or short gaps whose fill is only
    /// proposed (or under raw).
    Gaps,
    /// Under `clean_exog: true`, a gap it may not fill: past the short-gap limit, or at an end.
    LongGaps,
    /// A forecast stamp without a number in its future row.
    FutureValuesMissing,
    /// The column passes every check; hora-1.0 reads no covariate.
    ModelUnsupported,
}

impl CovariateReason {
    pub const ALL: [CovariateReason; 5] =
        [CovariateReason::NotNumeric, CovariateReason::Gaps, CovariateReason::LongGaps, CovariateReason::FutureValuesMissing, CovariateReason::ModelUnsupported];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CovariateRole {
    /// The column has future rows.
    Future,
    /// History only.
    Past,
}

impl CovariateRole {
    pub const ALL: [CovariateRole; 2] = [CovariateRole::Future, CovariateRole::Past];
}

/// Per column of entity `e`: role, used, reason; plus the `exog.impute` decisions of short gaps.
/// `future_stamps` are the entity's future rows from [`read_future`].
pub fn assess(req: &CleanRequest, p: &Prepared, o: &Outcome, ctx: &Ctx, future_stamps: Option<&FutureRows>) -> (Option<Vec<CovariateUse>>, Vec<Decision>) {
    if req.series.covariates.is_empty() {
        return (None, Vec::new());
    }
    let frame = Frame::new(p, o, ctx, future_stamps);
    let mut columns = Vec::new();
    let mut decisions = Vec::new();
    for col in &req.series.covariates {
        let future_col = req.future.and_then(|f| f.covariates.iter().find(|c| c.name == col.name));
        let (column, fill) = frame.assess_column(col, future_col);
        columns.push(column);
        decisions.extend(fill);
    }
    (Some(columns), decisions)
}

/// What each covariate column of one entity is judged against: its cleaned grid, its forecast
/// stamps' future rows, and which slots hold a row sent.
struct Frame<'a> {
    p: &'a Prepared,
    o: &'a Outcome,
    ctx: &'a Ctx<'a>,
    /// The longest gap a fill may close.
    short_limit: usize,
    /// The future row of each forecast stamp: the last one sent for it (as in `series`). One
    /// map, not a scan of the future rows per stamp (h x rows on a large /clean).
    last_future_rows: Option<Vec<Option<u32>>>,
    /// As for `y` (entity.rs): while the regrid does not apply (proposed or declined), the slots
    /// it would insert do not exist, and an applied fill covers only the rows that do.
    regrid_unapplied: bool,
    /// Which grid slots hold a row sent: filled only while the regrid does not apply.
    has_row: Vec<bool>,
}

impl<'a> Frame<'a> {
    fn new(p: &'a Prepared, o: &'a Outcome, ctx: &'a Ctx<'a>, future_stamps: Option<&FutureRows>) -> Self {
        let last_future_rows = future_stamps.map(|f| {
            let last: HashMap<i64, u32> = f.instants.iter().copied().zip(f.rows.iter().copied()).collect();
            o.forecast_stamps.iter().map(|t| last.get(t).copied()).collect()
        });
        let regrid_unapplied = o.decisions.iter().any(|d| d.id == DecisionId::Regrid && !d.applied());
        let mut has_row = vec![false; if regrid_unapplied { o.grid.len() } else { 0 }];
        if regrid_unapplied {
            for t in &p.ts {
                if let Ok(k) = o.grid.binary_search(t) {
                    has_row[k] = true;
                }
            }
        }
        Frame { p, o, ctx, short_limit: auto_split_steps(ctx.period) - 1, last_future_rows, regrid_unapplied, has_row }
    }

    /// One column's entry, and the `exog.impute` decision of its short gaps when it has some.
    fn assess_column(&self, col: &CovariateColumn, future_col: Option<&CovariateColumn>) -> (CovariateUse, Option<Decision>) {
        let (p, o, ctx) = (self.p, self.o, self.ctx);
        let text = |c: &CovariateColumn, pos: u32| c.non_numeric.binary_search(&pos).is_ok();
        // History of the column on the cleaned grid: NaN where no row or no number.
        let mut values = vec![f64::NAN; o.grid.len()];
        let mut kept_text = false;
        for (t, row) in p.ts.iter().zip(&p.rows) {
            if let Ok(k) = o.grid.binary_search(t) {
                values[k] = col.values[*row as usize];
                kept_text |= text(col, *row);
            }
        }
        let runs = missing_runs(&values);
        let interior = |r: &(usize, usize)| r.0 > 0 && r.0 + r.1 < values.len();
        let fillable = runs.iter().all(|r| interior(r) && r.1 <= self.short_limit);
        let future = future_col.zip(self.last_future_rows.as_ref());
        // Each forecast stamp needs a number in its future row.
        let covers = match future {
            Some((fc, rows)) => rows.iter().all(|r| r.is_some_and(|r| fc.values[r as usize].is_finite())),
            None => !o.has_horizon(ctx.h),
        };
        // A string or boolean in a row of this entity that counts: a history row on the cleaned
        // grid (not one dropped off the grid or cut by a split, judged like a gap there), or the
        // future row of a forecast stamp. Another entity's text does not make this one's column
        // unusable.
        let non_numeric = kept_text || future.is_some_and(|(fc, rows)| rows.iter().flatten().any(|&r| text(fc, r)));
        // Short interior gaps are filled only when clean_exog allows it.
        let (filled, decision) =
            if !non_numeric && !runs.is_empty() && ctx.res.clean_exog && fillable { self.fill(col, &runs) } else { (false, None) };
        let reason = if non_numeric {
            CovariateReason::NotNumeric
        } else if !runs.is_empty() && !filled {
            // Long means too long to fill; raw fills nothing, so under raw a gap is a gap.
            let judged_long = ctx.res.clean_exog && !fillable && ctx.res.preset != Preset::Raw;
            if judged_long { CovariateReason::LongGaps } else { CovariateReason::Gaps }
        } else if !covers {
            CovariateReason::FutureValuesMissing
        } else {
            CovariateReason::ModelUnsupported
        };
        let role = if future_col.is_some() { CovariateRole::Future } else { CovariateRole::Past };
        // hora-1.0 uses no covariate: a column that passes every check is still not used.
        (CovariateUse { name: col.name.clone(), reason, role, used: false }, decision)
    }

    /// Whether the fill of the column's short interior gaps `runs` applies, and the `exog.impute`
    /// decision that records it. Proposed under strict or clean_series false, or under raw (which
    /// fills nothing), the gaps stay and the column is unusable for them.
    fn fill(&self, col: &CovariateColumn, runs: &[(usize, usize)]) -> (bool, Option<Decision>) {
        let res = self.ctx.res;
        let applies = consent(DecisionId::ExogImpute, res) == Status::Applied;
        let fill: Vec<(usize, usize)> = if self.regrid_unapplied && applies {
            let has_row = &self.has_row;
            runs.iter().flat_map(|&(s, l)| runs_of(&has_row[s..s + l], true).into_iter().map(move |(k, n)| (s + k, n))).collect()
        } else {
            runs.to_vec()
        };
        let count: usize = fill.iter().map(|r| r.1).sum();
        let decision = (count > 0).then(|| {
            let mut d = Decision::new(DecisionId::ExogImpute, &self.p.unique_id, count, res).with_ranges(ranges_of(&fill, |k| self.o.grid[k]));
            d.method = Some("linear");
            d.column = Some(col.name.clone());
            d
        });
        // hora-1.0 reads no covariate, so the filled values themselves go nowhere: the decision
        // records the fill (linear) and the column's reason says what it achieved.
        (applies && res.preset != Preset::Raw, decision)
    }
}
