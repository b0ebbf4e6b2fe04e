//! The `raw` preset: no cleaning, only the contract's structural check before the model.

use chrono::DateTime;
use serde::Serialize;
use serde_json::Value;

use super::entity::Outcome;
use super::options::{ModelLimits, Resolved};
use super::report::{self, DataQuality};
use super::covariates::FutureRows;
use super::notices::Warning;
use super::stamps::{self, AsHistory, EntityStamps, FreqSpec};
use super::blocking::{self, Block, Measured};
use super::{covariates, entity, grid, horizon, prepare::Prepared, CleanEntity, CleanRequest, Cleaned};
use crate::error::{ErrorCode, HoraError, Result};
use crate::ingest::RowTable;
use crate::time::{self, DsFormat};

const MAX_VIOLATIONS: usize = 20;
const HINT: &str = "The raw preset needs a fixed freq, every ds as YYYY-MM-DDTHH:MM[:SS[.ffffff]] with Z or \u{b1}HH:MM, \
rows of each entity strictly increasing and exactly one freq step apart, and every y a finite number. \
Use the default preset to have the service repair the data.";

/// `SERIES_TOO_LONG` for an entity with more rows than the maximum context (the raw preset
/// measures rows: nothing is merged or dropped), with the details the cleaned path gives.
pub fn check_rows(table: &RowTable, l: ModelLimits) -> Result<()> {
    let blocks: Vec<Block> = (0..table.entity_count())
        .map(|e| (e, table.entity_rows(e).len()))
        .filter(|&(_, n)| n > l.max_context)
        .map(|(e, n)| entity::too_long(&table.entities[e], n, Measured::Rows, l.max_context))
        .collect();
    blocking::unless_blocked(&blocks)
}

/// One `details.violations[]` entry of `RAW_INPUT_INVALID`: the row (`index` in the body's
/// `series`) or, for the frequency, none.
#[derive(Debug, Serialize)]
struct Violation {
    index: Option<u32>,
    reason: Violated,
    unique_id: Option<String>,
}

/// The contract's `reason` values of the raw preset's structural check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Violated {
    FreqInvalid,
    CalendarFreqUnsupported,
    DsFormat,
    DsDuplicate,
    DsNotIncreasing,
    StepMismatch,
    NotObserved,
}

impl Violation {
    fn new(unique_id: Option<&str>, index: Option<u32>, reason: Violated) -> Violation {
        Violation { index, reason, unique_id: unique_id.map(str::to_string) }
    }
}

/// `RAW_INPUT_INVALID` with its violations and the hint.
fn invalid(violations: Vec<Violation>) -> HoraError {
    HoraError::new(ErrorCode::RawInputInvalid, "the data does not pass the raw preset's structural check")
        .with("violations", serde_json::to_value(violations).unwrap_or(Value::Null))
        .with("hint", HINT)
}

pub fn run(req: &CleanRequest, res: &Resolved) -> Result<Cleaned> {
    let Some(freq_str) = req.freq else {
        return Err(HoraError::field("freq", "is required with the raw preset"));
    };
    let table = req.series;
    // Rows per entity against the maximum context, before anything else runs.
    if let Some(l) = req.model_limits {
        check_rows(table, l)?;
    }
    let spec = fixed_freq(freq_str)?;
    let parsed = check_structure(table, spec.nominal_step().unwrap_or(1))?;
    check_short(table, &parsed, req.model_limits)?;
    covariates::validate_future(req)?;
    // The raw preset's history stamps carry their offsets; a future stamp is read as under the
    // other presets: naive in `options.timezone` (else UTC), and in the history's format, ISO
    // 8601 (the only one raw reads).
    let (future_zone, ds_format) = stamps::reading(req.options)?;
    // A raw history carries offsets: it has no repeated local time to carry over.
    let future = covariates::read_future(req, &future_zone, |e| AsHistory::of(req.series, e, DsFormat::Iso8601, ds_format), |_| &[])?;
    // Raw steps are exact durations on UTC instants (docs/time.md), whatever the zone option.
    let zone = stamps::parse_zone(None)?;
    let ctx = entity::Ctx { freq: &spec, zone: &zone, res, limits: req.model_limits, h: req.h, period: 2, list_forecast_stamps: false }; // listing: per entity
    let mut entities = Vec::with_capacity(parsed.len());
    let mut warnings = res.policy.warnings();
    let mut points = 0u64;
    for (e, ts) in parsed.into_iter().enumerate() {
        points += ts.len() as u64;
        let (entity, unused) = entity_as_sent(req, e, ts, &ctx, future[e].as_ref())?;
        entities.push(entity);
        warnings.extend(unused);
    }
    Ok(Cleaned {
        freq: freq_str.to_string(),
        grid: spec.freq,
        inferred_freq: None,
        entities,
        report: None,
        data_quality: DataQuality::raw(),
        warnings,
        input_data_points: points,
    })
}

