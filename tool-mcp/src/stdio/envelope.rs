//! JSON-RPC 2.0 envelopes: what one line of the stdio transport holds, read before anything
//! else looks at it, and the error answers the transport writes itself.
//!
//! The rules are JSON-RPC 2.0's, narrowed by MCP, and applied here rather than left to the SDK
//! (whose codec answers invalid requests without an `id` member, which JSON-RPC forbids and the
//! official Python SDK's models refuse):
//!
//! - A line that is not JSON (or not UTF-8) is a parse error: -32700 with `"id": null`. MCP
//!   clients drop an error they cannot route (the Python SDK logs it at debug level), so the
//!   answer costs them nothing and tells a person reading the stream what went wrong.
//! - JSON that is not one message object (a scalar, an array: MCP dropped batches in
//!   2025-06-18) is an invalid request: -32600 with `"id": null`.
//! - An object with a `method` is a request (with an `id`) or a notification (without). Its
//!   `jsonrpc` must be `"2.0"`, its `method` a string, its `params` (if any) an object or null,
//!   and it must carry neither `result` nor `error`: a message that is both a request and a
//!   response is ambiguous, and is refused. A request whose `id` is not usable (not a string or
//!   an integer that fits an `i64`, as the SDK reads ids) is refused with `"id": null`; any
//!   other refusal carries the request's `id`, so the client's pending request ends.
//! - `params` given as an array (JSON-RPC allows it; MCP does not) is invalid params: -32602.
//! - An object with `result` or `error` and no `method` is a response, passed on when it is well
//!   formed and dropped (logged) when not: a response is never answered, so two peers can never
//!   answer each other's errors forever.
//! - A member given twice (`{"id":1,"id":2}`) makes the message ambiguous: it is refused, with
//!   `"id": null` when the member is `id`.
//! - An object with neither `method` nor `result`/`error` is an invalid request.
//!
//! Member values are read as raw JSON (checked to be JSON, not decoded): a request whose
//! `params` hold what serde_json cannot represent (a lone surrogate, nesting beyond its
//! recursion limit, a number beyond `f64`) is still a request with an id, and is answered with
//! invalid params by whoever decodes them.

use std::borrow::Cow;
use std::fmt;

use rmcp::model::{ErrorCode, ErrorData, RequestId};
use serde::Serialize;
use serde::de::{self, Deserializer as _, MapAccess, Visitor};
use serde_json::value::RawValue;

/// What one line holds.
#[derive(Debug)]
pub(crate) enum Message<'a> {
    /// Nothing but whitespace: no message, no answer.
    Blank,
    /// A request with a usable id, to answer exactly once.
    Request(Request<'a>),
    /// A notification: never answered.
    Notification { method: Cow<'a, str> },
    /// An answer to one of the server's own requests.
    Response { id: RequestId },
    /// Not a valid message: answered with this error.
    Invalid(Refusal),
    /// A malformed response (or one no request can be found for): dropped, for this reason.
    Dropped(Cow<'static, str>),
}

/// A request, its members checked.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    pub(crate) id: RequestId,
    pub(crate) method: Cow<'a, str>,
    /// Absent or null: none; else an object (checked), raw.
    pub(crate) params: Option<&'a RawValue>,
}

/// An error answer the transport writes itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    /// The request's id, or `None` for `"id": null` (there is none to give).
    pub(super) id: Option<RequestId>,
    pub(super) error: ErrorData,
}

impl Refusal {
    pub(super) fn new(id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            id,
            error: ErrorData::new(code, message.into(), None),
        }
    }

    fn parse(message: impl Into<String>) -> Self {
        Self::new(None, ErrorCode::PARSE_ERROR, message)
    }

    fn invalid(id: Option<RequestId>, message: impl Into<String>) -> Self {
        Self::new(id, ErrorCode::INVALID_REQUEST, message)
    }

    /// Appends the answer, one line of JSON without its newline, to `line`.
    pub(super) fn write(&self, line: &mut Vec<u8>) -> serde_json::Result<()> {
        /// rmcp's `JsonRpcError`, but with `"id": null` where there is no id (rmcp leaves the
        /// member out).
        #[derive(Serialize)]
        struct Answer<'a> {
            jsonrpc: &'static str,
            id: Option<&'a RequestId>,
            error: &'a ErrorData,
        }
        serde_json::to_writer(
            line,
            &Answer {
                jsonrpc: "2.0",
                id: self.id.as_ref(),
                error: &self.error,
            },
        )
    }
}

