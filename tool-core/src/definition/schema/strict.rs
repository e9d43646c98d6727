//! Rewrites for OpenAI's and Anthropic's strict modes (constrained decoding): every object closed
//! with `additionalProperties: false`, every property required with optional ones made nullable,
//! `oneOf` as `anyOf`, `$ref` without siblings, and keywords the target does not support moved
//! into the description. What cannot be expressed is reported, not silently dropped.

use serde_json::{Map, Value, json};

use super::rewrite::{
    Issues, Rewritten, allows_type, child, constrains, describe, merge_all_of, note, recursive_defs,
};

/// Which provider's strict subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrictTarget {
    /// OpenAI Structured Outputs (`strict: true` on a function).
    OpenAi,
    /// Anthropic strict tool use.
    Anthropic,
}

impl StrictTarget {
    fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI strict mode",
            Self::Anthropic => "Anthropic strict mode",
        }
    }

    /// Keywords kept as they are (besides the structural ones this module handles).
    fn keeps(self, keyword: &str) -> bool {
        const COMMON: &[&str] = &["type", "description", "enum", "pattern", "format", "title"];
        const OPENAI: &[&str] = &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        ];
        COMMON.contains(&keyword) || (self == Self::OpenAi && OPENAI.contains(&keyword))
    }

    fn formats(self) -> &'static [&'static str] {
        match self {
            Self::OpenAi => &[
                "date-time",
                "time",
                "date",
                "duration",
                "email",
                "hostname",
                "ipv4",
                "ipv6",
                "uuid",
            ],
            Self::Anthropic => &[
                "date-time",
                "time",
                "date",
                "duration",
                "email",
                "hostname",
                "uri",
                "ipv4",
                "ipv6",
                "uuid",
            ],
        }
    }
}

/// Keywords handled structurally below; never moved into the description.
const STRUCTURAL: &[&str] = &[
    "$ref",
    "$defs",
    "definitions",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "const",
    "default",
    "$schema",
    "$id",
    "$comment",
    "examples",
    "minItems",
];

/// Keywords whose loss would let the model send input the tool refuses; they cannot be kept
/// in strict mode, so they are errors rather than notes: (keyword, what, fix).
const INEXPRESSIBLE: &[(&str, &str, &str)] = &[
    (
        "prefixItems",
        "tuples (fixed-position arrays) cannot be expressed",
        "take a struct with named fields",
    ),
    (
        "patternProperties",
        "keys matching a pattern cannot be expressed",
        "take a struct with named fields",
    ),
    (
        "not",
        "`not` cannot be expressed",
        "describe the restriction in the field's doc and check it in the tool",
    ),
    (
        "if",
        "conditional schemas cannot be expressed",
        "split the tool, or use an enum of variants",
    ),
    (
        "dependentSchemas",
        "dependent schemas cannot be expressed",
        "use an enum of variants",
    ),
    (
        "dependentRequired",
        "dependent requirements cannot be expressed",
        "use an enum of variants",
    ),
    (
        "unevaluatedProperties",
        "unevaluatedProperties cannot be expressed",
        "use a plain struct",
    ),
];

/// Bounds that an integer format implies, so moving them loses nothing worth a warning.
fn implied_bound(format: Option<&str>, keyword: &str, value: &Value) -> bool {
    let Some(format) = format else { return false };
    let v = value.as_f64().unwrap_or(f64::NAN);
    match keyword {
        "minimum" => {
            format.starts_with("uint") && v == 0.0
                || format == "int8" && v == -128.0
                || format == "int16" && v == -32768.0
        }
        "maximum" => matches!(
            (format, v as i64),
            ("uint8", 255) | ("uint16", 65_535) | ("int8", 127) | ("int16", 32_767)
        ),
        _ => false,
    }
}