/// The raw preset's frequency: a fixed step, else `RAW_INPUT_INVALID` naming why.
fn fixed_freq(freq: &str) -> Result<FreqSpec> {
    let reason = match stamps::parse_freq(freq, false) {
        Ok(s) if s.is_fixed() => return Ok(s),
        Ok(_) => Violated::CalendarFreqUnsupported,
        Err(_) if is_calendar_token(freq) => Violated::CalendarFreqUnsupported,
        Err(_) => Violated::FreqInvalid,
    };
    Err(invalid(vec![Violation::new(None, None, reason)]))
}

/// Every entity's stamps as UTC instants when each row passes the structural check, else
/// `RAW_INPUT_INVALID` with the first [`MAX_VIOLATIONS`] violations in row order.
fn check_structure(table: &RowTable, step: i64) -> Result<Vec<Vec<i64>>> {
    let mut violations = Vec::new();
    let mut parsed = Vec::with_capacity(table.entity_count());
    for e in 0..table.entity_count() {
        let u = Some(table.entities[e].as_str());
        let mut ts = Vec::with_capacity(table.entity_range(e).len());
        // Rows since the last stamp that parsed: a row after an unreadable one is judged against
        // the row before that, so many steps on, not flagged for the neighbour's fault.
        let mut steps_since = 1;
        // An entity's rows come in body order, so its first violations are the only ones of it
        // that can be among the request's first; the entities interleave in the body.
        let mut own = 0;
        for ((row, ds), y) in table.entity_ds(e).zip(table.entity_y(e)) {
            if own >= MAX_VIOLATIONS {
                break;
            }
            let violation = stamp_violation(&mut ts, ds, step, steps_since);
            steps_since = if violation == Some(Violated::DsFormat) { steps_since + 1 } else { 1 };
            let found = violation.into_iter().chain((!y.is_finite()).then_some(Violated::NotObserved));
            for reason in found {
                violations.push(Violation::new(u, Some(row), reason));
                own += 1;
            }
        }
        parsed.push(ts);
    }
    if violations.is_empty() {
        return Ok(parsed);
    }
    // Stable: a row's stamp violation stays before its value's.
    violations.sort_by_key(|v| v.index);
    violations.truncate(MAX_VIOLATIONS);
    Err(invalid(violations))
}

/// What is wrong with the stamp `ds` that follows `ts` by `steps` rows, which it joins when it
/// parses.
fn stamp_violation(ts: &mut Vec<i64>, ds: &str, step: i64, steps: i64) -> Option<Violated> {
    let Some(t) = strict_instant(ds) else {
        return Some(Violated::DsFormat);
    };
    let reason = match ts.last() {
        Some(&prev) if t == prev => Some(Violated::DsDuplicate),
        Some(&prev) if t < prev => Some(Violated::DsNotIncreasing),
        Some(&prev) if Some(t - prev) != step.checked_mul(steps) => Some(Violated::StepMismatch),
        _ => None,
    };
    ts.push(t);
    reason
}

/// Every short entity, shortest first, as the other presets list them (docs/decisions.md).
fn check_short(table: &RowTable, parsed: &[Vec<i64>], limits: Option<ModelLimits>) -> Result<()> {
    let min = limits.map_or(0, |l| l.min_context);
    let short: Vec<Block> = (0..table.entity_count())
        .filter(|&e| parsed[e].len() < min)
        .map(|e| entity::too_short(&table.entities[e], parsed[e].len(), min))
        .collect();
    blocking::unless_blocked(&short)
}

