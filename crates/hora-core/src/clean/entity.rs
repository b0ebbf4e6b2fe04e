//! Per-entity stages on the grid: long gaps, short-gap imputation, trailing nulls, blocking rules,
//! outliers and the value knobs, in that order (docs/cleaning-policy.md).

use crate::choice::Choice;

use super::blocking::{self, Block, Measured, Reason};
use super::decisions::{consent, ranges_of, Decision, DecisionId, Status};
use super::grid::Placed;
use super::horizon;
use super::fill::{self, missing_runs};
use super::long_gap::{mask_unavailable, split_threshold};
use super::notices::{Issue, Warning};
use super::options::{ModelLimits, Nonnegative, Resolved};
use super::policy::{BlockingRule, LISTED_MAX, OUTLIER_MIN_OBSERVED, OUTLIER_Z};
use super::prepare::Prepared;
use super::stamps::{format_utc, FreqSpec, Zone};
use crate::time::MAX_OFF_GRID_SHARE;

pub struct Ctx<'a> {
    pub freq: &'a FreqSpec,
    pub zone: &'a Zone,
    pub res: &'a Resolved,
    pub limits: Option<ModelLimits>,
    pub h: usize,
    pub period: usize,
    /// List the `h` forecast stamps (a forecast, or future rows to check against them); else
    /// only check that they fit the calendar (`horizon::horizon_fits`).
    pub list_forecast_stamps: bool,
}

/// One entity after cleaning: its model context and everything the report says about it.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub decisions: Vec<Decision>,
    pub blocks: Vec<Block>,
    pub issues: Vec<Issue>,
    pub warnings: Vec<Warning>,
    /// Context stamps and values (NaN = masked slot).
    pub grid: Vec<i64>,
    pub values: Vec<f64>,
    /// Report's `output_points`: the context's slots, less those a regrid that does not apply
    /// (proposed or declined) never inserted, plus the rows a split that does not apply keeps.
    pub output_points: usize,
    /// Observed points of the context (of the whole history when a split does not apply).
    pub fed_points: usize,
    pub grid_before: usize,
    pub inserted_before: usize,
    /// Slots the imputation filled, when it applies.
    pub imputed: usize,
    pub masked_tail: usize,
    pub long_gap_points: usize,
    pub long_gap_masked: bool,
    /// Listed only when `Ctx::list_forecast_stamps`.
    pub forecast_stamps: Vec<i64>,
    /// Fewer than `h` forecast stamps fit before the end of year 9999 (the pipeline refuses it).
    pub horizon_short: bool,
    /// The entity was placed on a grid (false: no numeric y, or too far off the grid), so the
    /// report gives its counts.
    pub has_grid: bool,
}

impl Outcome {
    /// Whether the entity has a gap long enough for the long-gap split to keep only its latest
    /// segment, whether the split was applied, proposed (`strict`, `clean_series: false`) or
    /// declined: the cleaning then answers for the entity, with its report.
    pub fn split_found(&self) -> bool {
        super::decisions::has_split(&self.decisions)
    }

    /// Whether forecast stamps follow this entity's context (`h` > 0 and a context to step
    /// from), listed or not: a future covariate must then cover them.
    pub fn has_horizon(&self, h: usize) -> bool {
        h > 0 && !self.grid.is_empty()
    }
}

impl Outcome {
    /// An entity with no numeric y: blocked, with no grid and nothing to feed the model.
    pub fn empty(unique_id: &str) -> Outcome {
        Outcome { blocks: vec![Block::no_numeric_values(unique_id)], ..Default::default() }
    }

    /// An entity with more than `MAX_OFF_GRID_SHARE` of its stamps off the frequency's grid:
    /// blocked `FREQ_INFERENCE_FAILED` in its place among the others, with no grid.
    pub fn off_grid(unique_id: &str, share: f64) -> Outcome {
        let block = Block::new(unique_id, Reason::FreqInferenceFailed { off_grid: Some((share, MAX_OFF_GRID_SHARE)) });
        Outcome { blocks: vec![block], ..Default::default() }
    }
}

/// One entity placed on its grid, as the stages of [`clean`] read it.
struct OnGrid<'a> {
    name: &'a str,
    grid: &'a [i64],
    /// Which slots a row filled (the others were inserted by the regrid).
    from_row: &'a [bool],
    /// Which slots hold a finite value.
    observed: Vec<bool>,
    ctx: &'a Ctx<'a>,
}

