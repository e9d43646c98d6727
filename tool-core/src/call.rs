//! The pieces every call is made of, below the registry and the executor: the started call
//! ([`CallFuture`]) and what it resolves to ([`CallResult`]), and the decoding every tool shares
//! (errors that name the JSON path). `exec` re-exports them; the definitions, the registry and
//! the context build on them without reaching up into the executor.

use std::future::Future;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ErrorKind, ToolError};
use crate::output::{IntoOutput, ToolOutput};

/// What a started call resolves to.
pub type CallResult = Result<ToolOutput, ToolError>;

/// A started call. It owns its input and context, so it can be spawned, timed out or dropped.
///
/// A sync tool has already run when its call starts, so its result waits here without an
/// allocation; an async tool runs as the call is polled.
///
/// ```
/// use tool_core::exec::CallFuture;
/// use tool_core::ToolOutput;
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let ready = CallFuture::ready(Ok(ToolOutput::text("done")));
/// let later = CallFuture::new(async { Ok(ToolOutput::text("done")) });
/// assert_eq!(ready.await.unwrap().echo(), later.await.unwrap().echo());
/// # });
/// ```
#[must_use = "an async tool does nothing until its call is polled"]
pub struct CallFuture(Call);

enum Call {
    Ready(CallResult),
    Running(Pin<Box<dyn Future<Output = CallResult> + Send + 'static>>),
    /// The ready result was taken.
    Done,
}

impl CallFuture {
    /// A call whose result is known.
    #[inline]
    pub fn ready(result: CallResult) -> Self {
        Self(Call::Ready(result))
    }

    /// A call that runs as `future` is polled.
    pub fn new(future: impl Future<Output = CallResult> + Send + 'static) -> Self {
        Self(Call::Running(Box::pin(future)))
    }
}

impl Future for CallFuture {
    type Output = CallResult;

    // Inlined into the caller's poll, a ready result is moved once, into the `Poll`.
    #[inline]
    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<CallResult> {
        if let Call::Running(future) = &mut self.0 {
            return future.as_mut().poll(cx);
        }
        std::task::Poll::Ready(match std::mem::replace(&mut self.0, Call::Done) {
            Call::Ready(result) => result,
            _ => Err(ToolError::internal("a finished call was polled again")),
        })
    }
}

impl std::fmt::Debug for CallFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.0 {
            Call::Ready(_) => "ready",
            Call::Running(_) => "running",
            Call::Done => "done",
        };
        f.debug_tuple("CallFuture").field(&state).finish()
    }
}

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
    decode_value(Value::Object(into_object(input)?))
}

/// Decodes any JSON value, with the JSON path of the offending part in the error.
pub fn decode_value<T: DeserializeOwned>(value: Value) -> Result<T, ToolError> {
    // A scalar has no inner path to track: decoded directly, it fails with the same message.
    if !matches!(value, Value::Array(_) | Value::Object(_)) {
        return T::deserialize(value)
            .map_err(|e| ToolError::invalid_input(e.to_string()).with_path(String::new()));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        ToolError::invalid_input(e.into_inner().to_string()).with_path(path)
    })
}

fn into_object(input: Value) -> Result<Map<String, Value>, ToolError> {
    match input {
        Value::Null => Ok(Map::new()),
        Value::Object(map) => Ok(map),
        other => Err(ToolError::invalid_input(format!(
            "the input must be a JSON object, got {}",
            json_type(&other)
        ))),
    }
}

/// What to do when the model leaves a parameter out.
pub enum Missing<T> {
    /// It is an error.
    Required,
    /// Decode `null` (for `Option` parameters, which become `None`).
    Null,
    /// Use the parameter's default (also when the model sends `null`).
    Default(fn() -> T),
}

/// Decodes the input of a tool with plain parameters one field at a time, collecting every
/// problem (unknown keys, missing and ill-typed values) so the model can fix all at once.
///
/// ```
/// use serde_json::json;
/// use tool_core::exec::{decode_value, Fields, Missing};
/// let mut fields = Fields::new(json!({"tz": "UTC", "limit": "ten"}), &["timezone", "limit"]).unwrap();
/// let limit = fields.take::<u32>("limit", decode_value, Missing::Default(|| 10));
/// let timezone = fields.take::<String>("timezone", decode_value, Missing::Required);
/// assert!(limit.is_none() && timezone.is_none());
/// let err = fields.finish().unwrap_err();
/// assert_eq!(err.message(), "3 problems: unknown parameter `tz` (did you mean `timezone`?); \
///     limit: invalid type: string \"ten\", expected u32; timezone: missing required parameter");
/// ```
pub struct Fields {
    /// The input object. Values are taken out by scanning its keys: a tool has few
    /// parameters, and comparing a few keys costs less than hashing one (serde_json's map
    /// hashes with SipHash) or moving the entries into a list.
    map: Map<String, Value>,
    problems: Vec<ToolError>,
}

