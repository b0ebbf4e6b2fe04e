//! What the time engine decides per entity: its zone, the source of that zone and its row counts.

mod time_support;

use hora_core::time::{self, ZoneSource};
use time_support::{micros, table_of, zone_of};

#[test]
fn an_entity_reports_its_zone_source_and_row_counts() {
    let table = table_of(&["2024-01-01 00:00", "2024-01-01T01:00:00+02:00", "2024-01-01T02:00:00Z"]);
    let p = time::parse_entity(&table, 0, Some(zone_of("Europe/Berlin")), None).unwrap();
    assert_eq!(
        (p.zone.name().into_owned(), p.source, p.naive_rows, p.explicit_rows, p.explicit_offsets.clone()),
        ("Europe/Berlin".to_string(), ZoneSource::Option, 1, 2, vec!["+02:00".to_string(), "+00:00".to_string()])
    );
    let utc = time::parse_entity(&table_of(&["2024-01-01"]), 0, None, None).unwrap();
    assert_eq!(utc.source.as_str(), "default_utc");
}

#[test]
fn explicit_offsets_the_zone_option_contradicts_step_on_their_own_clock() {
    let ny = Some(zone_of("America/New_York"));
    let days = |offset: &str| -> Vec<String> { (1..=28).map(|d| format!("2024-03-{d:02}T00:00:00{offset}")).collect() };
    let london = days("+00:00");
    let p = time::parse_entity(&table_of(&london.iter().map(String::as_str).collect::<Vec<_>>()), 0, ny, None).unwrap();
    assert_eq!(p.zone.name(), "UTC");
    assert_eq!(p.source.as_str(), "explicit_offset");
    assert_eq!(time::infer_freq(&p.instants, p.zone, false).unwrap().freq.canonical(), "d");
    // Offsets that are the zone's own (DST-coded local midnights) keep the zone, which alone steps
    // them across the change at 02:00 on 2024-03-10.
    let local: Vec<String> = (1..=28).map(|d| format!("2024-03-{d:02}T00:00:00{}", if d <= 10 { "-05:00" } else { "-04:00" })).collect();
    let p = time::parse_entity(&table_of(&local.iter().map(String::as_str).collect::<Vec<_>>()), 0, ny, None).unwrap();
    assert_eq!(p.zone.name(), "America/New_York");
    assert_eq!(time::infer_freq(&p.instants, p.zone, false).unwrap().freq.canonical(), "d");
    // Unix time has no clock of its own: the zone stays.
    let unix = ["1709269200", "1709355600"];
    assert_eq!(time::parse_entity(&table_of(&unix), 0, ny, None).unwrap().zone.name(), "America/New_York");
}

