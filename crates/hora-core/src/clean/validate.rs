//! Checks of the validation order that read the rows before the cleaning runs: the stamps at
//! step 3 ([`read_stamps`]) and the pre-cleaning length at step 6 ([`check_length`]).

use super::blocking::{Block, Measured};
use super::options::{Preset, Resolved};
use super::blocking::unless_blocked;
use super::grid::fit_grid;
use super::pipeline::{entity_ctx, prepare_all};
use super::prepare::Prepared;
use super::stamps::{self, AsHistory, EntityStamps, Zone};
use super::{covariates, entity, freq, grid, long_gap, raw, CleanRequest};
use crate::error::{ErrorCode, HoraError, Result, MAX_LISTED_ERRORS};
use crate::time::DsFormat;
use crate::par;

/// Validation order step 3 for `ds` (and `future_covariates[].ds`): every entity's stamps read in
/// the request's zone and day/month order. An unreadable stamp is the `VALIDATION_ERROR` it is,
/// before the later steps; the stamps read are returned for the cleaning step to reuse. `None`
/// when there is nothing to keep: under `raw`, which reads its history its own way (its
/// violations are `RAW_INPUT_INVALID`), or when an entity's day/month order is unproven, which the
/// cleaning step answers with `AMBIGUOUS_DATE_FORMAT` (a data code, not a validation one). Future
/// stamps are read in both cases, as far as no unproven order is needed to read them.
pub fn read_stamps(req: &CleanRequest) -> Result<Option<Vec<EntityStamps>>> {
    read_with(req, |s| s, |s| s.format)
}

/// [`read_stamps`] keeping nothing per entity but its day/month order (which reads its future
/// rows): for a body over the row cap, refused at step 4 once step 3 has found no unreadable
/// stamp. Four million one-row entities would otherwise hold their stamps until the refusal.
pub fn check_stamps(req: &CleanRequest) -> Result<()> {
    read_with(req, |s| s.format, |format| *format).map(|_| ())
}

/// Reads every entity's stamps, keeps `keep` of each, and reads the future stamps as each
/// entity's history was written (`format`).
fn read_with<T: Send>(
    req: &CleanRequest,
    keep: impl Fn(EntityStamps) -> T + Sync,
    format: impl Fn(&T) -> DsFormat,
) -> Result<Option<Vec<T>>> {
    // Options, zone and format are judged by their own checks (an unknown preset at step 5 comes
    // after this one, so it does not stop the reading).
    let Ok((zone, ds_format)) = stamps::reading(req.options) else { return Ok(None) };
    if req.options.resolve().is_ok_and(|res| res.preset == Preset::Raw) {
        // Raw history carries its offsets and proves no day/month order; future rows are read as raw reads them.
        covariates::check_future_stamps(req, &zone, |e| AsHistory::of(req.series, e, DsFormat::Iso8601, ds_format))?;
        return Ok(None);
    }
    let table = req.series;
    let read = par::map_indexed(table.entity_count(), par::threads_for(table.row_count()), |e| stamps::parse_entity(table, e, &zone, ds_format).map(&keep));
    // Every unreadable stamp in one list (the contract's at most 10): the history's entity by
    // entity, then the future rows' (read in the order their entity's history proved, if it did).
    let mut unreadable: Vec<_> =
        read.iter().filter_map(|r| r.as_ref().err()).filter(|e| e.code == ErrorCode::ValidationError).flat_map(HoraError::listed_fields).take(MAX_LISTED_ERRORS).collect();
    if unreadable.len() < MAX_LISTED_ERRORS {
        let history = |e: usize| match &read[e] {
            Ok(kept) => AsHistory::of(table, e, format(kept), ds_format),
            Err(_) => AsHistory { order: ds_format, written: None },
        };
        unreadable.extend(covariates::unreadable_future_stamps(req, &zone, history));
    }
    if !unreadable.is_empty() {
        return Err(HoraError::fields(unreadable));
    }
    Ok(read.into_iter().collect::<Result<Vec<T>>>().ok())
}

