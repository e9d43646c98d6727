//! The stdio transport against JSON-RPC 2.0 and against the SDK's own transport, over
//! generated lines: valid and invalid envelopes, ids of every JSON type, extra and repeated
//! members, escapes, params the SDK cannot decode, odd framing.
//!
//! Each line is generated from a description, and what JSON-RPC 2.0 (as MCP narrows it) says
//! its answer must be is worked out from that description alone ([`Obj::expect`]): no answer,
//! an error with a code and an id (or `null`), or a result. The transport must give exactly
//! that, and every line it writes must be a valid JSON-RPC message. The SDK's own transport
//! (`ServerOptions::sdk_transport`) gets the same lines; wherever its answer is also the right
//! one, the two must be equal (the whole result; an error's code and id, as the messages
//! differ). Where the SDK is wrong (an error without an `id` member, an ambiguous message
//! run, a valid request left unanswered) only the rule counts.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use proptest::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tool_core::exec::Executor;
use tool_core::{Registry, ToolOutput, registry::DynamicTool};
use tool_mcp::{McpServer, ServerOptions, serve_io};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn server(sdk_transport: bool) -> McpServer {
    let mut registry = Registry::empty();
    registry
        .register(
            DynamicTool::new("add_numbers", "Adds a and b.", json!({"type": "object"})).handler(
                |input, _| async move {
                    let sum = input["a"].as_i64().unwrap_or(0) + input["b"].as_i64().unwrap_or(0);
                    Ok(ToolOutput::text(sum.to_string()))
                },
            ),
        )
        .unwrap();
    let mut options = ServerOptions::default();
    options.sdk_transport = sdk_transport;
    McpServer::with_options(Executor::new(registry), options)
}

