//! The idempotency digest: SHA-256 of the canonical JSON form of the body (object keys sorted,
//! no insignificant whitespace, one spelling per number), so a retry that re-serialises the same
//! body still matches.
//!
//! The canonical text is written while the body is read, never built as a tree of values: a tree
//! cost about 16 bytes of memory per body byte (4 GB at the 256 MiB body limit). A small object
//! (a row) is rewritten in key order as soon as it is read, so an array of them is one stretch of
//! text about as long as the body. A large object's members are put in key order by reference
//! ([`Piece`]), not by copying their text into the object's, which cost one copy of a value per
//! object around it (a 64 MB array under 62 objects took 6.9 s); each member costs 40 bytes,
//! so one object of millions of tiny members costs a few times its text.

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::Number;
use sha2::{Digest, Sha256};
use std::fmt;

/// Integers an f64 holds exactly: a float with an integral value inside this range is written as
/// that integer.
const EXACT_INTEGER: f64 = 9_007_199_254_740_992.0; // 2^53

/// An object whose text (its members' keys and values, before sorting) is at most this long is
/// written out in key order at once, as one stretch of text: pieces and members for every small
/// object (a row) cost up to 60 bytes of memory per body byte. Each byte is then copied once per
/// small object around it, so the copies stay bounded by the nesting depth.
const INLINE_OBJECT_BYTES: usize = 4096;

/// Containers nested deeper than this fail the canonical read, so the body is digested as sent
/// (serde_json's own recursion limit is 128).
const MAX_DEPTH: usize = 64;