#[test]
fn z_stamps_step_on_the_zone_option_unless_they_sit_on_utcs_clock() {
    let berlin = Some(zone_of("Europe/Berlin"));
    let parse = |ds: &[String]| time::parse_entity(&table_of(&ds.iter().map(String::as_str).collect::<Vec<_>>()), 0, berlin, None).unwrap();
    // Berlin's local month starts written in UTC (23:00Z in winter, 22:00Z in summer): the zone
    // is their clock, as it is for the same instants in Unix time or with Berlin's offsets.
    let months: Vec<String> = (0..24)
        .map(|k| {
            let (y, m) = (2022 + k / 12, k % 12 + 1);
            let summer = (4..=10).contains(&m);
            time::format_utc(micros(&format!("{y}-{m:02}-01T00:00:00Z")) - if summer { 2 } else { 1 } * 3_600_000_000)
        })
        .collect();
    let p = parse(&months);
    assert_eq!(p.zone.name(), "Europe/Berlin");
    assert_eq!(time::infer_freq(&p.instants, p.zone, false).unwrap().freq.canonical(), "MS");
    // `-00:00` (RFC 3339 section 4.3: UTC known, local offset unknown) is clockless like `Z`.
    let unknown_local: Vec<String> = months.iter().map(|m| m.replace('Z', "-00:00")).collect();
    assert_eq!(parse(&unknown_local).zone.name(), "Europe/Berlin");
    // Daily data at 00:00Z across the spring change keeps UTC's clock: Berlin's would move it.
    let days: Vec<String> = (1..=28).map(|d| format!("2024-03-{d:02}T00:00:00Z")).collect();
    assert_eq!(parse(&days).zone.name(), "UTC");
    // Monthly at 00:00Z on the 1st with no DST change in between: both clocks keep one time of
    // day, and only UTC's is midnight.
    let winter = ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"].map(String::from);
    assert_eq!(parse(&winter).zone.name(), "UTC");
    // Sub-daily stamps read the same on either clock: the zone stays.
    let hours: Vec<String> = (0..24).map(|h| format!("2024-03-01T{h:02}:00:00Z")).collect();
    assert_eq!(parse(&hours).zone.name(), "Europe/Berlin");
    // One stray time of day does not decide: 00:00Z daily across the change, one row at 00:30Z.
    let mut stray = days.clone();
    stray[5] = "2024-03-06T00:30:00Z".into();
    assert_eq!(parse(&stray).zone.name(), "UTC");
    // A commonest time of day held by fewer than half of the stamps decides nothing either: 10 of
    // 25 at 00:00Z across the change, the rest at times of their own, keep the zone.
    let mut mostly_spread: Vec<String> = (25..=31).chain(1..=3).map(|d| format!("2024-{}-{d:02}T00:00:00Z", if d > 3 { "03" } else { "04" })).collect();
    mostly_spread.extend((1..=15).map(|k| format!("2024-03-{:02}T05:{k:02}:00Z", 10 + k)));
    assert_eq!(parse(&mostly_spread).zone.name(), "Europe/Berlin");
    // Both clocks keep one time of day and the zone's is not midnight: UTC's month ends.
    let kolkata = Some(zone_of("Asia/Kolkata"));
    let ends: Vec<String> = ["2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30"].iter().map(|d| format!("{d}T23:59:59Z")).collect();
    let p = time::parse_entity(&table_of(&ends.iter().map(String::as_str).collect::<Vec<_>>()), 0, kolkata, None).unwrap();
    assert_eq!(p.zone.name(), "UTC");
    assert_eq!(time::infer_freq(&p.instants, p.zone, false).unwrap().freq.canonical(), "ME");
}

#[test]
fn a_local_time_sent_twice_inside_a_fall_back_is_the_repeated_hours_second_pass() {
    // New York's 2024-11-03: 01:00 local is 05:00Z (EDT), then again 06:00Z (EST).
    let ds = ["2024-11-03 00:00", "2024-11-03 01:00", "2024-11-03 01:00", "2024-11-03 02:00"];
    let p = time::parse_entity(&table_of(&ds), 0, Some(zone_of("America/New_York")), None).unwrap();
    let hours: Vec<i64> = p.instants.iter().map(|t| (t - micros("2024-11-03T00:00:00Z")) / 3_600_000_000).collect();
    assert_eq!(hours, [4, 5, 6, 7]);
    assert_eq!(p.repeated_local_rows, 2);
}

#[test]
fn rows_sent_newest_first_meet_the_repeated_hours_later_pass_first() {
    let ny = Some(zone_of("America/New_York"));
    let hours = |ds: &[&str]| -> Vec<i64> {
        let p = time::parse_entity(&table_of(ds), 0, ny, None).unwrap();
        p.instants.iter().map(|t| (t - micros("2024-11-03T00:00:00Z")) / 3_600_000_000).collect()
    };
    let newest_first = ["2024-11-03 02:00", "2024-11-03 01:00", "2024-11-03 01:00", "2024-11-03 00:00"];
    assert_eq!(hours(&newest_first), [7, 6, 5, 4]);
    // A time sent once is read as its earlier instant, whichever way the rows run.
    assert_eq!(hours(&["2024-11-03 02:00", "2024-11-03 01:00", "2024-11-03 00:00"]), [7, 5, 4]);
    // Daily data: a local time sent twice on the fall-back day is a duplicate either way.
    let days = ["2024-11-04 01:00", "2024-11-03 01:00", "2024-11-03 01:00", "2024-11-02 01:00", "2024-11-01 01:00"];
    let d = hours(&days);
    assert_eq!((d[1], d[2]), (5, 5));
}