impl OnGrid<'_> {
    /// The stamps of the rows in `range` (trimming drops rows whose `y` was null; slots no row
    /// filled were never data).
    fn rows_in(&self, range: std::ops::Range<usize>) -> Vec<i64> {
        range.filter(|&k| self.from_row[k]).map(|k| self.grid[k]).collect()
    }

    /// Long gaps from slot `lo`: kept as masked steps with `long_gap: mask` (when the whole
    /// context, up to slot `end`, fits the model), else the latest contiguous segment is kept (a
    /// split). Returns the first slot kept and whether the mask applies.
    fn long_gaps(&self, long: &[(usize, usize)], (lo, end): (usize, usize), out: &mut Outcome, d: &mut Vec<Decision>) -> (usize, bool) {
        let (res, name, grid) = (self.ctx.res, self.name, self.grid);
        let Some(&(s, len)) = long.last() else { return (lo, false) };
        let fits = self.ctx.limits.is_none_or(|l| end - lo <= l.max_context);
        if res.knobs.long_gap_mask && fits {
            out.long_gap_points = long.iter().map(|r| r.1).sum();
            out.long_gap_masked = true;
            d.push(Decision::new(DecisionId::MaskLongGap, name, out.long_gap_points, res).with_ranges(ranges_of(long, |k| grid[k])));
            return (lo, true);
        }
        if res.knobs.long_gap_mask {
            out.warnings.push(mask_unavailable(name));
        }
        let dropped = self.observed[lo..s].iter().filter(|o| **o).count();
        d.push(Decision::new(DecisionId::Split, name, dropped, res).with_ranges([(grid[lo], grid[s + len - 1])]));
        (s + len, false)
    }

    /// Where the context ends when the trailing nulls after slot `last` do not block: at the last
    /// value where they are trimmed (before 2026-12), at the grid's end where they are a masked
    /// tail. The mask's fit is judged on it, not on the rows as sent.
    fn context_end(&self, last: usize) -> usize {
        match self.ctx.res.policy.masked_tail_max {
            None => last + 1,
            Some(_) => self.grid.len(),
        }
    }

    /// Trailing nulls after slot `last`: a short masked tail from 2026-12 (a longer one blocks),
    /// trimmed before. Returns the tail's slots left at the end of the grid (a blocked tail's
    /// too) and whether they are a masked tail.
    fn trailing(&self, last: usize, out: &mut Outcome, d: &mut Vec<Decision>) -> (usize, bool) {
        let (res, name, n) = (self.ctx.res, self.name, self.grid.len());
        let tail_len = n - 1 - last;
        if tail_len == 0 {
            return (0, false);
        }
        let kept = match res.policy.masked_tail_max {
            None => {
                let rows = self.rows_in(last + 1..n);
                d.push(Decision::new(DecisionId::TrimTail, name, rows.len(), res).with_stamps(rows));
                0
            }
            Some(max) if tail_len <= max => {
                d.push(Decision::new(DecisionId::MaskedTail, name, tail_len, res).with_stamps(self.grid[last + 1..].iter().copied()));
                tail_len
            }
            Some(max) => {
                out.blocks.push(Block::new(name, Reason::TrailingGapTooLong { count: tail_len, max_steps: max }));
                return (tail_len, false);
            }
        };
        // Trimmed or masked, the forecast starts before the last stamp sent: say so. A tail only
        // proposed or declined changes nothing, and the request is refused for it.
        if d.last().is_some_and(Decision::applied) {
            out.warnings.push(Warning::TrailingValuesMissing { unique_id: name.to_string() });
        }
        (kept, kept > 0)
    }

    /// The regrid's inserted slots in `lo..end`, then the imputation of `fill`, the unmasked
    /// interior runs. Returns the slots inserted, whether the regrid does not apply, and the
    /// slots imputed.
    fn regrid_and_impute(&self, values: &mut [f64], fill: &[(usize, usize)], (lo, end): (usize, usize), d: &mut Vec<Decision>) -> (usize, bool, usize) {
        let (res, name, grid) = (self.ctx.res, self.name, self.grid);
        let inserted: Vec<(usize, usize)> = runs_of(&self.from_row[lo..end], false).into_iter().map(|(s, l)| (s + lo, l)).collect();
        let inserted_count: usize = inserted.iter().map(|r| r.1).sum();
        if inserted_count > 0 {
            d.push(Decision::new(DecisionId::Regrid, name, inserted_count, res).with_ranges(ranges_of(&inserted, |k| grid[k])));
        }
        // An imputation that applies while the regrid does not (regrid proposed or declined)
        // fills only null rows: the other slots were never inserted. A proposed imputation still
        // covers every slot, so accepting it with the regrid fills them all.
        let regrid_unapplied = d.iter().any(|x| x.id == DecisionId::Regrid && !x.applied());
        let null_rows: Vec<(usize, usize)>;
        let filled: &[(usize, usize)] = if regrid_unapplied && consent(DecisionId::Impute, res) == Status::Applied {
            null_rows = fill.iter().flat_map(|&(s, l)| runs_of(&self.from_row[s..s + l], true).into_iter().map(move |(k, n)| (s + k, n))).collect();
            &null_rows
        } else {
            fill
        };
        let imputed: usize = filled.iter().map(|r| r.1).sum();
        if imputed > 0 {
            let mut dec = Decision::new(DecisionId::Impute, name, imputed, res).with_ranges(ranges_of(filled, |k| grid[k]));
            dec.method = Some(impute(&mut values[lo..end], lo, filled, self.ctx));
            d.push(dec);
        }
        (inserted_count, regrid_unapplied, imputed)
    }
}

