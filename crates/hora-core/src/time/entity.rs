//! Parsing one entity's `ds` column: one format per entity, day/month order proven from the data,
//! naive stamps read in the zone, explicit offsets always winning.

use chrono_tz::Tz;

use super::lex::{lex, Lexed, Shape};
use super::zone::{LocalKind, WallConverter};
use super::Micros;
use crate::error::{ErrorCode, HoraError};
use crate::ingest::RowTable;

/// Day/month order of `D/M/YYYY` and `M/D/YYYY` stamps (`options.ds_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayMonthOrder {
    Dmy,
    Mdy,
}

impl DayMonthOrder {
    /// `dmy` / `mdy` as in `options.ds_format`.
    pub fn parse(s: &str) -> Option<DayMonthOrder> {
        match s {
            "dmy" => Some(DayMonthOrder::Dmy),
            "mdy" => Some(DayMonthOrder::Mdy),
            _ => None,
        }
    }
}

/// The timestamp format detected for an entity (the contract's table, one row per variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DsFormat {
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
    pub fn is_iso(self) -> bool {
        self == DsFormat::Iso8601
    }

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

    fn of_shape(shape: Shape, order: DayMonthOrder) -> DsFormat {
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

/// Where the zone of an entity's naive stamps came from (`cleaning_report.series[].timezone.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneSource {
    /// Every row carries an offset (or is Unix time).
    ExplicitOffset,
    Option,
    DefaultUtc,
}

impl ZoneSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneSource::ExplicitOffset => "explicit_offset",
            ZoneSource::Option => "option",
            ZoneSource::DefaultUtc => "default_utc",
        }
    }
}

/// One entity's stamps as instants, plus what the cleaning report needs to say about them.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedStamps {
    /// Instants in the order of `table.entity_rows(e)`.
    pub instants: Vec<Micros>,
    pub format: DsFormat,
    /// Zone used for naive stamps and calendar stepping (`options.timezone`, else UTC).
    pub zone: Tz,
    pub source: ZoneSource,
    pub naive_rows: usize,
    /// Rows with `Z` / `±HH:MM`, and Unix-time rows (absolute instants, shown as `+00:00`).
    pub explicit_rows: usize,
    /// Distinct offsets as `±HH:MM` (`Z` shows as `+00:00`), in first-seen order.
    pub explicit_offsets: Vec<String>,
    /// Naive rows whose local time was skipped by a DST change (shifted forward by the gap).
    pub skipped_local_rows: usize,
    /// Naive rows whose local time was repeated by a DST change (earlier instant taken).
    pub repeated_local_rows: usize,
}

impl ParsedStamps {
    /// Naive stamps read as UTC because no zone was given (`naive_timestamps_assumed_utc`).
    pub fn naive_assumed_utc(&self) -> bool {
        self.source == ZoneSource::DefaultUtc
    }
}

fn ds_field(row: u32) -> String {
    format!("series[{row}].ds")
}

/// Parses the `ds` of entity `e`. `zone` is `options.timezone` (already looked up), `ds_format`
/// is `options.ds_format`. Errors name the global row index.
pub fn parse_entity(
    table: &RowTable,
    e: usize,
    zone: Option<Tz>,
    ds_format: Option<DayMonthOrder>,
) -> Result<ParsedStamps, HoraError> {
    let rows = table.entity_rows(e);
    let mut lexed = Vec::with_capacity(rows.len());
    let mut shape = None;
    for &row in rows {
        let s = table.ds.get(row as usize);
        let l = lex(s).map_err(|why| HoraError::field(ds_field(row), format!("series[{row}].ds {s:?} {why}")))?;
        match shape {
            None => shape = Some((l.shape, row)),
            Some((first, first_row)) if first != l.shape => {
                return Err(HoraError::field(
                    ds_field(row),
                    format!(
                        "series[{row}].ds {s:?} is written in another format than series[{first_row}].ds; \
                         one timestamp format per entity"
                    ),
                ));
            }
            Some(_) => {}
        }
        lexed.push(l);
    }
    let Some((shape, _)) = shape else {
        return Err(HoraError::new(ErrorCode::SeriesEmpty, "entity has no rows"));
    };
    let order =
        if shape == Shape::DayMonth { resolve_order(table, rows, &lexed, ds_format)? } else { DayMonthOrder::Dmy };
    let used = zone.unwrap_or(Tz::UTC);
    let mut conv = WallConverter::new(used);
    let mut out = ParsedStamps {
        instants: Vec::with_capacity(rows.len()),
        format: DsFormat::of_shape(shape, order),
        zone: used,
        source: ZoneSource::ExplicitOffset,
        naive_rows: 0,
        explicit_rows: 0,
        explicit_offsets: Vec::new(),
        skipped_local_rows: 0,
        repeated_local_rows: 0,
    };
    let mut last_offset = None;
    for l in &lexed {
        let t = instant_of(l, order, &mut conv, &mut out);
        if let Some(off) = l.offset {
            out.explicit_rows += 1;
            if last_offset != Some(off) {
                last_offset = Some(off);
                let text = format_offset(off);
                if !out.explicit_offsets.contains(&text) {
                    out.explicit_offsets.push(text);
                }
            }
        }
        out.instants.push(t);
    }
    if out.naive_rows > 0 {
        out.source = if zone.is_some() { ZoneSource::Option } else { ZoneSource::DefaultUtc };
    }
    Ok(out)
}