/// Hex SHA-256 of the canonical JSON of `bytes`; bytes that are not JSON, or JSON with a key
/// repeated inside one object or nested past `MAX_DEPTH`, are digested as sent. Canonicalising a
/// repeated key would keep only its last value: a body the service refuses (`{"h":5,"h":2}`)
/// would match the one it accepts (`{"h":2}`), and one key would replay the other's outcome.
pub fn canonical_digest(bytes: &[u8]) -> String {
    // A byte order mark is no part of the JSON value (the body parser skips it too).
    let bytes = super::body::without_bom(bytes);
    let mut hasher = Sha256::new();
    match canonical_read(bytes) {
        Ok((arena, pieces)) => {
            hasher.update(b"json:");
            arena.emit(&pieces, &mut hasher);
        }
        Err(_) => {
            hasher.update(b"raw:");
            hasher.update(bytes);
        }
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The canonical text of the JSON `bytes`, as the arena and its top-level pieces.
fn canonical_read(bytes: &[u8]) -> Result<(Arena, Vec<Piece>), serde_json::Error> {
    let mut arena = Arena { text: Vec::with_capacity(bytes.len()), objects: Vec::new(), scratch: Vec::new() };
    let mut pieces = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    Canonical { arena: &mut arena, pieces: &mut pieces, depth: 0, comma: false }.deserialize(&mut de).and_then(|()| de.end())?;
    Ok((arena, pieces))
}

/// A stretch of the canonical text: bytes of the arena, or an object in key order.
#[derive(Debug, Clone, Copy)]
enum Piece {
    Text(usize, usize),
    Object(usize),
}

/// One object member: the key's JSON text in the arena, where its bytes are when that text holds
/// an escape ([`NOT_ESCAPED`] when it does not: the text between the quotes is the key's bytes),
/// and its value. Kept small (40 bytes): a large object holds one per member until the whole body
/// is read.
struct Member {
    key_text: (usize, usize),
    escaped: u32,
    value: MemberValue,
}

/// [`Member::escaped`] of a key written without escapes.
const NOT_ESCAPED: u32 = u32::MAX;

/// A member's value: most values (a number, a string, a small object) are one stretch of text
/// right after the key, which its end locates.
enum MemberValue {
    TextTo(usize),
    Pieces(Box<[Piece]>),
}

impl Member {
    /// The key's bytes, which members are sorted by (serde_json's sorted map orders them so): an
    /// escaped one (a quote, a backslash or a control character) from `escaped_keys`, where it
    /// was kept as read, once: decoding it at each comparison made sorting 5 times slower.
    fn key<'a>(&self, text: &'a [u8], escaped_keys: &'a [Box<str>]) -> &'a [u8] {
        match self.escaped {
            NOT_ESCAPED => &text[self.key_text.0 + 1..self.key_text.1 - 1],
            i => escaped_keys[i as usize].as_bytes(),
        }
    }

    /// The value's pieces: `one` holds the stretch of text when that is all it is.
    fn pieces<'a>(&'a self, one: &'a mut [Piece; 1]) -> &'a [Piece] {
        match &self.value {
            MemberValue::TextTo(end) => {
                one[0] = Piece::Text(self.key_text.1, *end);
                &one[..]
            }
            MemberValue::Pieces(pieces) => pieces,
        }
    }
}

/// Every byte of the canonical text, written once, and the objects, their members sorted.
struct Arena {
    text: Vec<u8>,
    objects: Vec<Vec<Member>>,
    /// Where a small object is put in key order before it replaces its text.
    scratch: Vec<u8>,
}

impl Arena {
    /// Feeds the text of `pieces` to the hasher in order (objects nest at most `MAX_DEPTH` deep).
    fn emit(&self, pieces: &[Piece], hasher: &mut Sha256) {
        for piece in pieces {
            match *piece {
                Piece::Text(a, b) => hasher.update(&self.text[a..b]),
                Piece::Object(id) => {
                    hasher.update(b"{");
                    for (i, m) in self.objects[id].iter().enumerate() {
                        if i > 0 {
                            hasher.update(b",");
                        }
                        hasher.update(&self.text[m.key_text.0..m.key_text.1]);
                        hasher.update(b":");
                        self.emit(m.pieces(&mut [Piece::Object(0)]), hasher);
                    }
                    hasher.update(b"}");
                }
            }
        }
    }
}

/// Writes one value's canonical pieces to `pieces` (after a comma when `comma`).
struct Canonical<'a> {
    arena: &'a mut Arena,
    pieces: &'a mut Vec<Piece>,
    depth: usize,
    comma: bool,
}

impl Canonical<'_> {
    /// Appends what `write` writes to the text, as a piece (one with the piece before it when
    /// they touch: an array of numbers is one piece).
    fn text<E: Error>(&mut self, write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>) -> Result<(), E> {
        let start = self.arena.text.len();
        if self.comma {
            self.arena.text.push(b',');
        }
        write(&mut self.arena.text)?;
        let end = self.arena.text.len();
        match self.pieces.last_mut() {
            Some(Piece::Text(_, last)) if *last == start => *last = end,
            _ => self.pieces.push(Piece::Text(start, end)),
        }
        self.comma = false;
        Ok(())
    }

    /// serde_json's own text for a string or number (its escapes and its shortest float form).
    fn write<T: serde::Serialize + ?Sized, E: Error>(&mut self, v: &T) -> Result<(), E> {
        self.text(|out| serde_json::to_writer(out, v).map_err(E::custom))
    }

    fn bytes<E: Error>(&mut self, b: &[u8]) -> Result<(), E> {
        self.text(|out| {
            out.extend_from_slice(b);
            Ok(())
        })
    }

    fn enter<E: Error>(&self) -> Result<usize, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom("nested too deeply"));
        }
        Ok(self.depth + 1)
    }
}

