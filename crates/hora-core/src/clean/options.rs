//! Cleaning options as TypeScript hands them over (validated body + resolved preset and version),
//! and their check against the policy version.

use serde::Deserialize;
use serde_json::{json, Value};

use super::decisions::{self, DecisionId};
use super::notices::Warning;
use super::policy::{self, Policy};
use super::Purpose;
use crate::choice::Choice;
use crate::error::{ErrorCode, HoraError, Result};
pub use crate::nonnegative::Nonnegative;

/// Options of one cleaning run, with the contract's field names. `preset` and `version` are the
/// effective ones (request, key, org or platform), resolved by the service.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CleanOptions {
    pub timezone: Option<String>,
    pub ds_format: Option<String>,
    pub gap_split_min_steps: Option<u64>,
    pub clean_series: Option<bool>,
    pub clean_exog: Option<bool>,
    pub preset: Option<String>,
    pub version: Option<String>,
    pub accept: Vec<String>,
    pub decline: Vec<String>,
    pub impute_method: Option<String>,
    pub seasonal_period: Option<u32>,
    /// `"auto"`, `true` or `false` (a boolean or its string form).
    pub nonnegative: Option<Value>,
    pub bounds: Option<Bounds>,
    pub structural_zero: Option<bool>,
    pub business_days: Option<bool>,
    pub long_gap: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

/// Model context limits; `None` on `/clean` without `model`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelLimits {
    pub min_context: usize,
    pub max_context: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    Default,
    Strict,
    Raw,
}

impl Preset {
    /// The platform's preset, where neither the request nor a key or org default sets one.
    pub const PLATFORM: Preset = Preset::Default;

    /// Whether the preset cleans the data, and so has a cleaning report (and a `/v1/clean` run):
    /// `raw` sends the data as it is, on the fixed `freq` it needs.
    pub fn cleans(self) -> bool {
        self != Preset::Raw
    }

    /// The presets a run of `purpose` offers: the dry run shows a cleaning report, so only those
    /// that clean; in contract order.
    pub fn offered(purpose: Purpose) -> Vec<&'static str> {
        Preset::ALL.iter().filter(|p| purpose == Purpose::Forecast || p.cleans()).map(|p| p.as_str()).collect()
    }
}

impl Choice for Preset {
    const ALL: &'static [Preset] = &[Preset::Default, Preset::Strict, Preset::Raw];

    fn as_str(self) -> &'static str {
        match self {
            Preset::Default => "default",
            Preset::Strict => "strict",
            Preset::Raw => "raw",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImputeMethod {
    Linear,
    Seasonal,
    Locf,
}

impl Choice for ImputeMethod {
    const ALL: &'static [ImputeMethod] = &[ImputeMethod::Linear, ImputeMethod::Seasonal, ImputeMethod::Locf];

    fn as_str(self) -> &'static str {
        match self {
            ImputeMethod::Linear => "linear",
            ImputeMethod::Seasonal => "seasonal",
            ImputeMethod::Locf => "locf",
        }
    }
}

/// `long_gap`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongGap {
    /// A long gap stays in the context as masked steps.
    Mask,
}

impl Choice for LongGap {
    const ALL: &'static [LongGap] = &[LongGap::Mask];

    fn as_str(self) -> &'static str {
        match self {
            LongGap::Mask => "mask",
        }
    }
}

/// `seasonal_period`, in grid steps.
pub const SEASONAL_PERIOD_MIN: u32 = 2;
pub const SEASONAL_PERIOD_MAX: u32 = 10_000;
/// `accept` and `decline`: at most this many decision ids, each at most this many characters.
pub const MAX_DECISION_IDS: usize = 200;
pub const MAX_DECISION_ID_CHARS: usize = 200;
const BOUNDS_ORDER: &str = "must have lower at most upper";
const BOUNDS_BELOW_NONNEGATIVE: &str = "must have upper at least 0 when nonnegative is true";
const BOUNDS_WITHOUT_ZERO: &str = "must include 0 when structural_zero is true: the slots it fills are zeros";

/// What is wrong with `bounds` of `lower` and `upper` under `nonnegative` and `structural_zero`,
/// if anything: lower above upper (or either not finite), upper below 0 while `nonnegative` is
/// `true`, or 0 outside the bounds while `structural_zero` is true (no filled value could satisfy
/// both; `auto`'s inference gives way to such bounds, but an explicit `true` is the caller's own
/// word too: neither can win silently). The service asks it at validation step 3, the cleaning's
/// own check of the knobs at step 5.
pub fn bounds_fault(lower: f64, upper: f64, nonnegative: Option<Nonnegative>, structural_zero: bool) -> Option<&'static str> {
    if !(lower.is_finite() && upper.is_finite() && lower <= upper) {
        Some(BOUNDS_ORDER)
    } else if nonnegative == Some(Nonnegative::Always) && upper < 0.0 {
        Some(BOUNDS_BELOW_NONNEGATIVE)
    } else if structural_zero && !(lower <= 0.0 && 0.0 <= upper) {
        Some(BOUNDS_WITHOUT_ZERO)
    } else {
        None
    }
}

