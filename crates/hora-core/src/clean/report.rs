//! `cleaning_report/1`, `data_quality` and `model_input[]` built from the per-entity outcomes.
//! Field meanings: docs/cleaning-report.md; schema: docs/cleaning-report.schema.json.

use crate::choice::Choice;
use serde::Serialize;

use super::blocking::Block;
use super::covariates::CovariateUse;
use super::decisions::{Decision, DecisionId, Status};
use super::entity::Outcome;
use super::freq::FreqChoice;
use super::notices::{Issue, Warning};
use super::options::{LongGap, Resolved};
use super::prepare::Prepared;
use super::stamps::Zone;
use crate::time::DsFormat;

pub const SCHEMA_VERSION: &str = "cleaning_report/1";

/// What the report knows about the request so far (an error may come before every entity ran).
pub struct ReportInput<'a> {
    pub res: &'a Resolved,
    pub zone: &'a Zone,
    pub prepared: &'a [Prepared],
    pub freq: Option<&'a FreqChoice>,
    pub outcomes: &'a [Outcome],
    pub warnings: Vec<Warning>,
    pub blocks: Vec<Block>,
    pub decisions: Vec<Decision>,
    pub input_points: usize,
    /// Naive future stamps per entity (empty before the future rows are read).
    pub future_naive: &'a [usize],
    /// Some future stamp was converted to UTC (false before the future rows are read).
    pub future_converted: bool,
}

/// The report's `policy`: the preset and version the request was cleaned under.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct PolicyEcho {
    deprecated: bool,
    /// `<preset>@<version>`
    id: String,
    preset: &'static str,
    version: &'static str,
}

impl PolicyEcho {
    fn of(res: &Resolved) -> Self {
        PolicyEcho { deprecated: res.policy.deprecated, id: res.policy_id(), preset: res.preset.as_str(), version: res.policy.version }
    }
}

/// `cleaning_report/1`, typed so that it is written straight to JSON: a report of 100,000
/// entities is no tree of maps built, written and dropped (that cost about 2 s and 1 GB). The
/// fields of each part are in the order of their names, the order a JSON map writes its keys
/// in, so the bytes are those the map gave (pinned by a test).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CleaningReport {
    blocking: Vec<Block>,
    decisions: Vec<Decision>,
    overall: Overall,
    policy: PolicyEcho,
    schema_version: &'static str,
    series: Vec<SeriesEntry>,
    warnings: Vec<Warning>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct Overall {
    decisions_applied: usize,
    decisions_declined: usize,
    decisions_proposed: usize,
    input_points: usize,
    output_points: usize,
    series_count: usize,
    /// `data_quality.timezone_normalized`, here too, so that a `/v1/clean` report (its body has no
    /// `data_quality`) still says when future stamps, which `series[].timezone` does not
    /// describe, were converted to UTC.
    timezone_normalized: bool,
}

/// One entity's `series[]` entry. The counts are absent for an entity with no grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct SeriesEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    fed_points: Option<usize>,
    freq: FreqEcho,
    #[serde(skip_serializing_if = "Option::is_none")]
    imputed_points: Option<usize>,
    input_rows: usize,
    issues: Vec<Issue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    missing_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_points: Option<usize>,
    timezone: TimezoneEcho,
    unique_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct FreqEcho {
    canonical: Option<String>,
    confidence: Option<f64>,
    inferred: Option<String>,
    source: FreqSource,
    value: Option<String>,
}

/// Where an entity's frequency came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FreqSource {
    Request,
    Inferred,
    /// An error came before the frequency was known.
    Unresolved,
}

impl FreqSource {
    pub const ALL: [FreqSource; 3] = [FreqSource::Request, FreqSource::Inferred, FreqSource::Unresolved];
}

/// The zone naive stamps were read in and the grid stepped in (docs/time.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
struct TimezoneEcho {
    explicit_offsets: Vec<String>,
    explicit_rows: usize,
    naive_rows: usize,
    source: &'static str,
    used: String,
}