fn instant_of(l: &Lexed, order: DayMonthOrder, conv: &mut WallConverter, out: &mut ParsedStamps) -> Micros {
    if matches!(l.shape, Shape::UnixSeconds | Shape::UnixMillis) {
        return l.unix;
    }
    let (m, d) = match (l.shape, order) {
        (Shape::DayMonth, DayMonthOrder::Dmy) => (l.b, l.a),
        _ => (l.a, l.b),
    };
    let wall = l.wall_micros(m, d);
    match l.offset {
        Some(off) => wall - i64::from(off) * 1_000_000,
        None => {
            out.naive_rows += 1;
            let (t, kind) = conv.convert(wall);
            match kind {
                LocalKind::Unique => {}
                LocalKind::Skipped => out.skipped_local_rows += 1,
                LocalKind::Repeated => out.repeated_local_rows += 1,
            }
            t
        }
    }
}

/// Day/month order: proven by a row whose first number exceeds 12 (dmy) or whose second does
/// (mdy); otherwise `options.ds_format`; otherwise `AMBIGUOUS_DATE_FORMAT`. The option wins when
/// sent, and rows impossible under it are a 422 naming the row.
fn resolve_order(
    table: &RowTable,
    rows: &[u32],
    lexed: &[Lexed],
    ds_format: Option<DayMonthOrder>,
) -> Result<DayMonthOrder, HoraError> {
    let mut dmy_proof = None;
    let mut mdy_proof = None;
    for (i, l) in lexed.iter().enumerate() {
        if l.a > 12 && dmy_proof.is_none() {
            dmy_proof = Some(i);
        }
        if l.b > 12 && mdy_proof.is_none() {
            mdy_proof = Some(i);
        }
    }
    let order = match (ds_format, dmy_proof, mdy_proof) {
        (Some(o), _, _) => o,
        (None, Some(_), None) => DayMonthOrder::Dmy,
        (None, None, Some(_)) => DayMonthOrder::Mdy,
        (None, Some(i), Some(j)) => {
            let row = rows[i.max(j)];
            let s = table.ds.get(row as usize);
            return Err(HoraError::field(
                ds_field(row),
                format!("series[{row}].ds {s:?} contradicts the day/month order of series[{}].ds", rows[i.min(j)]),
            ));
        }
        (None, None, None) => {
            let row = rows[0];
            return Err(HoraError::new(
                ErrorCode::AmbiguousDateFormat,
                format!(
                    "series[{row}].ds {:?} and the other rows of its entity may be D/M/YYYY or M/D/YYYY; \
                     send options.ds_format (dmy or mdy) or ISO 8601",
                    table.ds.get(row as usize)
                ),
            )
            .with("field", ds_field(row))
            .with("allowed", serde_json::json!(["dmy", "mdy"])));
        }
    };
    for (i, l) in lexed.iter().enumerate() {
        let (m, d) = if order == DayMonthOrder::Dmy { (l.b, l.a) } else { (l.a, l.b) };
        if m == 0 || m > 12 || d == 0 || d > super::civil::days_in_month(l.year, m) {
            let row = rows[i];
            let name = if order == DayMonthOrder::Dmy { "D/M/YYYY" } else { "M/D/YYYY" };
            return Err(HoraError::field(
                ds_field(row),
                format!("series[{row}].ds {:?} is not a valid {name} date", table.ds.get(row as usize)),
            ));
        }
    }
    Ok(order)
}

/// `±HH:MM`; UTC shows as `+00:00`.
pub fn format_offset(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let a = secs.unsigned_abs();
    format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
}