/// Rewrites a canonical input schema for a strict target.
pub fn rewrite(schema: &Value, target: StrictTarget) -> Rewritten {
    let mut issues = Issues::default();
    let mut root = schema.clone();
    let Value::Object(map) = &mut root else {
        issues.error(
            "",
            "type",
            "the input schema is not an object schema",
            "make the input a JSON object",
        );
        return Rewritten {
            schema: root,
            issues: issues.0,
        };
    };
    map.shift_remove("$schema");
    map.shift_remove("title");
    for key in ["oneOf", "anyOf"] {
        if map.contains_key(key) {
            issues.error(
                "",
                key,
                format!("{} needs a plain object at the root, not a choice of variants", target.name()),
                "wrap the enum in a struct field (e.g. an `#[input]` struct with a `kind` field), or use the non-strict form",
            );
        }
    }
    if target == StrictTarget::Anthropic {
        for name in recursive_defs(&root) {
            issues.error(
                &child("/$defs", &name),
                "$ref",
                format!("`{name}` is recursive, and Anthropic strict mode does not accept recursive schemas"),
                "bound the depth with distinct types, or use the non-strict form",
            );
        }
    }
    let mut defs = None;
    if let Value::Object(map) = &mut root {
        defs = map
            .shift_remove("$defs")
            .or_else(|| map.shift_remove("definitions"));
    }
    let mut cx = Cx { target, issues };
    if let Some(Value::Object(defs)) = &mut defs {
        for (name, def) in defs.iter_mut() {
            cx.node(def, &child("/$defs", name));
        }
    }
    cx.node(&mut root, "");
    if let (Value::Object(map), Some(defs)) = (&mut root, defs) {
        map.insert("$defs".into(), defs);
    }
    Rewritten {
        schema: root,
        issues: cx.issues.0,
    }
}

struct Cx {
    target: StrictTarget,
    issues: Issues,
}

impl Cx {
    fn node(&mut self, value: &mut Value, ptr: &str) {
        let map = match value {
            Value::Object(map) => map,
            Value::Bool(b) => {
                let what = if *b {
                    "accepts any value"
                } else {
                    "accepts no value"
                };
                self.issues.error(
                    ptr,
                    "type",
                    format!("this schema {what}; {} needs a type", self.target.name()),
                    "use a concrete type instead of serde_json::Value",
                );
                return;
            }
            _ => return,
        };
        if let Some(c) = map.shift_remove("const") {
            map.entry("enum").or_insert_with(|| Value::Array(vec![c]));
        }
        if let Some(one_of) = map.shift_remove("oneOf") {
            if map.contains_key("anyOf") {
                self.issues.error(
                    ptr,
                    "oneOf",
                    "both oneOf and anyOf on one schema",
                    "use one of them",
                );
            } else {
                map.insert("anyOf".into(), one_of);
            }
        }
        merge_all_of(map, ptr, &mut self.issues, self.target.name());
        if let Some(reference) = map.get("$ref").cloned()
            && map.len() > 1
        {
            // `$ref` may not have siblings: keep the description on a one-branch anyOf.
            map.shift_remove("$ref");
            if map.contains_key("anyOf") {
                self.issues
                    .error(ptr, "$ref", "a $ref beside anyOf", "use one of them");
            } else {
                map.insert("anyOf".into(), json!([{ "$ref": reference }]));
            }
        }
        self.unsupported(map, ptr);
        if !constrains(map) {
            self.issues.error(
                ptr,
                "type",
                format!(
                    "this schema accepts any JSON value; {} needs a type",
                    self.target.name()
                ),
                "use a concrete type instead of serde_json::Value, or the non-strict form",
            );
        }
        self.object(map, ptr);
        if let Some(items) = map.get_mut("items") {
            self.node(items, &child(ptr, "items"));
        }
        if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
            for (i, v) in variants.iter_mut().enumerate() {
                self.node(v, &child(&child(ptr, "anyOf"), &i.to_string()));
            }
        }
    }

    fn unsupported(&mut self, map: &mut Map<String, Value>, ptr: &str) {
        for (keyword, what, fix) in INEXPRESSIBLE {
            if map.shift_remove(*keyword).is_some() {
                self.issues.error(
                    ptr,
                    keyword,
                    format!("{what} in {}", self.target.name()),
                    *fix,
                );
            }
        }
        for keyword in ["then", "else"] {
            map.shift_remove(keyword);
        }
        let format = map.get("format").and_then(Value::as_str).map(str::to_owned);
        if let Some(format) = &format
            && !self.target.formats().contains(&format.as_str())
        {
            map.shift_remove("format");
            let numeric = allows_type(map, "integer") || allows_type(map, "number");
            if !numeric {
                note(map, &describe("format", &Value::String(format.clone())));
                self.issues.warn(
                    ptr,
                    "format",
                    format!("{} does not support the format `{format}`; it was moved into the description", self.target.name()),
                    "validate it in the tool if it matters",
                );
            } else if !map.contains_key("minimum") && !map.contains_key("maximum") {
                // A width with no bounds (int128, uint128): say it, or it is lost.
                note(map, &format!("A {format} number."));
            }
        }
        if let Some(default) = map.shift_remove("default") {
            note(map, &describe("default", &default));
        }
        if self.target == StrictTarget::Anthropic
            && let Some(min) = map.get("minItems").and_then(Value::as_u64)
            && min > 1
        {
            map.shift_remove("minItems");
            note(map, &describe("minItems", &min.into()));
            self.issues.warn(
                ptr,
                "minItems",
                "Anthropic strict mode supports minItems of 0 or 1 only; it was moved into the description",
                "check the length in the tool if it matters",
            );
        }
        let moved: Vec<String> = map
            .keys()
            .filter(|k| !STRUCTURAL.contains(&k.as_str()) && !self.target.keeps(k))
            .cloned()
            .collect();
        for keyword in moved {
            if let Some(value) = map.shift_remove(&keyword) {
                note(map, &describe(&keyword, &value));
                if implied_bound(format.as_deref(), &keyword, &value) {
                    continue;
                }
                self.issues.warn(
                    ptr,
                    &keyword,
                    format!(
                        "{} does not support `{keyword}`; it was moved into the description",
                        self.target.name()
                    ),
                    "validate it in the tool if it matters",
                );
            }
        }
        for keyword in ["$comment", "examples", "$id"] {
            map.shift_remove(keyword);
        }
    }

    /// Closes objects. OpenAI: every property required, optional ones nullable. Anthropic
    /// strict accepts optional properties, so they stay optional (no union spent on `null`).
    fn object(&mut self, map: &mut Map<String, Value>, ptr: &str) {
        let is_object = allows_type(map, "object") || map.contains_key("properties");
        if !is_object {
            return;
        }
        let has_properties = map
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        match map.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) if has_properties => self.issues.error(
                &child(ptr, "additionalProperties"),
                "additionalProperties",
                format!("extra keys beside the named fields (a flattened map) cannot be expressed in {}", self.target.name()),
                "collect the extra keys in a named field holding a Vec of {key, value}, or use the non-strict form",
            ),
            Some(_) => self.issues.error(
                &child(ptr, "additionalProperties"),
                "additionalProperties",
                format!("a map with arbitrary keys cannot be expressed in {}", self.target.name()),
                "take a Vec of {key, value} structs, or use the non-strict form",
            ),
        }
        map.insert("additionalProperties".into(), false.into());
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let Some(Value::Object(props)) = map.get_mut("properties") else {
            map.insert("properties".into(), Value::Object(Map::new()));
            map.insert("required".into(), Value::Array(Vec::new()));
            return;
        };
        let props_ptr = child(ptr, "properties");
        let mut all = Vec::new();
        for (key, prop) in props.iter_mut() {
            self.node(prop, &child(&props_ptr, key));
            let optional = !required.contains(key);
            if self.target == StrictTarget::OpenAi && optional {
                make_nullable(prop);
            }
            if self.target == StrictTarget::OpenAi || !optional {
                all.push(Value::String(key.clone()));
            }
        }
        map.insert("required".into(), Value::Array(all));
    }
}

