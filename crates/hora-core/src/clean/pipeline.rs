//! `run`: the pipeline in its documented order over every entity, then the report or the error.

use super::blocking::{self, Block};
use super::covariates::CovariateUse;
use super::decisions::Decision;
use super::entity::{self, Outcome};
use super::long_gap;
use super::notices::Warning;
use super::freq::{self, FreqChoice, FreqFailure};
use super::options::{Preset, Resolved};
use super::prepare::{prepare, Prepared};
use super::report::{self, ReportInput};
use super::stamps::{self, AsHistory, FreqSpec, Zone};
use super::covariates::{self, FutureRows};
use super::{grid, raw, CleanEntity, CleanRequest, Cleaned};
use crate::error::{ErrorCode, HoraError, Result};
use crate::par;
use crate::time::DayMonthOrder;

pub fn run(req: &CleanRequest) -> Result<Cleaned> {
    run_on(req, par::threads_for(req.series.row_count()))
}

/// `run` with per-entity work on `threads` threads; the outcome is the same for any count.
fn run_on(req: &CleanRequest, threads: usize) -> Result<Cleaned> {
    let res = req.options.resolve()?;
    if res.preset == Preset::Raw {
        return raw::run(req, &res);
    }
    let (zone, ds_format) = stamps::reading(req.options)?;
    covariates::validate_future(req)?;
    let table = req.series;
    if table.entity_count() == 0 {
        return Err(HoraError::new(ErrorCode::SeriesEmpty, "series has no rows"));
    }
    let prepared = prepare_readable(req, &zone, ds_format, &res, threads)?;
    let mut st = State::new(&res, &zone, &prepared, table.row_count());
    let future = read_future_rows(req, &zone, ds_format, &prepared, &mut st)?;
    // An entity with no numeric y is blocked (SERIES_EMPTY) where it stands among the others, by
    // its own cleaning below, so the report lists every blocked entity and the first in the order
    // sent decides the code. With nothing but such entities there is no frequency to find.
    if prepared.iter().all(|p| !p.has_values()) {
        st.blocks.extend(prepared.iter().flat_map(empty_entity_blocks));
        st.stamp_decisions();
        return Err(st.error(None, &[]));
    }
    // Each entity's grid steps in its own zone (the request's, or its fixed offset).
    let zones: Vec<Zone> = prepared.iter().map(|p| zone.of_entity(&p.parsed)).collect();
    let choice = freq::resolve_over_valued(req.freq, &prepared, &zones, &res).map_err(|e| st.attach_freq(e))?;
    let ctx = entity_ctx(req, &res, &choice.spec, &zone);
    let cut = grid::fit_grid(&prepared, &zones, &ctx)?;
    let kept = |e: usize| cut[e].as_ref().map_or(&prepared[e], |c| &c.kept);
    // Each entity's grid, cleaning and covariates on its own (in parallel for large requests),
    // then merged in entity order exactly as one loop would.
    let per_entity = par::map_indexed(prepared.len(), threads, |e| clean_entity(req, kept(e), cut[e].as_ref(), future[e].as_ref(), &ctx, &zones[e]));
    let (entities, outcomes) = merge(req, &prepared, per_entity, &mut st)?;
    if !st.blocks.is_empty() {
        return Err(st.error(Some(&choice), &outcomes));
    }
    let input = st.take_input(Some(&choice), &outcomes);
    Ok(Cleaned {
        freq: choice.echo.clone(),
        grid: choice.spec.freq,
        inferred_freq: choice.inferred.clone(),
        data_quality: report::data_quality(&input),
        report: Some(report::build(input)),
        warnings: st.warnings,
        input_data_points: outcomes.iter().map(|o| o.fed_points as u64).sum(),
        entities,
    })
}

/// The blocking entries of an entity with no numeric y, as it is listed among others (`merge`):
/// its stamp repairs that do not apply, then the empty series.
fn empty_entity_blocks(p: &Prepared) -> Vec<Block> {
    let mut blocks = blocking::unapplied(&p.decisions, None);
    blocks.push(Block::no_numeric_values(&p.unique_id));
    blocks
}

