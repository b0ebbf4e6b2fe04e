//! Zones: IANA name lookup, fixed offsets, wall clock <-> instant, and the one rule for DST gaps
//! and overlaps.
//!
//! The DST rule (same as JavaScript `Date` and Temporal's `compatible`):
//! - a local time repeated at fall-back is read as its EARLIER instant (the first occurrence);
//! - a local time skipped at spring-forward is shifted forward by the gap's length
//!   (02:30 on a day where 02:00 jumps to 03:00 becomes 03:30).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use chrono::{DateTime, Datelike, LocalResult, NaiveDate, NaiveDateTime, Offset, TimeZone, TimeDelta};
use chrono_tz::Tz;

use super::civil::{days_from_civil, split_day, MICROS_PER_DAY, MICROS_PER_SECOND};
use super::Micros;
use crate::error::HoraError;

/// The rule from instants to wall clocks that naive stamps are read in and calendar steps run in:
/// an IANA zone, or a fixed offset for data written with one offset that no IANA zone names
/// (`+05:30`; whole hours have `Etc/GMT∓h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneRule {
    Iana(Tz),
    /// Seconds east of UTC, never 0 (UTC is `Iana(Tz::UTC)`).
    Fixed(i32),
}

impl ZoneRule {
    pub const UTC: ZoneRule = ZoneRule::Iana(Tz::UTC);

    /// The IANA name, or `±HH:MM` for a fixed offset (the cleaning report's `timezone.used`).
    pub fn name(self) -> Cow<'static, str> {
        match self {
            ZoneRule::Iana(tz) => Cow::Borrowed(tz.name()),
            ZoneRule::Fixed(secs) => Cow::Owned(format_offset(secs)),
        }
    }

    /// The zone of one constant offset: IANA's `Etc/GMT∓h` for a whole hour (POSIX signs: `+02:00`
    /// is `Etc/GMT-2`), else the offset itself (`+05:30` has no IANA name). UTC needs none.
    pub fn of_offset(secs: i32) -> Option<ZoneRule> {
        if secs == 0 {
            return None;
        }
        let h = -secs / 3600;
        let etc = (secs % 3600 == 0).then(|| format!("Etc/GMT{}{}", if h > 0 { "+" } else { "-" }, h.abs()).parse().ok()).flatten();
        Some(etc.map_or(ZoneRule::Fixed(secs), ZoneRule::Iana))
    }

    /// UTC under any of its IANA names (`UTC`, `Etc/UTC`, `GMT`, `Zulu`, ...): offset 0 at every
    /// instant. `Europe/London` is not: it keeps summer time.
    pub fn is_utc(self) -> bool {
        match self {
            ZoneRule::Iana(tz) => matches!(
                tz,
                Tz::UTC | Tz::Etc__UTC | Tz::Etc__UCT | Tz::UCT | Tz::Etc__Universal | Tz::Universal | Tz::Etc__Zulu | Tz::Zulu
                    | Tz::GMT | Tz::Etc__GMT | Tz::Etc__GMTPlus0 | Tz::Etc__GMTMinus0 | Tz::Etc__GMT0 | Tz::GMTPlus0
                    | Tz::GMTMinus0 | Tz::GMT0 | Tz::Etc__Greenwich | Tz::Greenwich
            ),
            ZoneRule::Fixed(secs) => secs == 0,
        }
    }

    fn offset_from_local(self, n: &NaiveDateTime) -> LocalResult<i32> {
        match self {
            ZoneRule::Iana(tz) => tz.offset_from_local_datetime(&fold_year(tz, *n)).map(|o| o.fix().local_minus_utc()),
            ZoneRule::Fixed(secs) => LocalResult::Single(secs),
        }
    }
}

impl Default for ZoneRule {
    fn default() -> Self {
        ZoneRule::UTC
    }
}

impl From<Tz> for ZoneRule {
    fn from(tz: Tz) -> Self {
        ZoneRule::Iana(tz)
    }
}

/// `±HH:MM`; UTC shows as `+00:00`.
pub fn format_offset(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let a = secs.unsigned_abs();
    format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60)
}

