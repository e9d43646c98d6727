//! What every per-target rewrite shares: the problems it reports, JSON pointers, notes moved into
//! descriptions, and `$ref` bookkeeping.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The target would reject the definition, or the model could not send valid input.
    Error,
    /// The definition works, but something was lost or is worth a look.
    Warning,
}

/// A problem found while rewriting a schema for a target.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Issue {
    /// How bad it is.
    pub severity: Severity,
    /// JSON pointer into the tool's input schema (canonical form), `""` for the root.
    pub pointer: String,
    /// The schema keyword concerned, e.g. `prefixItems`.
    pub keyword: String,
    /// What is wrong, and why.
    pub message: String,
    /// What the author can do.
    pub fix: String,
}

/// The rewritten schema and what the rewrite found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Rewritten {
    /// The schema to send.
    pub schema: Value,
    /// Problems, in the order found.
    pub issues: Vec<Issue>,
}

/// Collects issues for one rewrite.
#[derive(Default)]
pub(crate) struct Issues(pub Vec<Issue>);

impl Issues {
    pub fn error(
        &mut self,
        pointer: &str,
        keyword: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.push(
            Severity::Error,
            pointer,
            keyword,
            message.into(),
            fix.into(),
        );
    }

    pub fn warn(
        &mut self,
        pointer: &str,
        keyword: &str,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.push(
            Severity::Warning,
            pointer,
            keyword,
            message.into(),
            fix.into(),
        );
    }

    fn push(
        &mut self,
        severity: Severity,
        pointer: &str,
        keyword: &str,
        message: String,
        fix: String,
    ) {
        self.0.push(Issue {
            severity,
            pointer: pointer.to_owned(),
            keyword: keyword.to_owned(),
            message,
            fix,
        });
    }
}

/// `pointer` extended by one reference token (escaped per RFC 6901).
pub(crate) fn child(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// Appends a sentence to a schema's description (the way unsupported keywords stay visible to
/// the model).
pub(crate) fn note(map: &mut Map<String, Value>, text: &str) {
    let description = noted(map.get("description").and_then(Value::as_str), text);
    map.insert("description".into(), description.into());
}

/// A description with `text` appended as a sentence of its own.
pub(crate) fn noted(description: Option<&str>, text: &str) -> String {
    match description {
        Some(d) if !d.is_empty() => {
            let sep = if d.ends_with('.') { " " } else { ". " };
            format!("{d}{sep}{text}")
        }
        _ => text.to_owned(),
    }
}

/// A short, readable rendering of a keyword's value for a description note.
pub(crate) fn describe(keyword: &str, value: &Value) -> String {
    let shown = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let what = match keyword {
        "minimum" => "at least",
        "maximum" => "at most",
        "exclusiveMinimum" => "greater than",
        "exclusiveMaximum" => "less than",
        "minLength" => "at least this many characters:",
        "maxLength" => "at most this many characters:",
        "minItems" => "at least this many items:",
        "maxItems" => "at most this many items:",
        "multipleOf" => "a multiple of",
        "pattern" => "matching the pattern",
        "default" => "default",
        "uniqueItems" => "items unique:",
        "format" => "format",
        "minProperties" => "at least this many keys:",
        "maxProperties" => "at most this many keys:",
        _ => return format!("{keyword}: {shown}."),
    };
    format!("{} {shown}.", capitalise(what))
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Folds a one-part `allOf` into the schema (how schemars wraps a described `$ref`); reports an
/// error naming `who` for an `allOf` of several parts, which no target here accepts.
pub(crate) fn merge_all_of(
    map: &mut Map<String, Value>,
    ptr: &str,
    issues: &mut Issues,
    who: &str,
) {
    let Some(all_of) = map.shift_remove("allOf") else {
        return;
    };
    match all_of {
        Value::Array(mut parts) if parts.len() == 1 && parts[0].is_object() => {
            if let Value::Object(part) = parts.remove(0) {
                for (k, v) in part {
                    map.entry(k).or_insert(v);
                }
            }
        }
        _ => issues.error(
            ptr,
            "allOf",
            format!("{who} does not accept allOf"),
            "flatten the parts into one struct",
        ),
    }
}

/// The definition name of a local `$ref` (`#/$defs/Name` or `#/definitions/Name`).
pub(crate) fn ref_name(reference: &str) -> Option<String> {
    let name = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    Some(name.replace("~1", "/").replace("~0", "~"))
}

/// Definitions that take part in a reference cycle (recursive types), found from the root.
pub(crate) fn recursive_defs(root: &Value) -> BTreeSet<String> {
    let defs = definitions(root);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, schema) in &defs {
        let mut refs = BTreeSet::new();
        collect_refs(schema, &mut refs);
        edges.insert(name.clone(), refs);
    }
    let mut recursive = BTreeSet::new();
    for start in edges.keys() {
        // Is `start` reachable from itself?
        let mut stack: Vec<&String> = edges[start].iter().collect();
        let mut seen = BTreeSet::new();
        while let Some(node) = stack.pop() {
            if node == start {
                recursive.insert(start.clone());
                break;
            }
            if seen.insert(node.clone())
                && let Some(next) = edges.get(node)
            {
                stack.extend(next.iter());
            }
        }
    }
    recursive
}

/// The definition named `name` in a root schema's `$defs` (or `definitions`).
pub(crate) fn definitions_ref<'a>(root: &'a Value, name: &str) -> Option<&'a Value> {
    ["$defs", "definitions"]
        .iter()
        .find_map(|key| root.get(*key)?.get(name))
}

