//! Blocking entries: why an entity cannot be forecast, with the code the request fails with.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use super::decisions::{Decision, DecisionId, Family, Status};
use crate::error::{ErrorCode, HoraError};

/// Entities an error's details list at most (`series[]` of the length codes, `entities[]` of
/// `FREQ_AMBIGUOUS`): the contract's "at most 10".
pub const LISTED_ENTITIES: usize = 10;

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub unique_id: String,
    pub code: ErrorCode,
    /// `health_critical`, `cleaning_required`, `trailing_gap_too_long`, `limit`, `frequency` or
    /// `timestamps`.
    pub kind: &'static str,
    pub reason: &'static str,
    /// Decision ids whose effect (or absence) causes the block.
    pub caused_by: Vec<&'static str>,
    pub extra: Map<String, Value>,
}

impl Block {
    pub fn new(unique_id: &str, code: ErrorCode, kind: &'static str, reason: &'static str) -> Self {
        Block { unique_id: unique_id.to_string(), code, kind, reason, caused_by: Vec::new(), extra: Map::new() }
    }

    /// `SERIES_EMPTY`: an entity with no numeric y, or none left on its grid.
    pub fn no_numeric_values(unique_id: &str) -> Self {
        Block::new(unique_id, ErrorCode::SeriesEmpty, "limit", "no_numeric_values")
    }

    /// An entity whose own or future rows need a day/month order nothing proves.
    pub fn ambiguous_date_format(unique_id: &str) -> Self {
        Block::new(unique_id, ErrorCode::AmbiguousDateFormat, "timestamps", "ambiguous_date_format")
    }

    pub fn caused_by(mut self, ids: &[DecisionId]) -> Self {
        self.caused_by = ids.iter().map(|d| d.as_str()).collect();
        self
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }
}

/// A blocking entry of the report: its fields and its extra details written straight to JSON,
/// all keys in name order (an extra detail named as a field replaces it, as in a map).
impl Serialize for Block {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut entries: Vec<(&str, Entry)> = vec![
            ("code", Entry::Str(self.code.as_str())),
            ("kind", Entry::Str(self.kind)),
            ("reason", Entry::Str(self.reason)),
            ("unique_id", Entry::Str(&self.unique_id)),
        ];
        if !self.caused_by.is_empty() {
            entries.push(("caused_by", Entry::List(&self.caused_by)));
        }
        entries.retain(|(k, _)| !self.extra.contains_key(*k));
        entries.extend(self.extra.iter().map(|(k, v)| (k.as_str(), Entry::Value(v))));
        entries.sort_by(|a, b| a.0.cmp(b.0));
        let mut m = s.serialize_map(Some(entries.len()))?;
        for (k, v) in &entries {
            match v {
                Entry::Str(text) => m.serialize_entry(k, text)?,
                Entry::List(list) => m.serialize_entry(k, list)?,
                Entry::Value(value) => m.serialize_entry(k, value)?,
            }
        }
        m.end()
    }
}

enum Entry<'a> {
    Str(&'a str),
    List(&'a [&'static str]),
    Value(&'a Value),
}

/// The entities a frequency error stops, as blocking entries (kind `frequency`): the entity whose
/// stamps show no frequency or are off the grid (`freq_inference_failed`, with its off-grid share
/// when that was the cause), the entities whose inferred frequencies disagree (`freq_ambiguous`,
/// with the frequency each inferred; or the one entity whose own stamps fit several), or, when no
/// entity had enough stamps, every entity (`too_few_stamps`); a `freq` that names no frequency
/// stops every entity (`freq_unsupported`). Other errors give none.
pub fn of_freq_error(err: &HoraError, entities: &[&str]) -> Vec<Block> {
    let detail = |k: &str| err.details.get(k);
    match err.code {
        ErrorCode::FreqAmbiguous => match (detail("entities").and_then(Value::as_array), detail("unique_id").and_then(Value::as_str)) {
            (Some(listed), _) => listed
                .iter()
                .filter_map(|c| Some((c.get("unique_id")?.as_str()?, c.get("freq")?.clone())))
                .map(|(uid, freq)| Block::new(uid, err.code, "frequency", "freq_ambiguous").with("freq", freq))
                .collect(),
            (None, Some(uid)) => vec![Block::new(uid, err.code, "frequency", "freq_ambiguous")],
            (None, None) => Vec::new(),
        },
        ErrorCode::FreqInferenceFailed => match detail("unique_id").and_then(Value::as_str) {
            Some(uid) => {
                let mut block = Block::new(uid, err.code, "frequency", "freq_inference_failed");
                for key in ["off_grid_share", "max_share"] {
                    if let Some(v) = detail(key) {
                        block = block.with(key, v.clone());
                    }
                }
                vec![block]
            }
            None => entities.iter().map(|uid| Block::new(uid, err.code, "frequency", "too_few_stamps")).collect(),
        },
        ErrorCode::FreqUnsupported => entities.iter().map(|uid| Block::new(uid, err.code, "frequency", "freq_unsupported")).collect(),
        _ => Vec::new(),
    }
}

/// Repairs that were needed but not applied (proposed under `strict` or `clean_series: false`, or
/// declined) block the entity: timestamps with `TIMESTAMP_IRREGULAR`, values with
/// `SERIES_DISCONTINUOUS`.
pub fn unapplied(decisions: &[Decision], max_tail: Option<usize>) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for d in decisions.iter().filter(|d| !d.applied() && d.id != DecisionId::ExogImpute) {
        let block = match (d.id.family(), d.id, d.status) {
            (Family::Timestamps, ..) => {
                Block::new(&d.unique_id, ErrorCode::TimestampIrregular, "cleaning_required", "timestamp_irregular")
            }
            (_, DecisionId::MaskedTail, Status::Declined) => {
                Block::new(&d.unique_id, ErrorCode::SeriesDiscontinuous, "trailing_gap_too_long", "trailing_gap_too_long")
                    .with("count", d.count)
                    .with("max_steps", max_tail.unwrap_or(0))
            }
            _ => Block::new(&d.unique_id, ErrorCode::SeriesDiscontinuous, "cleaning_required", "series_discontinuous"),
        };
        let block = block.caused_by(&[d.id]).with("status", d.status.as_str());
        match blocks.iter_mut().find(|b| b.code == block.code && b.reason == block.reason) {
            Some(b) => b.caused_by.push(d.id.as_str()),
            None => blocks.push(block),
        }
    }
    // Timestamp repairs come first in the pipeline, so their code wins.
    blocks.sort_by_key(|b| b.code != ErrorCode::TimestampIrregular);
    blocks
}