/// The knobs after checking, with their defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Knobs {
    pub impute: ImputeMethod,
    pub seasonal_period: Option<usize>,
    pub nonnegative: Nonnegative,
    pub bounds: Option<Bounds>,
    pub structural_zero: bool,
    pub business_days: bool,
    pub long_gap_mask: bool,
}

/// Everything the pipeline reads, checked once.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub preset: Preset,
    pub policy: &'static Policy,
    pub clean_series: bool,
    pub clean_exog: bool,
    pub gap_split_min_steps: Option<u64>,
    pub knobs: Knobs,
    /// The decision ids `accept` names.
    pub accepted: Vec<DecisionId>,
    /// The reversible decision ids `decline` names.
    pub declined: Vec<DecisionId>,
    /// `accept`/`decline` ids that name no decision, or one that cannot be declined.
    pub unmatched: Vec<Warning>,
}

impl Resolved {
    pub fn policy_id(&self) -> String {
        format!("{}@{}", self.preset.as_str(), self.policy.version)
    }
}

/// The cleaning parameters ("knobs") that policy 2026-11 introduced, named as their fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    ImputeMethod,
    SeasonalPeriod,
    Nonnegative,
    Bounds,
    StructuralZero,
    BusinessDays,
    LongGap,
}

/// The field name, in contract order.
impl Choice for Knob {
    const ALL: &'static [Knob] =
        &[Knob::ImputeMethod, Knob::SeasonalPeriod, Knob::Nonnegative, Knob::Bounds, Knob::StructuralZero, Knob::BusinessDays, Knob::LongGap];

    fn as_str(self) -> &'static str {
        match self {
            Knob::ImputeMethod => "impute_method",
            Knob::SeasonalPeriod => "seasonal_period",
            Knob::Nonnegative => "nonnegative",
            Knob::Bounds => "bounds",
            Knob::StructuralZero => "structural_zero",
            Knob::BusinessDays => "business_days",
            Knob::LongGap => "long_gap",
        }
    }
}

impl Knob {
    fn sent(self, o: &CleanOptions) -> bool {
        match self {
            Knob::ImputeMethod => o.impute_method.is_some(),
            Knob::SeasonalPeriod => o.seasonal_period.is_some(),
            Knob::Nonnegative => o.nonnegative.is_some(),
            Knob::Bounds => o.bounds.is_some(),
            Knob::StructuralZero => o.structural_zero.is_some(),
            Knob::BusinessDays => o.business_days.is_some(),
            Knob::LongGap => o.long_gap.is_some(),
        }
    }
}

/// `options.gap_split_min_steps`, named as the raw preset's refusal lists it.
const GAP_SPLIT: &str = "gap_split_min_steps";

/// `field` is a key of `options.cleaning`, or the split threshold beside it under `options`.
fn unsupported(field: &str, message: String) -> HoraError {
    let path = if field == GAP_SPLIT { format!("options.{field}") } else { format!("options.cleaning.{field}") };
    HoraError::new(ErrorCode::CleaningOptionUnsupported, message).with("field", path)
}

impl CleanOptions {
    /// Knobs present in the request, in contract order.
    fn knobs_sent(&self) -> Vec<Knob> {
        Knob::ALL.iter().copied().filter(|k| k.sent(self)).collect()
    }

    /// Checks preset, version and knobs; errors are the contract's 422 codes.
    pub fn resolve(&self) -> Result<Resolved> {
        self.resolve_for(Purpose::Forecast)
    }

