//! The closed value lists of the cleaning report and the response parts, as the engine writes
//! them, for a host to build its response schemas from (the service's typebox schemas and the
//! OpenAPI document read these instead of keeping a copy).

use crate::choice::{wire_names, Choice};
use crate::clean::decisions::{Status, STRUCTURAL_ZERO_METHOD};
use crate::clean::options::ImputeMethod;
use crate::clean::{CovariateReason, CovariateRole, FreqSource, Issue, Level, Measured, QualityStatus, Reason, Warning};
use crate::model::PointMethod;
use crate::time::ZoneSource;

/// Each list in the order the engine declares it, each name once.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportVocabulary {
    /// A blocking entry's `code`, `kind` and `reason` values.
    pub blocking_codes: Vec<String>,
    pub blocking_kinds: Vec<String>,
    pub blocking_reasons: Vec<String>,
    /// A blocking entry's `status`: that of a decision needed and not applied.
    pub blocking_statuses: Vec<String>,
    /// `SERIES_TOO_LONG`'s `measured`.
    pub measured: Vec<String>,
    /// Every warning code: the report's `warnings[]`.
    pub warning_codes: Vec<String>,
    /// The codes a response's own `warnings[]` can carry (the report-only ones left out).
    pub response_warning_codes: Vec<String>,
    pub issue_codes: Vec<String>,
    pub issue_levels: Vec<String>,
    /// `series[].timezone.source` and `series[].freq.source`.
    pub zone_sources: Vec<String>,
    pub freq_sources: Vec<String>,
    /// `data_quality.status`.
    pub quality_statuses: Vec<String>,
    /// `quantile_report.point_forecast.method`.
    pub point_methods: Vec<String>,
    /// `model_input[].covariates[]`: `reason` and `role`.
    pub covariate_reasons: Vec<String>,
    pub covariate_roles: Vec<String>,
    /// A decision's `method`: the impute methods and the structural-zero fill.
    pub fill_methods: Vec<String>,
}

/// The report's and the response's value lists.
pub fn report_vocabulary() -> ReportVocabulary {
    let names: Vec<_> = Reason::one_of_each().iter().map(Reason::names).collect();
    let warnings = Warning::one_of_each();
    ReportVocabulary {
        // Several reasons share a code or a kind: each is listed once.
        blocking_codes: distinct(names.iter().map(|n| n.0.as_str().to_string())),
        blocking_kinds: distinct(names.iter().map(|n| n.1.to_string())),
        blocking_reasons: names.iter().map(|n| n.2.to_string()).collect(),
        blocking_statuses: Status::ALL.iter().filter(|s| **s != Status::Applied).map(|s| s.as_str().to_string()).collect(),
        measured: Measured::ALL.iter().map(|m| m.as_str().to_string()).collect(),
        warning_codes: wire_names(&warnings),
        response_warning_codes: wire_names(&warnings.iter().filter(|w| !w.report_only()).collect::<Vec<_>>()),
        issue_codes: wire_names(&Issue::one_of_each()),
        issue_levels: wire_names(&Level::ALL),
        zone_sources: ZoneSource::ALL.iter().map(|z| z.as_str().to_string()).collect(),
        freq_sources: wire_names(&FreqSource::ALL),
        quality_statuses: wire_names(&QualityStatus::ALL),
        point_methods: wire_names(&PointMethod::ALL),
        covariate_reasons: wire_names(&CovariateReason::ALL),
        covariate_roles: wire_names(&CovariateRole::ALL),
        fill_methods: ImputeMethod::names().into_iter().chain([STRUCTURAL_ZERO_METHOD]).map(str::to_string).collect(),
    }
}

/// Names in first-seen order, each once.
fn distinct(names: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_names_each_value_once() {
        let v = report_vocabulary();
        for list in [&v.blocking_codes, &v.blocking_kinds, &v.blocking_statuses, &v.warning_codes, &v.issue_codes, &v.fill_methods] {
            let mut sorted = list.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), list.len(), "{list:?}");
        }
    }

    #[test]
    fn the_response_warnings_leave_out_the_report_only_answers_to_accept_and_decline() {
        let v = report_vocabulary();
        assert!(v.warning_codes.contains(&"accept_id_unknown".to_string()));
        assert!(!v.response_warning_codes.contains(&"accept_id_unknown".to_string()));
        assert!(v.response_warning_codes.contains(&"trailing_values_missing".to_string()));
        assert!(!v.blocking_statuses.contains(&"applied".to_string()));
    }
}
