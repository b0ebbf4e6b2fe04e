//! The model's limits and native quantiles, read from the ONNX metadata: the single source of truth.

use super::calibration::SpreadScale;
use crate::clean::ModelLimits;
use std::collections::HashMap;

/// The model this service serves (`model_used` in every response).
pub const MODEL_NAME: &str = "hora-1.0";

/// Every custom metadata property `from_metadata` reads: the session fetches these by name.
pub const METADATA_KEYS: &[&str] = &[
    "hora.name",
    "hora.quantiles",
    "hora.min_context",
    "hora.max_context",
    "hora.max_horizon",
    "hora.native_horizon",
    "hora.context_multiple",
    "hora.recipe_hash",
    "hora.spread_scale",
];

#[derive(Debug, Clone, PartialEq)]
pub struct ModelSpec {
    pub name: String,
    /// Native quantile levels, ascending; the output's last axis follows this order.
    pub quantiles: Vec<f64>,
    pub min_context: usize,
    pub max_context: usize,
    pub max_horizon: usize,
    /// Steps produced by one run of the graph; longer horizons are rolled forward.
    pub native_horizon: usize,
    /// The time axis fed to the graph is a multiple of this (its patch length).
    pub context_multiple: usize,
    pub recipe_hash: String,
    /// Interval calibration by frequency family (`hora.spread_scale`, optional: none is 1 everywhere).
    pub spread_scale: SpreadScale,
}

impl ModelSpec {
    /// The context limits the cleaning checks lengths against.
    pub fn limits(&self) -> ModelLimits {
        ModelLimits { min_context: self.min_context, max_context: self.max_context }
    }

    /// Reads the `hora.*` metadata properties; names the first missing or malformed one.
    pub fn from_metadata(props: &HashMap<String, String>) -> Result<ModelSpec, String> {
        // ONNX Runtime reads an absent custom property as "": empty counts as missing.
        let get = |k: &str| {
            props.get(k).map(|s| s.trim()).filter(|s| !s.is_empty()).map(str::to_string).ok_or_else(|| format!("metadata property {k} is missing"))
        };
        let int = |k: &str| -> Result<usize, String> {
            get(k)?.parse::<usize>().ok().filter(|v| *v > 0).ok_or_else(|| format!("metadata property {k} is not a positive integer"))
        };
        let quantiles: Vec<f64> = get("hora.quantiles")?
            .split(',')
            .map(|q| q.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| "metadata property hora.quantiles is not a list of numbers".to_string())?;
        let ascending = quantiles.windows(2).all(|w| w[0] < w[1]);
        if quantiles.is_empty() || !ascending || quantiles.iter().any(|q| !(*q > 0.0 && *q < 1.0)) || !quantiles.contains(&0.5) {
            return Err("metadata property hora.quantiles must be ascending levels in (0, 1) including 0.5".into());
        }
        // flip_average pairs quantile k of one run with quantile Q-1-k of the mirrored one, and
        // intervals are keyed by their width: both need q_k + q_(Q-1-k) = 1.
        if quantiles.iter().zip(quantiles.iter().rev()).any(|(lo, hi)| (lo + hi - 1.0).abs() > 1e-9) {
            return Err("metadata property hora.quantiles must be symmetric around 0.5".into());
        }
        let spec = ModelSpec {
            name: get("hora.name")?,
            quantiles,
            min_context: int("hora.min_context")?,
            max_context: int("hora.max_context")?,
            max_horizon: int("hora.max_horizon")?,
            native_horizon: int("hora.native_horizon")?,
            context_multiple: int("hora.context_multiple")?,
            recipe_hash: get("hora.recipe_hash")?,
            spread_scale: SpreadScale::parse(props.get("hora.spread_scale").map_or("", String::as_str))?,
        };
        // The service serves one public model; another file would be answered as hora-1.0.
        if spec.name != MODEL_NAME {
            return Err(format!("metadata property hora.name is {:?}, not {MODEL_NAME:?}", spec.name));
        }
        if spec.min_context > spec.max_context {
            return Err("metadata: hora.min_context exceeds hora.max_context".into());
        }
        Ok(spec)
    }