/// Every entity prepared, or the error of the first whose stamps could not be read.
fn prepare_readable(req: &CleanRequest, zone: &Zone, ds_format: Option<DayMonthOrder>, res: &Resolved, threads: usize) -> Result<Vec<Prepared>> {
    let each = prepare_each(req, zone, ds_format, res, threads);
    let failed: Vec<(usize, &HoraError)> = each.iter().enumerate().filter_map(|(e, r)| Some((e, r.as_ref().err()?))).collect();
    if let Some(&(_, first)) = failed.first() {
        let unreadable = failed.iter().filter(|(_, f)| f.code == first.code).map(|&(e, _)| e).collect();
        let first = first.clone();
        return Err(unread_stamps_error(req, res, zone, each, unreadable, first));
    }
    Ok(each.into_iter().flatten().collect())
}

/// Future rows, read as their entity's history was (zone, format, day/month order); what they
/// hold for the report (naive and converted stamps) goes into `st`. Every history here was read,
/// so future rows in its `D/M/YYYY` format take the order it proved: none is left unproven.
fn read_future_rows(req: &CleanRequest, zone: &Zone, ds_format: Option<DayMonthOrder>, prepared: &[Prepared], st: &mut State) -> Result<Vec<Option<FutureRows>>> {
    let history = |e: usize| AsHistory::of(req.series, e, prepared[e].parsed.format, ds_format);
    let future = covariates::read_future(req, zone, history, |e| &prepared[e].parsed.repeated_walls)?;
    st.future_naive = future.iter().map(|f| f.as_ref().map_or(0, |f| f.naive)).collect();
    st.future_converted = future.iter().flatten().any(|f| f.converted);
    Ok(future)
}

/// The entities' work merged in entity order: decisions, blocks and warnings into `st`, each
/// entity's model input out, with the outcomes the report counts from.
fn merge(req: &CleanRequest, prepared: &[Prepared], per_entity: Vec<EntityWork>, st: &mut State) -> Result<(Vec<CleanEntity>, Vec<Outcome>)> {
    let mut outcomes: Vec<Outcome> = Vec::with_capacity(prepared.len());
    let mut entities = Vec::with_capacity(prepared.len());
    for (e, (p, done)) in prepared.iter().zip(per_entity).enumerate() {
        let (pre, mut o, columns, exog) = done;
        if o.horizon_short {
            return Err(grid::horizon_past_calendar(&p.unique_id));
        }
        // Timestamp repairs that were not applied block before anything the grid stages found.
        st.blocks.extend(blocking::unapplied(&pre, None));
        st.decisions.extend(pre);
        st.decisions.append(&mut o.decisions);
        st.decisions.extend(exog);
        st.blocks.extend(o.blocks.iter().cloned());
        st.warnings.extend(o.warnings.iter().cloned());
        let model_input = report::model_input(&p.unique_id, &o, columns);
        // Moved, not copied: the report reads only the outcome's counts (entities x h stamps
        // twice held 3.3 GB for 100,000 entities at h = 2048).
        entities.push(CleanEntity {
            unique_id: p.unique_id.clone(),
            values: std::mem::take(&mut o.values),
            stamps: std::mem::take(&mut o.grid),
            forecast_stamps: std::mem::take(&mut o.forecast_stamps),
            model_input,
            // Every row sent: a duplicate dedupe dropped, or a stamp off the grid, counts too.
            history_nonnegative: super::all_nonnegative(req.series.entity_y(e)),
        });
        outcomes.push(o);
    }
    Ok((entities, outcomes))
}

/// The first entity whose stamps could not be read decides the error. AMBIGUOUS_DATE_FORMAT is a
/// cleaning-step data error, so it carries the report (contract: errors of the cleaning group
/// include `details.cleaning_report`), listing the entities whose stamps could be read and
/// blocking every entity whose could not (`unproven`; future rows are held to their history's
/// format and order, so they add none); any other error goes as it is.
fn unread_stamps_error(req: &CleanRequest, res: &Resolved, zone: &Zone, each: Vec<Result<Prepared>>, unproven: Vec<usize>, first: HoraError) -> HoraError {
    if first.code != ErrorCode::AmbiguousDateFormat {
        return first;
    }
    let read: Vec<Prepared> = each.into_iter().flatten().collect();
    // The report lists the entities that could be read, and counts their rows.
    let mut st = State::new(res, zone, &read, read.iter().map(|p| p.input_rows).sum());
    st.blocks.extend(unproven.into_iter().map(|e| Block::ambiguous_date_format(&req.series.entities[e])));
    st.stamp_decisions();
    st.attach(first, None, &[])
}