/// Entity `e` as sent: its rows are one step apart (checked), so the grid is its stamps; with
/// the warning about its future rows that fall outside the horizon, if any.
fn entity_as_sent(req: &CleanRequest, e: usize, ts: Vec<i64>, ctx: &entity::Ctx, future: Option<&FutureRows>) -> Result<(CleanEntity, Option<Warning>)> {
    let table = req.series;
    let name = &table.entities[e];
    let rows: Vec<u32> = table.entity_range(e).map(|k| k as u32).collect();
    let values = table.entity_y(e).to_vec();
    let ctx = entity::Ctx { list_forecast_stamps: req.purpose.lists_forecast_stamps(future.is_some()), ..*ctx };
    let (forecast_stamps, short) = horizon::horizon(&ts, ts.len() - 1, &ctx);
    if short {
        return Err(grid::horizon_past_calendar(name));
    }
    let o = Outcome {
        fed_points: values.len(),
        output_points: values.len(),
        forecast_stamps,
        grid: ts.clone(),
        values: values.clone(),
        has_grid: true,
        ..Outcome::default()
    };
    let history_nonnegative = super::all_nonnegative(&values);
    let p = raw_prepared(name, ts, values, rows);
    let (columns, _) = covariates::assess(req, &p, &o, &ctx, future);
    let unused = covariates::unused_future_rows(&p.unique_id, &o.forecast_stamps, future);
    let entity = CleanEntity {
        model_input: report::model_input(&p.unique_id, &o, columns),
        unique_id: p.unique_id,
        values: o.values,
        stamps: o.grid,
        forecast_stamps: if req.purpose.keeps_forecast_stamps() { o.forecast_stamps } else { Vec::new() },
        history_nonnegative,
    };
    Ok((entity, unused))
}

fn raw_prepared(name: &str, ts: Vec<i64>, y: Vec<f64>, rows: Vec<u32>) -> Prepared {
    Prepared { unique_id: name.to_string(), input_rows: ts.len(), parsed: EntityStamps::default(), ts, y, rows, decisions: Vec::new(), empty_before: 0 }
}

/// A frequency the contract knows whose steps are calendar ones (`B` included, which the raw
/// preset's parse refuses first): read from the one token table, `time::Freq::parse`.
fn is_calendar_token(s: &str) -> bool {
    crate::time::Freq::parse(s, true).is_ok_and(|f| !f.is_fixed())
}

/// `YYYY-MM-DDTHH:MM[:SS[.ffffff]]` followed by `Z` or `±HH:MM`, nothing else.
pub fn strict_instant(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let shape = |pattern: &str, at: usize| {
        pattern.bytes().enumerate().all(|(k, c)| if c == b'9' { digit(at + k) } else { b.get(at + k) == Some(&c) })
    };
    if !shape("9999-99-99T99:99", 0) {
        return None;
    }
    let mut i = 16;
    let mut seconds = ":00".to_string();
    if b.get(i) == Some(&b':') {
        if !shape(":99", i) {
            return None;
        }
        // chrono reads a leap second (:60); the contract's shape has seconds 00 to 59.
        if &s[i + 1..i + 3] > "59" {
            return None;
        }
        seconds = s[i..i + 3].to_string();
        i += 3;
        if b.get(i) == Some(&b'.') {
            let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if !(1..=6).contains(&n) {
                return None;
            }
            seconds.push_str(&s[i..i + 1 + n]);
            i += 1 + n;
        }
    }
    let zone = &s[i..];
    let zone_ok = zone == "Z" || (zone.len() == 6 && (zone.starts_with('+') || zone.starts_with('-')) && shape("99:99", i + 1));
    // The same bounds as every other preset (docs/time.md): offsets within ±18:00, years 1 to 9999
    // on the wall clock and as an instant. chrono alone takes year 0 and offsets up to ±23:59.
    let offset_ok = zone_ok && time::offset(zone.as_bytes(), 0).is_ok();
    if !zone_ok || !offset_ok || &s[..4] == "0000" {
        return None;
    }
    let text = format!("{}{}{}", &s[..16], seconds, zone);
    DateTime::parse_from_rfc3339(&text).ok().map(|d| d.timestamp_micros()).filter(|&t| time::in_supported_range(t))
}
