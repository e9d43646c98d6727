//! The MCP form of a tool's schemas: what `tools/list` carries, spelled so that the clients
//! that compile or map it take it without a complaint (Ajv in the TypeScript SDK and the MCP
//! Inspector, form builders, clients that map onto a one-`type` dialect). Calls are still
//! validated against the canonical schema, so nothing here changes what a client may send.
//!
//! Three rewrites, applied at every depth (`$defs` included):
//!
//! - **Formats.** A `format` is kept only when JSON Schema 2020-12 defines it and Ajv's formats
//!   know it: `date-time`, `date`, `time`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`,
//!   `uri`, `uri-reference`, `uri-template`, `uuid`, `json-pointer`, `relative-json-pointer`,
//!   `regex`. Others (schemars' `uint8` ... `uint64`, `uint`, `int32`, `int64`, `float`,
//!   `double`, `ip`, ...) go. An integer width of 32 bits or less becomes the `minimum` and
//!   `maximum` it implies where the schema does not bound it already (`u32` gets
//!   `maximum: 4294967295`, `i32` both bounds); an unsigned one keeps at least `minimum: 0`. A
//!   string format is named in the description instead (`Format ip.`), as the strict targets
//!   do.
//! - **`null` where it means nothing.** In an *input* schema, a property that is not `required`
//!   and whose `default`, if any, is `null` loses `null` from its own schema: absent and `null`
//!   decode to the same value there (`None` for an `Option<T>` parameter or field, whose missing
//!   value is decoded as `null`), so the listing only says "optional". `type: ["T", "null"]`
//!   becomes `type: "T"`; a `{"type": "null"}` variant of `anyOf`/`oneOf` goes (one variant left
//!   is merged into the property when no keyword clashes); `null` leaves `enum`; a
//!   `default: null` goes. `null` is *meaningful*, and kept, where absent and `null` differ or
//!   where nothing else is said:
//!   - a required property (it must be sent, and may be `null`);
//!   - a property whose `default` is not `null` (absent is the default, `null` is `None`);
//!   - array items, `$defs` entries and every other subschema that is not a property's own;
//!   - a schema that allows nothing but `null`;
//!   - every *output* schema: `structuredContent` carries the `null`s serde writes.
//!
//!   What the schema cannot show stays a limit: a field whose deserializer tells `null` from
//!   absent (serde_with's `double_option`) is listed as merely optional. The canonical schema
//!   still accepts its `null`, so a client that sends one is served.
//! - **Type arrays.** A `type` that is still an array (a kept `null`, a union of types) becomes
//!   `anyOf` of one-`type` branches, the spelling clients that map onto one `type` per schema
//!   (and the Inspector's portability lint) accept. The other keywords stay beside it. A schema
//!   that already has an `anyOf` keeps its array.
//!
//! The rewrite is done while the schema is serialized ([`McpSchema`]'s `Serialize`): the stdio
//! transport writes a listing straight from the registry without copying a schema, and
//! [`render::mcp`](crate::render::mcp) and the SDK's `Tool` get the same bytes through
//! [`McpSchema::to_value`].

use serde::ser::{SerializeMap as _, SerializeSeq as _};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::keywords::{SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS};
use super::rewrite::{allows_type, describe, key, noted};

/// The formats kept: JSON Schema 2020-12's that Ajv (with ajv-formats) validates. The
/// internationalised ones (`idn-email`, `idn-hostname`, `iri`, `iri-reference`) are standard
/// but unknown to Ajv, which warns about them like about any other.
const KNOWN_FORMATS: [&str; 15] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// A schema in its MCP form, rewritten as it is serialized (see the module docs).
///
/// ```
/// use serde_json::json;
/// use tool_core::definition::schema::McpSchema;
/// let canonical = json!({
///     "type": "object",
///     "properties": {
///         "path": {"type": "string"},
///         "start_line": {"type": ["integer", "null"], "format": "uint", "minimum": 0},
///     },
///     "required": ["path"],
/// });
/// let listed = McpSchema::input(&canonical).to_value();
/// assert_eq!(listed["properties"]["start_line"], json!({"type": "integer", "minimum": 0}));
/// // What is written is what `to_value` gives.
/// let written = serde_json::to_string(&McpSchema::input(&canonical)).unwrap();
/// assert_eq!(written, listed.to_string());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct McpSchema<'a> {
    schema: &'a Value,
    input: bool,
}

