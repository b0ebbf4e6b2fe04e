//! Cleaning policy versions as values. The pipeline reads these fields; no code compares version
//! strings. See docs/cleaning-policy.md for the rules each version carries.

use super::notices::Warning;
use crate::choice::Choice;
use crate::nonnegative::Nonnegative;

/// How a version decides that an entity is too damaged to forecast.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BlockingRule {
    /// Deprecated versions: gaps plus nulls reaching `share` of the grid.
    GapsAndNulls { share: f64 },
    /// 2026-13: a recent gap of `recent_gap_periods` seasonal periods or more, or a missing share
    /// of `missing_share` or more (`blocking` `health_critical`).
    Health { recent_gap_periods: f64, missing_share: f64 },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    pub version: &'static str,
    pub deprecated: bool,
    /// `impute_method`, `seasonal_period`, `bounds`, ... are accepted.
    pub knobs: bool,
    /// `B` is accepted, echoed and inferred.
    pub business_freq: bool,
    /// Trailing empty steps kept as a masked tail; `None`: trailing nulls are trimmed.
    pub masked_tail_max: Option<usize>,
    pub blocking: BlockingRule,
    /// `nonnegative` values accepted when knobs are not (2026-10 accepts only the no-op ones).
    pub nonnegative_values: &'static [Nonnegative],
}

pub const DEFAULT_VERSION: &str = "2026-13";

impl Policy {
    /// The warnings the version itself adds to every request cleaned under it.
    pub fn warnings(&self) -> Vec<Warning> {
        if self.deprecated {
            vec![Warning::CleaningVersionDeprecated]
        } else {
            Vec::new()
        }
    }
}

pub const POLICIES: [Policy; 4] = [
    Policy {
        version: "2026-13",
        deprecated: false,
        knobs: true,
        business_freq: true,
        masked_tail_max: Some(3),
        blocking: BlockingRule::Health { recent_gap_periods: 0.75, missing_share: 0.35 },
        nonnegative_values: Nonnegative::ALL,
    },
    Policy {
        version: "2026-12",
        deprecated: true,
        knobs: true,
        business_freq: true,
        masked_tail_max: Some(3),
        blocking: BlockingRule::GapsAndNulls { share: 0.10 },
        nonnegative_values: Nonnegative::ALL,
    },
    Policy {
        version: "2026-11",
        deprecated: true,
        knobs: true,
        business_freq: true,
        masked_tail_max: None,
        blocking: BlockingRule::GapsAndNulls { share: 0.10 },
        nonnegative_values: Nonnegative::ALL,
    },
    Policy {
        version: "2026-10",
        deprecated: true,
        knobs: false,
        business_freq: false,
        masked_tail_max: None,
        blocking: BlockingRule::GapsAndNulls { share: 0.10 },
        nonnegative_values: &[Nonnegative::Auto, Nonnegative::Never],
    },
];

/// The oldest version with `feature` (for `details.requires_version`): the table runs newest
/// first, and a feature, once added, stays. Only asked about features the default version has
/// (a test checks each), so there always is one.
pub fn first_version_with(feature: impl Fn(&Policy) -> bool) -> &'static str {
    POLICIES.iter().rev().find(|p| feature(p)).map_or(DEFAULT_VERSION, |p| p.version)
}

/// The first version that accepts the knobs.
pub fn knobs_version() -> &'static str {
    first_version_with(|p| p.knobs)
}

/// The first version that accepts `B` (business days).
pub fn business_freq_version() -> &'static str {
    first_version_with(|p| p.business_freq)
}

pub fn find(version: &str) -> Option<&'static Policy> {
    POLICIES.iter().find(|p| p.version == version)
}

pub fn versions() -> Vec<&'static str> {
    POLICIES.iter().map(|p| p.version).collect()
}

// The values below hold under every policy version.

/// Implied grid slots over all entities of one request (`POINTS_EXCEEDED`), checked before allocating.
pub const GRID_CAP: u64 = 1_000_000;
/// Affected stamps or ranges listed per decision; `count` always has the full number.
pub const LISTED_MAX: usize = 20;
/// Robust z-score beyond which an observed value is flagged as an outlier.
pub const OUTLIER_Z: f64 = 6.0;
/// Observed values an entity needs before any is judged an outlier.
pub const OUTLIER_MIN_OBSERVED: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_feature_asked_about_has_a_first_version_the_default_also_has() {
        let default = find(DEFAULT_VERSION).unwrap();
        assert!(default.knobs && default.business_freq);
        assert_eq!((knobs_version(), business_freq_version()), ("2026-11", "2026-11"));
        assert!(find(knobs_version()).unwrap().knobs && find(business_freq_version()).unwrap().business_freq);
    }
}