/// Reads one line (its newline removed) as a JSON-RPC message.
pub(crate) fn read(line: &[u8]) -> Message<'_> {
    let Ok(text) = std::str::from_utf8(line) else {
        let valid = std::str::from_utf8(line).map_or_else(|e| e.valid_up_to(), |_| line.len());
        return Message::Invalid(Refusal::parse(format!(
            "Parse error: the message is not UTF-8 (invalid byte at offset {valid})"
        )));
    };
    // RFC 8259 lets a parser ignore a byte order mark; some Windows clients write one.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let start = text.trim_ascii_start();
    match start.as_bytes().first() {
        None => Message::Blank,
        Some(b'{') => read_object(text),
        Some(&first) => {
            if let Err(error) = serde_json::from_str::<&RawValue>(text) {
                return Message::Invalid(Refusal::parse(format!("Parse error: {error}")));
            }
            let what = match first {
                b'[' => {
                    "a JSON array: batches are not part of MCP (removed in 2025-06-18); send one \
                     message per line"
                }
                b'"' => "a string",
                b'n' => "null",
                b't' | b'f' => "a boolean",
                _ => "a number",
            };
            Message::Invalid(Refusal::invalid(
                None,
                format!("Invalid request: a JSON-RPC message is an object, not {what}"),
            ))
        }
    }
}

fn read_object(text: &str) -> Message<'_> {
    let mut json = serde_json::Deserializer::from_str(text);
    let members = match json.deserialize_map(MembersVisitor).and_then(|m| {
        json.end()?;
        Ok(m)
    }) {
        Ok(members) => members,
        Err(error) => return Message::Invalid(Refusal::parse(format!("Parse error: {error}"))),
    };
    members.classify()
}

/// The members a message is read by; every other member is ignored.
#[derive(Default)]
struct Members<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    result: bool,
    error: bool,
    /// The first member given twice.
    duplicate: Option<&'static str>,
}

impl<'a> Members<'a> {
    fn classify(self) -> Message<'a> {
        let id = self.id.map(read_id);
        // The id an answer carries: the request's, when it is one; else null.
        let answer_id = match &id {
            Some(Ok(id)) if self.duplicate != Some("id") => Some(id.clone()),
            _ => None,
        };
        let response_like = self.method.is_none() && (self.result || self.error);
        if response_like {
            return self.classify_response(id);
        }
        if let Some(member) = self.duplicate {
            return Message::Invalid(Refusal::invalid(
                answer_id,
                format!("Invalid request: the member `{member}` is given twice"),
            ));
        }
        let Some(method) = self.method else {
            return Message::Invalid(Refusal::invalid(
                answer_id,
                "Invalid request: a message needs a `method` (a request or a notification) or a \
                 `result` or `error` (a response)",
            ));
        };
        let Some(method) = read_str(method) else {
            return Message::Invalid(Refusal::invalid(
                answer_id,
                format!(
                    "Invalid request: `method` must be a string, not {}",
                    shown(method)
                ),
            ));
        };
        if let Err(problem) = version(self.jsonrpc) {
            return Message::Invalid(Refusal::invalid(
                answer_id,
                format!("Invalid request: {problem}"),
            ));
        }
        if self.result || self.error {
            let member = if self.result { "result" } else { "error" };
            return Message::Invalid(Refusal::invalid(
                answer_id,
                format!(
                    "Invalid request: a request or notification carries no `{member}`: this \
                     message is both a request and a response"
                ),
            ));
        }
        let id = match id {
            None => None,
            Some(Ok(id)) => Some(id),
            Some(Err(problem)) => {
                return Message::Invalid(Refusal::invalid(
                    None,
                    format!("Invalid request: {problem}"),
                ));
            }
        };
        let params = match self.params.map(|p| (p, p.get().as_bytes()[0])) {
            None | Some((_, b'n')) => None,
            Some((params, b'{')) => Some(params),
            // An array is JSON-RPC's other form of params, which MCP does not use: a request
            // gets invalid params, a notification (never answered) is dropped.
            Some((_, b'[')) if id.is_none() => {
                return Message::Dropped(Cow::Owned(format!(
                    "the notification `{method}` has params that are not an object"
                )));
            }
            Some((params, first)) => {
                let (code, what) = match first {
                    b'[' => (ErrorCode::INVALID_PARAMS, "Invalid params"),
                    _ => (ErrorCode::INVALID_REQUEST, "Invalid request"),
                };
                return Message::Invalid(Refusal::new(
                    answer_id,
                    code,
                    format!("{what}: `params` must be an object, not {}", shown(params)),
                ));
            }
        };
        match id {
            None => Message::Notification { method },
            Some(id) => Message::Request(Request { id, method, params }),
        }
    }

    fn classify_response(self, id: Option<Result<RequestId, String>>) -> Message<'a> {
        let problem = if let Some(member) = self.duplicate {
            format!("the member `{member}` is given twice")
        } else if self.result && self.error {
            "it carries both `result` and `error`".to_owned()
        } else if let Err(problem) = version(self.jsonrpc) {
            problem
        } else {
            match id {
                Some(Ok(id)) => return Message::Response { id },
                Some(Err(problem)) => problem,
                None => "it has no `id`".to_owned(),
            }
        };
        Message::Dropped(Cow::Owned(format!(
            "a response that is not valid: {problem}"
        )))
    }
}

