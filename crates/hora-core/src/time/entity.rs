//! Parsing one entity's `ds` column: one format per entity, day/month order proven from the data,
//! naive stamps read in the zone, explicit offsets always winning.

use super::civil::{in_supported_range, MICROS_PER_HOUR};
use super::format::{ds_field, month_day, resolve_order, DayMonthOrder, DsFormat, StampRows, WrittenAs};
use super::infer::{modal_phase, mode_delta};
use super::lex::{lex, Lexed, Shape};
use super::zone::{format_offset, offset_at, LocalKind, WallConverter, ZoneRule};
use super::{quoted, Micros};
use crate::error::{ErrorCode, FieldErrors, HoraError};
use crate::ingest::RowTable;
use std::collections::{HashMap, HashSet};

/// Where the zone of an entity's naive stamps came from (`cleaning_report.series[].timezone.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ZoneSource {
    /// Every row carries an offset (or is Unix time).
    ExplicitOffset,
    Option,
    #[default]
    DefaultUtc,
}

impl ZoneSource {
    pub const ALL: [ZoneSource; 3] = [ZoneSource::ExplicitOffset, ZoneSource::Option, ZoneSource::DefaultUtc];

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
    /// Zone used for naive stamps and calendar stepping: `options.timezone`; without it UTC, or
    /// the zone of the one offset every row carries (`Etc/GMT∓h`, or the offset itself).
    pub zone: ZoneRule,
    pub source: ZoneSource,
    pub naive_rows: usize,
    /// Rows with `Z` / `±HH:MM`, and Unix-time rows (absolute instants, shown as `+00:00`).
    pub explicit_rows: usize,
    /// Distinct offsets as `±HH:MM` (`Z` shows as `+00:00`), in first-seen order.
    pub explicit_offsets: Vec<String>,
    /// Some row carried an offset other than UTC's.
    pub offset_off_utc: bool,
    /// Naive rows whose local time was skipped by a DST change (shifted forward by the gap).
    pub skipped_local_rows: usize,
    /// Naive rows whose local time was repeated by a DST change (the first row at such a time
    /// takes the earlier instant, a later row at the same time the later one).
    pub repeated_local_rows: usize,
    /// The repeated local times read (wall-clock micros), sorted: the entity's future rows are
    /// read after them, so a future row at such a time is its second pass.
    pub repeated_walls: Vec<Micros>,
}


/// Parses the `ds` of entity `e`. `zone` is `options.timezone` (already looked up), `ds_format`
/// is `options.ds_format`. Errors name the global row index.
pub fn parse_entity(
    table: &RowTable,
    e: usize,
    zone: Option<ZoneRule>,
    ds_format: Option<DayMonthOrder>,
) -> Result<ParsedStamps, HoraError> {
    parse_stamps(table.entity_ds(e), zone, ds_format)
}

/// Parses `(row index, ds)` pairs of one entity in one pass (two for day/month formats, whose
/// order is known only once every row is seen).
pub fn parse_stamps<'a>(
    stamps: impl IntoIterator<Item = (u32, &'a str)>,
    zone: Option<ZoneRule>,
    ds_format: Option<DayMonthOrder>,
) -> Result<ParsedStamps, HoraError> {
    parse_stamps_after(stamps, StampRows::Series, zone, ds_format, &[], None)
}

/// [`parse_entity`] for rows that follow others of the same entity (its future rows after its
/// history), sent in `rows`: a repeated local time in `seen` (the history's `repeated_walls`) was
/// sent already, so these rows' first one at that time is its second pass (docs/time.md); a row
/// in a format other than `history`'s is listed as the history's own would be.
pub fn parse_entity_after(
    table: &RowTable,
    rows: StampRows,
    e: usize,
    zone: Option<ZoneRule>,
    ds_format: Option<DayMonthOrder>,
    seen: &[Micros],
    history: Option<WrittenAs>,
) -> Result<ParsedStamps, HoraError> {
    parse_stamps_after(table.entity_ds(e), rows, zone, ds_format, seen, history)
}

