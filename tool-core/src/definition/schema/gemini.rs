//! Rewrites for Google Gemini's two channels: `parameters` (an OpenAPI 3.0 subset: no `$ref`,
//! `nullable` instead of type arrays, string enums only, upper-case types) and
//! `parametersJsonSchema` (a JSON Schema subset).

use serde_json::{Map, Value, json};

use super::rewrite::{
    Issues, Rewritten, child, constrains, definitions, describe, merge_all_of, note, ref_name,
    types,
};

/// Keys of Gemini's OpenAPI `Schema` object.
const OPENAPI_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Keywords of the JSON Schema subset Gemini documents for `parametersJsonSchema`.
const JSON_SCHEMA_KEYS: &[&str] = &[
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
];

/// Rewrites a canonical input schema for `parametersJsonSchema`.
pub fn json_schema(schema: &Value) -> Rewritten {
    let mut issues = Issues::default();
    let mut root = schema.clone();
    if let Value::Object(map) = &mut root {
        map.shift_remove("$schema");
        map.shift_remove("title");
    }
    json_node(&mut root, "", &mut issues, true);
    Rewritten {
        schema: root,
        issues: issues.0,
    }
}

fn json_node(value: &mut Value, ptr: &str, issues: &mut Issues, is_root: bool) {
    let Value::Object(map) = value else { return };
    if let Some(c) = map.shift_remove("const") {
        map.entry("enum").or_insert_with(|| Value::Array(vec![c]));
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && values
            .iter()
            .any(|v| !(v.is_string() || v.is_number() || v.is_null()))
    {
        issues.error(
            ptr,
            "enum",
            "Gemini enums hold strings and numbers only",
            "use a string enum",
        );
    }
    let moved: Vec<String> = map
        .keys()
        .filter(|k| !(JSON_SCHEMA_KEYS.contains(&k.as_str()) || is_root && *k == "definitions"))
        .cloned()
        .collect();
    for keyword in moved {
        if let Some(v) = map.shift_remove(&keyword) {
            if matches!(
                keyword.as_str(),
                "allOf" | "not" | "if" | "patternProperties"
            ) {
                issues.error(
                    ptr,
                    &keyword,
                    format!("Gemini does not support `{keyword}`"),
                    "flatten the schema into one struct",
                );
                continue;
            }
            note(map, &describe(&keyword, &v));
            // A default is no constraint to lose: the tool fills it in, and the description
            // now tells the model. Nothing to fix, so nothing to warn of.
            if keyword == "default" {
                continue;
            }
            issues.warn(
                ptr,
                &keyword,
                format!("Gemini does not support `{keyword}`; it was moved into the description"),
                "validate it in the tool if it matters",
            );
        }
    }
    for_each_child(map, ptr, |sub, p| json_node(sub, p, issues, false));
}

/// Rewrites a canonical input schema for `parameters` (OpenAPI 3.0 subset).
pub fn openapi(schema: &Value) -> Rewritten {
    let mut issues = Issues::default();
    let defs = definitions(schema);
    let mut root = schema.clone();
    if let Value::Object(map) = &mut root {
        for key in ["$schema", "title", "$defs", "definitions"] {
            map.shift_remove(key);
        }
    }
    if ["anyOf", "oneOf"].iter().any(|k| root.get(*k).is_some()) {
        issues.error(
            "",
            "anyOf",
            "Gemini function parameters must be one OBJECT with properties, not a choice of variants",
            "wrap the enum in a struct field (e.g. a `kind` field), or use --format gemini",
        );
    }
    let mut cx = OpenApi {
        defs,
        issues: &mut issues,
        stack: Vec::new(),
    };
    cx.node(&mut root, "");
    Rewritten {
        schema: root,
        issues: issues.0,
    }
}

struct OpenApi<'a> {
    defs: Map<String, Value>,
    issues: &'a mut Issues,
    /// Definitions being inlined, to stop at recursion.
    stack: Vec<String>,
}