/// `jsonrpc` must be the string "2.0".
fn version(jsonrpc: Option<&RawValue>) -> Result<(), String> {
    match jsonrpc {
        Some(raw) if raw.get() == r#""2.0""# || read_str(raw).as_deref() == Some("2.0") => Ok(()),
        Some(raw) => Err(format!("`jsonrpc` must be \"2.0\", not {}", shown(raw))),
        None => {
            Err("`jsonrpc` is missing: a JSON-RPC 2.0 message carries \"jsonrpc\": \"2.0\"".into())
        }
    }
}

/// A request id as the SDK reads one: a string, or an integer that fits an `i64` (also written
/// as a float with no fraction, `1.0`, as the SDK accepts).
fn read_id(raw: &RawValue) -> Result<RequestId, String> {
    let text = raw.get();
    // The usual id, a plain integer, without the SDK's detour through `serde_json::Value`.
    if let Ok(n) = text.parse::<i64>() {
        return Ok(RequestId::Number(n));
    }
    serde_json::from_str::<RequestId>(text).map_err(|_| {
        format!(
            "`id` must be a string or an integer between -2^63 and 2^63-1, not {}",
            shown(raw)
        )
    })
}

/// A JSON string, borrowed when it has no escapes.
fn read_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    if !text.starts_with('"') {
        return None;
    }
    if let Ok(plain) = serde_json::from_str::<&str>(text) {
        return Some(Cow::Borrowed(plain));
    }
    serde_json::from_str::<String>(text).ok().map(Cow::Owned)
}

/// A member's value for an error message: short ones as they are, long ones cut.
fn shown(raw: &RawValue) -> String {
    const MAX: usize = 40;
    let text = raw.get();
    match text.char_indices().nth(MAX) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}...", &text[..end]),
    }
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
        let mut members = Members::default();
        while let Some(key) = map.next_key::<Key>()? {
            let (slot, name) = match key {
                Key::Jsonrpc => (Some(&mut members.jsonrpc), "jsonrpc"),
                Key::Id => (Some(&mut members.id), "id"),
                Key::Method => (Some(&mut members.method), "method"),
                Key::Params => (Some(&mut members.params), "params"),
                Key::Result => (None, "result"),
                Key::Error => (None, "error"),
                Key::Other => {
                    map.next_value::<de::IgnoredAny>()?;
                    continue;
                }
            };
            let value = map.next_value::<&'de RawValue>()?;
            let seen = match slot {
                Some(slot) => slot.replace(value).is_some(),
                None if name == "result" => std::mem::replace(&mut members.result, true),
                None => std::mem::replace(&mut members.error, true),
            };
            if seen && members.duplicate.is_none() {
                members.duplicate = Some(name);
            }
        }
        Ok(members)
    }
}