impl<'de> DeserializeSeed<'de> for Canonical<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Canonical<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: Error>(mut self, v: bool) -> Result<(), E> {
        self.bytes(if v { b"true" } else { b"false" })
    }

    /// Past 2^53 the service reads an integer as the f64 nearest to it, as it reads `1e16`: it is
    /// written as that float, so `10000000000000000` (JavaScript's spelling) and `1e+16` (Python's)
    /// are one body, as are two integers that round to one f64.
    fn visit_i64<E: Error>(mut self, v: i64) -> Result<(), E> {
        if v.unsigned_abs() <= EXACT_INTEGER as u64 {
            return self.write(&v);
        }
        self.visit_f64(v as f64)
    }

    fn visit_u64<E: Error>(mut self, v: u64) -> Result<(), E> {
        if v <= EXACT_INTEGER as u64 {
            return self.write(&v);
        }
        self.visit_f64(v as f64)
    }

    /// One spelling per number: `2`, `2.0`, `2e0` and `20e-1` all read as 2 (serde keeps the first
    /// as an integer and the rest as floats), so a client or proxy that writes integral floats
    /// differently (Python's `2.0`, JavaScript's `2`) still sends the same body. Decimal
    /// spellings of one float (`0.1`, `0.10`, `1e-1`) already parse to one f64.
    fn visit_f64<E: Error>(mut self, v: f64) -> Result<(), E> {
        if v.fract() == 0.0 && v.abs() <= EXACT_INTEGER {
            return self.write(&(v as i64));
        }
        // serde_json never yields a non-finite float.
        self.write(&Number::from_f64(v))
    }

    fn visit_str<E: Error>(mut self, v: &str) -> Result<(), E> {
        self.write(v)
    }

    fn visit_unit<E: Error>(mut self) -> Result<(), E> {
        self.bytes(b"null")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let depth = self.enter()?;
        self.bytes(b"[")?;
        let mut comma = false;
        // An element writes its own comma, so none is left behind the last one.
        while seq.next_element_seed(Canonical { arena: &mut *self.arena, pieces: &mut *self.pieces, depth, comma })?.is_some() {
            comma = true;
        }
        self.bytes(b"]")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let depth = self.enter()?;
        // Members are read apart, then listed in key order (byte order, as serde_json's sorted
        // map); their text stays where it was written, or, for a small object, is rewritten in
        // that order in place.
        let start = self.arena.text.len();
        let mut members: Vec<Member> = Vec::new();
        // The keys written with escapes, as read (usually none); dropped once the members are sorted.
        let mut escaped_keys: Vec<Box<str>> = Vec::new();
        let mut value = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let key_start = self.arena.text.len();
            serde_json::to_writer(&mut self.arena.text, &key).map_err(A::Error::custom)?;
            let key_text = (key_start, self.arena.text.len());
            let escaped = if self.arena.text[key_text.0..key_text.1].contains(&b'\\') {
                escaped_keys.push(key.into_boxed_str());
                u32::try_from(escaped_keys.len() - 1).map_err(A::Error::custom)?
            } else {
                NOT_ESCAPED
            };
            map.next_value_seed(Canonical { arena: &mut *self.arena, pieces: &mut value, depth, comma: false })?;
            // A value written right after its key is located by its end; the list of pieces is
            // used again for the next member.
            let value = match value[..] {
                [Piece::Text(a, end)] if a == key_text.1 => {
                    value.clear();
                    MemberValue::TextTo(end)
                }
                _ => MemberValue::Pieces(std::mem::take(&mut value).into_boxed_slice()),
            };
            members.push(Member { key_text, escaped, value });
        }
        let text = &self.arena.text;
        // Unstable: equal keys are refused below, so their order never shows (no scratch half).
        members.sort_unstable_by(|a, b| a.key(text, &escaped_keys).cmp(b.key(text, &escaped_keys)));
        if members.windows(2).any(|w| w[0].key(text, &escaped_keys) == w[1].key(text, &escaped_keys)) {
            return Err(A::Error::custom("duplicate key"));
        }
        drop(escaped_keys);
        if self.arena.text.len() - start <= INLINE_OBJECT_BYTES && members.iter().all(|m| matches!(m.value, MemberValue::TextTo(_))) {
            let arena = &mut *self.arena;
            let mut sorted = std::mem::take(&mut arena.scratch);
            sorted.clear();
            sorted.push(b'{');
            for (i, m) in members.iter().enumerate() {
                if i > 0 {
                    sorted.push(b',');
                }
                sorted.extend_from_slice(&arena.text[m.key_text.0..m.key_text.1]);
                sorted.push(b':');
                if let MemberValue::TextTo(end) = m.value {
                    sorted.extend_from_slice(&arena.text[m.key_text.1..end]);
                }
            }
            sorted.push(b'}');
            arena.text.truncate(start);
            let written = self.bytes(&sorted);
            self.arena.scratch = sorted;
            return written;
        }
        // The comma before this object is a piece of its own, ahead of the object's.
        if self.comma {
            self.bytes(b"")?;
        }
        members.shrink_to_fit();
        self.arena.objects.push(members);
        self.pieces.push(Piece::Object(self.arena.objects.len() - 1));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The digest as it was computed from a tree of values (before it was streamed): stored
    /// idempotency records must keep matching their retries across the change. (Integers past
    /// 2^53 were written as sent until 2026-11-25; the tree form here reads them as f64 too.)
    fn tree_digest(bytes: &[u8]) -> String {
        fn canonical_numbers(value: &mut Value) {
            match value {
                Value::Number(n) => {
                    let exact = n.as_u64().map(|u| u <= EXACT_INTEGER as u64).or(n.as_i64().map(|i| i.unsigned_abs() <= EXACT_INTEGER as u64));
                    if exact == Some(false) {
                        *n = Number::from_f64(n.as_f64().unwrap()).unwrap();
                    }
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
        let mut value: Value = serde_json::from_slice(bytes).unwrap();
        canonical_numbers(&mut value);
        let mut hasher = Sha256::new();
        hasher.update(b"json:");
        hasher.update(serde_json::to_vec(&value).unwrap());
        hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A random JSON text without repeated keys, nested at most `depth` deep.
    fn random_json(seed: &mut u64, depth: usize, out: &mut String) {
        let mut next = |n: u64| {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (*seed >> 33) % n
        };
        const LEAVES: &[&str] = &[
            "0", "-0", "-0.0", "2.0", "2e0", "1e300", "-1.5e-7", "0.1", "9007199254740993", "9007199254740992.0", "18446744073709551615",
            "-9223372036854775808", "123456789.125", "true", "false", "null", r#""a\"b""#, r#""\u00e9\n\t""#, r#""\ud83d\ude00 x""#, r#""""#,
        ];
        match if depth == 0 { 0 } else { next(4) } {
            0 | 1 => out.push_str(LEAVES[next(LEAVES.len() as u64) as usize]),
            2 => {
                out.push_str(" [ ");
                for i in 0..next(4) {
                    if i > 0 {
                        out.push_str(" ,\n");
                    }
                    random_json(seed, depth - 1, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                let count = next(5);
                for i in 0..count {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&format!(r#" "{}" : "#, ["b", "a", "é", "B", "aa", "\\u0061b", "_", "10", "9"][i as usize % 9]));
                    random_json(seed, depth - 1, out);
                }
                out.push('}');
            }
        }
    }

    #[test]
    fn small_objects_are_written_in_key_order_at_once_and_only_large_ones_are_kept_apart() {
        // 20,000 rows, each a small object out of key order, in a large top-level object: the rows
        // are rewritten in place (no members kept: those cost up to 60 bytes of memory per body
        // byte), and the text is no longer than the body without its spaces.
        let rows: Vec<String> = (0..20_000).map(|i| format!(r#"{{"unique_id": "id{}", "ds": "2024-01-01T00:00:00Z", "y": {i}.5}}"#, i % 7)).collect();
        let body = format!(r#"{{"series": [{}], "h": 2, "padding": "{}"}}"#, rows.join(", "), "x".repeat(INLINE_OBJECT_BYTES));
        let (arena, pieces) = canonical_read(body.as_bytes()).unwrap();
        assert_eq!(arena.objects.len(), 1, "the top-level object alone is kept apart");
        assert_eq!(arena.objects[0].len(), 3);
        assert!(arena.text.len() < body.len() - 20_000 * 3, "{} {}", arena.text.len(), body.len());
        assert!(matches!(pieces[..], [Piece::Object(0)]));
        let series = &arena.objects[0][2];
        assert_eq!(series.key(&arena.text, &[]), b"series");
        assert!(std::mem::size_of::<Member>() <= 40, "{}", std::mem::size_of::<Member>());
        let MemberValue::TextTo(b) = series.value else { panic!("the rows are one stretch of text") };
        let a = series.key_text.1;
        assert!(arena.text[a..b].starts_with(br#"[{"ds":"2024-01-01T00:00:00Z","unique_id":"id0","y":0.5},{"ds""#));
        assert_eq!(canonical_digest(body.as_bytes()), tree_digest(body.as_bytes()));
        // A large object inside a large one is a member's pieces, emitted in place.
        let nested = format!(r#"{{"z": 1, "outer": {body}, "a": [{body}, 2]}}"#);
        let (arena, _) = canonical_read(nested.as_bytes()).unwrap();
        assert_eq!(arena.objects.len(), 3);
        assert_eq!(canonical_digest(nested.as_bytes()), tree_digest(nested.as_bytes()));
    }

    #[test]
    fn keys_written_with_escapes_sort_by_the_key_they_spell() {
        // The key a" is written "a\"": by its text it would sort after a#, by its bytes it comes
        // between a! and a#, as serde_json's sorted map puts it. So do a tab and a newline.
        let members = r#""a#": 1, "a\"": 2, "a!": 3, "\n": 4, "\t": 5"#;
        let small = format!("{{{members}}}");
        let large = format!(r#"{{{members}, "z": "{}"}}"#, "x".repeat(INLINE_OBJECT_BYTES));
        for body in [small, large] {
            assert_eq!(canonical_digest(body.as_bytes()), tree_digest(body.as_bytes()), "{body}");
        }
        assert_ne!(canonical_digest(br#"{"\u0062":1,"b":1}"#), canonical_digest(br#"{"b":1}"#), "a repeated key, escaped or not");
    }

    #[test]
    fn a_leading_byte_order_mark_is_no_part_of_the_digest() {
        let body = br#"{"h": 2, "series": []}"#;
        let marked = [b"\xEF\xBB\xBF".as_slice(), body].concat();
        assert_eq!(canonical_digest(&marked), canonical_digest(body));
        assert_eq!(canonical_digest(&marked), canonical_digest(br#"{"series":[],"h":2}"#));
    }

    #[test]
    fn the_streamed_digest_equals_the_digest_of_the_value_tree() {
        let mut seed = 20261123;
        for _ in 0..2_000 {
            let mut body = String::new();
            random_json(&mut seed, 5, &mut body);
            assert_eq!(canonical_digest(body.as_bytes()), tree_digest(body.as_bytes()), "{body}");
        }
        // The same bodies with their empty strings made long, so that objects around them pass
        // INLINE_OBJECT_BYTES and are kept apart, members and all.
        let long = format!(r#""{}""#, "y".repeat(INLINE_OBJECT_BYTES + 100));
        let mut seed = 20261125;
        let mut large = 0;
        for _ in 0..500 {
            let mut body = String::new();
            random_json(&mut seed, 5, &mut body);
            let body = body.replace(r#""""#, &long);
            large += canonical_read(body.as_bytes()).map_or(0, |(arena, _)| arena.objects.len());
            assert_eq!(canonical_digest(body.as_bytes()), tree_digest(body.as_bytes()), "{body}");
        }
        assert!(large > 50, "{large} large objects");
        let rows = br#"{"h": 2, "series": [{"unique_id": "a", "ds": "2024-01-01", "y": 1.50}, {"y": null, "ds": "2024-01-02", "unique_id": "a"}]}"#;
        assert_eq!(canonical_digest(rows), tree_digest(rows));
    }

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
        assert_ne!(canonical_digest(b"[1e300]"), canonical_digest(b"[1]"));
    }

    #[test]
    fn integers_past_2_pow_53_share_a_digest_with_the_float_the_service_reads() {
        // JavaScript writes 1e16 as an integer, Python as `1e+16`: a retry re-serialised by the other still matches.
        for (int, float) in [("10000000000000000", "1e+16"), ("-1000000000000000000", "-1e18"), ("18446744073709551615", "1.8446744073709552e19"), ("9007199254740993", "9007199254740993.0")] {
            let (a, b) = (format!(r#"{{"y":[{int}]}}"#), format!(r#"{{"y":[{float}]}}"#));
            assert_eq!(canonical_digest(a.as_bytes()), canonical_digest(b.as_bytes()), "{int} and {float}");
        }
        // Two integers the service reads as one f64 are one body; up to 2^53 every integer is its own.
        assert_eq!(canonical_digest(b"[9007199254740993]"), canonical_digest(b"[9007199254740992]"));
        assert_ne!(canonical_digest(b"[9007199254740991]"), canonical_digest(b"[9007199254740992]"));
        assert_ne!(canonical_digest(b"[-9007199254740991]"), canonical_digest(b"[-9007199254740992]"));
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