impl<'a> McpSchema<'a> {
    /// A tool's input schema: `null` goes where it means nothing.
    pub fn input(schema: &'a Value) -> Self {
        Self {
            schema,
            input: true,
        }
    }

    /// A tool's output schema: every `null` stays (the result carries it).
    pub fn output(schema: &'a Value) -> Self {
        Self {
            schema,
            input: false,
        }
    }

    /// The rewritten schema as a value.
    pub fn to_value(&self) -> Value {
        // Serializing JSON values into a value cannot fail: every key is a string.
        serde_json::to_value(self).unwrap_or_else(|_| self.schema.clone())
    }
}

impl Serialize for McpSchema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Node {
            value: self.schema,
            input: self.input,
            optional: false,
        }
        .serialize(serializer)
    }
}

/// One subschema and what its position says about it.
#[derive(Clone, Copy)]
struct Node<'a> {
    value: &'a Value,
    input: bool,
    /// A property of an input object whose `null` means the same as its absence.
    optional: bool,
}

impl<'a> Node<'a> {
    fn child(&self, value: &'a Value) -> Self {
        Node {
            value,
            input: self.input,
            optional: false,
        }
    }
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Value::Object(map) = self.value else {
            return self.value.serialize(serializer);
        };
        let mut out = serializer.serialize_map(None)?;
        write_entries(&mut out, map, *self)?;
        out.end()
    }
}

/// What a schema object needs rewritten, worked out before its keys are written.
struct Plan<'a> {
    /// A `format` that goes, and where the bounds (or the note) it leaves are written.
    dropped_format: Option<&'a Value>,
    minimum: Option<Value>,
    maximum: Option<Value>,
    /// The description with the dropped string format named in it.
    description: Option<String>,
    /// `anyOf` (or `oneOf`) has one variant left once `null` goes: the keyword, and the variant
    /// merged in where it stood.
    merged: Option<(&'a str, &'a Value)>,
}

impl<'a> Plan<'a> {
    fn new(map: &'a Map<String, Value>, node: Node<'a>) -> Self {
        let mut plan = Plan {
            dropped_format: None,
            minimum: None,
            maximum: None,
            description: None,
            merged: None,
        };
        if let Some(format) = key(map, "format")
            && !format.as_str().is_some_and(|f| KNOWN_FORMATS.contains(&f))
        {
            plan.dropped_format = Some(format);
            let (min, max) = if allows_type(map, "integer") {
                format.as_str().map(implied_bounds).unwrap_or_default()
            } else {
                (None, None)
            };
            plan.minimum = key(map, "minimum").cloned().or(min);
            plan.maximum = key(map, "maximum").cloned().or(max);
            let numeric = allows_type(map, "integer") || allows_type(map, "number");
            if !numeric {
                let description = key(map, "description").and_then(Value::as_str);
                plan.description = Some(noted(description, &describe("format", format)));
            }
        }
        // Merged only where its keys, and those its own rewrite may add, cannot clash with the
        // property's: in practice schemars' `{"anyOf": [X, {"type": "null"}], "description": ..}`.
        if node.optional && key(map, "type").is_none() {
            let merged = ["anyOf", "oneOf"].into_iter().find_map(|keyword| {
                let Some(Value::Array(variants)) = key(map, keyword) else {
                    return None;
                };
                let mut left = variants.iter().filter(|v| !is_null_schema(v));
                match (left.next(), left.next()) {
                    (Some(only @ Value::Object(fields)), None)
                        if variants.len() > 1
                            && key(fields, "format").is_none()
                            && fields.keys().all(|k| key(map, k).is_none()) =>
                    {
                        Some((keyword, only))
                    }
                    _ => None,
                }
            });
            plan.merged = merged;
        }
        plan
    }
}