    /// [`CleanOptions::resolve`] for a run of `purpose`: an unknown preset's `allowed` lists the
    /// presets that run offers.
    pub fn resolve_for(&self, purpose: Purpose) -> Result<Resolved> {
        let preset = self.preset.as_deref().unwrap_or(Preset::PLATFORM.as_str());
        let preset = Preset::parse(preset).ok_or_else(|| {
            unsupported("preset", format!("unknown cleaning preset {}", crate::time::quoted(preset)))
                .with("allowed", json!(Preset::offered(purpose)))
        })?;
        let version = self.version.as_deref().unwrap_or(policy::DEFAULT_VERSION);
        let policy = policy::find(version).ok_or_else(|| {
            unsupported("version", format!("unknown cleaning policy version {}", crate::time::quoted(version)))
                .with("allowed", json!(policy::versions()))
        })?;
        let knobs = self.knobs_sent();
        if preset == Preset::Raw {
            let mut refused: Vec<&str> = Vec::new();
            if !self.accept.is_empty() {
                refused.push("accept");
            }
            if !self.decline.is_empty() {
                refused.push("decline");
            }
            refused.extend(knobs.iter().map(|k| k.as_str()));
            // The split threshold sits under `options`, beside `options.cleaning`, but it is a
            // cleaning parameter as much as the knobs: raw never splits, so it would be ignored.
            if self.gap_split_min_steps.is_some() {
                refused.push(GAP_SPLIT);
            }
            if let Some(first) = refused.first() {
                return Err(unsupported(first, "the raw preset skips cleaning and takes no cleaning parameters".into())
                    .with("options", json!(refused))
                    .with("supported", json!([])));
            }
        }
        let nonnegative = self.nonnegative_value()?;
        if !policy.knobs {
            if let Some(v) = nonnegative.filter(|v| !policy.nonnegative_values.contains(v)).map(Nonnegative::as_str) {
                let supported: Vec<&str> = policy.nonnegative_values.iter().map(|n| n.as_str()).collect();
                return Err(unsupported("nonnegative", format!("nonnegative '{v}' is not supported under {version}"))
                    .with("options", json!([v]))
                    .with("supported", json!(supported))
                    .with("requires_version", policy::knobs_version()));
            }
            // 2026-10 takes `nonnegative` (its no-op values, above) and no other knob.
            if let Some(first) = knobs.iter().find(|k| **k != Knob::Nonnegative).map(|k| k.as_str()) {
                return Err(unsupported(first, format!("'{first}' requires cleaning policy {} or later", policy::knobs_version()))
                    .with("requires_version", policy::knobs_version()));
            }
        }
        for (field, ids) in [("accept", &self.accept), ("decline", &self.decline)] {
            if ids.len() > MAX_DECISION_IDS || ids.iter().any(|id| id.chars().count() > MAX_DECISION_ID_CHARS) {
                return Err(HoraError::field(
                    format!("options.cleaning.{field}"),
                    format!("must hold at most {MAX_DECISION_IDS} ids, each at most {MAX_DECISION_ID_CHARS} characters"),
                ));
            }
        }
        let (accepted, declined, unmatched) = decisions::read_ids(&self.accept, &self.decline);
        Ok(Resolved {
            preset,
            policy,
            clean_series: self.clean_series.unwrap_or(true),
            clean_exog: self.clean_exog.unwrap_or(true),
            gap_split_min_steps: self.gap_split_min_steps,
            knobs: self.knobs(nonnegative)?,
            accepted,
            declined,
            unmatched,
        })
    }

    /// A boolean is read as its string form.
    fn nonnegative_value(&self) -> Result<Option<Nonnegative>> {
        let text = match &self.nonnegative {
            None => return Ok(None),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        Nonnegative::read("options.cleaning.nonnegative", &text).map(Some)
    }

    fn knobs(&self, nonnegative: Option<Nonnegative>) -> Result<Knobs> {
        let impute = match self.impute_method.as_deref() {
            None => ImputeMethod::Linear,
            Some(m) => ImputeMethod::read("options.cleaning.impute_method", m)?,
        };
        if let Some(p) = self.seasonal_period {
            if !(SEASONAL_PERIOD_MIN..=SEASONAL_PERIOD_MAX).contains(&p) {
                return Err(HoraError::field(
                    "options.cleaning.seasonal_period",
                    format!("must be an integer from {SEASONAL_PERIOD_MIN} to {SEASONAL_PERIOD_MAX}"),
                ));
            }
        }
        if let Some(b) = self.bounds {
            // The contract: "an object with numeric lower and upper" (both; the schema requires them).
            let fault = match (b.lower, b.upper) {
                (Some(lower), Some(upper)) => bounds_fault(lower, upper, nonnegative, self.structural_zero == Some(true)),
                _ => Some(BOUNDS_ORDER),
            };
            if let Some(fault) = fault {
                return Err(HoraError::field("options.cleaning.bounds", fault));
            }
        }
        let long_gap = self.long_gap.as_deref().map(|v| LongGap::read("options.cleaning.long_gap", v)).transpose()?;
        Ok(Knobs {
            impute,
            seasonal_period: self.seasonal_period.map(|p| p as usize),
            nonnegative: nonnegative.unwrap_or(Nonnegative::Auto),
            bounds: self.bounds,
            structural_zero: self.structural_zero.unwrap_or(false),
            business_days: self.business_days.unwrap_or(false),
            long_gap_mask: long_gap == Some(LongGap::Mask),
        })
    }
}