pub fn clean(p: &Prepared, placed: Placed, ctx: &Ctx) -> Outcome {
    let res = ctx.res;
    let name = p.unique_id.as_str();
    let Placed { grid, mut values, from_row, .. } = placed;
    let mut out = Outcome {
        has_grid: true,
        grid_before: grid.len(),
        inserted_before: from_row.iter().filter(|r| !**r).count(),
        ..Default::default()
    };
    let g = OnGrid { name, grid: &grid, from_row: &from_row, observed: values.iter().map(|v| v.is_finite()).collect(), ctx };
    let (Some(first), Some(last)) = (g.observed.iter().position(|o| *o), g.observed.iter().rposition(|o| *o)) else {
        // Every observed value fell off the grid.
        out.blocks.push(Block::no_numeric_values(name));
        return out;
    };
    let mut d = Vec::new();
    if first > 0 {
        let rows = g.rows_in(0..first);
        d.push(Decision::new(DecisionId::TrimHead, name, rows.len(), res).with_stamps(rows));
    }
    let threshold = split_threshold(ctx);
    let runs: Vec<(usize, usize)> = missing_runs(&values[first..=last]).into_iter().map(|(s, l)| (s + first, l)).collect();
    let long: Vec<(usize, usize)> = runs.iter().copied().filter(|r| r.1 >= threshold).collect();
    let (lo, mask_long) = g.long_gaps(&long, (first, g.context_end(last)), &mut out, &mut d);
    let (kept_tail, tail_masked) = g.trailing(last, &mut out, &mut d);
    let end = last + 1 + kept_tail;

    // When the mask applies it covers every long run: a test per run, not a search of a list
    // (200,000 gaps made that quadratic).
    let masked = |r: &(usize, usize)| mask_long && r.1 >= threshold;
    let fill: Vec<(usize, usize)> = runs.iter().copied().filter(|r| r.0 >= lo && !masked(r)).collect();
    let (inserted_count, regrid_unapplied, imputed) = g.regrid_and_impute(&mut values, &fill, (lo, end), &mut d);

    // Every gap of the kept context, with the decision that handles it: masked long gaps are gaps
    // too, and the contract's recent-gap and missing-share rules count them. So is a masked
    // tail: the gap nearest the forecast origin (the contract calls it a trailing gap). Under
    // `structural_zero` the runs it fills (`fill`) are declared zeros, not missing data.
    let zeros = res.knobs.structural_zero;
    let mut gaps: Vec<((usize, usize), DecisionId)> = runs
        .iter()
        .filter(|r| r.0 >= lo && (masked(r) || !zeros))
        .map(|r| (*r, if masked(r) { DecisionId::MaskLongGap } else { DecisionId::Impute }))
        .collect();
    if tail_masked {
        gaps.push(((last + 1, kept_tail), DecisionId::MaskedTail));
    }
    // The series as sent, from a split on when one cut it: the deprecated rule's "series", with
    // the empty slots a grid-cap cut took off ahead of it when no split did.
    let (from, lead) = if lo > first { (lo, 0) } else { (0, p.empty_before) };
    let series = &g.observed[from..];
    // The zeros' slots, and those of them the regrid inserted (it takes part through the others).
    let (zero_slots, inserted_zeros) = if !zeros {
        (0, 0)
    } else {
        fill.iter().fold((0, 0), |(n, i), &(s, l)| (n + l, i + from_row[s..s + l].iter().filter(|r| !**r).count()))
    };
    let series_empty = (series.iter().filter(|o| !**o).count().saturating_add(lead) - zero_slots, series.len().saturating_add(lead));
    let core_end = if tail_masked { end } else { last + 1 };
    health_rules(&mut out, name, &gaps, lo..core_end, series_empty, inserted_count > inserted_zeros, ctx);
    flag_values(&mut out, &values[lo..end], &g.observed[lo..end], &grid[lo..end], ctx);

    out.masked_tail = kept_tail;
    // The report's figures count only what applies: a split or imputation proposed or declined
    // (which blocks the request) is not counted as done, as an unapplied regrid is not. The
    // context itself (`grid`, `values`) is what accepting every proposal would feed the model.
    let applied = |id: DecisionId| d.iter().any(|x| x.id == id && x.applied());
    let split = applied(DecisionId::Split);
    out.imputed = if applied(DecisionId::Impute) { imputed } else { 0 };
    // A repair that does not apply blocks the request, and it comes before the length limits in
    // pipeline order: its code decides (the limits would measure a grid the repair never made).
    out.blocks.extend(blocking::unapplied(&d, res.policy.masked_tail_max));
    // Without the split, the rows before it still count, as sent.
    let from = if split { lo } else { first };
    let rows = |range: std::ops::Range<usize>| from_row[range].iter().filter(|r| **r).count();
    out.fed_points = g.observed[from..end].iter().filter(|o| **o).count();
    out.output_points = rows(from..lo) + if regrid_unapplied { rows(lo..end) } else { end - lo };
    out.grid = grid[lo..end].to_vec();
    out.values = values[lo..end].to_vec();
    // The gap's length exempts the entity from the count of stamps, not consent: a split proposed
    // or declined exempts it too, as at validation (docs/decisions.md), and the grid it would
    // keep is what is measured.
    limits(&mut out, name, p.ts.len(), super::decisions::has_split(&d), ctx);
    if end > lo {
        (out.forecast_stamps, out.horizon_short) = horizon::horizon(&grid, end - 1, ctx);
    }
    out.decisions = d;
    out
}

