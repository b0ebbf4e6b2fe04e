//! The request body: top-level fields, `series` and `future_covariates`.

use super::builder::{RowKind, TableBuilder};
use crate::error::FieldErrors;
use super::rows::{Cursor, RowsSeed};
use super::table::RowTable;
use super::value::{too_many_values, FieldRead, StrictValue};
use super::{COLUMN_PAST_TOTAL, MAX_COVARIATE_COLUMNS};
use crate::error::{ErrorCode, HoraError};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Every top-level field of the forecast request (the contract's request body table).
/// `/v1/clean` accepts the same set (docs/decisions.md).
pub const TOP_LEVEL_FIELDS: &[&str] = &[
    "model",
    "model_options",
    "series",
    "future_covariates",
    "h",
    "freq",
    "level",
    "quantile_policy",
    "point_quantile",
    "clean_series",
    "clean_exog",
    "options",
];

/// The keys the contract defines directly under `options`; any other is ignored unread.
pub const OPTIONS_FIELDS: &[&str] = &["timezone", "ds_format", "gap_split_min_steps", "cleaning", "router_strategy"];

/// The keys of the request's closed objects; any other is refused as not a field, its value unread.
pub const CLEANING_FIELDS: &[&str] = &[
    "preset", "version", "impute_method", "seasonal_period", "nonnegative", "bounds", "structural_zero", "business_days",
    "long_gap", "accept", "decline",
];
pub const BOUNDS_FIELDS: &[&str] = &["lower", "upper"];
pub const MODEL_OPTIONS_FIELDS: &[&str] = &["nonnegative", "flip_average"];

/// The message of an unknown field (the service reads it for the nested ones it checks).
pub const UNKNOWN_FIELD: &str = "is not a field of the request";

/// A parsed body: the rows as columns, the small fields as JSON, and what was wrong with them.
#[derive(Debug, Default)]
pub struct ParsedBody {
    /// Every top-level field except `series` and `future_covariates`, for the service to validate.
    pub top: Map<String, Value>,
    pub series: RowTable,
    pub future: Option<RowTable>,
    /// VALIDATION_ERROR entries (`series[3].y`, unknown top-level fields, duplicate keys, ...).
    pub errors: FieldErrors,
    /// The first FUTURE_COVARIATES_INVALID problem: (field, message).
    pub future_invalid: Option<(String, String)>,
    /// Future rows (body indices) that lack a string `unique_id` or `ds`: left out when the stamps
    /// are read ([`ParsedBody::future_with_stamps`]).
    pub future_unread_rows: Vec<u32>,
    /// Future columns absent from the series rows (COVARIATE_COLUMN_MISMATCH).
    pub future_only: Vec<String>,
    /// The first future entity with no history rows (FUTURE_COVARIATES_INVALID, after a row's own
    /// fault and before COVARIATE_COLUMN_MISMATCH).
    pub future_without_history: Option<String>,
    /// Whether the body was a JSON object at all.
    pub is_object: bool,
    /// Top-level fields refused for holding too many values (`MAX_FIELD_VALUES`), kept out of `top`.
    pub(crate) oversized: Vec<String>,
}

/// The end of validation step 3 for the future rows, in the contract's order: a row's own fault
/// (`FUTURE_COVARIATES_INVALID` naming its field), rows of an entity without history (the same
/// code), then future columns absent from `series` (`COVARIATE_COLUMN_MISMATCH`). The one place
/// these errors are written, for the service and for hosts that build tables themselves.
pub fn future_rows_error<S: AsRef<str>>(row_fault: Option<(&str, &str)>, without_history: Option<&str>, future_only: &[S]) -> Option<HoraError> {
    if let Some((field, message)) = row_fault {
        return Some(HoraError::new(ErrorCode::FutureCovariatesInvalid, format!("{field} {message}.")).with("field", field));
    }
    if let Some(u) = without_history {
        return Some(HoraError::new(ErrorCode::FutureCovariatesInvalid, format!("future_covariates rows for {}, which has no history.", crate::time::quoted(u))).with("unique_id", u));
    }
    if !future_only.is_empty() {
        return Some(
            HoraError::new(ErrorCode::CovariateColumnMismatch, "future_covariates columns must also appear on the series rows.")
                .with("future_only", future_only.iter().map(|c| c.as_ref()).collect::<Vec<_>>()),
        );
    }
    None
}

impl ParsedBody {
    /// The future rows whose stamps validation step 3 reads, when some are left out: a row that
    /// lacks a string `unique_id` or `ds` is `FUTURE_COVARIATES_INVALID`, judged after that
    /// check, and would otherwise also read as an unreadable "" or in an entity "" that no row
    /// named. `None` when every future row is read as parsed (or there are none).
    pub fn future_with_stamps(&self) -> Option<RowTable> {
        let future = self.future.as_ref()?;
        (!self.future_unread_rows.is_empty()).then(|| future.stamps_without(&self.future_unread_rows))
    }

    /// The future rows' error of validation step 3, if any ([`future_rows_error`]).
    pub fn future_error(&self) -> Option<HoraError> {
        let fault = self.future_invalid.as_ref().map(|(f, m)| (f.as_str(), m.as_str()));
        future_rows_error(fault, self.future_without_history.as_deref(), &self.future_only)
    }

    /// `series` plus `future_covariates` rows (the contract's row cap counts both).
    pub fn row_count(&self) -> usize {
        self.series.row_count() + self.future.as_ref().map_or(0, |f| f.row_count())
    }

    /// Keeps top-level field `key` once: a repeat is a duplicate key, and a field that held too
    /// many values is refused and left out of `top`, so the service never unpacks it.
    fn keep_top_level(&mut self, key: String, value: Value, over: bool) {
        if self.top.contains_key(&key) || self.oversized.contains(&key) {
            self.errors.push(|| key, "duplicate key");
        } else if over {
            self.errors.push(|| key.clone(), too_many_values());
            self.oversized.push(key);
        } else {
            self.top.insert(key, value);
        }
    }
}

/// Parses and validates the body bytes in one pass. Fails only when the bytes are not JSON
/// (`MALFORMED_JSON`) or hold a number no float can represent (a `VALIDATION_ERROR` naming it).
pub fn parse_body(bytes: &[u8]) -> Result<ParsedBody, HoraError> {
    let text = utf8(without_bom(bytes))?;
    match super::fast::parse_common(text) {
        Some(body) => Ok(body),
        None => parse_text(text),
    }
}

/// [`parse_body`] without the fast path for the common shape: the reference it is tested against.
pub fn parse_body_general(bytes: &[u8]) -> Result<ParsedBody, HoraError> {
    parse_text(utf8(without_bom(bytes))?)
}

/// The body without a leading UTF-8 byte order mark. RFC 8259 lets a parser ignore one, and
/// Excel and Windows PowerShell exports start with it; positions in errors count from after it.
pub(crate) fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// UTF-8 is checked up front: serde_json does not validate strings that it skips.
fn utf8(bytes: &[u8]) -> Result<&str, HoraError> {
    std::str::from_utf8(bytes).map_err(|e| {
        // Line and column as serde_json counts them for syntax errors: 1-based, columns in bytes.
        let at = e.valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        HoraError::new(ErrorCode::MalformedJson, format!("The body is not valid UTF-8 (line {line}, column {column})."))
            .with("line", line)
            .with("column", column)
    })
}

fn parse_text(text: &str) -> Result<ParsedBody, HoraError> {
    let mut out = ParsedBody::default();
    let mut cursor = Cursor::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let result = (BodySeed { out: &mut out, cursor: &mut cursor }).deserialize(&mut de).and_then(|_| de.end());
    if let Err(e) = result {
        return Err(map_json_error(e, &cursor, text));
    }
    if !out.is_object {
        out.errors.push(|| "body".into(), "must be a JSON object");
    } else if out.series.y.is_empty() && !out.errors.listed.iter().any(|e| e.field == "series") {
        out.errors.push(|| "series".into(), "is required");
    }
    if let Some(future) = &out.future {
        out.future_without_history = future.first_entity_missing_from(&out.series).map(String::from);
    }
    Ok(out)
}

fn map_json_error(e: serde_json::Error, cursor: &Cursor, text: &str) -> HoraError {
    // Our visitors never fail, so the only non-syntax refusal is a number beyond f64, which
    // serde_json reports as a syntax error with this fixed message.
    if !e.to_string().starts_with("number out of range") {
        return malformed_json(&e);
    }
    // serde_json stopped at that number, but the body is well formed only if the rest is too
    // (a body cut off after `1e400` is MALFORMED_JSON). A skipped value's numbers are scanned,
    // never converted, so this pass checks the syntax alone.
    let mut de = serde_json::Deserializer::from_str(text);
    match <IgnoredAny as serde::Deserialize>::deserialize(&mut de).and_then(|_| de.end()) {
        Err(syntax) => malformed_json(&syntax),
        Ok(()) => HoraError::field(cursor.path(), "is a number beyond the range of a double"),
    }
}

fn malformed_json(e: &serde_json::Error) -> HoraError {
    // serde_json puts an end of input at the start of a line (an empty body, one cut just after
    // a newline) at column 0; positions are 1-based (docs/decisions.md).
    let (line, column) = (e.line(), e.column().max(1));
    let what = e.to_string();
    let what = what.rsplit_once(" at line ").map_or(what.as_str(), |(head, _)| head);
    // serde_json's words for a lone surrogate read as if the escape were cut short.
    let what = match what {
        "unexpected end of hex escape" | "lone leading surrogate in hex escape" => {
            "a \\u escape names a lone UTF-16 surrogate (\\ud800 to \\udfff without its pair), which no Unicode string holds"
        }
        other => other,
    };
    HoraError::new(ErrorCode::MalformedJson, format!("The body is not valid JSON: {what} at line {line} column {column}"))
        .with("line", line)
        .with("column", column)
}

struct BodySeed<'a> {
    out: &'a mut ParsedBody,
    cursor: &'a mut Cursor,
}

