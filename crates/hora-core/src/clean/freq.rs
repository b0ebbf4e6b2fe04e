//! The frequency of a request: as sent, or inferred per entity and agreed across entities.

use serde_json::json;

use super::blocking::{Block, Reason, LISTED_ENTITIES};
use super::options::Resolved;
use super::prepare::Prepared;
use super::stamps::{self, FreqSpec, Zone, MICROS_PER_DAY};
use crate::error::{ErrorCode, HoraError};
use crate::time::{FreqUnit, MICROS_PER_HOUR, MIN_DISTINCT_STAMPS};

#[derive(Debug, Clone)]
pub struct FreqChoice {
    pub spec: FreqSpec,
    /// `freq` as echoed: as sent, or the inferred canonical token.
    pub echo: String,
    pub inferred: Option<String>,
    /// Inference confidence per entity (None when `freq` was sent or the entity has one stamp).
    pub confidence: Vec<Option<f64>>,
}

/// A frequency the request cannot resolve: the error, and the entities it stops as blocking
/// entries (kind `frequency`), made where the cause is known.
#[derive(Debug)]
pub struct FreqFailure {
    pub error: HoraError,
    pub blocks: Vec<Block>,
}

impl FreqFailure {
    /// The same reason for every entity.
    fn all(error: HoraError, prepared: &[Prepared], reason: Reason) -> Self {
        FreqFailure { error, blocks: prepared.iter().map(|p| Block::new(&p.unique_id, reason.clone())).collect() }
    }
}

/// The request's frequency from `prepared`, the entities that have values.
pub fn resolve(sent: Option<&str>, prepared: &[Prepared], zones: &[Zone], res: &Resolved) -> Result<FreqChoice, FreqFailure> {
    let allow_b = res.policy.business_freq;
    let (mut spec, echo, inferred, confidence) = match sent {
        Some(s) => {
            let spec = stamps::parse_freq(s, allow_b).map_err(|e| match e.code {
                ErrorCode::FreqUnsupported if s == "B" => {
                    let v = super::policy::business_freq_version();
                    let e = HoraError { message: format!("B (business days) needs cleaning policy {v} or later"), ..e };
                    FreqFailure::all(e.with("requires_version", v), prepared, Reason::FreqUnsupported)
                }
                // A `freq` that names no frequency stops every entity.
                ErrorCode::FreqUnsupported => FreqFailure::all(e, prepared, Reason::FreqUnsupported),
                _ => FreqFailure { error: e, blocks: Vec::new() },
            })?;
            (spec, s.to_string(), None, vec![None; prepared.len()])
        }
        None => {
            let mut found: Option<FreqSpec> = None;
            // What each entity inferred, for FREQ_AMBIGUOUS (docs/time.md: at most 10 listed).
            let mut entities = Vec::new();
            let mut distinct: Vec<String> = Vec::new();
            let mut confidence = Vec::with_capacity(prepared.len());
            for (p, zone) in prepared.iter().zip(zones) {
                // Too few stamps to show a frequency: such an entity follows the others (it fails
                // later only if its stamps are off their grid).
                if p.ts.len() < MIN_DISTINCT_STAMPS {
                    confidence.push(None);
                    continue;
                }
                let (spec, conf) = stamps::infer_freq(&p.ts, zone, allow_b).map_err(|e| {
                    // This entity's stamps show no frequency, or several.
                    let reason = match e.code {
                        ErrorCode::FreqAmbiguous => Some(Reason::FreqAmbiguous { freq: None }),
                        ErrorCode::FreqInferenceFailed => Some(Reason::FreqInferenceFailed { off_grid: None }),
                        _ => None,
                    };
                    let blocks = reason.map(|r| Block::new(&p.unique_id, r)).into_iter().collect();
                    FreqFailure { error: offsets_hint(e.with("unique_id", p.unique_id.clone()), p, zone.from_option), blocks }
                })?;
                confidence.push(Some(conf));
                if entities.len() < LISTED_ENTITIES {
                    entities.push((p.unique_id.as_str(), spec.canonical.clone()));
                }
                if !distinct.contains(&spec.canonical) {
                    distinct.push(spec.canonical.clone());
                }
                found.get_or_insert(spec);
            }
            if distinct.len() > 1 {
                distinct.sort();
                let listed: Vec<_> = entities.iter().map(|(u, f)| json!({"unique_id": u, "freq": f})).collect();
                let error = HoraError::new(
                    ErrorCode::FreqAmbiguous,
                    format!("entities infer different frequencies ({}); send freq", distinct.join(", ")),
                )
                .with("candidates", distinct)
                .with("entities", listed);
                let blocks = entities.into_iter().map(|(u, f)| Block::new(u, Reason::FreqAmbiguous { freq: Some(f) })).collect();
                return Err(FreqFailure { error, blocks });
            }
            let Some(spec) = found else {
                let error = HoraError::new(ErrorCode::FreqInferenceFailed, "too few stamps to infer a frequency");
                return Err(FreqFailure::all(error, prepared, Reason::TooFewStamps));
            };
            let token = spec.canonical.clone();
            (spec, token.clone(), Some(token), confidence)
        }
    };
    // `business_days: true` turns daily data into business days (weekends are not gaps).
    if res.knobs.business_days && spec.is_one_day() {
        spec = FreqSpec::business_days();
    }
    Ok(FreqChoice { spec, echo, inferred, confidence })
}