/// Writes the entries of the schema object `map`, rewritten, into `out`.
fn write_entries<M: serde::ser::SerializeMap>(
    out: &mut M,
    map: &Map<String, Value>,
    node: Node<'_>,
) -> Result<(), M::Error> {
    let plan = Plan::new(map, node);
    let drops_null = node.optional;
    for (name, value) in map {
        match name.as_str() {
            "format" if plan.dropped_format.is_some() => {
                if let Some(min) = &plan.minimum {
                    out.serialize_entry("minimum", min)?;
                }
                if let Some(max) = &plan.maximum {
                    out.serialize_entry("maximum", max)?;
                }
                if key(map, "description").is_none()
                    && let Some(description) = &plan.description
                {
                    out.serialize_entry("description", description)?;
                }
            }
            "minimum" | "maximum" if plan.dropped_format.is_some() => {}
            "description" if plan.description.is_some() => {
                out.serialize_entry("description", &plan.description.as_deref())?;
            }
            "type" => write_type(out, map, value, drops_null)?,
            "enum" if drops_null => match value {
                Value::Array(values) if values.iter().any(|v| !v.is_null()) => {
                    let kept: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
                    out.serialize_entry("enum", &kept)?;
                }
                _ => out.serialize_entry("enum", value)?,
            },
            "default" if drops_null && value.is_null() => {}
            "anyOf" | "oneOf" if drops_null => match (plan.merged, value) {
                // The variant is the property's own schema now, optional like it.
                (Some((keyword, only @ Value::Object(fields))), _) if keyword == name => {
                    write_entries(
                        out,
                        fields,
                        Node {
                            value: only,
                            ..node
                        },
                    )?;
                }
                (_, Value::Array(variants)) if variants.iter().any(|v| !is_null_schema(v)) => {
                    let kept = variants.iter().filter(|v| !is_null_schema(v));
                    out.serialize_entry(name, &Variants(kept, node))?;
                }
                _ => out.serialize_entry(name, &node.child(value))?,
            },
            "properties" => out.serialize_entry(name, &Properties(value, map, node))?,
            _ if SCHEMA_KEYWORDS.contains(&name.as_str()) => {
                out.serialize_entry(name, &node.child(value))?;
            }
            _ if SCHEMA_ARRAY_KEYWORDS.contains(&name.as_str()) => match value {
                Value::Array(variants) => {
                    out.serialize_entry(name, &Variants(variants.iter(), node))?;
                }
                _ => out.serialize_entry(name, value)?,
            },
            _ if SCHEMA_MAP_KEYWORDS.contains(&name.as_str()) => match value {
                Value::Object(schemas) => {
                    out.serialize_entry(name, &Schemas(schemas, node))?;
                }
                _ => out.serialize_entry(name, value)?,
            },
            _ => out.serialize_entry(name, value)?,
        }
    }
    Ok(())
}

/// `type`: without a `null` that means nothing, and an array of several as `anyOf` branches.
fn write_type<M: serde::ser::SerializeMap>(
    out: &mut M,
    map: &Map<String, Value>,
    value: &Value,
    drops_null: bool,
) -> Result<(), M::Error> {
    let Value::Array(types) = value else {
        return out.serialize_entry("type", value);
    };
    let others = types.iter().filter(|t| t.as_str() != Some("null")).count();
    let kept: Vec<&Value> = if drops_null && others > 0 {
        types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .collect()
    } else {
        types.iter().collect()
    };
    match kept.as_slice() {
        [one] => out.serialize_entry("type", one),
        _ if key(map, "anyOf").is_some() => out.serialize_entry("type", &kept),
        many => {
            let branches: Vec<Map<String, Value>> = many
                .iter()
                .map(|t| Map::from_iter([("type".to_owned(), (*t).clone())]))
                .collect();
            out.serialize_entry("anyOf", &branches)
        }
    }
}

