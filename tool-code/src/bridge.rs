//! Values across the sandbox's boundary: JSON in, JSON out.
//!
//! A tool's result enters a script as the Python value `json.loads` would make of it; what a
//! script passes to a tool, and what it returns, leaves as the JSON `json.dumps` would write,
//! with three differences where `json.dumps` writes text that is not JSON or loses data: `NaN`
//! and the infinities are refused (`json.dumps` writes `NaN`, which no JSON parser reads), an
//! integer beyond 64 bits is refused (JSON numbers here are 64-bit), and a nesting deeper
//! than [`MAX_DEPTH`] is refused (the host's stack is not the script's to spend). A tool's
//! error crosses as an exception ([`exception_type`]).

use monty_types::{DictPairs, ExcType, MontyObject};
use num_bigint::BigInt;
use serde_json::{Map, Number, Value};
use tool_core::error::ErrorKind;

/// The deepest nesting of lists and dicts that crosses the boundary.
pub const MAX_DEPTH: usize = 128;

/// A value that cannot cross the boundary as JSON, and where in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("{path}: {reason}")]
pub struct BridgeError {
    /// Where, as a JSON path from the value's root (`$`, `$.key`, `$[0]`).
    pub path: String,
    /// What was wrong, in `json.dumps`'s words where it has some.
    pub reason: String,
}

/// The Python value for a JSON value: objects become dicts (in their order), arrays lists,
/// integers ints, other numbers floats.
pub fn to_python(value: &Value) -> MontyObject {
    match value {
        Value::Null => MontyObject::None,
        Value::Bool(b) => MontyObject::Bool(*b),
        Value::Number(n) => number_to_python(n),
        Value::String(s) => MontyObject::String(s.clone()),
        Value::Array(items) => MontyObject::List(items.iter().map(to_python).collect()),
        Value::Object(map) => MontyObject::Dict(
            map.iter()
                .map(|(k, v)| (MontyObject::String(k.clone()), to_python(v)))
                .collect::<Vec<_>>()
                .into(),
        ),
    }
}