/// Looks up an IANA zone name (case-sensitive, as the tz database spells it).
pub fn parse_zone(name: &str) -> Result<ZoneRule, HoraError> {
    name.parse::<Tz>().map(ZoneRule::Iana).map_err(|_| {
        HoraError::field(
            "options.timezone",
            format!("{} is not an IANA time zone name (for example Europe/Berlin)", super::quoted(name)),
        )
    })
}

/// How a local wall-clock time maps to an instant in its zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalKind {
    Unique,
    /// Repeated at fall-back; the earlier instant was taken, `later` is the other one.
    Repeated { later: Micros },
    /// Skipped at spring-forward; shifted forward by the gap.
    Skipped,
}

fn naive(wall: Micros) -> Option<NaiveDateTime> {
    let secs = wall.div_euclid(MICROS_PER_SECOND);
    DateTime::from_timestamp(secs, 0).map(|d| d.naive_utc())
}

/// The local days zone `zone` skipped whole (Pacific/Apia's Friday 2011-12-30, Kwajalein's
/// 1993-08-21), as day numbers, sorted. Found once per zone: its offset sampled daily from 1800
/// to 2100 (the years such jumps happened; later rules are plain DST), where a jump of a day or
/// more skips the days between. A few dozen milliseconds, then cached; fixed offsets skip none.
pub fn skipped_days(zone: ZoneRule) -> Arc<[i64]> {
    static FOUND: OnceLock<Mutex<HashMap<Tz, Arc<[i64]>>>> = OnceLock::new();
    thread_local! {
        // Business-day steps ask once per step, for one zone at a time: no lock on that path.
        static LAST: RefCell<Option<(Tz, Arc<[i64]>)>> = const { RefCell::new(None) };
    }
    let ZoneRule::Iana(tz) = zone else { return Arc::from([]) };
    if let Some(days) = LAST.with_borrow(|last| last.as_ref().filter(|(z, _)| *z == tz).map(|(_, d)| d.clone())) {
        return days;
    }
    let days = skipped_days_cached(tz, FOUND.get_or_init(Mutex::default));
    LAST.set(Some((tz, days.clone())));
    days
}

fn skipped_days_cached(tz: Tz, cache: &Mutex<HashMap<Tz, Arc<[i64]>>>) -> Arc<[i64]> {
    let zone = ZoneRule::Iana(tz);
    if let Some(days) = cache.lock().ok().and_then(|c| c.get(&tz).cloned()) {
        return days;
    }
    let noon = |d: i64| d * MICROS_PER_DAY + MICROS_PER_DAY / 2;
    let (first, last) = (days_from_civil(1800, 1, 1), days_from_civil(2100, 12, 31));
    let mut skipped = Vec::new();
    let mut before = offset_at(noon(first), zone);
    for d in first + 1..=last {
        let after = offset_at(noon(d), zone);
        if i64::from(after - before) >= 23 * 3600 {
            let (from, to) = (split_day(to_wall(noon(d - 1), zone)).0, split_day(to_wall(noon(d), zone)).0);
            skipped.extend((from + 1..to).filter(|&s| split_day(to_wall(from_wall(noon(s), zone).0, zone)).0 != s));
        }
        before = after;
    }
    let days: Arc<[i64]> = Arc::from(skipped);
    if let Ok(mut c) = cache.lock() {
        c.insert(tz, days.clone());
    }
    days
}

/// Offset (seconds east of UTC) in force at an instant.
pub fn offset_at(t: Micros, zone: ZoneRule) -> i32 {
    match zone {
        ZoneRule::Fixed(secs) => secs,
        ZoneRule::Iana(tz) => naive(t).map_or(0, |n| tz.offset_from_utc_datetime(&fold_year(tz, n)).fix().local_minus_utc()),
    }
}

/// chrono-tz's tables list each zone's transitions through 2099 and none after, so from 2100 on a
/// zone with daylight saving would keep its last offset all year (JavaScript's `Date`, and the tz
/// database's own rule for the years past its table, go on switching).
const LAST_TABLE_YEAR: i32 = 2099;
/// Common (non-leap) years that stand in for the years past the table. Each weekday falls on 1
/// January, and on 1 March, of at least one of them; the latest are tried first, since
/// transitions computed year by year rather than by a rule (Palestine's, which follow Ramadan,
/// are listed to 2086) are the least likely there.
const TWIN_YEARS: std::ops::RangeInclusive<i32> = 2072..=LAST_TABLE_YEAR;