/// An array of subschemas (`allOf`, `prefixItems`, what `anyOf` keeps, ...).
struct Variants<'a, I>(I, Node<'a>);

impl<'a, I: Iterator<Item = &'a Value> + Clone> Serialize for Variants<'a, I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for variant in self.0.clone() {
            seq.serialize_element(&self.1.child(variant))?;
        }
        seq.end()
    }
}

/// A map of subschemas that are not properties (`$defs`, `patternProperties`, ...).
struct Schemas<'a>(&'a Map<String, Value>, Node<'a>);

impl Serialize for Schemas<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(Some(self.0.len()))?;
        for (name, schema) in self.0 {
            out.serialize_entry(name, &self.1.child(schema))?;
        }
        out.end()
    }
}

/// `properties` of the object schema `parent`: in an input schema, each optional property
/// whose `null` means its absence is marked so.
struct Properties<'a>(&'a Value, &'a Map<String, Value>, Node<'a>);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Properties(value, parent, node) = *self;
        let Value::Object(properties) = value else {
            return value.serialize(serializer);
        };
        let required = key(parent, "required").and_then(Value::as_array);
        let mut out = serializer.serialize_map(Some(properties.len()))?;
        for (name, schema) in properties {
            let is_required = required.is_some_and(|r| r.iter().any(|n| n == name));
            let default_is_null = schema
                .as_object()
                .and_then(|s| key(s, "default"))
                .is_none_or(Value::is_null);
            let optional = node.input && !is_required && default_is_null;
            out.serialize_entry(
                name,
                &Node {
                    value: schema,
                    input: node.input,
                    optional,
                },
            )?;
        }
        out.end()
    }
}

/// `{"type": "null"}`, with at most a title or description beside it.
fn is_null_schema(schema: &Value) -> bool {
    schema.as_object().is_some_and(|map| {
        key(map, "type").and_then(Value::as_str) == Some("null")
            && map
                .keys()
                .all(|k| matches!(k.as_str(), "type" | "title" | "description"))
    })
}