/// Fills the runs `filled` (grid slots) of the kept context `kept`, which starts at slot `lo`,
/// within the bounds the knobs set; returns the method's name for the decision.
fn impute(kept: &mut [f64], lo: usize, filled: &[(usize, usize)], ctx: &Ctx) -> &'static str {
    let knobs = &ctx.res.knobs;
    // An inference from the data gives way to bounds the caller set below 0.
    let nonneg = knobs.nonnegative.holds(|| super::all_nonnegative(kept) && knobs.bounds.and_then(|b| b.upper).is_none_or(|u| u >= 0.0));
    let lower = knobs.bounds.and_then(|b| b.lower).into_iter().chain(nonneg.then_some(0.0)).fold(f64::NEG_INFINITY, f64::max);
    let upper = knobs.bounds.and_then(|b| b.upper).unwrap_or(f64::INFINITY);
    for &(start, len) in filled {
        let run = start - lo..start - lo + len;
        if knobs.structural_zero {
            kept[run.clone()].iter_mut().for_each(|v| *v = 0.0);
        } else {
            // Within the kept context only: a seasonal fill must not copy history a split dropped.
            fill::fill_run(kept, (run.start, len), knobs.impute, ctx.period);
        }
        kept[run].iter_mut().for_each(|v| *v = v.clamp(lower, upper.max(lower)));
    }
    if knobs.structural_zero {
        super::decisions::STRUCTURAL_ZERO_METHOD
    } else {
        knobs.impute.as_str()
    }
}

/// The runs `(start, length)` of `flags` equal to `want`.
pub(super) fn runs_of(flags: &[bool], want: bool) -> Vec<(usize, usize)> {
    let as_nan: Vec<f64> = flags.iter().map(|f| if *f == want { f64::NAN } else { 0.0 }).collect();
    missing_runs(&as_nan)
}

