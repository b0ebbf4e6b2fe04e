//! The idempotency digest: SHA-256 of the canonical JSON form of the body (object keys sorted,
//! no insignificant whitespace, one spelling per number), so a retry that re-serialises the same
//! body still matches.

use serde::de::DeserializeSeed;
use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

use super::value::StrictValue;

/// Integers an f64 holds exactly: a float with an integral value inside this range is written as
/// that integer.
const EXACT_INTEGER: f64 = 9_007_199_254_740_992.0; // 2^53

/// One spelling per number: `2`, `2.0`, `2e0` and `20e-1` all read as 2 (serde keeps the first as
/// an integer and the rest as floats, which serialise as `2.0`), so a client or proxy that writes
/// integral floats differently (Python's `2.0`, JavaScript's `2`) still sends the same body.
/// Decimal spellings of one float (`0.1`, `0.10`, `1e-1`) already parse to one f64.
fn canonical_numbers(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                if f.fract() == 0.0 && f.abs() <= EXACT_INTEGER {
                    *n = Number::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(canonical_numbers),
        Value::Object(map) => map.values_mut().for_each(canonical_numbers),
        _ => {}
    }
}

/// Hex SHA-256 of the canonical JSON of `bytes`; bytes that are not JSON, or JSON with a key
/// repeated inside one object, are digested as sent. Canonicalising a repeated key would keep
/// only its last value: a body the service refuses (`{"h":5,"h":2}`) would match the one it
/// accepts (`{"h":2}`), and one key would replay the other's outcome.
pub fn canonical_digest(bytes: &[u8]) -> String {
    let mut hasher = Sha256::new();
    // serde_json's Map is a BTreeMap (no `preserve_order`), so serialising sorts keys.
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let read = StrictValue::new(String::new(), None).deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    match read {
        Ok(mut value) => {
            canonical_numbers(&mut value);
            hasher.update(b"json:");
            hasher.update(serde_json::to_vec(&value).unwrap_or_default());
        }
        Err(_) => {
            hasher.update(b"raw:");
            hasher.update(bytes);
        }
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_and_whitespace_do_not_change_the_digest() {
        assert_eq!(canonical_digest(br#"{"a":1,"b":[1,2]}"#), canonical_digest(b"{ \"b\": [1, 2],\n \"a\": 1 }"));
    }

    #[test]
    fn different_values_change_the_digest() {
        assert_ne!(canonical_digest(br#"{"a":1}"#), canonical_digest(br#"{"a":2}"#));
        assert_ne!(canonical_digest(br#"{"a":2}"#), canonical_digest(br#"{"a":2.5}"#));
        assert_ne!(canonical_digest(br#"{"a":2}"#), canonical_digest(br#"{"a":"2"}"#));
    }

    #[test]
    fn spellings_of_one_number_share_a_digest() {
        let two = canonical_digest(br#"{"h":2,"y":[0.1,-3]}"#);
        for same in [&br#"{"h":2.0,"y":[0.1,-3]}"#[..], br#"{"h":2e0,"y":[1e-1,-3.0]}"#, br#"{"h":20e-1,"y":[0.10,-3E0]}"#] {
            assert_eq!(canonical_digest(same), two, "{}", String::from_utf8_lossy(same));
        }
        assert_eq!(canonical_digest(b"[-0.0]"), canonical_digest(b"[0]"));
        // Past 2^53 a float is not rewritten as an integer (nor an integer as a float).
        assert_ne!(canonical_digest(b"[1e300]"), canonical_digest(b"[1]"));
        assert_ne!(canonical_digest(b"[18446744073709551615]"), canonical_digest(b"[1.8446744073709552e19]"));
    }

    #[test]
    fn a_repeated_key_is_not_the_body_with_its_last_value() {
        assert_ne!(canonical_digest(br#"{"h":5,"h":2}"#), canonical_digest(br#"{"h":2}"#));
        assert_ne!(canonical_digest(br#"{"o":{"a":1,"a":1}}"#), canonical_digest(br#"{"o":{"a":1}}"#));
        // Resent byte for byte, it still matches itself.
        assert_eq!(canonical_digest(br#"{"h":5,"h":2}"#), canonical_digest(br#"{"h":5,"h":2}"#));
        // Nested values keep their canonical form otherwise.
        assert_eq!(canonical_digest(br#"[{"b":1,"a":[true,null,"x",-1,2.5]}]"#), canonical_digest(br#"[{"a":[true,null,"x",-1,2.5],"b":1}]"#));
    }

    #[test]
    fn bodies_that_differ_only_below_the_depth_cap_do_not_share_a_digest() {
        let deep = |leaf: &str| format!(r#"{{"options": {{"x": {}{leaf}{}}}}}"#, "[".repeat(100), "]".repeat(100));
        assert_ne!(canonical_digest(deep("1").as_bytes()), canonical_digest(deep("2").as_bytes()));
    }

    #[test]
    fn malformed_bodies_are_digested_as_sent() {
        assert_eq!(canonical_digest(b"{nope"), canonical_digest(b"{nope"));
        assert_ne!(canonical_digest(b"{nope"), canonical_digest(b"{nope "));
    }
}
