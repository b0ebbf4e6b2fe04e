//! The time engine's parse path, exposed for the benchmark and the cross-check with the
//! TypeScript path. The `ds` column crosses as one UTF-8 buffer (values separated by `\n`), the
//! way the request body reaches the engine, and instants come back as a typed array.

use crate::errors::EngineError;
use hora_core::choice::Choice;
use hora_core::time::{self, DayMonthOrder};
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi(object)]
pub struct ParsedDs {
    /// Microseconds since the Unix epoch, UTC, one per stamp in input order. Exact as f64 for
    /// years 1685 to 2254.
    pub instants: Float64Array,
    /// Detected format name (`iso8601`, `compact_date`, `dmy`, ...).
    pub format: String,
    /// `explicit_offset`, `option` or `default_utc`.
    pub source: String,
    pub naive_rows: u32,
    pub explicit_rows: u32,
    pub explicit_offsets: Vec<String>,
}

/// The parse's outcome: the engine's refusal (a data-invalid code naming the row or
/// `options.timezone`) or the parsed column, never both.
#[napi(object)]
pub struct ParsedDsOutcome {
    pub error: Option<EngineError>,
    pub parsed: Option<ParsedDs>,
}

/// Parses one entity's `ds` values joined by `\n`, in `timezone` (IANA name; UTC when omitted)
/// with the optional day/month order `dmy` / `mdy`. A buffer that is not UTF-8 or another
/// `ds_format` is the caller's mistake and throws, as a wrong argument type does.
#[napi(catch_unwind)]
pub fn parse_ds_column(ds: &[u8], timezone: Option<String>, ds_format: Option<String>) -> Result<ParsedDsOutcome> {
    let text = std::str::from_utf8(ds).map_err(|_| Error::new(Status::InvalidArg, "ds is not UTF-8"))?;
    let order = match ds_format.as_deref() {
        None => None,
        Some(s) => {
            Some(DayMonthOrder::read("ds_format", s).map_err(|e| Error::new(Status::InvalidArg, e.message))?)
        }
    };
    let parsed = timezone.as_deref().map(time::parse_zone).transpose().and_then(|zone| {
        let rows = text.split('\n').enumerate().map(|(i, s)| (i as u32, s));
        time::parse_stamps(rows, zone, order)
    });
    Ok(match parsed {
        Err(e) => ParsedDsOutcome { error: Some(e.into()), parsed: None },
        Ok(p) => ParsedDsOutcome {
            error: None,
            parsed: Some(ParsedDs {
                instants: Float64Array::new(p.instants.iter().map(|&t| t as f64).collect()),
                format: p.format.as_str().to_string(),
                source: p.source.as_str().to_string(),
                naive_rows: p.naive_rows as u32,
                explicit_rows: p.explicit_rows as u32,
                explicit_offsets: p.explicit_offsets,
            }),
        },
    })
}

/// Why `name` is no time zone the engine knows (the engine's words), or `None` when it is one:
/// `options.timezone` is checked with the body's other fields (validation order step 3),
/// whatever the preset.
#[napi]
pub fn time_zone_error(name: String) -> Option<String> {
    time::parse_zone(&name).err().and_then(|e| e.listed_fields().into_iter().next()).map(|f| f.message)
}