impl Fields {
    /// Starts decoding; `keys` are every parameter's JSON key. Unknown keys are problems.
    pub fn new(input: Value, keys: &[&str]) -> Result<Self, ToolError> {
        let map = into_object(input)?;
        let problems = map
            .keys()
            .filter(|k| !keys.contains(&k.as_str()))
            .map(|k| unknown_parameter(k, keys))
            .collect();
        Ok(Self { map, problems })
    }

    /// Takes and decodes one parameter; `None` if it is missing or ill-typed (a problem is
    /// recorded).
    pub fn take<T>(
        &mut self,
        key: &str,
        decode: fn(Value) -> Result<T, ToolError>,
        missing: Missing<T>,
    ) -> Option<T> {
        // Each key is taken once, so leaving `null` behind is never read as the value.
        let taken = self
            .map
            .iter_mut()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| std::mem::take(v));
        let value = match (taken, missing) {
            (None | Some(Value::Null), Missing::Default(default)) => return Some(default()),
            (None, Missing::Required) => {
                self.problems
                    .push(ToolError::invalid_input("missing required parameter").with_path(key));
                return None;
            }
            (None, Missing::Null) => Value::Null,
            (Some(value), _) => value,
        };
        match decode(value) {
            Ok(v) => Some(v),
            Err(e) => {
                let path = match e.path() {
                    None => key.to_owned(),
                    Some(inner) if inner.starts_with('[') => format!("{key}{inner}"),
                    Some(inner) => format!("{key}.{inner}"),
                };
                self.problems.push(e.with_path(path));
                None
            }
        }
    }

    /// Ok if every parameter was taken without a problem.
    pub fn finish(self) -> Result<(), ToolError> {
        let mut problems = self.problems;
        match problems.len() {
            0 => Ok(()),
            1 => Err(problems.remove(0)),
            n => Err(ToolError::invalid_input(format!(
                "{n} problems: {}",
                problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ))),
        }
    }
}

/// Refuses the keys of `fields` that are not in `keys`: each with a did-you-mean, all at once
/// (as [`Fields`] reports them).
pub(crate) fn refuse_unknown_keys(
    fields: &Map<String, Value>,
    keys: &[&str],
) -> Result<(), ToolError> {
    let problems = fields
        .keys()
        .filter(|k| !keys.contains(&k.as_str()))
        .map(|k| unknown_parameter(k, keys))
        .collect();
    Fields {
        map: Map::new(),
        problems,
    }
    .finish()
}

