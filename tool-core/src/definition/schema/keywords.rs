//! The keywords whose values are subschemas, which every walk over a schema (normalising it,
//! its MCP form) descends into: a leaf below the module and its rewrites.

/// Keywords whose value is one schema.
pub(super) const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
];
/// Keywords whose value is an array of schemas.
pub(super) const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["prefixItems", "allOf", "anyOf", "oneOf"];
/// Keywords whose value is a map of schemas.
pub(super) const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
