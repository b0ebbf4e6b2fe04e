//! Proleptic Gregorian calendar arithmetic on plain integers (no allocation, no chrono types),
//! used on the hot parse path and by calendar stepping.

use super::Micros;

pub const MICROS_PER_SECOND: i64 = 1_000_000;
pub const MICROS_PER_MINUTE: i64 = 60 * MICROS_PER_SECOND;
pub const MICROS_PER_HOUR: i64 = 60 * MICROS_PER_MINUTE;
pub const MICROS_PER_DAY: i64 = 24 * MICROS_PER_HOUR;

/// Years a stamp may carry: four digits, year 0 excluded (it does not exist in common usage).
pub const MIN_YEAR: i64 = 1;
pub const MAX_YEAR: i64 = 9999;

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm; valid for any i32-range year).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i64;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Civil date `(year, month, day)` of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Day of the week of a day count: 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday).
pub fn weekday(days: i64) -> u32 {
    (days + 3).rem_euclid(7) as u32
}

/// First and last instant (inclusive) of the supported years, as wall-clock micros.
pub fn supported_range() -> (Micros, Micros) {
    let lo = days_from_civil(MIN_YEAR, 1, 1) * MICROS_PER_DAY;
    let hi = days_from_civil(MAX_YEAR + 1, 1, 1) * MICROS_PER_DAY - 1;
    (lo, hi)
}

pub fn in_supported_range(t: Micros) -> bool {
    let (lo, hi) = supported_range();
    (lo..=hi).contains(&t)
}

/// Split micros into (days since epoch, micros into the day).
pub fn split_day(t: Micros) -> (i64, i64) {
    (t.div_euclid(MICROS_PER_DAY), t.rem_euclid(MICROS_PER_DAY))
}

/// `YYYY-MM-DDTHH:MM:SSZ`, the contract's response format (sub-second parts are cut, not rounded).
pub fn format_utc(t: Micros) -> String {
    let mut out = String::with_capacity(20);
    write_utc(&mut out, t);
    out
}

/// [`format_utc`] appended to `out`: no allocation per stamp where many are written in a row.
pub fn write_utc(out: &mut String, t: Micros) {
    use std::fmt::Write;
    let (days, tod) = split_day(t);
    let (y, m, d) = civil_from_days(days);
    let secs = tod / MICROS_PER_SECOND;
    let (hh, mm, ss) = (secs / 3600, secs / 60 % 60, secs % 60);
    if !(0..=9999).contains(&y) {
        // Outside four-digit years ISO 8601 asks for a sign; never reached from parsed input.
        // Writing to a String cannot fail.
        let _ = write!(out, "{y:+05}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z");
        return;
    }
    // Digits by hand: the formatting machinery cost more than the rest of a forecast row.
    let two = |v: i64| [b'0' + (v / 10) as u8, b'0' + (v % 10) as u8];
    let (m, d) = (i64::from(m), i64::from(d));
    let [y1, y2] = two(y / 100);
    let [y3, y4] = two(y % 100);
    let [m1, m2] = two(m);
    let [d1, d2] = two(d);
    let [h1, h2] = two(hh);
    let [n1, n2] = two(mm);
    let [s1, s2] = two(ss);
    let bytes = [y1, y2, y3, y4, b'-', m1, m2, b'-', d1, d2, b'T', h1, h2, b':', n1, n2, b':', s1, s2, b'Z'];
    out.push_str(std::str::from_utf8(&bytes).expect("ASCII digits"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_stamps_are_written_as_chrono_formats_them() {
        // Every third day from 0001 to 9999 at a moving time of day, plus the last microsecond.
        let (mut t, end) = (-62_135_596_800 * MICROS_PER_SECOND, 253_402_300_799 * MICROS_PER_SECOND);
        let mut k = 0i64;
        while t <= end {
            for u in [t, t + (k * 7919 % 86_400) * MICROS_PER_SECOND, t + MICROS_PER_DAY - 1] {
                let want = chrono::DateTime::from_timestamp_micros(u).unwrap().format("%Y-%m-%dT%H:%M:%SZ").to_string();
                assert_eq!(format_utc(u), want);
            }
            t += 3 * MICROS_PER_DAY;
            k += 1;
        }
    }
}