/// The bounds of the Rust integer a schemars `format` names. Wider limits than 32 bits are left
/// out, but for the unsigned minimum: past 2^53 a JavaScript client cannot hold them exactly,
/// and they bound nothing a model would send.
fn implied_bounds(format: &str) -> (Option<Value>, Option<Value>) {
    fn signed(min: i32, max: i32) -> (Option<Value>, Option<Value>) {
        (Some(min.into()), Some(max.into()))
    }
    fn unsigned(max: Option<u32>) -> (Option<Value>, Option<Value>) {
        (Some(0.into()), max.map(Value::from))
    }
    match format {
        "int8" => signed(i8::MIN.into(), i8::MAX.into()),
        "int16" => signed(i16::MIN.into(), i16::MAX.into()),
        "int32" => signed(i32::MIN, i32::MAX),
        "uint8" => unsigned(Some(u8::MAX.into())),
        "uint16" => unsigned(Some(u16::MAX.into())),
        "uint32" => unsigned(Some(u32::MAX)),
        "uint64" | "uint" | "uint128" => unsigned(None),
        _ => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn input(schema: Value) -> Value {
        McpSchema::input(&schema).to_value()
    }

    fn output(schema: Value) -> Value {
        McpSchema::output(&schema).to_value()
    }

    fn object(properties: Value, required: &[&str]) -> Value {
        json!({"type": "object", "properties": properties, "required": required})
    }

    #[test]
    fn schemars_formats_become_bounds_and_standard_ones_stay() {
        let out = input(object(
            json!({
                "a": {"type": "integer", "format": "uint32", "minimum": 0, "description": "A"},
                "b": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 100},
                "c": {"type": "integer", "format": "int32"},
                "d": {"type": "number", "format": "double"},
                "e": {"type": "string", "format": "date-time"},
                "f": {"type": "integer", "format": "int128"},
                "g": {"type": "integer", "format": "uint64", "minimum": 0},
                "h": {"type": "integer", "format": "int64"},
            }),
            &["a", "b", "c", "d", "e", "f", "g", "h"],
        ));
        let p = &out["properties"];
        assert_eq!(
            p["a"],
            json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32, "description": "A"})
        );
        // A tighter bound of the schema's own stays.
        assert_eq!(
            p["b"],
            json!({"type": "integer", "minimum": 0, "maximum": 100})
        );
        assert_eq!(
            p["c"],
            json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX})
        );
        assert_eq!(p["d"], json!({"type": "number"}));
        assert_eq!(p["e"], json!({"type": "string", "format": "date-time"}));
        assert_eq!(p["f"], json!({"type": "integer"}));
        // 64-bit limits are no use to a client that holds numbers as doubles.
        assert_eq!(p["g"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(p["h"], json!({"type": "integer"}));
    }

    #[test]
    fn a_dropped_string_format_is_named_in_the_description() {
        let out = input(object(
            json!({
                "ip": {"type": "string", "format": "ip", "description": "Address"},
                "bare": {"type": "string", "format": "idn-email"},
            }),
            &["ip", "bare"],
        ));
        assert_eq!(
            out["properties"]["ip"],
            json!({"type": "string", "description": "Address. Format ip."})
        );
        assert_eq!(
            out["properties"]["bare"],
            json!({"type": "string", "description": "Format idn-email."})
        );
    }

    #[test]
    fn null_goes_from_optional_properties_only() {
        let canonical = object(
            json!({
                "optional": {"type": ["string", "null"], "description": "d"},
                "required": {"type": ["string", "null"]},
                "defaulted": {"type": ["integer", "null"], "default": 5},
                "null_default": {"type": ["integer", "null"], "default": null},
                "choice": {"type": ["string", "null"], "enum": ["a", "b", null]},
                "items": {"type": "array", "items": {"type": ["string", "null"]}},
                "only_null": {"type": "null"},
            }),
            &["required"],
        );
        let p = input(canonical.clone())["properties"].clone();
        assert_eq!(p["optional"], json!({"type": "string", "description": "d"}));
        let nullable = json!([{"type": "string"}, {"type": "null"}]);
        assert_eq!(p["required"], json!({"anyOf": nullable}));
        assert_eq!(
            p["defaulted"],
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5})
        );
        assert_eq!(p["null_default"], json!({"type": "integer"}));
        assert_eq!(p["choice"], json!({"type": "string", "enum": ["a", "b"]}));
        assert_eq!(
            p["items"],
            json!({"type": "array", "items": {"anyOf": nullable}}),
            "array items keep their null"
        );
        assert_eq!(p["only_null"], json!({"type": "null"}));

        // Output schemas keep every null: the result carries it.
        let p = output(canonical)["properties"].clone();
        assert_eq!(
            p["optional"],
            json!({"anyOf": nullable, "description": "d"})
        );
    }

    #[test]
    fn an_optional_reference_is_merged_in_and_defs_are_rewritten() {
        let out = input(json!({
            "type": "object",
            "properties": {
                "address": {
                    "anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}],
                    "description": "Where"
                },
                "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
                "clash": {"anyOf": [{"type": "string", "description": "x"}, {"type": "null"}], "description": "y"},
            },
            "$defs": {"Address": {"type": "object", "properties": {
                "street": {"type": ["string", "null"]},
                "number": {"type": "integer", "format": "uint16", "minimum": 0, "maximum": 65535},
            }}}
        }));
        let p = &out["properties"];
        assert_eq!(
            p["address"],
            json!({"$ref": "#/$defs/Address", "description": "Where"})
        );
        assert_eq!(
            p["tags"],
            json!({"type": "array", "items": {"type": "string"}})
        );
        // The variant and the property both describe themselves: the variant stays a variant.
        assert_eq!(
            p["clash"],
            json!({"anyOf": [{"type": "string", "description": "x"}], "description": "y"})
        );
        assert_eq!(
            out["$defs"]["Address"]["properties"],
            json!({
                "street": {"type": "string"},
                "number": {"type": "integer", "minimum": 0, "maximum": 65535},
            })
        );
    }

    #[test]
    fn values_that_are_not_schemas_are_written_as_they_are() {
        let canonical = object(
            json!({"x": {
                "type": "object",
                "default": {"format": "uint8", "type": ["a", "null"]},
                "examples": [{"type": ["string", "null"]}],
                "const": null,
            }}),
            &["x"],
        );
        assert_eq!(input(canonical.clone()), canonical);
    }

    #[test]
    fn a_type_array_beside_any_of_stays_an_array() {
        let canonical = object(
            json!({"x": {"type": ["object", "null"], "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}),
            &["x"],
        );
        assert_eq!(input(canonical.clone()), canonical);
    }

    proptest::proptest! {
        // The listing may say less than the canonical schema (a `null` that means nothing, a
        // bound the type implies), never more: whatever a client makes of it is accepted.
        #[test]
        fn what_the_listing_accepts_the_canonical_schema_accepts(
            schema in any_schema(),
            values in proptest::collection::vec(any_input(), 1..6),
        ) {
            let listed = input(schema.clone());
            let canonical = jsonschema::draft202012::new(&schema).unwrap();
            let rewritten = jsonschema::draft202012::new(&listed).unwrap();
            for value in &values {
                if rewritten.is_valid(value) {
                    proptest::prop_assert!(
                        canonical.is_valid(value),
                        "{value} fits the listing {listed} but not {schema}"
                    );
                }
            }
            proptest::prop_assert_eq!(input(listed.clone()), listed);
        }
    }

    fn any_schema() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255})),
            Just(json!({"type": ["integer", "null"], "format": "int32"})),
            Just(json!({"type": ["integer", "null"], "default": 5})),
            Just(json!({"type": ["string", "null"], "enum": ["x", null]})),
            Just(json!({"type": ["integer", "string", "null"]})),
            Just(json!({"type": "string", "format": "ip"})),
            Just(json!({"type": "number", "format": "double"})),
            Just(json!({"type": "null"})),
            Just(json!({"$ref": "#/$defs/D"})),
        ];
        let tree = leaf.prop_recursive(3, 24, 3, |inner| {
            let key = prop_oneof![Just("a"), Just("b"), Just("c")];
            prop_oneof![
                inner
                    .clone()
                    .prop_map(|items| json!({"type": "array", "items": items})),
                inner
                    .clone()
                    .prop_map(|v| json!({"anyOf": [v, {"type": "null"}], "description": "d"})),
                (
                    proptest::collection::btree_map(key.clone(), inner, 0..3),
                    proptest::collection::btree_set(key, 0..3),
                )
                    .prop_map(|(props, required)| json!({
                        "type": "object", "properties": props, "required": required
                    })),
            ]
        });
        (tree.clone(), tree).prop_map(|(root, defined)| {
            json!({"type": "object", "properties": {"p": root, "q": defined.clone()}, "$defs": {"D": defined}})
        })
    }

    fn any_input() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            Just(json!(0)),
            Just(json!(300)),
            Just(json!(-1)),
            Just(json!(5_000_000_000i64)),
            Just(json!(1.5)),
            Just(json!("x")),
        ];
        let key = prop_oneof![Just("a"), Just("b"), Just("c"), Just("p"), Just("q")]
            .prop_map(str::to_owned);
        crate::test_json::json_tree(leaf, key, 4, 3)
    }

    #[test]
    fn the_rewrite_is_idempotent() {
        let canonical = object(
            json!({
                "a": {"type": ["integer", "null"], "format": "uint", "minimum": 0},
                "b": {"type": ["integer", "string", "null"]},
                "c": {"anyOf": [{"$ref": "#/$defs/C"}, {"type": "null"}]},
            }),
            &["b"],
        );
        let once = input(canonical);
        assert_eq!(input(once.clone()), once);
    }
}