#[test]
fn errors_name_the_global_row_index_of_the_entity() {
    // Two entities interleaved: rows 0, 2 are "a", rows 1, 3 are "b"; row 3 is bad.
    let mut table = table_of(&["2024-01-01", "2024-01-01", "2024-01-02", "2024-02-30"]);
    table.entities = vec!["a".into(), "b".into()];
    table.indptr = vec![0, 2, 4];
    table.rows = vec![0, 2, 1, 3];
    assert!(time::parse_entity(&table, 0, None, None).is_ok());
    let err = time::parse_entity(&table, 1, None, None).unwrap_err();
    assert_eq!(err.details["errors"][0]["field"], "series[3].ds");
}

#[test]
fn every_unreadable_stamp_of_an_entity_is_listed_each_without_its_path() {
    let mut stamps: Vec<String> = (0..30).map(|i| format!("2024-01-{:02}", i % 28 + 1)).collect();
    stamps[1] = "garbage".into();
    stamps[2] = "2024-13-01".into();
    stamps[5] = "01/02/2024".into(); // another format than the entity's ISO dates
    for (k, stamp) in stamps.iter_mut().enumerate().skip(10).take(15) {
        *stamp = format!("nope{k}");
    }
    let table = table_of(&stamps.iter().map(String::as_str).collect::<Vec<_>>());
    let err = time::parse_entity(&table, 0, None, None).unwrap_err();
    let listed = err.listed_fields();
    // The contract's at most 10, in row order; none repeats its path.
    assert_eq!(listed.len(), 10);
    let fields: Vec<&str> = listed.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(&fields[..4], ["series[1].ds", "series[2].ds", "series[5].ds", "series[10].ds"]);
    assert!(listed.iter().all(|e| !e.message.starts_with(&e.field) && !e.message.starts_with("series[")), "{listed:?}");
    assert_eq!(listed[0].message, "\"garbage\" is not in a supported timestamp format");
    assert!(listed[2].message.contains("another format than series[0].ds"), "{}", listed[2].message);
    // The error's own message is the service's wording for an invalid body, naming the first.
    assert_eq!(err.message, "The request body is invalid: series[1].ds \"garbage\" is not in a supported timestamp format.");
}

#[test]
fn rows_that_are_no_date_under_the_day_month_order_are_all_listed() {
    let table = table_of(&["13/01/2024", "14/01/2024", "01/02/2024", "12/31/9999 23:00-12:00"]);
    let err = time::parse_entity(&table, 0, None, Some(time::DayMonthOrder::Mdy)).unwrap_err();
    let listed = err.listed_fields();
    let fields: Vec<&str> = listed.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["series[0].ds", "series[1].ds", "series[3].ds"], "{listed:?}");
    assert_eq!(listed[0].message, "\"13/01/2024\" is not a valid M/D/YYYY date");
    assert!(listed[2].message.contains("outside the years 1 to 9999"), "{}", listed[2].message);
}

#[test]
fn an_unreadable_first_row_sets_no_format_for_the_others() {
    let table = table_of(&["garbage", "13/01/2024", "2024-01-03", "2024-01-04"]);
    let err = time::parse_entity(&table, 0, None, None).unwrap_err();
    let fields: Vec<String> = err.listed_fields().into_iter().map(|e| e.field).collect();
    assert_eq!(fields, ["series[0].ds"]);
    // A readable first row does: the others are held to it.
    let table = table_of(&["2024-01-02", "13/01/2024", "2024-01-03"]);
    let err = time::parse_entity(&table, 0, None, None).unwrap_err();
    let listed = err.listed_fields();
    assert_eq!((listed.len(), listed[0].field.as_str()), (1, "series[1].ds"));
    assert!(listed[0].message.contains("another format than series[0].ds"), "{}", listed[0].message);
}