fn parse_stamps_after<'a>(
    stamps: impl IntoIterator<Item = (u32, &'a str)>,
    rows: StampRows,
    zone: Option<ZoneRule>,
    ds_format: Option<DayMonthOrder>,
    seen: &[Micros],
    history: Option<WrittenAs>,
) -> Result<ParsedStamps, HoraError> {
    let iter = stamps.into_iter();
    let mut acc = Accumulator::new(zone, iter.size_hint().0);
    acc.repeated_walls.extend(seen.iter().copied());
    // The row whose format the others keep, and the array it was sent in.
    let mut first: Option<(Shape, StampRows, u32)> = history.map(|h| (h.format.shape(), StampRows::Series, h.first_row));
    let mut pending: Vec<(u32, &'a str, Lexed)> = Vec::new();
    // Every unreadable stamp is listed (up to the contract's 10), not only the first: a caller
    // who sent a format row by row wrong sees which rows at once.
    let mut unreadable = FieldErrors::default();
    for (k, (row, s)) in iter.enumerate() {
        let l = match lex(s) {
            Ok(l) => l,
            Err(why) => {
                unreadable.push(|| ds_field(rows, row), format!("{} {why}", quoted(s)));
                continue;
            }
        };
        match first {
            None if k == 0 => first = Some((l.shape, rows, row)),
            // The entity's format is its first row's; when that row is unreadable there is none
            // to hold the others to, and only their own faults are listed.
            None => {}
            Some((shape, first_rows, first_row)) if shape != l.shape => {
                unreadable.push(
                    || ds_field(rows, row),
                    format!("{} is written in another format than {}; one timestamp format per entity", quoted(s), ds_field(first_rows, first_row)),
                );
                continue;
            }
            Some(_) => {}
        }
        if l.shape == Shape::DayMonth {
            pending.push((row, s, l));
        } else if !acc.push(&l, l.a, l.b) {
            unreadable.push(|| ds_field(rows, row), out_of_range(s));
        }
    }
    if !unreadable.is_empty() {
        return Err(HoraError::fields(unreadable.listed));
    }
    let Some((shape, _, _)) = first else {
        return Err(HoraError::new(ErrorCode::SeriesEmpty, "entity has no rows"));
    };
    let mut order = DayMonthOrder::Dmy;
    if shape == Shape::DayMonth {
        order = resolve_order(&pending, rows, ds_format)?;
        for (row, s, l) in &pending {
            match month_day(l, order) {
                Err(why) => unreadable.push(|| ds_field(rows, *row), format!("{s:?} {why}")),
                Ok((m, d)) if !acc.push(l, m, d) => unreadable.push(|| ds_field(rows, *row), out_of_range(s)),
                Ok(_) => {}
            }
        }
        if !unreadable.is_empty() {
            return Err(HoraError::fields(unreadable.listed));
        }
    }
    Ok(acc.finish(DsFormat::of_shape(shape, order)))
}

/// A stamp whose offset or zone moves it out of the years 1 to 9999 in UTC (`9999-12-31T12:00-12:00`
/// is 10000-01-01Z): no grid or response stamp can be written for it.
fn out_of_range(s: &str) -> String {
    format!("{s:?} is outside the years 1 to 9999 in UTC")
}

/// Builds `ParsedStamps` row by row.
struct Accumulator {
    out: ParsedStamps,
    conv: WallConverter,
    zone_given: bool,
    last_offset: Option<i32>,
    /// The offsets `out.explicit_offsets` lists, as seconds: rows cycling through thousands of
    /// offsets would otherwise format each and search the list of texts.
    offsets_seen: HashSet<i32, foldhash::fast::RandomState>,
    /// Every explicit offset is the given zone's offset at its instant (true without a zone).
    offsets_fit_zone: bool,
    /// Some row carries a local clock: naive, or an offset other than `Z` / `-00:00`.
    clocked_rows: bool,
    /// Repeated wall-clock times seen so far: usually a fall-back's hour, but sub-second data
    /// can hold 100,000 of them, so a set (a list search made that parse quadratic).
    repeated_walls: HashSet<i64, foldhash::fast::RandomState>,
    /// Rows read as a repeated hour's second pass: (position in `instants`, earlier instant, wall).
    second_pass: Vec<(usize, Micros, Micros)>,
    /// Rows read as a repeated hour's first pass: (position in `instants`, later instant, wall).
    first_pass: Vec<(usize, Micros, Micros)>,
    /// Consecutive naive rows whose wall time rose, and fell: which way the entity was sent.
    walls_rising: usize,
    walls_falling: usize,
    last_wall: Option<Micros>,
    /// The zone's offset over one whole UTC day, when it has one (day, offset): one zone look-up
    /// a day rather than one a row.
    day_offset: (i64, Option<i32>),
}

impl Accumulator {
    fn new(zone: Option<ZoneRule>, rows: usize) -> Self {
        let used = zone.unwrap_or(ZoneRule::UTC);
        let out = ParsedStamps {
            instants: Vec::with_capacity(rows),
            format: DsFormat::Iso8601,
            zone: used,
            source: ZoneSource::ExplicitOffset,
            naive_rows: 0,
            explicit_rows: 0,
            explicit_offsets: Vec::new(),
            offset_off_utc: false,
            skipped_local_rows: 0,
            repeated_local_rows: 0,
            repeated_walls: Vec::new(),
        };
        Accumulator {
            out,
            conv: WallConverter::new(used),
            zone_given: zone.is_some(),
            last_offset: None,
            offsets_seen: HashSet::default(),
            offsets_fit_zone: true,
            clocked_rows: false,
            repeated_walls: HashSet::default(),
            second_pass: Vec::new(),
            first_pass: Vec::new(),
            walls_rising: 0,
            walls_falling: 0,
            last_wall: None,
            day_offset: (i64::MIN, None),
        }
    }

    /// The zone's UTC offset at instant `t`.
    fn zone_offset(&mut self, t: Micros) -> i32 {
        const DAY: i64 = 86_400 * 1_000_000;
        let day = t.div_euclid(DAY);
        if self.day_offset.0 != day {
            let (first, last) = (offset_at(day * DAY, self.out.zone), offset_at(day * DAY + DAY - 1, self.out.zone));
            self.day_offset = (day, (first == last).then_some(first));
        }
        self.day_offset.1.unwrap_or_else(|| offset_at(t, self.out.zone))
    }

    /// Adds one stamp whose month and day are `m` and `d`; false when its instant lies outside
    /// the years 1 to 9999 in UTC.
    fn push(&mut self, l: &Lexed, m: u32, d: u32) -> bool {
        let t = match (l.shape, l.offset) {
            (Shape::UnixSeconds | Shape::UnixMillis, _) => l.unix,
            (_, Some(off)) => l.wall_micros(m, d) - i64::from(off) * 1_000_000,
            (_, None) => {
                self.out.naive_rows += 1;
                let wall = l.wall_micros(m, d);
                match self.last_wall {
                    Some(last) if wall > last => self.walls_rising += 1,
                    Some(last) if wall < last => self.walls_falling += 1,
                    _ => {}
                }
                self.last_wall = Some(wall);
                let (t, kind) = self.conv.convert(wall);
                match kind {
                    LocalKind::Unique => t,
                    LocalKind::Skipped => {
                        self.out.skipped_local_rows += 1;
                        t
                    }
                    LocalKind::Repeated { later } => {
                        self.out.repeated_local_rows += 1;
                        // A wall time sent again inside a fall-back is the repeated hour's second
                        // pass (a logger on local time writes 01:00 twice), not a duplicate.
                        if self.repeated_walls.insert(wall) {
                            self.first_pass.push((self.out.instants.len(), later, wall));
                            t
                        } else {
                            self.second_pass.push((self.out.instants.len(), t, wall));
                            later
                        }
                    }
                }
            }
        };
        self.clocked_rows |= !l.clockless;
        if let Some(off) = l.offset {
            self.out.explicit_rows += 1;
            // Unix time and `Z` name an instant with no clock of its own: they never contradict
            // the zone, which then steps them (UTC-normalised exports of local calendar data).
            if self.zone_given && !l.clockless && self.offsets_fit_zone && self.zone_offset(t) != off {
                self.offsets_fit_zone = false;
            }
            if self.last_offset != Some(off) {
                self.last_offset = Some(off);
                if self.offsets_seen.insert(off) {
                    self.out.explicit_offsets.push(format_offset(off));
                    self.out.offset_off_utc |= off != 0;
                }
            }
        }
        self.out.instants.push(t);
        in_supported_range(t)
    }

    /// Whether stamps that carry no clock (`Z`, Unix time) sit on UTC's clock rather than the
    /// zone's. The clock on which more stamps share one time of day wins (one stray stamp does
    /// not decide): daily at 00:00Z across a DST change keeps UTC, which the zone would move by an
    /// hour; Berlin midnights written `Z` (23:00Z, then 22:00Z) keep the zone. When both clocks
    /// hold as many (no DST change in the data), the zone wins only where its time of day is
    /// midnight: 23:59:59Z month ends in Asia/Kolkata are UTC's, not 05:29:59 on the 1st. Stamps
    /// spread over the day (sub-daily data) read the same either way and keep the zone.
    fn clockless_on_utc_clock(&mut self) -> bool {
        const DAY: i64 = 86_400 * 1_000_000;
        let instants = std::mem::take(&mut self.out.instants);
        let utc = mode_time_of_day(instants.iter().map(|t| t.rem_euclid(DAY)));
        let zone = mode_time_of_day(instants.iter().map(|&t| (t + i64::from(self.zone_offset(t)) * 1_000_000).rem_euclid(DAY)));
        let n = instants.len();
        self.out.instants = instants;
        if utc.0.max(zone.0) * 2 < n {
            return false;
        }
        if utc.0 != zone.0 {
            return utc.0 > zone.0;
        }
        zone.1 != 0
    }

    fn finish(mut self, format: DsFormat) -> ParsedStamps {
        self.out.format = format;
        if !self.merge_second_passes_of_daily_data() {
            self.mirror_passes_of_rows_sent_newest_first();
            self.place_single_passes_on_the_grid();
        }
        if self.zone_given && !self.clocked_rows && self.clockless_on_utc_clock() {
            self.offsets_fit_zone = false;
        }
        if self.out.naive_rows > 0 {
            self.out.source = if self.zone_given { ZoneSource::Option } else { ZoneSource::DefaultUtc };
        } else if !self.zone_given || !self.offsets_fit_zone {
            // No zone option, or one the offsets contradict (`+00:00` stamps sent with New
            // York's zone): the zone is not these stamps' clock. Calendar steps use the one constant
            // offset's clock, so monthly data written at local midnight stays month-start data,
            // else UTC's. Offsets that fit the zone (DST-coded +01:00 / +02:00 with
            // Europe/Berlin) keep it: only the zone can step them across a DST change.
            self.out.zone = match self.out.explicit_offsets.len() {
                1 => self.last_offset.and_then(ZoneRule::of_offset).unwrap_or(ZoneRule::UTC),
                _ => ZoneRule::UTC,
            };
        }
        self.out.repeated_walls = self.repeated_walls.iter().copied().collect();
        self.out.repeated_walls.sort_unstable();
        self.out
    }

    /// A second pass of the repeated hour exists only for data sampled within the day: in daily
    /// or coarser data (most common step a day or more) a wall time sent twice on the fall-back
    /// day is a duplicate, read as the earlier instant like the first, so the last row is kept.
    /// True when it merged them.
    fn merge_second_passes_of_daily_data(&mut self) -> bool {
        if self.second_pass.is_empty() {
            return false;
        }
        let daily = self.sorted_and_modal_step().1 >= SHORTEST_DAY;
        if daily {
            for &(i, earlier, _) in &self.second_pass {
                self.out.instants[i] = earlier;
            }
        }
        daily
    }

    /// Rows sent newest first meet a repeated hour's later pass first: when more consecutive naive
    /// rows fell than rose, the first row at a repeated time is the later pass and a row sent
    /// again at it the earlier (the contract lets rows come in any order). Times the history
    /// already sent (future rows) keep the order sent: their first row here is a second pass.
    fn mirror_passes_of_rows_sent_newest_first(&mut self) {
        if self.second_pass.is_empty() || self.walls_falling <= self.walls_rising {
            return;
        }
        // Only times sent twice here swap; one sent once keeps the earlier instant (docs/time.md).
        let first: HashMap<Micros, (usize, Micros)> = self.first_pass.iter().map(|&(i, later, wall)| (wall, (i, later))).collect();
        for &(i, earlier, wall) in &self.second_pass {
            if let Some(&(first_row, later)) = first.get(&wall) {
                self.out.instants[first_row] = later;
                self.out.instants[i] = earlier;
            }
        }
    }

    /// The entity's instants sorted, and their most common step.
    fn sorted_and_modal_step(&self) -> (Vec<Micros>, i64) {
        let mut sorted = self.out.instants.clone();
        sorted.sort_unstable();
        let step = mode_delta(&sorted);
        (sorted, step)
    }

    /// A repeated wall time sent once is read as its earlier instant, unless the entity is
    /// sampled within the day and only the later instant lies on the grid its other stamps share
    /// (the modal step's modal phase), and no row holds it yet. UTC-hourly data written on Lord
    /// Howe's local clock (which falls back 30 minutes), or 90-minute data across Berlin's
    /// fall-back, would otherwise have that row dropped as off the grid and its slot imputed.
    fn place_single_passes_on_the_grid(&mut self) {
        let twice: HashSet<Micros> = self.second_pass.iter().map(|&(_, _, wall)| wall).collect();
        let single: Vec<(usize, Micros)> =
            self.first_pass.iter().filter(|(_, _, wall)| !twice.contains(wall)).map(|&(i, later, _)| (i, later)).collect();
        if single.is_empty() {
            return;
        }
        let (sorted, step) = self.sorted_and_modal_step();
        // Steps of a day or more are taken on the wall clock, where both passes are one date.
        if step <= 0 || step >= SHORTEST_DAY {
            return;
        }
        let phase = modal_phase(&sorted, step);
        let on_grid = |t: Micros| t.rem_euclid(step) == phase;
        for (i, later) in single {
            let earlier = self.out.instants[i];
            if !on_grid(earlier) && on_grid(later) && sorted.binary_search(&later).is_err() {
                self.out.instants[i] = later;
            }
        }
    }
}

/// Local days are 23 to 25 hours long across daylight saving: a modal step of at least this is
/// daily or coarser data.
const SHORTEST_DAY: i64 = 23 * MICROS_PER_HOUR;

/// The commonest time of day (micros since midnight) and how many stamps share it; ties go to
/// the earliest time, so the answer does not depend on row order.
fn mode_time_of_day(times: impl Iterator<Item = i64>) -> (usize, i64) {
    let mut counts: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    for t in times {
        *counts.entry(t).or_default() += 1;
    }
    counts.into_iter().map(|(t, c)| (c, std::cmp::Reverse(t))).max().map_or((0, 0), |(c, t)| (c, t.0))
}
