//! Random JSON for property tests: arrays and objects over the leaves and keys a test cares
//! about, so each test names only those.

use proptest::prelude::*;
use serde_json::Value;

/// Values of `leaf`, nested up to `depth` levels in arrays and in objects keyed by `key`, with
/// fewer than `width` items each.
pub(crate) fn json_tree(
    leaf: impl Strategy<Value = Value> + 'static,
    key: impl Strategy<Value = String> + 'static,
    depth: u32,
    width: usize,
) -> impl Strategy<Value = Value> {
    let key = key.boxed();
    leaf.prop_recursive(depth, 32, width as u32, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..width).prop_map(Value::from),
            proptest::collection::btree_map(key.clone(), inner, 0..width)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every kind of JSON leaf: `null`, booleans, any integer or float (a NaN or infinity becomes
/// `null`, as `serde_json` makes it), and strings from `text`.
pub(crate) fn json_leaf(
    text: impl Strategy<Value = String> + 'static,
) -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text.prop_map(Value::from),
    ]
}
