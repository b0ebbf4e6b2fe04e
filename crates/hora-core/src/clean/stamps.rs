//! The cleaning stage's narrow view of the time engine: parse an entity's stamps, read a
//! frequency, step along it. Everything the pipeline needs from `time` goes through here, so the
//! pipeline does not depend on how the time engine spells its types.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

use crate::error::{ErrorCode, HoraError, Result};
use crate::ingest::RowTable;

pub const MICROS_PER_SEC: i64 = 1_000_000;
pub const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SEC;

/// The zone naive stamps are read in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Zone {
    pub tz: Tz,
    /// True when `options.timezone` named it; false for the UTC fallback.
    pub from_option: bool,
}

pub fn parse_zone(name: Option<&str>) -> Result<Zone> {
    match name {
        None => Ok(Zone { tz: Tz::UTC, from_option: false }),
        Some(n) => n.parse::<Tz>().map(|tz| Zone { tz, from_option: true }).map_err(|_| {
            HoraError::field("options.timezone", format!("unknown IANA time zone '{n}'"))
        }),
    }
}

impl Zone {
    pub fn name(&self) -> &'static str {
        self.tz.name()
    }
}

/// One entity's stamps as instants, in the order its rows were sent.
#[derive(Debug, Clone, Default)]
pub struct EntityStamps {
    pub instants: Vec<i64>,
    /// `iso8601` or the name of the non-ISO format used (a `timestamp_format` issue).
    pub format: String,
    pub naive_rows: usize,
    pub explicit_rows: usize,
    pub explicit_offsets: Vec<String>,
}

/// Parses the `ds` of entity `e`. An unparseable stamp is a `VALIDATION_ERROR` naming the row.
pub fn parse_entity(table: &RowTable, e: usize, zone: &Zone, _ds_format: Option<&str>) -> Result<EntityStamps> {
    let mut out = EntityStamps { format: "iso8601".into(), ..Default::default() };
    for &row in table.entity_rows(e) {
        let s = table.ds.get(row as usize);
        let (t, offset) = parse_iso(s, zone).ok_or_else(|| {
            HoraError::field(format!("series[{row}].ds"), format!("unparseable timestamp '{s}'"))
        })?;
        match offset {
            Some(o) => {
                out.explicit_rows += 1;
                if !out.explicit_offsets.contains(&o) {
                    out.explicit_offsets.push(o);
                }
            }
            None => out.naive_rows += 1,
        }
        out.instants.push(t);
    }
    Ok(out)
}

fn parse_iso(s: &str, zone: &Zone) -> Option<(i64, Option<String>)> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(&s.replacen(' ', "T", 1)) {
        let off = if s.ends_with('Z') { "Z".to_string() } else { s[s.len() - 6..].to_string() };
        return Some((dt.timestamp_micros(), Some(off)));
    }
    let naive = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f"))
        .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M"))
        .or_else(|_| NaiveDate::parse_from_str(s, "%Y-%m-%d").map(|d| d.and_hms_opt(0, 0, 0).unwrap()))
        .ok()?;
    let local = zone.tz.from_local_datetime(&naive).earliest()?;
    Some((local.timestamp_micros(), None))
}

/// A frequency: its canonical token and, for fixed steps, the step in microseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct FreqSpec {
    pub canonical: String,
    pub fixed_step: Option<i64>,
    pub business: bool,
}

impl FreqSpec {
    pub fn is_fixed(&self) -> bool {
        self.fixed_step.is_some()
    }
}

/// Reads a `freq` string; unknown strings are `FREQ_UNSUPPORTED`.
pub fn parse_freq(s: &str, allow_business: bool) -> Result<FreqSpec> {
    let unsupported = || {
        HoraError::new(ErrorCode::FreqUnsupported, format!("freq '{s}' is not recognised")).with("freq", s)
    };
    if s == "B" {
        return if allow_business {
            Ok(FreqSpec { canonical: "B".into(), fixed_step: None, business: true })
        } else {
            Err(unsupported().with("requires_version", "2026-11"))
        };
    }
    let digits = s.bytes().take_while(|b| b.is_ascii_digit()).count();
    let n: i64 = if digits == 0 { 1 } else { s[..digits].parse().map_err(|_| unsupported())? };
    if n == 0 {
        return Err(unsupported());
    }
    let (unit, canon) = match &s[digits..] {
        "s" | "S" => (MICROS_PER_SEC, "s"),
        "min" | "T" | "m" => (60 * MICROS_PER_SEC, "min"),
        "h" | "H" => (3600 * MICROS_PER_SEC, "h"),
        "d" | "D" => (MICROS_PER_DAY, "d"),
        "w" | "W" => (7 * MICROS_PER_DAY, "w"),
        _ => return Err(unsupported()),
    };
    let canonical = if n == 1 { canon.to_string() } else { format!("{n}{canon}") };
    Ok(FreqSpec { canonical, fixed_step: Some(n * unit), business: false })
}

/// The modal step of sorted distinct instants, with the share of steps equal to it.
pub fn infer_freq(sorted: &[i64], _zone: &Zone, _allow_business: bool) -> Option<(FreqSpec, f64)> {
    if sorted.len() < 2 {
        return None;
    }
    let mut diffs: Vec<i64> = sorted.windows(2).map(|w| w[1] - w[0]).collect();
    diffs.sort_unstable();
    let (mut best, mut best_n, mut i) = (0, 0, 0);
    while i < diffs.len() {
        let j = diffs[i..].iter().take_while(|&&d| d == diffs[i]).count();
        if j > best_n {
            best = diffs[i];
            best_n = j;
        }
        i += j;
    }
    let token = fixed_token(best)?;
    let freq = parse_freq(&token, false).ok()?;
    Some((freq, best_n as f64 / diffs.len() as f64))
}

fn fixed_token(step: i64) -> Option<String> {
    for (unit, name) in [(7 * MICROS_PER_DAY, "w"), (MICROS_PER_DAY, "d"), (3_600_000_000, "h"), (60_000_000, "min"), (MICROS_PER_SEC, "s")] {
        if step > 0 && step % unit == 0 {
            let n = step / unit;
            return Some(if n == 1 { name.to_string() } else { format!("{n}{name}") });
        }
    }
    None
}

/// `t` moved `n` steps along `freq`.
pub fn step(t: i64, n: i64, freq: &FreqSpec, _zone: &Zone) -> i64 {
    match freq.fixed_step {
        Some(s) => t.saturating_add(n.saturating_mul(s)),
        None => business_step(t, n),
    }
}

/// Grid slots from `start` to `end` inclusive, computed without allocating.
pub fn grid_len(start: i64, end: i64, freq: &FreqSpec, zone: &Zone) -> u64 {
    if end < start {
        return 0;
    }
    match freq.fixed_step {
        Some(s) => ((end - start) / s) as u64 + 1,
        None => {
            let mut n = 0u64;
            let mut t = start;
            while t <= end {
                n += 1;
                t = step(t, 1, freq, zone);
            }
            n
        }
    }
}

fn business_step(t: i64, n: i64) -> i64 {
    let mut t = t;
    let dir = n.signum();
    for _ in 0..n.abs() {
        loop {
            t += dir * MICROS_PER_DAY;
            let wd = (t.div_euclid(MICROS_PER_DAY) + 3).rem_euclid(7); // 0 = Monday
            if wd < 5 {
                break;
            }
        }
    }
    t
}

/// `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_utc(t: i64) -> String {
    match Utc.timestamp_micros(t).single() {
        Some(dt) => dt.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        None => t.to_string(),
    }
}