/// The `$defs` (or `definitions`) of a root schema.
pub(crate) fn definitions(root: &Value) -> Map<String, Value> {
    let mut all = Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Value::Object(defs)) = root.get(key) {
            all.extend(defs.clone());
        }
    }
    all
}

fn collect_refs(schema: &Value, out: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(ref_name) {
                out.insert(name);
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// The type names a schema allows (`type` as a string or an array).
pub(crate) fn types(map: &Map<String, Value>) -> Vec<String> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a schema's `type` allows `name` (as a string or in an array), without the copies
/// [`types`] makes.
pub(crate) fn allows_type(map: &Map<String, Value>, name: &str) -> bool {
    match key(map, "type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}

/// Whether a schema says something about the value's shape (otherwise it accepts anything).
pub(crate) fn constrains(map: &Map<String, Value>) -> bool {
    const SHAPING: [&str; 9] = [
        "type",
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "enum",
        "const",
        "properties",
        "items",
    ];
    if map.len() <= SMALL {
        return map.keys().any(|k| SHAPING.contains(&k.as_str()));
    }
    SHAPING.iter().any(|k| map.contains_key(*k))
}

/// Schema objects with at most this many keys (most of them) are searched by scanning.
const SMALL: usize = 8;

/// `map[name]`. `serde_json::Map` keeps its order in an `IndexMap`, which hashes the key with
/// SipHash; for the few keys of most schema objects a scan costs a fraction of that, on paths
/// every tool's schemas take at start-up.
pub(crate) fn key<'m>(map: &'m Map<String, Value>, name: &str) -> Option<&'m Value> {
    if map.len() > SMALL {
        return map.get(name);
    }
    map.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    proptest::proptest! {
        /// The scan and the hashed lookup agree, below and above the size where they switch,
        /// and so do `allows_type` and `types`.
        #[test]
        fn small_map_lookups_are_the_maps_own(
            keys in proptest::collection::vec("[a-z$]{1,3}", 0..14),
            wanted in "[a-z$]{1,3}",
            typed in proptest::option::of(proptest::collection::vec(
                proptest::sample::select(vec!["null", "object", "string", "integer"]), 0..3)),
        ) {
            let mut map: Map<String, Value> =
                keys.iter().enumerate().map(|(i, k)| (k.clone(), json!(i))).collect();
            proptest::prop_assert_eq!(key(&map, &wanted), map.get(&wanted));
            proptest::prop_assert_eq!(key(&map, "type"), map.get("type"));
            if let Some(typed) = typed {
                let value = match typed.as_slice() {
                    [one] => json!(one),
                    many => json!(many),
                };
                map.insert("type".into(), value);
            }
            for name in ["null", "object", "string"] {
                proptest::prop_assert_eq!(
                    allows_type(&map, name),
                    types(&map).iter().any(|t| t == name)
                );
            }
        }
    }

    #[test]
    fn pointers_escape_tokens() {
        assert_eq!(child("", "a/b~c"), "/a~1b~0c");
    }

    #[test]
    fn notes_join_sentences() {
        let mut m = Map::new();
        note(&mut m, "At least 1.");
        note(&mut m, "At most 5.");
        assert_eq!(m["description"], "At least 1. At most 5.");
    }

    #[test]
    fn recursion_is_found_through_chains() {
        let root = json!({"$defs": {
            "Tree": {"properties": {"kids": {"items": {"$ref": "#/$defs/Forest"}}}},
            "Forest": {"items": {"$ref": "#/$defs/Tree"}},
            "Leaf": {"type": "string"},
            "Uses": {"$ref": "#/$defs/Leaf"}
        }});
        let found = recursive_defs(&root);
        assert_eq!(found.into_iter().collect::<Vec<_>>(), ["Forest", "Tree"]);
    }
}
