//! Frequency strings: the contract's tokens, case-sensitive, with integer multiples.

use super::civil::{MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_MINUTE, MICROS_PER_SECOND};
use crate::error::{ErrorCode, HoraError};

/// The unit of a frequency; `n` in `Freq` multiplies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FreqUnit {
    Second,
    Minute,
    Hour,
    Day,
    Week,
    MonthStart,
    MonthEnd,
    /// Fixed day of each month (1 to 31); days beyond a month's length fall on its last day.
    MonthDay(u8),
    QuarterStart,
    QuarterEnd,
    YearStart,
    YearEnd,
    /// Monday to Friday; never with a multiple.
    BusinessDay,
}

/// A parsed `freq`: `n` times `unit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Freq {
    pub n: u32,
    pub unit: FreqUnit,
}

/// Largest multiple accepted; keeps every step computation far from overflow.
pub const MAX_MULTIPLE: u32 = 1_000_000;

/// Digits a multiple is written in at most, leading zeros included: every entity's report entry
/// echoes `freq` as sent, so a multiple of a million leading zeros made an answer of entities x
/// a megabyte.
const MAX_MULTIPLE_DIGITS: usize = MAX_MULTIPLE.ilog10() as usize + 1;

fn unsupported(s: &str, why: &str) -> HoraError {
    HoraError::new(ErrorCode::FreqUnsupported, format!("freq {} is not supported: {why}", super::quoted(s))).with("freq", s)
}

impl Freq {
    pub fn new(n: u32, unit: FreqUnit) -> Freq {
        Freq { n, unit }
    }

    /// Parses a `freq` string. `allow_business` is true from cleaning policy 2026-11 on (and
    /// false under the `raw` preset); the caller decides, this module holds no policy.
    pub fn parse(s: &str, allow_business: bool) -> Result<Freq, HoraError> {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let (num, token) = s.split_at(digits);
        let n = if num.is_empty() {
            1
        } else {
            match num.parse::<u32>() {
                Ok(v) if (1..=MAX_MULTIPLE).contains(&v) && digits <= MAX_MULTIPLE_DIGITS => v,
                _ => return Err(unsupported(s, &format!("the multiple must be an integer from 1 to {MAX_MULTIPLE}, in at most {MAX_MULTIPLE_DIGITS} digits"))),
            }
        };
        let unit = match token {
            "s" | "S" => FreqUnit::Second,
            "min" | "T" | "m" => FreqUnit::Minute,
            "h" | "H" => FreqUnit::Hour,
            "d" | "D" => FreqUnit::Day,
            "w" | "W" => FreqUnit::Week,
            "MS" => FreqUnit::MonthStart,
            "ME" | "M" => FreqUnit::MonthEnd,
            "QS" => FreqUnit::QuarterStart,
            "QE" | "Q" => FreqUnit::QuarterEnd,
            "YS" | "AS" => FreqUnit::YearStart,
            "YE" | "Y" | "A" => FreqUnit::YearEnd,
            "B" => {
                if !allow_business {
                    // The cleaning stage, which knows the policy table, adds the version B needs.
                    return Err(unsupported(s, "B (business days) is not accepted by this cleaning policy or by the raw preset"));
                }
                if !num.is_empty() {
                    return Err(unsupported(s, "B takes no multiple"));
                }
                FreqUnit::BusinessDay
            }
            _ => match token.strip_prefix("M@") {
                Some(day) => FreqUnit::MonthDay(
                    parse_day(day).ok_or_else(|| unsupported(s, "M@<day> needs a day from 1 to 31"))?,
                ),
                None => return Err(unsupported(s, "unknown token (case-sensitive; see the contract's freq table)")),
            },
        };
        Ok(Freq { n, unit })
    }

    /// The canonical token echoed for an inferred frequency (`min`, `h`, `d`, `w`, `MS`, `QE`,
    /// `M@15`, `15min`, ...).
    pub fn canonical(&self) -> String {
        let token = match self.unit {
            FreqUnit::Second => "s".to_string(),
            FreqUnit::Minute => "min".to_string(),
            FreqUnit::Hour => "h".to_string(),
            FreqUnit::Day => "d".to_string(),
            FreqUnit::Week => "w".to_string(),
            FreqUnit::MonthStart => "MS".to_string(),
            FreqUnit::MonthEnd => "ME".to_string(),
            FreqUnit::MonthDay(d) => format!("M@{d}"),
            FreqUnit::QuarterStart => "QS".to_string(),
            FreqUnit::QuarterEnd => "QE".to_string(),
            FreqUnit::YearStart => "YS".to_string(),
            FreqUnit::YearEnd => "YE".to_string(),
            FreqUnit::BusinessDay => "B".to_string(),
        };
        if self.n == 1 {
            token
        } else {
            format!("{}{token}", self.n)
        }
    }

    /// `s`, `min`, `h`, `D`, `W` and their multiples: the steps the `raw` preset accepts.
    pub fn is_fixed(&self) -> bool {
        self.unit_micros().is_some()
    }

    /// Nominal length of one step. Days and weeks are 24 h and 7 x 24 h (exact in UTC and in
    /// fixed-offset data; `step` moves them on the zone's calendar so local midnight survives DST).
    pub fn fixed_step_micros(&self) -> Option<i64> {
        self.unit_micros().map(|u| u * i64::from(self.n))
    }

    /// Steps of `s`, `min`, `h`: exact durations on UTC instants, whatever the zone.
    pub fn is_sub_daily(&self) -> bool {
        matches!(self.unit, FreqUnit::Second | FreqUnit::Minute | FreqUnit::Hour)
    }

    /// Months per step for month, quarter and year frequencies.
    pub fn months(&self) -> Option<i64> {
        let per = match self.unit {
            FreqUnit::MonthStart | FreqUnit::MonthEnd | FreqUnit::MonthDay(_) => 1,
            FreqUnit::QuarterStart | FreqUnit::QuarterEnd => 3,
            FreqUnit::YearStart | FreqUnit::YearEnd => 12,
            _ => return None,
        };
        Some(per * i64::from(self.n))
    }

    fn unit_micros(&self) -> Option<i64> {
        Some(match self.unit {
            FreqUnit::Second => MICROS_PER_SECOND,
            FreqUnit::Minute => MICROS_PER_MINUTE,
            FreqUnit::Hour => MICROS_PER_HOUR,
            FreqUnit::Day => MICROS_PER_DAY,
            FreqUnit::Week => 7 * MICROS_PER_DAY,
            _ => return None,
        })
    }
}

fn parse_day(s: &str) -> Option<u8> {
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let d: u8 = s.parse().ok()?;
    (1..=31).contains(&d).then_some(d)
}