/// One entity's share of the run, merged in entity order: its stamps' decisions (and a grid-cap
/// cut's), its outcome, its covariate columns and their decisions.
type EntityWork = (Vec<Decision>, Outcome, Option<Vec<CovariateUse>>, Vec<Decision>);

/// Places entity `p` on the grid in its own `zone`, cleans it, completes a grid-cap `cut` and
/// assesses its covariates. With no data to place (its stamps neither fail the grid nor size it),
/// or too far off the grid, it is blocked in its place with no grid, so the entities after it
/// are cleaned and listed.
fn clean_entity(req: &CleanRequest, p: &Prepared, cut: Option<&long_gap::Cut>, future: Option<&FutureRows>, ctx: &entity::Ctx, zone: &Zone) -> EntityWork {
    let list_forecast_stamps = req.purpose.lists_forecast_stamps(future.is_some());
    let ctx = entity::Ctx { zone, list_forecast_stamps, ..*ctx };
    let placed = if p.has_values() {
        grid::place(p, ctx.freq, ctx.zone).map_err(|share| Outcome::off_grid(&p.unique_id, share))
    } else {
        Err(Outcome::empty(&p.unique_id))
    };
    let placed = match placed {
        Ok(placed) => placed,
        Err(o) => {
            let (columns, exog) = covariates::assess(req, p, &o, &ctx, future);
            return (p.decisions.clone(), o, columns, exog);
        }
    };
    let mut pre: Vec<Decision> = p.decisions.clone();
    pre.extend(grid::off_grid_decision(p, &placed, ctx.res));
    let mut o = entity::clean(p, placed, &ctx);
    if let Some(c) = cut {
        c.complete(&mut o, &ctx);
    }
    let (columns, exog) = covariates::assess(req, p, &o, &ctx, future);
    o.warnings.extend(covariates::unused_future_rows(&p.unique_id, &o.forecast_stamps, future));
    if !req.purpose.keeps_forecast_stamps() {
        o.forecast_stamps = Vec::new();
    }
    (pre, o, columns, exog)
}

/// Each entity prepared: stamps parsed (or taken as validation read them), sorted, de-duplicated.
fn prepare_each(req: &CleanRequest, zone: &Zone, ds_format: Option<DayMonthOrder>, res: &Resolved, threads: usize) -> Vec<Result<Prepared>> {
    let table = req.series;
    let read = |e: usize| req.stamps.and_then(|s| s.get(e));
    par::map_indexed(table.entity_count(), threads, |e| prepare(table, e, zone, ds_format, res, read(e)))
}

/// Every entity prepared, or the first entity's error.
pub(super) fn prepare_all(req: &CleanRequest, zone: &Zone, ds_format: Option<DayMonthOrder>, res: &Resolved, threads: usize) -> Result<Vec<Prepared>> {
    prepare_each(req, zone, ds_format, res, threads).into_iter().collect()
}

/// The context every entity is cleaned in; the seasonal period is the knob's or the frequency's.
pub(super) fn entity_ctx<'a>(req: &CleanRequest, res: &'a Resolved, freq: &'a FreqSpec, zone: &'a Zone) -> entity::Ctx<'a> {
    let period = res.knobs.seasonal_period.unwrap_or_else(|| freq::default_period(freq));
    entity::Ctx { freq, zone, res, limits: req.model_limits, h: req.h, period, list_forecast_stamps: req.purpose.lists_forecast_stamps(false) }
}

/// What has been decided so far; turns into the report or into the error that carries it.
struct State<'a> {
    res: &'a Resolved,
    zone: &'a Zone,
    prepared: &'a [Prepared],
    input_points: usize,
    warnings: Vec<Warning>,
    report_warnings: Vec<Warning>,
    blocks: Vec<Block>,
    decisions: Vec<Decision>,
    /// Naive future stamps per entity, once the future rows are read.
    future_naive: Vec<usize>,
    /// Some future stamp was converted to UTC.
    future_converted: bool,
}