/// A date-time of a year past the table moved to a twin date in a common year of 2072 to 2099 on
/// the same weekday, where the zone's rules (last Sunday of March, first Sunday of November, ...)
/// give the offset that the rules in force at the table's end give in the later year. Dates up
/// to 28 February align on 1 January, the rest (29 February on) on 1 March, so a leap year
/// needs no leap twin. Only zones that still change offset in the table's last year are moved:
/// one whose transitions end earlier (a rule that stops, Morocco's computed ones) keeps its final
/// offset, as the tz database says.
fn fold_year(tz: Tz, n: NaiveDateTime) -> NaiveDateTime {
    if n.year() <= LAST_TABLE_YEAR || !switches_in_last_table_year(tz) {
        return n;
    }
    let march = n.month() > 2 || (n.month() == 2 && n.day() == 29);
    let anchor = |y: i32| NaiveDate::from_ymd_opt(y, if march { 3 } else { 1 }, 1);
    let common = |y: &i32| NaiveDate::from_ymd_opt(*y, 2, 29).is_none();
    let Some(own) = anchor(n.year()) else {
        return n;
    };
    TWIN_YEARS
        .rev()
        .filter(common)
        .filter_map(anchor)
        .find(|twin| twin.weekday() == own.weekday())
        .map_or(n, |twin| n - TimeDelta::days((own - twin).num_days()))
}

/// Whether the zone's offset differs between January and July of the table's last year.
fn switches_in_last_table_year(tz: Tz) -> bool {
    let at = |month: u32| {
        NaiveDate::from_ymd_opt(LAST_TABLE_YEAR, month, 15)
            .and_then(|d| d.and_hms_opt(12, 0, 0))
            .map(|n| tz.offset_from_utc_datetime(&n).fix().local_minus_utc())
    };
    at(1) != at(7)
}

/// The zone's wall clock at an instant, as micros (days and time of day read as if UTC).
pub fn to_wall(t: Micros, zone: ZoneRule) -> Micros {
    if zone.is_utc() {
        return t;
    }
    t.saturating_add(i64::from(offset_at(t, zone)) * MICROS_PER_SECOND)
}

/// The instant of a wall-clock time in `zone`, under the module's DST rule.
pub fn from_wall(wall: Micros, zone: ZoneRule) -> (Micros, LocalKind) {
    if zone.is_utc() {
        return (wall, LocalKind::Unique);
    }
    let Some(n) = naive(wall) else {
        return (wall, LocalKind::Unique);
    };
    match zone.offset_from_local(&n) {
        LocalResult::Single(o) => (wall.saturating_sub(secs(o)), LocalKind::Unique),
        LocalResult::Ambiguous(a, b) => {
            let (ta, tb) = (wall.saturating_sub(secs(a)), wall.saturating_sub(secs(b)));
            (ta.min(tb), LocalKind::Repeated { later: ta.max(tb) })
        }
        LocalResult::None => {
            // The offset before the gap: read the wall time with it, which lands past the gap.
            let before = offset_at(wall.saturating_sub(MICROS_PER_DAY), zone);
            (wall.saturating_sub(secs(before)), LocalKind::Skipped)
        }
    }
}

fn secs(s: i32) -> i64 {
    i64::from(s) * MICROS_PER_SECOND
}

/// Wall clock -> instant for many stamps, caching one whole local day at a time: parsing 200,000
/// stamps must not cost 200,000 zone look-ups.
pub struct WallConverter {
    zone: ZoneRule,
    utc: bool,
    day: i64,
    /// Offset valid for the whole cached day, if the day has no transition.
    day_offset: Option<i64>,
}

impl WallConverter {
    pub fn new(zone: ZoneRule) -> Self {
        WallConverter { zone, utc: zone.is_utc(), day: i64::MIN, day_offset: None }
    }

    pub fn convert(&mut self, wall: Micros) -> (Micros, LocalKind) {
        if self.utc {
            return (wall, LocalKind::Unique);
        }
        let day = wall.div_euclid(MICROS_PER_DAY);
        if day != self.day {
            self.day = day;
            self.day_offset = self.whole_day_offset(day);
        }
        match self.day_offset {
            Some(off) => (wall - off, LocalKind::Unique),
            None => from_wall(wall, self.zone),
        }
    }

