//! Blocking entries: why an entity cannot be forecast, with the code the request fails with, and
//! the error they make (`block_error`: the first entry decides the code).

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

use super::decisions::{Decision, DecisionId, Family, Status};
use crate::error::{ErrorCode, HoraError};
use crate::time::MAX_OFF_GRID_SHARE;

/// Entities an error's details list at most (`series[]` of the length codes, `entities[]` of
/// `FREQ_AMBIGUOUS`): the contract's "at most 10".
pub const LISTED_ENTITIES: usize = 10;

/// Why an entity is blocked, with the figures that show it. The code the request fails with,
/// the entry's `kind` and its `reason` name follow from it, in one table ([`Reason::names`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// A timestamp repair was needed and not applied.
    TimestampIrregular,
    /// A gap repair was needed and not applied.
    SeriesDiscontinuous,
    /// More trailing empty steps than a masked tail may have, or a masked tail declined.
    TrailingGapTooLong { count: usize, max_steps: usize },
    MissingShareTooHigh { missing_share: f64, threshold: f64 },
    GapNearOriginTooLong { gap_steps: usize, threshold_steps: f64 },
    TooShort { points: usize, min_context: usize },
    TooLong { points: usize, measured: Measured, max_context: usize },
    NoNumericValues,
    AmbiguousDateFormat,
    /// The frequency this entity inferred, when entities disagree.
    FreqAmbiguous { freq: Option<String> },
    /// Off the grid: the share of stamps off it and the most allowed, when that was the cause.
    FreqInferenceFailed { off_grid: Option<(f64, f64)> },
    /// No entity had enough stamps to infer a frequency.
    TooFewStamps,
    FreqUnsupported,
}

/// What `SERIES_TOO_LONG` measured (contract): rows under `raw`, distinct timestamps before
/// cleaning, the regular grid after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measured {
    Rows,
    Timestamps,
    ModelInput,
}

impl Measured {
    pub const ALL: [Measured; 3] = [Measured::Rows, Measured::Timestamps, Measured::ModelInput];

    pub fn as_str(self) -> &'static str {
        match self {
            Measured::Rows => "rows",
            Measured::Timestamps => "timestamps",
            Measured::ModelInput => "model_input",
        }
    }
}

impl Reason {
    /// One of each variant (figures zero): the names a blocking entry can carry.
    pub fn one_of_each() -> Vec<Reason> {
        vec![
            Reason::TimestampIrregular,
            Reason::SeriesDiscontinuous,
            Reason::TrailingGapTooLong { count: 0, max_steps: 0 },
            Reason::MissingShareTooHigh { missing_share: 0.0, threshold: 0.0 },
            Reason::GapNearOriginTooLong { gap_steps: 0, threshold_steps: 0.0 },
            Reason::TooShort { points: 0, min_context: 0 },
            Reason::TooLong { points: 0, measured: Measured::Rows, max_context: 0 },
            Reason::NoNumericValues,
            Reason::AmbiguousDateFormat,
            Reason::FreqAmbiguous { freq: None },
            Reason::FreqInferenceFailed { off_grid: None },
            Reason::TooFewStamps,
            Reason::FreqUnsupported,
        ]
    }

    /// (code, kind, reason)
    pub fn names(&self) -> (ErrorCode, &'static str, &'static str) {
        use ErrorCode as C;
        match self {
            Reason::TimestampIrregular => (C::TimestampIrregular, "cleaning_required", "timestamp_irregular"),
            Reason::SeriesDiscontinuous => (C::SeriesDiscontinuous, "cleaning_required", "series_discontinuous"),
            Reason::TrailingGapTooLong { .. } => (C::SeriesDiscontinuous, "trailing_gap_too_long", "trailing_gap_too_long"),
            Reason::MissingShareTooHigh { .. } => (C::SeriesDiscontinuous, "health_critical", "missing_share_too_high"),
            Reason::GapNearOriginTooLong { .. } => (C::SeriesDiscontinuous, "health_critical", "gap_near_origin_too_long"),
            Reason::TooShort { .. } => (C::SeriesTooShort, "limit", "too_short"),
            Reason::TooLong { .. } => (C::SeriesTooLong, "limit", "too_long"),
            Reason::NoNumericValues => (C::SeriesEmpty, "limit", "no_numeric_values"),
            Reason::AmbiguousDateFormat => (C::AmbiguousDateFormat, "timestamps", "ambiguous_date_format"),
            Reason::FreqAmbiguous { .. } => (C::FreqAmbiguous, "frequency", "freq_ambiguous"),
            Reason::FreqInferenceFailed { .. } => (C::FreqInferenceFailed, "frequency", "freq_inference_failed"),
            Reason::TooFewStamps => (C::FreqInferenceFailed, "frequency", "too_few_stamps"),
            Reason::FreqUnsupported => (C::FreqUnsupported, "frequency", "freq_unsupported"),
        }
    }