/// Lets a schema accept `null` too (how strict modes express "optional").
pub(crate) fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if accepts_null(map) {
        return;
    }
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let t = t.clone();
            map.insert("type".into(), json!([t, "null"]));
            add_null_to_enum(map);
        }
        Some(Value::Array(ts)) => {
            ts.push("null".into());
            add_null_to_enum(map);
        }
        _ => {
            if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
                variants.push(json!({"type": "null"}));
            } else {
                let description = map.shift_remove("description");
                let inner = std::mem::take(map);
                map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
                if let Some(d) = description {
                    map.insert("description".into(), d);
                }
            }
        }
    }
}

fn add_null_to_enum(map: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

fn accepts_null(map: &Map<String, Value>) -> bool {
    allows_type(map, "null")
        || map
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|vs| vs.iter().any(|v| v.get("type") == Some(&json!("null"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::schema::rewrite::Severity;

    fn errors(r: &Rewritten) -> Vec<(&str, &str)> {
        r.issues
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .map(|i| (i.pointer.as_str(), i.keyword.as_str()))
            .collect()
    }

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let r = rewrite(
            &json!({
                "$schema": "x", "type": "object",
                "properties": {
                    "a": {"type": "string"},
                    "b": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                    "c": {"$ref": "#/$defs/C", "description": "the c"},
                    "d": {"type": "string", "enum": ["x", "y"]}
                },
                "required": ["a"],
                "$defs": {"C": {"type": "object", "properties": {"x": {"type": "boolean"}}}}
            }),
            StrictTarget::OpenAi,
        );
        assert!(r.issues.is_empty(), "{:?}", r.issues);
        let s = &r.schema;
        assert!(s.get("$schema").is_none());
        assert_eq!(s["required"], json!(["a", "b", "c", "d"]));
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["properties"]["a"]["type"], "string");
        assert_eq!(
            s["properties"]["b"],
            json!({"type": ["integer", "null"], "minimum": 0, "maximum": 255})
        );
        assert_eq!(
            s["properties"]["c"],
            json!({"anyOf": [{"$ref": "#/$defs/C"}, {"type": "null"}], "description": "the c"})
        );
        assert_eq!(s["properties"]["d"]["enum"], json!(["x", "y", null]));
        assert_eq!(s["$defs"]["C"]["required"], json!(["x"]));
        assert_eq!(
            s["$defs"]["C"]["properties"]["x"]["type"],
            json!(["boolean", "null"])
        );
    }

    #[test]
    fn unsupported_keywords_move_into_the_description() {
        let r = rewrite(
            &json!({"type": "object", "properties": {
                "name": {"type": "string", "minLength": 2, "description": "Who"},
                "n": {"type": "integer", "minimum": 1, "default": 3}
            }, "required": ["name", "n"]}),
            StrictTarget::Anthropic,
        );
        assert_eq!(
            r.schema["properties"]["name"]["description"],
            "Who. At least this many characters: 2."
        );
        assert_eq!(
            r.schema["properties"]["n"]["description"],
            "Default 3. At least 1."
        );
        assert!(r.schema["properties"]["n"].get("minimum").is_none());
        assert_eq!(r.issues.len(), 2, "{:?}", r.issues);
        let openai = rewrite(
            &json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}),
            StrictTarget::OpenAi,
        );
        assert_eq!(openai.schema["properties"]["n"]["minimum"], 1);
    }

    #[test]
    fn what_cannot_be_expressed_is_an_error_with_its_pointer() {
        let r = rewrite(
            &json!({"type": "object", "properties": {
                "any": {},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}
            }}),
            StrictTarget::OpenAi,
        );
        assert_eq!(
            errors(&r),
            [
                ("/properties/any", "type"),
                (
                    "/properties/map/additionalProperties",
                    "additionalProperties"
                ),
                ("/properties/pair", "prefixItems"),
            ]
        );
    }

    #[test]
    fn tagged_enums_use_any_of_and_const_becomes_enum() {
        let r = rewrite(
            &json!({"type": "object", "properties": {"shape": {"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "square"}}, "required": ["kind"]}
            ]}}, "required": ["shape"]}),
            StrictTarget::OpenAi,
        );
        assert!(errors(&r).is_empty(), "{:?}", r.issues);
        let variants = &r.schema["properties"]["shape"]["anyOf"];
        assert_eq!(variants[0]["properties"]["kind"]["enum"], json!(["circle"]));
        assert_eq!(variants[1]["additionalProperties"], false);
    }

    #[test]
    fn recursion_is_refused_by_anthropic_only() {
        let schema = json!({"type": "object", "properties": {"t": {"$ref": "#/$defs/T"}}, "required": ["t"],
            "$defs": {"T": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}, "required": ["kids"]}}});
        assert!(errors(&rewrite(&schema, StrictTarget::OpenAi)).is_empty());
        assert_eq!(
            errors(&rewrite(&schema, StrictTarget::Anthropic)),
            [("/$defs/T", "$ref")]
        );
    }

    #[test]
    fn anthropic_keeps_optional_fields_optional_and_implied_bounds_quiet() {
        let r = rewrite(
            &json!({"type": "object", "properties": {
                "a": {"type": "string"},
                "b": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}
            }, "required": ["a"]}),
            StrictTarget::Anthropic,
        );
        assert_eq!(r.schema["required"], json!(["a"]));
        assert_eq!(r.schema["properties"]["b"]["type"], "integer");
        assert_eq!(
            r.schema["properties"]["b"]["description"],
            "At least 0. At most 255."
        );
        assert!(r.issues.is_empty(), "{:?}", r.issues);
    }

    #[test]
    fn extra_keys_beside_fields_are_an_error() {
        let r = rewrite(
            &json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": {}}),
            StrictTarget::OpenAi,
        );
        assert_eq!(
            errors(&r),
            [("/additionalProperties", "additionalProperties")]
        );
    }

    #[test]
    fn a_root_of_variants_is_refused() {
        let r = rewrite(
            &json!({"type": "object", "oneOf": [{"type": "object"}]}),
            StrictTarget::OpenAi,
        );
        assert!(errors(&r).contains(&("", "oneOf")));
    }
}
