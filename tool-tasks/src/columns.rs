//! How the SQL stores keep a record's values in columns: times as signed 64-bit integers, JSON
//! as text, an empty object as `NULL`; and how they read them back, a value that does not read
//! being a corrupt record of the store that holds it.

use serde_json::{Map, Value};

use crate::store::StoreError;

/// Milliseconds as a column (`BIGINT`/`INTEGER`): past `i64::MAX`, the largest.
pub(crate) fn ms(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Milliseconds from a column: below zero, zero.
pub(crate) fn unsigned(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// A JSON column of task `id` of `store`.
pub(crate) fn read_json(
    store: &'static str,
    id: &str,
    what: &str,
    text: Option<String>,
) -> Result<Option<Value>, StoreError> {
    text.map(|text| {
        serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
            store,
            id: id.to_owned(),
            what: format!("{what}: {e}"),
        })
    })
    .transpose()
}

/// A JSON object column (`NULL` is an empty object).
pub(crate) fn read_object(
    store: &'static str,
    id: &str,
    what: &str,
    text: Option<String>,
) -> Result<Map<String, Value>, StoreError> {
    match read_json(store, id, what, text)? {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map),
        Some(other) => Err(StoreError::Corrupt {
            store,
            id: id.to_owned(),
            what: format!("{what}: not an object but {other}"),
        }),
    }
}

/// An object as a column: `NULL` when empty.
pub(crate) fn object_text(map: &Map<String, Value>) -> Option<String> {
    (!map.is_empty()).then(|| Value::Object(map.clone()).to_string())
}
