//! One `ds` string -> its shape and fields, on bytes, without allocation.
//!
//! The shape is decided from the string alone; day/month order is left open here and resolved
//! per entity (see `entity.rs`).

use super::civil::{days_from_civil, days_in_month, MAX_YEAR, MICROS_PER_DAY, MICROS_PER_SECOND, MIN_YEAR};

/// The written shape of one stamp. One shape per entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    Iso,
    CompactDate,
    SlashDate,
    /// `a/b/YYYY`, day/month order still unknown.
    DayMonth,
    UnixSeconds,
    UnixMillis,
    YearMonthDash,
    YearMonthSlash,
    YearMonthCompact,
    ChineseDate,
    ChineseYearMonth,
}

/// Fields of one lexed stamp. For `DayMonth` `a` and `b` are the first two numbers as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lexed {
    pub shape: Shape,
    pub year: i64,
    pub a: u32,
    pub b: u32,
    /// Micros since local midnight.
    pub tod: i64,
    /// Written offset in seconds east of UTC (`Z` is 0); `None` for a naive stamp.
    pub offset: Option<i32>,
    /// The stamp names an instant but no local clock: Unix time, `Z` or `-00:00` (RFC 9557 and
    /// RFC 3339 section 4.3: UTC known, local offset unknown). It never contradicts a zone option.
    pub clockless: bool,
    /// The absolute instant of a Unix-time stamp.
    pub unix: i64,
}

/// Longest string worth looking at; anything longer is no timestamp (keeps 10 kB inputs cheap).
const MAX_LEN: usize = 64;
/// The widest offset a stamp may carry, ±18:00 (as ISO 8601 and chrono's fixed offsets bound it;
/// chrono's parser alone reads up to ±23:59). The `raw` preset's reading keeps the same bound
/// through [`offset`].
const MAX_OFFSET_MINUTES: u32 = 18 * 60;
/// Unix time is accepted for instants from 2000-01-01 through 2100-12-31 (the contract's range).
const UNIX_MIN_S: i64 = 946_684_800;
const UNIX_MAX_S: i64 = 4_133_980_799;

const NIAN: &[u8] = "年".as_bytes();
const YUE: &[u8] = "月".as_bytes();
const RI: &[u8] = "日".as_bytes();

pub type LexResult = Result<Lexed, &'static str>;

impl Lexed {
    fn date(shape: Shape, year: i64, a: u32, b: u32) -> Lexed {
        Lexed { shape, year, a, b, tod: 0, offset: None, unix: 0, clockless: false }
    }

    /// Wall-clock micros (days and time of day as if UTC) once month `m` and day `d` are known.
    pub fn wall_micros(&self, m: u32, d: u32) -> i64 {
        days_from_civil(self.year, m, d) * MICROS_PER_DAY + self.tod
    }
}

/// Lexes one stamp. The error is the reason, phrased to follow "ds ".
pub fn lex(s: &str) -> LexResult {
    let b = s.as_bytes();
    if b.is_empty() {
        return Err("is empty");
    }
    // Said first: a CSV cell's stray blank is invisible, and every later reason would blame a
    // part of the stamp that is fine.
    if b[0].is_ascii_whitespace() || b[b.len() - 1].is_ascii_whitespace() {
        return Err("has leading or trailing whitespace");
    }
    if b.len() > MAX_LEN {
        return Err("is too long to be a timestamp");
    }
    if let Some(l) = lex_iso_seconds(b) {
        return l;
    }
    if b.iter().all(u8::is_ascii_digit) {
        return lex_number(b);
    }
    if b.len() >= 5 && digits(b, 0, 4).is_some() {
        let year = digits(b, 0, 4).unwrap_or(0) as i64;
        return match b[4] {
            b'-' => lex_dash(b, year),
            b'/' => lex_slash(b, year),
            _ if b[4..].starts_with(NIAN) => lex_chinese(b, year),
            _ if five_digit_year_first(b) => Err("has a year outside 1 to 9999"),
            _ => Err("is not in a supported timestamp format"),
        };
    }
    lex_day_month(b)
}

