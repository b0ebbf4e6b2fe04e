//! Decisions: every data-changing step of the pipeline, recorded, and the consent rules that turn
//! a decision into applied, proposed or declined.

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;

use super::notices::Warning;
use super::options::{Preset, Resolved};
use super::policy::LISTED_MAX;
use super::stamps::format_utc;

/// The `method` of a fill that writes zeros (`structural_zero: true`), beside the impute methods.
pub const STRUCTURAL_ZERO_METHOD: &str = "structural_zero";

/// Decision ids. The contract names `grid.regrid`, `gap.impute` and `gap.masked_tail`; the others
/// are Hora's (docs/cleaning-report.md). An id applies to every entity that carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionId {
    Sort,
    Dedupe,
    DropOffGrid,
    TrimHead,
    TrimTail,
    Regrid,
    Split,
    MaskLongGap,
    Impute,
    MaskedTail,
    ExogImpute,
}

/// Which code a repair that was not applied blocks with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Timestamps,
    Values,
}

impl DecisionId {
    pub const ALL: [DecisionId; 11] = [
        DecisionId::Sort,
        DecisionId::Dedupe,
        DecisionId::DropOffGrid,
        DecisionId::TrimHead,
        DecisionId::TrimTail,
        DecisionId::Regrid,
        DecisionId::Split,
        DecisionId::MaskLongGap,
        DecisionId::Impute,
        DecisionId::MaskedTail,
        DecisionId::ExogImpute,
    ];

    pub fn parse(s: &str) -> Option<DecisionId> {
        Self::ALL.iter().copied().find(|d| d.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DecisionId::Sort => "ds.sort",
            DecisionId::Dedupe => "ds.dedupe",
            DecisionId::DropOffGrid => "grid.drop_off_grid",
            DecisionId::TrimHead => "gap.trim_head",
            DecisionId::TrimTail => "gap.trim_tail",
            DecisionId::Regrid => "grid.regrid",
            DecisionId::Split => "gap.split",
            DecisionId::MaskLongGap => "gap.mask_long",
            DecisionId::Impute => "gap.impute",
            DecisionId::MaskedTail => "gap.masked_tail",
            DecisionId::ExogImpute => "exog.impute",
        }
    }

    /// Every `kind`, each once, in the order of `ALL`.
    pub fn kinds() -> Vec<&'static str> {
        let mut kinds: Vec<&'static str> = Vec::new();
        for kind in DecisionId::ALL.iter().map(|d| d.kind()) {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        kinds
    }

    /// What the decision does to the data.
    pub fn kind(self) -> &'static str {
        match self {
            DecisionId::Sort => "reorder_rows",
            DecisionId::Dedupe | DecisionId::DropOffGrid | DecisionId::TrimHead | DecisionId::TrimTail => "drop_rows",
            DecisionId::Regrid => "insert_slots",
            DecisionId::Split => "drop_history",
            DecisionId::MaskLongGap | DecisionId::MaskedTail => "mask_slots",
            DecisionId::Impute | DecisionId::ExogImpute => "fill_values",
        }
    }

    /// Reversible decisions can be declined: the pipeline can run without them (and then blocks).
    pub fn reversible(self) -> bool {
        matches!(
            self,
            DecisionId::Regrid | DecisionId::Split | DecisionId::MaskLongGap | DecisionId::Impute | DecisionId::MaskedTail
        )
    }

    pub fn family(self) -> Family {
        match self {
            DecisionId::Sort | DecisionId::Dedupe | DecisionId::DropOffGrid => Family::Timestamps,
            _ => Family::Values,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Applied,
    Proposed,
    Declined,
}

impl Status {
    pub const ALL: [Status; 3] = [Status::Applied, Status::Proposed, Status::Declined];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Applied => "applied",
            Status::Proposed => "proposed",
            Status::Declined => "declined",
        }
    }
}

/// One decision about one entity (or one covariate column of it).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub id: DecisionId,
    pub unique_id: String,
    pub status: Status,
    /// Points (rows, slots or values) affected.
    pub count: usize,
    /// First affected stamps (at most `LISTED_MAX`).
    pub stamps: Vec<i64>,
    /// First affected ranges `[from, to]` of consecutive slots (at most `LISTED_MAX`).
    pub ranges: Vec<(i64, i64)>,
    /// An impute method's name, or [`STRUCTURAL_ZERO_METHOD`].
    pub method: Option<&'static str>,
    pub column: Option<String>,
}

impl Decision {
    pub fn new(id: DecisionId, unique_id: &str, count: usize, res: &Resolved) -> Self {
        Decision {
            id,
            unique_id: unique_id.to_string(),
            status: consent(id, res),
            count,
            stamps: Vec::new(),
            ranges: Vec::new(),
            method: None,
            column: None,
        }
    }

