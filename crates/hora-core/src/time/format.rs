//! The timestamp formats of the contract's table, and the day/month order of `D/M/YYYY` and
//! `M/D/YYYY` stamps, which only an entity's rows together can prove.

use super::lex::{Lexed, Shape};
use crate::choice::{one_of, Choice};
use crate::error::{ErrorCode, HoraError};

/// Day/month order of `D/M/YYYY` and `M/D/YYYY` stamps (`options.ds_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayMonthOrder {
    Dmy,
    Mdy,
}

/// `dmy` / `mdy` as in `options.ds_format`.
impl Choice for DayMonthOrder {
    const ALL: &'static [Self] = &[DayMonthOrder::Dmy, DayMonthOrder::Mdy];

    fn as_str(self) -> &'static str {
        match self {
            DayMonthOrder::Dmy => "dmy",
            DayMonthOrder::Mdy => "mdy",
        }
    }
}

/// The timestamp format detected for an entity (the contract's table, one row per variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DsFormat {
    #[default]
    Iso8601,
    CompactDate,
    SlashDate,
    DayMonthYear,
    MonthDayYear,
    UnixSeconds,
    UnixMilliseconds,
    YearMonth,
    YearMonthSlash,
    YearMonthCompact,
    ChineseDate,
    ChineseYearMonth,
}

impl DsFormat {
    /// Stable snake_case name for reports (`timestamp_format` issue).
    pub fn as_str(self) -> &'static str {
        match self {
            DsFormat::Iso8601 => "iso8601",
            DsFormat::CompactDate => "compact_date",
            DsFormat::SlashDate => "slash_date",
            DsFormat::DayMonthYear => "dmy",
            DsFormat::MonthDayYear => "mdy",
            DsFormat::UnixSeconds => "unix_seconds",
            DsFormat::UnixMilliseconds => "unix_milliseconds",
            DsFormat::YearMonth => "year_month",
            DsFormat::YearMonthSlash => "year_month_slash",
            DsFormat::YearMonthCompact => "year_month_compact",
            DsFormat::ChineseDate => "chinese_date",
            DsFormat::ChineseYearMonth => "chinese_year_month",
        }
    }

    /// The day/month order a `D/M/YYYY` or `M/D/YYYY` format stands for.
    pub fn day_month_order(self) -> Option<DayMonthOrder> {
        match self {
            DsFormat::DayMonthYear => Some(DayMonthOrder::Dmy),
            DsFormat::MonthDayYear => Some(DayMonthOrder::Mdy),
            _ => None,
        }
    }

    /// The shape a stamp written in this format lexes to.
    pub(super) fn shape(self) -> Shape {
        match self {
            DsFormat::Iso8601 => Shape::Iso,
            DsFormat::CompactDate => Shape::CompactDate,
            DsFormat::SlashDate => Shape::SlashDate,
            DsFormat::DayMonthYear | DsFormat::MonthDayYear => Shape::DayMonth,
            DsFormat::UnixSeconds => Shape::UnixSeconds,
            DsFormat::UnixMilliseconds => Shape::UnixMillis,
            DsFormat::YearMonth => Shape::YearMonthDash,
            DsFormat::YearMonthSlash => Shape::YearMonthSlash,
            DsFormat::YearMonthCompact => Shape::YearMonthCompact,
            DsFormat::ChineseDate => Shape::ChineseDate,
            DsFormat::ChineseYearMonth => Shape::ChineseYearMonth,
        }
    }

    pub(super) fn of_shape(shape: Shape, order: DayMonthOrder) -> DsFormat {
        match shape {
            Shape::Iso => DsFormat::Iso8601,
            Shape::CompactDate => DsFormat::CompactDate,
            Shape::SlashDate => DsFormat::SlashDate,
            Shape::DayMonth if order == DayMonthOrder::Dmy => DsFormat::DayMonthYear,
            Shape::DayMonth => DsFormat::MonthDayYear,
            Shape::UnixSeconds => DsFormat::UnixSeconds,
            Shape::UnixMillis => DsFormat::UnixMilliseconds,
            Shape::YearMonthDash => DsFormat::YearMonth,
            Shape::YearMonthSlash => DsFormat::YearMonthSlash,
            Shape::YearMonthCompact => DsFormat::YearMonthCompact,
            Shape::ChineseDate => DsFormat::ChineseDate,
            Shape::ChineseYearMonth => DsFormat::ChineseYearMonth,
        }
    }
}

/// The format an entity's history was written in, and the index of its first row in `series`:
/// its future rows are held to that format (one format per entity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenAs {
    pub format: DsFormat,
    pub first_row: u32,
}

/// The body array an entity's stamps were sent in: its errors name rows of that array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StampRows {
    Series,
    FutureCovariates,
}

/// The field a stamp error names: the row's index in the array it was sent in.
pub(super) fn ds_field(rows: StampRows, row: u32) -> String {
    let array = match rows {
        StampRows::Series => "series",
        StampRows::FutureCovariates => "future_covariates",
    };
    format!("{array}[{row}].ds")
}

/// Day/month order: proven by a row whose first number exceeds 12 (dmy) or whose second does
/// (mdy); otherwise `options.ds_format`; otherwise `AMBIGUOUS_DATE_FORMAT`. The option wins when
/// sent; rows impossible under it are the caller's to list ([`month_day`]).
pub(super) fn resolve_order(pending: &[(u32, &str, Lexed)], rows: StampRows, ds_format: Option<DayMonthOrder>) -> Result<DayMonthOrder, HoraError> {
    let dmy_proof = pending.iter().find(|p| p.2.a > 12);
    let mdy_proof = pending.iter().find(|p| p.2.b > 12);
    let order = match (ds_format, dmy_proof, mdy_proof) {
        (Some(o), _, _) => o,
        (None, Some(_), None) => DayMonthOrder::Dmy,
        (None, None, Some(_)) => DayMonthOrder::Mdy,
        (None, Some(a), Some(b)) => {
            let (early, late) = if a.0 < b.0 { (a, b) } else { (b, a) };
            return Err(HoraError::field(
                ds_field(rows, late.0),
                format!("{:?} contradicts the day/month order of {} {:?}", late.1, ds_field(rows, early.0), early.1),
            ));
        }
        (None, None, None) => {
            let (row, s, _) = pending[0];
            return Err(HoraError::new(
                ErrorCode::AmbiguousDateFormat,
                format!(
                    "{} {s:?} and the other rows of its entity may be D/M/YYYY or M/D/YYYY; \
                     send options.ds_format ({}) or use ISO 8601",
                    ds_field(rows, row),
                    one_of(&DayMonthOrder::names())
                ),
            )
            .with("field", ds_field(rows, row))
            .with("allowed", serde_json::json!(DayMonthOrder::names())));
        }
    };
    Ok(order)
}

/// A `D/M/YYYY` or `M/D/YYYY` row's (month, day) under `order`, or why it is no date under it.
pub(super) fn month_day(l: &Lexed, order: DayMonthOrder) -> Result<(u32, u32), &'static str> {
    let (m, d) = if order == DayMonthOrder::Dmy { (l.b, l.a) } else { (l.a, l.b) };
    if m == 0 || m > 12 || d == 0 || d > super::civil::days_in_month(l.year, m) {
        return Err(if order == DayMonthOrder::Dmy { "is not a valid D/M/YYYY date" } else { "is not a valid M/D/YYYY date" });
    }
    Ok((m, d))
}
