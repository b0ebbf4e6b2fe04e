//! The time engine: timestamp parsing, zones, frequency strings, inference, stepping, UTC output.
//!
//! An instant is `Micros`: microseconds since the Unix epoch, UTC. Rules chosen where the contract
//! is silent are written down in `docs/time.md`.

mod civil;
mod entity;
mod format;
mod freq;
mod infer;
mod lex;
pub(crate) use lex::offset;
mod step;
mod zone;

/// Microseconds since 1970-01-01T00:00:00Z.
pub type Micros = i64;

pub use civil::{days_from_civil, format_utc, in_supported_range, write_utc, MICROS_PER_DAY, MICROS_PER_HOUR, MICROS_PER_MINUTE, MICROS_PER_SECOND};
pub use entity::{parse_entity, parse_entity_after, parse_stamps, ParsedStamps, ZoneSource};
pub use format::{DayMonthOrder, DsFormat, StampRows, WrittenAs};
pub use freq::{Freq, FreqUnit};
pub use infer::{infer_freq, InferredFreq, MAX_OFF_GRID_SHARE, MIN_DISTINCT_STAMPS};
pub use step::{calendar_phase, grid_len, step};
pub use zone::{format_offset, from_wall, parse_zone, skipped_days, to_wall, written_wall, LocalKind, ZoneRule};

/// `s` quoted for a message, cut after 64 bytes (longer than any stamp, zone name or `freq`): an
/// error need not echo a megabyte value back, twice (message and details). Ids, models, presets
/// and versions are named in messages the same way.
pub(crate) fn quoted(s: &str) -> String {
    cut(s, 64, |kept| format!("{kept:?}"))
}

/// `s` written by `write`, or, past `max` bytes, its first `max` at most (a character boundary)
/// written so and followed by `… (N bytes)`.
pub(crate) fn cut(s: &str, max: usize, write: impl Fn(&str) -> String) -> String {
    if s.len() <= max {
        return write(s);
    }
    let end = s.char_indices().map(|(i, c)| i + c.len_utf8()).take_while(|&end| end <= max).last().unwrap_or(0);
    format!("{}… ({} bytes)", write(&s[..end]), s.len())
}