/// `YYYYY-M[M][-D[D]...]`, with `/`, or `YYYYY年`: a year-first stamp whose year has five digits
/// (99999-01-05, 10000年1月5日), not a D/M/YYYY typo (`12345/6/2024`) or another shape.
fn five_digit_year_first(b: &[u8]) -> bool {
    if !b[4].is_ascii_digit() {
        return false;
    }
    if b[5..].starts_with(NIAN) {
        return true;
    }
    let part = |from: usize| b[from.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    let sep = |i: usize| b.get(i).copied().filter(|c| matches!(c, b'-' | b'/'));
    let (Some(s), 1..=2) = (sep(5), part(6)) else { return false };
    let after_month = 6 + part(6);
    match b.get(after_month) {
        None => true,
        Some(&c) if c == s => (1..=2).contains(&part(after_month + 1)),
        _ => false,
    }
}

/// Fast path for the two commonest shapes, `YYYY-MM-DDTHH:MM:SSZ` and `YYYY-MM-DD HH:MM:SS`
/// (or with `T`): fixed positions, no branching per character. Anything else goes the general way.
fn lex_iso_seconds(b: &[u8]) -> Option<LexResult> {
    let offset = match b.len() {
        19 => None,
        20 if b[19] == b'Z' => Some(0),
        _ => return None,
    };
    if b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    const DIGITS: [usize; 14] = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
    if DIGITS.iter().any(|&i| !b[i].is_ascii_digit()) {
        return None;
    }
    let two = |i: usize| u32::from(b[i] - b'0') * 10 + u32::from(b[i + 1] - b'0');
    let year = i64::from(two(0) * 100 + two(2));
    let (m, d, hh, mm, ss) = (two(5), two(8), two(11), two(14), two(17));
    if let Err(e) = check_date(year, m, d) {
        return Some(Err(e));
    }
    if hh > 23 || mm > 59 || ss > 59 {
        return None; // the general path words the error
    }
    let tod = (i64::from(hh) * 3600 + i64::from(mm) * 60 + i64::from(ss)) * MICROS_PER_SECOND;
    Some(Ok(Lexed { tod, offset, clockless: offset.is_some(), ..Lexed::date(Shape::Iso, year, m, d) }))
}

/// The number-looking rule: an all-digit `ds` is told apart by its length alone.
/// 6 digits `YYYYMM`, 8 digits `YYYYMMDD`, 9-10 digits Unix seconds, 12-13 digits Unix
/// milliseconds; no two readings share a length, so the rule never guesses.
fn lex_number(b: &[u8]) -> LexResult {
    match b.len() {
        6 => {
            let (y, m) = (num(&b[0..4]) as i64, num(&b[4..6]));
            check_date(y, m, 1)?;
            Ok(Lexed::date(Shape::YearMonthCompact, y, m, 1))
        }
        8 => {
            let (y, m, d) = (num(&b[0..4]) as i64, num(&b[4..6]), num(&b[6..8]));
            check_date(y, m, d)?;
            Ok(Lexed::date(Shape::CompactDate, y, m, d))
        }
        9 | 10 | 12 | 13 => {
            let v = b.iter().fold(0i64, |acc, &c| acc * 10 + i64::from(c - b'0'));
            let (shape, secs_scale) = if b.len() <= 10 { (Shape::UnixSeconds, 1) } else { (Shape::UnixMillis, 1000) };
            if v < UNIX_MIN_S * secs_scale || v > (UNIX_MAX_S + 1) * secs_scale - 1 {
                return Err("is a Unix time outside the years 2000 to 2100");
            }
            let unix = v * (MICROS_PER_SECOND / secs_scale);
            Ok(Lexed { unix, offset: Some(0), clockless: true, ..Lexed::date(shape, 0, 0, 0) })
        }
        _ => Err("is a number that is neither YYYYMM, YYYYMMDD nor Unix seconds or milliseconds"),
    }
}

/// `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DD[T ]HH:MM[:SS[.f]][Z|±HH:MM]`.
fn lex_dash(b: &[u8], year: i64) -> LexResult {
    let m = digits(b, 5, 2).ok_or("has no two-digit month after YYYY-")?;
    if b.len() == 7 {
        check_date(year, m, 1)?;
        return Ok(Lexed::date(Shape::YearMonthDash, year, m, 1));
    }
    if b.get(7) != Some(&b'-') {
        return Err("is not in a supported timestamp format");
    }
    let d = digits(b, 8, 2).ok_or("has no two-digit day after YYYY-MM-")?;
    check_date(year, m, d)?;
    let lexed = Lexed::date(Shape::Iso, year, m, d);
    if b.len() == 10 {
        return Ok(lexed);
    }
    match b[10] {
        b'T' | b't' | b' ' => time_tail(b, 11, lexed, Hour::TwoDigits),
        _ => Err("has an unexpected character after the date"),
    }
}

/// `YYYY/M`, `YYYY/M/D`, `YYYY/M/D HH:MM[:SS[.f]]`.
fn lex_slash(b: &[u8], year: i64) -> LexResult {
    let (m, i) = small(b, 5).ok_or("has no month after YYYY/")?;
    if i == b.len() {
        check_date(year, m, 1)?;
        return Ok(Lexed::date(Shape::YearMonthSlash, year, m, 1));
    }
    if b[i] != b'/' {
        return Err("is not in a supported timestamp format");
    }
    let (d, j) = small(b, i + 1).ok_or("has no day after YYYY/M/")?;
    check_date(year, m, d)?;
    date_then_time(b, j, Lexed::date(Shape::SlashDate, year, m, d))
}

/// `D/M/YYYY` or `M/D/YYYY` (order resolved per entity), time optional.
fn lex_day_month(b: &[u8]) -> LexResult {
    let (a, i) = small(b, 0).ok_or("is not in a supported timestamp format")?;
    if b.get(i) != Some(&b'/') {
        return Err("is not in a supported timestamp format");
    }
    let (c, j) = small(b, i + 1).ok_or("is not in a supported timestamp format")?;
    if b.get(j) != Some(&b'/') {
        return Err("is not in a supported timestamp format");
    }
    let year = digits(b, j + 1, 4).ok_or("has no four-digit year in D/M/YYYY")? as i64;
    if b.get(j + 5).is_some_and(u8::is_ascii_digit) {
        return Err("has a year outside 1 to 9999");
    }
    // Both readings must be possible calendar-wise for at least one order.
    let dmy_ok = check_date(year, c, a).is_ok();
    let mdy_ok = check_date(year, a, c).is_ok();
    if !dmy_ok && !mdy_ok {
        check_year(year)?;
        return Err("is not a valid date in either day/month order");
    }
    date_then_time(b, j + 5, Lexed::date(Shape::DayMonth, year, a, c))
}

/// `2024年1月`, `2024年1月5日`, `2024年1月5日 12:00`.
fn lex_chinese(b: &[u8], year: i64) -> LexResult {
    let (m, i) = small(b, 4 + NIAN.len()).ok_or("has no month after 年")?;
    if !b[i..].starts_with(YUE) {
        return Err("has no 月 after the month");
    }
    let i = i + YUE.len();
    if i == b.len() {
        check_date(year, m, 1)?;
        return Ok(Lexed::date(Shape::ChineseYearMonth, year, m, 1));
    }
    let (d, j) = small(b, i).ok_or("has no day after 月")?;
    if !b[j..].starts_with(RI) {
        return Err("has no 日 after the day");
    }
    check_date(year, m, d)?;
    let lexed = Lexed::date(Shape::ChineseDate, year, m, d);
    let j = j + RI.len();
    if j == b.len() {
        return Ok(lexed);
    }
    // The time may follow directly or after one space or `T`.
    let start = if matches!(b[j], b' ' | b'T') { j + 1 } else { j };
    time_tail(b, start, lexed, Hour::OneOrTwoDigits)
}

fn date_then_time(b: &[u8], i: usize, lexed: Lexed) -> LexResult {
    if i == b.len() {
        return Ok(lexed);
    }
    match b[i] {
        b' ' | b'T' => time_tail(b, i + 1, lexed, Hour::OneOrTwoDigits),
        _ => Err("has an unexpected character after the date"),
    }
}

/// How a time's hour may be written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hour {
    /// ISO 8601: `HH`.
    TwoDigits,
    /// After a date written with one-digit months and days (slash, D/M/YYYY and Chinese dates):
    /// `H` or `HH`, as spreadsheets write `2026/1/13 0:00` by default.
    OneOrTwoDigits,
}