    /// The figures the entry (and the error's details) carry besides its names.
    pub fn figures(&self) -> Vec<(&'static str, Value)> {
        match self {
            Reason::TrailingGapTooLong { count, max_steps } => vec![("count", (*count).into()), ("max_steps", (*max_steps).into())],
            Reason::MissingShareTooHigh { missing_share, threshold } => {
                vec![("missing_share", (*missing_share).into()), ("threshold", (*threshold).into())]
            }
            Reason::GapNearOriginTooLong { gap_steps, threshold_steps } => {
                vec![("gap_steps", (*gap_steps).into()), ("threshold_steps", (*threshold_steps).into())]
            }
            Reason::TooShort { points, min_context } => vec![("min_context", (*min_context).into()), ("points", (*points).into())],
            Reason::TooLong { points, measured, max_context } => {
                vec![("max_context", (*max_context).into()), ("measured", measured.as_str().into()), ("points", (*points).into())]
            }
            Reason::FreqAmbiguous { freq: Some(freq) } => vec![("freq", freq.as_str().into())],
            Reason::FreqInferenceFailed { off_grid: Some((share, max)) } => vec![("max_share", (*max).into()), ("off_grid_share", (*share).into())],
            _ => Vec::new(),
        }
    }

    /// The length the limit codes measured.
    pub fn points(&self) -> Option<usize> {
        match self {
            Reason::TooShort { points, .. } | Reason::TooLong { points, .. } => Some(*points),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub unique_id: String,
    pub reason: Reason,
    /// Decision ids whose effect (or absence) causes the block.
    pub caused_by: Vec<DecisionId>,
    /// The status of the decision that was needed and not applied (proposed or declined).
    pub status: Option<Status>,
}

impl Block {
    pub fn new(unique_id: &str, reason: Reason) -> Self {
        Block { unique_id: unique_id.to_string(), reason, caused_by: Vec::new(), status: None }
    }

    /// `SERIES_EMPTY`: an entity with no numeric y, or none left on its grid.
    pub fn no_numeric_values(unique_id: &str) -> Self {
        Block::new(unique_id, Reason::NoNumericValues)
    }

    /// An entity whose own or future rows need a day/month order nothing proves.
    pub fn ambiguous_date_format(unique_id: &str) -> Self {
        Block::new(unique_id, Reason::AmbiguousDateFormat)
    }

    pub fn code(&self) -> ErrorCode {
        self.reason.names().0
    }

    pub fn kind(&self) -> &'static str {
        self.reason.names().1
    }

    /// The reason's name.
    pub fn reason_name(&self) -> &'static str {
        self.reason.names().2
    }

    pub fn caused_by(mut self, ids: &[DecisionId]) -> Self {
        self.caused_by = ids.to_vec();
        self
    }
}

