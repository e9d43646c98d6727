//! The canonical JSON Schema (2020-12) of a tool's input and output.
//!
//! Schemas come from schemars and are normalised once, when a registry is built, so that every
//! renderer starts from the same tree: the root of an input schema is always an object with
//! `properties`, no subschema is a bare `true`, and the generated arguments struct's name never
//! leaks as a `title`.

mod gemini;
mod keywords;
mod mcp;
mod rewrite;
mod strict;

pub use gemini::{json_schema as gemini_json_schema, openapi as gemini_openapi};
pub use mcp::McpSchema;
pub use rewrite::{Issue, Rewritten, Severity};
pub use strict::{StrictTarget, rewrite as strict};

use keywords::{SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS};

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

/// The JSON Schema dialect of every canonical schema.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Removes the `null`s a model sends for optional properties whose schema does not accept
/// `null`, at any depth, guided by the tool's input schema.
///
/// OpenAI's strict mode sends every property, `null` for "not given"; serde's `default` only
/// covers a missing key, so without this a `#[serde(default)]` field would refuse the call.
///
/// ```
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {
///     "opts": {"type": "object", "properties": {"verbose": {"type": "boolean"}, "tag": {"type": ["string", "null"]}}}
/// }});
/// let mut input = json!({"opts": {"verbose": null, "tag": null}});
/// tool_core::definition::schema::drop_absent_nulls(&mut input, &schema);
/// assert_eq!(input, json!({"opts": {"tag": null}}));
/// ```
pub fn drop_absent_nulls(input: &mut Value, schema: &Value) {
    // Most inputs hold no null: then there is nothing to drop, and the schema need not be read.
    if holds_null(input, 0) {
        drop_nulls(input, schema, schema, 0);
    }
}

/// Whether [`drop_absent_nulls`] can ever change an input for `schema`: true when some object
/// schema in it (at any depth, `$defs` included) has an optional property that refuses `null`.
/// A tool works this out once, so calls to tools without such a property skip even the scan
/// for nulls.
///
/// ```
/// use serde_json::json;
/// let required = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]});
/// let nullable = json!({"type": "object", "properties": {"a": {"type": ["integer", "null"]}}});
/// let optional = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
/// assert!(!tool_core::definition::schema::may_drop_nulls(&required));
/// assert!(!tool_core::definition::schema::may_drop_nulls(&nullable));
/// assert!(tool_core::definition::schema::may_drop_nulls(&optional));
/// ```
pub fn may_drop_nulls(schema: &Value) -> bool {
    // Every schema `drop_nulls` reads is a part of the root, so walking the whole document
    // (definitions too) finds every property it could drop; too deep counts as yes.
    fn walk(node: &Value, root: &Value, depth: usize) -> bool {
        if depth > 64 {
            return true;
        }
        match node {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = rewrite::key(map, "properties") {
                    let required = rewrite::key(map, "required").and_then(Value::as_array);
                    let drops = props.iter().any(|(key, property)| {
                        !required.is_some_and(|r| r.iter().any(|x| x == key))
                            && !accepts_null(resolve(property, root), root)
                    });
                    if drops {
                        return true;
                    }
                }
                map.values().any(|v| walk(v, root, depth + 1))
            }
            Value::Array(items) => items.iter().any(|v| walk(v, root, depth + 1)),
            _ => false,
        }
    }
    walk(schema, schema, 0)
}

/// Whether `value` is or contains a `null` (or nests too deep to tell cheaply).
fn holds_null(value: &Value, depth: usize) -> bool {
    match value {
        Value::Null => true,
        _ if depth > 64 => true,
        Value::Object(map) => map.values().any(|v| holds_null(v, depth + 1)),
        Value::Array(items) => items.iter().any(|v| holds_null(v, depth + 1)),
        _ => false,
    }
}