/// `HH:MM[:SS[.f{1,9}]]` (`H:MM` too where `hour` allows it) then optional `Z` / `±HH:MM` /
/// `±HHMM` / `±HH`, then the end.
fn time_tail(b: &[u8], i: usize, mut lexed: Lexed, hour: Hour) -> LexResult {
    let (hh, i) = match hour {
        Hour::TwoDigits => (digits(b, i, 2).ok_or("has no two-digit hour in its time")?, i + 2),
        Hour::OneOrTwoDigits => small(b, i).ok_or("has no hour in its time")?,
    };
    if b.get(i) != Some(&b':') {
        return Err("has no minutes in its time (HH:MM)");
    }
    let mm = digits(b, i + 1, 2).ok_or("has no two-digit minute in its time")?;
    let mut j = i + 3;
    let mut ss = 0;
    let mut frac = 0i64;
    if b.get(j) == Some(&b':') {
        ss = digits(b, j + 1, 2).ok_or("has no two-digit second in its time")?;
        j += 3;
        if matches!(b.get(j), Some(b'.') | Some(b',')) {
            j += 1;
            let start = j;
            let mut scale = 100_000i64;
            while j < b.len() && b[j].is_ascii_digit() {
                frac += i64::from(b[j] - b'0') * scale;
                scale /= 10;
                j += 1;
            }
            if j == start || j - start > 9 {
                return Err("has a fractional second with no digits or more than 9");
            }
        }
    }
    if hh > 23 {
        return Err("has an hour above 23 (24:00 is not accepted; use 00:00 of the next day)");
    }
    if mm > 59 || ss > 59 {
        return Err("has minutes or seconds above 59");
    }
    lexed.tod = (i64::from(hh) * 3600 + i64::from(mm) * 60 + i64::from(ss)) * MICROS_PER_SECOND + frac;
    if j == b.len() {
        return Ok(lexed);
    }
    lexed.offset = Some(offset(b, j)?);
    lexed.clockless = matches!(&b[j..], b"Z" | b"z" | b"-00:00" | b"-0000" | b"-00");
    Ok(lexed)
}

