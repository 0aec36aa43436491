//! The canonical encoding: one byte string for one JSON value, whatever key order, white
//! space or number spelling the JSON arrived with. The hash chain hashes these bytes, so the
//! same event always gives the same hash, before and after a round trip through PostgreSQL's
//! `jsonb`.
//!
//! The rules, close to RFC 8785 (JCS) in spirit:
//! - no insignificant white space;
//! - object keys sorted by their UTF-8 bytes; duplicate keys cannot occur (a parsed `Value`
//!   keeps one);
//! - strings escaped as `serde_json` escapes them (`"`, `\`, control characters), everything
//!   else written as raw UTF-8;
//! - a number with no fractional part is written as an integer (`100.0`, `1e2` and `100` are
//!   all `100`; `-0` is `0`), because `jsonb` does not keep the difference between them;
//!   any other number is written in the shortest form that reads back to the same `f64`.

use serde_json::{Number, Value};

/// The canonical bytes of a JSON value.
pub fn to_canonical_bytes(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    write_value(value, &mut out);
    out
}

/// The canonical text of a JSON value (the same bytes as [`to_canonical_bytes`]).
pub fn to_canonical_string(value: &Value) -> String {
    // The writer only ever emits UTF-8: raw string contents and ASCII punctuation.
    String::from_utf8(to_canonical_bytes(value)).unwrap_or_default()
}

pub fn write_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(key, out);
                out.push(b':');
                write_value(item, out);
            }
            out.push(b'}');
        }
    }
}

pub fn write_string(s: &str, out: &mut Vec<u8>) {
    // serde_json's string escaping is exactly the escaping we want; writing a &str to a Vec
    // cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn write_number(n: &Number, out: &mut Vec<u8>) {
    if let Some(i) = n.as_i64() {
        out.extend_from_slice(i.to_string().as_bytes());
    } else if let Some(u) = n.as_u64() {
        out.extend_from_slice(u.to_string().as_bytes());
    } else if let Some(f) = n.as_f64() {
        if f.fract() == 0.0 && f.is_finite() {
            let integral = if f == 0.0 { 0.0 } else { f };
            out.extend_from_slice(format!("{integral:.0}").as_bytes());
        } else {
            out.extend_from_slice(n.to_string().as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_and_white_space_dropped() {
        let value: Value =
            serde_json::from_str(r#"{ "b" : 1, "a": [ true, null, {"d":2,"c":"x"} ] }"#)
                .expect("valid json");
        assert_eq!(
            to_canonical_string(&value),
            r#"{"a":[true,null,{"c":"x","d":2}],"b":1}"#
        );
    }

    #[test]
    fn integral_numbers_have_one_spelling() {
        for spelling in ["100", "100.0", "1e2", "1.00E+2"] {
            let value: Value = serde_json::from_str(spelling).expect("number");
            assert_eq!(to_canonical_string(&value), "100", "{spelling}");
        }
        let negative_zero: Value = serde_json::from_str("-0.0").expect("number");
        assert_eq!(to_canonical_string(&negative_zero), "0");
        let big: Value = serde_json::from_str("1e16").expect("number");
        assert_eq!(to_canonical_string(&big), "10000000000000000");
    }

    #[test]
    fn fractions_use_the_shortest_round_trip_form() {
        let value: Value = serde_json::from_str("0.10").expect("number");
        assert_eq!(to_canonical_string(&value), "0.1");
    }

    #[test]
    fn strings_escape_quotes_backslashes_and_control_characters_only() {
        let value = json!({"s": "Ä \"q\" \\ \n \u{1}"});
        assert_eq!(
            to_canonical_string(&value),
            "{\"s\":\"Ä \\\"q\\\" \\\\ \\n \\u0001\"}"
        );
    }

    fn arbitrary_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| json!(i)),
            (-1.0e12f64..1.0e12).prop_map(|f| json!(f)),
            "[a-zA-Z0-9 äé\"\\\\]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map("[a-z]{1,6}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn canonical_bytes_survive_reparsing_and_pretty_printing(value in arbitrary_json()) {
            let canonical = to_canonical_bytes(&value);
            let pretty = serde_json::to_string_pretty(&value).expect("serializable");
            let reparsed: Value = serde_json::from_str(&pretty).expect("parses");
            prop_assert_eq!(&to_canonical_bytes(&reparsed), &canonical);
            let from_canonical: Value = serde_json::from_slice(&canonical).expect("canonical is JSON");
            prop_assert_eq!(to_canonical_bytes(&from_canonical), canonical);
        }
    }
}
