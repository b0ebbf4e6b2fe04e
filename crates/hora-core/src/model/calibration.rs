//! Interval calibration by frequency family: how far each family's quantiles are spread about
//! the median, as measured on real series outside the evaluation sets (`model/realcheck.py`,
//! written to the file's `hora.spread_scale` metadata). A family the evidence did not move keeps
//! the spreads the model gives.

use crate::time::{Freq, MICROS_PER_DAY};

/// Grids grouped by their step, as the calibration data is grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreqFamily {
    /// Any step under a day.
    Hourly,
    /// One to six days, and business days.
    Daily,
    /// One to three weeks.
    Weekly,
    /// Four weeks to two months.
    Monthly,
    /// Three to eleven months.
    Quarterly,
    /// A year or more.
    Yearly,
}

const FAMILIES: [FreqFamily; 6] =
    [FreqFamily::Hourly, FreqFamily::Daily, FreqFamily::Weekly, FreqFamily::Monthly, FreqFamily::Quarterly, FreqFamily::Yearly];

impl FreqFamily {
    pub fn of(freq: &Freq) -> FreqFamily {
        // By the step's length, not its unit: `2160h` is the 90 days `90D` is.
        if freq.fixed_step_micros().is_some_and(|m| m < MICROS_PER_DAY) {
            return FreqFamily::Hourly;
        }
        if let Some(months) = freq.months() {
            return match months {
                ..=2 => FreqFamily::Monthly,
                3..=11 => FreqFamily::Quarterly,
                _ => FreqFamily::Yearly,
            };
        }
        // Days and weeks by their nominal length; business days have none and count as one day.
        match freq.fixed_step_micros().map_or(1, |m| m / MICROS_PER_DAY) {
            ..=6 => FreqFamily::Daily,
            7..=27 => FreqFamily::Weekly,
            28..=83 => FreqFamily::Monthly,
            84..=359 => FreqFamily::Quarterly,
            _ => FreqFamily::Yearly,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FreqFamily::Hourly => "hourly",
            FreqFamily::Daily => "daily",
            FreqFamily::Weekly => "weekly",
            FreqFamily::Monthly => "monthly",
            FreqFamily::Quarterly => "quarterly",
            FreqFamily::Yearly => "yearly",
        }
    }

    fn index(self) -> usize {
        FAMILIES.iter().position(|f| *f == self).unwrap_or(0)
    }
}

/// Factor on every quantile's distance from the median, per family (1 = as the model gives it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpreadScale([f64; 6]);

/// Bounds of a factor the metadata may carry: anything outside is a broken file, not a calibration.
const FACTOR_MIN: f64 = 0.25;
const FACTOR_MAX: f64 = 4.0;

impl Default for SpreadScale {
    fn default() -> Self {
        SpreadScale([1.0; 6])
    }
}

impl SpreadScale {
    /// Reads `family=factor` pairs separated by commas (`quarterly=1.35`); empty means none.
    pub fn parse(text: &str) -> Result<SpreadScale, String> {
        let mut scale = SpreadScale::default();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let malformed = || format!("metadata property hora.spread_scale has a malformed entry {pair:?}");
            let (name, value) = pair.split_once('=').ok_or_else(malformed)?;
            let family = FAMILIES.iter().find(|f| f.name() == name.trim()).ok_or_else(malformed)?;
            let factor = value.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(malformed)?;
            if !(FACTOR_MIN..=FACTOR_MAX).contains(&factor) {
                return Err(format!("metadata property hora.spread_scale gives {name} a factor outside {FACTOR_MIN} to {FACTOR_MAX}"));
            }
            scale.0[family.index()] = factor;
        }
        Ok(scale)
    }

    pub fn factor(&self, family: FreqFamily) -> f64 {
        self.0[family.index()]
    }

    /// Every family's name with its factor.
    pub fn by_name(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        FAMILIES.iter().map(|f| (f.name(), self.factor(*f)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family(token: &str) -> FreqFamily {
        FreqFamily::of(&Freq::parse(token, true).unwrap())
    }

    #[test]
    fn grids_fall_in_the_family_of_their_step() {
        for (token, want) in [
            ("30min", FreqFamily::Hourly),
            ("h", FreqFamily::Hourly),
            ("12h", FreqFamily::Hourly),
            ("D", FreqFamily::Daily),
            ("B", FreqFamily::Daily),
            ("W", FreqFamily::Weekly),
            ("7D", FreqFamily::Weekly),
            ("2W", FreqFamily::Weekly),
            ("4W", FreqFamily::Monthly),
            ("MS", FreqFamily::Monthly),
            ("2ME", FreqFamily::Monthly),
            ("QS", FreqFamily::Quarterly),
            ("3MS", FreqFamily::Quarterly),
            ("QE", FreqFamily::Quarterly),
            ("6MS", FreqFamily::Quarterly),
            ("YS", FreqFamily::Yearly),
            ("12MS", FreqFamily::Yearly),
            ("2YE", FreqFamily::Yearly),
            // Sub-daily units whose step is a day or more fall by the step's length.
            ("24h", FreqFamily::Daily),
            ("1440min", FreqFamily::Daily),
            ("168h", FreqFamily::Weekly),
            ("2160h", FreqFamily::Quarterly),
            ("129600min", FreqFamily::Quarterly),
            ("90D", FreqFamily::Quarterly),
            ("8760h", FreqFamily::Yearly),
            ("86399s", FreqFamily::Hourly),
        ] {
            assert_eq!(family(token), want, "{token}");
        }
    }

    #[test]
    fn spread_scale_reads_named_families_and_defaults_the_rest_to_one() {
        let s = SpreadScale::parse("quarterly=1.35, hourly = 0.9").unwrap();
        assert_eq!(s.factor(FreqFamily::Quarterly), 1.35);
        assert_eq!(s.factor(FreqFamily::Hourly), 0.9);
        assert_eq!(s.factor(FreqFamily::Weekly), 1.0);
        assert_eq!(SpreadScale::parse("").unwrap(), SpreadScale::default());
    }

    #[test]
    fn a_malformed_or_extreme_spread_scale_is_named() {
        for bad in ["quarterly", "fortnightly=1.1", "quarterly=wide", "quarterly=NaN"] {
            assert!(SpreadScale::parse(bad).unwrap_err().contains("malformed"), "{bad}");
        }
        assert!(SpreadScale::parse("quarterly=9").unwrap_err().contains("outside"));
    }
}
