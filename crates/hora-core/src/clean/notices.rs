//! What a run tells the caller besides its data: response `warnings[]` (also the report's
//! `warnings`) and an entity's report `issues`. Each code's fields are fixed here, once; the
//! fields follow `code` in the order of their names, the order a JSON map writes its keys in,
//! so the bytes are those the earlier maps gave.

use serde::Serialize;

use crate::time::DsFormat;

/// A response `warnings[]` entry, and a report `warnings[]` one (docs/cleaning-report.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Warning {
    /// The request's cleaning version is deprecated.
    CleaningVersionDeprecated,
    /// An `accept` id names no decision.
    AcceptIdUnknown { id: String },
    /// A `decline` id names no decision.
    DeclineIdUnknown { id: String },
    /// A `decline` id names a decision that cannot be declined.
    DeclineNotReversible { id: String },
    /// An id in both `accept` and `decline`: the decline wins, as it would alone.
    AcceptIdDeclined { id: String },
    /// A short run of trailing nulls is masked rather than trimmed.
    TrailingValuesMissing { unique_id: String },
    /// `long_gap: mask` was asked for, but a split kept only the latest segment.
    LongGapMaskUnavailable { unique_id: String },
    /// Future rows whose stamp is no forecast stamp are ignored.
    FutureRowsUnused { count: usize, stamps: Vec<String>, unique_id: String },
    /// A served value reached the edge of f64 and was written as the largest double.
    ForecastValueCapped { unique_id: String },
}

impl Warning {
    /// One of each variant (its fields empty): the codes the response can carry.
    pub fn one_of_each() -> Vec<Warning> {
        let (id, unique_id) = (String::new(), String::new());
        vec![
            Warning::CleaningVersionDeprecated,
            Warning::AcceptIdUnknown { id: id.clone() },
            Warning::DeclineIdUnknown { id: id.clone() },
            Warning::DeclineNotReversible { id: id.clone() },
            Warning::AcceptIdDeclined { id },
            Warning::TrailingValuesMissing { unique_id: unique_id.clone() },
            Warning::LongGapMaskUnavailable { unique_id: unique_id.clone() },
            Warning::FutureRowsUnused { count: 0, stamps: Vec::new(), unique_id: unique_id.clone() },
            Warning::ForecastValueCapped { unique_id },
        ]
    }

    /// Answers to the request's own `accept` / `decline` ids: they go in the cleaning report's
    /// `warnings` only, never the response's (docs/cleaning-report.md).
    pub fn report_only(&self) -> bool {
        matches!(
            self,
            Warning::AcceptIdUnknown { .. } | Warning::DeclineIdUnknown { .. } | Warning::DeclineNotReversible { .. } | Warning::AcceptIdDeclined { .. }
        )
    }
}

/// How much an issue matters: `info` describes the input, `warning` flags values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Info,
    Warning,
}

impl Level {
    pub const ALL: [Level; 2] = [Level::Info, Level::Warning];
}

/// A report `series[].issues` entry. Observed values are flagged, never changed; `stamps` lists
/// at most the report's listing limit while `count` counts them all.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Issue {
    /// The entity's stamps are written in a format other than ISO 8601.
    TimestampFormat { format: &'static str, level: Level },
    /// Stamps without an offset were read as UTC (no `options.timezone`).
    NaiveTimestampsAssumedUtc { count: usize, level: Level },
    /// Naive stamps at a local time the zone skipped (a spring-forward), read forward by the gap.
    NonexistentLocalTimes { count: usize, level: Level },
    /// Naive stamps at a local time the zone repeated (a fall-back), read as one of its passes.
    AmbiguousLocalTimes { count: usize, level: Level },
    OutliersFlagged { count: usize, level: Level, stamps: Vec<String> },
    ValuesOutOfBounds { count: usize, level: Level, stamps: Vec<String> },
    /// Negative observed values under `nonnegative: true`.
    NegativeValues { count: usize, level: Level, stamps: Vec<String> },
}

impl Issue {
    pub fn timestamp_format(format: DsFormat) -> Self {
        Issue::TimestampFormat { format: format.as_str(), level: Level::Info }
    }

    pub fn naive_timestamps_assumed_utc(count: usize) -> Self {
        Issue::NaiveTimestampsAssumedUtc { count, level: Level::Info }
    }