/// The policy's blocking rule: the health rules over the context `core` (a masked tail
/// included, as one of `gaps`), or the deprecated one over the series as sent (`series_empty`:
/// its empty slots, and all its slots).
fn health_rules(out: &mut Outcome, name: &str, gaps: &[((usize, usize), DecisionId)], core: std::ops::Range<usize>, series_empty: (usize, usize), inserted: bool, ctx: &Ctx) {
    let mut causes: Vec<DecisionId> = inserted.then_some(DecisionId::Regrid).into_iter().collect();
    for handling in [DecisionId::Impute, DecisionId::MaskLongGap, DecisionId::MaskedTail] {
        if gaps.iter().any(|(_, h)| *h == handling) {
            causes.push(handling);
        }
    }
    let too_high = |missing_share: f64, threshold: f64| {
        Block::new(name, Reason::MissingShareTooHigh { missing_share, threshold }).caused_by(&causes)
    };
    match ctx.res.policy.blocking {
        BlockingRule::GapsAndNulls { share: s } => {
            // "Gaps plus nulls of a series": every empty slot, trimmed ends and the tail included.
            let series_share = series_empty.0 as f64 / series_empty.1.max(1) as f64;
            if series_share >= s {
                out.blocks.push(too_high(series_share, s));
            }
        }
        BlockingRule::Health { recent_gap_periods, missing_share } => {
            let limit = recent_gap_periods * ctx.period as f64;
            // Recent: the gap's last slot lies within the last seasonal period of the context,
            // slots `[core.end - period, core.end)`.
            let recent = |r: &(usize, usize)| r.0 + r.1 - 1 + ctx.period.max(1) >= core.end;
            if let Some(&((_, len), cause)) = gaps.iter().rev().find(|(r, _)| r.1 as f64 >= limit && recent(r)) {
                out.blocks.push(
                    Block::new(name, Reason::GapNearOriginTooLong { gap_steps: len, threshold_steps: limit }).caused_by(&[cause]),
                );
            }
            let share = gaps.iter().map(|(r, _)| r.1).sum::<usize>() as f64 / core.len().max(1) as f64;
            if share >= missing_share {
                out.blocks.push(too_high(share, missing_share));
            }
        }
    }
}

/// Outliers and values outside `bounds`/`nonnegative` are flagged, never modified.
fn flag_values(out: &mut Outcome, values: &[f64], observed: &[bool], grid: &[i64], ctx: &Ctx) {
    let listed = |idx: &[usize]| -> Vec<String> { idx.iter().take(LISTED_MAX).map(|&i| format_utc(grid[i])).collect() };
    let outl = fill::outliers(values, observed, OUTLIER_Z, OUTLIER_MIN_OBSERVED);
    if !outl.is_empty() {
        out.issues.push(Issue::outliers_flagged(outl.len(), listed(&outl)));
    }
    let knobs = &ctx.res.knobs;
    let lower = knobs.bounds.and_then(|b| b.lower).unwrap_or(f64::NEG_INFINITY);
    let upper = knobs.bounds.and_then(|b| b.upper).unwrap_or(f64::INFINITY);
    let outside: Vec<usize> = (0..values.len()).filter(|&i| observed[i] && (values[i] < lower || values[i] > upper)).collect();
    if !outside.is_empty() {
        out.issues.push(Issue::values_out_of_bounds(outside.len(), listed(&outside)));
    }
    if knobs.nonnegative == Nonnegative::Always {
        let neg: Vec<usize> = (0..values.len()).filter(|&i| observed[i] && values[i] < 0.0).collect();
        if !neg.is_empty() {
            out.issues.push(Issue::negative_values(neg.len(), listed(&neg)));
        }
    }
}

/// Context length against the model, when one is named: `SERIES_TOO_LONG` measured on the
/// distinct stamps (unless the entity has a split, whatever its status) or on the cleaned grid,
/// and `SERIES_TOO_SHORT`.
/// Without a model (`/clean` without `model`) there is no context to measure against.
fn limits(out: &mut Outcome, name: &str, timestamps: usize, split: bool, ctx: &Ctx) {
    let Some(l) = ctx.limits else { return };
    let points = out.grid.len();
    if timestamps > l.max_context && !split {
        out.blocks.push(too_long(name, timestamps, Measured::Timestamps, l.max_context));
    } else if points > l.max_context {
        out.blocks.push(too_long(name, points, Measured::ModelInput, l.max_context));
    } else if points < l.min_context {
        out.blocks.push(too_short(name, points, l.min_context));
    }
}

pub(super) fn too_short(name: &str, points: usize, min: usize) -> Block {
    Block::new(name, Reason::TooShort { points, min_context: min })
}

pub(super) fn too_long(name: &str, points: usize, measured: Measured, max: usize) -> Block {
    Block::new(name, Reason::TooLong { points, measured, max_context: max })
}