fn number_to_python(n: &Number) -> MontyObject {
    if let Some(i) = n.as_i64() {
        MontyObject::Int(i)
    } else if let Some(u) = n.as_u64() {
        MontyObject::BigInt(BigInt::from(u))
    } else {
        // serde_json without `arbitrary_precision` holds every other number as a finite f64.
        MontyObject::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// The JSON value for a Python value, as `json.dumps` then `json.loads` would give it: tuples
/// (named ones too) become arrays; dict keys that are `str`, `int`, `float`, `bool` or `None`
/// become strings (`True` -> `"true"`, `None` -> `"null"`, as `json.dumps` writes them); every
/// other type is refused with the path to it.
pub fn from_python(value: &MontyObject) -> Result<Value, BridgeError> {
    from_python_naming(value, &|_| None)
}

/// [`from_python`], with the function a call that was never awaited went to (`call_name`, by
/// the interpreter's call id) named in the error, so that the script's author sees which call
/// lacks its `await`.
pub(crate) fn from_python_naming(
    value: &MontyObject,
    call_name: &dyn Fn(u32) -> Option<String>,
) -> Result<Value, BridgeError> {
    let mut path = Vec::new();
    convert(value, &mut path, call_name)
}

/// A step of a path: a dict key or a list index.
enum Step {
    Key(String),
    Index(usize),
}

fn render_path(path: &[Step]) -> String {
    let mut out = String::from("$");
    for step in path {
        match step {
            Step::Index(i) => out.push_str(&format!("[{i}]")),
            Step::Key(k) if is_plain_key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Key(k) => out.push_str(&format!("[{}]", Value::String(k.clone()))),
        }
    }
    out
}

fn is_plain_key(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn fail(path: &[Step], reason: impl Into<String>) -> BridgeError {
    BridgeError {
        path: render_path(path),
        reason: reason.into(),
    }
}

fn convert(
    value: &MontyObject,
    path: &mut Vec<Step>,
    call_name: &dyn Fn(u32) -> Option<String>,
) -> Result<Value, BridgeError> {
    Ok(match value {
        MontyObject::None => Value::Null,
        MontyObject::Bool(b) => Value::Bool(*b),
        MontyObject::Int(i) => Value::from(*i),
        MontyObject::BigInt(b) => big_int(b).ok_or_else(|| {
            fail(
                path,
                "integer out of range: JSON numbers here hold 64 bits (pass it as a string)",
            )
        })?,
        MontyObject::Float(f) => Number::from_f64(*f)
            .map(Value::Number)
            .ok_or_else(|| fail(path, format!("{} is not valid JSON", float_repr(*f))))?,
        MontyObject::String(s) => Value::String(s.clone()),
        MontyObject::List(items) | MontyObject::Tuple(items) => sequence(items, path, call_name)?,
        MontyObject::NamedTuple { values, .. } => sequence(values, path, call_name)?,
        MontyObject::Dict(pairs) => dict(pairs, path, call_name)?,
        MontyObject::Cycle(..) => return Err(fail(path, "Circular reference detected")),
        MontyObject::Repr(repr) if repr.starts_with("<coroutine") => {
            return Err(fail(path, unawaited(repr, call_name)));
        }
        other => {
            return Err(fail(
                path,
                format!(
                    "Object of type {} is not JSON serializable",
                    type_name(other)
                ),
            ));
        }
    })
}

/// What a coroutine in a script's value means: a call without its `await`.
fn unawaited(repr: &str, call_name: &dyn Fn(u32) -> Option<String>) -> String {
    let name = repr
        .strip_prefix("<coroutine external_future(")
        .and_then(|rest| rest.strip_suffix(")>"))
        .and_then(|id| id.parse().ok())
        .and_then(call_name);
    match name {
        Some(name) => format!(
            "the call {name}(...) was never awaited, so it never ran: write `await {name}(...)`"
        ),
        None => format!("{repr} was never awaited, so it never ran: write `await` before the call"),
    }
}

fn big_int(b: &BigInt) -> Option<Value> {
    i64::try_from(b)
        .map(Value::from)
        .or_else(|_| u64::try_from(b).map(Value::from))
        .ok()
}

fn float_repr(f: f64) -> &'static str {
    if f.is_nan() {
        "nan"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

fn sequence(
    items: &[MontyObject],
    path: &mut Vec<Step>,
    call_name: &dyn Fn(u32) -> Option<String>,
) -> Result<Value, BridgeError> {
    if path.len() >= MAX_DEPTH {
        return Err(fail(path, format!("nested deeper than {MAX_DEPTH} levels")));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        path.push(Step::Index(i));
        out.push(convert(item, path, call_name)?);
        path.pop();
    }
    Ok(Value::Array(out))
}

fn dict(
    pairs: &DictPairs,
    path: &mut Vec<Step>,
    call_name: &dyn Fn(u32) -> Option<String>,
) -> Result<Value, BridgeError> {
    if path.len() >= MAX_DEPTH {
        return Err(fail(path, format!("nested deeper than {MAX_DEPTH} levels")));
    }
    let mut out = Map::new();
    for (key, value) in pairs {
        let key = dict_key(key).ok_or_else(|| {
            fail(
                path,
                format!(
                    "keys must be str, int, float, bool or None, not {}",
                    type_name(key)
                ),
            )
        })??;
        path.push(Step::Key(key));
        let converted = convert(value, path, call_name)?;
        let Some(Step::Key(key)) = path.pop() else {
            unreachable!("the step pushed above")
        };
        // A later equal key wins, as in a dict built from the same pairs.
        out.insert(key, converted);
    }
    Ok(Value::Object(out))
}

/// A dict key as `json.dumps` writes it; `None` for a type it refuses.
fn dict_key(key: &MontyObject) -> Option<Result<String, BridgeError>> {
    Some(Ok(match key {
        MontyObject::String(s) => s.clone(),
        MontyObject::Int(i) => i.to_string(),
        MontyObject::BigInt(b) => b.to_string(),
        MontyObject::Bool(true) => "true".to_owned(),
        MontyObject::Bool(false) => "false".to_owned(),
        MontyObject::None => "null".to_owned(),
        MontyObject::Float(f) if f.is_finite() => python_float(*f),
        MontyObject::Float(f) => {
            return Some(Err(fail(
                &[],
                format!("{} is not valid JSON", float_repr(*f)),
            )));
        }
        _ => return None,
    }))
}

/// `repr(float)`: the shortest text that reads back as the same float, with `.0` on integers
/// and Python's exponent form.
fn python_float(f: f64) -> String {
    let abs = f.abs();
    if f == 0.0 || (1e-4..1e16).contains(&abs) {
        let s = format!("{f:?}");
        if s.contains('.') || s.contains('e') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        // Rust writes `1e16`/`1e-5`; Python writes `1e+16`/`1e-05`.
        let s = format!("{f:e}");
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exponent.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exponent),
        };
        format!("{mantissa}e{sign}{digits:0>2}")
    }
}

/// The Python type name of a value, for messages.
pub(crate) fn type_name(value: &MontyObject) -> &'static str {
    match value {
        MontyObject::Ellipsis => "ellipsis",
        MontyObject::NotImplemented => "NotImplementedType",
        MontyObject::None => "NoneType",
        MontyObject::Bool(_) => "bool",
        MontyObject::Int(_) | MontyObject::BigInt(_) => "int",
        MontyObject::Float(_) => "float",
        MontyObject::String(_) => "str",
        MontyObject::Bytes(_) => "bytes",
        MontyObject::List(_) => "list",
        MontyObject::Tuple(_) | MontyObject::NamedTuple { .. } => "tuple",
        MontyObject::Dict(_) => "dict",
        MontyObject::Set(_) => "set",
        MontyObject::FrozenSet(_) => "frozenset",
        MontyObject::Date(_) => "date",
        MontyObject::DateTime(_) => "datetime",
        MontyObject::Time(_) => "time",
        MontyObject::TimeDelta(_) => "timedelta",
        MontyObject::TimeZone(_) => "timezone",
        MontyObject::Exception { .. } => "exception",
        MontyObject::Type(_) => "type",
        MontyObject::BuiltinFunction(_) | MontyObject::Function { .. } => "function",
        MontyObject::Path(_) => "Path",
        MontyObject::FileHandle(_) => "file",
        MontyObject::ClassInstance(_) => "object",
        MontyObject::Repr(_) | MontyObject::Cycle(..) => "object",
    }
}

/// The Python exception a tool error becomes inside a script; its message is
/// `"<kind>: <message>"`, so `str(e)` starts with the [`ErrorKind`]'s name.
///
/// | kind | exception |
/// |---|---|
/// | `invalid_input` | `ValueError` |
/// | `unknown_tool` | `NameError` |
/// | `not_found` | `LookupError` |
/// | `permission_denied`, `not_approved`, `refused` | `PermissionError` |
/// | `timeout` | `TimeoutError` |
/// | `unavailable` | `OSError` |
/// | `cancelled`, `failed`, `internal` and later kinds | `RuntimeError` |
pub fn exception_type(kind: ErrorKind) -> &'static str {
    exc_type(kind).into()
}

