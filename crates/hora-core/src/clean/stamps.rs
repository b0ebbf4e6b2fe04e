//! The cleaning stage's use of the time engine for an entity's stamps: parse them (history, and
//! future rows as their history was read), read a frequency, step along it.

use super::options::CleanOptions;
use crate::choice::Choice;
use crate::error::Result;
use crate::ingest::RowTable;
use crate::time::{self, DayMonthOrder, DsFormat, Freq, FreqUnit, StampRows, WrittenAs, ZoneRule, ZoneSource};

pub use crate::time::format_utc;
pub const MICROS_PER_DAY: i64 = time::MICROS_PER_DAY;

/// The zone naive stamps are read in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Zone {
    pub tz: ZoneRule,
    /// True when `options.timezone` named it; false for the UTC fallback.
    pub from_option: bool,
}

pub fn parse_zone(name: Option<&str>) -> Result<Zone> {
    match name {
        None => Ok(Zone { tz: ZoneRule::UTC, from_option: false }),
        Some(n) => time::parse_zone(n).map(|tz| Zone { tz, from_option: true }),
    }
}

impl Zone {
    /// The zone an entity's grid steps in: the request's, or the entity's own fixed offset.
    pub fn of_entity(&self, stamps: &EntityStamps) -> Zone {
        Zone { tz: stamps.zone, from_option: self.from_option }
    }

    fn option(&self) -> Option<ZoneRule> {
        self.from_option.then_some(self.tz)
    }
}

/// One entity's stamps as instants, in the order its rows were sent.
#[derive(Debug, Clone, Default)]
pub struct EntityStamps {
    pub instants: Vec<i64>,
    /// A format other than ISO 8601 is a `timestamp_format` issue.
    pub format: DsFormat,
    pub source: ZoneSource,
    pub naive_rows: usize,
    pub explicit_rows: usize,
    pub explicit_offsets: Vec<String>,
    /// Some row carried an offset other than UTC's.
    pub offset_off_utc: bool,
    /// The zone calendar steps run in: `options.timezone`; without it UTC, or the zone of the one
    /// offset every row carries (docs/time.md).
    pub zone: ZoneRule,
    /// Naive rows at a local time the zone skipped or repeated (`time::ParsedStamps`).
    pub skipped_local_rows: usize,
    pub repeated_local_rows: usize,
    /// Repeated local times read (`time::ParsedStamps::repeated_walls`).
    pub repeated_walls: Vec<i64>,
}

/// How the request's stamps are read: `options.timezone` and `options.ds_format`.
pub fn reading(options: &CleanOptions) -> Result<(Zone, Option<DayMonthOrder>)> {
    Ok((parse_zone(options.timezone.as_deref())?, day_month_order(options.ds_format.as_deref())?))
}

impl EntityStamps {
    /// Some stamp was converted to UTC: it carried an offset other than UTC's, or it was naive
    /// and read in `zone`, the request's, when that is not UTC.
    pub fn converted(&self, zone: &Zone) -> bool {
        self.offset_off_utc || (self.naive_rows > 0 && !zone.tz.is_utc())
    }

    /// The day/month order these stamps proved, if they were written that way: future rows of
    /// the entity are read in the same order.
    pub fn proven_order(&self) -> Option<DayMonthOrder> {
        self.format.day_month_order()
    }
}

pub fn day_month_order(ds_format: Option<&str>) -> Result<Option<DayMonthOrder>> {
    match ds_format {
        None => Ok(None),
        Some(s) => DayMonthOrder::read("options.ds_format", s).map(Some),
    }
}

/// Parses the `ds` of entity `e` (errors name the row: `VALIDATION_ERROR`, `AMBIGUOUS_DATE_FORMAT`).
pub fn parse_entity(table: &RowTable, e: usize, zone: &Zone, order: Option<DayMonthOrder>) -> Result<EntityStamps> {
    parse_entity_after(table, StampRows::Series, e, zone, AsHistory { order, written: None }, &[])
}

/// How future rows are read after their entity's history: in the day/month order
/// `options.ds_format` gives, else the one the history proved, and held to the format the history
/// was written in (none when it was not read).
#[derive(Debug, Clone, Copy, Default)]
pub struct AsHistory {
    pub order: Option<DayMonthOrder>,
    pub written: Option<WrittenAs>,
}