/// The offset written from `b[i]` to the end (`Z`, `±HH:MM`, `±HHMM` or `±HH`) in seconds, or why
/// it is none.
pub(crate) fn offset(b: &[u8], i: usize) -> Result<i32, &'static str> {
    let rest = &b[i..];
    if let Some(b'Z' | b'z') = rest.first() {
        return match rest.get(1) {
            None => Ok(0),
            Some(c) => Err(after_offset(*c)),
        };
    }
    let sign = match rest.first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return Err("has unexpected text after its time"),
    };
    // The longest offset form the text starts with: ±HH:MM, ±HHMM, ±HH.
    let (len, hh, mm) = if rest.len() >= 6 && rest[3] == b':' {
        (6, digits(rest, 1, 2), digits(rest, 4, 2))
    } else if rest.len() >= 5 && digits(rest, 3, 2).is_some() {
        (5, digits(rest, 1, 2), digits(rest, 3, 2))
    } else {
        (3, digits(rest, 1, 2), Some(0))
    };
    let (Some(hh), Some(mm)) = (hh, mm) else {
        return Err("has an offset that is not ±HH:MM");
    };
    match rest.get(len) {
        None => {}
        Some(c) if c.is_ascii_digit() || *c == b':' => return Err("has an offset that is not ±HH:MM"),
        Some(c) => return Err(after_offset(*c)),
    }
    if mm > 59 {
        return Err("has offset minutes above 59");
    }
    if hh * 60 + mm > MAX_OFFSET_MINUTES {
        return Err("has an offset beyond ±18:00");
    }
    Ok(sign * (hh as i32 * 3600 + mm as i32 * 60))
}

/// The reason for text after a well-formed offset (`Z` or `±HH:MM`), starting with `c`.
fn after_offset(c: u8) -> &'static str {
    if c == b'[' {
        // RFC 9557 and Java's ZonedDateTime write the zone after the offset (`Z[UTC]` too).
        "has a bracketed zone name after its offset (send the zone as options.timezone)"
    } else {
        "has unexpected text after its offset"
    }
}

fn check_year(y: i64) -> Result<(), &'static str> {
    if (MIN_YEAR..=MAX_YEAR).contains(&y) {
        Ok(())
    } else {
        Err("has a year outside 1 to 9999")
    }
}

fn check_date(y: i64, m: u32, d: u32) -> Result<(), &'static str> {
    check_year(y)?;
    if !(1..=12).contains(&m) {
        return Err("has a month outside 1 to 12");
    }
    if d == 0 || d > days_in_month(y, m) {
        return Err("has a day that does not exist in its month");
    }
    Ok(())
}

/// Exactly `n` ASCII digits at `i`.
fn digits(b: &[u8], i: usize, n: usize) -> Option<u32> {
    let s = b.get(i..i + n)?;
    if s.iter().all(u8::is_ascii_digit) {
        Some(num(s))
    } else {
        None
    }
}

/// One or two ASCII digits at `i`; returns the value and the index after them.
fn small(b: &[u8], i: usize) -> Option<(u32, usize)> {
    let first = *b.get(i).filter(|c| c.is_ascii_digit())?;
    match b.get(i + 1) {
        Some(c) if c.is_ascii_digit() => Some((u32::from(first - b'0') * 10 + u32::from(c - b'0'), i + 2)),
        _ => Some((u32::from(first - b'0'), i + 1)),
    }
}