    /// Index of the median among the native quantiles.
    pub fn median_index(&self) -> usize {
        self.quantiles.iter().position(|q| *q == 0.5).unwrap_or(self.quantiles.len() / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props() -> HashMap<String, String> {
        [
            ("hora.name", "hora-1.0"),
            ("hora.quantiles", "0.01,0.05,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95,0.99"),
            ("hora.min_context", "16"),
            ("hora.max_context", "4096"),
            ("hora.max_horizon", "1024"),
            ("hora.native_horizon", "64"),
            ("hora.context_multiple", "32"),
            ("hora.recipe_hash", "abc"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn the_session_fetches_every_property_the_spec_reads() {
        let mut all = props();
        all.insert("hora.spread_scale".into(), "quarterly=1.35".into());
        let fetched: HashMap<String, String> = all.iter().filter(|(k, _)| METADATA_KEYS.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
        assert_eq!(ModelSpec::from_metadata(&fetched), ModelSpec::from_metadata(&all));
        assert_eq!(fetched.len(), all.len());
    }

    #[test]
    fn metadata_gives_limits_and_native_quantiles() {
        let spec = ModelSpec::from_metadata(&props()).unwrap();
        assert_eq!(spec.quantiles.len(), 13);
        assert_eq!((spec.min_context, spec.max_context, spec.max_horizon), (16, 4096, 1024));
        assert_eq!(spec.median_index(), 6);
    }

    #[test]
    fn a_missing_or_malformed_property_is_named() {
        let mut p = props();
        p.remove("hora.max_horizon");
        assert!(ModelSpec::from_metadata(&p).unwrap_err().contains("hora.max_horizon"));
        let mut p = props();
        p.insert("hora.quantiles".into(), "0.9,0.5".into());
        assert!(ModelSpec::from_metadata(&p).unwrap_err().contains("ascending"));
        // ONNX Runtime returns "" for an absent property: still missing.
        for key in ["hora.name", "hora.recipe_hash", "hora.min_context"] {
            let mut p = props();
            p.insert(key.into(), "".into());
            assert_eq!(ModelSpec::from_metadata(&p).unwrap_err(), format!("metadata property {key} is missing"));
        }
        let mut p = props();
        p.insert("hora.quantiles".into(), "0.02,0.05,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95,0.99".into());
        assert!(ModelSpec::from_metadata(&p).unwrap_err().contains("symmetric"));
        let mut p = props();
        p.insert("hora.name".into(), "other-2".into());
        assert!(ModelSpec::from_metadata(&p).unwrap_err().contains("hora.name"));
        let mut p = props();
        p.insert("hora.spread_scale".into(), "quarterly=wide".into());
        assert!(ModelSpec::from_metadata(&p).unwrap_err().contains("hora.spread_scale"));
    }

    #[test]
    fn quantiles_and_limits_that_serving_cannot_use_are_refused() {
        let refused = |key: &str, value: &str| {
            let mut p = props();
            p.insert(key.into(), value.into());
            ModelSpec::from_metadata(&p).unwrap_err()
        };
        // A repeated level, or none at the median, would break y_hat and the interval pairs.
        assert!(refused("hora.quantiles", "0.1,0.1,0.5,0.9,0.9").contains("ascending"));
        assert!(refused("hora.quantiles", "0.1,0.9").contains("including 0.5"));
        assert_eq!(refused("hora.max_horizon", "0"), "metadata property hora.max_horizon is not a positive integer");
        assert!(refused("hora.min_context", "5000").contains("exceeds hora.max_context"));
    }

    #[test]
    fn spread_scale_is_optional_and_read_when_present() {
        use super::super::calibration::FreqFamily;
        assert_eq!(ModelSpec::from_metadata(&props()).unwrap().spread_scale, SpreadScale::default());
        let mut p = props();
        p.insert("hora.spread_scale".into(), "quarterly=1.35".into());
        let spec = ModelSpec::from_metadata(&p).unwrap();
        assert_eq!(spec.spread_scale.factor(FreqFamily::Quarterly), 1.35);
        assert_eq!(spec.spread_scale.factor(FreqFamily::Hourly), 1.0);
    }
}
