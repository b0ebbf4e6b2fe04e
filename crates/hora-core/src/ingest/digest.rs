//! The idempotency digest: SHA-256 of the canonical JSON form of the body (object keys sorted,
//! no insignificant whitespace), so a retry that re-serialises the same body still matches.

use sha2::{Digest, Sha256};

/// Hex SHA-256 of the canonical JSON of `bytes`; bytes that are not JSON are digested as sent.
pub fn canonical_digest(bytes: &[u8]) -> String {
    let mut hasher = Sha256::new();
    // serde_json's Map is a BTreeMap (no `preserve_order`), so serialising sorts keys.
    match serde_json::from_slice::<serde_json::Value>(bytes) {
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
    fn malformed_bodies_are_digested_as_sent() {
        assert_eq!(canonical_digest(b"{nope"), canonical_digest(b"{nope"));
        assert_ne!(canonical_digest(b"{nope"), canonical_digest(b"{nope "));
    }
}
