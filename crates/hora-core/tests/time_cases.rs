//! Table-driven cases of the time engine, read from `tests/data/time_cases.json` (the TypeScript
//! parse path runs the same table). Expected instants are read with chrono's RFC 3339 parser, an
//! implementation independent of the one under test.

mod time_support;

use hora_core::choice::Choice;
use hora_core::time::{self, DayMonthOrder, Freq};
use serde_json::Value;
use time_support::{cases, micros, table_of, zone_of};

fn opt_str(v: &Value) -> Option<&str> {
    v.as_str()
}

#[test]
fn every_parse_case_reads_its_stamps_as_the_table_says() {
    for c in cases()["parse"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let ds: Vec<&str> = c["ds"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let table = table_of(&ds);
        let zone = opt_str(&c["tz"]).map(|z| time::parse_zone(z).unwrap());
        let order = opt_str(&c["ds_format"]).map(|s| DayMonthOrder::parse(s).unwrap());
        let got = time::parse_entity(&table, 0, zone, order);
        if let Some(code) = c["error"].as_str() {
            let err = got.expect_err(name);
            assert_eq!(err.code.as_str(), code, "{name}: {}", err.message);
            let field = c["field"].as_str().unwrap();
            let named = err
                .details
                .get("field")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| err.details["errors"][0]["field"].as_str().map(str::to_string));
            assert_eq!(named.as_deref(), Some(field), "{name}: {}", err.message);
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let want: Vec<i64> = c["utc"].as_array().unwrap().iter().map(|v| micros(v.as_str().unwrap())).collect();
        assert_eq!(got.instants, want, "{name}");
        assert_eq!(got.format.as_str(), c["format"].as_str().unwrap(), "{name}");
        if let Some(offsets) = c.get("explicit_offsets") {
            let want: Vec<&str> = offsets.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            assert_eq!(got.explicit_offsets, want, "{name}");
        }
        for (key, value) in [
            ("naive_rows", got.naive_rows),
            ("explicit_rows", got.explicit_rows),
            ("skipped_local_rows", got.skipped_local_rows),
            ("repeated_local_rows", got.repeated_local_rows),
        ] {
            if let Some(n) = c.get(key).and_then(Value::as_u64) {
                assert_eq!(value as u64, n, "{name}: {key}");
            }
        }
        if let Some(zone) = c.get("zone_used").and_then(Value::as_str) {
            assert_eq!(got.zone.name(), zone, "{name}");
        }
        if let Some(source) = c.get("source").and_then(Value::as_str) {
            assert_eq!(got.source.as_str(), source, "{name}");
        }
        assert_eq!(got.naive_rows + got.explicit_rows, ds.len(), "{name}: every row is naive or explicit");
    }
}

#[test]
fn every_freq_token_parses_to_its_canonical_form_or_is_unsupported() {
    for c in cases()["freq"].as_array().unwrap() {
        let s = c["freq"].as_str().unwrap();
        let got = Freq::parse(s, c["allow_business"].as_bool().unwrap());
        if let Some(code) = c["error"].as_str() {
            assert_eq!(got.expect_err(s).code.as_str(), code, "{s:?}");
            continue;
        }
        let f = got.unwrap_or_else(|e| panic!("{s:?}: {e}"));
        assert_eq!(f.canonical(), c["canonical"].as_str().unwrap(), "{s:?}");
        assert_eq!(f.fixed_step_micros(), c["fixed_step_micros"].as_i64(), "{s:?}");
        assert_eq!(f.is_fixed(), c["fixed_step_micros"].is_i64(), "{s:?}");
        // The canonical token reads back as the same frequency.
        assert_eq!(Freq::parse(&f.canonical(), true).unwrap(), f, "{s:?}");
    }
}

#[test]
fn every_step_case_lands_where_the_table_says() {
    for c in cases()["step"].as_array().unwrap() {
        let f = Freq::parse(c["freq"].as_str().unwrap(), c["allow_business"].as_bool().unwrap()).unwrap();
        let zone = zone_of(c["tz"].as_str().unwrap());
        let start = micros(c["start"].as_str().unwrap());
        let n = c["n"].as_i64().unwrap();
        let got = time::step(start, n, &f, zone);
        let want = c["expect"].as_str().map(micros);
        assert_eq!(got.map(time::format_utc), want.map(time::format_utc), "{c}");
    }
}

#[test]
fn every_grid_len_case_counts_the_grid_without_building_it() {
    for c in cases()["grid_len"].as_array().unwrap() {
        let f = Freq::parse(c["freq"].as_str().unwrap(), c["allow_business"].as_bool().unwrap()).unwrap();
        let zone = zone_of(c["tz"].as_str().unwrap());
        let got = time::grid_len(micros(c["start"].as_str().unwrap()), micros(c["end"].as_str().unwrap()), &f, zone);
        assert_eq!(got, c["expect"].as_u64(), "{c}");
    }
}

#[test]
fn every_inference_case_finds_the_table_frequency_or_fails_with_its_code() {
    for c in cases()["infer"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let ds: Vec<&str> = c["ds"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let zone = opt_str(&c["tz"]).map(zone_of);
        let parsed = time::parse_entity(&table_of(&ds), 0, zone, None).unwrap();
        let mut t = parsed.instants.clone();
        t.sort_unstable();
        let got = time::infer_freq(&t, parsed.zone, c["allow_business"].as_bool().unwrap());
        if let Some(code) = c["error"].as_str() {
            assert_eq!(got.expect_err(name).code.as_str(), code, "{name}");
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.freq.canonical(), c["freq"].as_str().unwrap(), "{name}");
        assert!(got.confidence > 0.0 && got.confidence <= 1.0, "{name}: {}", got.confidence);
    }
}
