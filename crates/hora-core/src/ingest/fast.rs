//! The common body read without serde's per-value machinery: a top-level object whose `series`
//! rows are flat objects of exactly `unique_id` (string), `ds` (string) and `y` (number or null),
//! with no escapes, no covariates and no `future_covariates`.
//!
//! Anything else (an escape, another key, a duplicate, a wrong type, bad syntax, a number beyond
//! f64) makes it give up, and `parse_body` runs the general serde path, which is the one place
//! that reports errors. For every body it accepts, it builds the same `ParsedBody` as that path
//! (the tests below run both side by side). The rows are most of the bytes, and here each costs a
//! few byte scans and one float parse.

use super::body::{ParsedBody, TOP_LEVEL_FIELDS};
use super::builder::{RowKind, TableBuilder};
use super::value::{FieldRead, StrictValue};
use serde::de::DeserializeSeed;

/// From this many bytes of rows on, two threads read them, one half each (a 3 MB body reads in
/// about half the time; the halves are merged as if read in one pass).
const TWO_THREAD_BYTES: usize = 1 << 20;

/// `None` when the body is not of the common shape (the caller then parses it the general way).
pub(super) fn parse_common(text: &str) -> Option<ParsedBody> {
    parse_common_split(text, TWO_THREAD_BYTES)
}