pub fn build(r: ReportInput) -> CleaningReport {
    let count = |s: Status| r.decisions.iter().filter(|d| d.status == s).count();
    let overall = Overall {
        decisions_applied: count(Status::Applied),
        decisions_declined: count(Status::Declined),
        decisions_proposed: count(Status::Proposed),
        input_points: r.input_points,
        output_points: r.outcomes.iter().map(|o| o.output_points).sum(),
        series_count: r.prepared.len(),
        timezone_normalized: timezone_normalized(&r),
    };
    let series = r.prepared.iter().enumerate().map(|(i, p)| series_entry(&r, i, p)).collect();
    CleaningReport {
        blocking: r.blocks,
        decisions: r.decisions,
        overall,
        policy: PolicyEcho::of(r.res),
        schema_version: SCHEMA_VERSION,
        series,
        warnings: r.warnings,
    }
}

fn series_entry(r: &ReportInput, i: usize, p: &Prepared) -> SeriesEntry {
    let freq = match r.freq {
        Some(f) => FreqEcho {
            canonical: Some(f.spec.canonical.clone()),
            confidence: f.confidence.get(i).copied().flatten(),
            inferred: f.inferred.clone(),
            source: if f.inferred.is_some() { FreqSource::Inferred } else { FreqSource::Request },
            value: Some(f.echo.clone()),
        },
        None => FreqEcho { canonical: None, confidence: None, inferred: None, source: FreqSource::Unresolved, value: None },
    };
    let mut issues: Vec<Issue> = Vec::new();
    if p.parsed.format != DsFormat::Iso8601 {
        issues.push(Issue::timestamp_format(p.parsed.format));
    }
    // Naive future stamps fall back to UTC as the history's do (contract, Time zones).
    let naive = p.parsed.naive_rows + r.future_naive.get(i).copied().unwrap_or(0);
    if naive > 0 && !r.zone.from_option {
        issues.push(Issue::naive_timestamps_assumed_utc(naive));
    }
    // A naive stamp the zone's clock skipped or repeated was read by the DST rule (docs/time.md):
    // the value is untouched, but which instant it names was a choice, so the report says so.
    if p.parsed.skipped_local_rows > 0 {
        issues.push(Issue::nonexistent_local_times(p.parsed.skipped_local_rows));
    }
    if p.parsed.repeated_local_rows > 0 {
        issues.push(Issue::ambiguous_local_times(p.parsed.repeated_local_rows));
    }
    // An entity with no grid (no numeric y, or too far off the grid) has no counts, as when an
    // error stopped before it.
    let counted = r.outcomes.get(i).filter(|o| o.has_grid);
    if let Some(o) = counted {
        issues.extend(o.issues.iter().cloned());
    }
    let s = &p.parsed;
    SeriesEntry {
        fed_points: counted.map(|o| o.fed_points),
        freq,
        imputed_points: counted.map(|o| o.imputed),
        input_rows: p.input_rows,
        issues,
        missing_ratio: counted.map(|o| ratio(o.inserted_before, o.grid_before)),
        output_points: counted.map(|o| o.output_points),
        timezone: TimezoneEcho {
            explicit_offsets: s.explicit_offsets.clone(),
            explicit_rows: s.explicit_rows,
            naive_rows: s.naive_rows,
            source: s.source.as_str(),
            used: s.zone.name().into_owned(),
        },
        unique_id: p.unique_id.clone(),
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Offsets other than UTC, or naive stamps read in a zone other than UTC, were converted, in
/// the history or the future rows.
fn timezone_normalized(r: &ReportInput) -> bool {
    r.future_converted || r.prepared.iter().any(|p| p.parsed.converted(r.zone))
}

/// The response's `data_quality`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum DataQuality {
    /// Under `raw` nothing is cleaned or measured: always `{status: ok, missing_ratio: 0.0}`
    /// (contract, the `raw` preset).
    Raw { missing_ratio: f64, status: QualityStatus },
    Cleaned(CleanedQuality),
}

impl DataQuality {
    pub fn raw() -> Self {
        DataQuality::Raw { missing_ratio: 0.0, status: QualityStatus::Ok }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QualityStatus {
    /// No decision applied.
    Ok,
    Cleaned,
}

impl QualityStatus {
    pub const ALL: [QualityStatus; 2] = [QualityStatus::Ok, QualityStatus::Cleaned];
}

/// `data_quality` after cleaning; fields in the order of their names, as the report's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CleanedQuality {
    pub imputed_points: usize,
    pub inferred_freq: Option<String>,
    /// Share of grid slots no row filled, before any decision.
    pub missing_ratio: f64,
    /// One line per applied decision id: `<id>: <points> points in <n> series`.
    pub notes: Vec<String>,
    /// Outliers are flagged, never replaced.
    pub outlier_points_suppressed: usize,
    pub status: QualityStatus,
    pub timezone_normalized: bool,
}

pub fn data_quality(r: &ReportInput) -> DataQuality {
    let inserted: usize = r.outcomes.iter().map(|o| o.inserted_before).sum();
    let grid: usize = r.outcomes.iter().map(|o| o.grid_before).sum();
    let applied: Vec<&Decision> = r.decisions.iter().filter(|d| d.applied()).collect();
    let mut notes: Vec<String> = Vec::new();
    let mut noted: Vec<DecisionId> = Vec::new();
    for d in &applied {
        if noted.contains(&d.id) {
            continue;
        }
        noted.push(d.id);
        let same: Vec<&&Decision> = applied.iter().filter(|x| x.id == d.id).collect();
        let points: usize = same.iter().map(|x| x.count).sum();
        // Series are entities: one entity's covariate columns (one decision each) count once.
        let mut series: Vec<&str> = same.iter().map(|x| x.unique_id.as_str()).collect();
        series.sort_unstable();
        series.dedup();
        notes.push(format!("{}: {points} points in {} series", d.id.as_str(), series.len()));
    }
    DataQuality::Cleaned(CleanedQuality {
        imputed_points: r.outcomes.iter().map(|o| o.imputed).sum(),
        inferred_freq: r.freq.and_then(|f| f.inferred.clone()),
        missing_ratio: ratio(inserted, grid),
        notes,
        outlier_points_suppressed: 0,
        status: if applied.is_empty() { QualityStatus::Ok } else { QualityStatus::Cleaned },
        timezone_normalized: timezone_normalized(r),
    })
}

/// An entity's `model_input[]` entry: what the model was given. Fields in the order of their
/// names; the masked tail's and the masked long gap's fields are there only when there is one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelInput {
    pub context_points: usize,
    /// Set by the covariate stage when the request has covariate columns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub covariates: Option<Vec<CovariateUse>>,
    pub covariates_used: bool,
    pub fed_points: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long_gap_handling: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long_gap_points: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long_gap_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masked_tail: Option<usize>,
    /// Masked slots are filled for the model, which also reads the mask.
    pub missing_mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail_handling: Option<&'static str>,
    /// History is never cut.
    pub truncated: usize,
    pub unique_id: String,
}

/// This entity's `model_input[]` entry; `covariates` is set by the covariate stage when sent.
pub fn model_input(unique_id: &str, o: &Outcome, covariates: Option<Vec<CovariateUse>>) -> ModelInput {
    let tail = o.masked_tail > 0;
    let gap = o.long_gap_masked;
    ModelInput {
        context_points: o.grid.len(),
        covariates_used: covariates.as_ref().is_some_and(|c| c.iter().any(|x| x.used)),
        covariates,
        fed_points: o.fed_points,
        long_gap_handling: gap.then_some(LongGap::Mask.as_str()),
        long_gap_points: gap.then_some(o.long_gap_points),
        long_gap_reason: gap.then_some("gap_longer_than_split_threshold"),
        masked_tail: tail.then_some(o.masked_tail),
        missing_mode: "filled",
        tail_handling: tail.then_some("mask"),
        truncated: 0,
        unique_id: unique_id.to_string(),
    }
}
