//! What the benchmark's dynamic tools share: their input schemas and reading their arguments.

use serde_json::{Value, json};
use tool_core::ToolError;

pub fn schema(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

pub fn text_arg(input: &Value, key: &str) -> Result<String, ToolError> {
    input[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| ToolError::invalid_input("expected a string").with_path(key))
}

pub fn int_arg(input: &Value, key: &str) -> Result<u64, ToolError> {
    input[key]
        .as_u64()
        .ok_or_else(|| ToolError::invalid_input("expected an integer").with_path(key))
}