    pub fn nonexistent_local_times(count: usize) -> Self {
        Issue::NonexistentLocalTimes { count, level: Level::Info }
    }

    pub fn ambiguous_local_times(count: usize) -> Self {
        Issue::AmbiguousLocalTimes { count, level: Level::Info }
    }

    /// `outliers_flagged` for `count` values, `stamps` the first of them.
    pub fn outliers_flagged(count: usize, stamps: Vec<String>) -> Self {
        Issue::OutliersFlagged { count, level: Level::Warning, stamps }
    }

    pub fn values_out_of_bounds(count: usize, stamps: Vec<String>) -> Self {
        Issue::ValuesOutOfBounds { count, level: Level::Warning, stamps }
    }

    pub fn negative_values(count: usize, stamps: Vec<String>) -> Self {
        Issue::NegativeValues { count, level: Level::Warning, stamps }
    }

    /// One of each variant: the codes a report's `issues[]` can carry.
    pub fn one_of_each() -> Vec<Issue> {
        vec![
            Issue::timestamp_format(DsFormat::Iso8601),
            Issue::naive_timestamps_assumed_utc(0),
            Issue::nonexistent_local_times(0),
            Issue::ambiguous_local_times(0),
            Issue::outliers_flagged(0, Vec::new()),
            Issue::values_out_of_bounds(0, Vec::new()),
            Issue::negative_values(0, Vec::new()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn warnings_write_their_code_then_fields_in_name_order() {
        let w = Warning::FutureRowsUnused { count: 2, stamps: vec!["2026-01-01T00:00:00Z".into()], unique_id: "a".into() };
        assert_eq!(
            serde_json::to_string(&w).unwrap(),
            r#"{"code":"future_rows_unused","count":2,"stamps":["2026-01-01T00:00:00Z"],"unique_id":"a"}"#
        );
        assert_eq!(serde_json::to_value(Warning::CleaningVersionDeprecated).unwrap(), json!({"code": "cleaning_version_deprecated"}));
        assert_eq!(serde_json::to_value(Warning::DeclineNotReversible { id: "x".into() }).unwrap(), json!({"code": "decline_not_reversible", "id": "x"}));
    }

    #[test]
    fn the_answers_to_accept_and_decline_ids_are_the_report_only_warnings() {
        let accept = ["nope".to_string(), "ds.sort".to_string()];
        let decline = ["ds.sort".to_string(), "also-nope".to_string()];
        let (_, _, answers) = crate::clean::decisions::read_ids(&accept, &decline);
        assert_eq!(answers.len(), 3, "{answers:?}");
        assert!(answers.iter().all(Warning::report_only));
        let in_response: Vec<_> = Warning::one_of_each().into_iter().filter(|w| !w.report_only()).collect();
        assert_eq!(
            crate::choice::wire_names(&in_response),
            ["cleaning_version_deprecated", "trailing_values_missing", "long_gap_mask_unavailable", "future_rows_unused", "forecast_value_capped"]
        );
    }

    #[test]
    fn one_of_each_lists_every_code_once() {
        let codes = crate::choice::wire_names(&Warning::one_of_each());
        assert_eq!(codes.len(), 9);
        assert!(codes.contains(&"forecast_value_capped".to_string()) && codes.iter().all(|c| !c.is_empty()));
        let mut distinct = codes.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), codes.len());
        let issues = crate::choice::wire_names(&Issue::one_of_each());
        assert_eq!(issues, ["timestamp_format", "naive_timestamps_assumed_utc", "nonexistent_local_times", "ambiguous_local_times", "outliers_flagged", "values_out_of_bounds", "negative_values"]);
    }

    #[test]
    fn issues_carry_the_level_their_code_has() {
        assert_eq!(
            serde_json::to_string(&Issue::outliers_flagged(3, vec!["s".into()])).unwrap(),
            r#"{"code":"outliers_flagged","count":3,"level":"warning","stamps":["s"]}"#
        );
        assert_eq!(serde_json::to_value(Issue::timestamp_format(DsFormat::CompactDate)).unwrap(), json!({"code": "timestamp_format", "format": "compact_date", "level": "info"}));
        assert_eq!(serde_json::to_value(Issue::naive_timestamps_assumed_utc(4)).unwrap()["level"], "info");
    }
}
