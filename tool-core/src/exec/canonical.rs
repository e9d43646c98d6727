//! The canonical form of a JSON value, which the audit digest is taken over.

use serde_json::Value;

/// `value` as JSON with every object's keys sorted: the same value gives the same bytes,
/// whatever order its members came in (for digests that bind to a call's arguments, and for
/// comparing arguments).
///
/// ```
/// let a = serde_json::json!({"b": [1, {"d": 2, "c": 3}], "a": null});
/// assert_eq!(tool_core::exec::canonical_json(&a), br#"{"a":null,"b":[1,{"c":3,"d":2}]}"#);
/// ```
pub fn canonical_json(value: &Value) -> Vec<u8> {
    fn write(value: &Value, out: &mut Vec<u8>) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push(b'{');
                for (n, key) in keys.into_iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    let _ = serde_json::to_writer(&mut *out, key);
                    out.push(b':');
                    write(&map[key], out);
                }
                out.push(b'}');
            }
            Value::Array(items) => {
                out.push(b'[');
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    write(item, out);
                }
                out.push(b']');
            }
            scalar => {
                let _ = serde_json::to_writer(&mut *out, scalar);
            }
        }
    }
    let mut out = Vec::new();
    write(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::canonical_json as canonical;
    use crate::test_json::{json_leaf, json_tree};

    proptest! {
        /// The canonical form is JSON that reads back as the same value, and the same for any
        /// order of members.
        #[test]
        fn canonical_json_is_the_value_in_one_order(
            value in json_tree(json_leaf(".{0,8}".prop_map(String::from)), "[a-z\\\"]{0,4}", 3, 4),
        ) {
            let bytes = canonical(&value);
            let back: Value = serde_json::from_slice(&bytes).unwrap();
            prop_assert_eq!(&back, &value);
            let reordered = reverse(&value);
            prop_assert_eq!(canonical(&reordered), bytes);
        }
    }

    fn reverse(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut out = serde_json::Map::new();
                for (k, v) in map.iter().rev() {
                    out.insert(k.clone(), reverse(v));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(reverse).collect()),
            other => other.clone(),
        }
    }
}