impl<'a> State<'a> {
    fn new(res: &'a Resolved, zone: &'a Zone, prepared: &'a [Prepared], input_points: usize) -> Self {
        let warnings = res.policy.warnings();
        State {
            res,
            zone,
            prepared,
            input_points,
            warnings,
            report_warnings: res.unmatched.clone(),
            blocks: Vec::new(),
            decisions: Vec::new(),
            future_naive: Vec::new(),
            future_converted: false,
        }
    }

    /// What the report is built from; the blocks and decisions are moved into it, since the
    /// report (or the error carrying it) ends the run.
    fn take_input<'b>(&'b mut self, freq: Option<&'b FreqChoice>, outcomes: &'b [Outcome]) -> ReportInput<'b> {
        ReportInput {
            res: self.res,
            zone: self.zone,
            prepared: self.prepared,
            freq,
            outcomes,
            warnings: self.warnings.iter().chain(&self.report_warnings).cloned().collect(),
            blocks: std::mem::take(&mut self.blocks),
            decisions: std::mem::take(&mut self.decisions),
            input_points: self.input_points,
            future_naive: &self.future_naive,
            future_converted: self.future_converted,
        }
    }

    fn attach(&mut self, err: HoraError, freq: Option<&FreqChoice>, outcomes: &[Outcome]) -> HoraError {
        HoraError { cleaning_report: Some(std::sync::Arc::new(report::build(self.take_input(freq, outcomes)))), ..err }
    }

    /// A frequency the request cannot resolve, which stops every entity before any is cleaned:
    /// the entities it stops are added to `blocking`, and the entities with no numeric y (which
    /// took no part in the frequency) are listed in their place as among others (their stamp
    /// repairs that do not apply, then `SERIES_EMPTY`); when one of them was sent first it decides
    /// the code.
    fn attach_freq(&mut self, failure: FreqFailure) -> HoraError {
        let FreqFailure { error: err, blocks } = failure;
        self.blocks.extend(blocks);
        self.stamp_decisions();
        self.blocks.extend(self.prepared.iter().filter(|p| !p.has_values()).flat_map(empty_entity_blocks));
        // Entities in the order sent; each entity's entries keep their order (a stable sort).
        let order: std::collections::HashMap<&str, usize> = self.prepared.iter().enumerate().map(|(e, p)| (p.unique_id.as_str(), e)).collect();
        self.blocks.sort_by_key(|b| order.get(b.unique_id.as_str()).copied().unwrap_or(usize::MAX));
        // The entity sent first, not the first listed: the failure need not list every entity.
        if self.prepared.first().is_some_and(|p| !p.has_values()) {
            return self.error(None, &[]);
        }
        self.attach(err, None, &[])
    }

    /// The stamps' own decisions (`ds.sort`, `ds.dedupe`), made before any frequency, for a report
    /// that ends the run before the entities are cleaned: a dedupe can be what left an entity with
    /// no numeric `y`.
    fn stamp_decisions(&mut self) {
        self.decisions.extend(self.prepared.iter().flat_map(|p| p.decisions.iter().cloned()));
    }

    /// The first blocking entry decides the code, with the report attached.
    fn error(&mut self, freq: Option<&FreqChoice>, outcomes: &[Outcome]) -> HoraError {
        let mut err = blocking::block_error(&self.blocks);
        if err.code == ErrorCode::FreqInferenceFailed {
            if let Some(p) = self.prepared.iter().find(|p| p.unique_id == self.blocks[0].unique_id) {
                err = freq::offsets_hint(err, p, self.zone.from_option);
            }
        }
        self.attach(err, freq, outcomes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clean::{check_stamps, read_stamps, CleanOptions, Purpose};
    use crate::ingest::parse_body;
    use serde_json::json;

    /// 40 entities x 800 hourly rows, shuffled, with gaps, duplicates and nulls.
    fn messy_body() -> String {
        let mut rows = Vec::new();
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for e in 0..40 {
            for k in 0..800i64 {
                if next() % 30 == 0 {
                    continue;
                }
                let ds = chrono::DateTime::from_timestamp(1_767_225_600 + k * 3600, 0).unwrap().format("%Y-%m-%dT%H:%M:%SZ");
                let y = if next() % 50 == 0 { "null".to_string() } else { format!("{}", (k % 24) as f64 + (next() % 100) as f64 / 10.0) };
                rows.push(format!(r#"{{"unique_id":"e{e}","ds":"{ds}","y":{y}}}"#));
                if next() % 100 == 0 {
                    rows.push(format!(r#"{{"unique_id":"e{e}","ds":"{ds}","y":1}}"#));
                }
            }
        }
        for i in (1..rows.len()).rev() {
            rows.swap(i, next() % (i + 1));
        }
        format!(r#"{{"series":[{}]}}"#, rows.join(","))
    }

    #[test]
    fn cleaning_on_several_threads_gives_exactly_the_one_thread_result() {
        let body = parse_body(messy_body().as_bytes()).unwrap();
        for preset in ["default", "strict"] {
            let options: CleanOptions = serde_json::from_value(json!({"preset": preset})).unwrap();
            let req = CleanRequest { series: &body.series, future: None, freq: Some("h"), h: 24, options: &options, model_limits: None, stamps: None, purpose: Purpose::Forecast };
            let one = format!("{:?}", run_on(&req, 1));
            assert_eq!(format!("{:?}", run_on(&req, 3)), one, "{preset}");
            assert!(one.starts_with(if preset == "default" { "Ok" } else { "Err" }), "{preset}: {}", &one[..200]);
        }
    }

    #[test]
    fn stamps_read_at_validation_give_exactly_the_cleaning_that_parses_them_itself() {
        let body = parse_body(messy_body().as_bytes()).unwrap();
        for options in [json!({}), json!({"timezone": "Europe/Berlin"}), json!({"preset": "strict"})] {
            let options: CleanOptions = serde_json::from_value(options).unwrap();
            let req = CleanRequest { series: &body.series, future: None, freq: None, h: 24, options: &options, model_limits: None, stamps: None, purpose: Purpose::Forecast };
            let stamps = read_stamps(&req).unwrap().expect("every stamp is readable");
            let reused = CleanRequest { stamps: Some(&stamps), ..req };
            assert_eq!(format!("{:?}", run(&reused)), format!("{:?}", run(&req)));
        }
    }

    #[test]
    fn an_unreadable_stamp_is_a_validation_error_at_read_stamps_and_raw_reads_nothing() {
        let text = messy_body().replacen(r#""ds":"2026-01-01T05:00:00Z""#, r#""ds":"yesterday""#, 1);
        let body = parse_body(text.as_bytes()).unwrap();
        let options: CleanOptions = serde_json::from_value(json!({})).unwrap();
        let req = CleanRequest { series: &body.series, future: None, freq: None, h: 0, options: &options, model_limits: None, stamps: None, purpose: Purpose::Forecast };
        let err = read_stamps(&req).unwrap_err();
        assert_eq!(err.code, ErrorCode::ValidationError);
        assert!(err.details["errors"][0]["field"].as_str().unwrap().ends_with("].ds"), "{:?}", err.details);
        let raw: CleanOptions = serde_json::from_value(json!({"preset": "raw"})).unwrap();
        assert!(read_stamps(&CleanRequest { options: &raw, ..req }).unwrap().is_none());
    }

    #[test]
    fn checking_the_stamps_of_a_body_over_the_cap_gives_the_verdict_of_reading_them() {
        // The history proves day/month order; its future row is unreadable only in that order.
        let body = |future: &str| {
            let text = format!(
                r#"{{"h":1,"series":[{{"unique_id":"a","ds":"13/01/2024","y":1,"t":1}},{{"unique_id":"a","ds":"14/01/2024","y":2,"t":1}}],"future_covariates":[{{"unique_id":"a","ds":"{future}","t":1}}]}}"#
            );
            parse_body(text.as_bytes()).unwrap()
        };
        let options: CleanOptions = serde_json::from_value(json!({})).unwrap();
        for (future, readable) in [("15/01/2024", true), ("01/13/2024", false)] {
            let b = body(future);
            let req = CleanRequest { series: &b.series, future: b.future.as_ref(), freq: None, h: 1, options: &options, model_limits: None, stamps: None, purpose: Purpose::Forecast };
            let read = read_stamps(&req).map(|_| ()).map_err(|e| e.code);
            assert_eq!(read.is_ok(), readable, "{future}: {read:?}");
            assert_eq!(check_stamps(&req).map_err(|e| e.code), read, "{future}");
        }
    }
}