/// Validation order step 6, before the quota and the cleaning: `SERIES_TOO_LONG` when an entity
/// has more distinct timestamps (rows under `raw`) than the maximum context, unless it has a gap
/// long enough for the cleaning's long-gap split to keep only its latest segment (applied,
/// proposed for the caller to accept, or declined: the gap's length decides, not consent). Only
/// the entities over the limit are cleaned to decide, and any other finding is left to the
/// cleaning step; an entity that cannot be cleaned (its stamps give no frequency, say) is not
/// exempt.
pub fn check_length(req: &CleanRequest) -> Result<()> {
    // Options, zone and format were judged at earlier steps; only the length verdict is given here.
    let Some(limits) = req.model_limits else { return Ok(()) };
    let Ok(res) = req.options.resolve() else { return Ok(()) };
    if res.preset == Preset::Raw {
        return raw::check_rows(req.series, limits);
    }
    // Distinct stamps never outnumber rows: with no entity of more rows than the limit, nothing
    // needs preparing here (the cleaning prepares every entity again anyway).
    let table = req.series;
    if (0..table.entity_count()).all(|e| table.entity_range(e).len() <= limits.max_context) {
        return Ok(());
    }
    let Ok((zone, ds_format)) = stamps::reading(req.options) else { return Ok(()) };
    let Ok(prepared) = prepare_all(req, &zone, ds_format, &res, par::threads_for(req.series.row_count())) else { return Ok(()) };
    let long: Vec<usize> = (0..prepared.len()).filter(|&e| prepared[e].ts.len() > limits.max_context).collect();
    if long.is_empty() {
        return Ok(());
    }
    let zones: Vec<Zone> = prepared.iter().map(|p| zone.of_entity(&p.parsed)).collect();
    let measured = measured_lengths(req, &res, &prepared, &zones, &zone, &long, limits.max_context);
    let blocks: Vec<Block> = long
        .iter()
        .zip(measured)
        .filter_map(|(&e, n)| Some(entity::too_long(&prepared[e].unique_id, n?, Measured::Timestamps, limits.max_context)))
        .collect();
    unless_blocked(&blocks)
}

/// Per long entity: the distinct stamps the cleaning would measure, or None when its long-gap
/// split cuts it (the cleaning step then measures the grid it keeps). Without a frequency, or
/// with a grid too large to build (not built here), an entity is measured as it is.
fn measured_lengths(req: &CleanRequest, res: &Resolved, prepared: &[Prepared], zones: &[Zone], zone: &Zone, long: &[usize], max_context: usize) -> Vec<Option<usize>> {
    let as_sent = || long.iter().map(|&e| Some(prepared[e].ts.len())).collect();
    // As the cleaning infers it: entities with no numeric y take no part (docs/cleaning-policy.md, step 4).
    let Ok(choice) = freq::resolve_over_valued(req.freq, prepared, zones, res) else { return as_sent() };
    let ctx = entity_ctx(req, res, &choice.spec, zone);
    let Ok(cut) = fit_grid(prepared, zones, &ctx) else { return as_sent() };
    long.iter()
        .map(|&e| {
            // Only whether a split is found is read here: no forecast stamps.
            let ctx = entity::Ctx { zone: &zones[e], list_forecast_stamps: false, ..ctx };
            measured_length(&prepared[e], cut[e].as_ref(), &ctx, max_context)
        })
        .collect()
}

/// [`measured_lengths`] for one long entity `p`, given the grid-cap `cut` made of it, if any.
fn measured_length(p: &Prepared, cut: Option<&long_gap::Cut>, ctx: &entity::Ctx, max_context: usize) -> Option<usize> {
    let split_by_cleaning = |p: &Prepared| grid::place(p, ctx.freq, ctx.zone).is_ok_and(|placed| entity::clean(p, placed, ctx).split_found());
    match cut {
        // Cut ahead of the grid at a long gap with values before it: the gap's length exempts the
        // entity whatever the split's status, as for the step-8 split (docs/decisions.md), and
        // what is kept is measured.
        Some(c) if c.splits() => {
            (c.kept.ts.len() > max_context && !split_by_cleaning(&c.kept)).then_some(c.kept.ts.len())
        }
        // No cut, or one with only null rows before the gap (no split): the entity is measured as
        // sent, unless its cleaning splits it (a cut entity's whole grid is never built).
        _ => (!split_by_cleaning(cut.map_or(p, |c| &c.kept))).then_some(p.ts.len()),
    }
}