fn exc_type(kind: ErrorKind) -> ExcType {
    match kind {
        ErrorKind::InvalidInput => ExcType::ValueError,
        ErrorKind::UnknownTool => ExcType::NameError,
        ErrorKind::NotFound => ExcType::LookupError,
        ErrorKind::PermissionDenied | ErrorKind::NotApproved | ErrorKind::Refused => {
            ExcType::PermissionError
        }
        ErrorKind::Timeout => ExcType::TimeoutError,
        ErrorKind::Unavailable => ExcType::OSError,
        _ => ExcType::RuntimeError,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use monty::MontyRun;
    use monty_types::{CompileOptions, PrintWriter, ResourceTracker};
    use proptest::prelude::*;
    use serde_json::json;

    /// JSON values as serde_json holds them (finite floats, 64-bit integers).
    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            ".{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((".{0,6}", inner), 0..6)
                    .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }

    /// Python values a script may hand over: JSON's, and tuples, sets, bytes, non-finite
    /// floats, big integers and keys of every kind.
    fn python_value() -> impl Strategy<Value = MontyObject> {
        let leaf = prop_oneof![
            Just(MontyObject::None),
            any::<bool>().prop_map(MontyObject::Bool),
            any::<i64>().prop_map(MontyObject::Int),
            any::<i128>().prop_map(|i| MontyObject::BigInt(BigInt::from(i))),
            any::<f64>().prop_map(MontyObject::Float),
            ".{0,8}".prop_map(MontyObject::String),
            prop::collection::vec(any::<u8>(), 0..4).prop_map(MontyObject::Bytes),
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            let key = prop_oneof![
                ".{0,4}".prop_map(MontyObject::String),
                any::<i8>().prop_map(|i| MontyObject::Int(i.into())),
                any::<bool>().prop_map(MontyObject::Bool),
                Just(MontyObject::None),
                prop_oneof![Just(0.5), Just(1.0), Just(-2.25), Just(1e20), Just(3e-7)]
                    .prop_map(MontyObject::Float),
                prop::collection::vec(any::<i8>(), 0..2).prop_map(|v| {
                    MontyObject::Tuple(v.into_iter().map(|i| MontyObject::Int(i.into())).collect())
                }),
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(MontyObject::List),
                prop::collection::vec(inner.clone(), 0..5).prop_map(MontyObject::Tuple),
                prop::collection::vec(any::<i8>(), 0..3).prop_map(|v| {
                    MontyObject::Set(v.into_iter().map(|i| MontyObject::Int(i.into())).collect())
                }),
                prop::collection::vec((key, inner), 0..5)
                    .prop_map(|pairs| MontyObject::Dict(pairs.into())),
            ]
        })
    }

    /// What `code` makes of `x = value`, in the sandbox.
    fn python(code: &str, value: &MontyObject) -> Result<MontyObject, monty_types::MontyException> {
        let runner = MontyRun::new(
            code.to_owned(),
            "bridge.py",
            vec!["x".to_owned()],
            CompileOptions::default(),
        )
        .unwrap();
        runner.run(
            vec![value.clone()],
            ResourceTracker::default(),
            PrintWriter::Disabled,
        )
    }

    /// `value` as the interpreter holds it (a dict's equal keys, `1` and `True`, made one),
    /// as a script would hand it over.
    fn through_python(value: &MontyObject) -> MontyObject {
        python("x", value).unwrap()
    }

    /// `json.loads(json.dumps(value))`, in the sandbox.
    fn python_round_trip(value: &MontyObject) -> MontyObject {
        python("import json\njson.loads(json.dumps(x))", value).unwrap()
    }

    /// What Python's own `json.dumps` makes of `value`, inside the sandbox: the text, or the
    /// exception's type.
    fn python_dumps(value: &MontyObject) -> Result<String, String> {
        match python("import json\njson.dumps(x)", value) {
            Ok(MontyObject::String(text)) => Ok(text),
            Ok(other) => panic!("json.dumps returned {other:?}"),
            Err(e) => Err(<&str>::from(e.exc_type()).to_owned()),
        }
    }

    proptest! {
        #[test]
        fn json_survives_a_round_trip(value in json_value()) {
            prop_assert_eq!(from_python(&to_python(&value)), Ok(value));
        }

        /// Where `json.dumps` writes JSON, the bridge gives the value that JSON parses to;
        /// where it raises, the bridge refuses; where it writes what is not JSON (`NaN`) or
        /// what a 64-bit number cannot hold, the bridge refuses and says why.
        #[test]
        fn the_bridge_agrees_with_pythons_json_dumps(value in python_value()) {
            let value = through_python(&value);
            let ours = from_python(&value);
            match python_dumps(&value) {
                Err(exception) => {
                    prop_assert_eq!(exception, "TypeError");
                    prop_assert!(ours.is_err(), "json.dumps refused, the bridge gave {:?}", ours);
                }
                Ok(text) => match serde_json::from_str::<Value>(&text) {
                    Err(_) => {
                        let e = ours.expect_err("json.dumps wrote what is not JSON");
                        prop_assert!(e.reason.contains("not valid JSON"), "{}", e);
                    }
                    // Compared with what Python's `json.loads` reads back, whose floats are
                    // exact (serde_json's default parser can be a few units off).
                    Ok(_) => {
                        let back = python_round_trip(&value);
                        match (&ours, from_python(&back)) {
                            (Err(e), Err(_)) => prop_assert!(e.reason.contains("out of range"), "{}", e),
                            (ours, back) => prop_assert_eq!(ours, &back, "{}", text),
                        }
                    }
                },
            }
        }

        /// Python `repr` of floats as dict keys, checked against the interpreter's own `str`.
        #[test]
        fn float_keys_read_as_python_writes_them(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
            let written = python("str(x)", &MontyObject::Float(f)).unwrap();
            prop_assert_eq!(MontyObject::String(python_float(f)), written);
        }
    }

    #[test]
    fn paths_name_the_offending_value() {
        let value = MontyObject::Dict(
            vec![(
                MontyObject::String("items".into()),
                MontyObject::List(vec![
                    MontyObject::Int(1),
                    MontyObject::Dict(
                        vec![(
                            MontyObject::String("a b".into()),
                            MontyObject::Float(f64::NAN),
                        )]
                        .into(),
                    ),
                ]),
            )]
            .into(),
        );
        let e = from_python(&value).unwrap_err();
        assert_eq!(e.to_string(), r#"$.items[1]["a b"]: nan is not valid JSON"#);
    }

    #[test]
    fn nesting_is_bounded() {
        let mut value = MontyObject::Int(1);
        for _ in 0..MAX_DEPTH + 1 {
            value = MontyObject::List(vec![value]);
        }
        assert!(
            from_python(&value)
                .unwrap_err()
                .reason
                .contains("nested deeper")
        );
        let mut ok = json!(1);
        for _ in 0..MAX_DEPTH {
            ok = json!([ok]);
        }
        assert_eq!(from_python(&to_python(&ok)), Ok(ok));
    }
}