/// `parse_common`, reading the rows on two threads when they span `two_thread_bytes` or more.
fn parse_common_split(text: &str, two_thread_bytes: usize) -> Option<ParsedBody> {
    let mut s = Scan { b: text.as_bytes(), i: 0 };
    let mut out = ParsedBody { is_object: true, ..ParsedBody::default() };
    let mut series: Option<TableBuilder> = None;
    s.ws();
    s.eat(b'{')?;
    s.ws();
    if s.eat(b'}').is_none() {
        loop {
            match s.key()? {
                "series" if series.is_none() => series = Some(rows(&mut s, two_thread_bytes)?),
                "series" | "future_covariates" => return None,
                k if TOP_LEVEL_FIELDS.contains(&k) && !out.top.contains_key(k) => {
                    let start = s.i;
                    s.skip_value()?;
                    // The small fields go through the same strict reader as the general path.
                    let mut de = serde_json::Deserializer::from_str(&text[start..s.i]);
                    let field = FieldRead::new();
                    let value = StrictValue::top_level(k, &mut out.errors, &field).deserialize(&mut de).ok()?;
                    de.end().ok()?;
                    // A field with too many values is refused by the general path.
                    if field.over() {
                        return None;
                    }
                    out.top.insert(k.to_string(), value);
                }
                _ => return None,
            }
            s.ws();
            match s.next()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
    }
    s.ws();
    if s.i != s.b.len() {
        return None;
    }
    out.series = series?.finish();
    Some(out)
}

/// `series`: at least one row, each exactly `unique_id`, `ds`, `y` in any order.
fn rows(s: &mut Scan, two_thread_bytes: usize) -> Option<TableBuilder> {
    s.eat(b'[')?;
    let start = s.i;
    let rest = s.b.len() - start;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if rest >= two_thread_bytes && cores > 1 {
        if let Some(split) = row_start_after(s.b, start, start + rest / 2) {
            // The second half from the row starting at `split`; the first half must end on that
            // very row boundary. Either way the outcome is that of one pass (else: one pass).
            let (first, second) = std::thread::scope(|scope| {
                let b = s.b;
                let later = scope.spawn(move || {
                    let mut t = Scan { b, i: split };
                    row_run(&mut t, None, rest / 2).map(|rows| (rows, t.i))
                });
                let mut f = Scan { b, i: start };
                (row_run(&mut f, Some(split), rest / 2), later.join().ok().flatten())
            });
            if let (Some(mut rows), Some((tail, end))) = (first, second) {
                rows.append(tail);
                s.i = end;
                #[cfg(test)]
                tests::SPLIT_READS.with(|n| n.set(n.get() + 1));
                return Some(rows);
            }
        }
    }
    row_run(s, None, rest)
}

/// Rows from `s.i` to the closing `]` (left behind it), or, with `stop_at`, up to the row that
/// starts there: `None` when the rows do not land on it.
fn row_run(s: &mut Scan, stop_at: Option<usize>, bytes: usize) -> Option<TableBuilder> {
    let mut builder = TableBuilder::new(RowKind::Series);
    // A compact row with an ISO stamp takes about 60 bytes.
    builder.reserve_for(bytes, 48);
    loop {
        s.ws();
        match stop_at {
            Some(stop) if s.i == stop && builder.row_count() > 0 => return Some(builder),
            Some(stop) if s.i > stop => return None,
            _ => {}
        }
        s.eat(b'{')?;
        let (mut uid, mut ds, mut y) = (None, None, None);
        for member in 0..3 {
            match s.row_key()? {
                "unique_id" if uid.is_none() => uid = Some(s.string()?),
                "ds" if ds.is_none() => ds = Some(s.string()?),
                "y" if y.is_none() => y = Some(s.number_or_null()?),
                _ => return None,
            }
            // A comma before the next of the three members, the closing brace after the third.
            s.ws();
            s.eat(if member < 2 { b',' } else { b'}' })?;
        }
        builder.push_row(uid?, ds?, y?);
        s.ws();
        match s.next()? {
            b',' => continue,
            b']' if stop_at.is_none() => return Some(builder),
            _ => return None,
        }
    }
}

/// The first `{` at or after `mid` outside strings whose previous non-blank byte is a comma: a
/// row start if `mid` lies inside the rows (the caller checks that the rows land on it). Strings
/// here hold no quotes (an escape makes the reader give up), so quote parity tells inside from out.
fn row_start_after(b: &[u8], from: usize, mid: usize) -> Option<usize> {
    let mut inside = memchr::memchr_iter(b'"', &b[from..mid]).count() % 2 == 1;
    let mut last = None;
    for (k, &c) in b[mid..].iter().enumerate() {
        match c {
            b'"' => inside = !inside,
            b'{' if !inside && last == Some(b',') => return Some(mid + k),
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => {}
        }
        last = Some(c);
    }
    None
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scan<'a> {
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.b.get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    #[inline]
    fn next(&mut self) -> Option<u8> {
        let c = *self.b.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    /// An object member's key and its colon, with the whitespace around them.
    #[inline]
    fn key(&mut self) -> Option<&'a str> {
        self.ws();
        let key = self.string()?;
        self.ws();
        self.eat(b':')?;
        self.ws();
        Some(key)
    }

    /// A row member's key: the compact spellings (`"ds":`) matched whole, anything else read as
    /// a key (keys are most of a row's bytes after the stamp).
    #[inline]
    fn row_key(&mut self) -> Option<&'a str> {
        self.ws();
        for (literal, key) in [(&b"\"ds\":"[..], "ds"), (b"\"y\":", "y"), (b"\"unique_id\":", "unique_id")] {
            if self.b[self.i..].starts_with(literal) {
                self.i += literal.len();
                self.ws();
                return Some(key);
            }
        }
        self.key()
    }

    /// A string without escapes or control characters (the body is already valid UTF-8, and a
    /// quote byte never occurs inside a multi-byte character, so the slice is valid too).
    #[inline]
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let start = self.i;
        // The closing quote by a vectorised search, then one branch-free pass over the string for
        // what this reader does not take (an escape, or a control character the grammar forbids).
        let len = memchr::memchr(b'"', &self.b[start..])?;
        let text = &self.b[start..start + len];
        if text.iter().fold(false, |bad, &c| bad | (c == b'\\') | (c < 0x20)) {
            return None;
        }
        self.i = start + len + 1;
        // SAFETY: the whole body was checked to be UTF-8 and the slice ends on ASCII quotes.
        Some(unsafe { std::str::from_utf8_unchecked(&self.b[start..start + len]) })
    }

    /// `null` (NaN, as the general path reads it) or a JSON number. Rust's float parsing rounds
    /// correctly, as serde_json does with `float_roundtrip`, and an integer read as u64 or i64 and
    /// then converted rounds the same way, so both paths give the same bits; `-0` is -0.0 in both.
    #[inline]
    fn number_or_null(&mut self) -> Option<f64> {
        if self.b[self.i..].starts_with(b"null") {
            self.i += 4;
            return Some(f64::NAN);
        }
        let start = self.i;
        let negative = self.eat(b'-').is_some();
        // The digits are gathered while the grammar is checked: most values take the exact
        // shortcut below and are never scanned twice.
        let (mut mantissa, mut digits, mut scale) = (0u64, 0u32, 0i32);
        let mut gather = |c: u8, fraction: bool| {
            if mantissa != 0 || c != b'0' {
                digits += 1;
            }
            mantissa = mantissa.wrapping_mul(10).wrapping_add((c - b'0') as u64);
            if fraction {
                scale -= 1;
            }
        };
        match self.next()? {
            b'0' => {}
            c @ b'1'..=b'9' => {
                gather(c, false);
                while let Some(&c @ b'0'..=b'9') = self.b.get(self.i) {
                    gather(c, false);
                    self.i += 1;
                }
            }
            _ => return None,
        }
        if self.eat(b'.').is_some() {
            self.b.get(self.i).filter(|c| c.is_ascii_digit())?;
            while let Some(&c @ b'0'..=b'9') = self.b.get(self.i) {
                gather(c, true);
                self.i += 1;
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            let minus = match self.b.get(self.i) {
                Some(b'-') => (self.i += 1, true).1,
                Some(b'+') => (self.i += 1, false).1,
                _ => false,
            };
            self.b.get(self.i).filter(|c| c.is_ascii_digit())?;
            let mut e = 0i32;
            while let Some(&c @ b'0'..=b'9') = self.b.get(self.i) {
                e = e.saturating_mul(10).saturating_add((c - b'0') as i32);
                self.i += 1;
            }
            scale = scale.saturating_add(if minus { -e } else { e });
        }
        // Clinger's shortcut: a mantissa below 2^53 and a power of ten up to 1e22 are both exact
        // in f64, so one multiplication or division rounds correctly, as the full parse does.
        const POW10: [f64; 23] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
            1e19, 1e20, 1e21, 1e22,
        ];
        if digits <= 15 && scale.unsigned_abs() <= 22 {
            let m = mantissa as f64;
            let v = if scale < 0 { m / POW10[(-scale) as usize] } else { m * POW10[scale as usize] };
            return Some(if negative { -v } else { v });
        }
        // SAFETY: ASCII digits and signs only.
        let text = unsafe { std::str::from_utf8_unchecked(&self.b[start..self.i]) };
        // Beyond f64 the general path answers "number out of range": leave it to that path.
        text.parse::<f64>().ok().filter(|v| v.is_finite())
    }

    /// Moves past one value of any kind. Only its extent matters: serde_json reads the slice
    /// afterwards and refuses it if it is not JSON.
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.next()? {
                b'"' => loop {
                    match self.next()? {
                        b'\\' => self.i += 1,
                        b'"' => break,
                        _ => {}
                    }
                },
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth = depth.checked_sub(1)?,
                _ => {
                    // A scalar: up to the next delimiter.
                    while let Some(c) = self.b.get(self.i) {
                        if matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                            break;
                        }
                        self.i += 1;
                    }
                }
            }
            if depth == 0 {
                return Some(());
            }
            // Inside a container: separators and whitespace are part of it.
            while let Some(b',' | b':' | b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
                self.i += 1;
            }
            if let Some(b'}' | b']') = self.b.get(self.i) {
                self.i += 1;
                depth -= 1;
                if depth == 0 {
                    return Some(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::parse_body_general;
    use proptest::prelude::*;

    /// The fast path accepts `body` and builds exactly what the general path builds.
    fn same_as_general(body: &str) {
        let fast = parse_common(body).unwrap_or_else(|| panic!("the fast path declined {body}"));
        let general = parse_body_general(body.as_bytes()).unwrap();
        assert_eq!(fast.top, general.top);
        assert_eq!(fast.errors, general.errors);
        assert_eq!(fast.is_object, general.is_object);
        assert!(fast.future.is_none() && general.future.is_none());
        let (a, b) = (&fast.series, &general.series);
        assert_eq!((&a.entities, &a.indptr, &a.rows, &a.ds), (&b.entities, &b.indptr, &b.rows, &b.ds));
        let bits = |t: &crate::ingest::RowTable| t.y.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(a), bits(b), "y of {body}");
        assert!(a.covariates.is_empty() && b.covariates.is_empty());
    }

    #[test]
    fn common_bodies_read_the_same_on_both_paths() {
        same_as_general(r#"{"h":2,"series":[{"unique_id":"a","ds":"2024-01-01T00:00:00Z","y":1}]}"#);
        same_as_general(
            " {\n \"series\" : [ { \"y\" : null , \"ds\" : \"2024-01-01\" , \"unique_id\" : \"é\" } ,\r\n\t{\"ds\":\"x\",\"unique_id\":\"b\",\"y\":-0} ] , \"freq\" : \"D\" } ",
        );
        same_as_general(
            r#"{"options":{"cleaning":{"preset":"strict","accept":["d1"]},"x":[1,{"a":"\"]"}]},"level":[80,90],"model_options":{"flip_average":false},
                "series":[{"unique_id":"a","ds":"d","y":1e-400},{"unique_id":"a","ds":"d2","y":123456789012345678901234567890},
                {"unique_id":"a","ds":"d3","y":-9223372036854775809},{"unique_id":"a","ds":"d4","y":0.1E+2}],"model":"hora-1.0"}"#,
        );
        // A duplicate key inside a small field is recorded as on the general path.
        same_as_general(r#"{"series":[{"unique_id":"a","ds":"d","y":1}],"options":{"timezone":"UTC","timezone":"Europe/Berlin"}}"#);
    }

    #[test]
    fn other_shapes_are_left_to_the_general_path() {
        for body in [
            r#"{"series":[{"unique_id":"a","ds":"2024-01-01T00:00:00\u005A","y":1}]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1,"temp":2}]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1}],"future_covariates":[]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1,"y":2}]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d"}]}"#,
            r#"{"series":[{"unique_id":1,"ds":"d","y":1}]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":"1"}]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1e400}]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":01}]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1.}]}"#,
            r#"{"series":[]}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1}],"h":1,"h":2}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1}],"nope":1}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1}],"h":[1}"#,
            r#"{"series":[{"unique_id":"a","ds":"d","y":1}]} x"#,
            "{\"series\":[{\"unique_id\":\"a\tb\",\"ds\":\"d\",\"y\":1}]}",
            r#"{"h":2}"#,
            "[]",
        ] {
            assert!(parse_common(body).is_none(), "the fast path accepted {body}");
        }
    }

    fn number() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<f64>().prop_filter("finite", |v| v.is_finite()).prop_map(|v| format!("{v:e}")),
            any::<f64>().prop_filter("finite", |v| v.is_finite()).prop_map(|v| format!("{v}")),
            any::<i64>().prop_map(|v| v.to_string()),
            any::<u64>().prop_map(|v| v.to_string()),
            "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,25})?([eE][+-]?[0-9]{1,2})?",
            Just("null".to_string()),
        ]
    }

    fn row() -> impl Strategy<Value = String> {
        ("[a-c\u{e9}]{0,3}", "[0-9T:Z -]{0,25}", number(), 0..6usize, "[ \n]{0,2}").prop_map(|(uid, ds, y, order, ws)| {
            let mut members = [format!(r#""unique_id"{ws}:"{uid}""#), format!(r#""ds":{ws}"{ds}""#), format!(r#""y":{y}"#)];
            members.rotate_left(order % 3);
            if order >= 3 {
                members.swap(0, 1);
            }
            format!("{{{ws}{}}}", members.join(&format!(",{ws}")))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn numbers_read_to_the_same_bits_as_a_full_parse(n in number()) {
            let mut s = Scan { b: n.as_bytes(), i: 0 };
            let fast = s.number_or_null();
            prop_assert_eq!(s.i, n.len());
            let full = if n == "null" { Some(f64::NAN) } else { n.parse::<f64>().ok().filter(|v| v.is_finite()) };
            prop_assert_eq!(fast.map(f64::to_bits), full.map(f64::to_bits), "{}", n);
        }
    }

    thread_local! {
        /// Bodies whose rows this thread read in two halves: every fallback to one pass gives the
        /// same table, so only this tells that the split happened.
        pub(super) static SPLIT_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Whether this machine lets `rows` split at all (one core: never).
    fn splits_here() -> bool {
        std::thread::available_parallelism().map_or(1, |n| n.get()) > 1
    }

    #[test]
    fn rows_read_on_two_threads_build_the_table_of_one_pass() {
        // Grouped and interleaved entities, an entity spanning the split, blanks around commas.
        for (n, interleave, ws) in [(2, false, ""), (7, false, " \n"), (50, true, ""), (51, true, "\t"), (400, true, " ")] {
            let rows: Vec<String> = (0..n)
                .map(|i| {
                    let uid = if interleave { format!("e{}", i % 3) } else { format!("e{}", i * 3 / n) };
                    format!(r#"{{"unique_id":"{uid}","ds":"2024-01-01T{:02}:00:00Z","y":{i}.5}}"#, i % 24)
                })
                .collect();
            let body = format!(r#"{{"h":3,"series":[{}],"freq":"h"}}"#, rows.join(&format!("{ws},{ws}")));
            let before = SPLIT_READS.with(|c| c.get());
            let split = parse_common_split(&body, 0).expect("the fast path reads it");
            // Two rows: the middle of the body falls inside the second, so no row starts after it.
            let halves = usize::from(splits_here() && n > 2);
            assert_eq!(SPLIT_READS.with(|c| c.get()) - before, halves, "{n} rows read in two halves");
            let one = parse_common_split(&body, usize::MAX).expect("the fast path reads it");
            assert_eq!(split.series, one.series, "{n} rows");
            assert_eq!(split.top, one.top);
            same_as_general(&body);
        }
    }

    proptest! {
        #[test]
        fn any_body_split_over_two_threads_reads_as_the_general_path(rows in prop::collection::vec(row(), 1..40)) {
            let body = format!(r#"{{"series": [{}], "h": 2}}"#, rows.join(","));
            let split = parse_common_split(&body, 0).unwrap_or_else(|| panic!("declined {body}"));
            let general = parse_body_general(body.as_bytes()).unwrap();
            prop_assert_eq!(&split.series.entities, &general.series.entities);
            prop_assert_eq!(&split.series.indptr, &general.series.indptr);
            prop_assert_eq!(&split.series.rows, &general.series.rows);
            prop_assert_eq!(&split.series.ds, &general.series.ds);
            let bits = |t: &crate::ingest::RowTable| t.y.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&split.series), bits(&general.series));
        }

        #[test]
        fn any_common_body_reads_the_same_on_both_paths(rows in prop::collection::vec(row(), 1..40), h in 1..100u32) {
            same_as_general(&format!(r#"{{"h": {h}, "series": [{}], "options": {{"cleaning": {{"preset": "default"}}}}}}"#, rows.join(",")));
        }
    }
}