fn drop_nulls(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    const MAX_DEPTH: usize = 64;
    let schema = resolve(schema, root);
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = schema.get("properties") {
                let required = |k: &str| {
                    schema
                        .get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.iter().any(|x| x == k))
                };
                map.retain(|k, v| {
                    !(v.is_null()
                        && !required(k)
                        && props
                            .get(k)
                            .is_some_and(|p| !accepts_null(resolve(p, root), root)))
                });
                for (k, v) in map.iter_mut() {
                    if let Some(p) = props.get(k) {
                        drop_nulls(v, p, root, depth + 1);
                    }
                }
            }
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(Value::Array(variants)) = schema.get(key) {
                    let objects: Vec<&Value> = variants
                        .iter()
                        .filter(|v| resolve(v, root).get("properties").is_some())
                        .collect();
                    if let [only] = objects.as_slice() {
                        drop_nulls(value, only, root, depth + 1);
                        return;
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    drop_nulls(item, item_schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Follows local `$ref`s (a bounded number of hops).
fn resolve<'a>(mut schema: &'a Value, root: &'a Value) -> &'a Value {
    for _ in 0..32 {
        let Some(name) = schema
            .as_object()
            .and_then(|map| rewrite::key(map, "$ref"))
            .and_then(Value::as_str)
            .and_then(rewrite::ref_name)
        else {
            break;
        };
        match rewrite::definitions_ref(root, &name) {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

fn accepts_null(schema: &Value, root: &Value) -> bool {
    accepts_null_within(schema, root, 32)
}

/// `accepts_null`, following at most `hops` unions: a type that is a union of itself (an
/// untagged enum wrapping itself) would otherwise recurse until the stack overflows. Too deep
/// counts as accepting, so nothing is dropped.
fn accepts_null_within(schema: &Value, root: &Value, hops: usize) -> bool {
    let Value::Object(map) = schema else {
        return *schema == Value::Bool(true);
    };
    if rewrite::allows_type(map, "null")
        || rewrite::key(map, "enum")
            .and_then(Value::as_array)
            .is_some_and(|e| e.contains(&Value::Null))
        || !rewrite::constrains(map)
    {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|k| {
        rewrite::key(map, k)
            .and_then(Value::as_array)
            .is_some_and(|vs| {
                vs.iter()
                    .any(|v| hops == 0 || accepts_null_within(resolve(v, root), root, hops - 1))
            })
    })
}

/// The root schema of `T` with the canonical settings (draft 2020-12, definitions in `$defs`).
pub fn root_schema<T: JsonSchema>() -> Schema {
    SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// The root schema of an `#[input]` type: [`root_schema`], closed (`additionalProperties:
/// false`) when it lists its properties and says nothing of others, as the input of plain
/// parameters is. A schema that allows other keys (a flattened map), or builds its object
/// from parts (`allOf`, `oneOf`, `anyOf`, `$ref`), is left as it is.
pub fn closed_root_schema<T: JsonSchema>() -> Schema {
    let mut schema = root_schema::<T>();
    if let Some(root) = schema.as_object_mut()
        && closable(root)
    {
        root.insert("additionalProperties".into(), false.into());
    }
    schema
}

/// The keys an object schema takes when it takes no others: its `properties`, when it is
/// closed (`additionalProperties: false`) or says nothing of other keys and is built of no
/// parts; `None` otherwise.
///
/// ```
/// use serde_json::json;
/// use tool_core::definition::schema::closed_keys;
/// let keys = closed_keys(&json!({"type": "object", "properties": {"a": {}, "b": {}}}));
/// assert_eq!(keys.as_deref(), Some(&["a".to_owned(), "b".to_owned()][..]));
/// let open = json!({"type": "object", "properties": {"a": {}}, "additionalProperties": true});
/// assert_eq!(closed_keys(&open), None);
/// ```
pub fn closed_keys(schema: &Value) -> Option<Box<[String]>> {
    let root = schema.as_object()?;
    let closed = root.get("additionalProperties") == Some(&Value::Bool(false)) || closable(root);
    let properties = root.get("properties")?.as_object()?;
    closed.then(|| properties.keys().cloned().collect())
}

/// Whether an object schema says nothing of keys beyond its `properties`, and is built of no
/// parts whose keys `additionalProperties` would not see.
fn closable(root: &Map<String, Value>) -> bool {
    root.get("properties").is_some_and(Value::is_object)
        && ![
            "additionalProperties",
            "patternProperties",
            "unevaluatedProperties",
            "allOf",
            "anyOf",
            "oneOf",
            "$ref",
            "if",
            "dependentSchemas",
        ]
        .iter()
        .any(|k| root.contains_key(*k))
}

/// Builds the input schema of a tool from its parameters, one property each, sharing one
/// generator so that types used twice are defined once in `$defs`.
///
/// ```
/// use tool_core::definition::schema::ObjectSchema;
/// let mut s = ObjectSchema::new();
/// s.field("city", |g| g.subschema_for::<String>(), Some("City name"), true, None);
/// s.field("days", |g| g.subschema_for::<u8>(), None, false, Some(3.into()));
/// let v = s.finish().to_value();
/// assert_eq!(v["required"], serde_json::json!(["city"]));
/// assert_eq!(v["properties"]["city"]["description"], "City name");
/// assert_eq!(v["properties"]["days"]["default"], 3);
/// assert_eq!(v["additionalProperties"], false);
/// ```
pub struct ObjectSchema {
    generator: SchemaGenerator,
    properties: Map<String, Value>,
    required: Vec<Value>,
}

impl Default for ObjectSchema {
    fn default() -> Self {
        Self::new()
    }
}

impl ObjectSchema {
    /// An object with no properties yet.
    pub fn new() -> Self {
        Self {
            generator: SchemaSettings::draft2020_12().into_generator(),
            properties: Map::new(),
            required: Vec::new(),
        }
    }

    /// Adds one property.
    pub fn field(
        &mut self,
        key: &str,
        schema: fn(&mut SchemaGenerator) -> Schema,
        description: Option<&str>,
        required: bool,
        default: Option<Value>,
    ) {
        let mut sub = schema(&mut self.generator);
        let object = sub.ensure_object();
        if let Some(description) = description {
            object.insert("description".into(), description.into());
        }
        if let Some(default) = default {
            object.insert("default".into(), default);
        }
        self.properties.insert(key.to_owned(), sub.to_value());
        if required {
            self.required.push(key.into());
        }
    }

    /// The root schema: an object that refuses unknown keys.
    pub fn finish(mut self) -> Schema {
        // Room for every key below: the map is not rehashed as it fills.
        let mut root = Map::with_capacity(6);
        root.insert("$schema".into(), DIALECT.into());
        root.insert("type".into(), "object".into());
        root.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            root.insert("required".into(), Value::Array(self.required));
        }
        root.insert("additionalProperties".into(), false.into());
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        Schema::from(root)
    }
}

/// Why a schema cannot be a tool's input schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the input schema's root must be a JSON object, but it is {found}; take the input as a struct, or as plain parameters"
)]
pub struct NotAnObject {
    /// What the root is instead.
    pub found: String,
}

/// Normalises an input schema: see the module docs. Fails when the root cannot describe an
/// object (an input that is an array, a string, ...).
pub fn canonical_input(schema: Schema) -> Result<Value, NotAnObject> {
    let mut value = schema.to_value();
    normalise(&mut value);
    let root = match &mut value {
        Value::Object(root) => root,
        other => {
            return Err(NotAnObject {
                found: format!("the schema `{other}`"),
            });
        }
    };
    if rewrite::key(root, "title").is_some() {
        root.shift_remove("title");
    }
    if !describes_object(root) {
        return Err(NotAnObject {
            found: root
                .get("type")
                .map(|t| format!("of type {t}"))
                .unwrap_or_else(|| "not typed".to_owned()),
        });
    }
    if rewrite::key(root, "type").is_none() {
        root.insert("type".into(), "object".into());
    }
    let no_variants = !["oneOf", "anyOf"]
        .iter()
        .any(|k| rewrite::key(root, k).is_some());
    if no_variants && rewrite::key(root, "properties").is_none() {
        root.insert("properties".into(), Value::Object(Map::new()));
    }
    Ok(value)
}

/// Normalises an output schema (no object requirement: renderers decide how to wrap others).
pub fn canonical_output(schema: Schema) -> Value {
    let mut value = schema.to_value();
    normalise(&mut value);
    if let Value::Object(root) = &mut value
        && rewrite::key(root, "title").is_some()
    {
        root.shift_remove("title");
    }
    value
}

/// Whether a root schema describes only objects: `type: object`, or every `oneOf`/`anyOf`
/// variant does (internally tagged enums).
fn describes_object(schema: &Map<String, Value>) -> bool {
    match rewrite::key(schema, "type") {
        Some(Value::String(t)) => t == "object",
        Some(_) => false,
        None => ["oneOf", "anyOf"]
            .iter()
            .any(|k| match rewrite::key(schema, k) {
                Some(Value::Array(variants)) if !variants.is_empty() => variants.iter().all(|v| {
                    v.as_object().is_some_and(|m| {
                        m.get("type").and_then(Value::as_str) == Some("object")
                            || m.contains_key("$ref")
                    })
                }),
                _ => false,
            }),
    }
}

/// Replaces every bare `true` subschema by the equal `{}`, which every provider accepts.
/// `false` stays: `additionalProperties: false` is wanted.
fn normalise(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    // One pass over the keys a schema has (a few), not a hashed lookup of every keyword.
    for (key, sub) in map.iter_mut() {
        let key = key.as_str();
        if SCHEMA_KEYWORDS.contains(&key) {
            visit(sub);
        } else if SCHEMA_ARRAY_KEYWORDS.contains(&key) {
            if let Value::Array(subs) = sub {
                subs.iter_mut().for_each(visit);
            }
        } else if SCHEMA_MAP_KEYWORDS.contains(&key)
            && let Value::Object(subs) = sub
        {
            subs.values_mut().for_each(visit);
        }
    }
}

fn visit(sub: &mut Value) {
    if *sub == Value::Bool(true) {
        *sub = Value::Object(Map::new());
    } else {
        normalise(sub);
    }
}

/// Checks `input` against `schema` (JSON Schema 2020-12): `Err` with the first place it does
/// not fit, as `invalid_input` with the JSON path, as a tool's own decoding would report it.
/// What the executor holds a call built at run time to before asking a person about it.
///
/// ```
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
/// assert!(tool_core::definition::schema::validate_input(&schema, &json!({"n": 1})).is_ok());
/// let error = tool_core::definition::schema::validate_input(&schema, &json!({"n": "one"})).unwrap_err();
/// assert_eq!(error.path(), Some("n"));
/// ```
#[cfg(feature = "check")]
#[cfg_attr(docsrs, doc(cfg(feature = "check")))]
pub fn validate_input(schema: &Value, input: &Value) -> Result<(), crate::ToolError> {
    let validator = jsonschema::draft202012::new(schema).map_err(|e| {
        crate::ToolError::internal(format!("the tool's input schema cannot be compiled: {e}"))
    })?;
    let Some(error) = validator.iter_errors(input).next() else {
        return Ok(());
    };
    let pointer = error.instance_path().to_string();
    let path = pointer
        .trim_start_matches('/')
        .split('/')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(".");
    let invalid = crate::ToolError::invalid_input(error.to_string());
    Err(if path.is_empty() {
        invalid
    } else {
        invalid.with_path(path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Schema {
        Schema::try_from(v).unwrap()
    }

    #[test]
    fn true_subschemas_become_empty_objects_and_false_stays() {
        let out = canonical_input(schema(json!({
            "type": "object",
            "properties": {"any": true, "list": {"type": "array", "items": true}},
            "additionalProperties": false,
            "$defs": {"X": {"anyOf": [true, {"type": "null"}]}}
        })))
        .unwrap();
        assert_eq!(out["properties"]["any"], json!({}));
        assert_eq!(out["properties"]["list"]["items"], json!({}));
        assert_eq!(out["$defs"]["X"]["anyOf"][0], json!({}));
        assert_eq!(out["additionalProperties"], json!(false));
    }

    #[test]
    fn root_title_is_dropped_and_properties_added() {
        let out = canonical_input(schema(json!({"title": "__Args", "type": "object"}))).unwrap();
        assert_eq!(out, json!({"type": "object", "properties": {}}));
    }

    #[test]
    fn non_object_roots_are_refused() {
        let err = canonical_input(schema(json!({"type": "array"}))).unwrap_err();
        assert!(err.to_string().contains("\"array\""), "{err}");
        assert!(canonical_input(schema(json!(true))).is_err());
        assert!(canonical_input(schema(json!({"type": ["object", "null"]}))).is_err());
    }

    proptest::proptest! {
        // Whatever the input, only nulls of optional, non-nullable properties go; nothing else.
        #[test]
        fn dropping_nulls_never_drops_a_value(
            a in proptest::option::of(proptest::option::of(0u8..3)),
            b in proptest::option::of(proptest::option::of(0u8..3)),
            nested in proptest::option::of(proptest::option::of(0u8..3)),
        ) {
            let schema = json!({"type": "object", "properties": {
                "a": {"type": "integer"},
                "b": {"type": ["integer", "null"]},
                "o": {"$ref": "#/$defs/O"}
            }, "required": ["a"], "$defs": {"O": {"type": "object", "properties": {"n": {"type": "integer"}}}}});
            let mut input = Map::new();
            let mut o = Map::new();
            for (key, v, map) in [("a", a, &mut input), ("b", b, &mut Map::new()), ("n", nested, &mut o)] {
                if let Some(v) = v { map.insert(key.into(), v.map_or(Value::Null, Value::from)); }
            }
            if let Some(v) = b { input.insert("b".into(), v.map_or(Value::Null, Value::from)); }
            input.insert("o".into(), Value::Object(o.clone()));
            let mut out = Value::Object(input.clone());
            drop_absent_nulls(&mut out, &schema);
            // Required and nullable properties keep their nulls; the optional `n` loses its null.
            proptest::prop_assert_eq!(out.get("a"), input.get("a"));
            proptest::prop_assert_eq!(out.get("b"), input.get("b"));
            let n_out = out["o"].get("n");
            match o.get("n") {
                Some(Value::Null) => proptest::prop_assert!(n_out.is_none()),
                other => proptest::prop_assert_eq!(n_out, other),
            }
        }

        // A schema said to drop nothing never has an input changed by the walk it then skips.
        #[test]
        fn schemas_that_drop_no_nulls_leave_every_input_alone(
            root in any_schema(),
            defined in any_schema(),
            input in any_input(),
        ) {
            let mut schema = root;
            if let Value::Object(map) = &mut schema {
                map.insert("$defs".into(), json!({"D": defined}));
            }
            let mut out = input.clone();
            drop_absent_nulls(&mut out, &schema);
            if !may_drop_nulls(&schema) {
                proptest::prop_assert_eq!(out, input);
            }
        }
    }

    fn any_schema() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(json!({"type": "integer"})),
            Just(json!({"type": ["integer", "null"]})),
            Just(json!({})),
            Just(json!({"$ref": "#/$defs/D"})),
            Just(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            Just(json!({"enum": ["x", null]})),
        ];
        leaf.prop_recursive(3, 24, 3, |inner| {
            prop_oneof![
                inner
                    .clone()
                    .prop_map(|items| json!({"type": "array", "items": items})),
                (
                    proptest::collection::btree_map(
                        prop_oneof![Just("a"), Just("b"), Just("c")],
                        inner.clone(),
                        0..3
                    ),
                    proptest::collection::vec(prop_oneof![Just("a"), Just("b"), Just("c")], 0..3),
                )
                    .prop_map(|(props, required)| json!({
                        "type": "object", "properties": props, "required": required
                    })),
                proptest::collection::vec(inner, 1..3).prop_map(|v| json!({"oneOf": v})),
            ]
        })
    }

    fn any_input() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            (0..3i64).prop_map(Value::from),
            Just(json!("s"))
        ];
        let key = prop_oneof![Just("a"), Just("b"), Just("c")].prop_map(str::to_owned);
        crate::test_json::json_tree(leaf, key, 4, 3)
    }

    #[test]
    fn a_union_of_itself_ends() {
        // An untagged enum with a variant wrapping itself refers to itself in its `anyOf`.
        let schema = json!({
            "type": "object",
            "properties": {"e": {"$ref": "#/$defs/E"}},
            "$defs": {"E": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/E"}]}}
        });
        // Too deep to tell counts as accepting `null`: the null is kept, for the decoder to
        // report, and the answer is the same before and at call time.
        assert!(!may_drop_nulls(&schema));
        let mut input = json!({"e": null});
        drop_absent_nulls(&mut input, &schema);
        assert_eq!(input, json!({"e": null}));
    }

    #[test]
    fn tagged_enums_count_as_objects() {
        let out = canonical_input(schema(json!({
            "oneOf": [{"type": "object", "properties": {"a": {}}}, {"type": "object"}]
        })))
        .unwrap();
        assert_eq!(out["type"], "object");
    }
}