fn num(s: &[u8]) -> u32 {
    s.iter().fold(0, |acc, &c| acc * 10 + u32::from(c - b'0'))
}

#[cfg(test)]
mod tests {
    use super::{lex, offset, Shape};

    #[test]
    fn an_offset_is_refused_for_its_own_fault_minutes_above_59_or_beyond_18_hours() {
        assert_eq!(offset(b"+01:60", 0), Err("has offset minutes above 59"));
        assert_eq!(offset(b"+25:00", 0), Err("has an offset beyond ±18:00"));
        assert_eq!(offset(b"-18:00", 0), Ok(-18 * 3600));
    }

    #[test]
    fn text_after_a_well_formed_offset_is_refused_as_such_not_as_a_bad_offset() {
        assert_eq!(offset(b"+01:00[Europe/Berlin]", 0), Err("has a bracketed zone name after its offset (send the zone as options.timezone)"));
        assert_eq!(offset(b"+01 UTC", 0), Err("has unexpected text after its offset"));
        assert_eq!(offset(b"Z[UTC]", 0), Err("has a bracketed zone name after its offset (send the zone as options.timezone)"));
        assert_eq!(offset(b"Zulu", 0), Err("has unexpected text after its offset"));
        assert_eq!(offset(b"z", 0), Ok(0));
        assert_eq!(offset(b"+0100x", 0), Err("has unexpected text after its offset"));
        // More digits or colons are a malformed offset, not trailing text.
        for bad in [&b"+010"[..], b"+01:00:00", b"+01000", b"+1:00", b"+01:0"] {
            assert_eq!(offset(bad, 0), Err("has an offset that is not ±HH:MM"), "{:?}", std::str::from_utf8(bad));
        }
        assert_eq!(offset(b"+01", 0), Ok(3600));
        assert_eq!(offset(b"-0530", 0), Ok(-(5 * 3600 + 30 * 60)));
    }

    #[test]
    fn a_five_digit_year_is_named_as_such_and_nothing_else_is() {
        for s in ["99999-01-05T05:00:00Z", "99999-01", "10000/1/5", "20240-01-05", "5/1/10000", "5/1/10000 12:00", "10000年1月5日", "10000年1月"] {
            assert_eq!(lex(s), Err("has a year outside 1 to 9999"), "{s}");
        }
        for s in ["12345/6/2024", "202401-05", "12345-678", "2024x-1-5"] {
            assert_eq!(lex(s), Err("is not in a supported timestamp format"), "{s}");
        }
    }

    #[test]
    fn a_stamp_with_a_leading_or_trailing_blank_is_refused_for_the_blank() {
        for s in ["2024-01-05 ", " 2024-01-05", "2024-01-05 00:00:00+01 ", "2024-01-05T00:00:00Z\t", "1704412800\n"] {
            assert_eq!(lex(s), Err("has leading or trailing whitespace"), "{s:?}");
        }
    }

    #[test]
    fn a_one_digit_hour_is_read_after_dates_with_one_digit_fields_but_not_in_iso() {
        const H: i64 = 3_600_000_000;
        for (s, shape, tod) in [
            ("2026/1/13 0:00", Shape::SlashDate, 0),
            ("2026/1/13T7:05:09", Shape::SlashDate, 7 * H + 5 * 60_000_000 + 9_000_000),
            ("13/1/2026 9:30", Shape::DayMonth, 9 * H + 30 * 60_000_000),
            ("2026年1月13日 7:00", Shape::ChineseDate, 7 * H),
            ("2026/1/13 07:00+01:00", Shape::SlashDate, 7 * H),
            ("2026/1/13 23:00", Shape::SlashDate, 23 * H),
        ] {
            let l = lex(s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
            assert_eq!((l.shape, l.tod), (shape, tod), "{s:?}");
        }
        assert_eq!(lex("2026-01-13 7:00"), Err("has no two-digit hour in its time"));
        assert_eq!(lex("2026/1/13 7"), Err("has no minutes in its time (HH:MM)"));
        assert_eq!(lex("2026/1/13 123:00"), Err("has no minutes in its time (HH:MM)"));
        assert_eq!(lex("2026/1/13 7:0"), Err("has no two-digit minute in its time"));
        assert_eq!(lex("2026/1/13 24:00").unwrap_err(), "has an hour above 23 (24:00 is not accepted; use 00:00 of the next day)");
    }
}