/// Everything a server writes for `input` after a handshake, until it ends at the end of input.
/// `together`: the handshake and the lines go in one write, so the first lines may be read
/// before the session has begun (and go the SDK's way); else the lines follow its answer.
async fn answers(input: &str, sdk_transport: bool, together: bool) -> Vec<Value> {
    let (client, served) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(served);
    let serving = tokio::spawn(serve_io(
        server(sdk_transport),
        read,
        write,
        Default::default(),
    ));
    let (read, mut write) = tokio::io::split(client);
    let mut read = BufReader::new(read);
    let handshake = format!("{INITIALIZE}\n{INITIALIZED}\n");
    if together {
        write
            .write_all((handshake + input).as_bytes())
            .await
            .unwrap();
    } else {
        write.write_all(handshake.as_bytes()).await.unwrap();
        let mut first = String::new();
        read.read_line(&mut first).await.unwrap();
        assert!(first.contains(r#""id":"init""#), "{first}");
        write.write_all(input.as_bytes()).await.unwrap();
    }
    write.shutdown().await.unwrap();
    let mut out = Vec::new();
    loop {
        let mut line = String::new();
        let n = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            read.read_line(&mut line),
        )
        .await
        .expect("the server ends after the end of input")
        .unwrap();
        if n == 0 {
            break;
        }
        let answer: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"));
        if answer["id"] != "init" {
            out.push(answer);
        }
    }
    let _ = serving.await;
    out
}

/// A line, as generated.
#[derive(Debug, Clone)]
enum Line {
    Blank(&'static str),
    NotJson(&'static str),
    Scalar(&'static str),
    Batch,
    Obj(Obj),
}

#[derive(Debug, Clone)]
struct Obj {
    jsonrpc: Version,
    id: Id,
    method: Method,
    extra: Extra,
    /// Writes `id` as `"\u0069d"`.
    escaped_id_key: bool,
    /// Member order.
    shuffle: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Version {
    Two,
    EscapedTwo,
    Absent,
    One,
    Number,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Id {
    Absent,
    Int,
    Str,
    IntAsFloat,
    Fraction,
    Big,
    Null,
    Bool,
    Object,
}

#[derive(Debug, Clone, PartialEq)]
enum Method {
    Absent,
    NotAString,
    Call(Params<CallArgs>),
    List(Params<Cursor>),
    Ping,
    Unknown,
    SetLevel(bool),
    Cancelled,
    CustomNotification,
}

#[derive(Debug, Clone, PartialEq)]
enum Params<T> {
    Absent,
    Null,
    Array,
    Scalar,
    Object(T),
}

#[derive(Debug, Clone, PartialEq)]
struct CallArgs {
    name: Name,
    arguments: Arguments,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Name {
    Tool,
    Unknown,
    NotAString,
    Missing,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Arguments {
    Absent,
    Null,
    Sum(i64, i64),
    Array,
    LoneSurrogate,
    Huge,
    Deep,
    Escapes,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Cursor {
    None,
    First,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Extra {
    None,
    Unknown,
    Result,
    Error,
    Duplicate(&'static str),
}

/// What JSON-RPC 2.0, as MCP narrows it, says the answer to a line is.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Nothing,
    /// An error with this code, and this id (`Null` for none).
    Error(Value, i64),
    /// A result, with this id.
    Result(Value),
}

impl Line {
    fn expect(&self, id: &Value) -> Expect {
        match self {
            Line::Blank(_) => Expect::Nothing,
            Line::NotJson(_) => Expect::Error(Value::Null, -32700),
            Line::Scalar(_) | Line::Batch => Expect::Error(Value::Null, -32600),
            Line::Obj(obj) => obj.expect(id),
        }
    }

    fn text(&self, id: &Value) -> String {
        match self {
            Line::Blank(text) | Line::NotJson(text) | Line::Scalar(text) => (*text).to_owned(),
            Line::Batch => format!(r#"[{{"jsonrpc":"2.0","id":{id},"method":"ping"}}]"#),
            Line::Obj(obj) => obj.text(id),
        }
    }
}

impl Obj {
    /// The rules in the order the stdio transport's docs give them.
    fn expect(&self, id: &Value) -> Expect {
        use Expect::{Error, Nothing, Result};
        let usable = self.usable_id(id);
        let answer_id = usable.clone().unwrap_or(Value::Null);
        if self.method == Method::Absent && matches!(self.extra, Extra::Result | Extra::Error) {
            return Nothing; // a response: never answered
        }
        if let Extra::Duplicate(member) = self.extra {
            let id = if member == "id" {
                Value::Null
            } else {
                answer_id
            };
            return Error(id, -32600);
        }
        if matches!(self.method, Method::Absent | Method::NotAString)
            || matches!(
                self.jsonrpc,
                Version::Absent | Version::One | Version::Number
            )
            || matches!(self.extra, Extra::Result | Extra::Error)
        {
            return Error(answer_id, -32600);
        }
        let request = match (self.id, &usable) {
            (Id::Absent, _) => false,
            (_, None) => return Error(Value::Null, -32600),
            (_, Some(_)) => true,
        };
        let shape = |scalar: bool, array: bool| match (scalar, array, request) {
            (true, _, _) => Some(Error(answer_id.clone(), -32600)),
            (_, true, true) => Some(Error(answer_id.clone(), -32602)),
            (_, true, false) => Some(Nothing),
            _ => None,
        };
        if let Some(params) = self.params_shape()
            && let Some(expect) = shape(params.0, params.1)
        {
            return expect;
        }
        if !request {
            return Nothing;
        }
        let invalid = Error(answer_id.clone(), -32602);
        match &self.method {
            Method::Call(Params::Object(args)) => match (args.name, args.arguments) {
                (Name::Missing | Name::NotAString | Name::Unknown, _) => invalid,
                (
                    Name::Tool,
                    Arguments::Array | Arguments::LoneSurrogate | Arguments::Huge | Arguments::Deep,
                ) => invalid,
                (Name::Tool, _) => Result(answer_id),
            },
            Method::Call(_) => invalid,
            Method::List(Params::Object(Cursor::Unknown)) => invalid,
            Method::List(_) | Method::Ping | Method::SetLevel(true) => Result(answer_id),
            Method::SetLevel(false) => invalid,
            Method::Unknown => Error(answer_id, -32601),
            // A notification's method in a request: no such request.
            Method::Cancelled | Method::CustomNotification => Error(answer_id, -32601),
            Method::Absent | Method::NotAString => unreachable!("refused above"),
        }
    }

    /// `(scalar, array)` for params that are not an object or null.
    fn params_shape(&self) -> Option<(bool, bool)> {
        let shape = |p: &dyn Fn() -> Option<(bool, bool)>| p();
        match &self.method {
            Method::Call(p) => shape(&|| params_shape(p)),
            Method::List(p) => shape(&|| params_shape(p)),
            _ => None,
        }
    }

    /// The id the answer carries, when the id is usable: a string, or an integer in `i64`
    /// (also written `7.0`, as the SDK reads it).
    fn usable_id(&self, id: &Value) -> Option<Value> {
        match self.id {
            Id::Int | Id::IntAsFloat => Some(id.clone()),
            Id::Str => Some(Value::String(id_string(id))),
            _ => None,
        }
    }

    fn text(&self, id: &Value) -> String {
        let mut members: Vec<(String, String)> = Vec::new();
        let mut push = |k: &str, v: String| members.push((format!("\"{k}\""), v));
        match self.jsonrpc {
            Version::Two => push("jsonrpc", r#""2.0""#.into()),
            Version::EscapedTwo => push("jsonrpc", r#""\u0032.0""#.into()),
            Version::Absent => {}
            Version::One => push("jsonrpc", r#""1.0""#.into()),
            Version::Number => push("jsonrpc", "2.0".into()),
        }
        let id_text = match self.id {
            Id::Absent => None,
            Id::Int => Some(id.to_string()),
            Id::Str => Some(json!(id_string(id)).to_string()),
            Id::IntAsFloat => Some(format!("{id}.0")),
            Id::Fraction => Some(format!("{id}.5")),
            Id::Big => Some("1180591620717411303424".into()),
            Id::Null => Some("null".into()),
            Id::Bool => Some("true".into()),
            Id::Object => Some(format!(r#"{{"id":{id}}}"#)),
        };
        if let Some(text) = id_text {
            let key = if self.escaped_id_key {
                r"\u0069d"
            } else {
                "id"
            };
            push(key, text);
        }
        let (method, params) = self.method_and_params();
        if let Some(method) = method {
            push("method", method);
        }
        if let Some(params) = params {
            push("params", params);
        }
        match self.extra {
            Extra::None => {}
            Extra::Unknown => push("x-extra", r#"{"a":[1,"\ud83d\ude00"]}"#.into()),
            Extra::Result => push("result", "{}".into()),
            Extra::Error => push("error", r#"{"code":-1,"message":"m"}"#.into()),
            Extra::Duplicate(member) => {
                // The same value again (an id of this line's own when there was none, so that
                // no other line's answer can be taken for this one's).
                let key = format!("\"{member}\"");
                match members.iter().find(|(k, _)| k == &key) {
                    Some((_, value)) => members.push((key.clone(), value.clone())),
                    None => members.extend([(key.clone(), id.to_string()), (key, id.to_string())]),
                }
            }
        }
        // A deterministic shuffle: member order means nothing in JSON.
        let mut seed = self.shuffle;
        for i in (1..members.len()).rev() {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            members.swap(i, (seed >> 33) as usize % (i + 1));
        }
        let mut text = String::from("{");
        for (i, (k, v)) in members.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            let _ = write!(text, "{k}:{v}");
        }
        text.push('}');
        text
    }

    fn method_and_params(&self) -> (Option<String>, Option<String>) {
        let m = |name: &str| Some(json!(name).to_string());
        match &self.method {
            Method::Absent => (None, None),
            Method::NotAString => (Some("5".into()), None),
            Method::Call(params) => (m("tools/call"), params_text(params, call_args)),
            Method::List(params) => (
                m("tools/list"),
                params_text(params, |c| match c {
                    Cursor::None => "{}".into(),
                    Cursor::First => r#"{"cursor":"0"}"#.into(),
                    Cursor::Unknown => r#"{"cursor":"nope"}"#.into(),
                }),
            ),
            Method::Ping => (m("ping"), None),
            Method::Unknown => (m("x/unknown"), None),
            Method::SetLevel(valid) => (
                m("logging/setLevel"),
                Some(
                    if *valid {
                        r#"{"level":"info"}"#
                    } else {
                        r#"{"level":"loud"}"#
                    }
                    .into(),
                ),
            ),
            Method::Cancelled => (
                m("notifications/cancelled"),
                Some(r#"{"requestId":"no-such-request"}"#.into()),
            ),
            Method::CustomNotification => (m("notifications/x-custom"), None),
        }
    }
}

fn params_shape<T>(params: &Params<T>) -> Option<(bool, bool)> {
    match params {
        Params::Array => Some((false, true)),
        Params::Scalar => Some((true, false)),
        _ => None,
    }
}

fn params_text<T>(params: &Params<T>, object: impl Fn(&T) -> String) -> Option<String> {
    match params {
        Params::Absent => None,
        Params::Null => Some("null".into()),
        Params::Array => Some("[1,2]".into()),
        Params::Scalar => Some(r#""params""#.into()),
        Params::Object(inner) => Some(object(inner)),
    }
}

fn call_args(args: &CallArgs) -> String {
    let mut members = Vec::new();
    match args.name {
        Name::Tool => members.push(r#""name":"add_numbers""#.to_owned()),
        Name::Unknown => members.push(r#""name":"no_such_tool""#.to_owned()),
        Name::NotAString => members.push(r#""name":7"#.to_owned()),
        Name::Missing => {}
    }
    let arguments = match args.arguments {
        Arguments::Absent => None,
        Arguments::Null => Some("null".to_owned()),
        Arguments::Sum(a, b) => Some(format!(r#"{{"a":{a},"b":{b}}}"#)),
        Arguments::Array => Some("[1,2]".to_owned()),
        Arguments::LoneSurrogate => Some(r#"{"a":"\ud800"}"#.to_owned()),
        Arguments::Huge => Some(r#"{"a":1e400}"#.to_owned()),
        Arguments::Deep => Some(format!(
            r#"{{"a":{}{}}}"#,
            "[".repeat(10_000),
            "]".repeat(10_000)
        )),
        Arguments::Escapes => {
            Some(r#"{"a":1,"note":"tab\t \"q\" \u00e9 \ud83d\ude00 \\"}"#.to_owned())
        }
    };
    if let Some(arguments) = arguments {
        members.push(format!(r#""arguments":{arguments}"#));
    }
    format!("{{{}}}", members.join(","))
}

/// A string id made from the line's number, with escapes in it.
fn id_string(id: &Value) -> String {
    format!("s{id} \"q\" \u{e9}")
}

fn version() -> impl Strategy<Value = Version> {
    prop_oneof![
        6 => Just(Version::Two),
        1 => Just(Version::EscapedTwo),
        1 => Just(Version::Absent),
        1 => Just(Version::One),
        1 => Just(Version::Number),
    ]
}

fn id() -> impl Strategy<Value = Id> {
    prop_oneof![
        4 => Just(Id::Int),
        2 => Just(Id::Str),
        2 => Just(Id::Absent),
        1 => Just(Id::IntAsFloat),
        1 => Just(Id::Fraction),
        1 => Just(Id::Big),
        1 => Just(Id::Null),
        1 => Just(Id::Bool),
        1 => Just(Id::Object),
    ]
}

fn params<T: Clone + std::fmt::Debug + 'static>(
    inner: impl Strategy<Value = T> + 'static,
) -> impl Strategy<Value = Params<T>> {
    prop_oneof![
        6 => inner.prop_map(Params::Object),
        1 => Just(Params::Absent),
        1 => Just(Params::Null),
        1 => Just(Params::Array),
        1 => Just(Params::Scalar),
    ]
}

fn call() -> impl Strategy<Value = CallArgs> {
    let name = prop_oneof![
        6 => Just(Name::Tool),
        1 => Just(Name::Unknown),
        1 => Just(Name::NotAString),
        1 => Just(Name::Missing),
    ];
    let arguments = prop_oneof![
        6 => (-1000i64..1000, -1000i64..1000).prop_map(|(a, b)| Arguments::Sum(a, b)),
        1 => Just(Arguments::Absent),
        1 => Just(Arguments::Null),
        1 => Just(Arguments::Array),
        1 => Just(Arguments::LoneSurrogate),
        1 => Just(Arguments::Huge),
        1 => Just(Arguments::Deep),
        1 => Just(Arguments::Escapes),
    ];
    (name, arguments).prop_map(|(name, arguments)| CallArgs { name, arguments })
}

fn method() -> impl Strategy<Value = Method> {
    let cursor = prop_oneof![
        Just(Cursor::None),
        Just(Cursor::First),
        Just(Cursor::Unknown)
    ];
    prop_oneof![
        8 => params(call()).prop_map(Method::Call),
        2 => params(cursor).prop_map(Method::List),
        2 => Just(Method::Ping),
        1 => Just(Method::Unknown),
        1 => any::<bool>().prop_map(Method::SetLevel),
        1 => Just(Method::Cancelled),
        1 => Just(Method::CustomNotification),
        1 => Just(Method::Absent),
        1 => Just(Method::NotAString),
    ]
}

fn extra() -> impl Strategy<Value = Extra> {
    prop_oneof![
        8 => Just(Extra::None),
        2 => Just(Extra::Unknown),
        1 => Just(Extra::Result),
        1 => Just(Extra::Error),
        1 => prop_oneof![Just("id"), Just("method"), Just("jsonrpc"), Just("params")]
            .prop_map(Extra::Duplicate),
    ]
}

fn line() -> impl Strategy<Value = Line> {
    let obj = (
        version(),
        id(),
        method(),
        extra(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(jsonrpc, id, method, extra, escaped, shuffle)| {
            Line::Obj(Obj {
                jsonrpc,
                id,
                method,
                extra,
                escaped_id_key: escaped && id != Id::Absent,
                shuffle,
            })
        });
    prop_oneof![
        20 => obj,
        1 => prop_oneof![Just(""), Just("   "), Just("\t")].prop_map(Line::Blank),
        1 => prop_oneof![Just("not json"), Just("{"), Just(r#"{"a":}"#), Just("[1,"), Just(r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#)]
            .prop_map(Line::NotJson),
        1 => prop_oneof![Just("5"), Just(r#""x""#), Just("null"), Just("true"), Just(r#""\ud800""#)]
            .prop_map(Line::Scalar),
        1 => Just(Line::Batch),
    ]
}

/// A line as JSON-RPC requires every message the server writes to be (what the official
/// Python SDK's `JSONRPCMessage` accepts): `jsonrpc` "2.0"; a result with a string or integer
/// id and an object; an error with such an id or `null`, an integer code and a string message.
fn assert_valid_message(message: &Value) {
    let id_ok = |id: &Value| id.is_string() || id.is_i64();
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    let object = message.as_object().unwrap();
    match (
        object.get("result"),
        object.get("error"),
        object.get("method"),
    ) {
        (Some(result), None, None) => {
            assert!(result.is_object() && id_ok(&message["id"]), "{message}");
        }
        (None, Some(error), None) => {
            let id = object
                .get("id")
                .expect("an error carries `id`, null if need be");
            assert!(id.is_null() || id_ok(id), "{message}");
            assert!(
                error["code"].is_i64() && error["message"].is_string(),
                "{message}"
            );
        }
        (None, None, Some(method)) => assert!(method.is_string(), "{message}"),
        _ => panic!("not one JSON-RPC message: {message}"),
    }
}

/// Answers by id (`null` ones by code, as a count), and the answer's shape.
fn by_id(answers: &[Value]) -> (BTreeMap<String, Vec<Value>>, BTreeMap<i64, usize>) {
    let mut with_id: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut null = BTreeMap::new();
    for answer in answers {
        match answer.get("id") {
            Some(Value::Null) | None => {
                *null
                    .entry(answer["error"]["code"].as_i64().unwrap_or(0))
                    .or_default() += 1;
            }
            Some(id) => with_id
                .entry(id.to_string())
                .or_default()
                .push(answer.clone()),
        }
    }
    (with_id, null)
}

fn shape(answer: &Value) -> Expect {
    match answer.get("error") {
        Some(error) => Expect::Error(answer["id"].clone(), error["code"].as_i64().unwrap()),
        None => Expect::Result(answer["id"].clone()),
    }
}

/// Checks the answers to `lines`; returns how many results were compared with the SDK's.
fn check(lines: &[Line], crlf: bool, together: bool) -> usize {
    let mut input = String::new();
    let mut expected = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let id = json!(n as i64 + 1);
        input.push_str(&line.text(&id));
        input.push_str(if crlf { "\r\n" } else { "\n" });
        expected.push((line, line.expect(&id)));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (ours, sdk) = runtime.block_on(async {
        tokio::join!(
            answers(&input, false, together),
            answers(&input, true, together)
        )
    });
    for answer in &ours {
        assert_valid_message(answer);
    }
    let (ours_by_id, ours_null) = by_id(&ours);
    let (sdk_by_id, _) = by_id(&sdk);
    let mut null_expected: BTreeMap<i64, usize> = BTreeMap::new();
    let mut with_id = 0;
    let mut compared = 0;
    for (line, expect) in &expected {
        let id = match expect {
            Expect::Nothing => continue,
            Expect::Error(Value::Null, code) => {
                *null_expected.entry(*code).or_default() += 1;
                continue;
            }
            Expect::Error(id, _) | Expect::Result(id) => id.to_string(),
        };
        with_id += 1;
        let got = ours_by_id.get(&id).map(Vec::as_slice).unwrap_or_default();
        assert_eq!(
            got.len(),
            1,
            "{line:?}\nexpected one answer with id {id}, got {got:?}"
        );
        let ours = &got[0];
        assert_eq!(
            &shape(ours),
            expect,
            "{line:?}\n{}\nours: {ours}",
            line.text(&json!(0))
        );
        // Where the SDK's transport is also right, the answers are the same.
        if let Some([sdk]) = sdk_by_id.get(&id).map(Vec::as_slice)
            && &shape(sdk) == expect
            && let Expect::Result(_) = expect
        {
            assert_eq!(sdk, ours, "{line:?}");
            compared += 1;
        }
    }
    let shown = || {
        let lines: Vec<String> = expected
            .iter()
            .enumerate()
            .map(|(n, (line, expect))| format!("{}  =>  {expect:?}", line.text(&json!(n + 1))))
            .collect();
        let ours: Vec<String> = ours.iter().map(Value::to_string).collect();
        format!(
            "lines:\n{}\nanswers:\n{}",
            lines.join("\n"),
            ours.join("\n")
        )
    };
    assert_eq!(
        ours_null,
        null_expected,
        "errors with a null id, by code\n{}",
        shown()
    );
    assert_eq!(
        ours.len(),
        with_id + null_expected.values().sum::<usize>(),
        "{}",
        shown()
    );
    compared
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_line_gets_the_answer_json_rpc_calls_for(
        lines in proptest::collection::vec(line(), 1..12),
        crlf in any::<bool>(),
        together in any::<bool>(),
    ) {
        check(&lines, crlf, together);
    }
}

/// The cases the transport was found wanting on, one line each, with what is right for each:
/// answered by the transport as JSON-RPC 2.0 requires, and by the SDK's own transport too
/// wherever it gets them right.
#[test]
fn the_reported_cases_are_answered_as_json_rpc_requires() {
    let call = |args| {
        Method::Call(Params::Object(CallArgs {
            name: Name::Tool,
            arguments: args,
        }))
    };
    let obj = |id, method, extra| {
        Line::Obj(Obj {
            jsonrpc: Version::Two,
            id,
            method,
            extra,
            escaped_id_key: false,
            shuffle: 0,
        })
    };
    let mut lines = vec![Line::Batch, Line::Scalar("5"), Line::NotJson("not json")];
    for id in [Id::Fraction, Id::Null, Id::Bool, Id::Big, Id::Object] {
        lines.push(obj(id, call(Arguments::Sum(1, 2)), Extra::None));
    }
    for version in [Version::Absent, Version::One] {
        let mut line = obj(Id::Int, call(Arguments::Sum(1, 2)), Extra::None);
        if let Line::Obj(o) = &mut line {
            o.jsonrpc = version;
        }
        lines.push(line);
    }
    lines.extend([
        obj(Id::Absent, Method::Absent, Extra::Unknown),
        obj(Id::Int, Method::Ping, Extra::Duplicate("id")),
        obj(Id::Int, Method::Call(Params::Array), Extra::None),
        obj(Id::Int, Method::Call(Params::Absent), Extra::None),
        obj(Id::Int, Method::Call(Params::Null), Extra::None),
        obj(
            Id::Int,
            Method::Call(Params::Object(CallArgs {
                name: Name::NotAString,
                arguments: Arguments::Sum(1, 2),
            })),
            Extra::None,
        ),
        obj(Id::Int, call(Arguments::LoneSurrogate), Extra::None),
        obj(Id::Int, call(Arguments::Deep), Extra::None),
        obj(Id::Int, call(Arguments::Huge), Extra::None),
        obj(Id::Int, call(Arguments::Sum(1, 2)), Extra::Result),
        obj(Id::Int, call(Arguments::Sum(1, 2)), Extra::Error),
        obj(Id::Int, Method::Ping, Extra::Result),
        obj(Id::Int, call(Arguments::Sum(40, 2)), Extra::None),
        obj(Id::Str, Method::List(Params::Absent), Extra::None),
    ]);
    // The call and the listing: the SDK gets those right, and answers them the same.
    assert_eq!(check(&lines, false, false), 2);
    check(&lines, false, true);
}