fn unknown_parameter(key: &str, keys: &[&str]) -> ToolError {
    let nearest = keys
        .iter()
        .map(|k| (strsim::jaro_winkler(key, k), *k))
        .filter(|(score, _)| *score >= 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let message = match (nearest, keys) {
        (Some((_, k)), _) => format!("unknown parameter `{key}` (did you mean `{k}`?)"),
        (None, []) => format!("unknown parameter `{key}`: this tool takes no parameters"),
        (None, keys) => format!(
            "unknown parameter `{key}`; the parameters are: {}",
            keys.join(", ")
        ),
    };
    ToolError::invalid_input(message)
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

/// Finishes a handler that returned a `Result`.
pub(crate) fn finish_result<T: IntoOutput, E: Into<ToolError>>(result: Result<T, E>) -> CallResult {
    match result {
        Ok(value) => value.into_output(),
        Err(e) => Err(e.into()),
    }
}

/// A call that fails before it starts (bad input, a missing extractor).
pub(crate) fn fail(error: ToolError) -> CallFuture {
    CallFuture::ready(Err(error))
}

/// The error for a call to a tool that does not exist, naming the nearest names (for adapters
/// that answer such calls themselves, as MCP does with a protocol error).
///
/// With no near name, the likeliest cause is the linking rule, so the message says it: a
/// `#[tool]` written in another crate is collected only when the binary names that crate.
pub fn unknown_tool(name: &str, suggestions: &[&str]) -> ToolError {
    let message = match suggestions {
        [] => format!(
            "no tool is named `{name}`; if it is defined in another crate, the binary must name \
             that crate for its tools to be linked: `use that_crate as _;`"
        ),
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
    fn a_ready_call_gives_its_result_once() {
        use std::task::{Context, Poll, Waker};
        let mut call = CallFuture::ready(Ok(ToolOutput::text("done")));
        let mut cx = Context::from_waker(Waker::noop());
        let first = Pin::new(&mut call).poll(&mut cx);
        assert!(
            matches!(&first, Poll::Ready(Ok(out)) if out.echo() == "done"),
            "{first:?}"
        );
        assert_eq!(format!("{call:?}"), "CallFuture(\"done\")");
        let Poll::Ready(Err(again)) = Pin::new(&mut call).poll(&mut cx) else {
            panic!("a second poll must fail, not panic or hang");
        };
        assert!(again.message().contains("polled again"), "{again}");
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
        assert_eq!(
            err.to_string(),
            "the input must be a JSON object, got an array"
        );
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
    }

    #[test]
    fn fields_prefix_paths_and_treat_null_as_default() {
        let mut f = Fields::new(
            json!({"items": [{"count": 1}, {"count": -1}], "n": null}),
            &["items", "n"],
        )
        .unwrap();
        assert!(
            f.take::<Vec<Item>>("items", decode_value, Missing::Required)
                .is_none()
        );
        assert_eq!(
            f.take::<u8>("n", decode_value, Missing::Default(|| 3)),
            Some(3)
        );
        let err = f.finish().unwrap_err();
        assert_eq!(err.path(), Some("items[1].count"));
        let mut f = Fields::new(json!({}), &["o"]).unwrap();
        assert_eq!(
            f.take::<Option<u8>>("o", decode_value, Missing::Null),
            Some(None)
        );
        assert!(f.finish().is_ok());
    }

    #[test]
    fn unknown_keys_without_a_near_name_list_the_parameters() {
        let f = Fields::new(json!({"zzz": 1}), &["timezone"]).unwrap();
        assert_eq!(
            f.finish().unwrap_err().message(),
            "unknown parameter `zzz`; the parameters are: timezone"
        );
        let f = Fields::new(json!({"x": 1}), &[]).unwrap();
        assert!(
            f.finish()
                .unwrap_err()
                .message()
                .contains("takes no parameters")
        );
        assert!(Fields::new(json!("text"), &[]).is_err());
    }

    #[test]
    fn bad_json_text_says_where() {
        let err = parse_input(r#"{"a": }"#).unwrap_err();
        assert!(err.message().contains("line 1 column 7"), "{err}");
        assert_eq!(parse_input("  ").unwrap(), Value::Null);
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = crate::test_json::json_leaf("[a-z]{0,6}".prop_map(String::from));
        let key = prop_oneof![
            Just("name".to_owned()),
            Just("items".to_owned()),
            "[a-z]{1,5}"
        ];
        crate::test_json::json_tree(leaf, key, 4, 4)
    }

    proptest::proptest! {
        // Whatever a model sends, decoding ends in a value or an input error; never a panic.
        #[test]
        fn decoding_any_json_never_panics(input in any_json()) {
            match decode::<Args>(input.clone()) {
                Ok(args) => proptest::prop_assert_eq!(&input["name"], &Value::from(args.name)),
                Err(e) => proptest::prop_assert_eq!(e.kind(), ErrorKind::InvalidInput),
            }
            let mut fields = match Fields::new(input, &["name", "items"]) {
                Ok(fields) => fields,
                Err(e) => { proptest::prop_assert_eq!(e.kind(), ErrorKind::InvalidInput); return Ok(()); }
            };
            let name = fields.take::<String>("name", decode_value, Missing::Required);
            let items = fields.take::<Option<Vec<Item>>>("items", decode_value, Missing::Null);
            match fields.finish() {
                Ok(()) => proptest::prop_assert!(name.is_some() && items.is_some()),
                Err(e) => proptest::prop_assert_eq!(e.kind(), ErrorKind::InvalidInput),
            }
        }

        // Scalars skip the path tracking: the outcome must be what the tracking path gives.
        #[test]
        fn scalars_decode_as_with_path_tracking(input in any_json()) {
            fn same<T>(input: &Value) -> Result<(), proptest::test_runner::TestCaseError>
            where
                T: DeserializeOwned + PartialEq + std::fmt::Debug,
            {
                // serde_path_to_error writes the root as `.`; decode_value leaves it empty.
                let tracked = serde_path_to_error::deserialize::<_, T>(input.clone()).map_err(|e| {
                    let path = e.path().to_string();
                    (if path == "." { String::new() } else { path }, e.into_inner().to_string())
                });
                let direct = decode_value::<T>(input.clone()).map_err(|e| {
                    (e.path().unwrap_or_default().to_owned(), e.message().to_owned())
                });
                proptest::prop_assert_eq!(tracked, direct);
                Ok(())
            }
            same::<u32>(&input)?;
            same::<i64>(&input)?;
            same::<f64>(&input)?;
            same::<bool>(&input)?;
            same::<String>(&input)?;
            same::<Option<u8>>(&input)?;
            same::<Vec<u8>>(&input)?;
            same::<Value>(&input)?;
        }

        #[test]
        fn parsing_any_text_never_panics(text in ".{0,40}") {
            if let Err(e) = parse_input(&text) {
                proptest::prop_assert_eq!(e.kind(), ErrorKind::InvalidInput);
            }
        }
    }

    #[test]
    fn suggestions_read_well() {
        assert_eq!(
            unknown_tool("get_tme", &["get_time"]).to_string(),
            "no tool is named `get_tme`; did you mean `get_time`?"
        );
        assert_eq!(
            unknown_tool("x", &[]).to_string(),
            "no tool is named `x`; if it is defined in another crate, the binary must name that \
             crate for its tools to be linked: `use that_crate as _;`"
        );
    }
}