impl OpenApi<'_> {
    fn node(&mut self, value: &mut Value, ptr: &str) {
        if let Value::Bool(_) = value {
            *value = Value::Object(Map::new());
        }
        let Value::Object(map) = value else { return };
        if let Some(one_of) = map.shift_remove("oneOf") {
            map.entry("anyOf").or_insert(one_of);
        }
        self.nullable_variants(map);
        merge_all_of(map, ptr, self.issues, "Gemini");
        if !self.inline_ref(map, ptr) {
            return;
        }
        if let Some(c) = map.shift_remove("const") {
            map.entry("enum").or_insert_with(|| Value::Array(vec![c]));
        }
        self.type_array(map, ptr);
        self.enums(map, ptr);
        self.formats(map, ptr);
        let extra = map.shift_remove("additionalProperties");
        let is_object = map.get("type").and_then(Value::as_str) == Some("object");
        let no_properties = map
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
        // Gemini refuses an OBJECT without properties; the root of a tool without parameters is
        // left out of the declaration instead.
        let is_map = extra.is_some_and(|e| e != Value::Bool(false));
        let has_variants = map.contains_key("anyOf");
        if is_object && no_properties && !ptr.is_empty() && !has_variants {
            if is_map {
                self.issues.error(
                    ptr,
                    "additionalProperties",
                    "Gemini's OpenAPI schema cannot express a map with arbitrary keys (an OBJECT needs named properties)",
                    "take a Vec of {key, value} structs, or use --format gemini",
                );
            } else {
                self.issues.error(
                    ptr,
                    "properties",
                    "Gemini refuses an OBJECT without properties",
                    "give the struct a field, or remove the parameter",
                );
            }
        } else if is_object && is_map {
            self.issues.warn(
                &child(ptr, "additionalProperties"),
                "additionalProperties",
                "Gemini's OpenAPI schema cannot express extra keys beside the named fields; the model will not send them",
                "collect them in a named field, or use --format gemini",
            );
        }
        if is_object && !map.contains_key("properties") && !has_variants {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
        let moved: Vec<String> = map
            .keys()
            .filter(|k| !OPENAPI_KEYS.contains(&k.as_str()))
            .cloned()
            .collect();
        for keyword in moved {
            let Some(v) = map.shift_remove(&keyword) else {
                continue;
            };
            match keyword.as_str() {
                "prefixItems" => self.issues.error(
                    ptr,
                    "prefixItems",
                    "Gemini's OpenAPI schema cannot express tuples",
                    "take a struct with named fields, or use --format gemini",
                ),
                "not" | "if" | "patternProperties" | "dependentSchemas" => self.issues.error(
                    ptr,
                    &keyword,
                    format!("Gemini's OpenAPI schema cannot express `{keyword}`"),
                    "simplify the type, or use --format gemini",
                ),
                "$comment" | "examples" | "$id" | "then" | "else" | "unevaluatedProperties" => {}
                _ => {
                    note(map, &describe(&keyword, &v));
                    self.issues.warn(
                        ptr,
                        &keyword,
                        format!("Gemini's OpenAPI schema has no `{keyword}`; it was moved into the description"),
                        "validate it in the tool if it matters",
                    );
                }
            }
        }
        if !constrains(map) && !map.contains_key("nullable") {
            self.issues.error(
                ptr,
                "type",
                "Gemini's OpenAPI schema cannot express 'any JSON value' (serde_json::Value)",
                "use a concrete type, or --format gemini (parametersJsonSchema)",
            );
        }
        if let Some(Value::String(t)) = map.get("type") {
            let upper = t.to_ascii_uppercase();
            map.insert("type".into(), upper.into());
        }
        for_each_child(map, ptr, |sub, p| self.node(sub, p));
    }

    /// Replaces a `$ref` by a copy of its definition; `false` when the node must not be visited
    /// further (recursion).
    fn inline_ref(&mut self, map: &mut Map<String, Value>, ptr: &str) -> bool {
        let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned) else {
            return true;
        };
        map.shift_remove("$ref");
        let Some(name) = ref_name(&reference) else {
            self.issues.error(
                ptr,
                "$ref",
                format!("`{reference}` is not a local definition"),
                "use types defined in this crate",
            );
            return false;
        };
        if self.stack.contains(&name) {
            self.issues.error(
                ptr,
                "$ref",
                format!("`{name}` is recursive; Gemini's OpenAPI schema has no $ref to express it"),
                "bound the depth with distinct types, or use --format gemini",
            );
            map.insert("type".into(), "OBJECT".into());
            return false;
        }
        let Some(Value::Object(def)) = self.defs.get(&name).cloned() else {
            self.issues.error(
                ptr,
                "$ref",
                format!("`{reference}` names no definition"),
                "check the schema",
            );
            return false;
        };
        for (k, v) in def {
            match (k.as_str(), map.get_mut(&k), &v) {
                // Both the use site and the type have something to say: keep both.
                ("description", Some(Value::String(here)), Value::String(there))
                    if here != there =>
                {
                    let sep = if here.ends_with('.') { " " } else { ". " };
                    *here = format!("{here}{sep}{there}");
                }
                _ => {
                    map.entry(k).or_insert(v);
                }
            }
        }
        self.stack.push(name);
        let mut value = Value::Object(std::mem::take(map));
        self.node(&mut value, ptr);
        self.stack.pop();
        if let Value::Object(done) = value {
            *map = done;
        }
        false
    }

    /// `anyOf: [X, {type: null}]` becomes X with `nullable: true`.
    fn nullable_variants(&mut self, map: &mut Map<String, Value>) {
        let Some(Value::Array(variants)) = map.get_mut("anyOf") else {
            return;
        };
        let before = variants.len();
        variants.retain(|v| v.get("type") != Some(&json!("null")));
        if variants.len() == before {
            return;
        }
        map.insert("nullable".into(), true.into());
        if let Some(Value::Array(variants)) = map.get("anyOf")
            && variants.len() == 1
        {
            let only = variants[0].clone();
            map.shift_remove("anyOf");
            if let Value::Object(only) = only {
                for (k, v) in only {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }

    /// `type: [T, "null"]` becomes `type: T, nullable: true`; several types become anyOf.
    fn type_array(&mut self, map: &mut Map<String, Value>, ptr: &str) {
        let Some(Value::Array(_)) = map.get("type") else {
            return;
        };
        let all = types(map);
        let non_null: Vec<&String> = all.iter().filter(|t| *t != "null").collect();
        if non_null.len() < all.len() {
            map.insert("nullable".into(), true.into());
        }
        match non_null.as_slice() {
            [] => {
                self.issues.error(
                    ptr,
                    "type",
                    "a schema that only accepts null",
                    "remove the parameter",
                );
                map.shift_remove("type");
            }
            [one] => {
                map.insert("type".into(), (*one).clone().into());
            }
            many => {
                let variants: Vec<Value> = many.iter().map(|t| json!({"type": t})).collect();
                map.shift_remove("type");
                map.insert("anyOf".into(), variants.into());
            }
        }
    }

    /// Only string enums: others move into the description; `null` becomes `nullable`.
    fn enums(&mut self, map: &mut Map<String, Value>, ptr: &str) {
        let Some(Value::Array(values)) = map.get("enum").cloned() else {
            return;
        };
        let mut values = values;
        if values.contains(&Value::Null) {
            values.retain(|v| !v.is_null());
            map.insert("nullable".into(), true.into());
        }
        if values.iter().all(Value::is_string) {
            map.insert("enum".into(), values.into());
            map.insert("type".into(), "string".into());
            return;
        }
        map.shift_remove("enum");
        let shown: Vec<String> = values.iter().map(Value::to_string).collect();
        note(map, &format!("One of: {}.", shown.join(", ")));
        self.issues.warn(
            ptr,
            "enum",
            "Gemini's OpenAPI schema has string enums only; the values were moved into the description",
            "use a string enum, or --format gemini",
        );
    }

    /// Formats Gemini knows: int32/int64, float/double, date-time and enum.
    fn formats(&mut self, map: &mut Map<String, Value>, ptr: &str) {
        let Some(Value::String(format)) = map.get("format").cloned() else {
            return;
        };
        let t = types(map)
            .into_iter()
            .find(|t| t != "null")
            .unwrap_or_default();
        let keep = match t.as_str() {
            "integer" => ["int32", "int64"].contains(&format.as_str()),
            "number" => ["float", "double"].contains(&format.as_str()),
            "string" => ["date-time", "enum"].contains(&format.as_str()),
            _ => false,
        };
        if !keep {
            map.shift_remove("format");
            if t == "string" {
                note(map, &describe("format", &Value::String(format.clone())));
                self.issues.warn(
                    ptr,
                    "format",
                    format!("Gemini's OpenAPI schema has no string format `{format}`; it was moved into the description"),
                    "validate it in the tool if it matters",
                );
            } else if !map.contains_key("minimum") && !map.contains_key("maximum") {
                note(map, &format!("A {format} number."));
            }
        }
    }
}

/// Calls `f` on every direct subschema (properties, items, variants, prefixItems, $defs).
fn for_each_child(map: &mut Map<String, Value>, ptr: &str, mut f: impl FnMut(&mut Value, &str)) {
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(props)) = map.get_mut(key) {
            let base = child(ptr, key);
            for (name, sub) in props.iter_mut() {
                f(sub, &child(&base, name));
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub @ Value::Object(_)) = map.get_mut(key) {
            f(sub, &child(ptr, key));
        }
    }
    for key in ["anyOf", "oneOf", "prefixItems"] {
        if let Some(Value::Array(subs)) = map.get_mut(key) {
            let base = child(ptr, key);
            for (i, sub) in subs.iter_mut().enumerate() {
                f(sub, &child(&base, &i.to_string()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::schema::rewrite::Severity;

    #[test]
    fn openapi_inlines_refs_and_uses_nullable() {
        let r = openapi(&json!({
            "$schema": "x", "type": "object",
            "properties": {
                "when": {"type": ["string", "null"], "format": "date-time"},
                "place": {"anyOf": [{"$ref": "#/$defs/Place"}, {"type": "null"}], "description": "Where"},
                "size": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "level": {"type": "integer", "enum": [1, 2, 3]}
            },
            "$defs": {"Place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
        }));
        let p = &r.schema["properties"];
        assert_eq!(
            p["when"],
            json!({"type": "STRING", "nullable": true, "format": "date-time"})
        );
        assert_eq!(p["place"]["type"], "OBJECT");
        assert_eq!(p["place"]["nullable"], true);
        assert_eq!(p["place"]["description"], "Where");
        assert_eq!(p["place"]["properties"]["city"]["type"], "STRING");
        assert_eq!(
            p["size"],
            json!({"type": "INTEGER", "minimum": 0, "maximum": 255})
        );
        assert_eq!(p["level"]["description"], "One of: 1, 2, 3.");
        assert!(r.schema.get("$defs").is_none() && r.schema.get("$schema").is_none());
        assert_eq!(r.issues.len(), 1, "{:?}", r.issues);
        assert_eq!(r.issues[0].keyword, "enum");
    }

    #[test]
    fn openapi_reports_recursion_tuples_and_any() {
        let r = openapi(&json!({"type": "object", "properties": {
            "tree": {"$ref": "#/$defs/T"},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}]},
            "any": {}
        }, "$defs": {"T": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}}}));
        let errors: Vec<_> = r
            .issues
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .map(|i| (i.pointer.as_str(), i.keyword.as_str()))
            .collect();
        assert_eq!(
            errors,
            [
                ("/properties/tree/properties/kids/items", "$ref"),
                ("/properties/pair", "prefixItems"),
                ("/properties/any", "type")
            ]
        );
    }

    #[test]
    fn openapi_keeps_both_descriptions_and_refuses_root_variants() {
        let r = openapi(&json!({"type": "object", "properties": {
            "p": {"$ref": "#/$defs/P", "description": "The priority"}
        }, "$defs": {"P": {"type": "integer", "description": "1 low, 9 high"}}}));
        assert_eq!(
            r.schema["properties"]["p"]["description"],
            "The priority. 1 low, 9 high"
        );
        let r = openapi(
            &json!({"type": "object", "oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}),
        );
        assert_eq!(r.issues[0].keyword, "anyOf");
        assert!(
            r.schema.get("properties").is_none(),
            "no empty properties beside variants"
        );
    }

    #[test]
    fn json_schema_keeps_refs_and_moves_the_rest() {
        let r = json_schema(&json!({"$schema": "x", "type": "object", "properties": {
            "s": {"type": "string", "minLength": 1},
            "t": {"$ref": "#/$defs/T"}
        }, "$defs": {"T": {"type": "string", "const": "a"}}}));
        assert!(r.schema.get("$schema").is_none());
        assert_eq!(r.schema["properties"]["t"]["$ref"], "#/$defs/T");
        assert_eq!(r.schema["$defs"]["T"]["enum"], json!(["a"]));
        assert_eq!(
            r.schema["properties"]["s"]["description"],
            "At least this many characters: 1."
        );
        assert_eq!(r.issues.len(), 1);
    }

    #[test]
    fn a_default_is_told_the_model_without_a_warning() {
        let r = json_schema(&json!({"type": "object", "properties": {
            "days": {"type": "integer", "default": 3, "description": "How many days"}
        }}));
        let days = &r.schema["properties"]["days"];
        assert!(days.get("default").is_none());
        assert!(
            days["description"].as_str().unwrap().contains('3'),
            "{days}"
        );
        assert!(r.issues.is_empty(), "{:?}", r.issues);
    }
}