    pub fn with_stamps(mut self, stamps: impl IntoIterator<Item = i64>) -> Self {
        self.stamps = stamps.into_iter().take(LISTED_MAX).collect();
        self
    }

    pub fn with_ranges(mut self, ranges: impl IntoIterator<Item = (i64, i64)>) -> Self {
        self.ranges = ranges.into_iter().take(LISTED_MAX).collect();
        self
    }

    pub fn applied(&self) -> bool {
        self.status == Status::Applied
    }
}

/// Whether `decisions` hold a `gap.split`, whatever its status: the gap's length, not consent,
/// exempts an entity from the count of its stamps (docs/decisions.md).
pub fn has_split(decisions: &[Decision]) -> bool {
    decisions.iter().any(|d| d.id == DecisionId::Split)
}

/// A decision record of the report, written straight to JSON with its keys in name order (the
/// order a JSON map writes them in; the report's tests hold the bytes to that).
impl Serialize for Decision {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(c) = &self.column {
            m.serialize_entry("column", c)?;
        }
        m.serialize_entry("count", &self.count)?;
        m.serialize_entry("id", self.id.as_str())?;
        m.serialize_entry("kind", self.id.kind())?;
        if let Some(method) = self.method {
            m.serialize_entry("method", method)?;
        }
        if !self.ranges.is_empty() {
            m.serialize_entry("ranges", &Ranges(&self.ranges))?;
        }
        m.serialize_entry("reversible", &self.id.reversible())?;
        if !self.stamps.is_empty() {
            m.serialize_entry("stamps", &Stamps(&self.stamps))?;
        }
        m.serialize_entry("status", self.status.as_str())?;
        m.serialize_entry("unique_id", &self.unique_id)?;
        m.end()
    }
}

/// UTC instants as RFC 3339 text.
struct Stamps<'a>(&'a [i64]);

impl Serialize for Stamps<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| format_utc(*t)))
    }
}

/// Ranges of UTC instants as `{from, to}`.
struct Ranges<'a>(&'a [(i64, i64)]);

impl Serialize for Ranges<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for (from, to) in self.0 {
            seq.serialize_element(&Range { from: format_utc(*from), to: format_utc(*to) })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct Range {
    from: String,
    to: String,
}

/// The consent rules: `decline` reverts a reversible decision; `strict` and `clean_series: false`
/// propose unless the id is in `accept`; otherwise the decision is applied.
pub fn consent(id: DecisionId, res: &Resolved) -> Status {
    if id.reversible() && res.declined.contains(&id) {
        Status::Declined
    } else if (res.preset == Preset::Strict || !res.clean_series) && !res.accepted.contains(&id) {
        Status::Proposed
    } else {
        Status::Applied
    }
}

/// `accept` and `decline` read once: the decision ids each names (in the order first sent, each
/// once), and, as report warnings rather than refusals (so a caller can replay ids from an older
/// report), the ids that match no decision, that cannot be declined, or that both lists name (the
/// decline wins: reverting is the safer reading of two contrary instructions).
pub fn read_ids(accept: &[String], decline: &[String]) -> (Vec<DecisionId>, Vec<DecisionId>, Vec<Warning>) {
    let mut warnings = Vec::new();
    let mut accepted = Vec::new();
    for id in distinct(accept) {
        match DecisionId::parse(id) {
            Some(d) => accepted.push(d),
            None => warnings.push(Warning::AcceptIdUnknown { id: id.to_string() }),
        }
    }
    let mut declined = Vec::new();
    for id in distinct(decline) {
        match DecisionId::parse(id) {
            Some(d) if d.reversible() => declined.push(d),
            Some(_) => warnings.push(Warning::DeclineNotReversible { id: id.to_string() }),
            None => warnings.push(Warning::DeclineIdUnknown { id: id.to_string() }),
        }
    }
    for id in distinct(accept) {
        if DecisionId::parse(id).is_some_and(|d| declined.contains(&d)) {
            warnings.push(Warning::AcceptIdDeclined { id: id.to_string() });
        }
    }
    (accepted, declined, warnings)
}

/// Ids in the order first sent, each once: a repeated id is the same instruction (as repeated
/// `level` entries are merged), and is reported once if it matches nothing.
fn distinct(ids: &[String]) -> Vec<&str> {
    let mut seen = std::collections::HashSet::new();
    ids.iter().map(String::as_str).filter(|id| seen.insert(*id)).collect()
}

/// Consecutive runs of grid positions as stamp ranges.
pub fn ranges_of(positions: &[(usize, usize)], stamp: impl Fn(usize) -> i64) -> Vec<(i64, i64)> {
    positions.iter().take(LISTED_MAX).map(|&(s, len)| (stamp(s), stamp(s + len - 1))).collect()
}
