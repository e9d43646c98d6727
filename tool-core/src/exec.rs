//! Running a call: decoding the input with errors that name the JSON path, and the small
//! generic shims the `#[tool]` expansion calls into.

use std::future::Future;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ErrorKind, ToolError};
use crate::output::{IntoOutput, ToolOutput};

/// What a started call resolves to.
pub type CallResult = Result<ToolOutput, ToolError>;

/// A started call. It owns its input and context, so it can be spawned, timed out or dropped.
pub type CallFuture = Pin<Box<dyn Future<Output = CallResult> + Send + 'static>>;

/// Decodes a tool's input into its arguments type.
///
/// `null` counts as `{}` (models send it for tools without parameters); anything else that is
/// not an object is refused. Errors carry the JSON path of the offending value.
///
/// ```
/// #[derive(serde::Deserialize, Debug)]
/// struct Args { timezone: String }
/// let err = tool_core::exec::decode::<Args>(serde_json::json!({"timezone": 5})).unwrap_err();
/// assert_eq!(err.path(), Some("timezone"));
/// assert_eq!(err.to_string(), "timezone: invalid type: integer `5`, expected a string");
/// ```
pub fn decode<T: DeserializeOwned>(input: Value) -> Result<T, ToolError> {
    let input = match input {
        Value::Null => Value::Object(Map::new()),
        Value::Object(map) => Value::Object(map),
        other => {
            return Err(ToolError::invalid_input(format!(
                "the input must be a JSON object, got {}",
                json_type(&other)
            )));
        }
    };
    serde_path_to_error::deserialize(input).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        ToolError::invalid_input(e.into_inner().to_string()).with_path(path)
    })
}

/// Parses JSON text into a value, with the line and column of a syntax error.
pub fn parse_input(text: &str) -> Result<Value, ToolError> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(text)
        .map_err(|e| ToolError::invalid_input(format!("the input is not valid JSON: {e}")))
}

/// The JSON type name of a value, for messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Finishes a handler that returned a plain value.
pub(crate) fn finish<R: IntoOutput>(value: R) -> CallResult {
    value.into_output()
}

/// Finishes a handler that returned a `Result`.
pub(crate) fn finish_result<T: IntoOutput, E: Into<ToolError>>(result: Result<T, E>) -> CallResult {
    match result {
        Ok(value) => value.into_output(),
        Err(e) => Err(e.into()),
    }
}

/// A call that fails before it starts (bad input, a missing extractor).
pub(crate) fn fail(error: ToolError) -> CallFuture {
    Box::pin(std::future::ready(Err(error)))
}

/// The message for a call to a tool that does not exist, with the nearest names.
pub(crate) fn unknown_tool(name: &str, suggestions: &[&str]) -> ToolError {
    let message = match suggestions {
        [] => format!("no tool is named `{name}`"),
        [one] => format!("no tool is named `{name}`; did you mean `{one}`?"),
        many => format!(
            "no tool is named `{name}`; did you mean one of {}?",
            many.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    ToolError::new(ErrorKind::UnknownTool, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        name: String,
        items: Option<Vec<Item>>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Item {
        count: u8,
    }

    #[test]
    fn errors_name_the_path() {
        let err = decode::<Args>(json!({"name": "a", "items": [{"count": 1}, {"count": 300}]}))
            .unwrap_err();
        assert_eq!(err.path(), Some("items[1].count"));
        assert!(err.message().contains("300"), "{err}");
    }

    #[test]
    fn missing_and_unknown_fields_are_named() {
        let err = decode::<Args>(json!({})).unwrap_err();
        assert_eq!(err.to_string(), "missing field `name`");
        let err = decode::<Args>(json!({"name": "a", "nmae": 1})).unwrap_err();
        assert!(err.to_string().contains("unknown field `nmae`"), "{err}");
    }

    #[test]
    fn null_is_an_empty_object_and_other_roots_are_refused() {
        #[derive(Debug, serde::Deserialize)]
        struct Empty {}
        assert!(decode::<Empty>(Value::Null).is_ok());
        let err = decode::<Empty>(json!([1])).unwrap_err();
        assert_eq!(err.to_string(), "the input must be a JSON object, got an array");
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    }

    #[test]
    fn bad_json_text_says_where() {
        let err = parse_input(r#"{"a": }"#).unwrap_err();
        assert!(err.message().contains("line 1 column 7"), "{err}");
        assert_eq!(parse_input("  ").unwrap(), Value::Null);
    }

    #[test]
    fn suggestions_read_well() {
        assert_eq!(
            unknown_tool("get_tme", &["get_time"]).to_string(),
            "no tool is named `get_tme`; did you mean `get_time`?"
        );
        assert_eq!(
            unknown_tool("x", &[]).to_string(),
            "no tool is named `x`"
        );
    }
}
