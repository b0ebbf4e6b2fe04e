//! Fuzz-style tests: arbitrary and grammar-built strings, arbitrary instants and steps. Nothing
//! panics or hangs; every failure is a typed error carrying a contract code.

use chrono_tz::Tz;
use hora_core::time::ZoneRule;
use hora_core::time::{self, DayMonthOrder, Freq};
use hora_core::ErrorCode;
use proptest::prelude::*;

/// Pieces that reach deep into the parsers when glued together.
const PIECES: &[&str] = &[
    "2024",
    "0000",
    "99999",
    "1",
    "01",
    "12",
    "13",
    "29",
    "30",
    "31",
    "24",
    "60",
    "-",
    "/",
    ":",
    "T",
    " ",
    "Z",
    "z",
    "+",
    "-05:30",
    "+25:00",
    "+0200",
    ".",
    ",",
    "123456789",
    "5",
    "年",
    "月",
    "日",
    "1704412800",
    "202401",
    "20240229",
    "é",
    "\u{0}",
];

fn glued() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..PIECES.len(), 1..10).prop_map(|ix| ix.into_iter().map(|i| PIECES[i]).collect())
}

fn check_parse(stamps: &[String], zone: Option<ZoneRule>, order: Option<DayMonthOrder>) -> Result<(), TestCaseError> {
    let rows = stamps.iter().enumerate().map(|(i, s)| (i as u32, s.as_str()));
    match time::parse_stamps(rows, zone, order) {
        Ok(p) => {
            prop_assert_eq!(p.instants.len(), stamps.len());
            for &t in &p.instants {
                // Every accepted stamp is an instant within years 1 to 9999 in UTC: docs/time.md
                // refuses stamps "that their offset or zone moves out of those years in UTC". The
                // year is all before "-MM-DDTHH:MM:SSZ" (16 characters): a sign and five digits
                // outside 0 to 9999, so 10000 is not read as its first four characters.
                let stamp = time::format_utc(t);
                let year: i64 = stamp[..stamp.len() - 16].parse().unwrap_or(-1);
                prop_assert!((1..=9999).contains(&year), "{t} {stamp}");
            }
        }
        Err(e) => {
            prop_assert!(matches!(e.code, ErrorCode::ValidationError | ErrorCode::AmbiguousDateFormat), "{:?}", e.code);
            prop_assert!(!e.message.is_empty());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_parse_or_fail_with_a_contract_code(s in any::<String>()) {
        check_parse(&[s], None, None)?;
    }

    #[test]
    fn glued_timestamp_pieces_parse_or_fail_with_a_contract_code(
        v in proptest::collection::vec(glued(), 1..4),
        zone in prop_oneof![Just(None), Just(Some(Tz::Europe__Berlin.into())), Just(Some(Tz::America__New_York.into())), Just(Some(ZoneRule::Fixed(19_800)))],
        order in prop_oneof![Just(None), Just(Some(DayMonthOrder::Dmy)), Just(Some(DayMonthOrder::Mdy))],
    ) {
        check_parse(&v, zone, order)?;
    }

    #[test]
    fn stamps_at_the_year_edges_moved_by_an_offset_or_zone_stay_within_years_1_to_9999_or_fail(
        edge in prop_oneof![Just("0001-01-01"), Just("9999-12-31")],
        hour in 0..24u32, minute in 0..60u32,
        offset_min in -14 * 60..=14 * 60i32,
        in_stamp in any::<bool>(),
    ) {
        // The glued pieces never reach the edges. Here an offset east of UTC larger than the time
        // of day moves a 0001-01-01 stamp into year 0, one west moves a late 9999-12-31 into 10000.
        let (sign, abs) = (if offset_min < 0 { '-' } else { '+' }, offset_min.abs());
        let wall = format!("{edge}T{hour:02}:{minute:02}:00");
        if in_stamp {
            check_parse(&[format!("{wall}{sign}{:02}:{:02}", abs / 60, abs % 60)], None, None)?;
        } else {
            check_parse(&[wall], Some(ZoneRule::Fixed(offset_min * 60)), None)?;
        }
    }

    #[test]
    fn arbitrary_freq_strings_parse_or_are_unsupported(s in any::<String>(), business in any::<bool>()) {
        match Freq::parse(&s, business) {
            Ok(f) => prop_assert_eq!(Freq::parse(&f.canonical(), true).unwrap(), f),
            Err(e) => prop_assert_eq!(e.code, ErrorCode::FreqUnsupported),
        }
    }

    #[test]
    fn arbitrary_zone_names_are_found_or_a_validation_error(s in any::<String>()) {
        if let Err(e) = time::parse_zone(&s) {
            prop_assert_eq!(e.code, ErrorCode::ValidationError);
        }
    }

    #[test]
    fn stepping_and_sizing_arbitrary_instants_never_panics(
        t in any::<i64>(), end in any::<i64>(), n in any::<i64>(),
        f in "[0-9]{0,8}(s|min|h|d|w|MS|ME|QS|QE|YS|YE|B|M@[0-9]{1,2})",
    ) {
        if let Ok(f) = Freq::parse(&f, true) {
            for zone in [ZoneRule::UTC, Tz::Europe__Berlin.into(), Tz::Australia__Lord_Howe.into(), ZoneRule::Fixed(-34_200)] {
                let _ = time::step(t, n, &f, zone);
                let _ = time::grid_len(t, end, &f, zone);
            }
        }
    }

    #[test]
    fn inference_on_arbitrary_instants_succeeds_or_fails_with_its_codes(
        mut v in proptest::collection::vec(-62_135_596_800_000_000i64..253_402_300_799_000_000, 0..60),
        business in any::<bool>(),
    ) {
        v.sort_unstable();
        if let Err(e) = time::infer_freq(&v, Tz::Europe__Berlin.into(), business) {
            prop_assert!(matches!(e.code, ErrorCode::FreqInferenceFailed | ErrorCode::FreqAmbiguous), "{:?}", e.code);
        }
    }
}

#[test]
fn a_ten_kilobyte_ds_is_refused_with_the_row_named_and_not_echoed_whole() {
    let big = "2".repeat(10_240);
    let err = time::parse_stamps([(7, big.as_str())], None, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::ValidationError);
    assert_eq!(err.details["errors"][0]["field"], "series[7].ds");
    let message = err.details["errors"][0]["message"].as_str().unwrap();
    assert!(message.len() < 200, "{message}");
}

#[test]
fn a_megabyte_freq_or_zone_name_is_refused_without_being_echoed_whole_in_the_message() {
    let big = format!("Europe/{}", "x".repeat(1 << 20));
    let zone = time::parse_zone(&big).unwrap_err();
    let freq = Freq::parse(&big, true).unwrap_err();
    assert_eq!((zone.code, freq.code), (ErrorCode::ValidationError, ErrorCode::FreqUnsupported));
    for message in [zone.details["errors"][0]["message"].as_str().unwrap(), freq.message.as_str()] {
        assert!(message.len() < 200 && message.contains(&format!("({} bytes)", big.len())), "{message}");
    }
    // A short one is quoted whole.
    assert!(time::parse_zone("Mars/Olympus").unwrap_err().details["errors"][0]["message"].as_str().unwrap().starts_with("\"Mars/Olympus\" is not"));
}

#[test]
fn year_zero_and_five_digit_years_are_refused() {
    for s in ["0000-01-01", "99999-01-01", "0000/1/1", "1/1/0000", "0000年1月"] {
        let err = time::parse_stamps([(0, s)], None, Some(DayMonthOrder::Dmy)).unwrap_err();
        assert_eq!(err.code, ErrorCode::ValidationError, "{s}");
    }
}