/// A blocking entry of the report: its names, causes, status and figures written straight to
/// JSON, all keys in name order.
impl Serialize for Block {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (code, kind, reason) = self.reason.names();
        let figures = self.reason.figures();
        let mut entries: Vec<(&str, Entry)> = vec![
            ("code", Entry::Str(code.as_str())),
            ("kind", Entry::Str(kind)),
            ("reason", Entry::Str(reason)),
            ("unique_id", Entry::Str(&self.unique_id)),
        ];
        if !self.caused_by.is_empty() {
            entries.push(("caused_by", Entry::List(self.caused_by.iter().map(|d| d.as_str()).collect())));
        }
        if let Some(status) = self.status {
            entries.push(("status", Entry::Str(status.as_str())));
        }
        entries.extend(figures.iter().map(|(k, v)| (*k, Entry::Value(v))));
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
    List(Vec<&'static str>),
    Value(&'a Value),
}

/// Repairs that were needed but not applied (proposed under `strict` or `clean_series: false`, or
/// declined) block the entity: timestamps with `TIMESTAMP_IRREGULAR`, values with
/// `SERIES_DISCONTINUOUS`.
pub fn unapplied(decisions: &[Decision], max_tail: Option<usize>) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for d in decisions.iter().filter(|d| !d.applied() && d.id != DecisionId::ExogImpute) {
        let reason = match (d.id.family(), d.id, d.status) {
            (Family::Timestamps, ..) => Reason::TimestampIrregular,
            (_, DecisionId::MaskedTail, Status::Declined) => Reason::TrailingGapTooLong { count: d.count, max_steps: max_tail.unwrap_or(0) },
            _ => Reason::SeriesDiscontinuous,
        };
        let block = Block { status: Some(d.status), ..Block::new(&d.unique_id, reason).caused_by(&[d.id]) };
        match same_reason(&mut blocks, &block) {
            Some(b) => b.absorb(block, false),
            None => blocks.push(block),
        }
    }
    // Timestamp repairs come first in the pipeline, so their code wins.
    blocks.sort_by_key(|b| b.code() != ErrorCode::TimestampIrregular);
    blocks
}

/// Joins `earlier`, blocks of decisions that come before those `blocks` were made from (a grid
/// cap cut's), to them: a block of the same reason takes the earlier causes first (and their
/// `declined`); another goes where [`unapplied`]'s blocks stand, before the length limits.
pub fn join_earlier(blocks: &mut Vec<Block>, earlier: Vec<Block>) {
    for e in earlier {
        match same_reason(blocks, &e) {
            Some(b) => b.absorb(e, true),
            None => {
                let at = blocks.iter().position(|b| matches!(b.reason, Reason::TooShort { .. } | Reason::TooLong { .. })).unwrap_or(blocks.len());
                blocks.insert(at, e);
            }
        }
    }
}

/// The entry of `blocks` with `block`'s reason (its figures aside), into which `block` is merged.
fn same_reason<'a>(blocks: &'a mut [Block], block: &Block) -> Option<&'a mut Block> {
    blocks.iter_mut().find(|b| std::mem::discriminant(&b.reason) == std::mem::discriminant(&block.reason))
}

impl Block {
    /// Takes `other`'s causes (an entry of the same reason), ahead of its own when they come
    /// earlier in the pipeline. A declined cause outranks a proposed one: accepting the proposed
    /// ids will not unblock the entity while the decline stands.
    fn absorb(&mut self, other: Block, earlier: bool) {
        if earlier {
            self.caused_by.splice(0..0, other.caused_by);
        } else {
            self.caused_by.extend(other.caused_by);
        }
        if other.status == Some(Status::Declined) {
            self.status = other.status;
        }
    }
}

/// `Ok` when nothing is blocked, else [`block_error`] for `blocks`.
pub(super) fn unless_blocked(blocks: &[Block]) -> crate::error::Result<()> {
    if blocks.is_empty() { Ok(()) } else { Err(block_error(blocks)) }
}

