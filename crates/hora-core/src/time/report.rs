//! What the time engine hands to the cleaning report, and the one check across entities.

use serde_json::{json, Value};

use super::entity::ParsedStamps;
use super::infer::InferredFreq;
use crate::error::{ErrorCode, HoraError};

/// At most this many entities are listed in a `FREQ_AMBIGUOUS` error.
const MAX_LISTED: usize = 10;

impl ParsedStamps {
    /// `cleaning_report.series[].timezone`: `used`, `source`, `naive_rows`, `explicit_rows`,
    /// `explicit_offsets`.
    pub fn timezone_report(&self) -> Value {
        json!({
            "used": self.zone.name(),
            "source": self.source.as_str(),
            "naive_rows": self.naive_rows,
            "explicit_rows": self.explicit_rows,
            "explicit_offsets": self.explicit_offsets,
        })
    }
}

/// The request's frequency when `freq` was omitted: every entity must infer the same one
/// (the same grid token), else `FREQ_AMBIGUOUS` listing what each entity inferred. The
/// confidence returned is the lowest of the entities'.
pub fn agree_on_freq(per_entity: &[(&str, InferredFreq)]) -> Result<InferredFreq, HoraError> {
    let Some(&(_, first)) = per_entity.first() else {
        return Err(HoraError::new(ErrorCode::FreqInferenceFailed, "no entity to infer a frequency from"));
    };
    if per_entity.iter().all(|(_, f)| f.freq == first.freq) {
        let confidence = per_entity.iter().map(|(_, f)| f.confidence).fold(1.0, f64::min);
        return Ok(InferredFreq { freq: first.freq, confidence });
    }
    let listed: Vec<Value> = per_entity
        .iter()
        .take(MAX_LISTED)
        .map(|(id, f)| json!({ "unique_id": id, "freq": f.freq.canonical() }))
        .collect();
    let mut distinct: Vec<String> = per_entity.iter().map(|(_, f)| f.freq.canonical()).collect();
    distinct.sort();
    distinct.dedup();
    Err(HoraError::new(
        ErrorCode::FreqAmbiguous,
        format!("entities infer different frequencies ({}); send freq", distinct.join(", ")),
    )
    .with("candidates", distinct)
    .with("entities", listed))
}