impl<'de, 'a> DeserializeSeed<'de> for BodySeed<'a> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, 'a> Visitor<'de> for BodySeed<'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let out = self.out;
        out.is_object = true;
        let (mut series, mut future) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "series" | "future_covariates" => {
                    let kind = if key == "series" { RowKind::Series } else { RowKind::Future };
                    let slot = if kind == RowKind::Series { &mut series } else { &mut future };
                    if slot.is_some() {
                        out.errors.push(|| key.clone(), "duplicate key");
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                    let mut builder = TableBuilder::new(kind);
                    map.next_value_seed(RowsSeed { builder: &mut builder, errors: &mut out.errors, cursor: &mut *self.cursor })?;
                    *slot = Some(builder);
                }
                k if TOP_LEVEL_FIELDS.contains(&k) => {
                    let field = FieldRead::new();
                    let read = map.next_value_seed(StrictValue::top_level(&key, &mut out.errors, &field));
                    // A parse error inside names the path being read (`options.cleaning.bounds.upper`).
                    let value = read.inspect_err(|_| self.cursor.key = field.reading.take())?;
                    out.keep_top_level(key, value, field.over());
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    out.errors.push(|| key.clone(), UNKNOWN_FIELD);
                }
            }
        }
        if let Some(f) = &future {
            let missing = f.columns_missing_from(series.as_ref());
            // The contract counts the request's covariate columns, not each array's: a future-only
            // column past the cap is a field error (step 3 lists it before the mismatch).
            let allowed = MAX_COVARIATE_COLUMNS.saturating_sub(series.as_ref().map_or(0, |s| s.covariates.len()));
            for &(row, name) in missing.iter().skip(allowed) {
                out.errors.push(|| format!("future_covariates[{row}].{name}"), COLUMN_PAST_TOTAL);
            }
            out.future_only = missing.into_iter().map(|(_, name)| name.to_string()).collect();
        }
        if let Some(b) = series {
            out.series = b.finish();
        }
        if let Some(b) = future {
            out.future_invalid = b.future_invalid.clone();
            out.future_unread_rows = b.unread_rows.clone();
            out.future = Some(b.finish());
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::value::MAX_FIELD_VALUES;
    use crate::ingest::MAX_LISTED_ERRORS;

    fn fields(body: &ParsedBody) -> Vec<&str> {
        body.errors.listed.iter().map(|e| e.field.as_str()).collect()
    }

    #[test]
    fn may_exceed_counts_distinct_stamp_strings_or_rows_under_raw() {
        // 5 rows of entity a, 3 distinct strings; b has 2 rows.
        let body = br#"{"series": [
            {"unique_id": "a", "ds": "d1", "y": 1}, {"unique_id": "a", "ds": "d2", "y": 1}, {"unique_id": "a", "ds": "d1", "y": 1},
            {"unique_id": "a", "ds": "d3", "y": 1}, {"unique_id": "a", "ds": "d3", "y": 1},
            {"unique_id": "b", "ds": "d1", "y": 1}, {"unique_id": "b", "ds": "d2", "y": 1}]}"#;
        let t = parse_body(body).unwrap().series;
        assert!(!t.may_exceed(3, false));
        assert!(t.may_exceed(2, false));
        assert!(t.may_exceed(4, true));
        assert!(!t.may_exceed(5, true));
    }

    #[test]
    fn an_unknown_key_under_options_is_ignored_whatever_its_value() {
        let rows = r#""series": [{"unique_id": "a", "ds": "2024-01-01", "y": 1}]"#;
        for options in [r#"{"zz": 1e999}"#, r#"{"zz": {"a": [1e999]}, "zz": 2}"#, r#"{"timezone": "UTC", "zz": -1e400}"#] {
            let body = format!(r#"{{"h": 2, "options": {options}, {rows}}}"#);
            let p = parse_body(body.as_bytes()).unwrap_or_else(|e| panic!("{options}: {e:?}"));
            assert!(p.errors.is_empty(), "{options}: {:?}", p.errors);
            assert!(p.top["options"].get("zz").is_none(), "{options}");
        }
    }

    #[test]
    fn any_number_of_unknown_keys_under_options_is_ignored_while_a_closed_object_counts_them() {
        let rows = r#""series": [{"unique_id": "a", "ds": "2024-01-01", "y": 1}]"#;
        let keys: Vec<String> = (0..MAX_FIELD_VALUES + 1).map(|i| format!(r#""k{i}": [0, 0]"#)).collect();
        let body = format!(r#"{{"h": 2, "options": {{"timezone": "UTC", {}}}, {rows}}}"#, keys.join(","));
        let p = parse_body(body.as_bytes()).unwrap();
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.top["options"]["timezone"], "UTC");
        let body = format!(r#"{{"h": 2, "options": {{"cleaning": {{{}}}}}, {rows}}}"#, keys.join(","));
        let p = parse_body(body.as_bytes()).unwrap();
        // Each unknown key is named, and past the cap the field is refused and left out.
        assert_eq!(p.errors.listed[0].field, "options.cleaning.k0");
        assert!(!p.top.contains_key("options"));
    }

    #[test]
    fn an_unknown_key_of_a_closed_object_is_refused_by_name_whatever_its_value() {
        let rows = r#""series": [{"unique_id": "a", "ds": "2024-01-01", "y": 1}]"#;
        for (field, path) in [
            (r#""options": {"cleaning": {"zz": "\ud800", "preset": "strict"}}"#, "options.cleaning.zz"),
            (r#""options": {"cleaning": {"bounds": {"lower": 0, "upper": 1, "zz": 1e999}}}"#, "options.cleaning.bounds.zz"),
            (r#""model_options": {"zz": [1e999], "zz": 2, "flip_average": true}"#, "model_options.zz"),
        ] {
            for body in [format!(r#"{{{rows}, "h": 2, {field}}}"#), format!(r#"{{"h": 2, {field}, {rows}}}"#)] {
                let p = parse_body(body.as_bytes()).unwrap_or_else(|e| panic!("{field}: {e:?}"));
                assert_eq!(fields(&p), vec![path], "{field}");
                assert_eq!(p.errors.listed[0].message, UNKNOWN_FIELD, "{field}");
            }
        }
        // Known keys are read as before.
        let p = parse_body(br#"{"h": 2, "options": {"cleaning": {"preset": "strict", "bounds": {"lower": 0, "upper": 1}}}, "series": []}"#).unwrap();
        assert_eq!(p.top["options"]["cleaning"]["bounds"]["upper"], 1);
    }

    #[test]
    fn a_number_beyond_f64_is_refused_naming_its_own_path() {
        for (field, path) in [
            (r#""options": {"cleaning": {"bounds": {"lower": 0, "upper": 1e999}}}"#, "options.cleaning.bounds.upper"),
            (r#""level": [80, 1e999]"#, "level[1]"),
            (r#""model_options": {"flip_average": 1e999}"#, "model_options.flip_average"),
            (r#""h": 1e999"#, "h"),
        ] {
            let body = format!(r#"{{{field}, "series": [{{"unique_id": "a", "ds": "2024-01-01", "y": 1}}]}}"#);
            let err = parse_body(body.as_bytes()).unwrap_err();
            assert_eq!(err.code, ErrorCode::ValidationError, "{field}");
            assert_eq!(err.details["errors"][0]["field"], path, "{field}");
        }
    }

    #[test]
    fn rows_become_columns_grouped_by_entity_in_sent_order() {
        let body = br#"{"h": 2, "series": [
            {"unique_id": "b", "ds": "2024-01-01T00:00:00Z", "y": 1},
            {"unique_id": "a", "ds": "2024-01-01T00:00:00Z", "y": null, "temp": 3.5},
            {"unique_id": "b", "ds": "2024-01-01T01:00:00Z", "y": 2.5, "temp": "hot"}]}"#;
        let p = parse_body(body).unwrap();
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.series.entities, vec!["b", "a"]);
        assert_eq!(p.series.entity_rows(0), &[0, 2]);
        assert_eq!(p.series.entity_rows(1), &[1]);
        // Columns are grouped by entity: b's two rows, then a's.
        assert_eq!(p.series.entity_ds(0).collect::<Vec<_>>(), vec![(0, "2024-01-01T00:00:00Z"), (2, "2024-01-01T01:00:00Z")]);
        assert_eq!(p.series.entity_y(0), &[1.0, 2.5]);
        assert!(p.series.entity_y(1)[0].is_nan());
        let temp = &p.series.covariates[0];
        assert_eq!(temp.name, "temp");
        assert!(temp.values[0].is_nan() && temp.values[1].is_nan() && temp.values[2] == 3.5);
        // Body row 2 ("hot") is table position 1: b's second row.
        assert_eq!(temp.non_numeric, vec![1]);
        assert_eq!(p.top.get("h"), Some(&Value::from(2)));
    }

    #[test]
    fn a_boolean_covariate_value_is_non_numeric_like_a_string() {
        let body = br#"{"series": [{"unique_id": "a", "ds": "2024-01-01T00:00:00Z", "y": 1, "open": true},
            {"unique_id": "a", "ds": "2024-01-01T01:00:00Z", "y": 2, "open": 1}]}"#;
        let p = parse_body(body).unwrap();
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_eq!(p.series.covariates[0].non_numeric, vec![0]);
        assert!(p.series.covariates[0].values[0].is_nan());
    }

    #[test]
    fn wrong_row_types_are_named_by_path() {
        let body = br#"{"series": [{"unique_id": 5, "ds": null, "y": "x"}, {"unique_id": "a", "ds": "d"}]}"#;
        let p = parse_body(body).unwrap();
        assert_eq!(fields(&p), vec!["series[0].unique_id", "series[0].ds", "series[0].y", "series[1].y"]);
    }

    #[test]
    fn unknown_top_level_fields_and_duplicate_keys_are_validation_errors() {
        let p = parse_body(br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1, "y": 2}], "foo": 1, "h": 1, "h": 2,
            "options": {"timezone": "UTC", "cleaning": {"bounds": {"lower": 0, "lower": 1, "upper": 2}}, "timezone": "Asia/Tokyo"}}"#).unwrap();
        // A repeated key inside a small field is named by its own path too (docs/decisions.md).
        assert_eq!(fields(&p), vec!["series[0].y", "foo", "h", "options.cleaning.bounds.lower", "options.timezone"]);
    }

    #[test]
    fn at_most_ten_errors_are_listed_but_all_are_counted() {
        let rows: Vec<String> = (0..25).map(|_| r#"{"unique_id": "a", "ds": "d", "y": "bad"}"#.to_string()).collect();
        let body = format!(r#"{{"series": [{}]}}"#, rows.join(","));
        let p = parse_body(body.as_bytes()).unwrap();
        assert_eq!(p.errors.listed.len(), 10);
        assert_eq!(p.errors.total, 25);
    }

    #[test]
    fn more_than_eight_covariate_columns_is_refused() {
        let cols: Vec<String> = (0..9).map(|i| format!(r#""c{i}": 1"#)).collect();
        let body = format!(r#"{{"series": [{{"unique_id": "a", "ds": "d", "y": 1, {}}}]}}"#, cols.join(","));
        let p = parse_body(body.as_bytes()).unwrap();
        assert_eq!(fields(&p), vec!["series[0].c8"]);
    }

    #[test]
    fn covariate_columns_are_counted_over_the_request_not_per_array() {
        let cols = |n: usize, prefix: &str| (0..n).map(|i| format!(r#""{prefix}{i}": 1"#)).collect::<Vec<_>>().join(",");
        let row = |cols: &str| format!(r#"{{"unique_id": "a", "ds": "d", {cols}}}"#);
        let body = |series: usize, future: &[&str]| {
            let future: Vec<String> = future.iter().map(|c| row(c)).collect();
            format!(r#"{{"future_covariates": [{}], "series": [{{"unique_id": "a", "ds": "d", "y": 1, {}}}]}}"#, future.join(","), cols(series, "c"))
        };
        // Eight on the series rows and a ninth on a future row (sent before them): the ninth is
        // named where it first appears, not left to COVARIATE_COLUMN_MISMATCH.
        let nine = parse_body(body(8, &[r#""c0": 1"#, r#""c1": 1, "zz": 2"#]).as_bytes()).unwrap();
        assert_eq!(fields(&nine), vec!["future_covariates[1].zz"]);
        assert_eq!(nine.errors.listed[0].message, COLUMN_PAST_TOTAL);
        // Within the cap, a future-only column is a mismatch, not a field error.
        let eight = parse_body(body(7, &[r#""zz": 2"#]).as_bytes()).unwrap();
        assert!(fields(&eight).is_empty());
        assert_eq!(eight.future_only, vec!["zz"]);
        // Future columns the series rows also hold count once.
        assert!(fields(&parse_body(body(8, &[&cols(8, "c")]).as_bytes()).unwrap()).is_empty());
        let two = parse_body(body(7, &[r#""x": 1, "y2": 1, "x3": 1"#]).as_bytes()).unwrap();
        assert_eq!(fields(&two), vec!["future_covariates[0].y2", "future_covariates[0].x3"]);
    }

    #[test]
    fn syntax_errors_are_malformed_json() {
        for body in [&b""[..], b"{", b"{\"series\": [NaN]}", b"{\"y\": Infinity}", b"{\"a\": \"\xff\"}", b"{} x"] {
            let e = parse_body(body).unwrap_err();
            assert_eq!(e.code, ErrorCode::MalformedJson, "{:?}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn a_lone_surrogate_escape_is_malformed_json_that_says_so() {
        for s in [r#""\ud800""#, r#""a\ud800b""#, r#""\ud800\u0041""#, r#""\udc00""#] {
            let body = format!(r#"{{"series": [{{"unique_id": {s}, "ds": "2024-01-01", "y": 1}}], "h": 1}}"#);
            let e = parse_body(body.as_bytes()).unwrap_err();
            assert_eq!(e.code, ErrorCode::MalformedJson, "{s}");
            assert!(e.message.contains("lone UTF-16 surrogate"), "{s}: {}", e.message);
        }
        // A pair is a character, and an escape cut short is named as such.
        assert!(parse_body(r#"{"series": [{"unique_id": "\ud83d\ude00", "ds": "d", "y": 1}], "h": 1}"#.as_bytes()).is_ok());
        assert!(!parse_body(br#"{"h": "\u12"}"#).unwrap_err().message.contains("surrogate"));
    }

    #[test]
    fn deep_nesting_in_a_field_is_read_as_null_below_the_depth_cap_not_a_syntax_error_or_a_stack_overflow() {
        for depth in [128, 100_000] {
            let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let body = format!(r#"{{"h": {deep}, "options": {{"x": {deep}}}, "series": [{{"unique_id": "a", "ds": "d", "y": 1}}]}}"#);
            let p = parse_body(body.as_bytes()).unwrap();
            // `h` stays an array (its own check refuses it); 64 levels are kept, then null.
            let mut v = &p.top["h"];
            let mut levels = 0;
            while let Some(inner) = v.as_array() {
                levels += 1;
                v = match inner.first() {
                    Some(x) => x,
                    None => break,
                };
            }
            assert_eq!((levels, v.is_null()), (64, true));
            // An unknown key under `options` is skipped unread, however deep.
            assert!(p.top["options"].get("x").is_none());
        }
        // A body that is itself a deep array is skipped without recursion: not an object.
        let body = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(!parse_body(body.as_bytes()).unwrap().is_object);
    }

    #[test]
    fn a_number_beyond_f64_is_a_validation_error_naming_the_field() {
        let e = parse_body(br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1e400}]}"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError);
        assert_eq!(e.details["errors"][0]["field"], "series[0].y");
    }

    #[test]
    fn a_top_level_number_beyond_f64_names_its_field() {
        let e = parse_body(br#"{"series": [], "h": 1e400}"#).unwrap_err();
        assert_eq!(e.details["errors"][0]["field"], "h");
    }

    #[test]
    fn a_number_beyond_f64_in_a_body_that_is_not_json_is_malformed_json() {
        let cut = br#"{"h": 1e400, "series": [{"unique_id": "a""#;
        let rows_then_garbage = br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1e400}]} ,,,"#;
        let two_objects = br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1e400}]}{}"#;
        let nan_later = br#"{"h": 1e400, "series": [{"unique_id": "a", "ds": "d", "y": NaN}]}"#;
        for body in [&cut[..], rows_then_garbage, two_objects, nan_later] {
            let e = parse_body(body).unwrap_err();
            assert_eq!(e.code, ErrorCode::MalformedJson, "{}", String::from_utf8_lossy(body));
        }
        // Where the rest is well formed it stays the field's error.
        let e = parse_body(br#"{"h": 1e400, "series": [{"unique_id": "a", "ds": "d", "y": 1}]}"#).unwrap_err();
        assert_eq!((e.code, e.details["errors"][0]["field"].as_str()), (ErrorCode::ValidationError, Some("h")));
    }

    #[test]
    fn a_field_with_more_values_than_the_cap_is_refused_and_left_out() {
        let row = r#""series": [{"unique_id": "a", "ds": "d", "y": 1}]"#;
        let zeros = vec!["0"; MAX_FIELD_VALUES + 1].join(",");
        for (field, body) in [
            ("level", format!(r#"{{{row}, "level": [{zeros}]}}"#)),
            // Nested arrays count every item, members of objects too.
            ("options", format!(r#"{{{row}, "options": {{"cleaning": {{"accept": [[{zeros}]]}}}}}}"#)),
        ] {
            let p = parse_body(body.as_bytes()).unwrap();
            assert_eq!(fields(&p), vec![field]);
            assert_eq!(p.errors.listed[0].message, too_many_values());
            assert!(!p.top.contains_key(field), "{field} is not handed over");
        }
        // At the cap it is read whole; a repeat of a refused field is still a duplicate.
        let at_cap = vec!["1"; MAX_FIELD_VALUES].join(",");
        let p = parse_body(format!(r#"{{{row}, "level": [{at_cap}]}}"#).as_bytes()).unwrap();
        assert!(p.errors.is_empty());
        assert_eq!(p.top["level"].as_array().map(Vec::len), Some(MAX_FIELD_VALUES));
        let p = parse_body(format!(r#"{{{row}, "level": [{zeros}], "level": [1]}}"#).as_bytes()).unwrap();
        assert_eq!(p.errors.listed.iter().map(|e| e.message.as_str()).collect::<Vec<_>>(), vec![too_many_values().as_str(), "duplicate key"]);
    }

    #[test]
    fn many_distinct_unknown_keys_in_a_closed_object_are_named_once_each_up_to_the_listing_cap() {
        // A list scanned per key made this quadratic (80,000 keys took 17 s).
        let keys: Vec<String> = (0..4_000).map(|i| format!(r#""k{i}": 0, "k{i}": 0"#)).collect();
        let body = format!(r#"{{"series": [{{"unique_id": "a", "ds": "d", "y": 1}}], "model_options": {{{}}}}}"#, keys.join(","));
        let p = parse_body(body.as_bytes()).unwrap();
        assert_eq!(p.errors.total, 4_000);
        assert_eq!(p.errors.listed.len(), MAX_LISTED_ERRORS);
        assert_eq!(p.errors.listed[0].field, "model_options.k0");
    }

    #[test]
    fn a_body_that_is_not_an_object_is_a_validation_error() {
        for body in [&b"[]"[..], b"5", b"\"x\"", b"null"] {
            let p = parse_body(body).unwrap();
            assert_eq!(fields(&p), vec!["body"]);
        }
    }

    #[test]
    fn missing_or_empty_series_is_a_validation_error() {
        assert_eq!(fields(&parse_body(br#"{"h": 1}"#).unwrap()), vec!["series"]);
        assert_eq!(fields(&parse_body(br#"{"series": []}"#).unwrap()), vec!["series"]);
        assert_eq!(fields(&parse_body(br#"{"series": {}}"#).unwrap()), vec!["series"]);
    }

    #[test]
    fn future_rows_with_y_or_without_string_ids_are_future_covariates_invalid() {
        let p = parse_body(br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1, "t": 1}], "future_covariates": [{"unique_id": "a", "ds": "e", "y": 3}]}"#).unwrap();
        assert_eq!(p.future_invalid.unwrap().0, "future_covariates[0].y");
        let p = parse_body(br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1}], "future_covariates": [{"unique_id": 1, "ds": "e"}]}"#).unwrap();
        assert_eq!(p.future_invalid.unwrap().0, "future_covariates[0].unique_id");
    }

    #[test]
    fn future_columns_missing_from_series_are_listed() {
        let p = parse_body(br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1, "t": 1}], "future_covariates": [{"unique_id": "a", "ds": "e", "t": 2, "promo": 1}]}"#).unwrap();
        assert!(p.future_invalid.is_none());
        assert_eq!(p.future_only, vec!["promo"]);
        assert_eq!(p.row_count(), 2);
    }

    #[test]
    fn the_first_future_entity_without_history_is_named() {
        let p = parse_body(br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1}], "future_covariates": [{"unique_id": "a", "ds": "e"}, {"unique_id": "zz", "ds": "e"}]}"#).unwrap();
        assert_eq!(p.future_without_history.as_deref(), Some("zz"));
        let p = parse_body(br#"{"series": [{"unique_id": "a", "ds": "d", "y": 1}], "future_covariates": [{"unique_id": "a", "ds": "e"}]}"#).unwrap();
        assert!(p.future_without_history.is_none());
    }

    #[test]
    fn escaped_strings_are_decoded() {
        let p = parse_body(br#"{"series": [{"unique_id": "caf\u00e9", "d\u0073": "x\"y", "y": 1}]}"#).unwrap();
        assert!(p.errors.is_empty());
        assert_eq!(p.series.entities[0], "café");
        assert_eq!(p.series.ds.get(0), "x\"y");
    }
}