    /// The offset of a local day when its first and last second map to one instant each with the
    /// same offset (no zone changes its offset twice within a day).
    fn whole_day_offset(&self, day: i64) -> Option<i64> {
        let start = day * MICROS_PER_DAY;
        let end = start + MICROS_PER_DAY - MICROS_PER_SECOND;
        let (ts, ks) = from_wall(start, self.zone);
        let (te, ke) = from_wall(end, self.zone);
        let (os, oe) = (start - ts, end - te);
        (ks == LocalKind::Unique && ke == LocalKind::Unique && os == oe).then_some(os)
    }
}

/// The wall-clock time a stamp was written as, when that time was skipped by a spring-forward:
/// the DST rule read it forward by the gap (docs/time.md), and the grid steps it as written, so
/// inference and grid placement must read it so too. None for every other stamp.
pub fn written_wall(t: Micros, zone: ZoneRule) -> Option<Micros> {
    if zone.is_utc() || matches!(zone, ZoneRule::Fixed(_)) {
        return None;
    }
    let before = offset_at(t.saturating_sub(MICROS_PER_DAY), zone);
    let w = t.saturating_add(i64::from(before) * MICROS_PER_SECOND);
    (from_wall(w, zone) == (t, LocalKind::Skipped)).then_some(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn micros(s: &str) -> Micros {
        DateTime::parse_from_rfc3339(s).unwrap().timestamp() * MICROS_PER_SECOND
    }

    #[test]
    fn offsets_past_the_table_follow_the_zones_rules() {
        let at = |s: &str, zone: &str| offset_at(micros(s), parse_zone(zone).unwrap()) / 3600;
        // Berlin: CEST from the last Sunday of March (28 March 2100, 1:00 UTC) to the last of October.
        assert_eq!(at("2100-03-28T00:59:59Z", "Europe/Berlin"), 1);
        assert_eq!(at("2100-03-28T01:00:00Z", "Europe/Berlin"), 2);
        assert_eq!(at("2100-10-31T00:59:59Z", "Europe/Berlin"), 2);
        assert_eq!(at("2100-10-31T01:00:00Z", "Europe/Berlin"), 1);
        assert_eq!(at("2400-07-01T00:00:00Z", "Europe/Berlin"), 2);
        assert_eq!(at("2101-01-15T00:00:00Z", "Australia/Sydney"), 11);
        assert_eq!(at("2101-07-15T00:00:00Z", "Australia/Sydney"), 10);
        // A zone without daylight saving at the table's end is not moved.
        assert_eq!(at("2100-07-01T00:00:00Z", "Asia/Tokyo"), 9);
        assert_eq!(at("2100-07-01T00:00:00Z", "Africa/Casablanca"), 0);
        // The wall clock is read on the same rules.
        assert_eq!(to_wall(micros("2100-07-01T22:00:00Z"), parse_zone("Europe/Berlin").unwrap()), micros("2100-07-02T00:00:00Z"));
    }

    #[test]
    fn zones_follow_the_vendored_tz_release_not_chrono_tzs_own() {
        // vendor/chrono-tz (Cargo.toml's [patch.crates-io]); crates.io's chrono-tz 0.10.4 has 2025b.
        assert_eq!(chrono_tz::IANA_TZDB_VERSION, "2026f");
        let at = |s: &str, zone: &str| offset_at(micros(s), parse_zone(zone).unwrap()) / 60;
        // 2026f: British Columbia keeps UTC-7 after 1 November 2026 (2025b: back to UTC-8);
        // Morocco is on +00 outside Ramadan from 20 September 2026 (2025b: +01).
        assert_eq!(at("2026-11-25T12:00:00Z", "America/Vancouver"), -7 * 60);
        assert_eq!(at("2027-01-15T12:00:00Z", "America/Vancouver"), -7 * 60);
        assert_eq!(at("2026-10-21T00:00:00Z", "Africa/Casablanca"), 0);
        // Unchanged zones are unchanged: New York still falls back.
        assert_eq!(at("2026-11-25T12:00:00Z", "America/New_York"), -5 * 60);
    }
}
