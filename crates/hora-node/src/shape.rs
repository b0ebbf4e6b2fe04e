//! The engine's vocabulary for the service's schemas: the request fields and value lists the
//! body parser accepts, and the report's and response's closed value lists
//! (`hora_core::vocabulary`), copied field for field.

use hora_core::choice::Choice;
use hora_core::clean::decisions::{self, DecisionId};
use hora_core::clean::options::{self, ImputeMethod, Preset};
use hora_core::model::{Nonnegative, QuantilePolicy};
use hora_core::time::DayMonthOrder;
use napi_derive::napi;

/// What the body parser accepts, for the request schema to state the same (and a test to compare).
#[napi(object)]
pub struct RequestShape {
    pub top_level_fields: Vec<String>,
    pub options_fields: Vec<String>,
    pub cleaning_fields: Vec<String>,
    pub bounds_fields: Vec<String>,
    pub model_options_fields: Vec<String>,
    pub max_covariate_columns: u32,
    /// Characters in a covariate column's name at most.
    pub max_column_name_chars: u32,
    /// Entries of `details.errors[]` at most.
    pub max_listed_errors: u32,
    /// The message of an unknown field.
    pub unknown_field_message: String,
    /// How a `VALIDATION_ERROR`'s message begins, before the first field and what is wrong.
    pub invalid_body_message: String,
    /// The value lists and ranges of the options the engine reads.
    pub presets: Vec<String>,
    pub impute_methods: Vec<String>,
    pub nonnegative_values: Vec<String>,
    pub long_gap_values: Vec<String>,
    pub quantile_policies: Vec<String>,
    /// `options.ds_format`.
    pub ds_formats: Vec<String>,
    /// A cleaning decision's `id`, `kind` and `status` values (the report's schema).
    pub decision_ids: Vec<String>,
    pub decision_kinds: Vec<String>,
    pub decision_statuses: Vec<String>,
    pub seasonal_period_min: u32,
    pub seasonal_period_max: u32,
    /// `accept` and `decline`: ids at most, and characters per id at most.
    pub max_decision_ids: u32,
    pub max_decision_id_chars: u32,
    /// Stamps or ranges a report lists at most (issues, blocks, `future_rows_unused`).
    pub max_listed_stamps: u32,
    /// The model the engine serves (its file's `hora.name` must match).
    pub model_name: String,
}

/// `ReportShape` and `report_shape()` from one list of the engine's vocabulary fields: the struct
/// is `hora_core::vocabulary::ReportVocabulary` as JavaScript sees it (field meanings there), and
/// the vocabulary is destructured whole (no `..`), so a list added to it fails to compile here
/// until it is named.
macro_rules! report_shape {
    ($($field:ident),* $(,)?) => {
        /// The closed value lists of the cleaning report and the response parts, as the engine
        /// writes them: the service's report and response schemas are built from these.
        #[napi(object)]
        pub struct ReportShape {
            $(pub $field: Vec<String>,)*
        }

        #[napi]
        pub fn report_shape() -> ReportShape {
            let hora_core::vocabulary::ReportVocabulary { $($field),* } = hora_core::vocabulary::report_vocabulary();
            ReportShape { $($field),* }
        }
    };
}

report_shape!(
    blocking_codes,
    blocking_kinds,
    blocking_reasons,
    blocking_statuses,
    measured,
    warning_codes,
    response_warning_codes,
    issue_codes,
    issue_levels,
    zone_sources,
    freq_sources,
    quality_statuses,
    point_methods,
    covariate_reasons,
    covariate_roles,
    fill_methods,
);

#[napi]
pub fn request_shape() -> RequestShape {
    let strings = |s: &[&str]| s.iter().map(|f| f.to_string()).collect();
    RequestShape {
        top_level_fields: strings(hora_core::ingest::TOP_LEVEL_FIELDS),
        options_fields: strings(hora_core::ingest::OPTIONS_FIELDS),
        cleaning_fields: strings(hora_core::ingest::CLEANING_FIELDS),
        bounds_fields: strings(hora_core::ingest::BOUNDS_FIELDS),
        model_options_fields: strings(hora_core::ingest::MODEL_OPTIONS_FIELDS),
        max_covariate_columns: hora_core::ingest::MAX_COVARIATE_COLUMNS as u32,
        max_column_name_chars: hora_core::ingest::MAX_COLUMN_NAME_CHARS as u32,
        max_listed_errors: hora_core::ingest::MAX_LISTED_ERRORS as u32,
        unknown_field_message: hora_core::ingest::UNKNOWN_FIELD.to_string(),
        invalid_body_message: hora_core::error::INVALID_BODY.to_string(),
        presets: strings(&Preset::names()),
        impute_methods: strings(&ImputeMethod::names()),
        nonnegative_values: strings(&Nonnegative::names()),
        long_gap_values: strings(&options::LongGap::names()),
        quantile_policies: strings(&QuantilePolicy::names()),
        ds_formats: strings(&DayMonthOrder::names()),
        decision_ids: DecisionId::ALL.iter().map(|d| d.as_str().to_string()).collect(),
        decision_kinds: strings(&DecisionId::kinds()),
        decision_statuses: decisions::Status::ALL.iter().map(|s| s.as_str().to_string()).collect(),
        seasonal_period_min: options::SEASONAL_PERIOD_MIN,
        seasonal_period_max: options::SEASONAL_PERIOD_MAX,
        max_decision_ids: options::MAX_DECISION_IDS as u32,
        max_decision_id_chars: options::MAX_DECISION_ID_CHARS as u32,
        max_listed_stamps: hora_core::clean::policy::LISTED_MAX as u32,
        model_name: hora_core::model::MODEL_NAME.to_string(),
    }
}