impl AsHistory {
    /// Entity `e` of `table`, its history read as `format`; `ds_format` is `options.ds_format`.
    pub fn of(table: &RowTable, e: usize, format: DsFormat, ds_format: Option<DayMonthOrder>) -> AsHistory {
        let written = table.entity_ds(e).next().map(|(first_row, _)| WrittenAs { format, first_row });
        AsHistory { order: ds_format.or_else(|| format.day_month_order()), written }
    }
}

/// [`parse_entity`] for rows read after the entity's history, sent in `rows` (`seen`: its
/// repeated local times).
pub fn parse_entity_after(table: &RowTable, rows: StampRows, e: usize, zone: &Zone, history: AsHistory, seen: &[i64]) -> Result<EntityStamps> {
    let p = time::parse_entity_after(table, rows, e, zone.option(), history.order, seen, history.written)?;
    Ok(EntityStamps {
        instants: p.instants,
        format: p.format,
        source: p.source,
        naive_rows: p.naive_rows,
        explicit_rows: p.explicit_rows,
        explicit_offsets: p.explicit_offsets,
        offset_off_utc: p.offset_off_utc,
        zone: p.zone,
        skipped_local_rows: p.skipped_local_rows,
        repeated_local_rows: p.repeated_local_rows,
        repeated_walls: p.repeated_walls,
    })
}

/// A frequency with what the grid code needs to know about it.
#[derive(Debug, Clone, PartialEq)]
pub struct FreqSpec {
    pub freq: Freq,
    pub canonical: String,
    /// Exact step on UTC instants (`s`, `min`, `h`): grid positions are arithmetic. Days and
    /// weeks move on the zone's wall clock, so they step like calendar frequencies.
    pub fixed_step: Option<i64>,
}

impl FreqSpec {
    fn new(freq: Freq) -> Self {
        let fixed_step = if freq.is_sub_daily() { freq.fixed_step_micros() } else { None };
        FreqSpec { canonical: freq.canonical(), fixed_step, freq }
    }

    /// `s`, `min`, `h`, `D`, `W` and multiples (the raw preset's steps).
    pub fn is_fixed(&self) -> bool {
        self.freq.is_fixed()
    }

    /// Nominal step length for fixed frequencies.
    pub fn nominal_step(&self) -> Option<i64> {
        self.freq.fixed_step_micros()
    }

    pub fn is_one_day(&self) -> bool {
        self.freq.unit == FreqUnit::Day && self.freq.n == 1
    }

    pub fn business_days() -> Self {
        FreqSpec::new(Freq::new(1, FreqUnit::BusinessDay))
    }
}

/// Reads a `freq` string; unknown strings are `FREQ_UNSUPPORTED`.
pub fn parse_freq(s: &str, allow_business: bool) -> Result<FreqSpec> {
    Freq::parse(s, allow_business).map(FreqSpec::new)
}

/// Inferred frequency of sorted distinct instants, with its confidence.
pub fn infer_freq(sorted: &[i64], zone: &Zone, allow_business: bool) -> Result<(FreqSpec, f64)> {
    time::infer_freq(sorted, zone.tz, allow_business).map(|i| (FreqSpec::new(i.freq), i.confidence))
}

/// `t` moved `n` steps along `freq`; `None` outside the supported years.
pub fn step(t: i64, n: i64, freq: &FreqSpec, zone: &Zone) -> Option<i64> {
    time::step(t, n, &freq.freq, zone.tz)
}

/// Which of `freq`'s calendar grids holds `t` (local time of day, position in a multiple step);
/// `None` for a stamp no grid holds (off its anchor, a weekend day for `B`) and for sub-daily steps.
pub fn calendar_phase(t: i64, freq: &FreqSpec, zone: &Zone) -> Option<(i64, i64)> {
    time::calendar_phase(t, &freq.freq, zone.tz)
}

/// Whether `t` may be a wall time a spring-forward moved: its wall-clock time is not the one it
/// was written as, so it is no base to step a grid from.
pub fn moved_by_gap(t: i64, zone: &Zone) -> bool {
    time::written_wall(t, zone.tz).is_some()
}

/// How many whole local days the zone skipped (Pacific/Apia's 2011-12-30): the only days a
/// calendar step can land on an instant already passed.
pub fn skipped_days(zone: &Zone) -> usize {
    time::skipped_days(zone.tz).len()
}

/// Grid slots from `start` to `end` inclusive, computed without allocating.
pub fn grid_len(start: i64, end: i64, freq: &FreqSpec, zone: &Zone) -> u64 {
    time::grid_len(start, end, &freq.freq, zone.tz).unwrap_or(u64::MAX)
}