/// The error for `blocks`: the first decides the code; details follow the contract per code.
pub(super) fn block_error(blocks: &[Block]) -> HoraError {
    let code = blocks[0].code();
    let mut same: Vec<&Block> = blocks.iter().filter(|b| b.code() == code).collect();
    let length = matches!(code, ErrorCode::SeriesTooLong | ErrorCode::SeriesTooShort);
    if length {
        // Furthest from the limit first (longest, or shortest); the top-level fields describe
        // that entity, the one `series[]` lists first.
        let points = |b: &Block| b.reason.points().unwrap_or(0);
        same.sort_by_key(|b| if code == ErrorCode::SeriesTooLong { usize::MAX - points(b) } else { points(b) });
    }
    let first = same[0];
    let mut err = HoraError::new(code, message(first))
        .with("unique_id", first.unique_id.clone())
        .with("reason", first.reason_name())
        .with("kind", first.kind());
    if let Some(status) = first.status {
        err = err.with("status", status.as_str());
    }
    for (k, v) in first.reason.figures() {
        err = err.with(k, v);
    }
    if length {
        let series: Vec<Value> = same
            .iter()
            .take(LISTED_ENTITIES)
            .map(|b| json!({"unique_id": b.unique_id, "points": b.reason.points().unwrap_or(0)}))
            .collect();
        err = err.with("series", series).with("series_count", same.len());
    }
    err
}

fn message(b: &Block) -> String {
    // The details name the entity in full; the message, cut (an id of megabytes was echoed in
    // the message besides the details' three copies).
    let u = crate::time::quoted(&b.unique_id);
    match &b.reason {
        Reason::TimestampIrregular => format!("stamps of {u} need repair that was not allowed"),
        Reason::SeriesDiscontinuous => format!("{u} has gaps that need repair that was not allowed"),
        // Declined, a masked tail blocks whatever its length: the message must not blame the length.
        Reason::TrailingGapTooLong { count, .. } if b.status == Some(Status::Declined) => {
            let steps = if *count == 1 { "step" } else { "steps" };
            format!("{u} ends with {count} empty {steps} and gap.masked_tail was declined")
        }
        Reason::TrailingGapTooLong { .. } => format!("{u} ends with too many empty steps"),
        // Points after cleaning, or rows under `raw`, which cleans nothing: the figures say which.
        Reason::TooShort { points, min_context } => {
            let points_word = if *points == 1 { "point" } else { "points" };
            format!("{u} has {points} {points_word}, fewer than the minimum context of {min_context}")
        }
        Reason::TooLong { .. } => format!("{u} exceeds the maximum context"),
        Reason::NoNumericValues => format!("{u} has no numeric y"),
        Reason::FreqInferenceFailed { .. } => format!("more than {} % of the stamps of {u} are off the grid", MAX_OFF_GRID_SHARE * 100.0),
        _ => format!("{u} cannot be forecast: {}", b.reason_name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_writes_names_causes_status_and_figures_in_key_order() {
        let b = Block { status: Some(Status::Declined), ..Block::new("a", Reason::TrailingGapTooLong { count: 2, max_steps: 3 }).caused_by(&[DecisionId::MaskedTail]) };
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            r#"{"caused_by":["gap.masked_tail"],"code":"SERIES_DISCONTINUOUS","count":2,"kind":"trailing_gap_too_long","max_steps":3,"reason":"trailing_gap_too_long","status":"declined","unique_id":"a"}"#
        );
        let long = Block::new("b", Reason::TooLong { points: 5000, measured: Measured::Timestamps, max_context: 4096 });
        assert_eq!(
            serde_json::to_string(&long).unwrap(),
            r#"{"code":"SERIES_TOO_LONG","kind":"limit","max_context":4096,"measured":"timestamps","points":5000,"reason":"too_long","unique_id":"b"}"#
        );
    }

    #[test]
    fn one_of_each_reason_has_its_own_name() {
        let mut names: Vec<&str> = Reason::one_of_each().iter().map(|r| r.names().2).collect();
        assert_eq!(names.len(), 13);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 13);
    }

    #[test]
    fn the_reason_decides_the_code() {
        assert_eq!(Block::new("a", Reason::TooFewStamps).code(), ErrorCode::FreqInferenceFailed);
        assert_eq!(Block::new("a", Reason::MissingShareTooHigh { missing_share: 0.4, threshold: 0.35 }).code(), ErrorCode::SeriesDiscontinuous);
        assert_eq!(Block::no_numeric_values("a").code(), ErrorCode::SeriesEmpty);
        assert_eq!(Block::new("a", Reason::TooShort { points: 3, min_context: 16 }).reason.points(), Some(3));
    }
}