/// A frequency error for an entity written with several UTC offsets and no zone to step them in
/// (DST-coded local time, `+01:00` in winter and `+02:00` in summer, with no `options.timezone`,
/// or one they contradict): its days sit at two UTC times. Without a zone option the fix is the
/// zone they were written in; with one (`zone_sent`), some offsets are not that zone's own, and
/// the message and `details.hint` say so.
pub(super) fn offsets_hint(err: HoraError, p: &Prepared, zone_sent: bool) -> HoraError {
    let offsets = &p.parsed.explicit_offsets;
    if offsets.len() < 2 || !p.parsed.zone.is_utc() {
        return err;
    }
    let fix = if zone_sent {
        "and some are not options.timezone's own at their instant, so the zone cannot step them; correct those offsets, or send the stamps without offsets"
    } else {
        "send options.timezone with the zone they were written in, so that days and months step on its wall clock"
    };
    let hint = format!("the stamps of {} carry several UTC offsets ({}); {fix}", crate::time::quoted(&p.unique_id), offsets.join(", "));
    let message = format!("{}; {hint}", err.message);
    HoraError { message, ..err }.with("hint", hint)
}

/// The default seasonal period of a frequency, in steps (docs/cleaning-policy.md).
pub fn default_period(freq: &FreqSpec) -> usize {
    if let Some(step) = freq.nominal_step() {
        let hour = MICROS_PER_HOUR;
        return match step {
            s if s < hour => (hour / s).max(2) as usize,
            s if s < MICROS_PER_DAY => (MICROS_PER_DAY / s).max(2) as usize,
            s if s < 7 * MICROS_PER_DAY => (7 * MICROS_PER_DAY / s).max(2) as usize,
            s => (364 * MICROS_PER_DAY / s).max(2) as usize,
        };
    }
    let base = match freq.freq.unit {
        FreqUnit::BusinessDay => 5,
        FreqUnit::QuarterStart | FreqUnit::QuarterEnd => 4,
        FreqUnit::YearStart | FreqUnit::YearEnd => 1,
        _ => 12,
    };
    (base / freq.freq.n.max(1) as usize).max(2)
}

/// The frequency, inferred from the entities that have values only: the stamps of an entity
/// with no numeric y carry no data (a lone null row would otherwise fail the inference for all).
pub(super) fn resolve_over_valued(sent: Option<&str>, prepared: &[Prepared], zones: &[Zone], res: &Resolved) -> std::result::Result<FreqChoice, FreqFailure> {
    if prepared.iter().all(Prepared::has_values) {
        return resolve(sent, prepared, zones, res);
    }
    let with: Vec<usize> = (0..prepared.len()).filter(|&e| prepared[e].has_values()).collect();
    let some: Vec<Prepared> = with.iter().map(|&e| prepared[e].clone()).collect();
    let their_zones: Vec<Zone> = with.iter().map(|&e| zones[e]).collect();
    let mut choice = resolve(sent, &some, &their_zones, res)?;
    let mut confidence = vec![None; prepared.len()];
    for (k, &e) in with.iter().enumerate() {
        confidence[e] = choice.confidence[k];
    }
    choice.confidence = confidence;
    Ok(choice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_seasonal_period_follows_the_policy_table() {
        let period = |f: &str| default_period(&stamps::parse_freq(f, true).unwrap());
        // docs/cleaning-policy.md, Seasonal period.
        let table = [
            ("15min", 4), ("h", 24), ("2h", 12), ("D", 7), ("W", 52), ("B", 5),
            ("MS", 12), ("3ME", 4), ("M@15", 12), ("QS", 4), ("2QE", 2), ("YS", 2), ("A", 2),
        ];
        for (freq, want) in table {
            assert_eq!(period(freq), want, "{freq}");
        }
    }
}
