//! The idempotency digest: SHA-256 of the canonical JSON form of the body (object keys sorted,
//! no insignificant whitespace), so a retry that re-serialises the same body still matches.

use serde::de::DeserializeSeed;
use sha2::{Digest, Sha256};

use super::value::StrictValue;

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
        Ok(value) => {
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