/// A member's name, matched without allocating (an escaped name is decoded first, so
/// `"\u0069d"` is `id`, as every JSON reader reads it).
enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Key, E> {
                Ok(match name {
                    "jsonrpc" => Key::Jsonrpc,
                    "id" => Key::Id,
                    "method" => Key::Method,
                    "params" => Key::Params,
                    "result" => Key::Result,
                    "error" => Key::Error,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn refusal(line: &str) -> (Value, i32) {
        match read(line.as_bytes()) {
            Message::Invalid(refusal) => {
                let mut out = Vec::new();
                refusal.write(&mut out).unwrap();
                let answer: Value = serde_json::from_slice(&out).unwrap();
                (answer["id"].clone(), refusal.error.code.0)
            }
            other => panic!("{line}: not refused but {other:?}"),
        }
    }

    #[test]
    fn requests_and_notifications_are_read_with_their_members() {
        let Message::Request(request) = read(
            br#"{"params":{"name":"x"},"method":"tools/call","id":"a\"b","jsonrpc":"2.0","extra":[1]}"#,
        ) else {
            panic!()
        };
        assert_eq!(request.id, RequestId::String("a\"b".into()));
        assert_eq!(request.method, "tools/call");
        assert_eq!(request.params.unwrap().get(), r#"{"name":"x"}"#);
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":null}"#),
            Message::Notification { method } if method == "notifications/initialized"
        ));
        // An escaped member name is the member it spells.
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","\u0069d":7,"method":"ping"}"#),
            Message::Request(Request {
                id: RequestId::Number(7),
                ..
            })
        ));
        // A byte order mark, a carriage return, blank lines.
        assert!(matches!(
            read("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r".as_bytes()),
            Message::Request(_)
        ));
        assert!(matches!(read(b"  \r"), Message::Blank));
    }

    #[test]
    fn invalid_requests_are_refused_with_null_or_their_id() {
        for (line, id, code) in [
            ("not json", Value::Null, -32700),
            ("{\"jsonrpc\":\"2.0\",", Value::Null, -32700),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
                Value::Null,
                -32700,
            ),
            ("[]", Value::Null, -32600),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                Value::Null,
                -32600,
            ),
            ("5", Value::Null, -32600),
            (r#""\ud800""#, Value::Null, -32600),
            (r#"{"foo":1}"#, Value::Null, -32600),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                Value::Null,
                -32600,
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
                -32600,
            ),
            (
                r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
                Value::Null,
                -32600,
            ),
            (
                r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                Value::Null,
                -32600,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}"#,
                Value::Null,
                -32600,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
                Value::Null,
                -32600,
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"method":"ping","method":"ping"}"#,
                json!(3),
                -32600,
            ),
            (r#"{"id":4,"method":"ping"}"#, json!(4), -32600),
            (
                r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#,
                json!(5),
                -32600,
            ),
            (
                r#"{"jsonrpc":2.0,"id":6,"method":"ping"}"#,
                json!(6),
                -32600,
            ),
            (r#"{"jsonrpc":"2.0","id":7,"method":1}"#, json!(7), -32600),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"ping","result":{}}"#,
                json!(8),
                -32600,
            ),
            (
                r#"{"jsonrpc":"2.0","id":9,"method":"ping","error":{}}"#,
                json!(9),
                -32600,
            ),
            (
                r#"{"jsonrpc":"2.0","id":10,"method":"ping","params":[1]}"#,
                json!(10),
                -32602,
            ),
            (
                r#"{"jsonrpc":"2.0","id":11,"method":"ping","params":"x"}"#,
                json!(11),
                -32600,
            ),
            (r#"{"jsonrpc":"2.0","id":12}"#, json!(12), -32600),
            (r#"{"jsonrpc":"2.0","method":1}"#, Value::Null, -32600),
        ] {
            assert_eq!(refusal(line), (id, code), "{line}");
        }
    }

    #[test]
    fn params_the_sdk_cannot_decode_leave_the_request_readable() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        for arguments in [r#""\ud800""#, "1e400", deep.as_str()] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"x":{arguments}}}}}}}"#
            );
            assert!(
                matches!(
                    read(line.as_bytes()),
                    Message::Request(Request {
                        id: RequestId::Number(1),
                        ..
                    })
                ),
                "{arguments:.20}"
            );
        }
    }

    #[test]
    fn responses_pass_or_are_dropped_never_answered() {
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","id":"s1","result":{}}"#),
            Message::Response {
                id: RequestId::String(_)
            }
        ));
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}"#),
            Message::Response {
                id: RequestId::Number(2)
            }
        ));
        for line in [
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"result":{}}"#,
        ] {
            assert!(
                matches!(read(line.as_bytes()), Message::Dropped(_)),
                "{line}"
            );
        }
    }

    #[test]
    fn a_refusal_with_an_id_is_written_as_the_sdk_writes_an_error() {
        let refusal = Refusal::new(
            Some(RequestId::String("r".into())),
            ErrorCode::INVALID_PARAMS,
            "bad",
        );
        let mut ours = Vec::new();
        refusal.write(&mut ours).unwrap();
        let sdk = serde_json::to_vec(&rmcp::model::ServerJsonRpcMessage::error(
            refusal.error.clone(),
            refusal.id.clone(),
        ))
        .unwrap();
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            String::from_utf8(sdk).unwrap()
        );
    }
}
